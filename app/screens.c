/*
** Participant screens: the table of screens (heading, body, message), the
** header and the assembly of header, response bar and scrolling body, and
** the parts every screen uses (cards, buttons). All sizes derive from
** ui->u; wide windows get two columns, narrow ones stack.
*/
#include "app/screens_int.h"

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
    return qscreen_body(&c->rc, c->m->questionnaire, sc, x, y, w);
}

static float body_none(Ctx *c, Scene *sc, float x, float y, float w,
                       float view_h)
{
    (void)c;
    (void)sc;
    (void)x;
    (void)y;
    (void)w;
    (void)view_h;
    return 0;
}

typedef float (*BodyFn)(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h);

/* One row per ScreenBody (experiment/screen_model.h): how it is drawn, and
** how wide its column is at most (body text sizes; 0: the content width).
** A message alone is drawn over the window, without header or response
** bar. */
static const struct {
    BodyFn body;
    float max_u;
} body_rows[] = {
    [BODY_MESSAGE] = {body_none, 0},
    [BODY_PAGE] = {scr_body_page, 42},
    [BODY_NOTE] = {scr_body_break, 42},
    [BODY_LINE] = {scr_body_timeout, 0},
    [BODY_QUIZ] = {scr_body_quiz, 42},
    [BODY_FEEDBACK] = {scr_body_feedback, 40},
    [BODY_ITEM] = {scr_body_item, 0},
    [BODY_QUESTIONNAIRE] = {body_questionnaire, 0},
};

_Static_assert(sizeof body_rows / sizeof *body_rows == BODY_KIND_COUNT,
               "one row per ScreenBody");

/* The body of a scrolling screen at top y; sc NULL measures. Returns the
** height. */
static float body_build(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h)
{
    ScreenBody b = c->m->body_kind;
    if ((unsigned)b >= BODY_KIND_COUNT) {
        return 0;
    }
    return body_rows[b].body(c, sc, x, y, w, view_h);
}

/* ------------------------------------------------------------- assembly */

/* The header: the screen's heading at the start side, its progress at the
** end side (mirrored: title right, progress left, the bar filling
** leftwards). */
static void header(Ctx *c, Scene *sc, float W, float head_h)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    const ScreenModel *m = c->m;
    float m_ = ui->margin;
    scene_rect(sc, (SDL_FRect){0, 0, W, head_h}, th->panel);
    scene_rect(sc, (SDL_FRect){0, head_h - 1, W, 1}, th->border);
    const char *title = m->title ? m->title : "";
    float ty = (head_h - (float)ui->bold->line_h) / 2;
    float right = W - m_;
    if (m->progress) {
        const char *prog = m->progress;
        float pw = font_width(ui->small, prog, strlen(prog));
        float bw = roundf(ui->u * 8);
        float bh = roundf(ui->u * 0.35f);
        float bx = right - bw;
        float by = (head_h - bh) / 2;
        float frac = (float)m->progress_done / (float)m->progress_total;
        float fw = fmaxf(bh, bw * frac);
        scene_rrect(sc, (SDL_FRect){mx(c, 0, W, bx, bw), by, bw, bh}, bh / 2,
                    th->disabled);
        scene_rrect(sc, (SDL_FRect){mx(c, 0, W, bx, fw), by, fw, bh}, bh / 2,
                    th->accent);
        scene_text(sc, ui->small, mx(c, 0, W, bx - ui->u * 0.7f - pw, pw),
                   (head_h - (float)ui->small->line_h) / 2, prog, th->muted);
        right = bx - ui->u * 1.4f - pw;
    }
    scene_clip(sc,
               (SDL_FRect){mx(c, 0, W, m_, right - m_), 0, right - m_, head_h});
    float tw =
        render_rtl(&c->rc) ? font_width(ui->bold, title, strlen(title)) : 0;
    scene_text(sc, ui->bold, mx(c, 0, W, m_, tw), ty, title, th->text);
    scene_unclip(sc);
}

void screen_build(Scene *sc, const ScreenCtx *sx)
{
    ScreenModel *own = NULL;
    ScreenModel *model = sx->model;
    if (!model) {
        model = own = screen_model_new();
    }
    scene_clear(sc);
    if (!model) {
        scene_set_oom(sc);
        return;
    }
    ScreenContext mcx = {sx->study,
                         sx->strings,
                         SCREEN_DESKTOP,
                         sx->plan ? &sx->plan->slots : NULL,
                         0,
                         0};
    if (screen_model_build(model, sx->view, &mcx) != SIM_OK) {
        scene_set_oom(sc); /* nothing drawn of a model half built */
        screen_model_free(own);
        return;
    }
    ScreenModel *tall = NULL;
    if (!sx->plan && model->area && model->area->expl) {
        /* no slots: the area keeps the room of its tallest state */
        tall = screen_model_new();
        mcx.measure = 1;
        if (!tall || screen_model_build(tall, sx->view, &mcx) != SIM_OK) {
            scene_set_oom(sc);
        }
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.sx = sx;
    c.ui = sx->ui;
    c.m = model;
    c.tallest = tall && !scene_oom(sc) ? tall->area : NULL;
    c.th = &sx->ui->th;
    c.rc.ui = sx->ui;
    c.rc.assets = sx->assets;
    c.rc.strings = sx->strings;
    c.slots = sx->plan ? &sx->plan->slots : NULL;
    Ui *ui = c.ui;
    const Theme *th = c.th;
    const ScreenModel *m = c.m;
    Gfx *g = ui->gfx;
    if (sx->assets) {
        assets_scene_begin(sx->assets); /* the old scene's textures may go */
    }
    float W = (float)g->w, H = (float)g->h;
    float mg = ui->margin;

    /* Background and header. */
    sc->layer = LAYER_FIXED;
    int plain = m->body_kind == BODY_MESSAGE;
    float head_h = plain ? 0 : roundf(ui->u * 3.0f);
    if (head_h > 0) {
        header(&c, sc, W, head_h);
    }

    /* Footer: measured first so the body gets the rest. */
    float content_w = fminf(W - 2 * mg, ui->u * 80);
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
    ScreenBody bk = m->body_kind;
    if ((unsigned)bk < BODY_KIND_COUNT && body_rows[bk].max_u > 0) {
        bw = fminf(content_w, ui->u * body_rows[bk].max_u);
    }
    if (bk == BODY_FEEDBACK) {
        c.rc.max_image_h = fmaxf(view_h * 0.4f, ui->u * 6);
    }
    float bx = (W - bw) / 2;
    float h = body_build(&c, NULL, bx, 0, bw, view_h);
    /* Short content sits a little above the middle; long content starts
    ** at the top and scrolls. Item screens of a study with slots centre in
    ** the slots' view, the same in every condition (a rating or confidence
    ** scale below does not move the item). */
    int item_screen = bk == BODY_ITEM;
    float centre_h = c.slots && item_screen ? (float)c.slots->view_h : view_h;
    float avail = centre_h - roundf(ui->u * 2.4f);
    if (h < avail && bk != BODY_PAGE) {
        top = head_h + floorf((centre_h - h) * 0.42f);
    }
    c.content_end = -1;
    body_build(&c, sc, bx, top, bw, view_h);
    if (plain) {
        sc->layer = LAYER_FIXED;
        scr_body_message(&c, sc, mg, H * 0.38f, W - 2 * mg,
                         m->message_head ? m->message_head : "",
                         m->message_text ? m->message_text : "");
    }
    float pad_end = roundf(ui->u * 1.6f);
    sc->body_h = fmaxf(h + (top - head_h) + pad_end, view_h);
    if (c.content_end >= 0) {
        /* an area kept empty is no content to scroll to */
        sc->content_h = fmaxf(c.content_end - head_h + pad_end, view_h);
    }
    sc->layer = LAYER_BODY;
    if (sx->assets) {
        assets_scene_end(sx->assets);
    }
    screen_model_free(tall);
    screen_model_free(own);
}
