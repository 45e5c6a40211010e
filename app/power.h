/*
** `simlab power`: Monte Carlo power of a study's primary test. For each
** sample size N (participants per condition) it simulates complete studies
** in memory -- schedules from experiment/schedule.h, answers from the mixed
** policy of experiment/simulate.h -- and tests each with the crossed
** bootstrap of analysis/boot.h, stopping a study's replicates once the
** decision at alpha is certain (curtailed Besag-Clifford sampling: the same
** decisions as all B replicates). The test is the study's primary test, as
** simlab-analyze computes it: Change = Post - Pre (RE) != 0 per condition
** (pre/post designs), Utility != 1 per condition (sessions of test trials,
** e.g. the meta-predictor preset), or else accuracy - baseline accuracy != 0
** per condition (one plain test). No SDL; threads over studies. See
** docs/power.md.
*/
#ifndef SIMLAB_APP_POWER_H
#define SIMLAB_APP_POWER_H

#include <stdint.h>
#include <stdio.h>

#include "common/sim_error.h"

#define POWER_MAX_SIZES 32
#define POWER_MAX_CELLS 64

typedef struct PowerOptions {
    const char *bundle_dir;
    int sizes[POWER_MAX_SIZES]; /* participants per condition, ascending */
    int n_sizes;
    int studies;        /* simulated studies per size */
    double alpha;       /* two-sided level (0.05) */
    int replicates;     /* bootstrap replicates at most per study (1000) */
    int threads;        /* worker threads over studies (1) */
    uint64_t seed;      /* everything is drawn from this (1) */
    const char **cells; /* extra "CONDITION:PHASE=P" overrides */
    int n_cells;
    const char **pilots; /* pilot databases: their Pre and Post accuracies
                            per condition become the truth */
    int n_pilots;
    double participant_sd; /* < 0: the study's */
    double item_sd;        /* < 0: the study's */
    int items;             /* item draw as simlab-analyze --items: 0 global,
                              1 per-condition, 2 none (users only) */
    int drop_singular;     /* as simlab-analyze --drop-singular: replicates
                              whose Pre (RE) fit is singular do not count */
    int progress;          /* 1: progress bar on stderr */
    int full_replicates;   /* 1: never stop early (to check that the
                              curtailed decisions are the same) */
} PowerOptions;

/* The simulated test, by the study's design. */
typedef enum PowerTest {
    POWER_TEST_CHANGE = 0,    /* Pre and Post blocks: Change != 0 */
    POWER_TEST_UTILITY = 1,   /* test blocks in sessions: Utility != 1 */
    POWER_TEST_DIFFERENCE = 2 /* plain test blocks: accuracy - baseline's */
} PowerTest;

/* Fills o with the defaults above (no bundle, no sizes). */
void power_options_default(PowerOptions *o);

/* Parses "10,20,40" into o->sizes (ascending, distinct, each >= 2). */
int power_parse_sizes(const char *text, PowerOptions *o, SimError *err);

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

typedef struct PowerCondition {
    char *id;
    /* population accuracies (truth): Pre and Post for the Change test; the
    ** baseline's and the condition's test accuracy for the others */
    double true_pre, true_post;
    double true_change; /* the true statistic: Post - Pre, the Utility
                           (ratio of the two) or their difference */
    int null_effect;    /* 1: the two have the same p (no effect) */
    /* pilot estimates (with --pilot): raw accuracies of the pilot's
    ** responses and their counts; NaN / 0 without pilot data */
    double pilot_pre, pilot_post;
    int pilot_pre_n, pilot_post_n, pilot_participants;
    PowerN n80, n90;
} PowerCondition;

typedef struct PowerResult {
    char *study_id;
    PowerTest test;
    char *baseline; /* the baseline condition (not for Change) */
    int n_sessions; /* sessions of test trials (Utility) */
    PowerOptions opt;
    PowerCondition *conds;
    int n_conds;
    PowerRow *rows; /* size-major: rows[s * n_conds + c] */
    int n_rows;
    double participant_sd, item_sd; /* used by the simulation */
} PowerResult;

/* Runs the simulation. On success *out owns a new result (power_free). */
int power_run(const PowerOptions *o, PowerResult **out, SimError *err);

void power_free(PowerResult *r); /* NULL is a no-op */

/* The full-sample statistic of the study's test on a database of simlab
** (the responses of its non-excluded participants, catch trials left
** out), computed as for a simulated study: est[k] for the k-th tested
** condition of power_run's result (n_est of them). For checks against
** simlab-analyze. */
int power_estimate_db(const char *bundle_dir, const char *db, double *est,
                      int n_est, SimError *err);

/* Wilson score interval for x of n at 95 %. */
void power_wilson(int x, int n, double *lo, double *hi);

/* Writes power.json, power.md and power.{png,svg,pdf} into dir (created
** when missing). */
int power_write(const PowerResult *r, const char *dir, SimError *err);

/* `simlab power` argv (argv[0] is "power"); returns the exit status. */
int power_main(int argc, char **argv);

#endif
