/*
** Asset cache: decodes bundle files into textures once and keeps them for
** the run. Paths are resolved against the bundle directory.
*/
#include "app/assets.h"

#include <SDL2/SDL_image.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stimuli/media.h"
#include "common/sim_alloc.h"

struct AssetEntry {
    char *key;
    Tex t;
};

void assets_init(Assets *a, SDL_Renderer *r, const char *root)
{
    memset(a, 0, sizeof *a);
    a->renderer = r;
    a->root = sim_strdup(root ? root : ".");
}

void assets_free(Assets *a)
{
    for (size_t i = 0; i < a->n; i++) {
        sim_free(a->entries[i]->key);
        if (a->entries[i]->t.tex) {
            SDL_DestroyTexture(a->entries[i]->t.tex);
        }
        sim_free(a->entries[i]);
    }
    sim_free(a->entries);
    sim_free(a->root);
    memset(a, 0, sizeof *a);
}

static Tex *lookup(Assets *a, const char *key)
{
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->entries[i]->key, key) == 0) {
            return &a->entries[i]->t;
        }
    }
    return NULL;
}

static Tex *insert(Assets *a, const char *key, SDL_Texture *tex, int w, int h)
{
    static Tex none;
    AssetEntry *e = NULL;
    if (sim_grow((void **)&a->entries, &a->cap, a->n + 1,
                 sizeof(AssetEntry *)) != 0 ||
        !(e = sim_calloc(1, sizeof *e)) || !(e->key = sim_strdup(key))) {
        sim_free(e);
        if (tex) {
            SDL_DestroyTexture(tex);
        }
        return &none;
    }
    a->entries[a->n++] = e;
    e->t.tex = tex;
    e->t.w = w;
    e->t.h = h;
    return &e->t;
}

static int full_path(const Assets *a, const char *rel, char *out, size_t n)
{
    int k = rel[0] == '/' ? snprintf(out, n, "%s", rel)
                          : snprintf(out, n, "%s/%s", a->root, rel);
    return k < 0 || (size_t)k >= n ? -1 : 0;
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

const Tex *assets_image(Assets *a, const char *rel_path)
{
    static const Tex none;
    if (!rel_path) {
        return &none;
    }
    char key[1200];
    snprintf(key, sizeof key, "img:%s", rel_path);
    Tex *t = lookup(a, key);
    if (t) {
        return t;
    }
    char path[1100];
    SDL_Texture *tex = NULL;
    int w = 0, h = 0;
    if (full_path(a, rel_path, path, sizeof path) == 0) {
        SDL_Surface *s = IMG_Load(path);
        if (s) {
            tex = texture_from(a, s);
            w = s->w;
            h = s->h;
            SDL_FreeSurface(s);
        }
        a->n_loads++;
    }
    return insert(a, key, tex, w, h);
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

const Tex *assets_heatmap(Assets *a, const char *rel_path, int is_npy,
                          const char *colormap)
{
    static const Tex none;
    if (!rel_path) {
        return &none;
    }
    const Colormap *cm = colormap_find(colormap);
    char key[1200];
    snprintf(key, sizeof key, "heat:%s:%s", cm->name, rel_path);
    Tex *t = lookup(a, key);
    if (t) {
        return t;
    }
    char path[1100];
    SDL_Texture *tex = NULL;
    int w = 0, h = 0;
    if (full_path(a, rel_path, path, sizeof path) != 0) {
        return insert(a, key, NULL, 0, 0);
    }
    a->n_loads++;
    float *v = NULL;
    if (is_npy) {
        SimError err;
        if (media_npy_read(path, &v, &h, &w, &err) != SIM_OK) {
            SDL_Log("heatmap %s", err.msg);
            return insert(a, key, NULL, 0, 0);
        }
    } else {
        SDL_Surface *raw = IMG_Load(path);
        SDL_Surface *s =
            raw ? SDL_ConvertSurfaceFormat(raw, SDL_PIXELFORMAT_ARGB8888, 0)
                : NULL;
        if (raw) {
            SDL_FreeSurface(raw);
        }
        if (!s) {
            return insert(a, key, NULL, 0, 0);
        }
        w = s->w;
        h = s->h;
        int grey = 1;
        v = sim_malloc((size_t)w * (size_t)h * sizeof(float));
        for (int y = 0; y < h && v; y++) {
            const uint32_t *row =
                (const uint32_t *)((const uint8_t *)s->pixels + y * s->pitch);
            for (int x = 0; x < w; x++) {
                uint32_t p = row[x];
                int r = (int)(p >> 16 & 255), g = (int)(p >> 8 & 255),
                    b = (int)(p & 255);
                if (r != g || g != b) {
                    grey = 0;
                }
                v[(size_t)y * (size_t)w + (size_t)x] =
                    (float)(0.2126 * r + 0.7152 * g + 0.0722 * b);
            }
        }
        if (!grey || !v) {
            tex = texture_from(a, s);
            SDL_FreeSurface(s);
            sim_free(v);
            return insert(a, key, tex, w, h);
        }
        SDL_FreeSurface(s);
    }
    heatmap_normalize(v, (size_t)w * (size_t)h);
    SDL_Surface *s = colorize(v, h, w, cm);
    sim_free(v);
    if (s) {
        tex = texture_from(a, s);
        SDL_FreeSurface(s);
    }
    return insert(a, key, tex, w, h);
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
    return insert(a, key, tex, 256, 1);
}
