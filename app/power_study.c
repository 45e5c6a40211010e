/*
** `simlab power`'s wiring to the study (power_cmd.h): the design read off
** the bundle (which test, the baseline, the sessions), the simulation of
** one study for the engine -- each participant's schedule from
** schedule_build() with its seed, an answer of the mixed policy
** (policy_p_correct) on every counted trial, exactly the probabilities
** `simlab simulate --policy mixed` uses -- the truth of each tested
** condition and the pilot's accuracies as the truth.
*/
#include "app/power_cmd.h"

#include "analysis/dataset.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "experiment/assign.h"
#include "experiment/schedule.h"
#include "experiment/simulate.h"
#include "stimuli/study.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void power_study_options_default(PowerStudyOptions *o)
{
    memset(o, 0, sizeof *o);
    power_options_default(&o->power);
    o->participant_sd = -1;
    o->item_sd = -1;
    o->screening = 100;
    o->primary = -1;
}

/* The study and what the simulation of one study needs (read-only while
** the engine's threads run). */
typedef struct StudyCtx {
    const Study *study;
    SimulationSpec spec;
    PowerDesign design;
    char base_from[600]; /* where the reference came from */
    char cond_list[600]; /* the conditions, quoted, for messages */
    const char **cond_ids;
    int *block_cell;   /* per block: its session's cell, or -1 */
    SimPhase phase;    /* within-subject: the phase of the paired test */
    size_t order_rows; /* within-subject: rows of the Williams design */
    /* the null studies' model: every condition at the baseline's p, Post
    ** at Pre's in pre/post designs */
    SimulationSpec null_spec;
    SimCell null_cells[3];
    /* per tested condition: the true statistic and log-odds contrast */
    double truth[POWER_MAX_CELLS], truth_logit[POWER_MAX_CELLS];
} StudyCtx;

static void ctx_free(StudyCtx *x)
{
    sim_free(x->cond_ids);
    sim_free(x->block_cell);
    memset(x, 0, sizeof *x);
}

/* The reference condition: --baseline (an unknown name is an error naming
** the conditions), else the study's "baseline", else a condition called
** "baseline", else none (-1). Sets x->design.base and x->base_from. */
static int resolve_baseline(const Study *st, const char *baseline, StudyCtx *x,
                            SimError *err)
{
    size_t at = 0;
    for (size_t c = 0; c < st->n_conditions && at < sizeof x->cond_list; c++) {
        int n = snprintf(x->cond_list + at, sizeof x->cond_list - at,
                         "%s'%.100s'", c ? ", " : "", st->conditions[c].id);
        at += n > 0 ? (size_t)n : 0;
    }
    const char *name = NULL;
    if (baseline) {
        name = baseline;
        snprintf(x->base_from, sizeof x->base_from, "--baseline");
    } else if (st->baseline) {
        name = st->baseline;
        snprintf(x->base_from, sizeof x->base_from,
                 "the study's baseline in %.500s/study.json", st->dir);
    } else if (study_find_condition(st, "baseline")) {
        name = "baseline";
        snprintf(x->base_from, sizeof x->base_from,
                 "the condition called 'baseline' (the study names no "
                 "baseline)");
    } else {
        snprintf(x->base_from, sizeof x->base_from,
                 "none: the study names no baseline and no condition is "
                 "called 'baseline'");
    }
    const Condition *c = name ? study_find_condition(st, name) : NULL;
    if (name && !c) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s '%.100s': no such condition in study '%s' "
                        "(conditions: %s)",
                        baseline ? "--baseline" : "baseline", name, st->id,
                        x->cond_list);
    }
    x->design.base = c ? (int)(c - st->conditions) : -1;
    x->design.base_from = x->base_from;
    return SIM_OK;
}

/* A within-subject study's test, as simlab-analyze's paired comparisons:
** participant accuracy on the test trials (else the post trials) of each
** condition against the baseline's (the first condition when the study has
** none). */
static int within_design(const Study *st, int n_test, int n_post, StudyCtx *x,
                         SimError *err)
{
    PowerDesign *d = &x->design;
    if (n_test == 0 && n_post == 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' has neither test nor post blocks: "
                        "nothing for the paired comparisons to test",
                        st->dir, st->id);
    }
    if (d->n_conds < 2) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' has one condition: nothing to compare",
                        st->dir, st->id);
    }
    if (d->base < 0) {
        d->base = 0;
        snprintf(x->base_from, sizeof x->base_from,
                 "the first condition (the study names no baseline and no "
                 "condition is called 'baseline'), as simlab-analyze's "
                 "paired comparisons take it");
    }
    d->within = 1;
    d->test = POWER_TEST_PAIRED;
    x->phase = n_test > 0 ? SIM_PHASE_TEST : SIM_PHASE_POST;
    x->order_rows = assign_williams_rows(st->n_conditions);
    return SIM_OK;
}

/* The study's primary test: Change with Pre and Post blocks; otherwise
** Utility with test blocks in sessions, or the difference with the
** baseline with test blocks outside sessions. The baseline: see
** resolve_baseline(). Fills x->design and x->block_cell. */
static int detect_design(const Study *st, const char *baseline, StudyCtx *x,
                         SimError *err)
{
    int n_pre = 0, n_post = 0, n_test = 0, max_session = 0;
    int C = (int)st->n_conditions;
    PowerDesign *d = &x->design;
    if (C > POWER_MAX_CELLS) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: more than %d conditions",
                        st->dir, POWER_MAX_CELLS);
    }
    x->cond_ids = sim_calloc((size_t)C + 1, sizeof *x->cond_ids);
    x->block_cell = sim_malloc((st->n_blocks + 1) * sizeof(int));
    if (!x->cond_ids || !x->block_cell) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        x->cond_ids[c] = st->conditions[c].id;
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *bl = &st->blocks[i];
        n_pre += bl->phase_id == SIM_PHASE_PRE;
        n_post += bl->phase_id == SIM_PHASE_POST;
        x->block_cell[i] = -1;
        if (bl->phase_id == SIM_PHASE_TEST) {
            n_test++;
            max_session = bl->session > max_session ? bl->session : max_session;
        }
    }
    d->study_id = st->id;
    d->n_conds = C;
    d->conds = x->cond_ids;
    d->n_items = (int)st->n_items;
    d->n_cells = 1;
    int rc = resolve_baseline(st, baseline, x, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (st->assignment.mode == ASSIGN_MODE_WITHIN) {
        return within_design(st, n_test, n_post, x, err);
    }
    if (n_pre > 0 && n_post > 0) {
        d->test = POWER_TEST_CHANGE;
        return SIM_OK;
    }
    if (n_test == 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' has neither Pre and Post blocks nor "
                        "test blocks: nothing for simlab power to test",
                        st->dir, st->id);
    }
    if (d->base < 0 || C < 2) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: study '%s' has no baseline (no \"baseline\" in "
                        "its study.json and no condition called "
                        "'baseline'): its test (Utility, or the accuracy "
                        "difference with the baseline) compares each "
                        "condition with it; name one with --baseline NAME "
                        "(conditions: %s)",
                        st->dir, st->id, x->cond_list);
    }
    d->test = max_session > 0 ? POWER_TEST_UTILITY : POWER_TEST_DIFFERENCE;
    int *cell_of = sim_malloc(((size_t)max_session + 1) * sizeof(int));
    if (!cell_of) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    /* sessions in increasing order, as simlab-analyze numbers them */
    for (int t = 0; t <= max_session; t++) {
        cell_of[t] = -1;
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        if (st->blocks[i].phase_id == SIM_PHASE_TEST) {
            cell_of[st->blocks[i].session] = 0;
        }
    }
    d->n_cells = 0;
    for (int t = 0; t <= max_session; t++) {
        if (cell_of[t] == 0) {
            cell_of[t] = d->n_cells++;
        }
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *bl = &st->blocks[i];
        x->block_cell[i] =
            bl->phase_id == SIM_PHASE_TEST ? cell_of[bl->session] : -1;
    }
    sim_free(cell_of);
    return SIM_OK;
}

/* A primary test simlab power cannot simulate, named when the run would
** test it: refused rather than another model's power in its place. */
static int refuse_primary(const PowerStudyOptions *o, const Study *st,
                          SimError *err)
{
    if (o->primary == 0 ||
        st->analysis.primary != SIM_PRIMARY_GLMM_ERROR_DETECTION) {
        return SIM_OK;
    }
    /* no simulated study answers verify trials for the engine yet */
    return sim_fail(err, SIM_ERR_USAGE,
                    "study '%s': its primary test glmm_error_detection "
                    "(correct ~ condition * model_correct + (1 | "
                    "participant) + (1 | item) on verify trials) cannot "
                    "be simulated by simlab power and simlab plan yet, "
                    "and no other model is simulated in its place; "
                    "simulate participants with `simlab simulate` (the "
                    "simulation block's accept_p) and test them with "
                    "simlab-analyze --primary glmm_error_detection",
                    st->id);
}

/* The study's primary test (study.json "analysis") as the engine's test:
** the method, alpha, correction, the contrasts against the reference (the
** mixed model's interaction in a pre/post design) and the sequential
** looks as the sizes. *name: the test's name, or NULL when the study's
** primary test is not the one simulated (no "analysis" block, or --test
** other than primary). */
static int apply_primary(const PowerStudyOptions *o, const Study *st,
                         StudyCtx *x, PowerOptions *po, const char **name,
                         SimError *err)
{
    const SimAnalysisSpec *a = &st->analysis;
    PowerDesign *d = &x->design;
    *name = NULL;
    if (o->primary == 0 || (o->primary < 0 && !a->present)) {
        return po->n_sizes > 0 ? SIM_OK
                               : sim_fail(err, SIM_ERR_USAGE,
                                          "--participants: no sizes given");
    }
    po->alpha = a->alpha;
    po->correction = a->holm ? POWER_CORRECTION_HOLM : POWER_CORRECTION_NONE;
    static const PowerMethod methods[SIM_PRIMARY_COUNT] = {
        POWER_METHOD_GLMM, POWER_METHOD_T, POWER_METHOD_ANOVA,
        POWER_METHOD_BOOTSTRAP, POWER_METHOD_BOOTSTRAP};
    po->method = methods[a->primary];
    int ok = a->primary == SIM_PRIMARY_CHANGE_BOOTSTRAP
                 ? d->test == POWER_TEST_CHANGE
             : a->primary == SIM_PRIMARY_UTILITY_BOOTSTRAP
                 ? d->test == POWER_TEST_UTILITY
             : a->primary == SIM_PRIMARY_PAIRED_T ? d->within
                                                  : 1;
    if (!ok) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "study '%s': its primary test %s does not fit its "
                        "design (simlab check says why)",
                        st->id, sim_primary_name(a->primary));
    }
    if (a->primary == SIM_PRIMARY_GLMM && d->test == POWER_TEST_CHANGE) {
        d->vs_baseline = 1; /* the phase x condition interaction */
    }
    if (d->vs_baseline && d->base < 0) {
        d->base = 0;
        snprintf(x->base_from, sizeof x->base_from,
                 "the first condition (the study names no baseline and no "
                 "condition is called 'baseline'), as simlab-analyze's "
                 "mixed model takes it");
    }
    if (a->n_looks > 0) {
        if (po->n_sizes == 0) {
            memcpy(po->sizes, a->looks, (size_t)a->n_looks * sizeof(int));
            po->n_sizes = a->n_looks;
        }
        po->n_looks = a->n_looks;
        memcpy(po->looks, a->looks, sizeof po->looks);
        po->spending = a->spending;
    }
    if (po->n_sizes == 0) {
        return sim_fail(err, SIM_ERR_USAGE, "--participants: no sizes given");
    }
    *name = sim_primary_name(a->primary);
    return power_check_options(po, err);
}

/* The phase and cell a trial counts in, or -1 when it does not count:
** Pre and Post prediction trials for Change, the test trials of the
** sessions for the others; never examples, catch trials or trials
** without a right answer. */
static int counted(const StudyCtx *x, const Trial *t, int *cell)
{
    const Study *st = x->study;
    if (!t->item_key || t->is_catch || t->is_example || t->correct_choice < 0) {
        return -1;
    }
    SimPhase ph = st->blocks[t->block].phase_id;
    *cell = 0;
    if (x->design.within) {
        return ph != x->phase         ? -1
               : ph == SIM_PHASE_TEST ? POWER_PHASE_TEST
                                      : POWER_PHASE_POST;
    }
    if (x->design.test == POWER_TEST_CHANGE) {
        return ph == SIM_PHASE_PRE    ? POWER_PHASE_PRE
               : ph == SIM_PHASE_POST ? POWER_PHASE_POST
                                      : -1;
    }
    *cell = x->block_cell[t->block];
    return *cell >= 0 ? POWER_PHASE_TEST : -1;
}

/* Whether an answer comes after its block's deadline: a reaction time
** drawn as the mixed policy draws it (log-normal, the simulation block's
** median and sigma), from the participant's own stream rt so that the
** answers themselves do not change. */
static int too_late(const StudyCtx *x, const Block *b, SimRng *rt)
{
    if (b->time_limit_ms <= 0) {
        return 0;
    }
    double median = x->spec.rt_median_ms > 0 ? x->spec.rt_median_ms : 2500.0;
    double sigma = x->spec.rt_sigma > 0 ? x->spec.rt_sigma : 0.5;
    double ms = fmax(150.0, median * exp(sigma * sim_rng_normal(rt)));
    return ms >= b->time_limit_ms;
}

/* Simulates participant u of schedule sched into out: an answer of the
** mixed policy on every counted trial, in the trial's condition; answers
** after a deadline are lost, as in the session. */
static int draw_answers(const StudyCtx *x, const Schedule *sched, int u,
                        uint64_t study_seed, int null_study, PowerTable *out,
                        SimError *err)
{
    const Study *st = x->study;
    Policy pol;
    policy_init(&pol, POLICY_MIXED, st, null_study ? &x->null_spec : &x->spec,
                study_seed, sched->seed);
    SimRng rt;
    sim_rng_seed_stream(&rt, sched->seed, UINT64_C(0x72745f6c617465));
    for (size_t i = 0; i < sched->n_trials; i++) {
        const Trial *t = &sched->trials[i];
        int cell, phase = counted(x, t, &cell);
        const Item *it = phase >= 0 ? study_find_item(st, t->item_key) : NULL;
        if (!it) {
            continue;
        }
        const Block *b = &st->blocks[t->block];
        const char *cond = trial_condition(sched, t);
        const Condition *sc = study_find_condition(st, cond);
        double p = policy_p_correct(&pol, cond, sim_phase_name(b->phase_id),
                                    t->item_key);
        int y = sim_rng_uniform(&pol.rng) < p;
        if (too_late(x, b, &rt)) {
            continue; /* timed out: no answer */
        }
        if (power_table_add(out, u, sc ? (int)(sc - st->conditions) : 0,
                            (int)(it - st->items), phase, cell, y) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}

/* A between-subject study: N participants per condition. */
static int simulate_between(const StudyCtx *x, int N, uint64_t study_seed,
                            int null_study, PowerTable *out, SimError *err)
{
    for (int c = 0; c < x->design.n_conds; c++) {
        for (int i = 0; i < N; i++) {
            int u = power_table_participant(out, c);
            if (u < 0) {
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            uint64_t pseed = sim_mix64(
                study_seed * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)u + 1);
            Schedule *sched;
            int rc =
                schedule_build(x->study, x->cond_ids[c], pseed, &sched, err);
            if (rc == SIM_OK) {
                rc =
                    draw_answers(x, sched, u, study_seed, null_study, out, err);
                schedule_free(sched);
            }
            if (rc != SIM_OK) {
                return rc;
            }
        }
    }
    return SIM_OK;
}

/* A within-subject study: N participants drawn whole, each with the order
** of conditions the study's rule gives the next participant (a Williams
** latin square's least-filled row, a random or the fixed order) and the
** schedule of schedule_build_within(), which repeats the study's run of
** blocks once per condition. */
static int simulate_within(const StudyCtx *x, int N, uint64_t study_seed,
                           int null_study, PowerTable *out, SimError *err)
{
    const Study *st = x->study;
    int C = x->design.n_conds, rc = SIM_OK;
    AssignCount *rows = sim_calloc(x->order_rows + 1, sizeof *rows);
    int *order = sim_malloc(((size_t)C + 1) * sizeof(int));
    const char **ids = sim_malloc(((size_t)C + 1) * sizeof *ids);
    if (!rows || !order || !ids) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; rc == SIM_OK && i < N; i++) {
        uint64_t pseed = sim_mix64(study_seed * UINT64_C(0x9e3779b97f4a7c15) +
                                   (uint64_t)i + 1);
        int row = -1;
        assign_choose_order(st, rows, NULL, pseed, order, &row);
        if (row >= 0 && (size_t)row < x->order_rows) {
            rows[row].done++;
        }
        for (int k = 0; k < C; k++) {
            ids[k] = st->conditions[order[k]].id;
        }
        int u = power_table_participant(out, order[0]);
        Schedule *sched = NULL;
        rc = u < 0 ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                   : schedule_build_within(st, ids, (size_t)C, pseed, &sched,
                                           err);
        if (rc == SIM_OK) {
            rc = draw_answers(x, sched, u, study_seed, null_study, out, err);
        }
        schedule_free(sched);
    }
    sim_free(rows);
    sim_free(order);
    sim_free(ids);
    return rc;
}

/* The engine's callback: one study of N participants per condition. */
static int simulate_study(void *vctx, int N, uint64_t study_seed,
                          int null_study, PowerTable *out, SimError *err)
{
    const StudyCtx *x = vctx;
    return x->design.within
               ? simulate_within(x, N, study_seed, null_study, out, err)
               : simulate_between(x, N, study_seed, null_study, out, err);
}

/* The cell probability p whose population accuracy under spec's random
** effects is acc (bisection on the logit scale). */
static double p_for_accuracy(const SimulationSpec *spec, double acc)
{
    SimulationSpec one = *spec;
    SimCell cell = {NULL, NULL, 0.5, 0, 0, 0};
    one.cells = &cell;
    one.n_cells = 1;
    double lo = -9, hi = 9;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        cell.p = 1.0 / (1.0 + exp(-mid));
        if (policy_true_accuracy(&one, NULL, NULL) < acc) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 1.0 / (1.0 + exp(-0.5 * (lo + hi)));
}

/* The pilot's Pre and Post accuracies into r->conds and as cells of the
** simulation (appended to cells at *n). */
static int pilot_cells(const PowerStudyOptions *o, const Study *st,
                       const SimulationSpec *spec, PowerResult *r,
                       SimCell *cells, size_t *n, SimError *err)
{
    int C = (int)st->n_conditions;
    double *acc = sim_malloc(((size_t)C * 2 + 1) * sizeof(double));
    int *cnt = sim_malloc(((size_t)C * 3 + 1) * sizeof(int));
    const char **ids = sim_malloc(((size_t)C + 1) * sizeof *ids);
    if (!acc || !cnt || !ids) {
        sim_free(acc);
        sim_free(cnt);
        sim_free(ids);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        ids[c] = st->conditions[c].id;
    }
    int rc = power_read_pilots(o->pilots, o->n_pilots, ids, C, st->id, acc,
                               acc + C, cnt, cnt + C, cnt + 2 * C, err);
    for (int c = 0; rc == SIM_OK && c < C; c++) {
        PowerCondition *pc = &r->conds[c]; /* Change: every condition */
        pc->pilot_pre = acc[c];
        pc->pilot_post = acc[C + c];
        pc->pilot_pre_n = cnt[c];
        pc->pilot_post_n = cnt[C + c];
        pc->pilot_participants = cnt[2 * C + c];
        static char pre[] = "pre", post[] = "post";
        char *ph[2] = {pre, post};
        double a[2] = {pc->pilot_pre, pc->pilot_post};
        for (int k = 0; k < 2; k++) {
            if (isfinite(a[k])) {
                SimCell *cell = &cells[(*n)++];
                cell->condition = st->conditions[c].id;
                cell->phase = ph[k];
                cell->p = p_for_accuracy(spec, fmin(0.99, fmax(0.01, a[k])));
            }
        }
    }
    sim_free(acc);
    sim_free(cnt);
    sim_free(ids);
    return rc;
}

/* The simulation model: the study's block, the SD overrides, the pilot's
** accuracies as cells (with pilots), then the --p cells. */
static int build_spec(const PowerStudyOptions *o, const Study *st,
                      PowerResult *r, SimulationSpec *spec, SimCell **cells,
                      char ***texts, SimError *err)
{
    *spec = st->simulation;
    if (o->participant_sd >= 0) {
        spec->participant_sd = o->participant_sd;
    }
    if (o->item_sd >= 0) {
        spec->item_sd = o->item_sd;
    }
    size_t n = st->simulation.n_cells;
    *cells = sim_calloc(n + 2 * st->n_conditions + (size_t)o->n_cells + 1,
                        sizeof **cells);
    *texts = sim_calloc((size_t)o->n_cells + 1, sizeof **texts);
    if (!*cells || !*texts) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (n > 0) {
        memcpy(*cells, st->simulation.cells, n * sizeof **cells);
    }
    if (o->n_pilots > 0) {
        int rc = pilot_cells(o, st, spec, r, *cells, &n, err);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    for (int i = 0; i < o->n_cells; i++) {
        SimCell *cell = &(*cells)[n++];
        (*texts)[i] = sim_strdup(o->cells[i]);
        if (!(*texts)[i]) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int rc = policy_parse_cell((*texts)[i], cell, err);
        if (rc != SIM_OK) {
            return rc;
        }
        if (cell->condition && !study_find_condition(st, cell->condition)) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--p: unknown condition '%s' (the study has "
                            "%zu conditions, e.g. '%s')",
                            cell->condition, st->n_conditions,
                            st->conditions[0].id);
        }
    }
    spec->cells = *cells;
    spec->n_cells = n;
    return SIM_OK;
}

/* The log-odds of a correct answer in condition cond and phase for an
** average participant on an average item: the cell's logit p. */
static double cell_logit(const StudyCtx *x, const char *cond, const char *phase)
{
    SimulationSpec one = x->spec;
    one.participant_sd = 0; /* u = 0 */
    Policy pol;
    policy_init(&pol, POLICY_MIXED, x->study, &one, 0, 1);
    double p = policy_p_correct(&pol, cond, phase, NULL);
    return log(p / (1 - p));
}

/* The null studies' model: every condition at the baseline's p (the first
** condition when there is no baseline), and in pre/post designs Post at
** Pre's p, as simlab-analyze --calibrate simulates its null. */
static void build_null_spec(StudyCtx *x)
{
    static char pre[] = "pre", post[] = "post", test[] = "test";
    char *phases[3] = {pre, post, test};
    const PowerDesign *d = &x->design;
    const char *ref = d->conds[d->base >= 0 ? d->base : 0];
    for (int k = 0; k < 3; k++) {
        const char *ph =
            d->test == POWER_TEST_CHANGE && k == 1 ? "pre" : phases[k];
        double l = cell_logit(x, ref, ph);
        x->null_cells[k].condition = NULL;
        x->null_cells[k].phase = phases[k];
        x->null_cells[k].p = 1 / (1 + exp(-l));
    }
    x->null_spec = x->spec;
    x->null_spec.cells = x->null_cells;
    x->null_spec.n_cells = 3;
}

/* The true value of every tested condition's statistic and of the mixed
** model's contrast, for the coverage of the intervals. */
static void design_truth(StudyCtx *x)
{
    PowerDesign *d = &x->design;
    int tested[POWER_MAX_CELLS];
    int n = power_tested(d, tested);
    const char *ph = d->within ? sim_phase_name(x->phase) : "test";
    for (int k = 0; k < n; k++) {
        const char *id = d->conds[tested[k]];
        if (d->test == POWER_TEST_CHANGE) {
            x->truth[k] = policy_true_accuracy(&x->spec, id, "post") -
                          policy_true_accuracy(&x->spec, id, "pre");
            x->truth_logit[k] =
                cell_logit(x, id, "post") - cell_logit(x, id, "pre");
            if (d->vs_baseline) { /* against the reference's learning */
                const char *base = d->conds[d->base];
                x->truth[k] -= policy_true_accuracy(&x->spec, base, "post") -
                               policy_true_accuracy(&x->spec, base, "pre");
                x->truth_logit[k] -=
                    cell_logit(x, base, "post") - cell_logit(x, base, "pre");
            }
            continue;
        }
        const char *base = d->conds[d->base];
        double a = policy_true_accuracy(&x->spec, id, ph);
        double b = policy_true_accuracy(&x->spec, base, ph);
        x->truth[k] = d->test == POWER_TEST_UTILITY ? a / b : a - b;
        x->truth_logit[k] = cell_logit(x, id, ph) - cell_logit(x, base, ph);
    }
    d->truth = x->truth;
    d->truth_logit = x->truth_logit;
}

/* The truth of every tested condition of r. */
static void fill_truth(const StudyCtx *x, PowerResult *r)
{
    const PowerDesign *d = &x->design;
    if (r->method == POWER_METHOD_ANOVA) { /* one F test of all conditions */
        /* the ANOVA's phase: the paired one, Post (pre/post) or test */
        const char *ph = d->within ? sim_phase_name(x->phase)
                         : d->test == POWER_TEST_CHANGE ? "post"
                                                        : "test";
        PowerCondition *pc = &r->conds[0];
        pc->true_pre = policy_true_accuracy(
            &x->spec, d->conds[d->base >= 0 ? d->base : 0], ph);
        pc->null_effect = 1;
        for (int c = 0; c < d->n_conds; c++) {
            double a = policy_true_accuracy(&x->spec, d->conds[c], ph);
            pc->null_effect &= a == pc->true_pre;
        }
        pc->true_post = pc->true_change = NAN;
        return;
    }
    for (int k = 0; k < r->n_conds; k++) {
        PowerCondition *pc = &r->conds[k];
        const char *id = pc->id;
        if (d->test == POWER_TEST_CHANGE && d->vs_baseline) {
            /* Change of the reference and of the condition */
            const char *base = d->conds[d->base];
            pc->true_pre = policy_true_accuracy(&x->spec, base, "post") -
                           policy_true_accuracy(&x->spec, base, "pre");
            pc->true_post = policy_true_accuracy(&x->spec, id, "post") -
                            policy_true_accuracy(&x->spec, id, "pre");
            pc->true_change = pc->true_post - pc->true_pre;
            pc->null_effect = fabs(pc->true_logit) < 1e-12;
            continue;
        } else if (d->test == POWER_TEST_CHANGE) {
            pc->true_pre = policy_true_accuracy(&x->spec, id, "pre");
            pc->true_post = policy_true_accuracy(&x->spec, id, "post");
            pc->true_change = pc->true_post - pc->true_pre;
        } else {
            const char *ph = d->within ? sim_phase_name(x->phase) : "test";
            pc->true_pre =
                policy_true_accuracy(&x->spec, d->conds[d->base], ph);
            pc->true_post = policy_true_accuracy(&x->spec, id, ph);
            pc->true_change = d->test == POWER_TEST_UTILITY
                                  ? pc->true_post / pc->true_pre
                                  : pc->true_post - pc->true_pre;
        }
        pc->null_effect = pc->true_pre == pc->true_post;
    }
}

int power_study_load(const char *dir, Study **st, SimError *err)
{
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(dir, st, &rep, err);
    for (size_t i = 0; rc != SIM_OK && i < rep.n_errors; i++) {
        study_diag_print(stderr, "", &rep.errors[i]);
    }
    study_report_free(&rep);
    return rc;
}

int power_study_run(const PowerStudyOptions *o, PowerResult **out,
                    SimError *err)
{
    *out = NULL;
    int rc = o->power.n_sizes > 0 ? power_check_options(&o->power, err)
                                  : SIM_OK; /* sizes: maybe the looks */
    Study *st = NULL;
    if (rc == SIM_OK) {
        rc = power_study_load(o->bundle_dir, &st, err);
    }
    if (rc == SIM_OK) {
        rc = refuse_primary(o, st, err);
    }
    if (rc != SIM_OK) {
        study_free(st);
        return rc;
    }
    StudyCtx x;
    memset(&x, 0, sizeof x);
    x.study = st;
    SimCell *cells = NULL;
    char **texts = NULL;
    PowerResult *r = NULL;
    rc = detect_design(st, o->baseline, &x, err);
    if (rc == SIM_OK && o->n_pilots > 0 && x.design.test != POWER_TEST_CHANGE) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "--pilot: pilot data set the Pre and Post accuracies "
                      "of pre/post designs only; study '%s' has none (set "
                      "its accuracies with --p COND:test=P)",
                      st->id);
    }
    /* a result to hold the pilot's estimates while the spec is built;
    ** the engine's result takes them over */
    PowerResult pilot;
    memset(&pilot, 0, sizeof pilot);
    PowerCondition *pcs = sim_calloc(st->n_conditions + 1, sizeof *pcs);
    pilot.conds = pcs;
    pilot.n_conds = (int)st->n_conditions;
    if (rc == SIM_OK && !pcs) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (rc == SIM_OK) {
        rc = build_spec(o, st, &pilot, &x.spec, &cells, &texts, err);
    }
    PowerOptions po = o->power;
    const char *primary = NULL;
    if (rc == SIM_OK) {
        rc = apply_primary(o, st, &x, &po, &primary, err);
    }
    if (rc == SIM_OK) {
        build_null_spec(&x);
        design_truth(&x);
        rc = power_run(&x.design, &po, simulate_study, &x, &r, err);
    }
    if (rc == SIM_OK) {
        r->primary = primary;
    }
    if (rc == SIM_OK) {
        r->participant_sd = x.spec.participant_sd;
        r->item_sd = x.spec.item_sd;
        r->n_pilots = o->n_pilots;
        for (int k = 0; k < r->n_conds && o->n_pilots > 0; k++) {
            const PowerCondition *src = &pcs[k]; /* Change: every condition */
            r->conds[k].pilot_pre = src->pilot_pre;
            r->conds[k].pilot_post = src->pilot_post;
            r->conds[k].pilot_pre_n = src->pilot_pre_n;
            r->conds[k].pilot_post_n = src->pilot_post_n;
            r->conds[k].pilot_participants = src->pilot_participants;
        }
        fill_truth(&x, r);
    }
    if (rc == SIM_OK && o->screening > 0) {
        PowerScreening *scr = NULL;
        int n_scr = 0;
        rc = power_enrol_measure(st, &x.spec, x.design.within, o->screening,
                                 sim_mix64(o->power.seed ^ 0x656e726f6cULL),
                                 &scr, &n_scr, err);
        if (rc == SIM_OK) {
            rc = power_set_screening(r, scr, n_scr, err);
        }
        sim_free(scr);
    }
    if (rc != SIM_OK) {
        power_free(r);
        r = NULL;
    }
    sim_free(pcs);
    for (int i = 0; texts && i < o->n_cells; i++) {
        sim_free(texts[i]);
    }
    sim_free(texts);
    sim_free(cells);
    ctx_free(&x);
    study_free(st);
    *out = r;
    return rc;
}

int power_study_estimate_db(const char *bundle_dir, const char *db, double *est,
                            int n_est, SimError *err)
{
    Study *st = NULL;
    int rc = power_study_load(bundle_dir, &st, err);
    if (rc != SIM_OK) {
        return rc;
    }
    StudyCtx x;
    memset(&x, 0, sizeof x);
    x.study = st;
    PowerTable t;
    memset(&t, 0, sizeof t);
    Dataset *ds = NULL;
    rc = detect_design(st, NULL, &x, err);
    if (rc == SIM_OK && x.design.test == POWER_TEST_CHANGE) {
        rc = sim_fail(err, SIM_ERR_USAGE,
                      "power_study_estimate_db: Utility, difference and "
                      "paired tests only");
    }
    if (rc == SIM_OK) {
        rc = dataset_new(&ds, err);
    }
    if (rc == SIM_OK) {
        rc = dataset_load_db(ds, db, err);
    }
    for (int u = 0; rc == SIM_OK && u < ds->n_participants; u++) {
        const char *cond = dataset_str(ds, ds->participants[u].condition);
        const Condition *sc = study_find_condition(st, cond);
        if (power_table_participant(&t, sc ? (int)(sc - st->conditions) : 0) <
            0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    int want =
        !x.design.within || x.phase == SIM_PHASE_TEST ? PHASE_TEST : PHASE_POST;
    for (size_t i = 0; rc == SIM_OK && i < ds->n_rows; i++) {
        const DatasetResponse *row = &ds->rows[i];
        if (row->phase != want || row->correct < 0 || row->is_catch ||
            ds->participants[row->participant].excluded) {
            continue;
        }
        const Item *it = study_find_item(st, dataset_str(ds, row->item));
        const Condition *rc_cond =
            study_find_condition(st, dataset_str(ds, row->condition));
        int cell = x.design.within ? 0 : -1;
        for (size_t k = 0; k < st->n_blocks && !x.design.within; k++) {
            if (x.block_cell[k] >= 0 &&
                st->blocks[k].session == dataset_session(ds, row)) {
                cell = x.block_cell[k];
            }
        }
        if (!it || !rc_cond || cell < 0) {
            continue;
        }
        if (power_table_add(
                &t, row->participant, (int)(rc_cond - st->conditions),
                (int)(it - st->items),
                want == PHASE_TEST ? POWER_PHASE_TEST : POWER_PHASE_POST, cell,
                row->correct) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (rc == SIM_OK) {
        rc = power_estimate(&x.design, &t, est, n_est, err);
    }
    power_table_free(&t);
    dataset_free(ds);
    ctx_free(&x);
    study_free(st);
    return rc;
}
