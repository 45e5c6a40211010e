/*
** The one platform file that reads the clock: the monotonic and real-time
** clocks of the programs (app/ and serve/). The pure libraries never call
** these (tests/check_layers.sh); they take a SimWallClock from their caller.
*/
#ifndef SIMLAB_COMMON_SIM_CLOCK_H
#define SIMLAB_COMMON_SIM_CLOCK_H

#include <stdint.h>
#include <time.h>

/* A clock handed to a library: now_ms (Unix ms) and abs_after, which fills
** *abs with the CLOCK_REALTIME time ms from now (for
** pthread_cond_timedwait). ctx is passed to both. */
typedef struct SimWallClock {
    int64_t (*now_ms)(void *ctx);
    void (*abs_after)(void *ctx, int64_t ms, struct timespec *abs);
    void *ctx;
} SimWallClock;

/* CLOCK_MONOTONIC in ns. */
int64_t sim_clock_mono_ns(void);

/* CLOCK_REALTIME in Unix ms. */
int64_t sim_clock_real_ms(void);

/* CLOCK_REALTIME in Unix ns. */
int64_t sim_clock_real_ns(void);

/* *abs = CLOCK_REALTIME now plus ms. */
void sim_clock_abs_after(int64_t ms, struct timespec *abs);

/* The real-time clock as a SimWallClock (static; never freed). */
const SimWallClock *sim_clock_real(void);

#endif
