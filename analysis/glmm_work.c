/*
** The workspace of a GLMM fit: the design checked and laid out per row, the
** random effects renumbered in the fill-reducing order CHOLMOD's AMD picks
** for M = G'WG + I, the pattern of M with where each row adds to it, and
** the symbolic factorisation. Numerics in glmm_pirls.c.
*/
#include <string.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

void glmm_work_free(GlmmWork *w)
{
    if (!w) {
        return;
    }
    if (w->cm_started) {
        cholmod_free_sparse(&w->M, &w->cm);
        cholmod_free_factor(&w->L, &w->cm);
        cholmod_free_dense(&w->B, &w->cm);
        cholmod_free_dense(&w->Xs, &w->cm);
        cholmod_free_dense(&w->Ys, &w->cm);
        cholmod_free_dense(&w->Es, &w->cm);
        cholmod_free_dense(&w->Bp, &w->cm);
        cholmod_free_dense(&w->Xp, &w->cm);
        cholmod_free_dense(&w->Yp, &w->cm);
        cholmod_free_dense(&w->Ep, &w->cm);
        cholmod_finish(&w->cm);
    }
    void *arrays[] = {w->supp, w->g,    w->xb,    w->u,    w->u2,    w->eta,
                      w->mu,   w->w,    w->res,   w->rhs,  w->beta,  w->pinv,
                      w->spos, w->mpos, w->mdiag, w->tk,   w->hm,    w->h,
                      w->sv,   w->v,    w->S,     w->pbuf, w->sigma, w->run,
                      w->dudx, w->ex,   w->xj,    w->xv,   w->xn,    w->xoff};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        sim_free(arrays[i]);
    }
    sim_free(w);
}

static int check_model(const GlmmModel *m, SimError *err)
{
    if (m->n < 1 || m->p < 1 || !m->y || !m->X) {
        return sim_fail(err, SIM_ERR_INVALID, "glmm: empty design");
    }
    if (m->n_terms < 1 || m->n_terms > GLMM_MAX_TERMS) {
        return sim_fail(err, SIM_ERR_INVALID, "glmm: %d random-effect terms",
                        m->n_terms);
    }
    for (int t = 0; t < m->n_terms; t++) {
        const GlmmTerm *tm = &m->term[t];
        if (tm->k < 1 || tm->k > GLMM_MAX_K || tm->n_levels < 1 || !tm->level ||
            (tm->k > 1 && !tm->z)) {
            return sim_fail(err, SIM_ERR_INVALID, "glmm: term %d malformed",
                            t + 1);
        }
        for (int i = 0; i < m->n; i++) {
            if (tm->level[i] < 0 || tm->level[i] >= tm->n_levels) {
                return sim_fail(err, SIM_ERR_INVALID,
                                "glmm: term %d: observation %d has level %d "
                                "of %d",
                                t + 1, i + 1, tm->level[i], tm->n_levels);
            }
        }
    }
    return SIM_OK;
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
static cholmod_sparse *pattern_of_m(GlmmWork *w)
{
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    size_t nz = (size_t)w->n * ns + (size_t)w->q;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)w->q, (size_t)w->q,
                                                  nz, 1, CHOLMOD_REAL, &w->cm);
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
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, 0, &w->cm);
    cholmod_free_triplet(&T, &w->cm);
    return A;
}

/* Orders the effects (AMD on the pattern of M), renumbers supp in that
** order, builds M's pattern and the positions rows add to, and analyses
** it with the natural order. Returns 0, or -1 when CHOLMOD fails. */
static int structure(GlmmWork *w)
{
    cholmod_sparse *A = pattern_of_m(w);
    if (!A) {
        return -1;
    }
    w->cm.nmethods = 1;
    w->cm.method[0].ordering = CHOLMOD_AMD;
    w->cm.postorder = 1;
    cholmod_factor *L0 = cholmod_analyze(A, &w->cm);
    cholmod_free_sparse(&A, &w->cm);
    if (!L0) {
        return -1;
    }
    const int *perm = L0->Perm;
    for (int k = 0; k < w->q; k++) {
        w->pinv[perm[k]] = k;
    }
    cholmod_free_factor(&L0, &w->cm);
    size_t s = (size_t)w->s, ns = s * (s + 1) / 2;
    for (size_t i = 0; i < (size_t)w->n * s; i++) {
        w->supp[i] = w->pinv[w->supp[i]];
    }
    w->M = pattern_of_m(w);
    if (!w->M) {
        return -1;
    }
    for (int j = 0; j < w->q; j++) {
        w->mdiag[j] = find_entry(w->M, j, j);
    }
    for (size_t i = 0; i < (size_t)w->n; i++) {
        const int *si = w->supp + i * s;
        int *pos = w->mpos + i * ns;
        for (size_t a = 0; a < s; a++) {
            for (size_t b = a; b < s; b++) {
                int r = si[a] < si[b] ? si[a] : si[b];
                int c = si[a] < si[b] ? si[b] : si[a];
                *pos++ = find_entry(w->M, r, c);
            }
        }
    }
    /* already in a fill-reducing, postordered order: factor as it is */
    w->cm.method[0].ordering = CHOLMOD_NATURAL;
    w->cm.postorder = 0;
    w->L = cholmod_analyze(w->M, &w->cm);
    return w->L ? 0 : -1;
}

int glmm_work_new(const GlmmModel *m, GlmmWork **out, SimError *err)
{
    *out = NULL;
    int rc = check_model(m, err);
    if (rc != SIM_OK) {
        return rc;
    }
    GlmmWork *w = sim_calloc(1, sizeof *w);
    if (!w) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    w->m = m;
    w->y = m->y;
    w->n = m->n;
    w->p = m->p;
    for (int t = 0; t < m->n_terms; t++) {
        w->off[t] = w->q;
        w->th_off[t] = w->n_theta;
        w->z_at[t] = w->s;
        w->q += m->term[t].n_levels * m->term[t].k;
        w->n_theta += glmm_term_n_theta(&m->term[t]);
        w->s += m->term[t].k;
    }
    w->n_par = w->n_theta + w->p;
    size_t n = (size_t)w->n, q = (size_t)w->q, s = (size_t)w->s,
           p = (size_t)w->p, ns = s * (s + 1) / 2, np = (size_t)w->n_par;
    w->supp = sim_malloc(n * s * sizeof(int));
    w->g = sim_malloc(n * s * sizeof(double));
    w->xb = sim_malloc(n * sizeof(double));
    w->u = sim_calloc(q, sizeof(double));
    w->u2 = sim_malloc(q * sizeof(double));
    w->eta = sim_malloc(n * sizeof(double));
    w->mu = sim_malloc(n * sizeof(double));
    w->w = sim_malloc(n * sizeof(double));
    w->res = sim_malloc(n * sizeof(double));
    w->rhs = sim_malloc(q * sizeof(double));
    w->beta = sim_calloc(p, sizeof(double));
    w->pinv = sim_malloc(q * sizeof(int));
    w->spos = sim_malloc(n * ns * sizeof(int));
    w->mpos = sim_malloc(n * ns * sizeof(int));
    w->mdiag = sim_malloc(q * sizeof(int));
    w->tk = sim_malloc(q * sizeof(double));
    w->hm = sim_malloc(n * s * sizeof(double));
    w->h = sim_malloc(n * sizeof(double));
    w->sv = sim_malloc(q * sizeof(double));
    w->v = sim_malloc(q * sizeof(double));
    w->S = sim_malloc(p * p * sizeof(double));
    w->pbuf = sim_malloc((4 * p + 2 * p * p) * sizeof(double));
    w->dudx = sim_malloc(np * q * sizeof(double));
    w->ex = sim_malloc(n * sizeof(double));
    size_t nnz = 0; /* X is mostly dummies: keep its nonzeros */
    for (size_t i = 0; i < n * p; i++) {
        nnz += m->X[i] != 0;
    }
    w->xj = sim_malloc((nnz + 1) * sizeof(int));
    w->xv = sim_malloc((nnz + 1) * sizeof(double));
    w->xn = sim_malloc(n * sizeof(int));
    w->xoff = sim_malloc(n * sizeof(size_t));
    if (!w->ex || !w->xj || !w->xv || !w->xn || !w->xoff || !w->supp || !w->g ||
        !w->xb || !w->u || !w->u2 || !w->eta || !w->mu || !w->w || !w->res ||
        !w->rhs || !w->beta || !w->pinv || !w->spos || !w->mpos || !w->mdiag ||
        !w->tk || !w->hm || !w->h || !w->sv || !w->v || !w->S || !w->pbuf ||
        !w->dudx) {
        glmm_work_free(w);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    nnz = 0;
    for (size_t i = 0; i < n; i++) {
        w->xoff[i] = nnz;
        for (size_t j = 0; j < p; j++) {
            if (m->X[i * p + j] != 0) {
                w->xj[nnz] = (int)j;
                w->xv[nnz++] = m->X[i * p + j];
            }
        }
        w->xn[i] = (int)(nnz - w->xoff[i]);
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            for (int c = 0; c < tm->k; c++) {
                w->supp[i * s + (size_t)(w->z_at[t] + c)] =
                    w->off[t] + tm->level[i] * tm->k + c;
            }
        }
    }
    cholmod_start(&w->cm);
    w->cm_started = 1;
    w->cm.print = 0;
    w->cm.supernodal = CHOLMOD_SIMPLICIAL; /* the selected inverse reads
                                           ** L's columns */
    w->cm.final_ll = 0;
    int ok = structure(w) == 0;
    w->B = ok ? cholmod_zeros(q, 1, CHOLMOD_REAL, &w->cm) : NULL;
    w->Bp = ok ? cholmod_zeros(q, p, CHOLMOD_REAL, &w->cm) : NULL;
    if (!ok || !w->B || !w->Bp) {
        int status = w->cm.status;
        glmm_work_free(w);
        return status == CHOLMOD_OUT_OF_MEMORY
                   ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                   : sim_fail(err, SIM_ERR_INVALID,
                              "glmm: CHOLMOD analysis failed (status %d)",
                              status);
    }
    *out = w;
    return SIM_OK;
}
