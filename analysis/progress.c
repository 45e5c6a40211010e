/*
** Progress lines of simlab-analyze (progress.h): the caller's clock, stderr
** only when it is a terminal.
*/
#include "analysis/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BAR_WIDTH 30

static void draw(Progress *p, double share, const char *detail)
{
    char bar[BAR_WIDTH + 1];
    share = share < 0 ? 0 : share > 1 ? 1 : share;
    int filled = (int)(share * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[BAR_WIDTH] = '\0';
    /* the detail padded so that a shorter one overwrites a longer one */
    fprintf(p->out, "\r%-13s [%s] %3d %%  %-40.40s", p->label, bar,
            (int)(100 * share), detail ? detail : "");
    fflush(p->out);
}

void progress_begin_to(Progress *p, const SimWallClock *clock,
                       const char *label, FILE *out)
{
    memset(p, 0, sizeof *p);
    p->label = label;
    if (clock && clock->now_ms && out) {
        p->clock = clock;
        p->out = out;
        p->start_ms = clock->now_ms(clock->ctx);
    }
}

void progress_begin(Progress *p, const SimWallClock *clock, const char *label)
{
    progress_begin_to(p, clock, label, isatty(2) ? stderr : NULL);
}

void progress_set(Progress *p, double share, const char *detail)
{
    if (!p->clock) {
        return;
    }
    int64_t now = p->clock->now_ms(p->clock->ctx);
    if (now - p->start_ms < PROGRESS_AFTER_MS ||
        (p->shown && now - p->drawn_ms < 100)) {
        return;
    }
    draw(p, share, detail);
    p->shown = 1;
    p->drawn_ms = now;
}

void progress_end(Progress *p)
{
    if (p->shown) {
        char done[48];
        snprintf(done, sizeof done, "done in %.1f s",
                 1e-3 *
                     (double)(p->clock->now_ms(p->clock->ctx) - p->start_ms));
        draw(p, 1, done);
        fputc('\n', p->out);
    }
    p->shown = 0;
    p->clock = NULL;
}
