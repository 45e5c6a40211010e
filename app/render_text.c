/*
** Explanations made of text: token weights as highlighted words and their
** interactions across a text pair, markdown prose in the UI's proportional
** faces, pre-formatted text and anchor rules; and the tooltip of a value
** shown on hover.
*/
#include "app/render_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "stimuli/page.h"

/* --------------------------------------------------------------- tokens */

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

/* The colour bar of signed weights with the node's captions. */
static float render_weight_legend(const RenderCtx *rc, Scene *sc,
                                  const ScreenExpl *nd, float x, float y,
                                  float w)
{
    if (!nd->legend_lo) {
        return 0;
    }
    return render_legend(rc, sc, assets_colorbar(rc->assets, "diverging"),
                         nd->legend_lo, nd->legend_hi, x, y, w,
                         fminf(rc->ui->u * 10, w * 0.4f));
}

/* Tokens of one segment as highlighted flowing text. rects (per token of
** the explanation, may be NULL) receive each token's box. */
static float render_token_segment(const RenderCtx *rc, Scene *sc,
                                  const ScreenExpl *nd, int segment,
                                  double maxabs, float x, float y, float w,
                                  SDL_FRect *rects)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
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
        SDL_Color bg =
            fabs(v) < 0.02 || !render_value_shown(rc, nd->values[i].hover)
                ? NO_BG
                : weight_bg(v);
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
    if (sc && rc->hover_mode) {
        /* each token a hover region; the hovered one's value above it */
        for (size_t j = 0; j < k; j++) {
            if (index[j] != (size_t)-1) {
                render_hover_region(rc, sc, out[j], nd->values[index[j]].hover);
            }
        }
        for (size_t j = 0; j < k; j++) {
            size_t i = index[j];
            if (i != (size_t)-1 && nd->values[i].hover >= 0 &&
                rc->hover_target == nd->values[i].hover) {
                render_tooltip(rc, sc, out[j].x + out[j].w / 2, out[j].y,
                               nd->values[i].text, x, w);
            }
        }
    }
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

float rnd_tokens(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                 float y, float w)
{
    Ui *ui = rc->ui;
    /* the screen model's scale (shared by a per-option payload's parts) */
    double m = nd->scale > 0 ? nd->scale : max_abs_tokens(nd->payload);
    int pair = nd->name_a != NULL;
    float yy = y;
    for (int s = 0; s <= pair; s++) {
        if (pair) {
            yy += render_section_label(rc, sc, x, yy, w,
                                       s == 0 ? nd->name_a : nd->name_b);
            yy += ui->u * 0.2f;
        }
        yy += render_token_segment(rc, sc, nd, s, m, x, yy, w, NULL);
        yy += ui->u * 0.5f;
    }
    yy += render_weight_legend(rc, sc, nd, x, yy, w);
    return yy - y;
}

/* ---------------------------------------------------------------- pairs */

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

/* Whether pair p joins token t (t < 0: none). */
static int pair_touches(const ExplPair *p, int t)
{
    return t >= 0 && ((t >= p->a_start && t < p->a_end) ||
                      (t >= p->b_start && t < p->b_end));
}

float rnd_pairs(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    const Explanation *e = nd->payload;
    int nt = (int)e->n_tokens;
    SDL_FRect *rects = sim_calloc(e->n_tokens + 1, sizeof(SDL_FRect));
    if (!rects) {
        scene_set_oom(sc);
        return 0;
    }
    double pm = 0;
    for (size_t i = 0; i < e->n_pairs; i++) {
        pm = fmax(pm, fabs(e->pairs[i].weight));
    }
    if (pm <= 0) {
        pm = 1;
    }
    /* Token weights (if any) tint the tokens; the strongest pairs (the
    ** node's lines) are joined by lines. */
    double m = max_abs_tokens(e);
    float yy = y;
    float pad = roundf(ui->u * 0.4f);
    /* Segment names in a left column keep the space between the rows free
    ** for the interaction lines. */
    const char *na = nd->name_a;
    const char *nb = nd->name_b;
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
    float ha = render_token_segment(rc, sc, nd, 0, m, tx, yy, seg_w, rects);
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, na);
    }
    yy += ha + ui->u * 3.0f;
    float hb = render_token_segment(rc, sc, nd, 1, m, tx, yy, seg_w, rects);
    int hovered = -1; /* the hovered token, -1 none */
    for (size_t i = 0; rc->hover_mode && i < nd->n_values; i++) {
        if (nd->values[i].hover >= 0 &&
            nd->values[i].hover == rc->hover_target) {
            hovered = (int)i;
        }
    }
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, nb);
        for (size_t k = nd->n_lines; k-- > 0;) {
            const ExplPair *p = &e->pairs[nd->lines[k].pair];
            SDL_FRect ra = union_rects(rects, p->a_start, p->a_end, nt);
            SDL_FRect rb = union_rects(rects, p->b_start, p->b_end, nt);
            if (ra.w == 0 || rb.w == 0 ||
                (rc->hover_mode && !pair_touches(p, hovered))) {
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
    sim_free(rects);
    if (!nd->section) {
        return yy - y; /* the values show on hover: no list of them */
    }
    yy += ui->u * 0.8f;
    /* The strongest interactions as a list. */
    yy += render_section_label(rc, sc, x, yy, w, nd->section) + pad;
    char widest[48];
    render_num(rc, -0.888, 3, 1, widest, sizeof widest);
    float val_w = value_width(ui->small_bold, widest) + pad;
    float bar_w = fminf(ui->u * 5, w * 0.2f);
    for (size_t k = 0; k < nd->n_lines; k++) {
        const ScreenLine *l = &nd->lines[k];
        const char *line = l->label ? l->label : "";
        float tw = w - val_w - bar_w - pad * 2;
        float lh =
            text_para(NULL, ui->small, line, 0, 0, tw, th->text, ALIGN_LEFT);
        if (sc) {
            /* the pair, a bar of its strength (filled from the start
            ** side), its weight */
            text_para(sc, ui->small, line, render_mx(rc, x, w, x, tw), yy, tw,
                      th->text, render_align(rc, ALIGN_LEFT));
            double v = l->weight / pm;
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
            const char *val = l->text ? l->text : "";
            float vw = value_width(ui->small_bold, val);
            value_draw(sc, ui->small_bold,
                       render_mx(rc, x, w, bx + bar_w + pad, vw), yy, val,
                       th->text);
        }
        yy += lh + pad * 0.5f;
    }
    return yy - y;
}

/* ------------------------------------------------------------- markdown */

/* A paragraph or list item of a markdown payload: its runs in the body
** font, its bold and its oblique face. */
static float md_runs(const RenderCtx *rc, Scene *sc, const PageBlock *b,
                     float x, float y, float w)
{
    Ui *ui = rc->ui;
    if (b->n_spans == 0) {
        return 0;
    }
    Span *spans = sim_malloc(b->n_spans * sizeof *spans);
    if (!spans) {
        scene_set_oom(sc);
        return 0;
    }
    for (size_t i = 0; i < b->n_spans; i++) {
        const PageSpan *ps = &b->spans[i];
        Font *f = ps->strong ? ui->bold : ps->em ? ui->italic : ui->body;
        spans[i] =
            (Span){b->text + ps->start, ps->len, f, ui->th.text, NO_BG, 0};
    }
    float h = text_flow(sc, spans, b->n_spans, x, y, w, 1.3f,
                        render_align(rc, ALIGN_LEFT), NULL);
    sim_free(spans);
    return h;
}

/* A list item: bullet or number in the margin (the start side), then its
** text. */
static float md_item(const RenderCtx *rc, Scene *sc, const PageBlock *b,
                     float x, float y, float w)
{
    Ui *ui = rc->ui;
    float ind = roundf(ui->u * 1.4f);
    if (sc) {
        if (b->kind == PAGE_BULLET) {
            scene_circle(sc, render_mx(rc, x, w, x + ind * 0.45f, 0),
                         y + (float)ui->body->ascent * 0.62f +
                             roundf((float)ui->body->line_h * 0.15f / 2),
                         ui->u * 0.16f, ui->th.muted);
        } else {
            float lw = font_width(ui->body, b->label, strlen(b->label));
            scene_text(sc, ui->body, render_mx(rc, x, w, x, lw),
                       y + roundf((float)ui->body->line_h * 0.3f / 2), b->label,
                       ui->th.muted);
        }
    }
    return md_runs(rc, sc, b, render_mx(rc, x, w, x + ind, w - ind), y,
                   w - ind);
}

float rnd_markdown(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                   float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Page *pg = nd->payload->doc;
    float yy = y;
    float gap = roundf(ui->u * 0.6f);
    for (size_t i = 0; pg && i < pg->n_blocks; i++) {
        const PageBlock *b = &pg->blocks[i];
        switch (b->kind) {
        case PAGE_HEADING:
            if (i > 0) {
                yy += gap;
            }
            yy += text_para(sc, b->level == 1 ? ui->h2 : ui->bold, b->text, x,
                            yy, w, ui->th.text, render_align(rc, ALIGN_LEFT));
            yy += roundf(ui->u * 0.2f);
            break;
        case PAGE_BULLET:
        case PAGE_NUMBERED:
            if (i > 0) {
                yy += gap * 0.35f;
            }
            yy += md_item(rc, sc, b, x, yy, w);
            break;
        case PAGE_PARAGRAPH:
            if (i > 0) {
                yy += gap;
            }
            yy += md_runs(rc, sc, b, x, yy, w);
            break;
        case PAGE_IMAGE:
            break; /* refused by study loading */
        }
    }
    return yy - y;
}

/* --------------------------------------------------------------- text */

float rnd_pretext(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                  float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
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

/* ---------------------------------------------------------------- rules */

float rnd_rules(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
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
                const char *kw_if = nd->word_if;
                const char *kw_and = nd->word_and;
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
            const ScreenValue *rv = &nd->values[r];
            cy += pad * 0.2f;
            cy += text_marked(s2, ui->body, ui->bold, rv->label, ix, cy, iw,
                              th->text, render_align(rc, ALIGN_LEFT));
            if (rv->text) {
                cy += pad * 0.2f;
                cy += text_para(s2, ui->small, rv->text, ix, cy, iw, th->muted,
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

/* ------------------------------------------------------------- tooltips */

void render_tooltip(const RenderCtx *rc, Scene *sc, float cx, float top,
                    const char *text, float x, float w)
{
    Ui *ui = rc->ui;
    if (!sc) {
        return;
    }
    Font *f = ui->small_bold;
    float pad = roundf(ui->u * 0.35f);
    float tw = value_width(f, text);
    float bw = tw + 2 * pad, bh = (float)f->line_h + pad;
    float bx = fminf(fmaxf(cx - bw / 2, x), x + w - bw);
    float by = top - bh - 2;
    SDL_FRect r = {bx, by, bw, bh};
    scene_frame(sc, r, pad, 1, ui->th.model, ui->th.model);
    scene_box_begin(sc, r, "tooltip");
    value_draw(sc, f, bx + pad, by + pad / 2, text, ui->th.accent_text);
    scene_box_end(sc);
}
