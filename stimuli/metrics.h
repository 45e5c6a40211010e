/*
** study.json "metrics" (metrics.c): explanation metrics in long format,
** read from the bundle's CSV files through common/sim_metrics.h, every
** problem located at the file, line and column; methods and items checked
** against the study's with a "did you mean". Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_METRICS_H
#define SIMLAB_STIMULI_METRICS_H

#include <stddef.h>

#include "stimuli/designctx.h"

/* Reads "metrics" of root (a list of {"file", "delimiter", "encoding"})
** into Study.metrics; call after the items and conditions are read. A
** condition with an explanation method but no metric is a warning. */
void metrics_parse(Design *D, const JLoc *at);

/* One line per metric for `simlab check` into buf: "mass_in_mask (higher
** is better): 7 methods, 28 items". Empty when the study has none. */
void metrics_describe(const Study *st, char *buf, size_t size);

/* The metrics for `simlab check --json`: a list of {metric,
** higher_is_better (null when not stated), description, methods (the
** conditions with a value), method_level, item_values}; null without. */
json_t *metrics_json(const Study *st);

#endif
