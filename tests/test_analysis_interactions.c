/*
** Interactions with explanations in simlab-analyze (report.json
** "interactions"): a hand-counted fixture (tests/data/analysis-interactions,
** its README counts every number) read from an export's
** X.interactions.csv; then simulated participants of
** tests/data/experiment/mini-on-request summarised from their database and
** from its export, which must agree cell by cell (times to the export's
** microsecond). A bad time is an error
** that names file, line and column.
*/
#include "tests/harness.h"

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/interactions.h"
#include "analysis/report.h"
#include "common/sim_alloc.h"
#include "experiment/export.h"
#include "experiment/simulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA SIMLAB_TEST_DATA "/analysis-interactions/"
#define TOL  1e-12

static const Table *find_table(const Report *r, const char *key)
{
    for (int i = 0; i < r->n_tables; i++) {
        if (strcmp(r->tables[i]->key, key) == 0) {
            return r->tables[i];
        }
    }
    return NULL;
}

static int col(const Table *t, const char *name)
{
    for (int j = 0; j < t->n_cols; j++) {
        if (strcmp(t->cols[j].name, name) == 0) {
            return j;
        }
    }
    fprintf(stderr, "no column %s in %s\n", name, t->key);
    return -1;
}

static double num(const Table *t, int row, const char *name)
{
    int j = col(t, name);
    return j >= 0 && row >= 0 && row < t->n_rows ? table_cell(t, row, j)->x
                                                 : NAN;
}

static int row_of(const Table *t, const char *cond)
{
    int j = t ? col(t, "condition") : -1;
    for (int i = 0; j >= 0 && i < t->n_rows; i++) {
        const char *c = table_cell(t, i, j)->text;
        if (c && strcmp(c, cond) == 0) {
            return i;
        }
    }
    return -1;
}

static void options(AnalyzeOptions *o)
{
    analyze_options_default(o);
    o->replicates = 0;
    o->progress = 0;
    o->quiet = 1;
    o->plots = 0;
    o->include_simulated = 1;
}

/* Loads csv (and its interactions) or db into a report. */
static int analyse(const char *csv, const char *db, Report *r)
{
    Dataset *ds = NULL;
    SimError err;
    sim_error_clear(&err);
    int rc = dataset_new(&ds, &err);
    if (rc == SIM_OK && csv) {
        rc = dataset_load_csv(ds, csv, &err);
        if (rc == SIM_OK) {
            rc = interactions_load_csv(ds, csv, &err);
        }
    }
    if (rc == SIM_OK && db) {
        rc = dataset_load_db(ds, db, &err);
        if (rc == SIM_OK) {
            rc = interactions_load_db(ds, db, &err);
        }
    }
    AnalyzeOptions o;
    options(&o);
    memset(r, 0, sizeof *r);
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, &o, r, &err);
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "analyse: %s\n", err.msg);
    }
    dataset_free(ds);
    return rc;
}

static void test_fixture(void)
{
    Report r;
    CHECK_INT(analyse(DATA "long.csv", NULL, &r), SIM_OK);
    const Table *t = find_table(&r, "interactions");
    CHECK(t != NULL);
    if (!t) {
        report_free(&r);
        return;
    }
    CHECK_INT(t->n_rows, 2); /* base offered nothing */
    int q = row_of(t, "req"), h = row_of(t, "hover");
    CHECK(q >= 0 && h >= 0);
    CHECK_INT(row_of(t, "base"), -1);
    CHECK_NEAR(num(t, q, "n_participants"), 2, 0);
    CHECK_NEAR(num(t, q, "n_offered"), 6, 0);
    CHECK_NEAR(num(t, q, "viewed_rate"), 4.0 / 6.0, TOL);
    CHECK_NEAR(num(t, q, "median_view_ms"), 1050, TOL);
    CHECK_NEAR(num(t, q, "n_scored_viewed"), 3, 0);
    CHECK_NEAR(num(t, q, "accuracy_viewed"), 1, TOL);
    CHECK_NEAR(num(t, q, "n_scored_not_viewed"), 2, 0);
    CHECK_NEAR(num(t, q, "accuracy_not_viewed"), 0.5, TOL);
    CHECK_NEAR(num(t, h, "n_participants"), 1, 0);
    CHECK_NEAR(num(t, h, "n_offered"), 2, 0);
    CHECK_NEAR(num(t, h, "viewed_rate"), 0.5, TOL);
    CHECK_NEAR(num(t, h, "median_view_ms"), 600, TOL);
    CHECK_NEAR(num(t, h, "accuracy_viewed"), 0, TOL);
    CHECK_NEAR(num(t, h, "accuracy_not_viewed"), 1, TOL);
    report_free(&r);
}

/* A time that is not a number names its place. */
static void test_bad_time(void)
{
    const char *csv = "interactions_bad.csv";
    const char *side = "interactions_bad.interactions.csv";
    FILE *f = fopen(csv, "w");
    fputs("participant,condition,phase,item,trial,correct,rt_ms\n"
          "p1,c,test,i1,1,1,900\n",
          f);
    fclose(f);
    f = fopen(side, "w");
    fputs("participant,condition,trial,event,t_ms\n"
          "p1,c,1,offer,0\n"
          "p1,c,1,reveal,soon\n",
          f);
    fclose(f);
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, csv, &err), SIM_OK);
    CHECK(interactions_load_csv(ds, csv, &err) != SIM_OK);
    CHECK(strstr(err.msg, "interactions_bad.interactions.csv:3: column "
                          "'t_ms'") != NULL);
    dataset_free(ds);
    remove(csv);
    remove(side);
}

/* The same numbers from a database and from its export. */
static void test_db_and_export(void)
{
    const char *db = "analysis_interactions.db";
    const char *csv = "analysis_interactions.csv";
    unlink(db);
    SimulateOptions o = {0};
    o.bundle_dir = SIMLAB_TEST_DATA "/experiment/mini-on-request";
    o.db_path = db;
    o.participants = 12;
    o.policy = POLICY_MIXED;
    o.seed = 17;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    SimError err;
    sim_error_clear(&err);
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    Report a, b;
    CHECK_INT(analyse(NULL, db, &a), SIM_OK);
    CHECK_INT(analyse(csv, NULL, &b), SIM_OK);
    const Table *ta = find_table(&a, "interactions");
    const Table *tb = find_table(&b, "interactions");
    CHECK(ta && tb);
    if (ta && tb) {
        /* rationale and words offer one; baseline does not */
        CHECK_INT(ta->n_rows, 2);
        CHECK_INT(tb->n_rows, ta->n_rows);
        for (int i = 0; i < ta->n_rows && i < tb->n_rows; i++) {
            for (int j = 0; j < ta->n_cols; j++) {
                const TableCell *x = table_cell(ta, i, j);
                const TableCell *y = table_cell(tb, i, j);
                if (x->text || y->text) {
                    CHECK(x->text && y->text && !strcmp(x->text, y->text));
                } else if (isnan(x->x) || isnan(y->x)) {
                    CHECK(isnan(x->x) && isnan(y->x));
                } else {
                    /* times exported to the microsecond */
                    CHECK_NEAR(x->x, y->x, 0.005);
                }
            }
        }
        int q = row_of(ta, "rationale");
        CHECK(q >= 0);
        double rate = num(ta, q, "viewed_rate");
        CHECK(rate > 0 && rate < 1); /* reveal_p 0.5 */
        CHECK(num(ta, q, "median_view_ms") > 0);
        CHECK_NEAR(num(ta, q, "n_participants"), 4, 0);
    }
    report_free(&a);
    report_free(&b);
    unlink(db);
    remove(csv);
    char side[256];
    snprintf(side, sizeof side, "%s.json", csv);
    remove(side);
    remove("analysis_interactions.interactions.csv");
}

int main(void)
{
    test_fixture();
    test_bad_time();
    test_db_and_export();
    return TEST_REPORT();
}
