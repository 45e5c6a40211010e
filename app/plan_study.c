/*
** `simlab plan`'s reading of the study (plan_int.h): the sections of the
** preregistration that come from the bundle alone -- conditions and
** assignment, the dependent variable, the exclusion rules with their
** thresholds, the secondary analyses, the primary test's model -- in the
** words of docs/analysis.md. No simulation here (plan_cmd.c).
*/
#include "app/plan_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/glmm_design.h"
#include "common/sim_phase.h"

static void add_line(char (*lines)[300], int *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_line(char (*lines)[300], int *n, const char *fmt, ...)
{
    if (*n >= PLAN_MAX_TEXT) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lines[*n], 300, fmt, ap);
    va_end(ap);
    (*n)++;
}

void plan_study_facts(const Study *st, PlanFacts *f)
{
    memset(f, 0, sizeof *f);
    StudyFacts sf;
    study_facts(st, &sf);
    f->within = sf.within;
    f->pre = sf.pre;
    f->post = sf.post;
    f->test = sf.test;
    f->sessions = sf.sessions;
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *b = &st->blocks[i];
        f->rating |= b->rating;
        f->deadlines |= b->time_limit_ms > 0;
        f->questionnaires += b->kind == BLOCK_QUESTIONNAIRE;
        f->catch_trials += b->n_catch;
    }
    for (size_t i = 0; i < st->n_items; i++) {
        for (size_t k = 0; k < st->items[i].n_expl; k++) {
            const Explanation *e = st->items[i].expl[k].e;
            f->on_request |= e && e->reveal != EXPL_REVEAL_ALWAYS;
        }
    }
}

void plan_formula(const Study *st, const PlanFacts *f, char *out, size_t size)
{
    char slopes[600] = "";
    size_t at = 0;
    if (f->pre && f->post) {
        at += (size_t)snprintf(slopes, sizeof slopes, " + phasepost");
    }
    for (size_t c = 0; f->within && c < st->n_conditions && at < 500; c++) {
        const char *id = st->conditions[c].id;
        if (st->baseline ? strcmp(id, st->baseline) != 0 : c > 0) {
            char name[160], quoted[340];
            snprintf(name, sizeof name, "condition%.100s", id);
            glmm_r_name(name, quoted, sizeof quoted);
            at += (size_t)snprintf(slopes + at, sizeof slopes - at, " + %s",
                                   quoted);
        }
    }
    const char *fixed = f->pre && f->post ? "phase * condition"
                        : f->sessions > 1 ? "condition + session"
                                          : "condition";
    snprintf(out, size, "correct ~ %s + (1%s | participant) + (1 | item)",
             fixed, slopes);
}

void plan_dv(const Study *st, const PlanFacts *f, Plan *p)
{
    add_line(p->dv, &p->n_dv,
             "`correct`: 1 when the participant's prediction equals the "
             "model's output on the shown input (on the perturbed input for "
             "counterfactual trials), else 0 (%s).",
             st->test_type ? st->test_type : "forward simulation");
    if (f->pre && f->post) {
        add_line(p->dv, &p->n_dv,
                 "Analysed trials: the Pre and Post test trials (the same "
                 "items before and after the explanations are shown).");
    } else if (f->test) {
        add_line(p->dv, &p->n_dv, "Analysed trials: the test trials%s.",
                 f->sessions > 0 ? " of the training sessions" : "");
    } else {
        add_line(p->dv, &p->n_dv, "Analysed trials: the Post trials.");
    }
    add_line(p->dv, &p->n_dv,
             "Not data: catch trials (attention checks), practice and "
             "learning trials, and trials left unanswered%s.",
             f->deadlines ? " (timed out)" : "");
    if (strcmp(p->test, "glmm") == 0) {
        add_line(p->dv, &p->n_dv,
                 "The primary test models each answer (binomial, logit "
                 "link) with crossed random effects of participants and "
                 "items.");
    } else if (strcmp(p->test, "paired_t") == 0 ||
               strcmp(p->test, "anova") == 0) {
        add_line(p->dv, &p->n_dv,
                 "The primary test takes each participant's accuracy (share "
                 "correct) per condition.");
    } else {
        add_line(p->dv, &p->n_dv,
                 "The primary test takes accuracies pooled over answers, "
                 "resampled by participants and items (crossed "
                 "bootstrap).");
    }
}

void plan_design(const Study *st, const PlanFacts *f, Plan *p)
{
    const Assignment *a = &st->assignment;
    if (f->within) {
        static const char *const orders[] = {
            "the rows of a Williams latin square, least filled first",
            "a random order per participant", "the order of the study file"};
        add_line(p->design, &p->n_design,
                 "Within-subject: every participant does every condition, "
                 "in %s.",
                 orders[a->order]);
    } else if (a->rule == ASSIGN_HASE) {
        add_line(p->design, &p->n_design,
                 "Between-subject: each participant sees one condition; "
                 "every condition is filled to %d completed participants, "
                 "then participants go to '%s' (Hase & Bansal's rule).",
                 a->min_complete, a->then_condition ? a->then_condition : "?");
    } else {
        add_line(p->design, &p->n_design,
                 "Between-subject: each participant sees one condition, the "
                 "least filled one (completed and active participants), "
                 "ties at random.");
    }
    add_line(p->design, &p->n_design, "Protocol: %s; %zu items in %zu pools%s.",
             st->preset ? st->preset : "the study's own blocks", st->n_items,
             st->n_pools,
             f->sessions > 0 ? ", test trials in training sessions" : "");
}

void plan_exclusions(const Study *st, Plan *p)
{
    const Screening *s = &st->screening;
    p->practice_min_first_try = s->practice_min_first_try;
    p->quiz_all_first_try = s->quiz_all_first_try;
    p->max_catch_failures = s->max_catch_failures;
    p->min_total_seconds = s->min_total_seconds;
    int n = p->n_exclusions;
    if (s->practice_min_first_try >= 0) {
        add_line(p->exclusions, &p->n_exclusions,
                 "Fewer than %d practice items right on the first try: "
                 "excluded.",
                 s->practice_min_first_try);
    }
    if (s->quiz_all_first_try) {
        add_line(p->exclusions, &p->n_exclusions,
                 "A quiz question on the instructions not right on the "
                 "first try: excluded.");
    }
    if (s->max_catch_failures >= 0) {
        add_line(p->exclusions, &p->n_exclusions,
                 "More than %d failed catch trials (wrong or unanswered): "
                 "excluded.",
                 s->max_catch_failures);
    }
    if (s->min_total_seconds > 0) {
        add_line(p->exclusions, &p->n_exclusions,
                 "Finished in less than %g seconds: excluded.",
                 s->min_total_seconds);
    }
    if (p->n_exclusions == n) {
        add_line(p->exclusions, &p->n_exclusions,
                 "The study has no screening rule: every participant who "
                 "completes it is analysed.");
    }
    if (s->stop_on_failure) {
        add_line(p->exclusions, &p->n_exclusions,
                 "An excluded participant's session ends at once.");
    }
    add_line(p->exclusions, &p->n_exclusions,
             "Pilot participants are not analysed; %s. The rules are applied "
             "by the runner as each session ends, and simlab-analyze takes "
             "its verdicts (no --max-catch-failures).",
             p->include_simulated
                 ? "simulated participants are (a dry run of the analysis "
                   "on simulated data: simlab plan --include-simulated)"
                 : "nor are simulated ones");
    p->include_pilot = 0;
    p->analysis_max_catch = -1;
}

void plan_secondary(const PlanFacts *f, Plan *p)
{
    if (strcmp(p->test, "change_bootstrap") != 0 && f->pre && f->post) {
        add_line(p->secondary, &p->n_secondary,
                 "The published methods, for comparison with the literature: "
                 "Hase & Bansal's (2020) accuracy change (Post - Pre, "
                 "random-effects Pre) with the crossed users x items "
                 "bootstrap.");
    }
    if (strcmp(p->test, "utility_bootstrap") != 0 && f->test) {
        add_line(p->secondary, &p->n_secondary,
                 "The published methods, for comparison with the literature: "
                 "Colin et al.'s (2022) Utility with the crossed users x "
                 "items bootstrap.");
    }
    if (strcmp(p->test, "glmm") != 0) {
        add_line(p->secondary, &p->n_secondary,
                 "The mixed-effects logistic model (%s).", p->formula);
    }
    add_line(p->secondary, &p->n_secondary,
             f->within ? "The repeated-measures ANOVA with the "
                         "Greenhouse-Geisser correction and paired t tests "
                         "against the reference (Holm)."
                       : "The one-way ANOVA of participant accuracy with "
                         "Tukey HSD against the reference.");
    if (f->rating) {
        add_line(p->secondary, &p->n_secondary,
                 "Ratings of the explanations per condition, and the logistic "
                 "regression of correctness on rating.");
    }
    if (f->questionnaires) {
        add_line(p->secondary, &p->n_secondary,
                 "The answers of the %d questionnaire block%s per condition.",
                 f->questionnaires, f->questionnaires == 1 ? "" : "s");
    }
    if (f->on_request) {
        add_line(p->secondary, &p->n_secondary,
                 "How often explanations given on request or on hover were "
                 "viewed, and accuracy with and without a view.");
    }
    if (f->deadlines) {
        add_line(p->secondary, &p->n_secondary,
                 "Timeouts per condition and phase (answer deadlines).");
    }
    add_line(p->secondary, &p->n_secondary,
             "Descriptive: participant accuracy per condition and phase, "
             "reaction times, the item analysis; all exploratory.");
}
