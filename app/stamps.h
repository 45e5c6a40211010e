/*
** The runner's clock and event stamps. The clock is CLOCK_MONOTONIC plus
** the autopilot's fast-forward offset (0 for people). An SDL event watch
** stamps key, button and finger presses with that clock as SDL queues them
** (inside SDL_PumpEvents or SDL_PushEvent); the loop pairs each polled
** event with its stamp, in order. With an input thread attached
** (rawinput.h), a key press takes the thread's earlier stamp instead.
*/
#ifndef SIMLAB_APP_STAMPS_H
#define SIMLAB_APP_STAMPS_H

#include <SDL2/SDL.h>
#include <stdint.h>

#include "app/rawinput.h"
#include "app/rush.h"
#include "common/sim_error.h"

typedef struct Stamps Stamps;

/* Where the stamp of the last key press came from. */
typedef enum StampSource {
    STAMP_NONE = 0, /* no watch stamp matched: the poll time */
    STAMP_WATCH,    /* the event watch, as SDL queued the event */
    STAMP_RAW       /* the input thread (XInput 2 raw event) */
} StampSource;

/* CLOCK_MONOTONIC in ns, and CLOCK_REALTIME in Unix ms: no offset. */
int64_t stamps_mono_ns(void);
int64_t stamps_real_ms(void);

/* Creates the clock and adds its event watch (SDL is initialised). On
** success *out owns it (stamps_close); on failure *out is NULL. */
int stamps_open(Stamps **out, SimError *err);
/* Removes the event watch and frees st. NULL is a no-op. */
void stamps_close(Stamps *st);

/* The runner's time: monotonic ns, and wall-clock Unix ms, each moved on
** by the fast-forward offset. */
int64_t stamps_now(const Stamps *st);
int64_t stamps_wall_ms(const Stamps *st);

/* Moves the clock forward to t (never back): the autopilot's jump to the
** policy's response time. Presses queued afterwards are stamped later. */
void stamps_skip_to(Stamps *st, int64_t t);

/* The stamp of a polled SDL_KEYDOWN or SDL_MOUSEBUTTONDOWN: the oldest
** unclaimed matching stamp (older unmatched ones are dropped); now when
** none matches. */
int64_t stamps_take(Stamps *st, const SDL_Event *e, int64_t now);

/* Attaches the input thread (borrowed; NULL detaches): key presses that
** are not repeats take its stamps from now on. */
void stamps_set_raw(Stamps *st, RawInput *raw);
/* Opens the input thread on window (unless SIMLAB_RAW_INPUT=0) at rush's
** input priority, records its priority in rec and attaches it to st.
** Returns it (the caller closes it after st), or NULL where it cannot run
** (said on stderr, prefixed with prog, when prog is not NULL). */
RawInput *stamps_attach_input(Stamps *st, SDL_Window *window, Rush *rec,
                              const char *prog);
/* Whether an input thread is attached. */
int stamps_have_raw(const Stamps *st);

/* The source of the last stamps_take of a key press, and the event
** watch's stamp for it (now when none matched). */
StampSource stamps_last_source(const Stamps *st, int64_t *watch_ns);

#endif
