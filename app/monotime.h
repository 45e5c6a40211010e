/*
** The monotonic clock in nanoseconds, for the runner's clock (stamps.c) and
** its input thread (rawinput.c), which stamp with the same clock.
*/
#ifndef SIMLAB_APP_MONOTIME_H
#define SIMLAB_APP_MONOTIME_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns. */
static inline int64_t monotime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
