/*
** Questionnaire questions inside the loader (questionnaire.c): parsing a
** questionnaire block's questions with located errors. Internal to
** stimuli.
*/
#ifndef SIMLAB_STIMULI_QUESTIONNAIRE_INT_H
#define SIMLAB_STIMULI_QUESTIONNAIRE_INT_H

#include <jansson.h>
#include <stddef.h>

#include "stimuli/loader.h"

/* Parses the "questions" list of a questionnaire block at `at` into *out
** (owned, *n_out of them; free with questionnaire_free): located errors for
** a bad type, duplicate ids, min > max, fewer than 2 options, points
** outside 2..11. Returns 0, or -1 when the list itself is unusable. */
int questionnaire_parse(Loader *L, const JLoc *at, json_t *list,
                        SurveyQuestion **out, size_t *n_out);
void questionnaire_free(SurveyQuestion *qs, size_t n);

#endif
