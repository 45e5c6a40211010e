/*
** Coverage of the Change CI on data from the engine itself: each simulated
** study is a fresh database filled by simulate_run() (the code path of
** `simlab simulate --policy mixed`, fast durability) and read back through
** its long_format view, then analysed with the crossed bootstrap and with
** users-only resampling. The truth of each condition is the mixed policy's
** population Change (policy_true_accuracy). Prints the coverage of both.
** Usage: coverage_engine BUNDLE [STUDIES] [PARTICIPANTS] [REPLICATES]
*/
#define _POSIX_C_SOURCE 200809L

#include "analysis/analyze.h"
#include "experiment/simulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Assumed accuracies of the simulated studies (condition:phase=p). */
static const char *const CELLS[] = {"*:pre=0.6", "LIME:post=0.75",
                                    "Anchor:post=0.6", "Omission:post=0.66",
                                    "Composite:post=0.7"};
#define N_CELLS        5
#define PARTICIPANT_SD 0.5
#define ITEM_SD        1.0

typedef struct Tally {
    int covered, total;
    double width;
} Tally;

/* Truth of condition cond under the cells above. */
static double truth(const char *cond)
{
    static char text[N_CELLS][64];
    SimCell cells[N_CELLS];
    SimError err;
    for (int i = 0; i < N_CELLS; i++) {
        snprintf(text[i], sizeof text[i], "%s", CELLS[i]);
        policy_parse_cell(text[i], &cells[i], &err);
    }
    SimulationSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.p_default = 0.6;
    spec.cells = cells;
    spec.n_cells = N_CELLS;
    spec.participant_sd = PARTICIPANT_SD;
    spec.item_sd = ITEM_SD;
    return policy_true_accuracy(&spec, cond, "post") -
           policy_true_accuracy(&spec, cond, "pre");
}

static int analyse(const char *db, int items_fixed, int B, uint64_t seed,
                   Tally *t)
{
    Dataset *ds = NULL;
    SimError err;
    Report r;
    memset(&r, 0, sizeof r);
    if (dataset_new(&ds, &err) != SIM_OK ||
        dataset_load_db(ds, db, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        dataset_free(ds);
        return -1;
    }
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = B;
    o.seed = seed;
    o.include_simulated = 1;
    o.items_fixed = items_fixed;
    o.no_glmm = 1; /* the coverage of the change table's bootstrap only */
    o.change_only = 1;
    o.progress = 0;
    o.quiet = 1;
    int rc = analyze_compute(ds, &o, &r, &err);
    for (int i = 0; rc == SIM_OK && i < r.n_change; i++) {
        const ChangeRow *c = &r.change[i];
        if (strcmp(c->subset, "all") != 0 || !isfinite(c->ci_low)) {
            continue;
        }
        double th = truth(c->condition);
        t->total++;
        t->covered += c->ci_low <= th && th <= c->ci_high;
        t->width += c->ci_high - c->ci_low;
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    report_free(&r);
    dataset_free(ds);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: coverage_engine BUNDLE [STUDIES] "
                        "[PARTICIPANTS] [REPLICATES]\n");
        return 2;
    }
    int studies = argc > 2 ? atoi(argv[2]) : 200;
    int participants = argc > 3 ? atoi(argv[3]) : 40;
    int B = argc > 4 ? atoi(argv[4]) : 1000;
    char dir[] = "/tmp/simlab-coverage-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    Tally crossed = {0, 0, 0}, users = {0, 0, 0};
    for (int k = 0; k < studies; k++) {
        char db[512];
        snprintf(db, sizeof db, "%s/study-%d.db", dir, k);
        SimulateOptions o;
        memset(&o, 0, sizeof o);
        o.bundle_dir = argv[1];
        o.db_path = db;
        o.participants = participants;
        o.policy = POLICY_MIXED;
        o.seed = 1000 + (uint64_t)k; /* new item effects per study */
        o.station = "coverage";
        o.durability = DURABILITY_FAST;
        o.cells = (const char **)CELLS;
        o.n_cells = N_CELLS;
        o.participant_sd = PARTICIPANT_SD;
        o.item_sd = ITEM_SD;
        o.wall_ms = 1700000000000LL;
        SimError err;
        if (simulate_run(&o, NULL, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        if (analyse(db, 0, B, (uint64_t)k + 1, &crossed) != 0 ||
            analyse(db, 1, B, (uint64_t)k + 1, &users) != 0) {
            return 1;
        }
        unlink(db);
        char side[600];
        snprintf(side, sizeof side, "%s-wal", db);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", db);
        unlink(side);
        if ((k + 1) % 20 == 0) {
            fprintf(stderr, "%d studies\n", k + 1);
        }
    }
    rmdir(dir);
    printf("bundle %s: %d studies x %d participants, B = %d; participant "
           "SD %.2f, item SD %.2f (logit)\n",
           argv[1], studies, participants, B, PARTICIPANT_SD, ITEM_SD);
    printf("crossed users x items: coverage %.1f %% (%d of %d), mean width "
           "%.3f\n",
           100.0 * crossed.covered / crossed.total, crossed.covered,
           crossed.total, crossed.width / crossed.total);
    printf("users only:            coverage %.1f %% (%d of %d), mean width "
           "%.3f\n",
           100.0 * users.covered / users.total, users.covered, users.total,
           users.width / users.total);
    return 0;
}
