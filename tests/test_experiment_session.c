/*
** The store and the session state machine, driven by scripted inputs with
** fake timestamps: schema and pragmas, enrollment and assignment, one
** transaction per response, duplicates refused, onset gating, forced
** choice, ratings, quiz and practice retries with screening, catch trials,
** pause/abort/resume events, a locked database that the session
** survives without losing the response, and the screen of every block
** kind.
*/
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "experiment/session.h"
#include "experiment/simulate.h"
#include "common/sim_alloc.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <sqlite3.h>

static char tmp[256];

static Store *open_db(const Study *st, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    Store *store = NULL;
    SimError err;
    if (store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err) !=
        SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    return store;
}

static int64_t T = 1000000000; /* fake monotonic clock, ns */

static int send(Session *s, SimInputKind kind, int value)
{
    SimInput in = {kind, value, NULL, T, T / 1000000};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

static int send_key(Session *s, const char *key)
{
    SimInput in = {SIM_IN_KEY, 0, key, T, T / 1000000};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

static int send_input(Session *s, const SimInput *in)
{
    int consumed = 0;
    SimError err;
    session_handle(s, in, &consumed, &err);
    return consumed;
}

/* Shows the current screen: onset at T, then time passes. */
static void show(Session *s)
{
    T += 16000000;
    session_mark_onset(s, T);
    T += 700000000;
}

static int sql_int(Store *store, const char *sql)
{
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_prepare_v2(store_db(store), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static void test_schema(const Study *st)
{
    Store *store = open_db(st, "schema.db");
    CHECK(store != NULL);
    if (!store) {
        return;
    }
    CHECK_INT(sql_int(store, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_int(store, "PRAGMA foreign_keys"), 1);
    CHECK_INT(sql_int(store, "PRAGMA synchronous"), 2); /* FULL */
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM study"), 1);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM item"), (int)st->n_items);
    CHECK_INT(sql_int(store, "SELECT length(definition) > 100 FROM study"), 1);
    store_close(store);

    /* reopening with the same bundle reuses the study row */
    store = open_db(st, "schema.db");
    CHECK(store && sql_int(store, "SELECT COUNT(*) FROM study") == 1);
    store_close(store);

    /* a database recorded with another bundle is refused */
    Study *other = test_study_load("mini-counterfactual");
    char path[512];
    snprintf(path, sizeof path, "%s/schema.db", tmp);
    SimError err;
    Store *s2 = NULL;
    CHECK_INT(store_open(path, other, DURABILITY_FULL, 0, 1, &s2, &err),
              SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "bundle") != NULL);
    CHECK_INT(store_open(path, other, DURABILITY_FULL, 1, 1, &s2, &err),
              SIM_OK);
    CHECK(s2 && sql_int(s2, "SELECT COUNT(*) FROM study") == 2);
    CHECK(s2 && sql_int(s2, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'bundle_changed'") == 1);
    store_close(s2);
    study_free(other);
}

static void test_assignment(const Study *meta)
{
    Store *store = open_db(meta, "assign.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    int per[3] = {0, 0, 0};
    for (int i = 0; i < 9; i++) {
        EnrollSpec e = {0};
        e.wall_ms = 1000 + i;
        e.assign_seed = (uint64_t)(i + 1);
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
        per[study_condition_index(meta, info.condition)]++;
        CHECK_STR(info.assigned_by, "balanced");
        CHECK(strlen(info.id) == 36);
    }
    /* active participants count: 3 each */
    CHECK(per[0] == 3 && per[1] == 3 && per[2] == 3);

    /* after the activity window, inactive participants no longer count;
    ** completed ones do */
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM participant"), 9);
    sqlite3_exec(store_db(store),
                 "UPDATE participant SET status = 'completed' WHERE rowid IN "
                 "(SELECT rowid FROM participant WHERE condition = 'grad' "
                 "LIMIT 2)",
                 NULL, NULL, NULL);
    int64_t later = 1000 + 2LL * 3600 * 1000;
    char cond[64];
    CHECK_INT(
        store_assign_condition(store, 0, 0, later, 5, cond, sizeof cond, &err),
        SIM_OK);
    CHECK(strcmp(cond, "grad") != 0);

    /* simulated and pilot participants are balanced apart */
    EnrollSpec e = {0};
    e.simulated = 1;
    e.wall_ms = later;
    e.assign_seed = 3;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    CHECK_INT(info.simulated, 1);

    /* an experimenter override is recorded as such */
    e.simulated = 0;
    e.condition = "control";
    e.code = "P-017";
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    CHECK_STR(info.condition, "control");
    CHECK_STR(info.assigned_by, "override");
    CHECK_STR(info.code, "P-017");
    e.condition = "nonexistent";
    CHECK(store_enroll(store, &e, &info, &err) != SIM_OK);
    store_close(store);
}

static void test_hase_rule(Study *fwd)
{
    /* min 2 completed per condition, then everyone to LIME */
    fwd->assignment.rule = ASSIGN_HASE;
    fwd->assignment.min_complete = 2;
    static char then_lime[] = "LIME";
    char *saved = fwd->assignment.then_condition;
    fwd->assignment.then_condition = then_lime;
    Store *store = open_db(fwd, "hase.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    int base = 0, lime = 0;
    for (int i = 0; i < 4; i++) {
        EnrollSpec e = {0};
        e.wall_ms = 1000;
        e.assign_seed = (uint64_t)(i + 7);
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
        CHECK_STR(info.assigned_by, "hase");
        base += strcmp(info.condition, "baseline") == 0;
        lime += strcmp(info.condition, "LIME") == 0;
    }
    CHECK(base == 2 && lime == 2);
    for (int i = 0; i < 3; i++) {
        char cond[64];
        CHECK_INT(store_assign_condition(store, 0, 0, 1000, (uint64_t)i + 1,
                                         cond, sizeof cond, &err),
                  SIM_OK);
        CHECK_STR(cond, "LIME");
    }
    store_close(store);
    fwd->assignment.rule = ASSIGN_BALANCED;
    fwd->assignment.then_condition = saved;
}

/* Walks one forward participant through every screen. */
static void test_forward_session(const Study *st)
{
    Store *store = open_db(st, "forward.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "LIME";
    e.seed = 99;
    e.wall_ms = 5000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 5000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_CONSENT);
    CHECK(v->page_text && strstr(v->page_text, "Consent"));

    /* input before the screen is shown is ignored */
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);
    show(s);
    /* ... and so is input stamped before the onset */
    T -= 800000000;
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0);
    T += 800000000;
    CHECK_INT(send_key(s, "x"), 0); /* not a key of this screen */
    CHECK_INT(send_key(s, "return"), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PAGE);
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);

    /* quiz: wrong first, then right; first try is what counts */
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_QUIZ);
    CHECK(v->question != NULL);
    show(s);
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_FEEDBACK);
    CHECK_INT(v->feedback_correct, 0);
    CHECK_INT(v->feedback_final, 0);
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_QUIZ);
    CHECK_INT(v->attempt, 2);
    show(s);
    CHECK_INT(send_key(s, "2"), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_FEEDBACK);
    CHECK_INT(v->feedback_correct, 1);
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT correct * 100 + attempts FROM response r JOIN trial t "
             "USING (participant, seq) WHERE t.block_kind = 'quiz' AND "
             "participant = '%s'",
             info.id);
    CHECK_INT(sql_int(store, sql), 2); /* wrong first try, two attempts */
    snprintf(sql, sizeof sql,
             "SELECT excluded FROM participant WHERE id = '%s'", info.id);
    CHECK_INT(sql_int(store, sql), 1); /* quiz_all_first_try */

    /* learning without explanation: label and model output shown */
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_EXAMPLE);
    CHECK(v->show_label && v->show_prediction && !v->explanation);
    for (int i = 0; i < 4; i++) {
        show(s);
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    }
    /* pre: forced choice, keys from the study */
    for (int i = 0; i < 8; i++) {
        v = session_view(s);
        CHECK_INT(v->screen, SCREEN_PREDICT);
        CHECK(v->need_choice && !v->show_prediction && !v->explanation);
        show(s);
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0); /* cannot skip */
        const Trial *t = v->trial;
        CHECK_INT(send_key(s, t->correct_choice == 0 ? "p" : "N"), 1);
    }
    /* learning with explanations: rating, then Continue */
    for (int i = 0; i < 4; i++) {
        v = session_view(s);
        CHECK_INT(v->screen, SCREEN_EXAMPLE);
        CHECK(v->explanation != NULL && v->need_rating);
        show(s);
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0); /* rating first */
        CHECK_INT(send(s, SIM_IN_RATE, 9), 0);     /* out of range */
        CHECK_INT(send_key(s, "5"), 1);
        CHECK_INT(send(s, SIM_IN_RATE, 6), 1); /* may change it */
        CHECK_INT(session_view(s)->rating, 6);
        T += 1000;
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    }
    /* post: answer everything wrong */
    for (int i = 0; i < 8; i++) {
        v = session_view(s);
        CHECK_INT(v->screen, SCREEN_PREDICT);
        show(s);
        CHECK_INT(send(s, SIM_IN_CHOOSE, 1 - v->trial->correct_choice), 1);
    }
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PAGE); /* debrief */
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1);
    CHECK(session_finished(s));
    CHECK_INT(session_view(s)->screen, SCREEN_DONE);
    session_close(s);

    snprintf(sql, sizeof sql,
             "SELECT status = 'completed' FROM participant WHERE id = '%s'",
             info.id);
    CHECK_INT(sql_int(store, sql), 1);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM long_format"),
              1 + 4 + 8 + 4 + 8);
    CHECK_INT(sql_int(store, "SELECT SUM(correct) FROM long_format WHERE "
                             "phase = 'pre'"),
              8);
    CHECK_INT(sql_int(store, "SELECT SUM(correct) FROM long_format WHERE "
                             "phase = 'post'"),
              0);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM long_format WHERE "
                             "phase = 'learn' AND correct IS NULL"),
              8);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM long_format WHERE "
                             "rating = 6"),
              4);
    /* onset and response times are stored in ns; rt_ms derives from them */
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM response WHERE "
                             "abs(rt_ms - (response_ns - onset_ns) / 1e6) > "
                             "1e-6"),
              0);
    CHECK_INT(sql_int(store, "SELECT MIN(rt_ms) >= 700 FROM long_format "
                             "WHERE phase = 'pre'"),
              1);

    /* recording a done step again is refused and changes nothing */
    Response r = {0};
    r.participant = info.id;
    r.seq = 0;
    r.choice = -1;
    r.done = 1;
    r.wall_ms = 1;
    CHECK_INT(store_record_response(store, &r, &err), SIM_ERR_STATE);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM response"), 28);
    store_close(store);
}

/* Reading a schedule back when memory runs out: it fails with
** SIM_ERR_NOMEM or returns every step as stored, never a step whose item
** was lost. */
static void test_load_schedule_nomem(const Study *st)
{
    Store *store = open_db(st, "nomem.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "LIME";
    e.seed = 7;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    int items = sql_int(store, "SELECT COUNT(item) FROM trial");
    int failed = 0, wrong = 0;
    for (long n = 0; n < 200; n++) {
        Schedule *sch = NULL;
        sim_alloc_fail_after(n);
        int rc = store_load_schedule(store, info.id, &sch, &err);
        sim_alloc_fail_after(-1);
        if (rc != SIM_OK) {
            failed += rc == SIM_ERR_NOMEM && !sch;
            wrong += rc != SIM_ERR_NOMEM;
            continue;
        }
        int keys = 0;
        for (size_t i = 0; i < sch->n_trials; i++) {
            keys += sch->trials[i].item_key != NULL;
        }
        wrong += keys != items;
        schedule_free(sch);
    }
    CHECK(failed > 0);
    CHECK_INT(wrong, 0);
    store_close(store);
}

/* Pause, abort and resume; a locked database during a response. */
static void test_interruptions(const Study *st)
{
    Store *store = open_db(st, "interrupt.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "baseline";
    e.seed = 5;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1); /* consent */
    show(s);
    CHECK_INT(send(s, SIM_IN_PAUSE, 0), 1);
    CHECK_INT(session_view(s)->screen, SCREEN_PAUSED);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 0); /* the participant waits */
    CHECK_INT(send(s, SIM_IN_RESUME, 0), 1);
    CHECK_INT(session_view(s)->screen, SCREEN_PAGE);
    show(s);
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0), 1); /* instructions */
    CHECK_INT(send(s, SIM_IN_ABORT, 0), 1);
    CHECK(session_finished(s));
    CHECK(session_view(s)->aborted);
    session_close(s);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM event WHERE participant = '%s' AND kind IN "
             "('pause', 'unpause', 'abort')",
             info.id);
    CHECK_INT(sql_int(store, sql), 3);

    /* resume continues at the first unanswered step: the quiz */
    ParticipantInfo *list;
    size_t n;
    CHECK_INT(store_list_participants(store, 1, &list, &n, &err), SIM_OK);
    CHECK(n == 1 && list[0].status == PSTATUS_ABORTED);
    free(list);
    CHECK_INT(session_open(store, st, info.id, 2000, &s, &err), SIM_OK);
    CHECK_INT(session_view(s)->screen, SCREEN_QUIZ);
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM event WHERE participant = '%s' AND kind = "
             "'resume'",
             info.id);
    CHECK_INT(sql_int(store, sql), 1);

    /* another connection holds the write lock: the answer waits, safe */
    char path[512];
    snprintf(path, sizeof path, "%s/interrupt.db", tmp);
    sqlite3 *other;
    sqlite3_open(path, &other);
    CHECK_INT(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
              SQLITE_OK);
    show(s);
    SimInput in = {SIM_IN_CHOOSE, 1, NULL, T, 3000};
    int consumed = 0;
    int rc = session_handle(s, &in, &consumed, &err);
    CHECK(rc == SIM_ERR_BUSY || rc == SIM_ERR_DB);
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_STORE_ERROR);
    CHECK(v->message != NULL);
    CHECK_INT(send(s, SIM_IN_CHOOSE, 0), 0); /* nothing else meanwhile */
    sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(other);
    T += 1000000;
    CHECK_INT(send(s, SIM_IN_RETRY, 0), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_FEEDBACK); /* the stored answer moved on */
    snprintf(sql, sizeof sql,
             "SELECT choice FROM response r JOIN trial t USING (participant, "
             "seq) WHERE t.block_kind = 'quiz' AND participant = '%s'",
             info.id);
    CHECK_INT(sql_int(store, sql), 1);
    /* the hold-up is logged once the write went through */
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM event WHERE kind = "
                             "'store_error' AND json_extract(detail, "
                             "'$.failures') = 1"),
              1);
    session_close(s);
    store_close(store);
}

/* Meta-predictor: practice retries and screening, catch trials,
** reservoir in the view. */
static void test_meta_session(Study *st)
{
    st->screening.stop_on_failure = 1;
    Store *store = open_db(st, "meta.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "grad";
    e.seed = 42;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    int reservoir_seen = 0, catch_seen = 0, guard = 0;
    while (!session_finished(s) && guard++ < 500) {
        const SessionView *v = session_view(s);
        show(s);
        if (v->screen == SCREEN_PREDICT && v->trial->is_catch) {
            catch_seen++;
            /* fail the catch trial of the second session */
            int wrong = 1 - v->trial->correct_choice;
            CHECK_INT(send(s, SIM_IN_CHOOSE,
                           catch_seen == 2 ? wrong : v->trial->correct_choice),
                      1);
            continue;
        }
        if (v->screen == SCREEN_PREDICT && v->trial->show.reservoir) {
            CHECK_INT(v->n_reservoir, 5);
            CHECK(v->reservoir_expl[0] != NULL); /* grad explains */
            CHECK(v->explanation == NULL);
            reservoir_seen++;
        }
        if (v->need_choice) {
            send(s, SIM_IN_CHOOSE, v->trial->correct_choice);
        } else if (v->need_rating && v->rating == 0) {
            send(s, SIM_IN_RATE, 4);
        } else {
            send(s, SIM_IN_CONTINUE, 0);
        }
    }
    CHECK_INT(catch_seen, 2);
    /* the run ends at the failed catch trial of the second session */
    CHECK(reservoir_seen >= 7 && reservoir_seen <= 14);
    CHECK_INT(sql_int(store, "SELECT MAX(r.seq) = (SELECT t.seq FROM trial t "
                             "WHERE t.is_catch AND t.block_id = 's2-test') "
                             "FROM response r"),
              1);
    CHECK_INT(session_view(s)->screen, SCREEN_SCREENED_OUT);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT status || ':' || exclusion_reason FROM participant");
    sqlite3_stmt *q;
    sqlite3_prepare_v2(store_db(store), sql, -1, &q, NULL);
    sqlite3_step(q);
    CHECK_STR((const char *)sqlite3_column_text(q, 0), "screened_out:catch");
    sqlite3_finalize(q);
    CHECK_INT(sql_int(store, "SELECT COUNT(*) FROM screening WHERE rule = "
                             "'practice' AND passed = 1"),
              1);
    session_close(s);
    store_close(store);
    st->screening.stop_on_failure = 0;
}

/* The screen of each block kind's steps (and of its examples). One row per
** BlockKind, in enum order. */
static const struct {
    SessionScreen screen, example;
} kind_screens[] = {
    [BLOCK_CONSENT] = {SCREEN_CONSENT, SCREEN_CONSENT},
    [BLOCK_INSTRUCTIONS] = {SCREEN_PAGE, SCREEN_PAGE},
    [BLOCK_QUIZ] = {SCREEN_QUIZ, SCREEN_QUIZ},
    [BLOCK_PRACTICE] = {SCREEN_PREDICT, SCREEN_EXAMPLE},
    [BLOCK_LEARN] = {SCREEN_EXAMPLE, SCREEN_EXAMPLE},
    [BLOCK_PREDICT] = {SCREEN_PREDICT, SCREEN_PREDICT},
    [BLOCK_COUNTERFACTUAL] = {SCREEN_COUNTERFACTUAL, SCREEN_COUNTERFACTUAL},
    [BLOCK_RATING] = {SCREEN_RATING, SCREEN_RATING},
    [BLOCK_BREAK] = {SCREEN_BREAK, SCREEN_BREAK},
    [BLOCK_DEBRIEF] = {SCREEN_PAGE, SCREEN_PAGE},
    [BLOCK_QUESTIONNAIRE] = {SCREEN_QUESTIONNAIRE, SCREEN_QUESTIONNAIRE},
    [BLOCK_VERIFY] = {SCREEN_VERIFY, SCREEN_VERIFY},
    [BLOCK_DECIDE] = {SCREEN_DECIDE, SCREEN_DECIDE},
};

_Static_assert(sizeof kind_screens / sizeof *kind_screens == BLOCK_KIND_COUNT,
               "a row for every block kind");

/* Runs one participant of st in condition through the whole study with
** the model policy; every step screen is its block kind's. seen[k] counts
** the steps of kind k. */
static void run_kinds(const Study *st, const char *db, const char *condition,
                      int *seen)
{
    Store *store = open_db(st, db);
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = condition;
    e.seed = 7;
    e.wall_ms = 5000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 5000, &s, &err), SIM_OK);
    Policy policy;
    policy_init(&policy, POLICY_MODEL, st, &st->simulation, 1, 2);
    int guard = 0;
    while (s && !session_finished(s) && guard++ < 10000) {
        show(s);
        const SessionView *v = session_view(s);
        if (v->screen != SCREEN_FEEDBACK && v->trial) {
            const Block *b = v->block;
            SessionScreen want = v->trial->is_example
                                     ? kind_screens[b->kind].example
                                     : kind_screens[b->kind].screen;
            if (v->screen != want) {
                fprintf(stderr, "%s: block '%s' (%s): screen %s, not %s\n",
                        st->id, b->id, block_kind_name(b->kind),
                        session_screen_name(v->screen),
                        session_screen_name(want));
            }
            CHECK_INT(v->screen, want);
            CHECK_INT(v->ask_counterfactual,
                      v->trial->item_key && want == SCREEN_COUNTERFACTUAL);
            CHECK_INT(v->question != NULL, want == SCREEN_QUIZ);
            seen[b->kind]++;
        }
        SimInput in;
        if (policy_next_input(&policy, v, &T, &in) != 0) {
            break;
        }
        in.wall_ms = T / 1000000;
        send_input(s, &in);
    }
    CHECK(s && session_finished(s));
    session_close(s);
    store_close(store);
}

static void test_kind_screens(const Study *meta)
{
    int seen[BLOCK_KIND_COUNT] = {0};
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bundles/valid-all", SIMLAB_TEST_DATA);
    Study *all = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    CHECK_INT(study_load(dir, &all, &rep, &err), SIM_OK);
    study_report_free(&rep);
    if (all) {
        run_kinds(all, "kinds-all.db", "mix", seen);
    }
    run_kinds(meta, "kinds-meta.db", "grad", seen);
    Study *quest = test_study_load("mini-questionnaire");
    CHECK(quest != NULL);
    if (quest) {
        run_kinds(quest, "kinds-quest.db", "baseline", seen);
    }
    study_free(quest);
    Study *verify = test_study_load("mini-verify");
    CHECK(verify != NULL);
    if (verify) {
        run_kinds(verify, "kinds-verify.db", "grad", seen);
    }
    study_free(verify);
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        if (!seen[k]) {
            fprintf(stderr, "no step of a %s block was shown\n",
                    block_kind_name((BlockKind)k));
        }
        CHECK(seen[k] > 0);
    }
    study_free(all);
}

/* A reservoir of 70 items (no fixed limit), a block of catch trials only
** ("n": 0) and a catch trial in a counterfactual block: the reservoir item
** shown unchanged, its answer the model's output on it. */
static void test_catch_session(Study *st)
{
    Store *store = open_db(st, "catch.db");
    if (!store) {
        CHECK(0);
        return;
    }
    SimError err;
    EnrollSpec e = {0};
    e.condition = "baseline";
    e.seed = 7;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    int per_block[4] = {0}, catches[4] = {0}, big = 0, unchanged = 0;
    int guard = 0;
    while (!session_finished(s) && guard++ < 500) {
        const SessionView *v = session_view(s);
        show(s);
        if (v->trial && v->trial->item_key) {
            per_block[v->trial->block]++;
            catches[v->trial->block] += v->trial->is_catch;
        }
        if (v->screen == SCREEN_PREDICT && v->trial->show.reservoir) {
            CHECK_INT(v->n_reservoir, 70);
            int distinct = 1;
            for (size_t i = 0; i < v->n_reservoir; i++) {
                for (size_t j = 0; j < i; j++) {
                    distinct &= v->reservoir[i] != v->reservoir[j];
                }
            }
            big += v->n_reservoir == 70 && distinct;
        }
        if (v->ask_counterfactual) {
            const Item *it = v->item;
            CHECK_INT(v->cf_unchanged, v->trial->is_catch);
            if (v->trial->is_catch) {
                unchanged++;
                CHECK_INT(v->trial->correct_choice, it->prediction);
                CHECK_STR(it->pool, "learn"); /* from the reservoir */
            } else {
                CHECK_INT(v->trial->correct_choice, it->cf->prediction);
            }
        }
        if (v->need_choice) {
            send(s, SIM_IN_CHOOSE, v->trial->correct_choice);
        } else {
            send(s, SIM_IN_CONTINUE, 0);
        }
    }
    CHECK(session_finished(s));
    CHECK_INT(per_block[0], 70); /* "n": "all" */
    CHECK_INT(per_block[1], 2);  /* two real trials */
    CHECK_INT(per_block[2], 3);  /* catch trials only */
    CHECK_INT(catches[2], 3);
    CHECK_INT(per_block[3], 5); /* four counterfactuals and a catch trial */
    CHECK_INT(catches[3], 1);
    CHECK_INT(unchanged, 1);
    CHECK_INT(big, 2);
    /* the export's model output of the counterfactual catch trial is the
    ** model's output on the unchanged input */
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM long_format WHERE participant = '%s' AND "
             "block = 'cf' AND is_catch = 1 AND correct = 1 AND "
             "model_output = label",
             info.id);
    CHECK_INT(sql_int(store, sql), 1);
    session_close(s);
    store_close(store);
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "session");
    Study *fwd = test_study_load("mini-forward");
    Study *meta = test_study_load("mini-meta");
    CHECK(fwd && meta);
    if (fwd && meta) {
        test_schema(fwd);
        test_assignment(meta);
        test_hase_rule(fwd);
        test_forward_session(fwd);
        test_interruptions(fwd);
        test_load_schedule_nomem(fwd);
        test_meta_session(meta);
        test_kind_screens(meta);
    }
    Study *catch_study = test_study_load("mini-catch");
    CHECK(catch_study != NULL);
    if (catch_study) {
        test_catch_session(catch_study);
    }
    study_free(catch_study);
    study_free(fwd);
    study_free(meta);
    test_rmtree(tmp);
    return TEST_REPORT();
}
