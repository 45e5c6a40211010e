/*
** Automated explanation metrics against people (metrics_vs_human): per
** metric, Kendall's tau_b and Spearman's rho between the methods' metric
** values and their human effect (the primary test's estimate against the
** baseline; where the design has sessions, Utility too), with a crossed
** participant x item bootstrap interval in which
** the human effects are re-estimated on every replicate and item-level
** metrics averaged over the resampled items; the share of replicates whose
** best method by the metric is the people's best.
*/
#include "analysis/metrics.h"
#include "analysis/metrics_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/rankcor.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_analysis.h"
#include "common/sim_text.h"

/* One metric's values per condition: a method-level score, or the mean
** of its items' values over the data's items. */
typedef struct MetricCols {
    double *method; /* [C]: the method-level score, NaN when none */
    double *item;   /* [C x n_item]: NaN where none */
} MetricCols;

static double metric_value(const MhData *d, const MetricCols *mc, int c,
                           const double *v)
{
    if (isfinite(mc->method[c])) {
        return mc->method[c];
    }
    double s = 0, w = 0;
    for (int j = 0; j < d->n_item; j++) {
        double x = mc->item[(size_t)c * (size_t)d->n_item + (size_t)j];
        double vj = v ? v[j] : 1;
        if (isfinite(x) && vj > 0) {
            s += vj * x;
            w += vj;
        }
    }
    return w > 0 ? s / w : (double)NAN;
}

/* The index of the largest (sign 1) or smallest (-1) of x[idx[0..m)]. */
static int best_of(const double *x, const int *idx, int m, int sign)
{
    int best = -1;
    for (int k = 0; k < m; k++) {
        if (best < 0 || sign * x[idx[k]] > sign * x[idx[best]]) {
            best = k;
        }
    }
    return best;
}

/* tau, rho and whether the bests agree for the methods idx[0..m), from
** metric values mv[C] and effects eff[C]. */
static void correlate(const double *mv, const double *eff, const int *idx,
                      int m, int hib, double *work, double *out)
{
    double *x = work, *y = work + m, *w = work + 2 * m;
    int k = 0;
    for (int i = 0; i < m; i++) {
        if (isfinite(mv[idx[i]]) && isfinite(eff[idx[i]])) {
            x[k] = mv[idx[i]];
            y[k] = eff[idx[i]];
            k++;
        }
    }
    out[0] = k >= 3 ? rankcor_kendall(x, y, k) : (double)NAN;
    out[1] = k >= 3 ? rankcor_spearman(x, y, k, w) : (double)NAN;
    if (k < m) {
        out[2] = NAN;
        return;
    }
    out[2] = best_of(mv, idx, m, hib == 0 ? -1 : 1) == best_of(eff, idx, m, 1);
}

/* The effect scale of the primary test: how replicates re-estimate it. */
static int effect_kind(int test)
{
    switch (test) {
    case SIM_PRIMARY_GLMM:
        return EFFECT_LOGIT;
    case SIM_PRIMARY_UTILITY_BOOTSTRAP:
        return EFFECT_RATIO;
    default:
        return EFFECT_DIFF;
    }
}

/* The point estimate of condition c's human effect from the primary
** test's rows (on the replicates' scale: log odds ratio for the mixed
** model), with its interval; 0 when the primary test has none for it. */
static int primary_effect(const Report *r, const char *cond, const char *base,
                          double *est, double *lo, double *hi)
{
    const PrimaryResult *pr = &r->primary;
    const PrimaryRow *row = NULL, *brow = NULL;
    for (int i = 0; i < pr->n_rows; i++) {
        if (strcmp(pr->rows[i].condition, cond) == 0) {
            row = &pr->rows[i];
        }
        if (base && strcmp(pr->rows[i].condition, base) == 0) {
            brow = &pr->rows[i];
        }
    }
    if (!row || !isfinite(row->estimate)) {
        return 0;
    }
    switch (pr->test) {
    case SIM_PRIMARY_GLMM:
        *est = log(row->estimate);
        *lo = log(row->ci_low);
        *hi = log(row->ci_high);
        return row->estimate > 0;
    case SIM_PRIMARY_CHANGE_BOOTSTRAP: /* Change against the baseline's */
        if (!brow || !isfinite(brow->estimate)) {
            return 0;
        }
        *est = row->estimate - brow->estimate;
        *lo = *hi = NAN;
        return 1;
    case SIM_PRIMARY_PAIRED_T:
    case SIM_PRIMARY_UTILITY_BOOTSTRAP:
        *est = row->estimate;
        *lo = row->ci_low;
        *hi = row->ci_high;
        return 1;
    default:
        return 0;
    }
}

/* Condition cond's Utility and its interval from the Utility table; 0 when
** it has none. */
static int utility_effect(const Report *r, const char *cond, double *est,
                          double *lo, double *hi)
{
    for (int i = 0; i < r->n_utility; i++) {
        const UtilityRow *u = &r->utility[i];
        if (strcmp(u->condition, cond) == 0 && !u->is_baseline &&
            isfinite(u->utility)) {
            *est = u->utility;
            *lo = u->ci_low;
            *hi = u->ci_high;
            return 1;
        }
    }
    return 0;
}

static const TableColumn VS_COLS[] = {
    {"metric", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"level", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_methods", NULL, "methods", TABLE_INT, "", 0, 0, 0},
    {"kendall_tau", NULL, "Kendall τ_b", TABLE_REAL, "", 3, TABLE_SIGNED, 0},
    {"tau_ci", NULL, "τ 95 % CI", TABLE_INTERVAL, "", 3, TABLE_SIGNED, 0},
    {"spearman_rho", NULL, "Spearman ρ", TABLE_REAL, "", 3, TABLE_SIGNED, 0},
    {"rho_ci", NULL, "ρ 95 % CI", TABLE_INTERVAL, "", 3, TABLE_SIGNED, 0},
    {"top_agreement", NULL, "same best (%)", TABLE_PERCENT, "proportion", 1, 0,
     0},
    {"odds_ratio_per_sd", NULL, "OR per SD", TABLE_REAL, "", 3, 0, 0},
    {"ci", NULL, "OR 95 % CI", TABLE_INTERVAL, "", 3, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 4, 0, 0},
    {"human", NULL, "human measure", TABLE_TEXT, "", 0, 0, 0},
};

static const TableColumn PT_COLS[] = {
    {"metric", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"value", NULL, "metric value", TABLE_REAL, "", 3, 0, 0},
    {"human_effect", NULL, "human effect", TABLE_REAL, "", 3, TABLE_SIGNED, 0},
    {"effect_ci", NULL, "effect 95 % CI", TABLE_INTERVAL, "", 3, TABLE_SIGNED,
     0},
    {"human", NULL, "human measure", TABLE_TEXT, "", 0, 0, 0},
};

/* The scale of the human effect, in words. */
static const char *effect_words(int test)
{
    switch (test) {
    case SIM_PRIMARY_GLMM:
        return "the log odds ratio of the mixed model's contrast against the "
               "baseline";
    case SIM_PRIMARY_UTILITY_BOOTSTRAP:
        return "Utility (the method's accuracy over the baseline's)";
    case SIM_PRIMARY_CHANGE_BOOTSTRAP:
        return "Change minus the baseline's Change (points)";
    case SIM_PRIMARY_PAIRED_T:
        return "the paired difference from the baseline (points)";
    default:
        return "the accuracy difference from the baseline (points)";
    }
}

/* Fills mc for metric k: the method-level scores and the item values of
** the data's items. */
static int metric_cols(const SimMetrics *m, int k, const Dataset *ds,
                       const Screen *sc, const MhData *d, MetricCols *mc)
{
    int C = d->C;
    mc->method = sim_malloc(((size_t)C + 1) * sizeof(double));
    mc->item = sim_malloc(((size_t)C * (size_t)d->n_item + 1) * sizeof(double));
    if (!mc->method || !mc->item) {
        return -1;
    }
    for (int c = 0; c < C; c++) {
        const char *name = dataset_str(ds, sc->conds[c]);
        mc->method[c] = sim_metrics_value(m, k, name, NULL);
        for (int j = 0; j < d->n_item; j++) {
            mc->item[(size_t)c * (size_t)d->n_item + (size_t)j] =
                sim_metrics_value(m, k, name, d->items[j]);
        }
    }
    return 0;
}

/* The methods with a human effect and a value of the metric. */
static int method_set(const MhData *d, const MetricCols *mc, const double *eff,
                      int *idx)
{
    int m = 0;
    for (int c = 0; c < d->C; c++) {
        if (c != d->base && isfinite(eff[c]) &&
            isfinite(metric_value(d, mc, c, NULL))) {
            idx[m++] = c;
        }
    }
    return m;
}

/* The 2.5 and 97.5 % percentiles of the finite x[0..n) (reordered). */
static void percentile_ci(double *x, int n, double *lo, double *hi)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(x[i])) {
            x[k++] = x[i];
        }
    }
    if (k < 2) {
        *lo = *hi = NAN;
        return;
    }
    stats_sort(x, (size_t)k);
    *lo = stats_quantile7(x, (size_t)k, 0.025);
    *hi = stats_quantile7(x, (size_t)k, 0.975);
}

typedef struct MhRun {
    const MhData *d;
    int B;
    uint64_t seed;
    double *eff_rep; /* [B x C] */
    double *u, *v, *sum;
} MhRun;

/* The two tables every pass adds rows to, and the fewest methods a metric
** was compared on. */
typedef struct MhTables {
    Table *t, *pt;
    int min_methods;
} MhTables;

/* The rows of one human effect (d->kind: the primary test's scale, or
** Utility) in the tables of tb. */
static int compute_all(const Dataset *ds, const AnalyzeOptions *o,
                       const Screen *sc, Report *r, const MhData *d, MhRun *run,
                       MhTables *tb, SimError *err)
{
    const SimMetrics *m = o->metrics;
    int utility = d->kind == EFFECT_UTILITY;
    const char *human = utility ? "utility" : "primary";
    Table *t = tb->t, *pt = tb->pt;
    int C = d->C, B = run->B;
    double *eff = sim_malloc(((size_t)C + 1) * sizeof *eff);
    double *lo = sim_malloc(((size_t)C + 1) * sizeof *lo);
    double *hi = sim_malloc(((size_t)C + 1) * sizeof *hi);
    double *tmp = sim_malloc(((size_t)B + 1) * sizeof *tmp);
    double *stat = sim_malloc((3 * (size_t)B + 1) * sizeof *stat);
    double *mv = sim_malloc(((size_t)C + 1) * sizeof *mv);
    int *idx = sim_malloc(((size_t)C + 1) * sizeof *idx);
    double *work = sim_malloc((4 * (size_t)C + 1) * sizeof *work);
    int rc = SIM_OK;
    if (!eff || !lo || !hi || !tmp || !stat || !mv || !idx || !work) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the human effects: the primary test's, else the replicates' rule on
    ** the full sample */
    mh_effects(d, NULL, NULL, run->sum, eff);
    const char *base =
        d->base >= 0 ? dataset_str(ds, sc->conds[d->base]) : NULL;
    for (int c = 0; c < C; c++) {
        double e, l, h;
        for (int b = 0; b < B; b++) {
            tmp[b] = run->eff_rep[(size_t)b * (size_t)C + (size_t)c];
        }
        percentile_ci(tmp, B, &lo[c], &hi[c]);
        const char *cond = dataset_str(ds, sc->conds[c]);
        if (c != d->base &&
            (utility ? utility_effect(r, cond, &e, &l, &h)
                     : primary_effect(r, cond, base, &e, &l, &h))) {
            eff[c] = e;
            if (isfinite(l) && isfinite(h)) {
                lo[c] = l;
                hi[c] = h;
            }
        }
    }
    for (int k = 0; k < m->n_metrics; k++) {
        MetricCols mc = {NULL, NULL};
        if (metric_cols(m, k, ds, sc, d, &mc) != 0) {
            sim_free(mc.method);
            sim_free(mc.item);
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            goto done;
        }
        int hib = m->metrics[k].higher_is_better;
        int nm = method_set(d, &mc, eff, idx);
        for (int c = 0; c < C; c++) {
            mv[c] = metric_value(d, &mc, c, NULL);
        }
        double point[3];
        correlate(mv, eff, idx, nm, hib, work, point);
        for (int b = 0; b < B; b++) {
            mh_draw(d, run->seed, b, run->u, run->v);
            for (int c = 0; c < C; c++) {
                mv[c] = metric_value(d, &mc, c, run->v);
            }
            correlate(mv, run->eff_rep + (size_t)b * (size_t)C, idx, nm, hib,
                      work, stat + 3 * (size_t)b);
        }
        double agree = 0, valid = 0, tlo, thi, rlo, rhi;
        for (int b = 0; b < B; b++) {
            tmp[b] = stat[3 * b];
            if (isfinite(stat[3 * b + 2])) {
                agree += stat[3 * b + 2];
                valid += 1;
            }
        }
        percentile_ci(tmp, B, &tlo, &thi);
        for (int b = 0; b < B; b++) {
            tmp[b] = stat[3 * b + 1];
        }
        percentile_ci(tmp, B, &rlo, &rhi);
        table_add_row(t);
        table_put_text(t, m->metrics[k].name);
        table_put_text(t, "method");
        table_skip(t);
        table_put_num(t, nm);
        table_put_num(t, point[0]);
        table_put_interval(t, tlo, thi);
        table_put_num(t, point[1]);
        table_put_interval(t, rlo, rhi);
        table_put_num(t, valid > 0 ? agree / valid : (double)NAN);
        table_skip(t);
        table_skip(t);
        table_skip(t);
        table_put_text(t, human);
        long n_item_values = 0;
        for (size_t i = 0; i < m->n_values; i++) {
            n_item_values += m->values[i].metric == k && m->values[i].item;
        }
        if (n_item_values > 0 && !o->no_glmm && !utility) {
            rc = metrics_item_rows(ds, sc, m, k, t, err);
            if (rc != SIM_OK) {
                sim_free(mc.method);
                sim_free(mc.item);
                goto done;
            }
        }
        for (int c = 0; c < C; c++) {
            mv[c] = metric_value(d, &mc, c, NULL);
        }
        for (int i = 0; i < nm; i++) {
            table_add_row(pt);
            table_put_text(pt, m->metrics[k].name);
            table_put_text(pt, dataset_str(ds, sc->conds[idx[i]]));
            table_put_num(pt, mv[idx[i]]);
            table_put_num(pt, eff[idx[i]]);
            table_put_interval(pt, lo[idx[i]], hi[idx[i]]);
            table_put_text(pt, human);
        }
        tb->min_methods = nm < tb->min_methods ? nm : tb->min_methods;
        sim_free(mc.method);
        sim_free(mc.item);
    }
done:
    sim_free(eff);
    sim_free(lo);
    sim_free(hi);
    sim_free(tmp);
    sim_free(stat);
    sim_free(mv);
    sim_free(idx);
    sim_free(work);
    return rc;
}

/* The titles and notes of the two tables, after every pass. */
static int tables_notes(const Report *r, const MhTables *tb, int B,
                        int with_utility)
{
    Table *t = tb->t, *pt = tb->pt;
    char uw[400] = "";
    if (with_utility) {
        snprintf(uw, sizeof uw,
                 " Rows with human measure \"utility\" correlate with Utility "
                 "instead (each method's test accuracy over the baseline's "
                 "across the %d sessions, rule %s; the Utility table's "
                 "estimate, re-estimated on every replicate from the pooled "
                 "session accuracies).",
                 r->n_sessions, report_utility_rule_name(r->opt.utility_rule));
    }
    int min_methods = tb->min_methods;
    int bad =
        table_set_title(t, 2, "Automated metrics against people") ||
        table_set_note(
            t,
            "Per metric (level \"method\"), Kendall's τ_b and Spearman's ρ "
            "between the methods' metric values (a method-level score, or "
            "the mean over the items) and their human effect (\"primary\": "
            "%s). The interval is the crossed participant × item "
            "bootstrap's (%d replicates): the human effects are "
            "re-estimated on every replicate from the resampled rows' "
            "pooled counts%s, item-level metrics averaged over the "
            "resampled items.%s \"same best\" is the share of replicates in "
            "which the metric's best method (by its higher_is_better) is "
            "the one people simulated best. A metric with lower values "
            "better agrees with people at a negative τ. Rows of level "
            "\"item\" put an item-level metric into the mixed model as a "
            "covariate, correct ~ condition + condition:metric_z + (1 | "
            "participant) + (1 | item) (the metric standardised over the "
            "data's method × item values; in a pre/post design it acts on "
            "Post rows): a method's odds ratio per SD above 1 says that its "
            "items with a higher metric were simulated better, with the "
            "Wald 95 %% interval and p.",
            effect_words(r->primary.test), B,
            r->primary.test == SIM_PRIMARY_GLMM
                ? " (the empirical log odds ratio, not a refit of the mixed "
                  "model)"
                : "",
            uw);
    if (!bad && min_methods < 5) {
        bad = table_set_after(
            t,
            "With %d methods the intervals are wide: a rank correlation of "
            "%d values takes few distinct values (τ_b moves in steps of "
            "2/%d without ties) and one swapped pair changes it a lot; a "
            "study that means to rank methods by a metric needs 5 or more.",
            min_methods, min_methods,
            min_methods > 1 ? min_methods * (min_methods - 1) / 2 : 1);
    }
    return bad ||
           table_set_title(pt, 3,
                           "Metric values and human effects per "
                           "method") ||
           table_set_note(pt,
                          "What the correlations above are computed from: "
                          "each method's metric value and human effect "
                          "(\"primary\": %s%s) with its 95 %% interval.",
                          effect_words(r->primary.test),
                          with_utility ? "; \"utility\": the Utility table's "
                                         "Utility"
                                       : "");
}

/* One pass: the replicates of human effect kind, then its rows. */
static int run_pass(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, int kind, MhTables *tb,
                    SimError *err)
{
    MhData d;
    MhRun run;
    memset(&run, 0, sizeof run);
    int rc = mh_build(ds, sc, r, kind, &d) == 0
                 ? SIM_OK
                 : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    run.d = &d;
    run.B = o->replicates > 0 ? o->replicates : 0;
    run.seed = o->seed;
    size_t C = (size_t)d.C;
    if (rc == SIM_OK) {
        run.eff_rep = sim_malloc(((size_t)run.B * C + 1) * sizeof(double));
        run.u = sim_malloc(((size_t)d.n_part + 1) * sizeof(double));
        run.v = sim_malloc(((size_t)d.n_item + 1) * sizeof(double));
        run.sum = sim_malloc(mh_sum_size(&d) * sizeof(double));
        if (!run.eff_rep || !run.u || !run.v || !run.sum) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    for (int b = 0; rc == SIM_OK && b < run.B; b++) {
        mh_draw(&d, run.seed, b, run.u, run.v);
        mh_effects(&d, run.u, run.v, run.sum, run.eff_rep + (size_t)b * C);
    }
    if (rc == SIM_OK) {
        rc = compute_all(ds, o, sc, r, &d, &run, tb, err);
    }
    sim_free(run.eff_rep);
    sim_free(run.u);
    sim_free(run.v);
    sim_free(run.sum);
    mh_free(&d);
    return rc;
}

int compute_metrics(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err)
{
    AnalyzeOptions stored;
    if (!o->metrics && ds->metrics) { /* stored with the study definitions */
        stored = *o;
        stored.metrics = ds->metrics;
        o = &stored;
    }
    if (!o->metrics || o->metrics->n_metrics == 0) {
        return SIM_OK;
    }
    MhTables tb = {report_add_table(r, "metrics_vs_human", TABLE_ALL, VS_COLS,
                                    (int)(sizeof VS_COLS / sizeof *VS_COLS)),
                   report_add_table(r, "metrics_methods", TABLE_ALL, PT_COLS,
                                    (int)(sizeof PT_COLS / sizeof *PT_COLS)),
                   sc->n_conds};
    if (!tb.t || !tb.pt) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (sc->base < 0) {
        if (table_set_title(tb.t, 2, "Automated metrics against people") ||
            table_set_note(tb.t, "%s",
                           "No baseline is known: the human effect of a "
                           "method is its contrast against the baseline "
                           "(--baseline NAME).")) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        return SIM_OK;
    }
    int rc = run_pass(ds, o, sc, r, effect_kind(r->primary.test), &tb, err);
    /* Utility beside the primary test where the design has sessions (and
    ** the primary test is not Utility already) */
    int with_utility = r->n_sessions >= 2 && r->n_utility > 0 &&
                       r->primary.test != SIM_PRIMARY_UTILITY_BOOTSTRAP;
    if (rc == SIM_OK && with_utility) {
        rc = run_pass(ds, o, sc, r, EFFECT_UTILITY, &tb, err);
    }
    if (rc == SIM_OK &&
        tables_notes(r, &tb, o->replicates > 0 ? o->replicates : 0,
                     with_utility)) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return rc;
}

typedef struct LoadCtx {
    const char *path;
    SimBuf all;
    char first[400];
    int n;
} LoadCtx;

static void load_problem(void *vctx, long line, const char *column,
                         const char *msg)
{
    LoadCtx *x = vctx;
    char where[300];
    if (line > 0 && column) {
        snprintf(where, sizeof where, "%s:%ld: column '%s'", x->path, line,
                 column);
    } else if (line > 0) {
        snprintf(where, sizeof where, "%s:%ld", x->path, line);
    } else {
        snprintf(where, sizeof where, "%s", x->path);
    }
    sim_buf_printf(&x->all, "simlab-analyze: %s: %s\n", where, msg);
    if (x->n++ == 0) {
        snprintf(x->first, sizeof x->first, "%s: %s", where, msg);
    }
}

/* The distinct strings of the data's conditions (which 0) or items (1). */
static const char **data_names(const Dataset *ds, int which, size_t *n)
{
    unsigned max = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        unsigned s = which ? ds->rows[i].item : (unsigned)ds->rows[i].condition;
        max = s > max ? s : max;
    }
    unsigned char *seen = sim_calloc((size_t)max + 1, 1);
    const char **names = sim_malloc((ds->n_rows + 1) * sizeof *names);
    *n = 0;
    if (!seen || !names) {
        sim_free(seen);
        sim_free(names);
        return NULL;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        unsigned s = which ? ds->rows[i].item : (unsigned)ds->rows[i].condition;
        if (!seen[s]) {
            seen[s] = 1;
            names[(*n)++] = dataset_str(ds, (int)s);
        }
    }
    sim_free(seen);
    return names;
}

int metrics_load(const char *path, const Dataset *ds, const AnalyzeOptions *o,
                 SimMetrics **out, SimError *err)
{
    *out = NULL;
    LoadCtx x;
    memset(&x, 0, sizeof x);
    x.path = path;
    sim_buf_init(&x.all);
    SimCsvOptions co = {o->csv_delimiter, &o->csv_encoding, NULL, NULL};
    SimMetrics *m = NULL;
    int k = sim_metrics_read_file(path, &co, &m, load_problem, &x, err);
    if (k < 0) {
        sim_buf_free(&x.all);
        return -k;
    }
    size_t nc = 0, ni = 0;
    const char **conds = data_names(ds, 0, &nc);
    const char **items = data_names(ds, 1, &ni);
    int rc = SIM_OK;
    if (!conds || !items) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    } else if (k == 0) {
        sim_metrics_check_names(m, conds, nc, items, ni, load_problem, &x);
    }
    sim_free(conds);
    sim_free(items);
    if (rc == SIM_OK && x.n > 0) {
        fputs(sim_buf_cstr(&x.all), stderr);
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "%s%s; nothing analysed from the metrics file", x.first,
                      x.n > 1 ? " (and more problems, listed above)" : "");
    }
    sim_buf_free(&x.all);
    if (rc != SIM_OK) {
        sim_metrics_free(m);
        return rc;
    }
    *out = m;
    return SIM_OK;
}
