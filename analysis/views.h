/*
** Views of explanations given on request or on hover as the Dataset keeps
** them (Dataset.views): one record per step that offered one. Plain data
** below the dataset: the readers are in interactions.c, the summary in
** compute_interactions(). Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_VIEWS_H
#define SIMLAB_ANALYSIS_VIEWS_H

#include <stddef.h>

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

void views_free(struct DatasetViews *v); /* NULL: no-op */

#endif
