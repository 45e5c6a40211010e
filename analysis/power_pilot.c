/*
** simlab power's pilot data (power.h): the raw Pre and Post accuracy of
** each condition in pilot databases, read with simlab-analyze's reader
** (non-excluded participants, catch trials left out). The caller turns them
** into the simulation's truth.
*/
#include "analysis/dataset.h"
#include "analysis/power.h"
#include "common/sim_alloc.h"

#include <math.h>
#include <string.h>

int power_read_pilots(const char *const *dbs, int n_dbs,
                      const char *const *conds, int n_conds,
                      const char *study_id, double *pre, double *post,
                      int *pre_n, int *post_n, int *participants, SimError *err)
{
    Dataset *ds = NULL;
    int rc = dataset_new(&ds, err);
    for (int i = 0; rc == SIM_OK && i < n_dbs; i++) {
        rc = dataset_load_db(ds, dbs[i], err);
    }
    int C = n_conds;
    int *right = sim_calloc((size_t)(2 * C) + 1, sizeof(int));
    int *seen =
        ds ? sim_calloc((size_t)ds->n_participants + 1, sizeof(int)) : NULL;
    if (rc == SIM_OK && (!right || !seen)) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        pre_n[c] = post_n[c] = participants[c] = 0;
    }
    int used = 0;
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        const Participant *pt = &ds->participants[row->participant];
        if ((row->phase != PHASE_PRE && row->phase != PHASE_POST) ||
            row->correct < 0 || row->is_catch || pt->excluded) {
            continue;
        }
        const char *cond = dataset_str(ds, row->condition);
        int c = 0;
        while (c < C && strcmp(conds[c], cond) != 0) {
            c++;
        }
        if (c == C) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "--pilot %s: condition '%s' of the pilot is not a "
                          "condition of study '%s'",
                          dbs[0], cond, study_id);
            break;
        }
        int is_post = row->phase == PHASE_POST;
        *(is_post ? &post_n[c] : &pre_n[c]) += 1;
        right[2 * c + is_post] += row->correct;
        if (!seen[row->participant]) {
            seen[row->participant] = 1;
            participants[c]++;
        }
        used++;
    }
    if (rc == SIM_OK && used == 0) {
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "--pilot %s: no Pre or Post responses of non-excluded "
                      "participants (an empty pilot database?)",
                      dbs[0]);
    }
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        pre[c] = pre_n[c] > 0 ? (double)right[2 * c] / pre_n[c] : NAN;
        post[c] = post_n[c] > 0 ? (double)right[2 * c + 1] / post_n[c] : NAN;
    }
    sim_free(right);
    sim_free(seen);
    dataset_free(ds);
    return rc;
}
