/*
** Simulated studies for the coverage study and benchmarks (see simstudy.h).
*/
#include "bench/analysis/simstudy.h"

#include <math.h>
#include <stdio.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "analysis/stats.h"

typedef int (*EmitFn)(void *ctx, const char *participant, const char *condition,
                      const char *phase, const char *item, int correct);

static int walk(const SimStudy *st, uint64_t seed, const char *prefix,
                EmitFn emit, void *ctx)
{
    SimRng rng;
    sim_rng_seed(&rng, seed);
    double *v = sim_malloc((size_t)st->n_items * sizeof *v);
    if (!v) {
        return -1;
    }
    for (int j = 0; j < st->n_items; j++) {
        v[j] = st->sd_i * sim_rng_normal(&rng);
    }
    int rc = 0;
    char part[64], cond[32], item[32];
    for (int c = 0; c < st->n_conds && rc == 0; c++) {
        if (c == 0) {
            snprintf(cond, sizeof cond, "baseline");
        } else {
            snprintf(cond, sizeof cond, "c%d", c);
        }
        double lp[2] = {stats_logit(st->p_pre[c]), stats_logit(st->p_post[c])};
        for (int i = 0; i < st->users_per_cond && rc == 0; i++) {
            snprintf(part, sizeof part, "%s%d-%d", prefix, c, i);
            double u = st->sd_p * sim_rng_normal(&rng);
            for (int ph = 0; ph < 2 && rc == 0; ph++) {
                for (int j = 0; j < st->n_items && rc == 0; j++) {
                    snprintf(item, sizeof item, "i%d", j);
                    double pr = stats_expit(lp[ph] + u + v[j]);
                    int y = sim_rng_uniform(&rng) < pr;
                    rc = emit(ctx, part, cond, ph ? "post" : "pre", item, y);
                }
            }
        }
    }
    sim_free(v);
    return rc;
}

typedef struct DsCtx {
    Dataset *ds;
    SimError *err;
} DsCtx;

static int emit_ds(void *vctx, const char *participant, const char *condition,
                   const char *phase, const char *item, int correct)
{
    DsCtx *x = vctx;
    DatasetRow r = {0};
    r.participant = participant;
    r.condition = condition;
    r.phase = phase;
    r.item = item;
    r.correct = correct;
    r.rating = 0;
    r.rt_ms = NAN;
    return dataset_add(x->ds, &r, x->err);
}

int simstudy_generate(Dataset *ds, const SimStudy *st, uint64_t seed,
                      const char *prefix, SimError *err)
{
    DsCtx x = {ds, err};
    int rc = walk(st, seed, prefix, emit_ds, &x);
    if (rc != 0 && err->code == SIM_OK) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return rc;
}

static int emit_csv(void *vctx, const char *participant, const char *condition,
                    const char *phase, const char *item, int correct)
{
    FILE *f = vctx;
    return fprintf(f, "%s,%s,%s,%s,%d\n", participant, condition, phase, item,
                   correct) < 0;
}

int simstudy_write_csv(FILE *f, const SimStudy *st, uint64_t seed)
{
    fprintf(f, "participant,condition,phase,item,correct\n");
    return walk(st, seed, "p", emit_csv, f);
}

double simstudy_truth(double p, double s)
{
    /* Gauss-Hermite would do; a fine midpoint rule over +-10 sd is exact
    ** to double precision for this smooth integrand */
    double lp = stats_logit(p), sum = 0, h = 0.001;
    for (double z = -10 + h / 2; z < 10; z += h) {
        sum += stats_expit(lp + s * z) * exp(-0.5 * z * z);
    }
    return sum * h / sqrt(2 * 3.141592653589793);
}
