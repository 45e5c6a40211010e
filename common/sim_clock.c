/*
** The programs' clocks (sim_clock.h). The only file outside app/ and serve/
** that reads the clock; only they call it.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "common/sim_clock.h"

int64_t sim_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t sim_clock_real_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int64_t sim_clock_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sim_clock_abs_after(int64_t ms, struct timespec *abs)
{
    clock_gettime(CLOCK_REALTIME, abs);
    abs->tv_sec += (time_t)(ms / 1000);
    abs->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (abs->tv_nsec >= 1000000000L) {
        abs->tv_sec++;
        abs->tv_nsec -= 1000000000L;
    }
}

static int64_t real_now(void *ctx)
{
    (void)ctx;
    return sim_clock_real_ms();
}

static void real_after(void *ctx, int64_t ms, struct timespec *abs)
{
    (void)ctx;
    sim_clock_abs_after(ms, abs);
}

const SimWallClock *sim_clock_real(void)
{
    static const SimWallClock clock = {real_now, real_after, NULL};
    return &clock;
}
