/*
** The administrator's commands (docs/multisite.md): `simlab server setup`
** gives a server simlab's schema owned by the role simlab_owner, the group
** roles of stations and analysts, the grants and the row-level security
** policies through which PostgreSQL itself keeps each station to its own
** rows; `add-station` and `add-analyst` make login roles with random
** passwords written to a pgpass file. Nothing here prints a password.
*/
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync */

#include "experiment/sync_int.h"

#include "experiment/export.h"
#include "experiment/sync_tables.h"
#include "common/sim_text.h"
#include "common/sim_url.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The server's own tables, beside SYNC_TABLES. */
static const char *const SERVER_ONLY[] = {"simlab_schema", "sync_station",
                                          "sync_log",      "sync_role",
                                          "sync_conflict", "long_format"};
#define N_SERVER_ONLY (sizeof SERVER_ONLY / sizeof SERVER_ONLY[0])

/* The rows of the caller's own station files: what a station role reads
** and writes. */
#define OWN_FILES                                                              \
    "origin IN (SELECT s.origin FROM sync_station s WHERE s.role = "           \
    "current_user)"
#define OWN_STATION                                                            \
    "(SELECT r.station FROM sync_role r WHERE r.role = current_user)"

/* Roles, membership, schema privileges and ownership of what an older
** set-up left: run as the administrator. */
static void bootstrap_sql(SimBuf *b)
{
    sim_buf_puts(
        b,
        "DO $$ BEGIN"
        " IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
        "'" SYNC_ROLE_OWNER "') THEN CREATE ROLE " SYNC_ROLE_OWNER
        " NOLOGIN; END IF;"
        " IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
        "'" SYNC_ROLE_STATIONS "') THEN CREATE ROLE " SYNC_ROLE_STATIONS
        " NOLOGIN; END IF;"
        " IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
        "'" SYNC_ROLE_ANALYSTS "') THEN CREATE ROLE " SYNC_ROLE_ANALYSTS
        " NOLOGIN; END IF;"
        " IF NOT pg_has_role(current_user, '" SYNC_ROLE_OWNER "', 'MEMBER')"
        " THEN EXECUTE format('GRANT " SYNC_ROLE_OWNER " TO %I',"
        " current_user); END IF;"
        " EXECUTE format('GRANT USAGE, CREATE ON SCHEMA %I TO " SYNC_ROLE_OWNER
        "', current_schema());"
        " EXECUTE format('GRANT USAGE ON SCHEMA %I TO " SYNC_ROLE_STATIONS
        ", " SYNC_ROLE_ANALYSTS "', current_schema());"
        " END $$;");
    /* tables, views and functions of a server set up the old way belong
    ** to the stations' shared role: hand them to simlab_owner */
    sim_buf_puts(b, "DO $$ DECLARE r record; f regprocedure; BEGIN"
                    " FOR r IN SELECT c.oid::regclass AS o, c.relkind FROM"
                    " pg_class c WHERE c.relnamespace ="
                    " current_schema()::regnamespace AND c.relkind IN ('r',"
                    " 'v') AND c.relowner <> '" SYNC_ROLE_OWNER
                    "'::regrole AND c.relname IN (");
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        sim_buf_printf(b, "%s'%s'", i ? ", " : "", SYNC_TABLES[i].table);
    }
    for (size_t i = 0; i < N_SERVER_ONLY; i++) {
        sim_buf_printf(b, ", '%s'", SERVER_ONLY[i]);
    }
    sim_buf_puts(
        b, ") LOOP EXECUTE format(CASE WHEN r.relkind = 'v' THEN"
           " 'ALTER VIEW %s OWNER TO " SYNC_ROLE_OWNER "' ELSE"
           " 'ALTER TABLE %s OWNER TO " SYNC_ROLE_OWNER "' END,"
           " r.o); END LOOP;"
           " FOR f IN SELECT p.oid FROM pg_proc p WHERE p.proname"
           " LIKE 'simlab\\_%' AND p.pronamespace ="
           " current_schema()::regnamespace AND p.proowner <> '" SYNC_ROLE_OWNER
           "'::regrole LOOP EXECUTE format('ALTER FUNCTION %s OWNER"
           " TO " SYNC_ROLE_OWNER "', f); END LOOP; END $$;");
}

/* Row-level security and grants of one pushed table. */
static void secure_table(SimBuf *b, const SyncTable *t)
{
    sim_buf_printf(b,
                   "REVOKE ALL ON %s FROM PUBLIC;"
                   "GRANT SELECT ON %s TO " SYNC_ROLE_ANALYSTS ";",
                   t->table, t->table);
    if (t->same) {
        return; /* shared rows: written through simlab_put_TABLE only */
    }
    sim_buf_printf(
        b,
        "ALTER TABLE %s ENABLE ROW LEVEL SECURITY;"
        "GRANT SELECT, INSERT, UPDATE ON %s TO " SYNC_ROLE_STATIONS ";"
        "DROP POLICY IF EXISTS simlab_analyst ON %s;"
        "CREATE POLICY simlab_analyst ON %s FOR SELECT TO " SYNC_ROLE_ANALYSTS
        " USING (true);"
        "DROP POLICY IF EXISTS simlab_station ON %s;"
        "CREATE POLICY simlab_station ON %s TO " SYNC_ROLE_STATIONS
        " USING (" OWN_FILES ") WITH CHECK (" OWN_FILES,
        t->table, t->table, t->table, t->table, t->table, t->table);
    if (strcmp(t->table, "participant") == 0) {
        sim_buf_puts(b, " AND station = " OWN_STATION);
    }
    sim_buf_puts(b, ");");
    if (t->per_participant) {
        /* a file's rows belong to its own participants only: checked once
        ** per statement over the distinct participants of its rows (a
        ** batch of a thousand schedule rows holds about ten), not row by
        ** row */
        for (int upd = 0; upd < 2; upd++) {
            const char *op = upd ? "UPDATE" : "INSERT";
            sim_buf_printf(b,
                           "DROP TRIGGER IF EXISTS simlab_same_file_%s ON %s;"
                           "CREATE TRIGGER simlab_same_file_%s AFTER %s ON %s "
                           "REFERENCING NEW TABLE AS new_rows FOR EACH "
                           "STATEMENT EXECUTE FUNCTION simlab_same_file();",
                           op, t->table, op, op, t->table);
        }
    }
}

static const char *const SECURE_SERVER_TABLES =
    "REVOKE ALL ON simlab_schema, sync_station, sync_log, sync_role,"
    "  sync_conflict, long_format FROM PUBLIC;"
    "GRANT SELECT ON simlab_schema, sync_station, sync_log, sync_role,"
    "  sync_conflict, long_format TO " SYNC_ROLE_ANALYSTS ";"
    "GRANT SELECT ON simlab_schema, sync_role, sync_conflict "
    "TO " SYNC_ROLE_STATIONS ";"
    "GRANT SELECT, INSERT, UPDATE ON sync_station TO " SYNC_ROLE_STATIONS ";"
    "ALTER TABLE sync_station ENABLE ROW LEVEL SECURITY;"
    "DROP POLICY IF EXISTS simlab_station ON sync_station;"
    "CREATE POLICY simlab_station ON sync_station TO " SYNC_ROLE_STATIONS
    "  USING (role = current_user) WITH CHECK (role = current_user AND"
    "  station = " OWN_STATION ");"
    "DROP POLICY IF EXISTS simlab_analyst ON sync_station;"
    "CREATE POLICY simlab_analyst ON sync_station FOR SELECT "
    "TO " SYNC_ROLE_ANALYSTS "  USING (true);"
    "ALTER TABLE sync_role ENABLE ROW LEVEL SECURITY;"
    "DROP POLICY IF EXISTS simlab_station ON sync_role;"
    "CREATE POLICY simlab_station ON sync_role FOR SELECT "
    "TO " SYNC_ROLE_STATIONS "  USING (role = current_user);"
    "DROP POLICY IF EXISTS simlab_analyst ON sync_role;"
    "CREATE POLICY simlab_analyst ON sync_role FOR SELECT "
    "TO " SYNC_ROLE_ANALYSTS "  USING (true);"
    "ALTER TABLE sync_conflict ENABLE ROW LEVEL SECURITY;"
    "DROP POLICY IF EXISTS simlab_station ON sync_conflict;"
    "CREATE POLICY simlab_station ON sync_conflict FOR SELECT "
    "TO " SYNC_ROLE_STATIONS "  USING (role = current_user);"
    "DROP POLICY IF EXISTS simlab_analyst ON sync_conflict;"
    "CREATE POLICY simlab_analyst ON sync_conflict FOR SELECT "
    "TO " SYNC_ROLE_ANALYSTS "  USING (true);"
    "DO $$ DECLARE f regprocedure; BEGIN"
    "  FOR f IN SELECT p.oid FROM pg_proc p WHERE p.proname LIKE 'simlab\\_%'"
    "  AND p.pronamespace = current_schema()::regnamespace LOOP"
    "  EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);"
    "  EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO " SYNC_ROLE_STATIONS
    "', f); END LOOP; END $$;";

static int setup_fail(SyncConn *c, int rc)
{
    sync_rollback(c);
    sync_close(c);
    return rc;
}

int sync_server_setup(const char *admin_url, FILE *out, SimError *err)
{
    SyncConn *c = NULL;
    int rc = sync_connect_admin(admin_url, &c, err);
    if (rc != SIM_OK) {
        return rc;
    }
    SimBuf ddl, sql;
    sim_buf_init(&ddl);
    sim_buf_init(&sql);
    sync_schema_sql(&ddl);
    sim_buf_puts(&sql,
                 "BEGIN; SELECT pg_advisory_xact_lock(" SYNC_LOCK_SCHEMA ");");
    bootstrap_sql(&sql);
    sim_buf_puts(&sql, "SET LOCAL ROLE " SYNC_ROLE_OWNER ";"
                       "CREATE TABLE IF NOT EXISTS simlab_schema ("
                       "  version integer NOT NULL, ddl_md5 text);"
                       "ALTER TABLE simlab_schema ADD COLUMN IF NOT EXISTS"
                       "  secured boolean NOT NULL DEFAULT false;");
    sim_buf_puts(&sql, sim_buf_cstr(&ddl));
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        secure_table(&sql, &SYNC_TABLES[i]);
    }
    sim_buf_puts(&sql, SECURE_SERVER_TABLES);
    sim_buf_puts(&sql, "DELETE FROM simlab_schema;");
    if (ddl.oom || sql.oom) {
        sim_buf_free(&ddl);
        sim_buf_free(&sql);
        return setup_fail(c, sim_fail(err, SIM_ERR_NOMEM, "out of memory"));
    }
    rc = sync_exec(c, sql.data, err);
    sim_buf_free(&sql);
    if (rc == SIM_OK) {
        char v[16];
        snprintf(v, sizeof v, "%d", SYNC_SERVER_SCHEMA_VERSION);
        const char *p[2] = {v, ddl.data};
        rc = sync_exec_params(c, "schema version",
                              "INSERT INTO simlab_schema (version, ddl_md5, "
                              "secured) VALUES ($1, md5($2), true)",
                              2, p, NULL, err);
    }
    sim_buf_free(&ddl);
    if (rc == SIM_OK) {
        rc = sync_exec(c, "RESET ROLE; COMMIT", err);
    }
    if (rc != SIM_OK) {
        return setup_fail(c, rc);
    }
    if (out) {
        fprintf(out,
                "server %s: schema version %d, roles " SYNC_ROLE_OWNER
                " (owns the tables), " SYNC_ROLE_STATIONS
                " and " SYNC_ROLE_ANALYSTS ", row-level security on\n",
                c->redacted, SYNC_SERVER_SCHEMA_VERSION);
    }
    /* the database's owner may drop any table in its schema, policies or
    ** not: say so when it is a role stations could use */
    PGresult *res = NULL;
    if (out &&
        sync_exec_params(c, "database owner",
                         "SELECT pg_get_userbyid(d.datdba) FROM "
                         "pg_database d WHERE d.datname = "
                         "current_database() AND pg_get_userbyid("
                         "d.datdba) <> current_user AND NOT (SELECT "
                         "rolsuper FROM pg_roles WHERE oid = d.datdba)",
                         0, NULL, &res, err) == SIM_OK &&
        PQntuples(res) == 1) {
        fprintf(out,
                "note: role %s owns the database and can still drop "
                "simlab's tables; if stations used it, give the database to "
                "the administrator (ALTER DATABASE ... OWNER TO ...) and take "
                "its login away (docs/multisite.md)\n",
                PQgetvalue(res, 0, 0));
    }
    PQclear(res);
    sync_close(c);
    return SIM_OK;
}

/* ------------------------------------------------------------- roles */

/* A default role name: PREFIX_DB_NAME in lower case, other characters as
** '_'. -1 when longer than PostgreSQL's 63 bytes. */
static int default_role(const char *prefix, const char *db, const char *name,
                        char *out, size_t size)
{
    int n = snprintf(out, size, "%s_%s%s%s", prefix, db, name ? "_" : "",
                     name ? name : "");
    if (n < 0 || (size_t)n >= size || n > 63) {
        return -1;
    }
    for (char *p = out; *p; p++) {
        *p =
            isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
    }
    return 0;
}

/* 40 hex digits from the system's random source. */
static int random_password(char *out, size_t size, SimError *err)
{
    unsigned char raw[20];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
    if (f) {
        fclose(f);
    }
    if (got != sizeof raw || size < 2 * sizeof raw + 1) {
        return sim_fail(err, SIM_ERR_IO, "/dev/urandom: cannot read");
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    }
    return SIM_OK;
}

/* A pgpass field: ':' and '\' escaped. */
static void pgpass_field(SimBuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == ':' || *s == '\\') {
            sim_buf_puts(b, "\\");
        }
        sim_buf_append(b, s, 1);
    }
}

/* A connection string value: single-quoted, ' and \ escaped. */
static void conninfo_value(SimBuf *b, const char *s)
{
    sim_buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\') {
            sim_buf_puts(b, "\\");
        }
        sim_buf_append(b, s, 1);
    }
    sim_buf_puts(b, "'");
}

/* Writes text to path with mode 0600: a temporary file beside it, synced,
** then renamed over it. */
static int write_private(const char *path, const char *text, SimError *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", path);
    }
    int fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot create: %s", path,
                        strerror(errno));
    }
    size_t n = strlen(text);
    int ok = fchmod(fd, 0600) == 0 && write(fd, text, n) == (ssize_t)n &&
             fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int rc = sim_fail(err, SIM_ERR_IO, "%s: cannot write: %s", path,
                          strerror(errno));
        unlink(tmp);
        return rc;
    }
    return SIM_OK;
}

/* Creates the role (or gives it a new password) in one transaction. */
static int make_role(SyncConn *c, SyncRoleKind kind, const char *station,
                     const char *role, const char *verifier, long *files,
                     SimError *err)
{
    const char *kname = kind == SYNC_ROLE_STATION ? "station" : "analyst";
    const char *group =
        kind == SYNC_ROLE_STATION ? SYNC_ROLE_STATIONS : SYNC_ROLE_ANALYSTS;
    const char *p[3] = {role, kname, station};
    PGresult *res = NULL;
    int rc = sync_exec(c, "BEGIN", err);
    if (rc == SIM_OK) {
        rc = sync_exec_params(
            c, "read roles",
            "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1), "
            "(SELECT kind || ':' || COALESCE(station, '') FROM sync_role "
            "WHERE role = $1)",
            1, p, &res, err);
    }
    char want[160];
    snprintf(want, sizeof want, "%s:%s", kname, station ? station : "");
    int exists = rc == SIM_OK && PQgetvalue(res, 0, 0)[0] == 't';
    if (rc == SIM_OK && exists &&
        (PQgetisnull(res, 0, 1) || strcmp(PQgetvalue(res, 0, 1), want) != 0)) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "%s: role %s exists already and is not this server's "
                      "%s%s%s; choose another name with --role",
                      c->redacted, role, kname, station ? " " : "",
                      station ? station : "");
    }
    PQclear(res);
    SimBuf sql;
    sim_buf_init(&sql);
    if (rc == SIM_OK) {
        char *id = PQescapeIdentifier(c->pg, role, strlen(role));
        sim_buf_printf(&sql, "%s ROLE %s %sPASSWORD ",
                       exists ? "ALTER" : "CREATE", id ? id : "\"\"",
                       exists ? "" : "LOGIN ");
        PQfreemem(id);
        sync_literal(c, &sql, verifier);
        if (!exists) {
            sim_buf_printf(&sql, " IN ROLE %s", group);
        }
        rc = sql.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                     : sync_exec(c, sql.data, err);
    }
    sim_buf_free(&sql);
    if (rc == SIM_OK) {
        rc = sync_exec_params(c, "record role",
                              "INSERT INTO sync_role (role, kind, station) "
                              "VALUES ($1, $2, $3) ON CONFLICT (role) DO "
                              "NOTHING",
                              3, p, NULL, err);
    }
    if (rc == SIM_OK && kind == SYNC_ROLE_STATION) {
        /* files this station pushed with a shared role, the old way */
        res = NULL;
        const char *q[2] = {role, station};
        rc = sync_exec_params(
            c, "station files",
            "WITH u AS (UPDATE sync_station SET role = $1 WHERE station = $2 "
            "AND (role IS NULL OR role NOT IN (SELECT role FROM sync_role "
            "WHERE kind = 'station')) RETURNING 1) SELECT count(*) FROM u",
            2, q, &res, err);
        *files = rc == SIM_OK ? atol(PQgetvalue(res, 0, 0)) : 0;
        PQclear(res);
    }
    if (rc == SIM_OK) {
        rc = sync_exec(c, "COMMIT", err);
    }
    return rc;
}

int sync_server_add_role(const char *admin_url, SyncRoleKind kind,
                         const char *station, const char *role,
                         const char *passfile, char *url_out, size_t url_size,
                         long *old_files, SimError *err)
{
    if (old_files) {
        *old_files = 0;
    }
    if (kind == SYNC_ROLE_STATION &&
        (!station || !export_station_name_valid(station))) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--station '%s': use " EXPORT_STATION_NAME_SET,
                        station ? station : "");
    }
    if (kind != SYNC_ROLE_STATION) {
        station = NULL;
    }
    SyncConn *c = NULL;
    int rc = sync_connect_admin(admin_url, &c, err);
    if (rc != SIM_OK) {
        return rc;
    }
    PGresult *res = NULL;
    rc = sync_exec_params(c, "read schema",
                          "SELECT bool_or(secured) FROM simlab_schema", 0, NULL,
                          &res, err);
    if (rc == SIM_OK && PQgetvalue(res, 0, 0)[0] != 't') {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "%s: the server is not set up for station roles; run "
                      "`simlab server setup ADMIN_URL` first",
                      c->redacted);
    }
    PQclear(res);
    char name[80];
    const char *db = PQdb(c->pg);
    if (rc == SIM_OK && !role) {
        if (default_role(kind == SYNC_ROLE_STATION ? "st" : "an",
                         db ? db : "db", station, name, sizeof name) != 0) {
            rc = sim_fail(err, SIM_ERR_USAGE,
                          "the role name made from the database and station "
                          "names is longer than 63 bytes; name one with "
                          "--role");
        }
        role = name;
    }
    char pw[64];
    if (rc == SIM_OK) {
        rc = random_password(pw, sizeof pw, err);
    }
    char *verifier = NULL;
    if (rc == SIM_OK) {
        /* the server stores and sees only a verifier of the password */
        verifier = PQencryptPasswordConn(c->pg, pw, role, NULL);
        if (!verifier) {
            rc = sync_pg_fail(c, err, "encrypt password", NULL);
        }
    }
    long files = 0;
    if (rc == SIM_OK) {
        rc = make_role(c, kind, station, role, verifier, &files, err);
    }
    PQfreemem(verifier);
    SimBuf line;
    sim_buf_init(&line);
    if (rc == SIM_OK) {
        const char *host = PQhost(c->pg), *port = PQport(c->pg);
        pgpass_field(&line,
                     host && host[0] && host[0] != '/' ? host : "localhost");
        sim_buf_puts(&line, ":");
        pgpass_field(&line, port && port[0] ? port : "*");
        sim_buf_puts(&line, ":");
        pgpass_field(&line, db ? db : "*");
        sim_buf_puts(&line, ":");
        pgpass_field(&line, role);
        sim_buf_printf(&line, ":%s\n", pw);
        rc = line.oom ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                      : write_private(passfile, line.data, err);
        /* the station's connection string, from what libpq connected to */
        SimBuf ci;
        sim_buf_init(&ci);
        sim_buf_puts(&ci, "user=");
        conninfo_value(&ci, role);
        if (host && host[0]) {
            sim_buf_puts(&ci, " host=");
            conninfo_value(&ci, host);
        }
        if (port && port[0]) {
            sim_buf_puts(&ci, " port=");
            conninfo_value(&ci, port);
        }
        sim_buf_puts(&ci, " dbname=");
        conninfo_value(&ci, db ? db : "");
        sim_url_redact(sim_buf_cstr(&ci), url_out, url_size);
        sim_buf_free(&ci);
    }
    memset(pw, 0, sizeof pw);
    if (line.data) {
        memset(line.data, 0, line.len);
    }
    sim_buf_free(&line);
    if (rc != SIM_OK) {
        return setup_fail(c, rc);
    }
    if (old_files) {
        *old_files = files;
    }
    sync_close(c);
    return SIM_OK;
}
