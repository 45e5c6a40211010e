/*
** Explanation metrics against people (metrics.c): report.json
** "metrics_vs_human", its report.md section and CSV, and the per-method
** values the picture draws. Internal to simlab_analysis.
*/
#ifndef SIMLAB_ANALYSIS_METRICS_H
#define SIMLAB_ANALYSIS_METRICS_H

#include "analysis/compute.h"
#include "common/sim_metrics.h"

/* With o->metrics (NULL: those stored with the data, ds->metrics): per
** metric, Kendall's tau_b and Spearman's rho of the
** methods' metric values against their human effect (the primary test's
** estimate against the baseline; and Utility, in rows of their own, where
** the test trials come in 2 or more sessions), with the crossed
** participant x item
** bootstrap's intervals and the share of replicates with the same best
** method; tables "metrics_vs_human" and "metrics_methods". Call after
** compute_primary(). Nothing without metrics. */
int compute_metrics(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err);

/* The item level of metric k (metrics_item.c): correct ~ condition +
** condition:metric_z + (1 | participant) + (1 | item) on the report's
** mixed-model rows, one row of t per method with item values: its odds
** ratio per SD of the metric with the Wald interval and p. No rows when
** the data have no model or the metric no item values. */
int metrics_item_rows(const Dataset *ds, const Screen *sc, const SimMetrics *m,
                      int k, Table *t, SimError *err);

/* Reads --metrics FILE (in the --csv dialect of o) and checks its methods
** against the data's conditions and its items against the data's items
** (with a "did you mean"): every problem is printed on stderr, the first
** goes into err, and nothing is analysed (SIM_ERR_INVALID). On success
** *out owns the metrics (sim_metrics_free). */
int metrics_load(const char *path, const Dataset *ds, const AnalyzeOptions *o,
                 SimMetrics **out, SimError *err);

#endif
