/*
** simlab power's engine (power.h): studies simulated by the caller's
** callback in worker threads, each tested with simlab-analyze's statistic
** (teststat.h: Change = Post - Pre (RE), Utility, or the accuracy
** difference with the baseline) and the crossed bootstrap of boot.h with
** curtailed sequential replicates; then the power per condition and size
** and the N for 80 % and 90 % power. Writers are in power_write.c, pilot
** data in power_pilot.c.
*/
#include "analysis/power.h"

#include "analysis/boot.h"
#include "analysis/report.h"
#include "analysis/teststat.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 100 /* bootstrap replicates per sequential step */

void power_options_default(PowerOptions *o)
{
    memset(o, 0, sizeof *o);
    o->studies = 500;
    o->alpha = 0.05;
    o->replicates = 1000;
    o->threads = 1;
    o->seed = 1;
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
        if (d->test == POWER_TEST_CHANGE || c != d->base) {
            tested[n++] = c;
        }
    }
    return n;
}

/* ------------------------------------------------------------ the tests */

typedef struct Ctx {
    const PowerDesign *d;
    const PowerOptions *o;
    PowerSimulateFn fn;
    void *fctx;
    int n_tests;                 /* tested conditions (columns) */
    int tested[POWER_MAX_CELLS]; /* their condition indices */
    /* results, [(size * studies + k) * n_tests + t] */
    unsigned char *reject;
    double *estimate;
    int *reps_used;
    atomic_int next, done, failed;
    pthread_mutex_t lock;
    SimError err; /* the first failure */
    int total;
} Ctx;

/* One worker's buffers, grown as needed. */
typedef struct Buf {
    PowerTable table;
    uint8_t *pre, *post; /* [participant * n_items + item], 255 = none */
    size_t *unit_off;
    BootPair *pairs;
    int *item_map, *item_group;
    size_t cap_units;
    BootPair *tpairs;
    size_t cap_tpairs;
    int *key_map, *tgroup; /* [cell * n_items + item] -> compact item */
    size_t cap_keys;
} Buf;

static void buf_free(Buf *b)
{
    power_table_free(&b->table);
    sim_free(b->pre);
    sim_free(b->post);
    sim_free(b->unit_off);
    sim_free(b->pairs);
    sim_free(b->item_map);
    sim_free(b->item_group);
    sim_free(b->tpairs);
    sim_free(b->key_map);
    sim_free(b->tgroup);
    memset(b, 0, sizeof *b);
}

static int buf_reserve(Buf *b, size_t units, size_t n_items)
{
    if (units <= b->cap_units) {
        return 0;
    }
    sim_free(b->pre);
    sim_free(b->post);
    sim_free(b->unit_off);
    sim_free(b->pairs);
    sim_free(b->item_map);
    sim_free(b->item_group);
    b->pre = sim_malloc(units * n_items + 1);
    b->post = sim_malloc(units * n_items + 1);
    b->unit_off = sim_malloc((units + 1) * sizeof(size_t));
    b->pairs = sim_malloc(units * n_items * sizeof(BootPair) + 1);
    b->item_map = sim_malloc((n_items + 1) * sizeof(int));
    b->item_group = sim_calloc(n_items + 1, sizeof(int));
    b->cap_units = 0;
    if (!b->pre || !b->post || !b->unit_off || !b->pairs || !b->item_map ||
        !b->item_group) {
        return -1;
    }
    b->cap_units = units;
    return 0;
}

/* The statistic of the Utility and difference tests. */
typedef struct AccCtx {
    PowerTest test;
    int n_conds, n_cells, base, n_tests;
    const int *tested;
} AccCtx;

/* Per tested condition, the Utility (the mean rule, simlab-analyze's
** default) or the difference with the baseline's accuracy, from the
** session accuracies of the Utility table (trial-level, its default). */
static void acc_stat(const void *vctx, const BootSums *s, void *scratch,
                     double *out)
{
    const AccCtx *x = vctx;
    int C = x->n_conds, T = x->n_cells;
    double *acc = scratch, *uk = acc + C * T, *u = uk + C * T;
    utility_session_accuracy(s, C, T, 0, acc);
    if (x->test == POWER_TEST_DIFFERENCE) {
        for (int k = 0; k < x->n_tests; k++) {
            out[k] = acc[x->tested[k] * T] - acc[x->base * T];
        }
        return;
    }
    utility_from_accuracy(acc, C, T, x->base, UTILITY_MEAN, uk, u);
    for (int k = 0; k < x->n_tests; k++) {
        out[k] = u[x->tested[k]];
    }
}

/* Change = Post - Pre (RE) per condition, from one cell per condition, as
** the change table computes it. */
static void change_stat(const void *vctx, const BootSums *s, void *scratch,
                        double *out)
{
    const int *ctx = vctx; /* conditions, drop singular fits */
    int C = ctx[0];
    double *work = scratch, *pre = work + 4 * C;
    ReFit fit;
    int singular =
        change_from_sums(s->sa, s->sb, s->n, C, work, pre, &fit, out);
    for (int c = 0; c < C && singular && ctx[1]; c++) {
        out[c] = NAN;
    }
}

/* Draws the bootstrap replicates of bd in batches and decides per
** statistic whether p <= alpha for H0: statistic = null (valid replicates:
** finite, and > 0 when positive, as simlab-analyze's log-scale Utility),
** stopping once every decision is certain (Besag-Clifford). */
static int sequential_test(const Ctx *x, const BootDesign *bd, BootRun *run,
                           uint64_t study_seed, double null, int positive,
                           unsigned char *reject, int *reps_used, SimError *err)
{
    int K = run->n_stats, B = x->o->replicates;
    int lo[POWER_MAX_CELLS] = {0}, hi[POWER_MAX_CELLS] = {0},
        valid[POWER_MAX_CELLS] = {0};
    double bound = reject_bound(x->o->alpha, B);
    int used = 0;
    for (int batch = 0; used < B; batch++) {
        run->replicates = B - used < BATCH ? B - used : BATCH;
        run->seed =
            sim_mix64(study_seed ^ (UINT64_C(0xb0075eed) + (uint64_t)batch));
        double *reps;
        int rc = boot_run(bd, run, &reps, err);
        if (rc != SIM_OK) {
            return rc;
        }
        for (int r = 0; r < run->replicates; r++) {
            for (int c = 0; c < K; c++) {
                double v = reps[(size_t)r * (size_t)K + (size_t)c];
                if (isfinite(v) && (!positive || v > 0)) {
                    valid[c]++;
                    lo[c] += v <= null;
                    hi[c] += v >= null;
                }
            }
        }
        sim_free(reps);
        used += run->replicates;
        /* Besag-Clifford: stop once every condition's smaller side has
        ** more than the bound; no later replicate can bring p below alpha */
        int open = 0;
        for (int c = 0; c < K; c++) {
            open |= (lo[c] < hi[c] ? lo[c] : hi[c]) <= bound;
        }
        if (!open && !x->o->full_replicates) {
            break;
        }
    }
    for (int c = 0; c < K; c++) {
        int m = lo[c] < hi[c] ? lo[c] : hi[c];
        double p = valid[c] > 0 ? 2.0 * (1.0 + m) / (valid[c] + 1.0) : 1.0;
        reject[c] = used == B && p <= x->o->alpha;
    }
    *reps_used = used;
    return SIM_OK;
}

/* The crossed design of the Utility and difference tests from the test
** answers of t: units are the participants within their condition (the
** strata), items are (session, item) drawn within their session, as
** simlab-analyze's Utility design. */
static int build_acc_design(const PowerDesign *pd, const PowerOptions *o,
                            Buf *b, BootDesign *d, SimError *err)
{
    const PowerTable *t = &b->table;
    size_t J = (size_t)pd->n_items, T = (size_t)pd->n_cells;
    size_t units = (size_t)t->n_participants;
    if (T * J + 1 > b->cap_keys) {
        sim_free(b->key_map);
        sim_free(b->tgroup);
        b->key_map = sim_malloc((T * J + 1) * sizeof(int));
        b->tgroup = sim_malloc((T * J + 1) * sizeof(int));
        b->cap_keys = b->key_map && b->tgroup ? T * J + 1 : 0;
    }
    if (!b->cap_keys || sim_grow((void **)&b->tpairs, &b->cap_tpairs,
                                 t->n_rows + 1, sizeof *b->tpairs) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < T * J; k++) {
        b->key_map[k] = -1;
    }
    /* counting sort by unit */
    memset(b->unit_off, 0, (units + 1) * sizeof(size_t));
    for (size_t i = 0; i < t->n_rows; i++) {
        if (t->rows[i].phase == POWER_PHASE_TEST) {
            b->unit_off[t->rows[i].participant + 1]++;
        }
    }
    for (size_t u = 0; u < units; u++) {
        b->unit_off[u + 1] += b->unit_off[u];
    }
    int n_items = 0;
    for (size_t i = 0; i < t->n_rows; i++) {
        const PowerAnswer *r = &t->rows[i];
        if (r->phase != POWER_PHASE_TEST) {
            continue;
        }
        size_t key = (size_t)r->cell * J + (size_t)r->item;
        if (b->key_map[key] < 0) {
            b->tgroup[n_items] = r->cell;
            b->key_map[key] = n_items++;
        }
        BootPair *p = &b->tpairs[b->unit_off[r->participant]++];
        p->item = b->key_map[key];
        p->cell = r->cell;
        p->ya = p->yb = r->y;
    }
    for (size_t u = units; u > 0; u--) {
        b->unit_off[u] = b->unit_off[u - 1];
    }
    b->unit_off[0] = 0;
    if (n_items == 0) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "study '%s': the simulated participants answered no "
                        "test trial",
                        pd->study_id);
    }
    memset(d, 0, sizeof *d);
    d->n_units = (int)units;
    d->unit_cond = t->cond_of;
    d->unit_stratum = t->cond_of;
    d->n_conds = pd->n_conds;
    d->n_strata = pd->n_conds;
    d->n_items = n_items;
    d->item_group = b->tgroup;
    d->n_groups = pd->n_cells;
    d->n_cells = pd->n_cells;
    d->unit_off = b->unit_off;
    d->pairs = b->tpairs;
    d->items_per_condition = o->items == 1;
    d->items_fixed = o->items == 2;
    return SIM_OK;
}

/* The design of the Change test from the Pre and Post answers of t: the
** first answer per (participant, item, phase) counts; items answered in
** both phases by someone, numbered compactly; one cell per condition. */
static int build_change_design(const PowerDesign *pd, const PowerOptions *o,
                               Buf *b, BootDesign *d, SimError *err)
{
    const PowerTable *t = &b->table;
    size_t J = (size_t)pd->n_items, units = (size_t)t->n_participants;
    memset(b->pre, 255, units * J);
    memset(b->post, 255, units * J);
    for (size_t i = 0; i < t->n_rows; i++) {
        const PowerAnswer *r = &t->rows[i];
        if (r->phase != POWER_PHASE_PRE && r->phase != POWER_PHASE_POST) {
            continue;
        }
        uint8_t *slot = (r->phase == POWER_PHASE_PRE ? b->pre : b->post) +
                        (size_t)r->participant * J + (size_t)r->item;
        if (*slot == 255) {
            *slot = r->y; /* the first answer counts */
        }
    }
    int n_items = 0;
    for (size_t j = 0; j < J; j++) {
        b->item_map[j] = -1;
        for (size_t u = 0; u < units; u++) {
            if (b->pre[u * J + j] != 255 && b->post[u * J + j] != 255) {
                b->item_map[j] = n_items++;
                break;
            }
        }
    }
    size_t np = 0;
    for (size_t u = 0; u < units; u++) {
        b->unit_off[u] = np;
        for (size_t j = 0; j < J; j++) {
            uint8_t ya = b->pre[u * J + j], yb = b->post[u * J + j];
            if (ya != 255 && yb != 255) {
                BootPair *p = &b->pairs[np++];
                p->item = b->item_map[j];
                p->cell = 0;
                p->ya = ya;
                p->yb = yb;
            }
        }
    }
    b->unit_off[units] = np;
    if (n_items == 0) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "study '%s': the simulated participants answered no "
                        "item in both Pre and Post",
                        pd->study_id);
    }
    memset(d, 0, sizeof *d);
    d->n_units = (int)units;
    d->unit_cond = t->cond_of;
    d->unit_stratum = t->cond_of; /* strata: conditions (one cell) */
    d->n_conds = pd->n_conds;
    d->n_strata = pd->n_conds;
    d->n_items = n_items;
    d->item_group = b->item_group;
    d->n_groups = 1;
    d->n_cells = 1;
    d->unit_off = b->unit_off;
    d->pairs = b->pairs;
    d->items_per_condition = o->items == 1;
    d->items_fixed = o->items == 2;
    return SIM_OK;
}

/* The paired test of a within-subject study: each participant's accuracy
** per condition over its answers (the callback gives those of the
** analysed phase), then the report's paired t tests against the baseline
** with Holm's adjustment; a condition is detected when its adjusted p is
** at most alpha. estimate: the mean paired difference. */
static int test_paired(const Ctx *x, const PowerTable *t, unsigned char *reject,
                       double *estimate, SimError *err)
{
    int C = x->d->n_conds, n = t->n_participants;
    size_t cells = (size_t)n * (size_t)C + 1;
    double *acc = sim_calloc(cells, sizeof(double));
    double *cnt = sim_calloc(cells, sizeof(double));
    double *ab = sim_malloc(2 * ((size_t)n + 1) * sizeof(double));
    PairedT res[POWER_MAX_CELLS];
    double p[POWER_MAX_CELLS], ph[POWER_MAX_CELLS];
    if (!acc || !cnt || !ab) {
        sim_free(acc);
        sim_free(cnt);
        sim_free(ab);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < t->n_rows; i++) {
        const PowerAnswer *r = &t->rows[i];
        size_t at = (size_t)r->participant * (size_t)C + r->condition;
        acc[at] += r->y;
        cnt[at] += 1;
    }
    for (size_t k = 0; k + 1 < cells; k++) {
        acc[k] = cnt[k] > 0 ? acc[k] / cnt[k] : NAN;
    }
    int m =
        within_paired_tests(acc, n, C, x->d->base, ab, ab + n + 1, res, p, ph);
    for (int k = 0; k < m && k < x->n_tests; k++) {
        estimate[k] = res[k].diff;
        if (reject) {
            reject[k] = ph[k] <= x->o->alpha; /* NaN: not detected */
        }
    }
    sim_free(acc);
    sim_free(cnt);
    sim_free(ab);
    return SIM_OK;
}

/* Tests the study in b->table: the full-sample statistic into estimate,
** and with reject the curtailed bootstrap's decisions. */
static int test_study(const Ctx *x, Buf *b, uint64_t study_seed,
                      unsigned char *reject, double *estimate, int *reps_used,
                      SimError *err)
{
    const PowerDesign *pd = x->d;
    int C = pd->n_conds;
    if (pd->test == POWER_TEST_PAIRED) {
        if (reps_used) {
            *reps_used = 0;
        }
        return test_paired(x, &b->table, reject, estimate, err);
    }
    if (buf_reserve(b, (size_t)b->table.n_participants, (size_t)pd->n_items) !=
        0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    BootDesign d;
    BootRun run;
    memset(&run, 0, sizeof run);
    run.threads = 1;
    run.n_stats = x->n_tests;
    int change = pd->test == POWER_TEST_CHANGE;
    int rc = change ? build_change_design(pd, x->o, b, &d, err)
                    : build_acc_design(pd, x->o, b, &d, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int cctx[2] = {C, 0}; /* the full sample keeps a singular fit */
    AccCtx actx = {pd->test, C, pd->n_cells, pd->base, x->n_tests, x->tested};
    if (change) {
        run.stat = change_stat;
        run.ctx = cctx;
        run.scratch_size = (size_t)C * 5 * sizeof(double);
    } else {
        run.stat = acc_stat;
        run.ctx = &actx;
        run.scratch_size =
            ((size_t)C * (size_t)pd->n_cells * 2 + (size_t)C) * sizeof(double);
    }
    rc = boot_full(&d, &run, estimate, err);
    if (rc != SIM_OK || !reject) {
        return rc;
    }
    cctx[1] = x->o->drop_singular;
    int utility = pd->test == POWER_TEST_UTILITY;
    return sequential_test(x, &d, &run, study_seed, utility ? 1.0 : 0.0,
                           utility, reject, reps_used, err);
}

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

static void *worker(void *arg)
{
    Ctx *x = arg;
    Buf b;
    memset(&b, 0, sizeof b);
    int C = x->n_tests, S = x->o->studies;
    for (;;) {
        int task = atomic_fetch_add(&x->next, 1);
        if (task >= x->total || atomic_load(&x->failed)) {
            break;
        }
        /* the largest studies first, for an even load */
        int si = x->o->n_sizes - 1 - task / S, k = task % S;
        size_t at = ((size_t)si * (size_t)S + (size_t)k) * (size_t)C;
        uint64_t seed = study_seed_of(x->o, si, k);
        SimError err;
        sim_error_clear(&err);
        b.table.n_rows = 0;
        b.table.n_participants = 0;
        int rc = x->fn(x->fctx, x->o->sizes[si], seed, &b.table, &err);
        if (rc == SIM_OK) {
            rc = test_study(x, &b, seed, x->reject + at, x->estimate + at,
                            x->reps_used + (size_t)si * (size_t)S + (size_t)k,
                            &err);
        }
        pthread_mutex_lock(&x->lock);
        if (rc != SIM_OK && !atomic_exchange(&x->failed, 1)) {
            x->err = err;
        }
        int done = atomic_fetch_add(&x->done, 1) + 1;
        if (x->o->progress && (done % 10 == 0 || done == x->total)) {
            draw_progress(done, x->total);
        }
        pthread_mutex_unlock(&x->lock);
    }
    buf_free(&b);
    return NULL;
}

static int simulate_all(Ctx *x, SimError *err)
{
    int threads = x->o->threads > 0 ? x->o->threads : 1;
    if (threads > x->total) {
        threads = x->total;
    }
    pthread_t tids[256];
    if (threads > 256) {
        threads = 256;
    }
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

static void recommend(PowerResult *r, int c, double target, PowerN *out)
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

static int summarise(PowerResult *r, const Ctx *x, SimError *err)
{
    int C = x->n_tests, S = r->opt.studies, Z = r->opt.n_sizes;
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
            int m = 0;
            for (int k = 0; k < S; k++) {
                size_t at = ((size_t)si * (size_t)S + (size_t)k) * (size_t)C +
                            (size_t)c;
                row->rejections += x->reject[at];
                if (isfinite(x->estimate[at])) {
                    sum += x->estimate[at];
                    m++;
                }
            }
            row->power = (double)row->rejections / S;
            power_wilson(row->rejections, S, &row->ci_low, &row->ci_high);
            row->mean_estimate = m > 0 ? sum / m : NAN;
            row->mean_replicates = reps / S;
            row->enrol = row->enrol_low = row->enrol_high = NAN;
        }
    }
    for (int c = 0; c < C; c++) {
        recommend(r, c, 0.8, &r->conds[c].n80);
        recommend(r, c, 0.9, &r->conds[c].n90);
    }
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
    r->within = d->within;
    r->n_sessions = d->test == POWER_TEST_UTILITY ? d->n_cells : 0;
    r->study_id = sim_strdup(d->study_id ? d->study_id : "");
    r->baseline = d->base >= 0 ? sim_strdup(d->conds[d->base]) : NULL;
    r->baseline_from = sim_strdup(d->base_from ? d->base_from : "");
    r->conds = sim_calloc((size_t)x->n_tests + 1, sizeof *r->conds);
    if (!r->study_id || !r->conds || !r->baseline_from ||
        (d->base >= 0 && !r->baseline)) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < x->n_tests; k++) {
        PowerCondition *pc = &r->conds[r->n_conds++];
        pc->id = sim_strdup(d->conds[x->tested[k]]);
        pc->pilot_pre = pc->pilot_post = NAN;
        pc->true_pre = pc->true_post = pc->true_change = NAN;
        if (!pc->id) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
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
        (d->test != POWER_TEST_CHANGE && (d->base < 0 || d->n_conds < 2))) {
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
    int rc = power_check_options(o, err);
    if (rc == SIM_OK) {
        rc = check_design(d, err);
    }
    if (rc != SIM_OK) {
        return rc;
    }
    Ctx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.o = o;
    x.fn = fn;
    x.fctx = ctx;
    x.n_tests = power_tested(d, x.tested);
    x.total = o->n_sizes * o->studies;
    PowerResult *r = NULL;
    rc = new_result(d, o, &x, &r, err);
    size_t n_res = (size_t)x.total * (size_t)x.n_tests;
    if (rc == SIM_OK) {
        x.reject = sim_calloc(n_res + 1, 1);
        x.estimate = sim_calloc(n_res + 1, sizeof(double));
        x.reps_used = sim_calloc((size_t)x.total + 1, sizeof(int));
        if (!x.reject || !x.estimate || !x.reps_used) {
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
    sim_free(x.reject);
    sim_free(x.estimate);
    sim_free(x.reps_used);
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
    Ctx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.o = &o;
    x.n_tests = power_tested(d, x.tested);
    if (n_est != x.n_tests) {
        return sim_fail(err, SIM_ERR_USAGE, "%d conditions tested, not %d",
                        x.n_tests, n_est);
    }
    Buf b;
    memset(&b, 0, sizeof b);
    b.table = *t; /* borrowed: not freed below */
    rc = test_study(&x, &b, 0, NULL, est, NULL, err);
    memset(&b.table, 0, sizeof b.table);
    buf_free(&b);
    return rc;
}
