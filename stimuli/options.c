/*
** Per-item answer options: an item's "options" (2 to 10 class ids), the
** "per_option" explanation payloads that give one part per option, the
** study's "classes" read from a CSV file (ImageNet's 1,000), and the
** checks that tie them together. libc, jansson and the CSV reader only.
*/
#include "stimuli/options.h"
#include "stimuli/csvtab.h"
#include "stimuli/blockkind.h"
#include "stimuli/expl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* ------------------------------------------------------------- options */

/* The class of option id at member key of `at` (a "did you mean" when it
** is unknown), or -1. */
static int option_class(Loader *L, const JLoc *at, const char *key,
                        const char *id)
{
    int k = study_class_index(L->st, id);
    if (k < 0 && L->classes_ok) {
        ld_class_lookup(L, id, at->file, at->line, at->line ? NULL : at->ptr,
                        key);
    }
    return k;
}

/* Sets it's options to the n class indices in ks after the checks of
** their number and duplicates (reported at member key of `at`). */
static void set_options(Loader *L, const JLoc *at, const char *key, char **ids,
                        const int *ks, size_t n, int bad, Item *it)
{
    if (n < 2 || n > ITEM_MAX_OPTIONS) {
        jl_error(L, at, key,
                 "%zu option%s: an item offers 2 to %d answer options", n,
                 n == 1 ? "" : "s", ITEM_MAX_OPTIONS);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(ids[i], ids[j]) == 0) {
                jl_error(L, at, key, "option '%s' is given twice", ids[i]);
                return;
            }
        }
    }
    if (bad || !L->classes_ok) {
        return;
    }
    it->options = ld_calloc(L, n, sizeof *it->options);
    if (it->options) {
        memcpy(it->options, ks, n * sizeof *ks);
        it->n_options = n;
    }
}

void options_from_json(Loader *L, const JLoc *at, json_t *o, Item *it)
{
    json_t *v = json_object_get(o, "options");
    if (!v || json_is_null(v)) {
        return;
    }
    if (!json_is_array(v)) {
        jl_error(L, at, "options", "must be a list of class ids");
        return;
    }
    size_t n = json_array_size(v);
    if (n > 64) {
        n = 64; /* reported as too many below */
    }
    char *ids[64];
    int ks[64];
    size_t got = 0;
    int bad = 0;
    JLoc ol;
    jl_child(&ol, at, "options");
    for (size_t i = 0; i < n; i++) {
        JLoc el;
        jl_index(&el, &ol, i);
        char *id = json_scalar_text(L, json_array_get(v, i));
        if (!id || !id[0]) {
            jl_error(L, &el, NULL, "must be a class id");
            sim_free(id);
            bad = 1;
            continue;
        }
        ks[got] = option_class(L, &el, NULL, id);
        bad |= ks[got] < 0;
        ids[got++] = id;
    }
    if (!bad || got == n) {
        set_options(L, at, "options", ids, ks, json_array_size(v), bad, it);
    }
    for (size_t i = 0; i < got; i++) {
        sim_free(ids[i]);
    }
}

void options_from_cell(Loader *L, const JLoc *at, const char *col,
                       const char *cell, Item *it)
{
    char *copy = cell ? ld_strdup(L, cell) : NULL;
    if (!copy || !sim_trim(copy)[0]) {
        sim_free(copy);
        return;
    }
    char *ids[64];
    int ks[64];
    size_t n = 0, total = 0;
    int bad = 0;
    char *p = copy;
    for (;;) {
        char *bar = strchr(p, '|');
        if (bar) {
            *bar = '\0';
        }
        char *id = sim_trim(p);
        total++;
        if (!id[0]) {
            jl_error(L, at, col,
                     "an empty option: separate class ids by '|' "
                     "(\"cat|dog|fox|owl\")");
            bad = 1;
        } else if (n < 64) {
            ks[n] = option_class(L, at, col, id);
            bad |= ks[n] < 0;
            ids[n++] = id;
        }
        if (!bar) {
            break;
        }
        p = bar + 1;
    }
    if (!bad || n == total) {
        set_options(L, at, col, ids, ks, total, bad, it);
    }
    sim_free(copy);
}

/* ---------------------------------------------------- per-option payload */

int options_is_payload(json_t *v)
{
    return json_is_object(v) && json_object_get(v, "per_option") != NULL;
}

/* The option ids of item as a list for messages. */
static void option_list(const Study *st, const Item *it, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < it->n_options && len < n; i++) {
        int w = snprintf(out + len, n - len, "%s'%s'", i ? ", " : "",
                         st->classes[it->options[i]].id);
        len += w > 0 ? (size_t)w : 0;
    }
}

int options_parse_payload(Loader *L, const JLoc *at, json_t *v,
                          const Item *item, Explanation *e, int depth)
{
    static const char *const known[] = {"per_option", "title",  "reveal", "id",
                                        "pool",       "method", NULL};
    jreject_unknown_of(L, at, v, known, "a per_option explanation");
    json_t *po = json_object_get(v, "per_option");
    JLoc pl;
    jl_child(&pl, at, "per_option");
    if (depth > 0) {
        jl_error(L, at, "per_option",
                 "only a method's whole payload may give one part per "
                 "option");
        return -1;
    }
    if (!json_is_object(po) || json_object_size(po) == 0) {
        jl_error(L, at, "per_option",
                 "must be an object: class id -> the payload shown with "
                 "that option");
        return -1;
    }
    e->kind = EXPL_LAYOUT;
    e->row = 1;
    size_t n = json_object_size(po);
    e->parts = ld_calloc(L, n, sizeof *e->parts);
    e->part_class = ld_calloc(L, n, sizeof *e->part_class);
    if (!e->parts || !e->part_class) {
        return -1;
    }
    if (item && !item->options && L->classes_ok) {
        jl_error(L, at, "per_option",
                 "the item has no \"options\": a per-option payload "
                 "explains each of an item's answer options");
    }
    char opts[512];
    if (item && item->options) {
        option_list(L->st, item, opts, sizeof opts);
    }
    const char *id;
    json_t *part;
    int rc = 0;
    json_object_foreach(po, id, part)
    {
        JLoc el;
        jl_child(&el, &pl, id);
        size_t i = e->n_parts++;
        int k = study_class_index(L->st, id);
        e->part_class[i] = k;
        if (k < 0 && L->classes_ok) {
            ld_class_lookup(L, id, el.file, el.line, el.line ? NULL : el.ptr,
                            "per_option");
            rc = -1;
        } else if (k >= 0 && item && item->options) {
            int among = 0;
            for (size_t j = 0; j < item->n_options; j++) {
                among |= item->options[j] == k;
            }
            if (!among) {
                jl_error(L, at, "per_option",
                         "'%s' is not one of the item's options (%s)", id,
                         opts);
                rc = -1;
            }
        }
        if (expl_parse(L, &el, part, NULL, item, &e->parts[i], depth + 1) !=
            0) {
            rc = -1;
        }
    }
    for (size_t j = 0; item && item->options && j < item->n_options; j++) {
        int given = 0;
        for (size_t i = 0; i < e->n_parts; i++) {
            given |= e->part_class[i] == item->options[j];
        }
        if (!given) {
            jl_warn(L, at, "per_option",
                    "no payload for option '%s': it is shown without "
                    "evidence",
                    L->st->classes[item->options[j]].id);
        }
    }
    return rc;
}

/* --------------------------------------------------------- classes file */

/* A class id and the line it is on, sorted by id to find duplicates. */
typedef struct ClassRef {
    const char *id;
    int line;
} ClassRef;

static int class_ref_cmp(const void *a, const void *b)
{
    const ClassRef *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

int options_classes_file(Loader *L, const JLoc *at, json_t *v)
{
    Study *st = L->st;
    static const char *const known[] = {"file", "columns", "delimiter",
                                        "encoding", NULL};
    jreject_unknown_of(L, at, v, known, "a classes file");
    const char *file = NULL;
    if (jget_str(L, at, v, "file", 1, &file) != 1) {
        return -1;
    }
    const char *id_col = "id", *label_col = "label";
    json_t *cols = json_object_get(v, "columns");
    JLoc cl;
    jl_child(&cl, at, "columns");
    if (cols) {
        static const char *const roles[] = {"id", "label", NULL};
        if (!json_is_object(cols)) {
            jl_error(L, at, "columns",
                     "must be an object: {\"id\": column, \"label\": "
                     "column}");
            return -1;
        }
        jreject_unknown_of(L, &cl, cols, roles, "the classes' columns");
        jget_str(L, &cl, cols, "id", 0, &id_col);
        jget_str(L, &cl, cols, "label", 0, &label_col);
    }
    CsvDialect dialect;
    if (csv_dialect_parse(L, at, v, "classes file", &dialect) != 0) {
        return -1;
    }
    CsvTable t;
    if (csv_table_open(L, at, file, &dialect, &t) != 0) {
        return -1;
    }
    long ci = csv_col(&t, id_col);
    long cla = csv_col(&t, label_col);
    if (ci < 0) {
        csv_missing_column(L, cols ? &cl : at, cols ? "id" : "file", id_col,
                           file, &t);
    }
    if (cla < 0 && (cols && json_object_get(cols, "label"))) {
        csv_missing_column(L, &cl, "label", label_col, file, &t);
    }
    if (ci < 0 || t.unusable ||
        (cla < 0 && cols && json_object_get(cols, "label"))) {
        csv_table_free(&t);
        return -1;
    }
    if (t.n_rows < 2) {
        jl_error(L, at, "file", "%s: %zu class%s; a study has 2 or more", file,
                 t.n_rows, t.n_rows == 1 ? "" : "es");
        csv_table_free(&t);
        return -1;
    }
    st->classes = ld_calloc(L, t.n_rows, sizeof *st->classes);
    if (!st->classes) {
        csv_table_free(&t);
        return -1;
    }
    int *lines = ld_calloc(L, t.n_rows ? t.n_rows : 1, sizeof *lines);
    int ok = 1;
    for (size_t r = 0; lines && r < t.n_rows && !L->oom; r++) {
        const CsvRow *row = &t.rows[r];
        const char *idc = (size_t)ci < row->n ? row->cells[ci] : "";
        const char *lab =
            cla >= 0 && (size_t)cla < row->n ? row->cells[cla] : NULL;
        StudyClass *sc = &st->classes[st->n_classes];
        sc->id = ld_strdup(L, idc);
        if (!sc->id) {
            break;
        }
        sim_trim(sc->id);
        if (!sc->id[0]) {
            ld_diag(L, 0, file, row->line, 0, NULL, id_col, "empty class id");
            sim_free(sc->id);
            sc->id = NULL;
            ok = 0;
            continue;
        }
        sc->label = ld_strdup(L, lab && lab[0] ? lab : sc->id);
        char key[24];
        snprintf(key, sizeof key, "%zu", st->n_classes + 1);
        sc->key = ld_strdup(L, key);
        lines[st->n_classes++] = row->line;
    }
    size_t n = st->n_classes;
    ClassRef *refs = ld_calloc(L, n ? n : 1, sizeof *refs);
    for (size_t i = 0; refs && lines && i < n; i++) {
        refs[i].id = st->classes[i].id;
        refs[i].line = lines[i];
    }
    if (refs && lines) {
        qsort(refs, n, sizeof *refs, class_ref_cmp);
        for (size_t i = 1; i < n; i++) {
            if (strcmp(refs[i].id, refs[i - 1].id) == 0) {
                ld_diag(L, 0, file, refs[i].line, 0, NULL, id_col,
                        "duplicate class id '%s' (also on line %d)", refs[i].id,
                        refs[i - 1].line);
                ok = 0;
            }
        }
    }
    sim_free(refs);
    sim_free(lines);
    csv_table_free(&t);
    return ok && !L->oom ? 0 : -1;
}

/* -------------------------------------------------------------- checks */

void options_validate(Design *D, const JLoc *root)
{
    Loader *L = D->L;
    Study *st = L->st;
    int any = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        any |= st->items[i].options != NULL;
    }
    int hive = st->preset && strcmp(st->preset, "hive-distinction") == 0;
    for (size_t bi = 0; hive && bi < st->n_blocks; bi++) {
        const Block *b = &st->blocks[bi];
        for (size_t i = 0;
             b->pool && block_kind_offers_options(b->kind) && i < st->n_items;
             i++) {
            const Item *it = &st->items[i];
            if (!it->options && strcmp(it->pool, b->pool) == 0) {
                ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                        "options",
                        "missing: hive-distinction asks which of an item's "
                        "candidate classes the model predicted");
            }
        }
    }
    if (!any) {
        return;
    }
    /* the items of blocks that answer from options: the right answer must
    ** be an option (the pools of such blocks): the model output, or in a
    ** decide block the true label */
    for (size_t bi = 0; bi < st->n_blocks; bi++) {
        const Block *b = &st->blocks[bi];
        if (!block_kind_offers_options(b->kind) || !b->pool) {
            continue;
        }
        int decide = b->kind == BLOCK_DECIDE;
        for (size_t i = 0; i < st->n_items; i++) {
            const Item *it = &st->items[i];
            int right = decide ? it->label : it->prediction;
            if (!it->options || strcmp(it->pool, b->pool) != 0 || right < 0) {
                continue;
            }
            int among = 0;
            for (size_t j = 0; j < it->n_options; j++) {
                among |= it->options[j] == right;
            }
            if (!among) {
                char opts[512];
                option_list(st, it, opts, sizeof opts);
                ld_diag(L, 0, it->source_file, it->source_line, 0, NULL,
                        "options",
                        "item '%s': the %s '%s' is not among its options "
                        "(%s), so no answer of block '%s' can be right",
                        it->id, decide ? "true label" : "model output",
                        st->classes[right].id, opts, b->id);
            }
        }
    }
    /* option trials listen to 1-9 (and 0 for a tenth): the key that shows
    ** an explanation given on request must be another */
    const char *key = ui_str(st->ui_strings, UI_EXPL_SHOW_KEY);
    if (key && key[0] >= '0' && key[0] <= '9' && !key[1]) {
        jl_error(L, root, "ui",
                 "the key '%s' that shows an explanation on request "
                 "('expl.show_key') is also the key of an answer option; "
                 "give that string a letter",
                 key);
    }
}
