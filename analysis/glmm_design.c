/*
** The design of simlab-analyze's mixed model from the screened responses
** (glmm_design.h): observations, fixed-effect columns named as R names
** them, aliased columns left out, the participant term's slopes, and the
** formulas of the structures tried.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/design.h"
#include "analysis/glmm_design.h"
#include "analysis/keymap.h"
#include "common/sim_alloc.h"

void glmm_design_free(GlmmDesign *d)
{
    sim_free(d->row);
    sim_free(d->y);
    sim_free(d->part);
    sim_free(d->item);
    sim_free(d->X);
    sim_free(d->names);
    sim_free(d->col_kind);
    sim_free(d->col_cond);
    sim_free(d->z);
    sim_free(d->znames);
    memset(d, 0, sizeof *d);
}

const char *glmm_structure_name(int st)
{
    return st == GLMM_FULL           ? "full"
           : st == GLMM_UNCORRELATED ? "uncorrelated"
                                     : "intercepts";
}

int glmm_design_has(const GlmmDesign *d, int st)
{
    return d->n > 0 && (st == GLMM_INTERCEPTS || d->kz > 1);
}

static int in_design(int kind, int phase)
{
    return kind == GLMM_PREPOST ? phase == PHASE_PRE || phase == PHASE_POST
           : kind == GLMM_TEST  ? phase == PHASE_TEST
                                : phase == PHASE_POST;
}

/* Drops the columns of X that are linear combinations of earlier ones (a
** Cholesky factor of X'X built column by column, as R's lm leaves out
** aliased columns). */
static int drop_aliased(GlmmDesign *d)
{
    size_t n = (size_t)d->n, p = (size_t)d->p;
    double *xtx = sim_calloc(p * p * 2, sizeof(double));
    int *keep = sim_malloc(p * sizeof(int));
    if (!xtx || !keep) {
        sim_free(xtx);
        sim_free(keep);
        return -1;
    }
    double *R = xtx + p * p; /* rows of the factor of the kept columns */
    for (size_t i = 0; i < n; i++) {
        const double *x = d->X + i * p;
        for (size_t a = 0; a < p; a++) {
            for (size_t b = 0; b <= a; b++) {
                xtx[a * p + b] += x[a] * x[b];
            }
        }
    }
    for (size_t j = 0; j < p; j++) {
        double djj = xtx[j * p + j];
        for (size_t k = 0; k < j; k++) {
            if (!keep[k]) {
                continue;
            }
            double r = xtx[j * p + k];
            for (size_t l = 0; l < k; l++) {
                r -= keep[l] ? R[l * p + k] * R[l * p + j] : 0;
            }
            R[k * p + j] = r / R[k * p + k];
            djj -= R[k * p + j] * R[k * p + j];
        }
        keep[j] = djj > 1e-9 * (xtx[j * p + j] > 1 ? xtx[j * p + j] : 1);
        R[j * p + j] = keep[j] ? sqrt(djj) : 1;
    }
    size_t np = 0;
    for (size_t j = 0; j < p; j++) {
        np += (size_t)keep[j];
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = 0;
        for (size_t j = 0; j < p; j++) {
            if (keep[j]) {
                d->X[i * np + at++] = d->X[i * p + j];
            }
        }
    }
    size_t at = 0;
    for (size_t j = 0; j < p; j++) {
        if (keep[j]) {
            memmove(d->names[at], d->names[j], GLMM_NAME_MAX);
            d->col_kind[at] = d->col_kind[j];
            d->col_cond[at] = d->col_cond[j];
            at++;
        }
    }
    d->dropped = (int)(p - np);
    d->p = (int)np;
    sim_free(xtx);
    sim_free(keep);
    return 0;
}

/* The fixed-effect columns: intercept, phase, conditions, phase x
** condition, sessions; their names and what they stand for. */
static int make_columns(const Dataset *ds, const Screen *sc, GlmmDesign *d,
                        const int *used, const int *sessions, int n_sessions)
{
    int C = sc->n_conds, pre = d->kind == GLMM_PREPOST;
    int max_p = 2 + 2 * C + n_sessions;
    d->names = sim_calloc((size_t)max_p, GLMM_NAME_MAX);
    d->col_kind = sim_calloc((size_t)max_p, sizeof(int));
    d->col_cond = sim_calloc((size_t)max_p, sizeof(int));
    if (!d->names || !d->col_kind || !d->col_cond) {
        return -1;
    }
    int p = 0;
    snprintf(d->names[p], GLMM_NAME_MAX, "(Intercept)");
    d->col_kind[p] = GLMM_COL_INTERCEPT;
    d->col_cond[p++] = -1;
    if (pre) {
        snprintf(d->names[p], GLMM_NAME_MAX, "phasepost");
        d->col_kind[p] = GLMM_COL_PHASE;
        d->col_cond[p++] = -1;
    }
    for (int pass = 0; pass < (pre ? 2 : 1); pass++) {
        for (int c = 0; c < C; c++) {
            if (c == d->base || !used[c]) {
                continue;
            }
            snprintf(d->names[p], GLMM_NAME_MAX, "%scondition%.60s",
                     pass ? "phasepost:" : "", dataset_str(ds, sc->conds[c]));
            d->col_kind[p] = pass ? GLMM_COL_INTERACTION : GLMM_COL_CONDITION;
            d->col_cond[p++] = c;
        }
    }
    for (int k = 1; k < n_sessions; k++) {
        snprintf(d->names[p], GLMM_NAME_MAX, "session%d", sessions[k]);
        d->col_kind[p] = GLMM_COL_SESSION;
        d->col_cond[p++] = sessions[k];
    }
    d->p = p;
    return 0;
}

/* The participant term's columns: intercept, phase (pre/post), the
** condition dummies (within-subject designs). */
static int make_slopes(GlmmDesign *d)
{
    int kz = 1;
    int idx[GLMM_MAX_K];
    idx[0] = 0;
    for (int j = 1; j < d->p && kz < GLMM_MAX_K; j++) {
        if (d->col_kind[j] == GLMM_COL_PHASE ||
            (d->within && d->col_kind[j] == GLMM_COL_CONDITION)) {
            idx[kz++] = j;
        }
    }
    d->kz = kz;
    d->z = sim_malloc((size_t)d->n * (size_t)kz * sizeof(double));
    d->znames = sim_calloc((size_t)kz, GLMM_NAME_MAX);
    if (!d->z || !d->znames) {
        return -1;
    }
    for (int a = 0; a < kz; a++) {
        memcpy(d->znames[a], d->names[idx[a]], GLMM_NAME_MAX);
    }
    for (size_t i = 0; i < (size_t)d->n; i++) {
        for (int a = 0; a < kz; a++) {
            d->z[i * (size_t)kz + (size_t)a] =
                d->X[i * (size_t)d->p + (size_t)idx[a]];
        }
    }
    return 0;
}

int glmm_design_build(const Dataset *ds, const Screen *sc, GlmmDesign *d,
                      const char **why, SimError *err)
{
    memset(d, 0, sizeof *d);
    *why = NULL;
    size_t counts[PHASE_COUNT] = {0};
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *r = &ds->rows[i];
        if (design_counts(sc, r) && r->correct >= 0) {
            counts[r->phase]++;
        }
    }
    d->kind = counts[PHASE_PRE] && counts[PHASE_POST] ? GLMM_PREPOST
              : counts[PHASE_TEST]                    ? GLMM_TEST
              : counts[PHASE_POST]                    ? GLMM_POST
                                                      : -1;
    if (d->kind < 0) {
        *why = "no model: the data have no answered pre/post, test or post "
               "trials";
        return SIM_OK;
    }
    d->within = sc->within;
    d->base = sc->base >= 0 ? sc->base : 0;
    int C = sc->n_conds, np = ds->n_participants;
    size_t n = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *r = &ds->rows[i];
        n += design_counts(sc, r) && r->correct >= 0 &&
             in_design(d->kind, r->phase);
    }
    d->row = sim_malloc(n * sizeof(size_t));
    d->y = sim_malloc(n);
    d->part = sim_malloc(n * sizeof(int));
    d->item = sim_malloc(n * sizeof(int));
    int *plev = sim_malloc(((size_t)np + 1) * sizeof(int));
    int *used = sim_calloc((size_t)C + 1, sizeof(int));
    int sessions[65], n_sessions = 0;
    KeyMap cells = {0}, items = {0};
    int rc = SIM_OK;
    if (!d->row || !d->y || !d->part || !d->item || !plev || !used) {
        goto nomem;
    }
    for (int p = 0; p < np; p++) {
        plev[p] = -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *r = &ds->rows[i];
        if (!design_counts(sc, r) || r->correct < 0 ||
            !in_design(d->kind, r->phase)) {
            continue;
        }
        int added, cell = keymap_get(&cells,
                                     compute_key2(dataset_domain(ds, r),
                                                  dataset_test_type(ds, r)),
                                     cells.n > 0 ? (int)cells.n : 0, &added);
        int it = cell < 0 ? -1
                          : keymap_get(&items, compute_key2(cell, r->item),
                                       d->n_item, &added);
        if (it < 0) {
            goto nomem;
        }
        d->n_item += added;
        if (plev[r->participant] < 0) {
            plev[r->participant] = d->n_part++;
        }
        size_t k = (size_t)d->n++;
        d->row[k] = i;
        d->y[k] = (uint8_t)r->correct;
        d->part[k] = plev[r->participant];
        d->item[k] = it;
        used[sc->cond_index[r->condition]] = 1;
        int s = dataset_session(ds, r), seen = 0;
        for (int j = 0; j < n_sessions; j++) {
            seen |= sessions[j] == s;
        }
        if (!seen && n_sessions < 64) {
            sessions[n_sessions++] = s;
        }
    }
    /* sessions in increasing order, the first the reference */
    for (int a = 1; a < n_sessions; a++) {
        for (int b = a; b > 0 && sessions[b - 1] > sessions[b]; b--) {
            int t = sessions[b];
            sessions[b] = sessions[b - 1];
            sessions[b - 1] = t;
        }
    }
    if (d->kind != GLMM_TEST || n_sessions < 2) {
        n_sessions = 0;
    }
    if (make_columns(ds, sc, d, used, sessions, n_sessions) != 0) {
        goto nomem;
    }
    d->X = sim_calloc(n * (size_t)d->p + 1, sizeof(double));
    if (!d->X) {
        goto nomem;
    }
    for (size_t k = 0; k < n; k++) {
        const DatasetResponse *r = &ds->rows[d->row[k]];
        int post = r->phase == PHASE_POST && d->kind == GLMM_PREPOST;
        int c = sc->cond_index[r->condition], s = dataset_session(ds, r);
        double *x = d->X + k * (size_t)d->p;
        for (int j = 0; j < d->p; j++) {
            switch (d->col_kind[j]) {
            case GLMM_COL_INTERCEPT:
                x[j] = 1;
                break;
            case GLMM_COL_PHASE:
                x[j] = post;
                break;
            case GLMM_COL_CONDITION:
                x[j] = c == d->col_cond[j];
                break;
            case GLMM_COL_INTERACTION:
                x[j] = post && c == d->col_cond[j];
                break;
            default:
                x[j] = s == d->col_cond[j];
                break;
            }
        }
    }
    if (drop_aliased(d) != 0 || make_slopes(d) != 0) {
        goto nomem;
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    keymap_free(&cells);
    keymap_free(&items);
    sim_free(plev);
    sim_free(used);
    return rc;
}

void glmm_design_model(const GlmmDesign *d, int st, GlmmModel *m)
{
    memset(m, 0, sizeof *m);
    m->n = d->n;
    m->y = d->y;
    m->p = d->p;
    m->X = d->X;
    m->n_terms = 2;
    int slopes = st != GLMM_INTERCEPTS && d->kz > 1;
    m->term[0] = (GlmmTerm){d->part, d->n_part, slopes ? d->kz : 1,
                            slopes ? d->z : NULL, st == GLMM_UNCORRELATED};
    m->term[1] = (GlmmTerm){d->item, d->n_item, 1, NULL, 0};
}

void glmm_r_name(const char *name, char *out, size_t size)
{
    static const char *const reserved[] = {
        "if",          "else",     "repeat",        "while",      "function",
        "for",         "next",     "break",         "TRUE",       "FALSE",
        "NULL",        "Inf",      "NaN",           "NA",         "in",
        "NA_integer_", "NA_real_", "NA_character_", "NA_complex_"};
    int ok = (name[0] >= 'A' && name[0] <= 'Z') ||
             (name[0] >= 'a' && name[0] <= 'z') ||
             (name[0] == '.' && !(name[1] >= '0' && name[1] <= '9'));
    for (const char *c = name; ok && *c; c++) {
        ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
             (*c >= '0' && *c <= '9') || *c == '.' || *c == '_';
    }
    for (size_t k = 0; ok && k < sizeof reserved / sizeof *reserved; k++) {
        ok = strcmp(name, reserved[k]) != 0;
    }
    if (ok) {
        snprintf(out, size, "%s", name);
        return;
    }
    size_t n = 0;
    if (size < 3) {
        out[0] = '\0';
        return;
    }
    out[n++] = '`';
    for (const char *c = name; *c && n + 3 < size; c++) {
        if (*c == '`' || *c == '\\') {
            out[n++] = '\\';
        }
        out[n++] = *c;
    }
    out[n++] = '`';
    out[n] = '\0';
}

void glmm_design_formula(const GlmmDesign *d, int st, char *buf, size_t size)
{
    int conds = 0, sessions = 0;
    for (int j = 0; j < d->p; j++) {
        conds |= d->col_kind[j] == GLMM_COL_CONDITION;
        sessions |= d->col_kind[j] == GLMM_COL_SESSION;
    }
    char fixed[64];
    if (d->kind == GLMM_PREPOST) {
        snprintf(fixed, sizeof fixed, "%s",
                 conds ? "phase * condition" : "phase");
    } else {
        snprintf(fixed, sizeof fixed, "%s%s", conds ? "condition" : "1",
                 sessions ? " + session" : "");
    }
    /* the slopes as the numeric dummies of the R script (lme4's || splits
    ** a factor's columns into a correlated block, a different model) */
    char slopes[600] = "";
    size_t at = 0;
    for (int a = 1; st != GLMM_INTERCEPTS && a < d->kz; a++) {
        char nm[2 * GLMM_NAME_MAX + 4];
        glmm_r_name(d->znames[a], nm, sizeof nm);
        int w = snprintf(slopes + at, sizeof slopes - at, " + %s", nm);
        at += w > 0 && (size_t)w < sizeof slopes - at ? (size_t)w : 0;
    }
    snprintf(buf, size, "correct ~ %s + (1%s %s participant) + (1 | item)",
             fixed, slopes, st == GLMM_UNCORRELATED ? "||" : "|");
}
