/*
** The balance rules of the presets checked on the loaded pools
** (balance.c). Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_BALANCE_H
#define SIMLAB_STIMULI_BALANCE_H

#include "stimuli/loader.h"

/* Adds a warning for each balance rule of the study's preset that the
** pools in rep (filled by study_balance) break. */
void balance_warnings(Loader *L, const StudyReport *rep);

#endif
