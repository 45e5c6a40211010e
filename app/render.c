/*
** Inputs and explanations as scene commands. Layout sizes derive from the
** body text size (ui->u) so everything follows the window and the
** participant's text size setting.
*/
#include "app/render.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

#define NO_BG ((SDL_Color){0, 0, 0, 0})

/* The participant-facing text of key k in the study's language. */
static const char *tr(const RenderCtx *rc, UiKey k)
{
    return ui_str(rc->strings, k);
}

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

const char *render_arrow(const RenderCtx *rc, const char *from, const char *to)
{
    /* The arrow itself is neutral: the line takes the direction of the
    ** first strong character of from, else of to, else the study's. */
    int d = from ? text_direction(from, strlen(from)) : -1;
    if (d < 0 && to) {
        d = text_direction(to, strlen(to));
    }
    if (d < 0) {
        d = render_rtl(rc);
    }
    return d == 1 ? "\xE2\x86\x90" : "\xE2\x86\x92";
}

const char *render_class_label(const RenderCtx *rc, int c)
{
    if (c >= 0 && (size_t)c < rc->n_classes && rc->classes[c].label) {
        return rc->classes[c].label;
    }
    return "?";
}

static SDL_Color with_alpha(SDL_Color c, uint8_t a)
{
    c.a = a;
    return c;
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
    char up[256];
    utf8_upper(text, up, sizeof up);
    if (sc) {
        float tw =
            render_rtl(rc) ? font_width(ui->small_bold, up, strlen(up)) : 0;
        scene_text(sc, ui->small_bold, render_mx(rc, x, w, x, tw), y, up,
                   ui->th.muted);
    }
    return (float)ui->small_bold->line_h;
}

float render_pill_height(const RenderCtx *rc)
{
    return roundf((float)rc->ui->bold->line_h + rc->ui->u * 0.6f);
}

float render_pill(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float pad = roundf(ui->u * 0.6f);
    float h = render_pill_height(rc);
    float lw = font_width(ui->small, label, strlen(label));
    float vw = font_width(ui->bold, value, strlen(value));
    float w = pad + lw + pad * 0.7f + vw + pad * 1.2f;
    if (sc) {
        SDL_Color fill = strong ? th->model : th->panel_alt;
        scene_frame(sc, (SDL_FRect){x, y, w, h}, h / 2, 1,
                    strong ? th->model : th->border, fill);
        float ly = y + (h - (float)ui->small->line_h) / 2;
        float vy = y + (h - (float)ui->bold->line_h) / 2;
        /* label then value, from the start side */
        scene_text(sc, ui->small, render_mx(rc, x, w, x + pad, lw), ly, label,
                   strong ? (SDL_Color){220, 230, 245, 255} : th->muted);
        scene_text(sc, ui->bold,
                   render_mx(rc, x, w, x + pad + lw + pad * 0.7f, vw), vy,
                   value, strong ? th->accent_text : th->text);
    }
    return w;
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

/* ------------------------------------------------------------------ input */

static float draw_image(const RenderCtx *rc, Scene *sc, const Tex *t, float x,
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

static const Edit *edit_for_feature(const Edit *edits, size_t n,
                                    const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (edits[i].feature && name && strcmp(edits[i].feature, name) == 0) {
            return &edits[i];
        }
    }
    return NULL;
}

static float render_table(const RenderCtx *rc, Scene *sc, const ItemInput *in,
                          const Edit *edits, size_t n_edits, float x, float y,
                          float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float name_w = 0;
    for (size_t i = 0; i < in->n_features; i++) {
        const char *nm = in->features[i].name ? in->features[i].name : "";
        name_w = fmaxf(name_w, font_width(ui->small, nm, strlen(nm)));
    }
    float pad = roundf(ui->u * 0.4f);
    name_w = fminf(name_w + 2 * pad, w * 0.42f);
    float val_w = w - name_w;
    float yy = y;
    for (size_t i = 0; i < in->n_features; i++) {
        const Feature *f = &in->features[i];
        const Edit *e =
            n_edits ? edit_for_feature(edits, n_edits, f->name) : NULL;
        const char *val = f->value ? f->value : "";
        Span vs[3];
        size_t nv = 0;
        char arrow[8];
        if (e && e->from) {
            /* the arrow points the way the line reads */
            snprintf(arrow, sizeof arrow, "  %s  ",
                     render_arrow(rc, e->from, e->to ? e->to : val));
            vs[nv++] = (Span){e->from,   strlen(e->from), ui->small,
                              th->faint, NO_BG,           2};
            vs[nv++] =
                (Span){arrow, strlen(arrow), ui->small, th->muted, NO_BG, 0};
        }
        if (e) {
            const char *to = e->to ? e->to : val;
            vs[nv++] = (Span){
                to, strlen(to), ui->bold, th->highlight_text, th->highlight, 0};
        } else {
            vs[nv++] = (Span){val, strlen(val), ui->body, th->text, NO_BG, 0};
        }
        float vh = text_flow(NULL, vs, nv, 0, 0, val_w - 2 * pad, 1.15f,
                             ALIGN_LEFT, NULL);
        float nh = text_para(NULL, ui->small, f->name ? f->name : "", 0, 0,
                             name_w - 2 * pad, th->muted, ALIGN_LEFT);
        float rh = fmaxf(vh, nh) + pad;
        if (sc) {
            if (i % 2 == 0) {
                scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
            }
            float ny = yy + pad / 2 +
                       ((float)ui->body->ascent - (float)ui->small->ascent);
            /* the name column at the start side, values after it */
            text_para(sc, ui->small, f->name ? f->name : "",
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
    if (sc && in->n_features) {
        scene_rect(sc, (SDL_FRect){x, y, w, 1}, th->border);
        scene_rect(sc, (SDL_FRect){x, yy, w, 1}, th->border);
    }
    return yy - y;
}

static float render_text_with_edits(const RenderCtx *rc, Scene *sc,
                                    const char *text, int segment,
                                    const Edit *edits, size_t n_edits,
                                    Font *font, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    size_t len = strlen(text);
    Span spans[130];
    size_t n = 0;
    size_t pos = 0;
    while (pos < len && n + 2 < sizeof spans / sizeof spans[0]) {
        /* The next edit starting at or after pos. */
        const Edit *next = NULL;
        for (size_t i = 0; i < n_edits; i++) {
            const Edit *e = &edits[i];
            if (e->feature || e->segment != segment || e->end <= e->start ||
                e->end > len || e->start < pos) {
                continue;
            }
            if (!next || e->start < next->start) {
                next = e;
            }
        }
        size_t stop = next ? next->start : len;
        if (stop > pos) {
            spans[n++] =
                (Span){text + pos, stop - pos, font, th->text, NO_BG, 0};
        }
        if (!next) {
            break;
        }
        spans[n++] =
            (Span){text + next->start, next->end - next->start, ui->bold,
                   th->highlight_text, th->highlight,           1};
        pos = next->end;
    }
    if (n == 0) {
        return 0;
    }
    return text_flow(sc, spans, n, x, y, w, 1.4f, ALIGN_LEFT, NULL);
}

float render_input(const RenderCtx *rc, Scene *sc, const ItemInput *in,
                   const Edit *edits, size_t n_edits, float x, float y, float w)
{
    Ui *ui = rc->ui;
    Font *big = fonts_get(ui->fonts, FACE_REGULAR, ui->u * 1.12f);
    switch (in->modality) {
    case MODALITY_IMAGE: {
        const Tex *t = assets_image(rc->assets, in->image_file);
        float iw;
        float h = draw_image(rc, NULL, t, 0, 0, w, rc->max_image_h, &iw);
        draw_image(rc, sc, t, x + floorf((w - iw) / 2), y, w, rc->max_image_h,
                   NULL);
        return h;
    }
    case MODALITY_TEXT:
        return render_text_with_edits(rc, sc, in->text ? in->text : "", 0,
                                      edits, n_edits, big, x, y, w);
    case MODALITY_TEXT_PAIR: {
        float yy = y;
        const char *ta = in->title_a ? in->title_a : tr(rc, UI_EXPL_TEXT_A);
        const char *tb = in->title_b ? in->title_b : tr(rc, UI_EXPL_TEXT_B);
        yy += render_section_label(rc, sc, x, yy, w, ta) + ui->u * 0.2f;
        yy += render_text_with_edits(rc, sc, in->text ? in->text : "", 0, edits,
                                     n_edits, big, x, yy, w);
        yy += ui->u * 0.8f;
        yy += render_section_label(rc, sc, x, yy, w, tb) + ui->u * 0.2f;
        yy += render_text_with_edits(rc, sc, in->text_b ? in->text_b : "", 1,
                                     edits, n_edits, big, x, yy, w);
        return yy - y;
    }
    case MODALITY_TABULAR:
        return render_table(rc, sc, in, edits, n_edits, x, y, w);
    }
    return 0;
}

/* ---------------------------------------------------------- explanations */

/* A colour bar bw wide with a caption at each end (lo left, hi right),
** centred in the column [x, x + w). Returns the height. */
static float caption_bar(const RenderCtx *rc, Scene *sc, const Tex *bar,
                         const char *lo, const char *hi, float x, float y,
                         float w, float bw)
{
    Ui *ui = rc->ui;
    Font *f = ui->caption;
    float bh = roundf(ui->u * 0.55f);
    float lw = font_width(f, lo, strlen(lo));
    float hw = font_width(f, hi, strlen(hi));
    float total = lw + hw + bw + ui->u;
    float bx = x + fmaxf(0, floorf((w - total) / 2));
    float ty = y + (bh - (float)f->line_h) / 2;
    if (sc) {
        scene_text(sc, f, bx, ty, lo, ui->th.muted);
        if (bar->tex) {
            scene_texture(sc, bar->tex, NULL,
                          (SDL_FRect){bx + lw + ui->u * 0.5f, y, bw, bh}, 255);
        }
        scene_text(sc, f, bx + lw + bw + ui->u, ty, hi, ui->th.muted);
    }
    return fmaxf(bh, (float)f->line_h);
}

static float render_heatmap(const RenderCtx *rc, Scene *sc,
                            const Explanation *e, const ItemInput *image,
                            float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Tex *img = image && image->modality == MODALITY_IMAGE
                         ? assets_image(rc->assets, image->image_file)
                         : NULL;
    const Tex *map =
        assets_heatmap(rc->assets, e->map_file, e->file_is_npy, e->colormap);
    float yy = y;
    float gap = roundf(ui->u * 0.8f);
    double op = e->opacity > 0 && e->opacity <= 1 ? e->opacity : 0.5;
    float pic_w = 0, pic_h = 0;
    if (e->side_by_side && img && img->tex) {
        float cw = (w - gap) / 2;
        float iw1;
        float h1 = draw_image(rc, NULL, img, 0, 0, cw, rc->max_image_h, &iw1);
        /* The map takes the image's size, so the pair is twice its width. */
        float total = iw1 + gap + iw1;
        float x0 = x + floorf((w - total) / 2);
        /* image first, then its map, in reading order (pixels unflipped) */
        draw_image(rc, sc, img, render_mx(rc, x, w, x0, iw1), yy, cw,
                   rc->max_image_h, NULL);
        /* The map is drawn at the image's size (smaller maps upsampled). */
        if (sc && map->tex) {
            scene_texture(sc, map->tex, NULL,
                          (SDL_FRect){render_mx(rc, x, w, x0 + iw1 + gap, iw1),
                                      yy, iw1, h1},
                          255);
        }
        pic_w = total;
        pic_h = h1;
    } else {
        const Tex *base = img && img->tex ? img : map;
        float iw;
        float h = draw_image(rc, NULL, base, 0, 0, w, rc->max_image_h, &iw);
        float x0 = x + floorf((w - iw) / 2);
        draw_image(rc, sc, base, x0, yy, w, rc->max_image_h, NULL);
        if (sc && base != map && map->tex) {
            scene_texture(sc, map->tex, NULL, (SDL_FRect){x0, yy, iw, h},
                          (uint8_t)lround(op * 255));
        }
        pic_w = iw;
        pic_h = h;
    }
    yy += pic_h + ui->u * 0.5f;
    if (rc->compact) {
        return yy - y - ui->u * 0.5f;
    }
    /* Colour bar legend, as wide as the picture (within reason). */
    const char *lo = tr(rc, UI_EXPL_LESS_IMPORTANT);
    const char *hi = tr(rc, UI_EXPL_MORE_IMPORTANT);
    float low = font_width(ui->caption, lo, strlen(lo));
    float hiw = font_width(ui->caption, hi, strlen(hi));
    float bw = fminf(fmaxf(pic_w * 0.6f, ui->u * 10), w * 0.8f);
    /* The legend stays inside the column. */
    bw = fmaxf(fminf(bw, w - low - hiw - ui->u), ui->u * 3);
    yy += caption_bar(rc, sc, assets_colorbar(rc->assets, e->colormap), lo, hi,
                      x, yy, w, bw);
    return yy - y;
}

static double max_abs_tokens(const Explanation *e)
{
    double m = 0;
    for (size_t i = 0; i < e->n_tokens; i++) {
        m = fmax(m, fabs(e->tokens[i].weight));
    }
    return m > 0 ? m : 1;
}

static SDL_Color weight_bg(double t)
{
    /* Weak weights stay near white so the text remains readable. */
    return colormap_diverging(t * 0.8);
}

static float render_weight_legend(const RenderCtx *rc, Scene *sc, float x,
                                  float y, float w, double maxabs)
{
    char lo[160], hi[160], t0[128], t1[128];
    if (rc->n_classes == 2) {
        snprintf(t1, sizeof t1,
                 ui_fmt(rc->strings, UI_EXPL_TOWARD, "toward %s"),
                 render_class_label(rc, 1));
        snprintf(t0, sizeof t0,
                 ui_fmt(rc->strings, UI_EXPL_TOWARD, "toward %s"),
                 render_class_label(rc, 0));
        snprintf(lo, sizeof lo, "\xE2\x88\x92%.2f  %s", maxabs, t1);
        snprintf(hi, sizeof hi, "%s  +%.2f", t0, maxabs);
    } else {
        snprintf(lo, sizeof lo, "\xE2\x88\x92%.2f", maxabs);
        snprintf(hi, sizeof hi, "+%.2f", maxabs);
    }
    return caption_bar(rc, sc, assets_colorbar(rc->assets, "diverging"), lo, hi,
                       x, y, w, fminf(rc->ui->u * 10, w * 0.4f));
}

/* Tokens of one segment as highlighted flowing text. rects (per token of
** the explanation, may be NULL) receive each token's box. */
static float render_token_segment(const RenderCtx *rc, Scene *sc,
                                  const Explanation *e, int segment,
                                  double maxabs, float x, float y, float w,
                                  SDL_FRect *rects)
{
    Ui *ui = rc->ui;
    size_t n = 0;
    for (size_t i = 0; i < e->n_tokens; i++) {
        n += e->tokens[i].segment == segment;
    }
    if (n == 0) {
        return 0;
    }
    Span *spans = sim_calloc(2 * n, sizeof(Span));
    size_t *index = sim_calloc(2 * n, sizeof(size_t));
    SDL_FRect *out = sim_calloc(2 * n, sizeof(SDL_FRect));
    if (!spans || !index || !out) {
        sim_free(spans);
        sim_free(index);
        sim_free(out);
        scene_set_oom(sc);
        return 0;
    }
    Font *f = fonts_get(ui->fonts, FACE_REGULAR, ui->u * 1.08f);
    /* A wider space keeps neighbouring highlights apart. */
    Font *gap = fonts_get(ui->fonts, FACE_REGULAR, ui->u * 1.6f);
    size_t k = 0;
    for (size_t i = 0; i < e->n_tokens; i++) {
        const ExplToken *t = &e->tokens[i];
        if (t->segment != segment) {
            continue;
        }
        const char *tx = t->text ? t->text : "";
        double v = t->weight / maxabs;
        SDL_Color bg = fabs(v) < 0.02 ? NO_BG : weight_bg(v);
        SDL_Color fg = bg.a && color_lightness(bg) < 58
                           ? (SDL_Color){255, 255, 255, 255}
                           : ui->th.text;
        index[k] = i;
        spans[k++] = (Span){tx, strlen(tx), f, fg, bg, 0};
        if (k < 2 * n) {
            index[k] = (size_t)-1;
            spans[k++] = (Span){" ", 1, gap, ui->th.text, NO_BG, 0};
        }
    }
    float h = text_flow(sc, spans, k, x, y, w, 1.55f, ALIGN_LEFT, out);
    if (rects) {
        for (size_t j = 0; j < k; j++) {
            if (index[j] != (size_t)-1) {
                rects[index[j]] = out[j];
            }
        }
    }
    sim_free(spans);
    sim_free(index);
    sim_free(out);
    return h;
}

static float render_tokens(const RenderCtx *rc, Scene *sc, const Explanation *e,
                           float x, float y, float w)
{
    Ui *ui = rc->ui;
    double m = max_abs_tokens(e);
    int pair = 0;
    for (size_t i = 0; i < e->n_tokens; i++) {
        pair |= e->tokens[i].segment == 1;
    }
    float yy = y;
    for (int s = 0; s <= pair; s++) {
        if (pair) {
            yy += render_section_label(rc, sc, x, yy, w,
                                       s == 0 ? tr(rc, UI_EXPL_TEXT_A)
                                              : tr(rc, UI_EXPL_TEXT_B));
            yy += ui->u * 0.2f;
        }
        yy += render_token_segment(rc, sc, e, s, m, x, yy, w, NULL);
        yy += ui->u * 0.5f;
    }
    yy += render_weight_legend(rc, sc, x, yy, w, m);
    return yy - y;
}

static SDL_FRect union_rects(const SDL_FRect *r, int a, int b, int n)
{
    SDL_FRect u = {0, 0, 0, 0};
    int have = 0;
    for (int i = a; i < b && i < n; i++) {
        if (i < 0 || (r[i].w == 0 && r[i].h == 0)) {
            continue;
        }
        if (!have) {
            u = r[i];
            have = 1;
        } else if (fabsf(r[i].y - u.y) < 1) {
            float x1 = fmaxf(u.x + u.w, r[i].x + r[i].w);
            u.x = fminf(u.x, r[i].x);
            u.w = x1 - u.x;
        }
    }
    return u;
}

static void token_range_text(const Explanation *e, int a, int b, char *out,
                             size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = a; i < b && i < (int)e->n_tokens; i++) {
        if (i < 0) {
            continue;
        }
        int k = snprintf(out + len, n - len, "%s%s", len ? " " : "",
                         e->tokens[i].text ? e->tokens[i].text : "");
        if (k < 0 || (size_t)k >= n - len) {
            break;
        }
        len += (size_t)k;
    }
}

static int cmp_pair_abs(const void *a, const void *b)
{
    double x = fabs((*(const ExplPair *const *)a)->weight);
    double y = fabs((*(const ExplPair *const *)b)->weight);
    return (x < y) - (x > y);
}

static float render_pairs(const RenderCtx *rc, Scene *sc, const Explanation *e,
                          const ItemInput *image, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    int nt = (int)e->n_tokens;
    SDL_FRect *rects = sim_calloc(e->n_tokens + 1, sizeof(SDL_FRect));
    const ExplPair **order = sim_calloc(e->n_pairs + 1, sizeof(ExplPair *));
    if (!rects || !order) {
        sim_free(rects);
        sim_free(order);
        scene_set_oom(sc);
        return 0;
    }
    double pm = 0;
    for (size_t i = 0; i < e->n_pairs; i++) {
        pm = fmax(pm, fabs(e->pairs[i].weight));
        order[i] = &e->pairs[i];
    }
    if (pm <= 0) {
        pm = 1;
    }
    qsort(order, e->n_pairs, sizeof *order, cmp_pair_abs);
    size_t shown = e->n_pairs < 8 ? e->n_pairs : 8;
    /* Token weights (if any) tint the tokens; otherwise tokens in a shown
    ** pair get a neutral tint. */
    double m = max_abs_tokens(e);
    float yy = y;
    float pad = roundf(ui->u * 0.4f);
    /* Segment names in a left column keep the space between the rows free
    ** for the interaction lines. */
    const char *na =
        image && image->title_a ? image->title_a : tr(rc, UI_EXPL_FIRST);
    const char *nb =
        image && image->title_b ? image->title_b : tr(rc, UI_EXPL_SECOND);
    float col = fmaxf(font_width(ui->small_bold, na, strlen(na)),
                      font_width(ui->small_bold, nb, strlen(nb))) *
                    1.15f +
                ui->u;
    if (col > w * 0.3f) {
        col = w * 0.3f;
    }
    float seg_w = w - col;
    float tx = render_mx(rc, x, w, x + col, seg_w);
    float nx = render_mx(rc, x, w, x, col); /* the names' column */
    float ha = render_token_segment(rc, sc, e, 0, m, tx, yy, seg_w, rects);
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, na);
    }
    yy += ha + ui->u * 3.0f;
    float hb = render_token_segment(rc, sc, e, 1, m, tx, yy, seg_w, rects);
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, nb);
        for (size_t k = shown; k-- > 0;) {
            const ExplPair *p = order[k];
            SDL_FRect ra = union_rects(rects, p->a_start, p->a_end, nt);
            SDL_FRect rb = union_rects(rects, p->b_start, p->b_end, nt);
            if (ra.w == 0 || rb.w == 0) {
                continue;
            }
            double v = p->weight / pm;
            SDL_Color c =
                colormap_diverging(v > 0 ? 0.35 + 0.65 * v : -0.35 + 0.65 * v);
            float lw = fmaxf(1.5f, (float)(fabs(v) * ui->u * 0.3));
            scene_line(sc, ra.x + ra.w / 2, ra.y + ra.h, rb.x + rb.w / 2,
                       rb.y - 2, lw, with_alpha(c, 220));
            scene_circle(sc, ra.x + ra.w / 2, ra.y + ra.h, lw * 1.3f, c);
            scene_circle(sc, rb.x + rb.w / 2, rb.y - 2, lw * 1.3f, c);
        }
    }
    yy += hb;
    yy += ui->u * 0.8f;
    /* The strongest interactions as a list. */
    yy += render_section_label(rc, sc, x, yy, w, tr(rc, UI_EXPL_INTERACTIONS)) +
          pad;
    float val_w = font_width(ui->small_bold, "+0.000", 6) + pad;
    float bar_w = fminf(ui->u * 5, w * 0.2f);
    for (size_t k = 0; k < shown; k++) {
        const ExplPair *p = order[k];
        char a[200], b[200], line[420], val[32];
        token_range_text(e, p->a_start, p->a_end, a, sizeof a);
        token_range_text(e, p->b_start, p->b_end, b, sizeof b);
        snprintf(line, sizeof line,
                 "\xE2\x80\x9C%s\xE2\x80\x9D  \xE2\x86\x94  "
                 "\xE2\x80\x9C%s\xE2\x80\x9D",
                 a, b);
        snprintf(val, sizeof val, "%+.2f", p->weight);
        float tw = w - val_w - bar_w - pad * 2;
        float lh =
            text_para(NULL, ui->small, line, 0, 0, tw, th->text, ALIGN_LEFT);
        if (sc) {
            /* the pair, a bar of its strength (filled from the start
            ** side), its weight */
            text_para(sc, ui->small, line, render_mx(rc, x, w, x, tw), yy, tw,
                      th->text, render_align(rc, ALIGN_LEFT));
            double v = p->weight / pm;
            float bx = x + tw + pad;
            float bh = (float)ui->small->line_h * 0.55f;
            float by = yy + ((float)ui->small->line_h - bh) / 2;
            float fill = (float)(fabs(v) * bar_w);
            scene_rect(
                sc, (SDL_FRect){render_mx(rc, x, w, bx, bar_w), by, bar_w, bh},
                th->panel_alt);
            scene_rect(sc,
                       (SDL_FRect){render_mx(rc, x, w, bx, fill), by, fill, bh},
                       colormap_diverging(v > 0 ? 0.7 : -0.7));
            float vw = font_width(ui->small_bold, val, strlen(val));
            scene_text(sc, ui->small_bold,
                       render_mx(rc, x, w, bx + bar_w + pad, vw), yy, val,
                       th->text);
        }
        yy += lh + pad * 0.5f;
    }
    sim_free(rects);
    sim_free(order);
    return yy - y;
}

/* A horizontal bar chart of signed weights; rows are "name = value". */
static float render_bars(const RenderCtx *rc, Scene *sc, const ExplFeature *fs,
                         size_t n, float x, float y, float w, int signed_axis)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    double m = 0;
    int any_neg = 0, any_pos = 0;
    for (size_t i = 0; i < n; i++) {
        m = fmax(m, fabs(fs[i].weight));
        any_neg |= fs[i].weight < 0;
        any_pos |= fs[i].weight > 0;
    }
    if (m <= 0) {
        m = 1;
    }
    float pad = roundf(ui->u * 0.45f);
    char label[400];
    float label_w = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%s%s%s", fs[i].name ? fs[i].name : "",
                 fs[i].value ? " = " : "", fs[i].value ? fs[i].value : "");
        label_w = fmaxf(label_w, font_width(ui->small, label, strlen(label)));
    }
    label_w = fminf(label_w + pad, w * 0.45f);
    float val_w = font_width(ui->small_bold,
                             "\xE2\x88\x92"
                             "0.00",
                             7) +
                  pad;
    /* Labels at the start side (the right when mirrored); the chart keeps
    ** its axis (negative left, positive right) either way. */
    int rtl = render_rtl(rc);
    float chart_x = rtl ? x : x + label_w + pad;
    float label_x = rtl ? x + w - label_w : x;
    float chart_w = w - label_w - pad - 2 * val_w;
    if (chart_w < ui->u * 3) {
        chart_w = ui->u * 3;
    }
    int two_sided = signed_axis && any_neg && any_pos;
    float zero_x = two_sided                ? chart_x + val_w + chart_w / 2
                   : any_neg && signed_axis ? chart_x + val_w + chart_w
                                            : chart_x + val_w;
    float scale = (float)((two_sided ? chart_w / 2 : chart_w) / m);
    float yy = y;
    float row_top = yy;
    for (size_t i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%s%s%s", fs[i].name ? fs[i].name : "",
                 fs[i].value ? " = " : "", fs[i].value ? fs[i].value : "");
        float lh = text_para(NULL, ui->small, label, 0, 0, label_w, th->text,
                             ALIGN_LEFT);
        float rh = fmaxf(lh, (float)ui->small->line_h) + pad;
        if (sc) {
            /* beside the chart; mirrored, at the reading start */
            text_para(sc, ui->small, label, label_x, yy + pad / 2, label_w,
                      th->text, ALIGN_RIGHT);
            double v = fs[i].weight;
            float len = (float)(fabs(v) * scale);
            float bh = fminf((float)ui->small->line_h * 0.75f, rh - pad / 2);
            float by = yy + (rh - bh) / 2;
            SDL_Color c = v >= 0 || !signed_axis ? colormap_diverging(0.8)
                                                 : colormap_diverging(-0.85);
            char val[32];
            if (v < 0) {
                snprintf(val, sizeof val, "\xE2\x88\x92%.2f", -v);
            } else {
                snprintf(val, sizeof val, "%s%.2f", signed_axis ? "+" : "", v);
            }
            float vw = font_width(ui->small_bold, val, strlen(val));
            float ty = yy + (rh - (float)ui->small_bold->line_h) / 2;
            if (v >= 0 || !signed_axis) {
                scene_rrect(sc, (SDL_FRect){zero_x, by, fmaxf(len, 2), bh}, 2,
                            c);
                scene_text(sc, ui->small_bold, zero_x + len + pad * 0.5f, ty,
                           val, th->text);
            } else {
                scene_rrect(
                    sc, (SDL_FRect){zero_x - len, by, fmaxf(len, 2), bh}, 2, c);
                scene_text(sc, ui->small_bold, zero_x - len - pad * 0.5f - vw,
                           ty, val, th->text);
            }
        }
        yy += rh;
    }
    if (sc && n) {
        scene_rect(sc, (SDL_FRect){zero_x - 0.5f, row_top, 1.5f, yy - row_top},
                   th->faint);
    }
    return yy - y;
}

static float render_features(const RenderCtx *rc, Scene *sc,
                             const Explanation *e, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    yy += render_bars(rc, sc, e->features, e->n_features, x, yy, w, 1);
    yy += ui->u * 0.6f;
    /* Intercept + sum = output, as LIME prints them. */
    struct {
        const char *name;
        double v;
    } rows[3] = {{tr(rc, UI_EXPL_BASELINE), e->intercept},
                 {tr(rc, UI_EXPL_SUM), e->sum},
                 {tr(rc, UI_EXPL_TOTAL), e->output}};
    double sum = 0;
    int have_sum = isfinite(e->sum);
    if (!have_sum) {
        for (size_t i = 0; i < e->n_features; i++) {
            sum += e->features[i].weight;
        }
        rows[1].v = sum;
    }
    float pad = roundf(ui->u * 0.4f);
    float col = fminf(w * 0.6f, ui->u * 16);
    for (int i = 0; i < 3; i++) {
        if (!isfinite(rows[i].v)) {
            continue;
        }
        char val[32];
        snprintf(val, sizeof val, "%+.2f", rows[i].v);
        Font *f = i == 2 ? ui->small_bold : ui->small;
        if (sc) {
            float rw = col + ui->u * 4;
            if (i == 2) {
                scene_rect(sc,
                           (SDL_FRect){render_mx(rc, x, w, x, rw), yy - pad / 2,
                                       rw, 1},
                           th->border);
            }
            float nw = font_width(f, rows[i].name, strlen(rows[i].name));
            scene_text(sc, f, render_mx(rc, x, w, x, nw), yy, rows[i].name,
                       i == 2 ? th->text : th->muted);
            float vw = font_width(ui->small_bold, val, strlen(val));
            scene_text(sc, ui->small_bold,
                       render_mx(rc, x, w, x + col + ui->u * 4 - vw, vw), yy,
                       val, th->text);
        }
        yy += (float)f->line_h + pad;
    }
    return yy - y;
}

static float render_rules(const RenderCtx *rc, Scene *sc, const Explanation *e,
                          float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    float pad = roundf(ui->u * 0.6f);
    for (size_t r = 0; r < e->n_rules; r++) {
        const ExplRule *rule = &e->rules[r];
        float top = yy;
        float ix = x + pad, iw = w - 2 * pad;
        float cy = yy + pad;
        /* Measure first, then draw card and contents. */
        for (int pass = 0; pass < 2; pass++) {
            Scene *s2 = pass ? sc : NULL;
            if (pass && sc) {
                scene_frame(sc, (SDL_FRect){x, top, w, yy - top}, ui->u * 0.4f,
                            1, th->border, th->panel_alt);
            }
            cy = top + pad;
            for (size_t c = 0; c < rule->n_conditions; c++) {
                const char *kw_if = tr(rc, UI_EXPL_IF);
                const char *kw_and = tr(rc, UI_EXPL_AND);
                const char *kw = c == 0 ? kw_if : kw_and;
                float kw_w =
                    fmaxf(font_width(ui->small_bold, kw_if, strlen(kw_if)),
                          font_width(ui->small_bold, kw_and, strlen(kw_and))) +
                    pad;
                if (s2) {
                    float kww = font_width(ui->small_bold, kw, strlen(kw));
                    scene_text(s2, ui->small_bold,
                               render_mx(rc, ix, iw, ix, kww), cy + 2, kw,
                               th->accent);
                }
                cy += text_para(s2, ui->body, rule->conditions[c],
                                render_mx(rc, ix, iw, ix + kw_w, iw - kw_w), cy,
                                iw - kw_w, th->text,
                                render_align(rc, ALIGN_LEFT));
                cy += pad * 0.3f;
            }
            char then[400];
            snprintf(then, sizeof then,
                     ui_fmt(rc->strings, UI_EXPL_THEN,
                            "THEN the model predicts **%s**"),
                     e->predicted >= 0 ? render_class_label(rc, e->predicted)
                                       : tr(rc, UI_EXPL_THIS_CLASS));
            cy += pad * 0.2f;
            cy += text_marked(s2, ui->body, ui->bold, then, ix, cy, iw,
                              th->text, render_align(rc, ALIGN_LEFT));
            if (isfinite(rule->precision) || isfinite(rule->coverage)) {
                char stats[320] = "";
                size_t L = 0;
                if (isfinite(rule->precision)) {
                    L += (size_t)snprintf(stats, sizeof stats,
                                          ui_fmt(rc->strings, UI_EXPL_PRECISION,
                                                 "Precision %.0f%%"),
                                          rule->precision * 100);
                }
                if (isfinite(rule->coverage)) {
                    char cov[160];
                    snprintf(cov, sizeof cov,
                             ui_fmt(rc->strings, UI_EXPL_COVERAGE,
                                    "Coverage %.0f%%"),
                             rule->coverage * 100);
                    snprintf(stats + L, sizeof stats - L, "%s%s",
                             L ? "   \xC2\xB7   " : "", cov);
                }
                cy += pad * 0.2f;
                cy += text_para(s2, ui->small, stats, ix, cy, iw, th->muted,
                                render_align(rc, ALIGN_LEFT));
            }
            cy += pad;
            if (!pass) {
                yy = cy;
            }
        }
        yy = cy + pad * 0.6f;
    }
    return yy - y;
}

static float render_prototype(const RenderCtx *rc, Scene *sc,
                              const Explanation *e, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    char head[600];
    const char *lab = e->prototype_label ? e->prototype_label : "?";
    if (isfinite(e->prototype_evidence)) {
        snprintf(head, sizeof head,
                 ui_fmt(rc->strings, UI_EXPL_PROTOTYPE_EVIDENCE,
                        "Most similar prototype: label **%s**, evidence %+.2f"),
                 lab, e->prototype_evidence);
    } else {
        snprintf(head, sizeof head,
                 ui_fmt(rc->strings, UI_EXPL_PROTOTYPE,
                        "Most similar prototype: label **%s**"),
                 lab);
    }
    yy += text_marked(sc, ui->body, ui->bold, head, x, yy, w, th->text,
                      render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    if (e->n_rows) {
        float pad = roundf(ui->u * 0.4f);
        float c1 = w * 0.3f, c2 = w * 0.35f, c3 = w - c1 - c2;
        /* columns feature, prototype, input from the start side */
        float cx1 = render_mx(rc, x, w, x, c1) + pad;
        float cx2 = render_mx(rc, x, w, x + c1, c2) + pad;
        float cx3 = render_mx(rc, x, w, x + c1 + c2, c3) + pad;
        int al = render_align(rc, ALIGN_LEFT);
        if (sc) {
            const char *cols[3] = {tr(rc, UI_EXPL_COL_FEATURE),
                                   tr(rc, UI_EXPL_COL_PROTOTYPE),
                                   tr(rc, UI_EXPL_COL_INPUT)};
            float at[3] = {x + pad, x + c1 + pad, x + c1 + c2 + pad};
            for (int k = 0; k < 3; k++) {
                float hw = font_width(ui->small_bold, cols[k], strlen(cols[k]));
                scene_text(sc, ui->small_bold, render_mx(rc, x, w, at[k], hw),
                           yy, cols[k], th->muted);
            }
        }
        yy += (float)ui->small_bold->line_h + pad * 0.5f;
        for (size_t i = 0; i < e->n_rows; i++) {
            const ExplFeature *r = &e->rows[i];
            const char *pv = r->other ? r->other : "";
            const char *iv = r->value ? r->value : "";
            int same = strcmp(pv, iv) == 0;
            float h1 = text_para(NULL, ui->small, r->name ? r->name : "", 0, 0,
                                 c1 - 2 * pad, th->text, ALIGN_LEFT);
            float h2 = text_para(NULL, ui->small, pv, 0, 0, c2 - 2 * pad,
                                 th->text, ALIGN_LEFT);
            float h3 = text_para(NULL, ui->small, iv, 0, 0, c3 - 2 * pad,
                                 th->text, ALIGN_LEFT);
            float rh = fmaxf(h1, fmaxf(h2, h3)) + pad;
            if (sc) {
                if (!same) {
                    scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->warn_bg);
                } else if (i % 2 == 0) {
                    scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
                }
                text_para(sc, ui->small, r->name ? r->name : "", cx1,
                          yy + pad / 2, c1 - 2 * pad, th->muted, al);
                text_para(sc, same ? ui->small : ui->small_bold, pv, cx2,
                          yy + pad / 2, c2 - 2 * pad,
                          same ? th->muted : th->text, al);
                text_para(sc, same ? ui->small : ui->small_bold, iv, cx3,
                          yy + pad / 2, c3 - 2 * pad,
                          same ? th->muted : th->text, al);
            }
            yy += rh;
        }
        if (sc) {
            text_para(sc, ui->caption, tr(rc, UI_EXPL_DIFFER), x,
                      yy + pad * 0.5f, w, th->faint, al);
        }
        yy += (float)ui->caption->line_h + pad;
    }
    if (e->n_features) {
        yy += ui->u * 0.4f;
        yy +=
            render_section_label(rc, sc, x, yy, w, tr(rc, UI_EXPL_IMPORTANT)) +
            ui->u * 0.3f;
        size_t n = e->n_features < 6 ? e->n_features : 6;
        yy += render_bars(rc, sc, e->features, n, x, yy, w, 1);
    }
    return yy - y;
}

/* The step label format fmt with its number shown as "00", to measure the
** label column ("Step 00"). */
static void step_label_sample(const char *fmt, char *out, size_t n)
{
    const char *p = strstr(fmt, "%zu");
    if (!p) {
        snprintf(out, n, "%s", fmt);
        return;
    }
    snprintf(out, n, "%.*s00%s", (int)(p - fmt), fmt, p + 3);
}

static float render_path(const RenderCtx *rc, Scene *sc, const Explanation *e,
                         float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    char head[800];
    if (e->predicted >= 0) {
        snprintf(head, sizeof head,
                 ui_fmt(rc->strings, UI_EXPL_PATH_TOWARD,
                        "Edits that move the model toward **%s**, with the "
                        "evidence margin after each step (the model changes "
                        "its answer where the margin crosses 0)."),
                 render_class_label(rc, e->predicted));
    } else {
        snprintf(head, sizeof head, "%s", tr(rc, UI_EXPL_PATH));
    }
    yy += text_marked(sc, ui->small, ui->small_bold, head, x, yy, w, th->muted,
                      render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    int has_start = isfinite(e->start_margin); /* a "Start" row first */
    double m = fabs(has_start ? e->start_margin : 0);
    for (size_t i = 0; i < e->n_steps; i++) {
        m = fmax(m, fabs(e->steps[i].margin));
    }
    if (m <= 0) {
        m = 1;
    }
    float pad = roundf(ui->u * 0.4f);
    char widest[64];
    step_label_sample(tr(rc, UI_EXPL_STEP), widest, sizeof widest);
    const char *start_lab = tr(rc, UI_EXPL_START);
    float label_w =
        fmaxf(font_width(ui->small_bold, widest, strlen(widest)),
              font_width(ui->small_bold, start_lab, strlen(start_lab))) +
        pad;
    float bar_w = fminf(w * 0.3f, ui->u * 9);
    float val_w = font_width(ui->small_bold, "+00.00", 6) + pad;
    float edits_x = x + label_w + bar_w + val_w + pad * 2;
    float edits_w = w - (edits_x - x);
    int narrow = edits_w < ui->u * 9;
    if (narrow) {
        edits_w = w - label_w;
        edits_x = x + label_w;
    }
    size_t n_rows = e->n_steps + (has_start ? 1 : 0);
    for (size_t row = 0; row < n_rows; row++) {
        int is_start = has_start && row == 0;
        /* Steps count from 1 whether or not a Start row comes first. */
        size_t step = row + (has_start ? 0 : 1);
        const ExplStep *st = is_start ? NULL : &e->steps[step - 1];
        double margin = is_start ? e->start_margin : st->margin;
        char lab[96], val[32];
        if (is_start) {
            snprintf(lab, sizeof lab, "%s", start_lab);
        } else {
            snprintf(lab, sizeof lab,
                     ui_fmt(rc->strings, UI_EXPL_STEP, "Step %zu"), step);
        }
        snprintf(val, sizeof val, "%+.2f", margin);
        /* Edits text. */
        char edits[1200] = "";
        size_t L = 0;
        for (size_t k = 0; st && k < st->n_edits && L + 1 < sizeof edits; k++) {
            const Edit *ed = &st->edits[k];
            char from[600];
            snprintf(from, sizeof from, "%s%s%s",
                     ed->feature ? ed->feature : "", ed->feature ? ": " : "",
                     ed->from ? ed->from : "");
            int c = snprintf(
                edits + L, sizeof edits - L, "%s%s %s **%s**", L ? "\n" : "",
                from, render_arrow(rc, from, ed->to), ed->to ? ed->to : "");
            if (c < 0 || (size_t)c >= sizeof edits - L) {
                break;
            }
            L += (size_t)c;
        }
        if (is_start) {
            snprintf(edits, sizeof edits, "%s", tr(rc, UI_EXPL_AS_IS));
        }
        float eh = text_marked(NULL, ui->small, ui->small_bold, edits, 0, 0,
                               edits_w, th->text, ALIGN_LEFT);
        float bar_row = (float)ui->small_bold->line_h;
        float rh = narrow ? bar_row + pad * 0.3f + eh : fmaxf(bar_row, eh);
        rh += pad;
        if (sc) {
            if (row % 2 == 1) {
                scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
            }
            /* label, margin bar, value, edits from the start side; the
            ** bar keeps its axis (positive to the right) */
            float lw = font_width(ui->small_bold, lab, strlen(lab));
            scene_text(sc, ui->small_bold,
                       render_mx(rc, x, w, x + pad * 0.5f, lw), yy + pad / 2,
                       lab, th->text);
            float bx = render_mx(rc, x, w, x + label_w, bar_w);
            float by = yy + pad / 2 + bar_row * 0.2f;
            float bh = bar_row * 0.6f;
            float mid = bx + bar_w / 2;
            scene_rect(sc, (SDL_FRect){bx, by, bar_w, bh}, th->disabled);
            float len = (float)(fabs(margin) / m * bar_w / 2);
            SDL_Color c = colormap_diverging(margin >= 0 ? 0.8 : -0.85);
            scene_rect(sc,
                       (SDL_FRect){margin >= 0 ? mid : mid - len, by,
                                   fmaxf(len, 1.5f), bh},
                       c);
            scene_rect(sc, (SDL_FRect){mid - 0.75f, by - 2, 1.5f, bh + 4},
                       th->text);
            float vw = font_width(ui->small_bold, val, strlen(val));
            scene_text(sc, ui->small_bold,
                       render_mx(rc, x, w, x + label_w + bar_w + pad, vw),
                       yy + pad / 2, val, th->text);
            float ey =
                narrow ? yy + pad / 2 + bar_row + pad * 0.3f : yy + pad / 2;
            text_marked(sc, ui->small, ui->small_bold, edits,
                        render_mx(rc, x, w, edits_x, edits_w), ey, edits_w,
                        is_start ? th->muted : th->text,
                        render_align(rc, ALIGN_LEFT));
        }
        yy += rh;
    }
    return yy - y;
}

static float render_pretext(const RenderCtx *rc, Scene *sc,
                            const Explanation *e, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float pad = roundf(ui->u * 0.7f);
    const char *t = e->text ? e->text : "";
    /* Trailing spaces and blank lines at the ends are noise. */
    size_t len = strlen(t);
    while (len &&
           (t[len - 1] == ' ' || t[len - 1] == '\n' || t[len - 1] == '\r')) {
        len--;
    }
    while (len && (*t == '\n' || *t == '\r')) {
        t++, len--;
    }
    /* Published explanation sheets mark edited words with **...**: show
    ** them highlighted, without the markers (there is no bold mono face). */
    Span plain = {NULL, 0, ui->mono, th->text, NO_BG, 0};
    Span marked = {NULL, 0, ui->mono, th->highlight_text, th->highlight, 0};
    Span *spans = NULL;
    size_t n = 0;
    int split = text_split_marked(t, len, &plain, &marked, &spans, &n);
    if (split != 0) {
        scene_set_oom(sc);
    }
    if (split != 0 || n == 0) {
        sim_free(spans);
        return 0;
    }
    float h =
        text_flow(NULL, spans, n, 0, 0, w - 2 * pad, 1.2f, ALIGN_LEFT, NULL);
    if (sc) {
        scene_frame(sc, (SDL_FRect){x, y, w, h + 2 * pad}, ui->u * 0.4f, 1,
                    th->border, th->panel_alt);
        text_flow(sc, spans, n, x + pad, y + pad, w - 2 * pad, 1.2f, ALIGN_LEFT,
                  NULL);
    }
    sim_free(spans);
    return h + 2 * pad;
}

/* How an explanation kind is drawn: with the item's image (heatmaps, pairs
** shown beside it) or without. */
typedef float (*RenderImageFn)(const RenderCtx *rc, Scene *sc,
                               const Explanation *e, const ItemInput *image,
                               float x, float y, float w);
typedef float (*RenderFn)(const RenderCtx *rc, Scene *sc, const Explanation *e,
                          float x, float y, float w);
typedef struct KindRender {
    RenderImageFn with_image; /* or */
    RenderFn plain;
} KindRender;

/* One row per ExplKind: how it is drawn. Composites (no function) are drawn
** part by part by render_explanation. */
static const KindRender kind_render[] = {
    [EXPL_HEATMAP] = {render_heatmap, NULL},
    [EXPL_TOKENS] = {NULL, render_tokens},
    [EXPL_TOKEN_PAIRS] = {render_pairs, NULL},
    [EXPL_SPAN_PAIRS] = {render_pairs, NULL},
    [EXPL_FEATURES] = {NULL, render_features},
    [EXPL_RULES] = {NULL, render_rules},
    [EXPL_PROTOTYPE] = {NULL, render_prototype},
    [EXPL_PATH] = {NULL, render_path},
    [EXPL_TEXT] = {NULL, render_pretext},
    [EXPL_COMPOSITE] = {NULL, NULL},
};

_Static_assert(sizeof kind_render / sizeof *kind_render == EXPL_KIND_COUNT,
               "one row per ExplKind");

static float render_one(const RenderCtx *rc, Scene *sc, const Explanation *e,
                        const ItemInput *image, float x, float y, float w)
{
    if ((unsigned)e->kind >= EXPL_KIND_COUNT) {
        return 0;
    }
    const KindRender *k = &kind_render[e->kind];
    if (k->with_image) {
        return k->with_image(rc, sc, e, image, x, y, w);
    }
    return k->plain ? k->plain(rc, sc, e, x, y, w) : 0;
}

float render_explanation(const RenderCtx *rc, Scene *sc, const Explanation *e,
                         const ItemInput *image, float x, float y, float w)
{
    if (!e) {
        return 0;
    }
    Ui *ui = rc->ui;
    float yy = y;
    if (e->kind != EXPL_COMPOSITE) {
        if (e->title && *e->title) {
            yy += text_para(sc, ui->small_bold, e->title, x, yy, w, ui->th.text,
                            render_align(rc, ALIGN_LEFT));
            yy += ui->u * 0.3f;
        }
        yy += render_one(rc, sc, e, image, x, yy, w);
        return yy - y;
    }
    if (e->title && *e->title) {
        yy += text_para(sc, ui->bold, e->title, x, yy, w, ui->th.text,
                        render_align(rc, ALIGN_LEFT));
        yy += ui->u * 0.4f;
    }
    for (size_t i = 0; i < e->n_parts; i++) {
        if (i > 0) {
            yy += ui->u * 0.6f;
            if (sc) {
                scene_rect(sc, (SDL_FRect){x, yy, w, 1}, ui->th.border);
            }
            yy += ui->u * 0.6f;
        }
        const Explanation *p = &e->parts[i];
        if (p->kind == EXPL_COMPOSITE) {
            continue; /* the loader refuses nested composites */
        }
        if (p->title && *p->title) {
            yy += render_section_label(rc, sc, x, yy, w, p->title);
            yy += ui->u * 0.3f;
        }
        yy += render_one(rc, sc, p, image, x, yy, w);
    }
    return yy - y;
}
