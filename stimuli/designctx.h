/*
** Internals of study.json's design, shared by the files that read it:
** design.c (header fields, classes, conditions, quiz, pages, ...),
** blocks.c (the protocol: explicit blocks), preset.c (presets expanded into
** blocks) and validate.c (checks that tie blocks to pools and
** explanations). Not part of the public API.
*/
#ifndef SIMLAB_STIMULI_DESIGNCTX_H
#define SIMLAB_STIMULI_DESIGNCTX_H

#include "stimuli/loader.h"
#include "stimuli/page_load.h"

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

/* ---------------------------------------------------------------- shared */

/* 1 when s is a non-empty identifier of letters, digits, '-', '_', '.'. */
int design_valid_ident(const char *s);
/* Reports at member key of `at` that the study has no condition id, with a
** "did you mean" or the list of the conditions. */
void design_no_condition(Loader *L, const JLoc *at, const char *key,
                         const char *id);
/* Frees n questions and the array. */
void design_quiz_free(QuizQuestion *q, size_t n);
/* Parses a list of questions at `at` into *out (owned, n_out of them);
** every problem is reported. Returns 0, or -1 when list is no list. */
int design_quiz_parse(Design *D, const JLoc *at, json_t *list,
                      QuizQuestion **out, size_t *n_out);
/* Page files named in study.json (design.c): remembered for reading, and
** set as b's pages. */
void design_add_page_ref(Design *D, const char *path, const JLoc *at,
                         const char *key);
int design_set_pages(Design *D, Block *b, char *const *paths, size_t n);
/* Reads member key of the object at `at` (v, NULL when absent): a page path
** or a list of them, into *out (n_out paths, owned by the study's
** allocations as design_set_pages' are), remembering each for reading. Reports
*a
** value that is neither. Returns 1 when v held paths (possibly none valid),
** 0 when absent or invalid. */
int design_page_list(Design *D, const JLoc *at, const char *key, json_t *v,
                     char ***out, size_t *n_out);

#endif
