/*
** The statistics of simlab-analyze's tests as functions of plain arrays,
** defined beside the tables that report them (change.c, utility.c,
** within.c) and shared with simlab power (power.c), so that a simulated
** study is tested with the very code of the report. No datasets, no
** tables; libc, libm and analysis/stats.h.
*/
#ifndef SIMLAB_ANALYSIS_TESTSTAT_H
#define SIMLAB_ANALYSIS_TESTSTAT_H

#include "analysis/boot.h"
#include "analysis/stats.h"

/* Change = Post - Pre (RE) per condition (change.c): s_pre[c], s_post[c]
** are the (weighted) correct answers of the pairs answered in both phases
** and n[c] their number, for n_conds conditions. Fits the random-effects
** Pre (stats_re_fit) with work (4 n_conds doubles), writes the conditional
** modes to pre[c] (OUT), the fit to *fit (OUT) and Change to change[c]
** (OUT; NaN when n[c] is 0). Returns 1 when the fit is singular or not
** estimable (then every Pre is the pooled Pre), else 0. */
int change_from_sums(const double *s_pre, const double *s_post, const double *n,
                     int n_conds, double *work, double *pre, ReFit *fit,
                     double *change);

/* Session accuracies of the Utility table (utility.c) from one replicate's
** sums: acc[c * n_sessions + t] = sum w y / sum w of condition c in
** session t (the default, trial-level accuracy), or with participant the
** mean of the participants' accuracies (--accuracy participant, the sums'
** pa / pu); NaN where nothing was answered. */
void utility_session_accuracy(const BootSums *sums, int n_conds, int n_sessions,
                              int participant, double *acc);

/* Utility-K and Utility per condition (utility.c) from the session
** accuracies acc[c * n_sessions + t]: uk[c * n_sessions + t] (OUT) =
** acc / the baseline's acc in session t, u[c] (OUT) = the Utility by rule
** (UTILITY_MEAN, UTILITY_TRAPEZOID or UTILITY_RATIO of
** analysis/report.h). */
void utility_from_accuracy(const double *acc, int n_conds, int n_sessions,
                           int base, int rule, double *uk, double *u);

/* The paired t tests of the within-subject report (within.c): each
** condition but base against base, on the participant accuracies
** acc[i * n_conds + c] (NaN: no trials; participants with both count), in
** condition order: res[j] (OUT, as R's t.test(cond, base, paired = TRUE)),
** the p-values p[j] (OUT) and Holm's adjustment over them p_holm[j] (OUT).
** a and b hold n_part doubles of scratch. Returns the number of tests. */
int within_paired_tests(const double *acc, int n_part, int n_conds, int base,
                        double *a, double *b, PairedT *res, double *p,
                        double *p_holm);

#endif
