/*
** Item banks (CSV with a column mapping, or JSON Lines), item inputs of
** every modality and counterfactual perturbations (marked text, tabular
** edits, full inputs). Explanation sources are in sources.c. libc, jansson
** and common/ (the CSV reader) only.
*/
#include "stimuli/options.h"
#include "stimuli/items_int.h"
#include "stimuli/loader.h"
#include "stimuli/bpath_int.h"
#include "stimuli/csvtab.h"
#include "stimuli/expl_int.h"
#include "stimuli/media.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

enum { PF_DEFAULT = 0, PF_MARKED, PF_EDITS, PF_FULL };

typedef struct BankDefaults {
    const char *file;
    const char *pool;
    int modality; /* -1 when the bank sets none */
    const char *domain;
    int pert_format;
} BankDefaults;

static const char *const modality_names[] = {"image", "text", "text_pair",
                                             "tabular"};

const char *modality_name(Modality m)
{
    return (unsigned)m < 4 ? modality_names[m] : "?";
}

static int modality_from_name(const char *s)
{
    for (int i = 0; i < 4; i++) {
        if (s && strcmp(s, modality_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ item store */

void input_clear(ItemInput *in)
{
    sim_free(in->text);
    sim_free(in->text_b);
    sim_free(in->title_a);
    sim_free(in->title_b);
    sim_free(in->image_file);
    for (size_t i = 0; i < in->n_features; i++) {
        sim_free(in->features[i].name);
        sim_free(in->features[i].value);
    }
    sim_free(in->features);
    memset(in, 0, sizeof *in);
}

static void cf_free(Counterfactual *cf)
{
    if (!cf) {
        return;
    }
    input_clear(&cf->input);
    expl_edits_free(cf->edits, cf->n_edits);
    sim_free(cf->region);
    sim_free(cf);
}

void item_clear(Item *it)
{
    sim_free(it->key);
    sim_free(it->id);
    sim_free(it->pool);
    sim_free(it->domain);
    sim_free(it->source_file);
    sim_free(it->mask);
    sim_free(it->mask_file);
    sim_free(it->rationale);
    sim_free(it->options);
    input_clear(&it->input);
    cf_free(it->cf);
    for (size_t i = 0; i < it->n_expl; i++) {
        sim_free(it->expl[i].method);
        expl_clear(it->expl[i].e);
        sim_free(it->expl[i].e);
    }
    sim_free(it->expl);
    memset(it, 0, sizeof *it);
}

Item *items_new(Loader *L)
{
    Study *st = L->st;
    if (ld_grow(L, (void **)&st->items, &L->cap_items, st->n_items + 1,
                sizeof *st->items) != 0) {
        return NULL;
    }
    Item *it = &st->items[st->n_items++];
    memset(it, 0, sizeof *it);
    it->label = -1;
    it->prediction = -1;
    return it;
}

/* Drops the last item (a record that could not be read at all). */
static void drop_last_item(Loader *L)
{
    Study *st = L->st;
    if (st->n_items > 0) {
        item_clear(&st->items[--st->n_items]);
    }
}

static int set_key(Loader *L, Item *it)
{
    size_t n = strlen(it->pool) + strlen(it->id) + 2;
    it->key = sim_malloc(n);
    if (!it->key) {
        L->oom = 1;
        return -1;
    }
    snprintf(it->key, n, "%s:%s", it->pool, it->id);
    return 0;
}

static size_t slot_of(const struct StudyIndex *ix, const char *key)
{
    return (size_t)sim_hash_str(key) & (ix->n_slots - 1);
}

int items_index_build(Loader *L)
{
    Study *st = L->st;
    struct StudyIndex *ix = st->index;
    if (!ix) {
        ix = st->index = ld_calloc(L, 1, sizeof *ix);
        if (!ix) {
            return -1;
        }
    }
    sim_free(ix->slots);
    ix->n_slots = 16;
    while (ix->n_slots < st->n_items * 2) {
        ix->n_slots *= 2;
    }
    ix->slots = ld_calloc(L, ix->n_slots, sizeof *ix->slots);
    ix->n_items = 0;
    if (!ix->slots) {
        ix->n_slots = 0;
        return -1;
    }
    for (size_t i = 0; i < st->n_items; i++) {
        Item *it = &st->items[i];
        if (!it->key) {
            continue;
        }
        size_t s = slot_of(ix, it->key);
        int dup = 0;
        while (ix->slots[s]) {
            const Item *other = &st->items[ix->slots[s] - 1];
            if (strcmp(other->key, it->key) == 0) {
                ld_diag(L, 0, it->source_file, it->source_line, 0, NULL, "id",
                        "duplicate id '%s' in pool '%s' (first at %s:%d)",
                        it->id, it->pool, other->source_file,
                        other->source_line);
                dup = 1;
                break;
            }
            s = (s + 1) & (ix->n_slots - 1);
        }
        if (!dup) {
            ix->slots[s] = i + 1;
        }
    }
    ix->n_items = st->n_items;
    return 0;
}

long items_index_find(const Study *st, const char *key)
{
    const struct StudyIndex *ix = st->index;
    if (ix && ix->slots && ix->n_items == st->n_items) {
        size_t s = slot_of(ix, key);
        while (ix->slots[s]) {
            size_t i = ix->slots[s] - 1;
            if (strcmp(st->items[i].key, key) == 0) {
                return (long)i;
            }
            s = (s + 1) & (ix->n_slots - 1);
        }
        return -1;
    }
    for (size_t i = 0; i < st->n_items; i++) {
        if (st->items[i].key && strcmp(st->items[i].key, key) == 0) {
            return (long)i;
        }
    }
    return -1;
}

/* Class of a CSV cell (trimmed); empty = unknown (-1, no error unless
** required). */
static int csv_class(Loader *L, const JLoc *at, const char *cell,
                     const char *col, int required)
{
    char *v = ld_strdup(L, cell);
    if (!v) {
        return -1;
    }
    sim_trim(v);
    int k = -1;
    if (!v[0]) {
        if (required) {
            jl_error(L, at, col, "empty (a class id is required)");
        }
    } else {
        k = ld_class_lookup(L, v, at->file, at->line, NULL, col);
    }
    sim_free(v);
    return k;
}

/* ------------------------------------------------------------ text forms */

int items_parse_features(Loader *L, const char *text, Feature **out,
                         size_t *n_out, int *bad_line)
{
    *out = NULL;
    *n_out = 0;
    size_t cap = 0;
    int lineno = 0;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        lineno++;
        char *line = ld_strndup(L, p, n);
        if (!line) {
            return -1;
        }
        sim_trim(line);
        if (line[0]) {
            char *eq = strstr(line, " = ");
            if (!eq) {
                sim_free(line);
                *bad_line = lineno;
                return -1;
            }
            *eq = '\0';
            if (ld_grow(L, (void **)out, &cap, *n_out + 1, sizeof **out) != 0) {
                sim_free(line);
                return -1;
            }
            Feature *f = &(*out)[*n_out];
            f->name = ld_strdup(L, sim_trim(line));
            f->value = ld_strdup(L, sim_trim(eq + 3));
            (*n_out)++;
        }
        sim_free(line);
        p += n + (e ? 1 : 0);
    }
    return 0;
}

int items_parse_marked(Loader *L, const char *text, int segment, char **plain,
                       Edit **edits, size_t *n_edits)
{
    *plain = NULL;
    *edits = NULL;
    *n_edits = 0;
    size_t cap = 0;
    SimBuf b;
    sim_buf_init(&b);
    int open = 0;
    size_t start = 0;
    for (const char *p = text; *p;) {
        if (p[0] == '*' && p[1] == '*') {
            if (!open) {
                start = b.len;
            } else if (b.len > start) {
                if (ld_grow(L, (void **)edits, &cap, *n_edits + 1,
                            sizeof **edits) != 0) {
                    break;
                }
                Edit *e = &(*edits)[(*n_edits)++];
                memset(e, 0, sizeof *e);
                e->start = start;
                e->end = b.len;
                e->segment = segment;
                e->to = ld_strndup(L, b.data + start, b.len - start);
            }
            open = !open;
            p += 2;
            continue;
        }
        sim_buf_append(&b, p, 1);
        p++;
    }
    if (b.oom) {
        L->oom = 1;
    }
    if (open || L->oom) {
        sim_buf_free(&b);
        expl_edits_free(*edits, *n_edits);
        *edits = NULL;
        *n_edits = 0;
        return -1;
    }
    *plain = sim_buf_take(&b);
    if (!*plain) {
        L->oom = 1;
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- inputs */

/* Checks an image path and records its size; errors at at/key. */
static void image_input(Loader *L, const JLoc *at, const char *key,
                        const char *path, ItemInput *in)
{
    char why[512], *abs = NULL;
    in->text = ld_strdup(L, path);
    if (bpath_file(L, path, &abs, why, sizeof why) != 0) {
        jl_error_file(L, at, key, "%s", why);
        return;
    }
    if (media_probe_image(abs, &in->image_w, &in->image_h, NULL, why,
                          sizeof why) != 0) {
        jl_error_file(L, at, key, "'%s': %s", path, why);
        sim_free(abs);
        return;
    }
    sim_free(in->image_file);
    in->image_file = abs; /* what the runner opens */
}

static int copy_features(Loader *L, const ItemInput *src, ItemInput *dst)
{
    dst->features = ld_calloc(L, src->n_features ? src->n_features : 1,
                              sizeof *dst->features);
    if (!dst->features) {
        return -1;
    }
    for (size_t i = 0; i < src->n_features; i++) {
        dst->features[i].name = ld_strdup(L, src->features[i].name);
        dst->features[i].value = ld_strdup(L, src->features[i].value);
    }
    dst->n_features = src->n_features;
    return 0;
}

/* Input from text cells (CSV): text, text_b and tabular lines. */
static void input_from_cells(Loader *L, const JLoc *at, Modality m,
                             const char *col, const char *cell,
                             const char *col_b, const char *cell_b,
                             ItemInput *in)
{
    in->modality = m;
    switch (m) {
    case MODALITY_IMAGE: {
        char *path = ld_strdup(L, cell);
        if (path) {
            image_input(L, at, col, sim_trim(path), in);
        }
        sim_free(path);
        break;
    }
    case MODALITY_TEXT:
    case MODALITY_TEXT_PAIR:
        in->text = ld_strdup(L, cell);
        if (!cell[0]) {
            jl_error(L, at, col, "empty input text");
        }
        if (m == MODALITY_TEXT_PAIR) {
            in->text_b = ld_strdup(L, cell_b ? cell_b : "");
            if (!cell_b || !cell_b[0]) {
                jl_error(L, at, col_b ? col_b : "input_b",
                         "empty second text of a text_pair");
            }
        }
        break;
    case MODALITY_TABULAR: {
        int bad = 0;
        if (items_parse_features(L, cell, &in->features, &in->n_features,
                                 &bad) != 0 &&
            !L->oom) {
            jl_error(L, at, col, "line %d of the cell is not 'Name = value'",
                     bad);
        } else if (in->n_features == 0) {
            jl_error(L, at, col, "no features ('Name = value' lines)");
        }
        break;
    }
    }
}

static Feature *find_feature(const ItemInput *in, const char *name)
{
    for (size_t i = 0; name && i < in->n_features; i++) {
        if (in->features[i].name && strcmp(in->features[i].name, name) == 0) {
            return &in->features[i];
        }
    }
    return NULL;
}

/* Applies "Feature : old --> new" lines to a copy of the original input. */
static void apply_edit_lines(Loader *L, const JLoc *at, const char *col,
                             const char *text, const ItemInput *orig,
                             Counterfactual *cf)
{
    cf->input.modality = MODALITY_TABULAR;
    if (copy_features(L, orig, &cf->input) != 0) {
        return;
    }
    size_t cap = 0;
    int lineno = 0, n_bad = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *line = ld_strndup(L, p, n);
        p += n + (e ? 1 : 0);
        lineno++;
        if (!line) {
            return;
        }
        sim_trim(line);
        if (!line[0]) {
            sim_free(line);
            continue;
        }
        char *colon = strstr(line, " : ");
        char *arrow = colon ? strstr(colon + 3, " --> ") : NULL;
        if (!arrow) {
            jl_error(L, at, col,
                     "line %d of the perturbation is not 'Feature : old --> "
                     "new'",
                     lineno);
            n_bad++;
            sim_free(line);
            continue;
        }
        *colon = '\0';
        *arrow = '\0';
        char *name = sim_trim(line), *from = sim_trim(colon + 3),
             *to = sim_trim(arrow + 5);
        Feature *f = find_feature(&cf->input, name);
        if (!f) {
            jl_error(L, at, col,
                     "line %d of the perturbation: unknown feature '%s'",
                     lineno, name);
            n_bad++;
        } else if (!f->value || strcmp(f->value, from) != 0) {
            const Feature *o = find_feature(orig, name);
            jl_error(L, at, col,
                     "line %d of the perturbation: '%s' is '%s' in the "
                     "input, not '%s'",
                     lineno, name, o && o->value ? o->value : "", from);
            n_bad++;
        } else if (ld_grow(L, (void **)&cf->edits, &cap, cf->n_edits + 1,
                           sizeof *cf->edits) == 0) {
            Edit *ed = &cf->edits[cf->n_edits++];
            memset(ed, 0, sizeof *ed);
            ed->feature = ld_strdup(L, name);
            ed->from = ld_strdup(L, from);
            ed->to = ld_strdup(L, to);
            char *v = ld_strdup(L, to);
            if (v) {
                sim_free(f->value);
                f->value = v;
            }
        }
        sim_free(line);
    }
    /* a cell of blank lines has no edits; bad lines are reported above */
    if (cf->n_edits == 0 && n_bad == 0) {
        jl_error(L, at, col, "empty perturbation (no edits)");
    }
}

/* Marked text for one segment of a (possibly paired) text counterfactual. */
static void marked_segment(Loader *L, const JLoc *at, const char *key,
                           const char *text, int segment, Counterfactual *cf)
{
    char *plain = NULL;
    Edit *edits = NULL;
    size_t n = 0;
    if (items_parse_marked(L, text, segment, &plain, &edits, &n) != 0) {
        if (!L->oom) {
            jl_error(L, at, key, "unbalanced '**' marker in the perturbation");
        }
        return;
    }
    if (segment == 0) {
        sim_free(cf->input.text);
        cf->input.text = plain;
    } else {
        sim_free(cf->input.text_b);
        cf->input.text_b = plain;
    }
    Edit *all = sim_realloc(cf->edits, (cf->n_edits + n + 1) * sizeof *all);
    if (!all) {
        L->oom = 1;
        expl_edits_free(edits, n);
        return;
    }
    memcpy(all + cf->n_edits, edits, n * sizeof *edits);
    cf->edits = all;
    cf->n_edits += n;
    sim_free(edits);
}

/* Counterfactual from CSV cells. */
static Counterfactual *cf_from_cells(Loader *L, const JLoc *at, Item *it,
                                     int format, const char *col,
                                     const char *cell, const char *col_b,
                                     const char *cell_b)
{
    Counterfactual *cf = ld_calloc(L, 1, sizeof *cf);
    if (!cf) {
        return NULL;
    }
    cf->prediction = -1;
    Modality m = it->input.modality;
    cf->input.modality = m;
    if (format == PF_DEFAULT) {
        format = m == MODALITY_TABULAR ? PF_EDITS
                 : m == MODALITY_IMAGE ? PF_FULL
                                       : PF_MARKED;
    }
    if (format == PF_EDITS && m != MODALITY_TABULAR) {
        jl_error(L, at, col,
                 "perturbation_format 'edits' is for tabular "
                 "items");
        return cf;
    }
    if (format == PF_MARKED && (m == MODALITY_TABULAR || m == MODALITY_IMAGE)) {
        jl_error(L, at, col, "perturbation_format 'marked' is for text items");
        return cf;
    }
    if (format == PF_EDITS) {
        if (it->input.n_features == 0) {
            return cf; /* the input itself is broken: reported already */
        }
        apply_edit_lines(L, at, col, cell, &it->input, cf);
    } else if (format == PF_MARKED) {
        cf->input.text = ld_strdup(L, it->input.text);
        cf->input.text_b = ld_strdup(L, it->input.text_b);
        if (cell && cell[0]) {
            marked_segment(L, at, col, cell, 0, cf);
        }
        if (cell_b && cell_b[0]) {
            marked_segment(L, at, col_b, cell_b, 1, cf);
        }
        if (cf->n_edits == 0 && cf->input.text && it->input.text &&
            strcmp(cf->input.text, it->input.text) == 0 &&
            (!cf->input.text_b || !it->input.text_b ||
             strcmp(cf->input.text_b, it->input.text_b) == 0)) {
            jl_warn(L, at, col, "the perturbation equals the input");
        }
    } else {
        ItemInput tmp;
        memset(&tmp, 0, sizeof tmp);
        input_from_cells(L, at, m, col, cell ? cell : "", col_b,
                         cell_b ? cell_b : it->input.text_b, &tmp);
        cf->input = tmp;
    }
    return cf;
}

/* -------------------------------------------------------------- CSV bank */

typedef struct ColMap {
    long id, input, input_b, label, prediction, pert, pert_b, pert_pred, pool,
        domain, options;
    const char **expl_methods; /* explanation:<method> columns */
    long *expl_cols;
    size_t n_expl;
} ColMap;

static const char *cell_at(const CsvRow *r, long col)
{
    return col >= 0 && (size_t)col < r->n ? r->cells[col] : NULL;
}

/* Notes that a bank of pool (NULL: of no one pool) could not be read, so
** that its pool's emptiness is not reported again. */
static void pool_unread(Loader *L, const char *pool)
{
    if (!pool) {
        L->unread_any = 1;
        return;
    }
    size_t cap = L->n_unread_pools;
    if (ld_grow(L, (void **)&L->unread_pools, &cap, L->n_unread_pools + 1,
                sizeof *L->unread_pools) != 0) {
        return;
    }
    char *copy = ld_strdup(L, pool);
    if (copy) {
        L->unread_pools[L->n_unread_pools++] = copy;
    }
}

int items_pool_unread(const Loader *L, const char *pool)
{
    if (L->unread_any) {
        return 1;
    }
    for (size_t i = 0; pool && i < L->n_unread_pools; i++) {
        if (strcmp(L->unread_pools[i], pool) == 0) {
            return 1;
        }
    }
    return !pool && L->n_unread_pools > 0;
}

static int csv_bank(Loader *L, const JLoc *at, json_t *bank,
                    const BankDefaults *d)
{
    const char *expl_kind = "text";
    jget_str(L, at, bank, "explanation_kind", 0, &expl_kind);
    if (strcmp(expl_kind, "text") != 0 && strcmp(expl_kind, "json") != 0) {
        jl_error(L, at, "explanation_kind", "'%s' is not text or json",
                 expl_kind);
    }
    json_t *cols = json_object_get(bank, "columns");
    if (!json_is_object(cols)) {
        jl_error(L, at, "columns",
                 cols ? "must be an object (role -> column)"
                      : "missing (required for CSV)");
        return -1;
    }
    JLoc cl;
    jl_child(&cl, at, "columns");
    CsvDialect dialect;
    if (csv_dialect_parse(L, at, bank, "item bank", &dialect) != 0) {
        return -1;
    }
    CsvTable t;
    if (csv_table_open(L, at, d->file, &dialect, &t) != 0) {
        return -1;
    }
    ColMap cm = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, NULL, NULL, 0};
    static const char *const roles[] = {"id",
                                        "input",
                                        "input_b",
                                        "label",
                                        "prediction",
                                        "perturbation",
                                        "perturbation_b",
                                        "perturbation_prediction",
                                        "pool",
                                        "domain",
                                        "options"};
    long *slots[] = {&cm.id,         &cm.input,  &cm.input_b, &cm.label,
                     &cm.prediction, &cm.pert,   &cm.pert_b,  &cm.pert_pred,
                     &cm.pool,       &cm.domain, &cm.options};
    size_t n_roles = json_object_size(cols);
    cm.expl_methods = ld_calloc(L, n_roles + 1, sizeof *cm.expl_methods);
    cm.expl_cols = ld_calloc(L, n_roles + 1, sizeof *cm.expl_cols);
    if (!cm.expl_methods || !cm.expl_cols) {
        sim_free((void *)cm.expl_methods);
        sim_free(cm.expl_cols);
        csv_table_free(&t);
        return -1;
    }
    const char *role;
    json_t *v;
    int bad = 0;
    json_object_foreach(cols, role, v)
    {
        if (!json_is_string(v)) {
            jl_error(L, &cl, role, "must be a column name");
            bad = 1;
            continue;
        }
        long c = csv_col(&t, json_string_value(v));
        if (c < 0) {
            csv_missing_column(L, &cl, role, json_string_value(v), d->file, &t);
            bad = 1;
            continue;
        }
        int found = 0;
        for (size_t k = 0; k < sizeof roles / sizeof *roles; k++) {
            if (strcmp(role, roles[k]) == 0) {
                *slots[k] = c;
                found = 1;
            }
        }
        if (!found && strncmp(role, "explanation:", 12) == 0 && role[12]) {
            cm.expl_methods[cm.n_expl] = role + 12;
            cm.expl_cols[cm.n_expl++] = c;
            found = 1;
        }
        if (!found) {
            jl_error(L, &cl, role,
                     "unknown role (id, input, input_b, label, prediction, "
                     "perturbation, perturbation_b, perturbation_prediction, "
                     "pool, domain, options, explanation:<method>)");
            bad = 1;
        }
    }
    if (cm.id < 0 && !bad) {
        jl_error(L, &cl, "id", "missing (required)");
        bad = 1;
    }
    if (cm.input < 0 && !bad) {
        jl_error(L, &cl, "input", "missing (required)");
        bad = 1;
    }
    if (cm.prediction < 0 && !bad) {
        jl_error(L, &cl, "prediction", "missing (required)");
        bad = 1;
    }
    if (d->modality == MODALITY_TEXT_PAIR && cm.input_b < 0 && !bad) {
        jl_error(L, &cl, "input_b", "missing (required for text_pair)");
        bad = 1;
    }
    if (cm.pool < 0 && !d->pool && !bad) {
        jl_error(L, at, "pool", "missing (no pool column either)");
        bad = 1;
    }
    if ((cm.pert >= 0 || cm.pert_b >= 0) && cm.pert_pred < 0 && !bad) {
        jl_error(L, &cl, "perturbation_prediction",
                 "missing (required with a perturbation)");
        bad = 1;
    }
    bad |= t.unusable; /* its dialect is wrong: reported at the file */
    for (size_t r = 0; !bad && r < t.n_rows && !L->oom; r++) {
        const CsvRow *row = &t.rows[r];
        JLoc rl = {.file = d->file, .line = row->line, .csv = 1};
        if (row->n != t.n_cols) {
            ld_diag(L, 0, d->file, row->line, 0, NULL, NULL,
                    "record has %zu fields, the header has %zu", row->n,
                    t.n_cols);
            continue;
        }
        const char *idc = t.header[cm.id];
        char *id = ld_strdup(L, cell_at(row, cm.id));
        char *pool =
            ld_strdup(L, cm.pool >= 0 ? cell_at(row, cm.pool) : d->pool);
        if (!id || !pool) {
            sim_free(id);
            sim_free(pool);
            break;
        }
        sim_trim(id);
        sim_trim(pool);
        if (!id[0] || !pool[0]) {
            jl_error(L, &rl, id[0] ? t.header[cm.pool] : idc, "empty %s",
                     id[0] ? "pool" : "item id");
            sim_free(id);
            sim_free(pool);
            continue;
        }
        Item *it = items_new(L);
        if (!it) {
            sim_free(id);
            sim_free(pool);
            break;
        }
        it->id = id;
        it->pool = pool;
        set_key(L, it);
        it->source_file = ld_strdup(L, d->file);
        it->source_line = row->line;
        const char *dom = cm.domain >= 0 ? cell_at(row, cm.domain) : d->domain;
        it->domain = dom && dom[0] ? ld_strdup(L, dom) : NULL;
        input_from_cells(L, &rl, (Modality)d->modality, t.header[cm.input],
                         cell_at(row, cm.input),
                         cm.input_b >= 0 ? t.header[cm.input_b] : NULL,
                         cell_at(row, cm.input_b), &it->input);
        if (cm.label >= 0) {
            it->label = csv_class(L, &rl, cell_at(row, cm.label),
                                  t.header[cm.label], 0);
        }
        it->prediction = csv_class(L, &rl, cell_at(row, cm.prediction),
                                   t.header[cm.prediction], 1);
        const char *pc = cell_at(row, cm.pert), *pcb = cell_at(row, cm.pert_b);
        if ((pc && pc[0]) || (pcb && pcb[0])) {
            it->cf =
                cf_from_cells(L, &rl, it, d->pert_format,
                              cm.pert >= 0 ? t.header[cm.pert] : NULL, pc,
                              cm.pert_b >= 0 ? t.header[cm.pert_b] : NULL, pcb);
            if (it->cf) {
                it->cf->prediction =
                    csv_class(L, &rl, cell_at(row, cm.pert_pred),
                              t.header[cm.pert_pred], 1);
            }
        }
        if (cm.options >= 0) {
            options_from_cell(L, &rl, t.header[cm.options],
                              cell_at(row, cm.options), it);
        }
        for (size_t k = 0; k < cm.n_expl; k++) {
            const char *cell = cell_at(row, cm.expl_cols[k]);
            const char *ecol = t.header[cm.expl_cols[k]];
            if (!cell || !cell[0]) {
                continue; /* coverage is checked per condition later */
            }
            Explanation e;
            int ok;
            if (strcmp(expl_kind, "json") == 0) {
                json_error_t jerr;
                json_t *pv = json_loads(cell, JSON_REJECT_DUPLICATES, &jerr);
                if (!pv) {
                    jl_error(L, &rl, ecol, "invalid JSON payload: %s",
                             jerr.text);
                    continue;
                }
                JLoc pl = rl;
                ok = expl_parse(L, &pl, pv, NULL, it, &e, 0);
                json_decref(pv);
            } else {
                memset(&e, 0, sizeof e);
                e.kind = EXPL_TEXT;
                e.predicted = -1;
                e.text = ld_strdup(L, cell);
                ok = e.text ? 0 : -1;
            }
            if (ok == 0) {
                if (expl_attach(L, it, cm.expl_methods[k], &e) == -1) {
                    jl_error(L, &rl, ecol, "second '%s' explanation",
                             cm.expl_methods[k]);
                    expl_clear(&e);
                }
            } else {
                expl_clear(&e);
                expl_attach(L, it, cm.expl_methods[k], NULL);
            }
        }
    }
    sim_free((void *)cm.expl_methods);
    sim_free(cm.expl_cols);
    csv_table_free(&t);
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------ JSON items */

static void text_pair_json(Loader *L, const JLoc *at, json_t *v, ItemInput *in,
                           json_t **a, json_t **b)
{
    *a = *b = NULL;
    if (json_is_array(v) && json_array_size(v) == 2) {
        *a = json_array_get(v, 0);
        *b = json_array_get(v, 1);
    } else if (json_is_object(v)) {
        *a = json_object_get(v, "a");
        *b = json_object_get(v, "b");
        JLoc il;
        jl_child(&il, at, "input");
        static const char *const known[] = {"a", "b", "a_title", "b_title",
                                            NULL};
        jreject_unknown(L, &il, v, known);
        const char *s = NULL;
        if (jget_str(L, &il, v, "a_title", 0, &s) == 1) {
            in->title_a = ld_strdup(L, s);
        }
        if (jget_str(L, &il, v, "b_title", 0, &s) == 1) {
            in->title_b = ld_strdup(L, s);
        }
    }
    if (!json_is_string(*a) || !json_is_string(*b)) {
        jl_error(L, at, "input",
                 "a text_pair input is {\"a\": text, \"b\": text} or [a, b]");
        *a = *b = NULL;
    }
}

static void tabular_json(Loader *L, const JLoc *at, json_t *v, ItemInput *in)
{
    if (json_is_string(v)) {
        int bad = 0;
        if (items_parse_features(L, json_string_value(v), &in->features,
                                 &in->n_features, &bad) != 0 &&
            !L->oom) {
            jl_error(L, at, "input", "line %d is not 'Name = value'", bad);
        }
        return;
    }
    if (!json_is_array(v) && !json_is_object(v)) {
        jl_error(L, at, "input",
                 "a tabular input is a list of {\"name\", "
                 "\"value\"}");
        return;
    }
    size_t n = json_is_array(v) ? json_array_size(v) : json_object_size(v);
    in->features = ld_calloc(L, n ? n : 1, sizeof *in->features);
    if (!in->features) {
        return;
    }
    JLoc il;
    jl_child(&il, at, "input");
    if (json_is_object(v)) {
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val)
        {
            Feature *f = &in->features[in->n_features++];
            f->name = ld_strdup(L, key);
            f->value = json_scalar_text(L, val);
            if (!f->value) {
                jl_error(L, &il, key, "must be a string or an integer");
            }
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        JLoc el;
        jl_index(&el, &il, i);
        json_t *name = NULL, *val = NULL;
        if (json_is_object(e)) {
            static const char *const known[] = {"name", "value", NULL};
            jreject_unknown(L, &el, e, known);
            name = json_object_get(e, "name");
            val = json_object_get(e, "value");
        } else if (json_is_array(e) && json_array_size(e) == 2) {
            name = json_array_get(e, 0);
            val = json_array_get(e, 1);
        }
        Feature *f = &in->features[in->n_features++];
        f->name =
            json_is_string(name) ? ld_strdup(L, json_string_value(name)) : NULL;
        f->value = val ? json_scalar_text(L, val) : NULL;
        if (!f->name || !f->value) {
            jl_error(L, &el, NULL,
                     "a feature is {\"name\": text, \"value\": text}");
        }
    }
}

/* Input of a JSON record (or of its counterfactual, where markers are
** allowed: then edits are derived). */
static void input_from_json(Loader *L, const JLoc *at, json_t *v, Modality m,
                            ItemInput *in, Counterfactual *cf_marked)
{
    in->modality = m;
    if (!v) {
        jl_error(L, at, "input", "missing (required)");
        return;
    }
    switch (m) {
    case MODALITY_IMAGE:
        if (!json_is_string(v)) {
            jl_error(L, at, "input", "an image input is a file path");
        } else {
            image_input(L, at, "input", json_string_value(v), in);
        }
        break;
    case MODALITY_TEXT:
        if (!json_is_string(v) || json_string_length(v) == 0) {
            jl_error(L, at, "input", "a text input is a non-empty string");
        } else if (cf_marked && strstr(json_string_value(v), "**")) {
            marked_segment(L, at, "input", json_string_value(v), 0, cf_marked);
        } else {
            in->text = ld_strdup(L, json_string_value(v));
        }
        break;
    case MODALITY_TEXT_PAIR: {
        json_t *a, *b;
        text_pair_json(L, at, v, in, &a, &b);
        if (!a) {
            break;
        }
        in->text = ld_strdup(L, json_string_value(a));
        in->text_b = ld_strdup(L, json_string_value(b));
        if (cf_marked) {
            if (strstr(json_string_value(a), "**")) {
                marked_segment(L, at, "input", json_string_value(a), 0,
                               cf_marked);
            }
            if (strstr(json_string_value(b), "**")) {
                marked_segment(L, at, "input", json_string_value(b), 1,
                               cf_marked);
            }
        }
        break;
    }
    case MODALITY_TABULAR:
        tabular_json(L, at, v, in);
        if (in->n_features == 0 && !L->oom) {
            jl_error(L, at, "input", "no features");
        }
        break;
    }
}

static void cf_from_json(Loader *L, const JLoc *at, json_t *v, Item *it)
{
    JLoc cl;
    jl_child(&cl, at, "counterfactual");
    if (!json_is_object(v)) {
        jl_error(L, at, "counterfactual",
                 "must be an object {input, "
                 "prediction, edits}");
        return;
    }
    static const char *const known[] = {"input", "prediction", "edits",
                                        "region", NULL};
    jreject_unknown(L, &cl, v, known);
    Counterfactual *cf = it->cf = ld_calloc(L, 1, sizeof *cf);
    if (!cf) {
        return;
    }
    cf->prediction = -1;
    jget_class(L, &cl, v, "prediction", 1, &cf->prediction);
    Modality m = it->input.modality;
    json_t *input = json_object_get(v, "input");
    json_t *edits = json_object_get(v, "edits");
    if (edits && !json_is_array(edits)) {
        jl_error(L, &cl, "edits", "must be a list");
        edits = NULL;
    }
    cf->input.modality = m;
    if (input) {
        input_from_json(L, &cl, input, m, &cf->input, edits ? NULL : cf);
        if (m == MODALITY_TEXT_PAIR && cf->n_edits > 0) {
            /* markers were removed per segment; fill the unmarked one */
            if (!cf->input.text) {
                cf->input.text = ld_strdup(L, it->input.text);
            }
            if (!cf->input.text_b) {
                cf->input.text_b = ld_strdup(L, it->input.text_b);
            }
        }
    } else if (m == MODALITY_TABULAR && edits) {
        copy_features(L, &it->input, &cf->input);
    } else {
        jl_error(L, &cl, "input", "missing (required)");
        return;
    }
    const char *region = NULL;
    if (jget_str(L, &cl, v, "region", 0, &region) == 1) {
        char why[512];
        cf->region = ld_strdup(L, region);
        if (bpath_file(L, region, NULL, why, sizeof why) != 0) {
            jl_error_file(L, &cl, "region", "%s", why);
        }
    }
    if (!edits) {
        if (m == MODALITY_TABULAR && cf->input.n_features > 0) {
            /* derive edits from the difference */
            size_t cap = 0;
            for (size_t i = 0; i < cf->input.n_features; i++) {
                const Feature *nf = &cf->input.features[i];
                const Feature *of = find_feature(&it->input, nf->name);
                if (of && of->value && nf->value &&
                    strcmp(of->value, nf->value) == 0) {
                    continue;
                }
                if (ld_grow(L, (void **)&cf->edits, &cap, cf->n_edits + 1,
                            sizeof *cf->edits) != 0) {
                    break;
                }
                Edit *e = &cf->edits[cf->n_edits++];
                memset(e, 0, sizeof *e);
                e->feature = ld_strdup(L, nf->name);
                e->from = of ? ld_strdup(L, of->value) : NULL;
                e->to = ld_strdup(L, nf->value);
            }
        }
        return;
    }
    size_t n = json_array_size(edits);
    cf->edits = ld_calloc(L, n ? n : 1, sizeof *cf->edits);
    if (!cf->edits) {
        return;
    }
    JLoc el0;
    jl_child(&el0, &cl, "edits");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(edits, i);
        JLoc el;
        jl_index(&el, &el0, i);
        Edit *ed = &cf->edits[cf->n_edits++];
        if (!json_is_object(e)) {
            jl_error(L, &el, NULL, "an edit is an object");
            continue;
        }
        /* tabular edits name a feature, text edits a byte range */
        static const char *const edit_keys[] = {
            "feature", "from", "to", "start", "end", "segment", NULL};
        jreject_unknown(L, &el, e, edit_keys);
        const char *s = NULL;
        if (jget_str(L, &el, e, "to", 1, &s) == 1) {
            ed->to = ld_strdup(L, s);
        }
        if (jget_str(L, &el, e, "from", 0, &s) == 1) {
            ed->from = ld_strdup(L, s);
        }
        if (m == MODALITY_TABULAR) {
            if (jget_str(L, &el, e, "feature", 1, &s) == 1) {
                ed->feature = ld_strdup(L, s);
                Feature *f = find_feature(&cf->input, s);
                if (!f) {
                    jl_error(L, &el, "feature", "unknown feature '%s'", s);
                } else if (!input && ed->to) {
                    /* edits only: apply them to the copied input */
                    const Feature *of = find_feature(&it->input, s);
                    if (ed->from && of && strcmp(of->value, ed->from) != 0) {
                        jl_error(L, &el, "from",
                                 "'%s' is '%s' in the input, not '%s'", s,
                                 of->value, ed->from);
                    }
                    char *nv = ld_strdup(L, ed->to);
                    if (nv) {
                        sim_free(f->value);
                        f->value = nv;
                    }
                }
            }
        } else if (m == MODALITY_TEXT || m == MODALITY_TEXT_PAIR) {
            int start = 0, end = 0, seg = 0;
            jget_int(L, &el, e, "start", 1, 0, 1 << 30, &start);
            jget_int(L, &el, e, "end", 1, 0, 1 << 30, &end);
            jget_int(L, &el, e, "segment", 0, 0,
                     m == MODALITY_TEXT_PAIR ? 1 : 0, &seg);
            const char *txt = seg ? cf->input.text_b : cf->input.text;
            size_t len = txt ? strlen(txt) : 0;
            if (start > end || (size_t)end > len) {
                jl_error(L, &el, "end",
                         "byte range [%d, %d) is outside the perturbed text "
                         "(%zu bytes)",
                         start, end, len);
            }
            ed->start = (size_t)start;
            ed->end = (size_t)end;
            ed->segment = seg;
        }
    }
}

/* "mask" (an image item's ground-truth region, a bundle PNG) and
** "rationale" (gold token indices) of record o. */
static void truth_from_json(Loader *L, const JLoc *at, json_t *o, Item *it)
{
    const char *mask = NULL;
    if (jget_str(L, at, o, "mask", 0, &mask) == 1) {
        char why[512];
        it->mask = ld_strdup(L, mask);
        if (it->input.modality != MODALITY_IMAGE) {
            jl_error(L, at, "mask",
                     "a ground-truth mask belongs to an image item; use "
                     "\"rationale\" (token indices) for a text");
        } else if (bpath_file(L, mask, &it->mask_file, why, sizeof why) != 0) {
            jl_error_file(L, at, "mask", "%s", why);
        }
    }
    json_t *r = json_object_get(o, "rationale");
    if (!r || json_is_null(r)) {
        return;
    }
    if (!json_is_array(r) || json_array_size(r) == 0) {
        jl_error(L, at, "rationale",
                 "must be a non-empty list of token indices (0-based)");
        return;
    }
    it->rationale = ld_calloc(L, json_array_size(r), sizeof *it->rationale);
    size_t i;
    json_t *v;
    json_array_foreach(r, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > 1000000) {
            char key[64];
            snprintf(key, sizeof key, "rationale/%zu", i);
            jl_error(L, at, key, "expected a token index (0, 1, 2, ...)");
            continue;
        }
        if (it->rationale) {
            it->rationale[it->n_rationale++] = (int)json_integer_value(v);
        }
    }
}

static void item_from_json(Loader *L, const JLoc *at, json_t *o,
                           const BankDefaults *d)
{
    if (!json_is_object(o)) {
        jl_error(L, at, NULL, "an item record must be a JSON object");
        return;
    }
    static const char *const known[] = {
        "id",         "pool",           "modality", "input",        "label",
        "prediction", "counterfactual", "domain",   "explanations", "mask",
        "rationale",  "options",        NULL};
    jreject_unknown(L, at, o, known);
    char *id = NULL;
    const char *pool = d->pool, *mod = NULL, *domain = d->domain;
    int bad = jget_id(L, at, o, "id", 1, &id) != 1;
    int rc = jget_str(L, at, o, "pool", !d->pool, &pool);
    bad |= rc < 0 || !pool;
    if (pool && !pool[0]) {
        jl_error(L, at, "pool", "must not be empty");
        bad = 1;
    }
    int m = d->modality;
    rc = jget_str(L, at, o, "modality", d->modality < 0, &mod);
    if (rc == 1) {
        m = modality_from_name(mod);
        if (m < 0) {
            jl_error(L, at, "modality",
                     "'%s' is not image, text, text_pair or tabular", mod);
        }
    }
    bad |= m < 0;
    jget_str(L, at, o, "domain", 0, &domain);
    if (bad) {
        sim_free(id);
        return;
    }
    Item *it = items_new(L);
    if (!it) {
        sim_free(id);
        return;
    }
    it->id = id;
    it->pool = ld_strdup(L, pool);
    it->domain = domain ? ld_strdup(L, domain) : NULL;
    it->source_file = ld_strdup(L, d->file);
    it->source_line = at->line;
    if (!it->pool || set_key(L, it) != 0) {
        drop_last_item(L);
        return;
    }
    input_from_json(L, at, json_object_get(o, "input"), (Modality)m, &it->input,
                    NULL);
    jget_class(L, at, o, "label", 0, &it->label);
    jget_class(L, at, o, "prediction", 1, &it->prediction);
    json_t *cf = json_object_get(o, "counterfactual");
    if (cf && !json_is_null(cf)) {
        cf_from_json(L, at, cf, it);
    }
    truth_from_json(L, at, o, it);
    options_from_json(L, at, o, it);
    json_t *ex = json_object_get(o, "explanations");
    if (ex && !json_is_object(ex)) {
        jl_error(L, at, "explanations",
                 "must be an object (method -> "
                 "payload)");
    } else if (ex) {
        JLoc el0;
        jl_child(&el0, at, "explanations");
        const char *method;
        json_t *payload;
        json_object_foreach(ex, method, payload)
        {
            JLoc el;
            jl_child(&el, &el0, method);
            Explanation e;
            if (expl_parse(L, &el, payload, NULL, it, &e, 0) == 0) {
                expl_attach(L, it, method, &e);
            } else {
                expl_clear(&e);
                expl_attach(L, it, method, NULL); /* told at the payload */
            }
        }
    }
}

int items_each_jsonl(Loader *L, const JLoc *ref, const char *rel,
                     ItemsJsonlFn fn, void *ctx)
{
    char why[512], *data = NULL;
    size_t len = 0;
    int rc = bpath_read(L, rel, &data, &len, why, sizeof why);
    if (rc == -2) {
        jl_error(L, ref, "file", "%s", why);
    }
    if (rc != 0) {
        return -1;
    }
    char *p = data;
    int line = 0;
    while (p < data + len && !L->oom) {
        char *e = memchr(p, '\n', (size_t)(data + len - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(data + len - p);
        line++;
        if (line == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
            p += 3;
            n -= 3;
        }
        size_t k = n;
        while (k > 0 &&
               (p[k - 1] == '\r' || p[k - 1] == ' ' || p[k - 1] == '\t')) {
            k--;
        }
        size_t s = 0;
        while (s < k && (p[s] == ' ' || p[s] == '\t')) {
            s++;
        }
        if (k > s) {
            json_error_t jerr;
            json_t *o = json_loadb(p + s, k - s, JSON_REJECT_DUPLICATES, &jerr);
            if (!o) {
                ld_diag(L, 0, rel, line, jerr.column + (int)s, NULL, NULL,
                        "invalid JSON: %s", jerr.text);
            } else {
                JLoc at = {.file = rel, .line = line};
                fn(L, &at, o, ctx);
                json_decref(o);
            }
        }
        p += n + 1;
    }
    sim_free(data);
    return 0;
}

static void jsonl_item(Loader *L, const JLoc *at, json_t *o, void *ctx)
{
    item_from_json(L, at, o, ctx);
}

static int pert_format_from(Loader *L, const JLoc *at, json_t *bank)
{
    const char *s = NULL;
    if (jget_str(L, at, bank, "perturbation_format", 0, &s) != 1) {
        return PF_DEFAULT;
    }
    if (strcmp(s, "marked") == 0) {
        return PF_MARKED;
    }
    if (strcmp(s, "edits") == 0) {
        return PF_EDITS;
    }
    if (strcmp(s, "full") == 0) {
        return PF_FULL;
    }
    jl_error(L, at, "perturbation_format", "'%s' is not marked, edits or full",
             s);
    return PF_DEFAULT;
}

/* "csv" or "jsonl" from the format field or the file's extension (.csv,
** .tsv and .txt are CSV tables, .jsonl JSON Lines). */
int items_file_format(Loader *L, const JLoc *at, json_t *o, const char *file)
{
    const char *fmt = NULL;
    if (jget_str(L, at, o, "format", 0, &fmt) == 1) {
        if (strcmp(fmt, "csv") == 0) {
            return 0;
        }
        if (strcmp(fmt, "jsonl") == 0) {
            return 1;
        }
        jl_error(L, at, "format", "'%s' is not csv or jsonl", fmt);
        return -1;
    }
    /* CSV, tab-separated, or Excel's "Unicode Text" (UTF-16 with tabs) */
    static const char *const tables[] = {".csv", ".tsv", ".txt",
                                         ".CSV", ".TSV", ".TXT"};
    size_t n = strlen(file);
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        if (n > 4 && strcmp(file + n - 4, tables[i]) == 0) {
            return 0;
        }
    }
    if (n > 6 && strcmp(file + n - 6, ".jsonl") == 0) {
        return 1;
    }
    jl_error(L, at, "format",
             "missing (and '%s' is not .csv, .tsv, .txt or .jsonl)", file);
    return -1;
}

/* Reads one bank; returns -1 when its rows were not read (the file is
** missing, unreadable or its entry is broken: reported), so that pools
** that stay empty because of it are not reported again. */
static int load_bank(Loader *L, const JLoc *bl, json_t *bank, BankDefaults *d)
{
    static const char *const known[] = {"file",
                                        "format",
                                        "pool",
                                        "modality",
                                        "domain",
                                        "columns",
                                        "perturbation_format",
                                        "explanation_kind",
                                        "delimiter",
                                        "encoding",
                                        NULL};
    jreject_unknown(L, bl, bank, known);
    jget_str(L, bl, bank, "pool", 0, &d->pool);
    if (d->pool && !d->pool[0]) {
        jl_error(L, bl, "pool", "must not be empty");
        d->pool = NULL;
        return -1;
    }
    if (jget_str(L, bl, bank, "file", 1, &d->file) != 1) {
        return -1;
    }
    const char *mod = NULL;
    if (jget_str(L, bl, bank, "modality", 0, &mod) == 1) {
        d->modality = modality_from_name(mod);
        if (d->modality < 0) {
            jl_error(L, bl, "modality",
                     "'%s' is not image, text, text_pair or tabular", mod);
            return -1;
        }
    }
    jget_str(L, bl, bank, "domain", 0, &d->domain);
    d->pert_format = pert_format_from(L, bl, bank);
    int fmt = items_file_format(L, bl, bank, d->file);
    if (fmt == 0) {
        if (d->modality < 0) {
            jl_error(L, bl, "modality", "missing (required for CSV)");
            return -1;
        }
        return csv_bank(L, bl, bank, d);
    }
    if (fmt == 1) {
        return items_each_jsonl(L, bl, d->file, jsonl_item, d);
    }
    return -1;
}

void load_banks(Loader *L, json_t *banks, const JLoc *at)
{
    if (!json_is_array(banks)) {
        jl_error(L, at, NULL, "must be a list of item banks");
        return;
    }
    size_t i;
    json_t *bank;
    json_array_foreach(banks, i, bank)
    {
        JLoc bl;
        jl_index(&bl, at, i);
        if (!json_is_object(bank)) {
            jl_error(L, &bl, NULL, "an item bank is an object with a \"file\"");
            pool_unread(L, NULL);
            continue;
        }
        BankDefaults d = {NULL, NULL, -1, L->st->domain, PF_DEFAULT};
        if (load_bank(L, &bl, bank, &d) != 0) {
            pool_unread(L, d.pool); /* its rows are not read: no follow-ons */
        }
    }
}

size_t items_pool_size(const Study *st, const char *pool)
{
    size_t n = 0;
    for (size_t i = 0; pool && i < st->n_items; i++) {
        n += strcmp(st->items[i].pool, pool) == 0;
    }
    return n;
}
