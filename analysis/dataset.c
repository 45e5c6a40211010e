/*
** The Dataset: its string pool, participants and contexts, the row
** converter and the value parsers that every reader shares (the CSV reader
** in dataset_csv.c, the SQLite readers in dataset_sqlite.c, through
** dataset_int.h), and what the sources state about the study: the rating
** scale and the baseline. Every parse error names the source, the line (or
** row) and the column. Depends on libc, jansson and common/.
*/
#include "analysis/dataset.h"
#include "analysis/dataset_int.h"
#include "analysis/answers.h"
#include "analysis/views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/keymap.h"
#include "common/sim_columns.h"
#include "common/sim_metrics.h"
#include "common/sim_alloc.h"
#include "common/sim_phase.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

/* The id of the last value seen in one column, to skip the hash lookup
** when a column repeats itself from row to row. */
typedef struct Cache {
    int id; /* -1: empty */
    size_t n;
    char s[64];
} Cache;

/* ------------------------------------------------------------------ */
/* String pool: open addressing on FNV-1a hashes                       */

struct StrPool {
    char **strs; /* id -> string (owned) */
    int n, cap;
    int *slots; /* hash slot -> id, -1 when empty */
    size_t n_slots;
};

/* Reader state kept between rows and sources. */
struct DatasetLoad {
    Cache cache[5];   /* participant, condition, item, test_type, domain */
    Cache items[256]; /* item ids, direct-mapped by hash */
    Cache reason;
    int last_name, last_participant; /* participant_of() cache */
    Cache phase;                     /* id: the SimPhase of s */
    int rating_max;                  /* largest rating read */
    int rating_stated;               /* a source stated rating_points */
    char rating_max_source[512];     /* where rating_max was read */
    char rating_source[512];         /* who stated the scale */
    DatasetContext last_ctx;         /* context_of() cache */
    int last_ctx_id;                 /* -1: none */
    int *ctx_slots;                  /* hash slot -> context, -1 empty */
    size_t n_ctx_slots;
};

_Static_assert(sizeof(DatasetResponse) == 16, "a response takes 16 bytes");

/* a[0..n) == b[0..n); short values compare faster inline than by memcmp */
static int same(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) {
            return 0;
        }
    }
    return 1;
}

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
        size_t h =
            (size_t)dataset_hash_bytes(p->strs[id], strlen(p->strs[id])) &
            (n_slots - 1);
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

static int pool_find(const StrPool *p, const char *s, size_t n, size_t *slot)
{
    size_t h = (size_t)dataset_hash_bytes(s, n) & (p->n_slots - 1);
    while (p->slots[h] >= 0) {
        const char *t = p->strs[p->slots[h]];
        if (same(t, s, n) && t[n] == '\0') {
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

/* Interns the n bytes at s (no NUL among them). */
int dataset_intern_n(Dataset *ds, const char *s, size_t n)
{
    StrPool *p = ds->pool;
    size_t slot;
    int id = pool_find(p, s, n, &slot);
    if (id >= 0) {
        return id;
    }
    if ((size_t)(p->n + 1) * 2 > p->n_slots) {
        if (pool_rehash(p, p->n_slots * 2) != 0) {
            return -1;
        }
        pool_find(p, s, n, &slot);
    }
    if (p->n == p->cap) {
        size_t cap = (size_t)p->cap;
        if (sim_grow((void **)&p->strs, &cap, (size_t)p->n + 1,
                     sizeof *p->strs) != 0) {
            return -1;
        }
        p->cap = (int)cap;
    }
    char *copy = sim_malloc(n + 1);
    if (!copy) {
        return -1;
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    p->strs[p->n] = copy;
    p->slots[slot] = p->n;
    return p->n++;
}

int dataset_intern(Dataset *ds, const char *s)
{
    return dataset_intern_n(ds, s, strlen(s));
}

static int intern_cached(Dataset *ds, Cache *c, Val v)
{
    if (c->id >= 0 && v.n == c->n && same(v.p, c->s, v.n)) {
        return c->id;
    }
    int id = dataset_intern_n(ds, v.p, v.n);
    c->id = -1;
    if (id >= 0 && v.n <= sizeof c->s) {
        memcpy(c->s, v.p, v.n);
        c->n = v.n;
        c->id = id;
    }
    return id;
}

const char *dataset_str(const Dataset *ds, int id)
{
    return id >= 0 && id < ds->pool->n ? ds->pool->strs[id] : "";
}

int dataset_find(const Dataset *ds, const char *s)
{
    return pool_find(ds->pool, s, strlen(s), NULL);
}

void dataset_reset_caches(struct DatasetLoad *ld)
{
    for (int i = 0; i < 5; i++) {
        ld->cache[i].id = -1;
    }
    ld->reason.id = -1;
    ld->phase.id = -1;
    for (int i = 0; i < 256; i++) {
        ld->items[i].id = -1;
    }
    ld->last_name = -1;
    ld->last_participant = -1;
    ld->last_ctx_id = -1;
}

int dataset_new(Dataset **out, SimError *err)
{
    *out = NULL;
    Dataset *ds = sim_calloc(1, sizeof *ds);
    if (!ds || !(ds->pool = sim_calloc(1, sizeof *ds->pool)) ||
        pool_rehash(ds->pool, 1024) != 0 || dataset_intern(ds, "") != 0 ||
        !(ds->pindex = sim_calloc(1, sizeof *ds->pindex)) ||
        !(ds->load = sim_calloc(1, sizeof *ds->load))) {
        dataset_free(ds);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    dataset_reset_caches(ds->load);
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
    answers_free(ds->answers);
    views_free(ds->views);
    if (ds->pindex) {
        keymap_free(ds->pindex);
        sim_free(ds->pindex);
    }
    if (ds->load) {
        sim_free(ds->load->ctx_slots);
    }
    sim_free(ds->load);
    sim_free(ds->rows);
    sim_free(ds->contexts);
    sim_free(ds->rt_ms);
    sim_free(ds->trials);
    sim_free(ds->participants);
    sim_free(ds->baseline);
    sim_free(ds->baseline_from);
    sim_free(ds->baseline_conflict);
    sim_free(ds->analysis);
    sim_free(ds->analysis_from);
    sim_free(ds->analysis_conflict);
    sim_free(ds->study_hashes);
    sim_metrics_free(ds->metrics);
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

/* The columns the readers know, by their row of common/sim_columns.h. */
static const SimColumnId COL_IDS[COL_COUNT] = {
    [COL_PARTICIPANT] = SIM_COL_PARTICIPANT,
    [COL_CONDITION] = SIM_COL_CONDITION,
    [COL_PHASE] = SIM_COL_PHASE,
    [COL_ITEM] = SIM_COL_ITEM,
    [COL_CORRECT] = SIM_COL_CORRECT,
    [COL_SESSION] = SIM_COL_SESSION,
    [COL_TEST_TYPE] = SIM_COL_TEST_TYPE,
    [COL_DOMAIN] = SIM_COL_DOMAIN,
    [COL_IS_CATCH] = SIM_COL_IS_CATCH,
    [COL_RATING] = SIM_COL_RATING,
    [COL_RT_MS] = SIM_COL_RT_MS,
    [COL_PILOT] = SIM_COL_PILOT,
    [COL_SIMULATED] = SIM_COL_SIMULATED,
    [COL_EXCLUDED] = SIM_COL_EXCLUDED,
    [COL_EXCLUSION_REASON] = SIM_COL_EXCLUSION_REASON,
    [COL_TIMED_OUT] = SIM_COL_TIMED_OUT,
    [COL_CONFIDENCE] = SIM_COL_CONFIDENCE,
    [COL_RESPONSE] = SIM_COL_RESPONSE,
    [COL_LABEL] = SIM_COL_LABEL,
    [COL_MODEL_OUTPUT] = SIM_COL_MODEL_OUTPUT,
};

/* The columns of verify and decide trials and answer options, read by
** name (docs/analysis.md "The long-format columns"); none is required. */
static const char *const COL_TRIAL_NAMES[COL_COUNT] = {
    [COL_MODEL_CORRECT] = "model_correct",
    [COL_ADVICE_SHOWN] = "advice_shown",
    [COL_FOLLOWED_ADVICE] = "followed_advice",
    [COL_N_OPTIONS] = "n_options",
};

const char *dataset_col_name(int col)
{
    return COL_TRIAL_NAMES[col] ? COL_TRIAL_NAMES[col]
                                : sim_column(COL_IDS[col])->name;
}

int dataset_col_required(int col)
{
    return COL_TRIAL_NAMES[col] ? 0 : sim_column(COL_IDS[col])->required;
}

static int bad_value(SimError *err, const Where *w, int col, const char *want,
                     Val got)
{
    int n = got.n > 60 ? 60 : (int)got.n;
    return sim_fail(err, SIM_ERR_PARSE,
                    "%s:%s%ld: column '%s': expected %s, got '%.*s'", w->source,
                    w->unit, w->line, dataset_col_name(col), want, n, got.p);
}

static int is(Val v, const char *s)
{
    size_t n = strlen(s);
    return v.n == n && same(v.p, s, n);
}

static int parse_flag(Val v, int *out)
{
    if (v.n == 1 && (v.p[0] == '0' || v.p[0] == '1')) {
        *out = v.p[0] - '0';
        return 0;
    }
    if (v.n == 0 || is(v, "false") || is(v, "FALSE")) {
        *out = 0;
        return 0;
    }
    if (is(v, "1") || is(v, "true") || is(v, "TRUE")) {
        *out = 1;
        return 0;
    }
    return -1;
}

/* Integer in [lo, hi] (optional sign, decimal digits), or 0 for empty. */
static int parse_int(Val v, int lo, int hi, int *out)
{
    *out = 0;
    if (v.n == 0) {
        return 0;
    }
    size_t i = 0;
    int neg = 0;
    if (v.p[0] == '+' || v.p[0] == '-') {
        neg = v.p[0] == '-';
        i = 1;
    }
    if (i == v.n) {
        return -1;
    }
    long long x = 0;
    for (; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9' || x > 100000000000LL) {
            return -1;
        }
        x = 10 * x + (v.p[i] - '0');
    }
    x = neg ? -x : x;
    if (x < lo || x > hi) {
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* Index of the participant called name (a string id), added when new. */
static int participant_of(Dataset *ds, int name)
{
    struct DatasetLoad *ld = ds->load;
    if (name == ld->last_name) {
        return ld->last_participant;
    }
    int added;
    int p = keymap_get(ds->pindex, (uint64_t)(uint32_t)name, ds->n_participants,
                       &added);
    if (p < 0) {
        return p;
    }
    if (added) {
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
    }
    ld->last_name = name;
    ld->last_participant = p;
    return p;
}

static size_t context_hash(const DatasetContext *c, size_t n_slots)
{
    uint64_t h = sim_mix64(((uint64_t)(uint32_t)c->test_type << 32) ^
                           (uint64_t)(uint32_t)c->domain) ^
                 sim_mix64((uint64_t)(uint32_t)c->session);
    return (size_t)h & (n_slots - 1);
}

static int context_rehash(struct DatasetLoad *ld, const Dataset *ds,
                          size_t n_slots)
{
    int *slots = sim_malloc(n_slots * sizeof *slots);
    if (!slots) {
        return -1;
    }
    for (size_t i = 0; i < n_slots; i++) {
        slots[i] = -1;
    }
    for (int id = 0; id < ds->n_contexts; id++) {
        size_t h = context_hash(&ds->contexts[id], n_slots);
        while (slots[h] >= 0) {
            h = (h + 1) & (n_slots - 1);
        }
        slots[h] = id;
    }
    sim_free(ld->ctx_slots);
    ld->ctx_slots = slots;
    ld->n_ctx_slots = n_slots;
    return 0;
}

/* The index of the context c in ds->contexts, added when new; -1 when out
** of memory, -2 when there are too many. */
static int context_of(Dataset *ds, const DatasetContext *c)
{
    struct DatasetLoad *ld = ds->load;
    if (ld->last_ctx_id >= 0 && c->test_type == ld->last_ctx.test_type &&
        c->domain == ld->last_ctx.domain &&
        c->session == ld->last_ctx.session) {
        return ld->last_ctx_id;
    }
    if ((size_t)(ds->n_contexts + 1) * 2 > ld->n_ctx_slots &&
        context_rehash(ld, ds, ld->n_ctx_slots ? 2 * ld->n_ctx_slots : 64) !=
            0) {
        return -1;
    }
    size_t h = context_hash(c, ld->n_ctx_slots);
    int id;
    while ((id = ld->ctx_slots[h]) >= 0) {
        const DatasetContext *x = &ds->contexts[id];
        if (x->test_type == c->test_type && x->domain == c->domain &&
            x->session == c->session) {
            break;
        }
        h = (h + 1) & (ld->n_ctx_slots - 1);
    }
    if (id < 0) {
        if (ds->n_contexts > DATASET_MAX_CONTEXTS) {
            return -2;
        }
        size_t cap = (size_t)ds->cap_contexts;
        if (ds->n_contexts == ds->cap_contexts &&
            sim_grow((void **)&ds->contexts, &cap, (size_t)ds->n_contexts + 1,
                     sizeof *ds->contexts) != 0) {
            return -1;
        }
        ds->cap_contexts = (int)cap;
        id = ds->n_contexts++;
        ds->contexts[id] = *c;
        ld->ctx_slots[h] = id;
    }
    ld->last_ctx = *c;
    ld->last_ctx_id = id;
    return id;
}

int dataset_mark(const Dataset *ds, DatasetMark *m)
{
    const struct DatasetLoad *ld = ds->load;
    memset(m, 0, sizeof *m);
    m->n_rows = ds->n_rows;
    m->n_participants = ds->n_participants;
    m->n_contexts = ds->n_contexts;
    m->n_strs = ds->pool->n;
    m->had_rt = ds->rt_ms != NULL;
    m->had_trials = ds->trials != NULL;
    m->verify_classes = ds->verify_classes;
    m->rating_max = ld->rating_max;
    memcpy(m->rating_max_source, ld->rating_max_source,
           sizeof m->rating_max_source);
    size_t n = (size_t)ds->n_participants;
    m->participants = sim_malloc((n ? n : 1) * sizeof *m->participants);
    if (!m->participants) {
        return -1;
    }
    if (n > 0) {
        memcpy(m->participants, ds->participants, n * sizeof *m->participants);
    }
    return 0;
}

int dataset_rollback(Dataset *ds, DatasetMark *m)
{
    struct DatasetLoad *ld = ds->load;
    StrPool *p = ds->pool;
    for (int id = m->n_strs; id < p->n; id++) {
        sim_free(p->strs[id]);
    }
    p->n = m->n_strs;
    ds->n_rows = m->n_rows;
    if (!m->had_rt && ds->rt_ms) {
        sim_free(ds->rt_ms);
        ds->rt_ms = NULL;
    }
    if (!m->had_trials && ds->trials) {
        sim_free(ds->trials);
        ds->trials = NULL;
    }
    ds->verify_classes = m->verify_classes;
    ds->n_participants = m->n_participants;
    if (m->n_participants > 0) {
        memcpy(ds->participants, m->participants,
               (size_t)m->n_participants * sizeof *ds->participants);
    }
    ds->n_contexts = m->n_contexts;
    ld->rating_max = m->rating_max;
    memcpy(ld->rating_max_source, m->rating_max_source,
           sizeof ld->rating_max_source);
    dataset_reset_caches(ld);
    keymap_free(ds->pindex);
    int rc = pool_rehash(p, p->n_slots);
    for (int i = 0; rc == 0 && i < ds->n_participants; i++) {
        int added;
        rc =
            keymap_get(ds->pindex, (uint64_t)(uint32_t)ds->participants[i].name,
                       i, &added) < 0
                ? -1
                : 0;
    }
    if (rc == 0 && ld->n_ctx_slots > 0) {
        rc = context_rehash(ld, ds, ld->n_ctx_slots);
    }
    dataset_mark_free(m);
    return rc;
}

void dataset_mark_free(DatasetMark *m)
{
    sim_free(m->participants);
    m->participants = NULL;
}

/* Stores the response time of row i (the rows before it without one). */
static int put_rt(Dataset *ds, size_t i, double t)
{
    if (!ds->rt_ms) {
        if (isnan(t)) {
            return 0;
        }
        ds->rt_ms =
            sim_malloc((ds->cap_rows ? ds->cap_rows : 1) * sizeof *ds->rt_ms);
        if (!ds->rt_ms) {
            return -1;
        }
        for (size_t k = 0; k < i; k++) {
            ds->rt_ms[k] = NAN;
        }
    }
    ds->rt_ms[i] = t;
    return 0;
}

/* Stores the trial columns of row i (NULL: none; the rows before it
** without any). */
static int put_trial(Dataset *ds, size_t i, const DatasetTrial *t)
{
    static const DatasetTrial none = {-1, 0, -1, -1, 0};
    if (!ds->trials) {
        if (!t) {
            return 0;
        }
        ds->trials =
            sim_malloc((ds->cap_rows ? ds->cap_rows : 1) * sizeof *ds->trials);
        if (!ds->trials) {
            return -1;
        }
        for (size_t k = 0; k < i; k++) {
            ds->trials[k] = none;
        }
    }
    ds->trials[i] = t ? *t : none;
    return 0;
}

/* The rating a row may carry: the stated scale, else 1..11. */
static int parse_rating(Dataset *ds, Val v, const Where *w, int *out,
                        SimError *err)
{
    struct DatasetLoad *ld = ds->load;
    int hi = ld->rating_stated ? ds->rating_points : DATASET_RATING_MAX;
    if (parse_int(v, 1, hi, out) == 0) {
        if (*out > ld->rating_max) {
            ld->rating_max = *out;
            snprintf(ld->rating_max_source, sizeof ld->rating_max_source,
                     "%s:%s%ld", w->source, w->unit, w->line);
        }
        return SIM_OK;
    }
    char want[600];
    int x;
    if (ld->rating_stated && parse_int(v, 1, DATASET_RATING_MAX, &x) == 0) {
        snprintf(want, sizeof want,
                 "an integer 1-%d (the %d-point scale of %s) or empty", hi, hi,
                 ld->rating_source);
    } else {
        snprintf(want, sizeof want, "an integer 1-%d or empty", hi);
    }
    return bad_value(err, w, COL_RATING, want, v);
}

/* Appends response r (all but its participant filled in) of the participant
** called name (a string id); flags: 1 pilot, 2 simulated, 4 excluded, as
** its row says; reason: the row's exclusion_reason. */
static int append_row(Dataset *ds, DatasetResponse r, int name, int flags,
                      int reason, double rt, const DatasetTrial *trial,
                      SimError *err)
{
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
    p->pilot |= flags & 1;
    p->simulated |= flags >> 1 & 1;
    p->excluded |= flags >> 2 & 1;
    if (p->reason == 0) {
        p->reason = reason;
    }
    r.participant = pi;
    if (ds->n_rows == ds->cap_rows) {
        size_t cap = ds->cap_rows;
        if (sim_grow((void **)&ds->rows, &cap, ds->n_rows + 1,
                     sizeof *ds->rows) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        if (ds->rt_ms) {
            double *t = sim_realloc(ds->rt_ms, cap * sizeof *t);
            if (!t) {
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            ds->rt_ms = t;
        }
        if (ds->trials) {
            DatasetTrial *t = sim_realloc(ds->trials, cap * sizeof *t);
            if (!t) {
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            ds->trials = t;
        }
        ds->cap_rows = cap;
    }
    if ((ds->rt_ms || !isnan(rt)) && put_rt(ds, ds->n_rows, rt) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if ((ds->trials || trial) && put_trial(ds, ds->n_rows, trial) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    ds->rows[ds->n_rows++] = r;
    return SIM_OK;
}

/* Converts one row of values (v[col].n == 0 when empty or absent) into a
** DatasetResponse and updates the participant table. */
int dataset_add_vals(Dataset *ds, const Val *v, const Where *w, SimError *err)
{
    struct DatasetLoad *ld = ds->load;
    for (int c = 0; c < COL_REQUIRED; c++) {
        if (c != COL_CORRECT && v[c].n == 0) {
            return bad_value(err, w, c, "a value", v[c]);
        }
    }
    DatasetResponse r;
    memset(&r, 0, sizeof r);
    Val pv = v[COL_PHASE];
    SimPhase phase = SIM_PHASE_NONE;
    if (ld->phase.id >= 0 && pv.n == ld->phase.n &&
        same(pv.p, ld->phase.s, pv.n)) {
        phase = (SimPhase)ld->phase.id;
    } else if (pv.n < sizeof ld->phase.s) {
        memcpy(ld->phase.s, pv.p, pv.n);
        ld->phase.s[pv.n] = '\0';
        ld->phase.n = pv.n;
        phase = sim_phase_from_name(ld->phase.s);
        ld->phase.id = phase == SIM_PHASE_NONE ? -1 : (int)phase;
    }
    if (phase == SIM_PHASE_NONE) {
        char phases[128];
        sim_phase_list(phases, sizeof phases);
        return bad_value(err, w, COL_PHASE, phases, v[COL_PHASE]);
    }
    r.phase = (unsigned)phase & 7u;
    int x;
    if (v[COL_CORRECT].n == 0) {
        r.correct = -1;
    } else if (parse_flag(v[COL_CORRECT], &x) == 0) {
        r.correct = x ? 1 : 0;
    } else {
        return bad_value(err, w, COL_CORRECT, "0, 1 or empty", v[COL_CORRECT]);
    }
    DatasetContext ctx;
    if (parse_int(v[COL_SESSION], 1, 1000000, &ctx.session) != 0) {
        return bad_value(err, w, COL_SESSION, "a positive integer or empty",
                         v[COL_SESSION]);
    }
    if (parse_flag(v[COL_IS_CATCH], &x) != 0) {
        return bad_value(err, w, COL_IS_CATCH, "0, 1 or empty",
                         v[COL_IS_CATCH]);
    }
    r.is_catch = (unsigned)x & 1u;
    int rc = parse_rating(ds, v[COL_RATING], w, &x, err);
    if (rc != SIM_OK) {
        return rc;
    }
    r.rating = (unsigned)x & 15u;
    if (parse_flag(v[COL_TIMED_OUT], &x) != 0) {
        return bad_value(err, w, COL_TIMED_OUT, "0, 1 or empty",
                         v[COL_TIMED_OUT]);
    }
    r.timed_out = (unsigned)x & 1u;
    if (r.timed_out) {
        r.correct = -1; /* a timeout is missing, never wrong */
    }
    if (parse_int(v[COL_CONFIDENCE], 1, DATASET_RATING_MAX, &x) != 0) {
        return bad_value(err, w, COL_CONFIDENCE, "an integer 1..11 or empty",
                         v[COL_CONFIDENCE]);
    }
    r.confidence = (unsigned)x & 15u;
    double rt = NAN;
    if (v[COL_RT_MS].n != 0) {
        char num[64], *end;
        double t = -1;
        if (v[COL_RT_MS].n < sizeof num) {
            memcpy(num, v[COL_RT_MS].p, v[COL_RT_MS].n);
            num[v[COL_RT_MS].n] = '\0';
            t = strtod(num, &end);
            t = *end == '\0' ? t : -1;
        }
        if (!isfinite(t) || t < 0) {
            return bad_value(err, w, COL_RT_MS,
                             "a non-negative number or empty", v[COL_RT_MS]);
        }
        rt = t;
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
    int name = intern_cached(ds, &ld->cache[0], v[COL_PARTICIPANT]);
    r.condition = intern_cached(ds, &ld->cache[1], v[COL_CONDITION]);
    Val iv = v[COL_ITEM];
    int item =
        intern_cached(ds, &ld->items[dataset_hash_bytes(iv.p, iv.n) & 255], iv);
    ctx.test_type = intern_cached(ds, &ld->cache[3], v[COL_TEST_TYPE]);
    ctx.domain = intern_cached(ds, &ld->cache[4], v[COL_DOMAIN]);
    int reason = intern_cached(ds, &ld->reason, v[COL_EXCLUSION_REASON]);
    if (name < 0 || r.condition < 0 || item < 0 || ctx.test_type < 0 ||
        ctx.domain < 0 || reason < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (item > DATASET_MAX_ITEM_ID) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s:%s%ld: column 'item': a new item after more "
                        "than %d distinct texts (participants, items, ...) "
                        "in the input",
                        w->source, w->unit, w->line, DATASET_MAX_ITEM_ID);
    }
    r.item = (unsigned)item & DATASET_MAX_ITEM_ID;
    int cx = context_of(ds, &ctx);
    if (cx == -2) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s:%s%ld: more than %d distinct combinations of "
                        "test_type, domain and session",
                        w->source, w->unit, w->line, DATASET_MAX_CONTEXTS);
    }
    if (cx < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r.context = (unsigned)cx & DATASET_MAX_CONTEXTS;
    DatasetTrial trial;
    int has = 0;
    rc = dataset_trial_vals(ds, v, w, &trial, &has, err);
    if (rc != SIM_OK) {
        return rc;
    }
    return append_row(ds, r, name, pilot | simulated << 1 | excluded << 2,
                      reason, rt, has ? &trial : NULL, err);
}

/* The values of a DbVals as the long_format view shows them (NULL: empty),
** for dataset_add_vals(). num holds the formatted numbers. */
static void db_vals_text(const DbVals *x, Val *v, char (*num)[32])
{
    for (int c = 0; c < COL_COUNT; c++) {
        v[c].p = "";
        v[c].n = 0;
        if (x->str[c]) {
            v[c].p = x->str[c]->p;
            v[c].n = x->str[c]->n;
        } else if (c == COL_RT_MS) {
            if (!isnan(x->rt_ms)) {
                int n = snprintf(num[c], sizeof num[c], "%.17g", x->rt_ms);
                v[c].p = num[c];
                v[c].n = (size_t)n;
            }
        } else if (x->num[c] != DB_NULL) {
            int n =
                snprintf(num[c], sizeof num[c], "%lld", (long long)x->num[c]);
            v[c].p = num[c];
            v[c].n = (size_t)n;
        }
    }
}

/* Adds the row x through the reader of text values (its result and its
** errors are the view's). */
static int add_as_text(Dataset *ds, const DbVals *x, const Where *w,
                       SimError *err)
{
    Val v[COL_COUNT];
    char num[COL_COUNT][32];
    db_vals_text(x, v, num);
    return dataset_add_vals(ds, v, w, err);
}

/* x->num[c] as 0 (NULL) or lo..hi; -1 when outside. */
static int db_int(const DbVals *x, int c, int lo, int hi)
{
    int64_t v = x->num[c];
    if (v == DB_NULL) {
        return 0;
    }
    return v >= lo && v <= hi ? (int)v : -1;
}

/* The pool id of a string value, interned on first use; 0 for NULL. */
static int db_str_id(Dataset *ds, DbStr *s)
{
    if (!s) {
        return 0;
    }
    if (s->id < 0) {
        s->id = dataset_intern_n(ds, s->p, s->n);
    }
    return s->id;
}

int dataset_add_db(Dataset *ds, const DbVals *x, const Where *w, SimError *err)
{
    struct DatasetLoad *ld = ds->load;
    DbStr *ph = x->str[COL_PHASE];
    int ok = 1;
    for (int c = 0; c < COL_REQUIRED; c++) {
        ok &= c == COL_CORRECT || (x->str[c] && x->str[c]->n > 0);
    }
    if (ok && ph->phase == -2) {
        ph->phase = ph->n < sizeof ld->phase.s ? (int)sim_phase_from_name(ph->p)
                                               : (int)SIM_PHASE_NONE;
    }
    const DbStr *tt = x->str[COL_TEST_TYPE];
    if (tt && dataset_trial_type(tt->p, tt->n)) {
        /* the tables reader gives way to the view, which has the columns
        ** of verify and decide trials */
        return sim_fail(err, SIM_ERR_STATE,
                        "%s:%s%ld: a verify or decide trial: its columns "
                        "are read through the view",
                        w->source, w->unit, w->line);
    }
    if (x->num[COL_N_OPTIONS] != DB_NULL) {
        /* a trial with answer options: its trial columns (n_options,
        ** model_correct) as the reader of text values takes them */
        return add_as_text(ds, x, w, err);
    }
    int correct =
        x->num[COL_CORRECT] == DB_NULL ? -1 : db_int(x, COL_CORRECT, 0, 1);
    DatasetContext ctx;
    ctx.session = db_int(x, COL_SESSION, 1, 1000000);
    int is_catch = db_int(x, COL_IS_CATCH, 0, 1);
    int hi = ld->rating_stated ? ds->rating_points : DATASET_RATING_MAX;
    int rating = db_int(x, COL_RATING, 1, hi);
    int timed_out = db_int(x, COL_TIMED_OUT, 0, 1);
    int confidence = db_int(x, COL_CONFIDENCE, 1, DATASET_RATING_MAX);
    int pilot = db_int(x, COL_PILOT, 0, 1);
    int simulated = db_int(x, COL_SIMULATED, 0, 1);
    int excluded = db_int(x, COL_EXCLUDED, 0, 1);
    double rt = x->rt_ms;
    ok = ok && ph->phase != (int)SIM_PHASE_NONE && correct >= -1 &&
         ctx.session >= 0 && is_catch >= 0 && rating >= 0 && timed_out >= 0 &&
         confidence >= 0 && pilot >= 0 && simulated >= 0 && excluded >= 0 &&
         (isnan(rt) || (isfinite(rt) && rt >= 0));
    if (!ok) { /* the reader of text values says what is wrong */
        return add_as_text(ds, x, w, err);
    }
    if (rating > ld->rating_max) {
        ld->rating_max = rating;
        snprintf(ld->rating_max_source, sizeof ld->rating_max_source,
                 "%s:%s%ld", w->source, w->unit, w->line);
    }
    DatasetResponse r;
    memset(&r, 0, sizeof r);
    r.phase = (unsigned)ph->phase & 7u;
    if (timed_out || correct < 0) {
        r.correct = -1;
    } else {
        r.correct = correct ? 1 : 0;
    }
    r.is_catch = (unsigned)is_catch & 1u;
    r.rating = (unsigned)rating & 15u;
    r.timed_out = (unsigned)timed_out & 1u;
    r.confidence = (unsigned)confidence & 15u;
    int name = db_str_id(ds, x->str[COL_PARTICIPANT]);
    r.condition = db_str_id(ds, x->str[COL_CONDITION]);
    int item = db_str_id(ds, x->str[COL_ITEM]);
    ctx.test_type = db_str_id(ds, x->str[COL_TEST_TYPE]);
    ctx.domain = db_str_id(ds, x->str[COL_DOMAIN]);
    int reason = db_str_id(ds, x->str[COL_EXCLUSION_REASON]);
    if (name < 0 || r.condition < 0 || item < 0 || ctx.test_type < 0 ||
        ctx.domain < 0 || reason < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int cx = item > DATASET_MAX_ITEM_ID ? -2 : context_of(ds, &ctx);
    if (cx == -2) {
        return add_as_text(ds, x, w, err);
    }
    if (cx < 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r.item = (unsigned)item & DATASET_MAX_ITEM_ID;
    r.context = (unsigned)cx & DATASET_MAX_CONTEXTS;
    return append_row(ds, r, name, pilot | simulated << 1 | excluded << 2,
                      reason, rt, NULL, err);
}

/* Maps header names to column slots; unknown names are ignored, and a
** required column that is missing is an error. */
int dataset_map_header(const Val *names, int n, int *col_of_field,
                       const Where *w, SimError *err)
{
    int seen[COL_COUNT] = {0};
    for (int f = 0; f < n; f++) {
        col_of_field[f] = -1;
        for (int c = 0; c < COL_COUNT; c++) {
            if (is(names[f], dataset_col_name(c))) {
                if (seen[c]) {
                    return sim_fail(err, SIM_ERR_PARSE,
                                    "%s:%s%ld: column '%s': appears twice",
                                    w->source, w->unit, w->line,
                                    dataset_col_name(c));
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
                            w->source, w->unit, w->line, dataset_col_name(c));
        }
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------ */
/* The rating scale                                                     */

/* After a file: the row arrays shrink to the rows (the spare capacity of
** the last doubling is given back). */
void dataset_fit_rows(Dataset *ds)
{
    if (ds->n_rows > 0 && ds->cap_rows > ds->n_rows) {
        DatasetResponse *rows =
            sim_realloc(ds->rows, ds->n_rows * sizeof *ds->rows);
        double *rt =
            ds->rt_ms ? sim_realloc(ds->rt_ms, ds->n_rows * sizeof *ds->rt_ms)
                      : NULL;
        DatasetTrial *tr =
            ds->trials
                ? sim_realloc(ds->trials, ds->n_rows * sizeof *ds->trials)
                : NULL;
        ds->rows = rows ? rows : ds->rows;
        ds->rt_ms = rt ? rt : ds->rt_ms;
        ds->trials = tr ? tr : ds->trials;
        ds->cap_rows = ds->n_rows; /* neither array is shorter */
    }
}

/* After a source: without a stated scale, the data's largest rating. */
void dataset_settle_scale(Dataset *ds)
{
    struct DatasetLoad *ld = ds->load;
    if (!ld->rating_stated) {
        ds->rating_points = ld->rating_max;
        ds->rating_from = ld->rating_max > 0 ? "data" : "";
    }
}

/* A source (who: "FILE (study 'ID')") states a points-point scale. */
int dataset_state_scale(Dataset *ds, int points, const char *from,
                        const char *who, SimError *err)
{
    struct DatasetLoad *ld = ds->load;
    if (points < 2 || points > DATASET_RATING_MAX) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: rating scale of %d points; expected 2-%d", who,
                        points, DATASET_RATING_MAX);
    }
    if (ld->rating_stated && points != ds->rating_points) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "the sources disagree about the rating scale: %s has "
                        "%d points, %s has %d",
                        ld->rating_source, ds->rating_points, who, points);
    }
    if (ld->rating_max > points) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "the sources disagree about the rating scale: %s has "
                        "%d points, but %s has a rating of %d",
                        who, points, ld->rating_max_source, ld->rating_max);
    }
    if (!ld->rating_stated) {
        snprintf(ld->rating_source, sizeof ld->rating_source, "%s", who);
    }
    ld->rating_stated = 1;
    ds->rating_points = points;
    ds->rating_from = from;
    return SIM_OK;
}

/* The rating scale of a study definition: its "rating"."points", or the
** study format's default of 7 points; -1 when not an integer. */
static int definition_points(json_t *def)
{
    json_t *points = json_object_get(json_object_get(def, "rating"), "points");
    if (!points) {
        return DATASET_RATING_DEFAULT;
    }
    return json_is_integer(points) ? (int)json_integer_value(points) : -1;
}

/* Keeps the first definition's baseline; a second that names another one
** is remembered as a conflict (the analysis refuses it unless --baseline
** chooses). */
static int state_baseline(Dataset *ds, json_t *def, const char *who)
{
    const char *b = json_string_value(json_object_get(def, "baseline"));
    if (!b || !b[0] || ds->baseline_conflict) {
        return 0;
    }
    if (!ds->baseline) {
        ds->baseline = sim_strdup(b);
        ds->baseline_from = sim_strdup(who);
        return ds->baseline && ds->baseline_from ? 0 : -1;
    }
    if (strcmp(ds->baseline, b) == 0) {
        return 0;
    }
    char msg[1200];
    snprintf(msg, sizeof msg,
             "the study definitions name different baselines: '%.100s' "
             "(%.400s) and '%.100s' (%.400s)",
             ds->baseline, ds->baseline_from, b, who);
    ds->baseline_conflict = sim_strdup(msg);
    return ds->baseline_conflict ? 0 : -1;
}

/* Keeps the first definition's "analysis" block as JSON text; another
** definition with a different block is remembered as a conflict. */
static int state_analysis(Dataset *ds, json_t *def, const char *who)
{
    json_t *a = json_object_get(def, "analysis");
    if (!a || ds->analysis_conflict) {
        return 0;
    }
    char *text = json_dumps(a, JSON_SORT_KEYS | JSON_COMPACT);
    if (!text) {
        return -1;
    }
    int rc = 0;
    if (!ds->analysis) {
        ds->analysis = sim_strdup(text);
        ds->analysis_from = sim_strdup(who);
        rc = ds->analysis && ds->analysis_from ? 0 : -1;
    } else if (strcmp(ds->analysis, text) != 0) {
        char msg[1200];
        snprintf(msg, sizeof msg,
                 "the study definitions hold different \"analysis\" blocks "
                 "(%.400s and %.400s); the first is used",
                 ds->analysis_from, who);
        ds->analysis_conflict = sim_strdup(msg);
        rc = ds->analysis_conflict ? 0 : -1;
    }
    free(text); /* jansson's allocator */
    return rc;
}

/* Remembers a study's bundle hash (distinct ones, in order). */
static int state_hash(Dataset *ds, const char *hash)
{
    if (!hash || strlen(hash) != 64) {
        return 0;
    }
    for (int i = 0; i < ds->n_study_hashes; i++) {
        if (strcmp(ds->study_hashes[i], hash) == 0) {
            return 0;
        }
    }
    size_t cap = (size_t)ds->n_study_hashes;
    if (sim_grow((void **)&ds->study_hashes, &cap, cap + 1,
                 sizeof *ds->study_hashes) != 0) {
        return -1;
    }
    snprintf(ds->study_hashes[ds->n_study_hashes++], 65, "%s", hash);
    return 0;
}

int dataset_state_study(Dataset *ds, json_t *def, const char *hash,
                        const char *from, const char *who, SimError *err)
{
    int rc = dataset_state_scale(ds, definition_points(def), from, who, err);
    if (rc == SIM_OK &&
        (state_baseline(ds, def, who) != 0 ||
         state_analysis(ds, def, who) != 0 || state_hash(ds, hash) != 0)) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    if (rc == SIM_OK) {
        rc = dataset_state_metrics(ds, def, who, err);
    }
    return rc;
}

int dataset_add(Dataset *ds, const DatasetRow *row, SimError *err)
{
    char num[8][32];
    const char *s[COL_COUNT] = {0};
    s[COL_PARTICIPANT] = row->participant;
    s[COL_CONDITION] = row->condition;
    s[COL_PHASE] = row->phase;
    s[COL_ITEM] = row->item;
    s[COL_TEST_TYPE] = row->test_type;
    s[COL_DOMAIN] = row->domain;
    s[COL_EXCLUSION_REASON] = row->exclusion_reason;
    s[COL_RESPONSE] = row->response;
    s[COL_LABEL] = row->label;
    s[COL_MODEL_OUTPUT] = row->model_output;
    s[COL_MODEL_CORRECT] = row->model_correct;
    s[COL_ADVICE_SHOWN] = row->advice_shown;
    s[COL_FOLLOWED_ADVICE] = row->followed_advice;
    char options[32];
    if (row->n_options > 0) {
        s[COL_N_OPTIONS] = sim_format_int(options, NULL, row->n_options);
    }
    int ints[8] = {row->correct,   row->session,   row->is_catch,
                   row->pilot,     row->simulated, row->excluded,
                   row->timed_out, row->confidence};
    int cols[8] = {COL_CORRECT,   COL_SESSION,  COL_IS_CATCH,  COL_PILOT,
                   COL_SIMULATED, COL_EXCLUDED, COL_TIMED_OUT, COL_CONFIDENCE};
    for (int i = 0; i < 8; i++) {
        if (ints[i] >= 0 && !(cols[i] == COL_SESSION && ints[i] == 0) &&
            !(cols[i] == COL_CONFIDENCE && ints[i] == 0)) {
            s[cols[i]] = sim_format_int(num[i], NULL, ints[i]);
        }
    }
    char rating[32], rt[48];
    if (row->rating > 0) {
        s[COL_RATING] = sim_format_int(rating, NULL, row->rating);
    }
    if (isfinite(row->rt_ms)) {
        snprintf(rt, sizeof rt, "%.17g", row->rt_ms);
        s[COL_RT_MS] = rt;
    }
    Val v[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++) {
        v[c].p = s[c] ? s[c] : "";
        v[c].n = strlen(v[c].p);
    }
    Where w = {"(memory)", "row ", (long)ds->n_rows + 1};
    int rc = dataset_add_vals(ds, v, &w, err);
    if (rc == SIM_OK) {
        dataset_settle_scale(ds);
    }
    return rc;
}

int dataset_state_rating_scale(Dataset *ds, int points, const char *source,
                               SimError *err)
{
    return dataset_state_scale(ds, points, "study", source, err);
}
