/*
** What the parts of a design share (designctx.h): identifiers, located
** errors about conditions, quiz questions and page paths. Internal to
** stimuli.
*/
#include "stimuli/designctx.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

int design_valid_ident(const char *s)
{
    if (!s[0]) {
        return 0;
    }
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
            return 0;
        }
    }
    return 1;
}

void design_no_condition(Loader *L, const JLoc *at, const char *key,
                         const char *id)
{
    const Study *st = L->st;
    const char *near = study_condition_suggest(st, id);
    if (near) {
        jl_error(L, at, key, "no condition '%s' (did you mean '%s'?)", id,
                 near);
        return;
    }
    SimBuf b;
    sim_buf_init(&b);
    for (size_t i = 0; i < st->n_conditions; i++) {
        sim_buf_printf(&b, "%s%s", i ? ", " : "", st->conditions[i].id);
    }
    jl_error(L, at, key, "no condition '%s' (conditions: %s)", id,
             sim_buf_cstr(&b));
    if (b.oom) {
        L->oom = 1;
    }
    sim_buf_free(&b);
}

void design_quiz_free(QuizQuestion *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(q[i].text);
        for (size_t k = 0; k < q[i].n_options; k++) {
            sim_free(q[i].options[k]);
        }
        sim_free(q[i].options);
    }
    sim_free(q);
}

int design_quiz_parse(Design *D, const JLoc *at, json_t *list,
                      QuizQuestion **out, size_t *n_out)
{
    Loader *L = D->L;
    *out = NULL;
    *n_out = 0;
    if (!json_is_array(list) || json_array_size(list) == 0) {
        jl_error(L, at, NULL, "must be a non-empty list of questions");
        return -1;
    }
    size_t n = json_array_size(list);
    QuizQuestion *qs = ld_calloc(L, n, sizeof *qs);
    if (!qs) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *q = json_array_get(list, i);
        JLoc ql;
        jl_index(&ql, at, i);
        QuizQuestion *x = &qs[i];
        *n_out = i + 1;
        x->answer = -1;
        if (!json_is_object(q)) {
            jl_error(L, &ql, NULL,
                     "a question is {\"text\", \"options\", \"answer\"}");
            continue;
        }
        static const char *const known[] = {"text", "options", "answer", NULL};
        jreject_unknown(L, &ql, q, known);
        const char *text = NULL;
        if (jget_str(L, &ql, q, "text", 1, &text) == 1) {
            if (!text[0]) {
                jl_error(L, &ql, "text", "must not be empty");
            }
            x->text = ld_strdup(L, text);
        }
        json_t *opts = json_object_get(q, "options");
        if (!json_is_array(opts) || json_array_size(opts) < 2) {
            jl_error(L, &ql, "options",
                     opts ? "must be a list of 2 or more texts"
                          : "missing (required)");
            continue;
        }
        size_t no = json_array_size(opts);
        x->options = ld_calloc(L, no, sizeof *x->options);
        if (!x->options) {
            continue;
        }
        JLoc ol;
        jl_child(&ol, &ql, "options");
        for (size_t k = 0; k < no; k++) {
            json_t *o = json_array_get(opts, k);
            x->n_options = k + 1;
            x->options[k] = json_scalar_text(L, o);
            if (!x->options[k] || !x->options[k][0]) {
                char idx[24];
                snprintf(idx, sizeof idx, "%zu", k);
                jl_error(L, &ol, idx, "an option is a non-empty text");
            }
        }
        jget_int(L, &ql, q, "answer", 1, 0, (int)no - 1, &x->answer);
    }
    *out = qs;
    return 0;
}

void design_add_page_ref(Design *D, const char *path, const JLoc *at,
                         const char *key)
{
    page_refs_add(D->L, &D->refs, path, at, key);
}

int design_page_list(Design *D, const JLoc *at, const char *key, json_t *v,
                     char ***out, size_t *n_out)
{
    Loader *L = D->L;
    *out = NULL;
    *n_out = 0;
    if (!v) {
        return 0;
    }
    if (!json_is_string(v) && !json_is_array(v)) {
        jl_error(L, at, key, "must be a path or a list of paths");
        return 0;
    }
    size_t n = json_is_string(v) ? 1 : json_array_size(v);
    char **paths = ld_calloc(L, n ? n : 1, sizeof *paths);
    if (!paths) {
        return 0;
    }
    *out = paths;
    if (json_is_string(v)) {
        paths[0] = ld_strdup(L, json_string_value(v));
        *n_out = 1;
        design_add_page_ref(D, json_string_value(v), at, key);
        return 1;
    }
    JLoc il;
    jl_child(&il, at, key);
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(v, i);
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        if (!json_is_string(p)) {
            jl_error(L, &il, idx, "a page is a file path");
            continue;
        }
        paths[(*n_out)++] = ld_strdup(L, json_string_value(p));
        design_add_page_ref(D, json_string_value(p), &il, idx);
    }
    return 1;
}

int design_set_pages(Design *D, Block *b, char *const *paths, size_t n)
{
    b->pages = ld_calloc(D->L, n ? n : 1, sizeof *b->pages);
    if (!b->pages) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        b->pages[i] = ld_strdup(D->L, paths[i]);
    }
    b->n_pages = n;
    return 0;
}
