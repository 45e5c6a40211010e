/*
** study.json: header fields, classes, conditions, assignment, screening,
** rating, quiz, simulation, pages, then the protocol (a preset expanded into
** blocks, or explicit blocks) and the checks that tie blocks to item pools
** and explanations. libc and jansson only.
*/
#include "stimuli/study_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* Where a block's fields were set: explicit blocks point into /blocks/i,
** preset blocks at the /protocol parameter that controls the field. */
typedef struct BlockSrc {
    JLoc at;
    const char *pool_key; /* member of at naming the pool */
    const char *n_key;    /* member of at naming n */
    const char *train_key;
} BlockSrc;

typedef struct Design {
    Loader *L;
    json_t *root;
    QuizQuestion *quiz;
    size_t n_quiz;
    int quiz_repeat;
    int has_quiz;
    char *consent, *debrief;
    char **instr;
    size_t n_instr;
    JLoc pages_at;
    BlockSrc *src; /* parallel to st->blocks */
    size_t cap_blocks, cap_src;
    PageRefs refs; /* every page file named (page.c reads them) */
} Design;

static const char *const block_kind_names[BLOCK_KIND_COUNT] = {
    "consent", "instructions",   "quiz",   "practice", "learn",
    "predict", "counterfactual", "rating", "break",    "debrief"};

const char *block_kind_name(BlockKind k)
{
    return (unsigned)k < BLOCK_KIND_COUNT ? block_kind_names[k] : "?";
}

static int is_item_block(BlockKind k)
{
    return k == BLOCK_PRACTICE || k == BLOCK_LEARN || k == BLOCK_PREDICT ||
           k == BLOCK_COUNTERFACTUAL || k == BLOCK_RATING;
}

static int valid_ident(const char *s)
{
    if (!s[0]) {
        return 0;
    }
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
            return 0;
        }
    }
    return 1;
}

static void questions_free(QuizQuestion *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(q[i].text);
        for (size_t k = 0; k < q[i].n_options; k++) {
            sim_free(q[i].options[k]);
        }
        sim_free(q[i].options);
    }
    sim_free(q);
}

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
    if (!json_is_array(v) || json_array_size(v) < 2) {
        jl_error(L, root, "classes", "must be a list of 2 or more classes");
        return;
    }
    JLoc cl;
    jl_child(&cl, root, "classes");
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
            jwarn_unknown(L, &el, c, known);
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
        static const char *const known[] = {"id", "method", "label", NULL};
        jwarn_unknown(L, &el, c, known);
        Condition *cd = &st->conditions[st->n_conditions];
        if (jget_id(L, &el, c, "id", 1, &cd->id) != 1) {
            continue;
        }
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
    static const char *const known[] = {"rule", "min_complete", "then",
                                        "active_minutes", NULL};
    jwarn_unknown(L, &al, v, known);
    const char *rule = "balanced";
    jget_str(L, &al, v, "rule", 0, &rule);
    jget_int(L, &al, v, "active_minutes", 0, 1, 100000, &a->active_minutes);
    if (strcmp(rule, "hase") == 0) {
        a->rule = ASSIGN_HASE;
        a->min_complete = 3;
        jget_int(L, &al, v, "min_complete", 0, 1, 100000, &a->min_complete);
        const char *then = NULL;
        if (jget_str(L, &al, v, "then", 1, &then) == 1) {
            a->then_condition = ld_strdup(L, then);
            if (!study_find_condition(L->st, then) && L->st->n_conditions) {
                jl_error(L, &al, "then", "no condition '%s'", then);
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
        jwarn_unknown(L, &rl, v, known);
        jget_str(L, &rl, v, "question", 0, &q);
        jget_int(L, &rl, v, "points", 0, 2, 11, &r->points);
        jget_str(L, &rl, v, "low", 0, &low);
        jget_str(L, &rl, v, "high", 0, &high);
    }
    r->question = ld_strdup(L, q);
    r->low = ld_strdup(L, low);
    r->high = ld_strdup(L, high);
}

static int parse_questions(Design *D, const JLoc *at, json_t *list,
                           QuizQuestion **out, size_t *n_out)
{
    Loader *L = D->L;
    *out = NULL;
    *n_out = 0;
    if (!json_is_array(list) || json_array_size(list) == 0) {
        jl_error(L, at, NULL, "must be a non-empty list of questions");
        return -1;
    }
    size_t n = json_array_size(list);
    QuizQuestion *qs = ld_calloc(L, n, sizeof *qs);
    if (!qs) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *q = json_array_get(list, i);
        JLoc ql;
        jl_index(&ql, at, i);
        QuizQuestion *x = &qs[i];
        *n_out = i + 1;
        x->answer = -1;
        if (!json_is_object(q)) {
            jl_error(L, &ql, NULL,
                     "a question is {\"text\", \"options\", \"answer\"}");
            continue;
        }
        static const char *const known[] = {"text", "options", "answer", NULL};
        jwarn_unknown(L, &ql, q, known);
        const char *text = NULL;
        if (jget_str(L, &ql, q, "text", 1, &text) == 1) {
            if (!text[0]) {
                jl_error(L, &ql, "text", "must not be empty");
            }
            x->text = ld_strdup(L, text);
        }
        json_t *opts = json_object_get(q, "options");
        if (!json_is_array(opts) || json_array_size(opts) < 2) {
            jl_error(L, &ql, "options",
                     opts ? "must be a list of 2 or more texts"
                          : "missing (required)");
            continue;
        }
        size_t no = json_array_size(opts);
        x->options = ld_calloc(L, no, sizeof *x->options);
        if (!x->options) {
            continue;
        }
        JLoc ol;
        jl_child(&ol, &ql, "options");
        for (size_t k = 0; k < no; k++) {
            json_t *o = json_array_get(opts, k);
            x->n_options = k + 1;
            x->options[k] = json_scalar_text(L, o);
            if (!x->options[k] || !x->options[k][0]) {
                char idx[24];
                snprintf(idx, sizeof idx, "%zu", k);
                jl_error(L, &ol, idx, "an option is a non-empty text");
            }
        }
        jget_int(L, &ql, q, "answer", 1, 0, (int)no - 1, &x->answer);
    }
    *out = qs;
    return 0;
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
    jwarn_unknown(L, &ql, v, known);
    jget_bool(L, &ql, v, "repeat_until_correct", &D->quiz_repeat);
    JLoc qq;
    jl_child(&qq, &ql, "questions");
    json_t *qs = json_object_get(v, "questions");
    if (!qs) {
        jl_error(L, &ql, "questions", "missing (required)");
        return;
    }
    if (parse_questions(D, &qq, qs, &D->quiz, &D->n_quiz) == 0) {
        D->has_quiz = D->n_quiz > 0;
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
        "rt_median_ms", "rt_sigma", "catch_p", "quiz_p",         NULL};
    jwarn_unknown(L, &sl, v, known);
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
                {"quiz_p", &s->quiz_p, 0, 1}};
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
        static const char *const ck[] = {"condition", "phase", "p", NULL};
        jwarn_unknown(L, &el, c, ck);
        SimCell *x = &s->cells[s->n_cells++];
        const char *str = NULL;
        /* null (or absent) condition or phase: any */
        int any_cond = json_is_null(json_object_get(c, "condition"));
        int any_phase = json_is_null(json_object_get(c, "phase"));
        if (!any_cond && jget_str(L, &el, c, "condition", 0, &str) == 1) {
            x->condition = ld_strdup(L, str);
            if (!study_find_condition(L->st, str)) {
                jl_error(L, &el, "condition", "no condition '%s'", str);
            }
        }
        if (!any_phase && jget_str(L, &el, c, "phase", 0, &str) == 1) {
            x->phase = ld_strdup(L, str);
        }
        x->p = s->p_default;
        if (jget_num(L, &el, c, "p", 1, &x->p) == 1 && (x->p < 0 || x->p > 1)) {
            jl_error(L, &el, "p", "%g is outside [0, 1]", x->p);
        }
    }
}

static void add_page_ref(Design *D, const char *path, const JLoc *at,
                         const char *key)
{
    page_refs_add(D->L, &D->refs, path, at, key);
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
    jwarn_unknown(L, pl, v, known);
    const char *s = NULL;
    if (jget_str(L, pl, v, "consent", 0, &s) == 1) {
        D->consent = ld_strdup(L, s);
        add_page_ref(D, s, pl, "consent");
    }
    if (jget_str(L, pl, v, "debrief", 0, &s) == 1) {
        D->debrief = ld_strdup(L, s);
        add_page_ref(D, s, pl, "debrief");
    }
    json_t *ins = json_object_get(v, "instructions");
    if (json_is_string(ins)) {
        D->instr = ld_calloc(L, 1, sizeof *D->instr);
        if (D->instr) {
            D->instr[0] = ld_strdup(L, json_string_value(ins));
            D->n_instr = 1;
            add_page_ref(D, json_string_value(ins), pl, "instructions");
        }
    } else if (json_is_array(ins)) {
        size_t n = json_array_size(ins);
        D->instr = ld_calloc(L, n ? n : 1, sizeof *D->instr);
        JLoc il;
        jl_child(&il, pl, "instructions");
        for (size_t i = 0; D->instr && i < n; i++) {
            json_t *p = json_array_get(ins, i);
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", i);
            if (!json_is_string(p)) {
                jl_error(L, &il, idx, "a page is a file path");
                continue;
            }
            D->instr[D->n_instr++] = ld_strdup(L, json_string_value(p));
            add_page_ref(D, json_string_value(p), &il, idx);
        }
    } else if (ins) {
        jl_error(L, pl, "instructions", "must be a path or a list of paths");
    }
}

static void parse_screening(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Screening *s = &L->st->screening;
    int meta = L->st->preset && strcmp(L->st->preset, "meta-predictor") == 0;
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
    jwarn_unknown(L, &sl, v, known);
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

/* --------------------------------------------------------------- blocks */

static Block *new_block(Design *D, BlockKind kind, const char *id,
                        const JLoc *at)
{
    Loader *L = D->L;
    Study *st = L->st;
    if (ld_grow(L, (void **)&st->blocks, &D->cap_blocks, st->n_blocks + 1,
                sizeof *st->blocks) != 0 ||
        ld_grow(L, (void **)&D->src, &D->cap_src, st->n_blocks + 1,
                sizeof *D->src) != 0) {
        return NULL;
    }
    BlockSrc *bs = &D->src[st->n_blocks];
    memset(bs, 0, sizeof *bs);
    bs->at = *at;
    Block *b = &st->blocks[st->n_blocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->id = ld_strdup(L, id);
    b->repeat_until_correct = 1;
    switch (kind) {
    case BLOCK_PRACTICE:
        b->phase = ld_strdup(L, "practice");
        break;
    case BLOCK_LEARN:
    case BLOCK_RATING:
        b->phase = ld_strdup(L, "learn");
        break;
    case BLOCK_PREDICT:
    case BLOCK_COUNTERFACTUAL:
        b->phase = ld_strdup(L, "test");
        break;
    case BLOCK_QUIZ:
        b->phase = ld_strdup(L, "quiz");
        break;
    default:
        break;
    }
    return b;
}

static int set_pages(Design *D, Block *b, char *const *paths, size_t n)
{
    b->pages = ld_calloc(D->L, n ? n : 1, sizeof *b->pages);
    if (!b->pages) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        b->pages[i] = ld_strdup(D->L, paths[i]);
    }
    b->n_pages = n;
    return 0;
}

static void copy_questions(Design *D, Block *b)
{
    Loader *L = D->L;
    b->questions =
        ld_calloc(L, D->n_quiz ? D->n_quiz : 1, sizeof *b->questions);
    if (!b->questions) {
        return;
    }
    for (size_t i = 0; i < D->n_quiz; i++) {
        const QuizQuestion *q = &D->quiz[i];
        QuizQuestion *c = &b->questions[i];
        c->text = ld_strdup(L, q->text);
        c->answer = q->answer;
        c->options =
            ld_calloc(L, q->n_options ? q->n_options : 1, sizeof *c->options);
        for (size_t k = 0; c->options && k < q->n_options; k++) {
            c->options[k] = ld_strdup(L, q->options[k]);
            c->n_options = k + 1;
        }
    }
    b->n_questions = D->n_quiz;
    b->repeat_until_correct = D->quiz_repeat;
}

/* consent + instructions (+ quiz) at the start of a preset */
static void preset_opening(Design *D, const JLoc *proto, int with_quiz)
{
    Loader *L = D->L;
    if (D->consent) {
        Block *b = new_block(D, BLOCK_CONSENT, "consent", &D->pages_at);
        if (b) {
            set_pages(D, b, &D->consent, 1);
        }
    } else {
        jl_warn(L, &D->pages_at, "consent",
                "no consent page: the preset runs without a consent screen");
    }
    if (D->n_instr) {
        Block *b =
            new_block(D, BLOCK_INSTRUCTIONS, "instructions", &D->pages_at);
        if (b) {
            set_pages(D, b, D->instr, D->n_instr);
        }
    } else {
        jl_warn(L, &D->pages_at, "instructions",
                "no instructions page: the preset runs without instructions");
    }
    if (with_quiz && D->has_quiz) {
        Block *b = new_block(D, BLOCK_QUIZ, "quiz", proto);
        if (b) {
            copy_questions(D, b);
        }
    }
}

static void preset_debrief(Design *D)
{
    if (D->debrief) {
        Block *b = new_block(D, BLOCK_DEBRIEF, "debrief", &D->pages_at);
        if (b) {
            set_pages(D, b, &D->debrief, 1);
        }
    }
}

typedef struct Param {
    const char *name;
    int type; /* 0 string, 1 int, 2 bool */
    const char *s;
    int i;
} Param;

static Param *param(Param *ps, const char *name)
{
    for (Param *p = ps; p->name; p++) {
        if (strcmp(p->name, name) == 0) {
            return p;
        }
    }
    return NULL;
}

static void read_params(Design *D, const JLoc *at, json_t *proto, Param *ps)
{
    Loader *L = D->L;
    const char *key;
    json_t *v;
    json_object_foreach(proto, key, v)
    {
        if (strcmp(key, "preset") == 0 || key[0] == '_') {
            continue;
        }
        Param *p = param(ps, key);
        if (!p) {
            jl_warn(L, at, key, "unknown parameter of preset '%s' (ignored)",
                    L->st->preset);
            continue;
        }
        if (p->type == 0) {
            jget_str(L, at, proto, key, 0, &p->s);
            if (p->s && !p->s[0]) {
                jl_error(L, at, key, "must not be empty");
            }
        } else if (p->type == 1) {
            jget_int(L, at, proto, key, 0, 0, 100000, &p->i);
        } else {
            jget_bool(L, at, proto, key, &p->i);
        }
    }
}

static Block *item_block(Design *D, BlockKind kind, const char *id,
                         const JLoc *proto, const char *pool,
                         const char *pool_key, int n, const char *n_key)
{
    Block *b = new_block(D, kind, id, proto);
    if (!b) {
        return NULL;
    }
    BlockSrc *bs = &D->src[D->L->st->n_blocks - 1];
    bs->pool_key = pool_key;
    bs->n_key = n_key;
    b->pool = ld_strdup(D->L, pool);
    b->n_items = n;
    return b;
}

static void set_phase(Design *D, Block *b, const char *phase)
{
    sim_free(b->phase);
    b->phase = ld_strdup(D->L, phase);
}

static void expand_hase(Design *D, const JLoc *at, json_t *proto, int cf)
{
    Loader *L = D->L;
    /* hase-counterfactual has no learning blocks: no learn parameters */
    Param ps[] = {{"test_pool", 0, "test", 0},
                  {"n_test", 1, NULL, 32},
                  {"rating", 2, NULL, 1},
                  {"show_label", 2, NULL, 1},
                  {"learn_pool", 0, "learn", 0},
                  {"n_learn", 1, NULL, 16},
                  {NULL, 0, NULL, 0}};
    if (cf) {
        ps[4].name = NULL;
    }
    read_params(D, at, proto, ps);
    const char *test_pool = param(ps, "test_pool")->s;
    int n_test = param(ps, "n_test")->i;
    int rating = param(ps, "rating")->i;
    int show_label = param(ps, "show_label")->i;
    L->st->test_type = ld_strdup(L, cf ? "counterfactual" : "forward");
    preset_opening(D, at, 1);
    if (cf) {
        Block *pre = item_block(D, BLOCK_COUNTERFACTUAL, "pre", at, test_pool,
                                "test_pool", n_test, "n_test");
        if (pre) {
            set_phase(D, pre, "pre");
            pre->show = (ShowSpec){show_label, 1, 0, 0};
        }
        Block *post = item_block(D, BLOCK_COUNTERFACTUAL, "post", at, test_pool,
                                 "test_pool", n_test, "n_test");
        if (post) {
            set_phase(D, post, "post");
            post->same_items_as = ld_strdup(L, "pre");
            post->show = (ShowSpec){show_label, 1, 1, 0};
            post->rating = rating;
        }
    } else {
        const char *learn_pool = param(ps, "learn_pool")->s;
        int n_learn = param(ps, "n_learn")->i;
        Block *b = item_block(D, BLOCK_LEARN, "learn1", at, learn_pool,
                              "learn_pool", n_learn, "n_learn");
        if (b) {
            b->show = (ShowSpec){show_label, 1, 0, 0};
        }
        b = item_block(D, BLOCK_PREDICT, "pre", at, test_pool, "test_pool",
                       n_test, "n_test");
        if (b) {
            set_phase(D, b, "pre");
        }
        b = item_block(D, BLOCK_LEARN, "learn2", at, learn_pool, "learn_pool",
                       n_learn, "n_learn");
        if (b) {
            b->same_items_as = ld_strdup(L, "learn1");
            b->show = (ShowSpec){show_label, 1, 1, 0};
            b->rating = rating;
        }
        b = item_block(D, BLOCK_PREDICT, "post", at, test_pool, "test_pool",
                       n_test, "n_test");
        if (b) {
            set_phase(D, b, "post");
            b->same_items_as = ld_strdup(L, "pre");
        }
    }
    preset_debrief(D);
}

size_t pool_size(const Study *st, const char *pool)
{
    size_t n = 0;
    for (size_t i = 0; pool && i < st->n_items; i++) {
        n += strcmp(st->items[i].pool, pool) == 0;
    }
    return n;
}

/* "s1-<suffix>,...,s<upto-1>-<suffix>": the same blocks of the earlier
** sessions (NULL for the first session). */
static char *session_list(Loader *L, int upto, const char *suffix)
{
    SimBuf b;
    sim_buf_init(&b);
    for (int k = 1; k < upto; k++) {
        sim_buf_printf(&b, "%ss%d-%s", k > 1 ? "," : "", k, suffix);
    }
    if (b.oom) {
        L->oom = 1;
    }
    return b.len ? sim_buf_take(&b) : NULL;
}

static void expand_meta(Design *D, const JLoc *at, json_t *proto)
{
    Loader *L = D->L;
    Param ps[] = {{"sessions", 1, NULL, 3},
                  {"n_train", 1, NULL, 5},
                  {"n_test", 1, NULL, 7},
                  {"n_catch", 1, NULL, 1},
                  {"train_pool", 0, "train", 0},
                  {"test_pool", 0, "test", 0},
                  {"practice_pool", 0, "practice", 0},
                  {"practice_train_pool", 0, "practice_train", 0},
                  {"n_practice", 1, NULL, 5},
                  {"reservoir", 2, NULL, 1},
                  {"breaks", 2, NULL, 0},
                  {NULL, 0, NULL, 0}};
    read_params(D, at, proto, ps);
    int sessions = param(ps, "sessions")->i;
    int n_train = param(ps, "n_train")->i;
    int n_test = param(ps, "n_test")->i;
    int n_catch = param(ps, "n_catch")->i;
    const char *train_pool = param(ps, "train_pool")->s;
    const char *test_pool = param(ps, "test_pool")->s;
    const char *practice_pool = param(ps, "practice_pool")->s;
    const char *ptrain = param(ps, "practice_train_pool")->s;
    int n_practice = param(ps, "n_practice")->i;
    int reservoir = param(ps, "reservoir")->i;
    int breaks = param(ps, "breaks")->i;
    if (sessions < 1) {
        jl_error(L, at, "sessions", "must be at least 1");
        sessions = 1;
    }
    if (n_catch > 0 && !reservoir) {
        jl_error(L, at, "n_catch",
                 "catch trials need the reservoir (set n_catch 0 or "
                 "reservoir true)");
    }
    L->st->test_type = ld_strdup(L, "forward");
    preset_opening(D, at, 0);
    if (n_practice > 0) {
        Block *b = item_block(D, BLOCK_PRACTICE, "practice", at, practice_pool,
                              "practice_pool", n_practice, "n_practice");
        if (b) {
            b->feedback = 1;
            b->retry = 1;
            b->show = (ShowSpec){0, 1, 1, 0};
            if (pool_size(L->st, ptrain) > 0) {
                b->train_pool = ld_strdup(L, ptrain);
                D->src[L->st->n_blocks - 1].train_key = "practice_train_pool";
            } else if (json_object_get(proto, "practice_train_pool")) {
                jl_error(L, at, "practice_train_pool", "pool '%s' has no items",
                         ptrain);
            }
        }
    }
    if (D->has_quiz) {
        Block *b = new_block(D, BLOCK_QUIZ, "quiz", at);
        if (b) {
            copy_questions(D, b);
        }
    } else {
        jl_warn(L, at, "preset",
                "meta-predictor without quiz questions: add \"quiz\" to "
                "screen participants on the instructions");
    }
    for (int t = 1; t <= sessions; t++) {
        char id[32];
        if (breaks && t > 1) {
            snprintf(id, sizeof id, "break%d", t - 1);
            Block *b = new_block(D, BLOCK_BREAK, id, at);
            if (b) {
                b->text = ld_strdup(L, "Take a short break. Continue when "
                                       "you are ready.");
            }
        }
        snprintf(id, sizeof id, "s%d-train", t);
        Block *b = item_block(D, BLOCK_LEARN, id, at, train_pool, "train_pool",
                              n_train, "n_train");
        if (b) {
            set_phase(D, b, "train");
            b->session = t;
            b->show = (ShowSpec){0, 1, 1, 0};
            b->exclude_items_of = session_list(L, t, "train");
        }
        char train_id[32];
        snprintf(train_id, sizeof train_id, "s%d-train", t);
        snprintf(id, sizeof id, "s%d-test", t);
        b = item_block(D, BLOCK_PREDICT, id, at, test_pool, "test_pool", n_test,
                       "n_test");
        if (b) {
            set_phase(D, b, "test");
            b->session = t;
            b->show = (ShowSpec){0, 0, 0, reservoir};
            b->n_catch = n_catch;
            if (reservoir) {
                b->reservoir = ld_strdup(L, train_id);
            }
            b->exclude_items_of = session_list(L, t, "test");
        }
    }
    preset_debrief(D);
}

static int kind_from_name(const char *s)
{
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        if (strcmp(s, block_kind_names[k]) == 0) {
            return k;
        }
    }
    return -1;
}

static int valid_phase(const char *s)
{
    static const char *const phases[] = {"practice", "learn", "pre",  "post",
                                         "train",    "test",  "quiz", NULL};
    for (size_t i = 0; phases[i]; i++) {
        if (strcmp(s, phases[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static void explicit_block(Design *D, const JLoc *bl, json_t *o, size_t pos)
{
    Loader *L = D->L;
    if (!json_is_object(o)) {
        jl_error(L, bl, NULL, "a block is an object with a \"kind\"");
        return;
    }
    static const char *const known[] = {"kind",
                                        "id",
                                        "phase",
                                        "session",
                                        "title",
                                        "pool",
                                        "n",
                                        "same_items_as",
                                        "exclude_items_of",
                                        "order",
                                        "draw",
                                        "show",
                                        "rating",
                                        "feedback",
                                        "retry",
                                        "train_pool",
                                        "n_train",
                                        "catch",
                                        "reservoir",
                                        "pages",
                                        "text",
                                        "min_seconds",
                                        "questions",
                                        "repeat_until_correct",
                                        NULL};
    jwarn_unknown(L, bl, o, known);
    const char *kname = NULL;
    if (jget_str(L, bl, o, "kind", 1, &kname) != 1) {
        return;
    }
    int kind = kind_from_name(kname);
    if (kind < 0) {
        jl_error(L, bl, "kind",
                 "unknown block kind '%s' (consent, instructions, quiz, "
                 "practice, learn, predict, counterfactual, rating, break, "
                 "debrief)",
                 kname);
        return;
    }
    char defid[48];
    snprintf(defid, sizeof defid, "%s%zu", kname, pos + 1);
    const char *id = defid;
    if (jget_str(L, bl, o, "id", 0, &id) == 1 && !valid_ident(id)) {
        jl_error(L, bl, "id", "'%s': use letters, digits, '-', '_', '.'", id);
    }
    Block *b = new_block(D, (BlockKind)kind, id, bl);
    if (!b) {
        return;
    }
    BlockSrc *bs = &D->src[L->st->n_blocks - 1];
    bs->pool_key = "pool";
    bs->n_key = "n";
    bs->train_key = "train_pool";
    int item = is_item_block(b->kind);
    const char *s = NULL;
    if (jget_str(L, bl, o, "phase", 0, &s) == 1) {
        if (!valid_phase(s)) {
            jl_error(L, bl, "phase",
                     "'%s' is not practice, learn, pre, post, train, test or "
                     "quiz",
                     s);
        }
        set_phase(D, b, s);
    }
    if (jget_str(L, bl, o, "title", 0, &s) == 1) {
        b->title = ld_strdup(L, s);
    }
    jget_int(L, bl, o, "session", 0, 0, 1000, &b->session);
    /* defaults of what a trial shows, by kind */
    switch (b->kind) {
    case BLOCK_LEARN:
        b->show = (ShowSpec){1, 1, 1, 0};
        break;
    case BLOCK_COUNTERFACTUAL:
        b->show = (ShowSpec){1, 1, 0, 0};
        break;
    case BLOCK_RATING:
        b->show = (ShowSpec){0, 1, 1, 0};
        b->rating = 1;
        break;
    default:
        break;
    }
    if (item) {
        if (jget_str(L, bl, o, "pool", 0, &s) == 1) {
            b->pool = ld_strdup(L, s);
        }
        jget_int(L, bl, o, "n", 0, 0, 1000000, &b->n_items);
        if (jget_str(L, bl, o, "same_items_as", 0, &s) == 1) {
            b->same_items_as = ld_strdup(L, s);
        }
        json_t *ex = json_object_get(o, "exclude_items_of");
        if (json_is_string(ex)) {
            b->exclude_items_of = ld_strdup(L, json_string_value(ex));
        } else if (json_is_array(ex)) {
            SimBuf buf;
            sim_buf_init(&buf);
            size_t i;
            json_t *x;
            json_array_foreach(ex, i, x)
            {
                if (!json_is_string(x)) {
                    jl_error(L, bl, "exclude_items_of",
                             "must be a list of block ids");
                    break;
                }
                sim_buf_printf(&buf, "%s%s", i ? "," : "",
                               json_string_value(x));
            }
            if (buf.oom) {
                L->oom = 1;
            }
            b->exclude_items_of = buf.len ? sim_buf_take(&buf) : NULL;
            sim_buf_free(&buf);
        } else if (ex) {
            jl_error(L, bl, "exclude_items_of", "must be a list of block ids");
        }
        if (jget_str(L, bl, o, "order", 0, &s) == 1) {
            if (strcmp(s, "fixed") == 0) {
                b->order = ORDER_FIXED;
            } else if (strcmp(s, "shuffle") != 0) {
                jl_error(L, bl, "order", "'%s' is not shuffle or fixed", s);
            }
        }
        if (jget_str(L, bl, o, "draw", 0, &s) == 1) {
            if (strcmp(s, "participant") == 0) {
                b->draw = DRAW_PARTICIPANT;
            } else if (strcmp(s, "study") != 0) {
                jl_error(L, bl, "draw", "'%s' is not study or participant", s);
            }
        }
        json_t *show = json_object_get(o, "show");
        if (show && !json_is_object(show)) {
            jl_error(L, bl, "show", "must be an object of booleans");
        } else if (show) {
            JLoc sl;
            jl_child(&sl, bl, "show");
            static const char *const sk[] = {"label", "prediction",
                                             "explanation", "reservoir", NULL};
            jwarn_unknown(L, &sl, show, sk);
            jget_bool(L, &sl, show, "label", &b->show.label);
            jget_bool(L, &sl, show, "prediction", &b->show.prediction);
            jget_bool(L, &sl, show, "explanation", &b->show.explanation);
            jget_bool(L, &sl, show, "reservoir", &b->show.reservoir);
        }
        jget_bool(L, bl, o, "rating", &b->rating);
        jget_bool(L, bl, o, "feedback", &b->feedback);
        jget_bool(L, bl, o, "retry", &b->retry);
        if (jget_str(L, bl, o, "train_pool", 0, &s) == 1) {
            b->train_pool = ld_strdup(L, s);
        }
        jget_int(L, bl, o, "n_train", 0, 0, 1000000, &b->n_train);
        jget_int(L, bl, o, "catch", 0, 0, 1000000, &b->n_catch);
        if (jget_str(L, bl, o, "reservoir", 0, &s) == 1) {
            b->reservoir = ld_strdup(L, s);
            if (!json_object_get(show, "reservoir")) {
                b->show.reservoir = 1;
            }
        }
    } else {
        static const char *const item_only[] = {
            "pool",     "n",        "same_items_as", "exclude_items_of",
            "order",    "draw",     "show",          "rating",
            "feedback", "retry",    "train_pool",    "n_train",
            "catch",    "reservoir"};
        for (size_t i = 0; i < sizeof item_only / sizeof *item_only; i++) {
            if (json_object_get(o, item_only[i])) {
                jl_error(L, bl, item_only[i], "not a field of a %s block",
                         kname);
            }
        }
    }
    if (b->rating && b->kind != BLOCK_LEARN &&
        b->kind != BLOCK_COUNTERFACTUAL && b->kind != BLOCK_RATING) {
        jl_error(L, bl, "rating",
                 "ratings are asked in learn, counterfactual and rating "
                 "blocks");
    }
    if ((b->feedback || b->retry || b->train_pool) &&
        b->kind != BLOCK_PRACTICE) {
        jl_error(L, bl, b->train_pool ? "train_pool" : "feedback",
                 "only practice blocks have feedback, retry and train_pool");
    }
    if ((b->n_catch || b->reservoir) && b->kind != BLOCK_PREDICT) {
        jl_error(L, bl, b->n_catch ? "catch" : "reservoir",
                 "only predict blocks have catch trials and a reservoir");
    }
    if (jget_str(L, bl, o, "text", 0, &s) == 1) {
        b->text = ld_strdup(L, s);
    }
    jget_int(L, bl, o, "min_seconds", 0, 0, 86400, &b->min_seconds);
    json_t *pages = json_object_get(o, "pages");
    int page_kind = b->kind == BLOCK_CONSENT || b->kind == BLOCK_INSTRUCTIONS ||
                    b->kind == BLOCK_DEBRIEF;
    if (pages && !page_kind) {
        jl_error(L, bl, "pages",
                 "only consent, instructions and debrief "
                 "blocks have pages");
    } else if (json_is_string(pages)) {
        char *p = (char *)json_string_value(pages);
        set_pages(D, b, &p, 1);
        add_page_ref(D, p, bl, "pages");
    } else if (json_is_array(pages)) {
        size_t n = json_array_size(pages);
        b->pages = ld_calloc(L, n ? n : 1, sizeof *b->pages);
        JLoc pl;
        jl_child(&pl, bl, "pages");
        for (size_t i = 0; b->pages && i < n; i++) {
            json_t *p = json_array_get(pages, i);
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", i);
            if (!json_is_string(p)) {
                jl_error(L, &pl, idx, "a page is a file path");
                continue;
            }
            b->pages[b->n_pages++] = ld_strdup(L, json_string_value(p));
            add_page_ref(D, json_string_value(p), &pl, idx);
        }
    } else if (pages) {
        jl_error(L, bl, "pages", "must be a path or a list of paths");
    } else if (page_kind) {
        /* default: the study's page of that kind */
        if (b->kind == BLOCK_CONSENT && D->consent) {
            set_pages(D, b, &D->consent, 1);
        } else if (b->kind == BLOCK_DEBRIEF && D->debrief) {
            set_pages(D, b, &D->debrief, 1);
        } else if (b->kind == BLOCK_INSTRUCTIONS && D->n_instr) {
            set_pages(D, b, D->instr, D->n_instr);
        } else if (!b->text) {
            jl_error(L, bl, "pages",
                     "missing (no \"pages\" and no study "
                     "page of this kind)");
        }
    }
    if (b->kind == BLOCK_QUIZ) {
        json_t *qs = json_object_get(o, "questions");
        if (qs) {
            JLoc ql;
            jl_child(&ql, bl, "questions");
            parse_questions(D, &ql, qs, &b->questions, &b->n_questions);
            b->repeat_until_correct = D->quiz_repeat;
        } else if (D->has_quiz) {
            copy_questions(D, b);
        } else {
            jl_error(L, bl, "questions",
                     "missing (and the study has no "
                     "\"quiz\")");
        }
        jget_bool(L, bl, o, "repeat_until_correct", &b->repeat_until_correct);
    } else if (json_object_get(o, "questions")) {
        jl_error(L, bl, "questions", "only quiz blocks have questions");
    }
}

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
        if (strcmp(preset, "hase-forward") == 0) {
            expand_hase(D, &pl, proto, 0);
        } else if (strcmp(preset, "hase-counterfactual") == 0) {
            expand_hase(D, &pl, proto, 1);
        } else if (strcmp(preset, "meta-predictor") == 0) {
            expand_meta(D, &pl, proto);
        } else {
            jl_error(L, &pl, "preset",
                     "unknown preset '%s' (hase-forward, "
                     "hase-counterfactual, meta-predictor)",
                     preset);
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
    size_t i;
    json_t *o;
    json_array_foreach(blocks, i, o)
    {
        JLoc bl;
        jl_index(&bl, &bl0, i);
        explicit_block(D, &bl, o, i);
    }
    int has_cf = 0, has_pred = 0;
    for (size_t k = 0; k < st->n_blocks; k++) {
        has_cf |= st->blocks[k].kind == BLOCK_COUNTERFACTUAL;
        has_pred |= st->blocks[k].kind == BLOCK_PREDICT;
    }
    if (has_cf || has_pred) {
        st->test_type = ld_strdup(L, has_cf ? "counterfactual" : "forward");
    }
}

/* ----------------------------------------------------------- validation */

static long block_index(const Study *st, const char *id, size_t before)
{
    for (size_t i = 0; i < before; i++) {
        if (st->blocks[i].id && strcmp(st->blocks[i].id, id) == 0) {
            return (long)i;
        }
    }
    return -1;
}

/* Reports a block problem at the field's source. */
static void block_error(Design *D, size_t bi, const char *key, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

static void block_error(Design *D, size_t bi, const char *key, const char *fmt,
                        ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jl_error(D->L, &D->src[bi].at, key, "%s", msg);
}

/* The pool whose items a block shows with the condition's explanation, or
** NULL. */
static const char *explained_pool(const Block *b)
{
    if (b->kind == BLOCK_PRACTICE) {
        return b->show.explanation ? b->train_pool : NULL;
    }
    if (b->show.explanation || b->kind == BLOCK_RATING) {
        return b->pool;
    }
    return NULL;
}

static int method_known(const Study *st, const char *m)
{
    for (size_t k = 0; k < st->n_methods; k++) {
        if (strcmp(st->methods[k], m) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Every item that some block shows explained needs a payload for every
** condition's method; every item of a counterfactual block needs a
** counterfactual. One error per item and method. */
static void check_items_shown(Design *D)
{
    Loader *L = D->L;
    Study *st = L->st;
    for (size_t i = 0; i < st->n_items; i++) {
        const Item *it = &st->items[i];
        const Block *cf_block = NULL, *ex_block = NULL;
        for (size_t bi = 0; bi < st->n_blocks; bi++) {
            const Block *b = &st->blocks[bi];
            const char *ep = explained_pool(b);
            if (!ex_block && ep && strcmp(ep, it->pool) == 0) {
                ex_block = b;
            }
            if (!cf_block && b->kind == BLOCK_COUNTERFACTUAL && b->pool &&
                strcmp(b->pool, it->pool) == 0) {
                cf_block = b;
            }
        }
        if (cf_block && !it->cf) {
            ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                    "counterfactual",
                    "item '%s' has no counterfactual (block '%s' asks about "
                    "its perturbation)",
                    it->key, cf_block->id);
        }
        for (size_t c = 0; ex_block && c < st->n_conditions; c++) {
            const char *m = st->conditions[c].method;
            int first = 1;
            for (size_t c2 = 0; m && c2 < c; c2++) {
                const char *m2 = st->conditions[c2].method;
                first &= !(m2 && strcmp(m2, m) == 0);
            }
            /* a method with no explanation at all is one error at the
            ** condition (validate_conditions) */
            if (!m || !first || !method_known(st, m) ||
                item_explanation(it, m)) {
                continue;
            }
            ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                    "explanations",
                    "item '%s' has no '%s' explanation (condition '%s' sees "
                    "it explained in block '%s')",
                    it->key, m, st->conditions[c].id, ex_block->id);
        }
    }
}

static void validate_blocks(Design *D)
{
    Loader *L = D->L;
    Study *st = L->st;
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        Block *b = &st->blocks[bi];
        const BlockSrc *bs = &D->src[bi];
        if (!b->id) {
            continue;
        }
        if (block_index(st, b->id, bi) >= 0) {
            block_error(D, bi, "id", "duplicate block id '%s'", b->id);
        }
        if (!is_item_block(b->kind)) {
            continue;
        }
        if (b->same_items_as) {
            long r = block_index(st, b->same_items_as, bi);
            if (r < 0 || !is_item_block(st->blocks[r].kind)) {
                block_error(D, bi, "same_items_as",
                            "'%s' is not an earlier item block",
                            b->same_items_as);
                continue;
            }
            const Block *ref = &st->blocks[r];
            if (!b->pool) {
                b->pool = ld_strdup(L, ref->pool);
            } else if (ref->pool && strcmp(b->pool, ref->pool) != 0) {
                block_error(D, bi, bs->pool_key,
                            "pool '%s' differs from the pool '%s' of '%s'",
                            b->pool, ref->pool, ref->id);
            }
            b->n_items = ref->n_items;
        }
        if (!b->pool) {
            block_error(D, bi, bs->pool_key,
                        "missing (block '%s' needs a pool)", b->id);
            continue;
        }
        size_t have = pool_size(st, b->pool);
        if (have == 0) {
            block_error(D, bi, bs->pool_key,
                        "pool '%s' has no items (block '%s')", b->pool, b->id);
            continue;
        }
        /* items drawn by the earlier blocks named in exclude_items_of */
        size_t excluded = 0;
        char *list =
            b->exclude_items_of ? ld_strdup(L, b->exclude_items_of) : NULL;
        for (char *tok = list; tok && *tok;) {
            char *comma = strchr(tok, ',');
            if (comma) {
                *comma = '\0';
            }
            sim_trim(tok);
            long r = block_index(st, tok, bi);
            if (r < 0 || !is_item_block(st->blocks[r].kind)) {
                block_error(D, bi, "exclude_items_of",
                            "'%s' is not an earlier item block", tok);
            } else if (st->blocks[r].pool &&
                       strcmp(st->blocks[r].pool, b->pool) == 0) {
                excluded += st->blocks[r].n_items
                                ? (size_t)st->blocks[r].n_items
                                : have;
            }
            tok = comma ? comma + 1 : NULL;
        }
        sim_free(list);
        size_t need = (b->n_items ? (size_t)b->n_items : have) + excluded;
        if (need > have && !b->same_items_as) {
            block_error(D, bi, bs->n_key,
                        "pool '%s' has %zu items; block '%s' needs %zu%s",
                        b->pool, have, b->id, need,
                        excluded ? " (with the items of the earlier blocks "
                                   "it excludes)"
                                 : "");
        }
        if (b->reservoir) {
            long r = block_index(st, b->reservoir, bi);
            if (r < 0 || !is_item_block(st->blocks[r].kind)) {
                block_error(D, bi, "reservoir",
                            "'%s' is not an earlier item block", b->reservoir);
            } else if (b->n_catch > 0 && st->blocks[r].n_items > 0 &&
                       b->n_catch > st->blocks[r].n_items) {
                block_error(D, bi, bs->at.ptr[1] == 'p' ? "n_catch" : "catch",
                            "%d catch trials but '%s' shows only %d items",
                            b->n_catch, b->reservoir, st->blocks[r].n_items);
            }
        } else if (b->n_catch > 0) {
            block_error(D, bi, "catch", "catch trials need a reservoir block");
        }
        if (b->train_pool && pool_size(st, b->train_pool) == 0) {
            block_error(D, bi, bs->train_key ? bs->train_key : "train_pool",
                        "pool '%s' has no items (block '%s')", b->train_pool,
                        b->id);
        }
    }
    check_items_shown(D);
}

static void validate_conditions(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    JLoc cl;
    jl_child(&cl, root, "conditions");
    int any_explained = 0;
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        any_explained |= st->blocks[bi].show.explanation ||
                         st->blocks[bi].kind == BLOCK_RATING;
    }
    json_t *conds = json_object_get(D->root, "conditions");
    for (size_t c = 0; c < st->n_conditions; c++) {
        const char *m = st->conditions[c].method;
        if (!m) {
            continue;
        }
        if (!method_known(st, m)) {
            /* find the JSON index of this condition for the pointer */
            size_t idx = c;
            for (size_t j = 0; j < json_array_size(conds); j++) {
                json_t *id = json_object_get(json_array_get(conds, j), "id");
                char *t = json_scalar_text(L, id);
                if (t && strcmp(t, st->conditions[c].id) == 0) {
                    idx = j;
                }
                sim_free(t);
            }
            JLoc el;
            jl_index(&el, &cl, idx);
            if (any_explained) {
                jl_error(L, &el, "method",
                         "no item has a '%s' explanation (methods in the "
                         "bundle: %zu)",
                         m, st->n_methods);
            } else {
                jl_warn(L, &el, "method", "no item has a '%s' explanation", m);
            }
        }
    }
    const char *baseline = NULL;
    if (jget_str(L, root, D->root, "baseline", 0, &baseline) == 1) {
        if (!study_find_condition(st, baseline)) {
            jl_error(L, root, "baseline", "no condition '%s'", baseline);
        }
        st->baseline = ld_strdup(L, baseline);
    } else if (study_find_condition(st, "baseline")) {
        st->baseline = ld_strdup(L, "baseline");
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
    static const char *const known[] = {
        "simlab_study", "id",         "title",    "domain", "classes",
        "conditions",   "baseline",   "protocol", "blocks", "assignment",
        "screening",    "pages",      "quiz",     "rating", "items",
        "explanations", "simulation", NULL};
    jwarn_unknown(L, &at, root, known);
    int version = 0;
    if (jget_int(L, &at, root, "simlab_study", 1, 1, 1, &version) < 0) {
        /* jget_int reported the range */
    }
    const char *s = NULL;
    if (jget_str(L, &at, root, "id", 1, &s) == 1) {
        if (!valid_ident(s)) {
            jl_error(L, &at, "id", "'%s': use letters, digits, '-', '_', '.'",
                     s);
        }
        st->id = ld_strdup(L, s);
    }
    if (jget_str(L, &at, root, "title", 1, &s) == 1) {
        st->title = ld_strdup(L, s);
    }
    if (jget_str(L, &at, root, "domain", 0, &s) == 1) {
        st->domain = ld_strdup(L, s);
    }
    parse_classes(&D, &at);
    parse_conditions(&D, &at);
    parse_assignment(&D, &at);
    parse_rating(&D, &at);
    parse_quiz(&D, &at);
    parse_simulation(&D, &at);
    parse_pages(&D, &at);

    json_t *items = json_object_get(root, "items");
    JLoc il;
    jl_child(&il, &at, "items");
    if (!items) {
        jl_error(L, &at, "items", "missing (required)");
    } else {
        load_banks(L, items, &il);
    }
    index_build(L);
    json_t *ex = json_object_get(root, "explanations");
    if (ex) {
        JLoc el;
        jl_child(&el, &at, "explanations");
        load_expl_sources(L, ex, &el);
    }
    collect_pools(L);

    parse_protocol(&D, &at);
    parse_screening(&D, &at);
    validate_blocks(&D);
    validate_conditions(&D, &at);
    read_pages(&D);

    questions_free(D.quiz, D.n_quiz);
    sim_free(D.consent);
    sim_free(D.debrief);
    for (size_t i = 0; i < D.n_instr; i++) {
        sim_free(D.instr[i]);
    }
    sim_free(D.instr);
    sim_free(D.src);
    page_refs_free(&D.refs);
}

void block_clear(Block *b)
{
    sim_free(b->id);
    sim_free(b->phase);
    sim_free(b->title);
    sim_free(b->pool);
    sim_free(b->same_items_as);
    sim_free(b->exclude_items_of);
    sim_free(b->reservoir);
    sim_free(b->train_pool);
    for (size_t i = 0; i < b->n_pages; i++) {
        sim_free(b->pages[i]);
    }
    sim_free(b->pages);
    sim_free(b->text);
    questions_free(b->questions, b->n_questions);
    memset(b, 0, sizeof *b);
}
