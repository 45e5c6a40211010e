/*
** Private to the store's files (store.c, store_schema.c, store_enroll.c,
** store_response.c, store_lease.c): the Store struct, the cached
** statements and the small SQLite helpers they share. Callers outside the
** store use store.h.
**
** The store in five files:
**   store.c           connection: open, pragmas, close, transactions,
**                     the helpers below
**   store_schema.c    schema and user_version migrations; the study and
**                     item rows (definition and bundle hash)
**   store_enroll.c    enrollment (counts for experiment/assign.h, the
**                     participant row, the schedule as trial rows),
**                     reading participants and schedules back
**   store_response.c  responses, screening, status and events: the hot
**                     path, on statements prepared once per connection
**   store_lease.c     one writer per file: the OS checks and messages of a
**                     read-write open, the OS lock, the lease row and its
**                     heartbeat, the network file system warning
**   store_online.c    simlab serve's access rows and secret
**
** Schema (version 11, STORE_SCHEMA_VERSION; store_schema.c migrates every
** older file forward step by step):
**   study(id, study_id, title, hash UNIQUE, definition, software, created_ms)
**   item(study, key, pool, source_id, domain, label, prediction,
**        cf_prediction, prediction_type)              PRIMARY KEY(study, key)
**   participant(id UUID, study, code, condition, assigned_by, station,
**        pilot, simulated, seed, status, excluded, exclusion_reason,
**        created_ms, last_active_ms, finished_ms, active_station (2),
**        condition_order, order_row (6: within-subject), assign_source (7))
**   trial(participant, seq, block_id, block_kind, phase, session, item,
**        page, is_catch, is_example, expects, show_*, correct_choice,
**        reservoir, index_in_block, n_in_block, test_type, model_output,
**        condition (6: the step's, within-subject))
**                                                 PRIMARY KEY(participant, seq)
**   response(participant, seq, choice, response_id, correct, rating,
**        attempts, done, final_choice, onset_ns, response_ns, rating_ns,
**        rt_ms, recorded_ms, station (2), timed_out, confidence,
**        confidence_ns (5: deadlines and confidence))
**                                   PRIMARY KEY(participant, seq) -> trial
**   screening(participant, rule, passed, detail, recorded_ms)
**   event(id, participant, kind, detail, wall_ms, mono_ns)
**   lease(id = 1, lease_id, station, host, pid, started_ms, heartbeat_ms):
**        the one writer; no row when none (2)
**   answer(participant, seq, question, type, value, rt_ms, recorded_ms,
**        station)          PRIMARY KEY(participant, seq, question) -> trial
**        (4: questionnaire answers)
**   sync_origin(id = 1, uuid), sync_state(url, last_push_ms, rows) and a
**        sync_dirty column with its trigger on every pushed table (7:
**        experiment/sync_tables.h)
**   station_timing(id, station, created_ms, virtual_display, report) (8)
**   interaction(participant, condition, block, seq, item, attempt, n,
**        event, target, t_ms, recorded_ms, station)
**                                PRIMARY KEY(participant, seq, n) -> trial
**        (9: experiment/interaction.h defines the columns)
**   online_access(participant, mode, key_hash, session_hash, code_hash,
**        updated_ms)          PRIMARY KEY(participant) -> participant (10)
**   online_secret(id = 1, secret): simlab serve's key, hex (10)
**   VIEW long_format: simlab long format v1 (+ exclusion_reason, onset_ns,
**        response_ns), one row per completed step with a phase; its
**        columns are common/sim_columns.h's, remade at every migration.
*/
#ifndef SIMLAB_EXPERIMENT_STORE_INT_H
#define SIMLAB_EXPERIMENT_STORE_INT_H

#include "experiment/store.h"

#include <sqlite3.h>

#include <stdio.h>

/* Statements run for every response and event: prepared once per
** connection on first use (SQL and cached() in store_response.c),
** finalized by store_close(). */
typedef enum StmtId {
    STMT_RESPONSE_DONE = 0,
    STMT_RESPONSE_INSERT,
    STMT_RESPONSE_UPDATE,
    STMT_GET_RESPONSE,
    STMT_TOUCH,
    STMT_STATUS,
    STMT_SCREENING,
    STMT_EXCLUDE,
    STMT_EVENT,
    STMT_COUNT
} StmtId;

struct Store {
    sqlite3 *db;
    char *path;
    const Study *study; /* NULL when opened read-only */
    int64_t study_row;  /* study.id of the current definition */
    char hash[65];
    sqlite3_stmt *stmt[STMT_COUNT]; /* NULL until first used */
    char station[64];               /* the station this store writes as */
    char host[64];                  /* this host's name */
    char lease_id[37];              /* random id of this store's lease */
    int lock_fd;       /* the file, open to hold the OS lock; -1 none */
    int os_lock;       /* 1: the OS lock is held */
    int leased;        /* 1: the lease row is this store's */
    int64_t beat_ms;   /* heartbeat last written */
    char warning[512]; /* store_warning() */
    int group;         /* 1: inside store_group_begin(): each call's own
                          transaction is a savepoint of the group's */
    int lost;          /* 1: the lease was found taken over */
};

/* store.c: fails err with SQLite's last message, "PATH: what: message";
** SIM_ERR_BUSY when the database is locked (try again later), else
** SIM_ERR_DB. Returns the code. */
int store_fail_db(Store *st, SimError *err, const char *what);

/* store.c: runs sql (one or more statements, no results). Inside a group
** (store_group_begin) "BEGIN IMMEDIATE" and "COMMIT" open and release a
** savepoint instead. */
int store_exec(Store *st, const char *sql, SimError *err);

/* store.c: prepares sql into *stmt (the caller finalizes it). */
int store_prepare(Store *st, const char *sql, sqlite3_stmt **stmt,
                  SimError *err);

/* store_schema.c: brings the file to STORE_SCHEMA_VERSION (an empty file
** is version 0); refuses a newer version. */
int store_migrate(Store *st, SimError *err);

/* store_schema.c: finds the study row of st->study's bundle hash or stores
** it (refused when another bundle's data are there, unless allow_changed:
** then stored as a further version with a bundle_changed event). */
int store_attach_study(Store *st, int allow_changed, int64_t wall_ms,
                       SimError *err);

/* store_answer.c: inserts the answers of r (a done questionnaire step);
** the caller holds the transaction. */
int store_answers_write(Store *st, const Response *r, SimError *err);

/* store_interaction.c: inserts the interactions of r, numbered on from
** the step's last stored one (an attempt after a retry or a resume); the
** caller holds the transaction. */
int store_interactions_write(Store *st, const Response *r, SimError *err);

/* store_lease.c: checks that path can be written (file and folder),
** opens it as st->lock_fd and tries the OS lock. SIM_OK with st->os_lock
** set when held, or clear when the file system has no locks (a warning
** then); *held_elsewhere = 1 when another process holds it. Runs before
** SQLite opens the file. */
int store_lease_lock(Store *st, int *held_elsewhere, SimError *err);

/* store_lease.c: the refusal when another process holds the OS lock,
** naming the lease row's station, host and pid when it can be read. */
int store_lease_refuse(Store *st, int64_t now_ms, SimError *err);

/* store_lease.c: takes the lease row (after the migration), or refuses
** naming its holder; logs a takeover. */
int store_lease_acquire(Store *st, int64_t now_ms, SimError *err);

/* store_lease.c: 1 when a heartbeat is due at now_ms. */
int store_lease_due(const Store *st, int64_t now_ms);

/* store_lease.c: writes the heartbeat when due (inside the caller's
** transaction, if any); SIM_ERR_DB when the lease is no longer ours. */
int store_lease_beat(Store *st, int64_t now_ms, SimError *err);

/* store_lease.c: gives the lease row back (if ours), before SQLite
** closes. */
void store_lease_release(Store *st);

/* store_lease.c: drops the OS lock, after SQLite closed. */
void store_lease_unlock(Store *st);

/* store_lease.c: fills st->warning when the folder of st->path is on a
** network or FUSE file system. */
void store_lease_fs_warning(Store *st);

/* store_schema.c: the SQL that gives a pushed table its sync_dirty mark
** (1 for new rows, raised by a trigger on every other update; the sync
** clears it to 0 once the row is on the server): call it in the migration
** step that creates a table listed in SYNC_TABLES. 0, or -1 when buf is
** too small. */
int store_sync_mark_sql(const char *table, char *buf, size_t size);

/* Binds v, or NULL when v is NULL. */
static inline void store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v) {
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(s, i);
    }
}

/* Copies a text column into dst ("" for NULL), truncated to size. */
static inline void store_copy_col(char *dst, size_t size, sqlite3_stmt *s,
                                  int col)
{
    const unsigned char *v = sqlite3_column_text(s, col);
    snprintf(dst, size, "%s", v ? (const char *)v : "");
}

/* The id of class idx of study, NULL when out of range (none). */
static inline const char *store_class_id(const Study *study, int idx)
{
    return idx >= 0 && (size_t)idx < study->n_classes ? study->classes[idx].id
                                                      : NULL;
}

#endif
