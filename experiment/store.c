/*
** SQLite storage of one study's data: the connection. Every write is one
** transaction; the database runs in WAL mode with synchronous=FULL (unless a
** power simulation asks for DURABILITY_FAST) and foreign keys on. The files
** of the store and the schema are described in store_int.h. No clock:
** callers pass wall-clock times.
*/
#include "experiment/store_int.h"

#include "common/sim_alloc.h"

#include <string.h>

/* SIM_ERR_BUSY when the last error means "locked, try again later". */
static int error_code(Store *st)
{
    int code = sqlite3_errcode(st->db);
    return code == SQLITE_BUSY || code == SQLITE_LOCKED ? SIM_ERR_BUSY
                                                        : SIM_ERR_DB;
}

int store_fail_db(Store *st, SimError *err, const char *what)
{
    return sim_fail(err, error_code(st), "%s: %s: %s", st->path, what,
                    sqlite3_errmsg(st->db));
}

int store_exec(Store *st, const char *sql, SimError *err)
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

int store_prepare(Store *st, const char *sql, sqlite3_stmt **stmt,
                  SimError *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
        return store_fail_db(st, err, "prepare");
    }
    return SIM_OK;
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
    rc = store_exec(st, "PRAGMA journal_mode=WAL", err);
    if (rc == SIM_OK) {
        rc =
            store_exec(st,
                       durability == DURABILITY_FULL ? "PRAGMA synchronous=FULL"
                                                     : "PRAGMA synchronous=OFF",
                       err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(st, "PRAGMA foreign_keys=ON", err);
    }
    if (rc == SIM_OK) {
        rc = store_migrate(st, err);
    }
    if (rc == SIM_OK) {
        rc = store_attach_study(st, allow_changed, wall_ms, err);
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
    rc = store_prepare(
        st, "SELECT id, hash FROM study ORDER BY id DESC LIMIT 1", &s, err);
    if (rc == SIM_OK) {
        if (sqlite3_step(s) == SQLITE_ROW) {
            st->study_row = sqlite3_column_int64(s, 0);
            store_copy_col(st->hash, sizeof st->hash, s, 1);
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

int store_begin(Store *store, SimError *err)
{
    return store_exec(store, "BEGIN IMMEDIATE", err);
}

int store_commit(Store *store, SimError *err)
{
    int rc = store_exec(store, "COMMIT", err);
    if (rc != SIM_OK) {
        store_rollback(store);
    }
    return rc;
}

void store_rollback(Store *store)
{
    sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
}
