/*
** `simlab power` on the study as the lab wrote it (app/power_study.c,
** app/power_enrol.c): the study's own baseline as the reference (neither
** called "baseline" nor listed first), --baseline overriding it, an
** unknown name as an error naming the conditions, and power.json/md
** saying which condition is the reference and where it came from; power
** of within-subject studies (the paired t of simlab-analyze, its
** statistic equal to the report's on a simulated database); the
** enrolment needed when the study's screening excludes participants and
** the timeout rate of its deadlines, both from participants run through
** the real session. Small studies, so that it runs in a few seconds.
*/
#include "tests/harness.h"

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/report.h"
#include "app/power_cmd.h"
#include "experiment/simulate.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PLAIN   SIMLAB_SOURCE_DIR "/bench/power/plain-study"
#define WITHIN  SIMLAB_SOURCE_DIR "/examples/within"
#define KREDIT  SIMLAB_SOURCE_DIR "/examples/kredit-de"
#define FORWARD SIMLAB_SOURCE_DIR "/assets/studies/text-forward"

/* Copies file src to dst; 0 on success. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    int ok = in && out;
    char buf[4096];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        ok = fwrite(buf, 1, n, out) == n;
    }
    if (in) {
        fclose(in);
    }
    if (out) {
        ok = fclose(out) == 0 && ok;
    }
    return ok ? 0 : -1;
}

/* bench/power/plain-study (a plain test) with its condition 'baseline'
** renamed 'ohne' and moved last, and "baseline": "ohne" in study.json:
** a reference that is neither called "baseline" nor listed first. */
static int make_ohne(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    if (copy_file(PLAIN "/items.jsonl", path) != 0) {
        return -1;
    }
    json_t *st = json_load_file(PLAIN "/study.json", 0, NULL);
    json_t *conds = json_object_get(st, "conditions");
    if (!st || json_array_size(conds) != 5) {
        json_decref(st);
        return -1;
    }
    json_array_remove(conds, 0); /* the condition 'baseline' */
    json_array_append_new(conds,
                          json_pack("{s:s,s:n}", "id", "ohne", "method"));
    json_object_set_new(st, "baseline", json_string("ohne"));
    snprintf(path, sizeof path, "%s/study.json", dir);
    int bad = json_dump_file(st, path, JSON_INDENT(1));
    json_decref(st);
    return bad ? -1 : 0;
}

static void remove_bundle(const char *dir)
{
    static const char *const files[] = {"items.jsonl", "study.json"};
    char path[600];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
}

static void small(PowerStudyOptions *o, const char *bundle)
{
    power_study_options_default(o);
    o->bundle_dir = bundle;
    o->power.sizes[0] = 3;
    o->power.sizes[1] = 6;
    o->power.n_sizes = 2;
    o->power.studies = 20;
    o->power.replicates = 100;
    o->power.threads = 2;
    o->screening = 20;
}

static int tested(const PowerResult *r, const char *id)
{
    for (int c = 0; c < r->n_conds; c++) {
        if (strcmp(r->conds[c].id, id) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The study's baseline 'ohne' is the reference; power.json and power.md
** name it and where it came from. */
static void test_study_baseline(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("study baseline: %s\n", err.msg);
        return;
    }
    CHECK_INT(r->test, POWER_TEST_DIFFERENCE);
    CHECK_STR(r->baseline, "ohne");
    CHECK(strstr(r->baseline_from, "the study's baseline") != NULL);
    CHECK(strstr(r->baseline_from, "study.json") != NULL);
    CHECK_INT(r->n_conds, 4);
    CHECK(!tested(r, "ohne"));
    CHECK(tested(r, "LIME") && tested(r, "Composite"));
    for (int c = 0; c < r->n_conds; c++) {
        /* p 0.6 everywhere, LIME 0.75: only LIME differs from 'ohne' */
        CHECK_INT(r->conds[c].null_effect, strcmp(r->conds[c].id, "LIME") != 0);
        CHECK_NEAR(r->conds[c].true_pre, r->conds[3].true_pre, 1e-12);
    }
    char dir[] = "/tmp/simlab-power-base-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(power_write(r, dir, &err), SIM_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/power.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *m = json_object_get(root, "method");
    CHECK_STR(json_string_value(json_object_get(m, "baseline")), "ohne");
    CHECK(strstr(json_string_value(json_object_get(m, "baseline_from")),
                 "study.json") != NULL);
    json_decref(root);
    snprintf(path, sizeof path, "%s/power.md", dir);
    FILE *f = fopen(path, "r");
    char text[8192] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) {
        fclose(f);
    }
    CHECK(strstr(text, "Baseline: ohne, from the study's baseline") != NULL);
    static const char *const files[] = {"power.json", "power.md", "power.png",
                                        "power.svg", "power.pdf"};
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
    power_free(r);
}

/* --baseline LIME overrides the study's; an unknown name is an error that
** names it and the conditions. */
static void test_baseline_option(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    o.baseline = "LIME";
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (r) {
        CHECK_STR(r->baseline, "LIME");
        CHECK_STR(r->baseline_from, "--baseline");
        CHECK(!tested(r, "LIME"));
        CHECK(tested(r, "ohne"));
        for (int c = 0; c < r->n_conds; c++) {
            CHECK(!r->conds[c].null_effect); /* all differ from LIME */
        }
        power_free(r);
        r = NULL;
    }
    o.baseline = "Lime";
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(r == NULL);
    CHECK(strstr(err.msg, "--baseline 'Lime'") != NULL);
    CHECK(strstr(err.msg, "'LIME', 'Anchor', 'Omission', 'Composite', "
                          "'ohne'") != NULL);
}

/* A within-subject study: the paired test of every condition against the
** baseline, power rising with N, the mean estimate near the truth, one
** screening entry for all conditions. */
static void test_within(void)
{
    PowerStudyOptions o;
    small(&o, WITHIN);
    o.power.sizes[0] = 6;
    o.power.sizes[1] = 24;
    o.power.studies = 300;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("within: %s\n", err.msg);
        return;
    }
    CHECK_INT(r->test, POWER_TEST_PAIRED);
    CHECK(r->within);
    CHECK_STR(r->baseline, "baseline");
    CHECK_INT(r->n_conds, 2);
    CHECK_STR(r->conds[0].id, "LIME");
    const PowerRow *lo = &r->rows[0], *hi = &r->rows[r->n_conds];
    printf("within: LIME power %.3f at N = 6, %.3f at N = 24, mean "
           "difference %.3f (true %.3f)\n",
           lo->power, hi->power, hi->mean_estimate, r->conds[0].true_change);
    CHECK(hi->power > lo->power + 0.3);
    CHECK(hi->power > 0.7);
    CHECK(hi->power > r->rows[r->n_conds + 1].power); /* LIME > SHAP */
    CHECK_NEAR(hi->mean_estimate, r->conds[0].true_change, 0.02);
    CHECK_NEAR(r->conds[0].true_change, 0.196, 0.001);
    CHECK_INT(r->n_screening, 1);
    CHECK_STR(r->screening[0].condition, "all");
    CHECK_INT(r->screening[0].enrolled, 20);
    CHECK(lo->enrol >= 6);
    power_free(r);
}

/* The paired statistic equals simlab-analyze's paired comparisons on a
** database of `simlab simulate` (the full session). */
static void test_within_matches_analyze(void)
{
    char dir[] = "/tmp/simlab-power-within-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char db[600];
    snprintf(db, sizeof db, "%s/sim.db", dir);
    SimulateOptions so;
    memset(&so, 0, sizeof so);
    so.bundle_dir = WITHIN;
    so.db_path = db;
    so.participants = 12;
    so.policy = POLICY_MIXED;
    so.seed = 5;
    so.station = "sim";
    so.durability = DURABILITY_FAST;
    so.participant_sd = -1;
    so.item_sd = -1;
    so.wall_ms = 1700000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&so, NULL, &err), SIM_OK);
    Dataset *ds = NULL;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    AnalyzeOptions ao;
    analyze_options_default(&ao);
    ao.replicates = 0;
    ao.progress = 0;
    ao.include_simulated = 1;
    ao.no_glmm = 1;
    Report rep;
    CHECK_INT(analyze_compute(ds, &ao, &rep, &err), SIM_OK);
    double est[2] = {NAN, NAN};
    CHECK_INT(power_study_estimate_db(WITHIN, db, est, 2, &err), SIM_OK);
    static const char *const conds[] = {"LIME", "SHAP"};
    int compared = 0;
    for (int i = 0; i < rep.n_tables; i++) {
        const Table *t = rep.tables[i];
        if (strcmp(t->key, "paired") != 0) {
            continue;
        }
        int cb = -1, cd = -1;
        for (int j = 0; j < t->n_cols; j++) {
            cb = strcmp(t->cols[j].name, "b") == 0 ? j : cb;
            cd = strcmp(t->cols[j].name, "diff") == 0 ? j : cd;
        }
        for (int row = 0; row < t->n_rows && cb >= 0 && cd >= 0; row++) {
            for (int k = 0; k < 2; k++) {
                if (strcmp(table_cell(t, row, cb)->text, conds[k]) == 0) {
                    CHECK_NEAR(est[k], table_cell(t, row, cd)->x, 1e-12);
                    compared++;
                }
            }
        }
    }
    printf("within: %d paired differences equal simlab-analyze's (%.4f, "
           "%.4f)\n",
           compared, est[0], est[1]);
    CHECK_INT(compared, 2);
    report_free(&rep);
    dataset_free(ds);
    static const char *const tails[] = {"", "-wal", "-shm"};
    for (int k = 0; k < 3; k++) {
        char path[620];
        snprintf(path, sizeof path, "%s%s", db, tails[k]);
        unlink(path);
    }
    rmdir(dir);
}

/* The plain study with two catch trials in its test block, every failed
** catch trial excluding, and catch trials answered right with p 0.6: about
** 1 - 0.6^2 = 64 % are excluded, so each row asks to enrol about 2.8 N. */
static int make_catchy(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    if (copy_file(PLAIN "/items.jsonl", path) != 0) {
        return -1;
    }
    json_t *st = json_load_file(PLAIN "/study.json", 0, NULL);
    json_t *blocks = json_object_get(st, "blocks");
    if (!st || json_array_size(blocks) != 2) {
        json_decref(st);
        return -1;
    }
    json_object_set_new(json_array_get(blocks, 0), "id", json_string("learn"));
    json_object_set_new(json_array_get(blocks, 1), "catch", json_integer(2));
    json_object_set_new(json_array_get(blocks, 1), "reservoir",
                        json_string("learn"));
    json_object_set_new(st, "screening",
                        json_pack("{s:i}", "max_catch_failures", 0));
    json_object_set_new(json_object_get(st, "simulation"), "catch_p",
                        json_real(0.6));
    snprintf(path, sizeof path, "%s/study.json", dir);
    int bad = json_dump_file(st, path, JSON_INDENT(1));
    json_decref(st);
    return bad ? -1 : 0;
}

/* enrol > N when the screening excludes: the exclusion rate measured
** through the real session, and each row's enrol from it. */
static void test_enrol(void)
{
    char dir[] = "/tmp/simlab-power-catch-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(make_catchy(dir), 0);
    PowerStudyOptions o;
    small(&o, dir);
    o.power.studies = 10;
    o.screening = 100;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("enrol: %s\n", err.msg);
        remove_bundle(dir);
        return;
    }
    CHECK_INT(r->n_screening, 5); /* every condition, the baseline too */
    for (int i = 0; i < r->n_screening; i++) {
        const PowerScreening *e = &r->screening[i];
        printf("enrol: %s: %d of %d analysed (excluded %.2f, %.2f-%.2f)\n",
               e->condition, e->analysed, e->enrolled, e->exclusion_rate,
               e->rate_low, e->rate_high);
        CHECK_INT(e->enrolled, 100);
        CHECK(fabs(e->exclusion_rate - 0.64) < 0.15);
        CHECK(e->rate_low < e->exclusion_rate);
        CHECK(e->rate_high > e->exclusion_rate);
        CHECK_INT(e->deadline_trials, 0);
    }
    for (int k = 0; k < r->n_rows; k++) {
        const PowerRow *w = &r->rows[k];
        const PowerScreening *e = NULL;
        for (int i = 0; i < r->n_screening; i++) {
            e = strcmp(r->screening[i].condition, w->condition) == 0
                    ? &r->screening[i]
                    : e;
        }
        CHECK(e != NULL);
        if (!e) {
            continue;
        }
        CHECK(w->enrol > w->participants);
        CHECK_NEAR(w->enrol,
                   ceil(w->participants / (1 - e->exclusion_rate) - 1e-9), 0);
        CHECK(w->enrol_low <= w->enrol && w->enrol <= w->enrol_high);
    }
    power_free(r);
    remove_bundle(dir);
}

/* The timeout rate of a study with deadlines (kredit-de: 15 s, simulated
** reaction times with median 5 s and log-SD 0.5: P(RT > 15 s) = 1.4 %). */
static void test_timeouts(void)
{
    PowerStudyOptions o;
    small(&o, KREDIT);
    o.power.studies = 5;
    o.screening = 50;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("timeouts: %s\n", err.msg);
        return;
    }
    CHECK_STR(r->baseline, "ohne");
    CHECK_INT(r->n_screening, 1);
    const PowerScreening *e = &r->screening[0];
    printf("timeouts: %ld of %ld answers with a deadline (%.4f)\n", e->timeouts,
           e->deadline_trials, e->timeout_rate);
    CHECK_INT(e->deadline_trials, 50 * 3 * 8); /* 8 timed trials each */
    CHECK(e->timeout_rate > 0.002 && e->timeout_rate < 0.04);
    power_free(r);
}

/* --test glmm, users and bootstrap on a small between-subject study (the
** plain test with 'ohne' as baseline) and glmm, t and anova on a
** within-subject one: each runs, the null studies give every row a
** false-positive rate, the mixed model's and the t test's intervals a
** coverage; the ANOVA's F test is one row for all conditions. */
static void check_method(const char *bundle, PowerMethod m, int n_null)
{
    PowerStudyOptions o;
    small(&o, bundle);
    o.power.sizes[0] = 4;
    o.power.sizes[1] = 8;
    o.power.studies = 6;
    o.power.null_studies = n_null;
    o.power.method = m;
    o.screening = 0;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("%s: %s\n", power_method_name(m), err.msg);
        return;
    }
    CHECK_INT(r->method, m);
    CHECK(m == POWER_METHOD_ANOVA
              ? r->n_conds == 1 && strcmp(r->conds[0].id, "all conditions") == 0
              : r->n_conds >= 2);
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        CHECK_INT(w->null_studies, n_null);
        CHECK(w->fpr >= 0 && w->fpr <= 1);
        CHECK(w->fpr_low <= w->fpr && w->fpr <= w->fpr_high);
        CHECK(isfinite(w->mean_estimate));
        /* the bootstraps' coverage needs --coverage */
        CHECK(m == POWER_METHOD_GLMM || m == POWER_METHOD_T
                  ? w->coverage >= 0 && w->coverage <= 1
                  : isnan(w->coverage));
    }
    char dir[] = "/tmp/simlab-power-method-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(power_write(r, dir, &err), SIM_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/power.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *m0 = json_object_get(root, "method");
    CHECK_STR(json_string_value(json_object_get(m0, "test_name")),
              power_method_name(m));
    json_t *row = json_array_get(json_object_get(root, "rows"), 0);
    CHECK(json_is_real(json_object_get(row, "false_positive_rate")));
    CHECK_INT(json_integer_value(json_object_get(row, "null_studies")), n_null);
    json_decref(root);
    static const char *const files[] = {"power.json", "power.md", "power.png",
                                        "power.svg", "power.pdf"};
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
    printf("--test %s: %s at N = 8: power %.2f, false positives %.2f\n",
           power_method_name(m), r->rows[r->n_conds].condition,
           r->rows[r->n_conds].power, r->rows[r->n_conds].fpr);
    power_free(r);
}

/* The mixed model's test detects a large effect: LIME 0.6 -> 0.75 in the
** plain test with 16 participants per condition; its mean estimate is the
** log-odds contrast of the cells (logit 0.75 - logit 0.6 = 0.693). */
static void test_glmm_power(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    o.power.sizes[0] = 16;
    o.power.n_sizes = 1;
    o.power.studies = 20;
    o.power.null_studies = 0;
    o.power.method = POWER_METHOD_GLMM;
    o.screening = 0;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("glmm power: %s\n", err.msg);
        return;
    }
    CHECK_STR(r->conds[0].id, "LIME");
    CHECK_NEAR(r->conds[0].true_logit, log(3.0) - log(1.5), 1e-9);
    printf("glmm: LIME power %.2f, mean log-odds %.3f (true %.3f), "
           "coverage %.2f\n",
           r->rows[0].power, r->rows[0].mean_estimate, r->conds[0].true_logit,
           r->rows[0].coverage);
    CHECK(r->rows[0].power >= 0.7);
    CHECK(fabs(r->rows[0].mean_estimate - r->conds[0].true_logit) < 0.2);
    CHECK(r->rows[0].coverage >= 0.7);
    power_free(r);
}

/* --test glmm's pilots: the same power, coverage and estimates as with
** every fit from lme4's start (pre/post text-forward, whose full structure
** is singular in most studies, with null studies; the within-subject
** example), and the same result on one thread as on two. */
static void test_glmm_pilots(const char *bundle, int size)
{
    PowerResult *r[3] = {NULL, NULL, NULL};
    for (int run = 0; run < 3; run++) {
        PowerStudyOptions o;
        small(&o, bundle);
        o.power.sizes[0] = size;
        o.power.n_sizes = 1;
        o.power.studies = 8;
        o.power.null_studies = 4;
        o.power.method = POWER_METHOD_GLMM;
        o.power.glmm_cold = run == 2;
        o.power.threads = run == 1 ? 1 : 2;
        o.screening = 0;
        SimError err;
        CHECK_INT(power_study_run(&o, &r[run], &err), SIM_OK);
        if (!r[run]) {
            printf("glmm pilots: %s\n", err.msg);
            return;
        }
    }
    CHECK_INT(r[0]->n_rows, r[2]->n_rows);
    for (int i = 0; i < r[0]->n_rows && r[0]->n_rows == r[2]->n_rows; i++) {
        const PowerRow *a = &r[0]->rows[i], *t = &r[1]->rows[i],
                       *c = &r[2]->rows[i];
        CHECK_INT(a->rejections, c->rejections);
        CHECK_INT(a->covered, c->covered);
        CHECK_INT(a->null_rejections, c->null_rejections);
        CHECK_NEAR(a->mean_estimate, c->mean_estimate, 1e-6);
        /* threads change nothing: the pilots run before the others */
        CHECK_INT(a->rejections, t->rejections);
        CHECK(a->mean_estimate == t->mean_estimate);
    }
    printf("glmm pilots (%s): %s power %.2f, mean log-odds %.4f (from "
           "lme4's start %.4f)\n",
           bundle, r[0]->rows[0].condition, r[0]->rows[0].power,
           r[0]->rows[0].mean_estimate, r[2]->rows[0].mean_estimate);
    for (int run = 0; run < 3; run++) {
        power_free(r[run]);
    }
}

/* --test t on a between-subject study and users on a within-subject one
** are usage errors naming the alternatives. */
static void test_method_errors(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    o.power.method = POWER_METHOD_T;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "--test t") != NULL);
    small(&o, WITHIN);
    o.power.method = POWER_METHOD_USERS;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "--test glmm") != NULL);
    CHECK(r == NULL);
    CHECK_INT(power_parse_method("glmm"), POWER_METHOD_GLMM);
    CHECK_INT(power_parse_method("anova"), POWER_METHOD_ANOVA);
    CHECK_INT(power_parse_method("GLMM"), -1);
}

int main(void)
{
    char dir[] = "/tmp/simlab-power-ohne-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(make_ohne(dir), 0);
    test_study_baseline(dir);
    test_baseline_option(dir);
    check_method(dir, POWER_METHOD_BOOTSTRAP, 8);
    check_method(dir, POWER_METHOD_USERS, 8);
    check_method(dir, POWER_METHOD_GLMM, 4);
    test_glmm_power(dir);
    test_method_errors(dir);
    remove_bundle(dir);
    check_method(WITHIN, POWER_METHOD_GLMM, 4);
    test_glmm_pilots(FORWARD, 10);
    test_glmm_pilots(WITHIN, 8);
    check_method(WITHIN, POWER_METHOD_T, 8);
    check_method(WITHIN, POWER_METHOD_ANOVA, 8);
    test_within();
    test_within_matches_analyze();
    test_enrol();
    test_timeouts();
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}
