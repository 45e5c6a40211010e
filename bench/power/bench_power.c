/*
** Times `simlab power` on the demo study assets/studies/text-forward:
** STUDIES studies at 10, 20, 40 and 80 participants per condition, B = 1000,
** THREADS threads, once with curtailed (sequential) replicates and once with
** all B replicates per study (the reference, same run, same studies).
** Prints wall and CPU seconds and the ratio; checks the decisions agree.
** Then the same with no effect in any condition (Post = Pre = 0.6, or every
** test accuracy 0.6). BUNDLE: another study (e.g. the meta-predictor demo
** or bench/power/plain-study for the Utility and difference tests).
** With MODE "glmm": instead, `simlab power --test glmm` on the same
** studies (no null studies), against the same run with every fit from
** lme4's start (no pilot's warm start: the decisions must be the same)
** and against the crossed bootstrap's run of them.
** Usage: bench_power [STUDIES] [THREADS] [BUNDLE] [glmm [SIZES]]   (defaults
** 500, 2, text-forward and 10,20,40,80)
*/
#define _POSIX_C_SOURCE 200809L
#include "app/power_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static PowerResult *timed(PowerStudyOptions *o, double *wall, double *cpu)
{
    PowerResult *r = NULL;
    SimError err;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (power_study_run(o, &r, &err) != SIM_OK) {
        fprintf(stderr, "bench_power: %s\n", err.msg);
        exit(1);
    }
    *wall = now(CLOCK_MONOTONIC) - w0;
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    return r;
}

int main(int argc, char **argv)
{
    PowerStudyOptions o;
    power_study_options_default(&o);
    o.bundle_dir =
        argc > 3 ? argv[3] : SIMLAB_SOURCE_DIR "/assets/studies/text-forward";
    power_parse_sizes(argc > 5 ? argv[5] : "10,20,40,80", &o.power, NULL);
    o.power.studies = argc > 1 ? atoi(argv[1]) : 500;
    o.power.threads = argc > 2 ? atoi(argv[2]) : 2;
    o.power.null_studies = 0; /* the power studies alone */
    o.screening = 0;
    double w1, c1, w2, c2;
    if (argc > 4 && strcmp(argv[4], "glmm") == 0) {
        o.power.method = POWER_METHOD_GLMM;
        PowerResult *g = timed(&o, &w1, &c1);
        o.power.glmm_cold = 1;
        double w3, c3;
        PowerResult *gc = timed(&o, &w3, &c3);
        o.power.method = POWER_METHOD_BOOTSTRAP;
        PowerResult *bt = timed(&o, &w2, &c2);
        int same = 0;
        double dmax = 0;
        for (int i = 0; i < g->n_rows; i++) {
            same += g->rows[i].rejections == gc->rows[i].rejections &&
                    g->rows[i].covered == gc->rows[i].covered;
            double d =
                fabs(g->rows[i].mean_estimate - gc->rows[i].mean_estimate);
            dmax = d > dmax ? d : dmax;
        }
        printf("%s: %d studies x %d sizes (%s), %d threads\n", g->study_id,
               o.power.studies, o.power.n_sizes,
               argc > 5 ? argv[5] : "10,20,40,80", o.power.threads);
        printf("--test glmm:        %7.2f s wall, %7.2f s CPU\n", w1, c1);
        printf("every fit from lme4's start: %7.2f s wall, %7.2f s CPU\n", w3,
               c3);
        printf("crossed bootstrap:  %7.2f s wall, %7.2f s CPU (B <= %d, "
               "curtailed)\n",
               w2, c2, o.power.replicates);
        printf("ratio (glmm / lme4's start): %.2f wall, %.2f CPU; rows with "
               "the same rejections and coverage: %d of %d; largest "
               "difference of a mean estimate %.1e\n",
               w1 / w3, c1 / c3, same, g->n_rows, dmax);
        printf("ratio (glmm / bootstrap): %.2f wall, %.2f CPU\n", w1 / w2,
               c1 / c2);
        for (int i = 0; i < g->n_rows; i++) {
            const PowerRow *a = &g->rows[i], *c = &gc->rows[i];
            printf("  %-12s N = %3d: power glmm %.3f, bootstrap %.3f",
                   a->condition, a->participants, a->power, bt->rows[i].power);
            if (a->rejections != c->rejections || a->covered != c->covered) {
                printf(" (from lme4's start: %d rejections, %d covered; "
                       "here %d, %d)",
                       c->rejections, c->covered, a->rejections, a->covered);
            }
            printf("\n");
        }
        int rows = g->n_rows;
        power_free(g);
        power_free(gc);
        power_free(bt);
        return same == rows ? 0 : 1;
    }
    PowerResult *a = timed(&o, &w1, &c1);
    o.power.full_replicates = 1;
    PowerResult *b = timed(&o, &w2, &c2);
    int same = 1;
    double reps_a = 0;
    for (int i = 0; i < a->n_rows; i++) {
        same &= a->rows[i].rejections == b->rows[i].rejections;
        reps_a += a->rows[i].mean_replicates / a->n_rows;
    }
    printf("%s: %d studies x 4 sizes, B = %d, %d threads\n", a->study_id,
           o.power.studies, o.power.replicates, o.power.threads);
    printf("curtailed:      %6.2f s wall, %6.2f s CPU, %.0f replicates per "
           "study on average\n",
           w1, c1, reps_a);
    printf("all replicates: %6.2f s wall, %6.2f s CPU\n", w2, c2);
    printf("ratio (curtailed / all): %.2f wall, %.2f CPU; decisions %s\n",
           w1 / w2, c1 / c2, same ? "identical" : "DIFFER");
    power_free(a);
    power_free(b);
    /* the same with no effect anywhere: every study can stop early */
    static const char *null_cells[] = {"*:post=0.6", "*:test=0.6"};
    o.cells = null_cells;
    o.n_cells = 2;
    o.power.full_replicates = 0;
    a = timed(&o, &w1, &c1);
    o.power.full_replicates = 1;
    b = timed(&o, &w2, &c2);
    reps_a = 0;
    for (int i = 0; i < a->n_rows; i++) {
        same &= a->rows[i].rejections == b->rows[i].rejections;
        reps_a += a->rows[i].mean_replicates / a->n_rows;
    }
    printf("no effect anywhere: curtailed %.2f s wall, %.2f s CPU (%.0f "
           "replicates per study); all %.2f s wall, %.2f s CPU; ratio %.2f "
           "wall, %.2f CPU; decisions %s\n",
           w1, c1, reps_a, w2, c2, w1 / w2, c1 / c2,
           same ? "identical" : "DIFFER");
    power_free(a);
    power_free(b);
    return same ? 0 : 1;
}
