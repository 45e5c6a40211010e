/*
** The clocks and the median of the analysis benchmarks (bench_main.c,
** glmm_bench.c, glmm_scale.c): wall and process CPU seconds.
*/
#ifndef SIMLAB_BENCH_ANALYSIS_TIMING_H
#define SIMLAB_BENCH_ANALYSIS_TIMING_H

/* CLOCK_MONOTONIC in seconds. */
double bench_now_s(void);

/* This process' CPU seconds. */
double bench_cpu_s(void);

/* The median of x[0..n-1] (n >= 1; sorts x). */
double bench_median(double *x, int n);

#endif
