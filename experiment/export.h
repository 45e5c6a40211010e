/*
** Export of a study database to simlab long format v1 (CSV, RFC 4180) and
** its JSON sidecar. Plain C: SQLite, libcsv quoting rules, jansson.
*/
#ifndef SIMLAB_EXPERIMENT_EXPORT_H
#define SIMLAB_EXPERIMENT_EXPORT_H

#include "common/sim_error.h"

/* Writes the long-format CSV of the database at db_path to csv_path and the
** sidecar to csv_path + ".json" (unless csv_path is "-": stdout, no
** sidecar). Returns SIM_OK or an error naming the file. */
int export_long_csv(const char *db_path, const char *csv_path, SimError *err);

#endif
