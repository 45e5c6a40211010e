/*
** `simlab plan STUDY --out DIR`: the study's primary test simulated on its
** own design by `simlab power`'s machinery (power_study_run) over a grid
** of sizes -- or its sequential looks, or its planned N -- the smallest N
** per condition that reaches the target power, the test's false-positive
** rate and the published method's size and power at that N, the
** enrolment from the study's screening; written with the study's texts
** (plan_study.c) as preregistration.md and .json (analysis/plan.h).
*/
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include "app/plan_cmd.h"

#include "app/plan_int.h"
#include "app/power_cmd.h"
#include "common/sim_alloc.h"
#include "common/sim_clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_P 64

typedef struct PlanArgs {
    const char *dir, *out, *sizes, *date;
    double target;
    int studies, replicates, threads, screening, effect_from_sim, quiet;
    int include_simulated; /* a dry run on simulated participants */
    long seed;
    const char *cells[MAX_P];
    int n_cells;
} PlanArgs;

static int usage(const char *msg, const char *arg)
{
    fprintf(stderr, "simlab plan: %s%s%s%s\n", msg, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "");
    fputs("usage: simlab plan STUDY_DIR --out DIR [--power 0.8] "
          "[--studies S]\n"
          "         [--effect-from-simulation] [--p COND:PHASE=P]...\n"
          "         [--participants N1,N2,...] [--seed S] [--threads T]\n"
          "         [--replicates B] [--screening N] [--date YYYY-MM-DD]\n"
          "         [--include-simulated] [--quiet]\n",
          stderr);
    return 2;
}

/* argv into a; 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, PlanArgs *a)
{
    memset(a, 0, sizeof *a);
    a->target = 0.8;
    a->studies = 500;
    a->replicates = 1000;
    a->threads = 1;
    a->screening = 100;
    a->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (strcmp(k, "--effect-from-simulation") == 0) {
            a->effect_from_sim = 1;
            continue;
        }
        if (strcmp(k, "--quiet") == 0) {
            a->quiet = 1;
            continue;
        }
        if (strcmp(k, "--include-simulated") == 0) {
            a->include_simulated = 1;
            continue;
        }
        if (k[0] != '-') {
            if (a->dir) {
                return usage("unexpected argument", k);
            }
            a->dir = k;
            continue;
        }
        if (!v) {
            return usage("missing value after", k);
        }
        i++;
        if (strcmp(k, "--out") == 0) {
            a->out = v;
        } else if (strcmp(k, "--power") == 0) {
            char *end;
            a->target = strtod(v, &end);
            if (end == v || *end || !(a->target >= 0.5 && a->target < 1)) {
                return usage("--power: expected a power from 0.5 to below 1, "
                             "got",
                             v);
            }
        } else if (strcmp(k, "--studies") == 0) {
            if (power_cmd_parse_long(v, 20, 1000000, &n) != 0) {
                return usage("--studies: expected 20 to 1000000, got", v);
            }
            a->studies = (int)n;
        } else if (strcmp(k, "--replicates") == 0) {
            if (power_cmd_parse_long(v, 1, 1000000, &n) != 0) {
                return usage("--replicates: expected 1 to 1000000, got", v);
            }
            a->replicates = (int)n;
        } else if (strcmp(k, "--threads") == 0) {
            if (power_cmd_parse_long(v, 1, 256, &n) != 0) {
                return usage("--threads: expected 1 to 256, got", v);
            }
            a->threads = (int)n;
        } else if (strcmp(k, "--screening") == 0) {
            if (power_cmd_parse_long(v, 0, 100000, &n) != 0) {
                return usage("--screening: expected 0 to 100000, got", v);
            }
            a->screening = (int)n;
        } else if (strcmp(k, "--seed") == 0) {
            if (power_cmd_parse_long(v, 0, 0x7fffffffL, &a->seed) != 0) {
                return usage("--seed: expected a non-negative integer, got", v);
            }
        } else if (strcmp(k, "--participants") == 0) {
            a->sizes = v;
        } else if (strcmp(k, "--date") == 0) {
            int y, m, d;
            char tail;
            if (sscanf(v, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 ||
                strlen(v) != 10 || m < 1 || m > 12 || d < 1 || d > 31) {
                return usage("--date: expected YYYY-MM-DD, got", v);
            }
            a->date = v;
        } else if (strcmp(k, "--p") == 0) {
            if (a->n_cells == MAX_P) {
                return usage("too many --p options at", v);
            }
            a->cells[a->n_cells++] = v;
        } else {
            return usage("unknown option", k);
        }
    }
    if (!a->dir || !a->out) {
        return usage("STUDY_DIR and --out DIR are required", NULL);
    }
    if (!a->effect_from_sim && a->n_cells == 0) {
        return usage("the plan needs the effects the study is powered for: "
                     "--effect-from-simulation (the accuracies of the "
                     "study's \"simulation\" block) and/or --p COND:PHASE=P",
                     NULL);
    }
    return 0;
}

/* The sizes simulated: the looks, the planned N, --participants or the
** default grid. */
static int plan_sizes(const PlanArgs *a, const Study *st, PowerOptions *po,
                      SimError *err)
{
    const SimAnalysisSpec *s = &st->analysis;
    if (s->n_looks > 0) {
        memcpy(po->sizes, s->looks, (size_t)s->n_looks * sizeof(int));
        po->n_sizes = s->n_looks;
        return SIM_OK;
    }
    if (s->participants > 0) {
        po->sizes[0] = s->participants;
        po->n_sizes = 1;
        return SIM_OK;
    }
    return power_parse_sizes(a->sizes ? a->sizes : "10,20,40,80", po, err);
}

/* One power run of the study's primary test (primary) or of the
** published bootstrap at sizes. */
static int run(const PlanArgs *a, int primary, const int *sizes, int n_sizes,
               int screening, PowerResult **out, SimError *err)
{
    PowerStudyOptions so;
    power_study_options_default(&so);
    const char *cells[MAX_P];
    memcpy(cells, a->cells, sizeof cells);
    so.bundle_dir = a->dir;
    so.cells = cells;
    so.n_cells = a->n_cells;
    so.screening = screening;
    so.primary = primary;
    PowerOptions *po = &so.power;
    memcpy(po->sizes, sizes, (size_t)n_sizes * sizeof(int));
    po->n_sizes = n_sizes;
    po->studies = a->studies;
    po->null_studies = a->studies;
    po->seed = (uint64_t)a->seed;
    po->threads = a->threads;
    po->replicates = a->replicates;
    po->progress = !a->quiet && isatty(2);
    if (!primary) {
        po->method = POWER_METHOD_BOOTSTRAP;
    }
    return power_study_run(&so, out, err);
}

/* The index of size n in r, or -1. */
static int size_index(const PowerResult *r, int n)
{
    for (int s = 0; s < r->opt.n_sizes; s++) {
        if (r->opt.sizes[s] == n) {
            return s;
        }
    }
    return -1;
}

/* The assumed effect of tested condition pc, on the primary test's scale
** and in words. */
static void assumed(const PowerResult *r, const PowerCondition *pc,
                    PlanCondition *c)
{
    double d = pc->true_change;
    if (r->method == POWER_METHOD_ANOVA) {
        c->assumed = NAN;
        snprintf(c->assumed_text, sizeof c->assumed_text,
                 "the accuracies of the study's simulation");
    } else if (r->method == POWER_METHOD_GLMM) {
        c->assumed = exp(pc->true_logit);
        if (r->test == POWER_TEST_CHANGE) {
            snprintf(c->assumed_text, sizeof c->assumed_text,
                     "odds ratio %.2f (Change %+.1f points against the "
                     "reference's %+.1f)",
                     c->assumed, 100 * pc->true_post, 100 * pc->true_pre);
        } else {
            snprintf(c->assumed_text, sizeof c->assumed_text,
                     "odds ratio %.2f (accuracy %.3f against %.3f)", c->assumed,
                     pc->true_post, pc->true_pre);
        }
    } else if (r->test == POWER_TEST_UTILITY) {
        c->assumed = d;
        snprintf(c->assumed_text, sizeof c->assumed_text,
                 "Utility %.3f (accuracy %.3f against %.3f)", d, pc->true_post,
                 pc->true_pre);
    } else if (r->test == POWER_TEST_CHANGE) {
        c->assumed = 100 * d;
        snprintf(c->assumed_text, sizeof c->assumed_text,
                 "Change %+.1f points (Pre %.3f, Post %.3f)", 100 * d,
                 pc->true_pre, pc->true_post);
    } else {
        c->assumed = 100 * d;
        snprintf(c->assumed_text, sizeof c->assumed_text,
                 "%+.1f points (accuracy %.3f against %.3f)", 100 * d,
                 pc->true_post, pc->true_pre);
    }
    c->null_effect = pc->null_effect;
}

/* The conditions of the study and, for the tested ones, their assumed
** effect, power at the planned N (row si of at) and N for the target. */
static void fill_conditions(const Study *st, const PowerResult *grid,
                            const PowerResult *at, int si, double target,
                            Plan *p)
{
    for (size_t i = 0; i < st->n_conditions && p->n_conds < PLAN_MAX_CONDS;
         i++) {
        PlanCondition *c = &p->conds[p->n_conds++];
        const Condition *sc = &st->conditions[i];
        snprintf(c->id, sizeof c->id, "%s", sc->id);
        snprintf(c->method, sizeof c->method, "%s",
                 sc->method ? sc->method : "");
        snprintf(c->label, sizeof c->label, "%s", sc->label ? sc->label : "");
        c->baseline = grid->baseline && strcmp(grid->baseline, sc->id) == 0;
        c->direction = sim_analysis_direction(&st->analysis, sc->id);
        c->assumed = c->power = c->power_low = c->power_high = NAN;
        c->n_target = NAN;
    }
    for (int k = 0; k < grid->n_conds; k++) {
        const PowerCondition *pc = &grid->conds[k];
        PlanCondition *c = NULL;
        for (int i = 0; i < p->n_conds; i++) {
            c = strcmp(p->conds[i].id, pc->id) == 0 ? &p->conds[i] : c;
        }
        if (!c && p->n_conds < PLAN_MAX_CONDS) { /* the ANOVA's one row */
            c = &p->conds[p->n_conds++];
            snprintf(c->id, sizeof c->id, "%s", pc->id);
            c->pseudo = 1;
        }
        if (!c) {
            continue;
        }
        c->tested = 1;
        assumed(grid, pc, c);
        const PowerRow *w = &at->rows[si * at->n_conds + k];
        c->power = w->power;
        c->power_low = w->ci_low;
        c->power_high = w->ci_high;
        PowerN n;
        power_n_for(grid, k, target, &n);
        c->n_target = n.below ? grid->opt.sizes[0] : n.n;
        c->n_above = n.above;
    }
}

/* The analysed N per condition: the last look, the study's, or the
** smallest size at which every tested condition with an effect reaches
** the target. */
static int planned_n(const Study *st, const PowerResult *r, double target,
                     Plan *p, int *out, SimError *err)
{
    const SimAnalysisSpec *s = &st->analysis;
    if (s->n_looks > 0) {
        snprintf(p->n_from, sizeof p->n_from,
                 "the last of the study's sequential looks");
        *out = s->looks[s->n_looks - 1];
        return SIM_OK;
    }
    if (s->participants > 0) {
        snprintf(p->n_from, sizeof p->n_from,
                 "the study's planned N (analysis.participants)");
        *out = s->participants;
        return SIM_OK;
    }
    double n = 0;
    int any = 0, above = 0;
    const char *worst = NULL;
    for (int k = 0; k < r->n_conds; k++) {
        if (r->conds[k].null_effect) {
            continue;
        }
        PowerN x;
        power_n_for(r, k, target, &x);
        any = 1;
        double v = x.below ? r->opt.sizes[0] : x.n;
        if (x.above || v > n) {
            n = x.above ? r->opt.sizes[r->opt.n_sizes - 1] : v;
            worst = r->conds[k].id;
        }
        above |= x.above;
    }
    if (!any) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "no condition has an assumed effect (the effects "
                        "give every tested condition the reference's "
                        "accuracy): nothing to plan the sample size for; set "
                        "them with --p COND:PHASE=P");
    }
    *out = (int)ceil(n - 1e-9);
    if (above) {
        snprintf(p->n_from, sizeof p->n_from,
                 "the largest size simulated: '%.100s' does not reach power "
                 "%.2f within it; simulate larger sizes with --participants",
                 worst, target);
    } else {
        snprintf(p->n_from, sizeof p->n_from,
                 "the smallest N at which every condition with an assumed "
                 "effect reaches power %.2f ('%.100s' last), interpolated "
                 "between the sizes simulated and rounded up",
                 target, worst);
    }
    return SIM_OK;
}

/* The published method measured at N: its size pooled over its tests and
** its power over the conditions both tests test with an effect. */
static void published(const PowerResult *pub, const PowerResult *prim, int ps,
                      const char *test, const char *what, int N, Plan *p)
{
    PlanPublished *q = &p->published[p->n_published++];
    snprintf(q->test, sizeof q->test, "%s", test);
    snprintf(q->what, sizeof q->what, "%s", what);
    q->participants = N;
    double pw = 0, pw_all = 0, pp = 0;
    int n = 0, n_all = 0;
    for (int k = 0; k < pub->n_conds; k++) {
        const PowerRow *w = &pub->rows[k];
        q->null_studies += w->null_studies;
        q->null_rejected += w->null_rejections;
        if (!pub->conds[k].null_effect) {
            pw_all += w->power;
            n_all++;
        }
        for (int j = 0; j < prim->n_conds; j++) {
            if (strcmp(prim->conds[j].id, pub->conds[k].id) == 0 &&
                !prim->conds[j].null_effect) {
                pw += w->power;
                pp += prim->rows[ps * prim->n_conds + j].power;
                n++;
            }
        }
    }
    q->size =
        q->null_studies > 0 ? (double)q->null_rejected / q->null_studies : NAN;
    power_wilson(q->null_rejected, q->null_studies, &q->size_low,
                 &q->size_high);
    /* on the conditions both test (the relative power), else its own */
    q->power = n > 0 ? pw / n : n_all > 0 ? pw_all / n_all : NAN;
    q->primary_power = n > 0 ? pp / n : NAN;
}

/* The primary test and its measured properties into p. */
static void fill_numbers(const Study *st, const PowerResult *grid,
                         const PowerResult *at, int si, int N, Plan *p)
{
    p->per_condition = N;
    p->studies = grid->opt.studies;
    const PowerFamily *f = &at->family[si];
    p->null_studies = f->null_studies;
    p->null_rejected = f->null_any;
    p->fpr = f->fwer;
    p->fpr_low = f->fwer_low;
    p->fpr_high = f->fwer_high;
    p->power = INFINITY;
    for (int c = 0; c < p->n_conds; c++) {
        const PlanCondition *x = &p->conds[c];
        if (x->tested && !x->null_effect && x->power < p->power) {
            p->power = x->power;
            p->power_low = x->power_low;
            p->power_high = x->power_high;
        }
    }
    if (isinf(p->power)) {
        p->power = NAN;
    }
    double rate = 0, lo = 0, hi = 0;
    for (int i = 0; i < grid->n_screening; i++) { /* the worst condition */
        rate = fmax(rate, grid->screening[i].exclusion_rate);
        lo = fmax(lo, grid->screening[i].rate_low);
        hi = fmax(hi, grid->screening[i].rate_high);
    }
    if (grid->n_screening > 0 && hi < 1) {
        p->exclusion_rate = rate;
        p->enrol_per_condition = (int)ceil(N / (1 - rate) - 1e-9);
        p->enrol_low = (int)ceil(N / (1 - lo) - 1e-9);
        p->enrol_high = (int)ceil(N / (1 - hi) - 1e-9);
    }
    size_t at_s = 0;
    for (int s = 0; s < grid->opt.n_sizes && at_s < sizeof p->sizes; s++) {
        int w = snprintf(p->sizes + at_s, sizeof p->sizes - at_s, "%s%d",
                         s ? ", " : "", grid->opt.sizes[s]);
        at_s += w > 0 ? (size_t)w : 0;
    }
    const PowerSeq *q = grid->seq;
    if (q) {
        int w = power_seq_weakest(grid);
        p->n_looks = q->n_looks;
        memcpy(p->looks, q->looks, sizeof p->looks);
        snprintf(p->spending, sizeof p->spending, "%s",
                 sim_spending_name(q->spending));
        memcpy(p->crit, q->crit, sizeof p->crit);
        memcpy(p->spent, q->spent, sizeof p->spent);
        p->seq_power = w >= 0 ? q->power[w] : NAN;
        p->fixed_n_same_power = w >= 0 ? q->fixed_n[w] : NAN;
        p->seq_fpr = q->fpr;
        p->seq_fpr_low = q->fpr_low;
        p->seq_fpr_high = q->fpr_high;
        p->seq_null_rejected = q->null_any;
        p->expected_n_h0 = q->expected_n_h0;
        p->expected_n_h1 = q->expected_n_h1;
        /* the procedure's power and false positives, not the last look's */
        p->power = p->seq_power;
        p->fpr = q->fpr;
        p->fpr_low = q->fpr_low;
        p->fpr_high = q->fpr_high;
        p->null_rejected = q->null_any;
        for (int k = 0; k < grid->n_conds; k++) {
            for (int c = 0; c < p->n_conds; c++) {
                PlanCondition *x = &p->conds[c];
                if (x->tested && strcmp(x->id, grid->conds[k].id) == 0) {
                    x->power = q->power[k];
                    power_wilson((int)lround(q->power[k] * q->studies),
                                 q->studies, &x->power_low, &x->power_high);
                    if (!x->null_effect && x->power <= p->power) {
                        p->power_low = x->power_low;
                        p->power_high = x->power_high;
                    }
                }
            }
        }
    }
    (void)st;
}

/* Today (UTC) as YYYY-MM-DD. */
static void today(char *out, size_t size)
{
    time_t t = (time_t)(sim_clock_real_ms() / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm)) {
        strftime(out, size, "%Y-%m-%d", &tm);
    } else {
        snprintf(out, size, "1970-01-01");
    }
}

/* The study's facts into p before the simulations. */
static void fill_study(const PlanArgs *a, const Study *st, const PlanFacts *f,
                       Plan *p)
{
    const SimAnalysisSpec *s = &st->analysis;
    snprintf(p->sha256, sizeof p->sha256, "%s", st->hash);
    snprintf(p->simlab_version, sizeof p->simlab_version, "%s", SIMLAB_VERSION);
    if (a->date) {
        snprintf(p->date, sizeof p->date, "%s", a->date);
    } else {
        today(p->date, sizeof p->date);
    }
    snprintf(p->study_id, sizeof p->study_id, "%s", st->id);
    snprintf(p->title, sizeof p->title, "%s", st->title);
    p->seed = (uint64_t)a->seed;
    snprintf(p->test, sizeof p->test, "%s", sim_primary_name(s->primary));
    snprintf(p->test_title, sizeof p->test_title, "%s",
             sim_primary_title(s->primary));
    snprintf(p->source, sizeof p->source, "%s",
             s->primary_set ? "study" : "default for this design");
    p->alpha = s->alpha;
    p->holm = s->holm;
    p->within = f->within;
    p->target_power = a->target;
    p->include_simulated = a->include_simulated;
    if (s->primary == SIM_PRIMARY_GLMM) {
        plan_formula(st, f, p->formula, sizeof p->formula);
        snprintf(p->scale, sizeof p->scale, "odds ratio");
    } else if (s->primary == SIM_PRIMARY_ANOVA) {
        snprintf(p->formula, sizeof p->formula, "%s",
                 f->within ? "accuracy ~ condition + Error(participant / "
                             "condition)"
                           : "accuracy ~ condition");
        snprintf(p->scale, sizeof p->scale, "eta squared");
    } else {
        snprintf(p->scale, sizeof p->scale, "%s",
                 s->primary == SIM_PRIMARY_UTILITY_BOOTSTRAP ? "ratio"
                                                             : "points");
    }
    snprintf(p->effect_from, sizeof p->effect_from, "%s%s%s",
             a->effect_from_sim ? "the study's \"simulation\" block" : "",
             a->effect_from_sim && a->n_cells ? ", with " : "",
             a->n_cells ? "--p on the command line" : "");
    plan_dv(st, f, p);
    plan_design(st, f, p);
    plan_exclusions(st, p);
    plan_secondary(f, p);
}

/* The simulations and the numbers of p. */
static int simulate(const PlanArgs *a, const Study *st, const PlanFacts *f,
                    Plan *p, SimError *err)
{
    PowerOptions grid_o;
    power_options_default(&grid_o);
    int rc = plan_sizes(a, st, &grid_o, err);
    PowerResult *grid = NULL, *atn = NULL, *pub = NULL;
    if (rc == SIM_OK) {
        rc = run(a, 1, grid_o.sizes, grid_o.n_sizes, a->screening, &grid, err);
    }
    int N = 0;
    if (rc == SIM_OK) {
        rc = planned_n(st, grid, a->target, p, &N, err);
    }
    const PowerResult *at = grid;
    int si = rc == SIM_OK ? size_index(grid, N) : -1;
    if (rc == SIM_OK && si < 0) { /* the planned N itself */
        rc = run(a, 1, &N, 1, 0, &atn, err);
        at = atn;
        si = 0;
    }
    if (rc == SIM_OK) {
        snprintf(p->baseline, sizeof p->baseline, "%s",
                 grid->baseline ? grid->baseline : "");
        snprintf(p->baseline_from, sizeof p->baseline_from, "%s",
                 grid->baseline_from ? grid->baseline_from : "");
        fill_conditions(st, grid, at, si, a->target, p);
        fill_numbers(st, grid, at, si, N, p);
    }
    SimPrimaryTest t = st->analysis.primary;
    int change =
        f->pre && f->post && !f->within && t != SIM_PRIMARY_CHANGE_BOOTSTRAP;
    int utility =
        f->sessions > 0 && !f->within && t != SIM_PRIMARY_UTILITY_BOOTSTRAP;
    if (rc == SIM_OK && (change || utility)) {
        rc = run(a, 0, &N, 1, 0, &pub, err);
        if (rc == SIM_OK) {
            published(pub, at, si,
                      change ? "change_bootstrap" : "utility_bootstrap",
                      change ? "Hase & Bansal's Change (crossed bootstrap)"
                             : "Colin et al.'s Utility (crossed bootstrap)",
                      N, p);
        }
    }
    power_free(grid);
    power_free(atn);
    power_free(pub);
    return rc;
}

int plan_main(int argc, char **argv)
{
    PlanArgs a;
    int bad = parse_args(argc, argv, &a);
    if (bad) {
        return bad;
    }
    SimError err;
    sim_error_clear(&err);
    Study *st = NULL;
    Plan *p = sim_calloc(1, sizeof *p);
    int rc = p ? power_study_load(a.dir, &st, &err)
               : sim_fail(&err, SIM_ERR_NOMEM, "out of memory");
    PlanFacts f;
    if (rc == SIM_OK) {
        plan_init(p);
        plan_study_facts(st, &f);
        fill_study(&a, st, &f, p);
        rc = simulate(&a, st, &f, p, &err);
    }
    if (rc == SIM_OK) {
        rc = plan_write(p, a.out, &err);
    }
    if (rc == SIM_OK && !a.quiet) {
        printf("primary test: %s, alpha %g, %s\n", p->test, p->alpha,
               p->holm ? "Holm" : "no correction");
        printf("analysed per condition: %d (enrol %d); power %.3f; "
               "false-positive rate %.3f\n",
               p->per_condition, p->enrol_per_condition, p->power, p->fpr);
        printf("simlab plan: wrote %s/preregistration.{md,json}\n", a.out);
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab plan: %s\n", err.msg);
    }
    study_free(st);
    sim_free(p);
    return rc == SIM_OK ? 0 : rc == SIM_ERR_USAGE ? 2 : 1;
}
