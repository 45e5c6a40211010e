/*
** Reading long-format responses from CSV (libcsv) and SQLite databases into a
** Dataset. Every parse error names the source, the line (or row) and the
** column. Depends on libc, libcsv, SQLite and common/.
*/
#include "analysis/dataset.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>
#include <jansson.h>
#include <sqlite3.h>

#include "analysis/keymap.h"
#include "common/sim_alloc.h"
#include "common/sim_phase.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

/* ------------------------------------------------------------------ */
/* String pool: open addressing on FNV-1a hashes                       */

struct StrPool {
    char **strs; /* id -> string (owned) */
    int n, cap;
    int *slots; /* hash slot -> id, -1 when empty */
    size_t n_slots;
};

static int pool_rehash(StrPool *p, size_t n_slots)
{
    int *slots = sim_malloc(n_slots * sizeof *slots);
    if (!slots) {
        return -1;
    }
    for (size_t i = 0; i < n_slots; i++) {
        slots[i] = -1;
    }
    for (int id = 0; id < p->n; id++) {
        size_t h = (size_t)sim_hash_str(p->strs[id]) & (n_slots - 1);
        while (slots[h] >= 0) {
            h = (h + 1) & (n_slots - 1);
        }
        slots[h] = id;
    }
    sim_free(p->slots);
    p->slots = slots;
    p->n_slots = n_slots;
    return 0;
}

static int pool_find(const StrPool *p, const char *s, size_t *slot)
{
    size_t h = (size_t)sim_hash_str(s) & (p->n_slots - 1);
    while (p->slots[h] >= 0) {
        if (strcmp(p->strs[p->slots[h]], s) == 0) {
            if (slot) {
                *slot = h;
            }
            return p->slots[h];
        }
        h = (h + 1) & (p->n_slots - 1);
    }
    if (slot) {
        *slot = h;
    }
    return -1;
}

int dataset_intern(Dataset *ds, const char *s)
{
    StrPool *p = ds->pool;
    size_t slot;
    int id = pool_find(p, s, &slot);
    if (id >= 0) {
        return id;
    }
    if ((size_t)(p->n + 1) * 2 > p->n_slots) {
        if (pool_rehash(p, p->n_slots * 2) != 0) {
            return -1;
        }
        pool_find(p, s, &slot);
    }
    if (p->n == p->cap) {
        size_t cap = (size_t)p->cap;
        if (sim_grow((void **)&p->strs, &cap, (size_t)p->n + 1,
                     sizeof *p->strs) != 0) {
            return -1;
        }
        p->cap = (int)cap;
    }
    char *copy = sim_strdup(s);
    if (!copy) {
        return -1;
    }
    p->strs[p->n] = copy;
    p->slots[slot] = p->n;
    return p->n++;
}

const char *dataset_str(const Dataset *ds, int id)
{
    return id >= 0 && id < ds->pool->n ? ds->pool->strs[id] : "";
}

int dataset_find(const Dataset *ds, const char *s)
{
    return pool_find(ds->pool, s, NULL);
}

int dataset_new(Dataset **out, SimError *err)
{
    *out = NULL;
    Dataset *ds = sim_calloc(1, sizeof *ds);
    if (!ds || !(ds->pool = sim_calloc(1, sizeof *ds->pool)) ||
        pool_rehash(ds->pool, 1024) != 0 || dataset_intern(ds, "") != 0 ||
        !(ds->pindex = sim_calloc(1, sizeof *ds->pindex))) {
        dataset_free(ds);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    ds->rating_from = "";
    *out = ds;
    return SIM_OK;
}

void dataset_free(Dataset *ds)
{
    if (!ds) {
        return;
    }
    if (ds->pool) {
        for (int i = 0; i < ds->pool->n; i++) {
            sim_free(ds->pool->strs[i]);
        }
        sim_free(ds->pool->strs);
        sim_free(ds->pool->slots);
        sim_free(ds->pool);
    }
    if (ds->pindex) {
        keymap_free(ds->pindex);
        sim_free(ds->pindex);
    }
    sim_free(ds->rows);
    sim_free(ds->participants);
    sim_free(ds);
}

/* The phases are common/sim_phase.h's; PHASE_* name the same values. */
_Static_assert((int)PHASE_PRACTICE == (int)SIM_PHASE_PRACTICE &&
                   (int)PHASE_LEARN == (int)SIM_PHASE_LEARN &&
                   (int)PHASE_PRE == (int)SIM_PHASE_PRE &&
                   (int)PHASE_POST == (int)SIM_PHASE_POST &&
                   (int)PHASE_TRAIN == (int)SIM_PHASE_TRAIN &&
                   (int)PHASE_TEST == (int)SIM_PHASE_TEST &&
                   (int)PHASE_QUIZ == (int)SIM_PHASE_QUIZ &&
                   (int)PHASE_COUNT == SIM_PHASE_COUNT,
               "dataset phases are the SimPhase values");

const char *dataset_phase_name(int phase)
{
    const char *name = sim_phase_name((SimPhase)phase);
    return name ? name : "?";
}

/* ------------------------------------------------------------------ */
/* Columns and value parsing shared by both readers                    */

enum {
    COL_PARTICIPANT,
    COL_CONDITION,
    COL_PHASE,
    COL_ITEM,
    COL_CORRECT,
    COL_SESSION,
    COL_TEST_TYPE,
    COL_DOMAIN,
    COL_IS_CATCH,
    COL_RATING,
    COL_RT_MS,
    COL_PILOT,
    COL_SIMULATED,
    COL_EXCLUDED,
    COL_EXCLUSION_REASON,
    COL_COUNT,
    COL_REQUIRED = COL_CORRECT + 1 /* the first five are required */
};

static const char *const col_names[COL_COUNT] = {
    "participant", "condition", "phase",     "item",     "correct",
    "session",     "test_type", "domain",    "is_catch", "rating",
    "rt_ms",       "pilot",     "simulated", "excluded", "exclusion_reason"};

/* Where a value came from, for error messages. */
typedef struct Where {
    const char *source; /* file name */
    const char *unit;   /* "" for a CSV line, "row " for a database row */
    long line;
} Where;

static int bad_value(SimError *err, const Where *w, int col, const char *want,
                     const char *got)
{
    return sim_fail(err, SIM_ERR_PARSE,
                    "%s:%s%ld: column '%s': expected %s, got '%.60s'",
                    w->source, w->unit, w->line, col_names[col], want, got);
}

static int parse_flag(const char *v, int *out)
{
    if (v[0] == '\0' || strcmp(v, "0") == 0 || strcmp(v, "false") == 0 ||
        strcmp(v, "FALSE") == 0) {
        *out = 0;
        return 0;
    }
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 ||
        strcmp(v, "TRUE") == 0) {
        *out = 1;
        return 0;
    }
    return -1;
}

/* Integer in [lo, hi], or 0 for the empty string. */
static int parse_int(const char *v, int lo, int hi, int *out)
{
    if (v[0] == '\0') {
        *out = 0;
        return 0;
    }
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end != '\0' || x < lo || x > hi) {
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* Index of the participant called name (a string id), added when new. */
static int participant_of(Dataset *ds, int name)
{
    int added;
    int p = keymap_get(ds->pindex, (uint64_t)(uint32_t)name, ds->n_participants,
                       &added);
    if (p < 0 || !added) {
        return p;
    }
    if (ds->n_participants == ds->cap_participants) {
        size_t cap = (size_t)ds->cap_participants;
        if (sim_grow((void **)&ds->participants, &cap,
                     (size_t)ds->n_participants + 1,
                     sizeof *ds->participants) != 0) {
            return -1;
        }
        ds->cap_participants = (int)cap;
    }
    Participant *pp = &ds->participants[ds->n_participants++];
    memset(pp, 0, sizeof *pp);
    pp->name = name;
    pp->condition = -1;
    return p;
}

/* Converts one row of text values (vals[col] or NULL when the column is
** absent) into a DatasetResponse and updates the participant table. */
static int add_row(Dataset *ds, const char *const *vals, const Where *w,
                   SimError *err)
{
    static const char *const empty = "";
    const char *v[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++) {
        v[c] = vals[c] ? vals[c] : empty;
    }
    for (int c = 0; c < COL_REQUIRED; c++) {
        if (c != COL_CORRECT && v[c][0] == '\0') {
            return bad_value(err, w, c, "a value", v[c]);
        }
    }
    DatasetResponse r;
    memset(&r, 0, sizeof r);
    SimPhase phase = sim_phase_from_name(v[COL_PHASE]);
    if (phase == SIM_PHASE_NONE) {
        char phases[128];
        sim_phase_list(phases, sizeof phases);
        return bad_value(err, w, COL_PHASE, phases, v[COL_PHASE]);
    }
    r.phase = (int8_t)phase;
    int x;
    if (v[COL_CORRECT][0] == '\0') {
        r.correct = -1;
    } else if (parse_flag(v[COL_CORRECT], &x) == 0) {
        r.correct = (int8_t)x;
    } else {
        return bad_value(err, w, COL_CORRECT, "0, 1 or empty", v[COL_CORRECT]);
    }
    if (parse_int(v[COL_SESSION], 1, 1000000, &r.session) != 0) {
        return bad_value(err, w, COL_SESSION, "a positive integer or empty",
                         v[COL_SESSION]);
    }
    if (parse_flag(v[COL_IS_CATCH], &x) != 0) {
        return bad_value(err, w, COL_IS_CATCH, "0, 1 or empty",
                         v[COL_IS_CATCH]);
    }
    r.is_catch = (int8_t)x;
    if (parse_int(v[COL_RATING], 1, 7, &x) != 0) {
        return bad_value(err, w, COL_RATING, "an integer 1-7 or empty",
                         v[COL_RATING]);
    }
    r.rating = (int8_t)x;
    r.rt_ms = NAN;
    if (v[COL_RT_MS][0] != '\0') {
        char *end;
        double t = strtod(v[COL_RT_MS], &end);
        if (*end != '\0' || !isfinite(t) || t < 0) {
            return bad_value(err, w, COL_RT_MS,
                             "a non-negative number or empty", v[COL_RT_MS]);
        }
        r.rt_ms = t;
    }
    int pilot, simulated, excluded;
    if (parse_flag(v[COL_PILOT], &pilot) != 0) {
        return bad_value(err, w, COL_PILOT, "0, 1 or empty", v[COL_PILOT]);
    }
    if (parse_flag(v[COL_SIMULATED], &simulated) != 0) {
        return bad_value(err, w, COL_SIMULATED, "0, 1 or empty",
                         v[COL_SIMULATED]);
    }
    if (parse_flag(v[COL_EXCLUDED], &excluded) != 0) {
        return bad_value(err, w, COL_EXCLUDED, "0, 1 or empty",
                         v[COL_EXCLUDED]);
    }
    int name = dataset_intern(ds, v[COL_PARTICIPANT]);
    r.condition = dataset_intern(ds, v[COL_CONDITION]);
    r.item = dataset_intern(ds, v[COL_ITEM]);
    r.test_type = dataset_intern(ds, v[COL_TEST_TYPE]);
    r.domain = dataset_intern(ds, v[COL_DOMAIN]);
    int reason = dataset_intern(ds, v[COL_EXCLUSION_REASON]);
    if (name < 0 || r.condition < 0 || r.item < 0 || r.test_type < 0 ||
        r.domain < 0 || reason < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int pi = participant_of(ds, name);
    if (pi < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    Participant *p = &ds->participants[pi];
    if (p->condition < 0) {
        p->condition = r.condition;
        p->n_conditions = 1;
    } else if (p->condition != r.condition) {
        p->n_conditions = 2;
    }
    p->pilot |= pilot;
    p->simulated |= simulated;
    p->excluded |= excluded;
    if (p->reason == 0) {
        p->reason = reason;
    }
    r.participant = pi;
    if (ds->n_rows == ds->cap_rows &&
        sim_grow((void **)&ds->rows, &ds->cap_rows, ds->n_rows + 1,
                 sizeof *ds->rows) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    ds->rows[ds->n_rows++] = r;
    return SIM_OK;
}

/* Maps header names to column slots; unknown names are ignored, and a
** required column that is missing is an error. */
static int map_header(char *const *names, int n, int *col_of_field,
                      const Where *w, SimError *err)
{
    int seen[COL_COUNT] = {0};
    for (int f = 0; f < n; f++) {
        col_of_field[f] = -1;
        for (int c = 0; c < COL_COUNT; c++) {
            if (strcmp(names[f], col_names[c]) == 0) {
                if (seen[c]) {
                    return sim_fail(err, SIM_ERR_PARSE,
                                    "%s:%s%ld: column '%s': appears twice",
                                    w->source, w->unit, w->line, col_names[c]);
                }
                seen[c] = 1;
                col_of_field[f] = c;
            }
        }
    }
    for (int c = 0; c < COL_REQUIRED; c++) {
        if (!seen[c]) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s:%s%ld: column '%s': required column missing",
                            w->source, w->unit, w->line, col_names[c]);
        }
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */

typedef struct CsvState {
    Dataset *ds;
    SimError *err;
    int failed;
    Where where;
    long line;     /* physical line being read */
    int after_cr;  /* the last line ended with CR (an LF now ends no line) */
    long rec_line; /* physical line on which the current record starts */
    int awaiting;  /* between records: the next non-blank line starts one */
    SimBuf text;   /* the current record's fields, each NUL-terminated */
    size_t *offs;  /* where each field starts in text */
    char **fields; /* pointers into text, set when the record ends */
    int n_fields, cap_fields;
    int header_done;
    int *col_of_field;
    int n_header;
} CsvState;

static void csv_on_field(void *s, size_t len, void *data)
{
    CsvState *st = data;
    if (st->failed) {
        return;
    }
    if (st->n_fields == st->cap_fields) {
        size_t cap = (size_t)st->cap_fields, cap2 = cap;
        if (sim_grow((void **)&st->fields, &cap, (size_t)st->n_fields + 1,
                     sizeof *st->fields) != 0 ||
            sim_grow((void **)&st->offs, &cap2, (size_t)st->n_fields + 1,
                     sizeof *st->offs) != 0) {
            st->failed = sim_fail(st->err, SIM_ERR_NOMEM, "out of memory");
            return;
        }
        st->cap_fields = (int)(cap < cap2 ? cap : cap2);
    }
    const char *text = s ? s : "";
    st->offs[st->n_fields++] = st->text.len;
    sim_buf_append(&st->text, text, len);
    sim_buf_append(&st->text, "", 1); /* the terminating NUL */
    if (st->text.oom) {
        st->failed = sim_fail(st->err, SIM_ERR_NOMEM, "out of memory");
    }
}

static void clear_fields(CsvState *st)
{
    st->text.len = 0;
    st->n_fields = 0;
}

static void csv_on_row(int c, void *data)
{
    (void)c;
    CsvState *st = data;
    st->where.line = st->rec_line;
    st->awaiting = 1;
    if (st->failed) {
        clear_fields(st);
        return;
    }
    for (int f = 0; f < st->n_fields; f++) {
        st->fields[f] = st->text.data + st->offs[f];
    }
    if (st->n_fields == 1 && st->fields[0][0] == '\0') {
        clear_fields(st); /* blank line */
        return;
    }
    if (!st->header_done) {
        st->col_of_field = sim_malloc((size_t)st->n_fields * sizeof(int));
        if (!st->col_of_field) {
            st->failed = sim_fail(st->err, SIM_ERR_NOMEM, "out of memory");
        } else {
            st->n_header = st->n_fields;
            st->failed = map_header(st->fields, st->n_fields, st->col_of_field,
                                    &st->where, st->err);
        }
        st->header_done = 1;
        clear_fields(st);
        return;
    }
    if (st->n_fields != st->n_header) {
        st->failed = sim_fail(
            st->err, SIM_ERR_PARSE, "%s:%ld: %d fields, but the header has %d",
            st->where.source, st->where.line, st->n_fields, st->n_header);
        clear_fields(st);
        return;
    }
    const char *vals[COL_COUNT] = {0};
    for (int f = 0; f < st->n_fields; f++) {
        if (st->col_of_field[f] >= 0) {
            vals[st->col_of_field[f]] = st->fields[f];
        }
    }
    st->failed = add_row(st->ds, vals, &st->where, st->err);
    clear_fields(st);
}

/* The JSON sidecar that `simlab export` writes beside a CSV (PATH.json)
** names each excluded participant's reasons, which the CSV's excluded
** column does not carry. Absent sidecar: nothing to do. */
static int read_sidecar(Dataset *ds, const char *csv_path, SimError *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s.json", csv_path) >=
        sizeof path) {
        return SIM_OK;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        return SIM_OK;
    }
    json_error_t jerr;
    json_t *root = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!root) {
        return sim_fail(err, SIM_ERR_PARSE, "%s:%d: %s", path, jerr.line,
                        jerr.text);
    }
    json_t *people = json_object_get(root, "participants");
    size_t i;
    json_t *p;
    json_array_foreach(people, i, p)
    {
        const char *id = json_string_value(json_object_get(p, "id"));
        const char *why =
            json_string_value(json_object_get(p, "exclusion_reason"));
        int name = id ? dataset_find(ds, id) : -1;
        if (name < 0 || !why || !why[0]) {
            continue;
        }
        int k = keymap_find(ds->pindex, (uint64_t)(uint32_t)name);
        if (k >= 0 && ds->participants[k].excluded &&
            ds->participants[k].reason == 0) {
            int r = dataset_intern(ds, why);
            if (r < 0) {
                json_decref(root);
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            ds->participants[k].reason = r;
        }
    }
    json_decref(root);
    return SIM_OK;
}

/* A line that libcsv skips between records: it ignores blanks before a
** record and line ends without one. */
static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') {
            return 0;
        }
    }
    return 1;
}

/* Feeds one chunk to libcsv line by line, noting the physical line on
** which each record starts (quoted fields may span lines, and libcsv
** reports no positions). LF, CRLF and CR each end a line. Returns 0, or -1
** when libcsv stopped. */
static int parse_chunk(struct csv_parser *parser, CsvState *st, const char *buf,
                       size_t len)
{
    while (len > 0 && !st->failed) {
        size_t n = 0;
        while (n < len && buf[n] != '\n' && buf[n] != '\r') {
            n++;
        }
        char end = n < len ? buf[n++] : '\0'; /* '\0': the line goes on */
        if (st->awaiting && !is_blank(buf, n)) {
            st->rec_line = st->line;
            st->awaiting = 0;
        }
        if (csv_parse(parser, buf, n, csv_on_field, csv_on_row, st) != n) {
            return -1;
        }
        st->line += end == '\r' || (end == '\n' && !st->after_cr);
        st->after_cr = end == '\r';
        buf += n;
        len -= n;
    }
    return 0;
}

int dataset_load_csv(Dataset *ds, const char *path, SimError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    }
    struct csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        fclose(f);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    CsvState st;
    memset(&st, 0, sizeof st);
    sim_buf_init(&st.text);
    st.ds = ds;
    st.err = err;
    st.where.source = path;
    st.where.unit = "";
    st.line = st.rec_line = 1;
    st.awaiting = 1;
    char buf[1 << 16];
    size_t got;
    int first = 1;
    while (!st.failed && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        size_t off = 0;
        if (first && got >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
            off = 3; /* UTF-8 byte order mark */
        }
        first = 0;
        if (parse_chunk(&parser, &st, buf + off, got - off) != 0 &&
            !st.failed) {
            st.failed = sim_fail(err, SIM_ERR_PARSE, "%s:%ld: %s", path,
                                 st.awaiting ? st.line : st.rec_line,
                                 csv_strerror(csv_error(&parser)));
        }
    }
    if (!st.failed && ferror(f)) {
        st.failed = sim_fail(err, SIM_ERR_IO, "%s: read error", path);
    }
    if (!st.failed && csv_fini(&parser, csv_on_field, csv_on_row, &st) != 0) {
        st.failed = sim_fail(err, SIM_ERR_PARSE, "%s:%ld: %s", path,
                             st.rec_line, csv_strerror(csv_error(&parser)));
    }
    if (!st.failed && !st.header_done) {
        st.failed = sim_fail(err, SIM_ERR_PARSE, "%s:1: no header row", path);
    }
    sim_buf_free(&st.text);
    sim_free(st.offs);
    sim_free(st.fields);
    sim_free(st.col_of_field);
    csv_free(&parser);
    fclose(f);
    if (!st.failed) {
        ds->n_sources++;
        st.failed = read_sidecar(ds, path, err);
    }
    return st.failed;
}

/* ------------------------------------------------------------------ */
/* SQLite                                                               */

int dataset_load_db(Dataset *ds, const char *path, SimError *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int *col_of_field = NULL;
    char **names = NULL;
    int rc = SIM_OK;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                      db ? sqlite3_errmsg(db) : "cannot open");
        goto cleanup;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, "SELECT * FROM long_format", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: view long_format: %s", path,
                      sqlite3_errmsg(db));
        goto cleanup;
    }
    int n = sqlite3_column_count(st);
    col_of_field = sim_malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    names = sim_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
    if (!col_of_field || !names) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int f = 0; f < n; f++) {
        names[f] = (char *)sqlite3_column_name(st, f);
    }
    Where w = {path, "long_format row ", 0};
    rc = map_header(names, n, col_of_field, &w, err);
    while (rc == SIM_OK) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) {
            break;
        }
        if (step != SQLITE_ROW) {
            rc = sim_fail(err, SIM_ERR_DB, "%s: long_format: %s", path,
                          sqlite3_errmsg(db));
            break;
        }
        w.line++;
        const char *vals[COL_COUNT] = {0};
        char num[COL_COUNT][32];
        for (int f = 0; f < n; f++) {
            int c = col_of_field[f];
            if (c < 0) {
                continue;
            }
            if (sqlite3_column_type(st, f) == SQLITE_FLOAT) {
                /* 1.0 stored as REAL reads as "1" */
                snprintf(num[c], sizeof num[c], "%.17g",
                         sqlite3_column_double(st, f));
                vals[c] = num[c];
            } else {
                const unsigned char *t = sqlite3_column_text(st, f);
                vals[c] = t ? (const char *)t : "";
            }
        }
        rc = add_row(ds, vals, &w, err);
    }
    if (rc == SIM_OK) {
        ds->n_sources++;
    }
cleanup:
    sim_free(col_of_field);
    sim_free(names);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int dataset_add(Dataset *ds, const DatasetRow *row, SimError *err)
{
    char num[6][32];
    const char *vals[COL_COUNT] = {0};
    vals[COL_PARTICIPANT] = row->participant;
    vals[COL_CONDITION] = row->condition;
    vals[COL_PHASE] = row->phase;
    vals[COL_ITEM] = row->item;
    vals[COL_TEST_TYPE] = row->test_type;
    vals[COL_DOMAIN] = row->domain;
    vals[COL_EXCLUSION_REASON] = row->exclusion_reason;
    int ints[6] = {row->correct, row->session,   row->is_catch,
                   row->pilot,   row->simulated, row->excluded};
    int cols[6] = {COL_CORRECT, COL_SESSION,   COL_IS_CATCH,
                   COL_PILOT,   COL_SIMULATED, COL_EXCLUDED};
    for (int i = 0; i < 6; i++) {
        if (ints[i] >= 0 && !(cols[i] == COL_SESSION && ints[i] == 0)) {
            snprintf(num[i], sizeof num[i], "%d", ints[i]);
            vals[cols[i]] = num[i];
        }
    }
    char rating[16], rt[48];
    if (row->rating > 0) {
        snprintf(rating, sizeof rating, "%d", row->rating);
        vals[COL_RATING] = rating;
    }
    if (isfinite(row->rt_ms)) {
        snprintf(rt, sizeof rt, "%.17g", row->rt_ms);
        vals[COL_RT_MS] = rt;
    }
    Where w = {"(memory)", "row ", (long)ds->n_rows + 1};
    return add_row(ds, vals, &w, err);
}
