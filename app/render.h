/*
** Renderers of item inputs (image, text, text pair, tabular, with the
** edits of a perturbation highlighted) and of every explanation kind. Each
** builds into a Scene at (x, y) within width w and returns the height it
** used; a NULL scene only measures. They read the study model and never
** change it.
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

/* The class label for index c ("?" when out of range). */
const char *render_class_label(const RenderCtx *rc, int c);

/* An item's input. edits (may be NULL) are highlighted (perturbations);
** orig, when given for a tabular perturbation, supplies old values. */
float render_input(const RenderCtx *rc, Scene *sc, const ItemInput *in,
                   const Edit *edits, size_t n_edits, float x, float y,
                   float w);

/* An explanation. image is the item's image input (for heatmaps), or NULL.
** show_title: draw the payload's title above it. */
float render_explanation(const RenderCtx *rc, Scene *sc, const Explanation *e,
                         const ItemInput *image, float x, float y, float w);

/* A labelled value chip ("Model output  Positive"); returns its width.
** strong: filled accent style. */
float render_pill(const RenderCtx *rc, Scene *sc, float x, float y,
                  const char *label, const char *value, int strong);
float render_pill_height(const RenderCtx *rc);

/* A key cap ("F", "Enter") drawn at (x, y) with height h; returns width. */
float render_keycap(const RenderCtx *rc, Scene *sc, float x, float y, float h,
                    const char *key);

/* A heading line in small caps style (muted, bold, small) at the start of
** the column [x, x + w) (its right end when mirrored); returns height. */
float render_section_label(const RenderCtx *rc, Scene *sc, float x, float y,
                           float w, const char *text);

#endif
