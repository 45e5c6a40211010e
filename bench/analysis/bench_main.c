/*
** analysis_bench, in one run and on the same data:
**  1. ingest: the 1.28 M-response CSV, and the same rows in a simlab store
**     (the engine's schema), read into a Dataset (MB/s, rows/s); the store
**     by its tables and by its long_format view, against SQLite stepping
**     through the same tables (ratios measured run by run);
**  2. end to end: simlab-analyze on that CSV (read, random-effects fit,
**     10,000 crossed replicates, every table and plot, 2 threads), its wall
**     time and peak memory, against the numpy crossed bootstrap alone
**     (reference_bootstrap.py, raw Pre), and the ratio;
**  3. the crossed bootstrap of the change table alone (random-effects Pre
**     refitted in every replicate) on two studies, against numpy.
** Repeats each timing and reports medians and ratios.
** usage: analysis_bench [REPEATS] [--quick | --ingest]  (python:
** $SIMLAB_PYTHON or python3; --quick skips part 3, --ingest parts 2 and 3)
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "bench/analysis/timing.h"
#include "bench/analysis/simstudy.h"
#include "bench/analysis/storewrite.h"

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
    double t0 = bench_now_s(), c0 = bench_cpu_s();
    int rc = analyze_compute(ds, &o, &r, &err);
    double t = bench_now_s() - t0;
    if (cpu) {
        *cpu = bench_cpu_s() - c0;
    }
    report_free(&r);
    if (rc != SIM_OK) {
        fprintf(stderr, "analysis failed: %s\n", err.msg);
        exit(1);
    }
    return t;
}

/* Per-replicate seconds of the numpy reference, from its output: wall, and
** process CPU in *cpu (may be NULL). */
static double time_reference_cpu(const char *csv, int B, double *cpu)
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
    double per = -1, per_cpu = -1;
    while (fgets(line, sizeof line, p)) {
        sscanf(line, "per_replicate_s %lf", &per);
        sscanf(line, "per_replicate_cpu_s %lf", &per_cpu);
    }
    pclose(p);
    if (cpu) {
        *cpu = per_cpu;
    }
    return per;
}

static double time_reference(const char *csv, int B)
{
    return time_reference_cpu(csv, B, NULL);
}

/* Wall seconds of f(ds, path), the median of n runs, each on a fresh
** Dataset; *cpu gets the median process CPU seconds. */
static double time_load(int (*load)(Dataset *, const char *, SimError *),
                        const char *path, int n, size_t *rows, double *cpu)
{
    double t[64], c[64];
    n = n < 64 ? n : 64;
    for (int i = 0; i < n; i++) {
        Dataset *ds;
        SimError err;
        dataset_new(&ds, &err);
        double t0 = bench_now_s(), c0 = bench_cpu_s();
        if (load(ds, path, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        t[i] = bench_now_s() - t0;
        c[i] = bench_cpu_s() - c0;
        *rows = ds->n_rows;
        dataset_free(ds);
    }
    *cpu = bench_median(c, n);
    return bench_median(t, n);
}

static int load_tables(Dataset *ds, const char *path, SimError *err)
{
    return dataset_load_db_how(ds, path, DATASET_DB_TABLES, err);
}

static int load_view(Dataset *ds, const char *path, SimError *err)
{
    return dataset_load_db_how(ds, path, DATASET_DB_VIEW, err);
}

/* CPU seconds of one load of path into a fresh Dataset (exits on error);
** *rows gets the rows read, *wall (may be NULL) the wall seconds. */
static double cpu_load(int (*load)(Dataset *, const char *, SimError *),
                       const char *path, size_t *rows, double *wall)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    double t0 = bench_now_s(), c0 = bench_cpu_s();
    if (load(ds, path, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    double c = bench_cpu_s() - c0;
    if (wall) {
        *wall = bench_now_s() - t0;
    }
    *rows = ds->n_rows;
    dataset_free(ds);
    return c;
}

static void sum_args(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    long long *sum = sqlite3_user_data(ctx);
    for (int k = 0; k < argc; k++) {
        *sum += sqlite3_value_type(argv[k]) + sqlite3_value_bytes(argv[k]);
    }
    sqlite3_result_null(ctx);
}

/* SQLite's own work for a reader of the store's tables: process CPU
** seconds to step through the response and trial tables, handing the
** columns the tables reader decodes to a function (cols) or none. */
static double step_tables(const char *path, int cols)
{
    static const char *const sql[2][2] = {
        {"SELECT rowid FROM response", "SELECT rowid FROM trial"},
        {"SELECT f(participant, seq, correct, rating, done, rt_ms, "
         "timed_out, confidence) FROM response",
         "SELECT f(participant, seq, block_id, phase, session, item, page, "
         "is_catch, is_example, correct_choice, test_type, condition) FROM "
         "trial"}};
    sqlite3 *db;
    long long sum = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "f", -1, SQLITE_UTF8, &sum, sum_args, NULL,
                                NULL) != SQLITE_OK) {
        return -1;
    }
    double c0 = bench_cpu_s();
    for (int t = 0; t < 2; t++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql[cols][t], -1, &st, NULL) != SQLITE_OK) {
            sqlite3_close(db);
            return -1;
        }
        while (sqlite3_step(st) == SQLITE_ROW) {
            sum++;
        }
        sqlite3_finalize(st);
    }
    double c = bench_cpu_s() - c0;
    sqlite3_close(db);
    return sum > 0 ? c : -1;
}

/* The store read by its tables and by its view, and SQLite stepping the
** same tables, in turns (one of each per round, so that the ratios are of
** runs under the same load); medians of n rounds. */
static void bench_store(const char *dbp, int n)
{
    double tab[64], wall[64], view[64], cols[64], bare[64], r_view[64],
        r_cols[64];
    size_t rows = 0, vrows = 0;
    n = n < 64 ? n : 64;
    for (int i = 0; i < n; i++) {
        tab[i] = cpu_load(load_tables, dbp, &rows, &wall[i]);
        view[i] = cpu_load(load_view, dbp, &vrows, NULL);
        cols[i] = step_tables(dbp, 1);
        bare[i] = step_tables(dbp, 0);
        r_view[i] = view[i] / tab[i];
        r_cols[i] = cols[i] / tab[i];
    }
    if (rows != vrows) {
        fprintf(stderr, "the readers disagree: %zu and %zu rows\n", rows,
                vrows);
        exit(1);
    }
    double mt = bench_median(tab, n), mv = bench_median(view, n);
    double mc = bench_median(cols, n), mb = bench_median(bare, n);
    double M = 1e-6 * (double)rows;
    double mw = bench_median(wall, n);
    printf("  read store, tables: %7.4f s CPU %5.2f M rows/s | %7.4f s wall "
           "%5.2f M rows/s\n",
           mt, M / mt, mw, M / mw);
    printf("  read store, view:   %7.4f s CPU %5.2f M rows/s "
           "(tables %.1f x faster, median of per-round ratios)\n",
           mv, M / mv, bench_median(r_view, n));
    printf("  (SQLite stepping the two tables, the columns the reader "
           "needs: %7.4f s CPU, %.2f x the tables reader)\n",
           mc, bench_median(r_cols, n));
    printf("  (SQLite stepping the two tables, no column: %7.4f s CPU)\n", mb);
}

/* Runs simlab-analyze on csv (2 threads, B replicates, every output);
** returns the wall seconds, *cpu its CPU seconds (user + system) and
** *peak_kb its maximum resident set size (as /usr/bin/time -v). */
static double run_analyze(const char *csv, int B, double *cpu, long *peak_kb)
{
    char reps[32];
    snprintf(reps, sizeof reps, "%d", B);
    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        /* the pipeline the numpy reference also does; the mixed model
        ** has its own benchmark (glmm_bench) */
        execl(SIMLAB_ANALYZE_BIN, "simlab-analyze", "--csv", csv, "--out",
              "analysis_bench_report", "--threads", "2", "--replicates", reps,
              "--no-glmm", "--quiet", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "simlab-analyze failed\n");
        exit(1);
    }
    *peak_kb = ru.ru_maxrss;
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return bench_now_s() - t0;
}

static SimStudy study_of(int conds, int users, int items)
{
    SimStudy st = {0};
    st.n_conds = conds;
    st.users_per_cond = users;
    st.n_items = items;
    for (int c = 0; c < st.n_conds; c++) {
        st.p_pre[c] = 0.65;
        st.p_post[c] = 0.65 + 0.01 * c;
    }
    st.sd_p = 0.5;
    st.sd_i = 0.8;
    return st;
}

/* Parts 1 and 2 on the large study. */
static int ingest_and_end_to_end(int repeats, int ingest_only)
{
    const int B = 10000, ref_B = 300;
    SimStudy st = study_of(10, 1000, 64);
    const char *csv = "analysis_bench_large.csv", *dbp = "analysis_bench.db";
    const char *bundle = SIMLAB_BENCH_DIR "/../assets/studies/text-forward";
    FILE *f = fopen(csv, "w");
    if (!f || simstudy_write_csv(f, &st, 11) != 0) {
        return 1;
    }
    fclose(f);
    struct stat sb;
    stat(csv, &sb);
    double mb = (double)sb.st_size / 1e6;
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    if (dataset_load_csv(ds, csv, &err) != SIM_OK ||
        storewrite_dataset(ds, bundle, dbp, 0, &err) != SIM_OK) {
        fprintf(stderr, "cannot prepare the inputs: %s\n", err.msg);
        return 1;
    }
    dataset_free(ds);
    size_t rows = 0;
    double cc;
    printf("large study: 10 conditions x 1000 participants x 64 items "
           "(%.2f MB CSV)\n",
           mb);
    double tc = time_load(dataset_load_csv, csv, repeats, &rows, &cc);
    printf("  read CSV:       %7.4f s wall %7.1f MB/s %5.2f M rows/s | "
           "%7.4f s CPU %7.1f MB/s\n",
           tc, mb / tc, 1e-6 * (double)rows / tc, cc, mb / cc);
    struct stat dbs;
    stat(dbp, &dbs);
    printf("  store: %.1f MB (the engine's schema)\n",
           (double)dbs.st_size / 1e6);
    bench_store(dbp, repeats);
    if (ingest_only) {
        remove(csv);
        remove(dbp);
        return 0;
    }
    double te[64], ce[64], tr[64], cr[64];
    long peak[64];
    int n = repeats < 64 ? repeats : 64;
    for (int i = 0; i < n; i++) {
        te[i] = run_analyze(csv, B, &ce[i], &peak[i]);
        tr[i] = time_reference_cpu(csv, ref_B, &cr[i]) * B;
        cr[i] *= B;
    }
    long peak_max = 0;
    for (int i = 0; i < n; i++) {
        peak_max = peak[i] > peak_max ? peak[i] : peak_max;
    }
    double me = bench_median(te, n), mc = bench_median(ce, n);
    double mr = bench_median(tr, n), mrc = bench_median(cr, n);
    printf("  simlab-analyze, everything (%d replicates, 2 threads): "
           "%.3f s wall, %.3f s CPU, peak memory %.1f MB (%.2f x the CSV)\n",
           B, me, mc, (double)peak_max / 1024.0,
           (double)peak_max * 1024.0 / (double)sb.st_size);
    if (mr > 0) {
        printf("  numpy crossed bootstrap alone (%d replicates, %d timed): "
               "%.3f s wall, %.3f s CPU\n",
               B, ref_B, mr, mrc);
        printf("  ratio numpy bootstrap / simlab-analyze end to end: %.1f x "
               "wall, %.1f x CPU\n\n",
               mr / me, mrc / mc);
    } else {
        printf("  numpy reference: not available\n\n");
    }
    remove(csv);
    remove(dbp);
    return 0;
}

typedef struct Scenario {
    const char *name;
    int conds, users, items;
    int ref_replicates;
} Scenario;

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    int quick = argc > 2 && strcmp(argv[2], "--quick") == 0;
    int ingest = argc > 2 && strcmp(argv[2], "--ingest") == 0;
    repeats = repeats < 1 ? 1 : repeats;
    const int B = 10000;
    printf("median of %d runs\n\n", repeats);
    if (ingest_and_end_to_end(repeats, ingest) != 0) {
        return 1;
    }
    if (quick || ingest) {
        return 0;
    }
    Scenario sc[2] = {
        {"hase-sized (5 x 7 x 32, 2,240 responses)", 5, 7, 32, 10000},
        {"large (10 x 1000 x 64, 1.28 M responses)", 10, 1000, 64, 300}};
    printf("bootstrap of the change table alone, %d replicates\n\n", B);
    for (int s = 0; s < 2; s++) {
        SimStudy st = study_of(sc[s].conds, sc[s].users, sc[s].items);
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
        double m1 = bench_median(t1, n), m2 = bench_median(t2, n),
               mr = bench_median(ref, n);
        printf("%s\n", sc[s].name);
        printf("  setup (B = 0):             %8.4f s\n", bench_median(t0, n));
        printf("  bootstrap, 1 thread:       %8.4f s  (%.2f us/replicate)\n",
               m1, 1e6 * m1 / B);
        printf("  bootstrap, 2 threads:      %8.4f s  (%.2f us/replicate)\n",
               m2, 1e6 * m2 / B);
        printf("  bootstrap CPU time:        %8.4f s  (1 thread)\n",
               bench_median(c1, n));
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
