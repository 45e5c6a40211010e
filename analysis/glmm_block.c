/*
** The blocked factor of M = G'WG + I (glmm_int.h, GlmmBlock) for a term B
** with many levels beside few other effects R, as MixedModels.jl factors
** it: each level's k x k block of A, its rows of C, the dense Schur
** complement S of the R effects; solves; the entries of M^-1 the rows
** need (its diagonal blocks, the (R, B) block on C's pattern, the R
** block). The levels' work runs as the passes' chunks; the S update in
** bands of S's rows, each entry summed over the levels in order.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

/* A pass of the factor: its work space and whether a level failed. */
typedef struct BlockCtx {
    GlmmWork *w;
    const double *b; /* solve: right-hand sides */
    double *x;       /* solve: solutions */
    const double *u; /* state: the modes */
    int flags;       /* state: GLMM_DEV, GLMM_FACTOR, GLMM_SCORE */
    int failed;
} BlockCtx;

void glmm_block_free(GlmmBlock *b)
{
    if (!b) {
        return;
    }
    void *arrays[] = {b->lev_row, b->lev_rp, b->lev_r, b->row_slot, b->la,
                      b->lc,      b->dd,     b->ls,    b->sig_rr,   b->sig_rb,
                      b->sig_bb,  b->band,   b->tmp};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        sim_free(arrays[i]);
    }
    sim_free(b);
}

/* The R columns of the support (not B's), in order. */
static int r_columns(const GlmmWork *w, int *cols)
{
    int n = 0, z0 = w->z_at[w->big], k = w->m->term[w->big].k;
    for (int a = 0; a < w->s; a++) {
        if (a < z0 || a >= z0 + k) {
            cols[n++] = a;
        }
    }
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Each level's R effects (sorted) and each row's slots in them. */
static int level_lists(GlmmWork *w, GlmmBlock *b)
{
    size_t s = (size_t)w->s, nr = (size_t)(w->s - b->kb);
    int cols[GLMM_MAX_TERMS * GLMM_MAX_K];
    r_columns(w, cols);
    int qb = b->nb * b->kb;
    int *stamp = sim_malloc(((size_t)b->qr + 1) * sizeof(int));
    int *pos = sim_malloc(((size_t)b->qr + 1) * sizeof(int));
    if (!stamp || !pos) {
        sim_free(stamp);
        sim_free(pos);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t total = 0;
        for (int e = 0; e < b->qr; e++) {
            stamp[e] = -1;
        }
        for (int j = 0; j < b->nb; j++) {
            size_t m = 0;
            int *list = pass ? b->lev_r + b->lev_rp[j] : NULL;
            for (size_t i = b->lev_row[j]; i < b->lev_row[j + 1]; i++) {
                for (size_t a = 0; a < nr; a++) {
                    int e = w->supp[i * s + (size_t)cols[a]] - qb;
                    if (stamp[e] != j) {
                        stamp[e] = j;
                        if (list) {
                            list[m] = e;
                        }
                        m++;
                    }
                }
            }
            if (!pass) {
                b->lev_rp[j] = total;
                total += m;
                continue;
            }
            qsort(list, m, sizeof(int), cmp_int);
            for (size_t a = 0; a < m; a++) {
                pos[list[a]] = (int)a;
            }
            for (size_t i = b->lev_row[j]; i < b->lev_row[j + 1]; i++) {
                for (size_t a = 0; a < nr; a++) {
                    int e = w->supp[i * s + (size_t)cols[a]] - qb;
                    b->row_slot[i * nr + a] = pos[e];
                }
            }
        }
        if (!pass) {
            b->lev_rp[b->nb] = total;
            b->lev_r = sim_malloc((total + 1) * sizeof(int));
            if (!b->lev_r) {
                break;
            }
        }
    }
    sim_free(stamp);
    sim_free(pos);
    return b->lev_r ? 0 : -1;
}

int glmm_block_new(GlmmWork *w)
{
    const GlmmTerm *tb = &w->m->term[w->big];
    int qr = w->q - tb->n_levels * tb->k;
    if (qr > GLMM_DENSE_MAX || w->m->general) {
        return 0;
    }
    GlmmBlock *b = sim_calloc(1, sizeof *b);
    if (!b) {
        return -1;
    }
    w->blk = b;
    b->kb = tb->k;
    b->nb = tb->n_levels;
    b->qr = qr;
    size_t nb = (size_t)b->nb, kb = (size_t)b->kb, q2 = (size_t)qr;
    size_t nr = (size_t)(w->s - b->kb), n = (size_t)w->n;
    b->lev_row = sim_calloc(nb + 1, sizeof(size_t));
    b->lev_rp = sim_calloc(nb + 1, sizeof(size_t));
    b->row_slot = sim_malloc((n * nr + 1) * sizeof(int));
    if (!b->lev_row || !b->lev_rp || !b->row_slot) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        b->lev_row[tb->level[w->order[i]] + 1]++;
    }
    for (size_t j = 0; j < nb; j++) {
        b->lev_row[j + 1] += b->lev_row[j];
    }
    if (level_lists(w, b) != 0) {
        return -1;
    }
    size_t nm = b->lev_rp[nb];
    size_t cols = (size_t)(w->n_par > w->p ? w->n_par : w->p);
    b->la = sim_malloc((nb * kb * kb + 1) * sizeof(double));
    b->sig_bb = sim_malloc((nb * kb * kb + 1) * sizeof(double));
    b->lc = sim_calloc(nm * kb + 8, sizeof(double)); /* read past: 7 */
    b->sig_rb = sim_malloc((nm * kb + 1) * sizeof(double));
    b->dd = sim_malloc((nm + 1) * sizeof(double));
    b->ls = sim_malloc((q2 * q2 + 1) * sizeof(double));
    b->sig_rr = sim_calloc(q2 * q2 + 8, sizeof(double));
    b->tmp = sim_malloc((2 * cols * q2 + 1) * sizeof(double));
    b->dense = nm == nb * q2;
    /* bands of S's rows (multiples of 4, the tiles' height) with equal
    ** shares of its lower triangle */
    b->row_tasks = qr >= 64 ? 8 : 1;
    b->band = sim_malloc(((size_t)b->row_tasks + 1) * sizeof(int));
    if (!b->la || !b->sig_bb || !b->lc || !b->sig_rb || !b->dd || !b->ls ||
        !b->sig_rr || !b->tmp || !b->band) {
        return -1;
    }
    double tri = 0.5 * (double)qr * (double)(qr + 1);
    b->band[0] = 0;
    for (int t = 1, r = 0; t < b->row_tasks; t++) {
        while (r < qr &&
               0.5 * (double)r * (double)(r + 1) < tri * t / b->row_tasks) {
            r += 4;
        }
        r = r < qr ? r : qr;
        b->band[t] = r;
    }
    b->band[b->row_tasks] = qr;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Factorisation                                                        */

/* In-place Cholesky factor of the k x k row-major a (lower triangle
** read and written); returns log det a, or NAN when not positive
** definite. */
static double chol_small(double *a, int k)
{
    double ld = 0;
    for (int c = 0; c < k; c++) {
        double d = a[c * k + c];
        for (int e = 0; e < c; e++) {
            d -= a[c * k + e] * a[c * k + e];
        }
        if (!(d > 0)) {
            return NAN;
        }
        d = sqrt(d);
        a[c * k + c] = d;
        ld += 2 * log(d);
        for (int r = c + 1; r < k; r++) {
            double x = a[r * k + c];
            for (int e = 0; e < c; e++) {
                x -= a[r * k + e] * a[c * k + e];
            }
            a[r * k + c] = x / d;
        }
    }
    return ld;
}

#define INLINE static inline __attribute__((always_inline))

#define ROW_BLOCK 64

/* The state of rows i0..i1 at u (as glmm_row_state(), their exp and log
** taken a block at a time by glmm_dense_exp() and glmm_dense_log()); with
** with_dev each row's -log P(y_i | eta) is added to *dev in row order. */
INLINE void rows_state(GlmmWork *w, size_t i0, size_t i1, const double *u,
                       int with_dev, double *dev, const int s)
{
    double e[ROW_BLOCK], ex[ROW_BLOCK];
    for (size_t b0 = i0; b0 < i1; b0 += ROW_BLOCK) {
        int nb = i1 - b0 < ROW_BLOCK ? (int)(i1 - b0) : ROW_BLOCK;
        for (int k = 0; k < nb; k++) {
            size_t i = b0 + (size_t)k;
            const double *gi = w->g + i * (size_t)s;
            const int *si = w->supp + i * (size_t)s;
            double v = w->xbr[w->xrow[i]];
            for (int a = 0; a < s; a++) {
                v += gi[a] * u[si[a]];
            }
            e[k] = v;
            ex[k] = -fabs(v);
        }
        glmm_dense_exp(ex, nb);
        for (int k = 0; k < nb; k++) {
            size_t i = b0 + (size_t)k;
            double den = 1 + ex[k];
            double mu = e[k] >= 0 ? 1 / den : ex[k] / den;
            w->mu[i] = mu;
            w->w[i] = ex[k] / (den * den);
            w->res[i] = w->y[i] - mu;
            ex[k] = den;
        }
        if (!with_dev) {
            continue;
        }
        glmm_dense_log(ex, nb);
        for (int k = 0; k < nb; k++) {
            double l1 = ex[k], v = e[k];
            *dev += w->y[b0 + (size_t)k] ? (v >= 0 ? l1 : l1 - v)
                                         : (v >= 0 ? l1 + v : l1);
        }
    }
}

/* The levels of chunk t: each row's state at x->u; with GLMM_FACTOR A_j
** assembled and factored, C_j L_j^-T and the R diagonal's sums (log det
** A_j summed into the chunk's part[0]); with GLMM_SCORE the score, B's in
** w->rhs, R's in the chunk's buffer; the deviance into part[1]. kb: B's
** effects per level, nr: R columns per row, zb: where B's columns start
** in a row (constants for the common shapes, see state_levels()). */
INLINE void state_pass(BlockCtx *x, int t, const int kb, const int nr,
                       const int zb)
{
    GlmmWork *w = x->w;
    GlmmBlock *b = w->blk;
    const int s = kb + nr;
    int cols[GLMM_MAX_TERMS * GLMM_MAX_K];
    r_columns(w, cols);
    int factor = x->flags & GLMM_FACTOR, score = x->flags & GLMM_SCORE;
    int with_dev = x->flags & GLMM_DEV, dense = b->dense;
    int qb = b->nb * kb;
    const double *u = x->u;
    double *rest = w->rbuf + (size_t)t * (size_t)b->qr;
    if (score) {
        memset(rest, 0, (size_t)b->qr * sizeof(double));
    }
    double ld = 0, dev = 0;
    for (int j = w->chunk_lev[t]; j < w->chunk_lev[t + 1]; j++) {
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        double *lc = b->lc + (size_t)kb * b->lev_rp[j];
        double *dd = b->dd + b->lev_rp[j];
        double A[GLMM_MAX_K * GLMM_MAX_K], sb[GLMM_MAX_K];
        for (int c = 0; c < kb; c++) {
            sb[c] = 0;
            for (int d = 0; d < kb; d++) {
                A[c * kb + d] = c == d;
            }
        }
        if (factor) {
            memset(lc, 0, m * (size_t)kb * sizeof(double));
            memset(dd, 0, m * sizeof(double));
        }
        rows_state(w, b->lev_row[j], b->lev_row[j + 1], u, with_dev, &dev, s);
        for (size_t i = b->lev_row[j]; i < b->lev_row[j + 1]; i++) {
            const double *gi = w->g + i * (size_t)s, *gp = gi + zb;
            const int *si = w->supp + i * (size_t)s;
            if (score) {
                double ri = w->res[i];
                for (int c = 0; c < kb; c++) {
                    sb[c] += gp[c] * ri;
                }
                for (int a = 0; a < nr; a++) {
                    rest[si[cols[a]] - qb] += gi[cols[a]] * ri;
                }
            }
            if (!factor) {
                continue;
            }
            double wi = w->w[i];
            for (int r = 0; r < kb; r++) {
                double wg = wi * gp[r];
                for (int c = 0; c <= r; c++) {
                    A[r * kb + c] += wg * gp[c];
                }
            }
            for (int a = 0; a < nr; a++) {
                double wg = wi * gi[cols[a]];
                size_t sl =
                    dense ? (size_t)(si[cols[a]] - qb)
                          : (size_t)b->row_slot[i * (size_t)nr + (size_t)a];
                for (int c = 0; c < kb; c++) {
                    lc[(size_t)c * m + sl] += wg * gp[c];
                }
                dd[sl] += wg * gi[cols[a]];
            }
        }
        if (score) {
            for (int c = 0; c < kb; c++) {
                size_t e = (size_t)j * (size_t)kb + (size_t)c;
                w->rhs[e] = sb[c] - u[e];
            }
        }
        if (!factor) {
            continue;
        }
        double *la = b->la + (size_t)j * (size_t)(kb * kb);
        memcpy(la, A, (size_t)(kb * kb) * sizeof(double));
        double l = chol_small(la, kb);
        if (isnan(l)) {
            x->failed = 1;
            return;
        }
        ld += l;
        /* each column of C_j' solved against L_j: row a of C_j L_j^-T */
        for (size_t a = 0; a < m; a++) {
            for (int c = 0; c < kb; c++) {
                double v = lc[(size_t)c * m + a];
                for (int e = 0; e < c; e++) {
                    v -= lc[(size_t)e * m + a] * la[c * kb + e];
                }
                lc[(size_t)c * m + a] = v / la[c * kb + c];
            }
        }
    }
    w->part[(size_t)t * (size_t)w->part_n] = ld;
    w->part[(size_t)t * (size_t)w->part_n + 1] = dev;
}

static void state_levels(void *ctx, int t)
{
    BlockCtx *x = ctx;
    GlmmWork *w = x->w;
    if (w->shape == 1) {
        state_pass(x, t, 1, 1, 0);
    } else if (w->shape == 2) {
        state_pass(x, t, 2, 1, 0);
    } else {
        state_pass(x, t, w->blk->kb, w->s - w->blk->kb, w->z_at[w->big]);
    }
}

/* Rows band[t]..band[t+1] of S's lower triangle: 1 + the R diagonal's sums
** - sum_j (C_j L_j^-T)(C_j L_j^-T)', over the levels in order. */
static void update_band(void *ctx, int t)
{
    BlockCtx *x = ctx;
    GlmmWork *w = x->w;
    GlmmBlock *b = w->blk;
    int kb = b->kb, r0 = b->band[t], r1 = b->band[t + 1];
    size_t qr = (size_t)b->qr;
    for (int r = r0; r < r1; r++) {
        memset(b->ls + (size_t)r * qr, 0, (size_t)(r + 1) * sizeof(double));
        b->ls[(size_t)r * qr + (size_t)r] = 1;
    }
    if (b->dense) {
        for (int j = 0; j < b->nb; j++) {
            const double *dd = b->dd + (size_t)j * qr;
            for (int r = r0; r < r1; r++) {
                b->ls[(size_t)r * qr + (size_t)r] += dd[r];
            }
        }
        glmm_dense_syrk(b->lc, qr, (size_t)b->nb * (size_t)kb, b->qr, b->ls, qr,
                        r0, r1);
        return;
    }
    for (int j = 0; j < b->nb; j++) {
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        const int *e = b->lev_r + b->lev_rp[j];
        const double *lc = b->lc + (size_t)kb * b->lev_rp[j];
        const double *dd = b->dd + b->lev_rp[j];
        if (m == 0 || e[m - 1] < r0 || e[0] >= r1) {
            continue;
        }
        size_t a0 = 0, a1 = m;
        while (a0 < m && e[a0] < r0) {
            a0++;
        }
        while (a1 > a0 && e[a1 - 1] >= r1) {
            a1--;
        }
        int dense = e[m - 1] - e[0] == (int)m - 1;
        for (size_t a = a0; a < a1; a++) {
            double *row = b->ls + (size_t)e[a] * qr;
            row[e[a]] += dd[a];
            for (int c = 0; c < kb; c++) {
                const double *restrict lcc = lc + (size_t)c * m;
                double xa = lcc[a];
                if (dense) {
                    double *restrict base = row + e[0];
                    for (size_t k = 0; k <= a; k++) {
                        base[k] -= xa * lcc[k];
                    }
                } else {
                    for (size_t k = 0; k <= a; k++) {
                        row[e[k]] -= xa * lcc[k];
                    }
                }
            }
        }
    }
}

/* The R-R entries of M between different R columns of one row (designs
** with more than one R term or slopes in one): added in row order. */
static void cross_r(GlmmWork *w)
{
    GlmmBlock *b = w->blk;
    int cols[GLMM_MAX_TERMS * GLMM_MAX_K];
    size_t s = (size_t)w->s, nr = (size_t)r_columns(w, cols);
    size_t qr = (size_t)b->qr, qb = (size_t)(b->nb * b->kb);
    for (size_t i = 0; nr > 1 && i < (size_t)w->n; i++) {
        const double *gi = w->g + i * s;
        const int *si = w->supp + i * s;
        for (size_t a = 0; a < nr; a++) {
            for (size_t c = 0; c < a; c++) {
                size_t ea = (size_t)si[cols[a]] - qb,
                       ec = (size_t)si[cols[c]] - qb;
                size_t hi = ea > ec ? ea : ec, lo = ea > ec ? ec : ea;
                b->ls[hi * qr + lo] += w->w[i] * gi[cols[a]] * gi[cols[c]];
            }
        }
    }
}

int glmm_block_state(GlmmWork *w, const double *u, int flags)
{
    GlmmBlock *b = w->blk;
    BlockCtx x = {w, NULL, NULL, u, flags, 0};
    glmm_pool_run(w->pool, state_levels, &x, w->n_chunks);
    if (x.failed) {
        return -1;
    }
    double ld = 0, dev = 0;
    for (int t = 0; t < w->n_chunks; t++) {
        ld += w->part[(size_t)t * (size_t)w->part_n];
        dev += w->part[(size_t)t * (size_t)w->part_n + 1];
    }
    w->dev = 2 * dev;
    size_t qr = (size_t)b->qr, qb = (size_t)(b->nb * b->kb);
    if (flags & GLMM_SCORE) {
        for (size_t e = 0; e < qr; e++) {
            double v = 0;
            for (int t = 0; t < w->n_chunks; t++) {
                v += w->rbuf[(size_t)t * qr + e];
            }
            w->rhs[qb + e] = v - u[qb + e];
        }
    }
    if (!(flags & GLMM_FACTOR)) {
        return 0;
    }
    glmm_pool_run(w->pool, update_band, &x, b->row_tasks);
    cross_r(w);
    if (b->qr > 0) {
        /* the dense factor in place: chol_small on the qr x qr block */
        double l = chol_small(b->ls, b->qr);
        if (isnan(l)) {
            return -1;
        }
        ld += l;
    }
    w->ldl2 = ld;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Solves                                                               */

/* The forward solve of chunk t's levels: y_j = L_j^-1 b_j in place in xv,
** and acc = -sum_j (C_j L_j^-T) y_j over them (qr values). */
static void forward_levels(const GlmmWork *w, int t, double *xv, double *acc)
{
    const GlmmBlock *b = w->blk;
    int kb = b->kb;
    memset(acc, 0, (size_t)b->qr * sizeof(double));
    for (int j = w->chunk_lev[t]; j < w->chunk_lev[t + 1]; j++) {
        const double *la = b->la + (size_t)j * (size_t)(kb * kb);
        double *y = xv + (size_t)j * (size_t)kb;
        for (int c = 0; c < kb; c++) {
            double v = y[c];
            for (int e = 0; e < c; e++) {
                v -= la[c * kb + e] * y[e];
            }
            y[c] = v / la[c * kb + c];
        }
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        const int *er = b->lev_r + b->lev_rp[j];
        const double *lc = b->lc + (size_t)kb * b->lev_rp[j];
        for (int c = 0; c < kb; c++) {
            const double *restrict lcc = lc + (size_t)c * m;
            double yc = y[c];
            if (b->dense) {
                for (size_t a = 0; a < m; a++) {
                    acc[a] -= lcc[a] * yc;
                }
            } else {
                for (size_t a = 0; a < m; a++) {
                    acc[er[a]] -= lcc[a] * yc;
                }
            }
        }
    }
}

/* The back solve of chunk t's levels: x_j = L_j^-T (y_j - (C_j L_j^-T)'
** x_R), x_R = xr. */
static void back_levels(const GlmmWork *w, int t, double *xv, const double *xr)
{
    const GlmmBlock *b = w->blk;
    int kb = b->kb;
    for (int j = w->chunk_lev[t]; j < w->chunk_lev[t + 1]; j++) {
        const double *la = b->la + (size_t)j * (size_t)(kb * kb);
        double *y = xv + (size_t)j * (size_t)kb;
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        const int *er = b->lev_r + b->lev_rp[j];
        const double *lc = b->lc + (size_t)kb * b->lev_rp[j];
        for (int c = 0; c < kb; c++) {
            const double *restrict lcc = lc + (size_t)c * m;
            double v0 = 0, v1 = 0;
            size_t a = 0;
            if (b->dense) {
                for (; a + 1 < m; a += 2) {
                    v0 += lcc[a] * xr[a];
                    v1 += lcc[a + 1] * xr[a + 1];
                }
            }
            for (; a < m; a++) {
                v0 += lcc[a] * xr[er[a]];
            }
            y[c] -= v0 + v1;
        }
        for (int c = kb - 1; c >= 0; c--) {
            double v = y[c];
            for (int e = c + 1; e < kb; e++) {
                v -= la[e * kb + c] * y[e];
            }
            y[c] = v / la[c * kb + c];
        }
    }
}

/* tmp (b_R with the chunks' sums added) = L_S^-T L_S^-1 tmp. */
static void solve_r(const GlmmBlock *b, double *tmp)
{
    size_t qr = (size_t)b->qr;
    const double *ls = b->ls;
    for (size_t r = 0; r < qr; r++) {
        double v = tmp[r];
        for (size_t c = 0; c < r; c++) {
            v -= ls[r * qr + c] * tmp[c];
        }
        tmp[r] = v / ls[r * qr + r];
    }
    for (size_t r = qr; r-- > 0;) {
        double v = tmp[r];
        for (size_t c = r + 1; c < qr; c++) {
            v -= ls[c * qr + r] * tmp[c];
        }
        tmp[r] = v / ls[r * qr + r];
    }
}

/* x = M^-1 b for one column (x may be b) on the caller's thread; the
** chunks' sums are added in chunk order, as solve_parallel() adds them.
** tmp: 2 qr doubles. */
static void solve_one(const GlmmWork *w, const double *bv, double *xv,
                      double *tmp)
{
    const GlmmBlock *b = w->blk;
    size_t qr = (size_t)b->qr, qb = (size_t)(b->nb * b->kb);
    double *acc = tmp + qr;
    if (xv != bv) {
        memcpy(xv, bv, (size_t)w->q * sizeof(double));
    }
    memcpy(tmp, xv + qb, qr * sizeof(double));
    for (int t = 0; t < w->n_chunks; t++) {
        forward_levels(w, t, xv, acc);
        for (size_t e = 0; e < qr; e++) {
            tmp[e] += acc[e];
        }
    }
    solve_r(b, tmp);
    memcpy(xv + qb, tmp, qr * sizeof(double));
    for (int t = 0; t < w->n_chunks; t++) {
        back_levels(w, t, xv, xv + qb);
    }
}

static void solve_column(void *ctx, int t)
{
    BlockCtx *x = ctx;
    const GlmmWork *w = x->w;
    size_t q = (size_t)w->q;
    solve_one(w, x->b + (size_t)t * q, x->x + (size_t)t * q,
              w->blk->tmp + (size_t)t * 2 * (size_t)w->blk->qr);
}

static void forward_chunk(void *ctx, int t)
{
    BlockCtx *x = ctx;
    forward_levels(x->w, t, x->x,
                   x->w->rbuf + (size_t)t * (size_t)x->w->blk->qr);
}

static void back_chunk(void *ctx, int t)
{
    BlockCtx *x = ctx;
    size_t qb = (size_t)(x->w->blk->nb * x->w->blk->kb);
    back_levels(x->w, t, x->x, x->x + qb);
}

int glmm_block_solve(GlmmWork *w, const double *b, double *x, int ncol)
{
    BlockCtx c = {w, b, x, NULL, 0, 0};
    if (ncol > 1 || !w->pool) {
        glmm_pool_run(w->pool, solve_column, &c, ncol);
        return 0;
    }
    /* one column: its levels in chunks on the threads */
    GlmmBlock *bk = w->blk;
    size_t qr = (size_t)bk->qr, qb = (size_t)(bk->nb * bk->kb);
    if (x != b) {
        memcpy(x, b, (size_t)w->q * sizeof(double));
    }
    glmm_pool_run(w->pool, forward_chunk, &c, w->n_chunks);
    double *tmp = bk->tmp;
    memcpy(tmp, x + qb, qr * sizeof(double));
    for (int t = 0; t < w->n_chunks; t++) {
        const double *acc = w->rbuf + (size_t)t * qr;
        for (size_t e = 0; e < qr; e++) {
            tmp[e] += acc[e];
        }
    }
    solve_r(bk, tmp);
    memcpy(x + qb, tmp, qr * sizeof(double));
    glmm_pool_run(w->pool, back_chunk, &c, w->n_chunks);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Selected inverse                                                     */

/* The levels of chunk t: with T = Sigma_RR[e, e] (C_j L_j^-T) on level
** j's R effects e, Sigma_RB = -T L_j^-1 and Sigma_BB = L_j^-T (I +
** (C_j L_j^-T)' T) L_j^-1. */
static void selinv_levels(void *ctx, int t)
{
    BlockCtx *x = ctx;
    GlmmWork *w = x->w;
    GlmmBlock *b = w->blk;
    int kb = b->kb;
    size_t qr = (size_t)b->qr;
    if (b->dense) { /* T for the chunk's levels at once, into sig_rb */
        glmm_dense_gemm(b->sig_rr, qr, b->qr, b->lc, qr,
                        (size_t)w->chunk_lev[t] * (size_t)kb,
                        (size_t)w->chunk_lev[t + 1] * (size_t)kb, b->sig_rb,
                        qr);
    }
    for (int j = w->chunk_lev[t]; j < w->chunk_lev[t + 1]; j++) {
        const double *la = b->la + (size_t)j * (size_t)(kb * kb);
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        const int *e = b->lev_r + b->lev_rp[j];
        const double *lc = b->lc + (size_t)kb * b->lev_rp[j];
        double *srb = b->sig_rb + (size_t)kb * b->lev_rp[j];
        double K[GLMM_MAX_K * GLMM_MAX_K] = {0}, li[GLMM_MAX_K * GLMM_MAX_K];
        int dense = m > 0 && e[m - 1] - e[0] == (int)m - 1;
        for (size_t a = 0; a < m; a++) {
            const double *row = b->sig_rr + (size_t)e[a] * qr;
            double tv[GLMM_MAX_K];
            for (int c = 0; c < kb && b->dense; c++) {
                tv[c] = srb[(size_t)c * m + a];
            }
            for (int c = 0; c < kb && !b->dense; c++) {
                const double *restrict lcc = lc + (size_t)c * m;
                double v0 = 0, v1 = 0;
                size_t k = 0;
                if (dense) {
                    const double *restrict r = row + e[0];
                    for (; k + 1 < m; k += 2) {
                        v0 += r[k] * lcc[k];
                        v1 += r[k + 1] * lcc[k + 1];
                    }
                    for (; k < m; k++) {
                        v0 += r[k] * lcc[k];
                    }
                } else {
                    for (; k < m; k++) {
                        v0 += row[e[k]] * lcc[k];
                    }
                }
                tv[c] = v0 + v1;
            }
            for (int c = 0; c < kb; c++) {
                for (int d = 0; d < kb; d++) {
                    K[c * kb + d] += lc[(size_t)c * m + a] * tv[d];
                }
            }
            /* z L_j = t: z from the last column back */
            for (int c = kb - 1; c >= 0; c--) {
                double v = tv[c];
                for (int d = c + 1; d < kb; d++) {
                    v -= srb[(size_t)d * m + a] * la[d * kb + c];
                }
                srb[(size_t)c * m + a] = v / la[c * kb + c];
            }
        }
        for (size_t a = 0; a < m * (size_t)kb; a++) {
            srb[a] = -srb[a];
        }
        /* L_j^-1 */
        for (int c = 0; c < kb; c++) {
            for (int r = 0; r < kb; r++) {
                double v = r == c ? 1 : 0;
                for (int d = c; d < r; d++) {
                    v -= la[r * kb + d] * li[d * kb + c];
                }
                li[r * kb + c] = r < c ? 0 : v / la[r * kb + r];
            }
        }
        double *sbb = b->sig_bb + (size_t)j * (size_t)(kb * kb);
        for (int c = 0; c < kb; c++) {
            K[c * kb + c] += 1;
        }
        /* sbb = li' K li, K symmetric */
        for (int r = 0; r < kb; r++) {
            for (int c = 0; c < kb; c++) {
                double v = 0;
                for (int d = 0; d < kb; d++) {
                    for (int f = 0; f < kb; f++) {
                        v += li[d * kb + r] * 0.5 *
                             (K[d * kb + f] + K[f * kb + d]) * li[f * kb + c];
                    }
                }
                sbb[r * kb + c] = v;
            }
        }
    }
}

int glmm_block_selinv(GlmmWork *w)
{
    GlmmBlock *b = w->blk;
    size_t qr = (size_t)b->qr;
    double *sr = b->sig_rr, *row = b->tmp;
    /* L_S^-1 into sr's lower triangle, column by column */
    for (size_t c = 0; c < qr; c++) {
        for (size_t r = c; r < qr; r++) {
            double v = r == c ? 1 : 0;
            for (size_t d = c; d < r; d++) {
                v -= b->ls[r * qr + d] * sr[d * qr + c];
            }
            sr[r * qr + c] = v / b->ls[r * qr + r];
        }
    }
    /* Sigma_RR = L_S^-T L_S^-1: row r of its lower triangle reads rows
    ** d >= r of the inverse (buffered, then written over row r, which
    ** the rows below do not read) */
    for (size_t r = 0; r < qr; r++) {
        for (size_t c = 0; c <= r; c++) {
            double v = 0;
            for (size_t d = r; d < qr; d++) {
                v += sr[d * qr + r] * sr[d * qr + c];
            }
            row[c] = v;
        }
        memcpy(sr + r * qr, row, (r + 1) * sizeof(double));
    }
    for (size_t r = 0; r < qr; r++) {
        for (size_t c = r + 1; c < qr; c++) {
            sr[r * qr + c] = sr[c * qr + r];
        }
    }
    BlockCtx x = {w, NULL, NULL, NULL, 0, 0};
    glmm_pool_run(w->pool, selinv_levels, &x, w->n_chunks);
    return 0;
}

/* The levels of chunk t after glmm_block_selinv(): for each row h_i =
** g_i' M^-1 g_i and hm_i = M^-1 g_i on its support; sv = G'(w' h) (w' =
** w (1 - 2 mu)), B's in w->sv, R's in the chunk's buffer. */
INLINE void sigma_pass(BlockCtx *x, int t, const int kb, const int nr,
                       const int zb)
{
    GlmmWork *w = x->w;
    const GlmmBlock *b = w->blk;
    const int s = kb + nr;
    int cols[GLMM_MAX_TERMS * GLMM_MAX_K];
    r_columns(w, cols);
    int qb = b->nb * kb, dense = b->dense;
    size_t qr = (size_t)b->qr;
    double *rest = w->rbuf + (size_t)t * qr;
    memset(rest, 0, qr * sizeof(double));
    int with_state = x->flags & GLMM_DEV;
    double dev = 0;
    for (int j = w->chunk_lev[t]; j < w->chunk_lev[t + 1]; j++) {
        size_t m = b->lev_rp[j + 1] - b->lev_rp[j];
        const double *srb = b->sig_rb + (size_t)kb * b->lev_rp[j];
        const double *sbb = b->sig_bb + (size_t)j * (size_t)(kb * kb);
        double svb[GLMM_MAX_K] = {0};
        if (with_state) {
            rows_state(w, b->lev_row[j], b->lev_row[j + 1], x->u, 1, &dev, s);
        }
        for (size_t i = b->lev_row[j]; i < b->lev_row[j + 1]; i++) {
            const double *gi = w->g + i * (size_t)s, *gp = gi + zb;
            const int *si = w->supp + i * (size_t)s;
            double *hm = w->hm + i * (size_t)s;
            size_t sl[GLMM_MAX_TERMS * GLMM_MAX_K],
                e[GLMM_MAX_TERMS * GLMM_MAX_K];
            for (int a = 0; a < nr; a++) {
                e[a] = (size_t)(si[cols[a]] - qb);
                sl[a] = dense ? e[a]
                              : (size_t)b->row_slot[i * (size_t)nr + (size_t)a];
            }
            double h = 0;
            for (int c = 0; c < kb; c++) {
                double v = 0;
                for (int d = 0; d < kb; d++) {
                    v += sbb[c * kb + d] * gp[d];
                }
                for (int a = 0; a < nr; a++) {
                    v += srb[(size_t)c * m + sl[a]] * gi[cols[a]];
                }
                hm[zb + c] = v;
                h += gp[c] * v;
            }
            for (int a = 0; a < nr; a++) {
                double v = 0;
                for (int c = 0; c < kb; c++) {
                    v += srb[(size_t)c * m + sl[a]] * gp[c];
                }
                for (int a2 = 0; a2 < nr; a2++) {
                    v += b->sig_rr[e[a] * qr + e[a2]] * gi[cols[a2]];
                }
                hm[cols[a]] = v;
                h += gi[cols[a]] * v;
            }
            w->h[i] = h;
            double wd = w->w[i] * (1 - 2 * w->mu[i]) * h;
            for (int c = 0; c < kb; c++) {
                svb[c] += gp[c] * wd;
            }
            for (int a = 0; a < nr; a++) {
                rest[e[a]] += gi[cols[a]] * wd;
            }
        }
        for (int c = 0; c < kb; c++) {
            w->sv[(size_t)j * (size_t)kb + (size_t)c] = svb[c];
        }
    }
    w->part[(size_t)t * (size_t)w->part_n + 1] = dev;
}

static void sigma_levels(void *ctx, int t)
{
    BlockCtx *x = ctx;
    GlmmWork *w = x->w;
    if (w->shape == 1) {
        sigma_pass(x, t, 1, 1, 0);
    } else if (w->shape == 2) {
        sigma_pass(x, t, 2, 1, 0);
    } else {
        sigma_pass(x, t, w->blk->kb, w->s - w->blk->kb, w->z_at[w->big]);
    }
}

void glmm_block_sigma(GlmmWork *w, int with_state)
{
    GlmmBlock *b = w->blk;
    BlockCtx x = {w, NULL, NULL, w->u, with_state ? GLMM_DEV : 0, 0};
    glmm_pool_run(w->pool, sigma_levels, &x, w->n_chunks);
    if (with_state) {
        double dev = 0;
        for (int t = 0; t < w->n_chunks; t++) {
            dev += w->part[(size_t)t * (size_t)w->part_n + 1];
        }
        w->dev = 2 * dev;
    }
    size_t qr = (size_t)b->qr, qb = (size_t)(b->nb * b->kb);
    for (size_t e = 0; e < qr; e++) {
        double v = 0;
        for (int t = 0; t < w->n_chunks; t++) {
            v += w->rbuf[(size_t)t * qr + e];
        }
        w->sv[qb + e] = v;
    }
}
