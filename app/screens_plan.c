/*
** The layout of a study's item screens (ScreenPlan, screens.h), worked out
** once for a window and text size: every explanation of every condition
** and every reservoir card measured, so that the explanation area and the
** reservoir take the same room, in the same place, in every condition.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The body's height on a prediction screen (header and the response bar
** of a forced choice taken off). */
static float prediction_view_h(Ctx *c, const Study *st)
{
    Ui *ui = c->ui;
    float W = (float)ui->gfx->w, H = (float)ui->gfx->h;
    float content_w = fminf(W - 2 * ui->margin, ui->u * 80);
    SessionView v;
    memset(&v, 0, sizeof v);
    v.screen = SCREEN_PREDICT;
    v.classes = st->classes;
    v.n_classes = st->n_classes;
    v.need_choice = 1;
    v.choice = -1;
    v.onset_marked = 1;
    Ctx cc = *c;
    cc.v = &v;
    float foot_h = scr_footer(&cc, NULL, 0, 0, content_w) + 2 * roundf(ui->u);
    foot_h = fminf(foot_h, H * 0.6f);
    return H - roundf(ui->u * 3.0f) - foot_h;
}

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

/* The reservoir: every card of every pool a block shows as a reservoir,
** with every method's explanation and none. */
static void plan_reservoir(ScreenPlan *p, Ctx *c, const Study *st,
                           const char **methods, size_t n_methods, float w)
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
                float h = scr_reservoir_card_h(c, it, e, n, w);
                if (h > p->res_card_h) {
                    p->res_card_h = h;
                    p->res_item = it;
                    p->res_method = k < n_methods ? methods[k] : NULL;
                }
            }
        }
        p->res_h = fmaxf(p->res_h, scr_reservoir_h(c, n, p->res_card_h, w));
    }
}

void screen_plan_build(ScreenPlan *p, const Study *st, Ui *ui, Assets *assets,
                       const UiStrings *strings)
{
    memset(p, 0, sizeof *p);
    p->w = ui->gfx->w;
    p->h = ui->gfx->h;
    p->u = ui->u;
    SessionView v;
    memset(&v, 0, sizeof v);
    v.classes = st->classes;
    v.n_classes = st->n_classes;
    v.onset_marked = 1;
    v.reveal_key = ui_str(strings, UI_EXPL_SHOW_KEY);
    ScreenCtx sx;
    memset(&sx, 0, sizeof sx);
    sx.ui = ui;
    sx.assets = assets;
    sx.view = &v;
    sx.strings = strings;
    Ctx c;
    memset(&c, 0, sizeof c);
    c.sx = &sx;
    c.ui = ui;
    c.v = &v;
    c.th = &ui->th;
    c.rc.ui = ui;
    c.rc.assets = assets;
    c.rc.classes = st->classes;
    c.rc.n_classes = st->n_classes;
    c.rc.strings = strings;
    float W = (float)ui->gfx->w;
    float w = fminf(W - 2 * ui->margin, ui->u * 80); /* the content width */
    const char *methods[64];
    size_t n_methods = study_methods(st, methods, 64);
    p->any_method = n_methods > 0;
    p->view_h = prediction_view_h(&c, st);
    plan_reservoir(p, &c, st, methods, n_methods, w);
    p->res_top = p->res_h > 0 && p->res_h <= p->view_h * 0.55f;
    p->max_image_h = fmaxf(p->view_h * 0.62f, ui->u * 6);
    if (p->res_top) {
        p->max_image_h = fmaxf(
            fminf(p->max_image_h, p->view_h - p->res_h - ui->u * 5), ui->u * 6);
    }
    c.rc.max_image_h = p->max_image_h;
    ItemGeom g;
    scr_item_geom(&c, w, &g);
    const char *side = ui_str(strings, UI_ITEM_EXPLANATION);
    const char *full = ui_str(strings, UI_ITEM_EXPLANATION_ORIGINAL);
    for (size_t k = 0; k < n_methods; k++) {
        for (size_t i = 0; i < st->n_items; i++) {
            const Item *it = &st->items[i];
            const Explanation *e = item_explanation(it, methods[k]);
            if (!e) {
                continue;
            }
            float hs = scr_expl_area_h(&c, e, it, side, g.side_content_w);
            float hf = scr_expl_area_h(&c, e, it, full, g.full_content_w);
            if (hs > p->expl_side_h) {
                p->expl_side_h = hs;
                p->expl_item = it;
                p->expl_method = methods[k];
            }
            p->expl_full_h = fmaxf(p->expl_full_h, hf);
        }
    }
}
