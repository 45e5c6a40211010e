/*
** glmm_scale: the mixed model at the scale of online studies, against a
** reference build (e.g. main) in the same run, rounds interleaved so that
** both see the same load; medians and ratios. Parts:
**  large     simlab-analyze on 10 conditions x 1,000 participants x 64
**            items x pre/post (1.28 M responses, 10,000 replicates, 2
**            threads), with and without --no-glmm: wall, CPU, peak RSS, the
**            ratio with / without, and the largest difference of the
**            mixed model's numbers in report.json between the two builds;
**  calibrate --calibrate 200 on a test-only study with sessions (3
**            conditions x 20 participants, 3 sessions x 10 items) against
**            the same analysis without it;
**  power     simlab power --test glmm on text-forward, 500 studies x 10,
**            20, 40, 80 per condition, 2 threads, no null studies, no
**            screening; whether power.json (every row) is the reference's;
**  sizes     this build alone at three sizes (1,000 participants x 64
**            items, 10,000 x 32, 10,000 x 64): time and peak RSS with and
**            without the model (docs/analysis.md's table).
** usage: glmm_scale REF_BUILD [ROUNDS] [PART,...]   REF_BUILD holds
** analysis/simlab-analyze and app/simlab of the reference (default parts:
** all; rounds: 3).
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/analysis/timing.h"
#include "bench/analysis/simstudy.h"
#include "common/sim_rng.h"

#define MAX_ROUNDS 16

typedef struct Run {
    double wall, cpu; /* seconds */
    long peak_kb;
} Run;

/* Runs argv (stdout and stderr to /dev/null); exits on failure. */
static Run run(const char *const *argv)
{
    Run r;
    fflush(stdout); /* the child must not write it again */
    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr)) {
            _exit(126);
        }
        execv(argv[0], (char *const *)argv); /* execv copies them */
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "glmm_scale: %s failed (status %d)\n", argv[0],
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        exit(1);
    }
    r.wall = bench_now_s() - t0;
    r.cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    r.peak_kb = ru.ru_maxrss;
    return r;
}

typedef struct Series {
    double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
    long peak;
    int n;
} Series;

static void add(Series *s, Run r)
{
    s->wall[s->n] = r.wall;
    s->cpu[s->n] = r.cpu;
    s->peak = r.peak_kb > s->peak ? r.peak_kb : s->peak;
    s->n++;
}

/* Median of the per-round ratios a/b (wall). */
static double ratio(const Series *a, const Series *b)
{
    double r[MAX_ROUNDS];
    for (int i = 0; i < a->n; i++) {
        r[i] = a->wall[i] / b->wall[i];
    }
    return bench_median(r, a->n);
}

/* Median of the per-round ratios a/b (CPU): on a loaded machine the wall
** time is mostly the others' share. */
static double ratio_cpu(const Series *a, const Series *b)
{
    double r[MAX_ROUNDS];
    for (int i = 0; i < a->n; i++) {
        r[i] = a->cpu[i] / b->cpu[i];
    }
    return bench_median(r, a->n);
}

static void print(const char *what, Series *s)
{
    double w[MAX_ROUNDS], c[MAX_ROUNDS];
    memcpy(w, s->wall, sizeof w);
    memcpy(c, s->cpu, sizeof c);
    printf("  %-34s %8.2f s wall %8.2f s CPU  peak %7.1f MB\n", what,
           bench_median(w, s->n), bench_median(c, s->n),
           (double)s->peak / 1024.0);
}

/* The largest difference between two report.json files' numbers under
** key (recursively); *n counts the numbers compared. */
static double json_diff(json_t *a, json_t *b, int *n)
{
    double d = 0;
    if (json_is_number(a) && json_is_number(b)) {
        (*n)++;
        return fabs(json_number_value(a) - json_number_value(b));
    }
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v)
        {
            json_t *o = json_object_get(b, k);
            double x = o ? json_diff(v, o, n) : INFINITY;
            d = x > d ? x : d;
        }
    } else if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b)) {
            return INFINITY;
        }
        for (size_t i = 0; i < json_array_size(a); i++) {
            double x = json_diff(json_array_get(a, i), json_array_get(b, i), n);
            d = x > d ? x : d;
        }
    } else if (json_is_string(a) && json_is_string(b)) {
        return strcmp(json_string_value(a), json_string_value(b)) ? INFINITY
                                                                  : 0;
    } else if (!json_equal(a, b)) {
        return INFINITY;
    }
    return d;
}

static void compare_reports(const char *a, const char *b, const char *key)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/report.json", a);
    snprintf(pb, sizeof pb, "%s/report.json", b);
    json_t *ja = json_load_file(pa, 0, NULL), *jb = json_load_file(pb, 0, NULL);
    int n = 0;
    double d = ja && jb ? json_diff(json_object_get(ja, key),
                                    json_object_get(jb, key), &n)
                        : INFINITY;
    printf("  report.json \"%s\": %d numbers, largest difference %.3g "
           "(the structures tried, their order and flags %s)\n",
           key, n, d, isfinite(d) ? "the same" : "DIFFER");
    json_decref(ja);
    json_decref(jb);
}

/* Rounds of bins[b] (reference, this build) on csv, without (g 0) and
** with (g 1) extra[g] after "--quiet", into outs[b][g]; prints
** the four series (labels) and the ratios with / without what. */
static void run_2x2(const char *csv, const char *const bins[2],
                    const char *const outs[2][2], const char *const *extra[2],
                    int rounds, const char *const labels[4], const char *what,
                    Series s[2][2])
{
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < 2; b++) {
            for (int g = 0; g < 2; g++) {
                const char *argv[16] = {bins[b], "--csv",    csv,
                                        "--out", outs[b][g], "--quiet"};
                int n = 6;
                for (int e = 0; extra[g][e] && n < 15; e++) {
                    argv[n++] = extra[g][e];
                }
                argv[n] = NULL;
                add(&s[b][g], run(argv));
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        print(labels[i], &s[i / 2][i % 2]);
    }
    printf("  with / without %s: reference %.1f x, this build %.1f x "
           "(wall, per round); CPU %.1f x, %.1f x\n",
           what, ratio(&s[0][1], &s[0][0]), ratio(&s[1][1], &s[1][0]),
           ratio_cpu(&s[0][1], &s[0][0]), ratio_cpu(&s[1][1], &s[1][0]));
}

static int large_part(const char *ref, int rounds)
{
    const char *csv = "glmm_scale_large.csv";
    SimStudy st = {0};
    st.n_conds = 10;
    st.users_per_cond = 1000;
    st.n_items = 64;
    for (int c = 0; c < st.n_conds; c++) {
        st.p_pre[c] = 0.65;
        st.p_post[c] = 0.65 + 0.01 * c;
    }
    st.sd_p = 0.5;
    st.sd_i = 0.8;
    FILE *f = fopen(csv, "w");
    if (!f || simstudy_write_csv(f, &st, 11) != 0) {
        return 1;
    }
    fclose(f);
    char ref_bin[512];
    snprintf(ref_bin, sizeof ref_bin, "%s/analysis/simlab-analyze", ref);
    const char *bins[2] = {ref_bin, SIMLAB_ANALYZE_BIN};
    const char *outs[2][2] = {{"glmm_scale_ref_noglmm", "glmm_scale_ref"},
                              {"glmm_scale_new_noglmm", "glmm_scale_new"}};
    Series s[2][2];
    memset(s, 0, sizeof s);
    printf("large: 10 conditions x 1,000 participants x 64 items x pre/post "
           "(1.28 M responses), 10,000 replicates, 2 threads; median of %d\n",
           rounds);
    static const char *const without[] = {"--threads", "2", "--no-glmm", NULL},
                             *with[] = {"--threads", "2", NULL};
    const char *const *extra[2] = {without, with};
    static const char *const labels[4] = {
        "reference, --no-glmm", "reference, with the mixed model",
        "this build, --no-glmm", "this build, with the mixed model"};
    run_2x2(csv, bins, outs, extra, rounds, labels, "the model", s);
    printf("  this build / reference, with the model: %.3f (wall), %.3f "
           "(CPU)\n",
           ratio(&s[1][1], &s[0][1]), ratio_cpu(&s[1][1], &s[0][1]));
    compare_reports(outs[0][1], outs[1][1], "glmm");
    compare_reports(outs[0][1], outs[1][1], "change");
    remove(csv);
    return 0;
}

/* A test-only study with sessions: conds x per participants, every one
** answering sessions x items items (an item bank per session). */
static int write_testonly(const char *csv, int conds, int per, int sessions,
                          int items)
{
    FILE *f = fopen(csv, "w");
    if (!f) {
        return 1;
    }
    SimRng rng;
    sim_rng_seed(&rng, 33);
    double v[256];
    for (int i = 0; i < sessions * items && i < 256; i++) {
        v[i] = 0.8 * sim_rng_normal(&rng);
    }
    fprintf(f, "participant,condition,phase,item,correct,session\n");
    for (int c = 0; c < conds; c++) {
        for (int p = 0; p < per; p++) {
            double u = 0.5 * sim_rng_normal(&rng);
            for (int s = 0; s < sessions; s++) {
                for (int i = 0; i < items; i++) {
                    double e = 0.6 + 0.1 * c + 0.05 * s + u + v[s * items + i];
                    int y = sim_rng_uniform(&rng) < 1 / (1 + exp(-e));
                    fprintf(f, "p%d-%d,%s,test,s%d-%d,%d,%d\n", c, p,
                            c ? (c == 1 ? "lime" : "shap") : "baseline", s + 1,
                            i + 1, y, s + 1);
                }
            }
        }
    }
    return fclose(f) != 0;
}

static int calibrate_part(const char *ref, int rounds)
{
    const char *csv = "glmm_scale_testonly.csv";
    if (write_testonly(csv, 3, 20, 3, 10) != 0) {
        return 1;
    }
    char ref_bin[512];
    snprintf(ref_bin, sizeof ref_bin, "%s/analysis/simlab-analyze", ref);
    const char *bins[2] = {ref_bin, SIMLAB_ANALYZE_BIN};
    const char *outs[2][2] = {{"glmm_scale_ref_plain", "glmm_scale_ref_cal"},
                              {"glmm_scale_new_plain", "glmm_scale_new_cal"}};
    Series s[2][2];
    memset(s, 0, sizeof s);
    printf("calibrate: test-only, 3 conditions x 20 participants, 3 sessions "
           "x 10 items (1,800 responses), default replicates; median of %d\n",
           rounds);
    static const char *const plain[] = {NULL},
                             *cal[] = {"--calibrate", "200", NULL};
    const char *const *extra[2] = {plain, cal};
    static const char *const labels[4] = {
        "reference, the analysis", "reference, --calibrate 200",
        "this build, the analysis", "this build, --calibrate 200"};
    run_2x2(csv, bins, outs, extra, rounds, labels, "--calibrate 200", s);
    compare_reports(outs[0][1], outs[1][1], "calibration");
    compare_reports(outs[0][1], outs[1][1], "tukey");
    remove(csv);
    return 0;
}

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        same = x == y;
        if (x == EOF || y == EOF) {
            break;
        }
    }
    if (fa) {
        fclose(fa);
    }
    if (fb) {
        fclose(fb);
    }
    return same;
}

static int power_part(const char *ref, int rounds)
{
    char ref_bin[512];
    snprintf(ref_bin, sizeof ref_bin, "%s/app/simlab", ref);
    const char *bins[2] = {ref_bin, SIMLAB_BIN};
    const char *outs[2] = {"glmm_scale_power_ref", "glmm_scale_power_new"};
    Series s[2];
    memset(s, 0, sizeof s);
    printf("power: simlab power --test glmm, text-forward, 500 studies x 10, "
           "20, 40, 80, 2 threads, no null studies or screening; median of "
           "%d\n",
           rounds);
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < 2; b++) {
            const char *argv[] = {bins[b],
                                  "power",
                                  SIMLAB_SOURCE_DIR
                                  "/assets/studies/text-forward",
                                  "--participants",
                                  "10,20,40,80",
                                  "--studies",
                                  "500",
                                  "--null-studies",
                                  "0",
                                  "--screening",
                                  "0",
                                  "--test",
                                  "glmm",
                                  "--threads",
                                  "2",
                                  "--quiet",
                                  "--out",
                                  outs[b],
                                  NULL};
            add(&s[b], run(argv));
        }
    }
    print("reference", &s[0]);
    print("this build", &s[1]);
    printf("  this build / reference: %.3f (wall), %.3f (CPU)\n",
           ratio(&s[1], &s[0]), ratio_cpu(&s[1], &s[0]));
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/power.json", outs[0]);
    snprintf(b, sizeof b, "%s/power.json", outs[1]);
    printf("  power.json: %s\n", same_file(a, b) ? "the same bytes"
                                                 : "DIFFERENT from the "
                                                   "reference's");
    return 0;
}

static int sizes_part(int rounds)
{
    static const int size[3][2] = {{100, 64}, {1000, 32}, {1000, 64}};
    printf("sizes (this build; 10 conditions, pre/post, 10,000 replicates, 2 "
           "threads; median of %d)\n",
           rounds);
    printf("  | participants | items | responses | --no-glmm | with the "
           "model | ratio (wall, CPU) | peak RSS (without, with) |\n");
    for (int k = 0; k < 3; k++) {
        const char *csv = "glmm_scale_size.csv";
        SimStudy st = {0};
        st.n_conds = 10;
        st.users_per_cond = size[k][0];
        st.n_items = size[k][1];
        for (int c = 0; c < st.n_conds; c++) {
            st.p_pre[c] = 0.65;
            st.p_post[c] = 0.65 + 0.01 * c;
        }
        st.sd_p = 0.5;
        st.sd_i = 0.8;
        FILE *f = fopen(csv, "w");
        if (!f || simstudy_write_csv(f, &st, 11) != 0) {
            return 1;
        }
        fclose(f);
        Series s[2];
        memset(s, 0, sizeof s);
        for (int r = 0; r < rounds; r++) {
            for (int g = 0; g < 2; g++) {
                const char *argv[] = {
                    SIMLAB_ANALYZE_BIN,     "--csv",     csv, "--out",
                    "glmm_scale_size",      "--threads", "2", "--quiet",
                    g ? NULL : "--no-glmm", NULL};
                add(&s[g], run(argv));
            }
        }
        double w0[MAX_ROUNDS], w1[MAX_ROUNDS];
        memcpy(w0, s[0].wall, sizeof w0);
        memcpy(w1, s[1].wall, sizeof w1);
        printf("  | %d | %d | %d | %.2f s | %.2f s | %.1f, %.1f | %.0f MB, "
               "%.0f MB |\n",
               10 * size[k][0], size[k][1], 20 * size[k][0] * size[k][1],
               bench_median(w0, rounds), bench_median(w1, rounds),
               ratio(&s[1], &s[0]), ratio_cpu(&s[1], &s[0]),
               (double)s[0].peak / 1024.0, (double)s[1].peak / 1024.0);
        remove(csv);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: glmm_scale REF_BUILD [ROUNDS] "
                        "[large,calibrate,power,sizes]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    rounds = rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
    const char *parts = argc > 3 ? argv[3] : "large,calibrate,power,sizes";
    struct stat sb;
    char probe[512];
    snprintf(probe, sizeof probe, "%s/analysis/simlab-analyze", argv[1]);
    if (stat(probe, &sb) != 0) {
        fprintf(stderr, "glmm_scale: no %s\n", probe);
        return 2;
    }
    int rc = 0;
    if (strstr(parts, "large")) {
        rc |= large_part(argv[1], rounds);
    }
    if (strstr(parts, "calibrate")) {
        rc |= calibrate_part(argv[1], rounds);
    }
    if (strstr(parts, "power")) {
        rc |= power_part(argv[1], rounds);
    }
    if (strstr(parts, "sizes")) {
        rc |= sizes_part(rounds);
    }
    return rc;
}
