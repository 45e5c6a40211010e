/*
** The item level of metrics_vs_human: an item-level metric as a covariate
** of the mixed model, correct ~ condition + condition:metric_z + (1 |
** participant) + (1 | item) -- the report's own design (glmm_design.h)
** with one slope column per method, its metric standardised over the
** (method, item) pairs of the data -- and each method's odds ratio per SD.
*/
#include "analysis/metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/glmm_design.h"
#include "common/sim_alloc.h"

/* The model's arrays: the rows of the design that enter (baseline rows,
** rows of a method without this metric, rows of a method with a value for
** their item) and the columns of the design plus one per method. */
typedef struct CovModel {
    int n, p;
    uint8_t *y;
    double *X;
    int *part, *item;
    int *slope_cond; /* per slope column: the condition index */
    int n_slopes;
} CovModel;

static void cov_free(CovModel *c)
{
    sim_free(c->y);
    sim_free(c->X);
    sim_free(c->part);
    sim_free(c->item);
    sim_free(c->slope_cond);
    memset(c, 0, sizeof *c);
}

/* The metric value of design row i (NaN: none), and whether its condition
** has any item value of the metric (*has). */
static double row_value(const Dataset *ds, const Screen *sc,
                        const SimMetrics *m, int k, const GlmmDesign *d, int i,
                        int *cond)
{
    const DatasetResponse *x = &ds->rows[d->row[i]];
    *cond = sc->cond_index[x->condition];
    return sim_metrics_value(m, k, dataset_str(ds, x->condition),
                             dataset_str(ds, (int)x->item));
}

/* Builds the covariate model of metric k; 0, or -1 when out of memory. A
** model without slope columns has n_slopes 0. */
static int cov_build(const Dataset *ds, const Screen *sc, const SimMetrics *m,
                     int k, const GlmmDesign *d, CovModel *c)
{
    memset(c, 0, sizeof *c);
    int C = sc->n_conds;
    int *has = sim_calloc((size_t)C + 1, sizeof *has);
    double *v = sim_malloc(((size_t)d->n + 1) * sizeof *v);
    int *cond = sim_malloc(((size_t)d->n + 1) * sizeof *cond);
    int *col = sim_malloc(((size_t)C + 1) * sizeof *col);
    c->slope_cond = sim_malloc(((size_t)C + 1) * sizeof *c->slope_cond);
    if (!has || !v || !cond || !col || !c->slope_cond) {
        sim_free(has);
        sim_free(v);
        sim_free(cond);
        sim_free(col);
        return -1;
    }
    for (int i = 0; i < d->n; i++) {
        v[i] = row_value(ds, sc, m, k, d, i, &cond[i]);
        if (cond[i] >= 0 && isfinite(v[i])) {
            has[cond[i]] = 1;
        }
    }
    /* the standardisation: over the distinct (method, item) values */
    double sum = 0, sum2 = 0, cnt = 0;
    for (size_t j = 0; j < m->n_values; j++) {
        const SimMetricValue *x = &m->values[j];
        if (x->metric != k || !x->item) {
            continue;
        }
        int used = 0;
        for (int i = 0; i < d->n && !used; i++) {
            const DatasetResponse *r = &ds->rows[d->row[i]];
            used = strcmp(dataset_str(ds, r->condition), x->method) == 0 &&
                   strcmp(dataset_str(ds, (int)r->item), x->item) == 0;
        }
        if (used) {
            sum += x->value;
            sum2 += x->value * x->value;
            cnt += 1;
        }
    }
    double mean = cnt > 0 ? sum / cnt : 0;
    double sd = cnt > 1 ? sqrt((sum2 - cnt * mean * mean) / (cnt - 1)) : 0;
    for (int q = 0; q < C; q++) {
        col[q] = -1;
        if (has[q] && q != d->base && sd > 0) {
            col[q] = c->n_slopes;
            c->slope_cond[c->n_slopes++] = q;
        }
    }
    c->p = d->p + c->n_slopes;
    c->y = sim_malloc((size_t)d->n + 1);
    c->X = sim_malloc(((size_t)d->n * (size_t)c->p + 1) * sizeof *c->X);
    c->part = sim_malloc(((size_t)d->n + 1) * sizeof *c->part);
    c->item = sim_malloc(((size_t)d->n + 1) * sizeof *c->item);
    int rc = c->y && c->X && c->part && c->item ? 0 : -1;
    for (int i = 0; rc == 0 && i < d->n; i++) {
        int q = cond[i];
        int slope = q >= 0 ? col[q] : -1;
        if (q >= 0 && has[q] && q != d->base && !isfinite(v[i])) {
            continue; /* a method's row without a value for its item */
        }
        /* in a pre/post design the metric acts on Post rows */
        int late = ds->rows[d->row[i]].phase != PHASE_PRE;
        size_t at = (size_t)c->n * (size_t)c->p;
        memcpy(c->X + at, d->X + (size_t)i * (size_t)d->p,
               (size_t)d->p * sizeof *c->X);
        for (int s = 0; s < c->n_slopes; s++) {
            c->X[at + (size_t)d->p + (size_t)s] =
                s == slope && late ? (v[i] - mean) / sd : 0;
        }
        c->y[c->n] = d->y[i];
        c->part[c->n] = d->part[i];
        c->item[c->n] = d->item[i];
        c->n++;
    }
    sim_free(has);
    sim_free(v);
    sim_free(cond);
    sim_free(col);
    return rc;
}

int metrics_item_rows(const Dataset *ds, const Screen *sc, const SimMetrics *m,
                      int k, Table *t, SimError *err)
{
    GlmmDesign d;
    const char *why = NULL;
    int rc = glmm_design_build(ds, sc, &d, &why, err);
    if (rc != SIM_OK || d.n == 0 || d.base < 0) {
        glmm_design_free(&d);
        return rc;
    }
    CovModel c;
    if (cov_build(ds, sc, m, k, &d, &c) != 0) {
        cov_free(&c);
        glmm_design_free(&d);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    GlmmModel gm;
    glmm_design_model(&d, GLMM_INTERCEPTS, &gm);
    gm.n = c.n;
    gm.y = c.y;
    gm.p = c.p;
    gm.X = c.X;
    gm.term[0].level = c.part;
    gm.term[1].level = c.item;
    GlmmFit fit;
    memset(&fit, 0, sizeof fit);
    if (c.n_slopes > 0) {
        rc = glmm_fit(&gm, &fit, err);
    }
    double zc = gsl_cdf_ugaussian_Qinv(0.025);
    for (int s = 0; rc == SIM_OK && s < c.n_slopes; s++) {
        int j = d.p + s;
        double b = fit.beta[j], se = fit.se[j];
        table_add_row(t);
        table_put_text(t, m->metrics[k].name);
        table_put_text(t, "item");
        table_put_text(t, dataset_str(ds, sc->conds[c.slope_cond[s]]));
        for (int q = 0; q < 6; q++) {
            table_skip(t); /* the method level's columns */
        }
        table_put_num(t, exp(b));
        table_put_interval(t, exp(b - zc * se), exp(b + zc * se));
        table_put_num(t, 2 * gsl_cdf_ugaussian_Q(fabs(b / se)));
    }
    glmm_fit_free(&fit);
    cov_free(&c);
    glmm_design_free(&d);
    return rc;
}
