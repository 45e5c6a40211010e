/*
** Fuzzes the .npy heatmap reader (stimuli/media.h media_npy_info and
** media_npy_read): the input is written to a file, its header read, then
** its values; the two must agree on the shape, and the values are refused
** only when one of them is not finite (NaN or infinite).
*/
#include "stimuli/media.h"

#include <math.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "tests/fuzz/fuzz_util.h"

static char path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "%s/input.npy", fuzz_scratch());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(path, data, size);
    int rows = -1, cols = -1;
    long offset = -1;
    SimError err;
    sim_error_clear(&err);
    int info = media_npy_info(path, &rows, &cols, &offset, &err);
    if (info == SIM_OK &&
        (rows <= 0 || cols <= 0 || offset < 10 || (size_t)offset > size ||
         (size - (size_t)offset) / 4 / (size_t)cols < (size_t)rows)) {
        fprintf(stderr, "media_npy_info: OK with %d x %d at %ld of %zu\n", rows,
                cols, offset, size);
        abort();
    }
    /* 1 when every float32 of the data (little-endian, as '<f4') is finite */
    int finite = 1;
    for (long i = 0; info == SIM_OK && i < (long)rows * cols; i++) {
        float x;
        memcpy(&x, data + offset + 4 * i, 4);
        finite &= isfinite(x) != 0;
    }
    float *values = NULL;
    int r2 = -1, c2 = -1;
    int rc = media_npy_read(path, &values, &r2, &c2, &err);
    if ((rc == SIM_OK) != (info == SIM_OK && finite) ||
        (rc == SIM_OK && (r2 != rows || c2 != cols || !values)) ||
        (rc != SIM_OK && values)) {
        fprintf(stderr, "media_npy_read disagrees with media_npy_info\n");
        abort();
    }
    if (values) {
        /* touch every value: the buffer must hold rows * cols floats */
        volatile float sum = 0;
        for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++) {
            sum += values[i];
        }
        (void)sum;
    }
    sim_free(values);
    return 0;
}
