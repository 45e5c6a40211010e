/*
** Explanation metrics against people (analysis/metrics.c, rankcor.c):
** Kendall's tau_b and Spearman's rho against R's cor.test on tied values;
** on tests/data/metrics (make_metrics.R), the human effects as glmer's and
** every metric's tau and rho as cor.test's on them; the bootstrap
** intervals and same-best shares; the written report (metrics_vs_human in
** report.json, its csv and md section, the note for fewer than 5 methods);
** --metrics files with bad input: located errors, nothing written.
*/
#include "tests/harness.h"
#include "tests/test_report.h"
#include "tests/test_stimuli_fs.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/metrics.h"
#include "analysis/rankcor.h"
#include "analysis/report.h"

#define DATA SIMLAB_TEST_DATA "/metrics/"

static char g_dir[] = "/tmp/simlab-metrics-an-XXXXXX";

/* Line "KEY NAME a b" of the goldens: a and b (b may be NULL). */
static int golden(const char *key, const char *name, double *a, double *b)
{
    FILE *f = fopen(DATA "metrics_goldens.txt", "r");
    char line[400];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        char k[64], n[64];
        double x = NAN, y = NAN;
        if (name && sscanf(line, "%63s %63s %lf %lf", k, n, &x, &y) >= 3 &&
            strcmp(k, key) == 0 && strcmp(n, name) == 0) {
            *a = x;
            if (b) {
                *b = y;
            }
            found = 1;
        } else if (!name && sscanf(line, "%63s %lf %lf", k, &x, &y) == 3 &&
                   strcmp(k, key) == 0) {
            *a = x;
            *b = y;
            found = 1;
        }
    }
    if (f) {
        fclose(f);
    }
    return found;
}

static void test_rankcor(void)
{
    const double x[] = {1, 2, 2, 3, 5, 5, 5, 8};
    const double y[] = {2, 1, 4, 4, 6, 3, 9, 9};
    double tau = NAN, rho = NAN, work[16];
    CHECK(golden("ties", NULL, &tau, &rho));
    CHECK_NEAR(rankcor_kendall(x, y, 8), tau, 1e-10);
    CHECK_NEAR(rankcor_spearman(x, y, 8, work), rho, 1e-10);
    const double c[] = {1, 1, 1};
    CHECK(isnan(rankcor_kendall(c, y, 3)));
    CHECK(isnan(rankcor_spearman(c, y, 3, work)));
    double r[4];
    const double z[] = {3, 1, 3, 2};
    rankcor_ranks(z, 4, r);
    CHECK_NEAR(r[0], 3.5, 0);
    CHECK_NEAR(r[1], 1, 0);
    CHECK_NEAR(r[3], 2, 0);
}

static void options(AnalyzeOptions *o)
{
    analyze_options_default(o);
    o->replicates = 400;
    o->quiet = 1;
    o->progress = 0;
    o->plots = 0;
    o->baseline = "baseline";
}

static int computed(const char *metrics, AnalyzeOptions *o, Report *r,
                    SimMetrics **m)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    int rc = dataset_load_csv(ds, DATA "data.csv", &err);
    if (rc == SIM_OK) {
        rc = metrics_load(metrics, ds, o, m, &err);
    }
    o->metrics = *m;
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, o, r, &err);
    } else {
        memset(r, 0, sizeof *r);
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    dataset_free(ds);
    return rc;
}

/* The fixture against R: glmer's effects, cor.test's tau and rho. */
static void test_against_r(void)
{
    AnalyzeOptions o;
    options(&o);
    Report r;
    SimMetrics *m = NULL;
    CHECK_INT(computed(DATA "metrics.csv", &o, &r, &m), SIM_OK);
    const Table *pt = report_table(&r, "metrics_methods");
    const Table *t = report_table(&r, "metrics_vs_human");
    CHECK(pt && t);
    if (!pt || !t) {
        return;
    }
    static const char *const methods[] = {"alpha", "beta", "gamma", "delta",
                                          "eps"};
    for (int k = 0; k < 5; k++) {
        double want = NAN;
        CHECK(golden("effect", methods[k], &want, NULL));
        int hits = 0;
        for (int i = 0; i < pt->n_rows; i++) {
            if (strcmp(table_cell(pt, i, 1)->text, methods[k]) == 0) {
                CHECK_NEAR(test_num(pt, i, "human_effect"), want, 1e-3);
                CHECK(test_num(pt, i, "effect_ci") < want);
                CHECK(table_cell(pt, i, 4)->y > want);
                hits++;
            }
        }
        CHECK_INT(hits, 3); /* one per metric */
    }
    static const char *const metrics[] = {"faithfulness", "sparsity",
                                          "mass_in_mask"};
    for (int k = 0; k < 3; k++) {
        double tau = NAN, rho = NAN;
        CHECK(golden("cor", metrics[k], &tau, &rho));
        int i = test_row(t, "metric", metrics[k]);
        CHECK(i >= 0);
        CHECK_STR(table_cell(t, i, 1)->text, "method");
        CHECK_NEAR(test_num(t, i, "n_methods"), 5, 0);
        CHECK_NEAR(test_num(t, i, "kendall_tau"), tau, 1e-9);
        CHECK_NEAR(test_num(t, i, "spearman_rho"), rho, 1e-9);
        const TableCell *ci = table_cell(t, i, table_column(t, "tau_ci"));
        CHECK(ci->x >= -1 && ci->x <= ci->y && ci->y <= 1);
        CHECK(ci->x < ci->y); /* the bootstrap moves the ranks */
        ci = table_cell(t, i, table_column(t, "rho_ci"));
        CHECK(ci->x >= -1 && ci->x <= ci->y && ci->y <= 1);
        double top = test_num(t, i, "top_agreement");
        CHECK(top >= 0 && top <= 1);
    }
    /* the item level: glmer's slopes per method, estimate 1e-3, SE 1 % */
    for (int k = 0; k < 5; k++) {
        double est = NAN, se = NAN;
        CHECK(golden("item", methods[k], &est, &se));
        int i = -1;
        for (int q = 0; q < t->n_rows; q++) {
            const char *lv = table_cell(t, q, 1)->text;
            const char *cd = table_cell(t, q, 2)->text;
            if (strcmp(lv, "item") == 0 && cd && strcmp(cd, methods[k]) == 0 &&
                strcmp(table_cell(t, q, 0)->text, "mass_in_mask") == 0) {
                i = q;
            }
        }
        CHECK(i >= 0);
        double b = log(test_num(t, i, "odds_ratio_per_sd"));
        const TableCell *ci = table_cell(t, i, table_column(t, "ci"));
        double s = (log(ci->y) - log(ci->x)) / (2 * 1.959963984540054);
        CHECK_NEAR(b, est, 1e-3);
        CHECK_NEAR(s / se, 1, 0.01);
        double p = test_num(t, i, "p");
        CHECK_NEAR(p, erfc(fabs(est / se) / sqrt(2)), 1e-3);
    }
    /* method-level metrics have no item rows */
    int items = 0;
    for (int q = 0; q < t->n_rows; q++) {
        items += strcmp(table_cell(t, q, 1)->text, "item") == 0;
    }
    CHECK_INT(items, 5);
    /* alpha is the people's best by far; faithfulness ranks it first too,
    ** sparsity (lower is better) puts eps first */
    CHECK(test_num(t, test_row(t, "metric", "faithfulness"), "top_agreement") >
          0.8);
    CHECK(test_num(t, test_row(t, "metric", "sparsity"), "top_agreement") <
          0.2);
    /* the same seed gives the same intervals */
    Report r2;
    SimMetrics *m2 = NULL;
    CHECK_INT(computed(DATA "metrics.csv", &o, &r2, &m2), SIM_OK);
    const Table *t2 = report_table(&r2, "metrics_vs_human");
    CHECK(t2 && table_cell(t2, 0, 5)->x == table_cell(t, 0, 5)->x &&
          table_cell(t2, 0, 5)->y == table_cell(t, 0, 5)->y);
    report_free(&r2);
    sim_metrics_free(m2);
    report_free(&r);
    sim_metrics_free(m);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The written report: report.json, the csv, the md section. */
static void test_files(void)
{
    AnalyzeOptions o;
    options(&o);
    char out[700], mpath[700], path[800];
    snprintf(out, sizeof out, "%s/out", g_dir);
    /* three methods: the note on wide intervals */
    snprintf(mpath, sizeof mpath, "%s/three.csv", g_dir);
    write_file(mpath, "method,metric,value\nalpha,f,3\nbeta,f,1\ngamma,f,2\n");
    o.metrics_file = mpath;
    o.plots = PLOT_PNG | PLOT_SVG;
    const char *csvs[1] = {DATA "data.csv"};
    SimError err;
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    json_t *rows = json_object_get(root, "metrics_vs_human");
    CHECK(json_is_array(rows) && json_array_size(rows) == 1);
    json_t *row = json_array_get(rows, 0);
    static const char *const keys[] = {"metric",
                                       "level",
                                       "kendall_tau",
                                       "tau_ci_low",
                                       "tau_ci_high",
                                       "spearman_rho",
                                       "rho_ci_low",
                                       "rho_ci_high",
                                       "top_agreement",
                                       "condition",
                                       "odds_ratio_per_sd",
                                       "ci_low",
                                       "ci_high",
                                       "p"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (!json_object_get(row, keys[k])) {
            fprintf(stderr, "report.json metrics_vs_human: no %s\n", keys[k]);
            CHECK(0);
        }
    }
    CHECK_STR(json_string_value(json_object_get(row, "level")), "method");
    json_decref(root);
    snprintf(path, sizeof path, "%s/metrics_vs_human.csv", out);
    char *csv = fs_read(path, NULL);
    CHECK(csv && strncmp(csv,
                         "metric,level,condition,n_methods,kendall_tau,"
                         "tau_ci_low,tau_ci_high,spearman_rho,rho_ci_low,"
                         "rho_ci_high,top_agreement,odds_ratio_per_sd,"
                         "ci_low,ci_high,p\n",
                         150) == 0);
    free(csv);
    snprintf(path, sizeof path, "%s/report.md", out);
    char *md = fs_read(path, NULL);
    CHECK(md && strstr(md, "\n## Automated metrics against people\n"));
    CHECK(md && strstr(md, "With 3 methods the intervals are wide"));
    free(md);
    /* the picture: one panel per metric, labelled points */
    snprintf(path, sizeof path, "%s/metrics_vs_human.png", out);
    struct stat pb;
    CHECK(stat(path, &pb) == 0 && pb.st_size > 1000);
    snprintf(path, sizeof path, "%s/metrics_vs_human.svg", out);
    char *svg = fs_read(path, NULL);
    CHECK(svg && strstr(svg, "<svg") != NULL);
    free(svg);
    /* a bad file: a located error, nothing written */
    char out2[700];
    snprintf(out2, sizeof out2, "%s/out2", g_dir);
    write_file(mpath, "method,metric,value\nalpha,f,3\nbta,f,1\nalpha,f,2\n");
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out2, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "three.csv:4: a second row for method 'alpha'") ||
          strstr(err.msg, "three.csv:3: column 'method': 'bta' is not a "
                          "condition of the study (did you mean 'beta'?)"));
    struct stat sb;
    CHECK(stat(out2, &sb) != 0);
    write_file(mpath, "method,metric,value\nbta,f,1\n");
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out2, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "three.csv:2: column 'method': 'bta' is not a "
                          "condition of the study (did you mean 'beta'?)"));
    write_file(mpath, "method,item,metric,value\nbeta,q99,f,inf\n");
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out2, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "three.csv:2: column 'value': 'inf' is not a "
                          "finite number"));
    write_file(mpath, "method,item,metric,value\nbeta,q1,f,1\n");
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out2, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "'q1' is not an item of the study (did you mean"));
    CHECK(stat(out2, &sb) != 0);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    test_rankcor();
    test_against_r();
    test_files();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}
