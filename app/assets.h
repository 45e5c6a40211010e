/*
** Textures made from a study bundle's files: images, heatmaps (float32 .npy
** or PNG, coloured with a colormap), colour bars. Cached by path so a trial
** can be loaded ahead of time (preloading) and shown without a stall.
** Opens only the resolved paths of the study model (stimuli/study.h).
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
    char why[256]; /* why it could not be loaded; "" when it was */
} Tex;

typedef struct AssetEntry AssetEntry;

typedef struct Assets {
    SDL_Renderer *renderer;
    int max_tex_w, max_tex_h; /* the renderer's largest texture; 0 = any */
    AssetEntry **entries;     /* one allocation each: Tex pointers stay valid */
    size_t n, cap;
    int n_loads; /* files decoded so far (for preload checks) */
} Assets;

void assets_init(Assets *a, SDL_Renderer *r);
void assets_free(Assets *a);

/* The image (PNG or JPEG) at file: the absolute path that study loading
** resolved inside the bundle and decoded (ItemInput.image_file,
** PageBlock.file); no other path is built or opened. Decoded as `simlab
** check` decodes it (stimuli/media.h). Never NULL; .tex is NULL and .why
** says why when file is NULL, longer than BUNDLE_PATH_MAX, cannot be
** decoded or is larger than the renderer's largest texture (the failure
** is cached until assets_forget_failed). */
const Tex *assets_image(Assets *a, const char *file);

/* The heatmap file (Explanation.map_file) coloured with colormap (see
** colormap_find). Grey PNGs and .npy maps are scaled from their minimum to
** their 99.5th percentile and coloured; colour PNGs are shown as they are.
** Failures as for assets_image. */
const Tex *assets_heatmap(Assets *a, const char *file, int is_npy,
                          const char *colormap);

/* Drops the cached failures, so the next request reads the file again
** (after the experimenter replaced it). */
void assets_forget_failed(Assets *a);

/* A horizontal colour bar of colormap (256 x 1), or of the diverging map
** when colormap is "diverging". */
const Tex *assets_colorbar(Assets *a, const char *colormap);

/* Maps values to [0,1]: minimum -> 0, 99.5th percentile -> 1 (clamped);
** NaN -> 0. In place. */
void heatmap_normalize(float *v, size_t n);

#endif
