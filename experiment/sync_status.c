/*
** `simlab status`: a study's progress per condition and station, from the
** server (every station that pushed) or from one station file, with each
** station's last activity and how far its sync lags.
*/
#include "experiment/sync_int.h"

#include "experiment/looks.h"
#include "experiment/sync_tables.h"
#include "common/sim_escape.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_of(int pilot, int simulated)
{
    return simulated ? "simulated" : pilot ? "pilot" : "real";
}

/* Prints a counts row; every text escaped. */
static void counts_row(FILE *out, const char *study, const char *cond,
                       const char *station, const char *kind,
                       const char *enrolled, const char *completed,
                       const char *excluded)
{
    char a[160], b[160], c[160];
    fprintf(out, "%-20s %-16s %-16s %-9s %8s %9s %8s\n",
            sim_escape_term(study, a, sizeof a),
            sim_escape_term(cond, b, sizeof b),
            sim_escape_term(station, c, sizeof c), kind, enrolled, completed,
            excluded);
}

static void counts_header(FILE *out)
{
    fprintf(out, "%-20s %-16s %-16s %-9s %8s %9s %8s\n", "study", "condition",
            "station", "kind", "enrolled", "completed", "excluded");
}

/* The looks of every study on the server that plans sequential looks
** (looks.h); a server that cannot answer is passed over. */
static void server_looks(SyncConn *c, FILE *out)
{
    PGresult *res = NULL;
    SimError err;
    if (sync_exec_params(
            c, "looks",
            "SELECT s.hash, s.study_id, s.definition, p.condition, "
            "sum((p.status = 'completed' AND p.excluded = 0 AND p.pilot = 0 "
            "AND p.simulated = 0)::int), sum((p.status = 'completed' AND "
            "p.excluded = 0 AND p.pilot = 0 AND p.simulated = 1)::int) FROM "
            "study s JOIN participant p ON p.study_hash = s.hash GROUP BY 1, "
            "2, 3, 4 ORDER BY 1, 4",
            0, NULL, &res, &err) != SIM_OK) {
        return;
    }
    int rows = PQntuples(res);
    for (int i = 0; i < rows;) {
        LooksCount counts[64];
        int n = 0, first = i;
        while (i < rows &&
               strcmp(PQgetvalue(res, i, 0), PQgetvalue(res, first, 0)) == 0) {
            if (n < 64) {
                counts[n].condition = PQgetvalue(res, i, 3);
                counts[n].real = atol(PQgetvalue(res, i, 4));
                counts[n].simulated = atol(PQgetvalue(res, i, 5));
                n++;
            }
            i++;
        }
        looks_print(out, PQgetvalue(res, first, 1), PQgetvalue(res, first, 2),
                    counts, n);
    }
    PQclear(res);
}

int sync_status_print(SyncConn *c, FILE *out, SimError *err)
{
    int rc = sync_ensure(c, err);
    PGresult *res = NULL;
    if (rc == SIM_OK) {
        rc = sync_exec_params(
            c, "status",
            "SELECT s.study_id, p.condition, COALESCE(p.station, ''), "
            "p.pilot, p.simulated, count(*), sum((p.status = "
            "'completed')::int), sum(p.excluded) FROM participant p JOIN "
            "study s ON s.hash = p.study_hash GROUP BY 1, 2, 3, 4, 5 ORDER "
            "BY 1, 5, 4, 2, 3",
            0, NULL, &res, err);
    }
    if (rc != SIM_OK) {
        if (strcmp(c->sqlstate, "42501") == 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return sim_fail(err, SIM_ERR_DB,
                            "%s; status needs an analyst's role (simlab "
                            "server add-analyst)",
                            msg);
        }
        return rc;
    }
    char red[600];
    fprintf(out, "server %s (schema %d%s)\n",
            sim_escape_term(c->redacted, red, sizeof red),
            SYNC_SERVER_SCHEMA_VERSION,
            c->secured ? ", station roles" : ", set up the old way");
    counts_header(out);
    for (int i = 0; i < PQntuples(res); i++) {
        counts_row(
            out, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
            PQgetvalue(res, i, 2),
            kind_of(atoi(PQgetvalue(res, i, 3)), atoi(PQgetvalue(res, i, 4))),
            PQgetvalue(res, i, 5), PQgetvalue(res, i, 6),
            PQgetvalue(res, i, 7));
    }
    PQclear(res);
    res = NULL;
    server_looks(c, out);
    /* the conflict log of a server from before version 2 is missing */
    rc = sync_exec_params(
        c, "status",
        "SELECT COALESCE(station, ''), "
        "COALESCE(to_char(to_timestamp(last_activity_ms / 1000.0) "
        "AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), '-'), "
        "COALESCE(to_char(last_push AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD HH24:MI:SS'), '-'), "
        "COALESCE(round(extract(epoch FROM now() - last_push))"
        "::bigint, 0), pending, rows_pushed, CASE WHEN to_regclass("
        "'sync_conflict') IS NULL THEN 0 ELSE (SELECT count(*) FROM "
        "sync_conflict k WHERE k.origin = f.origin) END FROM sync_station f "
        "ORDER BY station, origin",
        0, NULL, &res, err);
    if (rc != SIM_OK) {
        return rc;
    }
    fprintf(out, "\n%-16s %-19s  %-19s  %9s %8s %10s %8s\n", "station",
            "last activity (UTC)", "last push (UTC)", "lag (s)", "pending",
            "rows sent", "refused");
    for (int i = 0; i < PQntuples(res); i++) {
        char st[160];
        fprintf(out, "%-16s %-19s  %-19s  %9s %8s %10s %8s\n",
                sim_escape_term(PQgetvalue(res, i, 0), st, sizeof st),
                PQgetvalue(res, i, 1), PQgetvalue(res, i, 2),
                PQgetvalue(res, i, 3), PQgetvalue(res, i, 4),
                PQgetvalue(res, i, 5), PQgetvalue(res, i, 6));
    }
    PQclear(res);
    return SIM_OK;
}

/* The looks of every study of a station file that plans sequential looks
** (looks.h). */
static void local_looks(sqlite3 *db, FILE *out)
{
    sqlite3_stmt *st = NULL, *cn = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, study_id, definition FROM study "
                           "ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT condition, sum(status = 'completed' AND excluded = 0 AND "
            "pilot = 0 AND simulated = 0), sum(status = 'completed' AND "
            "excluded = 0 AND pilot = 0 AND simulated = 1) FROM participant "
            "WHERE study = ? GROUP BY condition",
            -1, &cn, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        LooksCount counts[64];
        char names[64][128];
        int n = 0;
        sqlite3_bind_int64(cn, 1, sqlite3_column_int64(st, 0));
        while (sqlite3_step(cn) == SQLITE_ROW && n < 64) {
            const char *c = (const char *)sqlite3_column_text(cn, 0);
            snprintf(names[n], sizeof names[n], "%s", c ? c : "");
            counts[n].condition = names[n];
            counts[n].real = (long)sqlite3_column_int64(cn, 1);
            counts[n].simulated = (long)sqlite3_column_int64(cn, 2);
            n++;
        }
        sqlite3_reset(cn);
        looks_print(out, (const char *)sqlite3_column_text(st, 1),
                    (const char *)sqlite3_column_text(st, 2), counts, n);
    }
    sqlite3_finalize(cn);
    sqlite3_finalize(st);
}

int sync_status_print_local(const char *db_path, FILE *out, SimError *err)
{
    sqlite3 *db = NULL;
    int rc = sync_local_open(db_path, 1, &db, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(
            db,
            "SELECT s.study_id, p.condition, COALESCE(p.station, ''), "
            "p.pilot, p.simulated, count(*), sum(p.status = 'completed'), "
            "sum(p.excluded) FROM participant p JOIN study s ON s.id = "
            "p.study GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 5, 4, 2, 3",
            -1, &s, NULL) != SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: %s", db_path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return rc;
    }
    char path[600];
    fprintf(out, "station file %s\n",
            sim_escape_term(db_path, path, sizeof path));
    counts_header(out);
    while (sqlite3_step(s) == SQLITE_ROW) {
        char n[3][24];
        for (int k = 0; k < 3; k++) {
            snprintf(n[k], sizeof n[k], "%d", sqlite3_column_int(s, 5 + k));
        }
        counts_row(out, (const char *)sqlite3_column_text(s, 0),
                   (const char *)sqlite3_column_text(s, 1),
                   (const char *)sqlite3_column_text(s, 2),
                   kind_of(sqlite3_column_int(s, 3), sqlite3_column_int(s, 4)),
                   n[0], n[1], n[2]);
    }
    sqlite3_finalize(s);
    long pending = 0;
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        char sql[128], v[32];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM %s WHERE sync_dirty > 0",
                 SYNC_TABLES[i].table);
        if (sync_local_text(db, sql, v, sizeof v) == 0) {
            pending += atol(v);
        }
    }
    char activity[32];
    sync_local_text(db,
                    "SELECT strftime('%Y-%m-%d %H:%M:%S', max(m) / 1000, "
                    "'unixepoch') FROM (SELECT max(last_active_ms) m FROM "
                    "participant UNION ALL SELECT max(wall_ms) FROM event)",
                    activity, sizeof activity);
    fprintf(out, "\nlast activity (UTC) %s; %ld rows not pushed yet\n",
            activity[0] ? activity : "-", pending);
    if (sqlite3_prepare_v2(db,
                           "SELECT url, strftime('%Y-%m-%d %H:%M:%S', "
                           "last_push_ms / 1000, 'unixepoch'), rows FROM "
                           "sync_state ORDER BY url",
                           -1, &s, NULL) == SQLITE_OK) {
        while (sqlite3_step(s) == SQLITE_ROW) {
            char url[600];
            fprintf(out, "last push to %s at %s (UTC), %lld rows sent\n",
                    sim_escape_term((const char *)sqlite3_column_text(s, 0),
                                    url, sizeof url),
                    (const char *)sqlite3_column_text(s, 1),
                    (long long)sqlite3_column_int64(s, 2));
        }
    }
    sqlite3_finalize(s);
    local_looks(db, out);
    sqlite3_close(db);
    return SIM_OK;
}
