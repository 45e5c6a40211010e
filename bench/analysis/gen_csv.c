/*
** gen_csv: writes a simulated pre/post study as long-format CSV.
** usage: analysis_gen_csv CONDS USERS ITEMS SEED > study.csv
*/
#include <stdio.h>
#include <stdlib.h>

#include "bench/analysis/simstudy.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s CONDS USERS ITEMS SEED\n", argv[0]);
        return 2;
    }
    SimStudy st = {0};
    st.n_conds = atoi(argv[1]);
    st.users_per_cond = atoi(argv[2]);
    st.n_items = atoi(argv[3]);
    if (st.n_conds < 1 || st.n_conds > SIMSTUDY_MAX_CONDS) {
        fprintf(stderr, "CONDS must be 1..%d\n", SIMSTUDY_MAX_CONDS);
        return 2;
    }
    for (int c = 0; c < st.n_conds; c++) {
        st.p_pre[c] = 0.65;
        st.p_post[c] = 0.65 + 0.01 * c;
    }
    st.sd_p = 0.5;
    st.sd_i = 0.8;
    return simstudy_write_csv(stdout, &st, strtoull(argv[4], NULL, 10)) ? 1 : 0;
}
