/*
** simlab power's test of one simulated study (power_int.h): the
** full-sample statistic of simlab-analyze (teststat.h) and the curtailed
** crossed bootstrap (Change, Utility, difference), the paired t tests of a
** within-subject study, or the mixed model's Wald test (power_glmm.c); and
** whether the 95 % interval held the true value.
*/
#include "analysis/compute.h"
#include "analysis/power_int.h"
#include "analysis/teststat.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <math.h>
#include <string.h>

#define BATCH 100 /* bootstrap replicates per sequential step */

/* The largest count on the smaller side that still rejects at alpha with
** B valid replicates: 2 (1 + m) / (B + 1) <= alpha. */
static double reject_bound(double alpha, int B)
{
    return alpha * (B + 1) / 2.0 - 1.0;
}

void power_buf_free(PowerBuf *b)
{
    power_table_free(&b->table);
    power_table_free(&b->full);
    sim_free(b->rank);
    sim_free(b->pre);
    sim_free(b->post);
    sim_free(b->unit_off);
    sim_free(b->pairs);
    sim_free(b->item_map);
    sim_free(b->item_group);
    sim_free(b->tpairs);
    sim_free(b->key_map);
    sim_free(b->tgroup);
    sim_free(b->reps);
    memset(b, 0, sizeof *b);
}

static int buf_reserve(PowerBuf *b, size_t units, size_t n_items)
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
** stopping once every decision is certain (Besag-Clifford) unless keep is
** given: then all B replicates are drawn and kept there (B x n_stats). */
static int sequential_test(const PowerTestCtx *x, const BootDesign *bd,
                           BootRun *run, uint64_t study_seed, double null,
                           int positive, double *keep, unsigned char *reject,
                           double *p_out, int *reps_used, SimError *err)
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
        if (keep) {
            memcpy(keep + (size_t)used * (size_t)K, reps,
                   (size_t)run->replicates * (size_t)K * sizeof(double));
        }
        sim_free(reps);
        used += run->replicates;
        /* Besag-Clifford: stop once every condition's smaller side has
        ** more than the bound; no later replicate can bring p below alpha */
        int open = 0;
        for (int c = 0; c < K; c++) {
            open |= (lo[c] < hi[c] ? lo[c] : hi[c]) <= bound;
        }
        if (!open && !x->o->full_replicates && !keep && !p_out) {
            break;
        }
    }
    for (int c = 0; c < K; c++) {
        int m = lo[c] < hi[c] ? lo[c] : hi[c];
        double p = valid[c] > 0 ? 2.0 * (1.0 + m) / (valid[c] + 1.0) : 1.0;
        reject[c] = used == B && p <= x->o->alpha;
        if (p_out) { /* every replicate was drawn: the exact p */
            p_out[c] = valid[c] > 0 ? fmin(1.0, p) : NAN;
        }
    }
    if (reps_used) {
        *reps_used = used;
    }
    return SIM_OK;
}

/* The crossed design of the Utility and difference tests from the test
** answers of t: units are the participants within their condition (the
** strata), items are (session, item) drawn within their session, as
** simlab-analyze's Utility design. */
static int build_acc_design(const PowerDesign *pd, int items, PowerBuf *b,
                            BootDesign *d, SimError *err)
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
    d->items_per_condition = items == 1;
    d->items_fixed = items == 2;
    return SIM_OK;
}

/* The design of the Change test from the Pre and Post answers of t: the
** first answer per (participant, item, phase) counts; items answered in
** both phases by someone, numbered compactly; one cell per condition. */
static int build_change_design(const PowerDesign *pd, int items, PowerBuf *b,
                               BootDesign *d, SimError *err)
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
    d->items_per_condition = items == 1;
    d->items_fixed = items == 2;
    return SIM_OK;
}

/* The true value of tested condition k: the null's, or the design's
** (truth: on the statistic's scale, else the log-odds); NaN when unknown. */
static double truth_of(const PowerTestCtx *x, int k, int null_study, int logit)
{
    const double *t = logit ? x->d->truth_logit : x->d->truth;
    if (null_study) {
        return !logit && x->d->test == POWER_TEST_UTILITY ? 1.0 : 0.0;
    }
    return t ? t[k] : NAN;
}

/* Whether [lo, hi] holds the truth: 1, 0, or 2 when not measured. */
static unsigned char holds(double lo, double hi, double truth)
{
    if (isnan(truth) || isnan(lo) || isnan(hi)) {
        return 2;
    }
    return lo <= truth && truth <= hi;
}

/* Each participant's accuracy per condition over its answers (the callback
** gives those of the analysed phase), as within_accuracy() takes it:
** *acc owns n_participants x n_conds values, NaN where none. */
static int participant_accuracy(const PowerTestCtx *x, const PowerTable *t,
                                double **acc, SimError *err)
{
    int C = x->d->n_conds, n = t->n_participants;
    size_t cells = (size_t)n * (size_t)C + 1;
    double *a = sim_calloc(cells, sizeof(double));
    double *cnt = sim_calloc(cells, sizeof(double));
    *acc = NULL;
    if (!a || !cnt) {
        sim_free(a);
        sim_free(cnt);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < t->n_rows; i++) {
        const PowerAnswer *r = &t->rows[i];
        size_t at = (size_t)r->participant * (size_t)C + r->condition;
        a[at] += r->y;
        cnt[at] += 1;
    }
    for (size_t k = 0; k + 1 < cells; k++) {
        a[k] = cnt[k] > 0 ? a[k] / cnt[k] : NAN;
    }
    sim_free(cnt);
    *acc = a;
    return SIM_OK;
}

/* The repeated-measures ANOVA of simlab-analyze's within-subject report:
** stats_rm_anova() on the participants with an accuracy in every
** condition; the study rejects when its (uncorrected) p <= alpha, the p
** --calibrate measures. estimate: the partial eta squared. */
static int test_anova(const PowerTestCtx *x, const PowerTable *t,
                      PowerOutcome *out, SimError *err)
{
    int C = x->d->n_conds, n = 0;
    double *acc;
    int rc = participant_accuracy(x, t, &acc, err);
    if (rc != SIM_OK) {
        return rc;
    }
    for (int i = 0; i < t->n_participants; i++) {
        const double *row = acc + (size_t)i * (size_t)C;
        int complete = 1;
        for (int c = 0; c < C; c++) {
            complete &= !isnan(row[c]);
        }
        if (complete) {
            memmove(acc + (size_t)n * (size_t)C, row,
                    (size_t)C * sizeof(double));
            n++;
        }
    }
    RmAnovaResult a;
    int ok = stats_rm_anova(acc, n, C, &a) == 0;
    out->estimate[0] = ok ? a.partial_eta_sq : NAN;
    if (out->reject) {
        out->reject[0] = ok && a.p <= x->o->alpha; /* NaN: not detected */
    }
    if (out->p) { /* the report's primary test: Greenhouse-Geisser */
        out->p[0] = !ok ? NAN : isfinite(a.p_gg) ? a.p_gg : a.p;
    }
    sim_free(acc);
    return SIM_OK;
}

/* The one-way ANOVA of a between-subject study (simlab-analyze's, the
** primary test "anova"): participant accuracy on the test answers, or on
** the Post answers of a pre/post design, against the condition.
** estimate: eta squared. */
static int test_anova_between(const PowerTestCtx *x, const PowerTable *t,
                              PowerOutcome *out, SimError *err)
{
    int n = t->n_participants;
    double *y = sim_calloc(2 * ((size_t)n + 1), sizeof(double));
    int *g = sim_malloc(((size_t)n + 1) * sizeof(int));
    if (!y || !g) {
        sim_free(y);
        sim_free(g);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    double *cnt = y + n + 1;
    int want =
        x->d->test == POWER_TEST_CHANGE ? POWER_PHASE_POST : POWER_PHASE_TEST;
    for (size_t i = 0; i < t->n_rows; i++) {
        const PowerAnswer *r = &t->rows[i];
        if (r->phase == want) {
            y[r->participant] += r->y;
            cnt[r->participant] += 1;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (cnt[i] > 0) {
            y[m] = y[i] / cnt[i];
            g[m++] = t->cond_of[i];
        }
    }
    AnovaResult a;
    int ok = stats_anova(y, g, m, x->d->n_conds, &a) == 0;
    out->estimate[0] = ok ? a.eta_sq : NAN;
    if (out->reject) {
        out->reject[0] = ok && a.p <= x->o->alpha;
    }
    if (out->p) {
        out->p[0] = ok ? a.p : NAN;
    }
    sim_free(y);
    sim_free(g);
    return SIM_OK;
}

/* The paired test of a within-subject study: each participant's accuracy
** per condition over its answers (the callback gives those of the
** analysed phase), then the report's paired t tests against the baseline
** with Holm's adjustment; a condition is detected when its adjusted p is
** at most alpha. estimate: the mean paired difference, with its 95 % t
** interval for the coverage. */
static int test_paired(const PowerTestCtx *x, const PowerTable *t,
                       int null_study, PowerOutcome *out, SimError *err)
{
    int C = x->d->n_conds, n = t->n_participants;
    double *acc;
    int rc = participant_accuracy(x, t, &acc, err);
    double *ab = sim_malloc(2 * ((size_t)n + 1) * sizeof(double));
    PairedT res[POWER_MAX_CELLS];
    double p[POWER_MAX_CELLS], ph[POWER_MAX_CELLS];
    if (rc != SIM_OK || !ab) {
        sim_free(acc);
        sim_free(ab);
        return rc != SIM_OK ? rc
                            : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int m =
        within_paired_tests(acc, n, C, x->d->base, ab, ab + n + 1, res, p, ph);
    for (int k = 0; k < m && k < x->n_tests; k++) {
        out->estimate[k] = res[k].diff;
        if (out->reject) {
            out->reject[k] = ph[k] <= x->o->alpha; /* NaN: not detected */
        }
        if (out->p) {
            out->p[k] = p[k];
        }
        if (out->covered) {
            out->covered[k] =
                holds(res[k].lo, res[k].hi, truth_of(x, k, null_study, 0));
        }
    }
    sim_free(acc);
    sim_free(ab);
    return SIM_OK;
}

/* The mixed model's Wald test: p <= alpha rejects. */
static int test_glmm(const PowerTestCtx *x, const PowerBuf *b, int null_study,
                     PowerOutcome *out, SimError *err)
{
    double lo[POWER_MAX_CELLS], hi[POWER_MAX_CELLS], p[POWER_MAX_CELLS];
    int rc = power_glmm_test(x, b, out->estimate, lo, hi, p, err);
    for (int k = 0; rc == SIM_OK && k < x->n_tests; k++) {
        if (out->reject) {
            out->reject[k] = p[k] <= x->o->alpha; /* NaN: not detected */
        }
        if (out->p) {
            out->p[k] = p[k];
        }
        if (out->covered) {
            out->covered[k] =
                holds(lo[k], hi[k], truth_of(x, k, null_study, 1));
        }
    }
    return rc;
}

/* The 95 % percentile interval of each statistic from all B replicates
** (simlab-analyze's summary of a bootstrap column) against the truth. */
static int bootstrap_coverage(const PowerTestCtx *x, PowerBuf *b,
                              int null_study, unsigned char *covered,
                              SimError *err)
{
    int B = x->o->replicates, K = x->n_tests;
    double *tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    if (!tmp) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int utility = x->d->test == POWER_TEST_UTILITY;
    for (int k = 0; k < K; k++) {
        Summary sm;
        summarise(b->reps, B, K, k, utility ? 1.0 : 0.0, 0, utility, tmp, &sm);
        covered[k] = holds(sm.lo, sm.hi, truth_of(x, k, null_study, 0));
    }
    sim_free(tmp);
    return SIM_OK;
}

int power_test_study(const PowerTestCtx *x, PowerBuf *b, uint64_t study_seed,
                     int null_study, PowerOutcome *out, SimError *err)
{
    const PowerDesign *pd = x->d;
    int C = pd->n_conds;
    if (out->reps_used) {
        *out->reps_used = 0;
    }
    for (int k = 0; out->covered && k < x->n_tests; k++) {
        out->covered[k] = 2;
    }
    if (x->method == POWER_METHOD_GLMM) {
        return test_glmm(x, b, null_study, out, err);
    }
    if (x->method == POWER_METHOD_ANOVA) {
        return pd->within ? test_anova(x, &b->table, out, err)
                          : test_anova_between(x, &b->table, out, err);
    }
    if (pd->test == POWER_TEST_PAIRED) {
        return test_paired(x, &b->table, null_study, out, err);
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
    int items = x->method == POWER_METHOD_USERS ? 2 : x->o->items;
    int change = pd->test == POWER_TEST_CHANGE;
    int rc = change ? build_change_design(pd, items, b, &d, err)
                    : build_acc_design(pd, items, b, &d, err);
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
    rc = boot_full(&d, &run, out->estimate, err);
    if (rc != SIM_OK || !out->reject) {
        return rc;
    }
    cctx[1] = x->o->drop_singular;
    int utility = pd->test == POWER_TEST_UTILITY;
    int keep = x->o->coverage && out->covered;
    size_t need = (size_t)x->o->replicates * (size_t)x->n_tests + 1;
    if (keep &&
        sim_grow((void **)&b->reps, &b->cap_reps, need, sizeof(double)) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    rc = sequential_test(x, &d, &run, study_seed, utility ? 1.0 : 0.0, utility,
                         keep ? b->reps : NULL, out->reject, out->p,
                         out->reps_used, err);
    if (rc == SIM_OK && keep) {
        rc = bootstrap_coverage(x, b, null_study, out->covered, err);
    }
    return rc;
}
