/*
** Explanations in the screen model (ScreenExpl, screen_model.h): every
** text a payload's drawing shows -- labels, numbers in the study's
** language, legends, headings, the lines under a chart -- decided once per
** kind (the table below), for the desktop's renderers and the browser's.
** No SDL, no clock.
*/
#include "experiment/screen_model_int.h"

#include <math.h>
#include <string.h>

/* What building a node reads. */
typedef struct B {
    ScreenArena *a;
    const ScreenContext *cx;
    const UiStrings *s;
    const ItemInput *input; /* the item's input (may be NULL) */
    int compact;            /* a reservoir card: no colour-bar legend */
    int hover;              /* the values show on hover: no lines of sums */
    int *hover_next;        /* the next hover number, NULL: not numbered */
} B;

static const char *tr(const B *b, UiKey k)
{
    return ui_str(b->s, k);
}

/* The classes the explanation speaks of: the view's, else the study's. */
static size_t n_classes(const B *b, const StudyClass **cl)
{
    const Study *st = b->cx->study;
    *cl = b->a->classes ? b->a->classes : st ? st->classes : NULL;
    return b->a->classes ? b->a->n_classes : st ? st->n_classes : 0;
}

static const char *class_label(const B *b, int c)
{
    const StudyClass *cl;
    size_t n = n_classes(b, &cl);
    return c >= 0 && (size_t)c < n && cl[c].label ? cl[c].label : "?";
}

/* Numbers n values from the counter (expl_hover_targets' order): the first
** one's number, or -1 when they are not numbered. */
static int hover_base(const B *b, size_t n)
{
    if (!b->hover_next) {
        return -1;
    }
    int base = *b->hover_next;
    *b->hover_next += (int)n;
    return base;
}

/* "name = value", or the name alone. */
static const char *feature_label(const B *b, const ExplFeature *f)
{
    return f->value
               ? arena_printf(b->a, "%s = %s", f->name ? f->name : "", f->value)
               : arena_strdup(b->a, f->name ? f->name : "");
}

/* Bars of features: label, value as text, weight, hover number. */
static void feature_values(const B *b, ScreenExpl *x, const ExplFeature *fs,
                           size_t n, int decimals, int sign, const char *unit)
{
    x->values = arena_array(b->a, n, sizeof *x->values);
    if (!x->values) {
        return;
    }
    int base = hover_base(b, n);
    for (size_t i = 0; i < n; i++) {
        ScreenValue *v = &x->values[i];
        v->label = feature_label(b, &fs[i]);
        char *num = arena_num(b->a, b->s, fs[i].weight, decimals, sign);
        v->text = unit && num ? arena_printf(b->a, "%s%s", num, unit) : num;
        v->weight = fs[i].weight;
        v->hover = base < 0 ? -1 : base + (int)i;
    }
    x->n_values = n;
}

static ScreenLine *add_line(const B *b, ScreenExpl *x, size_t cap,
                            const char *label, double v, int decimals,
                            const char *unit)
{
    if (!x->lines) {
        x->lines = arena_array(b->a, cap, sizeof *x->lines);
        if (!x->lines) {
            return NULL;
        }
    }
    ScreenLine *l = &x->lines[x->n_lines++];
    l->label = label;
    char *num = arena_num(b->a, b->s, v, decimals, 1);
    l->text = unit && num ? arena_printf(b->a, "%s%s", num, unit) : num;
    l->weight = v;
    l->pair = -1;
    return l;
}

/* The colour bar of signed weights: the largest weight at each end, and
** with two classes the class each side speaks for. */
static void weight_legend(const B *b, ScreenExpl *x, double maxabs)
{
    char *lo = arena_num(b->a, b->s, -maxabs, 2, 1);
    char *hi = arena_num(b->a, b->s, maxabs, 2, 1);
    const StudyClass *cl;
    if (n_classes(b, &cl) == 2) {
        char *t1 = arena_printf(b->a, ui_fmt(b->s, UI_EXPL_TOWARD, "toward %s"),
                                class_label(b, 1));
        char *t0 = arena_printf(b->a, ui_fmt(b->s, UI_EXPL_TOWARD, "toward %s"),
                                class_label(b, 0));
        lo = arena_printf(b->a, "%s  %s", lo, t1);
        hi = arena_printf(b->a, "%s  %s", t0, hi);
    }
    x->legend_lo = lo;
    x->legend_hi = hi;
}

static double max_abs_tokens(const Explanation *e)
{
    double m = 0;
    for (size_t i = 0; i < e->n_tokens; i++) {
        m = fmax(m, fabs(e->tokens[i].weight));
    }
    return m > 0 ? m : 1;
}

/* Every token as a value: its text, its weight (a tooltip on hover). */
static void token_values(const B *b, ScreenExpl *x, const Explanation *e)
{
    x->values = arena_array(b->a, e->n_tokens, sizeof *x->values);
    if (!x->values) {
        return;
    }
    int base = hover_base(b, e->n_tokens);
    for (size_t i = 0; i < e->n_tokens; i++) {
        ScreenValue *v = &x->values[i];
        v->label = e->tokens[i].text ? e->tokens[i].text : "";
        v->text = arena_num(b->a, b->s, e->tokens[i].weight, 2, 1);
        v->weight = e->tokens[i].weight;
        v->hover = base < 0 ? -1 : base + (int)i;
    }
    x->n_values = e->n_tokens;
}

/* ------------------------------------------------------------ the kinds */

static void k_map(const B *b, ScreenExpl *x, const Explanation *e)
{
    int with_map = e->kind == EXPL_HEATMAP || e->has_overlay;
    if (with_map && !b->compact) {
        x->legend_lo = tr(b, UI_EXPL_LESS_IMPORTANT);
        x->legend_hi = tr(b, UI_EXPL_MORE_IMPORTANT);
    }
}

static void k_tokens(const B *b, ScreenExpl *x, const Explanation *e)
{
    token_values(b, x, e);
    for (size_t i = 0; i < e->n_tokens; i++) {
        if (e->tokens[i].segment == 1) {
            x->name_a = tr(b, UI_EXPL_TEXT_A);
            x->name_b = tr(b, UI_EXPL_TEXT_B);
            break;
        }
    }
    x->scale = max_abs_tokens(e);
    weight_legend(b, x, x->scale);
}

/* Sorts order[0..n) (pair indices) by the pairs' strength, strongest
** first; ties keep the payload's order. */
static void sort_pairs(const Explanation *e, size_t *order, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t k = order[i];
        double w = fabs(e->pairs[k].weight);
        size_t j = i;
        while (j > 0 && fabs(e->pairs[order[j - 1]].weight) < w) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
}

/* The tokens of [a, end) joined by spaces. */
static char *range_text(const B *b, const Explanation *e, int a, int end)
{
    size_t len = 0;
    for (int i = a; i < end && i < (int)e->n_tokens; i++) {
        if (i >= 0) {
            len += strlen(e->tokens[i].text ? e->tokens[i].text : "") + 1;
        }
    }
    char *out = arena_alloc(b->a, len + 1);
    if (!out) {
        return NULL;
    }
    size_t o = 0;
    for (int i = a; i < end && i < (int)e->n_tokens; i++) {
        if (i < 0) {
            continue;
        }
        const char *t = e->tokens[i].text ? e->tokens[i].text : "";
        if (o) {
            out[o++] = ' ';
        }
        memcpy(out + o, t, strlen(t));
        o += strlen(t);
    }
    out[o] = '\0';
    return out;
}

/* The strongest interactions shown as a list under the two texts. */
#define PAIRS_SHOWN 8

static void k_pairs(const B *b, ScreenExpl *x, const Explanation *e)
{
    token_values(b, x, e);
    const ItemInput *in = b->input;
    x->name_a = in && in->title_a ? in->title_a : tr(b, UI_EXPL_FIRST);
    x->name_b = in && in->title_b ? in->title_b : tr(b, UI_EXPL_SECOND);
    size_t *order = arena_array(b->a, e->n_pairs + 1, sizeof *order);
    if (!order) {
        return;
    }
    for (size_t i = 0; i < e->n_pairs; i++) {
        order[i] = i;
    }
    sort_pairs(e, order, e->n_pairs);
    size_t shown = e->n_pairs < PAIRS_SHOWN ? e->n_pairs : PAIRS_SHOWN;
    if (b->hover) {
        /* the values show on hover: the lines only, no list */
        x->lines = arena_array(b->a, shown, sizeof *x->lines);
    } else {
        x->section = tr(b, UI_EXPL_INTERACTIONS);
        x->lines = arena_array(b->a, shown, sizeof *x->lines);
    }
    for (size_t k = 0; x->lines && k < shown; k++) {
        const ExplPair *p = &e->pairs[order[k]];
        ScreenLine *l = &x->lines[x->n_lines++];
        l->label = b->hover
                       ? NULL
                       : arena_printf(b->a,
                                      "\xE2\x80\x9C%s\xE2\x80\x9D  "
                                      "\xE2\x86\x94  "
                                      "\xE2\x80\x9C%s\xE2\x80\x9D",
                                      range_text(b, e, p->a_start, p->a_end),
                                      range_text(b, e, p->b_start, p->b_end));
        l->text = b->hover ? NULL : arena_num(b->a, b->s, p->weight, 2, 1);
        l->weight = p->weight;
        l->pair = (int)order[k];
    }
}

static void k_features(const B *b, ScreenExpl *x, const Explanation *e)
{
    feature_values(b, x, e->features, e->n_features, 2, 1, NULL);
    if (b->hover) {
        return; /* the values show on hover only */
    }
    /* Intercept + sum = output, as LIME prints them. */
    double sum = e->sum;
    if (!isfinite(sum)) {
        sum = 0;
        for (size_t i = 0; i < e->n_features; i++) {
            sum += e->features[i].weight;
        }
    }
    if (isfinite(e->intercept)) {
        add_line(b, x, 3, tr(b, UI_EXPL_BASELINE), e->intercept, 2, NULL);
    }
    add_line(b, x, 3, tr(b, UI_EXPL_SUM), sum, 2, NULL);
    if (isfinite(e->output)) {
        add_line(b, x, 3, tr(b, UI_EXPL_TOTAL), e->output, 2, NULL);
        x->line_rule = 1;
    }
}

static void k_bars(const B *b, ScreenExpl *x, const Explanation *e)
{
    feature_values(b, x, e->features, e->n_features, e->decimals,
                   e->bars_signed, e->unit);
    if (e->show_sum && !b->hover) {
        double sum = 0;
        for (size_t i = 0; i < e->n_features; i++) {
            sum += e->features[i].weight;
        }
        add_line(b, x, 1, tr(b, UI_EXPL_BARS_SUM), sum, e->decimals, e->unit);
        x->line_rule = 1;
    }
}

/* A prototype's important features: its first six. */
#define PROTOTYPE_FEATURES 6

static void k_prototype(const B *b, ScreenExpl *x, const Explanation *e)
{
    const char *lab = e->prototype_label ? e->prototype_label : "?";
    if (isfinite(e->prototype_evidence)) {
        char *num = arena_num(b->a, b->s, e->prototype_evidence, 2, 1);
        char *part =
            arena_subst(b->a, tr(b, UI_EXPL_PROTOTYPE_EVIDENCE), "%s", lab);
        x->head = part && num ? arena_subst(b->a, part, "%+.2f", num) : NULL;
    } else {
        x->head = arena_printf(b->a,
                               ui_fmt(b->s, UI_EXPL_PROTOTYPE,
                                      "Most similar prototype: label **%s**"),
                               lab);
    }
    if (e->n_rows) {
        x->columns[0] = tr(b, UI_EXPL_COL_FEATURE);
        x->columns[1] = tr(b, UI_EXPL_COL_PROTOTYPE);
        x->columns[2] = tr(b, UI_EXPL_COL_INPUT);
        x->note = tr(b, UI_EXPL_DIFFER);
    }
    if (e->n_features) {
        x->section = tr(b, UI_EXPL_IMPORTANT);
        size_t n = e->n_features < PROTOTYPE_FEATURES ? e->n_features
                                                      : PROTOTYPE_FEATURES;
        feature_values(b, x, e->features, n, 2, 1, NULL);
    }
}

/* A step's edits: "feature: from → **to**", one per line. */
static char *step_edits(const B *b, const ExplStep *st)
{
    char *out = arena_strdup(b->a, "");
    for (size_t k = 0; out && k < st->n_edits; k++) {
        const Edit *ed = &st->edits[k];
        char *from =
            arena_printf(b->a, "%s%s%s", ed->feature ? ed->feature : "",
                         ed->feature ? ": " : "", ed->from ? ed->from : "");
        if (!from) {
            return NULL;
        }
        out =
            arena_printf(b->a, "%s%s%s %s **%s**", out, *out ? "\n" : "", from,
                         screen_arrow(from, ed->to, ui_strings_rtl(b->s)),
                         ed->to ? ed->to : "");
    }
    return out;
}

static void k_path(const B *b, ScreenExpl *x, const Explanation *e)
{
    if (e->predicted >= 0) {
        x->head = arena_printf(
            b->a,
            ui_fmt(b->s, UI_EXPL_PATH_TOWARD,
                   "Edits that move the model toward **%s**, with the "
                   "evidence margin after each step (the model changes "
                   "its answer where the margin crosses 0)."),
            class_label(b, e->predicted));
    } else {
        x->head = tr(b, UI_EXPL_PATH);
    }
    int has_start = isfinite(e->start_margin);
    size_t n = e->n_steps + (has_start ? 1 : 0);
    x->lines = arena_array(b->a, n, sizeof *x->lines);
    for (size_t row = 0; x->lines && row < n; row++) {
        int is_start = has_start && row == 0;
        /* steps count from 1 whether or not a Start row comes first */
        size_t step = row + (has_start ? 0 : 1);
        ScreenLine *l = &x->lines[x->n_lines++];
        l->pair = -1;
        if (is_start) {
            l->label = tr(b, UI_EXPL_START);
            l->weight = e->start_margin;
            l->note = tr(b, UI_EXPL_AS_IS);
        } else {
            l->label = arena_printf(
                b->a, ui_fmt(b->s, UI_EXPL_STEP, "Step %zu"), step);
            l->weight = e->steps[step - 1].margin;
            l->note = step_edits(b, &e->steps[step - 1]);
        }
        l->text = arena_num(b->a, b->s, l->weight, 2, 1);
    }
}

static void k_rules(const B *b, ScreenExpl *x, const Explanation *e)
{
    x->word_if = tr(b, UI_EXPL_IF);
    x->word_and = tr(b, UI_EXPL_AND);
    x->values = arena_array(b->a, e->n_rules, sizeof *x->values);
    if (!x->values) {
        return;
    }
    const char *then = arena_printf(
        b->a, ui_fmt(b->s, UI_EXPL_THEN, "THEN the model predicts **%s**"),
        e->predicted >= 0 ? class_label(b, e->predicted)
                          : tr(b, UI_EXPL_THIS_CLASS));
    for (size_t r = 0; r < e->n_rules; r++) {
        const ExplRule *rule = &e->rules[r];
        ScreenValue *v = &x->values[x->n_values++];
        v->label = then;
        v->weight = NAN;
        v->hover = -1;
        char *p =
            isfinite(rule->precision)
                ? arena_printf(
                      b->a, ui_fmt(b->s, UI_EXPL_PRECISION, "Precision %.0f%%"),
                      rule->precision * 100)
                : NULL;
        char *c =
            isfinite(rule->coverage)
                ? arena_printf(
                      b->a, ui_fmt(b->s, UI_EXPL_COVERAGE, "Coverage %.0f%%"),
                      rule->coverage * 100)
                : NULL;
        v->text = p && c ? arena_printf(b->a, "%s   \xC2\xB7   %s", p, c)
                  : p    ? p
                         : c;
    }
}

static void k_gallery(const B *b, ScreenExpl *x, const Explanation *e)
{
    x->values = arena_array(b->a, e->n_images, sizeof *x->values);
    if (!x->values) {
        return;
    }
    int base = hover_base(b, e->n_images);
    for (size_t i = 0; i < e->n_images; i++) {
        ScreenValue *v = &x->values[i];
        v->label = e->images[i].caption;
        v->weight = e->images[i].weight;
        v->text =
            isfinite(v->weight) ? arena_num(b->a, b->s, v->weight, 2, 1) : NULL;
        v->hover = base < 0 ? -1 : base + (int)i;
    }
    x->n_values = e->n_images;
}

static void k_none(const B *b, ScreenExpl *x, const Explanation *e)
{
    (void)b;
    (void)x;
    (void)e;
}

typedef void (*KindFn)(const B *b, ScreenExpl *x, const Explanation *e);

/* One row per ExplKind: the texts its drawing shows. A new kind adds its
** row here, its row in stimuli/expl.c, and its drawing in app/render*.c
** and web/expl.js. */
static const KindFn kind_texts[] = {
    [EXPL_HEATMAP] = k_map,         [EXPL_TOKENS] = k_tokens,
    [EXPL_TOKEN_PAIRS] = k_pairs,   [EXPL_SPAN_PAIRS] = k_pairs,
    [EXPL_FEATURES] = k_features,   [EXPL_RULES] = k_rules,
    [EXPL_PROTOTYPE] = k_prototype, [EXPL_PATH] = k_path,
    [EXPL_TEXT] = k_none,           [EXPL_COMPOSITE] = k_none,
    [EXPL_IMAGE] = k_map,           [EXPL_GALLERY] = k_gallery,
    [EXPL_MARKDOWN] = k_none,       [EXPL_BARS] = k_bars,
    [EXPL_LAYOUT] = k_none,
};

_Static_assert(sizeof kind_texts / sizeof *kind_texts == EXPL_KIND_COUNT,
               "one row per ExplKind");

/* Whether the node itself (not a part) draws the item's image. */
static int own_input(const Explanation *e)
{
    return e->kind == EXPL_HEATMAP ||
           (e->kind == EXPL_IMAGE && e->n_images && !e->images[0].file);
}

/* A per-option payload's token parts on one colour scale, the largest
** weight of any part, and one legend: a weight looks as strong beside
** every candidate. */
static void share_scale(const B *b, ScreenExpl *x)
{
    double m = 0;
    for (size_t i = 0; i < x->n_parts; i++) {
        m = fmax(m, x->parts[i].scale);
    }
    for (size_t i = 0; m > 0 && i < x->n_parts; i++) {
        if (x->parts[i].scale > 0) {
            x->parts[i].scale = m;
            weight_legend(b, &x->parts[i], m);
        }
    }
}

static void build_node(const B *b, ScreenExpl *x, const Explanation *e,
                       int depth)
{
    x->payload = e;
    x->kind = expl_kind_name(e->kind);
    x->title = e->title && *e->title ? e->title : NULL;
    x->draws_input = expl_shows_input(e);
    if (own_input(e) && b->input && b->input->modality == MODALITY_IMAGE) {
        x->image_file = b->input->image_file;
    }
    if ((unsigned)e->kind < EXPL_KIND_COUNT) {
        kind_texts[e->kind](b, x, e);
    }
    if (e->n_parts && depth < 8) {
        x->parts = arena_array(b->a, e->n_parts, sizeof *x->parts);
        for (size_t i = 0; x->parts && i < e->n_parts; i++) {
            build_node(b, &x->parts[i], &e->parts[i], depth + 1);
        }
        x->n_parts = x->parts ? e->n_parts : 0;
        if (e->part_class) {
            share_scale(b, x);
        }
    }
}

ScreenExpl *screen_model_expl(ScreenModel *m, const ScreenContext *cx,
                              const Explanation *e, const ItemInput *input,
                              int compact, int hover)
{
    if (!e) {
        return NULL;
    }
    ScreenExpl *x = arena_alloc(m->arena, sizeof *x);
    if (!x) {
        return NULL;
    }
    /* the item's explanation numbers its hover values as the session does
    ** (expl_hover_targets); a reservoir card's are not hovered */
    int next = 0;
    B b = {m->arena,
           cx,
           cx->strings,
           input,
           compact,
           cx->measure ? 0 : hover,
           compact ? NULL : &next};
    build_node(&b, x, e, 0);
    return x;
}
