/*
** Screen headings (session_title.h).
*/
#include "experiment/session_title.h"

#include <stdio.h>

enum { NO_KEY = -1 };

/* One row per BlockKind: the heading of its screens (NO_KEY: by screen and
** phase). */
static const int kind_titles[] = {
    [BLOCK_CONSENT] = UI_TITLE_CONSENT,
    [BLOCK_INSTRUCTIONS] = UI_TITLE_INSTRUCTIONS,
    [BLOCK_QUIZ] = UI_TITLE_QUIZ,
    [BLOCK_PRACTICE] = NO_KEY,
    [BLOCK_LEARN] = NO_KEY,
    [BLOCK_PREDICT] = NO_KEY,
    [BLOCK_COUNTERFACTUAL] = NO_KEY,
    [BLOCK_RATING] = NO_KEY,
    [BLOCK_BREAK] = UI_TITLE_BREAK,
    [BLOCK_DEBRIEF] = UI_TITLE_DEBRIEF,
    [BLOCK_QUESTIONNAIRE] = NO_KEY,
    [BLOCK_VERIFY] = UI_TITLE_VERIFY,
    [BLOCK_DECIDE] = UI_TITLE_DECIDE,
};

_Static_assert(sizeof kind_titles / sizeof *kind_titles == BLOCK_KIND_COUNT,
               "one row per BlockKind");

/* One row per SessionScreen: the heading when neither the block nor its
** phase gives one (NO_KEY: none). */
static const int screen_titles[] = {
    [SCREEN_CONSENT] = UI_TITLE_CONSENT,
    [SCREEN_PAGE] = UI_TITLE_INSTRUCTIONS,
    [SCREEN_QUIZ] = UI_TITLE_QUIZ,
    [SCREEN_EXAMPLE] = NO_KEY,
    [SCREEN_PREDICT] = NO_KEY,
    [SCREEN_COUNTERFACTUAL] = NO_KEY,
    [SCREEN_RATING] = UI_TITLE_RATING,
    [SCREEN_FEEDBACK] = UI_TITLE_FEEDBACK,
    [SCREEN_BREAK] = UI_TITLE_BREAK,
    [SCREEN_PAUSED] = NO_KEY,
    [SCREEN_STORE_ERROR] = NO_KEY,
    [SCREEN_SCREENED_OUT] = NO_KEY,
    [SCREEN_DONE] = NO_KEY,
    [SCREEN_QUESTIONNAIRE] = NO_KEY,
    [SCREEN_TIMEOUT] = NO_KEY,
    [SCREEN_VERIFY] = UI_TITLE_VERIFY,
    [SCREEN_DECIDE] = UI_TITLE_DECIDE,
};

_Static_assert(sizeof screen_titles / sizeof *screen_titles ==
                   SESSION_SCREEN_COUNT,
               "one row per SessionScreen");

static const char *tr(const UiStrings *s, int k)
{
    return k == NO_KEY ? "" : ui_str(s, (UiKey)k);
}

const char *session_title(const SessionView *v, const UiStrings *s, char *buf,
                          size_t n)
{
    if (v->title) {
        return v->title;
    }
    if ((unsigned)v->screen >= SESSION_SCREEN_COUNT) {
        return "";
    }
    const Block *b = v->block;
    if (b && (unsigned)b->kind < BLOCK_KIND_COUNT &&
        kind_titles[b->kind] != NO_KEY) {
        return tr(s, kind_titles[b->kind]);
    }
    SimPhase phase = b ? b->phase_id : SIM_PHASE_NONE;
    int sess = b ? b->session : 0;
    switch (v->screen) {
    case SCREEN_EXAMPLE:
        if (sess > 0) {
            snprintf(
                buf, n,
                ui_fmt(s, UI_TITLE_SESSION_EXAMPLES, "Session %d: examples"),
                sess);
            return buf;
        }
        if (phase == SIM_PHASE_PRACTICE) {
            return tr(s, UI_TITLE_PRACTICE_EXAMPLE);
        }
        return tr(s, v->explanation ? UI_TITLE_LEARN_EXPL : UI_TITLE_LEARN);
    case SCREEN_PREDICT:
        if (sess > 0) {
            snprintf(buf, n,
                     ui_fmt(s, UI_TITLE_SESSION_PREDICT,
                            "Session %d: predict the model"),
                     sess);
            return buf;
        }
        return tr(s, phase == SIM_PHASE_PRACTICE ? UI_TITLE_PRACTICE_PREDICT
                     : phase == SIM_PHASE_PRE    ? UI_TITLE_PRE_PREDICT
                     : phase == SIM_PHASE_POST   ? UI_TITLE_POST_PREDICT
                                                 : UI_TITLE_PREDICT);
    case SCREEN_COUNTERFACTUAL:
        return tr(s, phase == SIM_PHASE_PRE    ? UI_TITLE_PRE_CF
                     : phase == SIM_PHASE_POST ? UI_TITLE_POST_CF
                                               : UI_TITLE_CF);
    case SCREEN_FEEDBACK:
        return tr(s, v->question ? UI_TITLE_QUIZ : UI_TITLE_FEEDBACK);
    default:
        return tr(s, screen_titles[v->screen]);
    }
}
