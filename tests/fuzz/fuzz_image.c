/*
** Fuzzes the PNG and JPEG decoders (stimuli/media.h): the input is written
** to a file, checked as `simlab check` does (media_image_size decodes it
** whole) and loaded as the runner does (media_image_load); both must agree.
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
    MediaImage img;
    SimError err2;
    sim_error_clear(&err2);
    int rc2 = media_image_load(path, &img, &err2);
    if ((rc2 == SIM_OK) != (rc == SIM_OK) ||
        (rc2 == SIM_OK && (img.w != w || img.h != h || !img.rgba))) {
        fprintf(stderr, "media_image_load disagrees with media_image_size\n");
        abort();
    }
    media_image_free(&img);
    return 0;
}
