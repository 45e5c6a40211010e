/*
** The factor of M = G'WG + I by CHOLMOD (glmm_int.h), for designs the
** blocked factor does not take (more than GLMM_DENSE_MAX effects beside
** the largest term): the effects renumbered in the fill-reducing order
** AMD picks for M's pattern, once, so that M is assembled and factored
** (simplicial LDL') in that order; the selected inverse of M on the
** factor's pattern by Takahashi's recurrence.
*/
#include <math.h>
#include <string.h>

#include <cholmod.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

struct GlmmChol {
    cholmod_common cm;
    cholmod_sparse *M; /* q x q, upper triangle (stype 1) */
    int *mpos;         /* n x s(s+1)/2: where row i adds to M->x */
    int *mdiag;        /* q: the diagonal of M in M->x */
    cholmod_factor *L;
    cholmod_dense *B, *Xs, *Ys, *Es; /* solve buffers, q x 1 */
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
    int status;     /* CHOLMOD's status when setting up failed */
};

void glmm_chol_free(GlmmChol *c)
{
    if (!c) {
        return;
    }
    cholmod_free_sparse(&c->M, &c->cm);
    cholmod_free_factor(&c->L, &c->cm);
    cholmod_free_dense(&c->B, &c->cm);
    cholmod_free_dense(&c->Xs, &c->cm);
    cholmod_free_dense(&c->Ys, &c->cm);
    cholmod_free_dense(&c->Es, &c->cm);
    cholmod_finish(&c->cm);
    void *arrays[] = {c->mpos,  c->mdiag, c->pinv, c->spos,
                      c->sigma, c->run,   c->tk};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        sim_free(arrays[i]);
    }
    sim_free(c);
}

int glmm_chol_status(const GlmmChol *c)
{
    return c->status == CHOLMOD_OUT_OF_MEMORY ? 0 : c->status;
}

/* The position of (row r, column c), r <= c, in the sorted upper-triangle
** matrix A; -1 when absent. */
static int find_entry(const cholmod_sparse *A, int r, int c)
{
    const int *Ap = A->p, *Ai = A->i;
    int lo = Ap[c], hi = Ap[c + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (Ai[mid] == r) {
            return mid;
        }
        if (Ai[mid] < r) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/* The upper triangle of the pattern of M for the current numbering of the
** effects (supp): a pair for every two effects of a row, and the
** diagonal. */
static cholmod_sparse *pattern_of_m(GlmmWork *w, GlmmChol *ch)
{
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    size_t nz = (size_t)w->n * ns + (size_t)w->q;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)w->q, (size_t)w->q,
                                                  nz, 1, CHOLMOD_REAL, &ch->cm);
    if (!T) {
        return NULL;
    }
    int *ti = T->i, *tj = T->j;
    double *tx = T->x;
    size_t k = 0;
    for (int j = 0; j < w->q; j++, k++) {
        ti[k] = tj[k] = j;
        tx[k] = 1;
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *si = w->supp + i * s;
        for (size_t a = 0; a < s; a++) {
            for (size_t b = a; b < s; b++, k++) {
                ti[k] = si[a] < si[b] ? si[a] : si[b];
                tj[k] = si[a] < si[b] ? si[b] : si[a];
                tx[k] = 1;
            }
        }
    }
    T->nnz = k;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, 0, &ch->cm);
    cholmod_free_triplet(&T, &ch->cm);
    return A;
}

/* Orders the effects (AMD on the pattern of M), renumbers supp in that
** order, builds M's pattern and the positions rows add to, and analyses
** it with the natural order. Returns 0, or -1 when CHOLMOD fails. */
static int structure(GlmmWork *w, GlmmChol *ch)
{
    cholmod_sparse *A = pattern_of_m(w, ch);
    if (!A) {
        return -1;
    }
    ch->cm.nmethods = 1;
    ch->cm.method[0].ordering = CHOLMOD_AMD;
    ch->cm.postorder = 1;
    cholmod_factor *L0 = cholmod_analyze(A, &ch->cm);
    cholmod_free_sparse(&A, &ch->cm);
    if (!L0) {
        return -1;
    }
    const int *perm = L0->Perm;
    for (int k = 0; k < w->q; k++) {
        ch->pinv[perm[k]] = k;
    }
    cholmod_free_factor(&L0, &ch->cm);
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    for (size_t i = 0; i < (size_t)w->n * s; i++) {
        w->supp[i] = ch->pinv[w->supp[i]];
    }
    ch->M = pattern_of_m(w, ch);
    if (!ch->M) {
        return -1;
    }
    for (int j = 0; j < w->q; j++) {
        ch->mdiag[j] = find_entry(ch->M, j, j);
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *si = w->supp + i * s;
        int *pos = ch->mpos + i * ns;
        for (size_t a = 0; a < s; a++) {
            for (size_t b = a; b < s; b++) {
                int r = si[a] < si[b] ? si[a] : si[b];
                int c = si[a] < si[b] ? si[b] : si[a];
                *pos++ = find_entry(ch->M, r, c);
            }
        }
    }
    /* already in a fill-reducing, postordered order: factor as it is */
    ch->cm.method[0].ordering = CHOLMOD_NATURAL;
    ch->cm.postorder = 0;
    ch->L = cholmod_analyze(ch->M, &ch->cm);
    return ch->L ? 0 : -1;
}

int glmm_chol_new(GlmmWork *w)
{
    GlmmChol *ch = sim_calloc(1, sizeof *ch);
    if (!ch) {
        return -1;
    }
    w->chol = ch;
    size_t n = (size_t)w->n, q = (size_t)w->q, s = (size_t)w->s;
    size_t ns = s * (s + 1) / 2;
    ch->pinv = sim_malloc(q * sizeof(int));
    ch->spos = sim_malloc(n * ns * sizeof(int));
    ch->mpos = sim_malloc(n * ns * sizeof(int));
    ch->mdiag = sim_malloc(q * sizeof(int));
    ch->tk = sim_malloc(q * sizeof(double));
    if (!ch->pinv || !ch->spos || !ch->mpos || !ch->mdiag || !ch->tk) {
        return -1;
    }
    cholmod_start(&ch->cm);
    ch->cm.print = 0;
    ch->cm.supernodal = CHOLMOD_SIMPLICIAL; /* the selected inverse reads
                                            ** L's columns */
    ch->cm.final_ll = 0;
    int ok = structure(w, ch) == 0;
    ch->B = ok ? cholmod_zeros(q, 1, CHOLMOD_REAL, &ch->cm) : NULL;
    if (!ok || !ch->B) {
        ch->status = ch->cm.status;
        return -1;
    }
    return 0;
}

/* w->run for the factor's pattern: Takahashi's recurrence for column j
** reads, for each row R[a] of it, the entries of column R[a] in the rows
** R[a+1..] of column j; where they are contiguous (as in a nested
** pattern) it reads them as a vector. */
static void find_runs(GlmmWork *w, GlmmChol *ch)
{
    const cholmod_factor *L = ch->L;
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
            ch->run[p0 + 1 + a] = at;
        }
    }
}

/* Positions of Sigma_ab (a <= b in a row's support) in the factor's
** arrays, once per pattern. */
static int find_positions(GlmmWork *w, GlmmChol *ch)
{
    const cholmod_factor *L = ch->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz, *perm = L->Perm;
    if (ch->n_sigma < L->nzmax) {
        sim_free(ch->sigma);
        sim_free(ch->run);
        ch->sigma = sim_malloc(L->nzmax * sizeof(double));
        ch->run = sim_malloc(L->nzmax * sizeof(int));
        if (!ch->sigma || !ch->run) {
            ch->n_sigma = 0;
            return -1;
        }
        ch->n_sigma = L->nzmax;
    }
    find_runs(w, ch);
    for (int k = 0; k < w->q; k++) {
        ch->pinv[perm[k]] = k;
    }
    int s = w->s, ns = s * (s + 1) / 2;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *si = w->supp + i * (size_t)s;
        int *pos = ch->spos + i * (size_t)ns, at = 0;
        for (int a = 0; a < s; a++) {
            for (int b = a; b < s; b++) {
                int pa = ch->pinv[si[a]], pb = ch->pinv[si[b]];
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
    ch->pos_ready = 1;
    ch->pos_x = L->x;
    return 0;
}

int glmm_chol_factor(GlmmWork *w)
{
    GlmmChol *ch = w->chol;
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    double *mx = ch->M->x;
    memset(mx, 0, ch->M->nzmax * sizeof(double));
    for (int j = 0; j < w->q; j++) {
        mx[ch->mdiag[j]] = 1;
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *pos = ch->mpos + i * ns;
        double wi = w->w[i];
        for (size_t a = 0; a < s; a++) {
            double wg = wi * gi[a];
            for (size_t b = a; b < s; b++) {
                mx[*pos++] += wg * gi[b];
            }
        }
    }
    if (!cholmod_factorize(ch->M, ch->L, &ch->cm) ||
        ch->cm.status != CHOLMOD_OK || ch->L->is_super || ch->L->is_ll) {
        return -1;
    }
    const int *Lp = ch->L->p;
    const double *Lx = ch->L->x;
    double ld = 0;
    for (int j = 0; j < w->q; j++) {
        ld += log(Lx[Lp[j]]);
    }
    w->ldl2 = ld;
    if (!ch->pos_ready || ch->pos_x != ch->L->x) {
        return find_positions(w, ch);
    }
    return 0;
}

int glmm_chol_solve(GlmmWork *w, const double *b, double *x, int ncol)
{
    GlmmChol *ch = w->chol;
    size_t q = (size_t)w->q;
    for (int c = 0; c < ncol; c++) {
        memcpy(ch->B->x, b + (size_t)c * q, q * sizeof(double));
        if (!cholmod_solve2(CHOLMOD_A, ch->L, ch->B, NULL, &ch->Xs, NULL,
                            &ch->Ys, &ch->Es, &ch->cm)) {
            return -1;
        }
        memcpy(x + (size_t)c * q, ch->Xs->x, q * sizeof(double));
    }
    return 0;
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
int glmm_chol_selinv(GlmmWork *w)
{
    GlmmChol *ch = w->chol;
    const cholmod_factor *L = ch->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double *Lx = L->x;
    double *S = ch->sigma, *tk = ch->tk;
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
            int run = ch->run[p0 + 1 + a];
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

void glmm_chol_row_sigma(const GlmmWork *w, size_t i, double *sl)
{
    const GlmmChol *ch = w->chol;
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    const int *pos = ch->spos + i * ns;
    size_t at = 0;
    for (size_t a = 0; a < s; a++) {
        for (size_t b = a; b < s; b++) {
            sl[a * s + b] = sl[b * s + a] = ch->sigma[pos[at++]];
        }
    }
}
