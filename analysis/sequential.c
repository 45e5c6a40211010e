/*
** Two-sided group-sequential boundaries (sequential.h). The score process
** S_k = Z_k sqrt(t_k) has independent normal increments; the density of
** S_k on the continuation region |S_k| < c_k sqrt(t_k) is carried from
** look to look on a Simpson grid fine against the next increment's SD
** (Jennison & Turnbull 2000, sec. 19.2), and each c_k is found by
** bisection so that the probability of first crossing at look k is the
** alpha spent there.
*/
#include "analysis/sequential.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "common/sim_alloc.h"

#define GRID_PER_SD 16 /* Simpson intervals per SD of the finest kernel */
#define GRID_MAX    8001
#define CRIT_MAX    40.0 /* a look that spends (almost) nothing */
#define PI          3.14159265358979323846
#define E           2.71828182845904523536

double seq_spent(SimSpending s, double alpha, double t)
{
    if (t <= 0) {
        return 0;
    }
    if (t >= 1) {
        return alpha;
    }
    if (s == SIM_SPENDING_POCOCK) {
        return alpha * log(1 + (E - 1) * t);
    }
    double z = gsl_cdf_ugaussian_Qinv(alpha / 4);
    return 4 * gsl_cdf_ugaussian_Q(z / sqrt(t));
}

/* The density of S at one look on its grid: n points from -b to b. */
typedef struct Grid {
    int n;
    double b, h; /* half width, spacing */
    double *f;   /* density at the points, times the Simpson weight */
} Grid;

/* Simpson weight of point i of n (n odd). */
static double simpson(int i, int n, double h)
{
    if (i == 0 || i == n - 1) {
        return h / 3;
    }
    return (i % 2 ? 4 : 2) * h / 3;
}

/* P(exit at this look | the weighted density g at the previous one), the
** boundary at b, the increment's mean mu and SD sd. g NULL: S starts at
** 0. */
static double exit_prob(const Grid *g, double b, double mu, double sd)
{
    if (!g) {
        return gsl_cdf_ugaussian_P((-b - mu) / sd) +
               gsl_cdf_ugaussian_Q((b - mu) / sd);
    }
    double sum = 0;
    for (int i = 0; i < g->n; i++) {
        double u = -g->b + i * g->h;
        sum += g->f[i] * (gsl_cdf_ugaussian_P((-b - u - mu) / sd) +
                          gsl_cdf_ugaussian_Q((b - u - mu) / sd));
    }
    return sum;
}

/* The weighted density of S on |s| < b from the previous one (g, NULL: S
** starts at 0), grid spacing at most hmax. */
static int carry(const Grid *g, double b, double mu, double sd, double hmax,
                 Grid *out)
{
    int half = (int)ceil(b / hmax);
    if (2 * half + 1 > GRID_MAX) {
        half = (GRID_MAX - 1) / 2;
    }
    half = half < 2 ? 2 : half;
    out->n = 2 * half + 1;
    out->b = b;
    out->h = b / half;
    out->f = sim_malloc((size_t)out->n * sizeof(double));
    if (!out->f) {
        return -1;
    }
    double norm = 1 / (sd * sqrt(2 * PI));
    for (int i = 0; i < out->n; i++) {
        double s = -b + i * out->h, dens = 0;
        if (!g) {
            double z = (s - mu) / sd;
            dens = norm * exp(-0.5 * z * z);
        } else {
            for (int l = 0; l < g->n; l++) {
                double z = (s - (-g->b + l * g->h) - mu) / sd;
                dens += g->f[l] * norm * exp(-0.5 * z * z);
            }
        }
        out->f[i] = dens * simpson(i, out->n, out->h);
    }
    return 0;
}

/* The grid spacing for look j: fine against the SD of S_j (the first) and
** of the next increment. */
static double spacing(const double *t, int k, int j)
{
    double sd = j == 0 ? sqrt(t[0]) : sqrt(t[j] - t[j - 1]);
    if (j + 1 < k) {
        double next = sqrt(t[j + 1] - t[j]);
        sd = next < sd ? next : sd;
    }
    return sd / GRID_PER_SD;
}

/* Walks the looks with boundaries crit (fill: found from the spending
** targets), drift theta; cross[j] the cumulative crossing probability. */
static int walk(SeqDesign *d, double theta, int fill, double *cross)
{
    Grid prev = {0, 0, 0, NULL}, cur;
    double total = 0;
    int rc = 0;
    for (int j = 0; j < d->k; j++) {
        double dt = j == 0 ? d->t[0] : d->t[j] - d->t[j - 1];
        double sd = sqrt(dt), mu = theta * dt, rt = sqrt(d->t[j]);
        const Grid *g = j == 0 ? NULL : &prev;
        if (fill) {
            double target = d->spent[j] - (j ? d->spent[j - 1] : 0);
            double lo = 0, hi = CRIT_MAX;
            if (!(target > 0) || exit_prob(g, CRIT_MAX * rt, mu, sd) > target) {
                lo = hi;
            }
            for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
                double mid = 0.5 * (lo + hi);
                if (exit_prob(g, mid * rt, mu, sd) > target) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            d->crit[j] = 0.5 * (lo + hi);
        }
        total += exit_prob(g, d->crit[j] * rt, mu, sd);
        if (cross) {
            cross[j] = total;
        }
        if (j + 1 < d->k) {
            if (carry(g, d->crit[j] * rt, mu, sd, spacing(d->t, d->k, j),
                      &cur) != 0) {
                rc = -1;
                break;
            }
            sim_free(prev.f);
            prev = cur;
        }
    }
    sim_free(prev.f);
    return rc;
}

int seq_design(const int *looks, int k, double alpha, SimSpending s,
               SeqDesign *d, SimError *err)
{
    memset(d, 0, sizeof *d);
    if (k < 1 || k > SIM_MAX_LOOKS) {
        return sim_fail(err, SIM_ERR_INVALID, "%d looks (1 to %d)", k,
                        SIM_MAX_LOOKS);
    }
    if (!(alpha > 0 && alpha < 1)) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "alpha %g: must lie strictly between 0 and 1", alpha);
    }
    for (int j = 0; j < k; j++) {
        if (looks[j] < 1 || (j > 0 && looks[j] <= looks[j - 1])) {
            return sim_fail(err, SIM_ERR_INVALID,
                            "look %d (%d participants) does not increase on "
                            "the look before it",
                            j + 1, looks[j]);
        }
    }
    d->k = k;
    d->alpha = alpha;
    d->spending = s;
    for (int j = 0; j < k; j++) {
        d->looks[j] = looks[j];
        d->t[j] = (double)looks[j] / looks[k - 1];
        d->spent[j] = seq_spent(s, alpha, d->t[j]);
    }
    if (walk(d, 0, 1, NULL) != 0) {
        memset(d, 0, sizeof *d);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int j = 0; j < k; j++) {
        d->nominal[j] = 2 * gsl_cdf_ugaussian_Q(d->crit[j]);
    }
    return SIM_OK;
}

int seq_crossing(const SeqDesign *d, double theta, double *cross)
{
    SeqDesign x = *d;
    return walk(&x, theta, 0, cross);
}
