/*
** The demo models learned what the demo claims, and the committed bundles
** say what the models say:
** - the image model is right on pictures whose background matches the
**   training correlation and wrong on background-flipped ones, while the
**   practice model follows the animal; every stored image prediction is
**   the model's output on the stored PNG;
** - every stored text and tabular prediction, and the prediction stored
**   with every counterfactual, is the model's output on that input;
** - the LIME surrogates are faithful to the model on their perturbations.
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "stimuli/gen/gen.h"
#include "stimuli/gen/genio.h"
#include "common/sim_alloc.h"

static json_t *load_items(const char *bundle)
{
    char path[2048];
    json_t *items = NULL;
    SimError err = {0};
    snprintf(path, sizeof path, "%s/assets/studies/%s/items.jsonl",
             SIMLAB_SOURCE_DIR, bundle);
    if (genio_read_jsonl(path, &items, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    return items;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* ------------------------------------------------------------ image */

static void test_image(void)
{
    ImgStudy *st = NULL;
    ImgReport rep;
    SimError err = {0};
    CHECK_INT(imgstudy_make(GEN_DEFAULT_SEED, &st, &err), SIM_OK);
    if (!st) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK_INT(imgstudy_measure(st, GEN_DEFAULT_SEED, &rep, &err), SIM_OK);
    printf("image: biased matched %.3f flipped %.3f; practice matched %.3f "
           "flipped %.3f\n",
           rep.biased_matched, rep.biased_flipped, rep.unbiased_matched,
           rep.unbiased_flipped);
    /* the shortcut: right when the background agrees, wrong when not */
    CHECK(rep.biased_matched >= 0.95);
    CHECK(rep.biased_flipped <= 0.20);
    CHECK(rep.biased_matched - rep.biased_flipped >= 0.75);
    /* the practice model, trained without the correlation, is not fooled */
    CHECK(rep.unbiased_matched >= 0.90);
    CHECK(rep.unbiased_flipped >= 0.90);

    /* stored predictions = the models' outputs on the stored pictures */
    json_t *items = load_items("image-meta");
    CHECK(items != NULL);
    size_t k;
    json_t *it;
    int n = 0, agree = 0, right[4] = {0}, count[4] = {0};
    static const char *const POOLS[4] = {"practice_train", "practice", "train",
                                         "test"};
    json_array_foreach(items, k, it)
    {
        char path[2048];
        unsigned char *rgb = NULL;
        int w = 0, h = 0;
        snprintf(path, sizeof path, "%s/assets/studies/image-meta/%s",
                 SIMLAB_SOURCE_DIR, str(it, "input"));
        if (scene_read_png(path, &rgb, &w, &h, &err) != SIM_OK ||
            w != SCENE_PX || h != SCENE_PX) {
            fprintf(stderr, "%s: unreadable or wrong size\n", path);
            sim_free(rgb);
            CHECK(0);
            continue;
        }
        Scene sc = {{0, 0, 0}, rgb, NULL};
        float x[CNN_NIN];
        scene_input(&sc, x);
        sim_free(rgb);
        int pool = -1;
        for (int p = 0; p < 4; p++) {
            if (strcmp(str(it, "pool"), POOLS[p]) == 0) {
                pool = p;
            }
        }
        CHECK(pool >= 0);
        const Cnn *net =
            pool <= IMG_POOL_PRACTICE ? &st->unbiased : &st->biased;
        const char *pred = cnn_forward(net, x, NULL) > 0 ? "bird" : "rabbit";
        n++;
        agree += strcmp(pred, str(it, "prediction")) == 0;
        if (pool >= 0) {
            count[pool]++;
            right[pool] += strcmp(str(it, "label"), str(it, "prediction")) == 0;
        }
    }
    CHECK(n > 0);
    CHECK_INT(agree, n);
    /* 50 % right and 50 % wrong in the sessions; practice model right */
    CHECK_INT(2 * right[IMG_POOL_TRAIN], count[IMG_POOL_TRAIN]);
    CHECK_INT(2 * right[IMG_POOL_TEST], count[IMG_POOL_TEST]);
    CHECK_INT(right[IMG_POOL_PRACTICE], count[IMG_POOL_PRACTICE]);
    json_decref(items);
    imgstudy_free(st);
}

/* ------------------------------------------------------------- text */

/* Removes the ** markers of a counterfactual input. OUT: out. */
static void strip_marks(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (; *in && o + 1 < n; in++) {
        if (in[0] == '*' && in[1] == '*') {
            in++;
            continue;
        }
        out[o++] = *in;
    }
    out[o] = '\0';
}

static void test_text(void)
{
    TextStudy *ts = NULL;
    SimError err = {0};
    CHECK_INT(textstudy_make(GEN_DEFAULT_SEED, &ts, &err), SIM_OK);
    if (!ts) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    const TextModel *m = textstudy_model(ts);
    const char *bundles[2] = {"text-forward", "text-counterfactual"};
    int n_cf = 0, n_flip = 0;
    double r2_sum = 0, r2_min = 1, gap_sum = 0;
    int n_lime = 0;
    for (int b = 0; b < 2; b++) {
        json_t *items = load_items(bundles[b]);
        CHECK(items != NULL);
        size_t k;
        json_t *it;
        json_array_foreach(items, k, it)
        {
            const char *text = str(it, "input");
            int pred = textgen_predict(m, text);
            CHECK_STR(str(it, "prediction"), pred == TEXT_POS ? "pos" : "neg");
            json_t *cf = json_object_get(it, "counterfactual");
            if (cf) {
                char plain[TEXT_MAX_LEN + 8];
                strip_marks(str(cf, "input"), plain, sizeof plain);
                int cpred = textgen_predict(m, plain);
                CHECK_STR(str(cf, "prediction"),
                          cpred == TEXT_POS ? "pos" : "neg");
                CHECK(strstr(str(cf, "input"), "**") != NULL);
                n_cf++;
                n_flip += cpred != pred;
            }
            /* fidelity of LIME on the explained items, fresh samples */
            json_t *lime =
                json_object_get(json_object_get(it, "explanations"), "LIME");
            if (lime) {
                TextLime fit;
                CHECK_INT(textstudy_lime(ts, text, 12345, &fit, &err), SIM_OK);
                r2_sum += fit.fit.r2;
                r2_min = fit.fit.r2 < r2_min ? fit.fit.r2 : r2_min;
                double out = json_real_value(json_object_get(lime, "output"));
                gap_sum += fabs(out - textgen_prob(m, text));
                n_lime++;
            }
        }
        json_decref(items);
    }
    printf("text: %d LIME fits, R2 mean %.3f min %.3f, |output - P| %.3f; "
           "%d counterfactuals, %d flip\n",
           n_lime, r2_sum / n_lime, r2_min, gap_sum / n_lime, n_cf, n_flip);
    CHECK_INT(n_cf, 32);
    CHECK_INT(n_flip, 16);
    CHECK_INT(n_lime, 16 + 32);
    CHECK(r2_sum / n_lime >= 0.9);
    CHECK(r2_min >= 0.7);
    CHECK(gap_sum / n_lime <= 0.05);
    textstudy_free(ts);
}

/* ---------------------------------------------------------- tabular */

static void test_tabular(void)
{
    TabStudy *ts = NULL;
    SimError err = {0};
    CHECK_INT(tabstudy_make(GEN_DEFAULT_SEED, &ts, &err), SIM_OK);
    if (!ts) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    const TabModel *m = tabstudy_model(ts);
    const char *bundles[2] = {"tabular-forward", "tabular-counterfactual"};
    int n_cf = 0, n_flip = 0, n_lime = 0;
    double agree_sum = 0, r2_sum = 0;
    for (int b = 0; b < 2; b++) {
        json_t *items = load_items(bundles[b]);
        CHECK(items != NULL);
        size_t k;
        json_t *it;
        json_array_foreach(items, k, it)
        {
            TabRow row, crow;
            CHECK_INT(
                tabstudy_parse_row(json_object_get(it, "input"), &row, &err),
                SIM_OK);
            int pred = tabgen_predict(m, &row);
            CHECK_STR(str(it, "prediction"),
                      pred == TAB_ABOVE ? "above" : "below");
            json_t *cf = json_object_get(it, "counterfactual");
            if (cf) {
                CHECK_INT(tabstudy_parse_row(json_object_get(cf, "input"),
                                             &crow, &err),
                          SIM_OK);
                int cpred = tabgen_predict(m, &crow);
                CHECK_STR(str(cf, "prediction"),
                          cpred == TAB_ABOVE ? "above" : "below");
                /* the edits are exactly the differences */
                json_t *edits = json_object_get(cf, "edits");
                int changed = 0;
                for (int f = 0; f < TAB_NF; f++) {
                    changed += row.v[f] != crow.v[f];
                }
                CHECK_INT(changed, (int)json_array_size(edits));
                CHECK(changed >= 1 && changed <= 2);
                n_cf++;
                n_flip += cpred != pred;
            }
            if (json_object_get(json_object_get(it, "explanations"), "LIME")) {
                SurrogateFit fit;
                double agree = 0;
                CHECK_INT(tabstudy_lime(ts, &row, 12345, &fit, &agree, &err),
                          SIM_OK);
                agree_sum += agree;
                r2_sum += fit.r2;
                n_lime++;
            }
        }
        json_decref(items);
    }
    printf("tabular: %d LIME fits, weighted agreement %.3f, R2 %.3f; %d "
           "counterfactuals, %d flip\n",
           n_lime, agree_sum / n_lime, r2_sum / n_lime, n_cf, n_flip);
    CHECK_INT(n_cf, 32);
    CHECK_INT(n_flip, 16);
    CHECK_INT(n_lime, 16 + 32);
    /* LIME on tables is a rough local copy: it must still agree with the
    ** model about the side of 0.5 on most of its weighted samples */
    CHECK(agree_sum / n_lime >= 0.7);
    CHECK(r2_sum / n_lime >= 0.15);
    tabstudy_free(ts);
}

int main(void)
{
    test_text();
    test_tabular();
    test_image();
    return TEST_REPORT();
}
