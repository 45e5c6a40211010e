/*
** Sync benchmark (never run by ctest; bench/sync/run.sh runs it inside
** pg_virtualenv, whose PGHOST, PGPORT, PGUSER and PGPASSWORD name the
** administrator): S stations, each with its own SQLite file, push N
** responses in all (with their participants and schedules) to one server
** concurrently, one thread and connection per station, twice: to a
** server set up the old way (every station connects as the role that owns
** the tables, no policies) and to one set up with `simlab server setup`
** (each station its own role, row-level security), in two rounds of
** alternating order; the reference is bare INSERTs of the same rows, in
** the same batches, into key-less copies of the tables, by the same
** threads in the same run. Then, on the secured server, every station
** enrolls participants through the server's assignment at the same time
** (latency p50/p99, local assignments), against local-only enrollment;
** then one station alone; then one station while another session holds
** the study's lock (time to the local assignment).
** Usage: bench_sync BUNDLE_DIR WORK_DIR [STATIONS] [RESPONSES] [ENROLL]
*/
#define _POSIX_C_SOURCE 200809L

#include "experiment/store.h"
#include "experiment/sync.h"
#include "experiment/sync_tables.h"
#include "stimuli/study.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t real_ms(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void real_after(void *ctx, int64_t ms, struct timespec *abs)
{
    (void)ctx;
    clock_gettime(CLOCK_REALTIME, abs);
    abs->tv_sec += (time_t)(ms / 1000);
    abs->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (abs->tv_nsec >= 1000000000L) {
        abs->tv_sec++;
        abs->tv_nsec -= 1000000000L;
    }
}

static const SyncClock real_clock = {real_ms, real_after, NULL};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *work;
static char open_url[1024], secure_url[1024];
static char (*station_url)[1100]; /* each station's role on the secured
                                     server */
static int use_secure;            /* the push pass under way */
static Study *study;
static int n_stations, per_station, n_enroll;
static pthread_barrier_t barrier, pass_barrier;

typedef struct Station {
    int index;
    char path[512];
    long rows;       /* rows pushed */
    long responses;  /* responses in the file */
    double *lat_srv; /* server enrollment latencies, ms */
    double *lat_loc; /* local enrollment latencies, ms */
    double *lat_one; /* server enrollment, this station alone, ms */
    int fallbacks;   /* local assignments in the burst */
    int failed;
} Station;

/* Builds a station file: participants enrolled through the store until
** their schedules hold per_station steps, then one response per step. */
static int make_file(Station *s)
{
    char name[32];
    snprintf(name, sizeof name, "station%02d", s->index);
    StoreOpenSpec os = {0};
    os.path = s->path;
    os.study = study;
    os.station = name;
    os.durability = DURABILITY_FAST;
    os.wall_ms = 1800000000000LL;
    Store *st = NULL;
    SimError err;
    if (store_open_spec(&os, &st, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    long steps = 0;
    for (int i = 0; steps < per_station; i++) {
        EnrollSpec e = {0};
        e.simulated = 1;
        e.seed = (uint64_t)(s->index * 100000 + i + 1);
        e.assign_seed = e.seed;
        e.wall_ms = 1800000000000LL + i;
        ParticipantInfo info;
        if (store_enroll(st, &e, &info, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            store_close(st);
            return -1;
        }
        steps += info.n_trials;
    }
    sqlite3 *db = store_db(st);
    int rc = sqlite3_exec(
        db,
        "INSERT INTO response (participant, seq, choice, response_id, "
        "correct, rating, attempts, done, final_choice, onset_ns, "
        "response_ns, rating_ns, rt_ms, recorded_ms, station) SELECT "
        "participant, seq, 1, 'positive', seq % 2, NULL, 1, 1, 1, "
        "seq * 1000000, seq * 1000000 + 523000000, NULL, 523.25 + seq, "
        "1800000000000 + seq, 'bench' FROM trial",
        NULL, NULL, NULL);
    s->responses = (long)sqlite3_changes(db);
    store_close(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The reference: the rows of every pushed table, read from the file as
** the sync reads them and sent in batches of up to 1000 as plain
** multi-row INSERTs (no key, no upsert, no marks) in one transaction
** each. */
static long bare_push(PGconn *pg, const char *path)
{
    sqlite3 *db;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    long total = 0;
    for (size_t ti = 0; ti < SYNC_N_TABLES; ti++) {
        const SyncTable *t = &SYNC_TABLES[ti];
        size_t nc = sync_table_ncols(t);
        char sel[2048];
        size_t k = (size_t)snprintf(sel, sizeof sel, "SELECT 'x'");
        for (const SyncColumn *c = t->cols; c->name; c++) {
            if (c->expr) {
                k += (size_t)snprintf(sel + k, sizeof sel - k, ", %s", c->expr);
            } else {
                k += (size_t)snprintf(sel + k, sizeof sel - k, ", t.%s",
                                      c->name);
            }
        }
        snprintf(sel + k, sizeof sel - k, " FROM %s t ORDER BY t.rowid",
                 t->table);
        sqlite3_stmt *s;
        sqlite3_prepare_v2(db, sel, -1, &s, NULL);
        size_t cap = 1000;
        if (cap * (nc + 1) > 65000) {
            cap = 65000 / (nc + 1);
        }
        char **vals = calloc(cap * (nc + 1), sizeof *vals);
        size_t n = 0;
        int more = 1;
        while (more) {
            more = sqlite3_step(s) == SQLITE_ROW;
            if (more) {
                for (size_t c = 0; c <= nc; c++) {
                    const unsigned char *v = sqlite3_column_text(s, (int)c);
                    vals[n * (nc + 1) + c] = v ? strdup((const char *)v) : NULL;
                }
                n++;
            }
            if (n == cap || (!more && n > 0)) {
                size_t sz = 64 + n * (nc + 1) * 8 + 1024;
                char *sql = malloc(sz);
                size_t q = (size_t)snprintf(
                    sql, sz, "INSERT INTO bare_%s VALUES ", t->table);
                int p = 1;
                for (size_t r = 0; r < n; r++) {
                    q += (size_t)snprintf(sql + q, sz - q, "%s(", r ? "," : "");
                    for (size_t c = 0; c <= nc; c++) {
                        q += (size_t)snprintf(sql + q, sz - q, "%s$%d",
                                              c ? "," : "", p++);
                    }
                    q += (size_t)snprintf(sql + q, sz - q, ")");
                }
                PQclear(PQexec(pg, "BEGIN"));
                PGresult *res =
                    PQexecParams(pg, sql, p - 1, NULL,
                                 (const char *const *)vals, NULL, NULL, 0);
                if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                    fprintf(stderr, "bare %s: %s", t->table,
                            PQresultErrorMessage(res));
                }
                PQclear(res);
                PQclear(PQexec(pg, "COMMIT"));
                free(sql);
                for (size_t i = 0; i < n * (nc + 1); i++) {
                    free(vals[i]);
                }
                total += (long)n;
                n = 0;
            }
        }
        free(vals);
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return total;
}

static void *bare_main(void *arg)
{
    Station *s = arg;
    PGconn *pg = PQconnectdb(open_url);
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "%s", PQerrorMessage(pg));
        s->failed = 1;
    }
    pthread_barrier_wait(&barrier);
    if (!s->failed) {
        s->rows = bare_push(pg, s->path);
    }
    PQfinish(pg);
    return NULL;
}

static void *sync_main(void *arg)
{
    Station *s = arg;
    SyncConn *c = NULL;
    SimError err;
    const char *url = use_secure ? station_url[s->index] : open_url;
    if (sync_connect(url, &real_clock, &c, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        s->failed = 1;
    }
    pthread_barrier_wait(&barrier);
    SyncPushStats st = {0};
    if (!s->failed && sync_push(c, s->path, 0, 0, 1, &st, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        s->failed = 1;
    }
    s->rows = st.rows;
    sync_close(c);
    return NULL;
}

/* Participants of the file the station assigned itself. */
static int count_local(sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    int n = -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM participant WHERE "
                           "assign_source = 'station_fallback'",
                           -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        n = sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
    return n;
}

/* Enrolls n_enroll participants, server-assigned (all stations at once),
** then n_enroll locally, timing each. */
static void *enroll_main(void *arg)
{
    Station *s = arg;
    SyncConn *c = NULL;
    SimError err;
    Store *st = NULL;
    StoreOpenSpec os = {0};
    os.path = s->path;
    os.study = study;
    os.durability = DURABILITY_FULL;
    os.wall_ms = 1900000000000LL;
    char name[32];
    snprintf(name, sizeof name, "station%02d", s->index);
    os.station = name;
    if (store_open_spec(&os, &st, &err) != SIM_OK ||
        sync_connect(station_url[s->index], &real_clock, &c, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        s->failed = 1;
    }
    pthread_barrier_wait(&barrier);
    for (int pass = 0; pass < 3; pass++) {
        /* pass 2: the first station alone */
        int go = pass < 2 || s->index == 0;
        for (int i = 0; go && i < n_enroll && !s->failed; i++) {
            EnrollSpec e = {0};
            e.pilot = 1; /* counted apart from the pushed participants */
            e.wall_ms = 1900000000000LL + i;
            int64_t t0 = now_ns();
            int rc = pass != 1 ? sync_enroll(c, st, study, &e, NULL, &err)
                               : store_enroll(st, &e, NULL, &err);
            double ms = (double)(now_ns() - t0) / 1e6;
            double *lat = pass == 0   ? s->lat_srv
                          : pass == 1 ? s->lat_loc
                                      : s->lat_one;
            lat[i] = ms;
            if (rc != SIM_OK) {
                fprintf(stderr, "%s\n", err.msg);
                s->failed = 1;
            }
        }
        if (pass == 0 && st) {
            s->fallbacks = count_local(store_db(st));
        }
        /* every station ends the server pass before any starts the
        ** local one */
        pthread_barrier_wait(&pass_barrier);
    }
    sync_close(c);
    store_close(st);
    return NULL;
}

/* Runs fn on every station at once; seconds from the barrier to the last
** thread's end. */
static double run_all(Station *st, void *(*fn)(void *))
{
    pthread_t *th = calloc((size_t)n_stations, sizeof *th);
    pthread_barrier_init(&barrier, NULL, (unsigned)n_stations + 1);
    for (int i = 0; i < n_stations; i++) {
        pthread_create(&th[i], NULL, fn, &st[i]);
    }
    pthread_barrier_wait(&barrier);
    int64_t t0 = now_ns();
    for (int i = 0; i < n_stations; i++) {
        pthread_join(th[i], NULL);
    }
    double s = (double)(now_ns() - t0) / 1e9;
    pthread_barrier_destroy(&barrier);
    free(th);
    return s;
}

static void percentiles(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("%-34s p50 %8.2f ms   p99 %8.2f ms   (n = %d)\n", what, v[n / 2],
           v[(int)(0.99 * (n - 1))], n);
}

/* Database db as the administrator, from pg_virtualenv's environment. */
static void admin_conninfo(const char *db, char *out, size_t size)
{
    snprintf(out, size, "host='%s' port='%s' user='%s' password='%s' dbname=%s",
             getenv("PGHOST"), getenv("PGPORT"), getenv("PGUSER"),
             getenv("PGPASSWORD"), db);
}

/* Two fresh databases: one set up the old way (its tables made by a
** station's first connection, as the role that owns them), one with
** `simlab server setup` and a role per station; key-less copies of the
** tables for the reference. */
static int setup_servers(Station *st)
{
    char admin[1024];
    admin_conninfo("postgres", admin, sizeof admin);
    PGconn *pg = PQconnectdb(admin);
    PQclear(PQexec(pg, "DROP DATABASE IF EXISTS bench_open"));
    PQclear(PQexec(pg, "DROP DATABASE IF EXISTS bench_secure"));
    PQclear(PQexec(pg, "CREATE DATABASE bench_open"));
    PQclear(PQexec(pg, "CREATE DATABASE bench_secure"));
    PQfinish(pg);
    admin_conninfo("bench_open", open_url, sizeof open_url);
    admin_conninfo("bench_secure", secure_url, sizeof secure_url);
    SimError err;
    SyncConn *c = NULL;
    if (sync_connect(open_url, &real_clock, &c, &err) != SIM_OK ||
        sync_server_setup(secure_url, NULL, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    sync_close(c);
    station_url = calloc((size_t)n_stations, sizeof *station_url);
    for (int i = 0; i < n_stations; i++) {
        char name[32], pass[400], conn[512];
        snprintf(name, sizeof name, "station%02d", st[i].index);
        snprintf(pass, sizeof pass, "%s/%s.pgpass", work, name);
        if (sync_server_add_role(secure_url, SYNC_ROLE_STATION, name, NULL,
                                 pass, conn, sizeof conn, NULL,
                                 &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
        snprintf(station_url[i], sizeof station_url[i], "%s%spassfile=%s", conn,
                 strchr(conn, '?') ? "&" : "?", pass);
    }
    pg = PQconnectdb(open_url);
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "DROP TABLE IF EXISTS bare_%s; CREATE TABLE bare_%s AS "
                 "SELECT origin",
                 SYNC_TABLES[i].table, SYNC_TABLES[i].table);
        size_t k = strlen(sql);
        for (const SyncColumn *col = SYNC_TABLES[i].cols; col->name; col++) {
            k += (size_t)snprintf(sql + k, sizeof sql - k, ", %s", col->name);
        }
        snprintf(sql + k, sizeof sql - k, " FROM %s WHERE false",
                 SYNC_TABLES[i].table);
        PQclear(PQexec(pg, sql));
    }
    PQfinish(pg);
    return 0;
}

/* Empties the pushed tables of server conninfo (station roles and the
** files they claimed stay) and marks every row of the files again. */
static void reset(const char *conninfo, Station *st)
{
    PGconn *pg = PQconnectdb(conninfo);
    for (size_t i = 0; i < SYNC_N_TABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "TRUNCATE %s", SYNC_TABLES[i].table);
        PQclear(PQexec(pg, sql));
    }
    PQfinish(pg);
    SimError err;
    for (int i = 0; i < n_stations; i++) {
        sync_mark_all(st[i].path, &err);
    }
}

/* All stations push to the open (secure 0) or secured server: rows/s. */
static double push_pass(Station *st, int secure, long *rows_out, int *failed)
{
    reset(secure ? secure_url : open_url, st);
    use_secure = secure;
    double s = run_all(st, sync_main);
    long rows = 0;
    for (int i = 0; i < n_stations; i++) {
        rows += st[i].rows;
        *failed |= st[i].failed;
    }
    *rows_out = rows;
    return (double)rows / s;
}

/* One station enrolls while another session holds the study's lock: ms to
** each (local) assignment. */
static void held_lock(Station *s0)
{
    char lock[256];
    snprintf(lock, sizeof lock,
             "SELECT pg_advisory_lock(715202, "
             "hashtext('%s'))",
             study->id);
    PGconn *holder = PQconnectdb(secure_url);
    PQclear(PQexec(holder, lock));
    Store *st = NULL;
    StoreOpenSpec os = {0};
    os.path = s0->path;
    os.study = study;
    os.durability = DURABILITY_FULL;
    os.wall_ms = 1900000000000LL;
    os.station = "station00";
    SyncConn *c = NULL;
    SimError err;
    if (store_open_spec(&os, &st, &err) != SIM_OK ||
        sync_connect(station_url[0], &real_clock, &c, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    double ms[5], max = 0, sum = 0;
    int before = st ? count_local(store_db(st)) : 0;
    for (int i = 0; c && st && i < 5; i++) {
        EnrollSpec e = {0};
        e.pilot = 1;
        e.wall_ms = 1900000000000LL + i;
        int64_t t0 = now_ns();
        sync_enroll(c, st, study, &e, NULL, &err);
        ms[i] = (double)(now_ns() - t0) / 1e6;
        sum += ms[i];
        max = ms[i] > max ? ms[i] : max;
    }
    int local = st ? count_local(store_db(st)) - before : 0;
    printf("lock held by another session: %d of 5 assigned locally, after "
           "%.0f ms on average, %.0f ms at most\n",
           local, sum / 5, max);
    sync_close(c);
    store_close(st);
    PQfinish(holder);
}

int main(int argc, char **argv)
{
    if (argc < 3 || !getenv("PGHOST") || !getenv("PGPASSWORD")) {
        fprintf(stderr, "usage: bench_sync BUNDLE_DIR WORK_DIR [STATIONS] "
                        "[RESPONSES] [ENROLL] (inside pg_virtualenv: "
                        "bench/sync/run.sh)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    work = argv[2];
    n_stations = argc > 3 ? atoi(argv[3]) : 50;
    long total = argc > 4 ? atol(argv[4]) : 1000000;
    n_enroll = argc > 5 ? atoi(argv[5]) : 20;
    per_station = (int)(total / n_stations);
    SimError err;
    if (study_load(argv[1], &study, NULL, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    Station *st = calloc((size_t)n_stations, sizeof *st);
    long responses = 0;
    int64_t t0 = now_ns();
    for (int i = 0; i < n_stations; i++) {
        st[i].index = i;
        snprintf(st[i].path, sizeof st[i].path, "%s/station%02d.db", work, i);
        remove(st[i].path);
        st[i].lat_srv = calloc((size_t)n_enroll, sizeof(double));
        st[i].lat_loc = calloc((size_t)n_enroll, sizeof(double));
        st[i].lat_one = calloc((size_t)n_enroll, sizeof(double));
        if (make_file(&st[i]) != 0) {
            return 1;
        }
        responses += st[i].responses;
    }
    printf("setup: %d station files, %ld responses, %.1f s\n", n_stations,
           responses, (double)(now_ns() - t0) / 1e9);
    if (setup_servers(st) != 0) {
        return 1;
    }
    /* stations authenticate with their pgpass files */
    unsetenv("PGPASSWORD");
    double bare_s = run_all(st, bare_main);
    long bare_rows = 0;
    for (int i = 0; i < n_stations; i++) {
        bare_rows += st[i].rows;
    }
    double bare = (double)bare_rows / bare_s;
    printf("bare INSERTs (reference)       : %9ld rows, %9.0f rows/s\n",
           bare_rows, bare);
    int failed = 0;
    double open_rate[2], secure_rate[2];
    for (int round = 0; round < 2; round++) {
        long rows;
        for (int k = 0; k < 2; k++) {
            int secure = (round + k) % 2; /* open first, then secured first */
            double r = push_pass(st, secure, &rows, &failed);
            (secure ? secure_rate : open_rate)[round] = r;
            printf("round %d, %-22s: %9ld rows, %9.0f rows/s (%.2f x bare)\n",
                   round + 1,
                   secure ? "station roles, RLS" : "set up the old way", rows,
                   r, r / bare);
        }
        printf("round %d: station roles / old way = %.2f\n", round + 1,
               secure_rate[round] / open_rate[round]);
    }
    printf("both rounds: station roles / old way = %.2f\n",
           (secure_rate[0] + secure_rate[1]) / (open_rate[0] + open_rate[1]));
    PGconn *pg = PQconnectdb(secure_url);
    PGresult *r = PQexec(pg, "SELECT count(*) FROM response");
    printf("the secured server holds %s responses\n", PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(pg);
    pthread_barrier_init(&pass_barrier, NULL, (unsigned)n_stations);
    run_all(st, enroll_main);
    pthread_barrier_destroy(&pass_barrier);
    int n = n_stations * n_enroll, fallbacks = 0;
    double *srv = calloc((size_t)n, sizeof *srv);
    double *loc = calloc((size_t)n, sizeof *loc);
    for (int i = 0; i < n_stations; i++) {
        memcpy(srv + i * n_enroll, st[i].lat_srv,
               (size_t)n_enroll * sizeof *srv);
        memcpy(loc + i * n_enroll, st[i].lat_loc,
               (size_t)n_enroll * sizeof *loc);
        failed |= st[i].failed;
        fallbacks += st[i].fallbacks;
    }
    percentiles("server assignment + local enroll", srv, n);
    printf("  of which assigned locally: %d\n", fallbacks);
    percentiles("local enroll only (reference)", loc, n);
    percentiles("server assignment, one station", st[0].lat_one, n_enroll);
    held_lock(&st[0]);
    study_free(study);
    return failed;
}
