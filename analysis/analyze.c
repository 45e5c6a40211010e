/*
** The analysis pipeline: screening, then one computation per analysis
** (change.c, utility.c, anova.c, ratings.c, rt.c), each filling its rows of
** the Report and appending its tables; then the writers. Loading, writing
** and the stdout summary live here.
*/
#include "analysis/analyze.h"

#include "analysis/pg_source.h"
#include "analysis/plan.h"
#include "common/sim_escape.h"
#include "common/sim_url.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/interactions.h"
#include "analysis/metrics.h"
#include "analysis/progress.h"
#include "analysis/questionnaire.h"
#include "common/sim_alloc.h"

void analyze_options_default(AnalyzeOptions *o)
{
    memset(o, 0, sizeof *o);
    o->replicates = 10000;
    o->seed = 1;
    o->threads = 1;
    o->utility_rule = UTILITY_MEAN;
    o->max_catch_failures = -1;
    o->primary = -1;
    o->formats = FORMAT_MD | FORMAT_TEX | FORMAT_CSV | FORMAT_JSON;
    o->plots = PLOT_PNG | PLOT_SVG | PLOT_PDF;
    o->progress = 1;
    o->csv_delimiter = ',';
    sim_encoding_utf8(&o->csv_encoding);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */

int analyze_compute(const Dataset *ds, const AnalyzeOptions *o, Report *r,
                    SimError *err)
{
    memset(r, 0, sizeof *r);
    r->opt = *o;
    r->n_rows_read = (int)ds->n_rows;
    Screen sc;
    int rc = screen_participants(ds, o, r, &sc, err);
    if (rc == SIM_OK) {
        rc = screen_design(ds, &sc, r, err);
    }
    if (rc == SIM_OK) {
        rc = compute_change(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_utility(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_anova(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_paired(ds, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_glmm(ds, o, &sc, r, err);
    }
    /* a null study of --calibrate needs only the tested tables */
    int descriptive = !o->change_only && !o->null_study;
    if (rc == SIM_OK && descriptive) {
        rc = compute_accuracy(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_ratings(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_rt(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_items(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_questionnaire(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_timeouts(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_interactions(ds, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_error_detection(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_verify_glmm(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_team(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && descriptive) {
        rc = compute_distinction(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_primary(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && o->calibrate > 0 && !o->null_study) {
        rc = calibrate_report(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only && !o->null_study) {
        rc = primary_tables(r, err);
    }
    if (rc == SIM_OK && !o->change_only && !o->null_study) {
        rc = compute_metrics(ds, o, &sc, r, err);
    }
    screen_free(&sc);
    return rc;
}

int analyze_write(const Report *r, const char *out_dir, SimError *err)
{
    return report_write_dir(r, out_dir, err); /* swapped into place whole */
}

/* The reading's progress line: sources read of n, and the share of the
** one being read. */
typedef struct ReadLine {
    Progress p;
    int at, n;
    const char *path;
} ReadLine;

static void read_line(void *ctx, double share)
{
    ReadLine *l = ctx;
    const char *base = strrchr(l->path, '/');
    char detail[64];
    snprintf(detail, sizeof detail, "%d of %d: %.40s", l->at + 1, l->n,
             base ? base + 1 : l->path);
    progress_set(&l->p, (l->at + share) / l->n, detail);
}

int analyze_main(const AnalyzeOptions *o, const char *const *dbs, int n_dbs,
                 const char *const *csvs, int n_csvs, const char *out_dir,
                 SimError *err)
{
    Dataset *ds = NULL;
    Report r;
    memset(&r, 0, sizeof r);
    AnalyzeOptions oo = *o;
    Plan *plan = NULL;
    int rc = SIM_OK;
    if (o->plan_file) { /* a bad plan stops the run before the data */
        plan = sim_malloc(sizeof *plan);
        rc = plan ? plan_read(o->plan_file, plan, err)
                  : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        oo.plan = plan;
        o = &oo;
    }
    if (rc == SIM_OK) {
        rc = dataset_new(&ds, err);
    }
    ReadLine line = {{0}, 0, n_dbs + n_csvs, ""};
    progress_begin(&line.p, o->progress ? o->clk : NULL, "reading");
    if (rc == SIM_OK) {
        ds->progress = read_line;
        ds->progress_ctx = &line;
    }
    for (int i = 0; rc == SIM_OK && i < n_dbs; i++) {
        line.at = i;
        line.path = dbs[i];
        read_line(&line, 0);
        rc = sim_url_is_server(dbs[i]) ? dataset_load_pg(ds, dbs[i], err)
                                       : dataset_load_db(ds, dbs[i], err);
        /* a server's answers come with its copy (dataset_load_pg) */
        if (rc == SIM_OK && !sim_url_is_server(dbs[i])) {
            rc = questionnaire_load_db(ds, dbs[i], err);
        }
        if (rc == SIM_OK && !sim_url_is_server(dbs[i])) {
            rc = interactions_load_db(ds, dbs[i], err);
        }
    }
    DatasetCsvDialect dialect = {o->csv_delimiter, o->csv_encoding};
    for (int i = 0; rc == SIM_OK && i < n_csvs; i++) {
        line.at = n_dbs + i;
        line.path = csvs[i];
        read_line(&line, 0);
        rc = dataset_load_csv_dialect(ds, csvs[i], &dialect, err);
        if (rc == SIM_OK) {
            rc = questionnaire_load_csv(ds, csvs[i], err);
        }
        if (rc == SIM_OK) {
            rc = interactions_load_csv(ds, csvs[i], err);
        }
    }
    progress_end(&line.p);
    if (ds) {
        ds->progress = NULL;
    }
    if (rc == SIM_OK && ds->n_rows == 0) {
        rc = sim_fail(err, SIM_ERR_INVALID, "no responses in the input");
    }
    SimMetrics *metrics = NULL; /* a bad file stops the run before analysis */
    if (rc == SIM_OK && o->metrics_file) {
        rc = metrics_load(o->metrics_file, ds, o, &metrics, err);
    }
    /* the stored metrics join the file's, whose values win */
    if (rc == SIM_OK && metrics && ds->metrics &&
        sim_metrics_merge(metrics, ds->metrics) != 0) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (rc == SIM_OK && metrics) { /* else the stored ones (metrics.h) */
        oo.metrics = metrics;
        o = &oo;
    }
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, o, &r, err);
    }
    /* no one left: fail when a flag would keep them, else the exclusions
    ** are the report */
    int none = rc == SIM_OK ? screen_none_left(&r, err) : 0;
    if (none == 1) {
        rc = SIM_ERR_INVALID;
    } else if (none == 2 && err) {
        sim_escape_print(stderr, "simlab-analyze: warning: ", err->msg);
        sim_error_clear(err);
    }
    if (rc == SIM_OK && r.warnings) {
        /* names in the data may hold control characters */
        sim_escape_print(stderr, "simlab-analyze: warning: ", r.warnings);
    }
    if (rc == SIM_OK) {
        r.n_sources = n_dbs + n_csvs;
        r.sources = sim_calloc((size_t)r.n_sources + 1, sizeof(char *));
        for (int i = 0; r.sources && i < n_dbs; i++) {
            char red[512]; /* a server without its password */
            if (sim_url_is_server(dbs[i])) {
                sim_url_redact(dbs[i], red, sizeof red);
            }
            r.sources[i] = sim_strdup(sim_url_is_server(dbs[i]) ? red : dbs[i]);
        }
        for (int i = 0; r.sources && i < n_csvs; i++) {
            r.sources[n_dbs + i] = sim_strdup(csvs[i]);
        }
        if (!r.sources) {
            r.n_sources = 0;
        }
        rc = analyze_write(&r, out_dir, err);
    }
    if (rc == SIM_OK && !o->quiet) {
        analyze_print_summary(&r);
    }
    report_free(&r);
    dataset_free(ds);
    sim_free(plan);
    sim_metrics_free(metrics);
    return rc;
}

/* The CI and p columns of the summary; "-" where there is no value (e.g.
** with --replicates 0). */
static void summary_ci_p(double lo, double hi, double p, int sign, char *ci,
                         size_t ci_size, char *ps, size_t p_size)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        snprintf(ci, ci_size, "%16s", "-"); /* as wide as "[+0.000, +0.000]" */
    } else if (sign) {
        snprintf(ci, ci_size, "[%+.3f, %+.3f]", lo, hi);
    } else {
        snprintf(ci, ci_size, "[%.3f, %.3f]", lo, hi);
    }
    if (isfinite(p)) {
        snprintf(ps, p_size, "%.4f", p);
    } else {
        snprintf(ps, p_size, "-");
    }
}

/* The primary test: its rows, decisions and measured size. */
static void print_primary(const Report *r)
{
    const PrimaryResult *pr = &r->primary;
    char e1[256], e2[256], note[2000];
    if (pr->test < 0) {
        return;
    }
    printf("primary test: %s, %s (%s); alpha %g, %s\n",
           sim_primary_name(pr->test), sim_primary_title(pr->test), pr->source,
           pr->alpha, pr->holm ? "Holm" : "no correction");
    if (pr->formula[0]) {
        printf("  %s\n", pr->formula);
    }
    if (pr->n_rows > 0) {
        printf("%-14s %-26s %9s %20s %7s %7s  %s\n", "condition", "contrast",
               "estimate", "95% CI", "p", "p adj", "decision");
    }
    for (int i = 0; i < pr->n_rows; i++) {
        const PrimaryRow *x = &pr->rows[i];
        char ci[64], p[32], pa[32];
        summary_ci_p(x->ci_low, x->ci_high, x->p, 0, ci, sizeof ci, p,
                     sizeof p);
        summary_ci_p(NAN, NAN, x->p_adjusted, 0, e1, sizeof e1, pa, sizeof pa);
        printf("%-14s %-26s %9.3f %20s %7s %7s  %s\n",
               sim_escape_term(x->condition, e1, sizeof e1),
               sim_escape_term(x->contrast, e2, sizeof e2), x->estimate, ci, p,
               pa, x->decision ? x->decision : "-");
    }
    if (pr->look > 0) {
        printf("look %d of %d: critical |z| %.3f, alpha spent %.4g; "
               "decision: %s\n",
               pr->look, pr->n_looks, pr->critical_z, pr->alpha_spent,
               pr->decision);
    }
    if (pr->size_source && pr->size_studies > 0) {
        printf("size on this design: %.1f %% of %d null studies (95%% CI "
               "%.1f-%.1f %%; %s)\n",
               100 * pr->size_rate, pr->size_studies, 100 * pr->size_low,
               100 * pr->size_high, pr->size_source);
    }
    if (pr->planned) {
        printf("%s\n", pr->matches ? "confirmatory: as planned"
                                   : "exploratory: departs from the plan:");
        for (int i = 0; i < pr->n_deviations; i++) {
            printf("  - %s\n",
                   sim_escape_term(pr->deviations[i], note, sizeof note));
        }
    }
    if (r->n_change > 0 || r->n_utility > 0) {
        printf("\npublished methods (Hase & Bansal's Change, Colin et al.'s "
               "Utility; crossed bootstrap):\n");
    }
}

void analyze_print_summary(const Report *r)
{
    char ci[64], p[32], e1[256], e2[256]; /* names escaped */
    char from[700];
    printf("reference condition: %s%s%s (%s)\n", r->baseline ? "'" : "",
           r->baseline ? sim_escape_term(r->baseline, e1, sizeof e1) : "none",
           r->baseline ? "'" : "",
           sim_escape_term(r->baseline_from ? r->baseline_from : "", from,
                           sizeof from));
    print_primary(r);
    if (r->n_change > 0) {
        printf("%-22s %-14s %6s %7s %7s %7s %8s %18s %7s\n", "subset",
               "condition", "n", "pre", "pre_re", "post", "change", "95% CI",
               "p");
        for (int i = 0; i < r->n_change; i++) {
            const ChangeRow *c = &r->change[i];
            summary_ci_p(c->ci_low, c->ci_high, c->p, 1, ci, sizeof ci, p,
                         sizeof p);
            printf("%-22s %-14s %6d %7.3f %7.3f %7.3f %+8.3f %s %7s\n",
                   sim_escape_term(c->subset, e1, sizeof e1),
                   sim_escape_term(c->condition, e2, sizeof e2), c->n_responses,
                   c->pre_raw, c->pre_re, c->post, c->change, ci, p);
        }
    }
    if (r->n_utility > 0) {
        printf("%-14s %8s %18s %7s\n", "condition", "utility", "95% CI", "p");
        for (int i = 0; i < r->n_utility; i++) {
            const UtilityRow *u = &r->utility[i];
            sim_escape_term(u->condition, e2, sizeof e2);
            if (u->is_baseline) {
                printf("%-14s %8.3f %18s %7s\n", e2, u->utility, "(baseline)",
                       "-");
                continue;
            }
            summary_ci_p(u->ci_low, u->ci_high, u->p, 0, ci, sizeof ci, p,
                         sizeof p);
            printf("%-14s %8.3f %s %7s\n", e2, u->utility, ci, p);
        }
    }
    if (r->utility_note) {
        printf("%s\n", r->utility_note);
    }
}
