/*
** Located diagnostics for the study loader, JSON pointer bookkeeping and
** typed access to JSON members. Depends on libc and jansson only.
*/
#include "stimuli/loader.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

char *ld_strdup(Loader *L, const char *s)
{
    if (!s) {
        return NULL;
    }
    char *d = sim_strdup(s);
    if (!d) {
        L->oom = 1;
    }
    return d;
}

char *ld_strndup(Loader *L, const char *s, size_t n)
{
    char *d = sim_strndup(s, n);
    if (!d) {
        L->oom = 1;
    }
    return d;
}

void *ld_calloc(Loader *L, size_t n, size_t size)
{
    void *p = sim_calloc(n, size);
    if (!p) {
        L->oom = 1;
    }
    return p;
}

int ld_grow(Loader *L, void **array, size_t *cap, size_t need, size_t size)
{
    if (sim_grow(array, cap, need, size) != 0) {
        L->oom = 1;
        return -1;
    }
    return 0;
}

/* FNV-1a over the parts of a problem that make two of them the same one. */
static uint64_t diag_hash(int warn, const char *file, const char *field,
                          const char *msg)
{
    uint64_t h = 1469598103934665603u;
    const char *parts[3] = {file, field, msg};
    h = (h ^ (uint64_t)(warn ? 'w' : 'e')) * 1099511628211u;
    for (int i = 0; i < 3; i++) {
        for (const char *p = parts[i]; *p; p++) {
            h = (h ^ (unsigned char)*p) * 1099511628211u;
        }
        h = (h ^ 0xffu) * 1099511628211u;
    }
    return h;
}

/* The entry of an earlier problem with the same warn, file, field and
** message, or NULL. Adds (file, field, msg) as new when absent: *is_new is
** then 1 and the caller appends the Diag. */
static DiagRepeat *repeat_find(Loader *L, int warn, int anywhere,
                               const char *file, const char *field,
                               const char *msg, int *is_new)
{
    *is_new = 1;
    StudyReport *r = L->rep;
    uint64_t h = anywhere ? diag_hash(warn, "", "\x01", msg)
                          : diag_hash(warn, file, field, msg);
    if (L->n_repeats * 2 >= L->n_repeat_slots) {
        size_t n = L->n_repeat_slots ? L->n_repeat_slots * 2 : 64;
        size_t *slots = sim_calloc(n, sizeof *slots);
        if (!slots) {
            L->oom = 1;
            return NULL;
        }
        for (size_t i = 0; i < L->n_repeats; i++) {
            size_t k = (size_t)L->repeats[i].hash & (n - 1);
            while (slots[k]) {
                k = (k + 1) & (n - 1);
            }
            slots[k] = i + 1;
        }
        sim_free(L->repeat_slots);
        L->repeat_slots = slots;
        L->n_repeat_slots = n;
    }
    size_t mask = L->n_repeat_slots - 1;
    size_t k = (size_t)h & mask;
    for (; L->repeat_slots[k]; k = (k + 1) & mask) {
        DiagRepeat *e = &L->repeats[L->repeat_slots[k] - 1];
        if (e->index >= (e->warn ? r->n_warnings : r->n_errors)) {
            continue; /* its Diag was never appended (out of memory) */
        }
        const Diag *d = e->warn ? &r->warnings[e->index] : &r->errors[e->index];
        if (e->hash == h && e->warn == warn && e->anywhere == anywhere &&
            (anywhere ||
             (strcmp(d->file, file) == 0 && strcmp(d->field, field) == 0)) &&
            strncmp(d->message, msg, e->msg_len) == 0 &&
            msg[e->msg_len] == '\0') {
            *is_new = 0;
            return e;
        }
    }

    size_t cap = L->cap_repeats;
    if (ld_grow(L, (void **)&L->repeats, &cap, L->n_repeats + 1,
                sizeof *L->repeats) != 0) {
        return NULL;
    }
    L->cap_repeats = cap;
    DiagRepeat *e = &L->repeats[L->n_repeats];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->warn = warn;
    e->anywhere = anywhere;
    e->index = warn ? r->n_warnings : r->n_errors;
    e->msg_len = strlen(msg);
    L->repeat_slots[k] = ++L->n_repeats;
    return e;
}

/* Notes one more place of a repeated problem (the first few are named);
** first is its first report. */
static void repeat_add(Loader *L, DiagRepeat *e, const Diag *first,
                       const char *file, int line, const char *pointer,
                       const char *field)
{
    int other = e->anywhere && (strcmp(first->file, file) != 0 ||
                                strcmp(first->field, field) != 0);
    e->mixed |= other;
    if (e->n_more < DIAG_REPEAT_NAMED) {
        e->lines[e->n_more] = line;
        if (pointer) {
            e->pointers[e->n_more] = ld_strdup(L, pointer);
        }
        if (e->anywhere) {
            e->files[e->n_more] = ld_strdup(L, file);
            e->fields[e->n_more] = ld_strdup(L, field);
        }
    }
    e->n_more++;
}

/* Hash of a place: file, line and JSON pointer. Never 0 (the empty slot). */
static uint64_t place_hash(const char *file, int line, const char *pointer)
{
    uint64_t h = diag_hash(0, file, pointer ? pointer : "", "");
    h = (h ^ (uint64_t)(unsigned)line) * 1099511628211u;
    return h ? h : 1;
}

/* Whether errors at the place are follow-ons of a misspelled field. */
static int suspect_has(const Loader *L, uint64_t h);

int jl_misspelt(const Loader *L, const JLoc *at, const char *key)
{
    JLoc meant;
    jl_child(&meant, at, key);
    return suspect_has(
        L, place_hash(at->file ? at->file : "", at->line, meant.ptr));
}

static int suspect_has(const Loader *L, uint64_t h)
{
    if (L->n_suspect_slots == 0) {
        return 0;
    }
    size_t mask = L->n_suspect_slots - 1;
    for (size_t k = (size_t)h & mask; L->suspects[k]; k = (k + 1) & mask) {
        if (L->suspects[k] == h) {
            return 1;
        }
    }
    return 0;
}

static void suspect_add(Loader *L, uint64_t h)
{
    if (suspect_has(L, h)) {
        return;
    }
    if (L->n_suspects * 2 >= L->n_suspect_slots) {
        size_t n = L->n_suspect_slots ? L->n_suspect_slots * 2 : 64;
        uint64_t *slots = sim_calloc(n, sizeof *slots);
        if (!slots) {
            L->oom = 1;
            return;
        }
        for (size_t i = 0; i < L->n_suspect_slots; i++) {
            uint64_t x = L->suspects[i];
            if (x) {
                size_t k = (size_t)x & (n - 1);
                while (slots[k]) {
                    k = (k + 1) & (n - 1);
                }
                slots[k] = x;
            }
        }
        sim_free(L->suspects);
        L->suspects = slots;
        L->n_suspect_slots = n;
    }
    size_t mask = L->n_suspect_slots - 1;
    size_t k = (size_t)h & mask;
    while (L->suspects[k]) {
        k = (k + 1) & mask;
    }
    L->suspects[k] = h;
    L->n_suspects++;
}

static int same_place(const Diag *d, int line, const char *pointer)
{
    if (d->line != line) {
        return 0;
    }
    return (!d->pointer && !pointer) ||
           (d->pointer && pointer && strcmp(d->pointer, pointer) == 0);
}

/* fmt and ap as vprintf takes them (the callers' formats are checked) */
static void vdiag(Loader *L, int warn, int anywhere, const char *file, int line,
                  int column, const char *pointer, const char *field,
                  const char *fmt, va_list ap)
    __attribute__((format(printf, 9, 0)));
static void vdiag(Loader *L, int warn, int anywhere, const char *file, int line,
                  int column, const char *pointer, const char *field,
                  const char *fmt, va_list ap)
{
    L->n_raised += !warn;
    StudyReport *r = L->rep;
    if (!r) {
        L->n_errors += !warn;
        return;
    }
    file = file ? file : "";
    field = field ? field : "";
    if (!warn && pointer && suspect_has(L, place_hash(file, line, pointer))) {
        return; /* told at the misspelled field next to it */
    }
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One root cause, one entry: the same problem at the same field of the
    ** same file (a misspelled class in every row, a misspelled pool in
    ** every block) is counted on its first report (ld_repeats_finish). */
    int is_new = 1;
    DiagRepeat *rep = repeat_find(L, warn, anywhere, file, field, msg, &is_new);
    if (!is_new) {
        const Diag *first =
            rep->warn ? &r->warnings[rep->index] : &r->errors[rep->index];
        if (!same_place(first, line, pointer) ||
            strcmp(first->file, file) != 0) { /* else a duplicate */
            repeat_add(L, rep, first, file, line, pointer, field);
        }
        return;
    }
    if (!warn) {
        L->n_errors++;
    }
    Diag **arr = warn ? &r->warnings : &r->errors;
    size_t *n = warn ? &r->n_warnings : &r->n_errors;
    /* The arrays grow one by one: reports are short and this keeps the
    ** report struct free of capacity fields. */
    Diag *p = sim_realloc(*arr, (*n + 1) * sizeof **arr);
    if (!p) {
        L->oom = 1;
        return;
    }
    *arr = p;
    Diag *d = &p[*n];
    memset(d, 0, sizeof *d);
    d->file = sim_strdup(file);
    d->line = line;
    d->column = column;
    d->pointer = pointer ? sim_strdup(pointer) : NULL;
    d->field = sim_strdup(field);
    d->message = sim_strdup(msg);
    if (!d->file || !d->field || !d->message || (pointer && !d->pointer)) {
        L->oom = 1;
    }
    (*n)++;
}

/* Appends sep and further place k of a problem named in several files or
** fields: "items.jsonl:9 field 'x'" or "study.json:/pages/consent". */
static void repeat_place(SimBuf *b, const char *sep, const DiagRepeat *e,
                         size_t k)
{
    sim_buf_printf(b, "%s%s", sep, e->files[k] ? e->files[k] : "");
    if (e->lines[k] > 0) {
        sim_buf_printf(b, ":%d", e->lines[k]);
    } else if (e->pointers[k]) {
        sim_buf_printf(b, ":%s", e->pointers[k]);
    }
    if (e->fields[k] && e->fields[k][0]) {
        sim_buf_printf(b, " field '%s'", e->fields[k]);
    }
}

void ld_repeats_finish(Loader *L)
{
    StudyReport *r = L->rep;
    for (size_t i = 0; r && i < L->n_repeats && !L->oom; i++) {
        DiagRepeat *e = &L->repeats[i];
        if (e->n_more == 0) {
            continue;
        }
        Diag *d = e->warn ? &r->warnings[e->index] : &r->errors[e->index];
        d->n_more = e->n_more;
        SimBuf b;
        sim_buf_init(&b);
        int lines = d->line > 0 && !e->mixed;
        sim_buf_printf(&b, "%s (and %zu more %s", d->message, e->n_more,
                       lines ? (e->n_more == 1 ? "row" : "rows")
                             : (e->n_more == 1 ? "place" : "places"));
        size_t named =
            e->n_more < DIAG_REPEAT_NAMED ? e->n_more : DIAG_REPEAT_NAMED;
        for (size_t k = 0; k < named; k++) {
            const char *sep = k == 0 ? ": " : ", ";
            if (e->mixed) {
                repeat_place(&b, sep, e, k);
            } else if (lines) {
                sim_buf_printf(&b, "%s%s%d", sep,
                               k > 0        ? ""
                               : named == 1 ? "line "
                                            : "lines ",
                               e->lines[k]);
            } else if (e->pointers[k]) {
                sim_buf_printf(&b, "%s%s", sep, e->pointers[k]);
            }
        }
        sim_buf_puts(&b, e->n_more > named ? ", ...)" : ")");
        if (b.oom) {
            L->oom = 1;
        } else {
            sim_free(d->message);
            d->message = sim_buf_take(&b);
        }
        sim_buf_free(&b);
    }
    for (size_t i = 0; i < L->n_repeats; i++) {
        for (size_t k = 0; k < DIAG_REPEAT_NAMED; k++) {
            sim_free(L->repeats[i].pointers[k]);
            sim_free(L->repeats[i].files[k]);
            sim_free(L->repeats[i].fields[k]);
        }
    }
    sim_free(L->repeats);
    sim_free(L->repeat_slots);
    sim_free(L->suspects);
    L->repeats = NULL;
    L->repeat_slots = NULL;
    L->suspects = NULL;
    L->n_suspects = L->n_suspect_slots = 0;
    L->n_repeats = L->cap_repeats = L->n_repeat_slots = 0;
}

void ld_diag(Loader *L, int warn, const char *file, int line, int column,
             const char *pointer, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(L, warn, 0, file, line, column, pointer, field, fmt, ap);
    va_end(ap);
}

/* Appends "/" + key, escaped as RFC 6901 asks ("~" -> "~0", "/" -> "~1"). */
static void ptr_append(char *ptr, size_t size, const char *key)
{
    size_t n = strlen(ptr);
    if (n + 1 < size) {
        ptr[n++] = '/';
    }
    for (const char *k = key; *k && n + 2 < size; k++) {
        if (*k == '~' || *k == '/') {
            ptr[n++] = '~';
            ptr[n++] = *k == '~' ? '0' : '1';
        } else {
            ptr[n++] = *k;
        }
    }
    ptr[n < size ? n : size - 1] = '\0';
}

void jl_child(JLoc *out, const JLoc *at, const char *key)
{
    JLoc tmp = *at;
    ptr_append(tmp.ptr, sizeof tmp.ptr, key);
    *out = tmp;
}

void jl_index(JLoc *out, const JLoc *at, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", i);
    jl_child(out, at, num);
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }
    return 1;
}

/* Field name for a pointer: in study.json the last segment that is not an
** array index; in a JSON Lines record the whole path with dots. */
static void field_of(const char *ptr, int dotted, char *out, size_t size)
{
    out[0] = '\0';
    if (dotted) {
        size_t n = 0;
        for (const char *p = ptr[0] == '/' ? ptr + 1 : ptr; *p && n + 1 < size;
             p++) {
            out[n++] = *p == '/' ? '.' : *p;
        }
        out[n] = '\0';
        return;
    }
    const char *end = ptr + strlen(ptr);
    while (end > ptr) {
        const char *seg = end;
        while (seg > ptr && seg[-1] != '/') {
            seg--;
        }
        size_t len = (size_t)(end - seg);
        if (!all_digits(seg, len)) {
            snprintf(out, size, "%.*s", (int)len, seg);
            return;
        }
        end = seg > ptr ? seg - 1 : ptr;
    }
}

static void vjl(Loader *L, int warn, int anywhere, const JLoc *at,
                const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
static void vjl(Loader *L, int warn, int anywhere, const JLoc *at,
                const char *key, const char *fmt, va_list ap)
{
    if (at->csv) {
        vdiag(L, warn, anywhere, at->file, at->line, 0, NULL, key, fmt, ap);
        return;
    }
    JLoc here = *at;
    if (key) {
        ptr_append(here.ptr, sizeof here.ptr, key);
    }
    char field[256];
    field_of(here.ptr, at->line > 0, field, sizeof field);
    vdiag(L, warn, anywhere, at->file, at->line, 0,
          here.ptr[0] ? here.ptr : "/", field, fmt, ap);
}

void jl_error(Loader *L, const JLoc *at, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vjl(L, 0, 0, at, key, fmt, ap);
    va_end(ap);
}

void jl_error_file(Loader *L, const JLoc *at, const char *key, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    vjl(L, 0, 1, at, key, fmt, ap);
    va_end(ap);
}

void jl_warn(Loader *L, const JLoc *at, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vjl(L, 1, 0, at, key, fmt, ap);
    va_end(ap);
}

static const char *type_name(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "a value";
}

static json_t *member(Loader *L, const JLoc *at, json_t *obj, const char *key,
                      int required)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!v && required) {
        jl_error(L, at, key, "missing (required)");
    }
    return v;
}

int jget_str(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, const char **out)
{
    json_t *v = member(L, at, obj, key, required);
    if (!v) {
        return 0;
    }
    if (!json_is_string(v)) {
        jl_error(L, at, key, "must be a string, not %s", type_name(v));
        return -1;
    }
    *out = json_string_value(v);
    return 1;
}

char *json_scalar_text(Loader *L, json_t *v)
{
    if (json_is_string(v)) {
        return ld_strdup(L, json_string_value(v));
    }
    if (json_is_integer(v)) {
        char num[32];
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
                 json_integer_value(v));
        return ld_strdup(L, num);
    }
    return NULL;
}

int jget_id(Loader *L, const JLoc *at, json_t *obj, const char *key,
            int required, char **out)
{
    json_t *v = member(L, at, obj, key, required);
    if (!v) {
        return 0;
    }
    if (!json_is_string(v) && !json_is_integer(v)) {
        jl_error(L, at, key, "must be a string or an integer, not %s",
                 type_name(v));
        return -1;
    }
    if (json_is_string(v) && json_string_length(v) == 0) {
        jl_error(L, at, key, "must not be empty");
        return -1;
    }
    *out = json_scalar_text(L, v);
    return *out ? 1 : -1;
}

int jget_int(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, int min, int max, int *out)
{
    json_t *v = member(L, at, obj, key, required);
    if (!v) {
        return 0;
    }
    if (!json_is_integer(v)) {
        jl_error(L, at, key, "must be an integer, not %s", type_name(v));
        return -1;
    }
    json_int_t x = json_integer_value(v);
    if (x < min || x > max) {
        jl_error(L, at, key, "%" JSON_INTEGER_FORMAT " is out of range %d..%d",
                 x, min, max);
        return -1;
    }
    *out = (int)x;
    return 1;
}

int jget_bool(Loader *L, const JLoc *at, json_t *obj, const char *key, int *out)
{
    json_t *v = member(L, at, obj, key, 0);
    if (!v) {
        return 0;
    }
    if (!json_is_boolean(v)) {
        jl_error(L, at, key, "must be true or false, not %s", type_name(v));
        return -1;
    }
    *out = json_is_true(v);
    return 1;
}

int jget_num(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, double *out)
{
    json_t *v = member(L, at, obj, key, required);
    if (!v) {
        return 0;
    }
    if (!json_is_number(v)) {
        jl_error(L, at, key, "must be a number, not %s", type_name(v));
        return -1;
    }
    double x = json_number_value(v);
    if (!isfinite(x)) {
        jl_error(L, at, key, "must be a finite number");
        return -1;
    }
    *out = x;
    return 1;
}

int jkey_free(const char *key)
{
    return key[0] == '_' || strncmp(key, "x-", 2) == 0 ||
           strcmp(key, "notes") == 0;
}

void junknown_key(Loader *L, const JLoc *at, json_t *obj, const char *key,
                  const char *const *known, const char *what)
{
    size_t n = 0;
    while (known[n]) {
        n++;
    }
    const char *near = sim_suggest(key, known, n);
    /* "note", "Notes": the free member, misspelled */
    if (sim_edit_distance(key, "notes") <= 1 &&
        (!near || sim_edit_distance(key, near) > 1)) {
        near = "notes";
    }
    /* reported, but the object around it is read as if it were not there:
    ** an unknown field does not make a payload or record fail (no
    ** follow-on "has no explanation" or "not loaded") */
    size_t raised = L->n_raised;
    char of[96] = "";
    if (what) {
        snprintf(of, sizeof of, " of %s", what);
    }
    if (near) {
        jl_error(L, at, key, "unknown field%s (did you mean '%s'?)", of, near);
        L->n_raised = raised;
        /* what the author meant is missing or default: errors there
        ** (missing, out of range, too few items) follow from this one */
        if (!at->csv && strcmp(near, "notes") != 0 &&
            !json_object_get(obj, near)) {
            JLoc meant;
            jl_child(&meant, at, near);
            suspect_add(
                L, place_hash(at->file ? at->file : "", at->line, meant.ptr));
        }
        return;
    }
    SimBuf b;
    sim_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        sim_buf_printf(&b, "%s%s", i ? ", " : "", known[i]);
    }
    jl_error(L, at, key,
             "unknown field%s (the fields here: %s; for your own use: "
             "notes, x-...)",
             of, n ? sim_buf_cstr(&b) : "none");
    L->n_raised = raised;
    if (b.oom) {
        L->oom = 1;
    }
    sim_buf_free(&b);
}

void jreject_unknown_of(Loader *L, const JLoc *at, json_t *obj,
                        const char *const *known, const char *what)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int found = jkey_free(key);
        for (size_t i = 0; !found && known[i]; i++) {
            found = strcmp(known[i], key) == 0;
        }
        if (!found) {
            junknown_key(L, at, obj, key, known, what);
        }
    }
}

void jreject_unknown(Loader *L, const JLoc *at, json_t *obj,
                     const char *const *known)
{
    jreject_unknown_of(L, at, obj, known, NULL);
}

/* ------------------------------------------------- class ids of fields */

/* What follows "unknown class 'x'" in parentheses: the classes when they
** are few, else "did you mean 'y'?" when a class id is near, else their
** number (a study of ImageNet's 1,000). */
static void unknown_class_hint(const Study *st, const char *value, SimBuf *b)
{
    size_t n = st->n_classes;
    if (n <= 20) {
        sim_buf_puts(b, "classes: ");
        for (size_t i = 0; i < n; i++) {
            sim_buf_printf(b, "%s'%s'", i ? ", " : "", st->classes[i].id);
        }
        return;
    }
    const char *near = NULL;
    size_t best = sim_suggest_limit(value) + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = st->classes[i].id
                       ? sim_edit_distance(value, st->classes[i].id)
                       : 99;
        if (d < best) {
            best = d;
            near = st->classes[i].id;
        }
    }
    if (near) {
        sim_buf_printf(b,
                       "not one of the study's %zu classes; did you mean "
                       "'%s'?",
                       n, near);
    } else {
        sim_buf_printf(b, "not one of the study's %zu classes", n);
    }
}

int ld_class_lookup(Loader *L, const char *value, const char *file, int line,
                    const char *pointer, const char *field)
{
    int k = study_class_index(L->st, value);
    if (k >= 0 || !L->classes_ok) {
        return k;
    }
    SimBuf b;
    sim_buf_init(&b);
    unknown_class_hint(L->st, value, &b);
    ld_diag(L, 0, file, line, 0, pointer, field, "unknown class '%s' (%s)",
            value, sim_buf_cstr(&b));
    sim_buf_free(&b);
    return -1;
}

int jget_class(Loader *L, const JLoc *at, json_t *obj, const char *key,
               int required, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required) {
            jl_error(L, at, key, "missing (required)");
        }
        return 0;
    }
    char *text = json_scalar_text(L, v);
    if (!text) {
        jl_error(L, at, key, "must be a class id");
        return -1;
    }
    int k = study_class_index(L->st, text);
    if (k < 0 && L->classes_ok) {
        SimBuf b;
        sim_buf_init(&b);
        unknown_class_hint(L->st, text, &b);
        jl_error(L, at, key, "unknown class '%s' (%s)", text, sim_buf_cstr(&b));
        sim_buf_free(&b);
    }
    sim_free(text);
    *out = k;
    return k >= 0 ? 1 : -1;
}
