/*
** The bodies of item screens (example, predict, counterfactual, rating)
** and of practice feedback: the item cards with their chips, and the
** explanation area, which shows the explanation (behind a button when it
** is given on request, with a hint when its values show on hover) and is
** as big in every condition of a study (the plan, screens_plan.c).
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* -------------------------------------------------------------- item parts */

typedef struct ItemArg {
    const Item *item;
    int show_label, show_prediction;
    int perturbed;      /* show the counterfactual input */
    int unknown_output; /* "Model output: ?" */
    const char *section;
} ItemArg;

/* The chips under the item (true label, model output), wrapped to rows. */
static float pills(Ctx *c, Scene *sc, float x, float y, float w,
                   const ItemArg *a)
{
    Ui *ui = c->ui;
    float xx = x, yy = y, row_h = 0;
    float gap = roundf(ui->u * 0.5f);
    const Item *it = a->item;
    const char *labels[2], *values[2];
    int strong[2], n = 0;
    if (a->show_label && it->label >= 0 && !a->perturbed) {
        labels[n] = tr(c, UI_ITEM_TRUE_LABEL);
        values[n] = render_class_label(&c->rc, it->label);
        strong[n++] = 0;
    }
    if (a->unknown_output || (a->show_prediction && !a->perturbed)) {
        labels[n] = tr(c, UI_ITEM_MODEL_OUTPUT);
        values[n] = a->unknown_output
                        ? "?"
                        : render_class_label(&c->rc, it->prediction);
        strong[n++] = !a->unknown_output;
    }
    for (int i = 0; i < n; i++) {
        float ph;
        float pw =
            render_chip(&c->rc, NULL, 0, 0, labels[i], values[i], 1, w, &ph);
        if (xx + pw > x + w && xx > x) {
            xx = x;
            yy += row_h + gap;
            row_h = 0;
        }
        render_chip(&c->rc, sc, mx(c, x, w, xx, pw), yy, labels[i], values[i],
                    strong[i], w, NULL);
        xx += pw + gap;
        row_h = fmaxf(row_h, ph);
    }
    return n ? yy + row_h - y : 0;
}

static float item_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ItemArg *a = arg;
    Ui *ui = c->ui;
    const Item *it = a->item;
    float yy = y;
    if (a->section) {
        yy += render_section_label(&c->rc, sc, x, yy, w, a->section);
        yy += roundf(ui->u * 0.5f);
    }
    const ItemInput *in = &it->input;
    const Edit *edits = NULL;
    size_t n_edits = 0;
    if (a->perturbed && it->cf) {
        in = &it->cf->input;
        edits = it->cf->edits;
        n_edits = it->cf->n_edits;
    }
    yy += render_input(&c->rc, sc, in, edits, n_edits, x, yy, w);
    yy += roundf(ui->u * 0.8f);
    float ph = pills(c, sc, x, yy, w, a);
    if (ph > 0) {
        yy += ph;
    } else if (yy > y) {
        yy -= roundf(ui->u * 0.8f);
    }
    return yy - y;
}

/* ------------------------------------------------------ explanation area */

typedef struct ExplArg {
    const Explanation *e;
    const Item *item;
    const char *section;
    int tallest;  /* measure the tallest state (revealed) */
    float area_h; /* the height kept for the content (0: its own) */
} ExplArg;

/* The show or hide button of an explanation given on request. */
static float reveal_button(Ctx *c, Scene *sc, float x, float y, float w,
                           int show, float *bw_out)
{
    const char *label = tr(c, show ? UI_EXPL_SHOW : UI_EXPL_HIDE);
    const char *key =
        c->v->reveal_key ? c->v->reveal_key : tr(c, UI_EXPL_SHOW_KEY);
    float bh = roundf(c->ui->u * 2.4f);
    float bw = fminf(scr_button_width(c, label, key), w);
    if (bw_out) {
        *bw_out = bw;
    }
    if (sc) {
        scr_button(c, sc, x, y, bw, bh, label, key, ACT_REVEAL,
                   SESSION_REVEAL(-1, show), 1, show ? 1 : 3);
    }
    return bh;
}

static float expl_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ExplArg *a = arg;
    const Explanation *e = a->e;
    Ui *ui = c->ui;
    float yy = y;
    if (a->section) {
        yy += render_section_label(&c->rc, sc, x, yy, w, a->section);
        yy += roundf(ui->u * 0.5f);
    }
    const ItemInput *in = a->item ? &a->item->input : NULL;
    if (e->reveal == EXPL_REVEAL_ON_REQUEST) {
        int shown = a->tallest || c->v->revealed;
        float bw;
        float bh = reveal_button(c, NULL, 0, 0, w, !shown, &bw);
        if (!shown) {
            /* the area keeps its size: the button in its middle */
            float by = yy + fmaxf(ui->u * 0.5f,
                                  floorf((a->area_h - (yy - y) - bh) / 2));
            reveal_button(c, sc, mx(c, x, w, x + (w - bw) / 2, bw), by, w, 1,
                          NULL);
            return by + bh - y;
        }
        reveal_button(c, sc, mx(c, x, w, x, bw), yy, w, 0, NULL);
        yy += bh + roundf(ui->u * 0.6f);
        yy += render_explanation(&c->rc, sc, e, in, x, yy, w);
        return yy - y;
    }
    RenderCtx rc = c->rc;
    int next = 0;
    if (e->reveal == EXPL_REVEAL_HOVER) {
        yy += text_para(sc, ui->small, tr(c, UI_EXPL_HOVER_HINT), x, yy, w,
                        c->th->muted, al(c, ALIGN_LEFT));
        yy += roundf(ui->u * 0.4f);
        rc.hover_mode = !a->tallest;
        rc.hover_target = c->v->hover_target;
        rc.hover_next = &next;
    }
    yy += render_explanation(&rc, sc, e, in, x, yy, w);
    return yy - y;
}

float scr_expl_area_h(Ctx *c, const Explanation *e, const Item *item,
                      const char *section, float w)
{
    ExplArg a = {e, item, section, 1, 0};
    return e ? expl_content(c, NULL, 0, 0, w, &a) : 0;
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
    const SessionView *v = c->v;
    float yy = y;
    int ok = v->feedback_correct;
    const char *head =
        ok ? tr(c, UI_FEEDBACK_CORRECT) : tr(c, UI_FEEDBACK_WRONG);
    char detail[600] = "";
    if (v->question) {
        if (ok) {
            snprintf(detail, sizeof detail, "%s",
                     tr(c, UI_FEEDBACK_QUIZ_RIGHT));
        } else if (v->feedback_final && v->feedback_answer >= 0 &&
                   (size_t)v->feedback_answer < v->question->n_options) {
            snprintf(detail, sizeof detail,
                     ui_fmt(c->rc.strings, UI_FEEDBACK_QUIZ_ANSWER,
                            "The right answer is: **%s**"),
                     v->question->options[v->feedback_answer]);
        } else {
            snprintf(detail, sizeof detail, "%s",
                     tr(c, UI_FEEDBACK_QUIZ_AGAIN));
        }
    } else {
        if (ok) {
            snprintf(detail, sizeof detail,
                     ui_fmt(c->rc.strings, UI_FEEDBACK_MODEL_OUTPUT,
                            "The model's output was **%s**."),
                     render_class_label(&c->rc, v->feedback_answer));
        } else if (v->feedback_final) {
            snprintf(detail, sizeof detail,
                     ui_fmt(c->rc.strings, UI_FEEDBACK_MODEL_OUTPUT,
                            "The model's output was **%s**."),
                     render_class_label(&c->rc, v->feedback_answer));
        } else {
            snprintf(detail, sizeof detail, "%s",
                     tr(c, UI_FEEDBACK_MODEL_AGAIN));
        }
    }
    float pad = roundf(ui->u * 1.2f);
    float inner = w - 2 * pad;
    float hh = (float)ui->h1->line_h;
    float dh = text_marked(NULL, ui->body, ui->bold, detail, 0, 0, inner,
                           th->text, ALIGN_CENTER);
    float total = pad + hh + ui->u * 0.5f + dh + pad;
    if (sc) {
        scene_frame(sc, (SDL_FRect){x, yy, w, total}, ui->u * 0.6f, 2,
                    ok ? th->ok : th->bad, ok ? th->ok_bg : th->bad_bg);
        text_para(sc, ui->h1, head, x + pad, yy + pad, inner,
                  ok ? th->ok : th->bad, ALIGN_CENTER);
        text_marked(sc, ui->body, ui->bold, detail, x + pad,
                    yy + pad + hh + ui->u * 0.5f, inner, th->text,
                    ALIGN_CENTER);
    }
    yy += total;
    if (v->item && !v->question) {
        yy += ui->u;
        ItemArg a = {v->item, 0, 0, 0, 0, NULL};
        yy += scr_card(c, sc, x, yy, w, item_content, &a);
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

/* Whether the screen keeps an explanation area: its block shows the
** condition's explanation (whatever the condition: a condition without
** one keeps the area empty) and some condition of the study has one (with
** a plan), or there is one to show (without). Catch trials keep it (empty) too.
*/
static int keeps_explanation(const Ctx *c)
{
    const SessionView *v = c->v;
    if (c->plan && v->block) {
        /* a practice block's examples are explained when the condition
        ** has a method, whatever the block shows */
        int shows = v->block->show.explanation ||
                    (v->trial && v->trial->is_example && v->block->train_pool);
        return shows && c->plan->any_method;
    }
    return v->explanation != NULL;
}

/* The explanation card at (x, y), w wide, with room for content_h (the
** plan's) at least; nothing drawn without an explanation. */
static float expl_card(Ctx *c, Scene *sc, float x, float y, float w,
                       const char *section, float content_h)
{
    float pad = roundf(c->ui->u * 1.0f);
    const Explanation *e = c->v->explanation;
    if (!e) {
        return content_h + 2 * pad;
    }
    ExplArg a = {e, c->v->item, section, 0, content_h};
    return scr_card_min(c, sc, x, y, w, content_h + 2 * pad, expl_content, &a);
}

/* The card of an input shown alone: not wider than its content needs. */
static float lone_width(Ctx *c, const Item *it, float w)
{
    Ui *ui = c->ui;
    float cw = w;
    if (it->input.modality == MODALITY_TEXT ||
        it->input.modality == MODALITY_TEXT_PAIR) {
        cw = fminf(w, ui->u * 40);
    } else if (it->input.modality == MODALITY_TABULAR) {
        cw = fminf(w, ui->u * 34);
    } else if (it->input.modality == MODALITY_IMAGE) {
        const Tex *t = assets_image(c->rc.assets, it->input.image_file);
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
    const SessionView *v = c->v;
    const Item *it = v->item;
    float yy = y;
    ItemArg orig = {it, v->show_label,          v->show_prediction, 0,
                    0,  tr(c, UI_ITEM_ORIGINAL)};
    ItemArg pert = {.item = it,
                    .perturbed = !v->cf_unchanged,
                    .unknown_output = 1,
                    .section = tr(c, v->cf_unchanged ? UI_ITEM_UNCHANGED
                                                     : UI_ITEM_CHANGED)};
    if (g->two_col) {
        float cw = floorf((w - g->gap) / 2);
        float h1 = scr_card(c, NULL, x, yy, cw, item_content, &orig);
        float h2 = scr_card(c, NULL, x, yy, cw, item_content, &pert);
        scr_card(c, sc, mx(c, x, w, x, cw), yy, cw, item_content, &orig);
        scr_card(c, sc, mx(c, x, w, x + cw + g->gap, cw), yy, cw, item_content,
                 &pert);
        yy += fmaxf(h1, h2);
    } else {
        yy += scr_card(c, sc, x, yy, w, item_content, &orig) + g->gap;
        yy += scr_card(c, sc, x, yy, w, item_content, &pert);
    }
    if (keeps_explanation(c)) {
        const char *section = tr(c, UI_ITEM_EXPLANATION_ORIGINAL);
        float area = c->plan ? c->plan->expl_full_h
                             : scr_expl_area_h(c, v->explanation, it, section,
                                               g->full_content_w);
        yy += g->gap;
        yy += expl_card(c, sc, x, yy, w, section, area);
    }
    return yy - y;
}

/* The item and its explanation area beside it (or under it); or the item
** alone on a screen that keeps no explanation area. */
static float item_cards(Ctx *c, Scene *sc, float x, float y, float w,
                        const ItemGeom *g)
{
    const SessionView *v = c->v;
    const Item *it = v->item;
    float yy = y;
    int show_pred = v->show_prediction && v->screen != SCREEN_PREDICT;
    ItemArg ia = {it,        v->show_label && v->screen != SCREEN_PREDICT,
                  show_pred, 0,
                  0,         NULL};
    if (!keeps_explanation(c)) {
        float cw = lone_width(c, it, w);
        return scr_card(c, sc, x + (w - cw) / 2, yy, cw, item_content, &ia);
    }
    ia.section = tr(c, UI_ITEM_INPUT);
    const char *section = tr(c, UI_ITEM_EXPLANATION);
    if (g->two_col) {
        float area = c->plan ? c->plan->expl_side_h
                             : scr_expl_area_h(c, v->explanation, it, section,
                                               g->side_content_w);
        float h1 = scr_card(c, NULL, x, yy, g->left_w, item_content, &ia);
        float h2 = expl_card(c, NULL, x, yy, g->right_w, section, area);
        scr_card(c, sc, mx(c, x, w, x, g->left_w), yy, g->left_w, item_content,
                 &ia);
        expl_card(c, sc, mx(c, x, w, x + g->left_w + g->gap, g->right_w), yy,
                  g->right_w, section, area);
        return fmaxf(h1, h2);
    }
    float area = c->plan ? c->plan->expl_full_h
                         : scr_expl_area_h(c, v->explanation, it, section,
                                           g->full_content_w);
    yy += scr_card(c, sc, x, yy, w, item_content, &ia) + g->gap;
    yy += expl_card(c, sc, x, yy, w, section, area);
    return yy - y;
}

/* Item screens: example, predict, counterfactual, rating. */
float scr_body_item(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    const SessionView *v = c->v;
    Ui *ui = c->ui;
    float yy = y;
    if (!v->item) {
        return 0;
    }
    ItemGeom g;
    scr_item_geom(c, w, &g);
    const ScreenPlan *p = c->plan;
    int res_top = 0, res_below = 0;
    float card_h = p ? p->res_card_h : 0;
    if (p) {
        c->rc.max_image_h = p->max_image_h;
    }
    if (v->n_reservoir) {
        float rh = scr_reservoir(c, NULL, x, 0, w, card_h);
        res_top = p ? p->res_top : rh <= view_h * 0.55f;
        res_below = !res_top;
        if (res_top && !p) {
            /* The test input shares the view with the reservoir. */
            c->rc.max_image_h = fmaxf(
                fminf(c->rc.max_image_h, view_h - rh - ui->u * 5), ui->u * 6);
        }
    }
    if (res_top) {
        yy += scr_reservoir(c, sc, x, yy, w, card_h);
        yy += roundf(ui->u * 0.4f);
    }
    if (v->screen == SCREEN_COUNTERFACTUAL || v->ask_counterfactual) {
        yy += counterfactual_cards(c, sc, x, yy, w, &g);
    } else {
        yy += item_cards(c, sc, x, yy, w, &g);
    }
    if (res_below) {
        yy += g.gap;
        if (sc) {
            text_para(sc, ui->small, tr(c, UI_RESERVOIR_SCROLL), x, yy, w,
                      c->th->muted, ALIGN_CENTER);
        }
        yy += (float)ui->small->line_h + g.gap;
        yy += scr_reservoir(c, sc, x, yy, w, card_h);
    }
    return yy - y;
}
