/*
** study.json "online" (online.c): the completion code and link that
** `simlab serve` shows once a participant's last response is stored.
** Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_ONLINE_H
#define SIMLAB_STIMULI_ONLINE_H

#include <jansson.h>

#include "stimuli/loader.h"

/* "online" of study.json (root, at its JLoc): sets Study.online; located
** errors for a malformed code or link (stimuli/online.c). */
void online_parse(Loader *L, json_t *root, const JLoc *at);

#endif
