/*
** Internal to simlab power's engine (power.c, power_test.c, power_glmm.c):
** the per-study tests and a worker's buffers. analysis/ and common/ only.
*/
#ifndef SIMLAB_ANALYSIS_POWER_INT_H
#define SIMLAB_ANALYSIS_POWER_INT_H

#include "analysis/boot.h"
#include "analysis/power.h"

/* What every test of one run needs (read-only while threads run). */
typedef struct PowerTestCtx {
    const PowerDesign *d;
    const PowerOptions *o;
    PowerMethod method;          /* never POWER_METHOD_DEFAULT */
    int n_tests;                 /* tested conditions (columns) */
    int tested[POWER_MAX_CELLS]; /* their condition indices */
} PowerTestCtx;

struct GlmmWarm; /* glmm_design.h */

/* One worker's buffers, grown as needed. */
typedef struct PowerBuf {
    PowerTable table;
    PowerTable full; /* sequential looks: the study at the last look, of
                        which table holds a look's participants */
    int *rank;       /* per participant of full: its rank in its
                        condition (within: its index) */
    size_t cap_rank;
    /* the mixed model's searches of this study: start at glmm_warm (a
    ** pilot study's optima; NULL: lme4's start); record: this is a pilot,
    ** keep its optima there */
    const struct GlmmWarm *glmm_warm;
    struct GlmmWarm *glmm_record;
    uint8_t *pre, *post; /* [participant * n_items + item], 255 = none */
    size_t *unit_off;
    BootPair *pairs;
    int *item_map, *item_group;
    size_t cap_units;
    BootPair *tpairs;
    size_t cap_tpairs;
    int *key_map, *tgroup; /* [cell * n_items + item] -> compact item */
    size_t cap_keys;
    double *reps; /* all replicates of a study (coverage) */
    size_t cap_reps;
} PowerBuf;

void power_buf_free(PowerBuf *b); /* empties b */

/* The outcome of one study per tested condition (n_tests each). */
typedef struct PowerOutcome {
    unsigned char *reject;  /* 1: p <= alpha (may be NULL: estimate only) */
    double *estimate;       /* full-sample statistic (GLMM: log-odds) */
    unsigned char *covered; /* 1: the 95 % interval held the truth, 2: not
                               measured (may be NULL) */
    int *reps_used;         /* bootstrap replicates drawn (may be NULL) */
    double *p; /* two-sided p per tested condition, NaN when none (may be
                  NULL); exact when PowerOptions.correction asks for it */
} PowerOutcome;

/* Tests the study in b->table with x's method; study_seed seeds its
** bootstrap; null_study: the truth is the null (for the coverage). */
int power_test_study(const PowerTestCtx *x, PowerBuf *b, uint64_t study_seed,
                     int null_study, PowerOutcome *out, SimError *err);

/* The mixed model's Wald test of the study in t (power_glmm.c): the
** design, screening and fit of simlab-analyze's report; per tested
** condition the contrast (Pre/Post designs: Post against Pre in that
** condition; else the condition against the baseline) into estimate[k],
** its 95 % Wald interval lo[k], hi[k] and p[k] (NaN when the model has no
** such contrast). The fits start at b->glmm_warm, or record into
** b->glmm_record (GlmmFitOptions). */
int power_glmm_test(const PowerTestCtx *x, const PowerBuf *b, double *estimate,
                    double *lo, double *hi, double *p, SimError *err);

/* n empty sets of a mixed model's optima (NULL: out of memory), the
** one at index i, and their release (NULL is a no-op). */
struct GlmmWarm *power_glmm_warm_new(int n);
struct GlmmWarm *power_glmm_warm_at(struct GlmmWarm *w, int i);
void power_glmm_warm_free(struct GlmmWarm *w, int n);

#endif
