/*
** Assignment on the server: the participants of every station are counted
** in one transaction under an advisory lock per study (simlab_counts: in
** progress ones by the server's clock), the pure rules of
** experiment/assign.c choose, and the new participants' rows are inserted
** before the lock goes, so that the next station counts them. Two round
** trips for one participant or a batch of them (each counted in before
** the next is chosen); the lock is waited for at most
** SYNC_LOCK_TIMEOUT_MS, the whole attempt at most SYNC_ASSIGN_DEADLINE_MS,
** a deadlock or serialization failure is retried. The station then
** enrolls locally with that choice (same participant id); when the server
** cannot be used it assigns locally and says so. sync_assigner.c runs
** these off the caller's thread.
*/
#include "experiment/sync_int.h"

#include "experiment/assign.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"

#include <uuid/uuid.h>

#include <stdlib.h>
#include <string.h>

/* Puts the study row of this bundle on the server (the counts join it),
** once per connection. */
static int study_row(SyncConn *c, const SyncLocal *L, const char *origin,
                     int64_t deadline, SimError *err)
{
    if (strcmp(c->study_sent, L->hash) == 0) {
        return SIM_OK;
    }
    sqlite3_stmt *s = NULL;
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(L->db,
                           "SELECT json_group_array(json_object('hash', "
                           "hash, 'study_id', study_id, 'title', title, "
                           "'definition', definition, 'software', software, "
                           "'created_ms', created_ms)) FROM study WHERE hash "
                           "= ?",
                           -1, &s, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: read study", L->path);
    }
    sqlite3_bind_text(s, 1, L->hash, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *p[2] = {origin, (const char *)sqlite3_column_text(s, 0)};
        rc = sync_query(c, "study", "SELECT simlab_put_study($1, $2::json)", 2,
                        p, deadline, NULL, err);
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK) {
        snprintf(c->study_sent, sizeof c->study_sent, "%s", L->hash);
    }
    return rc;
}

/* Closes, once per connection's life, the participants the server
** assigned to this file in an earlier run that never reached the file
** (the station stopped between the server's commit and its own): they
** would hold their condition's place for active_minutes. This run has
** assigned nobody yet, so every such row is from before. */
static int close_ghosts(SyncConn *c, const SyncLocal *L, const char *origin,
                        int64_t deadline, SimError *err)
{
    if (c->ghosts_done) {
        return SIM_OK;
    }
    const char *p[1] = {origin};
    PGresult *res = NULL;
    int rc = sync_query(c, "unfinished assignments",
                        "SELECT id FROM participant WHERE origin = $1 AND "
                        "status = 'active' AND assign_source = 'server'",
                        1, p, deadline, &res, err);
    SimBuf ids;
    sim_buf_init(&ids);
    sqlite3_stmt *s = NULL;
    if (rc == SIM_OK &&
        sqlite3_prepare_v2(L->db, "SELECT 1 FROM participant WHERE id = ?", -1,
                           &s, NULL) != SQLITE_OK) {
        rc = sync_local_fail(L->db, L->path, "participant", err);
    }
    for (int i = 0; rc == SIM_OK && i < PQntuples(res); i++) {
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, PQgetvalue(res, i, 0), -1, SQLITE_TRANSIENT);
        int step = sqlite3_step(s);
        if (step == SQLITE_DONE) { /* not in the file */
            sim_buf_puts(&ids, ids.len ? "," : "{");
            sim_buf_puts(&ids, PQgetvalue(res, i, 0));
        } else if (step != SQLITE_ROW) {
            rc = sync_local_fail(L->db, L->path, "participant", err);
        }
    }
    sqlite3_finalize(s);
    PQclear(res);
    if (rc == SIM_OK && ids.len) {
        sim_buf_puts(&ids, "}");
        const char *q[2] = {origin, sim_buf_cstr(&ids)};
        rc = sync_query(c, "unfinished assignments",
                        "UPDATE participant SET status = 'aborted' WHERE "
                        "origin = $1 AND id = ANY ($2::text[]) AND status = "
                        "'active'",
                        2, q, deadline, NULL, err);
    }
    sim_buf_free(&ids);
    if (rc == SIM_OK) {
        c->ghosts_done = 1;
    }
    return rc;
}

/* Fills counts from simlab_counts' rows in res. */
static void read_counts(const Study *study, const PGresult *res,
                        AssignCount *counts)
{
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
}

/* SELECT * FROM simlab_counts(...) for the study and flags, appended to
** b as literals. */
static void counts_sql(SyncConn *c, SimBuf *b, const Study *study, int pilot,
                       int simulated)
{
    sim_buf_puts(b, "SELECT * FROM simlab_counts(");
    sync_literal(c, b, study->id ? study->id : "");
    sim_buf_printf(b, ", %d, %d, %d)", pilot != 0, simulated != 0,
                   study->assignment.active_minutes);
}

/* One attempt of the server transaction for jobs[0..n-1]: lock, count,
** choose each in turn (counting the ones chosen before it), insert. */
static int assign_once(SyncConn *c, const Study *study,
                       SyncAssignJob *const *jobs, size_t n, const char *origin,
                       const char *station, const char *hash, int64_t deadline,
                       SimError *err)
{
    AssignCount *counts = sim_calloc(study->n_conditions + 1, sizeof *counts);
    if (!counts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    SimBuf sql;
    sim_buf_init(&sql);
    sim_buf_printf(&sql,
                   "BEGIN; SET LOCAL lock_timeout = '%dms'; SET LOCAL "
                   "statement_timeout = '%dms'; SELECT "
                   "pg_advisory_xact_lock(%d, hashtext(",
                   SYNC_LOCK_TIMEOUT_MS, SYNC_ASSIGN_DEADLINE_MS,
                   SYNC_LOCK_ASSIGN);
    sync_literal(c, &sql, study->id ? study->id : "");
    sim_buf_puts(&sql, ")); ");
    counts_sql(c, &sql, study, jobs[0]->pilot, jobs[0]->simulated);
    PGresult *res = NULL;
    int rc = sql.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                     : sync_query(c, "assign", sql.data, -1, NULL, deadline,
                                  &res, err);
    sim_buf_free(&sql);
    if (rc == SIM_OK) {
        read_counts(study, res, counts);
        for (size_t j = 0; j < n && rc == SIM_OK; j++) {
            AssignChoice choice;
            assign_choose(study, counts, NULL, jobs[j]->assign_seed, &choice);
            if (choice.why == ASSIGN_WHY_NONE ||
                (size_t)snprintf(jobs[j]->condition, sizeof jobs[j]->condition,
                                 "%s",
                                 choice.id) >= sizeof jobs[j]->condition) {
                rc =
                    sim_fail(err, SIM_ERR_STATE,
                             "%s: no condition could be assigned", c->redacted);
                break;
            }
            snprintf(jobs[j]->assigned_by, sizeof jobs[j]->assigned_by, "%s",
                     choice.assigned_by);
            if (choice.condition >= 0) {
                counts[choice.condition].active++; /* in progress, recent */
            }
        }
    }
    PQclear(res);
    if (rc == SIM_OK) {
        sim_buf_init(&sql);
        sim_buf_puts(&sql, "INSERT INTO participant (origin, id, study_hash, "
                           "code, condition, assigned_by, assign_source, "
                           "station, pilot, simulated, seed, status, "
                           "excluded, created_ms, last_active_ms, "
                           "active_station) VALUES ");
        for (size_t j = 0; j < n; j++) {
            const SyncAssignJob *e = jobs[j];
            char seed[32], wall[32];
            snprintf(seed, sizeof seed, "%llu", (unsigned long long)e->seed);
            snprintf(wall, sizeof wall, "%lld", (long long)e->wall_ms);
            sim_buf_puts(&sql, j ? ", (" : "(");
            const char *at = e->station[0] ? e->station : station;
            const char *v[8] = {origin,       e->id,
                                hash,         e->code[0] ? e->code : NULL,
                                e->condition, e->assigned_by,
                                "server",     at};
            for (int i = 0; i < 8; i++) {
                sync_literal(c, &sql, v[i]);
                sim_buf_puts(&sql, ", ");
            }
            sim_buf_printf(&sql, "%d, %d, %s, 'active', 0, %s, %s, ",
                           e->pilot != 0, e->simulated != 0, seed, wall, wall);
            sync_literal(c, &sql, at);
            sim_buf_puts(&sql, ")");
        }
        sim_buf_puts(&sql, " ON CONFLICT (id) DO NOTHING; COMMIT");
        rc = sql.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                     : sync_query(c, "insert participant", sql.data, -1, NULL,
                                  deadline, NULL, err);
        sim_buf_free(&sql);
    }
    if (rc != SIM_OK) {
        sync_rollback(c);
    }
    sim_free(counts);
    return rc;
}

int sync_assign_batch(SyncConn *c, const SyncLocal *L, const Study *study,
                      SyncAssignJob *const *jobs, size_t n, int64_t deadline,
                      SimError *err)
{
    int rc = sync_ensure_by(c, deadline, err);
    if (rc == SIM_OK) {
        rc = sync_claim_origin(c, L->origin, L->station, deadline, err);
    }
    if (rc == SIM_OK) {
        rc = close_ghosts(c, L, L->origin, deadline, err);
    }
    if (rc == SIM_OK) {
        rc = study_row(c, L, L->origin, deadline, err);
    }
    for (int attempt = 0; rc == SIM_OK; attempt++) {
        rc = assign_once(c, study, jobs, n, L->origin, L->station, L->hash,
                         deadline, err);
        int retry = strcmp(c->sqlstate, "40P01") == 0 ||
                    strcmp(c->sqlstate, "40001") == 0;
        if (rc == SIM_OK || !retry || attempt >= 4 ||
            (c->has_clock && sync_now_ms(c) >= deadline)) {
            break;
        }
        rc = SIM_OK;
    }
    return rc;
}

void sync_assign_job_init(SyncAssignJob *job, const char *code, int pilot,
                          int simulated, int64_t wall_ms)
{
    memset(job, 0, sizeof *job);
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, job->id);
    snprintf(job->code, sizeof job->code, "%s", code ? code : "");
    job->pilot = pilot;
    job->simulated = simulated;
    /* the seed goes to the server with the row: fixed here as
    ** store_enroll would (63 bits, not 0) */
    job->seed = store_random_seed() & 0x7fffffffffffffffULL;
    if (!job->seed) {
        job->seed = 1;
    }
    job->assign_seed = store_random_seed();
    job->wall_ms = wall_ms;
    job->rc = SIM_ERR_STATE;
}

int sync_enroll_assigned(Store *store, const SyncAssignJob *job,
                         const EnrollSpec *spec, ParticipantInfo *info,
                         SimError *err)
{
    EnrollSpec e = *spec;
    e.id = job->id;
    e.seed = job->seed;
    e.assign_seed = job->assign_seed;
    int fallback = 0;
    if (job->rc == SIM_OK) {
        e.condition = job->condition;
        e.assigned_by = job->assigned_by;
        e.assign_source = "server";
    } else if (job->rc != SIM_ERR_STATE && job->rc != SIM_ERR_NOMEM) {
        e.assign_source = "station_fallback";
        fallback = 1;
    } else {
        return sim_fail(err, job->rc, "%s", job->error);
    }
    int rc = store_enroll(store, &e, info, err);
    if (rc == SIM_OK && fallback) {
        /* the message names the server by its redacted URL */
        char detail[700];
        size_t k = (size_t)snprintf(detail, sizeof detail, "{\"error\":\"");
        for (const char *m = job->error; *m && k + 8 < sizeof detail; m++) {
            if (*m == '"' || *m == '\\') {
                detail[k++] = '\\';
            }
            detail[k++] = (unsigned char)*m < 0x20 ? ' ' : *m;
        }
        snprintf(detail + k, sizeof detail - k, "\"}");
        rc = store_log_event(store, job->id, "assign_fallback", detail,
                             e.wall_ms, 0, err);
    }
    return rc;
}

int sync_assign_preview(SyncConn *c, const Study *study, int pilot,
                        int simulated, int64_t wall_ms, uint64_t rng_seed,
                        char *out, size_t out_size, SimError *err)
{
    (void)wall_ms; /* in progress participants are counted by the server's
                      clock */
    AssignCount *counts = sim_calloc(study->n_conditions + 1, sizeof *counts);
    if (!counts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int64_t deadline = sync_now_ms(c) + SYNC_ASSIGN_DEADLINE_MS;
    int rc = sync_ensure_by(c, deadline, err);
    PGresult *res = NULL;
    if (rc == SIM_OK) {
        SimBuf sql;
        sim_buf_init(&sql);
        counts_sql(c, &sql, study, pilot, simulated);
        rc = sql.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                     : sync_query(c, "preview", sql.data, -1, NULL, deadline,
                                  &res, err);
        sim_buf_free(&sql);
    }
    if (rc == SIM_OK) {
        read_counts(study, res, counts);
        AssignChoice choice;
        assign_choose(study, counts, NULL, rng_seed, &choice);
        if (choice.why == ASSIGN_WHY_NONE ||
            (size_t)snprintf(out, out_size, "%s", choice.id) >= out_size) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: no condition could be assigned", c->redacted);
        }
    }
    PQclear(res);
    sim_free(counts);
    return rc;
}

void sync_local_of(Store *store, SyncLocal *L)
{
    memset(L, 0, sizeof *L);
    L->db = store_db(store);
    L->path = store_path(store);
    L->station = store_station(store);
    L->hash = store_study_hash(store);
    sync_local_text(L->db, "SELECT uuid FROM sync_origin", L->origin,
                    sizeof L->origin);
}

int sync_enroll(SyncConn *c, Store *store, const Study *study,
                const EnrollSpec *spec, ParticipantInfo *info, SimError *err)
{
    if (!c || spec->condition) {
        return store_enroll(store, spec, info, err);
    }
    SyncAssignJob job;
    sync_assign_job_init(&job, spec->code, spec->pilot, spec->simulated,
                         spec->wall_ms);
    if (spec->seed) {
        job.seed = spec->seed & 0x7fffffffffffffffULL;
        job.seed = job.seed ? job.seed : 1;
    }
    if (spec->assign_seed) {
        job.assign_seed = spec->assign_seed;
    }
    if (spec->station) {
        snprintf(job.station, sizeof job.station, "%s", spec->station);
    }
    SyncLocal L;
    sync_local_of(store, &L);
    SimError serr;
    sim_error_clear(&serr);
    SyncAssignJob *one = &job;
    job.rc = sync_assign_batch(c, &L, study, &one, 1,
                               sync_now_ms(c) + SYNC_ASSIGN_DEADLINE_MS, &serr);
    snprintf(job.error, sizeof job.error, "%s", serr.msg);
    return sync_enroll_assigned(store, &job, spec, info, err);
}
