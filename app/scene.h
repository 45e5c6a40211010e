/*
** Scenes: a retained display list built from what a screen should show
** (rects, text, textures, lines) plus the clickable regions, drawn every
** frame without reading the session again. Also the look (theme, type
** sizes) and rich-text layout with word wrap. SDL only, no session logic.
*/
#ifndef SIMLAB_APP_SCENE_H
#define SIMLAB_APP_SCENE_H

#include <SDL2/SDL.h>
#include <stddef.h>
#include <stdint.h>

#include "app/gfx.h"

/* ------------------------------------------------------------ look & size */

typedef struct Theme {
    SDL_Color bg, panel, panel_alt, border, text, muted, faint;
    SDL_Color accent, accent_hover, accent_text, hover, selected, model;
    SDL_Color highlight, highlight_text, ok, ok_bg, bad, bad_bg, warn_bg;
    SDL_Color keycap, keycap_text, disabled, disabled_text, shadow;
} Theme;

typedef struct Ui {
    Gfx *gfx;
    Fonts *fonts;
    Theme th;
    float font_scale; /* participant's text size setting (1 = default) */
    float u;          /* body text size in px; every length derives from it */
    float margin;     /* outer margin, px */
    Font *body, *bold, *small, *small_bold, *caption, *h1, *h2, *mono;
    Font *italic; /* body size, oblique */
    Font *button, *key;
} Ui;

/* Derives u, margins and the fonts from the output size and font_scale. */
void ui_update_metrics(Ui *ui);
void ui_init_theme(Ui *ui);

/* ------------------------------------------------------------ the scene */

typedef enum SceneLayer {
    LAYER_BODY = 0,   /* scrolls inside Scene.body */
    LAYER_FIXED = 1,  /* header and response bar */
    LAYER_OVERLAY = 2 /* confirmation dialogs, experimenter notes */
} SceneLayer;

typedef enum CmdKind {
    CMD_RECT = 0,
    CMD_RRECT,
    CMD_FRAME,  /* rounded rect with border: color = border, fill = inside */
    CMD_CIRCLE, /* r.x, r.y = centre, r.w = radius */
    CMD_LINE,   /* (r.x, r.y) -> (r.w, r.h), width */
    CMD_TEXT,
    CMD_TEXTURE,
    CMD_CLIP_BEGIN, /* clip to r (in layer coordinates) */
    CMD_CLIP_END
} CmdKind;

typedef struct SceneCmd {
    uint8_t kind;
    uint8_t layer;
    int16_t hit; /* hit region whose hover state recolours it */
    SDL_FRect r;
    float radius, width;
    SDL_Color color; /* fill, text, line or border colour */
    SDL_Color fill;  /* CMD_FRAME inside */
    SDL_Color hover; /* colour when its hit region is hovered; a=0 */
    Font *font;
    uint32_t text_off, text_len;
    SDL_Texture *tex;
    SDL_Rect src; /* w = 0: whole texture */
    uint8_t alpha;
    uint8_t dir; /* CMD_TEXT: TEXT_LINE, TEXT_LTR or TEXT_RTL (gfx.h) */
    int16_t box; /* the box (scene_box_begin) it was drawn in, -1 none */
} SceneCmd;

/* A box text must stay inside: a card, a chip, a button, a legend's
** column, a cell of a layout (scene_box_begin). */
typedef struct SceneBox {
    SDL_FRect r;
    uint8_t layer;
    int16_t parent;   /* the box it lies in, -1 none */
    const char *what; /* "card", "chip", ... (a literal) */
} SceneBox;

/* What a click (or the autopilot) on a region means. */
typedef enum UiAction {
    ACT_NONE = 0,
    ACT_CHOOSE,     /* value = class or option index */
    ACT_RATE,       /* value = 1..points */
    ACT_CONFIDENCE, /* value = 1..confidence points */
    ACT_CONTINUE,
    ACT_DECLINE,
    ACT_CONFIRM_YES,
    ACT_CONFIRM_NO,
    ACT_START,  /* experimenter screen: start a new participant */
    ACT_RESUME, /* value = index in the unfinished list */
    ACT_TOGGLE_PILOT,
    ACT_COND_PREV,
    ACT_COND_NEXT,
    ACT_FOCUS_CODE,
    ACT_QUIT,
    ACT_FONT_SMALLER,
    ACT_FONT_LARGER,
    ACT_PICK,   /* questionnaire: value = question * 256 + option or point */
    ACT_FIELD,  /* questionnaire: value = the question whose field to type in */
    ACT_REVEAL, /* the explanation's show/hide button: value = 1 show, 0 hide */
    ACT_HOVER   /* a value of an explanation shown on hover: value = its
                   number (expl_hover_targets' order) */
} UiAction;

typedef struct SceneHit {
    SDL_FRect r;
    uint8_t layer;
    int action;
    int value;
    int enabled;
} SceneHit;

typedef struct Scene {
    SceneCmd *cmds;
    size_t n_cmds, cap_cmds;
    SceneHit *hits;
    size_t n_hits, cap_hits;
    char *text;
    size_t text_len, text_cap;
    SDL_FRect body;  /* viewport of LAYER_BODY */
    float body_h;    /* content height of LAYER_BODY (for scrolling) */
    float content_h; /* the height of what LAYER_BODY draws that must be
                        scrolled to (an area kept empty does not count);
                        0: body_h (scene_content_h) */
    uint8_t layer;   /* layer of new commands */
    int16_t hit;     /* hit region of new commands, -1 none */
    SceneBox *boxes; /* every box opened since scene_clear */
    size_t n_boxes, cap_boxes;
    int16_t box;    /* the open box of new commands, -1 none */
    int boxes_lost; /* boxes open that could not be stored */
    int oom;        /* sticky: a command, region or text was dropped for
                       want of memory since scene_clear (scene_oom) */
} Scene;

void scene_init(Scene *sc);
/* Empties sc for the next screen (memory kept) and forgets an oom. */
void scene_clear(Scene *sc);

/* The height of the body's content that counts for scrolling: content_h,
** or body_h when none was set. */
float scene_content_h(const Scene *sc);
void scene_free(Scene *sc);

/* 1 when something meant for sc since the last scene_clear was dropped for
** want of memory (a command, a clickable region, text, a laid-out line):
** the scene is incomplete and must not be shown as the screen. 0 else. */
int scene_oom(const Scene *sc);
/* Records such a loss, for the builders of a scene whose own memory ran
** out (their commands are then missing). sc NULL (measuring): no-op. */
void scene_set_oom(Scene *sc);

void scene_rect(Scene *sc, SDL_FRect r, SDL_Color c);
void scene_rrect(Scene *sc, SDL_FRect r, float radius, SDL_Color c);
void scene_frame(Scene *sc, SDL_FRect r, float radius, float bw,
                 SDL_Color border, SDL_Color fill);
void scene_circle(Scene *sc, float cx, float cy, float radius, SDL_Color c);
void scene_line(Scene *sc, float x0, float y0, float x1, float y1, float w,
                SDL_Color c);
void scene_texture(Scene *sc, SDL_Texture *tex, const SDL_Rect *src,
                   SDL_FRect dst, uint8_t alpha);
void scene_clip(Scene *sc, SDL_FRect r);
void scene_unclip(Scene *sc);
/* One line of text with its top at y; returns its width. */
float scene_text(Scene *sc, Font *font, float x, float y, const char *text,
                 SDL_Color c);
float scene_text_n(Scene *sc, Font *font, float x, float y, const char *text,
                   size_t len, SDL_Color c);
/* One run of text whose direction is resolved (dir: TEXT_LTR, TEXT_RTL, or
** TEXT_LINE for a whole line, as scene_text_n); returns its width. */
float scene_text_run(Scene *sc, Font *font, float x, float y, const char *text,
                     size_t len, SDL_Color c, int dir);
/* Sets the hover colour of the last command. */
void scene_hover_last(Scene *sc, SDL_Color hover);
/* Adds a clickable region; returns its index (and makes it the region of
** the commands that follow until scene_end_hit), or -1 when sc is NULL or
** out of memory (scene_oom then says so). */
int scene_begin_hit(Scene *sc, SDL_FRect r, int action, int value, int enabled);
void scene_end_hit(Scene *sc);

/* Opens a box r of kind what (a literal: "card", "chip", "button",
** "legend", "cell"): the commands that follow, until scene_box_end, are
** meant to lie inside it (tests check that text does). Boxes nest. No-op
** when sc is NULL. */
void scene_box_begin(Scene *sc, SDL_FRect r, const char *what);
void scene_box_end(Scene *sc);

/* The hit region at point (x, y) in output pixels given the body's scroll
** offset, or -1. */
int scene_hit_at(const Scene *sc, float x, float y, float scroll);
/* The first enabled region with action (and value, unless value < 0). */
int scene_find_hit(const Scene *sc, int action, int value);

/* Draws the scene. scroll offsets LAYER_BODY; hover is a hit index or -1. */
void scene_render(const Scene *sc, Gfx *g, float scroll, int hover);

/* -------------------------------------------------------------- rich text */

typedef struct Span {
    const char *text;
    size_t len;
    Font *font;
    SDL_Color fg;
    SDL_Color bg;  /* a = 0: no highlight */
    int underline; /* 1: underline (edits); 2: strike through */
} Span;

enum { ALIGN_LEFT = 0, ALIGN_CENTER = 1, ALIGN_RIGHT = 2 };

/* Lays out spans as wrapped lines in the column [x, x + w) starting at top
** y, emitting commands into sc (sc NULL: measure only); when memory runs
** out the text is cut short and sc is marked (scene_oom). line_spacing
** multiplies the font's line height. When rects is not NULL it receives,
** for each span, the rectangle of its first fragment (leftmost on its first
** line). Returns the height used. Words longer than w are broken between
** characters.
** Mixed-direction text follows the Unicode bidi algorithm (app/bidi.h):
** each paragraph (text between newlines, across spans) takes the direction
** of its first strong character, else the study's (fonts_set_rtl on the
** spans' fonts); its levels are resolved once, lines are broken in logical
** order, and each line's words and runs are placed in visual order (rule
** L2), right-to-left runs shaped right to left. ALIGN_LEFT means the start
** side of the paragraph's own direction: the right for a right-to-left
** paragraph (its first strong character, or the study's direction when it
** has none), so English item text stays left-aligned in an Arabic study;
** layout that mirrors with the study asks render_align for its alignment. */
float text_flow(Scene *sc, const Span *spans, size_t n, float x, float y,
                float w, float line_spacing, int align, SDL_FRect *rects);

/* Plain wrapped paragraph in one font; returns the height. */
float text_para(Scene *sc, Font *font, const char *text, float x, float y,
                float w, SDL_Color c, int align);

/* Width of the widest line of text (split at newlines) in font. */
float text_width(Font *font, const char *text);

/* Splits text[0..len) at its "**" markers into spans that alternate
** between copies of plain and marked (text and len filled in, markers
** left out; empty stretches are skipped). On success *out is a new array
** of *n spans (sim_free) and 0 is returned; -1 when out of memory. */
int text_split_marked(const char *text, size_t len, const Span *plain,
                      const Span *marked, Span **out, size_t *n);

/* Paragraph with **bold** markers in font (its bold face: bold). */
float text_marked(Scene *sc, Font *font, Font *bold, const char *text, float x,
                  float y, float w, SDL_Color c, int align);

#endif
