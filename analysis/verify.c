/*
** Detecting the model's errors: per condition, on the verify trials of the
** screened participants (catch and practice trials left out), accuracy, the hit
*rate
** (rejecting a wrong prediction), the false-alarm rate (rejecting a right
** one), d' and the criterion, and the AUROC of the answer with its
** confidence for the model's correctness, each with a crossed participant
** x item bootstrap interval. Appends the "error_detection" table.
*/
#include "analysis/verify.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

/* The score levels of a verify answer with its confidence k (1..11): 0
** without confidence; a rejection 12 - k (1..11), an acceptance 11 + k
** (12..22): how sure the participant is that the model is right. */
#define SCORE_LEVELS 23
#define N_STATS      6 /* accuracy, H, F, d', c, AUROC */

void verify_sdt(double hits, double n_wrong, double false_alarms,
                double n_right, double *d_prime, double *criterion)
{
    if (!(n_wrong > 0) || !(n_right > 0)) {
        *d_prime = *criterion = NAN;
        return;
    }
    double zh = gsl_cdf_ugaussian_Pinv((hits + 0.5) / (n_wrong + 1));
    double zf = gsl_cdf_ugaussian_Pinv((false_alarms + 0.5) / (n_right + 1));
    *d_prime = zh - zf;
    *criterion = -(zh + zf) / 2;
}

double verify_auroc(const double *hi, const double *lo, int n)
{
    double nh = 0, nl = 0, below = 0, u = 0;
    for (int k = 0; k < n; k++) {
        nh += hi[k];
        nl += lo[k];
    }
    if (!(nh > 0) || !(nl > 0)) {
        return NAN;
    }
    for (int k = 0; k < n; k++) { /* below: lo's weight under level k */
        u += hi[k] * (below + lo[k] / 2);
        below += lo[k];
    }
    return u / (nh * nl);
}

/* The six statistics of one condition from its cells [mc * 23 + level]. */
static void cond_stats(const double *n, const double *rej, const double *cor,
                       double *out)
{
    double nw = 0, nr = 0, hits = 0, fas = 0, ok = 0;
    double right[SCORE_LEVELS - 1], wrong[SCORE_LEVELS - 1];
    for (int k = 0; k < SCORE_LEVELS; k++) {
        nw += n[k];
        nr += n[SCORE_LEVELS + k];
        hits += rej[k];
        fas += rej[SCORE_LEVELS + k];
        ok += cor[k] + cor[SCORE_LEVELS + k];
        if (k > 0) {
            wrong[k - 1] = n[k];
            right[k - 1] = n[SCORE_LEVELS + k];
        }
    }
    out[0] = nw + nr > 0 ? ok / (nw + nr) : NAN;
    out[1] = nw > 0 ? hits / nw : NAN;
    out[2] = nr > 0 ? fas / nr : NAN;
    verify_sdt(hits, nw, fas, nr, &out[3], &out[4]);
    out[5] = verify_auroc(right, wrong, SCORE_LEVELS - 1);
}

typedef struct VerifyCtx {
    int n_conds;
} VerifyCtx;

static void verify_stat(const void *vctx, const BootSums *sums, void *scratch,
                        double *out)
{
    (void)scratch;
    const VerifyCtx *x = vctx;
    for (int c = 0; c < x->n_conds; c++) {
        size_t at = (size_t)c * 2 * SCORE_LEVELS;
        cond_stats(sums->n + at, sums->sa + at, sums->sb + at,
                   out + (size_t)c * N_STATS);
    }
}

/* The accumulation cell of a verify answer, or -1 when it does not count. */
static int verify_cell(const DatasetResponse *row, const DatasetTrial *t)
{
    if (row->correct < 0 || t->model_correct < 0 || t->verdict == 0) {
        return -1;
    }
    int k = (int)row->confidence, level = 0;
    if (k > 0) {
        level = t->verdict == DATASET_ACCEPT ? 11 + k : 12 - k;
    }
    return t->model_correct * SCORE_LEVELS + level;
}

static const TableColumn ED_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "N", TABLE_INT, "participants", 0, 0, 0},
    {"n_right", NULL, "right", TABLE_INT, "trials", 0, 0, 0},
    {"n_wrong", NULL, "wrong", TABLE_INT, "trials", 0, 0, 0},
    {"accuracy", NULL, "accuracy", TABLE_PERCENT, "proportion", 1, 0, 0},
    {"accuracy_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion", 1, 0,
     0},
    {"hit_rate", NULL, "hits", TABLE_PERCENT, "proportion", 1, 0, 0},
    {"hit_rate_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion", 1, 0,
     0},
    {"false_alarm_rate", NULL, "false alarms", TABLE_PERCENT, "proportion", 1,
     0, 0},
    {"false_alarm_rate_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL,
     "proportion", 1, 0, 0},
    {"d_prime", NULL, "d'", TABLE_REAL, "z", 2, 0, 0},
    {"d_prime_ci", NULL, "95 % CI", TABLE_INTERVAL, "z", 2, 0, 0},
    {"criterion", NULL, "c", TABLE_REAL, "z", 2, TABLE_SIGNED, 0},
    {"criterion_ci", NULL, "95 % CI", TABLE_INTERVAL, "z", 2, 0, 0},
    {"n_confidence", NULL, "with confidence", TABLE_INT, "trials", 0, 0, 0},
    {"auroc", NULL, "AUROC", TABLE_REAL, "probability", 3, 0, 0},
    {"auroc_ci", NULL, "95 % CI", TABLE_INTERVAL, "probability", 3, 0, 0},
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static const char ED_NOTE[] =
    "Verify trials (\"is the model right?\"), catch and practice trials left "
    "out, "
    "pooled over the responses of each condition. A hit is rejecting a "
    "wrong prediction, a false alarm rejecting a right one: hit rate H = "
    "P(reject | model wrong), false-alarm rate F = P(reject | model right). "
    "d' = z(H) - z(F) and the criterion c = -(z(H) + z(F)) / 2 (z: the "
    "standard normal quantile; c > 0 leans towards accepting) use the "
    "log-linear correction of every count (Hautus 1995): H = (hits + 0.5) / "
    "(wrong + 1), F = (false alarms + 0.5) / (right + 1), so rates of 0 and "
    "1 stay finite; the hit and false-alarm rates shown are uncorrected. "
    "AUROC: the answer and its confidence k read as one score of how sure "
    "the participant is that the model is right (accept: +k, reject: -k); "
    "AUROC = P(score on a right prediction > score on a wrong one) + "
    "P(tie) / 2, the Mann-Whitney U / (right x wrong) over the trials with "
    "a confidence (0.5: no better than chance, 1: every right prediction "
    "scored above every wrong one). Intervals: 95 % percentile intervals of "
    "the crossed participant x item bootstrap.";

static int ed_table(Report *r, const char *const *names, const int *np,
                    const int *counts, const double *full, const double *reps,
                    int C, int B, SimError *err)
{
    Table *t = report_add_table(r, "error_detection", TABLE_ALL, ED_COLS,
                                NCOLS(ED_COLS));
    if (!t || table_set_title(t, 2, "Detecting the model's errors") != 0 ||
        table_set_note(t, "%s", ED_NOTE) != 0 ||
        table_set_caption(t, "Detecting the model's errors on verify trials: "
                             "hit and false-alarm rates, $d'$, criterion "
                             "and AUROC with 95\\,\\% crossed-bootstrap "
                             "intervals.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    double *tmp = sim_malloc(((size_t)B + 1) * sizeof *tmp);
    if (!tmp) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        if (counts[3 * c] + counts[3 * c + 1] == 0) {
            continue;
        }
        if (table_add_row(t) != 0) {
            sim_free(tmp);
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        table_put_text(t, names[c]);
        table_put_num(t, np[c]);
        table_put_num(t, counts[3 * c + 1]);
        table_put_num(t, counts[3 * c]);
        for (int m = 0; m < N_STATS; m++) {
            if (m == 5) {
                table_put_num(t, counts[3 * c + 2]);
            }
            table_put_num(t, full[c * N_STATS + m]);
            Summary s = {NAN, NAN, NAN, NAN, 0};
            if (B > 0) {
                summarise(reps, B, C * N_STATS, c * N_STATS + m, 0.0, 0, 0, tmp,
                          &s);
            }
            table_put_interval(t, s.lo, s.hi);
        }
    }
    sim_free(tmp);
    return SIM_OK;
}

int compute_error_detection(const Dataset *ds, const AnalyzeOptions *o,
                            const Screen *sc, Report *r, SimError *err)
{
    int vid = dataset_find(ds, "verify");
    if (vid < 0 || !ds->trials) {
        return SIM_OK;
    }
    int C = sc->n_conds, rc = SIM_OK;
    Design x;
    design_init(&x);
    int *counts = sim_calloc((size_t)C * 3 + 1, sizeof *counts);
    int *np = sim_calloc((size_t)C + 1, sizeof *np);
    unsigned char *seen =
        sim_calloc((size_t)ds->n_participants * (size_t)C + 1, 1);
    const char **names = sim_calloc((size_t)C + 1, sizeof *names);
    double *full = sim_calloc((size_t)C * N_STATS + 1, sizeof *full);
    double *reps = NULL;
    if (!counts || !np || !seen || !names || !full) {
        goto nomem;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        DatasetTrial tr = ds->trials[i];
        int cell = verify_cell(row, &tr);
        if (!design_scored(sc, row) || dataset_test_type(ds, row) != vid ||
            cell < 0) {
            continue;
        }
        int c = sc->cond_index[row->condition];
        counts[3 * c + tr.model_correct]++;
        counts[3 * c + 2] += row->confidence > 0;
        size_t at = (size_t)row->participant * (size_t)C + (size_t)c;
        np[c] += !seen[at];
        seen[at] = 1;
        if (design_push(&x, row->participant, c,
                        compute_key2(row->item,
                                     dataset_domain(ds, row) * 8 + row->phase),
                        0, cell, tr.verdict == DATASET_REJECT,
                        row->correct == 1) < 0) {
            goto nomem;
        }
    }
    if (x.n_raw == 0) {
        goto cleanup;
    }
    if ((rc = design_finish(&x, C, 2 * SCORE_LEVELS, 1, o, NULL, 0, err))) {
        goto cleanup;
    }
    /* strata are the conditions: each participant answers both kinds of
    ** prediction at their own confidence levels */
    for (int u = 0; u < x.n_units; u++) {
        x.unit_stratum[u] = x.unit_cond[u];
    }
    x.d.n_strata = C;
    VerifyCtx ctx = {C};
    BootRun run = design_run(
        o, sim_mix64(o->seed ^ sim_hash_str("error_detection")), "verify");
    run.stat = verify_stat;
    run.ctx = &ctx;
    run.n_stats = C * N_STATS;
    int B = o->replicates;
    if ((rc = boot_full(&x.d, &run, full, err)) ||
        (B > 0 && (rc = boot_run(&x.d, &run, &reps, err)))) {
        goto cleanup;
    }
    for (int c = 0; c < C; c++) {
        names[c] = dataset_str(ds, sc->conds[c]);
    }
    rc = ed_table(r, names, np, counts, full, reps, C, B, err);
    if (rc == SIM_OK && ds->verify_classes != 2) {
        Table *t = report_table(r, "error_detection");
        if (table_set_after(
                t, "%s",
                ds->verify_classes == 0
                    ? "The verify trials have no label and model_output: "
                      "whether their task is binary is unknown, so the team "
                      "table does not read them as team decisions."
                    : "The task has more than two classes: rejecting a "
                      "prediction names no final answer, so the team table "
                      "does not read these trials as team decisions.") != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    sim_free(counts);
    sim_free(np);
    sim_free(seen);
    sim_free(names);
    sim_free(full);
    sim_free(reps);
    design_free(&x);
    return rc;
}
