/*
** Explanations on request and on hover in the session and the store, with
** scripted inputs and fake times (fixture tests/data/experiment/
** mini-on-request): hidden until the button or its key, hidden again, the
** hovered value by pointer and by Tab; every event recorded with its time
** from the onset in the step's transaction (none for a step cut off before
** its answer, whose resumed attempt records its own); simulated
** participants reveal with the study's reveal_p; the export writes them to
** X.interactions.csv with the sidecar.
*/
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "common/sim_alloc.h"
#include "experiment/export.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"

#include <jansson.h>
#include <sqlite3.h>

static char tmp[256];
static int64_t T = 1000000000; /* fake monotonic clock, ns */
#define MS 1000000LL

static int send(Session *s, SimInputKind kind, int value, const char *key)
{
    SimInput in = {kind, value, key, T, 2000 + T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

/* Enrolls a participant of condition cond and opens its session at the
** first step (shown at T); the step's onset is returned in *onset. */
static Session *start(Store *store, const Study *st, const char *cond,
                      char *pid, int64_t *onset)
{
    SimError err;
    EnrollSpec es;
    memset(&es, 0, sizeof es);
    es.condition = cond;
    es.seed = 5;
    es.assign_seed = 5;
    es.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &es, &info, &err), SIM_OK);
    snprintf(pid, 37, "%s", info.id);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    T += 16 * MS;
    if (s) {
        session_mark_onset(s, T);
    }
    *onset = T;
    return s;
}

typedef struct Events {
    char text[2048];
} Events;

static void add_event(const char *event, const char *target, double t_ms,
                      int attempt, void *ctx)
{
    Events *e = ctx;
    size_t n = strlen(e->text);
    snprintf(e->text + n, sizeof e->text - n, "%s%s@%.0f%s%s#%d", n ? " " : "",
             event, t_ms, target[0] ? ":" : "", target, attempt);
}

static void events_of(Store *store, const char *pid, int seq, Events *e)
{
    SimError err;
    e->text[0] = '\0';
    CHECK_INT(store_get_interactions(store, pid, seq, add_event, e, &err),
              SIM_OK);
}

static void test_on_request(const Study *st, Store *store)
{
    char pid[37];
    int64_t onset;
    Session *s = start(store, st, "rationale", pid, &onset);
    if (!s) {
        return;
    }
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK(v->explanation && v->explanation->reveal == EXPL_REVEAL_ON_REQUEST);
    CHECK_INT(v->revealed, 0);
    CHECK_STR(v->reveal_key, "e");
    T = onset + 500 * MS; /* the key shows it */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "e"), 1);
    CHECK_INT(session_view(s)->revealed, 1);
    T = onset + 900 * MS; /* and hides it */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "E"), 1);
    CHECK_INT(session_view(s)->revealed, 0);
    T = onset + 1200 * MS; /* the button */
    CHECK_INT(send(s, SIM_IN_REVEAL, SESSION_REVEAL(-1, 1), NULL), 1);
    CHECK_INT(send(s, SIM_IN_REVEAL, SESSION_REVEAL(-1, 1), NULL), 0);
    CHECK_INT(send(s, SIM_IN_HOVER, 0, NULL), 0); /* no hover values */
    CHECK_INT(send(s, SIM_IN_REVEAL, SESSION_REVEAL(0, 1), NULL), 0);
    Events e;
    events_of(store, pid, 0, &e);
    CHECK_STR(e.text, ""); /* nothing stored before the answer */
    T = onset + 2000 * MS;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "p"), 1); /* the answer commits them */
    events_of(store, pid, 0, &e);
    CHECK_STR(e.text, "offer@0#1 reveal@500#1 hide@900#1 reveal@1200#1");
    /* the next step starts hidden */
    CHECK_INT(session_view(s)->revealed, 0);
    /* cut off before its answer: nothing stored; the resumed attempt
    ** records its own events */
    T += 16 * MS;
    session_mark_onset(s, T);
    int64_t on2 = T;
    T = on2 + 300 * MS;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "e"), 1);
    session_close(s);
    events_of(store, pid, 1, &e);
    CHECK_STR(e.text, "");
    SimError err;
    s = NULL;
    CHECK_INT(session_open(store, st, pid, 3000, &s, &err), SIM_OK);
    if (!s) {
        return;
    }
    CHECK_INT(session_view(s)->revealed, 0);
    T += 16 * MS;
    session_mark_onset(s, T);
    on2 = T;
    T = on2 + 700 * MS;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "n"), 1);
    events_of(store, pid, 1, &e);
    CHECK_STR(e.text, "offer@0#1");
    session_close(s);
}

static void test_hover(const Study *st, Store *store)
{
    char pid[37];
    int64_t onset;
    Session *s = start(store, st, "words", pid, &onset);
    if (!s) {
        return;
    }
    const SessionView *v = session_view(s);
    CHECK(v->explanation && v->explanation->reveal == EXPL_REVEAL_HOVER);
    CHECK_INT(v->n_hover, 5); /* "a warm and funny film" */
    CHECK_INT(v->hover_target, -1);
    CHECK_INT(send(s, SIM_IN_KEY, 0, "e"), 0); /* not on request */
    T = onset + 100 * MS;
    CHECK_INT(send(s, SIM_IN_HOVER, 1, NULL), 1); /* the pointer */
    CHECK_INT(session_view(s)->hover_target, 1);
    CHECK_INT(send(s, SIM_IN_HOVER, 1, NULL), 0);
    CHECK_INT(send(s, SIM_IN_HOVER, 9, NULL), 0); /* no such value */
    T = onset + 250 * MS;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "tab"), 1); /* focus: the next */
    CHECK_INT(session_view(s)->hover_target, 2);
    T = onset + 400 * MS;
    CHECK_INT(send(s, SIM_IN_HOVER, -1, NULL), 1); /* off every value */
    T = onset + 800 * MS;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "p"), 1);
    Events e;
    events_of(store, pid, 0, &e);
    CHECK_STR(e.text, "offer@0#1 hover@100:warm#1 unhover@250:warm#1 "
                      "hover@250:and#1 unhover@400:and#1");
    session_close(s);
}

/* The baseline keeps no events; simulated participants look with the
** study's reveal_p (0.5 here), and with 0 never, with 1 always. */
static void test_simulated(const Study *st, Store *store)
{
    sqlite3 *db = store_db(store);
    sqlite3_stmt *q;
    int before = 0;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM interaction", -1, &q,
                           NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        before = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
    const double ps[3] = {0, 1, 0.5};
    int reveals[3] = {0, 0, 0}, offers[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        SimulationSpec spec = st->simulation;
        spec.reveal_p = ps[k];
        for (int rep = 0; rep < 8; rep++) {
            char pid[37];
            int64_t onset;
            Session *s = start(store, st, "rationale", pid, &onset);
            if (!s) {
                return;
            }
            Policy pol;
            policy_init(&pol, POLICY_MODEL, st, &spec, 1, 100 + (uint64_t)rep);
            for (int guard = 0; guard < 100 && !session_finished(s); guard++) {
                const SessionView *v = session_view(s);
                if (!v->onset_marked) {
                    T += 16 * MS;
                    session_mark_onset(s, T);
                    v = session_view(s);
                }
                SimInput in;
                if (policy_next_input(&pol, v, &T, &in) != 0) {
                    break;
                }
                in.wall_ms = 2000;
                session_handle(s, &in, NULL, NULL);
            }
            CHECK(session_finished(s));
            session_close(s);
            sqlite3_stmt *c;
            if (sqlite3_prepare_v2(db,
                                   "SELECT SUM(event = 'offer'), SUM(event = "
                                   "'reveal') FROM interaction WHERE "
                                   "participant = ?",
                                   -1, &c, NULL) == SQLITE_OK) {
                sqlite3_bind_text(c, 1, pid, -1, SQLITE_STATIC);
                if (sqlite3_step(c) == SQLITE_ROW) {
                    offers[k] += sqlite3_column_int(c, 0);
                    reveals[k] += sqlite3_column_int(c, 1);
                }
            }
            sqlite3_finalize(c);
        }
    }
    CHECK_INT(offers[0], 32); /* 8 participants x 4 predictions */
    CHECK_INT(reveals[0], 0);
    CHECK_INT(reveals[1], 32);
    CHECK(reveals[2] > 4 && reveals[2] < 28);
    CHECK(before > 0);
    CHECK_NEAR(st->simulation.reveal_p, 0.5, 1e-12);
}

static void test_export(const char *db_path)
{
    char csv[512], icsv[512], side[512];
    snprintf(csv, sizeof csv, "%s/out.csv", tmp);
    snprintf(icsv, sizeof icsv, "%s/out.interactions.csv", tmp);
    snprintf(side, sizeof side, "%s/out.csv.json", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db_path, csv, &err), SIM_OK);
    FILE *f = fopen(icsv, "rb");
    CHECK(f != NULL);
    char line[1024] = "";
    int rows = 0;
    if (f) {
        CHECK(fgets(line, sizeof line, f) != NULL);
        CHECK_STR(line, "participant,condition,block,trial,item,attempt,n,"
                        "event,target,t_ms,station\r\n");
        while (fgets(line, sizeof line, f)) {
            rows++;
        }
        fclose(f);
    }
    json_t *root = json_load_file(side, 0, NULL);
    json_t *x = json_object_get(root, "interactions");
    CHECK(x != NULL);
    CHECK_INT((int)json_integer_value(json_object_get(x, "rows")), rows);
    CHECK_STR(json_string_value(json_object_get(x, "file")),
              "out.interactions.csv");
    CHECK_INT((int)json_array_size(json_object_get(x, "columns")), 11);
    json_decref(root);
    char *p = export_interactions_path("dir/a.csv");
    CHECK_STR(p, "dir/a.interactions.csv");
    sim_free(p);
}

int main(void)
{
    Study *st = test_study_load("mini-on-request");
    CHECK(st != NULL);
    if (!st) {
        return TEST_REPORT();
    }
    test_tmpdir(tmp, sizeof tmp, "reveal");
    char path[512];
    snprintf(path, sizeof path, "%s/r.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (store) {
        test_on_request(st, store);
        test_hover(st, store);
        test_simulated(st, store);
        store_close(store);
        test_export(path);
    }
    study_free(st);
    test_rmtree(tmp);
    return TEST_REPORT();
}
