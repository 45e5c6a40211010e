/*
** An in-process simulated study with the model of `simlab simulate --policy
** mixed`: logit P(correct) = logit(p[condition, phase]) + u_participant +
** v_item, u ~ N(0, sd_p^2), v ~ N(0, sd_i^2) shared by the study's
** participants. Used by the coverage study, its test and the benchmarks.
*/
#ifndef SIMLAB_BENCH_ANALYSIS_SIMSTUDY_H
#define SIMLAB_BENCH_ANALYSIS_SIMSTUDY_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/dataset.h"

#define SIMSTUDY_MAX_CONDS 16

typedef struct SimStudy {
    int n_conds; /* condition 0 is "baseline", then "c1", "c2", ... */
    int users_per_cond;
    int n_items; /* items answered in Pre and in Post */
    double p_pre[SIMSTUDY_MAX_CONDS], p_post[SIMSTUDY_MAX_CONDS];
    double sd_p, sd_i; /* participant and item effects (logit scale) */
} SimStudy;

/* Appends one simulated study to ds. Participant ids start with prefix. */
int simstudy_generate(Dataset *ds, const SimStudy *st, uint64_t seed,
                      const char *prefix, SimError *err);

/* Writes the same study as long-format CSV (for the reference script). */
int simstudy_write_csv(FILE *f, const SimStudy *st, uint64_t seed);

/* Population accuracy of a cell: the integral of expit(logit(p) + s z)
** phi(z) dz with s = sqrt(sd_p^2 + sd_i^2). */
double simstudy_truth(double p, double s);

#endif
