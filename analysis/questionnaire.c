/*
** Questionnaire answers: loading (database answer table or the export's
** X.questionnaire.csv, through common/sim_csv.h) and the summaries per
*condition of screened
** participants -- n, mean, SD and the 95 % t interval of the mean (R's
** t.test(x)$conf.int) for number and likert questions, counts per option
** for choice questions, and the number of non-empty answers for text
** questions (free text is not summarised).
*/
#include "analysis/questionnaire.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/dataset_int.h"
#include "analysis/stats.h"
#include "common/sim_alloc.h"
#include "common/sim_csv.h"

static const char *const type_names[QA_TYPES] = {"number", "choice", "likert",
                                                 "text"};

static int type_of(const char *s)
{
    for (int t = 0; s && t < QA_TYPES; t++) {
        if (strcmp(s, type_names[t]) == 0) {
            return t;
        }
    }
    return -1;
}

static struct DatasetAnswers *answers_of(Dataset *ds)
{
    if (!ds->answers) {
        ds->answers = sim_calloc(1, sizeof *ds->answers);
    }
    return ds->answers;
}

/* The options of the choice questions of a study definition (an object,
** or JSON text) in their defined order; a question already known keeps
** its first definition. */
static int add_definition(Dataset *ds, json_t *def, SimError *err)
{
    json_t *owned = NULL;
    if (json_is_string(def)) {
        owned = def = json_loads(json_string_value(def), 0, NULL);
    }
    size_t b;
    json_t *blk;
    json_array_foreach(json_object_get(def, "blocks"), b, blk)
    {
        const char *kind = json_string_value(json_object_get(blk, "kind"));
        if (!kind || strcmp(kind, "questionnaire") != 0) {
            continue;
        }
        char defid[48];
        snprintf(defid, sizeof defid, "questionnaire%zu", b + 1);
        const char *bid = json_string_value(json_object_get(blk, "id"));
        int block = dataset_intern(ds, bid ? bid : defid);
        size_t k;
        json_t *q;
        json_array_foreach(json_object_get(blk, "questions"), k, q)
        {
            const char *type = json_string_value(json_object_get(q, "type"));
            const char *qid = json_string_value(json_object_get(q, "id"));
            json_t *opts = json_object_get(q, "options");
            if (!type || strcmp(type, "choice") != 0 || !qid ||
                !json_is_array(opts)) {
                continue;
            }
            int question = dataset_intern(ds, qid);
            struct DatasetAnswers *A = answers_of(ds);
            int known = 0;
            for (size_t d = 0; A && d < A->n_defs; d++) {
                known |= A->defs[d].block == block &&
                         A->defs[d].question == question;
            }
            if (known) {
                continue;
            }
            if (!A || block < 0 || question < 0 ||
                (A->n_defs == A->cap_defs &&
                 sim_grow((void **)&A->defs, &A->cap_defs, A->n_defs + 1,
                          sizeof *A->defs) != 0)) {
                json_decref(owned);
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            QOptions *o = &A->defs[A->n_defs++];
            memset(o, 0, sizeof *o);
            o->block = block;
            o->question = question;
            size_t n = json_array_size(opts);
            o->options = sim_calloc(n ? n : 1, sizeof *o->options);
            for (size_t j = 0; o->options && j < n; j++) {
                json_t *v = json_array_get(opts, j);
                char num[32];
                const char *s = json_string_value(v);
                if (!s && json_is_integer(v)) {
                    snprintf(num, sizeof num, "%lld",
                             (long long)json_integer_value(v));
                    s = num;
                }
                if (s) {
                    o->options[o->n_options++] = dataset_intern(ds, s);
                }
            }
        }
    }
    json_decref(owned);
    return SIM_OK;
}

/* The export guards cells a spreadsheet would run ('=...): undo it. */
static const char *unguard(const char *v)
{
    if (v[0] == '\'' && v[1] && strchr("=+-@\t\r", v[1])) {
        return v + 1;
    }
    return v;
}

/* Appends one answer; the fields are given as text. */
static int add_answer(Dataset *ds, const char *participant,
                      const char *condition, const char *block,
                      const char *question, int type, const char *value,
                      SimError *err)
{
    struct DatasetAnswers *A = ds->answers;
    if (!A) {
        A = ds->answers = sim_calloc(1, sizeof *A);
        if (!A) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (A->n == A->cap &&
        sim_grow((void **)&A->a, &A->cap, A->n + 1, sizeof *A->a) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    QAnswer *q = &A->a[A->n];
    q->participant = dataset_intern(ds, participant);
    q->condition = dataset_intern(ds, condition);
    q->block = dataset_intern(ds, block);
    q->question = dataset_intern(ds, question);
    q->value = dataset_intern(ds, value);
    q->type = type;
    q->x = NAN;
    if (type == QA_NUMBER || type == QA_LIKERT) {
        char buf[64], *end = NULL;
        snprintf(buf, sizeof buf, "%s", value);
        for (char *p = buf; *p; p++) {
            *p = *p == ',' ? '.' : *p; /* "2,5" as the runner accepts it */
        }
        double x = strtod(buf, &end);
        q->x = end && end != buf && *end == '\0' && isfinite(x) ? x : NAN;
    }
    if (q->participant < 0 || q->condition < 0 || q->block < 0 ||
        q->question < 0 || q->value < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    A->n++;
    return SIM_OK;
}

/* ------------------------------------------------------------- database */

int questionnaire_load_db(Dataset *ds, const char *path, SimError *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                          db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return rc;
    }
    /* the same step budget as the rows' reader: a crafted answer view
    ** cannot hang the analysis */
    DbBudget budget;
    dataset_db_budget(db, &budget);
    sqlite3_stmt *s = NULL;
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(db, "SELECT definition FROM study ORDER BY id", -1,
                           &s, NULL) == SQLITE_OK) {
        while (rc == SIM_OK && sqlite3_step(s) == SQLITE_ROW) {
            const unsigned char *text = sqlite3_column_text(s, 0);
            json_t *def = text ? json_loads((const char *)text, 0, NULL) : NULL;
            rc = def ? add_definition(ds, def, err) : SIM_OK;
            json_decref(def);
        }
        sqlite3_finalize(s);
        s = NULL;
    }
    if (rc != SIM_OK) {
        sqlite3_close(db);
        return rc;
    }
    /* the step's condition (within-subject studies repeat questionnaires);
    ** a file from before steps had one: the participant's */
    static const char *const sql[2] = {
        "SELECT a.participant, COALESCE(t.condition, p.condition), "
        "t.block_id, a.question, a.type, a.value FROM answer a JOIN "
        "participant p ON p.id = a.participant JOIN trial t ON "
        "t.participant = a.participant AND t.seq = a.seq ORDER BY "
        "p.created_ms, p.id, a.seq, a.rowid",
        "SELECT a.participant, p.condition, t.block_id, a.question, a.type, "
        "a.value FROM answer a JOIN participant p ON p.id = a.participant "
        "JOIN trial t ON t.participant = a.participant AND t.seq = a.seq "
        "ORDER BY p.created_ms, p.id, a.seq, a.rowid"};
    if (sqlite3_prepare_v2(db, sql[0], -1, &s, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db, sql[1], -1, &s, NULL) != SQLITE_OK) {
        /* no answer table: a database from before questionnaires */
        sqlite3_close(db);
        return SIM_OK;
    }
    int step;
    SimBuf nul;
    sim_buf_init(&nul);
    while (rc == SIM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *f[6];
        for (int c = 0; c < 6; c++) {
            const unsigned char *v = sqlite3_column_text(s, c);
            f[c] = v ? (const char *)v : "";
        }
        /* a NUL byte in an answer (a file not written by simlab) is kept
        ** as \x00, as the sync sends it to a server, not cut there */
        size_t n = (size_t)sqlite3_column_bytes(s, 5);
        if (memchr(f[5], '\0', n)) {
            nul.len = 0;
            for (size_t i = 0; i < n; i++) {
                if (f[5][i]) {
                    sim_buf_append(&nul, f[5] + i, 1);
                } else {
                    sim_buf_puts(&nul, "\\x00");
                }
            }
            f[5] = sim_buf_cstr(&nul);
        }
        int type = type_of(f[4]);
        if (type < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: answer to '%s': unknown question type '%s'",
                          path, f[3], f[4]);
            break;
        }
        rc = add_answer(ds, f[0], f[1], f[2], f[3], type, f[5], err);
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = dataset_db_budget_spent(&budget)
                 ? sim_fail(err, SIM_ERR_DB,
                            "%s: the database's questionnaire answers took "
                            "too long (is it simlab's?)",
                            path)
                 : sim_fail(err, SIM_ERR_DB, "%s: read answers: %s", path,
                            sqlite3_errmsg(db));
    }
    sim_buf_free(&nul);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rc;
}

/* ------------------------------------------------------------------ CSV */

static int field_is(const SimCsvField *f, const char *s)
{
    size_t n = strlen(s);
    return f->n == n && memcmp(f->p, s, n) == 0;
}

/* Copies the fields col[0..n) of rec into buf (grown) as NUL-terminated
** strings v[0..n). Returns 0, or -1 when out of memory. */
static int field_strings(const SimCsvRecord *rec, const int *col, int n,
                         char **buf, size_t *cap, const char **v)
{
    size_t need = 0;
    for (int k = 0; k < n; k++) {
        need += rec->fields[col[k]].n + 1;
    }
    if (need > *cap && sim_grow((void **)buf, cap, need, 1) != 0) {
        return -1;
    }
    char *t = *buf;
    for (int k = 0; k < n; k++) {
        const SimCsvField *f = &rec->fields[col[k]];
        memcpy(t, f->p, f->n);
        t[f->n] = '\0';
        v[k] = t;
        t += f->n + 1;
    }
    return 0;
}

/* The study definitions in X.csv's sidecar give the options. */
static int sidecar_definitions(Dataset *ds, const char *csv_path, SimError *err)
{
    char side[4200];
    snprintf(side, sizeof side, "%s.json", csv_path);
    json_t *root = json_load_file(side, 0, NULL);
    size_t i;
    json_t *study;
    int rc = SIM_OK;
    json_array_foreach(json_object_get(root, "studies"), i, study)
    {
        if (rc == SIM_OK) {
            rc = add_definition(ds, json_object_get(study, "definition"), err);
        }
    }
    json_decref(root);
    return rc;
}

int questionnaire_load_csv(Dataset *ds, const char *csv_path, SimError *err)
{
    size_t n = strlen(csv_path);
    if (n >= 4 && strcmp(csv_path + n - 4, ".csv") == 0) {
        n -= 4;
    }
    char path[4096];
    if (snprintf(path, sizeof path, "%.*s.questionnaire.csv", (int)n,
                 csv_path) >= (int)sizeof path) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", csv_path);
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        return errno == ENOENT
                   ? SIM_OK
                   : sim_fail(err, SIM_ERR_IO, "%s: cannot read: %s", path,
                              strerror(errno));
    }
    int rc = sidecar_definitions(ds, csv_path, err);
    SimCsvReader *r = NULL;
    SimCsvOptions o = {',', NULL, NULL, NULL};
    if (rc == SIM_OK) {
        rc = sim_csv_open_file(&r, fp, path, &o, err);
    }
    static const char *const need[] = {"participant", "condition", "block",
                                       "question",    "type",      "value"};
    enum { N_NEED = 6 };
    int col[N_NEED];
    SimCsvRecord rec;
    int got = rc == SIM_OK ? sim_csv_next(r, &rec, err) : 0;
    if (rc == SIM_OK && got != 1) {
        rc = got == 0
                 ? sim_fail(err, SIM_ERR_INVALID, "%s:1: no header line", path)
                 : got;
    }
    for (int k = 0; rc == SIM_OK && k < N_NEED; k++) {
        col[k] = -1;
        for (int i = 0; i < rec.n; i++) {
            if (field_is(&rec.fields[i], need[k])) {
                col[k] = i;
            }
        }
        if (col[k] < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column '%s': missing from the header", path,
                          rec.line, need[k]);
        }
    }
    char *buf = NULL;
    size_t cap = 0;
    while (rc == SIM_OK && (got = sim_csv_next(r, &rec, err)) == 1) {
        long line = rec.line;
        if (rec.n == 1 && rec.fields[0].n == 0) {
            continue; /* an empty quoted line */
        }
        const char *v[N_NEED];
        for (int k = 0; k < N_NEED && rc == SIM_OK; k++) {
            if (col[k] >= rec.n) {
                rc = sim_fail(err, SIM_ERR_INVALID,
                              "%s:%ld: column '%s': missing (the record has "
                              "%d fields)",
                              path, line, need[k], rec.n);
            }
        }
        if (rc == SIM_OK && field_strings(&rec, col, N_NEED, &buf, &cap, v)) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        if (rc != SIM_OK) {
            break;
        }
        for (int k = 0; k < N_NEED; k++) {
            v[k] = unguard(v[k]);
        }
        int type = type_of(v[4]);
        if (type < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column 'type': expected number, choice, "
                          "likert or text, got '%s'",
                          path, line, v[4]);
            break;
        }
        if (!v[0][0]) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column 'participant': empty", path, line);
            break;
        }
        rc = add_answer(ds, v[0], v[1], v[2], v[3], type, v[5], err);
        if (rc == SIM_OK && (type == QA_NUMBER || type == QA_LIKERT) &&
            isnan(ds->answers->a[ds->answers->n - 1].x)) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column 'value': expected a number, got "
                          "'%s'",
                          path, line, v[5]);
        }
    }
    if (rc == SIM_OK && got > 1) {
        rc = got; /* the reader's located error */
    }
    sim_free(buf);
    sim_csv_close(r);
    fclose(fp);
    return rc;
}

/* ------------------------------------------------------------- summaries */

#define N_COLS(a) ((int)(sizeof(a) / sizeof(a)[0]))

static const TableColumn SUMMARY_COLS[] = {
    {"block", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"question", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"type", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "answers", 0, 0, 0},
    {"mean", NULL, NULL, TABLE_REAL, "", 2, 0, 0},
    {"sd", NULL, "SD", TABLE_REAL, "", 2, 0, 0},
    {"ci", NULL, "95 % t interval", TABLE_INTERVAL, "", 2, 0, 0},
};

static const TableColumn CHOICE_COLS[] = {
    {"block", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"question", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"option", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "answers", 0, 0, 0},
};

static const TableColumn TEXT_COLS[] = {
    {"block", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"question", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "non-empty answers", 0, 0, 0},
};

/* The kept answers: a participant screened in, a condition known. */
typedef struct Kept {
    const QAnswer **a;
    size_t n;
} Kept;

static int kept_answers(const Dataset *ds, const Screen *sc, Kept *k,
                        SimError *err)
{
    const struct DatasetAnswers *A = ds->answers;
    k->n = 0;
    k->a = sim_calloc(A->n ? A->n : 1, sizeof *k->a);
    int max_id = 0;
    for (int p = 0; p < ds->n_participants; p++) {
        max_id = ds->participants[p].name > max_id ? ds->participants[p].name
                                                   : max_id;
    }
    int *pidx = sim_malloc(((size_t)max_id + 1) * sizeof *pidx);
    if (!k->a || !pidx) {
        sim_free(pidx);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i <= max_id; i++) {
        pidx[i] = -1;
    }
    for (int p = 0; p < ds->n_participants; p++) {
        pidx[ds->participants[p].name] = p;
    }
    for (size_t i = 0; i < A->n; i++) {
        const QAnswer *q = &A->a[i];
        int p = q->participant <= max_id ? pidx[q->participant] : -1;
        if (p < 0 || !sc->keep[p] || q->condition >= sc->n_strings ||
            sc->cond_index[q->condition] < 0) {
            continue;
        }
        k->a[k->n++] = q;
    }
    sim_free(pidx);
    return SIM_OK;
}

/* Distinct (block, question) pairs in order of first appearance. */
static size_t questions_of(const Kept *k, int *blocks, int *questions,
                           int *types, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++) {
        size_t j = 0;
        while (j < n && !(blocks[j] == k->a[i]->block &&
                          questions[j] == k->a[i]->question)) {
            j++;
        }
        if (j == n && n < max) {
            blocks[n] = k->a[i]->block;
            questions[n] = k->a[i]->question;
            types[n] = k->a[i]->type;
            n++;
        }
    }
    return n;
}

/* One question's rows: per condition, or once over every participant
** (pooled: a question of a within-subject study asked once, whose
** answers carry whichever condition came last). */
typedef struct QRows {
    int block, question;
    int pooled;
} QRows;

static int same_q(const QAnswer *a, const QRows *q, int cond, const Screen *sc)
{
    return a->block == q->block && a->question == q->question &&
           (q->pooled || sc->cond_index[a->condition] == cond);
}

/* The condition label of row c: the condition, or "all" when pooled. */
static const char *row_condition(const Dataset *ds, const Screen *sc,
                                 const QRows *q, int c)
{
    return q->pooled ? "all" : dataset_str(ds, sc->conds[c]);
}

static int cmp_int2(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0])
                        : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Whether some participant answered the question in two or more
** conditions (a questionnaire repeated per condition); -1 out of memory. */
static int asked_per_condition(const Screen *sc, const Kept *k, int block,
                               int question)
{
    int *pc = sim_malloc(2 * (k->n ? k->n : 1) * sizeof *pc);
    if (!pc) {
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (k->a[i]->block == block && k->a[i]->question == question) {
            pc[2 * n] = k->a[i]->participant;
            pc[2 * n + 1] = sc->cond_index[k->a[i]->condition];
            n++;
        }
    }
    qsort(pc, n, 2 * sizeof *pc, cmp_int2);
    int repeated = 0;
    for (size_t i = 1; i < n && !repeated; i++) {
        repeated = pc[2 * i] == pc[2 * i - 2] && pc[2 * i + 1] != pc[2 * i - 1];
    }
    sim_free(pc);
    return repeated;
}

/* Number and likert questions: n, mean, SD, 95 % t interval per
** condition. */
static void summary_rows(const Dataset *ds, const Screen *sc, const Kept *k,
                         Table *t, const QRows *q, int type)
{
    double *x = sim_malloc((k->n ? k->n : 1) * sizeof *x);
    double *zero = sim_calloc(k->n ? k->n : 1, sizeof *zero);
    for (int c = 0; x && zero && c < (q->pooled ? 1 : sc->n_conds); c++) {
        int n = 0;
        for (size_t i = 0; i < k->n; i++) {
            if (same_q(k->a[i], q, c, sc) && !isnan(k->a[i]->x)) {
                x[n++] = k->a[i]->x;
            }
        }
        if (n == 0) {
            continue;
        }
        PairedT pt; /* the one-sample t test of x is the paired one of x - 0 */
        stats_paired_t(zero, x, n, &pt);
        double mean = 0;
        for (int i = 0; i < n; i++) {
            mean += x[i];
        }
        mean /= n;
        table_add_row(t);
        table_put_text(t, dataset_str(ds, q->block));
        table_put_text(t, dataset_str(ds, q->question));
        table_put_text(t, type_names[type]);
        table_put_text(t, row_condition(ds, sc, q, c));
        table_put_num(t, n);
        table_put_num(t, mean);
        table_put_num(t, pt.sd);
        table_put_interval(t, pt.lo, pt.hi);
    }
    sim_free(x);
    sim_free(zero);
}

static const TableColumn QPAIRED_COLS[] = {
    {"block", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"question", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"comparison", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"diff", NULL, NULL, TABLE_REAL, "", 2, TABLE_SIGNED, 0},
    {"t", NULL, NULL, TABLE_REAL, "", 2, 0, 0},
    {"df", NULL, NULL, TABLE_REAL, "", 0, 0, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"p_holm", NULL, "p (Holm)", TABLE_PVALUE, "", 0, 0, 0},
    {"ci", NULL, "95 % CI", TABLE_INTERVAL, "", 2, 0, 0},
};

/* A participant's answer to q in condition c (its first), NaN when none. */
static double answer_in(const Kept *k, const Screen *sc, const QRows *q,
                        int participant, int c)
{
    for (size_t i = 0; i < k->n; i++) {
        const QAnswer *a = k->a[i];
        if (a->participant == participant && same_q(a, q, c, sc)) {
            return a->x;
        }
    }
    return NAN;
}

/* A question asked once per condition of a within-subject study: each
** condition minus the reference (sc->conds[0]: the baseline, or the first
** condition), paired over participants, Holm-adjusted. */
static void paired_rows(const Dataset *ds, const Screen *sc, const Kept *k,
                        Table *t, const QRows *q)
{
    int C = sc->n_conds;
    size_t cap = k->n ? k->n : 1;
    int *who = sim_malloc(cap * sizeof *who);
    double *a = sim_malloc(cap * sizeof *a), *b = sim_malloc(cap * sizeof *b);
    PairedT *res = sim_calloc((size_t)C + 1, sizeof *res);
    double *p = sim_malloc(((size_t)C + 1) * 2 * sizeof *p);
    size_t n_who = 0;
    for (size_t i = 0; who && i < k->n; i++) { /* distinct participants */
        const QAnswer *x = k->a[i];
        if (x->block != q->block || x->question != q->question) {
            continue;
        }
        size_t j = 0;
        while (j < n_who && who[j] != x->participant) {
            j++;
        }
        if (j == n_who) {
            who[n_who++] = x->participant;
        }
    }
    int n_tests = 0;
    for (int c = 1; who && a && b && res && p && c < C; c++) {
        int n = 0;
        for (size_t j = 0; j < n_who; j++) {
            double x0 = answer_in(k, sc, q, who[j], 0);
            double x1 = answer_in(k, sc, q, who[j], c);
            if (!isnan(x0) && !isnan(x1)) {
                a[n] = x0;
                b[n] = x1;
                n++;
            }
        }
        stats_paired_t(a, b, n, &res[c]);
        p[n_tests++] = res[c].p;
    }
    double *ph = p ? p + C + 1 : NULL;
    if (ph) {
        stats_p_holm(p, n_tests, ph);
    }
    SimBuf lab;
    sim_buf_init(&lab);
    for (int c = 1; who && a && b && res && p && c < C; c++) {
        const PairedT *x = &res[c];
        lab.len = 0;
        sim_buf_printf(&lab, "%s - %s", dataset_str(ds, sc->conds[c]),
                       dataset_str(ds, sc->conds[0]));
        table_add_row(t);
        table_put_text(t, dataset_str(ds, q->block));
        table_put_text(t, dataset_str(ds, q->question));
        table_put_text(t, sim_buf_cstr(&lab));
        table_put_num(t, x->n);
        table_put_num(t, x->diff);
        table_put_num(t, x->t);
        table_put_num(t, x->df);
        table_put_num(t, x->p);
        table_put_num(t, ph[c - 1]);
        table_put_interval(t, x->lo, x->hi);
    }
    sim_buf_free(&lab);
    sim_free(who);
    sim_free(a);
    sim_free(b);
    sim_free(res);
    sim_free(p);
}

/* Choice questions: answers per option and condition, options in order of
** first appearance. */
static void choice_rows(const Dataset *ds, const Screen *sc, const Kept *k,
                        Table *t, const QRows *q)
{
    int block = q->block, question = q->question;
    const struct DatasetAnswers *A = ds->answers;
    const QOptions *def = NULL;
    for (size_t d = 0; d < A->n_defs && !def; d++) {
        if (A->defs[d].block == block && A->defs[d].question == question) {
            def = &A->defs[d];
        }
    }
    size_t cap = k->n + (def ? (size_t)def->n_options : 0);
    int *opts = sim_malloc((cap ? cap : 1) * sizeof *opts);
    size_t n_opts = 0;
    for (int o = 0; opts && def && o < def->n_options; o++) {
        opts[n_opts++] = def->options[o]; /* in the study's order, also
                                             those no one chose */
    }
    for (size_t i = 0; opts && i < k->n; i++) {
        const QAnswer *a = k->a[i];
        if (a->block != block || a->question != question) {
            continue;
        }
        size_t j = 0;
        while (j < n_opts && opts[j] != a->value) {
            j++;
        }
        if (j == n_opts) {
            opts[n_opts++] = a->value;
        }
    }
    for (int c = 0; opts && c < (q->pooled ? 1 : sc->n_conds); c++) {
        for (size_t o = 0; o < n_opts; o++) {
            int n = 0;
            for (size_t i = 0; i < k->n; i++) {
                n += same_q(k->a[i], q, c, sc) && k->a[i]->value == opts[o];
            }
            table_add_row(t);
            table_put_text(t, dataset_str(ds, block));
            table_put_text(t, dataset_str(ds, question));
            table_put_text(t, row_condition(ds, sc, q, c));
            table_put_text(t, dataset_str(ds, opts[o]));
            table_put_num(t, n);
        }
    }
    sim_free(opts);
}

static void text_rows(const Dataset *ds, const Screen *sc, const Kept *k,
                      Table *t, const QRows *q)
{
    for (int c = 0; c < (q->pooled ? 1 : sc->n_conds); c++) {
        int n = 0;
        for (size_t i = 0; i < k->n; i++) {
            n += same_q(k->a[i], q, c, sc) &&
                 dataset_str(ds, k->a[i]->value)[0] != '\0';
        }
        table_add_row(t);
        table_put_text(t, dataset_str(ds, q->block));
        table_put_text(t, dataset_str(ds, q->question));
        table_put_text(t, row_condition(ds, sc, q, c));
        table_put_num(t, n);
    }
}

int compute_questionnaire(const Dataset *ds, const Screen *sc, Report *r,
                          SimError *err)
{
    if (!ds->answers || ds->answers->n == 0) {
        return SIM_OK;
    }
    Kept k;
    int rc = kept_answers(ds, sc, &k, err);
    if (rc != SIM_OK) {
        sim_free(k.a);
        return rc;
    }
    size_t maxq = k.n ? k.n : 1;
    int *blocks = sim_malloc(3 * maxq * sizeof *blocks);
    if (!blocks) {
        sim_free(k.a);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int *questions = blocks + maxq, *types = questions + maxq;
    size_t nq = questions_of(&k, blocks, questions, types, maxq);
    unsigned fmt = TABLE_MD | TABLE_CSV | TABLE_JSON;
    Table *ts = report_add_table(r, "questionnaire", fmt, SUMMARY_COLS,
                                 N_COLS(SUMMARY_COLS));
    Table *tc = report_add_table(r, "questionnaire_choices", fmt, CHOICE_COLS,
                                 N_COLS(CHOICE_COLS));
    Table *tt = report_add_table(r, "questionnaire_text", fmt, TEXT_COLS,
                                 N_COLS(TEXT_COLS));
    Table *tp = sc->within
                    ? report_add_table(r, "questionnaire_paired", fmt,
                                       QPAIRED_COLS, N_COLS(QPAIRED_COLS))
                    : NULL;
    if (!ts || !tc || !tt || (sc->within && !tp) ||
        (tp && table_set_json_path(tp, "questionnaire.paired")) ||
        table_set_json_path(ts, "questionnaire.summary") ||
        table_set_json_path(tc, "questionnaire.choices") ||
        table_set_json_path(tt, "questionnaire.text")) {
        sim_free(k.a);
        sim_free(blocks);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    table_set_title(ts, 2, "Questionnaires");
    table_set_note(ts,
                   "Number and likert questions per condition (%zu answers "
                   "of screened participants): n, mean, SD and the 95 %% t "
                   "interval of the mean.",
                   k.n);
    table_set_note(tc, "Choice questions: answers per option.");
    table_set_note(tt, "Text questions: non-empty answers (free text is not "
                       "summarised).");
    if (sc->within) {
        table_set_note(ts,
                       "Number and likert questions (%zu answers of screened "
                       "participants): n, mean, SD and the 95 %% t interval "
                       "of the mean; per condition for a questionnaire asked "
                       "once per condition, over all participants (condition "
                       "'all') for one asked once.",
                       k.n);
        table_set_note(tp,
                       "Questionnaires asked once per condition: paired t "
                       "tests of each condition minus the %s '%s' "
                       "(participants who answered in both); p (Holm) "
                       "adjusts within each question.",
                       sc->base >= 0 ? "baseline" : "first condition",
                       dataset_str(ds, sc->conds[0]));
    }
    for (size_t i = 0; i < nq && rc == SIM_OK; i++) {
        QRows q = {blocks[i], questions[i], 0};
        if (sc->within) {
            int per = asked_per_condition(sc, &k, q.block, q.question);
            if (per < 0) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
                break;
            }
            q.pooled = !per;
        }
        switch (types[i]) {
        case QA_NUMBER:
        case QA_LIKERT:
            summary_rows(ds, sc, &k, ts, &q, types[i]);
            if (!q.pooled && sc->within) {
                paired_rows(ds, sc, &k, tp, &q);
            }
            break;
        case QA_CHOICE:
            choice_rows(ds, sc, &k, tc, &q);
            break;
        default:
            text_rows(ds, sc, &k, tt, &q);
            break;
        }
    }
    sim_free(k.a);
    sim_free(blocks);
    if (rc != SIM_OK) {
        return rc;
    }
    return ts->bad || tc->bad || tt->bad || (tp && tp->bad)
               ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
               : SIM_OK;
}
