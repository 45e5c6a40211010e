/*
** Blocks of a design (blocks.c): a new block with its kind's defaults, an
** explicit "blocks" list of study.json parsed field by field, and freeing
** a block. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_BLOCKS_H
#define SIMLAB_STIMULI_BLOCKS_H

#include <jansson.h>

#include "stimuli/designctx.h"

/* Appends a block of kind with the kind's defaults (phase, show, rating);
** src of the new block points at `at`. NULL when memory ran out. */
Block *block_new(Design *D, BlockKind kind, const char *id, const JLoc *at);
/* Sets b's phase (SIM_PHASE_NONE: none) and its name. */
void block_set_phase(Design *D, Block *b, SimPhase phase);

/* Copies the study's quiz questions (and repeat_until_correct) into b. */
void block_copy_quiz(Design *D, Block *b);

/* The explicit "blocks" list of study.json (at bl0, the list blocks) into
** st->blocks. */
void blocks_parse_list(Design *D, const JLoc *bl0, json_t *blocks);

/* Frees what a block owns (not the block). */
void block_clear(Block *b);

#endif
