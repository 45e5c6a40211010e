/*
** study.json after it parsed (design.c): its header, the design (classes,
** conditions, assignment, protocol or blocks), item banks, explanation
** sources, pages, then the checks. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_DESIGN_H
#define SIMLAB_STIMULI_DESIGN_H

#include <jansson.h>

#include "stimuli/loader.h"

/* Everything of study.json after it parsed: header, design, item banks,
** explanation sources, blocks, validation, pages. */
void design_parse(Loader *L, json_t *root);

#endif
