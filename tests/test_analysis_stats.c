/*
** Golden values of ANALYSIS.md for the numerical core: random-effects Pre,
** studentized range tails and quantile, ANOVA and Tukey-Kramer, logistic
** regression. Needs ../shared for the two golden data sets (skips without).
*/
#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>

static void test_re_golden(void)
{
    double s[5] = {208, 154, 189, 163, 194};
    double n[5] = {320, 320, 320, 320, 320};
    double eta[20], pre[5];
    const double want[5] = {0.63393605, 0.49787962, 0.58631085, 0.52065949,
                            0.59888261};
    ReFit fit;
    CHECK_INT(stats_re_fit(s, n, 5, eta, pre, &fit), 0);
    CHECK_NEAR(fit.beta0, 0.27515320, 1e-4);
    CHECK_NEAR(fit.sigma, 0.23086793, 1e-4);
    CHECK_INT(fit.singular, 0);
    for (int c = 0; c < 5; c++) {
        CHECK_NEAR(pre[c], want[c], 1e-5);
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
    struct {
        double q;
        int k;
        double df, want;
    } g[] = {
        {3.5, 3, 20, 0.0558918490817},     {3.5, 5, 10, 0.172624662133},
        {4.0, 11, 100, 0.16271654697},     {2.0, 2, 5, 0.21643722927},
        {5.0, 10, 1000, 0.0154197804996},  {6.0, 11, 630, 0.00127224812344},
        {3.0, 4, INFINITY, 0.146271481048}};
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        double p = stats_ptukey_upper(g[i].q, g[i].k, g[i].df);
        CHECK_NEAR(p / g[i].want, 1.0, 1e-8);
    }
    CHECK_NEAR(stats_qtukey(0.95, 4, 18), 3.99697767, 1e-7);
    /* a very large df approaches the df = infinity limit smoothly */
    double big = stats_ptukey_upper(3.0, 4, 1e6);
    CHECK_NEAR(big, 0.146271481048, 1e-5);
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

static int test_anova_tukey(void)
{
    static char names[64][32];
    double y[64];
    int n = read_pairs(SIMLAB_SHARED_DIR "/data/goldens/tukey_data.csv", names,
                       y, 64);
    if (n < 0) {
        return -1;
    }
    const char *levels[4] = {"baseline", "gradcam", "saliency", "rise"};
    int g[64];
    for (int i = 0; i < n; i++) {
        g[i] = -1;
        for (int c = 0; c < 4; c++) {
            if (strcmp(names[i], levels[c]) == 0) {
                g[i] = c;
            }
        }
        CHECK(g[i] >= 0);
    }
    AnovaResult a;
    CHECK_INT(stats_anova(y, g, n, 4, &a), 0);
    CHECK_NEAR(a.f, 7.8995885972, 1e-8);
    CHECK_NEAR(a.df_between, 3, 0);
    CHECK_NEAR(a.df_within, 18, 0);
    CHECK_NEAR(a.p, 0.0014333690, 1e-9);
    CHECK_NEAR(a.eta_sq, 0.5683325475, 1e-9);
    TukeyPair pairs[6];
    CHECK_INT(stats_tukey(y, g, n, 4, 0.95, pairs), 6);
    /* (h, g, diff, lwr, upr, p adj) from R's TukeyHSD */
    const struct {
        int h, g;
        double diff, lwr, upr, p;
    } want[6] = {
        {1, 0, 0.14066666667, 0.046326915471, 0.23500641786, 0.0026742447},
        {2, 0, 0.01380952381, -0.072867909450, 0.10048695707, 0.9687206251},
        {3, 0, 0.09166666667, -0.008899846011, 0.19223317934, 0.0813163549},
        {2, 1, -0.12685714286, -0.218082508377, -0.03563177734, 0.0049412892},
        {3, 1, -0.049, -0.153511785699, 0.05551178570, 0.5596163806},
        {3, 2, 0.07785714286, -0.019793776908, 0.17550806262, 0.1467307808}};
    for (int w = 0; w < 6; w++) {
        int found = 0;
        for (int i = 0; i < 6; i++) {
            if (pairs[i].h == want[w].h && pairs[i].g == want[w].g) {
                found = 1;
                CHECK_NEAR(pairs[i].diff, want[w].diff, 1e-10);
                CHECK_NEAR(pairs[i].lwr, want[w].lwr, 1e-8);
                CHECK_NEAR(pairs[i].upr, want[w].upr, 1e-8);
                CHECK_NEAR(pairs[i].p_adj, want[w].p, 1e-9);
            }
        }
        CHECK(found);
    }
    return 0;
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

static int test_logit(void)
{
    static char names[512][32];
    double yv[512];
    int n = read_pairs(SIMLAB_SHARED_DIR "/data/goldens/likert_data.csv", names,
                       yv, 512);
    if (n < 0) {
        return -1;
    }
    CHECK_INT(n, 400);
    /* ungrouped: one response per row */
    double *x = malloc((size_t)n * sizeof *x);
    double *w = malloc((size_t)n * sizeof *w);
    for (int i = 0; i < n; i++) {
        x[i] = atof(names[i]);
        w[i] = 1;
    }
    LogitFit f;
    CHECK_INT(stats_logit_fit(x, yv, w, n, &f), 0);
    CHECK_NEAR(f.b0, -0.5569803817, 1e-9);
    CHECK_NEAR(f.se0, 0.30337915981, 1e-9);
    CHECK_NEAR(f.z0, -1.835921696, 1e-8);
    CHECK_NEAR(f.p0, 0.06636923838, 1e-10);
    CHECK_NEAR(f.b1, 0.1636629376, 1e-9);
    CHECK_NEAR(f.se1, 0.06545601135, 1e-10);
    CHECK_NEAR(f.z1, 2.500349994, 1e-8);
    CHECK_NEAR(f.p1, 0.01240706640, 1e-10);
    CHECK_NEAR(f.deviance, 545.5873893376, 1e-8);
    CHECK_NEAR(f.null_deviance, 551.9550067667, 1e-8);
    CHECK_INT(f.iters, 4);
    CHECK_INT(f.separation, 0);
    const double pred[5] = {0.44283739, 0.48350809, 0.52439845, 0.56496427,
                            0.60467843};
    for (int r = 2; r <= 6; r++) {
        CHECK_NEAR(stats_expit(f.b0 + f.b1 * r), pred[r - 2], 1e-8);
    }
    /* grouped by rating: the same fit */
    double gx[8], gs[8], gw[8];
    for (int r = 0; r < 8; r++) {
        gx[r] = r;
        gs[r] = gw[r] = 0;
    }
    for (int i = 0; i < n; i++) {
        int r = (int)x[i];
        gs[r] += yv[i];
        gw[r] += 1;
    }
    LogitFit fg;
    CHECK_INT(stats_logit_fit(gx, gs, gw, 8, &fg), 0);
    CHECK_NEAR(fg.b1, f.b1, 1e-10);
    CHECK_NEAR(fg.se1, f.se1, 1e-10);
    CHECK_NEAR(fg.deviance, f.deviance, 1e-8);
    CHECK_INT(fg.iters, 4);
    /* complete separation is detected, not reported as a fit */
    double sx[4] = {1, 2, 3, 4}, ss[4] = {0, 0, 5, 5}, sw[4] = {5, 5, 5, 5};
    CHECK_INT(stats_logit_fit(sx, ss, sw, 4, &fg), 0);
    CHECK_INT(fg.separation, 1);
    free(x);
    free(w);
    return 0;
}

int main(void)
{
    test_re_golden();
    test_re_singular();
    test_tukey_dist();
    test_anova_degenerate();
    test_tukey_nomem();
    if (test_anova_tukey() != 0 || test_logit() != 0) {
        printf("skipped the golden data sets: %s not found\n",
               SIMLAB_SHARED_DIR "/data/goldens");
        (void)TEST_REPORT();
        return SIM_TEST_SKIP;
    }
    return TEST_REPORT();
}
