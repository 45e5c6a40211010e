/*
** Weighted ridge regression (Cholesky on centred normal equations), LIME's
** local fit and a greedy anchor search. libc, libm and SimRng only.
*/
#include "stimuli/gen/surrogate.h"

#include <math.h>
#include <string.h>

#include "common/sim_alloc.h"

int surrogate_ridge(const double *X, const double *y, const double *w, int n,
                    int d, double alpha, double *beta, double *intercept,
                    double *r2, SimError *err)
{
    double xbar[SURR_MAX_FEATURES] = {0};
    double A[SURR_MAX_FEATURES * SURR_MAX_FEATURES];
    double b[SURR_MAX_FEATURES] = {0};
    double sw = 0, ybar = 0;
    if (d > SURR_MAX_FEATURES || d < 0) {
        return sim_fail(err, SIM_ERR_USAGE, "ridge: %d features", d);
    }
    for (int i = 0; i < n; i++) {
        sw += w[i];
        ybar += w[i] * y[i];
        for (int j = 0; j < d; j++) {
            xbar[j] += w[i] * X[i * d + j];
        }
    }
    if (sw <= 0) {
        return sim_fail(err, SIM_ERR_INVALID, "ridge: zero total weight");
    }
    ybar /= sw;
    for (int j = 0; j < d; j++) {
        xbar[j] /= sw;
    }
    memset(A, 0, sizeof A);
    for (int i = 0; i < n; i++) {
        double yc = y[i] - ybar;
        for (int j = 0; j < d; j++) {
            double xj = X[i * d + j] - xbar[j];
            b[j] += w[i] * xj * yc;
            for (int k = 0; k <= j; k++) {
                A[j * d + k] += w[i] * xj * (X[i * d + k] - xbar[k]);
            }
        }
    }
    for (int j = 0; j < d; j++) {
        A[j * d + j] += alpha;
    }
    /* Cholesky A = L L^T in the lower triangle */
    for (int j = 0; j < d; j++) {
        double s = A[j * d + j];
        for (int k = 0; k < j; k++) {
            s -= A[j * d + k] * A[j * d + k];
        }
        if (s <= 1e-12) {
            return sim_fail(err, SIM_ERR_INVALID, "ridge: singular system");
        }
        A[j * d + j] = sqrt(s);
        for (int i = j + 1; i < d; i++) {
            double t = A[i * d + j];
            for (int k = 0; k < j; k++) {
                t -= A[i * d + k] * A[j * d + k];
            }
            A[i * d + j] = t / A[j * d + j];
        }
    }
    /* forward then backward substitution; lower triangle was filled for
    ** k <= j before factorising, which is all Cholesky reads */
    double z[SURR_MAX_FEATURES];
    for (int j = 0; j < d; j++) {
        double t = b[j];
        for (int k = 0; k < j; k++) {
            t -= A[j * d + k] * z[k];
        }
        z[j] = t / A[j * d + j];
    }
    for (int j = d - 1; j >= 0; j--) {
        double t = z[j];
        for (int k = j + 1; k < d; k++) {
            t -= A[k * d + j] * beta[k];
        }
        beta[j] = t / A[j * d + j];
    }
    double b0 = ybar;
    for (int j = 0; j < d; j++) {
        b0 -= xbar[j] * beta[j];
    }
    *intercept = b0;
    if (r2) {
        double ss_res = 0, ss_tot = 0;
        for (int i = 0; i < n; i++) {
            double pred = b0;
            for (int j = 0; j < d; j++) {
                pred += X[i * d + j] * beta[j];
            }
            ss_res += w[i] * (y[i] - pred) * (y[i] - pred);
            ss_tot += w[i] * (y[i] - ybar) * (y[i] - ybar);
        }
        *r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
    }
    return SIM_OK;
}

int surrogate_lime(const double *Z, const double *y, const double *w, int n,
                   int d, int k, SurrogateFit *out, SimError *err)
{
    double beta[SURR_MAX_FEATURES], b0;
    memset(out, 0, sizeof *out);
    out->model = y[0];
    int rc = surrogate_ridge(Z, y, w, n, d, 1.0, beta, &b0, &out->r2_full, err);
    if (rc != SIM_OK) {
        return rc;
    }
    /* highest |weight| first; ties keep the lower index */
    int order[SURR_MAX_FEATURES];
    for (int j = 0; j < d; j++) {
        order[j] = j;
    }
    for (int a = 1; a < d; a++) {
        int v = order[a], b = a - 1;
        while (b >= 0 && fabs(beta[order[b]]) < fabs(beta[v])) {
            order[b + 1] = order[b];
            b--;
        }
        order[b + 1] = v;
    }
    if (k > d) {
        k = d;
    }
    double *Xk = sim_malloc(sizeof(double) * (size_t)n * (size_t)(k ? k : 1));
    if (!Xk) {
        return sim_fail(err, SIM_ERR_NOMEM, "lime: out of memory");
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < k; j++) {
            Xk[i * k + j] = Z[i * d + order[j]];
        }
    }
    double bk[SURR_MAX_FEATURES];
    rc = surrogate_ridge(Xk, y, w, n, k, 1.0, bk, &out->intercept, &out->r2,
                         err);
    sim_free(Xk);
    if (rc != SIM_OK) {
        return rc;
    }
    out->n_selected = k;
    out->output = out->intercept;
    for (int j = 0; j < k; j++) {
        out->idx[j] = order[j];
        out->weight[j] = bk[j];
        out->output += bk[j];
    }
    return SIM_OK;
}

void surrogate_anchor(void *ctx, SurrogatePrecisionFn precision, int d,
                      double threshold, int max_len, int n_samples,
                      uint64_t seed, AnchorResult *out)
{
    int used[SURR_MAX_FEATURES] = {0};
    SimRng rng;
    memset(out, 0, sizeof *out);
    if (max_len > d) {
        max_len = d;
    }
    double best_p = 0;
    for (int step = 0; step < max_len; step++) {
        int best = -1;
        best_p = -1;
        for (int f = 0; f < d; f++) {
            if (used[f]) {
                continue;
            }
            out->idx[out->n] = f;
            sim_rng_seed_stream(&rng, seed, (uint64_t)(step * d + f));
            double p = precision(ctx, out->idx, out->n + 1, n_samples, &rng);
            if (p > best_p) {
                best_p = p;
                best = f;
            }
        }
        if (best < 0) {
            break;
        }
        used[best] = 1;
        out->idx[out->n++] = best;
        if (best_p >= threshold) {
            break;
        }
    }
    sim_rng_seed_stream(&rng, seed, 0xA11C0DEULL);
    out->precision = precision(ctx, out->idx, out->n, 4 * n_samples, &rng);
}

void surrogate_stats_add(SurrogateStats *s, const SurrogateFit *fit,
                         int predicts_class0, const AnchorResult *anchor,
                         double coverage)
{
    int n = s->n_explained;
    s->lime_r2_mean = (s->lime_r2_mean * n + fit->r2) / (n + 1);
    s->lime_full_r2_mean = (s->lime_full_r2_mean * n + fit->r2_full) / (n + 1);
    s->lime_abs_gap_mean =
        (s->lime_abs_gap_mean * n + fabs(fit->output - fit->model)) / (n + 1);
    s->lime_side_agree =
        (s->lime_side_agree * n + ((fit->output >= 0.5) == predicts_class0)) /
        (n + 1);
    s->lime_r2_min =
        n == 0 || fit->r2 < s->lime_r2_min ? fit->r2 : s->lime_r2_min;
    s->anchor_prec_mean =
        (s->anchor_prec_mean * n + anchor->precision) / (n + 1);
    s->anchor_prec_min = n == 0 || anchor->precision < s->anchor_prec_min
                             ? anchor->precision
                             : s->anchor_prec_min;
    s->anchor_len_mean = (s->anchor_len_mean * n + anchor->n) / (n + 1);
    s->anchor_cov_mean = (s->anchor_cov_mean * n + coverage) / (n + 1);
    s->n_explained = n + 1;
}

void surrogate_order_by_weight(const SurrogateFit *fit, int *order)
{
    int k = fit->n_selected;
    for (int j = 0; j < k; j++) {
        order[j] = j;
    }
    for (int a = 1; a < k; a++) {
        int v = order[a], b = a - 1;
        while (b >= 0 && fit->weight[order[b]] < fit->weight[v]) {
            order[b + 1] = order[b];
            b--;
        }
        order[b + 1] = v;
    }
}
