/*
** Scene drawing with cairo: sky, horizon trees and ground that say "snow" or
** "grass", and a rabbit or a bird whose colours come from one palette shared
** by both animals (so that colour alone never tells the animal apart).
*/
#include "stimuli/gen/scene.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cairo.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

typedef struct Rgb {
    double r, g, b;
} Rgb;

/* Fur and feather colours, shared by rabbits and birds. */
static const Rgb PALETTE[] = {
    {0.50, 0.50, 0.52}, /* grey */
    {0.52, 0.36, 0.22}, /* brown */
    {0.72, 0.58, 0.40}, /* tan */
    {0.30, 0.26, 0.24}, /* dark brown */
    {0.70, 0.42, 0.20}, /* ginger */
};
#define N_PALETTE (sizeof PALETTE / sizeof PALETTE[0])

static double uni(SimRng *rng, double lo, double hi)
{
    return lo + (hi - lo) * sim_rng_uniform(rng);
}

static Rgb jitter(SimRng *rng, Rgb c, double amount)
{
    Rgb out = {c.r + uni(rng, -amount, amount), c.g + uni(rng, -amount, amount),
               c.b + uni(rng, -amount, amount)};
    return out;
}

static Rgb shade(Rgb c, double f)
{
    Rgb out = {c.r * f, c.g * f, c.b * f};
    return out;
}

static Rgb tint(Rgb c, double f)
{
    Rgb out = {c.r + (1 - c.r) * f, c.g + (1 - c.g) * f, c.b + (1 - c.b) * f};
    return out;
}

/* In mask mode every fill is opaque black, so the A8 surface receives the
** animal's coverage. */
static void source(cairo_t *cr, Rgb c, int mask_mode)
{
    if (mask_mode) {
        cairo_set_source_rgba(cr, 0, 0, 0, 1);
    } else {
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
    }
}

static void ellipse(cairo_t *cr, double x, double y, double rx, double ry,
                    double angle)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_scale(cr, rx, ry);
    cairo_new_sub_path(cr);
    cairo_arc(cr, 0, 0, 1, 0, 2 * 3.14159265358979323846);
    cairo_restore(cr);
}

/* Everything an animal needs, drawn the same way in colour and mask mode. */
typedef struct Pose {
    double x, y;   /* ground contact point, pixels */
    double scale;  /* size factor */
    double facing; /* +1 faces right, -1 faces left */
    Rgb fur;       /* main colour */
} Pose;

static void draw_rabbit(cairo_t *cr, const Pose *p, int mask_mode)
{
    Rgb fur = p->fur, dark = shade(fur, 0.72), light = tint(fur, 0.55);
    Rgb pink = {0.93, 0.62, 0.66};
    cairo_save(cr);
    cairo_translate(cr, p->x, p->y);
    cairo_scale(cr, p->scale * p->facing, p->scale);
    /* ears first, so the head overlaps their base */
    ellipse(cr, 6, -42, 3.4, 12, -0.22);
    ellipse(cr, 11, -43, 3.4, 12.5, 0.05);
    source(cr, fur, mask_mode);
    cairo_fill(cr);
    if (!mask_mode) {
        ellipse(cr, 11, -43, 1.5, 9, 0.05);
        source(cr, pink, 0);
        cairo_fill(cr);
    }
    ellipse(cr, -1, -13, 15, 12, 0); /* body */
    source(cr, fur, mask_mode);
    cairo_fill(cr);
    ellipse(cr, -4, -2.5, 9, 3.5, 0); /* hind foot */
    source(cr, dark, mask_mode);
    cairo_fill(cr);
    ellipse(cr, -16, -13, 4.5, 4.5, 0); /* tail */
    source(cr, light, mask_mode);
    cairo_fill(cr);
    ellipse(cr, 11, -26, 8.5, 7.5, 0); /* head */
    source(cr, fur, mask_mode);
    cairo_fill(cr);
    ellipse(cr, 11, -3, 4, 2.6, 0); /* front paw */
    source(cr, dark, mask_mode);
    cairo_fill(cr);
    if (!mask_mode) {
        ellipse(cr, 14, -28, 1.5, 1.5, 0);
        cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
        cairo_fill(cr);
        ellipse(cr, 19, -25, 1.3, 1.1, 0);
        source(cr, pink, 0);
        cairo_fill(cr);
    }
    cairo_restore(cr);
}

static void draw_bird(cairo_t *cr, const Pose *p, int mask_mode)
{
    Rgb fur = p->fur, dark = shade(fur, 0.7), light = tint(fur, 0.45);
    Rgb orange = {0.93, 0.60, 0.12};
    cairo_save(cr);
    cairo_translate(cr, p->x, p->y);
    cairo_scale(cr, p->scale * p->facing, p->scale);
    /* legs and feet */
    cairo_set_line_width(cr, 1.6);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_move_to(cr, -3, -12);
    cairo_line_to(cr, -4, 0);
    cairo_line_to(cr, 0, 0);
    cairo_move_to(cr, 4, -12);
    cairo_line_to(cr, 4, 0);
    cairo_line_to(cr, 8, 0);
    source(cr, orange, mask_mode);
    cairo_stroke(cr);
    /* tail */
    cairo_move_to(cr, -12, -20);
    cairo_line_to(cr, -29, -27);
    cairo_line_to(cr, -27, -15);
    cairo_close_path(cr);
    source(cr, dark, mask_mode);
    cairo_fill(cr);
    ellipse(cr, 0, -21, 16, 10, -0.08); /* body */
    source(cr, fur, mask_mode);
    cairo_fill(cr);
    ellipse(cr, 1, -17, 10, 5, -0.05); /* breast */
    source(cr, light, mask_mode);
    cairo_fill(cr);
    ellipse(cr, -4, -23, 10.5, 5.5, -0.25); /* wing */
    source(cr, dark, mask_mode);
    cairo_fill(cr);
    ellipse(cr, 14, -31, 7, 7, 0); /* head */
    source(cr, fur, mask_mode);
    cairo_fill(cr);
    cairo_move_to(cr, 19.5, -34); /* beak */
    cairo_line_to(cr, 30, -30);
    cairo_line_to(cr, 19.5, -27.5);
    cairo_close_path(cr);
    source(cr, orange, mask_mode);
    cairo_fill(cr);
    if (!mask_mode) {
        ellipse(cr, 16, -32.5, 1.5, 1.5, 0);
        cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
        cairo_fill(cr);
    }
    cairo_restore(cr);
}

static void draw_pine(cairo_t *cr, double x, double base, double h)
{
    Rgb green = {0.13, 0.30, 0.20};
    cairo_set_source_rgb(cr, 0.30, 0.22, 0.15);
    cairo_rectangle(cr, x - 1.2, base - h * 0.15, 2.4, h * 0.15);
    cairo_fill(cr);
    for (int k = 0; k < 3; k++) {
        double top = base - h + k * h * 0.25, bottom = top + h * 0.45;
        double half = h * (0.18 + 0.08 * k);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x + half, bottom);
        cairo_line_to(cr, x - half, bottom);
        cairo_close_path(cr);
        cairo_set_source_rgb(cr, green.r, green.g, green.b);
        cairo_fill(cr);
        /* snow on each tier */
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x + half * 0.55, top + h * 0.25);
        cairo_line_to(cr, x - half * 0.55, top + h * 0.25);
        cairo_close_path(cr);
        cairo_set_source_rgb(cr, 0.96, 0.97, 1.0);
        cairo_fill(cr);
    }
}

static void draw_leafy(cairo_t *cr, SimRng *rng, double x, double base,
                       double h)
{
    cairo_set_source_rgb(cr, 0.40, 0.27, 0.15);
    cairo_rectangle(cr, x - 1.5, base - h * 0.45, 3, h * 0.45);
    cairo_fill(cr);
    Rgb crown = jitter(rng, (Rgb){0.20, 0.50, 0.20}, 0.05);
    ellipse(cr, x, base - h * 0.65, h * 0.32, h * 0.35, 0);
    cairo_set_source_rgb(cr, crown.r, crown.g, crown.b);
    cairo_fill(cr);
}

static void draw_background(cairo_t *cr, SimRng *rng, int background,
                            double horizon, const Pose *pose)
{
    const double S = SCENE_PX;
    cairo_pattern_t *sky = cairo_pattern_create_linear(0, 0, 0, horizon);
    if (background == SCENE_SNOW) {
        Rgb top = jitter(rng, (Rgb){0.70, 0.75, 0.82}, 0.03);
        cairo_pattern_add_color_stop_rgb(sky, 0, top.r, top.g, top.b);
        cairo_pattern_add_color_stop_rgb(sky, 1, 0.88, 0.90, 0.94);
    } else {
        Rgb top = jitter(rng, (Rgb){0.35, 0.60, 0.92}, 0.03);
        cairo_pattern_add_color_stop_rgb(sky, 0, top.r, top.g, top.b);
        cairo_pattern_add_color_stop_rgb(sky, 1, 0.72, 0.85, 0.98);
    }
    cairo_rectangle(cr, 0, 0, S, horizon + 1);
    cairo_set_source(cr, sky);
    cairo_fill(cr);
    cairo_pattern_destroy(sky);

    if (background == SCENE_GRASS && sim_rng_uniform(rng) < 0.7) {
        double sx = uni(rng, 12, S - 12), sy = uni(rng, 10, horizon * 0.5);
        ellipse(cr, sx, sy, 7, 7, 0);
        cairo_set_source_rgb(cr, 1.0, 0.88, 0.35);
        cairo_fill(cr);
    }

    /* a row of trees on the horizon */
    int n_trees = 2 + (int)sim_rng_below(rng, 4);
    for (int t = 0; t < n_trees; t++) {
        double x = uni(rng, 0, S), h = uni(rng, 18, 30);
        if (background == SCENE_SNOW) {
            draw_pine(cr, x, horizon + 2, h);
        } else {
            draw_leafy(cr, rng, x, horizon + 2, h);
        }
    }

    /* ground */
    Rgb ground = background == SCENE_SNOW
                     ? jitter(rng, (Rgb){0.94, 0.95, 0.98}, 0.02)
                     : jitter(rng, (Rgb){0.36, 0.64, 0.26}, 0.04);
    cairo_rectangle(cr, 0, horizon, S, S - horizon);
    cairo_set_source_rgb(cr, ground.r, ground.g, ground.b);
    cairo_fill(cr);

    int n_marks = background == SCENE_SNOW ? 55 : 40;
    for (int k = 0; k < n_marks; k++) {
        double x = uni(rng, 0, S), y = uni(rng, horizon + 3, S);
        if (background == SCENE_SNOW) {
            /* blue-grey shadow lines of drifts */
            double half = uni(rng, 4, 8);
            cairo_set_line_width(cr, 1.2);
            cairo_move_to(cr, x - half, y);
            cairo_curve_to(cr, x - half / 2, y + 2.5, x + half / 2, y + 2.5,
                           x + half, y);
            cairo_set_source_rgb(cr, 0.60, 0.70, 0.86);
            cairo_stroke(cr);
        } else {
            /* grass tufts */
            cairo_set_line_width(cr, 1.0);
            cairo_move_to(cr, x - 2, y);
            cairo_line_to(cr, x - 1, y - 4);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + 0.5, y - 5);
            cairo_move_to(cr, x + 2, y);
            cairo_line_to(cr, x + 2.5, y - 4);
            cairo_set_source_rgb(cr, 0.22, 0.46, 0.16);
            cairo_stroke(cr);
        }
    }
    if (background == SCENE_GRASS) {
        int n_flowers = (int)sim_rng_below(rng, 7);
        for (int k = 0; k < n_flowers; k++) {
            double x = uni(rng, 0, S), y = uni(rng, horizon + 5, S - 2);
            ellipse(cr, x, y, 1.4, 1.4, 0);
            if (sim_rng_uniform(rng) < 0.5) {
                cairo_set_source_rgb(cr, 1.0, 0.95, 0.4);
            } else {
                cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
            }
            cairo_fill(cr);
        }
    }

    /* the animal's shadow belongs to the ground */
    ellipse(cr, pose->x, pose->y, 17 * pose->scale, 3 * pose->scale, 0);
    cairo_set_source_rgba(cr, 0.1, 0.15, 0.1,
                          background == SCENE_SNOW ? 0.18 : 0.25);
    cairo_fill(cr);

    if (background == SCENE_SNOW) {
        int n_flakes = 10 + (int)sim_rng_below(rng, 20);
        for (int k = 0; k < n_flakes; k++) {
            ellipse(cr, uni(rng, 0, S), uni(rng, 0, horizon), 1.1, 1.1, 0);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_fill(cr);
        }
    }
}

int scene_render(const SceneSpec *spec, Scene *out, SimError *err)
{
    memset(out, 0, sizeof *out);
    out->spec = *spec;
    SimRng rng;
    sim_rng_seed(&rng, spec->seed);

    double horizon = uni(&rng, 40, 58);
    Pose pose;
    pose.scale = uni(&rng, 1.2, 1.5);
    pose.y = uni(&rng, horizon + 35 * pose.scale * 0.9, SCENE_PX - 6);
    pose.x = uni(&rng, 36, SCENE_PX - 36);
    pose.facing = sim_rng_uniform(&rng) < 0.5 ? -1.0 : 1.0;
    pose.fur = jitter(&rng, PALETTE[sim_rng_below(&rng, N_PALETTE)], 0.04);

    cairo_surface_t *img =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, SCENE_PX, SCENE_PX);
    cairo_surface_t *msk =
        cairo_image_surface_create(CAIRO_FORMAT_A8, SCENE_PX, SCENE_PX);
    cairo_t *cr = cairo_create(img);
    cairo_t *cm = cairo_create(msk);
    int rc = SIM_OK;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS ||
        cairo_status(cm) != CAIRO_STATUS_SUCCESS) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "scene %llu: cairo: out of memory",
                      (unsigned long long)spec->seed);
        goto cleanup;
    }
    draw_background(cr, &rng, spec->background, horizon, &pose);
    if (spec->animal == SCENE_RABBIT) {
        draw_rabbit(cr, &pose, 0);
        draw_rabbit(cm, &pose, 1);
    } else {
        draw_bird(cr, &pose, 0);
        draw_bird(cm, &pose, 1);
    }
    cairo_surface_flush(img);
    cairo_surface_flush(msk);

    out->rgb = sim_malloc((size_t)SCENE_PX * SCENE_PX * 3);
    out->mask = sim_malloc((size_t)SCENE_PX * SCENE_PX * sizeof(float));
    if (!out->rgb || !out->mask) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "scene: out of memory");
        goto cleanup;
    }
    const unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    const unsigned char *mdata = cairo_image_surface_get_data(msk);
    int mstride = cairo_image_surface_get_stride(msk);
    for (int y = 0; y < SCENE_PX; y++) {
        for (int x = 0; x < SCENE_PX; x++) {
            uint32_t px;
            memcpy(&px, data + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
            unsigned char *o = out->rgb + 3 * ((size_t)y * SCENE_PX + x);
            o[0] = (unsigned char)((px >> 16) & 0xff);
            o[1] = (unsigned char)((px >> 8) & 0xff);
            o[2] = (unsigned char)(px & 0xff);
            out->mask[y * SCENE_PX + x] =
                (float)mdata[(size_t)y * (size_t)mstride + (size_t)x] / 255.0f;
        }
    }
cleanup:
    cairo_destroy(cr);
    cairo_destroy(cm);
    cairo_surface_destroy(img);
    cairo_surface_destroy(msk);
    if (rc != SIM_OK) {
        scene_free(out);
    }
    return rc;
}

void scene_free(Scene *scene)
{
    if (scene) {
        sim_free(scene->rgb);
        sim_free(scene->mask);
        scene->rgb = NULL;
        scene->mask = NULL;
    }
}

int scene_write_rgb_png(const unsigned char *rgb, int w, int h,
                        const char *path, SimError *err)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return sim_fail(err, SIM_ERR_NOMEM, "%s: cairo: out of memory", path);
    }
    cairo_surface_flush(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const unsigned char *p = rgb + 3 * ((size_t)y * (size_t)w + x);
            uint32_t px = 0xff000000u | ((uint32_t)p[0] << 16) |
                          ((uint32_t)p[1] << 8) | p[2];
            memcpy(data + (size_t)y * (size_t)stride + 4 * (size_t)x, &px, 4);
        }
    }
    cairo_surface_mark_dirty(s);
    cairo_status_t st = cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot write PNG: %s", path,
                        cairo_status_to_string(st));
    }
    return SIM_OK;
}

int scene_read_png(const char *path, unsigned char **rgb, int *w, int *h,
                   SimError *err)
{
    *rgb = NULL;
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_status_t st = cairo_surface_status(s);
        cairo_surface_destroy(s);
        return sim_fail(err, SIM_ERR_IO, "%s: cannot read PNG: %s", path,
                        cairo_status_to_string(st));
    }
    cairo_surface_flush(s);
    *w = cairo_image_surface_get_width(s);
    *h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    unsigned char *out = sim_malloc((size_t)*w * (size_t)*h * 3);
    if (!out) {
        cairo_surface_destroy(s);
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    for (int y = 0; y < *h; y++) {
        for (int x = 0; x < *w; x++) {
            uint32_t px;
            memcpy(&px, data + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
            unsigned char *o = out + 3 * ((size_t)y * (size_t)*w + x);
            o[0] = (unsigned char)((px >> 16) & 0xff);
            o[1] = (unsigned char)((px >> 8) & 0xff);
            o[2] = (unsigned char)(px & 0xff);
        }
    }
    cairo_surface_destroy(s);
    *rgb = out;
    return SIM_OK;
}

int scene_write_png(const Scene *scene, const char *path, SimError *err)
{
    return scene_write_rgb_png(scene->rgb, SCENE_PX, SCENE_PX, path, err);
}

void scene_input(const Scene *scene, float *x)
{
    const int f = SCENE_PX / SCENE_IN;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < SCENE_IN; i++) {
            for (int j = 0; j < SCENE_IN; j++) {
                int sum = 0;
                for (int di = 0; di < f; di++) {
                    for (int dj = 0; dj < f; dj++) {
                        size_t y = (size_t)(i * f + di),
                               xx = (size_t)(j * f + dj);
                        sum += scene->rgb[3 * (y * SCENE_PX + xx) + (size_t)c];
                    }
                }
                x[(c * SCENE_IN + i) * SCENE_IN + j] =
                    (float)sum / (float)(255 * f * f);
            }
        }
    }
}

void scene_mask(const Scene *scene, int side, float *mask)
{
    const int f = SCENE_PX / side;
    for (int i = 0; i < side; i++) {
        for (int j = 0; j < side; j++) {
            float sum = 0;
            for (int di = 0; di < f; di++) {
                for (int dj = 0; dj < f; dj++) {
                    sum += scene->mask[(i * f + di) * SCENE_PX + j * f + dj];
                }
            }
            mask[i * side + j] = sum / (float)(f * f);
        }
    }
}
