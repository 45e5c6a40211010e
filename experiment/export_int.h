/*
** Internal to the export (export.c, export_side.c): the cell writer and
** the files written beside the long format, each described in the
** sidecar. Not for use outside experiment/export*.c.
*/
#ifndef SIMLAB_EXPERIMENT_EXPORT_INT_H
#define SIMLAB_EXPERIMENT_EXPORT_INT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

#include "common/sim_error.h"

/* Writes the text of column c of s as one CSV cell (export.c: control
** characters escaped and formulas guarded unless raw). */
void export_write_text(FILE *f, sqlite3_stmt *s, int c, int raw);

/* A table written beside X.csv as X<suffix>. */
typedef struct ExportSide {
    const char *suffix; /* ".questionnaire.csv" */
    const char *key;    /* its member of the sidecar */
    const char *what;   /* for messages: "questionnaire answers" */
    /* whether the database holds rows for it */
    int (*present)(sqlite3 *db);
    /* writes the header and rows to f (path names it), *rows the count */
    int (*write)(sqlite3 *db, const char *db_path, FILE *f, const char *path,
                 int raw, int *rows, SimError *err);
} ExportSide;

/* export_side.c: the side tables, in the order they are written. */
extern const ExportSide EXPORT_SIDES[];
#define EXPORT_N_SIDES 2

/* X<suffix> beside csv_path = X.csv (sim_free), NULL when out of memory. */
char *export_side_path(const char *csv_path, const char *suffix);

/* The sidecar's "columns" of side x (names, or objects with a name and a
** description). */
json_t *export_side_columns(const struct ExportSide *x);

#endif
