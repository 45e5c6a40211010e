/*
** Input and output safety of simlab-analyze: the CSV reader (RFC 4180
** quoting, multi-line cells across read chunks, NUL bytes), the rating
** scale from a database's study, an export's sidecar or the data, the
** sidecar's row count and SHA-256, a database whose view never ends, an
** output path that is an input, the output folder swapped in whole (a
** failing run leaves the previous one intact), and spreadsheet formula
** and control-character neutralisation of CSV text cells (and --raw).
*/
#include "tests/harness.h"

#include <math.h>
#include <nettle/sha2.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/questionnaire.h"

static char tmpdir[256];

static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

static int load_csv(const char *path, Dataset **ds, SimError *err)
{
    dataset_new(ds, err);
    return dataset_load_csv(*ds, path, err);
}

static int has(const SimError *err, const char *s)
{
    if (strstr(err->msg, s)) {
        return 1;
    }
    fprintf(stderr, "message: %s\n  lacks: %s\n", err->msg, s);
    return 0;
}

/* ------------------------------------------------------------------ */

static void test_csv_reader(void)
{
    char path[512];
    tmp_path(path, sizeof path, "q.csv");
    Dataset *ds;
    SimError err;
    /* BOM, quoted cells with commas, doubled quotes and line breaks, spaces
    ** around fields, no newline at the end */
    write_text(path, "\xEF\xBB\xBFparticipant,condition,phase,item,correct\r\n"
                     "\"p,1\",base,pre, \"say \"\"hi\"\"\" ,1\r\n"
                     "\"p,1\",base,post,\"two\nlines\",0\r\n"
                     "p2 , base ,pre,i3,");
    CHECK_INT(load_csv(path, &ds, &err), SIM_OK);
    CHECK_INT(ds->n_rows, 3);
    if (ds->n_rows == 3) {
        CHECK_STR(dataset_str(ds, ds->participants[0].name), "p,1");
        CHECK_STR(dataset_str(ds, ds->rows[0].item), "say \"hi\"");
        CHECK_STR(dataset_str(ds, ds->rows[1].item), "two\nlines");
        CHECK_STR(dataset_str(ds, ds->participants[1].name), "p2");
        CHECK_INT(ds->rows[2].correct, -1);
    }
    dataset_free(ds);
    /* a quote inside an unquoted field, line 3 */
    write_text(path, "participant,condition,phase,item,correct\n"
                     "p,c,pre,i,1\n"
                     "p,c,pre,i\"x,1\n");
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "q.csv:3: column 'item': a quote inside an unquoted"));
    dataset_free(ds);
    /* text after a closing quote */
    write_text(path, "participant,condition,phase,item,correct\n"
                     "p,c,pre,\"i\"x,1\n");
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "q.csv:2: column 'item': text after a closing quote"));
    dataset_free(ds);
    /* a quoted field never closed: the line where its record starts */
    write_text(path, "participant,condition,phase,item,correct\n"
                     "p,c,pre,i,1\n"
                     "p,c,pre,\"i\n\n,1\n");
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "q.csv:3: column 'item': quoted field not closed"));
    dataset_free(ds);
    /* a NUL byte in a field: file, line and column (not a silent cut) */
    static const char nul[] = "participant,condition,phase,item,correct\n"
                              "p,c,pre,i1,1\n"
                              "p,c,pre,i\0x,1\n";
    write_bytes(path, nul, sizeof nul - 1);
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "q.csv:3: column 'item': a NUL byte in the field"));
    dataset_free(ds);
    static const char nulq[] = "participant,condition,phase,item,correct\n"
                               "p,\"c\0\",pre,i1,1\n";
    write_bytes(path, nulq, sizeof nulq - 1);
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "q.csv:2: column 'condition': a NUL byte"));
    dataset_free(ds);
}

/* Records that straddle the reader's 1 MiB chunks, multi-line cells among
** them: every row arrives, and a bad value far down keeps its line. */
static void test_csv_chunks(void)
{
    char path[512];
    tmp_path(path, sizeof path, "big.csv");
    FILE *f = fopen(path, "wb");
    fputs("participant,condition,phase,item,correct\r\n", f);
    long line = 2, rows = 0;
    for (int i = 0; i < 60000; i++, rows++) {
        if (i % 7 == 3) {
            fprintf(f, "p%d,c,pre,\"it\"\"em\r\n%d\",1\r\n", i % 100, i);
            line += 2;
        } else {
            fprintf(f, "p%d,c,post,item%d,0\r\n", i % 100, i % 64);
            line += 1;
        }
    }
    fprintf(f, "p1,c,post,\"x\ny\",2\r\n");
    fclose(f);
    Dataset *ds;
    SimError err;
    CHECK_INT(load_csv(path, &ds, &err), SIM_ERR_PARSE);
    char want[64];
    snprintf(want, sizeof want, "big.csv:%ld: column 'correct'", line);
    CHECK(has(&err, want));
    CHECK_INT((long)ds->n_rows, rows);
    if (ds->n_rows > 3) {
        CHECK_STR(dataset_str(ds, ds->rows[3].item), "it\"em\r\n3");
    }
    dataset_free(ds);
}

/* ------------------------------------------------------------------ */
/* The rating scale                                                     */

/* An engine-like database: a study table with one definition per entry of
** points (0: no "rating" object), and rows with the given ratings. */
static void make_db(const char *path, const int *points, int n_points,
                    const int *ratings, int n_ratings)
{
    unlink(path);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE study(id INTEGER PRIMARY KEY, study_id TEXT, "
                 "definition TEXT);"
                 "CREATE TABLE r(participant TEXT, condition TEXT, phase TEXT,"
                 " item TEXT, correct INTEGER, rating INTEGER);"
                 "CREATE VIEW long_format AS SELECT * FROM r;",
                 NULL, NULL, NULL);
    for (int i = 0; i < n_points; i++) {
        char sql[512];
        if (points[i] > 0) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO study(study_id, definition) VALUES "
                     "('s%d', '{\"id\": \"s%d\", \"rating\": {\"points\": "
                     "%d}}')",
                     i, i, points[i]);
        } else {
            snprintf(sql, sizeof sql,
                     "INSERT INTO study(study_id, definition) VALUES "
                     "('s%d', '{\"id\": \"s%d\"}')",
                     i, i);
        }
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    for (int i = 0; i < n_ratings; i++) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "INSERT INTO r VALUES ('u%d', 'baseline', 'post', 'i%d', 1, "
                 "%d)",
                 i, i, ratings[i]);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    sqlite3_close(db);
}

/* A CSV with the given ratings, and a sidecar stating points (0: none;
** -1: no sidecar). */
static void make_csv(const char *path, const int *ratings, int n, int points)
{
    FILE *f = fopen(path, "wb");
    fputs("participant,condition,phase,item,correct,rating\n", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "v%d,baseline,post,i%d,1,%d\n", i, i, ratings[i]);
    }
    fclose(f);
    char side[600];
    snprintf(side, sizeof side, "%s.json", path);
    unlink(side);
    if (points >= 0) {
        f = fopen(side, "wb");
        fprintf(f,
                "{\"format\": \"simlab long format v1\", \"rows\": %d, "
                "\"studies\": [{\"id\": \"side\", \"definition\": "
                "%s}]}\n",
                n,
                points > 0 ? "{\"rating\": {\"points\": POINTS}}"
                           : "{\"id\": \"side\"}");
        fclose(f);
        if (points > 0) { /* put the number in */
            f = fopen(side, "rb");
            char buf[512];
            size_t len = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[len] = '\0';
            char out[600], *at = strstr(buf, "POINTS");
            *at = '\0';
            snprintf(out, sizeof out, "%s%d%s", buf, points, at + 6);
            write_text(side, out);
        }
    }
}

static void test_rating_scale(void)
{
    char db[512], csv[512];
    tmp_path(db, sizeof db, "scale.db");
    tmp_path(csv, sizeof csv, "scale.csv");
    Dataset *ds;
    SimError err;
    /* from the study definition in a database */
    int five[] = {5}, r1[] = {1, 5, 3};
    make_db(db, five, 1, r1, 3);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    CHECK_INT(ds->rating_points, 5);
    CHECK_STR(ds->rating_from, "study");
    dataset_free(ds);
    /* a definition without "rating" asks on the default 7 points */
    int none[] = {0};
    make_db(db, none, 1, r1, 3);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    CHECK_INT(ds->rating_points, 7);
    CHECK_STR(ds->rating_from, "study");
    dataset_free(ds);
    /* a rating above the stated scale is a located error */
    int r2[] = {2, 6};
    make_db(db, five, 1, r2, 2);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "long_format row 2: column 'rating': expected an integer "
                    "1-5 (the 5-point scale of "));
    CHECK(has(&err, "(study 's0')"));
    dataset_free(ds);
    /* two studies of one database that disagree */
    int two[] = {5, 9};
    make_db(db, two, 2, r1, 3);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "disagree about the rating scale"));
    CHECK(has(&err, "(study 's0') has 5 points"));
    CHECK(has(&err, "(study 's1') has 9"));
    dataset_free(ds);
    /* from the sidecar of an export */
    int r3[] = {9, 1};
    make_csv(csv, r3, 2, 9);
    CHECK_INT(load_csv(csv, &ds, &err), SIM_OK);
    CHECK_INT(ds->rating_points, 9);
    CHECK_STR(ds->rating_from, "sidecar");
    dataset_free(ds);
    /* from the data: 11-point ratings are accepted, 12 are not */
    int r4[] = {3, 11, 7};
    make_csv(csv, r4, 3, -1);
    CHECK_INT(load_csv(csv, &ds, &err), SIM_OK);
    CHECK_INT(ds->rating_points, 11);
    CHECK_STR(ds->rating_from, "data");
    CHECK_INT(ds->rows[1].rating, 11);
    dataset_free(ds);
    int r5[] = {3, 12};
    make_csv(csv, r5, 2, -1);
    CHECK_INT(load_csv(csv, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "scale.csv:3: column 'rating': expected an integer 1-11 "
                    "or empty, got '12'"));
    dataset_free(ds);
    /* no ratings and no definition: unknown */
    write_text(csv, "participant,condition,phase,item,correct\np,c,pre,i,1\n");
    CHECK_INT(load_csv(csv, &ds, &err), SIM_OK);
    CHECK_INT(ds->rating_points, 0);
    CHECK_STR(ds->rating_from, "");
    dataset_free(ds);
    /* a database and a sidecar that disagree: both named */
    make_db(db, five, 1, r1, 3);
    int r6[] = {2};
    make_csv(csv, r6, 1, 7);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, csv, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "scale.db (study 's0') has 5 points"));
    CHECK(has(&err, "scale.csv.json (study 'side') has 7"));
    dataset_free(ds);
    /* data read first with a rating above a scale stated later */
    int r7[] = {8};
    make_csv(csv, r7, 1, -1);
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, csv, &err), SIM_OK);
    CHECK_STR(ds->rating_from, "data");
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "(study 's0') has 5 points, but "));
    CHECK(has(&err, "scale.csv:2 has a rating of 8"));
    dataset_free(ds);
}

/* ------------------------------------------------------------------ */
/* The sidecar's checks                                                 */

static void sha256_file(const char *path, char *hex)
{
    FILE *f = fopen(path, "rb");
    struct sha256_ctx c;
    sha256_init(&c);
    unsigned char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        sha256_update(&c, n, buf);
    }
    fclose(f);
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        sprintf(hex + 2 * i, "%02x", d[i]);
    }
}

static void test_sidecar(void)
{
    char csv[512], side[600], sha[65], text[512];
    tmp_path(csv, sizeof csv, "side.csv");
    snprintf(side, sizeof side, "%s.json", csv);
    const char *data = "participant,condition,phase,item,correct\r\n"
                       "p1,c,pre,i1,1\r\n"
                       "p1,c,post,i1,0\r\n"
                       "p2,c,pre,i1,1\r\n";
    write_text(csv, data);
    sha256_file(csv, sha);
    Dataset *ds;
    SimError err;
    /* rows and hash as written */
    snprintf(text, sizeof text, "{\"rows\": 3, \"sha256\": \"%s\"}", sha);
    write_text(side, text);
    CHECK_INT(load_csv(csv, &ds, &err), SIM_OK);
    dataset_free(ds);
    /* a truncated file: the row count differs */
    write_text(csv, "participant,condition,phase,item,correct\r\n"
                    "p1,c,pre,i1,1\r\n"
                    "p1,c,post,i1,0\r\n");
    write_text(side, "{\"rows\": 3}");
    CHECK_INT(load_csv(csv, &ds, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "side.csv.json: the CSV has 2 rows, but its sidecar says "
                    "3"));
    dataset_free(ds);
    /* an altered value, same row count: the hash differs */
    write_text(csv, "participant,condition,phase,item,correct\r\n"
                    "p1,c,pre,i1,1\r\n"
                    "p1,c,post,i1,1\r\n"
                    "p2,c,pre,i1,1\r\n");
    write_text(side, text);
    char got[65];
    sha256_file(csv, got);
    CHECK_INT(load_csv(csv, &ds, &err), SIM_ERR_INVALID);
    char want[300];
    snprintf(want, sizeof want,
             "SHA-256 of the CSV: expected %s (sidecar), "
             "got %s",
             sha, got);
    CHECK(has(&err, want));
    dataset_free(ds);
    /* a malformed hash in the sidecar */
    write_text(side, "{\"rows\": 3, \"sha256\": \"XYZ\"}");
    CHECK_INT(load_csv(csv, &ds, &err), SIM_ERR_PARSE);
    CHECK(has(&err, "\"sha256\": expected 64 lowercase hex digits"));
    dataset_free(ds);
    unlink(side);
}

/* ------------------------------------------------------------------ */
/* A database whose view does not end                                   */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* clock-ok: test timing */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_recursive_view(void)
{
    char db[512];
    tmp_path(db, sizeof db, "loop.db");
    const char *views[] = {
        /* rows forever */
        "CREATE VIEW long_format AS WITH RECURSIVE n(x) AS (SELECT 1 UNION "
        "ALL SELECT x + 1 FROM n) SELECT 'p' || x AS participant, 'c' AS "
        "condition, 'pre' AS phase, 'i' AS item, 1 AS correct FROM n;",
        /* no row for a very long time */
        "CREATE VIEW long_format AS WITH RECURSIVE n(x) AS (SELECT 1 UNION "
        "ALL SELECT x + 1 FROM n) SELECT 'p' AS participant, 'c' AS "
        "condition, 'pre' AS phase, 'i' AS item, 1 AS correct FROM n WHERE "
        "x < 0;"};
    for (int v = 0; v < 2; v++) {
        unlink(db);
        sqlite3 *h;
        sqlite3_open(db, &h);
        sqlite3_exec(h, views[v], NULL, NULL, NULL);
        sqlite3_close(h);
        Dataset *ds;
        SimError err;
        dataset_new(&ds, &err);
        double t0 = now_s();
        CHECK_INT(dataset_load_db(ds, db, &err), SIM_ERR_DB);
        double t = now_s() - t0;
        /* the step budget stopped it (only an exhausted budget says "took
        ** too long"; without one the query would not end); it takes about
        ** 0.1 s, the bound is for machines under load and sanitizers */
        CHECK(has(&err, "loop.db: the database's long_format view took too "
                        "long (is it simlab's?)"));
        CHECK(t < 30.0);
        dataset_free(ds);
    }
}

/* The questionnaire answers of a database are read under the same step
** budget: an answer view that never yields a row is stopped. */
static void test_recursive_answers(void)
{
    char db[512];
    tmp_path(db, sizeof db, "loop-answers.db");
    unlink(db);
    sqlite3 *h;
    sqlite3_open(db, &h);
    sqlite3_exec(h,
                 "CREATE TABLE participant (id TEXT, condition TEXT, "
                 "created_ms INTEGER);"
                 "INSERT INTO participant VALUES ('p', 'c', 1);"
                 "CREATE TABLE trial (participant TEXT, seq INTEGER, "
                 "block_id TEXT);"
                 "INSERT INTO trial VALUES ('p', 0, 'q');"
                 "CREATE VIEW answer AS WITH RECURSIVE n(x) AS (SELECT 1 "
                 "UNION ALL SELECT x + 1 FROM n) SELECT 'p' AS participant, "
                 "0 AS seq, 'age' AS question, 'number' AS type, '1' AS "
                 "value FROM n WHERE x < 0;",
                 NULL, NULL, NULL);
    sqlite3_close(h);
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    double t0 = now_s();
    CHECK_INT(questionnaire_load_db(ds, db, &err), SIM_ERR_DB);
    double t = now_s() - t0;
    CHECK(has(&err, "loop-answers.db: the database's questionnaire answers "
                    "took too long (is it simlab's?)"));
    CHECK(t < 30.0);
    dataset_free(ds);
    unlink(db);
}

/* ------------------------------------------------------------------ */
/* Outputs                                                              */

/* A small study: two conditions, pre/post, the second named name. */
static Dataset *named_study(const char *name)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    const char *conds[2] = {"baseline", name};
    for (int c = 0; c < 2; c++) {
        for (int u = 0; u < 6; u++) {
            for (int i = 0; i < 8; i++) {
                for (int ph = 0; ph < 2; ph++) {
                    char part[32], item[16];
                    snprintf(part, sizeof part, "u%d-%d", c, u);
                    snprintf(item, sizeof item, "i%d", i);
                    DatasetRow r = {0};
                    r.participant = part;
                    r.condition = conds[c];
                    r.phase = ph ? "post" : "pre";
                    r.item = item;
                    /* condition 1 loses accuracy: a negative change */
                    r.correct = c == 0 ? (u + i + ph) % 3 != 0
                                       : ph == 0 || (u + i) % 2 == 0;
                    r.rt_ms = NAN;
                    dataset_add(ds, &r, &err);
                }
            }
        }
    }
    return ds;
}

/* One condition named like a formula. */
static Dataset *formula_study(void)
{
    return named_study("=HYPERLINK(\"x\")");
}

static int run_write(Dataset *ds, const char *out, int raw, SimError *err)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 50;
    o.progress = 0;
    o.quiet = 1;
    o.raw = raw;
    o.plots = 0;
    Report r;
    int rc = analyze_compute(ds, &o, &r, err);
    if (rc == SIM_OK) {
        rc = analyze_write(&r, out, err);
    }
    report_free(&r);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_neutralise(void)
{
    char out[512], path[600];
    tmp_path(out, sizeof out, "formula");
    Dataset *ds = formula_study();
    SimError err;
    CHECK_INT(run_write(ds, out, 0, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/change.csv", out);
    char *text = slurp(path);
    CHECK(text && strstr(text, ",\"'=HYPERLINK(\"\"x\"\")\",") != NULL);
    CHECK(text && strstr(text, ",=HYPERLINK") == NULL);
    CHECK(text && strstr(text, ",-0.") != NULL); /* numbers stay numbers */
    /* report.json keeps the name as it is */
    snprintf(path, sizeof path, "%s/report.json", out);
    text = slurp(path);
    CHECK(text && strstr(text, "\"=HYPERLINK(\\\"x\\\")\"") != NULL);
    CHECK(text && strstr(text, "\"raw\": false") != NULL);
    /* --raw writes the cell as it is */
    CHECK_INT(run_write(ds, out, 1, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/change.csv", out);
    text = slurp(path);
    CHECK(text && strstr(text, ",\"=HYPERLINK(\"\"x\"\")\",") != NULL);
    dataset_free(ds);
}

/* A name with an escape sequence, a right-to-left override and a tab:
** visible escapes in the CSV tables (the tab kept in a quoted cell), every
** byte with --raw. */
static void test_controls(void)
{
    char out[512], path[600];
    tmp_path(out, sizeof out, "controls");
    Dataset *ds = named_study("c\x1b[2J\xE2\x80\xAE"
                              "d\te");
    SimError err;
    CHECK_INT(run_write(ds, out, 0, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/change.csv", out);
    char *text = slurp(path);
    CHECK(text && strstr(text, ",\"c\\x1B[2J\\u202Ed\te\",") != NULL);
    CHECK(text && strchr(text, 0x1b) == NULL);
    CHECK(text && strstr(text, "\xE2\x80\xAE") == NULL);
    CHECK_INT(run_write(ds, out, 1, &err), SIM_OK);
    text = slurp(path);
    CHECK(text && strstr(text, ",\"c\x1b[2J\xE2\x80\xAE"
                               "d\te\",") != NULL);
    dataset_free(ds);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Entries of dir whose name starts with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c '^%s' > %s/count.txt", dir,
             prefix, tmpdir);
    if (system(cmd) < 0) {
        return -1;
    }
    snprintf(cmd, sizeof cmd, "%s/count.txt", tmpdir);
    char *t = slurp(cmd);
    return t ? atoi(t) : -1;
}

static void test_output_folder(void)
{
    char out[512], path[600];
    tmp_path(out, sizeof out, "report");
    Dataset *ds = formula_study();
    SimError err;
    CHECK_INT(run_write(ds, out, 0, &err), SIM_OK);
    /* a stale output of an earlier run disappears: the folder holds exactly
    ** one run's outputs */
    snprintf(path, sizeof path, "%s/stale.csv", out);
    write_text(path, "old\n");
    CHECK_INT(run_write(ds, out, 0, &err), SIM_OK);
    CHECK(!exists(path));
    snprintf(path, sizeof path, "%s/report.md", out);
    CHECK(exists(path));
    CHECK_INT(count_prefixed(tmpdir, ".report.tmp"), 0);
    /* a run that fails mid-way (a file size limit: a write fails) leaves
    ** the previous folder as it was, and no temporary folder */
    snprintf(path, sizeof path, "%s/marker.md", out);
    write_text(path, "previous run\n");
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {64, 64};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        SimError e2;
        _exit(run_write(ds, out, 0, &e2) == SIM_OK ? 0 : 3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    char *text = slurp(path);
    CHECK(text && strcmp(text, "previous run\n") == 0);
    snprintf(path, sizeof path, "%s/change.csv", out);
    CHECK(exists(path));
    CHECK_INT(count_prefixed(tmpdir, ".report.tmp"), 0);
    /* a killed run (SIGKILL while writing) leaves the previous folder
    ** intact too; only its temporary folder may remain */
    pid = fork();
    if (pid == 0) {
        SimError e2;
        for (;;) {
            run_write(ds, out, 0, &e2);
        }
    }
    usleep(30000);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    snprintf(path, sizeof path, "%s/report.md", out);
    CHECK(exists(path));
    snprintf(path, sizeof path, "%s/change.csv", out);
    CHECK(exists(path));
    /* a folder holding anything else is not replaced */
    snprintf(path, sizeof path, "%s/notes.txt", out);
    write_text(path, "mine\n");
    CHECK_INT(run_write(ds, out, 0, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "holds 'notes.txt', which is not a simlab-analyze "
                    "output"));
    unlink(path);
    /* nor one holding a database under an output's name */
    char db[512];
    tmp_path(db, sizeof db, "report/data.csv");
    int five[] = {5}, r1[] = {1};
    make_db(db, five, 1, r1, 1);
    CHECK_INT(run_write(ds, out, 0, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "holds 'data.csv'"));
    unlink(db);
    dataset_free(ds);
}

static void test_output_is_input(void)
{
    char db[512], wal[600], csv[512], sub[600], dir[512];
    tmp_path(db, sizeof db, "in.db");
    tmp_path(csv, sizeof csv, "in.csv");
    tmp_path(dir, sizeof dir, "indir");
    int five[] = {5}, r1[] = {1};
    make_db(db, five, 1, r1, 1);
    write_text(csv, "participant,condition,phase,item,correct\n");
    SimError err;
    const char *inputs[2] = {db, csv};
    CHECK_INT(report_check_output(db, inputs, 2, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "the output folder is the input"));
    snprintf(wal, sizeof wal, "%s-wal", db);
    write_text(wal, "");
    CHECK_INT(report_check_output(wal, inputs, 2, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "in.db-wal"));
    unlink(wal);
    /* even before SQLite creates it */
    CHECK_INT(report_check_output(wal, inputs, 2, &err), SIM_ERR_USAGE);
    snprintf(wal, sizeof wal, "%s-shm/", db);
    CHECK_INT(report_check_output(wal, inputs, 2, &err), SIM_ERR_USAGE);
    /* any SQLite file, input or not */
    char other[512];
    tmp_path(other, sizeof other, "other.sqlite");
    make_db(other, five, 1, r1, 1);
    CHECK_INT(report_check_output(other, inputs, 2, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "an SQLite database, not a folder"));
    /* a folder that holds an input */
    mkdir(dir, 0777);
    snprintf(sub, sizeof sub, "%s/x.csv", dir);
    write_text(sub, "participant,condition,phase,item,correct\n");
    const char *in2[1] = {sub};
    CHECK_INT(report_check_output(dir, in2, 1, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "holds the input"));
    /* a folder holding a file the analysis does not write, before any
    ** computing */
    tmp_path(dir, sizeof dir, "mixed");
    mkdir(dir, 0777);
    snprintf(sub, sizeof sub, "%s/notes.txt", dir);
    write_text(sub, "mine\n");
    CHECK_INT(report_check_output(dir, inputs, 2, &err), SIM_ERR_USAGE);
    CHECK(has(&err, "holds 'notes.txt'"));
    /* a new folder is fine */
    tmp_path(dir, sizeof dir, "fresh");
    CHECK_INT(report_check_output(dir, inputs, 2, &err), SIM_OK);
}

/* A file given as a database that is not one: a CSV export, a workbook,
** something else -- each told what it is and how to read it. */
static void test_not_a_database(void)
{
    char csv[512], xlsx[512], other[512], empty[512], db[512];
    tmp_path(csv, sizeof csv, "export.csv");
    tmp_path(xlsx, sizeof xlsx, "export.xlsx");
    tmp_path(other, sizeof other, "notes.bin");
    tmp_path(empty, sizeof empty, "empty.db");
    tmp_path(db, sizeof db, "real.db");
    write_text(csv, "participant,condition,phase,item,correct\n");
    write_text(xlsx, "PK\3\4 a zipped workbook");
    write_text(other, "just some words here");
    write_text(empty, "");
    int five[] = {5}, r1[] = {1};
    make_db(db, five, 1, r1, 1);
    SimError err;
    Dataset *ds = NULL;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_db(ds, csv, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "export.csv: not an SQLite database but text"));
    CHECK(has(&err, "read with --csv"));
    CHECK_INT(dataset_load_db(ds, xlsx, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "export.xlsx: not an SQLite database but a workbook"));
    CHECK(has(&err, "save it as CSV"));
    CHECK_INT(dataset_load_db(ds, other, &err), SIM_ERR_INVALID);
    CHECK(has(&err, "notes.bin: not an SQLite database"));
    /* an empty file and a real database go on to SQLite as before */
    CHECK(dataset_load_db(ds, empty, &err) != SIM_ERR_INVALID ||
          !has(&err, "not an SQLite database"));
    dataset_free(ds);
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_db(ds, db, &err), SIM_OK);
    dataset_free(ds);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "analysis_input_tmp");
    if (system("rm -rf analysis_input_tmp && mkdir -p analysis_input_tmp") !=
        0) {
        return 1;
    }
    test_csv_reader();
    test_csv_chunks();
    test_rating_scale();
    test_sidecar();
    test_recursive_view();
    test_recursive_answers();
    test_neutralise();
    test_controls();
    test_output_folder();
    test_output_is_input();
    test_not_a_database();
    report_plots_shutdown();
    return TEST_REPORT();
}
