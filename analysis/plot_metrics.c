/*
** metrics_vs_human.{png,svg,pdf}: per metric a panel of the methods'
** human effect (with its 95 % interval; Utility in a panel of its own where
** the report has it) against the metric value, each
** point labelled with its method, Kendall's tau_b in the panel's title;
** read off the metrics_methods and metrics_vs_human tables. cairo only;
** no statistics.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/plot_int.h"

#define TWO_PI   6.283185307179586
#define PANEL_PT 150.0

/* The text of column name in row i ("" when none). */
static const char *cell_text(const Table *t, int i, const char *name)
{
    int c = table_column(t, name);
    const char *s = c >= 0 ? table_cell(t, i, c)->text : NULL;
    return s ? s : "";
}

/* The rows of metrics_methods of metric name against human effect human
** ("primary", "utility"): [first, end). */
static void metric_rows(const Table *pt, const char *name, const char *human,
                        int *first, int *end)
{
    *first = *end = -1;
    for (int i = 0; i < pt->n_rows; i++) {
        if (strcmp(table_cell(pt, i, 0)->text, name) == 0 &&
            strcmp(cell_text(pt, i, "human"), human) == 0) {
            if (*first < 0) {
                *first = i;
            }
            *end = i + 1;
        }
    }
}

/* The range of x[first..end) (and of the intervals' ends) with a margin. */
static void range_of(const Table *pt, int first, int end, int col, int ci,
                     double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = first; i < end; i++) {
        double v[3] = {table_cell(pt, i, col)->x,
                       ci >= 0 ? table_cell(pt, i, ci)->x : (double)NAN,
                       ci >= 0 ? table_cell(pt, i, ci)->y : (double)NAN};
        for (int k = 0; k < 3; k++) {
            if (isfinite(v[k])) {
                *lo = fmin(*lo, v[k]);
                *hi = fmax(*hi, v[k]);
            }
        }
    }
    if (!(*hi > *lo)) {
        *lo = isfinite(*lo) ? *lo - 1 : 0;
        *hi = *lo + 2;
    }
    double m = 0.08 * (*hi - *lo);
    *lo -= m;
    *hi += m;
}

static void draw_panel(cairo_t *cr, const Report *r, const Table *pt, int row,
                       double y0, double w)
{
    const Table *t = report_table(r, "metrics_vs_human");
    const char *name = table_cell(t, row, 0)->text;
    const char *human = cell_text(t, row, "human");
    int utility = strcmp(human, "utility") == 0;
    int first, end;
    metric_rows(pt, name, human, &first, &end);
    double left = 40, right = w - 10, top = y0 + 16,
           bottom = y0 + PANEL_PT - 26;
    double xlo, xhi, ylo, yhi;
    range_of(pt, first, end, 2, -1, &xlo, &xhi);
    range_of(pt, first, end, 3, 4, &ylo, &yhi);
    double ref = utility ? 1 : 0; /* no effect */
    ylo = fmin(ylo, ref);
    yhi = fmax(yhi, ref);
#define PX(v) (left + ((v)-xlo) / (xhi - xlo) * (right - left))
#define PY(v) (bottom - ((v)-ylo) / (yhi - ylo) * (bottom - top))
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    char title[200];
    double tau = table_cell(t, row, 4)->x;
    const TableCell *ci = table_cell(t, row, 5);
    if (isfinite(tau) && isfinite(ci->x)) {
        snprintf(title, sizeof title, "%.40s%s tau %+.2f [%+.2f, %+.2f]", name,
                 utility ? " vs Utility:" : ": Kendall", tau, ci->x, ci->y);
    } else if (isfinite(tau)) {
        snprintf(title, sizeof title, "%.40s%s tau %+.2f", name,
                 utility ? " vs Utility:" : ": Kendall", tau);
    } else {
        snprintf(title, sizeof title, "%.40s%s", name,
                 utility ? " vs Utility" : "");
    }
    plot_text_at(cr, (left + right) / 2, y0 + 2, title, 0.5, 0);
    cairo_set_font_size(cr, 6.5);
    cairo_set_line_width(cr, 0.5);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    double ys = plot_tick_step(yhi - ylo, 4), xs = plot_tick_step(xhi - xlo, 5);
    for (double v = ceil(ylo / ys) * ys; v <= yhi; v += ys) {
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, left, PY(v));
        cairo_line_to(cr, right, PY(v));
        cairo_stroke(cr);
        char lab[32];
        snprintf(lab, sizeof lab, "%.4g", fabs(v) < 1e-12 ? 0 : v);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text_at(cr, left - 3, PY(v) - 3, lab, 1, 0);
    }
    for (double v = ceil(xlo / xs) * xs; v <= xhi; v += xs) {
        char lab[32];
        snprintf(lab, sizeof lab, "%.4g", fabs(v) < 1e-12 ? 0 : v);
        plot_text_at(cr, PX(v), bottom + 2, lab, 0.5, 0);
    }
    plot_text_at(cr, (left + right) / 2, bottom + 11, "metric value", 0.5, 0);
    cairo_save(cr);
    cairo_translate(cr, 8, (top + bottom) / 2);
    cairo_rotate(cr, -TWO_PI / 4);
    plot_text_at(cr, 0, -3,
                 utility ? "Utility"
                 : r->primary.test == SIM_PRIMARY_GLMM
                     ? "human effect (log odds ratio)"
                     : "human effect",
                 0.5, 0);
    cairo_restore(cr);
    double dash[1] = {2.0};
    cairo_set_dash(cr, dash, 1, 0);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    cairo_move_to(cr, left, PY(ref));
    cairo_line_to(cr, right, PY(ref));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    for (int i = first; i >= 0 && i < end; i++) {
        double x = table_cell(pt, i, 2)->x, y = table_cell(pt, i, 3)->x;
        const TableCell *e = table_cell(pt, i, 4);
        if (!isfinite(x) || !isfinite(y)) {
            continue;
        }
        plot_colour(cr, 0);
        if (isfinite(e->x) && isfinite(e->y)) {
            cairo_set_line_width(cr, 1.0);
            cairo_move_to(cr, PX(x), PY(e->x));
            cairo_line_to(cr, PX(x), PY(e->y));
            cairo_stroke(cr);
        }
        cairo_arc(cr, PX(x), PY(y), 2.2, 0, TWO_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char lab[40];
        snprintf(lab, sizeof lab, "%.20s", table_cell(pt, i, 1)->text);
        int right_half = PX(x) > (left + right) / 2;
        plot_text_at(cr, PX(x) + (right_half ? -4 : 4), PY(y) - 9, lab,
                     right_half ? 1 : 0, 0);
    }
#undef PX
#undef PY
}

static void draw_metrics(cairo_t *cr, const void *data, double w, double h)
{
    const Report *r = data;
    (void)h;
    const Table *t = report_table(r, "metrics_vs_human");
    const Table *pt = report_table(r, "metrics_methods");
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    double y = 4;
    for (int i = 0; i < t->n_rows; i++) {
        if (strcmp(table_cell(t, i, 1)->text, "method") == 0) {
            draw_panel(cr, r, pt, i, y, w);
            y += PANEL_PT;
        }
    }
}

int plot_metrics(const Report *r, const char *dir, unsigned kinds,
                 SimError *err)
{
    const Table *t = report_table(r, "metrics_vs_human");
    const Table *pt = report_table(r, "metrics_methods");
    int panels = 0;
    for (int i = 0; t && pt && i < t->n_rows; i++) {
        panels += strcmp(table_cell(t, i, 1)->text, "method") == 0;
    }
    if (panels == 0 || pt->n_rows == 0) {
        return SIM_OK;
    }
    return plot_render(dir, "metrics_vs_human", kinds, draw_metrics, r,
                       PLOT_WIDTH_PT, 8 + PANEL_PT * panels, err);
}
