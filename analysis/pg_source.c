/*
** The server's long format as a temporary SQLite file (see pg_source.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "analysis/pg_source.h"

#include "analysis/interactions.h"
#include "analysis/questionnaire.h"

#include "common/sim_alloc.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"
#include "common/sim_url.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PostgreSQL type oids of the columns the view has. */
#define OID_INT8    20
#define OID_INT2    21
#define OID_INT4    23
#define OID_FLOAT4  700
#define OID_FLOAT8  701
#define OID_NUMERIC 1700

static const char *decl_of(Oid t)
{
    switch (t) {
    case OID_INT8:
    case OID_INT2:
    case OID_INT4:
        return "INTEGER";
    case OID_FLOAT4:
    case OID_FLOAT8:
    case OID_NUMERIC:
        return "REAL";
    default:
        return "TEXT";
    }
}

/* "URL: what: the server's message", the URL redacted, the message
** scrubbed of the URL's secrets and its control characters escaped. */
static int pg_fail(const char *url, PGconn *pg, const PGresult *res,
                   const char *what, SimError *err)
{
    char red[512], msg[400], clean[400], safe[400];
    sim_url_redact(url, red, sizeof red);
    const char *m = res ? PQresultErrorMessage(res) : "";
    snprintf(msg, sizeof msg, "%s", m && *m ? m : PQerrorMessage(pg));
    for (char *p = msg; *p; p++) {
        if (*p == '\n' || *p == '\t') {
            *p = ' ';
        }
    }
    size_t n = strlen(msg);
    while (n && msg[n - 1] == ' ') {
        msg[--n] = '\0';
    }
    sim_url_scrub(url, msg, clean, sizeof clean);
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", red, what,
                    sim_escape_term(clean, safe, sizeof safe));
}

static int lite_fail(sqlite3 *db, const char *path, SimError *err)
{
    return sim_fail(err, SIM_ERR_DB, "%s: %s", path, sqlite3_errmsg(db));
}

/* Creates table name with the columns of res and copies its rows. */
static int copy_result(sqlite3 *db, const char *path, const char *name,
                       const PGresult *res, SimError *err)
{
    int nf = PQnfields(res);
    SimBuf ddl, ins;
    sim_buf_init(&ddl);
    sim_buf_init(&ins);
    sim_buf_printf(&ddl, "CREATE TABLE %s (", name);
    sim_buf_printf(&ins, "INSERT INTO %s VALUES (", name);
    for (int f = 0; f < nf; f++) {
        sim_buf_printf(&ddl, "%s\"%s\" %s", f ? ", " : "", PQfname(res, f),
                       decl_of(PQftype(res, f)));
        sim_buf_puts(&ins, f ? ", ?" : "?");
    }
    sim_buf_puts(&ddl, ")");
    sim_buf_puts(&ins, ")");
    int rc = SIM_OK;
    sqlite3_stmt *s = NULL;
    if (!ddl.data || !ins.data) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    } else if (sqlite3_exec(db, ddl.data, NULL, NULL, NULL) != SQLITE_OK ||
               sqlite3_prepare_v2(db, ins.data, -1, &s, NULL) != SQLITE_OK) {
        rc = lite_fail(db, path, err);
    }
    for (int r = 0; rc == SIM_OK && r < PQntuples(res); r++) {
        sqlite3_reset(s);
        for (int f = 0; f < nf; f++) {
            const char *v = PQgetvalue(res, r, f);
            if (PQgetisnull(res, r, f)) {
                sqlite3_bind_null(s, f + 1);
            } else if (decl_of(PQftype(res, f))[0] == 'I') {
                sqlite3_bind_int64(s, f + 1, strtoll(v, NULL, 10));
            } else if (decl_of(PQftype(res, f))[0] == 'R') {
                sqlite3_bind_double(s, f + 1, strtod(v, NULL));
            } else {
                sqlite3_bind_text(s, f + 1, v, -1, SQLITE_STATIC);
            }
        }
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = lite_fail(db, path, err);
        }
    }
    sqlite3_finalize(s);
    sim_buf_free(&ddl);
    sim_buf_free(&ins);
    return rc;
}

/* The server's questionnaire answers, with what the answer reader
** (questionnaire_load_db) joins them with: the block of their step and its
** condition (the step's: within-subject studies repeat questionnaires). Rows
*come in the order the station files give
** them read one after the other: participants in the order of the
** long_format view (p_rank), each participant's steps in order, and the
** answers of a step in the order of the block's questions in the study
** definition (the order the station stored them in). */
static const char *const ANSWERS_SQL =
    "SELECT a.participant, a.seq, a.question, a.type, a.value,"
    "  t.block_id, COALESCE(t.condition, p.condition) AS condition,"
    "  dense_rank() OVER (ORDER BY f.station, p.origin, p.created_ms, p.id)"
    "    AS p_rank"
    " FROM answer a"
    " JOIN participant p ON p.id = a.participant"
    " JOIN trial t ON t.participant = a.participant AND t.seq = a.seq"
    " LEFT JOIN sync_station f ON f.origin = p.origin"
    " LEFT JOIN study s ON s.hash = p.study_hash"
    " LEFT JOIN LATERAL (SELECT q.ord FROM"
    "   json_array_elements(CASE WHEN json_typeof(s.definition::json ->"
    "     'blocks') = 'array' THEN s.definition::json -> 'blocks'"
    "     ELSE '[]'::json END) WITH ORDINALITY AS b(v, ord),"
    "   json_array_elements(CASE WHEN json_typeof(b.v -> 'questions') ="
    "     'array' THEN b.v -> 'questions' ELSE '[]'::json END)"
    "     WITH ORDINALITY AS q(v, ord)"
    "   WHERE b.v ->> 'kind' = 'questionnaire'"
    "     AND COALESCE(b.v ->> 'id', 'questionnaire' || b.ord) = t.block_id"
    "     AND q.v ->> 'id' = a.question"
    "   LIMIT 1) qp ON true"
    " ORDER BY p_rank, a.seq, qp.ord NULLS LAST, a.question";

/* The answer, participant and trial tables the answer reader joins, made
** from the copied rows (answer_rows, in the order above: the answers'
** rowids keep it; a participant's created_ms is its rank). */
static const char *const ANSWER_TABLES =
    "CREATE TABLE answer AS SELECT participant, seq, question, type, value"
    "  FROM answer_rows ORDER BY rowid;"
    "CREATE TABLE participant AS SELECT participant AS id, condition,"
    "  MIN(p_rank) AS created_ms FROM answer_rows GROUP BY participant;"
    "CREATE TABLE trial AS SELECT DISTINCT participant, seq, block_id,"
    "  condition FROM answer_rows;"
    "DROP TABLE answer_rows;";

/* The server's interactions with explanations, with what the reader
** (interactions_load_db) folds them with: the step's scored answer and
** response time. Copied as interaction_rows. */
static const char *const INTERACTIONS_SQL =
    "SELECT i.participant, i.condition, i.seq + 1 AS trial, i.event, i.t_ms,"
    "  CASE WHEN t.correct_choice >= 0 AND t.is_example = 0"
    "    THEN r.correct END AS correct, r.rt_ms"
    " FROM interaction i"
    " JOIN trial t ON t.participant = i.participant AND t.seq = i.seq"
    " LEFT JOIN response r ON r.participant = i.participant AND"
    "   r.seq = i.seq AND r.done = 1"
    " ORDER BY i.participant, i.seq, i.n";

int pg_source_copy(const char *url, const char *path, SimError *err)
{
    char why[200];
    if (!sim_url_valid(url, why, sizeof why)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "the server's connection string cannot be read by "
                        "libpq (%s); it is not shown, as it may hold a "
                        "password",
                        why);
    }
    const char *keys[] = {"connect_timeout", "application_name", "dbname",
                          NULL};
    const char *vals[] = {"10", "simlab-analyze", url, NULL};
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (!pg) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = SIM_OK;
    if (PQstatus(pg) != CONNECTION_OK) {
        rc = pg_fail(url, pg, NULL, "cannot connect", err);
    }
    /* one snapshot for every query */
    PGresult *study = NULL, *rows = NULL, *answers = NULL, *views = NULL;
    if (rc == SIM_OK) {
        PQclear(PQexec(pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
        study = PQexec(pg, "SELECT study_id, definition, row_number() OVER "
                           "(ORDER BY created_ms, hash) AS id FROM study "
                           "ORDER BY created_ms, hash");
        if (PQresultStatus(study) != PGRES_TUPLES_OK) {
            rc = pg_fail(url, pg, study, "study", err);
        }
    }
    if (rc == SIM_OK) {
        rows = PQexec(pg, "SELECT * FROM long_format");
        if (PQresultStatus(rows) != PGRES_TUPLES_OK) {
            rc = pg_fail(url, pg, rows, "long_format", err);
        }
    }
    if (rc == SIM_OK) {
        answers = PQexec(pg, ANSWERS_SQL);
        const char *state = PQresultErrorField(answers, PG_DIAG_SQLSTATE);
        if (PQresultStatus(answers) != PGRES_TUPLES_OK &&
            !(state && strcmp(state, "42P01") == 0)) {
            rc = pg_fail(url, pg, answers, "answer", err);
        }
        /* 42P01, no answer table: a server from before questionnaires */
    }
    if (rc == SIM_OK) {
        views = PQexec(pg, INTERACTIONS_SQL);
        const char *state = PQresultErrorField(views, PG_DIAG_SQLSTATE);
        if (PQresultStatus(views) != PGRES_TUPLES_OK &&
            !(state && strcmp(state, "42P01") == 0)) {
            rc = pg_fail(url, pg, views, "interaction", err);
        }
        /* 42P01: a server from before interactions */
    }
    sqlite3 *db = NULL;
    if (rc == SIM_OK &&
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        rc = lite_fail(db, path, err);
    }
    if (rc == SIM_OK) {
        sqlite3_exec(db, "PRAGMA journal_mode = OFF; BEGIN", NULL, NULL, NULL);
        rc = copy_result(db, path, "study", study, err);
    }
    if (rc == SIM_OK) {
        rc = copy_result(db, path, "long_format", rows, err);
    }
    if (rc == SIM_OK && PQresultStatus(answers) == PGRES_TUPLES_OK) {
        rc = copy_result(db, path, "answer_rows", answers, err);
        if (rc == SIM_OK &&
            sqlite3_exec(db, ANSWER_TABLES, NULL, NULL, NULL) != SQLITE_OK) {
            rc = lite_fail(db, path, err);
        }
    }
    if (rc == SIM_OK && PQresultStatus(views) == PGRES_TUPLES_OK) {
        rc = copy_result(db, path, "interaction_rows", views, err);
    }
    if (rc == SIM_OK &&
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        rc = lite_fail(db, path, err);
    }
    sqlite3_close(db);
    PQclear(study);
    PQclear(rows);
    PQclear(answers);
    PQclear(views);
    PQfinish(pg);
    return rc;
}

int dataset_load_pg(Dataset *ds, const char *url, SimError *err)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/simlab-analyze-XXXXXX",
             dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot create a temporary file",
                        path);
    }
    close(fd);
    int rc = pg_source_copy(url, path, err);
    int had_baseline = ds->baseline_from != NULL;
    if (rc == SIM_OK) {
        rc = dataset_load_db(ds, path, err);
    }
    /* the study's baseline was found on the server, not in the copy */
    size_t n = strlen(path);
    if (rc == SIM_OK && !had_baseline && ds->baseline_from &&
        strncmp(ds->baseline_from, path, n) == 0) {
        char shown[512];
        sim_url_redact(url, shown, sizeof shown);
        SimBuf b;
        sim_buf_init(&b);
        sim_buf_printf(&b, "%s%s", shown, ds->baseline_from + n);
        char *from = b.oom ? NULL : sim_buf_take(&b);
        sim_buf_free(&b);
        if (!from) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        } else {
            sim_free(ds->baseline_from);
            ds->baseline_from = from;
        }
    }
    if (rc == SIM_OK) {
        rc = questionnaire_load_db(ds, path, err);
    }
    if (rc == SIM_OK) {
        rc = interactions_load_db(ds, path, err);
    }
    unlink(path);
    return rc;
}
