/*
** The explanation primitives a lab composes a new method from, without C:
** image (a bundle image or the item's, a caption, an optional heatmap
** overlay), gallery (images with captions and weights), markdown (prose),
** bars (labelled values) and layout (parts in a row or a column). Each
** parser reads and checks its kind's fields. libc and jansson only.
*/
#include "stimuli/expl_int.h"
#include "stimuli/bpath_int.h"
#include "stimuli/media.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "stimuli/page.h"

/* Most images of a gallery, bars of a bars payload. */
#define GALLERY_MAX 64
#define BARS_MAX    200

/* 1 when name ends with suffix, ignoring case. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    if (n < k) {
        return 0;
    }
    for (size_t i = 0; i < k; i++) {
        if (tolower((unsigned char)name[n - k + i]) != suffix[i]) {
            return 0;
        }
    }
    return 1;
}

/* A PNG or JPEG file of the bundle into im (decoded whole, as the runner
** will); problems at member key of at. */
static void read_image(Loader *L, const JLoc *at, const char *key,
                       const char *file, ExplImage *im)
{
    im->file = ld_strdup(L, file);
    if (!ends_with(file, ".png") && !ends_with(file, ".jpg") &&
        !ends_with(file, ".jpeg")) {
        jl_error(L, at, key, "'%s': an image must be a .png or .jpg file",
                 file);
        return;
    }
    char why[512], *abs = NULL;
    if (bpath_file(L, file, &abs, why, sizeof why) != 0) {
        jl_error_file(L, at, key, "%s", why);
        return;
    }
    if (media_probe_image(abs, &im->w, &im->h, NULL, why, sizeof why) != 0) {
        jl_error_file(L, at, key, "'%s': %s", file, why);
        sim_free(abs);
        return;
    }
    im->image_file = abs; /* what the runner opens */
}

/* ---------------------------------------------------------------- image */

/* "overlay": {"file", "colormap", "opacity"}: a heatmap over the image
** (w x h; what names it in a size mismatch). */
static void read_overlay(Loader *L, const JLoc *at, json_t *ov, Explanation *e,
                         int w, int h, const char *what)
{
    JLoc ol;
    jl_child(&ol, at, "overlay");
    if (!json_is_object(ov)) {
        jl_error(L, at, "overlay",
                 "must be an object {\"file\", \"colormap\", \"opacity\"}");
        return;
    }
    static const char *const known[] = {"file", "colormap", "opacity", NULL};
    jreject_unknown_of(L, &ol, ov, known, "an overlay");
    if (expl_map_read(L, &ol, ov, e)) {
        e->has_overlay = 1;
        expl_map_fits(L, &ol, e, w, h, what);
    }
    expl_map_style(L, &ol, ov, e);
}

int expl_parse_image(Loader *L, const JLoc *at, json_t *o, const Item *it,
                     Explanation *e, int depth)
{
    (void)depth;
    e->images = ld_calloc(L, 1, sizeof *e->images);
    if (!e->images) {
        return -1;
    }
    e->n_images = 1;
    ExplImage *im = &e->images[0];
    im->weight = NAN;
    const char *file = NULL, *caption = NULL;
    int has = jget_str(L, at, o, "file", 0, &file);
    int w = 0, h = 0;
    const char *what = "the image";
    char named[300];
    if (has == 1) {
        read_image(L, at, "file", file, im);
        w = im->w;
        h = im->h;
        snprintf(named, sizeof named, "'%s'", file);
        what = named;
    } else if (has == 0 && it && it->input.modality != MODALITY_IMAGE) {
        jl_error(L, at, "file",
                 "missing: an image explanation of a %s item needs a "
                 "file (only image items show their own image)",
                 modality_name(it->input.modality));
    } else if (has == 0 && it) {
        w = it->input.image_w;
        h = it->input.image_h;
    }
    if (jget_str(L, at, o, "caption", 0, &caption) == 1) {
        im->caption = ld_strdup(L, caption);
    }
    json_t *ov = json_object_get(o, "overlay");
    if (ov) {
        read_overlay(L, at, ov, e, w, h, what);
    }
    return 0;
}

/* -------------------------------------------------------------- gallery */

int expl_parse_gallery(Loader *L, const JLoc *at, json_t *o, const Item *it,
                       Explanation *e, int depth)
{
    (void)it, (void)depth;
    json_t *list = expl_list_member(L, at, o, "images", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    if (n > GALLERY_MAX) {
        jl_error(L, at, "images", "%zu images; a gallery shows at most %d", n,
                 GALLERY_MAX);
        n = GALLERY_MAX;
    }
    e->images = ld_calloc(L, n, sizeof *e->images);
    if (!e->images) {
        return -1;
    }
    e->n_images = n;
    JLoc il;
    jl_child(&il, at, "images");
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(list, i);
        ExplImage *im = &e->images[i];
        im->weight = NAN;
        JLoc el;
        jl_index(&el, &il, i);
        if (json_is_string(v)) {
            read_image(L, &el, NULL, json_string_value(v), im);
            continue;
        }
        if (!json_is_object(v)) {
            jl_error(L, &el, NULL,
                     "an image is {\"file\", \"caption\", \"weight\"} or a "
                     "file name");
            continue;
        }
        static const char *const known[] = {"file", "caption", "weight", NULL};
        jreject_unknown_of(L, &el, v, known, "a gallery image");
        const char *file = NULL, *caption = NULL;
        if (jget_str(L, &el, v, "file", 1, &file) == 1) {
            read_image(L, &el, "file", file, im);
        }
        if (jget_str(L, &el, v, "caption", 0, &caption) == 1) {
            im->caption = ld_strdup(L, caption);
        }
        json_t *wt = json_object_get(v, "weight");
        if (wt) {
            expl_number(L, &el, wt, "weight", &im->weight);
        }
    }
    jget_int(L, at, o, "columns", 0, 1, 12, &e->columns);
    return 0;
}

/* ------------------------------------------------------------- markdown */

/* An image line in a markdown payload: refused (images are parts). */
static void markdown_image(void *ctx, PageBlock *img, int line,
                           const char *problem)
{
    (void)img, (void)line, (void)problem;
    int *images = ctx;
    (*images)++;
}

int expl_parse_markdown(Loader *L, const JLoc *at, json_t *o, const Item *it,
                        Explanation *e, int depth)
{
    (void)it, (void)depth;
    json_t *t = json_object_get(o, "text");
    if (!t) {
        jl_error(L, at, "text", "missing (required)");
        return -1;
    }
    if (expl_text(L, at, t, "text", &e->text) != 0) {
        return -1;
    }
    int images = 0;
    if (page_build_ex(e->text, NULL, PAGE_MARKDOWN, markdown_image, &images,
                      &e->doc) != 0) {
        L->oom = 1;
        return -1;
    }
    if (images) {
        jl_error(L, at, "text",
                 "an image line ![...](...) in a markdown explanation: show "
                 "images as image parts of a layout beside it");
    }
    return 0;
}

/* ----------------------------------------------------------------- bars */

int expl_parse_bars(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth)
{
    (void)it, (void)depth;
    json_t *list = expl_list_member(L, at, o, "bars", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    if (n > BARS_MAX) {
        jl_error(L, at, "bars", "%zu bars; at most %d are shown", n, BARS_MAX);
        n = BARS_MAX;
    }
    e->features = ld_calloc(L, n, sizeof *e->features);
    if (!e->features) {
        return -1;
    }
    JLoc bl;
    jl_child(&bl, at, "bars");
    int any_neg = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *b = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &bl, i);
        ExplFeature *x = &e->features[i];
        e->n_features = i + 1;
        json_t *label = NULL, *value = NULL;
        int is_arr = json_is_array(b);
        if (is_arr && json_array_size(b) == 2) {
            label = json_array_get(b, 0);
            value = json_array_get(b, 1);
        } else if (json_is_object(b)) {
            static const char *const known[] = {"label", "value", NULL};
            jreject_unknown_of(L, &el, b, known, "a bar");
            label = json_object_get(b, "label");
            value = json_object_get(b, "value");
        } else {
            jl_error(L, &el, NULL,
                     "a bar is {\"label\", \"value\"} or [label, value]");
            continue;
        }
        expl_text(L, &el, label, is_arr ? "0" : "label", &x->name);
        if (expl_number(L, &el, value, is_arr ? "1" : "value", &x->weight) ==
            0) {
            any_neg |= x->weight < 0;
        }
    }
    e->bars_signed = any_neg;
    jget_bool(L, at, o, "signed", &e->bars_signed);
    jget_bool(L, at, o, "sum", &e->show_sum);
    e->decimals = 2;
    jget_int(L, at, o, "decimals", 0, 0, 6, &e->decimals);
    const char *unit = NULL;
    if (jget_str(L, at, o, "unit", 0, &unit) == 1) {
        if (strlen(unit) > 16) {
            jl_error(L, at, "unit", "'%s': at most 16 bytes", unit);
        } else {
            e->unit = ld_strdup(L, unit);
        }
    }
    return 0;
}

/* --------------------------------------------------------------- layout */

int expl_parse_layout(Loader *L, const JLoc *at, json_t *o, const Item *it,
                      Explanation *e, int depth)
{
    const char *dir = NULL;
    if (jget_str(L, at, o, "direction", 0, &dir) == 1) {
        if (strcmp(dir, "row") == 0) {
            e->row = 1;
        } else if (strcmp(dir, "column") != 0) {
            jl_error(L, at, "direction", "'%s' is not row or column", dir);
        }
    }
    json_t *parts = expl_list_member(L, at, o, "parts", 0);
    if (!parts) {
        return -1;
    }
    if (depth + 1 > EXPL_MAX_DEPTH) {
        jl_error(L, at, "parts", "layouts nest at most %d deep",
                 EXPL_MAX_DEPTH);
        return -1;
    }
    return expl_parse_parts(L, at, parts, it, e, depth);
}
