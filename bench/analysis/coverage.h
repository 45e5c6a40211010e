/*
** The coverage study: simulate many studies with a known Change, analyse
** each with simlab-analyze's library, and count how often the 95 % CI of
** Change covers the population truth.
*/
#ifndef SIMLAB_BENCH_ANALYSIS_COVERAGE_H
#define SIMLAB_BENCH_ANALYSIS_COVERAGE_H

#include "bench/analysis/simstudy.h"

typedef struct CoverageResult {
    int studies;       /* studies analysed */
    int intervals;     /* CIs checked (studies x conditions) */
    int covered;       /* of which contained the truth */
    double mean_width; /* mean CI width */
} CoverageResult;

/* Runs n_studies studies (study k uses seed + k) with B replicates each;
** items_fixed = 1 resamples users only. Returns 0, or -1 on failure. */
int coverage_run(const SimStudy *st, int n_studies, int B, int items_fixed,
                 uint64_t seed, int threads, CoverageResult *out);

/* The population Change of condition c under st. */
double coverage_truth(const SimStudy *st, int c);

#endif
