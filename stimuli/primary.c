/*
** study.json "analysis": read with common/sim_analysis.c, each problem
** located at its JSON pointer, then checked against the study's design:
** the tests a design cannot have (paired_t without within-subject
** assignment, change_bootstrap without Pre and Post blocks,
** utility_bootstrap without test blocks in sessions,
** glmm_error_detection without verify blocks), directions of
** conditions the study does not have. libc and jansson only.
*/
#include "stimuli/primary.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_analysis.h"

void study_facts(const Study *st, StudyFacts *f)
{
    memset(f, 0, sizeof *f);
    f->within = st->assignment.mode == ASSIGN_MODE_WITHIN;
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *b = &st->blocks[i];
        f->pre += b->phase_id == SIM_PHASE_PRE;
        f->post += b->phase_id == SIM_PHASE_POST;
        f->test += b->phase_id == SIM_PHASE_TEST;
        f->verify += b->kind == BLOCK_VERIFY;
        if (b->phase_id == SIM_PHASE_TEST && b->session > f->sessions) {
            f->sessions = b->session;
        }
    }
}

typedef struct ReportCtx {
    Loader *L;
    const JLoc *at; /* the "analysis" value */
} ReportCtx;

/* A problem at a path below "analysis" ("sequential/looks/2"). */
static void report_at(void *vctx, const char *where, const char *msg)
{
    ReportCtx *x = vctx;
    JLoc loc = *x->at;
    char path[200];
    snprintf(path, sizeof path, "%s", where);
    char *last = path;
    for (char *slash = strchr(path, '/'); slash; slash = strchr(last, '/')) {
        *slash = '\0';
        JLoc next;
        jl_child(&next, &loc, last);
        loc = next;
        last = slash + 1;
    }
    jl_error(x->L, &loc, last[0] ? last : NULL, "%s", msg);
}

/* Whether the design can have test t; why not into why. */
static int design_allows(const Study *st, const StudyFacts *f, SimPrimaryTest t,
                         char *why, size_t size)
{
    switch (t) {
    case SIM_PRIMARY_PAIRED_T:
        if (!f->within) {
            snprintf(why, size,
                     "paired_t compares each participant's accuracy between "
                     "conditions, and this study is between-subject (each "
                     "participant sees one condition); use \"glmm\" or "
                     "\"anova\", or \"assignment\": {\"mode\": \"within\"}");
            return 0;
        }
        if (!f->test && !f->post) {
            snprintf(why, size,
                     "paired_t needs test or post blocks to compare");
            return 0;
        }
        break;
    case SIM_PRIMARY_CHANGE_BOOTSTRAP:
        if (!f->pre || !f->post) {
            snprintf(why, size,
                     "change_bootstrap tests Change = Post - Pre, and this "
                     "study has no %s blocks; use \"glmm\"",
                     !f->pre && !f->post ? "Pre and Post"
                     : !f->pre           ? "Pre"
                                         : "Post");
            return 0;
        }
        break;
    case SIM_PRIMARY_UTILITY_BOOTSTRAP:
        if (!f->sessions) {
            snprintf(why, size,
                     "utility_bootstrap tests the Utility of training "
                     "sessions (test blocks with a \"session\"), and this "
                     "study has none; use \"glmm\"");
            return 0;
        }
        break;
    case SIM_PRIMARY_ANOVA:
        if (!f->test && !f->post) {
            snprintf(why, size, "anova needs test or post blocks");
            return 0;
        }
        break;
    case SIM_PRIMARY_GLMM_ERROR_DETECTION:
        if (!f->verify) {
            snprintf(why, size,
                     "glmm_error_detection models the answers of verify "
                     "blocks (is the model right?), and this study has "
                     "none; add a \"kind\": \"verify\" block, or use "
                     "\"glmm\"");
            return 0;
        }
        break;
    default:
        break;
    }
    if ((t == SIM_PRIMARY_PAIRED_T || t == SIM_PRIMARY_ANOVA ||
         t == SIM_PRIMARY_UTILITY_BOOTSTRAP) &&
        st->n_conditions < 2) {
        snprintf(why, size, "%s compares conditions, and the study has one",
                 sim_primary_name(t));
        return 0;
    }
    if (t == SIM_PRIMARY_UTILITY_BOOTSTRAP && !st->baseline &&
        !study_find_condition(st, "baseline")) {
        snprintf(why, size,
                 "utility_bootstrap divides by the baseline's accuracy, and "
                 "the study names no \"baseline\"");
        return 0;
    }
    return 1;
}

void primary_parse(Design *D, const JLoc *at)
{
    Loader *L = D->L;
    Study *st = L->st;
    json_t *v = json_object_get(D->root, "analysis");
    JLoc al;
    jl_child(&al, at, "analysis");
    ReportCtx x = {L, &al};
    if (json_is_object(v)) {
        jreject_unknown(L, &al, v, SIM_ANALYSIS_KEYS);
        json_t *seq = json_object_get(v, "sequential");
        if (json_is_object(seq)) {
            JLoc sl;
            jl_child(&sl, &al, "sequential");
            jreject_unknown(L, &sl, seq, SIM_SEQUENTIAL_KEYS);
        }
    }
    sim_analysis_parse(v, &st->analysis, report_at, &x);
    const SimAnalysisSpec *s = &st->analysis;
    StudyFacts f;
    study_facts(st, &f);
    char why[400];
    if (s->primary_set && !design_allows(st, &f, s->primary, why, sizeof why)) {
        jl_error(L, &al, "primary", "%s", why);
    }
    JLoc dl;
    jl_child(&dl, &al, "direction");
    for (int i = 0; i < s->n_direction; i++) {
        const char *c = s->direction[i].condition;
        if (!study_find_condition(st, c)) {
            design_no_condition(L, &dl, c, c);
        } else if (st->baseline && strcmp(st->baseline, c) == 0) {
            jl_error(L, &dl, c,
                     "'%s' is the baseline: the other conditions are "
                     "compared with it",
                     c);
        }
    }
}

void primary_describe(const Study *st, char *buf, size_t size)
{
    const SimAnalysisSpec *s = &st->analysis;
    size_t at = 0;
    int n =
        snprintf(buf, size, "%s: %s (%s), alpha %g, %s",
                 sim_primary_name(s->primary), sim_primary_title(s->primary),
                 s->primary_set ? "the study's analysis.primary"
                                : "the default; analysis.primary names "
                                  "another",
                 s->alpha, s->holm ? "Holm" : "no correction");
    at = n > 0 && (size_t)n < size ? (size_t)n : size;
    if (s->participants > 0 && at < size) {
        n = snprintf(buf + at, size - at, "; %d participants per condition",
                     s->participants);
        at += n > 0 && (size_t)n < size - at ? (size_t)n : size - at;
    }
    for (int i = 0; i < s->n_looks && at < size; i++) {
        n = snprintf(buf + at, size - at, "%s%d", i ? ", " : "; looks ",
                     s->looks[i]);
        at += n > 0 && (size_t)n < size - at ? (size_t)n : size - at;
    }
    if (s->n_looks > 0 && at < size) {
        snprintf(buf + at, size - at, " (%s spending)",
                 sim_spending_name(s->spending));
    }
}
