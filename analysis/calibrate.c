/*
** simlab-analyze --calibrate N: the size of every test the report shows,
** measured on this study's design. N null studies are simulated from the
** fitted mixed model -- the same participants, items and answered trials,
** every condition equal to the baseline, Post equal to Pre -- and each is
** analysed with the report's own tests; the share of them a test rejects
** (p < 0.05) goes under its table and into "calibration".
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "analysis/analyze.h"
#include "analysis/glmm_design.h"
#include "analysis/primary.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#define ALPHA 0.05

/* A test of the report: table key, the column of its p-value, the
** column(s) naming the row, and which rows count. */
typedef struct TestSpec {
    const char *test, *key, *md, *p_col, *name_col, *name_col2;
} TestSpec;

static const TestSpec TESTS[] = {
    {"change", "change", "change/all", "p", "condition", NULL},
    {"utility", "utility", "utility", "p", "condition", NULL},
    {"glmm", "glmm_terms", "glmm_terms", "p", "term", NULL},
    {"anova", "anova", "groups", "p", NULL, NULL},
    {"tukey", "tukey", "tukey", "p_adj", "b", "a"},
    {"paired", "paired", "paired", "p", "b", NULL},
};
#define N_TESTS ((int)(sizeof TESTS / sizeof TESTS[0]))

/* Whether row i of a test's table is a test whose null the simulated
** studies satisfy, and its name. */
static int row_tested(const TestSpec *s, const Table *t, int i, char *name,
                      size_t size)
{
    int c1 = table_column(t, s->name_col), c2 = table_column(t, s->name_col2);
    const char *a = c1 >= 0 ? table_cell(t, i, c1)->text : NULL;
    const char *b = c2 >= 0 ? table_cell(t, i, c2)->text : NULL;
    if (strcmp(s->test, "change") == 0) {
        int cs = table_column(t, "subset");
        const char *sub = cs >= 0 ? table_cell(t, i, cs)->text : NULL;
        if (!sub || strcmp(sub, "all") != 0) {
            return 0;
        }
    }
    if (strcmp(s->test, "glmm") == 0 && (!a || strcmp(a, "(Intercept)") == 0 ||
                                         strncmp(a, "session", 7) == 0)) {
        return 0; /* their truth is the fitted value, not 0 */
    }
    if (strcmp(s->test, "tukey") == 0) {
        int cb = table_column(t, "vs_baseline");
        if (cb < 0 || table_cell(t, i, cb)->x == 0) {
            return 0;
        }
    }
    if (b) {
        snprintf(name, size, "%.70s - %.70s", a ? a : "", b);
    } else {
        snprintf(name, size, "%.150s", a ? a : "F test");
    }
    return 1;
}

/* The p-value of the test named name in report r; NaN when it has none. */
static double find_p(const Report *r, const TestSpec *s, const char *name)
{
    const Table *t = report_table(r, s->key);
    int cp = t ? table_column(t, s->p_col) : -1;
    char got[160];
    for (int i = 0; cp >= 0 && i < t->n_rows; i++) {
        if (row_tested(s, t, i, got, sizeof got) && strcmp(got, name) == 0) {
            return table_cell(t, i, cp)->x;
        }
    }
    return NAN;
}

/* The tests of the real report: one row each. */
static int list_tests(Report *r, CalibrationRow **out, int *n_out)
{
    int cap = 0, n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < N_TESTS; k++) {
            const Table *t = report_table(r, TESTS[k].key);
            int cp = t ? table_column(t, TESTS[k].p_col) : -1;
            for (int i = 0; cp >= 0 && i < t->n_rows; i++) {
                char name[160];
                if (!row_tested(&TESTS[k], t, i, name, sizeof name) ||
                    isnan(table_cell(t, i, cp)->x)) {
                    continue;
                }
                if (pass == 1) {
                    CalibrationRow *c = &(*out)[n];
                    c->test = TESTS[k].test;
                    c->table = TESTS[k].md;
                    snprintf(c->what, sizeof c->what, "%s", name);
                }
                n++;
            }
        }
        if (pass == 0) {
            cap = n;
            *out = sim_calloc((size_t)cap + 1, sizeof **out);
            if (!*out) {
                return -1;
            }
            n = 0;
        }
    }
    *n_out = n;
    return 0;
}

/* The responses of one null study: rows as in ds, the modelled ones drawn
** from the null model (eta0 + participant and item effects). */
static void simulate(const Dataset *ds, const GlmmDesign *d, const GlmmModel *m,
                     const double *theta, const double *eta0, SimRng *rng,
                     double *bp, double *bi, DatasetResponse *rows)
{
    const GlmmTerm *tp = &m->term[0];
    int k = tp->k;
    double lam[GLMM_MAX_K * GLMM_MAX_K] = {0};
    int at = 0;
    for (int b = 0; b < k; b++) {
        int last = tp->diagonal ? b + 1 : k;
        for (int a = b; a < last; a++) {
            lam[a * k + b] = theta[at++];
        }
    }
    double lam_item = theta[at];
    for (int l = 0; l < d->n_part; l++) {
        double zz[GLMM_MAX_K];
        for (int a = 0; a < k; a++) {
            zz[a] = sim_rng_normal(rng);
        }
        for (int a = 0; a < k; a++) {
            double x = 0;
            for (int b = 0; b <= a; b++) {
                x += lam[a * k + b] * zz[b];
            }
            bp[(size_t)l * (size_t)k + (size_t)a] = x;
        }
    }
    for (int l = 0; l < d->n_item; l++) {
        bi[l] = lam_item * sim_rng_normal(rng);
    }
    memcpy(rows, ds->rows, ds->n_rows * sizeof *rows);
    for (size_t i = 0; i < (size_t)d->n; i++) {
        double e = eta0[i] + bi[d->item[i]];
        const double *b = bp + (size_t)d->part[i] * (size_t)k;
        for (int a = 0; a < k; a++) {
            e += (tp->z ? tp->z[i * (size_t)k + (size_t)a] : 1.0) * b[a];
        }
        double pr = 1 / (1 + exp(-e));
        rows[d->row[i]].correct = sim_rng_uniform(rng) < pr;
    }
}

/* Clopper-Pearson 95 % interval of k successes in n. */
static void binom_ci(int k, int n, double *lo, double *hi)
{
    *lo = k == 0 ? 0 : gsl_cdf_beta_Pinv(0.025, k, n - k + 1);
    *hi = k == n ? 1 : gsl_cdf_beta_Pinv(0.975, k + 1, n - k);
}

static void fmt_count(char *buf, size_t size, int n)
{
    if (n >= 1000) {
        snprintf(buf, size, "%d,%03d", n / 1000, n % 1000);
    } else {
        snprintf(buf, size, "%d", n);
    }
}

static const TableColumn CAL_COLS[] = {
    {"test", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"what", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"studies", NULL, NULL, TABLE_INT, "null studies", 0, 0, 0},
    {"rejected", NULL, NULL, TABLE_INT, "null studies", 0, 0, 0},
    {"rate", NULL, "size", TABLE_PERCENT, "", 1, 0, 0},
    {"ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "", 1, 0, 0},
};

/* The calibration table, and a sentence under each tested table. */
static int calibration_tables(Report *r, int N)
{
    Table *t =
        report_add_table(r, "calibration", TABLE_MD | TABLE_CSV | TABLE_JSON,
                         CAL_COLS, (int)(sizeof CAL_COLS / sizeof CAL_COLS[0]));
    if (!t) {
        return -1;
    }
    char n_txt[32];
    fmt_count(n_txt, sizeof n_txt, N);
    table_set_title(t, 2, "Calibration");
    int prepost = 0;
    for (int j = 0; j < r->glmm.n_terms; j++) {
        prepost |= strcmp(r->glmm.terms[j].name, "phasepost") == 0;
    }
    table_set_note(t,
                   "The size of each test on this study's design: %s null "
                   "studies simulated from the fitted mixed model (the same "
                   "participants, items and answered trials; the baseline's "
                   "fitted intercept%s for every condition%s; participant "
                   "and item effects drawn with the fitted variances), each "
                   "analysed with the report's tests. size = the share of "
                   "them with p < 0.05 (it should be about 5 %%); 95 %% "
                   "Clopper-Pearson interval.",
                   n_txt, r->n_sessions > 1 ? " and session effects" : "",
                   prepost ? ", Post equal to Pre" : "");
    for (int i = 0; i < r->n_calibration; i++) {
        const CalibrationRow *c = &r->calibration[i];
        table_add_row(t);
        table_put_text(t, c->test);
        table_put_text(t, c->what);
        table_put_num(t, c->studies);
        table_put_num(t, c->rejected);
        table_put_num(t, c->rate);
        table_put_interval(t, c->ci_low, c->ci_high);
    }
    for (int k = 0; k < N_TESTS; k++) {
        Table *md = NULL;
        for (int i = 0; i < r->n_tables; i++) {
            if (strcmp(r->tables[i]->key, TESTS[k].md) == 0) {
                md = r->tables[i];
            }
        }
        SimBuf b;
        sim_buf_init(&b);
        int any = 0;
        for (int i = 0; md && i < r->n_calibration; i++) {
            const CalibrationRow *c = &r->calibration[i];
            if (strcmp(c->test, TESTS[k].test) != 0) {
                continue;
            }
            char studies[32];
            fmt_count(studies, sizeof studies, c->studies);
            sim_buf_printf(&b,
                           "%s%s: this test rejected %.1f %% of %s null "
                           "studies like this one (95 %% CI %.1f-%.1f %%)",
                           any ? "; " : "Calibration (p < 0.05): ", c->what,
                           100 * c->rate, studies, 100 * c->ci_low,
                           100 * c->ci_high);
            any = 1;
        }
        int rc = 0;
        if (any && !b.oom) {
            rc = md->after ? table_set_after(md, "%s\n\n%s.", md->after,
                                             sim_buf_cstr(&b))
                           : table_set_after(md, "%s.", sim_buf_cstr(&b));
        }
        sim_buf_free(&b);
        if (rc != 0 || b.oom) {
            return -1;
        }
    }
    return 0;
}

int calibrate_report(const Dataset *ds, const AnalyzeOptions *o,
                     const Screen *sc, Report *r, SimError *err)
{
    int N = o->calibrate;
    if (!r->glmm.fitted) {
        Table *t =
            report_add_table(r, "calibration", TABLE_MD | TABLE_JSON, NULL, 0);
        if (!t || table_set_title(t, 2, "Calibration") != 0 ||
            table_set_note(t, "%s",
                           "no calibration: the null studies are simulated "
                           "from the mixed model, and there is none") != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        return SIM_OK;
    }
    GlmmDesign d;
    const char *why;
    int rc = glmm_design_build(ds, sc, &d, &why, err);
    if (rc != SIM_OK) {
        glmm_design_free(&d);
        return rc;
    }
    GlmmModel m;
    glmm_design_model(&d, r->glmm.chosen, &m);
    double *eta0 = sim_calloc((size_t)d.n + 1, sizeof(double));
    double *bp =
        sim_malloc(((size_t)d.n_part * (size_t)d.kz + 1) * sizeof(double));
    double *bi = sim_malloc(((size_t)d.n_item + 1) * sizeof(double));
    DatasetResponse *rows = sim_malloc((ds->n_rows + 1) * sizeof *rows);
    CalibrationRow *cal = NULL;
    int n_cal = 0;
    if (!eta0 || !bp || !bi || !rows || list_tests(r, &cal, &n_cal) != 0) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    /* the null: the intercept and session effects, nothing else */
    for (size_t i = 0; i < (size_t)d.n; i++) {
        for (int j = 0; j < d.p; j++) {
            if (d.col_kind[j] == GLMM_COL_INTERCEPT ||
                d.col_kind[j] == GLMM_COL_SESSION) {
                eta0[i] += d.X[i * (size_t)d.p + (size_t)j] *
                           r->glmm.terms[j].estimate;
            }
        }
    }
    Dataset sim = *ds; /* shares everything but the rows */
    sim.rows = rows;
    AnalyzeOptions so = *o;
    so.calibrate = 0;
    so.null_study = 1;
    so.quiet = 1;
    so.progress = 0;
    uint64_t seed = sim_mix64(o->seed ^ sim_hash_str("calibrate"));
    int prim_studies = 0, prim_rejected = 0; /* the primary test's */
    int show = o->progress && isatty(2);     /* as the bootstrap's bar */
    for (int s = 0; s < N && rc == SIM_OK; s++) {
        if (show) {
            char bar[41];
            for (int i = 0; i < 40; i++) {
                bar[i] = i < (int)((long long)s * 40 / N) ? '#' : '.';
            }
            bar[40] = '\0';
            fprintf(stderr, "\r%-12s [%s] %d/%d", "calibrate", bar, s, N);
            fflush(stderr);
        }
        SimRng rng;
        sim_rng_seed_stream(&rng, seed, (uint64_t)s);
        simulate(ds, &d, &m, r->glmm.theta, eta0, &rng, bp, bi, rows);
        so.seed = sim_mix64(seed + (uint64_t)s + 1);
        Report nr;
        rc = analyze_compute(&sim, &so, &nr, err);
        for (int i = 0; rc == SIM_OK && i < n_cal; i++) {
            const TestSpec *spec = NULL;
            for (int k = 0; k < N_TESTS; k++) {
                spec =
                    strcmp(TESTS[k].test, cal[i].test) == 0 ? &TESTS[k] : spec;
            }
            double p = find_p(&nr, spec, cal[i].what);
            if (!isnan(p)) {
                cal[i].studies++;
                cal[i].rejected += p < ALPHA;
            }
        }
        int rejected;
        if (rc == SIM_OK && primary_null_outcome(&nr, &rejected)) {
            prim_studies++;
            prim_rejected += rejected;
        }
        report_free(&nr);
    }
    if (show) {
        fprintf(stderr, "\r%-12s %d null studies%30s\n", "calibrate", N, "");
    }
    for (int i = 0; i < n_cal; i++) {
        CalibrationRow *c = &cal[i];
        c->rate = c->studies > 0 ? (double)c->rejected / c->studies : NAN;
        c->ci_low = c->ci_high = NAN;
        if (c->studies > 0) {
            binom_ci(c->rejected, c->studies, &c->ci_low, &c->ci_high);
        }
    }
    if (rc == SIM_OK) {
        if (prim_studies > 0) {
            primary_set_size(r, prim_studies, prim_rejected, "calibrate");
        }
        r->calibration = cal;
        r->n_calibration = n_cal;
        cal = NULL;
        if (calibration_tables(r, N) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
cleanup:
    sim_free(cal);
    sim_free(eta0);
    sim_free(bp);
    sim_free(bi);
    sim_free(rows);
    glmm_design_free(&d);
    return rc;
}
