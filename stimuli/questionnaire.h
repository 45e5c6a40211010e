/*
** Questionnaire blocks: what a valid answer to one of their questions is.
** The session (experiment/session.c), simulated participants and the
** runner ask this header, so that every place agrees on it. Parsing of
** "questions" lives in stimuli/questionnaire.c too (questionnaire_int.h).
** libc only.
*/
#ifndef SIMLAB_STIMULI_QUESTIONNAIRE_H
#define SIMLAB_STIMULI_QUESTIONNAIRE_H

#include <stddef.h>

#include "stimuli/study.h"
#include "stimuli/uistrings.h"

/* Longest answer to a number question, in bytes. */
#define QUESTIONNAIRE_NUMBER_MAX 32

/* Why an answer is not valid: a code, not text. The view turns it into the
** participant's message in the study's language with the question's own
** numbers (questionnaire_problem_text). */
typedef enum AnswerProblem {
    ANSWER_OK = 0,
    ANSWER_NUMBER = 1,       /* not a number in [min, max] */
    ANSWER_CHOICE = 2,       /* not one of the options */
    ANSWER_LIKERT = 3,       /* not an integer 1 .. points */
    ANSWER_TEXT_INVALID = 4, /* not valid UTF-8 */
    ANSWER_TOO_LONG = 5      /* more than max_length characters */
} AnswerProblem;

/* Checks value (NUL-terminated UTF-8, may be NULL) as an answer to q:
**   number  a decimal number ("37", "-1.5", "2,5") in [min, max]
**   choice  one of the options, exactly
**   likert  an integer 1 .. points
**   text    at most max_length characters (code points), valid UTF-8
** Returns 1 when valid, 0 when empty (only white space for text), -1 when
** invalid, with the reason in *why (may be NULL; ANSWER_OK unless -1). */
int questionnaire_check(const SurveyQuestion *q, const char *value,
                        AnswerProblem *why);

/* The participant's message for problem p of an answer to q, in the
** language of t (NULL: English), with q's bounds filled in: the string keys
** questionnaire.number_range / number_min / number_max / number, .choice,
** .likert, .text_invalid, .too_long ("Enter a number from 18 to 99.").
** Writes "" for ANSWER_OK; always NUL-terminates out (size > 0). */
void questionnaire_problem_text(const UiStrings *t, const SurveyQuestion *q,
                                AnswerProblem p, char *out, size_t size);

/* The value of a number answer (after questionnaire_check said 1). */
double questionnaire_number(const char *value);

/* Characters (UTF-8 code points) in s. */
size_t questionnaire_utf8_len(const char *s);

/* Byte length of s without its last UTF-8 code point (0 for ""): what a
** backspace keeps. */
size_t questionnaire_utf8_drop_last(const char *s, size_t len);

#endif
