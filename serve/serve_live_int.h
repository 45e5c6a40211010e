/*
** Private to serve_live.c and serve_wait.c: a participant's live state
** (Live), the tables of participants and tokens, and the helpers both
** files use. Callers use serve_live.h.
*/
#ifndef SIMLAB_SERVE_SERVE_LIVE_INT_H
#define SIMLAB_SERVE_SERVE_LIVE_INT_H

#include "serve/serve_access.h"
#include "serve/serve_clock.h"
#include "serve/serve_live.h"
#include "serve/serve_view.h"
#include "experiment/session.h"

/* Longest participant id of a link, and its characters. */
#define ID_MAX 63
/* Distinct browsers (online_start events) logged per participant and run. */
#define CLIENTS_MAX 8
/* client_clock events (a stamp the server's clock moved) per participant
** and run. */
#define CLOCK_EVENTS_MAX 16
/* Resume codes one id may be tried with: this many at once, refilled over
** CODE_WINDOW_S seconds. */
#define CODE_TRIES    10
#define CODE_WINDOW_S 600.0
/* Longest online_start detail stored (bytes). */
#define START_INFO_MAX 1024

/* A waiting browser's server assignment: not asked (or to be asked
** again), asked and not answered yet, answered (job holds it). */
enum { JOB_NONE = 0, JOB_ASKED = 1, JOB_ANSWERED = 2 };

/* The phase of a position: which screen of a step is shown. */
enum { PH_STEP = 0, PH_FEEDBACK = 1, PH_TIMEOUT = 2, PH_END = 3 };

/* A checked input of a request. */
typedef struct In {
    int n;
    SimInput in;
    int tick;   /* a clock tick (deadlines, the timeout screen) */
    int scroll; /* a scroll report: value bit 0 overflow, bit 1 at end */
    char key[32];
    const char *text;
    int64_t used_ns; /* the time handed to the session (serve_clock.h) */
} In;

typedef struct Live {
    char pid[37];           /* participant UUID; "" while waiting */
    char ext[ID_MAX + 1];   /* the link's id (participant code) */
    char token[33];         /* current session token, "" none yet */
    char prev[33];          /* the token it superseded, "" none */
    Session *s;             /* open session, or NULL (closed while idle);
                               while waiting: the scratch session of the
                               request under way */
    int pos[3];             /* position the applied count refers to */
    int applied;            /* inputs applied at pos */
    int sent[3];            /* position of the last screen sent */
    int completed;          /* the last response is committed (status) */
    int64_t last_ms;        /* last request */
    double bucket;          /* rate limit: requests available */
    int64_t bucket_ms;      /* when the bucket was last filled */
    ServeMediaList media;   /* files of the screen last sent */
    unsigned epoch;         /* names this screen's media: a browser keeps an
                               image by its URL for the whole page, so every
                               screen's media get URLs of their own */
    unsigned epoch_serial;  /* screen_serial the epoch was counted for */
    const void *epoch_of;   /* and its session */
    unsigned long group;    /* the last commit group that wrote for it */
    int enrolled_in_group;  /* its enrolment is in that group */
    ServeClock clock;       /* the server's times of this browser */
    int clock_events;       /* client_clock events logged */
    char onset_method[128]; /* how the browser last said it took an onset
                               (logged as an event when it changes) */
    /* who may continue (serve_access.h) */
    OnlineResume mode;
    char key_hash[65], session_hash[65], code_hash[65];
    char key[33];       /* the browser's key: handed out in the next start
                           reply when new; the waiting browser's (by_key) */
    int key_new;        /* key is new: the next start reply carries it */
    char code[10];      /* the resume code to show, "" none (this run) */
    double code_bucket; /* resume codes that may be tried */
    int64_t code_ms;
    uint64_t clients[CLIENTS_MAX]; /* online_start details logged */
    int n_clients;
    int browsers; /* other browsers it continued in this run */
    /* waiting before the consent (nothing stored) */
    int waiting;
    int shadow;         /* its id is a participant's whose check it failed */
    int pilot;          /* came with the pilot link */
    int64_t w_onset;    /* onset marked on the first page, 0 none */
    int w_scroll;       /* last scroll report + 1, 0 none */
    int w_declined;     /* declined the consent */
    int has_accept;     /* passed the first page with this input: */
    In accept;          /* (its key in accept.key) */
    int from_start;     /* enrolled at its start (no first page to pass) */
    char *start_info;   /* the first visit's online_start detail */
    SyncAssignJob *job; /* the server assignment (assign_later), or NULL */
    int job_state;      /* JOB_NONE, JOB_ASKED or JOB_ANSWERED */
    int paid;           /* took its place in the enrolment rate */
    struct Live *w_prev, *w_next; /* waiting, the last used first */
} Live;

/* An open-addressing table from a string to a participant. */
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
    ServeKeys keys;
    Live **lives; /* enrolled participants */
    size_t n_lives, cap_lives;
    Map by_ext, by_token, by_key; /* by_key: waiting browsers */
    size_t n_open;
    long acked, declined, refused, events;
    double enroll_bucket, arrive_bucket, code_bucket;
    int64_t enroll_ms, arrive_ms, code_ms;
    unsigned long group; /* the commit group open now (serve_group_*) */
    Live **touched;      /* participants written for in the open group */
    size_t n_touched, cap_touched;
    ServeView *views; /* the study's screens as the browser draws them */
    /* waiting browsers (serve_wait.c) */
    Store *scratch;        /* a private store in memory, or NULL: the
                              study's first step is no page */
    char template_pid[37]; /* its one participant, shown the first page */
    Live *w_head, *w_tail; /* the last used first */
    size_t n_waiting;
};

/* serve_live.c */
Live *map_get(const Map *m, const char *key);
int map_put(Map *m, const char *key, Live *live);
void map_del(Map *m, const char *key);
void reply_error(ServeReply *out, int status, const char *code,
                 const char *message);
int bucket_take(double *bucket, int64_t *last_ms, double rate, double burst,
                int64_t now_ms);
int live_token_new(Serve *sv, Live *l);
void live_forget_tokens(Serve *sv, Live *l);
void touch(Serve *sv, Live *l);
int live_open(Serve *sv, Live *l, int64_t now_ns, SimError *err);
void live_close(Serve *sv, Live *l);
int live_add(Serve *sv, Live *l);
void view_pos(const Session *s, int pos[3]);
int pos_cmp(const int a[3], const int b[3]);
void reply_state(Serve *sv, Live *l, int status, int64_t now_ns,
                 ServeReply *out);
void reply_start(Serve *sv, Live *l, int64_t now_ns, ServeReply *out);
int apply_request(Serve *sv, Live *l, const int pos[3], In *ins, size_t n_in,
                  int64_t onset_ns, int64_t now_ns, int *moved_at,
                  SimError *err);
int apply_one(Serve *sv, Live *l, In *in, int64_t now_ns, SimError *err);
int log_start(Serve *sv, Live *l, const char *detail, int64_t now_ns);
int access_store(Serve *sv, Live *l, int64_t now_ns, SimError *err);
const char *mode_name(OnlineResume m);

/* serve_wait.c */
int wait_init(Serve *sv, int64_t now_ns, SimError *err);
void wait_free(Serve *sv);
Live *wait_find(Serve *sv, const char *key, const char *ext);
Live *wait_add(Serve *sv, const char *ext, int64_t now_ns);
void wait_drop(Serve *sv, Live *l);
void wait_touch(Serve *sv, Live *l);
void wait_start_reply(Serve *sv, Live *l, int64_t now_ns, ServeReply *out);
void wait_input(Serve *sv, Live *l, const int pos[3], In *ins, size_t n_in,
                int64_t onset_ns, int64_t now_ns, ServeReply *out);
void wait_enroll(Serve *sv, Live *l, int64_t now_ns, ServeReply *out);
void wait_expire(Serve *sv, int64_t now_ns);
void wait_revert(Serve *sv, Live *l);

#endif
