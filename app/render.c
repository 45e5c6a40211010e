/*
** The parts every renderer shares (mirroring, numbers in the study's
** language, text fitted to its box, chips, key caps, section labels,
** colour-bar legends) and the item inputs. Layout sizes derive from the
** body text size (ui->u) so everything follows the window and the
** participant's text size setting.
*/
#include "app/render_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

int render_rtl(const RenderCtx *rc)
{
    return rc && ui_strings_rtl(rc->strings);
}

float render_mx(const RenderCtx *rc, float cx, float cw, float x, float w)
{
    return render_rtl(rc) ? cx + cw - (x - cx) - w : x;
}

int render_align(const RenderCtx *rc, int align)
{
    if (!render_rtl(rc)) {
        return align;
    }
    return align == ALIGN_LEFT    ? ALIGN_RIGHT
           : align == ALIGN_RIGHT ? ALIGN_LEFT
                                  : align;
}

/* ---------------------------------------------------------- numbers */

void render_num(const RenderCtx *rc, double v, int decimals, int sign,
                char *out, size_t n)
{
    screen_format_num(rc ? rc->strings : NULL, v, decimals, sign, out, n);
}

/* -------------------------------------------------------- fitted text */

Font *render_fit_font(const RenderCtx *rc, Font *font, const char *text,
                      float w)
{
    size_t len = strlen(text);
    if (font_width(font, text, len) <= w) {
        return font;
    }
    Font *f = font;
    for (int step = 1; step <= 7; step++) {
        float k = 1.0f - (1.0f - RENDER_MIN_SCALE) * (float)step / 7.0f;
        Font *g = fonts_get(rc->ui->fonts, font->face, (float)font->px * k);
        if (!g) {
            break;
        }
        f = g;
        if (font_width(f, text, len) <= w) {
            break;
        }
    }
    return f;
}

float render_fit_text(const RenderCtx *rc, Scene *sc, Font *font,
                      const char *text, float x, float y, float w, SDL_Color c,
                      int align)
{
    Font *f = render_fit_font(rc, font, text, w);
    float tw = font_width(f, text, strlen(text));
    if (tw > w) {
        return text_para(sc, f, text, x, y, w, c, align);
    }
    if (sc) {
        float tx = align == ALIGN_RIGHT    ? x + w - tw
                   : align == ALIGN_CENTER ? x + (w - tw) / 2
                                           : x;
        /* a smaller face sits on the line of the larger one */
        scene_text(sc, f, tx, y + (float)(font->ascent - f->ascent), text, c);
    }
    return (float)font->line_h;
}

int render_value_shown(const RenderCtx *rc, int hover)
{
    return !rc->hover_mode || (hover >= 0 && rc->hover_target == hover);
}

void render_hover_region(const RenderCtx *rc, Scene *sc, SDL_FRect r, int hover)
{
    if (sc && rc->hover_mode && hover >= 0) {
        scene_begin_hit(sc, r, ACT_HOVER, hover, 1);
        scene_end_hit(sc);
    }
}

/* Upper case of UTF-8 text into out (n bytes, NUL-terminated, never cut
** inside a character): ASCII, Latin-1 letters (except ß and ÿ) and the
** case pairs of Latin Extended-A; other characters are copied. */
static void utf8_upper(const char *text, char *out, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, o = 0;
    while (s[i]) {
        size_t len = s[i] < 0x80 ? 1 : s[i] < 0xE0 ? 2 : s[i] < 0xF0 ? 3 : 4;
        for (size_t k = 1; k < len; k++) {
            if (!s[i + k]) {
                len = k;
                break;
            }
        }
        if (o + len + 1 > n) {
            break;
        }
        memcpy(out + o, s + i, len);
        if (len == 1) {
            out[o] = (char)toupper(s[i]);
        } else if (len == 2) {
            unsigned cp = ((s[i] & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
            if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) {
                cp -= 0x20;
            } else if (cp >= 0x100 && cp <= 0x17F && cp != 0x131 &&
                       cp != 0x138 && cp != 0x149 && cp != 0x17F) {
                /* Latin Extended-A: pairs, upper first, except where the
                ** pairs shift (U+0139-0148, U+0179-017E: lower is odd). */
                int shifted = (cp >= 0x139 && cp <= 0x148) ||
                              (cp >= 0x179 && cp <= 0x17E);
                if (shifted ? (cp % 2 == 0) : (cp % 2 == 1)) {
                    cp -= 1;
                }
            }
            out[o] = (char)(0xC0 | (cp >> 6));
            out[o + 1] = (char)(0x80 | (cp & 0x3F));
        }
        o += len;
        i += len;
    }
    out[o] = '\0';
}

float render_section_label(const RenderCtx *rc, Scene *sc, float x, float y,
                           float w, const char *text)
{
    Ui *ui = rc->ui;
    char up[512];
    utf8_upper(text, up, sizeof up);
    return render_fit_text(rc, sc, ui->small_bold, up, x, y, w, ui->th.muted,
                           render_align(rc, ALIGN_LEFT));
}

float render_pill_height(const RenderCtx *rc)
{
    return roundf((float)rc->ui->bold->line_h + rc->ui->u * 0.6f);
}

float render_chip(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong, float max_w,
                  float *h_out)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float pad = roundf(ui->u * 0.6f);
    float h = render_pill_height(rc);
    Font *lf = ui->small, *vf = ui->bold;
    float lw = font_width(lf, label, strlen(label));
    float vw = font_width(vf, value, strlen(value));
    float fixed = pad + pad * 0.7f + pad * 1.2f;
    float w = fixed + lw + vw;
    int stacked = 0;
    if (w > max_w) {
        /* smaller texts first, then the label above the value */
        float k = fmaxf((max_w - fixed) / (lw + vw), RENDER_MIN_SCALE);
        lf = fonts_get(ui->fonts, ui->small->face, (float)ui->small->px * k);
        vf = fonts_get(ui->fonts, ui->bold->face, (float)ui->bold->px * k);
        lw = font_width(lf, label, strlen(label));
        vw = font_width(vf, value, strlen(value));
        w = fixed + lw + vw;
        if (w > max_w) {
            stacked = 1;
        }
    }
    SDL_Color lc = strong ? (SDL_Color){220, 230, 245, 255} : th->muted;
    SDL_Color vc = strong ? th->accent_text : th->text;
    SDL_Color fill = strong ? th->model : th->panel_alt;
    SDL_Color border = strong ? th->model : th->border;
    if (!stacked) {
        if (sc) {
            SDL_FRect r = {x, y, w, h};
            scene_frame(sc, r, h / 2, 1, border, fill);
            scene_box_begin(sc, r, "chip");
            float ly = y + (h - (float)lf->line_h) / 2;
            float vy = y + (h - (float)vf->line_h) / 2;
            /* label then value, from the start side */
            scene_text(sc, lf, render_mx(rc, x, w, x + pad, lw), ly, label, lc);
            scene_text(sc, vf,
                       render_mx(rc, x, w, x + pad + lw + pad * 0.7f, vw), vy,
                       value, vc);
            scene_box_end(sc);
        }
        if (h_out) {
            *h_out = h;
        }
        return w;
    }
    float inner = max_w - 2 * pad;
    int al = render_align(rc, ALIGN_LEFT);
    float lh = render_fit_text(rc, NULL, ui->small, label, 0, 0, inner, lc, al);
    float vh = render_fit_text(rc, NULL, ui->bold, value, 0, 0, inner, vc, al);
    float ch = pad * 0.5f + lh + vh + pad * 0.5f;
    if (sc) {
        SDL_FRect r = {x, y, max_w, ch};
        scene_frame(sc, r, pad, 1, border, fill);
        scene_box_begin(sc, r, "chip");
        render_fit_text(rc, sc, ui->small, label, x + pad, y + pad * 0.5f,
                        inner, lc, al);
        render_fit_text(rc, sc, ui->bold, value, x + pad, y + pad * 0.5f + lh,
                        inner, vc, al);
        scene_box_end(sc);
    }
    if (h_out) {
        *h_out = ch;
    }
    return max_w;
}

float render_pill(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong)
{
    return render_chip(rc, sc, x, y, label, value, strong, 1e9f, NULL);
}

float render_keycap(const RenderCtx *rc, Scene *sc, float x, float y, float h,
                    const char *key)
{
    Ui *ui = rc->ui;
    Font *f = ui->key;
    char up[32];
    size_t i = 0;
    for (; key[i] && i + 1 < sizeof up; i++) {
        up[i] = (char)toupper((unsigned char)key[i]);
    }
    up[i] = 0;
    if (strlen(up) > 1) {
        /* Longer names read better in title case ("Enter"). */
        for (size_t k = 1; up[k]; k++) {
            up[k] = (char)tolower((unsigned char)up[k]);
        }
    }
    float tw = font_width(f, up, strlen(up));
    float w = fmaxf(h, tw + h * 0.6f);
    if (sc) {
        scene_frame(sc, (SDL_FRect){x, y, w, h}, h * 0.22f, 1, ui->th.border,
                    ui->th.keycap);
        scene_text(sc, f, x + (w - tw) / 2, y + (h - (float)f->line_h) / 2, up,
                   ui->th.keycap_text);
    }
    return w;
}

/* ------------------------------------------------------------ legends */

float render_legend(const RenderCtx *rc, Scene *sc, const Tex *bar,
                    const char *lo, const char *hi, float x, float y, float w,
                    float bw)
{
    Ui *ui = rc->ui;
    Font *f = ui->caption;
    float bh = roundf(ui->u * 0.55f);
    float lw = font_width(f, lo, strlen(lo));
    float hw = font_width(f, hi, strlen(hi));
    float total = lw + hw + bw + ui->u;
    if (total <= w) {
        /* captions beside the bar, centred on it; the taller of the two
        ** starts at y */
        float lh = (float)f->line_h;
        float h = fmaxf(bh, lh);
        float by = y + (h - bh) / 2, ty = y + (h - lh) / 2;
        float bx = x + fmaxf(0, floorf((w - total) / 2));
        if (sc) {
            scene_box_begin(sc, (SDL_FRect){x, y, w, h}, "legend");
            scene_text(sc, f, bx, ty, lo, ui->th.muted);
            if (bar->tex) {
                scene_texture(sc, bar->tex, NULL,
                              (SDL_FRect){bx + lw + ui->u * 0.5f, by, bw, bh},
                              255);
            }
            scene_text(sc, f, bx + lw + bw + ui->u, ty, hi, ui->th.muted);
            scene_box_end(sc);
        }
        return h;
    }
    /* the bar across the column, each caption under its end (wrapped to
    ** half the column) */
    bw = fminf(bw, w);
    float bx = x + floorf((w - bw) / 2);
    float half = floorf(w / 2) - ui->u * 0.25f;
    float gap = roundf(ui->u * 0.2f);
    float h1 = text_para(NULL, f, lo, 0, 0, half, ui->th.muted, ALIGN_LEFT);
    float h2 = text_para(NULL, f, hi, 0, 0, half, ui->th.muted, ALIGN_RIGHT);
    float h = bh + gap + fmaxf(h1, h2);
    if (sc) {
        scene_box_begin(sc, (SDL_FRect){x, y, w, h}, "legend");
        if (bar->tex) {
            scene_texture(sc, bar->tex, NULL, (SDL_FRect){bx, y, bw, bh}, 255);
        }
        text_para(sc, f, lo, x, y + bh + gap, half, ui->th.muted, ALIGN_LEFT);
        text_para(sc, f, hi, x + w - half, y + bh + gap, half, ui->th.muted,
                  ALIGN_RIGHT);
        scene_box_end(sc);
    }
    return h;
}

/* ------------------------------------------------------------------ input */

float render_image_fit(const RenderCtx *rc, Scene *sc, const Tex *t, float x,
                       float y, float w, float max_h, float *out_w)
{
    Ui *ui = rc->ui;
    if (!t->tex || t->w <= 0 || t->h <= 0) {
        float h = ui->u * 4;
        if (sc) {
            scene_frame(sc, (SDL_FRect){x, y, w, h}, 6, 1, ui->th.border,
                        ui->th.panel_alt);
            text_para(sc, ui->small, "(image unavailable)", x,
                      y + h / 2 - ui->u, w, ui->th.muted, ALIGN_CENTER);
        }
        if (out_w) {
            *out_w = w;
        }
        return h;
    }
    float s = fminf(w / (float)t->w, max_h / (float)t->h);
    float dw = floorf((float)t->w * s), dh = floorf((float)t->h * s);
    if (sc) {
        scene_texture(sc, t->tex, NULL, (SDL_FRect){x, y, dw, dh}, 255);
    }
    if (out_w) {
        *out_w = dw;
    }
    return dh;
}

static float render_table(const RenderCtx *rc, Scene *sc, const ScreenInput *in,
                          float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float name_w = 0;
    for (size_t i = 0; i < in->n_rows; i++) {
        const char *nm = in->rows[i].name;
        name_w = fmaxf(name_w, font_width(ui->small, nm, strlen(nm)));
    }
    float pad = roundf(ui->u * 0.4f);
    name_w = fminf(name_w + 2 * pad, w * 0.42f);
    float val_w = w - name_w;
    float yy = y;
    for (size_t i = 0; i < in->n_rows; i++) {
        const ScreenRow *r = &in->rows[i];
        Span vs[3];
        size_t nv = 0;
        char arrow[16];
        if (r->edit && r->from) {
            /* the arrow points the way the line reads */
            snprintf(arrow, sizeof arrow, "  %s  ", r->arrow ? r->arrow : "");
            vs[nv++] = (Span){r->from,   strlen(r->from), ui->small,
                              th->faint, NO_BG,           2};
            vs[nv++] =
                (Span){arrow, strlen(arrow), ui->small, th->muted, NO_BG, 0};
        }
        if (r->edit) {
            vs[nv++] = (Span){r->value,           strlen(r->value), ui->bold,
                              th->highlight_text, th->highlight,    0};
        } else {
            vs[nv++] = (Span){
                r->value, strlen(r->value), ui->body, th->text, NO_BG, 0};
        }
        float vh = text_flow(NULL, vs, nv, 0, 0, val_w - 2 * pad, 1.15f,
                             ALIGN_LEFT, NULL);
        float nh = text_para(NULL, ui->small, r->name, 0, 0, name_w - 2 * pad,
                             th->muted, ALIGN_LEFT);
        float rh = fmaxf(vh, nh) + pad;
        if (sc) {
            if (i % 2 == 0) {
                scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
            }
            float ny = yy + pad / 2 +
                       ((float)ui->body->ascent - (float)ui->small->ascent);
            /* the name column at the start side, values after it */
            text_para(sc, ui->small, r->name,
                      render_mx(rc, x, w, x + pad, name_w - 2 * pad), ny,
                      name_w - 2 * pad, th->muted,
                      render_align(rc, ALIGN_LEFT));
            text_flow(sc, vs, nv,
                      render_mx(rc, x, w, x + name_w + pad, val_w - 2 * pad),
                      yy + pad / 2, val_w - 2 * pad, 1.15f,
                      render_align(rc, ALIGN_LEFT), NULL);
        }
        yy += rh;
    }
    if (sc && in->n_rows) {
        scene_rect(sc, (SDL_FRect){x, y, w, 1}, th->border);
        scene_rect(sc, (SDL_FRect){x, yy, w, 1}, th->border);
    }
    return yy - y;
}

/* Text in runs, the edited ones highlighted. */
static float render_runs(const RenderCtx *rc, Scene *sc, const ScreenRun *runs,
                         size_t n_runs, Font *font, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    Span spans[130];
    size_t n = 0;
    for (size_t i = 0; i < n_runs && n < sizeof spans / sizeof spans[0]; i++) {
        const ScreenRun *r = &runs[i];
        spans[n++] = r->edit ? (Span){r->text,       strlen(r->text),
                                      ui->bold,      th->highlight_text,
                                      th->highlight, 1}
                             : (Span){r->text,  strlen(r->text), font,
                                      th->text, NO_BG,           0};
    }
    if (n == 0) {
        return 0;
    }
    return text_flow(sc, spans, n, x, y, w, 1.4f, ALIGN_LEFT, NULL);
}

float render_input(const RenderCtx *rc, Scene *sc, const ScreenInput *in,
                   float x, float y, float w)
{
    Ui *ui = rc->ui;
    Font *big = fonts_get(ui->fonts, FACE_REGULAR, ui->u * 1.12f);
    const ItemInput *src = in->source;
    if (!src) {
        return 0;
    }
    switch (src->modality) {
    case MODALITY_IMAGE: {
        const Tex *t = assets_image(rc->assets, src->image_file);
        float iw;
        float h = render_image_fit(rc, NULL, t, 0, 0, w, rc->max_image_h, &iw);
        render_image_fit(rc, sc, t, x + floorf((w - iw) / 2), y, w,
                         rc->max_image_h, NULL);
        return h;
    }
    case MODALITY_TEXT:
        return render_runs(rc, sc, in->runs, in->n_runs, big, x, y, w);
    case MODALITY_TEXT_PAIR: {
        float yy = y;
        yy +=
            render_section_label(rc, sc, x, yy, w, in->title_a) + ui->u * 0.2f;
        yy += render_runs(rc, sc, in->runs, in->n_runs, big, x, yy, w);
        yy += ui->u * 0.8f;
        yy +=
            render_section_label(rc, sc, x, yy, w, in->title_b) + ui->u * 0.2f;
        yy += render_runs(rc, sc, in->runs_b, in->n_runs_b, big, x, yy, w);
        return yy - y;
    }
    case MODALITY_TABULAR:
        return render_table(rc, sc, in, x, y, w);
    }
    return 0;
}
