/*
** Internal to the plots of simlab_analysis (plot.c, plot_primary.c,
** plot_metrics.c, plot_verify.c): the
** renderer that writes PNG, SVG and PDF of one drawing, and the drawing
** helpers of the report's style. cairo only.
*/
#ifndef SIMLAB_ANALYSIS_PLOT_INT_H
#define SIMLAB_ANALYSIS_PLOT_INT_H

#include <cairo.h>

#include "analysis/report.h"

#define PLOT_FONT "DejaVu Sans"

/* Draws data on a w x h point canvas. */
typedef void (*PlotDrawFn)(cairo_t *cr, const void *data, double w, double h);

/* Writes dir/stem.{png,svg,pdf} (PLOT_* bits of kinds) of fn's drawing of
** data, w x h points (the PNG at 300 dpi). SIM_ERR_IO names the file cairo
** could not write. */
int plot_render(const char *dir, const char *stem, unsigned kinds,
                PlotDrawFn fn, const void *data, double w, double h,
                SimError *err);

/* Text s at (x, y): align_x 0 left, 0.5 centred, 1 right; align_y 0 top. */
void plot_text_at(cairo_t *cr, double x, double y, const char *s,
                  double align_x, double align_y);

/* A "nice" tick step (1, 2, 5 times a power of 10) for about target ticks
** over span. */
double plot_tick_step(double span, int target);

/* The x axis of a forest plot: drawn values lo to hi (log: of the log of
** the values, labelled with the values) across [left, right], grey grid
** lines every step from top to bottom with their labels (plus: a sign),
** the title under them and a dashed line at ref (a drawn value). */
typedef struct PlotXAxis {
    double lo, hi, step;
    double left, right, top, bottom;
    double ref;
    int log, plus;
    const char *title;
    int no_ref; /* 1: no line at ref */
} PlotXAxis;

/* The drawn position of drawn value v. */
double plot_x(const PlotXAxis *a, double v);
void plot_x_axis(cairo_t *cr, const PlotXAxis *a);

/* Sets colour k of the report's palette (Okabe-Ito: 0 blue, 1 orange). */
void plot_colour(cairo_t *cr, int k);

/* The primary test's forest plot, primary_forest.* (plot_primary.c); none
** for a test without contrasts to draw (the ANOVA's F). */
int plot_primary(const Report *r, const char *dir, unsigned kinds,
                 SimError *err);

/* Per metric, the methods' human effect against the metric value,
** metrics_vs_human.* (plot_metrics.c); none without metrics. */
int plot_metrics(const Report *r, const char *dir, unsigned kinds,
                 SimError *err);

/* error_detection.*, team.* and distinction.* (plot_verify.c), each when
** its table has rows. */
int plot_verify(const Report *r, const char *dir, unsigned kinds,
                SimError *err);

#endif
