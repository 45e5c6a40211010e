/*
** study.json "analysis" (stimuli/primary.c, common/sim_analysis.c): the
** defaults, a valid block read into Study.analysis, and every bad input
** a located error with a "did you mean" where one fits -- an unknown
** test or member, alpha outside (0, 0.5), looks that do not increase or
** exceed the planned N, a test the design cannot have (paired_t between
** subjects, utility_bootstrap without sessions, change_bootstrap without
** Pre and Post, glmm_error_detection without verify blocks), a direction
** of an unknown condition or of the baseline.
** The bundles are copies of examples/within and the text-forward demo.
*/
#include "tests/harness.h"

#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "stimuli/study.h"

static char g_dir[] = "/tmp/simlab-analysis-block-XXXXXX";

/* A copy of bundle src as name with "analysis" set to the JSON text
** block (NULL: none); its path into out. */
static void make(const char *src, const char *name, const char *block,
                 char *out, size_t size)
{
    char cmd[1400];
    snprintf(out, size, "%s/%s", g_dir, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/%s' '%s'", out,
             SIMLAB_SOURCE_DIR, src, out);
    CHECK(system(cmd) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/study.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_PRESERVE_ORDER, &je);
    CHECK(root != NULL);
    if (block) {
        json_t *b = json_loads(block, 0, &je);
        CHECK(b != NULL);
        json_object_set_new(root, "analysis", b);
    }
    CHECK(json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ==
          0);
    json_decref(root);
}

/* Loads; the errors' "pointer: field: message" lines into text. */
static int load(const char *dir, Study **st, char *text, size_t size)
{
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    int rc = study_load(dir, st, &rep, &err);
    size_t at = 0;
    text[0] = '\0';
    for (size_t i = 0; i < rep.n_errors && at < size; i++) {
        const Diag *d = &rep.errors[i];
        int n = snprintf(text + at, size - at, "%s: %s: %s\n",
                         d->pointer ? d->pointer : "", d->field ? d->field : "",
                         d->message);
        at += n > 0 ? (size_t)n : 0;
    }
    study_report_free(&rep);
    return rc;
}

static int has(const char *text, const char *what)
{
    if (strstr(text, what)) {
        return 1;
    }
    fprintf(stderr, "missing: %s\nin:\n%s", what, text);
    return 0;
}

static void test_valid(void)
{
    char dir[600], text[8192];
    Study *st = NULL;
    make("examples/within", "none", NULL, dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_OK);
    CHECK(st && !st->analysis.present && !st->analysis.primary_set);
    CHECK(st && st->analysis.primary == SIM_PRIMARY_GLMM);
    CHECK(st && st->analysis.alpha == 0.05 && st->analysis.holm == 1);
    study_free(st);
    make("examples/within", "valid",
         "{\"primary\": \"paired_t\", \"alpha\": 0.01, \"correction\": "
         "\"none\", \"sequential\": {\"looks\": [10, 20, 30], \"spending\": "
         "\"pocock\"}, \"participants\": 30, \"direction\": {\"LIME\": "
         "\"higher\", \"SHAP\": \"lower\"}, \"notes\": \"free\"}",
         dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_OK);
    const SimAnalysisSpec *a = st ? &st->analysis : NULL;
    CHECK(a && a->present && a->primary_set);
    CHECK(a && a->primary == SIM_PRIMARY_PAIRED_T);
    CHECK(a && a->alpha == 0.01 && a->holm == 0);
    CHECK(a && a->n_looks == 3 && a->looks[2] == 30);
    CHECK(a && a->spending == SIM_SPENDING_POCOCK);
    CHECK(a && a->participants == 30);
    CHECK(a && sim_analysis_direction(a, "LIME") == 1);
    CHECK(a && sim_analysis_direction(a, "SHAP") == -1);
    CHECK(a && sim_analysis_direction(a, "baseline") == 0);
    study_free(st);
}

static void test_bad(void)
{
    char dir[600], text[8192];
    Study *st = NULL;
    make("examples/within", "bad",
         "{\"primary\": \"paired-t\", \"alpha\": 0.5, \"corection\": "
         "\"holm\", \"sequential\": {\"looks\": [20, 20, 30], \"spending\": "
         "\"obrien\"}, \"direction\": {\"LIMe\": \"higher\", \"baseline\": "
         "\"lower\", \"SHAP\": \"up\"}}",
         dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(st == NULL);
    CHECK(has(text, "/analysis/primary: primary: 'paired-t' is not one of "
                    "glmm, paired_t, anova, change_bootstrap, "
                    "utility_bootstrap, glmm_error_detection (did you mean "
                    "'paired_t'?)"));
    CHECK(has(text, "/analysis/alpha: alpha: expected a two-sided level "
                    "strictly between 0 and 0.5"));
    CHECK(has(text, "/analysis/corection: corection: unknown field (did you "
                    "mean 'correction'?)"));
    CHECK(has(text, "/analysis/sequential/looks/1: looks: 20 does not "
                    "increase on the look before it (20)"));
    CHECK(has(text, "/analysis/sequential/spending: spending: 'obrien' is "
                    "not one of obrien-fleming, pocock (did you mean "
                    "'obrien-fleming'?)"));
    CHECK(has(text, "/analysis/direction/LIMe: LIMe: no condition 'LIMe' "
                    "(did you mean 'LIME'?)"));
    CHECK(has(text, "/analysis/direction/baseline: baseline: 'baseline' is "
                    "the baseline"));
    CHECK(has(text, "/analysis/direction/SHAP: SHAP: expected \"higher\" or "
                    "\"lower\""));
    make("examples/within", "exceed",
         "{\"participants\": 24, \"sequential\": {\"looks\": [12, 30]}, "
         "\"alpha\": 0}",
         dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "/analysis/sequential/looks/1: looks: look 2 (30 "
                    "participants) exceeds the planned participants per "
                    "condition (24)"));
    CHECK(has(text, "/analysis/alpha: alpha: expected"));
    make("examples/within", "short",
         "{\"participants\": 40, \"sequential\": {\"looks\": [12, 30]}}", dir,
         sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "the last look (30) is the final analysis: it must equal "
                    "the planned participants (40)"));
    make("examples/within", "notobj", "[1, 2]", dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "/analysis: analysis: expected an object"));
}

/* Tests the design cannot have. */
static void test_design(void)
{
    char dir[600], text[8192];
    Study *st = NULL;
    make("assets/studies/text-forward", "tf-paired",
         "{\"primary\": \"paired_t\"}", dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "/analysis/primary: primary: paired_t compares each "
                    "participant's accuracy between conditions, and this "
                    "study is between-subject"));
    make("assets/studies/text-forward", "tf-utility",
         "{\"primary\": \"utility_bootstrap\"}", dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "utility_bootstrap tests the Utility of training "
                    "sessions"));
    make("examples/within", "w-change", "{\"primary\": \"change_bootstrap\"}",
         dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(has(text, "change_bootstrap tests Change = Post - Pre, and this "
                    "study has no Pre and Post blocks"));
    make("assets/studies/text-forward", "tf-change",
         "{\"primary\": \"change_bootstrap\", \"sequential\": {\"looks\": "
         "[10, 20]}}",
         dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_OK);
    study_free(st);
    /* the mixed model of error detection needs verify blocks: one error,
    ** at the field, before anyone takes part */
    make("assets/studies/text-forward", "tf-verify",
         "{\"primary\": \"glmm_error_detection\"}", dir, sizeof dir);
    st = NULL;
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_ERR_INVALID);
    CHECK(st == NULL);
    CHECK_STR(text, "/analysis/primary: primary: glmm_error_detection models "
                    "the answers of verify blocks (is the model right?), and "
                    "this study has none; add a \"kind\": \"verify\" "
                    "block, or use \"glmm\"\n");
    make("tests/data/experiment/mini-verify", "mv-verify",
         "{\"primary\": \"glmm_error_detection\"}", dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text), SIM_OK);
    CHECK_STR(text, "");
    CHECK(st && st->analysis.primary == SIM_PRIMARY_GLMM_ERROR_DETECTION);
    study_free(st);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    test_valid();
    test_bad();
    test_design();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    return TEST_REPORT();
}
