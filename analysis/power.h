/*
** The statistical engine of `simlab power`: Monte Carlo power of a study's
** primary test. For each sample size it has complete studies simulated by
** the caller (a callback that fills a table of responses: no datasets, no
** study model) and tests each with simlab-analyze's own statistics
** (analysis/teststat.h) and the crossed bootstrap of analysis/boot.h,
** stopping a study's replicates once the decision at alpha is certain
** (curtailed Besag-Clifford sampling: the decisions of all B replicates).
** Summaries, power.json, power.md and the power curve (analysis/plot.h).
** common/ and analysis/ only; threads over studies. See docs/power.md.
*/
#ifndef SIMLAB_ANALYSIS_POWER_H
#define SIMLAB_ANALYSIS_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_analysis.h"
#include "common/sim_error.h"

#define POWER_MAX_SIZES 32
#define POWER_MAX_CELLS 64

/* The statistic tested, by the study's design. */
typedef enum PowerTest {
    POWER_TEST_CHANGE = 0,     /* Pre and Post: Change = Post - Pre (RE) */
    POWER_TEST_UTILITY = 1,    /* test trials in sessions: Utility != 1 */
    POWER_TEST_DIFFERENCE = 2, /* plain test: accuracy - the baseline's */
    POWER_TEST_PAIRED = 3      /* within-subject: paired t of participant
                                  accuracy, condition - baseline, Holm */
} PowerTest;

/* How each simulated study is tested (--test). */
typedef enum PowerMethod {
    POWER_METHOD_DEFAULT = 0, /* the design's: bootstrap, or t (within) */
    POWER_METHOD_BOOTSTRAP,   /* the crossed (users x items) bootstrap */
    POWER_METHOD_USERS,       /* the bootstrap of users only (items fixed) */
    POWER_METHOD_GLMM,        /* Wald z of the mixed model (glmm.h) */
    POWER_METHOD_T,           /* the paired t test (within-subject) */
    POWER_METHOD_ANOVA        /* the repeated-measures ANOVA's F test over
                                 all conditions (within-subject): one row */
} PowerMethod;

/* Parses "bootstrap", "users", "glmm", "t" or "anova"; -1 when unknown. */
int power_parse_method(const char *name);
/* The name of a method ("bootstrap", ...). */
const char *power_method_name(PowerMethod m);

/* The phase of a simulated response. */
enum { POWER_PHASE_PRE = 0, POWER_PHASE_POST = 1, POWER_PHASE_TEST = 2 };

/* The options of the engine. */
typedef struct PowerOptions {
    int sizes[POWER_MAX_SIZES]; /* participants per condition, ascending */
    int n_sizes;
    int studies;         /* simulated studies per size */
    double alpha;        /* two-sided level (0.05) */
    int replicates;      /* bootstrap replicates at most per study (1000) */
    int threads;         /* worker threads over studies (1) */
    uint64_t seed;       /* every study's seed is derived from this (1) */
    int items;           /* item draw as simlab-analyze --items: 0 global,
                            1 per-condition, 2 none (users only) */
    int drop_singular;   /* as simlab-analyze --drop-singular: replicates
                            whose Pre (RE) fit is singular do not count */
    int progress;        /* 1: progress bar on stderr */
    int full_replicates; /* 1: never stop early (to check that the
                            curtailed decisions are the same) */
    PowerMethod method;  /* --test */
    int null_studies;    /* null studies per size for the false-positive
                            rate (every condition as the baseline, Post =
                            Pre); -1: as many as studies, 0: none */
    int coverage;        /* 1: also the 95 % CI coverage of the bootstrap
                            (all B replicates per study); the GLMM's and
                            the t test's is always measured */
    int glmm_cold;       /* 1: every mixed-model fit from lme4's start; 0:
                            the first study of each size and kind (power,
                            null) is fitted so, and the others start at its
                            optima (the same optima, about a third of the
                            work) */
    int correction;      /* the decisions over the tested conditions of a
                            study: POWER_CORRECTION_OWN (each test's own: the
                            t tests Holm's, the others none), _HOLM or _NONE
                            from the p-values (a bootstrap then draws all B
                            replicates) */
    /* Sequential looks (a study's primary test): n_looks > 0 simulates
    ** each study at the last look and tests it at every look (the first
    ** looks[j] participants per condition); sizes must be the looks. The
    ** rows per size are then the looks' fixed-design tests of the same
    ** studies, and PowerResult.seq the whole procedure's. */
    int n_looks;
    int looks[SIM_MAX_LOOKS];
    SimSpending spending;
} PowerOptions;

enum { POWER_CORRECTION_OWN = 0, POWER_CORRECTION_HOLM, POWER_CORRECTION_NONE };

/* Fills o with the defaults above (no sizes). */
void power_options_default(PowerOptions *o);

/* Parses "10,20,40" into o->sizes (ascending, distinct, each >= 2). */
int power_parse_sizes(const char *text, PowerOptions *o, SimError *err);

/* Checks o (sizes, studies, alpha, replicates enough to reject at alpha);
** SIM_ERR_USAGE with a message naming the option. */
int power_check_options(const PowerOptions *o, SimError *err);

/* The design of the simulated studies, as the caller read it off the
** study. Strings and arrays are borrowed for the run. */
typedef struct PowerDesign {
    const char *study_id;
    PowerTest test;
    int n_conds;
    const char *const *conds; /* condition ids */
    int base;                 /* the reference condition's index, or -1:
                                 the Utility and difference tests compare
                                 with it; Change tests every condition */
    const char *base_from;    /* where the reference came from ("--baseline",
                                 "the study's baseline (FILE)", ...) */
    int n_cells;              /* sessions of test trials (Utility; 1 for a
                                 plain test) */
    int n_items;              /* responses name items 0..n_items-1 */
    int within;               /* 1: participants in every condition */
    int vs_baseline;          /* 1: every test compares a condition with the
                                 reference, pre/post designs too (the mixed
                                 model's phase x condition interaction: the
                                 primary test's contrast) */
    /* per tested condition (power_tested() order), or NULL: the true value
    ** of the statistic (Change, Utility, difference) and of the mixed
    ** model's contrast (log-odds), for the coverage of the intervals */
    const double *truth, *truth_logit;
} PowerDesign;

/* One simulated answer that counts in the test. */
typedef struct PowerAnswer {
    int participant;   /* 0..n_participants-1 */
    int item;          /* 0..n_items-1 */
    uint8_t condition; /* the condition it was given in */
    uint8_t phase;     /* POWER_PHASE_* */
    uint8_t cell;      /* the session's cell (Utility), else 0 */
    uint8_t y;         /* 1: correct */
} PowerAnswer;

/* The responses of one simulated study: every participant's answers in
** the order given (the first answer per participant, item and phase is
** the one the Change test counts), and each participant's condition. */
typedef struct PowerTable {
    PowerAnswer *rows;
    size_t n_rows, cap_rows;
    int *cond_of; /* per participant: its condition (within-subject
                     designs: the first of its order) */
    int n_participants;
    size_t cap_part;
} PowerTable;

/* Adds participant n_participants in condition cond; returns its index,
** or -1 when out of memory. */
int power_table_participant(PowerTable *t, int cond);
/* Appends one answer of participant in condition cond; 0, or -1 when out
** of memory. */
int power_table_add(PowerTable *t, int participant, int cond, int item,
                    int phase, int cell, int y);
void power_table_free(PowerTable *t); /* empties t; NULL is a no-op */

/* Simulates one study of n participants per condition (within-subject
** designs: n participants, each in every condition) from study_seed
** into out (emptied by the caller: n_rows and n_participants are 0); a
** null study (null_study 1) has every condition at the baseline's
** accuracy and Post equal to Pre. It runs in several threads at once: ctx
** must be read-only. */
typedef int (*PowerSimulateFn)(void *ctx, int n, uint64_t study_seed,
                               int null_study, PowerTable *out, SimError *err);

/* One condition at one size. */
typedef struct PowerRow {
    const char *condition; /* borrowed from the result */
    int participants;      /* per condition */
    int studies;
    int rejections;
    double power;           /* rejections / studies */
    double ci_low, ci_high; /* Wilson 95 % interval of power */
    double mean_estimate;   /* mean full-sample statistic (Change,
                               Utility or difference) */
    double mean_replicates; /* bootstrap replicates used per study */
    /* participants to enrol in this condition to end with this many
    ** analysed (the screening's exclusion rate), with the range from its
    ** 95 % interval; NaN when not measured, INFINITY when every simulated
    ** participant was excluded */
    double enrol, enrol_low, enrol_high;
    /* the null studies of this size (none: null_studies 0, rate NaN) */
    int null_studies, null_rejections;
    double fpr, fpr_low, fpr_high; /* rejected share, Wilson 95 % */
    /* studies whose 95 % interval held the true value (NaN: not
    ** measured) */
    int covered;
    double coverage;
} PowerRow;

/* The smallest N reaching a target power, by linear interpolation of the
** power curve between sizes; low/high from the curves of the interval's
** upper and lower bounds. below: the first size already reaches it;
** above: no size reaches it (n is then NaN). */
typedef struct PowerN {
    double n, low, high;
    int below, above;
    int low_below; /* the interval's upper curve reaches it at the first
                      size already: low is that size or less */
} PowerN;

/* A tested condition: its results, and what the caller knows of it. */
typedef struct PowerCondition {
    char *id;
    /* population accuracies (truth, set by the caller): Pre and Post for
    ** the Change test; the baseline's and the condition's test accuracy
    ** for the others */
    double true_pre, true_post;
    double true_change; /* the true statistic: Post - Pre, the Utility
                           (ratio of the two) or their difference */
    double true_logit;  /* the mixed model's true contrast (log-odds) */
    int null_effect;    /* 1: the two have the same p (no effect) */
    /* pilot estimates (with pilot data): raw accuracies of the pilot's
    ** responses and their counts; NaN / 0 without pilot data */
    double pilot_pre, pilot_post;
    int pilot_pre_n, pilot_post_n, pilot_participants;
    PowerN n80, n90;
} PowerCondition;

/* The study's screening, measured by the caller by simulating
** participants through the real session (practice, quiz, catch trials,
** deadlines, its screening rules), per condition or for all conditions
** at once (within-subject designs). */
typedef struct PowerScreening {
    char condition[128]; /* a condition id, or "all" */
    int enrolled;        /* simulated participants */
    int analysed;        /* of them, completed and not excluded */
    double exclusion_rate, rate_low, rate_high; /* 1 - analysed / enrolled,
                                                   Wilson 95 % */
    long deadline_trials; /* choices asked with an answer deadline */
    long timeouts;        /* of them, not answered in time */
    double timeout_rate;  /* timeouts / deadline_trials; NaN without */
} PowerScreening;

/* The false-positive rate of a study's family of tests at one size: the
** null studies in which any tested condition was rejected. */
typedef struct PowerFamily {
    int null_studies, null_any;
    double fwer, fwer_low, fwer_high; /* Wilson 95 % */
} PowerFamily;

/* The whole sequential procedure (PowerOptions.n_looks > 0): boundaries at
** alpha, and over the simulated studies the rejections at any look and
** the analysed participants at which the studies stopped. */
typedef struct PowerSeq {
    int n_looks;
    int looks[SIM_MAX_LOOKS];
    SimSpending spending;
    double crit[SIM_MAX_LOOKS], spent[SIM_MAX_LOOKS]; /* at alpha */
    double power[POWER_MAX_CELLS];   /* per tested condition: any look */
    double fixed_n[POWER_MAX_CELLS]; /* the fixed design's N for the same
                                        power (NaN: not within the looks) */
    int studies, null_studies, null_any;
    double fpr, fpr_low, fpr_high;       /* any rejection at any look */
    double expected_n_h1, expected_n_h0; /* analysed per condition */
    double stop_h1[SIM_MAX_LOOKS], stop_h0[SIM_MAX_LOOKS]; /* share of the
                                        studies that stopped at each look */
} PowerSeq;

typedef struct PowerResult {
    char *study_id;
    PowerTest test;
    PowerMethod method;  /* the test used (never DEFAULT) */
    char *baseline;      /* the reference condition, or NULL */
    char *baseline_from; /* where it came from */
    int n_sessions;      /* sessions of test trials (Utility) */
    PowerOptions opt;
    int n_pilots;          /* pilot databases whose accuracies are the truth */
    PowerCondition *conds; /* the tested conditions */
    int n_conds;
    int n_design_conds; /* the design's conditions, the baseline too */
    PowerRow *rows;     /* size-major: rows[s * n_conds + c] */
    int n_rows;
    double participant_sd, item_sd; /* of the simulation (the caller's) */
    int within; /* 1: within-subject (participants in every condition) */
    PowerScreening *screening; /* power_set_screening(), or NULL */
    int n_screening;
    int vs_baseline;                     /* the design's (PowerDesign) */
    PowerFamily family[POWER_MAX_SIZES]; /* per size (null studies) */
    PowerSeq *seq;                       /* sequential looks, or NULL */
    const char *primary; /* the study's primary test this is ("glmm"), or
                            NULL: --test's or the design's default */
} PowerResult;

/* Simulates o->studies studies per size with fn and tests each. On
** success *out owns a new result (power_free) whose conditions have ids,
** rows and recommendations; the caller fills in the truth. */
int power_run(const PowerDesign *d, const PowerOptions *o, PowerSimulateFn fn,
              void *ctx, PowerResult **out, SimError *err);

void power_free(PowerResult *r); /* NULL is a no-op */

/* Copies the screening s (n entries) into r and sets every row's enrol:
** ceil(N / (1 - exclusion rate)) of its condition's entry (or the "all"
** entry), the range from the rate's interval. */
int power_set_screening(PowerResult *r, const PowerScreening *s, int n,
                        SimError *err);

/* The full-sample statistic of design d's test on the responses t, for
** the k-th tested condition into est[k] (n_est of them). */
int power_estimate(const PowerDesign *d, const PowerTable *t, double *est,
                   int n_est, SimError *err);

/* The tested conditions of d (indices into d->conds) into tested; returns
** their number: every condition for Change (but with vs_baseline), all but
** the baseline else.
** (The F test of POWER_METHOD_ANOVA has one row, "all conditions".) */
int power_tested(const PowerDesign *d, int *tested);

/* Wilson score interval for x of n at 95 %. */
void power_wilson(int x, int n, double *lo, double *hi);

/* Pilot data: per condition of conds, the raw accuracy of the non-excluded
** participants' Pre and Post responses (catch trials left out) in the
** simlab databases dbs: pre[c], post[c] (NaN without responses), their
** counts pre_n[c], post_n[c] and participants[c]. A condition of a pilot
** that is not in conds is an error, and so is a pilot without such
** responses. */
int power_read_pilots(const char *const *dbs, int n_dbs,
                      const char *const *conds, int n_conds,
                      const char *study_id, double *pre, double *post,
                      int *pre_n, int *post_n, int *participants,
                      SimError *err);

/* Writes power.json, power.md and power.{png,svg,pdf} into dir (created
** when missing). */
int power_write(const PowerResult *r, const char *dir, SimError *err);

/* The N at which tested condition c (an index into r->conds) reaches
** power target, as n80 and n90 are found. */
void power_n_for(const PowerResult *r, int c, double target, PowerN *out);

/* The tested condition with an effect whose sequential power is the
** smallest (the one a sequential design's size answers to); -1 without
** looks or when no condition has an effect. */
int power_seq_weakest(const PowerResult *r);

/* "<= 10", "> 80" or "34.5 (28.1 to 41.0)": n as power.md prints it. */
void power_n_text(const PowerResult *r, const PowerN *n, char *out,
                  size_t size);

#endif
