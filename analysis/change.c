/*
** The accuracy-change table of Hase & Bansal (2020): (participant, item)
** pairs answered in Pre and Post per subset (all, each domain, each test
** type), the random-effects Pre, and the crossed bootstrap of Change. Fills
** Report.change and Report.re and appends their tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/design.h"
#include "analysis/hase2020.h"
#include "analysis/teststat.h"
#include "common/sim_alloc.h"

typedef struct ChangeCtx {
    int n_conds, n_cells, n_subsets;
    const uint64_t *subset_cells;
    int drop_singular;
    int participant; /* --accuracy participant */
    int full;        /* output the extended full-sample vector */
} ChangeCtx;

int change_from_sums(const double *s_pre, const double *s_post, const double *n,
                     int n_conds, double *work, double *pre, ReFit *fit,
                     double *change)
{
    int ok = stats_re_fit(s_pre, n, n_conds, work, pre, fit);
    for (int c = 0; c < n_conds; c++) {
        change[c] = n[c] > 0 ? s_post[c] / n[c] - pre[c] : NAN;
    }
    return ok != 0 || fit->singular;
}

/* Replicate vector: [s * C + c] change, then [S * C + s] singular flag.
** Full vector: per (s, c) 5 values: pre_raw, pre_re, post, change, n; then
** per s: beta0, sigma, singular. */
static void change_stat(const void *vctx, const BootSums *sums, void *scratch,
                        double *out)
{
    const ChangeCtx *x = vctx;
    int C = x->n_conds;
    double *sn = scratch, *spre = sn + C, *spost = spre + C, *pre = spost + C,
           *chg = pre + C, *work = chg + C; /* 9 C doubles of workspace */
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
        int singular =
            change_from_sums(spre, spost, sn, C, work, pre, &fit, chg);
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
            /* the participant-level Change has no random-effects Pre */
            double change =
                x->participant ? (sn[c] > 0 ? post - pre_raw : NAN) : chg[c];
            if (x->full) {
                double *o = out + ((size_t)s * (size_t)C + (size_t)c) * 5;
                o[0] = pre_raw;
                o[1] = pre[c];
                o[2] = post;
                o[3] = change;
                o[4] = sn[c];
            } else {
                out[(size_t)s * (size_t)C + (size_t)c] = drop ? NAN : change;
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

/* The cells (domain x test type) of the pre/post responses, in order of
** first appearance. */
typedef struct Cells {
    KeyMap map;
    int *domain, *test_type;
    size_t cap;
    int n;
} Cells;

static void cells_free(Cells *c)
{
    keymap_free(&c->map);
    sim_free(c->domain);
    sim_free(c->test_type);
}

/* The cell of (domain, test_type), added when new; -1 when out of memory,
** -2 when there are too many. */
static int cell_of(Cells *c, int domain, int test_type)
{
    int added;
    int k = keymap_get(&c->map, compute_key2(domain, test_type), c->n, &added);
    if (k < 0 || !added) {
        return k;
    }
    if (c->n >= BOOT_MAX_CELLS) {
        return -2;
    }
    size_t c2 = c->cap;
    if (sim_grow((void **)&c->domain, &c->cap, (size_t)c->n + 1, sizeof(int)) !=
            0 ||
        sim_grow((void **)&c->test_type, &c2, (size_t)c->n + 1, sizeof(int)) !=
            0) {
        return -1;
    }
    c->cap = c2 < c->cap ? c2 : c->cap;
    c->domain[c->n] = domain;
    c->test_type[c->n] = test_type;
    return c->n++;
}

/* Collects the pairs answered in Pre and Post (the first answer in each
** phase counts; catch trials never) into x; items are keyed by (cell, item)
*because item ids
** repeat across domains. */
static int collect_prepost(const Dataset *ds, const Screen *sc, Design *x,
                           Cells *cells, SimError *err)
{
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (!design_counts(sc, row) || row->correct < 0 ||
            (row->phase != PHASE_PRE && row->phase != PHASE_POST)) {
            continue;
        }
        int cell =
            cell_of(cells, dataset_domain(ds, row), dataset_test_type(ds, row));
        if (cell == -2) {
            return sim_fail(err, SIM_ERR_INVALID,
                            "more than %d domain x test_type combinations",
                            BOOT_MAX_CELLS);
        }
        long p = cell < 0
                     ? -1
                     : design_pair(x, row->participant,
                                   sc->cond_index[row->condition],
                                   compute_key2(cell, row->item), cell, cell);
        if (p < 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        uint8_t *slot = row->phase == PHASE_PRE ? &x->raw[p].ya : &x->raw[p].yb;
        if (*slot == 255) {
            *slot = (uint8_t)row->correct;
        }
    }
    return design_keep_answered(x) == 0
               ? SIM_OK
               : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
}

/* Subsets: all, each domain, each test type; *n_out of them. */
static SubsetDef *make_subsets(const Dataset *ds, const Cells *cells,
                               int *n_out)
{
    int n_cells = cells->n;
    SubsetDef *subs = sim_calloc((size_t)(2 * n_cells + 1), sizeof *subs);
    if (!subs) {
        return NULL;
    }
    int S = 0;
    uint64_t all = n_cells == 64 ? UINT64_MAX : (((uint64_t)1 << n_cells) - 1);
    snprintf(subs[S].name, sizeof subs[S].name, "all");
    subs[S].cells = all;
    subs[S].alias_of = -1;
    S++;
    for (int pass = 0; pass < 2; pass++) {
        const int *attr = pass == 0 ? cells->domain : cells->test_type;
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
    *n_out = S;
    return subs;
}

static int change_text_tables(Report *r, SimError *err);
static int change_data_tables(Report *r, SimError *err);

int compute_change(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                   Report *r, SimError *err)
{
    Design x;
    design_init(&x);
    Cells cells;
    memset(&cells, 0, sizeof cells);
    SubsetDef *subs = NULL;
    int *dist = NULL; /* subset -> index among the distinct subsets */
    double *full = NULL, *reps = NULL, *tmp = NULL;
    uint64_t *sub_cells = NULL;
    int C = sc->n_conds;

    int rc = collect_prepost(ds, sc, &x, &cells, err);
    if (rc != SIM_OK || x.n_raw == 0) {
        goto cleanup; /* no pre/post data: no change table */
    }
    int n_cells = cells.n, S = 0;
    subs = make_subsets(ds, &cells, &S);
    if (!subs) {
        goto nomem;
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
    if ((rc = design_finish(&x, C, n_cells, n_cells, o, sub_cells, D, err))) {
        goto cleanup;
    }
    full = sim_calloc((size_t)D * ((size_t)C * 5 + 3), sizeof(double));
    if (!full) {
        goto nomem;
    }
    ChangeCtx ctx = {
        C, n_cells, D, sub_cells, o->drop_singular, o->accuracy_participant, 1};
    BootRun run = design_run(o, o->seed, "change");
    run.stat = change_stat;
    run.ctx = &ctx;
    run.scratch_size = (size_t)C * 9 * sizeof(double);
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
    rc = change_text_tables(r, err);
    goto cleanup;
nomem:
    rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
cleanup:
    if (rc == SIM_OK) {
        rc = change_data_tables(r, err); /* written even when empty */
    }
    cells_free(&cells);
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
/* Tables                                                               */

/* One table per subset in md: a "User Avg." row, then the conditions. */
static const TableColumn CHANGE_MD_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_responses", NULL, "n", TABLE_INT, "responses", 0, 0, 0},
    {"n_participants", NULL, "users", TABLE_INT, "participants", 0, 0, 0},
    {"pre_raw", NULL, "Pre", TABLE_PERCENT, "", 2, 0, 0},
    {"pre_re", NULL, "Pre (RE)", TABLE_PERCENT, "", 2, 0, 0},
    {"post", NULL, "Post", TABLE_PERCENT, "", 2, 0, 0},
    {"change", NULL, "Change", TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"boot_mean", NULL, "boot", TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "", 2, TABLE_SIGNED, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"replicates", NULL, "B", TABLE_INT, "replicates", 0, 0, 0},
    {"singular", NULL, NULL, TABLE_INT, "replicates", 0, 0, 0},
};

/* Hase & Bansal's Table 1 layout in tex: Pre is the random-effects Pre of
** a condition and the raw accuracy of the "User Avg." row. */
static const TableColumn CHANGE_TEX_COLS[] = {
    {"condition", NULL, "Method", TABLE_TEXT, "", 0, 0, 0},
    {"n_responses", NULL, "n", TABLE_INT, "responses", 0, 0, 0},
    {"pre", NULL, "Pre", TABLE_PERCENT, "", 2, 0, 0},
    {"change", NULL, "Change", TABLE_PERCENT, "", 2, 0, 0},
    {"ci", NULL, "CI", TABLE_PERCENT_INTERVAL, "", 2, TABLE_TEX_RIGHT, 0},
    {"p", NULL, "$p$", TABLE_PVALUE, "", 0, TABLE_TEX_LEFT, 0},
};

/* Every subset and condition in one table: change.csv and json "change". */
static const TableColumn CHANGE_COLS[] = {
    {"subset", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_responses", NULL, NULL, TABLE_INT, "responses", 0, 0, 0},
    {"n_participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"pre_raw", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"pre_re", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"post", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"change", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"boot_mean", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
    {"ci", NULL, NULL, TABLE_PERCENT_INTERVAL, "", 0, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"replicates", NULL, NULL, TABLE_INT, "replicates", 0, 0, 0},
    {"singular", NULL, NULL, TABLE_INT, "replicates", 0, 0, 0},
};

static const TableColumn RE_COLS[] = {
    {"subset", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"same_as", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"beta0", NULL, NULL, TABLE_REAL, "logit", 0, 0, 0},
    {"sigma", NULL, NULL, TABLE_REAL, "logit", 0, 0, 0},
    {"singular", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"n_responses", NULL, NULL, TABLE_INT, "responses", 0, 0, 0},
    {"n_participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"pre_raw", NULL, NULL, TABLE_PERCENT, "", 0, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static int subset_md(Report *r, const ReRow *re)
{
    char key[200];
    snprintf(key, sizeof key, "change/%s", re->subset);
    Table *t = report_add_table(r, key, TABLE_MD, CHANGE_MD_COLS,
                                re->same_as ? 0 : N_COLS(CHANGE_MD_COLS));
    if (!t) {
        return -1;
    }
    table_set_title(t, 3, re->subset);
    if (re->same_as) {
        return table_set_note(t, "The same responses as *%s* (above).",
                              re->same_as);
    }
    table_add_row(t);
    table_put_text(t, "User Avg.");
    table_put_num(t, re->n_responses);
    table_put_num(t, re->n_participants);
    table_put_num(t, re->pre_raw);
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        if (strcmp(c->subset, re->subset) != 0) {
            continue;
        }
        table_add_row(t);
        table_put_text(t, c->condition);
        table_put_num(t, c->n_responses);
        table_put_num(t, c->n_participants);
        table_put_num(t, c->pre_raw);
        table_put_num(t, c->pre_re);
        table_put_num(t, c->post);
        table_put_num(t, c->change);
        table_put_num(t, c->boot_mean);
        table_put_interval(t, c->ci_low, c->ci_high);
        table_put_num(t, c->p);
        table_put_num(t, c->replicates);
        table_put_num(t, c->singular);
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "Random effects: beta0 = ");
    table_fmt_num(&b, re->beta0, 4, 0, "-");
    sim_buf_puts(&b, ", sigma = ");
    table_fmt_num(&b, re->sigma, 4, 0, "-");
    sim_buf_printf(&b, "%s.", re->singular ? " (singular fit)" : "");
    int singular = 0, replicates = r->opt.replicates;
    for (int i = 0; i < r->n_change; i++) {
        if (strcmp(r->change[i].subset, re->subset) == 0) {
            singular = r->change[i].singular;
        }
    }
    if (replicates > 0) {
        sim_buf_printf(&b,
                       " %d of %d replicates had a singular random-effects "
                       "fit (sigma below 1e-4, where Pre (RE) of every "
                       "condition is the pooled Pre); %s.",
                       singular, replicates,
                       r->opt.drop_singular
                           ? "they were dropped (--drop-singular)"
                           : "they are kept (--drop-singular drops them)");
    }
    int rc = b.oom ? -1 : table_set_after(t, "%s", sim_buf_cstr(&b));
    sim_buf_free(&b);
    return rc;
}

static int subset_tex(Report *r, const ReRow *re)
{
    char key[200];
    snprintf(key, sizeof key, "change_tex/%s", re->subset);
    Table *t = report_add_table(r, key, TABLE_TEX, CHANGE_TEX_COLS,
                                N_COLS(CHANGE_TEX_COLS));
    if (!t) {
        return -1;
    }
    table_add_row(t);
    table_put_text(t, "User Avg.");
    table_put_num(t, re->n_responses);
    table_put_num(t, re->pre_raw);
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        if (strcmp(c->subset, re->subset) != 0) {
            continue;
        }
        table_add_row(t);
        table_put_text(t, c->condition);
        table_put_num(t, c->n_responses);
        table_put_num(t, c->pre_re);
        table_put_num(t, c->change);
        table_put_interval(t, c->ci_low, c->ci_high);
        table_put_num(t, c->p);
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "Change in user accuracy (\\%), ");
    table_tex_escape(&b, re->subset);
    sim_buf_puts(&b, ". Pre from the random-effects model; 95\\% bootstrap "
                     "CI (users $\\times$ items).");
    int rc = b.oom ? -1 : table_set_caption(t, sim_buf_cstr(&b));
    sim_buf_free(&b);
    return rc;
}

/* md: an introduction, then per subset its table (or a pointer to the
** subset with the same responses); tex: Hase & Bansal's layout per distinct
** subset; csv/json: every row in one table, and the random-effects fits. */
static int change_text_tables(Report *r, SimError *err)
{
    if (r->n_change == 0) {
        return SIM_OK;
    }
    Table *t = report_add_table(r, "change_intro", TABLE_MD, NULL, 0);
    if (!t || table_set_title(t, 2, "Accuracy change (Post - Pre)") != 0 ||
        table_set_note(t, "%s",
                       "Accuracies in %. n = pairs answered in both phases: "
                       "(participant, item) pairs with an answer in Pre and "
                       "in Post (catch trials never count); users = "
                       "participants with such a pair. Pre (RE) is the "
                       "random-effects estimate of Pre for the condition; "
                       "Change = Post - Pre (RE); boot = bootstrap mean; CI "
                       "= 95 % percentile interval; B = valid replicates; "
                       "singular = replicates whose random-effects fit was "
                       "singular (sigma = 0: every condition's Pre (RE) is "
                       "the pooled Pre).") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int s = 0; s < r->n_re; s++) {
        if (subset_md(r, &r->re[s]) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    for (int s = 0; s < r->n_re; s++) {
        if (!r->re[s].same_as && subset_tex(r, &r->re[s]) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}

static int change_data_tables(Report *r, SimError *err)
{
    Table *t = report_add_table(r, "change", TABLE_CSV | TABLE_JSON,
                                CHANGE_COLS, N_COLS(CHANGE_COLS));
    if (!t || table_set_note(t, "%s",
                             "Per subset and condition: (participant, item) "
                             "pairs answered in both Pre and Post (catch "
                             "trials excluded), "
                             "accuracies and Change as fractions, the "
                             "bootstrap mean, 95 % percentile interval and "
                             "p, valid and singular replicates.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        table_add_row(t);
        table_put_text(t, c->subset);
        table_put_text(t, c->condition);
        table_put_num(t, c->n_responses);
        table_put_num(t, c->n_participants);
        table_put_num(t, c->pre_raw);
        table_put_num(t, c->pre_re);
        table_put_num(t, c->post);
        table_put_num(t, c->change);
        table_put_num(t, c->boot_mean);
        table_put_interval(t, c->ci_low, c->ci_high);
        table_put_num(t, c->p);
        table_put_num(t, c->replicates);
        table_put_num(t, c->singular);
    }
    t = report_add_table(r, "random_effects", TABLE_JSON, RE_COLS,
                         N_COLS(RE_COLS));
    if (!t || table_set_note(t, "%s",
                             "Per subset: the random-effects fit of Pre "
                             "(beta0, sigma on the logit scale) and the "
                             "\"User Avg.\" row.") != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int s = 0; s < r->n_re; s++) {
        const ReRow *x = &r->re[s];
        table_add_row(t);
        table_put_text(t, x->subset);
        table_put_text(t, x->same_as);
        table_put_num(t, x->beta0);
        table_put_num(t, x->sigma);
        table_put_num(t, x->singular);
        table_put_num(t, x->n_responses);
        table_put_num(t, x->n_participants);
        table_put_num(t, x->pre_raw);
    }
    return SIM_OK;
}
