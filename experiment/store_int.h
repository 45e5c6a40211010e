/*
** Private to the store's files (store.c, store_schema.c, store_enroll.c,
** store_response.c): the Store struct, the cached statements and the small
** SQLite helpers they share. Callers outside the store use store.h.
**
** The store in four files:
**   store.c           connection: open, pragmas, close, transactions,
**                     the helpers below
**   store_schema.c    schema and user_version migrations; the study and
**                     item rows (definition and bundle hash)
**   store_enroll.c    enrollment (counts for experiment/assign.h, the
**                     participant row, the schedule as trial rows),
**                     reading participants and schedules back
**   store_response.c  responses, screening, status and events: the hot
**                     path, on statements prepared once per connection
**
** Schema (version 1, store_schema.c):
**   study(id, study_id, title, hash UNIQUE, definition, software, created_ms)
**   item(study, key, pool, source_id, domain, label, prediction,
**        cf_prediction, prediction_type)              PRIMARY KEY(study, key)
**   participant(id UUID, study, code, condition, assigned_by, station,
**        pilot, simulated, seed, status, excluded, exclusion_reason,
**        created_ms, last_active_ms, finished_ms)
**   trial(participant, seq, block_id, block_kind, phase, session, item,
**        page, is_catch, is_example, expects, show_*, correct_choice,
**        reservoir, index_in_block, n_in_block, test_type, model_output)
**                                                 PRIMARY KEY(participant, seq)
**   response(participant, seq, choice, response_id, correct, rating,
**        attempts, done, final_choice, onset_ns, response_ns, rating_ns,
**        rt_ms, recorded_ms)        PRIMARY KEY(participant, seq) -> trial
**   screening(participant, rule, passed, detail, recorded_ms)
**   event(id, participant, kind, detail, wall_ms, mono_ns)
**   VIEW long_format: simlab long format v1 (+ exclusion_reason, onset_ns,
**        response_ns), one row per completed step with a phase.
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
};

/* store.c: fails err with SQLite's last message, "PATH: what: message";
** SIM_ERR_BUSY when the database is locked (try again later), else
** SIM_ERR_DB. Returns the code. */
int store_fail_db(Store *st, SimError *err, const char *what);

/* store.c: runs sql (one or more statements, no results). */
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
