/*
** Explanation sources of study.json (sources.c): files of payloads joined
** to items by id. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_SOURCES_H
#define SIMLAB_STIMULI_SOURCES_H

#include <jansson.h>

#include "stimuli/loader.h"

/* The explanation sources listed in study.json. */
void load_expl_sources(Loader *L, json_t *sources, const JLoc *at);

/* Whether items may lack method's explanations because an explanation
** source of it (or one naming no method) had errors, or a bank could not be
** read (reported there). */
int sources_method_failed(const Loader *L, const char *method);

#endif
