/*
** Where the fit of a large data set starts (glmm_int.h): the same model
** fitted to a subsample -- every k-th level of the term with the most
** effects (participants), all their rows -- whose optimum and Hessian are
** close to the whole data's. The search on the whole data then takes a
** few steps where it would take tens from lme4's start. Only the start
** changes, never the optimum.
*/
#include <math.h>
#include <string.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

#define SUB_SHARE 8 /* every SUB_SHARE-th level of B */

typedef struct Sub {
    GlmmModel m;
    uint8_t *y;
    double *X;
    int *level[GLMM_MAX_TERMS];
    double *z[GLMM_MAX_TERMS];
} Sub;

static void sub_free(Sub *sb)
{
    sim_free(sb->y);
    sim_free(sb->X);
    for (int t = 0; t < GLMM_MAX_TERMS; t++) {
        sim_free(sb->level[t]);
        sim_free(sb->z[t]);
    }
}

/* The rows of every k-th level of B (in w's order) into sb, when they hold
** every distinct row of X (the subsample's fixed effects are then those of
** the whole: no column lost, none aliased). Returns 1, 0 when they do not,
** -1 when out of memory. */
static int sub_model(const GlmmWork *w, int k, Sub *sb)
{
    const GlmmModel *m = w->m;
    const GlmmTerm *tb = &m->term[w->big];
    size_t n = (size_t)w->n, p = (size_t)w->p, ns = 0;
    unsigned char *seen = sim_calloc((size_t)w->n_xr + 1, 1);
    if (!seen) {
        return -1;
    }
    int n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (tb->level[w->order[i]] % k == 0) {
            ns++;
            n_seen += !seen[w->xrow[i]];
            seen[w->xrow[i]] = 1;
        }
    }
    sim_free(seen);
    if (n_seen < w->n_xr || ns == 0) {
        return 0;
    }
    memset(sb, 0, sizeof *sb);
    sb->m = *m;
    sb->m.n = (int)ns;
    sb->m.theta_start = sb->m.beta_start = sb->m.hess_start = NULL;
    sb->m.stop_singular_term = 0;
    sb->m.progress = NULL; /* the whole fit's line counts its own */
    sb->y = sim_malloc(ns);
    sb->X = sim_malloc(ns * p * sizeof(double));
    int ok = sb->y && sb->X;
    for (int t = 0; ok && t < m->n_terms; t++) {
        const GlmmTerm *tm = &m->term[t];
        sb->level[t] = sim_malloc(ns * sizeof(int));
        sb->z[t] =
            tm->z ? sim_malloc(ns * (size_t)tm->k * sizeof(double)) : NULL;
        ok = sb->level[t] && (!tm->z || sb->z[t]);
        sb->m.term[t].level = sb->level[t];
        sb->m.term[t].z = sb->z[t];
    }
    if (!ok) {
        sub_free(sb);
        return -1;
    }
    sb->m.term[w->big].n_levels = (tb->n_levels + k - 1) / k;
    sb->m.y = sb->y;
    sb->m.X = sb->X;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = w->order[i];
        if (tb->level[r] % k != 0) {
            continue;
        }
        sb->y[at] = w->y[i];
        memcpy(sb->X + at * p, m->X + r * p, p * sizeof(double));
        for (int t = 0; t < m->n_terms; t++) {
            const GlmmTerm *tm = &m->term[t];
            size_t kt = (size_t)tm->k;
            sb->level[t][at] = t == w->big ? tm->level[r] / k : tm->level[r];
            if (tm->z) {
                memcpy(sb->z[t] + at * kt, tm->z + r * kt, kt * sizeof(double));
            }
        }
        at++;
    }
    return 1;
}

int glmm_sub_fit(GlmmWork *w, GlmmFit *sf, double *scale, int *used,
                 SimError *err)
{
    memset(sf, 0, sizeof *sf);
    *used = 0;
    const GlmmTerm *tb = &w->m->term[w->big];
    if (w->n < GLMM_LARGE_ROWS || tb->n_levels < 4 * SUB_SHARE) {
        return SIM_OK;
    }
    Sub sb;
    int got = sub_model(w, SUB_SHARE, &sb);
    if (got <= 0) {
        return got < 0 ? sim_fail(err, SIM_ERR_NOMEM, "out of memory") : SIM_OK;
    }
    int rc = glmm_fit(&sb.m, sf, err);
    *scale = (double)w->n / (double)sb.m.n;
    sub_free(&sb);
    if (rc != SIM_OK) {
        return rc;
    }
    int usable = sf->hessian != NULL;
    for (int j = 0; usable && j < sf->n_theta; j++) {
        usable = isfinite(sf->theta[j]);
    }
    for (int j = 0; usable && j < sf->p; j++) {
        usable = isfinite(sf->beta[j]);
    }
    if (!usable) {
        glmm_fit_free(sf);
        return SIM_OK;
    }
    *used = 1;
    return SIM_OK;
}
