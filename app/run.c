/*
** `simlab run`: the SDL2 runner. Owns the window, the event loop, timing
** (event stamps, stimulus onsets, missed frames), the experimenter's start
** screen, the participant's run through a Session, the autopilot that
** drives the same loop with synthetic SDL events, and screenshots.
** Logic (translate events, call the session) and drawing (build a Scene
** from the view, render it) are separate steps of each loop turn.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/app.h"

#include <SDL2/SDL.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/scene.h"
#include "app/screens.h"
#include "experiment/session.h"
#include "common/sim_alloc.h"
#include "common/sim_rng.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/study.h"

/* ---------------------------------------------------------------- options */

typedef struct RunOptions {
    const char *dir;
    const char *db;
    const char *station;
    int windowed;
    int display;
    int width, height;
    float font_scale;
    int vsync;
    const char *autopilot; /* policy name, or NULL */
    int participants;
    uint64_t seed;
    const char *screenshot_dir;
    int chaos;              /* autopilot also tries to escape and cheat */
    const char *timing_log; /* benchmark records */
    int exit_after;         /* leave after this many finished runs (bench) */
    int accept_changed;     /* continue a database recorded with an older
                               version of the bundle */
} RunOptions;

/* ------------------------------------------------------------------ clock */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t real_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Event stamps: the watch runs as SDL queues each event (inside
** SDL_PumpEvents or SDL_PushEvent) and records the monotonic time; the loop
** pairs them with the events it polls, in order. */
#define STAMP_RING 256

typedef struct Stamp {
    Uint32 type;
    Uint32 sdl_ms; /* SDL's own timestamp, to match and to compare */
    int code;      /* scancode or mouse button */
    int64_t ns;    /* monotonic, plus the autopilot's offset */
} Stamp;

typedef struct Stamps {
    SDL_mutex *lock;
    Stamp ring[STAMP_RING];
    unsigned head, tail;
    int64_t offset_ns; /* autopilot fast-forward (0 for people) */
} Stamps;

static int watched(Uint32 type)
{
    return type == SDL_KEYDOWN || type == SDL_MOUSEBUTTONDOWN ||
           type == SDL_FINGERDOWN;
}

static int event_code(const SDL_Event *e)
{
    if (e->type == SDL_KEYDOWN) {
        return (int)e->key.keysym.scancode;
    }
    if (e->type == SDL_MOUSEBUTTONDOWN) {
        return e->button.button;
    }
    return 0;
}

static int SDLCALL stamp_watch(void *userdata, SDL_Event *e)
{
    Stamps *st = userdata;
    if (!watched(e->type)) {
        return 1;
    }
    int64_t t = mono_ns();
    SDL_LockMutex(st->lock);
    if (st->head - st->tail >= STAMP_RING) {
        st->tail++; /* drop the oldest */
    }
    Stamp *s = &st->ring[st->head % STAMP_RING];
    s->type = e->type;
    s->sdl_ms = e->common.timestamp;
    s->code = event_code(e);
    s->ns = t + st->offset_ns;
    st->head++;
    SDL_UnlockMutex(st->lock);
    return 1;
}

/* The stamp of a polled event (its oldest unclaimed match); falls back to
** now when none is found. */
static int64_t stamp_take(Stamps *st, const SDL_Event *e, int64_t now)
{
    int64_t t = now;
    SDL_LockMutex(st->lock);
    while (st->tail != st->head) {
        Stamp *s = &st->ring[st->tail % STAMP_RING];
        st->tail++;
        if (s->type == e->type && s->code == event_code(e) &&
            s->sdl_ms == e->common.timestamp) {
            t = s->ns;
            break;
        }
    }
    SDL_UnlockMutex(st->lock);
    return t;
}

/* -------------------------------------------------------------------- app */

typedef enum Mode { MODE_START = 0, MODE_RUN, MODE_EXIT } Mode;

typedef enum Confirm {
    CONFIRM_NONE = 0,
    CONFIRM_PAUSE,
    CONFIRM_ABORT,
    CONFIRM_QUIT
} Confirm;

typedef struct Autopilot {
    int on;
    PolicyKind kind;
    Policy policy;
    SimRng rng;            /* click or key, chaos */
    int enrolled;          /* participants enrolled by this run */
    int in_flight;         /* a synthetic answer is queued */
    unsigned flight_count; /* inputs consumed when it was sent */
    unsigned flight_serial;
    int flight_wait;       /* loop turns waited for it */
    unsigned chaos_serial; /* screen that already got its early input */
    int chaos_paused;      /* chaos paused the run and must resume it */
} Autopilot;

typedef struct App {
    RunOptions o;
    Study *study;
    Store *store;
    Gfx gfx;
    Fonts fonts;
    Ui ui;
    Assets assets;
    Scene scene;
    Stamps stamps;
    Mode mode;
    Session *session;
    char pid[37];
    StartState start;
    ParticipantInfo *unfinished;
    uint64_t assign_seed;
    char **cond_ids;

    /* drawing state */
    int need_build, need_draw;
    unsigned shown_serial; /* serial of the screen last presented */
    int have_shown;
    float scroll;
    int hover;
    Confirm confirm;
    int64_t next_retry_ns;
    int64_t next_tick_ns; /* countdown redraws */
    double frame_ns;      /* refresh period */
    int64_t input_ns;     /* stamp of the input that led to this screen */
    int shots;
    unsigned shot_serial;
    int shot_start;
    int runs_finished;
    int quit_blocked;
    int drop_text;     /* the last key press was a command: the text it
                          produces (SDL_TEXTINPUT) is not typed */
    unsigned consumed; /* inputs the session took so far */

    Autopilot ap;
    FILE *timing;
    int exit_code;
} App;

static int64_t app_now(const App *a)
{
    return mono_ns() + a->stamps.offset_ns;
}

static int64_t app_wall(const App *a)
{
    return real_ms() + a->stamps.offset_ns / 1000000;
}

static void app_log_event(App *a, const char *kind, const char *detail)
{
    SimError err;
    if (store_log_event(a->store, a->session ? a->pid : NULL, kind, detail,
                        app_wall(a), app_now(a), &err) != SIM_OK) {
        fprintf(stderr, "simlab run: log %s: %s\n", kind, err.msg);
    }
}

/* ----------------------------------------------------------- start screen */

static void start_refresh(App *a)
{
    SimError err;
    StartState *st = &a->start;
    sim_free(a->unfinished);
    a->unfinished = NULL;
    size_t n = 0;
    if (store_list_participants(a->store, 1, &a->unfinished, &n, &err) !=
        SIM_OK) {
        snprintf(st->status, sizeof st->status, "%s", err.msg);
        n = 0;
    }
    /* Simulated participants are the autopilot's business. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!a->unfinished[i].simulated) {
            a->unfinished[k++] = a->unfinished[i];
        }
    }
    st->unfinished = a->unfinished;
    st->n_unfinished = k;
    int done = 0;
    store_count_complete(a->store, 0, &done, &err);
    st->n_complete = done;
    a->assign_seed = sim_mix64((uint64_t)mono_ns() ^ 0x5eed);
    char cond[128];
    st->assigned_index = -1;
    if (store_assign_condition(a->store, st->pilot, 0, app_wall(a),
                               a->assign_seed, cond, sizeof cond,
                               &err) == SIM_OK) {
        for (size_t i = 0; i < st->n_conditions; i++) {
            if (strcmp(st->conditions[i], cond) == 0) {
                st->assigned_index = (int)i;
            }
        }
    }
    st->cond_index = st->assigned_index >= 0 ? st->assigned_index : 0;
    struct statvfs vfs;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", a->o.db);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    st->free_bytes = statvfs(dir, &vfs) == 0
                         ? (double)vfs.f_bavail * (double)vfs.f_frsize
                         : 0;
    a->need_build = 1;
}

static void display_event(App *a)
{
    SDL_DisplayMode dm;
    int disp = SDL_GetWindowDisplayIndex(a->gfx.window);
    memset(&dm, 0, sizeof dm);
    SDL_GetCurrentDisplayMode(disp < 0 ? 0 : disp, &dm);
    int ww = 0, wh = 0;
    SDL_GetWindowSize(a->gfx.window, &ww, &wh);
    char detail[512];
    snprintf(detail, sizeof detail,
             "{\"video_driver\":\"%s\",\"renderer\":\"%s\",\"vsync\":%d,"
             "\"display\":%d,\"mode_w\":%d,\"mode_h\":%d,\"refresh_hz\":%d,"
             "\"pixel_format\":\"%s\",\"window_w\":%d,\"window_h\":%d,"
             "\"output_w\":%d,\"output_h\":%d,\"fullscreen\":%d,"
             "\"font_scale\":%.2f,\"autopilot\":%d}",
             SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "",
             a->gfx.renderer_name, a->gfx.vsync, disp, dm.w, dm.h,
             dm.refresh_rate, SDL_GetPixelFormatName(dm.format), ww, wh,
             a->gfx.w, a->gfx.h, !a->o.windowed, (double)a->ui.font_scale,
             a->ap.on);
    app_log_event(a, "display", detail);
}

static int run_begin(App *a, const char *pid)
{
    SimError err;
    Session *s = NULL;
    if (session_open(a->store, a->study, pid, app_wall(a), &s, &err) !=
        SIM_OK) {
        snprintf(a->start.status, sizeof a->start.status,
                 "Cannot open participant %s: %.400s", pid, err.msg);
        a->need_build = 1;
        return -1;
    }
    a->session = s;
    snprintf(a->pid, sizeof a->pid, "%s", pid);
    a->mode = MODE_RUN;
    a->scroll = 0;
    a->have_shown = 0;
    a->confirm = CONFIRM_NONE;
    a->need_build = 1;
    SDL_StopTextInput();
    if (!a->o.windowed) {
        SDL_SetWindowKeyboardGrab(a->gfx.window, SDL_TRUE);
    }
    display_event(a);
    if (a->ap.on) {
        ParticipantInfo info;
        if (store_participant(a->store, pid, &info, &err) == SIM_OK) {
            policy_init(&a->ap.policy, a->ap.kind, a->study,
                        &a->study->simulation, a->o.seed, info.seed);
        }
        a->ap.in_flight = 0;
    }
    return 0;
}

static void run_end(App *a)
{
    session_close(a->session);
    a->session = NULL;
    a->pid[0] = 0;
    a->runs_finished++;
    SDL_SetWindowKeyboardGrab(a->gfx.window, SDL_FALSE);
    if (a->o.exit_after > 0 && a->runs_finished >= a->o.exit_after) {
        a->mode = MODE_EXIT;
        return;
    }
    a->mode = MODE_START;
    a->start.code[0] = 0;
    a->start.code_focus = 1;
    a->start.status[0] = 0;
    SDL_StartTextInput();
    start_refresh(a);
}

static void start_participant(App *a)
{
    SimError err;
    StartState *st = &a->start;
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.code = st->code[0] ? st->code : NULL;
    spec.station = a->o.station;
    spec.pilot = st->pilot;
    spec.simulated = 0;
    spec.condition = st->cond_index != st->assigned_index && st->cond_index >= 0
                         ? st->conditions[st->cond_index]
                         : NULL;
    spec.assign_seed = a->assign_seed;
    spec.wall_ms = app_wall(a);
    ParticipantInfo info;
    if (store_enroll(a->store, &spec, &info, &err) != SIM_OK) {
        snprintf(st->status, sizeof st->status,
                 "Could not enroll the participant: %.400s", err.msg);
        a->need_build = 1;
        return;
    }
    run_begin(a, info.id);
}

/* --------------------------------------------------------------- sessions */

static void session_input(App *a, SimInput *in)
{
    SimError err;
    sim_error_clear(&err);
    int consumed = 0;
    in->wall_ms = app_wall(a);
    unsigned before = session_view(a->session)->screen_serial;
    int rc = session_handle(a->session, in, &consumed, &err);
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
            a->scroll = 0;
        }
        if (a->timing &&
            (in->kind == SIM_IN_CHOOSE || in->kind == SIM_IN_CONTINUE ||
             in->kind == SIM_IN_RATE)) {
            fprintf(a->timing, "input %lld %d %d\n", (long long)in->t_ns,
                    in->kind, in->value);
        }
    }
    if (v->screen != SCREEN_STORE_ERROR) {
        a->next_retry_ns = 0;
    }
}

/* Key names as the study and session spell them: lower case, keypad
** digits as digits. */
static void key_name(SDL_Keycode sym, char *out, size_t n)
{
    const char *name = SDL_GetKeyName(sym);
    if (!name) {
        name = "";
    }
    if (strncmp(name, "Keypad ", 7) == 0 && name[7] && !name[8]) {
        name += 7;
    }
    size_t i = 0;
    for (; name[i] && i + 1 < n; i++) {
        out[i] =
            (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    }
    out[i] = 0;
}

static void set_font_scale(App *a, float f)
{
    if (f < 0.6f) {
        f = 0.6f;
    }
    if (f > 2.5f) {
        f = 2.5f;
    }
    if (fabsf(f - a->ui.font_scale) < 0.01f) {
        return;
    }
    a->ui.font_scale = f;
    ui_update_metrics(&a->ui);
    a->need_build = 1;
    if (a->session) {
        char d[64];
        snprintf(d, sizeof d, "{\"font_scale\":%.2f}", (double)f);
        app_log_event(a, "font_scale", d);
    }
}

static void scroll_by(App *a, float dy)
{
    float max = a->scene.body_h - a->scene.body.h;
    float s = a->scroll + dy;
    if (s > max) {
        s = max;
    }
    if (s < 0) {
        s = 0;
    }
    if (s != a->scroll) {
        a->scroll = s;
        a->need_draw = 1;
    }
}

/* The start screen's condition selector: one step forward or back. */
static void step_condition(App *a, int forward)
{
    int n = (int)a->start.n_conditions;
    if (n > 0) {
        a->start.cond_index = (a->start.cond_index + (forward ? 1 : n - 1)) % n;
        a->need_build = 1;
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

static void handle_action(App *a, const SceneHit *h, int64_t t)
{
    if (!h->enabled) {
        return;
    }
    SimInput in;
    memset(&in, 0, sizeof in);
    in.t_ns = t;
    switch (h->action) {
    case ACT_CONFIRM_YES:
        do_confirm(a, 1, t);
        return;
    case ACT_CONFIRM_NO:
        do_confirm(a, 0, t);
        return;
    case ACT_CHOOSE:
        in.kind = SIM_IN_CHOOSE;
        in.value = h->value;
        break;
    case ACT_RATE:
        in.kind = SIM_IN_RATE;
        in.value = h->value;
        break;
    case ACT_CONTINUE:
        in.kind = SIM_IN_CONTINUE;
        break;
    case ACT_DECLINE:
        in.kind = SIM_IN_DECLINE;
        break;
    case ACT_START:
        start_participant(a);
        return;
    case ACT_RESUME:
        if (h->value >= 0 && (size_t)h->value < a->start.n_unfinished) {
            run_begin(a, a->start.unfinished[h->value].id);
        }
        return;
    case ACT_TOGGLE_PILOT:
        a->start.pilot = !a->start.pilot;
        start_refresh(a);
        return;
    case ACT_COND_PREV:
    case ACT_COND_NEXT:
        step_condition(a, h->action == ACT_COND_NEXT);
        return;
    case ACT_FOCUS_CODE:
        a->start.code_focus = 1;
        a->need_build = 1;
        return;
    default:
        return;
    }
    if (a->session && a->mode == MODE_RUN && a->confirm == CONFIRM_NONE) {
        session_input(a, &in);
    }
}

static void handle_key_start(App *a, const SDL_KeyboardEvent *k, int64_t t)
{
    StartState *st = &a->start;
    SDL_Keycode sym = k->keysym.sym;
    (void)t;
    if (sym == SDLK_ESCAPE) {
        a->confirm = CONFIRM_QUIT;
        a->need_build = 1;
    } else if (sym == SDLK_RETURN || sym == SDLK_KP_ENTER) {
        start_participant(a);
    } else if (sym == SDLK_TAB) {
        st->pilot = !st->pilot;
        start_refresh(a);
    } else if (sym == SDLK_LEFT || sym == SDLK_RIGHT) {
        step_condition(a, sym == SDLK_RIGHT);
    } else if (sym == SDLK_BACKSPACE) {
        size_t n = strlen(st->code);
        while (n > 0 && ((unsigned char)st->code[n - 1] & 0xC0) == 0x80) {
            n--; /* a UTF-8 continuation byte */
        }
        if (n > 0) {
            n--;
        }
        st->code[n] = 0;
        a->need_build = 1;
    } else {
        a->drop_text = 0; /* typed into the code field */
    }
}

static void handle_key(App *a, const SDL_KeyboardEvent *k, int64_t t)
{
    if (k->repeat) {
        return; /* held keys never answer twice */
    }
    /* Ctrl +, the dialog's N and the like must not also land in the code
    ** field: only the start screen lets a key through (handle_key_start). */
    a->drop_text = 1;
    SDL_Keymod mod = k->keysym.mod;
    SDL_Keycode sym = k->keysym.sym;
    int ctrl = (mod & KMOD_CTRL) != 0, shift = (mod & KMOD_SHIFT) != 0;
    /* Text size: Ctrl + / Ctrl - / Ctrl 0, for everyone. */
    if (ctrl && !shift &&
        (sym == SDLK_EQUALS || sym == SDLK_PLUS || sym == SDLK_KP_PLUS)) {
        set_font_scale(a, a->ui.font_scale * 1.12f);
        return;
    }
    if (ctrl && (sym == SDLK_MINUS || sym == SDLK_KP_MINUS)) {
        set_font_scale(a, a->ui.font_scale / 1.12f);
        return;
    }
    if (ctrl && (sym == SDLK_0 || sym == SDLK_KP_0)) {
        set_font_scale(a, a->o.font_scale);
        return;
    }
    if (a->confirm != CONFIRM_NONE) {
        if (sym == SDLK_y) {
            do_confirm(a, 1, t);
        } else if (sym == SDLK_n || sym == SDLK_ESCAPE) {
            do_confirm(a, 0, t);
        }
        return;
    }
    if (a->mode == MODE_START) {
        handle_key_start(a, k, t);
        return;
    }
    if (!a->session) {
        return;
    }
    const SessionView *v = session_view(a->session);
    /* Experimenter chords. */
    if (ctrl && shift) {
        if (sym == SDLK_p) {
            if (v->screen == SCREEN_PAUSED) {
                SimInput in;
                memset(&in, 0, sizeof in);
                in.kind = SIM_IN_RESUME;
                in.t_ns = t;
                session_input(a, &in);
            } else if (!session_finished(a->session)) {
                a->confirm = CONFIRM_PAUSE;
                a->need_build = 1;
            }
        } else if (sym == SDLK_a && !session_finished(a->session)) {
            a->confirm = CONFIRM_ABORT;
            a->need_build = 1;
        } else if (sym == SDLK_n && session_finished(a->session)) {
            run_end(a);
        }
        return;
    }
    /* Scrolling is the participant's own business. */
    float page = a->scene.body.h * 0.85f;
    switch (sym) {
    case SDLK_DOWN:
        scroll_by(a, a->ui.u * 3);
        return;
    case SDLK_UP:
        scroll_by(a, -a->ui.u * 3);
        return;
    case SDLK_PAGEDOWN:
        scroll_by(a, page);
        return;
    case SDLK_PAGEUP:
        scroll_by(a, -page);
        return;
    case SDLK_HOME:
        scroll_by(a, -a->scene.body_h);
        return;
    case SDLK_END:
        scroll_by(a, a->scene.body_h);
        return;
    case SDLK_ESCAPE:
    case SDLK_F4:
        return; /* swallowed: the participant cannot leave */
    default:
        break;
    }
    if (ctrl || (mod & (KMOD_ALT | KMOD_GUI))) {
        return;
    }
    char name[32];
    key_name(sym, name, sizeof name);
    SimInput in;
    memset(&in, 0, sizeof in);
    in.kind = SIM_IN_KEY;
    in.key = name;
    in.t_ns = t;
    session_input(a, &in);
}

static void mouse_point(const App *a, int x, int y, float *px, float *py)
{
    *px = (float)x * a->gfx.px_per_pt;
    *py = (float)y * a->gfx.px_per_pt;
}

static void handle_event(App *a, const SDL_Event *e)
{
    int64_t now = app_now(a);
    switch (e->type) {
    case SDL_QUIT:
        if (a->mode == MODE_START) {
            a->confirm = CONFIRM_QUIT;
            a->need_build = 1;
        } else if (a->session) {
            /* Window close, Alt+F4, SIGTERM: swallowed during a run. */
            if (a->quit_blocked++ < 20) {
                app_log_event(a, "quit_blocked", "{\"source\":\"quit\"}");
            }
        }
        return;
    case SDL_WINDOWEVENT:
        switch (e->window.event) {
        case SDL_WINDOWEVENT_SIZE_CHANGED:
        case SDL_WINDOWEVENT_RESIZED:
            gfx_update_size(&a->gfx);
            ui_update_metrics(&a->ui);
            a->need_build = 1;
            break;
        case SDL_WINDOWEVENT_EXPOSED:
            a->need_draw = 1;
            break;
        case SDL_WINDOWEVENT_FOCUS_LOST:
            if (a->session) {
                app_log_event(a, "focus_lost", NULL);
            }
            break;
        case SDL_WINDOWEVENT_FOCUS_GAINED:
            if (a->session) {
                app_log_event(a, "focus_gained", NULL);
            }
            break;
        case SDL_WINDOWEVENT_CLOSE:
            if (a->session && a->quit_blocked++ < 20) {
                app_log_event(a, "quit_blocked", "{\"source\":\"close\"}");
            }
            break;
        default:
            break;
        }
        return;
    case SDL_KEYDOWN: {
        int64_t t = stamp_take(&a->stamps, e, now);
        if (a->timing) {
            fprintf(a->timing, "key %lld %u %lld\n", (long long)t,
                    e->key.timestamp, (long long)now);
        }
        handle_key(a, &e->key, t);
        return;
    }
    case SDL_TEXTINPUT:
        if (a->mode == MODE_START && a->start.code_focus &&
            a->confirm == CONFIRM_NONE && !a->drop_text) {
            size_t n = strlen(a->start.code), m = strlen(e->text.text);
            if (n + m < sizeof a->start.code) {
                memcpy(a->start.code + n, e->text.text, m + 1);
                a->need_build = 1;
            }
        }
        return;
    case SDL_MOUSEMOTION: {
        float x, y;
        mouse_point(a, e->motion.x, e->motion.y, &x, &y);
        int h = scene_hit_at(&a->scene, x, y, a->scroll);
        if (h != a->hover) {
            a->hover = h;
            a->need_draw = 1;
        }
        return;
    }
    case SDL_MOUSEWHEEL:
        scroll_by(a, -(float)e->wheel.y * a->ui.u * 3);
        return;
    case SDL_MOUSEBUTTONDOWN: {
        int64_t t = stamp_take(&a->stamps, e, now);
        if (e->button.button != SDL_BUTTON_LEFT || e->button.clicks > 1) {
            return; /* double clicks never answer twice */
        }
        float x, y;
        mouse_point(a, e->button.x, e->button.y, &x, &y);
        int h = scene_hit_at(&a->scene, x, y, a->scroll);
        if (h >= 0) {
            SceneHit hit = a->scene.hits[h];
            if (a->confirm != CONFIRM_NONE && hit.layer != LAYER_OVERLAY) {
                return;
            }
            handle_action(a, &hit, t);
        }
        return;
    }
    default:
        return;
    }
}

/* -------------------------------------------------------------- autopilot */

static void push_key(App *a, const char *name, int repeat)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.windowID = SDL_GetWindowID(a->gfx.window);
    e.key.state = SDL_PRESSED;
    e.key.repeat = (Uint8)repeat;
    e.key.keysym.sym = SDL_GetKeyFromName(name);
    e.key.keysym.scancode = SDL_GetScancodeFromKey(e.key.keysym.sym);
    SDL_PushEvent(&e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

static void push_chord(App *a, SDL_Keycode sym)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.windowID = SDL_GetWindowID(a->gfx.window);
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(sym);
    e.key.keysym.mod = KMOD_LCTRL | KMOD_LSHIFT;
    SDL_PushEvent(&e);
}

/* A click at the centre of the region, in window points; clicks = 1 or 2. */
static int push_click(App *a, int hit, int clicks)
{
    if (hit < 0) {
        return -1;
    }
    const SceneHit *h = &a->scene.hits[hit];
    float cx = h->r.x + h->r.w / 2, cy = h->r.y + h->r.h / 2;
    if (h->layer == LAYER_BODY) {
        cy -= a->scroll;
        if (cy < a->scene.body.y || cy > a->scene.body.y + a->scene.body.h) {
            return -1; /* scrolled out of view: use the keyboard */
        }
    }
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.windowID = SDL_GetWindowID(a->gfx.window);
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = SDL_PRESSED;
    e.button.clicks = (Uint8)clicks;
    e.button.x = (int)(cx / a->gfx.px_per_pt);
    e.button.y = (int)(cy / a->gfx.px_per_pt);
    SDL_PushEvent(&e);
    e.type = SDL_MOUSEBUTTONUP;
    e.button.state = SDL_RELEASED;
    SDL_PushEvent(&e);
    return 0;
}

static const char *class_key_name(const App *a, int c, char *buf, size_t n)
{
    if (c >= 0 && (size_t)c < a->study->n_classes && a->study->classes[c].key &&
        *a->study->classes[c].key) {
        return a->study->classes[c].key;
    }
    snprintf(buf, n, "%d", c + 1);
    return buf;
}

/* Sends the policy's input as a real SDL event: a click on the button or
** the key shown on it, chosen at random. */
static void autopilot_send(App *a, const SimInput *in, const SessionView *v)
{
    int by_key = sim_rng_below(&a->ap.rng, 2) == 0;
    char buf[16];
    switch (in->kind) {
    case SIM_IN_CHOOSE:
        if (v->question) {
            snprintf(buf, sizeof buf, "%d", in->value + 1);
            if (by_key ||
                push_click(a, scene_find_hit(&a->scene, ACT_CHOOSE, in->value),
                           1) != 0) {
                push_key(a, buf, 0);
            }
        } else if (by_key ||
                   push_click(a,
                              scene_find_hit(&a->scene, ACT_CHOOSE, in->value),
                              1) != 0) {
            push_key(a, class_key_name(a, in->value, buf, sizeof buf), 0);
        }
        break;
    case SIM_IN_RATE:
        snprintf(buf, sizeof buf, "%d", in->value);
        if (by_key ||
            push_click(a, scene_find_hit(&a->scene, ACT_RATE, in->value), 1) !=
                0) {
            push_key(a, buf, 0);
        }
        break;
    case SIM_IN_CONTINUE:
        if (by_key || push_click(a, scene_find_hit(&a->scene, ACT_CONTINUE, -1),
                                 1) != 0) {
            push_key(a, "Return", 0);
        }
        break;
    case SIM_IN_DECLINE:
        push_click(a, scene_find_hit(&a->scene, ACT_DECLINE, -1), 1);
        break;
    default:
        break;
    }
}

/* Chaos: a class the model does not answer on this forced-choice screen,
** or -1 when the screen asks for no class. */
static int wrong_class(const SessionView *v)
{
    if (!v->need_choice || v->question || !v->item || v->n_classes < 2) {
        return -1;
    }
    const Item *it = v->item;
    int pred =
        v->ask_counterfactual && it->cf ? it->cf->prediction : it->prediction;
    return pred == 0 ? 1 : 0;
}

/* Chaos: what a participant might try on every screen (all must be
** ignored): closing the window, Escape, Alt+F4, key repeats and double
** clicks of a wrong answer. */
static void autopilot_chaos(App *a, const SessionView *v)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_QUIT;
    SDL_PushEvent(&e);
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = SDL_WINDOWEVENT_CLOSE;
    e.window.windowID = SDL_GetWindowID(a->gfx.window);
    SDL_PushEvent(&e);
    push_key(a, "Escape", 0);
    int wrong = wrong_class(v);
    if (wrong >= 0) {
        char buf[16];
        push_key(a, class_key_name(a, wrong, buf, sizeof buf), 1);
        push_click(a, scene_find_hit(&a->scene, ACT_CHOOSE, wrong), 2);
    }
}

/* Right after a new screen was decided and before it is shown: an input
** that must be ignored because it comes before the onset. */
static void autopilot_early(App *a)
{
    const SessionView *v = session_view(a->session);
    if (!a->o.chaos || v->screen_serial == a->ap.chaos_serial) {
        return;
    }
    a->ap.chaos_serial = v->screen_serial;
    int wrong = wrong_class(v);
    if (wrong >= 0) {
        char buf[16];
        push_key(a, class_key_name(a, wrong, buf, sizeof buf), 0);
    } else if (v->need_continue) {
        push_key(a, "Return", 0);
    }
}

static int autopilot_next_participant(App *a)
{
    SimError err;
    int done = 0;
    if (store_count_complete(a->store, 1, &done, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        return -1;
    }
    if (done >= a->o.participants) {
        return 1;
    }
    ParticipantInfo *list = NULL;
    size_t n = 0;
    if (store_list_participants(a->store, 1, &list, &n, &err) == SIM_OK) {
        for (size_t i = 0; i < n; i++) {
            if (list[i].simulated) {
                char id[37];
                snprintf(id, sizeof id, "%s", list[i].id);
                sim_free(list);
                fprintf(stderr, "simlab run: resuming %s\n", id);
                return run_begin(a, id) == 0 ? 0 : -1;
            }
        }
        sim_free(list);
    }
    if (a->ap.enrolled > 10 * a->o.participants + 10) {
        fprintf(stderr, "simlab run: too many participants were screened "
                        "out or declined\n");
        return -1;
    }
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.station = a->o.station;
    spec.simulated = 1;
    uint64_t k = (uint64_t)done * 7919u + (uint64_t)a->ap.enrolled + 1;
    spec.seed = sim_mix64(a->o.seed * 0x9E3779B97F4A7C15ull + k);
    spec.assign_seed = sim_mix64(spec.seed + 1);
    spec.wall_ms = app_wall(a);
    ParticipantInfo info;
    if (store_enroll(a->store, &spec, &info, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: enroll: %s\n", err.msg);
        return -1;
    }
    a->ap.enrolled++;
    return run_begin(a, info.id) == 0 ? 0 : -1;
}

/* Moves the autopilot's clock forward to t (never back). */
static void autopilot_skip_to(App *a, int64_t t)
{
    SDL_LockMutex(a->stamps.lock);
    int64_t now = app_now(a);
    if (t > now) {
        a->stamps.offset_ns += t - now;
    }
    SDL_UnlockMutex(a->stamps.lock);
}

static void autopilot_step(App *a)
{
    if (a->mode == MODE_START) {
        int r = autopilot_next_participant(a);
        if (r != 0) {
            a->exit_code = r < 0 ? 1 : 0;
            a->mode = MODE_EXIT;
        }
        return;
    }
    if (!a->session || a->confirm != CONFIRM_NONE) {
        if (a->confirm != CONFIRM_NONE && a->o.chaos) {
            push_key(a, "y", 0);
        }
        return;
    }
    const SessionView *v = session_view(a->session);
    if (session_finished(a->session)) {
        if (a->have_shown && a->shown_serial == v->screen_serial) {
            run_end(a);
        }
        return;
    }
    if (!v->onset_marked || !a->have_shown ||
        a->shown_serial != v->screen_serial) {
        return; /* wait until the screen is on the display */
    }
    if (a->ap.in_flight) {
        if (a->ap.flight_count != a->consumed ||
            a->ap.flight_serial != v->screen_serial) {
            a->ap.in_flight = 0;
        } else if (++a->ap.flight_wait > 50) {
            a->ap.in_flight = 0; /* lost (e.g. the click missed): try again */
        } else {
            return;
        }
    }
    if (v->screen == SCREEN_PAUSED) {
        if (a->ap.chaos_paused) {
            a->ap.chaos_paused = 0;
            push_chord(a, SDLK_p);
        }
        return;
    }
    if (a->o.chaos && v->screen == SCREEN_PREDICT &&
        sim_rng_below(&a->ap.rng, 25) == 0) {
        /* Pause and resume once in a while, through the chord and the
        ** confirmation, as the experimenter would. */
        a->ap.chaos_paused = 1;
        push_chord(a, SDLK_p);
        return;
    }
    int64_t t = app_now(a);
    SimInput in;
    if (policy_next_input(&a->ap.policy, v, &t, &in) != 0) {
        return;
    }
    if (in.kind == SIM_IN_RETRY) {
        /* The app retries on its own clock; jump ahead to it. */
        autopilot_skip_to(a, a->next_retry_ns);
        return;
    }
    autopilot_skip_to(a, in.t_ns);
    if (a->o.chaos) {
        autopilot_chaos(a, v);
    }
    autopilot_send(a, &in, v);
    a->ap.in_flight = 1;
    a->ap.flight_count = a->consumed;
    a->ap.flight_serial = v->screen_serial;
    a->ap.flight_wait = 0;
}

/* ------------------------------------------------------------------ frame */

static void build_scene(App *a)
{
    if (a->mode == MODE_START) {
        screen_build_start(&a->scene, &a->ui, &a->start);
        if (a->confirm == CONFIRM_QUIT) {
            screen_add_confirm(&a->scene, &a->ui, "Quit simlab?",
                               "No participant is running. The database is "
                               "closed cleanly.",
                               "Quit");
        }
    } else if (a->session) {
        ScreenCtx sx;
        memset(&sx, 0, sizeof sx);
        sx.ui = &a->ui;
        sx.assets = &a->assets;
        sx.view = session_view(a->session);
        sx.now_ns = app_now(a);
        screen_build(&a->scene, &sx);
        const SessionView *v = sx.view;
        char note[700];
        note[0] = 0;
        if (v->screen == SCREEN_STORE_ERROR) {
            snprintf(note, sizeof note,
                     "Experimenter: the last response is not saved yet (%s). "
                     "It is kept and saving is retried every second. "
                     "Ctrl+Shift+A aborts.",
                     v->message ? v->message : "database error");
        } else if (v->screen == SCREEN_PAUSED) {
            snprintf(note, sizeof note,
                     "Experimenter: Ctrl+Shift+P resumes, Ctrl+Shift+A "
                     "aborts.");
        } else if (session_finished(a->session)) {
            snprintf(note, sizeof note,
                     "Experimenter: %sCtrl+Shift+N returns to the start "
                     "screen.",
                     v->aborted ? "the run was aborted and can be resumed "
                                  "later. "
                                : "");
        }
        if (note[0]) {
            screen_add_note(&a->scene, &a->ui, note);
        }
        if (a->confirm == CONFIRM_PAUSE) {
            screen_add_confirm(&a->scene, &a->ui, "Pause this run?",
                               "The participant sees a calm pause screen. "
                               "Ctrl+Shift+P resumes.",
                               "Pause");
        } else if (a->confirm == CONFIRM_ABORT) {
            screen_add_confirm(&a->scene, &a->ui, "Abort this participant?",
                               "Everything answered so far is kept; the "
                               "participant can be resumed later from the "
                               "start screen.",
                               "Abort");
        }
    }
    scroll_by(a, 0);
    int mx = 0, my = 0;
    SDL_GetMouseState(&mx, &my);
    float px, py;
    mouse_point(a, mx, my, &px, &py);
    a->hover = a->ap.on ? -1 : scene_hit_at(&a->scene, px, py, a->scroll);
}

static void screenshot(App *a, const char *what)
{
    char path[1400];
    SimError err;
    snprintf(path, sizeof path, "%s/%04d-%s.png", a->o.screenshot_dir,
             ++a->shots, what);
    if (gfx_save_png(&a->gfx, path, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
    }
}

static void shot_name(const App *a, char *out, size_t n)
{
    const SessionView *v = session_view(a->session);
    const char *block = v->block && v->block->id ? v->block->id : "";
    int idx = v->trial ? v->trial->index_in_block + 1 : 0;
    snprintf(out, n, "%s%s%s-%02d%s", session_screen_name(v->screen),
             block[0] ? "-" : "", block, idx,
             v->screen == SCREEN_FEEDBACK && !v->feedback_final ? "-retry"
                                                                : "");
    for (char *p = out; *p; p++) {
        if (*p == '/' || *p == ' ') {
            *p = '_';
        }
    }
}

/* Draws the scene and presents it; marks the onset of a new screen with
** the time right after the present. */
static void draw_frame(App *a)
{
    Gfx *g = &a->gfx;
    int64_t t0 = app_now(a);
    SDL_SetRenderDrawColor(g->renderer, a->ui.th.bg.r, a->ui.th.bg.g,
                           a->ui.th.bg.b, 255);
    SDL_RenderClear(g->renderer);
    scene_render(&a->scene, g, a->scroll, a->hover);
    int take_shot = 0;
    char name[160];
    if (a->o.screenshot_dir) {
        if (a->mode == MODE_START && !a->shot_start && !a->ap.on) {
            a->shot_start = 1;
            snprintf(name, sizeof name, "start");
            take_shot = 1;
        } else if (a->session) {
            const SessionView *v = session_view(a->session);
            if (!a->have_shown || v->screen_serial != a->shot_serial ||
                !a->shots) {
                a->shot_serial = v->screen_serial;
                shot_name(a, name, sizeof name);
                take_shot = 1;
            }
        }
    }
    if (take_shot) {
        screenshot(a, name); /* read back before present: buffer is valid */
    }
    SDL_RenderPresent(g->renderer);
    int64_t t1 = app_now(a);
    if (a->timing) {
        fprintf(a->timing, "frame %lld %lld\n", (long long)t0,
                (long long)(t1 - t0));
    }
    a->need_draw = 0;
    if (a->mode != MODE_RUN || !a->session) {
        return;
    }
    const SessionView *v = session_view(a->session);
    int fresh = !a->have_shown || v->screen_serial != a->shown_serial;
    a->have_shown = 1;
    a->shown_serial = v->screen_serial;
    if (!v->onset_marked) {
        session_mark_onset(a->session, t1);
        if (a->timing) {
            const SessionView *w = session_view(a->session);
            fprintf(a->timing, "onset %lld %u %lld %s %d %d %d %d\n",
                    (long long)t1, w->screen_serial, (long long)a->input_ns,
                    session_screen_name(w->screen), w->need_choice,
                    w->need_rating,
                    w->question ? (int)w->question->n_options : 0, w->attempt);
            fflush(a->timing);
        }
        /* The view now enables its buttons; the picture is unchanged. */
        build_scene(a);
    }
    if (fresh && a->input_ns > 0 && !a->ap.on) {
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

static void preload_next(App *a)
{
    /* Decode the images and heatmaps of the next steps now, while the
    ** participant looks at this one. */
    const Schedule *sch = session_schedule(a->session);
    const SessionView *v = session_view(a->session);
    if (!sch || !v->trial) {
        return;
    }
    const Condition *cond = study_find_condition(a->study, sch->condition);
    for (size_t k = (size_t)v->trial->seq + 1;
         k < sch->n_trials && k <= (size_t)v->trial->seq + 2; k++) {
        const Trial *t = &sch->trials[k];
        const Item *it =
            t->item_key ? study_find_item(a->study, t->item_key) : NULL;
        if (!it) {
            continue;
        }
        if (it->input.modality == MODALITY_IMAGE) {
            assets_image(&a->assets, it->input.text);
        }
        const Explanation *e =
            cond && cond->method ? item_explanation(it, cond->method) : NULL;
        for (size_t p = 0;
             e && p < (e->kind == EXPL_COMPOSITE ? e->n_parts : 1); p++) {
            const Explanation *x = e->kind == EXPL_COMPOSITE ? &e->parts[p] : e;
            if (x->kind == EXPL_HEATMAP) {
                assets_heatmap(&a->assets, x->file, x->file_is_npy,
                               x->colormap);
            }
        }
        /* Warm the glyph atlas with the item's text. */
        if (it->input.text && it->input.modality != MODALITY_IMAGE) {
            font_width(a->ui.body, it->input.text, strlen(it->input.text));
        }
    }
}

/* ---------------------------------------------------------------- options */

static void run_usage(void)
{
    fputs("usage: simlab run DIR [--db FILE] [--station NAME] [--windowed]\n"
          "         [--display N] [--size WxH] [--font-scale F] [--no-vsync]\n"
          "         [--autopilot model|label|random|mixed [--participants N]\n"
          "          [--seed S] [--chaos]] [--screenshot-dir DIR]\n"
          "         [--timing-log FILE] [--accept-changed-bundle]\n",
          stderr);
}

static int parse_args(int argc, char **argv, RunOptions *o)
{
    memset(o, 0, sizeof *o);
    o->participants = 1;
    o->seed = 1;
    o->font_scale = 1;
    o->vsync = 1;
    o->display = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(s, "--db") == 0 && v) {
            o->db = v, i++;
        } else if (strcmp(s, "--station") == 0 && v) {
            o->station = v, i++;
        } else if (strcmp(s, "--windowed") == 0) {
            o->windowed = 1;
        } else if (strcmp(s, "--display") == 0 && v) {
            o->display = atoi(v), i++;
        } else if (strcmp(s, "--size") == 0 && v &&
                   sscanf(v, "%dx%d", &o->width, &o->height) == 2) {
            o->windowed = 1;
            i++;
        } else if (strcmp(s, "--font-scale") == 0 && v && atof(v) > 0) {
            o->font_scale = (float)atof(v), i++;
        } else if (strcmp(s, "--no-vsync") == 0) {
            o->vsync = 0;
        } else if (strcmp(s, "--autopilot") == 0 && v) {
            o->autopilot = v, i++;
        } else if (strcmp(s, "--participants") == 0 && v && atoi(v) > 0) {
            o->participants = atoi(v), i++;
        } else if (strcmp(s, "--seed") == 0 && v) {
            o->seed = strtoull(v, NULL, 10), i++;
        } else if (strcmp(s, "--screenshot-dir") == 0 && v) {
            o->screenshot_dir = v, i++;
        } else if (strcmp(s, "--chaos") == 0) {
            o->chaos = 1;
        } else if (strcmp(s, "--accept-changed-bundle") == 0) {
            o->accept_changed = 1;
        } else if (strcmp(s, "--timing-log") == 0 && v) {
            o->timing_log = v, i++;
        } else if (strcmp(s, "--exit-after") == 0 && v) {
            o->exit_after = atoi(v), i++;
        } else if (s[0] != '-' && !o->dir) {
            o->dir = s;
        } else {
            fprintf(stderr, "simlab run: bad or incomplete argument '%s'\n", s);
            run_usage();
            return -1;
        }
    }
    if (!o->dir) {
        fprintf(stderr, "simlab run: missing study bundle directory\n");
        run_usage();
        return -1;
    }
    return 0;
}

static int load_study(App *a)
{
    SimError err;
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(a->o.dir, &a->study, &rep, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        for (size_t i = 0; i < rep.n_errors; i++) {
            study_diag_print(stderr, "  ", &rep.errors[i]);
        }
        fprintf(stderr, "Run 'simlab check %s' for the full report.\n",
                a->o.dir);
    }
    study_report_free(&rep);
    return rc;
}

static int mkdir_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        return 0;
    }
    *slash = 0;
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        return 0;
    }
    return mkdir(dir, 0755);
}

/* mkdir -p: every missing folder of path. */
static int mkdir_p(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = c;
            if (!c) {
                return 0;
            }
        }
    }
}

static void app_free(App *a)
{
    session_close(a->session);
    sim_free(a->unfinished);
    sim_free(a->cond_ids);
    scene_free(&a->scene);
    assets_free(&a->assets);
    fonts_free(&a->fonts);
    if (a->stamps.lock) {
        SDL_DelEventWatch(stamp_watch, &a->stamps);
        SDL_DestroyMutex(a->stamps.lock);
    }
    if (a->gfx.window) {
        gfx_close(&a->gfx);
    }
    store_close(a->store);
    study_free(a->study);
    if (a->timing) {
        fclose(a->timing);
    }
}

int app_run(int argc, char **argv)
{
    App *a = sim_calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "simlab run: out of memory\n");
        return 1;
    }
    int64_t t_launch = mono_ns();
    SimError err;
    int status = 1;
    char dbbuf[1024], hostname[64];
    if (parse_args(argc, argv, &a->o) != 0) {
        sim_free(a);
        return 2;
    }
    if (a->o.autopilot) {
        if (policy_parse(a->o.autopilot, &a->ap.kind, &err) != SIM_OK) {
            fprintf(stderr, "simlab run: %s\n", err.msg);
            sim_free(a);
            return 2;
        }
        a->ap.on = 1;
        sim_rng_seed(&a->ap.rng, a->o.seed ^ 0xA5A5u);
        if (!a->o.width) {
            a->o.windowed = 1;
        }
    }
    if (load_study(a) != SIM_OK) {
        goto cleanup;
    }
    if (!a->o.db) {
        snprintf(dbbuf, sizeof dbbuf, "simlab-data/%s.db", a->study->id);
        a->o.db = dbbuf;
    }
    if (!a->o.station) {
        if (gethostname(hostname, sizeof hostname) != 0) {
            snprintf(hostname, sizeof hostname, "station");
        }
        hostname[sizeof hostname - 1] = 0;
        a->o.station = hostname;
    }
    if (mkdir_parent(a->o.db) != 0) {
        fprintf(stderr, "simlab run: %s: cannot create its folder: %s\n",
                a->o.db, strerror(errno));
        goto cleanup;
    }
    if (store_open(a->o.db, a->study, DURABILITY_FULL, a->o.accept_changed,
                   real_ms(), &a->store, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    if (a->o.screenshot_dir && mkdir_p(a->o.screenshot_dir) != 0) {
        fprintf(stderr, "simlab run: %s: %s\n", a->o.screenshot_dir,
                strerror(errno));
        goto cleanup;
    }
    if (a->o.timing_log) {
        a->timing = fopen(a->o.timing_log, "w");
        if (!a->timing) {
            fprintf(stderr, "simlab run: %s: cannot open the timing log: %s\n",
                    a->o.timing_log, strerror(errno));
            goto cleanup;
        }
        setvbuf(a->timing, NULL, _IOLBF, 0);
    }
    GfxOptions go;
    memset(&go, 0, sizeof go);
    char title[300];
    snprintf(title, sizeof title, "simlab \xE2\x80\x94 %s", a->study->title);
    go.title = title;
    go.windowed = a->o.windowed;
    go.width = a->o.width;
    go.height = a->o.height;
    go.display = a->o.display;
    go.vsync = a->o.vsync && !a->ap.on;
    if (gfx_open(&a->gfx, &go, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    char assets_dir[1024], font_dir[1100];
    if (gfx_find_assets(assets_dir, sizeof assets_dir, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets_dir);
    if (fonts_init(&a->fonts, a->gfx.renderer, font_dir, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    a->ui.gfx = &a->gfx;
    a->ui.fonts = &a->fonts;
    a->ui.font_scale = a->o.font_scale;
    ui_init_theme(&a->ui);
    ui_update_metrics(&a->ui);
    assets_init(&a->assets, a->gfx.renderer, a->study->dir);
    scene_init(&a->scene);
    a->hover = -1;
    a->stamps.lock = SDL_CreateMutex();
    if (a->timing) {
        /* Pairs SDL's millisecond clock with the monotonic one. */
        fprintf(a->timing, "clock %llu %lld\n",
                (unsigned long long)SDL_GetTicks64(), (long long)mono_ns());
    }
    SDL_AddEventWatch(stamp_watch, &a->stamps);
    SDL_EventState(SDL_DROPFILE, SDL_DISABLE);
    {
        SDL_DisplayMode dm;
        int disp = SDL_GetWindowDisplayIndex(a->gfx.window);
        a->frame_ns =
            SDL_GetCurrentDisplayMode(disp < 0 ? 0 : disp, &dm) == 0 &&
                    dm.refresh_rate > 0
                ? 1e9 / dm.refresh_rate
                : 1e9 / 60;
    }
    /* Start screen state. */
    a->cond_ids = sim_calloc(a->study->n_conditions + 1, sizeof(char *));
    for (size_t i = 0; a->cond_ids && i < a->study->n_conditions; i++) {
        a->cond_ids[i] = a->study->conditions[i].id;
    }
    a->start.title = a->study->title;
    a->start.study_id = a->study->id;
    a->start.preset = a->study->preset;
    a->start.hash = a->study->hash;
    a->start.db_path = a->o.db;
    a->start.station = a->o.station;
    a->start.conditions = (const char **)a->cond_ids;
    a->start.n_conditions = a->study->n_conditions;
    a->start.assign_rule =
        a->study->assignment.rule == ASSIGN_HASE ? "hase" : "balanced";
    a->start.code_focus = 1;
    a->mode = MODE_START;
    start_refresh(a);
    if (!a->ap.on) {
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
        int64_t now = app_now(a);
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
            const SessionView *v = session_view(a->session);
            int counting =
                (v->continue_after_ns && now < v->continue_after_ns) ||
                (!v->onset_marked && v->block && v->block->min_seconds > 0);
            if (counting && now >= a->next_tick_ns) {
                a->need_build = 1;
                a->next_tick_ns = now + 250000000LL;
            }
            if (a->have_shown && v->screen_serial != a->shown_serial) {
                autopilot_early(a);
            }
        }
        if (a->ap.on && !a->need_build && !a->need_draw) {
            autopilot_step(a);
        }
        /* Drawing. */
        if (a->need_build) {
            build_scene(a);
            a->need_build = 0;
            a->need_draw = 1;
        }
        if (a->need_draw) {
            draw_frame(a);
            if (first_frame) {
                first_frame = 0;
                fprintf(stderr, "simlab run: first frame after %.1f ms\n",
                        (double)(mono_ns() - t_launch) / 1e6);
                if (a->timing) {
                    fprintf(a->timing, "first_frame %lld\n",
                            (long long)(mono_ns() - t_launch));
                }
            }
            if (a->session && session_view(a->session)->onset_marked) {
                preload_next(a);
            }
        } else if (!a->ap.on) {
            /* Poll input often so stamps are not tied to frames. */
            struct timespec ts = {0, 500000};
            nanosleep(&ts, NULL);
        }
    }
    status = a->exit_code;
    if (a->ap.on && status == 0) {
        int done = 0;
        store_count_complete(a->store, 1, &done, &err);
        fprintf(stderr, "simlab run: %d complete autopilot participants\n",
                done);
    }
cleanup:
    app_free(a);
    sim_free(a);
    return status;
}
