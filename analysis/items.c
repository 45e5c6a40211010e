/*
** Item analysis for piloting: per item of each scored phase (every phase but
** practice; catch trials excluded; an item is (phase, domain, test type,
** item id) and the first answer of a participant counts), its accuracy
** overall and per condition, the item-rest correlation (Pearson's r of the
** 0/1 answer with the participant's accuracy on the other items of the
** phase: R's cor(y, rest)), and the flags ceiling (accuracy >= 95 %),
** floor (accuracy <= 5 %) and below chance (one-sided exact binomial test
** against the item's chance level, p < .05: 1 / the options offered on
** trials with per-item options, else 1/2). Fills Report.items and appends
** the items and items_by_condition tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "common/sim_alloc.h"

#define ITEM_CEILING_AT 0.95
#define ITEM_CHANCE     0.5
#define ITEM_FLOOR_AT   0.05
#define ITEM_ALPHA      0.05

/* One item: its identity as string ids and phase. */
typedef struct ItemKey {
    int phase, domain, test_type, item;
} ItemKey;

/* Sums over the first answers to one item, in the order of the rows. */
typedef struct ItemSums {
    int n, s;                         /* answers, correct ones */
    double chance;                    /* sum of each answer's chance level */
    double rn, sx, sy, sxx, syy, sxy; /* item-rest: answer x, rest score y */
} ItemSums;

/* Three passes over the rows, with only the item of each row stored: (1)
** the items; (2) each participant's first answers per phase, totalled; (3)
** the sums per item and per (item, condition). First answers are found with a
** participant x item bitmap when it is small, else a hash set. */
typedef struct ItemWork {
    KeyMap cells, items, seen, totals;
    ItemKey *keys;
    size_t cap_keys;
    int n_items;
    uint64_t *seen_bits; /* n_participants x n_items bits, or NULL */
    size_t seen_words;
    double *tot_s, *tot_n; /* per (participant, phase) slot */
    size_t cap_s, cap_n;
    int n_totals;
    ItemSums *sums; /* per item */
    int *row_item;  /* per row: its item, or -1 when it does not count */
    int *cs, *cn;   /* per (item, condition): correct, answers */
} ItemWork;

static void work_free(ItemWork *w)
{
    keymap_free(&w->cells);
    keymap_free(&w->items);
    keymap_free(&w->seen);
    keymap_free(&w->totals);
    sim_free(w->keys);
    sim_free(w->seen_bits);
    sim_free(w->tot_s);
    sim_free(w->tot_n);
    sim_free(w->sums);
    sim_free(w->row_item);
    sim_free(w->cs);
    sim_free(w->cn);
}

/* Whether a row enters the item analysis. */
static int item_row(const Screen *sc, const DatasetResponse *row)
{
    return design_scored(sc, row) && row->correct >= 0;
}

/* The index of the item of row, added when new; -1 when out of memory. */
static int item_index(const Dataset *ds, ItemWork *w,
                      const DatasetResponse *row)
{
    int added;
    int k = keymap_get(
        &w->cells,
        compute_key2(dataset_domain(ds, row), dataset_test_type(ds, row)),
        (int)w->cells.n, &added);
    if (k < 0) {
        return -1;
    }
    int j = keymap_get(
        &w->items,
        compute_key2(k * PHASE_COUNT + (int)row->phase, (int)row->item),
        w->n_items, &added);
    if (j < 0 || !added) {
        return j;
    }
    if (sim_grow((void **)&w->keys, &w->cap_keys, (size_t)w->n_items + 1,
                 sizeof *w->keys) != 0) {
        return -1;
    }
    ItemKey key = {(int)row->phase, dataset_domain(ds, row),
                   dataset_test_type(ds, row), (int)row->item};
    w->keys[w->n_items++] = key;
    return j;
}

/* The (participant, phase) slot of the rest scores; -1 when out of memory. */
static int total_index(ItemWork *w, int part, int phase)
{
    int added;
    int t =
        keymap_get(&w->totals, compute_key2(part, phase), w->n_totals, &added);
    if (t < 0 || !added) {
        return t;
    }
    if (sim_grow((void **)&w->tot_s, &w->cap_s, (size_t)w->n_totals + 1,
                 sizeof(double)) != 0 ||
        sim_grow((void **)&w->tot_n, &w->cap_n, (size_t)w->n_totals + 1,
                 sizeof(double)) != 0) {
        return -1;
    }
    w->tot_s[t] = w->tot_n[t] = 0;
    w->n_totals++;
    return t;
}

/* Forgets every answer seen; the bitmap when it takes at most 2 bytes per
** row. -1 when out of memory. */
static int seen_reset(const Dataset *ds, ItemWork *w)
{
    keymap_free(&w->seen);
    size_t bits = (size_t)ds->n_participants * (size_t)w->n_items;
    if (!w->seen_bits && bits / 16 <= ds->n_rows + 64) {
        w->seen_words = bits / 64 + 1;
        w->seen_bits = sim_malloc(w->seen_words * sizeof(uint64_t));
        if (!w->seen_bits) {
            return -1;
        }
    }
    if (w->seen_bits) {
        memset(w->seen_bits, 0, w->seen_words * sizeof(uint64_t));
    }
    return 0;
}

/* 1 when (participant, item j) is answered for the first time, 0 when it
** was seen, -1 when out of memory. */
static int first_answer(ItemWork *w, int part, int j)
{
    if (w->seen_bits) {
        size_t bit = (size_t)part * (size_t)w->n_items + (size_t)j;
        uint64_t m = (uint64_t)1 << (bit % 64);
        if (w->seen_bits[bit / 64] & m) {
            return 0;
        }
        w->seen_bits[bit / 64] |= m;
        return 1;
    }
    int added;
    if (keymap_get(&w->seen, compute_key2(part, j), 0, &added) < 0) {
        return -1;
    }
    return added;
}

static int collect(const Dataset *ds, const Screen *sc, ItemWork *w)
{
    w->row_item = sim_malloc((ds->n_rows + 1) * sizeof *w->row_item);
    if (!w->row_item) {
        return -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        int j = -1;
        if (item_row(sc, &ds->rows[i]) &&
            (j = item_index(ds, w, &ds->rows[i])) < 0) {
            return -1;
        }
        w->row_item[i] = j;
    }
    if (seen_reset(ds, w) != 0) {
        return -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int j = w->row_item[i];
        if (j < 0) {
            continue;
        }
        int first = first_answer(w, row->participant, j);
        if (first <= 0) {
            if (first < 0) {
                return -1;
            }
            continue; /* the first answer counts */
        }
        int t = total_index(w, row->participant, (int)row->phase);
        if (t < 0) {
            return -1;
        }
        w->tot_s[t] += row->correct;
        w->tot_n[t] += 1;
    }
    return 0;
}

/* The sums per item and per (item, condition), in the order of the rows:
** the same order as the answers of each item. */
static int item_sums(const Dataset *ds, const Screen *sc, ItemWork *w)
{
    size_t ni = (size_t)w->n_items, nc = (size_t)sc->n_conds;
    w->sums = sim_calloc(ni + 1, sizeof *w->sums);
    w->cs = sim_calloc(ni * nc + 1, sizeof *w->cs);
    w->cn = sim_calloc(ni * nc + 1, sizeof *w->cn);
    if (!w->sums || !w->cs || !w->cn || seen_reset(ds, w) != 0) {
        return -1;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int j = w->row_item[i];
        if (j < 0) {
            continue;
        }
        int first = first_answer(w, row->participant, j);
        if (first <= 0) {
            if (first < 0) {
                return -1;
            }
            continue;
        }
        ItemSums *a = &w->sums[j];
        int yv = row->correct;
        int n_options = dataset_trial(ds, i).n_options;
        a->n++;
        a->s += yv;
        a->chance += n_options > 0 ? 1.0 / n_options : ITEM_CHANCE;
        size_t at = (size_t)j * nc + (size_t)sc->cond_index[row->condition];
        w->cs[at] += yv;
        w->cn[at]++;
        int t = keymap_find(&w->totals,
                            compute_key2(row->participant, (int)row->phase));
        if (t < 0 || w->tot_n[t] < 2) {
            continue;
        }
        double x = yv, y = (w->tot_s[t] - yv) / (w->tot_n[t] - 1);
        a->rn += 1;
        a->sx += x;
        a->sy += y;
        a->sxx += x * x;
        a->syy += y * y;
        a->sxy += x * y;
    }
    return 0;
}

/* Pearson's r of the answers to item j with the rest scores; NaN with
** fewer than 3 participants or no variance. */
static double item_rest(const ItemWork *w, int j)
{
    const ItemSums *a = &w->sums[j];
    double n = a->rn, sx = a->sx, sy = a->sy;
    if (n < 3) {
        return NAN;
    }
    double vx = a->sxx - sx * sx / n, vy = a->syy - sy * sy / n;
    double cxy = a->sxy - sx * sy / n;
    return vx > 1e-12 && vy > 1e-12 ? cxy / sqrt(vx * vy) : NAN;
}

static const TableColumn ITEM_COLS[] = {
    {"phase", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"domain", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"test_type", NULL, "test type", TABLE_TEXT, "", 0, 0, 0},
    {"item", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "answers", 0, 0, 0},
    {"accuracy", NULL, NULL, TABLE_PERCENT, "", 1, 0, 0},
    {"item_rest", NULL, "item-rest r", TABLE_REAL, "correlation", 2, 0, 0},
    {"chance", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"p_below_chance", NULL, "p (< chance)", TABLE_PVALUE, "", 0, 0, 0},
    {"ceiling", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"floor", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"below_chance", NULL, "below chance", TABLE_BOOL, "", 0, 0, 0},
};

static const TableColumn ITEM_COND_COLS[] = {
    {"phase", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"domain", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"test_type", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"item", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "answers", 0, 0, 0},
    {"accuracy", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static const char *or_null(const Dataset *ds, int id)
{
    return id > 0 ? dataset_str(ds, id) : NULL;
}

/* md lists every item up to this many, otherwise the flagged ones only. */
#define ITEM_MD_MAX 60

static void put_item(Table *t, const Dataset *ds, const ItemKey *k,
                     const ItemRow *it)
{
    table_add_row(t);
    table_put_text(t, dataset_phase_name(k->phase));
    table_put_text(t, or_null(ds, k->domain));
    table_put_text(t, or_null(ds, k->test_type));
    table_put_text(t, dataset_str(ds, k->item));
    table_put_num(t, it->n);
    table_put_num(t, it->accuracy);
    table_put_num(t, it->item_rest);
    table_put_num(t, it->chance);
    table_put_num(t, it->p_below);
    table_put_num(t, (it->flags & ITEM_CEILING) != 0);
    table_put_num(t, (it->flags & ITEM_FLOOR) != 0);
    table_put_num(t, (it->flags & ITEM_BELOW_CHANCE) != 0);
}

static int item_note(Table *t)
{
    return table_set_note(
        t,
        "Per item of each scored phase (catch trials and practice excluded; "
        "a participant's first answer counts): n answers, accuracy in %%, "
        "item-rest r = correlation of the 0/1 answer with the participant's "
        "accuracy on the other items of the phase (low or negative: the item "
        "does not measure what the others do), chance = the accuracy of "
        "guessing: 1 / the options offered on trials with per-item answer "
        "options (their mean over the item's answers), else %.0f %% (two "
        "choices), p (< chance) = one-sided exact binomial test of accuracy "
        "< chance. Flags: ceiling = accuracy >= %.0f %%; floor = accuracy "
        "<= %.0f %%; below chance = p (< chance) < %.2f.",
        100 * ITEM_CHANCE, 100 * ITEM_CEILING_AT, 100 * ITEM_FLOOR_AT,
        ITEM_ALPHA);
}

/* csv/json: every item and every (item, condition); md: every item, or
** only the flagged ones when there are more than ITEM_MD_MAX. */
static int item_tables(const Dataset *ds, const Screen *sc, ItemWork *w,
                       Report *r, SimError *err)
{
    Table *t = report_add_table(r, "items", TABLE_CSV | TABLE_JSON, ITEM_COLS,
                                N_COLS(ITEM_COLS));
    Table *md = r->n_items > 0 ? report_add_table(r, "items_md", TABLE_MD,
                                                  ITEM_COLS, N_COLS(ITEM_COLS))
                               : NULL;
    Table *tc =
        report_add_table(r, "items_by_condition", TABLE_CSV | TABLE_JSON,
                         ITEM_COND_COLS, N_COLS(ITEM_COND_COLS));
    if (!t || !tc || (r->n_items > 0 && !md) || item_note(t) != 0 ||
        (md && (table_set_title(md, 2, "Items (for piloting)") != 0 ||
                item_note(md) != 0)) ||
        table_set_note(tc, "%s",
                       "Accuracy of each item per condition (the "
                       "participant's first answer; catch trials "
                       "excluded).") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int flagged = 0, all = r->n_items <= ITEM_MD_MAX;
    for (int j = 0; j < r->n_items; j++) {
        const ItemKey *k = &w->keys[j];
        const ItemRow *it = &r->items[j];
        flagged += it->flags != 0;
        put_item(t, ds, k, it);
        if (all || it->flags != 0) {
            put_item(md, ds, k, it);
        }
        for (int c = 0; c < sc->n_conds; c++) {
            size_t at = (size_t)j * (size_t)sc->n_conds + (size_t)c;
            double s = w->cs[at], n = w->cn[at];
            if (n == 0) {
                continue;
            }
            table_add_row(tc);
            table_put_text(tc, dataset_phase_name(k->phase));
            table_put_text(tc, or_null(ds, k->domain));
            table_put_text(tc, or_null(ds, k->test_type));
            table_put_text(tc, dataset_str(ds, k->item));
            table_put_text(tc, dataset_str(ds, sc->conds[c]));
            table_put_num(tc, n);
            table_put_num(tc, s / n);
        }
    }
    if (md && table_set_after(md,
                              "%d of %d items flagged%s. Every item: "
                              "items.csv; per condition: "
                              "items_by_condition.csv; plot: items.png.",
                              flagged, r->n_items,
                              all ? "" : " (only those are listed)") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

int compute_items(const Dataset *ds, const Screen *sc, Report *r, SimError *err)
{
    ItemWork w;
    memset(&w, 0, sizeof w);
    int rc = SIM_OK;
    if (collect(ds, sc, &w) != 0 || item_sums(ds, sc, &w) != 0) {
        goto nomem;
    }
    if (w.n_items > 0) {
        r->items = sim_calloc((size_t)w.n_items, sizeof *r->items);
        if (!r->items) {
            goto nomem;
        }
    }
    for (int j = 0; j < w.n_items; j++) {
        int s = w.sums[j].s, n = w.sums[j].n;
        ItemRow *it = &r->items[r->n_items++];
        const ItemKey *k = &w.keys[j];
        snprintf(it->label, sizeof it->label, "%s%s%.40s%s%.40s/%.60s",
                 dataset_phase_name(k->phase), k->domain ? "/" : "",
                 dataset_str(ds, k->domain), k->test_type ? "/" : "",
                 dataset_str(ds, k->test_type), dataset_str(ds, k->item));
        it->n = n;
        it->accuracy = (double)s / n;
        it->item_rest = item_rest(&w, j);
        it->chance = w.sums[j].chance / n;
        it->p_below = gsl_cdf_binomial_P((unsigned)s, it->chance, (unsigned)n);
        it->flags = (it->accuracy >= ITEM_CEILING_AT ? ITEM_CEILING : 0u) |
                    (it->accuracy <= ITEM_FLOOR_AT ? ITEM_FLOOR : 0u) |
                    (it->p_below < ITEM_ALPHA ? ITEM_BELOW_CHANCE : 0u);
    }
    rc = item_tables(ds, sc, &w, r, err);
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    work_free(&w);
    return rc;
}
