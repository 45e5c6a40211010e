/*
** The responses simlab-analyze works on: rows of "simlab long format v1"
** read from CSV files (our own RFC 4180 reader, checked against the JSON
** sidecar of an export) or from the long_format view of simlab databases
** (SQLite), with interned strings, and the rating scale the sources state.
** No statistics here.
*/
#ifndef SIMLAB_ANALYSIS_DATASET_H
#define SIMLAB_ANALYSIS_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"

enum {
    PHASE_PRACTICE,
    PHASE_LEARN,
    PHASE_PRE,
    PHASE_POST,
    PHASE_TRAIN,
    PHASE_TEST,
    PHASE_QUIZ,
    PHASE_COUNT
};

/* Returns the long-format name of a phase ("pre", ...). */
const char *dataset_phase_name(int phase);

typedef struct DatasetResponse {
    int participant;   /* index into Dataset.participants */
    int condition;     /* string id (dataset_str) */
    int item;          /* string id of the item column as written */
    int test_type;     /* string id; 0 is the empty string */
    int domain;        /* string id; 0 is the empty string */
    int session;       /* 1-based session; 0 when empty */
    int8_t phase;      /* PHASE_* */
    int8_t correct;    /* 0, 1, or -1 when unanswered */
    int8_t rating;     /* 1..Dataset.rating_points, or 0 when empty */
    int8_t is_catch;   /* 0/1 */
    int8_t timed_out;  /* 0/1: the answer deadline passed (correct -1) */
    int8_t confidence; /* 1..11, or 0 when empty */
    double rt_ms;      /* response time; NaN when empty */
} DatasetResponse;

typedef struct Participant {
    int name;         /* string id of the participant column */
    int condition;    /* string id of the condition of its first row */
    int pilot;        /* 1 when any row says pilot */
    int simulated;    /* 1 when any row says simulated */
    int excluded;     /* 1 when any row says excluded */
    int reason;       /* string id of the first non-empty exclusion_reason */
    int n_conditions; /* 2 or more: rows disagree about the condition */
} Participant;

typedef struct StrPool StrPool;

/* Rating scales have 2..DATASET_RATING_MAX points; a study definition
** without a "rating" object asks on the default scale. */
#define DATASET_RATING_MAX     11
#define DATASET_RATING_DEFAULT 7

typedef struct Dataset {
    DatasetResponse *rows;
    size_t n_rows, cap_rows;
    Participant *participants;
    int n_participants, cap_participants;
    StrPool *pool;
    struct KeyMap *pindex;    /* participant index by name id */
    int n_sources;            /* files and databases read */
    struct DatasetLoad *load; /* reader state (private to dataset.c) */
    /* The rating scale: 1..rating_points (2..11); 0 when no source said it
    ** and no rating was read. rating_from says where it came from: "study"
    ** (the study definition in a database), "sidecar" (the JSON sidecar of
    ** an export), "data" (the largest rating seen) or "" (unknown). */
    int rating_points;
    const char *rating_from;
} Dataset;

/* One response given field by field (e.g. by a simulator). Strings may be
** NULL for empty; correct, rating: -1 / 0 for empty; rt_ms: NaN for empty. */
typedef struct DatasetRow {
    const char *participant, *condition, *phase, *item;
    const char *test_type, *domain, *exclusion_reason;
    int correct, session, is_catch, rating, pilot, simulated, excluded;
    double rt_ms;
    int timed_out;  /* 0/1 (a timeout's correct is ignored: missing) */
    int confidence; /* 1..11, 0 for empty */
} DatasetRow;

/* Appends one response, with the checks of the file readers. */
int dataset_add(Dataset *ds, const DatasetRow *row, SimError *err);

/* On success *out owns a new, empty Dataset; release with dataset_free(). */
int dataset_new(Dataset **out, SimError *err);
void dataset_free(Dataset *ds); /* NULL is a no-op */

/* Appends the rows of a long-format CSV file. Errors name the file, line and
** column ("data.csv:12: column 'correct': expected 0, 1 or empty, got 'x'");
** a NUL byte in a field is one. When PATH.json (the export's sidecar)
** exists, its study definitions state the rating scale, and its "rows" and
** "sha256" must match the file. On failure the dataset may hold the rows
** read before the fault. */
int dataset_load_csv(Dataset *ds, const char *path, SimError *err);

/* Appends the rows of the long_format view of a simlab database (its known
** columns, by name); the study table's definitions state the rating scale.
** A query that runs too long for the file's size (e.g. a recursive view)
** is stopped with an error. */
int dataset_load_db(Dataset *ds, const char *path, SimError *err);

/* States the rating scale for library callers (e.g. a simulator that knows
** its study): points in 2..11, source names it in messages. Fails when an
** earlier source stated another scale or a larger rating was read. */
int dataset_state_rating_scale(Dataset *ds, int points, const char *source,
                               SimError *err);

/* Interns s (copied); returns its id, or -1 when out of memory. The empty
** string is always id 0. */
int dataset_intern(Dataset *ds, const char *s);
/* The string of an id; borrowed until the dataset is freed. */
const char *dataset_str(const Dataset *ds, int id);
/* The id of s, or -1 when it was never interned. */
int dataset_find(const Dataset *ds, const char *s);

#endif
