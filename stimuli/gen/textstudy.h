/*
** The text demo studies (text-forward, text-counterfactual): data, model,
** LIME / Anchor / Omission explanations and counterfactual edits, all
** computed by querying the trained bag-of-words model.
*/
#ifndef SIMLAB_STIMULI_GEN_TEXTSTUDY_H
#define SIMLAB_STIMULI_GEN_TEXTSTUDY_H

#include <stdint.h>

#include "common/sim_error.h"
#include "stimuli/gen/surrogate.h"
#include "stimuli/gen/textgen.h"

#define TEXT_LIME_SAMPLES 1000 /* perturbations per LIME fit */
#define TEXT_LIME_K       5    /* words shown */

typedef struct TextStudy TextStudy;

/* A LIME explanation of one sentence: the fit over its distinct words. */
typedef struct TextLime {
    int d;                             /* distinct words */
    char words[SURR_MAX_FEATURES][32]; /* the interpretable features */
    SurrogateFit fit;
} TextLime;

/* Summary numbers for docs/demo-studies.md and the tests. */
typedef struct TextReport {
    double train_acc, test_acc; /* model accuracy on its splits */
    SurrogateStats expl;        /* LIME fits and anchors written */
} TextReport;

/* Generates the sentences and trains the model (deterministic in seed).
** *out owns everything; free with textstudy_free. */
int textstudy_make(uint64_t seed, TextStudy **out, SimError *err);
void textstudy_free(TextStudy *ts); /* NULL is a no-op */

const TextModel *textstudy_model(const TextStudy *ts);

/* LIME on text (word dropping, cosine kernel of width 25, ridge, the
** TEXT_LIME_K highest weights refitted), sampling from seed. */
int textstudy_lime(const TextStudy *ts, const char *text, uint64_t seed,
                   TextLime *out, SimError *err);

/* Writes root/text-forward and root/text-counterfactual. report may be
** NULL. */
int textstudy_write(TextStudy *ts, const char *root, uint64_t seed,
                    TextReport *report, SimError *err);

#endif
