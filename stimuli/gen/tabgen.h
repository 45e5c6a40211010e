/*
** The tabular demo domain: a synthetic census-like table (age, education,
** occupation, marital status, hours, capital gain, work class) whose income
** class follows a noisy rule with a peak in middle age, and a small neural
** network (one tanh hidden layer) trained on it. Pure C, no I/O.
*/
#ifndef SIMLAB_STIMULI_GEN_TABGEN_H
#define SIMLAB_STIMULI_GEN_TABGEN_H

#include <stddef.h>

#include "common/sim_error.h"
#include "common/sim_rng.h"

#define TAB_NF       7  /* features per row */
#define TAB_HIDDEN   8  /* hidden units of the network */
#define TAB_MAX_CATS 5  /* categories per categorical feature */
#define TAB_NIN      21 /* network inputs: 2 numeric + 19 one-hot */

enum { TAB_ABOVE = 0, TAB_BELOW = 1 }; /* class indices */

enum {
    TAB_AGE = 0,
    TAB_WORKCLASS = 1,
    TAB_EDUCATION = 2,
    TAB_MARITAL = 3,
    TAB_OCCUPATION = 4,
    TAB_GAIN = 5,
    TAB_HOURS = 6
};

/* A row: numeric features hold their value, categorical ones the category
** index. */
typedef struct TabRow {
    int v[TAB_NF];
    int label; /* TAB_ABOVE or TAB_BELOW */
} TabRow;

typedef struct TabModel {
    double w1[TAB_HIDDEN][TAB_NIN];
    double b1[TAB_HIDDEN];
    double w2[TAB_HIDDEN];
    double b2;
    double mean[2], sd[2]; /* standardisation of age and hours */
} TabModel;

const char *tabgen_feature_name(int f);
int tabgen_is_numeric(int f);
int tabgen_n_categories(int f); /* 0 for numeric features */
const char *tabgen_category(int f, int c);

/* The value as shown to participants ("37", "Masters"). OUT: buf. */
void tabgen_value_text(int f, int value, char *buf, size_t n);

/* Draws one person. */
void tabgen_sample(SimRng *rng, TabRow *out);

/* Trains the network on n rows by full-batch Adam on the logistic loss;
** rng initialises the weights. */
int tabgen_train(const TabRow *rows, int n, SimRng *rng, TabModel *out,
                 SimError *err);

/* P(above $50K) for a row. */
double tabgen_prob(const TabModel *m, const TabRow *row);

/* TAB_ABOVE when P(above) >= 0.5, else TAB_BELOW. */
int tabgen_predict(const TabModel *m, const TabRow *row);

#endif
