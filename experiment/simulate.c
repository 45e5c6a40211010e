/*
** Simulated participants. A policy looks at the session's view and returns
** the next input with a plausible (log-normal) reaction time on a simulated
** clock; simulate_run() drives participants through the real session state
** machine and store. The mixed policy's model is documented in
** docs/simulation.md. No SDL, no clock (the caller passes the start time).
*/
#include "experiment/simulate.h"

#include "common/sim_alloc.h"
#include "stimuli/questionnaire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_PI 3.14159265358979323846

/* --------------------------------------------------------------- policies */

int policy_parse(const char *name, PolicyKind *kind, SimError *err)
{
    static const char *const names[] = {"model", "label", "random", "mixed"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) == 0) {
            *kind = (PolicyKind)i;
            return SIM_OK;
        }
    }
    return sim_fail(err, SIM_ERR_USAGE,
                    "unknown policy '%s' (model, label, random or mixed)",
                    name);
}

int policy_parse_cell(char *text, SimCell *cell, SimError *err)
{
    char *colon = strchr(text, ':');
    char *eq = strchr(text, '=');
    if (!colon || !eq || eq < colon) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--p '%s': expected CONDITION:PHASE=P", text);
    }
    *colon = '\0';
    *eq = '\0';
    char *end;
    double p = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !(p > 0.0 && p < 1.0)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--p: probability '%s' must be strictly between 0 "
                        "and 1",
                        eq + 1);
    }
    cell->condition = strcmp(text, "*") == 0 ? NULL : text;
    cell->phase = strcmp(colon + 1, "*") == 0 ? NULL : colon + 1;
    cell->p = p;
    if (cell->phase && sim_phase_from_name(cell->phase) == SIM_PHASE_NONE) {
        const char *near = sim_phase_suggest(cell->phase);
        char phases[128];
        sim_phase_list(phases, sizeof phases);
        return near ? sim_fail(err, SIM_ERR_USAGE,
                               "--p: unknown phase '%s' (did you mean '%s'?)",
                               cell->phase, near)
                    : sim_fail(err, SIM_ERR_USAGE,
                               "--p: unknown phase '%s' (phases: %s, or *)",
                               cell->phase, phases);
    }
    return SIM_OK;
}

static double logit(double p)
{
    return log(p / (1.0 - p));
}

static double expit(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* P(correct) of the last cell that matches (a cell's phase that names no
** phase matches nothing). */
static double cell_p(const SimulationSpec *spec, const char *condition,
                     SimPhase phase)
{
    double p = spec->p_default;
    for (size_t i = 0; i < spec->n_cells; i++) {
        const SimCell *c = &spec->cells[i];
        if ((!c->condition ||
             (condition && !strcmp(c->condition, condition))) &&
            (!c->phase || (phase != SIM_PHASE_NONE &&
                           sim_phase_from_name(c->phase) == phase))) {
            p = c->p;
        }
    }
    return p;
}

void policy_init(Policy *policy, PolicyKind kind, const Study *study,
                 const SimulationSpec *spec, uint64_t study_seed,
                 uint64_t participant_seed)
{
    memset(policy, 0, sizeof *policy);
    policy->kind = kind;
    policy->study = study;
    policy->spec = *spec;
    policy->study_seed = study_seed;
    SimRng u;
    sim_rng_seed_stream(&u, participant_seed, 0x7561);
    policy->participant_u = spec->participant_sd * sim_rng_normal(&u);
    sim_rng_seed_stream(&policy->rng, participant_seed, 0x706f6c);
    policy->participant_seed = participant_seed;
}

/* ------------------------------------------------------ questionnaires */

/* Whether this participant leaves optional question q of block b empty
** (3 in 10 do, fixed per participant and question). */
static int skips(const Policy *policy, const Block *b, const SurveyQuestion *q)
{
    if (q->required) {
        return 0;
    }
    SimRng r;
    sim_rng_seed_stream(&r, policy->participant_seed,
                        sim_hash_str(b->id) ^ sim_hash_str(q->id));
    return sim_rng_below(&r, 10) < 3;
}

/* A valid answer to q into policy->answer: numbers uniform over the
** integers of [min, max] (18 .. 80 when open), choices uniform, likert
** points around the middle shifted by the participant's effect, texts a
** short sentence within max_length. */
static void draw_answer(Policy *policy, const SurveyQuestion *q)
{
    char *out = policy->answer;
    size_t n = sizeof policy->answer;
    SimRng *rng = &policy->rng;
    switch (q->type) {
    case QTYPE_NUMBER: {
        double lo = isfinite(q->min) ? ceil(q->min) : 18;
        double hi = isfinite(q->max) ? floor(q->max) : lo + 62;
        if (!isfinite(q->max) && isfinite(q->min)) {
            hi = lo + 62;
        } else if (!isfinite(q->min) && isfinite(q->max)) {
            lo = fmin(18, hi);
        }
        if (hi < lo) { /* no integer inside: the midpoint */
            snprintf(out, n, "%.6g", (q->min + q->max) / 2);
            break;
        }
        double span = fmin(hi - lo, 1e9);
        snprintf(out, n, "%.0f",
                 lo + (double)sim_rng_below(rng, (uint64_t)span + 1));
        break;
    }
    case QTYPE_CHOICE:
        snprintf(out, n, "%s",
                 q->options[sim_rng_below(rng, (uint64_t)q->n_options)]);
        break;
    case QTYPE_LIKERT: {
        double mid = (q->points + 1) / 2.0;
        double x = mid + policy->participant_u * q->points / 4.0 +
                   sim_rng_normal(rng) * q->points / 5.0;
        long p = lround(x);
        p = p < 1 ? 1 : (p > q->points ? q->points : p);
        snprintf(out, n, "%ld", p);
        break;
    }
    case QTYPE_TEXT: {
        static const char *const texts[] = {
            "I looked at the highlighted words.",
            "Mostly guessed.",
            "I compared it with the examples.",
        };
        snprintf(out, n, "%s", texts[sim_rng_below(rng, 3)]);
        /* cut to max_length characters (the texts are ASCII) */
        if (strlen(out) > (size_t)q->max_length) {
            out[q->max_length] = '\0';
        }
        break;
    }
    }
}

/* The first question of a questionnaire screen still to answer (empty or
** invalid, and not one this participant skips), or -1. */
static int next_question(const Policy *policy, const SessionView *v)
{
    for (size_t i = 0; v->answers && i < v->block->n_survey; i++) {
        const SurveyQuestion *q = &v->block->survey[i];
        int ok = questionnaire_check(q, v->answers[i], NULL);
        if (ok < 0 || (ok == 0 && !skips(policy, v->block, q))) {
            return (int)i;
        }
    }
    return -1;
}

static double item_effect(const Policy *policy, const char *item_key)
{
    SimRng r;
    sim_rng_seed_stream(&r, policy->study_seed, sim_hash_str(item_key));
    return policy->spec.item_sd * sim_rng_normal(&r);
}

static double p_correct(const Policy *policy, const char *condition,
                        SimPhase phase, const char *item_key)
{
    double p = cell_p(&policy->spec, condition, phase);
    double eta = logit(p) + policy->participant_u +
                 (item_key ? item_effect(policy, item_key) : 0.0);
    return expit(eta);
}

double policy_p_correct(const Policy *policy, const char *condition,
                        const char *phase, const char *item_key)
{
    return p_correct(policy, condition, sim_phase_from_name(phase), item_key);
}

double policy_true_accuracy(const SimulationSpec *spec, const char *condition,
                            const char *phase)
{
    double mu = logit(cell_p(spec, condition, sim_phase_from_name(phase)));
    double sd = sqrt(spec->participant_sd * spec->participant_sd +
                     spec->item_sd * spec->item_sd);
    if (sd == 0.0) {
        return expit(mu);
    }
    /* E[expit(mu + sd Z)] by the trapezoid rule on [-10, 10] */
    const int n = 4000;
    const double lo = -10.0, h = 20.0 / n;
    double sum = 0.0;
    for (int i = 0; i <= n; i++) {
        double z = lo + h * i;
        double w = (i == 0 || i == n) ? 0.5 : 1.0;
        sum += w * expit(mu + sd * z) * exp(-0.5 * z * z);
    }
    return sum * h / sqrt(2.0 * SIM_PI);
}

/* Log-normal reaction time in ns. */
static int64_t draw_rt(Policy *policy, double median_ms)
{
    double sigma = policy->spec.rt_sigma > 0 ? policy->spec.rt_sigma : 0.5;
    double ms = median_ms * exp(sigma * sim_rng_normal(&policy->rng));
    if (ms < 150.0) {
        ms = 150.0;
    }
    return (int64_t)(ms * 1e6);
}

/* A choice other than right, uniformly. */
static int wrong_choice(Policy *policy, int right, int n)
{
    if (n < 2 || right < 0) {
        return (int)sim_rng_below(&policy->rng, (uint64_t)(n > 0 ? n : 1));
    }
    int k = (int)sim_rng_below(&policy->rng, (uint64_t)(n - 1));
    return k >= right ? k + 1 : k;
}

/* The accept_p of condition and phase: the last cell that matches and
** gives one, else the study's; -1 when neither does. */
static void cell_accept(const SimulationSpec *spec, const char *condition,
                        SimPhase phase, double *right, double *wrong)
{
    *right = spec->accept_right;
    *wrong = spec->accept_wrong;
    for (size_t i = 0; i < spec->n_cells; i++) {
        const SimCell *c = &spec->cells[i];
        if (c->has_accept &&
            (!c->condition ||
             (condition && !strcmp(c->condition, condition))) &&
            (!c->phase || (phase != SIM_PHASE_NONE &&
                           sim_phase_from_name(c->phase) == phase))) {
            *right = c->accept_right;
            *wrong = c->accept_wrong;
        }
    }
}

/* A verify trial of the mixed policy: accept (0) with the cell's (or the
** study's) accept_p for a right or a wrong model, else a correct verdict
** with the cell's p; reject (1) otherwise. */
static int verify_choice(Policy *policy, const SessionView *v, double p)
{
    double right, wrong;
    cell_accept(&policy->spec, v->condition, v->block->phase_id, &right,
                &wrong);
    int model_right = v->trial->correct_choice == 0;
    double p_accept =
        right >= 0 ? (model_right ? right : wrong) : (model_right ? p : 1 - p);
    return sim_rng_uniform(&policy->rng) < p_accept ? 0 : 1;
}

/* The index of class c among the options v offers, or -1. */
static int option_of(const SessionView *v, int c)
{
    for (size_t i = 0; i < v->n_options; i++) {
        if (v->options[i] == c) {
            return (int)i;
        }
    }
    return -1;
}

/* The choice to send: a quiz option, a class (a verify block's verdict),
** or on a trial with the item's own options the index of the option in
** the order offered. */
static int decide_choice(Policy *policy, const SessionView *v)
{
    const Trial *t = v->trial;
    int opts = v->n_options && !v->question;
    size_t n_choices;
    session_choices(v, &n_choices);
    int n = v->question ? (int)v->question->n_options
            : opts      ? (int)v->n_options
                        : (int)n_choices;
    int right = opts ? option_of(v, t->correct_choice) : t->correct_choice;
    /* the true label where the answer is a class (verify's is not) */
    int label = v->item && v->item->label >= 0 && !v->verdicts
                    ? (opts ? option_of(v, v->item->label) : v->item->label)
                    : -1;
    double p;
    if (v->question) {
        p = policy->kind == POLICY_RANDOM  ? 1.0 / n
            : policy->kind == POLICY_MIXED ? policy->spec.quiz_p
                                           : 1.0;
        return sim_rng_uniform(&policy->rng) < p
                   ? right
                   : wrong_choice(policy, right, n);
    }
    switch (policy->kind) {
    case POLICY_MODEL:
        return right;
    case POLICY_LABEL:
        return label >= 0 ? label : right;
    case POLICY_RANDOM:
        return (int)sim_rng_below(&policy->rng, (uint64_t)n);
    case POLICY_MIXED:
        break;
    }
    if (t->is_catch) {
        p = policy->spec.catch_p;
    } else {
        p = p_correct(policy, v->condition, v->block->phase_id, t->item_key);
        if (v->verdicts && right >= 0) {
            return verify_choice(policy, v, p);
        }
    }
    return sim_rng_uniform(&policy->rng) < p ? right
                                             : wrong_choice(policy, right, n);
}

/* A simulated confidence on a scale of points: higher after a right
** answer (centred at 70 % of the scale) than after a wrong one (40 %),
** with some spread. */
static int draw_confidence(Policy *policy, const SessionView *v, int points)
{
    int right = v->trial && v->choice == v->trial->correct_choice;
    double x = (right ? 0.7 : 0.4) + 0.2 * sim_rng_normal(&policy->rng);
    int c = 1 + (int)lround(x * (points - 1));
    return c < 1 ? 1 : (c > points ? points : c);
}

/* Looking at an explanation given on request or on hover before
** answering: 1 with the input in *in. */
static int view_explanation(Policy *policy, const SessionView *v, double median,
                            int64_t *now_ns, SimInput *in)
{
    const Explanation *e = v->explanation;
    int item_screen =
        v->screen == SCREEN_EXAMPLE || v->screen == SCREEN_PREDICT ||
        v->screen == SCREEN_COUNTERFACTUAL || v->screen == SCREEN_RATING ||
        v->screen == SCREEN_VERIFY || v->screen == SCREEN_DECIDE;
    if (!e || e->reveal == EXPL_REVEAL_ALWAYS || !item_screen) {
        return 0;
    }
    if (!policy->view_decided || policy->view_serial != v->screen_serial) {
        double p = policy->spec.reveal_p;
        policy->view_serial = v->screen_serial;
        policy->view_decided = 1;
        policy->hovered = 0;
        /* no draw at the ends, so that p = 1 changes no other draw */
        policy->will_view = p >= 1   ? 1
                            : p <= 0 ? 0
                                     : sim_rng_uniform(&policy->rng) < p;
    }
    if (!policy->will_view) {
        return 0;
    }
    if (e->reveal == EXPL_REVEAL_ON_REQUEST) {
        if (v->revealed) {
            return 0;
        }
        in->kind = SIM_IN_REVEAL;
        in->value = SESSION_REVEAL(-1, 1);
        *now_ns += draw_rt(policy, median * 0.3);
    } else {
        int n = v->n_hover < 3 ? v->n_hover : 3;
        if (policy->hovered < n) {
            in->kind = SIM_IN_HOVER;
            in->value = policy->hovered++;
            *now_ns += draw_rt(policy, median * 0.15);
        } else if (v->hover_target >= 0) {
            in->kind = SIM_IN_HOVER;
            in->value = -1;
            *now_ns += draw_rt(policy, median * 0.1);
        } else {
            return 0;
        }
    }
    in->t_ns = *now_ns;
    return 1;
}

int policy_next_input(Policy *policy, const SessionView *v, int64_t *now_ns,
                      SimInput *in)
{
    memset(in, 0, sizeof *in);
    switch (v->screen) {
    case SCREEN_DONE:
    case SCREEN_SCREENED_OUT:
    case SCREEN_PAUSED:
    case SCREEN_TIMEOUT: /* moves on by itself */
        return -1;
    case SCREEN_STORE_ERROR:
        *now_ns += 500000000LL;
        in->kind = SIM_IN_RETRY;
        in->t_ns = *now_ns;
        return 0;
    default:
        break;
    }
    double median =
        policy->spec.rt_median_ms > 0 ? policy->spec.rt_median_ms : 2500.0;
    if (view_explanation(policy, v, median, now_ns, in)) {
        return 0;
    }
    if (v->need_choice && v->choice < 0) {
        in->kind = SIM_IN_CHOOSE;
        in->value = decide_choice(policy, v);
    } else if (v->need_confidence) {
        in->kind = SIM_IN_CONFIDENCE;
        in->value = draw_confidence(policy, v, v->confidence_spec->points);
        median *= 0.4;
    } else if (v->need_rating && v->rating == 0) {
        in->kind = SIM_IN_RATE;
        in->value =
            1 + (int)sim_rng_below(&policy->rng,
                                   (uint64_t)(v->rating_spec->points
                                                  ? v->rating_spec->points
                                                  : 7));
        median *= 0.6;
    } else if (v->screen == SCREEN_QUESTIONNAIRE && v->block &&
               next_question(policy, v) >= 0) {
        int q = next_question(policy, v);
        draw_answer(policy, &v->block->survey[q]);
        in->kind = SIM_IN_ANSWER;
        in->value = q;
        in->key = policy->answer;
        median *= 0.8;
    } else if (v->need_continue) {
        in->kind = SIM_IN_CONTINUE;
        /* reading a page or looking at an example takes a little longer */
        median *= v->item ? 1.2 : 2.0;
    } else {
        return -1;
    }
    *now_ns += draw_rt(policy, median);
    if (v->continue_after_ns && in->kind == SIM_IN_CONTINUE &&
        *now_ns < v->continue_after_ns) {
        *now_ns = v->continue_after_ns + 1000000;
    }
    in->t_ns = *now_ns;
    return 0;
}

/* --------------------------------------------------------------- simulate */

typedef struct SimRun {
    const SimulateOptions *opts;
    const Study *study;
    Store *store;
    SyncConn *sync;     /* server assignment, or NULL */
    SyncWorker *worker; /* background push, or NULL */
    SimulationSpec spec;
    SimClock clock;        /* simulated monotonic clock */
    SimulateCounts counts; /* deadlines of this run */
    FILE *log;
} SimRun;

static int64_t wall_of(const SimClock *c)
{
    return c->wall_ms + (c->now_ns - c->start_ns) / 1000000;
}

/* Counts a choice asked with a deadline in condition cond (an index of
** the study's conditions, or -1). */
static void count_deadline(SimulateCounts *n, int cond, int timed_out)
{
    if (!n) {
        return;
    }
    n->deadline_trials++;
    n->timeouts += timed_out;
    if (cond >= 0 && n->cond_deadline && n->cond_timeouts) {
        n->cond_deadline[cond]++;
        n->cond_timeouts[cond] += timed_out;
    }
}

int simulate_participant(Store *store, const Study *study, PolicyKind kind,
                         const SimulationSpec *spec, uint64_t study_seed,
                         const char *pid, SimClock *clock,
                         SimulateCounts *counts, SimError *err)
{
    Session *s;
    int rc = session_open(store, study, pid, wall_of(clock), &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Policy policy;
    policy_init(&policy, kind, study, spec, study_seed,
                session_schedule(s)->seed);
    unsigned marked = 0;
    int guard = 0;
    while (rc == SIM_OK && !session_finished(s)) {
        const SessionView *v = session_view(s);
        if (!v->onset_marked || v->screen_serial != marked) {
            clock->now_ns += 16000000; /* one frame to show the screen */
            session_mark_onset(s, clock->now_ns);
            marked = v->screen_serial;
            v = session_view(s);
        }
        if (v->screen == SCREEN_TIMEOUT) {
            /* the timeout message shows for a while, then moves on */
            clock->now_ns += SESSION_TIMEOUT_SHOW_NS;
            rc = session_tick(s, clock->now_ns, wall_of(clock), err);
            continue;
        }
        SimInput in;
        /* a choice with a deadline: met or missed, in the step's condition */
        int deadline = v->deadline_ns > 0 && v->need_choice && v->choice < 0;
        const Condition *cond =
            deadline ? study_find_condition(study, v->condition) : NULL;
        int ci = cond ? (int)(cond - study->conditions) : -1;
        if (policy_next_input(&policy, v, &clock->now_ns, &in) != 0) {
            break;
        }
        in.wall_ms = wall_of(clock);
        /* the frame clock runs up to the input: an answer slower than the
        ** block's time limit finds the trial timed out */
        unsigned serial = v->screen_serial;
        rc = session_tick(s, in.t_ns, in.wall_ms, err);
        if (rc != SIM_OK || session_view(s)->screen_serial != serial) {
            if (rc == SIM_OK && deadline) {
                count_deadline(counts, ci, 1);
            }
            guard = 0;
            continue;
        }
        int consumed = 0;
        rc = session_handle(s, &in, &consumed, err);
        if (rc == SIM_OK && consumed && deadline) {
            count_deadline(counts, ci, 0);
        }
        if (!consumed && ++guard > 1000) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: participant %s: the simulated participant is "
                          "stuck on screen '%s'",
                          store_path(store), pid,
                          session_screen_name(v->screen));
        } else if (consumed) {
            guard = 0;
        }
    }
    session_close(s);
    return rc;
}

static int run_participant(SimRun *r, const char *pid, SimError *err)
{
    return simulate_participant(r->store, r->study, r->opts->policy, &r->spec,
                                r->opts->seed, pid, &r->clock, &r->counts, err);
}

/* A --p cell must name a condition of the study and a phase it has:
** otherwise it would silently match nothing. */
static int check_cell(const Study *st, const SimCell *c, SimError *err)
{
    if (c->condition && !study_find_condition(st, c->condition)) {
        const char *near = study_condition_suggest(st, c->condition);
        if (near) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "--p: unknown condition '%s' (did you mean "
                            "'%s'?)",
                            c->condition, near);
        }
        return sim_fail(err, SIM_ERR_USAGE,
                        "--p: unknown condition '%s' (the study has %zu "
                        "conditions, e.g. '%s')",
                        c->condition, st->n_conditions,
                        st->n_conditions ? st->conditions[0].id : "");
    }
    SimPhase ph = sim_phase_from_name(c->phase);
    if (c->phase && !study_find_phase_block(st, ph)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "--p: the study has no block in phase '%s'", c->phase);
    }
    return SIM_OK;
}

static int build_spec(SimRun *r, SimCell **cells_out, char ***texts_out,
                      SimError *err)
{
    const SimulateOptions *o = r->opts;
    const SimulationSpec *base = &r->study->simulation;
    r->spec = *base;
    size_t n = base->n_cells + (size_t)o->n_cells;
    SimCell *cells = sim_calloc(n ? n : 1, sizeof *cells);
    char **texts = sim_calloc((size_t)o->n_cells + 1, sizeof *texts);
    if (!cells || !texts) {
        sim_free(cells);
        sim_free(texts);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    *cells_out = cells;
    *texts_out = texts;
    if (base->n_cells > 0) {
        memcpy(cells, base->cells, base->n_cells * sizeof *cells);
    }
    for (int i = 0; i < o->n_cells; i++) {
        texts[i] = sim_strdup(o->cells[i]);
        if (!texts[i]) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int rc =
            policy_parse_cell(texts[i], &cells[base->n_cells + (size_t)i], err);
        if (rc != SIM_OK) {
            return rc;
        }
        rc = check_cell(r->study, &cells[base->n_cells + (size_t)i], err);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    r->spec.cells = cells;
    r->spec.n_cells = n;
    if (o->participant_sd >= 0) {
        r->spec.participant_sd = o->participant_sd;
    }
    if (o->item_sd >= 0) {
        r->spec.item_sd = o->item_sd;
    }
    return SIM_OK;
}

static void print_report(FILE *log, const StudyReport *rep)
{
    for (size_t i = 0; log && i < rep->n_errors; i++) {
        study_diag_print(log, "", &rep->errors[i]);
    }
}

int simulate_run(const SimulateOptions *o, FILE *log, SimError *err)
{
    Study *study = NULL;
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(o->bundle_dir, &study, &rep, err);
    if (rc != SIM_OK) {
        print_report(log, &rep);
        study_report_free(&rep);
        return rc;
    }
    study_report_free(&rep);
    SimRun r;
    memset(&r, 0, sizeof r);
    r.opts = o;
    r.study = study;
    r.log = log;
    r.clock.start_ns = r.clock.now_ns = 1000000000LL;
    r.clock.wall_ms = o->wall_ms;
    SimCell *cells = NULL;
    char **texts = NULL;
    rc = build_spec(&r, &cells, &texts, err);
    if (rc == SIM_OK) {
        /* the one writer of the file: a second simulate (or a runner)
        ** on it is refused at once, naming the holder, rather than
        ** waiting for it */
        StoreOpenSpec os;
        memset(&os, 0, sizeof os);
        os.path = o->db_path;
        os.study = study;
        os.station = o->station;
        os.durability = o->durability;
        os.allow_changed = o->accept_changed;
        os.wall_ms = o->wall_ms;
        rc = store_open_spec(&os, &r.store, err);
    }
    if (rc == SIM_OK && log && store_warning(r.store)[0]) {
        fprintf(log, "simulate: warning: %s\n", store_warning(r.store));
    }
    if (rc == SIM_OK && o->sync_url) {
        rc = sync_conn_new(o->sync_url, o->sync_clock, &r.sync, err);
        if (rc == SIM_OK) {
            rc = sync_worker_start(o->sync_url, o->db_path, o->accept_changed,
                                   500, o->sync_clock, &r.worker, err);
        }
    }
    /* finish the unfinished simulated participants first (not those
    ** another station is running) */
    ParticipantInfo *list = NULL;
    size_t n_list = 0;
    if (rc == SIM_OK) {
        rc = store_list_resumable(r.store, o->wall_ms, &list, &n_list, err);
    }
    int resumed = 0, enrolled = 0;
    for (size_t i = 0; rc == SIM_OK && i < n_list; i++) {
        if (!list[i].simulated) {
            continue;
        }
        rc = run_participant(&r, list[i].id, err);
        resumed++;
    }
    sim_free(list);
    int complete = 0;
    if (rc == SIM_OK) {
        rc = store_count_complete(r.store, 1, &complete, err);
    }
    int total = 0;
    if (rc == SIM_OK) {
        /* every simulated participant ever enrolled, for fresh seeds */
        ParticipantInfo *all = NULL;
        size_t n_all = 0;
        rc = store_list_participants(r.store, 0, &all, &n_all, err);
        for (size_t i = 0; i < n_all; i++) {
            total += all[i].simulated;
        }
        sim_free(all);
    }
    while (rc == SIM_OK && complete < o->participants) {
        EnrollSpec e;
        memset(&e, 0, sizeof e);
        e.station = o->station;
        e.simulated = 1;
        uint64_t index = (uint64_t)(unsigned)total;
        e.seed = sim_mix64(o->seed * UINT64_C(0x9e3779b97f4a7c15) + index);
        e.assign_seed = sim_mix64(e.seed ^ 0xa5a5a5a5ULL);
        e.wall_ms = wall_of(&r.clock);
        ParticipantInfo info;
        rc = sync_enroll(r.sync, r.store, study, &e, &info, err);
        total++;
        if (rc == SIM_OK) {
            rc = run_participant(&r, info.id, err);
            enrolled++;
            sync_worker_kick(r.worker);
        }
        if (rc == SIM_OK) {
            rc = store_count_complete(r.store, 1, &complete, err);
        }
        if (rc == SIM_OK && o->verbose && log) {
            fprintf(log, "participant %s (%s): done\n", info.id,
                    info.condition);
        }
        if (rc == SIM_OK && enrolled > 10 * (o->participants + 10)) {
            rc = sim_fail(err, SIM_ERR_STATE,
                          "%s: enrolled %d participants without reaching %d "
                          "complete ones (are they all screened out?)",
                          o->db_path, enrolled, o->participants);
        }
    }
    if (rc == SIM_OK && log) {
        fprintf(log,
                "simulate: %d complete simulated participants in %s "
                "(%d resumed, %d new)\n",
                complete, o->db_path, resumed, enrolled);
        if (r.counts.deadline_trials > 0) {
            fprintf(log,
                    "simulate: timeout rate %.1f %%: %ld of %ld simulated "
                    "answers with a deadline came too late\n",
                    100.0 * (double)r.counts.timeouts /
                        (double)r.counts.deadline_trials,
                    r.counts.timeouts, r.counts.deadline_trials);
        }
    }
    if (r.worker) {
        SyncWorkerStatus ws;
        sync_worker_stop(r.worker, &ws);
        if (log) {
            if (ws.warning[0]) {
                fprintf(log, "simulate: warning: %s\n", ws.warning);
            }
            fprintf(log,
                    "simulate: sync to %s: %ld rows pushed, %ld pending%s%s\n",
                    sync_url(r.sync), ws.pushed, ws.pending,
                    ws.error[0] ? "; last error: " : "", ws.error);
            if (ws.refused) {
                fprintf(log,
                        "simulate: warning: the server refused %ld rows as "
                        "different versions of rows it holds (sync_conflict)"
                        "\n",
                        ws.refused);
            }
        }
    }
    sync_close(r.sync);
    store_close(r.store);
    for (int i = 0; texts && i < o->n_cells; i++) {
        sim_free(texts[i]);
    }
    sim_free(texts);
    sim_free(cells);
    study_free(study);
    return rc;
}
