/*
** study.json: header fields, classes, conditions, assignment, screening,
** rating, quiz, simulation and pages; then the protocol (blocks.c with
** preset.c) and the checks that tie blocks to item pools and explanations
** (validate.c). libc and jansson only.
*/
#include "stimuli/design.h"
#include "stimuli/loader.h"
#include "stimuli/items_int.h"
#include "stimuli/sources.h"
#include "stimuli/page_load.h"
#include "stimuli/preset.h"
#include "stimuli/validate.h"
#include "stimuli/blocks.h"
#include "stimuli/designctx.h"
#include "stimuli/uiparse.h"
#include "stimuli/online.h"
#include "stimuli/metrics.h"
#include "stimuli/primary.h"
#include "stimuli/options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* -------------------------------------------------------------- classes */

static void parse_classes(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    json_t *v = json_object_get(D->root, "classes");
    if (!v) {
        jl_error(L, root, "classes", "missing (required)");
        return;
    }
    JLoc cl;
    jl_child(&cl, root, "classes");
    if (json_is_object(v)) {
        L->classes_ok = options_classes_file(L, &cl, v) == 0 && !L->oom;
        study_class_index_build(st);
        return;
    }
    if (!json_is_array(v) || json_array_size(v) < 2) {
        jl_error(L, root, "classes",
                 "must be a list of 2 or more classes, or {\"file\": "
                 "\"classes.csv\"}");
        return;
    }
    size_t n = json_array_size(v);
    st->classes = ld_calloc(L, n, sizeof *st->classes);
    if (!st->classes) {
        return;
    }
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(v, i);
        JLoc el;
        jl_index(&el, &cl, i);
        StudyClass *sc = &st->classes[i];
        st->n_classes = i + 1;
        char keybuf[24];
        snprintf(keybuf, sizeof keybuf, "%zu", i + 1);
        if (json_is_string(c) || json_is_integer(c)) {
            sc->id = json_scalar_text(L, c);
        } else if (json_is_object(c)) {
            static const char *const known[] = {"id", "label", "key", NULL};
            jreject_unknown(L, &el, c, known);
            if (jget_id(L, &el, c, "id", 1, &sc->id) != 1) {
                ok = 0;
                continue;
            }
            const char *s = NULL;
            if (jget_str(L, &el, c, "label", 0, &s) == 1) {
                sc->label = ld_strdup(L, s);
            }
            if (jget_str(L, &el, c, "key", 0, &s) == 1) {
                if (!s[0]) {
                    jl_error(L, &el, "key", "must not be empty");
                }
                sc->key = ld_strdup(L, s);
            }
        } else {
            jl_error(L, &el, NULL, "a class is {\"id\", \"label\", \"key\"}");
            ok = 0;
            continue;
        }
        if (!sc->label) {
            sc->label = ld_strdup(L, sc->id);
        }
        if (!sc->key) {
            sc->key = ld_strdup(L, keybuf);
        }
        for (size_t k = 0; k < i; k++) {
            const StudyClass *o = &st->classes[k];
            if (o->id && sc->id && strcmp(o->id, sc->id) == 0) {
                jl_error(L, &el, "id", "duplicate class id '%s'", sc->id);
                ok = 0;
            }
            if (o->key && sc->key && strcmp(o->key, sc->key) == 0) {
                jl_error(L, &el, "key", "key '%s' is also used by class '%s'",
                         sc->key, o->id);
            }
        }
    }
    L->classes_ok = ok && !L->oom;
    study_class_index_build(st);
}

/* ----------------------------------------------------------- conditions */

static void parse_conditions(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    json_t *v = json_object_get(D->root, "conditions");
    if (!v) {
        jl_error(L, root, "conditions", "missing (required)");
        return;
    }
    if (!json_is_array(v) || json_array_size(v) == 0) {
        jl_error(L, root, "conditions", "must be a non-empty list");
        return;
    }
    JLoc cl;
    jl_child(&cl, root, "conditions");
    size_t n = json_array_size(v);
    st->conditions = ld_calloc(L, n, sizeof *st->conditions);
    if (!st->conditions) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(v, i);
        JLoc el;
        jl_index(&el, &cl, i);
        if (!json_is_object(c)) {
            jl_error(L, &el, NULL,
                     "a condition is {\"id\", \"method\" (or null)}");
            continue;
        }
        static const char *const known[] = {"id", "method", "label", "advice",
                                            NULL};
        jreject_unknown(L, &el, c, known);
        Condition *cd = &st->conditions[st->n_conditions];
        if (jget_id(L, &el, c, "id", 1, &cd->id) != 1) {
            continue;
        }
        cd->advice = 1;
        jget_bool(L, &el, c, "advice", &cd->advice);
        st->n_conditions++;
        json_t *m = json_object_get(c, "method");
        if (m && !json_is_null(m)) {
            const char *s = NULL;
            if (jget_str(L, &el, c, "method", 0, &s) == 1) {
                if (!s[0]) {
                    jl_error(L, &el, "method",
                             "must not be empty (use null "
                             "for no explanation)");
                }
                cd->method = ld_strdup(L, s);
            }
        }
        const char *s = NULL;
        if (jget_str(L, &el, c, "label", 0, &s) == 1) {
            cd->label = ld_strdup(L, s);
        }
        for (size_t k = 0; k + 1 < st->n_conditions; k++) {
            if (strcmp(st->conditions[k].id, cd->id) == 0) {
                jl_error(L, &el, "id", "duplicate condition id '%s'", cd->id);
            }
        }
    }
}

/* ---------------------------------------------- assignment, rating, ... */

/* "repeat": a list of block ids (resolved once the blocks are read,
** validate_within); only for within-subject studies. */
static void parse_repeat(Design *D, const JLoc *al, json_t *v)
{
    Loader *L = D->L;
    Assignment *a = &L->st->assignment;
    json_t *r = json_object_get(v, "repeat");
    if (!r) {
        return;
    }
    if (a->mode != ASSIGN_MODE_WITHIN) {
        jl_error(L, al, "repeat",
                 "blocks are repeated per condition only with \"mode\": "
                 "\"within\"");
        return;
    }
    if (!json_is_array(r) || json_array_size(r) == 0) {
        jl_error(L, al, "repeat",
                 "must be a non-empty list of block ids (the blocks done "
                 "once per condition)");
        return;
    }
    a->repeat = ld_calloc(L, json_array_size(r), sizeof *a->repeat);
    size_t i;
    json_t *x;
    json_array_foreach(r, i, x)
    {
        if (!json_is_string(x)) {
            jl_error(L, al, "repeat", "must be a list of block ids");
            return;
        }
        if (a->repeat) {
            a->repeat[a->n_repeat++] = ld_strdup(L, json_string_value(x));
        }
    }
}

static void parse_assignment(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Assignment *a = &L->st->assignment;
    a->rule = ASSIGN_BALANCED;
    a->min_complete = 0;
    a->active_minutes = 60;
    json_t *v = json_object_get(D->root, "assignment");
    if (!v) {
        return;
    }
    JLoc al;
    jl_child(&al, root, "assignment");
    if (!json_is_object(v)) {
        jl_error(L, root, "assignment", "must be an object");
        return;
    }
    static const char *const known[] = {
        "mode", "order",          "rule",   "min_complete",
        "then", "active_minutes", "repeat", NULL};
    jreject_unknown(L, &al, v, known);
    const char *mode = "between", *order = "latin-square";
    jget_str(L, &al, v, "mode", 0, &mode);
    jget_str(L, &al, v, "order", 0, &order);
    if (strcmp(mode, "within") == 0) {
        a->mode = ASSIGN_MODE_WITHIN;
        static const char *const orders[] = {"latin-square", "random", "fixed"};
        int o = 0;
        while (o < 3 && strcmp(order, orders[o]) != 0) {
            o++;
        }
        if (o == 3) {
            jl_error(L, &al, "order",
                     "'%s' is not latin-square, random or fixed", order);
            o = 0;
        }
        a->order = (WithinOrder)o;
    } else if (strcmp(mode, "between") != 0) {
        jl_error(L, &al, "mode", "'%s' is not between or within", mode);
    } else if (json_object_get(v, "order")) {
        jl_warn(L, &al, "order",
                "order is used only with \"mode\": \"within\"");
    }
    parse_repeat(D, &al, v);
    const char *rule = "balanced";
    jget_str(L, &al, v, "rule", 0, &rule);
    if (a->mode == ASSIGN_MODE_WITHIN && strcmp(rule, "balanced") != 0) {
        jl_error(L, &al, "rule",
                 "the %s rule assigns one condition per participant; a "
                 "within-subject study balances its orders instead",
                 rule);
        return; /* one error for one cause */
    }
    jget_int(L, &al, v, "active_minutes", 0, 1, 100000, &a->active_minutes);
    if (strcmp(rule, "hase") == 0) {
        a->rule = ASSIGN_HASE;
        a->min_complete = 3;
        jget_int(L, &al, v, "min_complete", 0, 1, 100000, &a->min_complete);
        const char *then = NULL;
        if (jget_str(L, &al, v, "then", 1, &then) == 1) {
            a->then_condition = ld_strdup(L, then);
            if (!study_find_condition(L->st, then) && L->st->n_conditions) {
                design_no_condition(L, &al, "then", then);
            }
        }
    } else if (strcmp(rule, "balanced") != 0) {
        jl_error(L, &al, "rule", "'%s' is not balanced or hase", rule);
    } else if (json_object_get(v, "then") ||
               json_object_get(v, "min_complete")) {
        jl_warn(L, &al, "rule",
                "min_complete and then are used only by the hase rule");
    }
}

static void parse_rating(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    RatingSpec *r = &L->st->rating;
    const char *q = "Does this explanation show me why the system thought "
                    "what it did?";
    const char *low = "Not at all", *high = "Completely";
    r->points = 7;
    json_t *v = json_object_get(D->root, "rating");
    if (v && !json_is_object(v)) {
        jl_error(L, root, "rating", "must be an object");
        v = NULL;
    }
    if (v) {
        JLoc rl;
        jl_child(&rl, root, "rating");
        static const char *const known[] = {"question", "points", "low", "high",
                                            NULL};
        jreject_unknown(L, &rl, v, known);
        jget_str(L, &rl, v, "question", 0, &q);
        jget_int(L, &rl, v, "points", 0, 2, 11, &r->points);
        jget_str(L, &rl, v, "low", 0, &low);
        jget_str(L, &rl, v, "high", 0, &high);
    }
    r->question = ld_strdup(L, q);
    r->low = ld_strdup(L, low);
    r->high = ld_strdup(L, high);
}

static void parse_quiz(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    D->quiz_repeat = 1;
    json_t *v = json_object_get(D->root, "quiz");
    if (!v) {
        return;
    }
    JLoc ql;
    jl_child(&ql, root, "quiz");
    if (!json_is_object(v)) {
        jl_error(L, root, "quiz", "must be an object with \"questions\"");
        return;
    }
    static const char *const known[] = {"questions", "repeat_until_correct",
                                        NULL};
    jreject_unknown(L, &ql, v, known);
    jget_bool(L, &ql, v, "repeat_until_correct", &D->quiz_repeat);
    JLoc qq;
    jl_child(&qq, &ql, "questions");
    json_t *qs = json_object_get(v, "questions");
    if (!qs) {
        jl_error(L, &ql, "questions", "missing (required)");
        return;
    }
    if (design_quiz_parse(D, &qq, qs, &D->quiz, &D->n_quiz) == 0) {
        D->has_quiz = D->n_quiz > 0;
    }
}

/* "accept_p": {"right": p, "wrong": p}: how often a simulated participant
** accepts the model's output in a verify block when it is right and when
** it is wrong; both needed. */
static void parse_accept_p(Loader *L, const JLoc *sl, json_t *v, double *right,
                           double *wrong)
{
    json_t *a = json_object_get(v, "accept_p");
    if (!a) {
        return;
    }
    if (!json_is_object(a)) {
        jl_error(L, sl, "accept_p",
                 "must be {\"right\": p, \"wrong\": p} (how often the "
                 "model's output is accepted when it is right and when it "
                 "is wrong)");
        return;
    }
    JLoc al;
    jl_child(&al, sl, "accept_p");
    static const char *const known[] = {"right", "wrong", NULL};
    jreject_unknown(L, &al, a, known);
    const char *keys[2] = {"right", "wrong"};
    double *dst[2] = {right, wrong};
    for (int k = 0; k < 2; k++) {
        double x;
        if (jget_num(L, &al, a, keys[k], 1, &x) != 1) {
            continue;
        }
        if (x < 0 || x > 1) {
            jl_error(L, &al, keys[k], "%g is outside [0, 1]", x);
        } else {
            *dst[k] = x;
        }
    }
    if (*right < 0 || *wrong < 0) {
        *right = *wrong = -1;
    }
}

static void parse_simulation(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    SimulationSpec *s = &L->st->simulation;
    s->p_default = 0.6;
    s->participant_sd = 0.5;
    s->item_sd = 0.5;
    s->rt_median_ms = 2500;
    s->rt_sigma = 0.5;
    s->catch_p = 0.95;
    s->quiz_p = 0.9;
    s->reveal_p = 1;
    s->accept_right = s->accept_wrong = -1;
    json_t *v = json_object_get(D->root, "simulation");
    if (!v) {
        return;
    }
    JLoc sl;
    jl_child(&sl, root, "simulation");
    if (!json_is_object(v)) {
        jl_error(L, root, "simulation", "must be an object");
        return;
    }
    static const char *const known[] = {
        "p_default",    "p",        "cells",   "participant_sd", "item_sd",
        "rt_median_ms", "rt_sigma", "catch_p", "quiz_p",         "reveal_p",
        "accept_p",     NULL};
    jreject_unknown(L, &sl, v, known);
    parse_accept_p(L, &sl, v, &s->accept_right, &s->accept_wrong);
    struct {
        const char *key;
        double *dst;
        double lo, hi;
    } nums[] = {{"p", &s->p_default, 0, 1}, /* docs/simulation.md's name */
                {"p_default", &s->p_default, 0, 1},
                {"participant_sd", &s->participant_sd, 0, 100},
                {"item_sd", &s->item_sd, 0, 100},
                {"rt_median_ms", &s->rt_median_ms, 1e-9, 1e9},
                {"rt_sigma", &s->rt_sigma, 0, 100},
                {"catch_p", &s->catch_p, 0, 1},
                {"quiz_p", &s->quiz_p, 0, 1},
                {"reveal_p", &s->reveal_p, 0, 1}};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        double x;
        if (jget_num(L, &sl, v, nums[i].key, 0, &x) == 1) {
            if (x < nums[i].lo || x > nums[i].hi) {
                jl_error(L, &sl, nums[i].key, "%g is outside [%g, %g]", x,
                         nums[i].lo, nums[i].hi);
            } else {
                *nums[i].dst = x;
            }
        }
    }
    json_t *cells = json_object_get(v, "cells");
    if (!cells) {
        return;
    }
    JLoc cl;
    jl_child(&cl, &sl, "cells");
    if (!json_is_array(cells)) {
        jl_error(L, &sl, "cells", "must be a list of {condition, phase, p}");
        return;
    }
    size_t n = json_array_size(cells);
    s->cells = ld_calloc(L, n ? n : 1, sizeof *s->cells);
    for (size_t i = 0; s->cells && i < n; i++) {
        json_t *c = json_array_get(cells, i);
        JLoc el;
        jl_index(&el, &cl, i);
        if (!json_is_object(c)) {
            jl_error(L, &el, NULL, "a cell is {condition, phase, p}");
            continue;
        }
        static const char *const ck[] = {"condition", "phase", "p", "accept_p",
                                         NULL};
        jreject_unknown(L, &el, c, ck);
        SimCell *x = &s->cells[s->n_cells++];
        const char *str = NULL;
        /* null (or absent) condition or phase: any */
        int any_cond = json_is_null(json_object_get(c, "condition"));
        int any_phase = json_is_null(json_object_get(c, "phase"));
        if (!any_cond && jget_str(L, &el, c, "condition", 0, &str) == 1) {
            x->condition = ld_strdup(L, str);
            if (!study_find_condition(L->st, str) && L->st->n_conditions) {
                design_no_condition(L, &el, "condition", str);
            }
        }
        if (!any_phase && jget_str(L, &el, c, "phase", 0, &str) == 1) {
            x->phase = ld_strdup(L, str);
            if (sim_phase_from_name(str) == SIM_PHASE_NONE) {
                const char *near = sim_phase_suggest(str);
                char phases[128];
                sim_phase_list(phases, sizeof phases);
                if (near) {
                    jl_error(L, &el, "phase",
                             "no phase '%s' (did you mean '%s'?)", str, near);
                } else {
                    jl_error(L, &el, "phase", "no phase '%s' (phases: %s)", str,
                             phases);
                }
            }
        }
        x->p = s->p_default;
        x->accept_right = x->accept_wrong = -1;
        parse_accept_p(L, &el, c, &x->accept_right, &x->accept_wrong);
        x->has_accept = x->accept_right >= 0;
        /* p is needed unless the cell gives accept_p (verify blocks) */
        int need_p = !json_object_get(c, "accept_p");
        if (jget_num(L, &el, c, "p", need_p, &x->p) == 1 &&
            (x->p < 0 || x->p > 1)) {
            jl_error(L, &el, "p", "%g is outside [0, 1]", x->p);
        }
    }
}

/* The study's phases that have blocks, as "a, b" into out. */
static void used_phases(const Study *st, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int p = 0; p < SIM_PHASE_COUNT && len < size; p++) {
        if (study_find_phase_block(st, (SimPhase)p)) {
            int w = snprintf(out + len, size - len, "%s%s", len ? ", " : "",
                             sim_phase_name((SimPhase)p));
            len += w > 0 ? (size_t)w : 0;
        }
    }
}

/* A simulation cell for a phase that no block has would silently match
** nothing: an error once the blocks are known. */
static void check_simulation_phases(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    const SimulationSpec *s = &L->st->simulation;
    if (L->st->n_blocks == 0) {
        return;
    }
    JLoc cl;
    jl_child(&cl, root, "simulation");
    jl_child(&cl, &cl, "cells");
    json_t *cells =
        json_object_get(json_object_get(D->root, "simulation"), "cells");
    size_t k = 0; /* index of the JSON cell that gave s->cells[i] */
    for (size_t i = 0; i < s->n_cells; i++, k++) {
        while (k < json_array_size(cells) &&
               !json_is_object(json_array_get(cells, k))) {
            k++;
        }
        SimPhase ph = sim_phase_from_name(s->cells[i].phase);
        if (ph == SIM_PHASE_NONE || study_find_phase_block(L->st, ph)) {
            continue;
        }
        char phases[128];
        used_phases(L->st, phases, sizeof phases);
        JLoc el;
        jl_index(&el, &cl, k);
        jl_error(L, &el, "phase",
                 "the study has no block in phase '%s' (its phases: %s)",
                 s->cells[i].phase, phases[0] ? phases : "none");
    }
}

/* A deadline that would time out more than a tenth of the simulated
** participants' answers (log-normal reaction times of the simulation
** block) is a warning: the simulated data, the power estimates and often
** the lab's own participants lose those trials. */
static void check_deadlines(Design *D)
{
    const Study *st = D->L->st;
    const SimulationSpec *s = &st->simulation;
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *b = &st->blocks[i];
        if (b->time_limit_ms <= 0 || s->rt_median_ms <= 0) {
            continue;
        }
        double z =
            s->rt_sigma > 0
                ? log(b->time_limit_ms / s->rt_median_ms) / s->rt_sigma
                : (b->time_limit_ms < s->rt_median_ms ? -INFINITY : INFINITY);
        double late = 0.5 * erfc(z / sqrt(2.0)); /* P(RT > limit) */
        if (late > 0.10) {
            jl_warn(D->L, &D->src[i].at, "time_limit_ms",
                    "about %.0f %% of simulated answers come after this "
                    "%d ms deadline (simulation: reaction times with median "
                    "%g ms, rt_sigma %g): lengthen the deadline, or state "
                    "the reaction times you expect in the simulation block",
                    100 * late, b->time_limit_ms, s->rt_median_ms, s->rt_sigma);
        }
    }
}

/* A "rating" question that no block asks is a warning: the author expected
** ratings that the study will not collect. */
static void check_rating_asked(Design *D, const JLoc *root)
{
    Study *st = D->L->st;
    if (!json_is_object(json_object_get(D->root, "rating"))) {
        return;
    }
    for (size_t i = 0; i < st->n_blocks; i++) {
        if (st->blocks[i].rating) {
            return;
        }
    }
    if (st->preset) {
        jl_warn(D->L, root, "rating",
                "preset '%s' never asks this rating as configured (its "
                "blocks ask none): the question is not used",
                st->preset);
    } else if (st->n_blocks > 0) {
        jl_warn(D->L, root, "rating",
                "no block asks a rating (a \"rating\" block, or \"rating\": "
                "true on a learn or counterfactual block): the question is "
                "not used");
    }
}

static void parse_pages(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    json_t *v = json_object_get(D->root, "pages");
    jl_child(&D->pages_at, root, "pages");
    if (!v) {
        return;
    }
    if (!json_is_object(v)) {
        jl_error(L, root, "pages", "must be an object");
        return;
    }
    const JLoc *pl = &D->pages_at;
    static const char *const known[] = {"consent", "instructions", "debrief",
                                        NULL};
    jreject_unknown(L, pl, v, known);
    const char *s = NULL;
    if (jget_str(L, pl, v, "consent", 0, &s) == 1) {
        D->consent = ld_strdup(L, s);
        design_add_page_ref(D, s, pl, "consent");
    }
    if (jget_str(L, pl, v, "debrief", 0, &s) == 1) {
        D->debrief = ld_strdup(L, s);
        design_add_page_ref(D, s, pl, "debrief");
    }
    design_page_list(D, pl, "instructions", json_object_get(v, "instructions"),
                     &D->instr, &D->n_instr);
}

static void parse_screening(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Screening *s = &L->st->screening;
    const PresetDesc *preset = preset_find(L->st->preset);
    int meta = preset && preset->strict_screening;
    s->practice_min_first_try = meta ? 1 : -1;
    s->quiz_all_first_try = meta ? 1 : 0;
    s->max_catch_failures = meta ? 0 : -1;
    s->min_total_seconds = 0;
    s->stop_on_failure = 0;
    json_t *v = json_object_get(D->root, "screening");
    if (!v) {
        return;
    }
    JLoc sl;
    jl_child(&sl, root, "screening");
    if (!json_is_object(v)) {
        jl_error(L, root, "screening", "must be an object");
        return;
    }
    static const char *const known[] = {
        "practice_min_first_try", "quiz_all_first_try", "max_catch_failures",
        "min_total_seconds",      "stop_on_failure",    NULL};
    jreject_unknown(L, &sl, v, known);
    /* null switches a rule off */
    const char *ints[] = {"practice_min_first_try", "max_catch_failures"};
    int *idst[] = {&s->practice_min_first_try, &s->max_catch_failures};
    for (int i = 0; i < 2; i++) {
        json_t *x = json_object_get(v, ints[i]);
        if (json_is_null(x) || json_is_false(x)) {
            *idst[i] = -1;
        } else {
            jget_int(L, &sl, v, ints[i], 0, 0, 100000, idst[i]);
        }
    }
    jget_bool(L, &sl, v, "quiz_all_first_try", &s->quiz_all_first_try);
    jget_bool(L, &sl, v, "stop_on_failure", &s->stop_on_failure);
    double secs = 0;
    if (jget_num(L, &sl, v, "min_total_seconds", 0, &secs) == 1) {
        if (secs < 0) {
            jl_error(L, &sl, "min_total_seconds", "must not be negative");
        } else {
            s->min_total_seconds = secs;
        }
    }
}

/* Page files and the inline text of page blocks, parsed into page models
** and checked (page.c). */
static void read_pages(Design *D)
{
    pages_load(D->L, &D->refs);
    for (size_t i = 0; i < D->L->st->n_blocks; i++) {
        pages_load_text(D->L, &D->L->st->blocks[i], &D->src[i].at);
    }
}

static void collect_pools(Loader *L)
{
    Study *st = L->st;
    size_t cap = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        const char *p = st->items[i].pool;
        int found = 0;
        for (size_t k = 0; k < st->n_pools && !found; k++) {
            found = strcmp(st->pools[k], p) == 0;
        }
        if (found) {
            continue;
        }
        if (ld_grow(L, (void **)&st->pools, &cap, st->n_pools + 1,
                    sizeof *st->pools) != 0) {
            return;
        }
        st->pools[st->n_pools] = ld_strdup(L, p);
        if (st->pools[st->n_pools]) {
            st->n_pools++;
        }
    }
}

/* "protocol" (a preset) or "blocks" (explicit) into st->blocks. */
static void parse_protocol(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    json_t *proto = json_object_get(D->root, "protocol");
    json_t *blocks = json_object_get(D->root, "blocks");
    if (proto && blocks) {
        jl_error(L, root, "blocks",
                 "give either \"protocol\" (a preset) or \"blocks\", not "
                 "both");
        return;
    }
    if (!proto && !blocks) {
        jl_error(L, root, "protocol",
                 "missing (give a preset in \"protocol\" or a \"blocks\" "
                 "list)");
        return;
    }
    if (proto) {
        JLoc pl;
        jl_child(&pl, root, "protocol");
        if (!json_is_object(proto)) {
            jl_error(L, root, "protocol", "must be {\"preset\": NAME, ...}");
            return;
        }
        const char *preset = NULL;
        if (jget_str(L, &pl, proto, "preset", 1, &preset) != 1) {
            return;
        }
        st->preset = ld_strdup(L, preset);
        if (preset_expand(D, &pl, proto, preset) != 0) {
            char presets[256];
            preset_list(presets, sizeof presets);
            jl_error(L, &pl, "preset", "unknown preset '%s' (%s)", preset,
                     presets);
            sim_free(st->preset);
            st->preset = NULL;
        }
        return;
    }
    JLoc bl0;
    jl_child(&bl0, root, "blocks");
    if (!json_is_array(blocks) || json_array_size(blocks) == 0) {
        jl_error(L, root, "blocks", "must be a non-empty list of blocks");
        return;
    }
    blocks_parse_list(D, &bl0, blocks);
}

void design_parse(Loader *L, json_t *root)
{
    Study *st = L->st;
    Design D;
    memset(&D, 0, sizeof D);
    D.L = L;
    D.root = root;
    JLoc at = {.file = "study.json", .line = 0, .ptr = ""};
    if (!json_is_object(root)) {
        jl_error(L, &at, NULL, "study.json must hold a JSON object");
        return;
    }
    static const char *const known[] = {"simlab_study",
                                        "id",
                                        "title",
                                        "domain",
                                        "classes",
                                        "conditions",
                                        "baseline",
                                        "protocol",
                                        "blocks",
                                        "assignment",
                                        "screening",
                                        "pages",
                                        "quiz",
                                        "rating",
                                        "items",
                                        "explanations",
                                        "simulation",
                                        "language",
                                        "language_file",
                                        "ui",
                                        "online",
                                        "analysis",
                                        "participant_title",
                                        "metrics",
                                        NULL};
    jreject_unknown(L, &at, root, known);
    int version = 0;
    if (jget_int(L, &at, root, "simlab_study", 1, 1, 1, &version) < 0) {
        /* jget_int reported the range */
    }
    const char *s = NULL;
    if (jget_str(L, &at, root, "id", 1, &s) == 1) {
        if (!design_valid_ident(s)) {
            jl_error(L, &at, "id", "'%s': use letters, digits, '-', '_', '.'",
                     s);
        }
        st->id = ld_strdup(L, s);
    }
    if (jget_str(L, &at, root, "title", 1, &s) == 1) {
        st->title = ld_strdup(L, s);
    }
    if (jget_str(L, &at, root, "participant_title", 0, &s) == 1) {
        st->participant_title = ld_strdup(L, s);
    }
    if (jget_str(L, &at, root, "domain", 0, &s) == 1) {
        st->domain = ld_strdup(L, s);
    }
    ui_parse(L, root, &at);
    parse_classes(&D, &at);
    parse_conditions(&D, &at);
    parse_assignment(&D, &at);
    parse_rating(&D, &at);
    parse_quiz(&D, &at);
    parse_simulation(&D, &at);
    online_parse(L, root, &at);
    parse_pages(&D, &at);

    json_t *items = json_object_get(root, "items");
    JLoc il;
    jl_child(&il, &at, "items");
    if (!items) {
        jl_error(L, &at, "items", "missing (required)");
    } else {
        size_t raised = L->n_raised;
        load_banks(L, items, &il);
        L->items_incomplete = L->n_raised > raised;
    }
    items_index_build(L);
    json_t *ex = json_object_get(root, "explanations");
    if (ex) {
        JLoc el;
        jl_child(&el, &at, "explanations");
        load_expl_sources(L, ex, &el);
    }
    collect_pools(L);

    parse_protocol(&D, &at);
    parse_screening(&D, &at);
    check_rating_asked(&D, &at);
    check_simulation_phases(&D, &at);
    check_deadlines(&D);
    validate_blocks(&D);
    validate_conditions(&D, &at);
    options_validate(&D, &at);
    primary_parse(&D, &at);
    metrics_parse(&D, &at);
    read_pages(&D);

    design_quiz_free(D.quiz, D.n_quiz);
    sim_free(D.consent);
    sim_free(D.debrief);
    for (size_t i = 0; i < D.n_instr; i++) {
        sim_free(D.instr[i]);
    }
    sim_free(D.instr);
    sim_free(D.src);
    page_refs_free(&D.refs);
}
