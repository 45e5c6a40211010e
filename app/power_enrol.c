/*
** `simlab power`'s screening measurement (power_cmd.h): simulated
** participants run through the real session state machine
** (experiment/session.h, driven by simulate_participant()) into a
** temporary store, with the study's practice, quiz, catch trials,
** deadlines and screening rules and the simulation block's accuracies;
** per condition, how many end up analysed (completed, not excluded) and
** how many answers came after a deadline.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "app/power_cmd.h"

#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "experiment/simulate.h"
#include "experiment/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WALL_START_MS 1700000000000LL /* simulated: no clock is read */

/* Removes the temporary store and its folder. */
static void remove_store(const char *dir, const char *db)
{
    static const char *const tails[] = {"", "-wal", "-shm", "-journal"};
    for (int k = 0; k < 4; k++) {
        char path[700];
        snprintf(path, sizeof path, "%s%s", db, tails[k]);
        unlink(path);
    }
    rmdir(dir);
}

/* Fills e from its counts. */
static void finish_entry(PowerScreening *e)
{
    int excluded = e->enrolled - e->analysed;
    e->exclusion_rate = e->enrolled > 0 ? (double)excluded / e->enrolled : NAN;
    power_wilson(excluded, e->enrolled, &e->rate_low, &e->rate_high);
    e->timeout_rate = e->deadline_trials > 0
                          ? (double)e->timeouts / (double)e->deadline_trials
                          : NAN;
}

/* Enrols and runs n participants per condition (within-subject: n, each
** in every condition, in the orders the store assigns). */
static int run_participants(Store *store, const Study *st,
                            const SimulationSpec *spec, int within, int n,
                            uint64_t seed, SimulateCounts *counts,
                            SimError *err)
{
    SimClock clock = {1000000000LL, 1000000000LL, WALL_START_MS};
    int C = within ? 1 : (int)st->n_conditions, rc = SIM_OK;
    uint64_t index = 0;
    for (int i = 0; rc == SIM_OK && i < n; i++) {
        for (int c = 0; rc == SIM_OK && c < C; c++) {
            EnrollSpec e;
            memset(&e, 0, sizeof e);
            e.station = "power";
            e.simulated = 1;
            e.condition = within ? NULL : st->conditions[c].id;
            e.seed = sim_mix64(seed * UINT64_C(0x9e3779b97f4a7c15) + ++index);
            e.assign_seed = sim_mix64(e.seed ^ 0xa5a5a5a5ULL);
            e.wall_ms =
                clock.wall_ms + (clock.now_ns - clock.start_ns) / 1000000;
            ParticipantInfo info;
            rc = store_enroll(store, &e, &info, err);
            if (rc == SIM_OK) {
                rc = simulate_participant(store, st, POLICY_MIXED, spec, seed,
                                          info.id, &clock, counts, err);
            }
        }
    }
    return rc;
}

/* Per condition (or "all"), the enrolled and analysed participants of the
** store and the deadlines of counts. */
static int tally(Store *store, const Study *st, int within,
                 const SimulateCounts *counts, PowerScreening *out,
                 SimError *err)
{
    int C = within ? 1 : (int)st->n_conditions;
    for (int c = 0; c < C; c++) {
        snprintf(out[c].condition, sizeof out[c].condition, "%s",
                 within ? "all" : st->conditions[c].id);
        out[c].deadline_trials =
            within ? counts->deadline_trials : counts->cond_deadline[c];
        out[c].timeouts = within ? counts->timeouts : counts->cond_timeouts[c];
    }
    ParticipantInfo *list = NULL;
    size_t n = 0;
    int rc = store_list_participants(store, 0, &list, &n, err);
    for (size_t i = 0; rc == SIM_OK && i < n; i++) {
        const Condition *cond = study_find_condition(st, list[i].condition);
        int c = within ? 0 : cond ? (int)(cond - st->conditions) : -1;
        if (c < 0) {
            continue;
        }
        out[c].enrolled++;
        out[c].analysed +=
            list[i].status == PSTATUS_COMPLETED && !list[i].excluded;
    }
    sim_free(list);
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        finish_entry(&out[c]);
    }
    return rc;
}

int power_enrol_measure(const Study *st, const SimulationSpec *spec, int within,
                        int n, uint64_t seed, PowerScreening **out, int *n_out,
                        SimError *err)
{
    *out = NULL;
    *n_out = 0;
    int C = within ? 1 : (int)st->n_conditions;
    const char *tmp = getenv("TMPDIR");
    char dir[512], db[600];
    snprintf(dir, sizeof dir, "%s/simlab-power-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        return sim_fail(err, SIM_ERR_IO,
                        "%s: cannot create a temporary folder for the "
                        "screening simulation",
                        dir);
    }
    snprintf(db, sizeof db, "%s/screening.db", dir);
    SimulateCounts counts;
    memset(&counts, 0, sizeof counts);
    counts.cond_deadline = sim_calloc(st->n_conditions + 1, sizeof(long));
    counts.cond_timeouts = sim_calloc(st->n_conditions + 1, sizeof(long));
    PowerScreening *e = sim_calloc((size_t)C + 1, sizeof *e);
    Store *store = NULL;
    int rc = counts.cond_deadline && counts.cond_timeouts && e
                 ? SIM_OK
                 : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    if (rc == SIM_OK) {
        StoreOpenSpec os;
        memset(&os, 0, sizeof os);
        os.path = db;
        os.study = st;
        os.station = "power";
        os.durability = DURABILITY_FAST;
        os.wall_ms = WALL_START_MS;
        rc = store_open_spec(&os, &store, err);
    }
    if (rc == SIM_OK) {
        rc = run_participants(store, st, spec, within, n, seed, &counts, err);
    }
    if (rc == SIM_OK) {
        rc = tally(store, st, within, &counts, e, err);
    }
    store_close(store);
    remove_store(dir, db);
    sim_free(counts.cond_deadline);
    sim_free(counts.cond_timeouts);
    if (rc != SIM_OK) {
        sim_free(e);
        return rc;
    }
    *out = e;
    *n_out = C;
    return SIM_OK;
}
