/*
** Per-item answer options through the session state machine: a
** hive-distinction study (the starter of `simlab new`) offers each test
** item's four candidates in a recorded order with keys 1-4, its
** per-option evidence beside each candidate in the screen model; the
** answer is stored as the class, the order survives a resume, the export
** writes n_options and options_shown; a study of 1,000 classes shows four
** buttons; simulated participants answer option trials.
*/
#include "tests/harness.h"
#include "tests/test_stimuli_fs.h"
#include "tests/test_util.h"

#include "experiment/export.h"
#include "experiment/screen_model.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/scaffold.h"
#include "stimuli/study.h"

#include <sqlite3.h>

static char tmp[256];
static int64_t T = 1000000000;

#define MS 1000000LL

static int send(Session *s, SimInputKind kind, int value, const char *key)
{
    T += 700 * MS;
    SimInput in = {kind, value, key, T, 2000 + T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    session_mark_onset(s, T);
    return consumed;
}

static Study *load(const char *dir)
{
    Study *st = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    if (study_load(dir, &st, &rep, &err) != SIM_OK) {
        for (size_t i = 0; i < rep.n_errors; i++) {
            study_diag_print(stderr, "  ", &rep.errors[i]);
        }
    }
    study_report_free(&rep);
    return st;
}

static char *sql_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
        v = strdup((const char *)sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
    return v;
}

static int sql_int(sqlite3 *db, const char *sql)
{
    char *t = sql_text(db, sql);
    int v = t ? atoi(t) : -1;
    free(t);
    return v;
}

/* Moves on (Continue, or option 1 of a practice item) until the screen
** is a prediction of block id. */
static void advance_to(Session *s, const char *block)
{
    for (int i = 0; i < 40 && !session_finished(s); i++) {
        const SessionView *v = session_view(s);
        if (v->screen == SCREEN_PREDICT && v->block &&
            strcmp(v->block->id, block) == 0) {
            return;
        }
        if (v->need_choice) {
            send(s, SIM_IN_KEY, 0, "1");
        } else {
            send(s, SIM_IN_CONTINUE, 0, NULL);
        }
    }
}

static Session *start(Store *store, const Study *st, int seed, char *pid)
{
    SimError err;
    EnrollSpec es;
    memset(&es, 0, sizeof es);
    es.condition = st->conditions[0].id;
    es.seed = (uint64_t)seed;
    es.assign_seed = (uint64_t)seed;
    es.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &es, &info, &err), SIM_OK);
    snprintf(pid, 37, "%s", info.id);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    if (s) {
        T += 16 * MS;
        session_mark_onset(s, T);
    }
    return s;
}

/* The options of v as "id|id|..." into out. */
static void options_of(const Study *st, const SessionView *v, char *out,
                       size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < v->n_options && len < n; i++) {
        int w = snprintf(out + len, n - len, "%s%s", i ? "|" : "",
                         st->classes[v->options[i]].id);
        len += w > 0 ? (size_t)w : 0;
    }
}

static void test_distinction(const Study *st, const char *db_path)
{
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(db_path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    char pid[37];
    Session *s = start(store, st, 11, pid);
    if (!s) {
        store_close(store);
        return;
    }
    /* practice offers the options too, with feedback */
    advance_to(s, "practice");
    const SessionView *v = session_view(s);
    CHECK_INT((int)v->n_options, 4);
    advance_to(s, "test");
    v = session_view(s);
    CHECK(v->screen == SCREEN_PREDICT && v->n_options == 4);
    if (v->n_options != 4) {
        session_close(s);
        store_close(store);
        return;
    }
    const Item *item = v->item;
    int seq = v->trial->seq;
    char shown[256];
    options_of(st, v, shown, sizeof shown);

    /* the screen model: four buttons keyed 1-4 in the order offered, the
    ** per-option evidence in the same order, titled with key and label */
    ScreenModel *m = screen_model_new();
    ScreenContext cx = {st, st->ui_strings, SCREEN_DESKTOP, NULL, 0, 0};
    CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
    CHECK(m->choice && m->choice->n_options == 4);
    CHECK(m->area && m->area->expl && m->area->expl->per_option &&
          m->area->expl->n_parts == 4);
    for (size_t i = 0; m->choice && i < m->choice->n_options; i++) {
        char key[24], title[160];
        snprintf(key, sizeof key, "%zu", i + 1);
        CHECK_STR(m->choice->options[i].key, key);
        CHECK_STR(m->choice->options[i].label,
                  st->classes[v->options[i]].label);
        snprintf(title, sizeof title, "%zu \xc2\xb7 %s", i + 1,
                 st->classes[v->options[i]].label);
        if (m->area && m->area->expl && i < m->area->expl->n_parts) {
            CHECK_STR(m->area->expl->parts[i].title, title);
        }
    }
    int keys = 0;
    for (size_t i = 0; i < m->n_keys; i++) {
        keys += strlen(m->keys[i]) == 1 && m->keys[i][0] >= '1' &&
                m->keys[i][0] <= '9';
    }
    CHECK_INT(keys, 4);
    CHECK_INT(m->choice ? m->choice->value : 0, -1);
    screen_model_free(m);

    /* a key past the options and a class's own key do nothing */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "5"), 0);
    CHECK_INT(send(s, SIM_IN_CHOOSE, 4, NULL), 0);
    CHECK_INT(session_view(s)->trial->seq, seq);

    /* a resume offers the same order */
    session_close(s);
    CHECK_INT(session_open(store, st, pid, 5000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    v = session_view(s);
    char again[256];
    options_of(st, v, again, sizeof again);
    CHECK_STR(again, shown);
    CHECK(v->item == item);

    /* key 3: the third option, stored as its class */
    int third = v->options[2];
    T += 16 * MS;
    session_mark_onset(s, T);
    CHECK_INT(send(s, SIM_IN_KEY, 0, "3"), 1);
    CHECK(session_view(s)->trial->seq != seq);
    sqlite3 *db = store_db(store);
    char q[256];
    snprintf(q, sizeof q,
             "SELECT response_id FROM response WHERE participant = '%s' AND "
             "seq = %d",
             pid, seq);
    char *resp = sql_text(db, q);
    CHECK_STR(resp ? resp : "", st->classes[third].id);
    free(resp);
    snprintf(q, sizeof q,
             "SELECT correct FROM response WHERE participant = '%s' AND seq "
             "= %d",
             pid, seq);
    CHECK_INT(sql_int(db, q), third == item->prediction);
    snprintf(q, sizeof q,
             "SELECT options FROM trial WHERE participant = '%s' AND seq = "
             "%d",
             pid, seq);
    char *stored = sql_text(db, q);
    CHECK_STR(stored ? stored : "", shown);
    free(stored);

    /* a click on an option (its index) answers the next trial */
    v = session_view(s);
    int second = v->n_options > 1 ? v->options[1] : -1;
    int next = v->trial->seq;
    CHECK_INT(send(s, SIM_IN_CHOOSE, 1, NULL), 1);
    snprintf(q, sizeof q,
             "SELECT response_id FROM response WHERE participant = '%s' AND "
             "seq = %d",
             pid, next);
    resp = sql_text(db, q);
    CHECK_STR(resp ? resp : "", second >= 0 ? st->classes[second].id : "");
    free(resp);

    /* the rest, then the export */
    for (int i = 0; i < 40 && !session_finished(s); i++) {
        if (session_view(s)->need_choice) {
            send(s, SIM_IN_KEY, 0, "2");
        } else {
            send(s, SIM_IN_CONTINUE, 0, NULL);
        }
    }
    CHECK(session_finished(s));
    /* shuffled per trial: some test trial is not in the item's order */
    snprintf(q, sizeof q,
             "SELECT COUNT(*) FROM long_format WHERE participant = '%s' AND "
             "block = 'test' AND n_options = 4",
             pid);
    CHECK_INT(sql_int(db, q), 8);
    int moved = 0;
    sqlite3_stmt *rows;
    snprintf(q, sizeof q,
             "SELECT item, options_shown FROM long_format WHERE participant "
             "= '%s' AND block = 'test'",
             pid);
    if (sqlite3_prepare_v2(db, q, -1, &rows, NULL) == SQLITE_OK) {
        while (sqlite3_step(rows) == SQLITE_ROW) {
            const Item *it =
                study_find_item(st, (const char *)sqlite3_column_text(rows, 0));
            const char *o = (const char *)sqlite3_column_text(rows, 1);
            char order[256] = "";
            for (size_t k = 0; it && k < it->n_options; k++) {
                size_t l = strlen(order);
                snprintf(order + l, sizeof order - l, "%s%s", k ? "|" : "",
                         st->classes[it->options[k]].id);
            }
            moved += o && strcmp(o, order) != 0;
        }
        sqlite3_finalize(rows);
    }
    CHECK(moved > 0);
    session_close(s);
    store_close(store);

    char csv[600];
    snprintf(csv, sizeof csv, "%s/options.csv", tmp);
    CHECK_INT(export_long_csv(db_path, csv, &err), SIM_OK);
    size_t len = 0;
    char *text = fs_read(csv, &len);
    CHECK(text && strstr(text, ",n_options,options_shown\r\n"));
    char row[300];
    snprintf(row, sizeof row, ",4,%s\r\n", shown);
    CHECK(text && strstr(text, row));
    free(text);
}

/* 1,000 classes, four options per item: four buttons, four keys. */
static void test_imagenet_size(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/inet", tmp);
    mkdir(dir, 0755);
    char *p = fs_join(dir, "classes.csv");
    FILE *f = fopen(p, "w");
    fprintf(f, "id,label\n");
    for (int k = 1; k <= 1000; k++) {
        fprintf(f, "n%05d,Class %d\n", k, k);
    }
    fclose(f);
    free(p);
    p = fs_join(dir, "items.jsonl");
    f = fopen(p, "w");
    for (int i = 0; i < 6; i++) {
        int c = 1 + i * 150;
        fprintf(f,
                "{\"id\": \"x%d\", \"pool\": \"test\", \"input\": \"text %d\", "
                "\"prediction\": \"n%05d\", \"options\": [\"n%05d\", "
                "\"n%05d\", \"n%05d\", \"n%05d\"]}\n",
                i, i, c, c + 1, c, c + 2, c + 3);
    }
    fclose(f);
    free(p);
    p = fs_join(dir, "study.json");
    f = fopen(p, "w");
    fprintf(f, "{\"simlab_study\": 1, \"id\": \"inet\", \"title\": \"I\", "
               "\"classes\": {\"file\": \"classes.csv\"}, \"conditions\": "
               "[{\"id\": \"none\"}], \"blocks\": [{\"kind\": \"predict\", "
               "\"id\": \"test\", \"pool\": \"test\"}], \"items\": "
               "[{\"file\": \"items.jsonl\", \"format\": \"jsonl\", "
               "\"modality\": \"text\"}]}");
    fclose(f);
    free(p);
    Study *st = load(dir);
    CHECK(st && st->n_classes == 1000);
    if (!st) {
        return;
    }
    char db[600];
    snprintf(db, sizeof db, "%s/inet.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(db, st, DURABILITY_FAST, 0, 1000, &store, &err),
              SIM_OK);
    char pid[37];
    Session *s = store ? start(store, st, 3, pid) : NULL;
    if (s) {
        const SessionView *v = session_view(s);
        ScreenModel *m = screen_model_new();
        ScreenContext cx = {st, st->ui_strings, SCREEN_ONLINE, NULL, 0, 0};
        CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
        CHECK(m->choice && m->choice->n_options == 4);
        CHECK(m->n_keys <= 8);
        CHECK_STR(m->choice ? m->choice->options[0].label : "",
                  st->classes[v->options[0]].label);
        screen_model_free(m);
        /* in the item's order: key 2 is the model's output here */
        CHECK_INT(send(s, SIM_IN_KEY, 0, "2"), 1);
        session_close(s);
    }
    store_close(store);
    sqlite3 *h;
    if (sqlite3_open(db, &h) == SQLITE_OK) {
        CHECK_INT(sql_int(h, "SELECT correct FROM response"), 1);
        sqlite3_close(h);
    }
    study_free(st);
}

/* Simulated participants answer option trials: a class among the options
** shown, the model's output as often as p says. */
static void test_simulate(const char *bundle)
{
    char db[600];
    snprintf(db, sizeof db, "%s/sim.db", tmp);
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = 30;
    o.policy = POLICY_MIXED;
    o.seed = 9;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1700000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
    sqlite3 *h;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    CHECK_INT(sql_int(h, "SELECT COUNT(*) FROM long_format WHERE block = "
                         "'test' AND n_options = 4"),
              240);
    CHECK_INT(sql_int(h, "SELECT COUNT(*) FROM long_format WHERE block = "
                         "'test' AND instr('|' || options_shown || '|', "
                         "'|' || response || '|') = 0"),
              0);
    char *acc = sql_text(h, "SELECT AVG(correct) FROM long_format WHERE "
                            "block = 'test'");
    double a = acc ? atof(acc) : 0;
    free(acc);
    CHECK(a > 0.45 && a < 0.75); /* p 0.6 */
    sqlite3_close(h);
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "options");
    char bundle[512], db[600];
    snprintf(bundle, sizeof bundle, "%s/hive", tmp);
    SimError err;
    CHECK_INT(scaffold_write(bundle, "hive-distinction", "image", NULL, &err),
              SIM_OK);
    Study *st = load(bundle);
    CHECK(st != NULL);
    if (st) {
        snprintf(db, sizeof db, "%s/hive.db", tmp);
        test_distinction(st, db);
    }
    study_free(st);
    test_imagenet_size();
    test_simulate(bundle);
    test_rmtree(tmp);
    return TEST_REPORT();
}
