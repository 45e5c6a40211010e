/*
** The loader of a study bundle, internal to the stimuli library: the
** context that collects located diagnostics (Loader), where a JSON value
** sits (JLoc), typed access to JSON members with located errors, and the
** class lookups of item fields (loader.c). No SDL, no clock.
*/
#ifndef SIMLAB_STIMULI_LOADER_H
#define SIMLAB_STIMULI_LOADER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "stimuli/study.h"

/* A problem reported more than once (same warn, file, field and message;
** for a problem of a bundle file, jl_error_file, the same message anywhere):
** the first report stays, the others are counted on it. */
#define DIAG_REPEAT_NAMED 3 /* places named in the message */
typedef struct DiagRepeat {
    uint64_t hash;
    int warn;
    int anywhere;   /* keyed by the message alone (jl_error_file) */
    int mixed;      /* anywhere: a further place has another file or field */
    size_t index;   /* in StudyReport.errors or .warnings */
    size_t msg_len; /* of the first message (before "and N more") */
    size_t n_more;  /* further reports */
    int lines[DIAG_REPEAT_NAMED];      /* of the first further reports */
    char *pointers[DIAG_REPEAT_NAMED]; /* owned; NULL in line files */
    char *files[DIAG_REPEAT_NAMED];    /* owned; anywhere only */
    char *fields[DIAG_REPEAT_NAMED];   /* owned; anywhere only */
} DiagRepeat;

typedef struct Loader {
    Study *st;
    StudyReport *rep;
    char *root; /* realpath of the bundle directory */
    size_t root_len;
    int oom;        /* sticky: an allocation failed */
    int classes_ok; /* classes parsed: class values can be checked */
    size_t cap_items;
    size_t n_errors;     /* distinct errors in the report so far */
    size_t n_raised;     /* errors raised, with repeats and follow-ons:
                            compare it before and after a step to know
                            whether the step failed */
    char **unread_pools; /* pools of item banks whose file was unreadable */
    size_t n_unread_pools;
    int unread_any;        /* an unreadable bank without a pool */
    int items_incomplete;  /* a bank had errors: balance is of what loaded */
    char **failed_methods; /* methods of explanation sources with errors */
    size_t n_failed_methods;
    int failed_any_method; /* a source with errors that names no method */
    const char *language;  /* study.json's "language" when given (borrowed
                              from the JSON being loaded), else NULL */
    DiagRepeat *repeats;   /* every distinct problem reported so far */
    size_t n_repeats, cap_repeats;
    size_t *repeat_slots; /* open addressing by hash: repeats index + 1 */
    size_t n_repeat_slots;
    uint64_t *suspects; /* hashes of (file, line, pointer) of known fields
                           that an unknown field nearly names: errors there
                           follow from the misspelling (0 = empty slot) */
    size_t n_suspects, n_suspect_slots;
} Loader;

/* Where a JSON value sits: study.json (line 0, pointer only) or one record
** of a JSON Lines file (line > 0, pointer inside the record). */
typedef struct JLoc {
    const char *file; /* bundle-relative */
    int line;
    int csv;       /* 1: a CSV record; keys are column names */
    char ptr[256]; /* JSON pointer of the value ("" = the root) */
} JLoc;

/* Diagnostics */

/* Appends an error (warn = 0) or warning; pointer and field may be NULL. */
void ld_diag(Loader *L, int warn, const char *file, int line, int column,
             const char *pointer, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/* Error or warning at member key (NULL = the value itself) of the value at
** `at`. In study.json the field is the last name of the pointer; in a JSON
** Lines record it is the dotted path inside the record. */
void jl_error(Loader *L, const JLoc *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void jl_warn(Loader *L, const JLoc *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* jl_error() for a problem of one bundle file (missing, outside the bundle,
** corrupt) whose message names it: one error wherever the file is named,
** counted as "(and N more places: items.jsonl:9 field 'x', ...)" when the
** other places are other fields or files. */
void jl_error_file(Loader *L, const JLoc *at, const char *key, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
/* Appends "(and N more rows: line 4, 5, 6, ...)" to each problem reported
** more than once and frees the bookkeeping; call once, after the last
** problem of a load. */
void ld_repeats_finish(Loader *L);
void jl_child(JLoc *out, const JLoc *at, const char *key);
/* Whether member key of the value at `at` is absent because an unknown
** field nearly names it (errors about its absence follow from that). */
int jl_misspelt(const Loader *L, const JLoc *at, const char *key);
void jl_index(JLoc *out, const JLoc *at, size_t i);

/* Allocation helpers that set L->oom on failure. */
char *ld_strdup(Loader *L, const char *s);
char *ld_strndup(Loader *L, const char *s, size_t n);
void *ld_calloc(Loader *L, size_t n, size_t size);
int ld_grow(Loader *L, void **array, size_t *cap, size_t need, size_t size);

/* JSON access */

/* Each returns 1 when the member is present and valid, 0 when absent (an
** error is reported when required), -1 when it has the wrong type
** (reported). */
int jget_str(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, const char **out);
/* An identifier: a string, or an integer converted to text (owned). */
int jget_id(Loader *L, const JLoc *at, json_t *obj, const char *key,
            int required, char **out);
int jget_int(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, int min, int max, int *out);
int jget_bool(Loader *L, const JLoc *at, json_t *obj, const char *key,
              int *out);
int jget_num(Loader *L, const JLoc *at, json_t *obj, const char *key,
             int required, double *out);
/* Whether a member name is free for the author's own use in any object:
** "notes", names starting with "x-", and "_" comments. */
int jkey_free(const char *key);
/* Reports member key of the object obj at `at` as an unknown field: an
** error with a "did you mean" (the nearest of the NULL-terminated known
** list) or, without a near one, the list. When obj lacks the field it
** nearly names, errors later reported at that field are follow-ons and
** dropped. what (may be NULL) names the object: "a text
** explanation" gives "unknown field of a text explanation". */
void junknown_key(Loader *L, const JLoc *at, json_t *obj, const char *key,
                  const char *const *known, const char *what);
/* Reports each member of obj that is neither in known (NULL-terminated)
** nor free (jkey_free), as junknown_key does. */
void jreject_unknown_of(Loader *L, const JLoc *at, json_t *obj,
                        const char *const *known, const char *what);
void jreject_unknown(Loader *L, const JLoc *at, json_t *obj,
                     const char *const *known);
/* The former name of jreject_unknown (unknown fields were warnings). */
#define jwarn_unknown jreject_unknown
/* Text of a scalar JSON value (string or integer) or NULL; owned. */
char *json_scalar_text(Loader *L, json_t *v);

/* Class ids of item fields */

/* Class index of a class id, or -1 after reporting an error (when the
** classes are known). file/line/pointer/field locate the value. */
int ld_class_lookup(Loader *L, const char *value, const char *file, int line,
                    const char *pointer, const char *field);
int jget_class(Loader *L, const JLoc *at, json_t *obj, const char *key,
               int required, int *out);

#endif
