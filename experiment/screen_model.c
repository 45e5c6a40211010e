/*
** The screen model (screen_model.h) built from the session's view: the
** table of screens (how each body is drawn, its message texts for each
** runner), and every part of a screen decided once for both front ends:
** item cards and their pills, the explanation area (kept in every
** condition), the reservoir, the response bar with Continue's rule, the
** deadline, the scroll report, feedback, quiz and questionnaire texts.
** No SDL, no clock.
*/
#include "experiment/screen_model_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_error.h"
#include "experiment/session.h"
#include "experiment/session_title.h"
#include "stimuli/questionnaire.h"

enum { NO_KEY = -1 };

static const char *const body_names[] = {
    [BODY_MESSAGE] = "message", [BODY_PAGE] = "page",
    [BODY_NOTE] = "note",       [BODY_LINE] = "line",
    [BODY_QUIZ] = "quiz",       [BODY_FEEDBACK] = "feedback",
    [BODY_ITEM] = "item",       [BODY_QUESTIONNAIRE] = "questionnaire",
};

_Static_assert(sizeof body_names / sizeof *body_names == BODY_KIND_COUNT,
               "one name per ScreenBody");

const char *screen_body_name(ScreenBody b)
{
    return (unsigned)b < BODY_KIND_COUNT ? body_names[b] : "?";
}

/* One row per SessionScreen: how its body is drawn, and for a screen that
** shows a message its heading and text, on the desktop and online
** (NO_KEY online: as on the desktop). A new screen is a new row. */
static const struct {
    ScreenBody body;
    int head, text;
    int online_text;
} screens[] = {
    [SCREEN_CONSENT] = {BODY_PAGE, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_PAGE] = {BODY_PAGE, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_QUIZ] = {BODY_QUIZ, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_EXAMPLE] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_PREDICT] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_COUNTERFACTUAL] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_RATING] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_FEEDBACK] = {BODY_FEEDBACK, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_BREAK] = {BODY_NOTE, UI_BREAK_TITLE, UI_BREAK_TEXT, NO_KEY},
    [SCREEN_PAUSED] = {BODY_MESSAGE, UI_PAUSED_TITLE, UI_PAUSED_TEXT, NO_KEY},
    [SCREEN_STORE_ERROR] = {BODY_MESSAGE, UI_WAIT_TITLE, UI_WAIT_TEXT, NO_KEY},
    [SCREEN_SCREENED_OUT] = {BODY_MESSAGE, UI_SCREENED_OUT_TITLE,
                             UI_SCREENED_OUT_TEXT, UI_SCREENED_OUT_ONLINE},
    [SCREEN_DONE] = {BODY_MESSAGE, UI_DONE_TITLE, UI_DONE_TEXT, UI_DONE_ONLINE},
    [SCREEN_QUESTIONNAIRE] = {BODY_QUESTIONNAIRE, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_TIMEOUT] = {BODY_LINE, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_VERIFY] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
    [SCREEN_DECIDE] = {BODY_ITEM, NO_KEY, NO_KEY, NO_KEY},
};

_Static_assert(sizeof screens / sizeof *screens == SESSION_SCREEN_COUNT,
               "one row per SessionScreen");

/* What building a screen reads. */
typedef struct M {
    ScreenModel *m;
    ScreenArena *a;
    const SessionView *v;
    const ScreenContext *cx;
    const UiStrings *s;
} M;

static const char *tr(const M *b, UiKey k)
{
    return ui_str(b->s, k);
}

static const char *class_label(const M *b, int c)
{
    const SessionView *v = b->v;
    return c >= 0 && (size_t)c < v->n_classes && v->classes[c].label
               ? v->classes[c].label
               : "?";
}

static void *alloc(const M *b, size_t n)
{
    return arena_alloc(b->a, n);
}

/* ---------------------------------------------------------------- inputs */

/* text cut into runs at the edits of segment (byte ranges of the text). */
static ScreenRun *text_runs(const M *b, const char *text, int segment,
                            const Edit *edits, size_t n_edits, size_t *n_out)
{
    size_t len = text ? strlen(text) : 0;
    ScreenRun *runs = arena_array(b->a, 2 * n_edits + 1, sizeof *runs);
    size_t n = 0, pos = 0;
    while (runs && pos < len) {
        /* the next edit starting at or after pos */
        const Edit *next = NULL;
        for (size_t i = 0; i < n_edits; i++) {
            const Edit *e = &edits[i];
            if (e->feature || e->segment != segment || e->end <= e->start ||
                e->end > len || e->start < pos) {
                continue;
            }
            if (!next || e->start < next->start) {
                next = e;
            }
        }
        size_t stop = next ? next->start : len;
        char *piece =
            stop > pos ? arena_strndup(b->a, text + pos, stop - pos) : NULL;
        if (piece) {
            runs[n++] = (ScreenRun){piece, 0};
        }
        if (!next) {
            break;
        }
        piece =
            arena_strndup(b->a, text + next->start, next->end - next->start);
        if (piece) {
            runs[n++] = (ScreenRun){piece, 1};
        }
        pos = next->end;
    }
    *n_out = n;
    return runs;
}

static const Edit *feature_edit(const Edit *edits, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (edits[i].feature && name && strcmp(edits[i].feature, name) == 0) {
            return &edits[i];
        }
    }
    return NULL;
}

/* An input (or its perturbation with edits) as a card shows it. */
static void input_model(const M *b, ScreenInput *o, const ItemInput *in,
                        const Edit *edits, size_t n_edits)
{
    memset(o, 0, sizeof *o);
    o->source = in;
    switch (in->modality) {
    case MODALITY_IMAGE:
        break;
    case MODALITY_TEXT_PAIR:
        o->title_a = in->title_a ? in->title_a : tr(b, UI_EXPL_TEXT_A);
        o->title_b = in->title_b ? in->title_b : tr(b, UI_EXPL_TEXT_B);
        o->runs_b = text_runs(b, in->text_b, 1, edits, n_edits, &o->n_runs_b);
        o->runs = text_runs(b, in->text, 0, edits, n_edits, &o->n_runs);
        break;
    case MODALITY_TEXT:
        o->runs = text_runs(b, in->text, 0, edits, n_edits, &o->n_runs);
        break;
    case MODALITY_TABULAR:
        o->rows = arena_array(b->a, in->n_features, sizeof *o->rows);
        for (size_t i = 0; o->rows && i < in->n_features; i++) {
            const Feature *f = &in->features[i];
            ScreenRow *r = &o->rows[o->n_rows++];
            const Edit *e =
                n_edits ? feature_edit(edits, n_edits, f->name) : NULL;
            r->name = f->name ? f->name : "";
            r->value = f->value ? f->value : "";
            if (e) {
                r->edit = 1;
                if (e->to) {
                    r->value = e->to;
                }
                r->from = e->from;
                if (e->from) {
                    r->arrow =
                        screen_arrow(e->from, r->value, ui_strings_rtl(b->s));
                }
            }
        }
        break;
    }
}

/* A card of item: the input (perturbed: its counterfactual, edits
** highlighted), the true label and the model's output where shown ("?"
** for an output to predict). */
typedef struct CardSpec {
    const char *section;
    int label, output; /* show the true label, the model's output */
    int perturbed;     /* the counterfactual input */
    int unknown;       /* "Model output: ?" */
    int hold;          /* a hidden pill where the output would be */
} CardSpec;

static void card_model(const M *b, ScreenCard *c, const Item *it,
                       const CardSpec *k)
{
    c->section = k->section;
    c->draws_input = 1;
    if (k->perturbed && it->cf) {
        input_model(b, &c->input, &it->cf->input, it->cf->edits,
                    it->cf->n_edits);
    } else {
        input_model(b, &c->input, &it->input, NULL, 0);
    }
    if (k->label && it->label >= 0 && !k->perturbed) {
        c->pills[c->n_pills++] = (ScreenPill){tr(b, UI_ITEM_TRUE_LABEL),
                                              class_label(b, it->label), 0, 0};
    }
    if (k->unknown || (k->output && !k->perturbed)) {
        c->pills[c->n_pills++] = (ScreenPill){
            tr(b, UI_ITEM_MODEL_OUTPUT),
            k->unknown ? "?" : class_label(b, it->prediction), !k->unknown, 0};
    } else if (k->hold) {
        c->pills[c->n_pills++] =
            (ScreenPill){tr(b, UI_ITEM_MODEL_OUTPUT), "", 1, 1};
    }
}

/* Whether a condition of the study gives the model's advice on decide
** screens (then a condition without it holds the advice's place). */
static int any_advice(const Study *st)
{
    for (size_t i = 0; st && i < st->n_conditions; i++) {
        if (st->conditions[i].advice) {
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------- explanations, slots */

/* Whether the study shows explanations in some condition. */
static int any_method(const Study *st)
{
    for (size_t i = 0; st && i < st->n_conditions; i++) {
        if (st->conditions[i].method) {
            return 1;
        }
    }
    return 0;
}

/* Whether the screen keeps an explanation area: its block shows the
** condition's explanation (whatever the condition: a condition without
** one keeps the area empty) and some condition of the study has one. A
** practice block's examples are explained when the condition has a
** method, whatever the block shows. Without the study or its slots
** (hand-built views) the area is kept when there is an explanation. */
static int keeps_area(const M *b)
{
    const SessionView *v = b->v;
    const ScreenSlots *s = b->cx->slots;
    if (!v->block || (!b->cx->study && !s)) {
        return v->explanation != NULL;
    }
    int shows = v->block->show.explanation ||
                (v->trial && v->trial->is_example && v->block->train_pool);
    return shows && (b->cx->study ? any_method(b->cx->study) : s->any_method);
}

static void reveal_model(const M *b, ScreenReveal *r, const Explanation *e,
                         int card, int shown)
{
    r->mode = expl_reveal_name(e->reveal);
    r->shown = shown;
    r->show_value = SESSION_REVEAL(card, 1);
    r->hide_value = SESSION_REVEAL(card, 0);
    r->show_label = tr(b, UI_EXPL_SHOW);
    r->hide_label = tr(b, UI_EXPL_HIDE);
    r->hover = -1;
    if (card < 0) {
        r->key = b->v->reveal_key ? b->v->reveal_key : tr(b, UI_EXPL_SHOW_KEY);
        if (e->reveal == EXPL_REVEAL_HOVER) {
            r->hint = tr(b, UI_EXPL_HOVER_HINT);
            r->hides_values = !b->cx->measure;
            r->hover = b->v->hover_target;
            r->n_hover = b->v->n_hover;
        }
    }
}

/* The key of the option at index i of an item's own options: 1-9, 0. */
static const char *option_key(const M *b, size_t i)
{
    return arena_printf(b->a, "%d", (int)((i + 1) % 10));
}

/* A per-option payload's parts (x built from e) in the order the options
** are offered (the trial's, else the item's), each titled with its option
** (and its key when the options are asked): each candidate beside its
** evidence. Parts of classes not offered are left out. */
static void order_per_option(const M *b, ScreenExpl *x, const Explanation *e,
                             const Item *item, int keyed)
{
    const SessionView *v = b->v;
    const int *opts = keyed ? v->options : item->options;
    size_t n = keyed ? v->n_options : item->n_options;
    if (!x || !e->part_class || !opts || x->n_parts != e->n_parts) {
        return;
    }
    ScreenExpl *parts = arena_array(b->a, n, sizeof *parts);
    size_t k = 0;
    for (size_t i = 0; parts && i < n; i++) {
        for (size_t j = 0; j < e->n_parts; j++) {
            if (e->part_class[j] != opts[i]) {
                continue;
            }
            parts[k] = x->parts[j];
            const char *label = class_label(b, opts[i]);
            parts[k++].title = keyed ? arena_printf(b->a, "%s \xc2\xb7 %s",
                                                    option_key(b, i), label)
                                     : label;
            break;
        }
    }
    if (parts) {
        x->parts = parts;
        x->n_parts = k;
        x->per_option = 1;
    }
}

static void area_model(const M *b, int across)
{
    const SessionView *v = b->v;
    ScreenArea *a = alloc(b, sizeof *a);
    if (!a) {
        return;
    }
    b->m->area = a;
    a->kept = 1;
    a->across = across;
    a->section =
        tr(b, across ? UI_ITEM_EXPLANATION_ORIGINAL : UI_ITEM_EXPLANATION);
    const Explanation *e = v->explanation;
    if (!e) {
        return;
    }
    int hover = e->reveal == EXPL_REVEAL_HOVER;
    a->expl = screen_model_expl(b->m, b->cx, e, &v->item->input, 0, hover);
    order_per_option(b, a->expl, e, v->item, v->n_options && v->need_choice);
    reveal_model(b, &a->reveal, e, -1, v->revealed || b->cx->measure);
}

static void reservoir_model(const M *b)
{
    const SessionView *v = b->v;
    ScreenReservoir *r = alloc(b, sizeof *r);
    if (!r) {
        return;
    }
    b->m->reservoir = r;
    r->title = tr(b, UI_RESERVOIR_TITLE);
    r->note = tr(b, UI_RESERVOIR_SCROLL);
    const ScreenSlots *sl = b->cx->slots;
    r->card_h = sl ? sl->res_card_h : 0;
    r->top_share = sl && sl->res_share > 0 ? sl->res_share : 0.55;
    r->top = sl ? sl->res_top : 1;
    r->cards = arena_array(b->a, v->n_reservoir, sizeof *r->cards);
    for (size_t i = 0; r->cards && i < v->n_reservoir; i++) {
        ScreenResCard *c = &r->cards[r->n_cards++];
        const Item *it = v->reservoir[i];
        const Explanation *e = v->reservoir_expl[i];
        c->draws_input = !expl_shows_input(e);
        input_model(b, &c->input, &it->input, NULL, 0);
        if (e) {
            c->expl = screen_model_expl(b->m, b->cx, e, &it->input, 1, 0);
            order_per_option(b, c->expl, e, it, 0);
            reveal_model(b, &c->reveal, e, (int)i,
                         b->cx->measure ||
                             (v->res_revealed && v->res_revealed[i]));
        }
        c->pill = (ScreenPill){tr(b, UI_ITEM_MODEL),
                               class_label(b, it->prediction), 1, 0};
    }
}

/* Item screens: the item's card(s), the explanation area, the
** reservoir. */
static void item_model(const M *b)
{
    const SessionView *v = b->v;
    const Item *it = v->item;
    ScreenModel *m = b->m;
    if (!it) {
        return;
    }
    int keep = keeps_area(b);
    if (v->screen == SCREEN_COUNTERFACTUAL || v->ask_counterfactual) {
        /* the original and the changed input; the explanation of the
        ** original across the content under them */
        m->cards = arena_array(b->a, 2, sizeof *m->cards);
        if (!m->cards) {
            return;
        }
        CardSpec orig = {tr(b, UI_ITEM_ORIGINAL),
                         v->show_label,
                         v->show_prediction,
                         0,
                         0,
                         0};
        CardSpec pert = {
            tr(b, v->cf_unchanged ? UI_ITEM_UNCHANGED : UI_ITEM_CHANGED),
            0,
            0,
            !v->cf_unchanged,
            1,
            0};
        card_model(b, &m->cards[0], it, &orig);
        card_model(b, &m->cards[1], it, &pert);
        m->n_cards = 2;
        if (keep) {
            area_model(b, 1);
        }
    } else {
        m->cards = arena_array(b->a, 1, sizeof *m->cards);
        if (!m->cards) {
            return;
        }
        /* the true label and the output only where they are shown: not
        ** on the item to predict */
        int predict = v->screen == SCREEN_PREDICT;
        CardSpec k = {keep ? tr(b, UI_ITEM_INPUT) : NULL,
                      v->show_label && !predict,
                      v->show_prediction && !predict,
                      0,
                      0,
                      v->screen == SCREEN_DECIDE && !v->show_prediction &&
                          any_advice(b->cx->study)};
        card_model(b, &m->cards[0], it, &k);
        m->n_cards = 1;
        if (keep) {
            area_model(b, 0);
        }
    }
    if (v->n_reservoir) {
        reservoir_model(b);
    }
}

/* ------------------------------------------------------- other bodies */

static void quiz_model(const M *b)
{
    const SessionView *v = b->v;
    const QuizQuestion *q = v->question;
    ScreenQuiz *z = alloc(b, sizeof *z);
    if (!q || !z) {
        return;
    }
    b->m->quiz = z;
    z->text = q->text ? q->text : "";
    z->value = v->choice;
    z->retry = v->attempt > 1 ? tr(b, UI_QUIZ_RETRY) : NULL;
    z->ends = 1;
    z->options = arena_array(b->a, q->n_options, sizeof *z->options);
    for (size_t i = 0; z->options && i < q->n_options; i++) {
        z->options[i].label = q->options[i];
        z->options[i].key = arena_printf(b->a, "%d", (int)(i % 100) + 1);
        z->n_options++;
    }
}

static void feedback_model(const M *b)
{
    const SessionView *v = b->v;
    ScreenFeedback *f = alloc(b, sizeof *f);
    if (!f) {
        return;
    }
    b->m->feedback = f;
    int ok = v->feedback_correct;
    f->correct = ok;
    f->final = v->feedback_final;
    f->head = tr(b, ok ? UI_FEEDBACK_CORRECT : UI_FEEDBACK_WRONG);
    if (v->question) {
        if (ok) {
            f->detail = tr(b, UI_FEEDBACK_QUIZ_RIGHT);
        } else if (v->feedback_final && v->feedback_answer >= 0 &&
                   (size_t)v->feedback_answer < v->question->n_options) {
            f->detail = arena_printf(b->a,
                                     ui_fmt(b->s, UI_FEEDBACK_QUIZ_ANSWER,
                                            "The right answer is: **%s**"),
                                     v->question->options[v->feedback_answer]);
        } else {
            f->detail = tr(b, UI_FEEDBACK_QUIZ_AGAIN);
        }
    } else if (ok || v->feedback_final) {
        f->detail = arena_printf(b->a,
                                 ui_fmt(b->s, UI_FEEDBACK_MODEL_OUTPUT,
                                        "The model's output was **%s**."),
                                 class_label(b, v->feedback_answer));
    } else {
        f->detail = tr(b, UI_FEEDBACK_MODEL_AGAIN);
    }
    if (v->item && !v->question) {
        f->card = alloc(b, sizeof *f->card);
        if (f->card) {
            CardSpec k = {NULL, 0, 0, 0, 0, 0};
            card_model(b, f->card, v->item, &k);
        }
    }
}

/* A bound of a number question with as few decimals as it needs. */
static char *bound_text(const M *b, double x)
{
    int d = 0;
    while (d < 6 && fabs(x * pow(10, d) - round(x * pow(10, d))) > 1e-9) {
        d++;
    }
    return arena_num(b->a, b->s, x, d, 0);
}

static void questionnaire_model(const M *b)
{
    const SessionView *v = b->v;
    const Block *bl = v->block;
    ScreenQuestionnaire *q = alloc(b, sizeof *q);
    if (!q || !bl) {
        return;
    }
    b->m->questionnaire = q;
    q->intro = v->page_text && v->page_text[0] ? v->page_text : NULL;
    q->focus = v->focus;
    q->complete = v->answers_complete;
    q->questions = arena_array(b->a, bl->n_survey, sizeof *q->questions);
    for (size_t i = 0; q->questions && i < bl->n_survey; i++) {
        const SurveyQuestion *sq = &bl->survey[i];
        ScreenQuestion *o = &q->questions[q->n_questions++];
        o->question = sq;
        o->answer = v->answers && v->answers[i] ? v->answers[i] : "";
        o->optional = sq->required ? NULL : tr(b, UI_QUESTIONNAIRE_OPTIONAL);
        if (sq->type == QTYPE_NUMBER && isfinite(sq->min) &&
            isfinite(sq->max)) {
            o->range =
                arena_printf(b->a, "%s \xe2\x80\x93 %s", bound_text(b, sq->min),
                             bound_text(b, sq->max));
        }
        AnswerProblem p =
            v->answer_problems ? v->answer_problems[i] : ANSWER_OK;
        if (p != ANSWER_OK) {
            char why[256];
            questionnaire_problem_text(b->s, sq, p, why, sizeof why);
            o->problem = arena_strdup(b->a, why);
        } else if (v->answers_tried && sq->required && !o->answer[0]) {
            o->problem = tr(b, UI_QUESTIONNAIRE_MISSING);
        }
    }
}

/* ---------------------------------------------------- the response bar */

static ScreenScale *scale_model(const M *b, const RatingSpec *rs, UiKey q,
                                UiKey lo, UiKey hi, int value, int input)
{
    ScreenScale *k = alloc(b, sizeof *k);
    if (!k) {
        return NULL;
    }
    /* the study's own texts; the format's English defaults in the study's
    ** language */
    k->question = rs && rs->question ? ui_fmt(b->s, q, rs->question) : tr(b, q);
    k->low = rs && rs->low ? ui_fmt(b->s, lo, rs->low) : tr(b, lo);
    k->high = rs && rs->high ? ui_fmt(b->s, hi, rs->high) : tr(b, hi);
    k->points = rs && rs->points >= 2 && rs->points <= 11 ? rs->points : 7;
    k->value = value;
    k->enabled = 1;
    k->input = input;
    return k;
}

/* The question of a screen's forced choice. */
static UiKey choice_question(SessionScreen screen)
{
    switch (screen) {
    case SCREEN_COUNTERFACTUAL:
        return UI_CF_QUESTION;
    case SCREEN_VERIFY:
        return UI_VERIFY_QUESTION;
    case SCREEN_DECIDE:
        return UI_DECIDE_QUESTION;
    default:
        return UI_PREDICT_QUESTION;
    }
}

/* A screen that asks a forced choice about an item. */
static int asks_item(SessionScreen screen)
{
    return screen == SCREEN_PREDICT || screen == SCREEN_COUNTERFACTUAL ||
           screen == SCREEN_VERIFY || screen == SCREEN_DECIDE;
}

/* The choice among the study's classes (or a verify block's two verdicts),
** each with its key. */
static void class_choice(const M *b, ScreenChoice *c)
{
    const SessionView *v = b->v;
    size_t n;
    const StudyClass *ch = session_choices(v, &n);
    c->options = arena_array(b->a, n, sizeof *c->options);
    for (size_t i = 0; c->options && i < n; i++) {
        const StudyClass *k = &ch[i];
        /* a verdict's words are the runner's strings */
        c->options[i].label =
            k->label      ? k->label
            : v->verdicts ? tr(b, i == 0 ? UI_VERIFY_ACCEPT : UI_VERIFY_REJECT)
                          : "";
        c->options[i].key = k->key && *k->key
                                ? k->key
                                : arena_printf(b->a, "%d", (int)(i % 100) + 1);
        c->n_options++;
    }
}

/* The choice among the item's own options in the order offered, keys 1-9
** (0 a tenth); value: the index of the option chosen. */
static void option_choice(const M *b, ScreenChoice *c)
{
    const SessionView *v = b->v;
    c->value = -1;
    c->options = arena_array(b->a, v->n_options, sizeof *c->options);
    for (size_t i = 0; c->options && i < v->n_options; i++) {
        c->options[i].label = class_label(b, v->options[i]);
        c->options[i].key = option_key(b, i);
        c->n_options++;
        if (v->options[i] == v->choice) {
            c->value = (int)i;
        }
    }
}

static void response_model(const M *b)
{
    const SessionView *v = b->v;
    ScreenModel *m = b->m;
    int predicting = asks_item(v->screen) || v->screen == SCREEN_EXAMPLE ||
                     v->screen == SCREEN_RATING;
    if (v->need_choice && !v->question && predicting) {
        ScreenChoice *c = alloc(b, sizeof *c);
        if (c) {
            m->choice = c;
            c->question = tr(b, choice_question(v->screen));
            c->value = v->choice;
            c->ends = !v->need_rating && !v->confidence_spec;
            if (v->n_options) {
                option_choice(b, c);
            } else {
                class_choice(b, c);
            }
        }
    }
    if (v->confidence_spec && predicting) {
        m->confidence = scale_model(
            b, v->confidence_spec, UI_CONFIDENCE_QUESTION, UI_CONFIDENCE_LOW,
            UI_CONFIDENCE_HIGH, v->confidence, SIM_IN_CONFIDENCE);
        if (m->confidence) {
            m->confidence->enabled = v->choice >= 0;
            m->confidence->ends = !v->need_rating;
        }
    }
    if (v->need_rating && predicting) {
        m->rating =
            scale_model(b, v->rating_spec, UI_RATING_QUESTION, UI_RATING_LOW,
                        UI_RATING_HIGH, v->rating, SIM_IN_RATE);
    }
    if (v->need_continue && v->screen != SCREEN_QUIZ) {
        ScreenContinue *k = alloc(b, sizeof *k);
        if (k) {
            m->cont = k;
            k->label = tr(b, UI_CONTINUE);
            if (v->screen == SCREEN_CONSENT) {
                k->label = tr(b, UI_CONSENT_AGREE);
                k->decline = tr(b, UI_CONSENT_DECLINE);
            } else if (v->screen == SCREEN_FEEDBACK && !v->feedback_final &&
                       !v->feedback_correct) {
                k->label = tr(b, UI_TRY_AGAIN);
            }
            k->key = "Enter";
            k->ready = v->continue_ready;
            k->ends = v->screen != SCREEN_QUESTIONNAIRE || v->answers_complete;
            k->wait_ns = v->continue_wait_ns;
            k->at_ns = v->continue_after_ns;
            k->wait_format = ui_fmt(b->s, UI_CONTINUE_WAIT, "%s (%d s)");
            k->scroll_hint = v->scroll_gate ? tr(b, UI_SCROLL_HINT) : NULL;
        }
    }
    const Block *bl = v->block;
    if (bl && bl->time_limit_ms > 0 && v->need_choice && asks_item(v->screen)) {
        ScreenDeadline *d = alloc(b, sizeof *d);
        if (d) {
            m->deadline = d;
            d->limit_ns = (int64_t)bl->time_limit_ms * 1000000LL;
            d->at_ns = v->deadline_ns;
            d->countdown = bl->deadline_countdown;
            d->format = ui_fmt(b->s, UI_DEADLINE_LEFT, "%d s left");
        }
    }
    m->scroll.required = bl && bl->require_scroll && v->need_continue;
    m->scroll.value_fits = SESSION_SCROLL(0, 0);
    m->scroll.value_more = SESSION_SCROLL(1, 0);
    m->scroll.value_end = SESSION_SCROLL(1, 1);
}

/* The keys that mean something on the screen (the browser sends only
** these; the session maps them as on the desktop). */
static void keys_model(const M *b)
{
    const SessionView *v = b->v;
    ScreenModel *m = b->m;
    if (v->screen == SCREEN_QUESTIONNAIRE) {
        return; /* typed text goes to the fields; Continue is a click */
    }
    size_t n_choices;
    const StudyClass *ch = session_choices(v, &n_choices);
    size_t cap = 4 + n_choices + 11;
    m->keys = arena_array(b->a, cap, sizeof *m->keys);
    if (!m->keys) {
        return;
    }
    if (v->need_continue) {
        m->keys[m->n_keys++] = "return";
        m->keys[m->n_keys++] = "space";
    }
    if (v->need_choice && !v->question && v->n_options) {
        for (size_t i = 0; i < v->n_options; i++) {
            m->keys[m->n_keys++] = option_key(b, i);
        }
    } else if (v->need_choice && !v->question) {
        for (size_t i = 0; i < n_choices; i++) {
            if (ch[i].key && ch[i].key[0]) {
                m->keys[m->n_keys++] = ch[i].key;
            }
        }
    }
    int digits = 0;
    if (v->need_choice && v->question) {
        digits = (int)v->question->n_options;
    }
    if (v->need_rating && v->rating_spec && v->rating_spec->points > digits) {
        digits = v->rating_spec->points;
    }
    if (v->confidence_spec && v->confidence_spec->points > digits) {
        digits = v->confidence_spec->points;
    }
    for (int d = 1; d <= digits && d <= 10; d++) {
        m->keys[m->n_keys++] = arena_printf(b->a, "%d", d % 10);
    }
    if (m->area && m->area->expl &&
        v->explanation->reveal == EXPL_REVEAL_ON_REQUEST) {
        m->keys[m->n_keys++] = m->area->reveal.key;
    }
}

/* ------------------------------------------------------------ the model */

ScreenModel *screen_model_new(void)
{
    ScreenModel *m = sim_calloc(1, sizeof *m);
    if (!m) {
        return NULL;
    }
    m->arena = sim_calloc(1, sizeof *m->arena);
    if (!m->arena) {
        sim_free(m);
        return NULL;
    }
    return m;
}

void screen_model_free(ScreenModel *m)
{
    if (!m) {
        return;
    }
    arena_free(m->arena);
    sim_free(m->arena);
    sim_free(m);
}

int screen_model_build(ScreenModel *m, const SessionView *v,
                       const ScreenContext *cx)
{
    ScreenArena *arena = m->arena;
    arena_reset(arena);
    arena->classes = v->classes;
    arena->n_classes = v->n_classes;
    memset(m, 0, sizeof *m);
    m->arena = arena;
    M b = {m, arena, v, cx, cx->strings};
    SessionScreen sc =
        (unsigned)v->screen < SESSION_SCREEN_COUNT ? v->screen : SCREEN_DONE;
    m->screen = session_screen_name(sc);
    m->body_kind = screens[sc].body;
    m->body = screen_body_name(m->body_kind);
    m->serial = v->screen_serial;
    m->lang = cx->strings ? ui_strings_language(cx->strings) : "en";
    m->rtl = ui_strings_rtl(cx->strings);
    char tbuf[256];
    m->title =
        arena_strdup(arena, session_title(v, cx->strings, tbuf, sizeof tbuf));
    m->experimenter = v->message;
    int item_screen = m->body_kind == BODY_ITEM || sc == SCREEN_FEEDBACK;
    if (item_screen && v->progress_total > 0) {
        int done = v->progress_done + 1 > v->progress_total
                       ? v->progress_total
                       : v->progress_done + 1;
        m->progress =
            arena_printf(arena, ui_fmt(cx->strings, UI_PROGRESS, "%d of %d"),
                         done, v->progress_total);
        m->progress_done = v->progress_done;
        m->progress_total = v->progress_total;
    }
    if (screens[sc].head != NO_KEY) {
        m->message_head = tr(&b, (UiKey)screens[sc].head);
        int text =
            cx->runner == SCREEN_ONLINE && screens[sc].online_text != NO_KEY
                ? screens[sc].online_text
                : screens[sc].text;
        if (sc == SCREEN_DONE && cx->runner == SCREEN_ONLINE &&
            cx->completion) {
            text = UI_DONE_ONLINE_CODE;
        }
        m->message_text = tr(&b, (UiKey)text);
    }
    switch (m->body_kind) {
    case BODY_PAGE:
        m->page = v->page;
        break;
    case BODY_NOTE:
        if (v->page_text) {
            m->message_text = v->page_text;
        }
        break;
    case BODY_LINE:
        m->message_text = v->timeout_message ? v->timeout_message : "";
        m->show_ns = SESSION_TIMEOUT_SHOW_NS;
        break;
    case BODY_QUIZ:
        quiz_model(&b);
        break;
    case BODY_FEEDBACK:
        feedback_model(&b);
        break;
    case BODY_ITEM:
        item_model(&b);
        break;
    case BODY_QUESTIONNAIRE:
        questionnaire_model(&b);
        break;
    case BODY_MESSAGE:
    case BODY_KIND_COUNT:
        break;
    }
    if (m->body_kind != BODY_MESSAGE) {
        response_model(&b);
        keys_model(&b);
    }
    return arena->oom ? SIM_ERR_NOMEM : SIM_OK;
}
