/*
** The primary test in the report: its note, its tables (md "## Primary
** test", tex, primary.csv, report.json "primary" with rows, size, looks and
** the preregistration's comparison), put first; then the published tables
** (Hase & Bansal's Change, Colin et al.'s Utility) under a heading that
** says what they are, with their measured size when it is known.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/plan.h"
#include "analysis/primary.h"
#include "common/sim_alloc.h"

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* json "primary": one object. */
static const TableColumn PRIMARY_COLS[] = {
    {"test", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"title", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"source", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"alpha", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"correction", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"formula", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"scale", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"baseline", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"note", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"spending", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"look", NULL, NULL, TABLE_INT, "", 0, 0, 0},
    {"critical_z", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"alpha_spent", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"decision", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

/* md, csv primary.csv, json primary.rows */
static const TableColumn ROW_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"contrast", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, NULL, TABLE_REAL, "", 3, 0, 0},
    {"ci", NULL, "95 % CI", TABLE_INTERVAL, "", 3, 0, 0},
    {"z", NULL, NULL, TABLE_REAL, "", 2, TABLE_SIGNED, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"p_adjusted", NULL, "p (adjusted)", TABLE_PVALUE, "", 0, 0, 0},
    {"critical_z", NULL, "critical |z|", TABLE_REAL, "", 3, 0,
     TABLE_CSV | TABLE_JSON},
    {"decision", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

static const TableColumn TEX_COLS[] = {
    {"condition", NULL, "Condition", TABLE_TEXT, "", 0, 0, 0},
    {"contrast", NULL, "Contrast", TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, "Estimate", TABLE_REAL, "", 3, 0, 0},
    {"ci", NULL, "95\\% CI", TABLE_INTERVAL, "", 3, TABLE_TEX_LEFT, 0},
    {"p", NULL, "$p$", TABLE_PVALUE, "", 0, 0, 0},
    {"p_adjusted", NULL, "$p_{\\mathrm{adj}}$", TABLE_PVALUE, "", 0, 0, 0},
    {"decision", NULL, "Decision", TABLE_TEXT, "", 0, TABLE_TEX_LEFT, 0},
};

/* json primary.size: one object. */
static const TableColumn SIZE_COLS[] = {
    {"rate", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"ci", NULL, NULL, TABLE_INTERVAL, "", 0, 0, 0},
    {"n_null_studies", NULL, NULL, TABLE_INT, "null studies", 0, 0, 0},
    {"rejected", NULL, NULL, TABLE_INT, "null studies", 0, 0, 0},
    {"source", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

static const TableColumn INT_COLS[] = {
    {"value", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
};

static const TableColumn TEXT_COLS[] = {
    {"text", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

/* json primary.preregistration: one object. */
static const TableColumn PLAN_COLS[] = {
    {"file", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"sha256", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"date", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"matches", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
};

/* "alpha 0.05; Holm's adjustment over 3 contrasts" */
static void describe_correction(SimBuf *b, const PrimaryResult *p)
{
    sim_buf_printf(b, "alpha %g (two-sided)", p->alpha);
    if (p->n_rows > 1) {
        sim_buf_printf(b, "; %s over its %d contrasts",
                       p->holm ? "Holm's adjustment" : "no correction",
                       p->n_rows);
    }
}

/* What the rows of test t are. */
static const char *rows_meaning(int t, int prepost, int one)
{
    switch (t) {
    case SIM_PRIMARY_GLMM:
        return one ? "The row is the odds ratio of a right answer on Post "
                     "against Pre (phasepost)."
               : prepost
                   ? "Each row is a condition's phase x condition "
                     "interaction: the odds ratio by which the odds of a "
                     "right answer rose from Pre to Post more in that "
                     "condition than in the reference (1 = the same "
                     "learning)."
                   : "Each row is the odds ratio of a right answer in that "
                     "condition against the reference (1 = no difference).";
    case SIM_PRIMARY_GLMM_ERROR_DETECTION:
        return "Each row is the mixed model of error detection's term "
               "conditionX: the odds ratio of a right answer on the model's "
               "wrong predictions (catching its errors) in that condition "
               "against the reference (1 = no difference).";
    case SIM_PRIMARY_PAIRED_T:
        return "Each row is a paired t test of participant accuracy, the "
               "condition minus the reference, in percentage points.";
    case SIM_PRIMARY_ANOVA:
        return "One F test over all conditions; the estimate is eta "
               "squared.";
    case SIM_PRIMARY_CHANGE_BOOTSTRAP:
        return "Each row is a condition's Change = Post - Pre (RE) in "
               "percentage points, tested against 0 by the crossed "
               "bootstrap.";
    default:
        return "Each row is a condition's Utility against the reference, "
               "tested against 1 by the crossed bootstrap.";
    }
}

int primary_note(const Dataset *ds, const Screen *sc, const SimAnalysisSpec *s,
                 Report *r, SimError *err)
{
    PrimaryResult *p = &r->primary;
    SimBuf b;
    sim_buf_init(&b);
    int prepost = 0, missing = 0;
    for (int j = 0; j < r->glmm.n_terms; j++) {
        prepost |= strcmp(r->glmm.terms[j].name, "phasepost") == 0;
    }
    for (int i = 0; i < p->n_rows; i++) {
        missing += !p->rows[i].decision;
    }
    int one = p->n_rows == 1 && strcmp(p->rows[0].contrast, "phasepost") == 0;
    if (p->test == SIM_PRIMARY_GLMM && !r->glmm.fitted) {
        sim_buf_printf(&b,
                       "Not computed: %s. Another test: --primary NAME "
                       "(paired_t, anova, change_bootstrap, "
                       "utility_bootstrap).",
                       r->glmm.note ? r->glmm.note : "no mixed model");
    } else {
        sim_buf_puts(&b, rows_meaning(p->test, prepost, one));
    }
    if (p->test != SIM_PRIMARY_CHANGE_BOOTSTRAP &&
        p->test != SIM_PRIMARY_ANOVA) {
        const char *ref = p->test == SIM_PRIMARY_GLMM && r->glmm.fitted
                              ? r->glmm.baseline
                              : r->baseline;
        if (r->baseline) {
            sim_buf_printf(&b, " Reference: '%s'.", ref ? ref : "?");
        } else if (ref || sc->n_conds > 0) {
            sim_buf_printf(&b,
                           " Reference: '%s', the first condition of the "
                           "data, as the model took it: no baseline is "
                           "known (study.json \"baseline\", or "
                           "--baseline NAME).",
                           ref ? ref : dataset_str(ds, sc->conds[0]));
        }
    }
    if (missing > 0) {
        sim_buf_printf(&b,
                       " %d contrast%s could not be tested (no data for "
                       "that cell, or no p-value: see the table it comes "
                       "from).",
                       missing, missing == 1 ? "" : "s");
    }
    if (ds->analysis_conflict) {
        sim_buf_printf(&b, " Warning: %s.", ds->analysis_conflict);
    }
    if (s->n_looks > 0) {
        int lo = -1, hi = -1;
        for (int c = 0; c < r->n_counts; c++) {
            int n = r->counts[c].analysed;
            lo = lo < 0 || n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        if (p->look > 0) {
            int want = s->looks[p->look - 1];
            if (lo != want || hi != want) {
                char have[64];
                if (lo == hi) {
                    snprintf(have, sizeof have, "%d", lo);
                } else {
                    snprintf(have, sizeof have, "%d to %d", lo, hi);
                }
                sim_buf_printf(&b,
                               " Look %d plans %d analysed participants "
                               "per condition; the data have %s.",
                               p->look, want, have);
            }
        } else {
            int k = 0;
            while (k < s->n_looks && s->looks[k] < lo) {
                k++;
            }
            sim_buf_printf(&b,
                           " The study plans sequential looks; this report "
                           "is not one of them (give --look K: with %d to "
                           "%d analysed participants per condition the data "
                           "fit look %d), so its decisions are the fixed "
                           "design's at alpha, which is anti-conservative "
                           "when the data were looked at before.",
                           lo, hi, k < s->n_looks ? k + 1 : s->n_looks);
        }
    }
    p->note = b.oom ? NULL : sim_strdup(sim_buf_cstr(&b));
    sim_buf_free(&b);
    return p->note ? SIM_OK : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
}

/* The paragraph above the md table. */
static void md_intro(const Report *r, SimBuf *b)
{
    const PrimaryResult *p = &r->primary;
    sim_buf_printf(b, "%s: %s (%s), ", sim_primary_name(p->test),
                   sim_primary_title(p->test),
                   strcmp(p->source, "study") == 0 ? "the study's primary test"
                   : strcmp(p->source, "command line") == 0
                       ? "chosen with --primary"
                       : "the default: the study names none");
    describe_correction(b, p);
    sim_buf_puts(b, ".");
    if (p->formula[0]) {
        sim_buf_printf(b, " Model: `%s`.", p->formula);
    }
    if (p->note && p->note[0]) {
        sim_buf_printf(b, " %s", p->note);
    }
    if (p->look > 0) {
        sim_buf_printf(b, "\n\nSequential look %d of %d (", p->look,
                       p->n_looks);
        for (int i = 0; i < p->n_looks; i++) {
            sim_buf_printf(b, "%s%d", i ? ", " : "", p->looks[i]);
        }
        sim_buf_printf(b,
                       " analysed participants per condition; %s alpha "
                       "spending): a contrast stops the study for rejection "
                       "when |z| >= %.3f (alpha spent by this look: %.4g). "
                       "Decision: %s.",
                       p->spending, p->critical_z, p->alpha_spent, p->decision);
    }
    if (p->size_source && p->size_studies > 0) {
        sim_buf_printf(b,
                       "\n\nSize on this design: the test rejected %.1f %% "
                       "of %d null studies (95 %% CI %.1f-%.1f %%; %s).",
                       100 * p->size_rate, p->size_studies, 100 * p->size_low,
                       100 * p->size_high,
                       strcmp(p->size_source, "plan") != 0
                           ? "--calibrate, simulated from the fitted model"
                       : p->look > 0
                           ? "the whole sequential procedure, from the plan's "
                             "simulation"
                           : "from the plan's simulation");
    }
}

/* The paragraph after the md table: the plan's verdict. */
static void md_after(const Report *r, const Plan *plan, SimBuf *b)
{
    const PrimaryResult *p = &r->primary;
    if (!p->planned) {
        sim_buf_puts(b, "No preregistration was given (--plan "
                        "preregistration.json, written by simlab plan).");
        return;
    }
    if (p->matches) {
        sim_buf_printf(b,
                       "Confirmatory: the analysis is the one planned on %s "
                       "(%s).",
                       plan->date, r->opt.plan_file);
        return;
    }
    sim_buf_printf(b,
                   "Exploratory: the analysis departs from the plan of %s "
                   "(%s):",
                   plan->date, r->opt.plan_file);
    for (int i = 0; i < p->n_deviations; i++) {
        sim_buf_printf(b, "\n- %s", p->deviations[i]);
    }
}

static Table *add_object(Report *r, const char *key, const char *path,
                         const TableColumn *cols, int n)
{
    Table *t = report_add_table(r, key, TABLE_JSON, cols, n);
    if (t) {
        t->object = 1;
        table_set_json_path(t, path);
        table_add_row(t);
    }
    return t;
}

static int object_table(Report *r)
{
    const PrimaryResult *p = &r->primary;
    Table *t = add_object(r, "primary_test", "primary", PRIMARY_COLS,
                          N_COLS(PRIMARY_COLS));
    if (!t) {
        return -1;
    }
    table_set_note(t, "%s",
                   "The primary test: which, where it was chosen, alpha, "
                   "correction, the model; rows, size, looks and "
                   "preregistration below.");
    const char *ref = p->test == SIM_PRIMARY_GLMM && r->glmm.fitted
                          ? r->glmm.baseline
                          : r->baseline;
    table_put_text(t, sim_primary_name(p->test));
    table_put_text(t, sim_primary_title(p->test));
    table_put_text(t, p->source);
    table_put_num(t, p->alpha);
    table_put_text(t, p->holm ? "holm" : "none");
    table_put_text(t, p->formula[0] ? p->formula : NULL);
    table_put_text(t, p->scale);
    table_put_text(t, ref);
    table_put_text(t, p->note);
    table_put_text(t, p->spending);
    table_put_num(t, p->look > 0 ? (double)p->look : (double)NAN);
    table_put_num(t, p->critical_z);
    table_put_num(t, p->alpha_spent);
    table_put_text(t, p->decision);
    return 0;
}

static int rows_tables(Report *r)
{
    const PrimaryResult *p = &r->primary;
    const Plan *plan = r->opt.plan;
    Table *t = report_add_table(r, "primary", TABLE_MD | TABLE_CSV | TABLE_JSON,
                                ROW_COLS, N_COLS(ROW_COLS));
    Table *tex = report_add_table(r, "primary_tex", TABLE_TEX, TEX_COLS,
                                  N_COLS(TEX_COLS));
    if (!t || !tex) {
        return -1;
    }
    table_set_json_path(t, "primary.rows");
    table_set_title(t, 2, "Primary test");
    SimBuf b;
    sim_buf_init(&b);
    md_intro(r, &b);
    table_set_note(t, "%s", b.oom ? "" : sim_buf_cstr(&b));
    b.len = 0;
    md_after(r, plan, &b);
    table_set_after(t, "%s", b.oom ? "" : sim_buf_cstr(&b));
    b.len = 0;
    sim_buf_printf(&b, "Primary test: %s, ", sim_primary_title(p->test));
    describe_correction(&b, p);
    sim_buf_printf(&b, "; estimates as %s.", p->scale ? p->scale : "given");
    SimBuf cap;
    sim_buf_init(&cap);
    table_tex_escape(&cap, sim_buf_cstr(&b));
    table_set_caption(tex, cap.oom ? "" : sim_buf_cstr(&cap));
    int oom = b.oom || cap.oom;
    sim_buf_free(&b);
    sim_buf_free(&cap);
    for (int i = 0; i < p->n_rows; i++) {
        const PrimaryRow *x = &p->rows[i];
        table_add_row(t);
        table_put_text(t, x->condition);
        table_put_text(t, x->contrast);
        table_put_num(t, x->estimate);
        table_put_interval(t, x->ci_low, x->ci_high);
        table_put_num(t, x->z);
        table_put_num(t, x->p);
        table_put_num(t, x->p_adjusted);
        table_put_num(t, x->critical_z);
        table_put_text(t, x->decision);
        table_add_row(tex);
        table_put_text(tex, x->condition);
        table_put_text(tex, x->contrast);
        table_put_num(tex, x->estimate);
        table_put_interval(tex, x->ci_low, x->ci_high);
        table_put_num(tex, x->p);
        table_put_num(tex, x->p_adjusted);
        table_put_text(tex, x->decision);
    }
    return oom ? -1 : 0;
}

static int extra_tables(Report *r)
{
    const PrimaryResult *p = &r->primary;
    Table *s = add_object(r, "primary_size", "primary.size", SIZE_COLS,
                          N_COLS(SIZE_COLS));
    Table *l = report_add_table(r, "primary_looks", TABLE_JSON, INT_COLS, 1);
    if (!s || !l) {
        return -1;
    }
    table_set_note(s, "%s",
                   "The primary test's measured size on this design: the "
                   "share of null studies in which it rejected any contrast, "
                   "from --calibrate or the plan (source null: not "
                   "measured).");
    int known = p->size_source && p->size_studies > 0;
    table_put_num(s, known ? p->size_rate : NAN);
    table_put_interval(s, known ? p->size_low : NAN,
                       known ? p->size_high : NAN);
    table_put_num(s, known ? (double)p->size_studies : (double)NAN);
    table_put_num(s, known ? (double)p->size_rejected : (double)NAN);
    table_put_text(s, known ? p->size_source : NULL);
    l->scalars = 1;
    table_set_json_path(l, "primary.looks");
    table_set_note(l, "%s",
                   "The study's sequential looks: analysed participants per "
                   "condition at each (empty: a fixed design).");
    for (int i = 0; i < p->n_looks; i++) {
        table_add_row(l);
        table_put_num(l, p->looks[i]);
    }
    if (!p->planned) {
        return 0;
    }
    const Plan *plan = r->opt.plan;
    Table *o = add_object(r, "primary_plan", "primary.preregistration",
                          PLAN_COLS, N_COLS(PLAN_COLS));
    Table *d =
        report_add_table(r, "primary_deviations", TABLE_JSON, TEXT_COLS, 1);
    if (!o || !d) {
        return -1;
    }
    table_set_note(o, "%s",
                   "The plan the analysis was compared with (--plan): its "
                   "file, the bundle hash it names, its date, and whether "
                   "the data and the run match it.");
    table_put_text(o, r->opt.plan_file);
    table_put_text(o, plan->sha256);
    table_put_text(o, plan->date);
    table_put_num(o, p->matches);
    d->scalars = 1;
    table_set_json_path(d, "primary.preregistration.deviations");
    table_set_note(d, "%s", "How the data and the run depart from the plan.");
    for (int i = 0; i < p->n_deviations; i++) {
        table_add_row(d);
        table_put_text(d, p->deviations[i]);
    }
    return 0;
}

/* Moves the tables from index `from` on to the front, in their order. */
static void move_to_front(Report *r, int from)
{
    int n = r->n_tables - from;
    Table *tmp[16];
    if (n <= 0 || n > 16) {
        return;
    }
    memcpy(tmp, r->tables + from, (size_t)n * sizeof *tmp);
    memmove(r->tables + n, r->tables, (size_t)from * sizeof *r->tables);
    memcpy(r->tables, tmp, (size_t)n * sizeof *tmp);
}

/* Pooled rejections of the calibration rows of test (all conditions). */
static int calibrated(const Report *r, const char *test, int *studies,
                      int *rejected)
{
    *studies = *rejected = 0;
    for (int i = 0; i < r->n_calibration; i++) {
        if (strcmp(r->calibration[i].test, test) == 0) {
            *studies += r->calibration[i].studies;
            *rejected += r->calibration[i].rejected;
        }
    }
    return *studies > 0;
}

/* The sentence on a published test's size when it is known (1), saying
** so when it is below alpha / 2, with its power relative to the primary
** test's when the plan measured it. */
static int published_size(const Report *r, const char *test,
                          const char *plan_test, const char *what, SimBuf *b)
{
    const PrimaryResult *p = &r->primary;
    int studies, rejected;
    const PlanPublished *pp =
        r->opt.plan ? plan_published(r->opt.plan, plan_test) : NULL;
    double rate = NAN;
    const char *from = NULL;
    if (calibrated(r, test, &studies, &rejected)) {
        rate = (double)rejected / studies;
        from = "--calibrate";
    } else if (pp && pp->null_studies > 0) {
        studies = pp->null_studies;
        rejected = pp->null_rejected;
        rate = pp->size;
        from = "the plan";
    }
    if (!from) {
        return 0;
    }
    sim_buf_printf(
        b, " On this design %s rejected %d of %d null tests (%.1f %%, %s)",
        what, rejected, studies, 100 * rate, from);
    if (rate < p->alpha / 2) {
        sim_buf_printf(b,
                       ", below half the %g %% a test at alpha %g should "
                       "have: it is conservative on this design, at a cost "
                       "in power.",
                       100 * p->alpha, p->alpha);
    } else {
        sim_buf_puts(b, ".");
    }
    if (pp && isfinite(pp->power) && isfinite(pp->primary_power) &&
        pp->primary_power > 0) {
        sim_buf_printf(b,
                       " In the plan's simulation its power was %.2f of the "
                       "primary test's (%.3f against %.3f at %d participants "
                       "per condition).",
                       pp->power / pp->primary_power, pp->power,
                       pp->primary_power, pp->participants);
    }
    return 1;
}

/* The heading of the published tables, before the first of them; their
** own headings go one level down. */
static int published_heading(Report *r)
{
    int first = -1, last = -1;
    for (int i = 0; i < r->n_tables; i++) {
        const char *k = r->tables[i]->key;
        if (strncmp(k, "change", 6) == 0 || strncmp(k, "utility", 7) == 0) {
            first = first < 0 ? i : first;
            last = i;
        }
    }
    int change = r->n_change > 0, utility = r->n_utility > 0;
    if (first < 0 || (!change && !utility)) {
        return 0;
    }
    for (int i = first; i <= last; i++) {
        if (r->tables[i]->title && (r->tables[i]->formats & TABLE_MD)) {
            r->tables[i]->level++;
        }
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b,
                   "The tables below are the published methods, computed as "
                   "the papers do: %s%s%s. They are kept for comparison with "
                   "the literature; the conclusion is the primary test's.",
                   change ? "Hase & Bansal's (2020) accuracy change with the "
                            "crossed users x items bootstrap"
                          : "",
                   change && utility ? " and " : "",
                   utility ? "Colin et al.'s (2022) Utility with the same "
                             "bootstrap"
                           : "");
    int known = 0;
    if (change) {
        known += published_size(r, "change", "change_bootstrap",
                                "the Change test's crossed bootstrap", &b);
    }
    if (utility) {
        known += published_size(r, "utility", "utility_bootstrap",
                                "the Utility test's crossed bootstrap", &b);
    }
    if (!known) {
        sim_buf_puts(&b, " Their size on this design is not measured in this "
                         "run: --calibrate N measures it, and a plan of "
                         "simlab plan (--plan) carries it.");
    }
    int n = r->n_tables;
    Table *t = report_add_table(r, "published", TABLE_MD, NULL, 0);
    int rc = !t || b.oom ? -1 : 0;
    if (t) {
        table_set_title(t, 2, "Published methods, with their measured size");
        table_set_note(t, "%s", sim_buf_cstr(&b));
        memmove(r->tables + first + 1, r->tables + first,
                (size_t)(n - first) * sizeof *r->tables);
        r->tables[first] = t;
    }
    sim_buf_free(&b);
    return rc;
}

int primary_tables(Report *r, SimError *err)
{
    if (r->primary.test < 0) {
        return SIM_OK;
    }
    int from = r->n_tables;
    if (object_table(r) != 0 || rows_tables(r) != 0 || extra_tables(r) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    move_to_front(r, from);
    if (published_heading(r) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}
