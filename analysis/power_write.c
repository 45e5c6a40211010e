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

/* The hypothesis in words (unicode: for power.md). */
static const char *test_text(const PowerResult *r, int unicode)
{
    if (r->method == POWER_METHOD_ANOVA && !r->within) {
        return "participant accuracy differs between the conditions "
               "(one-way ANOVA)";
    }
    if (r->method == POWER_METHOD_ANOVA) {
        return unicode ? "participant accuracy differs between the "
                         "conditions (within-subject: each participant in "
                         "every condition)"
                       : "participant accuracy differs between the "
                         "conditions (within-subject)";
    }
    if (r->method == POWER_METHOD_GLMM) {
        if (r->test == POWER_TEST_CHANGE && r->vs_baseline) {
            return unicode ? "log odds ratio of learning (Post against Pre) "
                             "in the condition against the reference's ≠ 0 "
                             "(the mixed model's phasepost:condition term)"
                           : "log odds ratio of learning (Post against Pre) "
                             "in the condition against the reference's != "
                             "0 (the mixed model's phasepost:condition "
                             "term)";
        }
        if (r->test == POWER_TEST_CHANGE) {
            return unicode ? "log-odds of Post − Pre ≠ 0 per condition (the "
                             "mixed model's phase effect in that condition: "
                             "phasepost + phasepost:condition)"
                           : "log-odds of Post - Pre != 0 per condition (the "
                             "mixed model's phase effect in that condition)";
        }
        return unicode ? "log-odds of the condition − the baseline's ≠ 0 "
                         "(the mixed model's condition term)"
                       : "log-odds of the condition - the baseline's != 0 "
                         "(the mixed model's condition term)";
    }
    switch (r->test) {
    case POWER_TEST_UTILITY:
        return unicode ? "Utility ≠ 1 per condition (Utility = the mean over "
                         "sessions of accuracy / the baseline's accuracy, "
                         "simlab-analyze's default rule)"
                       : "Utility != 1 per condition (mean rule)";
    case POWER_TEST_DIFFERENCE:
        return unicode ? "accuracy − the baseline's accuracy ≠ 0 per condition"
                       : "accuracy - baseline accuracy != 0 per condition";
    case POWER_TEST_PAIRED:
        return unicode ? "participant accuracy − the baseline's ≠ 0 per "
                         "condition (within-subject: each participant in "
                         "every condition)"
                       : "participant accuracy - baseline's != 0 per "
                         "condition (within-subject)";
    default:
        return unicode ? "Change = Post − Pre (RE) ≠ 0 per condition"
                       : "Change = Post - Pre (RE) != 0 per condition";
    }
}

/* How the tested conditions of a study are decided together, in words. */
static const char *correction_text(const PowerResult *r)
{
    if (r->n_conds < 2 || r->opt.correction == POWER_CORRECTION_OWN) {
        return "";
    }
    return r->opt.correction == POWER_CORRECTION_HOLM
               ? "; Holm's adjustment over the tested conditions"
               : "; no correction over the tested conditions";
}

/* How each simulated study is tested, in words (unicode: for power.md). */
static void method_text(const PowerResult *r, int unicode, char *out,
                        size_t size)
{
    const char *a = unicode ? "α =" : "alpha", *le = unicode ? "≤" : "<=";
    if (r->method == POWER_METHOD_ANOVA && !r->within) {
        snprintf(out, size,
                 "F test of simlab-analyze's one-way ANOVA of participant "
                 "accuracy over the %d conditions, %s %g",
                 r->n_design_conds, a, r->opt.alpha);
    } else if (r->method == POWER_METHOD_GLMM) {
        snprintf(out, size,
                 "Wald z test of simlab-analyze's mixed-effects logistic "
                 "model (Laplace fit; the random-effect structures tried "
                 "richest first, as in the report), two-sided %s %g",
                 a, r->opt.alpha);
    } else if (r->method == POWER_METHOD_ANOVA) {
        snprintf(out, size,
                 "F test of simlab-analyze's repeated-measures ANOVA over the "
                 "%d conditions, the participants with every condition, "
                 "uncorrected p (the p --calibrate measures), %s %g",
                 r->n_design_conds, a, r->opt.alpha);
    } else if (r->method == POWER_METHOD_T) {
        snprintf(out, size,
                 "paired t test of participant accuracy, as simlab-analyze's "
                 "paired comparisons, p Holm-adjusted over the %d "
                 "conditions compared, two-sided %s %g",
                 r->n_conds, a, r->opt.alpha);
    } else {
        int users = r->method == POWER_METHOD_USERS || r->opt.items == 2;
        snprintf(out, size,
                 "%s, percentile-inversion p, B %s %d, two-sided %s %g, "
                 "curtailed sequential replicates",
                 users ? "bootstrap of users only (items fixed)"
                       : "crossed bootstrap",
                 le, r->opt.replicates, a, r->opt.alpha);
    }
    size_t n = strlen(out);
    snprintf(out + n, size > n ? size - n : 0, "%s%s", correction_text(r),
             r->primary ? " (the study's primary test)" : "");
}

/* The design's statistic (the truth's), whatever the test. */
static const char *design_stat(const PowerResult *r)
{
    return r->test == POWER_TEST_UTILITY      ? "Utility"
           : r->test == POWER_TEST_DIFFERENCE ? "difference"
           : r->test == POWER_TEST_PAIRED     ? "paired difference"
                                              : "Change";
}

/* The statistic's short name. */
static const char *stat_name(const PowerResult *r)
{
    return r->method == POWER_METHOD_ANOVA    ? "partial η²"
           : r->method == POWER_METHOD_GLMM   ? "log-odds"
           : r->test == POWER_TEST_UTILITY    ? "Utility"
           : r->test == POWER_TEST_DIFFERENCE ? "difference"
           : r->test == POWER_TEST_PAIRED     ? "paired difference"
                                              : "Change";
}

static json_t *truth_json(const PowerResult *r, const PowerCondition *pc)
{
    json_t *o;
    if (r->test == POWER_TEST_CHANGE) {
        o = json_pack("{s:s,s:o,s:o,s:o,s:b}", "condition", pc->id, "true_pre",
                      num_or_null(pc->true_pre), "true_post",
                      num_or_null(pc->true_post), "true_change",
                      num_or_null(pc->true_change), "null_effect",
                      pc->null_effect);
    } else {
        o = json_pack(
            "{s:s,s:o,s:o,s:o,s:b}", "condition", pc->id, "true_baseline",
            num_or_null(pc->true_pre), "true_accuracy",
            num_or_null(pc->true_post),
            r->test == POWER_TEST_UTILITY ? "true_utility" : "true_difference",
            num_or_null(pc->true_change), "null_effect", pc->null_effect);
    }
    if (r->method == POWER_METHOD_GLMM) {
        json_object_set_new(o, "true_log_odds", num_or_null(pc->true_logit));
    }
    return o;
}

/* An enrolment figure: an integer, or null when not measured or when
** every simulated participant was excluded. */
static json_t *enrol_json(double v)
{
    return isfinite(v) ? json_integer((json_int_t)v) : json_null();
}

static json_t *screening_json(const PowerResult *r)
{
    json_t *a = json_array();
    for (int i = 0; i < r->n_screening; i++) {
        const PowerScreening *e = &r->screening[i];
        json_array_append_new(
            a, json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:I,s:I,s:o}", "condition",
                         e->condition, "enrolled", e->enrolled, "analysed",
                         e->analysed, "exclusion_rate", e->exclusion_rate,
                         "ci_low", e->rate_low, "ci_high", e->rate_high,
                         "deadline_trials", (json_int_t)e->deadline_trials,
                         "timeouts", (json_int_t)e->timeouts, "timeout_rate",
                         num_or_null(e->timeout_rate)));
    }
    return a;
}

/* The timeouts of every condition together: *n deadline trials, rate. */
static double timeout_total(const PowerResult *r, long *n, long *late)
{
    *n = *late = 0;
    for (int i = 0; i < r->n_screening; i++) {
        *n += r->screening[i].deadline_trials;
        *late += r->screening[i].timeouts;
    }
    return *n > 0 ? (double)*late / (double)*n : NAN;
}

/* The null studies of each size in which any tested condition was
** rejected: the family's false-positive rate. */
static json_t *family_json(const PowerResult *r)
{
    json_t *a = json_array();
    for (int si = 0; si < r->opt.n_sizes; si++) {
        const PowerFamily *f = &r->family[si];
        if (f->null_studies == 0) {
            continue;
        }
        json_array_append_new(
            a,
            json_pack("{s:i,s:i,s:i,s:f,s:f,s:f}", "participants",
                      r->opt.sizes[si], "null_studies", f->null_studies,
                      "null_rejected", f->null_any, "false_positive_rate",
                      f->fwer, "ci_low", f->fwer_low, "ci_high", f->fwer_high));
    }
    return a;
}

/* The tested condition with an effect and the smallest sequential power:
** the one the study's size answers to (-1: none has an effect). */
int power_seq_weakest(const PowerResult *r)
{
    int w = -1;
    for (int c = 0; r->seq && c < r->n_conds; c++) {
        if (!r->conds[c].null_effect &&
            (w < 0 || r->seq->power[c] < r->seq->power[w])) {
            w = c;
        }
    }
    return w;
}

static json_t *seq_json(const PowerResult *r)
{
    const PowerSeq *q = r->seq;
    json_t *looks = json_array(), *crit = json_array(), *spent = json_array(),
           *s1 = json_array(), *s0 = json_array(), *conds = json_array();
    for (int j = 0; j < q->n_looks; j++) {
        json_array_append_new(looks, json_integer(q->looks[j]));
        json_array_append_new(crit, json_real(q->crit[j]));
        json_array_append_new(spent, json_real(q->spent[j]));
        json_array_append_new(s1, json_real(q->stop_h1[j]));
        json_array_append_new(s0, json_real(q->stop_h0[j]));
    }
    for (int c = 0; c < r->n_conds; c++) {
        json_array_append_new(
            conds, json_pack("{s:s,s:f,s:o,s:b}", "condition", r->conds[c].id,
                             "power", q->power[c], "fixed_n_same_power",
                             num_or_null(q->fixed_n[c]), "null_effect",
                             r->conds[c].null_effect));
    }
    int w = power_seq_weakest(r);
    return json_pack(
        "{s:o,s:s,s:o,s:o,s:o,s:i,s:i,s:i,s:f,s:f,s:f,s:o,s:f,s:f,s:o,s:o,"
        "s:o}",
        "looks", looks, "spending", sim_spending_name(q->spending),
        "critical_z", crit, "alpha_spent", spent, "power",
        w >= 0 ? json_real(q->power[w]) : json_null(), "studies", q->studies,
        "null_studies", q->null_studies, "null_rejected", q->null_any,
        "false_positive_rate", q->fpr, "false_positive_ci_low", q->fpr_low,
        "false_positive_ci_high", q->fpr_high, "fixed_n_same_power",
        w >= 0 ? num_or_null(q->fixed_n[w]) : json_null(), "expected_n_h0",
        q->expected_n_h0, "expected_n_h1", q->expected_n_h1, "stop_h1", s1,
        "stop_h0", s0, "conditions", conds);
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
        if (w->null_studies > 0) {
            json_object_set_new(o, "null_studies",
                                json_integer(w->null_studies));
            json_object_set_new(o, "null_rejections",
                                json_integer(w->null_rejections));
            json_object_set_new(o, "false_positive_rate", json_real(w->fpr));
            json_object_set_new(o, "false_positive_ci_low",
                                json_real(w->fpr_low));
            json_object_set_new(o, "false_positive_ci_high",
                                json_real(w->fpr_high));
        } else if (pc->null_effect) {
            json_object_set_new(o, "false_positive_rate", json_real(w->power));
        }
        if (isfinite(w->coverage)) {
            json_object_set_new(o, "coverage", json_real(w->coverage));
        }
        if (r->n_screening > 0) {
            json_object_set_new(o, "enrol", enrol_json(w->enrol));
            json_object_set_new(o, "enrol_low", enrol_json(w->enrol_low));
            json_object_set_new(o, "enrol_high", enrol_json(w->enrol_high));
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
    char test[512], how[300];
    method_text(r, 0, how, sizeof how);
    snprintf(test, sizeof test, "%s, %s", test_text(r, 0), how);
    json_t *method = json_pack(
        "{s:s,s:s,s:f,s:s,s:i,s:I,s:s,s:s,s:f,s:f}", "test", test, "interval",
        "Wilson 95 %", "alpha", r->opt.alpha, "items",
        r->opt.items == 0   ? "global"
        : r->opt.items == 1 ? "per-condition"
                            : "none",
        "replicates", r->opt.replicates, "seed", (json_int_t)r->opt.seed,
        "sequential",
        "curtailed (Besag-Clifford): replicates stop once the "
        "decision at alpha is certain",
        "participants",
        r->within ? "in every condition (within-subject)" : "per condition",
        "participant_sd", r->participant_sd, "item_sd", r->item_sd);
    json_object_set_new(method, "statistic", json_string(stat_name(r)));
    json_object_set_new(method, "test_name",
                        json_string(power_method_name(r->method)));
    int ns = r->n_rows > 0 ? r->rows[0].null_studies : 0;
    json_object_set_new(method, "null_studies", json_integer(ns));
    if (ns > 0) {
        json_object_set_new(
            method, "null",
            json_string(r->test == POWER_TEST_CHANGE
                            ? "every condition at the reference's Pre "
                              "accuracy in both phases (Post = Pre)"
                            : "every condition at the baseline's accuracy"));
    }
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
    if (r->n_screening > 0) {
        long n, late;
        double rate = timeout_total(r, &n, &late);
        json_object_set_new(root, "screening", screening_json(r));
        json_object_set_new(root, "timeout_rate", num_or_null(rate));
    }
    json_object_set_new(method, "primary",
                        r->primary ? json_string(r->primary) : json_null());
    json_object_set_new(
        method, "correction",
        r->opt.correction == POWER_CORRECTION_HOLM   ? json_string("holm")
        : r->opt.correction == POWER_CORRECTION_NONE ? json_string("none")
                                                     : json_null());
    json_object_set_new(root, "truth", conds);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "recommendation", rec);
    json_object_set_new(root, "family", family_json(r));
    if (r->seq) {
        json_object_set_new(root, "sequential", seq_json(r));
    }
    int bad =
        json_dump_file(root, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: cannot write", path) : SIM_OK;
}

/* ------------------------------------------------------------------ md */

/* "23 (21 to 26)", "all excluded" or "-". */
static void enrol_text(const PowerRow *w, char *out, size_t size)
{
    if (isnan(w->enrol)) {
        snprintf(out, size, "–");
    } else if (isinf(w->enrol)) {
        snprintf(out, size, "all excluded");
    } else if (isinf(w->enrol_high)) {
        snprintf(out, size, "%.0f (%.0f to ∞)", w->enrol, w->enrol_low);
    } else {
        snprintf(out, size, "%.0f (%.0f to %.0f)", w->enrol, w->enrol_low,
                 w->enrol_high);
    }
}

/* The screening table: exclusions and timeouts per condition. */
static void write_screening_md(FILE *f, const PowerResult *r)
{
    fprintf(f, "\nenrol = participants to enrol to end with N analysed: "
               "ceil(N / (1 − exclusion rate)), its range from the rate's "
               "Wilson 95 %% interval. The rate was measured by simulating "
               "participants through the real session (practice, quiz, "
               "catch trials, deadlines and the study's screening rules) with "
               "the simulation block's accuracies:\n\n"
               "| condition | simulated | analysed | excluded | 95 %% CI | "
               "answers with a deadline | timed out |\n"
               "| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < r->n_screening; i++) {
        const PowerScreening *e = &r->screening[i];
        char late[64];
        if (e->deadline_trials > 0) {
            snprintf(late, sizeof late, "%ld (%.1f %%)", e->timeouts,
                     100 * e->timeout_rate);
        } else {
            snprintf(late, sizeof late, "–");
        }
        fprintf(f, "| %s | %d | %d | %.1f %% | %.1f–%.1f %% | %ld | %s |\n",
                e->condition, e->enrolled, e->analysed, 100 * e->exclusion_rate,
                100 * e->rate_low, 100 * e->rate_high, e->deadline_trials,
                late);
    }
    long n, late;
    double rate = timeout_total(r, &n, &late);
    if (n > 0) {
        fprintf(f,
                "\nTimeout rate: %ld of %ld simulated answers with a "
                "deadline came too late (%.1f %%); the power simulation "
                "loses those answers too (a timed-out trial is "
                "unanswered).\n",
                late, n, 100 * rate);
    }
}

/* The truth per tested condition (and the pilot's estimates). */
static void write_truth_md(FILE *f, const PowerResult *r)
{
    int pilot = r->n_pilots > 0;
    int change = r->test == POWER_TEST_CHANGE;
    int glmm = r->method == POWER_METHOD_GLMM;
    fprintf(f,
            "| condition | %s | %s | true %s |%s%s\n"
            "| --- | --- | --- | --- |%s%s\n",
            change ? "true Pre" : "true baseline accuracy",
            change ? "true Post" : "true accuracy", design_stat(r),
            glmm ? " true log-odds contrast |" : "",
            pilot ? " pilot participants | pilot Pre (responses) | pilot "
                    "Post (responses) |"
                  : "",
            glmm ? " --- |" : "", pilot ? " --- | --- | --- |" : "");
    for (int c = 0; c < r->n_conds; c++) {
        const PowerCondition *pc = &r->conds[c];
        fprintf(f,
                r->test == POWER_TEST_UTILITY
                    ? "| %s | %.3f | %.3f | %.3f%s |"
                    : "| %s | %.3f | %.3f | %+.3f%s |",
                pc->id, pc->true_pre, pc->true_post, pc->true_change,
                pc->null_effect ? " (no effect)" : "");
        if (glmm) {
            fprintf(f, " %+.3f |", pc->true_logit);
        }
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
}

/* The family's false-positive rate per size (several tested conditions). */
static void write_family_md(FILE *f, const PowerResult *r)
{
    if (r->n_conds < 2 || r->family[0].null_studies == 0) {
        return;
    }
    fprintf(f,
            "\nAny false positive (the null studies in which any of the "
            "%d tested conditions was rejected%s):",
            r->n_conds, correction_text(r));
    for (int si = 0; si < r->opt.n_sizes; si++) {
        const PowerFamily *g = &r->family[si];
        fprintf(f, "%s N = %d: %.3f (%.3f–%.3f)", si ? ";" : "",
                r->opt.sizes[si], g->fwer, g->fwer_low, g->fwer_high);
    }
    fprintf(f, ".\n");
}

/* The whole sequential procedure. */
static void write_seq_md(FILE *f, const PowerResult *r)
{
    const PowerSeq *q = r->seq;
    fprintf(f,
            "\n## Sequential looks\n\nThe study analyses at %d looks "
            "(%s alpha spending, two-sided α = %g); every simulated study "
            "was simulated at the last look and analysed at each, and stops "
            "for rejection at the first look where every tested condition "
            "is rejected (with Holm's adjustment each at the boundary of α "
            "/ the conditions left).\n\n"
            "| look | N | critical abs(z) | α spent | stopped (effect) | "
            "stopped (null) |\n| --- | --- | --- | --- | --- | --- |\n",
            q->n_looks, sim_spending_name(q->spending), r->opt.alpha);
    for (int j = 0; j < q->n_looks; j++) {
        fprintf(f, "| %d | %d | %.3f | %.5f | %.3f | %.3f |\n", j + 1,
                q->looks[j], q->crit[j], q->spent[j], q->stop_h1[j],
                q->stop_h0[j]);
    }
    fprintf(f,
            "\nFalse positives at any look: %.3f (%d of %d null studies; "
            "%.3f–%.3f). Expected N per condition: %.1f with the simulated "
            "effects, %.1f without.\n\n"
            "| condition | power (any look) | fixed design's N for the same "
            "power |\n| --- | --- | --- |\n",
            q->fpr, q->null_any, q->null_studies, q->fpr_low, q->fpr_high,
            q->expected_n_h1, q->expected_n_h0);
    for (int c = 0; c < r->n_conds; c++) {
        char n[48];
        if (isfinite(q->fixed_n[c])) {
            snprintf(n, sizeof n, "%.1f", q->fixed_n[c]);
        } else {
            snprintf(n, sizeof n, "> %d", q->looks[q->n_looks - 1]);
        }
        fprintf(f, "| %s | %.3f%s | %s |\n", r->conds[c].id, q->power[c],
                r->conds[c].null_effect ? " (no effect)" : "", n);
    }
}

static int write_md(const PowerResult *r, const char *path, SimError *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    fprintf(f, "# Power: %s\n\n", r->study_id);
    char how[300];
    method_text(r, 1, how, sizeof how);
    fprintf(f,
            "Test: %s (%s). %d simulated studies per size; %s; participant "
            "SD %g, item SD %g (logit). Power with its Wilson 95 %% "
            "interval.\n\n",
            test_text(r, 1), how, r->opt.studies,
            r->within ? "N participants, each in every condition (the "
                        "study's order of conditions)"
                      : "N participants per condition",
            r->participant_sd, r->item_sd);
    if (r->baseline && r->test != POWER_TEST_CHANGE) {
        fprintf(f, "Baseline: %s, from %s (%s).\n\n", r->baseline,
                r->baseline_from,
                r->within ? "every participant does every condition"
                          : "every condition gets N participants, the "
                            "baseline too");
    } else if (r->baseline) {
        fprintf(f,
                "Reference condition: %s, from %s (the Change test tests "
                "every condition on its own).\n\n",
                r->baseline, r->baseline_from);
    }
    if (r->method == POWER_METHOD_ANOVA) {
        fprintf(f,
                "One F test of all %d conditions per study (the row \"all "
                "conditions\")%s.\n",
                r->n_design_conds,
                r->conds[0].null_effect
                    ? "; every condition has the baseline's accuracy: its "
                      "power is its false-positive rate"
                    : "");
    } else {
        write_truth_md(f, r);
    }
    int enrol = r->n_screening > 0;
    int fpr = r->n_rows > 0 && r->rows[0].null_studies > 0, cover = 0;
    for (int i = 0; i < r->n_rows; i++) {
        cover |= isfinite(r->rows[i].coverage);
    }
    fprintf(f,
            "\n| condition | N | power | 95 %% CI | mean %s | "
            "mean replicates |%s%s%s\n"
            "| --- | --- | --- | --- | --- | --- |%s%s%s\n",
            stat_name(r), fpr ? " false positives (95 % CI) |" : "",
            cover ? " CI coverage |" : "", enrol ? " enrol |" : "",
            fpr ? " --- |" : "", cover ? " --- |" : "", enrol ? " --- |" : "");
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        const PowerCondition *pc = &r->conds[i % r->n_conds];
        fprintf(f,
                r->test == POWER_TEST_UTILITY && r->method != POWER_METHOD_GLMM
                    ? "| %s | %d | %.3f%s | %.3f–%.3f | %.3f | %.0f |"
                    : "| %s | %d | %.3f%s | %.3f–%.3f | %+.3f | %.0f |",
                w->condition, w->participants, w->power,
                pc->null_effect ? " (false positives)" : "", w->ci_low,
                w->ci_high, w->mean_estimate, w->mean_replicates);
        if (fpr) {
            fprintf(f, " %.3f (%.3f–%.3f) |", w->fpr, w->fpr_low, w->fpr_high);
        }
        if (cover) {
            fprintf(f, isfinite(w->coverage) ? " %.3f |" : " – |", w->coverage);
        }
        if (enrol) {
            char e[96];
            enrol_text(w, e, sizeof e);
            fprintf(f, " %s |", e);
        }
        fputc('\n', f);
    }
    if (fpr) {
        fprintf(f,
                "\nfalse positives = the share of %d null studies per size "
                "(the study simulated with %s) in which the test rejected: "
                "its size on this design, which should be about α = %g.\n",
                r->rows[0].null_studies,
                r->test == POWER_TEST_CHANGE
                    ? "every condition at the reference's Pre accuracy in "
                      "both phases, Post = Pre"
                    : "every condition at the baseline's accuracy",
                r->opt.alpha);
    }
    if (cover) {
        fprintf(f,
                "\nCI coverage = the share of the studies whose 95 %% "
                "interval held the true value (%s).\n",
                r->method == POWER_METHOD_GLMM
                    ? "Wald interval; the true log-odds contrast of the "
                      "simulation's cells"
                : r->method == POWER_METHOD_T
                    ? "t interval of the mean paired difference"
                    : "percentile interval of all B replicates");
    }
    if (enrol) {
        write_screening_md(f, r);
    }
    write_family_md(f, r);
    if (r->seq) {
        write_seq_md(f, r);
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
                 r->method == POWER_METHOD_GLMM     ? "the mixed model"
                 : r->method == POWER_METHOD_ANOVA  ? "the ANOVA's F test"
                 : r->test == POWER_TEST_PAIRED     ? "the paired difference"
                 : r->test == POWER_TEST_UTILITY    ? "Utility"
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
