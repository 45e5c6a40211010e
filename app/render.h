/*
** Renderers of item inputs (image, text, text pair, tabular, with the
** edits of a perturbation highlighted) and of every explanation kind, and
** the parts they share: numbers in the study's language, text fitted to
** its box, chips, key caps and section labels. Each builds into a Scene at
** (x, y) within width w and returns the height it used; a NULL scene only
** measures. They read the study model and never change it.
** render.c: the shared parts and inputs; render_expl.c: the kind table,
** layouts, images and galleries; render_text.c: tokens, pairs, markdown,
** text and rules; render_chart.c: bars, features, prototypes and paths.
*/
#ifndef SIMLAB_APP_RENDER_H
#define SIMLAB_APP_RENDER_H

#include "app/assets.h"
#include "app/scene.h"
#include "experiment/screen_model.h"
#include "stimuli/study.h"

typedef struct RenderCtx {
    Ui *ui;
    Assets *assets;
    float max_image_h;        /* tallest an image may be drawn, px */
    int compact;              /* small cards */
    const UiStrings *strings; /* participant-facing texts; NULL: English */
    /* "reveal": "hover": values (token colours, bars, weights, numbers)
    ** are drawn only for the hovered or focused one, and each value is a
    ** hover region (its number: ScreenValue.hover) */
    int hover_mode;
    int hover_target; /* the hovered or focused value, -1 none */
} RenderCtx;

/* ------------------------------------------------ mirrored (RTL) layout */

/* Whether participant screens are laid out mirrored: the study's language
** runs right to left (ui_strings_rtl of rc->strings). The one switch every
** layout helper below reads. */
int render_rtl(const RenderCtx *rc);

/* Where a box w wide that a left-to-right layout places at x inside the
** container [cx, cx + cw) goes: x itself, or in a mirrored layout the same
** distance from the container's right edge (cx + cw - (x - cx) - w). Lay
** rows out start to end as for English and pass every x through this. */
float render_mx(const RenderCtx *rc, float cx, float cw, float x, float w);

/* The text alignment for align as written for a left-to-right layout:
** left (the start side) and right swap in a mirrored layout. */
int render_align(const RenderCtx *rc, int align);

/* ---------------------------------------------------------- numbers */

/* v as the screen model writes numbers (screen_format_num): for measuring
** the widest a column of them can be. */
void render_num(const RenderCtx *rc, double v, int decimals, int sign,
                char *out, size_t n);

/* -------------------------------------------------------- fitted text */

/* The face of font at the largest size, down to RENDER_MIN_SCALE of its
** own, at which text fits in w as one line; the smallest when none does. */
Font *render_fit_font(const RenderCtx *rc, Font *font, const char *text,
                      float w);
#define RENDER_MIN_SCALE 0.72f

/* text in the column [x, x + w): one line of font when it fits, else of a
** smaller size (render_fit_font), else wrapped at that size. align as
** text_para. Returns the height. */
float render_fit_text(const RenderCtx *rc, Scene *sc, Font *font,
                      const char *text, float x, float y, float w, SDL_Color c,
                      int align);

/* Whether a value numbered hover (ScreenValue.hover) is drawn: always
** outside hover mode, else when it is the hovered one. */
int render_value_shown(const RenderCtx *rc, int hover);

/* A hover region for value hover over r (in hover mode, while drawing). */
void render_hover_region(const RenderCtx *rc, Scene *sc, SDL_FRect r,
                         int hover);

/* An item's input as the screen model gives it: its image, its text runs
** (edits highlighted), the rows of a table. */
float render_input(const RenderCtx *rc, Scene *sc, const ScreenInput *in,
                   float x, float y, float w);

/* An explanation of the screen model, with its title above it. */
float render_explanation(const RenderCtx *rc, Scene *sc, const ScreenExpl *x,
                         float x0, float y, float w);

/* A labelled value chip ("Model output  Positive") at most max_w wide: its
** texts shrink to fit, and a chip that still does not fit puts the label
** above the value. Returns its width; *h (may be NULL) gets its height. */
float render_chip(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong, float max_w,
                  float *h);

/* render_chip without a width limit (the window's width), one line high;
** returns its width. strong: filled accent style. */
float render_pill(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong);
float render_pill_height(const RenderCtx *rc);

/* A key cap ("F", "Enter") drawn at (x, y) with height h; returns width. */
float render_keycap(const RenderCtx *rc, Scene *sc, float x, float y, float h,
                    const char *key);

/* A heading in small caps style (muted, bold, small) at the start of the
** column [x, x + w) (its right end when mirrored), shrunk or wrapped to
** fit the column; returns its height. */
float render_section_label(const RenderCtx *rc, Scene *sc, float x, float y,
                           float w, const char *text);

/* A colour bar bw wide with a caption at each end (lo at the left, hi at
** the right), centred in the column [x, x + w); captions that do not fit
** beside it go under its ends. Returns the height. */
float render_legend(const RenderCtx *rc, Scene *sc, const Tex *bar,
                    const char *lo, const char *hi, float x, float y, float w,
                    float bw);

#endif
