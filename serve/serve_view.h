/*
** The screen a browser draws, as JSON: the screen model of the session's
** view (experiment/screen_model.h) serialised field by field, one table
** row per member. It holds only what the current screen shows: no
** upcoming item, no model output the screen does not show, no correct
** answer before the feedback. Files the screen shows are listed in a media
** list and named by index. No SDL.
*/
#ifndef SIMLAB_SERVE_SERVE_VIEW_H
#define SIMLAB_SERVE_SERVE_VIEW_H

#include <jansson.h>
#include <stddef.h>

#include "common/sim_error.h"
#include "experiment/screen_model.h"
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

/* The screens of one study for the browser: its slots (in em of the
** browser's text, screen_slots_plan_em) and a model built for each view. */
typedef struct ServeView ServeView;

/* On success *out owns a new ServeView for study (borrowed; it must
** outlive it): serve_view_free. */
int serve_view_new(const Study *study, ServeView **out, SimError *err);
void serve_view_free(ServeView *sv); /* NULL is a no-op */

/* The JSON screen of view: its screen model (online; completion: the
** completion code or link is shown with the end page). Media the screen
** shows are appended to media (cleared first) and named media_prefix +
** index in the JSON. Times (deadline, Continue's earliest time) are in ms
** of the clock the browser stamps its onsets and inputs with. Returns a
** new reference, or NULL when memory ran out. */
json_t *serve_view_json(ServeView *sv, const SessionView *view, int completion,
                        const char *media_prefix, ServeMediaList *media);

/* One explanation as the item's explanation area shows it: the model's
** node {"kind", "title", texts..., "values", "lines", "payload": {the
** kind's fields}, "parts": [nodes]}. input: the item's input (may be
** NULL). hover: its values show on hover. */
json_t *serve_expl_json(ServeView *sv, const Explanation *e,
                        const ItemInput *input, int hover,
                        const char *media_prefix, ServeMediaList *media);

/* The participant-facing strings of the study's language, by key name,
** with "lang" and "dir" ("ltr" or "rtl"). New reference or NULL. */
json_t *serve_strings_json(const Study *study);

/* The field tables, for the test that ties them to the structs of
** experiment/screen_model.h: row k of table t gives the struct's name, the
** member it reads and the member holding its count (NULL when it has
** none). Returns 0 past the last row of a table, -1 past the last table. */
int serve_view_field(size_t t, size_t k, const char **type, const char **member,
                     const char **count);

#endif
