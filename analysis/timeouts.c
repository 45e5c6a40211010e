/*
** Answer deadlines and confidence: timeouts counted per condition and phase
** (a timeout is missing, not wrong: its row has no correctness, so every
** accuracy table leaves it out), and the confidence given with the answers
** per condition, overall and for right and wrong answers. Screened
** participants, catch trials left out. Appends the "timeouts" and
** "confidence" tables.
*/
#include <math.h>
#include <string.h>

#include "analysis/compute.h"
#include "common/sim_alloc.h"

static const TableColumn TIMEOUT_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"phase", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_trials", NULL, "trials", TABLE_INT, "trials", 0, 0, 0},
    {"n_timeouts", NULL, "timeouts", TABLE_INT, "trials", 0, 0, 0},
    {"rate", NULL, "rate", TABLE_PERCENT, "proportion", 1, 0, 0},
};

static const TableColumn CONF_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_responses", NULL, "responses", TABLE_INT, "trials", 0, 0, 0},
    {"mean", NULL, "mean", TABLE_REAL, "points", 2, 0, 0},
    {"n_correct", NULL, "right", TABLE_INT, "trials", 0, 0, 0},
    {"mean_correct", NULL, "mean (right)", TABLE_REAL, "points", 2, 0, 0},
    {"n_wrong", NULL, "wrong", TABLE_INT, "trials", 0, 0, 0},
    {"mean_wrong", NULL, "mean (wrong)", TABLE_REAL, "points", 2, 0, 0},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* Rows that count: screened participants, a known condition, no catch
** trial. */
static int counts(const Screen *sc, const DatasetResponse *row)
{
    return sc->keep[row->participant] && row->condition < sc->n_strings &&
           sc->cond_index[row->condition] >= 0 && !row->is_catch;
}

static Table *new_table(Report *r, const char *key, unsigned md,
                        const TableColumn *cols, int n, const char *title,
                        const char *note, SimError *err)
{
    Table *t = report_add_table(r, key, md | TABLE_CSV | TABLE_JSON, cols, n);
    if (!t || table_set_title(t, 2, title) != 0 ||
        table_set_note(t, "%s", note) != 0) {
        sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return t;
}

static int timeouts_table(const Dataset *ds, const Screen *sc, Report *r,
                          SimError *err)
{
    int C = sc->n_conds;
    size_t cells = (size_t)C * PHASE_COUNT;
    int *n = sim_calloc(cells + 1, sizeof *n);
    int *k = sim_calloc(cells + 1, sizeof *k);
    if (!n || !k) {
        sim_free(n);
        sim_free(k);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int any = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!counts(sc, row) || (row->correct < 0 && !row->timed_out) ||
            (int)row->phase >= PHASE_COUNT) {
            continue; /* nothing was asked that could time out */
        }
        size_t at = (size_t)sc->cond_index[row->condition] * PHASE_COUNT +
                    (size_t)row->phase;
        n[at]++;
        k[at] += row->timed_out;
        any |= row->timed_out;
    }
    Table *t = new_table(
        r, "timeouts", any ? TABLE_MD : 0, TIMEOUT_COLS, NCOLS(TIMEOUT_COLS),
        "Timeouts (answer deadlines)",
        "Trials whose answer deadline (time_limit_ms) passed, per condition "
        "and phase, of the trials that asked for an answer (catch trials "
        "left out). A timeout has no correctness: the accuracy tables count "
        "it as missing, not as wrong.",
        err);
    for (int c = 0; t && c < C; c++) {
        for (int p = 0; p < PHASE_COUNT; p++) {
            size_t at = (size_t)c * PHASE_COUNT + (size_t)p;
            if (n[at] == 0) {
                continue;
            }
            table_add_row(t);
            table_put_text(t, dataset_str(ds, sc->conds[c]));
            table_put_text(t, dataset_phase_name(p));
            table_put_num(t, n[at]);
            table_put_num(t, k[at]);
            table_put_num(t, (double)k[at] / n[at]);
        }
    }
    sim_free(n);
    sim_free(k);
    return t ? SIM_OK : err->code;
}

static int confidence_table(const Dataset *ds, const Screen *sc, Report *r,
                            SimError *err)
{
    int C = sc->n_conds;
    /* per condition: n, sum for all, right (1) and wrong (0) answers */
    double *sum = sim_calloc(3 * (size_t)C + 1, sizeof *sum);
    int *n = sim_calloc(3 * (size_t)C + 1, sizeof *n);
    if (!sum || !n) {
        sim_free(sum);
        sim_free(n);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int any = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!counts(sc, row) || row->confidence <= 0) {
            continue;
        }
        size_t c = (size_t)sc->cond_index[row->condition];
        any = 1;
        sum[3 * c] += row->confidence;
        n[3 * c]++;
        if (row->correct >= 0) {
            size_t at = 3 * c + (row->correct ? 1 : 2);
            sum[at] += row->confidence;
            n[at]++;
        }
    }
    Table *t = new_table(
        r, "confidence", any ? TABLE_MD : 0, CONF_COLS, NCOLS(CONF_COLS),
        "Confidence",
        "The confidence given with the answers (the block's scale, 1 = its "
        "low end), pooled over the responses of each condition (catch "
        "trials left out): the mean over all of them, and over the right "
        "and the wrong answers.",
        err);
    for (int c = 0; t && c < C; c++) {
        size_t b = 3 * (size_t)c;
        if (n[b] == 0) {
            continue;
        }
        table_add_row(t);
        table_put_text(t, dataset_str(ds, sc->conds[c]));
        for (size_t j = b; j < b + 3; j++) {
            table_put_num(t, n[j]);
            table_put_num(t, n[j] ? sum[j] / n[j] : NAN);
        }
    }
    sim_free(sum);
    sim_free(n);
    return t ? SIM_OK : err->code;
}

int compute_timeouts(const Dataset *ds, const Screen *sc, Report *r,
                     SimError *err)
{
    int rc = timeouts_table(ds, sc, r, err);
    return rc == SIM_OK ? confidence_table(ds, sc, r, err) : rc;
}
