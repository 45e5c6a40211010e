/*
** The Laplace deviance of a logistic mixed model and its gradient: PIRLS
** for the conditional modes on a CHOLMOD factor of M = G'WG + I, the
** selected inverse of M on the factor's pattern (Takahashi's recurrence)
** and the adjoint of the mode equation for the exact gradient in (theta,
** beta). The optimisation that uses them is in glmm_fit.c.
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

static double zval(const GlmmTerm *t, size_t i, int c)
{
    return t->z ? t->z[i * (size_t)t->k + (size_t)c] : 1.0;
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
    size_t s = (size_t)w->s;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        double *gi = w->g + i * s;
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            const double *lam = w->lam[t];
            int k = tm->k;
            for (int b = 0; b < k; b++) {
                double x = 0;
                for (int a = b; a < k; a++) {
                    x += zval(tm, i, a) * lam[a * k + b];
                }
                gi[w->z_at[t] + b] = x;
            }
        }
    }
}

static void compute_xb(GlmmWork *w, const double *beta)
{
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *xj = w->xj + w->xoff[i];
        const double *xv = w->xv + w->xoff[i];
        double x = 0;
        for (int k = 0; k < w->xn[i]; k++) {
            x += xv[k] * beta[xj[k]];
        }
        w->xb[i] = x;
    }
}

/* eta = X beta + G u; mu, the weights and the residuals there. */
static void eta_state(GlmmWork *w, const double *u)
{
    size_t s = (size_t)w->s;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        double e = w->xb[i];
        for (size_t a = 0; a < s; a++) {
            e += gi[a] * u[si[a]];
        }
        double ex = exp(-fabs(e)), den = 1 + ex;
        double mu = e >= 0 ? 1 / den : ex / den;
        w->eta[i] = e;
        w->ex[i] = ex;
        w->mu[i] = mu;
        w->w[i] = ex / (den * den);
        w->res[i] = w->y[i] - mu;
    }
}

/* The Bernoulli deviance at the state's eta plus |u|^2. */
static double pen_deviance(const GlmmWork *w, const double *u)
{
    double dev = 0, uu = 0;
    for (int j = 0; j < w->q; j++) {
        uu += u[j] * u[j];
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        /* log1p is slower and no more exact in this sum */
        double e = w->eta[i], l1 = log(1 + w->ex[i]);
        /* -log P(y | eta) without overflow */
        dev += w->y[i] ? (e >= 0 ? l1 : l1 - e) : (e >= 0 ? l1 + e : l1);
    }
    return 2 * dev + uu;
}

/* w->run for the factor's pattern: Takahashi's recurrence for column j
** reads, for each row R[a] of it, the entries of column R[a] in the rows
** R[a+1..] of column j; where they are contiguous (as in a nested
** pattern) it reads them as a vector. */
static void find_runs(GlmmWork *w)
{
    const cholmod_factor *L = w->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    for (int j = 0; j < w->q; j++) {
        int p0 = Lp[j], m = Lnz[j] - 1;
        const int *R = Li + p0 + 1;
        for (int a = 0; a < m; a++) {
            int ca = R[a], lo = Lp[ca] + 1, end = Lp[ca] + Lnz[ca];
            int len = m - a - 1, at = -1;
            if (len == 0) {
                at = lo;
            } else {
                for (int k = lo; k < end && at < 0; k++) {
                    at = Li[k] == R[a + 1] ? k : -1;
                }
                for (int k = 1; at >= 0 && k < len; k++) {
                    if (at + k >= end || Li[at + k] != R[a + 1 + k]) {
                        at = -1;
                    }
                }
            }
            w->run[p0 + 1 + a] = at;
        }
    }
}

/* Positions of Sigma_ab (a <= b in a row's support) in the factor's
** arrays, once per pattern. */
static int find_positions(GlmmWork *w)
{
    const cholmod_factor *L = w->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz, *perm = L->Perm;
    if (w->n_sigma < L->nzmax) {
        sim_free(w->sigma);
        sim_free(w->run);
        w->sigma = sim_malloc(L->nzmax * sizeof(double));
        w->run = sim_malloc(L->nzmax * sizeof(int));
        if (!w->sigma || !w->run) {
            w->n_sigma = 0;
            return -1;
        }
        w->n_sigma = L->nzmax;
    }
    find_runs(w);
    for (int k = 0; k < w->q; k++) {
        w->pinv[perm[k]] = k;
    }
    int s = w->s, ns = s * (s + 1) / 2;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *si = w->supp + i * (size_t)s;
        int *pos = w->spos + i * (size_t)ns, at = 0;
        for (int a = 0; a < s; a++) {
            for (int b = a; b < s; b++) {
                int pa = w->pinv[si[a]], pb = w->pinv[si[b]];
                int c = pa < pb ? pa : pb, r = pa < pb ? pb : pa;
                int lo = Lp[c] + 1, hi = Lp[c] + Lnz[c] - 1, found = -1;
                if (r == c) {
                    found = Lp[c];
                }
                while (found < 0 && lo <= hi) {
                    int mid = lo + (hi - lo) / 2;
                    if (Li[mid] == r) {
                        found = mid;
                    } else if (Li[mid] < r) {
                        lo = mid + 1;
                    } else {
                        hi = mid - 1;
                    }
                }
                if (found < 0) {
                    return -1; /* not a Cholesky pattern */
                }
                pos[at++] = found;
            }
        }
    }
    w->pos_ready = 1;
    w->pos_x = L->x;
    return 0;
}

/* M = G'WG + I assembled in its pattern and factored (LDL'). */
static int factorize(GlmmWork *w)
{
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    double *mx = w->M->x;
    memset(mx, 0, w->M->nzmax * sizeof(double));
    for (int j = 0; j < w->q; j++) {
        mx[w->mdiag[j]] = 1;
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *pos = w->mpos + i * ns;
        double wi = w->w[i];
        for (size_t a = 0; a < s; a++) {
            double wg = wi * gi[a];
            for (size_t b = a; b < s; b++) {
                mx[*pos++] += wg * gi[b];
            }
        }
    }
    if (!cholmod_factorize(w->M, w->L, &w->cm) || w->cm.status != CHOLMOD_OK ||
        w->L->is_super || w->L->is_ll) {
        return -1;
    }
    const int *Lp = w->L->p;
    const double *Lx = w->L->x;
    double ld = 0;
    for (int j = 0; j < w->q; j++) {
        ld += log(Lx[Lp[j]]);
    }
    w->ldl2 = ld;
    if (!w->pos_ready || w->pos_x != w->L->x) {
        return find_positions(w);
    }
    return 0;
}

/* x = M^-1 b (q values; x may be b). */
static int solve(GlmmWork *w, const double *b, double *x)
{
    size_t q = (size_t)w->q;
    memcpy(w->B->x, b, q * sizeof(double));
    if (!cholmod_solve2(CHOLMOD_A, w->L, w->B, NULL, &w->Xs, NULL, &w->Ys,
                        &w->Es, &w->cm)) {
        return -1;
    }
    memcpy(x, w->Xs->x, q * sizeof(double));
    return 0;
}

/* rhs = G' (y - mu) - u */
static void score_u(GlmmWork *w, double *rhs)
{
    size_t s = (size_t)w->s;
    for (int j = 0; j < w->q; j++) {
        rhs[j] = -w->u[j];
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        for (size_t a = 0; a < s; a++) {
            rhs[si[a]] += gi[a] * w->res[i];
        }
    }
}

double glmm_pirls(GlmmWork *w, const double *beta)
{
    int q = w->q;
    w->n_evals++;
    memcpy(w->beta, beta, (size_t)w->p * sizeof(double));
    compute_xb(w, beta);
    eta_state(w, w->u);
    double pdev = NAN; /* computed when a step must be checked */
    double *delta = w->u2, *trial = w->rhs;
    for (int it = 0; it < MAX_PIRLS; it++) {
        if (factorize(w) != 0) {
            return NAN;
        }
        score_u(w, w->rhs);
        if (solve(w, w->rhs, delta) != 0) {
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
            eta_state(w, w->u);
            pdev = NAN;
            if (dec < TOL_APPLY) {
                break;
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
            eta_state(w, trial);
            got = pen_deviance(w, trial);
            if (got <= pdev + 1e-13 * fabs(pdev)) {
                break;
            }
        }
        if (!(got <= pdev + 1e-13 * fabs(pdev))) {
            eta_state(w, w->u); /* no progress: stay */
            if (factorize(w) != 0) {
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

int glmm_schur(GlmmWork *w)
{
    size_t q = (size_t)w->q, p = (size_t)w->p, s = (size_t)w->s;
    double *bp = w->Bp->x;
    memset(bp, 0, q * p * sizeof(double));
    double *S = w->S;
    memset(S, 0, p * p * sizeof(double));
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s, *xv = w->xv + w->xoff[i];
        const int *si = w->supp + i * s, *xj = w->xj + w->xoff[i];
        for (int k = 0; k < w->xn[i]; k++) {
            size_t j = (size_t)xj[k];
            double wx = w->w[i] * xv[k];
            for (size_t a = 0; a < s; a++) {
                bp[j * q + (size_t)si[a]] += gi[a] * wx;
            }
            for (int l = 0; l < w->xn[i]; l++) { /* the lower triangle */
                if ((size_t)xj[l] <= j) {
                    S[j * p + (size_t)xj[l]] += wx * xv[l];
                }
            }
        }
    }
    if (!cholmod_solve2(CHOLMOD_A, w->L, w->Bp, NULL, &w->Xp, NULL, &w->Yp,
                        &w->Ep, &w->cm)) {
        return -1;
    }
    const double *xp = w->Xp->x;
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

double glmm_pirls_joint(GlmmWork *w, double *beta)
{
    size_t q = (size_t)w->q, p = (size_t)w->p, n = (size_t)w->n;
    w->n_evals++;
    compute_xb(w, beta);
    eta_state(w, w->u);
    double pdev = NAN;
    double *du = w->u2, *rb = w->pbuf, *db = rb + p, *b0 = db + p,
           *work = b0 + p;
    for (int it = 0; it < MAX_PIRLS; it++) {
        if (factorize(w) != 0 || glmm_schur(w) != 0) {
            return NAN;
        }
        score_u(w, w->rhs);
        for (size_t j = 0; j < p; j++) {
            rb[j] = 0;
        }
        for (size_t i = 0; i < n; i++) {
            for (int k = 0; k < w->xn[i]; k++) {
                rb[w->xj[w->xoff[i] + (size_t)k]] +=
                    w->xv[w->xoff[i] + (size_t)k] * w->res[i];
            }
        }
        if (solve(w, w->rhs, du) != 0) {
            return NAN;
        }
        /* db = S^-1 (rb - B' M^-1 rhs); du = M^-1 rhs - M^-1 B db */
        const double *bp = w->Bp->x, *xp = w->Xp->x;
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
            eta_state(w, w->u);
            pdev = NAN;
            continue;
        }
        if (isnan(pdev)) {
            pdev = pen_deviance(w, w->u);
        }
        memcpy(b0, beta, p * sizeof(double));
        double step = 1, got = NAN;
        double *trial = w->rhs;
        for (int half = 0; half < 40; half++, step /= 2) {
            for (size_t r = 0; r < q; r++) {
                trial[r] = w->u[r] + step * du[r];
            }
            for (size_t j = 0; j < p; j++) {
                beta[j] = b0[j] + step * db[j];
            }
            compute_xb(w, beta);
            eta_state(w, trial);
            got = pen_deviance(w, trial);
            if (got <= pdev + 1e-13 * fabs(pdev)) {
                break;
            }
        }
        if (!(got <= pdev + 1e-13 * fabs(pdev))) {
            memcpy(beta, b0, p * sizeof(double));
            compute_xb(w, beta);
            eta_state(w, w->u);
            if (factorize(w) != 0) {
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

/* Takahashi's step over a contiguous run of len rows: tb += la sc, and
** the dot product of lb and sc (four sums: the additions overlap). */
static double run_step(const double *restrict sc, const double *restrict lb,
                       double la, double *restrict tb, int len)
{
    double x0 = 0, x1 = 0, x2 = 0, x3 = 0;
    int b = 0;
    for (; b + 3 < len; b += 4) {
        x0 += lb[b] * sc[b];
        x1 += lb[b + 1] * sc[b + 1];
        x2 += lb[b + 2] * sc[b + 2];
        x3 += lb[b + 3] * sc[b + 3];
        tb[b] += la * sc[b];
        tb[b + 1] += la * sc[b + 1];
        tb[b + 2] += la * sc[b + 2];
        tb[b + 3] += la * sc[b + 3];
    }
    for (; b < len; b++) {
        x0 += lb[b] * sc[b];
        tb[b] += la * sc[b];
    }
    return (x0 + x1) + (x2 + x3);
}

/* Sigma = M^-1 on the pattern of the factor (in its permuted order), by
** Takahashi's recurrence on L D L': for column j from the last,
** Sigma_rj = -sum_k L_kj Sigma_rk and Sigma_jj = 1/D_j - sum_k L_kj
** Sigma_kj over the rows k > j of column j. */
static int selected_inverse(GlmmWork *w)
{
    const cholmod_factor *L = w->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double *Lx = L->x;
    double *S = w->sigma, *tk = w->tk;
    for (int j = w->q - 1; j >= 0; j--) {
        int p0 = Lp[j], m = Lnz[j] - 1;
        const int *R = Li + p0 + 1;
        const double *lj = Lx + p0 + 1;
        for (int a = 0; a < m; a++) {
            tk[a] = 0;
        }
        for (int a = 0; a < m; a++) {
            int ca = R[a], ptr = Lp[ca] + 1, end = Lp[ca] + Lnz[ca];
            double la = lj[a];
            tk[a] += la * S[Lp[ca]];
            int run = w->run[p0 + 1 + a];
            if (run >= 0) { /* rows R[a+1..] in a row in column ca */
                tk[a] +=
                    run_step(S + run, lj + a + 1, la, tk + a + 1, m - a - 1);
                continue;
            }
            for (int b = a + 1; b < m; b++) {
                while (ptr < end && Li[ptr] < R[b]) {
                    ptr++;
                }
                if (ptr >= end || Li[ptr] != R[b]) {
                    return -1;
                }
                double sab = S[ptr];
                tk[a] += lj[b] * sab;
                tk[b] += la * sab;
            }
        }
        double d = 1 / Lx[p0];
        for (int a = 0; a < m; a++) {
            S[p0 + 1 + a] = -tk[a];
            d += lj[a] * tk[a];
        }
        S[p0] = d;
    }
    return 0;
}

int glmm_gradient(GlmmWork *w, double *grad)
{
    const GlmmModel *m = w->m;
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    if (selected_inverse(w) != 0) {
        return -1;
    }
    double Sl[GLMM_MAX_TERMS * GLMM_MAX_K * GLMM_MAX_TERMS * GLMM_MAX_K];
    memset(w->sv, 0, (size_t)w->q * sizeof(double));
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *pos = w->spos + i * ns;
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        double *hm = w->hm + i * s;
        size_t at = 0;
        for (size_t a = 0; a < s; a++) {
            for (size_t b = a; b < s; b++) {
                Sl[a * s + b] = Sl[b * s + a] = w->sigma[pos[at++]];
            }
        }
        double h = 0;
        for (size_t a = 0; a < s; a++) {
            double x = 0;
            for (size_t b = 0; b < s; b++) {
                x += Sl[a * s + b] * gi[b];
            }
            hm[a] = x;
            h += gi[a] * x;
        }
        w->h[i] = h;
        double wd = w->w[i] * (1 - 2 * w->mu[i]) * h;
        for (size_t a = 0; a < s; a++) {
            w->sv[si[a]] += gi[a] * wd;
        }
    }
    if (solve(w, w->sv, w->v) != 0) {
        return -1;
    }
    memset(grad, 0, (size_t)w->n_par * sizeof(double));
    double *gb = grad + w->n_theta;
    const double *u = w->u, *v = w->v;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        double gv = 0;
        for (size_t a = 0; a < s; a++) {
            gv += gi[a] * v[si[a]];
        }
        double wi = w->w[i], ri = w->res[i];
        double c = -2 * ri + wi * (1 - 2 * w->mu[i]) * w->h[i] - wi * gv;
        for (int k = 0; k < w->xn[i]; k++) {
            gb[w->xj[w->xoff[i] + (size_t)k]] +=
                w->xv[w->xoff[i] + (size_t)k] * c;
        }
        const double *hm = w->hm + i * s;
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            int k = tm->k;
            const int *st = si + w->z_at[t]; /* the term's effects */
            double *gt = grad + w->th_off[t];
            int at = 0;
            for (int b = 0; b < k; b++) {
                double cb =
                    c * u[st[b]] + ri * v[st[b]] + 2 * wi * hm[w->z_at[t] + b];
                for (int a = b; a < (tm->diagonal ? b + 1 : k); a++) {
                    gt[at++] += zval(tm, i, a) * cb;
                }
            }
        }
    }
    return 0;
}

int glmm_mode_derivatives(GlmmWork *w)
{
    const GlmmModel *m = w->m;
    size_t s = (size_t)w->s, q = (size_t)w->q;
    size_t nt = (size_t)w->n_theta;
    double *D = w->dudx;
    memset(D, 0, (size_t)w->n_par * q * sizeof(double));
    const double *u = w->u;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        double wi = w->w[i], ri = w->res[i];
        /* beta_j: -G'W X_j */
        for (int k = 0; k < w->xn[i]; k++) {
            double *col = D + (nt + (size_t)w->xj[w->xoff[i] + (size_t)k]) * q;
            double f = -wi * w->xv[w->xoff[i] + (size_t)k];
            for (size_t a = 0; a < s; a++) {
                col[si[a]] += gi[a] * f;
            }
        }
        /* theta (a, b) of term t: A' r - G'W A u, A = Z dLambda */
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            const int *st = si + w->z_at[t];
            int at = w->th_off[t];
            for (int b = 0; b < tm->k; b++) {
                int last = tm->diagonal ? b + 1 : tm->k;
                for (int a = b; a < last; a++, at++) {
                    double *col = D + (size_t)at * q;
                    double za = zval(tm, i, a);
                    col[st[b]] += za * ri;
                    double f = -wi * za * u[st[b]];
                    for (size_t c = 0; c < s; c++) {
                        col[si[c]] += gi[c] * f;
                    }
                }
            }
        }
    }
    for (int j = 0; j < w->n_par; j++) {
        if (solve(w, D + (size_t)j * q, D + (size_t)j * q) != 0) {
            return -1;
        }
    }
    return 0;
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
