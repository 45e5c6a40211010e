/*
** Browsers waiting before the consent (serve_live.h): a new id -- or a
** known id whose browser could not prove it may continue -- is shown the
** study's first page from a private store in memory (one participant,
** enrolled there at start, whose session is opened again and given the
** browser's onset, scroll and decline for each request, its writes rolled
** back). Nothing is written to the study's database before the page is
** passed; then the participant is enrolled (their condition asked of the
** server off the lock with --sync: ServeReply.job), their access row and
** first start are written, and the input that passed the page is applied
** again to their own session, which commits it. At most max_waiting
** browsers are kept; the longest idle are forgotten (their browsers start
** again with their journals). A study whose first step is no page enrols
** at the first start instead.
*/
#include "serve/serve_live_int.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

/* A waiting browser idle this long is forgotten. */
#define WAIT_IDLE_MS 3600000LL

/* ------------------------------------------------------------ the list */

static void unlink_w(Serve *sv, Live *l)
{
    if (l->w_prev) {
        l->w_prev->w_next = l->w_next;
    } else if (sv->w_head == l) {
        sv->w_head = l->w_next;
    }
    if (l->w_next) {
        l->w_next->w_prev = l->w_prev;
    } else if (sv->w_tail == l) {
        sv->w_tail = l->w_prev;
    }
    l->w_prev = l->w_next = NULL;
}

static void push_front(Serve *sv, Live *l)
{
    l->w_prev = NULL;
    l->w_next = sv->w_head;
    if (sv->w_head) {
        sv->w_head->w_prev = l;
    }
    sv->w_head = l;
    if (!sv->w_tail) {
        sv->w_tail = l;
    }
}

void wait_touch(Serve *sv, Live *l)
{
    if (sv->w_head != l) {
        unlink_w(sv, l);
        push_front(sv, l);
    }
}

void wait_drop(Serve *sv, Live *l)
{
    unlink_w(sv, l);
    sv->n_waiting--;
    map_del(&sv->by_key, l->key);
    live_forget_tokens(sv, l);
    serve_media_free(&l->media);
    sim_free(l->start_info);
    sim_free(l->job);
    sim_free(l);
}

Live *wait_find(Serve *sv, const char *key, const char *ext)
{
    Live *l = key[0] ? map_get(&sv->by_key, key) : NULL;
    return l && l->waiting && strcmp(l->ext, ext) == 0 ? l : NULL;
}

Live *wait_add(Serve *sv, const char *ext, int64_t now_ns)
{
    while (sv->n_waiting >= (size_t)sv->cfg.max_waiting) {
        Live *old = sv->w_tail;
        while (old && old->job_state == JOB_ASKED) {
            old = old->w_prev;
        }
        if (!old) {
            break;
        }
        wait_drop(sv, old);
    }
    Live *l = sim_calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    if (serve_random_hex(l->key, 16) != 0 ||
        map_put(&sv->by_key, l->key, l) != 0) {
        sim_free(l);
        return NULL;
    }
    snprintf(l->ext, sizeof l->ext, "%s", ext);
    l->waiting = 1;
    l->key_new = 1;
    l->bucket = sv->cfg.rate_burst;
    l->bucket_ms = now_ns / 1000000;
    l->last_ms = now_ns / 1000000;
    serve_clock_reset(&l->clock);
    push_front(sv, l);
    sv->n_waiting++;
    return l;
}

/* ------------------------------------------------------ the first page */

int wait_init(Serve *sv, int64_t now_ns, SimError *err)
{
    const Study *study = sv->cfg.study;
    if (study->n_conditions == 0) {
        return SIM_OK;
    }
    StoreOpenSpec os = {.path = "(the study's first page)",
                        .study = study,
                        .station = "first-page",
                        .durability = DURABILITY_FAST,
                        .wall_ms = now_ns / 1000000,
                        .memory = 1};
    int rc = store_open_spec(&os, &sv->scratch, err);
    EnrollSpec e;
    memset(&e, 0, sizeof e);
    e.code = "first-page";
    e.condition = study->conditions[0].id;
    e.seed = 1;
    e.assign_seed = 1;
    e.wall_ms = now_ns / 1000000;
    ParticipantInfo info;
    if (rc == SIM_OK) {
        rc = store_enroll(sv->scratch, &e, &info, err);
    }
    Session *s = NULL;
    if (rc == SIM_OK) {
        rc = session_open(sv->scratch, study, info.id, now_ns / 1000000, &s,
                          err);
    }
    if (rc != SIM_OK) {
        store_close(sv->scratch);
        sv->scratch = NULL;
        return rc;
    }
    /* a page shown to everyone alike (the consent, instructions), no
    ** item: what a browser sees before it is anyone */
    const SessionView *v = session_view(s);
    const Trial *t = v->trial;
    int page = t && t->seq == 0 && !t->item_key &&
               (t->expects == EXPECT_ACCEPT || t->expects == EXPECT_CONTINUE) &&
               (v->screen == SCREEN_CONSENT || v->screen == SCREEN_PAGE);
    session_close(s);
    if (!page) {
        store_close(sv->scratch);
        sv->scratch = NULL;
        return SIM_OK;
    }
    snprintf(sv->template_pid, sizeof sv->template_pid, "%s", info.id);
    return SIM_OK;
}

void wait_free(Serve *sv)
{
    while (sv->w_head) {
        wait_drop(sv, sv->w_head);
    }
    store_close(sv->scratch);
    sv->scratch = NULL;
}

int serve_waits_for_consent(const Serve *sv)
{
    return sv->scratch != NULL;
}

/* The first page's session for l as l left it: opened again in the
** scratch store, inside a group that scratch_close rolls back. */
static int scratch_open(Serve *sv, Live *l, int64_t now_ns, SimError *err)
{
    int64_t now_ms = now_ns / 1000000;
    int rc = store_group_begin(sv->scratch, err);
    if (rc == SIM_OK) {
        rc = session_open(sv->scratch, sv->cfg.study, sv->template_pid, now_ms,
                          &l->s, err);
        if (rc != SIM_OK) {
            store_group_rollback(sv->scratch);
        }
    }
    if (rc != SIM_OK) {
        return rc;
    }
    if (l->w_onset) {
        session_mark_onset(l->s, l->w_onset);
    }
    if (l->w_scroll) {
        session_report_scroll(l->s, SESSION_SCROLL_OVERFLOW(l->w_scroll - 1),
                              SESSION_SCROLL_AT_END(l->w_scroll - 1));
    }
    if (l->w_declined) {
        SimInput dec = {
            .kind = SIM_IN_DECLINE, .t_ns = l->w_onset, .wall_ms = now_ms};
        session_handle(l->s, &dec, NULL, err);
    }
    int now[3];
    view_pos(l->s, now);
    if (pos_cmp(now, l->pos) != 0) {
        memcpy(l->pos, now, sizeof now);
        l->applied = 0;
    }
    return SIM_OK;
}

static void scratch_close(Serve *sv, Live *l)
{
    session_close(l->s);
    l->s = NULL;
    store_group_rollback(sv->scratch);
}

/* The answer to a waiting browser that passed the first page of an id
** another browser is taking part with. */
static void refuse(Serve *sv, Live *l, ServeReply *out)
{
    sv->refused++;
    Live *e = map_get(&sv->by_ext, l->ext);
    reply_error(out, 409, "resume",
                "this id takes part in another browser already");
    if (out->body) {
        json_object_set_new(out->body, "mode",
                            json_string(mode_name(e ? e->mode : l->mode)));
    }
}

void wait_start_reply(Serve *sv, Live *l, int64_t now_ns, ServeReply *out)
{
    SimError err;
    sim_error_clear(&err);
    wait_touch(sv, l);
    if (live_token_new(sv, l) != 0) {
        reply_error(out, 500, "token", "no session token could be made");
        return;
    }
    serve_clock_reset(&l->clock);
    if (!sv->scratch) {
        /* no page to wait on: enrolled now */
        if (l->shadow) {
            refuse(sv, l, out);
            return;
        }
        l->from_start = 1;
        wait_enroll(sv, l, now_ns, out);
        return;
    }
    if (scratch_open(sv, l, now_ns, &err) != SIM_OK) {
        reply_error(out, 503, "open", err.msg);
        return;
    }
    /* the page was (sent) now: the browser shows it again */
    memcpy(l->sent, l->pos, sizeof l->sent);
    serve_clock_screen(&l->clock, 1, now_ns);
    reply_start(sv, l, now_ns, out);
    scratch_close(sv, l);
}

void wait_input(Serve *sv, Live *l, const int pos[3], In *ins, size_t n_in,
                int64_t onset_ns, int64_t now_ns, ServeReply *out)
{
    SimError err;
    sim_error_clear(&err);
    wait_touch(sv, l);
    if (l->job_state == JOB_ASKED) {
        reply_error(out, 503, "enroll", "the participant is being enrolled");
        return;
    }
    if (l->has_accept || !sv->scratch) {
        wait_enroll(sv, l, now_ns, out); /* passed before: enrol now */
        return;
    }
    if (scratch_open(sv, l, now_ns, &err) != SIM_OK) {
        reply_error(out, 503, "open", err.msg);
        return;
    }
    int before[3], applied = l->applied, moved_at = -1;
    memcpy(before, l->pos, sizeof before);
    apply_request(sv, l, pos, ins, n_in, onset_ns, now_ns, &moved_at, &err);
    if (moved_at >= 0 && !session_finished(l->s)) {
        /* passed: acknowledged once the participant is enrolled */
        l->accept = ins[moved_at];
        l->accept.in.t_ns = ins[moved_at].used_ns;
        if (l->accept.in.kind == SIM_IN_KEY) {
            l->accept.in.key = l->accept.key;
        }
        l->accept.text = NULL;
        l->has_accept = 1;
        memcpy(l->pos, before, sizeof before);
        l->applied = applied;
        scratch_close(sv, l);
        wait_enroll(sv, l, now_ns, out);
        return;
    }
    if (moved_at >= 0) {
        l->w_declined = 1; /* nothing stored: only counted */
        sv->declined++;
    }
    reply_state(sv, l, 200, now_ns, out);
    scratch_close(sv, l);
}

/* The waiting browser l becomes participant info: in the tables, its
** access row and first start written (in the caller's group). */
static int promote(Serve *sv, Live *l, const ParticipantInfo *info,
                   int64_t now_ns, SimError *err)
{
    snprintf(l->pid, sizeof l->pid, "%s", info->id);
    if (live_add(sv, l) != 0) {
        l->pid[0] = '\0';
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    unlink_w(sv, l);
    sv->n_waiting--;
    map_del(&sv->by_key, l->key);
    l->waiting = 0;
    touch(sv, l);
    l->enrolled_in_group = 1;
    l->code_bucket = CODE_TRIES;
    serve_keys_hash(&sv->keys, "key", l->ext, l->key, l->key_hash);
    if (l->mode == ONLINE_RESUME_CODE) {
        char plain[9];
        if (serve_resume_code(l->code) != 0) {
            return sim_fail(err, SIM_ERR_IO, "no resume code could be made");
        }
        serve_code_normalize(l->code, plain);
        serve_keys_hash(&sv->keys, "code", l->ext, plain, l->code_hash);
    }
    int rc = access_store(sv, l, now_ns, err);
    if (rc == SIM_OK && log_start(sv, l, l->start_info, now_ns) != 0) {
        rc = sim_fail(err, SIM_ERR_DB, "the start could not be stored");
    }
    return rc;
}

void wait_enroll(Serve *sv, Live *l, int64_t now_ns, ServeReply *out)
{
    int64_t now_ms = now_ns / 1000000;
    Live *e = map_get(&sv->by_ext, l->ext);
    if (l->shadow || (e && e != l)) {
        refuse(sv, l, out);
        return;
    }
    if (!l->paid) {
        if (!bucket_take(&sv->enroll_bucket, &sv->enroll_ms,
                         sv->cfg.enroll_per_s, sv->cfg.enroll_burst, now_ms)) {
            reply_error(out, 429, "busy", "too many new participants at once");
            return;
        }
        l->paid = 1;
    }
    if (sv->cfg.assign_later && l->job_state != JOB_ANSWERED) {
        if (!l->job) {
            l->job = sim_calloc(1, sizeof *l->job);
            if (!l->job) {
                reply_error(out, 500, "memory", "out of memory");
                return;
            }
            sync_assign_job_init(l->job, l->ext, l->pilot, 0, now_ms);
            snprintf(l->job->station, sizeof l->job->station, "%s",
                     sv->cfg.station ? sv->cfg.station : "");
            l->job->tag = l;
        }
        l->job_state = JOB_ASKED;
        out->status = 0;
        out->job = l->job;
        return;
    }
    SimError err;
    sim_error_clear(&err);
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.code = l->ext;
    spec.station = sv->cfg.station;
    spec.pilot = l->pilot;
    spec.wall_ms = now_ms;
    ParticipantInfo info;
    int rc =
        l->job_state == JOB_ANSWERED
            ? sync_enroll_assigned(sv->cfg.store, l->job, &spec, &info, &err)
            : store_enroll(sv->cfg.store, &spec, &info, &err);
    if (rc == SIM_OK) {
        rc = promote(sv, l, &info, now_ns, &err);
    }
    if (rc == SIM_OK) {
        rc = live_open(sv, l, now_ns, &err);
    }
    if (rc != SIM_OK) {
        reply_error(out, rc == SIM_ERR_STATE ? 409 : 503, "enroll", err.msg);
        return;
    }
    if (sv->cfg.worker) {
        sync_worker_kick(sv->cfg.worker);
    }
    if (l->from_start) {
        reply_start(sv, l, now_ns, out);
        return;
    }
    /* the first page as the browser saw it, and the input that passed
    ** it: the participant's own session commits it */
    if (l->w_onset) {
        session_mark_onset(l->s, l->w_onset);
    }
    if (l->w_scroll) {
        session_report_scroll(l->s, SESSION_SCROLL_OVERFLOW(l->w_scroll - 1),
                              SESSION_SCROLL_AT_END(l->w_scroll - 1));
    }
    SimInput in = l->accept.in;
    in.wall_ms = now_ms;
    rc = session_handle(l->s, &in, NULL, &err);
    int now[3];
    view_pos(l->s, now);
    if (rc != SIM_OK || session_view(l->s)->screen == SCREEN_STORE_ERROR) {
        reply_error(out, 503, "store", "the response could not be stored yet");
        return;
    }
    if (pos_cmp(now, l->pos) != 0) {
        memcpy(l->pos, now, sizeof now);
        l->applied = 0;
        sv->acked++;
    }
    reply_state(sv, l, 200, now_ns, out);
}

void wait_revert(Serve *sv, Live *l)
{
    /* out of the tables of participants (the last added is usually last) */
    for (size_t i = sv->n_lives; i-- > 0;) {
        if (sv->lives[i] == l) {
            memmove(&sv->lives[i], &sv->lives[i + 1],
                    (sv->n_lives - i - 1) * sizeof *sv->lives);
            sv->n_lives--;
            break;
        }
    }
    map_del(&sv->by_ext, l->ext);
    l->pid[0] = '\0';
    l->waiting = 1;
    l->code[0] = l->code_hash[0] = '\0';
    l->n_clients = 0;
    l->pos[0] = l->pos[1] = l->pos[2] = 0;
    l->applied = 0;
    map_put(&sv->by_key, l->key, l);
    push_front(sv, l);
    sv->n_waiting++;
}

void wait_expire(Serve *sv, int64_t now_ns)
{
    int64_t now_ms = now_ns / 1000000;
    for (Live *l = sv->w_tail; l;) {
        Live *prev = l->w_prev;
        if (l->job_state != JOB_ASKED && now_ms - l->last_ms > WAIT_IDLE_MS) {
            wait_drop(sv, l);
        }
        l = prev;
    }
    /* the first start's detail is kept until its enrolment committed */
    for (size_t i = 0; i < sv->n_lives; i++) {
        Live *l = sv->lives[i];
        if (l->start_info && l->group != sv->group) {
            sim_free(l->start_info);
            l->start_info = NULL;
        }
    }
}
