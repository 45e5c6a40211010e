/*
** Interactions with explanations (interactions.h): the events of each step
** (offer, reveal, hide, hover, unhover) folded into one view record per
** step, from a database or from an export's X.interactions.csv, and their
** summary per condition: how many steps were viewed, for how long, and the
** accuracy on scored steps with and without a view (report.json
** "interactions").
*/
#include "analysis/interactions.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compute.h"
#include "analysis/dataset_int.h"
#include "analysis/keymap.h"
#include "common/sim_alloc.h"
#include "common/sim_csv.h"

/* ------------------------------------------------------------- folding */

/* The step being folded: its events in order, then its end. */
typedef struct Fold {
    int participant, condition, trial;
    int open;       /* a step is being folded */
    int offered;    /* an offer was seen */
    int viewed;     /* a reveal or hover was seen */
    double since;   /* shown since (ms), NaN when hidden */
    double view_ms; /* closed intervals so far */
    double last_t;  /* the latest event time */
    int correct;    /* -1 unknown */
    double end_ms;  /* the response time, NaN unknown */
} Fold;

static void fold_event(Fold *f, const char *event, double t)
{
    if (isfinite(t) && t > f->last_t) {
        f->last_t = t;
    }
    if (strcmp(event, "offer") == 0) {
        f->offered = 1;
    } else if (strcmp(event, "reveal") == 0 || strcmp(event, "hover") == 0) {
        f->viewed = 1;
        if (isnan(f->since)) {
            f->since = t;
        }
    } else if (strcmp(event, "hide") == 0 || strcmp(event, "unhover") == 0) {
        if (!isnan(f->since) && t >= f->since) {
            f->view_ms += t - f->since;
        }
        f->since = NAN;
    }
}

/* Closes the step: a view still open runs to the response (else to the
** last event), and a step that offered an explanation is kept. */
static int fold_close(Dataset *ds, Fold *f, SimError *err)
{
    if (!f->open) {
        return SIM_OK;
    }
    f->open = 0;
    if (!f->offered) {
        return SIM_OK; /* a reservoir card's reveal: not the step's */
    }
    if (!isnan(f->since)) {
        double end = isfinite(f->end_ms) && f->end_ms >= f->since ? f->end_ms
                                                                  : f->last_t;
        f->view_ms += end - f->since;
    }
    struct DatasetViews *V = ds->views;
    if (!V) {
        V = ds->views = sim_calloc(1, sizeof *V);
        if (!V) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    if (sim_grow((void **)&V->v, &V->cap, V->n + 1, sizeof *V->v) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    V->v[V->n++] = (IView){f->participant,
                           f->condition,
                           f->trial,
                           f->viewed,
                           f->viewed ? f->view_ms : 0,
                           f->correct};
    return SIM_OK;
}

/* Starts folding the step (participant, trial) unless it is the open one;
** closes the open one first. */
static int fold_step(Dataset *ds, Fold *f, const char *participant,
                     const char *condition, int trial, SimError *err)
{
    int p = dataset_intern(ds, participant);
    int c = dataset_intern(ds, condition);
    if (p < 0 || c < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (f->open && f->participant == p && f->trial == trial) {
        return SIM_OK;
    }
    int rc = fold_close(ds, f, err);
    *f = (Fold){p, c, trial, 1, 0, 0, NAN, 0, 0, -1, NAN};
    return rc;
}

/* ------------------------------------------------------------ databases */

int interactions_load_db(Dataset *ds, const char *path, SimError *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = sim_fail(err, SIM_ERR_DB, "%s: %s", path,
                          db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return rc;
    }
    DbBudget budget;
    dataset_db_budget(db, &budget);
    /* correctness as the long format counts it: scored steps only */
    static const char *const sql =
        "SELECT i.participant, i.condition, i.seq + 1, i.event, i.t_ms, "
        "CASE WHEN t.correct_choice >= 0 AND t.is_example = 0 "
        "THEN r.correct END, r.rt_ms FROM interaction i "
        "JOIN trial t ON t.participant = i.participant AND t.seq = i.seq "
        "LEFT JOIN response r ON r.participant = i.participant AND "
        "r.seq = i.seq AND r.done = 1 ORDER BY i.participant, i.seq, i.n";
    /* a server's copy (analysis/pg_source.c) holds the rows joined */
    static const char *const copied =
        "SELECT participant, condition, trial, event, t_ms, correct, rt_ms "
        "FROM interaction_rows ORDER BY rowid";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, copied, -1, &s, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        sqlite3_close(db); /* no interaction table: before schema 9 */
        return SIM_OK;
    }
    Fold f;
    memset(&f, 0, sizeof f);
    int rc = SIM_OK, step;
    while (rc == SIM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *pid = (const char *)sqlite3_column_text(s, 0);
        const char *cond = (const char *)sqlite3_column_text(s, 1);
        const char *event = (const char *)sqlite3_column_text(s, 3);
        rc = fold_step(ds, &f, pid ? pid : "", cond ? cond : "",
                       sqlite3_column_int(s, 2), err);
        if (rc != SIM_OK) {
            break;
        }
        f.correct = sqlite3_column_type(s, 5) == SQLITE_NULL
                        ? -1
                        : sqlite3_column_int(s, 5) != 0;
        f.end_ms = sqlite3_column_type(s, 6) == SQLITE_NULL
                       ? NAN
                       : sqlite3_column_double(s, 6);
        fold_event(&f, event ? event : "", sqlite3_column_double(s, 4));
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: read interactions: %s", path,
                      sqlite3_errmsg(db));
    }
    if (rc == SIM_OK) {
        rc = fold_close(ds, &f, err);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rc;
}

/* ----------------------------------------------------------- CSV files */

/* Field f equals s. */
static int field_is(const SimCsvField *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

/* A field as a NUL-terminated string in buf (n bytes). */
static const char *field_str(const SimCsvField *f, char *buf, size_t n)
{
    snprintf(buf, n, "%.*s", (int)f->n, f->p);
    return buf;
}

/* Opens path as CSV and finds the columns need[0..n) in its header (col);
** *r NULL when the file does not exist (nothing to read). */
static int open_csv(const char *path, const char *const *need, int n, int *col,
                    SimCsvReader **r, SimError *err)
{
    *r = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        return errno == ENOENT
                   ? SIM_OK
                   : sim_fail(err, SIM_ERR_IO, "%s: cannot read: %s", path,
                              strerror(errno));
    }
    SimCsvOptions o = {',', NULL, NULL, NULL};
    int rc = sim_csv_open_file(r, fp, path, &o, err);
    SimCsvRecord rec;
    int got = rc == SIM_OK ? sim_csv_next(*r, &rec, err) : 0;
    if (rc == SIM_OK && got != 1) {
        rc = got == 0
                 ? sim_fail(err, SIM_ERR_INVALID, "%s:1: no header line", path)
                 : got;
    }
    for (int k = 0; rc == SIM_OK && k < n; k++) {
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
    if (rc != SIM_OK) {
        sim_csv_close(*r);
        *r = NULL;
    }
    return rc;
}

/* The step's answer and response time from the long format X.csv:
** (participant, trial) -> index into ends. */
typedef struct StepEnd {
    int correct;
    double rt_ms;
} StepEnd;

static int read_ends(Dataset *ds, const char *csv_path, KeyMap *map,
                     StepEnd **ends, size_t *n_ends, SimError *err)
{
    static const char *const need[] = {"participant", "trial", "correct",
                                       "rt_ms"};
    int col[4];
    SimCsvReader *r;
    int rc = open_csv(csv_path, need, 4, col, &r, err);
    if (rc != SIM_OK || !r) {
        return rc;
    }
    SimCsvRecord rec;
    int got;
    size_t cap = 0;
    char a[512], b[64];
    while (rc == SIM_OK && (got = sim_csv_next(r, &rec, err)) == 1) {
        if (rec.n <= col[0] || rec.n <= col[1] || rec.n <= col[2] ||
            rec.n <= col[3]) {
            continue; /* the long format's reader reports short rows */
        }
        int p = dataset_intern(ds, field_str(&rec.fields[col[0]], a, sizeof a));
        int trial = atoi(field_str(&rec.fields[col[1]], b, sizeof b));
        if (p < 0 ||
            sim_grow((void **)ends, &cap, *n_ends + 1, sizeof **ends) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        int added;
        int at = keymap_get(map, compute_key2(p, trial), (int)*n_ends, &added);
        if (at < 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        field_str(&rec.fields[col[2]], b, sizeof b);
        StepEnd e = {b[0] ? atoi(b) != 0 : -1, NAN};
        field_str(&rec.fields[col[3]], b, sizeof b);
        if (b[0]) {
            e.rt_ms = strtod(b, NULL);
        }
        (*ends)[at] = e;
        if (added) {
            (*n_ends)++;
        }
    }
    if (rc == SIM_OK && got < 0) {
        rc = got;
    }
    sim_csv_close(r);
    return rc;
}

int interactions_load_csv(Dataset *ds, const char *csv_path, SimError *err)
{
    size_t n = strlen(csv_path);
    if (n >= 4 && strcmp(csv_path + n - 4, ".csv") == 0) {
        n -= 4;
    }
    char path[4096];
    if (snprintf(path, sizeof path, "%.*s.interactions.csv", (int)n,
                 csv_path) >= (int)sizeof path) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", csv_path);
    }
    static const char *const need[] = {"participant", "condition", "trial",
                                       "event", "t_ms"};
    int col[5];
    SimCsvReader *r;
    int rc = open_csv(path, need, 5, col, &r, err);
    if (rc != SIM_OK || !r) {
        return rc;
    }
    KeyMap map;
    memset(&map, 0, sizeof map);
    StepEnd *ends = NULL;
    size_t n_ends = 0;
    rc = read_ends(ds, csv_path, &map, &ends, &n_ends, err);
    Fold f;
    memset(&f, 0, sizeof f);
    SimCsvRecord rec;
    int got = 0;
    char v[5][512];
    while (rc == SIM_OK && (got = sim_csv_next(r, &rec, err)) == 1) {
        for (int k = 0; k < 5 && rc == SIM_OK; k++) {
            if (col[k] >= rec.n) {
                rc = sim_fail(err, SIM_ERR_INVALID,
                              "%s:%ld: column '%s': missing (the record has "
                              "%d fields)",
                              path, rec.line, need[k], rec.n);
            } else {
                field_str(&rec.fields[col[k]], v[k], sizeof v[k]);
            }
        }
        char *end = NULL;
        double t = rc == SIM_OK ? strtod(v[4], &end) : 0;
        if (rc == SIM_OK && (!end || end == v[4] || *end || !isfinite(t))) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column 't_ms': '%s' is not a number", path,
                          rec.line, v[4]);
        }
        if (rc != SIM_OK) {
            break;
        }
        int trial = atoi(v[2]);
        rc = fold_step(ds, &f, v[0], v[1], trial, err);
        int at = keymap_find(&map, compute_key2(f.participant, trial));
        f.correct = at >= 0 ? ends[at].correct : -1;
        f.end_ms = at >= 0 ? ends[at].rt_ms : NAN;
        fold_event(&f, v[3], t);
    }
    if (rc == SIM_OK && got < 0) {
        rc = got;
    }
    if (rc == SIM_OK) {
        rc = fold_close(ds, &f, err);
    }
    sim_csv_close(r);
    keymap_free(&map);
    sim_free(ends);
    return rc;
}

/* ------------------------------------------------------------- summary */

static const TableColumn VIEW_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n_participants", NULL, "participants", TABLE_INT, "", 0, 0, 0},
    {"n_offered", NULL, "steps offered", TABLE_INT, "", 0, 0, 0},
    {"viewed_rate", NULL, "viewed", TABLE_PERCENT, "", 1, 0, 0},
    {"median_view_ms", NULL, "median view (ms)", TABLE_REAL, "ms", 0, 0, 0},
    {"n_scored_viewed", NULL, "scored, viewed", TABLE_INT, "", 0, 0, 0},
    {"accuracy_viewed", NULL, "accuracy viewed", TABLE_PERCENT, "", 1, 0, 0},
    {"n_scored_not_viewed", NULL, "scored, not viewed", TABLE_INT, "", 0, 0, 0},
    {"accuracy_not_viewed", NULL, "accuracy not viewed", TABLE_PERCENT, "", 1,
     0, 0},
};

#define N_VIEW_COLS (sizeof VIEW_COLS / sizeof VIEW_COLS[0])

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int compute_interactions(const Dataset *ds, const Screen *sc, Report *r,
                         SimError *err)
{
    const struct DatasetViews *V = ds->views;
    if (!V || V->n == 0) {
        return SIM_OK;
    }
    int max_id = 0;
    for (int p = 0; p < ds->n_participants; p++) {
        max_id = ds->participants[p].name > max_id ? ds->participants[p].name
                                                   : max_id;
    }
    int *pidx = sim_malloc(((size_t)max_id + 1) * sizeof *pidx);
    double *ms = sim_malloc(V->n * sizeof *ms);
    int *seen = sim_calloc((size_t)max_id + 1, sizeof *seen);
    Table *t =
        report_add_table(r, "interactions", TABLE_MD | TABLE_CSV | TABLE_JSON,
                         VIEW_COLS, (int)N_VIEW_COLS);
    if (!pidx || !ms || !seen || !t || table_set_json_path(t, "interactions")) {
        sim_free(pidx);
        sim_free(ms);
        sim_free(seen);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i <= max_id; i++) {
        pidx[i] = -1;
    }
    for (int p = 0; p < ds->n_participants; p++) {
        pidx[ds->participants[p].name] = p;
    }
    table_set_title(t, 2, "Explanations on request and on hover");
    table_set_note(t, "Steps that offered an explanation on request (or its "
                      "values on hover), of screened participants: the share "
                      "viewed, the median time shown on the steps viewed "
                      "(revealed to hidden, or to the response), and the "
                      "accuracy on scored steps with and without a view.");
    for (int ci = 0; ci < sc->n_conds; ci++) {
        int cond = sc->conds[ci];
        int offered = 0, viewed = 0, n_ms = 0, parts = 0;
        int sv = 0, cv = 0, sn = 0, cn = 0;
        for (size_t i = 0; i < V->n; i++) {
            const IView *x = &V->v[i];
            int p = x->participant <= max_id ? pidx[x->participant] : -1;
            if (x->condition != cond || p < 0 || !sc->keep[p]) {
                continue;
            }
            if (seen[x->participant] != ci + 1) {
                seen[x->participant] = ci + 1;
                parts++;
            }
            offered++;
            if (x->viewed) {
                viewed++;
                ms[n_ms++] = x->view_ms;
            }
            if (x->correct >= 0) {
                if (x->viewed) {
                    sv++;
                    cv += x->correct;
                } else {
                    sn++;
                    cn += x->correct;
                }
            }
        }
        if (offered == 0) {
            continue;
        }
        double median = NAN;
        if (n_ms > 0) {
            qsort(ms, (size_t)n_ms, sizeof *ms, cmp_double);
            median =
                n_ms % 2 ? ms[n_ms / 2] : (ms[n_ms / 2 - 1] + ms[n_ms / 2]) / 2;
        }
        table_add_row(t);
        table_put_text(t, dataset_str(ds, cond));
        table_put_num(t, parts);
        table_put_num(t, offered);
        table_put_num(t, (double)viewed / offered);
        table_put_num(t, median);
        table_put_num(t, sv);
        table_put_num(t, sv ? (double)cv / sv : NAN);
        table_put_num(t, sn);
        table_put_num(t, sn ? (double)cn / sn : NAN);
    }
    sim_free(pidx);
    sim_free(ms);
    sim_free(seen);
    return SIM_OK;
}
