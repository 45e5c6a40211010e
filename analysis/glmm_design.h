/*
** The mixed model simlab-analyze fits, read off the screened responses:
** which rows enter (kept participants, no catch trials, answered, the
** design's phases), the fixed effects (phase x condition for pre/post
** data, condition [+ session] for test data, treatment-coded against the
** baseline), the participant and item terms, and the random-effect
** structures tried in turn. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_GLMM_DESIGN_H
#define SIMLAB_ANALYSIS_GLMM_DESIGN_H

#include "analysis/compute.h"
#include "analysis/glmm.h"

enum {
    GLMM_PREPOST, /* pre and post rows: phase * condition */
    GLMM_TEST,    /* test rows: condition (+ session) */
    GLMM_POST     /* post rows only: condition */
};

/* Random-effect structures, richest first: the participant term with its
** slopes and their correlations, without the correlations (lme4's ||),
** intercepts only. A design without slopes has only the last. */
enum { GLMM_FULL, GLMM_UNCORRELATED, GLMM_INTERCEPTS, GLMM_N_STRUCTURES };

/* What a fixed-effect column stands for. */
enum {
    GLMM_COL_INTERCEPT,
    GLMM_COL_PHASE,
    GLMM_COL_CONDITION,
    GLMM_COL_INTERACTION,
    GLMM_COL_SESSION
};

#define GLMM_NAME_MAX 96

typedef struct GlmmDesign {
    int kind;    /* GLMM_PREPOST, GLMM_TEST or GLMM_POST */
    int within;  /* condition slopes in the participant term */
    int n;       /* observations */
    size_t *row; /* the dataset row of each */
    uint8_t *y;
    int *part, *item; /* levels */
    int n_part, n_item;
    int p;
    double *X;                    /* n x p */
    char (*names)[GLMM_NAME_MAX]; /* R's names: "phasepost:conditionlime" */
    int *col_kind;                /* GLMM_COL_* */
    int *col_cond;                /* condition index of a column, or -1 */
    int base;                     /* the baseline's condition index */
    int kz;                       /* columns of the participant term */
    double *z;                    /* n x kz: 1, then the slopes */
    char (*znames)[GLMM_NAME_MAX];
    int dropped; /* fixed-effect columns left out as aliased */
} GlmmDesign;

/* Builds the design from the screened responses. d->n is 0 (and the
** result SIM_OK) when the data have no pre/post, test or post rows; then
** *why says so. Free with glmm_design_free() either way. */
int glmm_design_build(const Dataset *ds, const Screen *sc, GlmmDesign *d,
                      const char **why, SimError *err);
void glmm_design_free(GlmmDesign *d);

/* Whether structure st is one this design tries (only intercepts without
** slopes). */
int glmm_design_has(const GlmmDesign *d, int st);

/* The model of structure st: m borrows d's arrays. */
void glmm_design_model(const GlmmDesign *d, int st, GlmmModel *m);

/* The formula in lme4's syntax, e.g. "correct ~ phase * condition + (1 +
** phasepost | participant) + (1 | item)": the slopes are the numeric
** dummies of the report's R script (glmm_r.c). */
void glmm_design_formula(const GlmmDesign *d, int st, char *buf, size_t size);

/* name as R code: as it is when it is a syntactic name, else in
** backquotes ("`conditiontext-only`"). */
void glmm_r_name(const char *name, char *out, size_t size);

/* The optimum of each structure fitted to one data set, (theta, beta) and
** the Hessian there: where the fits of data sets like it start (simlab
** power fits a pilot study of each size and starts the others there). */
typedef struct GlmmWarm {
    int have[GLMM_N_STRUCTURES];
    int n_theta[GLMM_N_STRUCTURES];
    int p;
    double *theta[GLMM_N_STRUCTURES];
    double *beta[GLMM_N_STRUCTURES];
    double *hess[GLMM_N_STRUCTURES]; /* (n_theta + p)^2 */
} GlmmWarm;

void glmm_warm_free(GlmmWarm *w); /* empties w; NULL is a no-op */

/* How glmm_fit_design() searches; NULL: as the report does, each
** structure from lme4's start (a simpler one from the SDs of the richer
** one's fit), every fit complete. */
typedef struct GlmmFitOptions {
    /* Start each structure's search at its optimum in warm (a simpler one
    ** at the richer one's fit of these data, with warm's Hessian) when
    ** warm has it for this design's shape; same optimum, fewer
    ** evaluations. NULL: lme4's start. */
    const GlmmWarm *warm;
    /* Fit every structure, also those after the one kept, and store each
    ** one's optimum here (emptied first). NULL: none. */
    GlmmWarm *record;
    /* A structure left for a simpler one because its participant term is
    ** singular stops before its standard errors: for a caller that needs
    ** only the fit kept (tried rows then say converged 0). */
    int kept_only;
    /* Threads of each fit's passes (GlmmModel.threads); 0 or 1: the
    ** caller's alone. */
    int threads;
    /* Called after each deviance evaluation with the structure being
    ** fitted and its evaluations so far (NULL: none). */
    void (*progress)(void *ctx, int structure, int n_evals);
    void *progress_ctx;
} GlmmFitOptions;

/* Fits the structures d tries, richest first, and keeps the first that is
** neither singular in the participant term nor unconverged (else the last
** one tried): the report's rule (glmm_report.c). On success *fit owns the
** fit kept (glmm_fit_free(); zeroed when none was tried), *m is its model
** (borrowing d's arrays) and *chosen its structure (-1: none); tried (may
** be NULL, else GLMM_N_STRUCTURES rows) gets every fit tried and *n_tried
** their number. fo (may be NULL) says how to search. */
int glmm_fit_design(const GlmmDesign *d, const GlmmFitOptions *fo, GlmmFit *fit,
                    GlmmModel *m, int *chosen, GlmmTryRow *tried, int *n_tried,
                    SimError *err);

/* An R script (glmm_r.c) that refits the model of r->glmm (fitted to d
** under run o) with lme4 from the exported CSV of ds; *out owns it
** (sim_free). Returns 0, or -1 when out of memory. */
int glmm_r_script(const Dataset *ds, const Screen *sc, const GlmmDesign *d,
                  const AnalyzeOptions *o, const Report *r, char **out);

/* A term's row: name, estimate and SE, with z, the two-sided p and the
** Wald 95 % interval on the log-odds scale. */
void glmm_term_wald(GlmmTermRow *t, const char *name, double estimate,
                    double se);

/* "full", "uncorrelated" or "intercepts". */
const char *glmm_structure_name(int st);

#endif
