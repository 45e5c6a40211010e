/*
** Internal to `simlab plan` (plan_cmd.c, plan_study.c): what the study
** alone says for the preregistration. No SDL.
*/
#ifndef SIMLAB_APP_PLAN_INT_H
#define SIMLAB_APP_PLAN_INT_H

#include <stddef.h>

#include "analysis/plan.h"
#include "stimuli/study.h"

/* The design facts the plan's texts depend on: the study's (within, pre,
** post, test, sessions: StudyFacts) and what the secondary analyses
** need. */
typedef struct PlanFacts {
    int within;
    int pre, post, test; /* blocks of each phase */
    int sessions;        /* the largest session of the test blocks */
    int rating, deadlines, questionnaires, catch_trials, on_request;
} PlanFacts;

void plan_study_facts(const Study *st, PlanFacts *f);

/* The mixed model's formula in lme4's syntax with the richest structure
** the report tries (its dummies named as simlab-analyze names them). */
void plan_formula(const Study *st, const PlanFacts *f, char *out, size_t size);

/* The lines of p's sections from the study: the dependent variable (p->test
** set first), conditions and assignment, the exclusion rules (and the
** plan's analysis flags), the secondary analyses (p->test, p->formula set
** first). */
void plan_dv(const Study *st, const PlanFacts *f, Plan *p);
void plan_design(const Study *st, const PlanFacts *f, Plan *p);
void plan_exclusions(const Study *st, Plan *p);
void plan_secondary(const PlanFacts *f, Plan *p);

#endif
