/*
** The tiny CNN: forward and backward passes written out by hand, and Adam.
** Loops run in a fixed order so that results do not depend on the machine's
** thread count; only libc and libm.
*/
#include "stimuli/gen/cnn.h"

#include <math.h>
#include <string.h>

#include "common/sim_alloc.h"

/* out[o] += w[o] (*) in, 3x3 kernels, zero padding 1, stride 1. */
static void conv_forward(const float *in, int cin, int side, const float *w,
                         const float *b, int cout, float *out)
{
    const int n = side * side;
    for (int o = 0; o < cout; o++) {
        float *dst = out + o * n;
        for (int k = 0; k < n; k++) {
            dst[k] = b[o];
        }
        for (int c = 0; c < cin; c++) {
            const float *src = in + c * n;
            for (int di = -1; di <= 1; di++) {
                for (int dj = -1; dj <= 1; dj++) {
                    float wv = w[((o * cin + c) * 3 + di + 1) * 3 + dj + 1];
                    int i0 = di < 0 ? 1 : 0, i1 = di > 0 ? side - 1 : side;
                    int j0 = dj < 0 ? 1 : 0, j1 = dj > 0 ? side - 1 : side;
                    for (int i = i0; i < i1; i++) {
                        float *drow = dst + i * side;
                        const float *srow = src + (i + di) * side + dj;
                        for (int j = j0; j < j1; j++) {
                            drow[j] += wv * srow[j];
                        }
                    }
                }
            }
        }
    }
}

/* Given dout (gradient at the conv output), adds dW and db to gw, gb (when
** not NULL) and writes din (when not NULL). */
static void conv_backward(const float *in, int cin, int side, const float *w,
                          int cout, const float *dout, float *gw, float *gb,
                          float *din)
{
    const int n = side * side;
    if (din) {
        memset(din, 0, sizeof(float) * (size_t)(cin * n));
    }
    for (int o = 0; o < cout; o++) {
        const float *d = dout + o * n;
        if (gb) {
            float s = 0;
            for (int k = 0; k < n; k++) {
                s += d[k];
            }
            gb[o] += s;
        }
        for (int c = 0; c < cin; c++) {
            const float *src = in + c * n;
            float *dsrc = din ? din + c * n : NULL;
            for (int di = -1; di <= 1; di++) {
                for (int dj = -1; dj <= 1; dj++) {
                    int widx = ((o * cin + c) * 3 + di + 1) * 3 + dj + 1;
                    float wv = w[widx], acc = 0;
                    int i0 = di < 0 ? 1 : 0, i1 = di > 0 ? side - 1 : side;
                    int j0 = dj < 0 ? 1 : 0, j1 = dj > 0 ? side - 1 : side;
                    for (int i = i0; i < i1; i++) {
                        const float *drow = d + i * side;
                        const float *srow = src + (i + di) * side + dj;
                        if (gw) {
                            for (int j = j0; j < j1; j++) {
                                acc += drow[j] * srow[j];
                            }
                        }
                        if (dsrc) {
                            float *dsrow = dsrc + (i + di) * side + dj;
                            for (int j = j0; j < j1; j++) {
                                dsrow[j] += wv * drow[j];
                            }
                        }
                    }
                    if (gw) {
                        gw[widx] += acc;
                    }
                }
            }
        }
    }
}

void cnn_init(Cnn *net, SimRng *rng)
{
    memset(net, 0, sizeof *net);
    double s1 = sqrt(2.0 / (CNN_C0 * 9)), s2 = sqrt(2.0 / (CNN_C1 * 9));
    for (int k = 0; k < CNN_C1 * CNN_C0 * 9; k++) {
        net->p[CNN_W1 + k] = (float)(s1 * sim_rng_normal(rng));
    }
    for (int k = 0; k < CNN_C2 * CNN_C1 * 9; k++) {
        net->p[CNN_W2 + k] = (float)(s2 * sim_rng_normal(rng));
    }
}

float cnn_forward(const Cnn *net, const float *x, CnnTrace *tr)
{
    CnnTrace local;
    CnnTrace *t = tr ? tr : &local;
    const float *p = net->p;
    float xc[CNN_NIN]; /* centred input: trains much faster than [0,1] */
    for (int k = 0; k < CNN_NIN; k++) {
        xc[k] = x[k] - 0.5f;
    }
    conv_forward(xc, CNN_C0, CNN_SIDE, p + CNN_W1, p + CNN_B1, CNN_C1, t->z1);
    for (int c = 0; c < CNN_C1; c++) {
        for (int i = 0; i < CNN_HALF; i++) {
            for (int j = 0; j < CNN_HALF; j++) {
                float s = 0;
                for (int di = 0; di < 2; di++) {
                    for (int dj = 0; dj < 2; dj++) {
                        float v = t->z1[(c * CNN_SIDE + 2 * i + di) * CNN_SIDE +
                                        2 * j + dj];
                        s += v > 0 ? v : 0;
                    }
                }
                t->p1[(c * CNN_HALF + i) * CNN_HALF + j] = s / 4;
            }
        }
    }
    conv_forward(t->p1, CNN_C1, CNN_HALF, p + CNN_W2, p + CNN_B2, CNN_C2,
                 t->z2);
    const int n2 = CNN_HALF * CNN_HALF;
    t->cls[0] = t->cls[1] = 0;
    for (int c = 0; c < CNN_C2; c++) {
        float s = 0;
        for (int k = 0; k < n2; k++) {
            float v = t->z2[c * n2 + k];
            s += v > 0 ? v : 0;
        }
        t->g[c] = s / (float)n2;
        t->cls[c / CNN_GROUP] += t->g[c] / CNN_GROUP;
    }
    return t->cls[1] - t->cls[0];
}

float cnn_class_logit(const Cnn *net, const float *x, int c)
{
    CnnTrace tr;
    cnn_forward(net, x, &tr);
    return tr.cls[c ? 1 : 0];
}

void cnn_backward(const Cnn *net, const float *x, const CnnTrace *tr, float d0,
                  float d1, Cnn *grad, float *dx, float *da2)
{
    const float *p = net->p;
    const int n2 = CNN_HALF * CNN_HALF;
    float dz2[CNN_C2 * CNN_HALF * CNN_HALF];
    float dp1[CNN_C1 * CNN_HALF * CNN_HALF];
    float dz1[CNN_C1 * CNN_SIDE * CNN_SIDE];
    float *g = grad ? grad->p : NULL;
    for (int c = 0; c < CNN_C2; c++) {
        float dcls = c / CNN_GROUP ? d1 : d0;
        float da = dcls / CNN_GROUP / (float)n2;
        for (int k = 0; k < n2; k++) {
            if (da2) {
                da2[c * n2 + k] = da;
            }
            dz2[c * n2 + k] = tr->z2[c * n2 + k] > 0 ? da : 0;
        }
    }
    conv_backward(tr->p1, CNN_C1, CNN_HALF, p + CNN_W2, CNN_C2, dz2,
                  g ? g + CNN_W2 : NULL, g ? g + CNN_B2 : NULL, dp1);
    for (int c = 0; c < CNN_C1; c++) {
        for (int i = 0; i < CNN_SIDE; i++) {
            for (int j = 0; j < CNN_SIDE; j++) {
                int k = (c * CNN_SIDE + i) * CNN_SIDE + j;
                float d = dp1[(c * CNN_HALF + i / 2) * CNN_HALF + j / 2];
                dz1[k] = tr->z1[k] > 0 ? d / 4 : 0;
            }
        }
    }
    if (g || dx) {
        float xc[CNN_NIN];
        for (int k = 0; k < CNN_NIN; k++) {
            xc[k] = x[k] - 0.5f;
        }
        conv_backward(xc, CNN_C0, CNN_SIDE, p + CNN_W1, CNN_C1, dz1,
                      g ? g + CNN_W1 : NULL, g ? g + CNN_B1 : NULL, dx);
    }
}

static int is_weight(int k)
{
    return (k >= CNN_W1 && k < CNN_B1) || (k >= CNN_W2 && k < CNN_B2);
}

int cnn_train(Cnn *net, const float *X, const int *y, int n,
              const CnnTrainOptions *opt, SimRng *rng, double *loss,
              SimError *err)
{
    int *order = sim_malloc(sizeof(int) * (size_t)n);
    CnnTrace *tr = sim_malloc(sizeof *tr);
    double *m = sim_calloc(CNN_NPARAM, sizeof(double));
    double *v = sim_calloc(CNN_NPARAM, sizeof(double));
    Cnn *grad = sim_malloc(sizeof *grad);
    float *xa = sim_malloc(sizeof(float) * CNN_NIN);
    int rc = SIM_OK;
    if (!order || !tr || !m || !v || !grad || !xa) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "cnn_train: out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        order[i] = i;
    }
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    double pow1 = 1, pow2 = 1, epoch_loss = 0;
    for (int epoch = 0; epoch < opt->epochs; epoch++) {
        sim_rng_shuffle(rng, order, (size_t)n, sizeof(int));
        epoch_loss = 0;
        for (int start = 0; start < n; start += opt->batch) {
            int end = start + opt->batch < n ? start + opt->batch : n;
            memset(grad, 0, sizeof *grad);
            for (int b = start; b < end; b++) {
                const float *x = X + (size_t)order[b] * CNN_NIN;
                if (opt->cutout > 0) {
                    /* Cutout: grey out one random square of the input */
                    memcpy(xa, x, sizeof(float) * CNN_NIN);
                    int side = opt->cutout;
                    int i0 = (int)sim_rng_below(rng, CNN_SIDE - side + 1);
                    int j0 = (int)sim_rng_below(rng, CNN_SIDE - side + 1);
                    for (int c = 0; c < CNN_C0; c++) {
                        for (int i = i0; i < i0 + side; i++) {
                            for (int j = j0; j < j0 + side; j++) {
                                xa[(c * CNN_SIDE + i) * CNN_SIDE + j] = 0.5f;
                            }
                        }
                    }
                    x = xa;
                }
                float z = cnn_forward(net, x, tr);
                double pz = 1.0 / (1.0 + exp(-(double)z));
                double yy = y[order[b]];
                /* log(1 + e^z) - y z, computed stably */
                epoch_loss +=
                    (z > 0 ? z + log1p(exp(-(double)z)) : log1p(exp(z))) -
                    yy * z;
                cnn_backward(net, x, tr, (float)(yy - pz), (float)(pz - yy),
                             grad, NULL, NULL);
            }
            pow1 *= b1;
            pow2 *= b2;
            double scale = 1.0 / (end - start);
            for (int k = 0; k < CNN_NPARAM; k++) {
                double gk = grad->p[k] * scale;
                if (is_weight(k)) {
                    gk += opt->weight_decay * net->p[k];
                }
                m[k] = b1 * m[k] + (1 - b1) * gk;
                v[k] = b2 * v[k] + (1 - b2) * gk * gk;
                double mh = m[k] / (1 - pow1), vh = v[k] / (1 - pow2);
                net->p[k] -= (float)(opt->lr * mh / (sqrt(vh) + eps));
            }
        }
        epoch_loss /= n;
    }
    if (loss) {
        *loss = epoch_loss;
    }
cleanup:
    sim_free(order);
    sim_free(tr);
    sim_free(m);
    sim_free(v);
    sim_free(grad);
    sim_free(xa);
    return rc;
}
