/*
** The primary test of the report: which test (--primary, the study's
** "analysis", or the default: the mixed model), its contrasts read off the
** report's own tables (the mixed model's terms, the paired t tests, the
** ANOVA, the Change or Utility table), Holm's adjustment, and the decision
** at alpha -- or, at a sequential look (--look K), against the Lan-DeMets
** boundary of that look. The tables and the report's order are in
** primary_tables.c; the plan's comparison in plan.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compute.h"
#include "analysis/plan_check.h"
#include "analysis/primary.h"
#include "analysis/sequential.h"
#include "common/sim_alloc.h"

/* The study's "analysis" block, or the defaults; a block that does not
** parse (a sidecar edited by hand) is an error naming it. */
static int read_spec(const Dataset *ds, SimAnalysisSpec *s, SimError *err)
{
    sim_analysis_default(s);
    if (!ds->analysis) {
        return SIM_OK;
    }
    json_t *a = json_loads(ds->analysis, 0, NULL);
    char first[600] = "";
    int n = sim_analysis_parse(a, s, primary_first_problem, first);
    json_decref(a);
    if (n > 0) {
        return sim_fail(err, SIM_ERR_INVALID, "%s: study definition: %s",
                        ds->analysis_from ? ds->analysis_from : "?", first);
    }
    return SIM_OK;
}

void primary_first_problem(void *ctx, const char *where, const char *msg)
{
    char *first = ctx;
    if (!first[0]) {
        snprintf(first, 600, "analysis%s%s: %s", where[0] ? "." : "", where,
                 msg);
    }
}

/* Whether the data can have test t; why not into why. */
static int data_allow(const Report *r, const Screen *sc, int t, char *why,
                      size_t size)
{
    switch (t) {
    case SIM_PRIMARY_PAIRED_T:
        if (!sc->within) {
            snprintf(why, size,
                     "paired_t needs a within-subject design, and every "
                     "participant of these data is in one condition");
            return 0;
        }
        break;
    case SIM_PRIMARY_CHANGE_BOOTSTRAP:
        if (r->n_change == 0) {
            snprintf(why, size,
                     "change_bootstrap needs Pre and Post answers, and these "
                     "data have none");
            return 0;
        }
        break;
    case SIM_PRIMARY_UTILITY_BOOTSTRAP:
        if (r->n_sessions < 1 || r->sessions[r->n_sessions - 1] < 1) {
            snprintf(why, size,
                     "utility_bootstrap needs test answers in training "
                     "sessions, and these data have none");
            return 0;
        }
        break;
    case SIM_PRIMARY_GLMM_ERROR_DETECTION:
        if (!r->verify_glmm.fitted) {
            snprintf(why, size,
                     "glmm_error_detection needs answered verify trials of at "
                     "least two participants and two items whose model "
                     "correctness is known (model_correct, or label and "
                     "model_output), and the mixed model (no --no-glmm)");
            return 0;
        }
        break;
    case SIM_PRIMARY_ANOVA:
        if (!r->has_anova && !report_table(r, "anova")) {
            snprintf(why, size, "anova needs test or post answers");
            return 0;
        }
        break;
    default:
        break;
    }
    return 1;
}

static PrimaryRow *add_row(PrimaryResult *p, const char *cond,
                           const char *contrast)
{
    PrimaryRow *rows =
        sim_realloc(p->rows, ((size_t)p->n_rows + 1) * sizeof *p->rows);
    if (!rows) {
        return NULL;
    }
    p->rows = rows;
    PrimaryRow *x = &rows[p->n_rows++];
    memset(x, 0, sizeof *x);
    snprintf(x->condition, sizeof x->condition, "%s", cond);
    snprintf(x->contrast, sizeof x->contrast, "%s", contrast);
    x->estimate = x->ci_low = x->ci_high = x->z = x->p = NAN;
    x->p_adjusted = x->critical_z = NAN;
    return x;
}

/* The signed z of a two-sided p and the sign of the estimate. */
static double z_of(double p, double sign)
{
    if (!isfinite(p) || p <= 0) {
        return NAN;
    }
    double z = gsl_cdf_ugaussian_Qinv(fmin(1.0, p) / 2);
    return sign < 0 ? -z : z;
}

/* The mixed model: per condition but the reference, its term (pre/post:
** the phase x condition interaction, the difference of learning from the
** reference's), as an odds ratio. */
static int glmm_rows(const Report *r, PrimaryResult *p)
{
    const GlmmResult *g = &r->glmm;
    snprintf(p->formula, sizeof p->formula, "%s", g->formula);
    p->scale = "odds ratio";
    int prepost = 0;
    for (int j = 0; j < g->n_terms; j++) {
        prepost |= strcmp(g->terms[j].name, "phasepost") == 0;
    }
    int conds = 0;
    for (int c = 0; c < r->n_counts; c++) {
        const char *id = r->counts[c].condition;
        if (strcmp(id, g->baseline) == 0 || r->counts[c].analysed == 0) {
            continue;
        }
        conds++;
        char term[300];
        snprintf(term, sizeof term, "%scondition%s",
                 prepost ? "phasepost:" : "", id);
        PrimaryRow *x = add_row(p, id, term);
        if (!x) {
            return -1;
        }
        for (int j = 0; j < g->n_terms; j++) {
            const GlmmTermRow *t = &g->terms[j];
            if (strcmp(t->name, x->contrast) == 0) {
                x->estimate = exp(t->estimate);
                x->ci_low = exp(t->ci_low);
                x->ci_high = exp(t->ci_high);
                x->z = t->z;
                x->p = t->p;
            }
        }
    }
    if (conds == 0 && prepost) { /* one condition: its learning */
        PrimaryRow *x = add_row(p, g->baseline, "phasepost");
        for (int j = 0; x && j < g->n_terms; j++) {
            const GlmmTermRow *t = &g->terms[j];
            if (strcmp(t->name, "phasepost") == 0) {
                x->estimate = exp(t->estimate);
                x->ci_low = exp(t->ci_low);
                x->ci_high = exp(t->ci_high);
                x->z = t->z;
                x->p = t->p;
            }
        }
        return x ? 0 : -1;
    }
    return 0;
}

/* The mixed model of error detection: per condition but the reference,
** its term conditionX -- the odds ratio of catching the model's errors
** (a right answer on its wrong predictions) against the reference. */
static int verify_glmm_rows(const Report *r, PrimaryResult *p)
{
    const VerifyGlmm *g = &r->verify_glmm;
    snprintf(p->formula, sizeof p->formula, "%s", g->formula);
    p->scale = "odds ratio";
    for (int j = 0; j < g->n_terms; j++) {
        const GlmmTermRow *t = &g->terms[j];
        if (strncmp(t->name, "condition", 9) != 0 || strchr(t->name, ':')) {
            continue;
        }
        PrimaryRow *x = add_row(p, t->name + 9, t->name);
        if (!x) {
            return -1;
        }
        x->estimate = exp(t->estimate);
        x->ci_low = exp(t->ci_low);
        x->ci_high = exp(t->ci_high);
        x->z = t->z;
        x->p = t->p;
    }
    return 0;
}

/* A number of row i of table t by column name; NaN when absent. */
static double cell_num(const Table *t, int i, const char *col, int high)
{
    int j = table_column(t, col);
    if (j < 0) {
        return NAN;
    }
    const TableCell *c = table_cell(t, i, j);
    return high ? c->y : c->x;
}

static const char *cell_text(const Table *t, int i, const char *col)
{
    int j = table_column(t, col);
    return j >= 0 ? table_cell(t, i, j)->text : NULL;
}

/* The paired t tests: each condition minus the baseline, in points. */
static int paired_rows(const Report *r, PrimaryResult *p)
{
    const Table *t = report_table(r, "paired");
    p->scale = "points";
    for (int i = 0; t && i < t->n_rows; i++) {
        const char *a = cell_text(t, i, "a"), *b = cell_text(t, i, "b");
        char contrast[300];
        snprintf(contrast, sizeof contrast, "%s - %s", b ? b : "?",
                 a ? a : "?");
        PrimaryRow *x = add_row(p, b ? b : "?", contrast);
        if (!x) {
            return -1;
        }
        x->estimate = 100 * cell_num(t, i, "diff", 0);
        x->ci_low = 100 * cell_num(t, i, "ci", 0);
        x->ci_high = 100 * cell_num(t, i, "ci", 1);
        x->p = cell_num(t, i, "p", 0);
        x->z = z_of(x->p, x->estimate);
    }
    return 0;
}

/* The ANOVA's F test over all conditions: one row, eta squared (partial in
** a within design, with the Greenhouse-Geisser p). */
static int anova_rows(const Report *r, const Screen *sc, PrimaryResult *p)
{
    const Table *t = report_table(r, "anova");
    p->scale = sc->within ? "partial eta squared" : "eta squared";
    snprintf(p->formula, sizeof p->formula, "%s",
             sc->within ? "accuracy ~ condition + Error(participant / "
                          "condition)"
                        : "accuracy ~ condition");
    char contrast[160];
    double df1 = t && t->n_rows ? cell_num(t, 0, "df_between", 0) : NAN;
    double df2 = t && t->n_rows ? cell_num(t, 0, "df_within", 0) : NAN;
    snprintf(contrast, sizeof contrast, "F(%g, %g)%s", df1, df2,
             sc->within ? ", Greenhouse-Geisser p" : "");
    PrimaryRow *x = add_row(p, "all conditions", contrast);
    if (!x) {
        return -1;
    }
    if (t && t->n_rows > 0) {
        x->estimate =
            cell_num(t, 0, sc->within ? "partial_eta_sq" : "eta_sq", 0);
        x->p = cell_num(t, 0, sc->within ? "p_gg" : "p", 0);
        x->z = z_of(x->p, 1);
    }
    return 0;
}

/* Change = Post - Pre (subset "all") of every condition, in points. */
static int change_rows(const Report *r, PrimaryResult *p)
{
    p->scale = "points";
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        if (strcmp(c->subset, "all") != 0) {
            continue;
        }
        PrimaryRow *x = add_row(p, c->condition, "post - pre");
        if (!x) {
            return -1;
        }
        x->estimate = 100 * c->change;
        x->ci_low = 100 * c->ci_low;
        x->ci_high = 100 * c->ci_high;
        x->p = c->p;
        x->z = z_of(c->p, c->change);
    }
    return 0;
}

/* Utility of every condition but the baseline (H0: Utility = 1). */
static int utility_rows(const Report *r, PrimaryResult *p)
{
    p->scale = "ratio";
    for (int i = 0; i < r->n_utility; i++) {
        const UtilityRow *u = &r->utility[i];
        if (u->is_baseline) {
            continue;
        }
        char contrast[300];
        snprintf(contrast, sizeof contrast, "Utility vs %s",
                 r->baseline ? r->baseline : "?");
        PrimaryRow *x = add_row(p, u->condition, contrast);
        if (!x) {
            return -1;
        }
        x->estimate = u->utility;
        x->ci_low = u->ci_low;
        x->ci_high = u->ci_high;
        x->p = u->p;
        x->z = z_of(u->p, u->utility - 1);
    }
    return 0;
}

/* Holm's adjustment (or none) and the fixed design's decisions. */
static void decide_fixed(PrimaryResult *p)
{
    double *q = sim_malloc(((size_t)p->n_rows + 1) * 2 * sizeof(double));
    if (!q) {
        return;
    }
    for (int i = 0; i < p->n_rows; i++) {
        q[i] = p->rows[i].p;
    }
    if (p->holm) {
        stats_p_holm(q, p->n_rows, q + p->n_rows);
    } else {
        memcpy(q + p->n_rows, q, (size_t)p->n_rows * sizeof(double));
    }
    for (int i = 0; i < p->n_rows; i++) {
        PrimaryRow *x = &p->rows[i];
        x->p_adjusted = q[p->n_rows + i];
        if (isfinite(x->p_adjusted)) {
            int rej = x->p_adjusted <= p->alpha;
            x->decision = rej ? "reject" : "retain";
            p->any_reject |= rej;
        }
    }
    sim_free(q);
}

/* At look K of the study's looks: Holm's step-down on the boundaries
** (each contrast held to the boundary at alpha / (contrasts left), Ye et
** al. 2013), or every contrast at alpha without correction. */
static int decide_look(PrimaryResult *p, const SimAnalysisSpec *s,
                       SimError *err)
{
    int K = p->look, m = 0;
    int order[256];
    for (int i = 0; i < p->n_rows && m < 256; i++) {
        if (isfinite(p->rows[i].z)) {
            order[m++] = i;
        }
    }
    for (int a = 1; a < m; a++) { /* by |z|, largest first */
        for (int b = a;
             b > 0 && fabs(p->rows[order[b]].z) > fabs(p->rows[order[b - 1]].z);
             b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    }
    SeqDesign d;
    int rc = seq_design(s->looks, s->n_looks, p->alpha, s->spending, &d, err);
    if (rc != SIM_OK) {
        return rc;
    }
    p->critical_z = d.crit[K - 1];
    p->alpha_spent = d.spent[K - 1];
    int final = K == s->n_looks, stopped = 0, rejected = 0;
    for (int j = 0; j < m; j++) {
        PrimaryRow *x = &p->rows[order[j]];
        if (!stopped) {
            double level = p->holm ? p->alpha / (m - j) : p->alpha;
            if (level != d.alpha) {
                rc = seq_design(s->looks, s->n_looks, level, s->spending, &d,
                                err);
                if (rc != SIM_OK) {
                    return rc;
                }
            }
        }
        x->critical_z = d.crit[K - 1];
        if (!stopped && fabs(x->z) >= x->critical_z) {
            x->decision = "stop: reject";
            rejected++;
            p->any_reject = 1;
            continue;
        }
        stopped = p->holm; /* the step-down ends at the first retained */
        x->decision = final ? "final: retain" : "continue";
    }
    p->decision = m > 0 && rejected == m ? "stop: reject"
                  : final                ? "final: retain"
                                         : "continue";
    return SIM_OK;
}

/* --look K: checked against the study's looks. */
static int check_look(const AnalyzeOptions *o, const SimAnalysisSpec *s,
                      SimError *err)
{
    if (o->look <= 0) {
        return SIM_OK;
    }
    if (s->n_looks == 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--look %d: the study plans no sequential looks "
                        "(study.json \"analysis\": {\"sequential\": "
                        "{\"looks\": [...]}})",
                        o->look);
    }
    if (o->look > s->n_looks) {
        char list[200] = "";
        size_t at = 0;
        for (int i = 0; i < s->n_looks && at < sizeof list; i++) {
            int n = snprintf(list + at, sizeof list - at, "%s%d", i ? ", " : "",
                             s->looks[i]);
            at += n > 0 ? (size_t)n : 0;
        }
        return sim_fail(err, SIM_ERR_USAGE,
                        "--look %d: the study plans %d looks (%s participants "
                        "per condition)",
                        o->look, s->n_looks, list);
    }
    return SIM_OK;
}

/* The size the plan measured for this test (its sequential procedure's
** at a look); --calibrate's, measured after, takes its place. */
static void size_from_plan(const Plan *plan, Report *r)
{
    const PrimaryResult *p = &r->primary;
    if (strcmp(plan->test, sim_primary_name(p->test)) != 0) {
        return;
    }
    if (plan->n_looks > 0 && p->look > 0 && isfinite(plan->seq_fpr)) {
        primary_set_size(r, plan->null_studies, plan->seq_null_rejected,
                         "plan");
    } else if (plan->null_studies > 0) {
        primary_set_size(r, plan->null_studies, plan->null_rejected, "plan");
    }
}

int compute_primary(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err)
{
    PrimaryResult *p = &r->primary;
    p->test = -1;
    SimAnalysisSpec s;
    int rc = read_spec(ds, &s, err);
    if (rc == SIM_OK) {
        rc = check_look(o, &s, err);
    }
    if (rc != SIM_OK) {
        return rc;
    }
    p->test = o->primary >= 0 ? o->primary : (int)s.primary;
    p->source = o->primary >= 0 ? "command line"
                : s.primary_set ? "study"
                                : "default for this design";
    p->alpha = s.alpha;
    p->holm = s.holm;
    p->n_looks = s.n_looks;
    memcpy(p->looks, s.looks, sizeof p->looks);
    p->spending = s.n_looks > 0 ? sim_spending_name(s.spending) : NULL;
    p->look = o->look;
    p->critical_z = p->alpha_spent = NAN;
    char why[400];
    if (!data_allow(r, sc, p->test, why, sizeof why)) {
        if (o->null_study) {
            return SIM_OK;
        }
        return sim_fail(err, o->primary >= 0 ? SIM_ERR_USAGE : SIM_ERR_INVALID,
                        "%s%s: %s",
                        o->primary >= 0 ? "--primary "
                                        : "the study's primary "
                                          "test ",
                        sim_primary_name(p->test), why);
    }
    switch (p->test) {
    case SIM_PRIMARY_GLMM:
        rc = r->glmm.fitted ? glmm_rows(r, p) : 0;
        break;
    case SIM_PRIMARY_PAIRED_T:
        rc = paired_rows(r, p);
        break;
    case SIM_PRIMARY_ANOVA:
        rc = anova_rows(r, sc, p);
        break;
    case SIM_PRIMARY_CHANGE_BOOTSTRAP:
        rc = change_rows(r, p);
        break;
    case SIM_PRIMARY_GLMM_ERROR_DETECTION:
        rc = verify_glmm_rows(r, p);
        break;
    default:
        rc = utility_rows(r, p);
        break;
    }
    if (rc != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    decide_fixed(p);
    if (p->look > 0) {
        p->any_reject = 0;
        rc = decide_look(p, &s, err);
    }
    if (rc == SIM_OK && !o->null_study) {
        rc = primary_note(ds, sc, &s, r, err);
    }
    if (rc == SIM_OK && o->plan && !o->null_study) {
        rc = plan_check(o->plan, ds, r, err);
        size_from_plan(o->plan, r);
    }
    return rc;
}

int primary_null_outcome(const Report *nr, int *rejected)
{
    const PrimaryResult *p = &nr->primary;
    int any = 0;
    for (int i = 0; i < p->n_rows; i++) {
        any |= p->rows[i].decision != NULL;
    }
    *rejected = p->any_reject;
    return p->test >= 0 && any;
}

void primary_set_size(Report *r, int studies, int rejected, const char *source)
{
    PrimaryResult *p = &r->primary;
    p->size_source = source;
    p->size_studies = studies;
    p->size_rejected = rejected;
    p->size_rate = studies > 0 ? (double)rejected / studies : NAN;
    p->size_low = p->size_high = NAN;
    if (studies > 0) { /* Clopper-Pearson 95 % */
        p->size_low = rejected == 0 ? 0
                                    : gsl_cdf_beta_Pinv(0.025, rejected,
                                                        studies - rejected + 1);
        p->size_high =
            rejected == studies
                ? 1
                : gsl_cdf_beta_Pinv(0.975, rejected + 1, studies - rejected);
    }
}
