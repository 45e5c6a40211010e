/*
** Schedule generation: expands the study's blocks into the ordered steps of
** one participant, deterministically from (study, condition, seed). Items of
** study-drawn blocks come from a stream seeded by the study id and block id,
** so every participant sees the same items; orders come from the
** participant's seed. No SQLite, no clock.
*/
#include "experiment/schedule.h"

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

#include <stdlib.h>
#include <string.h>

/* Items chosen for each block so far (indices into study->items). */
typedef struct BlockItems {
    size_t *idx;
    size_t n;
} BlockItems;

typedef struct Builder {
    const Study *study;
    const Condition *condition; /* of the block being built */
    int within;                 /* steps record their condition */
    int rep;                    /* repetition of the within-subject range */
    unsigned char *used;        /* per item: shown by an earlier repetition
                                   (NULL when nothing repeats) */
    uint64_t seed;
    Schedule *sched;
    size_t cap;
    BlockItems *chosen; /* per block */
    SimError *err;
} Builder;

const char *expect_name(Expect e)
{
    static const char *const names[] = {"accept", "continue",      "choice",
                                        "rating", "choice+rating", "option",
                                        "answers"};
    return (unsigned)e < sizeof names / sizeof names[0] ? names[e] : "?";
}

Schedule *schedule_new(const char *condition, uint64_t seed, size_t n_trials)
{
    Schedule *s = sim_calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->condition = sim_strdup(condition ? condition : "");
    s->trials = sim_calloc(n_trials ? n_trials : 1, sizeof *s->trials);
    if (!s->condition || !s->trials) {
        schedule_free(s);
        return NULL;
    }
    s->seed = seed;
    s->n_trials = n_trials;
    return s;
}

void schedule_free(Schedule *s)
{
    if (!s) {
        return;
    }
    for (size_t i = 0; i < s->n_trials; i++) {
        sim_free(s->trials[i].item_key);
        sim_free(s->trials[i].test_type);
        sim_free(s->trials[i].condition);
        sim_free(s->trials[i].options);
    }
    sim_free(s->trials);
    sim_free(s->condition);
    sim_free(s);
}

static Trial *add_step(Builder *b, int block, Expect expects)
{
    Schedule *s = b->sched;
    if (sim_grow((void **)&s->trials, &b->cap, s->n_trials + 1,
                 sizeof *s->trials) != 0) {
        sim_fail(b->err, SIM_ERR_NOMEM, "out of memory building schedule");
        return NULL;
    }
    Trial *t = &s->trials[s->n_trials];
    memset(t, 0, sizeof *t);
    t->seq = (int)s->n_trials;
    t->block = block;
    t->expects = expects;
    t->correct_choice = -1;
    t->reservoir = -1;
    s->n_trials++;
    if (b->within && !(t->condition = sim_strdup(b->condition->id))) {
        sim_fail(b->err, SIM_ERR_NOMEM, "out of memory building schedule");
        return NULL;
    }
    return t;
}

static int set_item(Builder *b, Trial *t, const Item *item)
{
    t->item_key = sim_strdup(item->key);
    if (!t->item_key) {
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

static int set_test_type(Builder *b, Trial *t, const char *type)
{
    t->test_type = sim_strdup(type);
    if (!t->test_type) {
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

static int block_index(const Study *study, const char *id)
{
    const Block *blk = study_find_block(study, id);
    return blk ? (int)(blk - study->blocks) : -1;
}

static int idx_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int used_by(const BlockItems *bi, size_t idx)
{
    for (size_t i = 0; i < bi->n; i++) {
        if (bi->idx[i] == idx) {
            return 1;
        }
    }
    return 0;
}

/* Is item idx excluded by the comma-separated block list? */
static int excluded(const Builder *b, const char *list, size_t idx)
{
    if (!list) {
        return 0;
    }
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        for (size_t i = 0; i < b->study->n_blocks; i++) {
            const char *id = b->study->blocks[i].id;
            if (id && strlen(id) == len && strncmp(id, p, len) == 0 &&
                used_by(&b->chosen[i], idx)) {
                return 1;
            }
        }
        p += len;
        while (*p == ',' || *p == ' ') {
            p++;
        }
    }
    return 0;
}

/* Stream index base of the current repetition (0 in repetition 0, so a
** study without repetitions draws as it always did). */
static uint64_t rep_stream(const Builder *b, uint64_t base)
{
    return base + 100000u * (uint64_t)b->rep;
}

/* Chooses the items of block bi from pool (n = 0: all), honouring
** exclude_items_of and the draw rule, in file order. Items shown by an
** earlier repetition are drawn only when the fresh ones run short. Result
** in *out. */
static int draw_items(Builder *b, int bi, const char *pool, int n,
                      BlockItems *out)
{
    const Study *study = b->study;
    const Block *blk = &study->blocks[bi];
    size_t cap = study->n_items ? study->n_items : 1;
    size_t *cand = sim_calloc(cap, sizeof *cand);
    size_t *old = sim_calloc(cap, sizeof *old);
    if (!cand || !old) {
        sim_free(cand);
        sim_free(old);
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    size_t nc = 0, n_old = 0;
    for (size_t i = 0; i < study->n_items; i++) {
        const Item *it = &study->items[i];
        if (pool && it->pool && strcmp(it->pool, pool) == 0 &&
            !excluded(b, blk->exclude_items_of, i)) {
            if (b->used && b->used[i]) {
                old[n_old++] = i;
            } else {
                cand[nc++] = i;
            }
        }
    }
    size_t want = n == BLOCK_N_ALL ? nc + n_old : (size_t)n;
    if (want > nc + n_old) {
        sim_free(cand);
        sim_free(old);
        return sim_fail(b->err, SIM_ERR_INVALID,
                        "block '%s': pool '%s' has %zu unused items, %zu "
                        "needed",
                        blk->id, pool, nc + n_old, want);
    }
    if (want < nc + n_old) {
        SimRng rng;
        if (blk->draw == DRAW_PARTICIPANT) {
            sim_rng_seed_stream(&rng, b->seed,
                                rep_stream(b, 1000u + (uint64_t)bi));
        } else {
            sim_rng_seed_stream(&rng, sim_hash_str(study->id ? study->id : ""),
                                sim_hash_str(blk->id ? blk->id : "") +
                                    (uint64_t)b->rep);
        }
        sim_rng_shuffle(&rng, cand, nc, sizeof *cand);
        if (want > nc) { /* fresh items run short: the rest from old ones */
            sim_rng_shuffle(&rng, old, n_old, sizeof *old);
            memcpy(cand + nc, old, (want - nc) * sizeof *cand);
        }
        qsort(cand, want, sizeof *cand, idx_cmp);
    } else if (n_old > 0) { /* every item of the pool */
        memcpy(cand + nc, old, n_old * sizeof *cand);
        qsort(cand, want, sizeof *cand, idx_cmp);
    }
    sim_free(old);
    out->idx = cand;
    out->n = want;
    return SIM_OK;
}

/* Order in which the block's items are shown (a copy of the choice). */
static int order_items(Builder *b, int bi, const BlockItems *in, size_t **order)
{
    size_t *o = sim_calloc(in->n ? in->n : 1, sizeof *o);
    if (!o) {
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    memcpy(o, in->idx, in->n * sizeof *o);
    if (b->study->blocks[bi].order == ORDER_SHUFFLE) {
        SimRng rng;
        sim_rng_seed_stream(&rng, b->seed, rep_stream(b, (uint64_t)bi));
        sim_rng_shuffle(&rng, o, in->n, sizeof *o);
    }
    *order = o;
    return SIM_OK;
}

static int add_pages(Builder *b, int bi, Expect expects)
{
    const Block *blk = &b->study->blocks[bi];
    size_t n = blk->n_pages ? blk->n_pages : 1;
    for (size_t p = 0; p < n; p++) {
        Trial *t = add_step(b, bi, expects);
        if (!t) {
            return b->err ? b->err->code : SIM_ERR_NOMEM;
        }
        t->page = (int)p;
    }
    return SIM_OK;
}

static int add_quiz(Builder *b, int bi)
{
    const Block *blk = &b->study->blocks[bi];
    for (size_t q = 0; q < blk->n_questions; q++) {
        Trial *t = add_step(b, bi, EXPECT_OPTION);
        if (!t) {
            return SIM_ERR_NOMEM;
        }
        t->page = (int)q;
        t->correct_choice = blk->questions[q].answer;
    }
    return SIM_OK;
}

/* A questionnaire is one step: its questions are shown together. */
static int add_questionnaire(Builder *b, int bi)
{
    return add_step(b, bi, EXPECT_ANSWERS) ? SIM_OK : SIM_ERR_NOMEM;
}

static int explained(const Builder *b, const Block *blk)
{
    return blk->show.explanation && b->condition->method != NULL;
}

/* Whether the block's trials in the builder's condition show the model's
** advice: always, but in a decide block only when the condition gives it
** ("advice": false: the humans alone). */
static int advised(const Builder *b, const Block *blk)
{
    return blk->kind != BLOCK_DECIDE || b->condition->advice;
}

/* What an item trial asks: the response expected, the right choice (-1:
** none) and the test type recorded with it. */
typedef struct ItemAsk {
    Expect expects;
    int correct;
    const char *test_type;
    int catch_asks_model; /* a catch trial's right answer is the model's
                             output (what the reservoir showed) */
} ItemAsk;

typedef ItemAsk (*ItemAskFn)(const Builder *b, const Block *blk,
                             const Item *item);

static ItemAsk ask_learn(const Builder *b, const Block *blk, const Item *item)
{
    (void)item;
    return (ItemAsk){blk->rating && explained(b, blk) ? EXPECT_RATING
                                                      : EXPECT_CONTINUE,
                     -1, "forward", 0};
}

static ItemAsk ask_prediction(const Builder *b, const Block *blk,
                              const Item *item)
{
    (void)b, (void)blk;
    return (ItemAsk){EXPECT_CHOICE, item->prediction, "forward", 1};
}

/* verify: the answer is the verdict (0 accept, 1 reject) that matches
** whether the model was right; none when the item has no label. */
static ItemAsk ask_verify(const Builder *b, const Block *blk, const Item *item)
{
    (void)b, (void)blk;
    int correct = item->label < 0                   ? -1
                  : item->prediction == item->label ? 0
                                                    : 1;
    return (ItemAsk){EXPECT_CHOICE, correct, "verify", 0};
}

/* decide: the answer is the task's, the item's true label. */
static ItemAsk ask_decide(const Builder *b, const Block *blk, const Item *item)
{
    (void)b, (void)blk;
    return (ItemAsk){EXPECT_CHOICE, item->label, "decide", 0};
}

static ItemAsk ask_counterfactual(const Builder *b, const Block *blk,
                                  const Item *item)
{
    return (ItemAsk){blk->rating && explained(b, blk) ? EXPECT_CHOICE_RATING
                                                      : EXPECT_CHOICE,
                     item->cf ? item->cf->prediction : -1, "counterfactual", 1};
}

static ItemAsk ask_rating(const Builder *b, const Block *blk, const Item *item)
{
    (void)b, (void)blk, (void)item;
    return (ItemAsk){EXPECT_RATING, -1, "forward", 0};
}

static ItemAskFn item_ask(BlockKind kind);

int schedule_set_options(Trial *t, const int *options, size_t n)
{
    sim_free(t->options);
    t->options = NULL;
    t->n_options = 0;
    if (n == 0) {
        return SIM_OK;
    }
    t->options = sim_calloc(n, sizeof *t->options);
    if (!t->options) {
        return SIM_ERR_NOMEM;
    }
    memcpy(t->options, options, n * sizeof *options);
    t->n_options = n;
    return SIM_OK;
}

/* A choice trial of an item with its own options offers them: in the
** item's order, or shuffled from the participant's seed, the item and the
** step (a stream of its own: the item orders stay as they were). */
static int offer_options(Builder *b, const Block *blk, Trial *t,
                         const Item *item)
{
    size_t n = 0;
    const int *opts = item_block_options(item, blk->kind, &n);
    if (!opts ||
        (t->expects != EXPECT_CHOICE && t->expects != EXPECT_CHOICE_RATING)) {
        return SIM_OK;
    }
    if (schedule_set_options(t, opts, n) != SIM_OK) {
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    if (blk->options_shuffle) {
        SimRng rng;
        sim_rng_seed_stream(&rng, b->seed ^ sim_hash_str(item->key),
                            3000u + (uint64_t)t->seq);
        sim_rng_shuffle(&rng, t->options, n, sizeof *t->options);
    }
    return SIM_OK;
}

/* The practice examples of block bi, first, from their own pool (only
** practice blocks have a train_pool). */
static int add_examples(Builder *b, int bi)
{
    const Study *study = b->study;
    const Block *blk = &study->blocks[bi];
    BlockItems ex = {NULL, 0};
    size_t *order = NULL;
    int rc = draw_items(b, bi, blk->train_pool, blk->n_train, &ex);
    if (rc == SIM_OK) {
        rc = order_items(b, bi, &ex, &order);
    }
    for (size_t k = 0; rc == SIM_OK && k < ex.n; k++) {
        Trial *t = add_step(b, bi, EXPECT_CONTINUE);
        rc = t ? set_item(b, t, &study->items[order[k]]) : SIM_ERR_NOMEM;
        if (rc == SIM_OK) {
            t->is_example = 1;
            t->show.prediction = 1;
            t->show.explanation = b->condition->method != NULL;
            rc = set_test_type(b, t, "forward");
        }
    }
    sim_free(ex.idx);
    sim_free(order);
    return rc;
}

/* The items of block bi into b->chosen[bi]: those of its same_items_as
** block, or drawn from its pool. */
static int choose_items(Builder *b, int bi)
{
    const Study *study = b->study;
    const Block *blk = &study->blocks[bi];
    BlockItems *chosen = &b->chosen[bi];
    if (blk->same_items_as) {
        int src = block_index(study, blk->same_items_as);
        if (src < 0 || src >= bi) {
            return sim_fail(b->err, SIM_ERR_INVALID,
                            "block '%s': same_items_as '%s' is not an "
                            "earlier block",
                            blk->id, blk->same_items_as);
        }
        chosen->idx = sim_calloc(b->chosen[src].n ? b->chosen[src].n : 1,
                                 sizeof *chosen->idx);
        if (!chosen->idx) {
            return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
        }
        memcpy(chosen->idx, b->chosen[src].idx,
               b->chosen[src].n * sizeof *chosen->idx);
        chosen->n = b->chosen[src].n;
        qsort(chosen->idx, chosen->n, sizeof *chosen->idx, idx_cmp);
    } else {
        return draw_items(b, bi, blk->pool, blk->n_items, chosen);
    }
    return SIM_OK;
}

/* The catch trials of block bi: n_catch reservoir items (distinct while
** there are enough) into item[] and their slots among the block's n +
** n_catch into pos[] (never the very first; a block of catch trials only
** in order). *item and *pos own arrays of blk->n_catch (NULL for none). */
static int plan_catch(Builder *b, int bi, size_t n, size_t **pos_out,
                      size_t **item_out)
{
    const Study *study = b->study;
    const Block *blk = &study->blocks[bi];
    *pos_out = *item_out = NULL;
    if (blk->n_catch <= 0) {
        return SIM_OK;
    }
    int res = blk->reservoir ? block_index(study, blk->reservoir) : -1;
    if (res < 0 || res >= bi || b->chosen[res].n == 0) {
        return sim_fail(b->err, SIM_ERR_INVALID,
                        "block '%s': catch trials need an earlier "
                        "reservoir block with items",
                        blk->id);
    }
    size_t n_catch = (size_t)blk->n_catch;
    size_t *catch_pos = sim_calloc(n_catch, sizeof *catch_pos);
    size_t *catch_item = sim_calloc(n_catch, sizeof *catch_item);
    if (!catch_pos || !catch_item) {
        sim_free(catch_pos);
        sim_free(catch_item);
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, b->seed, rep_stream(b, 2000u + (uint64_t)bi));
    const BlockItems *pool = &b->chosen[res];
    for (size_t k = 0; k < n_catch; k++) {
        size_t pick;
        int tries = 0;
        do {
            pick = pool->idx[sim_rng_below(&rng, pool->n)];
            tries++;
        } while (tries < 64 && k < pool->n &&
                 used_by(&(BlockItems){catch_item, k}, pick));
        catch_item[k] = pick;
        catch_pos[k] = n == 0 ? k : 1 + (size_t)sim_rng_below(&rng, n + k);
    }
    *pos_out = catch_pos;
    *item_out = catch_item;
    return SIM_OK;
}

static int add_item_block(Builder *b, int bi)
{
    const Study *study = b->study;
    const Block *blk = &study->blocks[bi];
    BlockItems *chosen = &b->chosen[bi];
    int rc;

    if (blk->train_pool) {
        rc = add_examples(b, bi);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    rc = choose_items(b, bi);
    if (rc != SIM_OK) {
        return rc;
    }

    size_t *order = NULL;
    rc = order_items(b, bi, chosen, &order);
    if (rc != SIM_OK) {
        return rc;
    }

    /* catch trials: reservoir items at random positions */
    int res = blk->reservoir ? block_index(study, blk->reservoir) : -1;
    size_t n_catch = blk->n_catch > 0 ? (size_t)blk->n_catch : 0;
    size_t *catch_pos = NULL, *catch_item = NULL;
    rc = plan_catch(b, bi, chosen->n, &catch_pos, &catch_item);
    if (rc != SIM_OK) {
        sim_free(order);
        return rc;
    }

    size_t total = chosen->n + n_catch;
    size_t next_item = 0;
    for (size_t slot = 0; slot < total; slot++) {
        const Item *item = NULL;
        int is_catch = 0;
        for (size_t k = 0; k < n_catch; k++) {
            if (catch_pos[k] == slot && catch_item[k] != (size_t)-1) {
                item = &study->items[catch_item[k]];
                catch_item[k] = (size_t)-1;
                is_catch = 1;
                break;
            }
        }
        if (!item) {
            if (next_item >= chosen->n) {
                /* a later catch slot collided; place the catch here */
                for (size_t k = 0; k < n_catch; k++) {
                    if (catch_item[k] != (size_t)-1) {
                        item = &study->items[catch_item[k]];
                        catch_item[k] = (size_t)-1;
                        is_catch = 1;
                        break;
                    }
                }
            } else {
                item = &study->items[order[next_item++]];
            }
        }
        if (!item) {
            break;
        }
        ItemAsk ask = item_ask(blk->kind)(b, blk, item);
        if (is_catch && ask.catch_asks_model) {
            /* a catch trial asks what the reservoir showed: in a
            ** counterfactual block the input is shown unchanged */
            ask.correct = item->prediction;
        }
        Trial *t = add_step(b, bi, ask.expects);
        rc = t ? set_item(b, t, item) : SIM_ERR_NOMEM;
        if (rc == SIM_OK) {
            rc = set_test_type(b, t, ask.test_type);
        }
        if (rc != SIM_OK) {
            break;
        }
        t->is_catch = is_catch;
        t->correct_choice = ask.correct;
        t->show = blk->show;
        t->show.explanation = explained(b, blk) && advised(b, blk);
        t->show.prediction = blk->show.prediction && advised(b, blk);
        if (is_catch) {
            t->show.explanation = 0;
        }
        t->reservoir = blk->show.reservoir ? res : -1;
        rc = offer_options(b, blk, t, item);
    }
    sim_free(order);
    sim_free(catch_pos);
    sim_free(catch_item);
    return rc;
}

static int add_consent(Builder *b, int bi)
{
    return add_pages(b, bi, EXPECT_ACCEPT);
}

static int add_continue_pages(Builder *b, int bi)
{
    return add_pages(b, bi, EXPECT_CONTINUE);
}

/* One row per BlockKind: how its steps are made and, for blocks that show
** items, what each item trial asks. */
static const struct {
    int (*add)(Builder *b, int bi);
    ItemAskFn ask;
} kind_steps[] = {
    [BLOCK_CONSENT] = {add_consent, NULL},
    [BLOCK_INSTRUCTIONS] = {add_continue_pages, NULL},
    [BLOCK_QUIZ] = {add_quiz, NULL},
    [BLOCK_PRACTICE] = {add_item_block, ask_prediction},
    [BLOCK_LEARN] = {add_item_block, ask_learn},
    [BLOCK_PREDICT] = {add_item_block, ask_prediction},
    [BLOCK_COUNTERFACTUAL] = {add_item_block, ask_counterfactual},
    [BLOCK_RATING] = {add_item_block, ask_rating},
    [BLOCK_BREAK] = {add_continue_pages, NULL},
    [BLOCK_DEBRIEF] = {add_continue_pages, NULL},
    [BLOCK_QUESTIONNAIRE] = {add_questionnaire, NULL},
    [BLOCK_VERIFY] = {add_item_block, ask_verify},
    [BLOCK_DECIDE] = {add_item_block, ask_decide},
};

_Static_assert(sizeof kind_steps / sizeof *kind_steps == BLOCK_KIND_COUNT,
               "one row per BlockKind");

static ItemAskFn item_ask(BlockKind kind)
{
    return kind_steps[kind].ask;
}

/* Adds the steps of block i and numbers them. */
static int add_block(Builder *b, size_t i)
{
    const Block *blk = &b->study->blocks[i];
    size_t first = b->sched->n_trials;
    int rc = (unsigned)blk->kind < BLOCK_KIND_COUNT
                 ? kind_steps[blk->kind].add(b, (int)i)
                 : sim_fail(b->err, SIM_ERR_INVALID, "block '%s': unknown kind",
                            blk->id);
    /* number the block's steps, practice examples included */
    for (size_t k = first; rc == SIM_OK && k < b->sched->n_trials; k++) {
        b->sched->trials[k].index_in_block = (int)(k - first);
        b->sched->trials[k].n_in_block = (int)(b->sched->n_trials - first);
    }
    return rc;
}

/* Within-subject with sessions: session t shows conds[t-1]; blocks outside
** sessions keep the condition of the session before them. */
static int add_sessions(Builder *b, const Condition *const *conds, size_t n)
{
    int rc = SIM_OK;
    for (size_t i = 0; rc == SIM_OK && i < b->study->n_blocks; i++) {
        int t = b->study->blocks[i].session;
        if (t > 0 && (size_t)t <= n) {
            b->condition = conds[t - 1];
        }
        rc = add_block(b, i);
    }
    return rc;
}

/* Within-subject without sessions: the range of study_within_range() once
** per condition, each repetition with items of its own. */
static int add_repeated(Builder *b, const Condition *const *conds, size_t n)
{
    const Study *study = b->study;
    size_t first = 0, last = 0;
    if (!study_within_range(study, &first, &last)) {
        return sim_fail(b->err, SIM_ERR_INVALID,
                        "no block shows items: nothing to repeat per "
                        "condition");
    }
    b->used = sim_calloc(study->n_items ? study->n_items : 1, 1);
    if (!b->used) {
        return sim_fail(b->err, SIM_ERR_NOMEM, "out of memory");
    }
    /* the breaks closing the range pause between conditions: not after
    ** the last one */
    size_t last_items = last;
    while (last_items > first &&
           study->blocks[last_items].kind == BLOCK_BREAK) {
        last_items--;
    }
    int rc = SIM_OK;
    for (size_t i = 0; rc == SIM_OK && i < first; i++) {
        rc = add_block(b, i);
    }
    for (size_t r = 0; rc == SIM_OK && r < n; r++) {
        b->rep = (int)r;
        b->condition = conds[r];
        size_t upto = r + 1 < n ? last : last_items;
        for (size_t i = first; i <= last; i++) { /* fresh choices */
            sim_free(b->chosen[i].idx);
            b->chosen[i].idx = NULL;
            b->chosen[i].n = 0;
        }
        for (size_t i = first; rc == SIM_OK && i <= upto; i++) {
            rc = add_block(b, i);
        }
        for (size_t i = first; rc == SIM_OK && i <= last; i++) {
            for (size_t k = 0; k < b->chosen[i].n; k++) {
                b->used[b->chosen[i].idx[k]] = 1;
            }
        }
    }
    b->rep = 0;
    for (size_t i = last + 1; rc == SIM_OK && i < study->n_blocks; i++) {
        rc = add_block(b, i);
    }
    return rc;
}

/* Builds the schedule of conds[0..n-1]: one condition (within = 0) or a
** within-subject order. */
static int build(const Study *study, const Condition *const *conds, size_t n,
                 int within, uint64_t seed, Schedule **out, SimError *err)
{
    Builder b;
    memset(&b, 0, sizeof b);
    b.study = study;
    b.condition = conds[0];
    b.within = within;
    b.seed = seed;
    b.err = err;
    b.sched = schedule_new(conds[0]->id, seed, 0);
    b.chosen =
        sim_calloc(study->n_blocks ? study->n_blocks : 1, sizeof *b.chosen);
    int rc = (!b.sched || !b.chosen)
                 ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                 : SIM_OK;
    if (rc == SIM_OK && within && study_n_sessions(study) > 0) {
        rc = add_sessions(&b, conds, n);
    } else if (rc == SIM_OK && within) {
        rc = add_repeated(&b, conds, n);
    }
    for (size_t i = 0; rc == SIM_OK && !within && i < study->n_blocks; i++) {
        rc = add_block(&b, i);
    }
    for (size_t i = 0; b.chosen && i < study->n_blocks; i++) {
        sim_free(b.chosen[i].idx);
    }
    sim_free(b.chosen);
    sim_free(b.used);
    if (rc != SIM_OK) {
        schedule_free(b.sched);
        return rc;
    }
    *out = b.sched;
    return SIM_OK;
}

int schedule_build(const Study *study, const char *condition, uint64_t seed,
                   Schedule **out, SimError *err)
{
    *out = NULL;
    const Condition *cond = study_find_condition(study, condition);
    if (!cond) {
        return sim_fail(err, SIM_ERR_INVALID, "unknown condition '%s'",
                        condition);
    }
    return build(study, &cond, 1, 0, seed, out, err);
}

int schedule_build_within(const Study *study, const char *const *order,
                          size_t n_order, uint64_t seed, Schedule **out,
                          SimError *err)
{
    *out = NULL;
    if (n_order == 0) {
        return sim_fail(err, SIM_ERR_INVALID, "no conditions to do");
    }
    const Condition **conds = sim_calloc(n_order, sizeof *conds);
    if (!conds) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = SIM_OK;
    for (size_t k = 0; rc == SIM_OK && k < n_order; k++) {
        conds[k] = study_find_condition(study, order[k]);
        if (!conds[k]) {
            rc = sim_fail(err, SIM_ERR_INVALID, "unknown condition '%s'",
                          order[k]);
        }
    }
    if (rc == SIM_OK) {
        rc = build(study, conds, n_order, 1, seed, out, err);
    }
    sim_free(conds);
    return rc;
}

const char *trial_condition(const Schedule *schedule, const Trial *t)
{
    return t && t->condition ? t->condition : schedule->condition;
}

size_t schedule_reservoir(const Schedule *schedule, const Trial *t,
                          const char **keys, size_t max)
{
    size_t n = 0;
    if (!t || t->reservoir < 0) {
        return 0;
    }
    for (size_t i = 0; i < schedule->n_trials && n < max; i++) {
        const Trial *r = &schedule->trials[i];
        if (r->block == t->reservoir && r->item_key && !r->is_example &&
            strcmp(trial_condition(schedule, r),
                   trial_condition(schedule, t)) == 0) {
            keys[n++] = r->item_key;
        }
    }
    return n;
}
