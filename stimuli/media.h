/*
** Media readers shared by study loading (`simlab check`) and the runner:
** PNG (libpng) and JPEG (libjpeg-turbo) images decoded whole, and float32
** .npy heatmaps read whole, within stated size limits. A file that passes
** here is one the runner can show. No SDL.
*/
#ifndef SIMLAB_STIMULI_MEDIA_H
#define SIMLAB_STIMULI_MEDIA_H

#include <stddef.h>

#include "common/sim_error.h"

/* Largest width and height (pixels, or .npy rows and columns) accepted.
** Also the smallest maximum texture size the runner expects of a renderer
** (it checks the real one at run time). */
#define MEDIA_MAX_SIDE 8192

/* A decoded image: w * h pixels of 4 bytes (R, G, B, A), rows top down,
** no padding. */
typedef struct MediaImage {
    unsigned char *rgba; /* owned (sim_free through media_image_free) */
    int w, h;
} MediaImage;

/* Decodes the whole PNG or JPEG file at path, checking every byte of image
** data, and returns its pixel size. Each side must be 1..MEDIA_MAX_SIDE.
** Returns SIM_OK, or SIM_ERR_IO (cannot open) / SIM_ERR_PARSE (not an
** image, corrupt, too large) / SIM_ERR_NOMEM with err naming the path. */
int media_image_size(const char *path, int *w, int *h, SimError *err);

/* Decodes the PNG or JPEG file at path into *out as media_image_size
** checks it. On failure *out is zeroed. */
int media_image_load(const char *path, MediaImage *out, SimError *err);

void media_image_free(MediaImage *img); /* zeroes *img; NULL is a no-op */

/* Reads the header of a .npy file that must hold a 2-D float32 array
** ('<f4', C order, format version 1-3, each side 1..MEDIA_MAX_SIDE) and
** checks that the file holds exactly that many values after the header.
** On success *rows and *cols hold the shape and *data_offset the byte
** offset of the first value. Values are not read. */
int media_npy_info(const char *path, int *rows, int *cols, long *data_offset,
                   SimError *err);

/* Reads a 2-D float32 .npy file as media_npy_info() checks it, and checks
** that every value is finite. On success *out owns rows*cols floats in
** row-major order (free with sim_free); on failure *out is NULL. */
int media_npy_read(const char *path, float **out, int *rows, int *cols,
                   SimError *err);

/* Pixel size of a PNG or JPEG file; -1 with the reason in why (-2 when the
** file cannot be opened). *is_png (may be NULL) tells which of the two it
** is. */
int media_probe_image(const char *abs, int *w, int *h, int *is_png, char *why,
                      size_t why_size);
/* Shape of a float32 little-endian C-order 2-D .npy file. */
int media_probe_npy(const char *abs, int *rows, int *cols, char *why,
                    size_t why_size);

#endif
