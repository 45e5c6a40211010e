/*
** Sync against a real server set up the old way (run by tests/pg/run.sh
** inside pg_virtualenv, which sets SIMLAB_PG_URL; skipped without it): a
** warning says so; duplicate pushes change nothing, later local changes
** reach the server, stations enrolling at the same instant stay within one
** participant per condition with nothing lost or doubled, participants in
** progress count by the server's clock whatever the stations' clocks say,
** an unreachable server falls back to local assignment (recorded, without
** the password), and a changed bundle is refused unless accepted.
** tests/pg/test_pg_secure.c tests a server with station roles.
*/
#include "tests/harness.h"
#include "tests/test_util.h"
#include "tests/pg/pg_util.h"

#include "experiment/simulate.h"
#include "experiment/store.h"
#include "experiment/sync.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>

#define BUNDLE SIMLAB_SOURCE_DIR "/assets/studies/text-forward"

static const char *url;
static char tmp[256];

static long pg_long(const char *sql)
{
    return pg_long_at(url, sql);
}

static const char *const TABLES[] = {
    "study", "item", "participant", "trial", "response", "screening", "event"};

/* Every table of the file has as many rows on the server (its origin). */
static void check_same_rows(const char *path)
{
    char origin[64] = "", sql[256];
    sqlite3 *db;
    sqlite3_stmt *s;
    sqlite3_open(path, &db);
    if (sqlite3_prepare_v2(db, "SELECT uuid FROM sync_origin", -1, &s, NULL) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        snprintf(origin, sizeof origin, "%s", sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++) {
        if (i < 2) { /* study and item rows are shared by files */
            snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", TABLES[i]);
            CHECK(pg_long(sql) >= lite_long(path, sql));
            continue;
        }
        if (i == 3 || i == 4) { /* no origin column use: by participant */
            snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM %s t JOIN participant p ON p.id = "
                     "t.participant WHERE p.origin = '%s'",
                     TABLES[i], origin);
        } else {
            snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM %s WHERE origin = '%s'", TABLES[i],
                     origin);
        }
        char local[128];
        snprintf(local, sizeof local, "SELECT count(*) FROM %s", TABLES[i]);
        long want = lite_long(path, local);
        CHECK(want > 0 || i >= 4); /* enrolled only: no responses */
        if (pg_long(sql) != want) {
            fprintf(stderr, "table %s\n", TABLES[i]);
        }
        CHECK_INT(pg_long(sql), want);
    }
}

static void simulate_file(const char *path, const char *station, int n,
                          uint64_t seed)
{
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = BUNDLE;
    o.db_path = path;
    o.participants = n;
    o.policy = POLICY_MIXED;
    o.seed = seed;
    o.station = station;
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1800000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
}

static void test_duplicate_pushes(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/dup.db", tmp);
    simulate_file(path, "dup", 3, 7);
    SyncConn *c = NULL;
    SimError err;
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    /* the test's role owns the tables: a server set up the old way */
    CHECK(strstr(sync_warning(c), "old way") != NULL);
    SyncPushStats st;
    CHECK_INT(sync_push(c, path, 0, 100, 1, &st, &err), SIM_OK);
    CHECK(st.rows > 300);
    CHECK(st.batches > 3);
    CHECK_INT(st.pending, 0);
    check_same_rows(path);
    /* nothing new: nothing sent */
    CHECK_INT(sync_push(c, path, 0, 100, 2, &st, &err), SIM_OK);
    CHECK_INT(st.rows, 0);
    /* everything again (as after a crash before the marks were cleared):
    ** the same rows, none doubled */
    long before = pg_long("SELECT count(*) FROM response");
    CHECK_INT(lite_exec(path, "UPDATE participant SET sync_dirty = 1;"
                              "UPDATE response SET sync_dirty = 1;"
                              "UPDATE event SET sync_dirty = 1;"),
              SQLITE_OK);
    CHECK_INT(sync_push(c, path, 0, 0, 3, &st, &err), SIM_OK);
    CHECK(st.rows > 100);
    CHECK_INT(pg_long("SELECT count(*) FROM response"), before);
    check_same_rows(path);
    /* a later change of a pushed row goes again */
    CHECK_INT(lite_exec(path, "UPDATE participant SET excluded = 1, "
                              "exclusion_reason = 'late' WHERE rowid = 1"),
              SQLITE_OK);
    CHECK_INT(lite_long(path, "SELECT sync_dirty FROM participant WHERE "
                              "rowid = 1"),
              1);
    CHECK_INT(sync_push(c, path, 0, 0, 4, &st, &err), SIM_OK);
    CHECK_INT(st.rows, 1);
    CHECK_INT(pg_long("SELECT count(*) FROM participant WHERE "
                      "exclusion_reason = 'late'"),
              1);
    sync_close(c);
}

/* ---------------------------------------------- enrolling at one instant */

#define N_STATIONS  6
#define PER_STATION 8

static pthread_barrier_t barrier;
static const Study *shared_study;

typedef struct Station {
    int index;
    int pilot; /* pilots are counted apart: a second, independent run */
    char path[400];
    int rc;
} Station;

static void *station_main(void *arg)
{
    Station *s = arg;
    char name[16];
    snprintf(name, sizeof name, "st%d%s", s->index, s->pilot ? "p" : "");
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = s->path;
    os.study = shared_study;
    os.station = name;
    os.durability = DURABILITY_FAST;
    os.wall_ms = 1900000000000LL;
    Store *store = NULL;
    SyncConn *c = NULL;
    SimError err;
    s->rc = store_open_spec(&os, &store, &err);
    if (s->rc == SIM_OK) {
        s->rc = sync_connect(url, &tclock, &c, &err);
    }
    pthread_barrier_wait(&barrier);
    for (int i = 0; s->rc == SIM_OK && i < PER_STATION; i++) {
        EnrollSpec e;
        memset(&e, 0, sizeof e);
        e.wall_ms = 1900000000000LL + i; /* all active, all recent */
        e.pilot = s->pilot;
        ParticipantInfo info;
        s->rc = sync_enroll(c, store, shared_study, &e, &info, &err);
    }
    if (s->rc != SIM_OK) {
        fprintf(stderr, "station %d: %s\n", s->index, err.msg);
    }
    if (s->rc == SIM_OK) {
        s->rc = sync_push(c, s->path, 0, 0, 1, NULL, &err);
    }
    sync_close(c);
    store_close(store);
    return NULL;
}

/* N_STATIONS threads enroll PER_STATION participants each (pilot or
** not) at the same instant, each in its own file. */
static void run_stations(const Study *study, int pilot)
{
    shared_study = study;
    Station st[N_STATIONS];
    pthread_t th[N_STATIONS];
    pthread_barrier_init(&barrier, NULL, N_STATIONS);
    for (int i = 0; i < N_STATIONS; i++) {
        st[i].index = i;
        st[i].pilot = pilot;
        snprintf(st[i].path, sizeof st[i].path, "%s/st%d%s.db", tmp, i,
                 pilot ? "p" : "");
        pthread_create(&th[i], NULL, station_main, &st[i]);
    }
    for (int i = 0; i < N_STATIONS; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(st[i].rc, SIM_OK);
    }
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < N_STATIONS; i++) {
        CHECK_INT(lite_long(st[i].path, "SELECT count(*) FROM participant "
                                        "WHERE assign_source = 'server'"),
                  PER_STATION);
        check_same_rows(st[i].path);
    }
}

/* Count of server rows: SELECT count(*) FROM participant WHERE pilot = ?
** AND simulated = 0 AND (extra). */
static long count_where(int pilot, const char *extra)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM participant WHERE pilot = %d AND "
             "simulated = 0 AND %s",
             pilot, extra);
    return pg_long(sql);
}

static void test_same_instant(Study *study)
{
    /* balanced: within one participant per condition, nothing lost or
    ** doubled */
    AssignRule rule = study->assignment.rule;
    study->assignment.rule = ASSIGN_BALANCED;
    run_stations(study, 0);
    study->assignment.rule = rule;
    CHECK_INT(count_where(0, "true"), N_STATIONS * PER_STATION);
    CHECK_INT(pg_long("SELECT count(DISTINCT id) FROM participant WHERE "
                      "pilot = 0 AND simulated = 0"),
              N_STATIONS * PER_STATION);
    CHECK_INT(count_where(0, "assign_source = 'server' AND assigned_by = "
                             "'balanced'"),
              N_STATIONS * PER_STATION);
    long spread = pg_long("SELECT max(n) - min(n) FROM (SELECT count(*) n "
                          "FROM participant WHERE pilot = 0 AND simulated = "
                          "0 GROUP BY condition) x");
    CHECK(spread >= 0 && spread <= 1);
    CHECK_INT(pg_long("SELECT count(DISTINCT condition) FROM participant "
                      "WHERE pilot = 0 AND simulated = 0"),
              (long)study->n_conditions);
    /* Hase (the bundle's rule, min_complete 3, then Composite), on pilot
    ** participants: exactly min_complete in each condition before any
    ** goes to then */
    CHECK(rule == ASSIGN_HASE);
    run_stations(study, 1);
    CHECK_INT(count_where(1, "true"), N_STATIONS * PER_STATION);
    for (size_t c = 0; c < study->n_conditions; c++) {
        char extra[128];
        snprintf(extra, sizeof extra, "condition = '%s'",
                 study->conditions[c].id);
        long want = study->assignment.min_complete;
        if (strcmp(study->conditions[c].id, study->assignment.then_condition) ==
            0) {
            want = N_STATIONS * PER_STATION -
                   (long)(study->n_conditions - 1) * want;
        }
        CHECK_INT(count_where(1, extra), want);
    }
    /* the start screen's preview counts every station: then, for pilots;
    ** and for real participants one of the least filled (all equal) */
    SyncConn *c = NULL;
    SimError err;
    char cond[64];
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    CHECK_INT(sync_assign_preview(c, study, 1, 0, 1900000000000LL, 5, cond,
                                  sizeof cond, &err),
              SIM_OK);
    CHECK_STR(cond, study->assignment.then_condition);
    long before = pg_long("SELECT count(*) FROM participant");
    CHECK_INT(sync_assign_preview(c, study, 0, 0, 1900000000000LL, 5, cond,
                                  sizeof cond, &err),
              SIM_OK);
    CHECK(study_condition_index(study, cond) >= 0);
    CHECK_INT(pg_long("SELECT count(*) FROM participant"), before);
    sync_close(c);
}

/* Participants in progress hold their place by the server's clock: a
** station whose clock runs 3 hours ahead still sees those that a station
** 3 hours behind has in progress (by the stations' clocks, they would be 6
** hours old). Pilot and simulated: a group of its own. */
static void test_skew(Study *study)
{
    AssignRule rule = study->assignment.rule;
    study->assignment.rule = ASSIGN_BALANCED;
    const char *names[2] = {"skewY", "skewX"};
    const int64_t shift[2] = {-3 * 3600000LL, 3 * 3600000LL};
    int used[16] = {0};
    for (int st = 0; st < 2; st++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s.db", tmp, names[st]);
        StoreOpenSpec os;
        memset(&os, 0, sizeof os);
        os.path = path;
        os.study = study;
        os.station = names[st];
        os.wall_ms = pgu_real_ms(NULL) + shift[st];
        Store *store = NULL;
        SyncConn *c = NULL;
        SimError err;
        CHECK_INT(store_open_spec(&os, &store, &err), SIM_OK);
        CHECK_INT(sync_conn_new(url, &tclock, &c, &err), SIM_OK);
        int n = st == 0 ? (int)study->n_conditions - 1 : 1;
        for (int i = 0; i < n; i++) {
            EnrollSpec e;
            memset(&e, 0, sizeof e);
            e.pilot = 1;
            e.simulated = 1;
            e.wall_ms = pgu_real_ms(NULL) + shift[st];
            e.assign_seed = (uint64_t)(st * 10 + i + 1);
            ParticipantInfo info;
            CHECK_INT(sync_enroll(c, store, study, &e, &info, &err), SIM_OK);
            int k = study_condition_index(study, info.condition);
            CHECK(k >= 0 && k < 16);
            if (k >= 0 && k < 16) {
                CHECK_INT(used[k], 0); /* every condition once */
                used[k] = 1;
            }
        }
        CHECK_INT(lite_long(path, "SELECT count(*) FROM participant WHERE "
                                  "assign_source = 'server'"),
                  n);
        sync_close(c);
        store_close(store);
    }
    study->assignment.rule = rule;
}

static void test_fallback(const Study *study)
{
    char path[400];
    snprintf(path, sizeof path, "%s/fallback.db", tmp);
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = path;
    os.study = study;
    os.station = "field";
    os.wall_ms = 1900000000000LL;
    Store *store = NULL;
    SyncConn *c = NULL;
    SimError err;
    CHECK_INT(store_open_spec(&os, &store, &err), SIM_OK);
    CHECK_INT(sync_conn_new("postgresql://lab:s3cret@127.0.0.1:1/none", &tclock,
                            &c, &err),
              SIM_OK);
    CHECK_STR(sync_url(c), "postgresql://lab@127.0.0.1:1/none");
    EnrollSpec e;
    memset(&e, 0, sizeof e);
    e.wall_ms = 1900000000000LL;
    ParticipantInfo info;
    CHECK_INT(sync_enroll(c, store, study, &e, &info, &err), SIM_OK);
    CHECK_STR(info.assigned_by, "hase"); /* the bundle's rule, locally */
    store_close(store);
    sync_close(c);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM participant WHERE "
                              "assign_source = 'station_fallback'"),
              1);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM event WHERE kind = "
                              "'assign_fallback' AND detail LIKE "
                              "'%127.0.0.1:1%'"),
              1);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM event WHERE detail LIKE "
                              "'%s3cret%'"),
              0);
    /* pushed later, when the server is back */
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    CHECK_INT(sync_push(c, path, 0, 0, 1, NULL, &err), SIM_OK);
    sync_close(c);
    CHECK_INT(pg_long("SELECT count(*) FROM participant WHERE assign_source "
                      "= 'station_fallback'"),
              1);
}

/* A station file recorded before sync existed (schema version 2) migrates
** with every row marked, and all of it reaches the server. */
static void test_old_file(void)
{
    char fixture[512], path[400], cmd[1200];
    snprintf(fixture, sizeof fixture, "%s/experiment/store-v2.sql",
             SIMLAB_TEST_DATA);
    snprintf(path, sizeof path, "%s/v2.db", tmp);
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' < '%s'", path, fixture);
    if (system(cmd) != 0) {
        printf("old file: skipped (no sqlite3 shell)\n");
        return;
    }
    Study *mini = NULL;
    SimError err;
    CHECK_INT(study_load(SIMLAB_TEST_DATA "/experiment/mini-forward", &mini,
                         NULL, &err),
              SIM_OK);
    Store *store = NULL;
    CHECK_INT(store_open(path, mini, DURABILITY_FULL, 0, 2000, &store, &err),
              SIM_OK);
    store_close(store);
    study_free(mini);
    CHECK_INT(lite_long(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM response WHERE "
                              "sync_dirty = 0"),
              0);
    CHECK(lite_long(path, "SELECT count(*) FROM response") > 0);
    SyncConn *c = NULL;
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    SyncPushStats st;
    CHECK_INT(sync_push(c, path, 0, 0, 1, &st, &err), SIM_OK);
    CHECK_INT(st.pending, 0);
    sync_close(c);
    check_same_rows(path);
    CHECK_INT(pg_long("SELECT count(*) FROM long_format l JOIN participant "
                      "p ON p.id = l.participant JOIN study s ON s.hash = "
                      "p.study_hash WHERE s.study_id = 'mini-forward'"),
              lite_long(path, "SELECT count(*) FROM long_format"));
}

static void test_changed_bundle(Study *study)
{
    char path[400];
    snprintf(path, sizeof path, "%s/changed.db", tmp);
    char saved = study->hash[0];
    study->hash[0] = saved == 'a' ? 'b' : 'a'; /* another version */
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = path;
    os.study = study;
    os.station = "other";
    os.wall_ms = 1900000000000LL;
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open_spec(&os, &store, &err), SIM_OK);
    EnrollSpec e;
    memset(&e, 0, sizeof e);
    e.wall_ms = 1900000000000LL;
    CHECK_INT(store_enroll(store, &e, NULL, &err), SIM_OK);
    store_close(store);
    study->hash[0] = saved;
    SyncConn *c = NULL;
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    long before = pg_long("SELECT count(*) FROM participant");
    CHECK_INT(sync_push(c, path, 0, 0, 1, NULL, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "--accept-changed-bundle") != NULL);
    CHECK(strstr(err.msg, "bundle hash") != NULL);
    CHECK_INT(pg_long("SELECT count(*) FROM participant"), before);
    CHECK_INT(sync_push(c, path, 1, 0, 1, NULL, &err), SIM_OK);
    CHECK_INT(pg_long("SELECT count(*) FROM participant"), before + 1);
    CHECK_INT(pg_long("SELECT count(*) FROM sync_log WHERE kind = "
                      "'bundle_accepted'"),
              1);
    sync_close(c);
}

int main(void)
{
    url = getenv("SIMLAB_PG_URL");
    if (!url || !*url) {
        printf("skipped: SIMLAB_PG_URL is not set (tests/pg/run.sh sets it "
               "inside pg_virtualenv)\n");
        return SIM_TEST_SKIP;
    }
    test_tmpdir(tmp, sizeof tmp, "pgsync");
    Study *study = NULL;
    SimError err;
    CHECK_INT(study_load(BUNDLE, &study, NULL, &err), SIM_OK);
    test_duplicate_pushes();
    test_same_instant(study);
    test_skew(study);
    test_fallback(study);
    test_old_file();
    test_changed_bundle(study);
    study_free(study);
    test_rmtree(tmp);
    return TEST_REPORT();
}
