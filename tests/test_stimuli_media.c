/*
** Media files as study loading and the runner read them (stimuli/media.h):
** pixels decoded whole (PNG and JPEG), size limits, .npy heatmaps read
** whole (finite values, exact size), and the path length limit applied to
** the resolved path of a bundle file.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "stimuli/bpath.h"
#include "stimuli/media.h"

static void media_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/bundles/%s", SIMLAB_TEST_DATA, rel);
}

static void test_decode(void)
{
    char path[1024];
    SimError err;
    MediaImage img;
    media_path(path, sizeof path, "valid-all/media/cat.png");
    CHECK_INT(media_image_load(path, &img, &err), SIM_OK);
    CHECK(img.w == 8 && img.h == 6 && img.rgba != NULL);
    if (img.rgba) { /* grey 128, opaque, everywhere */
        CHECK_INT(img.rgba[0], 128);
        CHECK_INT(img.rgba[1], 128);
        CHECK_INT(img.rgba[3], 255);
        CHECK_INT(img.rgba[(6 * 8 - 1) * 4 + 2], 128);
    }
    media_image_free(&img);
    CHECK(img.rgba == NULL);
    media_path(path, sizeof path, "valid-all/media/dog.jpg");
    CHECK_INT(media_image_load(path, &img, &err), SIM_OK);
    CHECK(img.w == 16 && img.h == 12 && img.rgba != NULL);
    if (img.rgba) { /* uniform mid-grey JPEG */
        CHECK(abs(img.rgba[0] - 128) <= 2 && img.rgba[3] == 255);
        CHECK(abs(img.rgba[(12 * 16 - 1) * 4 + 1] - 128) <= 2);
    }
    media_image_free(&img);
    int w = 0, h = 0;
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_OK);
    CHECK(w == 16 && h == 12);
}

static void test_bad_images(void)
{
    char path[1024];
    SimError err;
    MediaImage img;
    int w, h;
    media_path(path, sizeof path, "bad-media/media/short-data.png");
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "corrupt PNG") != NULL);
    CHECK_INT(media_image_load(path, &img, &err), SIM_ERR_PARSE);
    CHECK(img.rgba == NULL);
    media_path(path, sizeof path, "bad-media/media/huge.png");
    CHECK_INT(media_image_load(path, &img, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "100000x100000") && strstr(err.msg, "8192"));
    media_path(path, sizeof path, "bad-media/media/corrupt.jpg");
    CHECK_INT(media_image_load(path, &img, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "corrupt JPEG") != NULL);
    media_path(path, sizeof path, "bad-media/media/truncated.png");
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "truncated PNG (the file ends after 20 bytes)"));
    CHECK_INT(media_image_load("no/such.jpg", &img, &err), SIM_ERR_IO);
}

static void test_npy(void)
{
    char path[1024];
    SimError err;
    float *v = NULL;
    int rows, cols;
    long off;
    media_path(path, sizeof path, "bad-media/media/nan.npy");
    /* the header and size are right; a value is not */
    CHECK_INT(media_npy_info(path, &rows, &cols, &off, &err), SIM_OK);
    CHECK_INT(media_npy_read(path, &v, &rows, &cols, &err), SIM_ERR_PARSE);
    CHECK(v == NULL && strstr(err.msg, "row 2, column 3 is NaN"));
    media_path(path, sizeof path, "bad-media/media/long.npy");
    CHECK_INT(media_npy_info(path, &rows, &cols, &off, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "16 bytes after") != NULL);
    CHECK_INT(media_npy_read(path, &v, &rows, &cols, &err), SIM_ERR_PARSE);
    media_path(path, sizeof path, "valid-meta/media/map.npy");
    CHECK_INT(media_npy_read(path, &v, &rows, &cols, &err), SIM_OK);
    CHECK(v && rows == 10 && cols == 10);
    sim_free(v);
}

/* A bundle whose image path is short as written but too long once
** resolved (the bundle folder is deep): check reports it where it is named,
** as the runner could not open it. */
static void test_resolved_path_limit(void)
{
    char top[256], name[210], rel[1100], *p;
    CHECK(fs_temp_dir(top, sizeof top, "media-paths") != NULL);
    memset(name, 'd', 200);
    name[200] = 0;
    char root[1400];
    snprintf(root, sizeof root, "%s/%s", top, name);
    CHECK_INT(mkdir(root, 0755), 0);
    /* rel: four folders of 230 bytes and the file: 943 bytes < limit */
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        memset(rel + n, (char)('a' + k), 230);
        n += 230;
        rel[n] = 0;
        char dir[2600];
        snprintf(dir, sizeof dir, "%s/%s", root, rel);
        CHECK_INT(mkdir(dir, 0755), 0);
        rel[n++] = '/';
    }
    snprintf(rel + n, sizeof rel - n, "x.png");
    CHECK(strlen(rel) < BUNDLE_PATH_MAX);
    char src[1024], dst[2700];
    media_path(src, sizeof src, "valid-all/media/cat.png");
    snprintf(dst, sizeof dst, "%s/%s", root, rel);
    CHECK(strlen(dst) >= BUNDLE_PATH_MAX);
    CHECK_INT(fs_copy_file(src, dst), 0);
    snprintf(dst, sizeof dst, "%s/ok.png", root);
    CHECK_INT(fs_copy_file(src, dst), 0);
    const char *study =
        "{\"simlab_study\": 1, \"id\": \"long-paths\", \"title\": \"t\",\n"
        " \"classes\": [{\"id\": \"wolf\"}, {\"id\": \"husky\"}],\n"
        " \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
        " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}],\n"
        " \"items\": [{\"file\": \"items.jsonl\", \"pool\": \"test\", "
        "\"modality\": \"image\"}]}\n";
    snprintf(dst, sizeof dst, "%s/study.json", root);
    CHECK_INT(fs_write(dst, study, strlen(study)), 0);
    char items[1600];
    snprintf(items, sizeof items,
             "{\"id\": \"1\", \"input\": \"ok.png\", \"prediction\": "
             "\"wolf\"}\n{\"id\": \"2\", \"input\": \"%s\", \"prediction\": "
             "\"wolf\"}\n",
             rel);
    snprintf(dst, sizeof dst, "%s/items.jsonl", root);
    CHECK_INT(fs_write(dst, items, strlen(items)), 0);
    char *out = NULL;
    CHECK_INT(fs_check(root, 0, &out), 1);
    p = out ? strstr(out, "error: items.jsonl:2: field 'input': 'aaaa") : NULL;
    CHECK(p != NULL);
    CHECK(p && strstr(p, "the resolved path is") &&
          strstr(p, "bytes long; the runner's limit is 1023"));
    CHECK(out && strstr(out, "invalid: 1 error\n") != NULL);
    if (!p) {
        fprintf(stderr, "%s\n", out ? out : "(no output)");
    }
    free(out);
    fs_remove_tree(top);
}

int main(void)
{
    test_decode();
    test_bad_images();
    test_npy();
    test_resolved_path_limit();
    return TEST_REPORT();
}
