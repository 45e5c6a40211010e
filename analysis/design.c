/*
** The users x items design shared by the change, Utility and ratings
** bootstraps: units, items and pairs collected from responses, then grouped
** by unit into a BootDesign; and the summary of one bootstrapped statistic
** (mean, percentile interval, p).
*/
#include "analysis/design.h"

#include <math.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"

int design_counts(const Screen *sc, const DatasetResponse *row)
{
    return sc->keep[row->participant] && !row->is_catch;
}

int design_scored(const Screen *sc, const DatasetResponse *row)
{
    return design_counts(sc, row) && row->phase != PHASE_PRACTICE;
}

void design_init(Design *x)
{
    memset(x, 0, sizeof *x);
    x->cur_unit = -1;
}

void design_free(Design *x)
{
    sim_free(x->unit_cond);
    sim_free(x->unit_stratum);
    sim_free(x->unit_part);
    sim_free(x->item_group);
    sim_free(x->unit_off);
    sim_free(x->pairs);
    sim_free(x->unit_cells);
    keymap_free(&x->units);
    keymap_free(&x->items);
    keymap_free(&x->pair_index);
    sim_free(x->raw);
    sim_free(x->set_cells);
    sim_free(x->item_stamp);
    sim_free(x->item_pair);
    memset(x, 0, sizeof *x);
    x->cur_unit = -1;
}

/* Unit of (participant, condition index); grows the unit arrays. */
static int unit_of(Design *x, int participant, int cond)
{
    int added;
    int u = keymap_get(&x->units, compute_key2(participant, cond), x->n_units,
                       &added);
    if (u < 0 || !added) {
        return u;
    }
    size_t c1 = x->cap_units, c2 = x->cap_units; /* both arrays grow alike */
    if ((size_t)x->n_units + 1 > x->cap_units) {
        if (sim_grow((void **)&x->unit_cond, &c1, (size_t)x->n_units + 1,
                     sizeof(int)) != 0 ||
            sim_grow((void **)&x->unit_part, &c2, (size_t)x->n_units + 1,
                     sizeof(int)) != 0) {
            return -1;
        }
        x->cap_units = c1 < c2 ? c1 : c2;
    }
    x->unit_cond[u] = cond;
    x->unit_part[u] = participant;
    x->n_units++;
    return u;
}

/* Item index of key; grows item_group. */
static int item_of(Design *x, uint64_t key, int group)
{
    int added;
    int j = keymap_get(&x->items, key, x->n_items, &added);
    if (j < 0 || !added) {
        return j;
    }
    if (sim_grow((void **)&x->item_group, &x->cap_items, (size_t)x->n_items + 1,
                 sizeof(int)) != 0) {
        return -1;
    }
    x->item_group[j] = group;
    x->n_items++;
    return j;
}

static long push_raw(Design *x, RawPair p)
{
    if (x->n_raw == x->cap_raw && sim_grow((void **)&x->raw, &x->cap_raw,
                                           x->n_raw + 1, sizeof *x->raw) != 0) {
        return -1;
    }
    x->raw[x->n_raw] = p;
    return (long)x->n_raw++;
}

long design_push(Design *x, int participant, int cond, uint64_t item_key,
                 int group, int cell, int ya, int yb)
{
    int u = unit_of(x, participant, cond);
    int j = item_of(x, item_key, group);
    if (u < 0 || j < 0) {
        return -1;
    }
    RawPair rp = {u, j, (uint8_t)cell, (uint8_t)ya, (uint8_t)yb};
    return push_raw(x, rp);
}

/* Turns on the pair index: every pair so far, by (unit, item). */
static int key_pairs(Design *x)
{
    x->pair_keyed = 1;
    for (size_t i = 0; i < x->n_raw; i++) {
        int added;
        if (keymap_get(&x->pair_index,
                       compute_key2(x->raw[i].unit, x->raw[i].item), (int)i,
                       &added) < 0) {
            return -1;
        }
    }
    return 0;
}

long design_pair(Design *x, int participant, int cond, uint64_t item_key,
                 int group, int cell)
{
    int n_units = x->n_units;
    int u = unit_of(x, participant, cond);
    int j = item_of(x, item_key, group);
    if (u < 0 || j < 0) {
        return -1;
    }
    if (!x->pair_keyed && u != x->cur_unit && u < n_units &&
        key_pairs(x) != 0) {
        return -1; /* a unit came back: its pairs may be anywhere */
    }
    x->cur_unit = u;
    if (!x->pair_keyed) {
        if ((size_t)j >= x->cap_stamps) {
            size_t c1 = x->cap_stamps, c2 = x->cap_stamps;
            if (sim_grow((void **)&x->item_stamp, &c1, (size_t)j + 1,
                         sizeof(int)) != 0 ||
                sim_grow((void **)&x->item_pair, &c2, (size_t)j + 1,
                         sizeof(int)) != 0) {
                return -1;
            }
            size_t c = c1 < c2 ? c1 : c2;
            for (size_t k = x->cap_stamps; k < c; k++) {
                x->item_stamp[k] = -1;
            }
            x->cap_stamps = c;
        }
        if (x->item_stamp[j] == u) {
            return x->item_pair[j];
        }
        RawPair rp = {u, j, (uint8_t)cell, 255, 255};
        long p = push_raw(x, rp);
        if (p >= 0) {
            x->item_stamp[j] = u;
            x->item_pair[j] = (int)p;
        }
        return p;
    }
    int added;
    int p =
        keymap_get(&x->pair_index, compute_key2(u, j), (int)x->n_raw, &added);
    if (p < 0) {
        return -1;
    }
    if (added) {
        RawPair rp = {u, j, (uint8_t)cell, 255, 255};
        return push_raw(x, rp);
    }
    return p;
}

int design_keep_answered(Design *x)
{
    size_t kept = 0;
    for (size_t i = 0; i < x->n_raw; i++) {
        if (x->raw[i].ya != 255 && x->raw[i].yb != 255) {
            x->raw[kept++] = x->raw[i];
        }
    }
    x->n_raw = kept;
    keymap_free(&x->pair_index); /* indices are stale now */
    /* renumber the items so that only those of the kept pairs remain */
    int *renum = sim_calloc((size_t)x->n_items + 1, sizeof(int));
    if (!renum) {
        return -1;
    }
    for (size_t i = 0; i < kept; i++) {
        renum[x->raw[i].item] = 1;
    }
    int n = 0;
    for (int j = 0; j < x->n_items; j++) {
        if (renum[j]) {
            x->item_group[n] = x->item_group[j];
            renum[j] = n++;
        }
    }
    for (size_t i = 0; i < kept; i++) {
        x->raw[i].item = renum[x->raw[i].item];
    }
    x->n_items = n;
    sim_free(renum);
    return 0;
}

/* Strata: (condition, cell signature) in order of first unit. */
static int assign_strata(Design *x, int *n_strata)
{
    KeyMap strata = {0};
    int n = 0, rc = 0;
    for (int u = 0; u < x->n_units; u++) {
        int added;
        uint64_t key = sim_mix64(x->unit_cells[u]) ^ (uint64_t)x->unit_cond[u];
        if (key == UINT64_MAX) {
            key = 0;
        }
        int s = keymap_get(&strata, key, n, &added);
        if (s < 0) {
            rc = -1;
            break;
        }
        n += added;
        x->unit_stratum[u] = s;
    }
    keymap_free(&strata);
    *n_strata = n;
    return rc;
}

int design_finish(Design *x, int n_conds, int n_cells, int n_groups,
                  const AnalyzeOptions *o, const uint64_t *set_cells,
                  int n_sets, SimError *err)
{
    int nu = x->n_units;
    size_t n_raw = x->n_raw;
    const RawPair *raw = x->raw;
    x->unit_off = sim_calloc((size_t)nu + 2, sizeof(size_t));
    x->pairs = sim_malloc((n_raw + 1) * sizeof *x->pairs);
    x->unit_cells = sim_calloc((size_t)nu + 1, sizeof(uint64_t));
    x->unit_stratum = sim_calloc((size_t)nu + 1, sizeof(int));
    size_t *fill = sim_malloc(((size_t)nu + 1) * sizeof *fill);
    if (!x->unit_off || !x->pairs || !x->unit_cells || !x->unit_stratum ||
        !fill) {
        sim_free(fill);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n_raw; i++) {
        x->unit_off[raw[i].unit + 1]++;
        x->unit_cells[raw[i].unit] |= (uint64_t)1 << raw[i].cell;
    }
    for (int u = 0; u < nu; u++) {
        x->unit_off[u + 1] += x->unit_off[u];
    }
    memcpy(fill, x->unit_off, (size_t)nu * sizeof *fill);
    for (size_t i = 0; i < n_raw; i++) {
        BootPair *bp = &x->pairs[fill[raw[i].unit]++];
        bp->item = raw[i].item;
        bp->cell = raw[i].cell;
        bp->ya = raw[i].ya;
        bp->yb = raw[i].yb;
    }
    sim_free(fill);
    int n_strata = 0;
    if (assign_strata(x, &n_strata) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    BootDesign *d = &x->d;
    d->n_units = nu;
    d->unit_cond = x->unit_cond;
    d->unit_stratum = x->unit_stratum;
    d->n_conds = n_conds;
    d->n_strata = n_strata;
    d->n_items = x->n_items;
    d->item_group = x->item_group;
    d->n_groups = n_groups;
    d->n_cells = n_cells;
    d->unit_off = x->unit_off;
    d->pairs = x->pairs;
    d->items_per_condition = o->items_per_condition;
    d->items_fixed = o->items_fixed;
    d->unit_block = x->unit_part; /* a participant in several conditions is
                                  ** drawn as one block */
    if (o->accuracy_participant && n_sets > 0) {
        x->set_cells = sim_malloc((size_t)n_sets * sizeof(uint64_t));
        if (!x->set_cells) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        memcpy(x->set_cells, set_cells, (size_t)n_sets * sizeof(uint64_t));
        d->n_sets = n_sets;
        d->set_cells = x->set_cells;
    }
    return SIM_OK;
}

BootRun design_run(const AnalyzeOptions *o, uint64_t seed, const char *label)
{
    BootRun run;
    memset(&run, 0, sizeof run);
    run.seed = seed;
    run.replicates = o->replicates;
    run.threads = o->threads;
    run.progress = o->progress;
    run.clock = o->clk;
    run.label = label;
    return run;
}

void summarise(const double *reps, int B, int stride, int col, double null,
               int p_hase, int log_scale, double *tmp, Summary *s)
{
    int m = 0;
    for (int b = 0; b < B; b++) {
        double x = reps[(size_t)b * (size_t)stride + (size_t)col];
        if (isfinite(x) && (!log_scale || x > 0)) {
            tmp[m++] = x;
        }
    }
    s->valid = m;
    if (m == 0) {
        s->mean = s->lo = s->hi = s->p = NAN;
        return;
    }
    double sum = 0;
    for (int i = 0; i < m; i++) {
        sum += tmp[i];
    }
    s->mean = sum / m;
    stats_sort(tmp, (size_t)m);
    s->lo = stats_quantile7(tmp, (size_t)m, 0.025);
    s->hi = stats_quantile7(tmp, (size_t)m, 0.975);
    if (log_scale) {
        for (int i = 0; i < m; i++) {
            tmp[i] = log(tmp[i]);
        }
        null = log(null);
    }
    if (p_hase) {
        for (int i = 0; i < m; i++) {
            tmp[i] -= null;
        }
        s->p = stats_p_hase(tmp, (size_t)m);
        if (s->p <= 0) {
            s->p = 1.0 / m; /* never report p = 0: it is below 1/B */
        }
    } else {
        s->p = stats_p_percentile(tmp, (size_t)m, null);
    }
}
