/*
** Responses, screening, participant status and events: the writes of a
** running session. Each runs on statements prepared once per connection
** (cached()), so recording a response costs little more than the
** durable commit it has to make.
*/
#include "experiment/store_int.h"

#include <string.h>

static const char *const STMT_SQL[STMT_COUNT] = {
    [STMT_RESPONSE_DONE] =
        "SELECT done FROM response WHERE participant = ? AND seq = ?",
    [STMT_RESPONSE_INSERT] =
        "INSERT INTO response (participant, seq, choice, response_id, "
        "correct, rating, attempts, done, final_choice, onset_ns, "
        "response_ns, rating_ns, rt_ms, recorded_ms, station, timed_out, "
        "confidence, confidence_ns) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [STMT_RESPONSE_UPDATE] =
        "UPDATE response SET attempts = ?, done = ?, final_choice = ?, "
        "rating = COALESCE(?, rating), rating_ns = COALESCE(?, rating_ns), "
        "recorded_ms = ? WHERE participant = ? AND seq = ?",
    [STMT_GET_RESPONSE] =
        "SELECT choice, correct, rating, attempts, done, onset_ns, "
        "response_ns, rating_ns, recorded_ms, timed_out, confidence, "
        "confidence_ns FROM response WHERE "
        "participant = ? AND seq = ?",
    [STMT_TOUCH] = "UPDATE participant SET last_active_ms = ?1, status = "
                   "CASE WHEN status = 'aborted' THEN 'active' ELSE status "
                   "END, active_station = ?3 WHERE id = ?2",
    [STMT_STATUS] = "UPDATE participant SET status = ?, last_active_ms = ?, "
                    "finished_ms = ?, active_station = ?5 WHERE id = ?4",
    [STMT_SCREENING] = "INSERT INTO screening (participant, rule, passed, "
                       "detail, recorded_ms) VALUES (?,?,?,?,?)",
    /* the first failed rule names the exclusion; later ones add to it */
    [STMT_EXCLUDE] =
        "UPDATE participant SET excluded = 1, exclusion_reason = CASE WHEN "
        "exclusion_reason IS NULL OR exclusion_reason = '' THEN ?1 ELSE "
        "exclusion_reason || ',' || ?1 END WHERE id = ?2",
    [STMT_EVENT] = "INSERT INTO event (participant, kind, detail, wall_ms, "
                   "mono_ns) VALUES (?,?,?,?,?)",
};

/* The statement id, prepared on first use. Hand it back with release() so
** that it holds no read lock and keeps no bindings (unbound is NULL). */
static int cached(Store *st, StmtId id, sqlite3_stmt **stmt, SimError *err)
{
    if (!st->stmt[id] &&
        sqlite3_prepare_v3(st->db, STMT_SQL[id], -1, SQLITE_PREPARE_PERSISTENT,
                           &st->stmt[id], NULL) != SQLITE_OK) {
        *stmt = NULL;
        return store_fail_db(st, err, "prepare");
    }
    *stmt = st->stmt[id];
    return SIM_OK;
}

static void release(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* Steps a cached write statement once and releases it. */
static int run(Store *st, sqlite3_stmt *s, const char *what, SimError *err)
{
    int rc =
        sqlite3_step(s) == SQLITE_DONE ? SIM_OK : store_fail_db(st, err, what);
    release(s);
    return rc;
}

static int set_status(Store *st, const char *pid, ParticipantStatus status,
                      int64_t wall_ms, int finished, SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(st, STMT_STATUS, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, participant_status_name(status));
    sqlite3_bind_int64(s, 2, wall_ms);
    if (finished) {
        sqlite3_bind_int64(s, 3, wall_ms);
    }
    store_bind_text(s, 4, pid);
    store_bind_text(s, 5, st->station);
    return run(st, s, "set status", err);
}

/* Inserts a screening row and, when the rule failed, marks the participant
** excluded; the caller holds the transaction. */
static int screening_rows(Store *store, const char *pid, const ScreenResult *sr,
                          int64_t wall_ms, SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(store, STMT_SCREENING, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    store_bind_text(s, 2, sr->rule);
    sqlite3_bind_int(s, 3, sr->passed);
    store_bind_text(s, 4, sr->detail);
    sqlite3_bind_int64(s, 5, wall_ms);
    rc = run(store, s, "record screening", err);
    if (rc == SIM_OK && !sr->passed) {
        rc = cached(store, STMT_EXCLUDE, &s, err);
        if (rc == SIM_OK) {
            store_bind_text(s, 1, sr->rule);
            store_bind_text(s, 2, pid);
            rc = run(store, s, "exclude participant", err);
        }
    }
    return rc;
}

/* Inserts the first record of a step, or updates attempts and done of a
** step that is not done yet (a retry); the caller holds the transaction. */
static int write_response(Store *store, const Response *r, int exists,
                          SimError *err)
{
    sqlite3_stmt *s;
    int rc = cached(store, exists ? STMT_RESPONSE_UPDATE : STMT_RESPONSE_INSERT,
                    &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (exists) {
        sqlite3_bind_int(s, 1, r->attempts);
        sqlite3_bind_int(s, 2, r->done);
        if (r->choice >= 0) {
            sqlite3_bind_int(s, 3, r->choice);
        }
        if (r->rating > 0) {
            sqlite3_bind_int(s, 4, r->rating);
            sqlite3_bind_int64(s, 5, r->rating_ns);
        }
        sqlite3_bind_int64(s, 6, r->wall_ms);
        store_bind_text(s, 7, r->participant);
        sqlite3_bind_int(s, 8, r->seq);
        return run(store, s, "record response", err);
    }
    store_bind_text(s, 1, r->participant);
    sqlite3_bind_int(s, 2, r->seq);
    if (r->choice >= 0) {
        sqlite3_bind_int(s, 3, r->choice);
        sqlite3_bind_int(s, 9, r->choice);
    }
    store_bind_text(s, 4, r->choice_id);
    if (r->correct >= 0) {
        sqlite3_bind_int(s, 5, r->correct);
    }
    if (r->rating > 0) {
        sqlite3_bind_int(s, 6, r->rating);
        sqlite3_bind_int64(s, 12, r->rating_ns);
    }
    sqlite3_bind_int(s, 7, r->attempts > 0 ? r->attempts : 1);
    sqlite3_bind_int(s, 8, r->done);
    sqlite3_bind_int64(s, 10, r->onset_ns);
    sqlite3_bind_int64(s, 11, r->response_ns);
    if (r->response_ns > 0 && r->onset_ns > 0) {
        sqlite3_bind_double(s, 13,
                            (double)(r->response_ns - r->onset_ns) / 1e6);
    }
    sqlite3_bind_int64(s, 14, r->wall_ms);
    store_bind_text(s, 15, store->station);
    sqlite3_bind_int(s, 16, r->timed_out ? 1 : 0);
    if (r->confidence > 0) {
        sqlite3_bind_int(s, 17, r->confidence);
        sqlite3_bind_int64(s, 18, r->confidence_ns);
    }
    return run(store, s, "record response", err);
}

int store_record_response(Store *store, const Response *r, SimError *err)
{
    int rc = store_exec(store, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_stmt *s;
    int exists = 0, done = 0;
    rc = store_lease_beat(store, r->wall_ms, err);
    if (rc == SIM_OK) {
        rc = cached(store, STMT_RESPONSE_DONE, &s, err);
    }
    if (rc == SIM_OK) {
        store_bind_text(s, 1, r->participant);
        sqlite3_bind_int(s, 2, r->seq);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            exists = 1;
            done = sqlite3_column_int(s, 0);
        } else if (step != SQLITE_DONE) {
            rc = store_fail_db(store, err, "read response");
        }
        release(s);
    }
    if (rc == SIM_OK && done) {
        store_rollback(store);
        return sim_fail(err, SIM_ERR_STATE,
                        "%s: participant %s, step %d: already recorded",
                        store->path, r->participant, r->seq);
    }
    if (rc == SIM_OK) {
        rc = write_response(store, r, exists, err);
    }
    if (rc == SIM_OK && r->done && r->n_answers > 0) {
        rc = store_answers_write(store, r, err);
    }
    if (rc == SIM_OK && r->n_interactions > 0) {
        rc = store_interactions_write(store, r, err);
    }
    if (rc == SIM_OK) {
        rc = cached(store, STMT_TOUCH, &s, err);
    }
    if (rc == SIM_OK) {
        sqlite3_bind_int64(s, 1, r->wall_ms);
        store_bind_text(s, 2, r->participant);
        store_bind_text(s, 3, store->station);
        rc = run(store, s, "update participant", err);
    }
    for (int i = 0; rc == SIM_OK && i < r->n_screen && i < 2; i++) {
        rc = screening_rows(store, r->participant, &r->screen[i], r->wall_ms,
                            err);
    }
    if (rc == SIM_OK && r->set_status) {
        rc = set_status(store, r->participant, r->new_status, r->wall_ms, 1,
                        err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(store, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        store_rollback(store);
    }
    return rc;
}

int store_get_response(Store *store, const char *pid, int seq, Response *r,
                       int *found, SimError *err)
{
    sqlite3_stmt *s;
    *found = 0;
    memset(r, 0, sizeof *r);
    int rc = cached(store, STMT_GET_RESPONSE, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    sqlite3_bind_int(s, 2, seq);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *found = 1;
        r->participant = pid;
        r->seq = seq;
        r->choice = sqlite3_column_type(s, 0) == SQLITE_NULL
                        ? -1
                        : sqlite3_column_int(s, 0);
        r->correct = sqlite3_column_type(s, 1) == SQLITE_NULL
                         ? -1
                         : sqlite3_column_int(s, 1);
        r->rating = sqlite3_column_int(s, 2);
        r->attempts = sqlite3_column_int(s, 3);
        r->done = sqlite3_column_int(s, 4);
        r->onset_ns = sqlite3_column_int64(s, 5);
        r->response_ns = sqlite3_column_int64(s, 6);
        r->rating_ns = sqlite3_column_int64(s, 7);
        r->wall_ms = sqlite3_column_int64(s, 8);
        r->timed_out = sqlite3_column_int(s, 9);
        r->confidence = sqlite3_column_int(s, 10);
        r->confidence_ns = sqlite3_column_int64(s, 11);
    } else if (step != SQLITE_DONE) {
        rc = store_fail_db(store, err, "read response");
    }
    release(s);
    return rc;
}

/* Starts a transaction for a single write at now_ms when the lease's
** heartbeat is due and none is open (*own = 1: the caller ends it), and
** writes the heartbeat. */
static int beat_begin(Store *st, int64_t now_ms, int *own, SimError *err)
{
    *own = 0;
    if (!store_lease_due(st, now_ms)) {
        return SIM_OK;
    }
    if (sqlite3_get_autocommit(st->db)) {
        int rc = store_exec(st, "BEGIN IMMEDIATE", err);
        if (rc != SIM_OK) {
            return rc;
        }
        *own = 1;
    }
    return store_lease_beat(st, now_ms, err);
}

/* Ends what beat_begin started: commits when rc is SIM_OK, else rolls
** back. Returns the outcome. */
static int beat_end(Store *st, int own, int rc, SimError *err)
{
    if (!own) {
        return rc;
    }
    if (rc == SIM_OK) {
        rc = store_exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        store_rollback(st);
    }
    return rc;
}

int store_set_status(Store *store, const char *pid, ParticipantStatus status,
                     int64_t wall_ms, SimError *err)
{
    int own;
    int rc = beat_begin(store, wall_ms, &own, err);
    if (rc == SIM_OK) {
        rc = set_status(store, pid, status, wall_ms,
                        status != PSTATUS_ACTIVE && status != PSTATUS_ABORTED,
                        err);
    }
    return beat_end(store, own, rc, err);
}

int store_record_screening(Store *store, const char *pid, const char *rule,
                           int passed, const char *detail, int64_t wall_ms,
                           SimError *err)
{
    ScreenResult sr;
    sr.rule = rule;
    sr.passed = passed;
    snprintf(sr.detail, sizeof sr.detail, "%s", detail ? detail : "");
    int rc = store_exec(store, "BEGIN IMMEDIATE", err);
    if (rc == SIM_OK) {
        rc = store_lease_beat(store, wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = screening_rows(store, pid, &sr, wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(store, "COMMIT", err);
    } else {
        store_rollback(store);
    }
    return rc;
}

int store_log_event(Store *store, const char *pid, const char *kind,
                    const char *detail, int64_t wall_ms, int64_t mono_ns,
                    SimError *err)
{
    int own;
    int rc = beat_begin(store, wall_ms, &own, err);
    sqlite3_stmt *s;
    if (rc == SIM_OK) {
        rc = cached(store, STMT_EVENT, &s, err);
    }
    if (rc == SIM_OK) {
        store_bind_text(s, 1, pid);
        store_bind_text(s, 2, kind);
        store_bind_text(s, 3, detail);
        sqlite3_bind_int64(s, 4, wall_ms);
        if (mono_ns) {
            sqlite3_bind_int64(s, 5, mono_ns);
        }
        rc = run(store, s, "log event", err);
    }
    return beat_end(store, own, rc, err);
}
