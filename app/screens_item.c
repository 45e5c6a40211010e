/*
** The bodies of item screens (example, predict, counterfactual, rating)
** and of practice feedback: the item cards with their chips, the
** explanation card and the reservoir of the session's examples.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* -------------------------------------------------------------- item parts */

typedef struct ItemArg {
    const Item *item;
    const Explanation *expl;
    int show_label, show_prediction;
    int perturbed;      /* show the counterfactual input */
    int unknown_output; /* "Model output: ?" */
    const char *section;
    int with_input; /* draw the input (else only the explanation) */
} ItemArg;

static int heatmap_shows_image(const Explanation *e, const Item *item)
{
    if (!e || !item || item->input.modality != MODALITY_IMAGE) {
        return 0;
    }
    if (e->kind == EXPL_HEATMAP) {
        return 1;
    }
    if (e->kind == EXPL_COMPOSITE) {
        for (size_t i = 0; i < e->n_parts; i++) {
            if (e->parts[i].kind == EXPL_HEATMAP) {
                return 1;
            }
        }
    }
    return 0;
}

static float pills(Ctx *c, Scene *sc, float x, float y, float w,
                   const ItemArg *a)
{
    Ui *ui = c->ui;
    float xx = x, yy = y;
    float ph = render_pill_height(&c->rc);
    float gap = roundf(ui->u * 0.5f);
    const Item *it = a->item;
    int any = 0;
    if (a->show_label && it->label >= 0 && !a->perturbed) {
        float pw = render_pill(&c->rc, NULL, 0, 0, tr(c, UI_ITEM_TRUE_LABEL),
                               render_class_label(&c->rc, it->label), 0);
        render_pill(&c->rc, sc, mx(c, x, w, xx, pw), yy,
                    tr(c, UI_ITEM_TRUE_LABEL),
                    render_class_label(&c->rc, it->label), 0);
        xx += pw + gap;
        any = 1;
    }
    if (a->unknown_output || (a->show_prediction && !a->perturbed)) {
        const char *val = a->unknown_output
                              ? "?"
                              : render_class_label(&c->rc, it->prediction);
        float pw = render_pill(&c->rc, NULL, 0, 0, tr(c, UI_ITEM_MODEL_OUTPUT),
                               val, 1);
        if (xx + pw > x + w && xx > x) {
            xx = x;
            yy += ph + gap;
        }
        render_pill(&c->rc, sc, mx(c, x, w, xx, pw), yy,
                    tr(c, UI_ITEM_MODEL_OUTPUT), val, !a->unknown_output);
        any = 1;
    }
    return any ? yy + ph - y : 0;
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
    int embed = a->expl && heatmap_shows_image(a->expl, it);
    if (a->with_input && !embed) {
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
    }
    if (a->expl && embed) {
        yy += render_explanation(&c->rc, sc, a->expl, &it->input, x, yy, w);
        yy += roundf(ui->u * 0.8f);
    }
    float ph = pills(c, sc, x, yy, w, a);
    if (ph > 0) {
        yy += ph;
    } else if (yy > y) {
        yy -= roundf(ui->u * 0.8f);
    }
    return yy - y;
}

typedef struct ExplArg {
    const Explanation *e;
    const Item *item;
    const char *section;
} ExplArg;

static float expl_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const void *arg)
{
    const ExplArg *a = arg;
    float yy = y;
    if (a->section) {
        yy += render_section_label(&c->rc, sc, x, yy, w, a->section);
        yy += roundf(c->ui->u * 0.5f);
    }
    yy += render_explanation(&c->rc, sc, a->e, a->item ? &a->item->input : NULL,
                             x, yy, w);
    return yy - y;
}

/* ------------------------------------------------------------ reservoir */

typedef struct ResArg {
    const Item *item;
    const Explanation *e;
    int index;
} ResArg;

static float reservoir_card_content(Ctx *c, Scene *sc, float x, float y,
                                    float w, const void *arg)
{
    const ResArg *a = arg;
    Ui *ui = c->ui;
    float yy = y;
    int embed = a->e && heatmap_shows_image(a->e, a->item);
    int tokens =
        a->e && (a->e->kind == EXPL_TOKENS || a->e->kind == EXPL_TOKEN_PAIRS ||
                 a->e->kind == EXPL_SPAN_PAIRS);
    if (!embed && !tokens) {
        yy += render_input(&c->rc, sc, &a->item->input, NULL, 0, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    if (a->e) {
        yy += render_explanation(&c->rc, sc, a->e, &a->item->input, x, yy, w);
        yy += roundf(ui->u * 0.5f);
    }
    float pw = render_pill(&c->rc, NULL, 0, 0, tr(c, UI_ITEM_MODEL),
                           render_class_label(&c->rc, a->item->prediction), 1);
    render_pill(&c->rc, sc, x + fmaxf(0, (w - pw) / 2), yy,
                tr(c, UI_ITEM_MODEL),
                render_class_label(&c->rc, a->item->prediction), 1);
    yy += render_pill_height(&c->rc);
    return yy - y;
}

/* Derives a smaller look for reservoir cards. */
static void ui_scaled(Ui *out, const Ui *base, float f)
{
    *out = *base;
    out->font_scale = base->font_scale * f;
    ui_update_metrics(out);
}

/* The most reservoir cards in one row (more rows follow, the page
** scrolls). */
#define RES_MAX_COLS 16

static float reservoir(Ctx *c, Scene *sc, float x, float y, float w)
{
    const SessionView *v = c->v;
    Ui small;
    ui_scaled(&small, c->ui, 0.72f);
    Ctx cc = *c;
    cc.ui = &small;
    cc.rc.ui = &small;
    cc.rc.compact = 1;
    float gap = roundf(c->ui->u * 0.6f);
    size_t n = v->n_reservoir;
    int images = n && v->reservoir[0]->input.modality == MODALITY_IMAGE;
    float min_card = small.u * (images ? 9 : 16);
    size_t cols = n < RES_MAX_COLS ? n : RES_MAX_COLS;
    while (cols > 1 && (w - gap * (float)(cols - 1)) / (float)cols < min_card) {
        cols--;
    }
    float cw = floorf((w - gap * (float)(cols - 1)) / (float)cols);
    if (images) {
        cw = fminf(cw, small.u * 20);
    }
    float row_x =
        x + floorf((w - (cw * (float)cols + gap * (float)(cols - 1))) / 2);
    cc.rc.max_image_h = images ? fminf(cw * 0.9f, (float)c->ui->gfx->h * 0.2f)
                               : (float)c->ui->gfx->h * 0.15f;
    float yy = y;
    yy += render_section_label(&c->rc, sc, x, yy, w, tr(c, UI_RESERVOIR_TITLE));
    yy += roundf(c->ui->u * 0.4f);
    for (size_t r = 0; r < n; r += cols) {
        float row_h = 0;
        ResArg args[RES_MAX_COLS];
        for (size_t k = 0; k < cols && r + k < n; k++) {
            args[k] = (ResArg){v->reservoir[r + k], v->reservoir_expl[r + k],
                               (int)(r + k)};
            row_h = fmaxf(row_h, scr_card(&cc, NULL, 0, 0, cw,
                                          reservoir_card_content, &args[k]));
        }
        for (size_t k = 0; k < cols && r + k < n && sc; k++) {
            float xx = mx(c, x, w, row_x + (float)k * (cw + gap), cw);
            scene_frame(sc, (SDL_FRect){xx, yy, cw, row_h}, small.u * 0.5f, 1,
                        c->th->border, c->th->panel);
            float pad = roundf(small.u);
            reservoir_card_content(&cc, sc, xx + pad, yy + pad, cw - 2 * pad,
                                   &args[k]);
        }
        yy += row_h + gap;
    }
    return yy - y;
}

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
        ItemArg a = {v->item, NULL, 0, 0, 0, 0, NULL, 1};
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

/* Item screens: example, predict, counterfactual, rating. */
float scr_body_item(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    const SessionView *v = c->v;
    Ui *ui = c->ui;
    const Item *it = v->item;
    float yy = y;
    float gap = roundf(ui->u * 1.2f);
    if (!it) {
        return 0;
    }
    const Explanation *e = v->explanation;
    int res_top = 0, res_below = 0;
    if (v->n_reservoir) {
        float rh = reservoir(c, NULL, x, 0, w);
        if (rh <= view_h * 0.55f) {
            res_top = 1;
            /* The test input shares the view with the reservoir. */
            c->rc.max_image_h = fmaxf(
                fminf(c->rc.max_image_h, view_h - rh - ui->u * 5), ui->u * 6);
        } else {
            res_below = 1;
        }
    }
    if (res_top) {
        yy += reservoir(c, sc, x, yy, w);
        yy += roundf(ui->u * 0.4f);
    }
    int two_col = w >= ui->u * 44;
    if (v->screen == SCREEN_COUNTERFACTUAL || v->ask_counterfactual) {
        ItemArg orig = {it, NULL, v->show_label,           v->show_prediction,
                        0,  0,    tr(c, UI_ITEM_ORIGINAL), 1};
        ItemArg pert = {.item = it,
                        .perturbed = !v->cf_unchanged,
                        .unknown_output = 1,
                        .section = tr(c, v->cf_unchanged ? UI_ITEM_UNCHANGED
                                                         : UI_ITEM_CHANGED),
                        .with_input = 1};
        if (two_col) {
            float cw = floorf((w - gap) / 2);
            float h1 = scr_card(c, NULL, x, yy, cw, item_content, &orig);
            float h2 = scr_card(c, NULL, x, yy, cw, item_content, &pert);
            scr_card(c, sc, mx(c, x, w, x, cw), yy, cw, item_content, &orig);
            scr_card(c, sc, mx(c, x, w, x + cw + gap, cw), yy, cw, item_content,
                     &pert);
            yy += fmaxf(h1, h2);
        } else {
            yy += scr_card(c, sc, x, yy, w, item_content, &orig) + gap;
            yy += scr_card(c, sc, x, yy, w, item_content, &pert);
        }
        if (e) {
            yy += gap;
            ExplArg ea = {e, it, tr(c, UI_ITEM_EXPLANATION_ORIGINAL)};
            yy += scr_card(c, sc, x, yy, w, expl_content, &ea);
        }
    } else {
        int show_pred = v->show_prediction && v->screen != SCREEN_PREDICT;
        ItemArg ia = {
            it,        e, v->show_label && v->screen != SCREEN_PREDICT,
            show_pred, 0, 0,
            NULL,      1};
        int embed = e && heatmap_shows_image(e, it);
        if (e && !embed && two_col) {
            ia.expl = NULL;
            ia.section = tr(c, UI_ITEM_INPUT);
            float lw = floorf((w - gap) * 0.42f);
            float rw = w - gap - lw;
            ExplArg ea = {e, it, tr(c, UI_ITEM_EXPLANATION)};
            float h1 = scr_card(c, NULL, x, yy, lw, item_content, &ia);
            float h2 = scr_card(c, NULL, x, yy, rw, expl_content, &ea);
            scr_card(c, sc, mx(c, x, w, x, lw), yy, lw, item_content, &ia);
            scr_card(c, sc, mx(c, x, w, x + lw + gap, rw), yy, rw, expl_content,
                     &ea);
            yy += fmaxf(h1, h2);
        } else if (e && !embed) {
            ia.expl = NULL;
            ia.section = tr(c, UI_ITEM_INPUT);
            ExplArg ea = {e, it, tr(c, UI_ITEM_EXPLANATION)};
            yy += scr_card(c, sc, x, yy, w, item_content, &ia) + gap;
            yy += scr_card(c, sc, x, yy, w, expl_content, &ea);
        } else {
            /* Input alone (or an image with its heatmap): one card, not
            ** wider than its content needs. */
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
                    if (embed && e->kind == EXPL_HEATMAP && e->side_by_side) {
                        iw = iw * 2 + ui->u;
                    }
                    cw = fminf(w, fmaxf(iw + 2 * ui->u, ui->u * 22));
                }
            }
            yy += scr_card(c, sc, x + (w - cw) / 2, yy, cw, item_content, &ia);
        }
    }
    if (res_below) {
        yy += gap;
        if (sc) {
            text_para(sc, ui->small, tr(c, UI_RESERVOIR_SCROLL), x, yy, w,
                      c->th->muted, ALIGN_CENTER);
        }
        yy += (float)ui->small->line_h + gap;
        yy += reservoir(c, sc, x, yy, w);
    }
    return yy - y;
}
