/*
** A server set up with station roles (run by tests/pg/run.sh inside
** pg_virtualenv; skipped without it). Two stations with their own roles
** attack each other's rows and every attack is refused by the server; a
** second, different version of a response, an item or a study definition
** is refused and recorded; a held lock, a stopped backend and a server
** that never answers make a station assign locally within its deadline;
** six stations enrolling 200 participants each at once fall back never; a
** server set up the old way is migrated and its station file pushed again
** with the station's new role.
*/
#include "tests/harness.h"
#include "tests/test_util.h"
#include "tests/pg/pg_util.h"

#include "experiment/simulate.h"
#include "experiment/store.h"
#include "experiment/sync.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#define BUNDLE SIMLAB_SOURCE_DIR "/assets/studies/text-forward"

static char tmp[256];
static char host[256], port[32], user[256], password[256];

/* A key=value connection string to database db as the administrator. */
static void admin_url(const char *db, char *out, size_t size)
{
    snprintf(out, size, "host='%s' port='%s' user='%s' password='%s' dbname=%s",
             host, port, user, password, db);
}

/* A station or analyst role on database db: its connection string with
** the pgpass file add-station wrote. */
static void add_role(const char *db, SyncRoleKind kind, const char *station,
                     char *url, size_t size)
{
    char admin[1024], pass[300], conn[512];
    admin_url(db, admin, sizeof admin);
    snprintf(pass, sizeof pass, "%s/%s-%s.pgpass", tmp, db,
             station ? station : "analyst");
    SimError err;
    long old = 0;
    CHECK_INT(sync_server_add_role(admin, kind, station, NULL, pass, conn,
                                   sizeof conn, &old, &err),
              SIM_OK);
    struct stat st;
    CHECK(stat(pass, &st) == 0 && (st.st_mode & 0777) == 0600);
    snprintf(url, size, "%s%spassfile=%s", conn, strchr(conn, '?') ? "&" : "?",
             pass);
}

static void simulate_file(const char *path, const char *station, int n,
                          uint64_t seed)
{
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = BUNDLE;
    o.db_path = path;
    o.participants = n;
    o.policy = POLICY_MIXED;
    o.seed = seed;
    o.station = station;
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1800000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
}

static int push(const char *url, const char *path, SyncPushStats *st,
                SimError *err)
{
    SyncConn *c = NULL;
    int rc = sync_connect(url, &tclock, &c, err);
    if (rc == SIM_OK) {
        rc = sync_push(c, path, 0, 0, 1, st, err);
    }
    sync_close(c);
    return rc;
}

/* ------------------------------------------------------------ attacks */

static char url_a[1024], url_b[1024], url_an[1024], adm[1200];

/* Expects the server to refuse sql as B: an error, or no row touched. */
static void refused(PGconn *b, const char *sql)
{
    long rows = 0;
    char state[6];
    int ok = pg_try(b, sql, &rows, state);
    if (ok && rows != 0) {
        fprintf(stderr, "accepted (%ld rows): %s\n", rows, sql);
    }
    CHECK(!ok || rows == 0);
}

static void test_attacks(void)
{
    char path_a[400], path_b[400], origin_a[64], origin_b[64], pid_a[64],
        sql[2048];
    snprintf(path_a, sizeof path_a, "%s/a.db", tmp);
    snprintf(path_b, sizeof path_b, "%s/b.db", tmp);
    simulate_file(path_a, "roomA", 3, 1);
    simulate_file(path_b, "roomB", 3, 2);
    SimError err;
    SyncPushStats st;
    CHECK_INT(push(url_a, path_a, &st, &err), SIM_OK);
    CHECK(st.rows > 300);
    CHECK_INT(push(url_b, path_b, &st, &err), SIM_OK);
    lite_text(path_a, "SELECT uuid FROM sync_origin", origin_a,
              sizeof origin_a);
    lite_text(path_b, "SELECT uuid FROM sync_origin", origin_b,
              sizeof origin_b);
    lite_text(path_a, "SELECT id FROM participant ORDER BY rowid LIMIT 1",
              pid_a, sizeof pid_a);
    /* a station file of roomA pushed with roomB's role */
    CHECK_INT(push(url_b, path_a, &st, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "roomA") != NULL);

    long before_resp = pg_long_at(adm, "SELECT count(*) FROM response");
    snprintf(sql, sizeof sql,
             "SELECT abs(sum(hashtext(concat_ws(' ', p.condition, "
             "p.status, r.response_id, r.correct))) %% 1000000007) FROM "
             "participant p JOIN response r ON r.participant = p.id WHERE "
             "p.origin = '%s'",
             origin_a);
    long fp_a = pg_long_at(adm, sql);
    CHECK(fp_a >= 0);

    PGconn *b = PQconnectdb(url_b);
    CHECK(PQstatus(b) == CONNECTION_OK);
    /* rewriting A's rows directly: RLS shows B none of them */
    snprintf(sql, sizeof sql,
             "UPDATE participant SET condition = 'LIME' WHERE origin = '%s'",
             origin_a);
    refused(b, sql);
    refused(b, "UPDATE response SET correct = 1 - correct");
    refused(b, "DELETE FROM response");
    refused(b, "DELETE FROM participant");
    snprintf(sql, sizeof sql,
             "UPDATE sync_station SET role = current_user WHERE origin = "
             "'%s'",
             origin_a);
    refused(b, sql);
    refused(b, "UPDATE item SET label = 'x'");
    refused(b, "UPDATE study SET definition = '{}'");
    refused(b, "INSERT INTO sync_role VALUES (current_user, 'station', "
               "'roomA')");
    refused(b, "UPDATE sync_role SET station = 'roomA'");
    /* inserting rows as A, or for A's participant */
    snprintf(sql, sizeof sql,
             "INSERT INTO participant (origin, id, station) VALUES ('%s', "
             "'x1', 'roomB')",
             origin_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO participant (origin, id, station) VALUES ('%s', "
             "'x2', 'roomA')",
             origin_b);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO participant (origin, id, station, condition) VALUES "
             "('%s', '%s', 'roomB', 'LIME') ON CONFLICT (id) DO UPDATE SET "
             "condition = EXCLUDED.condition, origin = EXCLUDED.origin",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO response (origin, participant, seq, correct, done) "
             "VALUES ('%s', '%s', 9999, 1, 1)",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO response (origin, participant, seq, correct, done) "
             "VALUES ('%s', '%s', 9999, 1, 1) ON CONFLICT (participant, seq) "
             "DO UPDATE SET correct = 1",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO response (origin, participant, seq, correct, done) "
             "SELECT '%s', '%s', 0, 0, 1 ON CONFLICT (participant, seq) DO "
             "UPDATE SET correct = 1 - response.correct",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO trial (origin, participant, seq, phase) VALUES "
             "('%s', '%s', 9999, 'post')",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO answer (origin, participant, seq, question, value) "
             "VALUES ('%s', '%s', 1, 'q', 'x')",
             origin_b, pid_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO event (origin, local_id, participant, kind) VALUES "
             "('%s', 999999, '%s', 'abort')",
             origin_b, pid_a);
    refused(b, sql);
    /* claiming A's file, and writing through the functions as A */
    snprintf(sql, sizeof sql,
             "INSERT INTO sync_station (origin, station) VALUES ('%s', "
             "'roomB') ON CONFLICT (origin) DO UPDATE SET role = "
             "current_user",
             origin_a);
    refused(b, sql);
    snprintf(sql, sizeof sql,
             "SELECT simlab_put_item('%s', '[{\"study_hash\":\"h\",\"key\":"
             "\"k\"}]')",
             origin_a);
    refused(b, sql);
    snprintf(sql, sizeof sql, "SELECT simlab_log('%s', 'x', 'y')", origin_a);
    refused(b, sql);
    /* reading others' rows: none visible, the view not at all */
    long rows = -1;
    CHECK(pg_try(b, "SELECT * FROM response", &rows, NULL));
    long own = pg_long_at(url_b, "SELECT count(*) FROM response");
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM response r JOIN participant p ON p.id = "
             "r.participant WHERE p.origin = '%s'",
             origin_b);
    CHECK_INT(own, pg_long_at(adm, sql));
    CHECK(!pg_try(b, "SELECT * FROM long_format", NULL, NULL));
    CHECK(!pg_try(b, "SELECT * FROM study", NULL, NULL));
    CHECK(!pg_try(b, "SELECT * FROM item", NULL, NULL));
    CHECK(!pg_try(b, "SELECT * FROM sync_log", NULL, NULL));
    CHECK_INT(pg_long_at(url_b, "SELECT count(*) FROM sync_station"), 1);
    PQfinish(b);

    /* nothing of A's changed on the server */
    CHECK_INT(pg_long_at(adm, "SELECT count(*) FROM response"), before_resp);
    snprintf(sql, sizeof sql,
             "SELECT abs(sum(hashtext(concat_ws(' ', p.condition, "
             "p.status, r.response_id, r.correct))) %% 1000000007) FROM "
             "participant p JOIN response r ON r.participant = p.id WHERE "
             "p.origin = '%s'",
             origin_a);
    CHECK_INT(pg_long_at(adm, sql), fp_a);

    /* a hand-edited file of B: A's participant, other answers, flipped
    ** item labels, an edited study definition */
    char edit[1024];
    snprintf(edit, sizeof edit,
             "UPDATE participant SET id = '%s', condition = 'LIME', "
             "sync_dirty = sync_dirty + 1 WHERE rowid = (SELECT min(rowid) "
             "FROM participant)",
             pid_a);
    CHECK_INT(lite_exec(path_b, edit), SQLITE_OK);
    CHECK_INT(push(url_b, path_b, &st, &err), SIM_ERR_DB);
    CHECK(strstr(err.msg, "row-level security") != NULL);
    CHECK_INT(pg_long_at(adm, sql), fp_a);
    /* another file of B, pushed, then edited */
    char path_b2[400];
    snprintf(path_b2, sizeof path_b2, "%s/b2.db", tmp);
    simulate_file(path_b2, "roomB", 2, 5);
    CHECK_INT(push(url_b, path_b2, &st, &err), SIM_OK);
    CHECK_INT(lite_exec(path_b2, "UPDATE item SET label = CASE label WHEN "
                                 "'positive' THEN 'negative' ELSE 'positive' "
                                 "END, sync_dirty = sync_dirty + 1;"
                                 "UPDATE study SET definition = '{}', "
                                 "sync_dirty = sync_dirty + 1;"
                                 "UPDATE response SET correct = 1 - correct, "
                                 "sync_dirty = sync_dirty + 1 WHERE done = 1;"
                                 "UPDATE answer SET value = 'x', sync_dirty "
                                 "= sync_dirty + 1"),
              SQLITE_OK);
    long items = lite_long(path_b2, "SELECT count(*) FROM item");
    long resp = lite_long(path_b2, "SELECT count(*) FROM response WHERE "
                                   "done = 1 AND correct IS NOT NULL");
    const char *label_sum = "SELECT abs(sum(hashtext(concat_ws(' ', key, "
                            "label))) % 1000000007) FROM item";
    long labels = pg_long_at(adm, label_sum);
    long conflicts = pg_long_at(adm, "SELECT count(*) FROM sync_conflict");
    CHECK_INT(push(url_b, path_b2, &st, &err), SIM_OK);
    CHECK_INT(st.refused, items + 1 + resp);
    CHECK_INT(pg_long_at(adm, "SELECT count(*) FROM sync_conflict"),
              conflicts + items + 1 + resp);
    CHECK_INT(pg_long_at(adm, "SELECT count(*) FROM sync_conflict WHERE "
                              "tbl = 'study' AND refused ->> 'definition' = "
                              "'{}'"),
              1);
    CHECK_INT(pg_long_at(adm, "SELECT count(*) FROM study WHERE definition "
                              "= '{}'"),
              0);
    CHECK_INT(pg_long_at(adm, label_sum), labels);
    /* B sees its own refusals only; the analyst sees all and writes
    ** nothing */
    CHECK(pg_long_at(url_b, "SELECT count(*) FROM sync_conflict") > 0);
    CHECK_INT(pg_long_at(url_a, "SELECT count(*) FROM sync_conflict"), 0);
    CHECK_INT(pg_long_at(url_an, "SELECT count(*) FROM sync_conflict"),
              conflicts + items + 1 + resp);
    CHECK(pg_long_at(url_an, "SELECT count(*) FROM long_format") > 0);
    PGconn *an = PQconnectdb(url_an);
    refused(an, "UPDATE participant SET condition = 'x'");
    refused(an, "INSERT INTO sync_log (kind) VALUES ('x')");
    refused(an, "SELECT simlab_log('x', 'y', 'z')");
    PQfinish(an);
    /* the same version again is no conflict */
    CHECK_INT(sync_mark_all(path_a, &err), SIM_OK);
    CHECK_INT(push(url_a, path_a, &st, &err), SIM_OK);
    CHECK_INT(st.refused, 0);
}

/* ------------------------------------------------------ no hang, no loss */

static const char *assign_source_of(Store *store, const char *pid, char *out,
                                    size_t size)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT assign_source FROM participant WHERE id = '%s'", pid);
    lite_text(store_path(store), sql, out, size);
    return out;
}

/* Enrolls one participant through c; returns the ms it took and its
** assign_source in src. */
static int64_t enroll_one(SyncConn *c, Store *store, const Study *study,
                          char *src, size_t size)
{
    EnrollSpec e;
    memset(&e, 0, sizeof e);
    e.wall_ms = pgu_real_ms(NULL);
    e.pilot = 1;
    ParticipantInfo info;
    SimError err;
    int64_t t0 = pgu_real_ms(NULL);
    CHECK_INT(sync_enroll(c, store, study, &e, &info, &err), SIM_OK);
    int64_t ms = pgu_real_ms(NULL) - t0;
    assign_source_of(store, info.id, src, size);
    return ms;
}

static void test_no_hang(const Study *study)
{
    char path[400], src[32];
    snprintf(path, sizeof path, "%s/hang.db", tmp);
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = path;
    os.study = study;
    os.station = "roomA";
    os.durability = DURABILITY_FAST;
    os.wall_ms = pgu_real_ms(NULL);
    Store *store = NULL;
    SyncConn *c = NULL;
    SimError err;
    CHECK_INT(store_open_spec(&os, &store, &err), SIM_OK);
    CHECK_INT(sync_conn_new(url_a, &tclock, &c, &err), SIM_OK);
    enroll_one(c, store, study, src, sizeof src);
    CHECK_STR(src, "server");

    /* another session holds the study's lock */
    char lock[256];
    snprintf(lock, sizeof lock, "SELECT pg_advisory_lock(%d, hashtext('%s'))",
             715202, study->id);
    PGconn *holder = PQconnectdb(adm);
    CHECK(pg_try(holder, lock, NULL, NULL));
    int64_t ms = enroll_one(c, store, study, src, sizeof src);
    CHECK_STR(src, "station_fallback");
    printf("held lock: local assignment after %lld ms\n", (long long)ms);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM event WHERE kind = "
                              "'assign_fallback' AND detail LIKE '%lock%'"),
              1);
    PQfinish(holder); /* the lock goes with the session */
    enroll_one(c, store, study, src, sizeof src);
    CHECK_STR(src, "server");

    /* a station stopped inside its assignment transaction: the server
    ** ends its session after idle_in_transaction_session_timeout (what a
    ** station sets for itself), and the lock with it */
    holder = PQconnectdb(adm);
    snprintf(lock, sizeof lock,
             "SET idle_in_transaction_session_timeout = '3s'; BEGIN; SELECT "
             "pg_advisory_xact_lock(%d, hashtext('%s'))",
             715202, study->id);
    CHECK(pg_try(holder, lock, NULL, NULL));
    int fallbacks = 0, back = 0;
    for (int i = 0; i < 20 && !back; i++) {
        ms = enroll_one(c, store, study, src, sizeof src);
        back = strcmp(src, "server") == 0;
        fallbacks += !back;
    }
    CHECK(fallbacks >= 1);
    CHECK(back);
    printf("stopped station: %d local assignments, then the server's again\n",
           fallbacks);
    PQfinish(holder);

    /* the station's own backend stops answering (SIGSTOP) */
    long pid = pg_long_at(adm, "SELECT pid FROM pg_stat_activity WHERE "
                               "application_name = 'simlab' AND usename = "
                               "(SELECT role FROM sync_role WHERE station = "
                               "'roomA') ORDER BY backend_start DESC LIMIT 1");
    CHECK(pid > 0);
    if (pid > 0 && kill((pid_t)pid, SIGSTOP) == 0) {
        ms = enroll_one(c, store, study, src, sizeof src);
        CHECK_STR(src, "station_fallback");
        printf("stopped server process: local assignment after %lld ms\n",
               (long long)ms);
        kill((pid_t)pid, SIGCONT);
        enroll_one(c, store, study, src, sizeof src);
        CHECK_STR(src, "server");
    }
    sync_close(c);

    /* a server that accepts the connection and never answers */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(fd, 8) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&sa, &len) == 0);
    char mute[256];
    snprintf(mute, sizeof mute,
             "host=127.0.0.1 port=%d dbname=x user=y password=s3cret",
             ntohs(sa.sin_port));
    CHECK_INT(sync_conn_new(mute, &tclock, &c, &err), SIM_OK);
    ms = enroll_one(c, store, study, src, sizeof src);
    CHECK_STR(src, "station_fallback");
    printf("server that never answers: local assignment after %lld ms\n",
           (long long)ms);
    sync_close(c);
    close(fd);
    CHECK_INT(lite_long(path, "SELECT count(*) FROM event WHERE detail LIKE "
                              "'%s3cret%'"),
              0);
    store_close(store);
}

/* Six stations, each with its own role, file and background push,
** enroll 200 participants each at once: the server assigns every one. */
#define N_STATIONS  6
#define PER_STATION 200

static pthread_barrier_t barrier;
static const Study *shared_study;
static char station_url[N_STATIONS][1024];

typedef struct Station {
    int index;
    char path[400];
    int rc, fallbacks;
} Station;

static void *station_main(void *arg)
{
    Station *s = arg;
    char name[16];
    snprintf(name, sizeof name, "load%d", s->index);
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = s->path;
    os.study = shared_study;
    os.station = name;
    os.durability = DURABILITY_FAST;
    os.wall_ms = pgu_real_ms(NULL);
    Store *store = NULL;
    SyncConn *c = NULL;
    SyncWorker *w = NULL;
    SimError err;
    s->rc = store_open_spec(&os, &store, &err);
    if (s->rc == SIM_OK) {
        s->rc = sync_conn_new(station_url[s->index], &tclock, &c, &err);
    }
    if (s->rc == SIM_OK) {
        s->rc = sync_worker_start(station_url[s->index], s->path, 0, 500,
                                  &tclock, &w, &err);
    }
    pthread_barrier_wait(&barrier);
    for (int i = 0; s->rc == SIM_OK && i < PER_STATION; i++) {
        EnrollSpec e;
        memset(&e, 0, sizeof e);
        e.wall_ms = pgu_real_ms(NULL);
        ParticipantInfo info;
        s->rc = sync_enroll(c, store, shared_study, &e, &info, &err);
        sync_worker_kick(w);
    }
    if (s->rc != SIM_OK) {
        fprintf(stderr, "station %d: %s\n", s->index, err.msg);
    }
    SyncWorkerStatus ws;
    sync_worker_stop(w, &ws);
    if (ws.error[0]) {
        fprintf(stderr, "station %d push: %s\n", s->index, ws.error);
    }
    sync_close(c);
    store_close(store);
    s->fallbacks = (int)lite_long(s->path, "SELECT count(*) FROM participant "
                                           "WHERE assign_source <> 'server'");
    if (s->fallbacks) {
        char why[600];
        lite_text(s->path,
                  "SELECT detail FROM event WHERE kind = 'assign_fallback'",
                  why, sizeof why);
        fprintf(stderr, "station %d: %d fallbacks, e.g. %s\n", s->index,
                s->fallbacks, why);
    }
    return NULL;
}

static void test_load(Study *study)
{
    for (int i = 0; i < N_STATIONS; i++) {
        char name[16];
        snprintf(name, sizeof name, "load%d", i);
        add_role("secure", SYNC_ROLE_STATION, name, station_url[i],
                 sizeof station_url[i]);
    }
    AssignRule rule = study->assignment.rule;
    study->assignment.rule = ASSIGN_BALANCED;
    shared_study = study;
    Station st[N_STATIONS];
    pthread_t th[N_STATIONS];
    pthread_barrier_init(&barrier, NULL, N_STATIONS);
    for (int i = 0; i < N_STATIONS; i++) {
        st[i].index = i;
        snprintf(st[i].path, sizeof st[i].path, "%s/load%d.db", tmp, i);
        pthread_create(&th[i], NULL, station_main, &st[i]);
    }
    int fallbacks = 0;
    for (int i = 0; i < N_STATIONS; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(st[i].rc, SIM_OK);
        fallbacks += st[i].fallbacks;
    }
    pthread_barrier_destroy(&barrier);
    study->assignment.rule = rule;
    printf("%d stations x %d participants at once: %d local assignments\n",
           N_STATIONS, PER_STATION, fallbacks);
    CHECK_INT(fallbacks, 0);
    const char *real = "pilot = 0 AND simulated = 0";
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM participant WHERE %s AND station LIKE "
             "'load%%'",
             real);
    CHECK_INT(pg_long_at(adm, sql), N_STATIONS * PER_STATION);
    snprintf(sql, sizeof sql,
             "SELECT max(n) - min(n) FROM (SELECT count(*) n FROM participant "
             "WHERE %s AND station LIKE 'load%%' GROUP BY condition) x",
             real);
    long spread = pg_long_at(adm, sql);
    CHECK(spread >= 0 && spread <= 1);
}

/* ------------------------------------------------------------ migration */

static void test_migration(void)
{
    PGconn *a = PQconnectdb(adm);
    CHECK(pg_try(a, "DROP DATABASE IF EXISTS oldway", NULL, NULL));
    CHECK(pg_try(a,
                 "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE "
                 "rolname = 'oldshared') THEN CREATE ROLE oldshared LOGIN "
                 "PASSWORD 'oldsecret'; END IF; END $$",
                 NULL, NULL));
    CHECK(pg_try(a, "CREATE DATABASE oldway OWNER oldshared", NULL, NULL));
    PQfinish(a);
    char old_url[1024], admin[1024], path[400];
    snprintf(old_url, sizeof old_url,
             "host='%s' port='%s' user=oldshared password=oldsecret "
             "dbname=oldway",
             host, port);
    admin_url("oldway", admin, sizeof admin);
    snprintf(path, sizeof path, "%s/old.db", tmp);
    simulate_file(path, "field1", 2, 9);
    SimError err;
    SyncConn *c = NULL;
    /* the old way: the shared role creates the schema; a warning says so */
    CHECK_INT(sync_connect(old_url, &tclock, &c, &err), SIM_OK);
    CHECK(strstr(sync_warning(c), "old way") != NULL);
    CHECK_INT(sync_push(c, path, 0, 0, 1, NULL, &err), SIM_OK);
    sync_close(c);
    long rows = pg_long_at(admin, "SELECT count(*) FROM response");
    CHECK(rows > 0);
    /* set up: the shared role loses its hold, the station gets a role */
    CHECK_INT(sync_server_setup(admin, NULL, &err), SIM_OK);
    CHECK_INT(sync_mark_all(path, &err), SIM_OK);
    CHECK(push(old_url, path, NULL, &err) != SIM_OK);
    char url[1024];
    add_role("oldway", SYNC_ROLE_STATION, "field1", url, sizeof url);
    SyncPushStats st;
    CHECK_INT(push(url, path, &st, &err), SIM_OK);
    CHECK(st.rows > 0);
    CHECK_INT(st.refused, 0);
    CHECK_INT(pg_long_at(admin, "SELECT count(*) FROM response"), rows);
    CHECK_INT(sync_connect(url, &tclock, &c, &err), SIM_OK);
    CHECK_STR(sync_warning(c), "");
    sync_close(c);
}

int main(void)
{
    const char *h = getenv("PGHOST"), *p = getenv("PGPORT");
    const char *u = getenv("PGUSER"), *w = getenv("PGPASSWORD");
    if (!getenv("SIMLAB_PG_URL") || !h || !p || !u || !w) {
        printf("skipped: not inside pg_virtualenv (tests/pg/run.sh)\n");
        return SIM_TEST_SKIP;
    }
    snprintf(host, sizeof host, "%s", h);
    snprintf(port, sizeof port, "%s", p);
    snprintf(user, sizeof user, "%s", u);
    snprintf(password, sizeof password, "%s", w);
    /* stations authenticate with their pgpass files, not the
    ** administrator's password */
    unsetenv("PGPASSWORD");
    test_tmpdir(tmp, sizeof tmp, "pgsecure");
    admin_url("postgres", adm, sizeof adm);
    PGconn *a = PQconnectdb(adm);
    CHECK(pg_try(a, "DROP DATABASE IF EXISTS secure", NULL, NULL));
    CHECK(pg_try(a, "CREATE DATABASE secure", NULL, NULL));
    PQfinish(a);
    admin_url("secure", adm, sizeof adm);
    SimError err;
    CHECK_INT(sync_server_setup(adm, NULL, &err), SIM_OK);
    CHECK_INT(sync_server_setup(adm, NULL, &err), SIM_OK); /* again: same */
    add_role("secure", SYNC_ROLE_STATION, "roomA", url_a, sizeof url_a);
    add_role("secure", SYNC_ROLE_STATION, "roomB", url_b, sizeof url_b);
    add_role("secure", SYNC_ROLE_ANALYST, NULL, url_an, sizeof url_an);
    Study *study = NULL;
    CHECK_INT(study_load(BUNDLE, &study, NULL, &err), SIM_OK);
    test_attacks();
    test_no_hang(study);
    test_load(study);
    test_migration();
    study_free(study);
    test_rmtree(tmp);
    return TEST_REPORT();
}
