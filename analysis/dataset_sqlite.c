/*
** Reading simlab databases (SQLite) into a Dataset. Two readers give the
** same rows: the long_format view of any database (the reference: files
** that are not simlab stores, old schema versions, the temporary file of
** a sync server's rows), and, for a simlab store whose view is the
** engine's and whose write-ahead log is empty, the store's own tables read
** straight from the file's pages (analysis/sqlfile.h): the participants
** and items first, then the responses and the steps, joined and ordered
** here as the view would. The second is several times faster; it gives
** way to the first on anything it does not expect. Every error names the
** file, the view's row and the column.
*/
#include "analysis/dataset.h"
#include "analysis/dataset_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/keymap.h"
#include "analysis/sqlfile.h"
#include "common/sim_columns.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"

/* ------------------------------------------------------------------ */
/* SQLite                                                               */

/* The queries of a database may run at most this many virtual-machine
** steps: a base plus DB_STEPS_PER_BYTE per byte of the file; each row read
** is charged DB_STEPS_PER_ROW more. The engine's
** long_format view needs about 0.3 per byte (100 per row), a plain table
** 0.5; a crafted recursive view is stopped within about 0.1 s. */
#define DB_STEPS_BASE     2000000LL
#define DB_STEPS_PER_BYTE 16LL
#define DB_PROGRESS_EVERY 1000
#define DB_STEPS_PER_ROW  100 /* charged for each row read */

/* The first row's first column of sql as text into buf ("" when none). */
static void query_text(sqlite3 *db, const char *sql, char *buf, size_t n)
{
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
}

typedef DbBudget Budget;

static int db_progress(void *data)
{
    Budget *b = data;
    return --b->left < 0;
}

void dataset_db_budget(sqlite3 *db, DbBudget *b)
{
    char text[32];
    query_text(db, "PRAGMA page_count", text, sizeof text);
    long long pages = atoll(text);
    query_text(db, "PRAGMA page_size", text, sizeof text);
    long long page_size = atoll(text);
    b->left = (DB_STEPS_BASE + DB_STEPS_PER_BYTE * pages * page_size) /
              DB_PROGRESS_EVERY;
    sqlite3_progress_handler(db, DB_PROGRESS_EVERY, db_progress, b);
}

int dataset_db_budget_spent(const DbBudget *b)
{
    return b->left < 0;
}

int dataset_db_open(const char *path, sqlite3 **db, DbBudget *b, SimError *err)
{
    *db = NULL;
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                          *db ? sqlite3_errmsg(*db) : "cannot open");
        sqlite3_close(*db);
        *db = NULL;
        return rc;
    }
    dataset_db_budget(*db, b);
    return SIM_OK;
}

static int db_fail(sqlite3 *db, const Budget *b, const char *path,
                   const char *what, SimError *err)
{
    if (b->left < 0) {
        return sim_fail(err, SIM_ERR_DB,
                        "%s: the database's %s took too long (is it "
                        "simlab's?)",
                        path, what);
    }
    return sim_fail(err, SIM_ERR_DB, "%s: %s: %s", path, what,
                    sqlite3_errmsg(db));
}

/* The study definitions in the database's study table: rating scales and
** table (none when it has no such table). */
static int db_studies(Dataset *ds, sqlite3 *db, const char *path, Budget *b,
                      SimError *err)
{
    sqlite3_stmt *st = NULL;
    /* the bundle hash when the table has one (every engine store does) */
    if (sqlite3_prepare_v2(db, "SELECT study_id, definition, hash FROM study",
                           -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT study_id, definition, NULL FROM study",
                           -1, &st, NULL) != SQLITE_OK) {
        return SIM_OK; /* not an engine database: the data say the scale */
    }
    int rc = SIM_OK, step;
    while (rc == SIM_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        char who[4200];
        snprintf(who, sizeof who, "%s (study '%s')", path, id ? id : "?");
        json_t *def = text ? json_loads(text, 0, NULL) : NULL;
        if (!json_is_object(def)) {
            rc = sim_fail(err, SIM_ERR_PARSE,
                          "%s: the study definition is not a JSON object", who);
        } else {
            rc = dataset_state_study(ds, def,
                                     (const char *)sqlite3_column_text(st, 2),
                                     "study", who, err);
        }
        json_decref(def);
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = db_fail(db, b, path, "study table", err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Writes x as decimal into buf (at least 24 bytes); returns the length. */
static size_t fmt_int(long long x, char *buf)
{
    char t[24];
    size_t n = 0;
    unsigned long long u =
        x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t k = 0;
    if (x < 0) {
        buf[k++] = '-';
    }
    while (n) {
        buf[k++] = t[--n];
    }
    return k;
}

/* The reader of the rows of a database's long_format view. */
typedef struct DbRows {
    Dataset *ds;
    SimError *err;
    Where *w;
    int cols[COL_COUNT]; /* the column of each argument */
    int n_sel;
    int utf8; /* text is stored as UTF-8: its bytes are read in place */
    int rc;   /* SIM_OK until a row fails */
    Budget *budget;
    int rows; /* rows since the budget was last charged */
} DbRows;

/* simlab_long_row(...): converts one row's values and adds it. A failure
** stops the statement (the error is in dr->err). */
static void db_row(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    DbRows *dr = sqlite3_user_data(ctx);
    Where *w = dr->w;
    w->line++;
    /* a row read costs DB_STEPS_PER_ROW steps of the budget: the work
    ** here is not the virtual machine's */
    if (++dr->rows * DB_STEPS_PER_ROW >= DB_PROGRESS_EVERY) {
        dr->rows = 0;
        if (--dr->budget->left < 0) {
            sqlite3_result_error(ctx, "simlab: out of steps", -1);
            return;
        }
    }
    Val v[COL_COUNT];
    char num[COL_COUNT][32];
    for (int c = 0; c < COL_COUNT; c++) {
        v[c].p = "";
        v[c].n = 0;
    }
    int rc = SIM_OK;
    for (int k = 0; k < argc && k < dr->n_sel; k++) {
        int c = dr->cols[k];
        sqlite3_value *x = argv[k];
        switch (sqlite3_value_type(x)) {
        case SQLITE_NULL:
            break;
        case SQLITE_INTEGER: {
            sqlite3_int64 i = sqlite3_value_int64(x);
            if (i >= 0 && i <= 9) { /* flags: no formatting */
                v[c].p = &"0123456789"[i];
                v[c].n = 1;
            } else {
                v[c].n = fmt_int(i, num[c]);
                v[c].p = num[c];
            }
            break;
        }
        case SQLITE_FLOAT: {
            /* 1.0 stored as REAL reads as "1" */
            int len = snprintf(num[c], sizeof num[c], "%.17g",
                               sqlite3_value_double(x));
            v[c].p = num[c];
            v[c].n = (size_t)len;
            break;
        }
        default: {
            /* the bytes as stored: sqlite3_value_text() would copy each
            ** value to terminate it */
            const char *t = dr->utf8 ? (const char *)sqlite3_value_blob(x)
                                     : (const char *)sqlite3_value_text(x);
            v[c].n = (size_t)sqlite3_value_bytes(x);
            v[c].p = t ? t : "";
            if (t && memchr(t, '\0', v[c].n)) {
                rc = sim_fail(dr->err, SIM_ERR_PARSE,
                              "%s:%s%ld: column '%s': a NUL byte in the "
                              "value",
                              w->source, w->unit, w->line, dataset_col_name(c));
            }
        }
        }
    }
    if (rc == SIM_OK) {
        rc = dataset_add_vals(dr->ds, v, w, dr->err);
    }
    if (rc != SIM_OK) {
        dr->rc = rc;
        sqlite3_result_error(ctx, "simlab: a row was refused", -1);
        return;
    }
    sqlite3_result_null(ctx);
}

/* ------------------------------------------------------------------ */
/* The long_format view                                                 */

/* Appends the rows of the view of the open database db. */
static int load_view(Dataset *ds, sqlite3 *db, const char *path, int utf8,
                     Budget *budget, SimError *err)
{
    sqlite3_stmt *st = NULL;
    SimBuf sql;
    sim_buf_init(&sql);
    Val *names = NULL;
    int *col_of_field = NULL;
    int rc = SIM_OK;
    /* The view's columns by name; then only the known ones are selected. */
    if (sqlite3_prepare_v2(db, "SELECT * FROM long_format", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = db_fail(db, budget, path, "view long_format", err);
        goto cleanup;
    }
    int n = sqlite3_column_count(st);
    names = sim_calloc((size_t)n + 1, sizeof *names);
    col_of_field = sim_calloc((size_t)n + 1, sizeof *col_of_field);
    if (!names || !col_of_field) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int f = 0; f < n; f++) {
        names[f].p = sqlite3_column_name(st, f);
        names[f].n = names[f].p ? strlen(names[f].p) : 0;
        if (!names[f].p) {
            names[f].p = "";
        }
    }
    Where w = {path, "long_format row ", 0};
    rc = dataset_map_header(names, n, col_of_field, &w, err);
    sqlite3_finalize(st);
    st = NULL;
    if (rc != SIM_OK) {
        goto cleanup;
    }
    /* One statement hands every row's known columns to db_row() as
    ** arguments of a function only our own query may call: no result
    ** values are fetched. */
    DbRows dr = {ds, err, &w, {0}, 0, utf8, SIM_OK, budget, 0};
    sim_buf_puts(&sql, "SELECT simlab_long_row(");
    for (int f = 0; f < n; f++) {
        if (col_of_field[f] >= 0) {
            sim_buf_printf(&sql, "%s\"%s\"", dr.n_sel ? ", " : "",
                           dataset_col_name(col_of_field[f]));
            dr.cols[dr.n_sel++] = col_of_field[f];
        }
    }
    sim_buf_puts(&sql, ") FROM long_format");
    if (sql.oom) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if (sqlite3_create_function(db, "simlab_long_row", dr.n_sel,
                                SQLITE_UTF8 | SQLITE_DIRECTONLY, &dr, db_row,
                                NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        rc = db_fail(db, budget, path, "view long_format", err);
        goto cleanup;
    }
    for (;;) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) {
            break;
        }
        if (step != SQLITE_ROW) {
            rc = dr.rc != SIM_OK
                     ? dr.rc
                     : db_fail(db, budget, path, "long_format view", err);
            break;
        }
    }
cleanup:
    sim_free(names);
    sim_free(col_of_field);
    sim_buf_free(&sql);
    sqlite3_finalize(st);
    return rc;
}

/* ------------------------------------------------------------------ */
/* A simlab store's tables                                              */

#define NUL32 INT32_MIN /* a NULL in a 32-bit field */

/* The texts of one store: participant ids, conditions, phases, items, test
** types, domains, exclusion reasons. An entry keeps its index and its text
** never moves; the array of entries grows (a DbStr pointer into it lasts
** until the next dict_get). */
typedef struct Dict {
    DbStr *e;
    int n, cap;
    int *slots; /* hash slot -> entry, -1 empty */
    size_t n_slots;
} Dict;

static int dict_rehash(Dict *d, size_t n_slots)
{
    int *slots = sim_malloc(n_slots * sizeof *slots);
    if (!slots) {
        return -1;
    }
    for (size_t i = 0; i < n_slots; i++) {
        slots[i] = -1;
    }
    for (int k = 0; k < d->n; k++) {
        size_t h =
            (size_t)dataset_hash_bytes(d->e[k].p, d->e[k].n) & (n_slots - 1);
        while (slots[h] >= 0) {
            h = (h + 1) & (n_slots - 1);
        }
        slots[h] = k;
    }
    sim_free(d->slots);
    d->slots = slots;
    d->n_slots = n_slots;
    return 0;
}

/* The entry of p[0..n) (no NUL byte), added when new; -1 when out of
** memory. */
static int dict_get(Dict *d, const char *p, size_t n)
{
    if ((size_t)(d->n + 1) * 2 > d->n_slots &&
        dict_rehash(d, d->n_slots ? 2 * d->n_slots : 256) != 0) {
        return -1;
    }
    size_t h = (size_t)dataset_hash_bytes(p, n) & (d->n_slots - 1);
    int k;
    while ((k = d->slots[h]) >= 0) {
        if (d->e[k].n == n && memcmp(d->e[k].p, p, n) == 0) {
            return k;
        }
        h = (h + 1) & (d->n_slots - 1);
    }
    size_t cap = (size_t)d->cap;
    char *copy = sim_malloc(n + 1);
    if (!copy ||
        (d->n == d->cap &&
         sim_grow((void **)&d->e, &cap, (size_t)d->n + 1, sizeof *d->e) != 0)) {
        sim_free(copy);
        return -1;
    }
    d->cap = (int)cap;
    memcpy(copy, p, n);
    copy[n] = '\0';
    d->e[d->n] = (DbStr){copy, n, -1, -2};
    d->slots[h] = d->n;
    return d->n++;
}

static void dict_free(Dict *d)
{
    for (int k = 0; k < d->n; k++) {
        sim_free((void *)d->e[k].p);
    }
    sim_free(d->e);
    sim_free(d->slots);
}

/* A participant row, in the view's order (created_ms, id). */
typedef struct Person {
    int name, cond, reason;             /* Dict entries; -1: NULL */
    int32_t pilot, simulated, excluded; /* NUL32: NULL */
    int study;                          /* index of its study value */
} Person;

/* A done response. */
typedef struct Resp {
    int32_t person, seq;
    double rt_ms; /* NaN: NULL */
    int32_t correct, rating, timed_out, confidence;
} Resp;

/* A step with a phase, joined with its participant and response. */
typedef struct Step {
    int32_t person, seq;
    int32_t phase, item, test_type, cond, domain; /* Dict entries, -1 NULL */
    int32_t session, is_catch, resp;
    int32_t keep_correct;  /* the step is scored: correct_choice >= 0 and
                              not an example */
    int32_t n_options;     /* the view's n_options: the '|'-separated
                              entries of trial.options; NUL32: NULL */
    int32_t model_correct; /* the view's model_correct of its item: 0/1,
                              -1 NULL */
} Step;

/* A column of a table: its position in the record and its default (for
** rows written before an ALTER TABLE added it). */
typedef struct Column {
    const char *name;
    int pos;
    SqlFileValue dflt;
} Column;

enum {
    T_PARTICIPANT,
    T_SEQ,
    T_BLOCK_ID,
    T_PHASE,
    T_SESSION,
    T_ITEM,
    T_PAGE,
    T_IS_CATCH,
    T_IS_EXAMPLE,
    T_CORRECT_CHOICE,
    T_TEST_TYPE,
    T_CONDITION,
    T_OPTIONS,
    T_COUNT
};
enum {
    R_PARTICIPANT,
    R_SEQ,
    R_CORRECT,
    R_RATING,
    R_DONE,
    R_RT_MS,
    R_TIMED_OUT,
    R_CONFIDENCE,
    R_COUNT
};

typedef struct Tables {
    Dict dict;
    Person *people;
    int n_people;
    KeyMap person_of; /* Dict entry of an id -> person */
    KeyMap study_of;  /* study value -> index */
    KeyMap domain_of; /* (study index, item entry) -> (domain entry + 1)
                      ** * 4 + the item's model_correct + 1 (0: NULL) */
    Resp *resps;      /* by (person, seq) once read */
    size_t n_resps, cap_resps;
    size_t *first;      /* person -> its first response; [n_people]: end */
    size_t hint;        /* the response after the last one joined */
    int resps_sorted;   /* responses arrive by (person, seq) */
    int cache[T_COUNT]; /* per column: the Dict entry of its last text */
    int items[256];     /* item texts by their last 8 bytes, -1 empty */
    Step *steps;
    size_t n_steps, cap_steps;
    int sorted;    /* steps arrive in the view's order */
    int last_name; /* Dict entry of the last participant id read */
    int last_person;
    const char *why; /* why the tables cannot be read (NULL: they can) */
    int io;          /* out of memory */
    Budget *budget;
    long rows; /* rows read since the budget was charged */
    Column tcol[T_COUNT], rcol[R_COUNT];
    int tpos[T_COUNT], rpos[R_COUNT];   /* record positions, ascending */
    int tslot[T_COUNT], rslot[R_COUNT]; /* column -> value index */
} Tables;

/* t->why when the step budget is spent: the read ends with an error
** (tables_too_long) instead of giving way to the view. */
static const char BUDGET_SPENT[] = "the step budget is spent";

static int tables_too_long(const char *path, SimError *err)
{
    return sim_fail(err, SIM_ERR_DB,
                    "%s: the database's tables took too long (is it "
                    "simlab's?)",
                    path);
}

/* Charges one row read to the budget; 1 (t->why: BUDGET_SPENT) when it is
** spent. */
static int charge_row(Tables *t)
{
    if (++t->rows * DB_STEPS_PER_ROW >= DB_PROGRESS_EVERY) {
        t->rows = 0;
        if (--t->budget->left < 0) {
            t->why = BUDGET_SPENT;
            return 1;
        }
    }
    return 0;
}

/* The value v of a column, its default when the record ends before it. */
static const SqlFileValue *value_of(const SqlFileValue *v, const Column *c)
{
    return v->type == SQLFILE_ABSENT ? &c->dflt : v;
}

/* An INTEGER column's value as 32 bits (NUL32: NULL); 0 when it is not
** one (another type, out of range: the view reads such files). */
static int int32_of(Tables *t, const SqlFileValue *v, int32_t *out)
{
    if (v->type == SQLFILE_NULL) {
        *out = NUL32;
        return 1;
    }
    if (v->type == SQLFILE_INT && v->i > INT32_MIN && v->i <= INT32_MAX) {
        *out = (int32_t)v->i;
        return 1;
    }
    t->why = "a value of an unexpected type or size";
    return 0;
}

/* A TEXT column's value as a Dict entry (-1: NULL); 0 when it is not one
** (another type, a NUL byte in it, out of memory). */
static int text_of(Tables *t, const SqlFileValue *v, int *out)
{
    if (v->type == SQLFILE_NULL) {
        *out = -1;
        return 1;
    }
    if (v->type != SQLFILE_TEXT || memchr(v->p, '\0', v->n)) {
        t->why = "a text value of an unexpected type";
        return 0;
    }
    *out = dict_get(&t->dict, v->p, v->n);
    if (*out < 0) {
        t->io = 1;
        t->why = "out of memory";
        return 0;
    }
    return 1;
}

/* text_of() for a column whose values repeat from row to row: the last
** one's entry is kept in *cache. */
static int text_cached(Tables *t, const SqlFileValue *v, int *out, int *cache)
{
    if (v->type == SQLFILE_TEXT && *cache >= 0) {
        const DbStr *e = &t->dict.e[*cache];
        if (e->n == v->n && memcmp(e->p, v->p, v->n) == 0) {
            *out = *cache;
            return 1;
        }
    }
    if (!text_of(t, v, out)) {
        return 0;
    }
    *cache = *out;
    return 1;
}

/* text_of() for the item column: a small cache by the last bytes of the
** text (where item keys differ) before the Dict. */
static int item_of(Tables *t, const SqlFileValue *v, int *out)
{
    if (v->type != SQLFILE_TEXT) {
        return text_of(t, v, out);
    }
    uint64_t w = 0;
    size_t n = v->n < 8 ? v->n : 8;
    memcpy(&w, v->p + v->n - n, n);
    int *slot = &t->items[((w ^ v->n) * 0x9e3779b97f4a7c15ULL) >> 56];
    if (*slot >= 0) {
        const DbStr *e = &t->dict.e[*slot];
        if (e->n == v->n && memcmp(e->p, v->p, v->n) == 0) {
            *out = *slot;
            return 1;
        }
    }
    if (!text_of(t, v, out)) {
        return 0;
    }
    *slot = *out;
    return 1;
}

/* The person whose id is the value v; -1 when there is none (the row
** joins nothing), -2 when v is not a text. */
static int person_of(Tables *t, const SqlFileValue *v)
{
    int name;
    if (v->type != SQLFILE_TEXT) {
        if (v->type == SQLFILE_NULL) {
            return -1;
        }
        t->why = "a participant id of an unexpected type";
        return -2;
    }
    const DbStr *last = t->last_name >= 0 ? &t->dict.e[t->last_name] : NULL;
    if (last && last->n == v->n && memcmp(last->p, v->p, v->n) == 0) {
        return t->last_person;
    }
    if (!text_of(t, v, &name)) {
        return -2;
    }
    t->last_name = name;
    t->last_person = keymap_find(&t->person_of, (uint64_t)name);
    return t->last_person;
}

/* Reads a response row into *r: 1 when it joins a step of the view, 0
** when not, -1 when the tables cannot be read so (t->why). */
static int read_resp(Tables *t, const SqlFileValue *vals, Resp *r)
{
    const SqlFileValue *v[R_COUNT];
    for (int c = 0; c < R_COUNT; c++) {
        v[c] = value_of(&vals[t->rslot[c]], &t->rcol[c]);
    }
    if (charge_row(t)) {
        return -1;
    }
    int32_t done;
    int p = person_of(t, v[R_PARTICIPANT]);
    if (p == -2 || !int32_of(t, v[R_SEQ], &r->seq) ||
        !int32_of(t, v[R_DONE], &done) ||
        !int32_of(t, v[R_CORRECT], &r->correct) ||
        !int32_of(t, v[R_RATING], &r->rating) ||
        !int32_of(t, v[R_TIMED_OUT], &r->timed_out) ||
        !int32_of(t, v[R_CONFIDENCE], &r->confidence)) {
        return -1;
    }
    const SqlFileValue *rt = v[R_RT_MS];
    if (rt->type == SQLFILE_REAL) {
        r->rt_ms = rt->d;
    } else if (rt->type == SQLFILE_INT) { /* REAL affinity: read as REAL */
        r->rt_ms = (double)rt->i;
    } else if (rt->type == SQLFILE_NULL) {
        r->rt_ms = NAN;
    } else {
        t->why = "a response time of an unexpected type";
        return -1;
    }
    r->person = p;
    return p >= 0 && r->seq != NUL32 && done == 1;
}

/* Keeps a response that joins a step. */
static int resp_row(void *ctx, const SqlFileValue *vals)
{
    Tables *t = ctx;
    Resp r;
    int k = read_resp(t, vals, &r);
    if (k <= 0) {
        return k < 0;
    }
    int p = r.person;
    int32_t seq = r.seq;
    if (t->n_resps == t->cap_resps &&
        sim_grow((void **)&t->resps, &t->cap_resps, t->n_resps + 1,
                 sizeof *t->resps) != 0) {
        t->io = 1;
        t->why = "out of memory";
        return 1;
    }
    if (t->n_resps > 0) {
        const Resp *prev = &t->resps[t->n_resps - 1];
        if (p < prev->person || (p == prev->person && seq <= prev->seq)) {
            t->resps_sorted = 0;
        }
    }
    t->resps[t->n_resps++] = r;
    return 0;
}

static int resp_cmp(const void *a, const void *b)
{
    const Resp *x = a, *y = b;
    if (x->person != y->person) {
        return x->person < y->person ? -1 : 1;
    }
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Orders the responses by (person, seq) and indexes each person's first;
** 0 when two answer one step. */
static int index_resps(Tables *t)
{
    if (!t->resps_sorted) {
        qsort(t->resps, t->n_resps, sizeof *t->resps, resp_cmp);
    }
    t->first = sim_malloc(((size_t)t->n_people + 1) * sizeof *t->first);
    if (!t->first) {
        t->io = 1;
        t->why = "out of memory";
        return 0;
    }
    size_t k = 0;
    for (int p = 0; p <= t->n_people; p++) {
        while (k < t->n_resps && t->resps[k].person < p) {
            if (k > 0 && t->resps[k - 1].person == t->resps[k].person &&
                t->resps[k - 1].seq == t->resps[k].seq) {
                t->why = "two responses to one step";
                return 0;
            }
            k++;
        }
        t->first[p] = k;
    }
    return 1;
}

/* The response of person's step seq; -1 when none. */
static int32_t find_resp(Tables *t, int32_t person, int32_t seq)
{
    size_t lo = t->first[person], hi = t->first[person + 1];
    size_t h = t->hint;
    if (h >= lo && h < hi && t->resps[h].seq == seq) {
        t->hint = h + 1;
        return (int32_t)h;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->resps[mid].seq < seq) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < t->first[person + 1] && t->resps[lo].seq == seq) {
        t->hint = lo + 1;
        return (int32_t)lo;
    }
    return -1;
}

/* The view's n_options of a trial.options value v: the number of its
** '|'-separated entries (NUL32: NULL); 0 when v is not a text the view
** counts so. */
static int options_of(Tables *t, const SqlFileValue *v, int32_t *out)
{
    if (v->type == SQLFILE_NULL) {
        *out = NUL32;
        return 1;
    }
    if (v->type != SQLFILE_TEXT || memchr(v->p, '\0', v->n) ||
        v->n >= INT32_MAX) {
        t->why = "a text value of an unexpected type";
        return 0;
    }
    int32_t n = 1;
    for (size_t i = 0; i < v->n; i++) {
        n += v->p[i] == '|';
    }
    *out = n;
    return 1;
}

/* Reads a step row into *s (all but its response): 1 when it is a step of
** the view (if answered), 0 when not, -1 when the tables cannot be read so
** (t->why). */
static int read_step(Tables *t, const SqlFileValue *vals, Step *s)
{
    const SqlFileValue *v[T_COUNT];
    for (int c = 0; c < T_COUNT; c++) {
        v[c] = value_of(&vals[t->tslot[c]], &t->tcol[c]);
    }
    if (charge_row(t)) {
        return -1;
    }
    int32_t page, is_example, correct_choice;
    int block;
    s->person = person_of(t, v[T_PARTICIPANT]);
    if (s->person == -2 || !int32_of(t, v[T_SEQ], &s->seq) ||
        !text_cached(t, v[T_PHASE], &s->phase, &t->cache[T_PHASE]) ||
        !int32_of(t, v[T_SESSION], &s->session) ||
        !item_of(t, v[T_ITEM], &s->item) ||
        !text_cached(t, v[T_BLOCK_ID], &block, &t->cache[T_BLOCK_ID]) ||
        !int32_of(t, v[T_PAGE], &page) ||
        !int32_of(t, v[T_IS_CATCH], &s->is_catch) ||
        !int32_of(t, v[T_IS_EXAMPLE], &is_example) ||
        !int32_of(t, v[T_CORRECT_CHOICE], &correct_choice) ||
        !text_cached(t, v[T_TEST_TYPE], &s->test_type,
                     &t->cache[T_TEST_TYPE]) ||
        !text_cached(t, v[T_CONDITION], &s->cond, &t->cache[T_CONDITION]) ||
        !options_of(t, v[T_OPTIONS], &s->n_options)) {
        return -1;
    }
    if (s->phase < 0 || s->person < 0 || s->seq == NUL32) {
        return 0; /* no phase, or no participant: not in the view */
    }
    /* LEFT JOIN item ON i.study = p.study AND i.key = t.item */
    s->domain = -1;
    s->model_correct = -1;
    if (s->item >= 0 && t->people[s->person].study >= 0) {
        uint64_t k = (uint64_t)(uint32_t)t->people[s->person].study << 32 |
                     (uint32_t)s->item;
        int joined = keymap_find(&t->domain_of, k);
        if (joined >= 0) {
            s->domain = joined / 4 - 1;
            s->model_correct = joined % 4 - 1;
        }
    } else if (s->item < 0 && block >= 0 && page != NUL32) {
        /* COALESCE(t.item, t.block_id || ':' || (t.page + 1)) */
        const DbStr *b = &t->dict.e[block];
        char *text = sim_malloc(b->n + 24);
        if (!text) {
            t->io = 1;
            t->why = "out of memory";
            return -1;
        }
        int n = snprintf(text, b->n + 24, "%s:%lld", b->p, (long long)page + 1);
        s->item = dict_get(&t->dict, text, (size_t)n);
        sim_free(text);
        if (s->item < 0) {
            t->io = 1;
            t->why = "out of memory";
            return -1;
        }
    }
    s->keep_correct =
        correct_choice != NUL32 && correct_choice >= 0 && is_example == 0;
    return 1;
}

/* Keeps an answered step. */
static int step_row(void *ctx, const SqlFileValue *vals)
{
    Tables *t = ctx;
    Step s;
    int k = read_step(t, vals, &s);
    if (k <= 0) {
        return k < 0;
    }
    s.resp = find_resp(t, s.person, s.seq);
    if (s.resp < 0) {
        return 0; /* not answered (yet) */
    }
    if (t->n_steps > 0) {
        const Step *prev = &t->steps[t->n_steps - 1];
        if (s.person < prev->person ||
            (s.person == prev->person && s.seq < prev->seq)) {
            t->sorted = 0;
        }
    }
    if (t->n_steps == t->cap_steps &&
        sim_grow((void **)&t->steps, &t->cap_steps, t->n_steps + 1,
                 sizeof *t->steps) != 0) {
        t->io = 1;
        t->why = "out of memory";
        return 1;
    }
    t->steps[t->n_steps++] = s;
    return 0;
}

static int step_cmp(const void *a, const void *b)
{
    const Step *x = a, *y = b;
    if (x->person != y->person) {
        return x->person < y->person ? -1 : 1;
    }
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Reads the bytes of the database file through SQLite's own handle (no
** second descriptor: closing one would drop the connection's locks). */
static int file_read(void *ctx, void *buf, size_t n, int64_t off)
{
    sqlite3_file *f = ctx;
    return f->pMethods->xRead(f, buf, (int)n, off) == SQLITE_OK ? 0 : -1;
}

/* The page at off in SQLite's own memory map of the file (PRAGMA
** mmap_size), or NULL. */
static const uint8_t *file_map(void *ctx, int64_t off, size_t n)
{
    sqlite3_file *f = ctx;
    void *p = NULL;
    if (f->pMethods->iVersion < 3 || !f->pMethods->xFetch ||
        f->pMethods->xFetch(f, off, (int)n, &p) != SQLITE_OK) {
        return NULL;
    }
    return p;
}

static void file_unmap(void *ctx, int64_t off, const void *p)
{
    sqlite3_file *f = ctx;
    f->pMethods->xUnfetch(f, off, (void *)(uintptr_t)p);
}

/* The record positions and defaults of table's columns cols[0..n) (by
** name), and its root page; 0 when the table is not as expected. */
static int table_columns(sqlite3 *db, const char *table, Column *cols, int n,
                         uint32_t *root)
{
    char sql[160], text[64];
    snprintf(sql, sizeof sql,
             "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND "
             "name = '%s' AND sql NOT LIKE '%%WITHOUT ROWID%%'",
             table);
    query_text(db, sql, text, sizeof text);
    long long r = atoll(text);
    if (r < 1 || r > 0x7fffffff) {
        return 0;
    }
    *root = (uint32_t)r;
    for (int c = 0; c < n; c++) {
        cols[c].pos = -1;
    }
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "PRAGMA table_xinfo(%s)", table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        return 0;
    }
    int ok = 1, pos = 0;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *dflt = (const char *)sqlite3_column_text(st, 4);
        /* a hidden or generated column would not be where its cid says */
        ok = sqlite3_column_int(st, 6) == 0;
        for (int c = 0; ok && name && c < n; c++) {
            if (strcmp(name, cols[c].name) != 0) {
                continue;
            }
            cols[c].pos = pos;
            memset(&cols[c].dflt, 0, sizeof cols[c].dflt);
            cols[c].dflt.type = SQLFILE_NULL;
            char *end;
            if (dflt && strcmp(dflt, "NULL") != 0) {
                long long x = strtoll(dflt, &end, 10);
                ok = *dflt != '\0' && *end == '\0';
                cols[c].dflt.type = SQLFILE_INT;
                cols[c].dflt.i = x;
            }
        }
        pos++;
    }
    sqlite3_finalize(st);
    for (int c = 0; c < n; c++) {
        ok &= cols[c].pos >= 0;
    }
    return ok;
}

/* Orders the columns by record position: pos[k] ascending, slot[c] the
** index of column c. */
static void order_columns(const Column *cols, int n, int *pos, int *slot)
{
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int d = 0; d < n; d++) {
            k += cols[d].pos < cols[c].pos;
        }
        pos[k] = cols[c].pos;
        slot[c] = k;
    }
}

/* The participants in the view's order, and the items' domains. */
static int read_people(Tables *t, sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(
                 db,
                 "SELECT id, condition, pilot, simulated, excluded, "
                 "COALESCE(exclusion_reason, ''), study FROM participant "
                 "ORDER BY created_ms, id",
                 -1, &st, NULL) == SQLITE_OK;
    int cap = 0, step = SQLITE_DONE;
    while (ok && (step = sqlite3_step(st)) == SQLITE_ROW) {
        SqlFileValue v[7];
        for (int c = 0; c < 7; c++) {
            memset(&v[c], 0, sizeof v[c]);
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL:
                v[c].type = SQLFILE_NULL;
                break;
            case SQLITE_INTEGER:
                v[c].type = SQLFILE_INT;
                v[c].i = sqlite3_column_int64(st, c);
                break;
            case SQLITE_TEXT:
                v[c].type = SQLFILE_TEXT;
                v[c].p = (const char *)sqlite3_column_text(st, c);
                v[c].n = (size_t)sqlite3_column_bytes(st, c);
                break;
            default:
                v[c].type = SQLFILE_BLOB; /* REAL or BLOB: not expected */
            }
        }
        Person p;
        int32_t study;
        ok = text_of(t, &v[0], &p.name) && text_of(t, &v[1], &p.cond) &&
             int32_of(t, &v[2], &p.pilot) && int32_of(t, &v[3], &p.simulated) &&
             int32_of(t, &v[4], &p.excluded) && text_of(t, &v[5], &p.reason) &&
             int32_of(t, &v[6], &study);
        if (!ok || p.name < 0) {
            continue; /* a NULL id joins nothing */
        }
        int added;
        p.study = study == NUL32
                      ? -1 /* joins no item */
                      : keymap_get(&t->study_of, (uint64_t)(uint32_t)study,
                                   (int)t->study_of.n, &added);
        int k =
            keymap_get(&t->person_of, (uint64_t)p.name, t->n_people, &added);
        size_t c = (size_t)cap;
        if ((p.study < 0 && study != NUL32) || k < 0 ||
            (t->n_people == cap &&
             sim_grow((void **)&t->people, &c, (size_t)t->n_people + 1,
                      sizeof *t->people) != 0)) {
            t->io = 1;
            t->why = "out of memory";
            ok = 0;
            break;
        }
        cap = (int)c;
        if (!added) {
            t->why = "two participants with one id";
            ok = 0;
            break;
        }
        t->people[t->n_people++] = p;
    }
    ok = ok && step == SQLITE_DONE;
    sqlite3_finalize(st);
    st = NULL;
    /* the items' domains and model_correct (as the view computes it) by
    ** (study, key) */
    ok =
        ok && sqlite3_prepare_v2(
                  db,
                  "SELECT study, key, domain, CASE WHEN label IS NULL OR "
                  "prediction IS NULL THEN NULL WHEN prediction = label THEN 1 "
                  "ELSE 0 END FROM item",
                  -1, &st, NULL) == SQLITE_OK;
    while (ok && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 1) != SQLITE_TEXT ||
            (sqlite3_column_type(st, 2) != SQLITE_TEXT &&
             sqlite3_column_type(st, 2) != SQLITE_NULL)) {
            t->why = "an item of an unexpected type";
            ok = 0;
            break;
        }
        int s = keymap_find(&t->study_of,
                            (uint64_t)(uint32_t)sqlite3_column_int(st, 0));
        if (sqlite3_column_int64(st, 0) != sqlite3_column_int(st, 0)) {
            s = -1; /* no participant's study: joins nothing */
        }
        SqlFileValue key = {SQLFILE_TEXT, 0, 0, NULL, 0};
        SqlFileValue dom = key;
        key.p = (const char *)sqlite3_column_text(st, 1);
        key.n = (size_t)sqlite3_column_bytes(st, 1);
        dom.type = sqlite3_column_type(st, 2) == SQLITE_NULL ? SQLFILE_NULL
                                                             : SQLFILE_TEXT;
        dom.p = (const char *)sqlite3_column_text(st, 2);
        dom.n = (size_t)sqlite3_column_bytes(st, 2);
        int k, d, added;
        int mc = sqlite3_column_type(st, 3) == SQLITE_NULL
                     ? -1
                     : sqlite3_column_int(st, 3);
        ok = text_of(t, &key, &k) && text_of(t, &dom, &d);
        if (ok && s >= 0 &&
            keymap_get(&t->domain_of, (uint64_t)(uint32_t)s << 32 | (uint32_t)k,
                       (d + 1) * 4 + mc + 1, &added) < 0) {
            t->io = 1;
            t->why = "out of memory";
            ok = 0;
        }
    }
    ok = ok && step == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!ok && !t->why) {
        t->why = "the participant or item table";
    }
    return ok;
}

/* The order of the view: (person, seq). */
static int before(int32_t p, int32_t seq, int32_t q, int32_t seq2)
{
    return p < q || (p == q && seq < seq2);
}

/* The view's row of step s and response r (participant p). */
static void view_row(const Tables *t, const Step *s, const Person *p,
                     const Resp *r, DbVals *x)
{
    DbStr *e = t->dict.e;
    int cond = s->cond >= 0 ? s->cond : p->cond;
    x->str[COL_PARTICIPANT] = &e[p->name];
    x->str[COL_CONDITION] = cond >= 0 ? &e[cond] : NULL;
    x->str[COL_PHASE] = &e[s->phase];
    x->str[COL_ITEM] = s->item >= 0 ? &e[s->item] : NULL;
    x->str[COL_TEST_TYPE] = s->test_type >= 0 ? &e[s->test_type] : NULL;
    x->str[COL_DOMAIN] = s->domain >= 0 ? &e[s->domain] : NULL;
    x->str[COL_EXCLUSION_REASON] = p->reason >= 0 ? &e[p->reason] : NULL;
#define NUM(v) ((v) == NUL32 ? DB_NULL : (int64_t)(v))
    x->num[COL_CORRECT] = s->keep_correct ? NUM(r->correct) : DB_NULL;
    x->num[COL_SESSION] =
        s->session != NUL32 && s->session > 0 ? s->session : DB_NULL;
    x->num[COL_IS_CATCH] = NUM(s->is_catch);
    x->num[COL_RATING] =
        r->rating != NUL32 && r->rating > 0 ? r->rating : DB_NULL;
    x->num[COL_PILOT] = NUM(p->pilot);
    x->num[COL_SIMULATED] = NUM(p->simulated);
    x->num[COL_EXCLUDED] = NUM(p->excluded);
    x->num[COL_TIMED_OUT] = NUM(r->timed_out);
    x->num[COL_CONFIDENCE] = NUM(r->confidence);
    x->num[COL_N_OPTIONS] = NUM(s->n_options);
    x->num[COL_MODEL_CORRECT] =
        s->model_correct >= 0 ? s->model_correct : DB_NULL;
#undef NUM
    x->rt_ms = r->rt_ms;
}

static void db_vals_init(DbVals *x)
{
    for (int c = 0; c < COL_COUNT; c++) {
        x->str[c] = NULL;
        x->num[c] = DB_NULL;
    }
    x->rt_ms = NAN;
}

/* Appends the steps in the view's order (the view's row numbers in
** errors). */
static int emit_steps(Dataset *ds, Tables *t, const char *path, SimError *err)
{
    if (!t->sorted) {
        qsort(t->steps, t->n_steps, sizeof *t->steps, step_cmp);
    }
    Where w = {path, "long_format row ", 0};
    DbVals x;
    db_vals_init(&x);
    for (size_t i = 0; i < t->n_steps; i++) {
        const Step *s = &t->steps[i];
        w.line++;
        view_row(t, s, &t->people[s->person], &t->resps[s->resp], &x);
        int rc = dataset_add_db(ds, &x, &w, err);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    return SIM_OK;
}

static void tables_free(Tables *t)
{
    dict_free(&t->dict);
    sim_free(t->people);
    keymap_free(&t->person_of);
    keymap_free(&t->study_of);
    keymap_free(&t->domain_of);
    sim_free(t->first);
    sim_free(t->resps);
    sim_free(t->steps);
}

/* Whether the open database (in a read transaction) is a simlab store
** this reader knows, with nothing of it in a write-ahead log; NULL when
** it is, else why not. */
static const char *store_kind(sqlite3 *db, int utf8)
{
    char view[4096];
    char mode[32];
    if (!utf8) {
        return "text is not stored as UTF-8";
    }
    query_text(db,
               "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = "
               "'long_format'",
               view, sizeof view);
    /* the view of this simlab (common/sim_columns.h): the rows this reader
    ** reproduces */
    SimBuf mine;
    sim_buf_init(&mine);
    sim_columns_store_view_sql(&mine);
    int same = !mine.oom && sim_columns_same_sql(view, sim_buf_cstr(&mine));
    sim_buf_free(&mine);
    if (!same) {
        return "its long_format view is not this simlab's store view (an "
               "older schema, or another file)";
    }
    query_text(db, "PRAGMA journal_mode", mode, sizeof mode);
    if (strcmp(mode, "wal") == 0) {
        /* a reader whose log is empty reads the file alone, and no
        ** checkpoint writes the file while it reads; the log is where
        ** SQLite keeps it (beside the file a symbolic link names) */
        const char *wal = sqlite3_filename_wal(sqlite3_db_filename(db, "main"));
        FILE *f = wal ? fopen(wal, "rb") : NULL;
        int empty = wal && (!f || fgetc(f) == EOF);
        if (f) {
            fclose(f);
        }
        if (!empty) {
            return "a write-ahead log holds recent writes (is it being "
                   "written?)";
        }
    }
    return NULL;
}

/* Reads the steps (tf) and responses (rf) side by side, merging them, when
** both tables are in the view's order (as the engine writes them: one
** participant after another, in step order): no step is kept. 1 when
** done; 0 when they are not in that order, or a row stopped it (a value to
** report, one the view reads otherwise): the dataset is then as before and
** the caller reads the tables whole; -1 on an error in err. */
static int stream_tables(Dataset *ds, Tables *t, SqlFile *tf, uint32_t troot,
                         SqlFile *rf, uint32_t rroot, const char *path,
                         SimError *err)
{
    DatasetMark mark;
    if (dataset_mark(ds, &mark) != 0) {
        sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        return -1;
    }
    int ok = sqlfile_start(tf, troot, t->tpos, T_COUNT) == SQLFILE_OK &&
             sqlfile_start(rf, rroot, t->rpos, R_COUNT) == SQLFILE_OK;
    Where w = {path, "long_format row ", 0};
    DbVals x;
    db_vals_init(&x);
    Resp r = {-1, 0, NAN, 0, 0, 0, 0};
    int r_end = 0;
    int32_t last_p = -1, last_seq = 0;
    SimError scratch;
    while (ok) {
        const SqlFileValue *v;
        Step s;
        int k = sqlfile_next(tf, &v);
        if (k <= 0) {
            ok = k == 0;
            break;
        }
        k = read_step(t, v, &s);
        if (k <= 0) {
            ok = k == 0;
            continue;
        }
        if (!before(last_p, last_seq, s.person, s.seq)) {
            ok = 0; /* not in the view's order */
            break;
        }
        last_p = s.person;
        last_seq = s.seq;
        while (ok && !r_end && before(r.person, r.seq, s.person, s.seq)) {
            Resp next;
            k = sqlfile_next(rf, &v);
            if (k <= 0) {
                ok = k == 0;
                r_end = 1;
                break;
            }
            k = read_resp(t, v, &next);
            if (k < 0 ||
                (k > 0 && !before(r.person, r.seq, next.person, next.seq))) {
                ok = 0;
            } else if (k > 0) {
                r = next;
            }
        }
        if (ok && !r_end && r.person == s.person && r.seq == s.seq) {
            w.line++;
            view_row(t, &s, &t->people[s.person], &r, &x);
            ok = dataset_add_db(ds, &x, &w, &scratch) == SIM_OK;
        }
    }
    if (ok) {
        dataset_mark_free(&mark);
        return 1;
    }
    if (t->why == BUDGET_SPENT) {
        dataset_mark_free(&mark);
        tables_too_long(path, err);
        return -1;
    }
    if (dataset_rollback(ds, &mark) != 0 || t->io) {
        sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int i = 0; i < t->dict.n; i++) {
        t->dict.e[i].id = -1; /* the pool forgot them */
    }
    t->why = NULL;
    return 0;
}

/* Reads a simlab store's tables (in the read transaction of db). *used = 0
** with SIM_OK when they cannot be read so (*why says why): nothing was
** added then. */
static int load_tables(Dataset *ds, sqlite3 *db, const char *path, int utf8,
                       Budget *budget, int *used, const char **why,
                       SimError *err)
{
    *used = 0;
    *why = store_kind(db, utf8);
    if (*why) {
        return SIM_OK;
    }
    Tables t;
    memset(&t, 0, sizeof t);
    t.sorted = 1;
    t.resps_sorted = 1;
    t.last_name = -1;
    for (int c = 0; c < T_COUNT; c++) {
        t.cache[c] = -1;
    }
    for (int i = 0; i < 256; i++) {
        t.items[i] = -1;
    }
    t.budget = budget;
    static const char *const tnames[T_COUNT] = {
        "participant", "seq",       "block_id", "phase",      "session",
        "item",        "page",      "is_catch", "is_example", "correct_choice",
        "test_type",   "condition", "options"};
    static const char *const rnames[R_COUNT] = {
        "participant", "seq",   "correct",   "rating",
        "done",        "rt_ms", "timed_out", "confidence"};
    for (int c = 0; c < T_COUNT; c++) {
        t.tcol[c].name = tnames[c];
    }
    for (int c = 0; c < R_COUNT; c++) {
        t.rcol[c].name = rnames[c];
    }
    uint32_t troot = 0, rroot = 0;
    sqlite3_file *file = NULL;
    SqlFile *sf = NULL, *rf = NULL;
    sqlite3_int64 size = 0;
    int rc = SIM_OK;
    if (!table_columns(db, "trial", t.tcol, T_COUNT, &troot) ||
        !table_columns(db, "response", t.rcol, R_COUNT, &rroot)) {
        *why = "its trial or response table is not a simlab store's";
        goto done;
    }
    order_columns(t.tcol, T_COUNT, t.tpos, t.tslot);
    order_columns(t.rcol, R_COUNT, t.rpos, t.rslot);
    if (!read_people(&t, db)) {
        *why = t.why;
        goto done;
    }
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) !=
            SQLITE_OK ||
        !file || !file->pMethods ||
        file->pMethods->xFileSize(file, &size) != SQLITE_OK ||
        sqlfile_open_mapped(file_read, file_map, file_unmap, file, size, &sf) !=
            SQLFILE_OK ||
        sqlfile_open_mapped(file_read, file_map, file_unmap, file, size, &rf) !=
            SQLFILE_OK) {
        *why = "its pages cannot be read";
        goto done;
    }
    int r = stream_tables(ds, &t, sf, troot, rf, rroot, path, err);
    if (r != 0) {
        *used = r > 0;
        rc = r > 0 ? SIM_OK : err->code;
        goto done;
    }
    r = sqlfile_scan(rf, rroot, t.rpos, R_COUNT, resp_row, &t);
    if (r == SQLFILE_OK && !index_resps(&t)) {
        r = SQLFILE_STOPPED;
    }
    if (r == SQLFILE_OK) {
        r = sqlfile_scan(sf, troot, t.tpos, T_COUNT, step_row, &t);
    }
    if (r == SQLFILE_STOPPED && t.why == BUDGET_SPENT) {
        rc = tables_too_long(path, err);
        goto done;
    }
    if (t.io) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (r != SQLFILE_OK) {
        *why = r == SQLFILE_STOPPED && t.why ? t.why : "a malformed page";
        goto done;
    }
    for (size_t i = 0; i < t.n_steps; i++) {
        int tt = t.steps[i].test_type;
        if (tt >= 0 && dataset_trial_type(t.dict.e[tt].p, t.dict.e[tt].n)) {
            *why = "its verify and decide trials carry columns that only the "
                   "view gives";
            goto done;
        }
    }
    *used = 1;
    rc = emit_steps(ds, &t, path, err);
done:
    sqlfile_close(sf);
    sqlfile_close(rf);
    tables_free(&t);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Either reader                                                        */

/* A file that is there but is no SQLite database -- a CSV export given
** where a database goes is the usual one -- gets its own message, not
** SQLite's "file is not a database" at the first query. */
static int db_header(const char *path, SimError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return SIM_OK; /* SQLite says why it cannot be opened */
    }
    char head[16];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n == 0 ||
        (n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0)) {
        return SIM_OK;
    }
    const char *dot = strrchr(path, '.');
    if ((n >= 4 && memcmp(head, "PK\3\4", 4) == 0) ||
        (n >= 8 && memcmp(head, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8) == 0)) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: not an SQLite database but a workbook (Excel?): "
                        "save it as CSV (UTF-8) and read that with --csv",
                        path);
    }
    int csv = memchr(head, ',', n) || memchr(head, ';', n) ||
              memchr(head, '\t', n) ||
              (dot && (strcmp(dot, ".csv") == 0 || strcmp(dot, ".tsv") == 0 ||
                       strcmp(dot, ".txt") == 0));
    if (csv) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: not an SQLite database but text (a CSV file?): "
                        "a long-format CSV is read with --csv %s",
                        path, path);
    }
    return sim_fail(err, SIM_ERR_INVALID,
                    "%s: not an SQLite database (simlab's data file, "
                    "simlab-data/<study id>.db) nor a CSV file",
                    path);
}

int dataset_load_db_how(Dataset *ds, const char *path, DatasetDbReader how,
                        SimError *err)
{
    sqlite3 *db = NULL;
    int rc = db_header(path, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Budget budget = {0};
    dataset_reset_caches(ds->load);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                      db ? sqlite3_errmsg(db) : "cannot open");
        goto cleanup;
    }
    sqlite3_busy_timeout(db, 5000);
    char text[32];
    query_text(db, "PRAGMA encoding", text, sizeof text);
    /* text is stored as UTF-8 (not UTF-16); so assumed when not told */
    int utf8 = !text[0] || strcmp(text, "UTF-8") == 0;
    dataset_db_budget(db, &budget);
    /* a store's pages are read in place where SQLite maps the file */
    sqlite3_exec(db, "PRAGMA mmap_size = 2147418112", NULL, NULL, NULL);
    /* one read transaction: the file does not change under the readers */
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    rc = db_studies(ds, db, path, &budget, err);
    int used = 0;
    const char *why = "the view was asked for";
    if (rc == SIM_OK && how != DATASET_DB_VIEW) {
        rc = load_tables(ds, db, path, utf8, &budget, &used, &why, err);
    }
    if (rc == SIM_OK && !used && how == DATASET_DB_TABLES) {
        rc = sim_fail(err, SIM_ERR_STATE,
                      "%s: the tables of the store cannot be read directly: "
                      "%s",
                      path, why);
    }
    if (rc == SIM_OK && !used) {
        rc = load_view(ds, db, path, utf8, &budget, err);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc == SIM_OK) {
        ds->n_sources++;
        dataset_fit_rows(ds);
        dataset_settle_scale(ds);
    }
cleanup:
    sqlite3_close(db);
    return rc;
}

int dataset_load_db(Dataset *ds, const char *path, SimError *err)
{
    return dataset_load_db_how(ds, path, DATASET_DB_AUTO, err);
}
