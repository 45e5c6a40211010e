/*
** The session's screen model: the screens, the inputs a front end sends
** (SimInput) and everything it draws (SessionView). Plain types only, below
** the session state machine (session.h) and its questionnaire state
** (session_quest.h). No SDL, no clock.
*/
#ifndef SIMLAB_EXPERIMENT_SESSION_VIEW_H
#define SIMLAB_EXPERIMENT_SESSION_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/schedule.h"
#include "stimuli/questionnaire.h"
#include "stimuli/study.h"

/* The screen the participant sees. Each has a name (session.c) and a row
** in app/screens.c's screen table. */
typedef enum SessionScreen {
    SCREEN_CONSENT = 0,    /* consent page; accept or decline */
    SCREEN_PAGE,           /* instructions or debrief page */
    SCREEN_QUIZ,           /* a quiz question with its options */
    SCREEN_EXAMPLE,        /* learn/train/practice example (+ explanation) */
    SCREEN_PREDICT,        /* forward prediction (practice, pre, post, test) */
    SCREEN_COUNTERFACTUAL, /* original + perturbation; predict on the latter */
    SCREEN_RATING,         /* rate an explanation (rating blocks) */
    SCREEN_FEEDBACK,       /* practice or quiz: right / try again */
    SCREEN_BREAK,          /* a rest between blocks */
    SCREEN_PAUSED,         /* the experimenter paused the run */
    SCREEN_STORE_ERROR,    /* the response could not be saved yet: calm
                              pause for the participant, reason for the
                              experimenter; retried */
    SCREEN_SCREENED_OUT,   /* a screening rule ended the run */
    SCREEN_DONE,           /* thank you; the run is over */
    SCREEN_QUESTIONNAIRE,  /* a questionnaire's questions, stacked */
    SCREEN_TIMEOUT,        /* the answer deadline passed: the block's
                              timeout_message, briefly; no input */
    SCREEN_VERIFY,         /* the model's output (and explanation): is it
                              right? accept or reject */
    SCREEN_DECIDE          /* the task itself, with the model's advice in
                              conditions that give it */
} SessionScreen;

#define SESSION_SCREEN_COUNT 17 /* keep last + 1: the tables check it */

typedef enum SimInputKind {
    SIM_IN_CHOOSE = 0, /* value = class index (or quiz option index; on a
                          trial with the item's own options, the index of
                          the option in the order offered) */
    SIM_IN_RATE,       /* value = 1 .. rating points */
    SIM_IN_CONTINUE,   /* next / confirm; on consent: accept */
    SIM_IN_DECLINE,    /* consent declined */
    SIM_IN_KEY,        /* key = SDL-style key name; the session maps it to
                          a choice, a rating digit or Continue */
    SIM_IN_PAUSE,      /* experimenter (after the app's confirmation) */
    SIM_IN_RESUME,     /* experimenter: end the pause */
    SIM_IN_ABORT,      /* experimenter: stop this participant for now */
    SIM_IN_RETRY,      /* try to save a pending response again */
    SIM_IN_ANSWER,     /* questionnaire: value = question index, key = the
                          whole answer (option text, likert point "5",
                          number or text); "" clears it */
    SIM_IN_FOCUS,      /* questionnaire: value = the question that typed
                          text goes to */
    SIM_IN_TEXT,       /* questionnaire: key = UTF-8 text typed (as from
                          a text input event), appended to the focused answer */
    SIM_IN_BACKSPACE,  /* questionnaire: removes the last character (code
                          point) of the focused answer */
    SIM_IN_PICK,       /* questionnaire: value = question * 256 + pick, the
                          pick a 0-based option (choice) or a point
                          1..points (likert); a click on its button */
    SIM_IN_CONFIDENCE, /* value = 1 .. confidence points (after the choice;
                          keys: the digits, "0" for 10) */
    SIM_IN_REVEAL,     /* show or hide an explanation given on request:
                          value = SESSION_REVEAL(card, show), card -1 for
                          the item's, k for reservoir card k (key: the
                          "expl.show_key" text, toggles the item's) */
    SIM_IN_HOVER       /* a value of a hover explanation is pointed at or
                          focused: value = its number (expl_hover_targets),
                          -1 when none is (key: Tab focuses the next) */
} SimInputKind;

/* SIM_IN_REVEAL's value: card -1 (the item's explanation) or a reservoir
** card's index, show 1 or 0 hide; and its parts. */
#define SESSION_REVEAL(card, show) (((card) + 1) * 2 + ((show) ? 1 : 0))
#define SESSION_REVEAL_CARD(value) ((value) / 2 - 1)
#define SESSION_REVEAL_SHOW(value) ((value) % 2)

/* session_report_scroll's state as one number (the browser's "scroll"
** input): bit 0 the content does not fit, bit 1 scrolled to its end. */
#define SESSION_SCROLL(overflow, at_end)                                       \
    (((overflow) ? 1 : 0) | ((at_end) ? 2 : 0))
#define SESSION_SCROLL_OVERFLOW(value) ((value)&1)
#define SESSION_SCROLL_AT_END(value)   (((value) >> 1) & 1)

typedef struct SimInput {
    SimInputKind kind;
    int value;       /* see SimInputKind */
    const char *key; /* SIM_IN_KEY: "f", "1", "return", "space", ... */
    int64_t t_ns;    /* high-resolution (monotonic) time of the input */
    int64_t wall_ms; /* wall-clock time (Unix ms), for the records */
} SimInput;

/* Everything app/ draws. Pointers are borrowed from the session (or its
** study) and stay valid until the next session call. */
typedef struct SessionView {
    SessionScreen screen;
    const Trial *trial;             /* current step; NULL when done */
    const Block *block;             /* its block */
    const Item *item;               /* item shown, NULL for pages */
    const Explanation *explanation; /* shown with the item, or NULL */
    const char *title;              /* block title, or NULL */
    const char *page_text; /* consent/instructions/debrief/break text */
    const char *page_path; /* page file, or NULL */
    const Page *page;      /* model of the consent/instructions/debrief page
                              shown (stimuli/page.h), or NULL */
    const QuizQuestion *question; /* quiz */
    const StudyClass *classes;    /* choices of predictions */
    size_t n_classes;
    const StudyClass *verdicts; /* verify: the two answers offered in place
                                   of the classes (accept, reject); NULL */
    const int *options;         /* the item's own answer options (class indices)
                                   in the order offered, keys 1-9 (0 a tenth), or
                                   NULL: the classes, each with its key */
    size_t n_options;
    int show_label;         /* show item's true label */
    int show_prediction;    /* show the model output on the input */
    int ask_counterfactual; /* show the perturbation; ask about it */
    int cf_unchanged;       /* a counterfactual catch trial: the input
                               is shown unchanged (no perturbation) */
    /* reservoir items in the order shown, and their explanations (or
    ** NULL): n_reservoir of each, owned by the session, as many as the
    ** reservoir block showed */
    const Item **reservoir;
    const Explanation **reservoir_expl;
    size_t n_reservoir;
    int need_choice;   /* a class (or option) must be chosen */
    int need_rating;   /* a rating must be given */
    int need_continue; /* Continue confirms (rating screens,
                          examples, pages) */
    int choice;        /* selected choice so far, -1 none */
    int rating;        /* selected rating so far, 0 none */
    const RatingSpec *rating_spec;
    int64_t continue_after_ns; /* Continue is refused before this time
                                  (minimum reading time): the onset +
                                  continue_wait_ns once the onset is
                                  marked; 0 = any time */
    int64_t continue_wait_ns;  /* the screen's minimum reading time from its
                                  onset, known before the onset; 0 = none */
    int continue_ready;        /* Continue is accepted (from
                                  continue_after_ns on): every choice,
                                  rating and confidence it needs is given
                                  and the scroll gate is open (a
                                  questionnaire's Continue is accepted to
                                  show what is missing) */
    int onset_marked;          /* the app reported the stimulus onset */
    int attempt;               /* 1-based attempt (practice retry, quiz) */
    int feedback_correct;      /* SCREEN_FEEDBACK: was the answer right */
    int feedback_answer;       /* SCREEN_FEEDBACK: the right choice */
    int feedback_final;        /* SCREEN_FEEDBACK: Continue moves on (else
                                  the same question is asked again) */
    int progress_done;         /* answered item trials */
    int progress_total;        /* item trials in the schedule */
    const char *message;       /* SCREEN_STORE_ERROR / PAUSED / SCREENED_OUT:
                                  the reason, for the experimenter */
    const char *condition;     /* the condition of the current step (the
                                  participant's, or within-subject the
                                  one this part of the run shows) */
    const char *participant;   /* participant id */
    unsigned screen_serial;    /* changes whenever a new screen (or a new
                                  attempt) is shown: mark its onset once */
    int aborted;               /* SCREEN_DONE after an experimenter abort */

    /* SCREEN_QUESTIONNAIRE (the block's questions: block->survey) */
    const char *const *answers;           /* per question: answer so far ("") */
    const AnswerProblem *answer_problems; /* per question: why the answer
                                             is not valid (ANSWER_OK when
                                             it is): a code the view words
                                             (questionnaire_problem_text) */
    int focus;            /* question typed text goes to, -1 none */
    int answers_complete; /* every required question has a valid answer and
                             no answer is invalid: Continue is accepted */
    int answers_tried;    /* a Continue was refused: mark what is missing */

    const RatingSpec *confidence_spec; /* the trial asks a confidence after
                                          the choice (row of points), or
                                          NULL */
    int need_confidence;         /* the choice is made; a confidence must be
                                    given before the trial commits */
    int confidence;              /* selected confidence so far, 0 none */
    int64_t deadline_ns;         /* the choice times out at this time (onset +
                                    time_limit_ms); 0 = no deadline (yet) */
    const char *timeout_message; /* SCREEN_TIMEOUT: the text to show */
    int scroll_gate;             /* Continue is held until the participant has
                                    scrolled to the end (show the hint) */

    /* Explanations on request or on hover (the payload's "reveal"). */
    int revealed;     /* on request: the item's explanation is shown now */
    int hover_target; /* hover: the value hovered or focused, -1 none */
    int n_hover;      /* hover: how many values (expl_hover_targets) */
    const unsigned char *res_revealed; /* per reservoir card: its explanation
                                          (on request) is shown now; NULL:
                                          none is */
    const char *reveal_key; /* the key that shows and hides the item's
                               explanation (the study's "expl.show_key") */
} SessionView;

#endif
