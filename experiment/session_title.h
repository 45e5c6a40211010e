/*
** The heading of a session screen, for every runner (the desktop's
** app/screens.c and the browser's serve/serve_view.c): the block's own
** title, else one by block kind, screen and phase in the study's language.
*/
#ifndef SIMLAB_EXPERIMENT_SESSION_TITLE_H
#define SIMLAB_EXPERIMENT_SESSION_TITLE_H

#include <stddef.h>

#include "experiment/session_view.h"
#include "stimuli/uistrings.h"

/* The heading of the screen v shows, in strings' language; a numbered one
** ("Session 2: examples") is formatted into buf (n bytes). "" for screens
** without a heading (messages such as done or paused). */
const char *session_title(const SessionView *v, const UiStrings *strings,
                          char *buf, size_t n);

#endif
