/*
** SQLite storage of one study's data. Every write is one transaction; the
** database runs in WAL mode with synchronous=FULL (unless a power simulation
** asks for DURABILITY_FAST) and foreign keys on. The schema below is version
** STORE_SCHEMA_VERSION of PRAGMA user_version; migrate() brings older files
** forward. No clock: callers pass wall-clock times.
**
** Schema (version 1):
**   study(id, study_id, title, hash UNIQUE, definition, software, created_ms)
**   item(study, key, pool, source_id, domain, label, prediction,
**        cf_prediction, prediction_type)              PRIMARY KEY(study, key)
**   participant(id UUID, study, code, condition, assigned_by, station,
**        pilot, simulated, seed, status, excluded, exclusion_reason,
**        created_ms, last_active_ms, finished_ms)
**   trial(participant, seq, block_id, block_kind, phase, session, item,
**        page, is_catch, is_example, expects, show_*, correct_choice,
**        reservoir, index_in_block, n_in_block, test_type, model_output)
**                                                 PRIMARY KEY(participant, seq)
**   response(participant, seq, choice, response_id, correct, rating,
**        attempts, done, final_choice, onset_ns, response_ns, rating_ns,
**        rt_ms, recorded_ms)        PRIMARY KEY(participant, seq) -> trial
**   screening(participant, rule, passed, detail, recorded_ms)
**   event(id, participant, kind, detail, wall_ms, mono_ns)
**   VIEW long_format: simlab long format v1 (+ exclusion_reason, onset_ns,
**        response_ns), one row per completed step with a phase.
*/
#include "experiment/store.h"

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <sqlite3.h>
#include <uuid/uuid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Statements run for every response and event: prepared once per
** connection (cached()), finalized by store_close(). */
typedef enum StmtId {
    STMT_RESPONSE_DONE = 0,
    STMT_RESPONSE_INSERT,
    STMT_RESPONSE_UPDATE,
    STMT_GET_RESPONSE,
    STMT_TOUCH,
    STMT_STATUS,
    STMT_SCREENING,
    STMT_EXCLUDE,
    STMT_EVENT,
    STMT_COUNT
} StmtId;

static const char *const STMT_SQL[STMT_COUNT] = {
    [STMT_RESPONSE_DONE] =
        "SELECT done FROM response WHERE participant = ? AND seq = ?",
    [STMT_RESPONSE_INSERT] =
        "INSERT INTO response (participant, seq, choice, response_id, "
        "correct, rating, attempts, done, final_choice, onset_ns, "
        "response_ns, rating_ns, rt_ms, recorded_ms) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [STMT_RESPONSE_UPDATE] =
        "UPDATE response SET attempts = ?, done = ?, final_choice = ?, "
        "rating = COALESCE(?, rating), rating_ns = COALESCE(?, rating_ns), "
        "recorded_ms = ? WHERE participant = ? AND seq = ?",
    [STMT_GET_RESPONSE] =
        "SELECT choice, correct, rating, attempts, done, onset_ns, "
        "response_ns, rating_ns, recorded_ms FROM response WHERE "
        "participant = ? AND seq = ?",
    [STMT_TOUCH] = "UPDATE participant SET last_active_ms = ?, status = "
                   "CASE WHEN status = 'aborted' THEN 'active' ELSE status "
                   "END WHERE id = ?",
    [STMT_STATUS] = "UPDATE participant SET status = ?, last_active_ms = ?, "
                    "finished_ms = ? WHERE id = ?",
    [STMT_SCREENING] = "INSERT INTO screening (participant, rule, passed, "
                       "detail, recorded_ms) VALUES (?,?,?,?,?)",
    /* the first failed rule names the exclusion; later ones add to it */
    [STMT_EXCLUDE] =
        "UPDATE participant SET excluded = 1, exclusion_reason = CASE WHEN "
        "exclusion_reason IS NULL OR exclusion_reason = '' THEN ?1 ELSE "
        "exclusion_reason || ',' || ?1 END WHERE id = ?2",
    [STMT_EVENT] = "INSERT INTO event (participant, kind, detail, wall_ms, "
                   "mono_ns) VALUES (?,?,?,?,?)",
};

struct Store {
    sqlite3 *db;
    char *path;
    const Study *study; /* NULL when opened read-only */
    int64_t study_row;  /* study.id of the current definition */
    char hash[65];
    sqlite3_stmt *stmt[STMT_COUNT]; /* cached(); NULL until first used */
};

static const char *const SCHEMA_V1 =
    "CREATE TABLE study ("
    "  id INTEGER PRIMARY KEY,"
    "  study_id TEXT NOT NULL,"
    "  title TEXT,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  definition TEXT NOT NULL,"
    "  software TEXT NOT NULL,"
    "  created_ms INTEGER NOT NULL);"
    "CREATE TABLE item ("
    "  study INTEGER NOT NULL REFERENCES study(id),"
    "  key TEXT NOT NULL,"
    "  pool TEXT NOT NULL,"
    "  source_id TEXT NOT NULL,"
    "  domain TEXT,"
    "  label TEXT,"
    "  prediction TEXT NOT NULL,"
    "  cf_prediction TEXT,"
    "  prediction_type TEXT,"
    "  PRIMARY KEY (study, key));"
    "CREATE TABLE participant ("
    "  id TEXT PRIMARY KEY,"
    "  study INTEGER NOT NULL REFERENCES study(id),"
    "  code TEXT,"
    "  condition TEXT NOT NULL,"
    "  assigned_by TEXT NOT NULL CHECK (assigned_by IN"
    "    ('balanced', 'hase', 'override')),"
    "  station TEXT,"
    "  pilot INTEGER NOT NULL DEFAULT 0,"
    "  simulated INTEGER NOT NULL DEFAULT 0,"
    "  seed INTEGER NOT NULL,"
    "  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN"
    "    ('active', 'completed', 'aborted', 'declined', 'screened_out')),"
    "  excluded INTEGER NOT NULL DEFAULT 0,"
    "  exclusion_reason TEXT,"
    "  created_ms INTEGER NOT NULL,"
    "  last_active_ms INTEGER NOT NULL,"
    "  finished_ms INTEGER);"
    "CREATE TABLE trial ("
    "  participant TEXT NOT NULL REFERENCES participant(id),"
    "  seq INTEGER NOT NULL,"
    "  block_id TEXT NOT NULL,"
    "  block_kind TEXT NOT NULL,"
    "  phase TEXT,"
    "  session INTEGER NOT NULL DEFAULT 0,"
    "  item TEXT,"
    "  page INTEGER NOT NULL DEFAULT 0,"
    "  is_catch INTEGER NOT NULL DEFAULT 0,"
    "  is_example INTEGER NOT NULL DEFAULT 0,"
    "  expects TEXT NOT NULL,"
    "  show_label INTEGER NOT NULL DEFAULT 0,"
    "  show_prediction INTEGER NOT NULL DEFAULT 0,"
    "  show_explanation INTEGER NOT NULL DEFAULT 0,"
    "  show_reservoir INTEGER NOT NULL DEFAULT 0,"
    "  correct_choice INTEGER NOT NULL DEFAULT -1,"
    "  reservoir TEXT,"
    "  index_in_block INTEGER NOT NULL,"
    "  n_in_block INTEGER NOT NULL,"
    "  test_type TEXT,"
    "  model_output TEXT,"
    "  PRIMARY KEY (participant, seq));"
    "CREATE TABLE response ("
    "  participant TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  choice INTEGER,"
    "  response_id TEXT,"
    "  correct INTEGER,"
    "  rating INTEGER,"
    "  attempts INTEGER NOT NULL DEFAULT 1,"
    "  done INTEGER NOT NULL DEFAULT 1,"
    "  final_choice INTEGER,"
    "  onset_ns INTEGER,"
    "  response_ns INTEGER,"
    "  rating_ns INTEGER,"
    "  rt_ms REAL,"
    "  recorded_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (participant, seq),"
    "  FOREIGN KEY (participant, seq) REFERENCES trial(participant, seq));"
    "CREATE TABLE screening ("
    "  participant TEXT NOT NULL REFERENCES participant(id),"
    "  rule TEXT NOT NULL,"
    "  passed INTEGER NOT NULL,"
    "  detail TEXT,"
    "  recorded_ms INTEGER NOT NULL);"
    "CREATE TABLE event ("
    "  id INTEGER PRIMARY KEY,"
    "  participant TEXT REFERENCES participant(id),"
    "  kind TEXT NOT NULL,"
    "  detail TEXT,"
    "  wall_ms INTEGER NOT NULL,"
    "  mono_ns INTEGER);"
    "CREATE INDEX participant_status ON participant(status, condition);"
    "CREATE INDEX event_participant ON event(participant);"
    "CREATE VIEW long_format AS SELECT"
    "  p.id AS participant,"
    "  p.condition AS condition,"
    "  t.phase AS phase,"
    "  COALESCE(t.item, t.block_id || ':' || (t.page + 1)) AS item,"
    "  CASE WHEN t.correct_choice >= 0 AND t.is_example = 0"
    "       THEN r.correct END AS correct,"
    "  CASE WHEN t.session > 0 THEN t.session END AS session,"
    "  t.test_type AS test_type,"
    "  i.domain AS domain,"
    "  t.block_id AS block,"
    "  t.seq + 1 AS trial,"
    "  t.is_catch AS is_catch,"
    "  i.prediction_type AS prediction_type,"
    "  i.label AS label,"
    "  t.model_output AS model_output,"
    "  r.response_id AS response,"
    "  CASE WHEN r.rating > 0 THEN r.rating END AS rating,"
    "  r.rt_ms AS rt_ms,"
    "  p.pilot AS pilot,"
    "  p.simulated AS simulated,"
    "  p.excluded AS excluded,"
    "  p.station AS station,"
    "  COALESCE(p.exclusion_reason, '') AS exclusion_reason,"
    "  r.onset_ns AS onset_ns,"
    "  r.response_ns AS response_ns"
    " FROM trial t"
    " JOIN participant p ON p.id = t.participant"
    " JOIN response r ON r.participant = t.participant AND r.seq = t.seq"
    "   AND r.done = 1"
    " LEFT JOIN item i ON i.study = p.study AND i.key = t.item"
    " WHERE t.phase IS NOT NULL"
    " ORDER BY p.created_ms, p.id, t.seq;";

const char *participant_status_name(ParticipantStatus s)
{
    static const char *const names[] = {"active", "completed", "aborted",
                                        "declined", "screened_out"};
    return (unsigned)s < 5 ? names[s] : "active";
}

static ParticipantStatus status_parse(const char *s)
{
    for (int i = 0; i < 5; i++) {
        if (s &&
            strcmp(s, participant_status_name((ParticipantStatus)i)) == 0) {
            return (ParticipantStatus)i;
        }
    }
    return PSTATUS_ACTIVE;
}

/* SIM_ERR_BUSY when the last error means "locked, try again later". */
static int error_code(Store *st)
{
    int code = sqlite3_errcode(st->db);
    return code == SQLITE_BUSY || code == SQLITE_LOCKED ? SIM_ERR_BUSY
                                                        : SIM_ERR_DB;
}

static int db_fail(Store *st, SimError *err, const char *what)
{
    return sim_fail(err, error_code(st), "%s: %s: %s", st->path, what,
                    sqlite3_errmsg(st->db));
}

static int exec(Store *st, const char *sql, SimError *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) == SQLITE_OK) {
        return SIM_OK;
    }
    int rc = sim_fail(err, error_code(st), "%s: %s", st->path,
                      msg ? msg : sqlite3_errmsg(st->db));
    sqlite3_free(msg);
    return rc;
}

static void rollback(Store *st)
{
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int prepare(Store *st, const char *sql, sqlite3_stmt **stmt,
                   SimError *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
        return db_fail(st, err, "prepare");
    }
    return SIM_OK;
}

/* The statement id, prepared on first use. Hand it back with release() so
** that it holds no read lock and keeps no bindings (unbound is NULL). */
static int cached(Store *st, StmtId id, sqlite3_stmt **stmt, SimError *err)
{
    if (!st->stmt[id] &&
        sqlite3_prepare_v3(st->db, STMT_SQL[id], -1, SQLITE_PREPARE_PERSISTENT,
                           &st->stmt[id], NULL) != SQLITE_OK) {
        *stmt = NULL;
        return db_fail(st, err, "prepare");
    }
    *stmt = st->stmt[id];
    return SIM_OK;
}

static void release(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v) {
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(s, i);
    }
}

static void copy_col(char *dst, size_t size, sqlite3_stmt *s, int col)
{
    const unsigned char *v = sqlite3_column_text(s, col);
    snprintf(dst, size, "%s", v ? (const char *)v : "");
}

const char *store_path(const Store *store)
{
    return store->path;
}

struct sqlite3 *store_db(Store *store)
{
    return store->db;
}

const char *store_study_hash(const Store *store)
{
    return store->hash;
}

/* Brings the schema to STORE_SCHEMA_VERSION. Version 0 = empty file. */
static int migrate(Store *st, SimError *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, "PRAGMA user_version", &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int version = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    if (version > STORE_SCHEMA_VERSION) {
        return sim_fail(err, SIM_ERR_DB,
                        "%s: schema version %d is newer than this simlab "
                        "(%d); use a newer simlab",
                        st->path, version, STORE_SCHEMA_VERSION);
    }
    if (version == STORE_SCHEMA_VERSION) {
        return SIM_OK;
    }
    rc = exec(st, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (version < 1) {
        rc = exec(st, SCHEMA_V1, err);
    }
    /* later versions: if (version < 2) { ALTER TABLE ... } */
    if (rc == SIM_OK) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d",
                 STORE_SCHEMA_VERSION);
        rc = exec(st, sql, err);
    }
    if (rc == SIM_OK) {
        rc = exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        rollback(st);
    }
    return rc;
}

static const char *prediction_type(const Study *study, const Item *it)
{
    if (it->label < 0 || study->n_classes < 2) {
        return NULL;
    }
    int pos_pred = it->prediction == 0;
    int right = it->prediction == it->label;
    if (pos_pred) {
        return right ? "TP" : "FP";
    }
    return right ? "TN" : "FN";
}

static const char *class_id(const Study *study, int idx)
{
    return idx >= 0 && (size_t)idx < study->n_classes ? study->classes[idx].id
                                                      : NULL;
}

static int insert_study(Store *st, int64_t wall_ms, SimError *err)
{
    const Study *study = st->study;
    sqlite3_stmt *s = NULL;
    int rc = prepare(st,
                     "INSERT INTO study (study_id, title, hash, definition, "
                     "software, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                     &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, study->id ? study->id : "");
    bind_text(s, 2, study->title);
    bind_text(s, 3, study->hash);
    bind_text(s, 4, study->json_text ? study->json_text : "{}");
    bind_text(s, 5, "simlab " SIMLAB_VERSION);
    sqlite3_bind_int64(s, 6, wall_ms);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = db_fail(st, err, "insert study");
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        return rc;
    }
    st->study_row = sqlite3_last_insert_rowid(st->db);
    rc = prepare(st,
                 "INSERT INTO item (study, key, pool, source_id, domain, "
                 "label, prediction, cf_prediction, prediction_type) VALUES "
                 "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 &s, err);
    for (size_t i = 0; rc == SIM_OK && i < study->n_items; i++) {
        const Item *it = &study->items[i];
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, st->study_row);
        bind_text(s, 2, it->key);
        bind_text(s, 3, it->pool);
        bind_text(s, 4, it->id);
        bind_text(s, 5, it->domain ? it->domain : study->domain);
        bind_text(s, 6, class_id(study, it->label));
        bind_text(s, 7, class_id(study, it->prediction));
        bind_text(s, 8, it->cf ? class_id(study, it->cf->prediction) : NULL);
        bind_text(s, 9, prediction_type(study, it));
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = db_fail(st, err, "insert item");
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* Finds or stores the study row matching the bundle's hash. */
static int attach_study(Store *st, int allow_changed, int64_t wall_ms,
                        SimError *err)
{
    sqlite3_stmt *s;
    int rc = prepare(
        st, "SELECT id, hash, study_id FROM study ORDER BY id DESC", &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int found = 0, any = 0;
    char latest_hash[65] = "", latest_id[128] = "";
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *h = (const char *)sqlite3_column_text(s, 1);
        if (!any) {
            copy_col(latest_hash, sizeof latest_hash, s, 1);
            copy_col(latest_id, sizeof latest_id, s, 2);
            any = 1;
        }
        if (h && strcmp(h, st->study->hash) == 0) {
            st->study_row = sqlite3_column_int64(s, 0);
            found = 1;
            break;
        }
    }
    sqlite3_finalize(s);
    if (found) {
        return SIM_OK;
    }
    if (any && !allow_changed) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: the database holds data of study '%s' with "
                        "bundle hash %.12s…, but this bundle hashes to "
                        "%.12s…; the bundle changed since data were "
                        "recorded (--accept-changed-bundle continues with "
                        "the new version, stored beside the old one)",
                        st->path, latest_id, latest_hash, st->study->hash);
    }
    /* the new version and the event that records the change commit
    ** together, so a crash cannot keep one without the other */
    rc = exec(st, "BEGIN IMMEDIATE", err);
    if (rc == SIM_OK) {
        rc = insert_study(st, wall_ms, err);
    }
    if (rc == SIM_OK && any) {
        char detail[256];
        snprintf(detail, sizeof detail, "{\"from\":\"%s\",\"to\":\"%s\"}",
                 latest_hash, st->study->hash);
        rc = store_log_event(st, NULL, "bundle_changed", detail, wall_ms, 0,
                             err);
    }
    if (rc == SIM_OK) {
        rc = exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        rollback(st);
    }
    return rc;
}

static int open_common(const char *path, int flags, Store **out, SimError *err)
{
    Store *st = sim_calloc(1, sizeof *st);
    if (!st || !(st->path = sim_strdup(path))) {
        sim_free(st);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
        int rc = sim_fail(err, SIM_ERR_DB, "%s: cannot open database: %s", path,
                          st->db ? sqlite3_errmsg(st->db) : "no memory");
        store_close(st);
        return rc;
    }
    sqlite3_busy_timeout(st->db, 2000);
    sqlite3_extended_result_codes(st->db, 0);
    *out = st;
    return SIM_OK;
}

int store_open(const char *path, const Study *study, Durability durability,
               int allow_changed, int64_t wall_ms, Store **out, SimError *err)
{
    *out = NULL;
    Store *st;
    int rc =
        open_common(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &st, err);
    if (rc != SIM_OK) {
        return rc;
    }
    st->study = study;
    rc = exec(st, "PRAGMA journal_mode=WAL", err);
    if (rc == SIM_OK) {
        rc = exec(st,
                  durability == DURABILITY_FULL ? "PRAGMA synchronous=FULL"
                                                : "PRAGMA synchronous=OFF",
                  err);
    }
    if (rc == SIM_OK) {
        rc = exec(st, "PRAGMA foreign_keys=ON", err);
    }
    if (rc == SIM_OK) {
        rc = migrate(st, err);
    }
    if (rc == SIM_OK) {
        rc = attach_study(st, allow_changed, wall_ms, err);
    }
    if (rc != SIM_OK) {
        store_close(st);
        return rc;
    }
    snprintf(st->hash, sizeof st->hash, "%s", study->hash);
    *out = st;
    return SIM_OK;
}

int store_open_readonly(const char *path, Store **out, SimError *err)
{
    *out = NULL;
    Store *st;
    int rc = open_common(path, SQLITE_OPEN_READONLY, &st, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_stmt *s;
    rc = prepare(st, "SELECT id, hash FROM study ORDER BY id DESC LIMIT 1", &s,
                 err);
    if (rc == SIM_OK) {
        if (sqlite3_step(s) == SQLITE_ROW) {
            st->study_row = sqlite3_column_int64(s, 0);
            copy_col(st->hash, sizeof st->hash, s, 1);
        } else {
            rc = sim_fail(err, SIM_ERR_DB, "%s: no study recorded", path);
        }
        sqlite3_finalize(s);
    } else {
        rc = sim_fail(err, SIM_ERR_DB, "%s: not a simlab database (%s)", path,
                      sqlite3_errmsg(st->db));
    }
    if (rc != SIM_OK) {
        store_close(st);
        return rc;
    }
    *out = st;
    return SIM_OK;
}

void store_close(Store *store)
{
    if (!store) {
        return;
    }
    for (int i = 0; i < STMT_COUNT; i++) {
        sqlite3_finalize(store->stmt[i]);
    }
    sqlite3_close(store->db);
    sim_free(store->path);
    sim_free(store);
}

/* ------------------------------------------------------------ enrollment */

typedef struct Fill {
    int done;   /* completed, not excluded */
    int active; /* in progress and recently active */
} Fill;

static int count_fill(Store *st, int pilot, int simulated, int64_t wall_ms,
                      Fill *fill, SimError *err)
{
    const Study *study = st->study;
    memset(fill, 0, study->n_conditions * sizeof *fill);
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "SELECT condition,"
                     " SUM(status = 'completed' AND excluded = 0),"
                     " SUM(status = 'active' AND last_active_ms >= ?)"
                     " FROM participant WHERE pilot = ? AND simulated = ?"
                     " GROUP BY condition",
                     &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int64_t window = (int64_t)study->assignment.active_minutes * 60000;
    sqlite3_bind_int64(s, 1, wall_ms - window);
    sqlite3_bind_int(s, 2, pilot);
    sqlite3_bind_int(s, 3, simulated);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int c = study_condition_index(study,
                                      (const char *)sqlite3_column_text(s, 0));
        if (c >= 0) {
            fill[c].done = sqlite3_column_int(s, 1);
            fill[c].active = sqlite3_column_int(s, 2);
        }
    }
    if (step != SQLITE_DONE) {
        rc = db_fail(st, err, "count participants");
    }
    sqlite3_finalize(s);
    return rc;
}

int store_assign_condition(Store *store, int pilot, int simulated,
                           int64_t wall_ms, uint64_t rng_seed, char *out,
                           size_t out_size, SimError *err)
{
    const Study *study = store->study;
    if (!study || study->n_conditions == 0) {
        return sim_fail(err, SIM_ERR_STATE, "%s: no study conditions to assign",
                        store->path);
    }
    Fill *fill = sim_calloc(study->n_conditions, sizeof *fill);
    if (!fill) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = count_fill(store, pilot, simulated, wall_ms, fill, err);
    if (rc != SIM_OK) {
        sim_free(fill);
        return rc;
    }
    const Assignment *a = &study->assignment;
    int hase = a->rule == ASSIGN_HASE;
    int best = -1, best_fill = 0, ties = 0;
    SimRng rng;
    sim_rng_seed(&rng, rng_seed);
    for (size_t c = 0; c < study->n_conditions; c++) {
        int f = fill[c].done + fill[c].active;
        if (hase && f >= a->min_complete) {
            continue;
        }
        if (best < 0 || f < best_fill) {
            best = (int)c;
            best_fill = f;
            ties = 1;
        } else if (f == best_fill) {
            /* reservoir sampling over the tied conditions */
            ties++;
            if (sim_rng_below(&rng, (uint64_t)ties) == 0) {
                best = (int)c;
            }
        }
    }
    sim_free(fill);
    const char *chosen;
    if (best >= 0) {
        chosen = study->conditions[best].id;
    } else if (hase && a->then_condition) {
        chosen = a->then_condition;
    } else {
        return sim_fail(err, SIM_ERR_STATE,
                        "%s: no condition could be assigned", store->path);
    }
    if ((size_t)snprintf(out, out_size, "%s", chosen) >= out_size) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: condition id '%s' too long",
                        store->path, chosen);
    }
    return SIM_OK;
}

static uint64_t random_u64(void)
{
    uuid_t u;
    uint64_t v;
    uuid_generate_random(u);
    memcpy(&v, u, sizeof v);
    return v ? v : 1;
}

static const char *block_kind_text(const Study *study, int block)
{
    return block_kind_name(study->blocks[block].kind);
}

static int insert_trials(Store *st, const char *pid, const Schedule *sch,
                         SimError *err)
{
    const Study *study = st->study;
    sqlite3_stmt *s;
    int rc = prepare(
        st,
        "INSERT INTO trial (participant, seq, block_id, block_kind, phase, "
        "session, item, page, is_catch, is_example, expects, show_label, "
        "show_prediction, show_explanation, show_reservoir, correct_choice, "
        "reservoir, index_in_block, n_in_block, test_type, model_output) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        &s, err);
    for (size_t i = 0; rc == SIM_OK && i < sch->n_trials; i++) {
        const Trial *t = &sch->trials[i];
        const Block *b = &study->blocks[t->block];
        const Item *it =
            t->item_key ? study_find_item(study, t->item_key) : NULL;
        const char *model = NULL;
        if (it) {
            model = class_id(study, b->kind == BLOCK_COUNTERFACTUAL && it->cf
                                        ? it->cf->prediction
                                        : it->prediction);
        }
        sqlite3_reset(s);
        bind_text(s, 1, pid);
        sqlite3_bind_int(s, 2, t->seq);
        bind_text(s, 3, b->id);
        bind_text(s, 4, block_kind_text(study, t->block));
        bind_text(s, 5, b->phase);
        sqlite3_bind_int(s, 6, b->session);
        bind_text(s, 7, t->item_key);
        sqlite3_bind_int(s, 8, t->page);
        sqlite3_bind_int(s, 9, t->is_catch);
        sqlite3_bind_int(s, 10, t->is_example);
        bind_text(s, 11, expect_name(t->expects));
        sqlite3_bind_int(s, 12, t->show.label);
        sqlite3_bind_int(s, 13, t->show.prediction);
        sqlite3_bind_int(s, 14, t->show.explanation);
        sqlite3_bind_int(s, 15, t->show.reservoir);
        sqlite3_bind_int(s, 16, t->correct_choice);
        bind_text(s, 17,
                  t->reservoir >= 0 ? study->blocks[t->reservoir].id : NULL);
        sqlite3_bind_int(s, 18, t->index_in_block);
        sqlite3_bind_int(s, 19, t->n_in_block);
        bind_text(s, 20, t->test_type);
        bind_text(s, 21, model);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = db_fail(st, err, "insert trial");
        }
    }
    sqlite3_finalize(s);
    return rc;
}

int store_enroll(Store *store, const EnrollSpec *spec, ParticipantInfo *info,
                 SimError *err)
{
    const Study *study = store->study;
    if (!study) {
        return sim_fail(err, SIM_ERR_STATE, "%s: opened read-only",
                        store->path);
    }
    char condition[128];
    const char *assigned_by;
    int rc = exec(store, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (spec->condition) {
        if (!study_find_condition(study, spec->condition)) {
            rollback(store);
            return sim_fail(err, SIM_ERR_USAGE, "%s: unknown condition '%s'",
                            store->path, spec->condition);
        }
        snprintf(condition, sizeof condition, "%s", spec->condition);
        assigned_by = "override";
    } else {
        rc = store_assign_condition(
            store, spec->pilot, spec->simulated, spec->wall_ms,
            spec->assign_seed ? spec->assign_seed : random_u64(), condition,
            sizeof condition, err);
        assigned_by =
            study->assignment.rule == ASSIGN_HASE ? "hase" : "balanced";
    }
    uint64_t seed = spec->seed ? spec->seed : random_u64();
    /* SQLite integers are signed: keep seeds in 63 bits */
    seed &= 0x7fffffffffffffffULL;
    if (!seed) {
        seed = 1;
    }
    Schedule *sch = NULL;
    if (rc == SIM_OK) {
        rc = schedule_build(study, condition, seed, &sch, err);
    }
    char pid[37];
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, pid);
    sqlite3_stmt *s = NULL;
    if (rc == SIM_OK) {
        rc = prepare(store,
                     "INSERT INTO participant (id, study, code, condition, "
                     "assigned_by, station, pilot, simulated, seed, status, "
                     "created_ms, last_active_ms) VALUES "
                     "(?,?,?,?,?,?,?,?,?,'active',?,?)",
                     &s, err);
    }
    if (rc == SIM_OK) {
        bind_text(s, 1, pid);
        sqlite3_bind_int64(s, 2, store->study_row);
        bind_text(s, 3, spec->code);
        bind_text(s, 4, condition);
        bind_text(s, 5, assigned_by);
        bind_text(s, 6, spec->station);
        sqlite3_bind_int(s, 7, spec->pilot != 0);
        sqlite3_bind_int(s, 8, spec->simulated != 0);
        sqlite3_bind_int64(s, 9, (sqlite3_int64)seed);
        sqlite3_bind_int64(s, 10, spec->wall_ms);
        sqlite3_bind_int64(s, 11, spec->wall_ms);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = db_fail(store, err, "insert participant");
        }
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK) {
        rc = insert_trials(store, pid, sch, err);
    }
    if (rc == SIM_OK) {
        rc = exec(store, "COMMIT", err);
    }
    schedule_free(sch);
    if (rc != SIM_OK) {
        rollback(store);
        return rc;
    }
    if (info) {
        rc = store_participant(store, pid, info, err);
    }
    return rc;
}

static const char *PARTICIPANT_COLUMNS =
    "SELECT p.id, p.code, p.condition, p.assigned_by, p.station, p.pilot, "
    "p.simulated, p.status, p.excluded, p.exclusion_reason, p.seed, "
    "p.created_ms, p.last_active_ms, "
    "(SELECT COUNT(*) FROM trial t WHERE t.participant = p.id), "
    "(SELECT COUNT(*) FROM response r WHERE r.participant = p.id AND r.done) "
    "FROM participant p ";

static void read_participant(sqlite3_stmt *s, ParticipantInfo *info)
{
    memset(info, 0, sizeof *info);
    copy_col(info->id, sizeof info->id, s, 0);
    copy_col(info->code, sizeof info->code, s, 1);
    copy_col(info->condition, sizeof info->condition, s, 2);
    copy_col(info->assigned_by, sizeof info->assigned_by, s, 3);
    copy_col(info->station, sizeof info->station, s, 4);
    info->pilot = sqlite3_column_int(s, 5);
    info->simulated = sqlite3_column_int(s, 6);
    info->status = status_parse((const char *)sqlite3_column_text(s, 7));
    info->excluded = sqlite3_column_int(s, 8);
    copy_col(info->exclusion_reason, sizeof info->exclusion_reason, s, 9);
    info->seed = (uint64_t)sqlite3_column_int64(s, 10);
    info->created_ms = sqlite3_column_int64(s, 11);
    info->last_active_ms = sqlite3_column_int64(s, 12);
    info->n_trials = sqlite3_column_int(s, 13);
    info->n_done = sqlite3_column_int(s, 14);
}

int store_participant(Store *store, const char *pid, ParticipantInfo *info,
                      SimError *err)
{
    char sql[768];
    snprintf(sql, sizeof sql, "%sWHERE p.id = ?", PARTICIPANT_COLUMNS);
    sqlite3_stmt *s;
    int rc = prepare(store, sql, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, pid);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        read_participant(s, info);
    } else if (step == SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_USAGE, "%s: no participant '%s'",
                      store->path, pid);
    } else {
        rc = db_fail(store, err, "read participant");
    }
    sqlite3_finalize(s);
    return rc;
}

int store_list_participants(Store *store, int unfinished_only,
                            ParticipantInfo **out, size_t *n, SimError *err)
{
    *out = NULL;
    *n = 0;
    char sql[768];
    snprintf(sql, sizeof sql, "%s%s ORDER BY p.last_active_ms DESC",
             PARTICIPANT_COLUMNS,
             unfinished_only ? "WHERE p.status IN ('active', 'aborted')" : "");
    sqlite3_stmt *s;
    int rc = prepare(store, sql, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    ParticipantInfo *list = NULL;
    size_t cap = 0, len = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (sim_grow((void **)&list, &cap, len + 1, sizeof *list) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        read_participant(s, &list[len++]);
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = db_fail(store, err, "list participants");
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        sim_free(list);
        return rc;
    }
    *out = list;
    *n = len;
    return SIM_OK;
}

/* Index of block id in study, -1 when there is none (or no study). */
static int block_index(const Study *study, const char *id)
{
    const Block *b = study_find_block(study, id);
    return b ? (int)(b - study->blocks) : -1;
}

static Expect expect_parse(const char *s)
{
    for (int e = 0; e <= EXPECT_OPTION; e++) {
        if (s && strcmp(s, expect_name((Expect)e)) == 0) {
            return (Expect)e;
        }
    }
    return EXPECT_CONTINUE;
}

int store_load_schedule(Store *store, const char *pid, Schedule **out,
                        SimError *err)
{
    *out = NULL;
    ParticipantInfo info;
    int rc = store_participant(store, pid, &info, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Schedule *sch =
        schedule_new(info.condition, info.seed, (size_t)info.n_trials);
    if (!sch) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sqlite3_stmt *s;
    rc = prepare(store,
                 "SELECT seq, block_id, item, page, is_catch, is_example, "
                 "expects, show_label, show_prediction, show_explanation, "
                 "show_reservoir, correct_choice, reservoir, index_in_block, "
                 "n_in_block, test_type FROM trial WHERE participant = ? "
                 "ORDER BY seq",
                 &s, err);
    if (rc != SIM_OK) {
        schedule_free(sch);
        return rc;
    }
    bind_text(s, 1, pid);
    size_t i = 0;
    int step;
    while (rc == SIM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (i >= sch->n_trials) {
            rc = sim_fail(err, SIM_ERR_DB,
                          "%s: participant %s: trial count "
                          "changed while reading",
                          store->path, pid);
            break;
        }
        Trial *t = &sch->trials[i];
        t->seq = sqlite3_column_int(s, 0);
        const char *bid = (const char *)sqlite3_column_text(s, 1);
        t->block = block_index(store->study, bid);
        if (t->block < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: participant %s, step %d: block '%s' is not in "
                          "the study",
                          store->path, pid, t->seq, bid ? bid : "");
            break;
        }
        const char *key = (const char *)sqlite3_column_text(s, 2);
        if (key && !study_find_item(store->study, key)) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: participant %s, step %d: item '%s' is not in "
                          "the study",
                          store->path, pid, t->seq, key);
            break;
        }
        const char *tt = (const char *)sqlite3_column_text(s, 15);
        if ((key && !(t->item_key = sim_strdup(key))) ||
            (tt && !(t->test_type = sim_strdup(tt)))) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        t->page = sqlite3_column_int(s, 3);
        t->is_catch = sqlite3_column_int(s, 4);
        t->is_example = sqlite3_column_int(s, 5);
        t->expects = expect_parse((const char *)sqlite3_column_text(s, 6));
        t->show.label = sqlite3_column_int(s, 7);
        t->show.prediction = sqlite3_column_int(s, 8);
        t->show.explanation = sqlite3_column_int(s, 9);
        t->show.reservoir = sqlite3_column_int(s, 10);
        t->correct_choice = sqlite3_column_int(s, 11);
        t->reservoir =
            block_index(store->study, (const char *)sqlite3_column_text(s, 12));
        t->index_in_block = sqlite3_column_int(s, 13);
        t->n_in_block = sqlite3_column_int(s, 14);
        i++;
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = db_fail(store, err, "read schedule");
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK && i != sch->n_trials) {
        rc = sim_fail(err, SIM_ERR_DB,
                      "%s: participant %s: read %zu of %zu "
                      "steps",
                      store->path, pid, i, sch->n_trials);
    }
    if (rc != SIM_OK) {
        schedule_free(sch);
        return rc;
    }
    *out = sch;
    return SIM_OK;
}

int store_first_unanswered(Store *store, const char *pid, int *seq,
                           SimError *err)
{
    sqlite3_stmt *s;
    int rc = prepare(store,
                     "SELECT MIN(t.seq) FROM trial t LEFT JOIN response r "
                     "ON r.participant = t.participant AND r.seq = t.seq "
                     "WHERE t.participant = ? AND (r.done IS NULL OR "
                     "r.done = 0)",
                     &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, pid);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *seq = sqlite3_column_type(s, 0) == SQLITE_NULL
                   ? -1
                   : sqlite3_column_int(s, 0);
    } else {
        rc = db_fail(store, err, "find first unanswered step");
    }
    sqlite3_finalize(s);
    return rc;
}

/* ------------------------------------------------------------- responses */

/* Steps a cached write statement once and releases it. */
static int run(Store *st, sqlite3_stmt *s, const char *what, SimError *err)
{
    int rc = sqlite3_step(s) == SQLITE_DONE ? SIM_OK : db_fail(st, err, what);
    release(s);
    return rc;
}

static int set_status(Store *st, const char *pid, ParticipantStatus status,
                      int64_t wall_ms, int finished, SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(st, STMT_STATUS, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, participant_status_name(status));
    sqlite3_bind_int64(s, 2, wall_ms);
    if (finished) {
        sqlite3_bind_int64(s, 3, wall_ms);
    }
    bind_text(s, 4, pid);
    return run(st, s, "set status", err);
}

/* Inserts a screening row and, when the rule failed, marks the participant
** excluded; the caller holds the transaction. */
static int screening_rows(Store *store, const char *pid, const ScreenResult *sr,
                          int64_t wall_ms, SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(store, STMT_SCREENING, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, pid);
    bind_text(s, 2, sr->rule);
    sqlite3_bind_int(s, 3, sr->passed);
    bind_text(s, 4, sr->detail);
    sqlite3_bind_int64(s, 5, wall_ms);
    rc = run(store, s, "record screening", err);
    if (rc == SIM_OK && !sr->passed) {
        rc = cached(store, STMT_EXCLUDE, &s, err);
        if (rc == SIM_OK) {
            bind_text(s, 1, sr->rule);
            bind_text(s, 2, pid);
            rc = run(store, s, "exclude participant", err);
        }
    }
    return rc;
}

/* Inserts the first record of a step, or updates attempts and done of a
** step that is not done yet (a retry); the caller holds the transaction. */
static int write_response(Store *store, const Response *r, int exists,
                          SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(store, exists ? STMT_RESPONSE_UPDATE : STMT_RESPONSE_INSERT,
                    &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (exists) {
        sqlite3_bind_int(s, 1, r->attempts);
        sqlite3_bind_int(s, 2, r->done);
        if (r->choice >= 0) {
            sqlite3_bind_int(s, 3, r->choice);
        }
        if (r->rating > 0) {
            sqlite3_bind_int(s, 4, r->rating);
            sqlite3_bind_int64(s, 5, r->rating_ns);
        }
        sqlite3_bind_int64(s, 6, r->wall_ms);
        bind_text(s, 7, r->participant);
        sqlite3_bind_int(s, 8, r->seq);
        return run(store, s, "record response", err);
    }
    bind_text(s, 1, r->participant);
    sqlite3_bind_int(s, 2, r->seq);
    if (r->choice >= 0) {
        sqlite3_bind_int(s, 3, r->choice);
        sqlite3_bind_int(s, 9, r->choice);
    }
    bind_text(s, 4, r->choice_id);
    if (r->correct >= 0) {
        sqlite3_bind_int(s, 5, r->correct);
    }
    if (r->rating > 0) {
        sqlite3_bind_int(s, 6, r->rating);
        sqlite3_bind_int64(s, 12, r->rating_ns);
    }
    sqlite3_bind_int(s, 7, r->attempts > 0 ? r->attempts : 1);
    sqlite3_bind_int(s, 8, r->done);
    sqlite3_bind_int64(s, 10, r->onset_ns);
    sqlite3_bind_int64(s, 11, r->response_ns);
    if (r->response_ns > 0 && r->onset_ns > 0) {
        sqlite3_bind_double(s, 13,
                            (double)(r->response_ns - r->onset_ns) / 1e6);
    }
    sqlite3_bind_int64(s, 14, r->wall_ms);
    return run(store, s, "record response", err);
}

int store_record_response(Store *store, const Response *r, SimError *err)
{
    int rc = exec(store, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_stmt *s;
    int exists = 0, done = 0;
    rc = cached(store, STMT_RESPONSE_DONE, &s, err);
    if (rc == SIM_OK) {
        bind_text(s, 1, r->participant);
        sqlite3_bind_int(s, 2, r->seq);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            exists = 1;
            done = sqlite3_column_int(s, 0);
        } else if (step != SQLITE_DONE) {
            rc = db_fail(store, err, "read response");
        }
        release(s);
    }
    if (rc == SIM_OK && done) {
        rollback(store);
        return sim_fail(err, SIM_ERR_STATE,
                        "%s: participant %s, step %d: already recorded",
                        store->path, r->participant, r->seq);
    }
    if (rc == SIM_OK) {
        rc = write_response(store, r, exists, err);
    }
    if (rc == SIM_OK) {
        rc = cached(store, STMT_TOUCH, &s, err);
    }
    if (rc == SIM_OK) {
        sqlite3_bind_int64(s, 1, r->wall_ms);
        bind_text(s, 2, r->participant);
        rc = run(store, s, "update participant", err);
    }
    for (int i = 0; rc == SIM_OK && i < r->n_screen && i < 2; i++) {
        rc = screening_rows(store, r->participant, &r->screen[i], r->wall_ms,
                            err);
    }
    if (rc == SIM_OK && r->set_status) {
        rc = set_status(store, r->participant, r->new_status, r->wall_ms, 1,
                        err);
    }
    if (rc == SIM_OK) {
        rc = exec(store, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        rollback(store);
    }
    return rc;
}

int store_get_response(Store *store, const char *pid, int seq, Response *r,
                       int *found, SimError *err)
{
    sqlite3_stmt *s;
    *found = 0;
    memset(r, 0, sizeof *r);
    int rc = cached(store, STMT_GET_RESPONSE, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, pid);
    sqlite3_bind_int(s, 2, seq);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *found = 1;
        r->participant = pid;
        r->seq = seq;
        r->choice = sqlite3_column_type(s, 0) == SQLITE_NULL
                        ? -1
                        : sqlite3_column_int(s, 0);
        r->correct = sqlite3_column_type(s, 1) == SQLITE_NULL
                         ? -1
                         : sqlite3_column_int(s, 1);
        r->rating = sqlite3_column_int(s, 2);
        r->attempts = sqlite3_column_int(s, 3);
        r->done = sqlite3_column_int(s, 4);
        r->onset_ns = sqlite3_column_int64(s, 5);
        r->response_ns = sqlite3_column_int64(s, 6);
        r->rating_ns = sqlite3_column_int64(s, 7);
        r->wall_ms = sqlite3_column_int64(s, 8);
    } else if (step != SQLITE_DONE) {
        rc = db_fail(store, err, "read response");
    }
    release(s);
    return rc;
}

int store_set_status(Store *store, const char *pid, ParticipantStatus status,
                     int64_t wall_ms, SimError *err)
{
    return set_status(store, pid, status, wall_ms,
                      status != PSTATUS_ACTIVE && status != PSTATUS_ABORTED,
                      err);
}

int store_record_screening(Store *store, const char *pid, const char *rule,
                           int passed, const char *detail, int64_t wall_ms,
                           SimError *err)
{
    ScreenResult sr;
    sr.rule = rule;
    sr.passed = passed;
    snprintf(sr.detail, sizeof sr.detail, "%s", detail ? detail : "");
    int rc = exec(store, "BEGIN IMMEDIATE", err);
    if (rc == SIM_OK) {
        rc = screening_rows(store, pid, &sr, wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = exec(store, "COMMIT", err);
    } else {
        rollback(store);
    }
    return rc;
}

int store_log_event(Store *store, const char *pid, const char *kind,
                    const char *detail, int64_t wall_ms, int64_t mono_ns,
                    SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(store, STMT_EVENT, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    bind_text(s, 1, pid);
    bind_text(s, 2, kind);
    bind_text(s, 3, detail);
    sqlite3_bind_int64(s, 4, wall_ms);
    if (mono_ns) {
        sqlite3_bind_int64(s, 5, mono_ns);
    }
    return run(store, s, "log event", err);
}

int store_begin(Store *store, SimError *err)
{
    return exec(store, "BEGIN IMMEDIATE", err);
}

int store_commit(Store *store, SimError *err)
{
    int rc = exec(store, "COMMIT", err);
    if (rc != SIM_OK) {
        rollback(store);
    }
    return rc;
}

void store_rollback(Store *store)
{
    rollback(store);
}

int store_count_complete(Store *store, int simulated, int *n, SimError *err)
{
    sqlite3_stmt *s;
    int rc = prepare(store,
                     "SELECT COUNT(*) FROM participant WHERE status = "
                     "'completed' AND "
                     "(?1 < 0 OR simulated = ?1)",
                     &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_bind_int(s, 1, simulated);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *n = sqlite3_column_int(s, 0);
    } else {
        rc = db_fail(store, err, "count participants");
    }
    sqlite3_finalize(s);
    return rc;
}
