/*
** simlab-gen: writes the bundled demo studies (one image meta-predictor
** study, text and tabular forward and counterfactual studies) from one
** seed. Everything is generated here; the same seed writes the same bytes.
*/
#ifndef SIMLAB_STIMULI_GEN_GEN_H
#define SIMLAB_STIMULI_GEN_GEN_H

#include <stdint.h>

#include "stimuli/gen/imgstudy.h"
#include "common/sim_error.h"
#include "stimuli/gen/tabstudy.h"
#include "stimuli/gen/textstudy.h"

#define GEN_DEFAULT_SEED 2022 /* the seed of the committed bundles */
#define GEN_N_BUNDLES    5

/* Bundle folder names under the output root, in writing order. */
extern const char *const GEN_BUNDLES[GEN_N_BUNDLES];

typedef struct GenReport {
    ImgReport image; /* filled when measured */
    double image_biased_loss, image_unbiased_loss;
    TextReport text;
    TabReport tab;
} GenReport;

/* Writes every bundle into root/<name>/ (folders are created; existing
** files are overwritten, others are left alone). When report is not NULL
** it receives the measures (the image measures cost a few seconds).
** Returns SIM_OK or the first error. */
int gen_write_all(const char *root, uint64_t seed, GenReport *report,
                  SimError *err);

#endif
