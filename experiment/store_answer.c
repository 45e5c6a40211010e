/*
** Questionnaire answers: one row per answered question in the answer table
** (schema version 4), written in the transaction of the step's response so
** that a step is never done without its answers, and read back.
*/
#include "experiment/store_int.h"

#include <string.h>

int store_answers_write(Store *st, const Response *r, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(st,
                           "INSERT INTO answer (participant, seq, question, "
                           "type, value, rt_ms, recorded_ms, station) VALUES "
                           "(?,?,?,?,?,?,?,?)",
                           &s, err);
    for (size_t i = 0; rc == SIM_OK && i < r->n_answers; i++) {
        const Answer *a = &r->answers[i];
        store_bind_text(s, 1, r->participant);
        sqlite3_bind_int(s, 2, r->seq);
        store_bind_text(s, 3, a->question);
        store_bind_text(s, 4, a->type);
        store_bind_text(s, 5, a->value ? a->value : "");
        if (a->rt_ms >= 0) {
            sqlite3_bind_double(s, 6, a->rt_ms);
        } else {
            sqlite3_bind_null(s, 6);
        }
        sqlite3_bind_int64(s, 7, r->wall_ms);
        store_bind_text(s, 8, st->station);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = store_fail_db(st, err, "record answers");
        }
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int store_get_answers(Store *store, const char *pid, int seq,
                      void (*fn)(const char *question, const char *value,
                                 void *ctx),
                      void *ctx, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(store,
                           "SELECT question, value FROM answer WHERE "
                           "participant = ? AND seq = ? ORDER BY rowid",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    sqlite3_bind_int(s, 2, seq);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        fn((const char *)sqlite3_column_text(s, 0),
           (const char *)sqlite3_column_text(s, 1), ctx);
    }
    if (step != SQLITE_DONE) {
        rc = store_fail_db(store, err, "read answers");
    }
    sqlite3_finalize(s);
    return rc;
}
