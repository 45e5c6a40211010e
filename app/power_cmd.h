/*
** `simlab power`: the command and its wiring to the study. The study's
** design is read off the bundle, its participants are simulated in memory
** -- schedules from experiment/schedule.h, answers from the mixed policy
** of experiment/simulate.h -- and handed as tables of responses to the
** statistical engine of the analysis library (analysis/power.h), which
** tests, summarises and writes. No SDL. See docs/power.md.
*/
#ifndef SIMLAB_APP_POWER_CMD_H
#define SIMLAB_APP_POWER_CMD_H

#include "analysis/power.h"
#include "common/sim_error.h"

typedef struct PowerStudyOptions {
    PowerOptions power; /* the engine's options */
    const char *bundle_dir;
    const char **cells; /* extra "CONDITION:PHASE=P" overrides */
    int n_cells;
    const char **pilots; /* pilot databases: their Pre and Post accuracies
                            per condition become the truth */
    int n_pilots;
    double participant_sd; /* < 0: the study's */
    double item_sd;        /* < 0: the study's */
    const char *baseline;  /* --baseline: the reference condition instead
                              of the study's baseline, or NULL */
} PowerStudyOptions;

/* Fills o with the defaults (power_options_default, the study's SDs). */
void power_study_options_default(PowerStudyOptions *o);

/* Loads the study, simulates and tests it. On success *out owns a new
** result (power_free) with the truth of every tested condition. */
int power_study_run(const PowerStudyOptions *o, PowerResult **out,
                    SimError *err);

/* The full-sample statistic of the study's test on a database of simlab
** (the responses of its non-excluded participants, catch trials left
** out), computed as for a simulated study: est[k] for the k-th tested
** condition of power_study_run's result (n_est of them). For checks
** against simlab-analyze. */
int power_study_estimate_db(const char *bundle_dir, const char *db, double *est,
                            int n_est, SimError *err);

/* `simlab power` argv (argv[0] is "power"); returns the exit status. */
int power_main(int argc, char **argv);

#endif
