/*
** The mixed-effects logistic model against lme4::glmer: the fixtures of
** tests/data/glmm (null, effect, unbalanced, singular, test-only with
** sessions, within-subject) and the goldens make_glmm.R wrote with R; the
** exact gradient against differences of the deviance; the structure taken
** and report.json's "glmm"; --calibrate on a small study.
*/
#include "tests/harness.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/compute.h"
#include "analysis/dataset.h"
#include "analysis/glmm_design.h"
#include "analysis/glmm_int.h"
#include "common/sim_rng.h"

#define DATA SIMLAB_TEST_DATA "/glmm/"

/* One golden fit: its lines of glmm_goldens.txt. */
typedef struct Golden {
    char lines[64][256];
    int n;
    double loglik, loglik_tight;
    int singular, singular_tight;
} Golden;

static int load_golden(const char *data, const char *st, Golden *g)
{
    static const char *const files[] = {DATA "glmm_goldens.txt",
                                        DATA "glmm_goldens_incomplete.txt"};
    char line[256], kind[16], d[32], s[32];
    memset(g, 0, sizeof *g);
    int found = 0;
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(files[k], "r");
        while (f && fgets(line, sizeof line, f)) {
            if (sscanf(line, "%15s %31s %31s", kind, d, s) != 3 ||
                strcmp(d, data) != 0 || strcmp(s, st) != 0) {
                continue;
            }
            if (strcmp(kind, "fit") == 0) {
                sscanf(line, "fit %*s %*s %lf %lf %d %d", &g->loglik,
                       &g->loglik_tight, &g->singular, &g->singular_tight);
                found = 1;
            } else if (g->n < 64) {
                snprintf(g->lines[g->n++], sizeof g->lines[0], "%s", line);
            }
        }
        if (f) {
            fclose(f);
        }
    }
    return found;
}

/* A name as the goldens write it: spaces as underscores, no quotes. */
static void golden_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < size; c++) {
        if (*c != '`') {
            out[n++] = *c == ' ' ? '_' : *c;
        }
    }
    out[n] = '\0';
}

typedef struct Loaded {
    Dataset *ds;
    Screen sc;
    Report r;
    GlmmDesign d;
} Loaded;

static int load(const char *name, Loaded *x)
{
    char path[512];
    snprintf(path, sizeof path, DATA "%s.csv", name);
    SimError err;
    AnalyzeOptions o;
    analyze_options_default(&o);
    memset(x, 0, sizeof *x);
    const char *why;
    if (dataset_new(&x->ds, &err) != SIM_OK ||
        dataset_load_csv(x->ds, path, &err) != SIM_OK ||
        screen_participants(x->ds, &o, &x->r, &x->sc, &err) != SIM_OK ||
        screen_design(x->ds, &x->sc, &x->r, &err) != SIM_OK ||
        glmm_design_build(x->ds, &x->sc, &x->d, &why, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    return 0;
}

static void unload(Loaded *x)
{
    glmm_design_free(&x->d);
    screen_free(&x->sc);
    report_free(&x->r);
    dataset_free(x->ds);
}

static int structure_of(const char *st)
{
    return strcmp(st, "full") == 0           ? GLMM_FULL
           : strcmp(st, "uncorrelated") == 0 ? GLMM_UNCORRELATED
                                             : GLMM_INTERCEPTS;
}

/* Fits one structure and compares it with lme4. Against glmer with its
** PIRLS tolerance tightened (tolPwrss = 1e-13, the optimum to more
** digits): fixed effects within 1e-3, standard errors within 1 %,
** log-likelihood within 1e-3, random-effect SDs within sd_tol. Against
** glmer's defaults, which stop up to 1.2e-3 short of the optimum on these
** data: fixed effects within 2.5e-3, standard errors within 2 %,
** log-likelihood within 1e-3. The singular flag where both fits agree. */
static void check_fit(const char *data, const char *st, double sd_tol,
                      int general)
{
    Loaded x;
    Golden g;
    if (load(data, &x) != 0 || !load_golden(data, st, &g)) {
        CHECK(!"fixture or golden missing");
        return;
    }
    GlmmModel m;
    GlmmFit f;
    SimError err;
    glmm_design_model(&x.d, structure_of(st), &m);
    m.general = general;
    CHECK_INT(glmm_fit(&m, &f, &err), SIM_OK);
    fprintf(stderr, "%s %s%s: loglik %.6f (lme4 %.6f, tight %.6f), %d evals\n",
            data, st, general ? " (CHOLMOD)" : "", f.loglik, g.loglik,
            g.loglik_tight, f.n_evals);
    CHECK(f.converged);
    CHECK_NEAR(f.loglik, g.loglik, 1e-3);
    CHECK_NEAR(f.loglik, g.loglik_tight, 1e-3);
    /* an SD within 1e-3 of 0 is at lme4's singularity tolerance (1e-4)
    ** only by where its optimiser stopped on a flat likelihood */
    int flat = 0;
    for (int i = 0; i < g.n; i++) {
        double sd_t;
        if (sscanf(g.lines[i], "sd %*s %*s %*s %*s %*f %lf", &sd_t) == 1) {
            flat |= sd_t < 1e-3;
        }
        /* lme4's smallest diagonal of Lambda within 1e-2 of 0 (a
        ** correlation near -1 in incomplete.csv's 3 x 3 term): the same
        ** flat ridge, where simlab may stop below 1e-4 at the same log L */
        if (sscanf(g.lines[i], "mindiag %*s %*s %lf", &sd_t) == 1) {
            flat |= sd_t < 1e-2;
        }
    }
    if (g.singular == g.singular_tight && (g.singular || !flat)) {
        CHECK_INT(f.singular, g.singular);
    }
    int n_beta = 0, n_sd = 0;
    for (int i = 0; i < g.n; i++) {
        char kind[16], grp[32], a[96], b[96];
        double v1, v2, v3, v4;
        if (sscanf(g.lines[i], "beta %*s %*s %95s %lf %lf %lf %lf", a, &v1, &v2,
                   &v3, &v4) == 5) {
            int j = 0;
            char nm[GLMM_NAME_MAX];
            while (j < x.d.p) {
                golden_name(x.d.names[j], nm, sizeof nm);
                if (strcmp(nm, a) == 0) {
                    break;
                }
                j++;
            }
            CHECK(j < x.d.p);
            if (j < x.d.p) {
                CHECK_NEAR(f.beta[j], v3, 1e-3);
                CHECK_NEAR(f.se[j] / v4, 1, 0.01);
                CHECK_NEAR(f.beta[j], v1, 2.5e-3);
                CHECK_NEAR(f.se[j] / v2, 1, 0.02);
                n_beta++;
            }
        } else if (sscanf(g.lines[i], "sd %*s %*s %31s %95s %lf %lf", grp, a,
                          &v1, &v2) == 4) {
            int t = strcmp(grp, "participant") == 0 ? 0 : 1, k = 0;
            char nm[GLMM_NAME_MAX];
            while (t == 0 && k < m.term[0].k) {
                golden_name(x.d.znames[k], nm, sizeof nm);
                if (strcmp(nm, a) == 0) {
                    break;
                }
                k++;
            }
            double sd[GLMM_MAX_K], corr[GLMM_MAX_K * GLMM_MAX_K];
            glmm_term_cov(&m, f.theta, t, sd, corr);
            CHECK(k < m.term[t].k);
            if (k < m.term[t].k) {
                CHECK_NEAR(sd[k], v2, sd_tol);
                n_sd++;
            }
        } else if (sscanf(g.lines[i], "%15s", kind) == 1 &&
                   strcmp(kind, "corr") == 0) {
            (void)b;
        }
    }
    CHECK_INT(n_beta, x.d.p);
    CHECK_INT(n_sd, m.term[0].k + 1);
    glmm_fit_free(&f);
    unload(&x);
}

/* A simulated pre/post study of 3 conditions x 180 participants x 64 items
** (69,120 responses: several chunks of the passes, and the subsample's
** start) fitted on 1 and on 2 threads: the same numbers to the last bit. */
static void check_threads(void)
{
    Dataset *ds;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    SimRng rng;
    sim_rng_seed(&rng, 7);
    static const char *const conds[] = {"baseline", "lime", "shap"};
    double v[64];
    for (int i = 0; i < 64; i++) {
        v[i] = 0.8 * sim_rng_normal(&rng);
    }
    int added = 0;
    for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 180; p++) {
            char part[32];
            snprintf(part, sizeof part, "p%d-%d", c, p);
            double u = 0.5 * sim_rng_normal(&rng),
                   s = 0.2 * sim_rng_normal(&rng);
            for (int ph = 0; ph < 2; ph++) {
                for (int i = 0; i < 64; i++) {
                    char item[16];
                    snprintf(item, sizeof item, "i%d", i);
                    double e = 0.5 + u + v[i] + ph * (0.2 * c + s);
                    DatasetRow row;
                    memset(&row, 0, sizeof row);
                    row.participant = part;
                    row.condition = conds[c];
                    row.phase = ph ? "post" : "pre";
                    row.item = item;
                    row.correct = sim_rng_uniform(&rng) < 1 / (1 + exp(-e));
                    row.rt_ms = NAN;
                    added += dataset_add(ds, &row, &err) == SIM_OK;
                }
            }
        }
    }
    CHECK_INT(added, 3 * 180 * 2 * 64);
    AnalyzeOptions o;
    analyze_options_default(&o);
    Report r;
    memset(&r, 0, sizeof r);
    Screen sc;
    GlmmDesign d;
    const char *why;
    CHECK_INT(screen_participants(ds, &o, &r, &sc, &err), SIM_OK);
    CHECK_INT(screen_design(ds, &sc, &r, &err), SIM_OK);
    CHECK_INT(glmm_design_build(ds, &sc, &d, &why, &err), SIM_OK);
    GlmmFit f[2];
    GlmmModel m;
    GlmmTryRow tried[2][GLMM_N_STRUCTURES];
    int chosen[2], n_tried[2];
    for (int k = 0; k < 2; k++) {
        GlmmFitOptions fo = {.threads = k + 1};
        CHECK_INT(glmm_fit_design(&d, &fo, &f[k], &m, &chosen[k], tried[k],
                                  &n_tried[k], &err),
                  SIM_OK);
    }
    fprintf(stderr, "threads: structure %d, loglik %.6f, %d evals\n", chosen[0],
            f[0].loglik, f[0].n_evals);
    CHECK_INT(chosen[0], chosen[1]);
    CHECK_INT(n_tried[0], n_tried[1]);
    CHECK(f[0].loglik == f[1].loglik);
    for (int i = 0; i < n_tried[0] && i < n_tried[1]; i++) {
        CHECK(tried[0][i].loglik == tried[1][i].loglik);
    }
    for (int j = 0; j < f[0].p && chosen[0] == chosen[1]; j++) {
        CHECK(f[0].beta[j] == f[1].beta[j]);
        CHECK(f[0].se[j] == f[1].se[j]);
    }
    for (int j = 0; j < f[0].n_theta && chosen[0] == chosen[1]; j++) {
        CHECK(f[0].theta[j] == f[1].theta[j]);
    }
    glmm_fit_free(&f[0]);
    glmm_fit_free(&f[1]);
    glmm_design_free(&d);
    screen_free(&sc);
    report_free(&r);
    dataset_free(ds);
}

/* The gradient of the Laplace deviance against central differences. */
static void check_gradient(void)
{
    Loaded x;
    if (load("effect", &x) != 0) {
        CHECK(!"effect.csv");
        return;
    }
    for (int general = 0; general < 2; general++) { /* both factors */
        GlmmModel m;
        SimError err;
        GlmmWork *w;
        glmm_design_model(&x.d, GLMM_FULL, &m);
        m.general = general;
        CHECK_INT(glmm_work_new(&m, &w, &err), SIM_OK);
        int N = glmm_n_theta(&m) + m.p;
        double xv[32], g[32], xt[32];
        for (int j = 0; j < N; j++) {
            xv[j] = j < glmm_n_theta(&m) ? 0.6 - 0.1 * j : 0.1 * (j % 3) - 0.05;
        }
        glmm_work_deviance(w, xv, g);
        for (int j = 0; j < N; j++) {
            memcpy(xt, xv, sizeof xt);
            xt[j] = xv[j] + 1e-5;
            double dp = glmm_work_deviance(w, xt, NULL);
            xt[j] = xv[j] - 1e-5;
            double dm = glmm_work_deviance(w, xt, NULL);
            CHECK_NEAR(g[j], (dp - dm) / 2e-5, 1e-4 * (1 + fabs(g[j])));
        }
        glmm_work_free(w);
    }
    unload(&x);
}

/* The pipeline: the structure taken, report.json's keys. */
static void check_report(const char *data, const char *structure,
                         const char *formula)
{
    char path[512];
    snprintf(path, sizeof path, DATA "%s.csv", data);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 0;
    Dataset *ds;
    SimError err;
    Report r;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.glmm.fitted);
    CHECK_STR(r.glmm.structure, structure);
    CHECK_STR(r.glmm.formula, formula);
    CHECK(r.glmm.converged);
    CHECK_STR(r.glmm.baseline, "baseline");
    CHECK((r.glmm.fallback != NULL) == (r.glmm.n_tried > 1));
    char dir[] = "/tmp/simlab-glmm-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char out[400];
    snprintf(out, sizeof out, "%s/out", dir);
    o.plots = 0;
    r.opt.plots = 0;
    CHECK_INT(analyze_write(&r, out, &err), SIM_OK);
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    json_t *g = json_object_get(root, "glmm");
    CHECK(json_is_object(g));
    const char *keys[] = {"formula",  "terms",     "random_effects",
                          "loglik",   "aic",       "converged",
                          "singular", "n_obs",     "fallback",
                          "tried",    "structure", "correlations"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        CHECK(json_object_get(g, keys[k]) != NULL);
    }
    json_t *t0 = json_array_get(json_object_get(g, "terms"), 0);
    const char *tkeys[] = {"term", "estimate", "se",     "z",
                           "p",    "ci_low",   "ci_high"};
    for (size_t k = 0; k < sizeof tkeys / sizeof tkeys[0]; k++) {
        CHECK(json_object_get(t0, tkeys[k]) != NULL);
    }
    CHECK_INT(json_integer_value(json_object_get(g, "n_obs")), r.glmm.n_obs);
    json_decref(root);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CHECK(system(path) == 0);
    report_free(&r);
    dataset_free(ds);
}

/* --calibrate: every test of the report gets a row, the null studies are
** reproducible, and the mixed model's Wald tests keep their size (30 null
** studies: 8 rejections or more has probability 8e-5 at 5 %). */
static void check_calibration(void)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 50;
    o.calibrate = 30;
    Dataset *ds;
    SimError err;
    Report r, r2;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, DATA "effect.csv", &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r2, &err), SIM_OK);
    int seen[4] = {0};
    static const char *const tests[] = {"change", "glmm", "anova", "tukey"};
    CHECK_INT(r.n_calibration, r2.n_calibration);
    for (int i = 0; i < r.n_calibration; i++) {
        const CalibrationRow *c = &r.calibration[i];
        for (int k = 0; k < 4; k++) {
            seen[k] += strcmp(c->test, tests[k]) == 0;
        }
        CHECK_INT(c->studies, 30);
        CHECK(c->ci_low <= c->rate && c->rate <= c->ci_high);
        CHECK_INT(c->rejected, r2.calibration[i].rejected);
        if (strcmp(c->test, "glmm") == 0) {
            CHECK(c->rejected < 8);
        }
    }
    CHECK_INT(seen[0], 3); /* a Change per condition */
    CHECK_INT(seen[1], 5); /* phase, 2 conditions, 2 interactions */
    CHECK_INT(seen[2], 1);
    CHECK_INT(seen[3], 2); /* the comparisons with the baseline */
    report_free(&r);
    report_free(&r2);
    /* --no-glmm: no model, no calibration from it */
    o.no_glmm = 1;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(!r.glmm.fitted);
    CHECK_INT(r.n_calibration, 0);
    report_free(&r);
    dataset_free(ds);
}

/* The reference condition is the analysis's baseline (--baseline), and a
** column without data (a condition with no post rows) is left out. */
static void check_coding(void)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 0;
    o.baseline = "shap";
    Dataset *ds;
    SimError err;
    Report r;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, DATA "effect.csv", &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_STR(r.glmm.baseline, "shap");
    CHECK_INT(r.glmm.n_terms, 6);
    if (r.glmm.n_terms == 6) {
        CHECK_STR(r.glmm.terms[2].name, "conditionbaseline");
        CHECK_STR(r.glmm.terms[3].name, "conditionlime");
        CHECK_STR(r.glmm.terms[5].name, "phasepost:conditionlime");
    }
    report_free(&r);
    dataset_free(ds);
    char dir[] = "/tmp/simlab-glmm-XXXXXX", path[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/pre-only.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "participant,condition,phase,item,correct\n");
    for (int p = 0; p < 9; p++) {
        for (int ph = 0; ph < (p % 3 == 2 ? 1 : 2); ph++) {
            for (int i = 0; i < 6; i++) {
                fprintf(f, "p%d,%s,%s,i%d,%d\n", p,
                        p % 3 == 0   ? "baseline"
                        : p % 3 == 1 ? "a"
                                     : "b",
                        ph ? "post" : "pre", i, (p * 7 + i * 3 + ph) % 5 < 3);
            }
        }
    }
    fclose(f);
    o.baseline = "baseline";
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.glmm.fitted);
    CHECK_INT(r.glmm.n_dropped, 1); /* phasepost:conditionb */
    CHECK_INT(r.glmm.n_terms, 5);
    for (int j = 0; j < r.glmm.n_terms; j++) {
        CHECK(strcmp(r.glmm.terms[j].name, "phasepost:conditionb") != 0);
    }
    report_free(&r);
    dataset_free(ds);
    unlink(path);
    rmdir(dir);
}

/* Warm starts (simlab power's pilots): every structure's optimum
** recorded on fixture pilot starts the fits of fixture target (the same
** shape), which must keep the structure that the fits from lme4's start
** keep, with their log-likelihood, estimates and standard errors; the
** structures left as singular stop without standard errors. */
static void check_warm(const char *pilot, const char *target)
{
    Loaded a, b;
    if (load(pilot, &a) != 0 || load(target, &b) != 0) {
        CHECK(!"fixture missing");
        return;
    }
    CHECK_INT(a.d.p, b.d.p);
    SimError err;
    GlmmWarm warm;
    memset(&warm, 0, sizeof warm);
    GlmmFitOptions rec = {.record = &warm};
    GlmmFit pf, pc, cold, hot;
    GlmmModel m;
    int sp, spc, sc, sh, n_tried = 0;
    CHECK_INT(glmm_fit_design(&a.d, &rec, &pf, &m, &sp, NULL, NULL, &err),
              SIM_OK);
    CHECK_INT(glmm_fit_design(&a.d, NULL, &pc, &m, &spc, NULL, NULL, &err),
              SIM_OK);
    /* recording fits every structure and keeps the report's choice */
    CHECK_INT(sp, spc);
    CHECK_NEAR(pf.loglik, pc.loglik, 1e-9);
    for (int st = 0; st < GLMM_N_STRUCTURES; st++) {
        CHECK_INT(warm.have[st], glmm_design_has(&a.d, st));
    }
    CHECK_INT(glmm_fit_design(&b.d, NULL, &cold, &m, &sc, NULL, NULL, &err),
              SIM_OK);
    GlmmFitOptions use = {.warm = &warm, .kept_only = 1};
    GlmmTryRow tried[GLMM_N_STRUCTURES];
    CHECK_INT(glmm_fit_design(&b.d, &use, &hot, &m, &sh, tried, &n_tried, &err),
              SIM_OK);
    fprintf(stderr,
            "warm %s -> %s: structure %d (from lme4's start %d), loglik "
            "%.6f (%.6f), %d evals in the fit kept (%d)\n",
            pilot, target, sh, sc, hot.loglik, cold.loglik, hot.n_evals,
            cold.n_evals);
    CHECK_INT(sh, sc);
    CHECK_NEAR(hot.loglik, cold.loglik, 1e-6);
    CHECK(hot.converged);
    for (int j = 0; j < b.d.p && sh == sc; j++) {
        CHECK_NEAR(hot.beta[j], cold.beta[j], 1e-4);
        CHECK_NEAR(hot.se[j] / cold.se[j], 1, 1e-3);
    }
    for (int i = 0; i + 1 < n_tried; i++) { /* left: singular, stopped */
        CHECK(tried[i].singular);
        CHECK(tried[i].converged);
    }
    CHECK_INT(n_tried, sh + 1);
    glmm_fit_free(&pf);
    glmm_fit_free(&pc);
    glmm_fit_free(&cold);
    glmm_fit_free(&hot);
    glmm_warm_free(&warm);
    unload(&a);
    unload(&b);
}

/* Incomplete within data are fitted (no "mixed design"), the reference
** is the sidecar's baseline, the slopes' dummies are quoted in the
** formula as in the R script, which names the levels, the dummies and the
** rows as simlab took them. */
static void check_incomplete(void)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 0;
    Dataset *ds;
    SimError err;
    Report r;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, DATA "incomplete.csv", &err), SIM_OK);
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.glmm.fitted);
    CHECK_STR(r.glmm.baseline, "no-expl");
    CHECK_STR(r.glmm.structure, "uncorrelated");
    CHECK_STR(r.glmm.formula,
              "correct ~ condition + (1 + `conditionLIME saliency` + "
              "conditionSHAP || participant) + (1 | item)");
    CHECK_INT(r.glmm.n_participants, 36);
    const char *parts[] = {
        "levels = c(\"no-expl\", \"LIME saliency\", \"SHAP\")",
        "m[[\"conditionLIME saliency\"]] <- as.numeric(m$condition == "
        "\"LIME saliency\")",
        "col(\"phase\") %in% \"test\"",
        "drop <- drop | any_of(flag(\"simulated\"))",
        "fit <- glmer(correct ~ condition + (1 + `conditionLIME saliency` + "
        "conditionSHAP || participant)",
        "commandArgs(trailingOnly = TRUE)[1]"};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        CHECK(r.glmm.r_script && strstr(r.glmm.r_script, parts[k]));
    }
    report_free(&r);
    /* --include-simulated and a re-derived catch rule in the script */
    o.include_simulated = 1;
    o.max_catch_failures = 1;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.glmm.r_script && !strstr(r.glmm.r_script, "flag(\"simulated\"))"));
    CHECK(r.glmm.r_script && strstr(r.glmm.r_script, "failed > 1"));
    report_free(&r);
    dataset_free(ds);
}

/* The passes' exp and log of a block of rows (four at a time with AVX2):
** within 4 ulp of libm's, and a value the same wherever it sits in a
** block and whatever the block's length (the padded last lanes). */
static void check_vector_math(void)
{
    enum { N = 67 };
    double xs[N], a[N], b[N];
    for (int k = 0; k < N; k++) {
        xs[k] = -40.0 * k / (N - 1) - 1e-3 * (k % 5);
    }
    int bad_exp = 0, bad_log = 0, moved = 0;
    memcpy(a, xs, sizeof a);
    glmm_dense_exp(a, N);
    for (int k = 0; k < N; k++) {
        bad_exp += !(fabs(a[k] - exp(xs[k])) <= 4 * DBL_EPSILON * exp(xs[k]));
    }
    for (int start = 0; start < 5; start++) {
        for (int len = 1; start + len <= N; len += 7) {
            memcpy(b, xs + start, (size_t)len * sizeof(double));
            glmm_dense_exp(b, len);
            for (int k = 0; k < len; k++) {
                moved += b[k] != a[start + k];
            }
        }
    }
    for (int k = 0; k < N; k++) {
        xs[k] = 1 + exp(-40.0 * k / (N - 1)); /* 1 + exp(-|eta|) */
    }
    memcpy(a, xs, sizeof a);
    glmm_dense_log(a, N);
    for (int k = 0; k < N; k++) {
        bad_log += !(fabs(a[k] - log(xs[k])) <= 4 * DBL_EPSILON * log(2.0) ||
                     a[k] == log(xs[k]));
    }
    for (int len = 1; len <= 9; len++) {
        memcpy(b, xs + 3, (size_t)len * sizeof(double));
        glmm_dense_log(b, len);
        for (int k = 0; k < len; k++) {
            moved += b[k] != a[3 + k];
        }
    }
    CHECK_INT(bad_exp, 0);
    CHECK_INT(bad_log, 0);
    CHECK_INT(moved, 0);
}

int main(void)
{
    check_vector_math();
    check_gradient();
    /* pre/post: correct ~ phase * condition + (1 + phasepost |
    ** participant) + (1 | item) and the simpler structures */
    const char *prepost[] = {"null", "effect", "unbalanced"};
    const char *sts[] = {"full", "uncorrelated", "intercepts"};
    /* with the blocked factor (general 0) and CHOLMOD's (1) */
    for (int general = 0; general < 2; general++) {
        for (int i = 0; i < 3; i++) {
            for (int s = 0; s < 3; s++) {
                check_fit(prepost[i], sts[s], 2e-3, general);
            }
        }
        check_fit("testonly", "intercepts", 1e-3, general);
        check_fit("singular", "intercepts", 1e-3, general);
        for (int s = 0; s < 3; s++) {
            check_fit("within", sts[s], 6e-3, general);
        }
    }
    check_threads();
    check_report("effect", "intercepts",
                 "correct ~ phase * condition + (1 | participant) + (1 | "
                 "item)");
    check_report("unbalanced", "full",
                 "correct ~ phase * condition + (1 + phasepost | participant) "
                 "+ (1 | item)");
    check_report("null", "uncorrelated",
                 "correct ~ phase * condition + (1 + phasepost || participant) "
                 "+ (1 | item)");
    check_report("within", "intercepts",
                 "correct ~ condition + (1 | participant) + (1 | item)");
    /* effect's full and uncorrelated optima have a diagonal of 0: the
    ** warm start must still find unbalanced's full one */
    check_warm("effect", "unbalanced");
    check_warm("unbalanced", "null");
    check_warm("null", "effect");
    check_calibration();
    check_coding();
    /* within, a third of the participants in 2 of the 3 conditions,
    ** names R quotes, the baseline from the sidecar */
    for (int general = 0; general < 2; general++) {
        for (int s = 0; s < 3; s++) {
            check_fit("incomplete", sts[s], 3e-3, general);
        }
    }
    check_incomplete();
    check_report("testonly", "intercepts",
                 "correct ~ condition + session + (1 | participant) + (1 | "
                 "item)");
    return TEST_REPORT();
}
