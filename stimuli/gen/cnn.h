/*
** A tiny convolutional classifier for the image demo study, with exact
** gradients for training (Adam) and for attribution maps:
** 3x32x32 -> conv3x3(8)+ReLU -> mean-pool 2 -> conv3x3(16)+ReLU -> global
** mean. The first 8 of the 16 final channels are evidence for class 0 and
** the other 8 for class 1: each class logit is the mean of its channels, so
** evidence can only be positive and a class wins by finding its own pattern
** (not by the absence of the other's). Single-threaded and deterministic:
** the same data and seed give bit-identical weights.
*/
#ifndef SIMLAB_STIMULI_GEN_CNN_H
#define SIMLAB_STIMULI_GEN_CNN_H

#include "common/sim_error.h"
#include "common/sim_rng.h"

#define CNN_SIDE 32 /* input side (pixels) */
#define CNN_HALF 16 /* side after pooling; Grad-CAM resolution */
#define CNN_C0   3  /* input channels */
#define CNN_C1   8  /* first convolution's channels */
#define CNN_C2   16 /* second convolution's channels */
#define CNN_NIN  (CNN_C0 * CNN_SIDE * CNN_SIDE)

#define CNN_GROUP (CNN_C2 / 2) /* final channels per class */

/* Offsets of each tensor in Cnn.p */
#define CNN_W1     0
#define CNN_B1     (CNN_W1 + CNN_C1 * CNN_C0 * 9)
#define CNN_W2     (CNN_B1 + CNN_C1)
#define CNN_B2     (CNN_W2 + CNN_C2 * CNN_C1 * 9)
#define CNN_NPARAM (CNN_B2 + CNN_C2)

typedef struct Cnn {
    float p[CNN_NPARAM]; /* all weights and biases */
} Cnn;

/* Activations of one forward pass, kept for the backward pass. */
typedef struct CnnTrace {
    float z1[CNN_C1 * CNN_SIDE * CNN_SIDE]; /* first conv, before ReLU */
    float p1[CNN_C1 * CNN_HALF * CNN_HALF]; /* after ReLU and pooling */
    float z2[CNN_C2 * CNN_HALF * CNN_HALF]; /* second conv, before ReLU */
    float g[CNN_C2];                        /* global means of ReLU(z2) */
    float cls[2];                           /* class logits */
} CnnTrace;

typedef struct CnnTrainOptions {
    int epochs;          /* passes over the data */
    int batch;           /* examples per Adam step */
    double lr;           /* Adam step size */
    double weight_decay; /* L2 penalty on weights (not biases) */
    int cutout;          /* side of a random grey square per example, 0 off */
} CnnTrainOptions;

/* He-normal weights, zero biases, from rng. */
void cnn_init(Cnn *net, SimRng *rng);

/* Forward pass on x (CNN_NIN floats: channel, row, column). Fills tr when
** it is not NULL. Returns the decision logit cls[1] - cls[0] (> 0 means
** class 1). */
float cnn_forward(const Cnn *net, const float *x, CnnTrace *tr);

/* Class logit c (0 or 1) of x. */
float cnn_class_logit(const Cnn *net, const float *x, int c);

/* Backward pass through the trace of a forward pass on x, from d/dcls[0] =
** d0 and d/dcls[1] = d1. Adds parameter gradients to grad (if not NULL),
** writes d/dx to dx (CNN_NIN floats, if not NULL) and d/d(ReLU(z2)) to da2
** (CNN_C2*CNN_HALF^2 floats, if not NULL). */
void cnn_backward(const Cnn *net, const float *x, const CnnTrace *tr, float d0,
                  float d1, Cnn *grad, float *dx, float *da2);

/* Trains net (already initialised) on n inputs X (n * CNN_NIN) with labels
** y (0/1) by minibatch Adam on the logistic loss; rng orders the batches.
** On success *loss (may be NULL) is the last epoch's mean training loss.
** Returns SIM_OK or SIM_ERR_NOMEM (net then holds partial training). */
int cnn_train(Cnn *net, const float *X, const int *y, int n,
              const CnnTrainOptions *opt, SimRng *rng, double *loss,
              SimError *err);

#endif
