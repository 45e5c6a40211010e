/*
** The plots of the model's errors, the human-AI team and distinction, read
** off their tables: error_detection.* (accuracy, hit and false-alarm rates,
** d' and, with confidence, AUROC per condition), team.* (team, model alone,
** humans alone; team - model and complementarity) and distinction.*
** (accuracy against the chance line), each estimate with its 95 %
** interval. cairo only; no statistics.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/plot_int.h"

#define TWO_PI     6.283185307179586
#define ROW_PT     11.0 /* a row of one estimate */
#define SUB_PT     4.5  /* between the estimates of one row's band */
#define PANEL_HEAD 13.0 /* a panel's title */
#define AXIS_PT    26.0 /* tick labels and the axis title under a panel */
#define LEGEND_PT  12.0

/* One estimate of a band: value and interval, a palette colour. */
typedef struct Mark {
    double est, lo, hi;
    int colour;
} Mark;

/* A panel: bands of up to 3 marks, one band per row label; a dashed line
** at ref (NaN: none) or, per band, a dashed tick at tick[b] (NaN: none). */
typedef struct Panel {
    const char *title, *axis;
    int n_bands, per_band;
    const char *const *labels; /* n_bands */
    const Mark *marks;         /* n_bands x per_band */
    const double *tick;        /* n_bands, or NULL */
    double ref;
    double lo, hi; /* fixed range when lo < hi, else the data's */
    int percent;   /* values are proportions shown in % */
} Panel;

/* Text s with its baseline at y (labels of one row line up whatever their
** letters). */
static void text_on_baseline(cairo_t *cr, double x, double y, const char *s)
{
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

static double band_pt(const Panel *p)
{
    return ROW_PT + SUB_PT * (p->per_band - 1);
}

static double panel_height(const Panel *p)
{
    return PANEL_HEAD + p->n_bands * band_pt(p) + 4 + AXIS_PT;
}

/* The panel's range on a nice step, the reference line in it. */
static void panel_range(const Panel *p, double scale, int ticks, double *lo,
                        double *hi, double *step)
{
    if (p->lo < p->hi) {
        *lo = p->lo * scale;
        *hi = p->hi * scale;
        *step = plot_tick_step(*hi - *lo, ticks);
        return;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    if (isfinite(p->ref)) {
        *lo = *hi = p->ref * scale;
    }
    for (int k = 0; k < p->n_bands * p->per_band; k++) {
        const Mark *m = &p->marks[k];
        double v[3] = {m->est, m->lo, m->hi};
        for (int j = 0; j < 3; j++) {
            if (isfinite(v[j])) {
                *lo = fmin(*lo, v[j] * scale);
                *hi = fmax(*hi, v[j] * scale);
            }
        }
    }
    if (!(*lo <= *hi)) {
        *lo = 0;
        *hi = 1;
    }
    *step = plot_tick_step(*hi - *lo > 0 ? *hi - *lo : 1, ticks);
    *lo = floor(*lo / *step) * *step;
    *hi = ceil(*hi / *step) * *step;
    if (*hi <= *lo) {
        *hi = *lo + *step;
    }
}

/* Draws panel p from y0 with row labels left of left; returns its
** bottom. */
static double draw_panel(cairo_t *cr, const Panel *p, double y0, double left,
                         double right)
{
    double scale = p->percent ? 100 : 1, lo, hi, step;
    panel_range(p, scale, (int)((right - left) / 32), &lo, &hi, &step);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_select_font_face(cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 7.0);
    plot_text_at(cr, 4, y0 + 1, p->title, 0, 0);
    cairo_select_font_face(cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    double top = y0 + PANEL_HEAD, bottom = top + p->n_bands * band_pt(p) + 4;
    PlotXAxis ax = {lo,    hi,  step,    left,
                    right, top, bottom,  isfinite(p->ref) ? p->ref * scale : lo,
                    0,     0,   p->axis, !isfinite(p->ref)};
    plot_x_axis(cr, &ax);
    double y = top + 2;
    for (int b = 0; b < p->n_bands; b++, y += band_pt(p)) {
        char lab[64];
        snprintf(lab, sizeof lab, "%.28s", p->labels[b]);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_font_size(cr, 7.0);
        text_on_baseline(cr, 6,
                         y + 3.5 + SUB_PT * (p->per_band - 1) / 2.0 + 2.5, lab);
        if (p->tick && isfinite(p->tick[b])) {
            double x = plot_x(&ax, p->tick[b] * scale), dash[1] = {2.0};
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            cairo_set_line_width(cr, 0.9);
            cairo_set_dash(cr, dash, 1, 0);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x, y + band_pt(p) - 2);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        for (int k = 0; k < p->per_band; k++) {
            const Mark *m = &p->marks[b * p->per_band + k];
            double yc = y + 3.5 + k * SUB_PT;
            plot_colour(cr, m->colour);
            if (isfinite(m->lo) && isfinite(m->hi)) {
                double a = plot_x(&ax, m->lo * scale),
                       z = plot_x(&ax, m->hi * scale);
                cairo_set_line_width(cr, 1.0);
                cairo_move_to(cr, a, yc);
                cairo_line_to(cr, z, yc);
                cairo_move_to(cr, a, yc - 1.8);
                cairo_line_to(cr, a, yc + 1.8);
                cairo_move_to(cr, z, yc - 1.8);
                cairo_line_to(cr, z, yc + 1.8);
                cairo_stroke(cr);
            }
            if (isfinite(m->est)) {
                cairo_arc(cr, plot_x(&ax, m->est * scale), yc, 1.9, 0, TWO_PI);
                cairo_fill(cr);
            }
        }
    }
    return bottom + AXIS_PT;
}

/* A legend row of n entries (colour, name) at y, or a dashed line's
** entry (colour < 0). */
static void draw_legend(cairo_t *cr, double left, double right, double y, int n,
                        const int *colour, const char *const *name)
{
    cairo_set_font_size(cr, 6.5);
    double x = left, gap = (right - left) / n;
    for (int k = 0; k < n; k++, x += gap) {
        if (colour[k] < 0) {
            double dash[1] = {2.0};
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            cairo_set_line_width(cr, 0.9);
            cairo_set_dash(cr, dash, 1, 0);
            cairo_move_to(cr, x + 2, y);
            cairo_line_to(cr, x + 2, y + 7);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        } else {
            plot_colour(cr, colour[k]);
            cairo_arc(cr, x + 2, y + 3.5, 1.9, 0, TWO_PI);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_on_baseline(cr, x + 6, y + 5.8, name[k]);
    }
}

/* The width of the row labels: the longest label, within [40, 0.4 w]. */
static double label_width(cairo_t *cr, const char *const *labels, int n,
                          double w)
{
    double lw = 40;
    cairo_select_font_face(cr, PLOT_FONT, CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 7.0);
    for (int i = 0; i < n; i++) {
        char lab[64];
        cairo_text_extents_t e;
        snprintf(lab, sizeof lab, "%.28s", labels[i]);
        cairo_text_extents(cr, lab, &e);
        lw = fmax(lw, 6 + e.x_advance + 8);
    }
    return fmin(lw, 0.4 * w);
}

/* The panels of a figure, its title and legend (drawn in order). */
typedef struct Figure {
    const char *title;
    Panel panel[3];
    int n_panels;
    int n_legend;
    int legend_colour[4];
    const char *legend[4];
} Figure;

static double figure_height(const Figure *f)
{
    double h = 18 + LEGEND_PT + 4;
    for (int k = 0; k < f->n_panels; k++) {
        h += panel_height(&f->panel[k]) + 4;
    }
    return h;
}

static void draw_figure(cairo_t *cr, const void *data, double w, double h)
{
    const Figure *f = data;
    (void)h;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double left = label_width(cr, f->panel[0].labels, f->panel[0].n_bands, w);
    double right = w - 10;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 8.0);
    plot_text_at(cr, w / 2, 4, f->title, 0.5, 0);
    draw_legend(cr, 6, right, 16, f->n_legend, f->legend_colour, f->legend);
    double y = 18 + LEGEND_PT;
    for (int k = 0; k < f->n_panels; k++) {
        y = draw_panel(cr, &f->panel[k], y, left, right) + 4;
    }
}

/* Column name's value (and interval) in row i as a mark. */
static Mark mark_of(const Table *t, int i, const char *name, int colour)
{
    Mark m = {NAN, NAN, NAN, colour};
    char ci[64];
    int c = table_column(t, name);
    snprintf(ci, sizeof ci, "%s_ci", name);
    int k = table_column(t, ci);
    if (c >= 0) {
        m.est = table_cell(t, i, c)->x;
    }
    if (k >= 0) {
        m.lo = table_cell(t, i, k)->x;
        m.hi = table_cell(t, i, k)->y;
    }
    return m;
}

static const char *text_of(const Table *t, int i, const char *name)
{
    int c = table_column(t, name);
    const char *s = c >= 0 ? table_cell(t, i, c)->text : NULL;
    return s ? s : "";
}

/* The most rows a figure draws (one band each). */
#define MAX_BANDS 64

static int render(const char *dir, const char *stem, unsigned kinds,
                  const Figure *f, SimError *err)
{
    return plot_render(dir, stem, kinds, draw_figure, f, PLOT_WIDTH_PT,
                       figure_height(f), err);
}

static int plot_error_detection(const Table *t, const char *dir, unsigned kinds,
                                SimError *err)
{
    int n = t->n_rows < MAX_BANDS ? t->n_rows : MAX_BANDS, with_auc = 0;
    const char *labels[MAX_BANDS];
    Mark rates[MAX_BANDS * 3], dp[MAX_BANDS], auc[MAX_BANDS];
    for (int i = 0; i < n; i++) {
        labels[i] = text_of(t, i, "condition");
        rates[3 * i] = mark_of(t, i, "accuracy", 0);
        rates[3 * i + 1] = mark_of(t, i, "hit_rate", 1);
        rates[3 * i + 2] = mark_of(t, i, "false_alarm_rate", 2);
        dp[i] = mark_of(t, i, "d_prime", 0);
        auc[i] = mark_of(t, i, "auroc", 0);
        with_auc |= isfinite(auc[i].est);
    }
    Figure f = {.title = "Detecting the model's errors",
                .n_panels = 2 + with_auc,
                .n_legend = 3,
                .legend_colour = {0, 1, 2},
                .legend = {"accuracy", "hit rate", "false-alarm rate"}};
    f.panel[0] = (Panel){.title = "Accuracy, hit and false-alarm rates",
                         .axis = "percent, 95 % bootstrap CI",
                         .n_bands = n,
                         .per_band = 3,
                         .labels = labels,
                         .marks = rates,
                         .ref = NAN,
                         .hi = 1,
                         .percent = 1};
    f.panel[1] = (Panel){.title = "d' = z(H) - z(F) (dashed: no detection)",
                         .axis = "d', 95 % bootstrap CI",
                         .n_bands = n,
                         .per_band = 1,
                         .labels = labels,
                         .marks = dp,
                         .ref = 0};
    f.panel[2] = (Panel){.title = "AUROC of the answer with its confidence",
                         .axis = "AUROC (dashed: chance), 95 % bootstrap CI",
                         .n_bands = n,
                         .per_band = 1,
                         .labels = labels,
                         .marks = auc,
                         .ref = 0.5};
    return render(dir, "error_detection", kinds, &f, err);
}

static int plot_team(const Table *t, const char *dir, unsigned kinds,
                     SimError *err)
{
    int n = t->n_rows < MAX_BANDS ? t->n_rows : MAX_BANDS, kinds_seen = 0;
    char names[MAX_BANDS][64];
    const char *labels[MAX_BANDS];
    Mark acc[MAX_BANDS * 3], diff[MAX_BANDS * 2];
    for (int i = 0; i < n; i++) {
        kinds_seen |= strcmp(text_of(t, i, "blocks"), "verify") == 0 ? 1 : 2;
    }
    for (int i = 0; i < n; i++) {
        if (kinds_seen == 3) {
            snprintf(names[i], sizeof names[i], "%.20s (%s)",
                     text_of(t, i, "condition"), text_of(t, i, "blocks"));
        } else {
            snprintf(names[i], sizeof names[i], "%s",
                     text_of(t, i, "condition"));
        }
        labels[i] = names[i];
        acc[3 * i] = mark_of(t, i, "team_accuracy", 0);
        acc[3 * i + 1] = mark_of(t, i, "model_accuracy", 1);
        acc[3 * i + 2] = mark_of(t, i, "human_accuracy", 6);
        diff[2 * i] = mark_of(t, i, "team_minus_model", 0);
        diff[2 * i + 1] = mark_of(t, i, "complementarity", 3);
    }
    Figure f = {.title = "The human-AI team",
                .n_panels = 2,
                .n_legend = 3,
                .legend_colour = {0, 1, 6},
                .legend = {"team", "model alone", "humans alone"}};
    f.panel[0] = (Panel){.title = "Accuracy",
                         .axis = "percent, 95 % bootstrap CI",
                         .n_bands = n,
                         .per_band = 3,
                         .labels = labels,
                         .marks = acc,
                         .ref = NAN,
                         .percent = 1};
    f.panel[1] =
        (Panel){.title = "Team - model (blue), complementarity (purple)",
                .axis = "percentage points (dashed: none), 95 % CI",
                .n_bands = n,
                .per_band = 2,
                .labels = labels,
                .marks = diff,
                .ref = 0,
                .percent = 1};
    return render(dir, "team", kinds, &f, err);
}

static int plot_distinction(const Table *t, const char *dir, unsigned kinds,
                            SimError *err)
{
    int n = t->n_rows < MAX_BANDS ? t->n_rows : MAX_BANDS;
    const char *labels[MAX_BANDS];
    Mark acc[MAX_BANDS];
    double chance[MAX_BANDS];
    int above = table_column(t, "above_chance");
    for (int i = 0; i < n; i++) {
        labels[i] = text_of(t, i, "condition");
        acc[i] = mark_of(t, i, "accuracy", 0);
        acc[i].colour = above >= 0 && table_cell(t, i, above)->x == 1 ? 1 : 0;
        chance[i] = table_cell(t, i, table_column(t, "chance"))->x;
    }
    /* one chance line when every condition has the same, else a tick in
    ** each condition's row */
    int same = 1;
    for (int i = 1; i < n; i++) {
        same &= fabs(chance[i] - chance[0]) < 1e-12;
    }
    char chance_name[64];
    if (same) {
        snprintf(chance_name, sizeof chance_name, "chance (%.3g %%)",
                 100 * chance[0]);
    } else {
        snprintf(chance_name, sizeof chance_name, "chance (1 / options)");
    }
    Figure f = {.title = "Distinction: accuracy against chance",
                .n_panels = 1,
                .n_legend = 3,
                .legend_colour = {0, 1, -1},
                .legend = {"not above chance", "above chance", chance_name}};
    f.panel[0] = (Panel){.title = "Accuracy",
                         .axis = "percent, 95 % bootstrap CI",
                         .n_bands = n,
                         .per_band = 1,
                         .labels = labels,
                         .marks = acc,
                         .tick = same ? NULL : chance,
                         .ref = same ? chance[0] : NAN,
                         .hi = 1,
                         .percent = 1};
    return render(dir, "distinction", kinds, &f, err);
}

int plot_verify(const Report *r, const char *dir, unsigned kinds, SimError *err)
{
    const Table *ed = report_table(r, "error_detection");
    const Table *team = report_table(r, "team");
    const Table *dist = report_table(r, "distinction");
    int rc = SIM_OK;
    if (ed && ed->n_rows > 0) {
        rc = plot_error_detection(ed, dir, kinds, err);
    }
    if (rc == SIM_OK && team && team->n_rows > 0) {
        rc = plot_team(team, dir, kinds, err);
    }
    if (rc == SIM_OK && dist && dist->n_rows > 0 &&
        table_column(dist, "chance") >= 0) {
        rc = plot_distinction(dist, dir, kinds, err);
    }
    return rc;
}
