/*
** Coverage study core (see coverage.h); shared by the benchmark program and
** its smaller ctest version.
*/
#include "bench/analysis/coverage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"

double coverage_truth(const SimStudy *st, int c)
{
    double s = sqrt(st->sd_p * st->sd_p + st->sd_i * st->sd_i);
    return simstudy_truth(st->p_post[c], s) - simstudy_truth(st->p_pre[c], s);
}

int coverage_run(const SimStudy *st, int n_studies, int B, int items_fixed,
                 uint64_t seed, int threads, CoverageResult *out)
{
    memset(out, 0, sizeof *out);
    double truth[SIMSTUDY_MAX_CONDS];
    for (int c = 0; c < st->n_conds; c++) {
        truth[c] = coverage_truth(st, c);
    }
    double width = 0;
    for (int k = 0; k < n_studies; k++) {
        Dataset *ds;
        SimError err;
        if (dataset_new(&ds, &err) != SIM_OK ||
            simstudy_generate(ds, st, seed + (uint64_t)k, "p", &err) !=
                SIM_OK) {
            dataset_free(ds);
            return -1;
        }
        AnalyzeOptions o;
        analyze_options_default(&o);
        o.replicates = B;
        o.seed = seed * 7919 + (uint64_t)k;
        o.threads = threads;
        o.progress = 0;
        o.items_fixed = items_fixed;
        o.change_only = 1;
        Report r;
        int rc = analyze_compute(ds, &o, &r, &err);
        if (rc == SIM_OK) {
            for (int i = 0; i < r.n_change; i++) {
                const ChangeRow *c = &r.change[i];
                int cond = strcmp(c->condition, "baseline") == 0
                               ? 0
                               : (int)strtol(c->condition + 1, NULL, 10);
                out->intervals++;
                out->covered +=
                    c->ci_low <= truth[cond] && truth[cond] <= c->ci_high;
                width += c->ci_high - c->ci_low;
            }
            out->studies++;
        }
        report_free(&r);
        dataset_free(ds);
        if (rc != SIM_OK) {
            fprintf(stderr, "coverage: %s\n", err.msg);
            return -1;
        }
    }
    out->mean_width = out->intervals ? width / out->intervals : NAN;
    return 0;
}
