/*
** simlab power's engine (power.h): studies simulated by the caller's
** callback in worker threads -- the power studies and the null studies of
** the false-positive rate -- each tested by power_test.c; then the power,
** false-positive rate and coverage per condition and size and the N for
** 80 % and 90 % power. Writers are in power_write.c, pilot data in
** power_pilot.c.
*/
#include "analysis/power.h"

#include "analysis/power_int.h"
#include "analysis/sequential.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void power_options_default(PowerOptions *o)
{
    memset(o, 0, sizeof *o);
    o->studies = 500;
    o->alpha = 0.05;
    o->replicates = 1000;
    o->threads = 1;
    o->seed = 1;
    o->null_studies = -1;
}

int power_parse_method(const char *name)
{
    static const char *const names[] = {"bootstrap", "users", "glmm", "t",
                                        "anova"};
    for (int k = 0; k < 5; k++) {
        if (strcmp(name, names[k]) == 0) {
            return POWER_METHOD_BOOTSTRAP + k;
        }
    }
    return -1;
}

const char *power_method_name(PowerMethod m)
{
    return m == POWER_METHOD_USERS   ? "users"
           : m == POWER_METHOD_GLMM  ? "glmm"
           : m == POWER_METHOD_T     ? "t"
           : m == POWER_METHOD_ANOVA ? "anova"
                                     : "bootstrap";
}

int power_parse_sizes(const char *text, PowerOptions *o, SimError *err)
{
    const char *p = text;
    o->n_sizes = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',')) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants '%s': expected sizes like "
                            "10,20,40",
                            text);
        }
        if (v < 2 || v > 100000) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants: %ld participants per condition "
                            "(at least 2, at most 100000)",
                            v);
        }
        if (o->n_sizes > 0 && v <= o->sizes[o->n_sizes - 1]) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants '%s': sizes must ascend", text);
        }
        if (o->n_sizes == POWER_MAX_SIZES) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants: at most %d sizes",
                            POWER_MAX_SIZES);
        }
        o->sizes[o->n_sizes++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (o->n_sizes == 0) {
        return sim_fail(err, SIM_ERR_USAGE, "--participants: no sizes given");
    }
    return SIM_OK;
}

void power_wilson(int x, int n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = *hi = NAN;
        return;
    }
    const double z = 1.959963984540054;
    double p = (double)x / n, z2 = z * z;
    double den = 1.0 + z2 / n;
    double mid = (p + z2 / (2.0 * n)) / den;
    double half = z * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / den;
    *lo = fmax(0.0, mid - half);
    *hi = fmin(1.0, mid + half);
}

/* The largest count on the smaller side that still rejects at alpha with
** B valid replicates: 2 (1 + m) / (B + 1) <= alpha. */
static double reject_bound(double alpha, int B)
{
    return alpha * (B + 1) / 2.0 - 1.0;
}

int power_check_options(const PowerOptions *o, SimError *err)
{
    if (o->n_sizes < 1) {
        return sim_fail(err, SIM_ERR_USAGE, "--participants: no sizes given");
    }
    for (int s = 0; s < o->n_sizes; s++) {
        if (o->sizes[s] < 2) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants: %d participants per condition "
                            "(at least 2)",
                            o->sizes[s]);
        }
    }
    if (o->studies < 1) {
        return sim_fail(err, SIM_ERR_USAGE, "--studies: at least 1");
    }
    if (!(o->alpha > 0 && o->alpha < 1)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--alpha: must lie strictly between 0 and 1");
    }
    if (o->n_looks > 0) {
        int same = o->n_looks == o->n_sizes;
        for (int j = 0; same && j < o->n_looks; j++) {
            same = o->looks[j] == o->sizes[j];
        }
        if (!same) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--participants: a study with sequential looks "
                            "is simulated at its looks (the sizes must be "
                            "them)");
        }
    }
    if (o->replicates < 1 || reject_bound(o->alpha, o->replicates) < 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--replicates %d: too few to reject at alpha %g "
                        "(need at least %d)",
                        o->replicates, o->alpha,
                        (int)ceil(2.0 / o->alpha - 1.0));
    }
    return SIM_OK;
}

/* ------------------------------------------------------------- the table */

int power_table_participant(PowerTable *t, int cond)
{
    if (sim_grow((void **)&t->cond_of, &t->cap_part,
                 (size_t)t->n_participants + 1, sizeof *t->cond_of) != 0) {
        return -1;
    }
    t->cond_of[t->n_participants] = cond;
    return t->n_participants++;
}

int power_table_add(PowerTable *t, int participant, int cond, int item,
                    int phase, int cell, int y)
{
    if (sim_grow((void **)&t->rows, &t->cap_rows, t->n_rows + 1,
                 sizeof *t->rows) != 0) {
        return -1;
    }
    PowerAnswer *a = &t->rows[t->n_rows++];
    a->participant = participant;
    a->item = item;
    a->condition = (uint8_t)cond;
    a->phase = (uint8_t)phase;
    a->cell = (uint8_t)cell;
    a->y = (uint8_t)(y != 0);
    return 0;
}

void power_table_free(PowerTable *t)
{
    if (!t) {
        return;
    }
    sim_free(t->rows);
    sim_free(t->cond_of);
    memset(t, 0, sizeof *t);
}

int power_tested(const PowerDesign *d, int *tested)
{
    int n = 0;
    for (int c = 0; c < d->n_conds; c++) {
        if ((d->test == POWER_TEST_CHANGE && !d->vs_baseline) || c != d->base) {
            tested[n++] = c;
        }
    }
    return n;
}

/* The run: the studies to simulate and test, and their outcomes. */
typedef struct Ctx {
    PowerTestCtx t;
    PowerSimulateFn fn;
    void *fctx;
    int per_size; /* tasks per size: studies, then null studies */
    int null_studies;
    /* outcomes, [(size * studies + k) * n_tests + c], of the null
    ** studies [(size * null_studies + k) * n_tests + c] */
    unsigned char *reject, *covered, *null_reject;
    double *estimate, *null_estimate;
    double *pval, *null_pval; /* the p-values, when the decisions are
                                 made from them (correction, looks) */
    int *reps_used;
    atomic_int next, done, failed;
    pthread_mutex_t lock;
    SimError err; /* the first failure */
    int total;
    /* The order of the tasks: the pilots (the mixed model's first study of
    ** each size and kind, whose optima the others start at) run first,
    ** alone, so that every study's fit is the same whatever the threads. */
    int *order;
    int n_pilots;
    int limit;             /* tasks order[0..limit) in this phase */
    struct GlmmWarm *warm; /* [size * 2 + null study]: the pilots' optima */
} Ctx;

static uint64_t study_seed_of(const PowerOptions *o, int size_index, int k)
{
    uint64_t s = sim_mix64(o->seed ^ UINT64_C(0x706f776572));
    s = sim_mix64(s + (uint64_t)o->sizes[size_index] * UINT64_C(1000003));
    return sim_mix64(s + (uint64_t)k);
}

static void draw_progress(int done, int total)
{
    const int width = 40;
    int filled = (int)((long long)done * width / (total > 0 ? total : 1));
    char bar[48];
    for (int i = 0; i < width; i++) {
        bar[i] = i < filled ? '#' : '.';
    }
    bar[width] = '\0';
    fprintf(stderr, "\rpower [%s] %d/%d studies", bar, done, total);
    if (done == total) {
        fputc('\n', stderr);
    }
    fflush(stderr);
}

/* Where study k of size si keeps its outcome. */
static void outcome_at(const Ctx *x, int si, int k, PowerOutcome *out)
{
    int C = x->t.n_tests, S = x->t.o->studies, NS = x->null_studies;
    if (k >= S) {
        size_t at = ((size_t)si * (size_t)NS + (size_t)(k - S)) * (size_t)C;
        out->reject = x->null_reject + at;
        out->estimate = x->null_estimate + at;
        out->p = x->null_pval ? x->null_pval + at : NULL;
        out->covered = NULL;
        out->reps_used = NULL;
    } else {
        size_t at = ((size_t)si * (size_t)S + (size_t)k) * (size_t)C;
        out->reject = x->reject + at;
        out->estimate = x->estimate + at;
        out->p = x->pval ? x->pval + at : NULL;
        out->covered = x->covered + at;
        out->reps_used = x->reps_used + (size_t)si * (size_t)S + (size_t)k;
    }
}

/* The decisions of one study from its p-values: Holm's step-down over the
** tested conditions, or each at alpha. */
static void decide_from_p(const PowerTestCtx *t, PowerOutcome *out)
{
    int C = t->n_tests;
    if (!out->p || t->o->correction == POWER_CORRECTION_OWN) {
        return;
    }
    double adj[POWER_MAX_CELLS];
    if (t->o->correction == POWER_CORRECTION_HOLM) {
        stats_p_holm(out->p, C, adj);
    } else {
        memcpy(adj, out->p, (size_t)C * sizeof(double));
    }
    for (int c = 0; c < C; c++) {
        out->reject[c] = isfinite(adj[c]) && adj[c] <= t->o->alpha;
    }
}

/* The mixed model's warm starts of study k at size (or look) si. */
static void set_warm(Ctx *x, PowerBuf *b, int si, int k)
{
    int S = x->t.o->studies;
    b->glmm_warm = NULL;
    b->glmm_record = NULL;
    if (x->warm) {
        struct GlmmWarm *w = power_glmm_warm_at(x->warm, si * 2 + (k >= S));
        if (k == 0 || k == S) {
            b->glmm_record = w;
        } else {
            b->glmm_warm = w;
        }
    }
}

/* b->table = the participants of b->full at a look of n per condition
** (within-subject: the first n participants), renumbered. */
static int truncate_study(const PowerDesign *d, PowerBuf *b, int n)
{
    PowerTable *f = &b->full, *t = &b->table;
    t->n_rows = 0;
    t->n_participants = 0;
    if (sim_grow((void **)&b->rank, &b->cap_rank, (size_t)f->n_participants + 1,
                 sizeof *b->rank) != 0) {
        return -1;
    }
    int seen[POWER_MAX_CELLS] = {0};
    for (int u = 0; u < f->n_participants; u++) {
        int rank = d->within ? u : seen[f->cond_of[u]]++;
        b->rank[u] = rank < n ? power_table_participant(t, f->cond_of[u]) : -1;
        if (rank < n && b->rank[u] < 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < f->n_rows; i++) {
        const PowerAnswer *a = &f->rows[i];
        int u = b->rank[a->participant];
        if (u >= 0 && power_table_add(t, u, a->condition, a->item, a->phase,
                                      a->cell, a->y) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Simulates and tests task number task of x with the buffers b. */
static int run_task(Ctx *x, PowerBuf *b, int task, SimError *err)
{
    const PowerOptions *o = x->t.o;
    int S = o->studies;
    /* the largest studies first, for an even load; with looks, every
    ** study is simulated at the last look and tested at each */
    int si = o->n_sizes - 1 - task / x->per_size, k = task % x->per_size;
    int null_study = k >= S;
    uint64_t seed = study_seed_of(o, si, null_study ? k - S : k);
    if (null_study) {
        seed = sim_mix64(seed ^ UINT64_C(0x6e756c6c));
    }
    PowerTable *into = o->n_looks > 0 ? &b->full : &b->table;
    into->n_rows = 0;
    into->n_participants = 0;
    int rc = x->fn(x->fctx, o->sizes[si], seed, null_study, into, err);
    int first = o->n_looks > 0 ? 0 : si;
    for (int j = first; rc == SIM_OK && j <= si; j++) {
        PowerOutcome out;
        outcome_at(x, j, k, &out);
        set_warm(x, b, j, k);
        if (o->n_looks > 0 && truncate_study(x->t.d, b, o->sizes[j]) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        rc = power_test_study(&x->t, b, seed, null_study, &out, err);
        decide_from_p(&x->t, &out);
    }
    return rc;
}

static void *worker(void *arg)
{
    Ctx *x = arg;
    PowerBuf b;
    memset(&b, 0, sizeof b);
    for (;;) {
        int at = atomic_fetch_add(&x->next, 1);
        if (at >= x->limit || atomic_load(&x->failed)) {
            break;
        }
        SimError err;
        sim_error_clear(&err);
        int rc = run_task(x, &b, x->order[at], &err);
        pthread_mutex_lock(&x->lock);
        if (rc != SIM_OK && !atomic_exchange(&x->failed, 1)) {
            x->err = err;
        }
        int done = atomic_fetch_add(&x->done, 1) + 1;
        if (x->t.o->progress && (done % 10 == 0 || done == x->total)) {
            draw_progress(done, x->total);
        }
        pthread_mutex_unlock(&x->lock);
    }
    power_buf_free(&b);
    return NULL;
}

/* Runs tasks order[next..limit) on the threads (next ends past limit). */
static void run_phase(Ctx *x, int threads)
{
    pthread_t tids[256];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, worker, x) != 0) {
            break;
        }
        started = t;
    }
    worker(x);
    for (int t = 1; t <= started; t++) {
        pthread_join(tids[t], NULL);
    }
}

/* The tasks in their order: a mixed model's pilots first (each size's
** power study 0 and null study 0), then the rest, largest sizes first. */
static int order_tasks(Ctx *x, SimError *err)
{
    const PowerOptions *o = x->t.o;
    x->order = sim_malloc(((size_t)x->total + 1) * sizeof(int));
    if (!x->order) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int n = 0;
    if (x->t.method == POWER_METHOD_GLMM && !o->glmm_cold) {
        x->warm = power_glmm_warm_new(o->n_sizes * 2);
        if (!x->warm) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        for (int task = 0; task < x->total; task++) {
            int k = task % x->per_size;
            if (k == 0 || k == o->studies) {
                x->order[n++] = task;
            }
        }
    }
    x->n_pilots = n;
    for (int task = 0; task < x->total; task++) {
        int k = task % x->per_size;
        if (!x->warm || (k != 0 && k != o->studies)) {
            x->order[n++] = task;
        }
    }
    return SIM_OK;
}

static int simulate_all(Ctx *x, SimError *err)
{
    int threads = x->t.o->threads > 0 ? x->t.o->threads : 1;
    if (threads > x->total) {
        threads = x->total;
    }
    if (threads > 256) {
        threads = 256;
    }
    int rc = order_tasks(x, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (x->n_pilots > 0) {
        x->limit = x->n_pilots;
        run_phase(x, threads < x->n_pilots ? threads : x->n_pilots);
    }
    atomic_store(&x->next, x->n_pilots); /* each worker took one past */
    x->limit = x->total;
    run_phase(x, threads);
    if (atomic_load(&x->failed)) {
        *err = x->err;
        return err->code ? err->code : SIM_ERR_STATE;
    }
    return SIM_OK;
}

/* ------------------------------------------------------------- summary */

/* The N where the curve y over sizes first reaches target: 0 and *n set,
** -1 when the first size already does, 1 when none does. */
static int crossing(const int *sizes, const double *y, int n, double target,
                    double *out)
{
    for (int s = 0; s < n; s++) {
        if (y[s] >= target) {
            if (s == 0) {
                *out = sizes[0];
                return -1;
            }
            double t = (target - y[s - 1]) / (y[s] - y[s - 1]);
            *out = sizes[s - 1] + t * (sizes[s] - sizes[s - 1]);
            return 0;
        }
    }
    *out = NAN;
    return 1;
}

static void recommend(const PowerResult *r, int c, double target, PowerN *out)
{
    int n = r->opt.n_sizes;
    double y[POWER_MAX_SIZES], ylo[POWER_MAX_SIZES], yhi[POWER_MAX_SIZES];
    for (int s = 0; s < n; s++) {
        const PowerRow *row = &r->rows[s * r->n_conds + c];
        y[s] = row->power;
        ylo[s] = row->ci_low;
        yhi[s] = row->ci_high;
    }
    int k = crossing(r->opt.sizes, y, n, target, &out->n);
    out->below = k < 0;
    out->above = k > 0;
    out->low_below = crossing(r->opt.sizes, yhi, n, target, &out->low) < 0;
    crossing(r->opt.sizes, ylo, n, target, &out->high);
}

void power_n_for(const PowerResult *r, int c, double target, PowerN *out)
{
    recommend(r, c, target, out);
}

static int summarise(PowerResult *r, const Ctx *x, SimError *err)
{
    int C = x->t.n_tests, S = r->opt.studies, Z = r->opt.n_sizes;
    int NS = x->null_studies;
    r->rows = sim_calloc((size_t)(C * Z), sizeof *r->rows);
    if (!r->rows) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r->n_rows = C * Z;
    for (int si = 0; si < Z; si++) {
        double reps = 0;
        for (int k = 0; k < S; k++) {
            reps += x->reps_used[(size_t)si * (size_t)S + (size_t)k];
        }
        for (int c = 0; c < C; c++) {
            PowerRow *row = &r->rows[si * C + c];
            row->condition = r->conds[c].id;
            row->participants = r->opt.sizes[si];
            row->studies = S;
            double sum = 0;
            int m = 0, measured = 0;
            for (int k = 0; k < S; k++) {
                size_t at = ((size_t)si * (size_t)S + (size_t)k) * (size_t)C +
                            (size_t)c;
                row->rejections += x->reject[at];
                if (isfinite(x->estimate[at])) {
                    sum += x->estimate[at];
                    m++;
                }
                measured += x->covered[at] != 2;
                row->covered += x->covered[at] == 1;
            }
            row->power = (double)row->rejections / S;
            power_wilson(row->rejections, S, &row->ci_low, &row->ci_high);
            row->mean_estimate = m > 0 ? sum / m : NAN;
            row->mean_replicates = reps / S;
            row->enrol = row->enrol_low = row->enrol_high = NAN;
            row->coverage =
                measured == S ? (double)row->covered / S : (double)NAN;
            row->null_studies = NS;
            for (int k = 0; k < NS; k++) {
                size_t at = ((size_t)si * (size_t)NS + (size_t)k) * (size_t)C +
                            (size_t)c;
                row->null_rejections += x->null_reject[at];
            }
            row->fpr = NS > 0 ? (double)row->null_rejections / NS : NAN;
            power_wilson(row->null_rejections, NS, &row->fpr_low,
                         &row->fpr_high);
        }
    }
    for (int si = 0; si < Z; si++) {
        PowerFamily *f = &r->family[si];
        f->null_studies = NS;
        for (int k = 0; k < NS; k++) {
            int any = 0;
            for (int c = 0; c < C; c++) {
                any |= x->null_reject[((size_t)si * (size_t)NS + (size_t)k) *
                                          (size_t)C +
                                      (size_t)c];
            }
            f->null_any += any;
        }
        f->fwer = NS > 0 ? (double)f->null_any / NS : NAN;
        power_wilson(f->null_any, NS, &f->fwer_low, &f->fwer_high);
    }
    for (int c = 0; c < C; c++) {
        recommend(r, c, 0.8, &r->conds[c].n80);
        recommend(r, c, 0.9, &r->conds[c].n90);
    }
    return SIM_OK;
}

/* One study's sequential procedure over the looks (p-values pv at look j:
** pv + j * stride): at each look the contrasts not yet rejected, largest
** |z| first, each against the boundary at alpha / (contrasts left) with
** Holm's adjustment (Ye et al. 2013) or at alpha; the study stops at the
** look where every contrast is rejected. Sets rej[c] (rejected at some
** look) and returns the look it stopped at. */
static int seq_study(const PowerSeq *q, const SeqDesign *lv, int C, int holm,
                     const double *pv, size_t stride, unsigned char *rej)
{
    memset(rej, 0, (size_t)C);
    int done = 0;
    for (int j = 0; j < q->n_looks; j++) {
        const double *p = pv + (size_t)j * stride;
        int order[POWER_MAX_CELLS], m = 0;
        for (int c = 0; c < C; c++) {
            if (!rej[c] && isfinite(p[c])) {
                order[m++] = c;
            }
        }
        for (int a = 1; a < m; a++) { /* smallest p (largest |z|) first */
            for (int b = a; b > 0 && p[order[b]] < p[order[b - 1]]; b--) {
                int t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        }
        int left = C - done;
        for (int i = 0; i < m; i++) {
            /* the level's boundary: lv[left - i - 1] is at alpha / (left -
            ** i) with Holm, lv[0] (alpha) without */
            const SeqDesign *d = holm ? &lv[left - i - 1] : &lv[0];
            if (p[order[i]] <= d->nominal[j]) {
                rej[order[i]] = 1;
                done++;
            } else if (holm) {
                break;
            }
        }
        if (done == C) {
            return j;
        }
    }
    return q->n_looks - 1;
}

/* The sequential procedure over all power and null studies. */
static int summarise_seq(PowerResult *r, const Ctx *x, SimError *err)
{
    const PowerOptions *o = &r->opt;
    int C = x->t.n_tests, S = o->studies, NS = x->null_studies;
    int holm = o->correction != POWER_CORRECTION_NONE && C > 1;
    PowerSeq *q = sim_calloc(1, sizeof *q);
    SeqDesign *lv = sim_calloc((size_t)C + 1, sizeof *lv);
    if (!q || !lv) {
        sim_free(q);
        sim_free(lv);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r->seq = q;
    q->n_looks = o->n_looks;
    memcpy(q->looks, o->looks, sizeof q->looks);
    q->spending = o->spending;
    int rc = SIM_OK;
    /* lv[i]: the boundaries at alpha / (i + 1) */
    for (int i = 0; rc == SIM_OK && i < (holm ? C : 1); i++) {
        rc = seq_design(o->looks, o->n_looks, o->alpha / (holm ? i + 1 : 1),
                        o->spending, &lv[i], err);
    }
    if (rc != SIM_OK) {
        sim_free(lv);
        return rc;
    }
    memcpy(q->crit, lv[0].crit, sizeof q->crit);
    memcpy(q->spent, lv[0].spent, sizeof q->spent);
    int hits[POWER_MAX_CELLS] = {0};
    unsigned char rej[POWER_MAX_CELLS];
    double n1 = 0, n0 = 0;
    for (int pass = 0; pass < 2; pass++) { /* power studies, null studies */
        int n = pass ? NS : S;
        const double *pv = pass ? x->null_pval : x->pval;
        for (int k = 0; k < n; k++) {
            size_t stride = (size_t)n * (size_t)C;
            int stop = seq_study(q, lv, C, holm, pv + (size_t)k * (size_t)C,
                                 stride, rej);
            int any = 0;
            for (int c = 0; c < C; c++) {
                hits[c] += !pass && rej[c];
                any |= rej[c];
            }
            if (pass) {
                q->null_any += any;
                q->stop_h0[stop] += 1.0 / n;
                n0 += (double)o->looks[stop] / n;
            } else {
                q->stop_h1[stop] += 1.0 / n;
                n1 += (double)o->looks[stop] / n;
            }
        }
    }
    q->studies = S;
    q->null_studies = NS;
    q->fpr = NS > 0 ? (double)q->null_any / NS : NAN;
    power_wilson(q->null_any, NS, &q->fpr_low, &q->fpr_high);
    q->expected_n_h1 = S > 0 ? n1 : NAN;
    q->expected_n_h0 = NS > 0 ? n0 : NAN;
    for (int c = 0; c < C; c++) {
        q->power[c] = (double)hits[c] / S;
        double y[POWER_MAX_SIZES];
        for (int si = 0; si < o->n_sizes; si++) {
            y[si] = r->rows[si * C + c].power;
        }
        if (crossing(o->sizes, y, o->n_sizes, q->power[c], &q->fixed_n[c]) <
            0) {
            q->fixed_n[c] = o->sizes[0]; /* the first look already */
        }
    }
    sim_free(lv);
    return SIM_OK;
}

void power_free(PowerResult *r)
{
    if (!r) {
        return;
    }
    for (int c = 0; c < r->n_conds; c++) {
        sim_free(r->conds[c].id);
    }
    sim_free(r->conds);
    sim_free(r->rows);
    sim_free(r->study_id);
    sim_free(r->baseline);
    sim_free(r->baseline_from);
    sim_free(r->screening);
    sim_free(r->seq);
    sim_free(r);
}

/* The result with its conditions, before the run. */
static int new_result(const PowerDesign *d, const PowerOptions *o, const Ctx *x,
                      PowerResult **out, SimError *err)
{
    PowerResult *r = sim_calloc(1, sizeof *r);
    *out = r;
    if (!r) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r->opt = *o;
    r->test = d->test;
    r->method = x->t.method;
    r->within = d->within;
    r->vs_baseline = d->vs_baseline;
    r->n_design_conds = d->n_conds;
    r->n_sessions = d->test == POWER_TEST_UTILITY ? d->n_cells : 0;
    r->study_id = sim_strdup(d->study_id ? d->study_id : "");
    r->baseline = d->base >= 0 ? sim_strdup(d->conds[d->base]) : NULL;
    r->baseline_from = sim_strdup(d->base_from ? d->base_from : "");
    r->conds = sim_calloc((size_t)x->t.n_tests + 1, sizeof *r->conds);
    if (!r->study_id || !r->conds || !r->baseline_from ||
        (d->base >= 0 && !r->baseline)) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < x->t.n_tests; k++) {
        PowerCondition *pc = &r->conds[r->n_conds++];
        int c = x->t.tested[k];
        pc->id = sim_strdup(c >= 0 ? d->conds[c] : "all conditions");
        pc->pilot_pre = pc->pilot_post = NAN;
        pc->true_pre = pc->true_post = pc->true_change = NAN;
        pc->true_logit = d->truth_logit && c >= 0 ? d->truth_logit[k] : NAN;
        if (!pc->id) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}

/* The method o asks for, checked against the design. */
static int choose_method(const PowerDesign *d, const PowerOptions *o,
                         PowerMethod *m, SimError *err)
{
    *m = o->method;
    if (*m == POWER_METHOD_DEFAULT) {
        *m = d->test == POWER_TEST_PAIRED ? POWER_METHOD_T
                                          : POWER_METHOD_BOOTSTRAP;
    }
    if (d->test == POWER_TEST_PAIRED &&
        (*m == POWER_METHOD_BOOTSTRAP || *m == POWER_METHOD_USERS)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--test %s: study '%s' is within-subject; its tests "
                        "are the paired t test (--test t, the default) and "
                        "the mixed model (--test glmm)",
                        power_method_name(*m), d->study_id);
    }
    if (d->test != POWER_TEST_PAIRED && *m == POWER_METHOD_T) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--test t: the paired t test is for within-subject "
                        "studies; study '%s' is between-subject (--test "
                        "bootstrap, users, glmm or anova)",
                        d->study_id);
    }
    return SIM_OK;
}

/* Checks the design against the engine's limits. */
static int check_design(const PowerDesign *d, SimError *err)
{
    if (d->n_conds < 1 || d->n_conds > POWER_MAX_CELLS) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "study '%s': %d conditions (1 to %d)", d->study_id,
                        d->n_conds, POWER_MAX_CELLS);
    }
    if (d->base >= d->n_conds ||
        ((d->test != POWER_TEST_CHANGE || d->vs_baseline) &&
         (d->base < 0 || d->n_conds < 2))) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "study '%s': its test compares each condition with "
                        "the baseline; it needs a baseline and at least one "
                        "other condition",
                        d->study_id);
    }
    if (d->test != POWER_TEST_CHANGE &&
        (d->n_cells < 1 || d->n_cells > BOOT_MAX_CELLS)) {
        return sim_fail(err, SIM_ERR_USAGE, "study '%s': %d sessions (1 to %d)",
                        d->study_id, d->n_cells, BOOT_MAX_CELLS);
    }
    return SIM_OK;
}

int power_run(const PowerDesign *d, const PowerOptions *o, PowerSimulateFn fn,
              void *ctx, PowerResult **out, SimError *err)
{
    *out = NULL;
    Ctx x;
    memset(&x, 0, sizeof x);
    int rc = power_check_options(o, err);
    if (rc == SIM_OK) {
        rc = check_design(d, err);
    }
    if (rc == SIM_OK) {
        rc = choose_method(d, o, &x.t.method, err);
    }
    if (rc != SIM_OK) {
        return rc;
    }
    x.t.d = d;
    x.t.o = o;
    x.fn = fn;
    x.fctx = ctx;
    x.t.n_tests = power_tested(d, x.t.tested);
    if (x.t.method == POWER_METHOD_ANOVA) {
        x.t.n_tests = 1; /* the F test over all conditions */
        x.t.tested[0] = -1;
    }
    x.null_studies = o->null_studies < 0 ? o->studies : o->null_studies;
    x.per_size = o->studies + x.null_studies;
    /* with looks every study is simulated once, at the last */
    x.total = o->n_looks > 0 ? x.per_size : o->n_sizes * x.per_size;
    PowerResult *r = NULL;
    rc = new_result(d, o, &x, &r, err);
    size_t n_res =
        (size_t)o->n_sizes * (size_t)o->studies * (size_t)x.t.n_tests;
    size_t n_null =
        (size_t)o->n_sizes * (size_t)x.null_studies * (size_t)x.t.n_tests;
    if (rc == SIM_OK) {
        x.reject = sim_calloc(n_res + 1, 1);
        x.covered = sim_calloc(n_res + 1, 1);
        x.estimate = sim_calloc(n_res + 1, sizeof(double));
        x.null_reject = sim_calloc(n_null + 1, 1);
        x.null_estimate = sim_calloc(n_null + 1, sizeof(double));
        x.reps_used = sim_calloc((size_t)o->n_sizes * (size_t)o->studies + 1,
                                 sizeof(int));
        if (o->correction != POWER_CORRECTION_OWN || o->n_looks > 0) {
            x.pval = sim_malloc((n_res + 1) * sizeof(double));
            x.null_pval = sim_malloc((n_null + 1) * sizeof(double));
        }
        if (!x.reject || !x.covered || !x.estimate || !x.null_reject ||
            !x.null_estimate || !x.reps_used ||
            ((o->correction != POWER_CORRECTION_OWN || o->n_looks > 0) &&
             (!x.pval || !x.null_pval))) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (rc == SIM_OK) {
        pthread_mutex_init(&x.lock, NULL);
        rc = simulate_all(&x, err);
        pthread_mutex_destroy(&x.lock);
    }
    if (rc == SIM_OK) {
        rc = summarise(r, &x, err);
    }
    if (rc == SIM_OK && o->n_looks > 0) {
        rc = summarise_seq(r, &x, err);
    }
    sim_free(x.pval);
    sim_free(x.null_pval);
    sim_free(x.reject);
    sim_free(x.covered);
    sim_free(x.estimate);
    sim_free(x.null_reject);
    sim_free(x.null_estimate);
    sim_free(x.reps_used);
    sim_free(x.order);
    power_glmm_warm_free(x.warm, 2 * o->n_sizes);
    if (rc != SIM_OK) {
        power_free(r);
        return rc;
    }
    *out = r;
    return SIM_OK;
}

/* Participants to enrol to end with n analysed at exclusion rate rate. */
static double enrol_for(int n, double rate)
{
    return rate < 1 ? ceil(n / (1 - rate) - 1e-9) : INFINITY;
}

int power_set_screening(PowerResult *r, const PowerScreening *s, int n,
                        SimError *err)
{
    r->screening = sim_calloc((size_t)n + 1, sizeof *r->screening);
    if (!r->screening) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    memcpy(r->screening, s, (size_t)n * sizeof *s);
    r->n_screening = n;
    for (int k = 0; k < r->n_rows; k++) {
        PowerRow *w = &r->rows[k];
        const PowerScreening *e = NULL;
        for (int i = 0; i < n; i++) {
            if (strcmp(s[i].condition, w->condition) == 0 ||
                (!e && strcmp(s[i].condition, "all") == 0)) {
                e = &s[i];
            }
        }
        if (e && e->enrolled > 0) {
            w->enrol = enrol_for(w->participants, e->exclusion_rate);
            w->enrol_low = enrol_for(w->participants, e->rate_low);
            w->enrol_high = enrol_for(w->participants, e->rate_high);
        }
    }
    return SIM_OK;
}

int power_estimate(const PowerDesign *d, const PowerTable *t, double *est,
                   int n_est, SimError *err)
{
    int rc = check_design(d, err);
    if (rc != SIM_OK) {
        return rc;
    }
    PowerOptions o;
    power_options_default(&o);
    PowerTestCtx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.o = &o;
    x.method =
        d->test == POWER_TEST_PAIRED ? POWER_METHOD_T : POWER_METHOD_BOOTSTRAP;
    x.n_tests = power_tested(d, x.tested);
    if (n_est != x.n_tests) {
        return sim_fail(err, SIM_ERR_USAGE, "%d conditions tested, not %d",
                        x.n_tests, n_est);
    }
    PowerBuf b;
    memset(&b, 0, sizeof b);
    b.table = *t; /* borrowed: not freed below */
    PowerOutcome out = {NULL, est, NULL, NULL, NULL};
    rc = power_test_study(&x, &b, 0, 0, &out, err);
    memset(&b.table, 0, sizeof b.table);
    power_buf_free(&b);
    return rc;
}
