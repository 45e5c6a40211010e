/*
** Writes Hase & Bansal-style bundles (presets hase-forward and
** hase-counterfactual) for any domain that can label, predict, explain and
** perturb its instances: balanced item selection (equal TP/FP/TN/FN; half
** "same", half "flip" counterfactuals within each type), item banks and
** study.json. The domain plugs in through HaseDomain.
*/
#ifndef SIMLAB_STIMULI_GEN_HASE_H
#define SIMLAB_STIMULI_GEN_HASE_H

#include <stdint.h>

#include <jansson.h>

#include "common/sim_error.h"
#include "common/sim_rng.h"

enum { HASE_VALIDATION = 0, HASE_TEST = 1 }; /* candidate splits */

/* A domain: candidate instances in two splits (validation feeds learning
** items, test feeds test items), each with a true label and the model's
** prediction as class indices 0/1 (0 is the "positive" class). */
typedef struct HaseDomain {
    void *ctx;
    const char *modality; /* "text" or "tabular" */
    int n[2];             /* candidates per split */
    int (*label)(void *ctx, int split, int i);
    int (*prediction)(void *ctx, int split, int i);
    /* The item's input as JSON (a string or a feature list). New ref. */
    json_t *(*input)(void *ctx, int split, int i);
    /* Adds method -> payload pairs to expl for instance i; seed drives
    ** the sampling of explainers. */
    int (*explain)(void *ctx, int split, int i, uint64_t seed, json_t *expl,
                   SimError *err);
    /* Looks for a perturbation of instance i whose model output differs
    ** from the original (want_flip 1) or equals it (0). Returns 1 and sets
    ** *out to a new {"input", "prediction"(class index as integer),
    ** "edits"(optional)} object, 0 when there is none, or -1 on error. */
    int (*counterfactual)(void *ctx, int split, int i, int want_flip,
                          SimRng *rng, json_t **out, SimError *err);
} HaseDomain;

typedef struct HaseSpec {
    const char *id; /* study id */
    const char *title;
    const char *domain;      /* "text" or "tabular" */
    const char *class_id[2]; /* class ids; [0] is "positive" */
    const char *class_label[2];
    const char *class_key[2];
    const char *const *methods; /* explanation methods = conditions */
    int n_methods;
    const char *composite; /* method that late participants get */
    int counterfactual;    /* 0: hase-forward, 1: hase-counterfactual */
    const char *consent;   /* page texts (Markdown-ish) */
    const char *instructions;
    const char *explanations; /* second instructions page */
    const char *debrief;
    json_t *quiz;         /* {"questions": [...]}, borrowed; or NULL */
    const double *post_p; /* assumed post accuracy of simulated participants
                             per method (pre: 0.6); NULL = no block */
} HaseSpec;

/* Per-bundle counts for the report. */
typedef struct HaseReport {
    int n_learn, n_test;
    int group[2][4];      /* [pool learn/test][TP, FP, TN, FN] */
    int same[2], flip[2]; /* counterfactuals by original prediction */
} HaseReport;

/* Selects the items (seeded by seed), asks the domain for explanations and
** counterfactuals and writes dir/study.json, dir/items.jsonl and the
** pages. Returns SIM_OK or the first error (files may be half written). */
int hase_write(const HaseDomain *dom, const HaseSpec *spec, const char *dir,
               uint64_t seed, HaseReport *report, SimError *err);

/* The 0-3 group of an instance: TP, FP, TN, FN (positive = class 0). */
int hase_group(int label, int prediction);

#endif
