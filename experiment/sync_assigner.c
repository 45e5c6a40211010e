/*
** Server assignments off the caller's thread (sync.h SyncAssigner): a few
** workers, each with its own server connection and its own read-only
** connection to the station file, take the jobs waiting and assign them
** in one server transaction (sync_assign_batch). A job is answered within
** SYNC_ASSIGN_DEADLINE_MS of its submission by its clock -- the server's
** condition, or "assign locally" -- so that a slow, locked or stopped
** server costs each arrival that wait once, side by side, and never the
** caller's lock. Each worker connects at once, before the first arrival.
** The interrupted assignments of an earlier run are closed once, before
** this run assigns anyone.
*/
#include "experiment/sync_int.h"

#include "common/sim_alloc.h"

#include <pthread.h>
#include <string.h>

/* Most jobs one server transaction assigns. */
#define BATCH_MAX 64

typedef struct Worker {
    struct SyncAssigner *a;
    pthread_t thread;
    int started;
    SyncConn *conn;
    sqlite3 *db;
} Worker;

struct SyncAssigner {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    SyncAssignJob *head, *tail; /* waiting, oldest first */
    int stop;
    pthread_mutex_t ghost_mu; /* held while an earlier run's assignments
                                 are closed */
    int ghosts_done;
    Worker *workers;
    int n_workers;
    char *url, *db_path, *station;
    char hash[65];
    const Study *study;
    SyncClock clock;
};

static void answer_local(SyncAssignJob *job, const char *why)
{
    job->rc = SIM_ERR_DB;
    snprintf(job->error, sizeof job->error, "%s", why);
}

/* Takes the oldest waiting job and the others with its flags (the batch
** counts one pilot/simulated group), up to BATCH_MAX. */
static size_t take(struct SyncAssigner *a, SyncAssignJob **batch)
{
    size_t n = 0;
    SyncAssignJob **pp = &a->head;
    int pilot = a->head->pilot, simulated = a->head->simulated;
    a->tail = NULL;
    while (*pp) {
        SyncAssignJob *j = *pp;
        if (n < BATCH_MAX && j->pilot == pilot && j->simulated == simulated) {
            *pp = j->next;
            j->next = NULL;
            batch[n++] = j;
        } else {
            a->tail = j;
            pp = &j->next;
        }
    }
    return n;
}

static void run_batch(Worker *w, SyncAssignJob **batch, size_t n)
{
    struct SyncAssigner *a = w->a;
    SimError err;
    sim_error_clear(&err);
    int64_t now = a->clock.now_ms(a->clock.ctx);
    int64_t deadline = batch[0]->due_ms;
    for (size_t i = 1; i < n; i++) {
        deadline = batch[i]->due_ms < deadline ? batch[i]->due_ms : deadline;
    }
    int rc = SIM_OK;
    if (deadline <= now) {
        rc = sim_fail(&err, SIM_ERR_DB,
                      "no assignment worker was free within %d ms",
                      SYNC_ASSIGN_DEADLINE_MS);
    }
    if (rc == SIM_OK && !w->conn) {
        rc = sync_conn_new(a->url, &a->clock, &w->conn, &err);
    }
    if (rc == SIM_OK && !w->db) {
        rc = sync_local_open(a->db_path, 1, &w->db, &err);
    }
    if (rc == SIM_OK) {
        SyncLocal L;
        memset(&L, 0, sizeof L);
        L.db = w->db;
        L.path = a->db_path;
        L.station = a->station;
        L.hash = a->hash;
        sync_local_text(w->db, "SELECT uuid FROM sync_origin", L.origin,
                        sizeof L.origin);
        pthread_mutex_lock(&a->ghost_mu);
        int hold = !a->ghosts_done;
        if (!hold) {
            w->conn->ghosts_done = 1;
            pthread_mutex_unlock(&a->ghost_mu);
        }
        rc = sync_assign_batch(w->conn, &L, a->study, batch, n, deadline, &err);
        if (hold) {
            a->ghosts_done = w->conn->ghosts_done;
            pthread_mutex_unlock(&a->ghost_mu);
        }
    }
    for (size_t i = 0; i < n; i++) {
        batch[i]->rc = rc;
        if (rc != SIM_OK) {
            snprintf(batch[i]->error, sizeof batch[i]->error, "%s", err.msg);
        }
        batch[i]->done(batch[i], batch[i]->ctx);
    }
}

/* Connects before the first arrival needs it (a connection's handshake
** and schema check would count against that arrival's wait). A failure
** is tried again with the first batch. */
static void warm_up(Worker *w)
{
    struct SyncAssigner *a = w->a;
    SimError err;
    if (sync_conn_new(a->url, &a->clock, &w->conn, &err) == SIM_OK) {
        sync_ensure_by(w->conn, a->clock.now_ms(a->clock.ctx) + 5000, &err);
    }
    if (sync_local_open(a->db_path, 1, &w->db, &err) != SIM_OK) {
        w->db = NULL;
    }
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    struct SyncAssigner *a = w->a;
    SyncAssignJob *batch[BATCH_MAX];
    warm_up(w);
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && !a->head) {
            pthread_cond_wait(&a->cv, &a->mu);
        }
        if (!a->head) {
            pthread_mutex_unlock(&a->mu);
            break;
        }
        size_t n = take(a, batch);
        int stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop) {
            for (size_t i = 0; i < n; i++) {
                answer_local(batch[i], "simlab is stopping");
                batch[i]->done(batch[i], batch[i]->ctx);
            }
            continue;
        }
        run_batch(w, batch, n);
    }
    return NULL;
}

int sync_assigner_start(const char *url, const char *db_path,
                        const Study *study, const char *station, int workers,
                        const SyncClock *clock, SyncAssigner **out,
                        SimError *err)
{
    *out = NULL;
    struct SyncAssigner *a = sim_calloc(1, sizeof *a);
    int n = workers > 0 ? workers : 4;
    if (!a || !(a->url = sim_strdup(url)) ||
        !(a->db_path = sim_strdup(db_path)) ||
        !(a->station = sim_strdup(station)) ||
        !(a->workers = sim_calloc((size_t)n, sizeof *a->workers))) {
        if (a) {
            sim_free(a->url);
            sim_free(a->db_path);
            sim_free(a->station);
        }
        sim_free(a);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    snprintf(a->hash, sizeof a->hash, "%s", study->hash);
    a->study = study;
    a->clock = *clock;
    a->n_workers = n;
    pthread_mutex_init(&a->mu, NULL);
    pthread_mutex_init(&a->ghost_mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    int rc = SIM_OK;
    for (int i = 0; i < n; i++) {
        a->workers[i].a = a;
        if (pthread_create(&a->workers[i].thread, NULL, worker_main,
                           &a->workers[i]) != 0) {
            rc = sim_fail(err, SIM_ERR_IO, "cannot start an assignment thread");
            break;
        }
        a->workers[i].started = 1;
    }
    if (rc != SIM_OK) {
        sync_assigner_stop(a);
        return rc;
    }
    *out = a;
    return SIM_OK;
}

void sync_assigner_submit(SyncAssigner *a, SyncAssignJob *job)
{
    job->next = NULL;
    job->due_ms = a->clock.now_ms(a->clock.ctx) + SYNC_ASSIGN_DEADLINE_MS;
    pthread_mutex_lock(&a->mu);
    if (a->stop) {
        pthread_mutex_unlock(&a->mu);
        answer_local(job, "simlab is stopping");
        job->done(job, job->ctx);
        return;
    }
    if (a->tail) {
        a->tail->next = job;
    } else {
        a->head = job;
    }
    a->tail = job;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

void sync_assigner_stop(SyncAssigner *a)
{
    if (!a) {
        return;
    }
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    for (int i = 0; i < a->n_workers; i++) {
        if (a->workers[i].started) {
            pthread_join(a->workers[i].thread, NULL);
        }
        sync_close(a->workers[i].conn);
        sqlite3_close(a->workers[i].db);
    }
    /* jobs submitted with no worker left (none started) */
    while (a->head) {
        SyncAssignJob *j = a->head;
        a->head = j->next;
        answer_local(j, "simlab is stopping");
        j->done(j, j->ctx);
    }
    pthread_mutex_destroy(&a->mu);
    pthread_mutex_destroy(&a->ghost_mu);
    pthread_cond_destroy(&a->cv);
    sim_free(a->workers);
    sim_free(a->url);
    sim_free(a->db_path);
    sim_free(a->station);
    sim_free(a);
}
