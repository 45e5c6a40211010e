/*
** The questionnaire screen's body (qscreen.h). Every length derives from
** ui->u like the other screens; hit regions carry ACT_PICK (a choice or a
** likert point) and ACT_FIELD (a number or text field to type in).
*/
#include "app/qscreen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stimuli/questionnaire.h"

typedef struct Q {
    const RenderCtx *rc;
    Ui *ui;
    const Theme *th;
    const ScreenQuestionnaire *qs;
} Q;

/* Mirrored layout (right-to-left study): see render_mx, render_align. */
static float mx(const Q *q, float cx, float cw, float x, float w)
{
    return render_mx(q->rc, cx, cw, x, w);
}

static int al(const Q *q, int align)
{
    return render_align(q->rc, align);
}

static const char *answer(const Q *q, size_t i)
{
    return q->qs->questions[i].answer;
}

/* A field's text with a caret at its end when focused. */
static float field_text(const Q *q, Scene *sc, const char *text, int focused,
                        float x, float y, float w)
{
    Ui *ui = q->ui;
    Span spans[2] = {
        {text, strlen(text), ui->body, q->th->text, {0, 0, 0, 0}, 0},
        {"|", 1, ui->body, q->th->accent, {0, 0, 0, 0}, 0},
    };
    size_t n = focused ? 2 : 1;
    if (!text[0] && !focused) {
        return (float)ui->body->line_h;
    }
    if (!text[0]) {
        return text_flow(sc, spans + 1, 1, x, y, w, 1.2f, al(q, ALIGN_LEFT),
                         NULL);
    }
    return text_flow(sc, spans, n, x, y, w, 1.2f, al(q, ALIGN_LEFT), NULL);
}

/* A number or text field: a framed box that takes the focus when clicked.
** Text fields are at least four lines high and grow with their text. */
static float field(const Q *q, Scene *sc, size_t i, float x, float y, float w)
{
    Ui *ui = q->ui;
    const Theme *th = q->th;
    const SurveyQuestion *sq = q->qs->questions[i].question;
    int focused = q->qs->focus == (int)i;
    int multi = sq->type == QTYPE_TEXT;
    float pad = roundf(ui->u * 0.6f);
    float fw = multi ? w : fminf(w, roundf(ui->u * 12));
    float th_ = field_text(q, NULL, answer(q, i), focused, 0, 0, fw - 2 * pad);
    float min_h = (float)ui->body->line_h * (multi ? 4.0f : 1.0f);
    float fh = fmaxf(th_, min_h) + 2 * pad;
    x = mx(q, x, w, x, fw); /* a narrow field sits at the start side */
    if (sc) {
        scene_begin_hit(sc, (SDL_FRect){x, y, fw, fh}, ACT_FIELD, (int)i, 1);
        scene_frame(sc, (SDL_FRect){x, y, fw, fh}, ui->u * 0.35f,
                    focused ? 2.0f : 1.0f, focused ? th->accent : th->border,
                    th->panel);
        scene_hover_last(sc, th->hover);
        field_text(q, sc, answer(q, i), focused, x + pad, y + pad,
                   fw - 2 * pad);
        scene_end_hit(sc);
    }
    float yy = y + fh;
    char hint[128] = "";
    if (q->qs->questions[i].range) {
        snprintf(hint, sizeof hint, "%s", q->qs->questions[i].range);
    } else if (multi) {
        snprintf(hint, sizeof hint, "%zu / %d",
                 questionnaire_utf8_len(answer(q, i)), sq->max_length);
    }
    if (hint[0]) {
        yy += roundf(ui->u * 0.2f);
        yy += text_para(sc, ui->small, hint, x, yy, fw, th->muted,
                        al(q, multi ? ALIGN_RIGHT : ALIGN_LEFT));
    }
    return yy - y;
}

/* Choice: one radio button per option, stacked. */
static float radios(const Q *q, Scene *sc, size_t i, float x, float y, float w)
{
    Ui *ui = q->ui;
    const Theme *th = q->th;
    const SurveyQuestion *sq = q->qs->questions[i].question;
    float d = roundf(ui->u * 1.3f);
    float pad = roundf(ui->u * 0.45f);
    float yy = y;
    for (size_t k = 0; k < sq->n_options; k++) {
        int sel = strcmp(answer(q, i), sq->options[k]) == 0;
        float tx = x + pad + d + pad;
        float tw = w - (tx - x) - pad;
        float lh = text_para(NULL, ui->body, sq->options[k], 0, 0, tw, th->text,
                             ALIGN_LEFT);
        float bh = fmaxf(lh, d) + 2 * pad;
        if (sc) {
            scene_begin_hit(sc, (SDL_FRect){x, yy, w, bh}, ACT_PICK,
                            (int)(i * 256 + k), 1);
            scene_rrect(sc, (SDL_FRect){x, yy, w, bh}, ui->u * 0.35f,
                        (SDL_Color){0, 0, 0, 0});
            scene_hover_last(sc, th->hover);
            /* the circle before its label, from the start side */
            float cx = mx(q, x, w, x + pad, d) + d / 2, cy = yy + bh / 2;
            scene_circle(sc, cx, cy, d / 2, sel ? th->selected : th->border);
            scene_circle(sc, cx, cy, d / 2 - 1.5f, th->panel);
            if (sel) {
                scene_circle(sc, cx, cy, d / 2 - d * 0.22f, th->selected);
            }
            text_para(sc, ui->body, sq->options[k], mx(q, x, w, tx, tw),
                      yy + (bh - lh) / 2, tw, th->text, al(q, ALIGN_LEFT));
            scene_end_hit(sc);
        }
        yy += bh;
    }
    return yy - y;
}

/* Likert: numbered round buttons in a row, the low and high labels at its
** ends (under them when the row is too wide). */
static float points_row(const Q *q, Scene *sc, size_t i, float x, float y,
                        float w)
{
    Ui *ui = q->ui;
    const Theme *th = q->th;
    const SurveyQuestion *sq = q->qs->questions[i].question;
    int points = sq->points;
    int chosen = 0;
    sscanf(answer(q, i), "%d", &chosen);
    float d = roundf(ui->u * 2.3f);
    float gap = roundf(ui->u * 0.6f);
    while (gap > 2 && (float)points * d + (float)(points - 1) * gap > w) {
        d = fmaxf(d - 2, ui->u * 1.4f);
        gap -= 1;
    }
    const char *lo = sq->low ? sq->low : "";
    const char *hi = sq->high ? sq->high : "";
    float low = font_width(ui->small, lo, strlen(lo));
    float hiw = font_width(ui->small, hi, strlen(hi));
    float row = (float)points * d + (float)(points - 1) * gap;
    float side = fmaxf(low, hiw) + ui->u;
    int beside = row + 2 * side <= w;
    float x0 = beside ? x + side : x;
    float yy = y;
    /* from the start side: low label, 1 .. points, high label */
    if (sc) {
        if (beside) {
            float ty = yy + (d - (float)ui->small->line_h) / 2;
            scene_text(sc, ui->small, mx(q, x, w, x0 - ui->u * 0.6f - low, low),
                       ty, lo, th->muted);
            scene_text(sc, ui->small, mx(q, x, w, x0 + row + ui->u * 0.6f, hiw),
                       ty, hi, th->muted);
        }
        for (int p = 1; p <= points; p++) {
            float bx = mx(q, x, w, x0 + (float)(p - 1) * (d + gap), d);
            int sel = chosen == p;
            scene_begin_hit(sc, (SDL_FRect){bx, yy, d, d}, ACT_PICK,
                            (int)i * 256 + p, 1);
            scene_circle(sc, bx + d / 2, yy + d / 2, d / 2,
                         sel ? th->selected : th->border);
            scene_circle(sc, bx + d / 2, yy + d / 2, d / 2 - 1.5f,
                         sel ? th->selected : th->panel);
            scene_hover_last(sc, sel ? th->accent_hover : th->hover);
            char num[12];
            snprintf(num, sizeof num, "%d", p);
            float tw = font_width(ui->button, num, strlen(num));
            scene_text(sc, ui->button, bx + (d - tw) / 2,
                       yy + (d - (float)ui->button->line_h) / 2, num,
                       sel ? th->accent_text : th->text);
            scene_end_hit(sc);
        }
    }
    yy += d;
    if (!beside && (lo[0] || hi[0])) {
        yy += roundf(ui->u * 0.2f);
        if (sc) {
            scene_text(sc, ui->small, mx(q, x, w, x0, low), yy, lo, th->muted);
            scene_text(sc, ui->small, mx(q, x, w, x0 + row - hiw, hiw), yy, hi,
                       th->muted);
        }
        yy += (float)ui->small->line_h;
    }
    return yy - y;
}

/* One question: its text, "(optional)" when it may be skipped, its input,
** then why its answer is not valid or, after a refused Continue, that it
** is missing. */
static float question(const Q *q, Scene *sc, size_t i, float x, float y,
                      float w)
{
    Ui *ui = q->ui;
    const Theme *th = q->th;
    const SurveyQuestion *sq = q->qs->questions[i].question;
    float yy = y;
    yy += text_marked(sc, ui->h2, ui->h2, sq->text ? sq->text : "", x, yy, w,
                      th->text, al(q, ALIGN_LEFT));
    const ScreenQuestion *mq = &q->qs->questions[i];
    if (mq->optional) {
        yy += text_para(sc, ui->small, mq->optional, x, yy, w, th->muted,
                        al(q, ALIGN_LEFT));
    }
    yy += roundf(ui->u * 0.6f);
    switch (sq->type) {
    case QTYPE_NUMBER:
    case QTYPE_TEXT:
        yy += field(q, sc, i, x, yy, w);
        break;
    case QTYPE_CHOICE:
        yy += radios(q, sc, i, x, yy, w);
        break;
    case QTYPE_LIKERT:
        yy += points_row(q, sc, i, x, yy, w);
        break;
    }
    const char *why = mq->problem;
    if (why) {
        yy += roundf(ui->u * 0.3f);
        yy += text_para(sc, ui->small_bold, why, x, yy, w, th->bad,
                        al(q, ALIGN_LEFT));
    }
    return yy - y;
}

float qscreen_body(const RenderCtx *rc, const ScreenQuestionnaire *qs,
                   Scene *sc, float x, float y, float w)
{
    Q q = {rc, rc->ui, &rc->ui->th, qs};
    if (!qs) {
        return 0;
    }
    float yy = y;
    float gap = roundf(q.ui->u * 1.8f);
    if (qs->intro) {
        /* the block's "text": an introduction above the questions */
        yy += text_marked(sc, q.ui->body, q.ui->bold, qs->intro, x, yy, w,
                          q.th->text, al(&q, ALIGN_LEFT));
        yy += gap;
    }
    for (size_t i = 0; i < qs->n_questions; i++) {
        if (i > 0) {
            yy += gap;
            if (sc) {
                scene_rect(sc, (SDL_FRect){x, yy - gap / 2, w, 1}, q.th->faint);
            }
        }
        yy += question(&q, sc, i, x, yy, w);
    }
    return yy - y;
}
