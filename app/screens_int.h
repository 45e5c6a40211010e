/*
** Internal to the screen builders (screens.c, screens_page.c,
** screens_item.c, screens_footer.c, screens_start.c): the build context,
** the mirroring helpers and the parts several screens share. Not for use
** outside app/screens*.c.
*/
#ifndef SIMLAB_APP_SCREENS_INT_H
#define SIMLAB_APP_SCREENS_INT_H

#include "app/screens.h"

/* What every part of a screen reads while it is built: the screen model
** and the drawing environment. */
typedef struct Ctx {
    const ScreenCtx *sx;
    const ScreenSlots *slots; /* the study's item-screen slots, or NULL */
    Ui *ui;
    RenderCtx rc;
    const ScreenModel *m;
    const Theme *th;
    float content_end;         /* while building the body: the lowest content
                                  drawn (not an area kept empty), px */
    const ScreenArea *tallest; /* without slots: the explanation area in
                                  its tallest state, which it keeps */
} Ctx;

/* The participant-facing text of key k in the study's language. */
static inline const char *tr(const Ctx *c, UiKey k)
{
    return ui_str(c->rc.strings, k);
}

/* Mirrored layout (right-to-left study): the x of a box w wide that a
** left-to-right layout puts at x in the container [cx, cx + cw), and the
** alignment of start-aligned text. See render_mx. */
static inline float mx(const Ctx *c, float cx, float cw, float x, float w)
{
    return render_mx(&c->rc, cx, cw, x, w);
}

static inline int al(const Ctx *c, int align)
{
    return render_align(&c->rc, align);
}

/* Content drawn inside a card at (x, y) within width w; sc NULL measures.
** Returns the height. */
typedef float (*ContentFn)(Ctx *c, Scene *sc, float x, float y, float w,
                           const void *arg);

/* A white card with a border around content; returns its height. */
float scr_card(Ctx *c, Scene *sc, float x, float y, float w, ContentFn fn,
               const void *arg);
/* scr_card at least min_h high (the content at its top). */
float scr_card_min(Ctx *c, Scene *sc, float x, float y, float w, float min_h,
                   ContentFn fn, const void *arg);

/* A button with an optional key cap; style 0 neutral, 1 primary, 2
** selected, 3 quiet. Returns w. */
float scr_button(Ctx *c, Scene *sc, float x, float y, float w, float h,
                 const char *label, const char *key, int action, int value,
                 int enabled, int style);

/* The width a button needs for label and key (may be NULL). */
float scr_button_width(Ctx *c, const char *label, const char *key);

/* The response bar at the bottom (screens_footer.c); returns its height. */
float scr_footer(Ctx *c, Scene *sc, float x, float y, float w);

/* A heading and a paragraph with **bold** markers, centred. */
float scr_body_message(Ctx *c, Scene *sc, float x, float y, float w,
                       const char *head, const char *text);

/* Bodies of the screens (screen_rows in screens.c): the content of a
** scrolling screen at top y in the column [x, x + w) of a view view_h
** high; sc NULL measures. Return the height. */
float scr_body_page(Ctx *c, Scene *sc, float x, float y, float w, float view_h);
float scr_body_break(Ctx *c, Scene *sc, float x, float y, float w,
                     float view_h);
float scr_body_timeout(Ctx *c, Scene *sc, float x, float y, float w,
                       float view_h);
float scr_body_quiz(Ctx *c, Scene *sc, float x, float y, float w, float view_h);
float scr_body_feedback(Ctx *c, Scene *sc, float x, float y, float w,
                        float view_h);
float scr_body_item(Ctx *c, Scene *sc, float x, float y, float w, float view_h);

/* ----------------------------------------- item screens (screens_item.c) */

/* The geometry of item screens in a column w wide: two columns (item,
** explanation) or stacked, and the content widths of the cards. */
typedef struct ItemGeom {
    int two_col;   /* item and explanation side by side */
    float gap;     /* between cards */
    float left_w;  /* item card beside the explanation */
    float right_w; /* explanation card beside the item */
    float side_content_w, full_content_w; /* inside those cards */
} ItemGeom;
void scr_item_geom(const Ctx *c, float w, ItemGeom *g);

/* The height of the explanation area a's content (in its tallest state)
** in a card whose content is w wide. */
float scr_area_h(Ctx *c, const ScreenArea *a, float w);

/* ---------------------------------------- the reservoir (screens_res.c) */

/* The reservoir across the column [x, x + w) at y: its title and rows of
** cards (c->m->reservoir); card_h > 0 makes every card that high (the
** slots'), else each row is as tall as its tallest card. Returns the
** height. */
float scr_reservoir(Ctx *c, Scene *sc, float x, float y, float w, float card_h);
/* The height of reservoir card k when n cards share the width w. */
float scr_reservoir_card_h(Ctx *c, const ScreenResCard *k, size_t n, float w);
/* The height of a reservoir of n cards card_h high across w. */
float scr_reservoir_h(Ctx *c, size_t n, float card_h, float w);

#endif
