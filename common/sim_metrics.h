/*
** Automated explanation metrics in long format (method, item, metric,
** value, higher_is_better, description): one reader for `simlab check`
** (study.json "metrics") and simlab-analyze (--metrics FILE), fed record by
** record from the one CSV reader, every problem located (line, column).
** libc only.
*/
#ifndef SIMLAB_COMMON_SIM_METRICS_H
#define SIMLAB_COMMON_SIM_METRICS_H

#include <stddef.h>

#include "common/sim_csv.h"
#include "common/sim_error.h"

/* One metric: its name, whether a higher value is better (1, 0; -1 when no
** row said) and its description (NULL when none). */
typedef struct SimMetricInfo {
    char *name;
    int higher_is_better;
    char *description;
    long line; /* the first row naming it */
} SimMetricInfo;

/* One value: of a method (item NULL) or of a method on one item. */
typedef struct SimMetricValue {
    int metric; /* index into SimMetrics.metrics */
    char *method;
    char *item; /* NULL: a method-level score */
    double value;
    long line; /* its record's line */
} SimMetricValue;

typedef struct SimMetrics {
    SimMetricInfo *metrics;
    int n_metrics;
    SimMetricValue *values;
    size_t n_values, cap_values;
    int col[6]; /* column of method, item, metric, value, higher_is_better,
                ** description; -1 when absent */
    int have_header;
} SimMetrics;

/* Called once per problem: line (0: the file as a whole), the column
** ("value"; NULL: the record), what is wrong. */
typedef void (*SimMetricsReport)(void *ctx, long line, const char *column,
                                 const char *msg);

/* The columns of the long format, in order ("method", "item", "metric",
** "value", "higher_is_better", "description"), NULL-terminated. */
extern const char *const SIM_METRICS_COLUMNS[];

/* An empty set; NULL when out of memory. Free with sim_metrics_free(). */
SimMetrics *sim_metrics_new(void);
void sim_metrics_free(SimMetrics *m); /* NULL is a no-op */

/* Reads the header record (cells[0..n), NUL-terminated): the columns
** method, metric and value are required, item, higher_is_better and
** description optional; others are reported with a "did you mean".
** Returns the number of problems reported (0: the rows may follow), or
** -1 when out of memory. */
int sim_metrics_header(SimMetrics *m, char *const *cells, int n, long line,
                       SimMetricsReport rep, void *ctx);

/* Reads one record after the header: an empty method or metric, a value
** that is not a finite number, higher_is_better other than 1, 0 or empty,
** a description or higher_is_better that differs from the metric's first
** row, a second row for the same method, item and metric are reported.
** Returns the number of problems reported (the row is kept only when 0),
** or -1 when out of memory. */
int sim_metrics_row(SimMetrics *m, char *const *cells, int n, long line,
                    SimMetricsReport rep, void *ctx);

/* Appends a value computed by simlab (not read from a file): metric name
** (added with hib and desc when new), method, item (NULL: method level).
** A value already there for them is left as it is (1 is returned).
** Returns 0, 1, or -1 when out of memory. */
int sim_metrics_add(SimMetrics *m, const char *name, int hib, const char *desc,
                    const char *method, const char *item, double value);

/* Adds to m every value of from that m lacks (the same method, item and
** metric; sim_metrics_add()), so m's values and metric descriptions win.
** Returns 0, or -1 when out of memory. */
int sim_metrics_merge(SimMetrics *m, const SimMetrics *from);

/* Reports each method not among methods[0..n_methods) and each item not
** among items[0..n_items) (n_items 0: items not checked), with the
** closest name as a "did you mean", once per name at its first row.
** Returns the number of problems reported. */
int sim_metrics_check_names(const SimMetrics *m, const char *const *methods,
                            size_t n_methods, const char *const *items,
                            size_t n_items, SimMetricsReport rep, void *ctx);

/* Reads the metrics CSV file path (options o, NULL: UTF-8 with ',') into
** *out. Problems of the file's content go to rep; its CSV syntax and I/O
** errors fail with err ("PATH:LINE: field N: ..."). Returns the number of
** problems reported (>= 0, *out set; nothing of a file with problems is to
** be analysed), or an error code < 0 as -SIM_ERR_* with *out NULL. */
int sim_metrics_read_file(const char *path, const SimCsvOptions *o,
                          SimMetrics **out, SimMetricsReport rep, void *ctx,
                          SimError *err);

/* The index of metric name, or -1. */
int sim_metrics_find(const SimMetrics *m, const char *name);

/* The value of method (item NULL: its method-level score) for metric k,
** or NaN when there is none. */
double sim_metrics_value(const SimMetrics *m, int k, const char *method,
                         const char *item);

#endif
