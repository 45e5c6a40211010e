/*
** Presets: a named protocol ("protocol": {"preset": NAME, ...}) expanded
** into blocks, with the parameters each preset accepts. The preset table at
** the end is the one list of presets. libc and jansson only.
*/
#include "stimuli/preset.h"
#include "stimuli/loader.h"
#include "stimuli/items_int.h"
#include "stimuli/blocks.h"
#include "stimuli/designctx.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* consent + instructions (+ quiz) at the start of a preset */
static void preset_opening(Design *D, const JLoc *proto, int with_quiz)
{
    Loader *L = D->L;
    if (D->consent) {
        Block *b = block_new(D, BLOCK_CONSENT, "consent", &D->pages_at);
        if (b) {
            design_set_pages(D, b, &D->consent, 1);
        }
    } else {
        jl_warn(L, &D->pages_at, "consent",
                "no consent page: the preset runs without a consent screen");
    }
    if (D->n_instr) {
        Block *b =
            block_new(D, BLOCK_INSTRUCTIONS, "instructions", &D->pages_at);
        if (b) {
            design_set_pages(D, b, D->instr, D->n_instr);
        }
    } else {
        jl_warn(L, &D->pages_at, "instructions",
                "no instructions page: the preset runs without instructions");
    }
    if (with_quiz && D->has_quiz) {
        Block *b = block_new(D, BLOCK_QUIZ, "quiz", proto);
        if (b) {
            block_copy_quiz(D, b);
        }
    }
}

static void preset_debrief(Design *D)
{
    if (D->debrief) {
        Block *b = block_new(D, BLOCK_DEBRIEF, "debrief", &D->pages_at);
        if (b) {
            design_set_pages(D, b, &D->debrief, 1);
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
        if (strcmp(key, "preset") == 0 || jkey_free(key)) {
            continue;
        }
        Param *p = param(ps, key);
        if (!p && strcmp(key, "rating") == 0) {
            /* a rating the preset never asks: the study still runs as
            ** written, but the author expected ratings */
            jl_warn(L, at, key, "preset '%s' never asks a rating (ignored)",
                    L->st->preset);
            continue;
        }
        if (!p) {
            const char *known[32] = {"preset"};
            size_t n = 1;
            for (Param *q = ps; q->name && n + 1 < 32; q++) {
                known[n++] = q->name;
            }
            known[n] = NULL;
            char what[64];
            snprintf(what, sizeof what, "preset '%s'", L->st->preset);
            junknown_key(L, at, proto, key, known, what);
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
    Block *b = block_new(D, kind, id, proto);
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
            block_set_phase(D, pre, SIM_PHASE_PRE);
            pre->show = (ShowSpec){show_label, 1, 0, 0};
        }
        Block *post = item_block(D, BLOCK_COUNTERFACTUAL, "post", at, test_pool,
                                 "test_pool", n_test, "n_test");
        if (post) {
            block_set_phase(D, post, SIM_PHASE_POST);
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
            block_set_phase(D, b, SIM_PHASE_PRE);
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
            block_set_phase(D, b, SIM_PHASE_POST);
            b->same_items_as = ld_strdup(L, "pre");
        }
    }
    preset_debrief(D);
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
            if (items_pool_size(L->st, ptrain) > 0) {
                b->train_pool = ld_strdup(L, ptrain);
                D->src[L->st->n_blocks - 1].train_key = "practice_train_pool";
            } else if (json_object_get(proto, "practice_train_pool")) {
                jl_error(L, at, "practice_train_pool", "pool '%s' has no items",
                         ptrain);
            }
        }
    }
    if (D->has_quiz) {
        Block *b = block_new(D, BLOCK_QUIZ, "quiz", at);
        if (b) {
            block_copy_quiz(D, b);
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
            Block *b = block_new(D, BLOCK_BREAK, id, at);
            if (b) {
                b->text = ld_strdup(L, "Take a short break. Continue when "
                                       "you are ready.");
            }
        }
        snprintf(id, sizeof id, "s%d-train", t);
        Block *b = item_block(D, BLOCK_LEARN, id, at, train_pool, "train_pool",
                              n_train, "n_train");
        if (b) {
            block_set_phase(D, b, SIM_PHASE_TRAIN);
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
            block_set_phase(D, b, SIM_PHASE_TEST);
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

static void expand_hase_forward(Design *D, const JLoc *at, json_t *proto)
{
    expand_hase(D, at, proto, 0);
}

static void expand_hase_counterfactual(Design *D, const JLoc *at, json_t *proto)
{
    expand_hase(D, at, proto, 1);
}

/* Error detection: examples to learn from (the input, the model's output,
** its explanation and the true label), then verify trials: the model's
** output and, per condition, its explanation; the participant accepts or
** rejects it. confidence: the points of the scale asked after the answer
** by default (0: none). */
static void expand_verify(Design *D, const JLoc *at, json_t *proto,
                          int n_learn_default, int n_test_default,
                          int confidence)
{
    Loader *L = D->L;
    Param ps[] = {{"learn_pool", 0, "learn", 0},
                  {"n_learn", 1, NULL, n_learn_default},
                  {"test_pool", 0, "test", 0},
                  {"n_test", 1, NULL, n_test_default},
                  {"n_catch", 1, NULL, 0},
                  {"confidence_points", 1, NULL, confidence},
                  {"time_limit_ms", 1, NULL, 0},
                  {NULL, 0, NULL, 0}};
    read_params(D, at, proto, ps);
    const char *learn_pool = param(ps, "learn_pool")->s;
    int n_learn = param(ps, "n_learn")->i;
    int n_catch = param(ps, "n_catch")->i;
    int points = param(ps, "confidence_points")->i;
    int limit = param(ps, "time_limit_ms")->i;
    if (points == 1 || points > 11) {
        jl_error(L, at, "confidence_points",
                 "%d: give 2..11 points, or 0 for no confidence", points);
        points = 0;
    }
    if (limit != 0 && (limit < 100 || limit > 600000)) {
        jl_error(L, at, "time_limit_ms", "%d is outside [100, 600000]", limit);
        limit = 0;
    }
    if (n_catch > 0 && n_learn == 0) {
        jl_error(L, at, "n_catch",
                 "catch trials show learned examples again: set n_learn");
    }
    L->st->test_type = ld_strdup(L, "verify");
    preset_opening(D, at, 1);
    if (n_learn > 0) {
        Block *b = item_block(D, BLOCK_LEARN, "learn", at, learn_pool,
                              "learn_pool", n_learn, "n_learn");
        if (b) {
            b->show = (ShowSpec){1, 1, 1, 0};
        }
    }
    Block *b =
        item_block(D, BLOCK_VERIFY, "verify", at, param(ps, "test_pool")->s,
                   "test_pool", param(ps, "n_test")->i, "n_test");
    if (b) {
        b->confidence.points = points;
        b->time_limit_ms = limit;
        b->n_catch = n_catch;
        if (n_catch > 0 && n_learn > 0) {
            b->reservoir = ld_strdup(L, "learn");
        }
    }
    preset_debrief(D);
}

/* HIVE's distinction task (Kim et al., ECCV 2022): each test item offers
** its candidate classes ("options", HIVE's four), each shown with its own
** explanation ("per_option"); the participant picks the one the model
** predicted. Optional practice items with feedback first. */
static void expand_hive_distinction(Design *D, const JLoc *at, json_t *proto)
{
    Loader *L = D->L;
    Param ps[] = {
        {"test_pool", 0, "test", 0},     {"n_test", 1, NULL, BLOCK_N_ALL},
        {"practice_pool", 0, NULL, 0},   {"n_practice", 1, NULL, BLOCK_N_ALL},
        {"shuffle_options", 2, NULL, 1}, {NULL, 0, NULL, 0}};
    read_params(D, at, proto, ps);
    int shuffle = param(ps, "shuffle_options")->i;
    L->st->test_type = ld_strdup(L, "forward");
    preset_opening(D, at, 1);
    const char *practice = param(ps, "practice_pool")->s;
    if (practice) {
        Block *b = item_block(D, BLOCK_PRACTICE, "practice", at, practice,
                              "practice_pool", param(ps, "n_practice")->i,
                              "n_practice");
        if (b) {
            b->show = (ShowSpec){0, 0, 1, 0};
            b->feedback = 1;
            b->options_shuffle = shuffle;
        }
    }
    Block *b =
        item_block(D, BLOCK_PREDICT, "test", at, param(ps, "test_pool")->s,
                   "test_pool", param(ps, "n_test")->i, "n_test");
    if (b) {
        b->show = (ShowSpec){0, 0, 1, 0};
        b->options_shuffle = shuffle;
    }
    preset_debrief(D);
}

/* Nguyen et al. 2022: a few examples, then accept or reject. */
static void expand_accept_reject(Design *D, const JLoc *at, json_t *proto)
{
    expand_verify(D, at, proto, 5, 30, 0);
}

/* HIVE's agreement task: one prediction with its explanation, and how
** confident the participant is that it is right (4 points). */
static void expand_hive_agreement(Design *D, const JLoc *at, json_t *proto)
{
    expand_verify(D, at, proto, 0, 10, 4);
}

static const PresetDesc presets[] = {
    {"hase-forward", expand_hase_forward, 0, BALANCE_HASE},
    {"hase-counterfactual", expand_hase_counterfactual, 0, BALANCE_HASE_CF},
    {"meta-predictor", expand_meta, 1, BALANCE_META},
    {"accept-reject", expand_accept_reject, 0, BALANCE_NONE},
    {"hive-agreement", expand_hive_agreement, 0, BALANCE_NONE},
    {"hive-distinction", expand_hive_distinction, 0, BALANCE_NONE},
};

const PresetDesc *preset_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof presets / sizeof *presets; i++) {
        if (strcmp(name, presets[i].name) == 0) {
            return &presets[i];
        }
    }
    return NULL;
}

int preset_expand(Design *D, const JLoc *pl, json_t *proto, const char *name)
{
    const PresetDesc *p = preset_find(name);
    if (!p) {
        return -1;
    }
    p->expand(D, pl, proto);
    return 0;
}
void preset_list(char *out, size_t size)
{
    size_t len = 0;
    if (size > 0) {
        out[0] = '\0';
    }
    for (size_t i = 0; i < sizeof presets / sizeof *presets && len < size;
         i++) {
        int w = snprintf(out + len, size - len, "%s%s", i ? ", " : "",
                         presets[i].name);
        len += w > 0 ? (size_t)w : 0;
    }
}
