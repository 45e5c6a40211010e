/*
** Signal detection of the model's errors on verify trials (verify.c): the
** hit and false-alarm rates, d' and the criterion with the log-linear
** correction, and the AUROC of a rating by the Mann-Whitney identity.
** Internal to simlab_analysis; exposed for the tests.
*/
#ifndef SIMLAB_ANALYSIS_VERIFY_H
#define SIMLAB_ANALYSIS_VERIFY_H

/* d' = z(H) - z(F) and c = -(z(H) + z(F)) / 2 with the log-linear
** correction (Hautus 1995): H = (hits + 0.5) / (n_wrong + 1), F =
** (false_alarms + 0.5) / (n_right + 1), for every count (weighted counts
** allowed). NaN in both when a total is 0. */
void verify_sdt(double hits, double n_wrong, double false_alarms,
                double n_right, double *d_prime, double *criterion);

/* P(X > Y) + P(X = Y) / 2 for X drawn from the weights hi[0..n) and Y
** from lo[0..n) over the same n ordered levels (the Mann-Whitney U /
** (n_x n_y) with ties counted one half); NaN when either is empty. */
double verify_auroc(const double *hi, const double *lo, int n);

#endif
