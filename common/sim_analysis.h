/*
** study.json "analysis": the conclusions a study decides before its data --
** the primary test, alpha, the correction over its contrasts, optional
** sequential looks, the planned N and the stated directions. One parser
** for every reader: `simlab check` (stimuli/, with file and line), `simlab
** status` (experiment/), simlab-analyze and `simlab plan`. libc, jansson.
*/
#ifndef SIMLAB_COMMON_SIM_ANALYSIS_H
#define SIMLAB_COMMON_SIM_ANALYSIS_H

#include <jansson.h>

/* The tests a study may name as its primary one (study.json spelling in
** sim_primary_name()). */
typedef enum SimPrimaryTest {
    SIM_PRIMARY_NONE = -1,               /* no test (none computed) */
    SIM_PRIMARY_GLMM = 0,                /* the mixed model's Wald tests */
    SIM_PRIMARY_PAIRED_T = 1,            /* paired t tests (within-subject) */
    SIM_PRIMARY_ANOVA = 2,               /* the ANOVA's F test */
    SIM_PRIMARY_CHANGE_BOOTSTRAP = 3,    /* Change, crossed bootstrap */
    SIM_PRIMARY_UTILITY_BOOTSTRAP = 4,   /* Utility, crossed bootstrap */
    SIM_PRIMARY_GLMM_ERROR_DETECTION = 5 /* the mixed model of verify
                                         ** trials: condition terms */
} SimPrimaryTest;

#define SIM_PRIMARY_COUNT 6

/* Lan-DeMets alpha-spending functions of sequential looks. */
typedef enum SimSpending {
    SIM_SPENDING_OBRIEN_FLEMING = 0, /* "obrien-fleming" (rpact asOF) */
    SIM_SPENDING_POCOCK = 1          /* "pocock" (rpact asP) */
} SimSpending;

#define SIM_MAX_LOOKS     20
#define SIM_MAX_DIRECTION 64
#define SIM_ALPHA_DEFAULT 0.05

/* A stated direction: the condition is expected to be higher (+1) or
** lower (-1) than the baseline (the tests stay two-sided). */
typedef struct SimDirection {
    char condition[128];
    int sign;
} SimDirection;

typedef struct SimAnalysisSpec {
    int present;              /* study.json has an "analysis" object */
    int primary_set;          /* "primary" was given */
    SimPrimaryTest primary;   /* the test (SIM_PRIMARY_GLMM when not set) */
    double alpha;             /* two-sided level, in (0, 0.5) */
    int holm;                 /* "correction": 1 "holm" (default), 0 "none" */
    int n_looks;              /* sequential looks; 0: a fixed design */
    int looks[SIM_MAX_LOOKS]; /* analysed participants per condition at
                              ** each look, increasing */
    SimSpending spending;
    int participants; /* planned analysed participants per condition
                      ** ("participants"); 0: from the power analysis */
    SimDirection direction[SIM_MAX_DIRECTION];
    int n_direction;
} SimAnalysisSpec;

/* The members study.json's "analysis" and its "sequential" may hold
** (NULL-terminated), for a reader that reports unknown ones. */
extern const char *const SIM_ANALYSIS_KEYS[];
extern const char *const SIM_SEQUENTIAL_KEYS[];

/* "glmm", "paired_t", "anova", "change_bootstrap", "utility_bootstrap",
** "glmm_error_detection". */
const char *sim_primary_name(SimPrimaryTest t);
/* What the test is, for people: "the mixed model (Wald z)", "paired t
** tests", "the ANOVA's F test", "Change, crossed bootstrap", "Utility,
** crossed bootstrap". */
const char *sim_primary_title(SimPrimaryTest t);
/* The test named name, or -1. */
int sim_primary_from_name(const char *name);
/* "obrien-fleming" or "pocock". */
const char *sim_spending_name(SimSpending s);

/* Called once per problem: where is a path below "analysis" ("primary",
** "sequential/looks/2", "direction/LIME"), msg what is wrong. */
typedef void (*SimAnalysisReport)(void *ctx, const char *where,
                                  const char *msg);

/* The defaults: no analysis block, the mixed model, alpha 0.05, Holm. */
void sim_analysis_default(SimAnalysisSpec *s);

/* Reads obj (study.json's "analysis" value; NULL: absent) into s (the
** defaults first). Every problem is reported through fn (may be NULL) with
** a "did you mean" where one fits; unknown members are not (see
** SIM_ANALYSIS_KEYS). Returns the number of problems; the fields with
** problems keep their defaults. Nothing is allocated. */
int sim_analysis_parse(json_t *obj, SimAnalysisSpec *s, SimAnalysisReport fn,
                       void *ctx);

/* The stated direction of condition (+1, -1), 0 when none. */
int sim_analysis_direction(const SimAnalysisSpec *s, const char *condition);

#endif
