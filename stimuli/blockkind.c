/*
** The block kinds: one row per BlockKind with its name in study.json, the
** groups of fields it accepts, its default phase, what its trials show and
** the test it is. Names, the fields a kind accepts and the kind lists that
** error messages quote all come from this table. libc and jansson only.
*/
#include "stimuli/blockkind.h"
#include "stimuli/loader.h"

#include <stdio.h>
#include <string.h>

/* One row per BlockKind. Unset: nothing shown by default, no rating, no
** test. */
static const BlockKindDesc kinds[] = {
    [BLOCK_CONSENT] = {.name = "consent",
                       .fields = BF_PAGES,
                       .phase = SIM_PHASE_NONE},
    [BLOCK_INSTRUCTIONS] = {.name = "instructions",
                            .fields = BF_PAGES,
                            .phase = SIM_PHASE_NONE},
    [BLOCK_QUIZ] = {.name = "quiz",
                    .fields = BF_QUESTIONS,
                    .phase = SIM_PHASE_QUIZ},
    [BLOCK_PRACTICE] = {.name = "practice",
                        .fields = BF_ITEMS | BF_PRACTICE | BF_OPTIONS,
                        .phase = SIM_PHASE_PRACTICE},
    [BLOCK_LEARN] = {.name = "learn",
                     .fields = BF_ITEMS | BF_RATING,
                     .phase = SIM_PHASE_LEARN,
                     .show = {.label = 1, .prediction = 1, .explanation = 1}},
    [BLOCK_PREDICT] = {.name = "predict",
                       .fields = BF_ITEMS | BF_CATCH | BF_DEADLINE | BF_OPTIONS,
                       .phase = SIM_PHASE_TEST,
                       .test = BTEST_FORWARD},
    [BLOCK_COUNTERFACTUAL] = {.name = "counterfactual",
                              .fields =
                                  BF_ITEMS | BF_RATING | BF_CATCH | BF_DEADLINE,
                              .phase = SIM_PHASE_TEST,
                              .show = {.label = 1, .prediction = 1},
                              .test = BTEST_COUNTERFACTUAL},
    [BLOCK_RATING] = {.name = "rating",
                      .fields = BF_ITEMS | BF_RATING | BF_EXPLAINS,
                      .phase = SIM_PHASE_LEARN,
                      .show = {.prediction = 1, .explanation = 1},
                      .rating = 1},
    [BLOCK_BREAK] = {.name = "break",
                     .fields = BF_ONCE,
                     .phase = SIM_PHASE_NONE},
    [BLOCK_DEBRIEF] = {.name = "debrief",
                       .fields = BF_PAGES,
                       .phase = SIM_PHASE_NONE},
    [BLOCK_QUESTIONNAIRE] = {.name = "questionnaire",
                             .fields = BF_SURVEY | BF_ONCE,
                             .phase = SIM_PHASE_NONE},
    [BLOCK_VERIFY] = {.name = "verify",
                      .fields = BF_ITEMS | BF_CATCH | BF_DEADLINE | BF_VERDICT,
                      .phase = SIM_PHASE_TEST,
                      .show = {.prediction = 1, .explanation = 1},
                      .test = BTEST_VERIFY},
    [BLOCK_DECIDE] = {.name = "decide",
                      .fields = BF_ITEMS | BF_CATCH | BF_DEADLINE | BF_OPTIONS,
                      .phase = SIM_PHASE_TEST,
                      .show = {.prediction = 1, .explanation = 1},
                      .test = BTEST_DECIDE},
};

_Static_assert(sizeof kinds / sizeof *kinds == BLOCK_KIND_COUNT,
               "one row per BlockKind");

/* The keys of each group of fields, in the order errors list them. */
static const char *const common_keys[] = {
    "kind", "id",          "phase",          "session", "title",
    "text", "min_seconds", "require_scroll", NULL};
static const struct {
    unsigned group;
    const char *const *keys; /* NULL-terminated */
} groups[] = {
    {BF_ITEMS,
     (const char *const[]){"pool", "n", "same_items_as", "exclude_items_of",
                           "order", "draw", "show", NULL}},
    {BF_RATING, (const char *const[]){"rating", NULL}},
    {BF_PRACTICE,
     (const char *const[]){"feedback", "retry", "train_pool", "n_train", NULL}},
    {BF_CATCH, (const char *const[]){"catch", "reservoir", NULL}},
    {BF_PAGES, (const char *const[]){"pages", NULL}},
    {BF_QUESTIONS,
     (const char *const[]){"questions", "repeat_until_correct", NULL}},
    {BF_SURVEY, (const char *const[]){"questions", NULL}},
    {BF_DEADLINE,
     (const char *const[]){"time_limit_ms", "timeout_message",
                           "deadline_display", "confidence", NULL}},
    {BF_ONCE, (const char *const[]){"once", NULL}},
    {BF_VERDICT, (const char *const[]){"keys", NULL}},
    {BF_OPTIONS, (const char *const[]){"options_order", NULL}},
};
static const char *const no_keys[] = {NULL};

const BlockKindDesc *block_kind_desc(BlockKind k)
{
    return &kinds[(unsigned)k < BLOCK_KIND_COUNT ? k : 0];
}

const char *block_kind_name(BlockKind k)
{
    return (unsigned)k < BLOCK_KIND_COUNT ? kinds[k].name : "?";
}

int block_kind_from_name(const char *name)
{
    for (int k = 0; name && k < BLOCK_KIND_COUNT; k++) {
        if (strcmp(name, kinds[k].name) == 0) {
            return k;
        }
    }
    return -1;
}

int block_kind_shows_items(BlockKind k)
{
    return (unsigned)k < BLOCK_KIND_COUNT && (kinds[k].fields & BF_ITEMS);
}

int block_kind_offers_options(BlockKind k)
{
    return (unsigned)k < BLOCK_KIND_COUNT && (kinds[k].fields & BF_OPTIONS);
}

const char *const *block_group_keys(unsigned group)
{
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        if (groups[g].group == group) {
            return groups[g].keys;
        }
    }
    return no_keys;
}

void block_kind_list(unsigned fields, const char *sep, const char *last,
                     char *out, size_t size)
{
    const char *names[BLOCK_KIND_COUNT];
    size_t n = 0, len = 0;
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        if ((kinds[k].fields & fields) == fields) {
            names[n++] = kinds[k].name;
        }
    }
    if (size > 0) {
        out[0] = '\0';
    }
    for (size_t i = 0; i < n && len < size; i++) {
        int w = snprintf(out + len, size - len, "%s%s",
                         i == 0 ? "" : (i + 1 == n ? last : sep), names[i]);
        len += w > 0 ? (size_t)w : 0;
    }
}

void block_warn_unknown(Loader *L, const JLoc *at, json_t *o)
{
    const char *known[64];
    size_t n = 0;
    for (size_t i = 0; common_keys[i]; i++) {
        known[n++] = common_keys[i];
    }
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        for (size_t i = 0; groups[g].keys[i] && n + 1 < 64; i++) {
            known[n++] = groups[g].keys[i];
        }
    }
    known[n] = NULL;
    jreject_unknown(L, at, o, known);
}
