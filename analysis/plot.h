/*
** The plot code of simlab-analyze (plot.c) for other plots of the analysis
** library: curves with interval bars over a few x positions (the Utility-K
** curves, simlab power's power curves), drawn in the report's style and
** written as PNG (300 dpi), SVG and PDF. cairo only; no statistics.
*/
#ifndef SIMLAB_ANALYSIS_PLOT_H
#define SIMLAB_ANALYSIS_PLOT_H

#include "common/sim_error.h"

#define PLOT_WIDTH_PT 245.0 /* a paper column, 3.4 in, in points */

/* Curves over n_x equally spaced positions, one per line, each point with
** an interval bar; dashed reference lines; a legend in two columns under
** the plot. Arrays are borrowed. */
typedef struct PlotCurves {
    const char *title;   /* above the plot */
    const char *x_title; /* under the x labels */
    const char *y_title; /* rotated, left of the y labels */
    int n_x;
    const char *const *x_labels; /* n_x */
    int n_lines;
    const char *const *legend; /* n_lines entries */
    /* n_lines x n_x, line-major: value and interval; NaN: none */
    const double *y, *lo, *hi;
    /* the y range: [y_min, y_max] when y_fixed, else the data's and the
    ** reference lines' range on a nice tick step */
    int y_fixed;
    double y_min, y_max, y_step;
    int y_decimals;     /* decimals of the y labels */
    const double *refs; /* dashed horizontal lines */
    int n_refs;
} PlotCurves;

/* The height in points of a curve plot of width PLOT_WIDTH_PT. */
double plot_curves_height(const PlotCurves *p);

/* Writes dir/stem.{png,svg,pdf} (the PLOT_PNG, PLOT_SVG, PLOT_PDF bits of
** kinds, analysis/report.h) of the curves p, w x h points. Fails with
** SIM_ERR_IO naming the file cairo could not write. */
int plot_write_curves(const char *dir, const char *stem, unsigned kinds,
                      const PlotCurves *p, double w, double h, SimError *err);

#endif
