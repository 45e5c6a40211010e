/*
** Textures made from a study bundle's files: images, heatmaps (float32 .npy
** or PNG, coloured with a colormap), colour bars. Cached by path so a trial
** can be loaded ahead of time (preloading) and shown without a stall, within
** a byte budget: the least recently used textures go first, never one that
** the scene being built or shown holds. Opens only the resolved paths of
** the study model (stimuli/study.h).
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

/* Texture bytes kept by default: 4 bytes a pixel, so 256 MiB hold 64
** images of 1024x1024 -- a trial, its preloaded successors and the
** reservoir many times over. */
#define ASSETS_BUDGET_DEFAULT ((size_t)256 << 20)

typedef struct Assets {
    SDL_Renderer *renderer;
    int max_tex_w, max_tex_h; /* the renderer's largest texture; 0 = any */
    AssetEntry **entries;     /* one allocation each */
    size_t n, cap;
    int n_loads;   /* files decoded so far (for preload checks) */
    size_t bytes;  /* texture bytes held (w * h * 4 per texture) */
    size_t budget; /* most bytes kept beyond the scene's own; 0 = no limit */
    size_t peak;   /* most bytes ever held */
    int n_evicted; /* textures dropped for the budget */
    unsigned long tick;      /* requests so far: the recency of an entry */
    unsigned long scene_gen; /* the scene being built or shown */
    int building;            /* 1 between assets_scene_begin and _end */
} Assets;

/* An empty cache for renderer r with ASSETS_BUDGET_DEFAULT. */
void assets_init(Assets *a, SDL_Renderer *r);
void assets_free(Assets *a);

/* Sets the byte budget (0: none). Textures are dropped, least recently
** used first, when a new one would take the cache over it; those requested
** since the last assets_scene_begin while building are kept (the scene
** holds them), so a single screen larger than the budget still shows. */
void assets_set_budget(Assets *a, size_t bytes);

/* A new scene is built from here on (screen_build): what the previous one
** held may be dropped. Requests until assets_scene_end belong to it: their
** Tex pointers stay valid until the next assets_scene_begin. Outside a
** build, a Tex pointer is valid until the next request. */
void assets_scene_begin(Assets *a);
void assets_scene_end(Assets *a);

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
