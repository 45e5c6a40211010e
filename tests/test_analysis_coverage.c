/*
** A small coverage study: 300 simulated studies with a known Change. The
** crossed bootstrap's 95 % CI must cover the truth at least 93 % of the
** time; resampling users only must not (it ignores item variance).
*/
#include "tests/harness.h"

#include "bench/analysis/coverage.h"

int main(void)
{
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
    /* the truth is not trivially 0: two conditions change a lot */
    CHECK(coverage_truth(&st, 1) > 0.1 && coverage_truth(&st, 2) > 0.2);
    CoverageResult crossed, users;
    CHECK_INT(coverage_run(&st, 300, 200, 0, 4242, 2, &crossed), 0);
    CHECK_INT(coverage_run(&st, 300, 200, 1, 4242, 2, &users), 0);
    CHECK_INT(crossed.intervals, 900);
    CHECK_INT(users.intervals, 900);
    double cov_crossed = (double)crossed.covered / crossed.intervals;
    double cov_users = (double)users.covered / users.intervals;
    printf("coverage: crossed %.3f (width %.4f), users only %.3f (width "
           "%.4f)\n",
           cov_crossed, crossed.mean_width, cov_users, users.mean_width);
    CHECK(cov_crossed >= 0.93);
    CHECK(cov_users < 0.90);
    /* the intervals are real intervals, not the whole line */
    CHECK(crossed.mean_width > 0.01 && crossed.mean_width < 0.3);
    return TEST_REPORT();
}
