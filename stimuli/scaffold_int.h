/*
** Internal to `simlab new` (stimuli/scaffold.c, scaffold_expl.c): the
** planned items, the bundle being written and the placeholder drawings
** that the payloads of the worked explanation methods reuse.
*/
#ifndef SIMLAB_STIMULI_SCAFFOLD_INT_H
#define SIMLAB_STIMULI_SCAFFOLD_INT_H

#include <stddef.h>

#include "common/sim_error.h"
#include "common/sim_text.h"

typedef enum Preset {
    P_FORWARD,
    P_COUNTERFACTUAL,
    P_META,
    P_ACCEPT_REJECT,
    P_HIVE_AGREEMENT,
    P_COUNT
} Preset;
typedef enum Modality { M_IMAGE, M_TEXT, M_TABULAR } Modality;

static const char *const preset_names[P_COUNT] = {
    "hase-forward", "hase-counterfactual", "meta-predictor", "accept-reject",
    "hive-agreement"};
static const char *const modality_names[] = {"image", "text", "tabular"};

/* One placeholder item. Class 0 is the "positive" class of the balance
** report (TP: label 0, output 0). */
typedef struct Planned {
    const char *pool;
    char id[16];
    int label;  /* true class */
    int output; /* model output */
    int cf_out; /* model output on the perturbation; -1: none */
} Planned;

#define MAX_ITEMS 32

/* The explanation the starter's method shows: the modality's default
** (heatmap, tokens, features) or one of docs/study-format.md's worked
** examples ("Showing a new explanation method"). */
typedef enum Method {
    X_DEFAULT,
    X_CONCEPTS,
    X_PROTOTYPE,
    X_COUNTERFACTUAL,
    X_RATIONALE,
    X_ON_REQUEST,
    X_COUNT
} Method;

/* The participant-facing texts of a starter in one UI language
** (scaffold_lang.c): pages, quiz, class labels and title, for the presets
** accept-reject, hive-agreement and hive-distinction; {what}, {a}, {b},
** {preset} and {modality} are filled by scaffold_fill. */
typedef struct StarterTexts {
    const char *tag;               /* shipped UI language: "en", "de", ... */
    const char *title;             /* {preset} ({modality}) */
    const char *class_label[3][2]; /* the two classes per Modality */
    const char *what[3];           /* "pictures", ... per Modality */
    const char *consent;           /* the whole consent page */
    const char *task_head;         /* "# Your task" and the placeholder note */
    const char *verify_intro;      /* {what}, {a}, {b}: the classes */
    const char *how_head;
    const char *learn_item; /* accept-reject's learn block */
    const char *test_item;
    const char *confidence_item; /* hive-agreement's 4 points */
    const char *verify_keys;
    const char *verify_debrief;
    const char *quiz[3];      /* question, wrong option, right option */
    const char *shape[8];     /* hive-distinction's classes: image */
    const char *topic[8];     /* and text */
    const char *hive_task[2]; /* instructions after task_head: image, text */
    const char *hive_debrief;
} StarterTexts;

/* The texts of shipped language tag (NULL: en); NULL when there are none. */
const StarterTexts *scaffold_texts(const char *tag);
/* Appends tmpl to b with each {name} of vars ({name, value} pairs)
** replaced by its value; other braces are copied. */
void scaffold_fill(SimBuf *b, const char *tmpl, const char *const vars[][2],
                   size_t n_vars);

typedef struct Ctx {
    Preset preset;
    Modality modality;
    Method method;
    const StarterTexts *tx; /* the study's language */
    const char *id;         /* study id */
    const char *class_id[2];
    const char *class_label[2];
    Planned items[MAX_ITEMS];
    size_t n_items;
} Ctx;

typedef struct Out {
    const char *dir;
    SimError *err;
    int rc;
} Out;

#define IMG 96 /* pixels per side of the placeholder images */

/* Writes b to rel (frees b); the first failure stays in o. */
void sc_write_buf(Out *o, const char *rel, SimBuf *b);
/* Writes a w x h image (channels 1: grey, 3: RGB) as PNG. */
void sc_write_png(Out *o, const char *rel, const unsigned char *px, unsigned w,
                  unsigned h, int channels);
/* An IMG x IMG RGB placeholder: a disc (shape 0) or a square, tinted by k. */
void sc_draw_shape(unsigned char *px, int shape, int k);
/* An IMG x IMG grey saliency map bright at the shape's centre. */
void sc_draw_heat(unsigned char *px, int k);
/* The seven words of a placeholder review in the tone of label. */
void sc_review_words(int k, int label, const char *w[7]);
int sc_feature_age(int k, int label);
int sc_feature_hours(int k, int label);
const char *sc_feature_education(int k, int label);

/* The names of the methods after the default, as `simlab new
** --explanation` spells them (X_CONCEPTS..). */
extern const char *const scaffold_method_names[X_COUNT - 1];
/* 1 when method m can explain items of modality md. */
int scaffold_method_fits(Method m, Modality md);
/* Appends x's payload of c->method (not X_DEFAULT) after "{\"id\": ...,
** \"pool\": ..., " to b, writing the images it shows. */
void scaffold_payload(Out *o, const Ctx *c, const Planned *x, int k, SimBuf *b);
/* What the method's payload is, for study.json's and the README's notes. */
const char *scaffold_method_what(const Ctx *c);

/* Writes text to rel; makes the folder rel (the first failure stays). */
void sc_write_text(Out *o, const char *rel, const char *text);
void sc_make_dir(Out *o, const char *rel);
/* Refuses no dir, or a dir that exists and is not an empty folder;
** creates it, and writes the study id made from its name to id. */
int sc_prepare_dir(const char *dir, char *id, size_t size, SimError *err);
/* The hive-distinction starter (scaffold_hive.c): scaffold_write's
** contract for that preset. */
int scaffold_write_hive(const char *dir, const char *modality,
                        const char *explanation, const StarterTexts *tx,
                        SimError *err);

#endif
