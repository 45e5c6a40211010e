/*
** Timeouts and confidence in simlab-analyze, on a hand-computed fixture
** (tests/data/analysis-timeouts; the goldens agree with make_goldens.R):
** the timeouts table per condition and phase, the confidence table per
** condition (all, right and wrong answers), catch trials left out, and
** timeouts missing (not wrong) in the accuracy table. A row that timed out
** never counts as right or wrong, whatever its correct column says; a bad
** timed_out or confidence value is a located error.
*/
#include "tests/harness.h"
#include "tests/test_report.h"

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/report.h"
#include "common/sim_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DATA SIMLAB_TEST_DATA "/analysis-timeouts/"
#define TOL  1e-10

static void options(AnalyzeOptions *o)
{
    analyze_options_default(o);
    o->replicates = 0;
    o->progress = 0;
    o->quiet = 1;
    o->plots = 0;
}

/* The row of a table whose column "condition" is cond (and "phase" is
** phase when not NULL), or -1. */
static int row_of(const Table *t, const char *cond, const char *phase)
{
    for (int i = 0; t && i < t->n_rows; i++) {
        const char *c = test_text(t, i, "condition");
        const char *p = phase ? test_text(t, i, "phase") : NULL;
        if (c && strcmp(c, cond) == 0 && (!phase || (p && !strcmp(p, phase)))) {
            return i;
        }
    }
    return -1;
}

static void test_fixture(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, DATA "timeouts.csv", &err), SIM_OK);
    AnalyzeOptions o;
    options(&o);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);

    /* goldens.txt: condition, trials, timeouts, rate */
    const Table *t = test_table(&r, "timeouts");
    CHECK(t && t->n_rows == 2);
    int b = row_of(t, "baseline", "test"), l = row_of(t, "lime", "test");
    CHECK(b >= 0 && l >= 0);
    if (t && b >= 0 && l >= 0) {
        CHECK_NEAR(test_num(t, b, "n_trials"), 8, 0);
        CHECK_NEAR(test_num(t, b, "n_timeouts"), 2, 0);
        CHECK_NEAR(test_num(t, b, "rate"), 0.25, TOL);
        CHECK_NEAR(test_num(t, l, "n_trials"), 8, 0);
        CHECK_NEAR(test_num(t, l, "n_timeouts"), 3, 0);
        CHECK_NEAR(test_num(t, l, "rate"), 0.375, TOL);
    }

    /* goldens.txt: n, mean, n right, mean right, n wrong, mean wrong */
    const Table *c = test_table(&r, "confidence");
    CHECK(c && c->n_rows == 2);
    b = row_of(c, "baseline", NULL);
    l = row_of(c, "lime", NULL);
    CHECK(b >= 0 && l >= 0);
    if (c && b >= 0 && l >= 0) {
        CHECK_NEAR(test_num(c, b, "n_responses"), 6, 0);
        CHECK_NEAR(test_num(c, b, "mean"), 19.0 / 6.0, TOL);
        CHECK_NEAR(test_num(c, b, "n_correct"), 4, 0);
        CHECK_NEAR(test_num(c, b, "mean_correct"), 4.0, TOL);
        CHECK_NEAR(test_num(c, b, "n_wrong"), 2, 0);
        CHECK_NEAR(test_num(c, b, "mean_wrong"), 1.5, TOL);
        CHECK_NEAR(test_num(c, l, "n_responses"), 5, 0);
        CHECK_NEAR(test_num(c, l, "mean"), 3.8, TOL);
        CHECK_NEAR(test_num(c, l, "n_correct"), 4, 0);
        CHECK_NEAR(test_num(c, l, "mean_correct"), 4.25, TOL);
        CHECK_NEAR(test_num(c, l, "n_wrong"), 1, 0);
        CHECK_NEAR(test_num(c, l, "mean_wrong"), 2.0, TOL);
    }

    /* accuracy: timeouts are missing (b1 2 of 3, not 2 of 4) */
    const Table *a = test_table(&r, "accuracy");
    b = row_of(a, "baseline", "test");
    l = row_of(a, "lime", "test");
    CHECK(a && b >= 0 && l >= 0);
    if (a && b >= 0 && l >= 0) {
        CHECK_NEAR(test_num(a, b, "mean"), 2.0 / 3.0, TOL);
        CHECK_NEAR(test_num(a, l, "mean"), (1.0 + 2.0 / 3.0) / 2.0, TOL);
    }
    report_free(&r);
    dataset_free(ds);
}

/* A timed-out row counts as missing even when it says correct = 0; bad
** values are errors that name the column. */
static void test_rows(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    DatasetRow row;
    memset(&row, 0, sizeof row);
    row.participant = "p1";
    row.condition = "c";
    row.phase = "test";
    row.item = "i1";
    row.correct = 0;
    row.timed_out = 1;
    row.rt_ms = NAN;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    row.item = "i2";
    row.correct = 1;
    row.timed_out = 0;
    row.confidence = 11;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    CHECK(ds->n_rows == 2);
    if (ds->n_rows == 2) {
        CHECK_INT(ds->rows[0].correct, -1);
        CHECK_INT(ds->rows[0].timed_out, 1);
        CHECK_INT(ds->rows[0].confidence, 0);
        CHECK_INT(ds->rows[1].correct, 1);
        CHECK_INT(ds->rows[1].confidence, 11);
    }
    row.item = "i3";
    row.confidence = 12;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "column 'confidence'") != NULL);
    dataset_free(ds);

    char path[] = "timeouts-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) {
        return;
    }
    FILE *f = fdopen(fd, "w");
    fputs("participant,condition,phase,item,correct,timed_out\n"
          "p1,c,test,i1,1,0\n"
          "p1,c,test,i2,,maybe\n",
          f);
    fclose(f);
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, ":3: column 'timed_out'") != NULL);
    dataset_free(ds);
    remove(path);
}

int main(void)
{
    test_fixture();
    test_rows();
    return TEST_REPORT();
}
