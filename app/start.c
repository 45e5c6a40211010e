/*
** The start screen's controller: StartState from the store, and the
** experimenter's edits. Reads the store and the file system, never SDL.
*/
#include "app/start.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

void start_init(StartCtl *c, const Study *study, Store *store,
                const char *db_path, const char *station)
{
    memset(c, 0, sizeof *c);
    c->store = store;
    c->station = station;
    c->study = study;
    c->cond_ids = sim_calloc(study->n_conditions + 1, sizeof(char *));
    for (size_t i = 0; c->cond_ids && i < study->n_conditions; i++) {
        c->cond_ids[i] = study->conditions[i].id;
    }
    StartState *st = &c->st;
    st->title = study->title;
    st->study_id = study->id;
    st->preset = study->preset;
    st->hash = study->hash;
    st->db_path = db_path;
    st->station = station;
    st->conditions = (const char **)c->cond_ids;
    st->n_conditions = study->n_conditions;
    static const char *const within_rules[] = {
        "within-subject latin-square", "within-subject random-order",
        "within-subject fixed-order"}; /* the condition shown comes first */
    st->assign_rule = study->assignment.mode == ASSIGN_MODE_WITHIN
                          ? within_rules[study->assignment.order]
                      : study->assignment.rule == ASSIGN_HASE ? "hase"
                                                              : "balanced";
    st->code_focus = 1;
}

void start_free(StartCtl *c)
{
    sim_free(c->unfinished);
    sim_free(c->cond_ids);
    c->unfinished = NULL;
    c->cond_ids = NULL;
}

/* Free bytes on the file system that holds path's folder. */
static double free_bytes(const char *path)
{
    struct statvfs vfs;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    return statvfs(dir, &vfs) == 0 ? (double)vfs.f_bavail * (double)vfs.f_frsize
                                   : 0;
}

/* The start screen's line about the server: reachable or not, rows
** waiting, and since when the pushes fail. */
static void sync_line(StartCtl *c, int64_t wall_ms)
{
    StartState *st = &c->st;
    st->sync_line[0] = 0;
    st->sync_bad = 0;
    c->sync_ok = 0;
    if (!c->sync_worker) {
        return;
    }
    SyncWorkerStatus ws;
    sync_worker_status(c->sync_worker, &ws);
    if (!ws.error[0]) {
        c->sync_ok = ws.last_ok_ms != 0;
        if (ws.last_ok_ms) {
            snprintf(st->sync_line, sizeof st->sync_line,
                     "server synced %llds ago, %ld rows waiting",
                     (long long)((wall_ms - ws.last_ok_ms) / 1000), ws.pending);
        } else {
            snprintf(st->sync_line, sizeof st->sync_line, "server: connecting");
        }
        return;
    }
    st->sync_bad = 1;
    if (ws.error_code != SIM_ERR_DB) { /* refused: say why */
        snprintf(st->sync_line, sizeof st->sync_line,
                 "SERVER SYNC STOPPED: %.150s", ws.error);
    } else if (ws.last_ok_ms) {
        snprintf(st->sync_line, sizeof st->sync_line,
                 "SERVER UNREACHABLE for %llds (data safe here, assigning "
                 "locally)",
                 (long long)((wall_ms - ws.last_ok_ms) / 1000));
    } else {
        snprintf(st->sync_line, sizeof st->sync_line,
                 "SERVER UNREACHABLE (data safe here, assigning locally)");
    }
}

/* A within-subject study: the order of conditions the participant would
** get, the shown condition first (an override when the experimenter chose
** it), into st.order; "" otherwise or when it cannot be said. */
static void order_preview(StartCtl *c)
{
    StartState *st = &c->st;
    st->order[0] = '\0';
    st->order_row = -1;
    if (c->study->assignment.mode != ASSIGN_MODE_WITHIN) {
        return;
    }
    const char *first =
        st->cond_index != st->assigned_index && st->cond_index >= 0
            ? st->conditions[st->cond_index]
            : NULL;
    SimError err;
    if (store_preview_order(c->store, first, st->pilot, c->refreshed_ms,
                            c->assign_seed, st->order, sizeof st->order,
                            &st->order_row, &err) != SIM_OK) {
        st->order[0] = '\0';
        st->order_row = -1;
    }
}

void start_refresh(StartCtl *c, int64_t wall_ms, uint64_t entropy)
{
    SimError err;
    StartState *st = &c->st;
    sync_line(c, wall_ms);
    sim_free(c->unfinished);
    c->unfinished = NULL;
    size_t n = 0;
    /* not those another station is running; refreshing also keeps this
    ** station's lease alive while the start screen waits */
    if (store_heartbeat(c->store, wall_ms, &err) != SIM_OK ||
        store_list_resumable(c->store, wall_ms, &c->unfinished, &n, &err) !=
            SIM_OK) {
        snprintf(st->status, sizeof st->status, "%s", err.msg);
        n = 0;
    }
    /* Simulated participants are the autopilot's business. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!c->unfinished[i].simulated) {
            c->unfinished[k++] = c->unfinished[i];
        }
    }
    st->unfinished = c->unfinished;
    st->n_unfinished = k;
    int done = 0;
    store_count_complete(c->store, 0, &done, &err);
    st->n_complete = done;
    c->assign_seed = sim_mix64(entropy ^ 0x5eed);
    char cond[128];
    st->assigned_index = -1;
    /* with a server that answers, its choice; else this station's */
    const char *rule =
        c->study->assignment.rule == ASSIGN_HASE ? "hase" : "balanced";
    int have = 0;
    if (c->sync && c->sync_ok &&
        sync_assign_preview(c->sync, c->study, st->pilot, 0, wall_ms,
                            c->assign_seed, cond, sizeof cond,
                            &err) == SIM_OK) {
        snprintf(c->rule_text, sizeof c->rule_text, "server's %s", rule);
        have = 1;
    } else if (c->sync) {
        snprintf(c->rule_text, sizeof c->rule_text, "station's %s", rule);
    } else {
        snprintf(c->rule_text, sizeof c->rule_text, "%s", rule);
    }
    st->assign_rule = c->rule_text;
    if (have ||
        store_assign_condition(c->store, st->pilot, 0, wall_ms, c->assign_seed,
                               cond, sizeof cond, &err) == SIM_OK) {
        for (size_t i = 0; i < st->n_conditions; i++) {
            if (strcmp(st->conditions[i], cond) == 0) {
                st->assigned_index = (int)i;
            }
        }
    }
    st->cond_index = st->assigned_index >= 0 ? st->assigned_index : 0;
    st->free_bytes = free_bytes(st->db_path);
    c->refreshed_ms = wall_ms;
    order_preview(c);
}

void start_reset(StartCtl *c, int64_t wall_ms, uint64_t entropy)
{
    c->st.code[0] = 0;
    c->st.code_focus = 1;
    c->st.status[0] = 0;
    start_refresh(c, wall_ms, entropy);
}

int start_enroll(StartCtl *c, int64_t wall_ms, char pid[37])
{
    SimError err;
    StartState *st = &c->st;
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.code = st->code[0] ? st->code : NULL;
    spec.station = c->station;
    spec.pilot = st->pilot;
    spec.simulated = 0;
    spec.condition = st->cond_index != st->assigned_index && st->cond_index >= 0
                         ? st->conditions[st->cond_index]
                         : NULL;
    spec.assign_seed = c->assign_seed;
    spec.wall_ms = wall_ms;
    ParticipantInfo info;
    if (sync_enroll(c->sync, c->store, c->study, &spec, &info, &err) !=
        SIM_OK) {
        snprintf(st->status, sizeof st->status,
                 "Could not enroll the participant: %.400s", err.msg);
        return -1;
    }
    snprintf(pid, 37, "%s", info.id);
    sync_worker_kick(c->sync_worker);
    return 0;
}

const char *start_unfinished_id(const StartCtl *c, int index)
{
    if (index < 0 || (size_t)index >= c->st.n_unfinished) {
        return NULL;
    }
    return c->st.unfinished[index].id;
}

void start_toggle_pilot(StartCtl *c, int64_t wall_ms, uint64_t entropy)
{
    c->st.pilot = !c->st.pilot;
    start_refresh(c, wall_ms, entropy);
}

int start_step_condition(StartCtl *c, int forward)
{
    int n = (int)c->st.n_conditions;
    if (n <= 0) {
        return 0;
    }
    c->st.cond_index = (c->st.cond_index + (forward ? 1 : n - 1)) % n;
    order_preview(c);
    return 1;
}

void start_backspace(StartCtl *c)
{
    char *code = c->st.code;
    size_t n = strlen(code);
    while (n > 0 && ((unsigned char)code[n - 1] & 0xC0) == 0x80) {
        n--; /* a UTF-8 continuation byte */
    }
    if (n > 0) {
        n--;
    }
    code[n] = 0;
}

int start_type(StartCtl *c, const char *text)
{
    size_t n = strlen(c->st.code), m = strlen(text);
    if (n + m >= sizeof c->st.code) {
        return 0;
    }
    memcpy(c->st.code + n, text, m + 1);
    return 1;
}

void start_focus_code(StartCtl *c)
{
    c->st.code_focus = 1;
}

void start_set_status(StartCtl *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->st.status, sizeof c->st.status, fmt, ap);
    va_end(ap);
}
