/*
** The image demo study (preset meta-predictor, after Colin et al.'s
** Husky-vs-Wolf scenario): rabbits and birds on snow or grass, a CNN
** trained where rabbits are nearly always on snow and birds on grass (it
** learns the background), a second CNN trained on unbiased data (the
** practice model), attribution maps from the CNNs and a model-free control.
*/
#ifndef SIMLAB_STIMULI_GEN_IMGSTUDY_H
#define SIMLAB_STIMULI_GEN_IMGSTUDY_H

#include <stdint.h>

#include "stimuli/gen/attr.h"
#include "stimuli/gen/cnn.h"
#include "stimuli/gen/scene.h"
#include "common/sim_error.h"

#define IMG_N_TRAIN_SET 400  /* training pictures per model */
#define IMG_BIAS        0.95 /* share of rabbits on snow / birds on grass */
#define IMG_CUTOUT      16   /* Cutout square (input pixels) in training */
#define IMG_MAX_ITEMS   64

/* Pools of the bundle, in file order. */
enum {
    IMG_POOL_PRACTICE_TRAIN = 0, /* practice examples (practice model) */
    IMG_POOL_PRACTICE = 1,       /* practice questions (practice model) */
    IMG_POOL_TRAIN = 2,          /* session examples (biased model) */
    IMG_POOL_TEST = 3            /* session tests (biased model) */
};

typedef struct ImgItem {
    char id[16];    /* "tr01", ... */
    int pool;       /* IMG_POOL_* */
    SceneSpec spec; /* the picture */
    int prediction; /* class index the item's model outputs */
    float logit;    /* that model's decision logit */
    int explained;  /* heatmaps are written for it */
} ImgItem;

typedef struct ImgStudy {
    Cnn biased;                        /* the studied model */
    Cnn unbiased;                      /* the practice model */
    double biased_loss, unbiased_loss; /* final training losses */
    ImgItem items[IMG_MAX_ITEMS];
    int n_items;
} ImgStudy;

/* What the tests check and docs/demo-studies.md quotes. */
typedef struct ImgReport {
    /* accuracy on fresh pictures, background matching the training
    ** correlation ("matched") or the other one ("flipped") */
    double biased_matched, biased_flipped;
    double unbiased_matched, unbiased_flipped;
    int n_eval; /* pictures per cell of the above */
    /* over the explained training items: */
    double bg_pixels;                    /* share of background pixels */
    double bg_mass[ATTR_COUNT];          /* biased model, per method */
    double bg_mass_unbiased[ATTR_COUNT]; /* same pictures, practice model */
    double method_corr_max;              /* max over method pairs of the mean
                                            per-item correlation (16 x 16) */
    double control_corr[ATTR_COUNT];     /* mean r(control, method) */
    double control_corr_unbiased[ATTR_COUNT];
    int control_model_free; /* 1 if the control map is identical
                               for biased, unbiased, untrained */
} ImgReport;

/* Trains both models and chooses the items (deterministic in seed).
** *out owns everything (free with imgstudy_free). */
int imgstudy_make(uint64_t seed, ImgStudy **out, SimError *err);
void imgstudy_free(ImgStudy *st); /* NULL is a no-op */

/* Renders scene spec and returns the model input. OUT: x (CNN_NIN). */
int imgstudy_input(const SceneSpec *spec, float *x, SimError *err);

/* The model that answers for an item (practice pools: unbiased). */
const Cnn *imgstudy_item_model(const ImgStudy *st, const ImgItem *item);

/* The normalised map of method for item (attr_map_side(m)^2 floats), as
** written to the bundle. OUT: map. */
int imgstudy_item_map(const ImgStudy *st, const ImgItem *item, AttrMethod m,
                      float *map, SimError *err);

/* Writes the bundle into dir (study.json, items.jsonl, media/, pages/). */
int imgstudy_write(const ImgStudy *st, const char *dir, SimError *err);

/* Measures the models and maps (fresh evaluation pictures from seed). */
int imgstudy_measure(const ImgStudy *st, uint64_t seed, ImgReport *rep,
                     SimError *err);

#endif
