/*
** The balance report: per pool TP/FP/TN/FN (first class = positive),
** correct vs incorrect, and same vs flip of counterfactuals overall and per
** prediction type; plus the warnings of each preset's balance rule.
*/
#include "stimuli/balance.h"
#include "stimuli/loader.h"
#include "stimuli/preset.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

static void count_item(PoolBalance *p, const Item *it)
{
    p->n++;
    int type = -1; /* 0 TP, 1 FP, 2 TN, 3 FN */
    if (it->label < 0) {
        p->unlabeled++;
    } else {
        int lab_pos = it->label == 0, pred_pos = it->prediction == 0;
        type = pred_pos ? (lab_pos ? 0 : 1) : (lab_pos ? 3 : 2);
        int *counts[4] = {&p->tp, &p->fp, &p->tn, &p->fn};
        (*counts[type])++;
        if (it->label == it->prediction) {
            p->correct++;
        } else {
            p->incorrect++;
        }
    }
    if (it->cf && it->prediction >= 0 && it->cf->prediction >= 0) {
        int same = it->cf->prediction == it->prediction;
        p->n_cf++;
        p->same += same;
        p->flip += !same;
        p->same_by_pred[it->prediction] += same;
        p->flip_by_pred[it->prediction] += !same;
        if (type >= 0) {
            p->same_by_type[type] += same;
            p->flip_by_type[type] += !same;
        }
    }
}

int study_balance(const Study *st, StudyReport *report, SimError *err)
{
    for (size_t i = 0; i < report->n_pools; i++) {
        sim_free(report->pools[i].pool);
        sim_free(report->pools[i].same_by_pred);
        sim_free(report->pools[i].flip_by_pred);
    }
    sim_free(report->pools);
    report->pools = NULL;
    report->n_pools = 0;
    size_t cap = st->n_items ? st->n_items : 1;
    PoolBalance *pools = sim_calloc(cap, sizeof *pools);
    if (!pools) {
        return sim_fail(err, SIM_ERR_NOMEM, "balance report: out of memory");
    }
    size_t n_pools = 0, n_classes = st->n_classes ? st->n_classes : 1;
    int rc = SIM_OK;
    for (size_t i = 0; i < st->n_items && rc == SIM_OK; i++) {
        const Item *it = &st->items[i];
        if (!it->pool) {
            continue;
        }
        size_t k = 0;
        while (k < n_pools && strcmp(pools[k].pool, it->pool) != 0) {
            k++;
        }
        if (k == n_pools) {
            PoolBalance *p = &pools[n_pools];
            p->pool = sim_strdup(it->pool);
            p->same_by_pred = sim_calloc(n_classes, sizeof *p->same_by_pred);
            p->flip_by_pred = sim_calloc(n_classes, sizeof *p->flip_by_pred);
            n_pools++;
            if (!p->pool || !p->same_by_pred || !p->flip_by_pred) {
                rc = sim_fail(err, SIM_ERR_NOMEM,
                              "balance report: out of memory");
                break;
            }
        }
        if (it->prediction >= 0 && (size_t)it->prediction < n_classes &&
            (!it->cf || it->cf->prediction < (int)n_classes)) {
            count_item(&pools[k], it);
        } else {
            pools[k].n++;
        }
    }
    report->pools = pools;
    report->n_pools = n_pools;
    return rc;
}

static const PoolBalance *find_pool(const StudyReport *rep, const char *pool)
{
    for (size_t i = 0; pool && i < rep->n_pools; i++) {
        if (strcmp(rep->pools[i].pool, pool) == 0) {
            return &rep->pools[i];
        }
    }
    return NULL;
}

static void warn(Loader *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(Loader *L, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ld_diag(L, 1, "study.json", 0, 0, "/protocol/preset", "preset", "%s: %s",
            L->st->preset, msg);
}

void balance_warnings(Loader *L, const StudyReport *rep)
{
    const Study *st = L->st;
    if (!st->preset) {
        return;
    }
    const PresetDesc *preset = preset_find(st->preset);
    BalanceRule rule = preset ? preset->balance : BALANCE_NONE;
    int hase = rule == BALANCE_HASE || rule == BALANCE_HASE_CF;
    int cf = rule == BALANCE_HASE_CF;
    char detail[256];
    if (hase) {
        const Block *pre = study_find_phase_block(st, SIM_PHASE_PRE);
        const PoolBalance *p = pre ? find_pool(rep, pre->pool) : NULL;
        if (p && (p->tp != p->fp || p->tp != p->tn || p->tp != p->fn ||
                  p->unlabeled)) {
            snprintf(detail, sizeof detail, "TP %d, FP %d, TN %d, FN %d%s",
                     p->tp, p->fp, p->tn, p->fn,
                     p->unlabeled ? ", some items without a label" : "");
            warn(L,
                 "test pool '%s' is not balanced (%s); the preset "
                 "wants equal TP, FP, TN and FN",
                 p->pool, detail);
        }
        static const char *const types[4] = {"TP", "FP", "TN", "FN"};
        for (int t = 0; cf && p && t < 4; t++) {
            if (p->same_by_type[t] != p->flip_by_type[t]) {
                snprintf(detail, sizeof detail, "%s: %d same, %d flip",
                         types[t], p->same_by_type[t], p->flip_by_type[t]);
                warn(L,
                     "counterfactuals of pool '%s' are not balanced "
                     "(%s); the preset wants half same and half flip "
                     "within each prediction type",
                     p->pool, detail);
            }
        }
    } else if (rule == BALANCE_META) {
        /* the first session's train and test blocks */
        const Block *train = study_find_phase_block(st, SIM_PHASE_TRAIN);
        const Block *blocks[2] = {train,
                                  study_find_phase_block(st, SIM_PHASE_TEST)};
        for (int k = 0; k < 2; k++) {
            const Block *b = blocks[k];
            const PoolBalance *p = b ? find_pool(rep, b->pool) : NULL;
            if (k == 1 && p && train && strcmp(train->pool, p->pool) == 0) {
                continue; /* same pool as the train pool: already checked */
            }
            if (p && p->correct != p->incorrect) {
                snprintf(detail, sizeof detail, "%d correct, %d incorrect",
                         p->correct, p->incorrect);
                warn(L,
                     "pool '%s' is not balanced (%s); the preset "
                     "wants 50 %% of the items correctly classified",
                     p->pool, detail);
            }
        }
    }
}
