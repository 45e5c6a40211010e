/*
** Explanation metrics in long format (sim_metrics.h): the header's
** columns, each record's checks, the names against a study's, and a file
** read through the one CSV reader.
*/
#include "common/sim_metrics.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

enum { C_METHOD, C_ITEM, C_METRIC, C_VALUE, C_HIB, C_DESC, N_COLS };

const char *const SIM_METRICS_COLUMNS[] = {
    "method",           "item",        "metric", "value",
    "higher_is_better", "description", NULL};

SimMetrics *sim_metrics_new(void)
{
    SimMetrics *m = sim_calloc(1, sizeof *m);
    if (m) {
        for (int c = 0; c < N_COLS; c++) {
            m->col[c] = -1;
        }
    }
    return m;
}

void sim_metrics_free(SimMetrics *m)
{
    if (!m) {
        return;
    }
    for (int k = 0; k < m->n_metrics; k++) {
        sim_free(m->metrics[k].name);
        sim_free(m->metrics[k].description);
    }
    sim_free(m->metrics);
    for (size_t i = 0; i < m->n_values; i++) {
        sim_free(m->values[i].method);
        sim_free(m->values[i].item);
    }
    sim_free(m->values);
    sim_free(m);
}

static void say(SimMetricsReport rep, void *ctx, long line, const char *col,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void say(SimMetricsReport rep, void *ctx, long line, const char *col,
                const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rep(ctx, line, col, msg);
}

int sim_metrics_header(SimMetrics *m, char *const *cells, int n, long line,
                       SimMetricsReport rep, void *ctx)
{
    int problems = 0;
    for (int c = 0; c < N_COLS; c++) {
        m->col[c] = -1;
    }
    for (int i = 0; i < n; i++) {
        int found = -1;
        for (int c = 0; c < N_COLS; c++) {
            if (strcmp(cells[i], SIM_METRICS_COLUMNS[c]) == 0) {
                found = c;
            }
        }
        if (found >= 0 && m->col[found] >= 0) {
            say(rep, ctx, line, cells[i], "column '%s' appears twice",
                cells[i]);
            problems++;
        } else if (found >= 0) {
            m->col[found] = i;
        } else {
            const char *s = sim_suggest(cells[i], SIM_METRICS_COLUMNS, N_COLS);
            say(rep, ctx, line, cells[i],
                "unknown column '%s'%s%s%s (the columns are method, item, "
                "metric, value, higher_is_better, description)",
                cells[i], s ? " (did you mean '" : "", s ? s : "",
                s ? "'?)" : "");
            problems++;
        }
    }
    static const int required[] = {C_METHOD, C_METRIC, C_VALUE};
    for (size_t r = 0; r < sizeof required / sizeof *required; r++) {
        if (m->col[required[r]] < 0) {
            say(rep, ctx, line, SIM_METRICS_COLUMNS[required[r]],
                "missing column '%s' (required: method, metric, value)",
                SIM_METRICS_COLUMNS[required[r]]);
            problems++;
        }
    }
    m->have_header = problems == 0;
    return problems;
}

static const char *cell(const SimMetrics *m, char *const *cells, int n, int c)
{
    int i = m->col[c];
    return i >= 0 && i < n ? cells[i] : "";
}

int sim_metrics_find(const SimMetrics *m, const char *name)
{
    for (int k = 0; k < m->n_metrics; k++) {
        if (strcmp(m->metrics[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
}

static int same_item(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const SimMetricValue *find_value(const SimMetrics *m, int k,
                                        const char *method, const char *item)
{
    for (size_t i = 0; i < m->n_values; i++) {
        const SimMetricValue *v = &m->values[i];
        if (v->metric == k && strcmp(v->method, method) == 0 &&
            same_item(v->item, item)) {
            return v;
        }
    }
    return NULL;
}

double sim_metrics_value(const SimMetrics *m, int k, const char *method,
                         const char *item)
{
    const SimMetricValue *v = find_value(m, k, method, item);
    return v ? v->value : (double)NAN;
}

/* The metric named name (added with hib and desc at line when new);
** problems with a known metric's hib or desc are reported. Returns its
** index, -1 after a problem, -2 when out of memory. */
static int metric_of(SimMetrics *m, const char *name, int hib, const char *desc,
                     long line, SimMetricsReport rep, void *ctx)
{
    int k = sim_metrics_find(m, name);
    if (k >= 0) {
        SimMetricInfo *mi = &m->metrics[k];
        int bad = 0;
        if (hib >= 0 && mi->higher_is_better >= 0 &&
            hib != mi->higher_is_better) {
            say(rep, ctx, line, "higher_is_better",
                "metric '%s' has higher_is_better %d here and %d on line %ld "
                "(the same on every row of a metric)",
                name, hib, mi->higher_is_better, mi->line);
            bad = 1;
        } else if (hib >= 0) {
            mi->higher_is_better = hib;
        }
        if (desc[0] && mi->description && strcmp(desc, mi->description)) {
            say(rep, ctx, line, "description",
                "metric '%s' is described differently on line %ld (the same "
                "description on every row of a metric)",
                name, mi->line);
            bad = 1;
        } else if (desc[0] && !mi->description) {
            mi->description = sim_strdup(desc);
            if (!mi->description) {
                return -2;
            }
        }
        return bad ? -1 : k;
    }
    SimMetricInfo *grown =
        sim_realloc(m->metrics, ((size_t)m->n_metrics + 1) * sizeof *grown);
    if (!grown) {
        return -2;
    }
    m->metrics = grown;
    SimMetricInfo *mi = &m->metrics[m->n_metrics];
    memset(mi, 0, sizeof *mi);
    mi->name = sim_strdup(name);
    mi->description = desc[0] ? sim_strdup(desc) : NULL;
    if (!mi->name || (desc[0] && !mi->description)) {
        sim_free(mi->name);
        sim_free(mi->description);
        return -2;
    }
    mi->higher_is_better = hib;
    mi->line = line;
    return m->n_metrics++;
}

static int append(SimMetrics *m, int k, const char *method, const char *it,
                  double v, long line)
{
    if (sim_grow((void **)&m->values, &m->cap_values, m->n_values + 1,
                 sizeof *m->values) != 0) {
        return -1;
    }
    SimMetricValue *x = &m->values[m->n_values];
    x->metric = k;
    x->method = sim_strdup(method);
    x->item = it ? sim_strdup(it) : NULL;
    x->value = v;
    x->line = line;
    if (!x->method || (it && !x->item)) {
        sim_free(x->method);
        sim_free(x->item);
        return -1;
    }
    m->n_values++;
    return 0;
}

int sim_metrics_row(SimMetrics *m, char *const *cells, int n, long line,
                    SimMetricsReport rep, void *ctx)
{
    int problems = 0;
    const char *method = cell(m, cells, n, C_METHOD);
    const char *item = cell(m, cells, n, C_ITEM);
    const char *metric = cell(m, cells, n, C_METRIC);
    const char *value = cell(m, cells, n, C_VALUE);
    const char *hibs = cell(m, cells, n, C_HIB);
    const char *desc = cell(m, cells, n, C_DESC);
    if (!method[0]) {
        say(rep, ctx, line, "method", "empty: name the method (condition)");
        problems++;
    }
    if (!metric[0]) {
        say(rep, ctx, line, "metric", "empty: name the metric");
        problems++;
    }
    char *end = NULL;
    errno = 0;
    double v = value[0] ? strtod(value, &end) : (double)NAN;
    if (!value[0]) {
        say(rep, ctx, line, "value", "empty: a metric needs a number");
        problems++;
    } else if (*end != '\0' || !isfinite(v) || errno == ERANGE) {
        say(rep, ctx, line, "value", "'%s' is not a finite number", value);
        problems++;
    }
    int hib = -1;
    if (strcmp(hibs, "1") == 0) {
        hib = 1;
    } else if (strcmp(hibs, "0") == 0) {
        hib = 0;
    } else if (hibs[0]) {
        say(rep, ctx, line, "higher_is_better", "'%s': expected 1, 0 or empty",
            hibs);
        problems++;
    }
    if (problems) {
        return problems;
    }
    int k = metric_of(m, metric, hib, desc, line, rep, ctx);
    if (k == -2) {
        return -1;
    }
    if (k < 0) {
        return 1;
    }
    const char *it = item[0] ? item : NULL;
    const SimMetricValue *dup = find_value(m, k, method, it);
    if (dup) {
        say(rep, ctx, line, NULL,
            "a second row for method '%s', %s%s%s, metric '%s' (the first "
            "is on line %ld)",
            method, it ? "item '" : "no item", it ? it : "", it ? "'" : "",
            metric, dup->line);
        return 1;
    }
    return append(m, k, method, it, v, line);
}

int sim_metrics_add(SimMetrics *m, const char *name, int hib, const char *desc,
                    const char *method, const char *item, double value)
{
    int k = sim_metrics_find(m, name);
    if (k < 0) {
        k = metric_of(m, name, hib, desc ? desc : "", 0, NULL, NULL);
    }
    if (k < 0) {
        return -1;
    }
    if (find_value(m, k, method, item)) {
        return 1;
    }
    return append(m, k, method, item, value, 0);
}

static int in_list(const char *s, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (names[i] && strcmp(s, names[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Whether value i is the first naming its method (item: its item). */
static int first_naming(const SimMetrics *m, size_t i, int item)
{
    const char *s = item ? m->values[i].item : m->values[i].method;
    for (size_t j = 0; j < i; j++) {
        const char *t = item ? m->values[j].item : m->values[j].method;
        if (t && strcmp(s, t) == 0) {
            return 0;
        }
    }
    return 1;
}

int sim_metrics_check_names(const SimMetrics *m, const char *const *methods,
                            size_t n_methods, const char *const *items,
                            size_t n_items, SimMetricsReport rep, void *ctx)
{
    int problems = 0;
    for (size_t i = 0; i < m->n_values; i++) {
        const SimMetricValue *v = &m->values[i];
        if (!in_list(v->method, methods, n_methods) && first_naming(m, i, 0)) {
            const char *s = sim_suggest(v->method, methods, n_methods);
            say(rep, ctx, v->line, "method",
                "'%s' is not a condition of the study%s%s%s", v->method,
                s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
            problems++;
        }
        if (n_items && v->item && !in_list(v->item, items, n_items) &&
            first_naming(m, i, 1)) {
            const char *s = sim_suggest(v->item, items, n_items);
            say(rep, ctx, v->line, "item",
                "'%s' is not an item of the study%s%s%s", v->item,
                s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
            problems++;
        }
    }
    return problems;
}

int sim_metrics_read_file(const char *path, const SimCsvOptions *o,
                          SimMetrics **out, SimMetricsReport rep, void *ctx,
                          SimError *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_fail(err, SIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return -SIM_ERR_IO;
    }
    SimCsvReader *r = NULL;
    int rc = sim_csv_open_file(&r, f, path, o, err);
    SimMetrics *m = rc == SIM_OK ? sim_metrics_new() : NULL;
    if (rc == SIM_OK && !m) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int problems = 0;
    char **cells = NULL;
    int cap = 0, header = 1;
    SimCsvRecord rec;
    int got = 0;
    while (rc == SIM_OK && (got = sim_csv_next(r, &rec, err)) == 1) {
        if (rec.n > cap) {
            char **grown = sim_realloc(cells, (size_t)rec.n * sizeof *grown);
            if (!grown) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
                break;
            }
            for (int i = cap; i < rec.n; i++) {
                grown[i] = NULL;
            }
            cells = grown;
            cap = rec.n;
        }
        for (int i = 0; i < rec.n && rc == SIM_OK; i++) {
            sim_free(cells[i]);
            cells[i] = sim_strndup(rec.fields[i].p, rec.fields[i].n);
            if (!cells[i]) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
        }
        if (rc != SIM_OK) {
            break;
        }
        int k = header ? sim_metrics_header(m, cells, rec.n, rec.line, rep, ctx)
                       : sim_metrics_row(m, cells, rec.n, rec.line, rep, ctx);
        if (k < 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        problems += k;
        if (header && k > 0) {
            break; /* rows of an unreadable header are not checked */
        }
        header = 0;
    }
    if (rc == SIM_OK && got < 0) {
        rc = got;
    }
    if (rc == SIM_OK && header && problems == 0) {
        rep(ctx, 0, NULL,
            "the file is empty: it needs a header (method, item, "
            "metric, value, higher_is_better, description)");
        problems++;
    }
    for (int i = 0; i < cap; i++) {
        sim_free(cells[i]);
    }
    sim_free(cells);
    sim_csv_close(r);
    fclose(f);
    if (rc != SIM_OK) {
        sim_metrics_free(m);
        return -rc;
    }
    *out = m;
    return problems;
}

int sim_metrics_merge(SimMetrics *m, const SimMetrics *from)
{
    for (size_t i = 0; i < from->n_values; i++) {
        const SimMetricValue *v = &from->values[i];
        const SimMetricInfo *mi = &from->metrics[v->metric];
        if (sim_metrics_add(m, mi->name, mi->higher_is_better, mi->description,
                            v->method, v->item, v->value) < 0) {
            return -1;
        }
    }
    return 0;
}
