/*
** The tabular demo studies (tabular-forward, tabular-counterfactual):
** synthetic census rows, the income network, LIME-style feature weights,
** anchor rules and counterfactual edits, all found by querying the network.
*/
#ifndef SIMLAB_STIMULI_GEN_TABSTUDY_H
#define SIMLAB_STIMULI_GEN_TABSTUDY_H

#include <stdint.h>

#include <jansson.h>

#include "common/sim_error.h"
#include "stimuli/gen/surrogate.h"
#include "stimuli/gen/tabgen.h"

#define TAB_LIME_SAMPLES 1000 /* perturbations per LIME fit */
#define TAB_LIME_K       5    /* features shown */

typedef struct TabStudy TabStudy;

typedef struct TabReport {
    double train_acc, test_acc;
    SurrogateStats expl;          /* LIME fits and anchors written */
    double lime_agree;            /* mean share of LIME samples where the
                                     surrogate's side of 0.5 = the model's */
    int n_cf_single, n_cf_double; /* counterfactuals with 1 or 2 edits */
} TabReport;

/* Generates the table and trains the network (deterministic in seed). */
int tabstudy_make(uint64_t seed, TabStudy **out, SimError *err);
void tabstudy_free(TabStudy *ts); /* NULL is a no-op */

const TabModel *tabstudy_model(const TabStudy *ts);

/* LIME for tables: features sampled from the training marginals, binary
** "same bin or category as the instance" representation, Euclidean kernel
** of width 0.75 sqrt(7), ridge, the TAB_LIME_K highest weights refitted.
** OUT: fit (feature indices are TAB_* constants), *agree (may be NULL):
** share of the weighted samples on which the surrogate and the model agree
** about the side of 0.5. */
int tabstudy_lime(const TabStudy *ts, const TabRow *row, uint64_t seed,
                  SurrogateFit *fit, double *agree, SimError *err);

/* Parses an item input ([{"name", "value"}...]) back into a row. Returns
** SIM_OK or SIM_ERR_PARSE naming the feature. */
int tabstudy_parse_row(const json_t *input, TabRow *row, SimError *err);

/* Writes root/tabular-forward and root/tabular-counterfactual. */
int tabstudy_write(TabStudy *ts, const char *root, uint64_t seed,
                   TabReport *report, SimError *err);

#endif
