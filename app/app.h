/*
** The SDL2 runner: `simlab run`. Only app/ includes SDL.
*/
#ifndef SIMLAB_APP_APP_H
#define SIMLAB_APP_APP_H

/* Runs `simlab run DIR [options]`; argv[0] is "run". Returns the exit
** status. */
int app_run(int argc, char **argv);

/* Runs `simlab selftest [DIR] [options]` (app/selftest.c): this station's
** display and input timing, written as selftest.md and selftest.json and,
** with --db, stored in the study's database. argv[0] is "selftest".
** Returns the exit status. */
int app_selftest(int argc, char **argv);

#endif
