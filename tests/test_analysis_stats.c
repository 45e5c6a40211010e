/*
** Golden values of ANALYSIS.md for the numerical core: random-effects Pre,
** studentized range tails and quantile, ANOVA and Tukey-Kramer, logistic
** regression. The reference values and the two data sets are computed with
** R and lme4 by tests/data/analysis/make_stats_goldens.R and frozen in
** stats_goldens.txt, stats_tukey.csv and stats_ratings.csv beside it.
*/
#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#define DATA      SIMLAB_TEST_DATA "/analysis/"
#define MAX_LINES 64
#define MAX_WORDS 32

/* stats_goldens.txt, one line per reference case split into words */
static char g_text[MAX_LINES][1024];
static char *g_words[MAX_LINES][MAX_WORDS];
static int g_n_words[MAX_LINES], g_lines;

/* Reads stats_goldens.txt; 0, or -1 when it cannot be read. */
static int load_goldens(void)
{
    FILE *f = fopen(DATA "stats_goldens.txt", "r");
    if (!f) {
        return -1;
    }
    char line[1024];
    while (g_lines < MAX_LINES && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
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

/* The nth (from 0) golden line whose first word is key, or NULL; *n_words
** receives its word count. */
static char **golden(const char *key, int nth, int *n_words)
{
    for (int i = 0; i < g_lines; i++) {
        if (strcmp(g_words[i][0], key) == 0 && nth-- == 0) {
            *n_words = g_n_words[i];
            return g_words[i];
        }
    }
    *n_words = 0;
    return NULL;
}

/* Like golden(), but a missing line or a short one is a failure. */
static char **need(const char *key, int nth, int min_words)
{
    int n;
    char **w = golden(key, nth, &n);
    CHECK(w != NULL && n >= min_words);
    return w && n >= min_words ? w : NULL;
}

static void test_re_golden(void)
{
    char **c = need("re_case", 0, 2), **w = need("re_fit", 0, 4);
    if (!c || !w) {
        return;
    }
    int k = atoi(c[1]);
    double s[8], n[8], eta[32], pre[8];
    CHECK(k > 0 && k <= 8);
    if (k <= 0 || k > 8 || !need("re_case", 0, 2 + 2 * k) ||
        !need("re_fit", 0, 4 + k)) {
        return;
    }
    for (int i = 0; i < k; i++) {
        s[i] = atof(c[2 + i]);
        n[i] = atof(c[2 + k + i]);
    }
    ReFit fit;
    CHECK_INT(stats_re_fit(s, n, k, eta, pre, &fit), 0);
    CHECK_NEAR(fit.beta0, atof(w[1]), 1e-4);
    CHECK_NEAR(fit.sigma, atof(w[2]), 1e-4);
    CHECK_INT(fit.singular, atoi(w[3]));
    for (int i = 0; i < k; i++) {
        CHECK_NEAR(pre[i], atof(w[4 + i]), 1e-5);
    }
    printf("re: beta0 %.8f sigma %.8f iters %d\n", fit.beta0, fit.sigma,
           fit.iters);
}

static void test_re_singular(void)
{
    /* identical proportions: no between-group variance */
    double s[3] = {50, 50, 50}, n[3] = {100, 100, 100}, eta[12], pre[3];
    ReFit fit;
    CHECK_INT(stats_re_fit(s, n, 3, eta, pre, &fit), 0);
    CHECK_INT(fit.singular, 1);
    CHECK_NEAR(fit.sigma, 0, 1e-12);
    CHECK_NEAR(pre[1], 0.5, 1e-12);
    /* all correct: not estimable, pre = 1 */
    double s2[2] = {10, 20}, n2[2] = {10, 20};
    CHECK_INT(stats_re_fit(s2, n2, 2, eta, pre, &fit), -1);
    CHECK_NEAR(pre[0], 1.0, 0);
}

static void test_tukey_dist(void)
{
    int n_cases = 0, nw;
    double inf_tail = NAN;
    for (char **w; (w = golden("ptukey", n_cases, &nw)) != NULL; n_cases++) {
        CHECK(nw >= 5);
        if (nw < 5) {
            continue;
        }
        double df = strcmp(w[3], "inf") == 0 ? INFINITY : atof(w[3]);
        double q = atof(w[1]), want = atof(w[4]);
        int k = atoi(w[2]);
        double p = stats_ptukey_upper(q, k, df);
        CHECK_NEAR(p / want, 1.0, 1e-8);
        if (isinf(df) && q == 3.0 && k == 4) {
            inf_tail = want;
        }
    }
    CHECK_INT(n_cases, 7);
    char **w = need("qtukey", 0, 5);
    if (w) {
        CHECK_NEAR(stats_qtukey(atof(w[1]), atoi(w[2]), atof(w[3])), atof(w[4]),
                   1e-7);
    }
    /* a very large df approaches the df = infinity limit smoothly */
    CHECK(!isnan(inf_tail));
    double big = stats_ptukey_upper(3.0, 4, 1e6);
    CHECK_NEAR(big, inf_tail, 1e-5);
    CHECK(big != stats_ptukey_upper(3.0, 4, INFINITY));
}

/* Reads a two-column CSV with a header (no quotes in the values).
** Returns the number of rows, or -1 when the file is absent. */
static int read_pairs(const char *path, char names[][32], double *val,
                      int max_rows)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    char line[256];
    int rows = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    while (rows < max_rows && fgets(line, sizeof line, f)) {
        char *comma = strchr(line, ',');
        if (!comma) {
            continue;
        }
        *comma = '\0';
        char *name = line;
        if (*name == '"') {
            name++;
            name[strcspn(name, "\"")] = '\0';
        }
        snprintf(names[rows], 32, "%.31s", name);
        val[rows] = strtod(comma + 1, NULL);
        rows++;
    }
    fclose(f);
    return rows;
}

static const char *const levels[4] = {"baseline", "gradcam", "saliency",
                                      "rise"};

static int level_of(const char *name)
{
    for (int c = 0; c < 4; c++) {
        if (strcmp(name, levels[c]) == 0) {
            return c;
        }
    }
    return -1;
}

static void test_anova_tukey(void)
{
    static char names[64][32];
    double y[64];
    int n = read_pairs(DATA "stats_tukey.csv", names, y, 64);
    CHECK_INT(n, 22);
    if (n <= 0) {
        return;
    }
    int g[64];
    for (int i = 0; i < n; i++) {
        g[i] = level_of(names[i]);
        CHECK(g[i] >= 0);
        if (g[i] < 0) {
            return;
        }
    }
    char **w = need("anova", 0, 6);
    AnovaResult a;
    CHECK_INT(stats_anova(y, g, n, 4, &a), 0);
    if (w) {
        CHECK_NEAR(a.f, atof(w[1]), 1e-8);
        CHECK_NEAR(a.df_between, atof(w[2]), 0);
        CHECK_NEAR(a.df_within, atof(w[3]), 0);
        CHECK_NEAR(a.p, atof(w[4]), 1e-9);
        CHECK_NEAR(a.eta_sq, atof(w[5]), 1e-9);
    }
    TukeyPair pairs[6];
    CHECK_INT(stats_tukey(y, g, n, 4, 0.95, pairs), 6);
    /* (h, g, diff, lwr, upr, p adj) from R's TukeyHSD */
    for (int t = 0; t < 6; t++) {
        w = need("tukey", t, 7);
        if (!w) {
            continue;
        }
        int h = level_of(w[1]), gg = level_of(w[2]), found = 0;
        for (int i = 0; i < 6; i++) {
            if (pairs[i].h == h && pairs[i].g == gg) {
                found = 1;
                CHECK_NEAR(pairs[i].diff, atof(w[3]), 1e-10);
                CHECK_NEAR(pairs[i].lwr, atof(w[4]), 1e-8);
                CHECK_NEAR(pairs[i].upr, atof(w[5]), 1e-8);
                CHECK_NEAR(pairs[i].p_adj, atof(w[6]), 1e-9);
            }
        }
        CHECK(found);
    }
    /* a null study's pairs: the same differences, decision-grade p-values,
    ** no intervals */
    TukeyPair fast[6];
    CHECK_INT(stats_tukey_p(y, g, n, 4, fast), 6);
    for (int i = 0; i < 6; i++) {
        CHECK_INT(fast[i].g, pairs[i].g);
        CHECK_INT(fast[i].h, pairs[i].h);
        CHECK(fast[i].diff == pairs[i].diff);
        CHECK(isnan(fast[i].lwr) && isnan(fast[i].upr));
        CHECK_NEAR(fast[i].p_adj, pairs[i].p_adj, 1e-6);
    }
}

/* stats_ptukey_fast against R's ptukey (make_ptukey_fast.R): 1e-6 absolute
** where P(Q > q) <= 0.1, what a decision at 0.05 needs; 1e-5 above. k = 2
** against the t distribution. */
static void test_ptukey_fast(void)
{
    FILE *f = fopen(DATA "ptukey_fast.txt", "r");
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    char line[256], df_s[32];
    int n = 0, small = 0;
    double q, p;
    int k;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "ptukey_fast %lf %d %31s %lf", &q, &k, df_s, &p) !=
            4) {
            continue;
        }
        double df = strcmp(df_s, "inf") == 0 ? INFINITY : atof(df_s);
        double got = stats_ptukey_fast(q, k, df);
        CHECK_NEAR(got, p, p <= 0.1 ? 1e-6 : 1e-5);
        if (fabs(got - p) > (p <= 0.1 ? 1e-6 : 1e-5)) {
            fprintf(stderr, "  ptukey_fast(%g, %d, %s)\n", q, k, df_s);
        }
        n++;
        small += p <= 0.1;
    }
    fclose(f);
    CHECK_INT(n, 672);
    CHECK(small > 300);
    CHECK_NEAR(stats_ptukey_fast(3.1, 2, 12.0),
               2 * gsl_cdf_tdist_Q(3.1 / sqrt(2.0), 12.0), 1e-15);
    CHECK_NEAR(stats_ptukey_fast(3.1, 2, INFINITY),
               stats_ptukey_upper(3.1, 2, INFINITY), 1e-9);
    CHECK_NEAR(stats_ptukey_fast(0, 5, 10.0), 1.0, 0);
}

/* Data without any variation (every participant all correct) have no F
** and no p; a perfect split between groups has p = 0. */
static void test_anova_degenerate(void)
{
    double same[6] = {1, 1, 1, 1, 1, 1}, split[4] = {1, 1, 0, 0};
    int g[6] = {0, 0, 1, 1, 2, 2};
    AnovaResult a;
    CHECK_INT(stats_anova(same, g, 6, 3, &a), 0);
    CHECK(isnan(a.f));
    CHECK(isnan(a.p));
    CHECK(isnan(a.eta_sq));
    CHECK_INT(stats_anova(split, g, 4, 2, &a), 0);
    CHECK(isinf(a.f));
    CHECK_NEAR(a.p, 0, 0);
    CHECK_NEAR(a.eta_sq, 1, 0);
}

/* Out of memory part-way through the group statistics: -1, nothing leaks
** (the sanitizer build checks). */
static void test_tukey_nomem(void)
{
    double y[6] = {1, 2, 3, 4, 5, 7};
    int g[6] = {0, 0, 1, 1, 2, 2};
    TukeyPair pairs[3];
    /* stats_anova takes three blocks and frees them; the fifth fails */
    sim_alloc_fail_after(4);
    CHECK_INT(stats_tukey(y, g, 6, 3, 0.95, pairs), -1);
    sim_alloc_fail_after(-1);
    CHECK_INT(stats_tukey(y, g, 6, 3, 0.95, pairs), 3);
}

static void test_logit(void)
{
    static char names[512][32];
    double yv[512];
    int n = read_pairs(DATA "stats_ratings.csv", names, yv, 512);
    CHECK_INT(n, 400);
    char **w = need("glm", 0, 12), **pw = need("glm_pred", 0, 6);
    if (n <= 0 || !w || !pw) {
        return;
    }
    /* glm: b0 b1, se0 se1, z0 z1, p0 p1, deviance, null deviance, iters */
    int iters = atoi(w[11]);
    /* ungrouped: one response per row */
    double *x = malloc((size_t)n * sizeof *x);
    double *wt = malloc((size_t)n * sizeof *wt);
    for (int i = 0; i < n; i++) {
        x[i] = atof(names[i]);
        wt[i] = 1;
    }
    LogitFit f;
    CHECK_INT(stats_logit_fit(x, yv, wt, n, &f), 0);
    CHECK_NEAR(f.b0, atof(w[1]), 1e-9);
    CHECK_NEAR(f.se0, atof(w[3]), 1e-9);
    CHECK_NEAR(f.z0, atof(w[5]), 1e-8);
    CHECK_NEAR(f.p0, atof(w[7]), 1e-10);
    CHECK_NEAR(f.b1, atof(w[2]), 1e-9);
    CHECK_NEAR(f.se1, atof(w[4]), 1e-10);
    CHECK_NEAR(f.z1, atof(w[6]), 1e-8);
    CHECK_NEAR(f.p1, atof(w[8]), 1e-10);
    CHECK_NEAR(f.deviance, atof(w[9]), 1e-8);
    CHECK_NEAR(f.null_deviance, atof(w[10]), 1e-8);
    CHECK_INT(f.iters, iters);
    CHECK_INT(f.separation, 0);
    for (int r = 2; r <= 6; r++) {
        CHECK_NEAR(stats_expit(f.b0 + f.b1 * r), atof(pw[r - 1]), 1e-8);
    }
    /* grouped by rating: the same fit */
    double gx[8], gs[8], gw[8];
    for (int r = 0; r < 8; r++) {
        gx[r] = r;
        gs[r] = gw[r] = 0;
    }
    for (int i = 0; i < n; i++) {
        int r = (int)x[i];
        CHECK(r >= 0 && r < 8);
        if (r >= 0 && r < 8) {
            gs[r] += yv[i];
            gw[r] += 1;
        }
    }
    LogitFit fg;
    CHECK_INT(stats_logit_fit(gx, gs, gw, 8, &fg), 0);
    CHECK_NEAR(fg.b1, f.b1, 1e-10);
    CHECK_NEAR(fg.se1, f.se1, 1e-10);
    CHECK_NEAR(fg.deviance, f.deviance, 1e-8);
    CHECK_INT(fg.iters, iters);
    /* complete separation is detected, not reported as a fit */
    double sx[4] = {1, 2, 3, 4}, ss[4] = {0, 0, 5, 5}, sw[4] = {5, 5, 5, 5};
    CHECK_INT(stats_logit_fit(sx, ss, sw, 4, &fg), 0);
    CHECK_INT(fg.separation, 1);
    free(x);
    free(wt);
}

int main(void)
{
    if (load_goldens() != 0) {
        fprintf(stderr, "cannot read %sstats_goldens.txt\n", DATA);
        return 1;
    }
    test_re_golden();
    test_re_singular();
    test_tukey_dist();
    test_ptukey_fast();
    test_anova_degenerate();
    test_tukey_nomem();
    test_anova_tukey();
    test_logit();
    return TEST_REPORT();
}
