/*
** The runner's loop and what it carries out: the start screen's commands,
** a participant's run through the Session (inputs, retries, onsets, missed
** frames, events for the record), the dialogs and the text size. Which key
** or click means what is input.c's business; drawing is frame.c's.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/loop.h"

#include <SDL2/SDL.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/input.h"
#include "app/start.h"
#include "experiment/session.h"

typedef enum Mode { MODE_START = 0, MODE_RUN, MODE_EXIT } Mode;

typedef struct App {
    const LoopDeps *d;
    StartCtl start; /* the experimenter's start screen */
    Input input;    /* typing state of the input translation */
    Mode mode;
    Confirm confirm;  /* the open dialog */
    Session *session; /* the participant's run (MODE_RUN) */
    char pid[37];
    int need_build, need_draw;
    int have_shown;         /* a screen of this run was presented */
    unsigned shown_serial;  /* serial of the screen last presented */
    double frame_ns;        /* refresh period */
    int64_t next_retry_ns;  /* next SIM_IN_RETRY of a failed save, 0 none */
    int64_t next_tick_ns;   /* countdown redraws */
    int64_t input_ns;       /* stamp of the input that led to this screen */
    unsigned consumed;      /* inputs the session took so far */
    int quit_blocked;       /* attempts to leave logged so far */
    unsigned media_serial;  /* screen whose files were loaded */
    int media_valid;        /* media_serial is set */
    char media_error[1200]; /* a stimulus file that cannot be shown (for
                               the experimenter); "" none */
    int scene_oom;          /* the run is paused: a screen could not be
                               built for want of memory */
    int oom_logged;         /* scene_error logged for oom_serial's build */
    unsigned oom_serial;
    int runs_finished;
    int exit_code;
} App;

static int64_t app_now(const App *a)
{
    return stamps_now(a->d->clock);
}

static int64_t app_wall(const App *a)
{
    return stamps_wall_ms(a->d->clock);
}

static void app_log_event(App *a, const char *kind, const char *detail)
{
    SimError err;
    if (store_log_event(a->d->store, a->session ? a->pid : NULL, kind, detail,
                        app_wall(a), app_now(a), &err) != SIM_OK) {
        fprintf(stderr, "simlab run: log %s: %s\n", kind, err.msg);
    }
}

static void refresh_start(App *a)
{
    start_refresh(&a->start, app_wall(a), (uint64_t)stamps_mono_ns());
    a->need_build = 1;
}

/* The display as this participant's run sees it, for the record. */
static void display_event(App *a)
{
    const Frame *f = a->d->frame;
    SDL_DisplayMode dm;
    int disp = SDL_GetWindowDisplayIndex(f->gfx.window);
    memset(&dm, 0, sizeof dm);
    SDL_GetCurrentDisplayMode(disp < 0 ? 0 : disp, &dm);
    int ww = 0, wh = 0;
    SDL_GetWindowSize(f->gfx.window, &ww, &wh);
    char rush[1200], detail[2048];
    Rush none;
    rush_init(&none);
    rush_json(a->d->rush ? a->d->rush : &none, rush, sizeof rush);
    snprintf(
        detail, sizeof detail,
        "{\"video_driver\":\"%s\",\"renderer\":\"%s\",\"vsync\":%d,"
        "\"display\":%d,\"mode_w\":%d,\"mode_h\":%d,\"refresh_hz\":%d,"
        "\"pixel_format\":\"%s\",\"window_w\":%d,\"window_h\":%d,"
        "\"output_w\":%d,\"output_h\":%d,\"fullscreen\":%d,"
        "\"font_scale\":%.2f,\"autopilot\":%d,\"key_stamps\":\"%s\","
        "\"rush\":%s}",
        SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "",
        f->gfx.renderer_name, f->gfx.vsync, disp, dm.w, dm.h, dm.refresh_rate,
        SDL_GetPixelFormatName(dm.format), ww, wh, f->gfx.w, f->gfx.h,
        !a->d->o->windowed, (double)f->ui.font_scale, a->d->autopilot != NULL,
        stamps_have_raw(a->d->clock) ? "xinput2-raw" : "event-watch", rush);
    app_log_event(a, "display", detail);
}

/* ------------------------------------------------------------ media */

static void session_input(App *a, SimInput *in);

/* A stimulus file that cannot be shown: a media_error event, and the
** first one for the experimenter's note. */
static void media_fail(void *ctx, int step, const char *rel, const char *file,
                       const char *why)
{
    App *a = ctx;
    json_t *o = json_pack("{s:i,s:s?,s:s?,s:s}", "step", step, "file", rel,
                          "path", file, "error", why);
    char *d = o ? json_dumps(o, JSON_COMPACT) : NULL;
    app_log_event(a, "media_error", d);
    free(d);
    json_decref(o);
    fprintf(stderr, "simlab run: step %d: %s (%s): %s\n", step, rel ? rel : "?",
            file ? file : "not resolved", why);
    if (!a->media_error[0]) {
        snprintf(a->media_error, sizeof a->media_error,
                 "the stimulus file %s cannot be shown: %s",
                 rel    ? rel
                 : file ? file
                        : "?",
                 why);
    }
}

/* Pauses the run for the experimenter (the session records the pause). */
static void media_pause(App *a)
{
    SimInput in;
    memset(&in, 0, sizeof in);
    in.kind = SIM_IN_PAUSE;
    in.t_ns = app_now(a);
    session_input(a, &in);
}

/* Before a new screen is built: its files must load, else the run pauses
** before the participant sees (or answers) it. */
static void media_guard(App *a)
{
    if (!a->session || session_finished(a->session)) {
        return;
    }
    const SessionView *v = session_view(a->session);
    if (v->screen == SCREEN_PAUSED || v->screen == SCREEN_STORE_ERROR ||
        (a->media_valid && v->screen_serial == a->media_serial)) {
        return;
    }
    a->media_serial = v->screen_serial;
    a->media_valid = 1;
    if (frame_load_view(a->d->frame, a->session, media_fail, a) > 0) {
        media_pause(a);
    }
}

/* When a participant starts (or the experimenter resumes after a media
** pause): every file the rest of the schedule shows, decoded now. */
static void media_preload(App *a)
{
    a->media_error[0] = 0;
    if (frame_preload_run(a->d->frame, a->d->study, a->session, media_fail, a) >
        0) {
        media_pause(a);
    }
}

/* After a build: a scene that lost commands for want of memory is never
** shown as a participant's screen. A scene_error event (once per screen
** until a build succeeds), and a participant's run pauses before the
** screen is presented. Returns 1 when the run was paused (build again). */
static int scene_guard(App *a)
{
    if (!scene_oom(&a->d->frame->scene)) {
        a->oom_logged = 0;
        return 0;
    }
    const SessionView *v = a->session ? session_view(a->session) : NULL;
    unsigned serial = v ? v->screen_serial : 0;
    const char *name = v ? session_screen_name(v->screen) : "start";
    if (!a->oom_logged || serial != a->oom_serial) {
        a->oom_logged = 1;
        a->oom_serial = serial;
        char d[200];
        snprintf(d, sizeof d,
                 "{\"error\":\"out of memory\",\"screen\":\"%s\","
                 "\"step\":%d}",
                 name, v && v->trial ? v->trial->seq : -1);
        app_log_event(a, "scene_error", d);
        fprintf(stderr,
                "simlab run: out of memory: the %s screen could not be "
                "built completely\n",
                name);
    }
    if (!v || session_finished(a->session) || v->screen == SCREEN_PAUSED ||
        v->screen == SCREEN_STORE_ERROR) {
        return 0;
    }
    media_pause(a);
    if (session_view(a->session)->screen != SCREEN_PAUSED) {
        return 0;
    }
    a->scene_oom = 1;
    return 1;
}

/* ------------------------------------------------------------------- runs */

static int run_begin(App *a, const char *pid)
{
    SimError err;
    Session *s = NULL;
    if (session_open(a->d->store, a->d->study, pid, app_wall(a), &s, &err) !=
        SIM_OK) {
        start_set_status(&a->start, "Cannot open participant %s: %.400s", pid,
                         err.msg);
        a->need_build = 1;
        return -1;
    }
    a->session = s;
    snprintf(a->pid, sizeof a->pid, "%s", pid);
    a->mode = MODE_RUN;
    a->d->frame->scroll = 0;
    a->have_shown = 0;
    a->confirm = CONFIRM_NONE;
    a->need_build = 1;
    SDL_StopTextInput();
    if (!a->d->o->windowed) {
        SDL_SetWindowKeyboardGrab(a->d->frame->gfx.window, SDL_TRUE);
    }
    display_event(a);
    a->media_valid = 0;
    a->scene_oom = 0;
    assets_forget_failed(&a->d->frame->assets);
    media_preload(a);
    if (a->d->autopilot) {
        autopilot_begin(a->d->autopilot, a->d->store, pid);
    }
    return 0;
}

static void run_end(App *a)
{
    session_close(a->session);
    a->session = NULL;
    a->pid[0] = 0;
    a->runs_finished++;
    SDL_SetWindowKeyboardGrab(a->d->frame->gfx.window, SDL_FALSE);
    if (a->d->o->exit_after > 0 && a->runs_finished >= a->d->o->exit_after) {
        a->mode = MODE_EXIT;
        return;
    }
    a->mode = MODE_START;
    SDL_StartTextInput();
    start_reset(&a->start, app_wall(a), (uint64_t)stamps_mono_ns());
    a->need_build = 1;
}

static void start_participant(App *a)
{
    char pid[37];
    if (start_enroll(&a->start, app_wall(a), pid) != 0) {
        a->need_build = 1;
        return;
    }
    run_begin(a, pid);
}

static void session_input(App *a, SimInput *in)
{
    SimError err;
    sim_error_clear(&err);
    int consumed = 0;
    in->wall_ms = app_wall(a);
    unsigned before = session_view(a->session)->screen_serial;
    int rc = session_handle(a->session, in, &consumed, &err);
    if (consumed && in->kind == SIM_IN_RESUME && a->media_error[0]) {
        /* The experimenter may have replaced the file: read again. */
        assets_forget_failed(&a->d->frame->assets);
        a->media_valid = 0;
        media_preload(a);
    }
    if (consumed && in->kind == SIM_IN_RESUME) {
        a->scene_oom = 0; /* the next build tells whether memory is back */
    }
    const SessionView *v = session_view(a->session);
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        if (v->screen == SCREEN_STORE_ERROR && a->next_retry_ns == 0) {
            a->next_retry_ns = app_now(a) + 1000000000LL;
        }
    }
    if (consumed) {
        a->consumed++;
        a->need_build = 1;
        if (v->screen_serial != before) {
            a->input_ns = in->t_ns;
            a->d->frame->scroll = 0;
        }
        timing_log_input(a->d->timing, in);
    } else if (v->screen_serial != before) {
        /* not taken, yet the screen moved on: an input after the answer
        ** deadline times the trial out */
        a->need_build = 1;
        a->d->frame->scroll = 0;
    }
    if (v->screen != SCREEN_STORE_ERROR) {
        a->next_retry_ns = 0;
    }
}

/* ------------------------------------------------------- carrying it out */

static void set_font_scale(App *a, float f)
{
    Ui *ui = &a->d->frame->ui;
    if (f < 0.6f) {
        f = 0.6f;
    }
    if (f > 2.5f) {
        f = 2.5f;
    }
    if (fabsf(f - ui->font_scale) < 0.01f) {
        return;
    }
    ui->font_scale = f;
    ui_update_metrics(ui);
    a->need_build = 1;
    if (a->session) {
        char d[64];
        snprintf(d, sizeof d, "{\"font_scale\":%.2f}", (double)f);
        app_log_event(a, "font_scale", d);
    }
}

static void scroll_by(App *a, float dy)
{
    if (frame_scroll_by(a->d->frame, dy)) {
        a->need_draw = 1;
    }
}

static void do_confirm(App *a, int yes, int64_t t)
{
    Confirm c = a->confirm;
    a->confirm = CONFIRM_NONE;
    a->need_build = 1;
    if (!yes) {
        return;
    }
    if (c == CONFIRM_QUIT) {
        a->mode = MODE_EXIT;
        return;
    }
    if (!a->session) {
        return;
    }
    SimInput in;
    memset(&in, 0, sizeof in);
    in.t_ns = t;
    in.kind = c == CONFIRM_PAUSE ? SIM_IN_PAUSE : SIM_IN_ABORT;
    session_input(a, &in);
}

/* The pointer moved: when the screen's explanation shows its values on
** hover, the session learns which value is under the pointer (-1 none). */
static void hover_value(App *a, int64_t t_ns)
{
    const Frame *f = a->d->frame;
    if (a->mode != MODE_RUN || !a->session || a->confirm != CONFIRM_NONE) {
        return;
    }
    const SessionView *v = session_view(a->session);
    if (!v->explanation || v->explanation->reveal != EXPL_REVEAL_HOVER) {
        return;
    }
    int target = -1;
    if (f->hover >= 0 && (size_t)f->hover < f->scene.n_hits &&
        f->scene.hits[f->hover].action == ACT_HOVER) {
        target = f->scene.hits[f->hover].value;
    }
    if (target == v->hover_target) {
        return;
    }
    SimInput in;
    memset(&in, 0, sizeof in);
    in.kind = SIM_IN_HOVER;
    in.value = target;
    in.t_ns = t_ns > 0 ? t_ns : app_now(a);
    session_input(a, &in);
}

static void apply(App *a, RunCmd *c)
{
    Frame *f = a->d->frame;
    switch (c->kind) {
    case RUN_SESSION:
        session_input(a, &c->sim);
        break;
    case RUN_FONT:
        set_font_scale(a, c->value > 0   ? f->ui.font_scale * 1.12f
                          : c->value < 0 ? f->ui.font_scale / 1.12f
                                         : a->d->o->font_scale);
        break;
    case RUN_SCROLL:
        scroll_by(a, c->dy);
        break;
    case RUN_HOVER:
        if (c->value != f->hover) {
            f->hover = c->value;
            a->need_draw = 1;
        }
        hover_value(a, c->t_ns);
        break;
    case RUN_CONFIRM:
        do_confirm(a, c->value, c->t_ns);
        break;
    case RUN_ASK:
        a->confirm = (Confirm)c->value;
        a->need_build = 1;
        break;
    case RUN_QUIT_BLOCKED:
        if (a->quit_blocked++ < 20) {
            char d[64];
            snprintf(d, sizeof d, "{\"source\":\"%s\"}", c->text);
            app_log_event(a, "quit_blocked", d);
        }
        break;
    case RUN_RESIZED:
        gfx_update_size(&f->gfx);
        ui_update_metrics(&f->ui);
        a->need_build = 1;
        break;
    case RUN_EXPOSED:
        a->need_draw = 1;
        break;
    case RUN_FOCUS:
        app_log_event(a, c->value ? "focus_gained" : "focus_lost", NULL);
        break;
    case RUN_NEXT:
        run_end(a);
        break;
    case RUN_START:
        start_participant(a);
        break;
    case RUN_RESUME: {
        const char *id = start_unfinished_id(&a->start, c->value);
        if (id) {
            run_begin(a, id);
        }
        break;
    }
    case RUN_TOGGLE_PILOT:
        start_toggle_pilot(&a->start, app_wall(a), (uint64_t)stamps_mono_ns());
        a->need_build = 1;
        break;
    case RUN_COND_STEP:
        if (start_step_condition(&a->start, c->value > 0)) {
            a->need_build = 1;
        }
        break;
    case RUN_FOCUS_CODE:
        start_focus_code(&a->start);
        a->need_build = 1;
        break;
    case RUN_BACKSPACE:
        start_backspace(&a->start);
        a->need_build = 1;
        break;
    case RUN_TEXT:
        if (start_type(&a->start, c->text)) {
            a->need_build = 1;
        }
        break;
    case RUN_NONE:
    default:
        break;
    }
}

static void handle_event(App *a, const SDL_Event *e)
{
    const Frame *f = a->d->frame;
    int64_t now = app_now(a), t = now;
    if (e->type == SDL_KEYDOWN || e->type == SDL_MOUSEBUTTONDOWN) {
        t = stamps_take(a->d->clock, e, now);
    }
    if (e->type == SDL_KEYDOWN) {
        int64_t watch = now;
        StampSource src = stamps_last_source(a->d->clock, &watch);
        timing_log_key(a->d->timing, t, e->key.timestamp, now, watch, (int)src);
    }
    InputCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.start = a->mode == MODE_START;
    ctx.session = a->session != NULL;
    if (a->session) {
        ctx.paused = session_view(a->session)->screen == SCREEN_PAUSED;
        ctx.finished = session_finished(a->session);
        const SessionView *sv = session_view(a->session);
        ctx.typing = sv->screen == SCREEN_QUESTIONNAIRE;
    }
    ctx.confirm = a->confirm;
    ctx.code_focus = a->start.st.code_focus;
    ctx.scene = &f->scene;
    ctx.scroll = f->scroll;
    ctx.px_per_pt = f->gfx.px_per_pt;
    ctx.u = f->ui.u;
    RunCmd c;
    if (input_translate(&a->input, &ctx, e, t, &c) != RUN_NONE) {
        apply(a, &c);
    }
}

/* -------------------------------------------------------------- autopilot */

static void autopilot_ctx(const App *a, AutopilotCtx *ctx)
{
    const Frame *f = a->d->frame;
    memset(ctx, 0, sizeof *ctx);
    ctx->session = a->session;
    ctx->confirm = a->confirm;
    ctx->shown = a->session && a->have_shown &&
                 a->shown_serial == session_view(a->session)->screen_serial;
    ctx->consumed = a->consumed;
    ctx->next_retry_ns = a->next_retry_ns;
    ctx->scene = &f->scene;
    ctx->scroll = f->scroll;
    ctx->px_per_pt = f->gfx.px_per_pt;
    ctx->window_id = SDL_GetWindowID(f->gfx.window);
    ctx->clock = a->d->clock;
}

static void autopilot_turn(App *a)
{
    Autopilot *ap = a->d->autopilot;
    if (a->mode == MODE_START) {
        char pid[37];
        int r = autopilot_next_participant(ap, a->d->store, app_wall(a), pid);
        if (r == 0 && run_begin(a, pid) != 0) {
            r = -1;
        }
        if (r != 0) {
            a->exit_code = r < 0 ? 1 : 0;
            a->mode = MODE_EXIT;
        }
        return;
    }
    AutopilotCtx ctx;
    autopilot_ctx(a, &ctx);
    if (autopilot_step(ap, &ctx)) {
        run_end(a);
    }
}

/* ---------------------------------------------------------------- drawing */

/* Tells the session whether the scene built for its screen overflows the
** window and whether it is scrolled to the end; returns the scroll gate. */
static int report_scroll(App *a)
{
    const Frame *f = a->d->frame;
    /* the content to scroll to: an area kept empty does not count */
    float max = scene_content_h(&f->scene) - f->scene.body.h;
    session_report_scroll(a->session, max > 1.0f, f->scroll >= max - 1.0f);
    return session_view(a->session)->scroll_gate;
}

static void frame_view(const App *a, FrameView *fv)
{
    memset(fv, 0, sizeof *fv);
    fv->start = a->mode == MODE_START ? &a->start.st : NULL;
    fv->session = a->session;
    fv->confirm = a->confirm;
    fv->now_ns = app_now(a);
    fv->autopilot = a->d->autopilot != NULL;
    fv->have_shown = a->have_shown;
    fv->media_error = a->session && a->media_error[0] ? a->media_error : NULL;
    fv->scene_oom = a->session && a->scene_oom;
    fv->strings = a->d->study ? a->d->study->ui_strings : NULL;
    fv->study = a->d->study;
}

static int build(App *a)
{
    FrameView fv;
    frame_view(a, &fv);
    int moved = frame_build(a->d->frame, &fv);
    if (a->mode == MODE_RUN && a->session) {
        /* the scroll gate (require_scroll) is in the first frame of a
        ** screen taller than the window */
        int gate = session_view(a->session)->scroll_gate;
        if (report_scroll(a) != gate) {
            frame_view(a, &fv);
            moved |= frame_build(a->d->frame, &fv);
        }
    }
    if (scene_guard(a)) {
        frame_view(a, &fv); /* the pause screen instead */
        moved |= frame_build(a->d->frame, &fv);
        scene_guard(a);
    }
    return moved;
}

/* After the present at t1: the onset of a new screen, and a missed_frame
** event when it came late. */
static void after_present(App *a, int64_t t1)
{
    if (a->mode != MODE_RUN || !a->session) {
        return;
    }
    const SessionView *v = session_view(a->session);
    int fresh = !a->have_shown || v->screen_serial != a->shown_serial;
    a->have_shown = 1;
    a->shown_serial = v->screen_serial;
    if (!v->onset_marked) {
        session_mark_onset(a->session, t1);
        timing_log_onset(a->d->timing, t1, session_view(a->session),
                         a->input_ns);
        const Assets *as = &a->d->frame->assets;
        timing_log_textures(a->d->timing, as->bytes, as->peak, as->n,
                            as->n_evicted, as->budget);
        /* The view now enables its buttons; the picture is unchanged. */
        if (build(a)) {
            a->need_draw = 1;
        }
    }
    if (fresh && a->input_ns > 0 && !a->d->autopilot) {
        /* A new screen should follow its response within two refreshes. */
        double late = (double)(t1 - a->input_ns);
        if (late > 2.5 * a->frame_ns) {
            char d[160];
            snprintf(d, sizeof d, "{\"ms\":%.2f,\"screen\":\"%s\",\"step\":%d}",
                     late / 1e6, session_screen_name(v->screen),
                     v->trial ? v->trial->seq : -1);
            app_log_event(a, "missed_frame", d);
        }
    }
    a->input_ns = 0;
}

static void draw(App *a)
{
    FrameView fv;
    frame_view(a, &fv);
    int64_t t1 = frame_draw(a->d->frame, &fv, a->d->clock, a->d->timing);
    a->need_draw = 0;
    after_present(a, t1);
}

/* ------------------------------------------------------------------- loop */

/* The session's frame clock (answer deadlines, the timeout message) and
** the scroll state of the screen shown, for require_scroll. */
static void session_clock(App *a, int64_t now)
{
    const SessionView *v = session_view(a->session);
    unsigned serial = v->screen_serial;
    int gate = v->scroll_gate;
    SimError err;
    sim_error_clear(&err);
    if (session_tick(a->session, now, app_wall(a), &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        if (session_view(a->session)->screen == SCREEN_STORE_ERROR &&
            a->next_retry_ns == 0) {
            a->next_retry_ns = now + 1000000000LL;
        }
    }
    v = session_view(a->session);
    if (v->screen_serial != serial) {
        a->need_build = 1;
        a->input_ns = now;
        a->d->frame->scroll = 0;
        return;
    }
    if (!a->need_build && report_scroll(a) != gate) {
        a->need_build = 1;
    }
}

/* Timers of a run: the save retry and the countdown redraws. */
static void run_timers(App *a)
{
    int64_t now = app_now(a);
    if (!a->session) {
        /* an idle start screen keeps this station's lease alive (writes
        ** do it during runs); writes only every STORE_LEASE_BEAT_MS */
        SimError err;
        if (store_heartbeat(a->d->store, app_wall(a), &err) != SIM_OK &&
            strcmp(a->start.st.status, err.msg) != 0) {
            start_set_status(&a->start, "%s", err.msg);
            a->need_build = 1;
        }
    }
    if (a->session && a->next_retry_ns && now >= a->next_retry_ns) {
        SimInput in;
        memset(&in, 0, sizeof in);
        in.kind = SIM_IN_RETRY;
        in.t_ns = now;
        a->next_retry_ns = now + 1000000000LL;
        session_input(a, &in);
        a->need_build = 1;
    }
    if (a->session) {
        session_clock(a, now);
        const SessionView *v = session_view(a->session);
        int counting =
            (v->continue_after_ns && now < v->continue_after_ns) ||
            (!v->onset_marked && v->block && v->block->min_seconds > 0) ||
            (v->block && v->block->deadline_countdown && v->deadline_ns &&
             now < v->deadline_ns && v->choice < 0);
        if (counting && now >= a->next_tick_ns) {
            a->need_build = 1;
            a->next_tick_ns = now + 250000000LL;
        }
        if (a->d->autopilot && a->have_shown &&
            v->screen_serial != a->shown_serial) {
            AutopilotCtx ctx;
            autopilot_ctx(a, &ctx);
            autopilot_early(a->d->autopilot, &ctx);
        }
    }
}

int loop_run(const LoopDeps *d)
{
    App app, *a = &app;
    memset(a, 0, sizeof *a);
    a->d = d;
    a->frame_ns = frame_refresh_ns(d->frame);
    start_init(&a->start, d->study, d->store, d->o->db, d->o->station);
    a->start.sync = d->sync;
    a->start.sync_worker = d->sync_worker;
    a->mode = MODE_START;
    refresh_start(a);
    if (!d->autopilot) {
        SDL_StartTextInput();
    }
    int first_frame = 1;
    while (a->mode != MODE_EXIT) {
        /* Logic: take every pending event (stamped as it was queued). */
        SDL_PumpEvents();
        SDL_Event e;
        while (a->mode != MODE_EXIT && SDL_PollEvent(&e)) {
            handle_event(a, &e);
        }
        if (a->mode == MODE_EXIT) {
            break;
        }
        run_timers(a);
        if (d->autopilot && !a->need_build && !a->need_draw) {
            autopilot_turn(a);
        }
        /* Drawing. */
        if (a->need_build) {
            media_guard(a);
            build(a);
            a->need_build = 0;
            a->need_draw = 1;
        }
        if (a->need_draw) {
            draw(a);
            if (first_frame) {
                first_frame = 0;
                int64_t ns = stamps_mono_ns() - d->t_launch_ns;
                fprintf(stderr, "simlab run: first frame after %.1f ms\n",
                        (double)ns / 1e6);
                timing_log_first_frame(d->timing,
                                       stamps_mono_ns() - d->t_launch_ns);
            }
            if (a->session && session_view(a->session)->onset_marked) {
                frame_preload(d->frame, d->study, a->session);
            }
        } else if (!d->autopilot) {
            /* Poll input often so stamps are not tied to frames. */
            struct timespec ts = {0, 500000};
            nanosleep(&ts, NULL);
        }
    }
    int status = a->exit_code;
    if (d->autopilot && status == 0) {
        SimError err;
        int done = 0;
        store_count_complete(d->store, 1, &done, &err);
        fprintf(stderr, "simlab run: %d complete autopilot participants\n",
                done);
    }
    session_close(a->session);
    start_free(&a->start);
    return status;
}
