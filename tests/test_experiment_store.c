/*
** The store's schema, migrations and assignment counting against real
** SQLite files: an empty file is created at the current version, a newer
** one is refused, an old database (tests/data/experiment/store-v1.sql)
** opens with its data, is migrated (responses without a station) and takes
** new data (with the station), its schema is the one a new file gets, as is
** that of a version 2 file (store-v2.sql); and the counts that feed
** experiment/assign.h: the activity window at its boundary, dropped-out
** and excluded participants, pilot and simulated participants apart, the
** same tie-break for the same seed.
*/
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "common/sim_alloc.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <sqlite3.h>

static char tmp[256];

static void tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmp, name);
}

static int sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* Creates a database file from SQL text (NULL: an empty file). */
static int make_db(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        return -1;
    }
    char *msg = NULL;
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, &msg) : SQLITE_OK;
    if (msg) {
        fprintf(stderr, "%s: %s\n", path, msg);
        sqlite3_free(msg);
    }
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = 0;
    }
    fclose(f);
    return buf;
}

/* Every schema object (type, name, table, SQL) of db, one per line, in
** name order; the caller frees the text. */
static char *schema_text(sqlite3 *db)
{
    sqlite3_stmt *st;
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    if (!out || sqlite3_prepare_v2(db,
                                   "SELECT type, name, tbl_name, sql FROM "
                                   "sqlite_master ORDER BY name",
                                   -1, &st, NULL) != SQLITE_OK) {
        return out;
    }
    while (sqlite3_step(st) == SQLITE_ROW && len < cap) {
        const unsigned char *sql = sqlite3_column_text(st, 3);
        len += (size_t)snprintf(
            out + len, cap - len, "%s|%s|%s|%s\n", sqlite3_column_text(st, 0),
            sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
            sql ? (const char *)sql : "");
    }
    sqlite3_finalize(st);
    return out;
}

static void test_new_and_newer(const Study *fwd)
{
    char path[512];
    SimError err;
    Store *store = NULL;

    /* an empty file is version 0: created at the current version */
    tmp_path(path, sizeof path, "empty.db");
    CHECK_INT(make_db(path, NULL), 0);
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (store) {
        sqlite3 *db = store_db(store);
        CHECK_INT(sql_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
        /* 4 added answer, 7 sync_origin and sync_state, 8 station_timing,
        ** 9 interaction, 10 online_access and online_secret */
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE "
                              "type = 'table'"),
                  15);
        CHECK_INT(sql_int(db, "SELECT length(secret) FROM online_secret"), 64);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE "
                              "name = 'long_format'"),
                  1);
    }
    store_close(store);

    /* a file from a newer simlab is refused, and left as it was */
    tmp_path(path, sizeof path, "newer.db");
    CHECK_INT(make_db(path, "CREATE TABLE future (x); "
                            "PRAGMA user_version = 99;"),
              0);
    store = NULL;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_ERR_DB);
    CHECK(store == NULL);
    CHECK(strstr(err.msg, "newer") != NULL);
    sqlite3 *db;
    if (sqlite3_open(path, &db) == SQLITE_OK) {
        CHECK_INT(sql_int(db, "PRAGMA user_version"), 99);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM sqlite_master"), 1);
    }
    sqlite3_close(db);

    /* a file that is no database at all */
    tmp_path(path, sizeof path, "junk.db");
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs("not a database, not at all, not even close to one\n", f);
        fclose(f);
    }
    CHECK(store_open(path, fwd, DURABILITY_FULL, 0, 1000, &store, &err) !=
          SIM_OK);
    CHECK(store_open_readonly(path, &store, &err) != SIM_OK);
}

static void test_old_database(const Study *fwd)
{
    char fixture[512], path[512];
    snprintf(fixture, sizeof fixture, "%s/experiment/store-v1.sql",
             SIMLAB_TEST_DATA);
    char *sql = read_text(fixture);
    CHECK(sql != NULL);
    if (!sql) {
        return;
    }
    tmp_path(path, sizeof path, "v1.db");
    CHECK_INT(make_db(path, sql), 0);
    free(sql);

    /* read-only, as export and analysis open it */
    SimError err;
    Store *store = NULL;
    CHECK_INT(store_open_readonly(path, &store, &err), SIM_OK);
    if (store) {
        CHECK_STR(store_study_hash(store), fwd->hash);
        int n = -1;
        CHECK_INT(store_count_complete(store, 1, &n, &err), SIM_OK);
        CHECK_INT(n, 2);
    }
    store_close(store);

    /* read-write with the bundle it was recorded with: migrated to the
    ** current version (old responses have no station, participants are
    ** last active where they were enrolled), no new study row, every
    ** participant and response readable */
    store = NULL;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 2000, &store, &err),
              SIM_OK);
    if (!store) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    sqlite3 *db = store_db(store);
    CHECK_INT(sql_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response WHERE station IS "
                          "NOT NULL"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE "
                          "active_station IS NOT station"),
              0);
    /* their long-format station is the participant's enrolling one */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format l JOIN "
                          "participant p ON p.id = l.participant WHERE "
                          "l.station IS NOT p.station"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM lease"), 1);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM study"), 1);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM event"), 0);
    ParticipantInfo *list = NULL;
    size_t n = 0;
    CHECK_INT(store_list_participants(store, 0, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 2);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(list[i].status, PSTATUS_COMPLETED);
        CHECK_INT(list[i].simulated, 1);
        CHECK(list[i].n_trials > 0 && list[i].n_done == list[i].n_trials);
        Schedule *sch = NULL;
        CHECK_INT(store_load_schedule(store, list[i].id, &sch, &err), SIM_OK);
        CHECK(sch && sch->n_trials == (size_t)list[i].n_trials);
        schedule_free(sch);
        int seq = 0;
        CHECK_INT(store_first_unanswered(store, list[i].id, &seq, &err),
                  SIM_OK);
        CHECK_INT(seq, -1);
        Response r;
        int found = 0;
        CHECK_INT(store_get_response(store, list[i].id, 0, &r, &found, &err),
                  SIM_OK);
        CHECK_INT(found, 1);
        CHECK_INT(r.done, 1);
    }
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format"), 50);

    /* ... and it takes new data: enrollment, a response, an event */
    EnrollSpec e = {0};
    e.simulated = 1;
    e.wall_ms = 3000;
    e.seed = 5;
    e.assign_seed = 5;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    CHECK_STR(info.assigned_by, "balanced");
    Response r;
    memset(&r, 0, sizeof r);
    r.participant = info.id;
    r.seq = 0;
    r.choice = -1;
    r.correct = -1;
    r.attempts = 1;
    r.done = 1;
    r.wall_ms = 3100;
    CHECK_INT(store_record_response(store, &r, &err), SIM_OK);
    /* the new response records the store's station */
    char q[256];
    snprintf(q, sizeof q,
             "SELECT COUNT(*) FROM response WHERE participant = '%s' AND "
             "station = '%s'",
             info.id, store_station(store));
    CHECK_INT(sql_int(db, q), 1);
    CHECK(store_station(store)[0] != '\0');
    int seq = -1;
    CHECK_INT(store_first_unanswered(store, info.id, &seq, &err), SIM_OK);
    CHECK_INT(seq, 1);
    CHECK_INT(store_log_event(store, info.id, "pause", NULL, 3200, 0, &err),
              SIM_OK);
    sim_free(list);
    store_close(store);

    /* the old file's schema is exactly the one a new file gets: a schema
    ** change without a new version and a migration fails here */
    char fresh[512];
    tmp_path(fresh, sizeof fresh, "fresh.db");
    store = NULL;
    CHECK_INT(store_open(fresh, fwd, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    sqlite3 *old_db = NULL;
    if (store && sqlite3_open(path, &old_db) == SQLITE_OK) {
        char *want = schema_text(old_db);
        char *got = schema_text(store_db(store));
        CHECK(want && got && strlen(want) > 1000);
        CHECK_STR(got, want);
        free(want);
        free(got);
    }
    sqlite3_close(old_db);
    store_close(store);
}

/* A database of schema version 2 (every response with its station) opens
** read-only as it is and read-write migrated (long_format's station becomes
** the response's), and its schema is then a new file's. */
static void test_v2_database(const Study *fwd)
{
    char fixture[512], path[512], fresh[512];
    snprintf(fixture, sizeof fixture, "%s/experiment/store-v2.sql",
             SIMLAB_TEST_DATA);
    char *sql = read_text(fixture);
    CHECK(sql != NULL);
    if (!sql) {
        return;
    }
    tmp_path(path, sizeof path, "v2.db");
    CHECK_INT(make_db(path, sql), 0);
    free(sql);
    SimError err;
    Store *store = NULL;
    CHECK_INT(store_open_readonly(path, &store, &err), SIM_OK);
    store_close(store);
    store = NULL;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 2000, &store, &err),
              SIM_OK);
    if (!store) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    sqlite3 *db = store_db(store);
    CHECK_INT(sql_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response"), 56);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response WHERE station = "
                          "'fixture'"),
              56);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE "
                          "active_station = 'fixture'"),
              2);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format"), 50);
    /* version 4: the questionnaire answers' table, empty */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM answer"), 0);
    /* long_format's station is the response's, not the participant's */
    CHECK_INT(sqlite3_exec(db, "UPDATE participant SET station = 'elsewhere'",
                           NULL, NULL, NULL),
              SQLITE_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE station = "
                          "'fixture'"),
              50);
    store_close(store);
    tmp_path(fresh, sizeof fresh, "fresh2.db");
    store = NULL;
    CHECK_INT(store_open(fresh, fwd, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    sqlite3 *old_db = NULL;
    if (store && sqlite3_open(path, &old_db) == SQLITE_OK) {
        char *want = schema_text(old_db);
        char *got = schema_text(store_db(store));
        CHECK(want && got && strstr(want, "CREATE TABLE lease"));
        CHECK_STR(got, want);
        free(want);
        free(got);
        sqlite3_close(old_db);
    }
    store_close(store);
}

/* Enrolls a real participant into cond at wall_ms; returns its id in pid. */
static void enroll_into(Store *store, const char *cond, int pilot,
                        int simulated, int64_t wall_ms, char pid[37])
{
    EnrollSpec e = {0};
    e.condition = cond;
    e.pilot = pilot;
    e.simulated = simulated;
    e.wall_ms = wall_ms;
    e.seed = 1;
    ParticipantInfo info;
    SimError err;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    memcpy(pid, info.id, 37);
}

/* Which conditions store_assign_condition() picks over seeds 1..n, as a
** bit mask over the study's conditions. */
static unsigned assigned(Store *store, const Study *st, int pilot,
                         int simulated, int64_t wall_ms, int n)
{
    unsigned mask = 0;
    for (int i = 1; i <= n; i++) {
        char cond[64];
        SimError err;
        if (store_assign_condition(store, pilot, simulated, wall_ms,
                                   (uint64_t)i, cond, sizeof cond,
                                   &err) == SIM_OK) {
            int c = study_condition_index(st, cond);
            mask |= c >= 0 ? 1u << c : 0x100u;
        } else {
            mask |= 0x200u;
        }
    }
    return mask;
}

static void test_counting(const Study *meta)
{
    /* conditions: baseline (bit 0), control (bit 1), grad (bit 2);
    ** active_minutes 60 */
    char path[512];
    tmp_path(path, sizeof path, "count.db");
    SimError err;
    Store *store = NULL;
    CHECK_INT(store_open(path, meta, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    const int64_t t0 = 100000000;
    const int64_t now = t0 + 60 * 60000; /* the window starts at t0 */
    char p1[37], p2[37], p3[37], p4[37];
    enroll_into(store, "baseline", 0, 0, t0, p1);    /* active at t0 */
    enroll_into(store, "control", 0, 0, t0 - 1, p2); /* 1 ms too early */
    /* baseline is full (active exactly at the window's start), control
    ** and grad are empty */
    CHECK_INT(assigned(store, meta, 0, 0, now, 40), 0x6);
    CHECK_INT(assigned(store, meta, 0, 0, now - 1, 40), 0x4);

    /* activity brings control back into the count */
    CHECK_INT(store_set_status(store, p2, PSTATUS_ACTIVE, t0, &err), SIM_OK);
    CHECK_INT(assigned(store, meta, 0, 0, now, 40), 0x4);
    /* ... and an excluded participant still in progress holds the place */
    CHECK_INT(store_record_screening(store, p2, "practice", 0, "", t0, &err),
              SIM_OK);
    CHECK_INT(assigned(store, meta, 0, 0, now, 40), 0x4);

    /* pilots and simulated participants are counted apart */
    enroll_into(store, "grad", 1, 0, now, p3);
    enroll_into(store, "grad", 0, 1, now, p4);
    CHECK_INT(assigned(store, meta, 0, 0, now, 40), 0x4);
    CHECK_INT(assigned(store, meta, 1, 0, now, 40), 0x3);
    CHECK_INT(assigned(store, meta, 0, 1, now, 40), 0x3);

    /* an aborted participant does not count, however recent */
    CHECK_INT(store_set_status(store, p1, PSTATUS_ABORTED, now, &err), SIM_OK);
    CHECK_INT(assigned(store, meta, 0, 0, now, 40), 0x5);

    /* a completed one counts at any time, unless excluded */
    CHECK_INT(store_set_status(store, p1, PSTATUS_COMPLETED, t0, &err), SIM_OK);
    CHECK_INT(assigned(store, meta, 0, 0, now + 1000000000, 40), 0x6);
    CHECK_INT(store_record_screening(store, p1, "quiz", 0, "0 of 2", now, &err),
              SIM_OK);
    CHECK_INT(assigned(store, meta, 0, 0, now + 1000000000, 40), 0x7);

    /* the same seed gives the same condition; the draw uses it */
    char a[64], b[64];
    CHECK_INT(store_assign_condition(store, 0, 0, now, 77, a, sizeof a, &err),
              SIM_OK);
    CHECK_INT(store_assign_condition(store, 0, 0, now, 77, b, sizeof b, &err),
              SIM_OK);
    CHECK_STR(a, b);

    /* an id that does not fit is an error, not a truncation */
    CHECK_INT(store_assign_condition(store, 0, 0, now, 1, a, 3, &err),
              SIM_ERR_USAGE);

    /* the override is stored as such, whatever the counts */
    EnrollSpec e = {0};
    e.condition = "baseline";
    e.wall_ms = now;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    CHECK_STR(info.assigned_by, "override");
    e.condition = "Baseline";
    CHECK_INT(store_enroll(store, &e, &info, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown condition 'Baseline'") != NULL);
    store_close(store);

    /* read-only: no study, nothing to assign */
    Store *ro = NULL;
    CHECK_INT(store_open_readonly(path, &ro, &err), SIM_OK);
    if (ro) {
        CHECK_INT(store_assign_condition(ro, 0, 0, now, 1, a, sizeof a, &err),
                  SIM_ERR_STATE);
        e.condition = NULL;
        CHECK_INT(store_enroll(ro, &e, &info, &err), SIM_ERR_STATE);
    }
    store_close(ro);
}

static void test_hase_none(Study *fwd)
{
    /* Hase without then: once every condition is full, enrollment fails
    ** and stores nothing */
    fwd->assignment.rule = ASSIGN_HASE;
    fwd->assignment.min_complete = 1;
    char *saved = fwd->assignment.then_condition;
    fwd->assignment.then_condition = NULL;
    char path[512];
    tmp_path(path, sizeof path, "hase-none.db");
    SimError err;
    Store *store = NULL;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (store) {
        char pid[37];
        enroll_into(store, "LIME", 0, 0, 1000, pid);
        enroll_into(store, "baseline", 0, 0, 1000, pid);
        EnrollSpec e = {0};
        e.wall_ms = 1000;
        e.assign_seed = 1;
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &e, &info, &err), SIM_ERR_STATE);
        CHECK(strstr(err.msg, "no condition could be assigned") != NULL);
        CHECK_INT(sql_int(store_db(store), "SELECT COUNT(*) FROM participant"),
                  2);
        /* the next transaction is not blocked by the failed one */
        e.condition = "LIME";
        CHECK_INT(store_enroll(store, &e, &info, &err), SIM_OK);
    }
    store_close(store);
    fwd->assignment.rule = ASSIGN_BALANCED;
    fwd->assignment.min_complete = 0;
    fwd->assignment.then_condition = saved;
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "store");
    Study *fwd = test_study_load("mini-forward");
    Study *meta = test_study_load("mini-meta");
    CHECK(fwd && meta);
    if (fwd && meta) {
        test_new_and_newer(fwd);
        test_old_database(fwd);
        test_v2_database(fwd);
        test_counting(meta);
        test_hase_none(fwd);
    }
    study_free(fwd);
    study_free(meta);
    test_rmtree(tmp);
    return TEST_REPORT();
}
