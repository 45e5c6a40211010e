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
#include "stimuli/study.h"

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
    int screening;         /* participants per condition simulated through
                              the real session for the exclusion and
                              timeout rates (enrol); 0: not measured */
    /* The study's primary test (study.json "analysis": its test, alpha,
    ** correction and sequential looks) instead of --test's or the
    ** design's: 1 with --test primary; -1 (the default) when the study
    ** has an "analysis" block and no --test was given. */
    int primary;
} PowerStudyOptions;

/* Fills o with the defaults (power_options_default, the study's SDs). */
void power_study_options_default(PowerStudyOptions *o);

/* Loads the study, simulates and tests it. On success *out owns a new
** result (power_free) with the truth of every tested condition. */
int power_study_run(const PowerStudyOptions *o, PowerResult **out,
                    SimError *err);

/* The full-sample statistic of the study's test (Utility, difference or
** paired difference) on a database of simlab (the responses of its
** non-excluded participants, catch trials left out), computed as for a
** simulated study: est[k] for the k-th tested condition of
** power_study_run's result (n_est of them). For checks against
** simlab-analyze. */
int power_study_estimate_db(const char *bundle_dir, const char *db, double *est,
                            int n_est, SimError *err);

/* The study's screening (power_enrol.c): n simulated participants per
** condition (within-subject: n, each in every condition) enrolled in a
** temporary store and run through the real session with the mixed policy
** of spec (item effects from seed); per condition (within-subject: one
** entry "all") the enrolled and analysed participants and the answers
** with a deadline and their timeouts. On success *out owns *n_out entries
** (sim_free). */
int power_enrol_measure(const Study *st, const SimulationSpec *spec, int within,
                        int n, uint64_t seed, PowerScreening **out, int *n_out,
                        SimError *err);

/* s as a whole decimal number in [lo, hi] into *out: 0, or -1 (*out
** untouched). For the commands' options. */
int power_cmd_parse_long(const char *s, long lo, long hi, long *out);

/* Loads and checks the study bundle dir (its errors printed to stderr,
** located); on success *st owns it (study_free). */
int power_study_load(const char *dir, Study **st, SimError *err);

/* `simlab power` argv (argv[0] is "power"); returns the exit status. */
int power_main(int argc, char **argv);

#endif
