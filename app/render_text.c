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

static float render_weight_legend(const RenderCtx *rc, Scene *sc, float x,
                                  float y, float w, double maxabs)
{
    char lo[200], hi[200], t0[128], t1[128], nlo[48], nhi[48];
    render_num(rc, -maxabs, 2, 1, nlo, sizeof nlo);
    render_num(rc, maxabs, 2, 1, nhi, sizeof nhi);
    if (rc->n_classes == 2) {
        snprintf(t1, sizeof t1,
                 ui_fmt(rc->strings, UI_EXPL_TOWARD, "toward %s"),
                 render_class_label(rc, 1));
        snprintf(t0, sizeof t0,
                 ui_fmt(rc->strings, UI_EXPL_TOWARD, "toward %s"),
                 render_class_label(rc, 0));
        snprintf(lo, sizeof lo, "%s  %s", nlo, t1);
        snprintf(hi, sizeof hi, "%s  %s", t0, nhi);
    } else {
        snprintf(lo, sizeof lo, "%s", nlo);
        snprintf(hi, sizeof hi, "%s", nhi);
    }
    return render_legend(rc, sc, assets_colorbar(rc->assets, "diverging"), lo,
                         hi, x, y, w, fminf(rc->ui->u * 10, w * 0.4f));
}

/* Tokens of one segment as highlighted flowing text. rects (per token of
** the explanation, may be NULL) receive each token's box. */
static float render_token_segment(const RenderCtx *rc, Scene *sc,
                                  const Explanation *e, int segment,
                                  double maxabs, int base, float x, float y,
                                  float w, SDL_FRect *rects)
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
        SDL_Color bg = fabs(v) < 0.02 || !render_value_shown(rc, base, i)
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
    if (sc && base >= 0) {
        /* each token a hover region; the hovered one's value above it */
        for (size_t j = 0; j < k; j++) {
            if (index[j] != (size_t)-1) {
                scene_begin_hit(sc, out[j], ACT_HOVER, base + (int)index[j], 1);
                scene_end_hit(sc);
            }
        }
        for (size_t j = 0; j < k; j++) {
            size_t i = index[j];
            if (i != (size_t)-1 && rc->hover_target == base + (int)i) {
                char val[48];
                render_num(rc, e->tokens[i].weight, 2, 1, val, sizeof val);
                render_tooltip(rc, sc, out[j].x + out[j].w / 2, out[j].y, val,
                               x, w);
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

float rnd_tokens(const RenderCtx *rc, Scene *sc, const Explanation *e,
                 const ItemInput *input, float x, float y, float w)
{
    (void)input;
    Ui *ui = rc->ui;
    double m = max_abs_tokens(e);
    int base = render_hover_base(rc, sc, e->n_tokens);
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
        yy += render_token_segment(rc, sc, e, s, m, base, x, yy, w, NULL);
        yy += ui->u * 0.5f;
    }
    yy += render_weight_legend(rc, sc, x, yy, w, m);
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

/* Whether pair p joins token t (t < 0: none). */
static int pair_touches(const ExplPair *p, int t)
{
    return t >= 0 && ((t >= p->a_start && t < p->a_end) ||
                      (t >= p->b_start && t < p->b_end));
}

float rnd_pairs(const RenderCtx *rc, Scene *sc, const Explanation *e,
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
    int base = render_hover_base(rc, sc, e->n_tokens);
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
    float ha =
        render_token_segment(rc, sc, e, 0, m, base, tx, yy, seg_w, rects);
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, na);
    }
    yy += ha + ui->u * 3.0f;
    float hb =
        render_token_segment(rc, sc, e, 1, m, base, tx, yy, seg_w, rects);
    if (sc) {
        render_section_label(rc, sc, nx, yy + ui->u * 0.35f, col, nb);
        for (size_t k = shown; k-- > 0;) {
            const ExplPair *p = order[k];
            SDL_FRect ra = union_rects(rects, p->a_start, p->a_end, nt);
            SDL_FRect rb = union_rects(rects, p->b_start, p->b_end, nt);
            if (ra.w == 0 || rb.w == 0 ||
                (rc->hover_mode && !pair_touches(p, rc->hover_target - base))) {
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
    if (rc->hover_mode) {
        /* the values show on hover: no list of them */
        sim_free(rects);
        sim_free(order);
        return yy - y;
    }
    yy += ui->u * 0.8f;
    /* The strongest interactions as a list. */
    yy += render_section_label(rc, sc, x, yy, w, tr(rc, UI_EXPL_INTERACTIONS)) +
          pad;
    char widest[48];
    render_num(rc, -0.888, 3, 1, widest, sizeof widest);
    float val_w = value_width(ui->small_bold, widest) + pad;
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
        render_num(rc, p->weight, 2, 1, val, sizeof val);
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
            float vw = value_width(ui->small_bold, val);
            value_draw(sc, ui->small_bold,
                       render_mx(rc, x, w, bx + bar_w + pad, vw), yy, val,
                       th->text);
        }
        yy += lh + pad * 0.5f;
    }
    sim_free(rects);
    sim_free(order);
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

float rnd_markdown(const RenderCtx *rc, Scene *sc, const Explanation *e,
                   const ItemInput *input, float x, float y, float w)
{
    (void)input;
    Ui *ui = rc->ui;
    const Page *pg = e->doc;
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

float rnd_pretext(const RenderCtx *rc, Scene *sc, const Explanation *e,
                  const ItemInput *input, float x, float y, float w)
{
    (void)input;
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

/* ---------------------------------------------------------------- rules */

float rnd_rules(const RenderCtx *rc, Scene *sc, const Explanation *e,
                const ItemInput *input, float x, float y, float w)
{
    (void)input;
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
