/*
** simlab power's mixed-model test (power_int.h): a simulated study as a
** Dataset, screened by simlab-analyze's screening (its reference, its
** design: between or within), the model of the report (glmm_design.c:
** the design, the structures tried richest first and the fallback,
** glmm_fit_design()), and per tested condition the Wald test of its
** contrast. No model of its own.
*/
#include "analysis/analyze.h"
#include "analysis/glmm_design.h"
#include "analysis/power_int.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define Z975 1.959963984540054 /* qnorm(0.975) */

static const char *const PHASES[] = {"pre", "post", "test"};

/* The responses of t as long-format rows: participants "p<k>", items
** "i<k>", the session of a Utility design's cell. */
static int to_dataset(const PowerDesign *d, const PowerTable *t, Dataset *ds,
                      SimError *err)
{
    int rc = SIM_OK;
    for (size_t i = 0; rc == SIM_OK && i < t->n_rows; i++) {
        const PowerAnswer *a = &t->rows[i];
        char part[32], item[32];
        DatasetRow row;
        memset(&row, 0, sizeof row);
        row.participant = sim_format_int(part, "p", a->participant);
        row.condition = d->conds[a->condition];
        row.phase = PHASES[a->phase < 3 ? a->phase : 2];
        row.item = sim_format_int(item, "i", a->item);
        row.correct = a->y;
        row.session = d->test == POWER_TEST_UTILITY ? a->cell + 1 : 0;
        row.rt_ms = NAN;
        rc = dataset_add(ds, &row, err);
    }
    return rc;
}

/* The Wald estimate and SE of the sum of the columns cols[0..n) of the
** fit; NaN when a column is missing (< 0). */
static void contrast(const GlmmFit *f, const int *cols, int n, double *est,
                     double *se)
{
    double e = 0, v = 0;
    for (int a = 0; a < n; a++) {
        if (cols[a] < 0) {
            *est = *se = NAN;
            return;
        }
        e += f->beta[cols[a]];
        for (int b = 0; b < n; b++) {
            v += f->vcov[(size_t)cols[a] * (size_t)f->p + (size_t)cols[b]];
        }
    }
    *est = e;
    *se = v > 0 ? sqrt(v) : NAN;
}

/* The column of kind for screen condition s (any condition: s < 0). */
static int column(const GlmmDesign *g, int kind, int s)
{
    for (int j = 0; j < g->p; j++) {
        if (g->col_kind[j] == kind && (s < 0 || g->col_cond[j] == s)) {
            return j;
        }
    }
    return -1;
}

/* The contrasts of the fitted model: Post against Pre in each condition
** (phasepost, plus its interaction for a condition other than the
** model's reference) -- or, vs_baseline (the primary test), the
** interaction alone: how much more it learns than the reference -- or
** each condition against the reference. */
static void contrasts(const PowerTestCtx *x, const Dataset *ds,
                      const Screen *sc, const GlmmDesign *g, const GlmmFit *f,
                      double *estimate, double *lo, double *hi, double *p)
{
    for (int k = 0; k < x->n_tests; k++) {
        int id = dataset_find(ds, x->d->conds[x->tested[k]]);
        int s = id >= 0 && id < sc->n_strings ? sc->cond_index[id] : -1;
        int cols[2] = {-1, -1}, n = 1;
        if (g->kind == GLMM_PREPOST && x->d->vs_baseline) {
            /* the primary test: learning against the reference's */
            cols[0] = s != g->base ? column(g, GLMM_COL_INTERACTION, s)
                                   : column(g, GLMM_COL_PHASE, -1);
        } else if (g->kind == GLMM_PREPOST) {
            cols[0] = column(g, GLMM_COL_PHASE, -1);
            if (s != g->base) {
                cols[1] = column(g, GLMM_COL_INTERACTION, s);
                n = 2;
            }
        } else {
            cols[0] = s >= 0 ? column(g, GLMM_COL_CONDITION, s) : -1;
        }
        double est, se;
        contrast(f, cols, n, &est, &se);
        double z = est / se;
        estimate[k] = est;
        lo[k] = est - Z975 * se;
        hi[k] = est + Z975 * se;
        p[k] = isfinite(z) ? erfc(fabs(z) / sqrt(2.0)) : NAN;
    }
}

int power_glmm_test(const PowerTestCtx *x, const PowerBuf *b, double *estimate,
                    double *lo, double *hi, double *p, SimError *err)
{
    const PowerTable *t = &b->table;
    for (int k = 0; k < x->n_tests; k++) {
        estimate[k] = lo[k] = hi[k] = p[k] = NAN;
    }
    Dataset *ds = NULL;
    Report rep;
    memset(&rep, 0, sizeof rep);
    Screen sc;
    memset(&sc, 0, sizeof sc);
    GlmmDesign g;
    memset(&g, 0, sizeof g);
    GlmmFit fit;
    memset(&fit, 0, sizeof fit);
    int rc = dataset_new(&ds, err);
    if (rc == SIM_OK) {
        rc = to_dataset(x->d, t, ds, err);
    }
    AnalyzeOptions ao;
    analyze_options_default(&ao);
    ao.include_simulated = 1;
    ao.baseline = x->d->base >= 0 ? x->d->conds[x->d->base] : NULL;
    ao.progress = 0;
    ao.quiet = 1;
    if (rc == SIM_OK) {
        rep.opt = ao;
        rc = screen_participants(ds, &ao, &rep, &sc, err);
    }
    if (rc == SIM_OK) {
        rc = screen_design(ds, &sc, &rep, err);
    }
    const char *why = NULL;
    if (rc == SIM_OK) {
        rc = glmm_design_build(ds, &sc, &g, &why, err);
    }
    if (rc == SIM_OK && g.n > 0) {
        GlmmModel m;
        int chosen = -1;
        GlmmFitOptions fo = {b->glmm_warm, b->glmm_record, 1};
        rc = glmm_fit_design(&g, &fo, &fit, &m, &chosen, NULL, NULL, err);
        if (rc == SIM_OK && chosen >= 0) {
            contrasts(x, ds, &sc, &g, &fit, estimate, lo, hi, p);
        }
    }
    glmm_fit_free(&fit);
    glmm_design_free(&g);
    screen_free(&sc);
    report_free(&rep);
    dataset_free(ds);
    return rc;
}

GlmmWarm *power_glmm_warm_new(int n)
{
    return sim_calloc((size_t)n + 1, sizeof(GlmmWarm));
}

GlmmWarm *power_glmm_warm_at(GlmmWarm *w, int i)
{
    return &w[i];
}

void power_glmm_warm_free(GlmmWarm *w, int n)
{
    for (int i = 0; w && i < n; i++) {
        glmm_warm_free(&w[i]);
    }
    sim_free(w);
}
