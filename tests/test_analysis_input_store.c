/*
** The two readers of a simlab store give the same Dataset and the same
** report.json: the tables read from the file's pages (streamed in the
** view's order, or read whole when the order differs) against the
** long_format view, on stores written by the engine (simulate: pre/post,
** sessions, deadlines with confidence, questionnaires, two stations, a
** schema-2 file migrated forward) and on the analysis fixtures written as
** stores, with edits (excluded and pilot participants, steps of another
** condition, integer response times, participants out of order), and a
** store with answer options (its distinction table equal to its exported
** CSV's). Bad
** values keep the view's located errors; files that are not stores, or
** that are being written, are read by the view.
*/
#include "tests/harness.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/dataset_int.h"
#include "analysis/questionnaire.h"
#include "bench/analysis/simstudy.h"
#include "bench/analysis/storewrite.h"
#include "experiment/export.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/scaffold.h"
#include "stimuli/study.h"

static char tmpdir[256];
static const char *const FORWARD = SIMLAB_TEST_DATA "/experiment/mini-forward";

static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static int has(const SimError *err, const char *s)
{
    if (strstr(err->msg, s)) {
        return 1;
    }
    fprintf(stderr, "message: %s\n  lacks: %s\n", err->msg, s);
    return 0;
}

static void exec(const char *db, const char *sql)
{
    sqlite3 *h;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, msg);
        CHECK(0);
    }
    sqlite3_free(msg);
    sqlite3_close(h);
}

/* Loads path with the reader how (and its questionnaire answers). */
static int load(const char *path, DatasetDbReader how, Dataset **ds,
                SimError *err)
{
    dataset_new(ds, err);
    int rc = dataset_load_db_how(*ds, path, how, err);
    return rc == SIM_OK ? questionnaire_load_db(*ds, path, err) : rc;
}

static int same_rt(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Every field of two datasets, strings by id. */
static void check_same(const Dataset *a, const Dataset *b)
{
    CHECK_INT((int)a->n_rows, (int)b->n_rows);
    CHECK_INT(a->n_participants, b->n_participants);
    CHECK_INT(a->n_contexts, b->n_contexts);
    CHECK_INT(a->rating_points, b->rating_points);
    CHECK_STR(a->rating_from, b->rating_from);
    CHECK_INT(a->n_sources, b->n_sources);
    if (a->n_rows != b->n_rows || a->n_participants != b->n_participants ||
        a->n_contexts != b->n_contexts) {
        return;
    }
    CHECK(memcmp(a->rows, b->rows, a->n_rows * sizeof *a->rows) == 0);
    CHECK(memcmp(a->participants, b->participants,
                 (size_t)a->n_participants * sizeof *a->participants) == 0);
    CHECK(memcmp(a->contexts, b->contexts,
                 (size_t)a->n_contexts * sizeof *a->contexts) == 0);
    CHECK((a->rt_ms == NULL) == (b->rt_ms == NULL));
    int rt_same = 1;
    for (size_t i = 0; a->rt_ms && b->rt_ms && i < a->n_rows; i++) {
        rt_same &= same_rt(a->rt_ms[i], b->rt_ms[i]);
    }
    CHECK(rt_same);
    /* the trial columns (verify, decide and answer options) */
    CHECK((a->trials == NULL) == (b->trials == NULL));
    CHECK(!a->trials || !b->trials ||
          memcmp(a->trials, b->trials, a->n_rows * sizeof *a->trials) == 0);
    int strs = 1;
    for (int id = 1; id < 10000000; id++) {
        const char *x = dataset_str(a, id), *y = dataset_str(b, id);
        strs &= strcmp(x, y) == 0;
        if (!x[0] && !y[0]) {
            break; /* past both pools */
        }
    }
    CHECK(strs);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* report.json of ds, as text (NULL when the analysis fails). */
static char *report_json(const Dataset *ds, const char *name)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 200;
    o.threads = 1;
    o.progress = 0;
    o.include_simulated = 1;
    o.include_pilot = 1;
    Report r;
    SimError err;
    char dir[512], file[600];
    tmp_path(dir, sizeof dir, name);
    mkdir(dir, 0755);
    int rc = analyze_compute(ds, &o, &r, &err);
    if (rc == SIM_OK) {
        rc = report_write_json(&r, dir, &err);
    }
    report_free(&r);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return NULL;
    }
    snprintf(file, sizeof file, "%s/report.json", dir);
    return slurp(file);
}

/* The tables reader (and AUTO) give what the view gives, byte for byte. */
static void compare(const char *path)
{
    Dataset *v, *t, *a;
    SimError err;
    printf("  %s\n", strrchr(path, '/') + 1);
    CHECK_INT(load(path, DATASET_DB_VIEW, &v, &err), SIM_OK);
    int rc = load(path, DATASET_DB_TABLES, &t, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    CHECK_INT(rc, SIM_OK);
    CHECK_INT(load(path, DATASET_DB_AUTO, &a, &err), SIM_OK);
    CHECK(v->n_rows > 0);
    check_same(v, t);
    check_same(v, a);
    char *jv = report_json(v, "view"), *jt = report_json(t, "tables");
    CHECK(jv && jt && strcmp(jv, jt) == 0);
    free(jv);
    free(jt);
    dataset_free(v);
    dataset_free(t);
    dataset_free(a);
}

static int simulate(const char *bundle, const char *db, int n, uint64_t seed,
                    const char *station)
{
    SimulateOptions o = {0};
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = n;
    o.policy = POLICY_MIXED;
    o.seed = seed;
    o.station = station;
    o.durability = DURABILITY_FAST;
    SimError err;
    sim_error_clear(&err);
    int rc = simulate_run(&o, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate %s: %s\n", bundle, err.msg);
    }
    return rc;
}

/* Stores the engine writes, as written and edited. */
static void test_engine_stores(void)
{
    char db[512], bundle[512];
    tmp_path(db, sizeof db, "forward.db");
    unlink(db);
    CHECK_INT(simulate(FORWARD, db, 6, 3, "north"), SIM_OK);
    CHECK_INT(simulate(FORWARD, db, 5, 4, "south"), SIM_OK); /* 2 stations */
    compare(db);
    /* excluded and pilot participants, steps of another condition, a
    ** response time stored as an integer */
    exec(db, "UPDATE participant SET excluded = 1, exclusion_reason = "
             "'quiz' WHERE rowid = 2;"
             "UPDATE participant SET pilot = 1 WHERE rowid = 3;"
             "UPDATE trial SET condition = 'other' WHERE participant = "
             "(SELECT id FROM participant WHERE rowid = 4);"
             "UPDATE trial SET condition = (SELECT condition FROM "
             "participant p WHERE p.id = trial.participant) WHERE seq % 3 = "
             "0;"
             "UPDATE response SET rt_ms = 1000 WHERE seq % 4 = 1;"
             /* rows longer than a page: their records continue on
             ** overflow pages, before and after the columns read */
             "UPDATE trial SET model_output = replace(hex(zeroblob(3000)), "
             "'0', 'm') WHERE seq % 5 = 2;"
             "UPDATE trial SET test_type = replace(hex(zeroblob(2500)), "
             "'0', 't') WHERE seq = 7;"
             "UPDATE trial SET item = NULL WHERE seq = 5;");
    compare(db);
    /* participants created out of the order of their rows: the tables are
    ** read whole and ordered */
    exec(db, "UPDATE participant SET created_ms = 5000000000000 - "
             "created_ms;");
    compare(db);
    tmp_path(db, sizeof db, "deadline.db");
    unlink(db);
    CHECK_INT(
        simulate(SIMLAB_TEST_DATA "/experiment/mini-deadline", db, 8, 5, "d"),
        SIM_OK);
    compare(db);
    tmp_path(db, sizeof db, "quest.db");
    unlink(db);
    CHECK_INT(simulate(SIMLAB_TEST_DATA "/experiment/mini-questionnaire", db, 4,
                       6, "q"),
              SIM_OK);
    compare(db);
    tmp_path(db, sizeof db, "meta.db");
    unlink(db);
    CHECK_INT(simulate(SIMLAB_TEST_DATA "/experiment/mini-meta", db, 6, 7, "m"),
              SIM_OK);
    compare(db);
    snprintf(bundle, sizeof bundle, "%s/assets/studies/image-meta",
             SIMLAB_SOURCE_DIR);
    if (access(bundle, R_OK) == 0) {
        tmp_path(db, sizeof db, "image-meta.db");
        unlink(db);
        CHECK_INT(simulate(bundle, db, 6, 8, "m"), SIM_OK); /* sessions */
        compare(db);
    }
}

/* The distinction table of ds (NULL when the analysis fails: reported). */
static Report *distinction_of(const Dataset *ds, Report *r)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 200;
    o.threads = 1;
    o.progress = 0;
    o.include_simulated = 1;
    o.no_glmm = 1;
    SimError err;
    if (analyze_compute(ds, &o, r, &err) != SIM_OK) {
        fprintf(stderr, "distinction: %s\n", err.msg);
        return NULL;
    }
    return r;
}

/* A store with answer options (HIVE's distinction task): the tables reader
** gives each trial's n_options and model_correct as the view does, and the
** distinction table from the store equals the one from its exported CSV. */
static void test_options_store(void)
{
    char bundle[512], db[512], csv[512];
    tmp_path(bundle, sizeof bundle, "hive");
    tmp_path(db, sizeof db, "hive.db");
    tmp_path(csv, sizeof csv, "hive.csv");
    unlink(db);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", bundle);
    CHECK(system(cmd) == 0);
    SimError err;
    CHECK_INT(scaffold_write(bundle, "hive-distinction", "image", NULL, &err),
              SIM_OK);
    CHECK_INT(simulate(bundle, db, 12, 12, "h"), SIM_OK);
    compare(db);
    Dataset *t, *c;
    CHECK_INT(load(db, DATASET_DB_TABLES, &t, &err), SIM_OK);
    int with = 0;
    for (size_t i = 0; t->trials && i < t->n_rows; i++) {
        with += t->trials[i].n_options == 4;
    }
    CHECK(with > 0);
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    dataset_new(&c, &err);
    CHECK_INT(dataset_load_csv(c, csv, &err), SIM_OK);
    Report rt, rc;
    Report *a = distinction_of(t, &rt), *b = distinction_of(c, &rc);
    const Table *dt = a ? report_table(a, "distinction") : NULL;
    const Table *dc = b ? report_table(b, "distinction") : NULL;
    CHECK(dt && dc && dt->n_rows > 0 && dt->n_rows == dc->n_rows);
    for (int i = 0; dt && dc && i < dt->n_rows && i < dc->n_rows; i++) {
        for (int k = 0; k < dt->n_cols; k++) {
            const TableCell *x = table_cell(dt, i, k),
                            *y = table_cell(dc, i, k);
            if (x->text || y->text) {
                CHECK_STR(x->text ? x->text : "", y->text ? y->text : "");
            } else {
                CHECK(same_rt(x->x, y->x) && same_rt(x->y, y->y));
            }
        }
    }
    if (a) {
        report_free(a);
    }
    if (b) {
        report_free(b);
    }
    dataset_free(t);
    dataset_free(c);
}

/* A file of schema version 2 migrated forward by the engine. */
static void test_migrated(void)
{
    char db[512];
    tmp_path(db, sizeof db, "v2.db");
    unlink(db);
    char *sql = slurp(SIMLAB_TEST_DATA "/experiment/store-v2.sql");
    CHECK(sql != NULL);
    if (!sql) {
        return;
    }
    exec(db, sql);
    free(sql);
    Study *study = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    CHECK_INT(study_load(FORWARD, &study, &rep, &err), SIM_OK);
    study_report_free(&rep);
    Store *st = NULL;
    CHECK_INT(
        store_open(db, study, DURABILITY_FAST, 1, 1800000000000LL, &st, &err),
        SIM_OK);
    store_close(st);
    study_free(study);
    compare(db);
}

/* The analysis fixtures written as stores. */
static void test_fixture_stores(void)
{
    static const char *const csvs[] = {
        "analysis-semantics/semantics.csv", "analysis-within/within.csv",
        "analysis-timeouts/timeouts.csv", "analysis-questionnaire/study.csv"};
    for (size_t i = 0; i < sizeof csvs / sizeof *csvs; i++) {
        char csv[512], db[512];
        snprintf(csv, sizeof csv, "%s/%s", SIMLAB_TEST_DATA, csvs[i]);
        snprintf(db, sizeof db, "%s/fixture-%zu.db", tmpdir, i);
        Dataset *ds;
        SimError err;
        dataset_new(&ds, &err);
        CHECK_INT(dataset_load_csv(ds, csv, &err), SIM_OK);
        CHECK_INT(storewrite_dataset(ds, FORWARD, db, ds->rating_points, &err),
                  SIM_OK);
        dataset_free(ds);
        compare(db);
    }
    /* the benchmark's study, small */
    SimStudy st = {0};
    st.n_conds = 3;
    st.users_per_cond = 12;
    st.n_items = 16;
    for (int c = 0; c < st.n_conds; c++) {
        st.p_pre[c] = 0.6;
        st.p_post[c] = 0.6 + 0.05 * c;
    }
    st.sd_p = 0.5;
    st.sd_i = 0.8;
    Dataset *ds;
    SimError err;
    char db[512];
    tmp_path(db, sizeof db, "bench.db");
    dataset_new(&ds, &err);
    CHECK_INT(simstudy_generate(ds, &st, 11, "p", &err), SIM_OK);
    CHECK_INT(storewrite_dataset(ds, FORWARD, db, 0, &err), SIM_OK);
    dataset_free(ds);
    compare(db);
}

/* Both readers fail at the same row with the same message. */
static void check_error(const char *db, const char *want)
{
    Dataset *v, *t;
    SimError ev, et;
    dataset_new(&v, &ev);
    dataset_new(&t, &et);
    CHECK(dataset_load_db_how(v, db, DATASET_DB_VIEW, &ev) != SIM_OK);
    CHECK(dataset_load_db_how(t, db, DATASET_DB_AUTO, &et) != SIM_OK);
    CHECK_INT(ev.code, et.code);
    CHECK_STR(ev.msg, et.msg);
    CHECK(has(&et, want));
    dataset_free(v);
    dataset_free(t);
}

static void test_errors(void)
{
    char db[512];
    tmp_path(db, sizeof db, "bad.db");
    unlink(db);
    CHECK_INT(simulate(FORWARD, db, 3, 9, "b"), SIM_OK);
    /* a value out of range: read by the tables, located as the view does */
    exec(db, "UPDATE response SET rating = 9 WHERE rowid = (SELECT "
             "r.rowid FROM response r JOIN trial t ON t.participant = "
             "r.participant AND t.seq = r.seq WHERE t.phase IS NOT NULL "
             "ORDER BY r.rowid LIMIT 1 OFFSET 7)");
    check_error(db, "long_format row ");
    check_error(db, "column 'rating': expected an integer 1-7 (the 7-point "
                    "scale of ");
    /* the same, participants out of order (the tables read whole) */
    exec(db, "UPDATE participant SET created_ms = 5000000000000 - "
             "created_ms;");
    check_error(db, "column 'rating': expected an integer 1-7");
    /* a value of another type: the view reads the file */
    exec(db, "UPDATE response SET rating = NULL;"
             "UPDATE response SET correct = 'yes' WHERE rowid = 9;");
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db_how(ds, db, DATASET_DB_TABLES, &err),
              SIM_ERR_STATE);
    CHECK(has(&err, "cannot be read directly: a value of an unexpected "
                    "type"));
    dataset_free(ds);
    exec(db, "UPDATE trial SET correct_choice = 0 WHERE seq = (SELECT seq "
             "FROM response WHERE rowid = 9) AND participant = (SELECT "
             "participant FROM response WHERE rowid = 9);");
    check_error(db, "column 'correct': expected 0, 1 or empty, got 'yes'");
    /* an unknown phase */
    exec(db, "UPDATE response SET correct = 1 WHERE rowid = 9;"
             "UPDATE trial SET phase = 'later' WHERE rowid = 12;");
    check_error(db, "column 'phase': expected ");
}

/* Files the tables reader leaves to the view. */
static void test_not_tables(void)
{
    char db[512];
    tmp_path(db, sizeof db, "flat.db");
    unlink(db);
    exec(db, "CREATE TABLE r(participant TEXT, condition TEXT, phase TEXT, "
             "item TEXT, correct INTEGER);"
             "INSERT INTO r VALUES ('p', 'c', 'pre', 'i', 1);"
             "CREATE VIEW long_format AS SELECT * FROM r;");
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db_how(ds, db, DATASET_DB_TABLES, &err),
              SIM_ERR_STATE);
    CHECK(has(&err, "its long_format view is not this simlab's store view"));
    dataset_free(ds);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    CHECK_INT((int)ds->n_rows, 1);
    dataset_free(ds);
    /* a store being written: its write-ahead log holds the last rows */
    tmp_path(db, sizeof db, "open.db");
    unlink(db);
    CHECK_INT(simulate(FORWARD, db, 2, 10, "w"), SIM_OK);
    Dataset *before;
    CHECK_INT(load(db, DATASET_DB_TABLES, &before, &err), SIM_OK);
    sqlite3 *w;
    CHECK_INT(sqlite3_open(db, &w), SQLITE_OK);
    sqlite3_exec(w, "PRAGMA wal_autocheckpoint = 0;", NULL, NULL, NULL);
    CHECK_INT(sqlite3_exec(w,
                           "UPDATE response SET correct = 1 - correct "
                           "WHERE correct IS NOT NULL;",
                           NULL, NULL, NULL),
              SQLITE_OK);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db_how(ds, db, DATASET_DB_TABLES, &err),
              SIM_ERR_STATE);
    CHECK(has(&err, "a write-ahead log holds recent writes"));
    dataset_free(ds);
    /* the same store named by a symbolic link in another folder: its log
    ** is beside the file the link names */
    char dir[512], link[600];
    tmp_path(dir, sizeof dir, "link");
    mkdir(dir, 0755);
    snprintf(link, sizeof link, "%s/open.db", dir);
    unlink(link);
    CHECK_INT(symlink("../open.db", link), 0);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db_how(ds, link, DATASET_DB_TABLES, &err),
              SIM_ERR_STATE);
    CHECK(has(&err, "a write-ahead log holds recent writes"));
    dataset_free(ds);
    Dataset *now;
    CHECK_INT(load(db, DATASET_DB_AUTO, &now, &err), SIM_OK);
    CHECK_INT((int)now->n_rows, (int)before->n_rows);
    int flipped = 0;
    for (size_t i = 0; i < now->n_rows; i++) {
        flipped += now->rows[i].correct >= 0 &&
                   now->rows[i].correct != before->rows[i].correct;
    }
    CHECK(flipped > 0); /* the view saw the log's rows */
    sqlite3_close(w);
    dataset_free(now);
    dataset_free(before);
}

/* The long_format view as the stores of schema 6 to 8 were written before
** the view was made from common/sim_columns.h: such files are still
** simlab stores (same columns, other spacing). */
static const char OLD_VIEW[] =
    "CREATE VIEW long_format AS SELECT  p.id AS participant,  "
    "COALESCE(t.condition, p.condition) AS condition,  t.phase AS "
    "phase,  COALESCE(t.item, t.block_id || ':' || (t.page + 1)) AS "
    "item,  CASE WHEN t.correct_choice >= 0 AND t.is_example = 0       "
    "THEN r.correct END AS correct,  CASE WHEN t.session > 0 THEN "
    "t.session END AS session,  t.test_type AS test_type,  i.domain AS "
    "domain,  t.block_id AS block,  t.seq + 1 AS trial,  t.is_catch AS "
    "is_catch,  i.prediction_type AS prediction_type,  i.label AS "
    "label,  t.model_output AS model_output,  r.response_id AS "
    "response,  CASE WHEN r.rating > 0 THEN r.rating END AS rating,  "
    "r.rt_ms AS rt_ms,  p.pilot AS pilot,  p.simulated AS simulated,  "
    "p.excluded AS excluded,  COALESCE(r.station, p.station) AS "
    "station,  COALESCE(p.exclusion_reason, '') AS exclusion_reason,  "
    "r.onset_ns AS onset_ns,  r.response_ns AS response_ns, "
    "r.timed_out AS timed_out, r.confidence AS confidence,  CASE WHEN "
    "r.confidence_ns > 0 AND r.onset_ns > 0       THEN "
    "(r.confidence_ns - r.onset_ns) / 1e6 END       AS "
    "confidence_rt_ms,  CASE WHEN i.label IS NULL OR i.prediction IS "
    "NULL THEN NULL   WHEN i.prediction = i.label THEN 1 ELSE 0 END AS "
    "model_correct,  CASE WHEN t.test_type = 'decide' THEN "
    "t.show_prediction END AS advice_shown,  CASE WHEN t.test_type = "
    "'decide' AND t.show_prediction = 1 AND r.response_id IS NOT NULL "
    "THEN CASE WHEN r.response_id = t.model_output THEN 1 ELSE 0 END "
    "END AS followed_advice,  CASE WHEN t.options IS NOT NULL THEN "
    "length(t.options) -   length(replace(t.options, '|', '')) + 1 END "
    "AS n_options,  t.options AS options_shown FROM trial t JOIN "
    "participant p ON p.id = "
    "t.participant JOIN response r ON r.participant = t.participant "
    "AND r.seq = t.seq   AND r.done = 1 LEFT JOIN item i ON i.study = "
    "p.study AND i.key = t.item WHERE t.phase IS NOT NULL ORDER BY "
    "p.created_ms, p.id, t.seq";

/* The view made from the column table; a file written before it; the
** required columns of the table are the readers' first ones. */
static void test_view_description(void)
{
    for (int c = 0; c < COL_COUNT; c++) {
        CHECK_INT(dataset_col_required(c), c < COL_REQUIRED);
    }
    char db[512];
    tmp_path(db, sizeof db, "oldview.db");
    unlink(db);
    CHECK_INT(simulate(FORWARD, db, 2, 10, "w"), SIM_OK);
    Dataset *now, *old;
    SimError err;
    CHECK_INT(load(db, DATASET_DB_TABLES, &now, &err), SIM_OK);
    char sql[sizeof OLD_VIEW + 64];
    snprintf(sql, sizeof sql, "DROP VIEW long_format; %s;", OLD_VIEW);
    exec(db, sql);
    CHECK_INT(load(db, DATASET_DB_TABLES, &old, &err), SIM_OK);
    CHECK(now && old && now->n_rows == old->n_rows && now->n_rows > 0);
    dataset_free(now);
    dataset_free(old);
    /* one more column in the view: not this simlab's store any more */
    snprintf(sql, sizeof sql, "DROP VIEW long_format; %.*s, 1 AS extra %s;",
             (int)(strstr(OLD_VIEW, " FROM trial") - OLD_VIEW), OLD_VIEW,
             strstr(OLD_VIEW, " FROM trial"));
    exec(db, sql);
    Dataset *ds;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db_how(ds, db, DATASET_DB_TABLES, &err),
              SIM_ERR_STATE);
    dataset_free(ds);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s", "analysis_input_store.tmp");
    mkdir(tmpdir, 0755);
    test_engine_stores();
    test_migrated();
    test_options_store();
    test_fixture_stores();
    test_errors();
    test_not_tables();
    test_view_description();
    return TEST_REPORT();
}
