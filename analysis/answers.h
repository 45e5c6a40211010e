/*
** Questionnaire answers as the Dataset keeps them (Dataset.answers): one
** record per answer and the options of choice questions, all strings as
** ids of the dataset's pool. Plain data below the dataset: the readers are
** in questionnaire.c, the summaries in compute_questionnaire(). Internal to
** simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_ANSWERS_H
#define SIMLAB_ANALYSIS_ANSWERS_H

#include <stddef.h>

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

/* Frees the answers and their option lists; NULL is a no-op. */
void answers_free(struct DatasetAnswers *a);

#endif
