/*
** The server's clock for the timing rules of a web participant
** (serve_clock.h). Bounds only: a stamp the server can vouch for passes
** unchanged.
*/
#include "serve/serve_clock.h"

void serve_clock_reset(ServeClock *c)
{
    c->off_ns = INT64_MAX;
}

void serve_clock_screen(ServeClock *c, int new_step, int64_t now_ns)
{
    c->shown_ns = now_ns;
    if (new_step) {
        c->step_ns = now_ns;
        c->step_onset_ns = 0;
    }
}

int64_t serve_clock_onset(ServeClock *c, int64_t browser_ns, int64_t now_ns,
                          int first_of_step)
{
    int64_t off = browser_ns - c->shown_ns;
    if (off < c->off_ns) {
        c->off_ns = off;
    }
    /* not later than the request that reports it */
    int64_t latest = now_ns + c->off_ns;
    int64_t t = browser_ns < latest ? browser_ns : latest;
    if (first_of_step || !c->step_onset_ns) {
        c->step_onset_ns = t;
    }
    return t;
}

int64_t serve_clock_input(const ServeClock *c, int64_t browser_ns,
                          int64_t now_ns, int64_t deadline_ns)
{
    if (c->off_ns == INT64_MAX) {
        return browser_ns; /* no onset yet: the session ignores it */
    }
    int64_t latest = now_ns + c->off_ns;
    int64_t t = browser_ns < latest ? browser_ns : latest;
    if (deadline_ns && c->step_onset_ns) {
        /* by the server's clock the answer came this long after the
        ** step's onset at least; only lateness the server can tell
        ** overrides the stamp */
        int64_t earliest =
            c->step_onset_ns + (now_ns - c->step_ns) - SERVE_CLOCK_GRACE_NS;
        if (earliest >= deadline_ns && earliest > t) {
            t = earliest < latest ? earliest : latest;
        }
    }
    return t;
}
