/*
** Hase & Bansal's block bootstrap (see hase2020.h). Rows are materialised
** as index arrays, as in their R code; fine for studies of their size.
*/
#include "analysis/hase2020.h"

#include <math.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "analysis/stats.h"

typedef struct Rows {
    int n;         /* rows of the subset */
    int *unit_off; /* rows of pooled unit k: [unit_off[k], unit_off[k+1]) */
    int n_units;
    int *item; /* per row */
    int *cond;
    uint8_t *pre, *post;
} Rows;

static void rows_free(Rows *r)
{
    sim_free(r->unit_off);
    sim_free(r->item);
    sim_free(r->cond);
    sim_free(r->pre);
    sim_free(r->post);
}

static int rows_init(Rows *r, const BootDesign *d, uint64_t cells)
{
    size_t np = d->unit_off[d->n_units];
    memset(r, 0, sizeof *r);
    r->unit_off = sim_calloc((size_t)d->n_units + 2, sizeof(int));
    r->item = sim_malloc((np + 1) * sizeof(int));
    r->cond = sim_malloc((np + 1) * sizeof(int));
    r->pre = sim_malloc(np + 1);
    r->post = sim_malloc(np + 1);
    if (!r->unit_off || !r->item || !r->cond || !r->pre || !r->post) {
        return -1;
    }
    for (int u = 0; u < d->n_units; u++) {
        int start = r->n;
        for (size_t p = d->unit_off[u]; p < d->unit_off[u + 1]; p++) {
            if ((cells >> d->pairs[p].cell) & 1) {
                r->item[r->n] = d->pairs[p].item;
                r->cond[r->n] = d->unit_cond[u];
                r->pre[r->n] = d->pairs[p].ya;
                r->post[r->n] = d->pairs[p].yb;
                r->n++;
            }
        }
        if (r->n > start) {
            r->unit_off[++r->n_units] = r->n;
        }
    }
    return 0;
}

int hase2020_run(const BootDesign *d, const uint64_t *subset_cells,
                 int n_subsets, const AnalyzeOptions *o, double **out,
                 SimError *err)
{
    int S = n_subsets, C = d->n_conds, B = o->replicates;
    size_t stride = (size_t)(S * C + S);
    double *res = sim_malloc(((size_t)B * stride + 1) * sizeof(double));
    Rows *rows = sim_calloc((size_t)S, sizeof *rows);
    int np = (int)d->unit_off[d->n_units] + 1;
    int *first = sim_malloc((size_t)np * sizeof(int));  /* user stage */
    int *second = sim_malloc((size_t)np * sizeof(int)); /* item stage */
    int *item_cnt = sim_calloc((size_t)d->n_items + 1, sizeof(int));
    int *item_off = sim_calloc((size_t)d->n_items + 2, sizeof(int));
    int *by_item = sim_malloc((size_t)np * sizeof(int));
    int *present = sim_malloc(((size_t)d->n_items + 1) * sizeof(int));
    double *sn = sim_malloc((size_t)C * 8 * sizeof(double) + 8);
    int rc = SIM_OK;
    if (!res || !rows || !first || !second || !item_cnt || !item_off ||
        !by_item || !present || !sn) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    double *spre = sn + C, *spost = spre + C, *pre = spost + C;
    double *eta = pre + C; /* 4 C doubles of workspace */
    for (int s = 0; s < S; s++) {
        if (rows_init(&rows[s], d, subset_cells[s]) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            goto cleanup;
        }
    }
    for (int b = 0; b < B; b++) {
        SimRng rng;
        sim_rng_seed_stream(&rng, o->seed, (uint64_t)b);
        double *outb = res + (size_t)b * stride;
        for (int s = 0; s < S; s++) {
            const Rows *r = &rows[s];
            int N = r->n, m = 0;
            /* users: whole blocks until N rows, truncated */
            while (m < N) {
                int u = (int)sim_rng_below(&rng, (uint64_t)r->n_units);
                for (int i = r->unit_off[u]; i < r->unit_off[u + 1] && m < N;
                     i++) {
                    first[m++] = i;
                }
            }
            /* items present in the user sample, with their rows in order */
            int n_present = 0;
            for (int i = 0; i < N; i++) {
                int j = r->item[first[i]];
                if (item_cnt[j]++ == 0) {
                    present[n_present++] = j;
                }
            }
            item_off[0] = 0;
            for (int q = 0; q < n_present; q++) {
                int j = present[q];
                item_off[q + 1] = item_off[q] + item_cnt[j];
                item_cnt[j] = q; /* reuse as the item's block index */
            }
            int *fill = second; /* temporary: fill pointers */
            for (int q = 0; q < n_present; q++) {
                fill[q] = item_off[q];
            }
            for (int i = 0; i < N; i++) {
                int q = item_cnt[r->item[first[i]]];
                by_item[fill[q]++] = first[i];
            }
            for (int q = 0; q < n_present; q++) {
                item_cnt[present[q]] = 0;
            }
            /* items: whole blocks until N rows, truncated */
            for (int c = 0; c < C; c++) {
                sn[c] = spre[c] = spost[c] = 0;
            }
            m = 0;
            while (m < N) {
                int q = (int)sim_rng_below(&rng, (uint64_t)n_present);
                for (int i = item_off[q]; i < item_off[q + 1] && m < N;
                     i++, m++) {
                    int row = by_item[i];
                    sn[r->cond[row]] += 1;
                    spre[r->cond[row]] += r->pre[row];
                    spost[r->cond[row]] += r->post[row];
                }
            }
            ReFit fit;
            int ok = stats_re_fit(spre, sn, C, eta, pre, &fit);
            int singular = ok != 0 || fit.singular;
            for (int c = 0; c < C; c++) {
                outb[s * C + c] =
                    singular || !(sn[c] > 0) ? NAN : spost[c] / sn[c] - pre[c];
            }
            outb[S * C + s] = singular;
        }
    }
cleanup:
    for (int s = 0; rows && s < S; s++) {
        rows_free(&rows[s]);
    }
    sim_free(rows);
    sim_free(first);
    sim_free(second);
    sim_free(item_cnt);
    sim_free(item_off);
    sim_free(by_item);
    sim_free(present);
    sim_free(sn);
    if (rc != SIM_OK) {
        sim_free(res);
        res = NULL;
    }
    *out = res;
    return rc;
}
