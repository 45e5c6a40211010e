/*
** The reservoir: the session's training examples on its test screens, as
** rows of small cards (input, explanation, the model's answer). Every card
** of a study is as tall as its tallest (the plan), so the reservoir takes
** the same room in every condition. An explanation given on request sits
** behind a small button on its card.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The most reservoir cards in one row (more rows follow, the page
** scrolls). */
#define RES_MAX_COLS 16

typedef struct ResArg {
    const Item *item;
    const Explanation *e;
    int index;    /* the card's place in the reservoir */
    int revealed; /* its explanation (on request) is shown */
} ResArg;

/* The small show or hide button of card k's explanation. */
static float card_button(Ctx *c, Scene *sc, float x, float y, float w, int k,
                         int show)
{
    const char *label = tr(c, show ? UI_EXPL_SHOW : UI_EXPL_HIDE);
    float bh = roundf(c->ui->u * 2.0f);
    float bw = fminf(scr_button_width(c, label, NULL), w);
    scr_button(c, sc, x + (w - bw) / 2, y, bw, bh, label, NULL, ACT_REVEAL,
               SESSION_REVEAL(k, show), 1, 3);
    return bh;
}

static float card_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ResArg *a = arg;
    Ui *ui = c->ui;
    float yy = y;
    if (!expl_shows_input(a->e)) {
        yy += render_input(&c->rc, sc, &a->item->input, NULL, 0, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    if (a->e && a->e->reveal == EXPL_REVEAL_ON_REQUEST) {
        if (!a->revealed) {
            yy += card_button(c, sc, x, yy, w, a->index, 1);
            yy += roundf(ui->u * 0.5f);
        } else {
            yy +=
                render_explanation(&c->rc, sc, a->e, &a->item->input, x, yy, w);
            yy += roundf(ui->u * 0.3f);
            yy += card_button(c, sc, x, yy, w, a->index, 0);
            yy += roundf(ui->u * 0.5f);
        }
    } else if (a->e) {
        yy += render_explanation(&c->rc, sc, a->e, &a->item->input, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    const char *model = tr(c, UI_ITEM_MODEL);
    const char *out = render_class_label(&c->rc, a->item->prediction);
    float ph;
    float pw = render_chip(&c->rc, NULL, 0, 0, model, out, 1, w, &ph);
    render_chip(&c->rc, sc, x + fmaxf(0, (w - pw) / 2), yy, model, out, 1, w,
                NULL);
    yy += ph;
    return yy - y;
}

/* Derives a smaller look for reservoir cards. */
static void ui_scaled(Ui *out, const Ui *base, float f)
{
    *out = *base;
    out->font_scale = base->font_scale * f;
    ui_update_metrics(out);
}

/* The cards' geometry for n cards across w: columns, card width, the
** tallest an image may be, and the smaller look (small) with a context cc
** that draws in it. */
typedef struct ResGeom {
    size_t cols;
    float cw, gap, row_x;
    Ui small;
    Ctx cc;
} ResGeom;

static void res_geom(Ctx *c, size_t n, int images, float x, float w, ResGeom *g)
{
    ui_scaled(&g->small, c->ui, 0.72f);
    g->cc = *c;
    g->cc.ui = &g->small;
    g->cc.rc.ui = &g->small;
    g->cc.rc.compact = 1;
    g->cc.rc.hover_mode = 0; /* a hover explanation shows its values here */
    g->cc.rc.hover_next = NULL;
    g->gap = roundf(c->ui->u * 0.6f);
    float min_card = g->small.u * (images ? 9 : 16);
    size_t cols = n < RES_MAX_COLS ? n : RES_MAX_COLS;
    if (cols < 1) {
        cols = 1;
    }
    while (cols > 1 &&
           (w - g->gap * (float)(cols - 1)) / (float)cols < min_card) {
        cols--;
    }
    g->cols = cols;
    g->cw = floorf((w - g->gap * (float)(cols - 1)) / (float)cols);
    if (images) {
        g->cw = fminf(g->cw, g->small.u * 20);
    }
    g->row_x =
        x +
        floorf((w - (g->cw * (float)cols + g->gap * (float)(cols - 1))) / 2);
    g->cc.rc.max_image_h =
        images ? fminf(g->cw * 0.9f, (float)c->ui->gfx->h * 0.2f)
               : (float)c->ui->gfx->h * 0.15f;
}

float scr_reservoir_card_h(Ctx *c, const Item *item, const Explanation *e,
                           size_t n, float w)
{
    ResGeom g;
    res_geom(c, n, item->input.modality == MODALITY_IMAGE, 0, w, &g);
    g.cc.v = c->v;
    ResArg a = {item, e, 0, 1};
    return scr_card(&g.cc, NULL, 0, 0, g.cw, card_content, &a);
}

float scr_reservoir_h(Ctx *c, size_t n, float card_h, float w)
{
    ResGeom g;
    res_geom(c, n, 0, 0, w, &g);
    size_t rows = (n + g.cols - 1) / g.cols;
    return render_section_label(&c->rc, NULL, 0, 0, w,
                                tr(c, UI_RESERVOIR_TITLE)) +
           roundf(c->ui->u * 0.4f) + (float)rows * (card_h + g.gap);
}

float scr_reservoir(Ctx *c, Scene *sc, float x, float y, float w, float card_h)
{
    const SessionView *v = c->v;
    size_t n = v->n_reservoir;
    int images = n && v->reservoir[0]->input.modality == MODALITY_IMAGE;
    ResGeom g;
    res_geom(c, n, images, x, w, &g);
    float yy = y;
    yy += render_section_label(&c->rc, sc, x, yy, w, tr(c, UI_RESERVOIR_TITLE));
    yy += roundf(c->ui->u * 0.4f);
    for (size_t r = 0; r < n; r += g.cols) {
        float row_h = card_h;
        ResArg args[RES_MAX_COLS];
        for (size_t k = 0; k < g.cols && r + k < n; k++) {
            size_t i = r + k;
            args[k] = (ResArg){v->reservoir[i], v->reservoir_expl[i], (int)i,
                               v->res_revealed && v->res_revealed[i]};
            row_h = fmaxf(row_h, scr_card(&g.cc, NULL, 0, 0, g.cw, card_content,
                                          &args[k]));
        }
        for (size_t k = 0; k < g.cols && r + k < n && sc; k++) {
            float xx = mx(c, x, w, g.row_x + (float)k * (g.cw + g.gap), g.cw);
            SDL_FRect rect = {xx, yy, g.cw, row_h};
            scene_frame(sc, rect, g.small.u * 0.5f, 1, c->th->border,
                        c->th->panel);
            scene_box_begin(sc, rect, "card");
            float pad = roundf(g.small.u);
            card_content(&g.cc, sc, xx + pad, yy + pad, g.cw - 2 * pad,
                         &args[k]);
            scene_box_end(sc);
        }
        yy += row_h + g.gap;
    }
    return yy - y;
}
