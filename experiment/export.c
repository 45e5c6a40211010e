/*
** Export: the database's long_format view written as simlab long format v1
** (RFC 4180 CSV with CRLF row ends, quoting through libcsv) plus a JSON
** sidecar describing the columns, the study, the software and the timing
** setup. SQLite, libcsv, jansson; no clock.
*/
#include "experiment/export.h"

#include "common/sim_alloc.h"
#include "experiment/store.h"

#include <csv.h>
#include <jansson.h>
#include <sqlite3.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct Column {
    const char *name;
    const char *type;
    int required;
    const char *description;
} Column;

static const Column COLUMNS[] = {
    {"participant", "string", 1, "pseudonymous participant id (UUID)"},
    {"condition", "string", 1, "between-subject condition"},
    {"phase", "string", 1, "practice, learn, pre, post, train, test or quiz"},
    {"item", "string", 1, "item key <pool>:<id> (quiz questions: <block>:<n>)"},
    {"correct", "0/1/empty", 1,
     "1 if the response equals the model output on the shown input (on the "
     "perturbation for counterfactual trials), first try for practice and "
     "quiz; empty when nothing was asked"},
    {"session", "integer/empty", 0, "1-based training session"},
    {"test_type", "string", 0, "forward or counterfactual"},
    {"domain", "string", 0, "item domain"},
    {"block", "string", 0, "block id of the study design"},
    {"trial", "integer", 0, "1-based position in the participant's schedule"},
    {"is_catch", "0/1", 0, "catch trial (a reservoir item shown again)"},
    {"prediction_type", "string", 0,
     "TP, FP, TN or FN of the item's model output vs its label (first class "
     "= positive)"},
    {"label", "string", 0, "true class of the item"},
    {"model_output", "string", 0,
     "model output on the shown input (the perturbation for counterfactual "
     "trials)"},
    {"response", "string", 0, "the participant's answer (class id or option)"},
    {"rating", "integer/empty", 0, "Likert rating of the explanation"},
    {"rt_ms", "number/empty", 0,
     "response time: response_ns - onset_ns in milliseconds"},
    {"pilot", "0/1", 0, "pilot participant"},
    {"simulated", "0/1", 0, "simulated participant"},
    {"excluded", "0/1", 0, "excluded by a screening rule of the study"},
    {"station", "string", 0, "station that recorded the response"},
};

#define N_COLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

static void write_field(FILE *f, const char *v)
{
    if (!v) {
        return;
    }
    if (strpbrk(v, ",\"\r\n")) {
        csv_fwrite(f, v, strlen(v));
    } else {
        fputs(v, f);
    }
}

static int write_csv(sqlite3 *db, const char *db_path, FILE *f,
                     const char *csv_path, int *n_rows, SimError *err)
{
    char sql[1024];
    size_t off = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    for (size_t i = 0; i < N_COLUMNS; i++) {
        off += (size_t)snprintf(sql + off, sizeof sql - off, "%s%s",
                                i ? ", " : "", COLUMNS[i].name);
    }
    snprintf(sql + off, sizeof sql - off, " FROM long_format");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        return sim_fail(err, SIM_ERR_DB, "%s: read long_format: %s", db_path,
                        sqlite3_errmsg(db));
    }
    for (size_t i = 0; i < N_COLUMNS; i++) {
        fprintf(f, "%s%s", i ? "," : "", COLUMNS[i].name);
    }
    fputs("\r\n", f);
    int step, rows = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < (int)N_COLUMNS; c++) {
            if (c) {
                fputc(',', f);
            }
            int type = sqlite3_column_type(s, c);
            if (type == SQLITE_NULL) {
                continue;
            } else if (type == SQLITE_FLOAT) {
                fprintf(f, "%.3f", sqlite3_column_double(s, c));
            } else {
                write_field(f, (const char *)sqlite3_column_text(s, c));
            }
        }
        fputs("\r\n", f);
        rows++;
    }
    int rc = SIM_OK;
    if (step != SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: read long_format: %s", db_path,
                      sqlite3_errmsg(db));
    } else if (ferror(f)) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: write failed", csv_path);
    }
    sqlite3_finalize(s);
    *n_rows = rows;
    return rc;
}

static json_t *query_objects(sqlite3 *db, const char *sql)
{
    json_t *arr = json_array();
    sqlite3_stmt *s;
    if (!arr || sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        return arr;
    }
    while (sqlite3_step(s) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int c = 0; c < sqlite3_column_count(s); c++) {
            const char *name = sqlite3_column_name(s, c);
            switch (sqlite3_column_type(s, c)) {
            case SQLITE_INTEGER:
                json_object_set_new(o, name,
                                    json_integer(sqlite3_column_int64(s, c)));
                break;
            case SQLITE_FLOAT:
                json_object_set_new(o, name,
                                    json_real(sqlite3_column_double(s, c)));
                break;
            case SQLITE_NULL:
                json_object_set_new(o, name, json_null());
                break;
            default: {
                const char *v = (const char *)sqlite3_column_text(s, c);
                /* details of display events are JSON themselves */
                json_t *parsed = NULL;
                if (strcmp(name, "detail") == 0 && v && v[0] == '{') {
                    parsed = json_loads(v, 0, NULL);
                }
                json_object_set_new(o, name, parsed ? parsed : json_string(v));
            }
            }
        }
        json_array_append_new(arr, o);
    }
    sqlite3_finalize(s);
    return arr;
}

static int write_sidecar(sqlite3 *db, const char *db_path, const char *csv_path,
                         int n_rows, SimError *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("simlab long format v1"));
    json_object_set_new(root, "software",
                        json_string("simlab " SIMLAB_VERSION));
    const char *base = strrchr(db_path, '/');
    json_object_set_new(root, "database",
                        json_string(base ? base + 1 : db_path));
    json_object_set_new(root, "rows", json_integer(n_rows));

    json_t *cols = json_array();
    for (size_t i = 0; i < N_COLUMNS; i++) {
        json_array_append_new(
            cols,
            json_pack("{s:s, s:s, s:b, s:s}", "name", COLUMNS[i].name, "type",
                      COLUMNS[i].type, "required", COLUMNS[i].required,
                      "description", COLUMNS[i].description));
    }
    json_object_set_new(root, "columns", cols);

    json_t *studies = json_array();
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "SELECT study_id, title, hash, definition, software,"
                           " created_ms FROM study ORDER BY id",
                           -1, &s, NULL) == SQLITE_OK) {
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *def = (const char *)sqlite3_column_text(s, 3);
            json_t *parsed = def ? json_loads(def, 0, NULL) : NULL;
            json_array_append_new(
                studies,
                json_pack("{s:s?, s:s?, s:s?, s:o, s:s?, s:I}", "id",
                          (const char *)sqlite3_column_text(s, 0), "title",
                          (const char *)sqlite3_column_text(s, 1), "hash",
                          (const char *)sqlite3_column_text(s, 2), "definition",
                          parsed ? parsed : json_null(), "software",
                          (const char *)sqlite3_column_text(s, 4), "created_ms",
                          (json_int_t)sqlite3_column_int64(s, 5)));
        }
        sqlite3_finalize(s);
    }
    json_object_set_new(root, "studies", studies);
    json_object_set_new(
        root, "participants",
        query_objects(db, "SELECT id, code, condition, assigned_by, station, "
                          "pilot, simulated, status, excluded, "
                          "exclusion_reason, seed, created_ms, finished_ms "
                          "FROM participant ORDER BY created_ms, id"));
    json_object_set_new(
        root, "screening",
        query_objects(db, "SELECT participant, rule, passed, detail FROM "
                          "screening ORDER BY rowid"));
    json_t *timing = json_object();
    json_object_set_new(
        timing, "clock",
        json_string("onset_ns and response_ns come from the station's "
                    "monotonic high-resolution clock; onset is taken right "
                    "after the first present that shows the stimulus, the "
                    "response when the input event is taken from the OS"));
    json_object_set_new(
        timing, "display",
        query_objects(db, "SELECT participant, detail, wall_ms FROM event "
                          "WHERE kind = 'display' ORDER BY id"));
    json_object_set_new(
        timing, "missed_frames",
        query_objects(db, "SELECT participant, COUNT(*) AS n FROM event "
                          "WHERE kind = 'missed_frame' GROUP BY participant"));
    json_object_set_new(root, "timing", timing);

    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s.json", csv_path) >=
        sizeof path) {
        json_decref(root);
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", csv_path);
    }
    int rc = SIM_OK;
    if (json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: cannot write sidecar", path);
    }
    json_decref(root);
    return rc;
}

int export_long_csv(const char *db_path, const char *csv_path, SimError *err)
{
    Store *store;
    int rc = store_open_readonly(db_path, &store, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int to_stdout = strcmp(csv_path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(csv_path, "wb");
    if (!f) {
        store_close(store);
        return sim_fail(err, SIM_ERR_IO, "%s: cannot open for writing: %s",
                        csv_path, strerror(errno));
    }
    int n_rows = 0;
    rc = write_csv(store_db(store), db_path, f, csv_path, &n_rows, err);
    if (!to_stdout && fclose(f) != 0 && rc == SIM_OK) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: write failed: %s", csv_path,
                      strerror(errno));
    }
    if (rc == SIM_OK && !to_stdout) {
        rc = write_sidecar(store_db(store), db_path, csv_path, n_rows, err);
    }
    store_close(store);
    return rc;
}
