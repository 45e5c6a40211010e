/*
** The server schema every simlab server has, as idempotent SQL built from
** experiment/sync_tables.h: the tables, the participants' server-side
** activity time (active_at, the server's clock), the conflict log, the
** functions stations call (SECURITY DEFINER: they check the caller owns
** the station file and see only what assignment needs) and the triggers
** that keep pushed rows as first pushed. A station creates or migrates it
** only on a server set up the old way; sync_setup.c adds the roles and
** policies of a secured server.
*/
#include "experiment/sync_int.h"

#include "experiment/sync_tables.h"
#include "common/sim_columns.h"
#include "common/sim_text.h"

#include <stdlib.h>
#include <string.h>

/* The schema of table t (CREATE, then every column ADD IF NOT EXISTS, so
** that a column added to sync_tables.c appears on existing servers). */
static void table_ddl(SimBuf *b, const SyncTable *t)
{
    sim_buf_printf(b,
                   "CREATE TABLE IF NOT EXISTS %s (origin text NOT NULL, "
                   "synced_at timestamptz NOT NULL DEFAULT now());",
                   t->table);
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, "ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s;",
                       t->table, col->name, col->pg_type);
    }
    sim_buf_printf(b,
                   "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint "
                   "WHERE conname = '%s_sync_key') THEN ALTER TABLE %s ADD "
                   "CONSTRAINT %s_sync_key PRIMARY KEY (%s); END IF; END $$;",
                   t->table, t->table, t->table, t->key);
}

/* Appends "pre.a, pre.b" for the comma-separated columns in list. */
static void col_list(SimBuf *b, const char *pre, const char *list)
{
    const char *p = list;
    int first = 1;
    while (*p) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ", ");
        if (n) {
            sim_buf_printf(b, "%s%s.%.*s", first ? "" : ", ", pre, (int)n, p);
            first = 0;
        }
        p += n;
    }
}

/* simlab_put_TABLE(origin, rows json): inserts the rows the server does
** not hold; a row whose "same" columns differ from the row held under its
** key is refused and recorded in sync_conflict; returns the refusals. */
static void put_function(SimBuf *b, const SyncTable *t)
{
    sim_buf_printf(b,
                   "CREATE OR REPLACE FUNCTION simlab_put_%s(p_origin text, "
                   "p_rows json) RETURNS bigint LANGUAGE plpgsql SECURITY "
                   "DEFINER AS $f$ DECLARE n bigint; BEGIN "
                   "PERFORM simlab_check_write(p_origin); "
                   "INSERT INTO sync_conflict (origin, tbl, row_key, held, "
                   "refused) SELECT p_origin, '%s', concat_ws(' ', ",
                   t->table, t->table);
    col_list(b, "r", t->key);
    sim_buf_printf(b,
                   "), to_jsonb(t) - 'origin' - 'synced_at', to_jsonb(r) - "
                   "'origin' - 'synced_at' FROM json_populate_recordset("
                   "NULL::%s, p_rows) r JOIN %s t ON (",
                   t->table, t->table);
    col_list(b, "t", t->key);
    sim_buf_puts(b, ") = (");
    col_list(b, "r", t->key);
    sim_buf_puts(b, ") WHERE ROW(");
    col_list(b, "t", t->same);
    sim_buf_puts(b, ") IS DISTINCT FROM ROW(");
    col_list(b, "r", t->same);
    sim_buf_printf(b,
                   "); GET DIAGNOSTICS n = ROW_COUNT; INSERT INTO %s "
                   "(origin",
                   t->table);
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, ", %s", col->name);
    }
    sim_buf_puts(b, ") SELECT p_origin");
    for (const SyncColumn *col = t->cols; col->name; col++) {
        sim_buf_printf(b, ", r.%s", col->name);
    }
    sim_buf_printf(b,
                   " FROM json_populate_recordset(NULL::%s, p_rows) r ON "
                   "CONFLICT (%s) DO NOTHING; RETURN n; END $f$;",
                   t->table, t->key);
}

/* The trigger that keeps a table's rows as first pushed (see
** simlab_frozen below). */
static void frozen_trigger(SimBuf *b, const SyncTable *t)
{
    sim_buf_printf(b,
                   "DROP TRIGGER IF EXISTS simlab_frozen ON %s;"
                   "CREATE TRIGGER simlab_frozen BEFORE UPDATE ON %s FOR "
                   "EACH ROW EXECUTE FUNCTION simlab_frozen('%s'",
                   t->table, t->table, t->frozen);
    const char *p = t->key;
    while (*p) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ", ");
        if (n) {
            sim_buf_printf(b, ", '%.*s'", (int)n, p);
        }
        p += n;
    }
    sim_buf_puts(b, ");");
}

/* The server's long_format: the columns of common/sim_columns.h, as the local
 *view
 ** (store_schema.c), over the rows of every station file, file after file
 ** in the order of their station names (then file id), each file in its
 ** own order: the rows simlab-analyze reads from the station files given
 ** in that order. */
static const char LONG_FORMAT_FROM[] =
    "FROM trial t"
    " JOIN participant p ON p.id = t.participant"
    " JOIN response r ON r.participant = t.participant AND r.seq = t.seq"
    "   AND r.done = 1"
    " LEFT JOIN item i ON i.study_hash = p.study_hash AND i.key = t.item"
    " LEFT JOIN sync_station f ON f.origin = p.origin"
    " WHERE t.phase IS NOT NULL"
    " ORDER BY f.station, p.origin, p.created_ms, p.id, t.seq;";

/* Tables of the server's own, and the participants' activity by the
** server's clock: set when a row arrives or its activity or status
** changes, so that a station's clock cannot hide participants in progress
** from assignment. */
static const char *const SERVER_TABLES =
    "CREATE TABLE IF NOT EXISTS sync_station ("
    "  origin text PRIMARY KEY,"
    "  station text,"
    "  last_push timestamptz,"
    "  last_activity_ms bigint,"
    "  rows_pushed bigint NOT NULL DEFAULT 0,"
    "  pending bigint NOT NULL DEFAULT 0);"
    /* the role a station file belongs to: the role that first pushed it */
    "ALTER TABLE sync_station ADD COLUMN IF NOT EXISTS role name"
    "  DEFAULT current_user;"
    "CREATE TABLE IF NOT EXISTS sync_log ("
    "  id bigserial PRIMARY KEY,"
    "  origin text,"
    "  kind text NOT NULL,"
    "  detail text,"
    "  at timestamptz NOT NULL DEFAULT now());"
    /* station and analyst login roles (simlab server add-station) */
    "CREATE TABLE IF NOT EXISTS sync_role ("
    "  role name PRIMARY KEY,"
    "  kind text NOT NULL,"
    "  station text UNIQUE,"
    "  created_at timestamptz NOT NULL DEFAULT now());"
    /* rows refused as different versions of rows the server holds */
    "CREATE TABLE IF NOT EXISTS sync_conflict ("
    "  id bigserial PRIMARY KEY,"
    "  origin text,"
    "  role name NOT NULL DEFAULT session_user,"
    "  tbl text NOT NULL,"
    "  row_key text,"
    "  held jsonb,"
    "  refused jsonb,"
    "  at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX IF NOT EXISTS sync_conflict_origin ON sync_conflict"
    "  (origin);"
    "CREATE INDEX IF NOT EXISTS participant_count ON participant"
    "  (study_hash, pilot, simulated, condition, status);"
    "ALTER TABLE participant ADD COLUMN IF NOT EXISTS active_at timestamptz"
    "  NOT NULL DEFAULT now();"
    "CREATE OR REPLACE FUNCTION simlab_participant_seen() RETURNS trigger"
    "  LANGUAGE plpgsql AS $f$ BEGIN"
    "  IF TG_OP = 'INSERT' OR NEW.last_active_ms IS DISTINCT FROM"
    "     OLD.last_active_ms OR NEW.status IS DISTINCT FROM OLD.status THEN"
    "    NEW.active_at := now();"
    "  ELSE NEW.active_at := OLD.active_at; END IF;"
    "  RETURN NEW; END $f$;"
    "DROP TRIGGER IF EXISTS simlab_participant_seen ON participant;"
    "CREATE TRIGGER simlab_participant_seen BEFORE INSERT OR UPDATE ON"
    "  participant FOR EACH ROW EXECUTE FUNCTION simlab_participant_seen();"
    /* 1 when the server enforces station roles */
    "CREATE OR REPLACE FUNCTION simlab_secured() RETURNS boolean"
    "  LANGUAGE sql STABLE AS"
    "  $f$ SELECT COALESCE((SELECT bool_or(secured) FROM simlab_schema),"
    "  false) $f$;"
    /* the caller's login role may write the rows of station file p_origin:
    ** it claimed it (or the server is open) */
    "CREATE OR REPLACE FUNCTION simlab_may_write(p_origin text)"
    "  RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER AS"
    "  $f$ SELECT NOT simlab_secured() OR EXISTS (SELECT 1 FROM"
    "  sync_station s WHERE s.origin = p_origin AND s.role = session_user)"
    "  $f$;"
    "CREATE OR REPLACE FUNCTION simlab_check_write(p_origin text)"
    "  RETURNS void LANGUAGE plpgsql STABLE AS $f$ BEGIN"
    "  IF NOT simlab_may_write(p_origin) THEN RAISE EXCEPTION"
    "  'role % may not write the rows of station file %', session_user,"
    "  p_origin USING ERRCODE = '42501'; END IF; END $f$;"
    /* which versions of a study the server holds: for the bundle check */
    "CREATE OR REPLACE FUNCTION simlab_study_versions(p_study_id text,"
    "  p_hash text) RETURNS TABLE (n_same bigint, other text)"
    "  LANGUAGE sql STABLE SECURITY DEFINER AS"
    "  $f$ SELECT count(*) FILTER (WHERE s.hash = p_hash), max(s.hash)"
    "  FILTER (WHERE s.hash <> p_hash) FROM study s WHERE s.study_id ="
    "  p_study_id $f$;"
    "CREATE OR REPLACE FUNCTION simlab_log(p_origin text, p_kind text,"
    "  p_detail text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS"
    "  $f$ BEGIN PERFORM simlab_check_write(p_origin);"
    "  INSERT INTO sync_log (origin, kind, detail) VALUES (p_origin, p_kind,"
    "  p_detail); END $f$;"
    /* what assignment needs, and no more: per condition and status the
    ** participants of a study (pilot and simulated apart) not excluded,
    ** and those the server saw active within p_minutes by its own clock */
    "CREATE OR REPLACE FUNCTION simlab_counts(p_study_id text,"
    "  p_pilot bigint, p_simulated bigint, p_minutes integer)"
    "  RETURNS TABLE (condition text, status text, n_included bigint,"
    "  n_recent bigint) LANGUAGE sql STABLE SECURITY DEFINER AS"
    "  $f$ SELECT p.condition, p.status, sum((p.excluded = 0)::int),"
    "  sum((p.active_at >= now() - make_interval(mins => p_minutes))::int)"
    "  FROM participant p JOIN study s ON s.hash = p.study_hash"
    "  WHERE s.study_id = p_study_id AND p.pilot = p_pilot AND"
    "  p.simulated = p_simulated GROUP BY 1, 2 $f$;"
    /* the statement-level check of a secured server (sync_setup.c) that
    ** the rows a station wrote belong to participants of their own file */
    "CREATE OR REPLACE FUNCTION simlab_same_file() RETURNS trigger"
    "  LANGUAGE plpgsql SECURITY DEFINER AS $f$ BEGIN"
    "  IF EXISTS (SELECT 1 FROM (SELECT DISTINCT n.participant, n.origin"
    "  FROM new_rows n WHERE n.participant IS NOT NULL) d WHERE NOT EXISTS"
    "  (SELECT 1 FROM participant p WHERE p.id = d.participant AND"
    "  p.origin = d.origin)) THEN RAISE EXCEPTION 'a row of % belongs to a"
    " participant of another station file', TG_TABLE_NAME USING ERRCODE ="
    "  '42501'; END IF; RETURN NULL; END $f$;"
    /* a row pushed again: the same version is left alone (nothing to
    ** write); a different one is refused and recorded. TG_ARGV[0]: ""
    ** always, or a column that makes the row final once it is 1; the
    ** rest: the key columns. */
    "CREATE OR REPLACE FUNCTION simlab_frozen() RETURNS trigger"
    "  LANGUAGE plpgsql SECURITY DEFINER AS $f$"
    "  DECLARE held jsonb := to_jsonb(OLD) - 'origin' - 'synced_at';"
    "  sent jsonb := to_jsonb(NEW) - 'origin' - 'synced_at';"
    "  k text := ''; c text; BEGIN"
    "  IF TG_ARGV[0] <> '' AND (held ->> TG_ARGV[0]) IS DISTINCT FROM '1'"
    "  THEN RETURN NEW; END IF;"
    "  IF held = sent THEN RETURN NULL; END IF;"
    "  FOREACH c IN ARRAY TG_ARGV[1:] LOOP"
    "  k := concat_ws(' ', NULLIF(k, ''), held ->> c); END LOOP;"
    "  INSERT INTO sync_conflict (origin, tbl, row_key, held, refused)"
    "  VALUES (NEW.origin, TG_TABLE_NAME, k, held, sent);"
    "  RETURN NULL; END $f$;";

/* Every simlab function runs with this schema then pg_temp on its path:
** a caller's temporary table cannot stand in for one of simlab's. */
static const char *const PIN_PATHS =
    "DO $$ DECLARE f regprocedure; BEGIN"
    "  FOR f IN SELECT p.oid FROM pg_proc p WHERE p.proname LIKE 'simlab\\_%'"
    "  AND p.pronamespace = current_schema()::regnamespace LOOP"
    "  EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f,"
    "  current_schema()); END LOOP; END $$;";

void sync_schema_sql(SimBuf *b)
{
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        table_ddl(b, &SYNC_TABLES[i]);
    }
    sim_buf_puts(b, SERVER_TABLES);
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        if (SYNC_TABLES[i].same) {
            put_function(b, &SYNC_TABLES[i]);
        }
        if (SYNC_TABLES[i].frozen) {
            frozen_trigger(b, &SYNC_TABLES[i]);
        }
    }
    sim_buf_puts(b, "DROP VIEW IF EXISTS long_format;");
    sim_columns_view_sql(b, LONG_FORMAT_FROM);
    sim_buf_puts(b, PIN_PATHS);
}

/* ------------------------------------------------------- schema check */

/* The server's schema version, whether it is this simlab's very schema
** (the md5 of sql) and whether it is secured; version 0 when none. */
static int read_schema(SyncConn *c, const char *sql, int64_t deadline,
                       int *version, int *current, int *secured, SimError *err)
{
    *version = *current = *secured = 0;
    const char *p[1] = {sql};
    PGresult *res = NULL;
    int rc = sync_query(c, "read schema version",
                        "SELECT version, ddl_md5 = md5($1), COALESCE("
                        "(to_jsonb(s) ->> 'secured')::boolean, false) FROM "
                        "simlab_schema s ORDER BY version DESC LIMIT 1",
                        1, p, deadline, &res, err);
    if (rc != SIM_OK) {
        /* 42P01: no simlab_schema table, a server never used */
        return strcmp(c->sqlstate, "42P01") == 0 ? SIM_OK : rc;
    }
    if (PQntuples(res) == 1) {
        *version = atoi(PQgetvalue(res, 0, 0));
        *current = PQgetvalue(res, 0, 1)[0] == 't' &&
                   *version == SYNC_SERVER_SCHEMA_VERSION;
        *secured = PQgetvalue(res, 0, 2)[0] == 't';
    }
    PQclear(res);
    return SIM_OK;
}

/* Creates or migrates the schema of an open server, in one transaction
** serialised by an advisory lock: the first of several stations starting
** together does it, the others find it done. */
static int create_open(SyncConn *c, const char *sql, int64_t deadline,
                       SimError *err)
{
    int rc = sync_query(c, "create schema",
                        "BEGIN;"
                        "SELECT pg_advisory_xact_lock(" SYNC_LOCK_SCHEMA ");"
                        "CREATE TABLE IF NOT EXISTS simlab_schema ("
                        "  version integer NOT NULL, ddl_md5 text);"
                        "ALTER TABLE simlab_schema ADD COLUMN IF NOT EXISTS"
                        "  secured boolean NOT NULL DEFAULT false",
                        -1, NULL, deadline, NULL, err);
    int version = 0, current = 0, secured = 0;
    if (rc == SIM_OK) {
        rc = read_schema(c, sql, deadline, &version, &current, &secured, err);
    }
    if (rc == SIM_OK && !current && !secured) {
        rc = sync_query(c, "create schema", sql, -1, NULL, deadline, NULL, err);
        if (rc == SIM_OK) {
            char v[16];
            snprintf(v, sizeof v, "%d", SYNC_SERVER_SCHEMA_VERSION);
            const char *p[2] = {v, sql};
            rc = sync_query(c, "schema version", "DELETE FROM simlab_schema",
                            -1, NULL, deadline, NULL, err);
            if (rc == SIM_OK) {
                rc = sync_query(c, "schema version",
                                "INSERT INTO simlab_schema (version, "
                                "ddl_md5) VALUES ($1, md5($2))",
                                2, p, deadline, NULL, err);
            }
        }
    }
    if (rc == SIM_OK) {
        rc = sync_query(c, "create schema", "COMMIT", -1, NULL, deadline, NULL,
                        err);
    }
    if (rc != SIM_OK) {
        sync_rollback(c);
    }
    return rc;
}

/* Who this connection is: exempt from the policies (owner, superuser),
** and the station its role stands for. */
static int read_role(SyncConn *c, int64_t deadline, SimError *err)
{
    PGresult *res = NULL;
    int rc = sync_query(
        c, "read role",
        "SELECT r.rolsuper OR r.rolbypassrls OR COALESCE(pg_has_role("
        "current_user, (SELECT relowner FROM pg_class WHERE oid = "
        "to_regclass('participant')), 'MEMBER'), false), COALESCE((SELECT "
        "station FROM sync_role WHERE role = current_user), '') FROM "
        "pg_roles r WHERE r.rolname = current_user",
        -1, NULL, deadline, &res, err);
    if (rc == SIM_OK && PQntuples(res) == 1) {
        c->policy_exempt = PQgetvalue(res, 0, 0)[0] == 't';
        snprintf(c->station, sizeof c->station, "%s", PQgetvalue(res, 0, 1));
    }
    PQclear(res);
    return rc;
}

int sync_schema_check(SyncConn *c, int64_t deadline, SimError *err)
{
    c->warning[0] = '\0';
    if (c->mode == SYNC_SCHEMA_ADMIN) {
        return SIM_OK;
    }
    SimBuf b;
    sim_buf_init(&b);
    sync_schema_sql(&b);
    if (b.oom) {
        sim_buf_free(&b);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int version = 0, current = 0, secured = 0;
    int rc =
        read_schema(c, b.data, deadline, &version, &current, &secured, err);
    if (rc == SIM_OK && version > SYNC_SERVER_SCHEMA_VERSION) {
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "%s: server schema version %d is newer than this "
                      "simlab (%d); use a newer simlab",
                      c->redacted, version, SYNC_SERVER_SCHEMA_VERSION);
    } else if (rc == SIM_OK && !current && c->mode == SYNC_SCHEMA_STATION) {
        if (secured) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: the server's schema was set up by another "
                          "simlab version; an administrator runs `simlab "
                          "server setup ADMIN_URL` with this simlab "
                          "(docs/multisite.md)",
                          c->redacted);
        } else {
            rc = create_open(c, b.data, deadline, err);
        }
    }
    sim_buf_free(&b);
    c->secured = secured;
    if (rc == SIM_OK && (current || c->mode == SYNC_SCHEMA_STATION)) {
        rc = read_role(c, deadline, err);
    }
    if (rc != SIM_OK) {
        return rc;
    }
    const char *user = PQuser(c->pg);
    if (!secured) {
        snprintf(c->warning, sizeof c->warning,
                 "%s is set up the old way: its stations share a role that "
                 "owns simlab's tables, so any station can change any "
                 "station's rows (secure it: docs/multisite.md, \"Moving a "
                 "server to station roles\")",
                 c->redacted);
    } else if (c->policy_exempt && c->mode == SYNC_SCHEMA_STATION) {
        snprintf(c->warning, sizeof c->warning,
                 "connected to %s as role %s, which owns simlab's tables or "
                 "is a superuser: the server's policies do not apply to it; "
                 "give each station its own role (simlab server "
                 "add-station)",
                 c->redacted, user ? user : "?");
    }
    return SIM_OK;
}

int sync_claim_origin(SyncConn *c, const char *origin, const char *station,
                      int64_t deadline, SimError *err)
{
    if (strcmp(c->claimed, origin) == 0) {
        return SIM_OK;
    }
    const char *user = PQuser(c->pg);
    if (c->secured && !c->policy_exempt) {
        if (!c->station[0]) {
            return sim_fail(err, SIM_ERR_INVALID,
                            "%s: role %s is no station of this server (an "
                            "administrator runs `simlab server add-station`)",
                            c->redacted, user ? user : "?");
        }
        if (strcmp(station, c->station) != 0) {
            return sim_fail(err, SIM_ERR_INVALID,
                            "%s: this station file is station '%s', but "
                            "role %s is station '%s' on the server: run it "
                            "with --station %s, or connect with that "
                            "station's own role",
                            c->redacted, station, user ? user : "?", c->station,
                            c->station);
        }
    }
    const char *p[2] = {origin, station};
    PGresult *res = NULL;
    int rc = sync_query(c, "claim station file",
                        "INSERT INTO sync_station (origin, station) VALUES "
                        "($1, $2) ON CONFLICT (origin) DO NOTHING",
                        2, p, deadline, NULL, err);
    if (rc == SIM_OK) {
        rc = sync_query(c, "claim station file", "SELECT simlab_may_write($1)",
                        1, p, deadline, &res, err);
    }
    if (rc == SIM_OK && PQgetvalue(res, 0, 0)[0] != 't') {
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "%s: the server holds the rows of this station file "
                      "(id %s) for another role than %s; they can only be "
                      "pushed with that role",
                      c->redacted, origin, user ? user : "?");
    }
    PQclear(res);
    if (rc == SIM_OK) {
        snprintf(c->claimed, sizeof c->claimed, "%s", origin);
    }
    return rc;
}
