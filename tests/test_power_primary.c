/*
** `simlab power` on a study's primary test (study.json "analysis"): the
** paired t tests of examples/within with sequential looks -- boundaries as
** analysis/sequential.c computes them, stop shares and expected N, the
** last look's fixed rows equal to a fixed run's (the same studies), the
** procedure's false-positive rate, thread independence, power.json and
** power.md -- Holm against no correction on the same studies, and the
** mixed model's contrast against the reference (the phase x condition
** interaction) and the one-way ANOVA on the text-forward demo; the mixed
** model of error detection refused, not replaced.
*/
#include "tests/harness.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/sequential.h"
#include "analysis/report.h"
#include "app/power_cmd.h"

static char g_dir[] = "/tmp/simlab-power-primary-XXXXXX";

/* A copy of bundle src with "analysis" set to block; its folder in out. */
static void make(const char *src, const char *name, const char *block,
                 char *out, size_t size)
{
    char cmd[1400];
    snprintf(out, size, "%s/%s", g_dir, name);
    snprintf(cmd, sizeof cmd, "cp -r '%s/%s' '%s'", SIMLAB_SOURCE_DIR, src,
             out);
    CHECK(system(cmd) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/study.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_PRESERVE_ORDER, &je);
    json_object_set_new(root, "analysis", json_loads(block, 0, &je));
    CHECK(json_dump_file(root, path, JSON_INDENT(2)) == 0);
    json_decref(root);
}

static void options(PowerStudyOptions *o, const char *dir)
{
    power_study_options_default(o);
    o->bundle_dir = dir;
    o->screening = 0;
    o->power.studies = 200;
    o->power.threads = 2;
    o->power.progress = 0;
}

static PowerResult *run(PowerStudyOptions *o)
{
    PowerResult *r = NULL;
    SimError err;
    int rc = power_study_run(o, &r, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "power: %s\n", err.msg);
    }
    CHECK_INT(rc, SIM_OK);
    return r;
}

static void test_sequential(void)
{
    char seq[600], fixed[600];
    make("examples/within", "seq",
         "{\"primary\": \"paired_t\", \"sequential\": {\"looks\": [6, 12, "
         "18]}}",
         seq, sizeof seq);
    make("examples/within", "fixed", "{\"primary\": \"paired_t\"}", fixed,
         sizeof fixed);
    PowerStudyOptions o;
    options(&o, seq);
    PowerResult *r = run(&o); /* the sizes: the looks */
    if (!r) {
        return;
    }
    CHECK_STR(r->primary, "paired_t");
    CHECK_INT(r->opt.n_sizes, 3);
    CHECK_INT(r->opt.correction, POWER_CORRECTION_HOLM);
    const PowerSeq *q = r->seq;
    CHECK(q != NULL);
    if (!q) {
        power_free(r);
        return;
    }
    int looks[3] = {6, 12, 18};
    SeqDesign d;
    SimError err;
    CHECK_INT(seq_design(looks, 3, 0.05, SIM_SPENDING_OBRIEN_FLEMING, &d, &err),
              SIM_OK);
    double s1 = 0, s0 = 0;
    for (int j = 0; j < 3; j++) {
        CHECK_NEAR(q->crit[j], d.crit[j], 1e-12);
        CHECK_NEAR(q->spent[j], d.spent[j], 1e-12);
        s1 += q->stop_h1[j];
        s0 += q->stop_h0[j];
    }
    CHECK_NEAR(s1, 1, 1e-9);
    CHECK_NEAR(s0, 1, 1e-9);
    CHECK(q->expected_n_h1 >= 6 && q->expected_n_h1 <= 18);
    CHECK(q->expected_n_h0 >= q->expected_n_h1);
    CHECK(q->fpr <= 0.12); /* 200 null studies at 5 % */
    CHECK_INT(q->null_studies, 200);
    for (int c = 0; c < r->n_conds; c++) {
        /* the procedure rejects no more often than the fixed design at
        ** the last look, whose boundary is stricter than 1.96 */
        CHECK(q->power[c] <= r->rows[2 * r->n_conds + c].power + 0.03);
        CHECK(isnan(q->fixed_n[c]) || q->fixed_n[c] <= 18);
    }
    /* the fixed design on the same sizes: the same studies at the last */
    PowerStudyOptions f;
    options(&f, fixed);
    memcpy(f.power.sizes, looks, sizeof looks);
    f.power.n_sizes = 3;
    PowerResult *g = run(&f);
    for (int c = 0; g && c < r->n_conds; c++) {
        const PowerRow *a = &r->rows[2 * r->n_conds + c];
        const PowerRow *b = &g->rows[2 * g->n_conds + c];
        CHECK_INT(a->rejections, b->rejections);
        CHECK_NEAR(a->mean_estimate, b->mean_estimate, 1e-12);
        CHECK_INT(a->null_rejections, b->null_rejections);
    }
    CHECK(g && g->seq == NULL);
    /* the result does not depend on the threads */
    o.power.threads = 1;
    PowerResult *r1 = run(&o);
    CHECK(r1 && r1->seq);
    if (r1 && r1->seq) {
        CHECK_NEAR(r1->seq->fpr, q->fpr, 0);
        CHECK_NEAR(r1->seq->expected_n_h1, q->expected_n_h1, 0);
        for (int c = 0; c < r->n_conds; c++) {
            CHECK_NEAR(r1->seq->power[c], q->power[c], 0);
        }
    }
    /* the files */
    char out[700], path[800];
    snprintf(out, sizeof out, "%s/seq-out", g_dir);
    CHECK_INT(power_write(r, out, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/power.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    json_t *s = json_object_get(root, "sequential");
    const char *keys[] = {
        "looks", "critical_z",    "alpha_spent",   "false_positive_rate",
        "power", "expected_n_h0", "expected_n_h1", "fixed_n_same_power"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        CHECK(json_object_get(s, keys[k]) != NULL);
    }
    CHECK_INT(json_array_size(json_object_get(s, "critical_z")), 3);
    CHECK_STR(json_string_value(
                  json_object_get(json_object_get(root, "method"), "primary")),
              "paired_t");
    json_decref(root);
    snprintf(path, sizeof path, "%s/power.md", out);
    FILE *fm = fopen(path, "r");
    char md[16384] = "";
    size_t n = fm ? fread(md, 1, sizeof md - 1, fm) : 0;
    md[n] = '\0';
    if (fm) {
        fclose(fm);
    }
    CHECK(strstr(md, "## Sequential looks") != NULL);
    CHECK(strstr(md, "Holm's adjustment over the tested conditions") != NULL);
    power_free(r);
    power_free(r1);
    power_free(g);
}

/* Without correction every rejection of Holm's is one too (the same
** studies). */
static void test_correction(void)
{
    char holm[600], none[600];
    make("examples/within", "holm", "{\"primary\": \"paired_t\"}", holm,
         sizeof holm);
    make("examples/within", "none",
         "{\"primary\": \"paired_t\", \"correction\": \"none\"}", none,
         sizeof none);
    PowerStudyOptions o;
    options(&o, holm);
    o.power.sizes[0] = 8;
    o.power.sizes[1] = 16;
    o.power.n_sizes = 2;
    PowerResult *a = run(&o);
    o.bundle_dir = none;
    PowerResult *b = run(&o);
    for (int i = 0; a && b && i < a->n_rows; i++) {
        CHECK(b->rows[i].rejections >= a->rows[i].rejections);
        CHECK(b->rows[i].null_rejections >= a->rows[i].null_rejections);
    }
    CHECK(a && b && b->family[1].fwer >= a->family[1].fwer);
    CHECK(a && a->family[0].null_studies == 200);
    power_free(a);
    power_free(b);
}

/* The mixed model in a pre/post design: each condition's learning against
** the reference's; the one-way ANOVA between subjects. */
static void test_prepost(void)
{
    char dir[600];
    make("assets/studies/text-forward", "tf", "{}", dir, sizeof dir);
    PowerStudyOptions o;
    options(&o, dir);
    o.power.studies = 6;
    o.power.null_studies = 0;
    o.power.sizes[0] = 4;
    o.power.n_sizes = 1;
    PowerResult *r = run(&o);
    if (r) {
        CHECK_STR(r->primary, "glmm");
        CHECK_INT(r->method, POWER_METHOD_GLMM);
        CHECK_INT(r->vs_baseline, 1);
        CHECK_INT(r->n_conds, r->n_design_conds - 1);
        for (int c = 0; c < r->n_conds; c++) {
            CHECK(strcmp(r->conds[c].id, r->baseline) != 0);
            /* the truth: the condition's Change less the reference's */
            CHECK_NEAR(r->conds[c].true_change,
                       r->conds[c].true_post - r->conds[c].true_pre, 1e-12);
        }
        CHECK(r->baseline_from && strstr(r->baseline_from, "first condition"));
    }
    power_free(r);
    make("assets/studies/text-forward", "tf-anova", "{\"primary\": \"anova\"}",
         dir, sizeof dir);
    options(&o, dir);
    o.power.studies = 40;
    o.power.sizes[0] = 6;
    o.power.n_sizes = 1;
    r = run(&o);
    if (r) {
        CHECK_INT(r->method, POWER_METHOD_ANOVA);
        CHECK_INT(r->n_conds, 1);
        CHECK(r->family[0].null_studies == 40);
        CHECK(r->rows[0].fpr <= 0.2);
    }
    power_free(r);
}

/* The mixed model of error detection is not simulated: refused with its
** reason, never another model's power in its place; --test names the
** model simulated instead. */
static void test_error_detection(void)
{
    char dir[600];
    make("tests/data/experiment/mini-verify", "mv",
         "{\"primary\": \"glmm_error_detection\"}", dir, sizeof dir);
    PowerStudyOptions o;
    options(&o, dir);
    o.power.studies = 4;
    o.power.null_studies = 0;
    o.power.sizes[0] = 4;
    o.power.n_sizes = 1;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(r == NULL);
    CHECK_STR(err.msg,
              "study 'mini-verify': its primary test glmm_error_detection "
              "(correct ~ condition * model_correct + (1 | participant) + "
              "(1 | item) on verify trials) cannot be simulated by simlab "
              "power and simlab plan yet, and no other model is simulated in "
              "its place; simulate participants with `simlab simulate` (the "
              "simulation block's accept_p) and test them with "
              "simlab-analyze --primary glmm_error_detection");
    power_free(r);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    test_error_detection();
    test_sequential();
    test_correction();
    test_prepost();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}
