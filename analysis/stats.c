/*
** Numerical building blocks of simlab-analyze (see stats.h). Depends on libc,
** libm and GSL (quadrature, special functions, root finding) only.
*/
#include "analysis/stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>

#include "common/sim_alloc.h"

/* ------------------------------------------------------------------ */
/* Quantiles and bootstrap p-values                                    */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

double stats_quantile7(const double *sorted, size_t n, double p)
{
    if (n == 0) {
        return NAN;
    }
    double h = (double)(n - 1) * p;
    double l = floor(h);
    size_t li = (size_t)l;
    if (li + 1 >= n) {
        return sorted[n - 1];
    }
    return sorted[li] + (h - l) * (sorted[li + 1] - sorted[li]);
}

double stats_p_percentile(const double *x, size_t n, double null)
{
    if (n == 0) {
        return NAN;
    }
    size_t le = 0, ge = 0;
    for (size_t i = 0; i < n; i++) {
        le += (size_t)(x[i] <= null);
        ge += (size_t)(x[i] >= null);
    }
    double lo = (1.0 + (double)le) / ((double)n + 1.0);
    double hi = (1.0 + (double)ge) / ((double)n + 1.0);
    double p = 2.0 * (lo < hi ? lo : hi);
    return p > 1.0 ? 1.0 : p;
}

double stats_p_hase(const double *x, size_t n)
{
    if (n == 0) {
        return NAN;
    }
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        m += x[i];
    }
    m /= (double)n;
    double am = fabs(m);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        double c = x[i] - m;
        out += (size_t)(c < -am) + (size_t)(c > am);
    }
    return (double)out / (double)n;
}

double stats_expit(double x)
{
    if (x >= 0) {
        return 1.0 / (1.0 + exp(-x));
    }
    double e = exp(x);
    return e / (1.0 + e);
}

double stats_logit(double p)
{
    return log(p / (1.0 - p));
}

/* log(1 + e^x) without overflow. */
static double log1pexp(double x)
{
    if (x > 35) {
        return x;
    }
    if (x < -35) {
        return exp(x);
    }
    return log1p(exp(x));
}

/* ------------------------------------------------------------------ */
/* Random-intercept binomial model                                     */
/*
** Spherical parameterisation as in lme4: u_c = sigma * b_c. With psi =
** sigma^2 the conditional mode satisfies eta_c = beta + psi * r_c where
** r_c = s_c - n_c p(eta_c), and the Laplace log-likelihood per group is
**   F_c = s eta - n log(1 + e^eta) - psi r^2 / 2 - log(K) / 2,
**   K = 1 + psi n w,  w = p (1 - p)
** (constants dropped). Its gradient and Hessian in (beta, psi) follow by
** implicit differentiation: d eta / d beta = 1 / K, d eta / d psi = r / K.
** Newton in (beta, psi) with backtracking and psi >= 0.
*/

typedef struct ReEval {
    double f;             /* objective */
    double gb, gp;        /* gradient in beta, psi */
    double hbb, hbp, hpp; /* Hessian */
} ReEval;

/* Solves eta - beta - psi (s - n p(eta)) = 0; the left side increases in
** eta, and the root lies in [beta + psi (s - n), beta + psi s]. */
static double re_mode(double s, double n, double beta, double psi, double eta,
                      double *p_out)
{
    if (psi == 0) {
        *p_out = stats_expit(beta);
        return beta;
    }
    double lo = beta + psi * (s - n), hi = beta + psi * s;
    if (!(eta > lo && eta < hi)) {
        eta = 0.5 * (lo + hi);
    }
    double p = 0.5;
    for (int it = 0; it < 100; it++) {
        p = stats_expit(eta);
        double f = eta - beta - psi * (s - n * p);
        if (f > 0) {
            hi = eta;
        } else {
            lo = eta;
        }
        double d = 1.0 + psi * n * p * (1.0 - p);
        double next = eta - f / d;
        if (!(next > lo && next < hi)) {
            next = 0.5 * (lo + hi);
        }
        if (fabs(next - eta) <= 1e-13 * (1.0 + fabs(eta))) {
            break; /* p belongs to eta, within 1e-13 of the root */
        }
        eta = next;
    }
    *p_out = p;
    return eta;
}

static void re_eval(const double *s, const double *n, int k, double beta,
                    double psi, double *eta, int want_derivs, ReEval *e)
{
    e->f = e->gb = e->gp = e->hbb = e->hbp = e->hpp = 0;
    for (int c = 0; c < k; c++) {
        if (n[c] <= 0) {
            continue;
        }
        double sc = s[c], nc = n[c];
        double p;
        eta[c] = re_mode(sc, nc, beta, psi, eta[c], &p);
        double et = eta[c];
        double w = p * (1.0 - p);
        double r = sc - nc * p;
        double K = 1.0 + psi * nc * w;
        /* log(1 + e^eta) = -log(1 - p), accurate while p is not near 1 */
        double l1pe = fabs(et) < 30 ? -log1p(-p) : log1pexp(et);
        e->f += sc * et - nc * l1pe - 0.5 * psi * r * r - 0.5 * log(K);
        if (!want_derivs) {
            continue;
        }
        double w1 = w * (1.0 - 2.0 * p);
        double w2 = w * (1.0 - 6.0 * w);
        double K2 = K * K, K3 = K2 * K;
        e->gb += r - 0.5 * psi * nc * w1 / K2;
        e->gp += 0.5 * (r * r - nc * w / K - psi * nc * w1 * r / K2);
        double A = -nc * w - 0.5 * psi * nc * w2 / K2 +
                   psi * psi * nc * nc * w1 * w1 / K3;
        double B = -0.5 * nc * w1 / K2 + psi * nc * nc * w * w1 / K3;
        double C =
            0.5 * (-2.0 * r * nc * w - nc * w1 / K +
                   2.0 * psi * nc * nc * w * w1 / K2 - psi * nc * w2 * r / K2 +
                   2.0 * psi * psi * nc * nc * w1 * w1 * r / K3);
        double D = 0.5 * (nc * nc * w * w / K2 - nc * w1 * r / K2 +
                          2.0 * psi * nc * nc * w * w1 * r / K3);
        e->hbb += A / K;
        e->hbp += A * r / K + B;
        e->hpp += C * r / K + D;
        /* slopes of the mode, to predict it at the next trial point */
        eta[2 * k + c] = 1.0 / K;
        eta[3 * k + c] = r / K;
    }
}

/* Moves the modes from the base point (copied in eta[k..2k)) to a first-
** order prediction at (beta + db, psi + dp); re_mode polishes them. */
static void re_predict(double *eta, int k, double db, double dp)
{
    for (int c = 0; c < k; c++) {
        eta[c] = eta[k + c] + eta[2 * k + c] * db + eta[3 * k + c] * dp;
    }
}

int stats_re_fit(const double *s, const double *n, int k, double *eta,
                 double *pre, ReFit *out)
{
    double S = 0, N = 0;
    for (int c = 0; c < k; c++) {
        if (n[c] > 0) {
            S += s[c];
            N += n[c];
        }
    }
    out->beta0 = NAN;
    out->sigma = 0;
    out->loglik = NAN;
    out->singular = 1;
    out->iters = 0;
    if (N <= 0) {
        for (int c = 0; c < k; c++) {
            pre[c] = NAN;
        }
        return -1;
    }
    double pbar = S / N;
    if (S <= 0 || S >= N) {
        for (int c = 0; c < k; c++) {
            pre[c] = n[c] > 0 ? pbar : NAN;
        }
        return -1;
    }
    double beta_pool = stats_logit(pbar);
    /* Score in psi at (beta_pool, 0): when it is <= 0, psi = 0 is the
    ** maximum along the boundary and the fit is singular. */
    double w0 = pbar * (1.0 - pbar), score = 0, curv = 0;
    for (int c = 0; c < k; c++) {
        if (n[c] > 0) {
            double r = s[c] - n[c] * pbar;
            score += r * r - n[c] * w0;
            curv += n[c] * n[c] * w0 * w0;
        }
    }
    double beta = beta_pool, psi = 0;
    ReEval e;
    if (score > 0) {
        /* Start at the one-step estimate from the score at psi = 0; the
        ** modes start at their first-order values beta + psi r_c. */
        psi = score / curv;
        for (int c = 0; c < k; c++) {
            eta[c] = beta + psi * (s[c] - n[c] * pbar);
        }
        re_eval(s, n, k, beta, psi, eta, 1, &e);
        int it;
        for (it = 0; it < 100; it++) {
            double det = e.hbb * e.hpp - e.hbp * e.hbp;
            double db, dp;
            if (e.hbb < 0 && det > 0) {
                db = -(e.hpp * e.gb - e.hbp * e.gp) / det;
                dp = -(-e.hbp * e.gb + e.hbb * e.gp) / det;
            } else {
                /* not concave here: scaled gradient ascent */
                double sb = e.hbb < 0 ? -1.0 / e.hbb : 1.0 / N;
                double sp = e.hpp < 0 ? -1.0 / e.hpp : psi + 1e-3;
                db = sb * e.gb;
                dp = sp * e.gp;
            }
            double t = 1.0;
            ReEval trial;
            double nb = beta, np_ = psi;
            int accepted = 0;
            for (int c = 0; c < k; c++) {
                eta[k + c] = eta[c];
            }
            /* Newton decrement: when the predicted gain is tiny, this step
            ** is the last (quadratic convergence leaves ~1e-12) */
            int last = db * e.gb + dp * e.gp < 1e-9;
            for (int ls = 0; ls < 60; ls++) {
                nb = beta + t * db;
                np_ = psi + t * dp;
                if (np_ < 0) {
                    np_ = 0;
                }
                re_predict(eta, k, nb - beta, np_ - psi);
                if (last) {
                    break;
                }
                re_eval(s, n, k, nb, np_, eta, 1, &trial);
                if (trial.f >= e.f - 1e-12 * fabs(e.f)) {
                    accepted = 1;
                    break;
                }
                t *= 0.5;
            }
            if (last) {
                beta = nb;
                psi = np_;
                break;
            }
            if (!accepted) {
                for (int c = 0; c < k; c++) {
                    eta[c] = eta[k + c];
                }
                break;
            }
            double step_b = fabs(nb - beta), step_p = fabs(np_ - psi);
            beta = nb;
            psi = np_;
            e = trial;
            /* Newton converges quadratically: a step this small leaves an
            ** error far below lme4's own tolerance (about 1e-6) */
            if (step_b < 1e-7 * (1.0 + fabs(beta)) &&
                step_p < 1e-7 * (1.0 + psi)) {
                break;
            }
        }
        out->iters = it + 1;
    }
    if (psi <= 0) {
        beta = beta_pool;
        psi = 0;
    }
    re_eval(s, n, k, beta, psi, eta, 0, &e);
    out->beta0 = beta;
    out->sigma = sqrt(psi);
    out->singular = out->sigma < 1e-4;
    /* Laplace log-likelihood: add back the constants of the binomial
    ** coefficients' absence (none: y is Bernoulli) -- nothing to add. */
    out->loglik = e.f;
    for (int c = 0; c < k; c++) {
        pre[c] = n[c] > 0 ? stats_expit(eta[c]) : NAN;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Studentized range distribution                                      */

/*
** Both integrals use composite 12-point Gauss-Legendre rules on fixed
** panels: the integrands are smooth, and this is far cheaper than adaptive
** quadrature with a nested adaptive integral. 36 panels over z in [-9, 9]
** and 16 panels over the bulk of f_S reproduce R's ptukey to about 1e-9
** relative (checked against the goldens of ANALYSIS.md); stats_ptukey_fast
** takes fewer (Tukey's fast rule below).
*/
#define GL_POINTS 12
#define Z_PANELS  36 /* z in [-9, 9] */
#define S_PANELS  16

#define Z_NODES (Z_PANELS * GL_POINTS)

/* The panels of one rule: z over [-z_max, z_max], s over the bulk of f_S
** (where log f_S is within s_logwidth of its mode). */
typedef struct TukeyRule {
    int z_panels, s_panels;
    double z_max, s_logwidth;
} TukeyRule;

static const TukeyRule RULE_EXACT = {Z_PANELS, S_PANELS, 9.0, 40.0};
/* stats_ptukey_fast's: within 1.5e-9 of the exact rule where p <= 0.1 and
** 3e-8 elsewhere (k 3..12, df 2..inf), 12 times as fast */
static const TukeyRule RULE_FAST = {6, 8, 8.0, 20.0};

/* The z nodes of range_compl() and the parts of its integrand that do not
** depend on w, computed once per ptukey: the same values, in the same
** order, as computing them at every node. */
typedef struct ZNode {
    double w;    /* Gauss-Legendre weight */
    double pz;   /* Phi(z) */
    double pnz;  /* Phi(-z) */
    double powz; /* Phi(z)^(k-1) */
    double fac;  /* k phi(z) */
    double z;
} ZNode;

typedef struct TukeyCtx {
    double q;       /* range quantile */
    int k;          /* number of means */
    double df;      /* degrees of freedom */
    double lognorm; /* log normalising constant of f_S */
    const TukeyRule *rule;
    int n_nodes;
    gsl_integration_glfixed_table *gl;
    ZNode nodes[Z_NODES];
} TukeyCtx;

static double norm_cdf(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

static void z_nodes(TukeyCtx *t)
{
    const TukeyRule *r = t->rule;
    double width = 2 * r->z_max / r->z_panels, km1 = (double)(t->k - 1);
    t->n_nodes = r->z_panels * GL_POINTS;
    for (int p = 0; p < r->z_panels; p++) {
        double a = -r->z_max + p * width, c = a + 0.5 * width;
        for (size_t i = 0; i < GL_POINTS; i++) {
            double xi, wi;
            gsl_integration_glfixed_point(-1, 1, i, &xi, &wi, t->gl);
            ZNode *nd = &t->nodes[(size_t)p * GL_POINTS + i];
            double z = c + 0.5 * width * xi;
            nd->z = z;
            nd->w = wi;
            nd->pz = norm_cdf(z);
            nd->pnz = norm_cdf(-z);
            nd->powz = pow(nd->pz, km1);
            nd->fac = t->k * exp(-0.5 * z * z) * 0.3989422804014327;
        }
    }
}

/* Integrand of 1 - W(w) = k * int phi(z) [Phi(z)^(k-1) - (Phi(z) -
** Phi(z - w))^(k-1)] dz; both terms are accurate in the tails. */
static double range_compl_integrand(const ZNode *nd, double w, int k)
{
    double z = nd->z;
    double pz = nd->pz;
    double band;
    if (z - w > 0) { /* both upper tails: subtract the small tails */
        band = norm_cdf(w - z) - nd->pnz;
    } else {
        band = pz - norm_cdf(z - w);
    }
    double km1 = (double)(k - 1);
    double d = pz - band; /* Phi(z - w) */
    double diff;
    if (d < 1e-3 * pz) {
        /* a^m - (a - d)^m = a^m (1 - (1 - d/a)^m), no cancellation */
        diff = nd->powz * -expm1(km1 * log1p(-d / pz));
    } else {
        diff = nd->powz - pow(band, km1);
    }
    return nd->fac * diff;
}

/* 1 - W(w): probability that the range of k standard normals exceeds w. */
static double range_compl(const TukeyCtx *t, double w)
{
    if (w <= 0) {
        return 1.0;
    }
    double sum = 0, width = 2 * t->rule->z_max / t->rule->z_panels;
    for (int n = 0; n < t->n_nodes; n++) {
        sum += t->nodes[n].w * range_compl_integrand(&t->nodes[n], w, t->k);
    }
    sum *= 0.5 * width;
    return sum < 0 ? 0 : sum;
}

static double s_logdens(const TukeyCtx *t, double s)
{
    return t->lognorm + (t->df - 1.0) * log(s) - 0.5 * t->df * s * s;
}

static double ptukey_rule(double q, int k, double df, const TukeyRule *rule)
{
    if (!(q > 0)) {
        return 1.0;
    }
    if (k < 2 || !(df > 0)) {
        return NAN;
    }
    TukeyCtx t;
    memset(&t, 0, sizeof t);
    t.q = q;
    t.k = k;
    t.df = df;
    t.rule = rule;
    t.gl = gsl_integration_glfixed_table_alloc(GL_POINTS);
    if (!t.gl) {
        return NAN;
    }
    z_nodes(&t);
    double result = 0;
    if (isinf(df)) {
        result = range_compl(&t, q);
    } else {
        /* f_S(s) = nu^(nu/2) / (Gamma(nu/2) 2^(nu/2-1)) s^(nu-1) e^(-nu s^2/2)
         */
        t.lognorm = 0.5 * df * log(df) - gsl_sf_lngamma(0.5 * df) -
                    (0.5 * df - 1.0) * M_LN2;
        /* integrate where log f_S is within s_logwidth of its mode */
        double mode = df > 1 ? sqrt((df - 1.0) / df) : 1e-3;
        double top = s_logdens(&t, mode);
        double step = 0.05 / sqrt(df);
        double lo = mode, hi = mode;
        while (lo > 0 && s_logdens(&t, lo) > top - rule->s_logwidth) {
            lo -= step;
            step *= 1.3;
        }
        lo = lo < 0 ? 0 : lo;
        step = 0.05 / sqrt(df);
        while (s_logdens(&t, hi) > top - rule->s_logwidth) {
            hi += step;
            step *= 1.3;
        }
        double width = (hi - lo) / rule->s_panels;
        for (int p = 0; p < rule->s_panels; p++) {
            double c = lo + (p + 0.5) * width;
            for (size_t i = 0; i < GL_POINTS; i++) {
                double xi, wi;
                gsl_integration_glfixed_point(-1, 1, i, &xi, &wi, t.gl);
                double s = c + 0.5 * width * xi;
                if (s <= 0) {
                    continue;
                }
                result += wi * exp(s_logdens(&t, s)) * range_compl(&t, q * s);
            }
        }
        result *= 0.5 * width;
    }
    gsl_integration_glfixed_table_free(t.gl);
    if (result > 1) {
        result = 1;
    }
    return result < 0 ? 0 : result;
}

double stats_ptukey_upper(double q, int k, double df)
{
    return ptukey_rule(q, k, df, &RULE_EXACT);
}

double stats_ptukey_fast(double q, int k, double df)
{
    if (k == 2 && q > 0 && df > 0) { /* Q = sqrt(2) |T|, T ~ t(df) */
        return isinf(df) ? 2 * gsl_cdf_ugaussian_Q(q / M_SQRT2)
                         : 2 * gsl_cdf_tdist_Q(q / M_SQRT2, df);
    }
    return ptukey_rule(q, k, df, &RULE_FAST);
}

typedef struct QtukeyCtx {
    double p;
    int k;
    double df;
} QtukeyCtx;

static double qtukey_fn(double q, void *params)
{
    const QtukeyCtx *c = params;
    return (1.0 - c->p) - stats_ptukey_upper(q, c->k, c->df);
}

double stats_qtukey(double p, int k, double df)
{
    if (!(p > 0 && p < 1) || k < 2 || !(df > 0)) {
        return NAN;
    }
    QtukeyCtx c = {p, k, df};
    gsl_function f = {qtukey_fn, &c};
    double lo = 0.0, hi = 2.0;
    while (qtukey_fn(hi, &c) < 0 && hi < 1e4) {
        lo = hi;
        hi *= 2.0;
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_root_fsolver *sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    double root = NAN;
    if (sv && gsl_root_fsolver_set(sv, &f, lo, hi) == GSL_SUCCESS) {
        for (int it = 0; it < 200; it++) {
            gsl_root_fsolver_iterate(sv);
            root = gsl_root_fsolver_root(sv);
            double a = gsl_root_fsolver_x_lower(sv);
            double b = gsl_root_fsolver_x_upper(sv);
            if (gsl_root_test_interval(a, b, 1e-10, 0) == GSL_SUCCESS) {
                break;
            }
        }
    }
    gsl_root_fsolver_free(sv);
    gsl_set_error_handler(old);
    return root;
}

/* ------------------------------------------------------------------ */
/* ANOVA and Tukey-Kramer                                              */

typedef struct GroupStats {
    double *sum;
    double *mean;
    int *count;
} GroupStats;

static void group_stats_free(GroupStats *gs)
{
    sim_free(gs->sum);
    sim_free(gs->mean);
    sim_free(gs->count);
    gs->sum = gs->mean = NULL;
    gs->count = NULL;
}

/* Returns 0, or -1 when memory ran out (then gs holds nothing). */
static int group_stats(const double *y, const int *g, int n, int k,
                       GroupStats *gs)
{
    gs->sum = sim_calloc((size_t)k, sizeof(double));
    gs->mean = sim_calloc((size_t)k, sizeof(double));
    gs->count = sim_calloc((size_t)k, sizeof(int));
    if (!gs->sum || !gs->mean || !gs->count) {
        group_stats_free(gs);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        gs->sum[g[i]] += y[i];
        gs->count[g[i]]++;
    }
    for (int c = 0; c < k; c++) {
        gs->mean[c] = gs->count[c] ? gs->sum[c] / gs->count[c] : NAN;
    }
    return 0;
}

int stats_anova(const double *y, const int *g, int n, int k, AnovaResult *out)
{
    GroupStats gs;
    int rc = -1;
    if (group_stats(y, g, n, k, &gs) != 0) {
        goto cleanup;
    }
    double grand = 0;
    int groups = 0;
    for (int i = 0; i < n; i++) {
        grand += y[i];
    }
    grand /= n > 0 ? n : 1;
    double ssb = 0, ssw = 0;
    for (int c = 0; c < k; c++) {
        if (gs.count[c] > 0) {
            groups++;
            double d = gs.mean[c] - grand;
            ssb += gs.count[c] * d * d;
        }
    }
    for (int i = 0; i < n; i++) {
        double d = y[i] - gs.mean[g[i]];
        ssw += d * d;
    }
    out->k = groups;
    out->n = n;
    out->ss_between = ssb;
    out->ss_within = ssw;
    out->df_between = groups - 1;
    out->df_within = n - groups;
    if (groups < 2 || n - groups < 1) {
        out->f = out->p = out->eta_sq = NAN;
        goto cleanup;
    }
    out->f = (ssb / out->df_between) / (ssw / out->df_within);
    /* no spread within groups: F is infinite (p = 0), or 0 / 0 when there
    ** is no spread at all (then there is no p either) */
    out->p = ssw > 0 ? gsl_cdf_fdist_Q(out->f, out->df_between, out->df_within)
             : ssb > 0 ? 0.0
                       : NAN;
    out->eta_sq = ssb + ssw > 0 ? ssb / (ssb + ssw) : NAN;
    rc = 0;
cleanup:
    group_stats_free(&gs);
    return rc;
}

/* stats_tukey (fast 0) and stats_tukey_p (fast 1: no intervals). */
static int tukey_pairs(const double *y, const int *g, int n, int k,
                       double level, int fast, TukeyPair *pairs)
{
    AnovaResult a;
    GroupStats gs;
    int written = -1;
    if (stats_anova(y, g, n, k, &a) != 0 || group_stats(y, g, n, k, &gs)) {
        return -1;
    }
    double msw = a.ss_within / a.df_within;
    double qcrit = fast ? NAN : stats_qtukey(level, a.k, a.df_within);
    written = 0;
    for (int h = 1; h < k; h++) {
        for (int c = 0; c < h; c++) {
            if (gs.count[c] == 0 || gs.count[h] == 0) {
                continue;
            }
            TukeyPair *tp = &pairs[written++];
            tp->g = c;
            tp->h = h;
            tp->diff = gs.mean[h] - gs.mean[c];
            double se =
                sqrt(msw / 2.0 * (1.0 / gs.count[c] + 1.0 / gs.count[h]));
            tp->lwr = tp->diff - qcrit * se;
            tp->upr = tp->diff + qcrit * se;
            double q = fabs(tp->diff) / se;
            tp->p_adj = !(se > 0) ? (tp->diff == 0 ? 1.0 : 0.0)
                        : fast    ? stats_ptukey_fast(q, a.k, a.df_within)
                                  : stats_ptukey_upper(q, a.k, a.df_within);
        }
    }
    group_stats_free(&gs);
    return written;
}

int stats_tukey(const double *y, const int *g, int n, int k, double level,
                TukeyPair *pairs)
{
    return tukey_pairs(y, g, n, k, level, 0, pairs);
}

int stats_tukey_p(const double *y, const int *g, int n, int k, TukeyPair *pairs)
{
    return tukey_pairs(y, g, n, k, NAN, 1, pairs);
}

/* ------------------------------------------------------------------ */
/* Logistic regression                                                 */

static double binom_dev(const double *x, const double *s, const double *w,
                        int n, double b0, double b1)
{
    double dev = 0;
    for (int i = 0; i < n; i++) {
        if (w[i] <= 0) {
            continue;
        }
        double eta = b0 + b1 * x[i];
        /* log p = -log1pexp(-eta); log(1-p) = -log1pexp(eta) */
        dev += 2.0 * (s[i] * log1pexp(-eta) + (w[i] - s[i]) * log1pexp(eta));
    }
    return dev;
}

int stats_logit_fit(const double *x, const double *s, const double *w, int n,
                    LogitFit *out)
{
    out->b0 = out->b1 = out->se0 = out->se1 = NAN;
    out->z0 = out->z1 = out->p0 = out->p1 = NAN;
    out->deviance = out->null_deviance = NAN;
    out->iters = 0;
    out->converged = 0;
    out->separation = 0;
    double S = 0, W = 0;
    double xmin1 = INFINITY, xmax1 = -INFINITY;
    double xmin0 = INFINITY, xmax0 = -INFINITY;
    double xlo = INFINITY, xhi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (w[i] <= 0) {
            continue;
        }
        S += s[i];
        W += w[i];
        xlo = fmin(xlo, x[i]);
        xhi = fmax(xhi, x[i]);
        if (s[i] > 0) {
            xmin1 = fmin(xmin1, x[i]);
            xmax1 = fmax(xmax1, x[i]);
        }
        if (w[i] - s[i] > 0) {
            xmin0 = fmin(xmin0, x[i]);
            xmax0 = fmax(xmax0, x[i]);
        }
    }
    if (W <= 0 || !(xhi > xlo) || S <= 0 || S >= W) {
        return -1;
    }
    double pbar = S / W;
    out->null_deviance = -2.0 * (S * log(pbar) + (W - S) * log(1.0 - pbar));
    if (xmax0 <= xmin1 || xmax1 <= xmin0) {
        out->separation = 1;
        return 0;
    }
    /* First IRLS step from R's start, mu = 0.75 for a success and 0.25 for a
    ** failure: z = +-(logit(.75) + .25/.1875), weight .1875 for every
    ** response. */
    double zc = log(3.0) + 0.25 / 0.1875;
    double dev_old = 2.0 * W * log(4.0 / 3.0);
    double b0 = 0, b1 = 0, dev = 0;
    double sw = 0, swx = 0, swxx = 0; /* information of the last step */
    int conv = 0, it;
    for (it = 1; it <= 25; it++) {
        double swz = 0, swxz = 0;
        sw = swx = swxx = 0;
        for (int i = 0; i < n; i++) {
            if (w[i] <= 0) {
                continue;
            }
            double wi, zi_sum; /* total weight, sum of weight * z */
            if (it == 1) {
                wi = 0.1875 * w[i];
                zi_sum = 0.1875 * zc * (s[i] - (w[i] - s[i]));
            } else {
                double eta = b0 + b1 * x[i];
                double p = stats_expit(eta);
                double v = p * (1.0 - p);
                wi = w[i] * v;
                /* z = eta + (y - p) / v, summed over the group's responses */
                zi_sum = wi * eta + (s[i] - w[i] * p);
            }
            sw += wi;
            swx += wi * x[i];
            swxx += wi * x[i] * x[i];
            swz += zi_sum;
            swxz += zi_sum * x[i];
        }
        double det = sw * swxx - swx * swx;
        if (!(det > 0)) {
            break;
        }
        b1 = (sw * swxz - swx * swz) / det;
        b0 = (swz - b1 * swx) / sw;
        dev = binom_dev(x, s, w, n, b0, b1);
        if (fabs(dev - dev_old) / (fabs(dev) + 0.1) < 1e-8) {
            conv = 1;
            break;
        }
        dev_old = dev;
    }
    out->iters = it > 25 ? 25 : it;
    out->converged = conv;
    out->b0 = b0;
    out->b1 = b1;
    out->deviance = dev;
    /* Wald standard errors from the weights of the last IRLS step, as R's
    ** summary.glm. Fitted probabilities at 0 or 1 mean separation. */
    int extreme = 0;
    for (int i = 0; i < n; i++) {
        if (w[i] > 0) {
            double p = stats_expit(b0 + b1 * x[i]);
            if (p < 10 * DBL_EPSILON || p > 1.0 - 10 * DBL_EPSILON) {
                extreme = 1;
            }
        }
    }
    double det = sw * swxx - swx * swx;
    if (extreme) {
        out->separation = 1;
    }
    if (det > 0) {
        out->se0 = sqrt(swxx / det);
        out->se1 = sqrt(sw / det);
        out->z0 = b0 / out->se0;
        out->z1 = b1 / out->se1;
        out->p0 = gsl_sf_erfc(fabs(out->z0) / M_SQRT2);
        out->p1 = gsl_sf_erfc(fabs(out->z1) / M_SQRT2);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Within-subject designs                                               */

int stats_paired_t(const double *a, const double *b, int n, PairedT *out)
{
    out->n = n;
    out->diff = out->sd = out->t = out->df = out->p = NAN;
    out->lo = out->hi = NAN;
    if (n < 2) {
        return -1;
    }
    double mean = 0;
    for (int i = 0; i < n; i++) {
        mean += b[i] - a[i];
    }
    mean /= n;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double d = (b[i] - a[i]) - mean;
        ss += d * d;
    }
    out->diff = mean;
    out->df = n - 1;
    out->sd = sqrt(ss / (n - 1));
    double se = out->sd / sqrt((double)n);
    /* R refuses when se < 10 eps |mean|: the data are essentially constant */
    if (!(se > 10 * DBL_EPSILON * fabs(mean))) {
        return 0;
    }
    out->t = mean / se;
    out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    double q = gsl_cdf_tdist_Qinv(0.025, out->df);
    out->lo = mean - q * se;
    out->hi = mean + q * se;
    return 0;
}

void stats_p_holm(const double *p, int n, double *out)
{
    int *ord = sim_malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    double *adj = sim_malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!ord || !adj) {
        for (int i = 0; i < n; i++) {
            out[i] = NAN;
        }
        sim_free(ord);
        sim_free(adj);
        return;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!isnan(p[i])) {
            ord[m++] = i;
        }
    }
    /* stable insertion sort by p (ties keep their order, as R's order()) */
    for (int i = 1; i < m; i++) {
        int v = ord[i], j = i;
        while (j > 0 && p[ord[j - 1]] > p[v]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = v;
    }
    double run = 0;
    for (int r = 0; r < m; r++) {
        double x = (double)(m - r) * p[ord[r]];
        run = x > run ? x : run;
        adj[r] = run < 1 ? run : 1;
    }
    for (int i = 0; i < n; i++) {
        if (isnan(p[i])) {
            out[i] = NAN;
        }
    }
    for (int r = 0; r < m; r++) {
        out[ord[r]] = adj[r];
    }
    sim_free(ord);
    sim_free(adj);
}

/* Greenhouse-Geisser epsilon of the k x k covariance matrix S (row-major):
** (tr S*)^2 / ((k - 1) sum S*_ij^2) with S* the double-centred S. */
static double gg_epsilon(const double *S, int k, double *rowm)
{
    double grand = 0;
    for (int i = 0; i < k; i++) {
        rowm[i] = 0;
        for (int j = 0; j < k; j++) {
            rowm[i] += S[i * k + j];
        }
        grand += rowm[i];
        rowm[i] /= k;
    }
    grand /= (double)k * k;
    double tr = 0, sq = 0;
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++) {
            /* S is symmetric: column means equal row means */
            double c = S[i * k + j] - rowm[i] - rowm[j] + grand;
            sq += c * c;
            tr += i == j ? c : 0;
        }
    }
    return sq > 0 ? tr * tr / ((k - 1) * sq) : NAN;
}

int stats_rm_anova(const double *y, int n, int k, RmAnovaResult *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->k = k;
    if (n < 2 || k < 2) {
        out->f = out->p = out->partial_eta_sq = NAN;
        out->gg_epsilon = out->p_gg = NAN;
        return -1;
    }
    double *cm = sim_calloc((size_t)k, sizeof(double));
    double *pm = sim_calloc((size_t)n, sizeof(double));
    double *S = sim_calloc((size_t)k * (size_t)k, sizeof(double));
    double *rowm = sim_calloc((size_t)k, sizeof(double));
    if (!cm || !pm || !S || !rowm) {
        sim_free(cm);
        sim_free(pm);
        sim_free(S);
        sim_free(rowm);
        out->f = out->p = out->partial_eta_sq = NAN;
        out->gg_epsilon = out->p_gg = NAN;
        return -1;
    }
    double grand = 0;
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < k; c++) {
            double v = y[(size_t)i * (size_t)k + (size_t)c];
            cm[c] += v;
            pm[i] += v;
            grand += v;
        }
    }
    grand /= (double)n * k;
    for (int c = 0; c < k; c++) {
        cm[c] /= n;
    }
    for (int i = 0; i < n; i++) {
        pm[i] /= k;
    }
    double ssc = 0, sss = 0, sse = 0;
    for (int c = 0; c < k; c++) {
        ssc += n * (cm[c] - grand) * (cm[c] - grand);
    }
    for (int i = 0; i < n; i++) {
        sss += k * (pm[i] - grand) * (pm[i] - grand);
        for (int c = 0; c < k; c++) {
            double e =
                y[(size_t)i * (size_t)k + (size_t)c] - pm[i] - cm[c] + grand;
            sse += e * e;
        }
    }
    for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
            double s = 0;
            for (int i = 0; i < n; i++) {
                s += (y[(size_t)i * (size_t)k + (size_t)a] - cm[a]) *
                     (y[(size_t)i * (size_t)k + (size_t)b] - cm[b]);
            }
            S[a * k + b] = s / (n - 1);
        }
    }
    out->ss_cond = ssc;
    out->ss_subject = sss;
    out->ss_error = sse;
    out->df_cond = k - 1;
    out->df_error = (double)(k - 1) * (n - 1);
    out->partial_eta_sq = ssc + sse > 0 ? ssc / (ssc + sse) : NAN;
    out->gg_epsilon = gg_epsilon(S, k, rowm);
    /* no error variance: F is infinite or 0/0 */
    if (sse > 0) {
        out->f = (ssc / out->df_cond) / (sse / out->df_error);
        out->p = gsl_cdf_fdist_Q(out->f, out->df_cond, out->df_error);
        double e = out->gg_epsilon;
        out->p_gg = isfinite(e) ? gsl_cdf_fdist_Q(out->f, e * out->df_cond,
                                                  e * out->df_error)
                                : NAN;
    } else {
        out->f = out->p = out->p_gg = NAN;
    }
    sim_free(cm);
    sim_free(pm);
    sim_free(S);
    sim_free(rowm);
    return 0;
}
