/*
** The runner's participant-facing strings: one table with stable keys
** ("continue", "predict.question", ...), shipped translations selected by a
** BCP 47 tag, and per-study overrides. A resolved table (UiStrings) belongs
** to a Study; the runner only looks keys up. No file or clock access here.
*/
#ifndef SIMLAB_STIMULI_UISTRINGS_H
#define SIMLAB_STIMULI_UISTRINGS_H

#include <stddef.h>

typedef enum UiKey {
    UI_CONTINUE,
    UI_CONTINUE_WAIT,
    UI_DEADLINE_LEFT,
    UI_CONSENT_AGREE,
    UI_CONSENT_DECLINE,
    UI_TRY_AGAIN,
    UI_PREDICT_QUESTION,
    UI_CF_QUESTION,
    UI_RATING_QUESTION,
    UI_RATING_LOW,
    UI_RATING_HIGH,
    UI_QUIZ_RETRY,
    UI_FEEDBACK_CORRECT,
    UI_FEEDBACK_WRONG,
    UI_FEEDBACK_QUIZ_RIGHT,
    UI_FEEDBACK_QUIZ_ANSWER,
    UI_FEEDBACK_QUIZ_AGAIN,
    UI_FEEDBACK_MODEL_OUTPUT,
    UI_FEEDBACK_MODEL_AGAIN,
    UI_ITEM_TRUE_LABEL,
    UI_ITEM_MODEL_OUTPUT,
    UI_ITEM_MODEL,
    UI_ITEM_ORIGINAL,
    UI_ITEM_CHANGED,
    UI_ITEM_UNCHANGED,
    UI_ITEM_INPUT,
    UI_ITEM_EXPLANATION,
    UI_ITEM_EXPLANATION_ORIGINAL,
    UI_RESERVOIR_TITLE,
    UI_RESERVOIR_SCROLL,
    UI_BREAK_TITLE,
    UI_BREAK_TEXT,
    UI_TITLE_CONSENT,
    UI_TITLE_INSTRUCTIONS,
    UI_TITLE_QUIZ,
    UI_TITLE_RATING,
    UI_TITLE_FEEDBACK,
    UI_TITLE_BREAK,
    UI_TITLE_DEBRIEF,
    UI_TITLE_SESSION_EXAMPLES,
    UI_TITLE_PRACTICE_EXAMPLE,
    UI_TITLE_LEARN_EXPL,
    UI_TITLE_LEARN,
    UI_TITLE_SESSION_PREDICT,
    UI_TITLE_PRACTICE_PREDICT,
    UI_TITLE_PRE_PREDICT,
    UI_TITLE_POST_PREDICT,
    UI_TITLE_PREDICT,
    UI_TITLE_PRE_CF,
    UI_TITLE_POST_CF,
    UI_TITLE_CF,
    UI_PAUSED_TITLE,
    UI_PAUSED_TEXT,
    UI_WAIT_TITLE,
    UI_WAIT_TEXT,
    UI_SCREENED_OUT_TITLE,
    UI_SCREENED_OUT_TEXT,
    UI_DONE_TITLE,
    UI_DONE_TEXT,
    UI_PROGRESS,
    UI_IMAGE_MISSING,
    UI_EXPL_TEXT_A,
    UI_EXPL_TEXT_B,
    UI_EXPL_FIRST,
    UI_EXPL_SECOND,
    UI_EXPL_LESS_IMPORTANT,
    UI_EXPL_MORE_IMPORTANT,
    UI_EXPL_TOWARD,
    UI_EXPL_INTERACTIONS,
    UI_EXPL_BASELINE,
    UI_EXPL_SUM,
    UI_EXPL_TOTAL,
    UI_EXPL_IF,
    UI_EXPL_AND,
    UI_EXPL_THEN,
    UI_EXPL_THIS_CLASS,
    UI_EXPL_PRECISION,
    UI_EXPL_COVERAGE,
    UI_EXPL_PROTOTYPE_EVIDENCE,
    UI_EXPL_PROTOTYPE,
    UI_EXPL_COL_FEATURE,
    UI_EXPL_COL_PROTOTYPE,
    UI_EXPL_COL_INPUT,
    UI_EXPL_DIFFER,
    UI_EXPL_IMPORTANT,
    UI_EXPL_PATH_TOWARD,
    UI_EXPL_PATH,
    UI_EXPL_START,
    UI_EXPL_STEP,
    UI_EXPL_AS_IS,
    UI_QUESTIONNAIRE_OPTIONAL,
    UI_QUESTIONNAIRE_MISSING,
    UI_SCROLL_HINT,
    UI_CONFIDENCE_QUESTION,
    UI_CONFIDENCE_LOW,
    UI_CONFIDENCE_HIGH,
    UI_QUESTIONNAIRE_NUMBER_RANGE,
    UI_QUESTIONNAIRE_NUMBER_MIN,
    UI_QUESTIONNAIRE_NUMBER_MAX,
    UI_QUESTIONNAIRE_NUMBER,
    UI_QUESTIONNAIRE_CHOICE,
    UI_QUESTIONNAIRE_LIKERT,
    UI_QUESTIONNAIRE_TEXT_INVALID,
    UI_QUESTIONNAIRE_TOO_LONG,
    UI_EXPL_SHOW,
    UI_EXPL_HIDE,
    UI_EXPL_SHOW_KEY,
    UI_EXPL_HOVER_HINT,
    UI_EXPL_BARS_SUM,
    UI_NUMBER_DECIMAL,
    UI_DONE_ONLINE,
    UI_DONE_ONLINE_CODE,
    UI_SCREENED_OUT_ONLINE,
    UI_WEB_LOADING,
    UI_WEB_OFFLINE,
    UI_WEB_SAVING,
    UI_WEB_NOT_TAKEN,
    UI_WEB_OTHER_TITLE,
    UI_WEB_OTHER_TEXT,
    UI_WEB_CONTINUE_HERE,
    UI_WEB_NO_ID_TITLE,
    UI_WEB_NO_ID_TEXT,
    UI_WEB_ERROR_TITLE,
    UI_WEB_CODE_TITLE,
    UI_WEB_CODE_LINK,
    UI_WEB_COPY,
    UI_WEB_COPIED,
    UI_WEB_WAIT_SERVER,
    UI_WEB_RESUME_CODE_TITLE,
    UI_WEB_RESUME_CODE_KEEP,
    UI_WEB_RESUME_TITLE,
    UI_WEB_RESUME_ASK,
    UI_WEB_RESUME_OTHER,
    UI_WEB_RESUME_LABEL,
    UI_WEB_RESUME_GO,
    UI_WEB_RESUME_WRONG,
    UI_VERIFY_QUESTION,
    UI_VERIFY_ACCEPT,
    UI_VERIFY_REJECT,
    UI_DECIDE_QUESTION,
    UI_TITLE_VERIFY,
    UI_TITLE_DECIDE,
    UI_KEY_COUNT
} UiKey;

typedef struct UiStrings UiStrings;

/* The text for key k in table t; t NULL gives the English text. Never NULL
** for a valid key ("" for an invalid one). Texts whose English has
** placeholders ("%d of %d") keep them, in order (ui_placeholders_ok), so
** they may be passed to snprintf as the format; the others are plain text
** (print them with "%s"). */
const char *ui_str(const UiStrings *t, UiKey k);

/* The text of key k in t to use as a printf format. english is the key's
** English text, written out at the call so the compiler checks the
** arguments against it; translations carry the same placeholders (checked
** when they are loaded). Returns english itself when it is not the key's
** English text. */
const char *ui_fmt(const UiStrings *t, UiKey k, const char *english)
    __attribute__((format_arg(3)));

/* The stable name of key k ("predict.question"), or NULL when out of range. */
const char *ui_key_name(UiKey k);

/* The key named name, or -1. */
int ui_key_from_name(const char *name);

/* Shipped languages: their count, and the BCP 47 tag of language i. */
size_t ui_language_count(void);
const char *ui_language_tag(size_t i);

/* The index of the shipped language tagged tag (case-insensitive), or -1. */
int ui_language_find(const char *tag);
/* The shipped language for tag as study.json's "language" resolves it
** (stimuli/uiparse.c): the tag itself, else the tag with subtags dropped
** from the end ("de-AT" -> de); Chinese without a script ("zh", "zh-CN",
** "zh-SG") is Simplified, a Traditional tag none. -1 when none. */
int ui_language_resolve(const char *tag);

/* Whether text in the language tagged tag runs right to left: 1 for a tag
** whose primary language is written in an RTL script (ar, he, fa, ur, ps,
** sd, ug, yi, dv, ckb; case-insensitive, so "ar-EG" and "AR" count), 0 for
** any other tag and for NULL. Layout code reads this one switch to mirror
** participant screens. */
int ui_language_rtl(const char *tag);

/* The shipped text of key k in language i ("" when out of range). */
const char *ui_language_text(size_t i, UiKey k);

/* Whether text carries the same printf placeholders, in the same order, as
** the English text of key k ("%%" is a literal percent sign). Keys whose
** English text has no placeholder are plain text: any text is fine. Returns
** 1 when it is; otherwise 0 with a short reason in why. */
int ui_placeholders_ok(UiKey k, const char *text, char *why, size_t why_size);

/* A new table holding the shipped language i (English when i is out of
** range), tagged tag (copied). NULL when out of memory. */
UiStrings *ui_strings_new(size_t language, const char *tag);

/* Replaces the text of key k with a copy of text. Returns 0, or -1 when out
** of memory or k is out of range. The caller checks placeholders first. */
int ui_strings_set(UiStrings *t, UiKey k, const char *text);

/* The language tag the table was made with. */
const char *ui_strings_language(const UiStrings *t);

/* Whether participant text of the table's language runs right to left:
** the direction set with ui_strings_set_rtl (a bundle language file's
** "direction"), else ui_language_rtl of its tag; 0 for NULL. The one
** switch the runner's layout reads to mirror participant screens. */
int ui_strings_rtl(const UiStrings *t);

/* Sets the table's direction whatever its tag says: rtl 1 right to left,
** 0 left to right. */
void ui_strings_set_rtl(UiStrings *t, int rtl);

void ui_strings_free(UiStrings *t); /* NULL is a no-op */

/* The key name / shipped language tag closest to s, or NULL when none is
** within a small edit distance ("did you mean"). */
const char *ui_key_suggest(const char *s);
const char *ui_language_suggest(const char *s);

#endif
