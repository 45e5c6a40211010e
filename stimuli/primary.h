/*
** study.json "analysis" (primary.c): the study's primary test, alpha,
** correction, sequential looks, planned N and stated directions, read by
** common/sim_analysis.h and checked against the study's design (a paired
** t test needs a within-subject study, Utility needs sessions, ...).
** Internal to stimuli, but for primary_describe().
*/
#ifndef SIMLAB_STIMULI_PRIMARY_H
#define SIMLAB_STIMULI_PRIMARY_H

#include <stddef.h>

#include "stimuli/designctx.h"

/* Reads "analysis" of root (at its JLoc) into Study.analysis and checks it
** against the design; call after the blocks, conditions and assignment
** are read. Every problem is a located error. */
void primary_parse(Design *D, const JLoc *at);

/* One line on the primary test of st for `simlab check`: "glmm (the
** default for this design), alpha 0.05, Holm over 2 contrasts; looks 20,
** 40, 60 (obrien-fleming)". */
void primary_describe(const Study *st, char *buf, size_t size);

#endif
