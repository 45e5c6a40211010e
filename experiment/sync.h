/*
** Offline-first sync of a station's SQLite file to a PostgreSQL server
** (docs/multisite.md). Every write still commits to the local file first;
** the sync pushes the rows whose sync_dirty mark is set (the tables of
** experiment/sync_tables.h) as idempotent upserts, one server transaction
** per batch, and clears the marks afterwards: a push that dies half way is
** repeated, never doubled. simlab creates and migrates the server schema
** itself (table simlab_schema). Server-side assignment counts participants
** over all stations in one transaction under an advisory lock and applies
** the same rules (experiment/assign.h). A background worker (a pthread)
** pushes while a study runs; its only clock is the one it is given.
** Passwords never leave the URL given: everything printed or stored names
** the server by sync_url_redact().
*/
#ifndef SIMLAB_EXPERIMENT_SYNC_H
#define SIMLAB_EXPERIMENT_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/sim_error.h"
#include "experiment/store.h"
#include "stimuli/study.h"

/* Version of the server schema this simlab creates (table simlab_schema). */
#define SYNC_SERVER_SCHEMA_VERSION 1

typedef struct SyncConn SyncConn;

/* 1 when s looks like a PostgreSQL URL (postgresql:// or postgres://). */
int sync_is_url(const char *s);

/* Copies url to out with any password removed: "user:secret@" becomes
** "user@", "password=..." parameters and key=value words are dropped.
** Always NUL-terminates (truncating). */
void sync_url_redact(const char *url, char *out, size_t size);

/* Connects to the server at url (a libpq URL or key=value string; a
** connect timeout of 5 s unless it names one), then creates or migrates
** the server schema in one transaction. A server whose schema is newer
** than SYNC_SERVER_SCHEMA_VERSION is refused. Errors name the server by
** its redacted URL. */
int sync_connect(const char *url, SyncConn **out, SimError *err);

/* A connection to url that is made on first use (sync_ensure): for a
** station that must start while the server is unreachable. */
int sync_conn_new(const char *url, SyncConn **out, SimError *err);

void sync_close(SyncConn *c); /* NULL is a no-op */

/* The redacted URL (borrowed). */
const char *sync_url(const SyncConn *c);

/* Reconnects when the connection was lost (1 s connect timeout); SIM_OK
** when it is usable. */
int sync_ensure(SyncConn *c, SimError *err);

typedef struct SyncPushStats {
    long rows;    /* rows sent (re-sent rows count again) */
    int batches;  /* server transactions committed */
    long pending; /* rows still marked dirty after the push */
} SyncPushStats;

/* Pushes the dirty rows of the station file at db_path (schema version 7
** or later) in batches of at most batch_rows rows (0: 1000), each in one
** server transaction, and clears their marks when the server committed
** (rows changed meanwhile stay dirty). A study version (bundle hash) the
** server does not know, of a study the server holds another version of,
** is refused with SIM_ERR_INVALID unless accept_version. wall_ms: now (Unix
** ms), recorded in the file's sync_state. stats may be NULL. */
int sync_push(SyncConn *c, const char *db_path, int accept_version,
              int batch_rows, int64_t wall_ms, SyncPushStats *stats,
              SimError *err);

/* Marks every row of the station file at db_path to be pushed again (for
** a new or restored server). */
int sync_mark_all(const char *db_path, SimError *err);

/* Enrolls a participant in store like store_enroll(), choosing the
** condition on the server when c is usable: in one server transaction
** (advisory lock per study) the participants of all stations with the
** same pilot/simulated flags are counted as experiment/assign.c counts
** them, assign_choose() decides, and the participant row is inserted
** there. When the server cannot be reached the station assigns locally,
** records assign_source 'station_fallback' and logs an "assign_fallback"
** event; with c NULL it is store_enroll(). An override in spec is kept. */
int sync_enroll(SyncConn *c, Store *store, const Study *study,
                const EnrollSpec *spec, ParticipantInfo *info, SimError *err);

/* The condition the server would assign now to a new participant with
** these flags (counts of all stations, assign_choose() with rng_seed),
** without enrolling anyone or taking the lock: for the start screen.
** Writes the id to out; SIM_ERR_DB when the server cannot be asked. */
int sync_assign_preview(SyncConn *c, const Study *study, int pilot,
                        int simulated, int64_t wall_ms, uint64_t rng_seed,
                        char *out, size_t out_size, SimError *err);

/* Prints the server's status: per study, condition and station the
** participants enrolled, completed and excluded (pilot and simulated ones
** apart), then each station's last activity, last push and pending rows
** at that push. */
int sync_status_print(SyncConn *c, FILE *out, SimError *err);

/* The same view of one station file, with its rows not yet pushed and
** its last push per server. */
int sync_status_print_local(const char *db_path, FILE *out, SimError *err);

/* ------------------------------------------------------- background push */

/* The worker's only clock: now_ms (Unix ms, for sync_state and status)
** and abs_after, which fills *abs with the CLOCK_REALTIME time ms from
** now (for pthread_cond_timedwait). Supplied by the program. */
typedef struct SyncClock {
    int64_t (*now_ms)(void *ctx);
    void (*abs_after)(void *ctx, int64_t ms, struct timespec *abs);
    void *ctx;
} SyncClock;

typedef struct SyncWorker SyncWorker;

typedef struct SyncWorkerStatus {
    int connected;      /* the last attempt reached the server */
    int64_t last_ok_ms; /* time of the last complete push, 0 none */
    long pushed;        /* rows sent since start */
    long pending;       /* rows dirty after the last push */
    char error[512];    /* the last failure ("" after a success) */
    int error_code;     /* its SIM_ERR_* (SIM_ERR_DB: server or network;
                           SIM_ERR_INVALID: the push was refused) */
} SyncWorkerStatus;

/* Starts a thread that pushes db_path to url every interval_ms and when
** kicked, reconnecting after failures. It opens its own connections. */
int sync_worker_start(const char *url, const char *db_path, int accept_version,
                      int interval_ms, const SyncClock *clock, SyncWorker **out,
                      SimError *err);

/* Waits until the worker finished its first push attempt, or ms passed
** (by its clock): so that a station starts knowing whether the server
** answers. */
void sync_worker_wait_first(SyncWorker *w, int64_t ms);

/* Asks for a push soon (after a commit). */
void sync_worker_kick(SyncWorker *w);

void sync_worker_status(SyncWorker *w, SyncWorkerStatus *st);

/* Stops the thread after one last push attempt and frees w; fills *st
** (may be NULL) with the final status. NULL is a no-op. */
void sync_worker_stop(SyncWorker *w, SyncWorkerStatus *st);

#endif
