/*
** The study's language (uiparse.c): "language", "language_file" and "ui"
** of study.json into the runner's strings. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_UIPARSE_H
#define SIMLAB_STIMULI_UIPARSE_H

#include <jansson.h>

#include "stimuli/loader.h"

/* "language", "language_file" and "ui" of study.json (root, at its JLoc):
** sets Study.ui_strings (stimuli/uiparse.c). */
void ui_parse(Loader *L, json_t *root, const JLoc *at);

#endif
