/*
** `simlab serve`'s participants (serve_live.h): the id -> participant and
** token -> participant tables, who may continue (serve_access.h), resume
** through the session state machine, and the journal replay. A position
** is (step, attempt, screen phase); the server counts the inputs it
** applied at the current position, so a resent input is recognised by its
** number and applied once. Every response is committed by the session
** before the reply that acknowledges it is built. Each participant holds
** at most two tokens (the current one and the one it superseded) and
** writes at most CLIENTS_MAX online_start events per run, so restarting a
** link costs a bounded amount. Browsers before the consent: serve_wait.c.
*/
#include "serve/serve_live_int.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

/* Most inputs one request may carry. */
#define INPUTS_MAX 64
/* Longest questionnaire answer a request may carry, in bytes. */
#define ANSWER_MAX 16384
/* Browsers other than the last one a participant may continue in, per
** run (each is given a key, written to the file, and reopens the
** session). */
#define BROWSERS_MAX 16
/* Resume codes tried for ids no one has, per second (all of them
** together; CODE_TRIES for each id that is someone's). */
#define CODE_ANY_RATE 5.0

/* ------------------------------------------------------------------- map */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

Live *map_get(const Map *m, const char *key)
{
    if (!m->cap) {
        return NULL;
    }
    for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->v[i].live) {
            return NULL;
        }
        if (strcmp(m->v[i].key, key) == 0) {
            return m->v[i].live;
        }
    }
}

int map_put(Map *m, const char *key, Live *live)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        Entry *v = sim_calloc(cap, sizeof *v);
        if (!v) {
            return -1;
        }
        for (size_t k = 0; k < m->cap; k++) {
            if (!m->v[k].live) {
                continue;
            }
            size_t i = hash_str(m->v[k].key) & (cap - 1);
            while (v[i].live) {
                i = (i + 1) & (cap - 1);
            }
            v[i] = m->v[k];
        }
        sim_free(m->v);
        m->v = v;
        m->cap = cap;
    }
    size_t i = hash_str(key) & (m->cap - 1);
    while (m->v[i].live && strcmp(m->v[i].key, key) != 0) {
        i = (i + 1) & (m->cap - 1);
    }
    if (!m->v[i].live) {
        m->n++;
    }
    snprintf(m->v[i].key, sizeof m->v[i].key, "%s", key);
    m->v[i].live = live;
    return 0;
}

/* Removes key (linear probing: the entries after it move back into the
** gap where their probe allows). */
void map_del(Map *m, const char *key)
{
    if (!m->cap || !key[0]) {
        return;
    }
    size_t mask = m->cap - 1, i = hash_str(key) & mask;
    while (m->v[i].live && strcmp(m->v[i].key, key) != 0) {
        i = (i + 1) & mask;
    }
    if (!m->v[i].live) {
        return;
    }
    m->v[i].live = NULL;
    m->n--;
    for (size_t j = (i + 1) & mask; m->v[j].live; j = (j + 1) & mask) {
        size_t home = hash_str(m->v[j].key) & mask;
        /* j's entry may fill the gap at i when its home is not in (i, j] */
        int between =
            i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            m->v[i] = m->v[j];
            m->v[j].live = NULL;
            i = j;
        }
    }
}

/* ----------------------------------------------------------------- small */

void reply_error(ServeReply *out, int status, const char *code,
                 const char *message)
{
    out->status = status;
    out->body = json_pack("{s:s,s:s}", "error", code, "message", message);
    if (status == 429 || status == 503) {
        out->retry_s = out->retry_s ? out->retry_s : 1;
        if (out->body) {
            json_object_set_new(out->body, "retry_ms",
                                json_integer(out->retry_s * 1000));
        }
    }
}

static int id_valid(const char *s)
{
    return serve_name_valid(s, ID_MAX);
}

/* Token bucket: 1 when a request may go ahead now. */
int bucket_take(double *bucket, int64_t *last_ms, double rate, double burst,
                int64_t now_ms)
{
    double dt = (double)(now_ms - *last_ms) / 1000.0;
    if (dt > 0) {
        *bucket = fmin(burst, *bucket + dt * rate);
        *last_ms = now_ms;
    }
    if (*bucket < 1.0) {
        return 0;
    }
    *bucket -= 1.0;
    return 1;
}

const char *mode_name(OnlineResume m)
{
    static const char *const names[] = {"", "token", "session", "code", "id"};
    return (unsigned)m < sizeof names / sizeof *names ? names[m] : "";
}

static OnlineResume mode_parse(const char *s)
{
    for (int m = ONLINE_RESUME_TOKEN; m <= ONLINE_RESUME_ID; m++) {
        if (strcmp(s, mode_name((OnlineResume)m)) == 0) {
            return (OnlineResume)m;
        }
    }
    return ONLINE_RESUME_ID;
}

/* A new token for l; the one it supersedes is kept (409 for it), the one
** before that forgotten. */
int live_token_new(Serve *sv, Live *l)
{
    char token[33];
    if (serve_random_hex(token, 16) != 0 ||
        map_put(&sv->by_token, token, l) != 0) {
        return -1;
    }
    map_del(&sv->by_token, l->prev);
    snprintf(l->prev, sizeof l->prev, "%s", l->token);
    snprintf(l->token, sizeof l->token, "%s", token);
    return 0;
}

void live_forget_tokens(Serve *sv, Live *l)
{
    map_del(&sv->by_token, l->prev);
    map_del(&sv->by_token, l->token);
    l->prev[0] = l->token[0] = '\0';
}

/* Adds the enrolled participant l to the tables. */
int live_add(Serve *sv, Live *l)
{
    if (sv->n_lives == sv->cap_lives) {
        size_t cap = sv->cap_lives ? sv->cap_lives * 2 : 64;
        Live **v = sim_realloc(sv->lives, cap * sizeof *v);
        if (!v) {
            return -1;
        }
        sv->lives = v;
        sv->cap_lives = cap;
    }
    if (map_put(&sv->by_ext, l->ext, l) != 0) {
        return -1;
    }
    sv->lives[sv->n_lives++] = l;
    return 0;
}

void live_close(Serve *sv, Live *l)
{
    if (l->s && !l->waiting) {
        session_close(l->s);
        l->s = NULL;
        sv->n_open--;
    }
}

/* Notes that the open commit group writes for l. */
void touch(Serve *sv, Live *l)
{
    if (l->group == sv->group && sv->group) {
        return;
    }
    l->group = sv->group;
    l->enrolled_in_group = 0;
    if (sv->n_touched == sv->cap_touched) {
        size_t cap = sv->cap_touched ? sv->cap_touched * 2 : 64;
        Live **v = sim_realloc(sv->touched, cap * sizeof *v);
        if (!v) {
            return; /* then it is only closed below, not reset */
        }
        sv->touched = v;
        sv->cap_touched = cap;
    }
    sv->touched[sv->n_touched++] = l;
}

void serve_group_begin(Serve *sv)
{
    sv->group++;
    sv->n_touched = 0;
}

void serve_group_failed(Serve *sv)
{
    /* nothing of the group reached the disk: what the sessions hold came
    ** from it, so they are read again from the file; a participant
    ** enrolled in it waits before the consent again (and passes it again
    ** with the input its browser sends again) */
    for (size_t i = 0; i < sv->n_touched; i++) {
        Live *l = sv->touched[i];
        live_close(sv, l);
        l->applied = 0;
        if (l->enrolled_in_group) {
            wait_revert(sv, l);
        }
    }
    sv->n_touched = 0;
}

/* The position of the session's current screen. */
void view_pos(const Session *s, int pos[3])
{
    const SessionView *v = session_view(s);
    const Schedule *sc = session_schedule(s);
    if (session_finished(s) || !v->trial) {
        pos[0] = (int)sc->n_trials;
        pos[1] = 0;
        pos[2] = PH_END;
        return;
    }
    pos[0] = v->trial->seq;
    pos[1] = v->attempt;
    pos[2] = v->screen == SCREEN_FEEDBACK  ? PH_FEEDBACK
             : v->screen == SCREEN_TIMEOUT ? PH_TIMEOUT
                                           : PH_STEP;
}

int pos_cmp(const int a[3], const int b[3])
{
    for (int i = 0; i < 3; i++) {
        if (a[i] != b[i]) {
            return a[i] < b[i] ? -1 : 1;
        }
    }
    return 0;
}

/* Closes the session idle longest while too many are open. */
static void enforce_open_limit(Serve *sv)
{
    while (sv->n_open >= (size_t)sv->cfg.max_open) {
        Live *oldest = NULL;
        for (size_t i = 0; i < sv->n_lives; i++) {
            Live *l = sv->lives[i];
            if (l->s && (!oldest || l->last_ms < oldest->last_ms)) {
                oldest = l;
            }
        }
        if (!oldest) {
            return;
        }
        live_close(sv, oldest);
    }
}

/* Opens l's session at its first unanswered step (a resume, logged by the
** session when steps were done already). The screen shown was sent when
** the step was reached (the store's time of it). */
int live_open(Serve *sv, Live *l, int64_t now_ns, SimError *err)
{
    live_close(sv, l);
    enforce_open_limit(sv);
    int64_t since_ms = now_ns / 1000000;
    int rc = store_step_since_ms(sv->cfg.store, l->pid, &since_ms, err);
    if (rc == SIM_OK) {
        rc = session_open(sv->cfg.store, sv->cfg.study, l->pid,
                          now_ns / 1000000, &l->s, err);
    }
    if (rc != SIM_OK) {
        return rc;
    }
    sv->n_open++;
    view_pos(l->s, l->pos);
    memcpy(l->sent, l->pos, sizeof l->sent);
    serve_clock_screen(&l->clock, 1, since_ms * 1000000);
    l->applied = 0;
    l->epoch_of = NULL;
    return SIM_OK;
}

/* ------------------------------------------------------------ the reply */

/* Whether the completion code or link is shown: the participant's last
** response is committed (their status in the store says so) and the
** study has one. */
static int shows_completion(Serve *sv, Live *l)
{
    if (l->waiting || !session_finished(l->s)) {
        return 0;
    }
    if (!l->completed) {
        ParticipantInfo info;
        SimError err;
        if (store_participant(sv->cfg.store, l->pid, &info, &err) == SIM_OK &&
            info.status == PSTATUS_COMPLETED) {
            l->completed = 1;
        }
    }
    const OnlineSpec *on = &sv->cfg.study->online;
    return l->completed && (on->completion_code || on->completion_url);
}

/* The completion code and link once the participant's last response is
** committed. */
static void add_completion(Serve *sv, Live *l, json_t *body)
{
    const OnlineSpec *on = &sv->cfg.study->online;
    if (!shows_completion(sv, l)) {
        return;
    }
    json_t *c = json_object();
    if (on->completion_code) {
        json_object_set_new(c, "code", json_string(on->completion_code));
    }
    if (on->completion_url) {
        json_object_set_new(c, "url", json_string(on->completion_url));
    }
    json_object_set_new(body, "completion", c);
}

void reply_state(Serve *sv, Live *l, int status, int64_t now_ns,
                 ServeReply *out)
{
    const SessionView *v = session_view(l->s);
    /* a waiting browser's session is made again for each request: its
    ** screen is the same while the serial is */
    const void *of =
        l->waiting ? (const void *)sv->scratch : (const void *)l->s;
    if (l->epoch_of != of || l->epoch_serial != v->screen_serial) {
        l->epoch++;
        l->epoch_of = of;
        l->epoch_serial = v->screen_serial;
    }
    if (pos_cmp(l->sent, l->pos) != 0) {
        serve_clock_screen(&l->clock, l->sent[0] != l->pos[0], now_ns);
        memcpy(l->sent, l->pos, sizeof l->sent);
    }
    char prefix[80];
    /* relative: the page may sit under a path prefix of a proxy */
    snprintf(prefix, sizeof prefix, "media/%s/%u/", l->token, l->epoch);
    json_t *view = serve_view_json(sv->views, v, shows_completion(sv, l),
                                   prefix, &l->media);
    json_t *body =
        json_pack("{s:[i,i,i],s:i,s:o}", "pos", l->pos[0], l->pos[1], l->pos[2],
                  "applied", l->applied, "view", view ? view : json_null());
    if (!body) {
        reply_error(out, 500, "memory", "out of memory");
        return;
    }
    add_completion(sv, l, body);
    if (l->code[0]) {
        json_object_set_new(body, "resume_code", json_string(l->code));
    }
    out->status = status;
    out->body = body;
}

/* The reply to a start: the state and what the page needs once. */
void reply_start(Serve *sv, Live *l, int64_t now_ns, ServeReply *out)
{
    reply_state(sv, l, 200, now_ns, out);
    if (!out->body || out->status != 200) {
        return;
    }
    json_object_set_new(out->body, "token", json_string(l->token));
    if (l->key_new) {
        json_object_set_new(out->body, "key", json_string(l->key));
        l->key_new = 0;
    }
    json_t *st = serve_strings_json(sv->cfg.study);
    json_object_update(out->body, st);
    json_decref(st);
    json_t *cl = json_array();
    for (size_t i = 0; i < sv->cfg.study->n_classes; i++) {
        const char *lab = sv->cfg.study->classes[i].label;
        json_array_append_new(cl, json_string(lab ? lab : ""));
    }
    json_object_set_new(out->body, "classes", cl);
    /* the study's title is the experimenter's: a participant sees the
    ** participant_title, if any */
    if (sv->cfg.study->participant_title) {
        json_object_set_new(out->body, "participant_title",
                            json_string(sv->cfg.study->participant_title));
    }
}

/* ------------------------------------------------------------ /api/start */

/* Appends "key":"value" for a string member of o (at most max bytes; JSON
** escaping by jansson) to d. */
static void copy_str(json_t *d, const char *name, json_t *o, const char *key,
                     size_t max)
{
    const char *v = json_string_value(json_object_get(o, key));
    if (v) {
        size_t n = strlen(v);
        n = n < max ? n : max;
        while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80) {
            n--; /* not in the middle of a character */
        }
        json_t *s = json_stringn(v, n);
        json_object_set_new(d, name, s ? s : json_null());
    }
}

/* The online_start detail of a start (its link's study and session, the
** browser's description, the timing method), each field cut to a fixed
** length: at most START_INFO_MAX bytes. Owned by the caller, or NULL. */
static char *start_detail(json_t *body)
{
    json_t *d = json_object();
    copy_str(d, "STUDY_ID", body, "STUDY_ID", 64);
    copy_str(d, "SESSION_ID", body, "SESSION_ID", 128);
    copy_str(d, "assignmentId", body, "assignmentId", 128);
    copy_str(d, "hitId", body, "hitId", 128);
    json_t *c = json_object_get(body, "client");
    if (json_is_object(c)) {
        json_t *cd = json_object();
        copy_str(cd, "ua", c, "ua", 300);
        copy_str(cd, "screen", c, "screen", 24);
        copy_str(cd, "lang", c, "lang", 35);
        json_t *dpr = json_object_get(c, "dpr");
        if (json_is_number(dpr) && isfinite(json_number_value(dpr))) {
            json_object_set_new(cd, "dpr", json_real(json_number_value(dpr)));
        }
        json_object_set_new(d, "client", cd);
    }
    json_object_set_new(
        d, "timing",
        json_pack("{s:s,s:s,s:s,s:s}", "clock",
                  "performance.timeOrigin + performance.now()", "onset",
                  "the presentation time of the frame that shows the screen "
                  "(Element Timing renderTime; else requestAnimationFrame; "
                  "each screen's: onset_method events)",
                  "response", "the input event's timeStamp", "rules",
                  "bounded by the server's receipt times"));
    char *text = json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(d);
    if (text && strlen(text) > START_INFO_MAX) {
        free(text);
        text = NULL;
    }
    char *own = text ? sim_strdup(text) : NULL;
    free(text);
    return own;
}

/* Logs an online_start event with detail for l, once per distinct detail
** and at most CLIENTS_MAX times per run: restarting a link costs nothing
** more. 0, or -1 when the store refused. */
int log_start(Serve *sv, Live *l, const char *detail, int64_t now_ns)
{
    if (!detail) {
        return 0;
    }
    uint64_t h = hash_str(detail);
    for (int i = 0; i < l->n_clients; i++) {
        if (l->clients[i] == h) {
            return 0;
        }
    }
    if (l->n_clients == CLIENTS_MAX) {
        return 0;
    }
    SimError err;
    if (store_log_event(sv->cfg.store, l->pid, "online_start", detail,
                        now_ns / 1000000, 0, &err) != SIM_OK) {
        return -1;
    }
    l->clients[l->n_clients++] = h;
    sv->events++;
    return 0;
}

/* Writes l's access row (store_online_access_put). */
int access_store(Serve *sv, Live *l, int64_t now_ns, SimError *err)
{
    OnlineAccess a;
    memset(&a, 0, sizeof a);
    snprintf(a.participant, sizeof a.participant, "%s", l->pid);
    snprintf(a.mode, sizeof a.mode, "%s", mode_name(l->mode));
    snprintf(a.key_hash, sizeof a.key_hash, "%s", l->key_hash);
    snprintf(a.session_hash, sizeof a.session_hash, "%s", l->session_hash);
    snprintf(a.code_hash, sizeof a.code_hash, "%s", l->code_hash);
    return store_online_access_put(sv->cfg.store, &a, now_ns / 1000000, err);
}

/* What a start brings to continue a run: its browser key, platform
** session and code (normalized), each "" when none or malformed. */
typedef struct Proof {
    char key[33];
    char session[129];
    char code[9];
    int code_given;
} Proof;

static void proof_of(json_t *body, Proof *p)
{
    memset(p, 0, sizeof *p);
    const char *k = json_string_value(json_object_get(body, "key"));
    if (k && strlen(k) == 32 && strspn(k, "0123456789abcdef") == 32) {
        snprintf(p->key, sizeof p->key, "%s", k);
    }
    const char *s = json_string_value(json_object_get(body, "SESSION_ID"));
    if (!s) {
        s = json_string_value(json_object_get(body, "assignmentId"));
    }
    if (serve_session_valid(s)) {
        snprintf(p->session, sizeof p->session, "%s", s);
    }
    const char *c = json_string_value(json_object_get(body, "code"));
    if (c) {
        p->code_given = 1;
        if (strlen(c) < 40) {
            serve_code_normalize(c, p->code);
        }
    }
}

/* How l's run may be continued by a start with p: 'k' the key, 's' the
** platform session, 'c' the code, 'i' the id alone, 0 not at all. */
static int access_by(Serve *sv, const Live *l, const Proof *p)
{
    char h[65];
    if (p->key[0] && l->key_hash[0]) {
        serve_keys_hash(&sv->keys, "key", l->ext, p->key, h);
        if (serve_same(h, l->key_hash)) {
            return 'k';
        }
    }
    if (l->mode == ONLINE_RESUME_ID) {
        return 'i';
    }
    if (l->mode == ONLINE_RESUME_SESSION && p->session[0] &&
        l->session_hash[0]) {
        serve_keys_hash(&sv->keys, "session", l->ext, p->session, h);
        if (serve_same(h, l->session_hash)) {
            return 's';
        }
    }
    if (l->mode == ONLINE_RESUME_CODE && p->code[0] && l->code_hash[0]) {
        serve_keys_hash(&sv->keys, "code", l->ext, p->code, h);
        if (serve_same(h, l->code_hash)) {
            return 'c';
        }
    }
    return 0;
}

/* A known participant continues in this browser: a new token (the other
** window is superseded), a new key unless it brought its own. */
static void resume(Serve *sv, Live *l, json_t *body, int how, int64_t now_ns,
                   ServeReply *out)
{
    int64_t now_ms = now_ns / 1000000;
    SimError err;
    sim_error_clear(&err);
    if (!bucket_take(&l->bucket, &l->bucket_ms, sv->cfg.rate_per_s,
                     sv->cfg.rate_burst, now_ms)) {
        reply_error(out, 429, "rate", "too many requests");
        return;
    }
    touch(sv, l);
    if (how != 'k' && l->browsers >= BROWSERS_MAX) {
        reply_error(out, 429, "browsers",
                    "this run was continued in too many browsers: continue "
                    "in the last one");
        return;
    }
    if (how != 'k') {
        /* another browser proved who it is: it gets the key from now on */
        l->browsers++;
        char key[33];
        if (serve_random_hex(key, 16) != 0) {
            reply_error(out, 500, "token", "no key could be made");
            return;
        }
        snprintf(l->key, sizeof l->key, "%s", key);
        serve_keys_hash(&sv->keys, "key", l->ext, key, l->key_hash);
        l->key_new = 1;
        if (access_store(sv, l, now_ns, &err) != SIM_OK) {
            reply_error(out, 503, "store", "could not be stored yet");
            return;
        }
    }
    if (live_token_new(sv, l) != 0) {
        reply_error(out, 500, "token", "no session token could be made");
        return;
    }
    l->last_ms = now_ms;
    /* the same browser (its key) goes on with the session as it is (a
    ** reload: its clock and journal are the same); another one starts the
    ** screen afresh from the file, on its own clock */
    if (how != 'k' || !l->s) {
        serve_clock_reset(&l->clock);
        if (live_open(sv, l, now_ns, &err) != SIM_OK) {
            reply_error(out, err.code == SIM_ERR_STATE ? 409 : 503, "open",
                        err.msg);
            return;
        }
    }
    char *detail = start_detail(body);
    int logged = log_start(sv, l, detail, now_ns);
    sim_free(detail);
    if (logged != 0) {
        reply_error(out, 503, "store", "could not be stored yet");
        return;
    }
    reply_start(sv, l, now_ns, out);
}

/* A resume code that opens nothing: the same answer for every id. */
static void wrong_code(ServeReply *out)
{
    reply_error(out, 409, "resume",
                "this code does not continue a run of this id");
    if (out->body) {
        json_object_set_new(out->body, "wrong", json_true());
    }
}

/* Who a start names: its id (NULL when there is none valid), what it
** brings, the id's participant and how this browser may continue them
** (access_by; 0: it may not, or no one has the id). Nothing changes. */
static int start_who(Serve *sv, json_t *body, const char **ext, Proof *p,
                     Live **l)
{
    *ext = NULL;
    *l = NULL;
    memset(p, 0, sizeof *p);
    if (!json_is_object(body)) {
        return 0;
    }
    const char *e = json_string_value(json_object_get(body, "PROLIFIC_PID"));
    if (!e) {
        e = json_string_value(json_object_get(body, "workerId"));
    }
    if (!e) {
        e = json_string_value(json_object_get(body, "participant"));
    }
    if (!id_valid(e)) {
        return 0;
    }
    *ext = e;
    proof_of(body, p);
    *l = map_get(&sv->by_ext, e);
    return *l ? access_by(sv, *l, p) : 0;
}

int serve_start_stores(Serve *sv, json_t *body)
{
    const char *ext;
    Proof p;
    Live *l;
    int how = start_who(sv, body, &ext, &p, &l);
    if (!ext) {
        return 0; /* refused */
    }
    /* a run continued writes its access and start; a study without a
    ** first page enrols at the first visit; every other start waits at
    ** the first page, in memory */
    return how != 0 || !sv->scratch;
}

void serve_start(Serve *sv, json_t *body, int64_t now_ns, ServeReply *out)
{
    memset(out, 0, sizeof *out);
    int64_t now_ms = now_ns / 1000000;
    if (!json_is_object(body)) {
        reply_error(out, 400, "bad_request", "expected a JSON object");
        return;
    }
    const char *ext;
    Proof p;
    Live *l;
    int how = start_who(sv, body, &ext, &p, &l);
    if (!ext) {
        reply_error(out, 400, "no_id",
                    "the link lacks a valid participant id (PROLIFIC_PID, "
                    "workerId or participant: 1 to 63 letters, digits, '-', "
                    "'_', '.')");
        return;
    }
    if (p.code_given && how != 'c' && how != 'k') {
        /* tried with a code: counted per id, and for ids no one has all
        ** together, so that codes cannot be guessed */
        int ok = l ? bucket_take(&l->code_bucket, &l->code_ms,
                                 CODE_TRIES / CODE_WINDOW_S, CODE_TRIES, now_ms)
                   : bucket_take(&sv->code_bucket, &sv->code_ms, CODE_ANY_RATE,
                                 CODE_ANY_RATE * 10, now_ms);
        if (!ok) {
            reply_error(out, 429, "rate", "too many codes tried");
            return;
        }
        if (how != 'i') {
            sv->refused++;
            wrong_code(out);
            return;
        }
    }
    if (how) {
        resume(sv, l, body, how, now_ns, out);
        return;
    }
    if (l) {
        sv->refused++; /* continues as a new browser would: no oracle */
    }
    Live *w = wait_find(sv, p.key, ext);
    if (!w) {
        if (!bucket_take(&sv->arrive_bucket, &sv->arrive_ms,
                         sv->cfg.arrive_per_s, sv->cfg.arrive_burst, now_ms)) {
            reply_error(out, 429, "busy", "too many new participants at once");
            return;
        }
        w = wait_add(sv, ext, now_ns);
        if (!w) {
            reply_error(out, 500, "memory", "out of memory");
            return;
        }
        /* what the first visit brought decides how the run may continue */
        OnlineResume m = sv->cfg.study->online.resume;
        if (m == ONLINE_RESUME_DEFAULT) {
            m = p.session[0] ? ONLINE_RESUME_SESSION : ONLINE_RESUME_CODE;
        } else if (m == ONLINE_RESUME_SESSION && !p.session[0]) {
            m = ONLINE_RESUME_TOKEN;
        }
        w->mode = m;
        if (p.session[0]) {
            serve_keys_hash(&sv->keys, "session", ext, p.session,
                            w->session_hash);
        }
        const char *pilot = json_string_value(json_object_get(body, "pilot"));
        w->pilot = pilot && serve_same(pilot, sv->keys.pilot);
        w->start_info = start_detail(body);
    } else if (!bucket_take(&w->bucket, &w->bucket_ms, sv->cfg.rate_per_s,
                            sv->cfg.rate_burst, now_ms)) {
        reply_error(out, 429, "rate", "too many requests");
        return;
    }
    w->shadow |= l != NULL;
    wait_start_reply(sv, w, now_ns, out);
}

/* ------------------------------------------------------------ /api/input */

/* How the browser took the onset it reports (its "onset_method"): stored
** as an "onset_method" event whenever it changes for the participant, so
** that every onset in the data says how it was taken. */
static void log_onset_method(Serve *sv, Live *l, json_t *body, int64_t wall_ms)
{
    const char *m = json_string_value(json_object_get(body, "onset_method"));
    if (!m || strlen(m) >= sizeof l->onset_method ||
        strcmp(m, l->onset_method) == 0) {
        return;
    }
    json_t *d = json_pack("{s:s,s:i}", "method", m, "step", l->pos[0]);
    char *text = d ? json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(d);
    SimError err;
    if (text && store_log_event(sv->cfg.store, l->pid, "onset_method", text,
                                wall_ms, 0, &err) == SIM_OK) {
        snprintf(l->onset_method, sizeof l->onset_method, "%s", m);
    }
    free(text);
}

static int ms_to_ns(json_t *v, int64_t *out)
{
    if (!json_is_number(v)) {
        return -1;
    }
    double ms = json_number_value(v);
    /* a time of the browser's clock: ms since 1970, within reason */
    if (!isfinite(ms) || ms < 0 || ms > 1e14) {
        return -1;
    }
    *out = (int64_t)llround(ms * 1e6);
    return 0;
}

static int key_name_ok(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n >= 32) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ' ' ||
              c == '_')) {
            return 0;
        }
    }
    return 1;
}

/* Checks one input of a request; 0 when valid. */
static int parse_input(json_t *j, int64_t wall_ms, In *o, const char **why)
{
    memset(o, 0, sizeof *o);
    static const struct {
        const char *name;
        SimInputKind kind;
    } kinds[] = {
        {"key", SIM_IN_KEY},           {"choose", SIM_IN_CHOOSE},
        {"rate", SIM_IN_RATE},         {"confidence", SIM_IN_CONFIDENCE},
        {"continue", SIM_IN_CONTINUE}, {"decline", SIM_IN_DECLINE},
        {"answer", SIM_IN_ANSWER},     {"pick", SIM_IN_PICK},
        {"focus", SIM_IN_FOCUS},       {"reveal", SIM_IN_REVEAL},
        {"hover", SIM_IN_HOVER}};
    json_t *n = json_object_get(j, "n");
    const char *kind = json_string_value(json_object_get(j, "kind"));
    if (!json_is_integer(n) || json_integer_value(n) < 0 ||
        json_integer_value(n) > 1000000 || !kind) {
        *why = "an input needs n and kind";
        return -1;
    }
    o->n = (int)json_integer_value(n);
    if (ms_to_ns(json_object_get(j, "t"), &o->in.t_ns) != 0) {
        *why = "an input needs its time t (ms)";
        return -1;
    }
    o->in.wall_ms = wall_ms;
    json_t *val = json_object_get(j, "value");
    if (val && (!json_is_integer(val) || json_integer_value(val) < -1 ||
                json_integer_value(val) > 1 << 20)) {
        *why = "value must be a small integer";
        return -1;
    }
    o->in.value = val ? (int)json_integer_value(val) : 0;
    if (strcmp(kind, "tick") == 0) {
        o->tick = 1;
        return 0;
    }
    if (strcmp(kind, "scroll") == 0) {
        o->scroll = 1;
        return 0;
    }
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, kind)) {
        k++;
    }
    if (k == sizeof kinds / sizeof kinds[0]) {
        *why = "unknown input kind";
        return -1;
    }
    o->in.kind = kinds[k].kind;
    if (o->in.kind == SIM_IN_REVEAL && o->in.value < 0) {
        *why = "a reveal needs its value (card and show)";
        return -1;
    }
    if (o->in.kind == SIM_IN_KEY) {
        const char *key = json_string_value(json_object_get(j, "key"));
        if (!key || !key_name_ok(key)) {
            *why = "a key input needs a key name";
            return -1;
        }
        snprintf(o->key, sizeof o->key, "%s", key);
        o->in.key = o->key;
    }
    if (o->in.kind == SIM_IN_ANSWER) {
        json_t *t = json_object_get(j, "text");
        if (!json_is_string(t) || json_string_length(t) > ANSWER_MAX ||
            strlen(json_string_value(t)) != json_string_length(t)) {
            *why = "an answer needs its text";
            return -1;
        }
        o->text = json_string_value(t);
        o->in.key = o->text;
    }
    return 0;
}

/* Logs that the server's clock moved a stamp of l's browser (the
** browser's and the time used), at most CLOCK_EVENTS_MAX times per run. */
static void log_clock(Serve *sv, Live *l, const char *what, int64_t browser_ns,
                      int64_t used_ns, int64_t now_ns)
{
    if (l->waiting || l->clock_events >= CLOCK_EVENTS_MAX) {
        return;
    }
    char detail[256];
    snprintf(detail, sizeof detail,
             "{\"step\":%d,\"attempt\":%d,\"phase\":%d,\"what\":\"%s\","
             "\"browser_ms\":%.3f,\"used_ms\":%.3f}",
             l->pos[0], l->pos[1], l->pos[2], what, (double)browser_ns / 1e6,
             (double)used_ns / 1e6);
    SimError err;
    if (store_log_event(sv->cfg.store, l->pid, "client_clock", detail,
                        now_ns / 1000000, 0, &err) == SIM_OK) {
        l->clock_events++;
        sv->events++;
    }
}

/* Applies one input to l's session with its time bounded by the server's
** clock; SIM_OK or the store's error. */
int apply_one(Serve *sv, Live *l, In *in, int64_t now_ns, SimError *err)
{
    int64_t t = serve_clock_input(&l->clock, in->in.t_ns, now_ns,
                                  session_view(l->s)->deadline_ns);
    if (llabs(t - in->in.t_ns) > 1000000) {
        log_clock(sv, l, in->tick ? "tick" : "input", in->in.t_ns, t, now_ns);
    }
    SimInput si = in->in;
    si.t_ns = t;
    in->used_ns = t;
    if (l->waiting && in->scroll) {
        l->w_scroll = in->in.value + 1;
    }
    if (in->tick) {
        return session_tick(l->s, si.t_ns, si.wall_ms, err);
    }
    if (in->scroll) {
        session_report_scroll(l->s, SESSION_SCROLL_OVERFLOW(in->in.value),
                              SESSION_SCROLL_AT_END(in->in.value));
        return SIM_OK;
    }
    return session_handle(l->s, &si, NULL, err);
}

/* Marks the onset of the screen at pos (bounded by the server's clock)
** and applies the inputs of a request in order from the number applied;
** *moved_at: the index of the input that moved the position on, -1 none.
** Returns SIM_OK or the store's error. */
int apply_request(Serve *sv, Live *l, const int pos[3], In *ins, size_t n_in,
                  int64_t onset_ns, int64_t now_ns, int *moved_at,
                  SimError *err)
{
    *moved_at = -1;
    const SessionView *v = session_view(l->s);
    if (pos_cmp(pos, l->pos) != 0 || v->screen == SCREEN_STORE_ERROR) {
        return SIM_OK;
    }
    if (onset_ns > 0 && !v->onset_marked) {
        int first = l->pos[1] <= 1 && l->pos[2] == PH_STEP;
        int64_t t = serve_clock_onset(&l->clock, onset_ns, now_ns, first);
        if (llabs(t - onset_ns) > 1000000) {
            log_clock(sv, l, "onset", onset_ns, t, now_ns);
        }
        session_mark_onset(l->s, t);
        if (l->waiting) {
            l->w_onset = t;
        }
    }
    int rc = SIM_OK;
    for (size_t i = 0; i < n_in && rc == SIM_OK; i++) {
        if (ins[i].n < l->applied) {
            continue; /* applied before: a duplicate */
        }
        if (ins[i].n > l->applied) {
            break; /* an earlier input is missing: wait for it */
        }
        unsigned serial = session_view(l->s)->screen_serial;
        rc = apply_one(sv, l, &ins[i], now_ns, err);
        l->applied++;
        int now[3];
        view_pos(l->s, now);
        if (pos_cmp(now, l->pos) != 0) {
            /* the step (or its screen) moved on: what follows in this
            ** request belonged to the screen that was */
            *moved_at = (int)i;
            memcpy(l->pos, now, sizeof now);
            l->applied = 0;
            break;
        }
        if (session_view(l->s)->screen_serial != serial &&
            session_view(l->s)->screen == SCREEN_STORE_ERROR) {
            break;
        }
    }
    return rc;
}

/* Reads a request's position, inputs and onset; 0, or -1 with out set. */
static int parse_request(json_t *body, int64_t wall_ms, int pos[3], In *ins,
                         size_t *n_in, int *has_pos, int64_t *onset_ns,
                         ServeReply *out)
{
    if (!json_is_object(body)) {
        reply_error(out, 400, "bad_request", "expected a JSON object");
        return -1;
    }
    json_t *jpos = json_object_get(body, "pos");
    json_t *jins = json_object_get(body, "inputs");
    pos[0] = pos[1] = pos[2] = 0;
    *has_pos = jpos != NULL;
    if (jpos) {
        if (!json_is_array(jpos) || json_array_size(jpos) != 3) {
            reply_error(out, 400, "bad_request",
                        "pos is [seq, attempt, phase]");
            return -1;
        }
        for (int i = 0; i < 3; i++) {
            json_t *x = json_array_get(jpos, (size_t)i);
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > 1 << 24) {
                reply_error(out, 400, "bad_request", "pos holds integers");
                return -1;
            }
            pos[i] = (int)json_integer_value(x);
        }
    }
    *n_in = jins ? json_array_size(jins) : 0;
    if ((jins && !json_is_array(jins)) || *n_in > INPUTS_MAX ||
        (*n_in && !jpos)) {
        reply_error(out, 400, "bad_request", "inputs: at most 64, with pos");
        return -1;
    }
    for (size_t i = 0; i < *n_in; i++) {
        const char *why = "bad input";
        if (parse_input(json_array_get(jins, i), wall_ms, &ins[i], &why) != 0) {
            reply_error(out, 400, "bad_input", why);
            return -1;
        }
    }
    *onset_ns = 0;
    json_t *jon = json_object_get(body, "onset");
    if (jon && !json_is_null(jon) && ms_to_ns(jon, onset_ns) != 0) {
        reply_error(out, 400, "bad_request", "onset is a time in ms");
        return -1;
    }
    return 0;
}

void serve_input(Serve *sv, const char *token, json_t *body, int64_t now_ns,
                 ServeReply *out)
{
    memset(out, 0, sizeof *out);
    int64_t now_ms = now_ns / 1000000;
    Live *l =
        token && strlen(token) == 32 ? map_get(&sv->by_token, token) : NULL;
    if (!l) {
        reply_error(out, 401, "token", "unknown session token: start again");
        return;
    }
    if (strcmp(l->token, token) != 0) {
        reply_error(out, 409, "superseded",
                    "this participant continued in another window");
        return;
    }
    if (!bucket_take(&l->bucket, &l->bucket_ms, sv->cfg.rate_per_s,
                     sv->cfg.rate_burst, now_ms)) {
        reply_error(out, 429, "rate", "too many requests");
        return;
    }
    int pos[3], has_pos;
    In ins[INPUTS_MAX];
    size_t n_in;
    int64_t onset_ns;
    if (parse_request(body, now_ms, pos, ins, &n_in, &has_pos, &onset_ns,
                      out) != 0) {
        return;
    }
    l->last_ms = now_ms;
    if (l->waiting) {
        wait_input(sv, l, has_pos ? pos : l->pos, ins, has_pos ? n_in : 0,
                   has_pos ? onset_ns : 0, now_ns, out);
        return;
    }
    SimError err;
    sim_error_clear(&err);
    touch(sv, l);
    if (!l->s && live_open(sv, l, now_ns, &err) != SIM_OK) {
        reply_error(out, 503, "open", err.msg);
        return;
    }
    int rc = SIM_OK;
    if (session_view(l->s)->screen == SCREEN_STORE_ERROR) {
        SimInput retry = {.kind = SIM_IN_RETRY, .wall_ms = now_ms};
        rc = session_handle(l->s, &retry, NULL, &err);
        int now[3];
        view_pos(l->s, now);
        if (rc == SIM_OK && session_view(l->s)->screen != SCREEN_STORE_ERROR &&
            pos_cmp(now, l->pos) != 0) {
            /* the response kept was stored: its screen is answered */
            memcpy(l->pos, now, sizeof now);
            l->applied = 0;
            sv->acked++;
        }
    }
    int moved_at = -1;
    if (rc == SIM_OK && has_pos) {
        if (onset_ns > 0 && pos_cmp(pos, l->pos) == 0) {
            log_onset_method(sv, l, body, now_ms);
        }
        rc = apply_request(sv, l, pos, ins, n_in, onset_ns, now_ns, &moved_at,
                           &err);
    }
    if (moved_at >= 0) {
        sv->acked++;
    }
    if (rc == SIM_OK && session_view(l->s)->screen != SCREEN_STORE_ERROR) {
        view_pos(l->s, l->pos);
    }
    if (rc != SIM_OK || session_view(l->s)->screen == SCREEN_STORE_ERROR) {
        /* nothing of this is acknowledged: the browser keeps its journal
        ** and sends again; the session keeps the response and retries */
        reply_error(out, 503, "store", "the response could not be stored yet");
        return;
    }
    if (sv->cfg.worker && n_in) {
        sync_worker_kick(sv->cfg.worker);
    }
    reply_state(sv, l, 200, now_ns, out);
}

void serve_enroll_answered(Serve *sv, SyncAssignJob *job)
{
    (void)sv;
    Live *l = job->tag;
    if (l->job == job && l->job_state == JOB_ASKED) {
        l->job_state = JOB_ANSWERED;
    }
}

void serve_enroll_cancel(Serve *sv, SyncAssignJob *job)
{
    (void)sv;
    Live *l = job->tag;
    if (l->job == job && l->job_state == JOB_ASKED) {
        l->job_state = JOB_NONE;
    }
}

void serve_enroll_finish(Serve *sv, SyncAssignJob *job, int64_t now_ns,
                         ServeReply *out)
{
    memset(out, 0, sizeof *out);
    Live *l = job->tag;
    if (l->job != job) {
        reply_error(out, 500, "enroll", "no such enrolment");
        return;
    }
    serve_enroll_answered(sv, job);
    wait_enroll(sv, l, now_ns, out);
}

int serve_media(Serve *sv, const char *token, unsigned epoch, size_t k,
                const char **path, const char **type)
{
    Live *l =
        token && strlen(token) == 32 ? map_get(&sv->by_token, token) : NULL;
    if (!l || strcmp(l->token, token) != 0 || epoch != l->epoch ||
        k >= l->media.n) {
        return SIM_ERR_STATE;
    }
    *path = l->media.v[k].path;
    *type = l->media.v[k].type;
    return SIM_OK;
}

/* ------------------------------------------------------------- lifetime */

/* The participants of the store with their access rows. */
static int load_lives(Serve *sv, SimError *err)
{
    ParticipantInfo *list = NULL;
    size_t n = 0;
    int rc = store_list_participants(sv->cfg.store, 0, &list, &n, err);
    for (size_t i = 0; rc == SIM_OK && i < n; i++) {
        if (!id_valid(list[i].code) || map_get(&sv->by_ext, list[i].code)) {
            continue; /* not a link's id, or the first one has it */
        }
        Live *l = sim_calloc(1, sizeof *l);
        if (!l) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(l->pid, sizeof l->pid, "%s", list[i].id);
        snprintf(l->ext, sizeof l->ext, "%s", list[i].code);
        l->bucket = sv->cfg.rate_burst;
        l->code_bucket = CODE_TRIES;
        l->mode = ONLINE_RESUME_ID; /* enrolled before access rows were */
        serve_clock_reset(&l->clock);
        if (live_add(sv, l) != 0) {
            sim_free(l);
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    sim_free(list);
    OnlineAccess *acc = NULL;
    size_t n_acc = 0;
    if (rc == SIM_OK) {
        rc = store_online_access_list(sv->cfg.store, &acc, &n_acc, err);
    }
    for (size_t i = 0; rc == SIM_OK && i < n_acc; i++) {
        for (size_t k = 0; k < sv->n_lives; k++) {
            Live *l = sv->lives[k];
            if (strcmp(l->pid, acc[i].participant) == 0) {
                l->mode = mode_parse(acc[i].mode);
                snprintf(l->key_hash, sizeof l->key_hash, "%s",
                         acc[i].key_hash);
                snprintf(l->session_hash, sizeof l->session_hash, "%s",
                         acc[i].session_hash);
                snprintf(l->code_hash, sizeof l->code_hash, "%s",
                         acc[i].code_hash);
                break;
            }
        }
    }
    sim_free(acc);
    return rc;
}

int serve_new(const ServeConfig *cfg, int64_t now_ns, Serve **out,
              SimError *err)
{
    *out = NULL;
    Serve *sv = sim_calloc(1, sizeof *sv);
    if (!sv) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sv->cfg = *cfg;
    ServeConfig *c = &sv->cfg;
    c->max_open = c->max_open > 0 ? c->max_open : 4096;
    c->idle_close_ms = c->idle_close_ms > 0 ? c->idle_close_ms : 600000;
    c->rate_per_s = c->rate_per_s > 0 ? c->rate_per_s : 20;
    c->rate_burst = c->rate_burst > 0 ? c->rate_burst : 60;
    c->enroll_per_s = c->enroll_per_s > 0 ? c->enroll_per_s : 20;
    c->enroll_burst = c->enroll_burst > 0 ? c->enroll_burst : 200;
    c->arrive_per_s =
        c->arrive_per_s > 0 ? c->arrive_per_s : 5 * c->enroll_per_s;
    c->arrive_burst =
        c->arrive_burst > 0 ? c->arrive_burst : 5 * c->enroll_burst;
    c->max_waiting = c->max_waiting > 0 ? c->max_waiting : 16384;
    int64_t now_ms = now_ns / 1000000;
    sv->enroll_bucket = c->enroll_burst;
    sv->enroll_ms = now_ms;
    sv->arrive_bucket = c->arrive_burst;
    sv->arrive_ms = now_ms;
    sv->code_bucket = CODE_ANY_RATE * 10;
    sv->code_ms = now_ms;
    int rc = serve_view_new(c->study, &sv->views, err);
    if (rc == SIM_OK) {
        rc = serve_keys_load(c->store, &sv->keys, err);
    }
    if (rc == SIM_OK) {
        rc = load_lives(sv, err);
    }
    if (rc == SIM_OK) {
        rc = wait_init(sv, now_ns, err);
    }
    if (rc != SIM_OK) {
        serve_free(sv);
        return rc;
    }
    *out = sv;
    return SIM_OK;
}

void serve_free(Serve *sv)
{
    if (!sv) {
        return;
    }
    wait_free(sv);
    for (size_t i = 0; i < sv->n_lives; i++) {
        live_close(sv, sv->lives[i]);
        serve_media_free(&sv->lives[i]->media);
        sim_free(sv->lives[i]->start_info);
        sim_free(sv->lives[i]->job);
        sim_free(sv->lives[i]);
    }
    sim_free(sv->lives);
    sim_free(sv->by_ext.v);
    sim_free(sv->by_token.v);
    sim_free(sv->by_key.v);
    sim_free(sv->touched);
    serve_view_free(sv->views);
    sim_free(sv);
}

const char *serve_pilot_secret(const Serve *sv)
{
    return sv->keys.pilot;
}

int serve_tick(Serve *sv, int64_t now_ns, SimError *err)
{
    int64_t now_ms = now_ns / 1000000;
    for (size_t i = 0; i < sv->n_lives; i++) {
        Live *l = sv->lives[i];
        if (l->s && now_ms - l->last_ms > sv->cfg.idle_close_ms) {
            live_close(sv, l);
        }
    }
    wait_expire(sv, now_ns);
    return store_heartbeat(sv->cfg.store, now_ms, err);
}

void serve_stats(const Serve *sv, ServeStats *st)
{
    memset(st, 0, sizeof *st);
    st->known = (long)sv->n_lives;
    st->open = (long)sv->n_open;
    st->acked = sv->acked;
    st->waiting = (long)sv->n_waiting;
    st->tokens = (long)sv->by_token.n;
    st->declined = sv->declined;
    st->refused = sv->refused;
    st->events = sv->events;
}
