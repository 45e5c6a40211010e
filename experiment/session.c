/*
** The session state machine. Inputs request a transition; go_to() applies
** it and rebuilds the view. Responses are committed to the store before the
** session moves to the next step; a failed write parks the session on
** SCREEN_STORE_ERROR with the response kept for retry. No SDL, no clock.
**
** States (screen) and transitions:
**   step screens (CONSENT, PAGE, QUIZ, EXAMPLE, PREDICT, COUNTERFACTUAL,
**   RATING, BREAK) --answer--> [commit] --> FEEDBACK (practice, quiz)
**                                      \--> next step's screen, or DONE
**   PREDICT/COUNTERFACTUAL --deadline (tick or late input)--> [commit,
**     timed out] --> TIMEOUT (timeout_message) --1 s--> next step,
**     or the next step's screen at once
**   FEEDBACK --continue--> same step again (retry) or next step
**   QUESTIONNAIRE: answers, focus, typing and backspaces stay on it;
**   continue commits the answers with the step once they are complete
**   any step screen --pause--> PAUSED --resume--> the same screen
**   any --abort--> DONE (aborted; resumable later)
**   commit fails --> STORE_ERROR --retry ok--> where the commit would lead
**   screening rule fails with stop_on_failure --> SCREENED_OUT
*/
#include "experiment/session.h"

#include "common/sim_alloc.h"
#include "experiment/session_quest.h"
#include "experiment/session_reveal.h"
#include "stimuli/page.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* What happens once the pending response is stored. */
typedef enum After {
    AFTER_NEXT = 0,     /* go to the next step */
    AFTER_FEEDBACK = 1, /* show feedback for the current step */
    AFTER_DECLINE = 2,  /* consent declined: end the run */
    AFTER_TIMEOUT = 3   /* timed out: show the timeout message */
} After;

struct Session {
    Store *store;
    const Study *study;
    const Condition *cond;
    Schedule *sched;
    char pid[37];
    int64_t created_ms;

    int cur;              /* current step (== n_trials when over) */
    SessionScreen screen; /* what is shown */
    SessionScreen held;   /* screen to return to after PAUSED */
    unsigned serial;      /* bumps on every new screen */
    int finished;
    int aborted;

    int onset_marked;
    int64_t onset_ns;      /* onset of the current screen */
    int64_t step_onset_ns; /* onset of the step's first attempt */

    int choice; /* selection so far, -1 none */
    int64_t choice_ns;
    int rating; /* 0 none */
    int64_t rating_ns;
    int confidence; /* 0 none */
    int64_t confidence_ns;
    int scroll_overflow; /* reported: the screen is taller than the window */
    int scroll_seen_end; /* reported: scrolled to the end of this screen */
    int attempt;         /* 1-based */

    int fb_correct; /* feedback state */
    int fb_final;

    Response pending; /* response waiting to be stored */
    char pending_id[256];
    int has_pending;
    After after;

    char message[512];
    int store_failures;    /* failed writes of the pending response */
    char store_error[512]; /* the first failure's message */
    SessionView view;
    /* the reservoir of the current step (view.reservoir*): room for every
    ** item of the study */
    const char **res_keys;
    const Item **res_items;
    const Explanation **res_expl;
    QuestState quest;       /* questionnaire step: answers so far */
    RevealState reveal;     /* explanations on request or hover: shown, hovered,
                               the attempt's events */
    const char *reveal_key; /* the key that shows the explanation */
};

/* ----------------------------------------------------------------- names */

const char *session_screen_name(SessionScreen screen)
{
    static const char *const names[] = {
        [SCREEN_CONSENT] = "consent",
        [SCREEN_PAGE] = "page",
        [SCREEN_QUIZ] = "quiz",
        [SCREEN_EXAMPLE] = "example",
        [SCREEN_PREDICT] = "predict",
        [SCREEN_COUNTERFACTUAL] = "counterfactual",
        [SCREEN_RATING] = "rating",
        [SCREEN_FEEDBACK] = "feedback",
        [SCREEN_BREAK] = "break",
        [SCREEN_PAUSED] = "paused",
        [SCREEN_STORE_ERROR] = "store_error",
        [SCREEN_SCREENED_OUT] = "screened_out",
        [SCREEN_DONE] = "done",
        [SCREEN_QUESTIONNAIRE] = "questionnaire",
        [SCREEN_TIMEOUT] = "timeout",
        [SCREEN_VERIFY] = "verify",
        [SCREEN_DECIDE] = "decide"};
    _Static_assert(sizeof names / sizeof *names == SESSION_SCREEN_COUNT,
                   "one name per SessionScreen");
    return (unsigned)screen < SESSION_SCREEN_COUNT ? names[screen] : "?";
}

static int key_equal(const char *a, const char *b)
{
    if (!a || !b) {
        return 0;
    }
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return 0;
        }
        a++;
        b++;
    }
    return *a == *b;
}

int session_key_is_continue(const char *key)
{
    static const char *const keys[] = {"return", "enter", "space",
                                       "keypad enter", "kp_enter"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (key_equal(key, keys[i])) {
            return 1;
        }
    }
    return 0;
}

/* The digit 1..9 that key names, or 0. */
static int digit_key(const char *key)
{
    return key && key[0] >= '1' && key[0] <= '9' && key[1] == '\0'
               ? key[0] - '0'
               : 0;
}

/* ---------------------------------------------------------------- access */

static const Trial *cur_trial(const Session *s)
{
    return s->cur >= 0 && (size_t)s->cur < s->sched->n_trials
               ? &s->sched->trials[s->cur]
               : NULL;
}

/* How a kind's answers are checked. */
typedef enum Checked {
    CHECKED_NONE = 0,     /* no feedback, no retry */
    CHECKED_PRACTICE = 1, /* feedback and retry as the block says (not on
                             examples); the "practice" screening rule */
    CHECKED_QUIZ = 2      /* questions with options: always feedback, retry
                             while repeat_until_correct; the "quiz" rule */
} Checked;

/* One row per BlockKind: the screen of its steps (and of its examples) and
** how its answers are checked. */
static const struct {
    SessionScreen screen;
    SessionScreen example_screen;
    Checked checked;
} kind_screens[] = {
    [BLOCK_CONSENT] = {SCREEN_CONSENT, SCREEN_CONSENT, CHECKED_NONE},
    [BLOCK_INSTRUCTIONS] = {SCREEN_PAGE, SCREEN_PAGE, CHECKED_NONE},
    [BLOCK_QUIZ] = {SCREEN_QUIZ, SCREEN_QUIZ, CHECKED_QUIZ},
    [BLOCK_PRACTICE] = {SCREEN_PREDICT, SCREEN_EXAMPLE, CHECKED_PRACTICE},
    [BLOCK_LEARN] = {SCREEN_EXAMPLE, SCREEN_EXAMPLE, CHECKED_NONE},
    [BLOCK_PREDICT] = {SCREEN_PREDICT, SCREEN_EXAMPLE, CHECKED_NONE},
    [BLOCK_COUNTERFACTUAL] = {SCREEN_COUNTERFACTUAL, SCREEN_EXAMPLE,
                              CHECKED_NONE},
    [BLOCK_RATING] = {SCREEN_RATING, SCREEN_EXAMPLE, CHECKED_NONE},
    [BLOCK_BREAK] = {SCREEN_BREAK, SCREEN_BREAK, CHECKED_NONE},
    [BLOCK_DEBRIEF] = {SCREEN_PAGE, SCREEN_PAGE, CHECKED_NONE},
    [BLOCK_QUESTIONNAIRE] = {SCREEN_QUESTIONNAIRE, SCREEN_QUESTIONNAIRE,
                             CHECKED_NONE},
    [BLOCK_VERIFY] = {SCREEN_VERIFY, SCREEN_EXAMPLE, CHECKED_NONE},
    [BLOCK_DECIDE] = {SCREEN_DECIDE, SCREEN_EXAMPLE, CHECKED_NONE},
};

_Static_assert(sizeof kind_screens / sizeof *kind_screens == BLOCK_KIND_COUNT,
               "one row per BlockKind");

static Checked checked(const Block *b)
{
    return (unsigned)b->kind < BLOCK_KIND_COUNT ? kind_screens[b->kind].checked
                                                : CHECKED_NONE;
}

static SessionScreen step_screen(const Session *s, const Trial *t)
{
    const Block *b = &s->study->blocks[t->block];
    if ((unsigned)b->kind >= BLOCK_KIND_COUNT) {
        return SCREEN_PAGE;
    }
    return t->is_example ? kind_screens[b->kind].example_screen
                         : kind_screens[b->kind].screen;
}

static int retries(const Session *s, const Trial *t)
{
    const Block *b = &s->study->blocks[t->block];
    switch (checked(b)) {
    case CHECKED_QUIZ:
        return b->repeat_until_correct;
    case CHECKED_PRACTICE:
        return !t->is_example && b->retry;
    default:
        return 0;
    }
}

static int gives_feedback(const Session *s, const Trial *t)
{
    const Block *b = &s->study->blocks[t->block];
    switch (checked(b)) {
    case CHECKED_QUIZ:
        return 1;
    case CHECKED_PRACTICE:
        return !t->is_example && (b->feedback || b->retry);
    default:
        return 0;
    }
}

/* The block's confidence scale when trial t asks one, else NULL. */
static const RatingSpec *confidence_spec(const Session *s, const Trial *t)
{
    const Block *b = &s->study->blocks[t->block];
    return !t->is_example && b->confidence.points > 0 ? &b->confidence : NULL;
}

/* When the choice of the current step times out (0 = no deadline): the
** block's time limit after the step's onset, until a class is chosen. */
static int64_t deadline(const Session *s)
{
    const Trial *t = cur_trial(s);
    if (!t || t->is_example || s->choice >= 0 || s->step_onset_ns == 0 ||
        s->screen != step_screen(s, t)) {
        return 0;
    }
    const Block *b = &s->study->blocks[t->block];
    return b->time_limit_ms > 0
               ? s->step_onset_ns + (int64_t)b->time_limit_ms * 1000000LL
               : 0;
}

/* Continue is held: the block requires scrolling and the screen overflows
** but has not been scrolled to its end. */
static int scroll_held(const Session *s, const Block *b)
{
    return b->require_scroll && s->scroll_overflow && !s->scroll_seen_end;
}

/* Whether Continue is accepted on the view (from its continue_after_ns
** on): nothing it needs is missing (forced choice: nothing can be
** skipped) and the scroll gate is open. A questionnaire's Continue is
** accepted with answers missing: it shows what is missing. The one rule:
** handle_step applies it, and the view says it to the front ends. */
const StudyClass *session_choices(const SessionView *v, size_t *n)
{
    if (n) {
        *n = v->verdicts ? 2 : v->n_classes;
    }
    return v->verdicts ? v->verdicts : v->classes;
}

int session_continue_ready(const SessionView *v)
{
    return v->need_continue && !v->scroll_gate &&
           !(v->need_rating && v->rating == 0) &&
           !(v->confidence_spec && v->confidence == 0) &&
           !(v->need_choice && v->choice < 0);
}

/* ------------------------------------------------------------------ view */

static void build_view(Session *s)
{
    SessionView *v = &s->view;
    memset(v, 0, sizeof *v);
    v->screen = s->screen;
    v->screen_serial = s->serial;
    v->condition = s->sched->condition;
    v->participant = s->pid;
    v->classes = s->study->classes;
    v->n_classes = s->study->n_classes;
    v->rating_spec = &s->study->rating;
    v->choice = s->choice;
    v->rating = s->rating;
    v->confidence = s->confidence;
    v->attempt = s->attempt;
    v->onset_marked = s->onset_marked;
    v->aborted = s->aborted;
    v->message = s->message[0] ? s->message : NULL;
    for (size_t i = 0; i < s->sched->n_trials; i++) {
        const Trial *t = &s->sched->trials[i];
        if (t->item_key && !t->is_example) {
            v->progress_total++;
            v->progress_done += (int)i < s->cur;
        }
    }
    const Trial *t = cur_trial(s);
    if (!t || s->finished) {
        return;
    }
    const Block *b = &s->study->blocks[t->block];
    v->trial = t;
    v->block = b;
    if (b->kind == BLOCK_VERIFY) {
        v->verdicts = b->verdicts; /* accept, reject */
    }
    v->condition = trial_condition(s->sched, t);
    /* within-subject: the step's own condition shows its explanations */
    const Condition *cond = study_find_condition(s->study, v->condition);
    const char *method = cond ? cond->method : NULL;
    v->title = b->title;
    if (b->n_pages > 0 && (size_t)t->page < b->n_pages) {
        v->page_path = b->pages[t->page];
        v->page_text = study_page_text(s->study, v->page_path);
        v->page = study_page(s->study, v->page_path);
    } else if (b->text) {
        v->page_text = b->text;
        v->page = b->text_page;
    }
    if (checked(b) == CHECKED_QUIZ && (size_t)t->page < b->n_questions) {
        v->question = &b->questions[t->page];
    }
    if (t->item_key) {
        v->item = study_find_item(s->study, t->item_key);
        if (v->item && t->show.explanation && method) {
            v->explanation = item_explanation(v->item, method);
        }
        v->show_label = t->show.label;
        v->show_prediction = t->show.prediction || t->is_example;
        v->ask_counterfactual =
            kind_screens[b->kind].screen == SCREEN_COUNTERFACTUAL;
        v->cf_unchanged = v->ask_counterfactual && t->is_catch;
        v->options = t->options;
        v->n_options = t->n_options;
    }
    v->reveal_key = s->reveal_key;
    reveal_view(&s->reveal, v);
    v->reservoir = s->res_items;
    v->reservoir_expl = s->res_expl;
    if (t->reservoir >= 0) {
        size_t cap = s->study->n_items ? s->study->n_items : 1;
        size_t n = schedule_reservoir(s->sched, t, s->res_keys, cap);
        const Block *rb = &s->study->blocks[t->reservoir];
        for (size_t i = 0; i < n; i++) {
            const Item *it = study_find_item(s->study, s->res_keys[i]);
            if (!it) {
                continue;
            }
            s->res_items[v->n_reservoir] = it;
            s->res_expl[v->n_reservoir] = rb->show.explanation && method
                                              ? item_explanation(it, method)
                                              : NULL;
            v->n_reservoir++;
        }
    }
    if (s->screen == SCREEN_TIMEOUT) {
        v->timeout_message = b->timeout_message;
        return;
    }
    if (s->screen == SCREEN_FEEDBACK) {
        v->feedback_correct = s->fb_correct;
        v->feedback_final = s->fb_final;
        v->feedback_answer = t->correct_choice;
        v->need_continue = 1;
        v->continue_ready = 1;
        return;
    }
    if (s->screen != step_screen(s, t)) {
        return; /* paused, store error, screened out */
    }
    switch (t->expects) {
    case EXPECT_ACCEPT:
    case EXPECT_CONTINUE:
        v->need_continue = 1;
        break;
    case EXPECT_CHOICE:
    case EXPECT_OPTION:
        v->need_choice = 1;
        break;
    case EXPECT_RATING:
        v->need_rating = 1;
        v->need_continue = 1;
        break;
    case EXPECT_CHOICE_RATING:
        v->need_choice = 1;
        v->need_rating = 1;
        v->need_continue = 1;
        break;
    case EXPECT_ANSWERS:
        v->need_continue = 1;
        quest_view(&s->quest, v);
        break;
    }
    v->confidence_spec = confidence_spec(s, t);
    v->need_confidence =
        v->confidence_spec && s->choice >= 0 && s->confidence == 0;
    v->deadline_ns = deadline(s);
    v->scroll_gate = v->need_continue && scroll_held(s, b);
    if (b->min_seconds > 0 &&
        (t->expects == EXPECT_CONTINUE || t->expects == EXPECT_ACCEPT ||
         t->expects == EXPECT_ANSWERS)) {
        v->continue_wait_ns = (int64_t)b->min_seconds * 1000000000LL;
        if (s->onset_marked) {
            v->continue_after_ns = s->onset_ns + v->continue_wait_ns;
        }
    }
    v->continue_ready = session_continue_ready(v);
}

/* Applies a transition to screen (for the current step). */
static void go_to(Session *s, SessionScreen screen)
{
    s->screen = screen;
    s->serial++;
    s->onset_marked = 0;
    s->scroll_overflow = s->scroll_seen_end = 0;
    build_view(s);
}

static void enter_step(Session *s, int seq, int attempt)
{
    s->cur = seq;
    s->choice = -1;
    s->rating = 0;
    s->confidence = 0;
    s->choice_ns = s->rating_ns = s->confidence_ns = 0;
    s->attempt = attempt;
    s->step_onset_ns = 0;
    s->message[0] = '\0';
    const Trial *t = cur_trial(s);
    quest_reset(&s->quest, t ? &s->study->blocks[t->block] : NULL);
    reveal_reset(&s->reveal, NULL, NULL, NULL, 0, attempt);
    go_to(s, t ? step_screen(s, t) : SCREEN_DONE);
    if (s->view.explanation || s->view.n_reservoir) {
        /* the view names the step's explanation and reservoir */
        reveal_reset(&s->reveal, s->view.explanation, s->res_items, s->res_expl,
                     s->view.n_reservoir, attempt);
        build_view(s);
    }
}

/* Moves to the step after the current one; after the last, the run is over
** (SCREEN_DONE). */
static void next_step(Session *s)
{
    enter_step(s, s->cur + 1, 1);
    s->finished = cur_trial(s) == NULL;
}

/* Ends the run on screen (SCREEN_DONE or SCREEN_SCREENED_OUT). */
static void end_run(Session *s, SessionScreen screen)
{
    s->finished = 1;
    s->cur = (int)s->sched->n_trials;
    go_to(s, screen);
}

/* ------------------------------------------------------------- screening */

/* Counts first-try results of the answered steps of block bi (every block
** when bi < 0), counting the pending response of the current step too:
** *right and *total. With catch_only, a timed-out catch trial counts as
** answered and failed (as the analysis counts it). */
static int first_tries(Session *s, int bi, int catch_only, int *right,
                       int *total, SimError *err)
{
    *right = *total = 0;
    for (size_t i = 0; i < s->sched->n_trials; i++) {
        const Trial *t = &s->sched->trials[i];
        if ((bi >= 0 && t->block != bi) || t->correct_choice < 0 ||
            t->is_example || (catch_only && !t->is_catch)) {
            continue;
        }
        Response r;
        int found = 0;
        if (t->seq == s->pending.seq && s->pending.attempts <= 1) {
            r = s->pending; /* first try happening now */
            found = 1;
        } else {
            int rc =
                store_get_response(s->store, s->pid, t->seq, &r, &found, err);
            if (rc != SIM_OK) {
                return rc;
            }
        }
        if (found && (r.correct >= 0 || (catch_only && r.timed_out))) {
            (*total)++;
            *right += r.correct > 0;
        }
    }
    return SIM_OK;
}

static void add_screen(Response *r, const char *rule, int passed,
                       const char *detail)
{
    if (r->n_screen < 2) {
        ScreenResult *sr = &r->screen[r->n_screen++];
        sr->rule = rule;
        sr->passed = passed;
        snprintf(sr->detail, sizeof sr->detail, "%s", detail);
    }
}

/* Decides, before the pending response is stored, which screening rules it
** completes and the participant's status after it, so that all of it is
** stored in the response's transaction. *stop is set when a failed rule
** ends the run. */
static int decide(Session *s, const Trial *t, int *stop, SimError *err)
{
    const Screening *sc = &s->study->screening;
    const Block *b = &s->study->blocks[t->block];
    Response *r = &s->pending;
    int last_in_block = t->index_in_block + 1 == t->n_in_block;
    int right, total, rc = SIM_OK;
    char detail[128];
    *stop = 0;
    r->n_screen = 0;
    r->set_status = 0;
    if (s->after == AFTER_DECLINE) {
        r->set_status = 1;
        r->new_status = PSTATUS_DECLINED;
        return SIM_OK;
    }
    if (!r->done) {
        return SIM_OK;
    }
    if (checked(b) == CHECKED_PRACTICE && last_in_block &&
        sc->practice_min_first_try >= 0) {
        rc = first_tries(s, t->block, 0, &right, &total, err);
        snprintf(detail, sizeof detail, "%d of %d right on the first try",
                 right, total);
        add_screen(r, "practice", right >= sc->practice_min_first_try, detail);
    } else if (checked(b) == CHECKED_QUIZ && last_in_block &&
               sc->quiz_all_first_try) {
        rc = first_tries(s, t->block, 0, &right, &total, err);
        snprintf(detail, sizeof detail, "%d of %d right on the first try",
                 right, total);
        add_screen(r, "quiz", right == total, detail);
    } else if (t->is_catch && sc->max_catch_failures >= 0 &&
               (r->correct == 0 || r->timed_out)) {
        rc = first_tries(s, -1, 1, &right, &total, err);
        /* decided once, when the limit is first exceeded */
        if (rc == SIM_OK && total - right == sc->max_catch_failures + 1) {
            snprintf(detail, sizeof detail, "%d of %d catch trials failed",
                     total - right, total);
            add_screen(r, "catch", 0, detail);
        }
    }
    int last = (size_t)t->seq + 1 == s->sched->n_trials;
    if (rc == SIM_OK && last && sc->min_total_seconds > 0) {
        double secs = (double)(r->wall_ms - s->created_ms) / 1000.0;
        snprintf(detail, sizeof detail, "completed in %.0f s (minimum %.0f)",
                 secs, sc->min_total_seconds);
        add_screen(r, "time", secs >= sc->min_total_seconds, detail);
    }
    for (int i = 0; i < r->n_screen; i++) {
        if (!r->screen[i].passed && sc->stop_on_failure) {
            *stop = 1;
        }
    }
    if (*stop || last) {
        r->set_status = 1;
        r->new_status = *stop ? PSTATUS_SCREENED_OUT : PSTATUS_COMPLETED;
    }
    return rc;
}

/* --------------------------------------------------------------- commits */

/* Replaces characters that would break a JSON string in place. */
static const char *json_safe(char *text)
{
    for (char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) {
            *p = '\'';
        }
    }
    return text;
}

/* Decides the screening of s->pending, stores it with its screening and
** status, and applies s->after. On failure the session shows
** SCREEN_STORE_ERROR and keeps the response for SIM_IN_RETRY. */
static int submit(Session *s, SimError *err)
{
    const Trial *t = cur_trial(s);
    int stop;
    int rc = decide(s, t, &stop, err);
    if (rc == SIM_OK) {
        rc = store_record_response(s->store, &s->pending, err);
    }
    if (rc == SIM_ERR_STATE) {
        /* already stored (e.g. by a retry whose reply was lost): the data
        ** are safe, so carry on as if this write had succeeded */
        rc = SIM_OK;
    }
    if (rc != SIM_OK) {
        snprintf(s->message, sizeof s->message, "%s",
                 err ? err->msg : "the database could not be written");
        if (s->store_failures++ == 0) {
            snprintf(s->store_error, sizeof s->store_error, "%s", s->message);
        }
        if (s->screen != SCREEN_STORE_ERROR) {
            s->held = s->screen;
            go_to(s, SCREEN_STORE_ERROR);
        }
        return rc;
    }
    s->has_pending = 0;
    s->message[0] = '\0';
    reveal_stored(&s->reveal); /* they went with the response */
    if (s->store_failures > 0) {
        /* the write went through at last: record what held it up */
        char detail[768];
        snprintf(detail, sizeof detail,
                 "{\"step\":%d,\"failures\":%d,\"first\":\"%.500s\"}",
                 s->pending.seq, s->store_failures, json_safe(s->store_error));
        s->store_failures = 0;
        store_log_event(s->store, s->pid, "store_error", detail,
                        s->pending.wall_ms, 0, NULL);
    }
    if (s->pending.set_status &&
        s->pending.new_status == PSTATUS_SCREENED_OUT) {
        snprintf(s->message, sizeof s->message, "%s",
                 "a screening rule ended the run");
        end_run(s, SCREEN_SCREENED_OUT);
        return SIM_OK;
    }
    switch (s->after) {
    case AFTER_FEEDBACK:
        s->fb_correct = s->pending.choice == t->correct_choice;
        s->fb_final = s->pending.done;
        go_to(s, SCREEN_FEEDBACK);
        break;
    case AFTER_DECLINE:
        end_run(s, SCREEN_DONE);
        break;
    case AFTER_TIMEOUT:
        go_to(s, SCREEN_TIMEOUT);
        break;
    case AFTER_NEXT:
        next_step(s);
        break;
    }
    return SIM_OK;
}

/* Builds the response of the current step from the selections. */
static int answer(Session *s, const SimInput *in, const char *id, After after,
                  SimError *err)
{
    const Trial *t = cur_trial(s);
    Response *r = &s->pending;
    memset(r, 0, sizeof *r);
    r->participant = s->pid;
    r->seq = t->seq;
    r->choice = s->choice;
    r->rating = s->rating;
    r->rating_ns = s->rating_ns;
    r->confidence = s->confidence;
    r->confidence_ns = s->confidence_ns;
    r->onset_ns = s->step_onset_ns;
    r->response_ns = s->choice >= 0 ? s->choice_ns : in->t_ns;
    r->wall_ms = in->wall_ms;
    r->attempts = s->attempt;
    r->correct = -1;
    r->done = 1;
    if (t->correct_choice >= 0 && s->choice >= 0) {
        int right = s->choice == t->correct_choice;
        r->correct = right;
        if (retries(s, t) && !right) {
            r->done = 0;
        }
    }
    if (id) {
        snprintf(s->pending_id, sizeof s->pending_id, "%s", id);
        r->choice_id = s->pending_id;
    } else if (s->choice >= 0) {
        const Block *b = &s->study->blocks[t->block];
        const char *cid = checked(b) == CHECKED_QUIZ
                              ? b->questions[t->page].options[s->choice]
                              : session_choices(&s->view, NULL)[s->choice].id;
        snprintf(s->pending_id, sizeof s->pending_id, "%s", cid);
        r->choice_id = s->pending_id;
    }
    if (t->expects == EXPECT_ANSWERS) {
        r->n_answers = quest_answers(&s->quest, s->step_onset_ns);
        r->answers = s->quest.out;
    }
    r->interactions = s->reveal.ev;
    r->n_interactions = s->reveal.n_ev;
    s->has_pending = 1;
    s->after = after;
    return submit(s, err);
}

/* Commits the current step as timed out at its deadline: no choice, no
** correctness, the deadline as its response time. */
static int time_out(Session *s, int64_t at_ns, int64_t wall_ms, SimError *err)
{
    const Trial *t = cur_trial(s);
    const Block *b = &s->study->blocks[t->block];
    Response *r = &s->pending;
    memset(r, 0, sizeof *r);
    r->participant = s->pid;
    r->seq = t->seq;
    r->choice = -1;
    r->correct = -1;
    r->timed_out = 1;
    r->onset_ns = s->step_onset_ns;
    r->response_ns = at_ns;
    r->wall_ms = wall_ms;
    r->attempts = s->attempt;
    r->done = 1;
    r->interactions = s->reveal.ev;
    r->n_interactions = s->reveal.n_ev;
    s->has_pending = 1;
    s->after = b->timeout_message ? AFTER_TIMEOUT : AFTER_NEXT;
    return submit(s, err);
}

/* ------------------------------------------------------------ open/close */

int session_open(Store *store, const Study *study, const char *pid,
                 int64_t wall_ms, Session **out, SimError *err)
{
    *out = NULL;
    ParticipantInfo info;
    int rc = store_participant(store, pid, &info, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (store_participant_live_elsewhere(store, &info, wall_ms)) {
        /* never take over a participant another station is running */
        return sim_fail(err, SIM_ERR_STATE,
                        "%s: participant %s is active on station '%s' (last "
                        "write %lld s ago); resume them there, or here once "
                        "that station has been quiet for %d s",
                        store_path(store), pid, info.active_station,
                        (long long)((wall_ms - info.last_active_ms) / 1000),
                        STORE_LEASE_TIMEOUT_MS / 1000);
    }
    const Condition *cond = study_find_condition(study, info.condition);
    if (!cond) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: participant %s: condition '%s' is not in the "
                        "study",
                        store_path(store), pid, info.condition);
    }
    Session *s = sim_calloc(1, sizeof *s);
    if (!s) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    size_t cap = study->n_items ? study->n_items : 1;
    s->res_keys = sim_calloc(cap, sizeof *s->res_keys);
    s->res_items = sim_calloc(cap, sizeof *s->res_items);
    s->res_expl = sim_calloc(cap, sizeof *s->res_expl);
    if (!s->res_keys || !s->res_items || !s->res_expl) {
        session_close(s);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    s->store = store;
    s->study = study;
    s->cond = cond;
    s->reveal_key = ui_str(study->ui_strings, UI_EXPL_SHOW_KEY);
    s->created_ms = info.created_ms;
    snprintf(s->pid, sizeof s->pid, "%s", pid);
    rc = store_load_schedule(store, pid, &s->sched, err);
    int first = -1;
    if (rc == SIM_OK) {
        rc = store_first_unanswered(store, pid, &first, err);
    }
    int attempt = 1;
    if (rc == SIM_OK && first >= 0) {
        Response r;
        int found;
        rc = store_get_response(store, pid, first, &r, &found, err);
        if (rc == SIM_OK && found) {
            attempt = r.attempts + 1; /* a retry was under way */
        }
    }
    int unfinished =
        info.status == PSTATUS_ACTIVE || info.status == PSTATUS_ABORTED;
    if (rc == SIM_OK && info.n_done > 0 && first >= 0 && unfinished) {
        /* where the participant was last, and where they go on */
        char detail[256], from[64], here[64];
        snprintf(from, sizeof from, "%s", info.active_station);
        snprintf(here, sizeof here, "%s", store_station(store));
        snprintf(detail, sizeof detail,
                 "{\"step\":%d,\"station\":\"%s\",\"from_station\":\"%s\"}",
                 first, json_safe(here), json_safe(from));
        rc = store_log_event(store, pid, "resume", detail, wall_ms, 0, err);
    }
    if (rc == SIM_OK && info.status == PSTATUS_ABORTED && first >= 0) {
        rc = store_set_status(store, pid, PSTATUS_ACTIVE, wall_ms, err);
    }
    if (rc != SIM_OK) {
        session_close(s);
        return rc;
    }
    if (first < 0 || !unfinished) {
        end_run(s, info.status == PSTATUS_SCREENED_OUT ? SCREEN_SCREENED_OUT
                                                       : SCREEN_DONE);
    } else {
        enter_step(s, first, attempt);
    }
    *out = s;
    return SIM_OK;
}

void session_close(Session *s)
{
    if (!s) {
        return;
    }
    schedule_free(s->sched);
    quest_free(&s->quest);
    reveal_free(&s->reveal);
    sim_free(s->res_keys);
    sim_free(s->res_items);
    sim_free(s->res_expl);
    sim_free(s);
}

const SessionView *session_view(const Session *s)
{
    return &s->view;
}

int session_finished(const Session *s)
{
    return s->finished;
}

const Schedule *session_schedule(const Session *s)
{
    return s->sched;
}

void session_mark_onset(Session *s, int64_t t_ns)
{
    if (s->onset_marked) {
        return;
    }
    s->onset_marked = 1;
    s->onset_ns = t_ns;
    if (s->step_onset_ns == 0 && cur_trial(s) &&
        s->screen == step_screen(s, cur_trial(s))) {
        s->step_onset_ns = t_ns;
    }
    if (s->step_onset_ns && cur_trial(s) &&
        s->screen == step_screen(s, cur_trial(s))) {
        reveal_onset(&s->reveal, (double)(t_ns - s->step_onset_ns) / 1e6);
    }
    build_view(s);
}

/* ---------------------------------------------------------------- inputs */

/* Keys on a questionnaire: Return types a line break into a text answer
** and is Continue elsewhere; Backspace and Tab edit and move the focus.
** Other keys arrive as typed text (SIM_IN_TEXT). */
static int map_questionnaire_key(const Session *s, const SimInput *in,
                                 SimInput *out)
{
    const QuestState *q = &s->quest;
    int text_focus = q->block && q->focus >= 0 &&
                     q->block->survey[q->focus].type == QTYPE_TEXT;
    if (key_equal(in->key, "backspace")) {
        out->kind = SIM_IN_BACKSPACE;
        return 1;
    }
    if (key_equal(in->key, "tab") && q->block && q->block->n_survey > 0) {
        out->kind = SIM_IN_FOCUS;
        out->value = (q->focus + 1) % (int)q->block->n_survey;
        return 1;
    }
    if (key_equal(in->key, "space") || !session_key_is_continue(in->key)) {
        return 0;
    }
    if (text_focus) {
        out->kind = SIM_IN_TEXT;
        out->key = "\n";
        return 1;
    }
    out->kind = SIM_IN_CONTINUE;
    return 1;
}

/* Translates a key into the input it stands for on this screen. */
static int map_key(const Session *s, const SimInput *in, SimInput *out)
{
    *out = *in;
    const SessionView *v = &s->view;
    if (s->screen == SCREEN_QUESTIONNAIRE) {
        return map_questionnaire_key(s, in, out);
    }
    if (session_key_is_continue(in->key)) {
        out->kind = SIM_IN_CONTINUE;
        return 1;
    }
    if (reveal_on_request(&s->reveal) && key_equal(in->key, s->reveal_key)) {
        out->kind = SIM_IN_REVEAL;
        out->value = SESSION_REVEAL(-1, !s->reveal.shown);
        return 1;
    }
    if (key_equal(in->key, "tab") && reveal_next_focus(&s->reveal) >= 0) {
        out->kind = SIM_IN_HOVER;
        out->value = reveal_next_focus(&s->reveal);
        return 1;
    }
    int digit = digit_key(in->key);
    if (v->confidence_spec && s->choice >= 0 &&
        (digit || (in->key && strcmp(in->key, "0") == 0))) {
        out->kind = SIM_IN_CONFIDENCE;
        out->value = digit ? digit : 10;
        return 1;
    }
    if (v->need_choice && v->question) {
        if (digit) {
            out->kind = SIM_IN_CHOOSE;
            out->value = digit - 1;
            return 1;
        }
        return 0;
    }
    if (v->need_choice && v->n_options) {
        /* keys per option: 1-9, and 0 for a tenth */
        int d = digit ? digit : (in->key && strcmp(in->key, "0") == 0 ? 10 : 0);
        if (d && (size_t)d <= v->n_options) {
            out->kind = SIM_IN_CHOOSE;
            out->value = d - 1;
            return 1;
        }
        return 0;
    }
    if (v->need_choice) {
        size_t n;
        const StudyClass *ch = session_choices(v, &n);
        for (size_t c = 0; c < n; c++) {
            if (key_equal(in->key, ch[c].key)) {
                out->kind = SIM_IN_CHOOSE;
                out->value = (int)c;
                return 1;
            }
        }
    }
    if (v->need_rating && digit) {
        out->kind = SIM_IN_RATE;
        out->value = digit;
        return 1;
    }
    return 0;
}

static int n_choices(const Session *s)
{
    const SessionView *v = &s->view;
    if (v->question) {
        return (int)v->question->n_options;
    }
    if (v->n_options) {
        return (int)v->n_options;
    }
    size_t n;
    session_choices(v, &n);
    return (int)n;
}

static int handle_step(Session *s, const SimInput *in, int *consumed,
                       SimError *err)
{
    const Trial *t = cur_trial(s);
    const SessionView *v = &s->view;
    int64_t now = in->t_ns;
    switch (in->kind) {
    case SIM_IN_DECLINE:
        if (s->screen != SCREEN_CONSENT) {
            return SIM_OK;
        }
        *consumed = 1;
        return answer(s, in, "decline", AFTER_DECLINE, err);
    case SIM_IN_CHOOSE:
        if (!v->need_choice || in->value < 0 || in->value >= n_choices(s)) {
            return SIM_OK;
        }
        *consumed = 1;
        /* the choice is kept as a class: an option's index names one */
        s->choice =
            v->n_options && !v->question ? v->options[in->value] : in->value;
        s->choice_ns = now;
        if (t->expects == EXPECT_CHOICE_RATING ||
            (v->confidence_spec && s->confidence == 0)) {
            build_view(s); /* wait for the confidence, rating, Continue */
            return SIM_OK;
        }
        return answer(s, in, NULL,
                      gives_feedback(s, t) ? AFTER_FEEDBACK : AFTER_NEXT, err);
    case SIM_IN_RATE:
        if (!v->need_rating || in->value < 1 ||
            in->value > s->study->rating.points) {
            return SIM_OK;
        }
        *consumed = 1;
        s->rating = in->value;
        s->rating_ns = now;
        build_view(s);
        return SIM_OK;
    case SIM_IN_ANSWER:
    case SIM_IN_FOCUS:
    case SIM_IN_TEXT:
    case SIM_IN_BACKSPACE:
    case SIM_IN_PICK:
        if (t->expects == EXPECT_ANSWERS && quest_apply(&s->quest, in)) {
            *consumed = 1;
            build_view(s);
        }
        return SIM_OK;
    case SIM_IN_CONFIDENCE:
        if (!v->confidence_spec || s->choice < 0 || in->value < 1 ||
            in->value > v->confidence_spec->points) {
            return SIM_OK;
        }
        *consumed = 1;
        s->confidence = in->value;
        s->confidence_ns = now;
        if (t->expects == EXPECT_CHOICE_RATING) {
            build_view(s); /* wait for the rating and Continue */
            return SIM_OK;
        }
        return answer(s, in, NULL,
                      gives_feedback(s, t) ? AFTER_FEEDBACK : AFTER_NEXT, err);
    case SIM_IN_REVEAL:
    case SIM_IN_HOVER:
        if (reveal_apply(&s->reveal, in,
                         (double)(now - s->step_onset_ns) / 1e6)) {
            *consumed = 1;
            build_view(s);
        }
        return SIM_OK;
    case SIM_IN_CONTINUE:
        if (!v->continue_ready ||
            (v->continue_after_ns && now < v->continue_after_ns)) {
            return SIM_OK;
        }
        if (t->expects == EXPECT_ANSWERS && !quest_complete(&s->quest)) {
            *consumed = !s->quest.tried;
            s->quest.tried = 1; /* show what is missing or wrong */
            build_view(s);
            return SIM_OK;
        }
        *consumed = 1;
        return answer(s, in, s->screen == SCREEN_CONSENT ? "accept" : NULL,
                      AFTER_NEXT, err);
    default:
        return SIM_OK;
    }
}

int session_handle(Session *s, const SimInput *in, int *consumed, SimError *err)
{
    int dummy;
    if (!consumed) {
        consumed = &dummy;
    }
    *consumed = 0;
    SimInput mapped;
    if (in->kind == SIM_IN_KEY) {
        if (!map_key(s, in, &mapped)) {
            return SIM_OK;
        }
        in = &mapped;
    }
    if (s->finished) {
        return SIM_OK;
    }
    const Trial *t = cur_trial(s);
    char detail[96];
    switch (in->kind) {
    case SIM_IN_RETRY:
        if (s->screen != SCREEN_STORE_ERROR || !s->has_pending) {
            return SIM_OK;
        }
        *consumed = 1;
        return submit(s, err);
    case SIM_IN_PAUSE:
        if (s->screen == SCREEN_PAUSED || s->screen == SCREEN_STORE_ERROR) {
            return SIM_OK;
        }
        *consumed = 1;
        snprintf(detail, sizeof detail, "{\"step\":%d,\"screen\":\"%s\"}",
                 s->cur, session_screen_name(s->screen));
        s->held = s->screen;
        snprintf(s->message, sizeof s->message, "%s",
                 "paused by the experimenter");
        go_to(s, SCREEN_PAUSED);
        return store_log_event(s->store, s->pid, "pause", detail, in->wall_ms,
                               in->t_ns, err);
    case SIM_IN_RESUME:
        if (s->screen != SCREEN_PAUSED) {
            return SIM_OK;
        }
        *consumed = 1;
        s->message[0] = '\0';
        go_to(s, s->held);
        snprintf(detail, sizeof detail, "{\"step\":%d}", s->cur);
        return store_log_event(s->store, s->pid, "unpause", detail, in->wall_ms,
                               in->t_ns, err);
    case SIM_IN_ABORT: {
        *consumed = 1;
        snprintf(detail, sizeof detail, "{\"step\":%d,\"screen\":\"%s\"}",
                 s->cur, session_screen_name(s->screen));
        /* the event and the status go together or not at all */
        int rc = store_begin(s->store, err);
        if (rc == SIM_OK) {
            rc = store_log_event(s->store, s->pid, "abort", detail, in->wall_ms,
                                 in->t_ns, err);
        }
        if (rc == SIM_OK) {
            rc = store_set_status(s->store, s->pid, PSTATUS_ABORTED,
                                  in->wall_ms, err);
        }
        if (rc == SIM_OK) {
            rc = store_commit(s->store, err);
        } else {
            store_rollback(s->store);
        }
        s->finished = 1;
        s->aborted = 1;
        snprintf(s->message, sizeof s->message, "%s",
                 "aborted by the experimenter; the participant can resume "
                 "later");
        go_to(s, SCREEN_DONE);
        return rc;
    }
    default:
        break;
    }
    /* answers: only once the screen is shown, never stamped before it */
    if (!t || !s->onset_marked || in->t_ns < s->onset_ns) {
        return SIM_OK;
    }
    if (s->screen == SCREEN_FEEDBACK) {
        if (in->kind != SIM_IN_CONTINUE) {
            return SIM_OK;
        }
        *consumed = 1;
        if (s->fb_final) {
            next_step(s);
        } else {
            int64_t first_onset = s->step_onset_ns;
            enter_step(s, s->cur, s->attempt + 1);
            s->step_onset_ns = first_onset;
        }
        return SIM_OK;
    }
    if (s->screen != step_screen(s, t)) {
        return SIM_OK;
    }
    int64_t due = deadline(s);
    if (due && in->t_ns >= due) {
        /* too late: the trial timed out before this input */
        return time_out(s, due, in->wall_ms, err);
    }
    return handle_step(s, in, consumed, err);
}

int session_tick(Session *s, int64_t t_ns, int64_t wall_ms, SimError *err)
{
    if (s->finished || !s->onset_marked) {
        return SIM_OK;
    }
    if (s->screen == SCREEN_TIMEOUT) {
        if (t_ns - s->onset_ns >= SESSION_TIMEOUT_SHOW_NS) {
            next_step(s);
        }
        return SIM_OK;
    }
    int64_t due = deadline(s);
    return due && t_ns >= due ? time_out(s, due, wall_ms, err) : SIM_OK;
}

void session_report_scroll(Session *s, int overflow, int at_end)
{
    int seen = s->scroll_seen_end || (overflow && at_end);
    if (overflow == s->scroll_overflow && seen == s->scroll_seen_end) {
        return;
    }
    s->scroll_overflow = overflow != 0;
    s->scroll_seen_end = seen;
    build_view(s);
}
