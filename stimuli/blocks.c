/*
** The protocol of study.json: a preset (expanded by preset.c) or explicit
** blocks. What each kind of block accepts and its defaults come from the
** block kind table (blockkind.c). libc and jansson only.
*/
#include "stimuli/blocks.h"
#include "stimuli/loader.h"
#include "stimuli/blockkind.h"
#include "stimuli/questionnaire_int.h"
#include "stimuli/designctx.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

Block *block_new(Design *D, BlockKind kind, const char *id, const JLoc *at)
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
    b->require_scroll = 1;
    b->n_items = BLOCK_N_ALL;
    b->n_train = BLOCK_N_ALL;
    const BlockKindDesc *kd = block_kind_desc(kind);
    block_set_phase(D, b, kd->phase);
    b->show = kd->show;
    b->rating = kd->rating;
    if (kd->fields & BF_VERDICT) {
        static const char *const ids[2] = {"accept", "reject"};
        static const char *const keys[2] = {"f", "j"};
        for (int k = 0; k < 2; k++) {
            b->verdicts[k].id = ld_strdup(L, ids[k]);
            b->verdicts[k].key = ld_strdup(L, keys[k]);
        }
    }
    return b;
}

void block_set_phase(Design *D, Block *b, SimPhase phase)
{
    const char *name = sim_phase_name(phase);
    sim_free(b->phase);
    b->phase = name ? ld_strdup(D->L, name) : NULL;
    b->phase_id = name ? phase : SIM_PHASE_NONE;
}

void block_copy_quiz(Design *D, Block *b)
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

/* An error at key: the field belongs to the kinds with all bits of group;
** the message is before + their list ("a, b and c") + after. */
static void only_error(Loader *L, const JLoc *at, const char *key,
                       unsigned group, const char *before, const char *after)
{
    char kinds[256];
    block_kind_list(group, ", ", " and ", kinds, sizeof kinds);
    jl_error(L, at, key, "%s%s%s", before, kinds, after);
}

/* A number of items at key: an integer (0 or more) or "all" (BLOCK_N_ALL);
** absent leaves *out as it is. */
static void get_count(Loader *L, const JLoc *bl, json_t *o, const char *key,
                      int *out)
{
    json_t *n = json_object_get(o, key);
    if (json_is_string(n) && strcmp(json_string_value(n), "all") == 0) {
        *out = BLOCK_N_ALL;
    } else if (json_is_string(n)) {
        jl_error(L, bl, key, "'%s': give a number of items or \"all\"",
                 json_string_value(n));
    } else {
        jget_int(L, bl, o, key, 0, 0, 1000000, out);
    }
}

/* The fields of blocks that show items (BF_ITEMS and the groups that go
** with it; which of those the kind may use is checked by the caller). */
static void parse_item_fields(Design *D, Block *b, const JLoc *bl, json_t *o)
{
    Loader *L = D->L;
    const char *s = NULL;
    if (jget_str(L, bl, o, "pool", 0, &s) == 1) {
        b->pool = ld_strdup(L, s);
    }
    get_count(L, bl, o, "n", &b->n_items);
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
            sim_buf_printf(&buf, "%s%s", i ? "," : "", json_string_value(x));
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
        static const char *const sk[] = {"label", "prediction", "explanation",
                                         "reservoir", NULL};
        jreject_unknown(L, &sl, show, sk);
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
    get_count(L, bl, o, "n_train", &b->n_train);
    jget_int(L, bl, o, "catch", 0, 0, 1000000, &b->n_catch);
    if (jget_str(L, bl, o, "reservoir", 0, &s) == 1) {
        b->reservoir = ld_strdup(L, s);
        if (!json_object_get(show, "reservoir")) {
            b->show.reservoir = 1;
        }
    }
}

/* "confidence" of a block: {"points", "question", "low", "high"}. */
static void parse_confidence(Loader *L, const JLoc *bl, json_t *v,
                             RatingSpec *c)
{
    if (!json_is_object(v)) {
        jl_error(L, bl, "confidence",
                 "must be {\"points\": 2..11, \"question\", \"low\", "
                 "\"high\"}");
        return;
    }
    JLoc cl;
    jl_child(&cl, bl, "confidence");
    static const char *const known[] = {"points", "question", "low", "high",
                                        NULL};
    jwarn_unknown(L, &cl, v, known);
    /* texts not given come from the runner's strings ("confidence.*") */
    const char *q = NULL, *low = NULL, *high = NULL;
    c->points = 5;
    jget_int(L, &cl, v, "points", 0, 2, 11, &c->points);
    jget_str(L, &cl, v, "question", 0, &q);
    jget_str(L, &cl, v, "low", 0, &low);
    jget_str(L, &cl, v, "high", 0, &high);
    c->question = q ? ld_strdup(L, q) : NULL;
    c->low = low ? ld_strdup(L, low) : NULL;
    c->high = high ? ld_strdup(L, high) : NULL;
}

/* The deadline fields (BF_DEADLINE): time_limit_ms, timeout_message and
** confidence, with errors when the kind has none of them. */
static void parse_deadline_fields(Loader *L, Block *b, const JLoc *bl,
                                  json_t *o, unsigned fields)
{
    const char *const *keys = block_group_keys(BF_DEADLINE);
    if (!(fields & BF_DEADLINE)) {
        for (size_t i = 0; keys[i]; i++) {
            if (json_object_get(o, keys[i])) {
                only_error(L, bl, keys[i], BF_DEADLINE, "only ",
                           " blocks have time_limit_ms, timeout_message, "
                           "deadline_display and confidence");
            }
        }
        return;
    }
    jget_int(L, bl, o, "time_limit_ms", 0, 100, 600000, &b->time_limit_ms);
    const char *s = NULL;
    /* a misspelled time_limit_ms is one error, told where it is */
    int no_limit = !json_object_get(o, "time_limit_ms") &&
                   !jl_misspelt(L, bl, "time_limit_ms");
    if (jget_str(L, bl, o, "timeout_message", 0, &s) == 1) {
        if (no_limit) {
            jl_error(L, bl, "timeout_message",
                     "needs \"time_limit_ms\" (the message follows a "
                     "timeout)");
        }
        b->timeout_message = ld_strdup(L, s);
    }
    if (jget_str(L, bl, o, "deadline_display", 0, &s) == 1) {
        if (strcmp(s, "countdown") == 0) {
            b->deadline_countdown = 1;
        } else if (strcmp(s, "none") != 0) {
            jl_error(L, bl, "deadline_display", "'%s' is not none or countdown",
                     s);
        }
        if (no_limit) {
            jl_error(L, bl, "deadline_display",
                     "needs \"time_limit_ms\" (the deadline it counts down "
                     "to)");
        }
    }
    json_t *c = json_object_get(o, "confidence");
    if (c) {
        parse_confidence(L, bl, c, &b->confidence);
    }
}

/* The key collides with one the screen already takes: Continue's, or a
** digit when the block asks a confidence after the answer. */
static const char *key_taken(const Block *b, const char *key)
{
    static const char *const cont[] = {"return", "enter", "space",
                                       "keypad enter", "kp_enter"};
    for (size_t i = 0; i < sizeof cont / sizeof *cont; i++) {
        if (strcasecmp(key, cont[i]) == 0) {
            return "Continue";
        }
    }
    if (b->confidence.points > 0 && key[0] >= '0' && key[0] <= '9' && !key[1]) {
        return "the confidence scale's digits";
    }
    return NULL;
}

/* "keys" of a verify block: {"accept": key, "reject": key}, each an SDL
** key name, distinct and free on the screen (default "f" and "j"). */
static void parse_verdict_keys(Loader *L, Block *b, const JLoc *bl, json_t *o)
{
    json_t *v = json_object_get(o, "keys");
    if (v && !json_is_object(v)) {
        jl_error(L, bl, "keys",
                 "must be {\"accept\": key, \"reject\": key} (SDL key "
                 "names, e.g. \"f\" and \"j\")");
        return;
    }
    JLoc kl;
    jl_child(&kl, bl, "keys");
    if (v) {
        static const char *const known[] = {"accept", "reject", NULL};
        jreject_unknown(L, &kl, v, known);
    }
    for (int k = 0; v && k < 2; k++) {
        const char *s = NULL;
        if (jget_str(L, &kl, v, b->verdicts[k].id, 0, &s) == 1) {
            if (!s[0]) {
                jl_error(L, &kl, b->verdicts[k].id, "must not be empty");
                continue;
            }
            sim_free(b->verdicts[k].key);
            b->verdicts[k].key = ld_strdup(L, s);
        }
    }
    for (int k = 0; k < 2; k++) {
        const char *key = b->verdicts[k].key;
        const char *taken = key ? key_taken(b, key) : NULL;
        if (taken) {
            jl_error(L, v ? &kl : bl, v ? b->verdicts[k].id : "keys",
                     "key '%s' collides with %s", key, taken);
        }
    }
    if (b->verdicts[0].key && b->verdicts[1].key &&
        strcasecmp(b->verdicts[0].key, b->verdicts[1].key) == 0) {
        jl_error(L, v ? &kl : bl, v ? "reject" : "keys",
                 "key '%s' is also accept's: the two answers need two keys",
                 b->verdicts[1].key);
    }
}

/* Errors for the fields of item blocks given to a kind without items. */
static void refuse_item_fields(Loader *L, const JLoc *bl, json_t *o,
                               const char *kname)
{
    static const unsigned groups[] = {BF_ITEMS, BF_RATING, BF_PRACTICE,
                                      BF_CATCH};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        const char *const *keys = block_group_keys(groups[g]);
        for (size_t i = 0; keys[i]; i++) {
            if (json_object_get(o, keys[i])) {
                jl_error(L, bl, keys[i], "not a field of a %s block", kname);
            }
        }
    }
}

static void explicit_block(Design *D, const JLoc *bl, json_t *o, size_t pos)
{
    Loader *L = D->L;
    if (!json_is_object(o)) {
        jl_error(L, bl, NULL, "a block is an object with a \"kind\"");
        return;
    }
    block_warn_unknown(L, bl, o);
    const char *kname = NULL;
    if (jget_str(L, bl, o, "kind", 1, &kname) != 1) {
        return;
    }
    int kind = block_kind_from_name(kname);
    if (kind < 0) {
        char kinds[256];
        block_kind_list(0, ", ", ", ", kinds, sizeof kinds);
        jl_error(L, bl, "kind", "unknown block kind '%s' (%s)", kname, kinds);
        return;
    }
    char defid[48];
    snprintf(defid, sizeof defid, "%s%zu", kname, pos + 1);
    const char *id = defid;
    if (jget_str(L, bl, o, "id", 0, &id) == 1 && !design_valid_ident(id)) {
        jl_error(L, bl, "id", "'%s': use letters, digits, '-', '_', '.'", id);
    }
    Block *b = block_new(D, (BlockKind)kind, id, bl);
    if (!b) {
        return;
    }
    const BlockKindDesc *kd = block_kind_desc(b->kind);
    BlockSrc *bs = &D->src[L->st->n_blocks - 1];
    bs->pool_key = "pool";
    bs->n_key = "n";
    bs->train_key = "train_pool";
    const char *s = NULL;
    if (jget_str(L, bl, o, "phase", 0, &s) == 1) {
        if (sim_phase_from_name(s) == SIM_PHASE_NONE) {
            char phases[128];
            sim_phase_list(phases, sizeof phases);
            jl_error(L, bl, "phase", "'%s' is not %s", s, phases);
        }
        /* an unknown name is kept for the report (the study is invalid) */
        sim_free(b->phase);
        b->phase = ld_strdup(L, s);
        b->phase_id = sim_phase_from_name(s);
    }
    if (jget_str(L, bl, o, "title", 0, &s) == 1) {
        b->title = ld_strdup(L, s);
    }
    jget_int(L, bl, o, "session", 0, 0, 1000, &b->session);
    if (kd->fields & BF_ITEMS) {
        parse_item_fields(D, b, bl, o);
    } else {
        refuse_item_fields(L, bl, o, kname);
    }
    if (b->rating && !(kd->fields & BF_RATING)) {
        only_error(L, bl, "rating", BF_RATING, "ratings are asked in ",
                   " blocks");
    }
    if ((b->feedback || b->retry || b->train_pool) &&
        !(kd->fields & BF_PRACTICE)) {
        only_error(L, bl, b->train_pool ? "train_pool" : "feedback",
                   BF_PRACTICE, "only ",
                   " blocks have feedback, retry and train_pool");
    }
    if ((b->n_catch || b->reservoir) && !(kd->fields & BF_CATCH)) {
        only_error(L, bl, b->n_catch ? "catch" : "reservoir", BF_CATCH, "only ",
                   " blocks have catch trials and a reservoir");
    }
    if (jget_str(L, bl, o, "text", 0, &s) == 1) {
        b->text = ld_strdup(L, s);
    }
    jget_int(L, bl, o, "min_seconds", 0, 0, 86400, &b->min_seconds);
    parse_deadline_fields(L, b, bl, o, kd->fields);
    if (kd->fields & BF_VERDICT) {
        parse_verdict_keys(L, b, bl, o);
    } else if (json_object_get(o, "keys")) {
        only_error(L, bl, "keys", BF_VERDICT, "only ",
                   " blocks have keys of their own (the classes' keys are "
                   "the study's \"classes\")");
    }
    if (jget_str(L, bl, o, "options_order", 0, &s) == 1) {
        if (!(kd->fields & BF_OPTIONS)) {
            only_error(L, bl, "options_order", BF_OPTIONS, "only items of ",
                       " blocks are answered from their "
                       "own options");
        } else if (strcmp(s, "shuffle") == 0) {
            b->options_shuffle = 1;
        } else if (strcmp(s, "item") != 0) {
            jl_error(L, bl, "options_order", "'%s' is not item or shuffle", s);
        }
    }
    if (json_object_get(o, "require_scroll") &&
        !(kd->fields & (BF_ITEMS | BF_PAGES))) {
        jl_error(L, bl, "require_scroll",
                 "only blocks with pages or items scroll");
    }
    jget_bool(L, bl, o, "require_scroll", &b->require_scroll);
    if (!(kd->fields & BF_ONCE) && json_object_get(o, "once")) {
        only_error(L, bl, "once", BF_ONCE, "only ",
                   " blocks are marked as shown once after the repeated "
                   "blocks");
    } else {
        jget_bool(L, bl, o, "once", &b->once);
    }
    json_t *pages = json_object_get(o, "pages");
    int page_kind = (kd->fields & BF_PAGES) != 0;
    if (pages && !page_kind) {
        only_error(L, bl, "pages", BF_PAGES, "only ", " blocks have pages");
    } else if (pages) {
        design_page_list(D, bl, "pages", pages, &b->pages, &b->n_pages);
    } else if (page_kind) {
        /* default: the study's page of that kind */
        if (b->kind == BLOCK_CONSENT && D->consent) {
            design_set_pages(D, b, &D->consent, 1);
        } else if (b->kind == BLOCK_DEBRIEF && D->debrief) {
            design_set_pages(D, b, &D->debrief, 1);
        } else if (b->kind == BLOCK_INSTRUCTIONS && D->n_instr) {
            design_set_pages(D, b, D->instr, D->n_instr);
        } else if (!b->text) {
            jl_error(L, bl, "pages",
                     "missing (no \"pages\" and no study "
                     "page of this kind)");
        }
    }
    if (kd->fields & BF_SURVEY) {
        JLoc ql;
        jl_child(&ql, bl, "questions");
        json_t *qs = json_object_get(o, "questions");
        if (qs) {
            questionnaire_parse(L, &ql, qs, &b->survey, &b->n_survey);
        } else {
            jl_error(L, bl, "questions",
                     "missing (a questionnaire asks a list of questions)");
        }
    } else if (kd->fields & BF_QUESTIONS) {
        json_t *qs = json_object_get(o, "questions");
        if (qs) {
            JLoc ql;
            jl_child(&ql, bl, "questions");
            design_quiz_parse(D, &ql, qs, &b->questions, &b->n_questions);
            b->repeat_until_correct = D->quiz_repeat;
        } else if (D->has_quiz) {
            block_copy_quiz(D, b);
        } else {
            jl_error(L, bl, "questions",
                     "missing (and the study has no "
                     "\"quiz\")");
        }
        jget_bool(L, bl, o, "repeat_until_correct", &b->repeat_until_correct);
    } else if (json_object_get(o, "questions")) {
        only_error(L, bl, "questions", BF_QUESTIONS, "only ",
                   " and questionnaire blocks have questions");
    }
    if (!(kd->fields & BF_QUESTIONS) &&
        json_object_get(o, "repeat_until_correct")) {
        only_error(L, bl, "repeat_until_correct", BF_QUESTIONS, "only ",
                   kd->fields & BF_SURVEY
                       ? " blocks have repeat_until_correct (a "
                         "questionnaire's answers are neither right nor "
                         "wrong)"
                       : " blocks have repeat_until_correct");
    }
}

void blocks_parse_list(Design *D, const JLoc *bl0, json_t *blocks)
{
    Loader *L = D->L;
    Study *st = L->st;
    size_t i;
    json_t *o;
    json_array_foreach(blocks, i, o)
    {
        JLoc bl;
        jl_index(&bl, bl0, i);
        explicit_block(D, &bl, o, i);
    }
    /* the test type: the most specific test of the blocks */
    static const char *const test_names[] = {NULL, "forward", "counterfactual",
                                             "verify", "decide"};
    BlockTest test = BTEST_NONE;
    for (size_t k = 0; k < st->n_blocks; k++) {
        BlockTest t = block_kind_desc(st->blocks[k].kind)->test;
        test = t > test ? t : test;
    }
    if (test != BTEST_NONE) {
        st->test_type = ld_strdup(L, test_names[test]);
    }
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
    design_quiz_free(b->questions, b->n_questions);
    questionnaire_free(b->survey, b->n_survey);
    sim_free(b->timeout_message);
    sim_free(b->confidence.question);
    sim_free(b->confidence.low);
    sim_free(b->confidence.high);
    for (int k = 0; k < 2; k++) {
        sim_free(b->verdicts[k].id);
        sim_free(b->verdicts[k].key);
        sim_free(b->verdicts[k].label);
    }
    memset(b, 0, sizeof *b);
}
