/*
** The server's clock for a web participant's timing rules (docs/online.md
** "Timing"): the browser stamps onsets and inputs with its own clock; the
** session decides minimum reading times, deadlines and the timeout screen
** on those stamps, as on the desktop. Before a stamp is handed to the
** session it is bounded by what the server saw: the screen was sent at a
** server time S, the stamp arrived at a server time R, so no honest
** browser can claim more time on the screen than R - S. The browser's
** clock is tied to the server's by the smallest (onset - S) it reported
** (its offset plus the quickest delivery): a stamp is at most R plus that
** offset, an onset at least S plus it. An honest browser's stamps are
** never changed (the ties hold for every true stamp); a forged one is
** moved to the latest time the server can vouch for. While a deadline
** runs, an answer that reaches the server more than SERVE_CLOCK_GRACE_NS
** after the deadline (by the server's time on the step) is too late,
** whatever its stamp says: it gets that time; earlier ones keep their
** stamps. Pure functions: the caller passes every time (ns).
*/
#ifndef SIMLAB_SERVE_SERVE_CLOCK_H
#define SIMLAB_SERVE_SERVE_CLOCK_H

#include <stdint.h>

/* What the network and the browser may add to an answer's way to the
** server (screen sent, drawn, answered, request received) before a
** deadline no longer believes its stamp. */
#define SERVE_CLOCK_GRACE_NS 2000000000LL

typedef struct ServeClock {
    int64_t shown_ns;      /* server: the current screen was sent */
    int64_t step_ns;       /* server: the step's first screen was sent */
    int64_t off_ns;        /* browser - server: the least (onset - shown)
                              reported; INT64_MAX while none */
    int64_t step_onset_ns; /* browser: the step's first onset, 0 none */
} ServeClock;

/* A browser not heard from yet (a new start): no offset. */
void serve_clock_reset(ServeClock *c);

/* A screen was sent at now_ns (server); new_step: the first screen of a
** step (its deadline counts from here). */
void serve_clock_screen(ServeClock *c, int new_step, int64_t now_ns);

/* The onset to mark for a screen whose onset the browser reports as
** browser_ns in a request received at now_ns; first_of_step: the step's
** first screen (remembered for the deadline). */
int64_t serve_clock_onset(ServeClock *c, int64_t browser_ns, int64_t now_ns,
                          int first_of_step);

/* The time to hand to the session for an input stamped browser_ns,
** received at now_ns; deadline_ns: when the step's running deadline is
** due (the session's, on the browser's clock), 0 none. */
int64_t serve_clock_input(const ServeClock *c, int64_t browser_ns,
                          int64_t now_ns, int64_t deadline_ns);

#endif
