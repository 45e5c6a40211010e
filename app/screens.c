/*
** Participant screens: the table of screens (heading, body, message), the
** header and the assembly of header, response bar and scrolling body, and
** the parts every screen uses (cards, buttons). All sizes derive from
** ui->u; wide windows get two columns, narrow ones stack.
*/
#include "app/screens_int.h"
#include "experiment/session_title.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/qscreen.h"

/* ------------------------------------------------------------ small parts */

float scr_card(Ctx *c, Scene *sc, float x, float y, float w, ContentFn fn,
               const void *arg)
{
    return scr_card_min(c, sc, x, y, w, 0, fn, arg);
}

float scr_card_min(Ctx *c, Scene *sc, float x, float y, float w, float min_h,
                   ContentFn fn, const void *arg)
{
    float pad = roundf(c->ui->u * 1.0f);
    float h = fn(c, NULL, x + pad, y + pad, w - 2 * pad, arg) + 2 * pad;
    h = fmaxf(h, min_h);
    if (sc) {
        SDL_FRect r = {x, y, w, h};
        scene_rrect(sc, (SDL_FRect){x, y + 2, w, h}, c->ui->u * 0.5f,
                    c->th->shadow);
        scene_frame(sc, r, c->ui->u * 0.5f, 1, c->th->border, c->th->panel);
        scene_box_begin(sc, r, "card");
        fn(c, sc, x + pad, y + pad, w - 2 * pad, arg);
        scene_box_end(sc);
    }
    return h;
}

float scr_button(Ctx *c, Scene *sc, float x, float y, float w, float h,
                 const char *label, const char *key, int action, int value,
                 int enabled, int style)
{
    /* style 0: neutral, 1: primary, 2: selected, 3: quiet */
    Ui *ui = c->ui;
    const Theme *th = c->th;
    if (!sc) {
        return w;
    }
    scene_begin_hit(sc, (SDL_FRect){x, y, w, h}, action, value, enabled);
    SDL_Color border = th->border, fill = th->panel, text = th->text;
    SDL_Color hover = th->hover;
    if (!enabled) {
        fill = th->disabled;
        text = th->disabled_text;
        border = th->disabled;
        hover = (SDL_Color){0, 0, 0, 0};
    } else if (style == 1) {
        fill = th->accent;
        border = th->accent;
        text = th->accent_text;
        hover = th->accent_hover;
    } else if (style == 2) {
        fill = th->selected;
        border = th->selected;
        text = th->accent_text;
        hover = th->accent_hover;
    } else if (style == 3) {
        fill = th->bg;
    }
    scene_frame(sc, (SDL_FRect){x, y, w, h}, ui->u * 0.45f,
                style == 0 || style == 3 ? 1.5f : 1, border, fill);
    scene_hover_last(sc, hover);
    float kh = roundf((float)ui->key->line_h * 1.25f);
    float kw = key ? render_keycap(&c->rc, NULL, 0, 0, kh, key) : 0;
    float gap = key ? roundf(ui->u * 0.6f) : 0;
    /* a label wider than the button is set smaller */
    Font *f = render_fit_font(&c->rc, ui->button, label, w - ui->u - kw - gap);
    float tw = font_width(f, label, strlen(label));
    float total = tw + kw + gap;
    scene_box_begin(sc, (SDL_FRect){x, y, w, h}, "button");
    float x0 = x + fmaxf(ui->u * 0.5f, (w - total) / 2);
    /* the key cap before the label, from the start side */
    if (key) {
        render_keycap(&c->rc, sc, mx(c, x, w, x0, kw), y + (h - kh) / 2, kh,
                      key);
    }
    scene_text(sc, f, mx(c, x, w, x0 + kw + gap, tw),
               y + (h - (float)f->line_h) / 2, label, text);
    scene_box_end(sc);
    scene_end_hit(sc);
    return w;
}

float scr_button_width(Ctx *c, const char *label, const char *key)
{
    Ui *ui = c->ui;
    float tw = font_width(ui->button, label, strlen(label));
    float kh = roundf((float)ui->key->line_h * 1.25f);
    float kw =
        key ? render_keycap(&c->rc, NULL, 0, 0, kh, key) + ui->u * 0.6f : 0;
    return fmaxf(tw + kw + ui->u * 2.4f, ui->u * 8);
}

static float body_questionnaire(Ctx *c, Scene *sc, float x, float y, float w,
                                float view_h)
{
    (void)view_h;
    return qscreen_body(&c->rc, c->v, sc, x, y, w);
}

typedef float (*BodyFn)(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h);

enum { NO_KEY = -1 };

/* One row per SessionScreen: the body, and for screens that only show a
** message (no header, no response bar) its heading and text (string keys;
** NO_KEY for none). The heading of the others: session_title(). */
static const struct {
    BodyFn body;
    int msg_head, msg_text;
} screen_rows[] = {
    [SCREEN_CONSENT] = {scr_body_page, NO_KEY, NO_KEY},
    [SCREEN_PAGE] = {scr_body_page, NO_KEY, NO_KEY},
    [SCREEN_QUIZ] = {scr_body_quiz, NO_KEY, NO_KEY},
    [SCREEN_EXAMPLE] = {scr_body_item, NO_KEY, NO_KEY},
    [SCREEN_PREDICT] = {scr_body_item, NO_KEY, NO_KEY},
    [SCREEN_COUNTERFACTUAL] = {scr_body_item, NO_KEY, NO_KEY},
    [SCREEN_RATING] = {scr_body_item, NO_KEY, NO_KEY},
    [SCREEN_FEEDBACK] = {scr_body_feedback, NO_KEY, NO_KEY},
    [SCREEN_BREAK] = {scr_body_break, NO_KEY, NO_KEY},
    [SCREEN_PAUSED] = {NULL, UI_PAUSED_TITLE, UI_PAUSED_TEXT},
    [SCREEN_STORE_ERROR] = {NULL, UI_WAIT_TITLE, UI_WAIT_TEXT},
    [SCREEN_SCREENED_OUT] = {NULL, UI_SCREENED_OUT_TITLE, UI_SCREENED_OUT_TEXT},
    [SCREEN_DONE] = {NULL, UI_DONE_TITLE, UI_DONE_TEXT},
    [SCREEN_QUESTIONNAIRE] = {body_questionnaire, NO_KEY, NO_KEY},
    [SCREEN_TIMEOUT] = {scr_body_timeout, NO_KEY, NO_KEY},
};

_Static_assert(sizeof screen_rows / sizeof *screen_rows == SESSION_SCREEN_COUNT,
               "one row per SessionScreen");

/* The body of a scrolling screen at top y; sc NULL measures. Returns the
** height. */
static float body_build(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h)
{
    SessionScreen screen = c->v->screen;
    if ((unsigned)screen >= SESSION_SCREEN_COUNT || !screen_rows[screen].body) {
        return 0;
    }
    return screen_rows[screen].body(c, sc, x, y, w, view_h);
}

/* The text of a table's key; "" for NO_KEY. */
static const char *tr_opt(const Ctx *c, int k)
{
    return k == NO_KEY ? "" : tr(c, (UiKey)k);
}

/* Screens that only show a message, without header or response bar: 1
** with their heading and text, else 0. */
static int message_screen(const Ctx *c, SessionScreen screen, const char **head,
                          const char **text)
{
    if ((unsigned)screen >= SESSION_SCREEN_COUNT ||
        screen_rows[screen].msg_head == NO_KEY) {
        return 0;
    }
    *head = tr_opt(c, screen_rows[screen].msg_head);
    *text = tr_opt(c, screen_rows[screen].msg_text);
    return 1;
}

/* ------------------------------------------------------------- assembly */

void screen_build(Scene *sc, const ScreenCtx *sx)
{
    Ctx c;
    memset(&c, 0, sizeof c);
    c.sx = sx;
    c.ui = sx->ui;
    c.v = sx->view;
    c.th = &sx->ui->th;
    c.rc.ui = sx->ui;
    c.rc.assets = sx->assets;
    c.rc.classes = sx->view->classes;
    c.rc.n_classes = sx->view->n_classes;
    c.rc.strings = sx->strings;
    c.plan = sx->plan;
    Ui *ui = c.ui;
    const Theme *th = c.th;
    const SessionView *v = c.v;
    Gfx *g = ui->gfx;
    scene_clear(sc);
    if (sx->assets) {
        assets_scene_begin(sx->assets); /* the old scene's textures may go */
    }
    float W = (float)g->w, H = (float)g->h;
    float m = ui->margin;

    /* Background and header. */
    sc->layer = LAYER_FIXED;
    const char *msg_head = NULL, *msg_text = NULL;
    int plain = message_screen(&c, v->screen, &msg_head, &msg_text);
    float head_h = plain ? 0 : roundf(ui->u * 3.0f);
    if (head_h > 0) {
        scene_rect(sc, (SDL_FRect){0, 0, W, head_h}, th->panel);
        scene_rect(sc, (SDL_FRect){0, head_h - 1, W, 1}, th->border);
        char tbuf[96];
        const char *title = session_title(c.v, c.rc.strings, tbuf, sizeof tbuf);
        float ty = (head_h - (float)ui->bold->line_h) / 2;
        int item_screen =
            v->progress_total > 0 &&
            (v->screen == SCREEN_EXAMPLE || v->screen == SCREEN_PREDICT ||
             v->screen == SCREEN_COUNTERFACTUAL || v->screen == SCREEN_RATING ||
             v->screen == SCREEN_FEEDBACK);
        float right = W - m;
        if (item_screen) {
            char prog[64];
            snprintf(prog, sizeof prog,
                     ui_fmt(c.rc.strings, UI_PROGRESS, "%d of %d"),
                     v->progress_done + 1 > v->progress_total
                         ? v->progress_total
                         : v->progress_done + 1,
                     v->progress_total);
            float pw = font_width(ui->small, prog, strlen(prog));
            float bw = roundf(ui->u * 8);
            float bh = roundf(ui->u * 0.35f);
            float bx = right - bw;
            float by = (head_h - bh) / 2;
            /* Title at the start side, progress at the end side (mirrored:
            ** title right, progress left, the bar filling leftwards). */
            float frac = (float)v->progress_done / (float)v->progress_total;
            float fw = fmaxf(bh, bw * frac);
            scene_rrect(sc, (SDL_FRect){mx(&c, 0, W, bx, bw), by, bw, bh},
                        bh / 2, th->disabled);
            scene_rrect(sc, (SDL_FRect){mx(&c, 0, W, bx, fw), by, fw, bh},
                        bh / 2, th->accent);
            scene_text(sc, ui->small, mx(&c, 0, W, bx - ui->u * 0.7f - pw, pw),
                       (head_h - (float)ui->small->line_h) / 2, prog,
                       th->muted);
            right = bx - ui->u * 1.4f - pw;
        }
        scene_clip(
            sc, (SDL_FRect){mx(&c, 0, W, m, right - m), 0, right - m, head_h});
        float tw =
            render_rtl(&c.rc) ? font_width(ui->bold, title, strlen(title)) : 0;
        scene_text(sc, ui->bold, mx(&c, 0, W, m, tw), ty, title, th->text);
        scene_unclip(sc);
    }

    /* Footer: measured first so the body gets the rest. */
    float content_w = fminf(W - 2 * m, ui->u * 80);
    float cx = (W - content_w) / 2;
    float fpad = roundf(ui->u * 1.0f);
    float foot_h = scr_footer(&c, NULL, cx, 0, content_w);
    float foot_top = H;
    if (foot_h > 0) {
        foot_h += 2 * fpad;
        if (foot_h > H * 0.6f) {
            foot_h = H * 0.6f;
        }
        foot_top = H - foot_h;
        scene_rect(sc, (SDL_FRect){0, foot_top, W, foot_h}, th->panel);
        scene_rect(sc, (SDL_FRect){0, foot_top, W, 1}, th->border);
        scr_footer(&c, sc, cx, foot_top + fpad, content_w);
    }

    /* Body. */
    sc->layer = LAYER_BODY;
    sc->body = (SDL_FRect){0, head_h, W, foot_top - head_h};
    float view_h = sc->body.h;
    c.rc.max_image_h = fmaxf(view_h * 0.62f, ui->u * 6);
    float top = head_h + roundf(ui->u * 1.2f);
    float bw = content_w;
    if (v->screen == SCREEN_CONSENT || v->screen == SCREEN_PAGE ||
        v->screen == SCREEN_BREAK || v->screen == SCREEN_QUIZ) {
        bw = fminf(content_w, ui->u * 42);
    } else if (v->screen == SCREEN_FEEDBACK) {
        bw = fminf(content_w, ui->u * 40);
        c.rc.max_image_h = fmaxf(view_h * 0.4f, ui->u * 6);
    }
    float bx = (W - bw) / 2;
    float h = body_build(&c, NULL, bx, 0, bw, view_h);
    /* Short content sits a little above the middle; long content starts
    ** at the top and scrolls. Item screens of a study with a plan centre in
    ** the plan's view, the same in every condition (a rating or confidence
    ** scale below does not move the item). */
    int item_screen =
        v->screen == SCREEN_EXAMPLE || v->screen == SCREEN_PREDICT ||
        v->screen == SCREEN_COUNTERFACTUAL || v->screen == SCREEN_RATING;
    float centre_h = c.plan && item_screen ? c.plan->view_h : view_h;
    float avail = centre_h - roundf(ui->u * 2.4f);
    if (h < avail && v->screen != SCREEN_CONSENT && v->screen != SCREEN_PAGE) {
        top = head_h + floorf((centre_h - h) * 0.42f);
    }
    body_build(&c, sc, bx, top, bw, view_h);
    if (plain) {
        sc->layer = LAYER_FIXED;
        scr_body_message(&c, sc, m, H * 0.38f, W - 2 * m, msg_head, msg_text);
    }
    sc->body_h = fmaxf(h + (top - head_h) + roundf(ui->u * 1.6f), view_h);
    sc->layer = LAYER_BODY;
    if (sx->assets) {
        assets_scene_end(sx->assets);
    }
}
