/*
** Explanations: the table that says how each kind is drawn (one row per
** ExplKind), the entry that draws any payload under its title, layouts
** and composites of parts, and the image kinds: heatmaps and images with
** their overlay and colour bar, and galleries with captions and weights.
*/
#include "app/render_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One row per ExplKind: how it is drawn. Adding a kind: its row in
** stimuli/expl.c's table and one here. */
static const RenderFn kind_render[] = {
    [EXPL_HEATMAP] = rnd_image,       [EXPL_TOKENS] = rnd_tokens,
    [EXPL_TOKEN_PAIRS] = rnd_pairs,   [EXPL_SPAN_PAIRS] = rnd_pairs,
    [EXPL_FEATURES] = rnd_features,   [EXPL_RULES] = rnd_rules,
    [EXPL_PROTOTYPE] = rnd_prototype, [EXPL_PATH] = rnd_path,
    [EXPL_TEXT] = rnd_pretext,        [EXPL_COMPOSITE] = rnd_composite,
    [EXPL_IMAGE] = rnd_image,         [EXPL_GALLERY] = rnd_gallery,
    [EXPL_MARKDOWN] = rnd_markdown,   [EXPL_BARS] = rnd_bars,
    [EXPL_LAYOUT] = rnd_layout,
};

_Static_assert(sizeof kind_render / sizeof *kind_render == EXPL_KIND_COUNT,
               "one row per ExplKind");

static float render_one(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                        float x, float y, float w)
{
    const Explanation *e = nd->payload;
    if ((unsigned)e->kind >= EXPL_KIND_COUNT || !kind_render[e->kind]) {
        return 0;
    }
    return kind_render[e->kind](rc, sc, nd, x, y, w);
}

/* Payloads of parts (composites, layouts) draw a title of their own in
** bold; others in the small bold face. */
static int is_container(const Explanation *e)
{
    return e->kind == EXPL_COMPOSITE || e->kind == EXPL_LAYOUT;
}

float render_explanation(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                         float x, float y, float w)
{
    if (!nd) {
        return 0;
    }
    Ui *ui = rc->ui;
    float yy = y;
    if (nd->title) {
        int big = is_container(nd->payload);
        yy += text_para(sc, big ? ui->bold : ui->small_bold, nd->title, x, yy,
                        w, ui->th.text, render_align(rc, ALIGN_LEFT));
        yy += ui->u * (big ? 0.4f : 0.3f);
    }
    yy += render_one(rc, sc, nd, x, yy, w);
    return yy - y;
}

/* A part of a composite or layout: its title as a section label, then the
** part. */
static float render_part(const RenderCtx *rc, Scene *sc, const ScreenExpl *p,
                         float x, float y, float w)
{
    Ui *ui = rc->ui;
    float yy = y;
    if (p->title) {
        yy += render_section_label(rc, sc, x, yy, w, p->title);
        yy += ui->u * 0.3f;
    }
    yy += render_one(rc, sc, p, x, yy, w);
    return yy - y;
}

float rnd_composite(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                    float x, float y, float w)
{
    Ui *ui = rc->ui;
    float yy = y;
    for (size_t i = 0; i < nd->n_parts; i++) {
        if (i > 0) {
            yy += ui->u * 0.6f;
            if (sc) {
                scene_rect(sc, (SDL_FRect){x, yy, w, 1}, ui->th.border);
            }
            yy += ui->u * 0.6f;
        }
        if (nd->parts[i].payload->kind == EXPL_COMPOSITE) {
            continue; /* the loader refuses nested composites */
        }
        yy += render_part(rc, sc, &nd->parts[i], x, yy, w);
    }
    return yy - y;
}

/* The narrowest a part of a row may be before the row stacks. */
#define ROW_MIN_CELL_U 7.0f

float rnd_layout(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                 float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
    float gap = roundf(ui->u * 0.9f);
    size_t n = nd->n_parts;
    float cw = n ? floorf((w - gap * (float)(n - 1)) / (float)n) : w;
    /* small cards (the reservoir) keep rows down to narrower parts */
    float min_cell =
        ui->u * (rc->compact ? ROW_MIN_CELL_U * 0.6f : ROW_MIN_CELL_U);
    if (!e->row || n < 2 || cw < min_cell) {
        /* a column (or a row too narrow to stay one) */
        float yy = y;
        for (size_t i = 0; i < n; i++) {
            yy += i ? gap : 0;
            yy += render_part(rc, sc, &nd->parts[i], x, yy, w);
        }
        return yy - y;
    }
    float h = 0;
    for (size_t i = 0; i < n; i++) {
        h = fmaxf(h, render_part(rc, NULL, &nd->parts[i], 0, 0, cw));
    }
    for (size_t i = 0; sc && i < n; i++) {
        /* parts from the start side */
        float cx = render_mx(rc, x, w, x + (float)i * (cw + gap), cw);
        scene_box_begin(sc, (SDL_FRect){cx, y, cw, h}, "cell");
        render_part(rc, sc, &nd->parts[i], cx, y, cw);
        scene_box_end(sc);
    }
    return h;
}

/* ------------------------------------------------------------- images */

/* The colour bar of a map under a picture pic_w wide. */
static float map_legend(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                        float pic_w, float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
    const char *lo = nd->legend_lo;
    const char *hi = nd->legend_hi;
    float low = font_width(ui->caption, lo, strlen(lo));
    float hiw = font_width(ui->caption, hi, strlen(hi));
    float bw = fminf(fmaxf(pic_w * 0.6f, ui->u * 10), w * 0.8f);
    /* The legend stays inside the column. */
    bw = fmaxf(fminf(bw, w - low - hiw - ui->u), ui->u * 3);
    return render_legend(rc, sc, assets_colorbar(rc->assets, e->colormap), lo,
                         hi, x, y, w, bw);
}

float rnd_image(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
    const ExplImage *own =
        e->kind == EXPL_IMAGE && e->n_images && e->images[0].file
            ? &e->images[0]
            : NULL;
    const Tex *img = own ? assets_image(rc->assets, own->image_file)
                     : nd->image_file ? assets_image(rc->assets, nd->image_file)
                                      : NULL;
    int with_map = e->kind == EXPL_HEATMAP || e->has_overlay;
    const Tex *map = with_map ? assets_heatmap(rc->assets, e->map_file,
                                               e->file_is_npy, e->colormap)
                              : NULL;
    float yy = y;
    float gap = roundf(ui->u * 0.8f);
    double op = e->opacity > 0 && e->opacity <= 1 ? e->opacity : 0.5;
    float pic_w = 0, pic_h = 0;
    if (e->side_by_side && map && img && img->tex) {
        float cw = (w - gap) / 2;
        float iw1;
        float h1 =
            render_image_fit(rc, NULL, img, 0, 0, cw, rc->max_image_h, &iw1);
        /* The map takes the image's size, so the pair is twice its width. */
        float total = iw1 + gap + iw1;
        float x0 = x + floorf((w - total) / 2);
        /* image first, then its map, in reading order (pixels unflipped) */
        render_image_fit(rc, sc, img, render_mx(rc, x, w, x0, iw1), yy, cw,
                         rc->max_image_h, NULL);
        /* The map is drawn at the image's size (smaller maps upsampled). */
        if (sc && map->tex) {
            scene_texture(sc, map->tex, NULL,
                          (SDL_FRect){render_mx(rc, x, w, x0 + iw1 + gap, iw1),
                                      yy, iw1, h1},
                          255);
        }
        pic_w = total;
        pic_h = h1;
    } else {
        /* no image: the map alone; neither: the framed note */
        static const Tex none = {NULL, 0, 0, ""};
        const Tex *base = img && img->tex ? img : map ? map : img ? img : &none;
        float iw;
        float h =
            render_image_fit(rc, NULL, base, 0, 0, w, rc->max_image_h, &iw);
        float x0 = x + floorf((w - iw) / 2);
        render_image_fit(rc, sc, base, x0, yy, w, rc->max_image_h, NULL);
        if (sc && map && base != map && map->tex) {
            scene_texture(sc, map->tex, NULL, (SDL_FRect){x0, yy, iw, h},
                          (uint8_t)lround(op * 255));
        }
        pic_w = iw;
        pic_h = h;
    }
    yy += pic_h;
    const char *cap =
        e->kind == EXPL_IMAGE && e->n_images ? e->images[0].caption : NULL;
    if (cap && *cap) {
        yy += roundf(ui->u * 0.3f);
        yy +=
            text_para(sc, ui->small, cap, x, yy, w, ui->th.muted, ALIGN_CENTER);
    }
    if (!map || !nd->legend_lo) {
        return yy - y;
    }
    yy += ui->u * 0.5f;
    /* Colour bar legend, as wide as the picture (within reason). */
    yy += map_legend(rc, sc, nd, pic_w, x, yy, w);
    return yy - y;
}

/* ------------------------------------------------------------ galleries */

/* The columns of a gallery n images wide in a column w wide: its
** "columns", or as many as leave each image 6 body heights, at most 4. */
static int gallery_columns(const RenderCtx *rc, const Explanation *e, float w,
                           float gap)
{
    int n = (int)e->n_images;
    int cols = e->columns > 0 ? e->columns : (n < 4 ? n : 4);
    if (cols > n) {
        cols = n;
    }
    float min_cell = rc->ui->u * (e->columns > 0 ? 3.5f : 6.0f);
    while (cols > 1 && (w - gap * (float)(cols - 1)) / (float)cols < min_cell) {
        cols--;
    }
    return cols < 1 ? 1 : cols;
}

/* One image of a gallery in its cell [x, x + cw): the image, its caption
** and its weight (a small bar from the cell's middle and the number);
** returns the height. img_h: the tallest an image may be; weight_row: the
** height kept for weights (0: the gallery has none). */
static float gallery_cell(const RenderCtx *rc, Scene *sc, const ExplImage *im,
                          const ScreenValue *val, double max_abs, int shown,
                          float x, float y, float cw, float img_h,
                          float weight_row)
{
    Ui *ui = rc->ui;
    const Tex *t = assets_image(rc->assets, im->image_file);
    float iw;
    float yy = y;
    /* every image centred in an area of the same size, so that captions
    ** and weights line up across the row */
    float h = render_image_fit(rc, NULL, t, 0, 0, cw, img_h, &iw);
    float area = t->tex ? fminf(cw, img_h) : h;
    render_image_fit(rc, sc, t, x + floorf((cw - iw) / 2),
                     yy + floorf((area - h) / 2), cw, img_h, NULL);
    yy += fmaxf(area, h);
    if (im->caption && *im->caption) {
        yy += roundf(ui->u * 0.25f);
        yy += text_para(sc, ui->small, im->caption, x, yy, cw, ui->th.text,
                        ALIGN_CENTER);
    }
    if (weight_row > 0) {
        yy += roundf(ui->u * 0.25f);
        if (sc && shown && isfinite(im->weight) && val->text) {
            Font *f = ui->small_bold;
            float vw = value_width(f, val->text);
            float bar_max = fmaxf(cw - vw - ui->u, ui->u);
            float len = (float)(fabs(im->weight) / max_abs) * bar_max * 0.8f;
            float bh = (float)f->line_h * 0.5f;
            float total = len + ui->u * 0.3f + vw;
            float bx = x + floorf((cw - total) / 2);
            SDL_Color c = colormap_diverging(im->weight >= 0 ? 0.8 : -0.85);
            scene_rrect(sc,
                        (SDL_FRect){render_mx(rc, x, cw, bx, fmaxf(len, 2)),
                                    yy + ((float)f->line_h - bh) / 2,
                                    fmaxf(len, 2), bh},
                        2, c);
            value_draw(sc, f, render_mx(rc, x, cw, bx + len + ui->u * 0.3f, vw),
                       yy, val->text, ui->th.text);
        }
        yy += weight_row;
    }
    return yy - y;
}

float rnd_gallery(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
                  float y, float w)
{
    Ui *ui = rc->ui;
    const Explanation *e = nd->payload;
    float gap = roundf(ui->u * 0.6f);
    int cols = gallery_columns(rc, e, w, gap);
    float cw = floorf((w - gap * (float)(cols - 1)) / (float)cols);
    size_t n = e->n_images;
    float img_h = fminf(cw, rc->max_image_h * 0.5f);
    double max_abs = 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(e->images[i].weight)) {
            max_abs = fmax(max_abs, fabs(e->images[i].weight));
        }
    }
    float weight_row = max_abs > 0 ? (float)ui->small_bold->line_h : 0;
    if (max_abs <= 0) {
        max_abs = 1;
    }
    float yy = y;
    for (size_t r = 0; r < n; r += (size_t)cols) {
        float row_h = 0;
        for (size_t k = 0; k < (size_t)cols && r + k < n; k++) {
            row_h = fmaxf(row_h, gallery_cell(rc, NULL, &e->images[r + k],
                                              &nd->values[r + k], max_abs, 1, 0,
                                              0, cw, img_h, weight_row));
        }
        for (size_t k = 0; sc && k < (size_t)cols && r + k < n; k++) {
            size_t i = r + k;
            /* from the start side */
            float cx = render_mx(rc, x, w, x + (float)k * (cw + gap), cw);
            SDL_FRect cell = {cx, yy, cw, row_h};
            const ScreenValue *val = &nd->values[i];
            render_hover_region(rc, sc, cell, val->hover);
            scene_box_begin(sc, cell, "cell");
            gallery_cell(rc, sc, &e->images[i], val, max_abs,
                         render_value_shown(rc, val->hover), cx, yy, cw, img_h,
                         weight_row);
            scene_box_end(sc);
        }
        yy += row_h + (r + (size_t)cols < n ? gap : 0);
    }
    return yy - y;
}
