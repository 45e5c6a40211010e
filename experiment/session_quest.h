/*
** The questionnaire screen's state inside the session: the answer to each
** question as typed or chosen so far, which question has the text focus,
** and whether the answers allow Continue. Private to experiment/session.c.
** No SDL, no clock.
*/
#ifndef SIMLAB_EXPERIMENT_SESSION_QUEST_H
#define SIMLAB_EXPERIMENT_SESSION_QUEST_H

#include <stdint.h>

#include "common/sim_text.h"
#include "experiment/session_view.h"
#include "experiment/store.h"
#include "stimuli/questionnaire.h"

typedef struct QuestState {
    const Block *block; /* the questionnaire shown; NULL when none */
    SimBuf value[QUESTIONNAIRE_MAX_QUESTIONS];
    int64_t t_ns[QUESTIONNAIRE_MAX_QUESTIONS];     /* last change, 0 none */
    const char *text[QUESTIONNAIRE_MAX_QUESTIONS]; /* views of value */
    AnswerProblem problem[QUESTIONNAIRE_MAX_QUESTIONS]; /* ANSWER_OK or why
                                                           it is invalid */
    int focus;                                          /* -1 none */
    int tried; /* a Continue was refused */
    int oom;
    Answer out[QUESTIONNAIRE_MAX_QUESTIONS]; /* quest_answers() */
} QuestState;

/* Starts the questionnaire block b with no answers (b NULL or not a
** questionnaire: no questionnaire). Keeps the buffers for reuse. */
void quest_reset(QuestState *q, const Block *b);
void quest_free(QuestState *q);

/* Applies SIM_IN_ANSWER, SIM_IN_FOCUS, SIM_IN_TEXT or SIM_IN_BACKSPACE
** stamped t_ns; returns 1 when the answers or the focus changed. */
int quest_apply(QuestState *q, const SimInput *in);

/* 1 when every required question has a valid answer and no answer given
** is invalid. */
int quest_complete(const QuestState *q);

/* The valid non-empty answers (white space at their ends dropped, a
** number's decimal comma made a point), each
** with its time from onset_ns to its last change, into q->out; returns
** their number. Valid until the next change. */
size_t quest_answers(QuestState *q, int64_t onset_ns);

/* Fills the questionnaire part of v. */
void quest_view(const QuestState *q, SessionView *v);

#endif
