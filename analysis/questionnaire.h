/*
** Questionnaire answers for simlab-analyze: read from the answer table of a
** simlab database or from X.questionnaire.csv beside an exported X.csv, and
** kept with the Dataset (Dataset.answers). compute_questionnaire()
** (compute.h) summarises them. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_QUESTIONNAIRE_H
#define SIMLAB_ANALYSIS_QUESTIONNAIRE_H

#include <stddef.h>

#include "analysis/dataset.h"

enum { QA_NUMBER = 0, QA_CHOICE, QA_LIKERT, QA_TEXT, QA_TYPES };

/* One answer; strings are ids of the dataset's pool. */
typedef struct QAnswer {
    int participant; /* participant name */
    int condition;
    int block, question;
    int type;  /* QA_* */
    int value; /* the answer as given */
    double x;  /* number and likert: its value; else NaN */
} QAnswer;

/* The options of a choice question, in the order the study defines them
** (from the study definitions of a database or an export's sidecar). */
typedef struct QOptions {
    int block, question; /* string ids */
    int *options;        /* string ids */
    int n_options;
} QOptions;

struct DatasetAnswers {
    QAnswer *a;
    size_t n, cap;
    QOptions *defs;
    size_t n_defs, cap_defs;
};

/* Appends the answers of the database at path (none before schema 4). */
int questionnaire_load_db(Dataset *ds, const char *path, SimError *err);

/* Appends the answers of X.questionnaire.csv beside csv_path (X.csv) when
** that file exists. Errors name the file, line and column. */
int questionnaire_load_csv(Dataset *ds, const char *csv_path, SimError *err);

void questionnaire_answers_free(struct DatasetAnswers *a); /* NULL: no-op */

#endif
