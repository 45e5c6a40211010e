/*
** A study's preregistration (`simlab plan`): what is decided before the
** data -- hypotheses, dependent variable, conditions and assignment, the
** primary test with its formula and alpha, exclusions, the sample size
** from the power simulation with the primary test's measured size, and
** the secondary analyses -- as plain data; preregistration.json and .md
** are written from it (plan.c, plan_md.c), and simlab-analyze --plan reads
** the JSON back and lists how the data and the run depart from it.
** libc and jansson; no study model (app/ fills it).
*/
#ifndef SIMLAB_ANALYSIS_PLAN_H
#define SIMLAB_ANALYSIS_PLAN_H

#include <stdint.h>

#include "common/sim_analysis.h"
#include "common/sim_error.h"

#define PLAN_MAX_CONDS  64
#define PLAN_MAX_TEXT   16 /* lines of a free-text section */
#define PLAN_FORMAT     1  /* preregistration.json's "simlab_plan" */
#define PLAN_MAX_PUBLIC 2  /* published tests compared */

/* A condition of the study and what the plan says of it. */
typedef struct PlanCondition {
    char id[128];
    char method[128]; /* explanation method shown; "" none */
    char label[256];  /* the study's description; "" none */
    int baseline;     /* 1: the reference */
    int pseudo;       /* 1: not a condition but a test\'s row ("all conditions"
                      ** of the ANOVA) */
    int tested;       /* 1: the primary test has a contrast for it */
    int direction;    /* stated: +1 higher, -1 lower, 0 none */
    double assumed;   /* the assumed effect on the primary test's
                      ** scale (e.g. the odds ratio); NaN: none */
    char assumed_text[256];              /* how the effect was set, in words */
    int null_effect;                     /* 1: no effect assumed */
    double power, power_low, power_high; /* at the planned N */
    double n_target; /* N for the target power (NaN: not reached) */
    int n_above;     /* no size of the search reached it */
} PlanCondition;

/* A published method (the paper's test) measured on the same design. */
typedef struct PlanPublished {
    char test[32];     /* "change_bootstrap", "utility_bootstrap" */
    char what[128];    /* "Hase & Bansal's Change" */
    int participants;  /* per condition */
    int null_studies;  /* null studies x contrasts */
    int null_rejected; /* of them, rejected */
    double size, size_low, size_high;
    double power;         /* mean power over the contrasts with an effect */
    double primary_power; /* the primary test's, same contrasts */
} PlanPublished;

typedef struct Plan {
    int format; /* PLAN_FORMAT */
    char sha256[65];
    char simlab_version[32];
    char date[16]; /* YYYY-MM-DD */
    char study_id[128];
    char title[256];
    uint64_t seed;
    /* the primary test */
    char test[32];
    char test_title[96];
    char source[48]; /* "study", "default for this design" */
    double alpha;
    int holm;
    char formula[256];
    char scale[32];
    char baseline[128];
    char baseline_from[256];
    int within;
    /* sequential looks (n_looks 0: a fixed design) */
    int n_looks;
    int looks[SIM_MAX_LOOKS];
    char spending[32];
    double crit[SIM_MAX_LOOKS], spent[SIM_MAX_LOOKS];
    double seq_power, seq_fpr, seq_fpr_low, seq_fpr_high;
    int seq_null_rejected; /* null studies with a rejection at any look */
    double expected_n_h0, expected_n_h1;
    double fixed_n_same_power;
    /* the sample size */
    double target_power;
    int per_condition;         /* analysed participants per condition */
    int enrol_per_condition;   /* to enrol for that many analysed */
    int enrol_low, enrol_high; /* from the exclusion rate's interval */
    double exclusion_rate;     /* measured through the real session */
    char n_from[256];          /* how per_condition was set, in words */
    double power, power_low, power_high; /* the smallest over contrasts */
    int studies;                         /* simulated studies per size */
    int null_studies;                    /* null studies at the planned N */
    int null_rejected;                   /* of them, any contrast rejected */
    double fpr, fpr_low, fpr_high;
    char sizes[160];       /* the sizes simulated, "10, 20, 40" */
    char effect_from[256]; /* where the assumed effects came from */
    /* the study */
    PlanCondition conds[PLAN_MAX_CONDS];
    int n_conds;
    char dv[PLAN_MAX_TEXT][300]; /* the dependent variable, in lines */
    int n_dv;
    char design[PLAN_MAX_TEXT][300]; /* conditions and assignment */
    int n_design;
    /* exclusions: the study's screening rules, and simlab-analyze's
    ** flags the plan assumes */
    char exclusions[PLAN_MAX_TEXT][300];
    int n_exclusions;
    int practice_min_first_try, quiz_all_first_try, max_catch_failures;
    double min_total_seconds;
    int include_pilot, include_simulated; /* 0: left out (the default) */
    int analysis_max_catch;               /* -1: the engine's verdict */
    /* secondary analyses */
    char secondary[PLAN_MAX_TEXT][300];
    int n_secondary;
    PlanPublished published[PLAN_MAX_PUBLIC];
    int n_published;
} Plan;

/* An empty plan (NaN numbers, format set). */
void plan_init(Plan *p);

/* Writes dir/preregistration.json and dir/preregistration.md (dir
** created when missing). Deterministic: the same plan, the same bytes. */
int plan_write(const Plan *p, const char *dir, SimError *err);

/* Writes the Markdown of p to path (plan_md.c). */
int plan_write_md(const Plan *p, const char *path, SimError *err);

/* Reads a preregistration.json that plan_write() wrote. A file that is not
** JSON, or JSON that is not a simlab plan, is an error naming the file
** (and the member at fault). */
int plan_read(const char *path, Plan *p, SimError *err);

/* The published method p measured (its size and power) for the table key
** "change" or "utility"; NULL when the plan has none. */
const PlanPublished *plan_published(const Plan *p, const char *test);

#endif
