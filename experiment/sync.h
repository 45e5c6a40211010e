/*
** Offline-first sync of a station's SQLite file to a PostgreSQL server
** (docs/multisite.md). Every write still commits to the local file first;
** the sync pushes the rows whose sync_dirty mark is set (the tables of
** experiment/sync_tables.h), one server transaction per batch, and clears
** the marks afterwards: a push that dies half way is repeated, never
** doubled. `simlab server setup` gives a server its schema, roles and
** row-level security policies, and each station its own login role: the
** server itself then refuses a station's write to another station's rows,
** a second, different version of a pushed response or answer, and another
** definition under a bundle hash it holds (refusals are recorded in
** sync_conflict). A server set up the old way (stations share one role
** that owns the tables) still works, with a warning. Server-side
** assignment counts participants over all stations in one transaction
** under an advisory lock, by the server's clock, and gives up within
** SYNC_ASSIGN_DEADLINE_MS (the station then assigns locally). A
** background worker (a pthread) pushes while a study runs; its only clock
** is the one it is given. Passwords never leave the connection string
** given: everything printed or stored names the server by
** sync_url_redact().
*/
#ifndef SIMLAB_EXPERIMENT_SYNC_H
#define SIMLAB_EXPERIMENT_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/sim_clock.h"
#include "common/sim_error.h"
#include "experiment/store.h"
#include "stimuli/study.h"

/* Version of the server schema this simlab creates (table simlab_schema).
** 2: server-managed activity times, conflict log, station roles. */
#define SYNC_SERVER_SCHEMA_VERSION 2

/* A server assignment that has no answer after this long (a lock held by
** a stopped station, an unresponsive server) is given up and the station
** assigns locally. Within it the server waits for the study's lock at most
** SYNC_LOCK_TIMEOUT_MS. */
#define SYNC_ASSIGN_DEADLINE_MS 1600
#define SYNC_LOCK_TIMEOUT_MS    1200

typedef struct SyncConn SyncConn;

/* 1 when s looks like a PostgreSQL URL (postgresql:// or postgres://). */
int sync_is_url(const char *s);

/* The connection string url as libpq reads it, without its secrets
** (common/sim_url.h). Always NUL-terminates (truncating). */
void sync_url_redact(const char *url, char *out, size_t size);

/* The clock of a program's sync (common/sim_clock.h): now_ms (Unix ms, for
** sync_state, status and deadlines) and abs_after (for
** pthread_cond_timedwait). A program hands in the real clock; tests
** hand in their own. */
typedef SimWallClock SyncClock;

/* Connects to the server at url (any connection string libpq reads) as a
** station: a server set up with `simlab server setup` must have this
** simlab's schema; on a server set up the old way the schema is created or
** migrated in one transaction. A server whose schema is newer than
** SYNC_SERVER_SCHEMA_VERSION is refused. clock (may be NULL: no deadlines
** beyond 5 s per step) times assignments. A url libpq cannot read is
** refused with SIM_ERR_USAGE before anything is sent. Errors name the
** server by its redacted URL. */
int sync_connect(const char *url, const SyncClock *clock, SyncConn **out,
                 SimError *err);

/* A station connection to url that is made on first use (sync_ensure):
** for a station that must start while the server is unreachable. The url
** is checked as by sync_connect. */
int sync_conn_new(const char *url, const SyncClock *clock, SyncConn **out,
                  SimError *err);

/* A connection that only reads (simlab status): no schema is created. */
int sync_connect_read(const char *url, const SyncClock *clock, SyncConn **out,
                      SimError *err);

/* "" or a warning about the server's set-up, known once connected: a server
** set up the old way (any station may change any station's rows), or a
** connection as the tables' owner on a secured server. Borrowed. */
const char *sync_warning(const SyncConn *c);

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
    long refused; /* rows the server refused and recorded in sync_conflict
                     (a different version of a row it holds) */
} SyncPushStats;

/* Pushes the dirty rows of the station file at db_path (schema version 7
** or later), read in one snapshot of the file, in batches of at most
** batch_rows rows (0: 1000), each in one server transaction, and clears
** their marks when the server committed (rows changed meanwhile stay
** dirty). The first push of a file claims it for the connection's role; a
** file the server holds for another role, or (on a secured server) a file
** of another station than the role's, is refused with SIM_ERR_INVALID. A
** study version (bundle hash) the server does not know, of a study the
** server holds another version of, is refused with SIM_ERR_INVALID unless
** accept_version. Rows the server refuses as different versions of rows it
** holds are counted in stats->refused (their marks are cleared: the
** server keeps its version). Text with a NUL byte goes to the server with
** the NUL written \x00, as the export writes it. wall_ms: now (Unix ms),
** recorded in the file's sync_state. stats may be NULL. */
int sync_push(SyncConn *c, const char *db_path, int accept_version,
              int batch_rows, int64_t wall_ms, SyncPushStats *stats,
              SimError *err);

/* Marks every row of the station file at db_path to be pushed again (for
** a new or restored server). */
int sync_mark_all(const char *db_path, SimError *err);

/* Enrolls a participant in store like store_enroll(), choosing the
** condition on the server when c is usable: in one server transaction
** (advisory lock per study, waited for at most SYNC_LOCK_TIMEOUT_MS) the
** participants of all stations with the same pilot/simulated flags are
** counted as experiment/assign.c counts them -- in progress ones while
** the server saw them active within active_minutes, by the server's clock
** -- assign_choose() decides, and the participant row is inserted there.
** A deadlock or serialization failure is retried. When the server cannot
** be reached, refuses, or has not answered within SYNC_ASSIGN_DEADLINE_MS
** (by c's clock) the station assigns locally, records assign_source
** 'station_fallback' and logs an "assign_fallback" event; with c NULL it is
** store_enroll(). An override in spec is kept. The first server assignment
** of a connection closes (status 'aborted') the participants the server
** assigned to this file in an earlier run that never reached the file (a
** station stopped between the two). */
int sync_enroll(SyncConn *c, Store *store, const Study *study,
                const EnrollSpec *spec, ParticipantInfo *info, SimError *err);

/* ----------------------------------------- assignment off the caller's */

/* One new participant's server assignment, made off the caller's thread
** (a SyncAssigner) so that a slow, locked or stopped server never holds
** the caller: sync_assign_job_init() fills the request, a worker the
** answer, then the caller enrolls with sync_enroll_assigned(). */
typedef struct SyncAssignJob {
    /* the request (sync_assign_job_init) */
    char id[37];      /* the participant's UUID, made here */
    char code[64];    /* participant code, "" none */
    char station[64]; /* "" the store's */
    int pilot, simulated;
    uint64_t seed;        /* the participant's (63 bits, not 0) */
    uint64_t assign_seed; /* the tie-break's */
    int64_t wall_ms;
    /* the answer: rc SIM_OK with the server's condition and rule;
    ** SIM_ERR_STATE: no condition can be assigned (error); another code:
    ** the server could not be used in time (error says why), assign
    ** locally */
    int rc;
    char condition[128];
    char assigned_by[16];
    char error[512];
    /* called from a worker thread once the answer is in (the job is the
    ** caller's again then) */
    void (*done)(struct SyncAssignJob *job, void *ctx);
    void *ctx;
    void *tag;      /* the owner's, untouched */
    int64_t due_ms; /* (the assigner's) give up by then */
    struct SyncAssignJob *next;
} SyncAssignJob;

/* A job for a new participant with a fresh UUID and seeds. */
void sync_assign_job_init(SyncAssignJob *job, const char *code, int pilot,
                          int simulated, int64_t wall_ms);

/* Enrolls the participant of job in store (spec as for store_enroll; its
** code, pilot and station should be the job's) with the job's answer: the
** server's condition (assign_source 'server'), or, when the server could
** not be used, a local assignment with assign_source 'station_fallback'
** and an "assign_fallback" event naming the reason. SIM_ERR_STATE when the
** server found no condition to assign. */
int sync_enroll_assigned(Store *store, const SyncAssignJob *job,
                         const EnrollSpec *spec, ParticipantInfo *info,
                         SimError *err);

typedef struct SyncAssigner SyncAssigner;

/* Starts workers threads (0: 4), each with its own server connection to
** url (made when first needed) and its own read-only connection to the
** station file db_path (written by the caller's store with the study of
** bundle hash `hash` as station `station`). A worker takes every job
** waiting and assigns them in one server transaction (one lock, counted
** one after the other); a job not answered SYNC_ASSIGN_DEADLINE_MS after
** it was submitted (by clock) is answered "assign locally". So arrivals
** while the server is slow wait at most that long each, side by side. */
int sync_assigner_start(const char *url, const char *db_path,
                        const Study *study, const char *station, int workers,
                        const SyncClock *clock, SyncAssigner **out,
                        SimError *err);

/* Queues job (sync_assign_job_init'ed, done set); job->done is called
** exactly once, from a worker thread (or from sync_assigner_stop). */
void sync_assigner_submit(SyncAssigner *a, SyncAssignJob *job);

/* Answers the jobs still queued with "assign locally", waits for the
** workers and frees a. NULL is a no-op. */
void sync_assigner_stop(SyncAssigner *a);

/* The condition the server would assign now to a new participant with
** these flags (counts of all stations, assign_choose() with rng_seed),
** without enrolling anyone or taking the lock: for the start screen.
** Writes the id to out; SIM_ERR_DB when the server cannot be asked. */
int sync_assign_preview(SyncConn *c, const Study *study, int pilot,
                        int simulated, int64_t wall_ms, uint64_t rng_seed,
                        char *out, size_t out_size, SimError *err);

/* Prints the server's status: per study, condition and station the
** participants enrolled, completed and excluded (pilot and simulated ones
** apart), then each station's last activity, last push, pending rows at
** that push and rows the server refused. Every name and text from the
** server is printed with its control characters escaped. */
int sync_status_print(SyncConn *c, FILE *out, SimError *err);

/* The same view of one station file, with its rows not yet pushed and
** its last push per server. */
int sync_status_print_local(const char *db_path, FILE *out, SimError *err);

/* ------------------------------------------------------ server set-up */

/* `simlab server setup`: as the administrator at admin_url (a superuser,
** or a role with CREATEROLE that owns the database and simlab's tables),
** creates or migrates the schema, the roles simlab_owner (owns the tables
** and functions), simlab_stations and simlab_analysts (groups), the grants
** and the row-level security policies, in one transaction; tables of a
** server set up the old way are handed to simlab_owner. Progress lines go
** to out (may be NULL). */
int sync_server_setup(const char *admin_url, FILE *out, SimError *err);

typedef enum SyncRoleKind {
    SYNC_ROLE_STATION = 0,
    SYNC_ROLE_ANALYST
} SyncRoleKind;

/* `simlab server add-station` / `add-analyst`: creates the login role
** (role, or NULL for a name made from the station or "analyst" and the
** database), member of simlab_stations (mapped to station, which must be
** a valid station name) or simlab_analysts, with a random password sent
** to the server only as a SCRAM verifier; writes that password to
** passfile in pgpass format (mode 0600, replaced whole). A role that
** exists already as the same station or analyst gets a new password.
** Station files of the old way pushed as that station are given to the
** new role (their count in *old_files, may be NULL). Writes the role's
** connection string without a password to url_out. */
int sync_server_add_role(const char *admin_url, SyncRoleKind kind,
                         const char *station, const char *role,
                         const char *passfile, char *url_out, size_t url_size,
                         long *old_files, SimError *err);

/* ------------------------------------------------------- background push */

typedef struct SyncWorker SyncWorker;

typedef struct SyncWorkerStatus {
    int connected;      /* the last attempt reached the server */
    int64_t last_ok_ms; /* time of the last complete push, 0 none */
    long pushed;        /* rows sent since start */
    long pending;       /* rows dirty after the last push */
    char error[512];    /* the last failure ("" after a success) */
    int error_code;     /* its SIM_ERR_* (SIM_ERR_DB: server or network;
                           SIM_ERR_INVALID: the push was refused) */
    long refused;       /* rows the server refused since start */
    char warning[1024]; /* sync_warning() of its connection, "" none */
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
