/*
** The explanation metrics a study definition carries with the data
** ("metrics_values": stimuli's study_stored_definition()), read back row by
** row through common/sim_metrics.c's checks and merged into the Dataset.
*/
#include "analysis/dataset_int.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_metrics.h"

typedef struct RowCtx {
    char first[512]; /* the first problem */
    int n;
} RowCtx;

static void row_problem(void *vctx, long line, const char *column,
                        const char *msg)
{
    RowCtx *x = vctx;
    if (x->n++ == 0) {
        snprintf(x->first, sizeof x->first, "row %ld%s%s: %s", line - 1,
                 column ? ": field " : "", column ? column : "", msg);
    }
}

/* The cell of JSON value v as text into buf ("" for null). */
static const char *cell_text(json_t *v, char *buf, size_t size)
{
    if (json_is_string(v)) {
        return json_string_value(v);
    }
    if (json_is_integer(v)) {
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_real(v)) {
        snprintf(buf, size, "%.17g", json_real_value(v));
        return buf;
    }
    return json_is_null(v) ? "" : "?"; /* "?" fails as a value */
}

/* Reads rows (an array of 6-element arrays) into m; problems go to x. */
static int read_rows(SimMetrics *m, json_t *rows, RowCtx *x)
{
    char *head[6];
    for (int c = 0; c < 6; c++) {
        head[c] = (char *)SIM_METRICS_COLUMNS[c];
    }
    int k = sim_metrics_header(m, head, 6, 1, row_problem, x);
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (k < 0) {
            break;
        }
        char num[6][40], *cells[6];
        for (int c = 0; c < 6; c++) {
            cells[c] = (char *)cell_text(json_array_get(row, (size_t)c), num[c],
                                         sizeof num[c]);
        }
        if (!json_is_array(row) || json_array_size(row) != 6) {
            row_problem(x, (long)i + 2, NULL, "expected 6 values");
        } else {
            k = sim_metrics_row(m, cells, 6, (long)i + 2, row_problem, x);
        }
    }
    return k < 0 ? -1 : 0;
}

int dataset_state_metrics(Dataset *ds, json_t *def, const char *who,
                          SimError *err)
{
    json_t *rows = json_object_get(def, "metrics_values");
    if (!rows) {
        return SIM_OK;
    }
    if (!json_is_array(rows)) {
        return sim_fail(err, SIM_ERR_PARSE,
                        "%s: \"metrics_values\": expected a list", who);
    }
    RowCtx x;
    memset(&x, 0, sizeof x);
    SimMetrics *m = sim_metrics_new();
    if (!ds->metrics) {
        ds->metrics = sim_metrics_new();
    }
    int rc = m && ds->metrics && read_rows(m, rows, &x) == 0
                 ? SIM_OK
                 : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    if (rc == SIM_OK && x.n > 0) {
        rc = sim_fail(err, SIM_ERR_PARSE, "%s: \"metrics_values\": %s", who,
                      x.first);
    }
    if (rc == SIM_OK && sim_metrics_merge(ds->metrics, m) != 0) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sim_metrics_free(m);
    return rc;
}
