/*
** The runner's loop: the experimenter's start screen and one participant's
** run at a time. Each turn takes every pending event (translated by
** input.c) and carries it out -- the session's state machine, the start
** screen, the dialogs -- then lets the autopilot act, then draws when
** something changed and marks the onset of each new screen right after its
** present.
*/
#ifndef SIMLAB_APP_LOOP_H
#define SIMLAB_APP_LOOP_H

#include <stdint.h>

#include "app/autopilot.h"
#include "app/frame.h"
#include "app/run_options.h"
#include "app/rush.h"
#include "app/stamps.h"
#include "app/timing_log.h"
#include "experiment/store.h"
#include "experiment/sync.h"
#include "stimuli/study.h"

/* What the loop runs on; all borrowed, all open. */
typedef struct LoopDeps {
    const RunOptions *o; /* db and station filled in */
    const Study *study;
    Store *store;
    Frame *frame;
    Stamps *clock;
    TimingLog *timing;    /* may be NULL */
    Autopilot *autopilot; /* NULL: people at the keyboard */
    int64_t t_launch_ns;  /* monotonic, for the first-frame report */
    const Rush *rush;     /* what rush asked for and got (display event) */

    /* --sync: server assignment and the background push, or NULL */
    SyncConn *sync;
    SyncWorker *sync_worker;
} LoopDeps;

/* Runs until the experimenter quits, --exit-after runs are finished, or
** the autopilot is done. Returns the exit status (0, or 1 when the
** autopilot failed). */
int loop_run(const LoopDeps *d);

#endif
