/*
** Private to the sync files (sync.c, sync_schema.c, sync_setup.c,
** sync_push.c, sync_assign.c, sync_status.c, sync_worker.c): the
** connection struct, queries with a deadline, and small libpq/SQLite
** helpers.
*/
#ifndef SIMLAB_EXPERIMENT_SYNC_INT_H
#define SIMLAB_EXPERIMENT_SYNC_INT_H

#include "experiment/sync.h"
#include "common/sim_text.h"

#include <libpq-fe.h>
#include <sqlite3.h>

/* Advisory lock keys: schema creation, and assignment (plus the study's
** hashtext). */
#define SYNC_LOCK_SCHEMA "715201"
#define SYNC_LOCK_ASSIGN 715202

/* Roles a secured server has (docs/multisite.md): the owner of simlab's
** tables and functions, the group of station roles, the group of
** read-only analyst roles. Names are per cluster. */
#define SYNC_ROLE_OWNER    "simlab_owner"
#define SYNC_ROLE_STATIONS "simlab_stations"
#define SYNC_ROLE_ANALYSTS "simlab_analysts"

/* How a connection checks the server's schema when it opens. */
typedef enum SyncSchemaMode {
    SYNC_SCHEMA_STATION = 0, /* current, or created/migrated when the
                                server is open (set up the old way) */
    SYNC_SCHEMA_READ = 1,    /* read only (status): no check */
    SYNC_SCHEMA_ADMIN = 2    /* the administrator (server setup): none */
} SyncSchemaMode;

struct SyncConn {
    PGconn *pg;          /* NULL or the connection */
    char *url;           /* as given (may hold a password): never printed */
    char redacted[512];  /* sim_url_redact(url) */
    SyncClock clock;     /* for deadlines */
    int has_clock;       /* 0: waits are bounded per step only */
    SyncSchemaMode mode; /* what opening checks */
    char study_sent[65]; /* bundle hash whose study row is on the server
                            (on this connection) */
    char claimed[64];    /* station file id claimed on this connection */
    int ghosts_done;     /* interrupted assignments of this file closed */
    int secured;         /* the server enforces station roles */
    int policy_exempt;   /* this role owns the tables or is superuser:
                            the server's policies do not apply to it */
    char station[80];    /* the station of this role ("" none) */
    char warning[1024];  /* "" or a warning about the server's set-up */
    char sqlstate[6];    /* SQLSTATE of the last server error, "" none */
    size_t prepared[16]; /* per pushed table: the batch size whose upsert
                            is prepared on this connection, 0 none */
};

/* Milliseconds by the connection's clock (0 without one). */
int64_t sync_now_ms(const SyncConn *c);

/* Fails err with "URL: what: the server's message" (the message scrubbed
** of the URL's secrets and its control characters escaped); remembers the
** SQLSTATE in c->sqlstate. */
int sync_pg_fail(SyncConn *c, SimError *err, const char *what,
                 const PGresult *res);

/* Runs sql (no parameters; several statements allowed); SIM_ERR_DB on
** failure. Waits as long as the server's statement_timeout allows. */
int sync_exec(SyncConn *c, const char *sql, SimError *err);
/* Runs sql with n text parameters; on success *out (may be NULL: cleared)
** holds the result for the caller to PQclear; an error names what. */
int sync_exec_params(SyncConn *c, const char *what, const char *sql, int n,
                     const char *const *params, PGresult **out, SimError *err);

/* sync_exec_params() (n < 0: sql without parameters, several statements
** allowed, the last result kept) that gives up at deadline_ms (by c's
** clock; 0 or no clock: 5 s per wait; < 0: never): then the connection is
*closed, so that the server
** rolls back whatever was open, and the error says the server did not
** answer in time. */
int sync_query(SyncConn *c, const char *what, const char *sql, int n,
               const char *const *params, int64_t deadline_ms, PGresult **out,
               SimError *err);

/* A connection as the administrator (server set-up): no schema check. */
int sync_connect_admin(const char *url, SyncConn **out, SimError *err);

/* Opens the connection when it is not usable, by deadline_ms (0: a
** connect timeout of 5 s per step), and checks the schema as c->mode
** says. */
int sync_ensure_by(SyncConn *c, int64_t deadline_ms, SimError *err);

/* Rolls back an open server transaction, if any. */
void sync_rollback(SyncConn *c);

/* A text parameter as a SQL literal (PQescapeLiteral) appended to b;
** NULL as NULL. */
void sync_literal(SyncConn *c, SimBuf *b, const char *v);

/* ---- assignment (sync_assign.c) */

/* What an assignment reads of the station file: any connection to it
** (the store's, or a worker's read-only one), its path for messages, the
** station, the bundle hash and the file's origin (sync_origin.uuid). */
typedef struct SyncLocal {
    sqlite3 *db;
    const char *path;
    const char *station;
    const char *hash;
    char origin[64];
} SyncLocal;

/* The SyncLocal of a store (its own connection). */
void sync_local_of(Store *store, SyncLocal *L);

/* Assigns jobs[0..n-1] (same pilot and simulated flags) in one server
** transaction by deadline (by c's clock), filling their condition and
** rule; SIM_OK, or the error (SIM_ERR_STATE: the rules choose nothing). */
int sync_assign_batch(SyncConn *c, const SyncLocal *L, const Study *study,
                      SyncAssignJob *const *jobs, size_t n, int64_t deadline,
                      SimError *err);

/* ---- server schema (sync_schema.c) */

/* The server schema every simlab server has (tables, server-managed
** columns, functions, triggers, the long_format view), as idempotent SQL,
** appended to b. */
void sync_schema_sql(SimBuf *b);

/* Checks (and on an open server creates or migrates) the schema after the
** connection opened, as c->mode says; sets c->secured, policy_exempt,
** station and warning. */
int sync_schema_check(SyncConn *c, int64_t deadline_ms, SimError *err);

/* Claims the station file origin (with station name) for this
** connection's role, once per connection: a file whose rows the server
** holds for another role is refused (SIM_ERR_INVALID). */
int sync_claim_origin(SyncConn *c, const char *origin, const char *station,
                      int64_t deadline_ms, SimError *err);

/* ---- local file */

/* Opens the station file at path (schema version 7 or later). */
int sync_local_open(const char *path, int readonly, sqlite3 **out,
                    SimError *err);

/* Column 0 of the first row of sql as text into out; -1 on an error. */
int sync_local_text(sqlite3 *db, const char *sql, char *out, size_t size);

/* Fails err with "path: what: SQLite's message". */
int sync_local_fail(sqlite3 *db, const char *path, const char *what,
                    SimError *err);

#endif
