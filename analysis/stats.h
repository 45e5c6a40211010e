/*
** Numerical building blocks of simlab-analyze: type-7 quantiles, bootstrap
** p-values, the binomial random-intercept model (Laplace), the studentized
** range distribution, one-way ANOVA with Tukey-Kramer, and logistic
** regression by IRLS. libc, libm and GSL only; no I/O.
*/
#ifndef SIMLAB_ANALYSIS_STATS_H
#define SIMLAB_ANALYSIS_STATS_H

#include <stddef.h>

/* Type-7 quantile (R's default) of n sorted values; p in [0, 1]. */
double stats_quantile7(const double *sorted, size_t n, double p);

/* Sorts x[0..n) ascending in place (NaNs must be removed first). */
void stats_sort(double *x, size_t n);

/* Two-sided bootstrap p for H0: theta = null by percentile inversion:
** min(1, 2 min((1 + #{x <= null}) / (n + 1), (1 + #{x >= null}) / (n + 1))).
** Never 0. */
double stats_p_percentile(const double *x, size_t n, double null);

/* Hase & Bansal's rule: m = mean(x); #{x - m < -|m|}/n + #{x - m > |m|}/n,
** computed for null = 0. Can be 0; callers print it as "< 1/n". */
double stats_p_hase(const double *x, size_t n);

/* ---- Random-intercept binomial model: glmer(y ~ (1|group), binomial) ----
** Laplace approximation, maximised over beta0 and sigma >= 0. Depends on the
** data only through s[c] (successes) and n[c] (trials) per group. */
typedef struct ReFit {
    double beta0;  /* fixed intercept (logit scale) */
    double sigma;  /* SD of the random intercepts; 0 when singular */
    double loglik; /* Laplace log-likelihood at the optimum */
    int singular;  /* 1 when sigma < 1e-4 (lme4's isSingular tolerance) */
    int iters;     /* Newton iterations used */
} ReFit;

/* Fits the model to k groups. Groups with n[c] == 0 take no part and get
** pre[c] = NaN. The search starts at the one-step estimate from the score at
** sigma = 0, which in bootstrap replicates is closer to the optimum than the
** full-sample fit. work (4 k doubles) is a workspace; pre (OUT, k values)
*receives the
** conditional modes on the probability scale, expit(beta0 + u_c), as lme4's
** coef(). Returns 0, or -1 when the model is not estimable (no trials, or
** all or none of the trials successful: then every pre[c] is the pooled
** proportion and out->singular is 1). */
int stats_re_fit(const double *s, const double *n, int k, double *work,
                 double *pre, ReFit *out);

/* ---- Studentized range distribution ----
** P(Q > q) for k groups and df degrees of freedom (df = INFINITY allowed),
** by adaptive quadrature of the two nested integrals. */
double stats_ptukey_upper(double q, int k, double df);
/* P(Q > q) to a decision's accuracy, for the many of a calibration's null
** studies: within 1e-6 absolute of R's ptukey where it is <= 0.1 (tested
** against tests/data/analysis/ptukey_fast.txt), a twelfth of
** stats_ptukey_upper's time (fewer panels of the same rules); k = 2
** exactly, from the t distribution. */
double stats_ptukey_fast(double q, int k, double df);
/* The p-quantile of Q (lower tail probability p). */
double stats_qtukey(double p, int k, double df);

/* ---- One-way ANOVA and Tukey-Kramer ---- */
typedef struct AnovaResult {
    int k; /* groups with at least one value */
    int n; /* values */
    double ss_between, ss_within;
    double df_between, df_within;
    double f, p, eta_sq;
} AnovaResult;

/* y[i] in group g[i] (0 <= g[i] < k). Returns 0, or -1 when there are fewer
** than two non-empty groups or no within-group degrees of freedom. When all
** y are equal, f, p and eta_sq are NaN. */
int stats_anova(const double *y, const int *g, int n, int k, AnovaResult *out);

typedef struct TukeyPair {
    int g, h;        /* the comparison is group h minus group g */
    double diff;     /* mean_h - mean_g */
    double lwr, upr; /* 95 % simultaneous interval */
    double p_adj;    /* P(Q > |diff| / SE) */
} TukeyPair;

/* All k(k-1)/2 pairs (g < h) of the non-empty groups, in the order
** (0,1), (0,2), (1,2), (0,3), ... as R's TukeyHSD lists them; pairs (OUT)
** must hold k(k-1)/2 entries. Returns the number of pairs written, or -1. */
int stats_tukey(const double *y, const int *g, int n, int k, double level,
                TukeyPair *pairs);
/* As stats_tukey with the p-values of stats_ptukey_fast and no intervals
** (lwr, upr NaN): a null study's decisions (simlab-analyze --calibrate). */
int stats_tukey_p(const double *y, const int *g, int n, int k,
                  TukeyPair *pairs);

/* ---- Within-subject designs ---- */

/* Paired t test of b - a, as R's t.test(b, a, paired = TRUE). */
typedef struct PairedT {
    int n;           /* pairs */
    double diff;     /* mean of b - a */
    double sd;       /* SD of b - a */
    double t, df, p; /* two-sided p */
    double lo, hi;   /* 95 % confidence interval of diff */
} PairedT;

/* Pairs (a[i], b[i]) for i < n. Returns 0, or -1 with fewer than two pairs
** (then every value but n is NaN). When every difference is the same, sd
** is 0 and t, p, lo, hi are NaN (R: "data are essentially constant"). */
int stats_paired_t(const double *a, const double *b, int n, PairedT *out);

/* Holm's step-down adjustment as R's p.adjust(p, "holm"): NaN p-values
** stay NaN and do not count in the number of tests. out may be p. */
void stats_p_holm(const double *p, int n, double *out);

/* One-way repeated-measures ANOVA (participants x conditions, one value
** per cell), as R's aov(y ~ cond + Error(participant/cond)), with the
** Greenhouse-Geisser epsilon from the sample covariance matrix of the
** conditions. */
typedef struct RmAnovaResult {
    int n, k; /* participants, conditions */
    double ss_cond, ss_subject, ss_error;
    double df_cond, df_error; /* k - 1, (k - 1)(n - 1) */
    double f, p;              /* uncorrected */
    double partial_eta_sq;    /* ss_cond / (ss_cond + ss_error) */
    double gg_epsilon;        /* 1/(k-1) <= epsilon <= 1 */
    double p_gg;              /* p with both df multiplied by epsilon */
} RmAnovaResult;

/* y[i * k + c]: participant i in condition c, i < n, c < k; complete.
** Returns 0, or -1 when n < 2 or k < 2. With no error variance f, p and
** the corrected p are NaN, as is epsilon when the covariance is 0. */
int stats_rm_anova(const double *y, int n, int k, RmAnovaResult *out);

/* ---- Logistic regression of a binary outcome on one predictor ----
** Data are grouped: x[i] with s[i] successes out of w[i] (weighted) trials;
** ungrouped 0/1 data are the case w[i] = 1. IRLS as R's glm.fit (start
** mu = (y + 0.5) / 2 per response, stop when |dev - dev_old| / (|dev| + 0.1)
** < 1e-8, at most 25 iterations). */
typedef struct LogitFit {
    double b0, b1;   /* intercept and slope */
    double se0, se1; /* Wald standard errors */
    double z0, z1, p0, p1;
    double deviance, null_deviance;
    int iters;
    int converged;
    int separation; /* 1: (quasi-)complete separation, no finite MLE */
} LogitFit;

/* Returns 0; -1 when the slope is not estimable (fewer than two distinct x
** values with weight, or no variation in the outcome). On separation the
** function returns 0 with out->separation = 1 and NaN estimates. */
int stats_logit_fit(const double *x, const double *s, const double *w, int n,
                    LogitFit *out);

/* Standard normal helpers. */
double stats_expit(double x);
double stats_logit(double p);

#endif
