/*
** simlab-analyze on databases written by the engine itself: `simulate` runs
** simulated participants through two bundled demo studies (a Hase-style
** pre/post study and the meta-predictor study), then the analysis reads the
** long_format views. Checks the tables that each design should produce,
** and the explanation metrics the meta study stores with its definition.
*/
#include "tests/harness.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "analysis/report.h"
#include "experiment/simulate.h"

static int simulate(const char *bundle, const char *db, int n, uint64_t seed)
{
    unlink(db);
    SimulateOptions o = {0};
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = n;
    o.policy = POLICY_MIXED;
    o.seed = seed;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    SimError err;
    sim_error_clear(&err);
    int rc = simulate_run(&o, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate %s: %s\n", bundle, err.msg);
    }
    return rc;
}

static int analyse(const char *db, int include_simulated, Report *r)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    int rc = dataset_load_db(ds, db, &err);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 300;
    o.threads = 2;
    o.progress = 0;
    o.include_simulated = include_simulated;
    o.max_catch_failures = 0;
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, &o, r, &err);
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    dataset_free(ds);
    return rc;
}

int main(void)
{
    const char *studies = SIMLAB_SOURCE_DIR "/assets/studies";
    char bundle[512];
    snprintf(bundle, sizeof bundle, "%s/text-forward", studies);
    if (access(bundle, R_OK) != 0) {
        printf("skipped: %s not found\n", bundle);
        return SIM_TEST_SKIP;
    }
    Report r;
    CHECK_INT(simulate(bundle, "analysis_engine_prepost.db", 24, 5), SIM_OK);
    CHECK_INT(analyse("analysis_engine_prepost.db", 1, &r), SIM_OK);
    CHECK(r.n_change > 0 && r.n_re > 0);
    for (int i = 0; i < r.n_change; i++) {
        const ChangeRow *c = &r.change[i];
        CHECK(c->n_responses > 0 && c->pre_raw >= 0 && c->pre_raw <= 1);
        CHECK(isfinite(c->ci_low) && c->ci_low <= c->ci_high);
        CHECK_NEAR(c->change, c->post - c->pre_re, 1e-12);
    }
    report_free(&r);
    /* simulated participants are left out unless asked for */
    CHECK_INT(analyse("analysis_engine_prepost.db", 0, &r), SIM_OK);
    CHECK_INT(r.n_change, 0);
    CHECK(r.n_exclusions > 0 &&
          strcmp(r.exclusions[0].reason, "simulated") == 0);
    report_free(&r);

    snprintf(bundle, sizeof bundle, "%s/image-meta", studies);
    CHECK_INT(simulate(bundle, "analysis_engine_meta.db", 48, 6), SIM_OK);
    CHECK_INT(analyse("analysis_engine_meta.db", 1, &r), SIM_OK);
    CHECK(r.n_utility >= 2);
    CHECK_INT(r.n_sessions, 3);
    for (int i = 0; i < r.n_utility; i++) {
        const UtilityRow *u = &r.utility[i];
        for (int t = 0; t < r.n_sessions; t++) {
            CHECK(u->session_accuracy[t] >= 0 && u->session_accuracy[t] <= 1);
        }
        if (u->is_baseline) {
            CHECK_NEAR(u->utility, 1.0, 1e-12);
        }
    }
    CHECK(r.has_anova);
    CHECK(r.n_rt > 0 && r.rt[0].median_s > 0);
    /* the bundle's metrics.csv and the mask scores, stored with the
    ** definition, reach the report with no --metrics */
    const Table *mh = report_table(&r, "metrics_vs_human");
    CHECK(mh != NULL && mh->n_rows >= 4); /* mass, rank, pointing, IoU */
    const Table *mm = report_table(&r, "metrics_methods");
    CHECK(mm != NULL && mm->n_rows > 0);
    report_free(&r);
    return TEST_REPORT();
}
