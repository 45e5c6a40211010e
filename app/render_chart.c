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

/* How bar_chart draws its rows. */
typedef struct BarOpts {
    int signed_axis;  /* an axis at 0: negative left (blue), positive right */
    int decimals;     /* digits after the decimal separator */
    const char *unit; /* written after each value, or NULL */
    int base;         /* number of the first row's hover region, -1 none */
} BarOpts;

/* A row's value as text: in the study's number format, signed on a signed
** axis, with the unit. */
static void bar_value(const RenderCtx *rc, double v, const BarOpts *o,
                      char *out, size_t n)
{
    char num[48];
    render_num(rc, v, o->decimals, o->signed_axis, num, sizeof num);
    snprintf(out, n, "%s%s", num, o->unit ? o->unit : "");
}

/* A horizontal bar chart; rows are "name = value" (value when given). */
static float bar_chart(const RenderCtx *rc, Scene *sc, const ExplFeature *fs,
                       size_t n, float x, float y, float w, const BarOpts *o)
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
    char label[400], val[64];
    float label_w = 0, val_w = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%s%s%s", fs[i].name ? fs[i].name : "",
                 fs[i].value ? " = " : "", fs[i].value ? fs[i].value : "");
        label_w = fmaxf(label_w, font_width(ui->small, label, strlen(label)));
        bar_value(rc, fs[i].weight, o, val, sizeof val);
        val_w = fmaxf(val_w, value_width(ui->small_bold, val));
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
    int signed_axis = o->signed_axis;
    int two_sided = signed_axis && any_neg && any_pos;
    float zero_x = two_sided                ? chart_x + val_w + chart_w / 2
                   : any_neg && signed_axis ? chart_x + val_w + chart_w
                                            : chart_x + val_w;
    float scale = (float)((two_sided ? chart_w / 2 : chart_w) / m);
    float yy = y;
    float row_top = yy;
    for (size_t i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%s%s%s", fs[i].name ? fs[i].name : "",
                 fs[i].value ? " = " : "", fs[i].value ? fs[i].value : "");
        float lh = text_para(NULL, ui->small, label, 0, 0, label_w, th->text,
                             ALIGN_LEFT);
        float rh = fmaxf(lh, (float)ui->small->line_h) + pad;
        if (sc && o->base >= 0) {
            scene_begin_hit(sc, (SDL_FRect){x, yy, w, rh}, ACT_HOVER,
                            o->base + (int)i, 1);
            scene_end_hit(sc);
        }
        if (sc) {
            /* beside the chart; mirrored, at the reading start */
            scene_box_begin(sc, (SDL_FRect){label_x, yy, label_w, rh}, "cell");
            text_para(sc, ui->small, label, label_x, yy + pad / 2, label_w,
                      th->text, ALIGN_RIGHT);
            scene_box_end(sc);
        }
        if (sc && render_value_shown(rc, o->base, i)) {
            double v = fs[i].weight;
            float len = (float)(fabs(v) * scale);
            float bh = fminf((float)ui->small->line_h * 0.75f, rh - pad / 2);
            float by = yy + (rh - bh) / 2;
            SDL_Color c = v >= 0 || !signed_axis ? colormap_diverging(0.8)
                                                 : colormap_diverging(-0.85);
            bar_value(rc, v, o, val, sizeof val);
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

/* Rows "name   value" under a chart (LIME's intercept, sum and output; a
** bars payload's sum): names wrapped in their column at the start side,
** values right-aligned at the end of the rows, a line above the last row
** when rule_last is set. rows with a NaN value are left out. */
typedef struct SumRow {
    const char *name;
    double v;
} SumRow;

static float sum_rows(const RenderCtx *rc, Scene *sc, const SumRow *rows, int n,
                      int rule_last, int decimals, const char *unit, float x,
                      float y, float w)
{
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float pad = roundf(ui->u * 0.4f);
    float gap = ui->u;
    char val[64], num[48];
    float name_w = 0, val_w = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(rows[i].v)) {
            continue;
        }
        Font *f = rule_last && i == n - 1 ? ui->small_bold : ui->small;
        render_num(rc, rows[i].v, decimals, 1, num, sizeof num);
        snprintf(val, sizeof val, "%s%s", num, unit ? unit : "");
        name_w =
            fmaxf(name_w, font_width(f, rows[i].name, strlen(rows[i].name)));
        val_w = fmaxf(val_w, value_width(ui->small_bold, val));
    }
    /* as wide as LIME's printout, wider for long names, never wider than
    ** the column */
    float rw = fminf(w, fmaxf(fminf(w * 0.6f, ui->u * 16) + ui->u * 4,
                              name_w + gap + val_w));
    float col = rw - val_w - gap;
    float yy = y;
    for (int i = 0; i < n; i++) {
        if (!isfinite(rows[i].v)) {
            continue;
        }
        int last = rule_last && i == n - 1;
        Font *f = last ? ui->small_bold : ui->small;
        render_num(rc, rows[i].v, decimals, 1, num, sizeof num);
        snprintf(val, sizeof val, "%s%s", num, unit ? unit : "");
        float nh =
            text_para(NULL, f, rows[i].name, 0, 0, col, th->text, ALIGN_LEFT);
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
            text_para(sc, f, rows[i].name, cell.x, yy, col,
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

float rnd_bars(const RenderCtx *rc, Scene *sc, const Explanation *e,
               const ItemInput *input, float x, float y, float w)
{
    (void)input;
    BarOpts o = {e->bars_signed, e->decimals, e->unit,
                 render_hover_base(rc, sc, e->n_features)};
    float yy = y;
    yy += bar_chart(rc, sc, e->features, e->n_features, x, yy, w, &o);
    if (e->show_sum && !rc->hover_mode) {
        double sum = 0;
        for (size_t i = 0; i < e->n_features; i++) {
            sum += e->features[i].weight;
        }
        SumRow row = {tr(rc, UI_EXPL_BARS_SUM), sum};
        yy += rc->ui->u * 0.6f;
        yy += sum_rows(rc, sc, &row, 1, 1, e->decimals, e->unit, x, yy, w);
    }
    return yy - y;
}

float rnd_features(const RenderCtx *rc, Scene *sc, const Explanation *e,
                   const ItemInput *input, float x, float y, float w)
{
    (void)input;
    Ui *ui = rc->ui;
    float yy = y;
    BarOpts o = {1, 2, NULL, render_hover_base(rc, sc, e->n_features)};
    yy += bar_chart(rc, sc, e->features, e->n_features, x, yy, w, &o);
    if (rc->hover_mode) {
        return yy - y; /* the values show on hover only */
    }
    yy += ui->u * 0.6f;
    /* Intercept + sum = output, as LIME prints them. */
    SumRow rows[3] = {{tr(rc, UI_EXPL_BASELINE), e->intercept},
                      {tr(rc, UI_EXPL_SUM), e->sum},
                      {tr(rc, UI_EXPL_TOTAL), e->output}};
    if (!isfinite(e->sum)) {
        double sum = 0;
        for (size_t i = 0; i < e->n_features; i++) {
            sum += e->features[i].weight;
        }
        rows[1].v = sum;
    }
    yy += sum_rows(rc, sc, rows, 3, isfinite(e->output), 2, NULL, x, yy, w);
    return yy - y;
}

/* ------------------------------------------------------------ prototype */

float rnd_prototype(const RenderCtx *rc, Scene *sc, const Explanation *e,
                    const ItemInput *input, float x, float y, float w)
{
    (void)input;
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    char head[600];
    const char *lab = e->prototype_label ? e->prototype_label : "?";
    if (isfinite(e->prototype_evidence)) {
        char num[48], part[600];
        render_num(rc, e->prototype_evidence, 2, 1, num, sizeof num);
        render_subst(ui_str(rc->strings, UI_EXPL_PROTOTYPE_EVIDENCE), "%s", lab,
                     part, sizeof part);
        render_subst(part, "%+.2f", num, head, sizeof head);
        render_percent(head);
    } else {
        snprintf(head, sizeof head,
                 ui_fmt(rc->strings, UI_EXPL_PROTOTYPE,
                        "Most similar prototype: label **%s**"),
                 lab);
    }
    yy += text_marked(sc, ui->body, ui->bold, head, x, yy, w, th->text,
                      render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    if (e->n_rows) {
        float pad = roundf(ui->u * 0.4f);
        float c1 = w * 0.3f, c2 = w * 0.35f, c3 = w - c1 - c2;
        /* columns feature, prototype, input from the start side */
        float cx1 = render_mx(rc, x, w, x, c1) + pad;
        float cx2 = render_mx(rc, x, w, x + c1, c2) + pad;
        float cx3 = render_mx(rc, x, w, x + c1 + c2, c3) + pad;
        int al = render_align(rc, ALIGN_LEFT);
        if (sc) {
            const char *cols[3] = {tr(rc, UI_EXPL_COL_FEATURE),
                                   tr(rc, UI_EXPL_COL_PROTOTYPE),
                                   tr(rc, UI_EXPL_COL_INPUT)};
            float at[3] = {cx1, cx2, cx3};
            float cw[3] = {c1 - 2 * pad, c2 - 2 * pad, c3 - 2 * pad};
            for (int k = 0; k < 3; k++) {
                render_fit_text(rc, sc, ui->small_bold, cols[k], at[k], yy,
                                cw[k], th->muted, al);
            }
        }
        float head_h = 0;
        {
            const char *cols[3] = {tr(rc, UI_EXPL_COL_FEATURE),
                                   tr(rc, UI_EXPL_COL_PROTOTYPE),
                                   tr(rc, UI_EXPL_COL_INPUT)};
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
        yy += text_para(sc, ui->caption, tr(rc, UI_EXPL_DIFFER), x,
                        yy + pad * 0.5f, w, th->faint, al) +
              pad;
    }
    if (e->n_features) {
        yy += ui->u * 0.4f;
        yy +=
            render_section_label(rc, sc, x, yy, w, tr(rc, UI_EXPL_IMPORTANT)) +
            ui->u * 0.3f;
        size_t n = e->n_features < 6 ? e->n_features : 6;
        BarOpts o = {1, 2, NULL, render_hover_base(rc, sc, n)};
        yy += bar_chart(rc, sc, e->features, n, x, yy, w, &o);
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

float rnd_path(const RenderCtx *rc, Scene *sc, const Explanation *e,
               const ItemInput *input, float x, float y, float w)
{
    (void)input;
    Ui *ui = rc->ui;
    const Theme *th = &ui->th;
    float yy = y;
    char head[800];
    if (e->predicted >= 0) {
        snprintf(head, sizeof head,
                 ui_fmt(rc->strings, UI_EXPL_PATH_TOWARD,
                        "Edits that move the model toward **%s**, with the "
                        "evidence margin after each step (the model changes "
                        "its answer where the margin crosses 0)."),
                 render_class_label(rc, e->predicted));
    } else {
        snprintf(head, sizeof head, "%s", tr(rc, UI_EXPL_PATH));
    }
    yy += text_marked(sc, ui->small, ui->small_bold, head, x, yy, w, th->muted,
                      render_align(rc, ALIGN_LEFT));
    yy += ui->u * 0.5f;
    int has_start = isfinite(e->start_margin); /* a "Start" row first */
    double m = fabs(has_start ? e->start_margin : 0);
    for (size_t i = 0; i < e->n_steps; i++) {
        m = fmax(m, fabs(e->steps[i].margin));
    }
    if (m <= 0) {
        m = 1;
    }
    float pad = roundf(ui->u * 0.4f);
    char widest[64];
    step_label_sample(tr(rc, UI_EXPL_STEP), widest, sizeof widest);
    const char *start_lab = tr(rc, UI_EXPL_START);
    float label_w =
        fmaxf(font_width(ui->small_bold, widest, strlen(widest)),
              font_width(ui->small_bold, start_lab, strlen(start_lab))) +
        pad;
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
    size_t n_rows = e->n_steps + (has_start ? 1 : 0);
    for (size_t row = 0; row < n_rows; row++) {
        int is_start = has_start && row == 0;
        /* Steps count from 1 whether or not a Start row comes first. */
        size_t step = row + (has_start ? 0 : 1);
        const ExplStep *st = is_start ? NULL : &e->steps[step - 1];
        double margin = is_start ? e->start_margin : st->margin;
        char lab[96], val[32];
        if (is_start) {
            snprintf(lab, sizeof lab, "%s", start_lab);
        } else {
            snprintf(lab, sizeof lab,
                     ui_fmt(rc->strings, UI_EXPL_STEP, "Step %zu"), step);
        }
        render_num(rc, margin, 2, 1, val, sizeof val);
        /* Edits text. */
        char edits[1200] = "";
        size_t L = 0;
        for (size_t k = 0; st && k < st->n_edits && L + 1 < sizeof edits; k++) {
            const Edit *ed = &st->edits[k];
            char from[600];
            snprintf(from, sizeof from, "%s%s%s",
                     ed->feature ? ed->feature : "", ed->feature ? ": " : "",
                     ed->from ? ed->from : "");
            int c = snprintf(
                edits + L, sizeof edits - L, "%s%s %s **%s**", L ? "\n" : "",
                from, render_arrow(rc, from, ed->to), ed->to ? ed->to : "");
            if (c < 0 || (size_t)c >= sizeof edits - L) {
                break;
            }
            L += (size_t)c;
        }
        if (is_start) {
            snprintf(edits, sizeof edits, "%s", tr(rc, UI_EXPL_AS_IS));
        }
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
