/*
** The published explanation formats: heatmaps, token weights and their
** interactions, LIME features, anchor rules, prototypes, decision paths,
** pre-formatted text and composites. Each parser reads its kind's fields
** and checks them (finite weights, indices in range, maps inside the
** bundle and matching the image). libc and jansson only.
*/
#include "stimuli/expl_int.h"
#include "stimuli/bpath_int.h"
#include "stimuli/media.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

/* ------------------------------------------------------------- heatmaps */

int expl_map_read(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    const char *file = NULL;
    int ok = 0;
    if (jget_str(L, at, o, "file", 1, &file) != 1) {
        return 0;
    }
    e->file = ld_strdup(L, file);
    char why[512], *abs = NULL;
    size_t n = strlen(file);
    int is_npy = n > 4 && strcmp(file + n - 4, ".npy") == 0;
    int is_png = n > 4 && strcmp(file + n - 4, ".png") == 0;
    if (!is_npy && !is_png) {
        jl_error(L, at, "file",
                 "'%s': a heatmap must be a .png or .npy "
                 "file",
                 file);
    } else if (bpath_file(L, file, &abs, why, sizeof why) != 0) {
        jl_error_file(L, at, "file", "%s", why);
    } else if (is_npy) {
        e->file_is_npy = 1;
        if (media_probe_npy(abs, &e->map_h, &e->map_w, why, sizeof why) != 0) {
            jl_error_file(L, at, "file", "'%s': %s", file, why);
        } else {
            ok = 1;
        }
    } else {
        int png = 0;
        if (media_probe_image(abs, &e->map_w, &e->map_h, &png, why,
                              sizeof why) != 0) {
            jl_error_file(L, at, "file", "'%s': %s", file, why);
        } else if (!png) {
            jl_error_file(L, at, "file", "'%s': not a PNG file (bad signature)",
                          file);
        } else {
            ok = 1;
        }
    }
    if (ok) {
        e->map_file = abs; /* what the runner opens */
        abs = NULL;
    }
    sim_free(abs);
    return ok;
}

void expl_map_fits(Loader *L, const JLoc *at, const Explanation *e, int w,
                   int h, const char *what)
{
    if (w <= 0 || h <= 0 || (e->map_w == w && e->map_h == h)) {
        return;
    }
    double lhs = (double)e->map_w * h;
    double rhs = (double)e->map_h * w;
    if (fabs(lhs - rhs) > 0.01 * rhs) {
        jl_error(L, at, "file",
                 "'%s': map is %dx%d (WxH) but %s is %dx%d: "
                 "neither the same size nor the same aspect ratio",
                 e->file, e->map_w, e->map_h, what, w, h);
    }
}

void expl_map_style(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    const char *cmap = "viridis";
    if (jget_str(L, at, o, "colormap", 0, &cmap) == 1) {
        static const char *const maps[] = {"viridis", "cividis", "magma",
                                           "gray"};
        int found = 0;
        for (size_t i = 0; i < 4; i++) {
            found |= strcmp(cmap, maps[i]) == 0;
        }
        if (!found) {
            jl_error(L, at, "colormap",
                     "'%s' is not one of viridis, cividis, magma, gray", cmap);
        }
    }
    e->colormap = ld_strdup(L, cmap);
    e->opacity = 0.5;
    if (jget_num(L, at, o, "opacity", 0, &e->opacity) == 1 &&
        (e->opacity < 0 || e->opacity > 1)) {
        jl_error(L, at, "opacity", "%g is outside [0, 1]", e->opacity);
    }
}

static int parse_heatmap(Loader *L, const JLoc *at, json_t *o, const Item *it,
                         Explanation *e)
{
    int ok = expl_map_read(L, at, o, e);
    if (ok && it) {
        const ItemInput *in = &it->input;
        if (in->modality != MODALITY_IMAGE) {
            jl_error(L, at, "file",
                     "a heatmap needs an image item ('%s' is "
                     "%s)",
                     it->key ? it->key : "?", modality_name(in->modality));
        } else {
            expl_map_fits(L, at, e, in->image_w, in->image_h, "the image");
        }
    }
    expl_map_style(L, at, o, e);
    const char *display = NULL;
    if (jget_str(L, at, o, "display", 0, &display) == 1) {
        if (strcmp(display, "side_by_side") == 0) {
            e->side_by_side = 1;
        } else if (strcmp(display, "overlay") != 0) {
            jl_error(L, at, "display", "'%s' is not overlay or side_by_side",
                     display);
        }
    }
    return 0;
}

/* --------------------------------------------------------------- tokens */

static int parse_tokens(Loader *L, const JLoc *at, json_t *o, const Item *it,
                        Explanation *e)
{
    json_t *list = expl_list_member(L, at, o, "tokens", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    e->tokens = ld_calloc(L, n, sizeof *e->tokens);
    if (!e->tokens) {
        return -1;
    }
    JLoc tl;
    jl_child(&tl, at, "tokens");
    int pair = it && it->input.modality == MODALITY_TEXT_PAIR;
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &tl, i);
        ExplToken *tok = &e->tokens[i];
        e->n_tokens = i + 1;
        json_t *text = NULL, *weight = NULL, *seg = NULL;
        if (json_is_array(t) && json_array_size(t) >= 2 &&
            json_array_size(t) <= 3) {
            text = json_array_get(t, 0);
            weight = json_array_get(t, 1);
            seg = json_array_get(t, 2);
        } else if (json_is_object(t)) {
            static const char *const known[] = {"text", "weight", "segment",
                                                NULL};
            jreject_unknown(L, &el, t, known);
            text = json_object_get(t, "text");
            weight = json_object_get(t, "weight");
            seg = json_object_get(t, "segment");
        } else {
            jl_error(L, &el, NULL,
                     "a token is {\"text\", \"weight\"} or [text, weight]");
            continue;
        }
        int is_arr = json_is_array(t);
        if (expl_text(L, &el, text, is_arr ? "0" : "text", &tok->text) != 0) {
            continue;
        }
        expl_number(L, &el, weight, is_arr ? "1" : "weight", &tok->weight);
        if (seg) {
            if (!json_is_integer(seg) || json_integer_value(seg) < 0 ||
                json_integer_value(seg) > 1) {
                jl_error(L, &el, is_arr ? "2" : "segment", "must be 0 or 1");
            } else {
                tok->segment = (int)json_integer_value(seg);
                if (tok->segment == 1 && it && !pair) {
                    jl_error(L, &el, is_arr ? "2" : "segment",
                             "segment 1 needs a text_pair item");
                }
            }
        }
    }
    return 0;
}

static int check_range(Loader *L, const JLoc *at, const char *key, json_t *v,
                       const Explanation *e, int segment, int is_span,
                       int *start, int *end)
{
    json_int_t s, t;
    if (is_span) {
        if (!json_is_array(v) || json_array_size(v) != 2 ||
            !json_is_integer(json_array_get(v, 0)) ||
            !json_is_integer(json_array_get(v, 1))) {
            jl_error(L, at, key, "must be a token range [start, end]");
            return -1;
        }
        s = json_integer_value(json_array_get(v, 0));
        t = json_integer_value(json_array_get(v, 1));
        if (s >= t) {
            jl_error(L, at, key,
                     "empty range [%" JSON_INTEGER_FORMAT
                     ", %" JSON_INTEGER_FORMAT "]",
                     s, t);
            return -1;
        }
    } else {
        if (!json_is_integer(v)) {
            jl_error(L, at, key, "must be a token index");
            return -1;
        }
        s = json_integer_value(v);
        t = s + 1;
    }
    if (s < 0 || t > (json_int_t)e->n_tokens) {
        jl_error(L, at, key, "token %s out of range (%zu tokens)",
                 is_span ? "range" : "index", e->n_tokens);
        return -1;
    }
    for (json_int_t k = s; k < t; k++) {
        if (e->tokens[k].segment != segment) {
            jl_error(L, at, key,
                     "token %" JSON_INTEGER_FORMAT
                     " is in segment %d, expected %d",
                     k, e->tokens[k].segment, segment);
            return -1;
        }
    }
    *start = (int)s;
    *end = (int)t;
    return 0;
}

static int parse_pairs(Loader *L, const JLoc *at, json_t *o, const Item *it,
                       Explanation *e, int is_span)
{
    if (parse_tokens(L, at, o, it, e) != 0) {
        return -1;
    }
    json_t *list = expl_list_member(L, at, o, "pairs", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    e->pairs = ld_calloc(L, n, sizeof *e->pairs);
    if (!e->pairs) {
        return -1;
    }
    e->n_pairs = n;
    JLoc pl;
    jl_child(&pl, at, "pairs");
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &pl, i);
        if (!json_is_object(p)) {
            jl_error(L, &el, NULL, "a pair is {\"a\", \"b\", \"weight\"}");
            continue;
        }
        static const char *const known[] = {"a", "b", "weight", NULL};
        jreject_unknown(L, &el, p, known);
        ExplPair *q = &e->pairs[i];
        json_t *a = json_object_get(p, "a"), *b = json_object_get(p, "b");
        if (!a || !b) {
            jl_error(L, &el, a ? "b" : "a", "missing (required)");
            continue;
        }
        check_range(L, &el, "a", a, e, 0, is_span, &q->a_start, &q->a_end);
        check_range(L, &el, "b", b, e, 1, is_span, &q->b_start, &q->b_end);
        expl_number(L, &el, json_object_get(p, "weight"), "weight", &q->weight);
    }
    return 0;
}

/* ------------------------------------------------------------- features */

/* Reads the list member key: {"name", "value", "weight"} objects or
** [name, weight] pairs, or with rows set the prototype rows {"name",
** "prototype", "input"}. */
static int parse_feature_list(Loader *L, const JLoc *at, json_t *list,
                              const char *key, ExplFeature **out, size_t *n_out,
                              int rows)
{
    size_t n = json_array_size(list);
    *out = ld_calloc(L, n, sizeof **out);
    if (!*out) {
        return -1;
    }
    JLoc fl;
    jl_child(&fl, at, key);
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &fl, i);
        ExplFeature *x = &(*out)[i];
        *n_out = i + 1;
        if (rows) {
            /* prototype rows: name, prototype value, input value */
            const char *name = NULL, *proto = NULL, *input = NULL;
            if (!json_is_object(f)) {
                jl_error(L, &el, NULL,
                         "a row is {\"name\", \"prototype\", "
                         "\"input\"}");
                continue;
            }
            static const char *const row_keys[] = {"name", "prototype", "input",
                                                   NULL};
            jreject_unknown(L, &el, f, row_keys);
            if (jget_str(L, &el, f, "name", 1, &name) == 1) {
                x->name = ld_strdup(L, name);
            }
            if (jget_str(L, &el, f, "prototype", 0, &proto) == 1) {
                x->other = ld_strdup(L, proto);
            }
            if (jget_str(L, &el, f, "input", 0, &input) == 1) {
                x->value = ld_strdup(L, input);
            }
            continue;
        }
        json_t *name = NULL, *weight = NULL, *value = NULL;
        int is_arr = json_is_array(f);
        if (is_arr && json_array_size(f) == 2) {
            name = json_array_get(f, 0);
            weight = json_array_get(f, 1);
        } else if (json_is_object(f)) {
            static const char *const known[] = {"name", "weight", "value",
                                                NULL};
            jreject_unknown(L, &el, f, known);
            name = json_object_get(f, "name");
            weight = json_object_get(f, "weight");
            value = json_object_get(f, "value");
        } else {
            jl_error(L, &el, NULL,
                     "a feature is {\"name\", \"weight\"} or [name, weight]");
            continue;
        }
        expl_text(L, &el, name, is_arr ? "0" : "name", &x->name);
        expl_number(L, &el, weight, is_arr ? "1" : "weight", &x->weight);
        if (value) {
            x->value = json_scalar_text(L, value);
            if (!x->value && json_is_real(value)) {
                char num[64];
                snprintf(num, sizeof num, "%g", json_real_value(value));
                x->value = ld_strdup(L, num);
            } else if (!x->value) {
                jl_error(L, &el, "value", "must be a string or a number");
            }
        }
    }
    return 0;
}

static int parse_features(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    expl_opt_num(L, at, o, "intercept", &e->intercept);
    expl_opt_num(L, at, o, "sum", &e->sum);
    expl_opt_num(L, at, o, "output", &e->output);
    json_t *list = expl_list_member(L, at, o, "features", 0);
    if (!list) {
        return -1;
    }
    parse_feature_list(L, at, list, "features", &e->features, &e->n_features,
                       0);
    if (!isnan(e->output) && !isnan(e->intercept) && !isnan(e->sum) &&
        fabs(e->output - (e->intercept + e->sum)) > 0.02) {
        jl_warn(L, at, "output", "output %g differs from intercept + sum = %g",
                e->output, e->intercept + e->sum);
    }
    return 0;
}

/* ---------------------------------------------------------------- rules */

static int parse_rules(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    jget_class(L, at, o, "predicted", 0, &e->predicted);
    json_t *list = expl_list_member(L, at, o, "rules", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    e->rules = ld_calloc(L, n, sizeof *e->rules);
    if (!e->rules) {
        return -1;
    }
    JLoc rl;
    jl_child(&rl, at, "rules");
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &rl, i);
        ExplRule *x = &e->rules[i];
        x->precision = x->coverage = NAN;
        e->n_rules = i + 1;
        json_t *conds = r;
        JLoc cl = el;
        if (json_is_object(r)) {
            static const char *const known[] = {"conditions", "precision",
                                                "coverage", NULL};
            jreject_unknown(L, &el, r, known);
            conds = expl_list_member(L, &el, r, "conditions", 0);
            if (!conds) {
                continue;
            }
            jl_child(&cl, &el, "conditions");
            const char *known_range[] = {"precision", "coverage"};
            double *dst[] = {&x->precision, &x->coverage};
            for (int k = 0; k < 2; k++) {
                if (jget_num(L, &el, r, known_range[k], 0, dst[k]) == 1 &&
                    (*dst[k] < 0 || *dst[k] > 1)) {
                    jl_error(L, &el, known_range[k], "%g is outside [0, 1]",
                             *dst[k]);
                }
            }
        } else if (!json_is_array(r) || json_array_size(r) == 0) {
            jl_error(L, &el, NULL,
                     "a rule is {\"conditions\": [...], "
                     "\"precision\", \"coverage\"}");
            continue;
        }
        size_t nc = json_array_size(conds);
        x->conditions = ld_calloc(L, nc, sizeof *x->conditions);
        if (!x->conditions) {
            return -1;
        }
        for (size_t k = 0; k < nc; k++) {
            char key[32];
            snprintf(key, sizeof key, "%zu", k);
            x->n_conditions = k + 1;
            expl_text(L, &cl, json_array_get(conds, k), key, &x->conditions[k]);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ prototype */

static int parse_prototype(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    json_t *label = json_object_get(o, "label");
    if (label) {
        e->prototype_label = json_scalar_text(L, label);
        if (!e->prototype_label) {
            jl_error(L, at, "label", "must be a class id or a text");
        } else {
            e->predicted = study_class_index(L->st, e->prototype_label);
        }
    }
    expl_opt_num(L, at, o, "evidence", &e->prototype_evidence);
    const char *text = NULL;
    if (jget_str(L, at, o, "text", 0, &text) == 1) {
        e->text = ld_strdup(L, text);
    }
    json_t *rows = json_object_get(o, "rows");
    if (rows || !text) {
        rows = expl_list_member(L, at, o, "rows", 0);
        if (rows) {
            parse_feature_list(L, at, rows, "rows", &e->rows, &e->n_rows, 1);
        }
    }
    json_t *imp = json_object_get(o, "important");
    if (imp) {
        if (!json_is_array(imp)) {
            jl_error(L, at, "important", "must be a list");
        } else {
            parse_feature_list(L, at, imp, "important", &e->features,
                               &e->n_features, 0);
        }
    }
    return 0;
}

/* ----------------------------------------------------------------- path */

static int parse_edit(Loader *L, const JLoc *at, json_t *v, Edit *out)
{
    if (!json_is_object(v)) {
        jl_error(L, at, NULL, "an edit is {\"feature\", \"from\", \"to\"}");
        return -1;
    }
    static const char *const known[] = {"feature", "from", "to", NULL};
    jreject_unknown(L, at, v, known);
    const char *s = NULL;
    if (jget_str(L, at, v, "feature", 0, &s) == 1) {
        out->feature = ld_strdup(L, s);
    }
    if (jget_str(L, at, v, "from", 0, &s) == 1) {
        out->from = ld_strdup(L, s);
    }
    if (jget_str(L, at, v, "to", 1, &s) == 1) {
        out->to = ld_strdup(L, s);
    }
    return 0;
}

static int parse_path(Loader *L, const JLoc *at, json_t *o, Explanation *e)
{
    expl_opt_num(L, at, o, "start_margin", &e->start_margin);
    jget_class(L, at, o, "target", 0, &e->predicted);
    json_t *list = expl_list_member(L, at, o, "steps", 0);
    if (!list) {
        return -1;
    }
    size_t n = json_array_size(list);
    e->steps = ld_calloc(L, n, sizeof *e->steps);
    if (!e->steps) {
        return -1;
    }
    JLoc sl;
    jl_child(&sl, at, "steps");
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(list, i);
        JLoc el;
        jl_index(&el, &sl, i);
        ExplStep *x = &e->steps[i];
        e->n_steps = i + 1;
        x->margin = NAN;
        if (!json_is_object(s)) {
            jl_error(L, &el, NULL, "a step is {\"margin\", \"edits\"}");
            continue;
        }
        static const char *const known[] = {"margin", "edits", NULL};
        jreject_unknown(L, &el, s, known);
        jget_num(L, &el, s, "margin", 1, &x->margin);
        json_t *edits = json_object_get(s, "edits");
        if (!edits) {
            continue;
        }
        if (!json_is_array(edits)) {
            jl_error(L, &el, "edits", "must be a list");
            continue;
        }
        size_t ne = json_array_size(edits);
        x->edits = ld_calloc(L, ne, sizeof *x->edits);
        if (!x->edits) {
            return -1;
        }
        x->n_edits = ne;
        JLoc eloc;
        jl_child(&eloc, &el, "edits");
        for (size_t k = 0; k < ne; k++) {
            JLoc one;
            jl_index(&one, &eloc, k);
            parse_edit(L, &one, json_array_get(edits, k), &x->edits[k]);
        }
    }
    return 0;
}

/* ---------------------------------------------------------- the kinds */

int expl_parse_heatmap(Loader *L, const JLoc *at, json_t *o, const Item *it,
                       Explanation *e, int depth)
{
    (void)depth;
    return parse_heatmap(L, at, o, it, e);
}

int expl_parse_tokens(Loader *L, const JLoc *at, json_t *o, const Item *it,
                      Explanation *e, int depth)
{
    (void)depth;
    return parse_tokens(L, at, o, it, e);
}

int expl_parse_token_pairs(Loader *L, const JLoc *at, json_t *o, const Item *it,
                           Explanation *e, int depth)
{
    (void)depth;
    return parse_pairs(L, at, o, it, e, 0);
}

int expl_parse_span_pairs(Loader *L, const JLoc *at, json_t *o, const Item *it,
                          Explanation *e, int depth)
{
    (void)depth;
    return parse_pairs(L, at, o, it, e, 1);
}

int expl_parse_features(Loader *L, const JLoc *at, json_t *o, const Item *it,
                        Explanation *e, int depth)
{
    (void)it, (void)depth;
    return parse_features(L, at, o, e);
}

int expl_parse_rules(Loader *L, const JLoc *at, json_t *o, const Item *it,
                     Explanation *e, int depth)
{
    (void)it, (void)depth;
    return parse_rules(L, at, o, e);
}

int expl_parse_prototype(Loader *L, const JLoc *at, json_t *o, const Item *it,
                         Explanation *e, int depth)
{
    (void)it, (void)depth;
    return parse_prototype(L, at, o, e);
}

int expl_parse_path(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth)
{
    (void)it, (void)depth;
    return parse_path(L, at, o, e);
}

int expl_parse_text(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth)
{
    (void)it, (void)depth;
    json_t *t = json_object_get(o, "text");
    if (!t) {
        jl_error(L, at, "text", "missing (required)");
        return -1;
    }
    return expl_text(L, at, t, "text", &e->text);
}

int expl_parse_composite(Loader *L, const JLoc *at, json_t *o, const Item *it,
                         Explanation *e, int depth)
{
    if (depth > 0) {
        jl_error(L, at, "kind", "composites may not be nested");
        return -1;
    }
    json_t *parts = expl_list_member(L, at, o, "parts", 0);
    if (!parts) {
        return -1;
    }
    return expl_parse_parts(L, at, parts, it, e, depth);
}
