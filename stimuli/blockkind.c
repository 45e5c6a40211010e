/*
** The block kinds: one row per BlockKind with its name in study.json, the
** groups of fields it accepts, its default phase, what its trials show and
** the test it is. Names, the fields a kind accepts and the kind lists that
** error messages quote all come from this table. libc and jansson only.
*/
#include "stimuli/study_int.h"

#include <stdio.h>
#include <string.h>

/* clang-format off */
static const BlockKindDesc kinds[] = {
    /* name             fields                   phase               show: label, prediction, explanation, reservoir; rating; test */
    {"consent",         BF_PAGES,                SIM_PHASE_NONE,     {0, 0, 0, 0}, 0, BTEST_NONE},
    {"instructions",    BF_PAGES,                SIM_PHASE_NONE,     {0, 0, 0, 0}, 0, BTEST_NONE},
    {"quiz",            BF_QUESTIONS,            SIM_PHASE_QUIZ,     {0, 0, 0, 0}, 0, BTEST_NONE},
    {"practice",        BF_ITEMS | BF_PRACTICE,  SIM_PHASE_PRACTICE, {0, 0, 0, 0}, 0, BTEST_NONE},
    {"learn",           BF_ITEMS | BF_RATING,    SIM_PHASE_LEARN,    {1, 1, 1, 0}, 0, BTEST_NONE},
    {"predict",         BF_ITEMS | BF_CATCH,     SIM_PHASE_TEST,     {0, 0, 0, 0}, 0, BTEST_FORWARD},
    {"counterfactual",  BF_ITEMS | BF_RATING,    SIM_PHASE_TEST,     {1, 1, 0, 0}, 0, BTEST_COUNTERFACTUAL},
    {"rating",          BF_ITEMS | BF_RATING | BF_EXPLAINS,
                                                 SIM_PHASE_LEARN,    {0, 1, 1, 0}, 1, BTEST_NONE},
    {"break",           0,                       SIM_PHASE_NONE,     {0, 0, 0, 0}, 0, BTEST_NONE},
    {"debrief",         BF_PAGES,                SIM_PHASE_NONE,     {0, 0, 0, 0}, 0, BTEST_NONE},
};
/* clang-format on */

_Static_assert(sizeof kinds / sizeof *kinds == BLOCK_KIND_COUNT,
               "one row per BlockKind");

/* The keys of each group of fields, in the order errors list them. */
static const char *const common_keys[] = {
    "kind", "id", "phase", "session", "title", "text", "min_seconds", NULL};
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
    jwarn_unknown(L, at, o, known);
}
