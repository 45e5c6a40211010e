/*
** Model-agnostic explanation machinery shared by the text and tabular demo
** studies: LIME's local weighted linear surrogate over binary
** "feature kept / feature as in the instance" vectors, and a greedy
** anchor search. Both only query the model through callbacks.
*/
#ifndef SIMLAB_STIMULI_GEN_SURROGATE_H
#define SIMLAB_STIMULI_GEN_SURROGATE_H

#include <stdint.h>

#include "common/sim_error.h"
#include "common/sim_rng.h"

#define SURR_MAX_FEATURES 32 /* interpretable features per instance */

/* A fitted local surrogate: output(z) = intercept + sum_k weight[k] z[idx[k]]
** over the selected features. */
typedef struct SurrogateFit {
    int n_selected;             /* K (<= requested) */
    int idx[SURR_MAX_FEATURES]; /* selected feature indices, by |weight| */
    double weight[SURR_MAX_FEATURES];
    double intercept;
    double output;  /* surrogate at the instance (all features present) */
    double r2;      /* weighted R^2 of the K-feature fit on the sample */
    double r2_full; /* weighted R^2 of the fit on all d features */
    double model;   /* the model's own output at the instance */
} SurrogateFit;

/* Solves min sum_i w_i (y_i - b - x_i.beta)^2 + alpha |beta|^2 (intercept
** not penalised) for n rows of d columns (X row-major). OUT: beta (d),
** *intercept, *r2 (weighted R^2; may be NULL). Returns SIM_OK, or
** SIM_ERR_INVALID when the system is singular. */
int surrogate_ridge(const double *X, const double *y, const double *w, int n,
                    int d, double alpha, double *beta, double *intercept,
                    double *r2, SimError *err);

/* LIME's fit: Z (n x d binary, row 0 = the instance), model outputs y and
** kernel weights w. Fits ridge (alpha 1) on all d features, keeps the k
** with the largest |weight| ("highest weights"), refits on those. */
int surrogate_lime(const double *Z, const double *y, const double *w, int n,
                   int d, int k, SurrogateFit *out, SimError *err);

/* The positions 0..n_selected-1 of fit's weights, largest weight first
** (ties keep their order), as LIME's sheets list them. OUT: order. */
void surrogate_order_by_weight(const SurrogateFit *fit, int *order);

/* The anchor search asks this for the precision of an anchor: the share of
** perturbations that keep the features in anchor[0..n_anchor) whose model
** output equals the instance's, estimated from n_samples draws of rng. */
typedef double (*SurrogatePrecisionFn)(void *ctx, const int *anchor,
                                       int n_anchor, int n_samples,
                                       SimRng *rng);

typedef struct AnchorResult {
    int n;                      /* conditions in the anchor */
    int idx[SURR_MAX_FEATURES]; /* feature indices, in the order added */
    double precision;           /* re-estimated on fresh samples */
} AnchorResult;

/* Greedy anchor search over d candidate features: starting from the empty
** anchor, adds the feature whose anchor has the highest estimated precision
** (ties: lowest index) until precision >= threshold or max_len features.
** Each candidate is scored on n_samples draws from a stream seeded by
** (seed, step * d + feature); the final precision uses 4 * n_samples draws. */
void surrogate_anchor(void *ctx, SurrogatePrecisionFn precision, int d,
                      double threshold, int max_len, int n_samples,
                      uint64_t seed, AnchorResult *out);

/* A running summary of the explanations written for a study: means and
** minima over the explained items, for the generator's report. */
typedef struct SurrogateStats {
    int n_explained;                  /* items added */
    double lime_r2_mean, lime_r2_min; /* K-feature surrogates */
    double lime_full_r2_mean;         /* all-feature surrogates */
    double lime_abs_gap_mean;         /* |surrogate output - model| at x */
    double lime_side_agree; /* share of items whose surrogate output is on
                               the model's side of 0.5 */
    double anchor_prec_mean, anchor_prec_min, anchor_len_mean;
    double anchor_cov_mean;
} SurrogateStats;

/* Adds one explained item to s (zeroed to start): its LIME fit (whose
** output estimates the probability of class 0), whether the model predicts
** class 0, its anchor and the anchor's coverage. */
void surrogate_stats_add(SurrogateStats *s, const SurrogateFit *fit,
                         int predicts_class0, const AnchorResult *anchor,
                         double coverage);

#endif
