/*
** Window-independent drawing helpers: glyph-atlas fonts, primitives built
** from an anti-aliased disc texture, PNG dumps and colormaps. Nothing here
** knows about sessions or studies.
*/
#include "app/gfx.h"

#include <SDL2/SDL_image.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/bidi.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/glyphs.h"

#define ATLAS_SIZE 1024

/* ------------------------------------------------------------------ UTF-8 */

uint32_t utf8_next(const char *s, size_t len, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t p = *i;
    uint32_t c = u[p];
    int n;
    uint32_t min;
    if (c < 0x80) {
        *i = p + 1;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        n = 1, c &= 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 2, c &= 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 3, c &= 0x07, min = 0x10000;
    } else {
        *i = p + 1;
        return 0xFFFD;
    }
    if (p + (size_t)n >= len) {
        *i = p + 1;
        return 0xFFFD;
    }
    for (int k = 1; k <= n; k++) {
        if ((u[p + (size_t)k] & 0xC0) != 0x80) {
            *i = p + 1;
            return 0xFFFD;
        }
        c = (c << 6) | (u[p + (size_t)k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *i = p + 1;
        return 0xFFFD;
    }
    *i = p + (size_t)n + 1;
    return c;
}

/* ------------------------------------------------------------------ fonts */

static const char *const FACE_FILES[FACE_COUNT] = {
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
    "DejaVuSans-Oblique.ttf"};

int fonts_init(Fonts *fonts, SDL_Renderer *renderer, const char *font_dir,
               SimError *err)
{
    memset(fonts, 0, sizeof *fonts);
    fonts->renderer = renderer;
    for (int f = 0; f < FACE_COUNT; f++) {
        char path[1024];
        int n = snprintf(path, sizeof path, "%s/%s", font_dir, FACE_FILES[f]);
        if (n < 0 || (size_t)n >= sizeof path) {
            fonts_free(fonts);
            return sim_fail(err, SIM_ERR_IO, "%s: font path too long",
                            font_dir);
        }
        SDL_RWops *rw = SDL_RWFromFile(path, "rb");
        if (!rw) {
            fonts_free(fonts);
            return sim_fail(err, SIM_ERR_IO, "%s: cannot open font: %s", path,
                            SDL_GetError());
        }
        SDL_RWclose(rw);
        fonts->paths[f] = sim_strdup(path);
        if (!fonts->paths[f]) {
            fonts_free(fonts);
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}

static void font_free(Font *f)
{
    if (!f) {
        return;
    }
    if (f->ttf) {
        TTF_CloseFont(f->ttf);
    }
    if (f->runs) {
        for (int i = 0; i < FONT_SHAPED_CACHE; i++) {
            if (f->runs[i].tex) {
                SDL_DestroyTexture(f->runs[i].tex);
            }
        }
        sim_free(f->runs);
    }
    for (int d = 0; d < 2; d++) {
        if (f->shape[d].ttf) {
            TTF_CloseFont(f->shape[d].ttf);
        }
    }
    for (int i = 0; i < FONT_MAX_FALLBACK; i++) {
        if (f->fallback[i]) {
            TTF_CloseFont(f->fallback[i]);
        }
    }
    for (int i = 0; i < f->n_pages; i++) {
        SDL_DestroyTexture(f->pages[i]);
    }
    sim_free(f->table);
    sim_free(f);
}

void fonts_free(Fonts *fonts)
{
    if (!fonts) {
        return;
    }
    for (size_t i = 0; i < fonts->n_fonts; i++) {
        font_free(fonts->fonts[i]);
    }
    sim_free(fonts->fonts);
    for (int f = 0; f < FACE_COUNT; f++) {
        sim_free(fonts->paths[f]);
    }
    for (int k = 0; k < fonts->n_fb; k++) {
        sim_free(fonts->fb_paths[k]);
        sim_free(fonts->fb_bold_paths[k]);
    }
    sim_free(fonts->hits);
    glyph_chain_free(fonts->chain);
    memset(fonts, 0, sizeof *fonts);
}

Font *fonts_get(Fonts *fonts, FontFace face, float px)
{
    int ipx = (int)lroundf(px);
    if (ipx < 6) {
        ipx = 6;
    }
    if (ipx > 400) {
        ipx = 400;
    }
    for (size_t i = 0; i < fonts->n_fonts; i++) {
        if (fonts->fonts[i]->face == face && fonts->fonts[i]->px == ipx) {
            return fonts->fonts[i];
        }
    }
    if (sim_grow((void **)&fonts->fonts, &fonts->cap_fonts, fonts->n_fonts + 1,
                 sizeof(Font *)) != 0) {
        return NULL;
    }
    Font *f = sim_calloc(1, sizeof *f);
    if (!f) {
        return NULL;
    }
    f->face = face;
    f->px = ipx;
    f->ttf = TTF_OpenFont(fonts->paths[face], ipx);
    if (!f->ttf) {
        sim_free(f);
        return NULL;
    }
    TTF_SetFontHinting(f->ttf, TTF_HINTING_LIGHT);
    TTF_SetFontKerning(f->ttf, 1);
    f->ascent = TTF_FontAscent(f->ttf);
    f->line_h = TTF_FontHeight(f->ttf);
    f->table_cap = 256;
    f->table = sim_calloc(f->table_cap, sizeof(Glyph));
    if (!f->table) {
        font_free(f);
        return NULL;
    }
    f->renderer = fonts->renderer;
    f->owner = fonts;
    fonts->fonts[fonts->n_fonts++] = f;
    return f;
}

static Glyph *glyph_slot(Font *f, uint32_t cp)
{
    if (cp < 128) {
        return &f->ascii[cp];
    }
    if ((f->table_n + 1) * 2 > f->table_cap) {
        size_t ncap = f->table_cap * 2;
        Glyph *nt = sim_calloc(ncap, sizeof(Glyph));
        if (!nt) {
            return NULL;
        }
        for (size_t i = 0; i < f->table_cap; i++) {
            if (f->table[i].cp) {
                size_t h = (f->table[i].cp * 2654435761u) & (ncap - 1);
                while (nt[h].cp) {
                    h = (h + 1) & (ncap - 1);
                }
                nt[h] = f->table[i];
            }
        }
        sim_free(f->table);
        f->table = nt;
        f->table_cap = ncap;
    }
    size_t h = (cp * 2654435761u) & (f->table_cap - 1);
    while (f->table[h].cp && f->table[h].cp != cp) {
        h = (h + 1) & (f->table_cap - 1);
    }
    if (!f->table[h].cp) {
        f->table[h].cp = cp;
        f->table_n++;
    }
    return &f->table[h];
}

static int atlas_place(Font *f, SDL_Renderer *r, int w, int h, int *ax, int *ay)
{
    if (f->n_pages == 0 || f->shelf_x + w > ATLAS_SIZE) {
        if (f->n_pages > 0) {
            f->shelf_x = 0;
            f->shelf_y += f->shelf_h + 1;
            f->shelf_h = 0;
        }
    }
    if (f->n_pages == 0 || f->shelf_y + h > ATLAS_SIZE) {
        if (f->n_pages >= FONT_MAX_PAGES || !r) {
            return -1;
        }
        SDL_Texture *t =
            SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888,
                              SDL_TEXTUREACCESS_STATIC, ATLAS_SIZE, ATLAS_SIZE);
        if (!t) {
            return -1;
        }
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
        /* Clear the page: static textures start undefined. */
        uint32_t *zero = sim_calloc((size_t)ATLAS_SIZE * ATLAS_SIZE, 4);
        if (zero) {
            SDL_UpdateTexture(t, NULL, zero, ATLAS_SIZE * 4);
            sim_free(zero);
        }
        f->pages[f->n_pages++] = t;
        f->shelf_x = f->shelf_y = f->shelf_h = 0;
    }
    *ax = f->shelf_x;
    *ay = f->shelf_y;
    f->shelf_x += w + 1;
    if (h > f->shelf_h) {
        f->shelf_h = h;
    }
    return f->n_pages - 1;
}

/* The fallback font (index into fonts->fb_paths) for cp, or -1: asks the
** fontconfig chain once per code point and remembers the answer. */
static int fallback_for(Fonts *fonts, uint32_t cp)
{
    if (!fonts->chain && !fonts->chain_tried) {
        SimError err;
        fonts->chain_tried = 1;
        if (glyph_chain_open(fonts->lang, &fonts->chain, &err) != SIM_OK) {
            fonts->chain = NULL;
        }
    }
    if (!fonts->chain) {
        return -1;
    }
    if ((fonts->hits_n + 1) * 2 > fonts->hits_cap) {
        size_t ncap = fonts->hits_cap ? fonts->hits_cap * 2 : 64;
        FallbackHit *nt = sim_calloc(ncap, sizeof *nt);
        if (!nt) {
            return -1;
        }
        for (size_t i = 0; i < fonts->hits_cap; i++) {
            if (fonts->hits[i].cp) {
                size_t h = (fonts->hits[i].cp * 2654435761u) & (ncap - 1);
                while (nt[h].cp) {
                    h = (h + 1) & (ncap - 1);
                }
                nt[h] = fonts->hits[i];
            }
        }
        sim_free(fonts->hits);
        fonts->hits = nt;
        fonts->hits_cap = ncap;
    }
    size_t h = (cp * 2654435761u) & (fonts->hits_cap - 1);
    while (fonts->hits[h].cp && fonts->hits[h].cp != cp) {
        h = (h + 1) & (fonts->hits_cap - 1);
    }
    if (fonts->hits[h].cp) {
        return fonts->hits[h].font;
    }
    int found = -1;
    char path[1024];
    int index = 0;
    if (glyph_chain_font_for(fonts->chain, cp, path, sizeof path, &index)) {
        for (int k = 0; k < fonts->n_fb; k++) {
            if (fonts->fb_index[k] == index &&
                strcmp(fonts->fb_paths[k], path) == 0) {
                found = k;
            }
        }
        if (found < 0 && fonts->n_fb < FONT_MAX_FALLBACK) {
            fonts->fb_paths[fonts->n_fb] = sim_strdup(path);
            if (fonts->fb_paths[fonts->n_fb]) {
                fonts->fb_index[fonts->n_fb] = index;
                found = fonts->n_fb++;
            }
        }
    }
    fonts->hits[h].cp = cp;
    fonts->hits[h].font = (int16_t)found;
    fonts->hits_n++;
    return found;
}

/* The file (and face index) of fallback font k for f's face: for bold
** text the bold face of k's family when fontconfig has one (looked up
** once per fallback font), else k itself. */
static const char *fallback_file(Font *f, int k, int *index)
{
    Fonts *o = f->owner;
    if (f->face == FACE_BOLD && !o->fb_bold_tried[k]) {
        o->fb_bold_tried[k] = 1;
        char path[1024];
        int bi = 0;
        if (glyph_chain_bold_of(o->chain, o->fb_paths[k], o->fb_index[k], path,
                                sizeof path, &bi)) {
            o->fb_bold_paths[k] = sim_strdup(path);
            o->fb_bold_index[k] = bi;
        }
    }
    if (f->face == FACE_BOLD && o->fb_bold_paths[k]) {
        *index = o->fb_bold_index[k];
        return o->fb_bold_paths[k];
    }
    *index = o->fb_index[k];
    return o->fb_paths[k];
}

/* A fallback font of the oblique face (*emphasis*): the fallback fonts
** (CJK, Arabic) have no oblique face of their own, so their glyphs are
** slanted (SDL_ttf's synthetic italic), or emphasis would not show. */
static void oblique_fallback(const Font *f, TTF_Font *ttf)
{
    if (f->face == FACE_ITALIC) {
        TTF_SetFontStyle(ttf, TTF_STYLE_ITALIC);
    }
}

/* Fallback font k of f's face, opened at f's size on first use. */
static TTF_Font *fallback_ttf(Font *f, int k)
{
    if (!f->fallback[k]) {
        int index = 0;
        const char *path = fallback_file(f, k, &index);
        f->fallback[k] = TTF_OpenFontIndex(path, f->px, index);
        if (f->fallback[k]) {
            TTF_SetFontHinting(f->fallback[k], TTF_HINTING_LIGHT);
            oblique_fallback(f, f->fallback[k]);
        }
    }
    return f->fallback[k];
}

/* Whether s (ARGB8888) has coloured pixels: a colour bitmap font. */
static int surface_colored(const SDL_Surface *s)
{
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row =
            (const uint32_t *)((const uint8_t *)s->pixels + y * s->pitch);
        for (int x = 0; x < s->w; x++) {
            uint32_t p = row[x];
            uint32_t r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF;
            if ((p >> 24) > 16 && (r != g || g != b)) {
                return 1;
            }
        }
    }
    return 0;
}

static Glyph *glyph_get(Font *f, SDL_Renderer *r, uint32_t cp)
{
    Glyph *g = glyph_slot(f, cp);
    if (!g) {
        return NULL;
    }
    if (g->loaded) {
        return g;
    }
    g->cp = cp;
    g->loaded = 1;
    TTF_Font *ttf = f->ttf;
    float scale = 1.0f;
    if (!TTF_GlyphIsProvided32(f->ttf, cp) && cp != 0xFFFD) {
        if (cp == '\t') {
            int minx, maxx, miny, maxy, adv;
            TTF_GlyphMetrics32(f->ttf, ' ', &minx, &maxx, &miny, &maxy, &adv);
            g->advance = (int16_t)(adv * 4);
            return g;
        }
        if (glyph_invisible(cp)) {
            return g; /* invisible */
        }
        int k = fallback_for(f->owner, cp);
        TTF_Font *fb = k >= 0 ? fallback_ttf(f, k) : NULL;
        if (fb && TTF_GlyphIsProvided32(fb, cp)) {
            ttf = fb;
            g->src = (uint8_t)(k + 1);
            /* Bitmap-only fonts (colour emoji) come at their one size,
            ** several times the face's: scale them to its line height.
            ** Outline fonts with tall line gaps (Noto Sans CJK: 1.45 em
            ** against DejaVu's 1.16) keep the size asked for, so that Han
            ** text is not drawn smaller than the Latin beside it. */
            int fh = TTF_FontHeight(fb);
            if (fh > 2 * f->line_h) {
                scale = (float)f->line_h / (float)fh;
            }
            g->y_off = (int16_t)lroundf((float)f->ascent -
                                        scale * (float)TTF_FontAscent(fb));
        }
    }
    int minx = 0, maxx = 0, miny = 0, maxy = 0, adv = 0;
    TTF_GlyphMetrics32(ttf, cp, &minx, &maxx, &miny, &maxy, &adv);
    g->advance = (int16_t)lroundf((float)adv * scale);
    if (!r || cp == ' ' || cp == 0xA0) {
        return g;
    }
    SDL_Surface *s =
        TTF_RenderGlyph32_Blended(ttf, cp, (SDL_Color){255, 255, 255, 255});
    if (!s) {
        return g;
    }
    if (s->format->format != SDL_PIXELFORMAT_ARGB8888) {
        SDL_Surface *c =
            SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_ARGB8888, 0);
        SDL_FreeSurface(s);
        s = c;
        if (!s) {
            return g;
        }
    }
    if (g->src) {
        g->color = (uint8_t)surface_colored(s);
    }
    if (scale != 1.0f) {
        int sw = (int)lroundf((float)s->w * scale);
        int sh = (int)lroundf((float)s->h * scale);
        SDL_Surface *d = SDL_CreateRGBSurfaceWithFormat(
            0, sw > 0 ? sw : 1, sh > 0 ? sh : 1, 32, SDL_PIXELFORMAT_ARGB8888);
        if (d && SDL_SoftStretchLinear(s, NULL, d, NULL) == 0) {
            SDL_FreeSurface(s);
            s = d;
            minx = (int)lroundf((float)minx * scale);
        } else if (d) {
            SDL_FreeSurface(d);
        }
    }
    int ax, ay;
    int page = atlas_place(f, r, s->w, s->h, &ax, &ay);
    if (page >= 0) {
        SDL_Rect dst = {ax, ay, s->w, s->h};
        SDL_UpdateTexture(f->pages[page], &dst, s->pixels, s->pitch);
        g->page = (uint8_t)page;
        g->ax = (uint16_t)ax;
        g->ay = (uint16_t)ay;
        g->w = (uint16_t)s->w;
        g->h = (uint16_t)s->h;
        g->x_off = (int16_t)(minx < 0 ? minx : 0);
    }
    SDL_FreeSurface(s);
    return g;
}

static float atlas_run(Font *f, SDL_Renderer *r, float x, float y,
                       const char *text, size_t len, SDL_Color color, int draw)
{
    if (!f) {
        return 0;
    }
    SDL_Renderer *up = f->renderer;
    float pen = 0;
    uint32_t prev = 0;
    int prev_src = 0;
    int cur_page = -1, cur_color = -1;
    size_t i = 0;
    while (i < len) {
        uint32_t cp = utf8_next(text, len, &i);
        if (cp == '\n' || cp == '\r') {
            continue;
        }
        Glyph *g = glyph_get(f, up, cp);
        if (!g) {
            continue;
        }
        if (prev && cp > ' ' && prev > ' ' && !g->src && !prev_src) {
            pen += (float)TTF_GetFontKerningSizeGlyphs32(f->ttf, prev, cp);
        }
        if (draw && g->w) {
            SDL_Texture *page = f->pages[g->page];
            if (g->page != cur_page || g->color != cur_color) {
                /* Colour glyphs (emoji) keep their colours. */
                if (g->color) {
                    SDL_SetTextureColorMod(page, 255, 255, 255);
                } else {
                    SDL_SetTextureColorMod(page, color.r, color.g, color.b);
                }
                SDL_SetTextureAlphaMod(page, color.a);
                cur_page = g->page;
                cur_color = g->color;
            }
            SDL_Rect src = {g->ax, g->ay, g->w, g->h};
            SDL_FRect dst = {x + pen + (float)g->x_off, y + (float)g->y_off,
                             (float)g->w, (float)g->h};
            SDL_RenderCopyF(r, page, &src, &dst);
        }
        pen += (float)g->advance;
        prev = cp;
        prev_src = g->src;
    }
    return pen;
}

/* ------------------------------------------------- mixed-direction lines */

void fonts_set_rtl(Fonts *fonts, int rtl)
{
    if (fonts) {
        fonts->rtl = rtl ? 1 : 0;
    }
}

int fonts_set_language(Fonts *fonts, const char *tag)
{
    if (!fonts) {
        return -1;
    }
    const char *t = tag ? tag : "";
    if (fonts->chain_tried) {
        return strcmp(fonts->lang, t) == 0 ? 0 : -1;
    }
    snprintf(fonts->lang, sizeof fonts->lang, "%s", t);
    return 0;
}

int text_direction(const char *text, size_t len)
{
    for (size_t i = 0; i < len;) {
        BidiClass c = bidi_class(utf8_next(text, len, &i));
        if (c == BIDI_LTR || c == BIDI_RTL) {
            return c == BIDI_RTL;
        }
    }
    return -1;
}

static int is_cjk(uint32_t cp)
{
    return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF) ||
           (cp >= 0x20000 && cp <= 0x3FFFF);
}

int text_break_before(uint32_t prev, uint32_t cp)
{
    static const uint32_t no_start[] = {
        0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF01,
        0xFF09, 0x300D, 0x300F, 0x3011, 0x30FC, 0x2026, 0x3009, 0x300B};
    static const uint32_t no_end[] = {0xFF08, 0x300C, 0x300E,
                                      0x3010, 0x3008, 0x300A};
    if (!(is_cjk(prev) || is_cjk(cp))) {
        return 0;
    }
    for (size_t i = 0; i < sizeof no_start / sizeof *no_start; i++) {
        if (cp == no_start[i]) {
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof no_end / sizeof *no_end; i++) {
        if (prev == no_end[i]) {
            return 0;
        }
    }
    /* Latin next to CJK stays with it unless one side is CJK text. */
    return is_cjk(prev) && is_cjk(cp) ? 1 : is_cjk(cp) && prev > 0x2000;
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    }
    return h ? h : 1;
}

/* The OpenType script of a right-to-left letter. */
static const char *rtl_script(uint32_t cp)
{
    if ((cp >= 0x0590 && cp <= 0x05FF) || (cp >= 0xFB1D && cp <= 0xFB4F)) {
        return "Hebr";
    }
    if (cp >= 0x0700 && cp <= 0x074F) {
        return "Syrc";
    }
    if (cp >= 0x0780 && cp <= 0x07BF) {
        return "Thaa";
    }
    if (cp >= 0x07C0 && cp <= 0x07FF) {
        return "Nkoo";
    }
    return "Arab";
}

/* The OpenType script of a left-to-right letter whose script needs
** shaping (clusters, reordered vowels, stacked marks), or NULL. */
static const char *ltr_script(uint32_t cp)
{
    static const struct {
        uint32_t lo, hi;
        const char *script;
    } blocks[] = {
        {0x0900, 0x097F, "Deva"}, {0x0980, 0x09FF, "Beng"},
        {0x0A00, 0x0A7F, "Guru"}, {0x0A80, 0x0AFF, "Gujr"},
        {0x0B00, 0x0B7F, "Orya"}, {0x0B80, 0x0BFF, "Taml"},
        {0x0C00, 0x0C7F, "Telu"}, {0x0C80, 0x0CFF, "Knda"},
        {0x0D00, 0x0D7F, "Mlym"}, {0x0D80, 0x0DFF, "Sinh"},
        {0x0E00, 0x0E7F, "Thai"}, {0x0E80, 0x0EFF, "Laoo"},
        {0x0F00, 0x0FFF, "Tibt"}, {0x1000, 0x109F, "Mymr"},
        {0x1780, 0x17FF, "Khmr"}, {0xA8E0, 0xA8FF, "Deva"},
    };
    if (cp < 0x0900 || cp > 0xA8FF) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        if (cp >= blocks[i].lo && cp <= blocks[i].hi) {
            return blocks[i].script;
        }
    }
    return NULL;
}

/* The font that shapes a run in direction rtl (0 or 1) whose first letter
** is cp: the face's own when it has cp, else the chain's (its bold face
** for bold text), set to that direction and cp's script. NULL when no
** font has cp. */
static TTF_Font *shape_font(Font *f, uint32_t cp, int rtl)
{
    const char *script = rtl ? rtl_script(cp) : ltr_script(cp);
    int src = 0;
    if (!script) {
        return NULL;
    }
    if (!TTF_GlyphIsProvided32(f->ttf, cp)) {
        int k = fallback_for(f->owner, cp);
        if (k < 0) {
            return NULL;
        }
        src = k + 1;
    }
    /* the same font and script as last time: its result, also a failure
    ** (not opened again on every redraw) */
    if (f->shape[rtl].opened && f->shape[rtl].src == src &&
        strcmp(f->shape[rtl].script, script) == 0) {
        return f->shape[rtl].ttf;
    }
    if (f->shape[rtl].ttf) {
        TTF_CloseFont(f->shape[rtl].ttf);
    }
    TTF_Font *ttf = NULL;
    if (src == 0) {
        ttf = TTF_OpenFont(f->owner->paths[f->face], f->px);
    } else {
        int index = 0;
        const char *path = fallback_file(f, src - 1, &index);
        ttf = TTF_OpenFontIndex(path, f->px, index);
        if (ttf) {
            oblique_fallback(f, ttf);
        }
    }
    if (ttf) {
        TTF_SetFontHinting(ttf, TTF_HINTING_LIGHT);
        TTF_SetFontKerning(ttf, 1);
        TTF_SetFontDirection(ttf, rtl ? TTF_DIRECTION_RTL : TTF_DIRECTION_LTR);
        TTF_SetFontScriptName(ttf, script);
    }
    f->shape[rtl].ttf = ttf;
    snprintf(f->shape[rtl].script, sizeof f->shape[rtl].script, "%s", script);
    f->shape[rtl].src = src;
    f->shape[rtl].opened = 1;
    return ttf;
}

/* Measures (and with draw, draws at x) text[0..len), shaped as a whole in
** f's shaping font of direction rtl (HarfBuzz orders the glyphs, forms
** clusters and, right to left, mirrors brackets). Sizes and textures are
** cached per text, script, font and direction. */
static float shaped_run(Font *f, int rtl, SDL_Renderer *r, float x, float y,
                        const char *text, size_t len, SDL_Color color, int draw)
{
    TTF_Font *ttf = f->shape[rtl].ttf;
    if (!f->runs) {
        f->runs = sim_calloc(FONT_SHAPED_CACHE, sizeof *f->runs);
        if (!f->runs) {
            return 0;
        }
    }
    uint64_t h = fnv1a(text, len) ^ fnv1a(f->shape[rtl].script, 4) ^
                 ((uint64_t)f->shape[rtl].src << 1) ^ (uint64_t)rtl;
    ShapedRun *set = &f->runs[(h % (FONT_SHAPED_CACHE / FONT_SHAPED_WAYS)) *
                              FONT_SHAPED_WAYS];
    ShapedRun *run = NULL;
    for (int i = 0; i < FONT_SHAPED_WAYS && !run; i++) {
        if (set[i].hash == h && set[i].len == len) {
            run = &set[i];
        }
    }
    if (run && (!draw || run->tex || !r)) {
        if (draw && run->tex) {
            SDL_SetTextureColorMod(run->tex, color.r, color.g, color.b);
            SDL_SetTextureAlphaMod(run->tex, color.a);
            SDL_FRect dst = {x, y + (float)run->y_off, (float)run->w,
                             (float)run->h};
            SDL_RenderCopyF(r, run->tex, NULL, &dst);
        }
        return (float)run->w;
    }
    char stack[512];
    char *z = len < sizeof stack ? stack : sim_malloc(len + 1);
    if (!z) {
        return 0;
    }
    memcpy(z, text, len);
    z[len] = '\0';
    if (!run) {
        run = NULL;
        for (int i = 0; i < FONT_SHAPED_WAYS && !run; i++) {
            run = set[i].hash == 0 ? &set[i] : NULL;
        }
        if (!run) {
            run = &set[f->runs_next];
            f->runs_next = (f->runs_next + 1) % FONT_SHAPED_WAYS;
        }
        if (run->tex) {
            SDL_DestroyTexture(run->tex);
        }
        memset(run, 0, sizeof *run);
        int w = 0, hh = 0;
        TTF_SizeUTF8(ttf, z, &w, &hh);
        run->hash = h;
        run->len = len;
        run->w = w;
        run->h = hh;
        run->y_off = f->ascent - TTF_FontAscent(ttf);
    }
    if (draw && r) {
        SDL_Surface *s =
            TTF_RenderUTF8_Blended(ttf, z, (SDL_Color){255, 255, 255, 255});
        if (s) {
            run->tex = SDL_CreateTextureFromSurface(r, s);
            run->w = s->w;
            run->h = s->h;
            SDL_FreeSurface(s);
            if (run->tex) {
                SDL_SetTextureBlendMode(run->tex, SDL_BLENDMODE_BLEND);
                SDL_SetTextureColorMod(run->tex, color.r, color.g, color.b);
                SDL_SetTextureAlphaMod(run->tex, color.a);
                SDL_FRect dst = {x, y + (float)run->y_off, (float)run->w,
                                 (float)run->h};
                SDL_RenderCopyF(r, run->tex, NULL, &dst);
            }
        }
    }
    if (z != stack) {
        sim_free(z);
    }
    return (float)run->w;
}

/* Characters at an odd level that the shaping font lacks (or a run of
** neutrals only): drawn from the atlas right to left, mirrored. */
static float mirrored_run(Font *f, SDL_Renderer *r, float x, float y,
                          const char *text, size_t len, SDL_Color color,
                          int draw)
{
    char stack[512] = {0};
    size_t cap = len * 4 + 4;
    char *z = cap <= sizeof stack ? stack : sim_malloc(cap);
    if (!z) {
        return 0;
    }
    size_t n = 0;
    for (size_t i = len; i > 0;) {
        /* the code point ending at byte i */
        size_t s = i - 1;
        while (s > 0 && ((unsigned char)text[s] & 0xC0) == 0x80 && i - s < 4) {
            s--;
        }
        size_t j = s;
        uint32_t cp = utf8_next(text, i, &j);
        if (j != i) { /* an invalid byte: one at a time */
            s = i - 1;
            cp = 0xFFFD;
        }
        n += sim_utf8_put(z + n, bidi_mirror(cp));
        i = s;
    }
    float w = atlas_run(f, r, x, y, z, n, color, draw);
    if (z != stack) {
        sim_free(z);
    }
    return w;
}

/* One run at an odd level, text[0..len) in logical order: its pieces the
** shaping font draws are shaped right to left; the others (brackets a
** script font lacks, emoji) come from the atlas, mirrored. The pieces
** run from the right. */
static float rtl_run(Font *f, SDL_Renderer *r, float x, float y,
                     const char *text, size_t len, SDL_Color color, int draw)
{
    uint32_t strong = 0;
    for (size_t i = 0; i < len && !strong;) {
        uint32_t cp = utf8_next(text, len, &i);
        strong = bidi_class(cp) == BIDI_RTL && cp != 0x200F ? cp : 0;
    }
    TTF_Font *ttf = strong ? shape_font(f, strong, 1) : NULL;
    if (!ttf) {
        return mirrored_run(f, r, x, y, text, len, color, draw);
    }
    /* Piece ends, from the logical end backwards (visual left first). */
    float pen = 0;
    size_t end = len;
    while (end > 0) {
        size_t i = 0, start = 0;
        int has = -1, cur = -1;
        while (i < end) {
            size_t p = i;
            uint32_t cp = utf8_next(text, end, &i);
            has = TTF_GlyphIsProvided32(ttf, cp) || glyph_invisible(cp);
            if (has != cur) {
                start = p;
                cur = has;
            }
        }
        float w = cur ? shaped_run(f, 1, r, x + pen, y, text + start,
                                   end - start, color, draw)
                      : mirrored_run(f, r, x + pen, y, text + start,
                                     end - start, color, draw);
        pen += w;
        end = start;
    }
    return pen;
}

/* Whether cp continues a shaped left-to-right piece: a letter of a script
** that needs shaping, or a joiner. */
static int ltr_shaped(uint32_t cp)
{
    return ltr_script(cp) != NULL || cp == 0x200C || cp == 0x200D;
}

/* One run at an even level: from the atlas as stored, except pieces in a
** script that needs shaping (Devanagari, Bengali, Thai, ...), which
** HarfBuzz shapes left to right. */
static float ltr_run(Font *f, SDL_Renderer *r, float x, float y,
                     const char *text, size_t len, SDL_Color color, int draw)
{
    /* Those scripts lie in U+0900..U+1FFF and U+A8E0..: lead bytes 0xE0,
    ** 0xE1 and 0xEA. */
    int maybe = 0;
    for (size_t i = 0; i < len && !maybe; i++) {
        unsigned char c = (unsigned char)text[i];
        maybe = c == 0xE0 || c == 0xE1 || c == 0xEA;
    }
    if (!maybe) {
        return atlas_run(f, r, x, y, text, len, color, draw);
    }
    float pen = 0;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        uint32_t first = utf8_next(text, len, &i);
        int shaped = ltr_shaped(first);
        size_t end = i;
        while (end < len) {
            size_t k = end;
            uint32_t cp = utf8_next(text, len, &k);
            /* marks follow their base */
            if (ltr_shaped(cp) != shaped && !(shaped && glyph_invisible(cp))) {
                break;
            }
            end = k;
        }
        TTF_Font *ttf = shaped ? shape_font(f, first, 0) : NULL;
        pen += ttf ? shaped_run(f, 0, r, x + pen, y, text + start, end - start,
                                color, draw)
                   : atlas_run(f, r, x + pen, y, text + start, end - start,
                               color, draw);
        i = end;
    }
    return pen;
}

/* One line: runs of one embedding level (app/bidi.h) placed left to
** right in visual order; even levels by ltr_run, odd ones by rtl_run.
** Text that is left to right throughout skips the algorithm. */
static float text_line(Font *f, SDL_Renderer *r, float x, float y,
                       const char *text, size_t len, SDL_Color color, int draw)
{
    if (!f) {
        return 0;
    }
    int rtl = f->owner && f->owner->rtl;
    int ascii = 1, letter = 0;
    for (size_t i = 0; i < len && ascii; i++) {
        unsigned char c = (unsigned char)text[i];
        ascii = c < 0x80;
        letter |= ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    }
    if (ascii && (letter || !rtl)) {
        return atlas_run(f, r, x, y, text, len, color, draw);
    }
    /* code points, their byte offsets and levels; then runs */
    enum { STACK_N = 128 };
    uint32_t cp_s[STACK_N + 1] = {0}, off_s[STACK_N + 1], order_s[STACK_N];
    uint8_t lev_s[STACK_N], rlev_s[STACK_N];
    uint32_t *cp = cp_s, *off = off_s, *order = order_s;
    uint8_t *lev = lev_s, *rlev = rlev_s;
    if (len > STACK_N) {
        cp = sim_malloc((len + 1) * sizeof *cp);
        off = sim_malloc((len + 1) * sizeof *off);
        order = sim_malloc(len * sizeof *order);
        lev = sim_malloc(len);
        rlev = sim_malloc(len);
    }
    float pen = 0;
    if (!cp || !off || !order || !lev || !rlev) {
        pen = atlas_run(f, r, x, y, text, len, color, draw);
        goto done;
    }
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        off[n] = (uint32_t)i;
        cp[n++] = utf8_next(text, len, &i);
    }
    off[n] = (uint32_t)len;
    if (bidi_plain(cp, n, rtl)) {
        pen = ltr_run(f, r, x, y, text, len, color, draw);
        goto done;
    }
    bidi_levels(cp, n, rtl, lev);
    /* runs of one level: their start bytes and levels in logical order
    ** (the starts go to cp[] once the levels are known) */
    size_t nr = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || lev[k] != lev[k - 1]) {
            rlev[nr] = lev[k];
            order[nr] = off[k]; /* run start byte, in logical order */
            nr++;
        }
    }
    for (size_t k = 0; k < nr; k++) {
        cp[k] = order[k]; /* starts kept while order is overwritten */
    }
    cp[nr] = (uint32_t)len;
    bidi_visual_order(rlev, nr, order);
    for (size_t k = 0; k < nr; k++) {
        uint32_t q = order[k];
        const char *s = text + cp[q];
        size_t sl = cp[q + 1] - cp[q];
        pen += rlev[q] & 1 ? rtl_run(f, r, x + pen, y, s, sl, color, draw)
                           : ltr_run(f, r, x + pen, y, s, sl, color, draw);
    }
done:
    if (cp != cp_s) {
        sim_free(cp);
        sim_free(off);
        sim_free(order);
        sim_free(lev);
        sim_free(rlev);
    }
    return pen;
}

static float text_any(Font *f, SDL_Renderer *r, float x, float y,
                      const char *text, size_t len, SDL_Color color, int draw,
                      int dir)
{
    if (!f) {
        return 0;
    }
    if (dir == TEXT_LTR) {
        return ltr_run(f, r, x, y, text, len, color, draw);
    }
    if (dir == TEXT_RTL) {
        return rtl_run(f, r, x, y, text, len, color, draw);
    }
    return text_line(f, r, x, y, text, len, color, draw);
}

float font_width(Font *font, const char *text, size_t len)
{
    return text_any(font, NULL, 0, 0, text, len, (SDL_Color){0, 0, 0, 0}, 0,
                    TEXT_LINE);
}

float font_draw(Font *font, SDL_Renderer *r, float x, float y, const char *text,
                size_t len, SDL_Color color)
{
    return text_any(font, r, x, y, text, len, color, 1, TEXT_LINE);
}

float font_run_width(Font *font, const char *text, size_t len, int dir)
{
    return text_any(font, NULL, 0, 0, text, len, (SDL_Color){0, 0, 0, 0}, 0,
                    dir);
}

float font_run_draw(Font *font, SDL_Renderer *r, float x, float y,
                    const char *text, size_t len, SDL_Color color, int dir)
{
    return text_any(font, r, x, y, text, len, color, 1, dir);
}

/* ------------------------------------------------------------- primitives */

int gfx_init_primitives(Gfx *g, SimError *err)
{
    const int R = 64;
    const int D = 2 * R;
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, D, D, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        return sim_fail(err, SIM_ERR_NOMEM, "disc surface: %s", SDL_GetError());
    }
    /* Coverage by 4x4 supersampling of each texel. */
    for (int y = 0; y < D; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
        for (int x = 0; x < D; x++) {
            int in = 0;
            for (int sy = 0; sy < 4; sy++) {
                for (int sx = 0; sx < 4; sx++) {
                    double px = x + (sx + 0.5) / 4.0 - R;
                    double py = y + (sy + 0.5) / 4.0 - R;
                    in += px * px + py * py <= (double)R * R;
                }
            }
            uint32_t a = (uint32_t)(in * 255 / 16);
            row[x] = (a << 24) | 0xFFFFFF;
        }
    }
    g->disc = SDL_CreateTextureFromSurface(g->renderer, s);
    SDL_FreeSurface(s);
    if (!g->disc) {
        return sim_fail(err, SIM_ERR_NOMEM, "disc texture: %s", SDL_GetError());
    }
    SDL_SetTextureBlendMode(g->disc, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(g->disc, SDL_ScaleModeLinear);
    g->disc_r = R;
    return SIM_OK;
}

void gfx_free_primitives(Gfx *g)
{
    if (g->disc) {
        SDL_DestroyTexture(g->disc);
        g->disc = NULL;
    }
}

void gfx_update_size(Gfx *g)
{
    int ww = 0, wh = 0;
    SDL_GetRendererOutputSize(g->renderer, &g->w, &g->h);
    SDL_GetWindowSize(g->window, &ww, &wh);
    g->px_per_pt = ww > 0 ? (float)g->w / (float)ww : 1.0f;
}

static void set_color(Gfx *g, SDL_Color c)
{
    SDL_SetRenderDrawBlendMode(g->renderer, c.a == 255 ? SDL_BLENDMODE_NONE
                                                       : SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(g->renderer, c.r, c.g, c.b, c.a);
}

void gfx_fill_rect(Gfx *g, SDL_FRect r, SDL_Color c)
{
    if (r.w <= 0 || r.h <= 0) {
        return;
    }
    set_color(g, c);
    SDL_RenderFillRectF(g->renderer, &r);
}

static void disc_quadrant(Gfx *g, int qx, int qy, SDL_FRect dst, SDL_Color c)
{
    SDL_Rect src = {qx * g->disc_r, qy * g->disc_r, g->disc_r, g->disc_r};
    SDL_SetTextureColorMod(g->disc, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(g->disc, c.a);
    SDL_RenderCopyF(g->renderer, g->disc, &src, &dst);
}

void gfx_fill_rrect(Gfx *g, SDL_FRect r, float radius, SDL_Color c)
{
    if (r.w <= 0 || r.h <= 0) {
        return;
    }
    /* Whole pixels: rects and corner textures must meet without gaps. */
    float x1 = roundf(r.x + r.w), y1 = roundf(r.y + r.h);
    r.x = roundf(r.x);
    r.y = roundf(r.y);
    r.w = x1 - r.x;
    r.h = y1 - r.y;
    float rad = radius;
    if (rad > r.w / 2) {
        rad = r.w / 2;
    }
    if (rad > r.h / 2) {
        rad = r.h / 2;
    }
    rad = floorf(rad);
    if (rad < 1 || !g->disc) {
        gfx_fill_rect(g, r, c);
        return;
    }
    disc_quadrant(g, 0, 0, (SDL_FRect){r.x, r.y, rad, rad}, c);
    disc_quadrant(g, 1, 0, (SDL_FRect){r.x + r.w - rad, r.y, rad, rad}, c);
    disc_quadrant(g, 0, 1, (SDL_FRect){r.x, r.y + r.h - rad, rad, rad}, c);
    disc_quadrant(g, 1, 1,
                  (SDL_FRect){r.x + r.w - rad, r.y + r.h - rad, rad, rad}, c);
    gfx_fill_rect(g, (SDL_FRect){r.x + rad, r.y, r.w - 2 * rad, r.h}, c);
    gfx_fill_rect(g, (SDL_FRect){r.x, r.y + rad, rad, r.h - 2 * rad}, c);
    gfx_fill_rect(
        g, (SDL_FRect){r.x + r.w - rad, r.y + rad, rad, r.h - 2 * rad}, c);
}

void gfx_frame_rrect(Gfx *g, SDL_FRect r, float radius, float bw,
                     SDL_Color border, SDL_Color fill)
{
    gfx_fill_rrect(g, r, radius, border);
    SDL_FRect in = {r.x + bw, r.y + bw, r.w - 2 * bw, r.h - 2 * bw};
    gfx_fill_rrect(g, in, radius - bw > 0 ? radius - bw : 0, fill);
}

void gfx_fill_circle(Gfx *g, float cx, float cy, float radius, SDL_Color c)
{
    SDL_FRect dst = {cx - radius, cy - radius, 2 * radius, 2 * radius};
    SDL_SetTextureColorMod(g->disc, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(g->disc, c.a);
    SDL_RenderCopyF(g->renderer, g->disc, NULL, &dst);
}

void gfx_line(Gfx *g, float x0, float y0, float x1, float y1, float width,
              SDL_Color c)
{
    float dx = x1 - x0, dy = y1 - y0;
    float len = sqrtf(dx * dx + dy * dy);
    if (len < 1e-3f) {
        return;
    }
    float nx = -dy / len * width / 2, ny = dx / len * width / 2;
    SDL_Vertex v[4];
    SDL_Color col = c;
    v[0] = (SDL_Vertex){{x0 + nx, y0 + ny}, col, {0, 0}};
    v[1] = (SDL_Vertex){{x1 + nx, y1 + ny}, col, {0, 0}};
    v[2] = (SDL_Vertex){{x1 - nx, y1 - ny}, col, {0, 0}};
    v[3] = (SDL_Vertex){{x0 - nx, y0 - ny}, col, {0, 0}};
    int idx[6] = {0, 1, 2, 0, 2, 3};
    SDL_RenderGeometry(g->renderer, NULL, v, 4, idx, 6);
}

int gfx_save_png(Gfx *g, const char *path, SimError *err)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, g->w, g->h, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        return sim_fail(err, SIM_ERR_NOMEM, "screenshot: %s", SDL_GetError());
    }
    if (SDL_RenderReadPixels(g->renderer, NULL, SDL_PIXELFORMAT_ARGB8888,
                             s->pixels, s->pitch) != 0) {
        SDL_FreeSurface(s);
        return sim_fail(err, SIM_ERR_IO, "screenshot: read pixels: %s",
                        SDL_GetError());
    }
    /* Opaque: the window has no meaningful alpha. */
    for (int y = 0; y < s->h; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
        for (int x = 0; x < s->w; x++) {
            row[x] |= 0xFF000000u;
        }
    }
    int rc = IMG_SavePNG(s, path);
    SDL_FreeSurface(s);
    if (rc != 0) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, IMG_GetError());
    }
    return SIM_OK;
}

/* -------------------------------------------------------------- colormaps */

/* Anchor colours of the published maps, evenly spaced from 0 to 1
** (matplotlib's viridis, magma and cividis sampled at equal steps). */
static const uint8_t VIRIDIS[11][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87},
    {0x35, 0x5f, 0x8d}, {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c},
    {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70}, {0x7a, 0xd1, 0x51},
    {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25}};
static const uint8_t MAGMA[11][3] = {
    {0x00, 0x00, 0x04}, {0x14, 0x0e, 0x36}, {0x3b, 0x0f, 0x70},
    {0x64, 0x1a, 0x80}, {0x8c, 0x29, 0x81}, {0xb7, 0x37, 0x79},
    {0xde, 0x49, 0x68}, {0xf7, 0x70, 0x5c}, {0xfe, 0x9f, 0x6d},
    {0xfe, 0xcf, 0x92}, {0xfc, 0xfd, 0xbf}};
static const uint8_t CIVIDIS[10][3] = {{0x00, 0x20, 0x4d}, {0x00, 0x33, 0x6f},
                                       {0x39, 0x48, 0x6b}, {0x57, 0x5c, 0x6d},
                                       {0x70, 0x71, 0x73}, {0x8a, 0x87, 0x79},
                                       {0xa6, 0x9d, 0x75}, {0xc4, 0xb5, 0x6c},
                                       {0xe4, 0xcf, 0x5b}, {0xff, 0xea, 0x46}};
static const uint8_t GRAY[2][3] = {{0, 0, 0}, {255, 255, 255}};
/* Blue - near white - orange (ColorBrewer RdBu blue arm and PuOr orange
** arm, both safe for the common colour-vision deficiencies). */
static const uint8_t DIVERGING[9][3] = {
    {0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde},
    {0xd1, 0xe5, 0xf0}, {0xf7, 0xf7, 0xf7}, {0xfe, 0xe0, 0xb6},
    {0xfd, 0xb8, 0x63}, {0xe0, 0x82, 0x14}, {0xb3, 0x58, 0x06}};

static const Colormap COLORMAPS[] = {
    {"viridis", VIRIDIS, 11},
    {"cividis", CIVIDIS, 10},
    {"magma", MAGMA, 11},
    {"gray", GRAY, 2},
};
static const Colormap DIVERGING_MAP = {"diverging", DIVERGING, 9};

const Colormap *colormap_find(const char *name)
{
    if (name) {
        for (size_t i = 0; i < sizeof COLORMAPS / sizeof COLORMAPS[0]; i++) {
            if (strcmp(COLORMAPS[i].name, name) == 0) {
                return &COLORMAPS[i];
            }
        }
        if (strcmp(name, "grey") == 0) {
            return &COLORMAPS[3];
        }
    }
    return &COLORMAPS[0];
}

static double srgb_to_linear(double c)
{
    c /= 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double linear_to_srgb(double c)
{
    if (c < 0) {
        c = 0;
    }
    if (c > 1) {
        c = 1;
    }
    c = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055;
    return c * 255.0;
}

static double lab_f(double t)
{
    const double d = 6.0 / 29.0;
    return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
}

static double lab_finv(double t)
{
    const double d = 6.0 / 29.0;
    return t > d ? t * t * t : 3 * d * d * (t - 4.0 / 29.0);
}

/* D65 white. */
static const double XN = 0.95047, YN = 1.0, ZN = 1.08883;

static void rgb_to_lab(const uint8_t rgb[3], double lab[3])
{
    double r = srgb_to_linear(rgb[0]), g = srgb_to_linear(rgb[1]),
           b = srgb_to_linear(rgb[2]);
    double x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
    double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    double z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
    double fx = lab_f(x / XN), fy = lab_f(y / YN), fz = lab_f(z / ZN);
    lab[0] = 116 * fy - 16;
    lab[1] = 500 * (fx - fy);
    lab[2] = 200 * (fy - fz);
}

static SDL_Color lab_to_color(const double lab[3])
{
    double fy = (lab[0] + 16) / 116;
    double fx = fy + lab[1] / 500;
    double fz = fy - lab[2] / 200;
    double x = XN * lab_finv(fx), y = YN * lab_finv(fy), z = ZN * lab_finv(fz);
    double r = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z;
    double g = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z;
    double b = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z;
    SDL_Color c = {(uint8_t)lround(linear_to_srgb(r)),
                   (uint8_t)lround(linear_to_srgb(g)),
                   (uint8_t)lround(linear_to_srgb(b)), 255};
    return c;
}

SDL_Color colormap_sample(const Colormap *cm, double t)
{
    if (!(t >= 0)) {
        t = 0;
    }
    if (t > 1) {
        t = 1;
    }
    double pos = t * (cm->n_anchors - 1);
    int i = (int)floor(pos);
    if (i >= cm->n_anchors - 1) {
        i = cm->n_anchors - 2;
    }
    double f = pos - i;
    double a[3], b[3], m[3];
    rgb_to_lab(cm->anchors[i], a);
    rgb_to_lab(cm->anchors[i + 1], b);
    for (int k = 0; k < 3; k++) {
        m[k] = a[k] + (b[k] - a[k]) * f;
    }
    return lab_to_color(m);
}

SDL_Color colormap_diverging(double t)
{
    if (!(t >= -1)) {
        t = -1;
    }
    if (t > 1) {
        t = 1;
    }
    return colormap_sample(&DIVERGING_MAP, (t + 1) / 2);
}

double color_lightness(SDL_Color c)
{
    uint8_t rgb[3] = {c.r, c.g, c.b};
    double lab[3];
    rgb_to_lab(rgb, lab);
    return lab[0];
}

/* ----------------------------------------------------------------- window */

int gfx_open(Gfx *g, const GfxOptions *o, SimError *err)
{
    memset(g, 0, sizeof *g);
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    SDL_SetHint(SDL_HINT_WINDOWS_NO_CLOSE_ON_ALT_F4, "1");
    SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0");
    SDL_SetHint(SDL_HINT_MOUSE_FOCUS_CLICKTHROUGH, "1");
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        return sim_fail(err, SIM_ERR_IO, "SDL_Init: %s", SDL_GetError());
    }
    if (TTF_Init() != 0) {
        SDL_Quit();
        return sim_fail(err, SIM_ERR_IO, "TTF_Init: %s", TTF_GetError());
    }
    IMG_Init(IMG_INIT_PNG | IMG_INIT_JPG);
    int n_disp = SDL_GetNumVideoDisplays();
    int disp = o->display >= 0 && o->display < n_disp ? o->display : 0;
    int w = o->width > 0 ? o->width : 1280, h = o->height > 0 ? o->height : 720;
    Uint32 flags = SDL_WINDOW_ALLOW_HIGHDPI | SDL_WINDOW_RESIZABLE;
    if (!o->windowed) {
        flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    }
    if (o->hidden) {
        flags |= SDL_WINDOW_HIDDEN;
    }
    g->window = SDL_CreateWindow(
        o->title ? o->title : "simlab", SDL_WINDOWPOS_CENTERED_DISPLAY(disp),
        SDL_WINDOWPOS_CENTERED_DISPLAY(disp), w, h, flags);
    if (!g->window) {
        gfx_close(g);
        return sim_fail(err, SIM_ERR_IO, "cannot open a window: %s",
                        SDL_GetError());
    }
    Uint32 rflags = SDL_RENDERER_ACCELERATED;
    if (o->vsync) {
        rflags |= SDL_RENDERER_PRESENTVSYNC;
    }
    g->renderer = SDL_CreateRenderer(g->window, -1, rflags);
    if (!g->renderer) {
        g->renderer = SDL_CreateRenderer(
            g->window, -1, o->vsync ? SDL_RENDERER_PRESENTVSYNC : 0);
    }
    if (!g->renderer) {
        g->renderer = SDL_CreateRenderer(g->window, -1, SDL_RENDERER_SOFTWARE);
    }
    if (!g->renderer) {
        gfx_close(g);
        return sim_fail(err, SIM_ERR_IO, "cannot create a renderer: %s",
                        SDL_GetError());
    }
    SDL_RendererInfo info;
    if (SDL_GetRendererInfo(g->renderer, &info) == 0) {
        g->vsync = (info.flags & SDL_RENDERER_PRESENTVSYNC) != 0;
        snprintf(g->renderer_name, sizeof g->renderer_name, "%s", info.name);
    }
    gfx_update_size(g);
    if (gfx_init_primitives(g, err) != SIM_OK) {
        gfx_close(g);
        return err ? err->code : SIM_ERR_IO;
    }
    return SIM_OK;
}

void gfx_close(Gfx *g)
{
    gfx_free_primitives(g);
    if (g->renderer) {
        SDL_DestroyRenderer(g->renderer);
    }
    if (g->window) {
        SDL_DestroyWindow(g->window);
    }
    g->renderer = NULL;
    g->window = NULL;
    IMG_Quit();
    if (TTF_WasInit()) {
        TTF_Quit();
    }
    SDL_Quit();
}

static int has_fonts(const char *dir)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/fonts/DejaVuSans.ttf", dir);
    SDL_RWops *rw = SDL_RWFromFile(p, "rb");
    if (rw) {
        SDL_RWclose(rw);
        return 1;
    }
    return 0;
}

int gfx_find_assets(char *out, size_t n, SimError *err)
{
    const char *env = SDL_getenv("SIMLAB_ASSETS");
    if (env && *env) {
        if (has_fonts(env)) {
            snprintf(out, n, "%s", env);
            return SIM_OK;
        }
        return sim_fail(err, SIM_ERR_IO,
                        "SIMLAB_ASSETS=%s: no fonts/DejaVuSans.ttf there", env);
    }
    /* bin/simlab finds share/simlab, installed or in the build tree (the
    ** build stages the source's assets/ there) */
    char *base = SDL_GetBasePath();
    if (!base) {
        return sim_fail(err, SIM_ERR_IO,
                        "cannot tell where the program is (is /proc "
                        "mounted?); set SIMLAB_ASSETS to simlab's data "
                        "folder");
    }
    char cand[1100];
    snprintf(cand, sizeof cand, "%s../share/simlab", base);
    SDL_free(base);
    if (has_fonts(cand)) {
        snprintf(out, n, "%s", cand);
        return SIM_OK;
    }
    return sim_fail(err, SIM_ERR_IO,
                    "%s: no fonts/DejaVuSans.ttf there (simlab's data folder "
                    "beside the program's); set SIMLAB_ASSETS",
                    cand);
}
