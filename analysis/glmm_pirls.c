/*
** The Laplace deviance of a logistic mixed model and its gradient: PIRLS
** for the conditional modes on the factor of M = G'WG + I (glmm_block.c
** or glmm_cholmod.c), the selected inverse of M and the adjoint of the
** mode equation for the exact gradient in (theta, beta). The passes over
** the rows run as chunks on the fit's threads (glmm_pool.c); sums over
** rows are added chunk by chunk in order, so no result depends on the
** number of threads. The optimisation that uses them is in glmm_fit.c.
*/
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

/* PIRLS: the Newton decrement (the predicted fall of the penalised
** deviance, at least |step|^2) decides. Below TOL_DEC the modes are exact
** to rounding; below TOL_APPLY the last step is taken without a new
** factorisation (the factor is then off by |step| < 1e-7); below
** TOL_CHECKED full steps are taken without checking that the deviance
** fell (the quadratic model holds there). The first stage needs less. */
#define TOL_DEC       1e-20
#define TOL_APPLY     1e-14
#define TOL_CHECKED   1e-2
#define TOL_DEC_JOINT 1e-3
#define MAX_PIRLS     60

int glmm_term_n_theta(const GlmmTerm *t)
{
    return t->diagonal ? t->k : t->k * (t->k + 1) / 2;
}

int glmm_n_theta(const GlmmModel *m)
{
    int n = 0;
    for (int t = 0; t < m->n_terms; t++) {
        n += glmm_term_n_theta(&m->term[t]);
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Backends                                                             */

int glmm_solve(GlmmWork *w, const double *b, double *x, int ncol)
{
    return w->blk ? glmm_block_solve(w, b, x, ncol)
                  : glmm_chol_solve(w, b, x, ncol);
}

int glmm_selinv(GlmmWork *w)
{
    return w->blk ? glmm_block_selinv(w) : glmm_chol_selinv(w);
}

/* ------------------------------------------------------------------ */
/* Passes                                                               */

/* What a pass's chunks read and write. */
typedef struct Pass {
    GlmmWork *w;
    const double *u; /* modes (eta) */
    double *out;     /* scatter: ncol columns of q */
    int ncol;
    int with_dev; /* eta: the deviance too */
    int failed;
} Pass;

/* Where chunk t's scatter adds effect e of column col: B's effects into
** out, the others into the chunk's buffer (CHOLMOD: out alone). */
typedef struct Dst {
    double *out, *rest;
    size_t q, qr;
    int qb;
} Dst;

static inline double *at(const Dst *d, int col, int e)
{
    return e < d->qb ? d->out + (size_t)col * d->q + (size_t)e
                     : d->rest + (size_t)col * d->qr + (size_t)(e - d->qb);
}

static Dst dst_of(const GlmmWork *w, double *out, int t, int ncol)
{
    Dst d;
    d.out = out;
    d.q = (size_t)w->q;
    if (w->blk) {
        d.qb = w->blk->nb * w->blk->kb;
        d.qr = (size_t)w->blk->qr;
        d.rest = w->rbuf + (size_t)t * (size_t)ncol * d.qr;
        memset(d.rest, 0, (size_t)ncol * d.qr * sizeof(double));
    } else {
        d.qb = 0;
        d.qr = d.q;
        d.rest = out;
    }
    return d;
}

/* Runs a scatter pass: out (ncol columns of q) zeroed, fn over the
** chunks, their buffers of R's sums added in chunk order. */
static void scatter(GlmmWork *w, void (*fn)(void *ctx, int t), Pass *ps)
{
    memset(ps->out, 0, (size_t)ps->ncol * (size_t)w->q * sizeof(double));
    glmm_pool_run(w->pool, fn, ps, w->scatter);
    if (!w->blk) {
        return;
    }
    size_t qr = (size_t)w->blk->qr, qb = (size_t)(w->blk->nb * w->blk->kb);
    for (int t = 0; t < w->scatter; t++) {
        const double *rest = w->rbuf + (size_t)t * (size_t)ps->ncol * qr;
        for (int c = 0; c < ps->ncol; c++) {
            double *o = ps->out + (size_t)c * (size_t)w->q + qb;
            for (size_t e = 0; e < qr; e++) {
                o[e] += rest[(size_t)c * qr + e];
            }
        }
    }
}

/* The rows of chunk t of a scatter pass (all rows with CHOLMOD's). */
static void rows_of(const GlmmWork *w, int t, size_t *r0, size_t *r1)
{
    *r0 = w->blk ? w->chunk[t] : 0;
    *r1 = w->blk ? w->chunk[t + 1] : (size_t)w->n;
}

/* Sums the first k partial sums of the chunks, in chunk order. */
static void sum_parts(const GlmmWork *w, int k, double *out)
{
    for (int j = 0; j < k; j++) {
        out[j] = 0;
    }
    for (int t = 0; t < w->n_chunks; t++) {
        const double *pt = w->part + (size_t)t * (size_t)w->part_n;
        for (int j = 0; j < k; j++) {
            out[j] += pt[j];
        }
    }
}

/* G's rows from Lambda (s: w->s, a constant for the common shapes). */
static inline __attribute__((always_inline)) void theta_pass(Pass *ps, int t,
                                                             const int s)
{
    GlmmWork *w = ps->w;
    const GlmmModel *m = w->m;
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        double *gi = w->g + i * (size_t)s;
        const double *zi = w->zs + i * (size_t)s;
        for (int tt = 0; tt < m->n_terms; tt++) {
            const double *lam = w->lam[tt];
            int k = m->term[tt].k, z0 = w->z_at[tt];
            for (int b = 0; b < k; b++) {
                double x = 0;
                for (int a = b; a < k; a++) {
                    x += zi[z0 + a] * lam[a * k + b];
                }
                gi[z0 + b] = x;
            }
        }
    }
}

/* theta_pass() for simlab's models (w->shape kb): B's kb columns, then the
** other term's intercept. */
static inline __attribute__((always_inline)) void theta_simple(Pass *ps, int t,
                                                               const int kb)
{
    GlmmWork *w = ps->w;
    const double *l0 = w->lam[0];
    double li = w->lam[1][0];
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        double *gi = w->g + i * (size_t)(kb + 1);
        const double *zi = w->zs + i * (size_t)(kb + 1);
        if (kb == 1) {
            gi[0] = zi[0] * l0[0];
        } else {
            gi[0] = zi[0] * l0[0] + zi[1] * l0[2];
            gi[1] = zi[1] * l0[3];
        }
        gi[kb] = zi[kb] * li;
    }
}

static void theta_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    if (ps->w->shape == 1) {
        theta_simple(ps, t, 1);
    } else if (ps->w->shape == 2) {
        theta_simple(ps, t, 2);
    } else {
        theta_pass(ps, t, ps->w->s);
    }
}

void glmm_set_theta(GlmmWork *w, const double *theta)
{
    const GlmmModel *m = w->m;
    size_t nt = (size_t)w->n_theta * sizeof(double);
    if (w->theta_valid && memcmp(theta, w->theta_set, nt) == 0) {
        return; /* G is that of theta already */
    }
    memcpy(w->theta_set, theta, nt);
    w->theta_valid = 1;
    for (int t = 0; t < m->n_terms; t++) {
        const GlmmTerm *tm = &m->term[t];
        int k = tm->k;
        double *lam = w->lam[t];
        const double *th = theta + w->th_off[t];
        memset(lam, 0, sizeof w->lam[t]);
        int at = 0;
        for (int b = 0; b < k; b++) {
            int last = tm->diagonal ? b + 1 : k; /* rows b..last-1 */
            for (int a = b; a < last; a++) {
                lam[a * k + b] = th[at++];
            }
        }
    }
    Pass ps = {w, NULL, NULL, 0, 0, 0};
    glmm_pool_run(w->pool, theta_rows, &ps, w->n_chunks);
}

static void compute_xb(GlmmWork *w, const double *beta)
{
    for (int r = 0; r < w->n_xr; r++) {
        double x = 0;
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            x += w->xr_v[k] * beta[w->xr_j[k]];
        }
        w->xbr[r] = x;
    }
}

static void eta_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    double dev = 0;
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        dev += glmm_row_state(w, i, ps->u, ps->with_dev, w->s);
    }
    w->part[(size_t)t * (size_t)w->part_n] = dev;
}

static void score_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    Dst d = dst_of(w, ps->out, t, 1);
    size_t s = (size_t)w->s, r0, r1;
    rows_of(w, t, &r0, &r1);
    for (size_t i = r0; i < r1; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        for (size_t a = 0; a < s; a++) {
            *at(&d, 0, si[a]) += gi[a] * w->res[i];
        }
    }
}

int glmm_state(GlmmWork *w, const double *u, int flags)
{
    int rc = 0;
    w->stale = 0;
    if (flags & GLMM_FACTOR) {
        w->factored = 0;
    }
    if (w->blk) {
        rc = glmm_block_state(w, u, flags);
    } else {
        Pass ps = {w, u, NULL, 0, flags & GLMM_DEV, 0};
        glmm_pool_run(w->pool, eta_rows, &ps, w->n_chunks);
        sum_parts(w, 1, &w->dev);
        w->dev *= 2;
        if (flags & GLMM_SCORE) { /* rhs = G' (y - mu) - u */
            Pass sc = {w, NULL, w->rhs, 1, 0, 0};
            scatter(w, score_rows, &sc);
            for (int j = 0; j < w->q; j++) {
                w->rhs[j] -= u[j];
            }
        }
        rc = flags & GLMM_FACTOR ? glmm_chol_factor(w) : 0;
    }
    w->dev_valid = rc == 0 && (flags & GLMM_DEV);
    if (flags & GLMM_FACTOR) {
        w->factored = rc == 0;
    }
    return rc;
}

/* The Bernoulli deviance at the state's eta plus |u|^2 (the state must be
** that of u). */
static double pen_deviance(GlmmWork *w, const double *u)
{
    if (!w->dev_valid) {
        glmm_state(w, u, GLMM_DEV);
    }
    double uu = 0;
    for (int j = 0; j < w->q; j++) {
        uu += u[j] * u[j];
    }
    return w->dev + uu;
}

/* One deviance evaluation more (GlmmModel.progress). */
static void count_eval(GlmmWork *w)
{
    w->n_evals++;
    if (w->m->progress) {
        w->m->progress(w->m->progress_ctx, w->n_evals);
    }
}

double glmm_pirls(GlmmWork *w, const double *beta, int lazy)
{
    int q = w->q;
    count_eval(w);
    memcpy(w->beta, beta, (size_t)w->p * sizeof(double));
    compute_xb(w, beta);
    double pdev = NAN; /* computed when a step must be checked */
    double *delta = w->u2, *trial = w->ut;
    if (glmm_state(w, w->u, GLMM_FACTOR | GLMM_SCORE) != 0) {
        return NAN;
    }
    for (int it = 0; it < MAX_PIRLS; it++) {
        if (glmm_solve(w, w->rhs, delta, 1) != 0) {
            return NAN;
        }
        double dec = 0;
        for (int j = 0; j < q; j++) {
            dec += w->rhs[j] * delta[j];
        }
        if (!(dec > TOL_DEC)) {
            break; /* the factor and state are at the mode */
        }
        if (dec < TOL_CHECKED) {
            for (int j = 0; j < q; j++) {
                w->u[j] += delta[j];
            }
            pdev = NAN;
            if (dec < TOL_APPLY) { /* the factor stays */
                if (lazy) {
                    w->stale = 1; /* glmm_gradient()'s first pass */
                    return 0;
                }
                glmm_state(w, w->u, GLMM_DEV);
                break;
            }
            if (glmm_state(w, w->u, GLMM_FACTOR | GLMM_SCORE) != 0) {
                return NAN;
            }
            continue;
        }
        if (isnan(pdev)) {
            pdev = pen_deviance(w, w->u);
        }
        double step = 1, got = NAN;
        for (int half = 0; half < 40; half++, step /= 2) {
            for (int j = 0; j < q; j++) {
                trial[j] = w->u[j] + step * delta[j];
            }
            if (glmm_state(w, trial, GLMM_DEV | GLMM_FACTOR | GLMM_SCORE) !=
                0) {
                return NAN;
            }
            got = pen_deviance(w, trial);
            if (got <= pdev + 1e-13 * fabs(pdev)) {
                break;
            }
        }
        if (!(got <= pdev + 1e-13 * fabs(pdev))) {
            /* no progress: stay */
            if (glmm_state(w, w->u, GLMM_DEV | GLMM_FACTOR | GLMM_SCORE) != 0) {
                return NAN;
            }
            break;
        }
        memcpy(w->u, trial, (size_t)q * sizeof(double));
        pdev = got;
    }
    w->pdev = pen_deviance(w, w->u);
    return w->pdev + w->ldl2;
}

/* ------------------------------------------------------------------ */
/* The fixed effects' block                                             */

static void bp_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    Dst d = dst_of(w, ps->out, t, w->p);
    size_t s = (size_t)w->s, r0, r1;
    rows_of(w, t, &r0, &r1);
    for (size_t i = r0; i < r1; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        int r = w->xrow[i];
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            double wx = w->w[i] * w->xr_v[k];
            for (size_t a = 0; a < s; a++) {
                *at(&d, w->xr_j[k], si[a]) += gi[a] * wx;
            }
        }
    }
}

static void xw_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    double *xw = w->xw + (size_t)t * (size_t)w->n_xr;
    memset(xw, 0, (size_t)w->n_xr * sizeof(double));
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        xw[w->xrow[i]] += w->w[i];
    }
}

/* S = X'WX (lower and upper). */
static void xwx(GlmmWork *w, double *S)
{
    size_t p = (size_t)w->p;
    memset(S, 0, p * p * sizeof(double));
    if (w->xw) { /* by distinct rows: their weight sums */
        Pass ps = {w, NULL, NULL, 0, 0, 0};
        glmm_pool_run(w->pool, xw_rows, &ps, w->n_chunks);
        for (int r = 0; r < w->n_xr; r++) {
            double ws = 0;
            for (int t = 0; t < w->n_chunks; t++) {
                ws += w->xw[(size_t)t * (size_t)w->n_xr + (size_t)r];
            }
            for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
                double wx = ws * w->xr_v[k];
                for (size_t l = w->xr_off[r]; l < w->xr_off[r + 1]; l++) {
                    S[(size_t)w->xr_j[k] * p + (size_t)w->xr_j[l]] +=
                        wx * w->xr_v[l];
                }
            }
        }
        return;
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        int r = w->xrow[i];
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            double wx = w->w[i] * w->xr_v[k];
            for (size_t l = w->xr_off[r]; l < w->xr_off[r + 1]; l++) {
                S[(size_t)w->xr_j[k] * p + (size_t)w->xr_j[l]] +=
                    wx * w->xr_v[l];
            }
        }
    }
}

int glmm_schur(GlmmWork *w)
{
    size_t q = (size_t)w->q, p = (size_t)w->p;
    Pass ps = {w, NULL, w->bp, w->p, 0, 0};
    scatter(w, bp_rows, &ps);
    xwx(w, w->S);
    if (glmm_solve(w, w->bp, w->xp, w->p) != 0) {
        return -1;
    }
    double *S = w->S;
    const double *bp = w->bp, *xp = w->xp;
    for (size_t j = 0; j < p; j++) {
        for (size_t k = 0; k <= j; k++) {
            double x = 0;
            for (size_t r = 0; r < q; r++) {
                x += bp[j * q + r] * xp[k * q + r];
            }
            S[j * p + k] -= x;
            S[k * p + j] = S[j * p + k];
        }
    }
    return 0;
}

/* Solves the p x p positive definite system S x = b in place (GSL's
** modified Cholesky, which does not fail on a matrix that rounding made
** indefinite). */
static void solve_small(const double *S, int p, double *b, double *work)
{
    size_t n = (size_t)p;
    double *a = work, *perm_e = work + n * n;
    memcpy(a, S, n * n * sizeof(double));
    gsl_matrix_view A = gsl_matrix_view_array(a, n, n);
    gsl_vector_view E = gsl_vector_view_array(perm_e, n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    if (!perm) {
        for (size_t j = 0; j < n; j++) {
            b[j] = NAN;
        }
        return;
    }
    gsl_vector_view B = gsl_vector_view_array(b, n);
    gsl_linalg_mcholesky_decomp(&A.matrix, perm, &E.vector);
    gsl_linalg_mcholesky_svx(&A.matrix, perm, &B.vector);
    gsl_permutation_free(perm);
}

static void xres_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    double *rb = w->part + (size_t)t * (size_t)w->part_n;
    memset(rb, 0, (size_t)w->p * sizeof(double));
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        int r = w->xrow[i];
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            rb[w->xr_j[k]] += w->xr_v[k] * w->res[i];
        }
    }
}

double glmm_pirls_joint(GlmmWork *w, double *beta)
{
    size_t q = (size_t)w->q, p = (size_t)w->p;
    count_eval(w);
    compute_xb(w, beta);
    double pdev = NAN;
    double *du = w->u2, *rb = w->pbuf, *db = rb + p, *b0 = db + p,
           *work = b0 + p, *trial = w->ut;
    if (glmm_state(w, w->u, GLMM_FACTOR | GLMM_SCORE) != 0) {
        return NAN;
    }
    for (int it = 0; it < MAX_PIRLS; it++) {
        if (glmm_schur(w) != 0) {
            return NAN;
        }
        Pass ps = {w, NULL, NULL, 0, 0, 0};
        glmm_pool_run(w->pool, xres_rows, &ps, w->n_chunks);
        sum_parts(w, w->p, rb);
        if (glmm_solve(w, w->rhs, du, 1) != 0) {
            return NAN;
        }
        /* db = S^-1 (rb - B' M^-1 rhs); du = M^-1 rhs - M^-1 B db */
        const double *bp = w->bp, *xp = w->xp;
        for (size_t j = 0; j < p; j++) {
            double x = 0;
            for (size_t r = 0; r < q; r++) {
                x += bp[j * q + r] * du[r];
            }
            db[j] = rb[j] - x;
        }
        solve_small(w->S, w->p, db, work);
        for (size_t j = 0; j < p; j++) {
            for (size_t r = 0; r < q; r++) {
                du[r] -= xp[j * q + r] * db[j];
            }
        }
        double dec = 0;
        for (size_t r = 0; r < q; r++) {
            dec += w->rhs[r] * du[r];
        }
        for (size_t j = 0; j < p; j++) {
            dec += rb[j] * db[j];
        }
        if (!(dec > TOL_DEC_JOINT)) {
            break;
        }
        if (dec < TOL_CHECKED) {
            for (size_t r = 0; r < q; r++) {
                w->u[r] += du[r];
            }
            for (size_t j = 0; j < p; j++) {
                beta[j] += db[j];
            }
            compute_xb(w, beta);
            if (glmm_state(w, w->u, GLMM_FACTOR | GLMM_SCORE) != 0) {
                return NAN;
            }
            pdev = NAN;
            continue;
        }
        if (isnan(pdev)) {
            pdev = pen_deviance(w, w->u);
        }
        memcpy(b0, beta, p * sizeof(double));
        double step = 1, got = NAN;
        for (int half = 0; half < 40; half++, step /= 2) {
            for (size_t r = 0; r < q; r++) {
                trial[r] = w->u[r] + step * du[r];
            }
            for (size_t j = 0; j < p; j++) {
                beta[j] = b0[j] + step * db[j];
            }
            compute_xb(w, beta);
            if (glmm_state(w, trial, GLMM_DEV | GLMM_FACTOR | GLMM_SCORE) !=
                0) {
                return NAN;
            }
            got = pen_deviance(w, trial);
            if (got <= pdev + 1e-13 * fabs(pdev)) {
                break;
            }
        }
        if (!(got <= pdev + 1e-13 * fabs(pdev))) {
            memcpy(beta, b0, p * sizeof(double));
            compute_xb(w, beta);
            if (glmm_state(w, w->u, GLMM_DEV | GLMM_FACTOR | GLMM_SCORE) != 0) {
                return NAN;
            }
            break;
        }
        memcpy(w->u, trial, q * sizeof(double));
        pdev = got;
    }
    memcpy(w->beta, beta, p * sizeof(double));
    w->pdev = pen_deviance(w, w->u);
    return w->pdev + w->ldl2;
}

/* ------------------------------------------------------------------ */
/* The gradient                                                         */

/* First pass (CHOLMOD's factor; glmm_block_sigma() for the blocked): h_i =
** g_i' M^-1 g_i, hm_i = M^-1 g_i on the row's support, and sv = G' (w' h)
** (w' = w (1 - 2 mu)). */
static void sigma_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    Dst d = dst_of(w, ps->out, t, 1);
    size_t s = (size_t)w->s, r0, r1;
    rows_of(w, t, &r0, &r1);
    double sl[GLMM_MAX_TERMS * GLMM_MAX_K * GLMM_MAX_TERMS * GLMM_MAX_K];
    for (size_t i = r0; i < r1; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        double *hm = w->hm + i * s;
        glmm_chol_row_sigma(w, i, sl);
        double h = 0;
        for (size_t a = 0; a < s; a++) {
            double x = 0;
            for (size_t b = 0; b < s; b++) {
                x += sl[a * s + b] * gi[b];
            }
            hm[a] = x;
            h += gi[a] * x;
        }
        w->h[i] = h;
        double wd = w->w[i] * (1 - 2 * w->mu[i]) * h;
        for (size_t a = 0; a < s; a++) {
            *at(&d, 0, si[a]) += gi[a] * wd;
        }
    }
}

/* Second pass: the gradient's sums over rows into the chunk's part (s:
** w->s, a constant for the common shapes). */
static inline __attribute__((always_inline)) void grad_pass(Pass *ps, int t,
                                                            const int s)
{
    GlmmWork *w = ps->w;
    const GlmmModel *m = w->m;
    double *grad = w->part + (size_t)t * (size_t)w->part_n;
    memset(grad, 0, (size_t)w->n_par * sizeof(double));
    double *gb = grad + w->n_theta;
    const double *u = w->u, *v = w->v;
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        const double *gi = w->g + i * (size_t)s, *zi = w->zs + i * (size_t)s;
        const int *si = w->supp + i * (size_t)s;
        double gv = 0;
        for (int a = 0; a < s; a++) {
            gv += gi[a] * v[si[a]];
        }
        double wi = w->w[i], ri = w->res[i];
        double c = -2 * ri + wi * (1 - 2 * w->mu[i]) * w->h[i] - wi * gv;
        int r = w->xrow[i];
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            gb[w->xr_j[k]] += w->xr_v[k] * c;
        }
        const double *hm = w->hm + i * (size_t)s;
        for (int tt = 0; tt < m->n_terms; tt++) {
            const GlmmTerm *tm = &m->term[tt];
            int k = tm->k, z0 = w->z_at[tt];
            const int *st = si + z0; /* the term's effects */
            double *gt = grad + w->th_off[tt];
            int n_at = 0;
            for (int b = 0; b < k; b++) {
                double cb = c * u[st[b]] + ri * v[st[b]] + 2 * wi * hm[z0 + b];
                for (int a = b; a < (tm->diagonal ? b + 1 : k); a++) {
                    gt[n_at++] += zi[z0 + a] * cb;
                }
            }
        }
    }
}

/* grad_pass() for simlab's models (w->shape kb; diag: B's term without
** correlations): the sums of the fixed effects' gradient per distinct row
** of X first (w->xw), when there are few. */
static inline __attribute__((always_inline)) void
grad_simple(Pass *ps, int t, const int kb, const int diag)
{
    GlmmWork *w = ps->w;
    const int s = kb + 1;
    double *grad = w->part + (size_t)t * (size_t)w->part_n;
    memset(grad, 0, (size_t)w->n_par * sizeof(double));
    double *gb = grad + w->n_theta;
    double *cx = w->xw ? w->xw + (size_t)t * (size_t)w->n_xr : NULL;
    if (cx) {
        memset(cx, 0, (size_t)w->n_xr * sizeof(double));
    }
    const double *u = w->u, *v = w->v;
    double t0 = 0, t1 = 0, t2 = 0, ti = 0; /* B's theta, the item's */
    for (size_t i = w->chunk[t]; i < w->chunk[t + 1]; i++) {
        const double *gi = w->g + i * (size_t)s, *zi = w->zs + i * (size_t)s;
        const double *hm = w->hm + i * (size_t)s;
        const int *si = w->supp + i * (size_t)s;
        double gv = 0;
        for (int a = 0; a < s; a++) {
            gv += gi[a] * v[si[a]];
        }
        double wi = w->w[i], ri = w->res[i];
        double c = -2 * ri + wi * (1 - 2 * w->mu[i]) * w->h[i] - wi * gv;
        int r = w->xrow[i];
        if (cx) {
            cx[r] += c;
        } else {
            for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
                gb[w->xr_j[k]] += w->xr_v[k] * c;
            }
        }
        double cb[3];
        for (int a = 0; a < s; a++) {
            cb[a] = c * u[si[a]] + ri * v[si[a]] + 2 * wi * hm[a];
        }
        t0 += zi[0] * cb[0];
        if (kb == 2 && !diag) {
            t1 += zi[1] * cb[0];
            t2 += zi[1] * cb[1];
        } else if (kb == 2) {
            t1 += zi[1] * cb[1];
        }
        ti += zi[kb] * cb[kb];
    }
    grad[0] = t0;
    if (kb == 2) {
        grad[1] = t1;
        if (!diag) {
            grad[2] = t2;
        }
    }
    grad[w->th_off[1]] = ti;
    for (int r = 0; cx && r < w->n_xr; r++) {
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            gb[w->xr_j[k]] += w->xr_v[k] * cx[r];
        }
    }
}

static void grad_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    int diag = w->m->term[0].diagonal;
    if (w->shape == 1) {
        grad_simple(ps, t, 1, 0);
    } else if (w->shape == 2 && !diag) {
        grad_simple(ps, t, 2, 0);
    } else if (w->shape == 2) {
        grad_simple(ps, t, 2, 1);
    } else {
        grad_pass(ps, t, w->s);
    }
}

int glmm_gradient(GlmmWork *w, double *grad)
{
    if (glmm_selinv(w) != 0) {
        return -1;
    }
    Pass ps = {w, NULL, w->sv, 1, 0, 0};
    int stale = w->stale;
    if (w->blk) {
        glmm_block_sigma(w, stale);
    } else {
        if (stale) {
            glmm_state(w, w->u, GLMM_DEV);
        }
        scatter(w, sigma_rows, &ps);
    }
    if (stale) {
        w->stale = 0;
        w->dev_valid = 1;
        w->pdev = pen_deviance(w, w->u);
    }
    if (glmm_solve(w, w->sv, w->v, 1) != 0) {
        return -1;
    }
    glmm_pool_run(w->pool, grad_rows, &ps, w->n_chunks);
    sum_parts(w, w->n_par, grad);
    return 0;
}

static void dudx_rows(void *ctx, int t)
{
    Pass *ps = ctx;
    GlmmWork *w = ps->w;
    const GlmmModel *m = w->m;
    Dst d = dst_of(w, ps->out, t, w->n_par);
    size_t s = (size_t)w->s, r0, r1;
    rows_of(w, t, &r0, &r1);
    int nt = w->n_theta;
    const double *u = w->u;
    for (size_t i = r0; i < r1; i++) {
        const double *gi = w->g + i * s, *zi = w->zs + i * s;
        const int *si = w->supp + i * s;
        double wi = w->w[i], ri = w->res[i];
        /* beta_j: -G'W X_j */
        int r = w->xrow[i];
        for (size_t k = w->xr_off[r]; k < w->xr_off[r + 1]; k++) {
            int col = nt + w->xr_j[k];
            double f = -wi * w->xr_v[k];
            for (size_t a = 0; a < s; a++) {
                *at(&d, col, si[a]) += gi[a] * f;
            }
        }
        /* theta (a, b) of term t: A' r - G'W A u, A = Z dLambda */
        for (int tt = 0; tt < m->n_terms; tt++) {
            const GlmmTerm *tm = &m->term[tt];
            int z0 = w->z_at[tt];
            const int *st = si + z0;
            int col = w->th_off[tt];
            for (int b = 0; b < tm->k; b++) {
                int last = tm->diagonal ? b + 1 : tm->k;
                for (int a = b; a < last; a++, col++) {
                    double za = zi[z0 + a];
                    *at(&d, col, st[b]) += za * ri;
                    double f = -wi * za * u[st[b]];
                    for (size_t c = 0; c < s; c++) {
                        *at(&d, col, si[c]) += gi[c] * f;
                    }
                }
            }
        }
    }
}

int glmm_mode_derivatives(GlmmWork *w)
{
    Pass ps = {w, NULL, w->dudx, w->n_par, 0, 0};
    scatter(w, dudx_rows, &ps);
    return glmm_solve(w, w->dudx, w->dudx, w->n_par);
}

void glmm_predict(GlmmWork *w, const double *u0, const double *dx)
{
    size_t q = (size_t)w->q;
    memcpy(w->u, u0, q * sizeof(double));
    for (int j = 0; j < w->n_par; j++) {
        if (dx[j] != 0) {
            const double *col = w->dudx + (size_t)j * q;
            for (size_t r = 0; r < q; r++) {
                w->u[r] += dx[j] * col[r];
            }
        }
    }
}
