/*
** `simlab selftest [DIR] [--db FILE] [--out DIR] ...`: the timing of this
** station, as a paper can cite it. Opens the runner's window on the
** station's display (fullscreen unless --windowed) and measures
**   1. the refresh: back-to-back presents of a changing screen, their
**      intervals (measured rate, jitter) against the display mode's rate;
**   2. a trial sequence: the study's predict screens (built-in ones
**      without DIR), a new item every 400 ms, presented every frame:
**      flip-to-flip intervals, missed frames (an interval over 1.5
**      periods), the time to build and present a new screen;
**   3. under X11, input-to-record latency: key presses injected through
**      XTest at known times during the sequence, stamped as `simlab run`
**      stamps them (input thread, else SDL's event watch).
** Writes selftest.md and selftest.json to --out; with --db (and DIR) the
** report is also stored in the study's database (table station_timing).
** A virtual display (Xvfb and the like, SDL's dummy driver) is named as
** such in the report.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/app.h"

#include <SDL2/SDL.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/frame.h"
#include "app/rawinput.h"
#include "app/rush.h"
#include "app/station_conf.h"
#include "app/screens.h"
#include "app/stamps.h"
#include "common/sim_alloc.h"
#include "experiment/export.h"
#include "experiment/store.h"
#include "stimuli/study.h"
#include "stimuli/uistrings.h"

#define MAX_FRAMES  20000
#define MAX_PRESSES 256
#define TRIAL_NS    400000000LL

typedef struct Opts {
    const char *dir, *db, *out, *station, *shot_dir;
    double seconds;
    int windowed, width, height, display;
    int rush; /* --rush 1, --no-rush 0, -1 not given (station.conf) */
    int cpu;  /* --cpu N, -1 not given */
} Opts;

typedef struct Summary {
    int n;
    double median, mean, sd, p99, min, max;
} Summary;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Summary of v[0..n) (sorted in place). */
static Summary summarize(double *v, int n)
{
    Summary s;
    memset(&s, 0, sizeof s);
    s.n = n;
    if (n <= 0) {
        return s;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    int k = (int)ceil(0.99 * n) - 1;
    s.p99 = v[k < 0 ? 0 : k];
    s.min = v[0];
    s.max = v[n - 1];
    for (int i = 0; i < n; i++) {
        s.mean += v[i];
    }
    s.mean /= n;
    for (int i = 0; i < n && n > 1; i++) {
        s.sd += (v[i] - s.mean) * (v[i] - s.mean);
    }
    s.sd = n > 1 ? sqrt(s.sd / (n - 1)) : 0;
    return s;
}

static json_t *summary_json(const Summary *s)
{
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "n", s->n, "median_ms",
                     s->median, "sd_ms", s->sd, "p99_ms", s->p99, "min_ms",
                     s->min, "max_ms", s->max);
}

static void sleep_until(int64_t t)
{
    int64_t now = stamps_mono_ns();
    if (t > now) {
        struct timespec ts = {(time_t)((t - now) / 1000000000LL),
                              (long)((t - now) % 1000000000LL)};
        nanosleep(&ts, NULL);
    }
}

/* ------------------------------------------------------------ the display */

/* Whether the display is virtual (no monitor behind it), and why. */
static int virtual_display(SDL_Window *w, char *why, size_t n)
{
    const char *drv = SDL_GetCurrentVideoDriver();
    if (drv && (strcmp(drv, "dummy") == 0 || strcmp(drv, "offscreen") == 0)) {
        snprintf(why, n, "SDL's %s video driver has no display", drv);
        return 1;
    }
    if (rawinput_x11_virtual(w, why, n) == 1) {
        return 1;
    }
    snprintf(why, n, "a display driven by graphics hardware");
    return 0;
}

/* -------------------------------------------------------- injected keys */

/* Presses come from a thread of their own, at the times the trial
** sequence asks for, so that they fall anywhere within a frame (the main
** thread waits in the present much of the time). */
typedef struct Injector {
    XKeyInjector *x; /* NULL: no injection */
    int ok;
    char why[256];
    SDL_Thread *thread;
    SDL_mutex *lock;
    int64_t press_at; /* next press (monotonic ns), 0 none */
    int stop;
    int presses;              /* injected so far */
    int64_t inj[MAX_PRESSES]; /* their times */
} Injector;

static int SDLCALL injector_main(void *data)
{
    Injector *in = data;
    int64_t release_at = 0;
    for (;;) {
        int64_t now = stamps_mono_ns();
        SDL_LockMutex(in->lock);
        int stop = in->stop;
        int due =
            in->press_at && now >= in->press_at && in->presses < MAX_PRESSES;
        if (due) {
            in->press_at = 0;
        }
        SDL_UnlockMutex(in->lock);
        if (release_at && (now >= release_at || stop)) {
            xinject_key(in->x, 0);
            release_at = 0;
        }
        if (stop) {
            return 0;
        }
        if (due) {
            int64_t t = stamps_mono_ns();
            xinject_key(in->x, 1);
            SDL_LockMutex(in->lock);
            in->inj[in->presses++] = t;
            SDL_UnlockMutex(in->lock);
            release_at = t + 30000000LL;
        }
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

static void injector_open(Injector *in, SDL_Window *w)
{
    memset(in, 0, sizeof *in);
    if (xinject_open(w, &in->x, in->why, sizeof in->why) != 0) {
        return;
    }
    in->lock = SDL_CreateMutex();
    in->thread =
        in->lock ? SDL_CreateThread(injector_main, "selftest-keys", in) : NULL;
    if (!in->thread) {
        snprintf(in->why, sizeof in->why, "cannot start the key thread");
        return;
    }
    in->ok = 1;
}

/* Asks for a press at t (monotonic ns). */
static void injector_schedule(Injector *in, int64_t t)
{
    if (in->ok) {
        SDL_LockMutex(in->lock);
        in->press_at = t;
        SDL_UnlockMutex(in->lock);
    }
}

/* The time of press i, or 0 when it was not injected (yet). */
static int64_t injector_time(Injector *in, int i)
{
    int64_t t = 0;
    if (in->ok) {
        SDL_LockMutex(in->lock);
        t = i < in->presses ? in->inj[i] : 0;
        SDL_UnlockMutex(in->lock);
    }
    return t;
}

static void injector_close(Injector *in)
{
    if (in->thread) {
        SDL_LockMutex(in->lock);
        in->stop = 1;
        SDL_UnlockMutex(in->lock);
        SDL_WaitThread(in->thread, NULL);
    }
    if (in->lock) {
        SDL_DestroyMutex(in->lock);
    }
    xinject_close(in->x);
}

/* -------------------------------------------------------------- screens */

typedef struct Screens {
    const Study *study; /* or NULL: built-in */
    Item builtin[4];
    char key[16], text[4][128]; /* the built-in items' strings */
    StudyClass classes[2];      /* and answers: Positive (P), Negative (N) */
    char class_str[2][3][16];
    int n;
    int oom; /* screens built incomplete for want of memory (scene_oom) */
} Screens;

static const char *const BUILTIN_TEXT[4] = {
    "the film is a charming, funny and touching ride from start to finish .",
    "a tedious, overlong story that never finds its footing .",
    "some decent actors inflict big damage upon their reputations .",
    "an engaging and thoughtful portrait of a family in crisis ."};

static void screens_init(Screens *s, const Study *study)
{
    memset(s, 0, sizeof *s);
    s->study = study;
    if (study && study->n_items > 0) {
        s->n = study->n_items < 8 ? (int)study->n_items : 8;
        return;
    }
    s->study = NULL;
    snprintf(s->key, sizeof s->key, "selftest");
    static const char *const CLASSES[2][3] = {{"pos", "Positive", "p"},
                                              {"neg", "Negative", "n"}};
    for (int c = 0; c < 2; c++) {
        for (int f = 0; f < 3; f++) {
            snprintf(s->class_str[c][f], sizeof s->class_str[c][f], "%s",
                     CLASSES[c][f]);
        }
        s->classes[c].id = s->class_str[c][0];
        s->classes[c].label = s->class_str[c][1];
        s->classes[c].key = s->class_str[c][2];
    }
    for (int i = 0; i < 4; i++) {
        snprintf(s->text[i], sizeof s->text[i], "%s", BUILTIN_TEXT[i]);
        s->builtin[i].key = s->key;
        s->builtin[i].input.modality = MODALITY_TEXT;
        s->builtin[i].input.text = s->text[i];
        s->builtin[i].label = i % 2;
        s->builtin[i].prediction = i % 2;
    }
    s->n = 4;
}

/* Builds the predict screen of the k-th item into the frame's scene. */
static void screens_build(Screens *s, Frame *f, int k)
{
    SessionView v;
    memset(&v, 0, sizeof v);
    v.screen = SCREEN_PREDICT;
    v.title = "Prediction";
    v.need_choice = 1;
    v.choice = -1;
    v.onset_marked = 1;
    v.screen_serial = (unsigned)k + 1;
    if (s->study) {
        v.item = &s->study->items[k % s->n];
        v.classes = s->study->classes;
        v.n_classes = s->study->n_classes;
    } else {
        v.item = &s->builtin[k % s->n];
        v.classes = s->classes;
        v.n_classes = 2;
    }
    ScreenCtx sx;
    memset(&sx, 0, sizeof sx);
    sx.ui = &f->ui;
    sx.assets = &f->assets;
    sx.view = &v;
    sx.now_ns = stamps_mono_ns();
    sx.strings = s->study ? s->study->ui_strings : NULL;
    fonts_set_rtl(&f->fonts, ui_strings_rtl(sx.strings));
    if (sx.strings) {
        fonts_set_language(&f->fonts, ui_strings_language(sx.strings));
    }
    screen_build(&f->scene, &sx);
    s->oom += scene_oom(&f->scene);
}

/* Writes the first predict screen as DIR/selftest-predict.png (drawn
** again, not presented), so that a report can show what was measured. */
static int save_shot(Frame *f, Screens *s, const char *dir)
{
    char path[1200];
    SimError err;
    snprintf(path, sizeof path, "%s/selftest-predict.png", dir);
    screens_build(s, f, 0);
    SDL_SetRenderDrawColor(f->gfx.renderer, f->ui.th.bg.r, f->ui.th.bg.g,
                           f->ui.th.bg.b, 255);
    SDL_RenderClear(f->gfx.renderer);
    scene_render(&f->scene, &f->gfx, f->scroll, -1);
    if (gfx_save_png(&f->gfx, path, &err) != SIM_OK) {
        fprintf(stderr, "simlab selftest: %s\n", err.msg);
        return -1;
    }
    printf("simlab selftest: wrote %s\n", path);
    return 0;
}

/* ---------------------------------------------------------- measurement */

typedef struct Results {
    double nominal_hz;
    int vsync_asked, vsync_effective;
    Summary refresh;    /* phase 1 intervals, ms */
    Summary flips;      /* phase 2 intervals, ms */
    Summary change;     /* phase 2: build + draw + present of a new screen */
    int missed, frames; /* phase 2 intervals over 1.5 periods */
    int trans_missed, n_trans;
    int input_ok;
    char input_why[256];
    const char *key_stamps;
    Summary input;      /* recorded stamp - injection, ms */
    Summary input_poll; /* loop poll time - injection, ms */
    int presses, recorded;
    const Rush *rush; /* what rush asked for and got */
} Results;

static double *g_iv; /* interval buffer, MAX_FRAMES */

/* Draws the scene and presents; returns the time right after. */
static int64_t present(Frame *f, const Stamps *clock)
{
    FrameView fv;
    memset(&fv, 0, sizeof fv);
    return frame_draw(f, &fv, clock, NULL);
}

/* Phase 1: back-to-back presents for dur_ns. */
static void measure_refresh(Frame *f, Screens *s, const Stamps *clock,
                            int64_t dur_ns, Results *r)
{
    double period = 1e9 / r->nominal_hz;
    int n = 0, paced = 0;
    screens_build(s, f, 0);
    int64_t prev = present(f, clock), end = prev + dur_ns;
    while (prev < end && n < MAX_FRAMES) {
        if (paced) {
            sleep_until(prev + (int64_t)period);
        }
        /* a visible change every frame: alternate two items */
        screens_build(s, f, n % 2);
        SDL_PumpEvents();
        int64_t t = present(f, clock);
        g_iv[n++] = (double)(t - prev) / 1e6;
        prev = t;
        if (n == 10 && !paced) {
            double c[10];
            memcpy(c, g_iv, sizeof c);
            Summary q = summarize(c, 10);
            /* presents that return far sooner than a refresh are not
            ** tied to the vertical blank: pace them with our own clock */
            paced = q.median * 1e6 < 0.5 * period;
        }
    }
    r->vsync_effective = !paced;
    r->refresh = summarize(g_iv, n);
}

/* Stamps the key presses SDL has queued as `simlab run` does, each
** against its injection time (in order). */
static void take_events(Stamps *st, Results *r, Injector *in, double *lat,
                        double *lat_poll)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        if (e.type != SDL_KEYDOWN || e.key.repeat) {
            continue;
        }
        int64_t now = stamps_now(st);
        int64_t t = stamps_take(st, &e, now);
        int64_t t_inj = injector_time(in, r->recorded);
        if (t_inj > 0 && r->recorded < MAX_PRESSES) {
            lat[r->recorded] = (double)(t - t_inj) / 1e6;
            lat_poll[r->recorded] = (double)(now - t_inj) / 1e6;
            r->recorded++;
        }
    }
}

/* Phase 2: the trial sequence with injected presses. */
static void measure_trials(Frame *f, Screens *s, Stamps *clock, Injector *in,
                           int64_t dur_ns, Results *r)
{
    double period = 1e9 / r->nominal_hz;
    static double lat[MAX_PRESSES], lat_poll[MAX_PRESSES];
    static double change[MAX_FRAMES / 8 + 1];
    int n = 0, n_change = 0, k = 0;
    unsigned seed = 2026u;
    screens_build(s, f, 0);
    int64_t prev = present(f, clock), end = prev + dur_ns;
    int64_t next_trial = prev + TRIAL_NS;
    while (prev < end && n < MAX_FRAMES) {
        if (!r->vsync_effective) {
            sleep_until(prev + (int64_t)period);
        }
        int64_t now = stamps_mono_ns();
        SDL_PumpEvents();
        take_events(clock, r, in, lat, lat_poll);
        int fresh = now >= next_trial;
        int64_t t0 = stamps_mono_ns();
        if (fresh) {
            k++;
            screens_build(s, f, k);
            next_trial += TRIAL_NS;
            /* a person answers 120-320 ms after the onset */
            seed = seed * 1103515245u + 12345u;
            injector_schedule(in, now + (120 + (int64_t)((seed >> 16) % 200)) *
                                            1000000LL);
        }
        int64_t t = present(f, clock);
        g_iv[n] = (double)(t - prev) / 1e6;
        if (g_iv[n] * 1e6 > 1.5 * period) {
            r->missed++;
            r->trans_missed += fresh;
        }
        if (fresh && n_change < MAX_FRAMES / 8) {
            change[n_change++] = (double)(t - t0) / 1e6;
            r->n_trans++;
        }
        n++;
        prev = t;
    }
    /* no further press; those still in flight */
    injector_schedule(in, 0);
    sleep_until(stamps_mono_ns() + 1000000LL);
    if (in->ok) {
        SDL_LockMutex(in->lock);
        r->presses = in->presses;
        SDL_UnlockMutex(in->lock);
    }
    for (int i = 0; i < 50 && r->recorded < r->presses; i++) {
        sleep_until(stamps_mono_ns() + 2000000LL);
        SDL_PumpEvents();
        take_events(clock, r, in, lat, lat_poll);
    }
    r->frames = n;
    r->flips = summarize(g_iv, n);
    r->change = summarize(change, n_change);
    r->input = summarize(lat, r->recorded);
    r->input_poll = summarize(lat_poll, r->recorded);
}

/* --------------------------------------------------------------- report */

static json_t *report_json(const Opts *o, const Frame *f, const Results *r,
                           const Study *study, int is_virtual,
                           const char *virtual_why, int64_t wall_ms)
{
    SDL_DisplayMode dm;
    memset(&dm, 0, sizeof dm);
    int disp = SDL_GetWindowDisplayIndex(f->gfx.window);
    SDL_GetCurrentDisplayMode(disp < 0 ? 0 : disp, &dm);
    const char *drv = SDL_GetCurrentVideoDriver();
    json_t *root = json_object();
    json_object_set_new(root, "format",
                        json_string("simlab station timing v1"));
    json_object_set_new(root, "software",
                        json_string("simlab " SIMLAB_VERSION));
    json_object_set_new(root, "station", json_string(o->station));
    json_object_set_new(root, "created_ms", json_integer(wall_ms));
    json_object_set_new(root, "virtual_display", json_boolean(is_virtual));
    json_object_set_new(root, "display_kind", json_string(virtual_why));
    json_object_set_new(root, "video_driver", json_string(drv ? drv : ""));
    json_object_set_new(root, "renderer", json_string(f->gfx.renderer_name));
    json_object_set_new(root, "display",
                        json_pack("{s:i, s:i, s:i, s:i, s:s}", "index", disp,
                                  "width", dm.w, "height", dm.h, "nominal_hz",
                                  dm.refresh_rate, "pixel_format",
                                  SDL_GetPixelFormatName(dm.format)));
    json_object_set_new(root, "window",
                        json_pack("{s:i, s:i, s:b}", "output_w", f->gfx.w,
                                  "output_h", f->gfx.h, "fullscreen",
                                  !o->windowed));
    json_object_set_new(root, "vsync",
                        json_pack("{s:b, s:b}", "granted", f->gfx.vsync,
                                  "effective", r->vsync_effective));
    json_object_set_new(root, "screens",
                        json_string(study ? "the study's predict screens"
                                          : "built-in text predict screens"));
    json_object_set_new(root, "study",
                        study && study->id ? json_string(study->id)
                                           : json_null());
    json_t *refresh = summary_json(&r->refresh);
    json_object_set_new(
        refresh, "measured_hz",
        json_real(r->refresh.median > 0 ? 1000.0 / r->refresh.median : 0));
    json_object_set_new(refresh, "nominal_hz", json_real(r->nominal_hz));
    json_object_set_new(root, "refresh", refresh);
    json_object_set_new(root, "flips", summary_json(&r->flips));
    json_object_set_new(root, "new_screen", summary_json(&r->change));
    json_object_set_new(root, "missed_frames",
                        json_pack("{s:i, s:i, s:i, s:i}", "n", r->missed,
                                  "frames", r->frames, "on_new_screen",
                                  r->trans_missed, "new_screens", r->n_trans));
    json_t *input = json_object();
    json_object_set_new(input, "measured", json_boolean(r->input_ok));
    json_object_set_new(input, "method",
                        json_string(r->input_ok ? "xtest-loopback" : "none"));
    json_object_set_new(input, "note", json_string(r->input_why));
    json_object_set_new(input, "key_stamps", json_string(r->key_stamps));
    json_object_set_new(input, "presses", json_integer(r->presses));
    json_object_set_new(input, "recorded", json_integer(r->recorded));
    json_object_set_new(input, "latency", summary_json(&r->input));
    json_object_set_new(input, "poll_latency", summary_json(&r->input_poll));
    json_object_set_new(root, "input", input);
    char rush[1200];
    rush_json(r->rush, rush, sizeof rush);
    json_object_set_new(root, "rush", json_loads(rush, 0, NULL));
    return root;
}

static void write_md(FILE *f, const json_t *root, const Results *r,
                     int is_virtual, const char *virtual_why)
{
    const char *station = json_string_value(json_object_get(root, "station"));
    json_t *disp = json_object_get(root, "display");
    double hz = r->refresh.median > 0 ? 1000.0 / r->refresh.median : 0;
    fprintf(f, "# Station timing: %s\n\n", station);
    fprintf(f, "%s, video driver %s, renderer %s.\n\n",
            json_string_value(json_object_get(root, "software")),
            json_string_value(json_object_get(root, "video_driver")),
            json_string_value(json_object_get(root, "renderer")));
    if (is_virtual) {
        fprintf(f,
                "**These figures are for a virtual display** (%s): there "
                "is no monitor and no vertical blank, so they describe "
                "this program on this machine, not what a participant "
                "would see. Run `simlab selftest` on the station itself.\n\n",
                virtual_why);
    }
    fprintf(f, "| measure | value |\n| --- | --- |\n");
    fprintf(f, "| display mode | %lld x %lld, %d Hz nominal |\n",
            (long long)json_integer_value(json_object_get(disp, "width")),
            (long long)json_integer_value(json_object_get(disp, "height")),
            (int)r->nominal_hz);
    fprintf(
        f, "| vsync | granted %s, effective %s |\n",
        json_is_true(json_object_get(json_object_get(root, "vsync"), "granted"))
            ? "yes"
            : "no",
        r->vsync_effective ? "yes" : "no (presents paced by the clock)");
    fprintf(f,
            "| refresh, measured (%d presents) | %.3f Hz (interval %.3f ms, "
            "SD %.3f ms, p99 %.3f ms) |\n",
            r->refresh.n, hz, r->refresh.median, r->refresh.sd, r->refresh.p99);
    fprintf(f,
            "| flip-to-flip during the trial sequence (%d) | median %.3f "
            "ms, SD %.3f ms, p99 %.3f ms, max %.3f ms |\n",
            r->flips.n, r->flips.median, r->flips.sd, r->flips.p99,
            r->flips.max);
    fprintf(f,
            "| missed frames (interval > 1.5 refresh periods) | %d of %d "
            "(%d of %d new screens) |\n",
            r->missed, r->frames, r->trans_missed, r->n_trans);
    fprintf(f,
            "| new screen: build + draw + present (%d) | median %.3f ms, "
            "p99 %.3f ms |\n",
            r->change.n, r->change.median, r->change.p99);
    if (r->input_ok) {
        fprintf(f,
                "| key press to recorded stamp (%s, %d of %d presses) | "
                "median %.3f ms, SD %.3f ms, p99 %.3f ms |\n",
                r->key_stamps, r->recorded, r->presses, r->input.median,
                r->input.sd, r->input.p99);
        fprintf(f,
                "| key press to the self-test polling it (once a frame) | "
                "median %.3f ms, p99 "
                "%.3f ms |\n",
                r->input_poll.median, r->input_poll.p99);
    } else {
        fprintf(f, "| input latency | not measured: %s |\n", r->input_why);
    }
    const Rush *k = r->rush;
    json_t *rj = json_object_get(root, "rush");
    fprintf(f,
            "| real-time priority (rush) | %s: render loop %s, input thread "
            "%s, memory %slocked",
            !k->asked        ? "not asked"
            : rush_active(k) ? "active"
                             : "asked, not all granted",
            json_string_value(json_object_get(rj, "render_loop")),
            json_string_value(json_object_get(rj, "input_thread")),
            k->memory_locked ? "" : "not ");
    if (k->cpu >= 0) {
        fprintf(f, ", on CPU %d", k->cpu);
    }
    fprintf(f, "%s%s |\n", k->failed[0] ? "; refused: " : "", k->failed);
    fprintf(f, "\nThe key press latency is measured by XTest loopback: presses "
               "injected into the X server at known times, 120-320 ms after "
               "each new screen, from a thread of their own (so anywhere "
               "within a frame). It covers the X server and simlab, not the "
               "keyboard (USB polling adds 1-8 ms on a real keyboard). The X "
               "server handles an XTest press between its clients' requests: "
               "one injected while it copies a frame waits for the copy, "
               "which a keyboard read by its input thread does not.\n\n");
    fprintf(f, "## How to cite\n\n");
    char keys[300] = "";
    if (r->input_ok) {
        snprintf(keys, sizeof keys,
                 "; key presses were stamped with a median latency of %.2f "
                 "ms (p99 %.2f ms, XTest loopback, %s)",
                 r->input.median, r->input.p99, r->key_stamps);
    }
    fprintf(f,
            "> Stimuli were shown with %s on station %s: %lld x %lld at "
            "%.2f Hz (measured; flip interval SD %.2f ms), %d of %d frames "
            "missed during a sequence of predict trials%s%s%s.\n",
            json_string_value(json_object_get(root, "software")), station,
            (long long)json_integer_value(json_object_get(disp, "width")),
            (long long)json_integer_value(json_object_get(disp, "height")), hz,
            r->flips.sd, r->missed, r->frames, keys,
            rush_active(r->rush) ? "; simlab ran at real-time priority "
                                   "(rush)"
                                 : "",
            is_virtual ? " [virtual display]" : "");
}

/* ------------------------------------------------------------- options */

static int parse_opts(int argc, char **argv, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->out = ".";
    o->seconds = 10;
    o->rush = -1;
    o->cpu = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--db") == 0 && v) {
            o->db = argv[++i];
        } else if (strcmp(a, "--out") == 0 && v) {
            o->out = argv[++i];
        } else if (strcmp(a, "--station") == 0 && v) {
            if (!export_station_name_valid(v)) {
                fprintf(stderr,
                        "simlab selftest: --station '%s': "
                        "use " EXPORT_STATION_NAME_SET "\n",
                        v);
                return -1;
            }
            o->station = argv[++i];
        } else if (strcmp(a, "--seconds") == 0 && v) {
            char *end;
            o->seconds = strtod(v, &end);
            if (*end || !(o->seconds >= 1 && o->seconds <= 600)) {
                fprintf(stderr,
                        "simlab selftest: --seconds '%s': use 1 to 600\n", v);
                return -1;
            }
            i++;
        } else if (strcmp(a, "--size") == 0 && v) {
            char x;
            if (sscanf(v, "%d%c%d", &o->width, &x, &o->height) != 3 ||
                x != 'x' || o->width < 320 || o->height < 240) {
                fprintf(stderr, "simlab selftest: --size '%s': use WxH\n", v);
                return -1;
            }
            o->windowed = 1;
            i++;
        } else if (strcmp(a, "--screenshot-dir") == 0 && v) {
            o->shot_dir = argv[++i];
        } else if (strcmp(a, "--windowed") == 0) {
            o->windowed = 1;
        } else if (strcmp(a, "--rush") == 0) {
            o->rush = 1;
        } else if (strcmp(a, "--no-rush") == 0) {
            o->rush = 0;
        } else if (strcmp(a, "--cpu") == 0 && v && v[0] >= '0' && v[0] <= '9' &&
                   atoi(v) <= 1023) {
            o->cpu = atoi(argv[++i]);
        } else if (strcmp(a, "--display") == 0 && v) {
            o->display = atoi(argv[++i]);
        } else if (a[0] != '-' && !o->dir) {
            o->dir = a;
        } else {
            fprintf(stderr,
                    "simlab selftest: bad or incomplete argument '%s'\n", a);
            return -1;
        }
    }
    if (o->db && !o->dir) {
        fprintf(stderr, "simlab selftest: --db needs the study bundle DIR "
                        "whose database it is\n");
        return -1;
    }
    return 0;
}

static int write_file(const char *dir, const char *name, const json_t *root,
                      const Results *r, int is_virtual, const char *why)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "simlab selftest: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (root && !r) {
        json_dumpf(root, f, JSON_INDENT(2) | JSON_SORT_KEYS);
        fputc('\n', f);
    } else {
        write_md(f, root, r, is_virtual, why);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "simlab selftest: %s: write failed\n", path);
        return -1;
    }
    printf("simlab selftest: wrote %s\n", path);
    return 0;
}

static int store_report(const Opts *o, const Study *study, const json_t *root,
                        int is_virtual, int64_t wall_ms)
{
    StoreOpenSpec os = {.path = o->db,
                        .study = study,
                        .station = o->station,
                        .durability = DURABILITY_FULL,
                        .wall_ms = wall_ms};
    Store *store = NULL;
    SimError err;
    sim_error_clear(&err);
    char *text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
    int rc = text ? store_open_spec(&os, &store, &err) : SIM_ERR_NOMEM;
    if (rc == SIM_OK) {
        rc = store_add_station_timing(store, o->station, wall_ms, is_virtual,
                                      text, &err);
    }
    store_close(store);
    free(text);
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab selftest: %s\n",
                err.msg[0] ? err.msg : "out of memory");
        return -1;
    }
    printf("simlab selftest: stored in %s (table station_timing)\n", o->db);
    return 0;
}

int app_selftest(int argc, char **argv)
{
    Opts o;
    if (parse_opts(argc, argv, &o) != 0) {
        return 2;
    }
    StationSettings station;
    if (station_settings("simlab selftest", o.station, o.rush, o.cpu,
                         &station) != 0) {
        return 2;
    }
    o.station = station.station;
    int rush = station.rush, cpu = station.cpu;
    SimError err;
    struct stat sb;
    if (stat(o.out, &sb) != 0 && errno == ENOENT && mkdir(o.out, 0777) != 0) {
        fprintf(stderr, "simlab selftest: --out %s: cannot create it: %s\n",
                o.out, strerror(errno));
        return 2;
    }
    if (stat(o.out, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "simlab selftest: --out %s is not a folder\n", o.out);
        return 2;
    }
    Study *study = NULL;
    if (o.dir) {
        StudyReport rep;
        study_report_init(&rep);
        int rc = study_load(o.dir, &study, &rep, &err);
        study_report_free(&rep);
        if (rc != SIM_OK) {
            fprintf(stderr, "simlab selftest: %s\n", err.msg);
            return 1;
        }
    }
    int status = 1;
    Frame frame;
    Stamps *clock = NULL;
    RawInput *raw = NULL;
    Injector inj;
    memset(&inj, 0, sizeof inj);
    memset(&frame, 0, sizeof frame);
    g_iv = sim_malloc(MAX_FRAMES * sizeof *g_iv);
    GfxOptions go;
    memset(&go, 0, sizeof go);
    go.title = "simlab selftest";
    go.windowed = o.windowed;
    go.width = o.width;
    go.height = o.height;
    go.display = o.display;
    go.vsync = 1;
    /* as `simlab run` does: before the window */
    Rush rec;
    rush_apply(rush, cpu, &rec);
    if (!g_iv || frame_open(&frame, &go, 1.0f, NULL, &err) != SIM_OK) {
        fprintf(stderr, "simlab selftest: %s\n",
                g_iv ? err.msg : "out of memory");
        goto cleanup;
    }
    if (stamps_open(&clock, &err) != SIM_OK) {
        fprintf(stderr, "simlab selftest: %s\n", err.msg);
        goto cleanup;
    }
    Results r;
    memset(&r, 0, sizeof r);
    r.rush = &rec;
    raw = stamps_attach_input(clock, frame.gfx.window, &rec, NULL);
    if (rec.failed[0]) {
        fprintf(stderr,
                "simlab selftest: warning: %s%s (recorded in the "
                "report)\n",
                rec.asked ? "rush: " : "", rec.failed);
    }
    r.key_stamps = raw ? "xinput2-raw" : "event-watch";
    r.nominal_hz = 1e9 / frame_refresh_ns(&frame);
    r.vsync_asked = 1;
    char vwhy[256];
    int is_virtual = virtual_display(frame.gfx.window, vwhy, sizeof vwhy);
    Screens scr;
    screens_init(&scr, study);
    /* the runner decodes a run's images before it starts: so do we */
    for (int k = 0; k < scr.n; k++) {
        screens_build(&scr, &frame, k);
    }
    if (scr.oom) {
        fprintf(stderr, "simlab selftest: out of memory: the predict screens "
                        "could not be built completely\n");
        goto cleanup;
    }
    if (o.shot_dir && save_shot(&frame, &scr, o.shot_dir) != 0) {
        goto cleanup;
    }
    SDL_RaiseWindow(frame.gfx.window);
    /* let the window appear and settle */
    int64_t settle = stamps_mono_ns() + 300000000LL;
    while (stamps_mono_ns() < settle) {
        SDL_PumpEvents();
        SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
        present(&frame, clock);
        sleep_until(stamps_mono_ns() + 5000000LL);
    }
    injector_open(&inj, frame.gfx.window);
    r.input_ok = inj.ok;
    snprintf(r.input_why, sizeof r.input_why, "%s",
             inj.ok ? "XTest key presses, 120-320 ms after each new screen"
                    : inj.why);
    int64_t total = (int64_t)(o.seconds * 1e9);
    measure_refresh(&frame, &scr, clock, total * 3 / 10, &r);
    measure_trials(&frame, &scr, clock, &inj, total - total * 3 / 10, &r);
    if (r.input_ok && r.recorded == 0) {
        r.input_ok = 0;
        snprintf(r.input_why, sizeof r.input_why,
                 "no injected key press reached the window (another window "
                 "has the keyboard focus?)");
    }
    if (scr.oom) {
        /* figures of incomplete screens describe no run */
        fprintf(stderr,
                "simlab selftest: out of memory: %d screens were built "
                "incomplete during the measurement; no report written\n",
                scr.oom);
        goto cleanup;
    }
    int64_t wall = stamps_real_ms();
    json_t *root = report_json(&o, &frame, &r, study, is_virtual, vwhy, wall);
    status = 0;
    if (write_file(o.out, "selftest.json", root, NULL, 0, NULL) != 0 ||
        write_file(o.out, "selftest.md", root, &r, is_virtual, vwhy) != 0) {
        status = 1;
    }
    if (status == 0 && o.db &&
        store_report(&o, study, root, is_virtual, wall) != 0) {
        status = 1;
    }
    json_decref(root);
cleanup:
    injector_close(&inj);
    rawinput_close(raw);
    stamps_close(clock);
    frame_close(&frame);
    study_free(study);
    sim_free(g_iv);
    g_iv = NULL;
    return status;
}
