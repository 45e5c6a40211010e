/*
** SessionView -> JSON for the browser (serve_view.h): the screen, its
** texts in the study's language, the item as the screen shows it, the
** explanation as a tree of nodes (one table row per field), the response
** controls. What the desktop runner would not show is never written.
*/
#include "serve/serve_view.h"
#include "experiment/session_title.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "experiment/session.h"
#include "stimuli/page.h"
#include "stimuli/questionnaire.h"

/* ----------------------------------------------------------------- media */

void serve_media_clear(ServeMediaList *m)
{
    m->n = 0;
}

void serve_media_free(ServeMediaList *m)
{
    sim_free(m->v);
    memset(m, 0, sizeof *m);
}

static const char *media_type(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".png") == 0) {
        return "image/png";
    }
    if ((n > 4 && strcmp(path + n - 4, ".jpg") == 0) ||
        (n > 5 && strcmp(path + n - 5, ".jpeg") == 0)) {
        return "image/jpeg";
    }
    return "application/octet-stream"; /* .npy maps */
}

/* Adds path to the list (once) and returns its URL as a new JSON string,
** or null for a file that study loading could not resolve. */
static json_t *media_ref(ServeMediaList *m, const char *prefix,
                         const char *path)
{
    if (!path) {
        return json_null();
    }
    size_t i = 0;
    while (i < m->n && strcmp(m->v[i].path, path) != 0) {
        i++;
    }
    if (i == m->n) {
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 8;
            ServeMedia *v = sim_realloc(m->v, cap * sizeof *v);
            if (!v) {
                return json_null();
            }
            m->v = v;
            m->cap = cap;
        }
        m->v[m->n].path = path;
        m->v[m->n].type = media_type(path);
        m->n++;
    }
    char url[256];
    snprintf(url, sizeof url, "%s%zu", prefix, i);
    return json_string(url);
}

/* ----------------------------------------------------------------- small */

typedef struct Ctx {
    const SessionView *v;
    const Study *study;
    const UiStrings *strings;
    const char *prefix;
    ServeMediaList *media;
    int *hover_next; /* the number of the next hover value (NULL: none are
                        numbered, as in a reservoir card) */
} Ctx;

static const char *tr(const Ctx *c, UiKey k)
{
    return ui_str(c->strings, k);
}

static json_t *num_or_null(double d)
{
    return isfinite(d) ? json_real(d) : json_null();
}

static const char *class_label(const Study *st, int c)
{
    return c >= 0 && (size_t)c < st->n_classes && st->classes[c].label
               ? st->classes[c].label
               : "?";
}

/* Valid UTF-8 only goes into JSON (jansson refuses the rest): bad bytes
** become U+FFFD. */
static json_t *text_json(const char *s)
{
    if (!s) {
        return json_null();
    }
    json_t *j = json_string(s);
    if (j) {
        return j;
    }
    size_t n = strlen(s);
    char *buf = sim_malloc(n * 3 + 1);
    if (!buf) {
        return json_null();
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char b = (unsigned char)s[i];
        size_t len = b < 0x80         ? 1
                     : (b >> 5) == 6  ? 2
                     : (b >> 4) == 14 ? 3
                     : (b >> 3) == 30 ? 4
                                      : 0;
        int ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) {
            ok = ((unsigned char)s[i + k] >> 6) == 2;
        }
        if (ok) {
            memcpy(buf + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    buf[o] = 0;
    j = json_string(buf);
    sim_free(buf);
    return j ? j : json_null();
}

/* ------------------------------------------------------------ the inputs */

/* Text cut into runs at the edits of segment (byte ranges of the
** perturbed text): [{"text": ..., "edit": true|false}]. */
static json_t *text_runs(const char *text, int segment, const Edit *edits,
                         size_t n_edits)
{
    json_t *runs = json_array();
    size_t len = text ? strlen(text) : 0, pos = 0;
    while (pos < len) {
        const Edit *next = NULL;
        for (size_t i = 0; i < n_edits; i++) {
            const Edit *e = &edits[i];
            if (e->feature || e->segment != segment || e->end <= e->start ||
                e->end > len || e->start < pos) {
                continue;
            }
            if (!next || e->start < next->start) {
                next = e;
            }
        }
        size_t stop = next ? next->start : len;
        char *piece;
        if (stop > pos) {
            piece = sim_malloc(stop - pos + 1);
            if (piece) {
                memcpy(piece, text + pos, stop - pos);
                piece[stop - pos] = 0;
                json_array_append_new(runs,
                                      json_pack("{s:o,s:b}", "text",
                                                text_json(piece), "edit", 0));
                sim_free(piece);
            }
        }
        if (!next) {
            break;
        }
        piece = sim_malloc(next->end - next->start + 1);
        if (piece) {
            memcpy(piece, text + next->start, next->end - next->start);
            piece[next->end - next->start] = 0;
            json_array_append_new(runs, json_pack("{s:o,s:b}", "text",
                                                  text_json(piece), "edit", 1));
            sim_free(piece);
        }
        pos = next->end;
    }
    return runs;
}

static const Edit *feature_edit(const Edit *edits, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (edits[i].feature && name && strcmp(edits[i].feature, name) == 0) {
            return &edits[i];
        }
    }
    return NULL;
}

/* An item's input (or its perturbation with edits). */
static json_t *input_json(const Ctx *c, const ItemInput *in, const Edit *edits,
                          size_t n_edits)
{
    json_t *o = json_object();
    json_object_set_new(o, "modality",
                        json_string(modality_name(in->modality)));
    switch (in->modality) {
    case MODALITY_IMAGE:
        json_object_set_new(o, "src",
                            media_ref(c->media, c->prefix, in->image_file));
        json_object_set_new(o, "w", json_integer(in->image_w));
        json_object_set_new(o, "h", json_integer(in->image_h));
        break;
    case MODALITY_TEXT:
        json_object_set_new(o, "runs", text_runs(in->text, 0, edits, n_edits));
        break;
    case MODALITY_TEXT_PAIR:
        json_object_set_new(o, "runs", text_runs(in->text, 0, edits, n_edits));
        json_object_set_new(o, "runs_b",
                            text_runs(in->text_b, 1, edits, n_edits));
        json_object_set_new(
            o, "title_a",
            text_json(in->title_a ? in->title_a : tr(c, UI_EXPL_TEXT_A)));
        json_object_set_new(
            o, "title_b",
            text_json(in->title_b ? in->title_b : tr(c, UI_EXPL_TEXT_B)));
        break;
    case MODALITY_TABULAR: {
        json_t *rows = json_array();
        for (size_t i = 0; i < in->n_features; i++) {
            const Feature *f = &in->features[i];
            json_t *r = json_pack("{s:o,s:o}", "name", text_json(f->name),
                                  "value", text_json(f->value));
            const Edit *e = feature_edit(edits, n_edits, f->name);
            if (e) {
                json_object_set_new(r, "from", text_json(e->from));
                json_object_set_new(r, "edit", json_true());
            }
            json_array_append_new(rows, r);
        }
        json_object_set_new(o, "features", rows);
        break;
    }
    }
    return o;
}

/* ---------------------------------------------------------- explanations */

/* How one field of an Explanation is written. */
typedef enum FieldType {
    F_STR = 0,    /* char * */
    F_NUM,        /* double, null when NaN */
    F_INT,        /* int */
    F_BOOL,       /* int as true/false */
    F_CLASS,      /* int class index: its label, null when < 0 */
    F_MEDIA,      /* char * absolute path: a media URL */
    F_TOKENS,     /* tokens, n_tokens */
    F_PAIRS,      /* pairs, n_pairs */
    F_FEATURES,   /* features, n_features */
    F_ROWS,       /* rows, n_rows (prototype table) */
    F_RULES,      /* rules, n_rules */
    F_STEPS,      /* steps, n_steps */
    F_PARTS,      /* parts, n_parts: child nodes */
    F_MAP_FORMAT, /* file_is_npy: "npy" or "png" */
    F_IMAGES,     /* images, n_images: media URLs, captions, weights */
    F_DOC         /* doc: a markdown payload's blocks, as a page's */
} FieldType;

typedef struct FieldRow {
    ExplKind kind; /* the kind the field belongs to */
    const char *name;
    FieldType type;
    size_t offset;
} FieldRow;

#define FIELD(k, n, t, m)                                                      \
    {                                                                          \
        k, n, t, offsetof(Explanation, m)                                      \
    }

/* Every field a browser needs, kind by kind. A new kind (or primitive)
** adds its rows here and its drawing in web/expl.js. */
static const FieldRow fields[] = {
    FIELD(EXPL_HEATMAP, "map", F_MEDIA, map_file),
    FIELD(EXPL_HEATMAP, "format", F_MAP_FORMAT, file_is_npy),
    FIELD(EXPL_HEATMAP, "map_w", F_INT, map_w),
    FIELD(EXPL_HEATMAP, "map_h", F_INT, map_h),
    FIELD(EXPL_HEATMAP, "colormap", F_STR, colormap),
    FIELD(EXPL_HEATMAP, "opacity", F_NUM, opacity),
    FIELD(EXPL_HEATMAP, "side_by_side", F_BOOL, side_by_side),
    FIELD(EXPL_TOKENS, "tokens", F_TOKENS, tokens),
    FIELD(EXPL_TOKEN_PAIRS, "tokens", F_TOKENS, tokens),
    FIELD(EXPL_TOKEN_PAIRS, "pairs", F_PAIRS, pairs),
    FIELD(EXPL_SPAN_PAIRS, "tokens", F_TOKENS, tokens),
    FIELD(EXPL_SPAN_PAIRS, "pairs", F_PAIRS, pairs),
    FIELD(EXPL_FEATURES, "features", F_FEATURES, features),
    FIELD(EXPL_FEATURES, "intercept", F_NUM, intercept),
    FIELD(EXPL_FEATURES, "sum", F_NUM, sum),
    FIELD(EXPL_FEATURES, "output", F_NUM, output),
    FIELD(EXPL_RULES, "rules", F_RULES, rules),
    FIELD(EXPL_RULES, "predicted", F_CLASS, predicted),
    FIELD(EXPL_PROTOTYPE, "prototype_label", F_STR, prototype_label),
    FIELD(EXPL_PROTOTYPE, "prototype_evidence", F_NUM, prototype_evidence),
    FIELD(EXPL_PROTOTYPE, "rows", F_ROWS, rows),
    FIELD(EXPL_PROTOTYPE, "features", F_FEATURES, features),
    FIELD(EXPL_PROTOTYPE, "predicted", F_CLASS, predicted),
    FIELD(EXPL_PATH, "start_margin", F_NUM, start_margin),
    FIELD(EXPL_PATH, "steps", F_STEPS, steps),
    FIELD(EXPL_PATH, "predicted", F_CLASS, predicted),
    FIELD(EXPL_TEXT, "text", F_STR, text),
    FIELD(EXPL_COMPOSITE, "parts", F_PARTS, parts),
    FIELD(EXPL_IMAGE, "images", F_IMAGES, images),
    FIELD(EXPL_GALLERY, "images", F_IMAGES, images),
    FIELD(EXPL_GALLERY, "columns", F_INT, columns),
    FIELD(EXPL_MARKDOWN, "doc", F_DOC, doc),
    FIELD(EXPL_BARS, "features", F_FEATURES, features),
    FIELD(EXPL_BARS, "signed", F_BOOL, bars_signed),
    FIELD(EXPL_BARS, "show_sum", F_BOOL, show_sum),
    FIELD(EXPL_BARS, "decimals", F_INT, decimals),
    FIELD(EXPL_BARS, "unit", F_STR, unit),
    FIELD(EXPL_LAYOUT, "parts", F_PARTS, parts),
    FIELD(EXPL_LAYOUT, "row", F_BOOL, row),
};

/* The overlay of an image payload (has_overlay): its map fields, as a
** heatmap's. */
static const FieldRow overlay_fields[] = {
    FIELD(EXPL_IMAGE, "map", F_MEDIA, map_file),
    FIELD(EXPL_IMAGE, "format", F_MAP_FORMAT, file_is_npy),
    FIELD(EXPL_IMAGE, "colormap", F_STR, colormap),
    FIELD(EXPL_IMAGE, "opacity", F_NUM, opacity),
    FIELD(EXPL_IMAGE, "side_by_side", F_BOOL, side_by_side),
};

static json_t *features_json(const ExplFeature *f, size_t n, int rows)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:o}", "name", text_json(f[i].name));
        json_object_set_new(o, rows ? "input" : "value", text_json(f[i].value));
        if (rows) {
            json_object_set_new(o, "prototype", text_json(f[i].other));
        } else {
            json_object_set_new(o, "weight", num_or_null(f[i].weight));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *edits_json(const Edit *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, json_pack("{s:o,s:o,s:o}", "feature",
                                           text_json(e[i].feature), "from",
                                           text_json(e[i].from), "to",
                                           text_json(e[i].to)));
    }
    return a;
}

static json_t *expl_node(const Ctx *c, const Explanation *e,
                         const ItemInput *image, int depth);
static json_t *page_json(const Ctx *c, const Page *pg);

static json_t *images_json(const Ctx *c, const Explanation *e,
                           const ItemInput *image)
{
    json_t *a = json_array();
    const ItemInput *own =
        image && image->modality == MODALITY_IMAGE ? image : NULL;
    for (size_t i = 0; i < e->n_images; i++) {
        const ExplImage *im = &e->images[i];
        /* an image without a file of its own shows the item's */
        const char *path = im->file ? im->image_file
                           : own    ? own->image_file
                                    : NULL;
        int w = im->file ? im->w : own ? own->image_w : 0;
        int h = im->file ? im->h : own ? own->image_h : 0;
        json_array_append_new(
            a,
            json_pack("{s:o,s:o,s:o,s:i,s:i}", "src",
                      path ? media_ref(c->media, c->prefix, path) : json_null(),
                      "caption", text_json(im->caption), "weight",
                      num_or_null(im->weight), "w", w, "h", h));
    }
    return a;
}

static json_t *field_json(const Ctx *c, const Explanation *e, const FieldRow *f,
                          const ItemInput *image, int depth)
{
    const char *base = (const char *)e + f->offset;
    switch (f->type) {
    case F_STR:
        return text_json(*(char *const *)(const void *)base);
    case F_NUM:
        return num_or_null(*(const double *)(const void *)base);
    case F_INT:
        return json_integer(*(const int *)(const void *)base);
    case F_BOOL:
        return json_boolean(*(const int *)(const void *)base);
    case F_CLASS: {
        int k = *(const int *)(const void *)base;
        return k >= 0 ? text_json(class_label(c->study, k)) : json_null();
    }
    case F_MEDIA:
        return media_ref(c->media, c->prefix,
                         *(char *const *)(const void *)base);
    case F_MAP_FORMAT:
        return json_string(*(const int *)(const void *)base ? "npy" : "png");
    case F_IMAGES:
        return images_json(c, e, image);
    case F_DOC:
        return page_json(c, e->doc);
    case F_TOKENS: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_tokens; i++) {
            json_array_append_new(
                a,
                json_pack("{s:o,s:o,s:i}", "text", text_json(e->tokens[i].text),
                          "weight", num_or_null(e->tokens[i].weight), "segment",
                          e->tokens[i].segment));
        }
        return a;
    }
    case F_PAIRS: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_pairs; i++) {
            const ExplPair *p = &e->pairs[i];
            json_array_append_new(a, json_pack("{s:[i,i],s:[i,i],s:o}", "a",
                                               p->a_start, p->a_end, "b",
                                               p->b_start, p->b_end, "weight",
                                               num_or_null(p->weight)));
        }
        return a;
    }
    case F_FEATURES:
        return features_json(e->features, e->n_features, 0);
    case F_ROWS:
        return features_json(e->rows, e->n_rows, 1);
    case F_RULES: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_rules; i++) {
            const ExplRule *r = &e->rules[i];
            json_t *conds = json_array();
            for (size_t k = 0; k < r->n_conditions; k++) {
                json_array_append_new(conds, text_json(r->conditions[k]));
            }
            json_array_append_new(
                a, json_pack("{s:o,s:o,s:o}", "conditions", conds, "precision",
                             num_or_null(r->precision), "coverage",
                             num_or_null(r->coverage)));
        }
        return a;
    }
    case F_STEPS: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_steps; i++) {
            json_array_append_new(
                a,
                json_pack("{s:o,s:o}", "margin",
                          num_or_null(e->steps[i].margin), "edits",
                          edits_json(e->steps[i].edits, e->steps[i].n_edits)));
        }
        return a;
    }
    case F_PARTS: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_parts && depth < 8; i++) {
            json_array_append_new(a,
                                  expl_node(c, &e->parts[i], image, depth + 1));
        }
        return a;
    }
    }
    return json_null();
}

static json_t *expl_node(const Ctx *c, const Explanation *e,
                         const ItemInput *image, int depth)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(expl_kind_name(e->kind)));
    if (e->title) {
        json_object_set_new(o, "title", text_json(e->title));
    }
    if (depth == 0) {
        json_object_set_new(o, "reveal",
                            json_string(expl_reveal_name(e->reveal)));
    }
    if (c->hover_next && e->n_parts == 0) {
        /* this node's own values are numbered before its parts', as
        ** expl_hover_targets numbers them */
        size_t n = expl_hover_targets(e, NULL, NULL);
        if (n > 0) {
            json_object_set_new(o, "hover_base", json_integer(*c->hover_next));
            *c->hover_next += (int)n;
        }
    }
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].kind == e->kind) {
            json_object_set_new(o, fields[i].name,
                                field_json(c, e, &fields[i], image, depth));
        }
    }
    for (size_t i = 0; e->kind == EXPL_IMAGE && e->has_overlay &&
                       i < sizeof overlay_fields / sizeof overlay_fields[0];
         i++) {
        json_object_set_new(o, overlay_fields[i].name,
                            field_json(c, e, &overlay_fields[i], image, depth));
    }
    if (e->kind == EXPL_HEATMAP && image && image->modality == MODALITY_IMAGE) {
        json_object_set_new(o, "image",
                            media_ref(c->media, c->prefix, image->image_file));
    }
    return o;
}

json_t *serve_expl_json(const Explanation *e, const Study *study,
                        const ItemInput *image, const char *media_prefix,
                        ServeMediaList *media)
{
    int next = 0;
    Ctx c = {NULL, study, study->ui_strings, media_prefix, media, &next};
    return expl_node(&c, e, image, 0);
}

/* Whether the explanation draws the item's image itself (a heatmap, an
** image payload without a file, or a layout or composite with one). */
static int expl_embeds_image(const Explanation *e, const Item *item)
{
    return e && item && item->input.modality == MODALITY_IMAGE &&
           expl_shows_input(e);
}

/* ------------------------------------------------------------------ page */

static json_t *page_json(const Ctx *c, const Page *pg)
{
    json_t *a = json_array();
    for (size_t i = 0; pg && i < pg->n_blocks; i++) {
        const PageBlock *b = &pg->blocks[i];
        json_t *o = json_object();
        switch (b->kind) {
        case PAGE_HEADING:
            json_object_set_new(o, "kind", json_string("heading"));
            json_object_set_new(o, "level", json_integer(b->level));
            json_object_set_new(o, "text", text_json(b->text));
            break;
        case PAGE_IMAGE:
            json_object_set_new(o, "kind", json_string("image"));
            json_object_set_new(o, "src",
                                media_ref(c->media, c->prefix, b->file));
            json_object_set_new(o, "alt", text_json(b->src));
            json_object_set_new(o, "caption", text_json(b->text));
            break;
        case PAGE_PARAGRAPH:
        case PAGE_BULLET:
        case PAGE_NUMBERED: {
            json_object_set_new(
                o, "kind",
                json_string(b->kind == PAGE_PARAGRAPH ? "paragraph"
                            : b->kind == PAGE_BULLET  ? "bullet"
                                                      : "numbered"));
            if (b->kind == PAGE_NUMBERED) {
                json_object_set_new(o, "label", text_json(b->label));
            }
            json_t *runs = json_array();
            for (size_t k = 0; k < b->n_spans; k++) {
                const PageSpan *s = &b->spans[k];
                char *piece = sim_malloc(s->len + 1);
                if (!piece) {
                    continue;
                }
                memcpy(piece, b->text + s->start, s->len);
                piece[s->len] = 0;
                json_array_append_new(runs, json_pack("{s:o,s:b,s:b}", "text",
                                                      text_json(piece),
                                                      "strong", s->strong != 0,
                                                      "em", s->em != 0));
                sim_free(piece);
            }
            json_object_set_new(o, "runs", runs);
            break;
        }
        }
        json_array_append_new(a, o);
    }
    return a;
}

/* ------------------------------------------------------------ the screen */

static json_t *scale_json(const Ctx *c, const RatingSpec *rs, UiKey q, UiKey lo,
                          UiKey hi, int value)
{
    int points = rs && rs->points >= 2 && rs->points <= 11 ? rs->points : 7;
    const char *qt =
        rs && rs->question ? ui_fmt(c->strings, q, rs->question) : tr(c, q);
    const char *lt =
        rs && rs->low ? ui_fmt(c->strings, lo, rs->low) : tr(c, lo);
    const char *ht =
        rs && rs->high ? ui_fmt(c->strings, hi, rs->high) : tr(c, hi);
    return json_pack("{s:o,s:i,s:o,s:o,s:i}", "question", text_json(qt),
                     "points", points, "low", text_json(lt), "high",
                     text_json(ht), "value", value);
}

/* The item card(s) of an item screen, as the desktop runner shows them. */
static void item_part(const Ctx *c, json_t *o)
{
    const SessionView *v = c->v;
    const Item *it = v->item;
    int predict = v->screen == SCREEN_PREDICT;
    int cf = v->screen == SCREEN_COUNTERFACTUAL || v->ask_counterfactual;
    json_t *item = json_object();
    json_object_set_new(item, "input", input_json(c, &it->input, NULL, 0));
    /* the true label and the model's output only where they are shown */
    int show_label = v->show_label && (cf || !predict) && it->label >= 0;
    int show_pred = v->show_prediction && (cf || !predict);
    if (show_label) {
        json_object_set_new(item, "label",
                            text_json(class_label(c->study, it->label)));
    }
    if (show_pred) {
        json_object_set_new(item, "output",
                            text_json(class_label(c->study, it->prediction)));
    }
    json_object_set_new(o, "item", item);
    if (cf) {
        json_t *p = json_object();
        if (v->cf_unchanged || !it->cf) {
            json_object_set_new(p, "input", input_json(c, &it->input, NULL, 0));
        } else {
            json_object_set_new(
                p, "input",
                input_json(c, &it->cf->input, it->cf->edits, it->cf->n_edits));
        }
        json_object_set_new(p, "unchanged", json_boolean(v->cf_unchanged));
        json_object_set_new(o, "counterfactual", p);
    }
    if (v->explanation) {
        /* hover values numbered as the session numbers them; reservoir
        ** cards show theirs without hovering */
        int next = 0;
        Ctx ce = *c;
        ce.hover_next = &next;
        json_object_set_new(o, "explanation",
                            expl_node(&ce, v->explanation, &it->input, 0));
        json_t *rv = json_object();
        json_object_set_new(rv, "shown", json_boolean(v->revealed));
        json_object_set_new(rv, "hover", json_integer(v->hover_target));
        json_object_set_new(rv, "n_hover", json_integer(v->n_hover));
        json_object_set_new(rv, "key", text_json(v->reveal_key));
        json_object_set_new(o, "reveal", rv);
        json_object_set_new(
            item, "embedded",
            json_boolean(!cf &&
                         v->explanation->reveal != EXPL_REVEAL_ON_REQUEST &&
                         expl_embeds_image(v->explanation, it)));
    }
    if (v->n_reservoir) {
        json_t *res = json_array();
        for (size_t i = 0; i < v->n_reservoir; i++) {
            const Item *ri = v->reservoir[i];
            const Explanation *re = v->reservoir_expl[i];
            json_t *r = json_object();
            json_object_set_new(r, "input", input_json(c, &ri->input, NULL, 0));
            json_object_set_new(
                r, "output", text_json(class_label(c->study, ri->prediction)));
            if (re) {
                json_object_set_new(r, "explanation",
                                    expl_node(c, re, &ri->input, 0));
                json_object_set_new(r, "embedded",
                                    json_boolean(expl_embeds_image(re, ri)));
                json_object_set_new(
                    r, "revealed",
                    json_boolean(v->res_revealed && v->res_revealed[i]));
            }
            json_array_append_new(res, r);
        }
        json_object_set_new(o, "reservoir", res);
    }
}

static void feedback_part(const Ctx *c, json_t *o)
{
    const SessionView *v = c->v;
    int ok = v->feedback_correct;
    char detail[700] = "";
    if (v->question) {
        if (ok) {
            snprintf(detail, sizeof detail, "%s",
                     tr(c, UI_FEEDBACK_QUIZ_RIGHT));
        } else if (v->feedback_final && v->feedback_answer >= 0 &&
                   (size_t)v->feedback_answer < v->question->n_options) {
            snprintf(detail, sizeof detail,
                     ui_fmt(c->strings, UI_FEEDBACK_QUIZ_ANSWER,
                            "The right answer is: **%s**"),
                     v->question->options[v->feedback_answer]);
        } else {
            snprintf(detail, sizeof detail, "%s",
                     tr(c, UI_FEEDBACK_QUIZ_AGAIN));
        }
    } else if (ok || v->feedback_final) {
        snprintf(detail, sizeof detail,
                 ui_fmt(c->strings, UI_FEEDBACK_MODEL_OUTPUT,
                        "The model's output was **%s**."),
                 class_label(c->study, v->feedback_answer));
    } else {
        snprintf(detail, sizeof detail, "%s", tr(c, UI_FEEDBACK_MODEL_AGAIN));
    }
    json_t *f = json_pack(
        "{s:b,s:b,s:o,s:o}", "correct", ok, "final", v->feedback_final, "head",
        text_json(ok ? tr(c, UI_FEEDBACK_CORRECT) : tr(c, UI_FEEDBACK_WRONG)),
        "detail", text_json(detail));
    if (v->item && !v->question) {
        json_object_set_new(f, "input",
                            input_json(c, &v->item->input, NULL, 0));
    }
    json_object_set_new(o, "feedback", f);
}

static void questionnaire_part(const Ctx *c, json_t *o)
{
    const SessionView *v = c->v;
    const Block *b = v->block;
    json_t *qs = json_array();
    for (size_t i = 0; b && i < b->n_survey; i++) {
        const SurveyQuestion *sq = &b->survey[i];
        json_t *q = json_pack("{s:o,s:s,s:o,s:b}", "id", text_json(sq->id),
                              "type", question_type_name(sq->type), "text",
                              text_json(sq->text), "required", sq->required);
        switch (sq->type) {
        case QTYPE_NUMBER:
            json_object_set_new(q, "min", num_or_null(sq->min));
            json_object_set_new(q, "max", num_or_null(sq->max));
            break;
        case QTYPE_CHOICE: {
            json_t *opts = json_array();
            for (size_t k = 0; k < sq->n_options; k++) {
                json_array_append_new(opts, text_json(sq->options[k]));
            }
            json_object_set_new(q, "options", opts);
            break;
        }
        case QTYPE_LIKERT:
            json_object_set_new(q, "points", json_integer(sq->points));
            json_object_set_new(q, "low", text_json(sq->low));
            json_object_set_new(q, "high", text_json(sq->high));
            break;
        case QTYPE_TEXT:
            json_object_set_new(q, "max_length", json_integer(sq->max_length));
            break;
        }
        const char *ans = v->answers && v->answers[i] ? v->answers[i] : "";
        json_object_set_new(q, "answer", text_json(ans));
        AnswerProblem p =
            v->answer_problems ? v->answer_problems[i] : ANSWER_OK;
        int empty = questionnaire_check(sq, ans, NULL) == 0;
        if (p != ANSWER_OK) {
            char why[256];
            questionnaire_problem_text(c->strings, sq, p, why, sizeof why);
            json_object_set_new(q, "problem", text_json(why));
        } else if (v->answers_tried && sq->required && empty) {
            json_object_set_new(q, "problem",
                                text_json(tr(c, UI_QUESTIONNAIRE_MISSING)));
        }
        json_array_append_new(qs, q);
    }
    json_t *qo = json_pack("{s:o,s:b,s:b}", "questions", qs, "complete",
                           v->answers_complete, "tried", v->answers_tried);
    if (v->page_text && v->page_text[0]) {
        json_object_set_new(qo, "intro", text_json(v->page_text));
    }
    json_object_set_new(o, "questionnaire", qo);
}

/* The keys that mean something on this screen (the browser sends only
** these; the session maps them as on the desktop). */
static json_t *keys_json(const Ctx *c)
{
    const SessionView *v = c->v;
    json_t *a = json_array();
    if (v->screen == SCREEN_QUESTIONNAIRE) {
        return a; /* typed text goes to the fields; Continue is a click */
    }
    if (v->need_continue) {
        json_array_append_new(a, json_string("return"));
        json_array_append_new(a, json_string("space"));
    }
    if (v->need_choice && !v->question) {
        for (size_t i = 0; i < v->n_classes; i++) {
            if (v->classes[i].key && v->classes[i].key[0]) {
                json_array_append_new(a, text_json(v->classes[i].key));
            }
        }
    }
    int digits = 0;
    if (v->need_choice && v->question) {
        digits = (int)v->question->n_options;
    }
    if (v->need_rating && v->rating_spec && v->rating_spec->points > digits) {
        digits = v->rating_spec->points;
    }
    if (v->confidence_spec && v->confidence_spec->points > digits) {
        digits = v->confidence_spec->points;
    }
    for (int d = 1; d <= digits && d <= 10; d++) {
        char k[4];
        snprintf(k, sizeof k, "%d", d % 10);
        json_array_append_new(a, json_string(k));
    }
    return a;
}

json_t *serve_view_json(const SessionView *v, const Study *study,
                        const char *media_prefix, ServeMediaList *media)
{
    Ctx c = {v, study, study->ui_strings, media_prefix, media, NULL};
    serve_media_clear(media);
    json_t *o = json_object();
    if (!o) {
        return NULL;
    }
    json_object_set_new(o, "screen",
                        json_string(session_screen_name(v->screen)));
    json_object_set_new(o, "serial", json_integer(v->screen_serial));
    char tbuf[160];
    json_object_set_new(
        o, "title",
        text_json(session_title(c.v, c.strings, tbuf, sizeof tbuf)));
    int item_screen =
        v->screen == SCREEN_EXAMPLE || v->screen == SCREEN_PREDICT ||
        v->screen == SCREEN_COUNTERFACTUAL || v->screen == SCREEN_RATING ||
        v->screen == SCREEN_FEEDBACK;
    if (item_screen && v->progress_total > 0) {
        char prog[64];
        int done = v->progress_done + 1 > v->progress_total
                       ? v->progress_total
                       : v->progress_done + 1;
        snprintf(prog, sizeof prog, ui_fmt(c.strings, UI_PROGRESS, "%d of %d"),
                 done, v->progress_total);
        json_object_set_new(o, "progress",
                            json_pack("{s:i,s:i,s:o}", "done", done, "total",
                                      v->progress_total, "text",
                                      text_json(prog)));
    }
    switch (v->screen) {
    case SCREEN_PAUSED:
    case SCREEN_STORE_ERROR:
    case SCREEN_SCREENED_OUT:
    case SCREEN_DONE: {
        static const UiKey heads[][2] = {
            {UI_PAUSED_TITLE, UI_PAUSED_TEXT},
            {UI_WAIT_TITLE, UI_WAIT_TEXT},
            {UI_SCREENED_OUT_TITLE, UI_SCREENED_OUT_TEXT},
            {UI_DONE_TITLE, UI_DONE_TEXT}};
        int k = v->screen == SCREEN_PAUSED         ? 0
                : v->screen == SCREEN_STORE_ERROR  ? 1
                : v->screen == SCREEN_SCREENED_OUT ? 2
                                                   : 3;
        json_object_set_new(o, "message",
                            json_pack("{s:o,s:o}", "title",
                                      text_json(tr(&c, heads[k][0])), "text",
                                      text_json(tr(&c, heads[k][1]))));
        return o;
    }
    default:
        break;
    }
    if (v->page && v->screen != SCREEN_QUESTIONNAIRE) {
        json_object_set_new(o, "page", page_json(&c, v->page));
    } else if (v->screen == SCREEN_BREAK) {
        json_object_set_new(
            o, "text",
            text_json(v->page_text ? v->page_text : tr(&c, UI_BREAK_TEXT)));
        json_object_set_new(o, "heading", text_json(tr(&c, UI_BREAK_TITLE)));
    }
    if (v->screen == SCREEN_TIMEOUT) {
        json_object_set_new(
            o, "text", text_json(v->timeout_message ? v->timeout_message : ""));
    }
    if (v->question && v->screen == SCREEN_QUIZ) {
        json_t *opts = json_array();
        for (size_t i = 0; i < v->question->n_options; i++) {
            json_array_append_new(opts, text_json(v->question->options[i]));
        }
        json_object_set_new(
            o, "quiz",
            json_pack("{s:o,s:o,s:i,s:o}", "text",
                      text_json(v->question->text ? v->question->text : ""),
                      "options", opts, "choice", v->choice, "retry",
                      v->attempt > 1 ? text_json(tr(&c, UI_QUIZ_RETRY))
                                     : json_null()));
    }
    if (v->item &&
        (v->screen == SCREEN_EXAMPLE || v->screen == SCREEN_PREDICT ||
         v->screen == SCREEN_COUNTERFACTUAL || v->screen == SCREEN_RATING)) {
        item_part(&c, o);
    }
    if (v->screen == SCREEN_FEEDBACK) {
        feedback_part(&c, o);
    }
    if (v->screen == SCREEN_QUESTIONNAIRE) {
        questionnaire_part(&c, o);
    }
    if (v->need_choice && !v->question) {
        json_t *cl = json_array();
        for (size_t i = 0; i < v->n_classes; i++) {
            json_array_append_new(cl, json_pack("{s:o,s:o}", "label",
                                                text_json(v->classes[i].label),
                                                "key",
                                                text_json(v->classes[i].key)));
        }
        json_object_set_new(
            o, "choice",
            json_pack("{s:o,s:o,s:i}", "question",
                      text_json(v->screen == SCREEN_COUNTERFACTUAL
                                    ? tr(&c, UI_CF_QUESTION)
                                    : tr(&c, UI_PREDICT_QUESTION)),
                      "classes", cl, "value", v->choice));
    }
    if (v->need_rating) {
        json_object_set_new(o, "rating",
                            scale_json(&c, v->rating_spec, UI_RATING_QUESTION,
                                       UI_RATING_LOW, UI_RATING_HIGH,
                                       v->rating));
    }
    if (v->confidence_spec) {
        json_t *k =
            scale_json(&c, v->confidence_spec, UI_CONFIDENCE_QUESTION,
                       UI_CONFIDENCE_LOW, UI_CONFIDENCE_HIGH, v->confidence);
        json_object_set_new(k, "enabled", json_boolean(v->choice >= 0));
        json_object_set_new(o, "confidence", k);
    }
    int need_cont = v->need_continue || (v->screen == SCREEN_EXAMPLE &&
                                         !v->need_choice && !v->need_rating);
    if (need_cont) {
        const char *label = tr(&c, UI_CONTINUE);
        if (v->screen == SCREEN_CONSENT) {
            label = tr(&c, UI_CONSENT_AGREE);
        } else if (v->screen == SCREEN_FEEDBACK && !v->feedback_final &&
                   !v->feedback_correct) {
            label = tr(&c, UI_TRY_AGAIN);
        }
        json_t *k =
            json_pack("{s:o,s:b,s:b}", "label", text_json(label), "gate",
                      v->scroll_gate, "decline", v->screen == SCREEN_CONSENT);
        if (v->screen == SCREEN_CONSENT) {
            json_object_set_new(k, "decline_label",
                                text_json(tr(&c, UI_CONSENT_DECLINE)));
        }
        if (v->continue_after_ns > 0) {
            json_object_set_new(k, "after_ms",
                                json_real((double)v->continue_after_ns / 1e6));
        } else if (!v->onset_marked && v->block && v->block->min_seconds > 0 &&
                   (v->screen == SCREEN_PAGE || v->screen == SCREEN_CONSENT ||
                    v->screen == SCREEN_BREAK ||
                    v->screen == SCREEN_QUESTIONNAIRE)) {
            json_object_set_new(k, "wait_s",
                                json_integer(v->block->min_seconds));
        }
        json_object_set_new(o, "continue", k);
    }
    if (v->block && v->block->require_scroll) {
        json_object_set_new(o, "require_scroll", json_true());
    }
    if (v->block && v->block->time_limit_ms > 0 &&
        (v->screen == SCREEN_PREDICT || v->screen == SCREEN_COUNTERFACTUAL) &&
        v->need_choice) {
        json_t *d = json_pack("{s:i,s:b}", "limit_ms", v->block->time_limit_ms,
                              "countdown", v->block->deadline_countdown);
        if (v->deadline_ns > 0) {
            json_object_set_new(d, "at_ms",
                                json_real((double)v->deadline_ns / 1e6));
        }
        json_object_set_new(o, "deadline", d);
    }
    json_object_set_new(o, "keys", keys_json(&c));
    return o;
}

json_t *serve_strings_json(const Study *study)
{
    const UiStrings *t = study->ui_strings;
    json_t *o = json_object();
    json_t *s = json_object();
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        json_object_set_new(s, ui_key_name((UiKey)k),
                            text_json(ui_str(t, (UiKey)k)));
    }
    json_object_set_new(o, "strings", s);
    json_object_set_new(o, "lang",
                        json_string(t ? ui_strings_language(t) : "en"));
    json_object_set_new(o, "dir",
                        json_string(ui_strings_rtl(t) ? "rtl" : "ltr"));
    return o;
}
