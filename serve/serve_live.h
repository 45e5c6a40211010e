/*
** The participants of `simlab serve` and its protocol, without HTTP: who a
** link's id is, who may continue a run from which browser (the browser's
** key, the platform's session, a resume code), per-participant session
** tokens, the session state machine of each participant, and the replay
** of a browser's journal of inputs -- applied once each, by (participant,
** step, attempt, screen, input number), committed before they are
** acknowledged, timed by the server's clock (serve_clock.h). A new id is
** only a browser waiting in memory until it passes the study's first
** page (the consent): nothing of it is written before. Not thread-safe:
** the caller serialises the calls. No SDL; the caller passes the clock.
*/
#ifndef SIMLAB_SERVE_SERVE_LIVE_H
#define SIMLAB_SERVE_SERVE_LIVE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"
#include "experiment/store.h"
#include "experiment/sync.h"
#include "stimuli/study.h"

typedef struct Serve Serve;

typedef struct ServeConfig {
    const Study *study;
    Store *store;       /* opened read-write by the caller */
    SyncWorker *worker; /* kicked after commits, or NULL */
    int assign_later;   /* 1: a new participant's condition is the server's
                           (--sync): the reply that would enrol them
                           carries a job instead (ServeReply.job), which
                           the caller has answered off the lock
                           (sync_assigner_submit) before calling
                           serve_enroll_finish */
    const char *station;
    int max_open;        /* sessions kept open at most (idle ones are
                            closed first); 0: 4096 */
    int idle_close_ms;   /* an idle session is closed after this; 0: 10 min */
    double rate_per_s;   /* requests a participant may make per second on
                            average; 0: 20 */
    double rate_burst;   /* and at once; 0: 60 */
    double enroll_per_s; /* new participants (past the consent) per second
                            on average; 0: 20 */
    double enroll_burst; /* and at once; 0: 200 */
    double arrive_per_s; /* new browsers (waiting before the consent) per
                            second on average; 0: 5 x enroll_per_s */
    double arrive_burst; /* and at once; 0: 5 x enroll_burst */
    int max_waiting;     /* browsers waiting before the consent kept at most
                            (the longest idle are forgotten); 0: 16384 */
} ServeConfig;

/* Makes the participant table: the ids of the participants already in the
** store (their participant codes) and how each may continue are known
** from the start. now_ns: the real-time clock (Unix ns). On success *out
** owns a new Serve (serve_free); it borrows everything in cfg. */
int serve_new(const ServeConfig *cfg, int64_t now_ns, Serve **out,
              SimError *err);
void serve_free(Serve *sv); /* NULL is a no-op; closes the sessions */

/* The secret a pilot link carries (pilot=SECRET): the same for every run
** on this database. Borrowed. */
const char *serve_pilot_secret(const Serve *sv);

/* 1 when a new id waits in memory until it passes the study's first page
** (a page: the consent); 0 when the study starts with something else and
** a new id is enrolled at its first start. */
int serve_waits_for_consent(const Serve *sv);

/* An answer to a request: an HTTP status and a JSON body (owned), the
** seconds to wait before trying again (Retry-After, with 429 and 503),
** and, with status 0, a server assignment to get answered first (see
** ServeConfig.assign_later; the job stays the Serve's). */
typedef struct ServeReply {
    int status;
    json_t *body;
    int retry_s;
    SyncAssignJob *job;
} ServeReply;

/* POST /api/start: body {"PROLIFIC_PID" | "workerId" | "participant",
** "STUDY_ID", "SESSION_ID" | "assignmentId", "client", "pilot", "key",
** "code"}. A known id continues at its first unanswered step (as the
** desktop runner resumes) only when the browser brings the key it was
** given, or the first visit's platform session, or the resume code, as
** the participant's mode allows; then with a new token (the previous one
** is superseded). Any other start -- a new id, or a known one without
** what its mode asks -- gets a waiting browser at the study's first page
** and the same reply either way. A "code" that does not open a run gets
** 409 {"error": "resume", "wrong": true} for every id. The reply holds
** the token, the browser's key when it is new, the study's strings and
** the current screen. */
void serve_start(Serve *sv, json_t *body, int64_t now_ns, ServeReply *out);

/* Whether serve_start with this body may write the station file (a run
** continued, or a study without a first page enrolling at the first
** visit); 0 when it is answered from memory alone (a browser waiting at
** the first page, a refusal), so that it need not wait for a commit.
** Changes nothing. */
int serve_start_stores(Serve *sv, json_t *body);

/* POST /api/input with the token: body {"pos": [seq, attempt, phase],
** "onset": ms or null, "onset_method": text, "inputs": [{"n", "kind",
** "t", ...}]}. Inputs at the current position with n from the number
** applied so far are applied in order; others are dropped (duplicates) or
** wait for the ones before them. Their times (and the onset's) are
** bounded by the server's clock before the session sees them
** (serve_clock.h). The reply holds the position, the number of inputs
** applied there and the screen: 200 once everything applied is committed;
** 503 when the database refused a write (retried on the next request;
** nothing is lost); 401 for an unknown token (start again), 409 for a
** superseded one, or {"error": "resume", "mode": ...} when a waiting
** browser passed the consent of an id that is already taking part; 429
** over the rate limit, 400 for bad input; status 0 with a job to answer
** (ServeReply). */
void serve_input(Serve *sv, const char *token, json_t *body, int64_t now_ns,
                 ServeReply *out);

/* Enrols the participant whose server assignment job (from a ServeReply)
** is answered, and answers the request that asked for it. */
void serve_enroll_finish(Serve *sv, SyncAssignJob *job, int64_t now_ns,
                         ServeReply *out);

/* The job is answered, but its request is not going on (the database is
** busy): the next request of its browser enrols with the answer. */
void serve_enroll_answered(Serve *sv, SyncAssignJob *job);

/* The job was never asked (its request was not acknowledged): asked
** again when its browser sends again. */
void serve_enroll_cancel(Serve *sv, SyncAssignJob *job);

/* The file of the current screen's media index k for token (the URL
** /media/TOKEN/EPOCH/K names the screen by its epoch): its path and
** Content-Type (borrowed until the next call). SIM_ERR_STATE when there is
** none (another screen, another token, no such index). */
int serve_media(Serve *sv, const char *token, unsigned epoch, size_t k,
                const char **path, const char **type);

/* Housekeeping, about once a second: closes idle sessions, forgets
** browsers that waited long, refreshes the database lease. Returns the
** store's error (store_lease_lost tells whether the lease was lost) or
** SIM_OK. */
int serve_tick(Serve *sv, int64_t now_ns, SimError *err);

/* Commit groups (store_group_begin): the caller opens a group in the
** store, then calls serve_group_begin; the requests applied until the
** store's group commits are acknowledged only after it did. When that
** commit fails, serve_group_failed makes the participants the group wrote
** for read their sessions again from the file (their browsers send their
** journals again); one enrolled in it waits again before the consent. */
void serve_group_begin(Serve *sv);
void serve_group_failed(Serve *sv);

/* Counts for the log and the benchmarks. */
typedef struct ServeStats {
    long known;    /* participants enrolled */
    long open;     /* sessions open */
    long acked;    /* screens answered in this run */
    long waiting;  /* browsers waiting before the consent */
    long tokens;   /* session tokens known (at most 2 per participant) */
    long declined; /* waiting browsers that declined (nothing stored) */
    long refused;  /* starts and consents refused for lack of access */
    long events;   /* online_start and client_clock events written */
} ServeStats;

void serve_stats(const Serve *sv, ServeStats *st);

#endif
