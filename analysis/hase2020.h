/*
** Hase & Bansal's (2020) bootstrap, for replicating their numbers only:
** users are drawn from the pooled data (not within condition) as whole
** blocks until at least N rows, truncated to N; then items the same way on
** the result; replicates whose random-effects fit is singular are dropped.
*/
#ifndef SIMLAB_ANALYSIS_HASE2020_H
#define SIMLAB_ANALYSIS_HASE2020_H

#include <stdint.h>

#include "analysis/boot.h"
#include "analysis/report.h"
#include "common/sim_error.h"

/* Runs o->replicates replicates for each of n_subsets cell sets and returns
** (in *out, freed with sim_free) the same layout as the crossed change
** bootstrap: out[b * (S*C + S) + s*C + c] = change, then S singular flags.
** Replicate b uses the random stream (o->seed, b). */
int hase2020_run(const BootDesign *d, const uint64_t *subset_cells,
                 int n_subsets, const AnalyzeOptions *o, double **out,
                 SimError *err);

#endif
