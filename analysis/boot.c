/*
** Crossed bootstrap engine (see boot.h). Two kernels compute a unit's
** weighted sums sum_j v_j y_ij: a sparse one over its (item, y) pairs, and,
** for units that answered most items of their cells, a dense one on 64-item
** bitmasks that splits the item weights v into bit planes and counts with
** popcount. libc, pthreads and common/ only.
*/
#include "analysis/boot.h"
#include "analysis/progress.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#define MAX_PLANES 32

/* Precomputed layout shared (read-only) by all threads. */
typedef struct Layout {
    const BootDesign *d;
    int n_vsets;      /* 1, or n_conds with per-condition items */
    int *stratum_off; /* members of stratum s: [off[s], off[s+1]) */
    int *stratum_units;
    int *stratum_first; /* first unit of a stratum of consecutive units, or
                        ** -1 */
    int *group_off;     /* items of group g: [off[g], off[g+1]) */
    int *group_items;
    /* participant blocks (within-subject designs); blocks == 0: units */
    int blocks;
    int n_bstrata;
    int *bstratum_off; /* blocks of block stratum s: [off[s], off[s+1]) */
    int *bstratum_blocks;
    int *block_off; /* units of block k: [off[k], off[k+1]) */
    int *block_units;
    /* dense kernel */
    int dense_any;
    int n_words;              /* padded item space in 64-bit words */
    int *item_pos;            /* bit position of each item */
    uint8_t *word_cell;       /* cell of each word */
    int *unit_wlo, *unit_whi; /* word span; whi == 0: sparse unit */
    size_t *unit_mask_off;    /* into masks (3 words per spanned word) */
    uint64_t *masks;          /* answered, ya, yb for each spanned word */
    /* units whose items fit one word, without participant-mean sets: a
    ** compact array for the hot loop, in runs that share the accumulator
    ** and the plane word; every other unit is in slow */
    struct FastUnit *fast;
    int n_fast;
    struct FastRun *runs;
    int n_runs;
    int *slow;
    int n_slow;
} Layout;

typedef struct FastUnit {
    uint64_t A, P, Q; /* answered, ya, yb masks of the unit's word */
    int unit;
} FastUnit;

/* Fast units [first, end) with one accumulator, item-weight set and word. */
typedef struct FastRun {
    int first, end;
    int vs;     /* item-weight set */
    int word;   /* the word */
    int at;     /* accumulator index: cond * n_cells + cell */
    int same_a; /* 1: every unit of the run has the same answered mask */
} FastRun;

static void layout_free(Layout *L)
{
    sim_free(L->stratum_off);
    sim_free(L->stratum_units);
    sim_free(L->stratum_first);
    sim_free(L->group_off);
    sim_free(L->group_items);
    sim_free(L->bstratum_off);
    sim_free(L->bstratum_blocks);
    sim_free(L->block_off);
    sim_free(L->block_units);
    sim_free(L->item_pos);
    sim_free(L->word_cell);
    sim_free(L->unit_wlo);
    sim_free(L->unit_whi);
    sim_free(L->unit_mask_off);
    sim_free(L->masks);
    sim_free(L->fast);
    sim_free(L->runs);
    sim_free(L->slow);
}

/* Bucket sort of 0..n-1 by key[i] < n_keys into off/list. */
static int bucket(const int *key, int n, int n_keys, int **off_out,
                  int **list_out)
{
    int *off = sim_calloc((size_t)n_keys + 1, sizeof *off);
    int *list = sim_malloc((size_t)(n > 0 ? n : 1) * sizeof *list);
    if (!off || !list) {
        sim_free(off);
        sim_free(list);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        off[key[i] + 1]++;
    }
    for (int k = 0; k < n_keys; k++) {
        off[k + 1] += off[k];
    }
    int *fill = sim_malloc((size_t)(n_keys > 0 ? n_keys : 1) * sizeof *fill);
    if (!fill) {
        sim_free(off);
        sim_free(list);
        return -1;
    }
    memcpy(fill, off, (size_t)n_keys * sizeof *fill);
    for (int i = 0; i < n; i++) {
        list[fill[key[i]]++] = i;
    }
    sim_free(fill);
    *off_out = off;
    *list_out = list;
    return 0;
}

/* Sets up the dense layout when every item belongs to one cell; units whose
** pairs fill at least a quarter of their word span use it. */
static int layout_dense(Layout *L)
{
    const BootDesign *d = L->d;
    int *item_cell = sim_malloc((size_t)(d->n_items + 1) * sizeof(int));
    if (!item_cell) {
        return -1;
    }
    for (int j = 0; j < d->n_items; j++) {
        item_cell[j] = -1;
    }
    int ok = 1;
    size_t n_pairs = d->unit_off[d->n_units];
    for (size_t p = 0; p < n_pairs && ok; p++) {
        int j = d->pairs[p].item;
        if (item_cell[j] < 0) {
            item_cell[j] = d->pairs[p].cell;
        } else if (item_cell[j] != d->pairs[p].cell) {
            ok = 0;
        }
    }
    if (!ok) {
        sim_free(item_cell);
        return 0;
    }
    /* items of each cell start on a word boundary */
    L->item_pos = sim_malloc((size_t)(d->n_items + 1) * sizeof(int));
    int *cell_fill = sim_calloc(BOOT_MAX_CELLS, sizeof(int));
    int *cell_base = sim_calloc(BOOT_MAX_CELLS, sizeof(int));
    if (!L->item_pos || !cell_fill || !cell_base) {
        sim_free(item_cell);
        sim_free(cell_fill);
        sim_free(cell_base);
        return -1;
    }
    for (int j = 0; j < d->n_items; j++) {
        if (item_cell[j] >= 0) {
            cell_fill[item_cell[j]]++;
        }
    }
    int words = 0;
    for (int k = 0; k < d->n_cells; k++) {
        cell_base[k] = words * 64;
        words += (cell_fill[k] + 63) / 64;
        cell_fill[k] = 0;
    }
    L->n_words = words;
    L->word_cell = sim_calloc((size_t)(words + 1), 1);
    if (!L->word_cell) {
        sim_free(item_cell);
        sim_free(cell_fill);
        sim_free(cell_base);
        return -1;
    }
    for (int k = 0; k < d->n_cells; k++) {
        int w1 = k + 1 < d->n_cells ? cell_base[k + 1] / 64 : words;
        for (int w = cell_base[k] / 64; w < w1; w++) {
            L->word_cell[w] = (uint8_t)k;
        }
    }
    for (int j = 0; j < d->n_items; j++) {
        int k = item_cell[j];
        L->item_pos[j] = k >= 0 ? cell_base[k] + cell_fill[k]++ : -1;
    }
    sim_free(item_cell);
    sim_free(cell_fill);
    sim_free(cell_base);

    L->unit_wlo = sim_calloc((size_t)d->n_units + 1, sizeof(int));
    L->unit_whi = sim_calloc((size_t)d->n_units + 1, sizeof(int));
    L->unit_mask_off = sim_calloc((size_t)d->n_units + 1, sizeof(size_t));
    if (!L->unit_wlo || !L->unit_whi || !L->unit_mask_off) {
        return -1;
    }
    size_t total = 0;
    for (int i = 0; i < d->n_units; i++) {
        size_t a = d->unit_off[i], b = d->unit_off[i + 1];
        if (b == a) {
            continue;
        }
        int lo = L->n_words, hi = 0;
        for (size_t p = a; p < b; p++) {
            int w = L->item_pos[d->pairs[p].item] / 64;
            lo = w < lo ? w : lo;
            hi = w + 1 > hi ? w + 1 : hi;
        }
        if ((size_t)(hi - lo) * 4 <= b - a) {
            L->unit_wlo[i] = lo;
            L->unit_whi[i] = hi;
            L->unit_mask_off[i] = total;
            total += 3 * (size_t)(hi - lo);
        }
    }
    L->masks = sim_calloc(total + 1, sizeof(uint64_t));
    if (!L->masks) {
        return -1;
    }
    for (int i = 0; i < d->n_units; i++) {
        if (L->unit_whi[i] == 0) {
            continue;
        }
        uint64_t *m = L->masks + L->unit_mask_off[i];
        int span = L->unit_whi[i] - L->unit_wlo[i];
        int dup = 0;
        for (size_t p = d->unit_off[i]; p < d->unit_off[i + 1]; p++) {
            int pos = L->item_pos[d->pairs[p].item];
            int w = pos / 64 - L->unit_wlo[i];
            uint64_t bit = (uint64_t)1 << (pos % 64);
            dup |= (m[w] & bit) != 0;
            m[w] |= bit;
            if (d->pairs[p].ya) {
                m[span + w] |= bit;
            }
            if (d->pairs[p].yb) {
                m[2 * span + w] |= bit;
            }
        }
        if (dup) { /* the same item twice: leave it to the sparse kernel */
            L->unit_whi[i] = 0;
        } else {
            L->dense_any = 1;
        }
    }
    return 0;
}

/* Whether two sorted stratum lists sa[0..na) and sb[0..nb) are equal. */
static int same_strata(const int *sa, int na, const int *sb, int nb)
{
    if (na != nb) {
        return 0;
    }
    for (int i = 0; i < na; i++) {
        if (sa[i] != sb[i]) {
            return 0;
        }
    }
    return 1;
}

static void sort_ints(int *x, int n)
{
    for (int i = 1; i < n; i++) {
        int v = x[i], j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

/* Sets up block draws when d->unit_block puts several units in one block:
** the units of each block, and block strata (blocks with the same sorted
** list of unit strata), numbered in order of their first block. */
static int layout_blocks(Layout *L)
{
    const BootDesign *d = L->d;
    if (!d->unit_block || d->n_units == 0) {
        return 0;
    }
    int nb = 0;
    for (int i = 0; i < d->n_units; i++) {
        nb = d->unit_block[i] + 1 > nb ? d->unit_block[i] + 1 : nb;
    }
    if (bucket(d->unit_block, d->n_units, nb, &L->block_off, &L->block_units) !=
        0) {
        return -1;
    }
    int several = 0;
    for (int k = 0; k < nb; k++) {
        several |= L->block_off[k + 1] - L->block_off[k] > 1;
    }
    if (!several) {
        return 0; /* one unit per block: the unit draws, unchanged */
    }
    /* sig: each block's unit strata, sorted, at block_off[k] */
    int *sig = sim_malloc((size_t)d->n_units * sizeof(int));
    int *bkey = sim_malloc((size_t)nb * sizeof(int));
    int *first = sim_malloc((size_t)nb * sizeof(int)); /* stratum -> block */
    if (!sig || !bkey || !first) {
        sim_free(sig);
        sim_free(bkey);
        sim_free(first);
        return -1;
    }
    for (int i = 0; i < d->n_units; i++) {
        sig[i] = d->unit_stratum[L->block_units[i]];
    }
    int ns = 0;
    for (int k = 0; k < nb; k++) {
        int a = L->block_off[k], m = L->block_off[k + 1] - a;
        bkey[k] = -1;
        if (m == 0) {
            continue; /* a participant without units here */
        }
        sort_ints(sig + a, m);
        for (int s = 0; s < ns && bkey[k] < 0; s++) {
            int f = first[s], fa = L->block_off[f];
            if (same_strata(sig + fa, L->block_off[f + 1] - fa, sig + a, m)) {
                bkey[k] = s;
            }
        }
        if (bkey[k] < 0) {
            first[ns] = k;
            bkey[k] = ns++;
        }
    }
    /* blocks without units get the extra key ns and are never drawn */
    for (int k = 0; k < nb; k++) {
        bkey[k] = bkey[k] < 0 ? ns : bkey[k];
    }
    int rc = bucket(bkey, nb, ns + 1, &L->bstratum_off, &L->bstratum_blocks);
    sim_free(sig);
    sim_free(bkey);
    sim_free(first);
    if (rc != 0) {
        return -1;
    }
    L->blocks = 1;
    L->n_bstrata = ns;
    return 0;
}

static int layout_init(Layout *L, const BootDesign *d)
{
    memset(L, 0, sizeof *L);
    L->d = d;
    L->n_vsets = d->items_per_condition ? d->n_conds : 1;
    if (bucket(d->unit_stratum, d->n_units, d->n_strata, &L->stratum_off,
               &L->stratum_units) != 0 ||
        bucket(d->item_group, d->n_items, d->n_groups, &L->group_off,
               &L->group_items) != 0 ||
        layout_blocks(L) != 0 || layout_dense(L) != 0) {
        return -1;
    }
    L->stratum_first = sim_malloc(((size_t)d->n_strata + 1) * sizeof(int));
    if (!L->stratum_first) {
        return -1;
    }
    for (int st = 0; st < d->n_strata; st++) {
        int a = L->stratum_off[st], b = L->stratum_off[st + 1];
        int first = b > a ? L->stratum_units[a] : -1;
        for (int x = a; x < b && first >= 0; x++) {
            first = L->stratum_units[x] == L->stratum_units[a] + (x - a) ? first
                                                                         : -1;
        }
        L->stratum_first[st] = first;
    }
    L->fast = sim_calloc((size_t)d->n_units + 1, sizeof *L->fast);
    L->runs = sim_calloc((size_t)d->n_units + 1, sizeof *L->runs);
    L->slow = sim_calloc((size_t)d->n_units + 1, sizeof *L->slow);
    if (!L->fast || !L->runs || !L->slow) {
        return -1;
    }
    for (int i = 0; i < d->n_units; i++) {
        if (d->n_sets == 0 && L->dense_any &&
            L->unit_whi[i] == L->unit_wlo[i] + 1) {
            FastUnit *f = &L->fast[L->n_fast];
            const uint64_t *m = L->masks + L->unit_mask_off[i];
            f->A = m[0];
            f->P = m[1];
            f->Q = m[2];
            f->unit = i;
            int vs = L->n_vsets > 1 ? d->unit_cond[i] : 0;
            int word = L->unit_wlo[i];
            int at = d->unit_cond[i] * d->n_cells + L->word_cell[word];
            FastRun *r = L->n_runs > 0 ? &L->runs[L->n_runs - 1] : NULL;
            if (!r || r->vs != vs || r->word != word || r->at != at) {
                r = &L->runs[L->n_runs++];
                r->first = L->n_fast;
                r->vs = vs;
                r->word = word;
                r->at = at;
                r->same_a = 1;
            }
            r->same_a &= f->A == L->fast[r->first].A;
            r->end = ++L->n_fast;
        } else if (d->unit_off[i + 1] > d->unit_off[i]) {
            L->slow[L->n_slow++] = i;
        }
    }
    return 0;
}

/* Per-thread workspace. */
typedef struct Work {
    int *u;           /* unit multiplicities */
    int *v;           /* item multiplicities, n_vsets x n_items */
    uint64_t *planes; /* n_vsets x MAX_PLANES x n_words */
    int *n_planes;    /* per vset */
    double *n, *sa, *sb;
    int64_t *in, *ia, *ib; /* integer sums before conversion */
    double *pa, *pb, *pu;
    void *scratch;
} Work;

static void work_free(Work *w)
{
    sim_free(w->u);
    sim_free(w->v);
    sim_free(w->planes);
    sim_free(w->n_planes);
    sim_free(w->n);
    sim_free(w->sa);
    sim_free(w->sb);
    sim_free(w->in);
    sim_free(w->ia);
    sim_free(w->ib);
    sim_free(w->pa);
    sim_free(w->pb);
    sim_free(w->pu);
    sim_free(w->scratch);
}

static int work_init(Work *w, const Layout *L, size_t scratch_size)
{
    const BootDesign *d = L->d;
    size_t cells = (size_t)d->n_conds * (size_t)d->n_cells;
    size_t sets = (size_t)d->n_conds * (size_t)(d->n_sets > 0 ? d->n_sets : 1);
    memset(w, 0, sizeof *w);
    w->u = sim_calloc((size_t)d->n_units + 1, sizeof(int));
    w->v =
        sim_calloc((size_t)L->n_vsets * (size_t)(d->n_items + 1), sizeof(int));
    w->planes =
        sim_calloc((size_t)L->n_vsets * MAX_PLANES * (size_t)(L->n_words + 1),
                   sizeof(uint64_t));
    w->n_planes = sim_calloc((size_t)L->n_vsets, sizeof(int));
    w->n = sim_calloc(cells, sizeof(double));
    w->sa = sim_calloc(cells, sizeof(double));
    w->sb = sim_calloc(cells, sizeof(double));
    w->in = sim_calloc(cells, sizeof(int64_t));
    w->ia = sim_calloc(cells, sizeof(int64_t));
    w->ib = sim_calloc(cells, sizeof(int64_t));
    w->pa = sim_calloc(sets, sizeof(double));
    w->pb = sim_calloc(sets, sizeof(double));
    w->pu = sim_calloc(sets, sizeof(double));
    if (scratch_size) {
        w->scratch = sim_calloc(1, scratch_size);
    }
    if (!w->u || !w->v || !w->planes || !w->n_planes || !w->n || !w->sa ||
        !w->sb || !w->in || !w->ia || !w->ib || !w->pa || !w->pb || !w->pu ||
        (scratch_size && !w->scratch)) {
        work_free(w);
        return -1;
    }
    return 0;
}

/* Draws whole blocks within block strata: every unit of a drawn block
** gets one more. */
static void draw_blocks(const Layout *L, Work *w, SimRng *rng)
{
    for (int s = 0; s < L->n_bstrata; s++) {
        int a = L->bstratum_off[s], m = L->bstratum_off[s + 1] - a;
        for (int t = 0; t < m; t++) {
            int k =
                L->bstratum_blocks[a + (int)sim_rng_below(rng, (uint64_t)m)];
            for (int x = L->block_off[k]; x < L->block_off[k + 1]; x++) {
                w->u[L->block_units[x]]++;
            }
        }
    }
}

static void draw(const Layout *L, Work *w, SimRng *rng)
{
    const BootDesign *d = L->d;
    memset(w->u, 0, (size_t)d->n_units * sizeof(int));
    if (L->blocks) {
        draw_blocks(L, w, rng);
    }
    for (int s = 0; !L->blocks && s < d->n_strata; s++) {
        int a = L->stratum_off[s], m = L->stratum_off[s + 1] - a;
        if (L->stratum_first[s] >= 0) { /* the same draws, one load less */
            int *us = w->u + L->stratum_first[s];
            for (int t = 0; t < m; t++) {
                us[sim_rng_below(rng, (uint64_t)m)]++;
            }
            continue;
        }
        for (int t = 0; t < m; t++) {
            w->u[L->stratum_units[a + (int)sim_rng_below(rng, (uint64_t)m)]]++;
        }
    }
    for (int vs = 0; vs < L->n_vsets; vs++) {
        int *v = w->v + (size_t)vs * (size_t)(d->n_items + 1);
        if (d->items_fixed) {
            for (int j = 0; j < d->n_items; j++) {
                v[j] = 1;
            }
            continue;
        }
        memset(v, 0, (size_t)d->n_items * sizeof(int));
        for (int g = 0; g < d->n_groups; g++) {
            int a = L->group_off[g], m = L->group_off[g + 1] - a;
            for (int t = 0; t < m; t++) {
                v[L->group_items[a + (int)sim_rng_below(rng, (uint64_t)m)]]++;
            }
        }
    }
}

static void all_ones(const Layout *L, Work *w)
{
    const BootDesign *d = L->d;
    for (int i = 0; i < d->n_units; i++) {
        w->u[i] = 1;
    }
    for (int vs = 0; vs < L->n_vsets; vs++) {
        int *v = w->v + (size_t)vs * (size_t)(d->n_items + 1);
        for (int j = 0; j < d->n_items; j++) {
            v[j] = 1;
        }
    }
}

static void build_planes(const Layout *L, Work *w)
{
    const BootDesign *d = L->d;
    size_t nw = (size_t)L->n_words + 1;
    for (int vs = 0; vs < L->n_vsets; vs++) {
        const int *v = w->v + (size_t)vs * (size_t)(d->n_items + 1);
        uint64_t *pl = w->planes + (size_t)vs * MAX_PLANES * nw;
        int maxv = 0;
        for (int j = 0; j < d->n_items; j++) {
            maxv = v[j] > maxv ? v[j] : maxv;
        }
        int np = 0;
        while (np < MAX_PLANES && (maxv >> np) != 0) {
            np++;
        }
        w->n_planes[vs] = np;
        /* at least four planes are cleared: the unrolled kernel reads them */
        memset(pl, 0, (size_t)(np > 4 ? np : 4) * nw * sizeof(uint64_t));
        for (int j = 0; j < d->n_items; j++) {
            int pos = L->item_pos[j];
            if (pos < 0 || v[j] == 0) {
                continue;
            }
            for (int p = 0; p < np; p++) {
                if ((v[j] >> p) & 1) {
                    pl[(size_t)p * nw + (size_t)(pos / 64)] |= (uint64_t)1
                                                               << (pos % 64);
                }
            }
        }
    }
}

/* Accumulates every unit's weighted sums into w->n/sa/sb (and the
** participant-mean sums). Cloned for CPUs with a popcount instruction; the
** default clone calls libgcc's software popcount. */
__attribute__((target_clones("popcnt", "default"))) static void
accumulate(const Layout *L, Work *w)
{
    const BootDesign *d = L->d;
    int nc = d->n_cells, ns = d->n_sets;
    size_t cells = (size_t)d->n_conds * (size_t)nc;
    if (ns > 0) {
        size_t sets = (size_t)d->n_conds * (size_t)ns;
        memset(w->pa, 0, sets * sizeof(double));
        memset(w->pb, 0, sets * sizeof(double));
        memset(w->pu, 0, sets * sizeof(double));
    }
    if (L->dense_any) {
        build_planes(L, w);
    }
    size_t nw = (size_t)L->n_words + 1;
    int64_t ln[BOOT_MAX_CELLS], la[BOOT_MAX_CELLS], lb[BOOT_MAX_CELLS];
    /* loop invariants in locals: the stores below would otherwise make the
    ** compiler reload them for every unit */
    const int *u = w->u, *ucond = d->unit_cond;
    const int *wlo = L->unit_wlo, *whi = L->unit_whi;
    const size_t *moff = L->unit_mask_off;
    const uint64_t *masks = L->masks;
    const uint8_t *word_cell = L->word_cell;
    int64_t *in = w->in, *ia = w->ia, *ib = w->ib;
    memset(in, 0, cells * sizeof(int64_t));
    memset(ia, 0, cells * sizeof(int64_t));
    memset(ib, 0, cells * sizeof(int64_t));
    int dense = L->dense_any;
    /* hot loop without branches: a unit drawn 0 times adds 0. Item weights
    ** below 16 (four bit planes) are the rule; then the planes are
    ** unrolled with constant shifts, absent planes being zero words. */
    const uint64_t *planes = w->planes;
    const FastUnit *fast = L->fast;
    for (int r = 0; r < L->n_runs; r++) {
        const FastRun *run = &L->runs[r];
        const uint64_t *pw =
            planes + (size_t)run->vs * MAX_PLANES * nw + (size_t)run->word;
        int np = w->n_planes[run->vs];
        int64_t cn = 0, ca = 0, cb = 0, su = 0;
        if (np <= 4) {
            uint64_t b0 = pw[0], b1 = pw[nw], b2 = pw[2 * nw], b3 = pw[3 * nw];
#define PC(M) ((int64_t)__builtin_popcountll(M))
/* the weighted count of mask M over the first 2, 3 or 4 planes (planes
** from n_planes on are zero words, so fewer terms give the same sum) */
#define WSUM2(M) (PC(b0 & (M)) + 2 * PC(b1 & (M)))
#define WSUM3(M) (WSUM2(M) + 4 * PC(b2 & (M)))
#define WSUM4(M) (WSUM3(M) + 8 * PC(b3 & (M)))
#define RUN_SAME_A(WSUM)                                                       \
    for (int f = run->first; f < run->end; f++) {                              \
        int64_t ui = u[fast[f].unit];                                          \
        su += ui;                                                              \
        ca += ui * WSUM(fast[f].P);                                            \
        cb += ui * WSUM(fast[f].Q);                                            \
    }                                                                          \
    cn = su * WSUM(fast[run->first].A)
            if (run->same_a && np <= 2) {
                RUN_SAME_A(WSUM2);
            } else if (run->same_a && np == 3) {
                RUN_SAME_A(WSUM3);
            } else if (run->same_a) {
                RUN_SAME_A(WSUM4);
            } else {
                for (int f = run->first; f < run->end; f++) {
                    int64_t ui = u[fast[f].unit];
                    cn += ui * WSUM4(fast[f].A);
                    ca += ui * WSUM4(fast[f].P);
                    cb += ui * WSUM4(fast[f].Q);
                }
            }
#undef RUN_SAME_A
#undef WSUM4
#undef WSUM3
#undef WSUM2
#undef PC
        } else {
            for (int f = run->first; f < run->end; f++) {
                int64_t ui = u[fast[f].unit], xn = 0, xa = 0, xb = 0;
                for (int p = 0; p < np; p++) {
                    uint64_t bits = pw[(size_t)p * nw];
                    xn += (int64_t)__builtin_popcountll(bits & fast[f].A) << p;
                    xa += (int64_t)__builtin_popcountll(bits & fast[f].P) << p;
                    xb += (int64_t)__builtin_popcountll(bits & fast[f].Q) << p;
                }
                cn += ui * xn;
                ca += ui * xa;
                cb += ui * xb;
            }
        }
        in[run->at] += cn;
        ia[run->at] += ca;
        ib[run->at] += cb;
    }
    for (int si = 0; si < L->n_slow; si++) {
        int i = L->slow[si];
        int64_t ui = u[i];
        if (ui == 0) {
            continue;
        }
        int c = ucond[i];
        int vs = L->n_vsets > 1 ? c : 0;
        const uint64_t *pl = w->planes + (size_t)vs * MAX_PLANES * nw;
        int np = w->n_planes[vs];
        for (int k = 0; k < nc; k++) {
            ln[k] = la[k] = lb[k] = 0;
        }
        if (dense && whi[i] > 0) {
            const uint64_t *m = masks + moff[i];
            int lo = wlo[i], span = whi[i] - lo;
            for (int x = 0; x < span; x++) {
                uint64_t A = m[x], P = m[span + x], Q = m[2 * span + x];
                int64_t cn = 0, ca = 0, cb = 0;
                for (int p = 0; p < np; p++) {
                    uint64_t bits = pl[(size_t)p * nw + (size_t)(lo + x)];
                    cn += (int64_t)__builtin_popcountll(bits & A) << p;
                    ca += (int64_t)__builtin_popcountll(bits & P) << p;
                    cb += (int64_t)__builtin_popcountll(bits & Q) << p;
                }
                int k = word_cell[lo + x];
                ln[k] += cn;
                la[k] += ca;
                lb[k] += cb;
            }
        } else {
            const int *v = w->v + (size_t)vs * (size_t)(d->n_items + 1);
            for (size_t p = d->unit_off[i]; p < d->unit_off[i + 1]; p++) {
                const BootPair *bp = &d->pairs[p];
                int vj = v[bp->item];
                ln[bp->cell] += vj;
                la[bp->cell] += vj * bp->ya;
                lb[bp->cell] += vj * bp->yb;
            }
        }
        size_t base = (size_t)c * (size_t)nc;
        for (int k = 0; k < nc; k++) {
            in[base + (size_t)k] += ui * ln[k];
            ia[base + (size_t)k] += ui * la[k];
            ib[base + (size_t)k] += ui * lb[k];
        }
        for (int s = 0; s < ns; s++) {
            int64_t sn = 0, sa = 0, sb = 0;
            for (int k = 0; k < nc; k++) {
                if ((d->set_cells[s] >> k) & 1) {
                    sn += ln[k];
                    sa += la[k];
                    sb += lb[k];
                }
            }
            if (sn > 0) {
                size_t at = (size_t)c * (size_t)ns + (size_t)s;
                w->pa[at] += (double)ui * (double)sa / (double)sn;
                w->pb[at] += (double)ui * (double)sb / (double)sn;
                w->pu[at] += (double)ui;
            }
        }
    }
    for (size_t x = 0; x < cells; x++) {
        w->n[x] = (double)in[x];
        w->sa[x] = (double)ia[x];
        w->sb[x] = (double)ib[x];
    }
}

static void call_stat(const BootRun *run, Work *w, double *out)
{
    BootSums sums = {w->n, w->sa, w->sb, w->pa, w->pb, w->pu};
    run->stat(run->ctx, &sums, w->scratch, out);
}

int boot_full(const BootDesign *d, const BootRun *run, double *out,
              SimError *err)
{
    Layout L;
    Work w;
    if (layout_init(&L, d) != 0 || work_init(&w, &L, run->scratch_size)) {
        layout_free(&L);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    all_ones(&L, &w);
    accumulate(&L, &w);
    call_stat(run, &w, out);
    work_free(&w);
    layout_free(&L);
    return SIM_OK;
}

int boot_draw_units(const BootDesign *d, uint64_t seed, int b, int *u)
{
    Layout L;
    Work w;
    if (layout_init(&L, d) != 0 || work_init(&w, &L, 0) != 0) {
        layout_free(&L);
        return -1;
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, (uint64_t)b);
    draw(&L, &w, &rng);
    memcpy(u, w.u, (size_t)d->n_units * sizeof(int));
    work_free(&w);
    layout_free(&L);
    return 0;
}

typedef struct Job {
    const Layout *L;
    const BootRun *run;
    double *out;
    int b0, b1;
    int failed;
    atomic_int *done;
    Progress *progress; /* the line this job updates (job 0's), or NULL */
} Job;

static void draw_progress(const BootRun *run, Progress *p, int done)
{
    char detail[64];
    snprintf(detail, sizeof detail, "%d of %d replicates", done,
             run->replicates);
    progress_set(p, (double)done / run->replicates, detail);
}

static void *job_main(void *arg)
{
    Job *job = arg;
    Work w;
    if (work_init(&w, job->L, job->run->scratch_size) != 0) {
        job->failed = 1;
        return NULL;
    }
    int last_drawn = -1;
    for (int b = job->b0; b < job->b1; b++) {
        SimRng rng;
        sim_rng_seed_stream(&rng, job->run->seed, (uint64_t)b);
        draw(job->L, &w, &rng);
        accumulate(job->L, &w);
        call_stat(job->run, &w,
                  job->out + (size_t)b * (size_t)job->run->n_stats);
        int done = atomic_fetch_add(job->done, 1) + 1;
        if (job->progress) {
            int step = job->run->replicates / 100 + 1;
            if (done / step != last_drawn) {
                last_drawn = done / step;
                draw_progress(job->run, job->progress, done);
            }
        }
    }
    work_free(&w);
    return NULL;
}

int boot_run(const BootDesign *d, const BootRun *run, double **out,
             SimError *err)
{
    *out = NULL;
    if (d->n_cells > BOOT_MAX_CELLS || d->n_cells < 1) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "bootstrap: %d cells (at most %d)", d->n_cells,
                        BOOT_MAX_CELLS);
    }
    Layout L;
    if (layout_init(&L, d) != 0) {
        layout_free(&L);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    size_t total = (size_t)run->replicates * (size_t)run->n_stats;
    double *res = sim_malloc((total > 0 ? total : 1) * sizeof(double));
    int threads = run->threads > 0 ? run->threads : 1;
    if (threads > run->replicates) {
        threads = run->replicates > 0 ? run->replicates : 1;
    }
    Job *jobs = sim_calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = sim_calloc((size_t)threads, sizeof *tids);
    if (!res || !jobs || !tids) {
        sim_free(res);
        sim_free(jobs);
        sim_free(tids);
        layout_free(&L);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    atomic_int done = 0;
    Progress line;
    progress_begin(&line, run->progress ? run->clock : NULL,
                   run->label ? run->label : "bootstrap");
    int failed = 0, started = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t].L = &L;
        jobs[t].run = run;
        jobs[t].out = res;
        jobs[t].b0 = (int)((long long)run->replicates * t / threads);
        jobs[t].b1 = (int)((long long)run->replicates * (t + 1) / threads);
        jobs[t].done = &done;
        jobs[t].progress = t == 0 ? &line : NULL;
    }
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, job_main, &jobs[t]) != 0) {
            failed = 1;
            break;
        }
        started = t;
    }
    if (!failed) {
        job_main(&jobs[0]);
    }
    for (int t = 1; t <= started; t++) {
        pthread_join(tids[t], NULL);
    }
    for (int t = 0; t < threads; t++) {
        failed |= jobs[t].failed;
    }
    progress_end(&line);
    sim_free(jobs);
    sim_free(tids);
    layout_free(&L);
    if (failed) {
        sim_free(res);
        return sim_fail(err, SIM_ERR_NOMEM,
                        "bootstrap: out of memory or no threads");
    }
    *out = res;
    return SIM_OK;
}
