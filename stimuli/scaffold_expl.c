/*
** `simlab new --explanation`: the starter's method shows one of the worked
** examples of docs/study-format.md ("Showing a new explanation method")
** instead of the modality's default kind: concept patches with their
** weights (a gallery), a prototype beside the region the model used (a
** layout of two images), a counterfactual image pair, a language-model
** rationale (markdown) or that rationale on request. Images are cut from or
** drawn like the placeholder pictures. libc and libpng (via scaffold.c).
*/
#include "stimuli/scaffold_int.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

const char *const scaffold_method_names[X_COUNT - 1] = {
    "concepts", "prototype", "counterfactual", "rationale", "on-request"};

int scaffold_method_fits(Method m, Modality md)
{
    /* the image methods show pictures; prose explains anything */
    return m == X_DEFAULT || m == X_RATIONALE || m == X_ON_REQUEST ||
           md == M_IMAGE;
}

const char *scaffold_method_what(const Ctx *c)
{
    switch (c->method) {
    case X_CONCEPTS:
        return "gallery payload: three concept patches of the picture, "
               "each with a caption and a weight";
    case X_PROTOTYPE:
        return "layout payload: the picture with the region the model used "
               "(an overlay) beside a prototype of its answer";
    case X_COUNTERFACTUAL:
        return "layout payload: the picture beside the smallest change that "
               "flips the model's answer";
    case X_RATIONALE:
        return "markdown payload: a rationale in words, as a language model "
               "might write it";
    case X_ON_REQUEST:
        return "markdown payload with \\\"reveal\\\": \\\"on_request\\\": "
               "the rationale behind a Show explanation button";
    default:
        return c->modality == M_IMAGE  ? "heatmap payload"
               : c->modality == M_TEXT ? "tokens payload"
                                       : "features payload";
    }
}

/* A size x size patch of the IMG x IMG picture px at (x0, y0), scaled to
** 64 x 64. */
static void patch(const unsigned char *px, int x0, int y0, int size,
                  unsigned char *out)
{
    for (int y = 0; y < 64; y++) {
        for (int x = 0; x < 64; x++) {
            int sx = x0 + x * size / 64, sy = y0 + y * size / 64;
            sx = sx < 0 ? 0 : sx >= IMG ? IMG - 1 : sx;
            sy = sy < 0 ? 0 : sy >= IMG ? IMG - 1 : sy;
            memcpy(&out[(y * 64 + x) * 3], &px[(sy * IMG + sx) * 3], 3);
        }
    }
}

/* Concept patches: the shape's middle, its edge and the background. */
static void concepts(Out *o, const Ctx *c, const Planned *x, int k, SimBuf *b)
{
    unsigned char *px = sim_malloc(IMG * IMG * 3);
    unsigned char *pt = sim_malloc(64 * 64 * 3);
    if (!px || !pt) {
        b->oom = 1;
        sim_free(px);
        sim_free(pt);
        return;
    }
    sc_draw_shape(px, x->label, k);
    static const struct {
        const char *name, *caption;
        int x0, y0, size;
    } parts[3] = {{"middle", "the middle of the shape", 32, 32, 32},
                  {"edge", "the edge of the shape", 52, 32, 32},
                  {"background", "the background", 0, 0, 16}};
    /* the middle carries the answer, the edge some, the ground little */
    double w[3] = {0.5 + 0.05 * (k % 4), 0.3 - 0.04 * (k % 3), 0.0};
    w[2] = 1.0 - w[0] - w[1];
    sim_buf_puts(b, "\"kind\": \"gallery\", \"title\": \"Concepts the model "
                    "found, and how much each counted\", \"columns\": 3, "
                    "\"images\": [");
    for (int i = 0; i < 3; i++) {
        char rel[96];
        snprintf(rel, sizeof rel, "media/%s-%s-%s.png", x->pool, x->id,
                 parts[i].name);
        patch(px, parts[i].x0, parts[i].y0, parts[i].size, pt);
        sc_write_png(o, rel, pt, 64, 64, 3);
        sim_buf_printf(b,
                       "%s{\"file\": \"%s\", \"caption\": \"%s\", "
                       "\"weight\": %.2f}",
                       i ? ", " : "", rel, parts[i].caption, w[i]);
    }
    sim_buf_puts(b, "]}\n");
    (void)c;
    sim_free(px);
    sim_free(pt);
}

/* The prototype of each class, drawn once. */
static void prototypes(Out *o)
{
    unsigned char *px = sim_malloc(IMG * IMG * 3);
    if (!px) {
        return;
    }
    for (int cl = 0; cl < 2; cl++) {
        char rel[64];
        snprintf(rel, sizeof rel, "media/prototype-%d.png", cl);
        sc_draw_shape(px, cl, 0);
        sc_write_png(o, rel, px, IMG, IMG, 3);
    }
    sim_free(px);
}

static void prototype(const Ctx *c, const Planned *x, SimBuf *b)
{
    sim_buf_printf(b,
                   "\"kind\": \"layout\", \"direction\": \"row\", \"title\": "
                   "\"This looks like that\", \"parts\": [{\"kind\": "
                   "\"image\", \"caption\": \"The region the model used\", "
                   "\"overlay\": {\"file\": \"media/%s-%s-heat.png\", "
                   "\"colormap\": \"magma\", \"opacity\": 0.5}}, {\"kind\": "
                   "\"image\", \"file\": \"media/prototype-%d.png\", "
                   "\"caption\": \"looks like this prototype of %s\"}]}\n",
                   x->pool, x->id, x->output, c->class_label[x->output]);
}

static void counterfactual(Out *o, const Ctx *c, const Planned *x, int k,
                           SimBuf *b)
{
    unsigned char *px = sim_malloc(IMG * IMG * 3);
    if (!px) {
        b->oom = 1;
        return;
    }
    char rel[96];
    snprintf(rel, sizeof rel, "media/%s-%s-flip.png", x->pool, x->id);
    /* the other shape flips the answer (of a model that is wrong here
    ** too) */
    sc_draw_shape(px, 1 - x->label, k);
    sc_write_png(o, rel, px, IMG, IMG, 3);
    sim_free(px);
    sim_buf_printf(b,
                   "\"kind\": \"layout\", \"direction\": \"row\", \"title\": "
                   "\"The smallest change that flips the answer\", "
                   "\"parts\": [{\"kind\": \"image\", \"file\": "
                   "\"media/%s-%s.png\", \"caption\": \"As it is: the model "
                   "says %s\"}, {\"kind\": \"image\", \"file\": \"%s\", "
                   "\"caption\": \"Changed: the model would say %s\"}]}\n",
                   x->pool, x->id, c->class_label[x->output], rel,
                   c->class_label[1 - x->output]);
}

/* A rationale in words, naming what the placeholder shows. */
static void rationale(const Ctx *c, const Planned *x, int k, int on_request,
                      SimBuf *b)
{
    const char *answer = c->class_label[x->output];
    sim_buf_printf(b, "\"kind\": \"markdown\", %s\"text\": ",
                   on_request ? "\"reveal\": \"on_request\", " : "");
    switch (c->modality) {
    case M_IMAGE:
        sim_buf_printf(b,
                       "\"The model answers **%s** mainly because of the "
                       "*outline* of the shape in the middle.\\n\\n- its "
                       "corners count most\\n- the background colour "
                       "counts for little\\n\\n(a placeholder: write what "
                       "your rationale says)\"}\n",
                       answer);
        break;
    case M_TEXT: {
        const char *w[7];
        sc_review_words(k, x->label, w);
        sim_buf_printf(b,
                       "\"The model answers **%s** mainly because of the "
                       "word *%s*, and a little because of *%s*.\\n\\n(a "
                       "placeholder: write what your rationale says)\"}\n",
                       answer, w[1], w[5]);
        break;
    }
    case M_TABULAR:
        sim_buf_printf(b,
                       "\"The model answers **%s** mainly because of *hours "
                       "per week* (%d) and *age* (%d).\\n\\n- education "
                       "counts for little\\n\\n(a placeholder: write what "
                       "your rationale says)\"}\n",
                       answer, sc_feature_hours(k, x->label),
                       sc_feature_age(k, x->label));
        break;
    }
}

void scaffold_payload(Out *o, const Ctx *c, const Planned *x, int k, SimBuf *b)
{
    switch (c->method) {
    case X_CONCEPTS:
        concepts(o, c, x, k, b);
        break;
    case X_PROTOTYPE:
        if (k == 0) {
            prototypes(o);
        }
        prototype(c, x, b);
        break;
    case X_COUNTERFACTUAL:
        counterfactual(o, c, x, k, b);
        break;
    case X_RATIONALE:
    case X_ON_REQUEST:
        rationale(c, x, k, c->method == X_ON_REQUEST, b);
        break;
    default:
        break;
    }
}
