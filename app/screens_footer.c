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

/* When Continue may be pressed: the model's time, or before the onset is
** known the whole reading time from now, so that the first frame shows
** it and the screen does not change once the onset is known. */
static int64_t continue_at(const Ctx *c)
{
    const ScreenContinue *k = c->m->cont;
    if (!k) {
        return 0;
    }
    if (k->at_ns > 0) {
        return k->at_ns;
    }
    return k->wait_ns > 0 ? c->sx->now_ns + k->wait_ns : 0;
}

static int continue_enabled(const Ctx *c)
{
    const ScreenContinue *k = c->m->cont;
    int64_t at = continue_at(c);
    return k && k->ready && !(at > 0 && c->sx->now_ns < at);
}

static void wait_label(const Ctx *c, const char *base, char *out, size_t n)
{
    const ScreenContinue *k = c->m->cont;
    int64_t at = continue_at(c);
    if (k && at > 0 && c->sx->now_ns < at) {
        int64_t left = (at - c->sx->now_ns + 999999999) / 1000000000;
        screen_fill(k->wait_format, base, (int)left, out, n);
    } else {
        snprintf(out, n, "%s", base);
    }
}

/* ------------------------------------------------------------ the footer */

/* A row of numbered points: the explanation's rating or the confidence in
** the choice, as the model words them. */
static float likert(Ctx *c, Scene *sc, float x, float y, float w,
                    const ScreenScale *k, int action)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    int points = k->points;
    float yy = y;
    yy +=
        text_para(sc, ui->bold, k->question, x, yy, w, th->text, ALIGN_CENTER);
    yy += roundf(ui->u * 0.5f);
    float d = roundf(ui->u * 2.3f);
    float gap = roundf(ui->u * 0.7f);
    const char *lo = k->low, *hi = k->high;
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
            int sel = k->value == i;
            scene_begin_hit(sc, (SDL_FRect){bx, yy, d, d}, action, i,
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
    const ScreenChoice *ch = c->m->choice;
    size_t n = ch->n_options;
    float gap = roundf(ui->u * 0.8f);
    float bh = roundf(ui->u * 3.0f);
    float bw = 0;
    for (size_t i = 0; i < n; i++) {
        bw = fmaxf(
            bw, scr_button_width(c, ch->options[i].label, ch->options[i].key));
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
            int sel = ch->value == (int)i;
            scr_button(c, sc, mx(c, x, w, xx, bw), yy, bw, bh,
                       ch->options[i].label, ch->options[i].key, ACT_CHOOSE,
                       (int)i, 1, sel ? 2 : 0);
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
    const ScreenDeadline *d = c->m->deadline;
    if (!d || !d->countdown || c->m->choice->value >= 0) {
        return 0; /* answered: the deadline no longer counts */
    }
    int64_t left_ns = d->limit_ns;
    if (d->at_ns > 0) {
        left_ns = d->at_ns - c->sx->now_ns;
    }
    int left = left_ns > 0 ? (int)((left_ns + 999999999) / 1000000000) : 0;
    char text[64];
    screen_fill(d->format, NULL, left, text, sizeof text);
    Ui *ui = c->ui;
    float gap = roundf(ui->u * 0.4f);
    return gap + text_para(sc, ui->small, text, x, y + gap, w, c->th->muted,
                           ALIGN_CENTER);
}

static float continue_row(Ctx *c, Scene *sc, float x, float y, float w)
{
    Ui *ui = c->ui;
    const ScreenContinue *k = c->m->cont;
    char lab[96];
    wait_label(c, k->label, lab, sizeof lab);
    float bh = roundf(ui->u * 2.8f);
    float bw = scr_button_width(c, lab, k->key);
    int ready = continue_enabled(c);
    if (k->decline) {
        const char *dl = k->decline;
        float dw = scr_button_width(c, dl, NULL);
        float gap = ui->u;
        float total = dw + gap + bw;
        float x0 = x + (w - total) / 2;
        scr_button(c, sc, mx(c, x, w, x0, dw), y, dw, bh, dl, NULL, ACT_DECLINE,
                   0, 1, 3);
        scr_button(c, sc, mx(c, x, w, x0 + dw + gap, bw), y, bw, bh, lab,
                   k->key, ACT_CONTINUE, 0, ready, 1);
    } else {
        /* at the end side: the right, or the left when mirrored */
        scr_button(c, sc, mx(c, x, w, x + w - bw, bw), y, bw, bh, lab, k->key,
                   ACT_CONTINUE, 0, ready, 1);
    }
    return bh;
}

/* While the session holds Continue until the end was scrolled to: the hint
** above the Continue row; returns its height (0 without the gate). */
static float scroll_hint(Ctx *c, Scene *sc, float x, float y, float w)
{
    const ScreenContinue *k = c->m->cont;
    if (!k || !k->scroll_hint) {
        return 0;
    }
    Ui *ui = c->ui;
    float h = text_para(sc, ui->bold, k->scroll_hint, x, y, w, c->th->accent,
                        ALIGN_CENTER);
    return h + roundf(ui->u * 0.5f);
}

/* Builds the response bar at the bottom; returns its height. */
float scr_footer(Ctx *c, Scene *sc, float x, float y, float w)
{
    const ScreenModel *m = c->m;
    Ui *ui = c->ui;
    const Theme *th = c->th;
    float yy = y;
    float gap = roundf(ui->u * 0.9f);
    int any = 0;
    if (m->body_kind != BODY_ITEM) {
        /* pages, breaks, questionnaires, feedback: Continue (and the
        ** scroll hint) alone; a quiz's options are in its body */
        if (!m->cont) {
            return 0;
        }
        yy += scroll_hint(c, sc, x, yy, w);
        yy += continue_row(c, sc, x, yy, w);
        return yy - y;
    }
    if (m->choice) {
        yy += text_para(sc, ui->h2, m->choice->question, x, yy, w, th->text,
                        ALIGN_CENTER);
        yy += roundf(ui->u * 0.6f);
        yy += choices(c, sc, x, yy, w);
        yy += countdown(c, sc, x, yy, w);
        any = 1;
    }
    if (m->confidence) {
        /* asked after the choice: shown from the start, enabled by it */
        yy += gap;
        yy += likert(c, sc, x, yy, w, m->confidence, ACT_CONFIDENCE);
    }
    int need_cont = m->cont != NULL;
    if (m->rating) {
        if (any) {
            yy += gap;
        }
        float lh = likert(c, sc, x, yy, w, m->rating, ACT_RATE);
        yy += lh;
        any = 1;
        /* Continue shares the rating row when there is room beside it. */
        if (need_cont) {
            char lab[96];
            wait_label(c, m->cont->label, lab, sizeof lab);
            float bw = scr_button_width(c, lab, m->cont->key);
            if (w >= ui->u * 40 + 2 * bw) {
                float bh = roundf(ui->u * 2.8f);
                continue_row(c, sc, x, yy - bh, w);
                need_cont = 0;
            }
        }
    }
    if (need_cont) {
        if (any) {
            yy += gap * 0.6f;
        }
        yy += scroll_hint(c, sc, x, yy, w);
        yy += continue_row(c, sc, x, yy, w);
    }
    return yy - y;
}
