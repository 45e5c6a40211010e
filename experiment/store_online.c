/*
** `simlab serve`'s rows in the store (schema 10): how each web participant
** may continue from another browser (online_access) and the file's own
** secret (online_secret), plus when a participant's current step was
** reached. The hashes are made by serve/; the store keeps text.
*/
#include "experiment/store_int.h"

#include <string.h>

#include "common/sim_alloc.h"

int store_online_access_put(Store *st, const OnlineAccess *a, int64_t wall_ms,
                            SimError *err)
{
    sqlite3_stmt *s = NULL;
    int rc = store_exec(st, "BEGIN IMMEDIATE", err);
    if (rc == SIM_OK) {
        rc = store_prepare(st,
                           "INSERT OR REPLACE INTO online_access "
                           "(participant, mode, key_hash, session_hash, "
                           "code_hash, updated_ms) VALUES (?, ?, ?, ?, ?, ?)",
                           &s, err);
    }
    if (rc == SIM_OK) {
        store_bind_text(s, 1, a->participant);
        store_bind_text(s, 2, a->mode);
        store_bind_text(s, 3, a->key_hash[0] ? a->key_hash : NULL);
        store_bind_text(s, 4, a->session_hash[0] ? a->session_hash : NULL);
        store_bind_text(s, 5, a->code_hash[0] ? a->code_hash : NULL);
        sqlite3_bind_int64(s, 6, wall_ms);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = store_fail_db(st, err, "store online access");
        }
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK) {
        rc = store_lease_beat(st, wall_ms, err);
    }
    if (rc == SIM_OK) {
        rc = store_commit(st, err);
    } else {
        store_rollback(st);
    }
    return rc;
}

int store_online_access_list(Store *st, OnlineAccess **out, size_t *n,
                             SimError *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    int rc = store_prepare(st,
                           "SELECT participant, mode, key_hash, session_hash, "
                           "code_hash FROM online_access ORDER BY rowid",
                           &s, err);
    size_t cap = 0;
    int step;
    while (rc == SIM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            OnlineAccess *v = sim_realloc(*out, cap * sizeof *v);
            if (!v) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
                break;
            }
            *out = v;
        }
        OnlineAccess *a = &(*out)[(*n)++];
        store_copy_col(a->participant, sizeof a->participant, s, 0);
        store_copy_col(a->mode, sizeof a->mode, s, 1);
        store_copy_col(a->key_hash, sizeof a->key_hash, s, 2);
        store_copy_col(a->session_hash, sizeof a->session_hash, s, 3);
        store_copy_col(a->code_hash, sizeof a->code_hash, s, 4);
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = store_fail_db(st, err, "read online access");
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        sim_free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

int store_online_secret(Store *st, unsigned char out[32], SimError *err)
{
    char hex[80] = "";
    sqlite3_stmt *s = NULL;
    int rc = store_prepare(st, "SELECT secret FROM online_secret WHERE id = 1",
                           &s, err);
    if (rc == SIM_OK && sqlite3_step(s) == SQLITE_ROW) {
        store_copy_col(hex, sizeof hex, s, 0);
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        return rc;
    }
    if (strlen(hex) != 64) {
        return sim_fail(err, SIM_ERR_DB, "%s: online_secret: no secret",
                        st->path);
    }
    for (int i = 0; i < 32; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return sim_fail(err, SIM_ERR_DB,
                            "%s: online_secret: not hexadecimal", st->path);
        }
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return SIM_OK;
}

int store_step_since_ms(Store *st, const char *pid, int64_t *out, SimError *err)
{
    sqlite3_stmt *s = NULL;
    int rc = store_prepare(st,
                           "SELECT coalesce((SELECT max(recorded_ms) FROM "
                           "response WHERE participant = ?1), (SELECT "
                           "created_ms FROM participant WHERE id = ?1))",
                           &s, err);
    if (rc == SIM_OK) {
        store_bind_text(s, 1, pid);
        if (sqlite3_step(s) == SQLITE_ROW) {
            *out = sqlite3_column_int64(s, 0);
        } else {
            rc = store_fail_db(st, err, "read the step's time");
        }
    }
    sqlite3_finalize(s);
    return rc;
}
