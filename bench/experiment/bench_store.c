/*
** Storage benchmark: the time to record one response through the session
** (one durable transaction, synchronous=FULL) and to enroll and schedule a
** participant, each against a reference measured in the same run on the
** same disk: a bare SQLite INSERT committed with the same pragmas.
** Usage: bench_store BUNDLE_DIR [WORK_DIR] [N]
*/
#define _POSIX_C_SOURCE 200809L

#include "experiment/session.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct Stats {
    double median, p99, mean;
} Stats;

static Stats stats(double *v, int n)
{
    Stats s = {0, 0, 0};
    if (n == 0) {
        return s;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.median = v[n / 2];
    s.p99 = v[(int)(0.99 * (n - 1))];
    for (int i = 0; i < n; i++) {
        s.mean += v[i] / n;
    }
    return s;
}

/* Reference: a bare INSERT of a response-sized row, one transaction each,
** WAL + synchronous=FULL, like the store. */
static int bench_raw(const char *path, int n, double *ms, int rows_per_tx)
{
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        return -1;
    }
    sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                 "CREATE TABLE r (p TEXT, seq INTEGER, choice INTEGER, "
                 "id TEXT, correct INTEGER, onset INTEGER, resp INTEGER, "
                 "rt REAL, at INTEGER, PRIMARY KEY (p, seq));",
                 NULL, NULL, NULL);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?,?,?,?,?,?,?,?,?)", -1, &s,
                       NULL);
    int seq = 0;
    for (int i = 0; i < n; i++) {
        int64_t t0 = now_ns();
        sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        for (int k = 0; k < rows_per_tx; k++) {
            sqlite3_reset(s);
            sqlite3_bind_text(s, 1, "0b7c8a0e-1f4e-4b7e-9a57-3c1d2f0a9e11", -1,
                              SQLITE_STATIC);
            sqlite3_bind_int(s, 2, seq++);
            sqlite3_bind_int(s, 3, 1);
            sqlite3_bind_text(s, 4, "pos", -1, SQLITE_STATIC);
            sqlite3_bind_int(s, 5, 1);
            sqlite3_bind_int64(s, 6, t0);
            sqlite3_bind_int64(s, 7, t0 + 1000);
            sqlite3_bind_double(s, 8, 1.0);
            sqlite3_bind_int64(s, 9, 1);
            sqlite3_step(s);
        }
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        ms[i] = (double)(now_ns() - t0) / 1e6;
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_store BUNDLE_DIR [WORK_DIR] [N]\n");
        return 2;
    }
    const char *work = argc > 2 ? argv[2] : ".";
    int n = argc > 3 ? atoi(argv[3]) : 400;
    Study *study = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    if (study_load(argv[1], &study, &rep, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    study_report_free(&rep);
    char db_path[1024], raw_path[1024];
    snprintf(db_path, sizeof db_path, "%s/bench-store.db", work);
    snprintf(raw_path, sizeof raw_path, "%s/bench-raw.db", work);
    unlink(db_path);
    Store *store;
    if (store_open(db_path, study, DURABILITY_FULL, 0, 1, &store, &err) !=
        SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }

    /* enrollment: assignment + schedule + participant and trial rows */
    int n_enroll = n / 2 > 20 ? n / 2 : 20;
    double *enroll_ms = calloc((size_t)n_enroll, sizeof *enroll_ms);
    char(*ids)[37] = calloc((size_t)n_enroll, sizeof *ids);
    int steps = 0;
    for (int i = 0; i < n_enroll; i++) {
        EnrollSpec e;
        memset(&e, 0, sizeof e);
        e.wall_ms = 1000 + i;
        e.seed = (uint64_t)i + 1;
        e.assign_seed = (uint64_t)i + 1;
        ParticipantInfo info;
        int64_t t0 = now_ns();
        if (store_enroll(store, &e, &info, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        enroll_ms[i] = (double)(now_ns() - t0) / 1e6;
        memcpy(ids[i], info.id, 37);
        steps = info.n_trials;
    }

    /* responses: answer steps of successive participants through the
    ** session, timing session_handle (which commits before returning) */
    double *resp_ms = calloc((size_t)n, sizeof *resp_ms);
    int got = 0;
    int64_t t = 1000000000;
    for (int p = 0; p < n_enroll && got < n; p++) {
        Session *s;
        if (session_open(store, study, ids[p], 1, &s, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        while (!session_finished(s) && got < n) {
            t += 1000000;
            session_mark_onset(s, t);
            const SessionView *v = session_view(s);
            SimInput in;
            memset(&in, 0, sizeof in);
            in.t_ns = t + 500000;
            in.wall_ms = 2;
            if (v->need_choice) {
                in.kind = SIM_IN_CHOOSE;
                in.value = v->trial->correct_choice >= 0
                               ? v->trial->correct_choice
                               : 0;
            } else if (v->need_rating && v->rating == 0) {
                in.kind = SIM_IN_RATE;
                in.value = 4;
                int c;
                session_handle(s, &in, &c, &err);
                in.kind = SIM_IN_CONTINUE;
            } else {
                in.kind = SIM_IN_CONTINUE;
            }
            /* v is rebuilt by session_handle: Continue on a feedback screen
            ** stores nothing, so take the screen before the input */
            SessionScreen screen = v->screen;
            int consumed = 0;
            int64_t t0 = now_ns();
            session_handle(s, &in, &consumed, &err);
            double ms = (double)(now_ns() - t0) / 1e6;
            if (consumed && screen != SCREEN_FEEDBACK) {
                resp_ms[got++] = ms;
            }
        }
        session_close(s);
    }
    store_close(store);

    double *raw_ms = calloc((size_t)n, sizeof *raw_ms);
    bench_raw(raw_path, n, raw_ms, 1);
    double *raw_enroll = calloc((size_t)n_enroll, sizeof *raw_enroll);
    bench_raw(raw_path, n_enroll, raw_enroll, steps + 1);

    Stats r = stats(resp_ms, got), rr = stats(raw_ms, n);
    Stats e = stats(enroll_ms, n_enroll), re = stats(raw_enroll, n_enroll);
    printf("record one response (session_handle, commit with "
           "synchronous=FULL), n=%d\n",
           got);
    printf("  simlab:    median %.3f ms  p99 %.3f ms  mean %.3f ms\n", r.median,
           r.p99, r.mean);
    printf("  bare INSERT+COMMIT: median %.3f ms  p99 %.3f ms\n", rr.median,
           rr.p99);
    printf("  ratio (median): %.2f\n", r.median / rr.median);
    printf("enroll + schedule one participant (%d steps), n=%d\n", steps,
           n_enroll);
    printf("  simlab:    median %.3f ms  p99 %.3f ms\n", e.median, e.p99);
    printf("  bare INSERT of %d rows in one transaction: median %.3f ms  "
           "p99 %.3f ms\n",
           steps + 1, re.median, re.p99);
    printf("  ratio (median): %.2f\n", e.median / re.median);
    unlink(db_path);
    unlink(raw_path);
    free(enroll_ms);
    free(ids);
    free(resp_ms);
    free(raw_ms);
    free(raw_enroll);
    study_free(study);
    return 0;
}
