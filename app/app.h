/*
** The SDL2 runner: `simlab run`. Only app/ includes SDL.
*/
#ifndef SIMLAB_APP_APP_H
#define SIMLAB_APP_APP_H

/* Runs `simlab run DIR [options]`; argv[0] is "run". Returns the exit
** status. */
int app_run(int argc, char **argv);

#endif
