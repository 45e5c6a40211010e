/*
** Answer deadlines, confidence and require_scroll: the session state
** machine driven by a fake frame clock (the deadline fires from
** session_tick, a late press is not committed, the timeout message shows
** for its time, confidence is required before the trial commits, the
** scroll gate holds Continue), the stored columns and the long format,
** migration of an old file, the export's columns, simulated timeouts, and
** the study's validation of the new fields (located errors).
*/
#include "tests/harness.h"
#include "tests/test_stimuli_fs.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "common/sim_alloc.h"
#include "experiment/export.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <sqlite3.h>
#include <stdlib.h>

static char tmp[256];
static int64_t T = 1000000000; /* fake monotonic clock, ns */

#define MS 1000000LL

static int send(Session *s, SimInputKind kind, int value)
{
    SimInput in = {kind, value, NULL, T, T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

static int send_key(Session *s, const char *key)
{
    SimInput in = {SIM_IN_KEY, 0, key, T, T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

static void tick(Session *s)
{
    SimError err;
    CHECK_INT(session_tick(s, T, T / MS, &err), SIM_OK);
}

/* Shows the current screen: its onset is now. */
static int64_t show(Session *s)
{
    T += 16 * MS;
    session_mark_onset(s, T);
    return T;
}

static int sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_type(st, 0) == SQLITE_NULL
                ? -1
                : sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static double sql_double(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    double v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* A column of the response of step seq (-1 for NULL). */
static int resp(Store *store, const char *pid, int seq, const char *col)
{
    char q[256];
    snprintf(q, sizeof q,
             "SELECT %s FROM response WHERE participant = '%s' AND seq = %d",
             col, pid, seq);
    return sql_int(store_db(store), q);
}

static Store *open_db(const Study *st, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", tmp, name);
    Store *store = NULL;
    SimError err;
    if (store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err) !=
        SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    return store;
}

static void test_session(const Study *st)
{
    char path[512];
    Store *store = open_db(st, "deadline.db", path, sizeof path);
    CHECK(store != NULL);
    if (!store) {
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "LIME";
    e.seed = 7;
    e.wall_ms = 5000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 5000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    const char *pid = info.id;
    const SessionView *v = session_view(s);

    /* consent: the scroll gate holds Continue until the end was seen */
    CHECK_INT(v->screen, SCREEN_CONSENT);
    show(s);
    T += 500 * MS;
    session_report_scroll(s, 1, 0);
    CHECK_INT(session_view(s)->scroll_gate, 1);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);
    CHECK_INT(send_key(s, "return"), 0);
    session_report_scroll(s, 1, 1);
    CHECK_INT(session_view(s)->scroll_gate, 0);
    /* scrolling back up does not close it again */
    session_report_scroll(s, 1, 0);
    CHECK_INT(session_view(s)->scroll_gate, 0);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);

    /* step 1: the deadline fires from the frame clock */
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK(v->confidence_spec && v->confidence_spec->points == 5);
    CHECK_INT(v->need_confidence, 0);
    CHECK_INT(v->deadline_ns, 0); /* not shown yet: no deadline */
    int64_t onset = show(s);
    CHECK(session_view(s)->deadline_ns == onset + 2000 * MS);
    T = onset + 1999 * MS;
    tick(s);
    CHECK_INT(session_view(s)->screen, SCREEN_PREDICT);
    T = onset + 2000 * MS;
    tick(s);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_TIMEOUT);
    CHECK_STR(v->timeout_message, "Time is up. The next example follows.");
    CHECK_INT(resp(store, pid, 1, "timed_out"), 1);
    CHECK_INT(resp(store, pid, 1, "choice"), -1);
    CHECK_INT(resp(store, pid, 1, "correct"), -1);
    CHECK_INT(resp(store, pid, 1, "confidence"), -1);
    CHECK_INT(resp(store, pid, 1, "done"), 1);
    CHECK_INT(resp(store, pid, 1, "CAST(rt_ms AS INTEGER)"), 2000);
    /* the message is not a response screen: inputs are ignored, and it
    ** moves on by itself after SESSION_TIMEOUT_SHOW_NS */
    int64_t shown = show(s);
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 0);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);
    T = shown + SESSION_TIMEOUT_SHOW_NS - 1;
    tick(s);
    CHECK_INT(session_view(s)->screen, SCREEN_TIMEOUT);
    T = shown + SESSION_TIMEOUT_SHOW_NS;
    tick(s);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK_INT(v->trial->seq, 2);

    /* step 2: a press after the deadline, before any tick, is not
    ** committed: the trial times out at its deadline */
    onset = show(s);
    T = onset + 2500 * MS;
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 0);
    CHECK_INT(session_view(s)->screen, SCREEN_TIMEOUT);
    CHECK_INT(resp(store, pid, 2, "timed_out"), 1);
    CHECK_INT(resp(store, pid, 2, "choice"), -1);
    CHECK_INT(resp(store, pid, 2, "response_id IS NULL"), 1);
    CHECK_INT(resp(store, pid, 2, "CAST(rt_ms AS INTEGER)"), 2000);
    shown = show(s);
    T = shown + SESSION_TIMEOUT_SHOW_NS;
    tick(s);

    /* step 3: the choice, then the confidence; only both commit */
    v = session_view(s);
    CHECK_INT(v->trial->seq, 3);
    onset = show(s);
    T = onset + 300 * MS;
    CHECK_INT(send(s, SIM_IN_CONFIDENCE, 4), 0); /* not before the choice */
    T = onset + 900 * MS;
    int right = session_view(s)->trial->correct_choice;
    CHECK_INT(send(s, SIM_IN_CHOOSE, right), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK_INT(v->need_confidence, 1);
    CHECK_INT(v->deadline_ns, 0); /* the choice is in time */
    CHECK_INT(resp(store, pid, 3, "COUNT(*)"), 0);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);   /* nothing to continue */
    CHECK_INT(send(s, SIM_IN_CONFIDENCE, 6), 0); /* off the scale */
    /* past the deadline the chosen trial does not time out */
    T = onset + 5000 * MS;
    tick(s);
    CHECK_INT(session_view(s)->trial->seq, 3);
    CHECK_INT(send_key(s, "3"), 1); /* digits give the confidence */
    CHECK_INT(resp(store, pid, 3, "timed_out"), 0);
    CHECK_INT(resp(store, pid, 3, "choice"), right);
    CHECK_INT(resp(store, pid, 3, "correct"), 1);
    CHECK_INT(resp(store, pid, 3, "confidence"), 3);
    /* rt_ms stays the time of the class choice */
    CHECK_INT(resp(store, pid, 3, "CAST(rt_ms AS INTEGER)"), 900);

    /* step 4: a wrong answer with confidence 1 by the mouse's input */
    v = session_view(s);
    CHECK_INT(v->trial->seq, 4);
    onset = show(s);
    T = onset + 600 * MS;
    int wrong = 1 - v->trial->correct_choice;
    CHECK_INT(send(s, SIM_IN_CHOOSE, wrong), 1);
    T = onset + 1400 * MS;
    CHECK_INT(send(s, SIM_IN_CONFIDENCE, 1), 1);
    CHECK_INT(resp(store, pid, 4, "correct"), 0);
    CHECK_INT(resp(store, pid, 4, "confidence"), 1);

    /* step 5 (block without a message or confidence): the timeout moves
    ** on to the next trial at once */
    v = session_view(s);
    CHECK_INT(v->trial->seq, 5);
    CHECK(v->confidence_spec == NULL);
    onset = show(s);
    T = onset + 1500 * MS;
    tick(s);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK_INT(v->trial->seq, 6);
    CHECK_INT(resp(store, pid, 5, "timed_out"), 1);
    /* ... and the choice alone commits there */
    onset = show(s);
    T = onset + 700 * MS;
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 1);
    CHECK_INT(resp(store, pid, 6, "timed_out"), 0);
    CHECK_INT(resp(store, pid, 6, "confidence"), -1);

    /* debrief: no overflow reported, no gate */
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PAGE);
    show(s);
    session_report_scroll(s, 0, 0);
    CHECK_INT(session_view(s)->scroll_gate, 0);
    T += 100 * MS;
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    CHECK_INT(session_finished(s), 1);
    session_close(s);

    /* the long format: timed_out and confidence come after response_ns
    ** (then the columns of verify and decide blocks), timeouts have no
    ** correctness */
    sqlite3 *db = store_db(store);
    sqlite3_stmt *q;
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT * FROM long_format LIMIT 0", -1,
                                 &q, NULL),
              SQLITE_OK);
    int nc = sqlite3_column_count(q);
    CHECK(nc >= 9);
    CHECK_STR(sqlite3_column_name(q, nc - 8), "timed_out");
    CHECK_STR(sqlite3_column_name(q, nc - 7), "confidence");
    CHECK_STR(sqlite3_column_name(q, nc - 6), "confidence_rt_ms");
    CHECK_STR(sqlite3_column_name(q, nc - 9), "response_ns");
    CHECK_STR(sqlite3_column_name(q, nc - 5), "model_correct");
    CHECK_STR(sqlite3_column_name(q, nc - 4), "advice_shown");
    CHECK_STR(sqlite3_column_name(q, nc - 3), "followed_advice");
    CHECK_STR(sqlite3_column_name(q, nc - 2), "n_options");
    CHECK_STR(sqlite3_column_name(q, nc - 1), "options_shown");
    sqlite3_finalize(q);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "timed_out = 1 AND correct IS NULL"),
              3);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "confidence IS NOT NULL"),
              2);
    CHECK_NEAR(sql_double(db, "SELECT confidence_rt_ms FROM long_format "
                              "WHERE confidence = 3"),
               5000.0, 1e-6);
    store_close(store);

    /* the export writes the new columns at the end */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/deadline.csv", tmp);
    CHECK_INT(export_long_csv(path, csv, &err), SIM_OK);
    size_t len = 0;
    char *text = fs_read(csv, &len);
    CHECK(text != NULL);
    if (text) {
        CHECK(strstr(text,
                     ",station,timed_out,confidence,confidence_rt_ms,"
                     "model_correct,advice_shown,followed_advice,n_options,"
                     "options_shown\r\n") != NULL);
        /* step 3: right, confidence 3 after 5 s */
        CHECK(strstr(text, ",0,3,5000.000,") != NULL);
        /* a timeout: empty correct, timed_out 1, no confidence */
        CHECK(strstr(text, ",1,,,") != NULL);
        free(text);
    }
}

static char *slurp(const char *path)
{
    size_t n = 0;
    return fs_read(path, &n);
}

/* A file of schema version 2 migrates: old responses did not time out and
** have no confidence; the export of a file opened read-only before the
** migration still writes the columns. */
static void test_migration(const Study *fwd)
{
    char fixture[512], path[512], csv[600];
    snprintf(fixture, sizeof fixture, "%s/experiment/store-v2.sql",
             SIMLAB_TEST_DATA);
    char *sql = slurp(fixture);
    CHECK(sql != NULL);
    if (!sql) {
        return;
    }
    snprintf(path, sizeof path, "%s/v2.db", tmp);
    sqlite3 *raw;
    CHECK_INT(sqlite3_open(path, &raw), SQLITE_OK);
    CHECK_INT(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    free(sql);

    SimError err;
    snprintf(csv, sizeof csv, "%s/v2.csv", tmp);
    CHECK_INT(export_long_csv(path, csv, &err), SIM_OK);
    char *text = slurp(csv);
    CHECK(text && strstr(text, ",timed_out,confidence,confidence_rt_ms,"
                               "model_correct,advice_shown,"
                               "followed_advice,n_options,options_shown\r\n"));
    CHECK(text && strstr(text, ",0,,,"));
    free(text);

    Store *store = NULL;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 2000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    sqlite3 *db = store_db(store);
    CHECK_INT(sql_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response"), 56);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response WHERE timed_out = 0 "
                          "AND confidence IS NULL"),
              56);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "timed_out = 0 AND confidence IS NULL"),
              50);
    store_close(store);
}

/* Simulated participants slower than the limit time out; simulated
** confidence is on the block's scale and higher after right answers. */
static void test_simulate(void)
{
    char bundle[512], path[512];
    snprintf(bundle, sizeof bundle, "%s/experiment/mini-deadline",
             SIMLAB_TEST_DATA);
    snprintf(path, sizeof path, "%s/sim.db", tmp);
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = bundle;
    o.db_path = path;
    o.participants = 40;
    o.policy = POLICY_MIXED;
    o.seed = 3;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1700000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
    sqlite3 *db;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    /* RT median 1.5 s, log SD 0.6: P(RT > 2 s) = 0.317, P(> 1.5 s) = 0.5 */
    int n_test = sql_int(db, "SELECT COUNT(*) FROM long_format WHERE block = "
                             "'test'");
    int to_test = sql_int(db, "SELECT COUNT(*) FROM long_format WHERE block "
                              "= 'test' AND timed_out = 1");
    int to_plain = sql_int(db, "SELECT COUNT(*) FROM long_format WHERE block "
                               "= 'plain' AND timed_out = 1");
    CHECK_INT(n_test, 160);
    CHECK(to_test > 25 && to_test < 80);
    CHECK(to_plain > 20 && to_plain < 60);
    /* every timeout: no response, no correctness, rt = the limit */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "timed_out = 1 AND (correct IS NOT NULL OR "
                          "response IS NOT NULL OR confidence IS NOT NULL)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "block = 'test' AND timed_out = 1 AND "
                          "abs(rt_ms - 2000) > 0.001"),
              0);
    /* answered trials carry a confidence in 1..5; none in 'plain' */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "block = 'test' AND timed_out = 0 AND "
                          "(confidence IS NULL OR confidence NOT BETWEEN 1 "
                          "AND 5)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "block = 'plain' AND confidence IS NOT NULL"),
              0);
    double right = sql_double(db, "SELECT AVG(confidence) FROM long_format "
                                  "WHERE correct = 1");
    double wrong = sql_double(db, "SELECT AVG(confidence) FROM long_format "
                                  "WHERE correct = 0");
    CHECK(right > wrong + 0.5);
    /* every participant complete: the timeout screens moved on */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                          "'completed'"),
              40);
    sqlite3_close(db);
}

/* Writes a bundle whose second block is given as JSON and returns the
** number of errors of loading it; *msg gets the first error's field and
** message ("field: message"). */
static int load_errors(const char *block, char *msg, size_t n)
{
    char dir[600], src[600];
    snprintf(dir, sizeof dir, "%s/bad-bundle", tmp);
    snprintf(src, sizeof src, "%s/experiment/mini-deadline", SIMLAB_TEST_DATA);
    fs_remove_tree(dir);
    fs_copy_tree(src, dir);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"simlab_study\": 1, \"id\": \"bad\", \"title\": \"Bad\", "
             "\"classes\": "
             "[{\"id\": \"pos\", \"label\": \"Positive\", \"key\": \"p\"}, "
             "{\"id\": \"neg\", \"label\": \"Negative\", \"key\": \"n\"}], "
             "\"conditions\": [{\"id\": \"LIME\", \"method\": \"LIME\"}], "
             "\"blocks\": [{\"kind\": \"consent\", \"pages\": "
             "[\"pages/consent.md\"]}, %s], \"items\": [{\"file\": "
             "\"items.jsonl\", \"format\": \"jsonl\"}]}",
             block);
    char *file = fs_join(dir, "study.json");
    fs_write(file, json, strlen(json));
    free(file);
    Study *st = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    study_load(dir, &st, &rep, &err);
    msg[0] = '\0';
    if (rep.n_errors > 0) {
        const Diag *d = &rep.errors[0];
        snprintf(msg, n, "%s %s: %s", d->pointer ? d->pointer : "-",
                 d->field ? d->field : "-", d->message);
    }
    int k = (int)rep.n_errors;
    study_free(st);
    study_report_free(&rep);
    return k;
}

static void test_validation(void)
{
    char msg[512];
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"time_limit_ms\": 1000, \"timeout_message\": "
                          "\"Too slow\", \"confidence\": {\"points\": 7}, "
                          "\"require_scroll\": false}",
                          msg, sizeof msg),
              0);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"time_limit_ms\": 50}",
                          msg, sizeof msg),
              1);
    CHECK(strstr(msg, "/blocks/1/time_limit_ms time_limit_ms:") == msg);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"time_limit_ms\": 600001}",
                          msg, sizeof msg),
              1);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"confidence\": {\"points\": 12}}",
                          msg, sizeof msg),
              1);
    CHECK(strstr(msg, "/blocks/1/confidence/points points:") == msg);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"confidence\": 5}",
                          msg, sizeof msg),
              1);
    CHECK(strstr(msg, "confidence:") != NULL);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"timeout_message\": \"Too slow\"}",
                          msg, sizeof msg),
              1);
    CHECK(strstr(msg, "timeout_message: needs") != NULL);
    CHECK_INT(load_errors("{\"kind\": \"learn\", \"pool\": \"learn\", "
                          "\"time_limit_ms\": 1000}",
                          msg, sizeof msg),
              1);
    CHECK(
        strstr(msg, "only predict, counterfactual, verify and decide blocks") !=
        NULL);
    CHECK_INT(load_errors("{\"kind\": \"break\", \"text\": \"Rest\", "
                          "\"require_scroll\": true}",
                          msg, sizeof msg),
              1);
    CHECK(strstr(msg, "require_scroll") != NULL);
    CHECK_INT(load_errors("{\"kind\": \"predict\", \"pool\": \"test\", "
                          "\"require_scroll\": \"yes\"}",
                          msg, sizeof msg),
              1);
}

/* A counterfactual block that also asks the explanation's rating: the
** choice, the confidence and the rating in any order after the choice,
** then Continue; nothing commits before all three. */
static void test_counterfactual_rating(void)
{
    char dir[600], src[600], path[700];
    snprintf(dir, sizeof dir, "%s/cf-bundle", tmp);
    snprintf(src, sizeof src, "%s/experiment/mini-counterfactual",
             SIMLAB_TEST_DATA);
    fs_copy_tree(src, dir);
    const char *json =
        "{\"simlab_study\": 1, \"id\": \"cf\", \"title\": \"CF\", "
        "\"classes\": [{\"id\": \"pos\", \"label\": \"Positive\", "
        "\"key\": \"p\"}, {\"id\": \"neg\", \"label\": \"Negative\", "
        "\"key\": \"n\"}], \"conditions\": [{\"id\": \"LIME\", "
        "\"method\": \"LIME\"}], \"blocks\": [{\"kind\": "
        "\"counterfactual\", \"pool\": \"test\", \"n\": 2, \"rating\": "
        "true, \"show\": {\"explanation\": true}, \"time_limit_ms\": "
        "3000, \"confidence\": {\"points\": 4}}], \"items\": [{\"file\": "
        "\"items.jsonl\", \"format\": \"jsonl\"}]}";
    char *file = fs_join(dir, "study.json");
    fs_write(file, json, strlen(json));
    free(file);
    Study *st = NULL;
    SimError err;
    CHECK_INT(study_load(dir, &st, NULL, &err), SIM_OK);
    if (!st) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    Store *store = open_db(st, "cf.db", path, sizeof path);
    EnrollSpec e = {0};
    e.seed = 3;
    e.wall_ms = 5000;
    ParticipantInfo info;
    Session *s = NULL;
    CHECK(store && store_enroll(store, &e, &info, &err) == SIM_OK &&
          session_open(store, st, info.id, 5000, &s, &err) == SIM_OK);
    if (!s) {
        store_close(store);
        study_free(st);
        return;
    }
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_COUNTERFACTUAL);
    int64_t onset = show(s);
    T = onset + 1000 * MS;
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 1);
    T += 100 * MS;
    CHECK_INT(send(s, SIM_IN_RATE, 6), 1);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);   /* no confidence yet */
    CHECK_INT(send(s, SIM_IN_CONFIDENCE, 5), 0); /* off its 4 points */
    CHECK_INT(send_key(s, "2"), 1);              /* the confidence */
    CHECK_INT(session_view(s)->confidence, 2);
    CHECK_INT(session_view(s)->rating, 6);
    CHECK_INT(resp(store, info.id, 0, "COUNT(*)"), 0);
    T += 100 * MS;
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    CHECK_INT(resp(store, info.id, 0, "confidence"), 2);
    CHECK_INT(resp(store, info.id, 0, "rating"), 6);
    CHECK_INT(resp(store, info.id, 0, "CAST(rt_ms AS INTEGER)"), 1000);
    /* the second trial times out: no rating, no confidence */
    v = session_view(s);
    CHECK_INT(v->trial->seq, 1);
    onset = show(s);
    T = onset + 3000 * MS;
    tick(s);
    CHECK_INT(resp(store, info.id, 1, "timed_out"), 1);
    CHECK_INT(resp(store, info.id, 1, "rating"), -1);
    CHECK_INT(session_finished(s), 1);
    session_close(s);
    store_close(store);
    study_free(st);
}

/* A catch trial that times out counts as a failed catch trial for the live
** screening rule (max_catch_failures), as the analysis counts it: with a
** limit of 0 and stop_on_failure, the run ends at the timed-out catch. */
static void test_catch_timeout(void)
{
    char dir[600], src[600];
    snprintf(dir, sizeof dir, "%s/catch-bundle", tmp);
    snprintf(src, sizeof src, "%s/experiment/mini-deadline", SIMLAB_TEST_DATA);
    fs_remove_tree(dir);
    CHECK_INT(fs_copy_tree(src, dir), 0);
    static const char json[] =
        "{\"simlab_study\": 1, \"id\": \"catch\", \"title\": \"Catch\", "
        "\"classes\": [{\"id\": \"pos\", \"label\": \"Positive\", \"key\": "
        "\"p\"}, {\"id\": \"neg\", \"label\": \"Negative\", \"key\": \"n\"}], "
        "\"conditions\": [{\"id\": \"LIME\", \"method\": \"LIME\"}], "
        "\"blocks\": [{\"kind\": \"learn\", \"id\": \"res\", \"pool\": "
        "\"learn\", \"n\": 2, \"order\": \"fixed\"}, {\"kind\": \"predict\", "
        "\"id\": \"test\", \"pool\": \"test\", \"n\": 3, \"catch\": 1, "
        "\"reservoir\": \"res\", \"time_limit_ms\": 2000}], "
        "\"screening\": {\"max_catch_failures\": 0, \"stop_on_failure\": "
        "true}, \"items\": [{\"file\": \"items.jsonl\", \"format\": "
        "\"jsonl\"}]}";
    char *file = fs_join(dir, "study.json");
    CHECK(file && fs_write(file, json, strlen(json)) == 0);
    free(file);
    Study *st = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    CHECK_INT(study_load(dir, &st, &rep, &err), SIM_OK);
    study_report_free(&rep);
    if (!st) {
        return;
    }
    char path[512];
    Store *store = open_db(st, "catch.db", path, sizeof path);
    CHECK(store != NULL);
    Session *s = NULL;
    ParticipantInfo info;
    if (store) {
        EnrollSpec e = {0};
        e.condition = "LIME";
        e.seed = 3;
        e.wall_ms = 5000;
        CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
        CHECK_INT(session_open(store, st, info.id, 5000, &s, &err), SIM_OK);
    }
    int catches = 0, timed_out_catch = 0;
    for (int guard = 0; s && guard < 40 && !session_finished(s); guard++) {
        const SessionView *v = session_view(s);
        if (v->screen == SCREEN_SCREENED_OUT) {
            break;
        }
        int64_t onset = show(s);
        session_report_scroll(s, 0, 1);
        if (v->screen == SCREEN_PREDICT && v->trial && v->trial->is_catch) {
            catches++;
            T = onset + 2000 * MS;
            tick(s);
            timed_out_catch = 1;
            continue;
        }
        if (v->screen == SCREEN_PREDICT) {
            CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 1);
        } else {
            CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
        }
    }
    CHECK_INT(catches, 1);
    CHECK_INT(timed_out_catch, 1);
    if (s) {
        CHECK_INT(session_view(s)->screen, SCREEN_SCREENED_OUT);
        ParticipantInfo now;
        CHECK_INT(store_participant(store, info.id, &now, &err), SIM_OK);
        CHECK_INT(now.status, PSTATUS_SCREENED_OUT);
        char q[256];
        snprintf(q, sizeof q,
                 "SELECT COUNT(*) FROM response WHERE participant = '%s' "
                 "AND timed_out = 1",
                 info.id);
        CHECK_INT(sql_int(store_db(store), q), 1);
        session_close(s);
    }
    store_close(store);
    study_free(st);
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "deadline");
    Study *st = test_study_load("mini-deadline");
    Study *fwd = test_study_load("mini-forward");
    CHECK(st && fwd);
    if (st && fwd) {
        test_session(st);
        test_migration(fwd);
        test_simulate();
        test_validation();
        test_counterfactual_rating();
        test_catch_timeout();
    }
    study_free(st);
    study_free(fwd);
    test_rmtree(tmp);
    return TEST_REPORT();
}
