/*
** The study model: everything a study bundle defines (classes, conditions,
** blocks, items, explanations, screening, assignment), as read and checked
** from study.json and its item banks. No pixels, no SDL, no clock.
** docs/study-format.md is the user-facing description of the same model.
*/
#ifndef SIMLAB_STIMULI_STUDY_H
#define SIMLAB_STIMULI_STUDY_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "common/sim_analysis.h"
#include "common/sim_decode.h"
#include "common/sim_error.h"
#include "common/sim_phase.h"
#include "stimuli/uistrings.h"

/* A page's model (consent, instructions, debrief): stimuli/page.h. */
typedef struct Page Page;

/* ---------------------------------------------------------------- inputs */

typedef enum Modality {
    MODALITY_IMAGE = 0,     /* input.text is a bundle-relative image path */
    MODALITY_TEXT = 1,      /* input.text is the text */
    MODALITY_TEXT_PAIR = 2, /* input.text and input.text_b (premise/hyp.) */
    MODALITY_TABULAR = 3    /* input.features */
} Modality;

typedef struct Feature {
    char *name;  /* e.g. "Age" */
    char *value; /* e.g. "37.00 < Age <= 48.00" (display text) */
} Feature;

typedef struct ItemInput {
    Modality modality;
    char *text;        /* text, first text of a pair, or image path */
    char *text_b;      /* second text of a pair, else NULL */
    char *title_a;     /* optional captions of a pair ("Premise") */
    char *title_b;     /* ("Hypothesis"); NULL = none */
    Feature *features; /* tabular rows, in display order */
    size_t n_features;
    int image_w, image_h; /* pixel size of an image input (read at load) */
    char *image_file;     /* image: the absolute path study loading resolved
                             inside the bundle and decoded (the runner opens
                             this one); NULL when it failed */
} ItemInput;

/* One edit of a counterfactual perturbation. For text the edit is the byte
** range [start, end) of the perturbed text that was changed (to = the new
** words, from = the old words when known). For tabular it names the feature
** and the old and new values. For images, region is an optional mask path. */
typedef struct Edit {
    char *feature; /* tabular: feature name; text: NULL */
    char *from;    /* old value or words; may be NULL */
    char *to;      /* new value or words */
    size_t start;  /* text: byte offset in the perturbed text */
    size_t end;    /* text: one past the last byte */
    int segment;   /* text_pair: 0 = text, 1 = text_b */
} Edit;

typedef struct Counterfactual {
    ItemInput input; /* the perturbed input (for text: markers removed) */
    int prediction;  /* class index: model output on the perturbation */
    Edit *edits;
    size_t n_edits;
    char *region; /* image: optional mask of the edited region */
} Counterfactual;

/* ---------------------------------------------------------- explanations */

/* Kinds of explanation payloads. Each has one row in stimuli/expl.c's
** table (name, fields, parser, what it holds) and one in app/render_expl.c's
** (drawing). The first ten are the published formats; the last five are
** primitives a lab composes its own explanation method from without C. */
typedef enum ExplKind {
    EXPL_HEATMAP = 0,     /* attribution map over an image */
    EXPL_TOKENS = 1,      /* signed weights per token or span */
    EXPL_TOKEN_PAIRS = 2, /* token-token interactions on a text pair */
    EXPL_SPAN_PAIRS = 3,  /* span-span interactions on a text pair */
    EXPL_FEATURES = 4,    /* LIME-style feature weights */
    EXPL_RULES = 5,       /* anchor-style rules */
    EXPL_PROTOTYPE = 6,   /* most similar prototype + important features */
    EXPL_PATH = 7,        /* decision-boundary edit path with margins */
    EXPL_TEXT = 8,        /* pre-formatted text */
    EXPL_COMPOSITE = 9,   /* a list of the above */
    EXPL_IMAGE = 10,      /* a bundle image (or the item's) with a caption
                             and an optional heatmap overlay */
    EXPL_GALLERY = 11,    /* images in a grid, captions and weights */
    EXPL_MARKDOWN = 12,   /* prose: paragraphs, bold, italic, lists */
    EXPL_BARS = 13,       /* labelled values as bars, signed or not */
    EXPL_LAYOUT = 14      /* payloads (or layouts) in a row or a column */
} ExplKind;

#define EXPL_KIND_COUNT 15 /* keep last + 1: the kind tables check it */

/* When the participant sees an explanation ("reveal"). */
typedef enum ExplReveal {
    EXPL_REVEAL_ALWAYS = 0,     /* with the item (default) */
    EXPL_REVEAL_ON_REQUEST = 1, /* behind a "Show explanation" button and
                                   key; shown and hidden on request */
    EXPL_REVEAL_HOVER = 2       /* the values of tokens, features, bars and
                                   gallery images appear on hover or focus */
} ExplReveal;

/* An image of an image or gallery payload. */
typedef struct ExplImage {
    char *file;       /* bundle-relative PNG or JPEG */
    char *image_file; /* absolute path as resolved and decoded at load (the
                         runner opens this one); NULL when it failed */
    int w, h;         /* pixel size */
    char *caption;    /* shown under it, or NULL */
    double weight;    /* gallery: drawn as a small bar and number; NaN when
                         absent */
} ExplImage;

typedef struct ExplToken {
    char *text;    /* token or span text as displayed */
    double weight; /* signed attribution */
    int segment;   /* 0 = first text, 1 = second text of a pair */
} ExplToken;

typedef struct ExplPair {
    int a_start, a_end; /* token range [start, end) in segment 0 */
    int b_start, b_end; /* token range [start, end) in segment 1 */
    double weight;      /* signed interaction strength */
} ExplPair;

typedef struct ExplFeature {
    char *name;    /* feature or word */
    char *value;   /* value shown with it ("= Married"), or NULL */
    double weight; /* signed weight; for prototypes: importance */
    char *other;   /* prototype: the prototype's value; else NULL */
} ExplFeature;

typedef struct ExplRule {
    char **conditions; /* e.g. "Capital Gain = High gains" */
    size_t n_conditions;
    double precision; /* NaN when unknown */
    double coverage;  /* NaN when unknown */
} ExplRule;

typedef struct ExplStep {
    double margin; /* evidence margin after this step */
    Edit *edits;   /* the edits applied so far (cumulative, as printed) */
    size_t n_edits;
} ExplStep;

/* A payload as study loading read and checked it: kind, the fields common
** to every kind (title, reveal), then the fields each kind uses (the rest
** stay zero, NULL or NaN). Plain data, owned by the study: a front end can
** draw it, or serialise it, from these fields alone. */
typedef struct Explanation Explanation;
struct Explanation {
    ExplKind kind;
    char *title;       /* optional caption shown above the explanation */
    ExplReveal reveal; /* top-level payloads only; parts always 0 */

    /* heatmap; an image's overlay (has_overlay) */
    char *file;       /* bundle-relative .png or .npy (float32, H x W) */
    char *map_file;   /* absolute path of file as resolved and read at load
                         (the runner opens this one); NULL when it failed */
    int file_is_npy;  /* 1 for .npy, 0 for .png */
    int map_h, map_w; /* shape of the map */
    char *colormap;   /* "viridis" (default), "cividis", "magma", "gray" */
    double opacity;   /* overlay alpha in [0,1]; default 0.5 */
    int side_by_side; /* 1: show next to the image; 0: overlaid */
    int has_overlay;  /* image: the map fields above hold its overlay */

    /* image (one, or none: the item's own image), gallery (one or more) */
    ExplImage *images;
    size_t n_images;
    int columns; /* gallery: images per row; 0: as many as fit, up to 4 */

    /* tokens, token_pairs, span_pairs */
    ExplToken *tokens;
    size_t n_tokens;
    ExplPair *pairs;
    size_t n_pairs;

    /* features (LIME), prototype (important features), bars (name = the
    ** bar's label, weight = its value) */
    ExplFeature *features;
    size_t n_features;
    double intercept, sum, output; /* NaN when absent */

    /* bars */
    int bars_signed; /* 1: an axis at 0 with signed values; 0: from 0 */
    int show_sum;    /* 1: a line with the sum of the values ("sum") */
    int decimals;    /* digits after the decimal separator (default 2) */
    char *unit;      /* written after each value ("%", " ms"), or NULL */

    /* rules */
    ExplRule *rules;
    size_t n_rules;
    int predicted; /* class index the rules/path/prototype speak of; -1 */

    /* prototype */
    char *prototype_label;     /* label of the prototype */
    double prototype_evidence; /* NaN when absent */
    ExplFeature *rows;         /* name, value = input, other = prototype */
    size_t n_rows;

    /* path */
    double start_margin; /* NaN when absent */
    ExplStep *steps;
    size_t n_steps;

    /* text, markdown (its source) */
    char *text;
    /* markdown: text parsed as a page (stimuli/page.h) with *italic* runs
    ** and hard line breaks */
    Page *doc;

    /* composite (a column with part titles), layout */
    Explanation *parts;
    size_t n_parts;
    int row; /* layout: 1 = "direction": "row", 0 = "column" */

    /* "per_option": a layout row with one part per answer option of the
    ** item, part_class[i] the class index parts[i] speaks of (payload
    ** order); a trial draws them in the order it offers the options */
    int *part_class; /* NULL: not a per-option payload */
};

typedef struct ItemExplanation {
    char *method;   /* method name as conditions refer to it */
    Explanation *e; /* owned; NULL when the payload had errors (reported
                       where it is written: the item does not "lack" it) */
} ItemExplanation;

/* ----------------------------------------------------------------- items */

typedef struct Item {
    char *key;         /* unique in the study: "<pool>:<id>" */
    char *id;          /* id as in the source file */
    char *pool;        /* practice, learn, test, train, ... */
    char *domain;      /* optional (e.g. "text", "tabular"); NULL */
    char *source_file; /* bundle-relative file the item came from */
    int source_line;   /* 1-based line of its record */
    ItemInput input;
    int label;             /* class index of the true label, -1 if unknown */
    int prediction;        /* class index of the model output */
    Counterfactual *cf;    /* NULL when the item has none */
    ItemExplanation *expl; /* per method */
    size_t n_expl;
    char *mask;      /* "mask": bundle-relative PNG of the ground-truth
                        region of an image item (white inside), or NULL */
    char *mask_file; /* its absolute path as resolved at load; NULL when
                        it failed */
    int *rationale;  /* "rationale": gold token indices (0-based), or NULL */
    size_t n_rationale;
    int *options; /* "options": the answer options (class indices, 2 to
                     ITEM_MAX_OPTIONS) in the item's order, or NULL: a
                     block offers the study's classes */
    size_t n_options;
} Item;

/* Most answer options an item may carry (keys 1-9 and 0). */
#define ITEM_MAX_OPTIONS 10

/* ---------------------------------------------------------------- design */

typedef struct StudyClass {
    char *id;    /* value used in item files ("pos", "above $50K") */
    char *label; /* shown to participants ("Positive") */
    char *key;   /* keyboard key, SDL key name ("f", "j", "1") */
} StudyClass;

typedef struct Condition {
    char *id;     /* "baseline", "LIME", ... */
    char *method; /* explanation method shown, NULL for none */
    char *label;  /* optional description for the experimenter */
    int advice;   /* decide blocks show the model's output (and the
                     explanation of method) as advice; "advice": false
                     for the humans-alone condition (default 1) */
} Condition;

typedef struct QuizQuestion {
    char *text;
    char **options;
    size_t n_options;
    int answer; /* 0-based index of the correct option */
} QuizQuestion;

/* Kinds of blocks. Each has one row in stimuli/blockkind.c's table (name,
** fields, defaults), one in experiment/schedule.c's (steps), one in
** experiment/session.c's (screen, feedback) and one in app/screens.c's
** (heading). */
typedef enum BlockKind {
    BLOCK_CONSENT = 0,
    BLOCK_INSTRUCTIONS = 1,
    BLOCK_QUIZ = 2,
    BLOCK_PRACTICE = 3,
    BLOCK_LEARN = 4,
    BLOCK_PREDICT = 5,
    BLOCK_COUNTERFACTUAL = 6,
    BLOCK_RATING = 7,
    BLOCK_BREAK = 8,
    BLOCK_DEBRIEF = 9,
    BLOCK_QUESTIONNAIRE = 10,
    BLOCK_VERIFY = 11, /* is the model right? accept or reject its output */
    BLOCK_DECIDE = 12  /* the task itself, with or without the model's
                          advice */
} BlockKind;

#define BLOCK_KIND_COUNT 13 /* keep last + 1: the kind tables check it */

/* Types of the questions of a questionnaire block (stimuli/questionnaire.c
** parses them; names as study.json spells them: questionnaire_type_name). */
typedef enum QuestionType {
    QTYPE_NUMBER = 0, /* a number in [min, max] */
    QTYPE_CHOICE = 1, /* one of options */
    QTYPE_LIKERT = 2, /* 1 .. points */
    QTYPE_TEXT = 3    /* free UTF-8 text, multi-line, up to max_length */
} QuestionType;

#define QTYPE_COUNT 4

/* Most questions one questionnaire block may ask. */
#define QUESTIONNAIRE_MAX_QUESTIONS 64

/* One question of a questionnaire block. */
typedef struct SurveyQuestion {
    char *id; /* unique in its block */
    QuestionType type;
    char *text;      /* the question as shown */
    int required;    /* default 1: Continue waits for a valid answer */
    double min, max; /* number: bounds (-HUGE_VAL / HUGE_VAL when open) */
    char **options;  /* choice: >= 2 distinct options, in order shown */
    size_t n_options;
    int points;     /* likert: 2 .. 11 (default 7) */
    char *low;      /* likert: label of 1, or NULL */
    char *high;     /* likert: label of points, or NULL */
    int max_length; /* text: most characters (code points); default 1000 */
} SurveyQuestion;

typedef enum ItemOrder {
    ORDER_SHUFFLE = 0, /* fresh random order per participant (default) */
    ORDER_FIXED = 1    /* file order */
} ItemOrder;

typedef enum ItemDraw {
    DRAW_STUDY = 0,      /* same items for every participant (default) */
    DRAW_PARTICIPANT = 1 /* items drawn per participant from the pool */
} ItemDraw;

/* What a trial shows. An explanation is shown only when the block says so
** and the participant's condition has a method. */
typedef struct ShowSpec {
    int label;       /* true label */
    int prediction;  /* model output on the (original) input */
    int explanation; /* the condition's explanation */
    int reservoir;   /* the reservoir (training items of the session) */
} ShowSpec;

typedef struct RatingSpec {
    char *question; /* PROTOCOLS.md: "Does this explanation show me why the
                       system thought what it did?" */
    int points;     /* 7 */
    char *low;      /* label of 1 */
    char *high;     /* label of the top point */
} RatingSpec;

/* Block.n_items of a block that shows its whole pool ("n": "all", the
** default). */
#define BLOCK_N_ALL (-1)

typedef struct Block {
    BlockKind kind;
    char *id;          /* unique block name, e.g. "pre" or "s2-train" */
    SimPhase phase_id; /* long-format phase; SIM_PHASE_NONE for pages,
                          breaks (and a phase name that is not one) */
    char *phase;       /* its name as written to the long format (owned);
                          NULL when none */
    int session;       /* 1-based training session, 0 when not in one */
    char *title;       /* heading shown on its screens; may be NULL */

    /* item blocks: practice, learn, predict, counterfactual, rating */
    char *pool;             /* item pool */
    int n_items;            /* items to use (0: none, only catch trials);
                               BLOCK_N_ALL: the whole pool */
    char *same_items_as;    /* reuse that block's items (reshuffled) */
    char *exclude_items_of; /* comma list of block ids whose items are not
                               drawn again (new samples per session) */
    ItemOrder order;
    ItemDraw draw;
    ShowSpec show;
    int rating;      /* ask the Likert rating of the explanation */
    int feedback;    /* practice: show whether the answer was right */
    int retry;       /* practice: repeat until right (first try scored) */
    int n_catch;     /* catch trials drawn from the reservoir */
    char *reservoir; /* id of the block whose items form the reservoir */

    /* practice: optional examples shown before its questions */
    char *train_pool; /* pool of practice examples (NULL = none) */
    int n_train;      /* how many (BLOCK_N_ALL: the whole pool) */

    /* pages: consent, instructions, debrief, break */
    char **pages; /* bundle-relative page files, in order */
    size_t n_pages;
    char *text;            /* inline text (break message, ...) */
    const Page *text_page; /* model of text for a page block without page
                              files (owned by the study), else NULL */
    int min_seconds;       /* break: minimum length; pages: minimum reading */

    /* quiz */
    QuizQuestion *questions;
    size_t n_questions;
    int repeat_until_correct; /* default 1 */

    /* questionnaire */
    SurveyQuestion *survey; /* its questions, in order shown */
    size_t n_survey;

    /* questionnaire, break: shown once after the blocks a within-subject
    ** study repeats per condition, on purpose ("once": true) */
    int once;

    /* predict, counterfactual: an answer deadline and a confidence scale */
    int time_limit_ms;      /* 0 = none; else 100..600000 from the onset */
    char *timeout_message;  /* shown briefly after a timeout; NULL = none */
    int deadline_countdown; /* 1: the seconds left are shown
                               ("deadline_display": "countdown") */
    RatingSpec confidence;  /* points 0 = not asked; else 2..11 */

    /* verify: the two answers, ids "accept" (the model is right) and
    ** "reject" (it is wrong), with their keys ("keys": {"accept",
    ** "reject"}; default "f" and "j"); labels NULL: the runner's strings */
    StudyClass verdicts[2];

    /* pages and item screens taller than the window: Continue only after
    ** the participant has scrolled to the end (default 1) */
    int require_scroll;

    /* kinds with BF_OPTIONS: items with "options" are answered from them,
    ** in the item's order or ("options_order": "shuffle") a fresh order
    ** per trial, recorded with it */
    int options_shuffle;
} Block;

typedef struct Screening {
    int practice_min_first_try; /* exclude when fewer practice items were
                                   right on the first try; -1 = off */
    int quiz_all_first_try;     /* exclude unless every quiz question was
                                   right on the first try */
    int max_catch_failures;     /* exclude above this many; -1 = off */
    double min_total_seconds;   /* exclude faster completions; 0 = off */
    int stop_on_failure;        /* end the participant's run at once */
} Screening;

typedef enum AssignRule {
    ASSIGN_BALANCED = 0, /* least-filled (completed + active), random tie */
    ASSIGN_HASE = 1      /* every condition reaches min_complete, then all
                            go to then_condition */
} AssignRule;

typedef enum AssignMode {
    ASSIGN_MODE_BETWEEN = 0, /* one condition per participant (default) */
    ASSIGN_MODE_WITHIN = 1   /* every participant does every condition */
} AssignMode;

/* The order of the conditions of a within-subject participant. */
typedef enum WithinOrder {
    WITHIN_LATIN_SQUARE = 0, /* rows of a Williams design, least filled */
    WITHIN_RANDOM = 1,       /* a random order from the participant's seed */
    WITHIN_FIXED = 2         /* the order of study->conditions */
} WithinOrder;

typedef struct Assignment {
    AssignMode mode;
    WithinOrder order; /* ASSIGN_MODE_WITHIN only */
    AssignRule rule;
    int min_complete;     /* ASSIGN_HASE: completed per condition */
    char *then_condition; /* ASSIGN_HASE: where the rest go */
    int active_minutes;   /* unfinished participants count as filling a
                             condition when active this recently */
    /* ASSIGN_MODE_WITHIN without sessions: "repeat", the block ids done
    ** once per condition as written (a contiguous run of blocks), and the
    ** run they name once validated (repeat_set) */
    char **repeat;
    size_t n_repeat;
    int repeat_set;
    size_t repeat_first, repeat_last; /* block indices, inclusive */
} Assignment;

/* Parameters of the simulated `mixed` policy (see docs/simulation.md). */
typedef struct SimCell {
    char *condition;     /* NULL = any */
    char *phase;         /* NULL = any */
    double p;            /* probability of a correct answer for an average
                            participant on an average item */
    int has_accept;      /* the cell gives "accept_p" (verify blocks) */
    double accept_right; /* P(accept) of a right output in this cell */
    double accept_wrong; /* ... of a wrong one */
} SimCell;

typedef struct SimulationSpec {
    double p_default; /* 0.6 */
    SimCell *cells;   /* later entries override earlier ones */
    size_t n_cells;
    double participant_sd; /* logit-scale SD of participant effects */
    double item_sd;        /* logit-scale SD of item effects */
    double rt_median_ms;   /* log-normal reaction times: median */
    double rt_sigma;       /* log-normal reaction times: SD of log */
    double catch_p;        /* P(correct) on a catch trial */
    double quiz_p;         /* P(correct) per quiz attempt */
    double reveal_p;       /* P(looking at an explanation given on request
                              or on hover), every policy; default 1 */
    double accept_right;   /* verify: P(accept) when the model is right
                              ("accept_p": {"right", "wrong"}); -1: the
                              cell's p of a correct answer */
    double accept_wrong;   /* ... when the model is wrong */
} SimulationSpec;

/* A bundle text file study loading read (study.json, item banks, pages,
** explanation sources, language files) and how it is written, so that
** `simlab check` reads it the same way when it looks for characters no
** font can draw (stimuli/glyphs.h). */
typedef struct StudyTextFile {
    char *rel;            /* bundle-relative, resolved ("banks/items.csv") */
    int csv;              /* read as a CSV table (bank, explanation source) */
    char delim;           /* CSV: ',', ';' or '\t' */
    SimEncoding encoding; /* CSV: as the loader read it (after a wrong
                             declaration: as the error advised) */
} StudyTextFile;

/* study.json "online": what `simlab serve` shows a participant who
** completed the study (stimuli/online.c). */
/* Who may continue a participant's run from a browser other than the
** first one ("resume"; docs/online.md "Who may continue"). */
typedef enum OnlineResume {
    ONLINE_RESUME_DEFAULT = 0, /* "session" when the link carries a
                                  platform session, else "code" */
    ONLINE_RESUME_TOKEN,       /* the first browser only (its key) */
    ONLINE_RESUME_SESSION,     /* a browser with the first visit's platform
                                  session (Prolific SESSION_ID, MTurk
                                  assignmentId) */
    ONLINE_RESUME_CODE,        /* a browser given the resume code shown at
                                  the start */
    ONLINE_RESUME_ID           /* anyone with the link's id (a lab) */
} OnlineResume;

typedef struct OnlineSpec {
    char *completion_code; /* the platform's completion code; NULL = none */
    char *completion_url;  /* where the final page links to; NULL = none
                              (Prolific's completion URL with cc=CODE when
                              only a code is given) */
    OnlineResume resume;   /* "resume" */
} OnlineSpec;

/* Prolific's completion URL; the code follows cc=. */
#define ONLINE_PROLIFIC_URL "https://app.prolific.com/submissions/complete?cc="

typedef struct Study {
    char *dir;               /* bundle directory as given */
    char *id;                /* short identifier */
    char *title;             /* for the experimenter (start screen, reports) */
    char *participant_title; /* what a participant's window or browser tab
                                is called ("participant_title"); NULL:
                                the screen's heading */
    char *preset;            /* NULL, "hase-forward", "hase-counterfactual",
                                "meta-predictor" */
    char *test_type; /* "forward" or "counterfactual" (export), or NULL */
    char *domain;    /* default domain for items, or NULL */
    char *json_text; /* study.json as read (stored with the data) */
    char hash[65];   /* SHA-256 (hex) over every file of the bundle */

    StudyClass *classes;
    size_t n_classes;
    Condition *conditions;
    size_t n_conditions;
    char *baseline; /* condition id of the baseline, or NULL */
    Block *blocks;
    size_t n_blocks;
    Item *items;
    size_t n_items;
    char **methods; /* every method with explanations in the bundle */
    size_t n_methods;

    Screening screening;
    Assignment assignment;
    RatingSpec rating;
    SimulationSpec simulation;
    OnlineSpec online;          /* "online" (simlab serve); zero when absent */
    SimAnalysisSpec analysis;   /* "analysis": the primary test, alpha,
                                   correction, sequential looks */
    struct SimMetrics *metrics; /* "metrics": explanation metrics
                                   (common/sim_metrics.h), NULL when none */
    Page **pages; /* every page read at load time (stimuli/page.h): the
                     page files, then blocks' inline texts */
    size_t n_pages;
    char **pools; /* distinct item pools, in order of first appearance */
    size_t n_pools;
    struct StudyIndex *index; /* internal: item lookup by key; may be NULL */
    size_t *class_slots;      /* internal: class lookup by id (class index
                                 + 1, open addressing; a power of two
                                 n_class_slots); NULL: a linear search */
    size_t n_class_slots;
    UiStrings *ui_strings;     /* the runner's strings in the study's language
                                  ("language", "language_file", "ui"); NULL
                                  only when loading failed */
    StudyTextFile *text_files; /* every bundle text file read, in order */
    size_t n_text_files;
} Study;

/* ------------------------------------------------------- check / reports */

typedef struct Diag {
    char *file;    /* bundle-relative file */
    int line;      /* 1-based line, 0 when a JSON pointer is given */
    char *pointer; /* JSON pointer ("/blocks/3/pool") or NULL */
    char *field;   /* field name at fault */
    char *message;
    int column;    /* 1-based column of a JSON syntax error, else 0 */
    size_t n_more; /* further places with the same problem at the same
                      field of the same file (message ends "(and N more
                      rows: ...)"); 0 when it was found once */
} Diag;

typedef struct PoolBalance {
    char *pool;
    int n;
    int tp, fp, tn, fn;     /* "positive" = the first class */
    int correct, incorrect; /* model output vs label */
    int unlabeled;          /* items without a true label */
    int n_cf;               /* items with a counterfactual */
    int same, flip;         /* all counterfactuals */
    int *same_by_pred;      /* per class index of the original output */
    int *flip_by_pred;
    int same_by_type[4]; /* per prediction type: TP, FP, TN, FN */
    int flip_by_type[4]; /* (labelled counterfactual items only) */
} PoolBalance;

typedef struct StudyReport {
    Diag *errors;
    size_t n_errors;
    Diag *warnings;
    size_t n_warnings;
    PoolBalance *pools;
    size_t n_pools;
} StudyReport;

/* Loads and checks the bundle in dir. Every problem found is appended to
** report (which may be NULL) as a located Diag; all files are checked, not
** just up to the first error.
** Returns SIM_OK with *out owning a new Study (free with study_free) when
** there are no errors. Otherwise returns SIM_ERR_INVALID (or SIM_ERR_NOMEM),
** *out is NULL, and err summarises ("3 errors in study bundle 'dir'"). */
int study_load(const char *dir, Study **out, StudyReport *report,
               SimError *err);

void study_free(Study *study); /* NULL is a no-op */

/* The definition stored with the data: study.json as read, and with
** metrics its "metrics_values" too (every value of Study.metrics, read
** from the bundle's files or computed from masks and rationales, as rows
** [method, item or null, metric, value, higher_is_better or null,
** description or null]) so that simlab-analyze finds them in the database.
** Returns a string to free with free(), or NULL when out of memory. */
char *study_stored_definition(const Study *study);

/* Prints one located problem: prefix (may be ""), then
** "FILE:LINE[:COLUMN]: field 'NAME': message" (a JSON pointer in place of
** LINE; no field part when the Diag names none), then a newline. */
void study_diag_print(FILE *out, const char *prefix, const Diag *d);

void study_report_init(StudyReport *report);
void study_report_free(StudyReport *report);

/* Fills report->pools from the items of study (study_load does this). */
int study_balance(const Study *study, StudyReport *report, SimError *err);

/* What a study's assignment and blocks say about its data, for the tests
** that may analyse it (stimuli/primary.c): within-subject, how many
** blocks of the pre, post and test phases, the largest session of its
** test blocks (0: none in sessions). */
typedef struct StudyFacts {
    int within;
    int pre, post, test;
    int sessions;
    int verify; /* verify blocks (is the model right?) */
} StudyFacts;

void study_facts(const Study *st, StudyFacts *f);

/* Lookups; return NULL / -1 when absent. Borrowed pointers. */
const Item *study_find_item(const Study *study, const char *key);
const Condition *study_find_condition(const Study *study, const char *id);
int study_condition_index(const Study *study, const char *id);
int study_class_index(const Study *study, const char *class_id);
/* Builds the lookup of study_class_index for the study's classes (call
** again after they change). 0, or -1 when out of memory (the lookup stays
** a linear search). */
int study_class_index_build(Study *study);
/* The condition id nearest to id (a "did you mean" for a misspelled one),
** or NULL when none is near. Borrowed from study. */
const char *study_condition_suggest(const Study *study, const char *id);
const Block *study_find_block(const Study *study, const char *id);
/* The explanation of item for method, or NULL. */
const Explanation *item_explanation(const Item *item, const char *method);
/* The text of a page file read at load time, or NULL. */
const char *study_page_text(const Study *study, const char *path);
/* The model of the page file `file` (bundle-relative, as study.json names
** it) read at load time, or NULL (stimuli/page.h). Borrowed from study. */
const Page *study_page(const Study *study, const char *file);

const char *modality_name(Modality m);
/* Names of kinds as study.json spells them; "?" outside the enum. */
const char *expl_kind_name(ExplKind k);
/* "always", "on_request", "hover"; "?" outside the enum. */
const char *expl_reveal_name(ExplReveal r);
/* Whether a kind holds values a participant may hover (tokens, token and
** span pairs, features, prototype features, bars, gallery weights): what
** "reveal": "hover" needs somewhere in a payload. */
int expl_kind_hoverable(ExplKind k);
/* Whether payloads of kind k draw the item's input themselves (the tokens
** of a text, an overlay on the item's image), so that a compact view of
** the item (a reservoir card) may leave the input out. An image payload
** does so only without a file of its own: expl_shows_input. */
int expl_shows_input(const Explanation *e);
/* The values of e a participant may hover ("reveal": "hover"), in the
** order the runner numbers them: the parts in order, and in each the
** tokens (token kinds), features (features; a prototype's first six
** important ones), bars or gallery images in order. Calls fn (may be NULL)
** with each one's number and label (the token, feature name, bar label,
** image caption or file); returns how many there are. */
typedef void (*ExplTargetFn)(void *ctx, size_t index, const char *label);
size_t expl_hover_targets(const Explanation *e, ExplTargetFn fn, void *ctx);

/* Calls fn for every image and map file e (and its parts) shows, with the
** file as the payload names it (bundle-relative) and the absolute path
** study loading resolved (NULL when it failed); is_map 1 for heatmap and
** overlay maps (is_npy: an .npy map; colormap: the payload's). An image
** payload without a file shows input's image (input may be NULL). */
typedef void (*ExplMediaFn)(void *ctx, const char *rel, const char *file,
                            int is_map, int is_npy, const char *colormap);
void expl_media(const Explanation *e, const ItemInput *input, ExplMediaFn fn,
                void *ctx);
const char *block_kind_name(BlockKind k);
/* "number", "choice", "likert", "text"; "?" outside the enum. */
const char *question_type_name(QuestionType t);
/* The kind a name spells, or -1 (name may be NULL). */
int expl_kind_from_name(const char *name);
int block_kind_from_name(const char *name);
/* 1 when blocks of kind k show items of a pool (practice, learn, predict,
** counterfactual, rating), else 0. */
int block_kind_shows_items(BlockKind k);
/* 1 when blocks of kind k answer an item with "options" from its options
** (keys per option) instead of the study's classes, else 0. */
int block_kind_offers_options(BlockKind k);
/* The answer options trial-kind blocks of kind k offer for item: its own
** (n_options, class indices) when k offers options and it has them, else
** NULL. */
const int *item_block_options(const Item *item, BlockKind k, size_t *n);
/* Within-subject designs without sessions repeat, once per condition, the
** blocks from the first to the last block that shows items and is not
** practice (learn, predict, counterfactual, rating), with whatever lies
** between and the break blocks right after the last (a pause between
** conditions, left out after the last condition). Sets *first and *last
** to their indices and returns 1, or returns 0 when the study has no such
** block. */
int study_within_range(const Study *study, size_t *first, size_t *last);
/* The highest session of a block (sessions are 1-based), 0 when no block
** is in one. */
int study_n_sessions(const Study *study);
/* The block with phase_id phase that comes first, or NULL. */
const Block *study_find_phase_block(const Study *study, SimPhase phase);

/* The items block b draws from a pool of have items: its "n", or have
** for "all". */
static inline size_t block_item_count(const Block *b, size_t have)
{
    return b->n_items == BLOCK_N_ALL ? have : (size_t)b->n_items;
}

#endif
