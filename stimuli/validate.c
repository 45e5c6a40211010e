/*
** Checks of the design after every block is known: block ids, references
** between blocks, pools large enough for what the blocks draw, and the
** explanations and counterfactuals that the blocks show. libc and jansson
** only.
*/
#include "stimuli/validate.h"
#include "stimuli/loader.h"
#include "stimuli/items_int.h"
#include "stimuli/expl_int.h"
#include "stimuli/sources.h"
#include "stimuli/blockkind.h"
#include "stimuli/designctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

static long block_index(const Study *st, const char *id, size_t before)
{
    for (size_t i = 0; i < before; i++) {
        if (st->blocks[i].id && strcmp(st->blocks[i].id, id) == 0) {
            return (long)i;
        }
    }
    return -1;
}

/* The block id nearest to id for a "did you mean", or NULL. */
static const char *block_suggest(const Study *st, const char *id)
{
    const char *best = NULL;
    size_t best_d = sim_suggest_limit(id) + 1;
    for (size_t i = 0; i < st->n_blocks; i++) {
        const char *b = st->blocks[i].id;
        size_t d = b ? sim_edit_distance(id, b) : best_d;
        if (d < best_d) {
            best = b;
            best_d = d;
        }
    }
    return best;
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

/* A block's pool (named at member key) has no items: one message for all
** the blocks that name it, with the nearest pool or the list of pools. */
static void no_items_error(Design *D, size_t bi, const char *key,
                           const char *pool)
{
    const Study *st = D->L->st;
    const char *near =
        sim_suggest(pool, (const char *const *)st->pools, st->n_pools);
    if (near) {
        block_error(D, bi, key, "pool '%s' has no items (did you mean '%s'?)",
                    pool, near);
        return;
    }
    SimBuf b;
    sim_buf_init(&b);
    for (size_t i = 0; i < st->n_pools; i++) {
        sim_buf_printf(&b, "%s%s", i ? ", " : "", st->pools[i]);
    }
    block_error(D, bi, key, "pool '%s' has no items (pools: %s)", pool,
                st->n_pools ? sim_buf_cstr(&b) : "none");
    if (b.oom) {
        D->L->oom = 1;
    }
    sim_buf_free(&b);
}

/* The pool whose items a block shows with the condition's explanation, or
** NULL. */
static const char *explained_pool(const Block *b)
{
    unsigned fields = block_kind_desc(b->kind)->fields;
    if (fields & BF_PRACTICE) { /* its examples (train_pool) */
        return b->show.explanation ? b->train_pool : NULL;
    }
    if (b->show.explanation || (fields & BF_EXPLAINS)) {
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
            if (!cf_block &&
                block_kind_desc(b->kind)->test == BTEST_COUNTERFACTUAL &&
                b->pool && strcmp(b->pool, it->pool) == 0) {
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
                item_explanation(it, m) || expl_item_failed(it, m)) {
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

/* A verify block asks whether the model's output on each item is right
** and a decide block scores the answer against the truth: their items need
** labels. One error at the block when none of its pool has one, else one
** at each item without. */
static void check_labels_asked(Design *D)
{
    Loader *L = D->L;
    const Study *st = L->st;
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        const Block *b = &st->blocks[bi];
        if ((b->kind != BLOCK_VERIFY && b->kind != BLOCK_DECIDE) || !b->pool) {
            continue;
        }
        const char *why = b->kind == BLOCK_VERIFY
                              ? "asks whether the model's output is right"
                              : "scores the answer against the true label";
        size_t n = 0, labelled = 0;
        for (size_t i = 0; i < st->n_items; i++) {
            const Item *it = &st->items[i];
            if (strcmp(it->pool, b->pool) == 0) {
                n++;
                labelled += it->label >= 0;
            }
        }
        if (n > 0 && labelled == 0) {
            jl_error(L, &D->src[bi].at, "pool",
                     "no item of pool '%s' has a label: the %s block '%s' %s, "
                     "which needs each item's true label beside the model's "
                     "prediction",
                     b->pool, block_kind_name(b->kind), b->id, why);
            continue;
        }
        for (size_t i = 0; labelled < n && i < st->n_items; i++) {
            const Item *it = &st->items[i];
            if (it->label < 0 && strcmp(it->pool, b->pool) == 0) {
                ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                        "label",
                        "item '%s' has no label (the %s block '%s' %s)",
                        it->key, block_kind_name(b->kind), b->id, why);
            }
        }
    }
}

/* The reservoir of block bi: an earlier item block with enough items for
** its catch trials; catch trials need one. */
static void validate_reservoir(Design *D, size_t bi)
{
    const Study *st = D->L->st;
    const Block *b = &st->blocks[bi];
    const BlockSrc *bs = &D->src[bi];
    if (!(block_kind_desc(b->kind)->fields & BF_CATCH)) {
        return; /* told where the block is parsed */
    }
    if (b->reservoir) {
        long r = block_index(st, b->reservoir, bi);
        if (r < 0 || !block_kind_shows_items(st->blocks[r].kind)) {
            block_error(D, bi, "reservoir", "'%s' is not an earlier item block",
                        b->reservoir);
        } else if (b->n_catch > 0 && st->blocks[r].n_items != BLOCK_N_ALL &&
                   b->n_catch > st->blocks[r].n_items) {
            block_error(D, bi, bs->at.ptr[1] == 'p' ? "n_catch" : "catch",
                        "%d catch trials but '%s' shows only %d items",
                        b->n_catch, b->reservoir, st->blocks[r].n_items);
        }
    } else if (b->n_catch > 0) {
        block_error(D, bi, "catch", "catch trials need a reservoir block");
    }
}

void validate_blocks(Design *D)
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
        if (!block_kind_shows_items(b->kind)) {
            continue;
        }
        if (b->same_items_as) {
            long r = block_index(st, b->same_items_as, bi);
            if (r < 0 || !block_kind_shows_items(st->blocks[r].kind)) {
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
        if (b->n_items == 0 && b->n_catch == 0) {
            block_error(D, bi, bs->n_key,
                        "0 items and no catch trials: block '%s' would show "
                        "nothing (every item of the pool: \"all\")",
                        b->id);
        }
        if (!b->pool && b->n_items == 0) {
            validate_reservoir(D, bi);
            continue; /* catch trials only: no pool needed */
        }
        if (!b->pool) {
            block_error(D, bi, bs->pool_key,
                        "missing (block '%s' needs a pool)", b->id);
            continue;
        }
        size_t have = items_pool_size(st, b->pool);
        if (have == 0) {
            if (!items_pool_unread(D->L, b->pool)) { /* else told at its bank */
                no_items_error(D, bi, bs->pool_key, b->pool);
            }
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
            if (r < 0 || !block_kind_shows_items(st->blocks[r].kind)) {
                block_error(D, bi, "exclude_items_of",
                            "'%s' is not an earlier item block", tok);
            } else if (st->blocks[r].pool &&
                       strcmp(st->blocks[r].pool, b->pool) == 0) {
                excluded += block_item_count(&st->blocks[r], have);
            }
            tok = comma ? comma + 1 : NULL;
        }
        sim_free(list);
        size_t need = block_item_count(b, have) + excluded;
        if (need > have && !b->same_items_as) {
            block_error(D, bi, bs->n_key,
                        "pool '%s' has %zu items; block '%s' needs %zu%s",
                        b->pool, have, b->id, need,
                        excluded ? " (with the items of the earlier blocks "
                                   "it excludes)"
                                 : "");
        }
        validate_reservoir(D, bi);
        if (b->train_pool && items_pool_size(st, b->train_pool) == 0 &&
            !items_pool_unread(D->L, b->train_pool)) {
            no_items_error(D, bi, bs->train_key ? bs->train_key : "train_pool",
                           b->train_pool);
        }
    }
    check_items_shown(D);
    check_labels_asked(D);
}

/* Items a repetition of the within-subject range draws from pool: the
** blocks of the range on that pool that draw their own items. */
static size_t range_need(const Study *st, size_t first, size_t last,
                         const char *pool, size_t have)
{
    size_t n = 0;
    for (size_t i = first; i <= last; i++) {
        const Block *b = &st->blocks[i];
        if (block_kind_shows_items(b->kind) && !b->same_items_as && b->pool &&
            strcmp(b->pool, pool) == 0) {
            n += block_item_count(b, have);
        }
    }
    return n;
}

/* "repeat": the named blocks must be one contiguous run of blocks, in
** their order, with at least one block that shows items; sets the run.
** Returns 0 after an error at repeat. */
static int resolve_repeat(Design *D, const JLoc *al)
{
    Loader *L = D->L;
    Study *st = L->st;
    Assignment *a = &st->assignment;
    long first = -1;
    int items = 0;
    for (size_t i = 0; i < a->n_repeat; i++) {
        long bi = block_index(st, a->repeat[i], st->n_blocks);
        const char *near = bi < 0 ? block_suggest(st, a->repeat[i]) : NULL;
        if (near) {
            jl_error(L, al, "repeat",
                     "'%s' is not a block id (did you mean '%s'?)",
                     a->repeat[i], near);
            return 0;
        }
        if (bi < 0) {
            char ids[512];
            size_t len = 0;
            ids[0] = '\0';
            for (size_t k = 0; k < st->n_blocks && len < sizeof ids; k++) {
                len += (size_t)snprintf(
                    ids + len, sizeof ids - len, "%s'%s'", k ? ", " : "",
                    st->blocks[k].id ? st->blocks[k].id : "");
            }
            jl_error(L, al, "repeat", "'%s' is not a block id (blocks: %s)",
                     a->repeat[i], ids);
            return 0;
        }
        if (i == 0) {
            first = bi;
        } else if (bi != first + (long)i) {
            jl_error(L, al, "repeat",
                     "'%s' does not follow '%s' in blocks: repeat names one "
                     "contiguous run of blocks, in their order",
                     a->repeat[i], a->repeat[i - 1]);
            return 0;
        }
        BlockKind k = st->blocks[bi].kind;
        items |= block_kind_shows_items(k) && k != BLOCK_PRACTICE;
    }
    if (!items) {
        jl_error(L, al, "repeat",
                 "no block of the run shows items to predict: nothing to "
                 "compare between conditions");
        return 0;
    }
    a->repeat_first = (size_t)first;
    a->repeat_last = (size_t)first + a->n_repeat - 1;
    a->repeat_set = 1;
    return 1;
}

/* "mode": "within": enough conditions, one session per condition when the
** blocks have sessions, else blocks to repeat; a warning where a pool is too
** small for every condition to get items of its own. */
static void validate_within(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    if (st->assignment.mode != ASSIGN_MODE_WITHIN) {
        return;
    }
    JLoc al;
    jl_child(&al, root, "assignment");
    size_t nc = st->n_conditions;
    if (nc < 2) {
        jl_error(L, &al, "mode",
                 "a within-subject study needs at least 2 conditions (it "
                 "has %zu)",
                 nc);
        return;
    }
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        const Block *b = &st->blocks[bi];
        if (b->kind == BLOCK_PRACTICE && b->show.explanation && b->train_pool) {
            const char *key = D->src[bi].train_key;
            jl_warn(L, &D->src[bi].at, key ? key : "show",
                    "practice block '%s' shows its examples with the "
                    "explanations of each participant's first condition",
                    b->id ? b->id : "");
        }
    }
    int sessions = study_n_sessions(st);
    size_t first = 0, last = 0;
    if (sessions > 0 && st->assignment.n_repeat > 0) {
        jl_error(L, &al, "repeat",
                 "the blocks have sessions: session t shows the "
                 "participant's t-th condition, so nothing is repeated "
                 "(leave out repeat, or the sessions)");
        return;
    }
    if (sessions > 0) {
        if ((size_t)sessions != nc) {
            jl_error(L, &al, "mode",
                     "%d sessions for %zu conditions: session t shows the "
                     "participant's t-th condition, so a within-subject "
                     "study with sessions needs one session per condition",
                     sessions, nc);
        }
        return;
    }
    if (st->n_blocks == 0) {
        return; /* no blocks were read: reported where they are given */
    }
    if (st->assignment.n_repeat > 0 && !resolve_repeat(D, &al)) {
        return;
    }
    if (!study_within_range(st, &first, &last)) {
        jl_error(L, &al, "mode",
                 "no block shows items: nothing to repeat per condition");
        return;
    }
    for (size_t bi = first; bi <= last; bi++) {
        if (st->blocks[bi].once) {
            jl_error(L, &D->src[bi].at, "once",
                     "block '%s' is one of the blocks repeated per condition "
                     "(%s .. %s), so it is shown once per condition",
                     st->blocks[bi].id ? st->blocks[bi].id : "",
                     st->blocks[first].id ? st->blocks[first].id : "",
                     st->blocks[last].id ? st->blocks[last].id : "");
        }
    }
    if (last + 1 < st->n_blocks) {
        const Block *after = &st->blocks[last + 1];
        if ((after->kind == BLOCK_QUESTIONNAIRE ||
             after->kind == BLOCK_BREAK) &&
            !after->once) {
            jl_warn(L, &al, st->assignment.repeat_set ? "repeat" : "mode",
                    "%s '%s' comes after the blocks repeated per condition "
                    "(%s .. %s): it is shown once, after the last condition%s; "
                    "to show it once per condition, name it in "
                    "assignment.repeat, or mark it \"once\": true when that "
                    "is meant",
                    block_kind_name(after->kind), after->id ? after->id : "",
                    st->blocks[first].id ? st->blocks[first].id : "",
                    st->blocks[last].id ? st->blocks[last].id : "",
                    after->kind == BLOCK_QUESTIONNAIRE
                        ? " (its answers carry that condition)"
                        : "");
        }
    }
    for (size_t p = 0; p < st->n_pools; p++) {
        size_t have = items_pool_size(st, st->pools[p]);
        size_t per = range_need(st, first, last, st->pools[p], have);
        if (per > 0 && per * nc > have) {
            jl_warn(L, &al, "mode",
                    "pool '%s' has %zu items; %zu conditions x %zu items "
                    "need %zu for no item to repeat for a participant: "
                    "later conditions reuse items of earlier ones",
                    st->pools[p], have, nc, per, per * nc);
        }
    }
}

/* An explanation given on request is shown with a key ("expl.show_key");
** no class may answer with it. */
static void check_reveal_key(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    int on_request = 0;
    for (size_t i = 0; i < st->n_items && !on_request; i++) {
        for (size_t k = 0; k < st->items[i].n_expl; k++) {
            const Explanation *e = st->items[i].expl[k].e;
            on_request |= e && e->reveal == EXPL_REVEAL_ON_REQUEST;
        }
    }
    const char *key = ui_str(st->ui_strings, UI_EXPL_SHOW_KEY);
    if (!on_request || !key) {
        return;
    }
    JLoc cl;
    jl_child(&cl, root, "classes");
    for (size_t c = 0; c < st->n_classes; c++) {
        const char *ck = st->classes[c].key;
        if (ck && strcasecmp(ck, key) == 0) {
            JLoc el;
            jl_index(&el, &cl, c);
            jl_error(L, &el, "key",
                     "'%s' shows an explanation given on request (the "
                     "string 'expl.show_key'); give this class another key, "
                     "or that string another one in \"ui\"",
                     ck);
        }
    }
}

void validate_conditions(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    JLoc cl;
    jl_child(&cl, root, "conditions");
    int any_explained = 0;
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        any_explained |=
            st->blocks[bi].show.explanation ||
            (block_kind_desc(st->blocks[bi].kind)->fields & BF_EXPLAINS);
    }
    json_t *conds = json_object_get(D->root, "conditions");
    for (size_t c = 0; c < st->n_conditions; c++) {
        const char *m = st->conditions[c].method;
        if (!m) {
            continue;
        }
        if (!method_known(st, m) && !sources_method_failed(L, m)) {
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
            design_no_condition(L, root, "baseline", baseline);
        }
        st->baseline = ld_strdup(L, baseline);
    } else if (study_find_condition(st, "baseline")) {
        st->baseline = ld_strdup(L, "baseline");
    }
    validate_within(D, root);
    check_reveal_key(D, root);
}
