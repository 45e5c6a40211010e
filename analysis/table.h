/*
** The table model of a simlab-analyze report: each computation appends
** tables (key, title, note, typed columns, rows of cells) to the report, and
** the md, tex, csv and json writers render any table from this description
** alone. libc only; no statistics and no file output here.
*/
#ifndef SIMLAB_ANALYSIS_TABLE_H
#define SIMLAB_ANALYSIS_TABLE_H

#include <stddef.h>

#include "common/sim_text.h"

/* The output formats a table or a column appears in (bit set). */
enum {
    TABLE_MD = 1,
    TABLE_TEX = 2,
    TABLE_CSV = 4,
    TABLE_JSON = 8,
    TABLE_ALL = 15
};

/* What a column holds. Numbers are doubles; NaN is a missing value. */
typedef enum TableType {
    TABLE_TEXT,             /* a string; NULL is missing */
    TABLE_INT,              /* a count */
    TABLE_BOOL,             /* 0/1: csv 0/1, json true/false */
    TABLE_REAL,             /* a number */
    TABLE_PERCENT,          /* a proportion: in % in md/tex, a fraction in
                            ** csv/json */
    TABLE_PVALUE,           /* a p-value: 4 decimals, %.1e below 0.0001 */
    TABLE_INTERVAL,         /* (low, high): csv/json NAME_low, NAME_high */
    TABLE_PERCENT_INTERVAL, /* an interval of proportions */
    TABLE_SERIES_AXIS       /* the table's series values (e.g. sessions): no
                            ** cell; csv: one per row, json: an array */
} TableType;

/* Column flags. */
enum {
    TABLE_SIGNED = 1,    /* md prints a + on positive values */
    TABLE_SERIES = 2,    /* one value per series element: md/tex one column
                         ** per element, csv one row per element (long
                         ** format), json an array */
    TABLE_JSON_PAIR = 4, /* an interval as [low, high] under NAME in json */
    TABLE_TEX_LEFT = 8,  /* tex alignment l (default: text l, numbers r) */
    TABLE_TEX_RIGHT = 16 /* tex alignment r */
};

typedef struct TableColumn {
    const char *name;  /* csv header and json key */
    const char *json;  /* json key when it differs from name, or NULL */
    const char *label; /* md/tex header (raw TeX in tex), NULL: name; series
                       ** columns append " <element>" ("acc 1"), or just the
                       ** element when the label is "" */
    TableType type;
    const char *unit; /* e.g. "s", "proportion"; "" when none */
    int digits;       /* decimals in md/tex */
    unsigned flags;   /* TABLE_SIGNED, ... */
    unsigned formats; /* where the column appears; 0 means TABLE_ALL */
} TableColumn;

/* Cell flags: not shown in md (printed as missing, "-") or tex (empty). */
enum { TABLE_CELL_NOT_MD = 1, TABLE_CELL_NOT_TEX = 2 };

typedef struct TableCell {
    double x, y;    /* the value; an interval's low and high */
    char *text;     /* TABLE_TEXT, or NULL */
    double *series; /* TABLE_SERIES: n_series values (intervals: lows then
                    ** highs, 2 * n_series) */
    unsigned flags; /* TABLE_CELL_* */
} TableCell;

typedef struct Table {
    char *key;       /* stable name; csv file KEY.csv */
    char *json_path; /* where json puts it ("ratings.by_condition"); NULL:
                     ** the key. A dot nests it in an object. */
    unsigned formats;
    int object;    /* json: the first row as an object, null without rows */
    int scalars;   /* json: the first column of each row, as an array of
                   ** values (a list of sentences, of numbers) */
    int level;     /* md heading level of the title (2: ##, 3: ###) */
    char *title;   /* md heading, or NULL */
    char *note;    /* what the table counts: md paragraph before it, json
                   ** string of a table without columns */
    char *after;   /* md paragraph after the table, or NULL */
    char *caption; /* tex caption (raw TeX), or NULL */
    const TableColumn *cols; /* borrowed: static column lists */
    int n_cols;
    int *series; /* values of the series axis (e.g. session numbers) */
    int n_series;
    const char *series_name; /* e.g. "session" */
    TableCell *cells;        /* n_rows * n_cols, row-major */
    int n_rows;
    size_t cap_rows;
    int at;  /* next column of the last row (table_put_*) */
    int bad; /* a put did not match the column list (a bug) or ran out of
             ** memory; writers refuse such tables */
} Table;

/* A new table with columns cols[0..n_cols) (borrowed, must outlive it),
** shown in formats (TABLE_* bits). NULL when out of memory. */
Table *table_new(const char *key, unsigned formats, const TableColumn *cols,
                 int n_cols);
void table_free(Table *t); /* NULL is a no-op */

/* Text properties; copied. Each returns 0, or -1 when out of memory (the
** table is then marked bad). */
int table_set_title(Table *t, int level, const char *title);
int table_set_note(Table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int table_set_after(Table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int table_set_caption(Table *t, const char *tex);
int table_set_json_path(Table *t, const char *path);
/* The series axis (copied): name and values, e.g. "session", {1, 2, 3}. */
int table_set_series(Table *t, const char *name, const int *values, int n);

/* Appends a row of missing cells; the puts below fill it column by column.
** Returns 0, or -1 when out of memory. */
int table_add_row(Table *t);
void table_put_text(Table *t, const char *s); /* NULL: missing */
void table_put_num(Table *t, double x);       /* INT, BOOL, REAL, ... */
void table_put_interval(Table *t, double low, double high);
/* SERIES columns: n_series values (intervals: low[] and high[]). */
void table_put_series(Table *t, const double *x);
void table_put_series_interval(Table *t, const double *low, const double *high);
void table_skip(Table *t); /* leaves the cell missing */
/* Hides the cell just put in md and/or tex (TABLE_CELL_* bits). */
void table_hide_last(Table *t, unsigned cell_flags);

/* The index of the column named name, or -1. */
int table_column(const Table *t, const char *name);

/* The column's key in json (its json name or its name). */
const char *table_column_json(const TableColumn *c);
/* Whether column c appears in format f (one TABLE_* bit). */
int table_column_in(const TableColumn *c, unsigned f);
/* The cell of row i, column j. */
const TableCell *table_cell(const Table *t, int i, int j);

/* Formats a number as the text writers do: digits decimals, a leading + when
** plus, missing (NaN) as missing. */
void table_fmt_num(SimBuf *b, double x, int digits, int plus,
                   const char *missing);
/* A p-value: %.4f, or %.1e below 0.0001; missing as missing. */
void table_fmt_p(SimBuf *b, double p, const char *missing);
/* TeX-escapes s (\_ \% \& ...). */
void table_tex_escape(SimBuf *b, const char *s);

#endif
