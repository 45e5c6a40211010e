/*
** The store's schema and its migrations (PRAGMA user_version =
** STORE_SCHEMA_VERSION; migrate forward, refuse newer files), and the rows
** that tie data to exactly what participants saw: the study definition
** with its bundle hash, and its items.
*/
#include "experiment/store_int.h"

#include "experiment/sync_tables.h"
#include "common/sim_columns.h"
#include "common/sim_text.h"

#include <stdlib.h>
#include <string.h>

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
    "CREATE INDEX event_participant ON event(participant);";

/* Version 2: the station of each response (NULL for responses recorded
** before version 2: not known), the station of each participant's last
** write (from the enrolling station for older rows), and the lease of the
** one writer. New files run version 1 then this, so that an old file and a
** new one end with the same schema. */
static const char *const SCHEMA_V2 =
    "ALTER TABLE response ADD COLUMN station TEXT DEFAULT NULL;"
    "ALTER TABLE participant ADD COLUMN active_station TEXT;"
    "UPDATE participant SET active_station = station;"
    "CREATE TABLE lease ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  lease_id TEXT NOT NULL,"
    "  station TEXT NOT NULL,"
    "  host TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  started_ms INTEGER NOT NULL,"
    "  heartbeat_ms INTEGER NOT NULL);";

/* Version 3 changed only the view: long_format's station is the
** response's own (the participant's enrolling station for responses
** recorded before version 2). */

/* Version 5: answer deadlines and confidence. Each response records whether
** it timed out (0 for responses recorded before version 5) and the
** confidence given with it (NULL: none, or recorded before version 5);
** long_format gains timed_out, confidence and confidence_rt_ms. */
static const char *const SCHEMA_V5 =
    "ALTER TABLE response ADD COLUMN timed_out INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE response ADD COLUMN confidence INTEGER DEFAULT NULL;"
    "ALTER TABLE response ADD COLUMN confidence_ns INTEGER DEFAULT NULL;";

/* Version 4: the answers of questionnaire blocks, one row per answered
** question, written in the transaction of the step's response. */
static const char *const SCHEMA_V4 =
    "CREATE TABLE answer ("
    "  participant TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  question TEXT NOT NULL,"
    "  type TEXT NOT NULL,"
    "  value TEXT NOT NULL,"
    "  rt_ms REAL,"
    "  recorded_ms INTEGER NOT NULL,"
    "  station TEXT,"
    "  PRIMARY KEY (participant, seq, question),"
    "  FOREIGN KEY (participant, seq) REFERENCES trial(participant, seq));";

/* Version 6: within-subject designs. Each step records the condition it
** shows (NULL: the participant's, as for every step before version 6), the
** participant their order of conditions (comma-separated ids) and Williams
** row (NULL outside latin squares), and long_format's condition is the
** step's. */
static const char *const SCHEMA_V6 =
    "ALTER TABLE trial ADD COLUMN condition TEXT DEFAULT NULL;"
    "ALTER TABLE participant ADD COLUMN condition_order TEXT DEFAULT NULL;"
    "ALTER TABLE participant ADD COLUMN order_row INTEGER DEFAULT NULL;";

/* Version 7: sync bookkeeping (experiment/sync.c, docs/multisite.md): the
** file's own id (the origin of its rows on a server), the last push per
** server, where a participant's condition was chosen (NULL: by this
** station without a server; 'server'; 'station_fallback': the server was
** unreachable), and every pushed table's sync_dirty mark
** (store_sync_mark_sql). Existing rows start dirty: pushed at the first
** sync. */
static const char *const SCHEMA_V7 =
    "CREATE TABLE sync_origin ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  uuid TEXT NOT NULL);"
    "INSERT INTO sync_origin VALUES (1, lower(hex(randomblob(16))));"
    "CREATE TABLE sync_state ("
    "  url TEXT PRIMARY KEY,"
    "  last_push_ms INTEGER NOT NULL,"
    "  rows INTEGER NOT NULL DEFAULT 0);"
    "ALTER TABLE participant ADD COLUMN assign_source TEXT;";

int store_sync_mark_sql(const char *table, char *buf, size_t size)
{
    int n = snprintf(
        buf, size,
        "ALTER TABLE %s ADD COLUMN sync_dirty INTEGER NOT NULL DEFAULT 1;"
        "CREATE INDEX %s_sync_dirty ON %s(sync_dirty) WHERE sync_dirty > 0;"
        "CREATE TRIGGER %s_sync_touch AFTER UPDATE ON %s"
        " WHEN NEW.sync_dirty = OLD.sync_dirty BEGIN"
        " UPDATE %s SET sync_dirty = OLD.sync_dirty + 1"
        " WHERE rowid = NEW.rowid; END;",
        table, table, table, table, table, table);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Adds the sync mark to table (store_sync_mark_sql). */
static int mark_for_sync(Store *st, const char *table, SimError *err)
{
    char sql[1024];
    if (store_sync_mark_sql(table, sql, sizeof sql) != 0) {
        return sim_fail(err, SIM_ERR_DB, "%s: sync mark of %s too long",
                        st->path, table);
    }
    return store_exec(st, sql, err);
}

/* 1 when the file has table (a pushed table created by a later step is
** marked by that step). */
static int has_table(Store *st, const char *table)
{
    sqlite3_stmt *s = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                           "AND name = ?",
                           -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
        found = sqlite3_step(s) == SQLITE_ROW;
    }
    sqlite3_finalize(s);
    return found;
}

static int migrate_v7(Store *st, SimError *err)
{
    int rc = store_exec(st, SCHEMA_V7, err);
    for (size_t i = 0; rc == SIM_OK && i < SYNC_N_TABLES; i++) {
        if (!has_table(st, SYNC_TABLES[i].table)) {
            continue; /* created, and marked, by a later step */
        }
        rc = mark_for_sync(st, SYNC_TABLES[i].table, err);
    }
    return rc;
}

/* Version 8: the timing reports of `simlab selftest --db`, one row per run
** of it on a station; report is its JSON ("simlab station timing v1"). */
static const char *const SCHEMA_V8 = "CREATE TABLE station_timing ("
                                     "  id INTEGER PRIMARY KEY,"
                                     "  station TEXT NOT NULL,"
                                     "  created_ms INTEGER NOT NULL,"
                                     "  virtual_display INTEGER NOT NULL,"
                                     "  report TEXT NOT NULL);";

/* Version 8 creates station_timing and marks it for sync, as version 7
** marked the tables before it. */
static int migrate_v8(Store *st, SimError *err)
{
    int rc = store_exec(st, SCHEMA_V8, err);
    return rc == SIM_OK ? mark_for_sync(st, "station_timing", err) : rc;
}

/* Version 9: the interaction table (experiment/interaction.h): reveals,
** hides and hovers of explanations given on request or on hover, written
** with their step's response; marked for sync. */
static int migrate_v9(Store *st, SimError *err)
{
    char sql[2048];
    if (interaction_create_sql(sql, sizeof sql) != 0) {
        return sim_fail(err, SIM_ERR_DB, "%s: interaction table too long",
                        st->path);
    }
    int rc = store_exec(st, sql, err);
    return rc == SIM_OK ? mark_for_sync(st, "interaction", err) : rc;
}

/* Version 10: `simlab serve`'s access rows (store_online.c): how each web
** participant may continue from another browser, with keyed hashes of
** their browser key, platform session and resume code, and the file's own
** secret, the key of those hashes and of the pilot link. Neither is
** pushed to a server. */
static const char *const SCHEMA_V10 =
    "CREATE TABLE online_access ("
    "  participant TEXT PRIMARY KEY REFERENCES participant(id),"
    "  mode TEXT NOT NULL,"
    "  key_hash TEXT,"
    "  session_hash TEXT,"
    "  code_hash TEXT,"
    "  updated_ms INTEGER NOT NULL);"
    "CREATE TABLE online_secret ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  secret TEXT NOT NULL);"
    "INSERT INTO online_secret VALUES (1, lower(hex(randomblob(32))));";

/* Version 11: per-item answer options. Each step answered from its item's
** own options records them in the order offered (class ids separated by
** '|'; NULL: the study's classes); long_format gains n_options and
** options_shown. */
static const char *const SCHEMA_V11 =
    "ALTER TABLE trial ADD COLUMN options TEXT DEFAULT NULL;";

/* The long_format view of this simlab (simlab long format v1, its
** columns those of common/sim_columns.h) in place of the file's: made
** whenever the schema changes, so every file, new or migrated, has the
** view of its simlab. */
static int make_view(Store *st, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "DROP VIEW IF EXISTS long_format;");
    sim_columns_store_view_sql(&b);
    int rc = b.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                   : store_exec(st, sim_buf_cstr(&b), err);
    sim_buf_free(&b);
    return rc;
}

/* Brings the schema to STORE_SCHEMA_VERSION. Version 0 = empty file. */
int store_migrate(Store *st, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(st, "PRAGMA user_version", &s, err);
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
    rc = store_exec(st, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (version < 1) {
        rc = store_exec(st, SCHEMA_V1, err);
    }
    if (rc == SIM_OK && version < 2) {
        rc = store_exec(st, SCHEMA_V2, err);
    }
    if (rc == SIM_OK && version < 4) {
        rc = store_exec(st, SCHEMA_V4, err);
    }
    if (rc == SIM_OK && version < 5) {
        rc = store_exec(st, SCHEMA_V5, err);
    }
    if (rc == SIM_OK && version < 6) {
        rc = store_exec(st, SCHEMA_V6, err);
    }
    if (rc == SIM_OK && version < 7) {
        rc = migrate_v7(st, err);
    }
    if (rc == SIM_OK && version < 8) {
        rc = migrate_v8(st, err);
    }
    if (rc == SIM_OK && version < 9) {
        rc = migrate_v9(st, err);
    }
    if (rc == SIM_OK && version < 10) {
        rc = store_exec(st, SCHEMA_V10, err);
    }
    /* version 11 (SCHEMA_V11) also: long_format (made below) gains
    ** model_correct, advice_shown and followed_advice (verify and decide
    ** blocks), from columns every version has */
    if (rc == SIM_OK && version < 11) {
        rc = store_exec(st, SCHEMA_V11, err);
    }
    if (rc == SIM_OK) {
        rc = make_view(st, err);
    }
    if (rc == SIM_OK) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d",
                 STORE_SCHEMA_VERSION);
        rc = store_exec(st, sql, err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        store_rollback(st);
    }
    return rc;
}

int store_add_station_timing(Store *st, const char *station, int64_t wall_ms,
                             int is_virtual, const char *report_json,
                             SimError *err)
{
    sqlite3_stmt *s = NULL;
    int rc = store_prepare(st,
                           "INSERT INTO station_timing (station, created_ms, "
                           "virtual_display, report) VALUES (?, ?, ?, ?)",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, station);
    sqlite3_bind_int64(s, 2, wall_ms);
    sqlite3_bind_int(s, 3, is_virtual != 0);
    store_bind_text(s, 4, report_json);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = store_fail_db(st, err, "store the station timing report");
    }
    sqlite3_finalize(s);
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

static int insert_study(Store *st, int64_t wall_ms, SimError *err)
{
    const Study *study = st->study;
    char *def = study_stored_definition(study); /* with its metrics */
    if (!def) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sqlite3_stmt *s = NULL;
    int rc =
        store_prepare(st,
                      "INSERT INTO study (study_id, title, hash, definition, "
                      "software, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                      &s, err);
    if (rc != SIM_OK) {
        free(def);
        return rc;
    }
    store_bind_text(s, 1, study->id ? study->id : "");
    store_bind_text(s, 2, study->title);
    store_bind_text(s, 3, study->hash);
    store_bind_text(s, 4, def);
    store_bind_text(s, 5, "simlab " SIMLAB_VERSION);
    sqlite3_bind_int64(s, 6, wall_ms);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = store_fail_db(st, err, "insert study");
    }
    sqlite3_finalize(s);
    free(def);
    if (rc != SIM_OK) {
        return rc;
    }
    st->study_row = sqlite3_last_insert_rowid(st->db);
    rc = store_prepare(
        st,
        "INSERT INTO item (study, key, pool, source_id, domain, "
        "label, prediction, cf_prediction, prediction_type) VALUES "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &s, err);
    for (size_t i = 0; rc == SIM_OK && i < study->n_items; i++) {
        const Item *it = &study->items[i];
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, st->study_row);
        store_bind_text(s, 2, it->key);
        store_bind_text(s, 3, it->pool);
        store_bind_text(s, 4, it->id);
        store_bind_text(s, 5, it->domain ? it->domain : study->domain);
        store_bind_text(s, 6, store_class_id(study, it->label));
        store_bind_text(s, 7, store_class_id(study, it->prediction));
        store_bind_text(
            s, 8, it->cf ? store_class_id(study, it->cf->prediction) : NULL);
        store_bind_text(s, 9, prediction_type(study, it));
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = store_fail_db(st, err, "insert item");
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* Finds or stores the study row matching the bundle's hash. */
int store_attach_study(Store *st, int allow_changed, int64_t wall_ms,
                       SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(
        st, "SELECT id, hash, study_id FROM study ORDER BY id DESC", &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int found = 0, any = 0;
    char latest_hash[65] = "", latest_id[128] = "";
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *h = (const char *)sqlite3_column_text(s, 1);
        if (!any) {
            store_copy_col(latest_hash, sizeof latest_hash, s, 1);
            store_copy_col(latest_id, sizeof latest_id, s, 2);
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
    rc = store_exec(st, "BEGIN IMMEDIATE", err);
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
        rc = store_exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        store_rollback(st);
    }
    return rc;
}
