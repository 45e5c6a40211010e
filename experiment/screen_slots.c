/*
** The slots of a study's item screens (ScreenSlots, screen_model.h),
** worked out once per front end and window: every explanation of every
** condition and every reservoir card measured in its tallest state, so
** that the explanation area and the reservoir take the same room, in the
** same place, in every condition. The rules are here; the measuring is the
** front end's (its fonts), or for the browser an estimate in em of its
** body text. No SDL, no clock.
*/
#include "experiment/screen_model_int.h"

#include <math.h>
#include <string.h>

/* The reservoir sits above the item when it takes at most this share of
** the prediction screen's view. */
#define RES_TOP_SHARE 0.55

/* The methods the conditions show (each once), into out; returns how many. */
static size_t study_methods(const Study *st, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n_conditions; i++) {
        const char *m = st->conditions[i].method;
        int seen = !m;
        for (size_t k = 0; k < n && !seen; k++) {
            seen = strcmp(out[k], m) == 0;
        }
        if (!seen && n < cap) {
            out[n++] = m;
        }
    }
    return n;
}

/* A view of item (with explanation e) on screen, in its tallest state: the
** explanation shown, the reservoir (res, res_e: one card) when given. */
static void measure_view(SessionView *v, const Study *st, SessionScreen screen,
                         const Item *item, const Explanation *e,
                         const Item **res, const Explanation **res_e,
                         const UiStrings *strings)
{
    memset(v, 0, sizeof *v);
    v->screen = screen;
    v->classes = st->classes;
    v->n_classes = st->n_classes;
    v->onset_marked = 1;
    v->choice = -1;
    v->item = item;
    v->explanation = e;
    v->revealed = 1;
    v->hover_target = -1;
    v->reveal_key = ui_str(strings, UI_EXPL_SHOW_KEY);
    if (res) {
        v->reservoir = res;
        v->reservoir_expl = res_e;
        v->n_reservoir = 1;
    }
}

/* The reservoir: every card of every pool a block shows as a reservoir,
** with every method's explanation and none. */
static void plan_reservoir(ScreenSlots *s, const Study *st, ScreenModel *m,
                           const ScreenContext *cx, const char **methods,
                           size_t n_methods, const SlotMeasure *me)
{
    for (size_t b = 0; b < st->n_blocks; b++) {
        const Block *blk = &st->blocks[b];
        const Block *rb = blk->reservoir && blk->show.reservoir
                              ? study_find_block(st, blk->reservoir)
                              : NULL;
        if (!rb || !rb->pool) {
            continue;
        }
        size_t have = 0;
        for (size_t i = 0; i < st->n_items; i++) {
            have += strcmp(st->items[i].pool, rb->pool) == 0;
        }
        size_t n = block_item_count(rb, have);
        if (n == 0) {
            continue;
        }
        for (size_t i = 0; i < st->n_items; i++) {
            const Item *it = &st->items[i];
            if (strcmp(it->pool, rb->pool) != 0) {
                continue;
            }
            for (size_t k = 0; k <= n_methods; k++) {
                const Explanation *e = k < n_methods && rb->show.explanation
                                           ? item_explanation(it, methods[k])
                                           : NULL;
                if (k < n_methods && !e) {
                    continue;
                }
                SessionView v;
                measure_view(&v, st, SCREEN_PREDICT, it, NULL, &it, &e,
                             cx->strings);
                if (screen_model_build(m, &v, cx) != SIM_OK || !m->reservoir ||
                    !m->reservoir->n_cards) {
                    continue;
                }
                double h = me->card_h(me->ctx, &m->reservoir->cards[0], n);
                if (h > s->res_card_h) {
                    s->res_card_h = h;
                    s->res_item = it;
                    s->res_method = k < n_methods ? methods[k] : NULL;
                }
            }
        }
        s->res_h = fmax(s->res_h, me->res_h(me->ctx, n, s->res_card_h));
    }
}

void screen_slots_plan(ScreenSlots *s, const Study *st,
                       const UiStrings *strings, const SlotMeasure *me)
{
    memset(s, 0, sizeof *s);
    ScreenModel *m = screen_model_new();
    if (!m) {
        return;
    }
    ScreenContext cx = {st, strings, SCREEN_DESKTOP, NULL, 0, 1};
    const char *methods[64];
    size_t n_methods = study_methods(st, methods, 64);
    s->any_method = n_methods > 0;
    s->view_h = me->view_h;
    s->res_share = RES_TOP_SHARE;
    plan_reservoir(s, st, m, &cx, methods, n_methods, me);
    s->res_top = s->res_h > 0 && s->res_h <= s->view_h * RES_TOP_SHARE;
    s->max_image_h = fmax(s->view_h * 0.62, me->u * 6);
    if (s->res_top) {
        s->max_image_h = fmax(
            fmin(s->max_image_h, s->view_h - s->res_h - me->u * 5), me->u * 6);
    }
    for (size_t k = 0; me->area_h && k < n_methods; k++) {
        for (size_t i = 0; i < st->n_items; i++) {
            const Item *it = &st->items[i];
            const Explanation *e = item_explanation(it, methods[k]);
            if (!e) {
                continue;
            }
            SessionView v;
            measure_view(&v, st, SCREEN_EXAMPLE, it, e, NULL, NULL, strings);
            double hs = 0, hf = 0;
            if (screen_model_build(m, &v, &cx) == SIM_OK && m->area) {
                hs = me->area_h(me->ctx, m->area, it, s->max_image_h);
            }
            v.screen = SCREEN_COUNTERFACTUAL;
            if (screen_model_build(m, &v, &cx) == SIM_OK && m->area) {
                hf = me->area_h(me->ctx, m->area, it, s->max_image_h);
            }
            if (hs > s->expl_side_h) {
                s->expl_side_h = hs;
                s->expl_item = it;
                s->expl_method = methods[k];
            }
            s->expl_full_h = fmax(s->expl_full_h, hf);
        }
    }
    screen_model_free(m);
}

/* ------------------------------------------- the browser's estimate (em) */

/* The browser's reservoir card (web/style.css): its content width and the
** height of its picture, in em of the card's text. */
#define EM_CARD_W  16.6
#define EM_IMAGE_W 10.6
#define EM_PICTURE 9.0
#define EM_LINE    1.45
#define EM_CHAR    0.56 /* the mean advance of a character */

/* Lines of text of n characters in a column w em wide. */
static double text_lines(size_t n, double w)
{
    double per = fmax(1, floor(w / EM_CHAR));
    return n ? ceil((double)n / per) : 0;
}

static size_t len_or0(const char *s)
{
    size_t n = 0;
    /* characters, not bytes: wide (CJK) ones count twice */
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
         p++) {
        if ((*p & 0xC0) != 0x80) {
            n += *p >= 0xE3 ? 2 : 1;
        }
    }
    return n;
}

static double expl_em(const ScreenExpl *x, double w);

static double values_em(const ScreenExpl *x, double w, double row)
{
    double h = 0;
    for (size_t i = 0; i < x->n_values; i++) {
        h += fmax(1, text_lines(len_or0(x->values[i].label), w * 0.45)) * row;
    }
    return h;
}

static double lines_em(const ScreenExpl *x, double w)
{
    double h = 0;
    for (size_t i = 0; i < x->n_lines; i++) {
        const ScreenLine *l = &x->lines[i];
        h +=
            fmax(1, text_lines(len_or0(l->label) + len_or0(l->note), w * 0.6)) *
            EM_LINE;
    }
    return h + (x->n_lines ? 0.6 : 0);
}

static double expl_em(const ScreenExpl *x, double w)
{
    const Explanation *e = x->payload;
    double h = x->title ? EM_LINE + 0.3 : 0;
    double legend = x->legend_lo ? EM_LINE + 0.6 : 0;
    switch (e->kind) {
    case EXPL_HEATMAP:
    case EXPL_IMAGE:
        h += EM_PICTURE + legend;
        if (e->kind == EXPL_IMAGE && e->n_images && e->images[0].caption) {
            h += text_lines(len_or0(e->images[0].caption), w) * EM_LINE;
        }
        break;
    case EXPL_GALLERY: {
        size_t cols = e->columns > 0 ? (size_t)e->columns
                                     : (e->n_images < 4 ? e->n_images : 4);
        cols = cols ? cols : 1;
        size_t rows = (e->n_images + cols - 1) / cols;
        h += (double)rows * (w / (double)cols + 2 * EM_LINE);
        break;
    }
    case EXPL_TOKENS:
    case EXPL_TOKEN_PAIRS:
    case EXPL_SPAN_PAIRS: {
        size_t n = 0;
        for (size_t i = 0; i < x->n_values; i++) {
            n += len_or0(x->values[i].label) + 2;
        }
        h += text_lines(n, w) * 2.1 + legend + (x->name_a ? 2 * EM_LINE : 0);
        h += x->section ? EM_LINE : 0;
        h += lines_em(x, w);
        break;
    }
    case EXPL_FEATURES:
    case EXPL_BARS:
        h += values_em(x, w, 1.7) + lines_em(x, w);
        break;
    case EXPL_PROTOTYPE:
        h += text_lines(len_or0(x->head), w) * EM_LINE;
        h += (double)(e->n_rows + 1) * 1.6 + (x->note ? 2 * EM_LINE : 0);
        h += (x->section ? EM_LINE : 0) + values_em(x, w, 1.7);
        break;
    case EXPL_PATH:
        h += text_lines(len_or0(x->head), w) * EM_LINE + lines_em(x, w);
        break;
    case EXPL_RULES:
        for (size_t r = 0; r < e->n_rules; r++) {
            size_t n = len_or0(x->values[r].label) + len_or0(x->values[r].text);
            for (size_t k = 0; k < e->rules[r].n_conditions; k++) {
                n += len_or0(e->rules[r].conditions[k]) + 8;
            }
            h += text_lines(n, w) * EM_LINE + 2.2;
        }
        break;
    case EXPL_TEXT:
        h += text_lines(len_or0(e->text), w - 1.6) * 1.3 + 1.6;
        break;
    case EXPL_MARKDOWN:
        h += text_lines(len_or0(e->text), w) * EM_LINE + 0.8;
        break;
    case EXPL_COMPOSITE:
    case EXPL_LAYOUT:
        break;
    }
    double parts = 0;
    for (size_t i = 0; i < x->n_parts; i++) {
        double p = expl_em(&x->parts[i], e->row ? w / (double)x->n_parts : w);
        parts = e->row ? fmax(parts, p) : parts + p + 1.2;
    }
    return h + parts;
}

static double card_em(void *ctx, const ScreenResCard *c, size_t n)
{
    (void)ctx;
    (void)n;
    const ItemInput *in = c->input.source;
    int image = in && in->modality == MODALITY_IMAGE;
    double w = image ? EM_IMAGE_W : EM_CARD_W;
    double h = 1.4; /* the card's padding */
    if (c->draws_input && in) {
        switch (in->modality) {
        case MODALITY_IMAGE:
            h += EM_PICTURE;
            break;
        case MODALITY_TEXT:
        case MODALITY_TEXT_PAIR:
            h += text_lines(len_or0(in->text) + len_or0(in->text_b), w) * 1.55 +
                 (in->modality == MODALITY_TEXT_PAIR ? 2 * EM_LINE : 0);
            break;
        case MODALITY_TABULAR:
            h += (double)in->n_features * 1.6;
            break;
        }
        h += 0.5;
    }
    if (c->expl) {
        h += expl_em(c->expl, w) + 0.5;
        if (!strcmp(c->reveal.mode, "on_request")) {
            h += 2.6; /* the hide button */
        }
    }
    return (h + 2.2) * 1.1; /* the model's pill; a tenth to spare */
}

static double res_em(void *ctx, size_t n, double card_h)
{
    (void)ctx;
    (void)n;
    return card_h;
}

void screen_slots_plan_em(ScreenSlots *s, const Study *st,
                          const UiStrings *strings)
{
    SlotMeasure me = {NULL, 0, 1, NULL, card_em, res_em};
    screen_slots_plan(s, st, strings, &me);
    /* the browser knows its view: it places the reservoir by res_share */
    s->res_top = s->res_card_h > 0;
    s->res_h = 0;
}
