/*
** Item analysis for piloting: per item of each scored phase (every phase but
** practice; catch trials excluded; an item is (phase, domain, test type,
** item id) and the first answer of a participant counts), its accuracy
** overall and per condition, the item-rest correlation (Pearson's r of the
** 0/1 answer with the participant's accuracy on the other items of the
** phase: R's cor(y, rest)), and the flags ceiling (accuracy >= 95 %),
** floor (accuracy <= 5 %) and below chance
** (one-sided exact binomial test against 0.5, p < .05). Fills Report.items
** and appends the items and items_by_condition tables.
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

/* The first answer of a participant to an item. */
typedef struct Answer {
    int part, item, cond;
    int y;
} Answer;

/* One item: its identity as string ids and phase. */
typedef struct ItemKey {
    int phase, domain, test_type, item;
} ItemKey;

typedef struct ItemWork {
    KeyMap cells, items, seen, totals;
    ItemKey *keys;
    size_t cap_keys;
    int n_items;
    Answer *ans;
    size_t n_ans, cap_ans;
    double *tot_s, *tot_n; /* per (participant, phase) slot */
    size_t cap_s, cap_n;
    int n_totals;
    size_t *off; /* answers of item j: by_item[off[j] .. off[j + 1]) */
    size_t *by_item;
    double *cs, *cn; /* per-condition sums of one item */
} ItemWork;

static void work_free(ItemWork *w)
{
    keymap_free(&w->cells);
    keymap_free(&w->items);
    keymap_free(&w->seen);
    keymap_free(&w->totals);
    sim_free(w->keys);
    sim_free(w->ans);
    sim_free(w->tot_s);
    sim_free(w->tot_n);
    sim_free(w->off);
    sim_free(w->by_item);
    sim_free(w->cs);
    sim_free(w->cn);
}

/* Groups the answers by item (counting sort); -1 when out of memory. */
static int group_by_item(ItemWork *w, int n_conds)
{
    w->off = sim_calloc((size_t)w->n_items + 2, sizeof *w->off);
    w->by_item = sim_malloc((w->n_ans + 1) * sizeof *w->by_item);
    w->cs = sim_calloc((size_t)n_conds + 1, sizeof *w->cs);
    w->cn = sim_calloc((size_t)n_conds + 1, sizeof *w->cn);
    if (!w->off || !w->by_item || !w->cs || !w->cn) {
        return -1;
    }
    for (size_t i = 0; i < w->n_ans; i++) {
        w->off[w->ans[i].item + 1]++;
    }
    for (int j = 0; j < w->n_items; j++) {
        w->off[j + 1] += w->off[j];
    }
    for (size_t i = 0; i < w->n_ans; i++) {
        int j = w->ans[i].item;
        w->by_item[w->off[j]++] = i;
    }
    /* off[j] now points past item j: shift back */
    for (int j = w->n_items; j > 0; j--) {
        w->off[j] = w->off[j - 1];
    }
    w->off[0] = 0;
    return 0;
}

/* The index of the item of row, added when new; -1 when out of memory. */
static int item_index(ItemWork *w, const DatasetResponse *row)
{
    int added;
    int k = keymap_get(&w->cells, compute_key2(row->domain, row->test_type),
                       (int)w->cells.n, &added);
    if (k < 0) {
        return -1;
    }
    int j = keymap_get(&w->items,
                       compute_key2(k * PHASE_COUNT + row->phase, row->item),
                       w->n_items, &added);
    if (j < 0 || !added) {
        return j;
    }
    if (sim_grow((void **)&w->keys, &w->cap_keys, (size_t)w->n_items + 1,
                 sizeof *w->keys) != 0) {
        return -1;
    }
    ItemKey key = {row->phase, row->domain, row->test_type, row->item};
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

static int collect(const Dataset *ds, const Screen *sc, ItemWork *w)
{
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_counts(sc, row) || row->correct < 0 ||
            row->phase == PHASE_PRACTICE) {
            continue;
        }
        int j = item_index(w, row);
        if (j < 0) {
            return -1;
        }
        int added;
        if (keymap_get(&w->seen, compute_key2(row->participant, j), 0, &added) <
            0) {
            return -1;
        }
        if (!added) {
            continue; /* the first answer counts */
        }
        int t = total_index(w, row->participant, row->phase);
        if (t < 0 || (w->n_ans == w->cap_ans &&
                      sim_grow((void **)&w->ans, &w->cap_ans, w->n_ans + 1,
                               sizeof *w->ans) != 0)) {
            return -1;
        }
        Answer a = {row->participant, j, sc->cond_index[row->condition],
                    row->correct};
        w->ans[w->n_ans++] = a;
        w->tot_s[t] += row->correct;
        w->tot_n[t] += 1;
    }
    return 0;
}

/* Pearson's r of the answers to item j with the rest scores; NaN with
** fewer than 3 participants or no variance. */
static double item_rest(const ItemWork *w, int j)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (size_t q = w->off[j]; q < w->off[j + 1]; q++) {
        const Answer *a = &w->ans[w->by_item[q]];
        int t =
            keymap_find(&w->totals, compute_key2(a->part, w->keys[j].phase));
        if (t < 0 || w->tot_n[t] < 2) {
            continue;
        }
        double x = a->y, y = (w->tot_s[t] - a->y) / (w->tot_n[t] - 1);
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    if (n < 3) {
        return NAN;
    }
    double vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
    double cxy = sxy - sx * sy / n;
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
        "does not measure what the others do), p (< chance) = one-sided "
        "exact binomial test of accuracy < %.0f %% (chance in a two-choice "
        "task). Flags: ceiling = accuracy >= %.0f %%; floor = accuracy <= "
        "%.0f %%; below chance = p (< chance) < %.2f.",
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
            w->cs[c] = w->cn[c] = 0;
        }
        for (size_t q = w->off[j]; q < w->off[j + 1]; q++) {
            const Answer *a = &w->ans[w->by_item[q]];
            w->cs[a->cond] += a->y;
            w->cn[a->cond] += 1;
        }
        for (int c = 0; c < sc->n_conds; c++) {
            double s = w->cs[c], n = w->cn[c];
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
    if (collect(ds, sc, &w) != 0 || group_by_item(&w, sc->n_conds) != 0) {
        goto nomem;
    }
    if (w.n_items > 0) {
        r->items = sim_calloc((size_t)w.n_items, sizeof *r->items);
        if (!r->items) {
            goto nomem;
        }
    }
    for (int j = 0; j < w.n_items; j++) {
        int s = 0, n = 0;
        for (size_t q = w.off[j]; q < w.off[j + 1]; q++) {
            s += w.ans[w.by_item[q]].y;
            n++;
        }
        ItemRow *it = &r->items[r->n_items++];
        const ItemKey *k = &w.keys[j];
        snprintf(it->label, sizeof it->label, "%s%s%.40s%s%.40s/%.60s",
                 dataset_phase_name(k->phase), k->domain ? "/" : "",
                 dataset_str(ds, k->domain), k->test_type ? "/" : "",
                 dataset_str(ds, k->test_type), dataset_str(ds, k->item));
        it->n = n;
        it->accuracy = (double)s / n;
        it->item_rest = item_rest(&w, j);
        it->p_below = gsl_cdf_binomial_P((unsigned)s, ITEM_CHANCE, (unsigned)n);
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
