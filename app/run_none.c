/*
** `simlab run` in a build without SDL2 (SIMLAB_WITH_SDL=OFF, or the SDL2
** development packages were not found): says so and fails. Stands in for
** run.c so that the command dispatcher needs no SDL either way.
*/
#include "app/app.h"

#include <stdio.h>

int app_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("simlab run: this build of simlab has no runner: it was built "
          "without SDL2\n"
          "(install the sdl2, SDL2_image and SDL2_ttf development packages "
          "and configure\n"
          "again with -DSIMLAB_WITH_SDL=AUTO or ON). check, simulate and "
          "export work.\n",
          stderr);
    return 1;
}

void app_check_layout(const Study *st, SimBuf *lines, StudyReport *rep)
{
    (void)st;
    (void)lines;
    (void)rep;
}

int app_selftest(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("simlab selftest: this build of simlab has no runner: it was "
          "built without SDL2\n",
          stderr);
    return 1;
}
