/*
** Private to the sync files (sync.c, sync_assign.c, sync_status.c,
** sync_worker.c): the connection struct and small libpq/SQLite helpers.
*/
#ifndef SIMLAB_EXPERIMENT_SYNC_INT_H
#define SIMLAB_EXPERIMENT_SYNC_INT_H

#include "experiment/sync.h"

#include <libpq-fe.h>
#include <sqlite3.h>

/* Advisory lock keys: schema creation, and assignment (plus the study's
** hashtext). */
#define SYNC_LOCK_SCHEMA "715201"
#define SYNC_LOCK_ASSIGN 715202

struct SyncConn {
    PGconn *pg;          /* NULL or the connection */
    char *url;           /* as given (may hold a password): never printed */
    char redacted[512];  /* sync_url_redact(url) */
    char study_sent[65]; /* bundle hash whose study row is on the server
                            (committed on this connection) */
};

/* Fails err with "URL: what: the server's message". */
int sync_pg_fail(SyncConn *c, SimError *err, const char *what,
                 const PGresult *res);

/* Runs sql (no parameters); SIM_ERR_DB on failure. */
int sync_exec(SyncConn *c, const char *sql, SimError *err);
/* Runs sql with n text parameters; on success *out (may be NULL: cleared)
** holds the result for the caller to PQclear; an error names what. */
int sync_exec_params(SyncConn *c, const char *what, const char *sql, int n,
                     const char *const *params, PGresult **out, SimError *err);

/* Rolls back an open server transaction, if any. */
void sync_rollback(SyncConn *c);

/* Opens the station file at path (schema version 7 or later). */
int sync_local_open(const char *path, int readonly, sqlite3 **out,
                    SimError *err);

/* Column 0 of the first row of sql as text into out; -1 on an error. */
int sync_local_text(sqlite3 *db, const char *sql, char *out, size_t size);

#endif
