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

/* The small show or hide button of a card's explanation. */
static float card_button(Ctx *c, Scene *sc, float x, float y, float w,
                         const ScreenReveal *r, int show)
{
    const char *label = show ? r->show_label : r->hide_label;
    float bh = roundf(c->ui->u * 2.0f);
    float bw = fminf(scr_button_width(c, label, NULL), w);
    scr_button(c, sc, x + (w - bw) / 2, y, bw, bh, label, NULL, ACT_REVEAL,
               show ? r->show_value : r->hide_value, 1, 3);
    return bh;
}

static float card_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ScreenResCard *k = arg;
    Ui *ui = c->ui;
    float yy = y;
    if (k->draws_input) {
        yy += render_input(&c->rc, sc, &k->input, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    if (k->expl && !strcmp(k->reveal.mode, "on_request")) {
        if (!k->reveal.shown) {
            yy += card_button(c, sc, x, yy, w, &k->reveal, 1);
            yy += roundf(ui->u * 0.5f);
        } else {
            yy += render_explanation(&c->rc, sc, k->expl, x, yy, w);
            yy += roundf(ui->u * 0.3f);
            yy += card_button(c, sc, x, yy, w, &k->reveal, 0);
            yy += roundf(ui->u * 0.5f);
        }
    } else if (k->expl) {
        yy += render_explanation(&c->rc, sc, k->expl, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    float ph;
    float pw = render_chip(&c->rc, NULL, 0, 0, k->pill.label, k->pill.value, 1,
                           w, &ph);
    render_chip(&c->rc, sc, x + fmaxf(0, (w - pw) / 2), yy, k->pill.label,
                k->pill.value, 1, w, NULL);
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

float scr_reservoir_card_h(Ctx *c, const ScreenResCard *k, size_t n, float w)
{
    ResGeom g;
    const ItemInput *in = k->input.source;
    res_geom(c, n, in && in->modality == MODALITY_IMAGE, 0, w, &g);
    return scr_card(&g.cc, NULL, 0, 0, g.cw, card_content, k);
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
    const ScreenReservoir *res = c->m->reservoir;
    size_t n = res->n_cards;
    const ItemInput *in0 = n ? res->cards[0].input.source : NULL;
    int images = in0 && in0->modality == MODALITY_IMAGE;
    ResGeom g;
    res_geom(c, n, images, x, w, &g);
    float yy = y;
    yy += render_section_label(&c->rc, sc, x, yy, w, res->title);
    yy += roundf(c->ui->u * 0.4f);
    for (size_t r = 0; r < n; r += g.cols) {
        float row_h = card_h;
        for (size_t k = 0; k < g.cols && r + k < n; k++) {
            row_h = fmaxf(row_h, scr_card(&g.cc, NULL, 0, 0, g.cw, card_content,
                                          &res->cards[r + k]));
        }
        for (size_t k = 0; k < g.cols && r + k < n && sc; k++) {
            float xx = mx(c, x, w, g.row_x + (float)k * (g.cw + g.gap), g.cw);
            SDL_FRect rect = {xx, yy, g.cw, row_h};
            scene_frame(sc, rect, g.small.u * 0.5f, 1, c->th->border,
                        c->th->panel);
            scene_box_begin(sc, rect, "card");
            float pad = roundf(g.small.u);
            card_content(&g.cc, sc, xx + pad, yy + pad, g.cw - 2 * pad,
                         &res->cards[r + k]);
            scene_box_end(sc);
        }
        yy += row_h + g.gap;
    }
    return yy - y;
}
