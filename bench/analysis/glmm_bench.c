/*
** glmm_bench: one fit of the mixed-effects logistic model of a pre/post
** study -- 90 participants (3 conditions) x 24 items x 2 phases, 4,320
** responses, correct ~ phase * condition + (1 + phase | participant) +
** (1 | item) -- timed against lme4's glmer on the same data in the same run
** (Rscript glmm_bench.R, timed around the fit alone). Medians of REPEATS.
** usage: glmm_bench [REPEATS] [--no-r]   (Rscript: $SIMLAB_RSCRIPT)
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/analysis/timing.h"
#include "analysis/glmm.h"
#include "common/sim_rng.h"

#define NP 90
#define NI 24
#define N  (NP * NI * 2)
#define P  6

static const char *const CONDS[] = {"baseline", "lime", "shap"};

int main(int argc, char **argv)
{
    int repeats = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 5;
    int no_r = argc > 1 && strcmp(argv[argc - 1], "--no-r") == 0;
    repeats = repeats > 0 ? repeats : 5;
    static int part[N], item[N], cond[N], phase[N];
    static uint8_t y[N];
    static double X[N * P], z[N * 2];
    double u0[NP], u1[NP], v[NI];
    SimRng rng;
    sim_rng_seed(&rng, 2024);
    for (int p = 0; p < NP; p++) {
        double a = sim_rng_normal(&rng), b = sim_rng_normal(&rng);
        u0[p] = 0.6 * a;
        u1[p] = 0.4 * (-0.3 * a + sqrt(1 - 0.09) * b);
    }
    for (int i = 0; i < NI; i++) {
        v[i] = 1.0 * sim_rng_normal(&rng);
    }
    char csv[] = "/tmp/simlab-glmm-bench-XXXXXX";
    int fd = mkstemp(csv);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        perror("glmm_bench: temporary file");
        return 1;
    }
    fprintf(f, "participant,condition,phase,item,correct\n");
    int k = 0;
    for (int p = 0; p < NP; p++) {
        for (int ph = 0; ph < 2; ph++) {
            for (int i = 0; i < NI; i++, k++) {
                int c = p % 3;
                double eta = 0.2 + 0.3 * ph + (c == 1 ? 0.5 * ph : 0) + u0[p] +
                             u1[p] * ph + v[i];
                part[k] = p;
                item[k] = i;
                cond[k] = c;
                phase[k] = ph;
                y[k] = sim_rng_uniform(&rng) < 1 / (1 + exp(-eta));
                double *x = X + (size_t)k * P;
                x[0] = 1;
                x[1] = ph;
                x[2] = c == 1;
                x[3] = c == 2;
                x[4] = ph && c == 1;
                x[5] = ph && c == 2;
                z[2 * k] = 1;
                z[2 * k + 1] = ph;
                fprintf(f, "P%02d,%s,%s,i%02d,%d\n", p, CONDS[c],
                        ph ? "post" : "pre", i, y[k]);
            }
        }
    }
    fclose(f);
    GlmmModel m;
    memset(&m, 0, sizeof m);
    m.n = N;
    m.y = y;
    m.p = P;
    m.X = X;
    m.n_terms = 2;
    m.term[0] = (GlmmTerm){part, NP, 2, z, 0};
    m.term[1] = (GlmmTerm){item, NI, 1, NULL, 0};
    double wall[64], cpu[64];
    repeats = repeats > 64 ? 64 : repeats;
    GlmmFit fit;
    SimError err;
    for (int r = 0; r < repeats; r++) {
        double w0 = bench_now_s(), c0 = bench_cpu_s();
        if (glmm_fit(&m, &fit, &err) != SIM_OK) {
            fprintf(stderr, "glmm_bench: %s\n", err.msg);
            return 1;
        }
        cpu[r] = bench_cpu_s() - c0;
        wall[r] = bench_now_s() - w0;
        if (r + 1 < repeats) {
            glmm_fit_free(&fit);
        }
    }
    double c_med = bench_median(cpu, repeats),
           w_med = bench_median(wall, repeats);
    printf("simlab GLMM fit, %d responses (%d participants x %d items x 2 "
           "phases): median of %d: %.1f ms CPU, %.1f ms wall; %d deviance "
           "evaluations; log L %.6f; converged %d\n",
           N, NP, NI, repeats, 1e3 * c_med, 1e3 * w_med, fit.n_evals,
           fit.loglik, fit.converged);
    double loglik = fit.loglik;
    glmm_fit_free(&fit);
    (void)cond;
    (void)phase;
    if (!no_r) {
        const char *rs = getenv("SIMLAB_RSCRIPT");
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s '%s/analysis/glmm_bench.R' '%s' %d",
                 rs ? rs : "Rscript", SIMLAB_BENCH_DIR, csv, repeats);
        FILE *pp = popen(cmd, "r");
        double re[64], ru[64], rl = NAN;
        int nr = 0;
        char line[256];
        while (pp && fgets(line, sizeof line, pp)) {
            if (nr < 64 &&
                sscanf(line, "glmer %lf %lf %lf", &re[nr], &ru[nr], &rl) == 3) {
                nr++;
            }
        }
        if (!pp || pclose(pp) != 0 || nr == 0) {
            fprintf(stderr, "glmm_bench: the R reference failed (needs "
                            "Rscript with lme4)\n");
        } else {
            double e_med = bench_median(re, nr), u_med = bench_median(ru, nr);
            printf("lme4 glmer, same data: median of %d: %.1f ms user CPU, "
                   "%.1f ms elapsed; log L %.6f (difference %.2g)\n",
                   nr, 1e3 * u_med, 1e3 * e_med, rl, loglik - rl);
            printf("ratio: simlab is %.1fx faster (CPU), %.1fx (wall)\n",
                   u_med / c_med, e_med / w_med);
        }
    }
    unlink(csv);
    return 0;
}
