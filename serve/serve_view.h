/*
** The screen a browser draws, as JSON: the one serialisation of the
** session's view (experiment/session_view.h) for `simlab serve`. It holds
** only what the current screen shows: no upcoming item, no model output
** the screen does not show, no correct answer before the feedback. Files
** the screen shows are listed in a media list and named by index. No SDL.
*/
#ifndef SIMLAB_SERVE_SERVE_VIEW_H
#define SIMLAB_SERVE_SERVE_VIEW_H

#include <jansson.h>
#include <stddef.h>

#include "experiment/session_view.h"
#include "stimuli/study.h"

/* A file of the bundle the current screen shows (borrowed path: the
** absolute path study loading resolved inside the bundle). */
typedef struct ServeMedia {
    const char *path;
    const char *type; /* Content-Type */
} ServeMedia;

typedef struct ServeMediaList {
    ServeMedia *v;
    size_t n, cap;
} ServeMediaList;

void serve_media_clear(ServeMediaList *m);
void serve_media_free(ServeMediaList *m);

/* The JSON screen of view (of study). Media the screen shows are appended
** to media (cleared first) and named media_prefix + index in the JSON.
** Times (deadline, Continue's earliest time) are in ms of the clock the
** browser stamps its onsets and inputs with. Returns a new reference, or
** NULL when memory ran out. */
json_t *serve_view_json(const SessionView *view, const Study *study,
                        const char *media_prefix, ServeMediaList *media);

/* One explanation payload as a tree of nodes: {"kind": name, "title":
** ..., the kind's fields ..., "parts": [child nodes]}; one row per field
** in the kind table of serve_view.c, so that a new kind is a new row.
** image: the item's image input (heatmaps draw over it), or NULL. */
json_t *serve_expl_json(const Explanation *e, const Study *study,
                        const ItemInput *image, const char *media_prefix,
                        ServeMediaList *media);

/* The participant-facing strings of the study's language, by key name,
** with "lang" and "dir" ("ltr" or "rtl"). New reference or NULL. */
json_t *serve_strings_json(const Study *study);

#endif
