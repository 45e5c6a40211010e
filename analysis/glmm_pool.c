/*
** The threads of a GLMM fit's passes (glmm_int.h): workers wait for a
** pass, take its tasks one by one with the caller's thread, and the
** caller returns when every task is done. pthreads and C11 atomics only.
*/
#include <pthread.h>
#include <stdatomic.h>

#include "analysis/glmm_int.h"
#include "common/sim_alloc.h"

#define MAX_WORKERS 63

struct GlmmPool {
    pthread_mutex_t lock;
    pthread_cond_t go;   /* a pass (or the end) for the workers */
    pthread_cond_t done; /* the last worker left the pass */
    pthread_t tid[MAX_WORKERS];
    int n_workers;
    unsigned long pass; /* the pass being run; workers wait for a new one */
    int busy;           /* workers still in the pass */
    int closing;
    void (*fn)(void *ctx, int t);
    void *ctx;
    int n_tasks;
    atomic_int next; /* the next task to take */
};

/* Takes tasks of the current pass until none is left. */
static void take_tasks(GlmmPool *p)
{
    for (;;) {
        int t = atomic_fetch_add(&p->next, 1);
        if (t >= p->n_tasks) {
            return;
        }
        p->fn(p->ctx, t);
    }
}

static void *worker(void *arg)
{
    GlmmPool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->closing && p->pass == seen) {
            pthread_cond_wait(&p->go, &p->lock);
        }
        if (p->closing) {
            break;
        }
        seen = p->pass;
        pthread_mutex_unlock(&p->lock);
        take_tasks(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void glmm_pool_close(GlmmPool *p)
{
    if (!p) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->closing = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_workers; i++) {
        pthread_join(p->tid[i], NULL);
    }
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    sim_free(p);
}

int glmm_pool_open(int threads, GlmmPool **out)
{
    *out = NULL;
    if (threads <= 1) {
        return 0;
    }
    GlmmPool *p = sim_calloc(1, sizeof *p);
    if (!p) {
        return -1;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->next, 0);
    int want = threads - 1 < MAX_WORKERS ? threads - 1 : MAX_WORKERS;
    for (int i = 0; i < want; i++) {
        if (pthread_create(&p->tid[i], NULL, worker, p) != 0) {
            glmm_pool_close(p);
            return -1;
        }
        p->n_workers++;
    }
    *out = p;
    return 0;
}

void glmm_pool_run(GlmmPool *p, void (*fn)(void *ctx, int t), void *ctx,
                   int n_tasks)
{
    if (!p || n_tasks <= 1) {
        for (int t = 0; t < n_tasks; t++) {
            fn(ctx, t);
        }
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    p->busy = p->n_workers;
    p->pass++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    take_tasks(p);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) {
        pthread_cond_wait(&p->done, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}
