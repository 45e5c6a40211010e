/*
** Options of `simlab run`: the command line read into a RunOptions.
** No SDL, no I/O beyond the usage message.
*/
#ifndef SIMLAB_APP_RUN_OPTIONS_H
#define SIMLAB_APP_RUN_OPTIONS_H

#include <stdint.h>

typedef struct RunOptions {
    const char *dir;     /* study bundle */
    const char *db;      /* database, or NULL for simlab-data/<id>.db */
    const char *station; /* station name, or NULL for the host name */
    int windowed;
    int display;
    int width, height; /* window size, points (0: default) */
    float font_scale;
    int vsync;
    const char *autopilot; /* policy name, or NULL */
    int participants;      /* autopilot: complete participants wanted */
    uint64_t seed;         /* autopilot */
    const char *screenshot_dir;
    int chaos;              /* autopilot also tries to escape and cheat */
    const char *timing_log; /* benchmark records */
    int exit_after;         /* leave after this many finished runs (bench) */
    int accept_changed;     /* continue a database recorded with an older
                               version of the bundle */
} RunOptions;

/* Reads argv[1..argc) (argv[0] is "run") into o, defaults first. Returns 0;
** -1 after printing the problem and the usage to stderr. Strings in o are
** borrowed from argv. */
int run_options_parse(int argc, char **argv, RunOptions *o);

#endif
