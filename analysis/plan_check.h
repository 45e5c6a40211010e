/*
** simlab-analyze --plan (plan_check.c): the data and the run of a report
** against a preregistration that simlab plan wrote (plan.h). Internal to
** simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_PLAN_CHECK_H
#define SIMLAB_ANALYSIS_PLAN_CHECK_H

#include "analysis/dataset.h"
#include "analysis/plan.h"
#include "analysis/report.h"

/* Compares the data ds and the run of r (r->opt, r->primary) with the
** plan p: bundle hash, primary test, alpha, correction, exclusion flags,
** the reference and the analysed participants per condition; fills
** r->primary's preregistration fields (planned, matches, deviations).
** Fails only when out of memory. */
int plan_check(const Plan *p, const Dataset *ds, Report *r, SimError *err);

#endif
