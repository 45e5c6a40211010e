/*
** Internal to simlab_analysis: what the computations of analyze_compute()
** share -- the screened participants, the bootstrap summary of one
** statistic -- and the computations themselves, one file each (screen.c,
** change.c, utility.c, anova.c, accuracy.c, ratings.c, rt.c, items.c,
** within.c). Each fills its typed rows of the Report and appends its tables
** (analysis/table.h). Not installed for callers outside analysis/.
*/
#ifndef SIMLAB_ANALYSIS_COMPUTE_H
#define SIMLAB_ANALYSIS_COMPUTE_H

#include <stdint.h>

#include "analysis/dataset.h"
#include "analysis/report.h"

/* The participants left after screening and the conditions. */
typedef struct Screen {
    int *keep;  /* per participant */
    int *conds; /* condition string ids, baseline first */
    int n_conds;
    int base;        /* condition index of the baseline (0), or -1 */
    int *cond_index; /* string id -> condition index, or -1 */
    int n_strings;
    int within;     /* 1: within-subjects design (screen_design) */
    int incomplete; /* within: participants not in every condition */
} Screen;

/* Screens the participants of ds under o into s (free with screen_free()
** either way) and fills r's counts and exclusions with their tables. */
int screen_participants(const Dataset *ds, const AnalyzeOptions *o, Report *r,
                        Screen *s, SimError *err);
void screen_free(Screen *s);
/* 0 when screening left at least one participant. Otherwise err says, per
** reason, how many were left out and the flag that keeps them ("3
** simulated (keep them with --include-simulated)"), and the result is 1
** when a flag (--include-pilot, --include-simulated) would keep some, 2
** when all were excluded by the engine or the catch rule (the exclusions
** table is then the report). */
int screen_none_left(const Report *r, SimError *err);

/* Classifies the screened participants' design (within.c): between-subjects
** (each in one condition, or fewer than half in several: a warning) or
** within-subjects (at least half in several conditions; those in fewer
** than all are counted in s->incomplete) -- sets s->within and appends
** the "design" table. */
int screen_design(const Dataset *ds, Screen *s, Report *r, SimError *err);

/* Participant accuracy per condition for within designs: on test trials
** (catch trials excluded) when the screened data have any, else on post
** trials (*phase, -1 when neither). On success *acc owns n_part x n_conds
** values (NaN: no trials in that condition) and *part the participant
** indices; free both with sim_free(). */
int within_accuracy(const Dataset *ds, const Screen *sc, int *phase,
                    double **acc, int **part, int *n_part, SimError *err);

/* Summary of one bootstrap column. */
typedef struct Summary {
    double mean, lo, hi, p;
    int valid;
} Summary;

/* Summarises column col of the B x stride replicate matrix reps: mean, 95 %
** percentile interval and p for H0: value = null (on the log scale when
** log_scale; Hase & Bansal's rule when p_hase). tmp holds B doubles. */
void summarise(const double *reps, int B, int stride, int col, double null,
               int p_hase, int log_scale, double *tmp, Summary *s);

/* The computations, in the order of the report. Each returns SIM_OK, or an
** error with r holding what was computed before it. */
int compute_change(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                   Report *r, SimError *err);
int compute_utility(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err);
int compute_anova(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                  Report *r, SimError *err);
int compute_ratings(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err);
int compute_rt(const Dataset *ds, const Screen *sc, Report *r, SimError *err);
/* Questionnaire answers of the screened participants per condition
** (questionnaire.c): number and likert summaries, choice counts, text
** answer counts; no tables when there are no answers. */
int compute_questionnaire(const Dataset *ds, const Screen *sc, Report *r,
                          SimError *err);
/* Paired t tests of every condition against the baseline (within.c). */
int compute_paired(const Dataset *ds, const Screen *sc, Report *r,
                   SimError *err);
/* Participant accuracy per condition and phase with its 95 % t interval
** (accuracy.c). */
int compute_accuracy(const Dataset *ds, const Screen *sc, Report *r,
                     SimError *err);
/* Item analysis for piloting: accuracy per item overall and per condition,
** item-rest correlation, ceiling / floor / below-chance flags (items.c). */
int compute_items(const Dataset *ds, const Screen *sc, Report *r,
                  SimError *err);
/* Explanations on request or on hover per condition (interactions.c):
** steps offered, the share viewed, the median view time, accuracy with
** and without a view; no table without such steps. */
int compute_interactions(const Dataset *ds, const Screen *sc, Report *r,
                         SimError *err);
/* Timeouts per condition and phase, and confidence per condition
** (timeouts.c). */
int compute_timeouts(const Dataset *ds, const Screen *sc, Report *r,
                     SimError *err);
/* Detecting the model's errors on verify trials per condition (verify.c):
** accuracy, hit and false-alarm rates, d', criterion and the AUROC of the
** answer with its confidence, with crossed-bootstrap intervals; no table
** without verify trials. */
int compute_error_detection(const Dataset *ds, const AnalyzeOptions *o,
                            const Screen *sc, Report *r, SimError *err);
/* The mixed model correct ~ condition * model_correct + (1 | participant)
** + (1 | item) on verify trials (verify_glmm.c); none with --no-glmm or
** without verify trials. */
int compute_verify_glmm(const Dataset *ds, const AnalyzeOptions *o,
                        const Screen *sc, Report *r, SimError *err);
/* The human-AI team per condition (team.c): decide trials with advice and
** binary verify trials as team decisions, against the model alone and the
** humans alone, complementarity; no table without such trials. */
int compute_team(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                 Report *r, SimError *err);
/* Accuracy on trials with per-item answer options against the chance
** level 1 / options per condition (team.c); no table without them. */
int compute_distinction(const Dataset *ds, const AnalyzeOptions *o,
                        const Screen *sc, Report *r, SimError *err);

/* The mixed-effects logistic model (glmm_report.c): the design from the
** screened responses, the random-effect structures tried in turn, the
** Wald table with odds ratios and the random effects. */
int compute_glmm(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                 Report *r, SimError *err);
/* --calibrate N (calibrate.c): N null studies simulated from the fitted
** mixed model, each analysed with every test of the report; the rejection
** rate of each test goes under its table and into "calibration". */
int calibrate_report(const Dataset *ds, const AnalyzeOptions *o,
                     const Screen *sc, Report *r, SimError *err);

/* The primary test (primary.c): the study's (or --primary's, or the
** default mixed model's) contrasts from the tables computed before, Holm's
** adjustment and the decisions, at a sequential look with its boundary;
** compared with --plan. A test the data cannot have is an error. */
int compute_primary(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err);
/* The primary test's tables (primary_tables.c), put first in the report;
** the published tables (Change, Utility) under their own heading with
** their measured size. After --calibrate. */
int primary_tables(Report *r, SimError *err);

/* 64-bit key of two ints. */
static inline uint64_t compute_key2(int a, int b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

#endif
