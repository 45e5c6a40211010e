/*
** The human-AI team and HIVE's distinction task, per condition, on the
** screened participants' answers (catch and practice trials left out), with
*crossed
** participant x item bootstrap intervals: "team" -- decide trials with the
** model's advice, and binary verify trials read as team decisions, against
** the model alone and the humans alone (decide trials without advice) --
** and "distinction" -- accuracy on trials with per-item answer options,
** with the chance level 1 / options.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#define NCOLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* Team cells: decide with advice, decide without, verify (binary). */
enum { CELL_ADVICE, CELL_ALONE, CELL_VERIFY, N_CELLS };
#define T_STATS 8 /* per condition and kind (decide, verify): see team_stat */

typedef struct TeamCtx {
    int n_conds;
} TeamCtx;

static double ratio(double a, double b)
{
    return b > 0 ? a / b : NAN;
}

/* out[(c * 2 + kind) * 4 + m], m: team, model, team - model,
** team - max(model, humans); out[C * T_STATS]: the humans alone (decide
** trials without advice, pooled over the conditions). */
static void team_stat(const void *vctx, const BootSums *s, void *scratch,
                      double *out)
{
    (void)scratch;
    const TeamCtx *x = vctx;
    int C = x->n_conds;
    double an = 0, ay = 0;
    for (int c = 0; c < C; c++) {
        an += s->n[c * N_CELLS + CELL_ALONE];
        ay += s->sa[c * N_CELLS + CELL_ALONE];
    }
    double human = ratio(ay, an);
    out[C * T_STATS] = human;
    for (int c = 0; c < C; c++) {
        for (int kind = 0; kind < 2; kind++) {
            int cell = kind ? CELL_VERIFY : CELL_ADVICE;
            double n = s->n[c * N_CELLS + cell];
            double team = ratio(s->sa[c * N_CELLS + cell], n);
            double model = ratio(s->sb[c * N_CELLS + cell], n);
            double *o = out + (c * 2 + kind) * 4;
            o[0] = team;
            o[1] = model;
            o[2] = team - model;
            o[3] = isnan(human) ? NAN : team - fmax(model, human);
        }
    }
}

static const TableColumn TEAM_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"blocks", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "N", TABLE_INT, "participants", 0, 0, 0},
    {"n_responses", NULL, "trials", TABLE_INT, "trials", 0, 0, 0},
    {"team_accuracy", NULL, "team", TABLE_PERCENT, "proportion", 1, 0, 0},
    {"team_accuracy_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion",
     1, 0, 0},
    {"model_accuracy", NULL, "model alone", TABLE_PERCENT, "proportion", 1, 0,
     0},
    {"model_accuracy_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion",
     1, 0, 0},
    {"human_accuracy", NULL, "humans alone", TABLE_PERCENT, "proportion", 1, 0,
     0},
    {"human_accuracy_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion",
     1, 0, 0},
    {"team_minus_model", NULL, "team - model", TABLE_PERCENT, "proportion", 1,
     TABLE_SIGNED, 0},
    {"team_minus_model_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL,
     "proportion", 1, 0, 0},
    {"complementarity", NULL, "complementarity", TABLE_PERCENT, "proportion", 1,
     TABLE_SIGNED, 0},
    {"complementarity_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL,
     "proportion", 1, 0, 0},
};

static const char TEAM_NOTE[] =
    "Team accuracy: the share of right final decisions. On decide trials "
    "with the model's advice shown (advice_shown = 1) the final decision is "
    "the participant's answer; on verify trials of a binary task it is the "
    "model's output when accepted and the other class when rejected, so it "
    "is right exactly when the verify answer is. Model alone: the share of "
    "the same trials on which the model was right. Humans alone: decide "
    "trials without the model's advice (advice_shown = 0), pooled over the "
    "conditions. Complementarity = team - max(model alone, humans alone) "
    "(> 0: the team beats both; Bansal et al. 2021); it needs trials "
    "without advice. Intervals: 95 % percentile intervals of the crossed "
    "participant x item bootstrap (the differences within each replicate).";

/* Which team cell a row is in, or -1. */
static int team_cell(const Dataset *ds, size_t i, int vid, int did,
                     int *nonbinary)
{
    const DatasetResponse *row = &ds->rows[i];
    DatasetTrial t = ds->trials[i];
    int tt = dataset_test_type(ds, row);
    if (row->correct < 0) {
        return -1;
    }
    if (tt == did) {
        if (t.advice_shown == 0) {
            return CELL_ALONE;
        }
        return t.advice_shown == 1 && t.model_correct >= 0 ? CELL_ADVICE : -1;
    }
    if (tt != vid || t.model_correct < 0 || t.verdict == 0) {
        return -1;
    }
    int binary =
        t.n_options == 2 || (t.n_options == 0 && ds->verify_classes == 2);
    *nonbinary |= !binary;
    return binary ? CELL_VERIFY : -1;
}

static int team_table(Report *r, const Dataset *ds, const Screen *sc,
                      const int *n, const int *np, const double *full,
                      const double *reps, int B, int nonbinary, SimError *err)
{
    int C = sc->n_conds, stride = C * T_STATS + 1;
    Table *t =
        report_add_table(r, "team", TABLE_ALL, TEAM_COLS, NCOLS(TEAM_COLS));
    if (!t || table_set_title(t, 2, "The human-AI team") != 0 ||
        table_set_note(
            t, "%s%s", TEAM_NOTE,
            nonbinary
                ? (ds->verify_classes == 0
                       ? " Verify trials without label and model_output "
                         "(or n_options) are left out: whether their task "
                         "is binary is unknown."
                       : " Verify trials of a task with more than two "
                         "classes are left out: rejecting a prediction "
                         "among more than two classes names no final "
                         "answer.")
                : "") != 0 ||
        table_set_caption(t, "Human-AI team accuracy against the model and "
                             "the humans alone, with 95\\,\\% "
                             "crossed-bootstrap intervals.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    double *tmp = sim_malloc(((size_t)B + 1) * sizeof *tmp);
    if (!tmp) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    Summary hs = {NAN, NAN, NAN, NAN, 0};
    if (B > 0) {
        summarise(reps, B, stride, C * T_STATS, 0.0, 0, 0, tmp, &hs);
    }
    for (int c = 0; c < C; c++) {
        for (int kind = 0; kind < 2; kind++) {
            int k = c * 2 + kind;
            if (n[k] == 0) {
                continue;
            }
            if (table_add_row(t) != 0) {
                sim_free(tmp);
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            table_put_text(t, dataset_str(ds, sc->conds[c]));
            table_put_text(t, kind ? "verify" : "decide");
            table_put_num(t, np[k]);
            table_put_num(t, n[k]);
            for (int m = 0; m < 5; m++) {
                int col = m == 2 ? C * T_STATS : k * 4 + (m > 2 ? m - 1 : m);
                Summary s = {NAN, NAN, NAN, NAN, 0};
                if (m == 2) {
                    s = hs;
                } else if (B > 0) {
                    summarise(reps, B, stride, col, 0.0, 0, 0, tmp, &s);
                }
                table_put_num(t, full[col]);
                table_put_interval(t, s.lo, s.hi);
            }
        }
    }
    sim_free(tmp);
    return SIM_OK;
}

/* Counts a row's participant once per (condition, kind) into np. */
static void count_participant(unsigned char *seen, int *np, int participant,
                              int slot, int n_slots)
{
    size_t at = (size_t)participant * (size_t)n_slots + (size_t)slot;
    np[slot] += !seen[at];
    seen[at] = 1;
}

int compute_team(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                 Report *r, SimError *err)
{
    int vid = dataset_find(ds, "verify"), did = dataset_find(ds, "decide");
    if ((vid < 0 && did < 0) || !ds->trials) {
        return SIM_OK;
    }
    int C = sc->n_conds, rc = SIM_OK, nonbinary = 0;
    Design x;
    design_init(&x);
    int *n = sim_calloc((size_t)C * 2 + 1, sizeof *n);
    int *np = sim_calloc((size_t)C * 2 + 1, sizeof *np);
    unsigned char *seen =
        sim_calloc((size_t)ds->n_participants * (size_t)C * 2 + 1, 1);
    double *full = sim_calloc((size_t)C * T_STATS + 1, sizeof *full);
    double *reps = NULL;
    if (!n || !np || !seen || !full) {
        goto nomem;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_scored(sc, row)) {
            continue;
        }
        int cell = team_cell(ds, i, vid, did, &nonbinary);
        if (cell < 0) {
            continue;
        }
        int c = sc->cond_index[row->condition];
        if (cell != CELL_ALONE) {
            int k = c * 2 + (cell == CELL_VERIFY);
            n[k]++;
            count_participant(seen, np, row->participant, k, C * 2);
        }
        if (design_push(&x, row->participant, c,
                        compute_key2(row->item,
                                     dataset_domain(ds, row) * 8 + row->phase),
                        0, cell, row->correct == 1,
                        ds->trials[i].model_correct == 1) < 0) {
            goto nomem;
        }
    }
    int any = 0;
    for (int k = 0; k < 2 * C; k++) {
        any |= n[k] > 0;
    }
    if (!any) {
        goto cleanup;
    }
    if ((rc = design_finish(&x, C, N_CELLS, 1, o, NULL, 0, err))) {
        goto cleanup;
    }
    for (int u = 0; u < x.n_units; u++) {
        x.unit_stratum[u] = x.unit_cond[u];
    }
    x.d.n_strata = C;
    TeamCtx ctx = {C};
    BootRun run =
        design_run(o, sim_mix64(o->seed ^ sim_hash_str("team")), "team");
    run.stat = team_stat;
    run.ctx = &ctx;
    run.n_stats = C * T_STATS + 1;
    int B = o->replicates;
    if ((rc = boot_full(&x.d, &run, full, err)) ||
        (B > 0 && (rc = boot_run(&x.d, &run, &reps, err)))) {
        goto cleanup;
    }
    rc = team_table(r, ds, sc, n, np, full, reps, B, nonbinary, err);
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    sim_free(n);
    sim_free(np);
    sim_free(seen);
    sim_free(full);
    sim_free(reps);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Distinction                                                          */

static const TableColumn DIST_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "N", TABLE_INT, "participants", 0, 0, 0},
    {"n_responses", NULL, "trials", TABLE_INT, "trials", 0, 0, 0},
    {"options", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"chance", NULL, NULL, TABLE_PERCENT, "proportion", 1, 0, 0},
    {"accuracy", NULL, NULL, TABLE_PERCENT, "proportion", 1, 0, 0},
    {"accuracy_ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "proportion", 1, 0,
     0},
    {"above_chance", NULL, "above chance", TABLE_BOOL, "", 0, 0, 0},
};

static void dist_stat(const void *vctx, const BootSums *s, void *scratch,
                      double *out)
{
    (void)scratch;
    const TeamCtx *x = vctx;
    for (int c = 0; c < x->n_conds; c++) {
        out[c] = ratio(s->sa[c], s->n[c]);
    }
}

static int dist_table(Report *r, const Dataset *ds, const Screen *sc,
                      const int *n, const int *np, const double *chance,
                      const int *lo, const int *hi, const double *full,
                      const double *reps, int B, SimError *err)
{
    int C = sc->n_conds;
    Table *t = report_add_table(r, "distinction", TABLE_ALL, DIST_COLS,
                                NCOLS(DIST_COLS));
    if (!t || table_set_title(t, 2, "Distinction (answer options)") != 0 ||
        table_set_note(
            t, "Trials whose item offered its own answer options (HIVE's "
               "distinction task: which of the candidates did the model "
               "predict?), verify, decide, catch and practice trials left "
               "out. Chance: the "
               "mean of 1 / options over the condition's trials (1 / 4 = "
               "25 %% for four candidates). Accuracy with the 95 %% "
               "percentile interval of the crossed participant x item "
               "bootstrap; above chance: the interval lies above the "
               "chance level.") != 0 ||
        table_set_caption(t, "Distinction accuracy against chance, with "
                             "95\\,\\% crossed-bootstrap intervals.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    double *tmp = sim_malloc(((size_t)B + 1) * sizeof *tmp);
    if (!tmp) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        if (n[c] == 0) {
            continue;
        }
        if (table_add_row(t) != 0) {
            sim_free(tmp);
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        char opts[32];
        if (lo[c] == hi[c]) {
            snprintf(opts, sizeof opts, "%d", lo[c]);
        } else {
            snprintf(opts, sizeof opts, "%d-%d", lo[c], hi[c]);
        }
        Summary s = {NAN, NAN, NAN, NAN, 0};
        if (B > 0) {
            summarise(reps, B, C, c, 0.0, 0, 0, tmp, &s);
        }
        table_put_text(t, dataset_str(ds, sc->conds[c]));
        table_put_num(t, np[c]);
        table_put_num(t, n[c]);
        table_put_text(t, opts);
        table_put_num(t, chance[c]);
        table_put_num(t, full[c]);
        table_put_interval(t, s.lo, s.hi);
        table_put_num(t, isnan(s.lo) ? NAN : s.lo > chance[c]);
    }
    sim_free(tmp);
    return SIM_OK;
}

int compute_distinction(const Dataset *ds, const AnalyzeOptions *o,
                        const Screen *sc, Report *r, SimError *err)
{
    if (!ds->trials) {
        return SIM_OK;
    }
    int vid = dataset_find(ds, "verify"), did = dataset_find(ds, "decide");
    int C = sc->n_conds, rc = SIM_OK;
    Design x;
    design_init(&x);
    int *n = sim_calloc((size_t)C * 4 + 1, sizeof *n);
    unsigned char *seen =
        sim_calloc((size_t)ds->n_participants * (size_t)C + 1, 1);
    double *chance = sim_calloc((size_t)C * 2 + 1, sizeof *chance);
    double *reps = NULL;
    if (!n || !seen || !chance) {
        goto nomem;
    }
    int *np = n + C, *lo = n + 2 * C, *hi = n + 3 * C;
    double *full = chance + C;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int k = ds->trials[i].n_options, tt = dataset_test_type(ds, row);
        if (!design_scored(sc, row) || k == 0 || row->correct < 0 ||
            tt == vid || tt == did) {
            continue;
        }
        int c = sc->cond_index[row->condition];
        lo[c] = n[c] == 0 || k < lo[c] ? k : lo[c];
        hi[c] = k > hi[c] ? k : hi[c];
        n[c]++;
        chance[c] += 1.0 / k;
        count_participant(seen, np, row->participant, c, C);
        if (design_push(&x, row->participant, c,
                        compute_key2(row->item,
                                     dataset_domain(ds, row) * 8 + row->phase),
                        0, 0, row->correct == 1, 1) < 0) {
            goto nomem;
        }
    }
    if (x.n_raw == 0) {
        goto cleanup;
    }
    for (int c = 0; c < C; c++) {
        chance[c] = n[c] > 0 ? chance[c] / n[c] : NAN;
    }
    if ((rc = design_finish(&x, C, 1, 1, o, NULL, 0, err))) {
        goto cleanup;
    }
    TeamCtx ctx = {C};
    BootRun run = design_run(
        o, sim_mix64(o->seed ^ sim_hash_str("distinction")), "distinction");
    run.stat = dist_stat;
    run.ctx = &ctx;
    run.n_stats = C;
    int B = o->replicates;
    if ((rc = boot_full(&x.d, &run, full, err)) ||
        (B > 0 && (rc = boot_run(&x.d, &run, &reps, err)))) {
        goto cleanup;
    }
    rc = dist_table(r, ds, sc, n, np, chance, lo, hi, full, reps, B, err);
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    sim_free(n);
    sim_free(seen);
    sim_free(chance);
    sim_free(reps);
    design_free(&x);
    return rc;
}
