/*
** The mixed-effects logistic model of the report: the design from the
** screened responses (glmm_design.c), the random-effect structures tried
** richest first until one is neither singular in the participant term nor
** unconverged, the Wald table with odds ratios, the random effects, and
** report.json's "glmm". Fills Report.glmm and appends its tables.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/glmm_design.h"
#include "analysis/progress.h"
#include "common/sim_alloc.h"

#define Z975 1.959963984540054 /* qnorm(0.975) */

static int glmm_tables(Report *r, SimError *err);

/* Whether the participant term (term 0) is singular in fit f. */
static int participant_singular(const GlmmModel *m, const GlmmFit *f)
{
    return glmm_term_below(m, f->theta, 0, GLMM_SINGULAR_TOL);
}

/* The start of model `to` from the fit theta of model `from` with the same
** terms, `to` no richer: each kept column's SD on the diagonal, no
** correlations (the columns of a term are its first ones in both). */
static void start_from(const GlmmModel *from, const double *theta,
                       const GlmmModel *to, double *out)
{
    int at = 0;
    for (int t = 0; t < to->n_terms; t++) {
        double sd[GLMM_MAX_K], corr[GLMM_MAX_K * GLMM_MAX_K];
        glmm_term_cov(from, theta, t, sd, corr);
        const GlmmTerm *tm = &to->term[t];
        for (int b = 0; b < tm->k; b++) {
            int len = tm->diagonal ? 1 : tm->k - b;
            out[at] = sd[b];
            for (int a = 1; a < len; a++) {
                out[at + a] = 0;
            }
            at += len;
        }
    }
}

void glmm_warm_free(GlmmWarm *w)
{
    if (!w) {
        return;
    }
    for (int st = 0; st < GLMM_N_STRUCTURES; st++) {
        sim_free(w->theta[st]);
        sim_free(w->beta[st]);
        sim_free(w->hess[st]);
    }
    memset(w, 0, sizeof *w);
}

/* Keeps the optimum of structure st (a complete fit f) in w. */
static int warm_keep(GlmmWarm *w, int st, const GlmmFit *f)
{
    size_t nt = (size_t)f->n_theta, p = (size_t)f->p, N = nt + p;
    w->theta[st] = sim_malloc(nt * sizeof(double) + 1);
    w->beta[st] = sim_malloc(p * sizeof(double) + 1);
    w->hess[st] = sim_malloc(N * N * sizeof(double));
    if (!w->theta[st] || !w->beta[st] || !w->hess[st]) {
        return -1;
    }
    memcpy(w->theta[st], f->theta, nt * sizeof(double));
    memcpy(w->beta[st], f->beta, p * sizeof(double));
    memcpy(w->hess[st], f->hessian, N * N * sizeof(double));
    w->n_theta[st] = f->n_theta;
    w->p = f->p;
    w->have[st] = 1;
    return 0;
}

/* GlmmModel.progress of structure st: GlmmFitOptions.progress's. */
typedef struct FitProgress {
    const GlmmFitOptions *fo;
    int st;
} FitProgress;

static void fit_progress(void *ctx, int n_evals)
{
    const FitProgress *fp = ctx;
    fp->fo->progress(fp->fo->progress_ctx, fp->st, n_evals);
}

/* Whether d tries a structure simpler than st. */
static int has_simpler(const GlmmDesign *d, int st)
{
    for (int s = st + 1; s < GLMM_N_STRUCTURES; s++) {
        if (glmm_design_has(d, s)) {
            return 1;
        }
    }
    return 0;
}

int glmm_fit_design(const GlmmDesign *d, const GlmmFitOptions *fo, GlmmFit *fit,
                    GlmmModel *m, int *chosen, GlmmTryRow *tried, int *n_tried,
                    SimError *err)
{
    int rc = SIM_OK;
    memset(fit, 0, sizeof *fit);
    *chosen = -1;
    if (n_tried) {
        *n_tried = 0;
    }
    const GlmmWarm *warm = fo ? fo->warm : NULL;
    GlmmWarm *record = fo ? fo->record : NULL;
    glmm_warm_free(record);
    /* a simpler structure starts from the SDs of the richer one's fit */
    double start[GLMM_MAX_TERMS * GLMM_MAX_K * (GLMM_MAX_K + 1) / 2];
    int have_start = 0, kept = 0;
    size_t nh =
        (size_t)(GLMM_MAX_TERMS * GLMM_MAX_K * (GLMM_MAX_K + 1) / 2 + d->p);
    double *hess = sim_malloc(nh * nh * sizeof(double)); /* and its Hessian */
    if (!hess) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int st = 0; st < GLMM_N_STRUCTURES && rc == SIM_OK; st++) {
        if (!glmm_design_has(d, st)) {
            continue;
        }
        GlmmModel mm;
        GlmmFit f;
        glmm_design_model(d, st, &mm);
        if (have_start) {
            start_from(m, fit->theta, &mm, start);
            mm.theta_start = start;
            mm.beta_start = fit->beta;
            glmm_hess_from(m, fit->hessian, &mm, hess);
            mm.hess_start = hess;
        }
        if (warm && warm->have[st] && warm->p == d->p &&
            warm->n_theta[st] == glmm_n_theta(&mm)) {
            mm.theta_start = have_start ? start : warm->theta[st];
            mm.beta_start = have_start ? fit->beta : warm->beta[st];
            mm.hess_start = warm->hess[st];
        }
        /* 1: term 0, the participant's (participant_singular()) */
        mm.stop_singular_term = !record && has_simpler(d, st) ? 1 : 0;
        mm.threads = fo ? fo->threads : 0;
        FitProgress fp = {fo, st};
        if (fo && fo->progress) {
            mm.progress = fit_progress;
            mm.progress_ctx = &fp;
            fo->progress(fo->progress_ctx, st, 0);
        }
        if ((rc = glmm_fit(&mm, &f, err)) != SIM_OK) {
            break;
        }
        if (record && !f.stopped && warm_keep(record, st, &f) != 0) {
            glmm_fit_free(&f);
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        if (kept) { /* fitted for record alone */
            glmm_fit_free(&f);
            continue;
        }
        if (tried && n_tried) {
            GlmmTryRow *t = &tried[(*n_tried)++];
            t->structure = glmm_structure_name(st);
            glmm_design_formula(d, st, t->formula, sizeof t->formula);
            t->converged = f.converged;
            t->singular = f.singular;
            t->loglik = f.loglik;
        }
        glmm_fit_free(fit);
        *fit = f;
        *m = mm;
        m->theta_start = m->beta_start = m->hess_start = NULL;
        m->stop_singular_term = 0;
        m->progress = NULL;
        m->progress_ctx = NULL;
        *chosen = st;
        have_start = 1;
        kept = f.converged && !participant_singular(&mm, &f);
        if (kept && !record) {
            break;
        }
    }
    sim_free(hess);
    return rc;
}

void glmm_term_wald(GlmmTermRow *t, const char *name, double estimate,
                    double se)
{
    snprintf(t->name, sizeof t->name, "%s", name);
    t->estimate = estimate;
    t->se = se;
    t->z = estimate / se;
    t->p = erfc(fabs(t->z) / sqrt(2.0));
    t->ci_low = estimate - Z975 * se;
    t->ci_high = estimate + Z975 * se;
}

/* Fills r->glmm from the fit of structure st. */
static int store_fit(const GlmmDesign *d, int st, const GlmmModel *m,
                     const GlmmFit *f, Report *r)
{
    GlmmResult *g = &r->glmm;
    g->fitted = 1;
    g->chosen = st;
    g->structure = glmm_structure_name(st);
    glmm_design_formula(d, st, g->formula, sizeof g->formula);
    g->n_obs = d->n;
    g->n_participants = d->n_part;
    g->n_items = d->n_item;
    g->n_dropped = d->dropped;
    g->loglik = f->loglik;
    g->aic = f->aic;
    g->converged = f->converged;
    g->singular = f->singular;
    g->vcov_hessian = f->vcov_hessian;
    g->terms = sim_calloc((size_t)d->p, sizeof *g->terms);
    g->theta = sim_malloc((size_t)f->n_theta * sizeof(double));
    int k = m->term[0].k;
    g->corr = sim_calloc((size_t)(k * k + 1), sizeof *g->corr);
    if (!g->terms || !g->theta || !g->corr) {
        return -1;
    }
    memcpy(g->theta, f->theta, (size_t)f->n_theta * sizeof(double));
    g->n_theta = f->n_theta;
    for (int j = 0; j < d->p; j++) {
        glmm_term_wald(&g->terms[g->n_terms++], d->names[j], f->beta[j],
                       f->se[j]);
    }
    for (int tm = 0; tm < 2; tm++) {
        double sd[GLMM_MAX_K], corr[GLMM_MAX_K * GLMM_MAX_K];
        glmm_term_cov(m, f->theta, tm, sd, corr);
        int kt = m->term[tm].k;
        const char *group = tm == 0 ? "participant" : "item";
        for (int a = 0; a < kt; a++) {
            GlmmReRow *x = &g->re[g->n_re++];
            x->group = group;
            snprintf(x->name, sizeof x->name, "%s",
                     tm == 0 ? d->znames[a] : "(Intercept)");
            x->sd = sd[a];
            for (int b = 0; b < a && !m->term[tm].diagonal; b++) {
                GlmmCorrRow *c = &g->corr[g->n_corr++];
                c->group = group;
                snprintf(c->a, sizeof c->a, "%s", d->znames[b]);
                snprintf(c->b, sizeof c->b, "%s", d->znames[a]);
                c->corr = corr[a * kt + b];
            }
        }
    }
    return 0;
}

/* The mixed model's progress line: the structures the design tries, each
** a share, within it the evaluations (a fit takes tens). */
typedef struct GlmmLine {
    const GlmmDesign *d;
    Progress p;
} GlmmLine;

static void glmm_line(void *ctx, int st, int n_evals)
{
    GlmmLine *l = ctx;
    int k = 0, n = 0;
    for (int s = 0; s < GLMM_N_STRUCTURES; s++) {
        if (glmm_design_has(l->d, s)) {
            k += s < st;
            n++;
        }
    }
    char detail[64];
    snprintf(detail, sizeof detail, "%s structure, %d evaluation%s",
             glmm_structure_name(st), n_evals, n_evals == 1 ? "" : "s");
    progress_set(&l->p, (k + n_evals / (n_evals + 25.0)) / (n > 0 ? n : 1),
                 detail);
}

int compute_glmm(const Dataset *ds, const AnalyzeOptions *o, const Screen *sc,
                 Report *r, SimError *err)
{
    GlmmResult *g = &r->glmm;
    if (o->no_glmm) {
        g->note = sim_strdup("no model: not fitted (--no-glmm)");
        return g->note ? glmm_tables(r, err)
                       : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    GlmmDesign d;
    const char *why;
    int rc = glmm_design_build(ds, sc, &d, &why, err);
    if (rc != SIM_OK || d.n == 0) {
        glmm_design_free(&d);
        if (rc == SIM_OK) {
            g->note = sim_strdup(why);
            rc = g->note ? glmm_tables(r, err)
                         : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        return rc;
    }
    GlmmFit kept;
    GlmmModel km;
    int kept_st = -1;
    GlmmLine line = {&d, {0}};
    progress_begin(&line.p, o->progress ? o->clk : NULL, "mixed model");
    GlmmFitOptions fo = {
        .threads = o->threads, .progress = glmm_line, .progress_ctx = &line};
    rc = glmm_fit_design(&d, &fo, &kept, &km, &kept_st, g->tried, &g->n_tried,
                         err);
    progress_end(&line.p);
    if (rc == SIM_OK && kept_st >= 0) {
        snprintf(g->baseline, sizeof g->baseline, "%s",
                 dataset_str(ds, sc->conds[d.base]));
        if (store_fit(&d, kept_st, &km, &kept, r) != 0 ||
            (!o->null_study &&
             glmm_r_script(ds, sc, &d, o, r, &g->r_script) != 0)) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        } else if (g->n_tried > 1) {
            SimBuf b;
            sim_buf_init(&b);
            for (int i = 0; i + 1 < g->n_tried; i++) {
                const GlmmTryRow *t = &g->tried[i];
                sim_buf_printf(&b, "%s%s (%s) %s", i ? "; " : "", t->structure,
                               t->formula,
                               !t->converged ? "did not converge"
                                             : "was singular in the "
                                               "participant term");
            }
            sim_buf_printf(&b, "; the %s structure was taken.", g->structure);
            g->fallback = b.oom ? NULL : sim_strdup(sim_buf_cstr(&b));
            sim_buf_free(&b);
            if (!g->fallback) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
        }
    }
    glmm_fit_free(&kept);
    glmm_design_free(&d);
    return rc == SIM_OK ? glmm_tables(r, err) : rc;
}

/* ------------------------------------------------------------------ */
/* Tables                                                               */

/* json "glmm": one object. */
static const TableColumn GLMM_COLS[] = {
    {"formula", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"structure", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"fallback", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"baseline", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_obs", NULL, NULL, TABLE_INT, "responses", 0, 0, 0},
    {"n_participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"n_items", NULL, NULL, TABLE_INT, "items", 0, 0, 0},
    {"loglik", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"aic", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"converged", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"singular", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"vcov", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"dropped_columns", NULL, NULL, TABLE_INT, "columns", 0, 0, 0},
    {"r", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
};

/* md, csv glmm_terms.csv, json glmm.terms */
static const TableColumn TERM_COLS[] = {
    {"term", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, NULL, TABLE_REAL, "logit", 3, TABLE_SIGNED, 0},
    {"se", NULL, "SE", TABLE_REAL, "logit", 3, 0, 0},
    {"z", NULL, NULL, TABLE_REAL, "", 2, TABLE_SIGNED, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"ci", NULL, NULL, TABLE_INTERVAL, "logit", 3, 0, TABLE_CSV | TABLE_JSON},
    {"odds_ratio", NULL, "OR", TABLE_REAL, "", 2, 0, 0},
    {"or_ci", NULL, "95 % CI (OR)", TABLE_INTERVAL, "", 2, 0, 0},
};

static const TableColumn TERM_TEX_COLS[] = {
    {"term", NULL, "Term", TABLE_TEXT, "", 0, 0, 0},
    {"estimate", NULL, "$\\hat\\beta$", TABLE_REAL, "", 3, 0, 0},
    {"se", NULL, "SE", TABLE_REAL, "", 3, 0, 0},
    {"odds_ratio", NULL, "OR", TABLE_REAL, "", 2, 0, 0},
    {"or_ci", NULL, "95\\% CI", TABLE_INTERVAL, "", 2, TABLE_TEX_RIGHT, 0},
    {"z", NULL, "$z$", TABLE_REAL, "", 2, 0, 0},
    {"p", NULL, "$p$", TABLE_PVALUE, "", 0, TABLE_TEX_LEFT, 0},
};

static const TableColumn RE_COLS[] = {
    {"group", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"term", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"sd", NULL, "SD", TABLE_REAL, "logit", 3, 0, 0},
};

static const TableColumn CORR_COLS[] = {
    {"group", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"term_a", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"term_b", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"corr", NULL, NULL, TABLE_REAL, "", 3, TABLE_SIGNED, 0},
};

static const TableColumn TRY_COLS[] = {
    {"structure", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"formula", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"converged", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"singular", NULL, NULL, TABLE_BOOL, "", 0, 0, 0},
    {"loglik", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
};

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* The paragraph above the md table: model, fit, structure. */
static char *model_note(const Report *r)
{
    const GlmmResult *g = &r->glmm;
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(
        &b,
        "`%s` (binomial, logit link), fitted by the Laplace approximation as "
        "lme4's glmer(nAGQ = 1) on %d responses (analysed participants, "
        "answered trials, no catch trials) of %d participants and %d items. "
        "Estimates on the log-odds scale; OR = odds ratio exp(estimate); "
        "95 %% Wald intervals; conditions against %s '%s'%s. "
        "log L = %.3f, AIC = %.2f%s%s.",
        g->formula, g->n_obs, g->n_participants, g->n_items,
        r->baseline ? "the baseline" : "the reference level", g->baseline,
        r->baseline ? ""
                    : ", the first condition of the data (no baseline is "
                      "known: study.json \"baseline\", or --baseline NAME)",
        g->loglik, g->aic,
        g->converged ? "" : "; the optimiser did not converge",
        g->singular ? "; singular fit (a variance estimated at 0 or a "
                      "correlation at +-1)"
                    : "");
    if (g->fallback) {
        sim_buf_printf(&b, " Random effects: %s", g->fallback);
    }
    if (g->n_dropped > 0) {
        sim_buf_printf(&b,
                       " %d fixed-effect column%s left out: aliased with "
                       "earlier ones (no data for that cell).",
                       g->n_dropped, g->n_dropped == 1 ? " was" : "s were");
    }
    char *s = b.oom ? NULL : sim_strdup(sim_buf_cstr(&b));
    sim_buf_free(&b);
    return s;
}

static int object_table(Report *r)
{
    const GlmmResult *g = &r->glmm;
    Table *t =
        report_add_table(r, "glmm", TABLE_JSON, GLMM_COLS, N_COLS(GLMM_COLS));
    if (!t) {
        return -1;
    }
    t->object = 1;
    table_set_note(t, "%s",
                   "The mixed-effects logistic model: formula, the "
                   "random-effect structure taken and why (fallback), fit "
                   "statistics; terms, random_effects, correlations and "
                   "tried below; r: an R script that refits the model with "
                   "lme4 from the exported CSV (Rscript glmm.R export.csv).");
    if (!g->fitted) {
        return 0;
    }
    table_add_row(t);
    table_put_text(t, g->formula);
    table_put_text(t, g->structure);
    table_put_text(t, g->fallback);
    table_put_text(t, g->baseline);
    table_put_num(t, g->n_obs);
    table_put_num(t, g->n_participants);
    table_put_num(t, g->n_items);
    table_put_num(t, g->loglik);
    table_put_num(t, g->aic);
    table_put_num(t, g->converged);
    table_put_num(t, g->singular);
    table_put_text(t, g->vcov_hessian ? "hessian" : "rx");
    table_put_num(t, g->n_dropped);
    table_put_text(t, g->r_script);
    return 0;
}

static int terms_tables(Report *r)
{
    const GlmmResult *g = &r->glmm;
    Table *t =
        report_add_table(r, "glmm_terms", TABLE_MD | TABLE_CSV | TABLE_JSON,
                         TERM_COLS, N_COLS(TERM_COLS));
    Table *tex = report_add_table(r, "glmm_tex", TABLE_TEX, TERM_TEX_COLS,
                                  N_COLS(TERM_TEX_COLS));
    if (!t || !tex) {
        return -1;
    }
    table_set_json_path(t, "glmm.terms");
    table_set_title(t, 2, "Mixed-effects logistic model");
    char *note = model_note(r);
    if (!note || table_set_note(t, "%s", note) != 0) {
        sim_free(note);
        return -1;
    }
    sim_free(note);
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "Mixed-effects logistic model, \\texttt{");
    for (const char *c = g->formula; *c; c++) { /* lme4's ~ and | */
        char one[2] = {*c, 0};
        if (*c == '~' || *c == '|') {
            sim_buf_puts(&b, *c == '~' ? "\\textasciitilde{}" : "\\textbar{}");
        } else {
            table_tex_escape(&b, one);
        }
    }
    sim_buf_puts(&b, "}: odds ratios with 95\\% Wald intervals.");
    int rc = b.oom ? -1 : table_set_caption(tex, sim_buf_cstr(&b));
    sim_buf_free(&b);
    for (int i = 0; i < g->n_terms; i++) {
        const GlmmTermRow *x = &g->terms[i];
        double or_ = exp(x->estimate), lo = exp(x->ci_low),
               hi = exp(x->ci_high);
        table_add_row(t);
        table_put_text(t, x->name);
        table_put_num(t, x->estimate);
        table_put_num(t, x->se);
        table_put_num(t, x->z);
        table_put_num(t, x->p);
        table_put_interval(t, x->ci_low, x->ci_high);
        table_put_num(t, or_);
        table_put_interval(t, lo, hi);
        table_add_row(tex);
        table_put_text(tex, x->name);
        table_put_num(tex, x->estimate);
        table_put_num(tex, x->se);
        table_put_num(tex, or_);
        table_put_interval(tex, lo, hi);
        table_put_num(tex, x->z);
        table_put_num(tex, x->p);
    }
    return rc;
}

static int random_tables(Report *r)
{
    const GlmmResult *g = &r->glmm;
    Table *t = report_add_table(r, "glmm_random", TABLE_MD | TABLE_JSON,
                                RE_COLS, N_COLS(RE_COLS));
    Table *c = report_add_table(r, "glmm_correlations", TABLE_JSON, CORR_COLS,
                                N_COLS(CORR_COLS));
    Table *tr = report_add_table(r, "glmm_tried", TABLE_JSON, TRY_COLS,
                                 N_COLS(TRY_COLS));
    if (!t || !c || !tr) {
        return -1;
    }
    table_set_json_path(t, "glmm.random_effects");
    table_set_json_path(c, "glmm.correlations");
    table_set_json_path(tr, "glmm.tried");
    table_set_note(t, "%s",
                   "Random effects: standard deviations on the logit "
                   "scale.");
    table_set_note(c, "%s",
                   "Correlations of the participant term's "
                   "effects.");
    table_set_note(tr, "%s",
                   "The random-effect structures fitted, richest first, "
                   "until one was neither singular in the participant term "
                   "nor unconverged.");
    for (int i = 0; i < g->n_re; i++) {
        table_add_row(t);
        table_put_text(t, g->re[i].group);
        table_put_text(t, g->re[i].name);
        table_put_num(t, g->re[i].sd);
    }
    SimBuf b;
    sim_buf_init(&b);
    for (int i = 0; i < g->n_corr; i++) {
        const GlmmCorrRow *x = &g->corr[i];
        table_add_row(c);
        table_put_text(c, x->group);
        table_put_text(c, x->a);
        table_put_text(c, x->b);
        table_put_num(c, x->corr);
        sim_buf_printf(&b, "%s%s, %s: ", i ? "; " : "Correlations: ", x->a,
                       x->b);
        table_fmt_num(&b, x->corr, 3, 1, "-");
    }
    int rc = 0;
    if (g->n_corr > 0) {
        sim_buf_puts(&b, ".");
        rc = b.oom ? -1 : table_set_after(t, "%s", sim_buf_cstr(&b));
    }
    sim_buf_free(&b);
    for (int i = 0; i < g->n_tried; i++) {
        const GlmmTryRow *x = &g->tried[i];
        table_add_row(tr);
        table_put_text(tr, x->structure);
        table_put_text(tr, x->formula);
        table_put_num(tr, x->converged);
        table_put_num(tr, x->singular);
        table_put_num(tr, x->loglik);
    }
    return rc;
}

static int glmm_tables(Report *r, SimError *err)
{
    if (object_table(r) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (!r->glmm.fitted) {
        Table *t =
            report_add_table(r, "glmm_note", TABLE_MD | TABLE_JSON, NULL, 0);
        if (!t || table_set_title(t, 2, "Mixed-effects logistic model") != 0 ||
            table_set_note(t, "%s", r->glmm.note ? r->glmm.note : "no model") !=
                0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        return SIM_OK;
    }
    if (terms_tables(r) != 0 || random_tables(r) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}
