/*
** `simlab power`: simulation and tests (power_run). Each simulated study
** draws N participants per condition: a schedule from schedule_build() with
** the participant's seed, and on every Pre and Post prediction trial (or
** test trial, for session and plain-test designs) an answer of the mixed
** policy (policy_p_correct with the participant's and the study's item
** effects), exactly the probabilities `simlab simulate --policy mixed`
** uses. The responses go straight into a BootDesign (no database, no
** Dataset) and the study's primary test -- Change = Post - Pre (RE) != 0,
** Utility != 1, or accuracy - the baseline's != 0, per condition -- is run
** with the crossed bootstrap and the percentile-inversion p of
** simlab-analyze. Writers and the command line are in power_out.c.
*/
#include "app/power.h"

#include "analysis/boot.h"
#include "analysis/dataset.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "experiment/schedule.h"
#include "experiment/simulate.h"
#include "stimuli/study.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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
    o->participant_sd = -1;
    o->item_sd = -1;
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

/* ------------------------------------------------------------ the model */

typedef struct Ctx {
    const PowerOptions *o;
    const Study *study;
    SimulationSpec spec;
    int n_conds;
    const char **cond_ids;
    PowerTest test;
    int n_tests;                 /* tested conditions (columns) */
    int tested[POWER_MAX_CELLS]; /* their condition indices */
    int base;                    /* baseline condition (not Change) */
    int n_cells;                 /* sessions of test trials (not Change) */
    int *block_cell;             /* per block: its cell, or -1 */
    /* results, [(size * studies + k) * n_tests + t] */
    unsigned char *reject;
    double *estimate;
    int *reps_used;
    atomic_int next, done, failed;
    pthread_mutex_t lock;
    SimError err; /* the first failure */
    int total;
} Ctx;

/* One counted answer of a test trial. */
typedef struct Resp {
    int unit, item; /* item: the study's item index */
    uint8_t cell, y;
} Resp;

/* One worker's buffers, grown as needed. */
typedef struct Buf {
    uint8_t *pre, *post; /* [participant * n_items + item], 255 = none */
    int *unit_cond;
    size_t *unit_off;
    BootPair *pairs;
    int *item_map, *item_group;
    size_t cap_units, cap_pairs;
    /* Utility and difference tests: every counted answer, by unit */
    Resp *resp;
    size_t n_resp, cap_resp;
    BootPair *tpairs;
    size_t cap_tpairs;
    int *key_map, *tgroup; /* [cell * n_items + item] -> compact item */
    size_t cap_keys;
} Buf;

static void buf_free(Buf *b)
{
    sim_free(b->pre);
    sim_free(b->post);
    sim_free(b->unit_cond);
    sim_free(b->unit_off);
    sim_free(b->pairs);
    sim_free(b->item_map);
    sim_free(b->item_group);
    sim_free(b->resp);
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
    sim_free(b->unit_cond);
    sim_free(b->unit_off);
    sim_free(b->pairs);
    sim_free(b->item_map);
    sim_free(b->item_group);
    b->pre = sim_malloc(units * n_items);
    b->post = sim_malloc(units * n_items);
    b->unit_cond = sim_malloc(units * sizeof(int));
    b->unit_off = sim_malloc((units + 1) * sizeof(size_t));
    b->pairs = sim_malloc(units * n_items * sizeof(BootPair) + 1);
    b->item_map = sim_malloc((n_items + 1) * sizeof(int));
    b->item_group = sim_calloc(n_items + 1, sizeof(int));
    if (!b->pre || !b->post || !b->unit_cond || !b->unit_off || !b->pairs ||
        !b->item_map || !b->item_group) {
        buf_free(b);
        return -1;
    }
    b->cap_units = units;
    b->cap_pairs = units * n_items;
    return 0;
}

/* Simulates one participant's Pre and Post answers into pre/post rows. */
static int simulate_participant(const Ctx *x, int c, uint64_t study_seed,
                                uint64_t pseed, uint8_t *pre, uint8_t *post,
                                SimError *err)
{
    const Study *st = x->study;
    const char *cond = x->cond_ids[c];
    Schedule *sched;
    int rc = schedule_build(st, cond, pseed, &sched, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Policy pol;
    policy_init(&pol, POLICY_MIXED, st, &x->spec, study_seed, pseed);
    for (size_t i = 0; i < sched->n_trials; i++) {
        const Trial *t = &sched->trials[i];
        SimPhase ph = st->blocks[t->block].phase_id;
        if ((ph != SIM_PHASE_PRE && ph != SIM_PHASE_POST) || !t->item_key ||
            t->is_catch || t->is_example || t->correct_choice < 0) {
            continue;
        }
        const Item *it = study_find_item(st, t->item_key);
        if (!it) {
            continue;
        }
        size_t j = (size_t)(it - st->items);
        uint8_t *slot = ph == SIM_PHASE_PRE ? &pre[j] : &post[j];
        double p =
            policy_p_correct(&pol, cond, sim_phase_name(ph), t->item_key);
        uint8_t y = sim_rng_uniform(&pol.rng) < p;
        if (*slot == 255) {
            *slot = y; /* the first answer counts */
        }
    }
    schedule_free(sched);
    return SIM_OK;
}

/* Appends one response to b->resp. */
static int push_resp(Buf *b, int unit, int item, int cell, int y)
{
    if (sim_grow((void **)&b->resp, &b->cap_resp, b->n_resp + 1,
                 sizeof *b->resp) != 0) {
        return -1;
    }
    Resp *r = &b->resp[b->n_resp++];
    r->unit = unit;
    r->item = item;
    r->cell = (uint8_t)cell;
    r->y = (uint8_t)(y != 0);
    return 0;
}

/* Simulates one participant's answers on the test trials of the study's
** sessions (Utility and difference tests): every answer counts, as in
** simlab-analyze's Utility table. */
static int simulate_tests(const Ctx *x, int c, uint64_t study_seed,
                          uint64_t pseed, int unit, Buf *b, SimError *err)
{
    const Study *st = x->study;
    const char *cond = x->cond_ids[c];
    Schedule *sched;
    int rc = schedule_build(st, cond, pseed, &sched, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Policy pol;
    policy_init(&pol, POLICY_MIXED, st, &x->spec, study_seed, pseed);
    const char *phase = sim_phase_name(SIM_PHASE_TEST);
    for (size_t i = 0; i < sched->n_trials; i++) {
        const Trial *t = &sched->trials[i];
        int cell = x->block_cell[t->block];
        if (cell < 0 || !t->item_key || t->is_catch || t->is_example ||
            t->correct_choice < 0) {
            continue;
        }
        const Item *it = study_find_item(st, t->item_key);
        if (!it) {
            continue;
        }
        double p = policy_p_correct(&pol, cond, phase, t->item_key);
        int y = sim_rng_uniform(&pol.rng) < p;
        if (push_resp(b, unit, (int)(it - st->items), cell, y) != 0) {
            schedule_free(sched);
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    schedule_free(sched);
    return SIM_OK;
}

/* The statistic of the Utility and difference tests. */
typedef struct AccCtx {
    PowerTest test;
    int n_conds, n_cells, base, n_tests;
    const int *tested;
} AccCtx;

/* Accuracy per (condition, session) = sum w y / sum w over the counted
** answers (simlab-analyze's default, trial-level accuracy), then per tested
** condition: Utility = the mean over sessions of Utility-K = accuracy /
** the baseline's accuracy (--utility mean, the default), or the difference
** accuracy - the baseline's (one session). As analysis/utility.c. */
static void acc_stat(const void *vctx, const BootSums *s, void *scratch,
                     double *out)
{
    const AccCtx *x = vctx;
    double *acc = scratch;
    int T = x->n_cells;
    for (int i = 0; i < x->n_conds * T; i++) {
        acc[i] = s->n[i] > 0 ? s->sa[i] / s->n[i] : NAN;
    }
    for (int k = 0; k < x->n_tests; k++) {
        int c = x->tested[k];
        if (x->test == POWER_TEST_DIFFERENCE) {
            out[k] = acc[c * T] - acc[x->base * T];
            continue;
        }
        double sum = 0;
        for (int t = 0; t < T; t++) {
            double a = acc[c * T + t], bb = acc[x->base * T + t];
            sum += bb > 0 ? a / bb : NAN;
        }
        out[k] = sum / T;
    }
}

/* Builds the crossed design of the Utility and difference tests from
** b->resp (in any order) for units with conditions b->unit_cond: units
** are strata of their condition, items are (session, item) drawn within
** their session, as simlab-analyze's Utility design. */
static int build_acc_design(const Ctx *x, Buf *b, size_t units, BootDesign *d,
                            SimError *err)
{
    size_t J = x->study->n_items, T = (size_t)x->n_cells;
    if (T * J + 1 > b->cap_keys) {
        sim_free(b->key_map);
        sim_free(b->tgroup);
        b->key_map = sim_malloc((T * J + 1) * sizeof(int));
        b->tgroup = sim_malloc((T * J + 1) * sizeof(int));
        b->cap_keys = b->key_map && b->tgroup ? T * J + 1 : 0;
    }
    if (!b->cap_keys || sim_grow((void **)&b->tpairs, &b->cap_tpairs,
                                 b->n_resp + 1, sizeof *b->tpairs) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < T * J; k++) {
        b->key_map[k] = -1;
    }
    /* counting sort by unit */
    memset(b->unit_off, 0, (units + 1) * sizeof(size_t));
    for (size_t i = 0; i < b->n_resp; i++) {
        b->unit_off[b->resp[i].unit + 1]++;
    }
    for (size_t u = 0; u < units; u++) {
        b->unit_off[u + 1] += b->unit_off[u];
    }
    int n_items = 0;
    for (size_t i = 0; i < b->n_resp; i++) {
        const Resp *r = &b->resp[i];
        size_t key = (size_t)r->cell * J + (size_t)r->item;
        if (b->key_map[key] < 0) {
            b->tgroup[n_items] = r->cell;
            b->key_map[key] = n_items++;
        }
        BootPair *p = &b->tpairs[b->unit_off[r->unit]++];
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
                        "%s: the simulated participants answered no test "
                        "trial",
                        x->study->dir);
    }
    memset(d, 0, sizeof *d);
    d->n_units = (int)units;
    d->unit_cond = b->unit_cond;
    d->unit_stratum = b->unit_cond;
    d->n_conds = x->n_conds;
    d->n_strata = x->n_conds;
    d->n_items = n_items;
    d->item_group = b->tgroup;
    d->n_groups = x->n_cells;
    d->n_cells = x->n_cells;
    d->unit_off = b->unit_off;
    d->pairs = b->tpairs;
    d->items_per_condition = x->o->items == 1;
    d->items_fixed = x->o->items == 2;
    return SIM_OK;
}

/* Change = Post - Pre (RE) per condition, from one cell per condition. */
static void change_stat(const void *vctx, const BootSums *s, void *scratch,
                        double *out)
{
    const int *ctx = vctx; /* conditions, drop singular fits */
    int C = ctx[0];
    double *work = scratch, *pre = work + 4 * C;
    ReFit fit;
    int bad = stats_re_fit(s->sa, s->n, C, work, pre, &fit) != 0 ||
              (ctx[1] && fit.singular);
    for (int c = 0; c < C; c++) {
        out[c] = !bad && s->n[c] > 0 ? s->sb[c] / s->n[c] - pre[c] : NAN;
    }
}

/* The largest count on the smaller side that still rejects at alpha with
** B valid replicates: 2 (1 + m) / (B + 1) <= alpha. */
static double reject_bound(double alpha, int B)
{
    return alpha * (B + 1) / 2.0 - 1.0;
}

/* Draws the bootstrap replicates of d in batches and decides per
** statistic whether p <= alpha for H0: statistic = null (valid replicates:
** finite, and > 0 when positive, as simlab-analyze's log-scale Utility),
** stopping once every decision is certain (Besag-Clifford). */
static int sequential_test(const Ctx *x, const BootDesign *d, BootRun *run,
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
        int rc = boot_run(d, run, &reps, err);
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

/* The Utility or difference test of one study whose responses are in
** b->resp (units: b->unit_cond). */
static int test_accuracies(const Ctx *x, Buf *b, size_t units,
                           uint64_t study_seed, unsigned char *reject,
                           double *estimate, int *reps_used, SimError *err)
{
    BootDesign d;
    int rc = build_acc_design(x, b, units, &d, err);
    if (rc != SIM_OK) {
        return rc;
    }
    AccCtx ctx = {x->test, x->n_conds, x->n_cells,
                  x->base, x->n_tests, x->tested};
    BootRun run;
    memset(&run, 0, sizeof run);
    run.threads = 1;
    run.stat = acc_stat;
    run.ctx = &ctx;
    run.scratch_size = (size_t)x->n_conds * (size_t)x->n_cells * sizeof(double);
    run.n_stats = x->n_tests;
    rc = boot_full(&d, &run, estimate, err);
    if (rc != SIM_OK || !reject) {
        return rc;
    }
    int utility = x->test == POWER_TEST_UTILITY;
    return sequential_test(x, &d, &run, study_seed, utility ? 1.0 : 0.0,
                           utility, reject, reps_used, err);
}

/* Simulates and tests one study of N participants per condition. */
static int run_study(Ctx *x, Buf *b, int N, uint64_t study_seed,
                     unsigned char *reject, double *estimate, int *reps_used,
                     SimError *err)
{
    const Study *st = x->study;
    int C = x->n_conds;
    size_t J = st->n_items, units = (size_t)C * (size_t)N;
    if (buf_reserve(b, units, J) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (x->test != POWER_TEST_CHANGE) {
        b->n_resp = 0;
        for (int c = 0; c < C; c++) {
            for (int i = 0; i < N; i++) {
                size_t u = (size_t)c * (size_t)N + (size_t)i;
                uint64_t pseed =
                    sim_mix64(study_seed * UINT64_C(0x9e3779b97f4a7c15) +
                              (uint64_t)u + 1);
                int rc =
                    simulate_tests(x, c, study_seed, pseed, (int)u, b, err);
                if (rc != SIM_OK) {
                    return rc;
                }
                b->unit_cond[u] = c;
            }
        }
        return test_accuracies(x, b, units, study_seed, reject, estimate,
                               reps_used, err);
    }
    memset(b->pre, 255, units * J);
    memset(b->post, 255, units * J);
    for (int c = 0; c < C; c++) {
        for (int i = 0; i < N; i++) {
            size_t u = (size_t)c * (size_t)N + (size_t)i;
            uint64_t pseed = sim_mix64(
                study_seed * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)u + 1);
            int rc = simulate_participant(x, c, study_seed, pseed,
                                          b->pre + u * J, b->post + u * J, err);
            if (rc != SIM_OK) {
                return rc;
            }
            b->unit_cond[u] = c;
        }
    }
    /* items answered in both phases by someone, numbered compactly */
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
                        "%s: the simulated participants answered no item in "
                        "both Pre and Post",
                        st->dir);
    }
    BootDesign d;
    memset(&d, 0, sizeof d);
    d.n_units = (int)units;
    d.unit_cond = b->unit_cond;
    d.unit_stratum = b->unit_cond; /* strata: conditions (one cell) */
    d.n_conds = C;
    d.n_strata = C;
    d.n_items = n_items;
    d.item_group = b->item_group;
    d.n_groups = 1;
    d.n_cells = 1;
    d.unit_off = b->unit_off;
    d.pairs = b->pairs;
    d.items_per_condition = x->o->items == 1;
    d.items_fixed = x->o->items == 2;
    BootRun run;
    memset(&run, 0, sizeof run);
    run.threads = 1;
    run.stat = change_stat;
    int ctx[2] = {C, 0}; /* the full sample keeps a singular fit */
    run.ctx = ctx;
    run.scratch_size = (size_t)C * 5 * sizeof(double);
    run.n_stats = C;
    int rc = boot_full(&d, &run, estimate, err);
    if (rc != SIM_OK) {
        return rc;
    }
    ctx[1] = x->o->drop_singular;
    return sequential_test(x, &d, &run, study_seed, 0.0, 0, reject, reps_used,
                           err);
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
        SimError err;
        sim_error_clear(&err);
        int rc =
            run_study(x, &b, x->o->sizes[si], study_seed_of(x->o, si, k),
                      x->reject + at, x->estimate + at,
                      x->reps_used + (size_t)si * (size_t)S + (size_t)k, &err);
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

/* The cell probability p whose population accuracy under spec's random
** effects is acc (bisection on the logit scale). */
static double p_for_accuracy(const SimulationSpec *spec, double acc)
{
    SimulationSpec one = *spec;
    SimCell cell = {NULL, NULL, 0.5};
    one.cells = &cell;
    one.n_cells = 1;
    double lo = -9, hi = 9;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        cell.p = 1.0 / (1.0 + exp(-mid));
        if (policy_true_accuracy(&one, NULL, NULL) < acc) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 1.0 / (1.0 + exp(-0.5 * (lo + hi)));
}

/* Reads the pilot databases: per condition of the study, the raw accuracy
** of the non-excluded participants' Pre and Post responses (catch trials
** left out) into r->conds; a condition of the pilot that the study does
** not have is an error, and so is a pilot without such responses. */
static int read_pilots(const PowerOptions *o, const Study *st, PowerResult *r,
                       SimError *err)
{
    Dataset *ds = NULL;
    int rc = dataset_new(&ds, err);
    for (int i = 0; rc == SIM_OK && i < o->n_pilots; i++) {
        rc = dataset_load_db(ds, o->pilots[i], err);
    }
    int C = (int)st->n_conditions;
    int *right = sim_calloc((size_t)(2 * C) + 1, sizeof(int));
    int *seen = sim_calloc((size_t)ds->n_participants + 1, sizeof(int));
    if (rc == SIM_OK && (!right || !seen)) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int used = 0;
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        const Participant *pt = &ds->participants[row->participant];
        if ((row->phase != PHASE_PRE && row->phase != PHASE_POST) ||
            row->correct < 0 || row->is_catch || pt->excluded) {
            continue;
        }
        const char *cond = dataset_str(ds, row->condition);
        int c = 0;
        while (c < C && strcmp(st->conditions[c].id, cond) != 0) {
            c++;
        }
        if (c == C) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "--pilot %s: condition '%s' of the pilot is not a "
                          "condition of study '%s'",
                          o->pilots[0], cond, st->id);
            break;
        }
        PowerCondition *pc = &r->conds[c];
        int post = row->phase == PHASE_POST;
        *(post ? &pc->pilot_post_n : &pc->pilot_pre_n) += 1;
        right[2 * c + post] += row->correct;
        if (!seen[row->participant]) {
            seen[row->participant] = 1;
            pc->pilot_participants++;
        }
        used++;
    }
    if (rc == SIM_OK && used == 0) {
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "--pilot %s: no Pre or Post responses of non-excluded "
                      "participants (an empty pilot database?)",
                      o->pilots[0]);
    }
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        PowerCondition *pc = &r->conds[c];
        pc->pilot_pre =
            pc->pilot_pre_n > 0 ? (double)right[2 * c] / pc->pilot_pre_n : NAN;
        pc->pilot_post = pc->pilot_post_n > 0
                             ? (double)right[2 * c + 1] / pc->pilot_post_n
                             : NAN;
    }
    sim_free(right);
    sim_free(seen);
    dataset_free(ds);
    return rc;
}

/* The simulation model: the study's block, the SD overrides, the pilot's
** accuracies as cells (with --pilot), then the --p cells. */
static int build_spec(const PowerOptions *o, const Study *st, PowerResult *r,
                      SimulationSpec *spec, SimCell **cells, char ***texts,
                      SimError *err)
{
    *spec = st->simulation;
    if (o->participant_sd >= 0) {
        spec->participant_sd = o->participant_sd;
    }
    if (o->item_sd >= 0) {
        spec->item_sd = o->item_sd;
    }
    size_t n = st->simulation.n_cells;
    *cells = sim_calloc(n + 2 * st->n_conditions + (size_t)o->n_cells + 1,
                        sizeof **cells);
    *texts = sim_calloc((size_t)o->n_cells + 1, sizeof **texts);
    if (!*cells || !*texts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (n > 0) {
        memcpy(*cells, st->simulation.cells, n * sizeof **cells);
    }
    if (o->n_pilots > 0) {
        int rc = read_pilots(o, st, r, err);
        if (rc != SIM_OK) {
            return rc;
        }
        for (int c = 0; c < r->n_conds; c++) {
            const PowerCondition *pc = &r->conds[c];
            double acc[2] = {pc->pilot_pre, pc->pilot_post};
            static char pre[] = "pre", post[] = "post";
            char *ph[2] = {pre, post};
            for (int k = 0; k < 2; k++) {
                if (isfinite(acc[k])) {
                    double a = fmin(0.99, fmax(0.01, acc[k]));
                    SimCell *cell = &(*cells)[n++];
                    cell->condition = st->conditions[c].id;
                    cell->phase = ph[k];
                    cell->p = p_for_accuracy(spec, a);
                }
            }
        }
    }
    for (int i = 0; i < o->n_cells; i++) {
        SimCell *cell = &(*cells)[n++];
        (*texts)[i] = sim_strdup(o->cells[i]);
        if (!(*texts)[i]) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int rc = policy_parse_cell((*texts)[i], cell, err);
        if (rc != SIM_OK) {
            return rc;
        }
        if (cell->condition && !study_find_condition(st, cell->condition)) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--p: unknown condition '%s' (the study has "
                            "%zu conditions, e.g. '%s')",
                            cell->condition, st->n_conditions,
                            st->conditions[0].id);
        }
    }
    spec->cells = *cells;
    spec->n_cells = n;
    return SIM_OK;
}

/* The study's primary test: Change with Pre and Post blocks; otherwise
** Utility with test blocks in sessions, or the difference with the
** baseline with test blocks outside sessions. Fills x->test, x->n_cells,
** x->block_cell (allocated), x->base and x->tested. */
static int detect_design(const Study *st, Ctx *x, SimError *err)
{
    int n_pre = 0, n_post = 0, n_test = 0, max_session = 0;
    int C = (int)st->n_conditions;
    if (C > POWER_MAX_CELLS) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: more than %d conditions",
                        st->dir, POWER_MAX_CELLS);
    }
    if (st->assignment.mode == ASSIGN_MODE_WITHIN) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' is within-subject; simlab power "
                        "simulates between-subject studies only",
                        st->dir, st->id);
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *bl = &st->blocks[i];
        n_pre += bl->phase_id == SIM_PHASE_PRE;
        n_post += bl->phase_id == SIM_PHASE_POST;
        if (bl->phase_id == SIM_PHASE_TEST) {
            n_test++;
            max_session = bl->session > max_session ? bl->session : max_session;
        }
    }
    x->n_conds = C;
    if (n_pre > 0 && n_post > 0) {
        x->test = POWER_TEST_CHANGE;
        x->n_tests = C;
        for (int c = 0; c < C; c++) {
            x->tested[c] = c;
        }
        return SIM_OK;
    }
    if (n_test == 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' has neither Pre and Post blocks nor "
                        "test blocks: nothing for simlab power to test",
                        st->dir, st->id);
    }
    /* the baseline as simlab-analyze's --baseline default */
    x->base = -1;
    for (int c = 0; c < C; c++) {
        if (strcmp(st->conditions[c].id, "baseline") == 0) {
            x->base = c;
        }
    }
    if (x->base < 0 || C < 2) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' needs a condition 'baseline' and at "
                        "least one other: its test (Utility, or the accuracy "
                        "difference with the baseline) compares each "
                        "condition with the condition 'baseline', as "
                        "simlab-analyze does by default",
                        st->dir, st->id);
    }
    x->test = max_session > 0 ? POWER_TEST_UTILITY : POWER_TEST_DIFFERENCE;
    x->block_cell = sim_malloc((st->n_blocks + 1) * sizeof(int));
    int *cell_of = sim_malloc(((size_t)max_session + 1) * sizeof(int));
    if (!x->block_cell || !cell_of) {
        sim_free(cell_of);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    /* sessions in increasing order, as simlab-analyze numbers them */
    for (int t = 0; t <= max_session; t++) {
        cell_of[t] = -1;
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        if (st->blocks[i].phase_id == SIM_PHASE_TEST) {
            cell_of[st->blocks[i].session] = 0;
        }
    }
    x->n_cells = 0;
    for (int t = 0; t <= max_session; t++) {
        if (cell_of[t] == 0) {
            cell_of[t] = x->n_cells++;
        }
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *bl = &st->blocks[i];
        x->block_cell[i] =
            bl->phase_id == SIM_PHASE_TEST ? cell_of[bl->session] : -1;
    }
    sim_free(cell_of);
    if (x->n_cells > BOOT_MAX_CELLS) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: more than %d sessions",
                        st->dir, BOOT_MAX_CELLS);
    }
    x->n_tests = 0;
    for (int c = 0; c < C; c++) {
        if (c != x->base) {
            x->tested[x->n_tests++] = c;
        }
    }
    return SIM_OK;
}

static int check_options(const PowerOptions *o, SimError *err)
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
    sim_free(r);
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

int power_estimate_db(const char *bundle_dir, const char *db, double *est,
                      int n_est, SimError *err)
{
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(bundle_dir, &st, &rep, err);
    study_report_free(&rep);
    if (rc != SIM_OK) {
        return rc;
    }
    PowerOptions o;
    power_options_default(&o);
    Ctx x;
    memset(&x, 0, sizeof x);
    x.o = &o;
    x.study = st;
    Buf b;
    memset(&b, 0, sizeof b);
    Dataset *ds = NULL;
    rc = detect_design(st, &x, err);
    if (rc == SIM_OK && x.test == POWER_TEST_CHANGE) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "power_estimate_db: Utility and difference tests only");
    }
    if (rc == SIM_OK && n_est != x.n_tests) {
        rc = sim_fail(err, SIM_ERR_USAGE, "%d conditions tested, not %d",
                      x.n_tests, n_est);
    }
    if (rc == SIM_OK) {
        rc = dataset_new(&ds, err);
    }
    if (rc == SIM_OK) {
        rc = dataset_load_db(ds, db, err);
    }
    size_t units = ds ? (size_t)ds->n_participants : 0;
    if (rc == SIM_OK && buf_reserve(&b, units + 1, st->n_items) != 0) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t u = 0; rc == SIM_OK && u < units; u++) {
        const char *cond = dataset_str(ds, ds->participants[u].condition);
        const Condition *sc = study_find_condition(st, cond);
        b.unit_cond[u] = sc ? (int)(sc - st->conditions) : 0;
    }
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (row->phase != PHASE_TEST || row->correct < 0 || row->is_catch ||
            ds->participants[row->participant].excluded) {
            continue;
        }
        const Item *it = study_find_item(st, dataset_str(ds, row->item));
        int cell = -1;
        for (size_t k = 0; k < st->n_blocks; k++) {
            if (x.block_cell[k] >= 0 &&
                st->blocks[k].session == dataset_session(ds, row)) {
                cell = x.block_cell[k];
            }
        }
        if (!it || cell < 0) {
            continue;
        }
        if (push_resp(&b, row->participant, (int)(it - st->items), cell,
                      row->correct) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (rc == SIM_OK) {
        rc = test_accuracies(&x, &b, units, 0, NULL, est, NULL, err);
    }
    dataset_free(ds);
    buf_free(&b);
    sim_free(x.block_cell);
    study_free(st);
    return rc;
}

int power_run(const PowerOptions *o, PowerResult **out, SimError *err)
{
    *out = NULL;
    int rc = check_options(o, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    rc = study_load(o->bundle_dir, &st, &rep, err);
    for (size_t i = 0; rc != SIM_OK && i < rep.n_errors; i++) {
        study_diag_print(stderr, "", &rep.errors[i]);
    }
    study_report_free(&rep);
    if (rc != SIM_OK) {
        return rc;
    }
    Ctx x;
    memset(&x, 0, sizeof x);
    SimCell *cells = NULL;
    char **texts = NULL;
    PowerResult *r = sim_calloc(1, sizeof *r);
    int C = (int)st->n_conditions;
    x.o = o;
    x.study = st;
    x.total = o->n_sizes * o->studies;
    pthread_mutex_init(&x.lock, NULL);
    rc = r ? detect_design(st, &x, err)
           : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    if (rc == SIM_OK && o->n_pilots > 0 && x.test != POWER_TEST_CHANGE) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "--pilot: pilot data set the Pre and Post accuracies "
                      "of pre/post designs only; study '%s' has none (set "
                      "its accuracies with --p COND:test=P)",
                      st->id);
    }
    size_t n_res = (size_t)o->n_sizes * (size_t)o->studies * (size_t)C;
    if (rc == SIM_OK) {
        x.cond_ids = sim_calloc((size_t)C + 1, sizeof *x.cond_ids);
        x.reject = sim_calloc(n_res + 1, 1);
        x.estimate = sim_calloc(n_res + 1, sizeof(double));
        x.reps_used = sim_calloc((size_t)x.total + 1, sizeof(int));
        if (!x.cond_ids || !x.reject || !x.estimate || !x.reps_used) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (rc == SIM_OK) {
        r->opt = *o;
        r->opt.cells = NULL;
        r->opt.n_cells = 0;
        r->opt.pilots = NULL;
        r->opt.bundle_dir = NULL;
        r->test = x.test;
        r->n_sessions = x.n_cells;
        r->study_id = sim_strdup(st->id);
        r->baseline = x.test == POWER_TEST_CHANGE
                          ? NULL
                          : sim_strdup(st->conditions[x.base].id);
        r->conds = sim_calloc((size_t)C, sizeof *r->conds);
        if (!r->study_id || !r->conds ||
            (x.test != POWER_TEST_CHANGE && !r->baseline)) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        x.cond_ids[c] = st->conditions[c].id;
    }
    for (int k = 0; rc == SIM_OK && k < x.n_tests; k++) {
        PowerCondition *pc = &r->conds[r->n_conds++];
        pc->id = sim_strdup(st->conditions[x.tested[k]].id);
        pc->pilot_pre = pc->pilot_post = NAN;
        if (!pc->id) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (rc == SIM_OK) {
        rc = build_spec(o, st, r, &x.spec, &cells, &texts, err);
    }
    for (int k = 0; rc == SIM_OK && k < x.n_tests; k++) {
        PowerCondition *pc = &r->conds[k];
        const char *id = x.cond_ids[x.tested[k]];
        if (x.test == POWER_TEST_CHANGE) {
            pc->true_pre = policy_true_accuracy(&x.spec, id, "pre");
            pc->true_post = policy_true_accuracy(&x.spec, id, "post");
            pc->true_change = pc->true_post - pc->true_pre;
        } else {
            pc->true_pre =
                policy_true_accuracy(&x.spec, x.cond_ids[x.base], "test");
            pc->true_post = policy_true_accuracy(&x.spec, id, "test");
            pc->true_change = x.test == POWER_TEST_UTILITY
                                  ? pc->true_post / pc->true_pre
                                  : pc->true_post - pc->true_pre;
        }
        pc->null_effect = pc->true_pre == pc->true_post;
    }
    if (rc == SIM_OK) {
        r->participant_sd = x.spec.participant_sd;
        r->item_sd = x.spec.item_sd;
    }
    if (rc == SIM_OK) {
        rc = simulate_all(&x, err);
    }
    if (rc == SIM_OK) {
        rc = summarise(r, &x, err);
    }
    pthread_mutex_destroy(&x.lock);
    for (int i = 0; texts && i < o->n_cells; i++) {
        sim_free(texts[i]);
    }
    sim_free(texts);
    sim_free(cells);
    sim_free(x.cond_ids);
    sim_free(x.block_cell);
    sim_free(x.reject);
    sim_free(x.estimate);
    sim_free(x.reps_used);
    study_free(st);
    if (rc != SIM_OK) {
        power_free(r);
        return rc;
    }
    *out = r;
    return SIM_OK;
}
