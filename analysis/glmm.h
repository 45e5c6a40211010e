/*
** A logistic mixed model (binomial response, logit link) with crossed
** random-effect terms, fitted by the Laplace approximation as lme4's
** glmer(nAGQ = 1) does: conditional modes by PIRLS on a CHOLMOD sparse
** Cholesky factor, NLopt's BOBYQA for the covariance factors, then
** quasi-Newton steps on the exact gradient of the Laplace deviance jointly
** in the covariance factors and the fixed effects. Knows nothing of data
** sets or reports (glmm_design.c, glmm_report.c).
*/
#ifndef SIMLAB_ANALYSIS_GLMM_H
#define SIMLAB_ANALYSIS_GLMM_H

#include <stdint.h>

#include "common/sim_error.h"

#define GLMM_MAX_TERMS 4 /* random-effect terms */
#define GLMM_MAX_K     8 /* columns of one term */

/* One random-effect term (z_1 + ... + z_k | group): each level of the
** group has a k-vector of effects with covariance Lambda Lambda' (Lambda
** lower triangular; diagonal for lme4's "||"). */
typedef struct GlmmTerm {
    const int *level; /* per observation: 0..n_levels-1 */
    int n_levels;
    int k;           /* 1..GLMM_MAX_K */
    const double *z; /* n x k row-major covariates; NULL: k = 1, all 1 */
    int diagonal;    /* 1: independent columns (no correlations) */
} GlmmTerm;

/* The design: n 0/1 responses, an n x p fixed-effects matrix of full
** column rank, the random-effect terms. Borrowed by the fit. */
typedef struct GlmmModel {
    int n;
    const uint8_t *y; /* 0/1 */
    int p;
    const double *X; /* n x p row-major */
    int n_terms;     /* 1..GLMM_MAX_TERMS */
    GlmmTerm term[GLMM_MAX_TERMS];
    /* Where the covariance search starts (glmm_n_theta values, lme4's
    ** layout); NULL: lme4's start, 1 on Lambda's diagonal and 0 below. A
    ** start near the optimum saves evaluations, not accuracy. */
    const double *theta_start;
    /* A warm start: with theta_start, beta_start (p values) and hess_start
    ** (the (n_theta + p)^2 Hessian of the deviance in (theta, beta) at or
    ** near that point, e.g. GlmmFit.hessian of a similar data set's fit),
    ** the derivative-free first stage is skipped and the quasi-Newton
    ** search starts there with that Hessian. Same optimum, fewer
    ** evaluations when the start is close. */
    const double *beta_start;
    const double *hess_start;
    /* t + 1: a fit whose term t ends singular (a diagonal of its Lambda
    ** below 1e-4) stops before the Hessian of its standard errors
    ** (stopped = 1, vcov and se NaN, converged 0), for a caller that
    ** fits a simpler structure then; 0: every fit is completed. */
    int stop_singular_term;
    /* Threads of the passes over the responses and of the factorisation
    ** (0 or 1: the caller's alone). The fit does not depend on it. */
    int threads;
    /* 1: CHOLMOD's general factor even where the blocked one applies (for
    ** the tests of both). */
    int general;
    /* Called after each deviance evaluation with the fit's count so far
    ** (NULL: none), for a progress line. */
    void (*progress)(void *ctx, int n_evals);
    void *progress_ctx;
} GlmmModel;

/* The number of covariance parameters of term t (k(k+1)/2, or k when
** diagonal) and of the model. */
int glmm_term_n_theta(const GlmmTerm *t);
int glmm_n_theta(const GlmmModel *m);

typedef struct GlmmFit {
    int p, n_theta;
    double *beta;     /* p fixed effects */
    double *vcov;     /* p x p covariance of beta */
    double *se;       /* p standard errors */
    double *theta;    /* per term, the lower triangle of Lambda column by
                      ** column (lme4's theta), diagonal entries >= 0 */
    double deviance;  /* Laplace approximation of -2 log L */
    double loglik;    /* -deviance / 2 */
    double aic;       /* deviance + 2 (p + n_theta) */
    int converged;    /* the optimiser met its tolerance with a small
                      ** gradient */
    int singular;     /* a diagonal of some Lambda below 1e-4 (lme4's
                      ** isSingular) */
    int vcov_hessian; /* 1: vcov from the Hessian of the deviance in
                      ** (theta, beta) as lme4's vcov(); 0: from the
                      ** penalised least squares factor (RX), lme4's
                      ** fallback when that Hessian is not positive
                      ** definite */
    double *hessian;  /* (n_theta + p)^2: the Hessian of the deviance in
                      ** (theta, beta) at the optimum (when stopped, the
                      ** quasi-Newton search's approximation of it) */
    int stopped;      /* 1: stopped singular (GlmmModel.stop_singular_term) */
    int n_evals;      /* deviance evaluations (PIRLS runs) */
    double max_grad;  /* largest |gradient| of the deviance at the end */
} GlmmFit;

/* A fitting workspace for one design (the symbolic factorisation is
** reused when the same design is fitted to other responses). On success
** *out owns it; free with glmm_work_free(). m is borrowed and must outlive
** it. Fails with SIM_ERR_INVALID for a malformed design. */
typedef struct GlmmWork GlmmWork;
int glmm_work_new(const GlmmModel *m, GlmmWork **out, SimError *err);
void glmm_work_free(GlmmWork *w); /* NULL is a no-op */

/* Fits the model to responses y (n values 0/1; NULL: the model's own).
** On success fit holds the estimates (free with glmm_fit_free()); a fit
** that does not converge is still a success, with converged = 0. Fails
** only when out of memory or when CHOLMOD fails. */
int glmm_work_fit(GlmmWork *w, const uint8_t *y, GlmmFit *fit, SimError *err);

/* glmm_work_new(), glmm_work_fit(), glmm_work_free() in one call. */
int glmm_fit(const GlmmModel *m, GlmmFit *fit, SimError *err);
void glmm_fit_free(GlmmFit *f); /* frees the arrays; NULL is a no-op */

/* The Hessian hess of a fit of model `from` restricted to the parameters
** of `to`, a model with the same terms and fixed effects and no richer
** (fewer slopes, or no correlations): a start for `to`'s search
** (GlmmModel.hess_start). out: (glmm_n_theta(to) + p)^2 values. */
void glmm_hess_from(const GlmmModel *from, const double *hess,
                    const GlmmModel *to, double *out);

/* lme4's isSingular() tolerance on a diagonal entry of Lambda. */
#define GLMM_SINGULAR_TOL 1e-4

/* Whether a diagonal entry of term t's Lambda in theta (the whole
** model's) is below tol in size: at GLMM_SINGULAR_TOL, a term singular as
** lme4 says (a slope without variance or a correlation of +-1). */
int glmm_term_below(const GlmmModel *m, const double *theta, int t, double tol);

/* The standard deviations sd[0..k) and correlations corr[k x k] of term t
** of m under theta (the whole model's theta). */
void glmm_term_cov(const GlmmModel *m, const double *theta, int t, double *sd,
                   double *corr);

/* The Laplace deviance and its gradient in (theta, beta) at x (n_theta + p
** values), for tests: returns the deviance, grad may be NULL. */
double glmm_work_deviance(GlmmWork *w, const double *x, double *grad);

#endif
