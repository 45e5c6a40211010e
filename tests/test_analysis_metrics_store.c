/*
** Explanation metrics stored with the data (stimuli's "metrics_values",
** analysis/dataset_metrics.c): simulated participants of the image demo
** (a metrics file and masks) written to a store; the store gives back
** every value the bundle holds, to the bit; a --metrics file's value
** wins over the stored one and the stored ones it lacks stay; the demo's
** sessions give rows against Utility beside the primary test's, whose
** effects are the Utility table's and whose tau is Kendall's on them; a
** stored row edited into nonsense is a located error, nothing analysed.
*/
#include "tests/harness.h"
#include "tests/test_report.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/dataset_int.h"
#include "analysis/metrics.h"
#include "analysis/rankcor.h"
#include "common/sim_metrics.h"
#include "experiment/simulate.h"
#include "stimuli/study.h"

static const char *const BUNDLE =
    SIMLAB_SOURCE_DIR "/assets/studies/image-meta";
static char g_dir[] = "/tmp/simlab-metrics-store-XXXXXX";

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", g_dir, name);
}

static int simulate(const char *db)
{
    SimulateOptions o = {0};
    o.bundle_dir = BUNDLE;
    o.db_path = db;
    o.participants = 16;
    o.policy = POLICY_MIXED;
    o.seed = 7;
    o.durability = DURABILITY_FAST;
    SimError err;
    sim_error_clear(&err);
    int rc = simulate_run(&o, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate: %s\n", err.msg);
    }
    return rc;
}

static int load(const char *db, Dataset **ds, SimError *err)
{
    sim_error_clear(err);
    dataset_new(ds, err);
    return dataset_load_db(*ds, db, err);
}

/* The analysis of the simulated participants, quickly, without plots. */
static void options(AnalyzeOptions *o)
{
    analyze_options_default(o);
    o->replicates = 200;
    o->quiet = 1;
    o->progress = 0;
    o->plots = 0;
    o->include_simulated = 1;
}

/* Every value of the bundle's metrics is in the store's, to the bit. */
static void test_round_trip(const char *db)
{
    Study *st = NULL;
    SimError err;
    CHECK_INT(study_load(BUNDLE, &st, NULL, &err), SIM_OK);
    Dataset *ds = NULL;
    CHECK_INT(load(db, &ds, &err), SIM_OK);
    if (!st || !ds || !st->metrics || !ds->metrics) {
        CHECK(0);
        study_free(st);
        dataset_free(ds);
        return;
    }
    const SimMetrics *a = st->metrics, *b = ds->metrics;
    CHECK_INT(b->n_metrics, a->n_metrics);
    CHECK_INT((long)b->n_values, (long)a->n_values);
    size_t items = 0, same = 0;
    for (size_t i = 0; i < a->n_values; i++) {
        const SimMetricValue *v = &a->values[i];
        const char *name = a->metrics[v->metric].name;
        int k = sim_metrics_find(b, name);
        double w = k < 0 ? NAN : sim_metrics_value(b, k, v->method, v->item);
        same += memcmp(&w, &v->value, sizeof w) == 0;
        items += v->item != NULL;
        if (k >= 0 && i == 0) {
            CHECK_INT(b->metrics[k].higher_is_better,
                      a->metrics[v->metric].higher_is_better);
        }
    }
    CHECK_INT((long)same, (long)a->n_values);
    /* the file's method-level scores and the ones computed from masks */
    CHECK(items > 0 && items < a->n_values);
    int k = sim_metrics_find(b, "mass_in_mask");
    CHECK(k >= 0 && sim_metrics_value(b, k, "control", NULL) == 0.252124);
    study_free(st);
    dataset_free(ds);
}

/* A --metrics file's value wins; the stored values it lacks stay. */
static void test_file_wins(const char *db)
{
    char file[512], out[512];
    path_in(file, sizeof file, "override.csv");
    path_in(out, sizeof out, "out");
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    fputs("method,item,metric,value,higher_is_better\n"
          "control,,mass_in_mask,0.9,1\n",
          f);
    fclose(f);
    AnalyzeOptions o;
    options(&o);
    o.metrics_file = file;
    const char *dbs[1] = {db};
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(load(db, &ds, &err), SIM_OK);
    SimMetrics *m = NULL;
    CHECK_INT(metrics_load(file, ds, &o, &m, &err), SIM_OK);
    CHECK(m && sim_metrics_merge(m, ds->metrics) == 0);
    int k = m ? sim_metrics_find(m, "mass_in_mask") : -1;
    CHECK(k >= 0 && sim_metrics_value(m, k, "control", NULL) == 0.9);
    CHECK(k >= 0 && sim_metrics_value(m, k, "saliency", NULL) == 0.310731);
    int g = m ? sim_metrics_find(m, "pointing_game") : -1;
    CHECK(g >= 0 && sim_metrics_value(m, g, "control", NULL) == 0.774306);
    sim_metrics_free(m);
    dataset_free(ds);
    /* and so in the written report's per-method table */
    sim_error_clear(&err);
    int arc = analyze_main(&o, dbs, 1, NULL, 0, out, &err);
    if (arc != SIM_OK) {
        fprintf(stderr, "analyze: %s\n", err.msg);
    }
    CHECK_INT(arc, SIM_OK);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/metrics_methods.csv", out);
    f = fopen(csv, "r");
    CHECK(f != NULL);
    int seen_file = 0, seen_stored = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        seen_file += strncmp(line, "mass_in_mask,control,0.9", 24) == 0;
        seen_stored += strncmp(line, "mass_in_mask,saliency,0.31", 26) == 0;
    }
    if (f) {
        fclose(f);
    }
    /* once against the primary test, once against Utility */
    CHECK_INT(seen_file, 2);
    CHECK_INT(seen_stored, 2);
}

/* The rows against Utility: the Utility table's effects; tau on them. */
static void test_utility(const char *db)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(load(db, &ds, &err), SIM_OK);
    AnalyzeOptions o;
    options(&o);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.n_sessions == 3);
    const Table *pt = test_table(&r, "metrics_methods");
    const Table *t = test_table(&r, "metrics_vs_human");
    double x[16], y[16];
    int n = 0, rows = 0;
    for (int i = 0; pt && i < pt->n_rows; i++) {
        const char *h = test_text(pt, i, "human");
        const char *cond = test_text(pt, i, "condition");
        if (!h || strcmp(h, "utility") != 0) {
            continue;
        }
        rows++;
        int found = 0;
        for (int u = 0; u < r.n_utility; u++) {
            if (strcmp(r.utility[u].condition, cond) == 0) {
                found = 1;
                CHECK(test_num(pt, i, "human_effect") == r.utility[u].utility);
                CHECK(test_num(pt, i, "effect_ci") == r.utility[u].ci_low);
                CHECK(test_hi(pt, i, "effect_ci") == r.utility[u].ci_high);
            }
        }
        CHECK(found);
        if (strcmp(test_text(pt, i, "metric"), "pointing_game") == 0 &&
            n < 16) {
            x[n] = test_num(pt, i, "value");
            y[n] = test_num(pt, i, "human_effect");
            n++;
        }
    }
    CHECK_INT(rows, 4 * 7); /* 4 metrics x 7 methods */
    CHECK_INT(n, 7);
    int found = 0;
    for (int i = 0; t && i < t->n_rows; i++) {
        const char *h = test_text(t, i, "human");
        if (h && strcmp(h, "utility") == 0 &&
            strcmp(test_text(t, i, "metric"), "pointing_game") == 0) {
            found = 1;
            CHECK_NEAR(test_num(t, i, "kendall_tau"), rankcor_kendall(x, y, n),
                       1e-12);
            double tau = test_num(t, i, "kendall_tau");
            CHECK(test_num(t, i, "tau_ci") <= tau &&
                  tau <= test_hi(t, i, "tau_ci"));
        }
    }
    CHECK(found);
    report_free(&r);
    dataset_free(ds);
}

/* A stored row edited into nonsense: the store and row are named. */
static void test_bad_row(const char *db)
{
    char bad[512];
    path_in(bad, sizeof bad, "bad.db");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, bad);
    CHECK_INT(system(cmd), 0);
    sqlite3 *h = NULL;
    CHECK_INT(sqlite3_open(bad, &h), SQLITE_OK);
    char *msg = NULL;
    CHECK_INT(sqlite3_exec(h,
                           "UPDATE study SET definition = json_set(definition, "
                           "'$.metrics_values[2][3]', 'lots')",
                           NULL, NULL, &msg),
              SQLITE_OK);
    sqlite3_free(msg);
    sqlite3_close(h);
    Dataset *ds = NULL;
    SimError err;
    CHECK(load(bad, &ds, &err) != SIM_OK);
    CHECK(strstr(err.msg, "\"metrics_values\": row 3: field value") != NULL);
    if (!strstr(err.msg, "row 3")) {
        fprintf(stderr, "message: %s\n", err.msg);
    }
    dataset_free(ds);
}

int main(void)
{
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    char db[512];
    path_in(db, sizeof db, "demo.db");
    CHECK_INT(simulate(db), SIM_OK);
    test_round_trip(db);
    test_file_wins(db);
    test_utility(db);
    test_bad_row(db);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "could not remove %s\n", g_dir);
    }
    return TEST_REPORT();
}
