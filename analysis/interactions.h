/*
** Interactions with explanations given on request or on hover, for
** simlab-analyze: read from the interaction table of a simlab database (or
** X.interactions.csv beside an exported X.csv, with X.csv's correctness
** and response times) and kept with the Dataset as one record per step
** that offered one (Dataset.views). compute_interactions() (compute.h)
** summarises them per condition. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_INTERACTIONS_H
#define SIMLAB_ANALYSIS_INTERACTIONS_H

#include <stddef.h>

#include "analysis/dataset.h"

/* One step that offered an explanation on request or on hover. */
typedef struct IView {
    int participant; /* string id of the participant's name */
    int condition;   /* string id */
    int trial;       /* 1-based, as in the long format */
    int viewed;      /* revealed, or a value hovered */
    double view_ms;  /* time shown (revealed to hidden, hovered to left;
                        still shown: to the response), 0 when not viewed */
    int correct;     /* the step's answer: 1, 0, or -1 when not scored */
} IView;

struct DatasetViews {
    IView *v;
    size_t n, cap;
};

/* Appends the views of the database at path (none before schema 9). */
int interactions_load_db(Dataset *ds, const char *path, SimError *err);

/* Appends the views of X.interactions.csv beside csv_path (X.csv) when it
** exists, with X.csv's correct and rt_ms. Errors name file, line, column. */
int interactions_load_csv(Dataset *ds, const char *csv_path, SimError *err);

void interactions_free(struct DatasetViews *v); /* NULL: no-op */

#endif
