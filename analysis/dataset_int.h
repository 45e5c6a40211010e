/*
** Inside the Dataset readers: the row converter and the rating scale of
** dataset.c, shared with the SQLite reader (dataset_sqlite.c). Not for
** other callers.
*/
#ifndef SIMLAB_ANALYSIS_DATASET_INT_H
#define SIMLAB_ANALYSIS_DATASET_INT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/dataset.h"
#include "common/sim_csv.h"

/* The hash of the n bytes at s (FNV-1a), for the readers' string tables. */
static inline uint64_t dataset_hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* A value as bytes (not NUL-terminated). */
typedef struct Val {
    const char *p;
    size_t n;
} Val;

/* Where a value came from, for error messages. */
typedef struct Where {
    const char *source; /* file name */
    const char *unit;   /* "" for a CSV line, "long_format row " for a
                           database's, "row " for dataset_add() */
    long line;
} Where;

/* The long-format columns the readers know. */
enum {
    COL_PARTICIPANT,
    COL_CONDITION,
    COL_PHASE,
    COL_ITEM,
    COL_CORRECT,
    COL_SESSION,
    COL_TEST_TYPE,
    COL_DOMAIN,
    COL_IS_CATCH,
    COL_RATING,
    COL_RT_MS,
    COL_PILOT,
    COL_SIMULATED,
    COL_EXCLUDED,
    COL_EXCLUSION_REASON,
    COL_TIMED_OUT,
    COL_CONFIDENCE,
    COL_RESPONSE,
    COL_LABEL,
    COL_MODEL_OUTPUT,
    COL_MODEL_CORRECT,
    COL_ADVICE_SHOWN,
    COL_FOLLOWED_ADVICE,
    COL_N_OPTIONS,
    COL_COUNT,
    /* the required ones come first (the columns' rows say which: a test
    ** checks that they agree) */
    COL_REQUIRED = COL_CORRECT + 1
};

/* A column's name and whether a long-format file must have it (both from
** its row of common/sim_columns.h). */
const char *dataset_col_name(int col);
int dataset_col_required(int col);

/* Converts one row of values (v[col].n == 0 when empty or absent) into a
** response, with every check and located error of the readers. */
int dataset_add_vals(Dataset *ds, const Val *v, const Where *w, SimError *err);

/* The trial columns of one row (dataset_trial.c): *has is 1 when the row
** is a verify or decide trial or offers answer options, and t is then
** filled (model_correct derived from label and model_output when its
** column is empty, a verify trial's verdict from correct and
** model_correct when response is empty); errors are located. */
int dataset_trial_vals(Dataset *ds, const Val *v, const Where *w,
                       DatasetTrial *t, int *has, SimError *err);

/* Whether a test_type value (n bytes at s) is "verify" or "decide". */
int dataset_trial_type(const char *s, size_t n);

/* A text value of a database, NUL-terminated (p[n] == '\0', no NUL
** before), with its pool id (-1 until first used) and, for phases, its
** SimPhase (-2 until first used). */
typedef struct DbStr {
    const char *p;
    size_t n;
    int id;
    int phase;
} DbStr;

#define DB_NULL INT64_MIN /* an integer column's NULL */

/* One row of the long_format view as typed values: str[c] for the text
** columns (NULL: NULL), num[c] for the integer ones (DB_NULL: NULL),
** rt_ms (NaN: NULL). */
typedef struct DbVals {
    DbStr *str[COL_COUNT];
    int64_t num[COL_COUNT];
    double rt_ms;
} DbVals;

/* dataset_add_vals() for typed values, with the same result and the same
** errors as for the values' text (as the view would show them); interns
** the strings on first use. */
int dataset_add_db(Dataset *ds, const DbVals *x, const Where *w, SimError *err);

/* What a source has added, to take it back (a reader that found it
** cannot go on): the rows, participants, contexts and strings after the
** mark, and the changes to the participants before it. */
typedef struct DatasetMark {
    size_t n_rows;
    int n_participants, n_contexts, n_strs;
    int had_rt;
    int had_trials;
    int verify_classes;
    int rating_max;
    char rating_max_source[512];
    Participant *participants; /* a copy */
} DatasetMark;

/* Marks the dataset's state (-1: out of memory); dataset_rollback() goes
** back to it (-1: out of memory, the dataset is then unusable) and frees
** the mark, dataset_mark_free() only frees it. */
int dataset_mark(const Dataset *ds, DatasetMark *m);
int dataset_rollback(Dataset *ds, DatasetMark *m);
void dataset_mark_free(DatasetMark *m);

/* Maps header (or result column) names to column slots; a required column
** that is missing, or one named twice, is an error. */
int dataset_map_header(const Val *names, int n, int *col_of_field,
                       const Where *w, SimError *err);

/* Interns s[0..n); the id, or -1 when out of memory. */
int dataset_intern_n(Dataset *ds, const char *s, size_t n);

/* Forgets the value caches of the previous source. */
void dataset_reset_caches(struct DatasetLoad *ld);

/* After a source: the row arrays shrink to the rows; without a stated
** scale, the data's largest rating is the scale. */
void dataset_fit_rows(Dataset *ds);
void dataset_settle_scale(Dataset *ds);

/* A source (who: "FILE (study 'ID')") states a points-point scale (from:
** "study" or "sidecar"). */
int dataset_state_scale(Dataset *ds, int points, const char *from,
                        const char *who, SimError *err);

/* A source (who: "FILE (study 'ID')", from: "study" or "sidecar") gives
** a study definition: its rating scale ("rating"."points", or the study
** format's default of 7 points) is stated, its "baseline" and "analysis"
** recorded, and its bundle hash (hex, NULL when unknown) kept. */
int dataset_state_study(Dataset *ds, json_t *def, const char *hash,
                        const char *from, const char *who, SimError *err);

/* The explanation metrics stored in definition def ("metrics_values",
** stimuli's study_stored_definition()) added to ds->metrics, a value
** already there from an earlier definition kept (dataset_metrics.c). A
** malformed row fails with who, its row and the problem. */
int dataset_state_metrics(Dataset *ds, json_t *def, const char *who,
                          SimError *err);

/* The step budget of a database's queries: a base plus 16 virtual-machine
** steps per byte of the file (dataset_sqlite.c says why). */
typedef struct DbBudget {
    long long left; /* progress calls left */
} DbBudget;

/* Sets b from the size of db's file and installs it as db's progress
** handler: once spent, db's queries stop with SQLITE_INTERRUPT, so a
** crafted recursive view cannot hang a reader. */
void dataset_db_budget(sqlite3 *db, DbBudget *b);

/* Whether b was spent (a query stopped by it). */
int dataset_db_budget_spent(const DbBudget *b);

/* Opens the database at path read-only with b as its step budget (above);
** on failure *db is NULL and err names the file. */
int dataset_db_open(const char *path, sqlite3 **db, DbBudget *b, SimError *err);

/* A side file of an export (X.questionnaire.csv, X.interactions.csv):
** comma-separated UTF-8 with a header line. */
typedef struct SideCsv {
    FILE *fp;
    SimCsvReader *r; /* the records after the header */
} SideCsv;

/* Opens path and finds the columns need[0..n) in its header (col[k]; an
** error names the file, line and column when one is missing). f->r is
** NULL (and the result SIM_OK) when the file does not exist: nothing to
** read. Close with side_csv_close() either way. */
int side_csv_open(SideCsv *f, const char *path, const char *const *need, int n,
                  int *col, SimError *err);
void side_csv_close(SideCsv *f);

/* Field f equals s. */
int side_csv_field_is(const SimCsvField *f, const char *s);

#endif
