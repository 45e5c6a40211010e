/*
** Attribution maps for the image demo study, computed from the trained CNN
** (gradients, path integrals, noise averages, Grad-CAM, occlusion), plus a
** control map that never looks at the model (bottom-up contrast saliency),
** and the measures the tests and docs report on them.
*/
#ifndef SIMLAB_STIMULI_GEN_ATTR_H
#define SIMLAB_STIMULI_GEN_ATTR_H

#include <stdint.h>

#include "stimuli/gen/cnn.h"

typedef enum AttrMethod {
    ATTR_SALIENCY = 0,   /* |d score / d x|, L2 over colour channels */
    ATTR_GRADXINPUT = 1, /* |sum_c (x_c - 0.5) d score / d x_c| */
    ATTR_INTGRAD = 2,    /* integrated gradients from a grey image */
    ATTR_SMOOTHGRAD = 3, /* saliency of the gradient averaged over noise */
    ATTR_GRADCAM = 4,    /* ReLU(sum_k alpha_k A^k) at the second conv */
    ATTR_OCCLUSION = 5,  /* score drop when a patch is greyed out */
    ATTR_CONTROL = 6     /* bottom-up saliency of the image; no model */
} AttrMethod;

#define ATTR_COUNT 7

/* The network sees x - 0.5, so mid-grey is its zero input: the baseline of
** integrated gradients and the fill of occlusion patches, as the "x = 0" of
** Colin et al.'s formulas is the mean pixel of a normalised input. */
#define ATTR_BASELINE 0.5f

#define ATTR_IG_STEPS   32  /* integrated gradients: intervals */
#define ATTR_SG_SAMPLES 32  /* SmoothGrad: noisy copies */
#define ATTR_SG_SIGMA   0.2 /* SmoothGrad: noise SD (input range is 1) */
#define ATTR_OCC_PATCH  4   /* occlusion: patch side, input pixels */
#define ATTR_OCC_STRIDE 2   /* occlusion: step between patches */

/* Short name used in files and conditions ("saliency", "gradcam", ...). */
const char *attr_method_name(AttrMethod m);

/* Title shown to participants ("Saliency", "Grad-CAM", ...). */
const char *attr_method_title(AttrMethod m);

/* Side of the method's square map: CNN_SIDE, or CNN_HALF for Grad-CAM. */
int attr_map_side(AttrMethod m);

/* The raw non-negative map of method for the class net predicts on x
** (CNN_NIN floats in [0,1]). seed drives SmoothGrad's noise. OUT: map
** (attr_map_side(m)^2 floats). net may be NULL for ATTR_CONTROL only. */
void attr_compute(const Cnn *net, const float *x, AttrMethod m, uint64_t seed,
                  float *map);

/* Scales map (n values >= 0) so that its 99th percentile is 1 and clips
** above, as saliency maps are usually shown; an all-zero map stays zero. */
void attr_normalize(float *map, int n);

/* Share of the map's mass outside the object: sum(map * (1 - mask)) /
** sum(map); mask holds object coverage in [0,1] per cell. 0 for an empty
** map. */
double attr_background_mass(const float *map, const float *mask, int n);

/* Pearson correlation of a and b (n values); 0 when either is constant. */
double attr_pearson(const float *a, const float *b, int n);

/* Averages 2x2 blocks: side x side -> side/2 x side/2. OUT: out. */
void attr_pool2(const float *in, int side, float *out);

/* Writes a side x side map (values in [0,1]) as RGB viridis colours over an
** RGB image of img_side pixels (bilinear upsampling, opacity alpha).
** OUT: rgb (img_side^2 * 3 bytes). */
void attr_overlay(const unsigned char *img, int img_side, const float *map,
                  int side, double alpha, unsigned char *rgb);

#endif
