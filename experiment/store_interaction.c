/*
** Interactions with explanations (reveal, hide, hover; schema version 9):
** written in the transaction of their step's response, numbered on from
** the step's last stored event, and read back.
*/
#include "experiment/store_int.h"

#include <string.h>

int store_interactions_write(Store *st, const Response *r, SimError *err)
{
    sqlite3_stmt *s;
    /* condition, block and item come from the step's own row */
    int rc = store_prepare(
        st,
        "INSERT INTO interaction (participant, condition, block, seq, item, "
        "attempt, n, event, target, t_ms, recorded_ms, station) "
        "SELECT t.participant, COALESCE(t.condition, p.condition), "
        "t.block_id, t.seq, t.item, ?3, "
        "(SELECT COALESCE(MAX(n), 0) + 1 FROM interaction WHERE "
        "participant = ?1 AND seq = ?2), ?4, ?5, ?6, ?7, ?8 "
        "FROM trial t JOIN participant p ON p.id = t.participant "
        "WHERE t.participant = ?1 AND t.seq = ?2",
        &s, err);
    for (size_t i = 0; rc == SIM_OK && i < r->n_interactions; i++) {
        const Interaction *in = &r->interactions[i];
        store_bind_text(s, 1, r->participant);
        sqlite3_bind_int(s, 2, r->seq);
        sqlite3_bind_int(s, 3, in->attempt > 0 ? in->attempt : 1);
        store_bind_text(s, 4, in->event);
        store_bind_text(s, 5, in->target[0] ? in->target : NULL);
        sqlite3_bind_double(s, 6, in->t_ms);
        sqlite3_bind_int64(s, 7, r->wall_ms);
        store_bind_text(s, 8, st->station);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = store_fail_db(st, err, "record interactions");
        } else if (sqlite3_changes(st->db) != 1) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: participant %s has no step %d", st->path,
                          r->participant, r->seq);
        }
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int store_get_interactions(Store *store, const char *pid, int seq,
                           void (*fn)(const char *event, const char *target,
                                      double t_ms, int attempt, void *ctx),
                           void *ctx, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(store,
                           "SELECT event, COALESCE(target, ''), t_ms, attempt "
                           "FROM interaction WHERE participant = ? AND seq = ? "
                           "ORDER BY n",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    sqlite3_bind_int(s, 2, seq);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        fn((const char *)sqlite3_column_text(s, 0),
           (const char *)sqlite3_column_text(s, 1), sqlite3_column_double(s, 2),
           sqlite3_column_int(s, 3), ctx);
    }
    if (step != SQLITE_DONE) {
        rc = store_fail_db(store, err, "read interactions");
    }
    sqlite3_finalize(s);
    return rc;
}
