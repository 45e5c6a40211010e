/*
** The mixed model of error detection on verify trials: correct ~ condition
** * model_correct + (1 | participant) + (1 | item), fitted (Laplace) as
** lme4's glmer by glmm_fit(), treatment-coded against the reference
** condition with model_correct a 0/1 number. Fills Report.verify_glmm and
** appends the "error_detection_glmm" table; the primary test
** glmm_error_detection reads its condition terms (primary.c).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "analysis/glmm.h"
#include "analysis/glmm_design.h"
#include "analysis/keymap.h"
#include "common/sim_alloc.h"

static const TableColumn TERM_COLS[] = {
    {"term", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, NULL, TABLE_REAL, "log odds", 3, TABLE_SIGNED, 0},
    {"se", NULL, "SE", TABLE_REAL, "log odds", 3, 0, 0},
    {"z", NULL, NULL, TABLE_REAL, "", 2, TABLE_SIGNED, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"odds_ratio", NULL, "OR", TABLE_REAL, "ratio", 2, 0, 0},
    {"or_ci", NULL, "95 % CI", TABLE_INTERVAL, "ratio", 2, 0, 0},
};

typedef struct VDesign {
    int n, p, n_part, n_item;
    uint8_t *y;
    int *part, *item;
    double *X;
    char (*names)[REPORT_GLMM_NAME];
} VDesign;

static void vdesign_free(VDesign *d)
{
    sim_free(d->y);
    sim_free(d->part);
    sim_free(d->item);
    sim_free(d->X);
    sim_free(d->names);
}

/* Whether row i enters the model: a counted, answered verify trial whose
** model correctness is known. */
static int enters(const Dataset *ds, const Screen *sc, size_t i, int vid)
{
    const DatasetResponse *row = &ds->rows[i];
    return design_scored(sc, row) && row->correct >= 0 &&
           dataset_test_type(ds, row) == vid &&
           ds->trials[i].model_correct >= 0;
}

static int build(const Dataset *ds, const Screen *sc, int vid, int base,
                 VDesign *d)
{
    int C = sc->n_conds;
    int *used = sim_calloc((size_t)C + 1, sizeof *used);
    int *col = sim_calloc((size_t)C + 1, sizeof *col);
    int *plev = sim_malloc(((size_t)ds->n_participants + 1) * sizeof *plev);
    KeyMap items = {0};
    int rc = -1;
    if (!used || !col || !plev) {
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (enters(ds, sc, i, vid)) {
            n++;
            used[sc->cond_index[ds->rows[i].condition]] = 1;
        }
    }
    int nc = 0;
    for (int c = 0; c < C; c++) {
        col[c] = c != base && used[c] ? 1 + nc++ : 0;
    }
    d->p = 2 + 2 * nc;
    d->y = sim_malloc(n + 1);
    d->part = sim_malloc((n + 1) * sizeof *d->part);
    d->item = sim_malloc((n + 1) * sizeof *d->item);
    d->X = sim_calloc(n * (size_t)d->p + 1, sizeof *d->X);
    d->names = sim_calloc((size_t)d->p, sizeof *d->names);
    if (!d->y || !d->part || !d->item || !d->X || !d->names) {
        goto out;
    }
    snprintf(d->names[0], REPORT_GLMM_NAME, "(Intercept)");
    snprintf(d->names[nc + 1], REPORT_GLMM_NAME, "model_correct");
    for (int c = 0; c < C; c++) {
        if (col[c] > 0) {
            const char *name = dataset_str(ds, sc->conds[c]);
            snprintf(d->names[col[c]], REPORT_GLMM_NAME, "condition%.60s",
                     name);
            snprintf(d->names[nc + 1 + col[c]], REPORT_GLMM_NAME,
                     "condition%.60s:model_correct", name);
        }
    }
    for (int k = 0; k < ds->n_participants; k++) {
        plev[k] = -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (!enters(ds, sc, i, vid)) {
            continue;
        }
        const DatasetResponse *row = &ds->rows[i];
        int added, it = keymap_get(
                       &items,
                       compute_key2(row->item,
                                    dataset_domain(ds, row) * 8 + row->phase),
                       d->n_item, &added);
        if (it < 0) {
            goto out;
        }
        d->n_item += added;
        if (plev[row->participant] < 0) {
            plev[row->participant] = d->n_part++;
        }
        int mc = ds->trials[i].model_correct,
            c = sc->cond_index[row->condition];
        double *x = d->X + (size_t)d->n * (size_t)d->p;
        x[0] = 1;
        x[nc + 1] = mc;
        if (col[c] > 0) {
            x[col[c]] = 1;
            x[nc + 1 + col[c]] = mc;
        }
        d->y[d->n] = (uint8_t)row->correct;
        d->part[d->n] = plev[row->participant];
        d->item[d->n++] = it;
    }
    rc = 0;
out:
    keymap_free(&items);
    sim_free(used);
    sim_free(col);
    sim_free(plev);
    return rc;
}

static int glmm_table(Report *r, SimError *err)
{
    const VerifyGlmm *g = &r->verify_glmm;
    Table *t = report_add_table(r, "error_detection_glmm", TABLE_ALL, TERM_COLS,
                                (int)(sizeof TERM_COLS / sizeof *TERM_COLS));
    if (!t || table_set_title(t, 3, "The mixed model of error detection") ||
        table_set_note(
            t,
            "%s, fitted by Laplace's method as lme4's glmer on %d verify "
            "trials of %d participants and %d items (%s%s). model_correct is "
            "1 when the model was right; the reference condition is '%s'. A "
            "term conditionX is the log odds ratio of a right answer in X "
            "against the reference on the model's wrong predictions (catching "
            "its errors); conditionX:model_correct how much that differs on "
            "its right predictions. Wald 95 %% intervals.",
            g->formula, g->n_obs, g->n_participants, g->n_items,
            g->converged ? "converged" : "not converged",
            g->singular ? ", singular" : "", g->baseline) != 0 ||
        table_set_caption(t, "The mixed model of error detection on verify "
                             "trials (log odds, Wald 95\\,\\% intervals of "
                             "the odds ratios).") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int j = 0; j < g->n_terms; j++) {
        const GlmmTermRow *x = &g->terms[j];
        if (table_add_row(t) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        table_put_text(t, x->name);
        table_put_num(t, x->estimate);
        table_put_num(t, x->se);
        table_put_num(t, x->z);
        table_put_num(t, x->p);
        table_put_num(t, exp(x->estimate));
        table_put_interval(t, exp(x->ci_low), exp(x->ci_high));
    }
    return SIM_OK;
}

int compute_verify_glmm(const Dataset *ds, const AnalyzeOptions *o,
                        const Screen *sc, Report *r, SimError *err)
{
    int vid = dataset_find(ds, "verify");
    if (vid < 0 || !ds->trials || o->no_glmm) {
        return SIM_OK;
    }
    int base = sc->base >= 0 ? sc->base : 0;
    VDesign d;
    memset(&d, 0, sizeof d);
    if (build(ds, sc, vid, base, &d) != 0) {
        vdesign_free(&d);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (d.n == 0 || d.n_part < 2 || d.n_item < 2) {
        vdesign_free(&d);
        return SIM_OK;
    }
    GlmmModel m;
    memset(&m, 0, sizeof m);
    m.n = d.n;
    m.y = d.y;
    m.p = d.p;
    m.X = d.X;
    m.n_terms = 2;
    m.term[0] = (GlmmTerm){d.part, d.n_part, 1, NULL, 0};
    m.term[1] = (GlmmTerm){d.item, d.n_item, 1, NULL, 0};
    m.threads = o->threads;
    GlmmFit f;
    int rc = glmm_fit(&m, &f, err);
    if (rc != SIM_OK) {
        vdesign_free(&d);
        return rc;
    }
    VerifyGlmm *g = &r->verify_glmm;
    g->terms = sim_calloc((size_t)d.p, sizeof *g->terms);
    if (!g->terms) {
        glmm_fit_free(&f);
        vdesign_free(&d);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    g->fitted = 1;
    snprintf(g->formula, sizeof g->formula,
             "correct ~ condition * model_correct + (1 | participant) + (1 | "
             "item)");
    snprintf(g->baseline, sizeof g->baseline, "%s",
             dataset_str(ds, sc->conds[base]));
    g->n_obs = d.n;
    g->n_participants = d.n_part;
    g->n_items = d.n_item;
    g->converged = f.converged;
    g->singular = f.singular;
    for (int j = 0; j < d.p; j++) {
        glmm_term_wald(&g->terms[g->n_terms++], d.names[j], f.beta[j], f.se[j]);
    }
    glmm_fit_free(&f);
    vdesign_free(&d);
    return o->null_study ? SIM_OK : glmm_table(r, err);
}
