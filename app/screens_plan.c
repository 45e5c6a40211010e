/*
** The slots of a study's item screens on the desktop (ScreenPlan,
** screens.h): the rules are experiment/screen_slots.c's; here every
** explanation area and reservoir card they name is measured with this
** window's fonts, in px.
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
    ScreenModel *m = screen_model_new();
    if (!m) {
        return H;
    }
    ScreenContext cx = {st, c->rc.strings, SCREEN_DESKTOP, NULL, 0, 0};
    screen_model_build(m, &v, &cx);
    Ctx cc = *c;
    cc.m = m;
    float foot_h = scr_footer(&cc, NULL, 0, 0, content_w) + 2 * roundf(ui->u);
    screen_model_free(m);
    foot_h = fminf(foot_h, H * 0.6f);
    return H - roundf(ui->u * 3.0f) - foot_h;
}

/* What the measuring callbacks read. */
typedef struct Measure {
    Ctx *c;
    float w; /* the content width */
    ItemGeom g;
} Measure;

static double area_h(void *ctx, const ScreenArea *a, const Item *item,
                     double max_image_h)
{
    (void)item;
    Measure *me = ctx;
    Ctx *c = me->c;
    c->rc.max_image_h = (float)max_image_h;
    /* each measurement holds its own images only (the budget) */
    assets_scene_begin(c->rc.assets);
    float h = scr_area_h(
        c, a, a->across ? me->g.full_content_w : me->g.side_content_w);
    assets_scene_end(c->rc.assets);
    return h;
}

static double card_h(void *ctx, const ScreenResCard *k, size_t n)
{
    Measure *me = ctx;
    assets_scene_begin(me->c->rc.assets); /* one card's images */
    float h = scr_reservoir_card_h(me->c, k, n, me->w);
    assets_scene_end(me->c->rc.assets);
    return h;
}

static double res_h(void *ctx, size_t n, double h)
{
    Measure *me = ctx;
    return scr_reservoir_h(me->c, n, (float)h, me->w);
}

void screen_plan_build(ScreenPlan *p, const Study *st, Ui *ui, Assets *assets,
                       const UiStrings *strings)
{
    memset(p, 0, sizeof *p);
    p->w = ui->gfx->w;
    p->h = ui->gfx->h;
    p->u = ui->u;
    ScreenCtx sx;
    memset(&sx, 0, sizeof sx);
    sx.ui = ui;
    sx.assets = assets;
    sx.strings = strings;
    sx.study = st;
    Ctx c;
    memset(&c, 0, sizeof c);
    c.sx = &sx;
    c.ui = ui;
    c.th = &ui->th;
    c.rc.ui = ui;
    c.rc.assets = assets;
    c.rc.strings = strings;
    float W = (float)ui->gfx->w;
    Measure me;
    memset(&me, 0, sizeof me);
    me.c = &c;
    me.w = fminf(W - 2 * ui->margin, ui->u * 80); /* the content width */
    scr_item_geom(&c, me.w, &me.g);
    SlotMeasure sm = {&me,  prediction_view_h(&c, st), ui->u, area_h, card_h,
                      res_h};
    screen_slots_plan(&p->slots, st, strings, &sm);
}
