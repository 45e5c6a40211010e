/*
** primary_forest.{png,svg,pdf}: the primary test's contrasts, one row per
** condition with its estimate and 95 % interval, rejected ones in orange;
** an odds-ratio axis on a log scale for the mixed model (the line at 1),
** percentage points (the line at 0) or a ratio (the line at 1) otherwise.
** cairo only; no statistics.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/plot_int.h"

#define TWO_PI 6.283185307179586

/* The axis of a scale: log (odds ratios) and the reference line. */
typedef struct Axis {
    int log;
    double ref;
    const char *title;
} Axis;

static void axis_of(const char *scale, Axis *a)
{
    a->log = scale && strcmp(scale, "odds ratio") == 0;
    a->ref = scale && strcmp(scale, "points") == 0 ? 0 : 1;
    a->title = a->log        ? "odds ratio (log scale), 95 % Wald CI"
               : a->ref == 0 ? "percentage points, 95 % CI"
                             : "ratio, 95 % CI";
}

static int rejected(const PrimaryRow *x)
{
    return x->decision && strstr(x->decision, "reject") != NULL;
}

/* The drawn position of v on the axis. */
static double axis_value(const Axis *a, double v)
{
    return a->log ? (v > 0 ? log(v) : NAN) : v;
}

static void draw_primary(cairo_t *cr, const void *data, double w, double h)
{
    const Report *r = data;
    const PrimaryResult *p = &r->primary;
    Axis ax;
    axis_of(p->scale, &ax);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 7.0);
    double lo = axis_value(&ax, ax.ref), hi = lo, label_w = 40;
    for (int i = 0; i < p->n_rows; i++) {
        const PrimaryRow *x = &p->rows[i];
        double v[3] = {x->estimate, x->ci_low, x->ci_high};
        for (int k = 0; k < 3; k++) {
            double t = axis_value(&ax, v[k]);
            if (isfinite(t)) {
                lo = fmin(lo, t);
                hi = fmax(hi, t);
            }
        }
        char lab[64];
        cairo_text_extents_t e;
        snprintf(lab, sizeof lab, "%.24s", x->condition);
        cairo_text_extents(cr, lab, &e);
        label_w = fmax(label_w, 8 + e.x_advance + 6);
    }
    label_w = fmin(label_w, 0.45 * w);
    double left = label_w, right = w - 10, top = 20, bottom = h - 40;
    double step = ax.log ? log(2)
                         : plot_tick_step(hi - lo > 0 ? hi - lo : 1,
                                          (int)((right - left) / 32));
    if (ax.log && hi - lo > 6 * log(2)) {
        step = log(4);
    }
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    if (hi <= lo) {
        hi = lo + step;
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    char title[160];
    const char *ref =
        p->test == SIM_PRIMARY_GLMM && r->glmm.fitted ? r->glmm.baseline
        : p->test == SIM_PRIMARY_GLMM_ERROR_DETECTION && r->verify_glmm.fitted
            ? r->verify_glmm.baseline
            : r->baseline;
    if (ref && p->test != SIM_PRIMARY_CHANGE_BOOTSTRAP) {
        snprintf(title, sizeof title, "Primary test: %s, against '%.40s'",
                 sim_primary_name(p->test), ref);
    } else {
        snprintf(title, sizeof title, "Primary test: %s",
                 sim_primary_name(p->test));
    }
    plot_text_at(cr, (left + right) / 2, 5, title, 0.5, 0);
    PlotXAxis xa = {lo,     hi,          step,     left,
                    right,  top,         bottom,   axis_value(&ax, ax.ref),
                    ax.log, ax.ref == 0, ax.title, 0};
    plot_x_axis(cr, &xa);
#define XPOS(v) plot_x(&xa, (v))
    double y = top + 4;
    for (int i = 0; i < p->n_rows; i++, y += 12) {
        const PrimaryRow *x = &p->rows[i];
        double yc = y + 3.5;
        char lab[64];
        snprintf(lab, sizeof lab, "%.24s", x->condition);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, 6, y, lab, 0, 0);
        plot_colour(cr, rejected(x) ? 1 : 0);
        double a = axis_value(&ax, x->ci_low), b = axis_value(&ax, x->ci_high);
        if (isfinite(a) && isfinite(b)) {
            cairo_set_line_width(cr, 1.2);
            cairo_move_to(cr, XPOS(a), yc);
            cairo_line_to(cr, XPOS(b), yc);
            cairo_stroke(cr);
            for (int e = 0; e < 2; e++) {
                cairo_move_to(cr, XPOS(e ? b : a), yc - 2.5);
                cairo_line_to(cr, XPOS(e ? b : a), yc + 2.5);
                cairo_stroke(cr);
            }
        }
        double m = axis_value(&ax, x->estimate);
        if (isfinite(m)) {
            cairo_arc(cr, XPOS(m), yc, 2.2, 0, TWO_PI);
            cairo_fill(cr);
        }
    }
#undef XPOS
    double ly = bottom + 27;
    const char *names[2] = {"retained", "rejected"};
    for (int k = 0; k < 2; k++) {
        double lx = left + k * 70;
        plot_colour(cr, k);
        cairo_arc(cr, lx + 2, ly + 3.5, 2.2, 0, TWO_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, lx + 7, ly, names[k], 0, 0);
    }
}

int plot_primary(const Report *r, const char *dir, unsigned kinds,
                 SimError *err)
{
    const PrimaryResult *p = &r->primary;
    int drawn = 0;
    for (int i = 0; i < p->n_rows; i++) {
        drawn += isfinite(p->rows[i].estimate) && isfinite(p->rows[i].ci_low);
    }
    if (p->test < 0 || drawn == 0) {
        return SIM_OK; /* the ANOVA's F test has no interval to draw */
    }
    return plot_render(dir, "primary_forest", kinds, draw_primary, r,
                       PLOT_WIDTH_PT, 30.0 + 12.0 * p->n_rows + 44.0, err);
}
