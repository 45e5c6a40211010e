/*
** A Dataset as a simlab store (see storewrite.h).
*/
#include "bench/analysis/storewrite.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/store.h"
#include "stimuli/study.h"

static int fail(sqlite3 *db, const char *what, SimError *err)
{
    return sim_fail(err, SIM_ERR_DB, "%s: %s", what,
                    db ? sqlite3_errmsg(db) : "cannot open");
}

/* The engine's schema and the bundle's study row, written by the engine. */
static int create_store(const char *bundle_dir, const char *path, SimError *err)
{
    Study *study = NULL;
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(bundle_dir, &study, &rep, err);
    study_report_free(&rep);
    if (rc != SIM_OK) {
        return rc;
    }
    unlink(path);
    Store *st = NULL;
    rc = store_open(path, study, DURABILITY_FAST, 0, 1700000000000LL, &st, err);
    store_close(st);
    study_free(study);
    return rc;
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
    if (t && t[0]) {
        sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(s, i);
    }
}

/* The study definition with "rating": {"points": points}. */
static int set_points(sqlite3 *db, int points, SimError *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "UPDATE study SET definition = json_set(definition, "
             "'$.rating', json_object('points', %d))",
             points);
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
               ? SIM_OK
               : fail(db, "set the rating scale", err);
}

/* The items with their domains (the first row's of each item). */
static int write_items(sqlite3 *db, const Dataset *ds, SimError *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_exec(db, "DELETE FROM item", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT OR IGNORE INTO item (study, key, pool, "
                           "source_id, domain, prediction) VALUES (1, ?, "
                           "'pool', ?, ?, '0')",
                           -1, &s, NULL) != SQLITE_OK) {
        return fail(db, "items", err);
    }
    int rc = SIM_OK;
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        const DatasetResponse *r = &ds->rows[i];
        const char *key = dataset_str(ds, (int)r->item);
        sqlite3_reset(s);
        bind_text(s, 1, key);
        bind_text(s, 2, key);
        bind_text(s, 3, dataset_str(ds, dataset_domain(ds, r)));
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = fail(db, "insert item", err);
        }
    }
    sqlite3_finalize(s);
    return rc;
}

static int write_people(sqlite3 *db, const Dataset *ds, SimError *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO participant (id, study, condition, "
                           "assigned_by, station, pilot, simulated, seed, "
                           "status, excluded, exclusion_reason, created_ms, "
                           "last_active_ms, active_station) VALUES (?, 1, ?, "
                           "'override', 'bench', ?, ?, 1, 'completed', ?, ?, "
                           "?, ?, 'bench')",
                           -1, &s, NULL) != SQLITE_OK) {
        return fail(db, "participants", err);
    }
    int rc = SIM_OK;
    for (int i = 0; rc == SIM_OK && i < ds->n_participants; i++) {
        const Participant *p = &ds->participants[i];
        sqlite3_reset(s);
        bind_text(s, 1, dataset_str(ds, p->name));
        sqlite3_bind_text(s, 2, dataset_str(ds, p->condition), -1,
                          SQLITE_STATIC);
        sqlite3_bind_int(s, 3, p->pilot);
        sqlite3_bind_int(s, 4, p->simulated);
        sqlite3_bind_int(s, 5, p->excluded);
        bind_text(s, 6, dataset_str(ds, p->reason));
        sqlite3_bind_int64(s, 7, 1700000000000LL + 1000LL * i);
        sqlite3_bind_int64(s, 8, 1700000000000LL + 1000LL * i);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = fail(db, "insert participant", err);
        }
    }
    sqlite3_finalize(s);
    return rc;
}

/* Steps and responses, participant after participant (rows of one
** participant in the order of ds). */
static int write_steps(sqlite3 *db, const Dataset *ds, SimError *err)
{
    sqlite3_stmt *t = NULL, *r = NULL;
    if (sqlite3_prepare_v2(
            db,
            "INSERT INTO trial (participant, seq, block_id, block_kind, "
            "phase, session, item, page, is_catch, is_example, expects, "
            "correct_choice, index_in_block, n_in_block, test_type, "
            "condition) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?, 1, ?, "
            "?)",
            -1, &t, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "INSERT INTO response (participant, seq, choice, correct, "
            "rating, attempts, done, onset_ns, response_ns, rt_ms, "
            "recorded_ms, station, timed_out, confidence) VALUES (?, ?, ?, "
            "?, ?, 1, 1, 1000, 2000, ?, ?, 'bench', ?, ?)",
            -1, &r, NULL) != SQLITE_OK) {
        sqlite3_finalize(t);
        return fail(db, "steps", err);
    }
    int rc = SIM_OK;
    /* the rows of each participant, in order */
    size_t *first = calloc((size_t)ds->n_participants + 1, sizeof *first);
    size_t *order = malloc((ds->n_rows + 1) * sizeof *order);
    if (!first || !order) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        first[ds->rows[i].participant + 1]++;
    }
    for (int p = 0; rc == SIM_OK && p < ds->n_participants; p++) {
        first[p + 1] += first[p];
    }
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        order[first[ds->rows[i].participant]++] = i;
    }
    size_t k = 0;
    for (int p = 0; rc == SIM_OK && p < ds->n_participants; p++) {
        const Participant *pp = &ds->participants[p];
        const char *pid = dataset_str(ds, pp->name);
        size_t end = first[p];
        int seq = 0;
        for (int pre = 0; rc == SIM_OK && pre < 2; pre++, seq++) {
            sqlite3_reset(t);
            sqlite3_reset(r);
            sqlite3_bind_text(t, 1, pid, -1, SQLITE_STATIC);
            sqlite3_bind_int(t, 2, seq);
            sqlite3_bind_text(t, 3, pre ? "instructions" : "consent", -1,
                              SQLITE_STATIC);
            sqlite3_bind_text(t, 4, pre ? "instructions" : "consent", -1,
                              SQLITE_STATIC);
            sqlite3_bind_null(t, 5);
            sqlite3_bind_int(t, 6, 0);
            sqlite3_bind_null(t, 7);
            sqlite3_bind_int(t, 8, 0);
            sqlite3_bind_text(t, 9, pre ? "continue" : "accept", -1,
                              SQLITE_STATIC);
            sqlite3_bind_int(t, 10, -1);
            sqlite3_bind_int(t, 11, 0);
            sqlite3_bind_null(t, 12);
            sqlite3_bind_null(t, 13);
            sqlite3_bind_text(r, 1, pid, -1, SQLITE_STATIC);
            sqlite3_bind_int(r, 2, seq);
            sqlite3_bind_null(r, 3);
            sqlite3_bind_null(r, 4);
            sqlite3_bind_null(r, 5);
            sqlite3_bind_double(r, 6, 1500.25);
            sqlite3_bind_int64(r, 7, 1700000000000LL + seq);
            sqlite3_bind_int(r, 8, 0);
            sqlite3_bind_null(r, 9);
            if (sqlite3_step(t) != SQLITE_DONE ||
                sqlite3_step(r) != SQLITE_DONE) {
                rc = fail(db, "insert step", err);
            }
        }
        for (; rc == SIM_OK && k < end; k++, seq++) {
            const DatasetResponse *x = &ds->rows[order[k]];
            const char *cond = dataset_str(ds, x->condition);
            sqlite3_reset(t);
            sqlite3_reset(r);
            sqlite3_bind_text(t, 1, pid, -1, SQLITE_STATIC);
            sqlite3_bind_int(t, 2, seq);
            sqlite3_bind_text(t, 3, dataset_phase_name(x->phase), -1,
                              SQLITE_STATIC);
            sqlite3_bind_text(t, 4, "question", -1, SQLITE_STATIC);
            sqlite3_bind_text(t, 5, dataset_phase_name(x->phase), -1,
                              SQLITE_STATIC);
            sqlite3_bind_int(t, 6, dataset_session(ds, x));
            bind_text(t, 7, dataset_str(ds, (int)x->item));
            sqlite3_bind_int(t, 8, x->is_catch);
            sqlite3_bind_text(t, 9, "choice", -1, SQLITE_STATIC);
            sqlite3_bind_int(t, 10, 0);
            sqlite3_bind_int(t, 11, seq);
            bind_text(t, 12, dataset_str(ds, dataset_test_type(ds, x)));
            if (x->condition != pp->condition) {
                sqlite3_bind_text(t, 13, cond, -1, SQLITE_STATIC);
            } else {
                sqlite3_bind_null(t, 13);
            }
            sqlite3_bind_text(r, 1, pid, -1, SQLITE_STATIC);
            sqlite3_bind_int(r, 2, seq);
            if (x->correct >= 0) {
                sqlite3_bind_int(r, 3, x->correct);
                sqlite3_bind_int(r, 4, x->correct);
            } else {
                sqlite3_bind_null(r, 3);
                sqlite3_bind_null(r, 4);
            }
            if (x->rating > 0) {
                sqlite3_bind_int(r, 5, (int)x->rating);
            } else {
                sqlite3_bind_null(r, 5);
            }
            double rt = dataset_rt_ms(ds, order[k]);
            if (isnan(rt)) {
                sqlite3_bind_null(r, 6);
            } else {
                sqlite3_bind_double(r, 6, rt);
            }
            sqlite3_bind_int64(r, 7, 1700000000000LL + seq);
            sqlite3_bind_int(r, 8, x->timed_out);
            if (x->confidence > 0) {
                sqlite3_bind_int(r, 9, (int)x->confidence);
            } else {
                sqlite3_bind_null(r, 9);
            }
            if (sqlite3_step(t) != SQLITE_DONE ||
                sqlite3_step(r) != SQLITE_DONE) {
                rc = fail(db, "insert step", err);
            }
        }
    }
    free(first);
    free(order);
    sqlite3_finalize(t);
    sqlite3_finalize(r);
    return rc;
}

int storewrite_dataset(const Dataset *ds, const char *bundle_dir,
                       const char *path, int points, SimError *err)
{
    int rc = create_store(bundle_dir, path, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL) !=
            SQLITE_OK) {
        rc = fail(db, path, err);
    }
    if (rc == SIM_OK && points > 0) {
        rc = set_points(db, points, err);
    }
    if (rc == SIM_OK) {
        rc = write_items(db, ds, err);
    }
    if (rc == SIM_OK) {
        rc = write_people(db, ds, err);
    }
    if (rc == SIM_OK) {
        rc = write_steps(db, ds, err);
    }
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = fail(db, path, err);
    }
    sqlite3_close(db);
    return rc;
}
