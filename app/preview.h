/*
** simlab-preview's fixtures and shots (preview_shots.c): hand-built session
** views of every screen and explanation kind, with fake items and media,
** for preview.c to draw. Internal to simlab-preview.
*/
#ifndef SIMLAB_APP_PREVIEW_H
#define SIMLAB_APP_PREVIEW_H

#include "experiment/session_view.h"

/* One screen to draw: a file-name part and its view. */
typedef struct PreviewShot {
    const char *name;
    SessionView v;
} PreviewShot;

/* More than the shots preview_shots makes. */
#define PREVIEW_MAX_SHOTS 64

typedef struct PreviewFixtures PreviewFixtures;

/* Writes the synthetic media into out/media and builds the items,
** explanations and pages the views point into. Returns 0 with *fx owning
** them (preview_fixtures_free), -1 when out of memory or a page does not
** parse (said on stderr). */
int preview_fixtures_new(const char *out, PreviewFixtures **fx);
void preview_fixtures_free(PreviewFixtures *fx); /* NULL: no-op */

/* Fills shots[0..cap) with the named views of every screen; returns how
** many. The views borrow from fx. */
int preview_shots(PreviewFixtures *fx, PreviewShot *shots, int cap);

/* 0 when every screen and every explanation kind has a shot among
** shots[0..n); else 1, each one missing named on stderr. */
int preview_shots_check(const PreviewShot *shots, int n);

#endif
