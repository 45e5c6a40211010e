/*
** Relevance against a region (sim_relevance.h): top-K selections with
** ties shared out, so that no order of equal cells is preferred.
*/
#include "common/sim_relevance.h"

#include <math.h>
#include <stdlib.h>

#include "common/sim_alloc.h"

const char *const SIM_RELEVANCE_NAMES[SIM_RELEVANCE_N] = {
    "mass_in_mask", "rank_accuracy", "pointing_game", "iou_top20"};
const char *const SIM_RELEVANCE_TEXT[SIM_RELEVANCE_N] = {
    "relevance mass inside the ground-truth region (Arras et al.)",
    "share of the K most relevant cells inside the region (K: its size)",
    "whether the most relevant cell lies in the region",
    "IoU of the 20 % most relevant cells with the region"};

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The expected number of region cells among the top k cells of rel when
** ties at the boundary are broken at random; sorted holds rel sorted
** from the largest. */
static double top_hits(const double *rel, const double *sorted, const int *in,
                       int n, int k)
{
    if (k <= 0) {
        return 0;
    }
    double t = sorted[k < n ? k - 1 : n - 1]; /* the k-th largest */
    double hits = 0;
    int n_above = 0, n_at = 0, in_at = 0;
    for (int c = 0; c < n; c++) {
        if (rel[c] > t) {
            n_above++;
            hits += in[c];
        } else if (rel[c] == t) {
            n_at++;
            in_at += in[c];
        }
    }
    if (n_at > 0) {
        hits += (double)(k - n_above) * in_at / n_at;
    }
    return hits;
}

void sim_relevance_score(const double *rel, const double *inside, int n,
                         SimRelevance *out)
{
    for (int i = 0; i < SIM_RELEVANCE_N; i++) {
        out->v[i] = NAN;
    }
    int *in = sim_malloc(((size_t)n + 1) * sizeof *in);
    double *sorted = sim_malloc(((size_t)n + 1) * sizeof *sorted);
    if (!in || !sorted || n <= 0) {
        sim_free(in);
        sim_free(sorted);
        return;
    }
    double pos = 0, pos_in = 0, max = -INFINITY;
    int K = 0;
    for (int c = 0; c < n; c++) {
        double r = rel[c] > 0 ? rel[c] : 0;
        pos += r;
        pos_in += r * inside[c];
        in[c] = inside[c] >= 0.5;
        K += in[c];
        max = rel[c] > max ? rel[c] : max;
        sorted[c] = rel[c];
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_desc);
    out->v[0] = pos > 0 ? pos_in / pos : (double)NAN;
    if (K > 0) {
        out->v[1] = top_hits(rel, sorted, in, n, K) / K;
        int n_max = 0, in_max = 0;
        for (int c = 0; c < n; c++) {
            n_max += rel[c] == max;
            in_max += rel[c] == max && in[c];
        }
        out->v[2] = (double)in_max / n_max;
        int k = (int)ceil(SIM_RELEVANCE_TOP_SHARE * n - 1e-9);
        double inter = top_hits(rel, sorted, in, n, k);
        out->v[3] = inter / (k + K - inter);
    }
    sim_free(in);
    sim_free(sorted);
}

void sim_relevance_cells(const unsigned char *mask, int H, int W, int h, int w,
                         double *inside)
{
    size_t cells = (size_t)h * (size_t)w;
    double *count = sim_calloc(cells + 1, sizeof *count);
    for (size_t c = 0; c < cells; c++) {
        inside[c] = 0;
    }
    if (!count) {
        return;
    }
    for (int y = 0; y < H; y++) {
        int cy = (int)((long)y * h / H);
        for (int x = 0; x < W; x++) {
            size_t c = (size_t)cy * (size_t)w + (size_t)((long)x * w / W);
            count[c] += 1;
            inside[c] += mask[(size_t)y * (size_t)W + (size_t)x] != 0;
        }
    }
    for (size_t c = 0; c < cells; c++) {
        inside[c] = count[c] > 0 ? inside[c] / count[c] : 0;
    }
    sim_free(count);
}
