/*
** The response record, described once: every column of simlab long format
** v1 with its name, type, meaning and where its value comes from (its SQL
** expression over a store's or a server's tables). The long_format view of
** station files and of the server, the export's header and sidecar, and
** simlab-analyze's column names are all made from this table: a new column
** is one row here plus the code that produces its value. libc only.
*/
#ifndef SIMLAB_COMMON_SIM_COLUMNS_H
#define SIMLAB_COMMON_SIM_COLUMNS_H

#include <stddef.h>

#include "common/sim_text.h"

/* The columns, in their order in the view and the export. */
typedef enum SimColumnId {
    SIM_COL_PARTICIPANT,
    SIM_COL_CONDITION,
    SIM_COL_PHASE,
    SIM_COL_ITEM,
    SIM_COL_CORRECT,
    SIM_COL_SESSION,
    SIM_COL_TEST_TYPE,
    SIM_COL_DOMAIN,
    SIM_COL_BLOCK,
    SIM_COL_TRIAL,
    SIM_COL_IS_CATCH,
    SIM_COL_PREDICTION_TYPE,
    SIM_COL_LABEL,
    SIM_COL_MODEL_OUTPUT,
    SIM_COL_RESPONSE,
    SIM_COL_RATING,
    SIM_COL_RT_MS,
    SIM_COL_PILOT,
    SIM_COL_SIMULATED,
    SIM_COL_EXCLUDED,
    SIM_COL_STATION,
    SIM_COL_EXCLUSION_REASON,
    SIM_COL_ONSET_NS,
    SIM_COL_RESPONSE_NS,
    SIM_COL_TIMED_OUT,
    SIM_COL_CONFIDENCE,
    SIM_COL_CONFIDENCE_RT_MS,
    SIM_COL_MODEL_CORRECT,
    SIM_COL_ADVICE_SHOWN,
    SIM_COL_FOLLOWED_ADVICE,
    SIM_COL_N_OPTIONS,
    SIM_COL_OPTIONS_SHOWN,
    SIM_COL_COUNT
} SimColumnId;

/* Where a column is written. */
enum {
    SIM_COL_VIEW = 1u << 0,   /* in the long_format views */
    SIM_COL_EXPORT = 1u << 1, /* in the exported CSV and its sidecar */
};

typedef struct SimColumn {
    const char *name;    /* column name, in every file and view */
    const char *type;    /* as the sidecar states it: "string", "0/1", ... */
    int required;        /* a long-format reader needs it */
    const char *meaning; /* the sidecar's description */
    /* The value, as an SQL expression valid in SQLite and PostgreSQL over
    ** the aliases t (trial: the step), p (participant), r (response) and
    ** i (item) of the store's and the server's tables. */
    const char *sql;
    /* What an older station file's view (read without migrating it) gives
    ** in its place: an SQL literal, or NULL when every view has it. */
    const char *missing;
    unsigned where; /* SIM_COL_VIEW, SIM_COL_EXPORT */
} SimColumn;

/* The row of column id (id < SIM_COL_COUNT). */
const SimColumn *sim_column(SimColumnId id);

/* The column named name, or -1. */
int sim_column_find(const char *name);

/* Appends "CREATE VIEW long_format AS SELECT <every view column> FROM
** <from>" to b: from is the view's FROM ... ORDER BY text over the aliases
** above (the store's and the server's differ). */
void sim_columns_view_sql(SimBuf *b, const char *from);

/* Appends the long_format view of a station file (the store's tables
** trial, participant, response and item) to b. */
void sim_columns_store_view_sql(SimBuf *b);

/* Whether two SQL texts are the same up to white space (runs of blanks
** count as one; none at either end): a file's stored view against the
** one sim_columns_view_sql() writes. */
int sim_columns_same_sql(const char *a, const char *b);

#endif
