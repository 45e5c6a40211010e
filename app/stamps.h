/*
** The runner's clock and event stamps. The clock is CLOCK_MONOTONIC plus
** the autopilot's fast-forward offset (0 for people). An SDL event watch
** stamps key, button and finger presses with that clock as SDL queues them
** (inside SDL_PumpEvents or SDL_PushEvent); the loop pairs each polled
** event with its stamp, in order.
*/
#ifndef SIMLAB_APP_STAMPS_H
#define SIMLAB_APP_STAMPS_H

#include <SDL2/SDL.h>
#include <stdint.h>

#include "common/sim_error.h"

typedef struct Stamps Stamps;

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

#endif
