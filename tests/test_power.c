/*
** `simlab power` (analysis/power.c, app/power_study.c): the Wilson interval
*against R, the
** false-positive rate of conditions without an effect (at most the test's
** nominal size within Monte Carlo error: the crossed bootstrap is
** conservative), power without random effects against the closed form of
** a two-proportion z-test (between the variance-doubled and the plain
** closed form), curtailed replicates giving the decisions of all B, thread
** independence, the written files, the pilot's estimates as the truth,
** and bad input; for the Utility test (meta-predictor) and the difference
** with the baseline (a plain test): the size of conditions without an
** effect, power rising with N, and the statistic equal to simlab-analyze's
** on one simulated database. Small studies and B so that it runs in a few
** seconds.
*/
#include "tests/harness.h"

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/report.h"
#include "app/power_cmd.h"
#include "experiment/simulate.h"
#include "experiment/store.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BUNDLE SIMLAB_SOURCE_DIR "/assets/studies/text-forward"
#define META   SIMLAB_SOURCE_DIR "/assets/studies/image-meta"

static double phi(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

static void base(PowerStudyOptions *o, const char **cells, int n_cells)
{
    power_study_options_default(o);
    o->bundle_dir = BUNDLE;
    o->power.sizes[0] = 5;
    o->power.sizes[1] = 10;
    o->power.n_sizes = 2;
    o->power.studies = 200;
    o->power.replicates = 200;
    o->power.threads = 2;
    o->screening = 0;          /* test_power_design measures the screening */
    o->power.null_studies = 0; /* and the null studies */
    o->participant_sd = 0;
    o->item_sd = 0;
    o->cells = cells;
    o->n_cells = n_cells;
}

static void test_wilson(void)
{
    double lo, hi;
    power_wilson(7, 20, &lo, &hi); /* tests/data/power/wilson.R */
    CHECK_NEAR(lo, 0.181191824101, 1e-9);
    CHECK_NEAR(hi, 0.567145723315, 1e-9);
    power_wilson(0, 50, &lo, &hi);
    CHECK_NEAR(lo, 0.0, 1e-12);
    CHECK_NEAR(hi, 0.071347599133, 1e-9);
}

/* Every condition without an effect: the rejection rate is at most alpha
** plus three standard errors. */
static void test_null(void)
{
    const char *cells[] = {"*:post=0.6"};
    PowerStudyOptions o;
    base(&o, cells, 1);
    o.participant_sd = 0.4; /* the demo's random effects */
    o.item_sd = 0.4;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        return;
    }
    int rej = 0, n = 0;
    for (int i = 0; i < r->n_rows; i++) {
        rej += r->rows[i].rejections;
        n += r->rows[i].studies;
        CHECK(fabs(r->rows[i].mean_estimate) < 0.02);
    }
    for (int c = 0; c < r->n_conds; c++) {
        CHECK(r->conds[c].null_effect);
        CHECK(r->conds[c].n80.above);
    }
    double rate = (double)rej / n, se = sqrt(0.05 * 0.95 / n);
    printf("null: %d of %d rejected (%.4f)\n", rej, n, rate);
    CHECK(rate <= 0.05 + 3 * se);
    power_free(r);
}

/* No random effects: LIME 0.6 -> 0.7 with 32 pairs per participant. The
** closed form of the two-proportion z-test (n = 32 N per phase) bounds the
** power from above; the crossed bootstrap, which counts the binomial noise
** once through the users and once through the items, roughly doubles the
** variance, which gives the lower reference. */
static void test_closed_form(void)
{
    const char *cells[] = {"*:post=0.6", "LIME:post=0.7"};
    PowerStudyOptions o;
    base(&o, cells, 2);
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        return;
    }
    CHECK_STR(r->conds[0].id, "LIME");
    CHECK(!r->conds[0].null_effect);
    CHECK_NEAR(r->conds[0].true_change, 0.1, 1e-9);
    for (int s = 0; s < o.power.n_sizes; s++) {
        const PowerRow *w = &r->rows[s * r->n_conds + 0];
        double n = 32.0 * o.power.sizes[s];
        double z = 0.1 / sqrt((0.6 * 0.4 + 0.7 * 0.3) / n);
        double plain = phi(z - 1.959964), doubled = phi(z / sqrt(2) - 1.959964);
        double se = sqrt(plain * (1 - plain) / w->studies) + 0.01;
        printf("N=%d: power %.3f, closed form %.3f, doubled variance %.3f\n",
               o.power.sizes[s], w->power, plain, doubled);
        CHECK(w->power <= plain + 3 * se);
        CHECK(w->power >= doubled - 0.15);
        CHECK_NEAR(w->mean_estimate, 0.1, 0.01);
    }
    power_free(r);
    /* Users only (--items none): between the closed form with Pre from
    ** LIME alone and with Pre pooled over the 4 conditions (the random-
    ** effects Pre when the fit is singular) */
    o.power.items = 2;
    r = NULL;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        return;
    }
    for (int s = 0; s < o.power.n_sizes; s++) {
        const PowerRow *w = &r->rows[s * r->n_conds + 0];
        double n = 32.0 * o.power.sizes[s];
        double plain = phi(0.1 / sqrt((0.24 + 0.21) / n) - 1.959964);
        double pooled = phi(0.1 / sqrt((0.24 / 4 + 0.21) / n) - 1.959964);
        double se = sqrt(0.25 / w->studies);
        printf("users only, N=%d: power %.3f, closed forms %.3f to %.3f\n",
               o.power.sizes[s], w->power, plain, pooled);
        CHECK(w->power >= plain - 3 * se);
        CHECK(w->power <= pooled + 3 * se);
    }
    power_free(r);
}

/* Curtailed replicates decide as all B do; threads change nothing. */
static void test_same_decisions(void)
{
    const char *cells[] = {"*:post=0.6", "LIME:post=0.7"};
    PowerStudyOptions o;
    base(&o, cells, 2);
    o.power.studies = 60;
    PowerResult *a = NULL, *b = NULL, *c = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &a, &err), SIM_OK);
    o.power.full_replicates = 1;
    CHECK_INT(power_study_run(&o, &b, &err), SIM_OK);
    o.power.full_replicates = 0;
    o.power.threads = 1;
    CHECK_INT(power_study_run(&o, &c, &err), SIM_OK);
    if (a && b && c) {
        int saved = 0;
        for (int i = 0; i < a->n_rows; i++) {
            CHECK_INT(a->rows[i].rejections, b->rows[i].rejections);
            CHECK_INT(a->rows[i].rejections, c->rows[i].rejections);
            CHECK(a->rows[i].mean_estimate == c->rows[i].mean_estimate);
            CHECK(b->rows[i].mean_replicates == 200);
            saved += a->rows[i].mean_replicates < 200;
        }
        CHECK(saved > 0); /* the null studies stopped early */
        CHECK(a->rows[a->n_conds].rejections > 0); /* LIME, N = 10 */
    }
    power_free(a);
    power_free(b);
    power_free(c);
}

static void test_files(void)
{
    PowerStudyOptions o;
    base(&o, NULL, 0);
    o.power.studies = 20;
    o.participant_sd = o.item_sd = -1; /* the study's */
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        return;
    }
    CHECK_NEAR(r->participant_sd, 0.4, 1e-12);
    char dir[] = "/tmp/simlab-power-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(power_write(r, dir, &err), SIM_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/power.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    CHECK(root != NULL);
    if (root) {
        json_t *rows = json_object_get(root, "rows");
        CHECK_INT((int)json_array_size(rows), 8);
        static const char *const keys[] = {
            "condition",    "participants",  "studies",      "power",
            "power_ci_low", "power_ci_high", "mean_estimate"};
        for (size_t k = 0; k < 7; k++) {
            CHECK(json_object_get(json_array_get(rows, 0), keys[k]) != NULL);
        }
        json_t *rec =
            json_object_get(json_object_get(root, "recommendation"), "LIME");
        CHECK(json_object_get(rec, "n80") != NULL);
        CHECK(json_object_get(rec, "n90") != NULL);
        json_decref(root);
    }
    static const char *const files[] = {"power.md", "power.png", "power.svg",
                                        "power.pdf"};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL);
        if (f) {
            fseek(f, 0, SEEK_END);
            CHECK(ftell(f) > 100);
            fclose(f);
        }
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/power.json", dir);
    unlink(path);
    rmdir(dir);
    power_free(r);
}

/* Simulates a pilot of 12 participants of text-forward into db. */
static int make_pilot(const char *db)
{
    static const char *cells[] = {"LIME:post=0.9", "*:pre=0.6"};
    SimulateOptions so;
    memset(&so, 0, sizeof so);
    so.bundle_dir = BUNDLE;
    so.db_path = db;
    so.participants = 12;
    so.policy = POLICY_MIXED;
    so.seed = 7;
    so.station = "pilot";
    so.durability = DURABILITY_FAST;
    so.cells = cells;
    so.n_cells = 2;
    so.participant_sd = 0;
    so.item_sd = 0;
    so.wall_ms = 1700000000000LL;
    SimError err;
    int rc = simulate_run(&so, NULL, &err);
    if (rc != SIM_OK) {
        printf("pilot: %s\n", err.msg);
    }
    return rc;
}

/* --pilot: the pilot's accuracies become the truth; an empty pilot and a
** pilot with a condition the study lacks are errors. */
static void test_pilot(void)
{
    char dir[] = "/tmp/simlab-pilot-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char db[512], empty[512];
    snprintf(db, sizeof db, "%s/pilot.db", dir);
    snprintf(empty, sizeof empty, "%s/empty.db", dir);
    CHECK_INT(make_pilot(db), SIM_OK);
    const char *pilots[] = {db};
    PowerStudyOptions o;
    base(&o, NULL, 0);
    o.power.studies = 20;
    o.pilots = pilots;
    o.n_pilots = 1;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (r) {
        for (int c = 0; c < r->n_conds; c++) {
            const PowerCondition *pc = &r->conds[c];
            CHECK_INT(pc->pilot_participants, 3); /* hase rule: 3 each */
            CHECK_INT(pc->pilot_pre_n, 96);
            CHECK_INT(pc->pilot_post_n, 96);
            /* the truth reproduces the pilot's accuracies */
            CHECK_NEAR(pc->true_pre, pc->pilot_pre, 1e-9);
            CHECK_NEAR(pc->true_post, pc->pilot_post, 1e-9);
            CHECK(fabs(pc->pilot_pre - 0.6) < 0.15);
        }
        CHECK(r->conds[0].pilot_post > 0.8); /* LIME: 0.9 */
        power_free(r);
        r = NULL;
    }
    /* an empty pilot database */
    Store *st = NULL;
    Study *study = NULL;
    StudyReport rep;
    study_report_init(&rep);
    CHECK_INT(study_load(BUNDLE, &study, &rep, &err), SIM_OK);
    study_report_free(&rep);
    if (study) {
        CHECK_INT(store_open(empty, study, DURABILITY_FAST, 0, 1, &st, &err),
                  SIM_OK);
        store_close(st);
        study_free(study);
    }
    pilots[0] = empty;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "no Pre or Post responses") != NULL);
    /* a pilot condition the study does not have */
    pilots[0] = db;
    o.bundle_dir = SIMLAB_SOURCE_DIR "/assets/studies/tabular-forward";
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "condition 'Omission'") != NULL);
    CHECK(r == NULL);
    static const char *const tails[] = {"", "-wal", "-shm"};
    for (int k = 0; k < 3; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s%s", db, tails[k]);
        unlink(path);
        snprintf(path, sizeof path, "%s%s", empty, tails[k]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_bad_input(void)
{
    PowerStudyOptions o;
    SimError err;
    PowerResult *r = NULL;
    power_study_options_default(&o);
    CHECK_INT(power_parse_sizes("1,10", &o.power, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "at least 2") != NULL);
    CHECK_INT(power_parse_sizes("20,10", &o.power, &err), SIM_ERR_USAGE);
    CHECK_INT(power_parse_sizes("10,x", &o.power, &err), SIM_ERR_USAGE);
    CHECK_INT(power_parse_sizes("10,20,40", &o.power, &err), SIM_OK);
    CHECK_INT(o.power.n_sizes, 3);
    const char *cells[] = {"Nope:post=0.7"};
    base(&o, cells, 1);
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown condition 'Nope'") != NULL);
    base(&o, NULL, 0);
    o.bundle_dir = META; /* a pilot sets Pre and Post accuracies only */
    const char *pilots[] = {"unused.db"};
    o.pilots = pilots;
    o.n_pilots = 1;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "pre/post designs only") != NULL);
    base(&o, NULL, 0);
    o.power.replicates = 20;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "too few to reject") != NULL);
    CHECK(r == NULL);
}

/* A plain-test study in dir: text-forward's items, a condition
** 'baseline' added, one learn block and one predict block (phase test, no
** session); p 0.6 everywhere, LIME 0.75. */
static int make_plain(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    FILE *in = fopen(BUNDLE "/items.jsonl", "rb"), *out = fopen(path, "wb");
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
    json_t *st = json_load_file(BUNDLE "/study.json", 0, NULL);
    if (!ok || !st) {
        json_decref(st);
        return -1;
    }
    const char *drop[] = {"protocol", "pages", "quiz", "assignment", "rating"};
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++) {
        json_object_del(st, drop[i]);
    }
    json_array_insert_new(json_object_get(st, "conditions"), 0,
                          json_pack("{s:s,s:n}", "id", "baseline", "method"));
    json_object_set_new(st, "blocks",
                        json_pack("[{s:s,s:s,s:i},{s:s,s:s,s:i}]", "kind",
                                  "learn", "pool", "learn", "n", 16, "kind",
                                  "predict", "pool", "test", "n", 32));
    json_object_set_new(json_object_get(st, "simulation"), "cells",
                        json_pack("[{s:s,s:f},{s:s,s:s,s:f}]", "phase", "test",
                                  "p", 0.6, "condition", "LIME", "phase",
                                  "test", "p", 0.75));
    snprintf(path, sizeof path, "%s/study.json", dir);
    int bad = json_dump_file(st, path, JSON_INDENT(1));
    json_decref(st);
    return bad ? -1 : 0;
}

/* The Utility or difference test of bundle: conditions without an effect
** reject at most at alpha + 3 SE (all sizes pooled); cond's power rises
** with N and its mean estimate is near the truth. */
static void check_accuracy_test(const char *bundle, PowerTest test,
                                const char *cond, const char *label)
{
    PowerStudyOptions o;
    power_study_options_default(&o);
    o.screening = 0;
    o.power.null_studies = 0;
    o.bundle_dir = bundle;
    o.power.sizes[0] = 4;
    o.power.sizes[1] = 16;
    o.power.n_sizes = 2;
    o.power.studies = 200;
    o.power.replicates = 200;
    o.power.threads = 2;
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("%s: %s\n", label, err.msg);
        return;
    }
    CHECK_INT(r->test, test);
    CHECK(r->baseline && strcmp(r->baseline, "baseline") == 0);
    int rej = 0, n = 0, found = 0;
    for (int c = 0; c < r->n_conds; c++) {
        CHECK(strcmp(r->conds[c].id, "baseline") != 0);
        const PowerRow *lo = &r->rows[c], *hi = &r->rows[r->n_conds + c];
        if (r->conds[c].null_effect) {
            rej += lo->rejections + hi->rejections;
            n += lo->studies + hi->studies;
        }
        if (strcmp(r->conds[c].id, cond) == 0) {
            found = 1;
            printf("%s: %s power %.3f at N = 4, %.3f at N = 16, mean "
                   "estimate %.3f (true %.3f)\n",
                   label, cond, lo->power, hi->power, hi->mean_estimate,
                   r->conds[c].true_change);
            CHECK(!r->conds[c].null_effect);
            CHECK(hi->power > lo->power + 0.2);
            CHECK(hi->power > 0.6);
            CHECK(fabs(hi->mean_estimate - r->conds[c].true_change) < 0.04);
        }
    }
    CHECK(found);
    double rate = (double)rej / n, se = sqrt(0.05 * 0.95 / n);
    printf("%s: no effect: %d of %d rejected (%.4f)\n", label, rej, n, rate);
    CHECK(n >= 400);
    CHECK(rate <= 0.05 + 3 * se);
    power_free(r);
}

/* Utility != 1 for the meta-predictor demo: control has the baseline's p. */
static void test_utility(void)
{
    check_accuracy_test(META, POWER_TEST_UTILITY, "gradcam", "utility");
}

/* accuracy - baseline != 0 for a plain test: Anchor, Omission, Composite
** have the baseline's p. */
static void test_difference(void)
{
    char dir[] = "/tmp/simlab-plain-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(make_plain(dir), 0);
    check_accuracy_test(dir, POWER_TEST_DIFFERENCE, "LIME", "difference");
    char path[600];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/study.json", dir);
    unlink(path);
    rmdir(dir);
}

/* The statistic equals simlab-analyze's on one simulated data set: a
** database of `simlab simulate` (the full session, catch trials and
** screening), its Utility table (and the session accuracies for the
** difference) against power_estimate_db. */
static void check_matches_analyze(const char *bundle, PowerTest test)
{
    char dir[] = "/tmp/simlab-match-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char db[600];
    snprintf(db, sizeof db, "%s/sim.db", dir);
    SimulateOptions so;
    memset(&so, 0, sizeof so);
    so.bundle_dir = bundle;
    so.db_path = db;
    so.participants = 40;
    so.policy = POLICY_MIXED;
    so.seed = 11;
    so.station = "sim";
    so.durability = DURABILITY_FAST;
    so.participant_sd = -1;
    so.item_sd = -1;
    so.wall_ms = 1700000000000LL;
    SimError err;
    int rc = simulate_run(&so, NULL, &err);
    CHECK_INT(rc, SIM_OK);
    if (rc != SIM_OK) {
        printf("simulate: %s\n", err.msg);
        return;
    }
    Dataset *ds = NULL;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    AnalyzeOptions ao;
    analyze_options_default(&ao);
    ao.replicates = 0;
    ao.progress = 0;
    ao.include_simulated = 1;
    Report rep;
    CHECK_INT(analyze_compute(ds, &ao, &rep, &err), SIM_OK);
    double est[POWER_MAX_CELLS];
    PowerResult *pr = NULL;
    PowerStudyOptions po;
    power_study_options_default(&po);
    po.screening = 0;
    po.power.null_studies = 0;
    po.bundle_dir = bundle;
    po.power.sizes[0] = 2;
    po.power.n_sizes = 1;
    po.power.studies = 1;
    po.power.replicates = 40;
    CHECK_INT(power_study_run(&po, &pr, &err), SIM_OK);
    int K = pr ? pr->n_conds : 0;
    CHECK_INT(power_study_estimate_db(bundle, db, est, K, &err), SIM_OK);
    const UtilityRow *base = NULL;
    for (int i = 0; i < rep.n_utility; i++) {
        if (rep.utility[i].is_baseline) {
            base = &rep.utility[i];
        }
    }
    CHECK(base != NULL);
    if (!base) {
        printf("no baseline row: %d utility rows, note %s, %d rows read\n",
               rep.n_utility, rep.utility_note ? rep.utility_note : "-",
               rep.n_rows_read);
    }
    int compared = 0;
    for (int k = 0; k < K && base; k++) {
        for (int i = 0; i < rep.n_utility; i++) {
            const UtilityRow *u = &rep.utility[i];
            if (strcmp(u->condition, pr->conds[k].id) != 0) {
                continue;
            }
            double want =
                test == POWER_TEST_UTILITY
                    ? u->utility
                    : u->session_accuracy[0] - base->session_accuracy[0];
            CHECK_NEAR(est[k], want, 1e-12);
            compared++;
        }
    }
    printf("matches simlab-analyze: %d conditions compared\n", compared);
    CHECK(compared == K && K > 0);
    if (test == POWER_TEST_DIFFERENCE) {
        CHECK_INT(rep.n_sessions, 1);
    }
    power_free(pr);
    report_free(&rep);
    dataset_free(ds);
    unlink(db);
    char wal[620];
    snprintf(wal, sizeof wal, "%s-wal", db);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db);
    unlink(wal);
    rmdir(dir);
}

static void test_matches_analyze(void)
{
    check_matches_analyze(META, POWER_TEST_UTILITY);
    char dir[] = "/tmp/simlab-plain-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(make_plain(dir), 0);
    check_matches_analyze(dir, POWER_TEST_DIFFERENCE);
    char path[600];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/study.json", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_wilson();
    test_bad_input();
    test_null();
    test_closed_form();
    test_same_decisions();
    test_files();
    test_pilot();
    test_utility();
    test_difference();
    test_matches_analyze();
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}
