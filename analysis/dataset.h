/*
** The responses simlab-analyze works on: rows of "simlab long format v1"
** read from CSV files (our own RFC 4180 reader, checked against the JSON
** sidecar of an export) or from simlab databases (SQLite: the long_format
** view, or a store's tables; dataset_sqlite.c), with interned strings, and
** the rating scale the sources state. No statistics here.
*/
#ifndef SIMLAB_ANALYSIS_DATASET_H
#define SIMLAB_ANALYSIS_DATASET_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sim_decode.h"
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

/* One response in 16 bytes. Reads of the bit-fields behave as ints; the
** test type, domain and session are interned together as a context
** (dataset_test_type(), dataset_domain(), dataset_session()) and the
** response times are kept apart (dataset_rt_ms()). The last word has 5
** bits free. */
typedef struct DatasetResponse {
    int participant;         /* index into Dataset.participants */
    int condition;           /* string id (dataset_str) */
    unsigned item : 24;      /* string id of the item column as written */
    unsigned phase : 3;      /* PHASE_* */
    unsigned rating : 4;     /* 1..Dataset.rating_points, or 0 when empty */
    unsigned is_catch : 1;   /* 0/1 */
    unsigned context : 20;   /* index into Dataset.contexts */
    signed int correct : 2;  /* 0, 1, or -1 when unanswered */
    unsigned timed_out : 1;  /* 0/1: the answer deadline passed (correct -1) */
    unsigned confidence : 4; /* 1..11, or 0 when empty */
    /* 5 bits free */
} DatasetResponse;

/* The largest string id an item may have, and the most contexts. */
#define DATASET_MAX_ITEM_ID  0xFFFFFF
#define DATASET_MAX_CONTEXTS 0xFFFFF

/* What the protocols of model-error detection and of advice add to a
** response (the columns of verify and decide trials and of answer
** options; docs/analysis.md "Detecting the model's errors"). */
enum { DATASET_ACCEPT = 1, DATASET_REJECT = 2 };
typedef struct DatasetTrial {
    signed char model_correct;   /* 1: model_output == label, 0: not, -1 */
    signed char verdict;         /* DATASET_ACCEPT, DATASET_REJECT, or 0 */
    signed char advice_shown;    /* 0/1, -1 when empty */
    signed char followed_advice; /* 0/1, -1 when empty */
    unsigned char n_options;     /* 2..255 answer options, 0 when empty */
} DatasetTrial;

/* A (test type, domain, session) combination of the responses. */
typedef struct DatasetContext {
    int test_type; /* string id; 0 is the empty string */
    int domain;    /* string id; 0 is the empty string */
    int session;   /* 1-based session; 0 when empty */
} DatasetContext;

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
    /* Called now and then while a CSV file is read, with the share of it
    ** read (NULL: none): simlab-analyze's progress line. */
    void (*progress)(void *ctx, double share);
    void *progress_ctx;
    /* The rating scale: 1..rating_points (2..11); 0 when no source said it
    ** and no rating was read. rating_from says where it came from: "study"
    ** (the study definition in a database), "sidecar" (the JSON sidecar of
    ** an export), "data" (the largest rating seen) or "" (unknown). */
    int rating_points;
    const char *rating_from;
    DatasetContext *contexts; /* the contexts of the rows */
    int n_contexts, cap_contexts;
    double *rt_ms; /* per row, NaN when empty; NULL when no row has one */
    /* questionnaire answers (analysis/questionnaire.h), NULL when none */
    struct DatasetAnswers *answers;
    /* steps that offered an explanation on request or on hover
    ** (analysis/views.h), NULL when none */
    struct DatasetViews *views;
    /* The reference condition the study definitions name (their
    ** "baseline"), NULL when none names one; baseline_from says where it
    ** was read ("FILE (study 'ID')"). When two definitions name different
    ** baselines, baseline_conflict says so (and baseline is the first). */
    char *baseline;
    char *baseline_from;
    char *baseline_conflict;
    /* The study definitions' "analysis" block (the primary test, alpha,
    ** correction, looks: common/sim_analysis.h) as JSON text, NULL when
    ** none has one; analysis_from says where it was read, and
    ** analysis_conflict that two definitions hold different blocks. */
    char *analysis;
    char *analysis_from;
    char *analysis_conflict;
    /* The bundle hashes (SHA-256, hex) of the studies the sources name,
    ** distinct, in order of reading; none for a CSV without sidecar. */
    char (*study_hashes)[65];
    int n_study_hashes;
    /* The explanation metrics stored with the study definitions (their
    ** "metrics_values", common/sim_metrics.h), NULL when none holds any. */
    struct SimMetrics *metrics;
    /* Per row, what verify, decide and answer-option trials add (read
    ** from the columns model_correct -- or label and model_output --,
    ** response, advice_shown, followed_advice, n_options); NULL when no
    ** row is such a trial (dataset_trial()). */
    DatasetTrial *trials;
    /* The distinct labels and model outputs of verify trials: 1 or 2 is
    ** that many (a binary task when 2), 3 is more than two, 0 unknown (no
    ** label or model_output column). */
    int verify_classes;
    int verify_class_ids[2];
} Dataset;

/* The test type, domain and session of a response. */
static inline int dataset_test_type(const Dataset *ds, const DatasetResponse *r)
{
    return ds->contexts[r->context].test_type;
}
static inline int dataset_domain(const Dataset *ds, const DatasetResponse *r)
{
    return ds->contexts[r->context].domain;
}
static inline int dataset_session(const Dataset *ds, const DatasetResponse *r)
{
    return ds->contexts[r->context].session;
}
/* The response time of row i in ms; NaN when empty. */
static inline double dataset_rt_ms(const Dataset *ds, size_t i)
{
    return ds->rt_ms ? ds->rt_ms[i] : (double)NAN;
}

/* The trial columns of row i (dataset->trials), or those of a row of
** none: model_correct -1, no verdict, advice -1, no options. */
static inline DatasetTrial dataset_trial(const Dataset *ds, size_t i)
{
    DatasetTrial none = {-1, 0, -1, -1, 0};
    return ds->trials ? ds->trials[i] : none;
}

/* One response given field by field (e.g. by a simulator). Strings may be
** NULL for empty; correct, rating: -1 / 0 for empty; rt_ms: NaN for empty. */
typedef struct DatasetRow {
    const char *participant, *condition, *phase, *item;
    const char *test_type, *domain, *exclusion_reason;
    int correct, session, is_catch, rating, pilot, simulated, excluded;
    double rt_ms;
    int timed_out;  /* 0/1 (a timeout's correct is ignored: missing) */
    int confidence; /* 1..11, 0 for empty */
    /* verify and decide trials, answer options: as the columns' text
    ** (NULL for empty; model_correct is derived from label and
    ** model_output when NULL); n_options 0 for empty */
    const char *response, *label, *model_output, *model_correct;
    const char *advice_shown, *followed_advice;
    int n_options;
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

/* How a CSV file is written: the dialects of a study bundle's item banks
** (docs/study-format.md), here for simlab-analyze --delimiter and
** --encoding. The encoding is any that iconv knows (common/sim_decode.h);
** a zeroed one is UTF-8. UTF-16 needs a byte order mark (LE or BE);
** UTF-8's is skipped in any encoding. */
typedef struct DatasetCsvDialect {
    char delimiter; /* ',', ';' or '\t' */
    SimEncoding encoding;
} DatasetCsvDialect;

/* Reads a delimiter name (",", ";", "\t", "tab" or "\\t") or an encoding
** name (sim_encoding_find: "utf-8", "windows-1252", "windows-1256", "gbk",
** "shift_jis", ...; any case). Returns 0, or -1 for an unknown name. */
int dataset_parse_delimiter(const char *s, char *out);
int dataset_parse_encoding(const char *s, SimEncoding *out);

/* dataset_load_csv() for a file in dialect d (NULL: UTF-8 with ','). Bytes
** that do not fit the encoding (also in UTF-8) are errors that name the
** file, the line and the byte; the sidecar's SHA-256 is of the file's bytes
** as stored. */
int dataset_load_csv_dialect(Dataset *ds, const char *path,
                             const DatasetCsvDialect *d, SimError *err);

/* Appends the rows of the long_format view of a simlab database (its known
** columns, by name); the study table's definitions state the rating scale.
** A query that runs too long for the file's size (e.g. a recursive view)
** is stopped with an error. A simlab store (schema version 6 or later,
** the engine's view, no write-ahead log pending) is read from its tables
** instead, with the same rows, values and errors, several times faster.
** Errors name the file, the view's row and the column. */
int dataset_load_db(Dataset *ds, const char *path, SimError *err);

/* How dataset_load_db_how() reads a database: the tables of a store when
** it can, else the view (AUTO); always the view (VIEW, the reference); the
** tables or SIM_ERR_STATE saying why not (TABLES). */
typedef enum DatasetDbReader {
    DATASET_DB_AUTO,
    DATASET_DB_VIEW,
    DATASET_DB_TABLES
} DatasetDbReader;

/* dataset_load_db() with the reader chosen. */
int dataset_load_db_how(Dataset *ds, const char *path, DatasetDbReader how,
                        SimError *err);

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
