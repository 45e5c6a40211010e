/*
** ANOVA over conditions of participant accuracy (test trials, catch trials
** excluded, when the data have a test phase; otherwise post trials) with
** Tukey-Kramer comparisons. Fills Report.anova, groups and tukey and
** appends their tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"

static int anova_tables(Report *r, SimError *err);
static int anova_within(const Dataset *ds, const Screen *sc, Report *r,
                        SimError *err);

/* Participant accuracies on phase into y, their condition index into g;
** returns how many. */
static int participant_accuracy(const Dataset *ds, const Screen *sc, int phase,
                                double *s, double *n, double *y, int *g)
{
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int p = row->participant;
        if (sc->keep[p] && row->phase == phase && row->correct >= 0 &&
            !row->is_catch) {
            s[p] += row->correct;
            n[p] += 1;
        }
    }
    int m = 0;
    for (int p = 0; p < ds->n_participants; p++) {
        if (sc->keep[p] && n[p] > 0) {
            y[m] = s[p] / n[p];
            g[m] = sc->cond_index[ds->participants[p].condition];
            m++;
        }
    }
    return m;
}

int compute_anova(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                  Report *r, SimError *err)
{
    if (sc->within) {
        return anova_within(ds, sc, r, err);
    }
    int np = ds->n_participants, C = sc->n_conds;
    int phase = -1;
    for (size_t i = 0; i < ds->n_rows && phase != PHASE_TEST; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (design_counts(sc, row) && row->correct >= 0 &&
            (row->phase == PHASE_TEST || row->phase == PHASE_POST)) {
            phase = row->phase; /* a block of catch trials is no test */
        }
    }
    if (phase < 0) {
        return anova_tables(r, err);
    }
    double *s = sim_calloc((size_t)np + 1, sizeof(double));
    double *n = sim_calloc((size_t)np + 1, sizeof(double));
    double *y = sim_malloc(((size_t)np + 1) * sizeof(double));
    int *g = sim_malloc(((size_t)np + 1) * sizeof(int));
    TukeyPair *pairs = NULL;
    int rc = SIM_OK;
    if (!s || !n || !y || !g) {
        goto nomem;
    }
    int m = participant_accuracy(ds, sc, phase, s, n, y, g);
    r->groups = sim_calloc((size_t)C + 1, sizeof *r->groups);
    if (!r->groups) {
        goto nomem;
    }
    for (int c = 0; c < C; c++) {
        double sum = 0, sq = 0;
        int k = 0;
        for (int i = 0; i < m; i++) {
            if (g[i] == c) {
                sum += y[i];
                k++;
            }
        }
        if (k == 0) {
            continue;
        }
        double mean = sum / k;
        for (int i = 0; i < m; i++) {
            if (g[i] == c) {
                sq += (y[i] - mean) * (y[i] - mean);
            }
        }
        GroupSummary *gs = &r->groups[r->n_groups++];
        gs->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        gs->n = k;
        gs->mean = mean;
        gs->sd = k > 1 ? sqrt(sq / (k - 1)) : NAN;
    }
    r->anova_outcome = sim_strdup(
        phase == PHASE_TEST
            ? "participant accuracy on test trials (catch trials excluded)"
            : "participant accuracy on post trials");
    if (stats_anova(y, g, m, C, &r->anova) != 0) {
        goto cleanup;
    }
    r->has_anova = 1;
    pairs = sim_calloc((size_t)(C * (C - 1) / 2 + 1), sizeof *pairs);
    if (!pairs) {
        goto nomem;
    }
    /* a null study of --calibrate needs the decisions only */
    int npairs = o->null_study ? stats_tukey_p(y, g, m, C, pairs)
                               : stats_tukey(y, g, m, C, 0.95, pairs);
    r->tukey = sim_calloc((size_t)(npairs > 0 ? npairs : 1), sizeof *r->tukey);
    if (!r->tukey) {
        goto nomem;
    }
    for (int i = 0; i < npairs; i++) {
        TukeyRow *t = &r->tukey[r->n_tukey++];
        t->a = sim_strdup(dataset_str(ds, sc->conds[pairs[i].g]));
        t->b = sim_strdup(dataset_str(ds, sc->conds[pairs[i].h]));
        t->diff = pairs[i].diff;
        t->lwr = pairs[i].lwr;
        t->upr = pairs[i].upr;
        t->p_adj = pairs[i].p_adj;
        t->vs_baseline = pairs[i].g == sc->base || pairs[i].h == sc->base;
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    if (rc == SIM_OK) {
        rc = anova_tables(r, err);
    }
    sim_free(pairs);
    sim_free(s);
    sim_free(n);
    sim_free(y);
    sim_free(g);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Tables                                                               */

/* json "anova": one object, null without an ANOVA. */
static const TableColumn ANOVA_COLS[] = {
    {"outcome", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"f", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_between", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_within", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"eta_sq", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
};

static const TableColumn GROUP_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"mean", NULL, NULL, TABLE_PERCENT, "", 2, 0, 0},
    {"sd", NULL, NULL, TABLE_PERCENT, "", 2, 0, 0},
};

static const TableColumn TUKEY_COLS[] = {
    {"comparison", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_MD},
    {"a", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_CSV | TABLE_JSON},
    {"b", NULL, NULL, TABLE_TEXT, "", 0, 0, TABLE_CSV | TABLE_JSON},
    {"diff", NULL, NULL, TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"lwr", NULL, NULL, TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"upr", NULL, NULL, TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"p_adj", NULL, "p adj", TABLE_PVALUE, "", 0, 0, 0},
    {"vs_baseline", NULL, NULL, TABLE_BOOL, "", 0, 0, TABLE_CSV | TABLE_JSON},
};

static const TableColumn TUKEY_TEX_COLS[] = {
    {"comparison", NULL, "Comparison", TABLE_TEXT, "", 0, 0, 0},
    {"diff", NULL, "Diff", TABLE_PERCENT, "", 2, 0, 0},
    {"lwr", NULL, "Lower", TABLE_PERCENT, "", 2, 0, 0},
    {"upr", NULL, "Upper", TABLE_PERCENT, "", 2, 0, 0},
    {"p_adj", NULL, "$p$", TABLE_PVALUE, "", 0, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* md: the ANOVA line above the group means, then the Tukey table. */
static int groups_table(Report *r)
{
    const AnovaResult *a = &r->anova;
    Table *t = report_add_table(r, "groups", TABLE_MD | TABLE_JSON, GROUP_COLS,
                                N_COLS(GROUP_COLS));
    if (!t) {
        return -1;
    }
    table_set_json_path(t, "anova.groups");
    table_set_title(t, 2, "ANOVA over conditions");
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b, "Outcome: %s.\n\nF(%g, %g) = ", r->anova_outcome,
                   a->df_between, a->df_within);
    table_fmt_num(&b, a->f, 3, 0, "-");
    sim_buf_puts(&b, ", p = ");
    table_fmt_p(&b, a->p, "-");
    sim_buf_puts(&b, ", eta^2 = ");
    table_fmt_num(&b, a->eta_sq, 3, 0, "-");
    sim_buf_puts(&b, ".");
    int rc = b.oom ? -1 : table_set_note(t, "%s", sim_buf_cstr(&b));
    sim_buf_free(&b);
    for (int i = 0; i < r->n_groups; i++) {
        table_add_row(t);
        table_put_text(t, r->groups[i].condition);
        table_put_num(t, r->groups[i].n);
        table_put_num(t, r->groups[i].mean);
        table_put_num(t, r->groups[i].sd);
    }
    return rc;
}

static int tukey_tables(Report *r)
{
    unsigned md = r->has_anova ? TABLE_MD : 0;
    Table *t = report_add_table(r, "tukey", md | TABLE_CSV | TABLE_JSON,
                                TUKEY_COLS, N_COLS(TUKEY_COLS));
    Table *tex = r->has_anova && r->n_tukey > 0
                     ? report_add_table(r, "tukey_tex", TABLE_TEX,
                                        TUKEY_TEX_COLS, N_COLS(TUKEY_TEX_COLS))
                     : NULL;
    if (!t || (r->has_anova && r->n_tukey > 0 && !tex)) {
        return -1;
    }
    int any_base = 0;
    for (int i = 0; i < r->n_tukey; i++) {
        any_base |= r->tukey[i].vs_baseline;
    }
    if (any_base) {
        table_set_note(t, "Tukey HSD (Tukey-Kramer), differences in accuracy "
                          "points; * = comparison with the baseline.");
    } else {
        table_set_note(t,
                       "Tukey HSD (Tukey-Kramer), differences in accuracy "
                       "points; no comparison with a baseline (reference: "
                       "%s).",
                       r->baseline_from ? r->baseline_from : "none");
    }
    SimBuf b;
    sim_buf_init(&b);
    for (int i = 0; i < r->n_tukey; i++) {
        const TukeyRow *x = &r->tukey[i];
        sim_buf_printf(&b, "%s%s - %s", x->vs_baseline ? "* " : "", x->b, x->a);
        table_add_row(t);
        table_put_text(t, sim_buf_cstr(&b));
        b.len = 0;
        table_put_text(t, x->a);
        table_put_text(t, x->b);
        table_put_num(t, x->diff);
        table_put_num(t, x->lwr);
        table_put_num(t, x->upr);
        table_put_num(t, x->p_adj);
        table_put_num(t, x->vs_baseline);
        if (tex) {
            sim_buf_printf(&b, "%s -- %s", x->b, x->a);
            table_add_row(tex);
            table_put_text(tex, sim_buf_cstr(&b));
            b.len = 0;
            table_put_num(tex, x->diff);
            table_put_num(tex, x->lwr);
            table_put_num(tex, x->upr);
            table_put_num(tex, x->p_adj);
        }
    }
    if (tex) {
        /* a missing value is a dash, in math mode too */
        sim_buf_printf(&b,
                       "Tukey HSD. ANOVA: $F(%g, %g) = ", r->anova.df_between,
                       r->anova.df_within);
        table_fmt_num(&b, r->anova.f, 2, 0, "\\mbox{--}");
        sim_buf_puts(&b, "$, $\\eta^2 = ");
        table_fmt_num(&b, r->anova.eta_sq, 3, 0, "\\mbox{--}");
        sim_buf_puts(&b, "$.");
        table_set_caption(tex, sim_buf_cstr(&b));
    }
    int rc = b.oom ? -1 : 0;
    sim_buf_free(&b);
    return rc;
}

/* json "anova" (null without one) with its groups; md the ANOVA line, the
** group means and Tukey HSD; tex Tukey HSD with the ANOVA in the caption;
** csv/json the Tukey comparisons. */
static int anova_tables(Report *r, SimError *err)
{
    Table *t = report_add_table(r, "anova", TABLE_JSON, ANOVA_COLS,
                                N_COLS(ANOVA_COLS));
    if (!t) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    t->object = 1;
    if (r->has_anova) {
        const AnovaResult *a = &r->anova;
        table_add_row(t);
        table_put_text(t, r->anova_outcome);
        table_put_num(t, a->f);
        table_put_num(t, a->df_between);
        table_put_num(t, a->df_within);
        table_put_num(t, a->p);
        table_put_num(t, a->eta_sq);
        if (groups_table(r) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return tukey_tables(r) == 0 ? SIM_OK
                                : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Within-subject designs: repeated-measures ANOVA                      */

/* json "anova" of a within design: the documented keys (df_between: the
** conditions' df, df_within: the error df, eta_sq: partial eta^2) and the
** Greenhouse-Geisser correction. */
static const TableColumn RM_COLS[] = {
    {"outcome", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"design", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"f", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_between", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_within", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"eta_sq", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"partial_eta_sq", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"gg_epsilon", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_between_gg", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"df_within_gg", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"p_gg", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
};

static const TableColumn RM_TEX_COLS[] = {
    {"f", NULL, "$F$", TABLE_REAL, "", 2, 0, 0},
    {"df_between", NULL, "df", TABLE_REAL, "", 0, 0, 0},
    {"df_within", NULL, "df (error)", TABLE_REAL, "", 0, 0, 0},
    {"p", NULL, "$p$", TABLE_PVALUE, "", 0, 0, 0},
    {"gg_epsilon", NULL, "$\\hat\\varepsilon_{\\mathrm{GG}}$", TABLE_REAL, "",
     3, 0, 0},
    {"p_gg", NULL, "$p_{\\mathrm{GG}}$", TABLE_PVALUE, "", 0, 0, 0},
    {"partial_eta_sq", NULL, "$\\eta^2_p$", TABLE_REAL, "", 3, 0, 0},
};

static int rm_tables(Report *r, const RmAnovaResult *a, int ok, int left_out)
{
    Table *t =
        report_add_table(r, "anova", TABLE_JSON, RM_COLS, N_COLS(RM_COLS));
    if (!t) {
        return -1;
    }
    t->object = 1;
    if (!ok) {
        return 0;
    }
    table_add_row(t);
    table_put_text(t, r->anova_outcome);
    table_put_text(t, "within");
    table_put_num(t, a->n);
    table_put_num(t, a->f);
    table_put_num(t, a->df_cond);
    table_put_num(t, a->df_error);
    table_put_num(t, a->p);
    table_put_num(t, a->partial_eta_sq);
    table_put_num(t, a->partial_eta_sq);
    table_put_num(t, a->gg_epsilon);
    table_put_num(t, a->gg_epsilon * a->df_cond);
    table_put_num(t, a->gg_epsilon * a->df_error);
    table_put_num(t, a->p_gg);

    Table *g = report_add_table(r, "groups", TABLE_MD | TABLE_JSON, GROUP_COLS,
                                N_COLS(GROUP_COLS));
    Table *tex = report_add_table(r, "anova_tex", TABLE_TEX, RM_TEX_COLS,
                                  N_COLS(RM_TEX_COLS));
    if (!g || !tex) {
        return -1;
    }
    table_set_json_path(g, "anova.groups");
    table_set_title(g, 2, "Repeated-measures ANOVA over conditions");
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b,
                   "Outcome: %s; %d participants with trials in every "
                   "condition",
                   r->anova_outcome, a->n);
    if (left_out > 0) {
        sim_buf_printf(&b,
                       " (%d left out: no answered trials in some "
                       "condition)",
                       left_out);
    }
    sim_buf_printf(&b, ".\n\nF(%g, %g) = ", a->df_cond, a->df_error);
    table_fmt_num(&b, a->f, 3, 0, "-");
    sim_buf_puts(&b, ", p = ");
    table_fmt_p(&b, a->p, "-");
    sim_buf_puts(&b, "; Greenhouse-Geisser epsilon = ");
    table_fmt_num(&b, a->gg_epsilon, 3, 0, "-");
    sim_buf_puts(&b, ", corrected p = ");
    table_fmt_p(&b, a->p_gg, "-");
    sim_buf_puts(&b, "; partial eta^2 = ");
    table_fmt_num(&b, a->partial_eta_sq, 3, 0, "-");
    sim_buf_puts(&b, ".");
    int rc = b.oom ? -1 : table_set_note(g, "%s", sim_buf_cstr(&b));
    sim_buf_free(&b);
    for (int i = 0; i < r->n_groups; i++) {
        table_add_row(g);
        table_put_text(g, r->groups[i].condition);
        table_put_num(g, r->groups[i].n);
        table_put_num(g, r->groups[i].mean);
        table_put_num(g, r->groups[i].sd);
    }
    table_set_caption(tex, "Repeated-measures ANOVA of participant accuracy "
                           "over conditions, with the Greenhouse--Geisser "
                           "correction.");
    table_add_row(tex);
    table_put_num(tex, a->f);
    table_put_num(tex, a->df_cond);
    table_put_num(tex, a->df_error);
    table_put_num(tex, a->p);
    table_put_num(tex, a->gg_epsilon);
    table_put_num(tex, a->p_gg);
    table_put_num(tex, a->partial_eta_sq);
    return rc;
}

static int anova_within(const Dataset *ds, const Screen *sc, Report *r,
                        SimError *err)
{
    int C = sc->n_conds, m = 0, phase = -1;
    double *acc = NULL, *y = NULL;
    int *part = NULL;
    RmAnovaResult a;
    memset(&a, 0, sizeof a);
    int rc = within_accuracy(ds, sc, &phase, &acc, &part, &m, err);
    if (rc != SIM_OK) {
        return rc;
    }
    y = sim_malloc(((size_t)m * (size_t)C + 1) * sizeof(double));
    r->groups = sim_calloc((size_t)C + 1, sizeof *r->groups);
    if (!y || !r->groups) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    int n = 0; /* complete participants */
    for (int i = 0; i < m; i++) {
        const double *row = acc + (size_t)i * (size_t)C;
        int complete = 1;
        for (int c = 0; c < C; c++) {
            complete &= !isnan(row[c]);
        }
        if (complete) {
            memcpy(y + (size_t)n * (size_t)C, row, (size_t)C * sizeof(double));
            n++;
        }
    }
    int ok = phase >= 0 && stats_rm_anova(y, n, C, &a) == 0;
    if (ok) {
        r->anova_outcome = sim_strdup(
            phase == PHASE_TEST
                ? "participant accuracy on test trials (catch trials excluded)"
                : "participant accuracy on post trials");
        for (int c = 0; c < C; c++) {
            double sum = 0, sq = 0;
            for (int i = 0; i < n; i++) {
                sum += y[(size_t)i * (size_t)C + (size_t)c];
            }
            double mean = sum / n;
            for (int i = 0; i < n; i++) {
                double d = y[(size_t)i * (size_t)C + (size_t)c] - mean;
                sq += d * d;
            }
            GroupSummary *gs = &r->groups[r->n_groups++];
            gs->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
            gs->n = n;
            gs->mean = mean;
            gs->sd = sqrt(sq / (n - 1));
        }
    }
    if (rm_tables(r, &a, ok, m - n) != 0) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* Tukey HSD assumes independent groups: the within design compares
    ** conditions by paired t tests instead (within.c); the key stays. */
    Table *t = report_add_table(r, "tukey", TABLE_CSV | TABLE_JSON, TUKEY_COLS,
                                N_COLS(TUKEY_COLS));
    if (!t) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    table_set_note(t, "Not computed in a within-subjects design: see the "
                      "paired comparisons.");
cleanup:
    sim_free(acc);
    sim_free(part);
    sim_free(y);
    return rc;
}
