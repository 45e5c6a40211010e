/*
** analysis_coverage: the coverage study of docs/analysis.md. Simulates
** studies with a known Change (the model of `simlab simulate --policy
** mixed`) and reports how often the 95 % CI covers it, for the crossed
** bootstrap and for resampling users only.
** usage: analysis_coverage [STUDIES [REPLICATES [THREADS]]]
*/
#include <stdio.h>
#include <stdlib.h>

#include "bench/analysis/coverage.h"

int main(int argc, char **argv)
{
    int studies = argc > 1 ? atoi(argv[1]) : 500;
    int B = argc > 2 ? atoi(argv[2]) : 1000;
    int threads = argc > 3 ? atoi(argv[3]) : 2;
    SimStudy st = {0};
    st.n_conds = 3;
    st.users_per_cond = 60;
    st.n_items = 16;
    for (int c = 0; c < 3; c++) {
        st.p_pre[c] = 0.55;
    }
    st.p_post[0] = 0.55;
    st.p_post[1] = 0.70;
    st.p_post[2] = 0.85;
    st.sd_p = 0.5;
    st.sd_i = 1.5;
    printf("design: %d conditions x %d users x %d items, pre/post; sd_p %.2f, "
           "sd_i %.2f; %d studies, B = %d\n",
           st.n_conds, st.users_per_cond, st.n_items, st.sd_p, st.sd_i, studies,
           B);
    for (int c = 0; c < st.n_conds; c++) {
        printf("true Change, condition %d: %+.4f\n", c, coverage_truth(&st, c));
    }
    for (int mode = 0; mode < 2; mode++) {
        CoverageResult r;
        if (coverage_run(&st, studies, B, mode, 1000, threads, &r) != 0) {
            return 1;
        }
        printf("%-24s coverage %5.1f %% (%d of %d intervals), mean width "
               "%.4f\n",
               mode ? "users only:" : "crossed users x items:",
               100.0 * r.covered / r.intervals, r.covered, r.intervals,
               r.mean_width);
    }
    return 0;
}
