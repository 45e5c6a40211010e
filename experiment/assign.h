/*
** Assignment of a new participant to a condition (docs/engine.md): which
** participants fill a condition, the balanced rule, Hase & Bansal's rule
** and the experimenter's override, as pure functions of per-condition
** counts and a seed. No database and no clock: the store gathers the counts
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

#endif
