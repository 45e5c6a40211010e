/*
** The HTTP side of `simlab serve` (libmicrohttpd): the browser front end
** (web/, read into memory at start: no path of a request is ever opened),
** the JSON API of serve_live.h, and the media of the current screen
** (serve_bundle.h). Requests that arrive together are applied in one
** commit group of the store (store_group_begin): one sync for all of
** them, each answered only after it. A request that needs a server
** assignment leaves the lock and waits for it suspended (a
** SyncAssigner): everyone else goes on. Connections: a total cap, a cap
** per client address (the proxy's own connections are not capped), and
** deadlines trickling cannot extend -- a connection idle for
** idle_timeout_s, or whose request has not arrived whole within
** read_timeout_s of its first line, is closed (serve_http_sweep). Request
** size and rate limits; security headers on every answer. No SDL.
*/
#ifndef SIMLAB_SERVE_SERVE_HTTP_H
#define SIMLAB_SERVE_SERVE_HTTP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/serve_bundle.h"
#include "serve/serve_live.h"
#include "common/sim_error.h"

/* Largest request body accepted (bytes); larger ones get 413. */
#define SERVE_BODY_MAX 65536

typedef struct ServeHttp ServeHttp;

typedef struct ServeHttpConfig {
    const char *host;      /* address to bind ("127.0.0.1", "::1", "0.0.0.0") */
    int port;              /* 0: any free port */
    Serve *serve;          /* the participants (borrowed) */
    Store *store;          /* their database (borrowed), for commit groups */
    pthread_mutex_t *lock; /* held around every call into serve and store */
    const char *data_dir;  /* simlab's data folder (web/ and fonts/ in it) */
    ServeBundle *bundle;   /* the study's files (borrowed) */
    SyncAssigner *assigner; /* server assignments (borrowed), or NULL */
    const char *strings;    /* served as web/strings.json: the study's
                               participant strings (serve_strings_json), for
                               the page before it reaches the API; copied */
    int max_connections;    /* 0: 4000 */
    int max_per_address;    /* connections of one client address (an IPv6
                               /64 counts as one); 0: 64; < 0: no cap */
    const char *proxies;    /* comma-separated addresses whose connections
                               are not capped per address (the reverse
                               proxy's); NULL: 127.0.0.1 and ::1; "": none */
    int read_timeout_s;     /* a request arrives whole within; 0: 10 */
    int idle_timeout_s;     /* an idle connection is closed after; 0: 30 */
    int threads;            /* request threads; 0: 16 (the most requests
                               one commit group holds) */
} ServeHttpConfig;

/* Reads the front end's files and starts listening (its own threads). The
** port bound is written to *port (the one asked, or the one the system
** chose). On success *out owns the server (serve_http_stop). */
int serve_http_start(const ServeHttpConfig *cfg, ServeHttp **out, int *port,
                     SimError *err);

/* Closes the connections past their deadlines (call about every 250 ms);
** mono_ns: the monotonic clock. */
void serve_http_sweep(ServeHttp *h, int64_t mono_ns);

/* Takes cfg.lock once no commit runs (a commit releases the lock while
** it syncs): for writes to the store between the requests' commits (the
** lease's heartbeat). Unlock cfg.lock as usual. */
void serve_http_hold(ServeHttp *h);

/* Says on stderr, once, that writes fail (ok 0, msg the store's error),
** and once that they succeed again (ok 1). Call with cfg.lock held (the
** commits and the lease's heartbeat do). */
void serve_http_writes(ServeHttp *h, int ok, const char *msg);

/* Connections open now, and closed by a deadline or refused by the
** per-address cap since the start. */
void serve_http_counts(ServeHttp *h, long *open, long *timed_out,
                       long *refused);

/* Stops listening, waits for the requests under way, frees the server.
** Stop the assigner first (its jobs resume their requests). NULL is a
** no-op. */
void serve_http_stop(ServeHttp *h);

#endif
