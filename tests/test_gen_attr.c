/*
** The attribution maps of the image demo study: the methods give different
** maps; for the background-biased model they put most of their mass on the
** background, and more than for the practice model (which follows the
** animal); the control map does not depend on the model and is not
** correlated with the model's logit changes (occlusion) or its Grad-CAM
** evidence. The committed heatmap files are checked for shape and range.
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "stimuli/gen/gen.h"
#include "stimuli/gen/genio.h"
#include "stimuli/media.h"
#include "common/sim_alloc.h"

static const AttrMethod MODEL_METHODS[] = {ATTR_SALIENCY, ATTR_GRADXINPUT,
                                           ATTR_INTGRAD,  ATTR_SMOOTHGRAD,
                                           ATTR_GRADCAM,  ATTR_OCCLUSION};
#define N_MODEL_METHODS 6

static void test_measures(const ImgStudy *st)
{
    ImgReport r;
    SimError err = {0};
    CHECK_INT(imgstudy_measure(st, GEN_DEFAULT_SEED, &r, &err), SIM_OK);
    printf("background pixels %.3f\n", r.bg_pixels);
    for (int k = 0; k < N_MODEL_METHODS; k++) {
        AttrMethod m = MODEL_METHODS[k];
        printf("%-11s background mass %.3f (practice model %.3f), "
               "r with control %.3f\n",
               attr_method_name(m), r.bg_mass[m], r.bg_mass_unbiased[m],
               r.control_corr[m]);
        /* the biased model's evidence lies mostly in the background ... */
        CHECK(r.bg_mass[m] > 0.5);
        /* ... and more so than the animal-following practice model's */
        CHECK(r.bg_mass[m] > r.bg_mass_unbiased[m]);
    }
    printf("max mean correlation between methods %.3f\n", r.method_corr_max);
    /* different methods, different maps */
    CHECK(r.method_corr_max < 0.995);
    /* the control map ignores the model: identical for the biased, the
    ** practice and an untrained network ... */
    CHECK_INT(r.control_model_free, 1);
    /* ... and unrelated to the model's evidence */
    CHECK(fabs(r.control_corr[ATTR_OCCLUSION]) < 0.25);
    CHECK(fabs(r.control_corr[ATTR_GRADCAM]) < 0.25);
}

/* Committed maps: float32, right shape, values in [0, 1], and two methods
** never give the same map for an item. */
static void test_files(void)
{
    char path[2048];
    json_t *items = NULL;
    SimError err = {0};
    snprintf(path, sizeof path, "%s/assets/studies/image-meta/items.jsonl",
             SIMLAB_SOURCE_DIR);
    CHECK_INT(genio_read_jsonl(path, &items, &err), SIM_OK);
    size_t k;
    json_t *it;
    int n_maps = 0, same_pairs = 0;
    json_array_foreach(items, k, it)
    {
        json_t *expl = json_object_get(it, "explanations");
        if (!expl) {
            continue;
        }
        float *maps[ATTR_COUNT] = {NULL};
        int side[ATTR_COUNT] = {0};
        for (int m = 0; m < ATTR_COUNT; m++) {
            const char *name = attr_method_name((AttrMethod)m);
            json_t *p = json_object_get(expl, name);
            const char *file = json_string_value(json_object_get(p, "file"));
            CHECK(file != NULL);
            if (!file) {
                continue;
            }
            int rows = 0, cols = 0;
            snprintf(path, sizeof path, "%s/assets/studies/image-meta/%s",
                     SIMLAB_SOURCE_DIR, file);
            CHECK_INT(media_npy_read(path, &maps[m], &rows, &cols, &err),
                      SIM_OK);
            CHECK_INT(rows, attr_map_side((AttrMethod)m));
            CHECK_INT(cols, rows);
            side[m] = rows;
            int in_range = 1;
            for (int q = 0; maps[m] && q < rows * cols; q++) {
                in_range &= maps[m][q] >= 0 && maps[m][q] <= 1;
            }
            CHECK(in_range);
            n_maps++;
        }
        for (int a = 0; a < ATTR_COUNT; a++) {
            for (int b = a + 1; b < ATTR_COUNT; b++) {
                if (maps[a] && maps[b] && side[a] == side[b] &&
                    memcmp(maps[a], maps[b],
                           sizeof(float) * (size_t)(side[a] * side[a])) == 0) {
                    same_pairs++;
                }
            }
        }
        for (int m = 0; m < ATTR_COUNT; m++) {
            sim_free(maps[m]);
        }
    }
    CHECK_INT(n_maps, (4 + 20) * ATTR_COUNT);
    CHECK_INT(same_pairs, 0);
    json_decref(items);
}

int main(void)
{
    ImgStudy *st = NULL;
    SimError err = {0};
    CHECK_INT(imgstudy_make(GEN_DEFAULT_SEED, &st, &err), SIM_OK);
    if (st) {
        test_measures(st);
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    test_files();
    imgstudy_free(st);
    return TEST_REPORT();
}
