/*
** Assignment on the server: the participants of every station are counted
** in one transaction under an advisory lock per study, the pure rules of
** experiment/assign.c choose, and the new participant's row is inserted
** before the lock goes, so that the next station counts it. The station
** then enrolls locally with that choice (same participant id); when the
** server cannot be reached it assigns locally and says so.
*/
#include "experiment/sync_int.h"

#include "experiment/assign.h"
#include "common/sim_alloc.h"

#include <uuid/uuid.h>

#include <stdlib.h>
#include <string.h>

/* Puts the study row of this bundle on the server (the counts join it). */
static int study_row(SyncConn *c, Store *store, const char *origin,
                     SimError *err)
{
    sqlite3_stmt *s = NULL;
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(store_db(store),
                           "SELECT hash, study_id, title, definition, "
                           "software, created_ms FROM study WHERE hash = ?",
                           -1, &s, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: read study", store_path(store));
    }
    sqlite3_bind_text(s, 1, store_study_hash(store), -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *p[7] = {origin};
        for (int i = 0; i < 6; i++) {
            p[i + 1] = (const char *)sqlite3_column_text(s, i);
        }
        rc = sync_exec_params(
            c, "study",
            "INSERT INTO study (origin, hash, study_id, title, "
            "definition, software, created_ms) VALUES ($1, $2, "
            "$3, $4, $5, $6, $7) ON CONFLICT (hash) DO NOTHING",
            7, p, NULL, err);
    }
    sqlite3_finalize(s);
    return rc;
}

/* Fills counts from the server's participants of study_id. */
static int server_counts(SyncConn *c, const Study *study, const EnrollSpec *e,
                         AssignCount *counts, SimError *err)
{
    char since[32], pilot[4], simulated[4];
    snprintf(since, sizeof since, "%lld",
             (long long)assign_active_since(&study->assignment, e->wall_ms));
    snprintf(pilot, sizeof pilot, "%d", e->pilot != 0);
    snprintf(simulated, sizeof simulated, "%d", e->simulated != 0);
    const char *p[4] = {study->id ? study->id : "", pilot, simulated, since};
    PGresult *res = NULL;
    int rc = sync_exec_params(
        c, "count participants",
        "SELECT p.condition, p.status, sum((p.excluded = 0)::int), "
        "sum((p.last_active_ms >= $4)::int) FROM participant p "
        "JOIN study s ON s.hash = p.study_hash WHERE s.study_id = $1 "
        "AND p.pilot = $2 AND p.simulated = $3 GROUP BY 1, 2",
        4, p, &res, err);
    if (rc != SIM_OK) {
        return rc;
    }
    memset(counts, 0, study->n_conditions * sizeof *counts);
    for (int i = 0; i < PQntuples(res); i++) {
        int cond = study_condition_index(study, PQgetvalue(res, i, 0));
        if (cond >= 0) {
            AssignGroup g;
            g.status = participant_status_parse(PQgetvalue(res, i, 1));
            g.n_included = atoi(PQgetvalue(res, i, 2));
            g.n_recent = atoi(PQgetvalue(res, i, 3));
            assign_count_add(&counts[cond], &g);
        }
    }
    PQclear(res);
    return SIM_OK;
}

/* The server transaction: lock, count, choose, insert. SIM_ERR_DB when the
** server failed (the caller falls back); SIM_ERR_STATE when the rules
** choose nothing. */
static int server_assign(SyncConn *c, Store *store, const Study *study,
                         const EnrollSpec *e, const char *origin, char *cond,
                         size_t cond_size, const char **by, SimError *err)
{
    AssignCount *counts = sim_calloc(study->n_conditions, sizeof *counts);
    if (!counts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    char lock[128];
    snprintf(lock, sizeof lock,
             "BEGIN; SELECT pg_advisory_xact_lock(%d, hashtext($$%s$$))",
             SYNC_LOCK_ASSIGN, study->id ? study->id : "");
    int rc = sync_ensure(c, err);
    if (rc == SIM_OK && strstr(study->id ? study->id : "", "$$")) {
        rc = sim_fail(err, SIM_ERR_INVALID, "study id with $$");
    }
    if (rc == SIM_OK) {
        rc = sync_exec(c, lock, err);
    }
    int send_study = strcmp(c->study_sent, store_study_hash(store)) != 0;
    if (rc == SIM_OK && send_study) {
        rc = study_row(c, store, origin, err);
    }
    if (rc == SIM_OK) {
        rc = server_counts(c, study, e, counts, err);
    }
    AssignChoice choice;
    if (rc == SIM_OK) {
        assign_choose(study, counts, NULL, e->assign_seed, &choice);
        if (choice.why == ASSIGN_WHY_NONE ||
            (size_t)snprintf(cond, cond_size, "%s", choice.id) >= cond_size) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: no condition could be assigned", c->redacted);
        }
    }
    if (rc == SIM_OK) {
        char seed[32], wall[32], pilot[4], simulated[4];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)e->seed);
        snprintf(wall, sizeof wall, "%lld", (long long)e->wall_ms);
        snprintf(pilot, sizeof pilot, "%d", e->pilot != 0);
        snprintf(simulated, sizeof simulated, "%d", e->simulated != 0);
        const char *station = e->station ? e->station : store_station(store);
        const char *p[12] = {origin,  e->id, store_study_hash(store),
                             e->code, cond,  choice.assigned_by,
                             station, pilot, simulated,
                             seed,    wall,  store_station(store)};
        rc = sync_exec_params(
            c, "insert participant",
            "INSERT INTO participant (origin, id, study_hash, code, "
            "condition, assigned_by, assign_source, station, pilot, "
            "simulated, seed, status, excluded, created_ms, last_active_ms, "
            "active_station) VALUES ($1, $2, $3, $4, $5, $6, 'server', $7, "
            "$8, $9, $10, 'active', 0, $11, $11, $12) "
            "ON CONFLICT (id) DO NOTHING",
            12, p, NULL, err);
    }
    if (rc == SIM_OK) {
        rc = sync_exec(c, "COMMIT", err);
        *by = choice.assigned_by;
        if (rc == SIM_OK && send_study) {
            snprintf(c->study_sent, sizeof c->study_sent, "%s",
                     store_study_hash(store));
        }
    }
    if (rc != SIM_OK) {
        sync_rollback(c);
    }
    sim_free(counts);
    return rc;
}

int sync_assign_preview(SyncConn *c, const Study *study, int pilot,
                        int simulated, int64_t wall_ms, uint64_t rng_seed,
                        char *out, size_t out_size, SimError *err)
{
    EnrollSpec e;
    memset(&e, 0, sizeof e);
    e.pilot = pilot;
    e.simulated = simulated;
    e.wall_ms = wall_ms;
    AssignCount *counts = sim_calloc(study->n_conditions + 1, sizeof *counts);
    if (!counts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = sync_ensure(c, err);
    if (rc == SIM_OK) {
        rc = server_counts(c, study, &e, counts, err);
    }
    if (rc == SIM_OK) {
        AssignChoice choice;
        assign_choose(study, counts, NULL, rng_seed, &choice);
        if (choice.why == ASSIGN_WHY_NONE ||
            (size_t)snprintf(out, out_size, "%s", choice.id) >= out_size) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: no condition could be assigned", c->redacted);
        }
    }
    sim_free(counts);
    return rc;
}

int sync_enroll(SyncConn *c, Store *store, const Study *study,
                const EnrollSpec *spec, ParticipantInfo *info, SimError *err)
{
    if (!c || spec->condition) {
        return store_enroll(store, spec, info, err);
    }
    EnrollSpec e = *spec;
    char pid[37];
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, pid);
    e.id = pid;
    /* the seed goes to the server with the row: fix it here as
    ** store_enroll would (63 bits, not 0) */
    e.seed = (e.seed ? e.seed : store_random_seed()) & 0x7fffffffffffffffULL;
    if (!e.seed) {
        e.seed = 1;
    }
    if (!e.assign_seed) {
        e.assign_seed = store_random_seed();
    }
    char origin[64] = "";
    sync_local_text(store_db(store), "SELECT uuid FROM sync_origin", origin,
                    sizeof origin);
    char cond[128];
    const char *by = NULL;
    SimError serr;
    sim_error_clear(&serr);
    int rc = server_assign(c, store, study, &e, origin, cond, sizeof cond, &by,
                           &serr);
    int fallback = 0;
    if (rc == SIM_OK) {
        e.condition = cond;
        e.assigned_by = by;
        e.assign_source = "server";
    } else if (serr.code == SIM_ERR_DB) {
        e.assign_source = "station_fallback";
        fallback = 1;
    } else {
        *err = serr;
        return rc;
    }
    rc = store_enroll(store, &e, info, err);
    if (rc == SIM_OK && fallback) {
        /* the message names the server by its redacted URL */
        char detail[600];
        size_t k = (size_t)snprintf(detail, sizeof detail, "{\"error\":\"");
        for (const char *m = serr.msg; *m && k + 8 < sizeof detail; m++) {
            if (*m == '"' || *m == '\\') {
                detail[k++] = '\\';
            }
            detail[k++] = (unsigned char)*m < 0x20 ? ' ' : *m;
        }
        snprintf(detail + k, sizeof detail - k, "\"}");
        rc = store_log_event(store, pid, "assign_fallback", detail, e.wall_ms,
                             0, err);
    }
    return rc;
}
