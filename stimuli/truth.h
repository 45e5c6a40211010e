/*
** Metrics computed from a bundle's ground truth (truth.c): items' "mask"
** (heatmaps) and "rationale" (token weights) scored with
** common/sim_relevance.h into Study.metrics. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_TRUTH_H
#define SIMLAB_STIMULI_TRUTH_H

#include "stimuli/loader.h"

/* Adds mass_in_mask, rank_accuracy, pointing_game and iou_top20 for every
** item with a mask or rationale and every method's heatmap or token
** payload, under each condition showing the method; a mask whose size is
** not its image's and a rationale index past the tokens are located
** errors. Call after the items and explanations are read. */
void truth_metrics(Loader *L);

#endif
