/*
** Questionnaire blocks: parsing and checking of "questions" (number,
** choice, likert, text) with located errors, and the answer checks that
** the session, simulated participants and the runner share. libc and
** jansson only.
*/
#include "stimuli/questionnaire.h"

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/questionnaire_int.h"
#include "stimuli/loader.h"
#include "stimuli/designctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[QTYPE_COUNT] = {
    [QTYPE_NUMBER] = "number",
    [QTYPE_CHOICE] = "choice",
    [QTYPE_LIKERT] = "likert",
    [QTYPE_TEXT] = "text",
};

/* The keys each type accepts besides id, type, text and required. */
static const char *const *type_keys(QuestionType t)
{
    static const char *const number[] = {"min", "max", NULL};
    static const char *const choice[] = {"options", NULL};
    static const char *const likert[] = {"points", "low", "high", NULL};
    static const char *const text[] = {"max_length", NULL};
    static const char *const *const keys[QTYPE_COUNT] = {
        [QTYPE_NUMBER] = number,
        [QTYPE_CHOICE] = choice,
        [QTYPE_LIKERT] = likert,
        [QTYPE_TEXT] = text,
    };
    return keys[t];
}

const char *question_type_name(QuestionType t)
{
    return (unsigned)t < QTYPE_COUNT ? type_names[t] : "?";
}

static int type_from_name(const char *name)
{
    for (int t = 0; name && t < QTYPE_COUNT; t++) {
        if (strcmp(name, type_names[t]) == 0) {
            return t;
        }
    }
    return -1;
}

/* ------------------------------------------------------------- parsing */

/* Errors for keys that belong to another type than q's. */
static void refuse_other_keys(Loader *L, const JLoc *ql, json_t *o,
                              QuestionType type)
{
    for (int t = 0; t < QTYPE_COUNT; t++) {
        const char *const *keys = type_keys((QuestionType)t);
        for (size_t i = 0; t != (int)type && keys[i]; i++) {
            int own = 0;
            for (const char *const *k = type_keys(type); *k; k++) {
                own |= strcmp(*k, keys[i]) == 0;
            }
            if (!own && json_object_get(o, keys[i])) {
                jl_error(L, ql, keys[i], "not a field of a %s question",
                         type_names[type]);
            }
        }
    }
}

static void parse_options(Loader *L, const JLoc *ql, json_t *o,
                          SurveyQuestion *q)
{
    json_t *opts = json_object_get(o, "options");
    if (!json_is_array(opts) || json_array_size(opts) < 2) {
        jl_error(L, ql, "options",
                 opts ? "must be a list of 2 or more texts"
                      : "missing (a choice question needs 2 or more options)");
        return;
    }
    size_t n = json_array_size(opts);
    q->options = ld_calloc(L, n, sizeof *q->options);
    if (!q->options) {
        return;
    }
    JLoc ol;
    jl_child(&ol, ql, "options");
    for (size_t k = 0; k < n; k++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", k);
        q->options[k] = json_scalar_text(L, json_array_get(opts, k));
        q->n_options = k + 1;
        if (!q->options[k] || !q->options[k][0]) {
            jl_error(L, &ol, idx, "an option is a non-empty text");
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            if (q->options[j] && strcmp(q->options[j], q->options[k]) == 0) {
                jl_error(L, &ol, idx, "'%s' is already option %zu",
                         q->options[k], j);
                break;
            }
        }
    }
}

static void parse_question(Loader *L, const JLoc *ql, json_t *o,
                           SurveyQuestion *q)
{
    q->required = 1;
    q->min = -HUGE_VAL;
    q->max = HUGE_VAL;
    q->points = 7;
    q->max_length = 1000;
    q->type = QTYPE_TEXT;
    if (!json_is_object(o)) {
        jl_error(L, ql, NULL,
                 "a question is {\"id\", \"type\", \"text\", ...}");
        return;
    }
    static const char *const known[] = {"id",  "type", "text",       "required",
                                        "min", "max",  "options",    "points",
                                        "low", "high", "max_length", NULL};
    jwarn_unknown(L, ql, o, known);
    if (jget_id(L, ql, o, "id", 1, &q->id) == 1 && !design_valid_ident(q->id)) {
        jl_error(L, ql, "id", "'%s': use letters, digits, '-', '_', '.'",
                 q->id);
    }
    const char *s = NULL;
    if (jget_str(L, ql, o, "text", 1, &s) == 1) {
        if (!s[0]) {
            jl_error(L, ql, "text", "must not be empty");
        }
        q->text = ld_strdup(L, s);
    }
    jget_bool(L, ql, o, "required", &q->required);
    if (jget_str(L, ql, o, "type", 1, &s) != 1) {
        return;
    }
    int t = type_from_name(s);
    if (t < 0) {
        jl_error(L, ql, "type",
                 "unknown question type '%s' (number, choice, "
                 "likert, text)",
                 s);
        return;
    }
    q->type = (QuestionType)t;
    refuse_other_keys(L, ql, o, q->type);
    switch (q->type) {
    case QTYPE_NUMBER:
        jget_num(L, ql, o, "min", 0, &q->min);
        jget_num(L, ql, o, "max", 0, &q->max);
        if (q->min > q->max) {
            jl_error(L, ql, "max", "%g is less than min (%g)", q->max, q->min);
        }
        break;
    case QTYPE_CHOICE:
        parse_options(L, ql, o, q);
        break;
    case QTYPE_LIKERT:
        jget_int(L, ql, o, "points", 0, 2, 11, &q->points);
        if (jget_str(L, ql, o, "low", 0, &s) == 1) {
            q->low = ld_strdup(L, s);
        }
        if (jget_str(L, ql, o, "high", 0, &s) == 1) {
            q->high = ld_strdup(L, s);
        }
        break;
    case QTYPE_TEXT:
        jget_int(L, ql, o, "max_length", 0, 1, 100000, &q->max_length);
        break;
    }
}

int questionnaire_parse(Loader *L, const JLoc *at, json_t *list,
                        SurveyQuestion **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!json_is_array(list) || json_array_size(list) == 0) {
        jl_error(L, at, NULL, "must be a non-empty list of questions");
        return -1;
    }
    size_t n = json_array_size(list);
    if (n > QUESTIONNAIRE_MAX_QUESTIONS) {
        jl_error(L, at, NULL,
                 "%zu questions; a questionnaire block asks at most %d "
                 "(split it into several blocks)",
                 n, QUESTIONNAIRE_MAX_QUESTIONS);
        return -1;
    }
    SurveyQuestion *qs = ld_calloc(L, n, sizeof *qs);
    if (!qs) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        JLoc ql;
        jl_index(&ql, at, i);
        parse_question(L, &ql, json_array_get(list, i), &qs[i]);
        *n_out = i + 1;
        for (size_t j = 0; qs[i].id && j < i; j++) {
            if (qs[j].id && strcmp(qs[j].id, qs[i].id) == 0) {
                jl_error(L, &ql, "id",
                         "duplicate question id '%s' (also question %zu)",
                         qs[i].id, j);
                break;
            }
        }
    }
    *out = qs;
    return 0;
}

void questionnaire_free(SurveyQuestion *qs, size_t n)
{
    for (size_t i = 0; qs && i < n; i++) {
        SurveyQuestion *q = &qs[i];
        sim_free(q->id);
        sim_free(q->text);
        for (size_t k = 0; k < q->n_options; k++) {
            sim_free(q->options[k]);
        }
        sim_free(q->options);
        sim_free(q->low);
        sim_free(q->high);
    }
    sim_free(qs);
}

/* ------------------------------------------------------------- answers */

size_t questionnaire_utf8_len(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++) {
        n += ((unsigned char)*s & 0xC0) != 0x80;
    }
    return n;
}

size_t questionnaire_utf8_drop_last(const char *s, size_t len)
{
    while (len > 0) {
        len--;
        if (((unsigned char)s[len] & 0xC0) != 0x80) {
            break;
        }
    }
    return len;
}

/* Parses a decimal number (a comma may stand for the point); 0 when value
** is not one. */
static int parse_number(const char *value, double *out)
{
    char buf[QUESTIONNAIRE_NUMBER_MAX + 1];
    size_t n = strlen(value);
    if (n == 0 || n > QUESTIONNAIRE_NUMBER_MAX) {
        return 0;
    }
    memcpy(buf, value, n + 1);
    sim_trim(buf);
    int digits = 0;
    for (char *p = buf; *p; p++) {
        if (*p == ',') {
            *p = '.';
        }
        digits += *p >= '0' && *p <= '9';
        if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
              *p == '+')) {
            return 0; /* no exponents, hex, inf or nan */
        }
    }
    char *end = NULL;
    double x = strtod(buf, &end);
    if (!digits || !end || *end || !isfinite(x)) {
        return 0;
    }
    *out = x;
    return 1;
}

double questionnaire_number(const char *value)
{
    double x = NAN;
    return value && parse_number(value, &x) ? x : NAN;
}

static int blank(const char *s)
{
    for (; *s; s++) {
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
            return 0;
        }
    }
    return 1;
}

int questionnaire_check(const SurveyQuestion *q, const char *value,
                        AnswerProblem *why)
{
    AnswerProblem dummy;
    why = why ? why : &dummy;
    *why = ANSWER_OK;
    if (!value || !value[0] || blank(value)) {
        return 0;
    }
    double x;
    switch (q->type) {
    case QTYPE_NUMBER:
        if (!parse_number(value, &x) || x < q->min || x > q->max) {
            *why = ANSWER_NUMBER;
            return -1;
        }
        return 1;
    case QTYPE_CHOICE:
        for (size_t k = 0; k < q->n_options; k++) {
            if (q->options[k] && strcmp(q->options[k], value) == 0) {
                return 1;
            }
        }
        *why = ANSWER_CHOICE;
        return -1;
    case QTYPE_LIKERT:
        if (!parse_number(value, &x) || x != floor(x) || x < 1 ||
            x > q->points) {
            *why = ANSWER_LIKERT;
            return -1;
        }
        return 1;
    case QTYPE_TEXT:
        if (!sim_utf8_valid(value, strlen(value), NULL)) {
            *why = ANSWER_TEXT_INVALID;
            return -1;
        }
        if (questionnaire_utf8_len(value) > (size_t)q->max_length) {
            *why = ANSWER_TOO_LONG;
            return -1;
        }
        return 1;
    }
    *why = ANSWER_TEXT_INVALID;
    return -1;
}

/* The English texts below are the keys' English texts (ui_fmt checks the
** arguments against them and gives the translation). */
void questionnaire_problem_text(const UiStrings *t, const SurveyQuestion *q,
                                AnswerProblem p, char *out, size_t size)
{
    if (!out || size == 0) {
        return;
    }
    out[0] = '\0';
    switch (p) {
    case ANSWER_OK:
        break;
    case ANSWER_NUMBER:
        if (isfinite(q->min) && isfinite(q->max)) {
            snprintf(out, size,
                     ui_fmt(t, UI_QUESTIONNAIRE_NUMBER_RANGE,
                            "Enter a number from %g to %g."),
                     q->min, q->max);
        } else if (isfinite(q->min)) {
            snprintf(out, size,
                     ui_fmt(t, UI_QUESTIONNAIRE_NUMBER_MIN,
                            "Enter a number of at least %g."),
                     q->min);
        } else if (isfinite(q->max)) {
            snprintf(out, size,
                     ui_fmt(t, UI_QUESTIONNAIRE_NUMBER_MAX,
                            "Enter a number of at most %g."),
                     q->max);
        } else {
            snprintf(out, size, "%s", ui_str(t, UI_QUESTIONNAIRE_NUMBER));
        }
        break;
    case ANSWER_CHOICE:
        snprintf(out, size, "%s", ui_str(t, UI_QUESTIONNAIRE_CHOICE));
        break;
    case ANSWER_LIKERT:
        snprintf(
            out, size,
            ui_fmt(t, UI_QUESTIONNAIRE_LIKERT, "Choose a point from 1 to %d."),
            q->points);
        break;
    case ANSWER_TEXT_INVALID:
        snprintf(out, size, "%s", ui_str(t, UI_QUESTIONNAIRE_TEXT_INVALID));
        break;
    case ANSWER_TOO_LONG:
        snprintf(out, size,
                 ui_fmt(t, UI_QUESTIONNAIRE_TOO_LONG,
                        "At most %d characters, please."),
                 q->max_length);
        break;
    }
}
