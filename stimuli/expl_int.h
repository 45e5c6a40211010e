/*
** Explanation payloads inside the loader (expl.c): parsing a payload of
** any kind with located errors, and attaching it to its item. Internal to
** stimuli.
*/
#ifndef SIMLAB_STIMULI_EXPL_INT_H
#define SIMLAB_STIMULI_EXPL_INT_H

#include <jansson.h>
#include <stddef.h>

#include "stimuli/loader.h"

void edits_free(Edit *e, size_t n); /* frees n edits and the array */
/* Parses an explanation payload (object or string) into out. item may be
** NULL. default_kind is used when the payload has no "kind". depth 0 at the
** top; composites may not nest. Returns 0, or -1 after reporting. */
int expl_parse(Loader *L, const JLoc *at, json_t *v, const char *default_kind,
               const Item *item, Explanation *out, int depth);
void expl_clear(Explanation *e);
/* Attaches e (ownership passes) to item under method; -1 on duplicate.
** e NULL records a payload that had errors (item_explanation() gives
** NULL for it, item_expl_failed() says so). */
int item_add_expl(Loader *L, Item *item, const char *method, Explanation *e);
/* Whether item's payload for method was given but had errors. */
int item_expl_failed(const Item *item, const char *method);

#endif
