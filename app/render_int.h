/*
** Internal to the renderers (render.c, render_expl.c, render_text.c,
** render_chart.c): the helpers they share and the drawing function of each
** explanation kind, which render_expl.c's table names. Not for use outside
** app/render*.c.
*/
#ifndef SIMLAB_APP_RENDER_INT_H
#define SIMLAB_APP_RENDER_INT_H

#include "app/render.h"

#include <string.h>

#define NO_BG ((SDL_Color){0, 0, 0, 0})

/* The participant-facing text of key k in the study's language. */
static inline const char *tr(const RenderCtx *rc, UiKey k)
{
    return ui_str(rc->strings, k);
}

static inline SDL_Color with_alpha(SDL_Color c, uint8_t a)
{
    c.a = a;
    return c;
}

/* A number (with its sign and unit) as one left-to-right run, so that a
** right-to-left line does not move its sign or unit: its width, and
** drawing it with its left edge at x. */
static inline float value_width(Font *f, const char *text)
{
    return font_run_width(f, text, strlen(text), TEXT_LTR);
}
static inline float value_draw(Scene *sc, Font *f, float x, float y,
                               const char *text, SDL_Color c)
{
    return scene_text_run(sc, f, x, y, text, strlen(text), c, TEXT_LTR);
}

/* The texture t scaled to fit w x max_h at (x, y) (a framed note when it
** could not be loaded); returns the height, *out_w (may be NULL) the
** width. */
float render_image_fit(const RenderCtx *rc, Scene *sc, const Tex *t, float x,
                       float y, float w, float max_h, float *out_w);

/* How an explanation kind is drawn: the node nd (its payload and its
** texts) at (x, y) within width w; returns the height used. */
typedef float (*RenderFn)(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                          float x, float y, float w);

/* render_expl.c: images, galleries, layouts and composites. */
float rnd_image(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w);
float rnd_gallery(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                  float y, float w);
float rnd_layout(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                 float y, float w);
float rnd_composite(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                    float x, float y, float w);

/* render_text.c: texts. */
float rnd_tokens(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                 float y, float w);
float rnd_pairs(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w);
float rnd_markdown(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                   float x, float y, float w);
float rnd_pretext(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                  float y, float w);
float rnd_rules(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w);

/* render_chart.c: values as bars. */
float rnd_bars(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
               float y, float w);
float rnd_features(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                   float x, float y, float w);
float rnd_prototype(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                    float x, float y, float w);
float rnd_path(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
               float y, float w);

/* A small box with text above the point (cx, top) (a value shown on
** hover), kept inside the column [x, x + w). */
void render_tooltip(const RenderCtx *rc, Scene *sc, float cx, float top,
                    const char *text, float x, float w);

#endif
