/*
** The Utility table of Colin et al. (2022): session accuracies on test
** trials (catch trials excluded), Utility-K against the baseline, Utility
** by the --utility rule, and the crossed bootstrap over users x items.
** Fills Report.utility and appends its tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "analysis/teststat.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

static int utility_tables(Report *r, SimError *err);

typedef struct UtilityCtx {
    int n_conds, n_sessions, base, rule, participant;
} UtilityCtx;

void utility_session_accuracy(const BootSums *sums, int n_conds, int n_sessions,
                              int participant, double *acc)
{
    for (int c = 0; c < n_conds; c++) {
        for (int t = 0; t < n_sessions; t++) {
            size_t at = (size_t)c * (size_t)n_sessions + (size_t)t;
            if (participant) {
                acc[at] = sums->pu[at] > 0 ? sums->pa[at] / sums->pu[at] : NAN;
            } else {
                acc[at] = sums->n[at] > 0 ? sums->sa[at] / sums->n[at] : NAN;
            }
        }
    }
}

void utility_from_accuracy(const double *acc, int n_conds, int n_sessions,
                           int base, int rule, double *uk, double *u)
{
    int T = n_sessions;
    for (int c = 0; c < n_conds; c++) {
        double sum_uk = 0, trap = 0, sum_a = 0, sum_b = 0;
        for (int t = 0; t < T; t++) {
            double a = acc[(size_t)c * (size_t)T + (size_t)t];
            double b = acc[(size_t)base * (size_t)T + (size_t)t];
            double k = b > 0 ? a / b : NAN;
            uk[(size_t)c * (size_t)T + (size_t)t] = k;
            sum_uk += k;
            trap += (t == 0 || t == T - 1) && T > 1 ? 0.5 * k : k;
            sum_a += a;
            sum_b += b;
        }
        if (rule == UTILITY_TRAPEZOID) {
            u[c] = T > 1 ? trap / (T - 1) : sum_uk;
        } else if (rule == UTILITY_RATIO) {
            u[c] = sum_b > 0 ? sum_a / sum_b : NAN;
        } else {
            u[c] = sum_uk / T;
        }
    }
}

/* Output: [c * T + t] Utility-K, then [C * T + c] Utility; the full-sample
** call also appends [C * T + C + c * T + t] session accuracies. */
static void utility_values(const UtilityCtx *x, const BootSums *sums,
                           double *acc, double *out, int full)
{
    int C = x->n_conds, T = x->n_sessions;
    utility_session_accuracy(sums, C, T, x->participant, acc);
    utility_from_accuracy(acc, C, T, x->base, x->rule, out,
                          out + (size_t)C * (size_t)T);
    if (full) {
        memcpy(out + (size_t)C * (size_t)T + (size_t)C, acc,
               (size_t)C * (size_t)T * sizeof(double));
    }
}

static void utility_stat(const void *vctx, const BootSums *sums, void *scratch,
                         double *out)
{
    utility_values(vctx, sums, scratch, out, 0);
}

static void utility_full_stat(const void *vctx, const BootSums *sums,
                              void *scratch, double *out)
{
    utility_values(vctx, sums, scratch, out, 1);
}

int compute_utility(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err)
{
    Design x;
    design_init(&x);
    double *full = NULL, *reps = NULL, *tmp = NULL;
    uint64_t set_cells[BOOT_MAX_CELLS];
    int rc = SIM_OK, C = sc->n_conds, base = sc->base;
    int any_test = 0;
    /* sessions in increasing order */
    int max_session = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (design_counts(sc, row) && row->phase == PHASE_TEST &&
            row->correct >= 0) {
            any_test = 1;
            int t = dataset_session(ds, row);
            max_session = t > max_session ? t : max_session;
        }
    }
    if (!any_test) {
        return utility_tables(r, err);
    }
    if (base < 0) {
        char note[400];
        if (r->baseline) {
            snprintf(note, sizeof note,
                     "no Utility table: the baseline condition '%.100s' has "
                     "no data (choose the reference with --baseline)",
                     r->baseline);
        } else {
            snprintf(note, sizeof note,
                     "no Utility table: Utility divides each condition's "
                     "accuracy by the baseline's, and no baseline is known "
                     "(no study definition names one and no condition is "
                     "called 'baseline'); choose one with --baseline NAME");
        }
        r->utility_note = sim_strdup(note);
        return utility_tables(r, err);
    }
    int *session_cell = sim_malloc(((size_t)max_session + 1) * sizeof(int));
    if (!session_cell) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int t = 0; t <= max_session; t++) {
        session_cell[t] = -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (design_counts(sc, row) && row->phase == PHASE_TEST &&
            row->correct >= 0) {
            session_cell[dataset_session(ds, row)] = 0;
        }
    }
    int T = 0;
    for (int t = 0; t <= max_session; t++) {
        if (session_cell[t] == 0) {
            session_cell[t] = T++;
        }
    }
    if (T > BOOT_MAX_CELLS) {
        sim_free(session_cell);
        return sim_fail(err, SIM_ERR_INVALID, "more than %d sessions",
                        BOOT_MAX_CELLS);
    }
    r->sessions = sim_malloc((size_t)T * sizeof(int));
    if (!r->sessions) {
        sim_free(session_cell);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int t = 0; t <= max_session; t++) {
        if (session_cell[t] >= 0) {
            r->sessions[session_cell[t]] = t;
        }
    }
    r->n_sessions = T;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_counts(sc, row) || row->phase != PHASE_TEST ||
            row->correct < 0) {
            continue;
        }
        int cell = session_cell[dataset_session(ds, row)];
        if (design_push(&x, row->participant, sc->cond_index[row->condition],
                        compute_key2(cell, row->item), cell, cell, row->correct,
                        0) < 0) {
            goto nomem;
        }
    }
    for (int t = 0; t < T; t++) {
        set_cells[t] = (uint64_t)1 << t;
    }
    if ((rc = design_finish(&x, C, T, T, o, set_cells, T, err))) {
        goto cleanup;
    }
    UtilityCtx ctx = {C, T, base, o->utility_rule, o->accuracy_participant};
    BootRun run =
        design_run(o, sim_mix64(o->seed ^ sim_hash_str("utility")), "utility");
    run.stat = utility_full_stat;
    run.ctx = &ctx;
    run.scratch_size = (size_t)C * (size_t)T * sizeof(double);
    run.n_stats = C * T + C + C * T;
    full = sim_calloc((size_t)run.n_stats, sizeof(double));
    if (!full) {
        goto nomem;
    }
    if ((rc = boot_full(&x.d, &run, full, err))) {
        goto cleanup;
    }
    run.stat = utility_stat;
    run.n_stats = C * T + C;
    int B = o->replicates;
    if (B > 0 && (rc = boot_run(&x.d, &run, &reps, err))) {
        goto cleanup;
    }
    tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    r->utility = sim_calloc((size_t)C, sizeof *r->utility);
    if (!tmp || !r->utility) {
        goto nomem;
    }
    for (int c = 0; c < C; c++) {
        int n_part = 0;
        for (int u = 0; u < x.n_units; u++) {
            n_part += x.unit_cond[u] == c;
        }
        if (n_part == 0) {
            continue;
        }
        UtilityRow *row = &r->utility[r->n_utility++];
        row->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        row->n_participants = n_part;
        row->is_baseline = c == base;
        row->session_accuracy = sim_calloc((size_t)T, sizeof(double));
        row->utility_k = sim_calloc((size_t)T, sizeof(double));
        row->uk_low = sim_calloc((size_t)T, sizeof(double));
        row->uk_high = sim_calloc((size_t)T, sizeof(double));
        if (!row->condition || !row->session_accuracy || !row->utility_k ||
            !row->uk_low || !row->uk_high) {
            goto nomem;
        }
        Summary sm = {NAN, NAN, NAN, NAN, 0};
        for (int t = 0; t < T; t++) {
            row->session_accuracy[t] = full[(size_t)(C * T + C + c * T + t)];
            row->utility_k[t] = full[(size_t)(c * T + t)];
            if (B > 0) {
                summarise(reps, B, C * T + C, c * T + t, 1.0, 0, 0, tmp, &sm);
            }
            row->uk_low[t] = sm.lo;
            row->uk_high[t] = sm.hi;
        }
        row->utility = full[(size_t)(C * T + c)];
        if (B > 0) {
            /* CI on the Utility scale, p for H0: log Utility = 0 */
            summarise(reps, B, C * T + C, C * T + c, 1.0, o->p_hase, 1, tmp,
                      &sm);
        }
        row->boot_mean = sm.mean;
        row->ci_low = sm.lo;
        row->ci_high = sm.hi;
        row->p = c == base ? NAN : sm.p;
        row->replicates = sm.valid;
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    if (rc == SIM_OK) {
        rc = utility_tables(r, err);
    }
    sim_free(session_cell);
    sim_free(full);
    sim_free(reps);
    sim_free(tmp);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Tables                                                               */

/* md wide (a column per session), csv long (a row per session), json
** arrays per condition. */
static const TableColumn UTILITY_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "users", TABLE_INT, "participants", 0, 0,
     TABLE_MD | TABLE_JSON},
    {"baseline", NULL, NULL, TABLE_BOOL, "", 0, 0, TABLE_JSON},
    {"session", "sessions", NULL, TABLE_SERIES_AXIS, "", 0, 0,
     TABLE_CSV | TABLE_JSON},
    {"session_accuracy", NULL, "acc", TABLE_PERCENT, "", 1, TABLE_SERIES, 0},
    {"utility_k", NULL, "U-K", TABLE_REAL, "ratio", 2, TABLE_SERIES, 0},
    {"uk_ci", "utility_k_ci", NULL, TABLE_INTERVAL, "ratio", 0, TABLE_SERIES,
     TABLE_CSV | TABLE_JSON},
    {"utility", NULL, "Utility", TABLE_REAL, "ratio", 2, 0, 0},
    {"boot_mean", NULL, NULL, TABLE_REAL, "ratio", 0, 0,
     TABLE_CSV | TABLE_JSON},
    {"ci", NULL, "95 % CI", TABLE_INTERVAL, "ratio", 2, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"replicates", NULL, NULL, TABLE_INT, "replicates", 0, 0, TABLE_JSON},
};

/* Colin et al.'s Table 1 layout in tex: the baseline's Utility is left
** blank. */
static const TableColumn UTILITY_TEX_COLS[] = {
    {"condition", NULL, "Method", TABLE_TEXT, "", 0, 0, 0},
    {"session_accuracy", NULL, "", TABLE_PERCENT, "", 1, TABLE_SERIES, 0},
    {"utility", NULL, "Utility", TABLE_REAL, "ratio", 2, 0, 0},
    {"ci", NULL, "CI", TABLE_INTERVAL, "ratio", 2, TABLE_TEX_LEFT, 0},
    {"p", NULL, "$p$", TABLE_PVALUE, "", 0, TABLE_TEX_LEFT, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static int utility_tables(Report *r, SimError *err)
{
    const AnalyzeOptions *o = &r->opt;
    unsigned text = r->n_utility > 0 ? TABLE_MD : 0;
    Table *t = report_add_table(r, "utility", text | TABLE_CSV | TABLE_JSON,
                                UTILITY_COLS, N_COLS(UTILITY_COLS));
    Table *tex =
        r->n_utility > 0
            ? report_add_table(r, "utility_tex", TABLE_TEX, UTILITY_TEX_COLS,
                               N_COLS(UTILITY_TEX_COLS))
            : NULL;
    if (!t || (r->n_utility > 0 && !tex)) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    char title[300];
    snprintf(title, sizeof title, "Utility (baseline: %.100s; rule: %s)",
             r->baseline ? r->baseline : "none",
             report_utility_rule_name(o->utility_rule));
    table_set_title(t, 2, title);
    table_set_note(t, "%s",
                   "Session accuracy in % (test trials, catch trials "
                   "excluded), then Utility-K per session and Utility with "
                   "its 95 % CI; p for H0: Utility = 1 (on log Utility).");
    table_set_after(
        t, "%s",
        "Utility-K = accuracy of the condition in session K / accuracy of "
        "the baseline in session K. Utility aggregates the Utility-K: mean = "
        "their average, ratio = sum of the accuracies / sum of the "
        "baseline's, trapezoid = the normalised trapezoid area over the "
        "sessions. Colin et al. (2022) call Utility the area under the "
        "Utility-K curve; their Table 1 is reproduced by the mean rule (the "
        "area under a step curve, one step per session, divided by the "
        "number of sessions: 18 of 21 values) and the ratio rule (19 of 21), "
        "not by the trapezoid rule (5 of 21).");
    table_set_series(t, "session", r->sessions, r->n_sessions);
    if (tex) {
        table_set_series(tex, "session", r->sessions, r->n_sessions);
        table_set_caption(tex, "Accuracy per session (\\%) and Utility.");
    }
    for (int i = 0; i < r->n_utility; i++) {
        const UtilityRow *u = &r->utility[i];
        table_add_row(t);
        table_put_text(t, u->condition);
        table_put_num(t, u->n_participants);
        table_put_num(t, u->is_baseline);
        table_put_series(t, u->session_accuracy);
        table_put_series(t, u->utility_k);
        table_put_series_interval(t, u->uk_low, u->uk_high);
        table_put_num(t, u->utility);
        table_put_num(t, u->boot_mean);
        table_put_interval(t, u->ci_low, u->ci_high);
        if (u->is_baseline) {
            table_hide_last(t, TABLE_CELL_NOT_MD);
        }
        table_put_num(t, u->p);
        table_put_num(t, u->replicates);

        table_add_row(tex);
        table_put_text(tex, u->condition);
        table_put_series(tex, u->session_accuracy);
        table_put_num(tex, u->utility);
        table_hide_last(tex, u->is_baseline ? TABLE_CELL_NOT_TEX : 0);
        table_put_interval(tex, u->ci_low, u->ci_high);
        table_hide_last(tex, u->is_baseline ? TABLE_CELL_NOT_TEX : 0);
        table_put_num(tex, u->p);
        table_hide_last(tex, u->is_baseline ? TABLE_CELL_NOT_TEX : 0);
    }
    if (r->utility_note) {
        t = report_add_table(r, "utility_note", TABLE_MD | TABLE_JSON, NULL, 0);
        if (!t || table_set_note(t, "%s", r->utility_note) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}
