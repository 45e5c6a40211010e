/*
** A browser of `simlab serve` without HTTP, for the tests of
** serve/serve_live.h: one world clock (the server's real-time clock; the
** browser's runs SKEW_NS behind it), a client that keeps its token, key
** and resume code as the page does, stamps onsets and inputs with its own
** clock, and answers screens as a participant would. Include after
** harness.h and test_study.h.
*/
#ifndef SIMLAB_TESTS_SERVE_CLIENT_H
#define SIMLAB_TESTS_SERVE_CLIENT_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve_live.h"
#include "experiment/store.h"

static int64_t now_ns = 1700000000000000000LL; /* the server's clock */
#define SKEW_NS (-3000000000LL) /* the browser's clock is 3 s behind */

/* The browser's clock (ms since 1970, sub-ms), now. */
static inline double bms(void)
{
    return (double)(now_ns + SKEW_NS) / 1e6;
}

static inline void wait_ms(double ms)
{
    now_ns += (int64_t)(ms * 1e6);
}

typedef struct Client {
    const char *ext;     /* the link's id */
    const char *session; /* its SESSION_ID, or NULL */
    char token[40];
    char key[40];  /* the browser's key, kept as the page keeps it */
    char code[16]; /* the resume code shown */
    int pos[3];
    int applied;
    int next_n;
    double onset; /* browser ms: the screen's onset */
    int last_status;
    json_t *last; /* the last reply's body (owned) */
    json_t *view; /* the last screen (owned) */
    json_t *completion;
} Client;

static inline void client_init(Client *c, const char *ext, const char *session)
{
    memset(c, 0, sizeof *c);
    c->ext = ext;
    c->session = session;
    memset(c->pos, 0xff, sizeof c->pos);
}

static inline void client_free(Client *c)
{
    json_decref(c->last);
    json_decref(c->view);
    json_decref(c->completion);
    c->last = c->view = c->completion = NULL;
}

/* Takes a reply as the page does: its position, screen, token, key and
** code; a new screen is shown 5 ms later (its onset). */
static inline int take(Client *c, ServeReply *r)
{
    int st = r->status;
    c->last_status = st;
    json_decref(c->last);
    c->last = json_incref(r->body);
    if (st == 200) {
        json_t *p = json_object_get(r->body, "pos");
        int moved = 0;
        for (int i = 0; i < 3; i++) {
            int v = (int)json_integer_value(json_array_get(p, (size_t)i));
            moved |= v != c->pos[i];
            c->pos[i] = v;
        }
        c->applied =
            (int)json_integer_value(json_object_get(r->body, "applied"));
        c->next_n = moved ? c->applied : c->next_n;
        const char *tok = json_string_value(json_object_get(r->body, "token"));
        if (tok) {
            snprintf(c->token, sizeof c->token, "%s", tok);
        }
        const char *key = json_string_value(json_object_get(r->body, "key"));
        if (key) {
            snprintf(c->key, sizeof c->key, "%s", key);
        }
        const char *code =
            json_string_value(json_object_get(r->body, "resume_code"));
        if (code) {
            snprintf(c->code, sizeof c->code, "%s", code);
        }
        json_decref(c->view);
        c->view = json_incref(json_object_get(r->body, "view"));
        json_decref(c->completion);
        c->completion = json_incref(json_object_get(r->body, "completion"));
        if (moved || tok) {
            wait_ms(5);
            c->onset = bms();
        }
    }
    json_decref(r->body);
    return st;
}

/* POST /api/start with the link (and the key the page keeps); extra
** (stolen, may be NULL) adds members. */
/* The body of c's start: its id, platform session and key. */
static inline json_t *start_body(const Client *c)
{
    json_t *b = json_object();
    json_object_set_new(b, c->session ? "PROLIFIC_PID" : "participant",
                        json_string(c->ext));
    json_object_set_new(b, "STUDY_ID", json_string("s1"));
    if (c->session) {
        json_object_set_new(b, "SESSION_ID", json_string(c->session));
    }
    if (c->key[0]) {
        json_object_set_new(b, "key", json_string(c->key));
    }
    return b;
}

static inline int start_with(Serve *sv, Client *c, json_t *extra)
{
    ServeReply r;
    json_t *b = start_body(c);
    if (extra) {
        json_object_update(b, extra);
        json_decref(extra);
    }
    wait_ms(2);
    serve_start(sv, b, now_ns, &r);
    json_decref(b);
    memset(c->pos, 0xff, sizeof c->pos);
    return take(c, &r);
}

static inline int start(Serve *sv, Client *c)
{
    return start_with(sv, c, NULL);
}

/* Sends inputs (a JSON array, stolen) at pos with the screen's onset. */
static inline int send_at(Serve *sv, Client *c, const int pos[3],
                          json_t *inputs)
{
    ServeReply r;
    json_t *b = json_pack("{s:[i,i,i],s:f,s:o}", "pos", pos[0], pos[1], pos[2],
                          "onset", c->onset, "inputs", inputs);
    wait_ms(2);
    serve_input(sv, c->token, b, now_ns, &r);
    json_decref(b);
    return take(c, &r);
}

/* An input of kind a participant gives 700 ms later, stamped then. */
static inline json_t *in_kind(Client *c, const char *kind)
{
    wait_ms(700);
    return json_pack("{s:i,s:s,s:f}", "n", c->next_n++, "kind", kind, "t",
                     bms());
}

static inline json_t *in_key(Client *c, const char *key)
{
    json_t *j = in_kind(c, "key");
    json_object_set_new(j, "key", json_string(key));
    return j;
}

static inline const char *screen(const Client *c)
{
    return json_string_value(json_object_get(c->view, "screen"));
}

/* Answers the screen shown as a participant would; returns the status. */
static inline int answer(Serve *sv, Client *c)
{
    json_t *v = c->view;
    json_t *a = json_array();
    json_t *choice = json_object_get(v, "choice");
    json_t *quiz = json_object_get(v, "quiz");
    json_t *cont = json_object_get(v, "continue");
    json_t *wait = cont ? json_object_get(cont, "wait_s") : NULL;
    json_t *after = cont ? json_object_get(cont, "after_ms") : NULL;
    double until = after && json_is_number(after) ? json_number_value(after)
                   : wait && json_is_number(wait)
                       ? c->onset + 1000 * json_number_value(wait)
                       : 0;
    if (until > bms()) {
        wait_ms(until - bms()); /* reads as long as asked */
    }
    if (quiz) {
        char k[4];
        snprintf(k, sizeof k, "%d", c->pos[1] == 1 ? 1 : 2);
        json_array_append_new(a, in_key(c, k));
    } else if (choice) {
        json_t *cl = json_array_get(json_object_get(choice, "options"), 0);
        json_array_append_new(
            a, in_key(c, json_string_value(json_object_get(cl, "key"))));
    }
    if (json_object_get(v, "rating")) {
        json_array_append_new(a, in_key(c, "4"));
    }
    if (cont && !quiz && (!choice || json_object_get(v, "rating"))) {
        json_array_append_new(a, in_kind(c, "continue"));
    }
    return send_at(sv, c, c->pos, a);
}

/* Answers until the screen named stop (or done) shows; the screens
** answered. */
static inline int answer_until(Serve *sv, Client *c, const char *stop, int max)
{
    int n = 0;
    while (n < max && strcmp(screen(c), "done") != 0 &&
           (!stop || strcmp(screen(c), stop) != 0)) {
        if (answer(sv, c) != 200) {
            break;
        }
        n++;
    }
    return n;
}

static inline int count(Store *st, const char *sql)
{
    sqlite3_stmt *q;
    int n = -1;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        n = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
    return n;
}

typedef struct Env {
    char path[512];
    Study *study;
    Store *store;
    Serve *sv;
} Env;

static inline int env_open_cfg(Env *e, const ServeConfig *extra)
{
    SimError err;
    StoreOpenSpec os = {.path = e->path,
                        .study = e->study,
                        .station = "webtest",
                        .durability = DURABILITY_FULL,
                        .wall_ms = now_ns / 1000000};
    if (store_open_spec(&os, &e->store, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    ServeConfig cfg = extra ? *extra : (ServeConfig){0};
    cfg.study = e->study;
    cfg.store = e->store;
    cfg.station = "webtest";
    if (serve_new(&cfg, now_ns, &e->sv, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static inline int env_open(Env *e, double burst)
{
    ServeConfig cfg = {.rate_burst = burst};
    return env_open_cfg(e, &cfg);
}

static inline void env_close(Env *e)
{
    serve_free(e->sv);
    store_close(e->store);
    e->sv = NULL;
    e->store = NULL;
}

static inline void env_remove(Env *e)
{
    char side[600];
    remove(e->path);
    snprintf(side, sizeof side, "%s-lock", e->path);
    remove(side);
    snprintf(side, sizeof side, "%s-wal", e->path);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", e->path);
    remove(side);
}

/* A fresh environment on study name at /tmp/simlab-TAG-PID.db. */
static inline int env_fresh(Env *e, const char *name, const char *tag)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "/tmp/simlab-%s-%d.db", tag,
             (int)getpid());
    env_remove(e);
    e->study = test_study_load(name);
    return e->study ? 0 : -1;
}

#endif
