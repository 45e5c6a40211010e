/*
** Participant accuracy per condition and phase: each participant's accuracy
** on the answered trials of a phase (catch trials and practice excluded),
** then per condition the mean, SD, SE and the 95 % t interval of the mean
** (R: t.test(acc)$conf.int). Fills Report.accuracy and appends its table.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"

static const TableColumn ACCURACY_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"phase", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "users", TABLE_INT, "participants", 0, 0, 0},
    {"mean", NULL, NULL, TABLE_PERCENT, "", 1, 0, 0},
    {"sd", NULL, "SD", TABLE_PERCENT, "", 1, 0, 0},
    {"se", NULL, "SE", TABLE_PERCENT, "", 1, 0, 0},
    {"t", NULL, "t CI", TABLE_PERCENT_INTERVAL, "", 1, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static int accuracy_table(Report *r, SimError *err)
{
    unsigned md = r->n_accuracy > 0 ? TABLE_MD | TABLE_TEX : 0;
    Table *t = report_add_table(r, "accuracy", md | TABLE_CSV | TABLE_JSON,
                                ACCURACY_COLS, N_COLS(ACCURACY_COLS));
    if (!t || table_set_title(t, 2, "Participant accuracy") != 0 ||
        table_set_note(t, "%s",
                       "Per condition and phase: each participant's accuracy "
                       "on the trials they answered (catch trials and "
                       "practice excluded), then the mean of those "
                       "accuracies, their SD, SE = SD / sqrt(users) and the "
                       "95 % t interval of the mean (mean +/- t(0.975, "
                       "users - 1) SE). Accuracies in %.") != 0 ||
        table_set_caption(t, "Participant accuracy (\\%) per condition and "
                             "phase: mean, SD, SE and 95\\% $t$ interval of "
                             "the mean.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < r->n_accuracy; i++) {
        const AccuracyRow *a = &r->accuracy[i];
        table_add_row(t);
        table_put_text(t, a->condition);
        table_put_text(t, a->phase);
        table_put_num(t, a->n_participants);
        table_put_num(t, a->mean);
        table_put_num(t, a->sd);
        table_put_num(t, a->se);
        table_put_interval(t, a->t_low, a->t_high);
    }
    return SIM_OK;
}

/* Mean, SD, SE and t interval of y[0..n) into a. */
static void summarise_accuracies(const double *y, int n, AccuracyRow *a)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        sum += y[i];
    }
    double mean = sum / n;
    for (int i = 0; i < n; i++) {
        sq += (y[i] - mean) * (y[i] - mean);
    }
    a->n_participants = n;
    a->mean = mean;
    a->sd = n > 1 ? sqrt(sq / (n - 1)) : NAN;
    a->se = n > 1 ? a->sd / sqrt((double)n) : NAN;
    double q = n > 1 ? gsl_cdf_tdist_Qinv(0.025, n - 1.0) : NAN;
    a->t_low = n > 1 ? mean - q * a->se : NAN;
    a->t_high = n > 1 ? mean + q * a->se : NAN;
}

int compute_accuracy(const Dataset *ds, const Screen *sc, Report *r,
                     SimError *err)
{
    /* units: (participant, condition), each with per-phase sums */
    KeyMap units = {0};
    int C = sc->n_conds, n_units = 0, rc = SIM_OK;
    size_t cap_s = 0, cap_n = 0, cap_c = 0;
    double *s = NULL, *n = NULL, *y = NULL;
    int *cond = NULL;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_counts(sc, row) || row->correct < 0 ||
            row->phase == PHASE_PRACTICE) {
            continue;
        }
        int c = sc->cond_index[row->condition], added;
        int u = keymap_get(&units, compute_key2(row->participant, c), n_units,
                           &added);
        if (u < 0) {
            goto nomem;
        }
        if (added) {
            size_t want = (size_t)n_units + 1;
            if (sim_grow((void **)&s, &cap_s, want * PHASE_COUNT,
                         sizeof(double)) != 0 ||
                sim_grow((void **)&n, &cap_n, want * PHASE_COUNT,
                         sizeof(double)) != 0 ||
                sim_grow((void **)&cond, &cap_c, want, sizeof(int)) != 0) {
                goto nomem;
            }
            memset(s + (size_t)u * PHASE_COUNT, 0, PHASE_COUNT * sizeof *s);
            memset(n + (size_t)u * PHASE_COUNT, 0, PHASE_COUNT * sizeof *n);
            cond[u] = c;
            n_units++;
        }
        s[(size_t)u * PHASE_COUNT + (size_t)row->phase] += row->correct;
        n[(size_t)u * PHASE_COUNT + (size_t)row->phase] += 1;
    }
    if (n_units > 0) {
        y = sim_malloc((size_t)n_units * sizeof *y);
        r->accuracy = sim_calloc((size_t)C * PHASE_COUNT, sizeof *r->accuracy);
        if (!y || !r->accuracy) {
            goto nomem;
        }
    }
    for (int c = 0; c < C && n_units > 0; c++) {
        for (int ph = 0; ph < PHASE_COUNT; ph++) {
            int m = 0;
            for (int u = 0; u < n_units; u++) {
                size_t at = (size_t)u * PHASE_COUNT + (size_t)ph;
                if (cond[u] == c && n[at] > 0) {
                    y[m++] = s[at] / n[at];
                }
            }
            if (m == 0) {
                continue;
            }
            AccuracyRow *a = &r->accuracy[r->n_accuracy++];
            snprintf(a->condition, sizeof a->condition, "%s",
                     dataset_str(ds, sc->conds[c]));
            a->phase = dataset_phase_name(ph);
            summarise_accuracies(y, m, a);
        }
    }
    rc = accuracy_table(r, err);
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    keymap_free(&units);
    sim_free(s);
    sim_free(n);
    sim_free(y);
    sim_free(cond);
    return rc;
}
