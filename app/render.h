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
#include "stimuli/study.h"

typedef struct RenderCtx {
    Ui *ui;
    Assets *assets;
    const StudyClass *classes;
    size_t n_classes;
    float max_image_h;        /* tallest an image may be drawn, px */
    int compact;              /* small cards: no colour-bar legends */
    const UiStrings *strings; /* participant-facing texts; NULL: English */
    /* "reveal": "hover": values (token colours, bars, weights, numbers)
    ** are drawn only for the hovered or focused one */
    int hover_mode;
    int hover_target; /* the hovered or focused value, -1 none */
    int *hover_next;  /* while drawing: the number of the next value (in
                         expl_hover_targets' order); NULL: no hover regions */
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

/* The arrow of the line "from -> to" as the wrapper sets it (text_flow,
** app/scene.h): U+2190 when that line runs right to left, else U+2192. The
** line's direction is that of its first strong character (digits and
** punctuation do not count) in from, else in to, else the study's
** (render_rtl): "40 -> 50" points left in an Arabic study. from and to are
** NUL-terminated (NULL: empty). A UTF-8 string. */
const char *render_arrow(const RenderCtx *rc, const char *from, const char *to);

/* ---------------------------------------------------------- numbers */

/* v with decimals digits after the study's decimal separator ("number.
** decimal": a comma in de, fr, es), a true minus sign (U+2212) when
** negative and, with sign set, "+" when positive. A UTF-8 string in out. In
** a line of right-to-left text the sign stays before the digits (the bidi
** layer keeps a sign with its number). */
void render_num(const RenderCtx *rc, double v, int decimals, int sign,
                char *out, size_t n);

/* fmt (a format of the string table, e.g. "evidence %+.2f") with its first
** conversion spec (e.g. "%+.2f") replaced by value, into out: fill the
** placeholders one by one, in their order, then render_percent. A fmt
** without spec is copied. */
void render_subst(const char *fmt, const char *spec, const char *value,
                  char *out, size_t n);
/* Turns every "%%" of text into "%" (in place). */
void render_percent(char *text);

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

/* Numbers hover regions: the first number of a payload's n values while
** drawing (sc not NULL and rc->hover_next set; the counter moves on by n),
** else -1. */
int render_hover_base(const RenderCtx *rc, const Scene *sc, size_t n);

/* Whether value k (numbered from base, render_hover_base) is drawn: always
** outside hover mode, else when it is the hovered one. */
int render_value_shown(const RenderCtx *rc, int base, size_t k);

/* The class label for index c ("?" when out of range). */
const char *render_class_label(const RenderCtx *rc, int c);

/* An item's input. edits (may be NULL) are highlighted (perturbations);
** orig, when given for a tabular perturbation, supplies old values. */
float render_input(const RenderCtx *rc, Scene *sc, const ItemInput *in,
                   const Edit *edits, size_t n_edits, float x, float y,
                   float w);

/* An explanation, with its title above it. input is the item's input (an
** image payload without a file and a heatmap draw its image; pairs name
** its texts), or NULL. */
float render_explanation(const RenderCtx *rc, Scene *sc, const Explanation *e,
                         const ItemInput *input, float x, float y, float w);

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
