/*
** The rows of a Dataset written as a simlab store: the engine's own schema
** (store_open with a study bundle), then participants, steps and responses
** as the engine records them (two unscored steps without a phase before
** each participant's rows, one step per row, the responses done). For the
** SQLite benchmark and the tests that compare the store's two readers.
*/
#ifndef SIMLAB_BENCH_ANALYSIS_STOREWRITE_H
#define SIMLAB_BENCH_ANALYSIS_STOREWRITE_H

#include "analysis/dataset.h"

/* Writes ds into a new store at path (an existing file is replaced) whose
** study is the bundle at bundle_dir; when points > 0, its definition
** states a points-point rating scale. Participants are created in the
** order of ds. Returns SIM_OK or an error in err. */
int storewrite_dataset(const Dataset *ds, const char *bundle_dir,
                       const char *path, int points, SimError *err);

#endif
