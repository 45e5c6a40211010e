/*
** The human effects that explanation metrics are compared with: the rows
** they are read from (Pre and Post, Test, or Test by session for Utility),
** compacted, and their re-estimation under a replicate's multiplicities of
** participants and items from pooled counts.
*/
#include "analysis/metrics_int.h"

#include <math.h>
#include <string.h>

#include "analysis/teststat.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

void mh_free(MhData *d)
{
    sim_free(d->part);
    sim_free(d->cond);
    sim_free(d->item);
    sim_free(d->y);
    sim_free(d->late);
    sim_free(d->stratum);
    for (int s = 0; d->members && s < d->n_strata; s++) {
        sim_free(d->members[s]);
    }
    sim_free(d->members);
    sim_free(d->n_members);
    sim_free(d->items);
    memset(d, 0, sizeof *d);
}

/* The cell of session t among the report's sessions (-1: none). */
static int session_cell(const Report *r, int t)
{
    for (int k = 0; k < r->n_sessions; k++) {
        if (r->sessions[k] == t) {
            return k;
        }
    }
    return -1;
}

/* The kept, answered, non-catch rows of the phases the effect is read
** from: Pre and Post when the data have both, else Test, else Post; for
** Utility (kind EFFECT_UTILITY) the Test rows by session, as the Utility
** table reads them. */
int mh_build(const Dataset *ds, const Screen *sc, const Report *r, int kind,
             MhData *d)
{
    memset(d, 0, sizeof *d);
    int have[PHASE_COUNT] = {0};
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *x = &ds->rows[i];
        if (sc->keep[x->participant] && !x->is_catch && x->correct >= 0) {
            have[x->phase] = 1;
        }
    }
    int utility = kind == EFFECT_UTILITY;
    d->prepost = !utility && have[PHASE_PRE] && have[PHASE_POST];
    int late =
        utility || (have[PHASE_TEST] && !d->prepost) ? PHASE_TEST : PHASE_POST;
    d->C = sc->n_conds;
    d->base = sc->base;
    d->kind = kind;
    d->K = utility ? r->n_sessions : 2;
    d->rule = r->opt.utility_rule;
    size_t np = (size_t)ds->n_participants;
    int *pidx = sim_malloc((np + 1) * sizeof *pidx);
    unsigned max_item = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        max_item = ds->rows[i].item > max_item ? ds->rows[i].item : max_item;
    }
    int *iidx = sim_malloc(((size_t)max_item + 1) * sizeof *iidx);
    d->part = sim_malloc((ds->n_rows + 1) * sizeof *d->part);
    d->cond = sim_malloc((ds->n_rows + 1) * sizeof *d->cond);
    d->item = sim_malloc((ds->n_rows + 1) * sizeof *d->item);
    d->y = sim_malloc(ds->n_rows + 1);
    d->late = sim_malloc((ds->n_rows + 1) * sizeof *d->late);
    d->stratum = sim_malloc((np + 1) * sizeof *d->stratum);
    d->items = sim_malloc((ds->n_rows + 1) * sizeof *d->items);
    if (!pidx || !iidx || !d->part || !d->cond || !d->item || !d->y ||
        !d->late || !d->stratum || !d->items) {
        sim_free(pidx);
        sim_free(iidx);
        return -1;
    }
    for (size_t p = 0; p < np; p++) {
        pidx[p] = -1;
    }
    for (size_t i = 0; i <= max_item; i++) {
        iidx[i] = -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *x = &ds->rows[i];
        int c = sc->cond_index[x->condition];
        int ph = x->phase;
        int use =
            d->prepost ? (ph == PHASE_PRE || ph == PHASE_POST) : ph == late;
        int cell =
            utility ? session_cell(r, dataset_session(ds, x)) : ph != PHASE_PRE;
        if (!sc->keep[x->participant] || x->is_catch || x->correct < 0 ||
            !use || c < 0 || cell < 0) {
            continue;
        }
        int p = x->participant;
        if (pidx[p] < 0) {
            pidx[p] = d->n_part;
            d->stratum[d->n_part++] =
                sc->within ? 0 : sc->cond_index[ds->participants[p].condition];
        }
        if (iidx[x->item] < 0) {
            iidx[x->item] = d->n_item;
            d->items[d->n_item++] = dataset_str(ds, (int)x->item);
        }
        d->part[d->n] = pidx[p];
        d->cond[d->n] = c;
        d->item[d->n] = iidx[x->item];
        d->y[d->n] = (uint8_t)x->correct;
        d->late[d->n] = cell;
        d->n++;
    }
    sim_free(pidx);
    sim_free(iidx);
    d->n_strata = sc->within ? 1 : d->C;
    d->members = sim_calloc((size_t)d->n_strata + 1, sizeof *d->members);
    d->n_members = sim_calloc((size_t)d->n_strata + 1, sizeof *d->n_members);
    if (!d->members || !d->n_members) {
        return -1;
    }
    for (int s = 0; s < d->n_strata; s++) {
        d->members[s] = sim_malloc(((size_t)d->n_part + 1) * sizeof(int));
        if (!d->members[s]) {
            return -1;
        }
    }
    for (int p = 0; p < d->n_part; p++) {
        int s = d->stratum[p] < 0 ? 0 : d->stratum[p];
        d->members[s][d->n_members[s]++] = p;
    }
    return 0;
}

/* Draws the multiplicities of replicate b: participants within their
** strata, items among all items. */
void mh_draw(const MhData *d, uint64_t seed, int b, double *u, double *v)
{
    SimRng rng;
    sim_rng_seed_stream(&rng, seed ^ 0x6d6574726963ULL, (uint64_t)b);
    memset(u, 0, (size_t)d->n_part * sizeof *u);
    memset(v, 0, (size_t)d->n_item * sizeof *v);
    for (int s = 0; s < d->n_strata; s++) {
        int m = d->n_members[s];
        for (int k = 0; k < m; k++) {
            u[d->members[s][sim_rng_below(&rng, (uint64_t)m)]] += 1;
        }
    }
    for (int k = 0; k < d->n_item; k++) {
        v[sim_rng_below(&rng, (uint64_t)d->n_item)] += 1;
    }
}

/* Empirical logit of s successes in n trials (finite at 0 and n). */
static double elogit(double s, double n)
{
    return log((s + 0.5) / (n - s + 0.5));
}

/* The doubles mh_effects() needs in sum. */
size_t mh_sum_size(const MhData *d)
{
    /* the cell sums s and n, then 2 C K of work (Utility) or C effects */
    return 4 * (size_t)d->C * (size_t)d->K + (size_t)d->C + 1;
}

/* Utility per condition from the cell sums s, n [C x K] (pooled session
** accuracies) into eff (NaN for the baseline); work holds 2 C K doubles. */
static void mh_utility(const MhData *d, const double *s, const double *n,
                       double *work, double *eff)
{
    size_t CK = (size_t)d->C * (size_t)d->K;
    for (size_t k = 0; k < CK; k++) {
        work[k] = n[k] > 0 ? s[k] / n[k] : (double)NAN;
    }
    utility_from_accuracy(work, d->C, d->K, d->base, d->rule, work + CK, eff);
    eff[d->base] = NAN;
}

/* The effect of every condition against the baseline under weights u, v
** (NULL: all 1) into eff[C] (NaN for the baseline and where undefined);
** sum holds mh_sum_size() doubles. */
void mh_effects(const MhData *d, const double *u, const double *v, double *sum,
                double *eff)
{
    int C = d->C;
    size_t CK = (size_t)C * (size_t)d->K;
    double *s = sum, *n = sum + CK, *e = sum + 2 * CK;
    memset(sum, 0, 2 * CK * sizeof *sum);
    for (int i = 0; i < d->n; i++) {
        double w = (u ? u[d->part[i]] : 1) * (v ? v[d->item[i]] : 1);
        int k = d->K * d->cond[i] + d->late[i];
        s[k] += w * d->y[i];
        n[k] += w;
    }
    for (int c = 0; c < C; c++) {
        eff[c] = NAN;
    }
    int b = d->base;
    if (b < 0) {
        return;
    }
    if (d->kind == EFFECT_UTILITY) {
        mh_utility(d, s, n, e, eff);
        return;
    }
    for (int c = 0; c < C; c++) {
        double s1 = s[2 * c + 1], n1 = n[2 * c + 1];
        double s0 = s[2 * c], n0 = n[2 * c];
        if (n1 <= 0 || (d->prepost && n0 <= 0)) {
            e[c] = NAN;
        } else if (d->kind == EFFECT_LOGIT) {
            e[c] = elogit(s1, n1) - (d->prepost ? elogit(s0, n0) : 0);
        } else {
            e[c] = s1 / n1 - (d->prepost ? s0 / n0 : 0);
        }
    }
    for (int c = 0; c < C; c++) {
        if (c == b) {
            continue;
        }
        if (d->kind == EFFECT_RATIO) {
            eff[c] = e[b] > 0 ? e[c] / e[b] : (double)NAN;
        } else {
            eff[c] = e[c] - e[b];
        }
    }
}
