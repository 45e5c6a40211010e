/*
** SQLite storage of one study's data: the connection. Every write is one
** transaction; the database runs in WAL mode with synchronous=FULL (unless a
** power simulation asks for DURABILITY_FAST) and foreign keys on. The files
** of the store and the schema are described in store_int.h. A read-write
** open is the file's one writer (store_lease.c). No clock: callers pass
** wall-clock times.
*/
#define _GNU_SOURCE
#include "experiment/store_int.h"

#include "common/sim_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SIM_ERR_BUSY when the last error means "locked, try again later". */
static int error_code(Store *st)
{
    int code = sqlite3_errcode(st->db);
    return code == SQLITE_BUSY || code == SQLITE_LOCKED ? SIM_ERR_BUSY
                                                        : SIM_ERR_DB;
}

int store_fail_db(Store *st, SimError *err, const char *what)
{
    /* "disk I/O error" says little: add what the OS said */
    int code = sqlite3_errcode(st->db);
    int sys = sqlite3_system_errno(st->db);
    if (sys && (code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
                code == SQLITE_READONLY || code == SQLITE_FULL)) {
        return sim_fail(err, error_code(st), "%s: %s: %s (%s)", st->path, what,
                        sqlite3_errmsg(st->db), strerror(sys));
    }
    return sim_fail(err, error_code(st), "%s: %s: %s", st->path, what,
                    sqlite3_errmsg(st->db));
}

int store_exec(Store *st, const char *sql, SimError *err)
{
    char *msg = NULL;
    if (st->group && strcmp(sql, "BEGIN IMMEDIATE") == 0) {
        sql = "SAVEPOINT simlab_call";
    } else if (st->group && strcmp(sql, "COMMIT") == 0) {
        sql = "RELEASE simlab_call";
    }
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

const char *store_station(const Store *store)
{
    return store->station;
}

const char *store_warning(const Store *store)
{
    return store->warning;
}

static Store *store_new(const char *path)
{
    Store *st = sim_calloc(1, sizeof *st);
    if (!st) {
        return NULL;
    }
    st->lock_fd = -1;
    if (!(st->path = sim_strdup(path))) {
        sim_free(st);
        return NULL;
    }
    return st;
}

/* Opens SQLite's connection of st on name (a path or a file: URI). */
static int open_db(Store *st, const char *name, int flags, SimError *err)
{
    if (sqlite3_open_v2(name, &st->db, flags, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: cannot open database: %s",
                        st->path,
                        st->db ? sqlite3_errmsg(st->db) : "no memory");
    }
    sqlite3_busy_timeout(st->db, 2000);
    sqlite3_extended_result_codes(st->db, 0);
    return SIM_OK;
}

int store_open_spec(const StoreOpenSpec *spec, Store **out, SimError *err)
{
    *out = NULL;
    Store *st = store_new(spec->path);
    if (!st) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    st->study = spec->study;
    int held = 0;
    int rc = SIM_OK;
    if (spec->memory) {
        snprintf(st->host, sizeof st->host, "memory");
    } else {
        rc = store_lease_lock(st, &held, err);
    }
    snprintf(st->station, sizeof st->station, "%s",
             spec->station && spec->station[0] ? spec->station : st->host);
    if (rc == SIM_OK) {
        rc = open_db(st, spec->memory ? ":memory:" : spec->path,
                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
    }
    if (rc == SIM_OK && held) {
        rc = store_lease_refuse(st, spec->wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(st, "PRAGMA journal_mode=WAL", err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(st,
                        spec->durability == DURABILITY_FULL
                            ? "PRAGMA synchronous=FULL"
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
        rc = store_lease_acquire(st, spec->wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = store_attach_study(st, spec->allow_changed, spec->wall_ms, err);
    }
    if (rc != SIM_OK) {
        store_close(st);
        return rc;
    }
    if (!spec->memory) {
        store_lease_fs_warning(st);
    }
    snprintf(st->hash, sizeof st->hash, "%s", spec->study->hash);
    *out = st;
    return SIM_OK;
}

int store_open(const char *path, const Study *study, Durability durability,
               int allow_changed, int64_t wall_ms, Store **out, SimError *err)
{
    StoreOpenSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.path = path;
    spec.study = study;
    spec.durability = durability;
    spec.allow_changed = allow_changed;
    spec.wall_ms = wall_ms;
    return store_open_spec(&spec, out, err);
}

/* A read-only file: URI of path that tells SQLite nothing else writes it
** (so it needs no PATH-shm beside it). */
static int immutable_uri(const char *path, char *buf, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(buf, size, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("/-_.~", *p);
        if (n + 4 >= size) {
            return -1;
        }
        if (plain) {
            buf[n++] = (char)*p;
        } else {
            buf[n++] = '%';
            buf[n++] = hex[*p >> 4];
            buf[n++] = hex[*p & 15];
        }
    }
    buf[n] = '\0';
    return (size_t)snprintf(buf + n, size - n, "?immutable=1") < size - n ? 0
                                                                          : -1;
}

/* Where SQLite cannot create PATH-shm (a read-only folder), a database
** closed cleanly is read as immutable; one with a PATH-wal holding data
** cannot be read there. Sets *uri (in buf) or fails err. */
static int readonly_name(Store *st, char *buf, size_t size, const char **name,
                         SimError *err)
{
    char msg[600];
    *name = st->path;
    if (access(st->path, R_OK) != 0) {
        store_os_message(msg, sizeof msg, st->path, STORE_OS_READ, errno, 0);
        return sim_fail(err, SIM_ERR_IO, "%s", msg);
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", st->path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        slash[slash == dir] = '\0';
    }
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0) {
        return SIM_OK;
    }
    char wal[1100];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", st->path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0) {
        return sim_fail(err, SIM_ERR_IO,
                        "cannot read %s: its folder is not writable and %s "
                        "holds data not yet in the database (simlab is "
                        "writing it, or was stopped); SQLite needs to "
                        "create %s-shm there: copy both files to a "
                        "writable folder",
                        st->path, wal, st->path);
    }
    if (immutable_uri(st->path, buf, size) != 0) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", st->path);
    }
    *name = buf;
    return SIM_OK;
}

int store_open_readonly(const char *path, Store **out, SimError *err)
{
    *out = NULL;
    Store *st = store_new(path);
    if (!st) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    char uri[2200];
    const char *name = path;
    int rc = readonly_name(st, uri, sizeof uri, &name, err);
    if (rc == SIM_OK) {
        rc = open_db(st, name, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err);
    }
    sqlite3_stmt *s = NULL;
    if (rc == SIM_OK && sqlite3_prepare_v2(st->db,
                                           "SELECT id, hash FROM study ORDER "
                                           "BY id DESC LIMIT 1",
                                           -1, &s, NULL) != SQLITE_OK) {
        int code = sqlite3_errcode(st->db);
        if (code == SQLITE_NOTADB || code == SQLITE_ERROR) {
            /* no such table, or no database at all */
            rc = sim_fail(err, SIM_ERR_DB, "%s: not a simlab database (%s)",
                          path, sqlite3_errmsg(st->db));
        } else {
            rc = store_fail_db(st, err, "cannot read the database");
        }
    }
    if (rc == SIM_OK) {
        if (sqlite3_step(s) == SQLITE_ROW) {
            st->study_row = sqlite3_column_int64(s, 0);
            store_copy_col(st->hash, sizeof st->hash, s, 1);
        } else {
            rc = sim_fail(err, SIM_ERR_DB, "%s: no study recorded", path);
        }
    }
    sqlite3_finalize(s);
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
    store_lease_release(store);
    sqlite3_close(store->db);
    store_lease_unlock(store);
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
    /* inside a group only the call's own writes are undone */
    sqlite3_exec(store->db,
                 store->group ? "ROLLBACK TO simlab_call; RELEASE simlab_call"
                              : "ROLLBACK",
                 NULL, NULL, NULL);
}

int store_group_begin(Store *store, SimError *err)
{
    if (store->group) {
        return sim_fail(err, SIM_ERR_STATE, "%s: a group is open already",
                        store->path);
    }
    int rc = store_exec(store, "BEGIN IMMEDIATE", err);
    if (rc == SIM_OK) {
        store->group = 1;
    }
    return rc;
}

int store_group_commit(Store *store, SimError *err)
{
    if (!store->group) {
        return sim_fail(err, SIM_ERR_STATE, "%s: no group is open",
                        store->path);
    }
    store->group = 0;
    int rc = store_exec(store, "COMMIT", err);
    if (rc != SIM_OK) {
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    }
    return rc;
}

int store_autocheckpoint(Store *store, int pages, SimError *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA wal_autocheckpoint=%d", pages);
    return store_exec(store, sql, err);
}

int store_checkpoint(const char *path, SimError *err)
{
    sqlite3 *db = NULL;
    int rc = SIM_OK;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: cannot open: %s", path,
                      db ? sqlite3_errmsg(db) : "no memory");
    } else if (sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                         NULL, NULL) != SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: checkpoint: %s", path,
                      sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return rc;
}

void store_group_rollback(Store *store)
{
    if (store->group) {
        store->group = 0;
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    }
}
