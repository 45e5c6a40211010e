/*
** Options of `simlab run`: the command line read into a RunOptions.
** No SDL, no I/O beyond the usage message.
*/
#ifndef SIMLAB_APP_RUN_OPTIONS_H
#define SIMLAB_APP_RUN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct RunOptions {
    const char *dir;     /* study bundle */
    const char *db;      /* database, or NULL for simlab-data/<id>.db */
    const char *station; /* station name (export_station_name_valid), or
                            NULL for the host name */
    int windowed;
    int display;
    int width, height; /* window size, points (0: default) */
    float font_scale;
    int vsync;
    const char *autopilot; /* policy name, or NULL */
    int participants;      /* autopilot: complete participants wanted */
    uint64_t seed;         /* autopilot */
    const char *screenshot_dir;
    int shot_per_condition; /* --screenshot-one-per-condition: one fresh
                               autopilot participant per condition
                               (implies --autopilot, default model) */
    int chaos;              /* autopilot also tries to escape and cheat */
    const char *timing_log; /* benchmark records */
    int exit_after;         /* leave after this many finished runs (bench) */
    int accept_changed;     /* continue a database recorded with an older
                               version of the bundle */
    const char *sync_url;   /* --sync: PostgreSQL server to assign on and
                               push to (experiment/sync.h), or NULL */
    int rush;               /* --rush 1, --no-rush 0, -1 not given (the
                               station.conf decides, app/rush.h) */
    int cpu;                /* --cpu N, -1 not given */
    int texture_budget_mb;  /* --texture-budget MB; 0 = the default */
} RunOptions;

/* Reads argv[1..argc) (argv[0] is "run") into o, defaults first. Returns 0;
** -1 after printing the problem and the usage to stderr. Strings in o are
** borrowed from argv. */
int run_options_parse(int argc, char **argv, RunOptions *o);

/* The other files a run writes — screenshots (--screenshot-dir) and the
** timing log (--timing-log) — must lie outside the study bundle o->dir for
** the same reason as the database. Returns 0, or -1 after printing which
** option names a path inside the bundle to stderr. */
int run_options_outputs(const RunOptions *o);

/* Where the database goes: o->db, or by default simlab-data/<study_id>.db
** in the current folder (written to buf, size bytes, and set as o->db).
** Either way a database inside the study bundle o->dir is refused: it would
** change the bundle's hash, so the next start would be refused as a
** changed bundle. Returns 0, or -1 after printing the problem and a --db to
** use instead to stderr. */
int run_options_database(RunOptions *o, const char *study_id, char *buf,
                         size_t size);

#endif
