/*
** Assignment rules as pure functions: counts in, condition out. No SQLite,
** no clock, no allocation; the randomness comes from the caller's seed.
*/
#include "experiment/assign.h"

#include "common/sim_rng.h"

#include <string.h>

int64_t assign_active_since(const Assignment *a, int64_t wall_ms)
{
    return wall_ms - (int64_t)a->active_minutes * 60000;
}

void assign_count_add(AssignCount *c, const AssignGroup *g)
{
    if (g->status == PSTATUS_COMPLETED) {
        c->done += g->n_included;
    } else if (g->status == PSTATUS_ACTIVE) {
        c->active += g->n_recent;
    }
}

static const char *rule_name(const Assignment *a)
{
    return a->rule == ASSIGN_HASE ? "hase" : "balanced";
}

/* The least-filled condition among those still open, ties broken by
** reservoir sampling in condition order (one draw per further tie, so the
** draws and the choice depend only on counts and seed). */
static void least_filled(const Study *study, const AssignCount *counts,
                         uint64_t rng_seed, AssignChoice *out)
{
    const Assignment *a = &study->assignment;
    int hase = a->rule == ASSIGN_HASE;
    int best = -1, best_fill = 0, ties = 0;
    SimRng rng;
    sim_rng_seed(&rng, rng_seed);
    for (size_t c = 0; c < study->n_conditions; c++) {
        int f = counts[c].done + counts[c].active;
        if (hase && f >= a->min_complete) {
            out->n_full++;
            continue;
        }
        if (best < 0 || f < best_fill) {
            best = (int)c;
            best_fill = f;
            ties = 1;
        } else if (f == best_fill) {
            ties++;
            if (sim_rng_below(&rng, (uint64_t)ties) == 0) {
                best = (int)c;
            }
        }
    }
    if (best >= 0) {
        out->condition = best;
        out->id = study->conditions[best].id;
        out->fill = best_fill;
        out->n_tied = ties;
        out->why = ties > 1 ? ASSIGN_WHY_TIE_BROKEN : ASSIGN_WHY_LEAST_FILLED;
    } else if (hase && a->then_condition) {
        out->condition = study_condition_index(study, a->then_condition);
        out->id = a->then_condition;
        out->why = ASSIGN_WHY_HASE_THEN;
    }
}

void assign_choose(const Study *study, const AssignCount *counts,
                   const char *override, uint64_t rng_seed, AssignChoice *out)
{
    memset(out, 0, sizeof *out);
    out->condition = -1;
    out->why = ASSIGN_WHY_NONE;
    if (override) {
        out->assigned_by = "override";
        int c = study_condition_index(study, override);
        if (c < 0) {
            out->why = ASSIGN_WHY_UNKNOWN_OVERRIDE;
            return;
        }
        out->condition = c;
        out->id = study->conditions[c].id;
        out->why = ASSIGN_WHY_OVERRIDE;
        return;
    }
    out->assigned_by = rule_name(&study->assignment);
    if (study->n_conditions > 0) {
        least_filled(study, counts, rng_seed, out);
    }
}
