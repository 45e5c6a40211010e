/*
** The session: one participant's run as an explicit state machine. It takes
** plain input structs with nanosecond timestamps, records every response in
** the store before it moves on, and exposes a view of what to show. No SDL,
** no clock: app/ (or a simulated participant) supplies the times.
*/
#ifndef SIMLAB_EXPERIMENT_SESSION_H
#define SIMLAB_EXPERIMENT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/schedule.h"
#include "common/sim_error.h"
#include "experiment/store.h"
#include "experiment/session_view.h"
#include "stimuli/study.h"

typedef struct Session Session;

/* Opens the run of participant pid (already enrolled in store) at its first
** unanswered step; logs a "resume" event when some steps were already done.
** wall_ms is the wall-clock time. On success *out owns a new Session
** (session_close); it borrows study and store, which must outlive it. */
int session_open(Store *store, const Study *study, const char *pid,
                 int64_t wall_ms, Session **out, SimError *err);

void session_close(Session *s); /* NULL is a no-op */

/* Reports that the current step's stimulus became visible at t_ns (right
** after the first present that shows it). Inputs that answer the step are
** ignored until this is called, and inputs stamped before t_ns are
** ignored too. Calling it again for the same step does nothing. */
void session_mark_onset(Session *s, int64_t t_ns);

/* Applies one input. *consumed (may be NULL) is set to 1 when the input
** changed the session, 0 when it was ignored (before onset, not valid on
** this screen, a repeat). A response that completes a step is committed to
** the store in one transaction before the session moves on; when the store
** fails, the session shows SCREEN_STORE_ERROR, keeps the response and
** retries on SIM_IN_RETRY; the error is returned (SIM_ERR_DB or
** SIM_ERR_BUSY) and nothing is lost. */
int session_handle(Session *s, const SimInput *in, int *consumed,
                   SimError *err);

/* The frame clock: call once per frame (and before each input) with the
** current time. At a trial's deadline (the block's time_limit_ms after the
** onset, no class chosen yet) it commits the trial as timed out (no choice,
** no correctness) and shows SCREEN_TIMEOUT for SESSION_TIMEOUT_SHOW_NS when
** the block has a timeout_message; that screen then moves on by itself.
** Store failures behave as in session_handle. */
int session_tick(Session *s, int64_t t_ns, int64_t wall_ms, SimError *err);

/* How long SCREEN_TIMEOUT shows its message. */
#define SESSION_TIMEOUT_SHOW_NS 1000000000LL

/* Reports the scroll state of the current screen: overflow = 1 when its
** content is taller than the window, at_end = 1 when the participant has
** scrolled to its end. Once the end was reached the screen stays open;
** while overflow and not yet at the end, a block with require_scroll holds
** Continue (view.scroll_gate). Without reports there is no gate. */
void session_report_scroll(Session *s, int overflow, int at_end);

/* Whether Continue is accepted on view v (from its continue_after_ns on):
** nothing it needs is missing and the scroll gate is open. The one rule:
** the session applies it to Continue and writes it into its views
** (continue_ready); for views built by hand (previews, tests). */
int session_continue_ready(const SessionView *v);

/* The choices view v offers (a verify block's two verdicts, else the
** study's classes) and, when n is not NULL, their number in *n. */
const StudyClass *session_choices(const SessionView *v, size_t *n);

/* What to draw now. Never NULL; valid until the next call on s. */
const SessionView *session_view(const Session *s);

/* 1 when the run is over (done, declined, screened out or aborted). */
int session_finished(const Session *s);

const Schedule *session_schedule(const Session *s);
const char *session_screen_name(SessionScreen screen);

/* Key names the session understands for continue. */
int session_key_is_continue(const char *key);

#endif
