/*
** The block kinds as data (blockkind.c): one row per kind with its name,
** the groups of fields it accepts, its default phase and show, and the test
** it is. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_BLOCKKIND_H
#define SIMLAB_STIMULI_BLOCKKIND_H

#include <jansson.h>
#include <stddef.h>

#include "stimuli/loader.h"

/* Groups of the fields of a block in study.json. A kind's row names the
** groups it accepts; the keys of each group are listed once, in
** blockkind.c. */
enum {
    BF_ITEMS = 1u << 0,     /* pool, n, same_items_as, exclude_items_of,
                               order, draw, show: shows items of a pool */
    BF_RATING = 1u << 1,    /* rating: asks the rating of the explanation */
    BF_PRACTICE = 1u << 2,  /* feedback, retry, train_pool, n_train */
    BF_CATCH = 1u << 3,     /* catch, reservoir */
    BF_PAGES = 1u << 4,     /* pages */
    BF_QUESTIONS = 1u << 5, /* questions (repeat_until_correct) */
    BF_EXPLAINS = 1u << 6,  /* always shows the condition's explanation
                               (not a field: its items need payloads) */
    BF_SURVEY = 1u << 7,    /* questions of a questionnaire (questionnaire.c) */
    BF_DEADLINE = 1u << 8,  /* time_limit_ms, timeout_message, confidence */
    BF_ONCE = 1u << 9,      /* once: shown once after the repeated blocks of
                               a within-subject study, on purpose */
    BF_VERDICT = 1u << 10,  /* keys of the two answers of a verify block */
    BF_OPTIONS = 1u << 11   /* options_order: an item's own "options" are
                               its answers (keys 1-9 per option) */
};

/* What a test block asks (the study's test type, for the export). */
typedef enum BlockTest {
    BTEST_NONE = 0,
    BTEST_FORWARD = 1,        /* predict the model on the input */
    BTEST_COUNTERFACTUAL = 2, /* predict it on the perturbation */
    BTEST_VERIFY = 3,         /* is the model's output right? */
    BTEST_DECIDE = 4          /* the task itself, with the model's advice */
} BlockTest;

/* One row of the block kind table. */
typedef struct BlockKindDesc {
    const char *name; /* "kind" in study.json */
    unsigned fields;  /* BF_* */
    SimPhase phase;   /* default phase */
    ShowSpec show;    /* what a trial shows unless "show" says else */
    int rating;       /* asks the rating unless "rating" says else */
    BlockTest test;   /* the test it is, if any */
} BlockKindDesc;

/* The row of kind k (k must be a BlockKind). */
const BlockKindDesc *block_kind_desc(BlockKind k);
/* Writes the names of the kinds whose fields include all bits of `fields`
** (0: every kind), in table order, separated by sep and the last two by
** last, to out (size bytes, NUL-terminated). */
void block_kind_list(unsigned fields, const char *sep, const char *last,
                     char *out, size_t size);
/* NULL-terminated keys of the fields of a group (one BF_* bit). */
const char *const *block_group_keys(unsigned group);
/* Reports (as errors) members of a block object that no kind accepts. */
void block_warn_unknown(Loader *L, const JLoc *at, json_t *o);

#endif
