/*
** Helpers for tests of analysis reports: a table by key, a column by name,
** and a cell's number, interval or text. Include after harness.h and
** analysis/report.h.
*/
#ifndef SIMLAB_TESTS_TEST_REPORT_H
#define SIMLAB_TESTS_TEST_REPORT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/report.h"

/* The table of r with this key, or NULL. */
static inline const Table *test_table(const Report *r, const char *key)
{
    for (int i = 0; i < r->n_tables; i++) {
        if (strcmp(r->tables[i]->key, key) == 0) {
            return r->tables[i];
        }
    }
    return NULL;
}

/* The index of column name in t, or -1 (said on stderr). */
static inline int test_col(const Table *t, const char *name)
{
    for (int j = 0; t && j < t->n_cols; j++) {
        if (strcmp(t->cols[j].name, name) == 0) {
            return j;
        }
    }
    fprintf(stderr, "no column %s in %s\n", name, t ? t->key : "(no table)");
    return -1;
}

/* A cell, NULL when absent. */
static inline const TableCell *test_cell(const Table *t, int row,
                                         const char *name)
{
    int j = test_col(t, name);
    return j >= 0 && row >= 0 && row < t->n_rows ? table_cell(t, row, j) : NULL;
}

/* A cell's number (the low end of an interval), NaN when absent. */
static inline double test_num(const Table *t, int row, const char *name)
{
    int j = test_col(t, name);
    return j >= 0 && row >= 0 && row < t->n_rows ? table_cell(t, row, j)->x
                                                 : NAN;
}

/* The high end of an interval cell, NaN when absent. */
static inline double test_hi(const Table *t, int row, const char *name)
{
    int j = test_col(t, name);
    return j >= 0 && row >= 0 && row < t->n_rows ? table_cell(t, row, j)->y
                                                 : NAN;
}

/* A text cell, NULL when absent. */
static inline const char *test_text(const Table *t, int row, const char *name)
{
    int j = test_col(t, name);
    return j >= 0 && row >= 0 && row < t->n_rows ? table_cell(t, row, j)->text
                                                 : NULL;
}

/* The row whose column name holds text s, or -1. */
static inline int test_row(const Table *t, const char *name, const char *s)
{
    int j = test_col(t, name);
    for (int i = 0; j >= 0 && i < t->n_rows; i++) {
        const char *x = table_cell(t, i, j)->text;
        if (x && strcmp(x, s) == 0) {
            return i;
        }
    }
    return -1;
}

#endif
