/*
** The checks that tie a parsed design together (validate.c): blocks to
** each other, to item pools and explanations; conditions to methods; the
** within-subject run. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_VALIDATE_H
#define SIMLAB_STIMULI_VALIDATE_H

#include <stddef.h>

#include "stimuli/designctx.h"

/* Checks that tie blocks to each other, to item pools and explanations. */
void validate_blocks(Design *D);
void validate_conditions(Design *D, const JLoc *root);

#endif
