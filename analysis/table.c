/*
** The table model: construction of tables and the number formats the text
** writers share. libc and common/ only.
*/
#include "analysis/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

Table *table_new(const char *key, unsigned formats, const TableColumn *cols,
                 int n_cols)
{
    Table *t = sim_calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->key = sim_strdup(key);
    if (!t->key) {
        sim_free(t);
        return NULL;
    }
    t->formats = formats;
    t->cols = cols;
    t->n_cols = n_cols;
    t->at = n_cols;
    return t;
}

void table_free(Table *t)
{
    if (!t) {
        return;
    }
    for (size_t i = 0; i < (size_t)t->n_rows * (size_t)t->n_cols; i++) {
        sim_free(t->cells[i].text);
        sim_free(t->cells[i].series);
    }
    sim_free(t->cells);
    sim_free(t->series);
    sim_free(t->key);
    sim_free(t->json_path);
    sim_free(t->title);
    sim_free(t->note);
    sim_free(t->after);
    sim_free(t->caption);
    sim_free(t);
}

static int set_str(Table *t, char **field, const char *s)
{
    sim_free(*field);
    *field = sim_strdup(s);
    if (s && !*field) {
        t->bad = 1;
        return -1;
    }
    return 0;
}

/* fmt and ap as vprintf takes them (the callers' formats are checked) */
static int set_vfmt(Table *t, char **field, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int set_vfmt(Table *t, char **field, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = n >= 0 ? sim_malloc((size_t)n + 1) : NULL;
    if (!s) {
        t->bad = 1;
        return -1;
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    sim_free(*field);
    *field = s;
    return 0;
}

int table_set_title(Table *t, int level, const char *title)
{
    t->level = level;
    return set_str(t, &t->title, title);
}

int table_set_note(Table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_vfmt(t, &t->note, fmt, ap);
    va_end(ap);
    return rc;
}

int table_set_after(Table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = set_vfmt(t, &t->after, fmt, ap);
    va_end(ap);
    return rc;
}

int table_set_caption(Table *t, const char *tex)
{
    return set_str(t, &t->caption, tex);
}

int table_set_json_path(Table *t, const char *path)
{
    return set_str(t, &t->json_path, path);
}

int table_set_series(Table *t, const char *name, const int *values, int n)
{
    sim_free(t->series);
    t->series = sim_malloc(((size_t)n + 1) * sizeof(int));
    if (!t->series) {
        t->bad = 1;
        return -1;
    }
    if (n > 0) {
        memcpy(t->series, values, (size_t)n * sizeof(int));
    }
    t->n_series = n;
    t->series_name = name;
    return 0;
}

int table_add_row(Table *t)
{
    size_t cells = (size_t)t->n_cols > 0 ? (size_t)t->n_cols : 1;
    size_t cap = t->cap_rows;
    if ((size_t)t->n_rows == cap) {
        TableCell *grown = t->cells;
        size_t cap_cells = cap * cells;
        if (sim_grow((void **)&grown, &cap_cells, (cap + 1) * cells,
                     sizeof *grown) != 0) {
            t->bad = 1;
            return -1;
        }
        t->cells = grown;
        t->cap_rows = cap_cells / cells;
    }
    TableCell *row = &t->cells[(size_t)t->n_rows * (size_t)t->n_cols];
    for (int j = 0; j < t->n_cols; j++) {
        memset(&row[j], 0, sizeof row[j]);
        row[j].x = row[j].y = NAN;
    }
    t->n_rows++;
    t->at = 0;
    /* the series axis has no cell of its own */
    while (t->at < t->n_cols && t->cols[t->at].type == TABLE_SERIES_AXIS) {
        t->at++;
    }
    return 0;
}

/* The next cell of the last row, checked against the column's type; NULL
** (and the table marked bad) when the puts do not match the columns. */
static TableCell *next_cell(Table *t, int series, int interval, int text)
{
    if (t->n_rows == 0 || t->at >= t->n_cols) {
        t->bad = 1;
        return NULL;
    }
    const TableColumn *c = &t->cols[t->at];
    int is_interval =
        c->type == TABLE_INTERVAL || c->type == TABLE_PERCENT_INTERVAL;
    int is_series = (c->flags & TABLE_SERIES) != 0;
    if ((series >= 0 && series != is_series) ||
        (interval >= 0 && interval != is_interval) ||
        (text >= 0 && text != (c->type == TABLE_TEXT))) {
        t->bad = 1;
        return NULL;
    }
    TableCell *cell =
        &t->cells[(size_t)(t->n_rows - 1) * (size_t)t->n_cols + (size_t)t->at];
    t->at++;
    while (t->at < t->n_cols && t->cols[t->at].type == TABLE_SERIES_AXIS) {
        t->at++;
    }
    return cell;
}

void table_put_text(Table *t, const char *s)
{
    TableCell *c = next_cell(t, 0, 0, 1);
    if (c && s && !(c->text = sim_strdup(s))) {
        t->bad = 1;
    }
}

void table_put_num(Table *t, double x)
{
    TableCell *c = next_cell(t, 0, 0, 0);
    if (c) {
        c->x = x;
    }
}

void table_put_interval(Table *t, double low, double high)
{
    TableCell *c = next_cell(t, 0, 1, 0);
    if (c) {
        c->x = low;
        c->y = high;
    }
}

void table_put_series(Table *t, const double *x)
{
    TableCell *c = next_cell(t, 1, 0, 0);
    size_t n = (size_t)t->n_series;
    if (c && !(c->series = sim_malloc((n + 1) * sizeof(double)))) {
        t->bad = 1;
    } else if (c && n > 0) {
        memcpy(c->series, x, n * sizeof(double));
    }
}

void table_put_series_interval(Table *t, const double *low, const double *high)
{
    TableCell *c = next_cell(t, 1, 1, 0);
    size_t n = (size_t)t->n_series;
    if (c && !(c->series = sim_malloc((2 * n + 1) * sizeof(double)))) {
        t->bad = 1;
    } else if (c && n > 0) {
        memcpy(c->series, low, n * sizeof(double));
        memcpy(c->series + n, high, n * sizeof(double));
    }
}

void table_skip(Table *t)
{
    next_cell(t, -1, -1, -1);
}

void table_hide_last(Table *t, unsigned cell_flags)
{
    int j = t->at - 1;
    while (j >= 0 && t->cols[j].type == TABLE_SERIES_AXIS) {
        j--;
    }
    if (t->n_rows == 0 || j < 0) {
        t->bad = 1;
        return;
    }
    t->cells[(size_t)(t->n_rows - 1) * (size_t)t->n_cols + (size_t)j].flags |=
        cell_flags;
}

int table_column(const Table *t, const char *name)
{
    for (int j = 0; name && j < t->n_cols; j++) {
        if (strcmp(t->cols[j].name, name) == 0) {
            return j;
        }
    }
    return -1;
}

const char *table_column_json(const TableColumn *c)
{
    return c->json ? c->json : c->name;
}

int table_column_in(const TableColumn *c, unsigned f)
{
    return ((c->formats ? c->formats : (unsigned)TABLE_ALL) & f) != 0;
}

const TableCell *table_cell(const Table *t, int i, int j)
{
    return &t->cells[(size_t)i * (size_t)t->n_cols + (size_t)j];
}

void table_fmt_num(SimBuf *b, double x, int digits, int plus,
                   const char *missing)
{
    if (!isfinite(x)) {
        sim_buf_puts(b, missing);
    } else if (plus) {
        sim_buf_printf(b, "%+.*f", digits, x);
    } else {
        sim_buf_printf(b, "%.*f", digits, x);
    }
}

void table_fmt_p(SimBuf *b, double p, const char *missing)
{
    if (!isfinite(p)) {
        sim_buf_puts(b, missing);
    } else if (p < 0.0001) {
        sim_buf_printf(b, "%.1e", p);
    } else {
        sim_buf_printf(b, "%.4f", p);
    }
}

void table_tex_escape(SimBuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '_':
        case '%':
        case '&':
        case '#':
        case '$':
        case '{':
        case '}':
            sim_buf_printf(b, "\\%c", *s);
            break;
        case '\\':
            sim_buf_puts(b, "\\textbackslash{}");
            break;
        case '^':
        case '~':
            sim_buf_puts(b, " ");
            break;
        default:
            sim_buf_append(b, s, 1);
        }
    }
}
