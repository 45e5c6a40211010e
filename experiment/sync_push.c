/*
** The push of a station file's dirty rows (docs/multisite.md): read in one
** snapshot of the file (so that no row goes before the participant it
** belongs to), sent in batches of one server transaction each -- upserts
** for a file's own rows, simlab_put_TABLE for the rows files share -- and
** their marks cleared through a second connection to the file once the
** server committed. The server's policies and triggers decide what a
** station may write; rows it refuses as different versions are counted.
*/
#include "experiment/sync_int.h"

#include "experiment/sync_tables.h"
#include "common/sim_alloc.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"

#include <jansson.h>
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>

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

/* A column value as the text the server parses (REAL with every digit).
** PostgreSQL's text holds no NUL: a NUL byte the file holds (a file not
** written by simlab) goes as \x00, the way the export writes it, instead
** of cutting the text there. */
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
    default: {
        const char *v = (const char *)sqlite3_column_text(s, col);
        size_t n = (size_t)sqlite3_column_bytes(s, col);
        if (!v || !memchr(v, '\0', n)) {
            return sim_strdup(v ? v : "");
        }
        SimBuf b;
        sim_buf_init(&b);
        for (size_t i = 0; i < n; i++) {
            if (v[i]) {
                sim_buf_append(&b, v + i, 1);
            } else {
                sim_buf_puts(&b, "\\x00");
            }
        }
        return sim_buf_take(&b);
    }
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
        rc = sync_local_fail(db, path, t->table, err);
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
        rc = sync_local_fail(db, path, t->table, err);
    }
    sqlite3_finalize(s);
    return rc;
}

/* INSERT INTO t (origin, cols) VALUES (...), ... ON CONFLICT (key) DO
** UPDATE SET every column: an idempotent upsert of n rows (a row the
** server keeps as first pushed is left to its trigger). */
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

/* The rows of b as a JSON array of objects (column name -> text or
** null), for simlab_put_TABLE. */
static char *rows_json(const SyncTable *t, const Batch *b)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < b->n; i++) {
        json_t *o = json_object();
        size_t k = 0;
        for (const SyncColumn *col = t->cols; o && col->name; col++, k++) {
            const char *v = b->val[i * b->ncols + k];
            json_object_set_new(o, col->name,
                                v ? json_stringn_nocheck(v, strlen(v))
                                  : json_null());
        }
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    return text;
}

/* Sends batch b of table t in one server transaction, with the station's
** bookkeeping row; adds the rows the server refused to *refused. */
static int send_batch(SyncConn *c, const SyncTable *t, const Batch *b,
                      const char *origin, const char *station, long *refused,
                      SimError *err)
{
    SimBuf sql;
    sim_buf_init(&sql);
    const char **params = NULL;
    char *json = NULL;
    size_t np;
    if (t->same) {
        sim_buf_printf(&sql, "SELECT simlab_put_%s($1, $2::json)", t->table);
        json = rows_json(t, b);
        np = 2;
    } else {
        upsert_sql(&sql, t, b->n);
        np = 1 + b->n * b->ncols;
    }
    params = sim_calloc(np, sizeof *params);
    if (!sql.data || !params || (t->same && !json)) {
        sim_buf_free(&sql);
        sim_free(params);
        free(json);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    params[0] = origin;
    if (t->same) {
        params[1] = json;
    } else {
        for (size_t i = 0; i < b->n * b->ncols; i++) {
            params[1 + i] = b->val[i];
        }
    }
    PGresult *res = NULL;
    int rc = sync_exec(c, "BEGIN", err);
    /* a full batch's upsert is prepared once per connection: the server
    ** parses and plans it once, not for every thousand rows */
    size_t ti = (size_t)(t - SYNC_TABLES);
    int full = !t->same && b->n == b->cap && ti < 16;
    char name[32];
    snprintf(name, sizeof name, "simlab_up_%zu", ti);
    if (rc == SIM_OK && full && c->prepared[ti] != b->n) {
        PGresult *pr = PQprepare(c->pg, name, sql.data, (int)np, NULL);
        if (PQresultStatus(pr) != PGRES_COMMAND_OK) {
            rc = sync_pg_fail(c, err, t->table, pr);
        } else {
            c->prepared[ti] = b->n;
        }
        PQclear(pr);
    }
    if (rc == SIM_OK && full) {
        res = PQexecPrepared(c->pg, name, (int)np, params, NULL, NULL, 0);
        ExecStatusType es = PQresultStatus(res);
        if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
            rc = sync_pg_fail(c, err, t->table, res);
        }
    } else if (rc == SIM_OK) {
        rc =
            sync_exec_params(c, t->table, sql.data, (int)np, params, &res, err);
    }
    if (rc == SIM_OK && t->same && PQntuples(res) == 1) {
        *refused += atol(PQgetvalue(res, 0, 0));
    }
    PQclear(res);
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
    free(json);
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
        return sync_local_fail(db, path, "begin", err);
    }
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        rc = sync_local_fail(db, path, t->table, err);
    }
    for (size_t i = 0; rc == SIM_OK && i < b->n; i++) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, b->rowid[i]);
        sqlite3_bind_int64(s, 2, b->dirty[i]);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = sync_local_fail(db, path, t->table, err);
        }
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = sync_local_fail(db, path, "commit", err);
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
        return sync_local_fail(db, path, "study", err);
    }
    int rc = SIM_OK;
    while (rc == SIM_OK && sqlite3_step(s) == SQLITE_ROW) {
        const char *p[2] = {(const char *)sqlite3_column_text(s, 1),
                            (const char *)sqlite3_column_text(s, 0)};
        PGresult *res = NULL;
        rc = sync_exec_params(c, "study versions",
                              "SELECT n_same, other FROM "
                              "simlab_study_versions($1, $2)",
                              2, p, &res, err);
        if (rc == SIM_OK && atoi(PQgetvalue(res, 0, 0)) == 0 &&
            !PQgetisnull(res, 0, 1)) {
            char id[200], other[80];
            sim_escape_term(p[0], id, sizeof id);
            sim_escape_term(PQgetvalue(res, 0, 1), other, sizeof other);
            if (!accept) {
                rc = sim_fail(err, SIM_ERR_INVALID,
                              "%s: the server holds data of study '%s' with "
                              "bundle hash %.12s…, but %s was recorded with "
                              "bundle hash %.12s…; the bundle differs between "
                              "stations (--accept-changed-bundle pushes this "
                              "version beside the other)",
                              c->redacted, id, other, path, p[1]);
            } else {
                const char *lp[3] = {origin, "bundle_accepted", p[1]};
                rc = sync_exec_params(c, "log", "SELECT simlab_log($1, $2, $3)",
                                      3, lp, NULL, err);
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

/* Pushes every table: rows read through rdb (one snapshot), marks cleared
** through wdb. */
static int push_tables(SyncConn *c, sqlite3 *rdb, sqlite3 *wdb,
                       const char *path, const char *origin,
                       const char *station, size_t batch_rows,
                       SyncPushStats *stats, SimError *err)
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
            rc = read_batch(rdb, path, t, &cursor, &b, err);
            if (rc != SIM_OK || b.n == 0) {
                break;
            }
            rc = send_batch(c, t, &b, origin, station, &stats->refused, err);
            if (rc == SIM_OK) {
                rc = mark_batch(wdb, path, t, &b, err);
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
        rc = sync_local_fail(db, db_path, "begin", err);
    }
    for (size_t i = 0; rc == SIM_OK && i < SYNC_N_TABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE %s SET sync_dirty = sync_dirty + 1",
                 SYNC_TABLES[i].table);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            rc = sync_local_fail(db, db_path, SYNC_TABLES[i].table, err);
        }
    }
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = sync_local_fail(db, db_path, "commit", err);
    }
    if (rc != SIM_OK && db) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

/* Rows of this file the server refused so far (sync_conflict). */
static int count_refused(SyncConn *c, const char *origin, long *n,
                         SimError *err)
{
    const char *p[1] = {origin};
    PGresult *res = NULL;
    int rc = sync_exec_params(c, "refused rows",
                              "SELECT count(*) FROM sync_conflict WHERE "
                              "origin = $1",
                              1, p, &res, err);
    *n = rc == SIM_OK ? atol(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return rc;
}

/* The file's id, station and last activity. */
static int read_origin(sqlite3 *db, const char *path, char *origin,
                       char *station, char *activity, SimError *err)
{
    if (sync_local_text(db, "SELECT uuid FROM sync_origin", origin, 64) != 0 ||
        sync_local_text(db,
                        "SELECT COALESCE((SELECT station FROM lease),"
                        " (SELECT active_station FROM participant ORDER BY"
                        " last_active_ms DESC LIMIT 1), '')",
                        station, 64) != 0 ||
        sync_local_text(db,
                        "SELECT max(m) FROM (SELECT max(last_active_ms) m"
                        " FROM participant UNION ALL SELECT max(wall_ms)"
                        " FROM event)",
                        activity, 32) != 0) {
        return sync_local_fail(db, path, "read sync origin", err);
    }
    return SIM_OK;
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
    sqlite3 *rdb = NULL, *wdb = NULL;
    if (rc == SIM_OK) {
        rc = sync_local_open(db_path, 0, &rdb, err);
    }
    if (rc == SIM_OK) {
        rc = sync_local_open(db_path, 0, &wdb, err);
    }
    if (rc == SIM_OK) {
        /* the marks it clears need no sync of their own: lost in a power
        ** cut, their rows are pushed again (the upserts are idempotent),
        ** and the station's writer waits less for the file */
        sqlite3_exec(wdb, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    }
    char origin[64] = "", station[64] = "", activity[32] = "";
    if (rc == SIM_OK) {
        rc = read_origin(rdb, db_path, origin, station, activity, err);
    }
    if (rc == SIM_OK) {
        rc = sync_claim_origin(c, origin, station, 0, err);
    }
    long refused_before = 0, refused_after = 0;
    if (rc == SIM_OK) {
        rc = count_refused(c, origin, &refused_before, err);
    }
    /* one snapshot of the file for every table */
    if (rc == SIM_OK &&
        sqlite3_exec(rdb, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        rc = sync_local_fail(rdb, db_path, "begin", err);
    }
    if (rc == SIM_OK) {
        rc = check_versions(c, rdb, db_path, origin, accept_version, err);
    }
    if (rc == SIM_OK) {
        rc =
            push_tables(c, rdb, wdb, db_path, origin, station,
                        batch_rows > 0 ? (size_t)batch_rows : 1000, stats, err);
    }
    if (rdb) {
        sqlite3_exec(rdb, "COMMIT", NULL, NULL, NULL);
    }
    if (rc == SIM_OK) {
        rc = count_refused(c, origin, &refused_after, err);
        stats->refused = refused_after - refused_before;
    }
    if (rc == SIM_OK) {
        stats->pending = count_dirty(wdb);
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
                wdb,
                "INSERT INTO sync_state (url, last_push_ms, rows) VALUES "
                "(?, ?, ?) ON CONFLICT (url) DO UPDATE SET last_push_ms = "
                "excluded.last_push_ms, rows = rows + excluded.rows",
                -1, &s, NULL) == SQLITE_OK) {
            sqlite3_bind_text(s, 1, c->redacted, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 2, wall_ms);
            sqlite3_bind_int64(s, 3, stats->rows);
            if (sqlite3_step(s) != SQLITE_DONE) {
                rc = sync_local_fail(wdb, db_path, "sync_state", err);
            }
        } else {
            rc = sync_local_fail(wdb, db_path, "sync_state", err);
        }
        sqlite3_finalize(s);
    }
    sqlite3_close(rdb);
    sqlite3_close(wdb);
    return rc;
}
