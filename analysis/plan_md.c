/*
** preregistration.md: the sections of an AsPredicted / OSF preregistration
** written from a Plan (plan.h) -- hypotheses, dependent variable,
** conditions and assignment, the primary analysis, exclusions, sample
** size, secondary analyses -- and the primary test's measured properties
** on the study's own design. Deterministic: the same plan, the same text.
*/
#include "analysis/plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_text.h"

static void text_lines(SimBuf *b, const char (*t)[300], int n)
{
    for (int i = 0; i < n; i++) {
        sim_buf_printf(b, "- %s\n", t[i]);
    }
}

static const PlanCondition *reference(const Plan *p)
{
    for (int c = 0; c < p->n_conds; c++) {
        if (p->conds[c].baseline) {
            return &p->conds[c];
        }
    }
    return NULL;
}

/* The hypothesis of one condition, in the words of the test. */
static void hypothesis(SimBuf *b, const Plan *p, const PlanCondition *c, int k)
{
    const char *dir = c->direction > 0   ? "higher than"
                      : c->direction < 0 ? "lower than"
                                         : "different from";
    sim_buf_printf(b, "- **H%d (%s).** ", k, c->id);
    if (strcmp(p->test, "change_bootstrap") == 0) {
        sim_buf_printf(b,
                       "Accuracy after training with %s (Post) is %s "
                       "accuracy before it (Pre): Change = Post - Pre is not "
                       "0.",
                       c->id, c->direction ? dir : "different from");
    } else if (strcmp(p->test, "anova") == 0) {
        sim_buf_puts(b, "Participant accuracy differs between the conditions "
                        "(one F test over all of them).");
    } else if (strcmp(p->test, "glmm") == 0 && strstr(p->formula, "phase")) {
        sim_buf_printf(b,
                       "Participants learn more from Pre to Post with %s "
                       "than with '%s': the odds of a correct prediction "
                       "rise by a factor %s the reference's "
                       "(phasepost:condition%s).",
                       c->id, p->baseline,
                       c->direction > 0   ? "larger than"
                       : c->direction < 0 ? "smaller than"
                                          : "different from",
                       c->id);
    } else {
        sim_buf_printf(b,
                       "Participants predict the model's output %s with %s "
                       "than with '%s'.",
                       c->direction > 0   ? "more often"
                       : c->direction < 0 ? "less often"
                                          : "with a different accuracy",
                       c->id, p->baseline);
    }
    sim_buf_printf(b, " %s; two-sided test.\n",
                   c->direction ? "Direction stated in the study file"
                                : "No direction stated");
}

static void section_hypotheses(SimBuf *b, const Plan *p)
{
    sim_buf_puts(b, "\n## 1. Hypotheses\n\n");
    int k = 0;
    for (int c = 0; c < p->n_conds; c++) {
        if (p->conds[c].tested) {
            hypothesis(b, p, &p->conds[c], ++k);
        }
    }
    if (k == 0) {
        sim_buf_puts(b, "- The study has no contrast to test.\n");
    }
    if (strcmp(p->test, "change_bootstrap") != 0 && reference(p)) {
        sim_buf_printf(b, "\nEvery condition is compared with '%s' (%s).\n",
                       p->baseline, p->baseline_from);
    }
}

static void section_primary(SimBuf *b, const Plan *p)
{
    sim_buf_puts(b, "\n## 4. Primary analysis\n\n");
    sim_buf_printf(b, "- Test: `%s`, %s (%s).\n", p->test, p->test_title,
                   strcmp(p->source, "study") == 0
                       ? "named in study.json \"analysis\""
                       : "the default: the study names none");
    if (p->formula[0]) {
        sim_buf_printf(b,
                       "- Model: `%s`, fitted by simlab-analyze as lme4's "
                       "glmer(nAGQ = 1) (binomial, logit link); report.json "
                       "holds an R script that refits it.\n",
                       p->formula);
    }
    sim_buf_printf(b, "- Alpha %g, two-sided; %s over the contrasts. ",
                   p->alpha,
                   p->holm ? "Holm's step-down adjustment" : "no correction");
    if (p->n_looks) {
        sim_buf_puts(b, "A hypothesis is supported when its |z| reaches the "
                        "boundary of a look (below).\n");
    } else {
        sim_buf_printf(b,
                       "A hypothesis is supported when its %sp-value is at "
                       "most alpha.\n",
                       p->holm ? "adjusted " : "");
    }
    if (p->n_looks == 0) {
        return;
    }
    sim_buf_printf(b,
                   "- Sequential looks with %s alpha spending (Lan-DeMets, "
                   "two-sided): the study stops for rejection at the first "
                   "look where a contrast's |z| reaches the boundary (with "
                   "Holm's adjustment, each contrast's at its level alpha / "
                   "contrasts left), and otherwise continues to the last "
                   "look.\n\n",
                   p->spending);
    sim_buf_puts(b, "| look | analysed participants per condition | "
                    "information | critical abs(z) | alpha spent |\n"
                    "| ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < p->n_looks; k++) {
        sim_buf_printf(b, "| %d | %d | %.3f | %.4f | %.6f |\n", k + 1,
                       p->looks[k],
                       (double)p->looks[k] / p->looks[p->n_looks - 1],
                       p->crit[k], p->spent[k]);
    }
}

static void section_sample(SimBuf *b, const Plan *p)
{
    sim_buf_puts(b, "\n## 6. Sample size\n\n");
    sim_buf_printf(b, "- **%d analysed participants per condition** (%s).\n",
                   p->per_condition, p->n_from);
    if (p->enrol_per_condition > 0) {
        sim_buf_printf(b,
                       "- Enrol **%d per condition** to end with that many: "
                       "the study's screening excluded %.1f %% of "
                       "participants simulated through the real session "
                       "(range %d-%d from its 95 %% interval).\n",
                       p->enrol_per_condition, 100 * p->exclusion_rate,
                       p->enrol_low, p->enrol_high);
    }
    sim_buf_printf(b, "- Effects assumed: %s.\n", p->effect_from);
    sim_buf_printf(b,
                   "- Power from %d simulated studies per size (sizes %s) "
                   "analysed with the primary test itself; the false-positive "
                   "rate from %d null studies at the planned N.\n",
                   p->studies, p->sizes, p->null_studies);
}

static void section_properties(SimBuf *b, const Plan *p)
{
    sim_buf_puts(b, "\n## 8. The primary test on this design\n\n");
    sim_buf_printf(b,
                   "Simulated by `simlab power` with the study's own "
                   "schedules, items and the mixed policy; target power "
                   "%.2f.\n\n",
                   p->target_power);
    sim_buf_printf(b,
                   "| condition | assumed effect | power %s | 95 %% CI | N "
                   "for the target (fixed design) |\n"
                   "| --- | --- | ---: | --- | ---: |\n",
                   p->n_looks ? "(the sequential procedure)"
                              : "at the planned N");
    for (int c = 0; c < p->n_conds; c++) {
        const PlanCondition *x = &p->conds[c];
        if (!x->tested) {
            continue;
        }
        char n[48];
        if (x->null_effect) {
            snprintf(n, sizeof n, "- (no effect)");
        } else if (x->n_above || !isfinite(x->n_target)) {
            snprintf(n, sizeof n, "beyond the sizes");
        } else {
            snprintf(n, sizeof n, "%.1f", x->n_target);
        }
        sim_buf_printf(b, "| %s | %s | %.3f | [%.3f, %.3f] | %s |\n", x->id,
                       x->assumed_text, x->power, x->power_low, x->power_high,
                       n);
    }
    sim_buf_printf(b,
                   "\nFalse-positive rate (any contrast rejected when no "
                   "condition has an effect): **%.1f %%** of %d null studies "
                   "(95 %% CI %.1f-%.1f %%) at alpha %g.\n",
                   100 * p->fpr, p->null_studies, 100 * p->fpr_low,
                   100 * p->fpr_high, p->alpha);
    if (p->n_looks > 0) {
        sim_buf_printf(b,
                       "\nThe whole sequential procedure: power %.3f, "
                       "false-positive rate %.1f %% (any look; 95 %% CI "
                       "%.1f-%.1f %%); expected analysed participants per "
                       "condition %.1f without an effect and %.1f with the "
                       "assumed effects; a fixed design needs %.1f per "
                       "condition for the same power.\n",
                       p->seq_power, 100 * p->seq_fpr, 100 * p->seq_fpr_low,
                       100 * p->seq_fpr_high, p->expected_n_h0,
                       p->expected_n_h1, p->fixed_n_same_power);
    }
    for (int i = 0; i < p->n_published; i++) {
        const PlanPublished *q = &p->published[i];
        sim_buf_printf(b,
                       "\n%s (the published method, `%s`), on the same "
                       "simulated studies at %d per condition: size %.1f %% "
                       "(%d of %d null tests; 95 %% CI %.1f-%.1f %%)",
                       q->what, q->test, q->participants, 100 * q->size,
                       q->null_rejected, q->null_studies, 100 * q->size_low,
                       100 * q->size_high);
        if (isfinite(q->primary_power)) {
            sim_buf_printf(b,
                           ", power %.3f against the primary test's %.3f on "
                           "the conditions both test.\n",
                           q->power, q->primary_power);
        } else if (isfinite(q->power)) {
            sim_buf_printf(b, ", power %.3f.\n", q->power);
        } else {
            sim_buf_puts(b, ".\n");
        }
    }
}

int plan_write_md(const Plan *p, const char *path, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b, "# Preregistration: %s\n\n", p->title);
    sim_buf_printf(&b,
                   "Study `%s`, bundle SHA-256 `%s`. Written by simlab %s "
                   "(`simlab plan`, seed %llu) on %s from the study file "
                   "and simulations of its own design. `simlab-analyze "
                   "--plan preregistration.json` compares the data and the "
                   "analysis with this plan.\n",
                   p->study_id, p->sha256, p->simlab_version,
                   (unsigned long long)p->seed, p->date);
    section_hypotheses(&b, p);
    sim_buf_puts(&b, "\n## 2. Dependent variable\n\n");
    text_lines(&b, p->dv, p->n_dv);
    sim_buf_puts(&b, "\n## 3. Conditions and assignment\n\n");
    for (int c = 0; c < p->n_conds; c++) {
        const PlanCondition *x = &p->conds[c];
        if (x->pseudo) {
            continue;
        }
        sim_buf_printf(&b, "- `%s`: %s%s%s%s\n", x->id,
                       x->method[0] ? "explanation method " : "no explanation",
                       x->method, x->label[0] ? "; " : "", x->label);
    }
    text_lines(&b, p->design, p->n_design);
    section_primary(&b, p);
    sim_buf_puts(&b, "\n## 5. Exclusions\n\n");
    text_lines(&b, p->exclusions, p->n_exclusions);
    section_sample(&b, p);
    sim_buf_puts(&b, "\n## 7. Secondary analyses\n\n");
    text_lines(&b, p->secondary, p->n_secondary);
    section_properties(&b, p);
    int rc = SIM_OK;
    FILE *f = b.oom ? NULL : fopen(path, "wb");
    if (!f) {
        rc = sim_fail(err, b.oom ? SIM_ERR_NOMEM : SIM_ERR_IO,
                      "%s: cannot write: %s", path,
                      b.oom ? "out of memory" : strerror(errno));
    } else {
        int bad = fwrite(sim_buf_cstr(&b), 1, b.len, f) != b.len;
        bad |= fclose(f) != 0;
        rc = bad ? sim_fail(err, SIM_ERR_IO, "%s: write failed", path) : SIM_OK;
    }
    sim_buf_free(&b);
    return rc;
}
