/*
** Ratings on a 1..K scale (K = 2..11: the dataset's rating_points, or the
** largest rating seen): mean, SD and a crossed-bootstrap CI of the rating
** per condition, and the logistic regression of correctness on rating with
** bootstrap CIs of the slope and of P(correct) at the interior ratings
** 2..K-1. Catch trials are left out. Fills Report.ratings and the logistic
** fields and appends their tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

static int ratings_tables(Report *r, SimError *err);

#define RATING_MAX 11

typedef struct RatingCtx {
    int n_conds, levels, n_pred;
    const int *pred_rating;
} RatingCtx;

/* Output: [c] mean rating, [C] slope, [C + 1 + i] P(correct) at
** pred_rating[i]; the cells are the rating levels 1..K. */
static void rating_stat(const void *vctx, const BootSums *sums, void *scratch,
                        double *out)
{
    const RatingCtx *x = vctx;
    int C = x->n_conds, L = x->levels;
    double *xs = scratch, *ss = xs + L, *ws = ss + L;
    for (int k = 0; k < L; k++) {
        xs[k] = k + 1;
        ss[k] = ws[k] = 0;
    }
    for (int c = 0; c < C; c++) {
        double num = 0, den = 0;
        for (int k = 0; k < L; k++) {
            size_t at = (size_t)c * (size_t)L + (size_t)k;
            num += (k + 1) * sums->n[at];
            den += sums->n[at];
            ss[k] += sums->sa[at];
            ws[k] += sums->sb[at];
        }
        out[c] = den > 0 ? num / den : NAN;
    }
    LogitFit f;
    int ok =
        stats_logit_fit(xs, ss, ws, L, &f) == 0 && !f.separation && f.converged;
    out[C] = ok ? f.b1 : NAN;
    for (int i = 0; i < x->n_pred; i++) {
        out[C + 1 + i] =
            ok ? stats_expit(f.b0 + f.b1 * x->pred_rating[i]) : NAN;
    }
}

/* The scale 1..K: the dataset's, or the largest rating seen (never less
** than that); where it came from into r. */
static int rating_scale(const Dataset *ds, Report *r)
{
    int seen = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        seen = ds->rows[i].rating > seen ? ds->rows[i].rating : seen;
    }
    int k = ds->rating_points;
    const char *from = ds->rating_from ? ds->rating_from : "";
    if (k < 2 || k < seen) {
        k = seen;
        from = "data";
    }
    k = k < 2 ? 2 : k > RATING_MAX ? RATING_MAX : k;
    r->rating_points = k;
    r->rating_from = strcmp(from, "study") == 0     ? "study"
                     : strcmp(from, "sidecar") == 0 ? "sidecar"
                     : strcmp(from, "data") == 0    ? "data"
                                                    : "";
    /* interior points; every point of a scale too short to have any */
    r->n_pred = 0;
    int lo = k >= 4 ? 2 : 1, hi = k >= 4 ? k - 1 : k;
    for (int v = lo; v <= hi; v++) {
        r->pred_rating[r->n_pred++] = v;
    }
    return k;
}

int compute_ratings(const Dataset *ds, const AnalyzeOptions *o,
                    const Screen *sc, Report *r, SimError *err)
{
    Design x;
    design_init(&x);
    double *full = NULL, *reps = NULL, *tmp = NULL;
    int rc = SIM_OK, C = sc->n_conds;
    int L = rating_scale(ds, r), NP = r->n_pred;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_counts(sc, row) || row->rating <= 0) {
            continue;
        }
        if (design_push(&x, row->participant, sc->cond_index[row->condition],
                        compute_key2(row->item,
                                     dataset_domain(ds, row) * 8 + row->phase),
                        0, row->rating - 1, row->correct == 1,
                        row->correct >= 0) < 0) {
            goto nomem;
        }
    }
    if (x.n_raw == 0) {
        goto cleanup;
    }
    if ((rc = design_finish(&x, C, L, 1, o, NULL, 0, err))) {
        goto cleanup;
    }
    RatingCtx ctx = {C, L, NP, r->pred_rating};
    BootRun run =
        design_run(o, sim_mix64(o->seed ^ sim_hash_str("ratings")), "ratings");
    run.stat = rating_stat;
    run.ctx = &ctx;
    run.scratch_size = 3 * (size_t)L * sizeof(double);
    run.n_stats = C + 1 + NP;
    full = sim_calloc((size_t)run.n_stats, sizeof(double));
    if (!full) {
        goto nomem;
    }
    int B = o->replicates;
    if ((rc = boot_full(&x.d, &run, full, err)) ||
        (B > 0 && (rc = boot_run(&x.d, &run, &reps, err)))) {
        goto cleanup;
    }
    tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    r->ratings = sim_calloc((size_t)C + 1, sizeof *r->ratings);
    if (!tmp || !r->ratings) {
        goto nomem;
    }
    Summary sm = {NAN, NAN, NAN, NAN, 0};
    for (int c = 0; c < C; c++) {
        double sum = 0, sq = 0;
        int n = 0;
        for (size_t i = 0; i < ds->n_rows; i++) {
            const DatasetResponse *row = &ds->rows[i];
            if (design_counts(sc, row) && row->rating > 0 &&
                sc->cond_index[row->condition] == c) {
                sum += row->rating;
                n++;
            }
        }
        if (n == 0) {
            continue;
        }
        double mean = sum / n;
        for (size_t i = 0; i < ds->n_rows; i++) {
            const DatasetResponse *row = &ds->rows[i];
            if (design_counts(sc, row) && row->rating > 0 &&
                sc->cond_index[row->condition] == c) {
                sq += (row->rating - mean) * (row->rating - mean);
            }
        }
        RatingRow *rr = &r->ratings[r->n_ratings++];
        rr->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        rr->n = n;
        rr->mean = mean;
        rr->sd = n > 1 ? sqrt(sq / (n - 1)) : NAN;
        if (B > 0) {
            summarise(reps, B, C + 1 + NP, c, 0.0, 0, 0, tmp, &sm);
        }
        rr->boot_mean = sm.mean;
        rr->ci_low = sm.lo;
        rr->ci_high = sm.hi;
    }
    /* the logistic regression on the full sample, grouped by rating */
    double xs[RATING_MAX], ss[RATING_MAX], ws[RATING_MAX];
    for (int k = 0; k < L; k++) {
        xs[k] = k + 1;
        ss[k] = ws[k] = 0;
    }
    for (size_t p = 0; p < x.n_raw; p++) {
        ss[x.raw[p].cell] += x.raw[p].ya;
        ws[x.raw[p].cell] += x.raw[p].yb;
    }
    int n_logit = 0;
    for (int k = 0; k < L; k++) {
        n_logit += (int)ws[k];
    }
    if (stats_logit_fit(xs, ss, ws, L, &r->logit) == 0) {
        r->has_logit = 1;
        r->logit_n = n_logit;
        r->b1_wald_low = r->logit.b1 - 1.959963984540054 * r->logit.se1;
        r->b1_wald_high = r->logit.b1 + 1.959963984540054 * r->logit.se1;
        for (int i = 0; i < NP; i++) {
            r->pred[i] =
                stats_expit(r->logit.b0 + r->logit.b1 * r->pred_rating[i]);
        }
        if (B > 0) {
            summarise(reps, B, C + 1 + NP, C, 0.0, 0, 0, tmp, &sm);
            r->b1_boot_low = sm.lo;
            r->b1_boot_high = sm.hi;
            for (int i = 0; i < NP; i++) {
                summarise(reps, B, C + 1 + NP, C + 1 + i, 0.0, 0, 0, tmp, &sm);
                r->pred_low[i] = sm.lo;
                r->pred_high[i] = sm.hi;
            }
        } else {
            r->b1_boot_low = r->b1_boot_high = NAN;
            for (int i = 0; i < NP; i++) {
                r->pred_low[i] = r->pred_high[i] = NAN;
            }
        }
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    if (rc == SIM_OK) {
        rc = ratings_tables(r, err);
    }
    sim_free(full);
    sim_free(reps);
    sim_free(tmp);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Tables                                                               */

static const TableColumn RATING_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "responses", 0, 0, 0},
    {"mean", NULL, NULL, TABLE_REAL, "rating", 2, 0, 0},
    {"sd", NULL, NULL, TABLE_REAL, "rating", 2, 0, 0},
    {"boot_mean", NULL, NULL, TABLE_REAL, "rating", 0, 0,
     TABLE_CSV | TABLE_JSON},
    {"ci", NULL, "95 % CI", TABLE_INTERVAL, "rating", 2, 0, 0},
};

static const TableColumn TERM_COLS[] = {
    {"term", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, NULL, TABLE_REAL, "logit", 4, 0, 0},
    {"se", NULL, "SE", TABLE_REAL, "logit", 4, 0, 0},
    {"z", NULL, NULL, TABLE_REAL, "", 3, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
};

/* json "ratings.logistic": one object, null without a fit. */
static const TableColumn LOGIT_COLS[] = {
    {"n", NULL, NULL, TABLE_INT, "responses", 0, 0, 0},
    {"separation", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"converged", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"iterations", NULL, NULL, TABLE_INT, "", 0, 0, 0},
    {"intercept", NULL, NULL, TABLE_REAL, "logit", 0, 0, 0},
    {"intercept_se", NULL, NULL, TABLE_REAL, "logit", 0, 0, 0},
    {"slope", NULL, NULL, TABLE_REAL, "logit per rating", 0, 0, 0},
    {"slope_se", NULL, NULL, TABLE_REAL, "logit per rating", 0, 0, 0},
    {"slope_z", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"slope_p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"slope_wald_ci", NULL, NULL, TABLE_INTERVAL, "logit per rating", 0,
     TABLE_JSON_PAIR, 0},
    {"slope_boot_ci", NULL, NULL, TABLE_INTERVAL, "logit per rating", 0,
     TABLE_JSON_PAIR, 0},
    {"deviance", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"null_deviance", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
};

/* json "ratings.scale": the 1..K scale and where K came from. */
static const TableColumn SCALE_COLS[] = {
    {"points", NULL, NULL, TABLE_INT, "", 0, 0, 0},
    {"from", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

static const TableColumn PREDICTED_COLS[] = {
    {"rating", NULL, NULL, TABLE_INT, "rating", 0, 0, 0},
    {"p", NULL, "P(correct)", TABLE_REAL, "probability", 3, 0, 0},
    {"ci", NULL, "95 % CI", TABLE_INTERVAL, "probability", 3, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* md: the terms of the fit, or why there are none. */
static int terms_table(Report *r)
{
    const LogitFit *f = &r->logit;
    Table *t = report_add_table(r, "logistic_terms", TABLE_MD, TERM_COLS,
                                f->separation ? 0 : N_COLS(TERM_COLS));
    if (!t) {
        return -1;
    }
    if (f->separation) {
        return table_set_note(t,
                              "Logistic regression of correctness on rating "
                              "(%d responses with both):\n\nThe ratings "
                              "separate correct from incorrect responses: no "
                              "finite estimate.",
                              r->logit_n);
    }
    table_set_note(t,
                   "Logistic regression of correctness on rating (%d "
                   "responses with both):",
                   r->logit_n);
    const char *terms[2] = {"intercept", "rating"};
    double est[2] = {f->b0, f->b1}, se[2] = {f->se0, f->se1};
    double z[2] = {f->z0, f->z1}, p[2] = {f->p0, f->p1};
    for (int i = 0; i < 2; i++) {
        table_add_row(t);
        table_put_text(t, terms[i]);
        table_put_num(t, est[i]);
        table_put_num(t, se[i]);
        table_put_num(t, z[i]);
        table_put_num(t, p[i]);
    }
    return 0;
}

/* md: the terms of the fit (or why there are none) and P(correct) by
** rating; json: the fit as one object with the predictions. */
static int logistic_tables(Report *r)
{
    const LogitFit *f = &r->logit;
    Table *t = report_add_table(r, "logistic", TABLE_JSON, LOGIT_COLS,
                                N_COLS(LOGIT_COLS));
    if (!t || table_set_json_path(t, "ratings.logistic") != 0) {
        return -1;
    }
    t->object = 1;
    if (!r->has_logit) {
        return 0;
    }
    table_add_row(t);
    table_put_num(t, r->logit_n);
    table_put_num(t, f->separation);
    table_put_num(t, f->converged);
    table_put_num(t, f->iters);
    table_put_num(t, f->b0);
    table_put_num(t, f->se0);
    table_put_num(t, f->b1);
    table_put_num(t, f->se1);
    table_put_num(t, f->z1);
    table_put_num(t, f->p1);
    table_put_interval(t, r->b1_wald_low, r->b1_wald_high);
    table_put_interval(t, r->b1_boot_low, r->b1_boot_high);
    table_put_num(t, f->deviance);
    table_put_num(t, f->null_deviance);

    if (terms_table(r) != 0) {
        return -1;
    }
    /* json has the predictions even under separation (all null) */
    unsigned md = f->separation ? 0 : TABLE_MD;
    t = report_add_table(r, "predicted", md | TABLE_JSON, PREDICTED_COLS,
                         N_COLS(PREDICTED_COLS));
    if (!t || table_set_json_path(t, "ratings.logistic.predicted") != 0) {
        return -1;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "The rating term is the change in the log-odds of a "
                     "correct answer per rating point; P(correct) is the "
                     "fitted probability at a rating. ");
    sim_buf_printf(&b, "Rating slope 95 %% CI: Wald [%.4f, %.4f], bootstrap ",
                   r->b1_wald_low, r->b1_wald_high);
    if (isfinite(r->b1_boot_low)) {
        sim_buf_printf(&b, "[%.4f, %.4f]", r->b1_boot_low, r->b1_boot_high);
    } else {
        sim_buf_puts(&b, "-");
    }
    sim_buf_printf(&b, ". Deviance %.3f (null %.3f), %d IRLS iterations.",
                   f->deviance, f->null_deviance, f->iters);
    int rc = b.oom ? -1 : table_set_note(t, "%s", sim_buf_cstr(&b));
    sim_buf_free(&b);
    for (int i = 0; i < r->n_pred; i++) {
        table_add_row(t);
        table_put_num(t, r->pred_rating[i]);
        table_put_num(t, r->pred[i]);
        table_put_interval(t, r->pred_low[i], r->pred_high[i]);
    }
    return rc;
}

static int ratings_tables(Report *r, SimError *err)
{
    unsigned md = r->n_ratings > 0 ? TABLE_MD : 0;
    Table *t = report_add_table(r, "ratings", md | TABLE_CSV | TABLE_JSON,
                                RATING_COLS, N_COLS(RATING_COLS));
    char title[64];
    snprintf(title, sizeof title, "Ratings (1-%d)", r->rating_points);
    const char *from =
        strcmp(r->rating_from, "study") == 0 ? "as the study defines it"
        : strcmp(r->rating_from, "sidecar") == 0
            ? "as the export's sidecar says"
        : strcmp(r->rating_from, "data") == 0
            ? "taken from the data (the largest rating given; no study "
              "definition or sidecar said it)"
            : "of unknown origin";
    if (!t || table_set_json_path(t, "ratings.by_condition") != 0 ||
        table_set_title(t, 2, title) != 0 ||
        table_set_note(t,
                       "Rated responses per condition (catch trials "
                       "excluded): n ratings, their mean and SD, and a 95 %% "
                       "bootstrap CI of the mean (users x items). Scale "
                       "1-%d, %s.",
                       r->rating_points, from) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    Table *sc = report_add_table(r, "rating_scale", TABLE_JSON, SCALE_COLS,
                                 N_COLS(SCALE_COLS));
    if (!sc || table_set_json_path(sc, "ratings.scale") != 0 ||
        table_set_note(sc, "%s",
                       "The rating scale 1..points and where points came "
                       "from: study, sidecar or data (the largest rating "
                       "given).") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sc->object = 1;
    if (r->n_ratings > 0) {
        table_add_row(sc);
        table_put_num(sc, r->rating_points);
        table_put_text(sc, r->rating_from);
    }
    for (int i = 0; i < r->n_ratings; i++) {
        const RatingRow *x = &r->ratings[i];
        table_add_row(t);
        table_put_text(t, x->condition);
        table_put_num(t, x->n);
        table_put_num(t, x->mean);
        table_put_num(t, x->sd);
        table_put_num(t, x->boot_mean);
        table_put_interval(t, x->ci_low, x->ci_high);
    }
    return logistic_tables(r) == 0
               ? SIM_OK
               : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
}
