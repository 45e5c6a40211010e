/*
** Internal to the GLMM fit (glmm_pirls.c, glmm_fit.c): the workspace that
** holds the design in the form the factorisation needs, the current
** conditional modes and the CHOLMOD factor. Not for callers outside them.
*/
#ifndef SIMLAB_ANALYSIS_GLMM_INT_H
#define SIMLAB_ANALYSIS_GLMM_INT_H

#include <cholmod.h>

#include "analysis/glmm.h"

/* Notation as lme4's: eta = X beta + Z Lambda u, u spherical; G = Z Lambda
** (n x q, s nonzeros per row: the effects of the row's levels); M = G' W G
** + I = L D L' (CHOLMOD, simplicial LDL'). The effects are numbered in the
** fill-reducing order that CHOLMOD's AMD chose for the pattern of M, once,
** so M is assembled and factored in that order with no permutation. */
struct GlmmWork {
    const GlmmModel *m;
    const uint8_t *y; /* the responses being fitted */
    int n, p, q, s, n_theta, n_par;
    int off[GLMM_MAX_TERMS];    /* first effect (index into u) of a term */
    int th_off[GLMM_MAX_TERMS]; /* first theta of a term */
    int z_at[GLMM_MAX_TERMS];   /* first supp slot of a term in a row */
    double lam[GLMM_MAX_TERMS][GLMM_MAX_K * GLMM_MAX_K]; /* Lambda, row-major */
    /* the theta that G was computed for (the differences of the Hessian
    ** in beta keep it) */
    double theta_set[GLMM_MAX_TERMS * GLMM_MAX_K * (GLMM_MAX_K + 1) / 2];
    int theta_valid;
    int *supp;    /* n x s: the effects of row i (in the factor's order) */
    size_t *xoff; /* n: where row i's nonzeros of X start in xj, xv */
    int *xn;      /* n: how many */
    int *xj;      /* their columns */
    double *xv;   /* their values */
    double *g;    /* n x s: row i of G on supp */
    double *xb;   /* n: X beta */
    double *u;    /* q: conditional modes (warm start of the next run) */
    double *u2;   /* q: trial modes */
    double *eta, *mu, *w, *res; /* n: linear predictor, mean, weight,
                                ** y - mu */
    double *ex;                 /* n: exp(-|eta|) */
    double *rhs;                /* q */
    double *beta; /* p: the fixed effects of the last evaluation */
    double pdev;  /* deviance + |u|^2 at u */
    double ldl2;  /* log det M at the last factorisation */
    /* CHOLMOD */
    cholmod_common cm;
    int cm_started;
    cholmod_sparse *M; /* q x q, upper triangle (stype 1) */
    int *mpos;         /* n x s(s+1)/2: where row i adds to M->x */
    int *mdiag;        /* q: the diagonal of M in M->x */
    cholmod_factor *L;
    cholmod_dense *B, *Xs, *Ys, *Es;  /* solve buffers, q x 1 */
    cholmod_dense *Bp, *Xp, *Yp, *Ep; /* q x p (the joint step) */
    int *pinv;      /* effect -> position in the factor (the identity
                    ** once the effects are renumbered) */
    int *spos;      /* n x s(s+1)/2: where Sigma_ab of row i is in L->x */
    int pos_ready;  /* spos computed for the factor's pattern */
    void *pos_x;    /* L->x when spos was computed */
    double *sigma;  /* selected inverse of M, parallel to L->x */
    int *run;       /* parallel to L->x: for the entry of row R[a] in
                    ** column j, where in column R[a] the rows R[a+1..]
                    ** of column j follow one another, or -1 */
    size_t n_sigma; /* the size of both (L->nzmax) */
    double *tk;     /* q: Takahashi accumulator */
    double *hm;     /* n x s: M^-1 g_i on supp */
    double *h;      /* n: g_i' M^-1 g_i */
    double *sv, *v; /* q: the adjoint right-hand side and solution */
    double *S;      /* p x p: Schur complement X'WX - X'WG M^-1 G'WX */
    double *dudx;   /* n_par x q: derivatives of the modes (predictor) */
    double *pbuf;   /* 4 p + p x p scratch */
    int n_evals;
};

/* Sets Lambda and the rows of G from theta (n_theta values). */
void glmm_set_theta(GlmmWork *w, const double *theta);

/* Conditional modes u for the current theta and fixed effects beta (PIRLS,
** warm-started at w->u): leaves w->u, eta, mu, w, res, pdev, ldl2 and the
** factor at the mode. Returns the Laplace deviance pdev + ldl2, or NAN
** when CHOLMOD fails. */
double glmm_pirls(GlmmWork *w, const double *beta);

/* Joint modes (u, beta) for the current theta (lme4's nAGQ = 0 step):
** beta in/out. Returns pdev + ldl2 at the joint mode, or NAN. */
double glmm_pirls_joint(GlmmWork *w, double *beta);

/* After glmm_pirls(): the gradient of the Laplace deviance in (theta,
** beta) into grad (n_par values). Returns 0, or -1 when CHOLMOD fails. */
int glmm_gradient(GlmmWork *w, double *grad);

/* After glmm_pirls(): the derivatives of the modes u in each of the
** n_par parameters into w->dudx, so that glmm_predict() can start the
** next PIRLS close to its mode. Returns 0, or -1 when CHOLMOD fails. */
int glmm_mode_derivatives(GlmmWork *w);

/* w->u = u0 + sum_j dx_j dudx_j (the first-order prediction of the modes
** at x + dx from the point where dudx was taken, whose modes are u0). */
void glmm_predict(GlmmWork *w, const double *u0, const double *dx);

/* After glmm_pirls(): w->S = X'WX - X'WG M^-1 G'WX (p x p, the fixed
** effects' block of the penalised system; its inverse is lme4's RX-based
** covariance). Returns 0, or -1 when CHOLMOD fails. */
int glmm_schur(GlmmWork *w);

#endif
