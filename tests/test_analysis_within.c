/*
** Within-subject designs: the design is detected (complete or not),
** paired t tests against the baseline with Holm's adjustment and the
** repeated-measures ANOVA with the Greenhouse-Geisser correction match R
** (tests/data/analysis-within/make_within.R), and the bootstrap draws a
** participant with all its conditions.
*/
#include "tests/harness.h"
#include "tests/test_report.h"
#include "analysis/analyze.h"
#include "analysis/boot.h"
#include "analysis/dataset.h"
#include "analysis/report.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#define DATA      SIMLAB_TEST_DATA "/analysis-within/"
#define MAX_LINES 32
#define MAX_WORDS 16

static char g_text[MAX_LINES][512];
static char *g_words[MAX_LINES][MAX_WORDS];
static int g_n_words[MAX_LINES], g_lines;

static int load_goldens(void)
{
    FILE *f = fopen(DATA "within_goldens.txt", "r");
    if (!f) {
        return -1;
    }
    char line[512];
    while (g_lines < MAX_LINES && fgets(line, sizeof line, f)) {
        snprintf(g_text[g_lines], sizeof g_text[0], "%s", line);
        int n = 0;
        for (char *t = strtok(g_text[g_lines], " \n"); t && n < MAX_WORDS;
             t = strtok(NULL, " \n")) {
            g_words[g_lines][n++] = t;
        }
        g_n_words[g_lines++] = n;
    }
    fclose(f);
    return 0;
}

/* The golden line whose first words are k1 (and k2 when not NULL). */
static char **golden(const char *k1, const char *k2, int min_words)
{
    for (int i = 0; i < g_lines; i++) {
        if (g_n_words[i] >= min_words && strcmp(g_words[i][0], k1) == 0 &&
            (!k2 || strcmp(g_words[i][2], k2) == 0 ||
             strcmp(g_words[i][1], k2) == 0)) {
            return g_words[i];
        }
    }
    CHECK(!"golden line missing");
    return NULL;
}

#define TOL 1e-10

static void options(AnalyzeOptions *o, int B)
{
    analyze_options_default(o);
    o->replicates = B;
    o->progress = 0;
    o->quiet = 1;
    o->plots = 0;
}

/* The fixture against R: paired tests, Holm, RM-ANOVA, group means, and
** the per-condition counts of a within design. */
static void test_fixture_against_r(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, DATA "within.csv", &err), SIM_OK);
    AnalyzeOptions o;
    options(&o, 0);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);

    const Table *d = test_table(&r, "design");
    CHECK(d && d->n_rows == 1);
    if (d) {
        CHECK_STR(test_text(d, 0, "kind"), "within");
        CHECK_NEAR(test_num(d, 0, "participants"), 20, 0);
        CHECK_NEAR(test_num(d, 0, "conditions"), 4, 0);
    }
    /* every analysed participant counts in every condition */
    CHECK_INT(r.n_counts, 4);
    for (int c = 0; c < r.n_counts; c++) {
        CHECK_INT(r.counts[c].enrolled, 21);
        CHECK_INT(r.counts[c].analysed, 20);
    }

    const Table *p = test_table(&r, "paired");
    CHECK(p && p->n_rows == 3);
    const char *conds[3] = {"lime", "anchor", "shap"};
    for (int i = 0; p && i < 3 && i < p->n_rows; i++) {
        char **w = golden("paired", conds[i], 11);
        if (!w) {
            continue;
        }
        CHECK_STR(test_text(p, i, "a"), w[1]);
        CHECK_STR(test_text(p, i, "b"), w[2]);
        CHECK_NEAR(test_num(p, i, "n_participants"), atof(w[3]), 0);
        CHECK_NEAR(test_num(p, i, "diff"), atof(w[4]), TOL);
        CHECK_NEAR(test_num(p, i, "t"), atof(w[5]), 1e-9);
        CHECK_NEAR(test_num(p, i, "df"), atof(w[6]), 0);
        CHECK_NEAR(test_num(p, i, "p"), atof(w[7]), TOL);
        CHECK_NEAR(test_num(p, i, "p_holm"), atof(w[8]), TOL);
        CHECK_NEAR(test_num(p, i, "ci"), atof(w[9]), TOL);
        CHECK_NEAR(test_hi(p, i, "ci"), atof(w[10]), TOL);
    }

    const Table *a = test_table(&r, "anova");
    char **w = golden("rm", NULL, 10);
    CHECK(a && a->n_rows == 1 && a->object);
    if (a && w && a->n_rows == 1) {
        CHECK_STR(test_text(a, 0, "design"), "within");
        CHECK_NEAR(test_num(a, 0, "n_participants"), atof(w[1]), 0);
        CHECK_NEAR(test_num(a, 0, "f"), atof(w[3]), 1e-9);
        CHECK_NEAR(test_num(a, 0, "df_between"), atof(w[4]), 0);
        CHECK_NEAR(test_num(a, 0, "df_within"), atof(w[5]), 0);
        CHECK_NEAR(test_num(a, 0, "p"), atof(w[6]), TOL);
        CHECK_NEAR(test_num(a, 0, "partial_eta_sq"), atof(w[7]), TOL);
        CHECK_NEAR(test_num(a, 0, "eta_sq"), atof(w[7]), TOL);
        CHECK_NEAR(test_num(a, 0, "gg_epsilon"), atof(w[8]), TOL);
        CHECK_NEAR(test_num(a, 0, "df_between_gg"), atof(w[8]) * atof(w[4]),
                   TOL);
        CHECK_NEAR(test_num(a, 0, "p_gg"), atof(w[9]), TOL);
    }
    CHECK_INT(r.n_groups, 4);
    const char *all[4] = {"baseline", "lime", "anchor", "shap"};
    for (int c = 0; c < 4 && c < r.n_groups; c++) {
        char **g = golden("group", all[c], 5);
        if (g) {
            CHECK_STR(r.groups[c].condition, all[c]);
            CHECK_INT(r.groups[c].n, atoi(g[2]));
            CHECK_NEAR(r.groups[c].mean, atof(g[3]), TOL);
            CHECK_NEAR(r.groups[c].sd, atof(g[4]), TOL);
        }
    }
    /* no Tukey HSD in a within design, but the key stays */
    const Table *t = test_table(&r, "tukey");
    CHECK(t && t->n_rows == 0);
    report_free(&r);
    dataset_free(ds);
}

/* The statistics on their own: Holm with NaN and ties, degenerate cases,
** and for two conditions F = t^2 with epsilon 1. */
static void test_stats(void)
{
    char **in = golden("holm_in", NULL, 8), **out = golden("holm_out", NULL, 8);
    if (in && out) {
        double p[7], adj[7];
        for (int i = 0; i < 7; i++) {
            p[i] = strcmp(in[1 + i], "nan") == 0 ? NAN : atof(in[1 + i]);
        }
        stats_p_holm(p, 7, adj);
        for (int i = 0; i < 7; i++) {
            if (strcmp(out[1 + i], "nan") == 0) {
                CHECK(isnan(adj[i]));
            } else {
                CHECK_NEAR(adj[i], atof(out[1 + i]), 1e-15);
            }
        }
        stats_p_holm(p, 7, p); /* in place */
        CHECK_NEAR(p[4], adj[4], 0);
    }
    double a[6] = {0.5, 0.6, 0.7, 0.4, 0.55, 0.65};
    double b[6] = {0.6, 0.8, 0.7, 0.6, 0.50, 0.90};
    PairedT pt;
    CHECK_INT(stats_paired_t(a, b, 6, &pt), 0);
    double y[12];
    for (int i = 0; i < 6; i++) {
        y[2 * i] = a[i];
        y[2 * i + 1] = b[i];
    }
    RmAnovaResult rm;
    CHECK_INT(stats_rm_anova(y, 6, 2, &rm), 0);
    CHECK_NEAR(rm.f, pt.t * pt.t, 1e-10);
    CHECK_NEAR(rm.p, pt.p, 1e-10);
    CHECK_NEAR(rm.gg_epsilon, 1, 1e-12);
    CHECK_NEAR(rm.p_gg, rm.p, 1e-12);
    CHECK_INT(stats_rm_anova(y, 1, 2, &rm), -1);
    CHECK_INT(stats_paired_t(a, b, 1, &pt), -1);
    CHECK(isnan(pt.diff));
    /* constant differences: no t (R: "data are essentially constant") */
    double c[3] = {0.1, 0.2, 0.3}, e[3] = {0.2, 0.3, 0.4};
    CHECK_INT(stats_paired_t(c, e, 3, &pt), 0);
    CHECK_NEAR(pt.diff, 0.1, 1e-15);
    CHECK(isnan(pt.t) && isnan(pt.p));
}

/* K participants in two conditions: unit 2k + c is participant k in
** condition c, with one pair in cell k, so the sums show each unit's
** multiplicity. */
#define K 24

static int g_unit_cond[2 * K], g_unit_stratum[2 * K], g_unit_block[2 * K];
static int g_item_group[2 * K];
static size_t g_unit_off[2 * K + 1];
static BootPair g_pairs[2 * K];

static BootDesign two_condition_design(int blocks)
{
    for (int u = 0; u < 2 * K; u++) {
        g_unit_cond[u] = u % 2;
        g_unit_stratum[u] = u % 2;
        g_unit_block[u] = u / 2;
        g_item_group[u] = 0;
        g_unit_off[u] = (size_t)u;
        g_pairs[u].item = u;
        g_pairs[u].cell = (uint8_t)(u / 2);
        g_pairs[u].ya = 1;
        g_pairs[u].yb = (uint8_t)(u % 3 == 0);
    }
    g_unit_off[2 * K] = 2 * K;
    BootDesign d;
    memset(&d, 0, sizeof d);
    d.n_units = 2 * K;
    d.unit_cond = g_unit_cond;
    d.unit_stratum = g_unit_stratum;
    d.n_conds = 2;
    d.n_strata = 2;
    d.n_items = 2 * K;
    d.item_group = g_item_group;
    d.n_groups = 1;
    d.n_cells = K;
    d.unit_off = g_unit_off;
    d.pairs = g_pairs;
    d.items_fixed = 1;
    d.unit_block = blocks ? g_unit_block : NULL;
    return d;
}

/* 1 when every participant has the same weight in both conditions. */
static void together_stat(const void *ctx, const BootSums *s, void *scratch,
                          double *out)
{
    (void)ctx;
    (void)scratch;
    int same = 1;
    double total = 0;
    for (int k = 0; k < K; k++) {
        same &= s->n[k] == s->n[K + k];
        total += s->n[k];
    }
    out[0] = same;
    out[1] = total;
}

static void test_boot_blocks(void)
{
    BootDesign paired = two_condition_design(1);
    BootDesign units = two_condition_design(0);
    BootRun run;
    memset(&run, 0, sizeof run);
    run.seed = 7;
    run.replicates = 300;
    run.threads = 3;
    run.stat = together_stat;
    run.n_stats = 2;
    double *rp = NULL, *ru = NULL;
    SimError err;
    CHECK_INT(boot_run(&paired, &run, &rp, &err), SIM_OK);
    CHECK_INT(boot_run(&units, &run, &ru, &err), SIM_OK);
    int all_paired = 1, units_apart = 0;
    for (int b = 0; rp && ru && b < run.replicates; b++) {
        all_paired &= rp[2 * b] == 1;
        units_apart += ru[2 * b] == 0;
        CHECK_NEAR(rp[2 * b + 1], K, 0); /* K participant draws */
    }
    CHECK(all_paired);
    CHECK(units_apart > 250); /* unit draws split the participants */
    sim_free(rp);
    sim_free(ru);

    /* blocks of one unit draw exactly as units (the between path) */
    for (int u = 0; u < 2 * K; u++) {
        g_unit_block[u] = u;
    }
    paired.unit_block = g_unit_block;
    int ua[2 * K], ub[2 * K], same = 1;
    for (int b = 0; b < 20; b++) {
        CHECK_INT(boot_draw_units(&paired, 11, b, ua), 0);
        CHECK_INT(boot_draw_units(&units, 11, b, ub), 0);
        same &= memcmp(ua, ub, sizeof ua) == 0;
    }
    CHECK(same);
}

/* N participants x 2 conditions x J items, with strong participant
** effects; paired: the same participant ids in both conditions, else one
** id per (participant, condition). */
static Dataset *ability_dataset(int paired, int n_part, int n_items)
{
    Dataset *ds = NULL;
    SimError err;
    dataset_new(&ds, &err);
    SimRng rng;
    sim_rng_seed_stream(&rng, 99, 0);
    const char *conds[2] = {"baseline", "treated"};
    for (int p = 0; p < n_part; p++) {
        /* ability from -2.5 to 2.5 on the logit scale, shuffled order */
        double ability = -2.5 + 5.0 * (double)((p * 7) % n_part) / n_part;
        for (int c = 0; c < 2; c++) {
            double pr = stats_expit(ability + 0.4 * c);
            for (int j = 0; j < n_items; j++) {
                char part[32], item[32];
                snprintf(part, sizeof part, paired ? "P%d" : "P%d-%d", p, c);
                snprintf(item, sizeof item, "%s-%d", conds[c], j);
                DatasetRow row;
                memset(&row, 0, sizeof row);
                row.participant = part;
                row.condition = conds[c];
                row.phase = "test";
                row.item = item;
                row.correct = sim_rng_uniform(&rng) < pr;
                row.session = 1;
                row.rt_ms = NAN;
                CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
            }
        }
    }
    return ds;
}

/* Same responses, analysed paired and unpaired: the paired Utility
** interval is much narrower, as the participant effects cancel. */
static void test_paired_interval(void)
{
    double width[2];
    for (int paired = 0; paired < 2; paired++) {
        Dataset *ds = ability_dataset(paired, 40, 16);
        AnalyzeOptions o;
        options(&o, 400);
        o.threads = 2;
        Report r;
        SimError err;
        CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
        const Table *d = test_table(&r, "design");
        CHECK(d && d->n_rows == 1);
        if (d) {
            CHECK_STR(test_text(d, 0, "kind"), paired ? "within" : "between");
        }
        const Table *p = test_table(&r, "paired");
        CHECK(p && p->n_rows == (paired ? 1 : 0));
        CHECK(p && (p->formats & TABLE_MD) == (paired ? TABLE_MD : 0u));
        CHECK_INT(r.n_utility, 2);
        width[paired] =
            r.n_utility == 2 ? r.utility[1].ci_high - r.utility[1].ci_low : NAN;
        CHECK(r.n_utility == 2 && r.utility[1].utility > 1);
        report_free(&r);
        dataset_free(ds);
    }
    CHECK(isfinite(width[0]) && isfinite(width[1]));
    CHECK(width[1] < 0.7 * width[0]);
}

static void add_rt(Dataset *ds, const char *part, const char *cond,
                   int excluded, double rt_ms)
{
    DatasetRow row;
    memset(&row, 0, sizeof row);
    row.participant = part;
    row.condition = cond;
    row.phase = "test";
    row.item = "i1";
    row.correct = 1;
    row.session = 1;
    row.excluded = excluded;
    row.rt_ms = rt_ms;
    SimError err;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
}

static void add(Dataset *ds, const char *part, const char *cond, int excluded)
{
    add_rt(ds, part, cond, excluded, NAN);
}

/* Time per participant and condition: a participant's time in each
** condition counts there, not all of it in its first condition. */
static void test_rt(void)
{
    Dataset *ds = NULL;
    SimError err;
    dataset_new(&ds, &err);
    add_rt(ds, "P0", "baseline", 0, 1000);
    add_rt(ds, "P0", "a", 0, 3000);
    add_rt(ds, "P0", "a", 0, 1000);
    add_rt(ds, "P1", "a", 0, 5000);
    add_rt(ds, "P1", "baseline", 0, 2000);
    AnalyzeOptions o;
    options(&o, 0);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.n_rt, 2);
    if (r.n_rt == 2) {
        CHECK_STR(r.rt[0].condition, "baseline");
        CHECK_INT(r.rt[0].n_participants, 2);
        CHECK_NEAR(r.rt[0].mean_s, 1.5, 1e-12);
        CHECK_STR(r.rt[1].condition, "a");
        CHECK_INT(r.rt[1].n_participants, 2);
        CHECK_NEAR(r.rt[1].mean_s, 4.5, 1e-12);
    }
    report_free(&r);
    dataset_free(ds);
}

/* A participant in some but not all conditions: the design is within,
** incomplete (the mixed model fits it, as lme4 would; the RM-ANOVA leaves
** the participant out); once it is excluded the design is complete. */
static void test_incomplete(void)
{
    for (int exclude = 0; exclude < 2; exclude++) {
        Dataset *ds = NULL;
        SimError err;
        dataset_new(&ds, &err);
        const char *conds[3] = {"baseline", "a", "b"};
        for (int p = 0; p < 3; p++) {
            char name[8];
            snprintf(name, sizeof name, "P%d", p);
            for (int c = 0; c < 3; c++) {
                add(ds, name, conds[c], 0);
            }
        }
        add(ds, "Q", "a", exclude);
        add(ds, "Q", "b", exclude);
        AnalyzeOptions o;
        options(&o, 0);
        Report r;
        CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
        const Table *d = test_table(&r, "design");
        CHECK(d && d->n_rows == 1 &&
              strcmp(test_text(d, 0, "kind"), "within") == 0);
        CHECK_NEAR(test_num(d, 0, "participants"), exclude ? 3 : 4, 0);
        CHECK_NEAR(test_num(d, 0, "incomplete"), exclude ? 0 : 1, 0);
        CHECK(!exclude == (d && d->note && strstr(d->note, "incomplete")));
        report_free(&r);
        dataset_free(ds);
    }
}

/* The written files: paired.csv with its columns, paired in report.json. */
static void test_files(void)
{
    Dataset *ds = NULL;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, DATA "within.csv", &err), SIM_OK);
    AnalyzeOptions o;
    options(&o, 50);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    char dir[] = "/tmp/simlab_within_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(analyze_write(&r, dir, &err), SIM_OK);
    char path[256], line[256] = "";
    snprintf(path, sizeof path, "%s/paired.csv", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        CHECK(fgets(line, sizeof line, f) != NULL);
        CHECK_STR(line, "a,b,n_participants,diff,t,df,p,p_holm,ci_low,"
                        "ci_high\n");
        int rows = 0;
        while (fgets(line, sizeof line, f)) {
            rows++;
        }
        CHECK_INT(rows, 3);
        fclose(f);
    }
    const char *names[] = {"paired.csv",    "report.md",   "report.tex",
                           "report.json",   "change.csv",  "utility.csv",
                           "tukey.csv",     "ratings.csv", "rt.csv",
                           "exclusions.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    report_free(&r);
    dataset_free(ds);
}

int main(void)
{
    if (load_goldens() != 0) {
        fprintf(stderr, "cannot read %swithin_goldens.txt\n", DATA);
        return 1;
    }
    test_fixture_against_r();
    test_stats();
    test_boot_blocks();
    test_paired_interval();
    test_incomplete();
    test_rt();
    test_files();
    return TEST_REPORT();
}
