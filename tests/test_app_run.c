/*
** End-to-end tests of `simlab run` under SDL's dummy video driver: the
** autopilot drives the real application loop (synthetic SDL key presses and
** clicks) through a whole study, then the database is checked row by row
** against each participant's schedule.
**   test_app_run SIMLAB BUNDLE MODE
** BUNDLE: text-forward, text-counterfactual, tabular-forward,
** tabular-counterfactual (Hase & Bansal materials from the shared folder)
** meta-image (tests/data/app), deadline (tests/data/experiment/mini-deadline:
** timeouts and confidence) or demo-NAME (assets/studies/NAME). MODE: plain,
** chaos (the participant tries to quit, presses Escape, answers before the
*stimulus is shown,
** repeats keys and double-clicks wrong answers; the experimenter pauses),
** kill (SIGKILL at random moments, then resume until complete).
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_util.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

#include "experiment/session.h"
#include "common/sim_alloc.h"
#include "experiment/store.h"

#define N_PARTICIPANTS 2

static const char *simlab_bin;

/* Runs simlab run; returns its exit status, or -1 when it was killed
** after kill_ms (0: never). */
static int run_simlab(const char *bundle, const char *db, const char *extra,
                      int kill_ms)
{
    pid_t pid = fork();
    if (pid == 0) {
        char parts[16];
        snprintf(parts, sizeof parts, "%d", N_PARTICIPANTS);
        setenv("SDL_VIDEODRIVER", "dummy", 1);
        setenv("SDL_AUDIODRIVER", "dummy", 1);
        if (extra) {
            execl(simlab_bin, simlab_bin, "run", bundle, "--db", db,
                  "--autopilot", "model", "--participants", parts, "--seed",
                  "7", extra, (char *)NULL);
        } else {
            execl(simlab_bin, simlab_bin, "run", bundle, "--db", db,
                  "--autopilot", "model", "--participants", parts, "--seed",
                  "7", (char *)NULL);
        }
        _exit(127);
    }
    if (kill_ms > 0) {
        int64_t waited = 0;
        int status;
        while (waited < kill_ms) {
            if (waitpid(pid, &status, WNOHANG) == pid) {
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            waited += 2;
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int count_rows(sqlite3 *db, const char *sql, const char *arg)
{
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (arg) {
            sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
        }
        if (sqlite3_step(st) == SQLITE_ROW) {
            n = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    return n;
}

/* Every complete participant: one done response per step of its stored
** schedule, model answers everywhere a prediction was asked (so no early,
** repeated or double-clicked wrong input got through), onsets before
** responses. */
static void check_db(const char *bundle, const char *db_path, int chaos)
{
    SimError err;
    Store *st = NULL;
    Study *study = NULL;
    CHECK_INT(study_load(bundle, &study, NULL, &err), SIM_OK);
    if (!study) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK_INT(store_open(db_path, study, DURABILITY_FULL, 0, 0, &st, &err),
              SIM_OK);
    if (!st) {
        fprintf(stderr, "%s\n", err.msg);
        study_free(study);
        return;
    }
    int complete = 0;
    CHECK_INT(store_count_complete(st, 1, &complete, &err), SIM_OK);
    CHECK(complete >= N_PARTICIPANTS);
    ParticipantInfo *ps = NULL;
    size_t n = 0;
    CHECK_INT(store_list_participants(st, 0, &ps, &n, &err), SIM_OK);
    sqlite3 *db = store_db(st);
    int checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (ps[i].status != PSTATUS_COMPLETED) {
            continue;
        }
        Schedule *sch = NULL;
        CHECK_INT(store_load_schedule(st, ps[i].id, &sch, &err), SIM_OK);
        if (!sch) {
            continue;
        }
        CHECK_INT(count_rows(db,
                             "SELECT COUNT(*) FROM response WHERE "
                             "participant = ?1",
                             ps[i].id),
                  (int)sch->n_trials);
        CHECK_INT(count_rows(db,
                             "SELECT COUNT(*) FROM event WHERE participant = "
                             "?1 AND kind = 'display'",
                             ps[i].id) >= 1,
                  1);
        int bad = 0;
        for (size_t k = 0; k < sch->n_trials; k++) {
            const Trial *t = &sch->trials[k];
            Response r;
            int found = 0;
            memset(&r, 0, sizeof r);
            if (store_get_response(st, ps[i].id, t->seq, &r, &found, &err) !=
                    SIM_OK ||
                !found || !r.done) {
                fprintf(stderr, "%s step %d: no complete response\n", ps[i].id,
                        t->seq);
                bad++;
                continue;
            }
            if (r.onset_ns <= 0 || r.response_ns < r.onset_ns) {
                fprintf(stderr, "%s step %d: onset %lld response %lld\n",
                        ps[i].id, t->seq, (long long)r.onset_ns,
                        (long long)r.response_ns);
                bad++;
            }
            int asks = t->item_key && !t->is_example &&
                       (t->expects == EXPECT_CHOICE ||
                        t->expects == EXPECT_CHOICE_RATING);
            if (r.timed_out && (r.choice >= 0 || r.correct >= 0)) {
                fprintf(stderr, "%s step %d: timed out with an answer\n",
                        ps[i].id, t->seq);
                bad++;
            }
            const Block *b = &study->blocks[t->block];
            int conf = b->confidence.points;
            if (asks && !r.timed_out && conf > 0 &&
                (r.confidence < 1 || r.confidence > conf)) {
                fprintf(stderr, "%s step %d: confidence %d\n", ps[i].id, t->seq,
                        r.confidence);
                bad++;
            }
            /* a timeout is no answer: no wrong input got through */
            if (asks && r.correct != 1 && !r.timed_out) {
                fprintf(stderr, "%s step %d: answer %d is not the model's\n",
                        ps[i].id, t->seq, r.choice);
                bad++;
            }
            if ((t->expects == EXPECT_CHOICE_RATING ||
                 t->expects == EXPECT_RATING) &&
                (r.rating < 1 || r.rating > 7)) {
                fprintf(stderr, "%s step %d: rating %d\n", ps[i].id, t->seq,
                        r.rating);
                bad++;
            }
        }
        CHECK_INT(bad, 0);
        checked++;
        schedule_free(sch);
    }
    CHECK(checked >= N_PARTICIPANTS);
    if (chaos) {
        CHECK(count_rows(db,
                         "SELECT COUNT(*) FROM event WHERE kind = "
                         "'quit_blocked'",
                         NULL) > 0);
    }
    sim_free(ps);
    store_close(st);
    study_free(study);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_app_run SIMLAB BUNDLE MODE\n");
        return 2;
    }
    simlab_bin = argv[1];
    const char *kind = argv[2], *mode = argv[3];
    char tmp[512], bundle[700], db[700], cmd[2400];
    test_tmpdir(tmp, sizeof tmp, "app");
    if (strcmp(kind, "meta-image") == 0) {
        snprintf(bundle, sizeof bundle, "%s/app/meta-image", SIMLAB_TEST_DATA);
    } else if (strcmp(kind, "deadline") == 0) {
        /* answer deadlines, timeout messages and confidence */
        snprintf(bundle, sizeof bundle, "%s/experiment/mini-deadline",
                 SIMLAB_TEST_DATA);
    } else if (strncmp(kind, "demo-", 5) == 0) {
        /* A bundled demo study (assets/studies/NAME). */
        snprintf(bundle, sizeof bundle, "%s/assets/studies/%s",
                 SIMLAB_SOURCE_DIR, kind + 5);
        if (!test_path_exists(bundle)) {
            printf("skipped: %s not found\n", bundle);
            test_rmtree(tmp);
            return SIM_TEST_SKIP;
        }
    } else {
        const char *domain = strncmp(kind, "text", 4) == 0 ? "text" : "tabular";
        char shared[600];
        snprintf(shared, sizeof shared,
                 "%s/data/hase2020/%s/data/HIT-data-public-final",
                 SIMLAB_SHARED_DIR, domain);
        if (!test_path_exists(shared)) {
            printf("skipped: %s not found (set SIMLAB_SHARED_DIR to the "
                   "shared folder)\n",
                   shared);
            test_rmtree(tmp);
            return SIM_TEST_SKIP;
        }
        snprintf(bundle, sizeof bundle, "%s/bundle", tmp);
        snprintf(cmd, sizeof cmd,
                 "cp -r '%s/examples/hase2020/%s' '%s' && cp -r '%s' "
                 "'%s/data'",
                 SIMLAB_SOURCE_DIR, kind, bundle, shared, bundle);
        if (system(cmd) != 0) {
            fprintf(stderr, "cannot assemble the bundle: %s\n", cmd);
            return 1;
        }
    }
    snprintf(db, sizeof db, "%s/run.db", tmp);
    if (strcmp(mode, "plain") == 0) {
        CHECK_INT(run_simlab(bundle, db, NULL, 0), 0);
        check_db(bundle, db, 0);
    } else if (strcmp(mode, "chaos") == 0) {
        CHECK_INT(run_simlab(bundle, db, "--chaos", 0), 0);
        check_db(bundle, db, 1);
    } else if (strcmp(mode, "kill") == 0) {
        /* SIMLAB_KILL_SEED replays a run; the seed used is printed */
        const char *env = getenv("SIMLAB_KILL_SEED");
        unsigned seed =
            env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
        printf("kill test seed %u (SIMLAB_KILL_SEED=%u replays it)\n", seed,
               seed);
        srand(seed);
        int kills = 0, rc = -1;
        for (int round = 0; round < 40 && rc != 0; round++) {
            int ms = 30 + rand() % 400;
            rc = run_simlab(bundle, db, NULL, ms);
            kills += rc == -1;
            if (rc > 0) {
                fprintf(stderr, "simlab run exited with %d\n", rc);
                break;
            }
        }
        if (rc != 0) {
            rc = run_simlab(bundle, db, NULL, 0);
        }
        CHECK_INT(rc, 0);
        printf("killed %d times\n", kills);
        check_db(bundle, db, 0);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    if (h_fail == 0) {
        test_rmtree(tmp);
    } else {
        fprintf(stderr, "kept %s\n", tmp);
    }
    return TEST_REPORT();
}
