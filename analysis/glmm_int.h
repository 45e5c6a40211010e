/*
** Internal to the GLMM fit (glmm_work.c, glmm_pirls.c, glmm_block.c,
** glmm_cholmod.c, glmm_pool.c, glmm_fit.c): the workspace that holds the
** design in the form the passes need, the current conditional modes and
** the factor of M. Not for callers outside them.
*/
#ifndef SIMLAB_ANALYSIS_GLMM_INT_H
#define SIMLAB_ANALYSIS_GLMM_INT_H

#include <math.h>
#include <stddef.h>

#include "analysis/glmm.h"

/* ------------------------------------------------------------------ */
/* Passes over the rows on the fit's threads (glmm_pool.c)             */

/* Worker threads that run the tasks of one pass; the caller's thread
** takes tasks too. Which thread runs a task never changes a result: the
** tasks are fixed by the data (the chunks below), and partial sums are
** added in task order. */
typedef struct GlmmPool GlmmPool;

/* threads <= 1: *out is NULL and passes run on the caller's thread.
** Returns 0, or -1 when a thread could not start (then *out is NULL). */
int glmm_pool_open(int threads, GlmmPool **out);
void glmm_pool_close(GlmmPool *p); /* NULL is a no-op */

/* Runs fn(ctx, t) for t = 0..n_tasks-1 and returns when all are done. */
void glmm_pool_run(GlmmPool *p, void (*fn)(void *ctx, int t), void *ctx,
                   int n_tasks);

/* ------------------------------------------------------------------ */
/* The factor of M                                                      */

/* The blocked factor (glmm_block.c), for a term B with many levels (the
** one with the most effects) and few other effects R (the other terms',
** at most GLMM_DENSE_MAX): with B's effects first,
**     M = [A  C'; C  D],  A block diagonal (kb x kb per level of B: a row
**     has one level of B), L = [L_A 0; C L_A^-T  L_S],
** L_S the dense Cholesky factor of S = D - C A^-1 C'. C is stored per
** level of B on the R effects its rows have (sorted: lev_r). */
#define GLMM_DENSE_MAX 1200

typedef struct GlmmBlock {
    int kb;          /* effects per level of B */
    int nb;          /* levels of B */
    int qr;          /* R effects (numbered qb = nb kb .. q-1 in u) */
    size_t *lev_row; /* nb + 1: the rows of level j (rows are sorted by
                     ** their level of B) */
    size_t *lev_rp;  /* nb + 1: level j's R effects are
                     ** lev_r[lev_rp[j] .. lev_rp[j+1]) */
    int *lev_r;      /* R effects (0..qr-1), increasing per level */
    int *row_slot;   /* n x (s - kb): a row's R columns as positions in its
                     ** level's list */
    double *la;      /* nb x kb x kb: Cholesky factor of A_j (row-major,
                     ** lower) */
    double *lc;      /* kb x m_j per level at kb lev_rp[j]: C_j L_j^-T,
                     ** column c of it contiguous */
    double *dd;      /* lev_rp[nb]: the R diagonal's sums per level */
    double *ls;      /* qr x qr: S, then its Cholesky factor (lower) */
    double *sig_rr;  /* qr x qr: the R block of M^-1 (full) */
    double *sig_rb;  /* as lc: the (R, B) block of M^-1 on C's pattern */
    double *sig_bb;  /* nb x kb x kb: the diagonal blocks of M^-1 */
    double *tmp;     /* solves: qr per right-hand side */
    int dense;       /* every level has every R effect: lc is a matrix of
                     ** nb kb rows of qr (glmm_dense.c's products) */
    int row_tasks;   /* tasks of the S update (bands of its rows) */
    int *band;       /* row_tasks + 1: the bands' first rows */
} GlmmBlock;

/* The CHOLMOD factor (glmm_cholmod.c): simplicial LDL' of M in the
** fill-reducing order AMD chose, for designs the blocked factor does not
** take; its selected inverse by Takahashi's recurrence. */
typedef struct GlmmChol GlmmChol;

/* Notation as lme4's: eta = X beta + Z Lambda u, u spherical; G = Z Lambda
** (n x q, s nonzeros per row: the effects of the row's levels); M = G' W G
** + I. The rows are sorted by their level of the term with the most
** effects (B) and cut into chunks of whole levels: the tasks of a pass. */
struct GlmmWork {
    const GlmmModel *m;
    int n, p, q, s, n_theta, n_par;
    int off[GLMM_MAX_TERMS];    /* first effect (index into u) of a term */
    int th_off[GLMM_MAX_TERMS]; /* first theta of a term */
    int z_at[GLMM_MAX_TERMS];   /* first supp slot of a term in a row */
    int big;                    /* B: the term the rows are sorted by */
    int shape; /* 1 or 2: simlab's models (B first with that many columns,
               ** then one term without slopes): the passes' specialised
               ** code; 0: any other */
    double lam[GLMM_MAX_TERMS][GLMM_MAX_K * GLMM_MAX_K]; /* Lambda */
    /* the theta that G was computed for (the differences of the Hessian
    ** in beta keep it) */
    double theta_set[GLMM_MAX_TERMS * GLMM_MAX_K * (GLMM_MAX_K + 1) / 2];
    int theta_valid;
    /* rows, sorted */
    size_t *order;  /* n: the model's row of row i */
    uint8_t *y;     /* n: the responses being fitted */
    int *supp;      /* n x s: the effects of row i */
    double *zs;     /* n x s: the covariate of each (1: intercepts) */
    double *g;      /* n x s: row i of G on supp */
    int *xrow;      /* n: the distinct row of X that row i has */
    int n_xr;       /* distinct rows of X */
    size_t *xr_off; /* n_xr + 1: where a distinct row's nonzeros start */
    int *xr_j;      /* their columns */
    double *xr_v;   /* their values */
    double *xbr;    /* n_xr: X beta of each distinct row */
    int n_chunks;   /* tasks of a pass */
    size_t *chunk;  /* n_chunks + 1: first row of each */
    int *chunk_lev; /* n_chunks + 1: first level of B of each (blocked) */
    double *part;   /* n_chunks x part_n: partial sums per task */
    int part_n;     /* n_par + p + 8 */
    double *xw;     /* n_chunks x n_xr: a chunk's weight sums per
                    ** distinct row of X (NULL: too many rows) */
    int scatter;    /* tasks of a pass that adds into q-vectors: chunks
                    ** (blocked: B's effects are a chunk's own, R's go
                    ** to its buffer), or 1 (CHOLMOD) */
    double *rbuf;   /* scatter x rbuf_cols x qr: the chunks' R sums */
    int rbuf_cols;
    double *u;  /* q: conditional modes (warm start of the next run) */
    double *u2; /* q: a PIRLS step */
    double *ut; /* q: trial modes */
    double *mu, *w, *res; /* n: mean, weight, y - mu */
    double *rhs;          /* q */
    double *beta;         /* p: the fixed effects of the last evaluation */
    double dev;           /* the Bernoulli deviance at the state's eta */
    int dev_valid;        /* dev is that of the state */
    int stale;            /* u took a step since the state (mu, w, res, dev) was
                          ** computed: glmm_gradient() computes it */
    double pdev;          /* deviance + |u|^2 at u */
    double ldl2;          /* log det M at the last factorisation */
    GlmmBlock *blk;       /* the factor: blocked, or */
    GlmmChol *chol;       /* CHOLMOD's */
    int factored;         /* a factor of M is held */
    double *hm;           /* n x s: M^-1 g_i on supp */
    double *h;            /* n: g_i' M^-1 g_i */
    double *sv, *v;       /* q: the adjoint right-hand side and solution */
    double *S;            /* p x p: Schur complement X'WX - X'WG M^-1 G'WX */
    double *bp, *xp;      /* q x p (column j at j q): G'WX, M^-1 G'WX */
    double *dudx;         /* n_par x q: derivatives of the modes (predictor) */
    double *pbuf;         /* 4 p + 2 p x p scratch */
    GlmmPool *pool;
    int n_evals;
};

/* What glmm_state() computes at the modes u besides eta, mu, the weights
** and the residuals. */
enum {
    GLMM_DEV = 1,    /* the deviance (w->dev) */
    GLMM_FACTOR = 2, /* M at the new weights, factored */
    GLMM_SCORE = 4   /* w->rhs = G'(y - mu) - u */
};

/* The state at u (eta, mu, w, res and what flags ask for) in one pass
** over the rows. Returns 0, or -1 when the factorisation fails. */
int glmm_state(GlmmWork *w, const double *u, int flags);

/* Row i's mu, weight and residual at u (s: w->s, a constant where the
** caller's shape is known); returns -log P(y_i | eta) with with_dev. */
static inline __attribute__((always_inline)) double
glmm_row_state(GlmmWork *w, size_t i, const double *u, int with_dev,
               const int s)
{
    const double *gi = w->g + i * (size_t)s;
    const int *si = w->supp + i * (size_t)s;
    double e = w->xbr[w->xrow[i]];
    for (int a = 0; a < s; a++) {
        e += gi[a] * u[si[a]];
    }
    double ex = exp(-fabs(e)), den = 1 + ex;
    double mu = e >= 0 ? 1 / den : ex / den;
    w->mu[i] = mu;
    w->w[i] = ex / (den * den);
    w->res[i] = w->y[i] - mu;
    if (!with_dev) {
        return 0;
    }
    /* without overflow (log1p is slower and no more exact in this sum) */
    double l1 = log(1 + ex);
    return w->y[i] ? (e >= 0 ? l1 : l1 - e) : (e >= 0 ? l1 + e : l1);
}

/* Backends: the blocked factor is set up when the design allows (returns
** 1), else CHOLMOD's. Each returns -1 when out of memory or when CHOLMOD
** fails. */
int glmm_block_new(GlmmWork *w);
void glmm_block_free(GlmmBlock *b);
int glmm_chol_new(GlmmWork *w);
void glmm_chol_free(GlmmChol *c);
int glmm_chol_status(const GlmmChol *c); /* CHOLMOD's last status */

/* x = M^-1 b for ncol right-hand sides (columns q apart; x may be b).
** Returns 0, or -1 when the solve fails. */
int glmm_solve(GlmmWork *w, const double *b, double *x, int ncol);

/* After a factorisation: the entries of M^-1 that the rows need. Returns 0,
** or -1. */
int glmm_selinv(GlmmWork *w);

/* The blocked state pass: per chunk of levels, the rows' state, and with
** GLMM_FACTOR each level's block assembled and factored, with
** GLMM_SCORE its score; then S and its factor. */
int glmm_block_state(GlmmWork *w, const double *u, int flags);
int glmm_block_solve(GlmmWork *w, const double *b, double *x, int ncol);
int glmm_block_selinv(GlmmWork *w);
/* After glmm_block_selinv(): w->h, w->hm and w->sv of the gradient's first
** pass (glmm_pirls.c) for the blocked factor; with_state: each row's state
** at w->u first, and w->dev. */
void glmm_block_sigma(GlmmWork *w, int with_state);

/* S[a][b] -= sum_r L[r][a] L[r][b] for a0 <= a < a1 (a < n), b <= a: L has
** nrows rows ld apart, S rows lds apart. Reads up to 7 values past a row
** of L (and past its end). */
void glmm_dense_syrk(const double *L, size_t ld, size_t nrows, int n, double *S,
                     size_t lds, int a0, int a1);

/* T[r][a] = sum_b A[b][a] L[r][b] for r0 <= r < r1 and a, b < n: A is n x n
** (rows lda apart; reads up to 7 values past a row and its end), L's rows
** ld apart, T's ldt apart. */
void glmm_dense_gemm(const double *A, size_t lda, int n, const double *L,
                     size_t ld, size_t r0, size_t r1, double *T, size_t ldt);
/* x[k] = exp(x[k]), log(x[k]) for k < n: four at a time with AVX2 where
** the processor has it (glibc's libmvec, within 4 ulp), else one by one. */
void glmm_dense_exp(double *x, int n);
void glmm_dense_log(double *x, int n);

/* M = G'WG + I at the state's weights, factored; sets w->ldl2 = log det
** M. Returns 0, or -1 when the factorisation fails. */
int glmm_chol_factor(GlmmWork *w);
int glmm_chol_solve(GlmmWork *w, const double *b, double *x, int ncol);
int glmm_chol_selinv(GlmmWork *w);
/* After glmm_chol_selinv(): the s x s block of M^-1 on row i's effects. */
void glmm_chol_row_sigma(const GlmmWork *w, size_t i, double *sl);

/* ------------------------------------------------------------------ */
/* The start of a large fit (glmm_sub.c)                                */

/* A fit of at least this many rows is large: it starts from a subsample
** (below), and its search's Hessians are forward differences throughout
** (glmm_fit.c). */
#define GLMM_LARGE_ROWS 60000

/* Fits w's model to every k-th level of its largest term when the data
** are large (and that subsample keeps every distinct row of X): *used = 1
** and sf holds the fit (free with glmm_fit_free()), *scale the ratio of
** the rows (the Hessians' ratio, roughly); else *used = 0. Returns
** SIM_OK, or the subsample fit's error. */
int glmm_sub_fit(GlmmWork *w, GlmmFit *sf, double *scale, int *used,
                 SimError *err);

/* ------------------------------------------------------------------ */
/* The deviance and its derivatives (glmm_pirls.c)                      */

/* Sets Lambda and the rows of G from theta (n_theta values). */
void glmm_set_theta(GlmmWork *w, const double *theta);

/* Conditional modes u for the current theta and fixed effects beta (PIRLS,
** warm-started at w->u): leaves w->u, mu, w, res, pdev, ldl2 and the
** factor at the mode. Returns the Laplace deviance pdev + ldl2, or NAN
** when the factorisation fails. lazy: the gradient follows, and the state
** at the modes' last tiny step may be left to its first pass (w->stale;
** then the deviance is w->pdev + w->ldl2 after glmm_gradient()). */
double glmm_pirls(GlmmWork *w, const double *beta, int lazy);

/* Joint modes (u, beta) for the current theta (lme4's nAGQ = 0 step):
** beta in/out. Returns pdev + ldl2 at the joint mode, or NAN. */
double glmm_pirls_joint(GlmmWork *w, double *beta);

/* After glmm_pirls(): the gradient of the Laplace deviance in (theta,
** beta) into grad (n_par values). Returns 0, or -1 when a solve fails. */
int glmm_gradient(GlmmWork *w, double *grad);

/* After glmm_pirls(): the derivatives of the modes u in each of the
** n_par parameters into w->dudx, so that glmm_predict() can start the
** next PIRLS close to its mode. Returns 0, or -1 when a solve fails. */
int glmm_mode_derivatives(GlmmWork *w);

/* w->u = u0 + sum_j dx_j dudx_j (the first-order prediction of the modes
** at x + dx from the point where dudx was taken, whose modes are u0). */
void glmm_predict(GlmmWork *w, const double *u0, const double *dx);

/* After glmm_pirls(): w->S = X'WX - X'WG M^-1 G'WX (p x p, the fixed
** effects' block of the penalised system; its inverse is lme4's RX-based
** covariance), w->bp = G'WX and w->xp = M^-1 G'WX. Returns 0, or -1. */
int glmm_schur(GlmmWork *w);

#endif
