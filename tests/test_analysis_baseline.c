/*
** The reference condition of every table: the study's own baseline (from
** an export's sidecar or a database's study definition), neither called
** "baseline" nor listed first, in the Utility table, the Tukey contrasts,
** the paired tests of a within design and the report's settings; the
** --baseline override; an unknown name and disagreeing definitions as
** errors that name the conditions. A block of catch trials only (an
** attention check) gives no table of its own.
*/
#include "tests/harness.h"

#include <sqlite3.h>

#include "analysis/analyze.h"
#include "analysis/compute.h"
#include "tests/test_report.h"
#include "tests/test_util.h"

static char tmpdir[256];

/* Correct answers of participant p (0-based within its condition) out of
** 10 per session: 8, 6 and 5 on average in balken, begruendung and ohne. */
static int n_right(const char *cond, int p)
{
    static const int spread[4] = {-1, 0, 1, 0};
    int mean = strcmp(cond, "balken") == 0        ? 8
               : strcmp(cond, "begruendung") == 0 ? 6
                                                  : 5;
    return mean + spread[p % 4];
}

static const char *const CONDS[3] = {"balken", "begruendung", "ohne"};

/* Writes a long-format CSV of a meta-predictor test (2 sessions of 10
** items) and its sidecar naming baseline (NULL: a sidecar without one).
** within: every participant does every condition; else 4 per condition.
** Returns the path in a static buffer. */
static const char *write_study(const char *name, const char *baseline,
                               int within)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.csv", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fputs("participant,condition,phase,item,correct,session\n", f);
    int rows = 0;
    for (int c = 0; c < 3; c++) {
        for (int p = 0; p < (within ? 6 : 4); p++) {
            for (int s = 1; s <= 2; s++) {
                for (int i = 0; i < 10; i++) {
                    int part = within ? p : c * 4 + p;
                    fprintf(f, "p%d,%s,test,%s-%d-%d,%d,%d\n", part, CONDS[c],
                            CONDS[c], s, i, i < n_right(CONDS[c], p), s);
                    rows++;
                }
            }
        }
    }
    fclose(f);
    char side[600];
    snprintf(side, sizeof side, "%s.json", path);
    f = fopen(side, "wb");
    fprintf(f,
            "{\"format\": \"simlab long format v1\", \"rows\": %d, "
            "\"studies\": [{\"id\": \"%s\", \"definition\": {\"id\": \"%s\", "
            "\"conditions\": [\"balken\", \"begruendung\", \"ohne\"]%s%s%s}}]}"
            "\n",
            rows, name, name, baseline ? ", \"baseline\": \"" : "",
            baseline ? baseline : "", baseline ? "\"" : "");
    fclose(f);
    return path;
}

static int analyse(const char *const *csvs, int n, const char *baseline,
                   Report *r, SimError *err)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 200;
    o.progress = 0;
    o.quiet = 1;
    o.plots = 0;
    o.baseline = baseline;
    Dataset *ds = NULL;
    int rc = dataset_new(&ds, err);
    for (int i = 0; i < n && rc == SIM_OK; i++) {
        rc = dataset_load_csv(ds, csvs[i], err);
    }
    memset(r, 0, sizeof *r);
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, &o, r, err);
    }
    dataset_free(ds);
    return rc;
}

static int has(const SimError *err, const char *s)
{
    if (strstr(err->msg, s)) {
        return 1;
    }
    fprintf(stderr, "message: %s\n  lacks: %s\n", err->msg, s);
    return 0;
}

/* Between subjects: the Utility table and the Tukey contrasts. */
static void test_between(void)
{
    const char *csv = write_study("between", "ohne", 0);
    Report r;
    SimError err;
    CHECK_INT(analyse(&csv, 1, NULL, &r, &err), SIM_OK);
    CHECK_STR(r.baseline, "ohne");
    CHECK(r.baseline_from && strstr(r.baseline_from, "study's baseline"));
    CHECK(r.baseline_from && strstr(r.baseline_from, "between.csv.json"));
    CHECK(r.utility_note == NULL);
    /* Utility: ohne is the reference (Utility 1), the others its ratio */
    const Table *u = test_table(&r, "utility");
    CHECK(u != NULL && u->n_rows == 3);
    int ohne = test_row(u, "condition", "ohne");
    int balken = test_row(u, "condition", "balken");
    int begr = test_row(u, "condition", "begruendung");
    CHECK_INT(ohne, 0); /* the reference comes first */
    CHECK_NEAR(test_num(u, ohne, "baseline"), 1, 0);
    CHECK_NEAR(test_num(u, balken, "baseline"), 0, 0);
    CHECK_NEAR(test_num(u, ohne, "utility"), 1, 1e-12);
    CHECK_NEAR(test_num(u, balken, "utility"), 0.8 / 0.5, 1e-12);
    CHECK_NEAR(test_num(u, begr, "utility"), 0.6 / 0.5, 1e-12);
    /* Tukey: exactly the two contrasts with ohne are against the baseline */
    const Table *t = test_table(&r, "tukey");
    CHECK(t != NULL && t->n_rows == 3);
    int n_vs = 0;
    for (int i = 0; t && i < t->n_rows; i++) {
        int with_ohne = strcmp(test_text(t, i, "a"), "ohne") == 0 ||
                        strcmp(test_text(t, i, "b"), "ohne") == 0;
        CHECK_NEAR(test_num(t, i, "vs_baseline"), with_ohne, 0);
        n_vs += with_ohne;
    }
    CHECK_INT(n_vs, 2);
    report_free(&r);

    /* --baseline overrides the study's */
    CHECK_INT(analyse(&csv, 1, "balken", &r, &err), SIM_OK);
    CHECK_STR(r.baseline, "balken");
    CHECK_STR(r.baseline_from, "--baseline");
    u = test_table(&r, "utility");
    CHECK_INT(test_row(u, "condition", "balken"), 0);
    CHECK_NEAR(test_num(u, test_row(u, "condition", "ohne"), "utility"),
               0.5 / 0.8, 1e-12);
    report_free(&r);

    /* an unknown --baseline names itself and the conditions */
    CHECK_INT(analyse(&csv, 1, "ohen", &r, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "--baseline 'ohen': no such condition"));
    CHECK(has(&err, "'balken', 'begruendung', 'ohne'"));
    report_free(&r);

    /* without a baseline anywhere: no Utility table, and the report says
    ** why instead of comparing with the first condition */
    const char *plain = write_study("plain", NULL, 0);
    CHECK_INT(analyse(&plain, 1, NULL, &r, &err), SIM_OK);
    CHECK(r.baseline == NULL);
    CHECK(r.utility_note && strstr(r.utility_note, "no baseline is known"));
    CHECK(r.baseline_from && strstr(r.baseline_from, "--baseline"));
    t = test_table(&r, "tukey");
    for (int i = 0; t && i < t->n_rows; i++) {
        CHECK_NEAR(test_num(t, i, "vs_baseline"), 0, 0);
    }
    report_free(&r);
}

/* Within subjects: the paired tests are each condition minus ohne. */
static void test_within(void)
{
    const char *csv = write_study("within", "ohne", 1);
    Report r;
    SimError err;
    CHECK_INT(analyse(&csv, 1, NULL, &r, &err), SIM_OK);
    const Table *p = test_table(&r, "paired");
    CHECK(p != NULL && p->n_rows == 2);
    int balken = test_row(p, "comparison", "balken - ohne");
    int begr = test_row(p, "comparison", "begruendung - ohne");
    CHECK(balken >= 0 && begr >= 0);
    CHECK_NEAR(test_num(p, balken, "diff"), 0.3, 1e-12);
    CHECK_NEAR(test_num(p, begr, "diff"), 0.1, 1e-12);
    CHECK(test_row(p, "comparison", "begruendung - balken") < 0);
    report_free(&r);
}

/* Two exports whose studies name different baselines. */
static void test_conflict(void)
{
    const char *a = write_study("site-a", "ohne", 0);
    char a_copy[512];
    snprintf(a_copy, sizeof a_copy, "%s", a);
    const char *b = write_study("site-b", "balken", 0);
    const char *both[2] = {a_copy, b};
    Report r;
    SimError err;
    CHECK_INT(analyse(both, 2, NULL, &r, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "different baselines: 'ohne'"));
    CHECK(has(&err, "'balken'"));
    CHECK(has(&err, "--baseline"));
    report_free(&r);
    CHECK_INT(analyse(both, 2, "ohne", &r, &err), SIM_OK);
    CHECK_STR(r.baseline, "ohne");
    report_free(&r);
}

/* A database: the baseline of the study definition in its study table. */
static void test_database(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/study.db", tmpdir);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE study (study_id TEXT, definition TEXT);"
                 "INSERT INTO study VALUES ('s', '{\"baseline\": \"ohne\"}');"
                 "CREATE TABLE long_format (participant TEXT, condition TEXT,"
                 " phase TEXT, item TEXT, correct INTEGER, session INTEGER);",
                 NULL, NULL, NULL);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 4; p++) {
            for (int i = 0; i < 10; i++) {
                char *sql = sqlite3_mprintf(
                    "INSERT INTO long_format VALUES ('p%d', '%s', 'test', "
                    "'i%d', %d, 1)",
                    c * 4 + p, CONDS[c], i, i < n_right(CONDS[c], p));
                sqlite3_exec(db, sql, NULL, NULL, NULL);
                sqlite3_free(sql);
            }
        }
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 100;
    o.progress = 0;
    o.quiet = 1;
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, path, &err), SIM_OK);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_STR(r.baseline, "ohne");
    CHECK(r.baseline_from && strstr(r.baseline_from, "study.db (study 's')"));
    const Table *u = test_table(&r, "utility");
    CHECK(u && test_row(u, "condition", "ohne") == 0);
    report_free(&r);
    dataset_free(ds);
}

/* Pre and post blocks, then an attention block of catch trials only in
** the test phase: the Change table and the ANOVA come from the real
** trials; no Utility table and no ANOVA over the catch trials. */
static void test_catch_only(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/attention.csv", tmpdir);
    FILE *f = fopen(path, "wb");
    fputs("participant,condition,phase,item,correct,is_catch\n", f);
    for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 4; p++) {
            for (int ph = 0; ph < 2; ph++) {
                for (int i = 0; i < 10; i++) {
                    int right = ph ? i < n_right(CONDS[c], p) : i < 5;
                    fprintf(f, "p%d,%s,%s,i%d,%d,0\n", c * 4 + p, CONDS[c],
                            ph ? "post" : "pre", i, right);
                }
            }
            /* the attention check: one catch trial, failed by a few */
            fprintf(f, "p%d,%s,test,c1,%d,1\n", c * 4 + p, CONDS[c], p != 1);
        }
    }
    fclose(f);
    const char *csv = path;
    Report r;
    SimError err;
    CHECK_INT(analyse(&csv, 1, "ohne", &r, &err), SIM_OK);
    CHECK_INT(r.n_change, 3);
    CHECK_INT(r.n_utility, 0);
    CHECK(r.has_anova);
    CHECK(r.anova_outcome && strstr(r.anova_outcome, "post"));
    const Table *g = test_table(&r, "groups");
    int balken = g ? test_row(g, "condition", "balken") : -1;
    CHECK_NEAR(test_num(g, balken, "mean"), 0.8, 1e-12);
    const Table *a = test_table(&r, "accuracy");
    for (int i = 0; a && i < a->n_rows; i++) {
        CHECK(strcmp(test_text(a, i, "phase"), "test") != 0);
    }
    report_free(&r);
}

int main(void)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "baseline");
    test_between();
    test_within();
    test_conflict();
    test_database();
    test_catch_only();
    test_rmtree(tmpdir);
    return TEST_REPORT();
}
