/*
** Loading a study bundle (bundle.c): the entry of study_load(), which
** also `simlab check` calls to load what it can of a bundle with errors.
** Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_BUNDLE_H
#define SIMLAB_STIMULI_BUNDLE_H

#include "stimuli/study.h"

/* Loads what it can even when there are errors: *out is NULL only when the
** bundle folder itself is unusable or memory ran out. */
int study_load_partial(const char *dir, Study **out, StudyReport *report,
                       SimError *err);

#endif
