/*
** app/ is the simlab program: its command dispatcher (main.c), the SDL2
** runner `simlab run` and its screens, the self-test, `simlab power`'s and
** `simlab sync`'s commands, and simlab-preview. Only app/ includes SDL.
** `simlab serve` lives in serve/ (no SDL); both draw the session's view
** (experiment/), and neither decides what a screen shows.
*/
#ifndef SIMLAB_APP_APP_H
#define SIMLAB_APP_APP_H

#include <stdio.h>

#include "common/sim_text.h"
#include "stimuli/study.h"

/* Runs `simlab run DIR [options]`; argv[0] is "run". Returns the exit
** status. */
int app_run(int argc, char **argv);

/* Runs `simlab selftest [DIR] [options]` (app/selftest.c): this station's
** display and input timing, written as selftest.md and selftest.json and,
** with --db, stored in the study's database. argv[0] is "selftest".
** Returns the exit status. */
int app_selftest(int argc, char **argv);

/* `simlab check`'s layout report (app/layout_check.c, a CheckLayoutFn): the
** item screens of a valid study laid out without a window at 1280x720 and
** 1920x1080, the explanation area and the reservoir as every condition
** gets them, appended to lines, and a warning in rep for what must scroll
** (a build without SDL2 adds nothing). */
void app_check_layout(const Study *st, SimBuf *lines, StudyReport *rep);

#endif
