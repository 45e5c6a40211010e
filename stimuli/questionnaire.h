/*
** Questionnaire blocks: what a valid answer to one of their questions is.
** The session (experiment/session.c), simulated participants and the
** runner ask this header, so that every place agrees on it. Parsing of
** "questions" lives in stimuli/questionnaire.c too (study_int.h). libc only.
*/
#ifndef SIMLAB_STIMULI_QUESTIONNAIRE_H
#define SIMLAB_STIMULI_QUESTIONNAIRE_H

#include <stddef.h>

#include "stimuli/study.h"

/* Longest answer to a number question, in bytes. */
#define QUESTIONNAIRE_NUMBER_MAX 32

/* Checks value (NUL-terminated UTF-8, may be NULL) as an answer to q:
**   number  a decimal number ("37", "-1.5", "2,5") in [min, max]
**   choice  one of the options, exactly
**   likert  an integer 1 .. points
**   text    at most max_length characters (code points), valid UTF-8
** Returns 1 when valid, 0 when empty (only white space for text), -1 when
** invalid, with a message for the participant in why ("Enter a number from
** 18 to 99."; why may be NULL). */
int questionnaire_check(const SurveyQuestion *q, const char *value, char *why,
                        size_t why_size);

/* The value of a number answer (after questionnaire_check said 1). */
double questionnaire_number(const char *value);

/* Characters (UTF-8 code points) in s. */
size_t questionnaire_utf8_len(const char *s);

/* Byte length of s without its last UTF-8 code point (0 for ""): what a
** backspace keeps. */
size_t questionnaire_utf8_drop_last(const char *s, size_t len);

#endif
