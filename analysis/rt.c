/*
** Reaction times: total time per participant (sum of rt_ms over their rows),
** then the median and mean per condition in seconds, as Colin et al.'s
** Table 2. Fills Report.rt and appends its table.
*/
#include <math.h>
#include <string.h>

#include "analysis/compute.h"
#include "common/sim_alloc.h"

static const TableColumn RT_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "users", TABLE_INT, "participants", 0, 0, 0},
    {"median_s", "median_total_s", "median", TABLE_REAL, "s", 1, 0, 0},
    {"mean_s", "mean_total_s", "mean", TABLE_REAL, "s", 1, 0, 0},
};

static int rt_table(Report *r, SimError *err)
{
    unsigned md = r->n_rt > 0 ? TABLE_MD : 0;
    Table *t = report_add_table(r, "rt", md | TABLE_CSV | TABLE_JSON, RT_COLS,
                                (int)(sizeof RT_COLS / sizeof RT_COLS[0]));
    if (!t ||
        table_set_title(t, 2, "Total time per participant (seconds)") != 0 ||
        table_set_note(t, "%s",
                       "Total time = the sum of a participant's response "
                       "times (rt_ms) over all their rows, catch trials "
                       "included; then the median and mean over the "
                       "participants of each condition.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < r->n_rt; i++) {
        table_add_row(t);
        table_put_text(t, r->rt[i].condition);
        table_put_num(t, r->rt[i].n_participants);
        table_put_num(t, r->rt[i].median_s);
        table_put_num(t, r->rt[i].mean_s);
    }
    return SIM_OK;
}

int compute_rt(const Dataset *ds, const Screen *sc, Report *r, SimError *err)
{
    int np = ds->n_participants, C = sc->n_conds;
    double *rt = sim_calloc((size_t)np + 1, sizeof(double));
    int *has_rt = sim_calloc((size_t)np + 1, sizeof(int));
    double *y = sim_malloc(((size_t)np + 1) * sizeof(double));
    r->rt = sim_calloc((size_t)C + 1, sizeof *r->rt);
    int rc = SIM_OK;
    if (!rt || !has_rt || !y || !r->rt) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        int p = row->participant;
        double t = dataset_rt_ms(ds, i);
        if (sc->keep[p] && isfinite(t)) {
            rt[p] += t;
            has_rt[p] = 1;
        }
    }
    for (int c = 0; c < C; c++) {
        int m = 0;
        if (sc->within) { /* a participant's time in condition c */
            memset(rt, 0, (size_t)np * sizeof *rt);
            memset(has_rt, 0, (size_t)np * sizeof *has_rt);
            for (size_t i = 0; i < ds->n_rows; i++) {
                const DatasetResponse *row = &ds->rows[i];
                double t = dataset_rt_ms(ds, i);
                if (sc->cond_index[row->condition] == c && isfinite(t)) {
                    rt[row->participant] += t;
                    has_rt[row->participant] = 1;
                }
            }
        }
        for (int p = 0; p < np; p++) {
            if (sc->keep[p] && has_rt[p] &&
                (sc->within ||
                 sc->cond_index[ds->participants[p].condition] == c)) {
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
    rc = rt_table(r, err);
cleanup:
    sim_free(rt);
    sim_free(has_rt);
    sim_free(y);
    return rc;
}
