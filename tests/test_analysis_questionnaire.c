/*
** Questionnaire summaries of simlab-analyze against R
** (tests/data/analysis-questionnaire/make_questionnaire.R): n, mean, SD and
** the t.test 95 % interval per condition of number and likert questions,
** counts per option of a choice question and of non-empty text answers,
** read from X.questionnaire.csv beside X.csv; located errors in a bad
** answers file; screened-out participants left out; a NUL byte in an
** answer kept as \x00.
*/
#include "tests/harness.h"
#include "tests/test_report.h"
#include "analysis/analyze.h"
#include "analysis/dataset.h"
#include "analysis/questionnaire.h"
#include "analysis/report.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA SIMLAB_TEST_DATA "/analysis-questionnaire/"
#define TOL  1e-10

/* The row whose text columns a, b (and c when not NULL) are va, vb, vc. */
static int find_row(const Table *t, const char *a, const char *va,
                    const char *b, const char *vb, const char *c,
                    const char *vc)
{
    for (int i = 0; t && i < t->n_rows; i++) {
        const TableCell *x = test_cell(t, i, a), *y = test_cell(t, i, b);
        const TableCell *z = c ? test_cell(t, i, c) : NULL;
        if (x && y && x->text && y->text && strcmp(x->text, va) == 0 &&
            strcmp(y->text, vb) == 0 &&
            (!c || (z && z->text && strcmp(z->text, vc) == 0))) {
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
}

static void test_against_r(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, DATA "study.csv", &err), SIM_OK);
    CHECK_INT(questionnaire_load_csv(ds, DATA "study.csv", &err), SIM_OK);
    CHECK(ds->answers && ds->answers->n == 100);
    AnalyzeOptions o;
    options(&o);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *ts = test_table(&r, "questionnaire");
    const Table *tc = test_table(&r, "questionnaire_choices");
    const Table *tt = test_table(&r, "questionnaire_text");
    CHECK(ts && tc && tt);
    CHECK(ts && strcmp(ts->json_path, "questionnaire.summary") == 0);
    FILE *f = fopen(DATA "questionnaire_goldens.txt", "r");
    CHECK(f != NULL);
    char line[512];
    int n_summary = 0, n_choice = 0, n_text = 0;
    while (f && fgets(line, sizeof line, f)) {
        char kind[16], a[64], b[64], c[64], d[64];
        int n;
        double mean, sd, lo, hi;
        if (sscanf(line, "summary %63s %63s %63s %63s %d %lf %lf %lf %lf", a, b,
                   c, d, &n, &mean, &sd, &lo, &hi) == 9) {
            int row = find_row(ts, "question", b, "condition", d, "block", a);
            CHECK(row >= 0);
            if (row >= 0) {
                CHECK_STR(test_cell(ts, row, "type")->text, c);
                CHECK_INT((int)test_cell(ts, row, "n")->x, n);
                CHECK_NEAR(test_cell(ts, row, "mean")->x, mean, TOL);
                CHECK_NEAR(test_cell(ts, row, "sd")->x, sd, TOL);
                CHECK_NEAR(test_cell(ts, row, "ci")->x, lo, TOL);
                CHECK_NEAR(test_cell(ts, row, "ci")->y, hi, TOL);
            }
            n_summary++;
        } else if (sscanf(line, "choice %63s %63s %d", a, b, &n) == 3) {
            for (char *p = b; *p; p++) {
                *p = *p == '_' ? ' ' : *p;
            }
            int row = find_row(tc, "condition", a, "option", b, NULL, NULL);
            CHECK(row >= 0);
            if (row >= 0) {
                CHECK_INT((int)test_cell(tc, row, "n")->x, n);
                CHECK_STR(test_cell(tc, row, "question")->text, "ml");
            }
            n_choice++;
        } else if (sscanf(line, "%15s %63s %d", kind, a, &n) == 3 &&
                   strcmp(kind, "text") == 0) {
            int row =
                find_row(tt, "condition", a, "question", "why", NULL, NULL);
            CHECK(row >= 0);
            if (row >= 0) {
                CHECK_INT((int)test_cell(tt, row, "n")->x, n);
            }
            n_text++;
        }
    }
    if (f) {
        fclose(f);
    }
    CHECK_INT(n_summary, 6);
    CHECK_INT(n_choice, 8);
    CHECK_INT(n_text, 2);
    /* the baseline comes first, as in every table */
    CHECK(ts && ts->n_rows == 6 &&
          strcmp(test_cell(ts, 0, "condition")->text, "baseline") == 0);
    /* the neutralised formula was read back as written */
    CHECK(dataset_find(ds, "=1+1") >= 0);
    report_free(&r);
    dataset_free(ds);
}

/* Participants screened out of the long format are left out here too. */
static void test_screened(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    DatasetRow row = {.participant = "b-01",
                      .condition = "baseline",
                      .phase = "post",
                      .item = "test:1",
                      .correct = 1,
                      .rating = 0,
                      .rt_ms = NAN};
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    row.participant = "l-01";
    row.condition = "LIME";
    row.excluded = 1;
    row.exclusion_reason = "catch";
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    CHECK_INT(questionnaire_load_csv(ds, DATA "study.csv", &err), SIM_OK);
    AnalyzeOptions o;
    options(&o);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *ts = test_table(&r, "questionnaire");
    /* only b-01 is kept: one answer per question, baseline only */
    CHECK(ts && ts->n_rows == 3);
    for (int i = 0; ts && i < ts->n_rows; i++) {
        CHECK_INT((int)test_cell(ts, i, "n")->x, 1);
        CHECK_STR(test_cell(ts, i, "condition")->text, "baseline");
    }
    report_free(&r);
    dataset_free(ds);
}

static int copy(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int ok = a && b;
    char buf[4096];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0) {
        ok = fwrite(buf, 1, n, b) == n;
    }
    if (a) {
        fclose(a);
    }
    if (b) {
        fclose(b);
    }
    return ok ? 0 : -1;
}

/* With the study definition (an export's sidecar), a choice question's
** options come in the study's order, also those no one chose. */
static void test_defined_options(void)
{
    char dir[] = "/tmp/simlab-aqd-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char csv[256], qcsv[256], side[256];
    snprintf(csv, sizeof csv, "%s/study.csv", dir);
    snprintf(qcsv, sizeof qcsv, "%s/study.questionnaire.csv", dir);
    snprintf(side, sizeof side, "%s/study.csv.json", dir);
    CHECK_INT(copy(DATA "study.csv", csv), 0);
    CHECK_INT(copy(DATA "study.questionnaire.csv", qcsv), 0);
    FILE *f = fopen(side, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"studies\": [{\"id\": \"q\", \"definition\": {\"blocks\": "
              "[{\"kind\": \"learn\"}, {\"kind\": \"questionnaire\", \"id\": "
              "\"about-you\", \"questions\": [{\"id\": \"ml\", \"type\": "
              "\"choice\", \"options\": [\"I build models\", \"Nothing\", "
              "\"A little\", \"I use it at work\", \"Never heard of "
              "it\"]}]}]}}]}\n",
              f);
        fclose(f);
    }
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, csv, &err), SIM_OK);
    CHECK_INT(questionnaire_load_csv(ds, csv, &err), SIM_OK);
    AnalyzeOptions o;
    options(&o);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *tc = test_table(&r, "questionnaire_choices");
    static const char *const order[] = {"I build models", "Nothing", "A little",
                                        "I use it at work",
                                        "Never heard of it"};
    CHECK(tc && tc->n_rows == 10);
    for (int i = 0; tc && i < 5 && i < tc->n_rows; i++) {
        CHECK_STR(test_cell(tc, i, "option")->text, order[i]);
        CHECK_STR(test_cell(tc, i, "condition")->text, "baseline");
    }
    CHECK(tc && tc->n_rows == 10 && test_cell(tc, 4, "n")->x == 0);
    report_free(&r);
    dataset_free(ds);
    remove(csv);
    remove(qcsv);
    remove(side);
    rmdir(dir);
}

static void test_bad_file(void)
{
    char dir[] = "/tmp/simlab-aq-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char csv[256], qcsv[256];
    snprintf(csv, sizeof csv, "%s/x.csv", dir);
    snprintf(qcsv, sizeof qcsv, "%s/x.questionnaire.csv", dir);
    FILE *f = fopen(qcsv, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("participant,condition,station,block,question,type,value,"
              "rt_ms\r\np1,a,s,b,q,number,3,1.0\r\np1,a,s,b,r,slider,3,"
              "1.0\r\n",
              f);
        fclose(f);
    }
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(questionnaire_load_csv(ds, csv, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "x.questionnaire.csv:3: column 'type': expected "
                          "number, choice, likert or text, got 'slider'"));
    f = fopen(qcsv, "w");
    if (f) {
        fputs("participant,condition,block,question,type\r\n", f);
        fclose(f);
    }
    CHECK_INT(questionnaire_load_csv(ds, csv, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, ":1: column 'value': missing from the header"));
    f = fopen(qcsv, "w");
    if (f) {
        fputs("participant,condition,block,question,type,value\r\n"
              "p1,a,b,q,likert,many\r\n",
              f);
        fclose(f);
    }
    CHECK_INT(questionnaire_load_csv(ds, csv, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, ":2: column 'value': expected a number, got "
                          "'many'"));
    remove(qcsv);
    /* no answers file: nothing to read, no error */
    CHECK_INT(questionnaire_load_csv(ds, csv, &err), SIM_OK);
    rmdir(dir);
    dataset_free(ds);
}

/* A text answer with a NUL byte in a station file (edited by hand): read
** as \x00, the way the sync sends it to a server, not cut at the NUL. */
static void test_nul_answer(void)
{
    char dir[] = "/tmp/simlab-aq-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char db[256];
    snprintf(db, sizeof db, "%s/q.db", dir);
    sqlite3 *h = NULL;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    CHECK_INT(
        sqlite3_exec(h,
                     "CREATE TABLE study (id INTEGER PRIMARY KEY, definition);"
                     "INSERT INTO study VALUES (1, '{\"blocks\": [{\"kind\": "
                     "\"questionnaire\", \"id\": \"b\", \"questions\": [{"
                     "\"id\": \"q\", \"type\": \"text\"}]}]}');"
                     "CREATE TABLE participant (id, condition, created_ms);"
                     "INSERT INTO participant VALUES ('p1', 'A', 1);"
                     "CREATE TABLE trial (participant, seq, block_id);"
                     "INSERT INTO trial VALUES ('p1', 0, 'b');"
                     "CREATE TABLE answer (participant, seq, question, type, "
                     "value);"
                     "INSERT INTO answer VALUES ('p1', 0, 'q', 'text', "
                     "CAST(x'6100622E' AS TEXT));",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(questionnaire_load_db(ds, db, &err), SIM_OK);
    CHECK(ds->answers && ds->answers->n == 1);
    if (ds->answers && ds->answers->n == 1) {
        CHECK_STR(dataset_str(ds, ds->answers->a[0].value), "a\\x00b.");
    }
    dataset_free(ds);
    remove(db);
    rmdir(dir);
}

int main(void)
{
    test_against_r();
    test_screened();
    test_defined_options();
    test_bad_file();
    test_nul_answer();
    return TEST_REPORT();
}
