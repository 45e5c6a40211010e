/*
** The questionnaire screen's body: its questions stacked in the scrolling
** body -- numbers and texts as fields that take typing (the focused one
** shows a caret), choices as radio buttons, likert scales as a row of
** numbered buttons between their low and high labels -- with what is
** invalid or missing under each. Draws the screen model.
*/
#ifndef SIMLAB_APP_QSCREEN_H
#define SIMLAB_APP_QSCREEN_H

#include "app/render.h"
#include "app/scene.h"
#include "experiment/screen_model.h"

/* Lays out the questions of qs (may be NULL) in the column [x, x + w) from
** top y into sc (NULL: measure only); returns the height. */
float qscreen_body(const RenderCtx *rc, const ScreenQuestionnaire *qs,
                   Scene *sc, float x, float y, float w);

#endif
