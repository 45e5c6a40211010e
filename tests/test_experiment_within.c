/*
** Within-subject designs: the Williams orders (each condition once per
** position; each ordered pair adjacent equally often) and the choice of a
** participant's order without a store (least-filled row, ties to the lowest
** row, override, random from the seed, fixed rotated); schedules that repeat
** the blocks of examples/within once per condition with items of their own
** (and with earlier items reused when a pool runs short), session
** designs (session t shows the t-th condition, reservoirs per session); and
** the store: rows handed out in enrollment order, a dropout's row taken
** again, random orders as the start screen shows them, the order and each
** step's condition stored, read back and shown in
** long_format; a version 2 file migrates (no step condition of its own:
** long_format gives the participant's).
*/
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "common/sim_alloc.h"
#include "experiment/assign.h"
#include "experiment/schedule.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <sqlite3.h>
#include <string.h>

#define MAX_N 9

/* ------------------------------------------------------------ Williams */

static void test_williams(void)
{
    CHECK_INT((int)assign_williams_rows(0), 0);
    CHECK_INT((int)assign_williams_rows(1), 1);
    CHECK_INT((int)assign_williams_rows(2), 2);
    CHECK_INT((int)assign_williams_rows(3), 6);
    CHECK_INT((int)assign_williams_rows(4), 4);
    CHECK_INT((int)assign_williams_rows(5), 10);
    for (size_t n = 2; n <= MAX_N; n++) {
        size_t rows = assign_williams_rows(n);
        int at[MAX_N][MAX_N];   /* [condition][position] */
        int pair[MAX_N][MAX_N]; /* [a][b]: a directly before b */
        memset(at, 0, sizeof at);
        memset(pair, 0, sizeof pair);
        int perm_ok = 1;
        for (size_t r = 0; r < rows; r++) {
            int order[MAX_N], seen[MAX_N] = {0};
            assign_williams_row(n, r, order);
            for (size_t k = 0; k < n; k++) {
                if (order[k] < 0 || (size_t)order[k] >= n || seen[order[k]]) {
                    perm_ok = 0;
                    continue;
                }
                seen[order[k]] = 1;
                at[order[k]][k]++;
                if (k > 0) {
                    pair[order[k - 1]][order[k]]++;
                }
            }
        }
        CHECK(perm_ok);
        int per_position = (int)(rows / n);
        int per_pair = n % 2 == 0 ? 1 : 2;
        int pos_ok = 1, pair_ok = 1;
        for (size_t a = 0; a < n; a++) {
            for (size_t b = 0; b < n; b++) {
                pos_ok &= at[a][b] == per_position;
                pair_ok &= a == b ? pair[a][b] == 0 : pair[a][b] == per_pair;
            }
        }
        if (!pos_ok || !pair_ok) {
            fprintf(stderr, "n = %zu: positions %d, pairs %d\n", n, pos_ok,
                    pair_ok);
        }
        CHECK(pos_ok);
        CHECK(pair_ok);
    }
    int order[4];
    assign_williams_row(4, 0, order);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 3 && order[3] == 2);
    assign_williams_row(4, 1, order);
    CHECK(order[0] == 1 && order[1] == 2 && order[2] == 0 && order[3] == 3);
}

/* A study of n conditions c0, c1, ... with mode within and the given
** order; only what assign.c reads. */
static void fake_study(Study *st, Condition *conds, char ids[][24], size_t n,
                       WithinOrder order)
{
    memset(st, 0, sizeof *st);
    for (size_t c = 0; c < n; c++) {
        snprintf(ids[c], 24, "c%zu", c);
        memset(&conds[c], 0, sizeof conds[c]);
        conds[c].id = ids[c];
    }
    st->conditions = conds;
    st->n_conditions = n;
    st->assignment.mode = ASSIGN_MODE_WITHIN;
    st->assignment.order = order;
}

static void test_choose_order(void)
{
    Study st;
    Condition conds[4];
    char ids[4][24];
    int order[4], row = 0;

    /* latin square: rows in enrollment order, a freed row first */
    fake_study(&st, conds, ids, 4, WITHIN_LATIN_SQUARE);
    AssignCount counts[4];
    memset(counts, 0, sizeof counts);
    for (int k = 0; k < 4; k++) {
        CHECK_INT(assign_choose_order(&st, counts, NULL, 9, order, &row), 0);
        CHECK_INT(row, k);
        counts[row].active++;
    }
    CHECK_INT(assign_choose_order(&st, counts, NULL, 9, order, &row), 0);
    CHECK_INT(row, 0);  /* all filled once: the lowest row again */
    counts[2].active--; /* participant of row 2 dropped out */
    CHECK_INT(assign_choose_order(&st, counts, NULL, 9, order, &row), 0);
    CHECK_INT(row, 2);
    int want[4];
    assign_williams_row(4, 2, want);
    CHECK(memcmp(order, want, sizeof want) == 0);

    /* override: the least-filled row starting with that condition */
    memset(counts, 0, sizeof counts);
    CHECK_INT(assign_choose_order(&st, counts, "c3", 9, order, &row), 0);
    CHECK_INT(order[0], 3);
    assign_williams_row(4, (size_t)row, want);
    CHECK_INT(want[0], 3);
    CHECK_INT(assign_choose_order(&st, counts, "nope", 9, order, &row), -1);

    /* random: a permutation from the seed, the same for the same seed */
    fake_study(&st, conds, ids, 4, WITHIN_RANDOM);
    int again[4];
    CHECK_INT(assign_choose_order(&st, NULL, NULL, 1234, order, &row), 0);
    CHECK_INT(row, -1);
    assign_choose_order(&st, NULL, NULL, 1234, again, &row);
    CHECK(memcmp(order, again, sizeof again) == 0);
    int seen[4] = {0}, distinct = 0;
    for (int k = 0; k < 4; k++) {
        seen[order[k]]++;
    }
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1);
    /* different seeds give different orders (24 orders, 50 seeds) */
    int first_counts[4] = {0};
    for (uint64_t s = 1; s <= 50; s++) {
        assign_random_order(4, s, again);
        distinct += memcmp(order, again, sizeof again) != 0;
        first_counts[again[0]]++;
    }
    CHECK(distinct > 30);
    for (int c = 0; c < 4; c++) {
        CHECK(first_counts[c] > 3);
    }
    assign_choose_order(&st, NULL, "c2", 1234, again, &row);
    CHECK_INT(again[0], 2);

    /* fixed: the listed order, rotated by an override */
    fake_study(&st, conds, ids, 4, WITHIN_FIXED);
    assign_choose_order(&st, NULL, NULL, 5, order, &row);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3);
    CHECK_INT(row, -1);
    assign_choose_order(&st, NULL, "c2", 5, order, &row);
    CHECK(order[0] == 2 && order[1] == 3 && order[2] == 0 && order[3] == 1);
}

/* ------------------------------------------------------------ schedules */

static Study *load_example(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/../../examples/within", SIMLAB_TEST_DATA);
    Study *study = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    if (study_load(dir, &study, &rep, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
    }
    CHECK_INT((int)rep.n_warnings, 0);
    study_report_free(&rep);
    return study;
}

/* Steps of block id in condition cond; their item keys to keys. */
static size_t block_items(const Schedule *s, const Study *st, const char *id,
                          const char *cond, const char **keys, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_trials; i++) {
        const Trial *t = &s->trials[i];
        if (strcmp(st->blocks[t->block].id, id) == 0 &&
            strcmp(trial_condition(s, t), cond) == 0 && n < max) {
            keys[n++] = t->item_key;
        }
    }
    return n;
}

static int count_distinct(const char **keys, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = 0; j < i; j++) {
            dup |= strcmp(keys[i], keys[j]) == 0;
        }
        d += !dup;
    }
    return d;
}

static void test_repeated(void)
{
    Study *st = load_example();
    CHECK(st != NULL);
    if (!st) {
        return;
    }
    CHECK_INT(st->assignment.mode, ASSIGN_MODE_WITHIN);
    size_t first = 0, last = 0;
    CHECK(study_within_range(st, &first, &last));
    CHECK_STR(st->blocks[first].id, "learn");
    CHECK_STR(st->blocks[last].id, "next"); /* the break after the test */

    const char *order[] = {"SHAP", "baseline", "LIME"};
    Schedule *s = NULL;
    SimError err;
    CHECK_INT(schedule_build_within(st, order, 3, 77, &s, &err), SIM_OK);
    if (!s) {
        study_free(st);
        return;
    }
    CHECK_STR(s->condition, "SHAP");
    /* consent, instructions, 3 x (4 learn + 6 test + break) without the
    ** last break, debrief */
    CHECK_INT((int)s->n_trials, 2 + 3 * 11 - 1 + 1);
    CHECK_STR(st->blocks[s->trials[s->n_trials - 2].block].id, "test");
    const char *keys[64];
    size_t n_all = 0;
    for (int c = 0; c < 3; c++) {
        size_t nl = block_items(s, st, "learn", order[c], keys + n_all, 4);
        CHECK_INT((int)nl, 4);
        n_all += nl;
        size_t nt = block_items(s, st, "test", order[c], keys + n_all, 6);
        CHECK_INT((int)nt, 6);
        n_all += nt;
    }
    CHECK_INT(count_distinct(keys, n_all), 30); /* no item repeats */
    /* the parts come in the participant's order, each with its method */
    int part = 0, ok_order = 1, ok_expl = 1;
    for (size_t i = 0; i < s->n_trials; i++) {
        const Trial *t = &s->trials[i];
        const char *c = trial_condition(s, t);
        if (strcmp(st->blocks[t->block].id, "learn") == 0 &&
            t->index_in_block == 0) {
            ok_order &= strcmp(c, order[part++]) == 0;
        }
        if (strcmp(st->blocks[t->block].id, "learn") == 0) {
            ok_expl &= t->show.explanation == (strcmp(c, "baseline") != 0);
        }
        CHECK(t->condition != NULL);
    }
    CHECK(ok_order);
    CHECK(ok_expl);
    CHECK_STR(trial_condition(s, &s->trials[0]), "SHAP");
    CHECK_STR(trial_condition(s, &s->trials[s->n_trials - 1]), "LIME");

    /* study-drawn items follow positions: another order, the same sets */
    const char *other[] = {"LIME", "SHAP", "baseline"};
    Schedule *s2 = NULL;
    CHECK_INT(schedule_build_within(st, other, 3, 5, &s2, &err), SIM_OK);
    for (int c = 0; s2 && c < 3; c++) {
        const char *a[6], *b[6];
        block_items(s, st, "test", order[c], a, 6);
        block_items(s2, st, "test", other[c], b, 6);
        int same = 0;
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 6; j++) {
                same += strcmp(a[i], b[j]) == 0;
            }
        }
        CHECK_INT(same, 6);
    }
    schedule_free(s2);

    /* the between-subject build is untouched: no step has a condition */
    Schedule *one = NULL;
    CHECK_INT(schedule_build(st, "LIME", 77, &one, &err), SIM_OK);
    int none = 1;
    for (size_t i = 0; one && i < one->n_trials; i++) {
        none &= one->trials[i].condition == NULL;
    }
    CHECK(none);
    schedule_free(one);

    /* a pool too small: 3 x 8 test items from 18, the rest reused */
    Block *test = (Block *)study_find_block(st, "test");
    test->n_items = 8;
    Schedule *s3 = NULL;
    CHECK_INT(schedule_build_within(st, order, 3, 77, &s3, &err), SIM_OK);
    if (s3) {
        const char *tk[24];
        size_t nt = 0;
        for (int c = 0; c < 3; c++) {
            size_t k = block_items(s3, st, "test", order[c], tk + nt, 8);
            CHECK_INT((int)k, 8);
            CHECK_INT(count_distinct(tk + nt, k), 8); /* none twice in one */
            nt += k;
        }
        CHECK_INT(count_distinct(tk, 16), 16); /* the first two: fresh */
        CHECK_INT(count_distinct(tk, 24), 18); /* every item of the pool */
    }
    schedule_free(s3);
    test->n_items = 20; /* more than the pool: refused as before */
    Schedule *s4 = NULL;
    CHECK_INT(schedule_build_within(st, order, 3, 77, &s4, &err),
              SIM_ERR_INVALID);
    CHECK(s4 == NULL);
    schedule_free(s);
    study_free(st);
}

static void test_sessions(void)
{
    Study *st = test_study_load("mini-meta");
    CHECK(st != NULL);
    if (!st) {
        return;
    }
    st->assignment.mode = ASSIGN_MODE_WITHIN;
    const char *order[] = {"grad", "baseline", "control"};
    Schedule *s = NULL;
    SimError err;
    CHECK_INT(schedule_build_within(st, order, 3, 11, &s, &err), SIM_OK);
    Schedule *b = NULL;
    CHECK_INT(schedule_build(st, "grad", 11, &b, &err), SIM_OK);
    if (!s || !b) {
        schedule_free(s);
        schedule_free(b);
        study_free(st);
        return;
    }
    /* the same steps and items as a between-subject participant */
    CHECK_INT((int)s->n_trials, (int)b->n_trials);
    int same_items = 1, cond_ok = 1, expl_ok = 1, res_ok = 1;
    int first_session = -1;
    for (size_t i = 0; i < st->n_blocks && first_session < 0; i++) {
        if (st->blocks[i].session > 0) {
            first_session = (int)i;
        }
    }
    CHECK(first_session > 0);
    for (size_t i = 0; i < s->n_trials && i < b->n_trials; i++) {
        const Trial *t = &s->trials[i];
        const Block *blk = &st->blocks[t->block];
        same_items &= (t->item_key == NULL) == (b->trials[i].item_key == NULL);
        if (t->item_key && b->trials[i].item_key) {
            same_items &= strcmp(t->item_key, b->trials[i].item_key) == 0;
        }
        const char *c = trial_condition(s, t);
        if (blk->session > 0) {
            cond_ok &= strcmp(c, order[blk->session - 1]) == 0;
            if (blk->show.explanation) {
                expl_ok &= t->show.explanation == (strcmp(c, "baseline") != 0);
            }
        } else if (t->block < first_session) {
            cond_ok &= strcmp(c, "grad") == 0; /* before the sessions */
        }
        if (t->reservoir >= 0) {
            const char *keys[16];
            size_t n = schedule_reservoir(s, t, keys, 16);
            res_ok &= n == (size_t)st->blocks[t->reservoir].n_items;
        }
    }
    CHECK(same_items);
    CHECK(cond_ok);
    CHECK(expl_ok);
    CHECK(res_ok);
    schedule_free(s);
    schedule_free(b);
    study_free(st);
}

/* ------------------------------------------------------------ the store */

static int sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static void test_store(void)
{
    Study *st = load_example();
    if (!st) {
        return;
    }
    char tmp[256], path[300];
    test_tmpdir(tmp, sizeof tmp, "within");
    snprintf(path, sizeof path, "%s/w.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (!store) {
        study_free(st);
        return;
    }
    char pids[8][37];
    int rows[8];
    for (int k = 0; k < 7; k++) {
        EnrollSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.seed = (uint64_t)(100 + k);
        spec.wall_ms = 2000 + k;
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_OK);
        snprintf(pids[k], sizeof pids[k], "%s", info.id);
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT order_row FROM participant WHERE id = '%s'", info.id);
        rows[k] = sql_int(store_db(store), sql);
        int order[3];
        assign_williams_row(3, (size_t)rows[k], order);
        CHECK_STR(info.condition, st->conditions[order[0]].id);
        if (k == 5) { /* participant 2 drops out: their row is free */
            CHECK_INT(
                store_set_status(store, pids[2], PSTATUS_ABORTED, 2100, &err),
                SIM_OK);
        }
    }
    /* rows 0..5 in enrollment order, then the aborted participant's row */
    for (int k = 0; k < 6; k++) {
        CHECK_INT(rows[k], k);
    }
    CHECK_INT(rows[6], 2);
    sqlite3 *db = store_db(store);
    CHECK_INT(sql_int(db, "SELECT COUNT(DISTINCT condition_order) FROM "
                          "participant"),
              6);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM trial WHERE condition IS "
                          "NULL"),
              0);
    /* the stored schedule reads back with each step's condition */
    Schedule *s = NULL;
    CHECK_INT(store_load_schedule(store, pids[1], &s, &err), SIM_OK);
    Schedule *built = NULL;
    const char *order[3];
    int idx[3];
    assign_williams_row(3, 1, idx);
    for (int c = 0; c < 3; c++) {
        order[c] = st->conditions[idx[c]].id;
    }
    CHECK_INT(schedule_build_within(st, order, 3, 101, &built, &err), SIM_OK);
    int same = s && built && s->n_trials == built->n_trials;
    for (size_t i = 0; same && i < s->n_trials; i++) {
        same &= strcmp(trial_condition(s, &s->trials[i]),
                       trial_condition(built, &built->trials[i])) == 0;
    }
    CHECK(same);
    schedule_free(s);
    schedule_free(built);

    /* an override names the condition to start with */
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.condition = "LIME";
    spec.wall_ms = 3000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_OK);
    CHECK_STR(info.condition, "LIME");
    CHECK_STR(info.assigned_by, "override");
    spec.condition = "nope";
    CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_ERR_USAGE);

    /* long_format's condition is the step's */
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO response (participant, seq, response_id, "
             "recorded_ms) SELECT participant, seq, 'pos', 1 FROM trial "
             "WHERE participant = '%s'",
             pids[0]);
    CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "SELECT COUNT(DISTINCT condition) FROM long_format WHERE "
             "participant = '%s' AND phase = 'test'",
             pids[0]);
    CHECK_INT(sql_int(db, sql), 3);
    store_close(store);
    study_free(st);
    test_rmtree(tmp);
}

/* Random orders: what store_assign_condition() shows for a seed is the
** first condition of the participant enrolled with that assign_seed; the
** orders are permutations and vary with the seed. */
static void test_store_random(void)
{
    Study *st = load_example();
    if (!st) {
        return;
    }
    st->assignment.order = WITHIN_RANDOM;
    char tmp[256], path[300];
    test_tmpdir(tmp, sizeof tmp, "within-random");
    snprintf(path, sizeof path, "%s/r.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    int firsts[3] = {0, 0, 0}, truthful = 1;
    for (uint64_t k = 1; store && k <= 30; k++) {
        char shown[64];
        CHECK_INT(store_assign_condition(store, 0, 0, 2000, k * 7919u, shown,
                                         sizeof shown, &err),
                  SIM_OK);
        EnrollSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.seed = k;
        spec.assign_seed = k * 7919u;
        spec.wall_ms = 2000;
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_OK);
        truthful &= strcmp(shown, info.condition) == 0;
        firsts[study_condition_index(st, info.condition)]++;
    }
    CHECK(truthful);
    CHECK(firsts[0] > 2 && firsts[1] > 2 && firsts[2] > 2);
    if (store) {
        sqlite3 *db = store_db(store);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE "
                              "order_row IS NULL AND length(condition_order) "
                              "= length('baseline,LIME,SHAP')"),
                  30);
        CHECK(sql_int(db, "SELECT COUNT(DISTINCT condition_order) FROM "
                          "participant") >= 4);
        store_close(store);
    }
    study_free(st);
    test_rmtree(tmp);
}

/* A version 2 file (tests/data/experiment/store-v2.sql) migrates: its steps
** have no condition of their own, long_format gives the participant's. */
static void test_migration(void)
{
    char fixture[600], tmp[256], path[300];
    snprintf(fixture, sizeof fixture, "%s/experiment/store-v2.sql",
             SIMLAB_TEST_DATA);
    FILE *f = fopen(fixture, "rb");
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    char *sql = sim_calloc(1 << 20, 1);
    size_t n = sql ? fread(sql, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    CHECK(n > 0);
    test_tmpdir(tmp, sizeof tmp, "within-mig");
    snprintf(path, sizeof path, "%s/v2.db", tmp);
    sqlite3 *raw;
    CHECK_INT(sqlite3_open(path, &raw), SQLITE_OK);
    CHECK_INT(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    sim_free(sql);
    Study *fwd = test_study_load("mini-forward");
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, fwd, DURABILITY_FULL, 0, 2000, &store, &err),
              SIM_OK);
    if (store) {
        sqlite3 *db = store_db(store);
        CHECK_INT(sql_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM trial WHERE condition "
                              "IS NOT NULL"),
                  0);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM participant WHERE "
                              "condition_order IS NOT NULL OR order_row IS "
                              "NOT NULL"),
                  0);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format l JOIN "
                              "participant p ON p.id = l.participant WHERE "
                              "l.condition = p.condition"),
                  50);
        /* between-subject participants keep NULL step conditions */
        EnrollSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.seed = 3;
        spec.wall_ms = 3000;
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_OK);
        CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM trial WHERE condition "
                              "IS NOT NULL"),
                  0);
        Schedule *s = NULL;
        CHECK_INT(store_load_schedule(store, info.id, &s, &err), SIM_OK);
        CHECK(s && s->n_trials > 0 &&
              strcmp(trial_condition(s, &s->trials[0]), info.condition) == 0);
        schedule_free(s);
        store_close(store);
    }
    study_free(fwd);
    test_rmtree(tmp);
}

/* The start screen's order (store_preview_order) is the order the
** participant then enrolled gets: latin-square rows in turn, an override
** first, the stored condition_order in the same words; not in a
** between-subject study. */
static void test_preview_order(void)
{
    Study *st = load_example();
    if (!st) {
        return;
    }
    char tmp[256], path[300];
    test_tmpdir(tmp, sizeof tmp, "within-preview");
    snprintf(path, sizeof path, "%s/p.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    for (int k = 0; store && k < 8; k++) {
        const char *first = k == 5 ? st->conditions[1].id : NULL;
        char shown[256];
        int row = -2;
        CHECK_INT(store_preview_order(store, first, 0, 2000, 77, shown,
                                      sizeof shown, &row, &err),
                  SIM_OK);
        CHECK(row >= 0);
        EnrollSpec spec;
        memset(&spec, 0, sizeof spec);
        spec.seed = (uint64_t)k + 1;
        spec.assign_seed = 77;
        spec.condition = first;
        spec.wall_ms = 2000;
        ParticipantInfo info;
        CHECK_INT(store_enroll(store, &spec, &info, &err), SIM_OK);
        char q[200], stored[256] = "";
        snprintf(q, sizeof q,
                 "SELECT replace(condition_order, ',', ' \xE2\x86\x92 ') "
                 "FROM participant WHERE id = '%s'",
                 info.id);
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(store_db(store), q, -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW) {
            snprintf(stored, sizeof stored, "%s",
                     (const char *)sqlite3_column_text(s, 0));
        }
        sqlite3_finalize(s);
        CHECK_STR(shown, stored);
        if (first) {
            CHECK(strncmp(shown, first, strlen(first)) == 0);
        }
    }
    store_close(store);
    st->assignment.mode = ASSIGN_MODE_BETWEEN;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    char shown[64];
    int row;
    CHECK_INT(store_preview_order(store, NULL, 0, 2000, 1, shown, sizeof shown,
                                  &row, &err),
              SIM_ERR_STATE);
    store_close(store);
    study_free(st);
    test_rmtree(tmp);
}

int main(void)
{
    test_williams();
    test_choose_order();
    test_repeated();
    test_sessions();
    test_store();
    test_store_random();
    test_preview_order();
    test_migration();
    return TEST_REPORT();
}
