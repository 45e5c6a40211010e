/*
** Simulated participants end to end: `simlab simulate` + `simlab export` on
** the fixture bundles and on the Hase & Bansal bundles (when ../shared is
** present), rows matching the schedule, `correct` right by construction for
** the model and label policies, the mixed policy reproducing its known
** accuracies, and SIGKILL at random points followed by a restart that loses
** and duplicates nothing (also in the middle of questionnaires, whose
** answers stay with their steps).
** Usage: test_experiment_simulate PATH_TO_SIMLAB
*/
#include "tests/harness.h"
#include "tests/test_util.h"

#include "experiment/export.h"
#include "experiment/simulate.h"
#include "common/sim_rng.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

static char tmp[256];
static const char *simlab_bin;

static int sql_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    } else if (sqlite3_errcode(db) != SQLITE_BUSY &&
               !strstr(sqlite3_errmsg(db), "no such table")) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

static double sql_double(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    double v = -999;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_double(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

static int simulate(const char *bundle, const char *db, int n,
                    PolicyKind policy, uint64_t seed, Durability dur,
                    const char **cells, int n_cells)
{
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = n;
    o.policy = policy;
    o.seed = seed;
    o.station = "test";
    o.durability = dur;
    o.cells = cells;
    o.n_cells = n_cells;
    o.wall_ms = 1700000000000LL;
    SimError err;
    int rc = simulate_run(&o, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate %s: %s\n", bundle, err.msg);
    }
    return rc;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    int n = 0, c, prev = '\n';
    if (!f) {
        return -1;
    }
    /* rows end in CRLF; embedded newlines only occur inside quotes, which
    ** these fixtures do not produce */
    while ((c = fgetc(f)) != EOF) {
        n += c == '\n';
        prev = c;
    }
    fclose(f);
    return prev == '\n' ? n : n + 1;
}

static void fixture(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/experiment/%s", SIMLAB_TEST_DATA, name);
}

static void test_policies(void)
{
    char bundle[512], db[512], csv[600];
    fixture(bundle, sizeof bundle, "mini-forward");

    /* model policy: every answer right */
    snprintf(db, sizeof db, "%s/model.db", tmp);
    CHECK_INT(
        simulate(bundle, db, 4, POLICY_MODEL, 1, DURABILITY_FULL, NULL, 0),
        SIM_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                          "'completed' AND simulated = 1"),
              4);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase IN "
                          "('pre', 'post') AND correct = 1"),
              4 * 16);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE response "
                          "!= model_output AND phase IN ('pre', 'post')"),
              0);
    /* rows per participant follow the schedule: 1 quiz + 4 learn + 8 pre +
    ** 4 learn + 8 post */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM (SELECT participant FROM "
                          "long_format GROUP BY participant HAVING "
                          "SUM(phase = 'learn') = 8 AND SUM(phase = 'pre') = "
                          "8 AND SUM(phase = 'post') = 8 AND "
                          "SUM(phase = 'quiz') = 1)"),
              4);
    /* running again with the same target adds nobody */
    CHECK_INT(
        simulate(bundle, db, 4, POLICY_MODEL, 1, DURABILITY_FULL, NULL, 0),
        SIM_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant"), 4);
    snprintf(csv, sizeof csv, "%s/model.csv", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    CHECK_INT(count_lines(csv), 1 + 4 * 25);
    char side[700];
    snprintf(side, sizeof side, "%s.json", csv);
    CHECK(test_path_exists(side));
    FILE *f = fopen(csv, "rb");
    char header[512] = "";
    if (f) {
        CHECK(fgets(header, sizeof header, f) != NULL);
        fclose(f);
    }
    CHECK(strncmp(header,
                  "participant,condition,phase,item,correct,session,"
                  "test_type,domain,block,trial,is_catch,prediction_type,"
                  "label,model_output,response,rating,rt_ms,pilot,simulated,"
                  "excluded,station,timed_out,confidence,confidence_rt_ms"
                  "\r\n",
                  200) == 0);

    /* label policy: correct exactly when the label equals the output */
    snprintf(db, sizeof db, "%s/label.db", tmp);
    CHECK_INT(
        simulate(bundle, db, 3, POLICY_LABEL, 2, DURABILITY_FULL, NULL, 0),
        SIM_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase IN "
                          "('pre', 'post') AND correct != (label = "
                          "model_output)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase IN "
                          "('pre', 'post') AND response != label"),
              0);
    /* balanced TP/FP/TN/FN: the label policy is right half the time */
    CHECK_INT(sql_int(db, "SELECT SUM(correct) FROM long_format WHERE phase "
                          "= 'pre'"),
              3 * 4);

    /* counterfactual: correct refers to the output on the perturbation */
    fixture(bundle, sizeof bundle, "mini-counterfactual");
    snprintf(db, sizeof db, "%s/cf.db", tmp);
    CHECK_INT(
        simulate(bundle, db, 2, POLICY_MODEL, 3, DURABILITY_FULL, NULL, 0),
        SIM_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type = "
                          "'counterfactual' AND correct = 1"),
              2 * 16);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format l JOIN item i ON "
                          "i.key = l.item WHERE l.model_output != "
                          "i.cf_prediction"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase = "
                          "'post' AND rating BETWEEN 1 AND 7"),
              2 * 8);

    /* meta-predictor: sessions, catch trials */
    fixture(bundle, sizeof bundle, "mini-meta");
    snprintf(db, sizeof db, "%s/meta.db", tmp);
    CHECK_INT(
        simulate(bundle, db, 6, POLICY_RANDOM, 4, DURABILITY_FAST, NULL, 0),
        SIM_OK);
    CHECK_INT(sql_int(db, "SELECT COUNT(DISTINCT condition) FROM "
                          "participant"),
              3);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase = "
                          "'test' AND is_catch = 1"),
              6 * 3);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase = "
                          "'test' AND session BETWEEN 1 AND 3"),
              6 * 24);
}

/* The mixed policy reproduces its accuracies (population truth). */
static void test_mixed(void)
{
    char bundle[512], db[512];
    fixture(bundle, sizeof bundle, "mini-forward");
    snprintf(db, sizeof db, "%s/mixed.db", tmp);
    const char *cells[] = {"baseline:post=0.6", "LIME:post=0.85", "*:pre=0.55"};
    CHECK_INT(
        simulate(bundle, db, 400, POLICY_MIXED, 9, DURABILITY_FAST, cells, 3),
        SIM_OK);
    SimulationSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.p_default = 0.6;
    spec.participant_sd = 0.3;
    spec.item_sd = 0.3;
    static char baseline[] = "baseline", lime_id[] = "LIME", post[] = "post",
                pre_phase[] = "pre";
    SimCell c[3] = {{baseline, post, 0.6, 0, 0, 0},
                    {lime_id, post, 0.85, 0, 0, 0},
                    {NULL, pre_phase, 0.55, 0, 0, 0}};
    spec.cells = c;
    spec.n_cells = 3;
    double t_lime = policy_true_accuracy(&spec, "LIME", "post");
    double t_pre = policy_true_accuracy(&spec, "LIME", "pre");
    CHECK(t_lime > 0.8 && t_lime < 0.85); /* shrunk towards 0.5 */
    double lime = sql_double(db, "SELECT AVG(correct) FROM long_format WHERE "
                                 "condition = 'LIME' AND phase = 'post'");
    double pre = sql_double(db, "SELECT AVG(correct) FROM long_format WHERE "
                                "phase = 'pre'");
    /* 8 items with item effects: allow for their sampling spread */
    CHECK_NEAR(lime, t_lime, 0.06);
    CHECK_NEAR(pre, t_pre, 0.06);
    CHECK(lime - pre > 0.15);
    /* plausible reaction times: log-normal around the median */
    double med = sql_double(db, "SELECT rt_ms FROM long_format WHERE phase = "
                                "'pre' ORDER BY rt_ms LIMIT 1 OFFSET (SELECT "
                                "COUNT(*) / 2 FROM long_format WHERE phase = "
                                "'pre')");
    CHECK(med > 1500 && med < 4000);
}

/* --p cells that would match nothing are usage errors that say why. */
static void test_bad_cells(void)
{
    char bundle[512], db[512];
    fixture(bundle, sizeof bundle, "mini-forward");
    snprintf(db, sizeof db, "%s/bad-cells.db", tmp);
    static const struct {
        const char *cell;
        const char *message;
    } cases[] = {
        {"LMIE:post=0.7",
         "--p: unknown condition 'LMIE' (did you mean 'LIME'?)"},
        {"Nothing:post=0.7", "--p: unknown condition 'Nothing' (the study has"},
        {"LIME:psot=0.7", "--p: unknown phase 'psot' (did you mean 'post'?)"},
        {"LIME:zzzzzz=0.7", "--p: unknown phase 'zzzzzz' (phases: practice,"},
        {"*:train=0.7", "--p: the study has no block in phase 'train'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        SimulateOptions o;
        memset(&o, 0, sizeof o);
        o.bundle_dir = bundle;
        o.db_path = db;
        o.participants = 1;
        o.policy = POLICY_MIXED;
        o.station = "test";
        const char *cell = cases[i].cell;
        o.cells = &cell;
        o.n_cells = 1;
        SimError err;
        CHECK_INT(simulate_run(&o, NULL, &err), SIM_ERR_USAGE);
        if (!strstr(err.msg, cases[i].message)) {
            h_fail++;
            fprintf(stderr, "--p %s: '%s', want '%s'\n", cases[i].cell, err.msg,
                    cases[i].message);
        } else {
            h_pass++;
        }
    }
    CHECK(!test_path_exists(db));
}

/* Starts `simlab simulate`; when kill_after >= 0, kills it with SIGKILL as
** soon as the database holds kill_after responses. Returns the wait status. */
static int run_and_kill(const char *bundle, const char *db, int n,
                        int kill_after)
{
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        execl(simlab_bin, simlab_bin, "simulate", bundle, "--db", db,
              "--participants", count, "--policy", "mixed", "--seed", "5",
              (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (kill_after >= 0) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return status;
        }
        if (test_path_exists(db) &&
            sql_int(db, "SELECT COUNT(*) FROM response") >= kill_after) {
            kill(pid, SIGKILL);
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    waitpid(pid, &status, 0);
    return status;
}

static void test_kill(void)
{
    if (!simlab_bin) {
        return;
    }
    char bundle[512], db[512];
    fixture(bundle, sizeof bundle, "mini-meta");
    snprintf(db, sizeof db, "%s/kill.db", tmp);
    SimRng rng;
    sim_rng_seed(&rng, (uint64_t)time(NULL));
    int killed = 0, rounds = 0;
    /* kill runs at random points of their work until one reaches the end */
    while (rounds < 60) {
        int have = test_path_exists(db)
                       ? sql_int(db, "SELECT COUNT(*) FROM response")
                       : 0;
        int at = have + 1 + (int)sim_rng_below(&rng, 400);
        int status = run_and_kill(bundle, db, 60, at);
        rounds++;
        if (!WIFSIGNALED(status)) {
            break;
        }
        killed++;
    }
    CHECK(killed >= 8); /* enough real interruptions to mean something */
    int status = run_and_kill(bundle, db, 60, -1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* 60 complete participants; every step of each answered exactly once */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                          "'completed'"),
              60);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status IN "
                          "('active', 'aborted')"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant p WHERE "
                          "(SELECT COUNT(*) FROM trial t WHERE t.participant "
                          "= p.id) != (SELECT COUNT(*) FROM response r WHERE "
                          "r.participant = p.id AND r.done = 1)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response r LEFT JOIN trial t "
                          "USING (participant, seq) WHERE t.seq IS NULL"),
              0);
    CHECK_INT(sql_int(db, "PRAGMA integrity_check") == -999, 0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM (SELECT participant, seq FROM "
                          "response GROUP BY participant, seq HAVING "
                          "COUNT(*) > 1)"),
              0);
    int resumed = sql_int(db, "SELECT COUNT(*) FROM event WHERE kind = "
                              "'resume'");
    printf("killed %d of %d runs; %d resumes logged\n", killed, rounds,
           resumed);
}

/* SIGKILL in the middle of questionnaires: after the restarts every done
** questionnaire step has all its answers (the required ones at least),
** and no answer belongs to a step that is not done. */
static void test_kill_questionnaire(void)
{
    if (!simlab_bin) {
        return;
    }
    char bundle[512], db[512];
    fixture(bundle, sizeof bundle, "mini-questionnaire");
    snprintf(db, sizeof db, "%s/kill-q.db", tmp);
    SimRng rng;
    sim_rng_seed(&rng, (uint64_t)time(NULL) ^ 0x51u);
    int killed = 0, rounds = 0;
    while (rounds < 40) {
        int have = test_path_exists(db)
                       ? sql_int(db, "SELECT COUNT(*) FROM response")
                       : 0;
        int at = have + 1 + (int)sim_rng_below(&rng, 30);
        int status = run_and_kill(bundle, db, 20, at);
        rounds++;
        if (!WIFSIGNALED(status)) {
            break;
        }
        killed++;
    }
    CHECK(killed >= 4);
    int status = run_and_kill(bundle, db, 20, -1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                          "'completed'"),
              20);
    /* about-you asks 3 required questions, survey 2 required + 1 optional */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM trial t JOIN response r "
                          "USING (participant, seq) WHERE t.block_kind = "
                          "'questionnaire' AND r.done = 1 AND (SELECT "
                          "COUNT(*) FROM answer a WHERE a.participant = "
                          "t.participant AND a.seq = t.seq) < CASE "
                          "t.block_id WHEN 'about-you' THEN 3 ELSE 2 END"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM trial WHERE block_kind = "
                          "'questionnaire'"),
              40);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM answer a LEFT JOIN response "
                          "r USING (participant, seq) WHERE r.done IS NULL "
                          "OR r.done = 0"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM (SELECT participant, seq, "
                          "question FROM answer GROUP BY 1, 2, 3 HAVING "
                          "COUNT(*) > 1)"),
              0);
    printf("questionnaires: killed %d of %d runs\n", killed, rounds);
}

/* The Hase & Bansal bundles: rows match the published design. */
static void test_hase(void)
{
    char shared[512];
    snprintf(shared, sizeof shared, "%s/data/hase2020", SIMLAB_SHARED_DIR);
    if (!test_path_exists(shared)) {
        printf("skipping Hase bundles: %s is absent\n", shared);
        return;
    }
    static const char *const tests[][2] = {
        {"text-forward", "text"},
        {"text-counterfactual", "text"},
        {"tabular-forward", "tabular"},
        {"tabular-counterfactual", "tabular"}};
    for (size_t i = 0; i < 4; i++) {
        char bundle[512], cmd[2048], db[600];
        snprintf(bundle, sizeof bundle, "%s/%s", tmp, tests[i][0]);
        snprintf(cmd, sizeof cmd,
                 "cp -r '%s/examples/hase2020/%s' '%s' && cp -r "
                 "'%s/%s/data/HIT-data-public-final' '%s/data'",
                 SIMLAB_SOURCE_DIR, tests[i][0], bundle, shared, tests[i][1],
                 bundle);
        CHECK_INT(system(cmd), 0);
        snprintf(db, sizeof db, "%s/%s.db", tmp, tests[i][0]);
        CHECK_INT(
            simulate(bundle, db, 2, POLICY_MODEL, 7, DURABILITY_FAST, NULL, 0),
            SIM_OK);
        int forward = strstr(tests[i][0], "forward") != NULL;
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase "
                              "= 'pre'"),
                  2 * 32);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase "
                              "= 'post'"),
                  2 * 32);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase "
                              "= 'learn'"),
                  forward ? 2 * 32 : 0);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE phase "
                              "IN ('pre', 'post') AND correct = 1"),
                  2 * 64);
        /* TP/FP/TN/FN balance survives into the data */
        CHECK_INT(sql_int(db, "SELECT COUNT(DISTINCT prediction_type) FROM "
                              "long_format WHERE phase = 'pre'"),
                  4);
        CHECK_INT(sql_int(db, "SELECT MAX(n) - MIN(n) FROM (SELECT COUNT(*) "
                              "AS n FROM long_format WHERE phase = 'pre' "
                              "GROUP BY prediction_type)"),
                  0);
        char csv[700];
        SimError err;
        snprintf(csv, sizeof csv, "%s/%s.csv", tmp, tests[i][0]);
        CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    }
}

int main(int argc, char **argv)
{
    simlab_bin = argc > 1 ? argv[1] : NULL;
    test_tmpdir(tmp, sizeof tmp, "simulate");
    test_policies();
    test_mixed();
    test_bad_cells();
    test_kill();
    test_kill_questionnaire();
    test_hase();
    test_rmtree(tmp);
    return TEST_REPORT();
}
