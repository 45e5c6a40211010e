/*
** Rank correlations of two samples with ties (rankcor.c): Kendall's tau_b
** and Spearman's rho (Pearson's r of the mid-ranks), as R's cor(method =
** "kendall" / "spearman") computes them. libc only.
*/
#ifndef SIMLAB_ANALYSIS_RANKCOR_H
#define SIMLAB_ANALYSIS_RANKCOR_H

/* Kendall's tau_b of x[0..n) and y[0..n): (concordant - discordant) /
** sqrt((n0 - n1)(n0 - n2)), ties in either sample counted in n1, n2. NaN
** when n < 2 or either sample is constant. */
double rankcor_kendall(const double *x, const double *y, int n);

/* Spearman's rho: Pearson's r of the mid-ranks. work holds 2 n doubles.
** NaN when n < 2 or either sample is constant. */
double rankcor_spearman(const double *x, const double *y, int n, double *work);

/* The mid-ranks (1..n, ties averaged) of x[0..n) into rank. */
void rankcor_ranks(const double *x, int n, double *rank);

#endif
