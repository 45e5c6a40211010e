/*
** The bodies of item screens (example, predict, counterfactual, rating)
** and of practice feedback, drawn from the screen model: the item cards
** with their pills, and the explanation area, which shows the explanation
** (behind a button when it is given on request, with a hint when its
** values show on hover) and is as big in every condition of a study (the
** slots, screens_plan.c).
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* -------------------------------------------------------------- item parts */

/* The pills under the item (true label, model output), wrapped to rows. */
static float pills(Ctx *c, Scene *sc, float x, float y, float w,
                   const ScreenCard *k)
{
    Ui *ui = c->ui;
    float xx = x, yy = y, row_h = 0;
    float gap = roundf(ui->u * 0.5f);
    for (size_t i = 0; i < k->n_pills; i++) {
        const ScreenPill *p = &k->pills[i];
        float ph;
        float pw =
            render_chip(&c->rc, NULL, 0, 0, p->label, p->value, 1, w, &ph);
        if (xx + pw > x + w && xx > x) {
            xx = x;
            yy += row_h + gap;
            row_h = 0;
        }
        if (!p->hidden) { /* a hidden one only keeps its place */
            render_chip(&c->rc, sc, mx(c, x, w, xx, pw), yy, p->label, p->value,
                        p->strong, w, NULL);
        }
        xx += pw + gap;
        row_h = fmaxf(row_h, ph);
    }
    return k->n_pills ? yy + row_h - y : 0;
}

static float item_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ScreenCard *k = arg;
    Ui *ui = c->ui;
    float yy = y;
    if (k->section) {
        yy += render_section_label(&c->rc, sc, x, yy, w, k->section);
        yy += roundf(ui->u * 0.5f);
    }
    yy += render_input(&c->rc, sc, &k->input, x, yy, w);
    yy += roundf(ui->u * 0.8f);
    float ph = pills(c, sc, x, yy, w, k);
    if (ph > 0) {
        yy += ph;
    } else if (yy > y) {
        yy -= roundf(ui->u * 0.8f);
    }
    return yy - y;
}

/* Notes that content was drawn down to y. */
static void content_to(Ctx *c, const Scene *sc, float y)
{
    if (sc && c->content_end >= 0 && y > c->content_end) {
        c->content_end = y;
    }
}

/* ------------------------------------------------------ explanation area */

typedef struct AreaArg {
    const ScreenArea *a;
    float area_h; /* the height kept for the content (0: its own) */
} AreaArg;

/* The show or hide button of an explanation given on request. */
static float reveal_button(Ctx *c, Scene *sc, float x, float y, float w,
                           const ScreenReveal *r, int show, float *bw_out)
{
    const char *label = show ? r->show_label : r->hide_label;
    float bh = roundf(c->ui->u * 2.4f);
    float bw = fminf(scr_button_width(c, label, r->key), w);
    if (bw_out) {
        *bw_out = bw;
    }
    if (sc) {
        scr_button(c, sc, x, y, bw, bh, label, r->key, ACT_REVEAL,
                   show ? r->show_value : r->hide_value, 1, show ? 1 : 3);
    }
    return bh;
}

static float area_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const AreaArg *aa = arg;
    const ScreenArea *a = aa->a;
    const ScreenExpl *nd = a->expl;
    const ScreenReveal *r = &a->reveal;
    Ui *ui = c->ui;
    float yy = y;
    if (a->section) {
        yy += render_section_label(&c->rc, sc, x, yy, w, a->section);
        yy += roundf(ui->u * 0.5f);
    }
    if (!strcmp(r->mode, "on_request")) {
        float bw;
        float bh = reveal_button(c, NULL, 0, 0, w, r, !r->shown, &bw);
        if (!r->shown) {
            /* the area keeps its size: the button in its middle */
            float by = yy + fmaxf(ui->u * 0.5f,
                                  floorf((aa->area_h - (yy - y) - bh) / 2));
            reveal_button(c, sc, mx(c, x, w, x + (w - bw) / 2, bw), by, w, r, 1,
                          NULL);
            return by + bh - y;
        }
        reveal_button(c, sc, mx(c, x, w, x, bw), yy, w, r, 0, NULL);
        yy += bh + roundf(ui->u * 0.6f);
        yy += render_explanation(&c->rc, sc, nd, x, yy, w);
        return yy - y;
    }
    RenderCtx rc = c->rc;
    if (r->hint) {
        yy += text_para(sc, ui->small, r->hint, x, yy, w, c->th->muted,
                        al(c, ALIGN_LEFT));
        yy += roundf(ui->u * 0.4f);
        rc.hover_mode = r->hides_values;
        rc.hover_target = r->hover;
    }
    yy += render_explanation(&rc, sc, nd, x, yy, w);
    return yy - y;
}

float scr_area_h(Ctx *c, const ScreenArea *a, float w)
{
    AreaArg aa = {a, 0};
    Ctx cc = *c;
    return a->expl ? area_content(&cc, NULL, 0, 0, w, &aa) : 0;
}

void scr_item_geom(const Ctx *c, float w, ItemGeom *g)
{
    float u = c->ui->u;
    float pad = roundf(u * 1.0f); /* scr_card's */
    g->gap = roundf(u * 1.2f);
    g->two_col = w >= u * 44;
    g->left_w = floorf((w - g->gap) * 0.42f);
    g->right_w = w - g->gap - g->left_w;
    g->side_content_w = g->right_w - 2 * pad;
    g->full_content_w = w - 2 * pad;
}

/* ------------------------------------------------------------- feedback */

static float body_feedback(Ctx *c, Scene *sc, float x, float y, float w)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    const ScreenFeedback *f = c->m->feedback;
    float yy = y;
    if (!f) {
        return 0;
    }
    int ok = f->correct;
    float pad = roundf(ui->u * 1.2f);
    float inner = w - 2 * pad;
    float hh = (float)ui->h1->line_h;
    float dh = text_marked(NULL, ui->body, ui->bold, f->detail, 0, 0, inner,
                           th->text, ALIGN_CENTER);
    float total = pad + hh + ui->u * 0.5f + dh + pad;
    if (sc) {
        scene_frame(sc, (SDL_FRect){x, yy, w, total}, ui->u * 0.6f, 2,
                    ok ? th->ok : th->bad, ok ? th->ok_bg : th->bad_bg);
        text_para(sc, ui->h1, f->head, x + pad, yy + pad, inner,
                  ok ? th->ok : th->bad, ALIGN_CENTER);
        text_marked(sc, ui->body, ui->bold, f->detail, x + pad,
                    yy + pad + hh + ui->u * 0.5f, inner, th->text,
                    ALIGN_CENTER);
    }
    yy += total;
    if (f->card) {
        yy += ui->u;
        yy += scr_card(c, sc, x, yy, w, item_content, f->card);
    }
    return yy - y;
}

float scr_body_feedback(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h)
{
    (void)view_h;
    return body_feedback(c, sc, x, y, w);
}

/* ----------------------------------------------------------- item screens */

/* The explanation area's card at (x, y), w wide, with room for content_h
** (the slots') at least; a kept area without an explanation is the empty
** frame's room only (nothing drawn). */
static float area_card(Ctx *c, Scene *sc, float x, float y, float w,
                       float content_h)
{
    float pad = roundf(c->ui->u * 1.0f);
    const ScreenArea *a = c->m->area;
    if (!a->expl) {
        return content_h + 2 * pad;
    }
    AreaArg aa = {a, content_h};
    float own = area_content(c, NULL, 0, 0, w - 2 * pad, &aa) + 2 * pad;
    content_to(c, sc, y + own); /* its content; not the room kept below */
    return scr_card_min(c, sc, x, y, w, content_h + 2 * pad, area_content, &aa);
}

/* The height kept for the area's content: the slots', else its own. */
static float area_room(Ctx *c, int across, const ItemGeom *g)
{
    const ScreenSlots *s = c->slots;
    if (s) {
        return (float)(across ? s->expl_full_h : s->expl_side_h);
    }
    return scr_area_h(c, c->tallest ? c->tallest : c->m->area,
                      across ? g->full_content_w : g->side_content_w);
}

/* The card of an input shown alone: not wider than its content needs. */
static float lone_width(Ctx *c, const ScreenCard *k, float w)
{
    Ui *ui = c->ui;
    float cw = w;
    const ItemInput *in = k->input.source;
    if (in->modality == MODALITY_TEXT || in->modality == MODALITY_TEXT_PAIR) {
        cw = fminf(w, ui->u * 40);
    } else if (in->modality == MODALITY_TABULAR) {
        cw = fminf(w, ui->u * 34);
    } else if (in->modality == MODALITY_IMAGE) {
        const Tex *t = assets_image(c->rc.assets, in->image_file);
        if (t->tex && t->h > 0) {
            float iw = c->rc.max_image_h * (float)t->w / (float)t->h;
            cw = fminf(w, fmaxf(iw + 2 * ui->u, ui->u * 22));
        }
    }
    return cw;
}

/* The original and the changed input side by side (or stacked), then the
** explanation of the original below. */
static float counterfactual_cards(Ctx *c, Scene *sc, float x, float y, float w,
                                  const ItemGeom *g)
{
    const ScreenModel *m = c->m;
    const ScreenCard *orig = &m->cards[0], *pert = &m->cards[1];
    float yy = y;
    if (g->two_col) {
        float cw = floorf((w - g->gap) / 2);
        float h1 = scr_card(c, NULL, x, yy, cw, item_content, orig);
        float h2 = scr_card(c, NULL, x, yy, cw, item_content, pert);
        scr_card(c, sc, mx(c, x, w, x, cw), yy, cw, item_content, orig);
        scr_card(c, sc, mx(c, x, w, x + cw + g->gap, cw), yy, cw, item_content,
                 pert);
        yy += fmaxf(h1, h2);
    } else {
        yy += scr_card(c, sc, x, yy, w, item_content, orig) + g->gap;
        yy += scr_card(c, sc, x, yy, w, item_content, pert);
    }
    content_to(c, sc, yy);
    if (m->area) {
        float area = area_room(c, 1, g);
        yy += g->gap;
        yy += area_card(c, sc, x, yy, w, area);
    }
    return yy - y;
}

/* The item and its explanation area beside it (or under it); or the item
** alone on a screen that keeps no explanation area. */
static float item_cards(Ctx *c, Scene *sc, float x, float y, float w,
                        const ItemGeom *g)
{
    const ScreenModel *m = c->m;
    const ScreenCard *k = &m->cards[0];
    float yy = y;
    if (!m->area) {
        float cw = lone_width(c, k, w);
        float h = scr_card(c, sc, x + (w - cw) / 2, yy, cw, item_content, k);
        content_to(c, sc, yy + h);
        return h;
    }
    if (g->two_col) {
        float area = area_room(c, 0, g);
        float h1 = scr_card(c, NULL, x, yy, g->left_w, item_content, k);
        float h2 = area_card(c, NULL, x, yy, g->right_w, area);
        scr_card(c, sc, mx(c, x, w, x, g->left_w), yy, g->left_w, item_content,
                 k);
        content_to(c, sc, yy + h1);
        area_card(c, sc, mx(c, x, w, x + g->left_w + g->gap, g->right_w), yy,
                  g->right_w, area);
        return fmaxf(h1, h2);
    }
    float area = area_room(c, 1, g);
    yy += scr_card(c, sc, x, yy, w, item_content, k) + g->gap;
    content_to(c, sc, yy - g->gap);
    yy += area_card(c, sc, x, yy, w, area);
    return yy - y;
}

/* Item screens: example, predict, counterfactual, rating. */
float scr_body_item(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    const ScreenModel *m = c->m;
    Ui *ui = c->ui;
    float yy = y;
    if (!m->n_cards) {
        return 0;
    }
    ItemGeom g;
    scr_item_geom(c, w, &g);
    const ScreenSlots *s = c->slots;
    int res_top = 0, res_below = 0;
    float card_h = s ? (float)s->res_card_h : 0;
    if (s) {
        c->rc.max_image_h = (float)s->max_image_h;
    }
    if (m->reservoir) {
        float rh = scr_reservoir(c, NULL, x, 0, w, card_h);
        res_top = s ? s->res_top : rh <= view_h * 0.55f;
        res_below = !res_top;
        if (res_top && !s) {
            /* The test input shares the view with the reservoir. */
            c->rc.max_image_h = fmaxf(
                fminf(c->rc.max_image_h, view_h - rh - ui->u * 5), ui->u * 6);
        }
    }
    if (res_top) {
        yy += scr_reservoir(c, sc, x, yy, w, card_h);
        content_to(c, sc, yy);
        yy += roundf(ui->u * 0.4f);
    }
    if (m->n_cards == 2) {
        yy += counterfactual_cards(c, sc, x, yy, w, &g);
    } else {
        yy += item_cards(c, sc, x, yy, w, &g);
    }
    if (res_below) {
        yy += g.gap;
        if (sc) {
            text_para(sc, ui->small, m->reservoir->note, x, yy, w, c->th->muted,
                      ALIGN_CENTER);
        }
        yy += (float)ui->small->line_h + g.gap;
        yy += scr_reservoir(c, sc, x, yy, w, card_h);
        content_to(c, sc, yy);
    }
    return yy - y;
}
