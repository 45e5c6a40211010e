/*
** Internals of the stimuli library shared by its .c files: the loader
** context that collects located diagnostics, JSON location helpers, bundle
** paths and the item index. Not part of the public API. No SDL, no clock.
*/
#ifndef SIMLAB_STIMULI_STUDY_INT_H
#define SIMLAB_STIMULI_STUDY_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "stimuli/study.h"

/* Open-addressing table from item key to index in Study.items. */
struct StudyIndex {
    size_t *slots;  /* item index + 1; 0 = empty */
    size_t n_slots; /* power of two */
    size_t n_items; /* items indexed (to notice a stale table) */
};

/* A problem reported more than once (same warn, file, field and message):
** the first report stays, the others are counted on it. */
#define DIAG_REPEAT_NAMED 3 /* places named in the message */
typedef struct DiagRepeat {
    uint64_t hash;
    int warn;
    size_t index;   /* in StudyReport.errors or .warnings */
    size_t msg_len; /* of the first message (before "and N more") */
    size_t n_more;  /* further reports */
    int lines[DIAG_REPEAT_NAMED];      /* of the first further reports */
    char *pointers[DIAG_REPEAT_NAMED]; /* owned; NULL in line files */
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

/* ------------------------------------------------------------ diagnostics */

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

/* ------------------------------------------------------------ JSON access */

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

/* ---------------------------------------------------------------- paths */

/* Checks the form of a bundle path: not empty, not absolute, no '..'.
** Returns 0, or -1 with the reason in why. */
int bundle_path_check(const char *rel, char *why, size_t why_size);
/* Checks that rel names an existing regular file inside the bundle. On
** success returns 0 and, when abs_out is not NULL, *abs_out owns the
** resolved absolute path. On failure returns -1 and writes the reason to
** why (no location; callers add it). */
int bundle_file(Loader *L, const char *rel, char **abs_out, char *why,
                size_t why_size);
/* Reads the bundle file rel whole (up to 1 GiB) into a NUL-terminated
** buffer that *data owns (sim_free). Returns 0; -1 after reporting a read
** error at rel, or when memory ran out (L->oom); -2 when the path itself is
** bad (nothing reported: the caller knows where the path was named and
** reports it there) with the reason in why. */
int read_bundle_file(Loader *L, const char *rel, char **data, size_t *len,
                     char *why, size_t why_size);
/* read_bundle_file for a CSV table; *file (may be NULL) gets the index of
** its entry in Study.text_files (SIZE_MAX without one), where the caller
** records the dialect it read the file in (csv, delim, encoding). Each file
** is recorded once, as read, whatever the number of reads. */
int read_bundle_csv(Loader *L, const char *rel, char **data, size_t *len,
                    size_t *file, char *why, size_t why_size);

/* ------------------------------------------------------------------ CSV */

typedef struct CsvRow {
    char **cells;
    size_t n;
    int line; /* physical line on which the record starts */
} CsvRow;

typedef struct CsvTable {
    char **header;
    size_t n_cols;
    int header_line;
    CsvRow *rows;
    size_t n_rows;
    int unusable; /* the file did not fit its dialect (reported): the
                     header may be checked, the rows are not to be used */
    int lossy;    /* bytes that fit no encoding became U+FFFD */
} CsvTable;

/* How a CSV file is written: "delimiter" and "encoding" of its entry. */
typedef struct CsvDialect {
    char delim;           /* ',' (default; tab for .tsv and .txt), ';', '\t' */
    SimEncoding encoding; /* any iconv knows (common/sim_decode.h) */
    int declared_delim;   /* the entry names them */
    int declared_encoding;
    const char *what;  /* "item bank", "explanation source" (for advice) */
    const char *where; /* JSON pointer of the entry in study.json */
    const char *file;  /* the entry's file (for advice), or NULL */
} CsvDialect;

/* Reads "delimiter" and "encoding" of the entry o at `at` (what: "item
** bank", "explanation source"; borrowed). An undeclared delimiter is a tab
** for a .tsv or .txt file (Excel's "Unicode Text"), else ','. Bad values
** are reported there. Returns 0, or -1 after an error. */
int csv_dialect_parse(Loader *L, const JLoc *at, json_t *o, const char *what,
                      CsvDialect *d);

/* Reads the bundle file rel, written in dialect d (NULL: UTF-8 with ','),
** converted to UTF-8. A file that does not fit the dialect gets one error
** per problem, each naming the option to add ("encoding", "delimiter"), and
** is read on as the advice says (or with U+FFFD for bytes that fit no
** encoding) so that its syntax and header are checked in the same run; its
** table is then marked unusable. Returns 0; -1 after reporting a problem
** that leaves no table (a syntax error, no header); -2 when the path itself
** is bad (nothing reported: the caller knows where the path was named and
** reports it there) with the reason in why. */
int csv_table_read(Loader *L, const char *rel, const CsvDialect *d, CsvTable *t,
                   char *why, size_t why_size);
void csv_table_free(CsvTable *t);
long csv_col(const CsvTable *t, const char *name); /* -1 when absent */
/* The header's column names, quoted and comma-separated, into out. */
void csv_header_list(const CsvTable *t, char *out, size_t n);
/* Reports that column name (mapped at member key of `at`) is not in the
** header of file, listing the header's columns; nothing when the header
** holds U+FFFD (bytes its encoding did not fit, reported at the file). */
void csv_missing_column(Loader *L, const JLoc *at, const char *key,
                        const char *name, const char *file, const CsvTable *t);
/* Whether a pool's items may be missing because a bank file could not be
** read (its errors were reported once; pool NULL: any pool). */
int ld_pool_unread(const Loader *L, const char *pool);
/* Whether items may lack method's explanations because an explanation
** source of it (or one naming no method) had errors, or a bank could not be
** read (reported there). */
int ld_method_failed(const Loader *L, const char *method);

/* ---------------------------------------------------------------- media */

/* Pixel size of a PNG or JPEG file; -1 with the reason in why (-2 when the
** file cannot be opened). *is_png (may be NULL) tells which of the two it
** is. */
int image_size(const char *abs, int *w, int *h, int *is_png, char *why,
               size_t why_size);
/* Shape of a float32 little-endian C-order 2-D .npy file. */
int npy_shape(const char *abs, int *rows, int *cols, char *why,
              size_t why_size);

/* --------------------------------------------------------- classes, items */

/* Class index of a class id, or -1 after reporting an error (when the
** classes are known). file/line/pointer/field locate the value. */
int class_lookup(Loader *L, const char *value, const char *file, int line,
                 const char *pointer, const char *field);
int jclass(Loader *L, const JLoc *at, json_t *obj, const char *key,
           int required, int *out);

Item *ld_new_item(Loader *L);
int index_build(Loader *L);
long index_find(const Study *st, const char *key);
void item_clear(Item *it);
void input_clear(ItemInput *in);
void edits_free(Edit *e, size_t n); /* frees n edits and the array */

/* Parses an explanation payload (object or string) into out. item may be
** NULL. default_kind is used when the payload has no "kind". depth 0 at the
** top; composites may not nest. Returns 0, or -1 after reporting. */
int expl_parse(Loader *L, const JLoc *at, json_t *v, const char *default_kind,
               const Item *item, Explanation *out, int depth);
void expl_clear(Explanation *e);
/* Attaches e (ownership passes) to item under method; -1 on duplicate.
** e NULL records a payload that had errors (item_explanation() gives
** NULL for it, item_expl_failed() says so). */
int item_add_expl(Loader *L, Item *item, const char *method, Explanation *e);
/* Whether item's payload for method was given but had errors. */
int item_expl_failed(const Item *item, const char *method);

/* Item banks (items.c) and explanation sources (sources.c) listed in
** study.json. */
void load_banks(Loader *L, json_t *banks, const JLoc *at);
void load_expl_sources(Loader *L, json_t *sources, const JLoc *at);

/* Calls fn for each non-blank line of the JSON Lines file rel with its
** parsed value; syntax errors are reported at their line. ref locates the
** "file" that names rel. Returns 0, or -1 when the file cannot be read
** (reported). */
typedef void (*JsonlFn)(Loader *L, const JLoc *at, json_t *o, void *ctx);
int each_jsonl(Loader *L, const JLoc *ref, const char *rel, JsonlFn fn,
               void *ctx);
/* 0 for CSV, 1 for JSON Lines, from o's "format" or the extension of file;
** -1 after reporting. */
int file_format(Loader *L, const JLoc *at, json_t *o, const char *file);

/* Text helpers */
/* Parses "Name = value" lines into features; -1 when a line has no " = ". */
int parse_feature_lines(Loader *L, const char *text, Feature **out,
                        size_t *n_out, int *bad_line);
/* Removes **markers** from text: *plain owns the text without markers and
** *edits the marked byte ranges in it. -1 when markers are unbalanced. */
int parse_marked(Loader *L, const char *text, int segment, char **plain,
                 Edit **edits, size_t *n_edits);

/* ------------------------------------------- block kinds (blockkind.c) */

/* Groups of the fields of a block in study.json. A kind's row names the
** groups it accepts; the keys of each group are listed once, in
** blockkind.c. */
enum {
    BF_ITEMS = 1u << 0,     /* pool, n, same_items_as, exclude_items_of,
                               order, draw, show: shows items of a pool */
    BF_RATING = 1u << 1,    /* rating: asks the rating of the explanation */
    BF_PRACTICE = 1u << 2,  /* feedback, retry, train_pool, n_train */
    BF_CATCH = 1u << 3,     /* catch, reservoir */
    BF_PAGES = 1u << 4,     /* pages */
    BF_QUESTIONS = 1u << 5, /* questions (repeat_until_correct) */
    BF_EXPLAINS = 1u << 6,  /* always shows the condition's explanation
                               (not a field: its items need payloads) */
    BF_SURVEY = 1u << 7,    /* questions of a questionnaire (questionnaire.c) */
    BF_DEADLINE = 1u << 8   /* time_limit_ms, timeout_message, confidence */
};

/* What a test block asks (the study's test type, for the export). */
typedef enum BlockTest {
    BTEST_NONE = 0,
    BTEST_FORWARD = 1,       /* predict the model on the input */
    BTEST_COUNTERFACTUAL = 2 /* predict it on the perturbation */
} BlockTest;

/* One row of the block kind table. */
typedef struct BlockKindDesc {
    const char *name; /* "kind" in study.json */
    unsigned fields;  /* BF_* */
    SimPhase phase;   /* default phase */
    ShowSpec show;    /* what a trial shows unless "show" says else */
    int rating;       /* asks the rating unless "rating" says else */
    BlockTest test;   /* the test it is, if any */
} BlockKindDesc;

/* The row of kind k (k must be a BlockKind). */
const BlockKindDesc *block_kind_desc(BlockKind k);
/* Writes the names of the kinds whose fields include all bits of `fields`
** (0: every kind), in table order, separated by sep and the last two by
** last, to out (size bytes, NUL-terminated). */
void block_kind_list(unsigned fields, const char *sep, const char *last,
                     char *out, size_t size);
/* NULL-terminated keys of the fields of a group (one BF_* bit). */
const char *const *block_group_keys(unsigned group);
/* Reports (as errors) members of a block object that no kind accepts. */
void block_warn_unknown(Loader *L, const JLoc *at, json_t *o);

/* ------------------------------------ questionnaires (questionnaire.c) */

/* Parses the "questions" list of a questionnaire block at `at` into *out
** (owned, *n_out of them; free with questionnaire_free): located errors for
** a bad type, duplicate ids, min > max, fewer than 2 options, points
** outside 2..11. Returns 0, or -1 when the list itself is unusable. */
int questionnaire_parse(Loader *L, const JLoc *at, json_t *list,
                        SurveyQuestion **out, size_t *n_out);
void questionnaire_free(SurveyQuestion *qs, size_t n);

/* ------------------------------------------------ presets (preset.c) */

/* The balance rule a preset's pools should follow (balance.c warns). */
typedef enum BalanceRule {
    BALANCE_NONE = 0,
    BALANCE_HASE = 1,    /* equal TP/FP/TN/FN in the pool of phase pre */
    BALANCE_HASE_CF = 2, /* and as many same as flip per prediction type */
    BALANCE_META = 3     /* as many correct as incorrect items in the first
                            train and test pools */
} BalanceRule;

struct Design;

/* One row of the preset table. */
typedef struct PresetDesc {
    const char *name; /* "preset" in study.json's "protocol" */
    /* appends the preset's blocks, read from the parameters in proto */
    void (*expand)(struct Design *D, const JLoc *at, json_t *proto);
    int strict_screening; /* screening defaults to the meta-predictor
                             rules (practice, quiz, catch trials) */
    BalanceRule balance;
} PresetDesc;

/* The preset named name, or NULL (name may be NULL). */
const PresetDesc *preset_find(const char *name);

/* ---------------------------------------------------------------- pages */

/* A page file named in study.json, where it was named. */
typedef struct PageRef {
    char *path;
    JLoc at;
    char key[32];
} PageRef;

/* Every page file named in study.json, in order (page.c). */
typedef struct PageRefs {
    PageRef *refs;
    size_t n, cap;
} PageRefs;

void page_refs_add(Loader *L, PageRefs *R, const char *path, const JLoc *at,
                   const char *key);
void page_refs_free(PageRefs *R);
/* Reads each page file of R once into L->st->pages: inside the bundle,
** UTF-8, parsed into its model, images resolved and checked (errors
** located at FILE:LINE). */
void pages_load(Loader *L, const PageRefs *R);
/* The page model of the inline text of consent, instructions and debrief
** blocks without page files (b->text_page; errors at at's "text"). */
void pages_load_text(Loader *L, Block *b, const JLoc *at);

/* Everything of study.json after it parsed: header, design, item banks,
** explanation sources, blocks, validation, pages. */
void design_parse(Loader *L, json_t *root);
/* "online" of study.json (root, at its JLoc): Study.online
** (stimuli/online.c). */
void online_parse(Loader *L, json_t *root, const JLoc *at);
/* "language", "language_file" and "ui" of study.json (root, at its JLoc):
** sets Study.ui_strings (stimuli/uiparse.c). */
void ui_parse(Loader *L, json_t *root, const JLoc *at);
/* Number of items in pool (0 for NULL). */
size_t pool_size(const Study *st, const char *pool);
void block_clear(Block *b);

/* Loads what it can even when there are errors: *out is NULL only when the
** bundle folder itself is unusable or memory ran out. */
int study_load_partial(const char *dir, Study **out, StudyReport *report,
                       SimError *err);

/* Adds a warning for each balance rule of the study's preset that the
** pools in rep (filled by study_balance) break. */
void balance_warnings(Loader *L, const StudyReport *rep);

/* Bundle hash (SHA-256 hex into out[65]); -1 with the reason in why, -2
** when memory ran out. */
int bundle_hash(const char *root, char out[65], char *why, size_t why_size);

#endif
