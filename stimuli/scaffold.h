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
#define SCAFFOLD_PRESETS    "hase-forward, hase-counterfactual or meta-predictor"
#define SCAFFOLD_MODALITIES "image, text or tabular"

/* Writes a starter bundle into dir, which must not exist (its parent must)
** or be an empty folder. preset is one of SCAFFOLD_PRESETS, modality one of
** SCAFFOLD_MODALITIES.
** Returns SIM_OK; SIM_ERR_USAGE for an unknown preset or modality or a dir
** that is not empty (nothing written); SIM_ERR_IO when a file cannot be
** written (err names it; what was written stays, for the user to remove);
** SIM_ERR_NOMEM. */
int scaffold_write(const char *dir, const char *preset, const char *modality,
                   SimError *err);

#endif
