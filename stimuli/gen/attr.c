/*
** Attribution methods on the tiny CNN and a model-free control map. All
** noise comes from SimRng seeded by the caller; no global state.
*/
#include "stimuli/gen/attr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_rng.h"

static const char *const NAMES[ATTR_COUNT] = {
    "saliency", "gradxinput", "intgrad", "smoothgrad",
    "gradcam",  "occlusion",  "control"};

static const char *const TITLES[ATTR_COUNT] = {"Saliency",
                                               "Gradient \xc3\x97 Input",
                                               "Integrated Gradients",
                                               "SmoothGrad",
                                               "Grad-CAM",
                                               "Occlusion",
                                               "Explanation"};

const char *attr_method_name(AttrMethod m)
{
    return (unsigned)m < ATTR_COUNT ? NAMES[m] : "?";
}

const char *attr_method_title(AttrMethod m)
{
    return (unsigned)m < ATTR_COUNT ? TITLES[m] : "?";
}

int attr_map_side(AttrMethod m)
{
    return m == ATTR_GRADCAM ? CNN_HALF : CNN_SIDE;
}

/* The class the model predicts on x; its logit is the explained score
** (Colin et al.: "the logit score for the class of interest"). */
static int predicted_class(const Cnn *net, const float *x)
{
    return cnn_forward(net, x, NULL) > 0 ? 1 : 0;
}

/* d(class logit cls)/dx at x. OUT: dx. */
static void score_gradient(const Cnn *net, const float *x, int cls, float *dx)
{
    CnnTrace tr;
    cnn_forward(net, x, &tr);
    cnn_backward(net, x, &tr, cls ? 0.0f : 1.0f, cls ? 1.0f : 0.0f, NULL, dx,
                 NULL);
}

static void channel_norm(const float *g, float *map)
{
    const int n = CNN_SIDE * CNN_SIDE;
    for (int k = 0; k < n; k++) {
        double s = 0;
        for (int c = 0; c < CNN_C0; c++) {
            s += (double)g[c * n + k] * g[c * n + k];
        }
        map[k] = (float)sqrt(s);
    }
}

static void abs_channel_dot(const float *a, const float *g, float *map)
{
    const int n = CNN_SIDE * CNN_SIDE;
    for (int k = 0; k < n; k++) {
        double s = 0;
        for (int c = 0; c < CNN_C0; c++) {
            s += (double)a[c * n + k] * g[c * n + k];
        }
        map[k] = (float)fabs(s);
    }
}

static void gradcam(const Cnn *net, const float *x, int cls, float *map)
{
    CnnTrace tr;
    float da2[CNN_C2 * CNN_HALF * CNN_HALF];
    const int n = CNN_HALF * CNN_HALF;
    cnn_forward(net, x, &tr);
    cnn_backward(net, x, &tr, cls ? 0.0f : 1.0f, cls ? 1.0f : 0.0f, NULL, NULL,
                 da2);
    for (int k = 0; k < n; k++) {
        map[k] = 0;
    }
    for (int c = 0; c < CNN_C2; c++) {
        double alpha = 0;
        for (int k = 0; k < n; k++) {
            alpha += da2[c * n + k];
        }
        alpha /= n;
        for (int k = 0; k < n; k++) {
            float a = tr.z2[c * n + k] > 0 ? tr.z2[c * n + k] : 0;
            map[k] += (float)(alpha * a);
        }
    }
    for (int k = 0; k < n; k++) {
        map[k] = map[k] > 0 ? map[k] : 0;
    }
}

static void occlusion(const Cnn *net, const float *x, int cls, float *map)
{
    const int n = CNN_SIDE * CNN_SIDE;
    float xo[CNN_NIN];
    float count[CNN_SIDE * CNN_SIDE];
    double sum[CNN_SIDE * CNN_SIDE];
    memset(count, 0, sizeof count);
    memset(sum, 0, sizeof sum);
    float base = cnn_class_logit(net, x, cls);
    for (int i0 = 0; i0 + ATTR_OCC_PATCH <= CNN_SIDE; i0 += ATTR_OCC_STRIDE) {
        for (int j0 = 0; j0 + ATTR_OCC_PATCH <= CNN_SIDE;
             j0 += ATTR_OCC_STRIDE) {
            memcpy(xo, x, sizeof xo);
            for (int c = 0; c < CNN_C0; c++) {
                for (int i = i0; i < i0 + ATTR_OCC_PATCH; i++) {
                    for (int j = j0; j < j0 + ATTR_OCC_PATCH; j++) {
                        xo[c * n + i * CNN_SIDE + j] = ATTR_BASELINE;
                    }
                }
            }
            float drop = base - cnn_class_logit(net, xo, cls);
            for (int i = i0; i < i0 + ATTR_OCC_PATCH; i++) {
                for (int j = j0; j < j0 + ATTR_OCC_PATCH; j++) {
                    sum[i * CNN_SIDE + j] += drop;
                    count[i * CNN_SIDE + j] += 1;
                }
            }
        }
    }
    for (int k = 0; k < n; k++) {
        double v = count[k] > 0 ? sum[k] / count[k] : 0;
        map[k] = v > 0 ? (float)v : 0;
    }
}

/* Separable Gaussian blur with clamped edges on a side x side map. */
static void blur(const float *in, int side, double sigma, float *out)
{
    int r = (int)ceil(3 * sigma);
    double kern[64];
    double ksum = 0;
    if (r > 31) {
        r = 31;
    }
    for (int d = -r; d <= r; d++) {
        kern[d + r] = exp(-0.5 * d * d / (sigma * sigma));
        ksum += kern[d + r];
    }
    float tmp[CNN_SIDE * CNN_SIDE];
    for (int i = 0; i < side; i++) {
        for (int j = 0; j < side; j++) {
            double s = 0;
            for (int d = -r; d <= r; d++) {
                int jj = j + d < 0 ? 0 : (j + d >= side ? side - 1 : j + d);
                s += kern[d + r] * in[i * side + jj];
            }
            tmp[i * side + j] = (float)(s / ksum);
        }
    }
    for (int i = 0; i < side; i++) {
        for (int j = 0; j < side; j++) {
            double s = 0;
            for (int d = -r; d <= r; d++) {
                int ii = i + d < 0 ? 0 : (i + d >= side ? side - 1 : i + d);
                s += kern[d + r] * tmp[ii * side + j];
            }
            out[i * side + j] = (float)(s / ksum);
        }
    }
}

/* Bottom-up saliency in the spirit of Itti, Koch & Niebur: centre-surround
** differences of intensity and two colour-opponent channels at two scales,
** each normalised, summed and smoothed. It reads only the pixels. */
static void control_map(const float *x, float *map)
{
    const int side = CNN_SIDE, n = side * side;
    float feat[3][CNN_SIDE * CNN_SIDE];
    for (int k = 0; k < n; k++) {
        float r = x[k], g = x[n + k], b = x[2 * n + k];
        feat[0][k] = (r + g + b) / 3;
        feat[1][k] = r - g;
        feat[2][k] = b - (r + g) / 2;
    }
    static const double CENTRE[2] = {1.0, 2.0};
    float centre[CNN_SIDE * CNN_SIDE], surround[CNN_SIDE * CNN_SIDE];
    float acc[CNN_SIDE * CNN_SIDE];
    memset(acc, 0, sizeof acc);
    for (int f = 0; f < 3; f++) {
        for (int s = 0; s < 2; s++) {
            blur(feat[f], side, CENTRE[s], centre);
            blur(feat[f], side, 4 * CENTRE[s], surround);
            float diff[CNN_SIDE * CNN_SIDE], mx = 0;
            for (int k = 0; k < n; k++) {
                diff[k] = fabsf(centre[k] - surround[k]);
                mx = diff[k] > mx ? diff[k] : mx;
            }
            for (int k = 0; k < n && mx > 0; k++) {
                acc[k] += diff[k] / mx;
            }
        }
    }
    blur(acc, side, 1.0, map);
}

void attr_compute(const Cnn *net, const float *x, AttrMethod m, uint64_t seed,
                  float *map)
{
    float g[CNN_NIN], sum[CNN_NIN], xs[CNN_NIN];
    if (m == ATTR_CONTROL) {
        control_map(x, map);
        return;
    }
    int cls = predicted_class(net, x); /* the class explained */
    switch (m) {
    case ATTR_SALIENCY:
        score_gradient(net, x, cls, g);
        channel_norm(g, map);
        break;
    case ATTR_GRADXINPUT:
        /* the input as the network sees it (centred on grey) */
        score_gradient(net, x, cls, g);
        for (int k = 0; k < CNN_NIN; k++) {
            xs[k] = x[k] - ATTR_BASELINE;
        }
        abs_channel_dot(xs, g, map);
        break;
    case ATTR_INTGRAD:
        /* trapezoidal rule on [0, 1] from the grey image to x */
        memset(sum, 0, sizeof sum);
        for (int s = 0; s <= ATTR_IG_STEPS; s++) {
            float a = (float)s / ATTR_IG_STEPS;
            float w = (s == 0 || s == ATTR_IG_STEPS) ? 0.5f : 1.0f;
            for (int k = 0; k < CNN_NIN; k++) {
                xs[k] = ATTR_BASELINE + a * (x[k] - ATTR_BASELINE);
            }
            score_gradient(net, xs, cls, g);
            for (int k = 0; k < CNN_NIN; k++) {
                sum[k] += w * g[k];
            }
        }
        for (int k = 0; k < CNN_NIN; k++) {
            sum[k] /= ATTR_IG_STEPS;
            xs[k] = x[k] - ATTR_BASELINE;
        }
        abs_channel_dot(xs, sum, map);
        break;
    case ATTR_SMOOTHGRAD: {
        SimRng rng;
        sim_rng_seed(&rng, seed);
        memset(sum, 0, sizeof sum);
        for (int s = 0; s < ATTR_SG_SAMPLES; s++) {
            for (int k = 0; k < CNN_NIN; k++) {
                xs[k] = x[k] + (float)(ATTR_SG_SIGMA * sim_rng_normal(&rng));
            }
            score_gradient(net, xs, cls, g);
            for (int k = 0; k < CNN_NIN; k++) {
                sum[k] += g[k] / ATTR_SG_SAMPLES;
            }
        }
        channel_norm(sum, map);
        break;
    }
    case ATTR_GRADCAM:
        gradcam(net, x, cls, map);
        break;
    case ATTR_OCCLUSION:
        occlusion(net, x, cls, map);
        break;
    case ATTR_CONTROL:
        break;
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void attr_normalize(float *map, int n)
{
    float sorted[CNN_SIDE * CNN_SIDE];
    if (n > CNN_SIDE * CNN_SIDE || n <= 0) {
        return;
    }
    memcpy(sorted, map, sizeof(float) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(float), cmp_float);
    float top = sorted[(int)floor(0.99 * (n - 1))];
    if (top <= 0) {
        top = sorted[n - 1];
    }
    if (top <= 0) {
        return;
    }
    for (int k = 0; k < n; k++) {
        float v = map[k] / top;
        map[k] = v > 1 ? 1 : v;
    }
}

double attr_background_mass(const float *map, const float *mask, int n)
{
    double total = 0, outside = 0;
    for (int k = 0; k < n; k++) {
        total += map[k];
        outside += map[k] * (1.0 - mask[k]);
    }
    return total > 0 ? outside / total : 0;
}

double attr_pearson(const float *a, const float *b, int n)
{
    double ma = 0, mb = 0;
    for (int k = 0; k < n; k++) {
        ma += a[k];
        mb += b[k];
    }
    ma /= n;
    mb /= n;
    double sab = 0, saa = 0, sbb = 0;
    for (int k = 0; k < n; k++) {
        sab += (a[k] - ma) * (b[k] - mb);
        saa += (a[k] - ma) * (a[k] - ma);
        sbb += (b[k] - mb) * (b[k] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

void attr_pool2(const float *in, int side, float *out)
{
    int h = side / 2;
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < h; j++) {
            out[i * h + j] =
                (in[2 * i * side + 2 * j] + in[2 * i * side + 2 * j + 1] +
                 in[(2 * i + 1) * side + 2 * j] +
                 in[(2 * i + 1) * side + 2 * j + 1]) /
                4;
        }
    }
}

/* viridis at nine evenly spaced points */
static const unsigned char VIRIDIS[9][3] = {
    {68, 1, 84},    {71, 44, 122},  {59, 81, 139},
    {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
    {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};

static void viridis(double v, double rgb[3])
{
    v = v < 0 ? 0 : (v > 1 ? 1 : v);
    double pos = v * 8;
    int i = (int)pos;
    if (i >= 8) {
        i = 7;
    }
    double f = pos - i;
    for (int c = 0; c < 3; c++) {
        rgb[c] = VIRIDIS[i][c] * (1 - f) + VIRIDIS[i + 1][c] * f;
    }
}

void attr_overlay(const unsigned char *img, int img_side, const float *map,
                  int side, double alpha, unsigned char *rgb)
{
    double scale = (double)side / img_side;
    for (int y = 0; y < img_side; y++) {
        for (int x = 0; x < img_side; x++) {
            /* bilinear sample at the pixel centre */
            double fy = (y + 0.5) * scale - 0.5, fx = (x + 0.5) * scale - 0.5;
            int y0 = (int)floor(fy), x0 = (int)floor(fx);
            double wy = fy - y0, wx = fx - x0;
            int y1 = y0 + 1, x1 = x0 + 1;
            y0 = y0 < 0 ? 0 : y0;
            x0 = x0 < 0 ? 0 : x0;
            y1 = y1 >= side ? side - 1 : y1;
            x1 = x1 >= side ? side - 1 : x1;
            double v = (1 - wy) * ((1 - wx) * map[y0 * side + x0] +
                                   wx * map[y0 * side + x1]) +
                       wy * ((1 - wx) * map[y1 * side + x0] +
                             wx * map[y1 * side + x1]);
            double c[3];
            viridis(v, c);
            for (int k = 0; k < 3; k++) {
                size_t o = 3 * ((size_t)y * (size_t)img_side + x) + (size_t)k;
                double out = (1 - alpha) * img[o] + alpha * c[k];
                rgb[o] = (unsigned char)lround(out);
            }
        }
    }
}
