/*
** Items inside the loader (items.c): the item banks of study.json (CSV
** and JSON Lines), the index from item key to item, and the text helpers
** of item fields. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_ITEMS_INT_H
#define SIMLAB_STIMULI_ITEMS_INT_H

#include <jansson.h>
#include <stddef.h>

#include "stimuli/loader.h"

/* Open-addressing table from item key to index in Study.items. */
struct StudyIndex {
    size_t *slots;  /* item index + 1; 0 = empty */
    size_t n_slots; /* power of two */
    size_t n_items; /* items indexed (to notice a stale table) */
};

Item *items_new(Loader *L);
int items_index_build(Loader *L);
long items_index_find(const Study *st, const char *key);
void item_clear(Item *it);
void input_clear(ItemInput *in);

/* The item banks listed in study.json. */
void load_banks(Loader *L, json_t *banks, const JLoc *at);

/* Calls fn for each non-blank line of the JSON Lines file rel with its
** parsed value; syntax errors are reported at their line. ref locates the
** "file" that names rel. Returns 0, or -1 when the file cannot be read
** (reported). */
typedef void (*ItemsJsonlFn)(Loader *L, const JLoc *at, json_t *o, void *ctx);
int items_each_jsonl(Loader *L, const JLoc *ref, const char *rel,
                     ItemsJsonlFn fn, void *ctx);
/* 0 for CSV, 1 for JSON Lines, from o's "format" or the extension of file;
** -1 after reporting. */
int items_file_format(Loader *L, const JLoc *at, json_t *o, const char *file);

/* Text helpers */
/* Parses "Name = value" lines into features; -1 when a line has no " = ". */
int items_parse_features(Loader *L, const char *text, Feature **out,
                         size_t *n_out, int *bad_line);
/* Removes **markers** from text: *plain owns the text without markers and
** *edits the marked byte ranges in it. -1 when markers are unbalanced. */
int items_parse_marked(Loader *L, const char *text, int segment, char **plain,
                       Edit **edits, size_t *n_edits);

/* Whether a pool's items may be missing because a bank file could not be
** read (its errors were reported once; pool NULL: any pool). */
int items_pool_unread(const Loader *L, const char *pool);

/* Number of items in pool (0 for NULL). */
size_t items_pool_size(const Study *st, const char *pool);

#endif
