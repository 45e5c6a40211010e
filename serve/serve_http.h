/*
** The HTTP side of `simlab serve` (libmicrohttpd): the browser front end
** (web/, read into memory at start: no path of a request is ever opened),
** the JSON API of serve_live.h, and the media of the current screen.
** Requests that arrive together are applied in one commit group of the
** store (store_group_begin): one sync for all of them, each answered only
** after it.
** Request size, connection and rate limits; security headers on every
** answer. No SDL.
*/
#ifndef SIMLAB_SERVE_SERVE_HTTP_H
#define SIMLAB_SERVE_SERVE_HTTP_H

#include <pthread.h>
#include <stddef.h>

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
    const char *strings;   /* served as web/strings.json: the study's
                              participant strings (serve_strings_json), for
                              the page before it reaches the API; copied */
    int max_connections;   /* 0: 4000 */
    int threads;           /* request threads; 0: 16 (the most requests
                              one commit group holds) */
} ServeHttpConfig;

/* Reads the front end's files and starts listening (its own thread). The
** port bound is written to *port (the one asked, or the one the system
** chose). On success *out owns the server (serve_http_stop). */
int serve_http_start(const ServeHttpConfig *cfg, ServeHttp **out, int *port,
                     SimError *err);

/* Stops listening, waits for the requests under way, frees the server.
** NULL is a no-op. */
void serve_http_stop(ServeHttp *h);

#endif
