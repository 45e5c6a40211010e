/*
** Enrollment and schedule storage: counting who fills each condition for
** experiment/assign.h, storing a new participant with the whole schedule as
** trial rows in one transaction, and reading participants and schedules
** back. The assignment rules themselves live in assign.c, not here.
*/
#include "experiment/store_int.h"

#include "experiment/assign.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"

#include <uuid/uuid.h>

#include <string.h>

const char *participant_status_name(ParticipantStatus s)
{
    static const char *const names[] = {"active", "completed", "aborted",
                                        "declined", "screened_out"};
    return (unsigned)s < 5 ? names[s] : "active";
}

ParticipantStatus participant_status_parse(const char *s)
{
    for (int i = 0; i < 5; i++) {
        if (s &&
            strcmp(s, participant_status_name((ParticipantStatus)i)) == 0) {
            return (ParticipantStatus)i;
        }
    }
    return PSTATUS_ACTIVE;
}

/* ------------------------------------------------------------ enrollment */

/* Adds one row of a count query (group, status, included, recently
** active) to count. */
static void group_add(sqlite3_stmt *s, AssignCount *count)
{
    AssignGroup g;
    g.status =
        participant_status_parse((const char *)sqlite3_column_text(s, 1));
    g.n_included = sqlite3_column_int(s, 2);
    g.n_recent = sqlite3_column_int(s, 3);
    assign_count_add(count, &g);
}

/* Fills counts[0..n) from the participants with these pilot/simulated
** flags: per condition (n = the study's conditions) or, with by_row, per
** Williams row of the within-subject participants (n rows). Grouped by
** status; assign_count_add() decides who counts. */
static int count_groups(Store *st, int by_row, int pilot, int simulated,
                        int64_t wall_ms, AssignCount *counts, size_t n,
                        SimError *err)
{
    const Study *study = st->study;
    memset(counts, 0, n * sizeof *counts);
    sqlite3_stmt *s;
    int rc = store_prepare(
        st,
        by_row ? "SELECT order_row, status, SUM(excluded = 0),"
                 " SUM(last_active_ms >= ?)"
                 " FROM participant WHERE pilot = ? AND simulated = ?"
                 " AND order_row IS NOT NULL"
                 " GROUP BY order_row, status"
               : "SELECT condition, status, SUM(excluded = 0),"
                 " SUM(last_active_ms >= ?)"
                 " FROM participant WHERE pilot = ? AND simulated = ?"
                 " GROUP BY condition, status",
        &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_bind_int64(s, 1, assign_active_since(&study->assignment, wall_ms));
    sqlite3_bind_int(s, 2, pilot);
    sqlite3_bind_int(s, 3, simulated);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int k = by_row ? sqlite3_column_int(s, 0)
                       : study_condition_index(
                             study, (const char *)sqlite3_column_text(s, 0));
        if (k >= 0 && (size_t)k < n) {
            group_add(s, &counts[k]);
        }
    }
    if (step != SQLITE_DONE) {
        rc = store_fail_db(st, err,
                           by_row ? "count participants per order"
                                  : "count participants");
    }
    sqlite3_finalize(s);
    return rc;
}

/* A within-subject participant's order of conditions. */
typedef struct WithinOrderChoice {
    int *order; /* study->n_conditions condition indices */
    int row;    /* Williams row, -1 outside latin squares */
} WithinOrderChoice;

/* Chooses the order of a new within-subject participant (override: the
** condition to start with, or NULL); seed draws a random order. */
static int choose_order(Store *store, const char *override, int pilot,
                        int simulated, int64_t wall_ms, uint64_t seed,
                        WithinOrderChoice *out, SimError *err)
{
    const Study *study = store->study;
    size_t rows = assign_williams_rows(study->n_conditions);
    AssignCount *counts = sim_calloc(rows ? rows : 1, sizeof *counts);
    out->order = sim_calloc(study->n_conditions ? study->n_conditions : 1,
                            sizeof *out->order);
    if (!counts || !out->order) {
        sim_free(counts);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    int rc = SIM_OK;
    if (study->n_conditions == 0) {
        rc = sim_fail(err, SIM_ERR_STATE, "%s: no study conditions to assign",
                      store->path);
    } else if (study->assignment.order == WITHIN_LATIN_SQUARE) {
        rc = count_groups(store, 1, pilot, simulated, wall_ms, counts, rows,
                          err);
    }
    if (rc == SIM_OK && assign_choose_order(study, counts, override, seed,
                                            out->order, &out->row) != 0) {
        rc = sim_fail(err, SIM_ERR_USAGE, "%s: unknown condition '%s'",
                      store->path, override);
    }
    sim_free(counts);
    return rc;
}

/* The order as "A,B,C" (a new string) or NULL when out of memory. */
static char *order_text(const Study *study, const int *order)
{
    SimBuf b;
    sim_buf_init(&b);
    for (size_t k = 0; k < study->n_conditions; k++) {
        sim_buf_printf(&b, "%s%s", k ? "," : "",
                       study->conditions[order[k]].id);
    }
    return b.oom ? (sim_buf_free(&b), NULL) : sim_buf_take(&b);
}

/* Chooses the condition of a new participant: the override when one is
** given, else assign_choose() on the counts of participants with the same
** pilot/simulated flags. Writes the condition id to out and the
** participant.assigned_by text to *assigned_by. */
static int choose(Store *store, const char *override, int pilot, int simulated,
                  int64_t wall_ms, uint64_t rng_seed, char *out,
                  size_t out_size, const char **assigned_by, SimError *err)
{
    const Study *study = store->study;
    AssignChoice choice;
    if (override) {
        assign_choose(study, NULL, override, 0, &choice);
        if (choice.why == ASSIGN_WHY_UNKNOWN_OVERRIDE) {
            return sim_fail(err, SIM_ERR_USAGE, "%s: unknown condition '%s'",
                            store->path, override);
        }
    } else {
        if (!study || study->n_conditions == 0) {
            return sim_fail(err, SIM_ERR_STATE,
                            "%s: no study conditions to assign", store->path);
        }
        AssignCount *counts = sim_calloc(study->n_conditions, sizeof *counts);
        if (!counts) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
        int rc = count_groups(store, 0, pilot, simulated, wall_ms, counts,
                              study->n_conditions, err);
        if (rc == SIM_OK) {
            assign_choose(study, counts, NULL, rng_seed, &choice);
        }
        sim_free(counts);
        if (rc != SIM_OK) {
            return rc;
        }
        if (choice.why == ASSIGN_WHY_NONE) {
            return sim_fail(err, SIM_ERR_STATE,
                            "%s: no condition could be assigned", store->path);
        }
    }
    if ((size_t)snprintf(out, out_size, "%s", choice.id) >= out_size) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: condition id '%s' too long",
                        store->path, choice.id);
    }
    *assigned_by = choice.assigned_by;
    return SIM_OK;
}

int store_assign_condition(Store *store, int pilot, int simulated,
                           int64_t wall_ms, uint64_t rng_seed, char *out,
                           size_t out_size, SimError *err)
{
    const char *assigned_by;
    const Study *study = store->study;
    if (study && study->assignment.mode == ASSIGN_MODE_WITHIN) {
        WithinOrderChoice wo = {NULL, -1};
        int rc = choose_order(store, NULL, pilot, simulated, wall_ms, rng_seed,
                              &wo, err);
        if (rc == SIM_OK &&
            (size_t)snprintf(out, out_size, "%s",
                             study->conditions[wo.order[0]].id) >= out_size) {
            rc = sim_fail(err, SIM_ERR_USAGE, "%s: condition id too long",
                          store->path);
        }
        sim_free(wo.order);
        return rc;
    }
    return choose(store, NULL, pilot, simulated, wall_ms, rng_seed, out,
                  out_size, &assigned_by, err);
}

int store_preview_order(Store *store, const char *override, int pilot,
                        int64_t wall_ms, uint64_t rng_seed, char *out,
                        size_t out_size, int *row, SimError *err)
{
    const Study *study = store->study;
    *row = -1;
    if (!study || study->assignment.mode != ASSIGN_MODE_WITHIN) {
        return sim_fail(err, SIM_ERR_STATE, "%s: not a within-subject study",
                        store->path);
    }
    WithinOrderChoice wo = {NULL, -1};
    int rc =
        choose_order(store, override, pilot, 0, wall_ms, rng_seed, &wo, err);
    size_t len = 0;
    out[0] = '\0';
    for (size_t k = 0; rc == SIM_OK && k < study->n_conditions; k++) {
        int w = snprintf(out + len, out_size - len, "%s%s",
                         k ? " \xE2\x86\x92 " : "",
                         study->conditions[wo.order[k]].id);
        if (w < 0 || (size_t)w >= out_size - len) {
            rc = sim_fail(err, SIM_ERR_USAGE, "%s: the order is too long",
                          store->path);
        } else {
            len += (size_t)w;
        }
    }
    if (rc == SIM_OK) {
        *row = wo.row;
    }
    sim_free(wo.order);
    return rc;
}

uint64_t store_random_seed(void)
{
    uuid_t u;
    uint64_t v;
    uuid_generate_random(u);
    memcpy(&v, u, sizeof v);
    return v ? v : 1;
}

static const char *block_kind_text(const Study *study, int block)
{
    return block_kind_name(study->blocks[block].kind);
}

/* A step's options as stored: class ids separated by '|' (owned), NULL
** when it has none (or out of memory). */
static char *options_text(const Study *study, const Trial *t)
{
    if (!t->n_options) {
        return NULL;
    }
    SimBuf b;
    sim_buf_init(&b);
    for (size_t i = 0; i < t->n_options; i++) {
        sim_buf_printf(&b, "%s%s", i ? "|" : "",
                       store_class_id(study, t->options[i]));
    }
    char *s = b.oom ? NULL : sim_strdup(sim_buf_cstr(&b));
    sim_buf_free(&b);
    return s;
}

/* Reads a step's stored options back into t; -1 when one is not a class
** of the study. */
static int options_read(const Study *study, const char *text, Trial *t)
{
    int ks[ITEM_MAX_OPTIONS];
    size_t n = 0;
    const char *p = text;
    while (p && *p && n < ITEM_MAX_OPTIONS) {
        size_t len = strcspn(p, "|");
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)len, p);
        ks[n] = study_class_index(study, id);
        if (ks[n++] < 0) {
            return -1;
        }
        p += len + (p[len] == '|');
    }
    return schedule_set_options(t, ks, n) == SIM_OK ? 0 : -2;
}

static int insert_trials(Store *st, const char *pid, const Schedule *sch,
                         SimError *err)
{
    const Study *study = st->study;
    sqlite3_stmt *s;
    int rc = store_prepare(
        st,
        "INSERT INTO trial (participant, seq, block_id, block_kind, phase, "
        "session, item, page, is_catch, is_example, expects, show_label, "
        "show_prediction, show_explanation, show_reservoir, correct_choice, "
        "reservoir, index_in_block, n_in_block, test_type, model_output, "
        "condition, options) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        &s, err);
    for (size_t i = 0; rc == SIM_OK && i < sch->n_trials; i++) {
        const Trial *t = &sch->trials[i];
        const Block *b = &study->blocks[t->block];
        const Item *it =
            t->item_key ? study_find_item(study, t->item_key) : NULL;
        const char *model = NULL;
        if (it) {
            /* the model's output on the shown input: a prediction's right
            ** answer; verify and decide show the item's own */
            int asks_model = b->kind != BLOCK_VERIFY && b->kind != BLOCK_DECIDE;
            model = store_class_id(study, asks_model && t->correct_choice >= 0
                                              ? t->correct_choice
                                              : it->prediction);
        }
        sqlite3_reset(s);
        store_bind_text(s, 1, pid);
        sqlite3_bind_int(s, 2, t->seq);
        store_bind_text(s, 3, b->id);
        store_bind_text(s, 4, block_kind_text(study, t->block));
        store_bind_text(s, 5, b->phase);
        sqlite3_bind_int(s, 6, b->session);
        store_bind_text(s, 7, t->item_key);
        sqlite3_bind_int(s, 8, t->page);
        sqlite3_bind_int(s, 9, t->is_catch);
        sqlite3_bind_int(s, 10, t->is_example);
        store_bind_text(s, 11, expect_name(t->expects));
        sqlite3_bind_int(s, 12, t->show.label);
        sqlite3_bind_int(s, 13, t->show.prediction);
        sqlite3_bind_int(s, 14, t->show.explanation);
        sqlite3_bind_int(s, 15, t->show.reservoir);
        sqlite3_bind_int(s, 16, t->correct_choice);
        store_bind_text(
            s, 17, t->reservoir >= 0 ? study->blocks[t->reservoir].id : NULL);
        sqlite3_bind_int(s, 18, t->index_in_block);
        sqlite3_bind_int(s, 19, t->n_in_block);
        store_bind_text(s, 20, t->test_type);
        store_bind_text(s, 21, model);
        store_bind_text(s, 22, t->condition);
        char *opts = options_text(study, t);
        if (t->n_options && !opts) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        store_bind_text(s, 23, opts);
        int done = sqlite3_step(s) == SQLITE_DONE;
        sim_free(opts);
        if (!done) {
            rc = store_fail_db(st, err, "insert trial");
        }
    }
    sqlite3_finalize(s);
    return rc;
}

int store_enroll(Store *store, const EnrollSpec *spec, ParticipantInfo *info,
                 SimError *err)
{
    const Study *study = store->study;
    if (!study) {
        return sim_fail(err, SIM_ERR_STATE, "%s: opened read-only",
                        store->path);
    }
    char condition[128];
    const char *assigned_by = NULL;
    int rc = store_exec(store, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    int within = study->assignment.mode == ASSIGN_MODE_WITHIN;
    uint64_t assign_seed = spec->assign_seed;
    if (!assign_seed && !spec->condition && !within) {
        assign_seed = store_random_seed(); /* only an assignment draws */
    }
    uint64_t seed = spec->seed ? spec->seed : store_random_seed();
    /* SQLite integers are signed: keep seeds in 63 bits */
    seed &= 0x7fffffffffffffffULL;
    if (!seed) {
        seed = 1;
    }
    WithinOrderChoice wo = {NULL, -1};
    char *order_ids = NULL;
    rc = store_lease_beat(store, spec->wall_ms, err);
    if (rc == SIM_OK && within) {
        /* a random order comes from the assignment's seed when one is
        ** given (the start screen shows its first condition), else from
        ** the participant's */
        rc = choose_order(
            store, spec->condition, spec->pilot, spec->simulated, spec->wall_ms,
            spec->assign_seed ? spec->assign_seed : seed, &wo, err);
        if (rc == SIM_OK) {
            snprintf(condition, sizeof condition, "%s",
                     study->conditions[wo.order[0]].id);
            assigned_by = spec->condition ? "override" : "balanced";
            order_ids = order_text(study, wo.order);
            rc = order_ids ? SIM_OK
                           : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    } else if (rc == SIM_OK) {
        rc = choose(store, spec->condition, spec->pilot, spec->simulated,
                    spec->wall_ms, assign_seed, condition, sizeof condition,
                    &assigned_by, err);
    }
    if (rc != SIM_OK) {
        sim_free(wo.order);
        sim_free(order_ids);
        store_rollback(store);
        return rc;
    }
    Schedule *sch = NULL;
    if (within) {
        const char **ids = sim_calloc(study->n_conditions, sizeof *ids);
        for (size_t k = 0; ids && k < study->n_conditions; k++) {
            ids[k] = study->conditions[wo.order[k]].id;
        }
        rc = ids ? schedule_build_within(study, ids, study->n_conditions, seed,
                                         &sch, err)
                 : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        sim_free(ids);
    } else {
        rc = schedule_build(study, condition, seed, &sch, err);
    }
    char pid[37];
    if (spec->id) {
        snprintf(pid, sizeof pid, "%s", spec->id);
    } else {
        uuid_t u;
        uuid_generate_random(u);
        uuid_unparse_lower(u, pid);
    }
    if (spec->condition && spec->assigned_by) {
        assigned_by = spec->assigned_by;
    }
    sqlite3_stmt *s = NULL;
    if (rc == SIM_OK) {
        rc = store_prepare(
            store,
            "INSERT INTO participant (id, study, code, condition, "
            "assigned_by, station, pilot, simulated, seed, status, "
            "created_ms, last_active_ms, active_station, condition_order, "
            "order_row, assign_source) "
            "VALUES (?,?,?,?,?,?,?,?,?,'active',?,?,?,?,?,?)",
            &s, err);
    }
    if (rc == SIM_OK) {
        store_bind_text(s, 1, pid);
        sqlite3_bind_int64(s, 2, store->study_row);
        store_bind_text(s, 3, spec->code);
        store_bind_text(s, 4, condition);
        store_bind_text(s, 5, assigned_by);
        store_bind_text(s, 6, spec->station ? spec->station : store->station);
        sqlite3_bind_int(s, 7, spec->pilot != 0);
        sqlite3_bind_int(s, 8, spec->simulated != 0);
        sqlite3_bind_int64(s, 9, (sqlite3_int64)seed);
        sqlite3_bind_int64(s, 10, spec->wall_ms);
        sqlite3_bind_int64(s, 11, spec->wall_ms);
        store_bind_text(s, 12, store->station);
        store_bind_text(s, 13, order_ids);
        if (wo.row >= 0) {
            sqlite3_bind_int(s, 14, wo.row);
        } else {
            sqlite3_bind_null(s, 14);
        }
        store_bind_text(s, 15, spec->assign_source);
        if (sqlite3_step(s) != SQLITE_DONE) {
            rc = store_fail_db(store, err, "insert participant");
        }
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK) {
        rc = insert_trials(store, pid, sch, err);
    }
    if (rc == SIM_OK) {
        rc = store_exec(store, "COMMIT", err);
    }
    schedule_free(sch);
    sim_free(wo.order);
    sim_free(order_ids);
    if (rc != SIM_OK) {
        store_rollback(store);
        return rc;
    }
    if (info) {
        rc = store_participant(store, pid, info, err);
    }
    return rc;
}

static const char *PARTICIPANT_COLUMNS =
    "SELECT p.id, p.code, p.condition, p.assigned_by, p.station, p.pilot, "
    "p.simulated, p.status, p.excluded, p.exclusion_reason, p.seed, "
    "p.created_ms, p.last_active_ms, "
    "(SELECT COUNT(*) FROM trial t WHERE t.participant = p.id), "
    "(SELECT COUNT(*) FROM response r WHERE r.participant = p.id AND r.done), "
    "COALESCE(p.active_station, p.station) "
    "FROM participant p ";

static void read_participant(sqlite3_stmt *s, ParticipantInfo *info)
{
    memset(info, 0, sizeof *info);
    store_copy_col(info->id, sizeof info->id, s, 0);
    store_copy_col(info->code, sizeof info->code, s, 1);
    store_copy_col(info->condition, sizeof info->condition, s, 2);
    store_copy_col(info->assigned_by, sizeof info->assigned_by, s, 3);
    store_copy_col(info->station, sizeof info->station, s, 4);
    info->pilot = sqlite3_column_int(s, 5);
    info->simulated = sqlite3_column_int(s, 6);
    info->status =
        participant_status_parse((const char *)sqlite3_column_text(s, 7));
    info->excluded = sqlite3_column_int(s, 8);
    store_copy_col(info->exclusion_reason, sizeof info->exclusion_reason, s, 9);
    info->seed = (uint64_t)sqlite3_column_int64(s, 10);
    info->created_ms = sqlite3_column_int64(s, 11);
    info->last_active_ms = sqlite3_column_int64(s, 12);
    info->n_trials = sqlite3_column_int(s, 13);
    info->n_done = sqlite3_column_int(s, 14);
    store_copy_col(info->active_station, sizeof info->active_station, s, 15);
}

int store_participant(Store *store, const char *pid, ParticipantInfo *info,
                      SimError *err)
{
    char sql[768];
    snprintf(sql, sizeof sql, "%sWHERE p.id = ?", PARTICIPANT_COLUMNS);
    sqlite3_stmt *s;
    int rc = store_prepare(store, sql, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        read_participant(s, info);
    } else if (step == SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_USAGE, "%s: no participant '%s'",
                      store->path, pid);
    } else {
        rc = store_fail_db(store, err, "read participant");
    }
    sqlite3_finalize(s);
    return rc;
}

int store_participant_live_elsewhere(const Store *store,
                                     const ParticipantInfo *info,
                                     int64_t now_ms)
{
    return info->status == PSTATUS_ACTIVE &&
           strcmp(info->active_station, store->station) != 0 &&
           now_ms - info->last_active_ms < STORE_LEASE_TIMEOUT_MS;
}

int store_list_resumable(Store *store, int64_t now_ms, ParticipantInfo **out,
                         size_t *n, SimError *err)
{
    int rc = store_list_participants(store, 1, out, n, err);
    size_t k = 0;
    for (size_t i = 0; rc == SIM_OK && i < *n; i++) {
        if (!store_participant_live_elsewhere(store, &(*out)[i], now_ms)) {
            (*out)[k++] = (*out)[i];
        }
    }
    if (rc == SIM_OK) {
        *n = k;
    }
    return rc;
}

int store_list_participants(Store *store, int unfinished_only,
                            ParticipantInfo **out, size_t *n, SimError *err)
{
    *out = NULL;
    *n = 0;
    char sql[768];
    snprintf(sql, sizeof sql, "%s%s ORDER BY p.last_active_ms DESC",
             PARTICIPANT_COLUMNS,
             unfinished_only ? "WHERE p.status IN ('active', 'aborted')" : "");
    sqlite3_stmt *s;
    int rc = store_prepare(store, sql, &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    ParticipantInfo *list = NULL;
    size_t cap = 0, len = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (sim_grow((void **)&list, &cap, len + 1, sizeof *list) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        read_participant(s, &list[len++]);
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = store_fail_db(store, err, "list participants");
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        sim_free(list);
        return rc;
    }
    *out = list;
    *n = len;
    return SIM_OK;
}

/* Index of block id in study, -1 when there is none (or no study). */
static int block_index(const Study *study, const char *id)
{
    const Block *b = study_find_block(study, id);
    return b ? (int)(b - study->blocks) : -1;
}

static Expect expect_parse(const char *s)
{
    for (int e = 0; e <= EXPECT_ANSWERS; e++) {
        if (s && strcmp(s, expect_name((Expect)e)) == 0) {
            return (Expect)e;
        }
    }
    return EXPECT_CONTINUE;
}

int store_load_schedule(Store *store, const char *pid, Schedule **out,
                        SimError *err)
{
    *out = NULL;
    ParticipantInfo info;
    int rc = store_participant(store, pid, &info, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Schedule *sch =
        schedule_new(info.condition, info.seed, (size_t)info.n_trials);
    if (!sch) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    sqlite3_stmt *s;
    rc = store_prepare(
        store,
        "SELECT seq, block_id, item, page, is_catch, is_example, "
        "expects, show_label, show_prediction, show_explanation, "
        "show_reservoir, correct_choice, reservoir, index_in_block, "
        "n_in_block, test_type, condition, options FROM trial WHERE "
        "participant = ? "
        "ORDER BY seq",
        &s, err);
    if (rc != SIM_OK) {
        schedule_free(sch);
        return rc;
    }
    store_bind_text(s, 1, pid);
    size_t i = 0;
    int step;
    while (rc == SIM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (i >= sch->n_trials) {
            rc = sim_fail(err, SIM_ERR_DB,
                          "%s: participant %s: trial count "
                          "changed while reading",
                          store->path, pid);
            break;
        }
        Trial *t = &sch->trials[i];
        t->seq = sqlite3_column_int(s, 0);
        const char *bid = (const char *)sqlite3_column_text(s, 1);
        t->block = block_index(store->study, bid);
        if (t->block < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: participant %s, step %d: block '%s' is not in "
                          "the study",
                          store->path, pid, t->seq, bid ? bid : "");
            break;
        }
        const char *key = (const char *)sqlite3_column_text(s, 2);
        if (key && !study_find_item(store->study, key)) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: participant %s, step %d: item '%s' is not in "
                          "the study",
                          store->path, pid, t->seq, key);
            break;
        }
        const char *tt = (const char *)sqlite3_column_text(s, 15);
        const char *tc = (const char *)sqlite3_column_text(s, 16);
        if (tc && !study_find_condition(store->study, tc)) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: participant %s, step %d: condition '%s' is "
                          "not in the study",
                          store->path, pid, t->seq, tc);
            break;
        }
        if ((key && !(t->item_key = sim_strdup(key))) ||
            (tt && !(t->test_type = sim_strdup(tt))) ||
            (tc && !(t->condition = sim_strdup(tc)))) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            break;
        }
        t->page = sqlite3_column_int(s, 3);
        t->is_catch = sqlite3_column_int(s, 4);
        t->is_example = sqlite3_column_int(s, 5);
        t->expects = expect_parse((const char *)sqlite3_column_text(s, 6));
        t->show.label = sqlite3_column_int(s, 7);
        t->show.prediction = sqlite3_column_int(s, 8);
        t->show.explanation = sqlite3_column_int(s, 9);
        t->show.reservoir = sqlite3_column_int(s, 10);
        t->correct_choice = sqlite3_column_int(s, 11);
        t->reservoir =
            block_index(store->study, (const char *)sqlite3_column_text(s, 12));
        t->index_in_block = sqlite3_column_int(s, 13);
        t->n_in_block = sqlite3_column_int(s, 14);
        const char *to = (const char *)sqlite3_column_text(s, 17);
        int orc = to ? options_read(store->study, to, t) : 0;
        if (orc != 0) {
            rc = orc == -2 ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
                           : sim_fail(err, SIM_ERR_INVALID,
                                      "%s: participant %s, step %d: options "
                                      "'%s' are not classes of the study",
                                      store->path, pid, t->seq, to);
            break;
        }
        i++;
    }
    if (rc == SIM_OK && step != SQLITE_DONE) {
        rc = store_fail_db(store, err, "read schedule");
    }
    sqlite3_finalize(s);
    if (rc == SIM_OK && i != sch->n_trials) {
        rc = sim_fail(err, SIM_ERR_DB,
                      "%s: participant %s: read %zu of %zu "
                      "steps",
                      store->path, pid, i, sch->n_trials);
    }
    if (rc != SIM_OK) {
        schedule_free(sch);
        return rc;
    }
    *out = sch;
    return SIM_OK;
}

int store_first_unanswered(Store *store, const char *pid, int *seq,
                           SimError *err)
{
    sqlite3_stmt *s;
    int rc =
        store_prepare(store,
                      "SELECT MIN(t.seq) FROM trial t LEFT JOIN response r "
                      "ON r.participant = t.participant AND r.seq = t.seq "
                      "WHERE t.participant = ? AND (r.done IS NULL OR "
                      "r.done = 0)",
                      &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, pid);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *seq = sqlite3_column_type(s, 0) == SQLITE_NULL
                   ? -1
                   : sqlite3_column_int(s, 0);
    } else {
        rc = store_fail_db(store, err, "find first unanswered step");
    }
    sqlite3_finalize(s);
    return rc;
}

int store_count_complete(Store *store, int simulated, int *n, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(store,
                           "SELECT COUNT(*) FROM participant WHERE status = "
                           "'completed' AND "
                           "(?1 < 0 OR simulated = ?1)",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_bind_int(s, 1, simulated);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *n = sqlite3_column_int(s, 0);
    } else {
        rc = store_fail_db(store, err, "count participants");
    }
    sqlite3_finalize(s);
    return rc;
}
