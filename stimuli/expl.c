/*
** Explanation payloads: the table of kinds (name, fields, parser, what a
** kind holds), the entry that reads any payload with the fields every
** payload shares (kind, title, reveal), the walk over a payload's media,
** and freeing. The parsers: expl_kinds.c (published formats) and
** expl_prims.c (primitives). libc and jansson only.
*/
#include "stimuli/expl_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/page.h"

void expl_edits_free(Edit *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(e[i].feature);
        sim_free(e[i].from);
        sim_free(e[i].to);
    }
    sim_free(e);
}

static void efeatures_free(ExplFeature *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(f[i].name);
        sim_free(f[i].value);
        sim_free(f[i].other);
    }
    sim_free(f);
}

void expl_clear(Explanation *e)
{
    if (!e) {
        return;
    }
    sim_free(e->title);
    sim_free(e->file);
    sim_free(e->map_file);
    sim_free(e->colormap);
    for (size_t i = 0; i < e->n_tokens; i++) {
        sim_free(e->tokens[i].text);
    }
    sim_free(e->tokens);
    sim_free(e->pairs);
    efeatures_free(e->features, e->n_features);
    for (size_t i = 0; i < e->n_rules; i++) {
        for (size_t k = 0; k < e->rules[i].n_conditions; k++) {
            sim_free(e->rules[i].conditions[k]);
        }
        sim_free(e->rules[i].conditions);
    }
    sim_free(e->rules);
    sim_free(e->prototype_label);
    efeatures_free(e->rows, e->n_rows);
    for (size_t i = 0; i < e->n_steps; i++) {
        expl_edits_free(e->steps[i].edits, e->steps[i].n_edits);
    }
    sim_free(e->steps);
    sim_free(e->text);
    page_free(e->doc);
    for (size_t i = 0; i < e->n_images; i++) {
        sim_free(e->images[i].file);
        sim_free(e->images[i].image_file);
        sim_free(e->images[i].caption);
    }
    sim_free(e->images);
    sim_free(e->unit);
    for (size_t i = 0; i < e->n_parts; i++) {
        expl_clear(&e->parts[i]);
    }
    sim_free(e->parts);
    sim_free(e->part_class);
    memset(e, 0, sizeof *e);
}

json_t *expl_list_member(Loader *L, const JLoc *at, json_t *obj,
                         const char *key, int allow_empty)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        jl_error(L, at, key, "missing (required)");
        return NULL;
    }
    if (!json_is_array(v)) {
        jl_error(L, at, key, "must be a list");
        return NULL;
    }
    if (!allow_empty && json_array_size(v) == 0) {
        jl_error(L, at, key, "must not be empty");
        return NULL;
    }
    return v;
}

int expl_text(Loader *L, const JLoc *at, json_t *v, const char *key, char **out)
{
    if (!json_is_string(v) || json_string_length(v) == 0) {
        jl_error(L, at, key, "must be a non-empty string");
        return -1;
    }
    *out = ld_strdup(L, json_string_value(v));
    return *out ? 0 : -1;
}

int expl_number(Loader *L, const JLoc *at, json_t *v, const char *key,
                double *out)
{
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        jl_error(L, at, key, "must be a finite number");
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

void expl_opt_num(Loader *L, const JLoc *at, json_t *o, const char *key,
                  double *out)
{
    *out = NAN;
    jget_num(L, at, o, key, 0, out);
}

/* What a kind holds (flags of its row). */
enum {
    KIND_HOVER = 1,      /* values a participant may hover (reveal: hover) */
    KIND_SHOWS_INPUT = 2 /* draws the item's input itself */
};

/* One row per ExplKind: its name in payloads, the fields of its payload
** (besides common_keys), its parser and what it holds. expl_clear frees
** every kind; expl_media walks every kind's files. */
static const struct {
    const char *name;
    const char *const *keys; /* NULL-terminated */
    ExplParseFn parse;
    int flags; /* KIND_* */
} kinds[] = {
    [EXPL_HEATMAP] = {"heatmap",
                      (const char *const[]){"file", "colormap", "opacity",
                                            "display", NULL},
                      expl_parse_heatmap, KIND_SHOWS_INPUT},
    [EXPL_TOKENS] = {"tokens", (const char *const[]){"tokens", NULL},
                     expl_parse_tokens, KIND_HOVER | KIND_SHOWS_INPUT},
    [EXPL_TOKEN_PAIRS] = {"token_pairs",
                          (const char *const[]){"tokens", "pairs", NULL},
                          expl_parse_token_pairs,
                          KIND_HOVER | KIND_SHOWS_INPUT},
    [EXPL_SPAN_PAIRS] = {"span_pairs",
                         (const char *const[]){"tokens", "pairs", NULL},
                         expl_parse_span_pairs, KIND_HOVER | KIND_SHOWS_INPUT},
    [EXPL_FEATURES] = {"features",
                       (const char *const[]){"features", "intercept", "sum",
                                             "output", NULL},
                       expl_parse_features, KIND_HOVER},
    [EXPL_RULES] = {"rules", (const char *const[]){"predicted", "rules", NULL},
                    expl_parse_rules, 0},
    [EXPL_PROTOTYPE] = {"prototype",
                        (const char *const[]){"label", "evidence", "rows",
                                              "important", "text", NULL},
                        expl_parse_prototype, KIND_HOVER},
    [EXPL_PATH] = {"path",
                   (const char *const[]){"start_margin", "target", "steps",
                                         NULL},
                   expl_parse_path, 0},
    [EXPL_TEXT] = {"text", (const char *const[]){"text", NULL}, expl_parse_text,
                   0},
    [EXPL_COMPOSITE] = {"composite", (const char *const[]){"parts", NULL},
                        expl_parse_composite, 0},
    [EXPL_IMAGE] = {"image",
                    (const char *const[]){"file", "caption", "overlay", NULL},
                    expl_parse_image, 0},
    [EXPL_GALLERY] = {"gallery",
                      (const char *const[]){"images", "columns", NULL},
                      expl_parse_gallery, KIND_HOVER},
    [EXPL_MARKDOWN] = {"markdown", (const char *const[]){"text", NULL},
                       expl_parse_markdown, 0},
    [EXPL_BARS] = {"bars",
                   (const char *const[]){"bars", "signed", "unit", "sum",
                                         "decimals", NULL},
                   expl_parse_bars, KIND_HOVER},
    [EXPL_LAYOUT] = {"layout",
                     (const char *const[]){"direction", "parts", NULL},
                     expl_parse_layout, 0},
};

_Static_assert(sizeof kinds / sizeof *kinds == EXPL_KIND_COUNT,
               "one row per ExplKind");

/* Fields of every payload. */
static const char *const common_keys[] = {"kind",   "title",  "id", "pool",
                                          "method", "reveal", NULL};

static const char *const reveal_names[] = {"always", "on_request", "hover"};

const char *expl_kind_name(ExplKind k)
{
    return (unsigned)k < EXPL_KIND_COUNT ? kinds[k].name : "?";
}

const char *expl_reveal_name(ExplReveal r)
{
    return (unsigned)r < 3 ? reveal_names[r] : "?";
}

int expl_kind_hoverable(ExplKind k)
{
    return (unsigned)k < EXPL_KIND_COUNT && (kinds[k].flags & KIND_HOVER);
}

int expl_shows_input(const Explanation *e)
{
    if (!e || (unsigned)e->kind >= EXPL_KIND_COUNT) {
        return 0;
    }
    if (e->kind == EXPL_IMAGE) {
        return e->n_images > 0 && !e->images[0].file;
    }
    for (size_t i = 0; i < e->n_parts; i++) {
        if (expl_shows_input(&e->parts[i])) {
            return 1; /* a part draws it */
        }
    }
    return (kinds[e->kind].flags & KIND_SHOWS_INPUT) != 0;
}

/* Whether e or one of its parts is of a hoverable kind. */
static int has_hover_values(const Explanation *e)
{
    if (expl_kind_hoverable(e->kind)) {
        return 1;
    }
    for (size_t i = 0; i < e->n_parts; i++) {
        if (has_hover_values(&e->parts[i])) {
            return 1;
        }
    }
    return 0;
}

void expl_media(const Explanation *e, const ItemInput *input, ExplMediaFn fn,
                void *ctx)
{
    if (!e) {
        return;
    }
    int uses_input =
        e->kind == EXPL_HEATMAP ||
        (e->kind == EXPL_IMAGE && e->n_images && !e->images[0].file);
    if (uses_input && input && input->modality == MODALITY_IMAGE) {
        fn(ctx, input->text, input->image_file, 0, 0, NULL);
    }
    for (size_t i = 0; i < e->n_images; i++) {
        if (e->images[i].file) {
            fn(ctx, e->images[i].file, e->images[i].image_file, 0, 0, NULL);
        }
    }
    if (e->kind == EXPL_HEATMAP || e->has_overlay) {
        fn(ctx, e->file, e->map_file, 1, e->file_is_npy, e->colormap);
    }
    for (size_t i = 0; i < e->n_parts; i++) {
        expl_media(&e->parts[i], input, fn, ctx);
    }
}

/* Numbers e's hover targets from *next on (expl_hover_targets). */
static void hover_walk(const Explanation *e, ExplTargetFn fn, void *ctx,
                       size_t *next)
{
    size_t n = 0;
    switch (e->kind) {
    case EXPL_TOKENS:
    case EXPL_TOKEN_PAIRS:
    case EXPL_SPAN_PAIRS:
        for (size_t i = 0; fn && i < e->n_tokens; i++) {
            fn(ctx, *next + i, e->tokens[i].text);
        }
        n = e->n_tokens;
        break;
    case EXPL_FEATURES:
    case EXPL_BARS:
    case EXPL_PROTOTYPE:
        n = e->kind == EXPL_PROTOTYPE && e->n_features > 6 ? 6 : e->n_features;
        for (size_t i = 0; fn && i < n; i++) {
            fn(ctx, *next + i, e->features[i].name);
        }
        break;
    case EXPL_GALLERY:
        for (size_t i = 0; fn && i < e->n_images; i++) {
            const ExplImage *im = &e->images[i];
            fn(ctx, *next + i, im->caption ? im->caption : im->file);
        }
        n = e->n_images;
        break;
    default:
        break;
    }
    *next += n;
    for (size_t i = 0; i < e->n_parts; i++) {
        hover_walk(&e->parts[i], fn, ctx, next);
    }
}

size_t expl_hover_targets(const Explanation *e, ExplTargetFn fn, void *ctx)
{
    size_t n = 0;
    if (e) {
        hover_walk(e, fn, ctx, &n);
    }
    return n;
}

/* The reveal named r (on_request also spelled on-request, as `simlab new
** --explanation` names it), or -1. */
static int reveal_from_name(const char *r)
{
    for (int k = 0; k < 3; k++) {
        const char *n = reveal_names[k];
        size_t i = 0;
        while (r[i] && n[i] && (r[i] == n[i] || (r[i] == '-' && n[i] == '_'))) {
            i++;
        }
        if (!r[i] && !n[i]) {
            return k;
        }
    }
    return -1;
}

/* "reveal" of the payload at depth: only the whole explanation is revealed
** (top level), and hovering needs values to hover. */
static void parse_reveal(Loader *L, const JLoc *at, json_t *v, int depth,
                         Explanation *e)
{
    const char *r = NULL;
    if (jget_str(L, at, v, "reveal", 0, &r) != 1) {
        return;
    }
    int k = reveal_from_name(r);
    const char *near = k < 0 ? sim_suggest(r, reveal_names, 3) : NULL;
    if (near) {
        jl_error(L, at, "reveal",
                 "'%s' is not always, on_request or hover (did you mean "
                 "'%s'?)",
                 r, near);
    } else if (k < 0) {
        jl_error(L, at, "reveal", "'%s' is not always, on_request or hover", r);
    } else if (depth > 0 && k != EXPL_REVEAL_ALWAYS) {
        jl_error(L, at, "reveal",
                 "a part is revealed with its explanation: set \"reveal\" on "
                 "the top-level payload");
    } else if (k == EXPL_REVEAL_HOVER && !has_hover_values(e)) {
        jl_error(L, at, "reveal",
                 "'hover' shows values on hover: a %s explanation has none "
                 "(tokens, token_pairs, span_pairs, features, prototype, bars "
                 "and gallery have)",
                 expl_kind_name(e->kind));
    } else {
        e->reveal = (ExplReveal)k;
    }
}

int expl_kind_from_name(const char *name)
{
    for (int k = 0; k < EXPL_KIND_COUNT; k++) {
        if (name && strcmp(name, kinds[k].name) == 0) {
            return k;
        }
    }
    return -1;
}

const char *expl_kind_suggest(const char *name)
{
    const char *names[EXPL_KIND_COUNT];
    for (int k = 0; k < EXPL_KIND_COUNT; k++) {
        names[k] = kinds[k].name;
    }
    return name ? sim_suggest(name, names, EXPL_KIND_COUNT) : NULL;
}

static void reject_unknown_payload(Loader *L, const JLoc *at, json_t *o,
                                   int kind)
{
    const char *known[64];
    size_t n = 0;
    for (size_t i = 0; common_keys[i] && n + 1 < 64; i++) {
        known[n++] = common_keys[i];
    }
    for (size_t i = 0; kinds[kind].keys[i] && n + 1 < 64; i++) {
        known[n++] = kinds[kind].keys[i];
    }
    known[n] = NULL;
    char what[64];
    snprintf(what, sizeof what, "a %s explanation", kinds[kind].name);
    jreject_unknown_of(L, at, o, known, what);
}

int expl_parse_parts(Loader *L, const JLoc *at, json_t *parts, const Item *it,
                     Explanation *e, int depth)
{
    size_t n = json_array_size(parts);
    e->parts = ld_calloc(L, n, sizeof *e->parts);
    if (!e->parts) {
        return -1;
    }
    JLoc pl;
    jl_child(&pl, at, "parts");
    for (size_t i = 0; i < n; i++) {
        JLoc el;
        jl_index(&el, &pl, i);
        e->n_parts = i + 1;
        expl_parse(L, &el, json_array_get(parts, i), NULL, it, &e->parts[i],
                   depth + 1);
    }
    return 0;
}

int expl_parse(Loader *L, const JLoc *at, json_t *v, const char *default_kind,
               const Item *item, Explanation *e, int depth)
{
    memset(e, 0, sizeof *e);
    e->predicted = -1;
    e->intercept = e->sum = e->output = NAN;
    e->prototype_evidence = e->start_margin = NAN;
    size_t errors_before = L->n_raised;
    if (json_is_string(v) &&
        (!default_kind || strcmp(default_kind, "text") == 0)) {
        e->kind = EXPL_TEXT;
        if (json_string_length(v) == 0) {
            jl_error(L, at, NULL, "empty explanation text");
            return -1;
        }
        e->text = ld_strdup(L, json_string_value(v));
        return e->text ? 0 : -1;
    }
    if (!json_is_object(v)) {
        jl_error(L, at, NULL,
                 "an explanation must be an object with a "
                 "\"kind\" (or a text)");
        return -1;
    }
    if (options_is_payload(v)) {
        const char *title = NULL;
        if (jget_str(L, at, v, "title", 0, &title) == 1) {
            e->title = ld_strdup(L, title);
        }
        options_parse_payload(L, at, v, item, e, depth);
        parse_reveal(L, at, v, depth, e);
        return L->n_raised == errors_before && !L->oom ? 0 : -1;
    }
    const char *kind_name = default_kind;
    if (jget_str(L, at, v, "kind", !default_kind, &kind_name) < 0 ||
        !kind_name) {
        return -1;
    }
    int kind = expl_kind_from_name(kind_name);
    const char *near = kind < 0 ? expl_kind_suggest(kind_name) : NULL;
    if (near) {
        jl_error(L, at, "kind",
                 "unknown explanation kind '%s' (did you mean '%s'?)",
                 kind_name, near);
        return -1;
    }
    if (kind < 0) {
        char names[400];
        size_t len = 0;
        for (int k = 0; k < EXPL_KIND_COUNT && len < sizeof names; k++) {
            int w = snprintf(names + len, sizeof names - len, "%s%s",
                             k ? ", " : "", kinds[k].name);
            len += w > 0 ? (size_t)w : 0;
        }
        jl_error(L, at, "kind", "unknown explanation kind '%s' (%s)", kind_name,
                 names);
        return -1;
    }
    e->kind = (ExplKind)kind;
    reject_unknown_payload(L, at, v, kind);
    const char *title = NULL;
    if (jget_str(L, at, v, "title", 0, &title) == 1) {
        e->title = ld_strdup(L, title);
    }
    kinds[kind].parse(L, at, v, item, e, depth);
    parse_reveal(L, at, v, depth, e);
    return L->n_raised == errors_before && !L->oom ? 0 : -1;
}

int expl_item_failed(const Item *item, const char *method)
{
    for (size_t i = 0; i < item->n_expl; i++) {
        if (strcmp(item->expl[i].method, method) == 0) {
            return item->expl[i].e == NULL;
        }
    }
    return 0;
}

int expl_attach(Loader *L, Item *item, const char *method, Explanation *e)
{
    for (size_t i = 0; i < item->n_expl; i++) {
        if (strcmp(item->expl[i].method, method) == 0) {
            return -1;
        }
    }
    char *m = ld_strdup(L, method);
    ItemExplanation *arr =
        m ? sim_realloc(item->expl, (item->n_expl + 1) * sizeof *arr) : NULL;
    Explanation *owned = arr && e ? sim_malloc(sizeof *owned) : NULL;
    if (!arr || (e && !owned)) {
        L->oom = 1;
        sim_free(m);
        if (arr) {
            item->expl = arr;
        }
        expl_clear(e);
        return -2;
    }
    item->expl = arr;
    if (owned) {
        *owned = *e;
    }
    arr[item->n_expl].method = m;
    arr[item->n_expl].e = owned;
    item->n_expl++;
    Study *st = L->st;
    for (size_t i = 0; i < st->n_methods; i++) {
        if (strcmp(st->methods[i], method) == 0) {
            return 0;
        }
    }
    char **ms = sim_realloc(st->methods, (st->n_methods + 1) * sizeof *ms);
    char *copy = ms ? ld_strdup(L, method) : NULL;
    if (ms) {
        st->methods = ms;
    }
    if (!copy) {
        L->oom = 1;
        return 0;
    }
    st->methods[st->n_methods++] = copy;
    return 0;
}
