/*
** Procedural scenes for the image demo study: a rabbit or a bird standing on
** snow or on grass, drawn with cairo from a seed. Gives the picture (PNG),
** the classifier's input (downsampled RGB) and the animal's pixel mask.
*/
#ifndef SIMLAB_STIMULI_GEN_SCENE_H
#define SIMLAB_STIMULI_GEN_SCENE_H

#include <stdint.h>

#include "common/sim_error.h"

#define SCENE_PX 128 /* side of the drawn picture, pixels */
#define SCENE_IN 32  /* side of the classifier's input (SCENE_PX / 4) */

enum { SCENE_RABBIT = 0, SCENE_BIRD = 1 }; /* animal classes */
enum { SCENE_SNOW = 0, SCENE_GRASS = 1 };  /* backgrounds */

typedef struct SceneSpec {
    int animal;     /* SCENE_RABBIT or SCENE_BIRD */
    int background; /* SCENE_SNOW or SCENE_GRASS */
    uint64_t seed;  /* everything else: layout, colours, trees, pose */
} SceneSpec;

typedef struct Scene {
    SceneSpec spec;
    unsigned char *rgb; /* SCENE_PX^2 * 3 bytes, row-major RGB */
    float *mask;        /* SCENE_PX^2 animal coverage in [0,1] */
} Scene;

/* Draws spec into *out (whose buffers it allocates; free with scene_free).
** Returns SIM_OK, or an error with *out zeroed. */
int scene_render(const SceneSpec *spec, Scene *out, SimError *err);

void scene_free(Scene *scene); /* NULL and zeroed scenes are fine */

/* Writes the picture as an 8-bit RGB PNG (cairo, no metadata chunks). */
int scene_write_png(const Scene *scene, const char *path, SimError *err);

/* The classifier input: 3 x SCENE_IN x SCENE_IN floats in [0,1] (channel,
** row, column), each the mean of a 4 x 4 block of the picture. OUT: x. */
void scene_input(const Scene *scene, float *x);

/* The animal mask averaged down to side x side cells (side divides
** SCENE_PX). OUT: mask (side*side values in [0,1]). */
void scene_mask(const Scene *scene, int side, float *mask);

/* Reads a PNG into *rgb (w*h*3 bytes, row-major; free with sim_free). */
int scene_read_png(const char *path, unsigned char **rgb, int *w, int *h,
                   SimError *err);

/* Writes an RGB image of w x h pixels (row-major, 3 bytes per pixel) as PNG;
** used for page figures. */
int scene_write_rgb_png(const unsigned char *rgb, int w, int h,
                        const char *path, SimError *err);

#endif
