/*
** Questionnaire answers for simlab-analyze: read from the answer table of a
** simlab database or from X.questionnaire.csv beside an exported X.csv, and
** kept with the Dataset (Dataset.answers). compute_questionnaire()
** (compute.h) summarises them. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_QUESTIONNAIRE_H
#define SIMLAB_ANALYSIS_QUESTIONNAIRE_H

#include <stddef.h>

#include "analysis/answers.h"
#include "analysis/dataset.h"

/* Appends the answers of the database at path (none before schema 4). */
int questionnaire_load_db(Dataset *ds, const char *path, SimError *err);

/* Appends the answers of X.questionnaire.csv beside csv_path (X.csv) when
** that file exists. Errors name the file, line and column. */
int questionnaire_load_csv(Dataset *ds, const char *csv_path, SimError *err);

#endif
