/*
** The participants of `simlab serve` and its protocol, without HTTP: who a
** link's id is (enrol a new one, resume a known one), per-participant
** session tokens, the session state machine of each participant, and the
** replay of a browser's journal of inputs -- applied once each, by
** (participant, step, attempt, screen, input number), committed before
** they are acknowledged. Not thread-safe: the caller serialises the calls.
** No SDL; the caller passes the clock.
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
    SyncConn *sync;     /* server assignment, or NULL */
    SyncWorker *worker; /* kicked after commits, or NULL */
    const char *station;
    int max_open;        /* sessions kept open at most (idle ones are
                            closed first); 0: 4096 */
    int idle_close_ms;   /* an idle session is closed after this; 0: 10 min */
    double rate_per_s;   /* requests a participant may make per second on
                            average; 0: 20 */
    double rate_burst;   /* and at once; 0: 60 */
    double enroll_per_s; /* new participants per second on average; 0: 20 */
    double enroll_burst; /* and at once; 0: 200 */
} ServeConfig;

/* Makes the participant table: the ids of the participants already in the
** store (their participant codes) are known from the start. On success
** *out owns a new Serve (serve_free); it borrows everything in cfg. */
int serve_new(const ServeConfig *cfg, int64_t wall_ms, Serve **out,
              SimError *err);
void serve_free(Serve *sv); /* NULL is a no-op; closes the sessions */

/* An answer to a request: an HTTP status and a JSON body (owned). */
typedef struct ServeReply {
    int status;
    json_t *body;
} ServeReply;

/* POST /api/start: body {"PROLIFIC_PID" | "participant", "STUDY_ID",
** "SESSION_ID", "pilot", "client"}. Enrols a new id, or opens a known one
** at its first unanswered step (as the desktop runner resumes), with a new
** token (the previous one is superseded). The reply holds the token, the
** study's strings and the current screen. */
void serve_start(Serve *sv, json_t *body, int64_t wall_ms, ServeReply *out);

/* POST /api/input with the token: body {"pos": [seq, attempt, phase],
** "onset": ms or null, "onset_method": text, "inputs": [{"n", "kind",
** "t", ...}]}. Inputs at the current position with n from the number
** applied so far are applied in order; others are dropped (duplicates) or
** wait for the ones before them. The reply holds the position, the number
** of inputs applied there and the screen: 200 once everything applied is
** committed; 503 when the database refused a write (retried on the next
** request; nothing is lost); 401 for an unknown token (start again), 409
** for a superseded one, 429 over the rate limit, 400 for bad input. */
void serve_input(Serve *sv, const char *token, json_t *body, int64_t wall_ms,
                 ServeReply *out);

/* The file of the current screen's media index k for token (the URL
** /media/TOKEN/EPOCH/K names the screen by its epoch): its path and
** Content-Type (borrowed until the next call). SIM_ERR_STATE when there is
** none (another screen, another token, no such index). */
int serve_media(Serve *sv, const char *token, unsigned epoch, size_t k,
                const char **path, const char **type);

/* Housekeeping, about once a second: closes idle sessions, refreshes the
** database lease. Returns the store's error (the lease was lost) or
** SIM_OK. */
int serve_tick(Serve *sv, int64_t wall_ms, SimError *err);

/* Commit groups (store_group_begin): the caller opens a group in the
** store, then calls serve_group_begin; the requests applied until the
** store's group commits are acknowledged only after it did. When that
** commit fails, serve_group_failed makes the participants the group wrote
** for read their sessions again from the file (their browsers send their
** journals again). */
void serve_group_begin(Serve *sv);
void serve_group_failed(Serve *sv);

/* Counts for the log: participants known, sessions open, responses
** acknowledged. */
void serve_counts(const Serve *sv, long *known, long *open, long *acked);

#endif
