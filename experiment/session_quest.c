/*
** The questionnaire screen's state (session_quest.h): answers per
** question, edited by whole answers (choices, likert points, simulated
** participants) or by typed text and backspaces (number and text
** questions), and checked with stimuli/questionnaire.h. No SDL, no clock.
*/
#include "experiment/session_quest.h"

#include <stdio.h>
#include <string.h>

static size_t n_questions(const QuestState *q)
{
    return q->block ? q->block->n_survey : 0;
}

/* Rechecks answer i after a change. */
static void recheck(QuestState *q, size_t i)
{
    const char *v = sim_buf_cstr(&q->value[i]);
    q->text[i] = v;
    questionnaire_check(&q->block->survey[i], v, &q->problem[i]);
}

void quest_reset(QuestState *q, const Block *b)
{
    q->block = b && b->kind == BLOCK_QUESTIONNAIRE ? b : NULL;
    q->focus = -1;
    q->tried = 0;
    for (size_t i = 0; i < QUESTIONNAIRE_MAX_QUESTIONS; i++) {
        q->value[i].len = 0;
        if (q->value[i].data) {
            q->value[i].data[0] = '\0';
        }
        q->t_ns[i] = 0;
        q->text[i] = "";
        q->problem[i] = ANSWER_OK;
    }
    /* the first question that takes typing has the focus */
    for (size_t i = 0; i < n_questions(q); i++) {
        QuestionType t = q->block->survey[i].type;
        if (t == QTYPE_NUMBER || t == QTYPE_TEXT) {
            q->focus = (int)i;
            break;
        }
    }
}

void quest_free(QuestState *q)
{
    for (size_t i = 0; i < QUESTIONNAIRE_MAX_QUESTIONS; i++) {
        sim_buf_free(&q->value[i]);
    }
    q->block = NULL;
}

/* Whether the answer i may grow by n bytes (text: max_length characters;
** number: QUESTIONNAIRE_NUMBER_MAX bytes). */
static int fits(const QuestState *q, size_t i, const char *add, size_t n)
{
    const SurveyQuestion *sq = &q->block->survey[i];
    if (sq->type == QTYPE_NUMBER) {
        return q->value[i].len + n <= QUESTIONNAIRE_NUMBER_MAX;
    }
    size_t have = questionnaire_utf8_len(q->text[i]);
    size_t more = 0;
    for (size_t k = 0; k < n; k++) {
        more += ((unsigned char)add[k] & 0xC0) != 0x80;
    }
    return have + more <= (size_t)sq->max_length;
}

static int pick(QuestState *q, int code, int64_t t_ns);

/* Appends typed text to the focused answer: carriage returns are dropped,
** number questions take no line breaks. */
static int type_text(QuestState *q, const char *text, int64_t t_ns)
{
    if (q->focus < 0 || !text || !text[0]) {
        return 0;
    }
    size_t i = (size_t)q->focus;
    const SurveyQuestion *sq = &q->block->survey[i];
    if (sq->type == QTYPE_CHOICE || sq->type == QTYPE_LIKERT) {
        /* the number of an option or a point picks it */
        int k = 0;
        for (const char *p = text; *p >= '0' && *p <= '9' && k < 1000; p++) {
            k = k * 10 + (*p - '0');
        }
        return k > 0 &&
               pick(q, (int)i * 256 + (sq->type == QTYPE_CHOICE ? k - 1 : k),
                    t_ns);
    }
    char clean[256];
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof clean; p++) {
        if (*p == '\r' || (*p == '\n' && sq->type == QTYPE_NUMBER)) {
            continue;
        }
        clean[n++] = *p;
    }
    clean[n] = '\0';
    if (n == 0 || !sim_utf8_valid(clean, n, NULL) || !fits(q, i, clean, n)) {
        return 0;
    }
    sim_buf_append(&q->value[i], clean, n);
    q->oom |= q->value[i].oom;
    q->t_ns[i] = t_ns;
    recheck(q, i);
    return 1;
}

static int backspace(QuestState *q, int64_t t_ns)
{
    if (q->focus < 0 || q->value[q->focus].len == 0) {
        return 0;
    }
    size_t i = (size_t)q->focus;
    SimBuf *b = &q->value[i];
    b->len = questionnaire_utf8_drop_last(b->data, b->len);
    b->data[b->len] = '\0';
    q->t_ns[i] = t_ns;
    recheck(q, i);
    return 1;
}

/* Sets answer i whole. Choice and likert answers must be valid; number and
** text answers are kept as given (their check shows on screen). */
static int set_answer(QuestState *q, size_t i, const char *value, int64_t t_ns)
{
    const SurveyQuestion *sq = &q->block->survey[i];
    value = value ? value : "";
    if (value[0] && (sq->type == QTYPE_CHOICE || sq->type == QTYPE_LIKERT) &&
        questionnaire_check(sq, value, NULL) != 1) {
        return 0;
    }
    size_t n = strlen(value);
    if (!sim_utf8_valid(value, n, NULL) ||
        (sq->type == QTYPE_NUMBER && n > QUESTIONNAIRE_NUMBER_MAX) ||
        (sq->type == QTYPE_TEXT &&
         questionnaire_utf8_len(value) > (size_t)sq->max_length)) {
        return 0;
    }
    if (strcmp(q->text[i], value) == 0) {
        return 0; /* a repeat */
    }
    q->value[i].len = 0;
    sim_buf_append(&q->value[i], value, n);
    if (n == 0 && q->value[i].data) {
        q->value[i].data[0] = '\0';
    }
    q->oom |= q->value[i].oom;
    q->t_ns[i] = t_ns;
    if (sq->type == QTYPE_NUMBER || sq->type == QTYPE_TEXT) {
        q->focus = (int)i;
    }
    recheck(q, i);
    return 1;
}

/* A click on option or point `code % 256` of question `code / 256`. */
static int pick(QuestState *q, int code, int64_t t_ns)
{
    if (code < 0 || (size_t)(code / 256) >= n_questions(q)) {
        return 0;
    }
    size_t i = (size_t)(code / 256);
    int k = code % 256;
    const SurveyQuestion *sq = &q->block->survey[i];
    char num[16];
    if (sq->type == QTYPE_CHOICE && (size_t)k < sq->n_options) {
        return set_answer(q, i, sq->options[k], t_ns);
    }
    if (sq->type == QTYPE_LIKERT && k >= 1 && k <= sq->points) {
        snprintf(num, sizeof num, "%d", k);
        return set_answer(q, i, num, t_ns);
    }
    return 0;
}

int quest_apply(QuestState *q, const SimInput *in)
{
    size_t n = n_questions(q);
    if (n == 0) {
        return 0;
    }
    switch (in->kind) {
    case SIM_IN_ANSWER:
        return in->value >= 0 && (size_t)in->value < n &&
               set_answer(q, (size_t)in->value, in->key, in->t_ns);
    case SIM_IN_FOCUS:
        if (in->value < 0 || (size_t)in->value >= n || in->value == q->focus) {
            return 0;
        }
        q->focus = in->value;
        return 1;
    case SIM_IN_TEXT:
        return type_text(q, in->key, in->t_ns);
    case SIM_IN_BACKSPACE:
        return backspace(q, in->t_ns);
    case SIM_IN_PICK:
        return pick(q, in->value, in->t_ns);
    default:
        return 0;
    }
}

int quest_complete(const QuestState *q)
{
    if (q->oom) {
        return 0;
    }
    for (size_t i = 0; i < n_questions(q); i++) {
        int ok = questionnaire_check(&q->block->survey[i], q->text[i], NULL);
        if (ok < 0 || (ok == 0 && q->block->survey[i].required)) {
            return 0;
        }
    }
    return 1;
}

/* Drops white space at both ends of answer i (kept while typing). */
static void trim(QuestState *q, size_t i)
{
    SimBuf *b = &q->value[i];
    size_t start = 0, end = b->len;
    while (end > 0 && strchr(" \t\n", b->data[end - 1])) {
        end--;
    }
    while (start < end && strchr(" \t\n", b->data[start])) {
        start++;
    }
    if (b->len > 0 && (start > 0 || end < b->len)) {
        memmove(b->data, b->data + start, end - start);
        b->len = end - start;
        b->data[b->len] = '\0';
        recheck(q, i);
    }
}

size_t quest_answers(QuestState *q, int64_t onset_ns)
{
    size_t k = 0;
    for (size_t i = 0; i < n_questions(q); i++) {
        const SurveyQuestion *sq = &q->block->survey[i];
        trim(q, i);
        if (sq->type == QTYPE_NUMBER) {
            /* stored with a decimal point, however it was typed */
            char *comma =
                q->value[i].data ? strchr(q->value[i].data, ',') : NULL;
            if (comma) {
                *comma = '.';
            }
        }
        if (questionnaire_check(sq, q->text[i], NULL) != 1) {
            continue;
        }
        Answer *a = &q->out[k++];
        a->question = sq->id;
        a->type = question_type_name(sq->type);
        a->value = q->text[i];
        a->rt_ms = onset_ns > 0 && q->t_ns[i] >= onset_ns
                       ? (double)(q->t_ns[i] - onset_ns) / 1e6
                       : -1.0;
    }
    return k;
}

void quest_view(const QuestState *q, SessionView *v)
{
    if (!q->block) {
        return;
    }
    v->answers = q->text;
    v->answer_problems = q->problem;
    v->focus = q->focus;
    v->answers_complete = quest_complete(q);
    v->answers_tried = q->tried;
}
