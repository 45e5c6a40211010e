/*
** The background push: one thread with its own server connection and its
** own SQLite connection to the station file (WAL lets it read beside the
** writer; clearing marks waits for the writer's busy timeout). It pushes
** every interval and when kicked, reconnects after failures, and makes a
** last attempt when stopped. Its clock is the one the program gives it.
*/
#include "experiment/sync_int.h"

#include "common/sim_alloc.h"

#include <pthread.h>
#include <string.h>

struct SyncWorker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, kicked;
    int attempts;           /* push attempts finished (under mu) */
    pthread_cond_t done_cv; /* signalled after each attempt */
    char *url, *db_path;
    int accept_version, interval_ms;
    SyncClock clock;
    SyncConn *conn;
    SyncWorkerStatus status; /* under mu */
};

static void push_once(SyncWorker *w)
{
    SimError err;
    sim_error_clear(&err);
    int rc = SIM_OK;
    if (!w->conn) {
        rc = sync_connect(w->url, &w->clock, &w->conn, &err);
    }
    SyncPushStats st = {0};
    if (rc == SIM_OK) {
        rc = sync_push(w->conn, w->db_path, w->accept_version, 0,
                       w->clock.now_ms(w->clock.ctx), &st, &err);
    }
    pthread_mutex_lock(&w->mu);
    if (w->conn) {
        snprintf(w->status.warning, sizeof w->status.warning, "%s",
                 sync_warning(w->conn));
    }
    w->status.connected = rc == SIM_OK || err.code != SIM_ERR_DB ||
                          (w->conn && PQstatus(w->conn->pg) == CONNECTION_OK);
    if (rc == SIM_OK) {
        w->status.last_ok_ms = w->clock.now_ms(w->clock.ctx);
        w->status.pushed += st.rows;
        w->status.refused += st.refused;
        w->status.pending = st.pending;
        w->status.error[0] = '\0';
        w->status.error_code = SIM_OK;
    } else {
        snprintf(w->status.error, sizeof w->status.error, "%s", err.msg);
        w->status.error_code = err.code;
    }
    w->attempts++;
    pthread_cond_broadcast(&w->done_cv);
    pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *arg)
{
    SyncWorker *w = arg;
    for (;;) {
        push_once(w);
        pthread_mutex_lock(&w->mu);
        if (!w->stop && !w->kicked) {
            struct timespec abs;
            w->clock.abs_after(w->clock.ctx, w->interval_ms, &abs);
            while (!w->stop && !w->kicked &&
                   pthread_cond_timedwait(&w->cv, &w->mu, &abs) == 0) {
            }
        }
        int stop = w->stop;
        w->kicked = 0;
        pthread_mutex_unlock(&w->mu);
        if (stop) {
            push_once(w); /* the rows of the last moments */
            break;
        }
    }
    return NULL;
}

int sync_worker_start(const char *url, const char *db_path, int accept_version,
                      int interval_ms, const SyncClock *clock, SyncWorker **out,
                      SimError *err)
{
    *out = NULL;
    SyncWorker *w = sim_calloc(1, sizeof *w);
    if (!w || !(w->url = sim_strdup(url)) ||
        !(w->db_path = sim_strdup(db_path))) {
        if (w) {
            sim_free(w->url);
        }
        sim_free(w);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    w->accept_version = accept_version;
    w->interval_ms = interval_ms > 0 ? interval_ms : 1000;
    w->clock = *clock;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    pthread_cond_init(&w->done_cv, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        pthread_cond_destroy(&w->done_cv);
        sim_free(w->url);
        sim_free(w->db_path);
        sim_free(w);
        return sim_fail(err, SIM_ERR_IO, "cannot start the sync thread");
    }
    *out = w;
    return SIM_OK;
}

void sync_worker_wait_first(SyncWorker *w, int64_t ms)
{
    struct timespec abs;
    w->clock.abs_after(w->clock.ctx, ms, &abs);
    pthread_mutex_lock(&w->mu);
    while (w->attempts == 0 &&
           pthread_cond_timedwait(&w->done_cv, &w->mu, &abs) == 0) {
    }
    pthread_mutex_unlock(&w->mu);
}

void sync_worker_kick(SyncWorker *w)
{
    if (!w) {
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->kicked = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void sync_worker_status(SyncWorker *w, SyncWorkerStatus *st)
{
    pthread_mutex_lock(&w->mu);
    *st = w->status;
    pthread_mutex_unlock(&w->mu);
}

void sync_worker_stop(SyncWorker *w, SyncWorkerStatus *st)
{
    if (!w) {
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    if (st) {
        *st = w->status;
    }
    sync_close(w->conn);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    pthread_cond_destroy(&w->done_cv);
    sim_free(w->url);
    sim_free(w->db_path);
    sim_free(w);
}
