/*
** Textures made from a study bundle's files: images, heatmaps (float32 .npy
** or PNG, coloured with a colormap), colour bars. Cached by path so a trial
** can be loaded ahead of time (preloading) and shown without a stall.
*/
#ifndef SIMLAB_APP_ASSETS_H
#define SIMLAB_APP_ASSETS_H

#include <SDL2/SDL.h>
#include <stddef.h>

#include "app/gfx.h"
#include "common/sim_error.h"

typedef struct Tex {
    SDL_Texture *tex; /* NULL when the file could not be loaded */
    int w, h;
} Tex;

typedef struct AssetEntry AssetEntry;

typedef struct Assets {
    SDL_Renderer *renderer;
    char *root;           /* bundle directory */
    AssetEntry **entries; /* one allocation each: Tex pointers stay valid */
    size_t n, cap;
    int n_loads; /* files decoded so far (for preload checks) */
} Assets;

void assets_init(Assets *a, SDL_Renderer *r, const char *root);
void assets_free(Assets *a);

/* The image at the bundle-relative path (PNG or JPEG). Never NULL; .tex is
** NULL when the file is missing or unreadable (the failure is cached). */
const Tex *assets_image(Assets *a, const char *rel_path);

/* The heatmap file coloured with colormap (see colormap_find). Grey PNGs
** and .npy maps are scaled from their minimum to their 99.5th percentile
** and coloured; colour PNGs are shown as they are. */
const Tex *assets_heatmap(Assets *a, const char *rel_path, int is_npy,
                          const char *colormap);

/* A horizontal colour bar of colormap (256 x 1), or of the diverging map
** when colormap is "diverging". */
const Tex *assets_colorbar(Assets *a, const char *colormap);

/* Maps values to [0,1]: minimum -> 0, 99.5th percentile -> 1 (clamped);
** NaN -> 0. In place. */
void heatmap_normalize(float *v, size_t n);

#endif
