/*
** `simlab serve`'s participants (serve_live.h): the id -> participant and
** token -> participant tables, enrolment and resume through the session
** state machine, and the journal replay. A position is (step, attempt,
** screen phase); the server counts the inputs it applied at the current
** position, so a resent input is recognised by its number and applied
** once. Every response is committed by the session before the reply that
** acknowledges it is built.
*/
#include "serve/serve_live.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "serve/serve_view.h"
#include "common/sim_alloc.h"
#include "experiment/session.h"

/* Longest participant id of a link, and its characters. */
#define ID_MAX 63
/* Most inputs one request may carry. */
#define INPUTS_MAX 64
/* Longest questionnaire answer a request may carry, in bytes. */
#define ANSWER_MAX 16384

/* The phase of a position: which screen of a step is shown. */
enum { PH_STEP = 0, PH_FEEDBACK = 1, PH_TIMEOUT = 2, PH_END = 3 };

typedef struct Live {
    char pid[37];            /* participant UUID */
    char ext[ID_MAX + 1];    /* the link's id (participant code) */
    char token[33];          /* current session token, "" none yet */
    Session *s;              /* open session, or NULL (closed while idle) */
    int pos[3];              /* position the applied count refers to */
    int applied;             /* inputs applied at pos */
    int completed;           /* the last response is committed (status) */
    int64_t last_ms;         /* last request */
    double bucket;           /* rate limit: requests available */
    int64_t bucket_ms;       /* when the bucket was last filled */
    ServeMediaList media;    /* files of the screen last sent */
    unsigned epoch;          /* names this screen's media: a browser keeps an
                                image by its URL for the whole page, so every
                                screen's media get URLs of their own */
    unsigned epoch_serial;   /* screen_serial the epoch was counted for */
    const Session *epoch_of; /* and its session */
    unsigned long group;     /* the last commit group that wrote for it */
    char onset_method[128];  /* how the browser last said it took an onset
                                (logged as an event when it changes) */
    int enrolled_in_group;   /* its enrolment is in that group */
} Live;

/* An open-addressing table from a string to a participant. Entries are
** never removed: a token that was replaced still finds its participant,
** who then says it was superseded. */
typedef struct Entry {
    char key[ID_MAX + 1];
    Live *live;
} Entry;

typedef struct Map {
    Entry *v;
    size_t cap, n;
} Map;

struct Serve {
    ServeConfig cfg;
    Live **lives;
    size_t n_lives, cap_lives;
    Map by_ext, by_token;
    size_t n_open;
    long acked;
    double enroll_bucket;
    int64_t enroll_ms;
    unsigned long group; /* the commit group open now (serve_group_*) */
    Live **touched;      /* participants written for in the open group */
    size_t n_touched, cap_touched;
    ServeView *views; /* the study's screens as the browser draws them */
};

/* ------------------------------------------------------------------- map */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

static Live *map_get(const Map *m, const char *key)
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

static int map_put(Map *m, const char *key, Live *live)
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

/* ----------------------------------------------------------------- small */

static void reply_error(ServeReply *out, int status, const char *code,
                        const char *message)
{
    out->status = status;
    out->body = json_pack("{s:s,s:s}", "error", code, "message", message);
}

static int id_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > ID_MAX) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
            return 0;
        }
    }
    return 1;
}

static int new_token(char out[33])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        return -1;
    }
    for (size_t i = 0; i < sizeof b; i++) {
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    }
    return 0;
}

/* Token bucket: 1 when a request may go ahead now. */
static int bucket_take(double *bucket, int64_t *last_ms, double rate,
                       double burst, int64_t now_ms)
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

static Live *live_add(Serve *sv, const char *pid, const char *ext)
{
    if (sv->n_lives == sv->cap_lives) {
        size_t cap = sv->cap_lives ? sv->cap_lives * 2 : 64;
        Live **v = sim_realloc(sv->lives, cap * sizeof *v);
        if (!v) {
            return NULL;
        }
        sv->lives = v;
        sv->cap_lives = cap;
    }
    Live *l = sim_calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    snprintf(l->pid, sizeof l->pid, "%s", pid);
    snprintf(l->ext, sizeof l->ext, "%s", ext);
    l->bucket = sv->cfg.rate_burst;
    if (map_put(&sv->by_ext, ext, l) != 0) {
        sim_free(l);
        return NULL;
    }
    sv->lives[sv->n_lives++] = l;
    return l;
}

static void live_close(Serve *sv, Live *l)
{
    if (l->s) {
        session_close(l->s);
        l->s = NULL;
        sv->n_open--;
    }
}

/* Notes that the open commit group writes for l. */
static void touch(Serve *sv, Live *l)
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
    ** enrolled in it is enrolled again at their next start */
    for (size_t i = 0; i < sv->n_touched; i++) {
        Live *l = sv->touched[i];
        live_close(sv, l);
        l->applied = 0;
        if (l->enrolled_in_group) {
            l->pid[0] = 0;
            l->token[0] = 0;
        }
    }
    sv->n_touched = 0;
}

/* The position of the session's current screen. */
static void view_pos(const Session *s, int pos[3])
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

static int pos_cmp(const int a[3], const int b[3])
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
** session when steps were done already). */
static int live_open(Serve *sv, Live *l, int64_t wall_ms, SimError *err)
{
    live_close(sv, l);
    enforce_open_limit(sv);
    int rc =
        session_open(sv->cfg.store, sv->cfg.study, l->pid, wall_ms, &l->s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sv->n_open++;
    view_pos(l->s, l->pos);
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
    if (!session_finished(l->s)) {
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

static void reply_state(Serve *sv, Live *l, int status, ServeReply *out)
{
    const SessionView *v = session_view(l->s);
    if (l->epoch_of != l->s || l->epoch_serial != v->screen_serial) {
        l->epoch++;
        l->epoch_of = l->s;
        l->epoch_serial = v->screen_serial;
    }
    char prefix[80];
    /* relative: the page may sit under a path prefix of a proxy */
    snprintf(prefix, sizeof prefix, "media/%s/%u/", l->token, l->epoch);
    json_t *view = serve_view_json(sv->views, session_view(l->s),
                                   shows_completion(sv, l), prefix, &l->media);
    json_t *body =
        json_pack("{s:[i,i,i],s:i,s:o}", "pos", l->pos[0], l->pos[1], l->pos[2],
                  "applied", l->applied, "view", view ? view : json_null());
    if (!body) {
        reply_error(out, 500, "memory", "out of memory");
        return;
    }
    add_completion(sv, l, body);
    out->status = status;
    out->body = body;
}

/* ------------------------------------------------------------ /api/start */

static void log_start(Serve *sv, Live *l, json_t *body, int64_t wall_ms)
{
    json_t *d = json_object();
    static const char *const keys[] = {"STUDY_ID", "SESSION_ID", "client"};
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(body, keys[i]);
        if (v && (json_is_string(v) || json_is_object(v))) {
            json_object_set(d, keys[i], v);
        }
    }
    json_object_set_new(
        d, "timing",
        json_pack("{s:s,s:s,s:s}", "clock",
                  "performance.timeOrigin + performance.now()", "onset",
                  "the presentation time of the frame that shows the screen "
                  "(Element Timing renderTime; else requestAnimationFrame; "
                  "each screen's: onset_method events)",
                  "response", "the input event's timeStamp"));
    char *text = json_dumps(d, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(d);
    if (text && strlen(text) < 4000) {
        SimError err;
        store_log_event(sv->cfg.store, l->pid, "online_start", text, wall_ms, 0,
                        &err);
    }
    free(text);
}

void serve_start(Serve *sv, json_t *body, int64_t wall_ms, ServeReply *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(body)) {
        reply_error(out, 400, "bad_request", "expected a JSON object");
        return;
    }
    const char *ext = json_string_value(json_object_get(body, "PROLIFIC_PID"));
    if (!ext) {
        ext = json_string_value(json_object_get(body, "participant"));
    }
    if (!id_valid(ext)) {
        reply_error(out, 400, "no_id",
                    "the link lacks a valid participant id (PROLIFIC_PID or "
                    "participant: 1 to 63 letters, digits, '-', '_', '.')");
        return;
    }
    SimError err;
    sim_error_clear(&err);
    Live *l = map_get(&sv->by_ext, ext);
    if (!l || !l->pid[0]) {
        if (!bucket_take(&sv->enroll_bucket, &sv->enroll_ms,
                         sv->cfg.enroll_per_s, sv->cfg.enroll_burst, wall_ms)) {
            reply_error(out, 429, "busy", "too many new participants at once");
            return;
        }
        EnrollSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.code = ext;
        spec.station = sv->cfg.station;
        spec.pilot = json_is_true(json_object_get(body, "pilot"));
        spec.wall_ms = wall_ms;
        ParticipantInfo info;
        int rc = sync_enroll(sv->cfg.sync, sv->cfg.store, sv->cfg.study, &spec,
                             &info, &err);
        if (rc != SIM_OK) {
            reply_error(out, rc == SIM_ERR_STATE ? 409 : 503, "enroll",
                        err.msg);
            return;
        }
        if (l) {
            snprintf(l->pid, sizeof l->pid, "%s", info.id);
        } else {
            l = live_add(sv, info.id, ext);
        }
        if (!l) {
            reply_error(out, 500, "memory", "out of memory");
            return;
        }
        touch(sv, l);
        l->enrolled_in_group = 1;
        if (sv->cfg.worker) {
            sync_worker_kick(sv->cfg.worker);
        }
    }
    if (!bucket_take(&l->bucket, &l->bucket_ms, sv->cfg.rate_per_s,
                     sv->cfg.rate_burst, wall_ms)) {
        reply_error(out, 429, "rate", "too many requests");
        return;
    }
    char token[33];
    if (new_token(token) != 0 || map_put(&sv->by_token, token, l) != 0) {
        reply_error(out, 500, "token", "no session token could be made");
        return;
    }
    snprintf(l->token, sizeof l->token, "%s", token);
    l->last_ms = wall_ms;
    touch(sv, l);
    if (live_open(sv, l, wall_ms, &err) != SIM_OK) {
        reply_error(out, err.code == SIM_ERR_STATE ? 409 : 503, "open",
                    err.msg);
        return;
    }
    log_start(sv, l, body, wall_ms);
    reply_state(sv, l, 200, out);
    if (out->body) {
        json_object_set_new(out->body, "token", json_string(token));
        json_t *st = serve_strings_json(sv->cfg.study);
        json_object_update(out->body, st);
        json_decref(st);
        json_t *cl = json_array();
        for (size_t i = 0; i < sv->cfg.study->n_classes; i++) {
            const char *lab = sv->cfg.study->classes[i].label;
            json_array_append_new(cl, json_string(lab ? lab : ""));
        }
        json_object_set_new(out->body, "classes", cl);
        /* the study's title is the experimenter's: a participant sees
        ** the participant_title, if any */
        if (sv->cfg.study->participant_title) {
            json_object_set_new(out->body, "participant_title",
                                json_string(sv->cfg.study->participant_title));
        }
    }
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

/* A checked input of a request. */
typedef struct In {
    int n;
    SimInput in;
    int tick;   /* a clock tick (deadlines, the timeout screen) */
    int scroll; /* a scroll report: value bit 0 overflow, bit 1 at end */
    char key[32];
    const char *text;
} In;

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

/* Applies one input to l's session; SIM_OK or the store's error. */
static int apply(Serve *sv, Live *l, const In *in, SimError *err)
{
    if (in->tick) {
        return session_tick(l->s, in->in.t_ns, in->in.wall_ms, err);
    }
    if (in->scroll) {
        session_report_scroll(l->s, SESSION_SCROLL_OVERFLOW(in->in.value),
                              SESSION_SCROLL_AT_END(in->in.value));
        return SIM_OK;
    }
    (void)sv;
    return session_handle(l->s, &in->in, NULL, err);
}

void serve_input(Serve *sv, const char *token, json_t *body, int64_t wall_ms,
                 ServeReply *out)
{
    memset(out, 0, sizeof *out);
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
                     sv->cfg.rate_burst, wall_ms)) {
        reply_error(out, 429, "rate", "too many requests");
        return;
    }
    if (!json_is_object(body)) {
        reply_error(out, 400, "bad_request", "expected a JSON object");
        return;
    }
    json_t *jpos = json_object_get(body, "pos");
    json_t *jins = json_object_get(body, "inputs");
    int pos[3] = {0, 0, 0};
    if (jpos) {
        if (!json_is_array(jpos) || json_array_size(jpos) != 3) {
            reply_error(out, 400, "bad_request",
                        "pos is [seq, attempt, phase]");
            return;
        }
        for (int i = 0; i < 3; i++) {
            json_t *x = json_array_get(jpos, (size_t)i);
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > 1 << 24) {
                reply_error(out, 400, "bad_request", "pos holds integers");
                return;
            }
            pos[i] = (int)json_integer_value(x);
        }
    }
    size_t n_in = jins ? json_array_size(jins) : 0;
    if ((jins && !json_is_array(jins)) || n_in > INPUTS_MAX ||
        (n_in && !jpos)) {
        reply_error(out, 400, "bad_request", "inputs: at most 64, with pos");
        return;
    }
    In ins[INPUTS_MAX];
    for (size_t i = 0; i < n_in; i++) {
        const char *why = "bad input";
        if (parse_input(json_array_get(jins, i), wall_ms, &ins[i], &why) != 0) {
            reply_error(out, 400, "bad_input", why);
            return;
        }
    }
    int64_t onset_ns = 0;
    json_t *jon = json_object_get(body, "onset");
    if (jon && !json_is_null(jon) && ms_to_ns(jon, &onset_ns) != 0) {
        reply_error(out, 400, "bad_request", "onset is a time in ms");
        return;
    }
    SimError err;
    sim_error_clear(&err);
    l->last_ms = wall_ms;
    if (!l->pid[0]) {
        reply_error(out, 401, "token", "unknown session token: start again");
        return;
    }
    touch(sv, l);
    if (!l->s && live_open(sv, l, wall_ms, &err) != SIM_OK) {
        reply_error(out, 503, "open", err.msg);
        return;
    }
    int rc = SIM_OK;
    if (session_view(l->s)->screen == SCREEN_STORE_ERROR) {
        SimInput retry = {.kind = SIM_IN_RETRY, .wall_ms = wall_ms};
        rc = session_handle(l->s, &retry, NULL, &err);
    }
    const SessionView *v = session_view(l->s);
    if (rc == SIM_OK && jpos && pos_cmp(pos, l->pos) == 0 &&
        v->screen != SCREEN_STORE_ERROR) {
        if (onset_ns > 0 && !v->onset_marked) {
            session_mark_onset(l->s, onset_ns);
            log_onset_method(sv, l, body, wall_ms);
        }
        for (size_t i = 0; i < n_in && rc == SIM_OK; i++) {
            if (ins[i].n < l->applied) {
                continue; /* applied before: a duplicate */
            }
            if (ins[i].n > l->applied) {
                break; /* an earlier input is missing: wait for it */
            }
            unsigned serial = session_view(l->s)->screen_serial;
            rc = apply(sv, l, &ins[i], &err);
            l->applied++;
            int now[3];
            view_pos(l->s, now);
            if (pos_cmp(now, l->pos) != 0) {
                /* the step (or its screen) moved on: what follows in this
                ** request belonged to the screen that was */
                memcpy(l->pos, now, sizeof now);
                l->applied = 0;
                sv->acked++;
                break;
            }
            if (session_view(l->s)->screen_serial != serial &&
                session_view(l->s)->screen == SCREEN_STORE_ERROR) {
                break;
            }
        }
    }
    if (rc == SIM_OK && session_view(l->s)->screen != SCREEN_STORE_ERROR) {
        view_pos(l->s, l->pos);
    }
    if (rc != SIM_OK || session_view(l->s)->screen == SCREEN_STORE_ERROR) {
        /* nothing of this is acknowledged: the browser keeps its journal
        ** and sends again; the session keeps the response and retries */
        reply_error(out, 503, "store", "the response could not be stored yet");
        json_object_set_new(out->body, "retry_ms", json_integer(1000));
        return;
    }
    if (sv->cfg.worker && n_in) {
        sync_worker_kick(sv->cfg.worker);
    }
    reply_state(sv, l, 200, out);
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

int serve_new(const ServeConfig *cfg, int64_t wall_ms, Serve **out,
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
    sv->enroll_bucket = c->enroll_burst;
    sv->enroll_ms = wall_ms;
    int rc = serve_view_new(c->study, &sv->views, err);
    if (rc != SIM_OK) {
        serve_free(sv);
        return rc;
    }
    ParticipantInfo *list = NULL;
    size_t n = 0;
    rc = store_list_participants(c->store, 0, &list, &n, err);
    for (size_t i = 0; rc == SIM_OK && i < n; i++) {
        if (!id_valid(list[i].code) || map_get(&sv->by_ext, list[i].code)) {
            continue; /* not a link's id, or the first one has it */
        }
        if (!live_add(sv, list[i].id, list[i].code)) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    sim_free(list);
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
    for (size_t i = 0; i < sv->n_lives; i++) {
        live_close(sv, sv->lives[i]);
        serve_media_free(&sv->lives[i]->media);
        sim_free(sv->lives[i]);
    }
    sim_free(sv->lives);
    sim_free(sv->by_ext.v);
    sim_free(sv->by_token.v);
    sim_free(sv->touched);
    serve_view_free(sv->views);
    sim_free(sv);
}

int serve_tick(Serve *sv, int64_t wall_ms, SimError *err)
{
    for (size_t i = 0; i < sv->n_lives; i++) {
        Live *l = sv->lives[i];
        if (l->s && wall_ms - l->last_ms > sv->cfg.idle_close_ms) {
            live_close(sv, l);
        }
    }
    return store_heartbeat(sv->cfg.store, wall_ms, err);
}

void serve_counts(const Serve *sv, long *known, long *open, long *acked)
{
    *known = (long)sv->n_lives;
    *open = (long)sv->n_open;
    *acked = sv->acked;
}
