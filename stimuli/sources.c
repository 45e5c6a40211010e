/*
** Explanation sources listed in study.json ("explanations"): JSON Lines
** payloads or CSV tables, joined to items by id within a pool. libc,
** jansson and common/ (the CSV reader) only.
*/
#include "stimuli/sources.h"
#include "stimuli/loader.h"
#include "stimuli/csvtab.h"
#include "stimuli/items_int.h"
#include "stimuli/expl_int.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* ---------------------------------------------------- explanation sources */

typedef struct SourceCtx {
    const char *method;
    const char *pool;
    const char *kind; /* default payload kind */
    const JLoc *src;  /* the source in study.json */
} SourceCtx;

/* Finds the item for an explanation record; reports when there is none. */
static Item *join_item(Loader *L, const JLoc *at, const char *field,
                       const char *pool, const char *id)
{
    Study *st = L->st;
    if (pool) {
        size_t n = strlen(pool) + strlen(id) + 2;
        char *key = sim_malloc(n);
        if (!key) {
            L->oom = 1;
            return NULL;
        }
        snprintf(key, n, "%s:%s", pool, id);
        long i = items_index_find(st, key);
        sim_free(key);
        if (i < 0) {
            if (!items_pool_unread(L, pool)) { /* else reported at the bank */
                jl_error(L, at, field, "no item '%s' in pool '%s'", id, pool);
            }
            return NULL;
        }
        return &st->items[i];
    }
    Item *found = NULL;
    for (size_t i = 0; i < st->n_items; i++) {
        if (st->items[i].id && strcmp(st->items[i].id, id) == 0) {
            if (found) {
                jl_error(L, at, field,
                         "item id '%s' is in pools '%s' and '%s': give the "
                         "source a \"pool\"",
                         id, found->pool, st->items[i].pool);
                return NULL;
            }
            found = &st->items[i];
        }
    }
    if (!found && !items_pool_unread(L, NULL)) {
        jl_error(L, at, field, "no item '%s' in any pool", id);
    }
    return found;
}

static void attach(Loader *L, const JLoc *at, const char *field, Item *it,
                   const char *method, Explanation *e)
{
    int rc = expl_attach(L, it, method, e);
    if (rc == -1) {
        jl_error(L, at, field, "item '%s' already has a '%s' explanation",
                 it->key, method);
        expl_clear(e);
    }
}

static void jsonl_expl(Loader *L, const JLoc *at, json_t *o, void *vctx)
{
    SourceCtx *ctx = vctx;
    if (!json_is_object(o)) {
        jl_error(L, at, NULL, "an explanation record must be a JSON object");
        return;
    }
    char *id = NULL;
    const char *pool = ctx->pool, *method = ctx->method;
    if (jget_id(L, at, o, "id", 1, &id) != 1) {
        return;
    }
    jget_str(L, at, o, "pool", 0, &pool);
    if (jget_str(L, at, o, "method", !ctx->method, &method) < 0 || !method) {
        sim_free(id);
        return;
    }
    Item *it = join_item(L, at, "id", pool, id);
    sim_free(id);
    if (!it) {
        return;
    }
    Explanation e;
    if (expl_parse(L, at, o, ctx->kind, it, &e, 0) == 0) {
        attach(L, at, "id", it, method, &e);
    } else {
        expl_clear(&e);
        expl_attach(L, it, method, NULL); /* told at the payload */
    }
}

static void csv_source(Loader *L, const JLoc *at, json_t *src,
                       const SourceCtx *ctx, const char *file)
{
    json_t *cols = json_object_get(src, "columns");
    if (!json_is_object(cols)) {
        jl_error(L, at, "columns",
                 cols ? "must be an object (role -> column)"
                      : "missing (required for CSV)");
        return;
    }
    if (!ctx->method) {
        jl_error(L, at, "method", "missing (required)");
        return;
    }
    JLoc cl;
    jl_child(&cl, at, "columns");
    const char *kind = ctx->kind;
    json_t *parts = json_object_get(cols, "parts");
    if (!kind) {
        kind = parts ? "composite" : "text";
    }
    if (strcmp(kind, "text") != 0 && strcmp(kind, "composite") != 0 &&
        strcmp(kind, "json") != 0) {
        jl_error(L, at, "kind",
                 "a CSV source holds text, composite (of text columns) or "
                 "json payloads, not '%s'",
                 kind);
        return;
    }
    CsvDialect dialect;
    if (csv_dialect_parse(L, at, src, "explanation source", &dialect) != 0) {
        return;
    }
    CsvTable t;
    if (csv_table_open(L, at, file, &dialect, &t) != 0) {
        return;
    }
    long c_id = -1, c_text = -1, c_title = -1;
    long *c_parts = NULL;
    size_t n_parts = 0;
    int bad = 0;
    const char *name = NULL;
    if (jget_str(L, &cl, cols, "id", 1, &name) == 1 &&
        (c_id = csv_col(&t, name)) < 0) {
        csv_missing_column(L, &cl, "id", name, file, &t);
    }
    bad |= c_id < 0;
    const char *text_role = strcmp(kind, "json") == 0 ? "payload" : "text";
    if (strcmp(kind, "composite") == 0) {
        if (!json_is_array(parts) || json_array_size(parts) == 0) {
            jl_error(L, &cl, "parts", "must be a non-empty list of columns");
            bad = 1;
        } else {
            n_parts = json_array_size(parts);
            c_parts = ld_calloc(L, n_parts, sizeof *c_parts);
            JLoc pl;
            jl_child(&pl, &cl, "parts");
            for (size_t k = 0; c_parts && k < n_parts; k++) {
                json_t *pn = json_array_get(parts, k);
                char idx[24];
                snprintf(idx, sizeof idx, "%zu", k);
                c_parts[k] = json_is_string(pn)
                                 ? csv_col(&t, json_string_value(pn))
                                 : -1;
                if (c_parts[k] < 0) {
                    csv_missing_column(
                        L, &pl, idx,
                        json_is_string(pn) ? json_string_value(pn) : "?", file,
                        &t);
                    bad = 1;
                }
            }
            bad |= !c_parts;
        }
    } else if (jget_str(L, &cl, cols, text_role, 1, &name) == 1) {
        if ((c_text = csv_col(&t, name)) < 0) {
            csv_missing_column(L, &cl, text_role, name, file, &t);
        }
        bad |= c_text < 0;
    } else {
        bad = 1;
    }
    if (jget_str(L, &cl, cols, "title", 0, &name) == 1 &&
        (c_title = csv_col(&t, name)) < 0) {
        csv_missing_column(L, &cl, "title", name, file, &t);
        bad = 1;
    }
    bad |= t.unusable; /* its dialect is wrong: reported at the file */
    for (size_t r = 0; !bad && r < t.n_rows && !L->oom; r++) {
        const CsvRow *row = &t.rows[r];
        JLoc rl = {.file = file, .line = row->line, .csv = 1};
        if (row->n != t.n_cols) {
            ld_diag(L, 0, file, row->line, 0, NULL, NULL,
                    "record has %zu fields, the header has %zu", row->n,
                    t.n_cols);
            continue;
        }
        char *id = ld_strdup(L, row->cells[c_id]);
        if (!id) {
            break;
        }
        sim_trim(id);
        Item *it = join_item(L, &rl, t.header[c_id], ctx->pool, id);
        sim_free(id);
        if (!it) {
            continue;
        }
        Explanation e;
        memset(&e, 0, sizeof e);
        e.predicted = -1;
        int ok = 0;
        if (c_parts) {
            e.kind = EXPL_COMPOSITE;
            e.parts = ld_calloc(L, n_parts, sizeof *e.parts);
            for (size_t k = 0; e.parts && k < n_parts; k++) {
                const char *cell = row->cells[c_parts[k]];
                e.parts[k].kind = EXPL_TEXT;
                e.parts[k].predicted = -1;
                e.n_parts = k + 1;
                if (!cell[0]) {
                    jl_error(L, &rl, t.header[c_parts[k]],
                             "empty explanation text");
                    ok = -1;
                }
                e.parts[k].text = ld_strdup(L, cell);
            }
            ok |= e.parts ? 0 : -1;
        } else if (strcmp(kind, "json") == 0) {
            json_error_t jerr;
            json_t *pv =
                json_loads(row->cells[c_text], JSON_REJECT_DUPLICATES, &jerr);
            if (!pv) {
                jl_error(L, &rl, t.header[c_text], "invalid JSON payload: %s",
                         jerr.text);
                continue;
            }
            ok = expl_parse(L, &rl, pv, NULL, it, &e, 0);
            json_decref(pv);
        } else {
            const char *cell = row->cells[c_text];
            e.kind = EXPL_TEXT;
            if (!cell[0]) {
                jl_error(L, &rl, t.header[c_text], "empty explanation text");
                ok = -1;
            }
            e.text = ld_strdup(L, cell);
        }
        if (ok == 0 && c_title >= 0 && row->cells[c_title][0]) {
            e.title = ld_strdup(L, row->cells[c_title]);
        }
        if (ok == 0 && !L->oom) {
            attach(L, &rl, t.header[c_id], it, ctx->method, &e);
        } else {
            expl_clear(&e);
            expl_attach(L, it, ctx->method, NULL); /* told at the row */
        }
    }
    sim_free(c_parts);
    csv_table_free(&t);
}

/* Notes that a source of method (NULL: of methods named per record) had
** errors, so that its method missing from every item is not reported
** again. */
static void method_failed(Loader *L, const char *method)
{
    if (!method) {
        L->failed_any_method = 1;
        return;
    }
    size_t cap = L->n_failed_methods;
    if (ld_grow(L, (void **)&L->failed_methods, &cap, L->n_failed_methods + 1,
                sizeof *L->failed_methods) != 0) {
        return;
    }
    char *copy = ld_strdup(L, method);
    if (copy) {
        L->failed_methods[L->n_failed_methods++] = copy;
    }
}

void load_expl_sources(Loader *L, json_t *sources, const JLoc *at)
{
    if (!json_is_array(sources)) {
        jl_error(L, at, NULL, "must be a list of explanation sources");
        return;
    }
    size_t i;
    json_t *src;
    json_array_foreach(sources, i, src)
    {
        JLoc sl;
        jl_index(&sl, at, i);
        if (!json_is_object(src)) {
            jl_error(L, &sl, NULL,
                     "an explanation source is an object with "
                     "a \"file\"");
            continue;
        }
        static const char *const known[] = {"method",    "file",     "format",
                                            "pool",      "kind",     "columns",
                                            "delimiter", "encoding", NULL};
        jreject_unknown(L, &sl, src, known);
        SourceCtx ctx = {NULL, NULL, NULL, &sl};
        const char *file = NULL;
        jget_str(L, &sl, src, "method", 0, &ctx.method);
        jget_str(L, &sl, src, "pool", 0, &ctx.pool);
        jget_str(L, &sl, src, "kind", 0, &ctx.kind);
        if (ctx.kind && strcmp(ctx.kind, "json") != 0 &&
            expl_kind_from_name(ctx.kind) < 0) {
            const char *near = expl_kind_suggest(ctx.kind);
            jl_error(L, &sl, "kind", "unknown explanation kind '%s'%s%s%s",
                     ctx.kind, near ? " (did you mean '" : "", near ? near : "",
                     near ? "'?)" : "");
            continue;
        }
        if (jget_str(L, &sl, src, "file", 1, &file) != 1) {
            continue;
        }
        size_t errors_before = L->n_raised;
        int fmt = items_file_format(L, &sl, src, file);
        if (fmt == 0) {
            csv_source(L, &sl, src, &ctx, file);
        } else if (fmt == 1) {
            items_each_jsonl(L, &sl, file, jsonl_expl, &ctx);
        }
        if (L->n_raised > errors_before) {
            method_failed(L, ctx.method);
        }
    }
}

int sources_method_failed(const Loader *L, const char *method)
{
    if (L->failed_any_method || items_pool_unread(L, NULL)) {
        return 1;
    }
    for (size_t i = 0; method && i < L->n_failed_methods; i++) {
        if (strcmp(L->failed_methods[i], method) == 0) {
            return 1;
        }
    }
    return 0;
}
