/*
** The screen model: everything a front end draws for one session screen,
** decided here once for the desktop runner (app/) and the browser (serve/
** and web/): the texts in the study's language with their numbers already
** formatted, the slots of item screens (the same in every condition), when
** Continue may be pressed, waits, the deadline, the timeout's length,
** feedback, texts cut into runs at their edits, which parts draw the
** item's input and what the participant must scroll over. The front ends
** only draw it. Built from the session's view (session_view.h). No SDL, no
** clock. The browser's JSON is this model serialised field by field
** (serve/serve_view.c): keep member names fit for JSON keys.
*/
#ifndef SIMLAB_EXPERIMENT_SCREEN_MODEL_H
#define SIMLAB_EXPERIMENT_SCREEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/session_view.h"
#include "stimuli/study.h"

/* Who draws the model: the texts differ where the situation does (online
** there is no experimenter to tell). */
typedef enum ScreenRunner {
    SCREEN_DESKTOP = 0, /* simlab run: an experimenter in the room */
    SCREEN_ONLINE = 1   /* simlab serve: a participant alone, a platform */
} ScreenRunner;

/* How a screen's body is drawn: one drawing function per kind in each
** front end (app/screens.c, web/screens.js). A new kind of screen is a row
** of screen_model.c's table (and, when none of these fits, a kind here and
** its drawing in both front ends). */
typedef enum ScreenBody {
    BODY_MESSAGE = 0,   /* a message alone, no header or response bar */
    BODY_PAGE,          /* a page (consent, instructions, debrief) */
    BODY_NOTE,          /* a heading and a paragraph (a break) */
    BODY_LINE,          /* one line, centred (the timeout's message) */
    BODY_QUIZ,          /* a question and its numbered options */
    BODY_FEEDBACK,      /* right or wrong, and the item again */
    BODY_ITEM,          /* item cards, explanation area, reservoir */
    BODY_QUESTIONNAIRE, /* questions stacked */
    BODY_KIND_COUNT
} ScreenBody;

/* The name of a body kind ("item"), for the JSON. */
const char *screen_body_name(ScreenBody b);

/* A piece of text: a run of an input cut at the edits of a perturbation. */
typedef struct ScreenRun {
    const char *text; /* NUL-terminated */
    int edit;         /* an edited part: highlighted */
} ScreenRun;

/* A row of a tabular input. */
typedef struct ScreenRow {
    const char *name;
    const char *value; /* the value shown (the new one when edited) */
    const char *from;  /* edited: the value before, else NULL */
    const char *arrow; /* with from: "→" or "←", the way the row reads */
    int edit;          /* the value is an edit: highlighted */
} ScreenRow;

/* An item's input as a card shows it. */
typedef struct ScreenInput {
    const ItemInput *source; /* modality, image file and size (borrowed) */
    ScreenRun *runs;         /* text (a pair's first text) in runs */
    size_t n_runs;
    ScreenRun *runs_b; /* a text pair's second text */
    size_t n_runs_b;
    const char *title_a; /* a text pair's names */
    const char *title_b;
    ScreenRow *rows; /* tabular */
    size_t n_rows;
} ScreenInput;

/* A labelled value under an item ("Model output  Positive"). */
typedef struct ScreenPill {
    const char *label;
    const char *value;
    int strong; /* the filled style (the model's answer) */
    int hidden; /* keeps its place, drawn as nothing: the model's output on
                   a decide screen of a condition without advice, so that
                   the item sits where it does with advice (value "") */
} ScreenPill;

/* An item card: a section label, the input, its pills. */
typedef struct ScreenCard {
    const char *section; /* "Input", "Original", ...; NULL none */
    int draws_input;     /* the card draws the input (else an explanation
                            that draws it stands for it) */
    ScreenInput input;
    ScreenPill pills[2];
    size_t n_pills;
} ScreenCard;

/* --------------------------------------------------------- explanations */

/* One value of an explanation, as its kind lists them (screen_expl.c):
**   bars, features, prototype  label "name = value", text the weight
**   tokens (and pairs' tokens) label the token, text its weight (shown on
**                              hover, in a tooltip)
**   gallery                    label its caption, text its weight
**   rules                      label the THEN line, text the precision and
**                              coverage line
** weight is the number itself (bar lengths, colours), NaN when none. */
typedef struct ScreenValue {
    const char *label; /* NULL none */
    const char *text;  /* the number formatted in the study's language
                          ("+0,77 %"); NULL none */
    double weight;
    int hover; /* its number as a hover value (expl_hover_targets), -1 */
} ScreenValue;

/* A line of an explanation (screen_expl.c):
**   features                   baseline, sum, output: label and number
**   bars                       the sum: label and number
**   token_pairs, span_pairs    the strongest pairs: the line “a” ↔ “b”,
**                              its weight; pair: the index in the payload
**   path                       "Start" / "Step n", the margin, and note:
**                              the edits ("f: a → **b**", "as it is") */
typedef struct ScreenLine {
    const char *label;
    const char *text; /* the number formatted, NULL none */
    const char *note; /* NULL none */
    double weight;
    int pair; /* token_pairs, span_pairs: the pair's index; else -1 */
} ScreenLine;

/* An explanation: its payload (what the data are: files, tokens, pairs,
** rows) and every text its drawing shows, already in the study's language.
** parts are the payload's parts, as nodes of their own. */
typedef struct ScreenExpl ScreenExpl;
struct ScreenExpl {
    const Explanation *payload; /* borrowed from the study */
    const char *kind;           /* expl_kind_name */
    const char *title;          /* NULL none */
    const char *head;           /* prototype, path: the sentence above (with
                                 **strong** marks); NULL none */
    const char *legend_lo;      /* a colour bar's captions; NULL: no legend */
    const char *legend_hi;
    double scale;        /* tokens: the |weight| a full colour stands for (the
                            largest; over all the parts of a per-option payload,
                            so that the candidates' evidence compares); 0: none */
    const char *section; /* token_pairs: "Interactions"; prototype:
                            "Important features"; NULL none */
    const char *name_a;  /* tokens of a pair, token_pairs: the names of
                            the two texts; NULL none */
    const char *name_b;
    const char *columns[3]; /* prototype: the table's header */
    const char *note;       /* prototype: which rows differ; NULL none */
    const char *word_if;    /* rules: the keywords */
    const char *word_and;
    ScreenValue *values;
    size_t n_values;
    ScreenLine *lines;
    size_t n_lines;
    int line_rule;          /* a rule above the last line (an output) */
    int draws_input;        /* it draws the item's image itself (a heatmap, an
                               image without a file of its own, or a part) */
    const char *image_file; /* that image (the item's), absolute; NULL */
    ScreenExpl *parts;
    size_t n_parts;
    int per_option; /* a per-option payload: parts are the answer options
                       in the order offered, drawn side by side, each
                       titled with its option */
};

/* How an explanation is given: at once, on request behind a button, or
** its values on hover; and the inputs that change it. */
typedef struct ScreenReveal {
    const char *mode;       /* expl_reveal_name: "always", "on_request",
                               "hover" */
    int shown;              /* on request: shown now */
    int show_value;         /* SIM_IN_REVEAL's value that shows it */
    int hide_value;         /* ... that hides it */
    const char *show_label; /* the buttons */
    const char *hide_label;
    const char *key;  /* the key that toggles it (item's only) */
    const char *hint; /* hover: the hint above it; NULL */
    int hides_values; /* hover: a value is shown only while it is
                         hovered (not in a measuring build) */
    int hover;        /* hover: the value hovered, -1 none */
    int n_hover;      /* hover: how many values */
} ScreenReveal;

/* The explanation area of an item screen: kept in every condition of a
** block that shows explanations (empty in a condition without one), beside
** the item or across the content width. */
typedef struct ScreenArea {
    int kept;            /* the screen keeps the area */
    int across;          /* across the content (under the cards of a
                            counterfactual), not beside the item */
    const char *section; /* "Explanation", "Explanation of the original" */
    ScreenExpl *expl;    /* NULL: kept empty */
    ScreenReveal reveal;
} ScreenArea;

/* A reservoir card: an example of the session on a test screen. */
typedef struct ScreenResCard {
    int draws_input; /* the card draws the input (else its explanation
                        does) */
    ScreenInput input;
    ScreenExpl *expl; /* NULL none */
    ScreenReveal reveal;
    ScreenPill pill; /* "Model  Positive" */
} ScreenResCard;

/* The reservoir: the session's examples, each card as tall as the study's
** tallest (slots), above the item when it takes at most top_share of the
** view, else below it with the note. */
typedef struct ScreenReservoir {
    const char *title;
    const char *note; /* below the item: "scroll down for the examples" */
    ScreenResCard *cards;
    size_t n_cards;
    double card_h;    /* every card's height in the slots' unit (0: each
                         row as tall as its tallest card) */
    double top_share; /* above the item when it fits in this share of the
                         view */
    int top;          /* decided for the slots' view: above the item */
} ScreenReservoir;

/* ------------------------------------------------------------ responses */

typedef struct ScreenOption {
    const char *label;
    const char *key; /* its key ("f", "1"); NULL none */
} ScreenOption;

/* The forced choice of a prediction. */
typedef struct ScreenChoice {
    const char *question;
    ScreenOption *options;
    size_t n_options;
    int value; /* chosen so far, -1 none */
    int ends;  /* a choice answers the screen (nothing asked after it):
                  what is pressed later is not taken */
} ScreenChoice;

/* A row of points: the rating of an explanation or the confidence. */
typedef struct ScreenScale {
    const char *question;
    const char *low, *high;
    int points;
    int value;   /* 0 none */
    int enabled; /* confidence: after the choice */
    int input;   /* the input a point sends: SIM_IN_RATE or
                    SIM_IN_CONFIDENCE */
    int ends;    /* a point answers the screen */
} ScreenScale;

/* Continue: pressed when ready, from at_ns on (or, before the onset is
** known, wait_ns after the onset the front end saw). */
typedef struct ScreenContinue {
    const char *label;       /* "Continue", "I agree", "Try again" */
    const char *key;         /* its key cap ("Enter") */
    const char *decline;     /* consent: the other button; NULL none */
    int ready;               /* nothing it needs is missing */
    int ends;                /* pressed when ready, it answers the screen
                                (a questionnaire's shows what is missing
                                until it is complete) */
    int64_t wait_ns;         /* the reading time from the onset; 0 none */
    int64_t at_ns;           /* from when (the session's clock); 0 unknown
                                or none */
    const char *wait_format; /* the label while waiting: printf of the
                                label and the whole seconds left */
    const char *scroll_hint; /* shown while the scroll gate holds; NULL */
} ScreenContinue;

/* The answer deadline of a prediction. */
typedef struct ScreenDeadline {
    int64_t limit_ns;   /* the time limit */
    int64_t at_ns;      /* when it passes (the session's clock); 0 until
                           the onset is known */
    int countdown;      /* show the seconds left under the choice */
    const char *format; /* printf of the seconds left ("%d s left") */
} ScreenDeadline;

/* What the front end reports of its scrolling (session_report_scroll): the
** content that counts is what is drawn, not a reserved area left empty. */
typedef struct ScreenScroll {
    int required;   /* the block requires scrolling to the end */
    int value_fits; /* SIM_IN "scroll" values (SESSION_SCROLL): nothing to
                       scroll */
    int value_more; /* it does not fit, the end not reached */
    int value_end;  /* it does not fit, scrolled to its end */
} ScreenScroll;

/* ------------------------------------------------ other bodies' parts */

typedef struct ScreenQuiz {
    const char *text; /* with **strong** marks */
    ScreenOption *options;
    size_t n_options;
    int value;         /* chosen so far, -1 none */
    const char *retry; /* a repeated question's note; NULL */
    int ends;          /* an option answers the screen */
} ScreenQuiz;

typedef struct ScreenFeedback {
    int correct;
    int final;          /* Continue moves on (else the question again) */
    const char *head;   /* "Correct!" */
    const char *detail; /* with **strong** marks */
    ScreenCard *card;   /* the item again; NULL none */
} ScreenFeedback;

typedef struct ScreenQuestion {
    const SurveyQuestion *question; /* borrowed: type, text, options */
    const char *answer;             /* so far ("") */
    const char *optional;           /* "(optional)"; NULL for required */
    const char *range;              /* a number's "18 – 99"; NULL */
    const char *problem;            /* why the answer is not taken, or that
                                       it is missing; NULL */
} ScreenQuestion;

typedef struct ScreenQuestionnaire {
    const char *intro; /* the block's text (with **strong** marks); NULL */
    ScreenQuestion *questions;
    size_t n_questions;
    int focus;    /* the question typed text goes to, -1 none */
    int complete; /* every required answer given and valid */
} ScreenQuestionnaire;

/* --------------------------------------------------------------- slots */

/* The slots of a study's item screens for one front end and window,
** decided once (screen_slots_plan) so that the item is at the same place
** in every condition: the explanation area and the reservoir's cards are
** as big as the study's largest, whatever the condition shows. Sizes are
** in the measuring front end's unit (px on the desktop, em in the
** browser). */
typedef struct ScreenSlots {
    double view_h;      /* the body's height on a prediction screen */
    double max_image_h; /* the tallest an item's image is drawn */
    double expl_side_h; /* explanation area content beside the item */
    double expl_full_h; /* ... across the content width */
    double res_card_h;  /* the tallest reservoir card */
    double res_h;       /* the reservoir's height, 0 without one */
    double res_share;   /* above the item when res_h is at most this share
                           of view_h */
    int res_top;        /* the reservoir above the item */
    int any_method;     /* some condition shows explanations */
    /* what made the areas tallest (simlab check's report); NULL none */
    const Item *expl_item;
    const char *expl_method;
    const Item *res_item;
    const char *res_method;
} ScreenSlots;

/* How a front end measures what the slots hold (its fonts, its unit). */
typedef struct SlotMeasure {
    void *ctx;
    double view_h; /* the body's height on a prediction screen; 0: not
                      known (the front end places the reservoir) */
    double u;      /* the body text size */
    /* the content height of the explanation area a (built in its tallest
    ** state) on item, images at most max_image_h tall; NULL: areas are
    ** not measured */
    double (*area_h)(void *ctx, const ScreenArea *a, const Item *item,
                     double max_image_h);
    /* a reservoir card (built in its tallest state) when n cards are
    ** shown */
    double (*card_h)(void *ctx, const ScreenResCard *card, size_t n);
    /* the reservoir of n cards card_h high */
    double (*res_h)(void *ctx, size_t n, double card_h);
} SlotMeasure;

/* Works out the slots of study's item screens with m: every explanation of
** every condition and every reservoir card measured once, in its tallest
** state. strings: the study's language. */
void screen_slots_plan(ScreenSlots *s, const Study *study,
                       const UiStrings *strings, const SlotMeasure *m);

/* The slots the browser sizes its reservoir with, in em of its body text:
** the reservoir cards' height estimated from their content (no fonts on
** the server; a card whose content is taller scrolls inside). */
void screen_slots_plan_em(ScreenSlots *s, const Study *study,
                          const UiStrings *strings);

/* ---------------------------------------------------------- the model */

typedef struct ScreenArena ScreenArena;

/* What a front end draws. Texts and arrays are owned by the model (until
** the next build); payloads, pages, items and survey questions are
** borrowed from the study. */
typedef struct ScreenModel {
    const char *screen;   /* session_screen_name ("predict") */
    const char *body;     /* screen_body_name ("item") */
    ScreenBody body_kind; /* the same, for C */
    unsigned serial;      /* changes with every new screen (or attempt) */
    const char *lang;     /* the study's language tag */
    int rtl;              /* its text runs right to left: mirror */
    const char *title;    /* the heading; "" none */
    const char *progress; /* "3 of 40" on item screens; NULL none */
    int progress_done;
    int progress_total;

    /* BODY_MESSAGE, BODY_NOTE, BODY_LINE */
    const char *message_head; /* NULL none */
    const char *message_text; /* with **strong** marks; NULL none */
    int64_t show_ns;          /* the timeout's message shows this long */
    const char *experimenter; /* the reason, for the experimenter (desktop);
                                 NULL none */

    const Page *page; /* BODY_PAGE (and a questionnaire's intro); NULL */
    ScreenQuiz *quiz;
    ScreenFeedback *feedback;
    ScreenQuestionnaire *questionnaire;

    /* BODY_ITEM */
    ScreenCard *cards; /* the item (or the original and the changed one) */
    size_t n_cards;
    ScreenArea *area;           /* the explanation area; NULL none */
    ScreenReservoir *reservoir; /* NULL none */

    /* the response bar */
    ScreenChoice *choice;
    ScreenScale *confidence; /* asked after the choice; NULL */
    ScreenScale *rating;
    ScreenContinue *cont;
    ScreenDeadline *deadline;
    ScreenScroll scroll;
    const char **keys; /* the keys that mean something here */
    size_t n_keys;

    ScreenArena *arena; /* owns the texts and arrays */
} ScreenModel;

/* The situation a model is built for. */
typedef struct ScreenContext {
    const Study *study;
    const UiStrings *strings; /* the study's (NULL: English) */
    ScreenRunner runner;
    const ScreenSlots *slots; /* the study's slots for this front end, or
                                 NULL (no reservoir decisions) */
    int completion;           /* online: the completion code or link is
                                 shown with the end page */
    int measure;              /* build explanations in their tallest state
                                 (revealed, every value shown) */
} ScreenContext;

/* A new, empty model (screen_model_free). NULL when out of memory. */
ScreenModel *screen_model_new(void);
void screen_model_free(ScreenModel *m); /* NULL is a no-op */

/* Builds m for view v (what was in m before is gone). Returns SIM_OK, or
** SIM_ERR_NOMEM with m holding what fitted. */
int screen_model_build(ScreenModel *m, const SessionView *v,
                       const ScreenContext *cx);

/* The explanation node of e on item input (may be NULL) as an area or a
** reservoir card shows it, built into m's arena (freed with m's next
** build). compact: a reservoir card. hover: the values show on hover. NULL
** when out of memory. */
ScreenExpl *screen_model_expl(ScreenModel *m, const ScreenContext *cx,
                              const Explanation *e, const ItemInput *input,
                              int compact, int hover);

/* A number in the study's language (strings): decimals digits after its
** decimal mark ("number.decimal"), a true minus sign (U+2212), "+" before
** positive values with sign set, no sign on a value that rounds to 0, "?"
** for NaN. */
void screen_format_num(const UiStrings *strings, double v, int decimals,
                       int sign, char *out, size_t n);

/* A format of the model that the front end fills as time passes
** (ScreenContinue.wait_format "%s (%d s)", ScreenDeadline.format "%d s
** left"): its %s replaced by s, its %d by d, "%%" by "%", into out. */
void screen_fill(const char *fmt, const char *s, int d, char *out, size_t n);

/* The arrow of the line "from -> to": "←" when the line runs right to left
** (its first strong character, in from, else to, else the study's
** direction rtl), else "→". */
const char *screen_arrow(const char *from, const char *to, int rtl);

#endif
