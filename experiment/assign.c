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

/* ------------------------------------------------ within-subject orders */

size_t assign_williams_rows(size_t n)
{
    if (n <= 1) {
        return n;
    }
    return n % 2 == 0 ? n : 2 * n;
}

void assign_williams_row(size_t n, size_t row, int *order)
{
    if (n == 0) {
        return;
    }
    size_t r = row % n;
    for (size_t j = 0; j < n; j++) {
        /* first row: 0, 1, n-1, 2, n-2, ... */
        size_t a = j % 2 == 1 ? (j + 1) / 2 : (n - j / 2) % n;
        size_t pos = row < n ? j : n - 1 - j; /* odd n: reversed rows */
        order[pos] = (int)((a + r) % n);
    }
}

void assign_random_order(size_t n, uint64_t seed, int *order)
{
    for (size_t k = 0; k < n; k++) {
        order[k] = (int)k;
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 3000u);
    sim_rng_shuffle(&rng, order, n, sizeof *order);
}

/* Moves condition c to the front, keeping the others in their order. */
static void move_first(int *order, size_t n, int c)
{
    size_t k = 0;
    while (k < n && order[k] != c) {
        k++;
    }
    for (; k > 0 && k < n; k--) {
        order[k] = order[k - 1];
    }
    order[0] = c;
}

int assign_choose_order(const Study *study, const AssignCount *row_counts,
                        const char *override, uint64_t seed, int *order,
                        int *row)
{
    size_t n = study->n_conditions;
    int first = -1;
    if (override) {
        first = study_condition_index(study, override);
        if (first < 0) {
            return -1;
        }
    }
    *row = -1;
    switch (study->assignment.order) {
    case WITHIN_LATIN_SQUARE: {
        size_t rows = assign_williams_rows(n);
        int best = -1, best_fill = 0;
        for (size_t r = 0; r < rows; r++) {
            assign_williams_row(n, r, order);
            int f = row_counts ? row_counts[r].done + row_counts[r].active : 0;
            if ((first < 0 || order[0] == first) &&
                (best < 0 || f < best_fill)) {
                best = (int)r;
                best_fill = f;
            }
        }
        if (best >= 0) {
            assign_williams_row(n, (size_t)best, order);
        }
        *row = best;
        break;
    }
    case WITHIN_RANDOM:
        assign_random_order(n, seed, order);
        if (first >= 0) {
            move_first(order, n, first);
        }
        break;
    case WITHIN_FIXED:
        for (size_t k = 0; k < n; k++) {
            size_t start = first >= 0 ? (size_t)first : 0;
            order[k] = (int)((start + k) % n);
        }
        break;
    }
    return 0;
}
