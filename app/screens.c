/*
** Participant screens, the experimenter's start screen and dialogs. All
** sizes derive from ui->u; wide windows get two columns, narrow ones stack.
*/
#include "app/screens.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/qscreen.h"
#include "common/sim_alloc.h"
#include "stimuli/page.h"

#define NO_BG ((SDL_Color){0, 0, 0, 0})

typedef struct Ctx {
    const ScreenCtx *sx;
    Ui *ui;
    RenderCtx rc;
    const SessionView *v;
    const Theme *th;
} Ctx;

/* The participant-facing text of key k in the study's language. */
static const char *tr(const Ctx *c, UiKey k)
{
    return ui_str(c->rc.strings, k);
}

/* Mirrored layout (right-to-left study): the x of a box w wide that a
** left-to-right layout puts at x in the container [cx, cx + cw), and the
** alignment of start-aligned text. See render_mx. */
static float mx(const Ctx *c, float cx, float cw, float x, float w)
{
    return render_mx(&c->rc, cx, cw, x, w);
}

static int al(const Ctx *c, int align)
{
    return render_align(&c->rc, align);
}

/* ------------------------------------------------------------ small parts */

typedef float (*ContentFn)(Ctx *c, Scene *sc, float x, float y, float w,
                           const void *arg);

/* A white card with a border around content; returns its height. */
static float card(Ctx *c, Scene *sc, float x, float y, float w, ContentFn fn,
                  const void *arg)
{
    float pad = roundf(c->ui->u * 1.0f);
    float h = fn(c, NULL, x + pad, y + pad, w - 2 * pad, arg) + 2 * pad;
    if (sc) {
        scene_rrect(sc, (SDL_FRect){x, y + 2, w, h}, c->ui->u * 0.5f,
                    c->th->shadow);
        scene_frame(sc, (SDL_FRect){x, y, w, h}, c->ui->u * 0.5f, 1,
                    c->th->border, c->th->panel);
        fn(c, sc, x + pad, y + pad, w - 2 * pad, arg);
    }
    return h;
}

static float button(Ctx *c, Scene *sc, float x, float y, float w, float h,
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
    Font *f = ui->button;
    float tw = font_width(f, label, strlen(label));
    float kh = roundf((float)ui->key->line_h * 1.25f);
    float kw = key ? render_keycap(&c->rc, NULL, 0, 0, kh, key) : 0;
    float gap = key ? roundf(ui->u * 0.6f) : 0;
    float total = tw + kw + gap;
    float x0 = x + fmaxf(ui->u * 0.5f, (w - total) / 2);
    /* the key cap before the label, from the start side */
    if (key) {
        render_keycap(&c->rc, sc, mx(c, x, w, x0, kw), y + (h - kh) / 2, kh,
                      key);
    }
    scene_text(sc, f, mx(c, x, w, x0 + kw + gap, tw),
               y + (h - (float)f->line_h) / 2, label, text);
    scene_end_hit(sc);
    return w;
}

static float button_width(Ctx *c, const char *label, const char *key)
{
    Ui *ui = c->ui;
    float tw = font_width(ui->button, label, strlen(label));
    float kh = roundf((float)ui->key->line_h * 1.25f);
    float kw =
        key ? render_keycap(&c->rc, NULL, 0, 0, kh, key) + ui->u * 0.6f : 0;
    return fmaxf(tw + kw + ui->u * 2.4f, ui->u * 8);
}

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

/* ------------------------------------------------------------------ pages */

/* A paragraph or list item: its runs in the body font and its bold face. */
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
        spans[i] = (Span){
            b->text + ps->start, ps->len,      ps->strong ? ui->bold : ui->body,
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
            row_h = fmaxf(row_h, card(&cc, NULL, 0, 0, cw,
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
        bw = fmaxf(bw, button_width(c, v->classes[i].label, k));
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
            button(c, sc, mx(c, x, w, xx, bw), yy, bw, bh, v->classes[i].label,
                   key, ACT_CHOOSE, (int)i, 1, sel ? 2 : 0);
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
    float bw = button_width(c, lab, "Enter");
    int ready = continue_ready(c);
    if (with_decline) {
        const char *dl = tr(c, UI_CONSENT_DECLINE);
        float dw = button_width(c, dl, NULL);
        float gap = ui->u;
        float total = dw + gap + bw;
        float x0 = x + (w - total) / 2;
        button(c, sc, mx(c, x, w, x0, dw), y, dw, bh, dl, NULL, ACT_DECLINE, 0,
               1, 3);
        button(c, sc, mx(c, x, w, x0 + dw + gap, bw), y, bw, bh, lab, "Enter",
               ACT_CONTINUE, 0, ready, 1);
    } else {
        /* at the end side: the right, or the left when mirrored */
        button(c, sc, mx(c, x, w, x + w - bw, bw), y, bw, bh, lab, "Enter",
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
static float footer(Ctx *c, Scene *sc, float x, float y, float w)
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
        float bw = button_width(c, lab, "Enter");
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

/* -------------------------------------------------------------- the body */

static float body_page(Ctx *c, Scene *sc, float x, float y, float w)
{
    return page_content(c, sc, x, y, w, c->v->page);
}

static float body_quiz(Ctx *c, Scene *sc, float x, float y, float w)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    const QuizQuestion *q = c->v->question;
    float yy = y;
    if (!q) {
        return 0;
    }
    if (c->v->attempt > 1) {
        yy += text_para(sc, ui->small, tr(c, UI_QUIZ_RETRY), x, yy, w,
                        th->muted, al(c, ALIGN_LEFT));
        yy += roundf(ui->u * 0.4f);
    }
    yy += text_marked(sc, ui->h2, ui->h2, q->text ? q->text : "", x, yy, w,
                      th->text, al(c, ALIGN_LEFT));
    yy += roundf(ui->u * 1.0f);
    float pad = roundf(ui->u * 0.8f);
    for (size_t i = 0; i < q->n_options; i++) {
        char key[8];
        snprintf(key, sizeof key, "%d", (int)(i % 100) + 1);
        float kh = roundf((float)ui->key->line_h * 1.25f);
        float kw = render_keycap(&c->rc, NULL, 0, 0, kh, key);
        float tx = x + pad + kw + pad;
        float tw = w - (tx - x) - pad;
        float th_ = text_para(NULL, ui->body, q->options[i], 0, 0, tw, th->text,
                              ALIGN_LEFT);
        float bh = fmaxf(th_, kh) + 2 * pad;
        if (sc) {
            int sel = c->v->choice == (int)i;
            scene_begin_hit(sc, (SDL_FRect){x, yy, w, bh}, ACT_CHOOSE, (int)i,
                            1);
            scene_frame(sc, (SDL_FRect){x, yy, w, bh}, ui->u * 0.45f, 1.5f,
                        sel ? th->selected : th->border, th->panel);
            scene_hover_last(sc, th->hover);
            /* key cap, then the option, from the start side */
            render_keycap(&c->rc, sc, mx(c, x, w, x + pad, kw),
                          yy + (bh - kh) / 2, kh, key);
            text_para(sc, ui->body, q->options[i], mx(c, x, w, tx, tw),
                      yy + (bh - th_) / 2, tw, th->text, al(c, ALIGN_LEFT));
            scene_end_hit(sc);
        }
        yy += bh + roundf(ui->u * 0.5f);
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
        yy += card(c, sc, x, yy, w, item_content, &a);
    }
    return yy - y;
}

static float body_message(Ctx *c, Scene *sc, float x, float y, float w,
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

/* Item screens: example, predict, counterfactual, rating. */
static float body_item(Ctx *c, Scene *sc, float x, float y, float w,
                       float view_h)
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
            float h1 = card(c, NULL, x, yy, cw, item_content, &orig);
            float h2 = card(c, NULL, x, yy, cw, item_content, &pert);
            card(c, sc, mx(c, x, w, x, cw), yy, cw, item_content, &orig);
            card(c, sc, mx(c, x, w, x + cw + gap, cw), yy, cw, item_content,
                 &pert);
            yy += fmaxf(h1, h2);
        } else {
            yy += card(c, sc, x, yy, w, item_content, &orig) + gap;
            yy += card(c, sc, x, yy, w, item_content, &pert);
        }
        if (e) {
            yy += gap;
            ExplArg ea = {e, it, tr(c, UI_ITEM_EXPLANATION_ORIGINAL)};
            yy += card(c, sc, x, yy, w, expl_content, &ea);
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
            float h1 = card(c, NULL, x, yy, lw, item_content, &ia);
            float h2 = card(c, NULL, x, yy, rw, expl_content, &ea);
            card(c, sc, mx(c, x, w, x, lw), yy, lw, item_content, &ia);
            card(c, sc, mx(c, x, w, x + lw + gap, rw), yy, rw, expl_content,
                 &ea);
            yy += fmaxf(h1, h2);
        } else if (e && !embed) {
            ia.expl = NULL;
            ia.section = tr(c, UI_ITEM_INPUT);
            ExplArg ea = {e, it, tr(c, UI_ITEM_EXPLANATION)};
            yy += card(c, sc, x, yy, w, item_content, &ia) + gap;
            yy += card(c, sc, x, yy, w, expl_content, &ea);
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
            yy += card(c, sc, x + (w - cw) / 2, yy, cw, item_content, &ia);
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

static float body_page_screen(Ctx *c, Scene *sc, float x, float y, float w,
                              float view_h)
{
    (void)view_h;
    return body_page(c, sc, x, y, w);
}

static float body_break(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h)
{
    (void)view_h;
    return body_message(c, sc, x, y, w, tr(c, UI_BREAK_TITLE),
                        c->v->page_text ? c->v->page_text
                                        : tr(c, UI_BREAK_TEXT));
}

static float body_timeout(Ctx *c, Scene *sc, float x, float y, float w,
                          float view_h)
{
    (void)view_h;
    const char *msg = c->v->timeout_message ? c->v->timeout_message : "";
    return text_para(sc, c->ui->h1, msg, x, y, w, c->th->text, ALIGN_CENTER);
}

static float body_quiz_screen(Ctx *c, Scene *sc, float x, float y, float w,
                              float view_h)
{
    (void)view_h;
    return body_quiz(c, sc, x, y, w);
}

static float body_feedback_screen(Ctx *c, Scene *sc, float x, float y, float w,
                                  float view_h)
{
    (void)view_h;
    return body_feedback(c, sc, x, y, w);
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

/* One row per SessionScreen: the heading shown when neither the block nor
** its phase gives one, the body, and for screens that only show a message
** (no header, no response bar) its heading and text (string keys; NO_KEY
** for none). */
static const struct {
    int title;
    BodyFn body;
    int msg_head, msg_text;
} screen_rows[] = {
    [SCREEN_CONSENT] = {UI_TITLE_CONSENT, body_page_screen, NO_KEY, NO_KEY},
    [SCREEN_PAGE] = {UI_TITLE_INSTRUCTIONS, body_page_screen, NO_KEY, NO_KEY},
    [SCREEN_QUIZ] = {UI_TITLE_QUIZ, body_quiz_screen, NO_KEY, NO_KEY},
    [SCREEN_EXAMPLE] = {NO_KEY, body_item, NO_KEY, NO_KEY},
    [SCREEN_PREDICT] = {NO_KEY, body_item, NO_KEY, NO_KEY},
    [SCREEN_COUNTERFACTUAL] = {NO_KEY, body_item, NO_KEY, NO_KEY},
    [SCREEN_RATING] = {UI_TITLE_RATING, body_item, NO_KEY, NO_KEY},
    [SCREEN_FEEDBACK] = {UI_TITLE_FEEDBACK, body_feedback_screen, NO_KEY,
                         NO_KEY},
    [SCREEN_BREAK] = {UI_TITLE_BREAK, body_break, NO_KEY, NO_KEY},
    [SCREEN_PAUSED] = {NO_KEY, NULL, UI_PAUSED_TITLE, UI_PAUSED_TEXT},
    [SCREEN_STORE_ERROR] = {NO_KEY, NULL, UI_WAIT_TITLE, UI_WAIT_TEXT},
    [SCREEN_SCREENED_OUT] = {NO_KEY, NULL, UI_SCREENED_OUT_TITLE,
                             UI_SCREENED_OUT_TEXT},
    [SCREEN_DONE] = {NO_KEY, NULL, UI_DONE_TITLE, UI_DONE_TEXT},
    [SCREEN_QUESTIONNAIRE] = {NO_KEY, body_questionnaire, NO_KEY, NO_KEY},
    [SCREEN_TIMEOUT] = {NO_KEY, body_timeout, NO_KEY, NO_KEY},
};

_Static_assert(sizeof screen_rows / sizeof *screen_rows == SESSION_SCREEN_COUNT,
               "one row per SessionScreen");

/* One row per BlockKind: the heading of its screens (NO_KEY: by screen and
** phase). */
static const int kind_titles[] = {
    [BLOCK_CONSENT] = UI_TITLE_CONSENT,
    [BLOCK_INSTRUCTIONS] = UI_TITLE_INSTRUCTIONS,
    [BLOCK_QUIZ] = UI_TITLE_QUIZ,
    [BLOCK_PRACTICE] = NO_KEY,
    [BLOCK_LEARN] = NO_KEY,
    [BLOCK_PREDICT] = NO_KEY,
    [BLOCK_COUNTERFACTUAL] = NO_KEY,
    [BLOCK_RATING] = NO_KEY,
    [BLOCK_BREAK] = UI_TITLE_BREAK,
    [BLOCK_DEBRIEF] = UI_TITLE_DEBRIEF,
    [BLOCK_QUESTIONNAIRE] = NO_KEY,
};

_Static_assert(sizeof kind_titles / sizeof *kind_titles == BLOCK_KIND_COUNT,
               "one row per BlockKind");

/* The text of a table's key; "" for NO_KEY. */
static const char *tr_opt(const Ctx *c, int k)
{
    return k == NO_KEY ? "" : tr(c, (UiKey)k);
}

static const char *default_title(const Ctx *c, char *buf, size_t n)
{
    const SessionView *v = c->v;
    if (v->title) {
        return v->title;
    }
    if ((unsigned)v->screen >= SESSION_SCREEN_COUNT) {
        return "";
    }
    const Block *b = v->block;
    if (b && (unsigned)b->kind < BLOCK_KIND_COUNT &&
        kind_titles[b->kind] != NO_KEY) {
        return tr(c, (UiKey)kind_titles[b->kind]);
    }
    SimPhase phase = b ? b->phase_id : SIM_PHASE_NONE;
    int sess = b ? b->session : 0;
    switch (v->screen) {
    case SCREEN_EXAMPLE:
        if (sess > 0) {
            snprintf(buf, n,
                     ui_fmt(c->rc.strings, UI_TITLE_SESSION_EXAMPLES,
                            "Session %d: examples"),
                     sess);
            return buf;
        }
        if (phase == SIM_PHASE_PRACTICE) {
            return tr(c, UI_TITLE_PRACTICE_EXAMPLE);
        }
        return v->explanation ? tr(c, UI_TITLE_LEARN_EXPL)
                              : tr(c, UI_TITLE_LEARN);
    case SCREEN_PREDICT:
        if (sess > 0) {
            snprintf(buf, n,
                     ui_fmt(c->rc.strings, UI_TITLE_SESSION_PREDICT,
                            "Session %d: predict the model"),
                     sess);
            return buf;
        }
        if (phase == SIM_PHASE_PRACTICE) {
            return tr(c, UI_TITLE_PRACTICE_PREDICT);
        }
        if (phase == SIM_PHASE_PRE) {
            return tr(c, UI_TITLE_PRE_PREDICT);
        }
        if (phase == SIM_PHASE_POST) {
            return tr(c, UI_TITLE_POST_PREDICT);
        }
        return tr(c, UI_TITLE_PREDICT);
    case SCREEN_COUNTERFACTUAL:
        if (phase == SIM_PHASE_PRE) {
            return tr(c, UI_TITLE_PRE_CF);
        }
        if (phase == SIM_PHASE_POST) {
            return tr(c, UI_TITLE_POST_CF);
        }
        return tr(c, UI_TITLE_CF);
    case SCREEN_FEEDBACK:
        return tr_opt(c, v->question ? screen_rows[SCREEN_QUIZ].title
                                     : screen_rows[SCREEN_FEEDBACK].title);
    default:
        return tr_opt(c, screen_rows[v->screen].title);
    }
}

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
    Ui *ui = c.ui;
    const Theme *th = c.th;
    const SessionView *v = c.v;
    Gfx *g = ui->gfx;
    scene_clear(sc);
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
        const char *title = default_title(&c, tbuf, sizeof tbuf);
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
    float foot_h = footer(&c, NULL, cx, 0, content_w);
    float foot_top = H;
    if (foot_h > 0) {
        foot_h += 2 * fpad;
        if (foot_h > H * 0.6f) {
            foot_h = H * 0.6f;
        }
        foot_top = H - foot_h;
        scene_rect(sc, (SDL_FRect){0, foot_top, W, foot_h}, th->panel);
        scene_rect(sc, (SDL_FRect){0, foot_top, W, 1}, th->border);
        footer(&c, sc, cx, foot_top + fpad, content_w);
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
    ** at the top and scrolls. */
    float avail = view_h - roundf(ui->u * 2.4f);
    if (h < avail && v->screen != SCREEN_CONSENT && v->screen != SCREEN_PAGE) {
        top = head_h + floorf((view_h - h) * 0.42f);
    }
    body_build(&c, sc, bx, top, bw, view_h);
    if (plain) {
        sc->layer = LAYER_FIXED;
        body_message(&c, sc, m, H * 0.38f, W - 2 * m, msg_head, msg_text);
    }
    sc->body_h = fmaxf(h + (top - head_h) + roundf(ui->u * 1.6f), view_h);
    sc->layer = LAYER_BODY;
}

/* ----------------------------------------------------------- start screen */

/* A context for screens without a session (start screen, dialogs): an
** empty view whose onset is marked, so buttons are enabled. */
static void ctx_plain(Ctx *c, ScreenCtx *sx, SessionView *view, Ui *ui)
{
    memset(c, 0, sizeof *c);
    memset(sx, 0, sizeof *sx);
    memset(view, 0, sizeof *view);
    view->onset_marked = 1;
    sx->view = view;
    c->sx = sx;
    c->v = view;
    c->ui = ui;
    c->th = &ui->th;
    c->rc.ui = ui;
}

static float start_field(Ctx *c, Scene *sc, float x, float y, float w,
                         const char *label, const char *value, int focus,
                         int action, const char *hint)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    float yy = y;
    scene_text(sc, ui->small_bold, x, yy, label, th->muted);
    yy += (float)ui->small_bold->line_h + ui->u * 0.25f;
    float h = roundf(ui->u * 2.4f);
    scene_begin_hit(sc, (SDL_FRect){x, yy, w, h}, action, 0, 1);
    scene_frame(sc, (SDL_FRect){x, yy, w, h}, ui->u * 0.3f, focus ? 2 : 1,
                focus ? th->accent : th->border, th->panel);
    float tw =
        scene_text(sc, ui->body, x + ui->u * 0.6f,
                   yy + (h - (float)ui->body->line_h) / 2, value, th->text);
    if (focus) {
        scene_rect(
            sc,
            (SDL_FRect){x + ui->u * 0.6f + tw + 1, yy + h * 0.2f, 2, h * 0.6f},
            th->accent);
    } else if (!*value && hint) {
        scene_text(sc, ui->body, x + ui->u * 0.6f,
                   yy + (h - (float)ui->body->line_h) / 2, hint, th->faint);
    }
    scene_end_hit(sc);
    return yy + h - y;
}

static const char *status_text(ParticipantStatus s)
{
    switch (s) {
    case PSTATUS_ACTIVE:
        return "interrupted";
    case PSTATUS_ABORTED:
        return "aborted";
    case PSTATUS_COMPLETED:
        return "complete";
    case PSTATUS_DECLINED:
        return "declined";
    case PSTATUS_SCREENED_OUT:
        return "screened out";
    }
    return "?";
}

static void human_bytes(double b, char *out, size_t n)
{
    const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        u++;
    }
    snprintf(out, n, u >= 2 ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

void screen_build_start(Scene *sc, Ui *ui, const StartState *st)
{
    Ctx c;
    ScreenCtx sx;
    SessionView none;
    ctx_plain(&c, &sx, &none, ui);
    const Theme *th = c.th;
    Gfx *g = ui->gfx;
    float W = (float)g->w, H = (float)g->h, m = ui->margin;
    scene_clear(sc);
    sc->layer = LAYER_FIXED;
    sc->body = (SDL_FRect){0, 0, W, H};
    /* Header band. */
    float head_h = roundf(ui->u * 5.2f);
    scene_rect(sc, (SDL_FRect){0, 0, W, head_h}, th->panel);
    scene_rect(sc, (SDL_FRect){0, head_h - 1, W, 1}, th->border);
    scene_text(sc, ui->small_bold, m, roundf(ui->u * 0.7f),
               "SIMLAB  \xC2\xB7  EXPERIMENTER", th->accent);
    scene_clip(sc, (SDL_FRect){m, 0, W - 2 * m, head_h});
    scene_text(sc, ui->h1, m, roundf(ui->u * 1.7f), st->title ? st->title : "",
               th->text);
    scene_unclip(sc);
    char sub[256];
    snprintf(sub, sizeof sub, "%s%s%s  \xC2\xB7  bundle %.16s",
             st->study_id ? st->study_id : "", st->preset ? "  \xC2\xB7  " : "",
             st->preset ? st->preset : "", st->hash ? st->hash : "");
    float subw = font_width(ui->small, sub, strlen(sub));
    scene_text(sc, ui->small, W - m - subw, roundf(ui->u * 0.7f), sub,
               th->muted);

    float top = head_h + roundf(ui->u * 1.4f);
    float gap = roundf(ui->u * 1.6f);
    float cw = fminf((W - 2 * m - gap) / 2, ui->u * 34);
    float x0 = (W - (2 * cw + gap)) / 2;
    /* Left: new participant. */
    float lx = x0, ly = top;
    float pad = roundf(ui->u * 1.2f);
    float card_h = H - top - roundf(ui->u * 4.5f);
    scene_frame(sc, (SDL_FRect){lx, ly, cw, card_h}, ui->u * 0.5f, 1,
                th->border, th->panel);
    float ix = lx + pad, iw = cw - 2 * pad, iy = ly + pad;
    scene_text(sc, ui->h2, ix, iy, "New participant", th->text);
    iy += (float)ui->h2->line_h + ui->u * 0.8f;
    iy += start_field(&c, sc, ix, iy, iw, "PARTICIPANT CODE", st->code,
                      st->code_focus, ACT_FOCUS_CODE, "optional, e.g. P017");
    iy += ui->u * 0.9f;
    /* Pilot toggle. */
    float tgl = roundf(ui->u * 1.3f);
    scene_begin_hit(sc, (SDL_FRect){ix, iy, iw, tgl + 4}, ACT_TOGGLE_PILOT, 0,
                    1);
    scene_frame(sc, (SDL_FRect){ix, iy, tgl * 1.8f, tgl}, tgl / 2, 1,
                st->pilot ? th->accent : th->border,
                st->pilot ? th->accent : th->disabled);
    scene_circle(sc, ix + (st->pilot ? tgl * 1.3f : tgl * 0.5f), iy + tgl / 2,
                 tgl * 0.38f, th->panel);
    scene_text(sc, ui->body, ix + tgl * 2.4f,
               iy + (tgl - (float)ui->body->line_h) / 2,
               st->pilot ? "Pilot participant (kept apart in the analysis)"
                         : "Pilot participant",
               th->text);
    scene_end_hit(sc);
    iy += tgl + ui->u * 1.1f;
    /* Condition selector. */
    scene_text(sc, ui->small_bold, ix, iy, "CONDITION", th->muted);
    iy += (float)ui->small_bold->line_h + ui->u * 0.25f;
    float bh = roundf(ui->u * 2.4f);
    float arrow = bh;
    button(&c, sc, ix, iy, arrow, bh, "\xE2\x80\xB9", NULL, ACT_COND_PREV, 0,
           st->n_conditions > 1, 0);
    button(&c, sc, ix + iw - arrow, iy, arrow, bh, "\xE2\x80\xBA", NULL,
           ACT_COND_NEXT, 0, st->n_conditions > 1, 0);
    const char *cond = st->n_conditions && st->cond_index >= 0
                           ? st->conditions[st->cond_index]
                           : "(none)";
    float cwid = font_width(ui->bold, cond, strlen(cond));
    scene_text(sc, ui->bold, ix + (iw - cwid) / 2,
               iy + (bh - (float)ui->bold->line_h) / 2, cond, th->text);
    iy += bh + ui->u * 0.3f;
    char note[200];
    if (st->cond_index == st->assigned_index) {
        snprintf(note, sizeof note, "Assigned by the %s rule.",
                 st->assign_rule ? st->assign_rule : "assignment");
    } else {
        snprintf(note, sizeof note,
                 "Experimenter override (the rule would assign %s); recorded "
                 "as an override.",
                 st->assigned_index >= 0 ? st->conditions[st->assigned_index]
                                         : "?");
    }
    iy += text_para(sc, ui->small, note, ix, iy, iw,
                    st->cond_index == st->assigned_index ? th->muted : th->bad,
                    ALIGN_LEFT);
    float sbw = iw;
    float sbh = roundf(ui->u * 3.0f);
    float sby = ly + card_h - pad - sbh;
    button(&c, sc, ix, sby, sbw, sbh, "Start participant", "Enter", ACT_START,
           0, 1, 1);

    /* Right: unfinished participants. */
    float rx = x0 + cw + gap, ry = top;
    scene_frame(sc, (SDL_FRect){rx, ry, cw, card_h}, ui->u * 0.5f, 1,
                th->border, th->panel);
    float jx = rx + pad, jw = cw - 2 * pad, jy = ry + pad;
    scene_text(sc, ui->h2, jx, jy, "Resume a participant", th->text);
    jy += (float)ui->h2->line_h + ui->u * 0.5f;
    if (st->n_unfinished == 0) {
        jy += text_para(sc, ui->body,
                        "No unfinished participants in this database.", jx, jy,
                        jw, th->muted, ALIGN_LEFT);
    }
    float rowh = roundf(ui->u * 3.2f);
    for (size_t i = 0; i < st->n_unfinished; i++) {
        if (jy + rowh > ry + card_h - pad) {
            char more[64];
            snprintf(more, sizeof more, "and %zu more", st->n_unfinished - i);
            scene_text(sc, ui->small, jx, jy, more, th->muted);
            break;
        }
        const ParticipantInfo *p = &st->unfinished[i];
        char l1[160], l2[200];
        snprintf(l1, sizeof l1, "%s", p->code[0] ? p->code : p->id);
        snprintf(l2, sizeof l2, "%s  \xC2\xB7  %d of %d steps  \xC2\xB7  %s%s",
                 p->condition, p->n_done, p->n_trials, status_text(p->status),
                 p->pilot ? "  \xC2\xB7  pilot" : "");
        float rbw = font_width(ui->button, "Resume", 6) + ui->u * 2;
        scene_begin_hit(sc, (SDL_FRect){jx, jy, jw, rowh - 4}, ACT_RESUME,
                        (int)i, 1);
        scene_frame(sc, (SDL_FRect){jx, jy, jw, rowh - 4}, ui->u * 0.3f, 1,
                    th->border, th->panel_alt);
        scene_hover_last(sc, th->hover);
        scene_clip(sc, (SDL_FRect){jx, jy, jw - rbw - ui->u, rowh});
        scene_text(sc, ui->bold, jx + ui->u * 0.6f, jy + ui->u * 0.25f, l1,
                   th->text);
        scene_text(sc, ui->small, jx + ui->u * 0.6f,
                   jy + ui->u * 0.25f + (float)ui->bold->line_h, l2, th->muted);
        scene_unclip(sc);
        scene_text(sc, ui->button, jx + jw - rbw + ui->u * 0.2f,
                   jy + (rowh - 4 - (float)ui->button->line_h) / 2, "Resume",
                   th->accent);
        scene_end_hit(sc);
        jy += rowh;
    }

    /* Status line. */
    char fb[32], foot[1700];
    human_bytes(st->free_bytes, fb, sizeof fb);
    snprintf(foot, sizeof foot,
             "Database %s  \xC2\xB7  %s free  \xC2\xB7  %d complete  "
             "\xC2\xB7  station %s%s%s",
             st->db_path ? st->db_path : "", fb, st->n_complete,
             st->station && *st->station ? st->station : "(unnamed)",
             st->sync_line[0] ? "  \xC2\xB7  " : "", st->sync_line);
    float fy = H - roundf(ui->u * 3.2f);
    scene_clip(sc, (SDL_FRect){m, fy, W - 2 * m, ui->u * 3});
    scene_text(sc, ui->small, m, fy, foot,
               st->free_bytes < 1e9 || st->sync_bad ? th->bad : th->muted);
    scene_text(sc, ui->caption, m, fy + (float)ui->small->line_h + 2,
               "Enter start  \xC2\xB7  Tab pilot  \xC2\xB7  \xE2\x86\x90 "
               "\xE2\x86\x92 condition  \xC2\xB7  Ctrl + / Ctrl \xE2\x88\x92 "
               "text size  \xC2\xB7  Esc quit   |   during a run: Ctrl+Shift+P "
               "pause, Ctrl+Shift+A abort",
               th->faint);
    scene_unclip(sc);
    if (st->status[0]) {
        float sw = fminf(W - 2 * m, ui->u * 60);
        float shh = text_para(NULL, ui->small, st->status, 0, 0, sw - ui->u * 2,
                              th->text, ALIGN_LEFT) +
                    ui->u;
        float sy = fy - shh - ui->u * 0.6f;
        scene_frame(sc, (SDL_FRect){(W - sw) / 2, sy, sw, shh}, ui->u * 0.3f, 1,
                    th->bad, th->bad_bg);
        text_para(sc, ui->small, st->status, (W - sw) / 2 + ui->u,
                  sy + ui->u * 0.5f, sw - ui->u * 2, th->text, ALIGN_LEFT);
    }
}

/* ---------------------------------------------------------------- dialogs */

void screen_add_confirm(Scene *sc, Ui *ui, const char *title, const char *body,
                        const char *yes_label)
{
    Ctx c;
    ScreenCtx sx;
    SessionView none;
    ctx_plain(&c, &sx, &none, ui);
    Gfx *g = ui->gfx;
    float W = (float)g->w, H = (float)g->h;
    uint8_t prev = sc->layer;
    sc->layer = LAYER_OVERLAY;
    scene_rect(sc, (SDL_FRect){0, 0, W, H}, (SDL_Color){20, 24, 30, 150});
    float w = fminf(W - 2 * ui->margin, ui->u * 30);
    float pad = roundf(ui->u * 1.3f);
    float bh = roundf(ui->u * 2.6f);
    float th1 = text_para(NULL, ui->h2, title, 0, 0, w - 2 * pad, c.th->text,
                          ALIGN_LEFT);
    float th2 = text_para(NULL, ui->body, body, 0, 0, w - 2 * pad, c.th->text,
                          ALIGN_LEFT);
    float h = pad + th1 + ui->u * 0.6f + th2 + ui->u * 1.2f + bh + pad;
    float x = (W - w) / 2, y = (H - h) / 2;
    scene_frame(sc, (SDL_FRect){x, y, w, h}, ui->u * 0.6f, 1, c.th->border,
                c.th->panel);
    float yy = y + pad;
    yy += text_para(sc, ui->h2, title, x + pad, yy, w - 2 * pad, c.th->text,
                    ALIGN_LEFT);
    yy += ui->u * 0.6f;
    yy += text_para(sc, ui->body, body, x + pad, yy, w - 2 * pad, c.th->muted,
                    ALIGN_LEFT);
    yy += ui->u * 1.2f;
    float yw = button_width(&c, yes_label, "Y");
    float nw = button_width(&c, "Cancel", "N");
    button(&c, sc, x + w - pad - yw, yy, yw, bh, yes_label, "Y",
           ACT_CONFIRM_YES, 0, 1, 1);
    button(&c, sc, x + w - pad - yw - ui->u - nw, yy, nw, bh, "Cancel", "N",
           ACT_CONFIRM_NO, 0, 1, 0);
    sc->layer = prev;
}

void screen_add_note(Scene *sc, Ui *ui, const char *text)
{
    Gfx *g = ui->gfx;
    uint8_t prev = sc->layer;
    sc->layer = LAYER_OVERLAY;
    float W = (float)g->w, H = (float)g->h;
    float w = W - 2 * ui->margin;
    float h =
        text_para(NULL, ui->caption, text, 0, 0, w, ui->th.faint, ALIGN_CENTER);
    text_para(sc, ui->caption, text, ui->margin, H - h - ui->u * 0.5f, w,
              ui->th.faint, ALIGN_CENTER);
    sc->layer = prev;
}
