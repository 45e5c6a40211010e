/*
** `simlab serve`: one study online. Loads and checks the bundle, opens the
** database as its one writer (a station like `simlab run`; on a full disk
** it says so and waits for space), optionally syncs to PostgreSQL, starts
** the HTTP server and prints the participant and pilot links; a write the
** disk refuses later is answered 503 until it succeeds again, only a lost
** lease ends the server. Stops cleanly on SIGINT or SIGTERM. No SDL:
** builds without SDL2.
*/
#define _GNU_SOURCE
#include "serve/serve.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve_http.h"
#include "serve/serve_live.h"
#include "serve/serve_view.h"
#include "common/sim_clock.h"
#include "common/sim_escape.h"
#include "experiment/export.h"
#include "experiment/store.h"
#include "experiment/sync.h"
#include "stimuli/hash.h"
#include "stimuli/study.h"

typedef struct ServeOptions {
    const char *dir, *db, *host, *sync_url, *station, *public_url, *proxies;
    int port;
    int accept_changed;
    int max_open;
    int enroll_rate;     /* new participants per second (0: the default) */
    int max_connections; /* 0: 4000 */
    int max_per_address; /* 0: 64; -1: none */
    int max_waiting;     /* 0: 16384 */
} ServeOptions;

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: simlab serve DIR --db FILE [--port N] [--host ADDR] "
               "[--sync URL] [--station NAME] [--public-url URL] "
               "[--accept-changed-bundle] [--max-open N] [--enroll-rate N] "
               "[--max-connections N] [--max-per-address N] [--proxy ADDRS] "
               "[--max-waiting N]\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, ServeOptions *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1";
    o->port = 8080;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--db") == 0 && v) {
            o->db = v;
        } else if (strcmp(a, "--host") == 0 && v) {
            o->host = v;
        } else if (strcmp(a, "--port") == 0 && v &&
                   parse_int(v, 0, 65535, &o->port) == 0) {
        } else if (strcmp(a, "--sync") == 0 && v) {
            o->sync_url = v;
        } else if (strcmp(a, "--station") == 0 && v) {
            if (!export_station_name_valid(v)) {
                fprintf(stderr,
                        "simlab serve: --station '%s': "
                        "use " EXPORT_STATION_NAME_SET "\n",
                        v);
                return 2;
            }
            o->station = v;
        } else if (strcmp(a, "--public-url") == 0 && v) {
            if (strncmp(v, "https://", 8) != 0 &&
                strncmp(v, "http://", 7) != 0) {
                fprintf(stderr, "simlab serve: --public-url must start with "
                                "https:// or http://\n");
                return 2;
            }
            o->public_url = v;
        } else if (strcmp(a, "--max-open") == 0 && v &&
                   parse_int(v, 1, 1000000, &o->max_open) == 0) {
        } else if (strcmp(a, "--enroll-rate") == 0 && v &&
                   parse_int(v, 1, 100000, &o->enroll_rate) == 0) {
        } else if (strcmp(a, "--max-connections") == 0 && v &&
                   parse_int(v, 16, 1000000, &o->max_connections) == 0) {
        } else if (strcmp(a, "--max-per-address") == 0 && v &&
                   parse_int(v, 0, 1000000, &o->max_per_address) == 0) {
            o->max_per_address = o->max_per_address ? o->max_per_address : -1;
        } else if (strcmp(a, "--proxy") == 0 && v) {
            o->proxies = strcmp(v, "none") == 0 ? "" : v;
        } else if (strcmp(a, "--max-waiting") == 0 && v &&
                   parse_int(v, 1, 10000000, &o->max_waiting) == 0) {
        } else if (strcmp(a, "--accept-changed-bundle") == 0) {
            o->accept_changed = 1;
            continue;
        } else if (a[0] != '-' && !o->dir) {
            o->dir = a;
            continue;
        } else {
            fprintf(stderr, "simlab serve: bad or incomplete argument '%s'\n",
                    a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (!o->dir || !o->db) {
        fprintf(stderr, "simlab serve: DIR and --db are required\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

/* simlab's data folder: $SIMLAB_ASSETS, else ../share/simlab beside the
** program (installed, or staged in the build tree). */
static int data_dir(char *out, size_t n)
{
    const char *env = getenv("SIMLAB_ASSETS");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        return -1;
    }
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return -1;
    }
    *slash = 0;
    int k = snprintf(out, n, "%s/../share/simlab", exe);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

static void print_link(const ServeOptions *o, int port, const char *pilot)
{
    char base[600];
    if (o->public_url) {
        size_t n = strlen(o->public_url);
        snprintf(base, sizeof base, "%s%s", o->public_url,
                 n && o->public_url[n - 1] == '/' ? "" : "/");
    } else {
        const char *h = strcmp(o->host, "0.0.0.0") == 0 ? "127.0.0.1"
                        : strcmp(o->host, "::") == 0    ? "::1"
                                                        : o->host;
        snprintf(base, sizeof base, "http://%s%s%s:%d/",
                 strchr(h, ':') ? "[" : "", h, strchr(h, ':') ? "]" : "", port);
    }
    printf("simlab serve: listening on %s:%d\n", o->host, port);
    printf("participant link (Prolific): "
           "%s?PROLIFIC_PID={{%%PROLIFIC_PID%%}}&STUDY_ID={{%%STUDY_ID%%}}"
           "&SESSION_ID={{%%SESSION_ID%%}}\n",
           base);
    printf("participant link (MTurk): "
           "%s?workerId=WORKER_ID&assignmentId=ASSIGNMENT_ID&hitId=HIT_ID\n",
           base);
    printf("participant link (other platforms): %s?participant=ID\n", base);
    printf("pilot link (yours, not the participants'; any id): "
           "%s?participant=ID&pilot=%s\n",
           base, pilot);
    fflush(stdout);
}

/* Raises the limit of open files to the hard limit (each connection is
** one); returns the limit now. */
static long raise_file_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return 1024;
    }
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_cur;
}

/* Bytes free for this user on the file system of the database's folder,
** -1 when it cannot be told. */
static long long disk_free(const char *db)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else {
        slash[slash == dir] = '\0';
    }
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0) {
        return -1;
    }
    return (long long)fs.f_bavail * (long long)fs.f_frsize;
}

/* Opens the store; while the disk is full, says so and tries again every
** 5 s (until a signal stops it). */
static int open_store(const StoreOpenSpec *os, Store **store, SimError *err)
{
    int told = 0;
    for (;;) {
        int rc = store_open_spec(os, store, err);
        long long free_b = disk_free(os->path);
        int full = rc != SIM_OK && (strstr(err->msg, "disk is full") ||
                                    strstr(err->msg, "No space left") ||
                                    (free_b >= 0 && free_b < 65536));
        if (rc == SIM_OK || !full || stop_flag) {
            if (rc == SIM_OK && told) {
                fprintf(stderr, "simlab serve: %s: there is space again\n",
                        os->path);
            }
            return rc;
        }
        if (!told) {
            fprintf(stderr,
                    "simlab serve: %s: the disk is full (%lld KiB free): "
                    "waiting for space, trying again every 5 s (Ctrl-C "
                    "stops)\n",
                    os->path, free_b >= 0 ? free_b / 1024 : 0);
            told = 1;
        }
        for (int i = 0; i < 20 && !stop_flag; i++) {
            struct timespec ts = {0, 250000000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Housekeeping once a second while serving: idle sessions, the lease.
** A write the disk refuses is said once and tried again; a lost lease
** ends the server (returns 1). */
static int tick(Serve *sv, ServeHttp *http, pthread_mutex_t *lock, Store *store)
{
    SimError err;
    sim_error_clear(&err);
    serve_http_hold(http);
    int rc = serve_tick(sv, sim_clock_real_ns(), &err);
    int lost = rc != SIM_OK && store_lease_lost(store);
    if (rc != SIM_OK && !lost) {
        serve_http_writes(http, 0, err.msg); /* commits say when it ends */
    }
    pthread_mutex_unlock(lock);
    if (lost) {
        /* another process holds the file: this one must not write */
        sim_escape_print(stderr, "simlab serve: ", err.msg);
        return 1;
    }
    return 0;
}

int serve_main(int argc, char **argv)
{
    ServeOptions o;
    int st = parse_options(argc, argv, &o);
    if (st) {
        return st;
    }
    char why[512];
    if (hash_path_in_bundle(o.dir, o.db, why, sizeof why) > 0) {
        fprintf(stderr,
                "simlab serve: the database %s would be inside the study "
                "bundle %s (it would change the bundle's hash); give a --db "
                "outside it\n",
                o.db, o.dir);
        return 2;
    }
    char host_station[80];
    if (!o.station) {
        char hn[64];
        if (gethostname(hn, sizeof hn) != 0) {
            snprintf(hn, sizeof hn, "host");
        }
        hn[sizeof hn - 1] = 0;
        snprintf(host_station, sizeof host_station, "web-%.60s", hn);
        o.station =
            export_station_name_valid(host_station) ? host_station : "web";
    }
    char data[PATH_MAX + 32];
    if (data_dir(data, sizeof data) != 0) {
        fprintf(stderr, "simlab serve: cannot tell where the program is; set "
                        "SIMLAB_ASSETS to simlab's data folder\n");
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* the request threads share two malloc arenas: with one each, the
    ** memory freed by browsers that come and go is spread over sixteen
    ** and grows slowly (bench/serve/restarts.sh) */
    mallopt(M_ARENA_MAX, 2);
    long files = raise_file_limit();
    if (!o.max_connections) {
        o.max_connections = 4000;
    }
    if (o.max_connections > files - 64) {
        o.max_connections = files > 128 ? (int)(files - 64) : 64;
        fprintf(stderr,
                "simlab serve: warning: %ld files may be open (ulimit -n): "
                "at most %d connections\n",
                files, o.max_connections);
    }
    int status = 1;
    SimError err;
    sim_error_clear(&err);
    Study *study = NULL;
    Store *store = NULL;
    SyncAssigner *assigner = NULL;
    SyncWorker *worker = NULL;
    Serve *sv = NULL;
    ServeHttp *http = NULL;
    ServeBundle *bundle = NULL;
    char *strings = NULL; /* web/strings.json */
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    StudyReport rep;
    study_report_init(&rep);
    int64_t loaded_s = sim_clock_real_ms() / 1000;
    if (study_load(o.dir, &study, &rep, &err) != SIM_OK) {
        fprintf(stderr, "simlab serve: %s\n", err.msg);
        for (size_t i = 0; i < rep.n_errors; i++) {
            study_diag_print(stderr, "  ", &rep.errors[i]);
        }
        fprintf(stderr, "Run 'simlab check %s' for the full report.\n", o.dir);
        study_report_free(&rep);
        return 1;
    }
    study_report_free(&rep);
    if (serve_bundle_open(o.dir, study->hash, loaded_s, &bundle, &err) !=
        SIM_OK) {
        sim_escape_print(stderr, "simlab serve: ", err.msg);
        goto cleanup;
    }
    StoreOpenSpec os = {.path = o.db,
                        .study = study,
                        .station = o.station,
                        .durability = DURABILITY_FULL,
                        .allow_changed = o.accept_changed,
                        .wall_ms = sim_clock_real_ms()};
    if (open_store(&os, &store, &err) != SIM_OK) {
        sim_escape_print(stderr, "simlab serve: ", err.msg);
        goto cleanup;
    }
    if (store_warning(store)[0]) {
        fprintf(stderr, "simlab serve: warning: %s\n", store_warning(store));
    }
    /* the WAL is copied back into the file by this thread (below), not by
    ** the commits that answer participants */
    if (store_autocheckpoint(store, 0, &err) != SIM_OK) {
        sim_escape_print(stderr, "simlab serve: ", err.msg);
        goto cleanup;
    }
    if (o.sync_url) {
        if (sync_assigner_start(o.sync_url, o.db, study, o.station, 4,
                                sim_clock_real(), &assigner, &err) != SIM_OK ||
            sync_worker_start(o.sync_url, o.db, o.accept_changed, 2000,
                              sim_clock_real(), &worker, &err) != SIM_OK) {
            sim_escape_print(stderr, "simlab serve: ", err.msg);
            goto cleanup;
        }
        sync_worker_wait_first(worker, 1500);
        SyncWorkerStatus first;
        sync_worker_status(worker, &first);
        if (first.warning[0]) {
            sim_escape_print(stderr, "simlab serve: warning: ", first.warning);
        }
        if (!first.connected) {
            sim_escape_print(stderr,
                             "simlab serve: warning: the server does not "
                             "answer yet (assigning here meanwhile): ",
                             first.error);
        }
    }
    ServeConfig cfg = {.study = study,
                       .store = store,
                       .worker = worker,
                       .assign_later = assigner != NULL,
                       .station = o.station,
                       .max_open = o.max_open,
                       .enroll_per_s = o.enroll_rate,
                       .enroll_burst = o.enroll_rate * 10.0,
                       .max_waiting = o.max_waiting};
    if (serve_new(&cfg, sim_clock_real_ns(), &sv, &err) != SIM_OK) {
        sim_escape_print(stderr, "simlab serve: ", err.msg);
        goto cleanup;
    }
    if (!serve_waits_for_consent(sv)) {
        fprintf(stderr,
                "simlab serve: warning: the study's first step is no page "
                "(a consent): a new id is enrolled at its first visit, and "
                "a link opened with someone else's id is told it is in "
                "use\n");
    }
    json_t *sj = serve_strings_json(study);
    strings = sj ? json_dumps(sj, JSON_COMPACT) : NULL;
    json_decref(sj);
    ServeHttpConfig hc = {.host = o.host,
                          .port = o.port,
                          .serve = sv,
                          .store = store,
                          .lock = &lock,
                          .data_dir = data,
                          .bundle = bundle,
                          .assigner = assigner,
                          .max_connections = o.max_connections,
                          .max_per_address = o.max_per_address,
                          .proxies = o.proxies,
                          .strings = strings};
    int port = 0;
    if (serve_http_start(&hc, &http, &port, &err) != SIM_OK) {
        fprintf(stderr, "simlab serve: %s\n", err.msg);
        goto cleanup;
    }
    print_link(&o, port, serve_pilot_secret(sv));
    status = 0;
    int64_t last = 0;
    while (!stop_flag) {
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
        serve_http_sweep(http, sim_clock_mono_ns());
        int64_t t = sim_clock_real_ms();
        if (t - last < 1000) {
            continue;
        }
        last = t;
        if (tick(sv, http, &lock, store) != 0) {
            status = 1;
            break;
        }
        store_checkpoint(o.db, &err); /* a full disk: tried next second */
    }
    ServeStats sst;
    serve_stats(sv, &sst);
    fprintf(stderr,
            "simlab serve: stopping (%ld participants known, %ld screens "
            "answered in this run; %ld declined before enrolment)\n",
            sst.known, sst.acked, sst.declined);
cleanup:
    /* the assignments under way answer their suspended requests first */
    sync_assigner_stop(assigner);
    serve_http_stop(http);
    free(strings);
    serve_free(sv);
    if (worker) {
        SyncWorkerStatus ws;
        sync_worker_stop(worker, &ws);
        char redacted[512];
        sync_url_redact(o.sync_url, redacted, sizeof redacted);
        fprintf(stderr,
                "simlab serve: sync to %s: %ld rows pushed, %ld waiting%s%s\n",
                redacted, ws.pushed, ws.pending, ws.error[0] ? "; " : "",
                ws.error);
    }
    store_close(store);
    serve_bundle_free(bundle);
    study_free(study);
    return status;
}
