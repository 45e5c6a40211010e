/*
** Sync to PostgreSQL: the connection (opened without blocking, so that a
** deadline holds even against a server that stops answering), queries
** with a deadline, error messages (scrubbed of the connection string's
** secrets, control characters escaped) and the station file helpers. The
** schema is in sync_schema.c, the administrator's commands in
** sync_setup.c, the push in sync_push.c, assignment in sync_assign.c,
** status in sync_status.c, the background worker in sync_worker.c.
*/
#define _POSIX_C_SOURCE 200809L /* poll */

#include "experiment/sync_int.h"

#include "common/sim_alloc.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"
#include "common/sim_url.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Without a clock, each wait for a connection or an assignment lasts at
** most this long. */
#define STEP_MS 5000
/* A push query longer than this (the server's statement_timeout of a
** station session is shorter) means the server stopped answering. */
#define LONG_MS 60000

int sync_is_url(const char *s)
{
    return sim_url_is_pg(s);
}

void sync_url_redact(const char *url, char *out, size_t size)
{
    sim_url_redact(url, out, size);
}

int64_t sync_now_ms(const SyncConn *c)
{
    return c->has_clock ? c->clock.now_ms(c->clock.ctx) : 0;
}

/* ---------------------------------------------------------------- errors */

int sync_pg_fail(SyncConn *c, SimError *err, const char *what,
                 const PGresult *res)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg) {
        msg = c->pg ? PQerrorMessage(c->pg) : "no connection";
    }
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(c->sqlstate, sizeof c->sqlstate, "%s", state ? state : "");
    /* one line: libpq's messages end with a newline and may hold DETAIL
    ** lines; the server may quote the connection string's parts or data */
    char flat[600], clean[600];
    snprintf(flat, sizeof flat, "%s", msg);
    for (char *p = flat; *p; p++) {
        if (*p == '\n' || *p == '\t') {
            *p = ' ';
        }
    }
    size_t n = strlen(flat);
    while (n && flat[n - 1] == ' ') {
        flat[--n] = '\0';
    }
    sim_url_scrub(c->url, flat, clean, sizeof clean);
    char safe[600];
    sim_escape_term(clean, safe, sizeof safe);
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", c->redacted, what, safe);
}

/* --------------------------------------------------------------- queries */

static int64_t long_deadline(const SyncConn *c)
{
    return c->has_clock ? sync_now_ms(c) + LONG_MS : -1;
}

int sync_exec(SyncConn *c, const char *sql, SimError *err)
{
    return sync_query(c, "query", sql, -1, NULL, long_deadline(c), NULL, err);
}

int sync_exec_params(SyncConn *c, const char *what, const char *sql, int n,
                     const char *const *params, PGresult **out, SimError *err)
{
    return sync_query(c, what, sql, n, params, long_deadline(c), out, err);
}

/* Closes the connection (the server rolls back what it had open). */
static void drop(SyncConn *c)
{
    if (c->pg) {
        PQfinish(c->pg);
        c->pg = NULL;
    }
}

/* Waits until the socket is readable (or writable) by deadline_ms (by
** c's clock; 0, or no clock: STEP_MS from now; < 0: no limit); 1 ready, 0
** the time is up, -1 an error. */
static int wait_socket(SyncConn *c, int for_write, int64_t deadline_ms)
{
    int fd = PQsocket(c->pg);
    if (fd < 0) {
        return -1;
    }
    struct pollfd p = {fd, (short)(for_write ? POLLOUT : POLLIN), 0};
    if (deadline_ms < 0) {
        return poll(&p, 1, -1) > 0 ? 1 : -1;
    }
    if (deadline_ms == 0 || !c->has_clock) {
        int r = poll(&p, 1, STEP_MS);
        return r > 0 ? 1 : r == 0 ? 0 : -1;
    }
    for (;;) {
        int64_t left = deadline_ms - sync_now_ms(c);
        if (left <= 0) {
            return 0;
        }
        int r = poll(&p, 1, (int)(left > STEP_MS ? STEP_MS : left));
        if (r != 0) {
            return r > 0 ? 1 : -1;
        }
    }
}

static int timed_out(SyncConn *c, const char *what, int64_t deadline_ms,
                     int64_t start_ms, SimError *err)
{
    drop(c);
    snprintf(c->sqlstate, sizeof c->sqlstate, "%s", "TIMEO");
    long long ms = c->has_clock && deadline_ms > 0
                       ? (long long)(sync_now_ms(c) - start_ms)
                       : (long long)STEP_MS;
    return sim_fail(err, SIM_ERR_DB,
                    "%s: %s: no answer from the server within %lld ms "
                    "(connection closed)",
                    c->redacted, what, ms);
}

int sync_query(SyncConn *c, const char *what, const char *sql, int n,
               const char *const *params, int64_t deadline_ms, PGresult **out,
               SimError *err)
{
    if (out) {
        *out = NULL;
    }
    if (!c->pg) {
        return sim_fail(err, SIM_ERR_DB, "%s: %s: not connected", c->redacted,
                        what);
    }
    c->sqlstate[0] = '\0';
    int64_t start = sync_now_ms(c);
    int sent =
        n < 0 ? PQsendQuery(c->pg, sql)
              : PQsendQueryParams(c->pg, sql, n, NULL, params, NULL, NULL, 0);
    if (!sent) {
        return sync_pg_fail(c, err, what, NULL);
    }
    PGresult *last = NULL, *bad = NULL;
    for (;;) {
        while (PQisBusy(c->pg)) {
            int w = wait_socket(c, 0, deadline_ms);
            if (w == 0) {
                PQclear(last);
                PQclear(bad);
                return timed_out(c, what, deadline_ms, start, err);
            }
            if (w < 0 || !PQconsumeInput(c->pg)) {
                PQclear(last);
                PQclear(bad);
                return sync_pg_fail(c, err, what, NULL);
            }
        }
        PGresult *r = PQgetResult(c->pg);
        if (!r) {
            break;
        }
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            if (!bad) {
                bad = r; /* the first error is the one that counts */
            } else {
                PQclear(r);
            }
        } else {
            PQclear(last);
            last = r;
        }
    }
    if (bad) {
        int rc = sync_pg_fail(c, err, what, bad);
        PQclear(bad);
        PQclear(last);
        return rc;
    }
    if (out) {
        *out = last;
    } else {
        PQclear(last);
    }
    return SIM_OK;
}

void sync_rollback(SyncConn *c)
{
    if (c->pg && PQstatus(c->pg) == CONNECTION_OK &&
        PQtransactionStatus(c->pg) != PQTRANS_IDLE) {
        SimError ignored;
        if (sync_query(c, "rollback", "ROLLBACK", -1, NULL,
                       sync_now_ms(c) + 1000, NULL, &ignored) != SIM_OK) {
            drop(c);
        }
    }
}

void sync_literal(SyncConn *c, SimBuf *b, const char *v)
{
    if (!v) {
        sim_buf_puts(b, "NULL");
        return;
    }
    char *lit = c->pg ? PQescapeLiteral(c->pg, v, strlen(v)) : NULL;
    if (!lit) {
        b->oom = 1;
        return;
    }
    sim_buf_puts(b, lit);
    PQfreemem(lit);
}

/* ------------------------------------------------------------ connection */

/* Starts the connection and drives it to the end by deadline_ms. */
static int connect_by(SyncConn *c, int64_t deadline_ms, SimError *err)
{
    drop(c);
    c->study_sent[0] = '\0';
    c->claimed[0] = '\0';
    memset(c->prepared, 0, sizeof c->prepared);
    /* these come first so that values in the connection string win; a
    ** network that drops packets fails a query within about 5 s instead
    ** of TCP's minutes (tcp_user_timeout, keepalives) */
    const char *keys[] = {"connect_timeout",
                          "application_name",
                          "tcp_user_timeout",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "dbname",
                          NULL};
    const char *vals[] = {"5", "simlab", "5000", "5", "2", "2", c->url, NULL};
    c->pg = PQconnectStartParams(keys, vals, 1);
    if (!c->pg) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int64_t start = sync_now_ms(c);
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (PQstatus(c->pg) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
           st != PGRES_POLLING_FAILED) {
        int w = wait_socket(c, st == PGRES_POLLING_WRITING, deadline_ms);
        if (w == 0) {
            return timed_out(c, "connect", deadline_ms, start, err);
        }
        if (w < 0) {
            break;
        }
        st = PQconnectPoll(c->pg);
    }
    if (PQstatus(c->pg) != CONNECTION_OK) {
        int rc = sync_pg_fail(c, err, "cannot connect", NULL);
        drop(c);
        return rc;
    }
    /* a station stopped inside a transaction (a suspended laptop) holds
    ** its locks only until the server ends its session; the
    ** administrator's set-up may take long */
    return sync_query(c, "session",
                      c->mode == SYNC_SCHEMA_ADMIN
                          ? "SET client_min_messages = warning;"
                            "SET idle_in_transaction_session_timeout = '5s';"
                            "SET statement_timeout = 0; SET lock_timeout = 0"
                          : "SET client_min_messages = warning;"
                            "SET idle_in_transaction_session_timeout = '5s';"
                            "SET statement_timeout = '50s';"
                            "SET lock_timeout = '30s'",
                      -1, NULL, deadline_ms, NULL, err);
}

int sync_ensure_by(SyncConn *c, int64_t deadline_ms, SimError *err)
{
    if (c->pg && PQstatus(c->pg) == CONNECTION_OK &&
        PQtransactionStatus(c->pg) == PQTRANS_IDLE &&
        PQconsumeInput(c->pg) == 0) {
        /* the server ended this idle session since (a restart sends its
        ** message and closes): seen here, without blocking, so that a
        ** new connection is made instead of a query spent on a dead one */
        drop(c);
    }
    if (c->pg && PQstatus(c->pg) == CONNECTION_OK) {
        return SIM_OK;
    }
    int rc = connect_by(c, deadline_ms, err);
    if (rc == SIM_OK) {
        rc = sync_schema_check(c, deadline_ms, err);
    }
    if (rc != SIM_OK) {
        drop(c);
    }
    return rc;
}

int sync_ensure(SyncConn *c, SimError *err)
{
    int64_t deadline = c->has_clock ? sync_now_ms(c) + STEP_MS : 0;
    return sync_ensure_by(c, deadline, err);
}

static int conn_new(const char *url, const SyncClock *clock,
                    SyncSchemaMode mode, SyncConn **out, SimError *err)
{
    *out = NULL;
    char why[200];
    if (!sim_url_valid(url, why, sizeof why)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "the server's connection string cannot be read by "
                        "libpq (%s); it is not shown, as it may hold a "
                        "password: check its percent-encoding (%%XX), "
                        "brackets around an IPv6 address and quotes",
                        why);
    }
    SyncConn *c = sim_calloc(1, sizeof *c);
    if (!c || !(c->url = sim_strdup(url))) {
        sim_free(c);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sync_url_redact(url, c->redacted, sizeof c->redacted);
    if (clock) {
        c->clock = *clock;
        c->has_clock = 1;
    }
    c->mode = mode;
    *out = c;
    return SIM_OK;
}

static int connect_mode(const char *url, const SyncClock *clock,
                        SyncSchemaMode mode, SyncConn **out, SimError *err)
{
    SyncConn *c;
    int rc = conn_new(url, clock, mode, &c, err);
    if (rc != SIM_OK) {
        return rc;
    }
    rc = sync_ensure(c, err);
    if (rc != SIM_OK) {
        sync_close(c);
        return rc;
    }
    *out = c;
    return SIM_OK;
}

int sync_conn_new(const char *url, const SyncClock *clock, SyncConn **out,
                  SimError *err)
{
    return conn_new(url, clock, SYNC_SCHEMA_STATION, out, err);
}

int sync_connect(const char *url, const SyncClock *clock, SyncConn **out,
                 SimError *err)
{
    return connect_mode(url, clock, SYNC_SCHEMA_STATION, out, err);
}

int sync_connect_read(const char *url, const SyncClock *clock, SyncConn **out,
                      SimError *err)
{
    return connect_mode(url, clock, SYNC_SCHEMA_READ, out, err);
}

int sync_connect_admin(const char *url, SyncConn **out, SimError *err)
{
    return connect_mode(url, NULL, SYNC_SCHEMA_ADMIN, out, err);
}

void sync_close(SyncConn *c)
{
    if (!c) {
        return;
    }
    drop(c);
    sim_free(c->url);
    sim_free(c);
}

const char *sync_url(const SyncConn *c)
{
    return c->redacted;
}

const char *sync_warning(const SyncConn *c)
{
    return c->warning;
}

/* ----------------------------------------------------------- local file */

int sync_local_fail(sqlite3 *db, const char *path, const char *what,
                    SimError *err)
{
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", path, what,
                    sqlite3_errmsg(db));
}

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
