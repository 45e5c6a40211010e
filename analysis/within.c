/*
** Within-subject designs: which design the screened participants form
** (between, or within: complete or not), participant accuracy per
** condition, and paired t tests of every condition against the baseline
** with Holm's adjustment. The repeated-measures ANOVA is in anova.c; the
** bootstraps draw participants as blocks through boot.c.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "analysis/keymap.h"
#include "analysis/teststat.h"
#include "common/sim_alloc.h"

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* json "design": one object. */
static const TableColumn DESIGN_COLS[] = {
    {"kind", NULL, "design", TABLE_TEXT, "", 0, 0, 0},
    {"participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"conditions", NULL, NULL, TABLE_INT, "conditions", 0, 0, 0},
    {"incomplete", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
};

static int design_table(Report *r, int within, int n_part, int n_cond,
                        int incomplete)
{
    Table *t =
        report_add_table(r, "design", (within ? TABLE_MD : 0) | TABLE_JSON,
                         DESIGN_COLS, N_COLS(DESIGN_COLS));
    if (!t) {
        return -1;
    }
    t->object = 1;
    if (!within) {
        table_set_note(t, "Between-subjects: every participant saw one "
                          "condition.");
    } else if (incomplete == 0) {
        table_set_title(t, 2, "Design");
        table_set_note(t, "Within-subjects: every participant saw every "
                          "condition. The bootstraps draw participants with "
                          "all their conditions; the ANOVA is a "
                          "repeated-measures ANOVA and each condition is "
                          "compared with the baseline by a paired t test.");
    } else {
        table_set_title(t, 2, "Design");
        table_set_note(t,
                       "Within-subjects, incomplete: %d of the %d "
                       "participants saw some but not all of the %d "
                       "conditions. The mixed model uses every answer of "
                       "every participant; the repeated-measures ANOVA "
                       "needs participants with every condition, and each "
                       "paired t test those with both of its conditions "
                       "(their notes say how many); the bootstraps draw "
                       "participants with all the conditions they saw.",
                       incomplete, n_part, n_cond);
    }
    table_add_row(t);
    table_put_text(t, within ? "within" : "between");
    table_put_num(t, n_part);
    table_put_num(t, n_cond);
    table_put_num(t, incomplete);
    return t->bad ? -1 : 0;
}

/* In a within design a participant counts in every condition it has rows
** in: redoes the per-condition counts of screen.c (which counts each
** participant in the condition of its first row) and their table. */
static void recount(Report *r, const int *enrolled, const int *analysed)
{
    for (int c = 0; c < r->n_counts; c++) {
        r->counts[c].enrolled = enrolled[c];
        r->counts[c].analysed = analysed[c];
    }
    for (int i = 0; i < r->n_tables; i++) {
        Table *t = r->tables[i];
        if (strcmp(t->key, "participants") != 0 || t->n_cols != 3) {
            continue;
        }
        for (int c = 0; c < t->n_rows && c < r->n_counts; c++) {
            t->cells[(size_t)c * 3 + 1].x = enrolled[c];
            t->cells[(size_t)c * 3 + 2].x = analysed[c];
        }
    }
}

int screen_design(const Dataset *ds, Screen *s, Report *r, SimError *err)
{
    int np = ds->n_participants, C = s->n_conds;
    KeyMap seen = {0};
    int *n_cond = sim_calloc((size_t)np + 1, sizeof(int));
    int *enrolled = sim_calloc((size_t)C + 1, sizeof(int));
    int *analysed = sim_calloc((size_t)C + 1, sizeof(int));
    if (!n_cond || !enrolled || !analysed) {
        sim_free(n_cond);
        sim_free(enrolled);
        sim_free(analysed);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = SIM_OK;
    for (size_t i = 0; i < ds->n_rows && rc == SIM_OK; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int c = s->cond_index[row->condition], added;
        if (keymap_get(&seen, compute_key2(row->participant, c), 0, &added) <
            0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int kept = s->keep[row->participant];
        enrolled[c] += added;
        analysed[c] += added && kept;
        n_cond[row->participant] += added && kept;
    }
    keymap_free(&seen);
    int n_present = 0, n_part = 0, n_multi = 0, lo = -1, hi = -1;
    for (int c = 0; c < C; c++) {
        n_present += analysed[c] > 0;
    }
    for (int p = 0; p < np; p++) {
        if (n_cond[p] == 0) {
            continue;
        }
        n_part++;
        n_multi += n_cond[p] > 1;
        lo = lo < 0 || n_cond[p] < n_cond[lo] ? p : lo;
        hi = hi < 0 || n_cond[p] > n_cond[hi] ? p : hi;
    }
    /* A few participants in several conditions of a between-subjects study
    ** (fewer than half) are a warning (screen.c); otherwise a within design,
    ** complete or not: a participant who saw some of the conditions is
    ** fitted by the mixed model with the others (lme4 does the same), and
    ** left out of the tables that need complete participants. */
    int incomplete = 0;
    for (int p = 0; p < np; p++) {
        incomplete += n_cond[p] > 0 && n_cond[p] < n_present;
    }
    if (rc == SIM_OK) {
        s->within = n_part > 0 && n_cond[hi] > 1 && 2 * n_multi >= n_part;
        s->incomplete = s->within ? incomplete : 0;
        if (s->within) {
            recount(r, enrolled, analysed);
        }
        if (design_table(r, s->within, n_part, n_present, s->incomplete) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    sim_free(n_cond);
    sim_free(enrolled);
    sim_free(analysed);
    return rc;
}

int within_accuracy(const Dataset *ds, const Screen *sc, int *phase,
                    double **acc, int **part, int *n_part, SimError *err)
{
    int np = ds->n_participants, C = sc->n_conds;
    *acc = NULL;
    *part = NULL;
    *n_part = 0;
    *phase = -1;
    for (size_t i = 0; i < ds->n_rows && *phase != PHASE_TEST; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (design_counts(sc, row) && row->correct >= 0 &&
            (row->phase == PHASE_TEST || row->phase == PHASE_POST)) {
            *phase = row->phase; /* a block of catch trials is no test */
        }
    }
    int *slot = sim_malloc(((size_t)np + 1) * sizeof(int));
    int *who = sim_malloc(((size_t)np + 1) * sizeof(int));
    if (!slot || !who) {
        sim_free(slot);
        sim_free(who);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int m = 0;
    for (int p = 0; p < np; p++) {
        slot[p] = sc->keep[p] ? m : -1;
        if (sc->keep[p]) {
            who[m++] = p;
        }
    }
    size_t cells = (size_t)m * (size_t)C;
    double *s = sim_calloc(cells + 1, sizeof(double));
    double *n = sim_calloc(cells + 1, sizeof(double));
    if (!s || !n) {
        sim_free(slot);
        sim_free(who);
        sim_free(s);
        sim_free(n);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ds->n_rows && *phase >= 0; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int k = slot[row->participant];
        if (k >= 0 && row->phase == *phase && row->correct >= 0 &&
            !row->is_catch) {
            size_t at =
                (size_t)k * (size_t)C + (size_t)sc->cond_index[row->condition];
            s[at] += row->correct;
            n[at] += 1;
        }
    }
    for (size_t x = 0; x < cells; x++) {
        s[x] = n[x] > 0 ? s[x] / n[x] : NAN;
    }
    sim_free(slot);
    sim_free(n);
    *acc = s;
    *part = who;
    *n_part = m;
    return SIM_OK;
}

/* ------------------------------------------------------------------ */
/* Paired comparisons with the baseline                                 */

static const TableColumn PAIRED_COLS[] = {
    {"comparison", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_MD},
    {"a", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_CSV | TABLE_JSON},
    {"b", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_CSV | TABLE_JSON},
    {"n_participants", NULL, "n", TABLE_INT, "participants", 0, 0, 0},
    {"diff", NULL, NULL, TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"t", NULL, NULL, TABLE_REAL, "", 3, 0, 0},
    {"df", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"p_holm", NULL, "p (Holm)", TABLE_PVALUE, "", 0, 0, 0},
    {"ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "", 2, TABLE_SIGNED, 0},
};

static const TableColumn PAIRED_TEX_COLS[] = {
    {"comparison", NULL, "Comparison", TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "$n$", TABLE_INT, "", 0, 0, 0},
    {"diff", NULL, "Diff", TABLE_PERCENT, "", 2, 0, 0},
    {"t", NULL, "$t$", TABLE_REAL, "", 2, 0, 0},
    {"df", NULL, "df", TABLE_REAL, "", 0, 0, 0},
    {"p_holm", NULL, "$p_{\\mathrm{Holm}}$", TABLE_PVALUE, "", 0, 0, 0},
    {"ci", NULL, "95\\,\\% CI", TABLE_PERCENT_INTERVAL, "", 2, 0, 0},
};

int within_paired_tests(const double *acc, int n_part, int n_conds, int base,
                        double *a, double *b, PairedT *res, double *p,
                        double *p_holm)
{
    int C = n_conds, n_tests = 0;
    for (int c = 0; c < C; c++) {
        if (c == base) {
            continue;
        }
        int k = 0;
        for (int i = 0; i < n_part; i++) {
            double x = acc[(size_t)i * (size_t)C + (size_t)base];
            double y = acc[(size_t)i * (size_t)C + (size_t)c];
            if (!isnan(x) && !isnan(y)) {
                a[k] = x;
                b[k] = y;
                k++;
            }
        }
        stats_paired_t(a, b, k, &res[n_tests]);
        p[n_tests] = res[n_tests].p;
        n_tests++;
    }
    stats_p_holm(p, n_tests, p_holm);
    return n_tests;
}

/* The baseline of the paired comparisons: the --baseline condition, or
** the first condition of the data when none has that name. */
static int paired_base(const Screen *sc)
{
    return sc->base >= 0 ? sc->base : 0;
}

int compute_paired(const Dataset *ds, const Screen *sc, Report *r,
                   SimError *err)
{
    int C = sc->n_conds;
    unsigned fmt = sc->within ? TABLE_ALL : TABLE_JSON;
    Table *t = report_add_table(r, "paired", fmt & ~(unsigned)TABLE_TEX,
                                PAIRED_COLS, N_COLS(PAIRED_COLS));
    Table *tex =
        sc->within ? report_add_table(r, "paired_tex", TABLE_TEX,
                                      PAIRED_TEX_COLS, N_COLS(PAIRED_TEX_COLS))
                   : NULL;
    if (!t || (sc->within && !tex)) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (!sc->within) { /* an empty list */
        return table_set_note(t, "Between-subjects design: no paired "
                                 "comparisons.") == 0
                   ? SIM_OK
                   : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    double *acc = NULL, *a = NULL, *b = NULL, *p = NULL, *ph = NULL;
    int *part = NULL, m = 0, phase = -1;
    PairedT *res = NULL;
    int rc = within_accuracy(ds, sc, &phase, &acc, &part, &m, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int base = paired_base(sc);
    a = sim_malloc(((size_t)m + 1) * sizeof(double));
    b = sim_malloc(((size_t)m + 1) * sizeof(double));
    p = sim_malloc(((size_t)C + 1) * sizeof(double));
    ph = sim_malloc(((size_t)C + 1) * sizeof(double));
    res = sim_calloc((size_t)C + 1, sizeof *res);
    if (!a || !b || !p || !ph || !res) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    int n_tests =
        phase >= 0 ? within_paired_tests(acc, m, C, base, a, b, res, p, ph) : 0;
    const char *bname = dataset_str(ds, sc->conds[base]);
    if (sc->base >= 0) {
        table_set_note(t,
                       "Paired t tests of participant accuracy, each "
                       "condition minus the baseline '%s' (participants "
                       "with trials in both); p (Holm) adjusts for the %d "
                       "comparisons.",
                       bname, n_tests);
    } else {
        table_set_note(t,
                       "Paired t tests of participant accuracy, each "
                       "condition minus the first condition '%s' (no "
                       "baseline: %s); p (Holm) adjusts for the %d "
                       "comparisons.",
                       bname, r->baseline_from ? r->baseline_from : "none",
                       n_tests);
    }
    table_set_title(t, 2, "Paired comparisons with the baseline");
    table_set_caption(tex, "Paired $t$ tests of participant accuracy "
                           "against the baseline, Holm-adjusted $p$.");
    SimBuf lab;
    sim_buf_init(&lab);
    for (int c = 0, j = 0; c < C && phase >= 0; c++) {
        if (c == base) {
            continue;
        }
        const char *cname = dataset_str(ds, sc->conds[c]);
        const PairedT *x = &res[j];
        lab.len = 0;
        sim_buf_printf(&lab, "%s - %s", cname, bname);
        table_add_row(t);
        table_put_text(t, sim_buf_cstr(&lab));
        table_put_text(t, bname);
        table_put_text(t, cname);
        table_put_num(t, x->n);
        table_put_num(t, x->diff);
        table_put_num(t, x->t);
        table_put_num(t, x->df);
        table_put_num(t, x->p);
        table_put_num(t, ph[j]);
        table_put_interval(t, x->lo, x->hi);
        lab.len = 0;
        sim_buf_printf(&lab, "%s -- %s", cname, bname);
        table_add_row(tex);
        table_put_text(tex, sim_buf_cstr(&lab));
        table_put_num(tex, x->n);
        table_put_num(tex, x->diff);
        table_put_num(tex, x->t);
        table_put_num(tex, x->df);
        table_put_num(tex, ph[j]);
        table_put_interval(tex, x->lo, x->hi);
        j++;
    }
    if (lab.oom || t->bad || tex->bad) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sim_buf_free(&lab);
cleanup:
    sim_free(acc);
    sim_free(part);
    sim_free(a);
    sim_free(b);
    sim_free(p);
    sim_free(ph);
    sim_free(res);
    return rc;
}
