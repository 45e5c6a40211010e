/*
** Helpers of the PostgreSQL tests (tests/pg): the real clock for deadlines
** and the background push, one-shot queries on a server as a given
** connection string, and on a station file. Include after harness.h.
*/
#ifndef SIMLAB_TESTS_PG_UTIL_H
#define SIMLAB_TESTS_PG_UTIL_H

#include "experiment/sync.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int64_t pgu_real_ms(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void pgu_real_after(void *ctx, int64_t ms, struct timespec *abs)
{
    (void)ctx;
    clock_gettime(CLOCK_REALTIME, abs);
    abs->tv_sec += (time_t)(ms / 1000);
    abs->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (abs->tv_nsec >= 1000000000L) {
        abs->tv_sec++;
        abs->tv_nsec -= 1000000000L;
    }
}

/* The real clock, for deadlines and the background push. */
static const SyncClock tclock = {pgu_real_ms, pgu_real_after, NULL};

/* An integer from the server at conninfo (-1 and a message on an error). */
static inline long pg_long_at(const char *conninfo, const char *sql)
{
    PGconn *pg = PQconnectdb(conninfo);
    PGresult *r = PQexec(pg, sql);
    long v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                 ? atol(PQgetvalue(r, 0, 0))
                 : -1;
    if (v < 0) {
        fprintf(stderr, "pg_long(%s): %s\n", sql, PQerrorMessage(pg));
    }
    PQclear(r);
    PQfinish(pg);
    return v;
}

/* Runs sql on an open connection: 1 when the server accepted it (rows
** affected in *rows, may be NULL), 0 when it refused (SQLSTATE in state,
** 6 bytes, may be NULL). */
static inline int pg_try(PGconn *pg, const char *sql, long *rows, char *state)
{
    PGresult *r = PQexec(pg, sql);
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (rows) {
        *rows =
            ok ? (st == PGRES_TUPLES_OK ? PQntuples(r) : atol(PQcmdTuples(r)))
               : -1;
    }
    if (state) {
        const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        snprintf(state, 6, "%s", ok || !s ? "" : s);
    }
    PQclear(r);
    return ok;
}

static inline long lite_long(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    long v = -1;
    sqlite3_open(path, &db);
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        v = (long)sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* Column 0 of the first row of sql on a station file, into out. */
static inline void lite_text(const char *path, const char *sql, char *out,
                             size_t size)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    out[0] = '\0';
    sqlite3_open(path, &db);
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
}

static inline int lite_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_busy_timeout(db, 5000);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "lite_exec(%s): %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return rc;
}

#endif
