/*
** simlab-analyze on a PostgreSQL server (docs/multisite.md): the server's
** long_format view (the same columns as a station file's), its study
** definitions and its questionnaire answers are copied into a temporary
** SQLite file, which is then read exactly as a station file is, so that a
** server and the union of its station files give the same report.
*/
#ifndef SIMLAB_ANALYSIS_PG_SOURCE_H
#define SIMLAB_ANALYSIS_PG_SOURCE_H

#include "analysis/dataset.h"
#include "common/sim_error.h"

/* Copies the study definitions, the long_format rows and the questionnaire
** answers of the server at url into a new SQLite file at path (a study
** table, a long_format table, and answer, participant and trial tables
** with the columns the answer reader joins, values with their SQL types;
** a server without an answer table gives none). Errors name the server by
** its redacted URL. */
int pg_source_copy(const char *url, const char *path, SimError *err);

/* Appends the server's long_format rows and questionnaire answers to ds
** (dataset_load_db and questionnaire_load_db on a temporary copy, removed
** afterwards). */
int dataset_load_pg(Dataset *ds, const char *url, SimError *err);

#endif
