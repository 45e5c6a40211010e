/*
** Phases of a study: the values of the long-format "phase" column, shared by
** the loader (blocks), the runner, the store and simlab-analyze. This enum
** and its name table are the one list of phases. libc only.
*/
#ifndef SIMLAB_COMMON_SIM_PHASE_H
#define SIMLAB_COMMON_SIM_PHASE_H

#include <stddef.h>

typedef enum SimPhase {
    SIM_PHASE_NONE = -1,    /* pages, breaks: no responses to analyse */
    SIM_PHASE_PRACTICE = 0, /* practice questions (and their examples) */
    SIM_PHASE_LEARN = 1,    /* learning examples, ratings */
    SIM_PHASE_PRE = 2,      /* first test of a pre/post design */
    SIM_PHASE_POST = 3,     /* second test of a pre/post design */
    SIM_PHASE_TRAIN = 4,    /* training examples of a session */
    SIM_PHASE_TEST = 5,     /* test of a session, or a plain test */
    SIM_PHASE_QUIZ = 6      /* questions about the instructions */
} SimPhase;

#define SIM_PHASE_COUNT 7

/* The long-format name of phase ("pre", ...); NULL for SIM_PHASE_NONE or a
** value outside the enum. */
const char *sim_phase_name(SimPhase phase);

/* The phase named name, or SIM_PHASE_NONE when name (may be NULL) names
** none. */
SimPhase sim_phase_from_name(const char *name);

/* The phase name nearest to name (a "did you mean" for a misspelled phase),
** or NULL when none is near. */
const char *sim_phase_suggest(const char *name);

/* Writes the names of all phases, in order, as "a, b, ... or z" to out (at
** most size bytes, NUL-terminated; truncated when too small). Returns the
** length of the full list. */
size_t sim_phase_list(char *out, size_t size);

#endif
