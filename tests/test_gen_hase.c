/*
** The Hase & Bansal bundle writer (stimuli/gen/hase.c) with a made-up
** domain: when the domain's explainer fails, hase_write returns its error
** and frees everything it built (the ASan build checks for leaks).
*/
#include "tests/harness.h"
#include "tests/test_util.h"

#include "stimuli/gen/hase.h"

/* 16 validation and 32 test instances, TP/FP/TN/FN in turn. */
static int fake_label(void *ctx, int split, int i)
{
    (void)ctx, (void)split;
    return i % 4 == 0 || i % 4 == 3 ? 0 : 1;
}

static int fake_prediction(void *ctx, int split, int i)
{
    (void)ctx, (void)split;
    return i % 4 < 2 ? 0 : 1;
}

static json_t *fake_input(void *ctx, int split, int i)
{
    (void)ctx, (void)split;
    return json_sprintf("sentence %d", i);
}

static int fake_explain(void *ctx, int split, int i, uint64_t seed,
                        json_t *expl, SimError *err)
{
    (void)ctx, (void)split, (void)seed;
    /* Something is built before the failure, as a real explainer would. */
    json_object_set_new(expl, "LIME", json_pack("{s:s}", "kind", "features"));
    return sim_fail(err, SIM_ERR_INVALID, "fake domain: no explanation for %d",
                    i);
}

static int fake_counterfactual(void *ctx, int split, int i, int want_flip,
                               SimRng *rng, json_t **out, SimError *err)
{
    (void)ctx, (void)split, (void)i, (void)want_flip, (void)rng, (void)err;
    *out = NULL;
    return 0;
}

int main(void)
{
    static const char *const METHODS[] = {"LIME"};
    HaseDomain dom = {NULL,
                      "text",
                      {16, 32},
                      fake_label,
                      fake_prediction,
                      fake_input,
                      fake_explain,
                      fake_counterfactual};
    HaseSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.id = "fake";
    spec.title = "Fake";
    spec.domain = "text";
    spec.class_id[0] = "pos";
    spec.class_id[1] = "neg";
    spec.class_label[0] = "Positive";
    spec.class_label[1] = "Negative";
    spec.class_key[0] = "p";
    spec.class_key[1] = "n";
    spec.methods = METHODS;
    spec.n_methods = 1;
    spec.composite = "LIME";
    spec.consent = spec.instructions = spec.explanations = spec.debrief = "x";
    char dir[256];
    test_tmpdir(dir, sizeof dir, "gen-hase");
    HaseReport rep;
    SimError err = {0};
    CHECK_INT(hase_write(&dom, &spec, dir, 1, &rep, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "fake domain: no explanation") != NULL);
    test_rmtree(dir);
    return TEST_REPORT();
}
