/*
** The primary test of simlab-analyze's report (primary.c, primary_tables.c):
** what the computations of analyze_compute() and --calibrate share about it.
** Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_PRIMARY_H
#define SIMLAB_ANALYSIS_PRIMARY_H

#include "analysis/compute.h"
#include "common/sim_analysis.h"

/* A SimAnalysisReport that keeps the first problem ("analysis.alpha: ...")
** in ctx (600 bytes). */
void primary_first_problem(void *ctx, const char *where, const char *msg);

/* r->primary.note: what the rows are, the reference, the looks and how
** the analysed participants compare with them (primary_tables.c). */
int primary_note(const Dataset *ds, const Screen *sc, const SimAnalysisSpec *s,
                 Report *r, SimError *err);

/* Of a null study's report nr (--calibrate): 1 when its primary test was
** made (then *rejected says whether any contrast was rejected), else 0. */
int primary_null_outcome(const Report *nr, int *rejected);

/* The measured size of the primary test: rejected of studies null
** studies, with its Clopper-Pearson interval; source "calibrate" or
** "plan". */
void primary_set_size(Report *r, int studies, int rejected, const char *source);

#endif
