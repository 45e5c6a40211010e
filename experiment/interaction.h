/*
** The interaction table: every reveal, hide and hover of an explanation
** given on request or on hover, one row per event with the time from the
** stimulus onset. Its columns are defined once, here (INTERACTION_COLUMNS):
** the store's table (store_schema.c), the server's (sync_tables.c) and the
** export's <csv>.interactions.csv (export_side.c) are all made from them.
** No SDL, no clock.
*/
#ifndef SIMLAB_EXPERIMENT_INTERACTION_H
#define SIMLAB_EXPERIMENT_INTERACTION_H

#include <stddef.h>

/* X(name, sqlite, pg, csv, expr, doc): the column name in the store and on
** the server, its SQLite declaration and server type, its name in the
** export (NULL: not exported), the export's SQL expression over the table
** as alias i, and what it holds. Rows are keyed by participant, seq, n. */
#define INTERACTION_COLUMNS(X)                                                 \
    X(participant, "TEXT NOT NULL", "text", "participant", "i.participant",    \
      "the participant (UUID)")                                                \
    X(condition, "TEXT NOT NULL", "text", "condition", "i.condition",          \
      "the condition of the step")                                             \
    X(block, "TEXT NOT NULL", "text", "block", "i.block", "the block id")      \
    X(seq, "INTEGER NOT NULL", "bigint", "trial", "i.seq + 1",                 \
      "the step: trial as in the long format (seq + 1)")                       \
    X(item, "TEXT", "text", "item", "i.item", "the item key shown")            \
    X(attempt, "INTEGER NOT NULL", "bigint", "attempt", "i.attempt",           \
      "1-based attempt of the step (practice retries)")                        \
    X(n, "INTEGER NOT NULL", "bigint", "n", "i.n",                             \
      "1-based number of the event within the step")                           \
    X(event, "TEXT NOT NULL", "text", "event", "i.event",                      \
      "offer (shown hidden or unhovered at onset), reveal, hide, hover, "      \
      "unhover")                                                               \
    X(target, "TEXT", "text", "target", "i.target",                            \
      "hover: the value's label; a reservoir card's: reservoir:ITEM; else "    \
      "empty (the item's explanation)")                                        \
    X(t_ms, "REAL NOT NULL", "double precision", "t_ms", "i.t_ms",             \
      "ms from the stimulus onset (the step's first attempt)")                 \
    X(recorded_ms, "INTEGER NOT NULL", "bigint", NULL, "i.recorded_ms",        \
      "wall-clock time of recording (Unix ms)")                                \
    X(station, "TEXT", "text", "station", "i.station",                         \
      "the station that recorded it")

/* The key of the table (store and server). */
#define INTERACTION_KEY "participant, seq, n"

/* Events, as written. */
#define INTERACTION_OFFER   "offer"
#define INTERACTION_REVEAL  "reveal"
#define INTERACTION_HIDE    "hide"
#define INTERACTION_HOVER   "hover"
#define INTERACTION_UNHOVER "unhover"

/* One event of a step, kept by the session until the step's response is
** stored (in the same transaction). */
typedef struct Interaction {
    const char *event; /* INTERACTION_* (a literal) */
    char target[160];  /* "" for the item's explanation */
    double t_ms;       /* from the step's onset */
    int attempt;       /* 1-based */
} Interaction;

/* The CREATE TABLE statement of the store's interaction table, written
** into buf (n bytes); 0, or -1 when it does not fit. */
int interaction_create_sql(char *buf, size_t n);

#endif
