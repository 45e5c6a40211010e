/*
** Compares the numerical core with reference values from R and lme4,
** frozen in tests/data/analysis/fixtures.txt by make_fixtures.R: several
** glmer fits (two of them singular), ptukey/qtukey over a grid, ANOVA and
** TukeyHSD on unbalanced groups, and two logistic regressions.
*/
#include "tests/harness.h"
#include "analysis/stats.h"

#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#define FIXTURES SIMLAB_TEST_DATA "/analysis/"

/* Splits a line into at most max whitespace-separated words. */
static int split(char *line, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(line, " \n"); t && n < max; t = strtok(NULL, " \n")) {
        w[n++] = t;
    }
    return n;
}

static int group_of(const char *name, char names[][32], int *n_names)
{
    for (int i = 0; i < *n_names; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    snprintf(names[*n_names], 32, "%.31s", name);
    return (*n_names)++;
}

int main(void)
{
    FILE *f = fopen(FIXTURES "fixtures.txt", "r");
    if (!f) {
        fprintf(stderr, "cannot open %sfixtures.txt\n", FIXTURES);
        return 1;
    }
    /* the unbalanced ANOVA data */
    static char names[16][32];
    int n_names = 0, n = 0, g[256];
    double y[256];
    FILE *d = fopen(FIXTURES "tukey_unbalanced.csv", "r");
    char line[4096];
    CHECK(d != NULL);
    while (d && fgets(line, sizeof line, d)) {
        char *comma = strchr(line, ',');
        if (!comma || strncmp(line, "group", 5) == 0) {
            continue;
        }
        *comma = '\0';
        g[n] = group_of(line, names, &n_names);
        y[n++] = atof(comma + 1);
    }
    if (d) {
        fclose(d);
    }
    /* the ratings data */
    double rx[8] = {1, 2, 3, 4, 5, 6, 7, 0}, rs[8] = {0}, rw[8] = {0};
    double rs120[8] = {0}, rw120[8] = {0};
    d = fopen(FIXTURES "glm_ratings.csv", "r");
    CHECK(d != NULL);
    int row = 0;
    while (d && fgets(line, sizeof line, d)) {
        int r, c;
        if (sscanf(line, "%d,%d", &r, &c) == 2 && r >= 1 && r <= 7) {
            rs[r - 1] += c;
            rw[r - 1] += 1;
            if (row < 120) {
                rs120[r - 1] += c;
                rw120[r - 1] += 1;
            }
            row++;
        }
    }
    if (d) {
        fclose(d);
    }
    TukeyPair pairs[64];
    int n_pairs = stats_tukey(y, g, n, n_names, 0.95, pairs);
    double s[64], nn[64], eta[256], pre[64];
    int k = 0, checked = 0;
    while (fgets(line, sizeof line, f)) {
        char *w[128];
        int nw = split(line, w, 128);
        if (nw == 0 || w[0][0] == '#') {
            continue;
        }
        if (strcmp(w[0], "re_case") == 0) {
            k = atoi(w[2]);
            for (int c = 0; c < k; c++) {
                s[c] = atof(w[3 + c]);
                nn[c] = atof(w[3 + k + c]);
            }
        } else if (strcmp(w[0], "re_fit") == 0) {
            ReFit fit;
            CHECK_INT(stats_re_fit(s, nn, k, eta, pre, &fit), 0);
            int singular = atoi(w[4]);
            CHECK_INT(fit.singular, singular);
            if (!singular) {
                CHECK_NEAR(fit.beta0, atof(w[2]), 1e-4);
                CHECK_NEAR(fit.sigma, atof(w[3]), 1e-4);
            }
            for (int c = 0; c < k; c++) {
                CHECK_NEAR(pre[c], atof(w[5 + c]), 2e-5);
            }
            checked++;
        } else if (strcmp(w[0], "ptukey") == 0) {
            double want = atof(w[4]), q = atof(w[1]), df = atof(w[3]);
            int kk = atoi(w[2]);
            double got = stats_ptukey_upper(q, kk, df);
            /* R's ptukey itself is off by up to ~1e-6 at df = 4 (see the
            ** exact k = 2 case below) */
            CHECK_NEAR(got, want, (df < 10 ? 1e-6 : 1e-8) + 1e-7 * want);
            if (kk == 2) {
                /* Q = sqrt(2) |T| with T ~ t(df): exact */
                CHECK_NEAR(got, 2 * gsl_cdf_tdist_Q(q / sqrt(2.0), df), 1e-10);
            }
            checked++;
        } else if (strcmp(w[0], "qtukey") == 0) {
            CHECK_NEAR(stats_qtukey(atof(w[1]), atoi(w[2]), atof(w[3])),
                       atof(w[4]), 1e-5);
            checked++;
        } else if (strcmp(w[0], "anova") == 0) {
            AnovaResult a;
            CHECK_INT(stats_anova(y, g, n, n_names, &a), 0);
            CHECK_NEAR(a.f, atof(w[1]), 1e-8);
            CHECK_NEAR(a.df_between, atof(w[2]), 0);
            CHECK_NEAR(a.df_within, atof(w[3]), 0);
            CHECK_NEAR(a.p, atof(w[4]), 1e-12);
            CHECK_NEAR(a.eta_sq, atof(w[5]), 1e-10);
            checked++;
        } else if (strcmp(w[0], "tukey") == 0) {
            int hh = group_of(w[1], names, &n_names);
            int gg = group_of(w[2], names, &n_names);
            int found = 0;
            for (int i = 0; i < n_pairs; i++) {
                if (pairs[i].h == hh && pairs[i].g == gg) {
                    found = 1;
                    CHECK_NEAR(pairs[i].diff, atof(w[3]), 1e-10);
                    CHECK_NEAR(pairs[i].lwr, atof(w[4]), 1e-6);
                    CHECK_NEAR(pairs[i].upr, atof(w[5]), 1e-6);
                    CHECK_NEAR(pairs[i].p_adj, atof(w[6]), 1e-7);
                }
            }
            CHECK(found);
            checked++;
        } else if (strcmp(w[0], "glm") == 0 || strcmp(w[0], "glm120") == 0) {
            LogitFit fit;
            int sub = strcmp(w[0], "glm120") == 0;
            CHECK_INT(stats_logit_fit(rx, sub ? rs120 : rs, sub ? rw120 : rw, 7,
                                      &fit),
                      0);
            CHECK_NEAR(fit.b0, atof(w[1]), 1e-8);
            CHECK_NEAR(fit.b1, atof(w[2]), 1e-8);
            CHECK_NEAR(fit.se0, atof(w[3]), 1e-8);
            CHECK_NEAR(fit.se1, atof(w[4]), 1e-8);
            CHECK_NEAR(fit.z1, atof(w[6]), 1e-6);
            CHECK_NEAR(fit.p1, atof(w[8]), 1e-10);
            CHECK_NEAR(fit.deviance, atof(w[9]), 1e-7);
            CHECK_NEAR(fit.null_deviance, atof(w[10]), 1e-7);
            CHECK_INT(fit.iters, atoi(w[11]));
            checked++;
        }
    }
    fclose(f);
    printf("%d reference cases\n", checked);
    CHECK(checked > 100);
    return TEST_REPORT();
}
