/*
** One simulated participant of a condition through a whole run, for tests
** that look at every screen: enrolled, answered by the model policy on a
** clock of 16 ms frames, each new screen handed to a callback. Include
** after harness.h.
*/
#ifndef SIMLAB_TESTS_TEST_WALK_H
#define SIMLAB_TESTS_TEST_WALK_H

#include <stdio.h>
#include <string.h>

#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/study.h"

/* The study of bundle dir, or NULL when it does not load (a bundle whose
** data are not here). */
static inline Study *test_walk_load(const char *dir)
{
    Study *st = NULL;
    SimError err;
    StudyReport rep;
    study_report_init(&rep);
    if (study_load(dir, &st, &rep, &err) != SIM_OK) {
        st = NULL;
    }
    study_report_free(&rep);
    return st;
}

/* Called once per screen (and once more for the finished run's last
** screen) with the onset the screen got. */
typedef void (*TestWalkFn)(void *ctx, const SessionView *v, int64_t onset_ns);

/* Walks condition c of st in store with seed; where names the bundle in
** messages. Returns 1 when the run finished, 0 otherwise (after a failed
** CHECK where it could not start). */
static inline int test_walk_condition(Store *store, const Study *st, size_t c,
                                      uint64_t seed, const char *where,
                                      TestWalkFn fn, void *ctx)
{
    SimError err;
    EnrollSpec es;
    memset(&es, 0, sizeof es);
    es.condition = st->conditions[c].id;
    es.seed = seed;
    es.assign_seed = 3;
    es.simulated = 1;
    es.wall_ms = 1000;
    ParticipantInfo info;
    Session *s = NULL;
    if (store_enroll(store, &es, &info, &err) != SIM_OK ||
        session_open(store, st, info.id, 1000, &s, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", where, err.msg);
        CHECK(0);
        return 0;
    }
    Policy pol;
    policy_init(&pol, POLICY_MODEL, st, &st->simulation, 1, es.seed);
    int64_t now = 1000000000LL, onset = now;
    unsigned seen = (unsigned)-1;
    for (int guard = 0; guard < 20000 && !session_finished(s); guard++) {
        const SessionView *v = session_view(s);
        if (!v->onset_marked) {
            now += 16000000;
            onset = now;
            session_mark_onset(s, now);
            v = session_view(s);
        }
        if (v->screen_serial != seen) {
            seen = v->screen_serial;
            fn(ctx, v, onset);
        }
        if (v->screen == SCREEN_TIMEOUT) {
            now += SESSION_TIMEOUT_SHOW_NS;
            session_tick(s, now, 2000, &err);
            continue;
        }
        SimInput in;
        if (policy_next_input(&pol, v, &now, &in) != 0) {
            break;
        }
        in.wall_ms = 2000;
        session_tick(s, in.t_ns, in.wall_ms, &err);
        session_handle(s, &in, NULL, &err);
    }
    int finished = session_finished(s);
    if (finished) {
        fn(ctx, session_view(s), onset);
    }
    session_close(s);
    return finished;
}

#endif
