/*
** Sync to PostgreSQL: the connection, the server schema (built from
** experiment/sync_tables.h), URL redaction and the push of dirty rows.
** Assignment is in sync_assign.c, status in sync_status.c, the background
** worker in sync_worker.c; the shared pieces in sync_int.h.
*/
#include "experiment/sync_int.h"

#include "experiment/sync_tables.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "common/sim_url.h"

#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

int sync_is_url(const char *s)
{
    return sim_url_is_pg(s);
}

void sync_url_redact(const char *url, char *out, size_t size)
{
    sim_url_redact(url, out, size);
}

/* ------------------------------------------------------------ connection */

int sync_pg_fail(SyncConn *c, SimError *err, const char *what,
                 const PGresult *res)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg) {
        msg = c->pg ? PQerrorMessage(c->pg) : "no connection";
    }
    char clean[400];
    snprintf(clean, sizeof clean, "%s", msg);
    size_t n = strlen(clean);
    while (n && (clean[n - 1] == '\n' || clean[n - 1] == ' ')) {
        clean[--n] = '\0';
    }
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", c->redacted, what, clean);
}

int sync_exec(SyncConn *c, const char *sql, SimError *err)
{
    PGresult *res = PQexec(c->pg, sql);
    ExecStatusType st = PQresultStatus(res);
    int rc = SIM_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        rc = sync_pg_fail(c, err, "query", res);
    }
    PQclear(res);
    return rc;
}

int sync_exec_params(SyncConn *c, const char *what, const char *sql, int n,
                     const char *const *params, PGresult **out, SimError *err)
{
    PGresult *res = PQexecParams(c->pg, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        int rc = sync_pg_fail(c, err, what, res);
        PQclear(res);
        return rc;
    }
    if (out) {
        *out = res;
    } else {
        PQclear(res);
    }
    return SIM_OK;
}

void sync_rollback(SyncConn *c)
{
    if (c->pg && PQstatus(c->pg) == CONNECTION_OK &&
        PQtransactionStatus(c->pg) != PQTRANS_IDLE) {
        PQclear(PQexec(c->pg, "ROLLBACK"));
    }
}

static PGconn *connect_with(const char *url, const char *timeout)
{
    /* these come first so that values in the URL win; a network that
    ** drops packets fails a query within about 5 s instead of TCP's
    ** minutes (tcp_user_timeout, keepalives) */
    const char *keys[] = {"connect_timeout",
                          "application_name",
                          "tcp_user_timeout",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "dbname",
                          NULL};
    const char *vals[] = {timeout, "simlab", "5000", "5", "2", "2", url, NULL};
    return PQconnectdbParams(keys, vals, 1);
}

/* The schema of table t (CREATE, then every column ADD IF NOT EXISTS, so
** that a column added to sync_tables.c appears on existing servers). */
static void table_ddl(SimBuf *b, const SyncTable *t)
{
    sim_buf_printf(b,
                   "CREATE TABLE IF NOT EXISTS %s (origin text NOT NULL, "
                   "synced_at timestamptz NOT NULL DEFAULT now());",
                   t->table);
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s;",
                       t->table, col->name, col->pg_type);
    }
    sim_buf_printf(b,
                   "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint "
                   "WHERE conname = '%s_sync_key') THEN ALTER TABLE %s ADD "
                   "CONSTRAINT %s_sync_key PRIMARY KEY (%s); END IF; END $$;",
                   t->table, t->table, t->table, t->key);
}

/* The server's long_format: the columns and rules of the local view
** (store_schema.c), over the rows of every station file, file after file
** in the order of their station names (then file id), each file in its
** own order: the rows simlab-analyze reads from the station files given
** in that order. */
static const char *const LONG_FORMAT_VIEW =
    "DROP VIEW IF EXISTS long_format;"
    "CREATE VIEW long_format AS SELECT"
    "  p.id AS participant,"
    "  COALESCE(t.condition, p.condition) AS condition,"
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
    "  COALESCE(r.station, p.station) AS station,"
    "  COALESCE(p.exclusion_reason, '') AS exclusion_reason,"
    "  r.onset_ns AS onset_ns,"
    "  r.response_ns AS response_ns,"
    "  r.timed_out AS timed_out,"
    "  r.confidence AS confidence,"
    "  CASE WHEN r.confidence_ns > 0 AND r.onset_ns > 0"
    "       THEN (r.confidence_ns - r.onset_ns) / 1e6 END AS confidence_rt_ms"
    " FROM trial t"
    " JOIN participant p ON p.id = t.participant"
    " JOIN response r ON r.participant = t.participant AND r.seq = t.seq"
    "   AND r.done = 1"
    " LEFT JOIN item i ON i.study_hash = p.study_hash AND i.key = t.item"
    " LEFT JOIN sync_station f ON f.origin = p.origin"
    " WHERE t.phase IS NOT NULL"
    " ORDER BY f.station, p.origin, p.created_ms, p.id, t.seq;";

static const char *const SERVER_TABLES =
    "CREATE TABLE IF NOT EXISTS sync_station ("
    "  origin text PRIMARY KEY,"
    "  station text,"
    "  last_push timestamptz,"
    "  last_activity_ms bigint,"
    "  rows_pushed bigint NOT NULL DEFAULT 0,"
    "  pending bigint NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS sync_log ("
    "  id bigserial PRIMARY KEY,"
    "  origin text,"
    "  kind text NOT NULL,"
    "  detail text,"
    "  at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX IF NOT EXISTS participant_count ON participant"
    "  (study_hash, pilot, simulated, condition, status);";

/* The whole server schema as SQL: every statement is idempotent. */
static void schema_sql(SimBuf *b)
{
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        table_ddl(b, &SYNC_TABLES[i]);
    }
    sim_buf_puts(b, SERVER_TABLES);
    sim_buf_puts(b, LONG_FORMAT_VIEW);
}

/* 1 when the server's schema is this simlab's version built from this
** very SQL (its md5 is stored with the version): nothing to do, and no
** DDL lock taken, so that connecting never waits behind a long read. */
static int schema_current(SyncConn *c, const char *sql)
{
    char version[16];
    snprintf(version, sizeof version, "%d", SYNC_SERVER_SCHEMA_VERSION);
    const char *p[2] = {version, sql};
    PGresult *res = PQexecParams(c->pg,
                                 "SELECT 1 FROM simlab_schema WHERE version "
                                 "= $1 AND ddl_md5 = md5($2)",
                                 2, NULL, p, NULL, NULL, 0);
    int ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
    PQclear(res);
    return ok;
}

/* Creates or migrates the server schema when it is not current, in one
** transaction serialised by an advisory lock so that stations starting
** together do not race. */
static int server_schema(SyncConn *c, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    schema_sql(&b);
    if (!b.data) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (schema_current(c, b.data)) {
        sim_buf_free(&b);
        return SIM_OK;
    }
    int rc = sync_exec(c,
                       "BEGIN;"
                       "SELECT pg_advisory_xact_lock(" SYNC_LOCK_SCHEMA ");"
                       "CREATE TABLE IF NOT EXISTS simlab_schema ("
                       "  version integer NOT NULL, ddl_md5 text);",
                       err);
    int version = 0;
    if (rc == SIM_OK) {
        PGresult *res = PQexec(c->pg, "SELECT max(version) FROM simlab_schema");
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
            rc = sync_pg_fail(c, err, "read schema version", res);
        } else if (!PQgetisnull(res, 0, 0)) {
            version = atoi(PQgetvalue(res, 0, 0));
        }
        PQclear(res);
    }
    if (rc == SIM_OK && version > SYNC_SERVER_SCHEMA_VERSION) {
        rc = sim_fail(err, SIM_ERR_DB,
                      "%s: server schema version %d is newer than this "
                      "simlab (%d); use a newer simlab",
                      c->redacted, version, SYNC_SERVER_SCHEMA_VERSION);
    }
    /* later server versions: if (version < 2) { ... } before the SQL */
    if (rc == SIM_OK) {
        rc = sync_exec(c, b.data, err);
    }
    if (rc == SIM_OK) {
        char version_s[16];
        snprintf(version_s, sizeof version_s, "%d", SYNC_SERVER_SCHEMA_VERSION);
        const char *p[2] = {version_s, b.data};
        PQclear(PQexec(c->pg, "DELETE FROM simlab_schema"));
        rc = sync_exec_params(c, "schema version",
                              "INSERT INTO simlab_schema VALUES ($1, md5($2))",
                              2, p, NULL, err);
    }
    if (rc == SIM_OK) {
        rc = sync_exec(c, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        sync_rollback(c);
    }
    sim_buf_free(&b);
    return rc;
}

static int open_pg(SyncConn *c, const char *timeout, SimError *err)
{
    if (c->pg) {
        PQfinish(c->pg);
    }
    c->pg = connect_with(c->url, timeout);
    c->study_sent[0] = '\0';
    if (!c->pg) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (PQstatus(c->pg) != CONNECTION_OK) {
        return sync_pg_fail(c, err, "cannot connect", NULL);
    }
    PQclear(PQexec(c->pg, "SET client_min_messages = warning"));
    return server_schema(c, err);
}

int sync_conn_new(const char *url, SyncConn **out, SimError *err)
{
    *out = NULL;
    SyncConn *c = sim_calloc(1, sizeof *c);
    if (!c || !(c->url = sim_strdup(url))) {
        sim_free(c);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sync_url_redact(url, c->redacted, sizeof c->redacted);
    *out = c;
    return SIM_OK;
}

int sync_connect(const char *url, SyncConn **out, SimError *err)
{
    SyncConn *c;
    int rc = sync_conn_new(url, &c, err);
    if (rc != SIM_OK) {
        return rc;
    }
    *out = NULL;
    rc = open_pg(c, "5", err);
    if (rc != SIM_OK) {
        sync_close(c);
        return rc;
    }
    *out = c;
    return SIM_OK;
}

int sync_ensure(SyncConn *c, SimError *err)
{
    if (c->pg && PQstatus(c->pg) == CONNECTION_OK) {
        return SIM_OK;
    }
    return open_pg(c, "1", err);
}

void sync_close(SyncConn *c)
{
    if (!c) {
        return;
    }
    if (c->pg) {
        PQfinish(c->pg);
    }
    sim_free(c->url);
    sim_free(c);
}

const char *sync_url(const SyncConn *c)
{
    return c->redacted;
}

/* ----------------------------------------------------------- local file */

int sync_local_open(const char *path, int readonly, sqlite3 **out,
                    SimError *err)
{
    sqlite3 *db = NULL;
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        int rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                          db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *s = NULL;
    int version = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        version = sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
    if (version < 7) {
        sqlite3_close(db);
        return sim_fail(err, SIM_ERR_DB,
                        "%s: schema version %d has no sync marks (7 or "
                        "later needed; a station run or simulate with this "
                        "simlab migrates it)",
                        path, version);
    }
    *out = db;
    return SIM_OK;
}

/* The text of column 0 of sql, into out ("" when none). */
int sync_local_text(sqlite3 *db, const char *sql, char *out, size_t size)
{
    sqlite3_stmt *s = NULL;
    out[0] = '\0';
    int rc = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(s, 0);
            snprintf(out, size, "%s", v ? (const char *)v : "");
        }
        rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(s);
    return rc;
}

static int local_fail(sqlite3 *db, const char *path, const char *what,
                      SimError *err)
{
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", path, what,
                    sqlite3_errmsg(db));
}

/* ------------------------------------------------------------------ push */

/* One batch of rows read from the file: their row ids and marks, and the
** column texts (NULL for SQL NULL), row after row. */
typedef struct Batch {
    size_t n, ncols, cap;
    int64_t *rowid, *dirty;
    char **val;
} Batch;

static void batch_clear(Batch *b)
{
    for (size_t i = 0; i < b->n * b->ncols; i++) {
        sim_free(b->val[i]);
    }
    b->n = 0;
}

static void batch_free(Batch *b)
{
    batch_clear(b);
    sim_free(b->rowid);
    sim_free(b->dirty);
    sim_free(b->val);
}

/* A column value as the text the server parses (REAL with every digit). */
static char *value_text(sqlite3_stmt *s, int col)
{
    switch (sqlite3_column_type(s, col)) {
    case SQLITE_NULL:
        return NULL;
    case SQLITE_FLOAT: {
        char num[40];
        snprintf(num, sizeof num, "%.17g", sqlite3_column_double(s, col));
        return sim_strdup(num);
    }
    default:
        return sim_strdup((const char *)sqlite3_column_text(s, col));
    }
}

/* Reads up to b->cap dirty rows of t after *cursor (row id order). */
static int read_batch(sqlite3 *db, const char *path, const SyncTable *t,
                      int64_t *cursor, Batch *b, SimError *err)
{
    SimBuf sql;
    sim_buf_init(&sql);
    sim_buf_puts(&sql, "SELECT t.rowid, t.sync_dirty");
    for (const SyncColumn *col = t->cols; col->name; col++) {
        if (col->expr) {
            sim_buf_printf(&sql, ", %s", col->expr);
        } else {
            sim_buf_printf(&sql, ", t.%s", col->name);
        }
    }
    sim_buf_printf(&sql,
                   " FROM %s t WHERE t.sync_dirty > 0 AND t.rowid > ?"
                   " ORDER BY t.rowid LIMIT %zu",
                   t->table, b->cap);
    sqlite3_stmt *s = NULL;
    int rc = SIM_OK;
    if (!sql.data) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (sqlite3_prepare_v2(db, sql.data, -1, &s, NULL) != SQLITE_OK) {
        rc = local_fail(db, path, t->table, err);
    }
    sim_buf_free(&sql);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_bind_int64(s, 1, *cursor);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        size_t i = b->n++;
        b->rowid[i] = sqlite3_column_int64(s, 0);
        b->dirty[i] = sqlite3_column_int64(s, 1);
        for (size_t k = 0; k < b->ncols; k++) {
            b->val[i * b->ncols + k] = value_text(s, (int)k + 2);
        }
        *cursor = b->rowid[i];
    }
    if (step != SQLITE_DONE) {
        rc = local_fail(db, path, t->table, err);
    }
    sqlite3_finalize(s);
    return rc;
}

/* INSERT INTO t (origin, cols) VALUES (...), ... ON CONFLICT (key) DO
** UPDATE SET every column: an idempotent upsert of n rows. */
static void upsert_sql(SimBuf *b, const SyncTable *t, size_t n)
{
    size_t ncols = sync_table_ncols(t);
    sim_buf_printf(b, "INSERT INTO %s (origin", t->table);
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, ", %s", col->name);
    }
    sim_buf_puts(b, ") VALUES ");
    size_t p = 2;
    for (size_t i = 0; i < n; i++) {
        sim_buf_puts(b, i ? ",($1" : "($1");
        for (size_t k = 0; k < ncols; k++) {
            sim_buf_printf(b, ",$%zu", p++);
        }
        sim_buf_puts(b, ")");
    }
    sim_buf_printf(b,
                   " ON CONFLICT (%s) DO UPDATE SET origin = EXCLUDED.origin,"
                   " synced_at = now()",
                   t->key);
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, ", %s = EXCLUDED.%s", col->name, col->name);
    }
}

/* Sends batch b of table t in one server transaction, with the station's
** bookkeeping row. */
static int send_batch(SyncConn *c, const SyncTable *t, const Batch *b,
                      const char *origin, const char *station, SimError *err)
{
    SimBuf sql;
    sim_buf_init(&sql);
    upsert_sql(&sql, t, b->n);
    size_t np = 1 + b->n * b->ncols;
    const char **params = sim_calloc(np, sizeof *params);
    if (!sql.data || !params) {
        sim_buf_free(&sql);
        sim_free(params);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    params[0] = origin;
    for (size_t i = 0; i < b->n * b->ncols; i++) {
        params[1 + i] = b->val[i];
    }
    int rc = sync_exec(c, "BEGIN", err);
    if (rc == SIM_OK) {
        rc =
            sync_exec_params(c, t->table, sql.data, (int)np, params, NULL, err);
    }
    if (rc == SIM_OK) {
        char rows[32];
        snprintf(rows, sizeof rows, "%zu", b->n);
        const char *p3[] = {origin, station, rows};
        rc = sync_exec_params(
            c, "sync_station",
            "INSERT INTO sync_station (origin, station, last_push, "
            "rows_pushed) VALUES ($1, $2, now(), $3) ON CONFLICT (origin) DO "
            "UPDATE SET station = EXCLUDED.station, last_push = now(), "
            "rows_pushed = sync_station.rows_pushed + EXCLUDED.rows_pushed",
            3, p3, NULL, err);
    }
    if (rc == SIM_OK) {
        rc = sync_exec(c, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        sync_rollback(c);
    }
    sim_buf_free(&sql);
    sim_free(params);
    return rc;
}

/* Clears the marks of the rows of b that did not change since they were
** read (a row written meanwhile keeps a higher mark and goes next time). */
static int mark_batch(sqlite3 *db, const char *path, const SyncTable *t,
                      const Batch *b, SimError *err)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "UPDATE %s SET sync_dirty = 0 WHERE rowid = ? AND sync_dirty = ?",
             t->table);
    sqlite3_stmt *s = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        return local_fail(db, path, "begin", err);
    }
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        rc = local_fail(db, path, t->table, err);
    }
    for (size_t i = 0; rc == SIM_OK && i < b->n; i++) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, b->rowid[i]);
        sqlite3_bind_int64(s, 2, b->dirty[i]);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = local_fail(db, path, t->table, err);
        }
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = local_fail(db, path, "commit", err);
    }
    if (rc != SIM_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    return rc;
}

/* Refuses a study version the server does not know when it holds another
** version of the same study, unless accepted (then logged there). */
static int check_versions(SyncConn *c, sqlite3 *db, const char *path,
                          const char *origin, int accept, SimError *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT hash, study_id FROM study WHERE "
                           "sync_dirty > 0",
                           -1, &s, NULL) != SQLITE_OK) {
        return local_fail(db, path, "study", err);
    }
    int rc = SIM_OK;
    while (rc == SIM_OK && sqlite3_step(s) == SQLITE_ROW) {
        const char *p[2] = {(const char *)sqlite3_column_text(s, 0),
                            (const char *)sqlite3_column_text(s, 1)};
        PGresult *res =
            PQexecParams(c->pg,
                         "SELECT count(*) FILTER (WHERE hash = $1), "
                         "max(hash) FILTER (WHERE hash <> $1) FROM study "
                         "WHERE study_id = $2",
                         2, NULL, p, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
            rc = sync_pg_fail(c, err, "study versions", res);
        } else if (atoi(PQgetvalue(res, 0, 0)) == 0 &&
                   !PQgetisnull(res, 0, 1)) {
            if (!accept) {
                rc = sim_fail(err, SIM_ERR_INVALID,
                              "%s: the server holds data of study '%s' with "
                              "bundle hash %.12s…, but %s was recorded with "
                              "bundle hash %.12s…; the bundle differs between "
                              "stations (--accept-changed-bundle pushes this "
                              "version beside the other)",
                              c->redacted, p[1], PQgetvalue(res, 0, 1), path,
                              p[0]);
            } else {
                const char *lp[3] = {origin, "bundle_accepted", p[0]};
                PQclear(PQexecParams(c->pg,
                                     "INSERT INTO sync_log (origin, kind, "
                                     "detail) VALUES ($1, $2, $3)",
                                     3, NULL, lp, NULL, NULL, 0));
            }
        }
        PQclear(res);
    }
    sqlite3_finalize(s);
    return rc;
}

/* Rows still dirty in the file. */
static long count_dirty(sqlite3 *db)
{
    long n = 0;
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        char sql[128], v[32];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM %s WHERE sync_dirty > 0",
                 SYNC_TABLES[i].table);
        if (sync_local_text(db, sql, v, sizeof v) == 0) {
            n += atol(v);
        }
    }
    return n;
}

static int push_tables(SyncConn *c, sqlite3 *db, const char *path,
                       const char *origin, const char *station,
                       size_t batch_rows, SyncPushStats *stats, SimError *err)
{
    int rc = SIM_OK;
    for (size_t ti = 0; rc == SIM_OK && ti < SYNC_N_TABLES; ti++) {
        const SyncTable *t = &SYNC_TABLES[ti];
        Batch b = {0};
        b.ncols = sync_table_ncols(t);
        /* PostgreSQL takes at most 65535 parameters per statement */
        b.cap = batch_rows;
        if (b.cap * b.ncols + 1 > 65535) {
            b.cap = 65534 / b.ncols;
        }
        b.rowid = sim_calloc(b.cap, sizeof *b.rowid);
        b.dirty = sim_calloc(b.cap, sizeof *b.dirty);
        b.val = sim_calloc(b.cap * b.ncols, sizeof *b.val);
        if (!b.rowid || !b.dirty || !b.val) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int64_t cursor = 0;
        while (rc == SIM_OK) {
            rc = read_batch(db, path, t, &cursor, &b, err);
            if (rc != SIM_OK || b.n == 0) {
                break;
            }
            rc = send_batch(c, t, &b, origin, station, err);
            if (rc == SIM_OK) {
                rc = mark_batch(db, path, t, &b, err);
            }
            if (rc == SIM_OK) {
                stats->rows += (long)b.n;
                stats->batches++;
            }
            batch_clear(&b);
        }
        batch_free(&b);
    }
    return rc;
}

int sync_mark_all(const char *db_path, SimError *err)
{
    sqlite3 *db = NULL;
    int rc = sync_local_open(db_path, 0, &db, err);
    if (rc == SIM_OK &&
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        rc = local_fail(db, db_path, "begin", err);
    }
    for (size_t i = 0; rc == SIM_OK && i < SYNC_N_TABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE %s SET sync_dirty = sync_dirty + 1",
                 SYNC_TABLES[i].table);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            rc = local_fail(db, db_path, SYNC_TABLES[i].table, err);
        }
    }
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = local_fail(db, db_path, "commit", err);
    }
    if (rc != SIM_OK && db) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

int sync_push(SyncConn *c, const char *db_path, int accept_version,
              int batch_rows, int64_t wall_ms, SyncPushStats *stats,
              SimError *err)
{
    SyncPushStats local = {0};
    if (!stats) {
        stats = &local;
    }
    memset(stats, 0, sizeof *stats);
    int rc = sync_ensure(c, err);
    sqlite3 *db = NULL;
    if (rc == SIM_OK) {
        rc = sync_local_open(db_path, 0, &db, err);
    }
    char origin[64], station[64], activity[32];
    if (rc == SIM_OK &&
        (sync_local_text(db, "SELECT uuid FROM sync_origin", origin,
                         sizeof origin) != 0 ||
         sync_local_text(db,
                         "SELECT COALESCE((SELECT station FROM lease),"
                         " (SELECT active_station FROM participant ORDER BY"
                         " last_active_ms DESC LIMIT 1), '')",
                         station, sizeof station) != 0 ||
         sync_local_text(db,
                         "SELECT max(m) FROM (SELECT max(last_active_ms) m"
                         " FROM participant UNION ALL SELECT max(wall_ms)"
                         " FROM event)",
                         activity, sizeof activity) != 0)) {
        rc = local_fail(db, db_path, "read sync origin", err);
    }
    if (rc == SIM_OK) {
        rc = check_versions(c, db, db_path, origin, accept_version, err);
    }
    if (rc == SIM_OK) {
        rc =
            push_tables(c, db, db_path, origin, station,
                        batch_rows > 0 ? (size_t)batch_rows : 1000, stats, err);
    }
    if (rc == SIM_OK) {
        stats->pending = count_dirty(db);
        char pending[32];
        snprintf(pending, sizeof pending, "%ld", stats->pending);
        const char *p[4] = {origin, station, activity[0] ? activity : NULL,
                            pending};
        rc = sync_exec_params(
            c, "sync_station",
            "INSERT INTO sync_station (origin, station, last_push, "
            "last_activity_ms, pending) VALUES ($1, $2, now(), $3, $4) "
            "ON CONFLICT (origin) DO UPDATE SET station = EXCLUDED.station, "
            "last_push = now(), last_activity_ms = EXCLUDED.last_activity_ms, "
            "pending = EXCLUDED.pending",
            4, p, NULL, err);
    }
    if (rc == SIM_OK) {
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(
                db,
                "INSERT INTO sync_state (url, last_push_ms, rows) VALUES "
                "(?, ?, ?) ON CONFLICT (url) DO UPDATE SET last_push_ms = "
                "excluded.last_push_ms, rows = rows + excluded.rows",
                -1, &s, NULL) == SQLITE_OK) {
            sqlite3_bind_text(s, 1, c->redacted, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 2, wall_ms);
            sqlite3_bind_int64(s, 3, stats->rows);
            if (sqlite3_step(s) != SQLITE_DONE) {
                rc = local_fail(db, db_path, "sync_state", err);
            }
        } else {
            rc = local_fail(db, db_path, "sync_state", err);
        }
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return rc;
}
