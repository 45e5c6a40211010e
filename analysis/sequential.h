/*
** Group-sequential looks, two-sided: Lan-DeMets alpha spending
** (O'Brien-Fleming or Pocock type) at information fractions N_k / N_K and
** the critical values of the z statistics at each look, by recursive
** numerical integration of the canonical joint distribution (Jennison &
** Turnbull 2000, ch. 19), as R's rpact computes them. libc, libm and GSL.
*/
#ifndef SIMLAB_ANALYSIS_SEQUENTIAL_H
#define SIMLAB_ANALYSIS_SEQUENTIAL_H

#include "common/sim_analysis.h"
#include "common/sim_error.h"

typedef struct SeqDesign {
    int k;                         /* looks */
    int looks[SIM_MAX_LOOKS];      /* analysed participants per condition */
    double t[SIM_MAX_LOOKS];       /* information fractions looks / last */
    double alpha;                  /* two-sided level */
    SimSpending spending;          /* the spending function */
    double crit[SIM_MAX_LOOKS];    /* two-sided critical |z| of each look */
    double spent[SIM_MAX_LOOKS];   /* cumulative alpha spent by each look */
    double nominal[SIM_MAX_LOOKS]; /* the nominal two-sided p of crit:
                                   ** 2 (1 - Phi(crit)) */
} SeqDesign;

/* The cumulative two-sided alpha spent by information fraction t (0..1):
** O'Brien-Fleming type 4 (1 - Phi(z_{1-alpha/4} / sqrt t)), Pocock type
** alpha ln(1 + (e - 1) t). */
double seq_spent(SimSpending s, double alpha, double t);

/* The boundaries of looks[0..k) (increasing, k from 1 to SIM_MAX_LOOKS) at
** two-sided level alpha (0 < alpha < 1) into d: each crit[j] solves P(|Z_1|
** < c_1, ..., |Z_{j-1}| < c_{j-1}, |Z_j| >= c_j) = spent[j] - spent[j-1]
** under H0 with Corr(Z_i, Z_j) = sqrt(t_i / t_j). SIM_ERR_INVALID for bad
** looks or alpha; d is then zeroed. */
int seq_design(const int *looks, int k, double alpha, SimSpending s,
               SeqDesign *d, SimError *err);

/* The probability under drift theta (the z statistic at full information
** has mean theta) of crossing a boundary at look j or before, with the
** boundaries of d: cross[j] (OUT, cumulative, j < d->k). For checks and
** expected sample sizes. Returns 0, or -1 when out of memory. */
int seq_crossing(const SeqDesign *d, double theta, double *cross);

#endif
