/*
** Metrics simlab computes from a bundle's ground truth: for an image item
** with a "mask", each method's heatmap scored against it; for a text item
** with a "rationale", each method's token weights (common/sim_relevance.h).
** The values join Study.metrics under the conditions that show the method.
*/
#include "stimuli/truth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_metrics.h"
#include "common/sim_relevance.h"
#include "stimuli/media.h"

/* The first heatmap (or image overlay) or token payload of e, its parts
** searched in order. */
static const Explanation *find_kind(const Explanation *e, int tokens)
{
    if (!e) {
        return NULL;
    }
    if (tokens ? e->kind == EXPL_TOKENS
               : (e->kind == EXPL_HEATMAP ||
                  (e->kind == EXPL_IMAGE && e->has_overlay))) {
        return e;
    }
    for (size_t i = 0; i < e->n_parts; i++) {
        const Explanation *p = find_kind(&e->parts[i], tokens);
        if (p) {
            return p;
        }
    }
    return NULL;
}

/* The relevance of heatmap e as h x w doubles (owned), or NULL. */
static double *heatmap_values(const Explanation *e, int *h, int *w)
{
    SimError err;
    if (!e->map_file) {
        return NULL;
    }
    double *out = NULL;
    if (e->file_is_npy) {
        float *f = NULL;
        if (media_npy_read(e->map_file, &f, h, w, &err) != SIM_OK) {
            return NULL;
        }
        size_t n = (size_t)*h * (size_t)*w;
        out = sim_malloc(n * sizeof *out);
        for (size_t i = 0; out && i < n; i++) {
            out[i] = f[i];
        }
        sim_free(f);
        return out;
    }
    MediaImage img;
    if (media_image_load(e->map_file, &img, &err) != SIM_OK) {
        return NULL;
    }
    *h = img.h;
    *w = img.w;
    size_t n = (size_t)img.h * (size_t)img.w;
    out = sim_malloc(n * sizeof *out);
    for (size_t i = 0; out && i < n; i++) { /* luminance in [0, 1] */
        const unsigned char *p = img.rgba + 4 * i;
        out[i] = (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0;
    }
    media_image_free(&img);
    return out;
}

/* The mask of item it as W x H bytes (1 inside: light and opaque), or
** NULL after reporting a size that is not the image's. */
static unsigned char *mask_pixels(Loader *L, const Item *it)
{
    MediaImage img;
    SimError err;
    if (!it->mask_file) {
        return NULL; /* its path was reported */
    }
    if (media_image_load(it->mask_file, &img, &err) != SIM_OK) {
        ld_diag(L, 0, it->source_file, it->source_line, 0, NULL, "mask", "%s",
                err.msg);
        return NULL;
    }
    if (img.w != it->input.image_w || img.h != it->input.image_h) {
        ld_diag(L, 0, it->source_file, it->source_line, 0, NULL, "mask",
                "'%s' is %d x %d pixels and the image is %d x %d: a "
                "ground-truth mask covers its image pixel for pixel",
                it->mask, img.w, img.h, it->input.image_w, it->input.image_h);
        media_image_free(&img);
        return NULL;
    }
    size_t n = (size_t)img.w * (size_t)img.h;
    unsigned char *m = sim_malloc(n + 1);
    for (size_t i = 0; m && i < n; i++) {
        const unsigned char *p = img.rgba + 4 * i;
        m[i] = (p[0] + p[1] + p[2]) >= 3 * 128 && p[3] >= 128;
    }
    media_image_free(&img);
    return m;
}

/* Adds the scores s of method on item it under each condition showing
** method. */
static void add_scores(Loader *L, SimMetrics *m, const Item *it,
                       const char *method, const SimRelevance *s)
{
    const Study *st = L->st;
    for (size_t c = 0; c < st->n_conditions; c++) {
        const Condition *cd = &st->conditions[c];
        if (!cd->method || strcmp(cd->method, method) != 0) {
            continue;
        }
        for (int k = 0; k < SIM_RELEVANCE_N; k++) {
            if (isfinite(s->v[k]) &&
                sim_metrics_add(m, SIM_RELEVANCE_NAMES[k], 1,
                                SIM_RELEVANCE_TEXT[k], cd->id, it->id,
                                s->v[k]) < 0) {
                L->oom = 1;
            }
        }
    }
}

/* Scores each heatmap of image item it against its mask. */
static void score_heatmaps(Loader *L, SimMetrics *m, const Item *it)
{
    unsigned char *mask = mask_pixels(L, it);
    if (!mask) {
        return;
    }
    for (size_t x = 0; x < it->n_expl; x++) {
        const Explanation *e = find_kind(it->expl[x].e, 0);
        int h = 0, w = 0;
        double *rel = e ? heatmap_values(e, &h, &w) : NULL;
        double *inside =
            rel ? sim_malloc((size_t)h * (size_t)w * sizeof *inside) : NULL;
        if (inside) {
            sim_relevance_cells(mask, it->input.image_h, it->input.image_w, h,
                                w, inside);
            SimRelevance s;
            sim_relevance_score(rel, inside, h * w, &s);
            add_scores(L, m, it, it->expl[x].method, &s);
        }
        sim_free(rel);
        sim_free(inside);
    }
    sim_free(mask);
}

/* Scores each token payload of item it against its rationale. */
static void score_tokens(Loader *L, SimMetrics *m, const Item *it)
{
    for (size_t x = 0; x < it->n_expl; x++) {
        const Explanation *e = find_kind(it->expl[x].e, 1);
        if (!e || e->n_tokens == 0) {
            continue;
        }
        size_t n = e->n_tokens;
        double *rel = sim_malloc(n * sizeof *rel);
        double *gold = sim_calloc(n, sizeof *gold);
        int bad = !rel || !gold;
        for (size_t i = 0; !bad && i < n; i++) {
            rel[i] = e->tokens[i].weight;
        }
        for (size_t r = 0; !bad && r < it->n_rationale; r++) {
            if ((size_t)it->rationale[r] >= n) {
                ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                        "rationale",
                        "token %d: the explanation '%s' has %zu tokens "
                        "(0..%zu)",
                        it->rationale[r], it->expl[x].method, n, n - 1);
                bad = 1;
            } else {
                gold[it->rationale[r]] = 1;
            }
        }
        if (!bad) {
            SimRelevance s;
            sim_relevance_score(rel, gold, (int)n, &s);
            add_scores(L, m, it, it->expl[x].method, &s);
        }
        sim_free(rel);
        sim_free(gold);
    }
}

void truth_metrics(Loader *L)
{
    Study *st = L->st;
    int any = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        any |= st->items[i].mask || st->items[i].rationale;
    }
    if (!any) {
        return;
    }
    SimMetrics *m = st->metrics ? st->metrics : sim_metrics_new();
    if (!m) {
        L->oom = 1;
        return;
    }
    st->metrics = m;
    for (size_t i = 0; i < st->n_items; i++) {
        const Item *it = &st->items[i];
        if (it->mask) {
            score_heatmaps(L, m, it);
        }
        if (it->rationale) {
            score_tokens(L, m, it);
        }
    }
}
