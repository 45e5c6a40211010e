/*
** Station settings: one small file per lab computer, station.conf, with
** "key = value" lines (# comments) -- the station's name and how its
** runner keeps time (rush, cpu) -- so that every `simlab run` and
** `simlab selftest` on it does the same without options. The command line
** overrides it. No SDL.
*/
#ifndef SIMLAB_APP_STATION_CONF_H
#define SIMLAB_APP_STATION_CONF_H

#include <stddef.h>

#include "common/sim_error.h"

typedef struct StationConf {
    char path[1024];  /* the file read, "" when there is none */
    char station[65]; /* station = NAME; "" unset */
    int rush;         /* rush = on|off: 1, 0; -1 unset */
    int cpu;          /* cpu = N: the CPU to run on; -1 unset */
    int cpu_line;     /* the line that set cpu, for messages */
} StationConf;

/* Empty settings: nothing set, no file. */
void station_conf_init(StationConf *c);

/* Reads text (the contents of the file path, for messages) into c, which
** station_conf_init prepared. Keys: station (letters, digits, - _ .),
** rush (on, off, yes, no, true, false, 1, 0), cpu (0 to 1023). Returns
** SIM_OK, or SIM_ERR_PARSE with err as "path:line: field 'key': problem"
** (c may then be partly set). */
int station_conf_parse(const char *path, const char *text, StationConf *c,
                       SimError *err);

/* The station's file: $SIMLAB_STATION_CONFIG when set (it must exist),
** else the first of $XDG_CONFIG_HOME/simlab/station.conf (or
** ~/.config/simlab/station.conf) and /etc/simlab/station.conf that
** exists. Reads it into c (c->path names it); none is no error. Returns
** SIM_OK, or an error naming the file (and line). */
int station_conf_load(StationConf *c, SimError *err);

/* What this station runs with: the command line's values over its file's,
** and the host name when neither names the station. */
typedef struct StationSettings {
    char station[65];
    int rush; /* 1: rush (app/rush.h) */
    int cpu;  /* the CPU to run on; -1: any */
} StationSettings;

/* Loads the station's file and settles out from it and the command line's
** cli_station (NULL: unset), cli_rush and cli_cpu (-1: unset). Returns 0,
** or -1 after printing why, prefixed with prog ("simlab run"): a bad
** file, a CPU this machine does not have. */
int station_settings(const char *prog, const char *cli_station, int cli_rush,
                     int cli_cpu, StationSettings *out);

#endif
