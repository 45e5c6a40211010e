/*
** Plots with cairo: a forest plot of Change with 95 % CIs per subset and
** condition, curves with interval bars (plot.h: the Utility-K curves with
** the line Utility-K = 1, simlab power's power curves), and the item map
** of the item analysis (accuracy against item-rest r).
** Sized for a paper column (3.4 in wide); PNG at 300 dpi, SVG and PDF as
** vectors. No statistics here.
*/
#include "analysis/plot.h"
#include "analysis/plot_int.h"
#include "analysis/report.h"
#include "common/sim_alloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#define TWO_PI   6.283185307179586
#define PT_WIDTH PLOT_WIDTH_PT
#define FONT     PLOT_FONT

/* Okabe-Ito colours, readable by colour-blind readers (their yellow is
** replaced by grey, which stays visible on white). */
static const double palette[8][3] = {
    {0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451},
    {0.800, 0.475, 0.655}, {0.337, 0.706, 0.914}, {0.902, 0.624, 0.000},
    {0.45, 0.45, 0.45},    {0.0, 0.0, 0.0}};

void plot_text_at(cairo_t *cr, double x, double y, const char *s,
                  double align_x, double align_y)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.x_advance * align_x - e.x_bearing * 0,
                  y - e.y_bearing - e.height * align_y);
    cairo_show_text(cr, s);
}

double plot_x(const PlotXAxis *a, double v)
{
    return a->left + (v - a->lo) / (a->hi - a->lo) * (a->right - a->left);
}

void plot_x_axis(cairo_t *cr, const PlotXAxis *a)
{
    cairo_set_font_size(cr, 7.0);
    cairo_set_line_width(cr, 0.4);
    for (double t = a->lo; t <= a->hi + a->step / 2; t += a->step) {
        double x = plot_x(a, t), v = a->log ? exp(t) : t;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x, a->top);
        cairo_line_to(cr, x, a->bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char lab[32];
        if (fabs(v) < 1e-9) {
            snprintf(lab, sizeof lab, "0");
        } else if (a->plus) {
            snprintf(lab, sizeof lab, "%+g", v);
        } else {
            snprintf(lab, sizeof lab, "%g",
                     fabs(v - round(v)) < 1e-9 ? round(v) : v);
        }
        plot_text_at(cr, x, a->bottom + 3, lab, 0.5, 0);
    }
    plot_text_at(cr, (a->left + a->right) / 2, a->bottom + 14, a->title, 0.5,
                 0);
    if (a->no_ref) {
        return;
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 0.8);
    double dash[1] = {2.0};
    cairo_set_dash(cr, dash, 1, 0);
    cairo_move_to(cr, plot_x(a, a->ref), a->top);
    cairo_line_to(cr, plot_x(a, a->ref), a->bottom);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

void plot_colour(cairo_t *cr, int k)
{
    const double *c = palette[k & 7];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

/* A "nice" tick step for a span. */
double plot_tick_step(double span, int target)
{
    double raw = span / target;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    return nice * mag;
}

/* Subsets drawn in the forest plot: those that are not a repeat of an
** earlier one (a study with one domain has "domain=x" equal to "all"). */
static int forest_rows(const Report *r)
{
    int n = 0;
    for (int s = 0; s < r->n_re; s++) {
        if (r->re[s].same_as) {
            continue;
        }
        n++;
        for (int i = 0; i < r->n_change; i++) {
            n += strcmp(r->change[i].subset, r->re[s].subset) == 0;
        }
    }
    return n;
}

static double forest_height(const Report *r)
{
    return 30.0 + 12.0 * forest_rows(r) + 40.0;
}

static void draw_forest(cairo_t *cr, const void *data, double w, double h)
{
    const Report *r = data;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 7.0);
    /* x range over every CI and estimate, always including 0 */
    double lo = 0, hi = 0;
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        double v[3] = {c->change, c->ci_low, c->ci_high};
        for (int k = 0; k < 3; k++) {
            if (isfinite(v[k])) {
                lo = fmin(lo, 100 * v[k]);
                hi = fmax(hi, 100 * v[k]);
            }
        }
    }
    /* the label column is as wide as the longest label */
    double label_w = 40;
    for (int i = 0; i < r->n_change; i++) {
        cairo_text_extents_t e;
        char lab[96];
        snprintf(lab, sizeof lab, "%.22s", r->change[i].condition);
        cairo_text_extents(cr, lab, &e);
        label_w = fmax(label_w, 10 + e.x_advance + 6);
    }
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_BOLD);
    for (int s = 0; s < r->n_re; s++) {
        cairo_text_extents_t e;
        cairo_text_extents(cr, r->re[s].subset, &e);
        label_w = fmax(label_w, 4 + e.x_advance + 6);
    }
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    label_w = fmin(label_w, 0.45 * w);
    double left = label_w, right = w - 8, top = 18, bottom = h - 40;
    /* about one tick label per 32 points */
    int ticks = (int)((right - left) / 32);
    double step =
        plot_tick_step(hi - lo > 0 ? hi - lo : 10, ticks > 2 ? ticks : 2);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    if (hi <= lo) {
        hi = lo + step;
    }
#define XPOS(v) (left + ((v)-lo) / (hi - lo) * (right - left))
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    plot_text_at(cr, (left + right) / 2, 4,
                 "Change in accuracy (Post - Pre RE)", 0.5, 0);
    PlotXAxis axis = {lo,
                      hi,
                      step,
                      left,
                      right,
                      top,
                      bottom,
                      0.0,
                      0,
                      1,
                      "percentage points, 95 % "
                      "bootstrap CI",
                      0};
    plot_x_axis(cr, &axis);
    double y = top + 4;
    for (int s = 0; s < r->n_re; s++) {
        if (r->re[s].same_as) {
            continue;
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_BOLD);
        plot_text_at(cr, 4, y, r->re[s].subset, 0, 0);
        cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_NORMAL);
        y += 12;
        for (int i = 0; i < r->n_change; i++) {
            const ChangeRow *c = &r->change[i];
            if (strcmp(c->subset, r->re[s].subset) != 0) {
                continue;
            }
            double yc = y + 3.5;
            cairo_set_source_rgb(cr, 0, 0, 0);
            char lab[96];
            snprintf(lab, sizeof lab, "%.22s", c->condition);
            plot_text_at(cr, 10, y, lab, 0, 0);
            int sig = isfinite(c->p) && c->p < 0.05;
            const double *col = palette[sig ? 1 : 0];
            cairo_set_source_rgb(cr, col[0], col[1], col[2]);
            if (isfinite(c->ci_low)) {
                cairo_set_line_width(cr, 1.2);
                cairo_move_to(cr, XPOS(100 * c->ci_low), yc);
                cairo_line_to(cr, XPOS(100 * c->ci_high), yc);
                cairo_stroke(cr);
                for (int e = 0; e < 2; e++) {
                    double xv = XPOS(100 * (e ? c->ci_high : c->ci_low));
                    cairo_move_to(cr, xv, yc - 2.5);
                    cairo_line_to(cr, xv, yc + 2.5);
                    cairo_stroke(cr);
                }
            }
            if (isfinite(c->change)) {
                cairo_arc(cr, XPOS(100 * c->change), yc, 2.2, 0, TWO_PI);
                cairo_fill(cr);
            }
            y += 12;
        }
    }
#undef XPOS
    /* legend for the colours */
    double ly = bottom + 27;
    for (int k = 0; k < 2; k++) {
        double lx = left + k * 70;
        cairo_set_source_rgb(cr, palette[k][0], palette[k][1], palette[k][2]);
        cairo_arc(cr, lx + 2, ly + 3.5, 2.2, 0, TWO_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, lx + 7, ly, k ? "p < .05" : "p \u2265 .05", 0, 0);
    }
}

double plot_curves_height(const PlotCurves *p)
{
    return 170.0 + 10.0 * ((p->n_lines + 1) / 2);
}

/* Curves with interval bars (PlotCurves), e.g. Utility-K per session. */
static void draw_curves(cairo_t *cr, const void *data, double w, double h)
{
    const PlotCurves *p = data;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    int T = p->n_x, n_lines = p->n_lines;
    double lo = INFINITY, hi = -INFINITY, step = p->y_step;
    for (int k = 0; k < p->n_refs; k++) {
        lo = fmin(lo, p->refs[k]);
        hi = fmax(hi, p->refs[k]);
    }
    for (size_t i = 0; i < (size_t)n_lines * (size_t)T; i++) {
        double v[3] = {p->y[i], p->lo[i], p->hi[i]};
        for (int k = 0; k < 3; k++) {
            if (isfinite(v[k])) {
                lo = fmin(lo, v[k]);
                hi = fmax(hi, v[k]);
            }
        }
    }
    if (p->y_fixed) {
        lo = p->y_min;
        hi = p->y_max;
    } else {
        if (!(lo <= hi)) {
            lo = 0;
            hi = 1;
        }
        step = plot_tick_step(hi - lo > 0 ? hi - lo : 0.5, 5);
        lo = floor(lo / step) * step;
        hi = ceil(hi / step) * step;
    }
    int legend_rows = (n_lines + 1) / 2;
    double left = 38, right = w - 8, top = 18;
    double bottom = h - 26 - 10.0 * legend_rows;
#define XPOS(t)                                                                \
    (T > 1 ? left + 12 + (t) * (right - left - 24) / (T - 1)                   \
           : (left + right) / 2)
#define YPOS(v) (bottom - ((v)-lo) / (hi - lo) * (bottom - top))
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    plot_text_at(cr, (left + right) / 2, 4, p->title, 0.5, 0);
    cairo_set_font_size(cr, 7.0);
    cairo_set_line_width(cr, 0.4);
    for (double v = lo; v <= hi + step / 2; v += step) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, YPOS(v));
        cairo_line_to(cr, right, YPOS(v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char lab[32];
        snprintf(lab, sizeof lab, "%.*f", p->y_decimals, v);
        plot_text_at(cr, left - 3, YPOS(v), lab, 1, 0.5);
    }
    for (int t = 0; t < T; t++) {
        plot_text_at(cr, XPOS(t), bottom + 3, p->x_labels[t], 0.5, 0);
    }
    plot_text_at(cr, (left + right) / 2, bottom + 12, p->x_title, 0.5, 0);
    /* y axis title, rotated */
    cairo_save(cr);
    cairo_translate(cr, 7, (top + bottom) / 2);
    cairo_rotate(cr, -TWO_PI / 4);
    plot_text_at(cr, 0, -4, p->y_title, 0.5, 0);
    cairo_restore(cr);
    /* reference levels */
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 0.8);
    double dash[1] = {3.0};
    cairo_set_dash(cr, dash, 1, 0);
    for (int k = 0; k < p->n_refs; k++) {
        cairo_move_to(cr, left, YPOS(p->refs[k]));
        cairo_line_to(cr, right, YPOS(p->refs[k]));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    for (int line = 0; line < n_lines; line++) {
        const double *y = p->y + (size_t)line * (size_t)T;
        const double *ylo = p->lo + (size_t)line * (size_t)T;
        const double *yhi = p->hi + (size_t)line * (size_t)T;
        const double *col = palette[line % 8];
        /* small horizontal offsets keep overlapping CI bars apart */
        double off = (line - (n_lines - 1) / 2.0) * 3.0;
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_set_line_width(cr, 1.0);
        for (int t = 0; t < T; t++) {
            if (isfinite(ylo[t])) {
                double x = XPOS(t) + off;
                cairo_move_to(cr, x, YPOS(ylo[t]));
                cairo_line_to(cr, x, YPOS(yhi[t]));
                cairo_move_to(cr, x - 1.5, YPOS(ylo[t]));
                cairo_line_to(cr, x + 1.5, YPOS(ylo[t]));
                cairo_move_to(cr, x - 1.5, YPOS(yhi[t]));
                cairo_line_to(cr, x + 1.5, YPOS(yhi[t]));
                cairo_stroke(cr);
            }
        }
        cairo_set_line_width(cr, 1.3);
        int started = 0;
        for (int t = 0; t < T; t++) {
            if (!isfinite(y[t])) {
                started = 0;
                continue;
            }
            if (started) {
                cairo_line_to(cr, XPOS(t) + off, YPOS(y[t]));
            } else {
                cairo_move_to(cr, XPOS(t) + off, YPOS(y[t]));
            }
            started = 1;
        }
        cairo_stroke(cr);
        for (int t = 0; t < T; t++) {
            if (isfinite(y[t])) {
                cairo_arc(cr, XPOS(t) + off, YPOS(y[t]), 1.8, 0, TWO_PI);
                cairo_fill(cr);
            }
        }
        /* legend: two columns under the plot */
        double lx = left + (line % 2) * (right - left) / 2;
        double ly = bottom + 22 + 10.0 * (line / 2);
        cairo_rectangle(cr, lx, ly + 1.5, 8, 3);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, lx + 11, ly, p->legend[line], 0, 0);
    }
#undef XPOS
#undef YPOS
}

/* Items: accuracy (x, %) against item-rest r (y), flagged items coloured,
** dashed lines at the items' chance levels (50 % with two choices, 25 %
** with four options...) and the ceiling (95 %). */
static void draw_items(cairo_t *cr, const void *data, double w, double h)
{
    const Report *r = data;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    double ylo = 0, yhi = 0.5;
    int no_r = 0;
    for (int i = 0; i < r->n_items; i++) {
        double v = r->items[i].item_rest;
        if (isfinite(v)) {
            ylo = fmin(ylo, v);
            yhi = fmax(yhi, v);
        } else {
            no_r++;
        }
    }
    double ystep = plot_tick_step(yhi - ylo, 4);
    ylo = floor(ylo / ystep) * ystep;
    yhi = ceil(yhi / ystep) * ystep;
    double left = 34, right = w - 8, top = 18, bottom = h - 56;
#define XPOS(v) (left + (v) / 100.0 * (right - left))
#define YPOS(v) (bottom - ((v)-ylo) / (yhi - ylo) * (bottom - top))
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    plot_text_at(cr, (left + right) / 2, 4, "Items: accuracy and item-rest r",
                 0.5, 0);
    cairo_set_font_size(cr, 7.0);
    cairo_set_line_width(cr, 0.4);
    for (int t = 0; t <= 100; t += 25) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, XPOS(t), top);
        cairo_line_to(cr, XPOS(t), bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char lab[16];
        snprintf(lab, sizeof lab, "%d", t);
        plot_text_at(cr, XPOS(t), bottom + 3, lab, 0.5, 0);
    }
    for (double v = ylo; v <= yhi + ystep / 2; v += ystep) {
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, YPOS(v));
        cairo_line_to(cr, right, YPOS(v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char lab[16];
        snprintf(lab, sizeof lab, "%.2f", fabs(v) < 1e-9 ? 0.0 : v);
        plot_text_at(cr, left - 3, YPOS(v), lab, 1, 0.5);
    }
    plot_text_at(cr, (left + right) / 2, bottom + 12, "accuracy (%)", 0.5, 0);
    cairo_save(cr);
    cairo_translate(cr, 7, (top + bottom) / 2);
    cairo_rotate(cr, -TWO_PI / 4);
    plot_text_at(cr, 0, -4, "item-rest r", 0.5, 0);
    cairo_restore(cr);
    /* chance and ceiling */
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 0.8);
    double dash[1] = {2.0};
    cairo_set_dash(cr, dash, 1, 0);
    double marks[5] = {95};
    int n_marks = 1;
    for (int i = 0; i < r->n_items && n_marks < 5; i++) {
        double c = 100 * r->items[i].chance;
        int seen = 0;
        for (int k = 0; k < n_marks; k++) {
            seen |= fabs(marks[k] - c) < 0.5;
        }
        if (!seen && isfinite(c)) {
            marks[n_marks++] = c;
        }
    }
    for (int k = 0; k < n_marks; k++) {
        cairo_move_to(cr, XPOS(marks[k]), top);
        cairo_line_to(cr, XPOS(marks[k]), bottom);
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    /* items without r (all answers alike, or fewer than 3 participants)
    ** sit hollow on the lower edge */
    for (int i = 0; i < r->n_items; i++) {
        const ItemRow *it = &r->items[i];
        int k = (it->flags & ITEM_BELOW_CHANCE) ? 1
                : (it->flags & ITEM_FLOOR)      ? 5
                : (it->flags & ITEM_CEILING)    ? 2
                                                : 0;
        cairo_set_source_rgba(cr, palette[k][0], palette[k][1], palette[k][2],
                              0.8);
        int has_r = isfinite(it->item_rest);
        cairo_new_sub_path(cr);
        cairo_arc(cr, XPOS(100 * it->accuracy),
                  has_r ? YPOS(it->item_rest) : bottom, 1.8, 0, TWO_PI);
        if (has_r) {
            cairo_fill(cr);
        } else {
            cairo_set_line_width(cr, 0.7);
            cairo_stroke(cr);
        }
    }
#undef XPOS
#undef YPOS
    static const char *const names[4] = {"no flag", "below chance", "floor",
                                         "ceiling"};
    static const int colours[4] = {0, 1, 5, 2};
    double ly = bottom + 24;
    for (int k = 0; k < 4; k++) {
        double lx = left + (k % 2) * (right - left) / 2;
        double y = ly + 9 * (k / 2);
        const double *col = palette[colours[k]];
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_arc(cr, lx + 2, y + 3.5, 1.8, 0, TWO_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, lx + 6, y, names[k], 0, 0);
    }
    if (no_r > 0) {
        char lab[96];
        snprintf(lab, sizeof lab, "hollow on the axis: %d item%s without r",
                 no_r, no_r == 1 ? "" : "s");
        plot_text_at(cr, left, ly + 18, lab, 0, 0);
    }
}

int plot_render(const char *dir, const char *stem, unsigned kinds,
                PlotDrawFn fn, const void *data, double w, double h,
                SimError *err)
{
    char path[4096];
    const char *ext[3] = {"png", "svg", "pdf"};
    for (int k = 0; k < 3; k++) {
        if (!(kinds & (1u << k))) {
            continue;
        }
        if (snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext[k]) >=
            (int)sizeof path) {
            return sim_fail(err, SIM_ERR_IO, "%s/%s: path too long", dir, stem);
        }
        cairo_surface_t *sf;
        double scale = 1;
        if (k == 0) {
            scale = 300.0 / 72.0;
            sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
                                            (int)ceil(w * scale),
                                            (int)ceil(h * scale));
        } else if (k == 1) {
            sf = cairo_svg_surface_create(path, w, h);
        } else {
            sf = cairo_pdf_surface_create(path, w, h);
        }
        cairo_t *cr = cairo_create(sf);
        cairo_scale(cr, scale, scale);
        fn(cr, data, w, h);
        cairo_status_t st = cairo_status(cr);
        cairo_destroy(cr);
        if (k == 0 && st == CAIRO_STATUS_SUCCESS) {
            st = cairo_surface_write_to_png(sf, path);
        }
        cairo_surface_finish(sf);
        if (st == CAIRO_STATUS_SUCCESS) {
            st = cairo_surface_status(sf);
        }
        cairo_surface_destroy(sf);
        if (st != CAIRO_STATUS_SUCCESS) {
            return sim_fail(err, SIM_ERR_IO, "%s: %s", path,
                            cairo_status_to_string(st));
        }
    }
    return SIM_OK;
}

int plot_write_curves(const char *dir, const char *stem, unsigned kinds,
                      const PlotCurves *p, double w, double h, SimError *err)
{
    return plot_render(dir, stem, kinds, draw_curves, p, w, h, err);
}

/* The Utility-K curves: one line per condition but the baseline, against
** the baseline's level 1. */
static int write_utility(const Report *r, const char *dir, unsigned kinds,
                         SimError *err)
{
    int T = r->n_sessions, L = 0;
    size_t cells = (size_t)r->n_utility * (size_t)T + 1;
    double *y = sim_malloc(3 * cells * sizeof(double));
    char(*xl)[32] = sim_malloc(((size_t)T + 1) * sizeof *xl);
    char(*leg)[96] = sim_malloc(((size_t)r->n_utility + 1) * sizeof *leg);
    const char **xs = sim_malloc(((size_t)T + 1) * sizeof *xs);
    const char **ls = sim_malloc(((size_t)r->n_utility + 1) * sizeof *ls);
    int rc = SIM_OK;
    if (!y || !xl || !leg || !xs || !ls) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int t = 0; t < T; t++) {
        snprintf(xl[t], sizeof xl[t], "%d", r->sessions[t]);
        xs[t] = xl[t];
    }
    for (int i = 0; i < r->n_utility; i++) {
        const UtilityRow *u = &r->utility[i];
        if (u->is_baseline) {
            continue;
        }
        for (int t = 0; t < T; t++) {
            size_t at = (size_t)L * (size_t)T + (size_t)t;
            y[at] = u->utility_k[t];
            y[cells + at] = u->uk_low[t];
            y[2 * cells + at] = u->uk_high[t];
        }
        snprintf(leg[L], sizeof leg[L], "%.18s (%.2f)", u->condition,
                 u->utility);
        ls[L] = leg[L];
        L++;
    }
    static const double one[1] = {1.0};
    PlotCurves p = {.title = "Utility-K per session (vs baseline)",
                    .x_title = "session",
                    .y_title = "Utility-K",
                    .n_x = T,
                    .x_labels = xs,
                    .n_lines = L,
                    .legend = ls,
                    .y = y,
                    .lo = y + cells,
                    .hi = y + 2 * cells,
                    .y_decimals = 2,
                    .refs = one,
                    .n_refs = 1};
    int lines = r->n_utility - 1;
    rc = plot_render(dir, "utility_k", kinds, draw_curves, &p, PLOT_WIDTH_PT,
                     170.0 + 10.0 * ((lines + 1) / 2), err);
done:
    sim_free(y);
    sim_free(xl);
    sim_free(leg);
    sim_free(xs);
    sim_free(ls);
    return rc;
}

int report_write_plots(const Report *r, const char *dir, unsigned kinds,
                       SimError *err)
{
    int rc = SIM_OK;
    if (r->n_change > 0) {
        rc = plot_render(dir, "change_forest", kinds, draw_forest, r, PT_WIDTH,
                         forest_height(r), err);
    }
    if (rc == SIM_OK && r->n_utility > 0 && r->n_sessions > 0) {
        rc = write_utility(r, dir, kinds, err);
    }
    if (rc == SIM_OK && r->n_items > 0) {
        rc = plot_render(dir, "items", kinds, draw_items, r, PT_WIDTH, 210.0,
                         err);
    }
    if (rc == SIM_OK) {
        rc = plot_primary(r, dir, kinds, err);
    }
    if (rc == SIM_OK) {
        rc = plot_metrics(r, dir, kinds, err);
    }
    if (rc == SIM_OK) {
        rc = plot_verify(r, dir, kinds, err);
    }
    return rc;
}

void report_plots_shutdown(void)
{
    cairo_debug_reset_static_data();
    FcFini();
}
