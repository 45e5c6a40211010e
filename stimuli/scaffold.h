/*
** `simlab new`: writes a starter study bundle for a preset and a modality,
** with placeholder items (tiny PNGs or CSV rows), explanations, pages and a
** README for the lab, commented with `notes` members; the participants'
** texts of three presets in any shipped UI language. It is valid as
** written: `simlab check` accepts it and `simlab simulate` runs it. No SDL,
** no clock.
*/
#ifndef SIMLAB_STIMULI_SCAFFOLD_H
#define SIMLAB_STIMULI_SCAFFOLD_H

#include "common/sim_error.h"

/* The names accepted, for usage messages: "hase-forward, ..." */
#define SCAFFOLD_PRESETS                                                       \
    "hase-forward, hase-counterfactual, meta-predictor, accept-reject, "       \
    "hive-agreement or hive-distinction"
#define SCAFFOLD_MODALITIES "image, text or tabular"
#define SCAFFOLD_EXPLANATIONS                                                  \
    "concepts, prototype, counterfactual, rationale or on-request"
/* The languages of the participants' texts (accept-reject, hive-agreement
** and hive-distinction; the other presets are written in English). */
#define SCAFFOLD_LANGUAGES "en, de, fr, es, zh-Hans, ja or ar"

/* Writes a starter bundle into dir, which must not exist (its parent must)
** or be an empty folder. preset is one of SCAFFOLD_PRESETS, modality one of
** SCAFFOLD_MODALITIES; explanation NULL (the modality's heatmap, tokens or
** features) or one of SCAFFOLD_EXPLANATIONS, the worked examples of
** docs/study-format.md ("Showing a new explanation method"): concepts,
** prototype and counterfactual need the image modality.
** Returns SIM_OK; SIM_ERR_USAGE for an unknown preset, modality or
** explanation, an image explanation of another modality, or a dir
** that is not empty (nothing written); SIM_ERR_IO when a file cannot be
** written (err names it; what was written stays, for the user to remove);
** SIM_ERR_NOMEM. */
int scaffold_write(const char *dir, const char *preset, const char *modality,
                   const char *explanation, SimError *err);

/* scaffold_write with the participants' texts (pages, quiz, class labels,
** title) and the study's "language" in language, a shipped UI language
** tag (subtags dropped as study.json's language is: "de-AT" is de) or
** NULL (en). Besides scaffold_write's refusals: SIM_ERR_USAGE for a
** language simlab does not ship, and for a language other than en with a
** preset other than accept-reject, hive-agreement or hive-distinction
** (their starters are in English only); nothing written then. */
int scaffold_write_language(const char *dir, const char *preset,
                            const char *modality, const char *explanation,
                            const char *language, SimError *err);

#endif
