/*
** The workspace of a GLMM fit: the design checked and laid out per row --
** the rows sorted by their level of the term with the most effects and cut
** into chunks of whole levels (the tasks of the passes), X as its distinct
** rows -- and the factor of M = G'WG + I set up (glmm_block.c when the
** design allows, else glmm_cholmod.c). Numerics in glmm_pirls.c.
*/
#include <string.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

#define CHUNK_ROWS 16384 /* rows of a pass's task */
#define MAX_CHUNKS 256

void glmm_work_free(GlmmWork *w)
{
    if (!w) {
        return;
    }
    glmm_pool_close(w->pool);
    glmm_block_free(w->blk);
    glmm_chol_free(w->chol);
    void *arrays[] = {
        w->order,  w->y,    w->supp, w->zs,  w->g,     w->xw,        w->xrow,
        w->xr_off, w->xr_j, w->xr_v, w->xbr, w->chunk, w->chunk_lev, w->part,
        w->rbuf,   w->u,    w->u2,   w->ut,  w->mu,    w->w,         w->res,
        w->rhs,    w->beta, w->hm,   w->h,   w->sv,    w->v,         w->S,
        w->bp,     w->xp,   w->dudx, w->pbuf};
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

/* The rows sorted (stably) by their level of term big: w->order. */
static int sort_rows(GlmmWork *w)
{
    const GlmmTerm *tb = &w->m->term[w->big];
    size_t *start = sim_calloc((size_t)tb->n_levels + 1, sizeof(size_t));
    if (!start) {
        return -1;
    }
    for (int i = 0; i < w->n; i++) {
        start[tb->level[i] + 1]++;
    }
    for (int j = 0; j < tb->n_levels; j++) {
        start[j + 1] += start[j];
    }
    for (int i = 0; i < w->n; i++) {
        w->order[start[tb->level[i]]++] = (size_t)i;
    }
    sim_free(start);
    return 0;
}

static uint64_t hash_row(const double *x, int p)
{
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < p; k++) {
        uint64_t v;
        memcpy(&v, &x[k], sizeof v);
        h = (h ^ v) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* X as its distinct rows (simlab's designs have a few: intercept, phase,
** condition and session dummies) and each row's index into them. */
static int distinct_x(GlmmWork *w)
{
    const GlmmModel *m = w->m;
    size_t n = (size_t)w->n, p = (size_t)w->p, cap = 64;
    while (cap < 2 * n) {
        cap *= 2;
    }
    int *slot = sim_malloc(cap * sizeof(int));
    size_t *first = sim_malloc(n * sizeof(size_t)); /* a distinct row's
                                                     ** model row */
    if (!slot || !first) {
        sim_free(slot);
        sim_free(first);
        return -1;
    }
    memset(slot, -1, cap * sizeof(int));
    size_t nnz = 0;
    w->n_xr = 0;
    for (size_t i = 0; i < n; i++) {
        const double *x = m->X + w->order[i] * p;
        size_t h = (size_t)hash_row(x, w->p) & (cap - 1);
        while (slot[h] >= 0 &&
               memcmp(m->X + first[slot[h]] * p, x, p * sizeof(double)) != 0) {
            h = (h + 1) & (cap - 1);
        }
        if (slot[h] < 0) {
            slot[h] = w->n_xr;
            first[w->n_xr++] = w->order[i];
            for (size_t j = 0; j < p; j++) {
                nnz += x[j] != 0;
            }
        }
        w->xrow[i] = slot[h];
    }
    sim_free(slot);
    w->xr_off = sim_malloc(((size_t)w->n_xr + 1) * sizeof(size_t));
    w->xr_j = sim_malloc((nnz + 1) * sizeof(int));
    w->xr_v = sim_malloc((nnz + 1) * sizeof(double));
    w->xbr = sim_malloc(((size_t)w->n_xr + 1) * sizeof(double));
    if (!w->xr_off || !w->xr_j || !w->xr_v || !w->xbr) {
        sim_free(first);
        return -1;
    }
    nnz = 0;
    for (int r = 0; r < w->n_xr; r++) {
        const double *x = m->X + first[r] * p;
        w->xr_off[r] = nnz;
        for (size_t j = 0; j < p; j++) {
            if (x[j] != 0) {
                w->xr_j[nnz] = (int)j;
                w->xr_v[nnz++] = x[j];
            }
        }
    }
    w->xr_off[w->n_xr] = nnz;
    sim_free(first);
    return 0;
}

/* The chunks: about CHUNK_ROWS rows each, of whole levels of B (a chunk
** owns its levels' effects), fixed by the data alone. */
static int make_chunks(GlmmWork *w)
{
    const GlmmTerm *tb = &w->m->term[w->big];
    size_t n = (size_t)w->n;
    size_t want = (n + CHUNK_ROWS / 2) / CHUNK_ROWS;
    want = want < 1 ? 1 : want > MAX_CHUNKS ? MAX_CHUNKS : want;
    size_t per = (n + want - 1) / want;
    w->chunk = sim_malloc((want + 2) * sizeof(size_t));
    w->chunk_lev = sim_malloc((want + 2) * sizeof(int));
    if (!w->chunk || !w->chunk_lev) {
        return -1;
    }
    int c = 0;
    w->chunk[0] = 0;
    w->chunk_lev[0] = tb->level[w->order[0]];
    for (size_t i = 1; i < n; i++) {
        int lev = tb->level[w->order[i]];
        if (lev != tb->level[w->order[i - 1]] && i - w->chunk[c] >= per &&
            (size_t)c + 1 < want) {
            w->chunk[++c] = i;
            w->chunk_lev[c] = lev;
        }
    }
    w->n_chunks = c + 1;
    w->chunk[w->n_chunks] = n;
    w->chunk_lev[w->n_chunks] = tb->n_levels;
    w->chunk_lev[0] = 0;
    w->part_n = w->n_par + w->p + 8;
    w->part =
        sim_calloc((size_t)w->n_chunks * (size_t)w->part_n, sizeof(double));
    return w->part ? 0 : -1;
}

/* The rows' effects and covariates (sorted order); B's effects first. */
static void lay_out(GlmmWork *w)
{
    const GlmmModel *m = w->m;
    int q = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < m->n_terms; t++) {
            if ((t == w->big) == (pass == 0)) {
                w->off[t] = q;
                q += m->term[t].n_levels * m->term[t].k;
            }
        }
    }
    size_t s = (size_t)w->s;
    for (size_t i = 0; i < (size_t)w->n; i++) {
        size_t r = w->order[i];
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            for (int c = 0; c < tm->k; c++) {
                size_t at = i * s + (size_t)(w->z_at[t] + c);
                w->supp[at] = w->off[t] + tm->level[r] * tm->k + c;
                w->zs[at] = tm->z ? tm->z[r * (size_t)tm->k + (size_t)c] : 1.0;
            }
        }
    }
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
    w->n = m->n;
    w->p = m->p;
    size_t most = 0;
    for (int t = 0; t < m->n_terms; t++) {
        size_t qt = (size_t)m->term[t].n_levels * (size_t)m->term[t].k;
        w->th_off[t] = w->n_theta;
        w->z_at[t] = w->s;
        w->q += (int)qt;
        w->n_theta += glmm_term_n_theta(&m->term[t]);
        w->s += m->term[t].k;
        if (qt > most) {
            most = qt;
            w->big = t;
        }
    }
    w->n_par = w->n_theta + w->p;
    w->shape =
        m->n_terms == 2 && w->big == 0 && m->term[1].k == 1 && m->term[0].k <= 2
            ? m->term[0].k
            : 0;
    size_t n = (size_t)w->n, q = (size_t)w->q, s = (size_t)w->s,
           p = (size_t)w->p, np = (size_t)w->n_par;
    w->order = sim_malloc(n * sizeof(size_t));
    w->y = sim_malloc(n);
    w->supp = sim_malloc(n * s * sizeof(int));
    w->zs = sim_malloc(n * s * sizeof(double));
    w->g = sim_malloc(n * s * sizeof(double));
    w->xrow = sim_malloc(n * sizeof(int));
    w->u = sim_calloc(q, sizeof(double));
    w->u2 = sim_malloc(q * sizeof(double));
    w->ut = sim_malloc(q * sizeof(double));
    w->mu = sim_malloc(n * sizeof(double));
    w->w = sim_malloc(n * sizeof(double));
    w->res = sim_malloc(n * sizeof(double));
    w->rhs = sim_malloc(q * sizeof(double));
    w->beta = sim_calloc(p, sizeof(double));
    w->hm = sim_malloc(n * s * sizeof(double));
    w->h = sim_malloc(n * sizeof(double));
    w->sv = sim_malloc(q * sizeof(double));
    w->v = sim_malloc(q * sizeof(double));
    w->S = sim_malloc(p * p * sizeof(double));
    w->bp = sim_malloc(q * p * sizeof(double));
    w->xp = sim_malloc(q * p * sizeof(double));
    w->pbuf = sim_malloc((4 * p + 2 * p * p) * sizeof(double));
    w->dudx = sim_malloc(np * q * sizeof(double));
    int ok = w->order && w->y && w->supp && w->zs && w->g && w->xrow && w->u &&
             w->u2 && w->ut && w->mu && w->w && w->res && w->rhs && w->beta &&
             w->hm && w->h && w->sv && w->v && w->S && w->bp && w->xp &&
             w->pbuf && w->dudx;
    ok = ok && sort_rows(w) == 0 && distinct_x(w) == 0 && make_chunks(w) == 0;
    if (ok) {
        lay_out(w);
        for (size_t i = 0; i < n; i++) {
            w->y[i] = m->y[w->order[i]];
        }
    }
    int blocked = ok ? glmm_block_new(w) : -1;
    ok = blocked == 1 || (blocked == 0 && glmm_chol_new(w) == 0);
    if (ok) {
        /* the chunks' buffers of R's sums (scatter passes) */
        int qr = w->blk ? w->blk->qr : 0;
        w->scatter = w->blk ? w->n_chunks : 1;
        w->rbuf_cols = w->n_par > w->p ? w->n_par : w->p;
        w->rbuf = sim_malloc(
            ((size_t)w->scatter * (size_t)w->rbuf_cols * (size_t)qr + 1) *
            sizeof(double));
        ok = w->rbuf != NULL;
    }
    if (ok && (size_t)w->n_xr <= 4096) { /* else X'WX row by row */
        w->xw =
            sim_malloc((size_t)w->n_chunks * (size_t)w->n_xr * sizeof(double));
        ok = w->xw != NULL;
    }
    if (ok && glmm_pool_open(m->threads, &w->pool) != 0) {
        w->pool = NULL; /* no threads: the caller's alone */
    }
    if (!ok) {
        int status = w->chol ? glmm_chol_status(w->chol) : 0;
        glmm_work_free(w);
        return status != 0
                   ? sim_fail(err, SIM_ERR_INVALID,
                              "glmm: CHOLMOD analysis failed (status %d)",
                              status)
                   : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    *out = w;
    return SIM_OK;
}
