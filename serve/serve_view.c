/*
** The screen model as JSON for the browser (serve_view.h): one table per
** struct of experiment/screen_model.h, one row per member (a test ties the
** rows to the structs), and the payload of an explanation kind by kind
** (one row per field of its kind). What the model does not hold is never
** written: the browser draws the model and decides nothing.
*/
#include "serve/serve_view.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
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

/* What writing reads: where media go and how they are named. */
typedef struct W {
    const Study *study;
    const char *prefix;
    ServeMediaList *media;
} W;

/* Adds path to the list (once) and returns its URL as a new JSON string,
** or null for a file that study loading could not resolve. */
static json_t *media_ref(const W *w, const char *path)
{
    ServeMediaList *m = w->media;
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
    snprintf(url, sizeof url, "%s%zu", w->prefix, i);
    return json_string(url);
}

/* ----------------------------------------------------------------- small */

static json_t *num_or_null(double d)
{
    return isfinite(d) ? json_real(d) : json_null();
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

static const char *class_label(const Study *st, int c)
{
    return c >= 0 && (size_t)c < st->n_classes && st->classes[c].label
               ? st->classes[c].label
               : "?";
}

/* ------------------------------------------------------------------ page */

static json_t *page_json(const W *w, const Page *pg)
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
            json_object_set_new(o, "src", media_ref(w, b->file));
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

/* ------------------------------------------------- explanation payloads */

/* How one field of an Explanation is written. */
typedef enum PayType {
    P_STR = 0,    /* char * */
    P_NUM,        /* double, null when NaN */
    P_INT,        /* int */
    P_BOOL,       /* int as true/false */
    P_CLASS,      /* int class index: its label, null when < 0 */
    P_MEDIA,      /* char * absolute path: a media URL */
    P_TOKENS,     /* tokens, n_tokens */
    P_PAIRS,      /* pairs, n_pairs */
    P_FEATURES,   /* features, n_features */
    P_ROWS,       /* rows, n_rows (prototype table) */
    P_RULES,      /* rules, n_rules */
    P_MAP_FORMAT, /* file_is_npy: "npy" or "png" */
    P_IMAGES,     /* images, n_images: media URLs, captions, weights */
    P_DOC         /* doc: a markdown payload's blocks, as a page's */
} PayType;

typedef struct PayRow {
    ExplKind kind; /* the kind the field belongs to */
    const char *name;
    PayType type;
    size_t offset;
} PayRow;

#define PAY(k, n, t, m)                                                        \
    {                                                                          \
        k, n, t, offsetof(Explanation, m)                                      \
    }

/* Every field of a payload the browser draws from, kind by kind (its texts
** are the model's). A new kind adds its rows here and its drawing in
** web/expl.js. */
static const PayRow pay_rows[] = {
    PAY(EXPL_HEATMAP, "map", P_MEDIA, map_file),
    PAY(EXPL_HEATMAP, "map_format", P_MAP_FORMAT, file_is_npy),
    PAY(EXPL_HEATMAP, "map_w", P_INT, map_w),
    PAY(EXPL_HEATMAP, "map_h", P_INT, map_h),
    PAY(EXPL_HEATMAP, "colormap", P_STR, colormap),
    PAY(EXPL_HEATMAP, "opacity", P_NUM, opacity),
    PAY(EXPL_HEATMAP, "side_by_side", P_BOOL, side_by_side),
    PAY(EXPL_TOKENS, "tokens", P_TOKENS, tokens),
    PAY(EXPL_TOKEN_PAIRS, "tokens", P_TOKENS, tokens),
    PAY(EXPL_TOKEN_PAIRS, "pairs", P_PAIRS, pairs),
    PAY(EXPL_SPAN_PAIRS, "tokens", P_TOKENS, tokens),
    PAY(EXPL_SPAN_PAIRS, "pairs", P_PAIRS, pairs),
    PAY(EXPL_FEATURES, "features", P_FEATURES, features),
    PAY(EXPL_RULES, "rules", P_RULES, rules),
    PAY(EXPL_PROTOTYPE, "rows", P_ROWS, rows),
    PAY(EXPL_TEXT, "text", P_STR, text),
    PAY(EXPL_IMAGE, "images", P_IMAGES, images),
    PAY(EXPL_GALLERY, "images", P_IMAGES, images),
    PAY(EXPL_GALLERY, "columns", P_INT, columns),
    PAY(EXPL_MARKDOWN, "doc", P_DOC, doc),
    PAY(EXPL_BARS, "signed", P_BOOL, bars_signed),
    PAY(EXPL_BARS, "decimals", P_INT, decimals),
    PAY(EXPL_LAYOUT, "row", P_BOOL, row),
};

/* The overlay of an image payload (has_overlay): its map fields, as a
** heatmap's. */
static const PayRow overlay_rows[] = {
    PAY(EXPL_IMAGE, "map", P_MEDIA, map_file),
    PAY(EXPL_IMAGE, "map_format", P_MAP_FORMAT, file_is_npy),
    PAY(EXPL_IMAGE, "colormap", P_STR, colormap),
    PAY(EXPL_IMAGE, "opacity", P_NUM, opacity),
    PAY(EXPL_IMAGE, "side_by_side", P_BOOL, side_by_side),
};

static json_t *images_json(const W *w, const Explanation *e,
                           const char *item_image, const ItemInput *in)
{
    json_t *a = json_array();
    for (size_t i = 0; i < e->n_images; i++) {
        const ExplImage *im = &e->images[i];
        /* an image without a file of its own shows the item's */
        const char *path = im->file ? im->image_file : item_image;
        int wd = im->file ? im->w : in ? in->image_w : 0;
        int ht = im->file ? im->h : in ? in->image_h : 0;
        json_array_append_new(
            a, json_pack("{s:o,s:o,s:o,s:i,s:i}", "src",
                         path ? media_ref(w, path) : json_null(), "caption",
                         text_json(im->caption), "weight",
                         num_or_null(im->weight), "w", wd, "h", ht));
    }
    return a;
}

static json_t *pay_field(const W *w, const Explanation *e, const PayRow *f,
                         const char *item_image, const ItemInput *in)
{
    const char *base = (const char *)e + f->offset;
    switch (f->type) {
    case P_STR:
        return text_json(*(char *const *)(const void *)base);
    case P_NUM:
        return num_or_null(*(const double *)(const void *)base);
    case P_INT:
        return json_integer(*(const int *)(const void *)base);
    case P_BOOL:
        return json_boolean(*(const int *)(const void *)base);
    case P_CLASS: {
        int k = *(const int *)(const void *)base;
        return k >= 0 ? text_json(class_label(w->study, k)) : json_null();
    }
    case P_MEDIA:
        return media_ref(w, *(char *const *)(const void *)base);
    case P_MAP_FORMAT:
        return json_string(*(const int *)(const void *)base ? "npy" : "png");
    case P_IMAGES:
        return images_json(w, e, item_image, in);
    case P_DOC:
        return page_json(w, e->doc);
    case P_TOKENS: {
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
    case P_PAIRS: {
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
    case P_FEATURES:
    case P_ROWS: {
        int rows = f->type == P_ROWS;
        const ExplFeature *fs = rows ? e->rows : e->features;
        size_t n = rows ? e->n_rows : e->n_features;
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_pack("{s:o}", "name", text_json(fs[i].name));
            json_object_set_new(o, rows ? "input" : "value",
                                text_json(fs[i].value));
            if (rows) {
                json_object_set_new(o, "prototype", text_json(fs[i].other));
            } else {
                json_object_set_new(o, "weight", num_or_null(fs[i].weight));
            }
            json_array_append_new(a, o);
        }
        return a;
    }
    case P_RULES: {
        json_t *a = json_array();
        for (size_t i = 0; i < e->n_rules; i++) {
            const ExplRule *r = &e->rules[i];
            json_t *conds = json_array();
            for (size_t k = 0; k < r->n_conditions; k++) {
                json_array_append_new(conds, text_json(r->conditions[k]));
            }
            json_array_append_new(a, conds);
        }
        return a;
    }
    }
    return json_null();
}

/* The fields of payload e (its kind's rows). */
static json_t *payload_json(const W *w, const Explanation *e,
                            const char *item_image, const ItemInput *in)
{
    json_t *o = json_object();
    json_object_set_new(o, "reveal", json_string(expl_reveal_name(e->reveal)));
    for (size_t i = 0; i < sizeof pay_rows / sizeof pay_rows[0]; i++) {
        if (pay_rows[i].kind == e->kind) {
            json_object_set_new(o, pay_rows[i].name,
                                pay_field(w, e, &pay_rows[i], item_image, in));
        }
    }
    for (size_t i = 0; e->kind == EXPL_IMAGE && e->has_overlay &&
                       i < sizeof overlay_rows / sizeof overlay_rows[0];
         i++) {
        json_object_set_new(o, overlay_rows[i].name,
                            pay_field(w, e, &overlay_rows[i], item_image, in));
    }
    return o;
}

/* ------------------------------------------------------ the model tables */

/* How one member of a model struct is written. */
typedef enum FType {
    T_STR = 0,  /* const char *: a string, left out when NULL */
    T_INT,      /* int */
    T_UINT,     /* unsigned */
    T_BOOL,     /* int as true/false */
    T_NUM,      /* double, null when NaN */
    T_MS,       /* int64_t ns of the session's clock: ms of the browser's */
    T_STRUCT,   /* a pointer to a struct of table sub, left out when NULL */
    T_EMBED,    /* a struct of table sub, in place */
    T_ARRAY,    /* a pointer to count structs of table sub */
    T_INLINE,   /* count structs of table sub in place */
    T_STRS,     /* const char **, count of them */
    T_STR3,     /* const char *[3] */
    T_SOURCE,   /* const ItemInput *: modality, image and size, into the
                   object */
    T_PAGE,     /* const Page *: its blocks */
    T_PAYLOAD,  /* const Explanation *: its kind's fields */
    T_SURVEY,   /* const SurveyQuestion *: what its drawing reads */
    T_IMAGE,    /* const char * absolute path: a media URL */
    T_UNWRITTEN /* not for the browser (see the row's comment) */
} FType;

typedef struct Table Table;

typedef struct Field {
    const char *key;    /* the JSON key */
    const char *member; /* the member it reads */
    FType type;
    size_t offset;
    const char *count; /* T_ARRAY, T_STRS: the member holding the count */
    size_t count_offset;
    const Table *sub; /* T_STRUCT, T_EMBED, T_ARRAY */
} Field;

struct Table {
    const char *type; /* the struct's name */
    const Field *fields;
    size_t n;
    size_t size; /* sizeof the struct */
};

#define F(S, m, key, t)                                                        \
    {                                                                          \
        key, #m, t, offsetof(S, m), NULL, 0, NULL                              \
    }
#define FS(S, m, key, t, sub)                                                  \
    {                                                                          \
        key, #m, t, offsetof(S, m), NULL, 0, &sub                              \
    }
#define FA(S, m, n, key, sub)                                                  \
    {                                                                          \
        key, #m, T_ARRAY, offsetof(S, m), #n, offsetof(S, n), &sub             \
    }
#define FSTRS(S, m, n, key)                                                    \
    {                                                                          \
        key, #m, T_STRS, offsetof(S, m), #n, offsetof(S, n), NULL              \
    }
#define FAI(S, m, n, key, sub)                                                 \
    {                                                                          \
        key, #m, T_INLINE, offsetof(S, m), #n, offsetof(S, n), &sub            \
    }
#define TABLE(S, rows)                                                         \
    {                                                                          \
#S, rows, sizeof rows / sizeof rows[0], sizeof(S)                      \
    }

static const Table t_run, t_row, t_input, t_pill, t_card, t_value, t_line,
    t_expl, t_reveal, t_area, t_rescard, t_reservoir, t_option, t_choice,
    t_scale, t_continue, t_deadline, t_scroll, t_quiz, t_feedback, t_question,
    t_questionnaire, t_model;

static const Field f_run[] = {
    F(ScreenRun, text, "text", T_STR),
    F(ScreenRun, edit, "edit", T_BOOL),
};
static const Table t_run = TABLE(ScreenRun, f_run);

static const Field f_row[] = {
    F(ScreenRow, name, "name", T_STR),  F(ScreenRow, value, "value", T_STR),
    F(ScreenRow, from, "from", T_STR),  F(ScreenRow, arrow, "arrow", T_STR),
    F(ScreenRow, edit, "edit", T_BOOL),
};
static const Table t_row = TABLE(ScreenRow, f_row);

static const Field f_input[] = {
    F(ScreenInput, source, "source", T_SOURCE),
    FA(ScreenInput, runs, n_runs, "runs", t_run),
    FA(ScreenInput, runs_b, n_runs_b, "runs_b", t_run),
    F(ScreenInput, title_a, "title_a", T_STR),
    F(ScreenInput, title_b, "title_b", T_STR),
    FA(ScreenInput, rows, n_rows, "rows", t_row),
};
static const Table t_input = TABLE(ScreenInput, f_input);

static const Field f_pill[] = {
    F(ScreenPill, label, "label", T_STR),
    F(ScreenPill, value, "value", T_STR),
    F(ScreenPill, strong, "strong", T_BOOL),
    F(ScreenPill, hidden, "hidden", T_BOOL),
};
static const Table t_pill = TABLE(ScreenPill, f_pill);

static const Field f_card[] = {
    F(ScreenCard, section, "section", T_STR),
    F(ScreenCard, draws_input, "draws_input", T_BOOL),
    FS(ScreenCard, input, "input", T_EMBED, t_input),
    FAI(ScreenCard, pills, n_pills, "pills", t_pill),
};
static const Table t_card = TABLE(ScreenCard, f_card);

static const Field f_value[] = {
    F(ScreenValue, label, "label", T_STR),
    F(ScreenValue, text, "text", T_STR),
    F(ScreenValue, weight, "weight", T_NUM),
    F(ScreenValue, hover, "hover", T_INT),
};
static const Table t_value = TABLE(ScreenValue, f_value);

static const Field f_line[] = {
    F(ScreenLine, label, "label", T_STR),
    F(ScreenLine, text, "text", T_STR),
    F(ScreenLine, note, "note", T_STR),
    F(ScreenLine, weight, "weight", T_NUM),
    F(ScreenLine, pair, "pair", T_INT),
};
static const Table t_line = TABLE(ScreenLine, f_line);

static const Field f_expl[] = {
    F(ScreenExpl, payload, "payload", T_PAYLOAD),
    F(ScreenExpl, kind, "kind", T_STR),
    F(ScreenExpl, title, "title", T_STR),
    F(ScreenExpl, per_option, "per_option", T_BOOL),
    F(ScreenExpl, head, "head", T_STR),
    F(ScreenExpl, legend_lo, "legend_lo", T_STR),
    F(ScreenExpl, legend_hi, "legend_hi", T_STR),
    F(ScreenExpl, scale, "scale", T_NUM),
    F(ScreenExpl, section, "section", T_STR),
    F(ScreenExpl, name_a, "name_a", T_STR),
    F(ScreenExpl, name_b, "name_b", T_STR),
    F(ScreenExpl, columns, "columns", T_STR3),
    F(ScreenExpl, note, "note", T_STR),
    F(ScreenExpl, word_if, "word_if", T_STR),
    F(ScreenExpl, word_and, "word_and", T_STR),
    FA(ScreenExpl, values, n_values, "values", t_value),
    FA(ScreenExpl, lines, n_lines, "lines", t_line),
    F(ScreenExpl, line_rule, "line_rule", T_BOOL),
    F(ScreenExpl, draws_input, "draws_input", T_BOOL),
    F(ScreenExpl, image_file, "image", T_IMAGE),
    FA(ScreenExpl, parts, n_parts, "parts", t_expl),
};
static const Table t_expl = TABLE(ScreenExpl, f_expl);

static const Field f_reveal[] = {
    F(ScreenReveal, mode, "mode", T_STR),
    F(ScreenReveal, shown, "shown", T_BOOL),
    F(ScreenReveal, show_value, "show_value", T_INT),
    F(ScreenReveal, hide_value, "hide_value", T_INT),
    F(ScreenReveal, show_label, "show_label", T_STR),
    F(ScreenReveal, hide_label, "hide_label", T_STR),
    F(ScreenReveal, key, "key", T_STR),
    F(ScreenReveal, hint, "hint", T_STR),
    F(ScreenReveal, hides_values, "hides_values", T_BOOL),
    F(ScreenReveal, hover, "hover", T_INT),
    F(ScreenReveal, n_hover, "n_hover", T_INT),
};
static const Table t_reveal = TABLE(ScreenReveal, f_reveal);

static const Field f_area[] = {
    F(ScreenArea, kept, "kept", T_BOOL),
    F(ScreenArea, across, "across", T_BOOL),
    F(ScreenArea, section, "section", T_STR),
    FS(ScreenArea, expl, "explanation", T_STRUCT, t_expl),
    FS(ScreenArea, reveal, "reveal", T_EMBED, t_reveal),
};
static const Table t_area = TABLE(ScreenArea, f_area);

static const Field f_rescard[] = {
    F(ScreenResCard, draws_input, "draws_input", T_BOOL),
    FS(ScreenResCard, input, "input", T_EMBED, t_input),
    FS(ScreenResCard, expl, "explanation", T_STRUCT, t_expl),
    FS(ScreenResCard, reveal, "reveal", T_EMBED, t_reveal),
    FS(ScreenResCard, pill, "pill", T_EMBED, t_pill),
};
static const Table t_rescard = TABLE(ScreenResCard, f_rescard);

static const Field f_reservoir[] = {
    F(ScreenReservoir, title, "title", T_STR),
    F(ScreenReservoir, note, "note", T_STR),
    FA(ScreenReservoir, cards, n_cards, "cards", t_rescard),
    F(ScreenReservoir, card_h, "card_h", T_NUM),
    F(ScreenReservoir, top_share, "top_share", T_NUM),
    F(ScreenReservoir, top, "top", T_BOOL),
};
static const Table t_reservoir = TABLE(ScreenReservoir, f_reservoir);

static const Field f_option[] = {
    F(ScreenOption, label, "label", T_STR),
    F(ScreenOption, key, "key", T_STR),
};
static const Table t_option = TABLE(ScreenOption, f_option);

static const Field f_choice[] = {
    F(ScreenChoice, question, "question", T_STR),
    FA(ScreenChoice, options, n_options, "options", t_option),
    F(ScreenChoice, value, "value", T_INT),
    F(ScreenChoice, ends, "ends", T_BOOL),
};
static const Table t_choice = TABLE(ScreenChoice, f_choice);

static const Field f_scale[] = {
    F(ScreenScale, question, "question", T_STR),
    F(ScreenScale, low, "low", T_STR),
    F(ScreenScale, high, "high", T_STR),
    F(ScreenScale, points, "points", T_INT),
    F(ScreenScale, value, "value", T_INT),
    F(ScreenScale, enabled, "enabled", T_BOOL),
    F(ScreenScale, ends, "ends", T_BOOL),
    /* the browser sends the scale's own input kind ("rate", "confidence"):
    ** the session's number of it is for the desktop */
    F(ScreenScale, input, "input", T_UNWRITTEN),
};
static const Table t_scale = TABLE(ScreenScale, f_scale);

static const Field f_continue[] = {
    F(ScreenContinue, label, "label", T_STR),
    F(ScreenContinue, key, "key", T_STR),
    F(ScreenContinue, decline, "decline", T_STR),
    F(ScreenContinue, ready, "ready", T_BOOL),
    F(ScreenContinue, ends, "ends", T_BOOL),
    F(ScreenContinue, wait_ns, "wait_ms", T_MS),
    F(ScreenContinue, at_ns, "at_ms", T_MS),
    F(ScreenContinue, wait_format, "wait_format", T_STR),
    F(ScreenContinue, scroll_hint, "scroll_hint", T_STR),
};
static const Table t_continue = TABLE(ScreenContinue, f_continue);

static const Field f_deadline[] = {
    F(ScreenDeadline, limit_ns, "limit_ms", T_MS),
    F(ScreenDeadline, at_ns, "at_ms", T_MS),
    F(ScreenDeadline, countdown, "countdown", T_BOOL),
    F(ScreenDeadline, format, "format", T_STR),
};
static const Table t_deadline = TABLE(ScreenDeadline, f_deadline);

static const Field f_scroll[] = {
    F(ScreenScroll, required, "required", T_BOOL),
    F(ScreenScroll, value_fits, "value_fits", T_INT),
    F(ScreenScroll, value_more, "value_more", T_INT),
    F(ScreenScroll, value_end, "value_end", T_INT),
};
static const Table t_scroll = TABLE(ScreenScroll, f_scroll);

static const Field f_quiz[] = {
    F(ScreenQuiz, text, "text", T_STR),
    FA(ScreenQuiz, options, n_options, "options", t_option),
    F(ScreenQuiz, value, "value", T_INT),
    F(ScreenQuiz, retry, "retry", T_STR),
    F(ScreenQuiz, ends, "ends", T_BOOL),
};
static const Table t_quiz = TABLE(ScreenQuiz, f_quiz);

static const Field f_feedback[] = {
    F(ScreenFeedback, correct, "correct", T_BOOL),
    F(ScreenFeedback, final, "final", T_BOOL),
    F(ScreenFeedback, head, "head", T_STR),
    F(ScreenFeedback, detail, "detail", T_STR),
    FS(ScreenFeedback, card, "card", T_STRUCT, t_card),
};
static const Table t_feedback = TABLE(ScreenFeedback, f_feedback);

static const Field f_question[] = {
    F(ScreenQuestion, question, "question", T_SURVEY),
    F(ScreenQuestion, answer, "answer", T_STR),
    F(ScreenQuestion, optional, "optional", T_STR),
    F(ScreenQuestion, range, "range", T_STR),
    F(ScreenQuestion, problem, "problem", T_STR),
};
static const Table t_question = TABLE(ScreenQuestion, f_question);

static const Field f_questionnaire[] = {
    F(ScreenQuestionnaire, intro, "intro", T_STR),
    FA(ScreenQuestionnaire, questions, n_questions, "questions", t_question),
    F(ScreenQuestionnaire, focus, "focus", T_INT),
    F(ScreenQuestionnaire, complete, "complete", T_BOOL),
};
static const Table t_questionnaire =
    TABLE(ScreenQuestionnaire, f_questionnaire);

static const Field f_model[] = {
    F(ScreenModel, screen, "screen", T_STR),
    F(ScreenModel, body, "body", T_STR),
    /* the C enum of "body" */
    F(ScreenModel, body_kind, "body_kind", T_UNWRITTEN),
    F(ScreenModel, serial, "serial", T_UINT),
    F(ScreenModel, lang, "lang", T_STR),
    F(ScreenModel, rtl, "rtl", T_BOOL),
    F(ScreenModel, title, "title", T_STR),
    F(ScreenModel, progress, "progress", T_STR),
    F(ScreenModel, progress_done, "progress_done", T_INT),
    F(ScreenModel, progress_total, "progress_total", T_INT),
    F(ScreenModel, message_head, "message_head", T_STR),
    F(ScreenModel, message_text, "message_text", T_STR),
    F(ScreenModel, show_ns, "show_ms", T_MS),
    /* the reason for the experimenter (a store error): online there is
    ** none, and the participant never reads it */
    F(ScreenModel, experimenter, "experimenter", T_UNWRITTEN),
    F(ScreenModel, page, "page", T_PAGE),
    FS(ScreenModel, quiz, "quiz", T_STRUCT, t_quiz),
    FS(ScreenModel, feedback, "feedback", T_STRUCT, t_feedback),
    FS(ScreenModel, questionnaire, "questionnaire", T_STRUCT, t_questionnaire),
    FA(ScreenModel, cards, n_cards, "cards", t_card),
    FS(ScreenModel, area, "area", T_STRUCT, t_area),
    FS(ScreenModel, reservoir, "reservoir", T_STRUCT, t_reservoir),
    FS(ScreenModel, choice, "choice", T_STRUCT, t_choice),
    FS(ScreenModel, confidence, "confidence", T_STRUCT, t_scale),
    FS(ScreenModel, rating, "rating", T_STRUCT, t_scale),
    FS(ScreenModel, cont, "continue", T_STRUCT, t_continue),
    FS(ScreenModel, deadline, "deadline", T_STRUCT, t_deadline),
    FS(ScreenModel, scroll, "scroll", T_EMBED, t_scroll),
    FSTRS(ScreenModel, keys, n_keys, "keys"),
    /* the memory the model's texts live in */
    F(ScreenModel, arena, "arena", T_UNWRITTEN),
};
static const Table t_model = TABLE(ScreenModel, f_model);

static const Table *const tables[] = {
    &t_model,    &t_run,      &t_row,           &t_input,  &t_pill,
    &t_card,     &t_value,    &t_line,          &t_expl,   &t_reveal,
    &t_area,     &t_rescard,  &t_reservoir,     &t_option, &t_choice,
    &t_scale,    &t_continue, &t_deadline,      &t_scroll, &t_quiz,
    &t_feedback, &t_question, &t_questionnaire,
};

int serve_view_field(size_t t, size_t k, const char **type, const char **member,
                     const char **count)
{
    if (t >= sizeof tables / sizeof tables[0]) {
        return -1;
    }
    *type = tables[t]->type;
    if (k >= tables[t]->n) {
        return 0;
    }
    *member = tables[t]->fields[k].member;
    *count = tables[t]->fields[k].count;
    return 1;
}

/* ------------------------------------------------------------- writing */

static json_t *write_struct(const W *w, const Table *t, const void *p);

static json_t *survey_json(const SurveyQuestion *sq)
{
    json_t *q = json_pack("{s:o,s:s,s:o,s:b}", "id", text_json(sq->id), "type",
                          question_type_name(sq->type), "text",
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
    return q;
}

/* The member f of the struct at base into o. The item image an image node
** draws is what its payload's images without a file show. */
static void write_field(const W *w, json_t *o, const Field *f, const char *base,
                        const void *whole)
{
    const void *at = base + f->offset;
    json_t *v = NULL;
    switch (f->type) {
    case T_STR: {
        const char *s = *(const char *const *)at;
        v = s ? text_json(s) : NULL;
        break;
    }
    case T_INT:
        v = json_integer(*(const int *)at);
        break;
    case T_UINT:
        v = json_integer(*(const unsigned *)at);
        break;
    case T_BOOL:
        v = json_boolean(*(const int *)at);
        break;
    case T_NUM:
        v = num_or_null(*(const double *)at);
        break;
    case T_MS:
        v = json_real((double)*(const int64_t *)at / 1e6);
        break;
    case T_STRUCT: {
        const void *p = *(const void *const *)at;
        v = p ? write_struct(w, f->sub, p) : NULL;
        break;
    }
    case T_EMBED:
        v = write_struct(w, f->sub, at);
        break;
    case T_ARRAY:
    case T_INLINE: {
        const char *p =
            f->type == T_INLINE ? (const char *)at : *(const char *const *)at;
        size_t n = *(const size_t *)(const void *)(base + f->count_offset);
        v = json_array();
        for (size_t i = 0; p && i < n; i++) {
            json_array_append_new(
                v, write_struct(w, f->sub, p + i * f->sub->size));
        }
        break;
    }
    case T_STRS: {
        const char *const *p = *(const char *const *const *)at;
        size_t n = *(const size_t *)(const void *)(base + f->count_offset);
        v = json_array();
        for (size_t i = 0; p && i < n; i++) {
            json_array_append_new(v, text_json(p[i]));
        }
        break;
    }
    case T_STR3: {
        const char *const *p = (const char *const *)at;
        if (p[0]) {
            v = json_pack("[o,o,o]", text_json(p[0]), text_json(p[1]),
                          text_json(p[2]));
        }
        break;
    }
    case T_SOURCE: {
        const ItemInput *in = *(const ItemInput *const *)at;
        if (in) {
            json_object_set_new(o, "modality",
                                json_string(modality_name(in->modality)));
            if (in->modality == MODALITY_IMAGE) {
                json_object_set_new(o, "src", media_ref(w, in->image_file));
                json_object_set_new(o, "w", json_integer(in->image_w));
                json_object_set_new(o, "h", json_integer(in->image_h));
            }
        }
        return;
    }
    case T_PAGE: {
        const Page *pg = *(const Page *const *)at;
        v = pg ? page_json(w, pg) : NULL;
        break;
    }
    case T_PAYLOAD: {
        const ScreenExpl *x = whole;
        v = payload_json(w, x->payload, x->image_file, NULL);
        break;
    }
    case T_SURVEY: {
        const SurveyQuestion *sq = *(const SurveyQuestion *const *)at;
        v = sq ? survey_json(sq) : NULL;
        break;
    }
    case T_IMAGE: {
        const char *s = *(const char *const *)at;
        v = s ? media_ref(w, s) : NULL;
        break;
    }
    case T_UNWRITTEN:
        return;
    }
    if (v) {
        json_object_set_new(o, f->key, v);
    }
}

static json_t *write_struct(const W *w, const Table *t, const void *p)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < t->n; i++) {
        write_field(w, o, &t->fields[i], p, p);
    }
    return o;
}

/* ------------------------------------------------------------- the view */

struct ServeView {
    const Study *study;
    ScreenSlots slots; /* em of the browser's text */
    ScreenModel *m;
};

int serve_view_new(const Study *study, ServeView **out, SimError *err)
{
    *out = NULL;
    ServeView *sv = sim_calloc(1, sizeof *sv);
    if (!sv || !(sv->m = screen_model_new())) {
        sim_free(sv);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sv->study = study;
    screen_slots_plan_em(&sv->slots, study, study->ui_strings);
    *out = sv;
    return SIM_OK;
}

void serve_view_free(ServeView *sv)
{
    if (!sv) {
        return;
    }
    screen_model_free(sv->m);
    sim_free(sv);
}

json_t *serve_view_json(ServeView *sv, const SessionView *v, int completion,
                        const char *media_prefix, ServeMediaList *media)
{
    serve_media_clear(media);
    ScreenContext cx = {sv->study,     sv->study->ui_strings,
                        SCREEN_ONLINE, &sv->slots,
                        completion,    0};
    if (screen_model_build(sv->m, v, &cx) != SIM_OK) {
        return NULL;
    }
    W w = {sv->study, media_prefix, media};
    return write_struct(&w, &t_model, sv->m);
}

json_t *serve_expl_json(ServeView *sv, const Explanation *e,
                        const ItemInput *input, int hover,
                        const char *media_prefix, ServeMediaList *media)
{
    ScreenContext cx = {
        sv->study, sv->study->ui_strings, SCREEN_ONLINE, &sv->slots, 0, 0};
    SessionView v;
    memset(&v, 0, sizeof v);
    if (screen_model_build(sv->m, &v, &cx) != SIM_OK) {
        return NULL;
    }
    ScreenExpl *x = screen_model_expl(sv->m, &cx, e, input, 0, hover);
    W w = {sv->study, media_prefix, media};
    return x ? write_struct(&w, &t_expl, x) : NULL;
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
