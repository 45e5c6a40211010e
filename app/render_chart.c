/*
** Explanations drawn as values: the bar chart the bars primitive, LIME
** features and a prototype's important features share (an axis at 0 for
** signed values, values in the study's number format, hover regions), the
** rows of sums under it, prototypes with their comparison table, and
** decision paths with their margins.
*/
#include "app/render_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A horizontal bar chart; rows are "name = value" (value when given). */
static float bar_chart(const RenderCtx *rc, Scene *sc, const ScreenValue *fs,
                       size_t n, float x, float y, float w, int signed_axis)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    double m = 0;
    int any_neg = 0, any_pos = 0;
    for (size_t i = 0; i < n; i++) {
        m = fmax(m, fabs(fs[i].weight));
        any_neg |= fs[i].weight < 0;
        any_pos |= fs[i].weight > 0;
    }
    if (m <= 0) {
        m = 1;
    }
    float pad = roundf(ui->u * 0.45f);
    float label_w = 0, val_w = 0;
    for (size_t i = 0; i < n; i++) {
        const char *label = fs[i].label ? fs[i].label : "";
        label_w = fmaxf(label_w, font_width(ui->small, label, strlen(label)));
        val_w = fmaxf(
            val_w, value_width(ui->small_bold, fs[i].text ? fs[i].text : ""));
    }
    label_w = fminf(label_w + pad, w * 0.45f);
    val_w += pad;
    /* Labels at the start side (the right when mirrored); the chart keeps
    ** its axis (negative left, positive right) either way. */
    int rtl = render_rtl(rc);
    float chart_x = rtl ? x : x + label_w + pad;
    float label_x = rtl ? x + w - label_w : x;
    float chart_w = w - label_w - pad - 2 * val_w;
    if (chart_w < ui->u * 3) {
        chart_w = ui->u * 3;
    }
    int two_sided = signed_axis && any_neg && any_pos;
    float zero_x = two_sided                ? chart_x + val_w + chart_w / 2
                   : any_neg && signed_axis ? chart_x + val_w + chart_w
                                            : chart_x + val_w;
    float scale = (float)((two_sided ? chart_w / 2 : chart_w) / m);
    float yy = y;
    float row_top = yy;
    for (size_t i = 0; i < n; i++) {
        const char *label = fs[i].label ? fs[i].label : "";
        float lh = text_para(NULL, ui->small, label, 0, 0, label_w, th->text,
                             ALIGN_LEFT);
        float rh = fmaxf(lh, (float)ui->small->line_h) + pad;
        render_hover_region(rc, sc, (SDL_FRect){x, yy, w, rh}, fs[i].hover);
        if (sc) {
            /* beside the chart; mirrored, at the reading start */
            scene_box_begin(sc, (SDL_FRect){label_x, yy, label_w, rh}, "cell");
            text_para(sc, ui->small, label, label_x, yy + pad / 2, label_w,
                      th->text, ALIGN_RIGHT);
            scene_box_end(sc);
        }
        if (sc && render_value_shown(rc, fs[i].hover)) {
            double v = fs[i].weight;
            const char *val = fs[i].text ? fs[i].text : "";
            float len = (float)(fabs(v) * scale);
            float bh = fminf((float)ui->small->line_h * 0.75f, rh - pad / 2);
            float by = yy + (rh - bh) / 2;
            SDL_Color c = v >= 0 || !signed_axis ? colormap_diverging(0.8)
                                                 : colormap_diverging(-0.85);
            float vw = value_width(ui->small_bold, val);
            float ty = yy + (rh - (float)ui->small_bold->line_h) / 2;
            if (v >= 0 || !signed_axis) {
                scene_rrect(sc, (SDL_FRect){zero_x, by, fmaxf(len, 2), bh}, 2,
                            c);
                value_draw(sc, ui->small_bold, zero_x + len + pad * 0.5f, ty,
                           val, th->text);
            } else {
                scene_rrect(
                    sc, (SDL_FRect){zero_x - len, by, fmaxf(len, 2), bh}, 2, c);
                value_draw(sc, ui->small_bold, zero_x - len - pad * 0.5f - vw,
                           ty, val, th->text);
            }
        }
        yy += rh;
    }
    if (sc && n) {
        scene_rect(sc, (SDL_FRect){zero_x - 0.5f, row_top, 1.5f, yy - row_top},
                   th->faint);
    }
    return yy - y;
}

/* Lines "name   value" under a chart (LIME's intercept, sum and output; a
** bars payload's sum): names wrapped in their column at the start side,
** values right-aligned at the end of the rows, a line above the last row
** when rule_last is set. */
static float sum_rows(const RenderCtx *rc, Scene *sc, const ScreenLine *rows,
                      size_t n, int rule_last, int full, float x, float y,
                      float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float pad = roundf(ui->u * 0.4f);
    float gap = ui->u;
    float name_w = 0, val_w = 0;
    for (size_t i = 0; i < n; i++) {
        Font *f = rule_last && i == n - 1 ? ui->small_bold : ui->small;
        name_w =
            fmaxf(name_w, font_width(f, rows[i].label, strlen(rows[i].label)));
        val_w = fmaxf(val_w, value_width(ui->small_bold, rows[i].text));
    }
    /* as wide as LIME's printout, wider for long names, never wider than
    ** the column; full: as wide as the chart above it, the value at its end
    ** where the longest bar's is */
    float rw = full ? w
                    : fminf(w, fmaxf(fminf(w * 0.6f, ui->u * 16) + ui->u * 4,
                                     name_w + gap + val_w));
    float col = rw - val_w - gap;
    float yy = y;
    for (size_t i = 0; i < n; i++) {
        int last = rule_last && i == n - 1;
        Font *f = last ? ui->small_bold : ui->small;
        const char *val = rows[i].text;
        float nh =
            text_para(NULL, f, rows[i].label, 0, 0, col, th->text, ALIGN_LEFT);
        if (sc) {
            if (last) {
                scene_rect(sc,
                           (SDL_FRect){render_mx(rc, x, w, x, rw), yy - pad / 2,
                                       rw, 1},
                           th->border);
            }
            /* the name stays in its column, clear of the value */
            SDL_FRect cell = {render_mx(rc, x, w, x, col), yy, col, nh};
            scene_box_begin(sc, cell, "cell");
            text_para(sc, f, rows[i].label, cell.x, yy, col,
                      last ? th->text : th->muted,
                      render_align(rc, ALIGN_LEFT));
            scene_box_end(sc);
            float vw = value_width(ui->small_bold, val);
            value_draw(sc, ui->small_bold, render_mx(rc, x, w, x + rw - vw, vw),
                       yy, val, th->text);
        }
        yy += fmaxf(nh, (float)f->line_h) + pad;
    }
    return yy - y;
}

float rnd_bars(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
               float y, float w)
{
    float yy = y;
    yy += bar_chart(rc, sc, nd->values, nd->n_values, x, yy, w,
                    nd->payload->bars_signed);
    if (nd->n_lines) {
        yy += rc->ui->u * 0.6f;
        yy += sum_rows(rc, sc, nd->lines, nd->n_lines, nd->line_rule, 1, x, yy,
                       w);
    }
    return yy - y;
}

float rnd_features(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                   float x, float y, float w)
{
    Ui *ui = rc->ui;
    float yy = y;
    yy += bar_chart(rc, sc, nd->values, nd->n_values, x, yy, w, 1);
    if (!nd->n_lines) {
        return yy - y; /* the values show on hover only */
    }
    yy += ui->u * 0.6f;
    /* Intercept + sum = output, as LIME prints them. */
    yy += sum_rows(rc, sc, nd->lines, nd->n_lines, nd->line_rule, 0, x, yy, w);
    return yy - y;
}

/* ------------------------------------------------------------ prototype */

float rnd_prototype(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd,
                    float x, float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    const Explanation *e = nd->payload;
    float yy = y;
    yy += text_marked(sc, ui->body, ui->bold, nd->head ? nd->head : "", x, yy,
                      w, th->text, render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    if (e->n_rows) {
        float pad = roundf(ui->u * 0.4f);
        float c1 = w * 0.3f, c2 = w * 0.35f, c3 = w - c1 - c2;
        /* columns feature, prototype, input from the start side */
        float cx1 = render_mx(rc, x, w, x, c1) + pad;
        float cx2 = render_mx(rc, x, w, x + c1, c2) + pad;
        float cx3 = render_mx(rc, x, w, x + c1 + c2, c3) + pad;
        int al = render_align(rc, ALIGN_LEFT);
        const char *const *cols = nd->columns;
        if (sc) {
            float at[3] = {cx1, cx2, cx3};
            float cw[3] = {c1 - 2 * pad, c2 - 2 * pad, c3 - 2 * pad};
            for (int k = 0; k < 3; k++) {
                render_fit_text(rc, sc, ui->small_bold, cols[k], at[k], yy,
                                cw[k], th->muted, al);
            }
        }
        float head_h = 0;
        {
            float cw[3] = {c1 - 2 * pad, c2 - 2 * pad, c3 - 2 * pad};
            for (int k = 0; k < 3; k++) {
                head_h = fmaxf(head_h, render_fit_text(rc, NULL, ui->small_bold,
                                                       cols[k], 0, 0, cw[k],
                                                       th->muted, al));
            }
        }
        yy += head_h + pad * 0.5f;
        for (size_t i = 0; i < e->n_rows; i++) {
            const ExplFeature *r = &e->rows[i];
            const char *pv = r->other ? r->other : "";
            const char *iv = r->value ? r->value : "";
            int same = strcmp(pv, iv) == 0;
            float h1 = text_para(NULL, ui->small, r->name ? r->name : "", 0, 0,
                                 c1 - 2 * pad, th->text, ALIGN_LEFT);
            float h2 = text_para(NULL, ui->small, pv, 0, 0, c2 - 2 * pad,
                                 th->text, ALIGN_LEFT);
            float h3 = text_para(NULL, ui->small, iv, 0, 0, c3 - 2 * pad,
                                 th->text, ALIGN_LEFT);
            float rh = fmaxf(h1, fmaxf(h2, h3)) + pad;
            if (sc) {
                if (!same) {
                    scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->warn_bg);
                } else if (i % 2 == 0) {
                    scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
                }
                text_para(sc, ui->small, r->name ? r->name : "", cx1,
                          yy + pad / 2, c1 - 2 * pad, th->muted, al);
                text_para(sc, same ? ui->small : ui->small_bold, pv, cx2,
                          yy + pad / 2, c2 - 2 * pad,
                          same ? th->muted : th->text, al);
                text_para(sc, same ? ui->small : ui->small_bold, iv, cx3,
                          yy + pad / 2, c3 - 2 * pad,
                          same ? th->muted : th->text, al);
            }
            yy += rh;
        }
        yy += text_para(sc, ui->caption, nd->note ? nd->note : "", x,
                        yy + pad * 0.5f, w, th->faint, al) +
              pad;
    }
    if (nd->section) {
        yy += ui->u * 0.4f;
        yy +=
            render_section_label(rc, sc, x, yy, w, nd->section) + ui->u * 0.3f;
        yy += bar_chart(rc, sc, nd->values, nd->n_values, x, yy, w, 1);
    }
    return yy - y;
}

/* ----------------------------------------------------------------- path */

/* The step label format fmt with its number shown as "00", to measure the
** label column ("Step 00"). */
static void step_label_sample(const char *fmt, char *out, size_t n)
{
    const char *p = strstr(fmt, "%zu");
    if (!p) {
        snprintf(out, n, "%s", fmt);
        return;
    }
    snprintf(out, n, "%.*s00%s", (int)(p - fmt), fmt, p + 3);
}

float rnd_path(const RenderCtx *rc, Scene *sc, const ScreenExpl *nd, float x,
               float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    yy += text_marked(sc, ui->small, ui->small_bold, nd->head ? nd->head : "",
                      x, yy, w, th->muted, render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    double m = 0;
    for (size_t i = 0; i < nd->n_lines; i++) {
        m = fmax(m, fabs(nd->lines[i].weight));
    }
    if (m <= 0) {
        m = 1;
    }
    float pad = roundf(ui->u * 0.4f);
    /* the label column as wide as "Step 00" or "Start" (the widths the
    ** string table's labels can take) */
    char widest[64];
    step_label_sample(tr(rc, UI_EXPL_STEP), widest, sizeof widest);
    const char *start_lab = tr(rc, UI_EXPL_START);
    float label_w =
        fmaxf(font_width(ui->small_bold, widest, strlen(widest)),
              font_width(ui->small_bold, start_lab, strlen(start_lab)));
    label_w += pad;
    float bar_w = fminf(w * 0.3f, ui->u * 9);
    char num_w[48];
    render_num(rc, -88.88, 2, 1, num_w, sizeof num_w);
    float val_w = value_width(ui->small_bold, num_w) + pad;
    float edits_x = x + label_w + bar_w + val_w + pad * 2;
    float edits_w = w - (edits_x - x);
    int narrow = edits_w < ui->u * 9;
    if (narrow) {
        edits_w = w - label_w;
        edits_x = x + label_w;
    }
    int has_start = nd->n_lines > 0 && isfinite(nd->payload->start_margin);
    for (size_t row = 0; row < nd->n_lines; row++) {
        const ScreenLine *ln = &nd->lines[row];
        int is_start = has_start && row == 0;
        double margin = ln->weight;
        const char *lab = ln->label;
        const char *val = ln->text ? ln->text : "";
        const char *edits = ln->note ? ln->note : "";
        float eh = text_marked(NULL, ui->small, ui->small_bold, edits, 0, 0,
                               edits_w, th->text, ALIGN_LEFT);
        float bar_row = (float)ui->small_bold->line_h;
        float rh = narrow ? bar_row + pad * 0.3f + eh : fmaxf(bar_row, eh);
        rh += pad;
        if (sc) {
            if (row % 2 == 1) {
                scene_rect(sc, (SDL_FRect){x, yy, w, rh}, th->panel_alt);
            }
            /* label, margin bar, value, edits from the start side; the
            ** bar keeps its axis (positive to the right) */
            float lw = font_width(ui->small_bold, lab, strlen(lab));
            scene_text(sc, ui->small_bold,
                       render_mx(rc, x, w, x + pad * 0.5f, lw), yy + pad / 2,
                       lab, th->text);
            float bx = render_mx(rc, x, w, x + label_w, bar_w);
            float by = yy + pad / 2 + bar_row * 0.2f;
            float bh = bar_row * 0.6f;
            float mid = bx + bar_w / 2;
            scene_rect(sc, (SDL_FRect){bx, by, bar_w, bh}, th->disabled);
            float len = (float)(fabs(margin) / m * bar_w / 2);
            SDL_Color c = colormap_diverging(margin >= 0 ? 0.8 : -0.85);
            scene_rect(sc,
                       (SDL_FRect){margin >= 0 ? mid : mid - len, by,
                                   fmaxf(len, 1.5f), bh},
                       c);
            scene_rect(sc, (SDL_FRect){mid - 0.75f, by - 2, 1.5f, bh + 4},
                       th->text);
            float vw = value_width(ui->small_bold, val);
            value_draw(sc, ui->small_bold,
                       render_mx(rc, x, w, x + label_w + bar_w + pad, vw),
                       yy + pad / 2, val, th->text);
            float ey =
                narrow ? yy + pad / 2 + bar_row + pad * 0.3f : yy + pad / 2;
            text_marked(sc, ui->small, ui->small_bold, edits,
                        render_mx(rc, x, w, edits_x, edits_w), ey, edits_w,
                        is_start ? th->muted : th->text,
                        render_align(rc, ALIGN_LEFT));
        }
        yy += rh;
    }
    return yy - y;
}
