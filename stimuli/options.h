/*
** Per-item answer options (options.c): an item's "options" (JSON list or
** a CSV cell of ids separated by '|'), "per_option" explanation payloads,
** "classes" read from a CSV file, and the checks that tie them together.
** Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_OPTIONS_H
#define SIMLAB_STIMULI_OPTIONS_H

#include <jansson.h>

#include "stimuli/designctx.h"
#include "stimuli/loader.h"

/* Reads member "options" of the item record o at `at` into it->options;
** every problem is reported there. Absent: nothing. */
void options_from_json(Loader *L, const JLoc *at, json_t *o, Item *it);
/* Reads the options of a CSV item bank's cell (ids separated by '|') of
** column col; an empty cell gives none. */
void options_from_cell(Loader *L, const JLoc *at, const char *col,
                       const char *cell, Item *it);

/* options_is_payload and options_parse_payload ("per_option" payloads)
** are declared in expl_int.h, for the payload parser. */

/* "classes": {"file": ..., "columns": {"id": ..., "label": ...},
** "delimiter", "encoding"}: reads the classes of v at `at` (the "classes"
** member) into the study. Returns 0, or -1 after reporting. */
int options_classes_file(Loader *L, const JLoc *at, json_t *v);

/* The checks of a loaded study: every item answered from its options in
** some block has its model output among them (else it cannot be answered
** right), and no key an option trial listens to collides. */
void options_validate(Design *D, const JLoc *root);

#endif
