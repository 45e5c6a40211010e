/*
** study.json "metrics": each listed CSV file read in its dialect
** (csvtab.c) and fed to common/sim_metrics.c record by record; the methods
** and items checked against the study; conditions without metrics warned.
*/
#include "stimuli/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_metrics.h"
#include "stimuli/csvtab.h"
#include "stimuli/truth.h"

typedef struct FileCtx {
    Loader *L;
    const char *file;
    int n; /* problems */
} FileCtx;

static void report_row(void *vctx, long line, const char *column,
                       const char *msg)
{
    FileCtx *x = vctx;
    ld_diag(x->L, 0, x->file, (int)line, 0, NULL, column, "%s", msg);
    x->n++;
}

/* Reads one entry's file into m; returns the problems reported. */
static int read_entry(Loader *L, const JLoc *at, json_t *o, SimMetrics *m)
{
    const char *file = NULL;
    if (jget_str(L, at, o, "file", 1, &file) != 1) {
        return 1;
    }
    CsvDialect dialect;
    if (csv_dialect_parse(L, at, o, "metrics file", &dialect) != 0) {
        return 1;
    }
    CsvTable t;
    char why[512];
    int rc = csv_table_read(L, file, &dialect, &t, why, sizeof why);
    if (rc == -2) {
        jl_error(L, at, "file", "%s", why);
        return 1;
    }
    if (rc != 0 || t.unusable) {
        csv_table_free(&t);
        return 1;
    }
    FileCtx x = {L, file, 0};
    int k = sim_metrics_header(m, t.header, (int)t.n_cols, t.header_line,
                               report_row, &x);
    for (size_t r = 0; k == 0 && r < t.n_rows; r++) {
        if (sim_metrics_row(m, t.rows[r].cells, (int)t.rows[r].n,
                            t.rows[r].line, report_row, &x) < 0) {
            L->oom = 1;
            break;
        }
    }
    if (k < 0) {
        L->oom = 1;
    }
    csv_table_free(&t);
    return x.n;
}

/* Whether m holds a value of method. */
static int has_method(const SimMetrics *m, const char *method)
{
    for (size_t i = 0; i < m->n_values; i++) {
        if (strcmp(m->values[i].method, method) == 0) {
            return 1;
        }
    }
    return 0;
}

static int read_files(Design *D, const JLoc *at, json_t *v);

void metrics_parse(Design *D, const JLoc *at)
{
    Loader *L = D->L;
    json_t *v = json_object_get(D->root, "metrics");
    if (v && read_files(D, at, v) != 0) {
        return; /* nothing of a bad file */
    }
    truth_metrics(L);
    const Study *st = L->st;
    for (size_t c = 0; v && st->metrics && c < st->n_conditions; c++) {
        const Condition *cd = &st->conditions[c];
        if (cd->method && !has_method(st->metrics, cd->id)) {
            jl_warn(L, at, "metrics",
                    "condition '%s' shows explanations and has no metric: "
                    "it is left out of the comparison with people",
                    cd->id);
        }
    }
}

/* Reads the files of "metrics" (v) into Study.metrics; returns the
** problems reported. */
static int read_files(Design *D, const JLoc *at, json_t *v)
{
    Loader *L = D->L;
    Study *st = L->st;
    JLoc ml;
    jl_child(&ml, at, "metrics");
    if (!json_is_array(v) || json_array_size(v) == 0) {
        jl_error(L, at, "metrics",
                 "must be a non-empty list of {\"file\": \"metrics.csv\"}");
        return 1;
    }
    SimMetrics *m = sim_metrics_new();
    if (!m) {
        L->oom = 1;
        return 1;
    }
    static const char *const known[] = {"file", "delimiter", "encoding", NULL};
    int problems = 0;
    size_t i;
    json_t *o;
    json_array_foreach(v, i, o)
    {
        JLoc el;
        jl_index(&el, &ml, i);
        if (!json_is_object(o)) {
            jl_error(L, &el, NULL, "must be an object {\"file\": ...}");
            problems++;
            continue;
        }
        jreject_unknown(L, &el, o, known);
        size_t before = m->n_values;
        const char *file = NULL;
        jget_str(L, &el, o, "file", 0, &file);
        problems += read_entry(L, &el, o, m);
        /* names are checked per file, so that problems name their file */
        const char **methods =
            sim_calloc(st->n_conditions + 1, sizeof *methods);
        const char **items = sim_calloc(st->n_items + 1, sizeof *items);
        if (!methods || !items) {
            L->oom = 1;
            sim_free(methods);
            sim_free(items);
            break;
        }
        for (size_t c = 0; c < st->n_conditions; c++) {
            methods[c] = st->conditions[c].id;
        }
        for (size_t it = 0; it < st->n_items; it++) {
            items[it] = st->items[it].id;
        }
        SimMetrics view = *m;
        view.values = m->values + before;
        view.n_values = m->n_values - before;
        FileCtx x = {L, file ? file : "?", 0};
        problems += sim_metrics_check_names(
            &view, methods, st->n_conditions, items,
            L->items_incomplete ? 0 : st->n_items, report_row, &x);
        sim_free(methods);
        sim_free(items);
    }
    if (problems) {
        sim_metrics_free(m);
        return problems;
    }
    st->metrics = m;
    return 0;
}

/* Whether condition c has a value of metric k. */
static int cond_has(const Study *st, int k, size_t c)
{
    const SimMetrics *m = st->metrics;
    for (size_t i = 0; i < m->n_values; i++) {
        const SimMetricValue *x = &m->values[i];
        if (x->metric == k && strcmp(x->method, st->conditions[c].id) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Method-level and item values of metric k. */
static void count_values(const SimMetrics *m, int k, long *method_level,
                         long *item_values)
{
    *method_level = *item_values = 0;
    for (size_t i = 0; i < m->n_values; i++) {
        *method_level += m->values[i].metric == k && !m->values[i].item;
        *item_values += m->values[i].metric == k && m->values[i].item;
    }
}

/* Whether item it has a value of metric k. */
static int item_has(const SimMetrics *m, int k, const char *item)
{
    for (size_t i = 0; i < m->n_values; i++) {
        const SimMetricValue *x = &m->values[i];
        if (x->metric == k && x->item && strcmp(x->item, item) == 0) {
            return 1;
        }
    }
    return 0;
}

/* "; items 26 of 28, missing a, b (and 3 more)" for metric k into buf;
** empty when the metric has no item values. */
static void items_line(const Study *st, int k, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t have = 0, missing = 0, at = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        have += (size_t)item_has(st->metrics, k, st->items[i].id);
    }
    if (have == 0) {
        return;
    }
    int w = snprintf(buf, size, "; items %zu of %zu", have, st->n_items);
    at = w > 0 && (size_t)w < size ? (size_t)w : size - 1;
    for (size_t i = 0; i < st->n_items; i++) {
        if (item_has(st->metrics, k, st->items[i].id)) {
            continue;
        }
        if (++missing <= 5) {
            w = snprintf(buf + at, size - at, "%s%s",
                         missing == 1 ? ", missing " : ", ", st->items[i].id);
            at += w > 0 && (size_t)w < size - at ? (size_t)w : size - at - 1;
        }
    }
    if (missing > 5) {
        snprintf(buf + at, size - at, " (and %zu more)", missing - 5);
    }
}

void metrics_describe(const Study *st, char *buf, size_t size)
{
    buf[0] = '\0';
    const SimMetrics *m = st->metrics;
    size_t at = 0;
    for (int k = 0; m && k < m->n_metrics && at < size; k++) {
        const SimMetricInfo *mi = &m->metrics[k];
        int n_methods = 0;
        for (size_t c = 0; c < st->n_conditions; c++) {
            n_methods += cond_has(st, k, c);
        }
        long method_level, item_values;
        count_values(m, k, &method_level, &item_values);
        char items[400];
        items_line(st, k, items, sizeof items);
        int w = snprintf(buf + at, size - at,
                         "  %s (%s): %d methods, %ld method-level values, "
                         "%ld item values%s\n",
                         mi->name,
                         mi->higher_is_better == 1   ? "higher is better"
                         : mi->higher_is_better == 0 ? "lower is better"
                                                     : "direction not stated",
                         n_methods, method_level, item_values, items);
        at += w > 0 && (size_t)w < size - at ? (size_t)w : size - at;
    }
}

json_t *metrics_json(const Study *st)
{
    const SimMetrics *m = st->metrics;
    if (!m) {
        return json_null();
    }
    json_t *arr = json_array();
    for (int k = 0; k < m->n_metrics; k++) {
        const SimMetricInfo *mi = &m->metrics[k];
        json_t *methods = json_array();
        for (size_t c = 0; c < st->n_conditions; c++) {
            if (cond_has(st, k, c)) {
                json_array_append_new(methods,
                                      json_string(st->conditions[c].id));
            }
        }
        long method_level, item_values;
        count_values(m, k, &method_level, &item_values);
        json_array_append_new(
            arr,
            json_pack(
                "{s:s,s:o,s:o,s:o,s:I,s:I}", "metric", mi->name,
                "higher_is_better",
                mi->higher_is_better < 0 ? json_null()
                                         : json_boolean(mi->higher_is_better),
                "description",
                mi->description ? json_string(mi->description) : json_null(),
                "methods", methods, "method_level", (json_int_t)method_level,
                "item_values", (json_int_t)item_values));
    }
    return arr;
}

/* One stored row of value x (study_stored_definition()). */
static json_t *stored_row(const SimMetrics *m, const SimMetricValue *x)
{
    const SimMetricInfo *mi = &m->metrics[x->metric];
    return json_pack(
        "[s,o,s,f,o,o]", x->method,
        x->item ? json_string(x->item) : json_null(), mi->name, x->value,
        mi->higher_is_better < 0 ? json_null()
                                 : json_integer(mi->higher_is_better),
        mi->description ? json_string(mi->description) : json_null());
}

char *study_stored_definition(const Study *st)
{
    const char *text = st->json_text ? st->json_text : "{}";
    if (!st->metrics || st->metrics->n_values == 0) {
        size_t n = strlen(text) + 1;
        char *copy = malloc(n);
        return copy ? memcpy(copy, text, n) : NULL;
    }
    json_t *def = json_loads(text, 0, NULL);
    json_t *rows = json_array();
    if (!json_is_object(def) || !rows) {
        json_decref(def);
        json_decref(rows);
        return NULL;
    }
    int ok = 1;
    for (size_t i = 0; ok && i < st->metrics->n_values; i++) {
        ok = json_array_append_new(
                 rows, stored_row(st->metrics, &st->metrics->values[i])) == 0;
    }
    char *out = NULL;
    if (ok && json_object_set_new(def, "metrics_values", rows) == 0) {
        out = json_dumps(def, JSON_PRESERVE_ORDER | JSON_INDENT(2));
    } else {
        json_decref(rows);
    }
    json_decref(def);
    return out;
}
