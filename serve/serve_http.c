/*
** libmicrohttpd glue for `simlab serve` (serve_http.h): routes, bodies
** read up to SERVE_BODY_MAX, JSON in and out, static files from memory,
** media files of the current screen by their index (serve_bundle.h), the
** headers that keep a browser to this origin, commit groups, requests
** suspended while their server assignment is made, and the connection
** caps and deadlines (serve_conn.h).
*/
#define _GNU_SOURCE
#include "serve/serve_http.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve_conn.h"
#include "common/sim_alloc.h"
#include "common/sim_clock.h"
#include "common/sim_escape.h"

/* A file of the front end, read at start. */
typedef struct Static {
    char url[96];
    const char *type;
    char *data;
    size_t len;
} Static;

#define STATIC_MAX 48

/* Group commit: requests applied while a group is open are answered
** once it committed. The first request of a group (its leader) lets the
** requests already waiting for the lock join, then commits without the
** lock: meanwhile requests that write nothing (a browser waiting at the
** first page, media) are answered, and those that write wait for it. */
typedef struct Committer {
    pthread_cond_t done;
    int open;              /* a group is open in the store */
    int committing;        /* its COMMIT runs (the lock released) */
    unsigned long id;      /* the open (or last) group */
    unsigned long done_id; /* the last group committed or failed */
    int result[64];        /* SIM_OK or the error, by group id % 64 */
    int members;           /* requests applied in the open group */
    int arriving;          /* requests waiting for the lock (atomic) */
} Committer;

/* How long a leader waits at most for the requests already arriving. */
#define GROUP_GATHER_NS 3000000LL

struct ServeHttp {
    ServeHttpConfig cfg;
    struct MHD_Daemon *d;
    Static files[STATIC_MAX];
    size_t n_files;
    Committer cm;
    ConnTable conns;
    int conns_ready;
    int writes_failing; /* under cfg.lock: the last write failed */
};

/* A request under way: its body so far, and the server assignment it
** waits for (suspended). */
typedef struct Req {
    char *body;
    size_t len;
    int too_big;
    int started;                 /* the api call was made */
    SyncAssignJob *job;          /* waited for, or NULL */
    int job_done;                /* answered (atomic) */
    struct MHD_Connection *conn; /* to resume */
} Req;

/* --------------------------------------------------------------- statics */

static const char *type_of(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {{".html", "text/html; charset=utf-8"},
                 {".js", "text/javascript; charset=utf-8"},
                 {".css", "text/css; charset=utf-8"},
                 {".ttf", "font/ttf"},
                 {".svg", "image/svg+xml"},
                 {".json", "application/json"}};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t k = strlen(types[i].ext);
        if (n > k && strcmp(name + n - k, types[i].ext) == 0) {
            return types[i].type;
        }
    }
    return NULL;
}

static int read_whole(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    size_t cap = 65536, n = 0;
    char *buf = sim_malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            break;
        }
        if (n == cap) {
            char *nb = sim_realloc(buf, cap * 2);
            if (!nb) {
                sim_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        sim_free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

/* Reads the files of dir whose names have a known type (no subfolders) as
** url_prefix + name. */
static int load_dir(ServeHttp *h, const char *dir, const char *url_prefix,
                    const char *only, SimError *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        return sim_fail(err, SIM_ERR_IO,
                        "%s: %s (simlab's data folder: set "
                        "SIMLAB_ASSETS)",
                        dir, strerror(errno));
    }
    struct dirent *e;
    int rc = SIM_OK;
    while (rc == SIM_OK && (e = readdir(d)) != NULL) {
        const char *type = type_of(e->d_name);
        if (e->d_name[0] == '.' || !type ||
            (only && strncmp(e->d_name, only, strlen(only)) != 0)) {
            continue;
        }
        if (h->n_files == STATIC_MAX) {
            rc = sim_fail(err, SIM_ERR_IO, "%s: too many files", dir);
            break;
        }
        Static *s = &h->files[h->n_files];
        char path[PATH_MAX + 600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(s->url, sizeof s->url, "%s%s", url_prefix, e->d_name);
        s->type = type;
        if (read_whole(path, &s->data, &s->len) != 0) {
            rc = sim_fail(err, SIM_ERR_IO, "%s: cannot read", path);
            break;
        }
        h->n_files++;
    }
    closedir(d);
    return rc;
}

static const Static *find_static(const ServeHttp *h, const char *url)
{
    if (strcmp(url, "/") == 0) {
        url = "/web/index.html";
    }
    for (size_t i = 0; i < h->n_files; i++) {
        if (strcmp(h->files[i].url, url) == 0) {
            return &h->files[i];
        }
    }
    return NULL;
}

/* -------------------------------------------------------------- answers */

static void add_headers(struct MHD_Response *r, int cache)
{
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(
        r, "Content-Security-Policy",
        "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; "
        "script-src 'self'; connect-src 'self'; font-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    MHD_add_response_header(r, "Cache-Control",
                            cache ? "no-cache" : "no-store");
}

static enum MHD_Result send_buf(struct MHD_Connection *c, int status,
                                const char *type, const char *data, size_t len,
                                enum MHD_ResponseMemoryMode mode, int cache)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)data, mode);
    if (!r) {
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    add_headers(r, cache);
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

/* A JSON answer (body stolen); retry_s > 0 adds Retry-After. */
static enum MHD_Result send_json_retry(struct MHD_Connection *c, int status,
                                       json_t *body, int retry_s)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text) {
        static const char oom[] = "{\"error\":\"memory\"}";
        return send_buf(c, 500, "application/json", oom, sizeof oom - 1,
                        MHD_RESPMEM_PERSISTENT, 0);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), text, MHD_RESPMEM_MUST_COPY);
    free(text);
    if (!r) {
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    add_headers(r, 0);
    if (retry_s > 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", retry_s);
        MHD_add_response_header(r, "Retry-After", v);
    }
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_json(struct MHD_Connection *c, int status,
                                 json_t *body)
{
    return send_json_retry(c, status, body, 0);
}

/* 503: the database refused a write; try again in a second. */
static enum MHD_Result send_busy(struct MHD_Connection *c)
{
    return send_json_retry(
        c, 503, json_pack("{s:s,s:i}", "error", "store", "retry_ms", 1000), 1);
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status,
                                  const char *code)
{
    return send_json(c, status, json_pack("{s:s}", "error", code));
}

/* -------------------------------------------------------------- routes */

/* The token of a request: the Authorization header ("Bearer TOKEN"). */
static const char *request_token(struct MHD_Connection *c)
{
    const char *a =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (a && strncmp(a, "Bearer ", 7) == 0) {
        return a + 7;
    }
    return NULL;
}

void serve_http_hold(ServeHttp *h)
{
    pthread_mutex_lock(h->cfg.lock);
    while (h->cm.committing) {
        pthread_cond_wait(&h->cm.done, h->cfg.lock);
    }
}

void serve_http_writes(ServeHttp *h, int ok, const char *msg)
{
    if (!ok && !h->writes_failing) {
        sim_escape_print(stderr,
                         "simlab serve: writes fail (answers wait with 503 "
                         "and are kept in the browsers until a write "
                         "succeeds): ",
                         msg);
        h->writes_failing = 1;
    } else if (ok && h->writes_failing) {
        fprintf(stderr, "simlab serve: writes succeed again\n");
        h->writes_failing = 0;
    }
}

/* The answer of a server assignment (a worker thread): the request waits
** suspended; it goes on. */
static void job_done(SyncAssignJob *job, void *ctx)
{
    (void)job;
    Req *rq = ctx;
    __atomic_store_n(&rq->job_done, 1, __ATOMIC_SEQ_CST);
    MHD_resume_connection(rq->conn);
}

/* Runs one API call in the open commit group (opening one when none is)
** and answers once the group committed. */
static enum MHD_Result api(ServeHttp *h, struct MHD_Connection *c,
                           const char *url, Req *rq)
{
    json_t *body = NULL;
    if (!rq->job) {
        json_error_t jerr;
        body = rq->len ? json_loadb(rq->body, rq->len, JSON_REJECT_DUPLICATES,
                                    &jerr)
                       : json_object();
        if (!body) {
            return send_error(c, 400, "bad_json");
        }
    }
    ServeReply rep;
    Committer *cm = &h->cm;
    SimError err;
    int start = !rq->job && strcmp(url, "/api/start") == 0;
    /* counted as arriving until it can join a group: waiting for the lock
    ** or for the commit under way, so that the next leader gathers it */
    __atomic_add_fetch(&cm->arriving, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(h->cfg.lock);
    if (start && !serve_start_stores(h->cfg.serve, body)) {
        /* answered from memory: no group to wait for */
        __atomic_sub_fetch(&cm->arriving, 1, __ATOMIC_SEQ_CST);
        serve_start(h->cfg.serve, body, sim_clock_real_ns(), &rep);
        pthread_mutex_unlock(h->cfg.lock);
        json_decref(body);
        return send_json_retry(c, rep.status, rep.body, rep.retry_s);
    }
    while (cm->committing) {
        pthread_cond_wait(&cm->done, h->cfg.lock);
    }
    __atomic_sub_fetch(&cm->arriving, 1, __ATOMIC_SEQ_CST);
    if (!cm->open) {
        if (store_group_begin(h->cfg.store, &err) != SIM_OK) {
            if (rq->job) {
                /* answered, not enrolled: the browser asks again */
                serve_enroll_answered(h->cfg.serve, rq->job);
            }
            pthread_mutex_unlock(h->cfg.lock);
            json_decref(body);
            return send_busy(c);
        }
        cm->open = 1;
        cm->id++;
        serve_group_begin(h->cfg.serve);
    }
    unsigned long my = cm->id;
    int64_t now = sim_clock_real_ns();
    if (rq->job) {
        serve_enroll_finish(h->cfg.serve, rq->job, now, &rep);
    } else if (start) {
        serve_start(h->cfg.serve, body, now, &rep);
    } else {
        serve_input(h->cfg.serve, request_token(c), body, now, &rep);
    }
    json_decref(body);
    if (++cm->members == 1) {
        /* the leader: the requests waiting for the lock join first */
        int64_t t0 = sim_clock_mono_ns();
        while (__atomic_load_n(&cm->arriving, __ATOMIC_SEQ_CST) > 0 &&
               sim_clock_mono_ns() - t0 < GROUP_GATHER_NS) {
            pthread_mutex_unlock(h->cfg.lock);
            sched_yield();
            pthread_mutex_lock(h->cfg.lock);
        }
        cm->committing = 1;
        pthread_mutex_unlock(h->cfg.lock);
        int rc = store_group_commit(h->cfg.store, &err);
        pthread_mutex_lock(h->cfg.lock);
        cm->committing = 0;
        if (rc != SIM_OK) {
            serve_group_failed(h->cfg.serve);
        }
        serve_http_writes(h, rc == SIM_OK, err.msg);
        cm->open = 0;
        cm->members = 0;
        cm->result[my % 64] = rc;
        cm->done_id = my;
        pthread_cond_broadcast(&cm->done);
    } else {
        while (cm->done_id < my) {
            pthread_cond_wait(&cm->done, h->cfg.lock);
        }
    }
    int committed = cm->result[my % 64] == SIM_OK;
    if (!committed && rep.job) {
        serve_enroll_cancel(h->cfg.serve, rep.job); /* never asked */
    }
    pthread_mutex_unlock(h->cfg.lock);
    if (!committed) {
        /* nothing of it is on the disk: not acknowledged, sent again */
        json_decref(rep.body);
        return send_busy(c);
    }
    if (rep.job) {
        if (!h->cfg.assigner) {
            json_decref(rep.body);
            return send_error(c, 500, "enroll");
        }
        /* the assignment is made off the lock: this request waits,
        ** suspended, and goes on (called again) once it is answered */
        rq->job = rep.job;
        rq->conn = c;
        rq->job_done = 0;
        rep.job->done = job_done;
        rep.job->ctx = rq;
        MHD_suspend_connection(c);
        sync_assigner_submit(h->cfg.assigner, rep.job);
        return MHD_YES;
    }
    return send_json_retry(c, rep.status, rep.body, rep.retry_s);
}

/* GET /media/TOKEN/EPOCH/K: file K of the current screen of that
** participant, if it is still the file of the bundle hashed. */
static enum MHD_Result media(ServeHttp *h, struct MHD_Connection *c,
                             const char *url)
{
    char token[40];
    unsigned long k = 0, epoch = 0;
    const char *p = url + strlen("/media/");
    const char *slash = strchr(p, '/');
    char *end = NULL;
    if (!slash || slash - p != 32) {
        return send_error(c, 404, "not_found");
    }
    memcpy(token, p, 32);
    token[32] = 0;
    errno = 0;
    epoch = strtoul(slash + 1, &end, 10);
    if (errno || !end || *end != '/' || end == slash + 1 ||
        epoch > 0xffffffffUL) {
        return send_error(c, 404, "not_found");
    }
    const char *ks = end + 1;
    k = strtoul(ks, &end, 10);
    if (errno || !end || *end || end == ks || k > 100000) {
        return send_error(c, 404, "not_found");
    }
    const char *path = NULL, *type = NULL;
    char path_copy[PATH_MAX], type_copy[64];
    path_copy[0] = type_copy[0] = '\0';
    pthread_mutex_lock(h->cfg.lock);
    if (serve_media(h->cfg.serve, token, (unsigned)epoch, (size_t)k, &path,
                    &type) == SIM_OK) {
        snprintf(path_copy, sizeof path_copy, "%s", path);
        snprintf(type_copy, sizeof type_copy, "%s", type);
    }
    pthread_mutex_unlock(h->cfg.lock);
    int fd = -1;
    uint64_t size = 0;
    if (!path_copy[0] ||
        serve_bundle_file(h->cfg.bundle, path_copy, &fd, &size) != 0) {
        return send_error(c, 404, "not_found");
    }
    struct MHD_Response *r = MHD_create_response_from_fd(size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type_copy);
    add_headers(r, 0);
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

/* The connection's accounting (serve_conn.h), NULL when none. */
static Conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? (Conn *)ci->socket_context : NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version;
    ServeHttp *h = cls;
    Req *rq = *con_cls;
    int post = strcmp(method, "POST") == 0;
    if (!rq) {
        rq = sim_calloc(1, sizeof *rq);
        if (!rq) {
            return MHD_NO;
        }
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) {
        /* the body, piece by piece, up to the limit */
        if (!rq->too_big && rq->len + *upload_size <= SERVE_BODY_MAX) {
            char *nb = sim_realloc(rq->body, rq->len + *upload_size + 1);
            if (nb) {
                memcpy(nb + rq->len, upload, *upload_size);
                rq->body = nb;
                rq->len += *upload_size;
            } else {
                rq->too_big = 1;
            }
        } else {
            rq->too_big = 1;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    /* the request is whole: no read deadline from here on */
    conn_set(&h->conns, conn_of(c), CONN_BUSY, sim_clock_mono_ns());
    if (rq->job) {
        /* called again after its server assignment was answered */
        return __atomic_load_n(&rq->job_done, __ATOMIC_SEQ_CST)
                   ? api(h, c, url, rq)
                   : MHD_YES;
    }
    if (rq->too_big) {
        return send_error(c, 413, "too_large");
    }
    if (post &&
        (strcmp(url, "/api/start") == 0 || strcmp(url, "/api/input") == 0)) {
        return api(h, c, url, rq);
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        return send_error(c, 405, "method");
    }
    if (strncmp(url, "/media/", 7) == 0) {
        return media(h, c, url);
    }
    if (strcmp(url, "/health") == 0) {
        static const char ok[] = "ok\n";
        return send_buf(c, 200, "text/plain", ok, sizeof ok - 1,
                        MHD_RESPMEM_PERSISTENT, 0);
    }
    const Static *s = find_static(h, url);
    if (!s) {
        return send_error(c, 404, "not_found");
    }
    return send_buf(c, 200, s->type, s->data, s->len, MHD_RESPMEM_PERSISTENT,
                    1);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    ServeHttp *h = cls;
    (void)toe;
    Req *rq = *con_cls;
    if (rq) {
        sim_free(rq->body);
        sim_free(rq);
        *con_cls = NULL;
    }
    /* idle until the next request's first line */
    conn_set(&h->conns, conn_of(c), CONN_IDLE, sim_clock_mono_ns());
}

/* A request's first line arrived: its read deadline runs. */
static void *request_began(void *cls, const char *uri, struct MHD_Connection *c)
{
    ServeHttp *h = cls;
    (void)uri;
    conn_set(&h->conns, conn_of(c), CONN_READING, sim_clock_mono_ns());
    return NULL;
}

static void connection_event(void *cls, struct MHD_Connection *c,
                             void **socket_context,
                             enum MHD_ConnectionNotificationCode code)
{
    ServeHttp *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ad =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        *socket_context =
            fd ? conn_started(&h->conns, fd->connect_fd,
                              ad ? ad->client_addr : NULL,
                              ad && ad->client_addr &&
                                      ad->client_addr->sa_family == AF_INET6
                                  ? sizeof(struct sockaddr_in6)
                                  : sizeof(struct sockaddr_in),
                              sim_clock_mono_ns())
               : NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        conn_closed(&h->conns, *socket_context);
        *socket_context = NULL;
    }
}

static enum MHD_Result admit(void *cls, const struct sockaddr *addr,
                             socklen_t len)
{
    ServeHttp *h = cls;
    return conn_admit(&h->conns, addr, len) ? MHD_YES : MHD_NO;
}

void serve_http_sweep(ServeHttp *h, int64_t mono_ns)
{
    if (!h) {
        return;
    }
    int idle = h->cfg.idle_timeout_s > 0 ? h->cfg.idle_timeout_s : 30;
    int read = h->cfg.read_timeout_s > 0 ? h->cfg.read_timeout_s : 10;
    conn_sweep(&h->conns, mono_ns, idle * 1000000000LL, read * 1000000000LL);
}

void serve_http_counts(ServeHttp *h, long *open, long *timed_out, long *refused)
{
    pthread_mutex_lock(&h->conns.mu);
    *open = h->conns.n;
    *timed_out = h->conns.timed_out;
    *refused = h->conns.refused;
    pthread_mutex_unlock(&h->conns.mu);
}

/* ------------------------------------------------------------ lifetime */

static int bind_addr(const char *host, int port, struct sockaddr_storage *ss,
                     socklen_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof *a4;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof *a6;
        return 0;
    }
    return -1;
}

int serve_http_start(const ServeHttpConfig *cfg, ServeHttp **out, int *port,
                     SimError *err)
{
    *out = NULL;
    ServeHttp *h = sim_calloc(1, sizeof *h);
    if (!h) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    h->cfg = *cfg;
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/web", cfg->data_dir);
    int rc = load_dir(h, dir, "/web/", NULL, err);
    snprintf(dir, sizeof dir, "%s/fonts", cfg->data_dir);
    if (rc == SIM_OK) {
        rc = load_dir(h, dir, "/fonts/", "DejaVuSans", err);
    }
    if (rc == SIM_OK && cfg->strings) {
        if (h->n_files == STATIC_MAX) {
            rc = sim_fail(err, SIM_ERR_IO, "too many files");
        } else {
            Static *st = &h->files[h->n_files];
            snprintf(st->url, sizeof st->url, "/web/strings.json");
            st->type = "application/json";
            st->len = strlen(cfg->strings);
            st->data = sim_malloc(st->len + 1);
            if (!st->data) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            } else {
                memcpy(st->data, cfg->strings, st->len + 1);
                h->n_files++;
            }
        }
    }
    if (rc == SIM_OK && !find_static(h, "/")) {
        rc = sim_fail(err, SIM_ERR_IO, "%s/web/index.html is missing",
                      cfg->data_dir);
    }
    struct sockaddr_storage ss;
    socklen_t sl;
    if (rc == SIM_OK && bind_addr(cfg->host, cfg->port, &ss, &sl) != 0) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "--host %s: not an IPv4 or IPv6 address", cfg->host);
    }
    int per_address = cfg->max_per_address == 0  ? 64
                      : cfg->max_per_address < 0 ? 0
                                                 : cfg->max_per_address;
    if (rc == SIM_OK) {
        if (conn_table_init(&h->conns, per_address, cfg->proxies) != 0) {
            conn_table_free(&h->conns);
            rc = sim_fail(err, SIM_ERR_USAGE,
                          "--proxy %s: not a list of IPv4 or IPv6 addresses",
                          cfg->proxies ? cfg->proxies : "");
        } else {
            h->conns_ready = 1;
        }
    }
    if (rc != SIM_OK) {
        serve_http_stop(h);
        return rc;
    }
    pthread_cond_init(&h->cm.done, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                     MHD_USE_TURBO | MHD_ALLOW_SUSPEND_RESUME;
    unsigned threads = (unsigned)(cfg->threads > 0 ? cfg->threads : 16);
    if (ss.ss_family == AF_INET6) {
        flags |= MHD_USE_IPv6;
    }
    unsigned limit =
        (unsigned)(cfg->max_connections > 0 ? cfg->max_connections : 4000);
    unsigned idle =
        (unsigned)(cfg->idle_timeout_s > 0 ? cfg->idle_timeout_s : 30);
    h->d = MHD_start_daemon(
        flags, (uint16_t)cfg->port, admit, h, handle, h, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)32768, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_NOTIFY_COMPLETED,
        completed, h, MHD_OPTION_NOTIFY_CONNECTION, connection_event, h,
        MHD_OPTION_URI_LOG_CALLBACK, request_began, h, MHD_OPTION_END);
    if (!h->d) {
        rc = sim_fail(err, SIM_ERR_IO, "cannot listen on %s port %d: %s",
                      cfg->host, cfg->port, strerror(errno));
        serve_http_stop(h);
        return rc;
    }
    /* the port bound (the system's choice for port 0) */
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_LISTEN_FD);
    struct sockaddr_storage bound;
    socklen_t bl = sizeof bound;
    *port = cfg->port;
    if (info &&
        getsockname(info->listen_fd, (struct sockaddr *)&bound, &bl) == 0) {
        *port = bound.ss_family == AF_INET6
                    ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                    : ntohs(((struct sockaddr_in *)&bound)->sin_port);
    }
    *out = h;
    return SIM_OK;
}

void serve_http_stop(ServeHttp *h)
{
    if (!h) {
        return;
    }
    if (h->d) {
        MHD_stop_daemon(h->d);
        pthread_cond_destroy(&h->cm.done);
    }
    if (h->conns_ready) {
        conn_table_free(&h->conns);
    }
    for (size_t i = 0; i < h->n_files; i++) {
        sim_free(h->files[i].data);
    }
    sim_free(h);
}
