/*
** The tables a station pushes to the PostgreSQL server (docs/multisite.md),
** as data: one SyncTable per local table, one SyncColumn per column. The
** server schema (CREATE TABLE and ADD COLUMN IF NOT EXISTS), the upserts
** and the local SELECT of rows to push are all built from this list, and
** the local migration (store_schema.c, step 7) gives each of these tables
** its sync_dirty mark. No libpq here: the store uses it too.
**
** Adding a column that a later migration adds locally: one line in that
** table's column list (sync_tables.c). Adding a table: one SyncTable in
** SYNC_TABLES, and in the migration step that creates the table locally,
** store_sync_mark_sql() for it.
*/
#ifndef SIMLAB_EXPERIMENT_SYNC_TABLES_H
#define SIMLAB_EXPERIMENT_SYNC_TABLES_H

#include <stddef.h>

typedef struct SyncColumn {
    const char *name;    /* server column name */
    const char *pg_type; /* server type: "text", "bigint", "double precision" */
    const char *expr;    /* local SQL expression over alias t; NULL: t.name */
} SyncColumn;

typedef struct SyncTable {
    const char *table;      /* local and server table name */
    const char *key;        /* server primary key (origin is a column of
                               every server table, set to the file's id) */
    const SyncColumn *cols; /* columns, ending with a {NULL} entry */
    const char *same;       /* rows shared by every file of a bundle (study,
                               item): the columns that must agree with the
                               row the server holds under the key; such
                               rows go through the server's function
                               simlab_put_TABLE, never overwrite, and a
                               different version is refused. NULL: rows of
                               one file, upserted. */
    const char *frozen;     /* rows the server keeps as first pushed: ""
                               always, "done" once done = 1; a different
                               version later is refused. NULL: rows the
                               file may change. */
    int per_participant;    /* rows of one participant (participant column):
                               the participant must be of the same file */
} SyncTable;

/* Parents before children: study, item, participant, trial, response,
** screening, event. */
extern const SyncTable SYNC_TABLES[];
extern const size_t SYNC_N_TABLES;

/* Number of columns of t. */
size_t sync_table_ncols(const SyncTable *t);

#endif
