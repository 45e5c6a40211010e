/*
** The bodies of page screens: consent, instruction and debrief pages laid
** out from the page model (stimuli/page.h), the quiz, breaks, timeouts and
** message-only screens.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "stimuli/page.h"

/* ------------------------------------------------------------------ pages */

/* A paragraph or list item: its runs in the body font, its bold face and
** its oblique face (*emphasis*; CJK and Arabic glyphs slanted, gfx.c). */
static float page_runs(Ctx *c, Scene *sc, const PageBlock *b, float x, float y,
                       float w)
{
    Ui *ui = c->ui;
    if (b->n_spans == 0) {
        return 0;
    }
    Span *spans = sim_malloc(b->n_spans * sizeof *spans);
    if (!spans) {
        scene_set_oom(sc);
        return 0;
    }
    for (size_t i = 0; i < b->n_spans; i++) {
        const PageSpan *ps = &b->spans[i];
        Font *f = ps->strong ? ui->bold : ps->em ? ui->italic : ui->body;
        spans[i] = (Span){b->text + ps->start, ps->len,      f,
                          c->th->text,         {0, 0, 0, 0}, 0};
    }
    float h = text_flow(sc, spans, b->n_spans, x, y, w, 1.3f, al(c, ALIGN_LEFT),
                        NULL);
    sim_free(spans);
    return h;
}

/* A list item: bullet or number in the margin, then its text. */
static float page_item(Ctx *c, Scene *sc, const PageBlock *b, float x, float y,
                       float w)
{
    Ui *ui = c->ui;
    float ind = roundf(ui->u * 1.4f);
    if (sc) {
        if (b->kind == PAGE_BULLET) {
            /* a point mirrors as a box 0 wide */
            scene_circle(sc, mx(c, x, w, x + ind * 0.45f, 0),
                         y + (float)ui->body->ascent * 0.62f +
                             roundf((float)ui->body->line_h * 0.15f / 2),
                         ui->u * 0.16f, c->th->muted);
        } else {
            float lw = font_width(ui->body, b->label, strlen(b->label));
            scene_text(sc, ui->body, mx(c, x, w, x, lw),
                       y + roundf((float)ui->body->line_h * 0.3f / 2), b->label,
                       c->th->muted);
        }
    }
    return page_runs(c, sc, b, mx(c, x, w, x + ind, w - ind), y, w - ind);
}

/* An image centred in the column (at most 45 % of the window high), and
** its caption. */
static float page_image(Ctx *c, Scene *sc, const PageBlock *b, float x, float y,
                        float w)
{
    Ui *ui = c->ui;
    float yy = y;
    const Tex *t = assets_image(c->rc.assets, b->file);
    if (t->tex) {
        float s = fminf(
            fminf(w / (float)t->w, (float)ui->gfx->h * 0.45f / (float)t->h),
            2.0f * ui->u / 16.0f * 1.5f);
        float dw = floorf((float)t->w * s), dh = floorf((float)t->h * s);
        if (sc) {
            scene_texture(sc, t->tex, NULL,
                          (SDL_FRect){x + floorf((w - dw) / 2), yy, dw, dh},
                          255);
        }
        yy += dh;
    } else {
        char miss[1200];
        snprintf(miss, sizeof miss,
                 ui_fmt(c->rc.strings, UI_IMAGE_MISSING, "[image missing: %s]"),
                 b->src);
        yy +=
            text_para(sc, ui->small, miss, x, yy, w, c->th->bad, ALIGN_CENTER);
    }
    if (b->text[0]) {
        yy += roundf(ui->u * 0.35f);
        yy += text_para(sc, ui->small, b->text, x, yy, w, c->th->muted,
                        ALIGN_CENTER);
    }
    return yy - y;
}

/* Lays out a page model (stimuli/page.h): headings (level 3 in the level
** 2 face), paragraphs with **bold** runs, bullets, numbered items and
** images with captions, separated by gaps that depend on what follows. */
static float page_content(Ctx *c, Scene *sc, float x, float y, float w,
                          const Page *pg)
{
    Ui *ui = c->ui;
    float yy = y;
    float para_gap = roundf(ui->u * 0.75f);
    for (size_t i = 0; pg && i < pg->n_blocks; i++) {
        const PageBlock *b = &pg->blocks[i];
        switch (b->kind) {
        case PAGE_HEADING:
            if (i > 0) {
                yy += para_gap * (b->level == 1 ? 1.6f : 1.2f);
            }
            yy += text_para(sc, b->level == 1 ? ui->h1 : ui->h2, b->text, x, yy,
                            w, c->th->text, al(c, ALIGN_LEFT));
            yy += roundf(ui->u * 0.2f);
            break;
        case PAGE_IMAGE:
            if (i > 0) {
                yy += para_gap;
            }
            yy += page_image(c, sc, b, x, yy, w);
            break;
        case PAGE_BULLET:
        case PAGE_NUMBERED:
            if (i > 0) {
                yy += para_gap * 0.35f;
            }
            yy += page_item(c, sc, b, x, yy, w);
            break;
        case PAGE_PARAGRAPH:
            if (i > 0) {
                yy += para_gap;
            }
            yy += page_runs(c, sc, b, x, yy, w);
            break;
        }
    }
    return yy - y;
}

/* -------------------------------------------------------------- the body */

static float body_page(Ctx *c, Scene *sc, float x, float y, float w)
{
    return page_content(c, sc, x, y, w, c->m->page);
}

static float body_quiz(Ctx *c, Scene *sc, float x, float y, float w)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    const ScreenQuiz *q = c->m->quiz;
    float yy = y;
    if (!q) {
        return 0;
    }
    if (q->retry) {
        yy += text_para(sc, ui->small, q->retry, x, yy, w, th->muted,
                        al(c, ALIGN_LEFT));
        yy += roundf(ui->u * 0.4f);
    }
    yy += text_marked(sc, ui->h2, ui->h2, q->text, x, yy, w, th->text,
                      al(c, ALIGN_LEFT));
    yy += roundf(ui->u * 1.0f);
    float pad = roundf(ui->u * 0.8f);
    for (size_t i = 0; i < q->n_options; i++) {
        const ScreenOption *o = &q->options[i];
        float kh = roundf((float)ui->key->line_h * 1.25f);
        float kw = render_keycap(&c->rc, NULL, 0, 0, kh, o->key);
        float tx = x + pad + kw + pad;
        float tw = w - (tx - x) - pad;
        float th_ =
            text_para(NULL, ui->body, o->label, 0, 0, tw, th->text, ALIGN_LEFT);
        float bh = fmaxf(th_, kh) + 2 * pad;
        if (sc) {
            int sel = q->value == (int)i;
            scene_begin_hit(sc, (SDL_FRect){x, yy, w, bh}, ACT_CHOOSE, (int)i,
                            1);
            scene_frame(sc, (SDL_FRect){x, yy, w, bh}, ui->u * 0.45f, 1.5f,
                        sel ? th->selected : th->border, th->panel);
            scene_hover_last(sc, th->hover);
            /* key cap, then the option, from the start side */
            render_keycap(&c->rc, sc, mx(c, x, w, x + pad, kw),
                          yy + (bh - kh) / 2, kh, o->key);
            text_para(sc, ui->body, o->label, mx(c, x, w, tx, tw),
                      yy + (bh - th_) / 2, tw, th->text, al(c, ALIGN_LEFT));
            scene_end_hit(sc);
        }
        yy += bh + roundf(ui->u * 0.5f);
    }
    return yy - y;
}

float scr_body_message(Ctx *c, Scene *sc, float x, float y, float w,
                       const char *head, const char *text)
{
    Ui *ui = c->ui;
    float yy = y;
    yy += text_para(sc, ui->h1, head, x, yy, w, c->th->text, ALIGN_CENTER);
    yy += ui->u;
    yy += text_marked(sc, ui->body, ui->bold, text, x, yy, w, c->th->muted,
                      ALIGN_CENTER);
    return yy - y;
}

float scr_body_page(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    (void)view_h;
    return body_page(c, sc, x, y, w);
}

float scr_body_break(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    (void)view_h;
    return scr_body_message(c, sc, x, y, w, c->m->message_head,
                            c->m->message_text);
}

float scr_body_timeout(Ctx *c, Scene *sc, float x, float y, float w,
                       float view_h)
{
    (void)view_h;
    return text_para(sc, c->ui->h1, c->m->message_text, x, y, w, c->th->text,
                     ALIGN_CENTER);
}

float scr_body_quiz(Ctx *c, Scene *sc, float x, float y, float w, float view_h)
{
    (void)view_h;
    return body_quiz(c, sc, x, y, w);
}
