/*
** Interactions with explanations given on request or on hover, for
** simlab-analyze: read from the interaction table of a simlab database (or
** X.interactions.csv beside an exported X.csv, with X.csv's correctness
** and response times) and kept with the Dataset as one record per step
** that offered one (Dataset.views, analysis/views.h). compute_interactions()
** (compute.h) summarises them per condition. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_INTERACTIONS_H
#define SIMLAB_ANALYSIS_INTERACTIONS_H

#include <stddef.h>

#include "analysis/dataset.h"
#include "analysis/views.h"

/* Appends the views of the database at path (none before schema 9). */
int interactions_load_db(Dataset *ds, const char *path, SimError *err);

/* Appends the views of X.interactions.csv beside csv_path (X.csv) when it
** exists, with X.csv's correct and rt_ms. Errors name file, line, column. */
int interactions_load_csv(Dataset *ds, const char *csv_path, SimError *err);

#endif
