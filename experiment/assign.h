/*
** Assignment of a new participant to a condition (docs/engine.md): which
** participants fill a condition, the balanced rule, Hase & Bansal's rule
** and the experimenter's override, and the condition orders of
** within-subject studies (Williams latin squares, random, fixed), as pure
** functions of per-condition (per-row) counts and a seed. No database and no
*clock: the store gathers the counts
** with SQL, calls assign_choose() and records the choice.
*/
#ifndef SIMLAB_EXPERIMENT_ASSIGN_H
#define SIMLAB_EXPERIMENT_ASSIGN_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/store.h"
#include "stimuli/study.h"

/* How full one condition is: its fill is done + active. */
typedef struct AssignCount {
    int done;   /* completed and not excluded */
    int active; /* still in progress and active recently (see below) */
} AssignCount;

/* Start of the activity window at wall_ms (Unix ms): participants in
** progress whose last activity is at or after it count as filling their
** condition; a->active_minutes before wall_ms. */
int64_t assign_active_since(const Assignment *a, int64_t wall_ms);

/* Participants of one condition with one status (and pilot/simulated
** flags), as the store counts them. */
typedef struct AssignGroup {
    ParticipantStatus status;
    int n_included; /* not excluded by screening */
    int n_recent;   /* last active at or after assign_active_since() */
} AssignGroup;

/* Adds a group of participants to the count c of their condition.
** Completed participants count unless excluded; active ones count while
** recent (an excluded participant still in progress holds the place until
** the run ends); aborted, declined and screened-out participants never
** count, so people who drop out stop shifting the design. */
void assign_count_add(AssignCount *c, const AssignGroup *g);

/* Why a condition was chosen, or why none could be. */
typedef enum AssignWhy {
    ASSIGN_WHY_LEAST_FILLED = 0, /* the only condition with the least fill */
    ASSIGN_WHY_TIE_BROKEN,       /* drawn among n_tied least-filled ones */
    ASSIGN_WHY_HASE_THEN,        /* every condition has min_complete: then */
    ASSIGN_WHY_OVERRIDE,         /* named by the experimenter */
    ASSIGN_WHY_NONE,             /* no condition, or Hase without then */
    ASSIGN_WHY_UNKNOWN_OVERRIDE  /* the override names no condition */
} AssignWhy;

typedef struct AssignChoice {
    const char *id;          /* chosen condition id (borrowed from the
                                study), NULL with NONE/UNKNOWN_OVERRIDE */
    int condition;           /* its index in study->conditions, -1 if none
                                (also for a then that is no condition) */
    const char *assigned_by; /* "balanced", "hase" or "override" (the
                                participant.assigned_by column) */
    AssignWhy why;
    int fill;   /* done + active of the chosen condition (least-filled) */
    int n_tied; /* conditions sharing that least fill */
    int n_full; /* Hase: conditions that reached min_complete */
} AssignChoice;

/* Chooses the condition of a new participant under study->assignment.
** override: the condition id named by the experimenter, or NULL to assign;
** then counts is not read and may be NULL. counts: study->n_conditions
** entries in the order of study->conditions. rng_seed: randomness for the
** tie-break; the same counts and seed always give the same choice.
**
** ASSIGN_BALANCED takes the condition with the least fill, ties broken at
** random (reservoir sampling in condition order); ASSIGN_HASE does the same
** among the conditions whose fill is below min_complete and, once none is,
** sends everyone to then_condition. Fills *out; out->why says what
** happened (NONE and UNKNOWN_OVERRIDE choose nothing). */
void assign_choose(const Study *study, const AssignCount *counts,
                   const char *override, uint64_t rng_seed, AssignChoice *out);

/* ------------------------------------------------ within-subject orders */

/* Rows of the Williams design for n conditions: n when n is even, 2n when
** n is odd (the n rows and their reverses), 1 when n is 1, 0 when n is 0.
** In every design each condition is once at each position of the rows;
** for even n each ordered pair of conditions is adjacent in exactly one
** row, for odd n in exactly two. */
size_t assign_williams_rows(size_t n);

/* Writes row (0 <= row < assign_williams_rows(n)) of the Williams design
** for n conditions to order[0..n-1]: the condition index at each position.
** Row r of even n is the first row 0, 1, n-1, 2, n-2, ... plus r modulo n;
** for odd n rows n..2n-1 are rows 0..n-1 reversed. */
void assign_williams_row(size_t n, size_t row, int *order);

/* A random order of n conditions from seed (the same seed, the same
** order), written to order[0..n-1]. */
void assign_random_order(size_t n, uint64_t seed, int *order);

/* The order of a new within-subject participant (study->assignment.mode is
** ASSIGN_MODE_WITHIN), written to order[0..n_conditions-1] with its
** Williams row in *row (-1 unless the order is a latin square).
** row_counts: the fill of each row (assign_williams_rows entries, counted
** with assign_count_add() like conditions), read for WITHIN_LATIN_SQUARE
** only: the least-filled row is taken, ties going to the lowest row, so
** rows are handed out in enrollment order and a row freed by a participant
** who dropped out is taken again first. seed: WITHIN_RANDOM's order (the
** store passes the enrollment's assign_seed, else the participant's seed).
** override: NULL, or the condition to start with: the least-filled row
** that starts with it, the random order with it moved to the front, or
** the fixed order rotated to start with it.
** Returns 0, or -1 when override names no condition (nothing written). */
int assign_choose_order(const Study *study, const AssignCount *row_counts,
                        const char *override, uint64_t seed, int *order,
                        int *row);

#endif
