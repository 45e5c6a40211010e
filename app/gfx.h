/*
** Graphics core of the runner: the window and renderer, glyph-atlas fonts
** (measuring and drawing UTF-8 text without per-string textures), drawing
** primitives (rounded rectangles, circles, thick lines) and colormaps.
** SDL lives only in app/.
*/
#ifndef SIMLAB_APP_GFX_H
#define SIMLAB_APP_GFX_H

#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"

/* ----------------------------------------------------------------- fonts */

typedef enum FontFace {
    FACE_REGULAR = 0,
    FACE_BOLD = 1,
    FACE_MONO = 2,
    FACE_ITALIC = 3, /* oblique: *italic* runs of markdown explanations */
    FACE_COUNT = 4
} FontFace;

typedef struct Glyph {
    uint32_t cp;     /* code point; 0 = empty hash slot */
    int16_t advance; /* pen advance, px */
    int16_t x_off;   /* where the glyph's surface starts, px from pen */
    uint16_t w, h;   /* cell size in the atlas */
    uint16_t ax, ay; /* cell position in the atlas page */
    uint8_t page;    /* atlas page index */
    uint8_t loaded;
    uint8_t src;   /* 0: the face's own font; k + 1: fallback font k */
    uint8_t color; /* a colour bitmap (emoji): drawn without tinting */
    int16_t y_off; /* fallback glyphs: baseline shift to the face's, px */
} Glyph;

#define FONT_MAX_PAGES 8
/* Fallback fonts (from fontconfig) a face may borrow glyphs from. */
#define FONT_MAX_FALLBACK 16

struct Fonts;

typedef struct Font {
    FontFace face;
    int px; /* pixel size */
    TTF_Font *ttf;
    SDL_Renderer *renderer; /* uploads glyphs met while measuring */
    int ascent, line_h;     /* px */
    Glyph ascii[128];       /* fast path */
    Glyph *table;           /* open-addressing hash of other code points */
    size_t table_cap, table_n;
    SDL_Texture *pages[FONT_MAX_PAGES];
    int n_pages;
    int shelf_x, shelf_y, shelf_h; /* packing cursor in the last page */
    struct Fonts *owner;
    /* opened at px on first use; a bold face's are the fallback family's
    ** bold face when fontconfig has one */
    TTF_Font *fallback[FONT_MAX_FALLBACK];
    /* Runs that need shaping are shaped whole by HarfBuzz (SDL_ttf) in a
    ** font of their own per direction, set to that direction and the
    ** run's script: [0] left to right (Devanagari, Thai, ...), [1] right
    ** to left (Arabic, Hebrew, ...); their textures are cached (runs). */
    struct {
        TTF_Font *ttf;
        char script[5];
        int src;    /* 0: the face's own file; k + 1: fallback font k */
        int opened; /* src and script were tried (ttf NULL: it failed) */
    } shape[2];
    /* FONT_SHAPED_CACHE entries in sets of FONT_SHAPED_WAYS chosen by
    ** the run's hash; a full set evicts round robin */
    struct ShapedRun *runs;
    int runs_next;
} Font;

/* Enough for the distinct words of a long Arabic page (each is a run),
** so that drawing a frame never shapes again. */
#define FONT_SHAPED_CACHE 1024
#define FONT_SHAPED_WAYS  4

typedef struct ShapedRun {
    uint64_t hash; /* FNV-1a of the run's bytes and script; 0 = empty */
    size_t len;
    int w, h;
    int y_off;        /* baseline shift to the face's, px */
    SDL_Texture *tex; /* NULL until drawn */
} ShapedRun;

typedef struct FallbackHit {
    uint32_t cp;  /* 0 = empty slot */
    int16_t font; /* index into Fonts.fb_paths, -1: no font has cp */
} FallbackHit;

typedef struct Fonts {
    SDL_Renderer *renderer;
    char *paths[FACE_COUNT];
    Font **fonts; /* every face/size opened so far */
    size_t n_fonts, cap_fonts;
    /* The fallback chain (stimuli/glyphs.h, the one `simlab check` tests
    ** against), opened on the first character the faces lack. */
    struct GlyphChain *chain;
    int chain_tried;
    char *fb_paths[FONT_MAX_FALLBACK];
    int fb_index[FONT_MAX_FALLBACK];
    int n_fb;
    /* The bold face of each fallback font (fontconfig's), looked up when
    ** bold text first borrows from it: NULL when its family has none. */
    char *fb_bold_paths[FONT_MAX_FALLBACK];
    int fb_bold_index[FONT_MAX_FALLBACK];
    uint8_t fb_bold_tried[FONT_MAX_FALLBACK];
    FallbackHit *hits; /* code point -> fallback font, one query each */
    size_t hits_cap, hits_n;
    int rtl;       /* the study's direction (fonts_set_rtl) */
    char lang[36]; /* the study's language tag (fonts_set_language) */
} Fonts;

/* Finds the four DejaVu faces in font_dir. Characters they lack are drawn
** from the first font of the fontconfig fallback chain that has them (Noto
** Sans CJK, Noto Sans Arabic, Noto Color Emoji, ...), glyph by glyph.
** Returns SIM_ERR_IO naming the missing file. */
int fonts_init(Fonts *fonts, SDL_Renderer *renderer, const char *font_dir,
               SimError *err);
void fonts_free(Fonts *fonts);

/* Sets the direction of text that has no strong character of its own: 1
** when the participant's language runs right to left (ui_strings_rtl),
** 0 (the default) otherwise. Lines and paragraphs without letters
** ("0.42", "(3)") are ordered in that direction, and text_flow aligns
** ALIGN_LEFT paragraphs to the right when it is 1. */
void fonts_set_rtl(Fonts *fonts, int rtl);

/* The study's language (a BCP 47 tag; NULL or "" for none): the fallback
** chain is sorted for it, so Han characters come in the forms of the
** language's region (zh-Hans: Noto Sans CJK SC, ja: JP, zh-Hant: TC, ko: KR).
** Takes effect only before the chain is first opened (the first character
** the faces lack); returns 0 then, or -1 when the chain is already open for
** another language. */
int fonts_set_language(Fonts *fonts, const char *tag);

/* The font of face at px pixels (opened and cached on first use); NULL
** when the font file cannot be opened. Borrowed until fonts_free. */
Font *fonts_get(Fonts *fonts, FontFace face, float px);

/* Width in px of text[0..len) set in font as one line (kerning and
** shaping included). */
float font_width(Font *font, const char *text, size_t len);

/* Draws text[0..len) as one line with its top at (x, y). Returns the
** width. Mixed-direction text is ordered by the Unicode bidi algorithm
** (app/bidi.h): the line's direction is that of its first strong
** character (else the study's, fonts_set_rtl), each run of one level is
** placed by rule L2, right-to-left runs are shaped right to left by
** HarfBuzz with their brackets mirrored, so "LIME 0.42" keeps its order
** inside Arabic text. */
float font_draw(Font *font, SDL_Renderer *r, float x, float y, const char *text,
                size_t len, SDL_Color color);

/* How font_run_width and font_run_draw set their text. */
enum {
    TEXT_LINE = 0, /* a whole line: the bidi algorithm orders it */
    TEXT_LTR = 1,  /* one run at an even level, left to right as stored */
    TEXT_RTL = 2   /* one run at an odd level: right to left, shaped as a
                      whole, brackets mirrored */
};

/* font_width and font_draw for a run whose direction the caller resolved
** already (text_flow's atoms): dir is TEXT_LINE, TEXT_LTR or TEXT_RTL. */
float font_run_width(Font *font, const char *text, size_t len, int dir);
float font_run_draw(Font *font, SDL_Renderer *r, float x, float y,
                    const char *text, size_t len, SDL_Color color, int dir);

/* The direction of text set as a line: 1 when its first strong character
** (digits do not count) runs right to left (Arabic, Hebrew, ...), 0 when
** it is another letter, -1 when it has none. */
int text_direction(const char *text, size_t len);

/* Whether a line may break before cp with no space: between CJK ideographs,
** kana and Hangul (not before closing punctuation). */
int text_break_before(uint32_t prev, uint32_t cp);

/* Decodes the UTF-8 code point at s[*i] (len bytes in s) and advances *i;
** invalid bytes decode to U+FFFD one byte at a time. */
uint32_t utf8_next(const char *s, size_t len, size_t *i);

/* ------------------------------------------------------------ primitives */

typedef struct Gfx {
    SDL_Window *window;
    SDL_Renderer *renderer;
    int w, h;          /* output size in pixels */
    float px_per_pt;   /* output pixels per window point (HiDPI) */
    SDL_Texture *disc; /* anti-aliased white disc, for corners/dots */
    int disc_r;        /* its radius in texels */
    int vsync;         /* the renderer presents with vsync */
    char renderer_name[32];
} Gfx;

/* Creates the anti-aliased disc texture used by the primitives. */
int gfx_init_primitives(Gfx *g, SimError *err);
void gfx_free_primitives(Gfx *g);
/* Re-reads the output size (after a resize). */
void gfx_update_size(Gfx *g);

void gfx_fill_rect(Gfx *g, SDL_FRect r, SDL_Color c);
void gfx_fill_rrect(Gfx *g, SDL_FRect r, float radius, SDL_Color c);
/* A rounded rectangle with a border of width bw. */
void gfx_frame_rrect(Gfx *g, SDL_FRect r, float radius, float bw,
                     SDL_Color border, SDL_Color fill);
void gfx_fill_circle(Gfx *g, float cx, float cy, float radius, SDL_Color c);
void gfx_line(Gfx *g, float x0, float y0, float x1, float y1, float width,
              SDL_Color c);

/* Saves the current render target as a PNG. */
int gfx_save_png(Gfx *g, const char *path, SimError *err);

/* ------------------------------------------------------------- colormaps */

typedef struct Colormap {
    const char *name;
    const uint8_t (*anchors)[3]; /* sRGB anchor colours, evenly spaced */
    int n_anchors;
} Colormap;

/* The colormap called name ("viridis", "cividis", "magma", "gray"); viridis
** for NULL or unknown names. */
const Colormap *colormap_find(const char *name);

/* Colour of t in [0,1] (clamped): interpolated between the two nearest
** anchors in CIELAB, so that lightness changes evenly. */
SDL_Color colormap_sample(const Colormap *cm, double t);

/* Diverging blue-white-orange scale for signed weights: t in [-1, 1];
** negative is blue, positive orange, 0 near white. */
SDL_Color colormap_diverging(double t);

/* CIELAB lightness L* of an sRGB colour (for tests and contrast). */
double color_lightness(SDL_Color c);

/* ---------------------------------------------------------------- window */

typedef struct GfxOptions {
    const char *title;
    int windowed;      /* 0: fullscreen on the display */
    int width, height; /* windowed size, points (0: 1280 x 720) */
    int display;       /* display index */
    int vsync;         /* ask for vsync */
    int hidden;        /* do not show the window (tests) */
} GfxOptions;

/* Initialises SDL video, SDL_image and SDL_ttf and opens the window and
** renderer. On failure everything opened is closed again. */
int gfx_open(Gfx *g, const GfxOptions *o, SimError *err);
void gfx_close(Gfx *g);

/* simlab's data folder, the one holding fonts/ (and studies/, lang/):
** $SIMLAB_ASSETS, else ../share/simlab from the executable's folder (as
** installed: bin/ and share/simlab/; a build tree stages the source's
** assets/ as BUILD/share/simlab). Writes it to out and returns SIM_OK;
** else err says which folder lacks the fonts. */
int gfx_find_assets(char *out, size_t n, SimError *err);

#endif
