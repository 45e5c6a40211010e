/*
** Fuzzes the PNG and JPEG header readers (stimuli/media.h
** media_image_size): the input is written to a file and its size read.
*/
#include "stimuli/media.h"

#include "tests/fuzz/fuzz_util.h"

static char path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "%s/input.img", fuzz_scratch());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(path, data, size);
    int w = -1, h = -1;
    SimError err;
    sim_error_clear(&err);
    int rc = media_image_size(path, &w, &h, &err);
    if (rc == SIM_OK && (w <= 0 || h <= 0)) {
        fprintf(stderr, "media_image_size: OK with %d x %d\n", w, h);
        abort();
    }
    if (rc != SIM_OK && err.msg[0] == '\0') {
        abort();
    }
    return 0;
}
