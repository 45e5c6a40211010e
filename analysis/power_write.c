/*
** simlab power's writers (power.h): power.json (jansson), power.md and
** the power curves with simlab-analyze's plot code (plot.h: PNG, SVG,
** PDF). No statistics here.
*/
#include "analysis/plot.h"
#include "analysis/power.h"
#include "analysis/report.h"
#include "common/sim_alloc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- json */

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* "< 10", "> 80" or "34.5 (28.1 to 41.0)". */
void power_n_text(const PowerResult *r, const PowerN *n, char *out, size_t size)
{
    int lo = r->opt.sizes[0], hi = r->opt.sizes[r->opt.n_sizes - 1];
    if (n->above) {
        snprintf(out, size, "> %d", hi);
    } else if (n->below) {
        snprintf(out, size, "<= %d", lo);
    } else {
        char a[32], b[32];
        if (n->low_below) {
            snprintf(a, sizeof a, "<= %d", lo);
        } else {
            snprintf(a, sizeof a, "%.1f", n->low);
        }
        if (isfinite(n->high)) {
            snprintf(b, sizeof b, "%.1f", n->high);
        } else {
            snprintf(b, sizeof b, "> %d", hi);
        }
        snprintf(out, size, "%.1f (%s to %s)", n->n, a, b);
    }
}

static json_t *n_json(const PowerResult *r, const PowerN *n)
{
    char text[96];
    power_n_text(r, n, text, sizeof text);
    return json_pack("{s:o,s:o,s:o,s:s}", "n", num_or_null(n->n), "low",
                     num_or_null(n->low), "high", num_or_null(n->high), "text",
                     text);
}

/* The test in words (unicode: for power.md). */
static const char *test_text(const PowerResult *r, int unicode)
{
    switch (r->test) {
    case POWER_TEST_UTILITY:
        return unicode ? "Utility ≠ 1 per condition (Utility = the mean over "
                         "sessions of accuracy / the baseline's accuracy, "
                         "simlab-analyze's default rule)"
                       : "Utility != 1 per condition (mean rule)";
    case POWER_TEST_DIFFERENCE:
        return unicode ? "accuracy − the baseline's accuracy ≠ 0 per condition"
                       : "accuracy - baseline accuracy != 0 per condition";
    default:
        return unicode ? "Change = Post − Pre (RE) ≠ 0 per condition"
                       : "Change = Post - Pre (RE) != 0 per condition";
    }
}

/* The statistic's short name. */
static const char *stat_name(const PowerResult *r)
{
    return r->test == POWER_TEST_UTILITY      ? "Utility"
           : r->test == POWER_TEST_DIFFERENCE ? "difference"
                                              : "Change";
}

static json_t *truth_json(const PowerResult *r, const PowerCondition *pc)
{
    if (r->test == POWER_TEST_CHANGE) {
        return json_pack("{s:s,s:f,s:f,s:f,s:b}", "condition", pc->id,
                         "true_pre", pc->true_pre, "true_post", pc->true_post,
                         "true_change", pc->true_change, "null_effect",
                         pc->null_effect);
    }
    return json_pack(
        "{s:s,s:f,s:f,s:f,s:b}", "condition", pc->id, "true_baseline",
        pc->true_pre, "true_accuracy", pc->true_post,
        r->test == POWER_TEST_UTILITY ? "true_utility" : "true_difference",
        pc->true_change, "null_effect", pc->null_effect);
}

static int write_json(const PowerResult *r, const char *path, SimError *err)
{
    json_t *root = json_object(), *rows = json_array(), *rec = json_object(),
           *conds = json_array();
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        const PowerCondition *pc = &r->conds[i % r->n_conds];
        json_t *o = json_pack(
            "{s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:o,s:f,s:b}", "condition",
            w->condition, "participants", w->participants, "studies",
            w->studies, "rejections", w->rejections, "power", w->power,
            "power_ci_low", w->ci_low, "power_ci_high", w->ci_high,
            "mean_estimate", num_or_null(w->mean_estimate), "mean_replicates",
            w->mean_replicates, "null_effect", pc->null_effect);
        if (pc->null_effect) {
            json_object_set_new(o, "false_positive_rate", json_real(w->power));
        }
        json_array_append_new(rows, o);
    }
    for (int c = 0; c < r->n_conds; c++) {
        const PowerCondition *pc = &r->conds[c];
        json_object_set_new(rec, pc->id,
                            json_pack("{s:o,s:o}", "n80", n_json(r, &pc->n80),
                                      "n90", n_json(r, &pc->n90)));
        json_array_append_new(conds, truth_json(r, pc));
    }
    json_object_set_new(root, "study", json_string(r->study_id));
    char test[256];
    snprintf(test, sizeof test, "%s, crossed bootstrap, percentile-inversion p",
             test_text(r, 0));
    json_t *method =
        json_pack("{s:s,s:s,s:f,s:s,s:i,s:I,s:s,s:s,s:f,s:f}", "test", test,
                  "interval", "Wilson 95 %", "alpha", r->opt.alpha, "items",
                  r->opt.items == 0   ? "global"
                  : r->opt.items == 1 ? "per-condition"
                                      : "none",
                  "replicates", r->opt.replicates, "seed",
                  (json_int_t)r->opt.seed, "sequential",
                  "curtailed (Besag-Clifford): replicates stop once the "
                  "decision at alpha is certain",
                  "participants", "per condition", "participant_sd",
                  r->participant_sd, "item_sd", r->item_sd);
    json_object_set_new(method, "statistic", json_string(stat_name(r)));
    if (r->baseline) {
        json_object_set_new(method, "baseline", json_string(r->baseline));
    }
    if (r->baseline_from) {
        json_object_set_new(method, "baseline_from",
                            json_string(r->baseline_from));
    }
    if (r->test == POWER_TEST_UTILITY) {
        json_object_set_new(method, "sessions", json_integer(r->n_sessions));
    }
    json_object_set_new(root, "method", method);
    json_object_set_new(root, "truth", conds);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "recommendation", rec);
    int bad =
        json_dump_file(root, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: cannot write", path) : SIM_OK;
}

/* ------------------------------------------------------------------ md */

static int write_md(const PowerResult *r, const char *path, SimError *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    fprintf(f, "# Power: %s\n\n", r->study_id);
    fprintf(f,
            "Test: %s (crossed "
            "bootstrap, B ≤ %d, two-sided α = %g, curtailed sequential "
            "replicates). %d simulated studies per size; participants per "
            "condition; participant SD %g, item SD %g (logit). Power with "
            "its Wilson 95 %% interval.\n\n",
            test_text(r, 1), r->opt.replicates, r->opt.alpha, r->opt.studies,
            r->participant_sd, r->item_sd);
    if (r->baseline && r->test != POWER_TEST_CHANGE) {
        fprintf(f,
                "Baseline: %s, from %s (every condition gets N participants, "
                "the baseline too).\n\n",
                r->baseline, r->baseline_from);
    } else if (r->baseline) {
        fprintf(f,
                "Reference condition: %s, from %s (the Change test tests "
                "every condition on its own).\n\n",
                r->baseline, r->baseline_from);
    }
    int pilot = r->n_pilots > 0;
    int change = r->test == POWER_TEST_CHANGE;
    fprintf(f,
            "| condition | %s | %s | true %s |%s\n"
            "| --- | --- | --- | --- |%s\n",
            change ? "true Pre" : "true baseline accuracy",
            change ? "true Post" : "true accuracy", stat_name(r),
            pilot ? " pilot participants | pilot Pre (responses) | pilot "
                    "Post (responses) |"
                  : "",
            pilot ? " --- | --- | --- |" : "");
    for (int c = 0; c < r->n_conds; c++) {
        const PowerCondition *pc = &r->conds[c];
        fprintf(f,
                r->test == POWER_TEST_UTILITY
                    ? "| %s | %.3f | %.3f | %.3f%s |"
                    : "| %s | %.3f | %.3f | %+.3f%s |",
                pc->id, pc->true_pre, pc->true_post, pc->true_change,
                pc->null_effect ? " (no effect)" : "");
        if (pilot) {
            fprintf(f, " %d | %.3f (%d) | %.3f (%d) |", pc->pilot_participants,
                    pc->pilot_pre, pc->pilot_pre_n, pc->pilot_post,
                    pc->pilot_post_n);
        }
        fputc('\n', f);
    }
    if (pilot) {
        fprintf(f, "\nThe truth comes from the pilot: each condition's Pre "
                   "and Post accuracy, mapped to the cell probability whose "
                   "population accuracy under the random effects above is "
                   "that value (the study's simulation block where the pilot "
                   "has no responses).\n");
    }
    fprintf(f,
            "\n| condition | N | power | 95 %% CI | mean %s | "
            "mean replicates |\n"
            "| --- | --- | --- | --- | --- | --- |\n",
            stat_name(r));
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        const PowerCondition *pc = &r->conds[i % r->n_conds];
        fprintf(f,
                r->test == POWER_TEST_UTILITY
                    ? "| %s | %d | %.3f%s | %.3f–%.3f | %.3f | %.0f |\n"
                    : "| %s | %d | %.3f%s | %.3f–%.3f | %+.3f | %.0f |\n",
                w->condition, w->participants, w->power,
                pc->null_effect ? " (false positives)" : "", w->ci_low,
                w->ci_high, w->mean_estimate, w->mean_replicates);
    }
    fprintf(f, "\n| condition | N for 80 %% power | N for 90 %% power |\n"
               "| --- | --- | --- |\n");
    for (int c = 0; c < r->n_conds; c++) {
        char a[96], b[96];
        power_n_text(r, &r->conds[c].n80, a, sizeof a);
        power_n_text(r, &r->conds[c].n90, b, sizeof b);
        fprintf(f, "| %s | %s | %s |\n", r->conds[c].id,
                r->conds[c].null_effect ? "(no effect)" : a,
                r->conds[c].null_effect ? "(no effect)" : b);
    }
    fprintf(f, "\nN is interpolated linearly between the simulated sizes; "
               "its range comes from the curves of the intervals' bounds.\n");
    int bad = fclose(f) != 0;
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: cannot write", path) : SIM_OK;
}

/* ---------------------------------------------------------------- plot */

/* The power curves: one line per tested condition over the sizes, with
** the Wilson intervals, the 80 % line and alpha. */
static int write_plot(const PowerResult *r, const char *dir, SimError *err)
{
    int Z = r->opt.n_sizes, C = r->n_conds;
    size_t cells = (size_t)Z * (size_t)C + 1;
    double *y = sim_malloc(3 * cells * sizeof(double));
    char(*xl)[16] = sim_malloc(((size_t)Z + 1) * sizeof *xl);
    const char **xs = sim_malloc(((size_t)Z + 1) * sizeof *xs);
    const char **ls = sim_malloc(((size_t)C + 1) * sizeof *ls);
    int rc = SIM_OK;
    if (!y || !xl || !xs || !ls) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int s = 0; rc == SIM_OK && s < Z; s++) {
        snprintf(xl[s], sizeof xl[s], "%d", r->opt.sizes[s]);
        xs[s] = xl[s];
        for (int c = 0; c < C; c++) {
            const PowerRow *w = &r->rows[s * C + c];
            size_t at = (size_t)c * (size_t)Z + (size_t)s;
            y[at] = w->power;
            y[cells + at] = w->ci_low;
            y[2 * cells + at] = w->ci_high;
        }
    }
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        ls[c] = r->conds[c].id;
    }
    if (rc == SIM_OK) {
        double refs[2] = {0.8, r->opt.alpha};
        char title[160];
        snprintf(title, sizeof title, "Power of %s (95 %% Wilson intervals)",
                 r->test == POWER_TEST_UTILITY      ? "Utility"
                 : r->test == POWER_TEST_DIFFERENCE ? "the difference"
                                                    : "Change");
        PlotCurves p = {.title = title,
                        .x_title = "participants per condition",
                        .y_title = "power",
                        .n_x = Z,
                        .x_labels = xs,
                        .n_lines = C,
                        .legend = ls,
                        .y = y,
                        .lo = y + cells,
                        .hi = y + 2 * cells,
                        .y_fixed = 1,
                        .y_min = 0,
                        .y_max = 1,
                        .y_step = 0.2,
                        .y_decimals = 1,
                        .refs = refs,
                        .n_refs = 2};
        rc = plot_write_curves(dir, "power", PLOT_PNG | PLOT_SVG | PLOT_PDF, &p,
                               PLOT_WIDTH_PT, plot_curves_height(&p), err);
    }
    sim_free(y);
    sim_free(xl);
    sim_free(xs);
    sim_free(ls);
    return rc;
}

int power_write(const PowerResult *r, const char *dir, SimError *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/power.json", dir);
    int rc = write_json(r, path, err);
    if (rc == SIM_OK) {
        snprintf(path, sizeof path, "%s/power.md", dir);
        rc = write_md(r, path, err);
    }
    if (rc == SIM_OK) {
        rc = write_plot(r, dir, err);
    }
    return rc;
}
