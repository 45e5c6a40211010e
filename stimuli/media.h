/*
** Media metadata readers: pixel size of PNG and JPEG files, and float32
** .npy heatmaps. Headers are parsed by hand; no image library, no pixels
** decoded (app/ makes textures). libc only.
*/
#ifndef SIMLAB_STIMULI_MEDIA_H
#define SIMLAB_STIMULI_MEDIA_H

#include "common/sim_error.h"

/* Reads the pixel size of a PNG (IHDR) or JPEG (first SOF marker) file.
** Returns SIM_OK with *w and *h set, or SIM_ERR_IO / SIM_ERR_PARSE with err
** naming the path and the problem ("not a PNG or JPEG file", ...). */
int media_image_size(const char *path, int *w, int *h, SimError *err);

/* Reads the header of a .npy file that must hold a 2-D float32 array
** ('<f4', C order, format version 1-3) and checks that the data is all
** there. On success *rows and *cols hold the shape and *data_offset the
** byte offset of the first value. */
int media_npy_info(const char *path, int *rows, int *cols, long *data_offset,
                   SimError *err);

/* Reads a 2-D float32 .npy file. On success *out owns rows*cols floats in
** row-major order (free with sim_free); on failure *out is NULL. */
int media_npy_read(const char *path, float **out, int *rows, int *cols,
                   SimError *err);

#endif
