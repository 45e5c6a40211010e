/*
** The analysis pipeline: participant screening, the accuracy-change table
** (crossed bootstrap, random-effects Pre), the Utility table, ANOVA with
** Tukey-Kramer, ratings with the logistic regression, and reaction times.
** Pure computation on a Dataset; file output lives in the report writers.
*/
#include "analysis/analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/boot.h"
#include "analysis/keymap.h"
#include "analysis/hase2020.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

void analyze_options_default(AnalyzeOptions *o)
{
    memset(o, 0, sizeof *o);
    o->replicates = 10000;
    o->seed = 1;
    o->threads = 1;
    o->baseline = "baseline";
    o->utility_rule = UTILITY_MEAN;
    o->max_catch_failures = -1;
    o->formats = FORMAT_MD | FORMAT_TEX | FORMAT_CSV | FORMAT_JSON;
    o->plots = PLOT_PNG | PLOT_SVG | PLOT_PDF;
    o->progress = 1;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static uint64_t key2(int a, int b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

static char *dup_or_empty(const char *s)
{
    return sim_strdup(s ? s : "");
}

/* Summary of one bootstrap column. */
typedef struct Summary {
    double mean, lo, hi, p;
    int valid;
} Summary;

static void summarise(const double *reps, int B, int stride, int col,
                      double null, int p_hase, int log_scale, double *tmp,
                      Summary *s)
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

/* ------------------------------------------------------------------ */
/* Screening                                                            */

typedef struct Screen {
    int *keep;  /* per participant */
    int *conds; /* condition string ids, baseline first */
    int n_conds;
    int base;        /* condition index of the baseline (0), or -1 */
    int *cond_index; /* string id -> condition index, or -1 */
    int n_strings;
} Screen;

static void screen_free(Screen *s)
{
    sim_free(s->keep);
    sim_free(s->conds);
    sim_free(s->cond_index);
}

static int add_exclusion(Report *r, const char *cond, const char *reason)
{
    for (int i = 0; i < r->n_exclusions; i++) {
        if (strcmp(r->exclusions[i].condition, cond) == 0 &&
            strcmp(r->exclusions[i].reason, reason) == 0) {
            r->exclusions[i].participants++;
            return 0;
        }
    }
    size_t cap = (size_t)r->n_exclusions;
    if (sim_grow((void **)&r->exclusions, &cap, cap + 1,
                 sizeof *r->exclusions) != 0) {
        return -1;
    }
    ExclusionRow *e = &r->exclusions[r->n_exclusions++];
    e->condition = dup_or_empty(cond);
    e->reason = dup_or_empty(reason);
    e->participants = 1;
    return e->condition && e->reason ? 0 : -1;
}

static int condition_rank(const Report *r, const char *cond)
{
    for (int c = 0; c < r->n_counts; c++) {
        if (strcmp(r->counts[c].condition, cond) == 0) {
            return c;
        }
    }
    return r->n_counts;
}

/* Orders the exclusion rows by condition (as in the counts), then reason. */
static void sort_exclusions(Report *r)
{
    for (int i = 1; i < r->n_exclusions; i++) {
        ExclusionRow x = r->exclusions[i];
        int rank = condition_rank(r, x.condition);
        int j = i;
        while (j > 0) {
            const ExclusionRow *y = &r->exclusions[j - 1];
            int ry = condition_rank(r, y->condition);
            if (ry < rank || (ry == rank && strcmp(y->reason, x.reason) <= 0)) {
                break;
            }
            r->exclusions[j] = r->exclusions[j - 1];
            j--;
        }
        r->exclusions[j] = x;
    }
}

static int screen_participants(const Dataset *ds, const AnalyzeOptions *o,
                               Report *r, Screen *s, SimError *err)
{
    int np = ds->n_participants;
    memset(s, 0, sizeof *s);
    /* condition ids are string ids: size the lookup by the largest one */
    int max_id = 0;
    for (int p = 0; p < np; p++) {
        max_id = ds->participants[p].condition > max_id
                     ? ds->participants[p].condition
                     : max_id;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        max_id =
            ds->rows[i].condition > max_id ? ds->rows[i].condition : max_id;
    }
    s->n_strings = max_id + 1;
    s->keep = sim_calloc((size_t)np + 1, sizeof(int));
    s->cond_index = sim_malloc((size_t)s->n_strings * sizeof(int));
    s->conds = sim_malloc((size_t)s->n_strings * sizeof(int));
    int *catch_fail = sim_calloc((size_t)np + 1, sizeof(int));
    if (!s->keep || !s->cond_index || !s->conds || !catch_fail) {
        sim_free(catch_fail);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < s->n_strings; i++) {
        s->cond_index[i] = -1;
    }
    /* conditions: baseline first, then in order of first appearance */
    int base = dataset_find(ds, o->baseline);
    s->base = -1;
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (ds->rows[i].condition == base && s->cond_index[base] < 0) {
            s->base = s->cond_index[base] = s->n_conds;
            s->conds[s->n_conds++] = base;
        }
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        int c = ds->rows[i].condition;
        if (s->cond_index[c] < 0) {
            s->cond_index[c] = s->n_conds;
            s->conds[s->n_conds++] = c;
        }
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *x = &ds->rows[i];
        if (x->is_catch && x->correct == 0) {
            catch_fail[x->participant]++;
        }
    }
    r->counts = sim_calloc((size_t)s->n_conds + 1, sizeof *r->counts);
    if (!r->counts) {
        sim_free(catch_fail);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r->n_counts = s->n_conds;
    for (int c = 0; c < s->n_conds; c++) {
        r->counts[c].condition = dup_or_empty(dataset_str(ds, s->conds[c]));
    }
    int rc = SIM_OK;
    for (int p = 0; p < np && rc == SIM_OK; p++) {
        const Participant *pp = &ds->participants[p];
        int c = s->cond_index[pp->condition];
        const char *cname = dataset_str(ds, pp->condition);
        const char *why = NULL;
        char reason[128];
        if (pp->pilot && !o->include_pilot) {
            why = "pilot";
        } else if (pp->simulated && !o->include_simulated) {
            why = "simulated";
        } else {
            const char *engine = dataset_str(ds, pp->reason);
            int engine_catch = strstr(engine, "catch") != NULL;
            if (pp->excluded && !(o->max_catch_failures >= 0 && engine_catch)) {
                snprintf(reason, sizeof reason, "%s",
                         engine[0] ? engine : "excluded");
                why = reason;
            } else if (o->max_catch_failures >= 0 &&
                       catch_fail[p] > o->max_catch_failures) {
                why = "catch";
            }
        }
        r->counts[c].enrolled++;
        if (why) {
            if (add_exclusion(r, cname, why) != 0) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
        } else {
            s->keep[p] = 1;
            r->counts[c].analysed++;
        }
    }
    sim_free(catch_fail);
    sort_exclusions(r);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Units, items and pairs for one bootstrap design                      */

typedef struct Design {
    BootDesign d;
    int *unit_cond, *unit_stratum, *unit_part;
    int *item_group;
    size_t *unit_off;
    BootPair *pairs;
    int n_units, n_items;
    uint64_t *unit_cells; /* cell signature of each unit */
} Design;

static void design_free(Design *x)
{
    sim_free(x->unit_cond);
    sim_free(x->unit_stratum);
    sim_free(x->unit_part);
    sim_free(x->item_group);
    sim_free(x->unit_off);
    sim_free(x->pairs);
    sim_free(x->unit_cells);
    memset(x, 0, sizeof *x);
}

/* A raw pair before grouping by unit. */
typedef struct RawPair {
    int unit, item;
    uint8_t cell, ya, yb;
} RawPair;

/* Groups raw pairs by unit and fills the BootDesign; strata are (condition,
** cell signature). item_group_of gives each item's draw group. */
static int design_finish(Design *x, RawPair *raw, size_t n_raw, int n_conds,
                         int n_cells, int n_groups, SimError *err)
{
    int nu = x->n_units;
    x->unit_off = sim_calloc((size_t)nu + 2, sizeof(size_t));
    x->pairs = sim_malloc((n_raw + 1) * sizeof *x->pairs);
    x->unit_cells = sim_calloc((size_t)nu + 1, sizeof(uint64_t));
    x->unit_stratum = sim_calloc((size_t)nu + 1, sizeof(int));
    if (!x->unit_off || !x->pairs || !x->unit_cells || !x->unit_stratum) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n_raw; i++) {
        x->unit_off[raw[i].unit + 1]++;
        x->unit_cells[raw[i].unit] |= (uint64_t)1 << raw[i].cell;
    }
    for (int u = 0; u < nu; u++) {
        x->unit_off[u + 1] += x->unit_off[u];
    }
    size_t *fill = sim_malloc(((size_t)nu + 1) * sizeof *fill);
    if (!fill) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
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
    /* strata: (condition, signature) in order of first unit */
    KeyMap strata = {0};
    int n_strata = 0;
    int rc = SIM_OK;
    for (int u = 0; u < nu; u++) {
        int added;
        uint64_t key = sim_mix64(x->unit_cells[u]) ^ (uint64_t)x->unit_cond[u];
        if (key == UINT64_MAX) {
            key = 0;
        }
        int s = keymap_get(&strata, key, n_strata, &added);
        if (s < 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        n_strata += added;
        x->unit_stratum[u] = s;
    }
    keymap_free(&strata);
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
    return rc;
}

/* Unit of (participant, condition index); grows the unit arrays. */
static int unit_of(Design *x, KeyMap *units, int participant, int cond,
                   size_t *cap)
{
    int added;
    int u = keymap_get(units, key2(participant, cond), x->n_units, &added);
    if (u < 0 || !added) {
        return u;
    }
    size_t c1 = *cap, c2 = *cap; /* both arrays grow alike */
    if ((size_t)x->n_units + 1 > *cap) {
        if (sim_grow((void **)&x->unit_cond, &c1, (size_t)x->n_units + 1,
                     sizeof(int)) != 0 ||
            sim_grow((void **)&x->unit_part, &c2, (size_t)x->n_units + 1,
                     sizeof(int)) != 0) {
            return -1;
        }
        *cap = c1 < c2 ? c1 : c2;
    }
    x->unit_cond[u] = cond;
    x->unit_part[u] = participant;
    x->n_units++;
    return u;
}

/* Item index of key (a string id combination); grows item_group. */
static int item_of(Design *x, KeyMap *items, uint64_t key, int group,
                   size_t *cap)
{
    int added;
    int j = keymap_get(items, key, x->n_items, &added);
    if (j < 0 || !added) {
        return j;
    }
    if (sim_grow((void **)&x->item_group, cap, (size_t)x->n_items + 1,
                 sizeof(int)) != 0) {
        return -1;
    }
    x->item_group[j] = group;
    x->n_items++;
    return j;
}

/* Renumbers the items so that only those of the n pairs remain (in their
** order): an item whose pairs were all dropped must not be drawn with the
** others of its group. Returns 0, or -1 when out of memory. */
static int drop_unpaired_items(Design *x, RawPair *raw, size_t n)
{
    int *renum = sim_calloc((size_t)x->n_items + 1, sizeof(int));
    if (!renum) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        renum[raw[i].item] = 1;
    }
    int kept = 0;
    for (int j = 0; j < x->n_items; j++) {
        if (renum[j]) {
            x->item_group[kept] = x->item_group[j];
            renum[j] = kept++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        raw[i].item = renum[raw[i].item];
    }
    x->n_items = kept;
    sim_free(renum);
    return 0;
}

static int push_raw(RawPair **raw, size_t *n, size_t *cap, RawPair p)
{
    if (*n == *cap && sim_grow((void **)raw, cap, *n + 1, sizeof **raw) != 0) {
        return -1;
    }
    (*raw)[(*n)++] = p;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Accuracy change                                                      */

typedef struct ChangeCtx {
    int n_conds, n_cells, n_subsets;
    const uint64_t *subset_cells;
    int drop_singular;
    int participant; /* --accuracy participant */
    int full;        /* output the extended full-sample vector */
} ChangeCtx;

/* Replicate vector: [s * C + c] change, then [S * C + s] singular flag.
** Full vector: per (s, c) 5 values: pre_raw, pre_re, post, change, n; then
** per s: beta0, sigma, singular. */
static void change_stat(const void *vctx, const BootSums *sums, void *scratch,
                        double *out)
{
    const ChangeCtx *x = vctx;
    int C = x->n_conds;
    double *sn = scratch, *spre = sn + C, *spost = spre + C, *pre = spost + C,
           *eta = pre + C; /* 4 C doubles of workspace */
    for (int s = 0; s < x->n_subsets; s++) {
        for (int c = 0; c < C; c++) {
            sn[c] = spre[c] = spost[c] = 0;
            for (int k = 0; k < x->n_cells; k++) {
                if ((x->subset_cells[s] >> k) & 1) {
                    size_t at = (size_t)c * (size_t)x->n_cells + (size_t)k;
                    sn[c] += sums->n[at];
                    spre[c] += sums->sa[at];
                    spost[c] += sums->sb[at];
                }
            }
        }
        ReFit fit;
        int ok = stats_re_fit(spre, sn, C, eta, pre, &fit);
        int singular = ok != 0 || fit.singular;
        int drop = singular && x->drop_singular;
        for (int c = 0; c < C; c++) {
            double post, pre_raw;
            if (x->participant) {
                size_t at = (size_t)c * (size_t)x->n_subsets + (size_t)s;
                double pu = sums->pu[at];
                pre_raw = pu > 0 ? sums->pa[at] / pu : NAN;
                post = pu > 0 ? sums->pb[at] / pu : NAN;
            } else {
                pre_raw = sn[c] > 0 ? spre[c] / sn[c] : NAN;
                post = sn[c] > 0 ? spost[c] / sn[c] : NAN;
            }
            double change = x->participant ? post - pre_raw : post - pre[c];
            if (drop || !(sn[c] > 0)) {
                change = NAN;
            }
            if (x->full) {
                double *o = out + ((size_t)s * (size_t)C + (size_t)c) * 5;
                o[0] = pre_raw;
                o[1] = pre[c];
                o[2] = post;
                o[3] = sn[c] > 0
                           ? (x->participant ? post - pre_raw : post - pre[c])
                           : NAN;
                o[4] = sn[c];
            } else {
                out[(size_t)s * (size_t)C + (size_t)c] = change;
            }
        }
        if (x->full) {
            double *o =
                out + (size_t)x->n_subsets * (size_t)C * 5 + (size_t)s * 3;
            o[0] = fit.beta0;
            o[1] = fit.sigma;
            o[2] = singular;
        } else {
            out[(size_t)x->n_subsets * (size_t)C + (size_t)s] = singular;
        }
    }
}

typedef struct SubsetDef {
    char name[160];
    uint64_t cells;
    int alias_of; /* index of an earlier subset with the same cells, or -1 */
} SubsetDef;

static int compute_change(const Dataset *ds, const AnalyzeOptions *o,
                          const Screen *sc, Report *r, SimError *err)
{
    Design x;
    memset(&x, 0, sizeof x);
    KeyMap units = {0}, items = {0}, pairs = {0}, cells = {0};
    RawPair *raw = NULL;
    size_t n_raw = 0, cap_raw = 0, cap_units = 0, cap_items = 0;
    int *cell_domain = NULL, *cell_type = NULL;
    size_t cap_cells = 0;
    int n_cells = 0;
    SubsetDef *subs = NULL;
    int *dist = NULL; /* subset -> index among the distinct subsets */
    double *full = NULL, *reps = NULL, *tmp = NULL;
    uint64_t *sub_cells = NULL;
    int rc = SIM_OK;
    int C = sc->n_conds;

    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!sc->keep[row->participant] || row->correct < 0 ||
            (row->phase != PHASE_PRE && row->phase != PHASE_POST)) {
            continue;
        }
        int added;
        int cell = keymap_get(&cells, key2(row->domain, row->test_type),
                              n_cells, &added);
        if (cell < 0) {
            goto nomem;
        }
        if (added) {
            if (n_cells >= BOOT_MAX_CELLS) {
                rc = sim_fail(err, SIM_ERR_INVALID,
                              "more than %d domain x test_type combinations",
                              BOOT_MAX_CELLS);
                goto cleanup;
            }
            size_t c2 = cap_cells;
            if (sim_grow((void **)&cell_domain, &cap_cells, (size_t)n_cells + 1,
                         sizeof(int)) != 0 ||
                sim_grow((void **)&cell_type, &c2, (size_t)n_cells + 1,
                         sizeof(int)) != 0) {
                goto nomem;
            }
            cap_cells = c2 < cap_cells ? c2 : cap_cells;
            cell_domain[n_cells] = row->domain;
            cell_type[n_cells] = row->test_type;
            n_cells++;
        }
        int u = unit_of(&x, &units, row->participant,
                        sc->cond_index[row->condition], &cap_units);
        /* items are keyed by (cell, item): ids may repeat across domains */
        int j = item_of(&x, &items, key2(cell, row->item), cell, &cap_items);
        if (u < 0 || j < 0) {
            goto nomem;
        }
        int p = keymap_get(&pairs, key2(u, j), (int)n_raw, &added);
        if (p < 0) {
            goto nomem;
        }
        if (added) {
            RawPair rp = {u, j, (uint8_t)cell, 255, 255};
            if (push_raw(&raw, &n_raw, &cap_raw, rp) != 0) {
                goto nomem;
            }
        }
        /* the first answer in each phase counts */
        uint8_t *slot = row->phase == PHASE_PRE ? &raw[p].ya : &raw[p].yb;
        if (*slot == 255) {
            *slot = (uint8_t)row->correct;
        }
    }
    /* keep pairs answered in both phases */
    size_t kept = 0;
    for (size_t i = 0; i < n_raw; i++) {
        if (raw[i].ya != 255 && raw[i].yb != 255) {
            raw[kept++] = raw[i];
        }
    }
    n_raw = kept;
    if (n_raw == 0) {
        goto cleanup; /* no pre/post data: no change table */
    }
    if (drop_unpaired_items(&x, raw, n_raw) != 0) {
        goto nomem;
    }
    if ((rc = design_finish(&x, raw, n_raw, C, n_cells, n_cells, err))) {
        goto cleanup;
    }
    x.d.items_per_condition = o->items_per_condition;
    x.d.items_fixed = o->items_fixed;

    /* subsets: all, each domain, each test type (with 2+ values) */
    subs = sim_calloc((size_t)(2 * n_cells + 1), sizeof *subs);
    if (!subs) {
        goto nomem;
    }
    int S = 0;
    uint64_t all = n_cells == 64 ? UINT64_MAX : (((uint64_t)1 << n_cells) - 1);
    snprintf(subs[S].name, sizeof subs[S].name, "all");
    subs[S].cells = all;
    subs[S].alias_of = -1;
    S++;
    for (int pass = 0; pass < 2; pass++) {
        const int *attr = pass == 0 ? cell_domain : cell_type;
        for (int k = 0; k < n_cells; k++) {
            if (attr[k] == 0) {
                continue; /* empty domain or test type */
            }
            int seen = 0;
            for (int k2 = 0; k2 < k; k2++) {
                seen |= attr[k2] == attr[k];
            }
            if (seen) {
                continue;
            }
            uint64_t m = 0;
            for (int k2 = 0; k2 < n_cells; k2++) {
                if (attr[k2] == attr[k]) {
                    m |= (uint64_t)1 << k2;
                }
            }
            snprintf(subs[S].name, sizeof subs[S].name, "%s=%.120s",
                     pass == 0 ? "domain" : "test_type",
                     dataset_str(ds, attr[k]));
            subs[S].cells = m;
            subs[S].alias_of = -1;
            for (int s2 = 0; s2 < S; s2++) {
                if (subs[s2].cells == m && subs[S].alias_of < 0) {
                    subs[S].alias_of = s2;
                }
            }
            S++;
        }
    }
    /* distinct subsets are computed; aliases copy their results */
    dist = sim_malloc((size_t)S * sizeof(int));
    sub_cells = sim_malloc((size_t)S * sizeof(uint64_t));
    if (!dist || !sub_cells) {
        goto nomem;
    }
    int D = 0;
    for (int s = 0; s < S; s++) {
        if (subs[s].alias_of < 0) {
            dist[s] = D;
            sub_cells[D++] = subs[s].cells;
        } else {
            dist[s] = dist[subs[s].alias_of];
        }
    }
    if (o->accuracy_participant) {
        x.d.n_sets = D;
        x.d.set_cells = sub_cells;
    }
    full = sim_calloc((size_t)D * ((size_t)C * 5 + 3), sizeof(double));
    if (!full) {
        goto nomem;
    }
    ChangeCtx ctx = {
        C, n_cells, D, sub_cells, o->drop_singular, o->accuracy_participant, 1};
    BootRun run = {0};
    run.seed = o->seed;
    run.replicates = o->replicates;
    run.threads = o->threads;
    run.progress = o->progress;
    run.label = "change";
    run.stat = change_stat;
    run.ctx = &ctx;
    run.scratch_size = (size_t)C * 8 * sizeof(double);
    run.n_stats = D * C * 5 + D * 3;
    if ((rc = boot_full(&x.d, &run, full, err))) {
        goto cleanup;
    }
    ctx.full = 0;
    run.n_stats = D * C + D;
    int B = o->replicates;
    if (B > 0) {
        if (o->boot_hase2020) {
            rc = hase2020_run(&x.d, sub_cells, D, o, &reps, err);
        } else {
            rc = boot_run(&x.d, &run, &reps, err);
        }
        if (rc) {
            goto cleanup;
        }
    }
    tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    r->change = sim_calloc((size_t)S * (size_t)C, sizeof *r->change);
    r->re = sim_calloc((size_t)S, sizeof *r->re);
    if (!tmp || !r->change || !r->re) {
        goto nomem;
    }
    /* participants and responses per (subset, condition) */
    for (int s = 0; s < S; s++) {
        int ds_ = dist[s];
        ReRow *re = &r->re[r->n_re++];
        const double *f = full + (size_t)D * (size_t)C * 5 + (size_t)ds_ * 3;
        re->subset = sim_strdup(subs[s].name);
        re->same_as = subs[s].alias_of >= 0
                          ? sim_strdup(subs[subs[s].alias_of].name)
                          : NULL;
        re->beta0 = f[0];
        re->sigma = f[1];
        re->singular = f[2] != 0;
        int singular_reps = 0;
        for (int b = 0; b < B; b++) {
            singular_reps +=
                reps[(size_t)b * (size_t)(D * C + D) + (size_t)(D * C + ds_)] !=
                0;
        }
        double tot_pre = 0, tot_n = 0;
        for (int c = 0; c < C; c++) {
            int n_resp = 0, n_part = 0;
            for (int u = 0; u < x.n_units; u++) {
                if (x.unit_cond[u] != c) {
                    continue;
                }
                int any = 0;
                for (size_t p = x.unit_off[u]; p < x.unit_off[u + 1]; p++) {
                    if ((subs[s].cells >> x.pairs[p].cell) & 1) {
                        n_resp++;
                        any = 1;
                        tot_pre += x.pairs[p].ya;
                        tot_n += 1;
                    }
                }
                n_part += any;
            }
            re->n_responses += n_resp;
            re->n_participants += n_part;
            if (n_resp == 0) {
                continue;
            }
            const double *fc = full + ((size_t)ds_ * (size_t)C + (size_t)c) * 5;
            ChangeRow *row = &r->change[r->n_change++];
            row->subset = sim_strdup(subs[s].name);
            row->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
            row->n_responses = n_resp;
            row->n_participants = n_part;
            row->pre_raw = fc[0];
            row->pre_re = fc[1];
            row->post = fc[2];
            row->change = fc[3];
            Summary sm = {NAN, NAN, NAN, NAN, 0};
            if (B > 0) {
                summarise(reps, B, D * C + D, ds_ * C + c, 0.0, o->p_hase, 0,
                          tmp, &sm);
            }
            row->boot_mean = sm.mean;
            row->ci_low = sm.lo;
            row->ci_high = sm.hi;
            row->p = sm.p;
            row->replicates = sm.valid;
            row->singular = singular_reps;
            if (!row->subset || !row->condition) {
                goto nomem;
            }
        }
        re->pre_raw = tot_n > 0 ? tot_pre / tot_n : NAN;
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    keymap_free(&units);
    keymap_free(&items);
    keymap_free(&pairs);
    keymap_free(&cells);
    sim_free(raw);
    sim_free(cell_domain);
    sim_free(cell_type);
    sim_free(subs);
    sim_free(dist);
    sim_free(full);
    sim_free(reps);
    sim_free(tmp);
    sim_free(sub_cells);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Utility                                                              */

typedef struct UtilityCtx {
    int n_conds, n_sessions, base, rule, participant;
} UtilityCtx;

/* Output: [c * T + t] Utility-K, then [C * T + c] Utility; the full-sample
** call also appends [C * T + C + c * T + t] session accuracies. */
static void utility_values(const UtilityCtx *x, const BootSums *sums,
                           double *acc, double *out, int full)
{
    int C = x->n_conds, T = x->n_sessions;
    for (int c = 0; c < C; c++) {
        for (int t = 0; t < T; t++) {
            size_t at = (size_t)c * (size_t)T + (size_t)t;
            if (x->participant) {
                acc[at] = sums->pu[at] > 0 ? sums->pa[at] / sums->pu[at] : NAN;
            } else {
                acc[at] = sums->n[at] > 0 ? sums->sa[at] / sums->n[at] : NAN;
            }
        }
    }
    for (int c = 0; c < C; c++) {
        double sum_uk = 0, trap = 0, sum_a = 0, sum_b = 0;
        for (int t = 0; t < T; t++) {
            double a = acc[(size_t)c * (size_t)T + (size_t)t];
            double b = acc[(size_t)x->base * (size_t)T + (size_t)t];
            double uk = b > 0 ? a / b : NAN;
            out[(size_t)c * (size_t)T + (size_t)t] = uk;
            sum_uk += uk;
            trap += (t == 0 || t == T - 1) && T > 1 ? 0.5 * uk : uk;
            sum_a += a;
            sum_b += b;
            if (full) {
                out[(size_t)C * (size_t)T + (size_t)C + (size_t)c * (size_t)T +
                    (size_t)t] = a;
            }
        }
        double u;
        if (x->rule == UTILITY_TRAPEZOID) {
            u = T > 1 ? trap / (T - 1) : sum_uk;
        } else if (x->rule == UTILITY_RATIO) {
            u = sum_b > 0 ? sum_a / sum_b : NAN;
        } else {
            u = sum_uk / T;
        }
        out[(size_t)C * (size_t)T + (size_t)c] = u;
    }
}

static void utility_stat(const void *vctx, const BootSums *sums, void *scratch,
                         double *out)
{
    utility_values(vctx, sums, scratch, out, 0);
}

static void utility_full_stat(const void *vctx, const BootSums *sums,
                              void *scratch, double *out)
{
    utility_values(vctx, sums, scratch, out, 1);
}

static int compute_utility(const Dataset *ds, const AnalyzeOptions *o,
                           const Screen *sc, Report *r, SimError *err)
{
    Design x;
    memset(&x, 0, sizeof x);
    KeyMap units = {0}, items = {0};
    RawPair *raw = NULL;
    size_t n_raw = 0, cap_raw = 0, cap_units = 0, cap_items = 0;
    double *full = NULL, *reps = NULL, *tmp = NULL;
    uint64_t *set_cells = NULL;
    int rc = SIM_OK, C = sc->n_conds, base = sc->base;
    int any_test = 0;
    /* sessions in increasing order */
    int max_session = 0;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (sc->keep[row->participant] && row->phase == PHASE_TEST &&
            row->correct >= 0 && !row->is_catch) {
            any_test = 1;
            max_session =
                row->session > max_session ? row->session : max_session;
        }
    }
    if (!any_test) {
        return SIM_OK;
    }
    if (base < 0) {
        char note[256];
        snprintf(note, sizeof note,
                 "no Utility table: baseline condition '%.100s' has no data "
                 "(choose it with --baseline)",
                 o->baseline);
        r->utility_note = sim_strdup(note);
        return SIM_OK;
    }
    int *session_cell = sim_malloc(((size_t)max_session + 1) * sizeof(int));
    if (!session_cell) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int t = 0; t <= max_session; t++) {
        session_cell[t] = -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (sc->keep[row->participant] && row->phase == PHASE_TEST &&
            row->correct >= 0 && !row->is_catch) {
            session_cell[row->session] = 0;
        }
    }
    int T = 0;
    for (int t = 0; t <= max_session; t++) {
        if (session_cell[t] == 0) {
            session_cell[t] = T++;
        }
    }
    if (T > BOOT_MAX_CELLS) {
        sim_free(session_cell);
        return sim_fail(err, SIM_ERR_INVALID, "more than %d sessions",
                        BOOT_MAX_CELLS);
    }
    r->sessions = sim_malloc((size_t)T * sizeof(int));
    if (!r->sessions) {
        sim_free(session_cell);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int t = 0; t <= max_session; t++) {
        if (session_cell[t] >= 0) {
            r->sessions[session_cell[t]] = t;
        }
    }
    r->n_sessions = T;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!sc->keep[row->participant] || row->phase != PHASE_TEST ||
            row->correct < 0 || row->is_catch) {
            continue;
        }
        int cell = session_cell[row->session];
        int u = unit_of(&x, &units, row->participant,
                        sc->cond_index[row->condition], &cap_units);
        int j = item_of(&x, &items, key2(cell, row->item), cell, &cap_items);
        RawPair rp = {u, j, (uint8_t)cell, (uint8_t)row->correct, 0};
        if (u < 0 || j < 0 || push_raw(&raw, &n_raw, &cap_raw, rp) != 0) {
            goto nomem;
        }
    }
    if ((rc = design_finish(&x, raw, n_raw, C, T, T, err))) {
        goto cleanup;
    }
    x.d.items_per_condition = o->items_per_condition;
    x.d.items_fixed = o->items_fixed;
    if (o->accuracy_participant) {
        set_cells = sim_malloc((size_t)T * sizeof(uint64_t));
        if (!set_cells) {
            goto nomem;
        }
        for (int t = 0; t < T; t++) {
            set_cells[t] = (uint64_t)1 << t;
        }
        x.d.n_sets = T;
        x.d.set_cells = set_cells;
    }
    UtilityCtx ctx = {C, T, base, o->utility_rule, o->accuracy_participant};
    BootRun run = {0};
    run.seed = sim_mix64(o->seed ^ sim_hash_str("utility"));
    run.replicates = o->replicates;
    run.threads = o->threads;
    run.progress = o->progress;
    run.label = "utility";
    run.stat = utility_full_stat;
    run.ctx = &ctx;
    run.scratch_size = (size_t)C * (size_t)T * sizeof(double);
    run.n_stats = C * T + C + C * T;
    full = sim_calloc((size_t)run.n_stats, sizeof(double));
    if (!full) {
        goto nomem;
    }
    if ((rc = boot_full(&x.d, &run, full, err))) {
        goto cleanup;
    }
    run.stat = utility_stat;
    run.n_stats = C * T + C;
    int B = o->replicates;
    if (B > 0 && (rc = boot_run(&x.d, &run, &reps, err))) {
        goto cleanup;
    }
    tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    r->utility = sim_calloc((size_t)C, sizeof *r->utility);
    if (!tmp || !r->utility) {
        goto nomem;
    }
    for (int c = 0; c < C; c++) {
        int n_part = 0;
        for (int u = 0; u < x.n_units; u++) {
            n_part += x.unit_cond[u] == c;
        }
        if (n_part == 0) {
            continue;
        }
        UtilityRow *row = &r->utility[r->n_utility++];
        row->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        row->n_participants = n_part;
        row->is_baseline = c == base;
        row->session_accuracy = sim_calloc((size_t)T, sizeof(double));
        row->utility_k = sim_calloc((size_t)T, sizeof(double));
        row->uk_low = sim_calloc((size_t)T, sizeof(double));
        row->uk_high = sim_calloc((size_t)T, sizeof(double));
        if (!row->condition || !row->session_accuracy || !row->utility_k ||
            !row->uk_low || !row->uk_high) {
            goto nomem;
        }
        Summary sm = {NAN, NAN, NAN, NAN, 0};
        for (int t = 0; t < T; t++) {
            row->session_accuracy[t] = full[(size_t)(C * T + C + c * T + t)];
            row->utility_k[t] = full[(size_t)(c * T + t)];
            if (B > 0) {
                summarise(reps, B, C * T + C, c * T + t, 1.0, 0, 0, tmp, &sm);
            }
            row->uk_low[t] = sm.lo;
            row->uk_high[t] = sm.hi;
        }
        row->utility = full[(size_t)(C * T + c)];
        if (B > 0) {
            /* CI on the Utility scale, p for H0: log Utility = 0 */
            summarise(reps, B, C * T + C, C * T + c, 1.0, o->p_hase, 1, tmp,
                      &sm);
        }
        row->boot_mean = sm.mean;
        row->ci_low = sm.lo;
        row->ci_high = sm.hi;
        row->p = c == base ? NAN : sm.p;
        row->replicates = sm.valid;
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    sim_free(session_cell);
    keymap_free(&units);
    keymap_free(&items);
    sim_free(raw);
    sim_free(full);
    sim_free(reps);
    sim_free(tmp);
    sim_free(set_cells);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* ANOVA, Tukey, reaction times                                         */

static int compute_anova_rt(const Dataset *ds, const Screen *sc, Report *r,
                            SimError *err)
{
    int np = ds->n_participants, C = sc->n_conds;
    int phase = -1;
    for (size_t i = 0; i < ds->n_rows && phase != PHASE_TEST; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (sc->keep[row->participant] && row->correct >= 0 &&
            (row->phase == PHASE_TEST || row->phase == PHASE_POST)) {
            phase = row->phase;
        }
    }
    double *s = sim_calloc((size_t)np + 1, sizeof(double));
    double *n = sim_calloc((size_t)np + 1, sizeof(double));
    double *rt = sim_calloc((size_t)np + 1, sizeof(double));
    int *has_rt = sim_calloc((size_t)np + 1, sizeof(int));
    double *y = sim_malloc(((size_t)np + 1) * sizeof(double));
    int *g = sim_malloc(((size_t)np + 1) * sizeof(int));
    int rc = SIM_OK;
    if (!s || !n || !rt || !has_rt || !y || !g) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int p = row->participant;
        if (!sc->keep[p]) {
            continue;
        }
        if (isfinite(row->rt_ms)) {
            rt[p] += row->rt_ms;
            has_rt[p] = 1;
        }
        if (row->phase == phase && row->correct >= 0 && !row->is_catch) {
            s[p] += row->correct;
            n[p] += 1;
        }
    }
    /* reaction times: total time per participant, per condition */
    r->rt = sim_calloc((size_t)C + 1, sizeof *r->rt);
    if (!r->rt) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int c = 0; c < C; c++) {
        int m = 0;
        for (int p = 0; p < np; p++) {
            if (sc->keep[p] && has_rt[p] &&
                sc->cond_index[ds->participants[p].condition] == c) {
                y[m++] = rt[p] / 1000.0;
            }
        }
        if (m == 0) {
            continue;
        }
        stats_sort(y, (size_t)m);
        RtRow *row = &r->rt[r->n_rt++];
        row->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        row->n_participants = m;
        row->median_s = stats_quantile7(y, (size_t)m, 0.5);
        double sum = 0;
        for (int i = 0; i < m; i++) {
            sum += y[i];
        }
        row->mean_s = sum / m;
    }
    if (phase < 0) {
        goto cleanup;
    }
    int m = 0;
    for (int p = 0; p < np; p++) {
        if (sc->keep[p] && n[p] > 0) {
            y[m] = s[p] / n[p];
            g[m] = sc->cond_index[ds->participants[p].condition];
            m++;
        }
    }
    r->groups = sim_calloc((size_t)C + 1, sizeof *r->groups);
    if (!r->groups) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int c = 0; c < C; c++) {
        double sum = 0, sq = 0;
        int k = 0;
        for (int i = 0; i < m; i++) {
            if (g[i] == c) {
                sum += y[i];
                k++;
            }
        }
        if (k == 0) {
            continue;
        }
        double mean = sum / k;
        for (int i = 0; i < m; i++) {
            if (g[i] == c) {
                sq += (y[i] - mean) * (y[i] - mean);
            }
        }
        GroupSummary *gs = &r->groups[r->n_groups++];
        gs->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        gs->n = k;
        gs->mean = mean;
        gs->sd = k > 1 ? sqrt(sq / (k - 1)) : NAN;
    }
    r->anova_outcome = sim_strdup(
        phase == PHASE_TEST
            ? "participant accuracy on test trials (catch trials excluded)"
            : "participant accuracy on post trials");
    if (stats_anova(y, g, m, C, &r->anova) != 0) {
        goto cleanup;
    }
    r->has_anova = 1;
    TukeyPair *pairs = sim_calloc((size_t)(C * (C - 1) / 2 + 1), sizeof *pairs);
    if (!pairs) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    int npairs = stats_tukey(y, g, m, C, 0.95, pairs);
    r->tukey = sim_calloc((size_t)(npairs > 0 ? npairs : 1), sizeof *r->tukey);
    if (!r->tukey) {
        sim_free(pairs);
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < npairs; i++) {
        TukeyRow *t = &r->tukey[r->n_tukey++];
        t->a = sim_strdup(dataset_str(ds, sc->conds[pairs[i].g]));
        t->b = sim_strdup(dataset_str(ds, sc->conds[pairs[i].h]));
        t->diff = pairs[i].diff;
        t->lwr = pairs[i].lwr;
        t->upr = pairs[i].upr;
        t->p_adj = pairs[i].p_adj;
        t->vs_baseline = pairs[i].g == sc->base || pairs[i].h == sc->base;
    }
    sim_free(pairs);
cleanup:
    sim_free(s);
    sim_free(n);
    sim_free(rt);
    sim_free(has_rt);
    sim_free(y);
    sim_free(g);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Ratings                                                              */

#define RATING_LEVELS 7

typedef struct RatingCtx {
    int n_conds;
} RatingCtx;

/* Output: [c] mean rating, [C] slope, [C + 1 + i] P(correct) at 2 + i;
** the cells are the rating levels 1..7. */
static void rating_stat(const void *vctx, const BootSums *sums, void *scratch,
                        double *out)
{
    const RatingCtx *x = vctx;
    int C = x->n_conds;
    double *xs = scratch, *ss = xs + RATING_LEVELS, *ws = ss + RATING_LEVELS;
    for (int k = 0; k < RATING_LEVELS; k++) {
        xs[k] = k + 1;
        ss[k] = ws[k] = 0;
    }
    for (int c = 0; c < C; c++) {
        double num = 0, den = 0;
        for (int k = 0; k < RATING_LEVELS; k++) {
            size_t at = (size_t)c * RATING_LEVELS + (size_t)k;
            num += (k + 1) * sums->n[at];
            den += sums->n[at];
            ss[k] += sums->sa[at];
            ws[k] += sums->sb[at];
        }
        out[c] = den > 0 ? num / den : NAN;
    }
    LogitFit f;
    int ok = stats_logit_fit(xs, ss, ws, RATING_LEVELS, &f) == 0 &&
             !f.separation && f.converged;
    out[C] = ok ? f.b1 : NAN;
    for (int i = 0; i < 5; i++) {
        out[C + 1 + i] = ok ? stats_expit(f.b0 + f.b1 * (2 + i)) : NAN;
    }
}

static int compute_ratings(const Dataset *ds, const AnalyzeOptions *o,
                           const Screen *sc, Report *r, SimError *err)
{
    Design x;
    memset(&x, 0, sizeof x);
    KeyMap units = {0}, items = {0};
    RawPair *raw = NULL;
    size_t n_raw = 0, cap_raw = 0, cap_units = 0, cap_items = 0;
    double *full = NULL, *reps = NULL, *tmp = NULL;
    int rc = SIM_OK, C = sc->n_conds;
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!sc->keep[row->participant] || row->rating <= 0) {
            continue;
        }
        int u = unit_of(&x, &units, row->participant,
                        sc->cond_index[row->condition], &cap_units);
        int j =
            item_of(&x, &items, key2(row->item, row->domain * 8 + row->phase),
                    0, &cap_items);
        RawPair rp = {u, j, (uint8_t)(row->rating - 1),
                      (uint8_t)(row->correct == 1),
                      (uint8_t)(row->correct >= 0)};
        if (u < 0 || j < 0 || push_raw(&raw, &n_raw, &cap_raw, rp) != 0) {
            goto nomem;
        }
    }
    if (n_raw == 0) {
        goto cleanup;
    }
    if ((rc = design_finish(&x, raw, n_raw, C, RATING_LEVELS, 1, err))) {
        goto cleanup;
    }
    x.d.items_per_condition = o->items_per_condition;
    x.d.items_fixed = o->items_fixed;
    RatingCtx ctx = {C};
    BootRun run = {0};
    run.seed = sim_mix64(o->seed ^ sim_hash_str("ratings"));
    run.replicates = o->replicates;
    run.threads = o->threads;
    run.progress = o->progress;
    run.label = "ratings";
    run.stat = rating_stat;
    run.ctx = &ctx;
    run.scratch_size = 3 * RATING_LEVELS * sizeof(double);
    run.n_stats = C + 6;
    full = sim_calloc((size_t)run.n_stats, sizeof(double));
    if (!full) {
        goto nomem;
    }
    int B = o->replicates;
    if ((rc = boot_full(&x.d, &run, full, err)) ||
        (B > 0 && (rc = boot_run(&x.d, &run, &reps, err)))) {
        goto cleanup;
    }
    tmp = sim_malloc(((size_t)B + 1) * sizeof(double));
    r->ratings = sim_calloc((size_t)C + 1, sizeof *r->ratings);
    if (!tmp || !r->ratings) {
        goto nomem;
    }
    Summary sm = {NAN, NAN, NAN, NAN, 0};
    for (int c = 0; c < C; c++) {
        double sum = 0, sq = 0;
        int n = 0;
        for (size_t i = 0; i < ds->n_rows; i++) {
            const DatasetResponse *row = &ds->rows[i];
            if (sc->keep[row->participant] && row->rating > 0 &&
                sc->cond_index[row->condition] == c) {
                sum += row->rating;
                n++;
            }
        }
        if (n == 0) {
            continue;
        }
        double mean = sum / n;
        for (size_t i = 0; i < ds->n_rows; i++) {
            const DatasetResponse *row = &ds->rows[i];
            if (sc->keep[row->participant] && row->rating > 0 &&
                sc->cond_index[row->condition] == c) {
                sq += (row->rating - mean) * (row->rating - mean);
            }
        }
        RatingRow *rr = &r->ratings[r->n_ratings++];
        rr->condition = sim_strdup(dataset_str(ds, sc->conds[c]));
        rr->n = n;
        rr->mean = mean;
        rr->sd = n > 1 ? sqrt(sq / (n - 1)) : NAN;
        if (B > 0) {
            summarise(reps, B, C + 6, c, 0.0, 0, 0, tmp, &sm);
        }
        rr->boot_mean = sm.mean;
        rr->ci_low = sm.lo;
        rr->ci_high = sm.hi;
    }
    /* the logistic regression on the full sample, grouped by rating */
    double xs[RATING_LEVELS], ss[RATING_LEVELS], ws[RATING_LEVELS];
    for (int k = 0; k < RATING_LEVELS; k++) {
        xs[k] = k + 1;
        ss[k] = ws[k] = 0;
    }
    for (size_t p = 0; p < n_raw; p++) {
        ss[raw[p].cell] += raw[p].ya;
        ws[raw[p].cell] += raw[p].yb;
    }
    int n_logit = 0;
    for (int k = 0; k < RATING_LEVELS; k++) {
        n_logit += (int)ws[k];
    }
    if (stats_logit_fit(xs, ss, ws, RATING_LEVELS, &r->logit) == 0) {
        r->has_logit = 1;
        r->logit_n = n_logit;
        r->b1_wald_low = r->logit.b1 - 1.959963984540054 * r->logit.se1;
        r->b1_wald_high = r->logit.b1 + 1.959963984540054 * r->logit.se1;
        for (int i = 0; i < 5; i++) {
            r->pred[i] = stats_expit(r->logit.b0 + r->logit.b1 * (2 + i));
        }
        if (B > 0) {
            summarise(reps, B, C + 6, C, 0.0, 0, 0, tmp, &sm);
            r->b1_boot_low = sm.lo;
            r->b1_boot_high = sm.hi;
            for (int i = 0; i < 5; i++) {
                summarise(reps, B, C + 6, C + 1 + i, 0.0, 0, 0, tmp, &sm);
                r->pred_low[i] = sm.lo;
                r->pred_high[i] = sm.hi;
            }
        } else {
            r->b1_boot_low = r->b1_boot_high = NAN;
            for (int i = 0; i < 5; i++) {
                r->pred_low[i] = r->pred_high[i] = NAN;
            }
        }
    }
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    keymap_free(&units);
    keymap_free(&items);
    sim_free(raw);
    sim_free(full);
    sim_free(reps);
    sim_free(tmp);
    design_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */

int analyze_compute(const Dataset *ds, const AnalyzeOptions *o, Report *r,
                    SimError *err)
{
    memset(r, 0, sizeof *r);
    r->opt = *o;
    r->n_rows_read = (int)ds->n_rows;
    Screen sc;
    int rc = screen_participants(ds, o, r, &sc, err);
    if (rc == SIM_OK) {
        rc = compute_change(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_utility(ds, o, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_anova_rt(ds, &sc, r, err);
    }
    if (rc == SIM_OK && !o->change_only) {
        rc = compute_ratings(ds, o, &sc, r, err);
    }
    screen_free(&sc);
    return rc;
}

static int make_dir(const char *dir, SimError *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        return S_ISDIR(st.st_mode)
                   ? SIM_OK
                   : sim_fail(err, SIM_ERR_IO, "%s: not a directory", dir);
    }
    if (mkdir(dir, 0777) != 0) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot create directory", dir);
    }
    return SIM_OK;
}

int analyze_write(const Report *r, const char *out_dir, SimError *err)
{
    int rc = make_dir(out_dir, err);
    unsigned f = r->opt.formats;
    if (rc == SIM_OK && (f & FORMAT_MD)) {
        rc = report_write_md(r, out_dir, err);
    }
    if (rc == SIM_OK && (f & FORMAT_TEX)) {
        rc = report_write_tex(r, out_dir, err);
    }
    if (rc == SIM_OK && (f & FORMAT_CSV)) {
        rc = report_write_csv(r, out_dir, err);
    }
    if (rc == SIM_OK && (f & FORMAT_JSON)) {
        rc = report_write_json(r, out_dir, err);
    }
    if (rc == SIM_OK && r->opt.plots) {
        rc = report_write_plots(r, out_dir, r->opt.plots, err);
    }
    return rc;
}

int analyze_main(const AnalyzeOptions *o, const char *const *dbs, int n_dbs,
                 const char *const *csvs, int n_csvs, const char *out_dir,
                 SimError *err)
{
    Dataset *ds = NULL;
    Report r;
    memset(&r, 0, sizeof r);
    int rc = dataset_new(&ds, err);
    for (int i = 0; rc == SIM_OK && i < n_dbs; i++) {
        rc = dataset_load_db(ds, dbs[i], err);
    }
    for (int i = 0; rc == SIM_OK && i < n_csvs; i++) {
        rc = dataset_load_csv(ds, csvs[i], err);
    }
    if (rc == SIM_OK && ds->n_rows == 0) {
        rc = sim_fail(err, SIM_ERR_INVALID, "no responses in the input");
    }
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, o, &r, err);
    }
    if (rc == SIM_OK) {
        r.n_sources = n_dbs + n_csvs;
        r.sources = sim_calloc((size_t)r.n_sources + 1, sizeof(char *));
        for (int i = 0; r.sources && i < n_dbs; i++) {
            r.sources[i] = sim_strdup(dbs[i]);
        }
        for (int i = 0; r.sources && i < n_csvs; i++) {
            r.sources[n_dbs + i] = sim_strdup(csvs[i]);
        }
        if (!r.sources) {
            r.n_sources = 0;
        }
        rc = analyze_write(&r, out_dir, err);
    }
    if (rc == SIM_OK && !o->quiet) {
        analyze_print_summary(&r);
    }
    report_free(&r);
    dataset_free(ds);
    return rc;
}

/* The CI and p columns of the summary; "-" where there is no value (e.g.
** with --replicates 0). */
static void summary_ci_p(double lo, double hi, double p, int sign, char *ci,
                         size_t ci_size, char *ps, size_t p_size)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        snprintf(ci, ci_size, "%16s", "-"); /* as wide as "[+0.000, +0.000]" */
    } else if (sign) {
        snprintf(ci, ci_size, "[%+.3f, %+.3f]", lo, hi);
    } else {
        snprintf(ci, ci_size, "[%.3f, %.3f]", lo, hi);
    }
    if (isfinite(p)) {
        snprintf(ps, p_size, "%.4f", p);
    } else {
        snprintf(ps, p_size, "-");
    }
}

void analyze_print_summary(const Report *r)
{
    char ci[64], p[32];
    if (r->n_change > 0) {
        printf("%-22s %-14s %6s %7s %7s %7s %8s %18s %7s\n", "subset",
               "condition", "n", "pre", "pre_re", "post", "change", "95% CI",
               "p");
        for (int i = 0; i < r->n_change; i++) {
            const ChangeRow *c = &r->change[i];
            summary_ci_p(c->ci_low, c->ci_high, c->p, 1, ci, sizeof ci, p,
                         sizeof p);
            printf("%-22s %-14s %6d %7.3f %7.3f %7.3f %+8.3f %s %7s\n",
                   c->subset, c->condition, c->n_responses, c->pre_raw,
                   c->pre_re, c->post, c->change, ci, p);
        }
    }
    if (r->n_utility > 0) {
        printf("%-14s %8s %18s %7s\n", "condition", "utility", "95% CI", "p");
        for (int i = 0; i < r->n_utility; i++) {
            const UtilityRow *u = &r->utility[i];
            if (u->is_baseline) {
                printf("%-14s %8.3f %18s %7s\n", u->condition, u->utility,
                       "(baseline)", "-");
                continue;
            }
            summary_ci_p(u->ci_low, u->ci_high, u->p, 0, ci, sizeof ci, p,
                         sizeof p);
            printf("%-14s %8.3f %s %7s\n", u->condition, u->utility, ci, p);
        }
    }
    if (r->utility_note) {
        printf("%s\n", r->utility_note);
    }
}
