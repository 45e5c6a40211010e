/*
** Questionnaire blocks end to end, without a window: "questions" parsed
** with located errors; the answer checks (numbers in range, likert points,
** choices, text length in characters, UTF-8 backspace); the session's
** questionnaire screen (required answers, an invalid number with its
** message, typing, backspace, picks, Continue refused until complete);
** answers stored with the step, kept across a close in the middle of the
** next questionnaire and resumed; X.questionnaire.csv with guarded cells;
** simulated participants that answer validly.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "tests/test_study.h"

#include "experiment/export.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/questionnaire.h"
#include "stimuli/study.h"

#include <math.h>
#include <sqlite3.h>

/* ------------------------------------------------------------- parsing */

/* A study whose questionnaire block has the members questions, with extra
** top-level members top ("" or ending in a comma). */
static Study *load_study(const char *questions, const char *top,
                         StudyReport *rep)
{
    char tmp[256];
    Study *st = NULL;
    study_report_init(rep);
    if (!fs_temp_dir(tmp, sizeof tmp, "questionnaire")) {
        CHECK(!"mkdtemp");
        return NULL;
    }
    char study[4096];
    snprintf(study, sizeof study,
             "{\"simlab_study\": 1, \"id\": \"q\", \"title\": \"t\", %s\n"
             " \"classes\": [\"a\", \"b\"],\n"
             " \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
             " \"blocks\": [{\"kind\": \"questionnaire\", %s},\n"
             "  {\"kind\": \"predict\", \"pool\": \"p\"}],\n"
             " \"items\": [{\"file\": \"items.jsonl\"}]}\n",
             top, questions);
    static const char items[] =
        "{\"id\": 1, \"pool\": \"p\", \"modality\": \"text\", \"input\": "
        "\"x\", \"label\": \"a\", \"prediction\": \"a\"}\n";
    char *p1 = fs_join(tmp, "study.json"), *p2 = fs_join(tmp, "items.jsonl");
    CHECK(p1 && p2 && fs_write(p1, study, strlen(study)) == 0 &&
          fs_write(p2, items, strlen(items)) == 0);
    free(p1);
    free(p2);
    SimError err;
    study_load(tmp, &st, rep, &err);
    fs_remove_tree(tmp);
    return st;
}

static Study *load_questions(const char *questions, StudyReport *rep)
{
    return load_study(questions, "", rep);
}

/* An error in study.json at pointer with field and a message containing
** message. */
static int has_error(const StudyReport *rep, const char *pointer,
                     const char *field, const char *message)
{
    for (size_t i = 0; i < rep->n_errors; i++) {
        const Diag *d = &rep->errors[i];
        if (d->pointer && strcmp(d->pointer, pointer) == 0 && d->field &&
            strcmp(d->field, field) == 0 && strstr(d->message, message) &&
            strcmp(d->file, "study.json") == 0) {
            return 1;
        }
    }
    fprintf(stderr, "no error at %s field '%s' with '%s'; errors:\n", pointer,
            field, message);
    for (size_t i = 0; i < rep->n_errors; i++) {
        fprintf(stderr, "  %s field '%s': %s\n", rep->errors[i].pointer,
                rep->errors[i].field, rep->errors[i].message);
    }
    return 0;
}

static void test_parse(void)
{
    StudyReport rep;
    Study *st = load_questions(
        "\"questions\": [{\"id\": \"age\", \"type\": \"number\", \"text\": "
        "\"Age\", \"min\": 18, \"max\": 99}, {\"id\": \"ml\", \"type\": "
        "\"choice\", \"text\": \"ML?\", \"options\": [\"no\", \"yes\"], "
        "\"required\": false}, {\"id\": \"trust\", \"type\": \"likert\", "
        "\"text\": \"Trust\", \"points\": 5, \"low\": \"lo\", \"high\": "
        "\"hi\"}, {\"id\": \"why\", \"type\": \"text\", \"text\": \"Why?\"}]",
        &rep);
    CHECK_INT(rep.n_errors, 0);
    const Block *b = st ? &st->blocks[0] : NULL;
    CHECK(b && b->kind == BLOCK_QUESTIONNAIRE && b->n_survey == 4);
    if (b && b->n_survey == 4) {
        CHECK_STR(b->survey[0].id, "age");
        CHECK(b->survey[0].type == QTYPE_NUMBER && b->survey[0].min == 18 &&
              b->survey[0].max == 99 && b->survey[0].required == 1);
        CHECK(b->survey[1].n_options == 2 && b->survey[1].required == 0);
        CHECK_STR(b->survey[1].options[1], "yes");
        CHECK(b->survey[2].points == 5);
        CHECK_STR(b->survey[2].low, "lo");
        CHECK_STR(b->survey[2].high, "hi");
        CHECK_INT(b->survey[3].max_length, 1000); /* the default */
        CHECK(b->survey[3].required == 1);
        CHECK(b->phase == NULL); /* no long-format rows */
    }
    study_free(st);
    study_report_free(&rep);

    /* repeat_until_correct means nothing on a questionnaire: one error */
    st = load_questions("\"id\": \"survey\", \"repeat_until_correct\": false, "
                        "\"questions\": [{\"id\": \"a\", \"type\": \"text\", "
                        "\"text\": \"A\"}]",
                        &rep);
    CHECK(st == NULL);
    CHECK_INT(rep.n_errors, 1);
    CHECK(has_error(&rep, "/blocks/0/repeat_until_correct",
                    "repeat_until_correct",
                    "only quiz blocks have repeat_until_correct (a "
                    "questionnaire's answers are neither right nor wrong)"));
    study_free(st);
    study_report_free(&rep);

    /* every mistake is located at its question and field */
    st = load_questions(
        "\"questions\": [{\"id\": \"a\", \"type\": \"number\", \"text\": "
        "\"A\", \"min\": 5, \"max\": 1}, {\"id\": \"a\", \"type\": "
        "\"choice\", \"text\": \"B\", \"options\": [\"only\"]}, {\"id\": "
        "\"c\", \"type\": \"likert\", \"text\": \"C\", \"points\": 12}, "
        "{\"id\": \"d\", \"type\": \"slider\", \"text\": \"D\"}, {\"id\": "
        "\"e\", \"type\": \"number\", \"text\": \"E\", \"options\": [\"x\", "
        "\"y\"]}, {\"id\": \"f\", \"type\": \"choice\", \"text\": \"F\", "
        "\"options\": [\"x\", \"x\"]}, {\"id\": \"g\", \"type\": \"likert\", "
        "\"text\": \"G\", \"points\": 1}, {\"type\": \"text\", \"text\": "
        "\"H\"}, {\"id\": \"i\", \"type\": \"text\", \"text\": \"I\", "
        "\"max_length\": 0}]",
        &rep);
    CHECK(st == NULL);
    CHECK(has_error(&rep, "/blocks/0/questions/0/max", "max",
                    "1 is less than min (5)"));
    CHECK(has_error(&rep, "/blocks/0/questions/1/id", "id",
                    "duplicate question id 'a' (also question 0)"));
    CHECK(has_error(&rep, "/blocks/0/questions/1/options", "options",
                    "must be a list of 2 or more texts"));
    CHECK(has_error(&rep, "/blocks/0/questions/2/points", "points", "12"));
    CHECK(has_error(&rep, "/blocks/0/questions/3/type", "type",
                    "unknown question type 'slider' (number, choice, "
                    "likert, text)"));
    CHECK(has_error(&rep, "/blocks/0/questions/4/options", "options",
                    "not a field of a number question"));
    CHECK(has_error(&rep, "/blocks/0/questions/5/options/1", "options",
                    "'x' is already option 0"));
    CHECK(has_error(&rep, "/blocks/0/questions/6/points", "points", "1"));
    CHECK(has_error(&rep, "/blocks/0/questions/7/id", "id", "missing"));
    CHECK(
        has_error(&rep, "/blocks/0/questions/8/max_length", "max_length", "0"));
    study_free(st);
    study_report_free(&rep);

    /* `simlab check` lists the questions: ids in text, types in JSON */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/experiment/mini-questionnaire",
             SIMLAB_TEST_DATA);
    char *out = NULL;
    CHECK_INT(fs_check(dir, 0, &out), 0);
    CHECK(out && strstr(out, "age ml english") && strstr(out, "\nvalid"));
    free(out);
    out = NULL;
    CHECK_INT(fs_check(dir, 1, &out), 0);
    CHECK(out && strstr(out, "\"survey\"") &&
          strstr(out, "\"type\": \"likert\""));
    free(out);

    st = load_questions("\"id\": \"s\"", &rep);
    CHECK(has_error(&rep, "/blocks/0/questions", "questions", "missing"));
    study_free(st);
    study_report_free(&rep);
    st = load_questions("\"questions\": []", &rep);
    CHECK(has_error(&rep, "/blocks/0/questions", "questions",
                    "must be a non-empty list of questions"));
    study_free(st);
    study_report_free(&rep);
}

/* A German study words the answer problems in German; "ui" replaces one
** message (placeholders checked like every key). */
static void test_language(void)
{
    static const char questions[] =
        "\"questions\": [{\"id\": \"age\", \"type\": \"number\", "
        "\"text\": \"Alter\", \"min\": 18, \"max\": 99}, {\"id\": \"t\", "
        "\"type\": \"likert\", \"text\": \"Vertrauen\", \"points\": 5}]";
    StudyReport rep;
    Study *st = load_study(questions,
                           "\"language\": \"de\", \"ui\": "
                           "{\"questionnaire.likert\": \"Bitte 1 bis %d.\"},",
                           &rep);
    CHECK(st != NULL && rep.n_errors == 0);
    const Block *b = st ? &st->blocks[0] : NULL;
    if (b && b->kind == BLOCK_QUESTIONNAIRE && b->n_survey == 2) {
        char out[160];
        questionnaire_problem_text(st->ui_strings, &b->survey[0], ANSWER_NUMBER,
                                   out, sizeof out);
        CHECK_STR(out, "Geben Sie eine Zahl von 18 bis 99 ein.");
        questionnaire_problem_text(st->ui_strings, &b->survey[1], ANSWER_LIKERT,
                                   out, sizeof out);
        CHECK_STR(out, "Bitte 1 bis 5.");
        CHECK_STR(ui_str(st->ui_strings, UI_QUESTIONNAIRE_CHOICE),
                  "W\xc3\xa4hlen Sie eine der Optionen.");
    } else {
        CHECK(!"questionnaire block");
    }
    study_free(st);
    study_report_free(&rep);

    /* an override that drops the placeholder: a located error */
    st = load_study(questions,
                    "\"ui\": {\"questionnaire.number_range\": \"Zahl!\"},",
                    &rep);
    CHECK(rep.n_errors >= 1);
    CHECK(has_error(&rep, "/ui/questionnaire.number_range",
                    "questionnaire.number_range", "placeholder '%g'"));
    study_free(st);
    study_report_free(&rep);
}

/* -------------------------------------------------------------- checks */

/* The participant's message for an answer to q, in t's language. */
static const char *message(const UiStrings *t, const SurveyQuestion *q,
                           const char *value)
{
    static char out[160];
    AnswerProblem p = ANSWER_OK;
    questionnaire_check(q, value, &p);
    questionnaire_problem_text(t, q, p, out, sizeof out);
    return out;
}

static void test_checks(void)
{
    SurveyQuestion num = {.type = QTYPE_NUMBER, .min = 18, .max = 99};
    AnswerProblem why = ANSWER_TOO_LONG;
    CHECK_INT(questionnaire_check(&num, "37", &why), 1);
    CHECK_INT(why, ANSWER_OK);
    CHECK_INT(questionnaire_check(&num, " 18 ", &why), 1);
    CHECK_INT(questionnaire_check(&num, "98,5", &why), 1);
    CHECK_NEAR(questionnaire_number("98,5"), 98.5, 1e-12);
    CHECK_INT(questionnaire_check(&num, "", &why), 0);
    CHECK_INT(why, ANSWER_OK);
    CHECK_INT(questionnaire_check(&num, NULL, &why), 0);
    CHECK_INT(questionnaire_check(&num, "17", &why), -1);
    CHECK_INT(why, ANSWER_NUMBER);
    CHECK_STR(message(NULL, &num, "17"), "Enter a number from 18 to 99.");
    CHECK_STR(message(NULL, &num, "17,5"), "Enter a number from 18 to 99.");
    CHECK_STR(message(NULL, &num, "37"), "");
    CHECK_INT(questionnaire_check(&num, "1e1", &why), -1);
    CHECK_INT(questionnaire_check(&num, "abc", &why), -1);
    CHECK_INT(questionnaire_check(&num, "-", &why), -1);
    CHECK_INT(questionnaire_check(&num, "nan", NULL), -1);
    SurveyQuestion open = {.type = QTYPE_NUMBER, .min = 0, .max = HUGE_VAL};
    CHECK_INT(questionnaire_check(&open, "-2", &why), -1);
    CHECK_STR(message(NULL, &open, "-2"), "Enter a number of at least 0.");
    SurveyQuestion upto = {.type = QTYPE_NUMBER, .min = -HUGE_VAL, .max = 2.5};
    CHECK_STR(message(NULL, &upto, "3"), "Enter a number of at most 2.5.");
    SurveyQuestion any = {
        .type = QTYPE_NUMBER, .min = -HUGE_VAL, .max = HUGE_VAL};
    CHECK_STR(message(NULL, &any, "x"), "Enter a number.");

    SurveyQuestion lik = {.type = QTYPE_LIKERT, .points = 5};
    CHECK_INT(questionnaire_check(&lik, "5", NULL), 1);
    CHECK_INT(questionnaire_check(&lik, "0", NULL), -1);
    CHECK_INT(questionnaire_check(&lik, "6", NULL), -1);
    CHECK_INT(questionnaire_check(&lik, "2.5", &why), -1);
    CHECK_INT(why, ANSWER_LIKERT);
    CHECK_STR(message(NULL, &lik, "2.5"), "Choose a point from 1 to 5.");

    char no[] = "no", yes[] = "yes";
    char *opts[] = {no, yes};
    SurveyQuestion ch = {.type = QTYPE_CHOICE, .options = opts, .n_options = 2};
    CHECK_INT(questionnaire_check(&ch, "yes", NULL), 1);
    CHECK_INT(questionnaire_check(&ch, "Yes", &why), -1);
    CHECK_INT(why, ANSWER_CHOICE);
    CHECK_STR(message(NULL, &ch, "Yes"), "Choose one of the options.");

    SurveyQuestion txt = {.type = QTYPE_TEXT, .max_length = 3};
    CHECK_INT(questionnaire_check(&txt, "\xc3\xa9\xc3\xa9\xc3\xa9", NULL),
              1); /* three characters, six bytes */
    CHECK_INT(questionnaire_check(&txt, "abcd", &why), -1);
    CHECK_INT(why, ANSWER_TOO_LONG);
    CHECK_STR(message(NULL, &txt, "abcd"), "At most 3 characters, please.");
    CHECK_INT(questionnaire_check(&txt, " \n ", NULL), 0);
    CHECK_INT(questionnaire_check(&txt, "\xff", &why), -1);
    CHECK_INT(why, ANSWER_TEXT_INVALID);
    CHECK(message(NULL, &txt, "\xff")[0] != '\0');

    /* every message exists in every shipped language, with the numbers */
    for (size_t lang = 0; lang < ui_language_count(); lang++) {
        UiStrings *t = ui_strings_new(lang, NULL);
        CHECK(t != NULL);
        CHECK(strstr(message(t, &num, "17"), "18") != NULL);
        CHECK(strstr(message(t, &num, "17"), "99") != NULL);
        CHECK(strstr(message(t, &lik, "9"), "5") != NULL);
        CHECK(strstr(message(t, &txt, "abcd"), "3") != NULL);
        CHECK(message(t, &ch, "x")[0] != '\0');
        CHECK(message(t, &any, "x")[0] != '\0');
        if (lang > 0) {
            CHECK(strcmp(message(t, &ch, "x"), "Choose one of the options.") !=
                  0);
        }
        ui_strings_free(t);
    }
    CHECK_INT(questionnaire_utf8_len("a\xc3\xa9\xe4\xb8\xad"), 3);
    CHECK_INT(questionnaire_utf8_drop_last("a\xc3\xa9", 3), 1);
    CHECK_INT(questionnaire_utf8_drop_last("a\xe4\xb8\xad", 4), 1);
    CHECK_INT(questionnaire_utf8_drop_last("", 0), 0);
}

/* ------------------------------------------------------------- session */

static char tmp[256];
static int64_t T = 1000000000;

static int send(Session *s, SimInputKind kind, int value, const char *key)
{
    SimInput in = {kind, value, key, T, 1700000000000LL + T / 1000000};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    T += 250000000;
    return consumed;
}

static void show(Session *s)
{
    T += 16000000;
    session_mark_onset(s, T);
    T += 700000000;
}

static int sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static void sql_text(sqlite3 *db, const char *sql, char *out, size_t n)
{
    sqlite3_stmt *st;
    out[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
}

/* Continues through pages and examples and answers predictions until the
** next questionnaire (or the end). */
static void advance_to_questionnaire(Session *s)
{
    for (int guard = 0; guard < 100 && !session_finished(s); guard++) {
        const SessionView *v = session_view(s);
        if (v->screen == SCREEN_QUESTIONNAIRE) {
            return;
        }
        show(s);
        if (v->need_choice) {
            send(s, SIM_IN_CHOOSE, 0, NULL);
        } else {
            send(s, SIM_IN_CONTINUE, 0, NULL);
        }
    }
}

static void test_session(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/q.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    EnrollSpec es = {.condition = "LIME", .seed = 7, .wall_ms = 1000};
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &es, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 2000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    advance_to_questionnaire(s);
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_QUESTIONNAIRE);
    CHECK_STR(session_screen_name(v->screen), "questionnaire");
    CHECK(v->block && v->block->n_survey == 3);
    CHECK_INT(v->focus, 0); /* the number field takes typing first */
    CHECK_INT(v->answers_complete, 0);
    /* nothing counts before the screen is shown */
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "4"), 0);
    show(s);
    CHECK_STR(v->page_text, "A few questions about you. They are **not "
                            "scored**.");
    /* "min_seconds": 2 -- Continue is not even considered before */
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0, NULL), 0);
    CHECK_INT(session_view(s)->answers_tried, 0);
    T += 2000000000LL;
    /* Continue with required answers missing: refused, and marked */
    CHECK_INT(send(s, SIM_IN_CONTINUE, 0, NULL), 1);
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_QUESTIONNAIRE);
    CHECK_INT(v->answers_tried, 1);
    /* an age out of range: a clear message, Continue still refused */
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "1"), 1);
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "5"), 1);
    v = session_view(s);
    CHECK_STR(v->answers[0], "15");
    CHECK_INT(v->answer_problems[0], ANSWER_NUMBER);
    char shown[160];
    questionnaire_problem_text(st->ui_strings, &v->block->survey[0],
                               v->answer_problems[0], shown, sizeof shown);
    CHECK_STR(shown, "Enter a number from 18 to 99.");
    /* the keyboard: Backspace removes a character, Return is Continue
    ** here, space types nothing for a number */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "backspace"), 1);
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "9"), 1);
    v = session_view(s);
    CHECK_STR(v->answers[0], "19");
    CHECK_INT(v->answer_problems[0], ANSWER_OK);
    CHECK_INT(send(s, SIM_IN_KEY, 0, "space"), 0);
    /* a choice by click; a likert point must be one of its points */
    CHECK_INT(send(s, SIM_IN_PICK, 1 * 256 + 2, NULL), 1);
    v = session_view(s);
    CHECK_STR(v->answers[1], "I use it at work");
    CHECK_INT(send(s, SIM_IN_ANSWER, 2, "9"), 0);
    CHECK_INT(send(s, SIM_IN_PICK, 2 * 256 + 6, NULL), 0);
    CHECK_INT(v->answers_complete, 0);
    /* Tab moves the focus to the likert; a typed digit picks its point */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "tab"), 1);
    CHECK_INT(send(s, SIM_IN_KEY, 0, "tab"), 1);
    CHECK_INT(session_view(s)->focus, 2);
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "4"), 1);
    v = session_view(s);
    CHECK_STR(v->answers[2], "4");
    CHECK_INT(v->answers_complete, 1);
    int seq = v->trial->seq;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "return"), 1);
    v = session_view(s);
    CHECK(v->screen != SCREEN_QUESTIONNAIRE);
    sqlite3 *db = store_db(store);
    char sql[256], val[256];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM answer WHERE seq = %d AND rt_ms > 0", seq);
    CHECK_INT(sql_int(db, sql), 3);
    sql_text(db,
             "SELECT group_concat(question || '=' || value, ';') FROM "
             "(SELECT * FROM answer ORDER BY rowid)",
             val, sizeof val);
    CHECK_STR(val, "age=19;ml=I use it at work;english=4");
    snprintf(sql, sizeof sql,
             "SELECT done FROM response WHERE seq = %d AND choice IS NULL",
             seq);
    CHECK_INT(sql_int(db, sql), 1);

    /* the second questionnaire: half answered, then the program dies */
    advance_to_questionnaire(s);
    v = session_view(s);
    CHECK(v->block && strcmp(v->block->id, "survey") == 0);
    show(s);
    CHECK_INT(send(s, SIM_IN_PICK, 0 * 256 + 6, NULL), 1);
    CHECK_INT(send(s, SIM_IN_FOCUS, 2, NULL), 1);
    CHECK_INT(send(s, SIM_IN_TEXT, 0, "ok \xc3\xa9"), 1);
    CHECK_INT(send(s, SIM_IN_BACKSPACE, 0, NULL), 1);
    CHECK_STR(session_view(s)->answers[2], "ok ");
    session_close(s);
    store_close(store);
    store = NULL;
    s = NULL;

    /* resumed: the first questionnaire's answers are kept, the second
    ** is asked again from the start */
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 9000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    db = store_db(store);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM answer"), 3);
    CHECK_INT(session_open(store, st, info.id, 9000, &s, &err), SIM_OK);
    v = s ? session_view(s) : NULL;
    CHECK(v && v->screen == SCREEN_QUESTIONNAIRE && v->block &&
          strcmp(v->block->id, "survey") == 0 && v->answers[0][0] == '\0');
    if (s) {
        show(s);
        CHECK_INT(send(s, SIM_IN_PICK, 0 * 256 + 6, NULL), 1);
        CHECK_INT(send(s, SIM_IN_ANSWER, 1, "11"), 1); /* out of 0..10 */
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0, NULL), 1);
        CHECK_INT(session_view(s)->screen, SCREEN_QUESTIONNAIRE);
        CHECK_INT(send(s, SIM_IN_ANSWER, 1, "2,5"), 1);
        /* multi-line text: Return types a line break into it */
        CHECK_INT(send(s, SIM_IN_FOCUS, 2, NULL), 1);
        CHECK_INT(send(s, SIM_IN_TEXT, 0, "=SUM(A1)"), 1);
        CHECK_INT(send(s, SIM_IN_KEY, 0, "return"), 1);
        CHECK_INT(send(s, SIM_IN_TEXT, 0, "\xe4\xb8\xad"), 1);
        CHECK_STR(session_view(s)->answers[2], "=SUM(A1)\n\xe4\xb8\xad");
        CHECK_INT(send(s, SIM_IN_CONTINUE, 0, NULL), 1);
        advance_to_questionnaire(s);
        CHECK_INT(session_finished(s), 1);
        session_close(s);
    }
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM answer"), 6);
    sql_text(db, "SELECT value FROM answer WHERE question = 'strategy'", val,
             sizeof val);
    CHECK_STR(val, "=SUM(A1)\n\xe4\xb8\xad");
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                          "'completed'"),
              1);
    store_close(store);
}

/* -------------------------------------------------------------- export */

static void test_export(void)
{
    char db[512], csv[512], qcsv[512], side[512];
    snprintf(db, sizeof db, "%s/q.db", tmp);
    snprintf(csv, sizeof csv, "%s/out.csv", tmp);
    snprintf(side, sizeof side, "%s/out.csv.json", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    char *qp = export_questionnaire_path(csv);
    snprintf(qcsv, sizeof qcsv, "%s", qp ? qp : "");
    free(qp);
    CHECK(strstr(qcsv, "/out.questionnaire.csv") != NULL);
    size_t len = 0;
    char *text = fs_read(qcsv, &len);
    CHECK(text != NULL);
    if (text) {
        CHECK(strncmp(text,
                      "participant,condition,station,block,question,type,"
                      "value,rt_ms\r\n",
                      62) == 0);
        int rows = 0;
        for (char *p = text; *p; p++) {
            rows += *p == '\n' && p[1] != '\0' ? 1 : 0;
        }
        CHECK_INT(rows, 7); /* header line + 6 answers, minus the last */
        CHECK(strstr(text, ",LIME,") != NULL);
        CHECK(strstr(text, ",about-you,age,number,19,") != NULL);
        CHECK(strstr(text, ",about-you,ml,choice,I use it at work,") != NULL);
        /* a decimal comma is stored as a point */
        CHECK(strstr(text, ",survey,effort,number,2.5,") != NULL);
        /* a formula is neutralised; the line break stays inside quotes */
        CHECK(strstr(text,
                     ",survey,strategy,text,\"'=SUM(A1)\n\xe4\xb8\xad\",") !=
              NULL);
        free(text);
    }
    text = fs_read(side, &len);
    CHECK(text && strstr(text, "\"questionnaire\"") &&
          strstr(text, "out.questionnaire.csv") && strstr(text, "\"rows\": 6"));
    free(text);
    /* raw: exactly as stored */
    ExportOptions raw = {.raw = 1};
    CHECK_INT(export_long_csv_opt(db, csv, &raw, &err), SIM_OK);
    text = fs_read(qcsv, &len);
    CHECK(text && strstr(text, ",\"=SUM(A1)\n\xe4\xb8\xad\","));
    free(text);
    /* an SQLite file where the answers would go: refused, nothing written */
    char evil[512], evil_q[512];
    snprintf(evil, sizeof evil, "%s/evil.csv", tmp);
    snprintf(evil_q, sizeof evil_q, "%s/evil.questionnaire.csv", tmp);
    CHECK_INT(fs_copy_file(db, evil_q), 0);
    CHECK_INT(export_long_csv(db, evil, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "evil.questionnaire.csv") != NULL);
    CHECK(!fs_read(evil, &len));
    qp = export_questionnaire_path("plain");
    CHECK_STR(qp, "plain.questionnaire.csv");
    free(qp);
}

/* ------------------------------------------------------------ simulate */

static void test_simulate(const Study *st)
{
    char dir[512], db[512];
    snprintf(dir, sizeof dir, "%s/experiment/mini-questionnaire",
             SIMLAB_TEST_DATA);
    snprintf(db, sizeof db, "%s/sim.db", tmp);
    SimulateOptions o = {.bundle_dir = dir,
                         .db_path = db,
                         .participants = 12,
                         .policy = POLICY_MIXED,
                         .seed = 5,
                         .station = "sim",
                         .durability = DURABILITY_FAST,
                         .participant_sd = -1,
                         .item_sd = -1,
                         .wall_ms = 1700000000000LL};
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);
    sqlite3 *h = NULL;
    CHECK_INT(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *s = NULL;
    CHECK_INT(sqlite3_prepare_v2(h,
                                 "SELECT t.block_id, a.question, a.value, "
                                 "a.type FROM answer a JOIN trial t ON "
                                 "t.participant = a.participant AND t.seq = "
                                 "a.seq",
                                 -1, &s, NULL),
              SQLITE_OK);
    int rows = 0, valid = 0, typed = 0;
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        const Block *b =
            study_find_block(st, (const char *)sqlite3_column_text(s, 0));
        const char *qid = (const char *)sqlite3_column_text(s, 1);
        for (size_t i = 0; b && i < b->n_survey; i++) {
            if (strcmp(b->survey[i].id, qid) == 0) {
                valid +=
                    questionnaire_check(&b->survey[i],
                                        (const char *)sqlite3_column_text(s, 2),
                                        NULL) == 1;
                typed += strcmp(question_type_name(b->survey[i].type),
                                (const char *)sqlite3_column_text(s, 3)) == 0;
            }
        }
        rows++;
    }
    sqlite3_finalize(s);
    /* 5 required answers each, and some of the optional text answers */
    CHECK(rows >= 12 * 5 && rows <= 12 * 6);
    CHECK(rows < 12 * 6); /* some leave the optional text empty */
    CHECK_INT(valid, rows);
    CHECK_INT(typed, rows);
    CHECK_INT(sql_int(h, "SELECT COUNT(DISTINCT participant) FROM answer WHERE "
                         "question = 'trust'"),
              12);
    sqlite3_close(h);
}

int main(void)
{
    test_parse();
    test_language();
    test_checks();
    if (!fs_temp_dir(tmp, sizeof tmp, "questionnaire-run")) {
        CHECK(!"mkdtemp");
        return TEST_REPORT();
    }
    Study *st = test_study_load("mini-questionnaire");
    CHECK(st != NULL);
    if (st) {
        test_session(st);
        test_export();
        test_simulate(st);
    }
    study_free(st);
    fs_remove_tree(tmp);
    return TEST_REPORT();
}
