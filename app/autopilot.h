/*
** The autopilot (`simlab run --autopilot POLICY`): a simulated participant
** that drives the real loop. It enrolls or resumes simulated participants,
** asks the policy for each answer and its reaction time, moves the clock on
** to that time and pushes the answer as real SDL events (a click on the
** button or its key), so it passes the same hit testing, key mapping and
** stamping as a person's. --chaos adds what a restless participant tries.
*/
#ifndef SIMLAB_APP_AUTOPILOT_H
#define SIMLAB_APP_AUTOPILOT_H

#include <SDL2/SDL.h>
#include <stddef.h>
#include <stdint.h>

#include "app/input.h"
#include "app/scene.h"
#include "app/stamps.h"
#include "common/sim_rng.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/study.h"

typedef struct Autopilot {
    PolicyKind kind;
    Policy policy;         /* of the participant being run */
    SimRng rng;            /* click or key, chaos */
    const Study *study;    /* borrowed: class keys, the policy's model */
    const char *station;   /* borrowed */
    int participants;      /* complete simulated participants wanted */
    uint64_t seed;         /* --seed */
    int chaos;             /* --chaos */
    int one_per_condition; /* --screenshot-one-per-condition: participant k
                              is a fresh one in (or, within-subject,
                              starting with) condition k; then it ends */
    int enrolled;          /* participants enrolled by this run */
    SyncConn *sync;        /* --sync: assign on the server, or NULL */
    int in_flight;         /* a synthetic answer is queued */
    unsigned flight_count; /* inputs consumed when it was sent */
    unsigned flight_serial;
    int flight_wait;       /* loop turns waited for it */
    unsigned chaos_serial; /* screen that already got its early input */
    int chaos_paused;      /* chaos paused the run and must resume it */
} Autopilot;

/* What the autopilot sees of the runner on one loop turn. */
typedef struct AutopilotCtx {
    const Session *session; /* the open run, or NULL */
    Confirm confirm;        /* the open dialog */
    int shown;              /* the view's screen is on the display */
    unsigned consumed;      /* inputs the session took so far */
    int64_t next_retry_ns;  /* when the runner retries a failed save */
    const Scene *scene;     /* where to click */
    float scroll;           /* body scroll, px */
    float px_per_pt;        /* output pixels per window point */
    Uint32 window_id;       /* events are addressed to it */
    Stamps *clock;          /* moved on to each answer's time */
} AutopilotCtx;

/* Sets ap up for policy kind and the options (study, station borrowed). */
void autopilot_init(Autopilot *ap, PolicyKind kind, const Study *study,
                    const char *station, int participants, uint64_t seed,
                    int chaos);

/* The next participant to run: an unfinished simulated one, else a newly
** enrolled one (pid, 37 bytes); with one_per_condition always a new one, in
** the next condition of the study. Returns 0 with pid set, 1 when the store
** holds enough complete simulated participants, -1 on an error (printed). */
int autopilot_next_participant(Autopilot *ap, Store *store, int64_t wall_ms,
                               char pid[37]);

/* A run of participant pid begins: the policy takes its seed. */
void autopilot_begin(Autopilot *ap, Store *store, const char *pid);

/* Chaos only: right after a new screen was decided and before it is shown,
** an input that must be ignored because it comes before the onset. */
void autopilot_early(Autopilot *ap, const AutopilotCtx *ctx);

/* One loop turn with nothing to draw: answers the shown screen (once) or
** waits. Returns 1 when the run is over and shown, so the runner should end
** it; else 0. */
int autopilot_step(Autopilot *ap, const AutopilotCtx *ctx);

#endif
