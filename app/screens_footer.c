/*
** The response bar at the bottom of participant screens: the question and
** class buttons of a forced choice, the deadline countdown, rating and
** confidence scales, Continue (with its reading-time countdown) and the
** scroll hint.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *class_key(const SessionView *v, size_t i, char *buf,
                             size_t n)
{
    if (v->classes && v->classes[i].key && *v->classes[i].key) {
        return v->classes[i].key;
    }
    snprintf(buf, n, "%d", (int)(i % 100) + 1);
    return buf;
}

/* When Continue becomes possible. Before the onset is marked the session
** has no time yet; the first frame then shows the full waiting time so
** that the screen does not change once the onset is known. */
static int64_t continue_after(const Ctx *c)
{
    const SessionView *v = c->v;
    if (v->continue_after_ns > 0) {
        return v->continue_after_ns;
    }
    if (!v->onset_marked && v->block && v->block->min_seconds > 0) {
        return c->sx->now_ns + (int64_t)v->block->min_seconds * 1000000000LL;
    }
    return 0;
}

static int continue_ready(const Ctx *c)
{
    const SessionView *v = c->v;
    int64_t after = continue_after(c);
    if (after > 0 && c->sx->now_ns < after) {
        return 0;
    }
    if (v->need_choice && v->choice < 0) {
        return 0;
    }
    if (v->need_rating && v->rating <= 0) {
        return 0;
    }
    if (v->confidence_spec && v->confidence <= 0) {
        return 0;
    }
    return !v->scroll_gate;
}

static void wait_label(const Ctx *c, const char *base, char *out, size_t n)
{
    int64_t after = continue_after(c);
    if (after > 0 && c->sx->now_ns < after) {
        int64_t left = (after - c->sx->now_ns + 999999999) / 1000000000;
        snprintf(out, n, ui_fmt(c->rc.strings, UI_CONTINUE_WAIT, "%s (%d s)"),
                 base, (int)left);
    } else {
        snprintf(out, n, "%s", base);
    }
}

/* ------------------------------------------------------------ the footer */

/* What a row of numbered points asks: the explanation's rating or the
** confidence in the choice. */
typedef struct Scale {
    const RatingSpec *spec;
    int selected; /* 0 none */
    int action;   /* ACT_RATE or ACT_CONFIDENCE */
    int enabled;
    UiKey question, low, high; /* texts the spec does not give */
} Scale;

static float likert(Ctx *c, Scene *sc, float x, float y, float w,
                    const Scale *k)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    const RatingSpec *rs = k->spec;
    int points = rs && rs->points >= 2 && rs->points <= 11 ? rs->points : 7;
    /* the study's own texts; the format's English defaults in the study's
    ** language */
    const char *q = rs && rs->question
                        ? ui_fmt(c->rc.strings, k->question, rs->question)
                        : tr(c, k->question);
    float yy = y;
    yy += text_para(sc, ui->bold, q, x, yy, w, th->text, ALIGN_CENTER);
    yy += roundf(ui->u * 0.5f);
    float d = roundf(ui->u * 2.3f);
    float gap = roundf(ui->u * 0.7f);
    const char *lo =
        rs && rs->low ? ui_fmt(c->rc.strings, k->low, rs->low) : tr(c, k->low);
    const char *hi = rs && rs->high ? ui_fmt(c->rc.strings, k->high, rs->high)
                                    : tr(c, k->high);
    float low = font_width(ui->small, lo, strlen(lo));
    float hiw = font_width(ui->small, hi, strlen(hi));
    float row = (float)points * d + (float)(points - 1) * gap;
    float side = fmaxf(low, hiw) + ui->u;
    float total = row + 2 * side;
    float x0 = x + (w - total) / 2 + side;
    if (total > w) {
        /* Labels go under the ends when the row is too wide. */
        x0 = x + (w - row) / 2;
    }
    /* Laid out from the start side: low label, points 1.. n, high label
    ** (mirrored: point 1 at the right). */
    if (sc) {
        if (total <= w) {
            scene_text(sc, ui->small, mx(c, x, w, x0 - ui->u * 0.6f - low, low),
                       yy + (d - (float)ui->small->line_h) / 2, lo, th->muted);
            scene_text(sc, ui->small, mx(c, x, w, x0 + row + ui->u * 0.6f, hiw),
                       yy + (d - (float)ui->small->line_h) / 2, hi, th->muted);
        }
        for (int i = 1; i <= points; i++) {
            float bx = mx(c, x, w, x0 + (float)(i - 1) * (d + gap), d);
            int sel = k->selected == i;
            scene_begin_hit(sc, (SDL_FRect){bx, yy, d, d}, k->action, i,
                            k->enabled);
            scene_circle(sc, bx + d / 2, yy + d / 2, d / 2,
                         sel ? th->selected : th->border);
            scene_circle(sc, bx + d / 2, yy + d / 2, d / 2 - 1.5f,
                         sel ? th->selected
                             : (k->enabled ? th->panel : th->disabled));
            scene_hover_last(sc, sel ? th->accent_hover : th->hover);
            char num[12];
            snprintf(num, sizeof num, "%d", i);
            float tw = font_width(ui->button, num, strlen(num));
            scene_text(sc, ui->button, bx + (d - tw) / 2,
                       yy + (d - (float)ui->button->line_h) / 2, num,
                       sel ? th->accent_text
                           : (k->enabled ? th->text : th->disabled_text));
            scene_end_hit(sc);
        }
    }
    yy += d;
    if (total > w) {
        yy += roundf(ui->u * 0.2f);
        if (sc) {
            scene_text(sc, ui->small, mx(c, x, w, x0, low), yy, lo, th->muted);
            scene_text(sc, ui->small, mx(c, x, w, x0 + row - hiw, hiw), yy, hi,
                       th->muted);
        }
        yy += (float)ui->small->line_h;
    }
    return yy - y;
}

/* The class buttons of a forced choice; returns the height. */
static float choices(Ctx *c, Scene *sc, float x, float y, float w)
{
    Ui *ui = c->ui;
    const SessionView *v = c->v;
    size_t n = v->n_classes;
    float gap = roundf(ui->u * 0.8f);
    float bh = roundf(ui->u * 3.0f);
    float bw = 0;
    char kb[8][16];
    for (size_t i = 0; i < n; i++) {
        const char *k = class_key(v, i, kb[i % 8], sizeof kb[0]);
        bw = fmaxf(bw, scr_button_width(c, v->classes[i].label, k));
    }
    bw = fmaxf(bw, ui->u * 11);
    size_t per_row = n;
    while (per_row > 1 &&
           (float)per_row * bw + (float)(per_row - 1) * gap > w) {
        per_row--;
    }
    float yy = y;
    for (size_t r = 0; r < n; r += per_row) {
        size_t m = n - r < per_row ? n - r : per_row;
        float row_w = (float)m * bw + (float)(m - 1) * gap;
        float xx = x + (w - row_w) / 2;
        for (size_t k = 0; k < m; k++) {
            size_t i = r + k;
            char buf[16];
            const char *key = class_key(v, i, buf, sizeof buf);
            int sel = v->choice == (int)i;
            scr_button(c, sc, mx(c, x, w, xx, bw), yy, bw, bh,
                       v->classes[i].label, key, ACT_CHOOSE, (int)i, 1,
                       sel ? 2 : 0);
            xx += bw + gap;
        }
        yy += bh + gap;
    }
    return yy - gap - y;
}

/* The seconds left to the answer deadline under the class buttons
** ("deadline_display": "countdown"); returns its height. Before the onset
** is known it shows the whole time, so the line does not jump. */
static float countdown(Ctx *c, Scene *sc, float x, float y, float w)
{
    const SessionView *v = c->v;
    const Block *b = v->block;
    if (!b || !b->deadline_countdown || b->time_limit_ms <= 0) {
        return 0;
    }
    int64_t left_ns = (int64_t)b->time_limit_ms * 1000000;
    if (v->deadline_ns > 0) {
        left_ns = v->deadline_ns - c->sx->now_ns;
    }
    int left = left_ns > 0 ? (int)((left_ns + 999999999) / 1000000000) : 0;
    if (v->choice >= 0) {
        return 0; /* answered: the deadline no longer counts */
    }
    char text[64];
    snprintf(text, sizeof text,
             ui_fmt(c->rc.strings, UI_DEADLINE_LEFT, "%d s left"), left);
    Ui *ui = c->ui;
    float gap = roundf(ui->u * 0.4f);
    return gap + text_para(sc, ui->small, text, x, y + gap, w, c->th->muted,
                           ALIGN_CENTER);
}

static float continue_row(Ctx *c, Scene *sc, float x, float y, float w,
                          const char *label, int with_decline)
{
    Ui *ui = c->ui;
    char lab[96];
    wait_label(c, label, lab, sizeof lab);
    float bh = roundf(ui->u * 2.8f);
    float bw = scr_button_width(c, lab, "Enter");
    int ready = continue_ready(c);
    if (with_decline) {
        const char *dl = tr(c, UI_CONSENT_DECLINE);
        float dw = scr_button_width(c, dl, NULL);
        float gap = ui->u;
        float total = dw + gap + bw;
        float x0 = x + (w - total) / 2;
        scr_button(c, sc, mx(c, x, w, x0, dw), y, dw, bh, dl, NULL, ACT_DECLINE,
                   0, 1, 3);
        scr_button(c, sc, mx(c, x, w, x0 + dw + gap, bw), y, bw, bh, lab,
                   "Enter", ACT_CONTINUE, 0, ready, 1);
    } else {
        /* at the end side: the right, or the left when mirrored */
        scr_button(c, sc, mx(c, x, w, x + w - bw, bw), y, bw, bh, lab, "Enter",
                   ACT_CONTINUE, 0, ready, 1);
    }
    return bh;
}

/* While the session holds Continue until the end was scrolled to: the hint
** above the Continue row; returns its height (0 without the gate). */
static float scroll_hint(Ctx *c, Scene *sc, float x, float y, float w)
{
    if (!c->v->scroll_gate) {
        return 0;
    }
    Ui *ui = c->ui;
    float h = text_para(sc, ui->bold, tr(c, UI_SCROLL_HINT), x, y, w,
                        c->th->accent, ALIGN_CENTER);
    return h + roundf(ui->u * 0.5f);
}

/* Builds the response bar at the bottom; returns its height. */
float scr_footer(Ctx *c, Scene *sc, float x, float y, float w)
{
    const SessionView *v = c->v;
    Ui *ui = c->ui;
    const Theme *th = c->th;
    float yy = y;
    float gap = roundf(ui->u * 0.9f);
    int any = 0;
    switch (v->screen) {
    case SCREEN_CONSENT:
        yy += scroll_hint(c, sc, x, yy, w);
        yy += continue_row(c, sc, x, yy, w, tr(c, UI_CONSENT_AGREE), 1);
        return yy - y;
    case SCREEN_PAGE:
    case SCREEN_BREAK:
    case SCREEN_QUESTIONNAIRE:
        yy += scroll_hint(c, sc, x, yy, w);
        yy += continue_row(c, sc, x, yy, w, tr(c, UI_CONTINUE), 0);
        return yy - y;
    case SCREEN_FEEDBACK:
        yy += continue_row(c, sc, x, yy, w,
                           v->feedback_final || v->feedback_correct
                               ? tr(c, UI_CONTINUE)
                               : tr(c, UI_TRY_AGAIN),
                           0);
        return yy - y;
    case SCREEN_QUIZ:
        return 0; /* options are in the body */
    case SCREEN_PREDICT:
    case SCREEN_COUNTERFACTUAL:
    case SCREEN_EXAMPLE:
    case SCREEN_RATING:
        break;
    default:
        return 0;
    }
    if (v->need_choice) {
        const char *q = v->screen == SCREEN_COUNTERFACTUAL
                            ? tr(c, UI_CF_QUESTION)
                            : tr(c, UI_PREDICT_QUESTION);
        yy += text_para(sc, ui->h2, q, x, yy, w, th->text, ALIGN_CENTER);
        yy += roundf(ui->u * 0.6f);
        yy += choices(c, sc, x, yy, w);
        yy += countdown(c, sc, x, yy, w);
        any = 1;
    }
    if (v->confidence_spec) {
        /* asked after the choice: shown from the start, enabled by it */
        yy += gap;
        Scale k = {v->confidence_spec,     v->confidence,
                   ACT_CONFIDENCE,         v->choice >= 0,
                   UI_CONFIDENCE_QUESTION, UI_CONFIDENCE_LOW,
                   UI_CONFIDENCE_HIGH};
        yy += likert(c, sc, x, yy, w, &k);
    }
    int need_cont = v->need_continue || (v->screen == SCREEN_EXAMPLE &&
                                         !v->need_choice && !v->need_rating);
    if (v->need_rating) {
        if (any) {
            yy += gap;
        }
        Scale k = {v->rating_spec,     v->rating,     ACT_RATE,      1,
                   UI_RATING_QUESTION, UI_RATING_LOW, UI_RATING_HIGH};
        float lh = likert(c, sc, x, yy, w, &k);
        yy += lh;
        any = 1;
        /* Continue shares the rating row when there is room beside it. */
        char lab[96];
        wait_label(c, tr(c, UI_CONTINUE), lab, sizeof lab);
        float bw = scr_button_width(c, lab, "Enter");
        if (need_cont && w >= ui->u * 40 + 2 * bw) {
            float bh = roundf(ui->u * 2.8f);
            continue_row(c, sc, x, yy - bh, w, tr(c, UI_CONTINUE), 0);
            need_cont = 0;
        }
    }
    if (need_cont) {
        if (any) {
            yy += gap * 0.6f;
        }
        yy += scroll_hint(c, sc, x, yy, w);
        yy += continue_row(c, sc, x, yy, w, tr(c, UI_CONTINUE), 0);
    }
    return yy - y;
}
