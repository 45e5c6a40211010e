/*
** analysis_bench: times the crossed bootstrap of the change table (random-
** effects Pre refitted in every replicate) on two simulated studies, and
** the numpy reference (reference_bootstrap.py, raw Pre) on the same data in
** the same run. Repeats each timing and reports medians and ratios.
** usage: analysis_bench [REPEATS]   (python: $SIMLAB_PYTHON or python3)
*/
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/analyze.h"
#include "bench/analysis/simstudy.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* clock-ok: benchmark */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* clock-ok: benchmark */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Wall seconds for analyze_compute (change table only); *cpu (may be NULL)
** gets the process CPU seconds, which other load on the machine does not
** inflate. */
static double time_analysis(const Dataset *ds, int B, int threads, double *cpu)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = B;
    o.threads = threads;
    o.progress = 0;
    o.change_only = 1;
    Report r;
    SimError err;
    double t0 = now_s(), c0 = cpu_s();
    int rc = analyze_compute(ds, &o, &r, &err);
    double t = now_s() - t0;
    if (cpu) {
        *cpu = cpu_s() - c0;
    }
    report_free(&r);
    if (rc != SIM_OK) {
        fprintf(stderr, "analysis failed: %s\n", err.msg);
        exit(1);
    }
    return t;
}

/* Per-replicate seconds of the numpy reference, from its output. */
static double time_reference(const char *csv, int B)
{
    const char *py = getenv("SIMLAB_PYTHON");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s/analysis/reference_bootstrap.py %s %d",
             py ? py : "python3", SIMLAB_BENCH_DIR, csv, B);
    FILE *p = popen(cmd, "r");
    if (!p) {
        return -1;
    }
    char line[256];
    double per = -1;
    while (fgets(line, sizeof line, p)) {
        sscanf(line, "per_replicate_s %lf", &per);
    }
    pclose(p);
    return per;
}

typedef struct Scenario {
    const char *name;
    int conds, users, items;
    int ref_replicates;
} Scenario;

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    const int B = 10000;
    Scenario sc[2] = {
        {"hase-sized (5 x 7 x 32, 2,240 responses)", 5, 7, 32, 10000},
        {"large (10 x 1000 x 64, 1.28 M responses)", 10, 1000, 64, 300}};
    printf("%d replicates, median of %d runs\n\n", B, repeats);
    for (int s = 0; s < 2; s++) {
        SimStudy st = {0};
        st.n_conds = sc[s].conds;
        st.users_per_cond = sc[s].users;
        st.n_items = sc[s].items;
        for (int c = 0; c < st.n_conds; c++) {
            st.p_pre[c] = 0.65;
            st.p_post[c] = 0.65 + 0.01 * c;
        }
        st.sd_p = 0.5;
        st.sd_i = 0.8;
        Dataset *ds;
        SimError err;
        dataset_new(&ds, &err);
        if (simstudy_generate(ds, &st, 11, "p", &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        char csv[64];
        snprintf(csv, sizeof csv, "analysis_bench_%d.csv", s);
        FILE *f = fopen(csv, "w");
        if (!f || simstudy_write_csv(f, &st, 11) != 0) {
            return 1;
        }
        fclose(f);
        double t1[64], t2[64], t0[64], ref[64], c1[64], c0[64];
        int n = repeats < 64 ? repeats : 64;
        for (int i = 0; i < n; i++) {
            t0[i] = time_analysis(ds, 0, 2, &c0[i]);
            t1[i] = time_analysis(ds, B, 1, &c1[i]) - t0[i];
            c1[i] -= c0[i];
            t2[i] = time_analysis(ds, B, 2, NULL) - t0[i];
            ref[i] = time_reference(csv, sc[s].ref_replicates);
        }
        double m1 = median(t1, n), m2 = median(t2, n), mr = median(ref, n);
        printf("%s\n", sc[s].name);
        printf("  setup (B = 0):             %8.4f s\n", median(t0, n));
        printf("  bootstrap, 1 thread:       %8.4f s  (%.2f us/replicate)\n",
               m1, 1e6 * m1 / B);
        printf("  bootstrap, 2 threads:      %8.4f s  (%.2f us/replicate)\n",
               m2, 1e6 * m2 / B);
        printf("  bootstrap CPU time:        %8.4f s  (1 thread)\n",
               median(c1, n));
        if (mr > 0) {
            printf("  numpy reference:           %8.4f s  (%.2f us/replicate, "
                   "%d replicates timed)\n",
                   mr * B, 1e6 * mr, sc[s].ref_replicates);
            printf("  ratio numpy / simlab:      %8.1f x (1 thread), %.1f x "
                   "(2 threads)\n\n",
                   mr * B / m1, mr * B / m2);
        } else {
            printf("  numpy reference:           not available\n\n");
        }
        dataset_free(ds);
        remove(csv);
    }
    return 0;
}
