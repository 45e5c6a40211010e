/*
** The human effects that explanation metrics are compared with
** (metrics_human.c), and their crossed participant x item replicates:
** internal to metrics.c.
*/
#ifndef SIMLAB_ANALYSIS_METRICS_INT_H
#define SIMLAB_ANALYSIS_METRICS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/compute.h"

/* How a replicate re-estimates a method's effect against the baseline:
** on the primary test's scale, or as Utility over the sessions. */
enum { EFFECT_LOGIT, EFFECT_DIFF, EFFECT_RATIO, EFFECT_UTILITY };

/* The rows of the human effect, compacted. */
typedef struct MhData {
    int n;                   /* rows */
    int *part, *cond, *item; /* compact indices; cond: the Screen's */
    uint8_t *y;              /* correct */
    int *late;               /* 1: post (or test), 0: pre; Utility: session */
    int K;                   /* cells per condition: 2, or the sessions */
    int rule;                /* Utility: UTILITY_* */
    int prepost;             /* the rows have Pre and Post */
    int n_part, n_item, C, base;
    int *stratum;       /* per compact participant */
    int n_strata;       /* strata: conditions (between) or one */
    int **members;      /* per stratum, its participants */
    int *n_members;     /* per stratum */
    const char **items; /* item names, by compact index (borrowed) */
    int kind;           /* EFFECT_* */
} MhData;

void mh_free(MhData *d);

/* Builds d from the kept rows of ds for human effect kind (EFFECT_*);
** -1 when out of memory (release d with mh_free either way). */
int mh_build(const Dataset *ds, const Screen *sc, const Report *r, int kind,
             MhData *d);

/* Draws the multiplicities of replicate b: participants within their
** strata (u), items among all items (v). */
void mh_draw(const MhData *d, uint64_t seed, int b, double *u, double *v);

/* The doubles mh_effects() needs in sum. */
size_t mh_sum_size(const MhData *d);

/* The effect of every condition against the baseline under weights u, v
** (NULL: all 1) into eff[C] (NaN for the baseline and where undefined);
** sum holds mh_sum_size() doubles. */
void mh_effects(const MhData *d, const double *u, const double *v, double *sum,
                double *eff);

#endif
