/*
** Schedules: structure of the three presets, determinism, data matching
** (same items for everyone), fresh orders, new samples per session, catch
** trials from the session's reservoir; what the steps of every block kind
** ask.
*/
#include "tests/harness.h"
#include "experiment/schedule.h"
#include "stimuli/study.h"

#include <stdlib.h>
#include <string.h>

static Study *load_dir(const char *dir);

static Study *load(const char *name)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/experiment/%s", SIMLAB_TEST_DATA, name);
    return load_dir(dir);
}

static Study *load_dir(const char *dir)
{
    Study *study = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    if (study_load(dir, &study, &rep, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
        for (size_t i = 0; i < rep.n_errors; i++) {
            fprintf(stderr, "  %s:%d: %s\n", rep.errors[i].file,
                    rep.errors[i].line, rep.errors[i].message);
        }
    }
    study_report_free(&rep);
    return study;
}

static int count_block(const Study *st, const Schedule *s, const char *id)
{
    int n = 0;
    for (size_t i = 0; i < s->n_trials; i++) {
        n += strcmp(st->blocks[s->trials[i].block].id, id) == 0;
    }
    return n;
}

/* Sorted keys of the (non-catch, non-example) items of a block. */
static int block_keys(const Study *st, const Schedule *s, const char *id,
                      const char **keys, int max)
{
    int n = 0;
    for (size_t i = 0; i < s->n_trials && n < max; i++) {
        const Trial *t = &s->trials[i];
        if (strcmp(st->blocks[t->block].id, id) == 0 && t->item_key &&
            !t->is_catch && !t->is_example) {
            keys[n++] = t->item_key;
        }
    }
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int same_set(const char **a, int na, const char **b, int nb)
{
    if (na != nb) {
        return 0;
    }
    const char *x[128], *y[128];
    memcpy(x, a, (size_t)na * sizeof *x);
    memcpy(y, b, (size_t)nb * sizeof *y);
    qsort(x, (size_t)na, sizeof *x, cmp_str);
    qsort(y, (size_t)nb, sizeof *y, cmp_str);
    for (int i = 0; i < na; i++) {
        if (strcmp(x[i], y[i]) != 0) {
            return 0;
        }
    }
    return 1;
}

static int same_order(const char **a, const char **b, int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(a[i], b[i]) != 0) {
            return 0;
        }
    }
    return 1;
}

static void test_forward(void)
{
    Study *st = load("mini-forward");
    CHECK(st != NULL);
    if (!st) {
        return;
    }
    Schedule *a = NULL, *b = NULL, *c = NULL, *base = NULL;
    SimError err;
    CHECK_INT(schedule_build(st, "LIME", 11, &a, &err), SIM_OK);
    CHECK_INT(schedule_build(st, "LIME", 11, &b, &err), SIM_OK);
    CHECK_INT(schedule_build(st, "LIME", 12, &c, &err), SIM_OK);
    CHECK_INT(schedule_build(st, "baseline", 11, &base, &err), SIM_OK);
    Schedule *none = NULL;
    CHECK_INT(schedule_build(st, "nope", 11, &none, &err) != SIM_OK, 1);
    CHECK(none == NULL);
    if (!a || !b || !c) {
        study_free(st);
        return;
    }
    /* consent, instructions, quiz(1), learn1 4, pre 8, learn2 4, post 8,
    ** debrief */
    CHECK_INT(a->n_trials, 1 + 1 + 1 + 4 + 8 + 4 + 8 + 1);
    CHECK_INT(count_block(st, a, "learn1"), 4);
    CHECK_INT(count_block(st, a, "pre"), 8);
    CHECK_INT(count_block(st, a, "learn2"), 4);
    CHECK_INT(count_block(st, a, "post"), 8);
    CHECK_INT(a->trials[0].expects, EXPECT_ACCEPT);

    /* same seed, same schedule */
    int identical = a->n_trials == b->n_trials;
    for (size_t i = 0; identical && i < a->n_trials; i++) {
        const char *x = a->trials[i].item_key, *y = b->trials[i].item_key;
        identical = (!x && !y) || (x && y && strcmp(x, y) == 0);
    }
    CHECK(identical);

    const char *pre[64], *post[64], *pre_c[64], *l1[64], *l2[64];
    int n_pre = block_keys(st, a, "pre", pre, 64);
    int n_post = block_keys(st, a, "post", post, 64);
    int n_pre_c = block_keys(st, c, "pre", pre_c, 64);
    CHECK(same_set(pre, n_pre, post, n_post));   /* Pre and Post match */
    CHECK(!same_order(pre, post, n_pre));        /* freshly shuffled */
    CHECK(same_set(pre, n_pre, pre_c, n_pre_c)); /* data matching */
    CHECK(!same_order(pre, pre_c, n_pre));       /* per-participant order */
    int n_l1 = block_keys(st, a, "learn1", l1, 64);
    int n_l2 = block_keys(st, a, "learn2", l2, 64);
    CHECK(same_set(l1, n_l1, l2, n_l2));

    for (size_t i = 0; i < a->n_trials; i++) {
        const Trial *t = &a->trials[i];
        const Block *blk = &st->blocks[t->block];
        const Item *it = t->item_key ? study_find_item(st, t->item_key) : NULL;
        if (blk->kind == BLOCK_PREDICT) {
            CHECK(it && strcmp(it->pool, "test") == 0);
            CHECK(it && t->correct_choice == it->prediction);
            CHECK_INT(t->expects, EXPECT_CHOICE);
            CHECK(!t->show.explanation && !t->show.prediction);
        }
        if (strcmp(blk->id, "learn1") == 0) {
            CHECK(t->show.label && t->show.prediction && !t->show.explanation);
            CHECK_INT(t->expects, EXPECT_CONTINUE);
        }
        if (strcmp(blk->id, "learn2") == 0) {
            CHECK(t->show.explanation);
            CHECK_INT(t->expects, EXPECT_RATING);
        }
    }
    /* the baseline condition has no explanation, so nothing to rate */
    for (size_t i = 0; base && i < base->n_trials; i++) {
        const Trial *t = &base->trials[i];
        if (strcmp(st->blocks[t->block].id, "learn2") == 0) {
            CHECK(!t->show.explanation);
            CHECK_INT(t->expects, EXPECT_CONTINUE);
        }
    }
    schedule_free(a);
    schedule_free(b);
    schedule_free(c);
    schedule_free(base);
    study_free(st);
}

static void test_counterfactual(void)
{
    Study *st = load("mini-counterfactual");
    CHECK(st != NULL);
    if (!st) {
        return;
    }
    Schedule *a = NULL;
    SimError err;
    CHECK_INT(schedule_build(st, "LIME", 5, &a, &err), SIM_OK);
    int n_cf = 0;
    for (size_t i = 0; a && i < a->n_trials; i++) {
        const Trial *t = &a->trials[i];
        const Block *blk = &st->blocks[t->block];
        if (blk->kind != BLOCK_COUNTERFACTUAL) {
            continue;
        }
        n_cf++;
        const Item *it = study_find_item(st, t->item_key);
        CHECK(it && it->cf);
        if (it && it->cf) {
            CHECK_INT(t->correct_choice, it->cf->prediction);
        }
        CHECK_STR(t->test_type, "counterfactual");
        if (strcmp(blk->id, "post") == 0) {
            CHECK(t->show.explanation);
            CHECK_INT(t->expects, EXPECT_CHOICE_RATING);
        } else {
            CHECK(!t->show.explanation);
            CHECK_INT(t->expects, EXPECT_CHOICE);
        }
    }
    CHECK_INT(n_cf, 16);
    schedule_free(a);
    study_free(st);
}

static void test_meta(void)
{
    Study *st = load("mini-meta");
    CHECK(st != NULL);
    if (!st) {
        return;
    }
    Schedule *a = NULL, *b = NULL;
    SimError err;
    CHECK_INT(schedule_build(st, "grad", 3, &a, &err), SIM_OK);
    CHECK_INT(schedule_build(st, "baseline", 4, &b, &err), SIM_OK);
    if (!a || !b) {
        study_free(st);
        return;
    }
    const char *seen_train[64], *seen_test[64];
    int n_train = 0, n_test = 0;
    for (int t = 1; t <= 3; t++) {
        char train_id[16], test_id[16];
        snprintf(train_id, sizeof train_id, "s%d-train", t);
        snprintf(test_id, sizeof test_id, "s%d-test", t);
        const char *tr[16], *te[16], *tr_b[16], *te_b[16];
        int ntr = block_keys(st, a, train_id, tr, 16);
        int nte = block_keys(st, a, test_id, te, 16);
        CHECK_INT(ntr, 5);
        CHECK_INT(nte, 7);
        CHECK_INT(count_block(st, a, test_id), 8); /* + 1 catch */
        CHECK(same_set(tr, ntr, tr_b, block_keys(st, b, train_id, tr_b, 16)));
        CHECK(same_set(te, nte, te_b, block_keys(st, b, test_id, te_b, 16)));
        /* new samples every session */
        for (int i = 0; i < ntr; i++) {
            for (int j = 0; j < n_train; j++) {
                CHECK(strcmp(tr[i], seen_train[j]) != 0);
            }
        }
        for (int i = 0; i < nte; i++) {
            for (int j = 0; j < n_test; j++) {
                CHECK(strcmp(te[i], seen_test[j]) != 0);
            }
        }
        memcpy(seen_train + n_train, tr, (size_t)ntr * sizeof *tr);
        memcpy(seen_test + n_test, te, (size_t)nte * sizeof *te);
        n_train += ntr;
        n_test += nte;
        /* the catch trial repeats one of this session's training items */
        int catches = 0;
        for (size_t i = 0; i < a->n_trials; i++) {
            const Trial *x = &a->trials[i];
            if (strcmp(st->blocks[x->block].id, test_id) != 0) {
                continue;
            }
            CHECK(x->show.reservoir);
            CHECK(!x->show.explanation);
            CHECK(x->reservoir >= 0 &&
                  strcmp(st->blocks[x->reservoir].id, train_id) == 0);
            if (x->is_catch) {
                catches++;
                int in_res = 0;
                for (int k = 0; k < ntr; k++) {
                    in_res |= strcmp(tr[k], x->item_key) == 0;
                }
                CHECK(in_res);
                CHECK(x->index_in_block > 0);
                const char *res[64];
                size_t nres = schedule_reservoir(a, x, res, 64);
                CHECK_INT(nres, 5);
            }
        }
        CHECK_INT(catches, 1);
    }
    /* training shows the explanation to 'grad', never the label */
    for (size_t i = 0; i < a->n_trials; i++) {
        const Trial *x = &a->trials[i];
        if (st->blocks[x->block].kind == BLOCK_LEARN) {
            CHECK(x->show.explanation && x->show.prediction && !x->show.label);
        }
    }
    /* practice examples, then 5 practice questions with feedback */
    int examples = 0, questions = 0;
    for (size_t i = 0; i < a->n_trials; i++) {
        const Trial *x = &a->trials[i];
        if (st->blocks[x->block].kind == BLOCK_PRACTICE) {
            examples += x->is_example;
            questions += !x->is_example;
        }
    }
    CHECK_INT(questions, 5);
    CHECK(examples >= 1);
    /* every step knows its place in its block, practice examples too */
    int misplaced = 0, pos = 0;
    for (size_t i = 0; i < a->n_trials; i++) {
        const Trial *x = &a->trials[i];
        pos = i > 0 && a->trials[i - 1].block == x->block ? pos + 1 : 0;
        misplaced +=
            x->index_in_block != pos ||
            x->n_in_block != count_block(st, a, st->blocks[x->block].id);
    }
    CHECK_INT(misplaced, 0);
    schedule_free(a);
    schedule_free(b);
    study_free(st);
}

/* What the steps of each block kind ask (without, and with, a rating of a
** shown explanation) and the test type they record. One row per BlockKind,
** in enum order. */
static const struct {
    Expect plain, rated;
    const char *test_type;
} kind_asks[] = {
    [BLOCK_CONSENT] = {EXPECT_ACCEPT, EXPECT_ACCEPT, NULL},
    [BLOCK_INSTRUCTIONS] = {EXPECT_CONTINUE, EXPECT_CONTINUE, NULL},
    [BLOCK_QUIZ] = {EXPECT_OPTION, EXPECT_OPTION, NULL},
    [BLOCK_PRACTICE] = {EXPECT_CHOICE, EXPECT_CHOICE, "forward"},
    [BLOCK_LEARN] = {EXPECT_CONTINUE, EXPECT_RATING, "forward"},
    [BLOCK_PREDICT] = {EXPECT_CHOICE, EXPECT_CHOICE, "forward"},
    [BLOCK_COUNTERFACTUAL] = {EXPECT_CHOICE, EXPECT_CHOICE_RATING,
                              "counterfactual"},
    [BLOCK_RATING] = {EXPECT_RATING, EXPECT_RATING, "forward"},
    [BLOCK_BREAK] = {EXPECT_CONTINUE, EXPECT_CONTINUE, NULL},
    [BLOCK_DEBRIEF] = {EXPECT_CONTINUE, EXPECT_CONTINUE, NULL},
    [BLOCK_QUESTIONNAIRE] = {EXPECT_ANSWERS, EXPECT_ANSWERS, NULL},
    [BLOCK_VERIFY] = {EXPECT_CHOICE, EXPECT_CHOICE, "verify"},
    [BLOCK_DECIDE] = {EXPECT_CHOICE, EXPECT_CHOICE, "decide"},
};

_Static_assert(sizeof kind_asks / sizeof *kind_asks == BLOCK_KIND_COUNT,
               "a row for every block kind");

/* Every step of st's schedules (for each condition) asks what its block's
** kind asks; seen[k] counts the steps of kind k. */
static void check_kind_asks(const Study *st, int *seen)
{
    for (size_t c = 0; c < st->n_conditions; c++) {
        Schedule *s = NULL;
        SimError err;
        CHECK_INT(schedule_build(st, st->conditions[c].id, 5, &s, &err),
                  SIM_OK);
        for (size_t i = 0; s && i < s->n_trials; i++) {
            const Trial *t = &s->trials[i];
            const Block *b = &st->blocks[t->block];
            if (t->is_example) {
                CHECK_INT(t->expects, EXPECT_CONTINUE);
                continue;
            }
            int rated = b->rating && t->show.explanation;
            Expect want =
                rated ? kind_asks[b->kind].rated : kind_asks[b->kind].plain;
            if (t->expects != want) {
                fprintf(stderr, "%s: block '%s' (%s): expects %s, not %s\n",
                        st->id, b->id, block_kind_name(b->kind),
                        expect_name(t->expects), expect_name(want));
            }
            CHECK_INT(t->expects, want);
            const char *type = kind_asks[b->kind].test_type;
            CHECK(type ? t->test_type && strcmp(t->test_type, type) == 0
                       : t->test_type == NULL);
            CHECK_INT(t->item_key != NULL, block_kind_shows_items(b->kind));
            seen[b->kind]++;
        }
        schedule_free(s);
    }
}

static void test_every_kind(void)
{
    int seen[BLOCK_KIND_COUNT] = {0};
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bundles/valid-all", SIMLAB_TEST_DATA);
    Study *all = load_dir(dir);
    Study *meta = load("mini-meta");
    CHECK(all && meta);
    if (all) {
        check_kind_asks(all, seen);
    }
    if (meta) {
        check_kind_asks(meta, seen);
    }
    Study *quest = load("mini-questionnaire");
    CHECK(quest != NULL);
    if (quest) {
        check_kind_asks(quest, seen);
    }
    study_free(quest);
    Study *verify = load("mini-verify");
    CHECK(verify != NULL);
    if (verify) {
        check_kind_asks(verify, seen);
    }
    study_free(verify);
    /* the fixtures have a block of every kind */
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        if (!seen[k]) {
            fprintf(stderr, "no fixture block of kind %s\n",
                    block_kind_name((BlockKind)k));
        }
        CHECK(seen[k] > 0);
    }
    study_free(all);
    study_free(meta);
}

int main(void)
{
    test_forward();
    test_counterfactual();
    test_meta();
    test_every_kind();
    return TEST_REPORT();
}
