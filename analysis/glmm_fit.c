/*
** Fitting a logistic mixed model as lme4's glmer(nAGQ = 1): stage 1
** minimises the deviance at the joint modes of (u, beta) over theta with
** NLopt's BOBYQA (bounded, derivative-free; lme4's nAGQ = 0 step); stage 2
** minimises the Laplace deviance over (theta, beta) jointly by quasi-Newton
** steps on its exact gradient (glmm_pirls.c); the finite-difference Hessian
** at the optimum gives the covariance of beta as lme4's vcov() does.
*/
#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

#define HESS_STEP     1e-4 /* differences of the gradient */
#define MAX_NEWTON    80
#define REFRESH_EVERY 8
#define NEAR_FALL     1e-7  /* a step's predicted fall when converging */
#define DONE_FALL     1e-11 /* ... when converged */
#define GROW_FALL     1e-8  /* ... worth a longer step */
#define WARM_FLOOR    0.05  /* a warm start's least diagonal of Lambda */
#define TRUST_START   0.25  /* the first steps' largest change of theta */
#define BOUNDARY_TOL  1e-5  /* lme4's check.boundary() */
#define CONVERGED_TOL 0.002 /* lme4's check.conv.grad on H^-1 g */

/* The least fall of the deviance f that a step is worth: DONE_FALL, or
** more where f is so large that its rounding (a sum over many rows) is
** more. */
static double done_fall(double f)
{
    double r = DBL_EPSILON * fabs(f);
    return r > DONE_FALL ? r : DONE_FALL;
}

/* The deviance at x = (theta, beta) with its gradient (NULL: none). */
double glmm_work_deviance(GlmmWork *w, const double *x, double *grad)
{
    glmm_set_theta(w, x);
    double d = glmm_pirls(w, x + w->n_theta, grad != NULL);
    if (isnan(d) || !grad) {
        return d;
    }
    return glmm_gradient(w, grad) == 0 ? w->pdev + w->ldl2 : NAN;
}

/* Whether theta j of w is a diagonal entry of its Lambda (bounded by 0). */
static int theta_is_diag(const GlmmWork *w, int j)
{
    const GlmmModel *m = w->m;
    for (int t = m->n_terms - 1; t >= 0; t--) {
        if (j >= w->th_off[t]) {
            const GlmmTerm *tm = &m->term[t];
            int r = j - w->th_off[t];
            if (tm->diagonal) {
                return 1;
            }
            for (int b = 0; b < tm->k; b++) { /* column b has k - b */
                if (r == 0) {
                    return 1;
                }
                if (r < tm->k - b) {
                    return 0;
                }
                r -= tm->k - b;
            }
            return 0;
        }
    }
    return 0;
}

/* The covariance is unchanged when a column of Lambda changes sign: make
** every diagonal entry non-negative; returns whether theta changed. */
static int fold_theta(const GlmmWork *w, double *theta)
{
    const GlmmModel *m = w->m;
    int changed = 0;
    for (int t = 0; t < m->n_terms; t++) {
        const GlmmTerm *tm = &m->term[t];
        double *th = theta + w->th_off[t];
        int at = 0;
        for (int b = 0; b < tm->k; b++) {
            int len = tm->diagonal ? 1 : tm->k - b;
            if (th[at] < 0) {
                for (int a = 0; a < len; a++) {
                    th[at + a] = -th[at + a];
                }
                changed = 1;
            }
            at += len;
        }
    }
    return changed;
}

/* The cold start: theta at the model's start (lme4's: 1 on Lambda's
** diagonal, 0 below) and beta at the joint modes of (u, beta) there (lme4's
** nAGQ = 0 step at that theta); x = (theta, beta). */
static int cold_start(GlmmWork *w, double *x)
{
    int nt = w->n_theta;
    const double *start = w->m->theta_start;
    for (int j = 0; j < nt; j++) {
        int diag = theta_is_diag(w, j);
        x[j] = start ? (diag ? fabs(start[j]) : start[j]) : diag ? 1 : 0;
    }
    memset(x + nt, 0, (size_t)w->p * sizeof(double));
    glmm_set_theta(w, x);
    return isnan(glmm_pirls_joint(w, x + nt)) ? -1 : 0;
}

/* Scratch of stage 2 (Newton) beside its N x N Hessian. */
typedef struct Newton {
    double *H;           /* N x N */
    double *g, *gn, *xn; /* N: gradient, trial gradient, trial point */
    double *d, *gp, *gm; /* N: direction, trial gradients, scratch */
    double *xt, *dx;     /* N */
    double *g0;          /* N: the gradient at fd_hessian()'s point */
    double *u0;          /* q: the modes at the current point */
    double *ub;          /* q: the modes at the line search's best point */
    double *work;        /* 3 N x N + 2 N */
    double f0;           /* the deviance at fd_hessian()'s point */
    int at_x;            /* the state (modes, weights, factor) is that of the
                         ** search's current point, its gradient known */
} Newton;

/* The deviance and gradient at x, PIRLS started from the modes predicted
** from u0 and the mode derivatives for the step dx. */
static double eval_from(GlmmWork *w, const double *u0, const double *dx,
                        const double *x, double *g)
{
    glmm_predict(w, u0, dx);
    return glmm_work_deviance(w, x, g);
}

/* What fd_hessian() differences. */
enum {
    FD_START, /* the theta columns by central differences (forward in a
              ** large fit), the beta block 2 S: the Hessian of the
              ** penalised deviance at the joint modes (a start for
              ** quasi-Newton, and its refreshes: forward differences moved
              ** a small warm-started fit along a flat ridge) */
    FD_FULL   /* every column by forward differences (the standard
              ** errors) */
};

/* H = differences of the exact gradient from x (symmetrised);
** leaves the mode derivatives and nw->u0 at x, the deviance and gradient
** there in nw->f0 and nw->g0 (f and g, without an evaluation, when
** nw->at_x says that the state is x's). Forward differences take half the
** evaluations of central ones, with the lme4 fixtures' standard errors as
** close to lme4's (0.18 % at worst). */
static int fd_hessian(GlmmWork *w, const double *x, double f, const double *g,
                      Newton *nw, int what)
{
    int N = w->n_par, nt = w->n_theta, p = w->p;
    size_t q = (size_t)w->q;
    int cols = what == FD_FULL ? N : nt;
    if (nw->at_x) {
        nw->f0 = f;
        memcpy(nw->g0, g, (size_t)N * sizeof(double));
    } else {
        nw->f0 = glmm_work_deviance(w, x, nw->g0);
    }
    nw->at_x = 0; /* the state moves to the differences' points */
    if (isnan(nw->f0) || glmm_mode_derivatives(w) != 0 ||
        (what != FD_FULL && glmm_schur(w) != 0)) {
        return -1;
    }
    memcpy(nw->u0, w->u, q * sizeof(double));
    memcpy(nw->xt, x, (size_t)N * sizeof(double));
    memset(nw->dx, 0, (size_t)N * sizeof(double));
    double *H = nw->H;
    for (int i = 0; what != FD_FULL && i < p; i++) {
        for (int j = 0; j < p; j++) {
            H[(nt + i) * N + nt + j] = 2 * w->S[i * p + j];
        }
    }
    for (int j = 0; j < cols; j++) {
        nw->xt[j] = x[j] + HESS_STEP;
        nw->dx[j] = HESS_STEP;
        if (isnan(eval_from(w, nw->u0, nw->dx, nw->xt, nw->gp))) {
            return -1;
        }
        const double *from = nw->g0;
        double h = HESS_STEP;
        if (what != FD_FULL && w->n < GLMM_LARGE_ROWS) {
            nw->xt[j] = x[j] - HESS_STEP;
            nw->dx[j] = -HESS_STEP;
            if (isnan(eval_from(w, nw->u0, nw->dx, nw->xt, nw->gm))) {
                return -1;
            }
            from = nw->gm;
            h = 2 * HESS_STEP;
        }
        nw->xt[j] = x[j];
        nw->dx[j] = 0;
        for (int i = 0; i < N; i++) {
            H[i * N + j] = (nw->gp[i] - from[i]) / h;
        }
    }
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++) {
            double a = j < cols && i < cols
                           ? 0.5 * (H[i * N + j] + H[j * N + i])
                       : j < cols ? H[i * N + j]
                                  : H[j * N + i];
            H[i * N + j] = H[j * N + i] = a;
        }
    }
    memcpy(w->u, nw->u0, q * sizeof(double));
    return 0;
}

/* d = -H^-1 g by GSL's modified Cholesky (a descent direction even where
** H is not positive definite); returns 1 when H needed no change. */
static int newton_direction(const double *H, const double *g, int N, double *d,
                            double *work)
{
    size_t n = (size_t)N;
    double *a = work, *e = work + n * n;
    memcpy(a, H, n * n * sizeof(double));
    gsl_matrix_view A = gsl_matrix_view_array(a, n, n);
    gsl_vector_view E = gsl_vector_view_array(e, n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    if (!perm) {
        return -1;
    }
    gsl_linalg_mcholesky_decomp(&A.matrix, perm, &E.vector);
    for (size_t j = 0; j < n; j++) {
        d[j] = -g[j];
    }
    gsl_vector_view D = gsl_vector_view_array(d, n);
    gsl_linalg_mcholesky_svx(&A.matrix, perm, &D.vector);
    gsl_permutation_free(perm);
    int pd = 1;
    for (size_t j = 0; j < n; j++) {
        pd &= e[j] == 0;
    }
    return pd;
}

static double max_abs(const double *x, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        m = fabs(x[i]) > m ? fabs(x[i]) : m;
    }
    return m;
}

/* lme4's vcov(): 2 (H^-1) restricted to beta when that is positive
** definite; returns 0, or -1 when H is singular or the block is not. */
static int vcov_from_hessian(const GlmmWork *w, const double *H, double *V,
                             double *work)
{
    size_t N = (size_t)w->n_par, p = (size_t)w->p, nt = (size_t)w->n_theta;
    double *a = work, *inv = work + N * N;
    memcpy(a, H, N * N * sizeof(double));
    gsl_matrix_view A = gsl_matrix_view_array(a, N, N);
    gsl_matrix_view I = gsl_matrix_view_array(inv, N, N);
    gsl_permutation *perm = gsl_permutation_alloc(N);
    if (!perm) {
        return -1;
    }
    int sgn;
    gsl_linalg_LU_decomp(&A.matrix, perm, &sgn);
    int ok = 1;
    for (size_t j = 0; j < N; j++) {
        ok &= a[j * N + j] != 0 && isfinite(a[j * N + j]);
    }
    if (ok) {
        gsl_linalg_LU_invert(&A.matrix, perm, &I.matrix);
        /* R's solve() refuses a reciprocal condition number below eps */
        double nh = 0, ni = 0;
        for (size_t j = 0; j < N; j++) {
            double ch = 0, ci = 0;
            for (size_t i = 0; i < N; i++) {
                ch += fabs(H[i * N + j]);
                ci += fabs(inv[i * N + j]);
            }
            nh = ch > nh ? ch : nh;
            ni = ci > ni ? ci : ni;
        }
        ok = isfinite(ni) && 1 / (nh * ni) >= DBL_EPSILON;
    }
    gsl_permutation_free(perm);
    if (!ok) {
        return -1;
    }
    for (size_t i = 0; i < p; i++) {
        for (size_t j = 0; j < p; j++) {
            V[i * p + j] =
                inv[(nt + i) * N + nt + j] + inv[(nt + j) * N + nt + i];
        }
    }
    /* positive definite: every eigenvalue above 0 */
    double *vc = a;
    memcpy(vc, V, p * p * sizeof(double));
    gsl_matrix_view Vm = gsl_matrix_view_array(vc, p, p);
    gsl_vector *ev = gsl_vector_alloc(p);
    gsl_eigen_symm_workspace *ew = gsl_eigen_symm_alloc(p);
    if (!ev || !ew) {
        gsl_vector_free(ev);
        gsl_eigen_symm_free(ew);
        return -1;
    }
    gsl_eigen_symm(&Vm.matrix, ev, ew);
    for (size_t j = 0; j < p; j++) {
        ok &= gsl_vector_get(ev, j) > 0;
    }
    gsl_vector_free(ev);
    gsl_eigen_symm_free(ew);
    return ok ? 0 : -1;
}

/* The RX-based covariance S^-1 at the current state. */
static int vcov_from_rx(GlmmWork *w, double *V)
{
    size_t p = (size_t)w->p;
    if (glmm_schur(w) != 0) {
        return -1;
    }
    double *a = w->pbuf;
    memcpy(a, w->S, p * p * sizeof(double));
    gsl_matrix_view A = gsl_matrix_view_array(a, p, p);
    gsl_matrix_view I = gsl_matrix_view_array(V, p, p);
    gsl_permutation *perm = gsl_permutation_alloc(p);
    if (!perm) {
        return -1;
    }
    int sgn;
    gsl_linalg_LU_decomp(&A.matrix, perm, &sgn);
    int ok = 1;
    for (size_t j = 0; j < p; j++) {
        ok &= a[j * p + j] != 0;
    }
    if (ok) {
        gsl_linalg_LU_invert(&A.matrix, perm, &I.matrix);
    }
    gsl_permutation_free(perm);
    return ok ? 0 : -1;
}

void glmm_fit_free(GlmmFit *f)
{
    if (!f) {
        return;
    }
    sim_free(f->beta);
    sim_free(f->vcov);
    sim_free(f->se);
    sim_free(f->theta);
    sim_free(f->hessian);
    memset(f, 0, sizeof *f);
}

/* H += y y' / y's - H s s' H / s'Hs for s = xn - x, y = gn - g (BFGS),
** when the curvature condition y's > 0 holds. */
static void bfgs_update(double *H, const double *x, const double *xn,
                        const double *g, const double *gn, int N, double *sv,
                        double *hs)
{
    double ys = 0, shs = 0;
    for (int i = 0; i < N; i++) {
        sv[i] = xn[i] - x[i];
    }
    for (int i = 0; i < N; i++) {
        double a = 0;
        for (int j = 0; j < N; j++) {
            a += H[i * N + j] * sv[j];
        }
        hs[i] = a;
        shs += sv[i] * a;
        ys += (gn[i] - g[i]) * sv[i];
    }
    if (!(ys > 1e-12) || !(shs > 1e-12)) {
        return;
    }
    for (int i = 0; i < N; i++) {
        double yi = gn[i] - g[i];
        for (int j = 0; j < N; j++) {
            H[i * N + j] += yi * (gn[j] - g[j]) / ys - hs[i] * hs[j] / shs;
        }
    }
}

/* Where stage 2 starts when not from lme4's start: (theta, beta) and the
** Hessian there (NULL: differences at the start) times scale. */
typedef struct Start {
    const double *theta, *beta, *hess;
    double scale;
} Start;

/* The warm start instead of the cold one: x = (theta, beta) of st, a
** diagonal entry at least WARM_FLOOR: at 0 the deviance's gradient in it
** is 0 (the deviance is even in a column's sign), and a quasi-Newton
** search could never leave a start that another data set's fit found
** singular. */
static void warm_start(const GlmmWork *w, const Start *st, double *x)
{
    for (int j = 0; j < w->n_theta; j++) {
        double t = st->theta[j];
        x[j] = !theta_is_diag(w, j)   ? t
               : fabs(t) < WARM_FLOOR ? WARM_FLOOR
                                      : fabs(t);
    }
    memcpy(x + w->n_theta, st->beta, (size_t)w->p * sizeof(double));
}

/* Where entry (a, b), a >= b, of term t's Lambda is in m's theta; -1 when
** the term has no such entry (a diagonal term's off-diagonal). */
static int theta_index(const GlmmModel *m, int t, int a, int b)
{
    int at = 0;
    for (int j = 0; j < t; j++) {
        at += glmm_term_n_theta(&m->term[j]);
    }
    const GlmmTerm *tm = &m->term[t];
    if (a >= tm->k || b >= tm->k || (tm->diagonal && a != b)) {
        return -1;
    }
    if (tm->diagonal) {
        return at + b;
    }
    for (int c = 0; c < b; c++) {
        at += tm->k - c;
    }
    return at + a - b;
}

void glmm_hess_from(const GlmmModel *from, const double *hess,
                    const GlmmModel *to, double *out)
{
    int nf = glmm_n_theta(from), nt = glmm_n_theta(to), p = to->p;
    int N = nf + p, M = nt + p;
    int map[GLMM_MAX_TERMS * GLMM_MAX_K * (GLMM_MAX_K + 1) / 2 + 1];
    for (int t = 0; t < to->n_terms; t++) {
        const GlmmTerm *tm = &to->term[t];
        for (int b = 0; b < tm->k; b++) {
            for (int a = b; a < tm->k; a++) {
                int j = theta_index(to, t, a, b);
                if (j >= 0) {
                    map[j] = theta_index(from, t, a, b);
                }
            }
        }
    }
    for (int i = 0; i < M; i++) {
        int fi = i < nt ? map[i] : nf + i - nt;
        for (int j = 0; j < M; j++) {
            int fj = j < nt ? map[j] : nf + j - nt;
            out[i * M + j] = fi >= 0 && fj >= 0 ? hess[fi * N + fj]
                             : i == j           ? 1
                                                : 0;
        }
    }
}

int glmm_term_below(const GlmmModel *m, const double *theta, int t, double tol)
{
    int at = 0;
    for (int j = 0; j < t; j++) {
        at += glmm_term_n_theta(&m->term[j]);
    }
    const GlmmTerm *tm = &m->term[t];
    for (int b = 0; b < tm->k; b++) {
        if (fabs(theta[at]) < tol) {
            return 1;
        }
        at += tm->diagonal ? 1 : tm->k - b;
    }
    return 0;
}

static int finish(GlmmWork *w, double *x, double f, GlmmFit *fit, Newton *nw);

/* The deviance and gradient (into g) at xt = x + t d, the modes predicted
** from nw->u0. */
static double eval_step(GlmmWork *w, Newton *nw, const double *x, double t,
                        double *xt, double *g)
{
    for (int j = 0; j < w->n_par; j++) {
        nw->dx[j] = t * nw->d[j];
        xt[j] = x[j] + nw->dx[j];
    }
    return eval_from(w, nw->u0, nw->dx, xt, g);
}

/* The step along nw->d from x (deviance f, slope g'd): the full step
** halved until the deviance falls enough (no halving once the predicted
** fall is below the tolerance), or doubled while it keeps falling where
** the full step fell more than the quadratic model said (a direction of
** negative curvature that the modified Cholesky factor made positive: its
** steps would crawl). Leaves the point in nw->xn, its gradient in nw->gn,
** *t and *fn, and nw->at_x: whether the state is that point's; returns 0
** when no step lowers the deviance. */
static int line_search(GlmmWork *w, Newton *nw, const double *x, double f,
                       double slope, double *t, double *fn)
{
    double tt = 1, got = NAN;
    int accepted = 0;
    for (int half = 0;
         half < 30 && !accepted && (half == 0 || -slope * tt >= done_fall(f));
         half++, tt /= 2) {
        got = eval_step(w, nw, x, tt, nw->xn, nw->gn);
        accepted =
            !isnan(got) && (got <= f + 1e-4 * tt * slope || got <= f + 1e-10);
    }
    nw->at_x = accepted; /* the last evaluation was the point's */
    if (!accepted) {
        return 0;
    }
    tt *= 2; /* the loop halved it once more */
    size_t q = (size_t)w->q;
    if (tt == 1 && -slope > GROW_FALL && f - got > -slope) {
        memcpy(nw->ub, w->u, q * sizeof(double));
        for (int grow = 0; grow < 10; grow++) {
            double more = eval_step(w, nw, x, 2 * tt, nw->xt, nw->gp);
            if (!(more < got)) {
                nw->at_x = 0;
                break;
            }
            tt *= 2;
            got = more;
            memcpy(nw->xn, nw->xt, (size_t)w->n_par * sizeof(double));
            memcpy(nw->gn, nw->gp, (size_t)w->n_par * sizeof(double));
            memcpy(nw->ub, w->u, q * sizeof(double));
        }
        memcpy(w->u, nw->ub, q * sizeof(double));
    }
    *t = tt;
    *fn = got;
    return 1;
}

/* Stage 2 and the results; x holds stage 1's (theta, beta) or the warm
** start's (then the start's Hessian replaces the first differences). */
static int stage2(GlmmWork *w, double *x, GlmmFit *fit, Newton *nw,
                  const Start *st)
{
    int N = w->n_par, nt = w->n_theta;
    size_t q = (size_t)w->q;
    double *H = nw->H, *g = nw->g, *gn = nw->gn, *xn = nw->xn, *d = nw->d;
    double f;
    if (st->hess) {
        for (size_t j = 0; j < (size_t)N * (size_t)N; j++) {
            H[j] = st->scale * st->hess[j];
        }
        f = glmm_work_deviance(w, x, g);
        if (isnan(f) || glmm_mode_derivatives(w) != 0) {
            return -1;
        }
        nw->at_x = 1;
    } else {
        /* stage 1 may end on its bound: lift such a diagonal off it (see
        ** warm_start()), as lme4's second BOBYQA would probe around it */
        for (int j = 0; j < nt; j++) {
            if (theta_is_diag(w, j) && x[j] < GLMM_SINGULAR_TOL) {
                x[j] = WARM_FLOOR;
            }
        }
        nw->at_x = 0;
        if (fd_hessian(w, x, NAN, NULL, nw, FD_START) != 0) {
            return -1;
        }
        f = nw->f0;
        memcpy(g, nw->g0, (size_t)N * sizeof(double));
    }
    int done = 0, it, since_fd = 0;
    double radius = TRUST_START;
    double fell = HUGE_VAL, fell_before = HUGE_VAL; /* the last steps'
                                                    ** predicted falls */
    for (it = 0; it < MAX_NEWTON && !done; it++) {
        /* BFGS crawls along the flat directions of a near-singular fit:
        ** a finite-difference Hessian every few steps, unless the steps
        ** are already converging (then for a crawl at that scale only) */
        int converging = fell < NEAR_FALL || fell < 0.1 * fell_before;
        if (since_fd >= REFRESH_EVERY &&
            (!converging || since_fd >= 2 * REFRESH_EVERY)) {
            if (fd_hessian(w, x, f, g, nw, FD_START) != 0) {
                return -1;
            }
            since_fd = 0;
        }
        since_fd++;
        if (newton_direction(H, g, N, d, nw->work) < 0) {
            return -1;
        }
        /* a trust region on theta: the deviance is far from quadratic
        ** away from the optimum, where Newton steps overshoot */
        double big = 0, clip = 1;
        for (int j = 0; j < nt; j++) {
            big = fabs(d[j]) > big ? fabs(d[j]) : big;
        }
        if (radius > 0 && big > radius) {
            clip = radius / big;
            for (int j = 0; j < N; j++) {
                d[j] *= clip;
            }
        }
        memcpy(nw->u0, w->u, q * sizeof(double));
        double slope = 0;
        for (int j = 0; j < N; j++) {
            slope += g[j] * d[j];
        }
        if (-slope < clip * done_fall(f)) {
            break; /* no step could show a fall: the state stays x's */
        }
        double t, fn;
        if (!line_search(w, nw, x, f, slope, &t, &fn)) {
            memcpy(w->u, nw->u0, q * sizeof(double));
            break; /* no descent: as good as it gets */
        }
        double step = 0;
        for (int j = 0; j < N; j++) {
            step = fabs(t * d[j]) > step ? fabs(t * d[j]) : step;
        }
        if (radius > 0) {
            radius = t < 1 ? t * big * clip : clip < 1 ? 2 * radius : radius;
        }
        bfgs_update(H, x, xn, g, gn, N, nw->gp, nw->gm);
        memcpy(x, xn, (size_t)N * sizeof(double));
        memcpy(g, gn, (size_t)N * sizeof(double));
        f = fn;
        /* the predicted fall of the deviance, g'H^-1 g, is rounding */
        fell_before = fell;
        fell = -slope * t;
        done = step < 1e-9 || max_abs(g, N) < 1e-9 || fell < done_fall(f);
        if (w->m->stop_singular_term > 0 && fell < NEAR_FALL) {
            /* the search creeps to a diagonal of 0 (the deviance is flat
            ** there): the fit stops singular, whatever the last digits */
            done |= glmm_term_below(w->m, x, w->m->stop_singular_term - 1,
                                    BOUNDARY_TOL);
        }
    }
    if (fold_theta(w, x)) {
        nw->at_x = 0;
    }
    /* lme4's check.boundary: a diagonal this close to 0 is 0 if no worse */
    for (int j = 0; j < nt; j++) {
        if (theta_is_diag(w, j) && x[j] > 0 && x[j] < BOUNDARY_TOL) {
            memcpy(xn, x, (size_t)N * sizeof(double));
            xn[j] = 0;
            nw->at_x = 0;
            double f0 = glmm_work_deviance(w, xn, NULL);
            if (f0 <= f + 1e-9) {
                x[j] = 0;
                f = f0;
            }
        }
    }
    return finish(w, x, f, fit, nw);
}

/* The results at the optimum x (deviance f): the Hessian, convergence,
** the covariance of beta; or, for a fit that stops singular, the
** estimates alone. */
static int finish(GlmmWork *w, double *x, double f, GlmmFit *fit, Newton *nw)
{
    int N = w->n_par, nt = w->n_theta, p = w->p;
    double *H = nw->H, *g = nw->g, *d = nw->d;
    fit->deviance = f;
    fit->loglik = -f / 2;
    fit->aic = f + 2 * (p + nt);
    memcpy(fit->theta, x, (size_t)nt * sizeof(double));
    memcpy(fit->beta, x + nt, (size_t)p * sizeof(double));
    fit->singular = 0;
    for (int j = 0; j < nt; j++) {
        fit->singular |= theta_is_diag(w, j) && x[j] < GLMM_SINGULAR_TOL;
    }
    int stop = w->m->stop_singular_term;
    if (stop > 0 && stop <= w->m->n_terms &&
        glmm_term_below(w->m, x, stop - 1, GLMM_SINGULAR_TOL)) {
        /* converged as below, on the quasi-Newton Hessian, which is the
        ** fit's Hessian then */
        fit->stopped = 1;
        memcpy(fit->hessian, H, (size_t)N * (size_t)N * sizeof(double));
        int pd = newton_direction(H, g, N, d, nw->work);
        fit->converged = pd >= 0 && max_abs(d, N) < CONVERGED_TOL;
        fit->max_grad = max_abs(g, N);
        for (int j = 0; j < p * p; j++) {
            fit->vcov[j] = NAN;
        }
        for (int j = 0; j < p; j++) {
            fit->se[j] = NAN;
        }
        return 0;
    }
    if (fd_hessian(w, x, f, g, nw, FD_FULL) != 0) {
        return -1;
    }
    f = nw->f0;
    memcpy(g, nw->g0, (size_t)N * sizeof(double));
    /* converged: Newton's scaled gradient below lme4's tolerance */
    int pd = newton_direction(H, g, N, d, nw->work);
    fit->converged = pd >= 0 && max_abs(d, N) < CONVERGED_TOL;
    fit->max_grad = max_abs(g, N);
    fit->deviance = f;
    fit->loglik = -f / 2;
    fit->aic = f + 2 * (p + nt);
    memcpy(fit->hessian, H, (size_t)N * (size_t)N * sizeof(double));
    fit->vcov_hessian = vcov_from_hessian(w, H, fit->vcov, nw->work) == 0;
    if (!fit->vcov_hessian) {
        /* the state at x again: the differences moved it */
        if (isnan(glmm_work_deviance(w, x, NULL)) ||
            vcov_from_rx(w, fit->vcov) != 0) {
            for (int j = 0; j < p * p; j++) {
                fit->vcov[j] = NAN;
            }
        }
    }
    for (int j = 0; j < p; j++) {
        double v = fit->vcov[j * p + j];
        fit->se[j] = v > 0 ? sqrt(v) : NAN;
    }
    return 0;
}

int glmm_work_fit(GlmmWork *w, const uint8_t *y, GlmmFit *fit, SimError *err)
{
    memset(fit, 0, sizeof *fit);
    const uint8_t *ys = y ? y : w->m->y;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        w->y[i] = ys[w->order[i]];
    }
    w->n_evals = 0;
    memset(w->u, 0, (size_t)w->q * sizeof(double));
    int N = w->n_par, p = w->p, nt = w->n_theta;
    size_t n2 = (size_t)N * (size_t)N;
    fit->p = p;
    fit->n_theta = nt;
    fit->beta = sim_calloc((size_t)p, sizeof(double));
    fit->se = sim_calloc((size_t)p, sizeof(double));
    fit->vcov = sim_calloc((size_t)p * (size_t)p, sizeof(double));
    fit->theta = sim_calloc((size_t)nt, sizeof(double));
    fit->hessian = sim_calloc(n2, sizeof(double));
    double *x = sim_malloc((size_t)N * sizeof(double));
    double *buf = sim_malloc((4 * n2 + 11 * (size_t)N + 2 * (size_t)w->q) *
                             sizeof(double));
    Newton nw = {0};
    if (buf) {
        double *b = buf;
        nw.H = b;
        b += n2;
        double **vecs[] = {&nw.g,  &nw.gn, &nw.xn, &nw.d, &nw.gp,
                           &nw.gm, &nw.xt, &nw.dx, &nw.g0};
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) {
            *vecs[k] = b;
            b += N;
        }
        nw.u0 = b;
        b += w->q;
        nw.ub = b;
        b += w->q;
        nw.work = b;
    }
    int rc = SIM_OK;
    const GlmmModel *m = w->m;
    Start st = {m->theta_start, m->beta_start, m->hess_start, 1};
    GlmmFit sf; /* a subsample's fit, the start of a large one */
    int sub = 0;
    if (!st.theta || !st.beta) {
        st.theta = st.beta = st.hess = NULL;
        rc = glmm_sub_fit(w, &sf, &st.scale, &sub, err);
        if (sub) {
            st.theta = sf.theta;
            st.beta = sf.beta;
            st.hess = sf.hessian;
        }
    }
    if (rc != SIM_OK) {
        /* the subsample's error */
    } else if (!fit->beta || !fit->se || !fit->vcov || !fit->theta ||
               !fit->hessian || !x || !buf) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    } else if ((st.theta ? (warm_start(w, &st, x), 0) : cold_start(w, x)) !=
                   0 ||
               stage2(w, x, fit, &nw, &st) != 0) {
        int status = w->chol ? glmm_chol_status(w->chol) : 0;
        rc = status != 0 ? sim_fail(err, SIM_ERR_INVALID,
                                    "glmm: the factorisation failed (CHOLMOD "
                                    "status %d)",
                                    status)
                         : sim_fail(err, SIM_ERR_INVALID,
                                    "glmm: the factorisation failed");
    }
    if (sub) {
        glmm_fit_free(&sf);
    }
    fit->n_evals = w->n_evals;
    sim_free(x);
    sim_free(buf);
    if (rc != SIM_OK) {
        glmm_fit_free(fit);
    }
    return rc;
}

int glmm_fit(const GlmmModel *m, GlmmFit *fit, SimError *err)
{
    GlmmWork *w = NULL;
    memset(fit, 0, sizeof *fit);
    int rc = glmm_work_new(m, &w, err);
    if (rc == SIM_OK) {
        rc = glmm_work_fit(w, NULL, fit, err);
    }
    glmm_work_free(w);
    return rc;
}

void glmm_term_cov(const GlmmModel *m, const double *theta, int t, double *sd,
                   double *corr)
{
    int th_off = 0;
    for (int j = 0; j < t; j++) {
        th_off += glmm_term_n_theta(&m->term[j]);
    }
    const GlmmTerm *tm = &m->term[t];
    int k = tm->k;
    double lam[GLMM_MAX_K * GLMM_MAX_K] = {0}, cov[GLMM_MAX_K * GLMM_MAX_K];
    const double *th = theta + th_off;
    int at = 0;
    for (int b = 0; b < k; b++) {
        int last = tm->diagonal ? b + 1 : k;
        for (int a = b; a < last; a++) {
            lam[a * k + b] = th[at++];
        }
    }
    for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
            double x = 0;
            for (int c = 0; c < k; c++) {
                x += lam[a * k + c] * lam[b * k + c];
            }
            cov[a * k + b] = x;
        }
    }
    for (int a = 0; a < k; a++) {
        sd[a] = sqrt(cov[a * k + a]);
    }
    for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
            corr[a * k + b] = a == b ? 1
                              : sd[a] > 0 && sd[b] > 0
                                  ? cov[a * k + b] / (sd[a] * sd[b])
                                  : NAN;
        }
    }
}
