/*
** The tables an export writes beside the long format X.csv, each with its
** rows and sha256 in the sidecar: questionnaire answers
** (X.questionnaire.csv) and interactions with explanations
** (X.interactions.csv, whose columns are experiment/interaction.h's).
** Cells are guarded as the long format's. SQLite, jansson.
*/
#include "experiment/export.h"
#include "experiment/export_int.h"

#include "common/sim_alloc.h"
#include "experiment/interaction.h"

#include <stdio.h>
#include <string.h>

char *export_side_path(const char *csv_path, const char *suffix)
{
    size_t n = strlen(csv_path);
    if (n >= 4 && strcmp(csv_path + n - 4, ".csv") == 0) {
        n -= 4;
    }
    size_t size = n + strlen(suffix) + 1;
    char *out = sim_malloc(size);
    if (out) {
        snprintf(out, size, "%.*s%s", (int)n, csv_path, suffix);
    }
    return out;
}

char *export_questionnaire_path(const char *csv_path)
{
    return export_side_path(csv_path, ".questionnaire.csv");
}

char *export_interactions_path(const char *csv_path)
{
    return export_side_path(csv_path, ".interactions.csv");
}

/* Writes the rows of s (columns 0..n) after the header names. */
static int write_rows(sqlite3 *db, sqlite3_stmt *s, const char *const *names,
                      size_t n, FILE *f, const char *db_path, const char *path,
                      const char *what, int raw, int *n_rows, SimError *err)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s%s", i ? "," : "", names[i]);
    }
    fputs("\r\n", f);
    int step, rows = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < (int)n; c++) {
            if (c) {
                fputc(',', f);
            }
            int type = sqlite3_column_type(s, c);
            if (type == SQLITE_FLOAT) {
                fprintf(f, "%.3f", sqlite3_column_double(s, c));
            } else if (type != SQLITE_NULL) {
                export_write_text(f, s, c, raw);
            }
        }
        fputs("\r\n", f);
        rows++;
    }
    int rc = SIM_OK;
    if (step != SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: read %s: %s", db_path, what,
                      sqlite3_errmsg(db));
    } else if (ferror(f)) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: write failed", path);
    }
    sqlite3_finalize(s);
    *n_rows = rows;
    return rc;
}

/* 1 when db has table name with at least one row. */
static int table_has_rows(sqlite3 *db, const char *name)
{
    sqlite3_stmt *s;
    int found = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                           "AND name = ?",
                           -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    if (!found) {
        return 0;
    }
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 1", name);
    found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        found = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    return found;
}

/* ------------------------------------------------------ questionnaires */

/* The columns of X.questionnaire.csv, one row per answered question. */
static const char *const ANSWER_COLUMNS[] = {
    "participant", "condition", "station", "block",
    "question",    "type",      "value",   "rt_ms"};

#define N_ANSWER_COLUMNS (sizeof ANSWER_COLUMNS / sizeof ANSWER_COLUMNS[0])

/* 1 when the database holds questionnaire steps (schema 4 and later). */
static int has_questionnaires(sqlite3 *db)
{
    sqlite3_stmt *s;
    int found = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                           "AND name = 'answer'",
                           -1, &s, NULL) == SQLITE_OK) {
        found = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    if (found && sqlite3_prepare_v2(db,
                                    "SELECT 1 FROM trial WHERE block_kind = "
                                    "'questionnaire' LIMIT 1",
                                    -1, &s, NULL) == SQLITE_OK) {
        found = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    return found;
}

/* The answers as CSV, in the order of the long format (participants by
** enrollment, then steps), cells guarded like the long format's. */
static int write_answers_csv(sqlite3 *db, const char *db_path, FILE *f,
                             const char *path, int raw, int *n_rows,
                             SimError *err)
{
    static const char *const sql =
        "SELECT a.participant, COALESCE(t.condition, p.condition), "
        "COALESCE(a.station, p.station), "
        "t.block_id, a.question, a.type, a.value, a.rt_ms FROM answer a "
        "JOIN participant p ON p.id = a.participant "
        "JOIN trial t ON t.participant = a.participant AND t.seq = a.seq "
        "ORDER BY p.created_ms, p.id, a.seq, a.rowid";
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: read answers: %s", db_path,
                        sqlite3_errmsg(db));
    }
    return write_rows(db, s, ANSWER_COLUMNS, N_ANSWER_COLUMNS, f, db_path, path,
                      "answers", raw, n_rows, err);
}

/* ------------------------------------------------------- interactions */

/* The columns of X.interactions.csv: those of the table that are
** exported (interaction.h), in its order. */
#define NAME(name, sqlite, pg, csv, expr, doc) csv,
static const char *const INTERACTION_NAMES_ALL[] = {INTERACTION_COLUMNS(NAME)};
#undef NAME
#define DOC(name, sqlite, pg, csv, expr, doc) doc,
static const char *const INTERACTION_DOCS[] = {INTERACTION_COLUMNS(DOC)};
#undef DOC
#define N_INTERACTION_ALL                                                      \
    (sizeof INTERACTION_NAMES_ALL / sizeof INTERACTION_NAMES_ALL[0])

static int has_interactions(sqlite3 *db)
{
    return table_has_rows(db, "interaction");
}

/* The interactions in the order of the long format (participants by
** enrollment, then steps, then events). */
static int write_interactions_csv(sqlite3 *db, const char *db_path, FILE *f,
                                  const char *path, int raw, int *n_rows,
                                  SimError *err)
{
    /* the exported columns only: a column with no csv name is selected
    ** (the expressions are one list) but not written */
    const char *names[N_INTERACTION_ALL];
    size_t n = 0;
    for (size_t i = 0; i < N_INTERACTION_ALL; i++) {
        if (INTERACTION_NAMES_ALL[i]) {
            names[n++] = INTERACTION_NAMES_ALL[i];
        }
    }
    char sql[2048];
    size_t len = 0;
    len += (size_t)snprintf(sql, sizeof sql, "SELECT ");
#define SEL(name, sqlite, pg, csv, expr, doc)                                  \
    if (csv && len < sizeof sql) {                                             \
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s" expr,        \
                                len > 7 ? ", " : "");                          \
    }
    INTERACTION_COLUMNS(SEL)
#undef SEL
    if (len < sizeof sql) {
        snprintf(sql + len, sizeof sql - len,
                 " FROM interaction i JOIN participant p ON p.id = "
                 "i.participant ORDER BY p.created_ms, p.id, i.seq, i.n");
    }
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: read interactions: %s", db_path,
                        sqlite3_errmsg(db));
    }
    return write_rows(db, s, names, n, f, db_path, path, "interactions", raw,
                      n_rows, err);
}

/* ------------------------------------------------------------- sidecar */

const ExportSide EXPORT_SIDES[] = {
    {".questionnaire.csv", "questionnaire", "questionnaire answers",
     has_questionnaires, write_answers_csv},
    {".interactions.csv", "interactions", "interactions", has_interactions,
     write_interactions_csv},
};

_Static_assert(sizeof EXPORT_SIDES / sizeof *EXPORT_SIDES == EXPORT_N_SIDES,
               "EXPORT_N_SIDES counts them");

json_t *export_side_columns(const ExportSide *x)
{
    json_t *cols = json_array();
    if (x->write == write_answers_csv) {
        for (size_t i = 0; i < N_ANSWER_COLUMNS; i++) {
            json_array_append_new(cols, json_string(ANSWER_COLUMNS[i]));
        }
        return cols;
    }
    for (size_t i = 0; i < N_INTERACTION_ALL; i++) {
        if (INTERACTION_NAMES_ALL[i]) {
            json_array_append_new(
                cols, json_pack("{s:s, s:s}", "name", INTERACTION_NAMES_ALL[i],
                                "description", INTERACTION_DOCS[i]));
        }
    }
    return cols;
}
