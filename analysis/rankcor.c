/*
** Kendall's tau_b and Spearman's rho with ties (rankcor.h): O(n^2) pair
** counts and mid-ranks, for the handful of methods a study compares.
*/
#include "analysis/rankcor.h"

#include <math.h>

double rankcor_kendall(const double *x, const double *y, int n)
{
    double s = 0, tx = 0, ty = 0, pairs = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double dx = x[i] - x[j], dy = y[i] - y[j];
            int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
            s += sx * sy;
            tx += sx == 0;
            ty += sy == 0;
            pairs += 1;
        }
    }
    double d = sqrt((pairs - tx) * (pairs - ty));
    return n < 2 || d <= 0 ? (double)NAN : s / d;
}

void rankcor_ranks(const double *x, int n, double *rank)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            below += x[j] < x[i];
            equal += x[j] == x[i];
        }
        rank[i] = below + (equal + 1) / 2.0;
    }
}

double rankcor_spearman(const double *x, const double *y, int n, double *work)
{
    if (n < 2) {
        return NAN;
    }
    double *rx = work, *ry = work + n;
    rankcor_ranks(x, n, rx);
    rankcor_ranks(y, n, ry);
    double m = (n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (rx[i] - m) * (ry[i] - m);
        sxx += (rx[i] - m) * (rx[i] - m);
        syy += (ry[i] - m) * (ry[i] - m);
    }
    return sxx <= 0 || syy <= 0 ? (double)NAN : sxy / sqrt(sxx * syy);
}
