/*
** `simlab new`: writes a starter study bundle for a preset and a modality,
** with placeholder items (tiny PNGs or CSV rows), explanations, pages and a
** README for the lab, commented with `notes` members. It is valid as
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

#endif
