/*
** `simlab status` on a study with sequential looks (study.json "analysis":
** {"sequential": {"looks": [...]}}): which look is due, from the analysed
** participants per condition a store or server counts. Formatting only;
** the counting queries are the callers' (sync_status.c).
*/
#ifndef SIMLAB_EXPERIMENT_LOOKS_H
#define SIMLAB_EXPERIMENT_LOOKS_H

#include <stdio.h>

/* Participants of one condition: completed and not excluded, real ones
** and simulated ones (pilots never count). */
typedef struct LooksCount {
    const char *condition;
    long real, simulated;
} LooksCount;

/* Prints, for study_id with definition (its study.json text), the looks
** and which is due at the counts (n of them; within-subject studies count
** every participant in every condition); nothing when the study plans no
** sequential looks or the definition does not parse. */
void looks_print(FILE *out, const char *study_id, const char *definition,
                 const LooksCount *counts, int n);

#endif
