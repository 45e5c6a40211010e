/*
** simlab-analyze's progress lines on stderr: one line per stage that runs
** longer than 2 s ("mixed model   [##########..........]  52 %  full
** structure"), redrawn in place while the stage runs and ended at 100 %.
** The clock is the caller's (main.c's): without one, or when stderr is not
** a terminal, nothing is drawn. One thread updates a line.
*/
#ifndef SIMLAB_ANALYSIS_PROGRESS_H
#define SIMLAB_ANALYSIS_PROGRESS_H

#include <stdint.h>

#include "common/sim_clock.h"

#define PROGRESS_AFTER_MS 2000 /* a stage shorter than this draws nothing */

#include <stdio.h>

typedef struct Progress {
    const SimWallClock *clock; /* NULL: silent */
    FILE *out;                 /* stderr, or the test's stream */
    const char *label;
    int64_t start_ms, drawn_ms;
    int shown; /* the line is on the terminal */
} Progress;

/* Starts stage label (a static string); clock NULL or stderr not a
** terminal: p stays silent. */
void progress_begin(Progress *p, const SimWallClock *clock, const char *label);

/* As progress_begin, drawing on out whatever it is (out NULL: silent); for
** the tests. */
void progress_begin_to(Progress *p, const SimWallClock *clock,
                       const char *label, FILE *out);

/* The stage's share done (0..1) and what it is doing (may be NULL); drawn
** once the stage has run PROGRESS_AFTER_MS, then at most every 100 ms. */
void progress_set(Progress *p, double share, const char *detail);

/* Ends the stage: a line drawn is completed at 100 % with a newline. */
void progress_end(Progress *p);

#endif
