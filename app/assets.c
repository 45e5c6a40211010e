/*
** Asset cache: decodes bundle files into textures and keeps them within a
** byte budget, least recently used dropped first, never a texture of the
** scene being built or shown. Failures are kept (they cost no texture).
** Opens only the absolute paths that study loading resolved and decoded,
** and decodes them the same way (stimuli/media.c).
*/
#include "app/assets.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "stimuli/bpath.h"
#include "stimuli/media.h"

struct AssetEntry {
    char *key;
    Tex t;
    size_t bytes;        /* of t.tex: w * h * 4 */
    unsigned long used;  /* a->tick when last requested */
    unsigned long scene; /* a->scene_gen when last requested in a build */
};

void assets_init(Assets *a, SDL_Renderer *r)
{
    memset(a, 0, sizeof *a);
    a->renderer = r;
    a->budget = ASSETS_BUDGET_DEFAULT;
    SDL_RendererInfo info;
    if (r && SDL_GetRendererInfo(r, &info) == 0) {
        a->max_tex_w = info.max_texture_width;
        a->max_tex_h = info.max_texture_height;
    }
}

static void entry_free(AssetEntry *e)
{
    sim_free(e->key);
    if (e->t.tex) {
        SDL_DestroyTexture(e->t.tex);
    }
    sim_free(e);
}

void assets_free(Assets *a)
{
    for (size_t i = 0; i < a->n; i++) {
        entry_free(a->entries[i]);
    }
    sim_free(a->entries);
    memset(a, 0, sizeof *a);
}

void assets_forget_failed(Assets *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->entries[i]->t.tex) {
            a->entries[k++] = a->entries[i];
        } else {
            entry_free(a->entries[i]);
        }
    }
    a->n = k;
}

void assets_scene_begin(Assets *a)
{
    a->scene_gen++;
    a->building = 1;
}

void assets_scene_end(Assets *a)
{
    a->building = 0;
}

static void touch(Assets *a, AssetEntry *e)
{
    e->used = ++a->tick;
    if (a->building) {
        e->scene = a->scene_gen;
    }
}

static Tex *lookup(Assets *a, const char *key)
{
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->entries[i]->key, key) == 0) {
            touch(a, a->entries[i]);
            return &a->entries[i]->t;
        }
    }
    return NULL;
}

/* The least recently used texture that the scene does not hold, or
** a->n. */
static size_t victim(const Assets *a)
{
    size_t best = a->n;
    for (size_t i = 0; i < a->n; i++) {
        const AssetEntry *e = a->entries[i];
        if (!e->t.tex || (e->scene == a->scene_gen && a->scene_gen != 0)) {
            continue;
        }
        if (best == a->n || e->used < a->entries[best]->used) {
            best = i;
        }
    }
    return best;
}

/* Drops textures until need more bytes fit in the budget (or nothing more
** may go). */
static void make_room(Assets *a, size_t need)
{
    while (a->budget > 0 && a->bytes + need > a->budget) {
        size_t i = victim(a);
        if (i == a->n) {
            return;
        }
        a->bytes -= a->entries[i]->bytes;
        entry_free(a->entries[i]);
        memmove(&a->entries[i], &a->entries[i + 1],
                (a->n - i - 1) * sizeof *a->entries);
        a->n--;
        a->n_evicted++;
    }
}

void assets_set_budget(Assets *a, size_t bytes)
{
    a->budget = bytes;
    make_room(a, 0);
}

/* Caches tex (may be NULL: a failure, why says it) under key. */
static Tex *insert(Assets *a, const char *key, SDL_Texture *tex, int w, int h,
                   const char *why)
{
    static Tex oom = {NULL, 0, 0, "out of memory"};
    size_t bytes = tex ? (size_t)w * (size_t)h * 4 : 0;
    make_room(a, bytes);
    AssetEntry *e = NULL;
    if (sim_grow((void **)&a->entries, &a->cap, a->n + 1,
                 sizeof(AssetEntry *)) != 0 ||
        !(e = sim_calloc(1, sizeof *e)) || !(e->key = sim_strdup(key))) {
        sim_free(e);
        if (tex) {
            SDL_DestroyTexture(tex);
        }
        return &oom;
    }
    a->entries[a->n++] = e;
    e->bytes = bytes;
    a->bytes += bytes;
    a->peak = a->bytes > a->peak ? a->bytes : a->peak;
    touch(a, e);
    e->t.tex = tex;
    e->t.w = w;
    e->t.h = h;
    snprintf(e->t.why, sizeof e->t.why, "%s",
             tex             ? ""
             : why && why[0] ? why
                             : "cannot be shown");
    return &e->t;
}

static Tex *fail(Assets *a, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static Tex *fail(Assets *a, const char *key, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return insert(a, key, NULL, 0, 0, why);
}

/* err.msg without the "FILE: " that the media readers put first. */
static const char *reason(const SimError *err, const char *file)
{
    size_t n = strlen(file);
    return strncmp(err->msg, file, n) == 0 && err->msg[n] == ':'
               ? err->msg + n + (err->msg[n + 1] == ' ' ? 2 : 1)
               : err->msg;
}

/* A Tex for a request that names no usable file (not cached). */
static const Tex *no_file(const char *file)
{
    static Tex none = {NULL, 0, 0, "no file: study loading did not resolve it"};
    static Tex too_long = {NULL, 0, 0, ""};
    if (!file) {
        return &none;
    }
    snprintf(too_long.why, sizeof too_long.why, "path longer than %d bytes",
             BUNDLE_PATH_MAX - 1);
    return &too_long;
}

/* 1 when the renderer can hold a w x h texture; else writes why. */
static int fits(const Assets *a, int w, int h, char *why, size_t n)
{
    if ((a->max_tex_w > 0 && w > a->max_tex_w) ||
        (a->max_tex_h > 0 && h > a->max_tex_h)) {
        snprintf(why, n,
                 "%dx%d pixels; this renderer's largest texture is %dx%d", w, h,
                 a->max_tex_w, a->max_tex_h);
        return 0;
    }
    return 1;
}

static SDL_Texture *texture_from(Assets *a, SDL_Surface *s)
{
    SDL_Texture *t = SDL_CreateTextureFromSurface(a->renderer, s);
    if (t) {
        SDL_SetTextureScaleMode(t, SDL_ScaleModeLinear);
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    }
    return t;
}

/* A texture of the decoded image img, or NULL with why set. */
static SDL_Texture *texture_rgba(Assets *a, const MediaImage *img, char *why,
                                 size_t n)
{
    if (!fits(a, img->w, img->h, why, n)) {
        return NULL;
    }
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormatFrom(
        img->rgba, img->w, img->h, 32, img->w * 4, SDL_PIXELFORMAT_RGBA32);
    SDL_Texture *t = s ? texture_from(a, s) : NULL;
    if (!t) {
        snprintf(why, n, "no texture: %s", SDL_GetError());
    }
    if (s) {
        SDL_FreeSurface(s);
    }
    return t;
}

/* 1 when every pixel of img is opaque. */
static int opaque(const MediaImage *img)
{
    size_t n = (size_t)img->w * (size_t)img->h;
    for (size_t i = 0; i < n; i++) {
        if (img->rgba[4 * i + 3] != 255) {
            return 0;
        }
    }
    return 1;
}

const Tex *assets_image(Assets *a, const char *file)
{
    if (!file || strlen(file) >= BUNDLE_PATH_MAX) {
        return no_file(file);
    }
    char key[BUNDLE_PATH_MAX + 16];
    snprintf(key, sizeof key, "img:%s", file);
    Tex *t = lookup(a, key);
    if (t) {
        return t;
    }
    a->n_loads++;
    MediaImage img;
    SimError err;
    if (media_image_load(file, &img, &err) != SIM_OK) {
        return fail(a, key, "%s", reason(&err, file));
    }
    char why[256];
    SDL_Texture *tex = texture_rgba(a, &img, why, sizeof why);
    int w = img.w, h = img.h;
    if (tex && opaque(&img)) {
        /* images are drawn whole (alpha 255): an opaque one is copied, not
        ** blended, which spares the renderer a read of what is below */
        SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_NONE);
    }
    media_image_free(&img);
    if (!tex) {
        return fail(a, key, "%s", why);
    }
    return insert(a, key, tex, w, h, NULL);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void heatmap_normalize(float *v, size_t n)
{
    if (n == 0) {
        return;
    }
    float *sorted = sim_malloc(n * sizeof(float));
    size_t m = 0;
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i])) {
            if (sorted) {
                sorted[m++] = v[i];
            }
            lo = fminf(lo, v[i]);
            hi = fmaxf(hi, v[i]);
        }
    }
    if (sorted && m > 0) {
        qsort(sorted, m, sizeof(float), cmp_float);
        float p = sorted[(size_t)floor(0.995 * (double)(m - 1))];
        if (p > lo) {
            hi = p;
        }
    }
    sim_free(sorted);
    float span = hi - lo;
    for (size_t i = 0; i < n; i++) {
        float t = isfinite(v[i]) && span > 0 ? (v[i] - lo) / span : 0;
        v[i] = t < 0 ? 0 : t > 1 ? 1 : t;
    }
}

static SDL_Surface *colorize(const float *v, int h, int w, const Colormap *cm)
{
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        return NULL;
    }
    SDL_Color lut[256];
    for (int i = 0; i < 256; i++) {
        lut[i] = colormap_sample(cm, i / 255.0);
    }
    for (int y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
        for (int x = 0; x < w; x++) {
            int k = (int)lroundf(v[(size_t)y * (size_t)w + (size_t)x] * 255);
            SDL_Color c = lut[k < 0 ? 0 : k > 255 ? 255 : k];
            row[x] =
                0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
        }
    }
    return s;
}

/* Heatmap values of a decoded PNG: luminance per pixel. Returns 1 when
** every pixel is grey (the map is to be coloured), 0 when it is a colour
** picture (shown as it is). */
static int png_values(const MediaImage *img, float *v)
{
    int grey = 1;
    size_t n = (size_t)img->w * (size_t)img->h;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = img->rgba + 4 * i;
        grey &= p[0] == p[1] && p[1] == p[2];
        v[i] = (float)(0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]);
    }
    return grey;
}

const Tex *assets_heatmap(Assets *a, const char *file, int is_npy,
                          const char *colormap)
{
    if (!file || strlen(file) >= BUNDLE_PATH_MAX) {
        return no_file(file);
    }
    const Colormap *cm = colormap_find(colormap);
    char key[BUNDLE_PATH_MAX + 48];
    snprintf(key, sizeof key, "heat:%s:%s", cm->name, file);
    Tex *t = lookup(a, key);
    if (t) {
        return t;
    }
    a->n_loads++;
    SimError err;
    char why[256];
    float *v = NULL;
    int w = 0, h = 0;
    if (is_npy) {
        if (media_npy_read(file, &v, &h, &w, &err) != SIM_OK) {
            return fail(a, key, "%s", reason(&err, file));
        }
    } else {
        MediaImage img;
        if (media_image_load(file, &img, &err) != SIM_OK) {
            return fail(a, key, "%s", reason(&err, file));
        }
        w = img.w;
        h = img.h;
        v = sim_malloc((size_t)w * (size_t)h * sizeof(float));
        if (!v) {
            media_image_free(&img);
            return fail(a, key, "out of memory");
        }
        if (!png_values(&img, v)) {
            sim_free(v);
            SDL_Texture *tex = texture_rgba(a, &img, why, sizeof why);
            media_image_free(&img);
            return tex ? insert(a, key, tex, w, h, NULL)
                       : fail(a, key, "%s", why);
        }
        media_image_free(&img);
    }
    if (!fits(a, w, h, why, sizeof why)) {
        sim_free(v);
        return fail(a, key, "%s", why);
    }
    heatmap_normalize(v, (size_t)w * (size_t)h);
    SDL_Surface *s = colorize(v, h, w, cm);
    sim_free(v);
    SDL_Texture *tex = s ? texture_from(a, s) : NULL;
    if (s) {
        SDL_FreeSurface(s);
    }
    if (!tex) {
        return fail(a, key, "no texture: %s", SDL_GetError());
    }
    return insert(a, key, tex, w, h, NULL);
}

const Tex *assets_colorbar(Assets *a, const char *colormap)
{
    int diverging = colormap && strcmp(colormap, "diverging") == 0;
    const Colormap *cm = colormap_find(colormap);
    char key[64];
    snprintf(key, sizeof key, "bar:%s", diverging ? "diverging" : cm->name);
    Tex *t = lookup(a, key);
    if (t) {
        return t;
    }
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, 256, 1, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Texture *tex = NULL;
    if (s) {
        uint32_t *row = s->pixels;
        for (int x = 0; x < 256; x++) {
            SDL_Color c = diverging ? colormap_diverging(x / 127.5 - 1)
                                    : colormap_sample(cm, x / 255.0);
            row[x] =
                0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
        }
        tex = texture_from(a, s);
        SDL_FreeSurface(s);
    }
    return insert(a, key, tex, 256, 1, "cannot draw the colour bar");
}
