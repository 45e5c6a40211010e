/*
** The protocol presets (preset.c): one row per preset with the blocks it
** expands into, its screening defaults and its balance rule. Internal to
** stimuli.
*/
#ifndef SIMLAB_STIMULI_PRESET_H
#define SIMLAB_STIMULI_PRESET_H

#include <jansson.h>

#include "stimuli/designctx.h"

/* The balance rule a preset's pools should follow (balance.c warns). */
typedef enum BalanceRule {
    BALANCE_NONE = 0,
    BALANCE_HASE = 1,    /* equal TP/FP/TN/FN in the pool of phase pre */
    BALANCE_HASE_CF = 2, /* and as many same as flip per prediction type */
    BALANCE_META = 3     /* as many correct as incorrect items in the first
                            train and test pools */
} BalanceRule;

/* One row of the preset table. */
typedef struct PresetDesc {
    const char *name; /* "preset" in study.json's "protocol" */
    /* appends the preset's blocks, read from the parameters in proto */
    void (*expand)(struct Design *D, const JLoc *at, json_t *proto);
    int strict_screening; /* screening defaults to the meta-predictor
                             rules (practice, quiz, catch trials) */
    BalanceRule balance;
} PresetDesc;

/* The preset named name, or NULL (name may be NULL). */
const PresetDesc *preset_find(const char *name);

/* Expands the preset named name with the parameters of proto (at pl).
** Returns 0; -1 when there is no such preset (nothing reported). */
int preset_expand(Design *D, const JLoc *pl, json_t *proto, const char *name);
/* The presets' names as "a, b, c" into out. */
void preset_list(char *out, size_t size);

#endif
