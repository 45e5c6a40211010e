/*
** Export of a study database to simlab long format v1 (CSV, RFC 4180) and
** its JSON sidecar, made safe against the mistakes a lab can make: the
** database is never the output, files are replaced whole, and cells that a
** spreadsheet would run as formulas are neutralised. Plain C: SQLite,
** libcsv quoting rules, jansson.
*/
#ifndef SIMLAB_EXPERIMENT_EXPORT_H
#define SIMLAB_EXPERIMENT_EXPORT_H

#include "common/sim_error.h"

typedef struct ExportOptions {
    int raw; /* 1: cells exactly as stored (no ' before =, +, -, @, tab, CR) */
} ExportOptions;

/* Writes the long-format CSV of the database at db_path to csv_path and the
** sidecar to csv_path + ".json" (unless csv_path is "-": stdout, no
** sidecar). opt may be NULL (spreadsheet-safe cells).
**
** Refuses (SIM_ERR_USAGE, nothing written) a csv_path or sidecar path that
** is the database, its -wal, -shm or -journal file, or any existing SQLite
** file, also through symbolic links, other spellings or hard links. Each
** file is written to a temporary file in its destination's folder, synced
** and renamed into place: first the old sidecar is removed, then the CSV is
** renamed, then the new sidecar (with "rows" and "sha256" of the CSV's
** bytes). Interrupted at any point, a reader finds either the old CSV and
** its old sidecar, a CSV without a sidecar (an unfinished export: export
** again), or the new pair; never a sidecar that describes another CSV.
** Returns SIM_OK or an error naming the file; on error, temporary files are
** removed. */
int export_long_csv_opt(const char *db_path, const char *csv_path,
                        const ExportOptions *opt, SimError *err);

/* When the database holds questionnaire steps, export_long_csv_opt() also
** writes their answers to X.questionnaire.csv beside X.csv (X = csv_path
** without ".csv"): participant, condition, station, block, question, type,
** value, rt_ms, one row per answered question, cells guarded the same way,
** written to a temporary file, synced and renamed into place after the CSV
** and before the sidecar, whose "questionnaire" object names it with its
** "rows" and "sha256". This returns that path (sim_free), NULL when out of
** memory. */
char *export_questionnaire_path(const char *csv_path);

/* When the database holds interactions with explanations (reveals, hides
** and hovers, experiment/interaction.h), they go to X.interactions.csv the
** same way, one row per event, with the columns interaction.h defines;
** the sidecar's "interactions" object names the file, its "rows",
** "sha256" and "columns" (name and description). This returns that path
** (sim_free), NULL when out of memory. */
char *export_interactions_path(const char *csv_path);

/* export_long_csv_opt() with the default options. */
int export_long_csv(const char *db_path, const char *csv_path, SimError *err);

/* 1 if the export neutralises the text cell v: it starts with =, +, -, @,
** tab or CR and is not a plain decimal number such as "-1" or "+2.5". */
int export_cell_needs_guard(const char *v);

/* Station names (--station) are exported as they are, so they must be
** harmless everywhere: 1 to EXPORT_STATION_NAME_MAX characters from
** EXPORT_STATION_NAME_SET, the first a letter or digit. Returns 1 if name
** follows the rule. */
#define EXPORT_STATION_NAME_MAX 64
#define EXPORT_STATION_NAME_SET                                                \
    "letters A-Z a-z, digits 0-9, '-', '_' and '.' (first a letter or "        \
    "digit, at most 64 characters)"
int export_station_name_valid(const char *name);

#endif
