/*
** Benchmarks of the runner under an X server (Xvfb), never run by ctest.
**   bench_app input SIMLAB BUNDLE OUTDIR CLASSKEY [N [RUN ARGS...]]
**     Starts `simlab run` as a person would use it, injects key presses
**     through XTest at known times (CLOCK_MONOTONIC) and compares them with
**     the times the runner recorded: its own event stamps, SDL's millisecond
**     event timestamps and the loop's poll time. Also reports the time from
**     a response to the next stimulus on screen and the frame times.
**   bench_app launch SIMLAB BUNDLE OUTDIR REPS
**     Time from launch to the first frame, against a bare SDL window with a
**     renderer (the reference measured in the same run).
**   bench_app rt SIMLAB BUNDLE OUTDIR CLASSKEY [N [RUN ARGS...]]
**     The input benchmark, plus the RT error of every prediction: recorded
**     RT (press stamp - onset stamp, as stored) minus true RT (injection
**     time - the time the X server changed the window's pixels, seen
**     through XDamage). RUN ARGS go to `simlab run` (--rush). Last line:
**     {"simlab": {"n","median_ms","sd_ms","p99_ms"}} of the RT error,
**     "watch" for SDL's event-watch stamps of the same presses (the
**     reference from the same run), and the press side: "press" (recorded
**     stamp - injection), "xserver" (the X server's delivery to the
**     instrument - injection), "share" (recorded stamp - that delivery:
**     simlab's own share) and "onset" (onset stamp - pixels changed).
**   bench_app jspsych LOGFILE N
**     Drives a jsPsych page in Chromium (bench/app/compare_peers.sh starts
**     it with its console on LOGFILE): waits for "BENCH_READY", presses
**     space, then answers each of N keyboard-response trials with P or N
**     120-320 ms after the true onset (XDamage) and reads the RTs jsPsych
**     recorded ("BENCH_RT i rt"). Last line as for rt.
**   bench_app web DBFILE N
**     The same trials in `simlab serve`'s page in Chromium (started by
**     compare_peers.sh against a server writing DBFILE): waits for the
**     participant's start, presses Enter on the consent, answers the N
**     predictions and reads the RTs the server stored (response_ns -
**     onset_ns: the key event's timeStamp minus the requestAnimationFrame
**     after the paint). Last line {"web": {...}}.
** Prints Markdown tables (input, launch) or JSON (rt, jspsych, web).
*/
#define _GNU_SOURCE
#include <SDL2/SDL.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/Xdamage.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <X11/keysym.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000),
                          (long)(fmod(ms, 1000) * 1000000)};
    nanosleep(&ts, NULL);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct Stats {
    double median, p99, sd, mean;
} Stats;

static Stats stats(const double *v, int n)
{
    Stats s = {0, 0, 0, 0};
    if (n <= 0) {
        return s;
    }
    double *c = malloc((size_t)n * sizeof *c);
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_d);
    s.median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    int k = (int)ceil(0.99 * n) - 1;
    s.p99 = c[k < 0 ? 0 : k];
    for (int i = 0; i < n; i++) {
        s.mean += c[i];
    }
    s.mean /= n;
    for (int i = 0; i < n; i++) {
        s.sd += (c[i] - s.mean) * (c[i] - s.mean);
    }
    s.sd = n > 1 ? sqrt(s.sd / (n - 1)) : 0;
    free(c);
    return s;
}

/* argv as string constants: execv() never changes its arguments (POSIX
** gives it char *const[] only for compatibility with older code). */
static pid_t spawn(const char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Reads complete new lines of the log into buf; returns 1 when a line was
** read. */
static int read_line(FILE *f, char *buf, size_t n)
{
    long pos = ftell(f);
    if (!fgets(buf, (int)n, f)) {
        clearerr(f);
        fseek(f, pos, SEEK_SET);
        return 0;
    }
    if (!strchr(buf, '\n')) {
        fseek(f, pos, SEEK_SET);
        return 0;
    }
    return 1;
}

static void press(Display *d, KeySym sym, int64_t *t_out)
{
    KeyCode kc = XKeysymToKeycode(d, sym);
    int64_t t = now_ns();
    XTestFakeKeyEvent(d, kc, True, 0);
    XFlush(d);
    if (t_out) {
        *t_out = t;
    }
    sleep_ms(25);
    XTestFakeKeyEvent(d, kc, False, 0);
    XFlush(d);
}

#define MAX_EV 4096

/* The instrument's SCHED_FIFO priority: above simlab's threads (render
** loop 10, input thread 11 with --rush) and an X server at 20
** (compare_peers.sh). */
#define INSTRUMENT_PRIORITY 30

/* ---------------------------------------------------------------- damage */

/* The photodiode of a virtual display: a thread with its own connection
** that stamps (CLOCK_MONOTONIC) every damage event on the screen's root
** window, i.e. every time the X server changes pixels of a window. */
#define MAX_DAMAGE 400000
static struct {
    Display *dpy;
    int event_base;
    pthread_t thread;
    pthread_mutex_t lock;
    int64_t *t;
    int n;
    /* the X server's own delivery of key presses: XInput 2 raw events on
    ** the same connection, stamped alike (the floor no client can beat) */
    int xi_opcode;
    int64_t keys[MAX_EV];
    int n_keys;
    volatile int stop;
} dmg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *damage_main(void *arg)
{
    (void)arg;
    /* The instrument's policy (instrument_priority) is SCHED_RESET_ON_FORK,
    ** which new threads do not inherit either: this one asks for it */
    int policy;
    struct sched_param sp;
    if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0 &&
        policy == SCHED_OTHER && sched_getscheduler(getpid()) != SCHED_OTHER) {
        sp.sched_priority = INSTRUMENT_PRIORITY;
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
    struct pollfd fd = {ConnectionNumber(dmg.dpy), POLLIN, 0};
    while (!dmg.stop) {
        int64_t t = now_ns();
        while (XPending(dmg.dpy) > 0) {
            XEvent ev;
            XNextEvent(dmg.dpy, &ev);
            if (ev.type == dmg.event_base + XDamageNotify) {
                pthread_mutex_lock(&dmg.lock);
                if (dmg.n < MAX_DAMAGE) {
                    dmg.t[dmg.n++] = t;
                }
                pthread_mutex_unlock(&dmg.lock);
            } else if (ev.xcookie.type == GenericEvent &&
                       ev.xcookie.extension == dmg.xi_opcode &&
                       XGetEventData(dmg.dpy, &ev.xcookie)) {
                if (ev.xcookie.evtype == XI_RawKeyPress) {
                    pthread_mutex_lock(&dmg.lock);
                    if (dmg.n_keys < MAX_EV) {
                        dmg.keys[dmg.n_keys++] = t;
                    }
                    pthread_mutex_unlock(&dmg.lock);
                }
                XFreeEventData(dmg.dpy, &ev.xcookie);
            }
        }
        poll(&fd, 1, 50);
    }
    return NULL;
}

static int damage_start(void)
{
    dmg.dpy = XOpenDisplay(NULL);
    int err_base;
    if (!dmg.dpy ||
        !XDamageQueryExtension(dmg.dpy, &dmg.event_base, &err_base)) {
        fprintf(stderr, "no X display with the DAMAGE extension\n");
        return -1;
    }
    dmg.t = malloc(MAX_DAMAGE * sizeof *dmg.t);
    dmg.n = 0;
    /* the root window, its inferiors included (every top-level window) */
    XDamageCreate(dmg.dpy, DefaultRootWindow(dmg.dpy),
                  XDamageReportRawRectangles);
    int ev, er, major = 2, minor = 2;
    dmg.n_keys = 0;
    if (XQueryExtension(dmg.dpy, "XInputExtension", &dmg.xi_opcode, &ev, &er) &&
        XIQueryVersion(dmg.dpy, &major, &minor) == Success) {
        unsigned char mask[XIMaskLen(XI_LASTEVENT)];
        memset(mask, 0, sizeof mask);
        XISetMask(mask, XI_RawKeyPress);
        XIEventMask em = {XIAllMasterDevices, (int)sizeof mask, mask};
        XISelectEvents(dmg.dpy, DefaultRootWindow(dmg.dpy), &em, 1);
    }
    XSync(dmg.dpy, False);
    dmg.stop = 0;
    return pthread_create(&dmg.thread, NULL, damage_main, NULL) == 0 ? 0 : -1;
}

static void damage_stop(void)
{
    dmg.stop = 1;
    pthread_join(dmg.thread, NULL);
    XCloseDisplay(dmg.dpy);
    free(dmg.t);
    dmg.t = NULL;
}

/* The first damage stamp after t (waiting up to wait_ms for it), or 0. */
static int64_t damage_after(int64_t t, double wait_ms)
{
    int64_t deadline = now_ns() + (int64_t)(wait_ms * 1e6);
    for (;;) {
        int64_t found = 0;
        pthread_mutex_lock(&dmg.lock);
        for (int i = dmg.n - 1; i >= 0 && dmg.t[i] > t; i--) {
            found = dmg.t[i];
        }
        pthread_mutex_unlock(&dmg.lock);
        if (found || now_ns() > deadline) {
            return found;
        }
        sleep_ms(0.2);
    }
}

static void print_rt_json(const char *name, const double *err, int n,
                          const char *name2, const double *err2)
{
    Stats s = stats(err, n);
    printf("{\"%s\": {\"n\": %d, \"median_ms\": %.3f, \"sd_ms\": %.3f, "
           "\"p99_ms\": %.3f}",
           name, n, s.median, s.sd, s.p99);
    if (name2) {
        Stats w = stats(err2, n);
        printf(", \"%s\": {\"n\": %d, \"median_ms\": %.3f, \"sd_ms\": "
               "%.3f, \"p99_ms\": %.3f}",
               name2, n, w.median, w.sd, w.p99);
    }
    printf("}\n");
}

/* extra: NULL-terminated further arguments of `simlab run` (--rush), or
** NULL. */
static int bench_input(const char *simlab, const char *bundle, const char *out,
                       const char *classkey, int n_wanted, int rt_mode,
                       char *const *extra)
{
    /* rt_mode: per prediction press (by injection index), the onset as
    ** simlab stamped it and as the X server showed it */
    static int64_t onset_rec[MAX_EV], onset_true[MAX_EV];
    static char is_pred[MAX_EV];
    static int64_t watch[MAX_EV];
    memset(is_pred, 0, sizeof is_pred);
    if (rt_mode && damage_start() != 0) {
        return 1;
    }
    char db[1024], logp[1024];
    snprintf(db, sizeof db, "%s/bench.db", out);
    snprintf(logp, sizeof logp, "%s/timing.log", out);
    unlink(db);
    unlink(logp);
    const char *argv[32] = {simlab, "run",       bundle,     "--db",
                            db,     "--size",    "1280x720", "--timing-log",
                            logp,   "--station", "bench",    NULL};
    for (int k = 0, a = 11; extra && extra[k] && a < 31; k++) {
        argv[a++] = extra[k];
        argv[a] = NULL;
    }
    pid_t pid = spawn(argv);
    Display *d = XOpenDisplay(NULL);
    if (!d) {
        fprintf(stderr, "no X display\n");
        kill(pid, SIGKILL);
        return 1;
    }
    FILE *f = NULL;
    for (int i = 0; i < 500 && !f; i++) {
        f = fopen(logp, "r");
        sleep_ms(10);
    }
    if (!f) {
        fprintf(stderr, "no timing log\n");
        kill(pid, SIGKILL);
        return 1;
    }
    char line[512];
    int64_t clock_ticks = 0, clock_mono = 0;
    /* Wait for the start screen's first frame. */
    for (int i = 0; i < 3000; i++) {
        if (read_line(f, line, sizeof line)) {
            long long a, b;
            if (sscanf(line, "clock %lld %lld", &a, &b) == 2) {
                clock_ticks = a;
                clock_mono = b;
            }
            if (strncmp(line, "first_frame", 11) == 0) {
                break;
            }
        } else {
            sleep_ms(2);
        }
    }
    /* The pointer inside the window so that it has the keyboard focus. */
    int scr = DefaultScreen(d);
    XTestFakeMotionEvent(d, scr, DisplayWidth(d, scr) / 2,
                         DisplayHeight(d, scr) / 2, 0);
    XFlush(d);
    sleep_ms(300);
    static int64_t injected[MAX_EV];
    static double ours[MAX_EV], sdl[MAX_EV], poll_err[MAX_EV],
        transition[MAX_EV], frames[MAX_EV * 4], to_predict[MAX_EV];
    int n_inj = 0, n_keys = 0, n_trans = 0, n_frames = 0, n_answers = 0,
        n_to_predict = 0, n_predict_onsets = 0;
    static int to_predict_k[MAX_EV]; /* which prediction screen (0, 1, ..) */
    /* the texture cache after the last onset (timing log "textures") */
    size_t tex_bytes = 0, tex_peak = 0, tex_n = 0, tex_budget = 0;
    int tex_evicted = 0;
    int n_raw = 0; /* presses stamped by the input thread */
    press(d, XK_Return, &injected[n_inj++]); /* start the participant */
    unsigned seed = 12345;
    int done = 0;
    int64_t deadline = now_ns() + 600LL * 1000000000LL;
    while (!done && now_ns() < deadline) {
        if (!read_line(f, line, sizeof line)) {
            sleep_ms(1);
            continue;
        }
        long long t, t2, t3, t4;
        unsigned ms;
        int src = 0;
        int nf =
            sscanf(line, "key %lld %u %lld %lld %d", &t, &ms, &t3, &t4, &src);
        if (nf >= 3) {
            n_raw += nf == 5 && src == 2;
            if (n_keys < n_inj && n_keys < MAX_EV) {
                watch[n_keys] = nf >= 4 ? t4 : t;
                int64_t T = injected[n_keys];
                ours[n_keys] = (double)(t - T) / 1e6;
                double sdl_ns = (double)clock_mono +
                                ((double)ms - (double)clock_ticks) * 1e6;
                sdl[n_keys] = (sdl_ns - (double)T) / 1e6;
                poll_err[n_keys] = (double)(t3 - T) / 1e6;
            }
            n_keys++;
            continue;
        }
        if (sscanf(line, "frame %lld %lld", &t, &t2) == 2) {
            if (n_frames < MAX_EV * 4) {
                frames[n_frames++] = (double)t2 / 1e6;
            }
            continue;
        }
        if (sscanf(line, "textures %zu %zu %zu %d %zu", &tex_bytes, &tex_peak,
                   &tex_n, &tex_evicted, &tex_budget) == 5) {
            continue;
        }
        char screen[64];
        unsigned serial;
        int need_choice, need_rating, n_opt, attempt;
        if (sscanf(line, "onset %lld %u %lld %63s %d %d %d %d", &t, &serial,
                   &t2, screen, &need_choice, &need_rating, &n_opt,
                   &attempt) != 8) {
            continue;
        }
        if (t2 > 0 && n_trans < MAX_EV) {
            transition[n_trans++] = (double)(t - t2) / 1e6;
            if (strcmp(screen, "predict") == 0) {
                to_predict_k[n_to_predict] = n_predict_onsets;
                to_predict[n_to_predict++] = (double)(t - t2) / 1e6;
            }
        }
        n_predict_onsets += strcmp(screen, "predict") == 0;
        if (strcmp(screen, "done") == 0 || n_answers >= n_wanted) {
            done = 1;
            break;
        }
        /* A person takes a while; the delay is random so that presses
        ** fall anywhere within a frame. */
        seed = seed * 1103515245u + 12345u;
        sleep_ms(120 + (seed >> 16) % 200);
        if (n_inj + 4 >= MAX_EV) {
            break;
        }
        if (strcmp(screen, "quiz") == 0) {
            press(d, XK_0 + (attempt <= n_opt ? attempt : 1),
                  &injected[n_inj++]);
        } else if (strcmp(screen, "predict") == 0 ||
                   strcmp(screen, "counterfactual") == 0) {
            if (rt_mode) {
                /* the first pixels of this screen after the last press */
                onset_rec[n_inj] = t;
                onset_true[n_inj] =
                    damage_after(n_inj > 0 ? injected[n_inj - 1] : 0, 500);
                is_pred[n_inj] = onset_true[n_inj] > 0;
            }
            press(d, XStringToKeysym(classkey), &injected[n_inj++]);
            n_answers++;
            if (need_rating) {
                sleep_ms(150);
                press(d, XK_4, &injected[n_inj++]);
                sleep_ms(150);
                press(d, XK_Return, &injected[n_inj++]);
            }
        } else {
            if (need_rating) {
                press(d, XK_4, &injected[n_inj++]);
                sleep_ms(150);
            }
            /* a page taller than the window offers Continue only once it
            ** is scrolled to its end (require_scroll): End first */
            press(d, XK_End, &injected[n_inj++]);
            sleep_ms(60);
            press(d, XK_Return, &injected[n_inj++]);
        }
    }
    sleep_ms(300);
    while (read_line(f, line, sizeof line)) {
        long long t, t3, t4;
        unsigned ms;
        int src = 0;
        int nf =
            sscanf(line, "key %lld %u %lld %lld %d", &t, &ms, &t3, &t4, &src);
        if (nf >= 3 && n_keys < n_inj) {
            n_raw += nf == 5 && src == 2;
            int64_t T = injected[n_keys];
            watch[n_keys] = nf >= 4 ? t4 : t;
            ours[n_keys] = (double)(t - T) / 1e6;
            double sdl_ns =
                (double)clock_mono + ((double)ms - (double)clock_ticks) * 1e6;
            sdl[n_keys] = (sdl_ns - (double)T) / 1e6;
            poll_err[n_keys] = (double)(t3 - T) / 1e6;
            n_keys++;
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fclose(f);
    XCloseDisplay(d);
    static int64_t dmg_keys[MAX_EV];
    int dmg_n_keys = 0;
    if (rt_mode) {
        pthread_mutex_lock(&dmg.lock);
        dmg_n_keys = dmg.n_keys;
        memcpy(dmg_keys, dmg.keys, (size_t)dmg_n_keys * sizeof *dmg_keys);
        pthread_mutex_unlock(&dmg.lock);
        damage_stop();
    }
    int n = n_keys < n_inj ? n_keys : n_inj;
    if (n < 10) {
        fprintf(stderr, "only %d key presses were recorded\n", n);
        return 1;
    }
    /* The first press (start screen) is dropped: nothing to compare. */
    Stats so = stats(ours + 1, n - 1), ss = stats(sdl + 1, n - 1),
          sp = stats(poll_err + 1, n - 1);
    double abs_o[MAX_EV], abs_s[MAX_EV];
    for (int i = 1; i < n; i++) {
        abs_o[i - 1] = fabs(ours[i]);
        abs_s[i - 1] = fabs(sdl[i]);
    }
    Stats ao = stats(abs_o, n - 1), as = stats(abs_s, n - 1);
    static double wat[MAX_EV], xs[MAX_EV], share[MAX_EV];
    for (int i = 1; i < n; i++) {
        wat[i - 1] = (double)(watch[i] - injected[i]) / 1e6;
    }
    Stats sw = stats(wat, n - 1);
    /* rt mode: the X server's delivery of each press to the instrument */
    int n_xs = 0;
    for (int i = 1; rt_mode && i < n && i < dmg_n_keys; i++) {
        xs[n_xs] = (double)(dmg_keys[i] - injected[i]) / 1e6;
        share[n_xs] = ours[i] - xs[n_xs];
        n_xs++;
    }
    Stats sx = stats(xs, n_xs), sh = stats(share, n_xs);
    printf("key presses injected: %d, recorded: %d (%d stamped by the input "
           "thread), answers: %d\n\n",
           n_inj, n_keys, n_raw, n_answers);
    printf("| recorded time - injected time (ms) | median | p99 | SD |\n");
    printf("| --- | --- | --- | --- |\n");
    printf("| simlab recorded stamp (input thread, else event watch) | %.3f "
           "| %.3f | %.3f |\n",
           so.median, so.p99, so.sd);
    printf("| event watch stamp (as SDL queued it) | %.3f | %.3f | %.3f |\n",
           sw.median, sw.p99, sw.sd);
    if (n_xs > 0) {
        printf("| reference: X server delivery to the instrument (its own "
               "raw events) | %.3f | %.3f | %.3f |\n",
               sx.median, sx.p99, sx.sd);
        printf("| simlab recorded stamp - X server delivery (simlab's own "
               "share) | %.3f | %.3f | %.3f |\n",
               sh.median, sh.p99, sh.sd);
    }
    printf("| SDL event timestamp (whole ms) | %.3f | %.3f | %.3f |\n",
           ss.median, ss.p99, ss.sd);
    printf("| loop poll time | %.3f | %.3f | %.3f |\n\n", sp.median, sp.p99,
           sp.sd);
    printf("median |error|: simlab %.3f ms, SDL %.3f ms; ratio SDL/simlab "
           "%.1f\n",
           ao.median, as.median, ao.median > 0 ? as.median / ao.median : 0);
    printf("SD ratio SDL/simlab: %.1f\n\n", so.sd > 0 ? ss.sd / so.sd : 0);
    Stats st = stats(transition, n_trans), sf = stats(frames, n_frames);
    printf(
        "| (ms) | n | median | p99 | SD |\n| --- | --- | --- | --- | --- |\n");
    printf("| response -> next stimulus on screen | %d | %.2f | %.2f | %.2f "
           "|\n",
           n_trans, st.median, st.p99, st.sd);
    Stats sp2 = stats(to_predict, n_to_predict);
    printf("| response -> next prediction screen on screen | %d | %.2f | "
           "%.2f | %.2f |\n",
           n_to_predict, sp2.median, sp2.p99, sp2.sd);
    printf("| frame: build + draw + present | %d | %.2f | %.2f | %.2f |\n",
           n_frames, sf.median, sf.p99, sf.sd);
    printf("\ntextures: %zu bytes held at the end, peak %zu, %zu entries, "
           "%d dropped for the budget of %zu bytes\n",
           tex_bytes, tex_peak, tex_n, tex_evicted, tex_budget);
    /* the first, third, ... prediction screens and the second, fourth,
    ** ... (a bundle alternating two kinds of trial) */
    static double half[2][MAX_EV];
    int n_half[2] = {0, 0};
    for (int i = 0; i < n_to_predict; i++) {
        int k = to_predict_k[i] % 2;
        half[k][n_half[k]++] = to_predict[i];
    }
    printf("to_predict_median_ms %.3f\n", sp2.median);
    printf("to_predict_even_median_ms %.3f\nto_predict_odd_median_ms %.3f\n",
           stats(half[0], n_half[0]).median, stats(half[1], n_half[1]).median);
    if (rt_mode) {
        /* RT error = recorded RT - true RT, per prediction */
        static double err[MAX_EV], err_w[MAX_EV], onset_lag[MAX_EV];
        int m = 0;
        for (int i = 1; i < n; i++) {
            if (!is_pred[i]) {
                continue;
            }
            double true_rt = (double)(injected[i] - onset_true[i]);
            double t_rec = (double)injected[i] + ours[i] * 1e6;
            err[m] = (t_rec - (double)onset_rec[i] - true_rt) / 1e6;
            err_w[m] = ((double)(watch[i] - onset_rec[i]) - true_rt) / 1e6;
            onset_lag[m] = (double)(onset_rec[i] - onset_true[i]) / 1e6;
            m++;
        }
        Stats so2 = stats(onset_lag, m);
        printf("\nonset stamp - pixels changed (XDamage): median %.3f ms, "
               "SD %.3f ms, p99 %.3f ms (%d predictions)\n",
               so2.median, so2.sd, so2.p99, m);
        if (m < 5) {
            fprintf(stderr, "only %d predictions had a damage onset\n", m);
            return 1;
        }
        /* the last line: RT error, the watch's, and the press side */
        Stats e = stats(err, m), w = stats(err_w, m);
        printf("{\"simlab\": {\"n\": %d, \"median_ms\": %.3f, \"sd_ms\": "
               "%.3f, \"p99_ms\": %.3f}, \"watch\": {\"n\": %d, "
               "\"median_ms\": %.3f, \"sd_ms\": %.3f, \"p99_ms\": %.3f}",
               m, e.median, e.sd, e.p99, m, w.median, w.sd, w.p99);
        const char *names[] = {"press", "xserver", "share", "onset"};
        Stats st4[] = {so, sx, sh, so2};
        int ns4[] = {n - 1, n_xs, n_xs, m};
        for (int k = 0; k < 4; k++) {
            printf(", \"%s\": {\"n\": %d, \"median_ms\": %.3f, "
                   "\"sd_ms\": %.3f, \"p99_ms\": %.3f}",
                   names[k], ns4[k], st4[k].median, st4[k].sd, st4[k].p99);
        }
        printf("}\n");
    }
    return 0;
}

/* Lines of the browser's console log: "BENCH_READY", "BENCH_RT i rt". */
static int log_has(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        found = strstr(line, what) != NULL;
    }
    if (f) {
        fclose(f);
    }
    return found;
}

/* Answers n_trials keyboard-response trials in the browser window on the
** display: start_key first (the page's start or consent), then each trial
** with P or N 120-320 ms after its true onset (the first XDamage event
** after the previous press). T[i] and onset[i] get the injection and true
** onset times; returns the number of trials answered, -1 without a
** display. */
static int drive_trials(KeySym start_key, int n_trials, int64_t *T,
                        int64_t *onset)
{
    Display *d = XOpenDisplay(NULL);
    if (!d || damage_start() != 0) {
        fprintf(stderr, "no X display\n");
        return -1;
    }
    int scr = DefaultScreen(d);
    XTestFakeMotionEvent(d, scr, 640, 360, 0);
    XFlush(d);
    sleep_ms(1500); /* let the first paint and the focus settle */
    int64_t prev;
    press(d, start_key, &prev);
    unsigned seed = 12345;
    int n = 0;
    for (; n < n_trials; n++) {
        onset[n] = damage_after(prev, 3000);
        if (!onset[n]) {
            fprintf(stderr, "trial %d: no damage after the press\n", n);
            break;
        }
        seed = seed * 1103515245u + 12345u;
        int64_t at = onset[n] + (120 + (seed >> 16) % 200) * 1000000LL;
        while (now_ns() < at) {
            sleep_ms(0.2);
        }
        press(d, n % 2 ? XK_n : XK_p, &T[n]);
        prev = T[n];
    }
    damage_stop();
    XCloseDisplay(d);
    return n;
}

static int bench_jspsych(const char *logp, int n_trials)
{
    if (n_trials > MAX_EV) {
        n_trials = MAX_EV;
    }
    int64_t deadline = now_ns() + 120LL * 1000000000LL;
    while (!log_has(logp, "BENCH_READY") && now_ns() < deadline) {
        sleep_ms(50);
    }
    if (!log_has(logp, "BENCH_READY")) {
        fprintf(stderr, "the jsPsych page did not start (see %s)\n", logp);
        return 1;
    }
    static int64_t T[MAX_EV], onset[MAX_EV];
    int n = drive_trials(XK_space, n_trials, T, onset);
    if (n < 0) {
        return 1;
    }
    deadline = now_ns() + 10LL * 1000000000LL;
    while (!log_has(logp, "BENCH_DONE") && now_ns() < deadline) {
        sleep_ms(50);
    }
    /* the RTs jsPsych recorded */
    static double rt[MAX_EV], err[MAX_EV];
    static char have[MAX_EV];
    memset(have, 0, sizeof have);
    FILE *f = fopen(logp, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "BENCH_RT ");
        int i;
        double v;
        if (p && sscanf(p, "BENCH_RT %d %lf", &i, &v) == 2 && i >= 0 && i < n) {
            rt[i] = v;
            have[i] = 1;
        }
    }
    if (f) {
        fclose(f);
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (have[i]) {
            err[m++] = rt[i] - (double)(T[i] - onset[i]) / 1e6;
        }
    }
    printf("jsPsych trials answered: %d, RTs read back: %d\n", n, m);
    if (m < 5) {
        return 1;
    }
    print_rt_json("jspsych", err, m, NULL, NULL);
    return 0;
}

/* One number from the database through the sqlite3 shell (-1 when none). */
static long db_count(const char *db, const char *sql)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sqlite3 -readonly '%s' \"%s\" 2>/dev/null", db,
             sql);
    FILE *p = popen(cmd, "r");
    long v = -1;
    if (p) {
        if (fscanf(p, "%ld", &v) != 1) {
            v = -1;
        }
        pclose(p);
    }
    return v;
}

/* simlab serve's page in Chromium (compare_peers.sh starts both): waits
** for the participant's start in the database, presses Enter on the
** consent, answers the n_trials predictions as bench_jspsych does and
** reads the RTs the server stored (response_ns - onset_ns of each
** prediction, in order). */
static int bench_web(const char *db, int n_trials)
{
    if (n_trials > MAX_EV) {
        n_trials = MAX_EV;
    }
    int64_t deadline = now_ns() + 120LL * 1000000000LL;
    while (db_count(db, "SELECT count(*) FROM event WHERE "
                        "kind='online_start'") < 1 &&
           now_ns() < deadline) {
        sleep_ms(100);
    }
    static int64_t T[MAX_EV], onset[MAX_EV];
    int n = drive_trials(XK_Return, n_trials, T, onset);
    if (n < 0) {
        return 1;
    }
    deadline = now_ns() + 10LL * 1000000000LL;
    while (db_count(db, "SELECT count(*) FROM response WHERE choice >= 0") <
               n &&
           now_ns() < deadline) {
        sleep_ms(100);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "sqlite3 -readonly '%s' \"SELECT (r.response_ns - r.onset_ns) / "
             "1e6 FROM response r JOIN trial t ON t.participant = "
             "r.participant AND t.seq = r.seq WHERE t.expects = 'choice' AND "
             "r.choice >= 0 ORDER BY r.seq\"",
             db);
    static double err[MAX_EV];
    FILE *p = popen(cmd, "r");
    int m = 0;
    double v;
    while (p && m < n && fscanf(p, "%lf", &v) == 1) {
        err[m] = v - (double)(T[m] - onset[m]) / 1e6;
        m++;
    }
    if (p) {
        pclose(p);
    }
    printf("simlab serve trials answered: %d, RTs read back: %d\n", n, m);
    if (m < 5) {
        return 1;
    }
    print_rt_json("web", err, m, NULL, NULL);
    return 0;
}

static double bare_window_ms(void)
{
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        SDL_Init(SDL_INIT_VIDEO);
        SDL_Window *w = SDL_CreateWindow("ref", SDL_WINDOWPOS_CENTERED,
                                         SDL_WINDOWPOS_CENTERED, 1280, 720, 0);
        SDL_Renderer *r = SDL_CreateRenderer(w, -1, 0);
        SDL_SetRenderDrawColor(r, 240, 240, 240, 255);
        SDL_RenderClear(r);
        SDL_RenderPresent(r);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return (double)(now_ns() - t0) / 1e6;
}

static int bench_launch(const char *simlab, const char *bundle, const char *out,
                        int reps)
{
    double app[64], ref[64];
    if (reps > 64) {
        reps = 64;
    }
    for (int i = 0; i < reps; i++) {
        char db[1024], logp[1024];
        snprintf(db, sizeof db, "%s/launch.db", out);
        snprintf(logp, sizeof logp, "%s/launch.log", out);
        unlink(logp);
        const char *argv[] = {simlab, "run",    bundle,     "--db",
                              db,     "--size", "1280x720", "--timing-log",
                              logp,   NULL};
        int64_t t0 = now_ns();
        pid_t pid = spawn(argv);
        double ms = -1;
        for (int k = 0; k < 20000 && ms < 0; k++) {
            FILE *f = fopen(logp, "r");
            char line[256];
            while (f && fgets(line, sizeof line, f)) {
                if (strncmp(line, "first_frame", 11) == 0) {
                    ms = (double)(now_ns() - t0) / 1e6;
                }
            }
            if (f) {
                fclose(f);
            }
            if (ms < 0) {
                sleep_ms(0.5);
            }
        }
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        app[i] = ms;
        ref[i] = bare_window_ms();
    }
    Stats sa = stats(app, reps), sr = stats(ref, reps);
    printf("| launch to first frame (ms), %d runs | median | p99 | SD |\n",
           reps);
    printf("| --- | --- | --- | --- |\n");
    printf("| simlab run (study load, database, window, fonts, start "
           "screen) | %.1f | %.1f | %.1f |\n",
           sa.median, sa.p99, sa.sd);
    printf("| reference: bare SDL window + renderer + one present | %.1f | "
           "%.1f | %.1f |\n",
           sr.median, sr.p99, sr.sd);
    printf("\nratio simlab/reference (medians): %.2f\n",
           sr.median > 0 ? sa.median / sr.median : 0);
    return 0;
}

/* The instrument (injector, damage watcher) must not be the late one: a
** real-time policy where permitted (root), not inherited by the programs
** it starts. Says which. */
static void instrument_priority(void)
{
    struct sched_param sp = {.sched_priority = INSTRUMENT_PRIORITY};
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0) {
        fprintf(stderr, "instrument: SCHED_FIFO\n");
    } else {
        fprintf(stderr, "instrument: normal priority\n");
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 &&
        (strcmp(argv[1], "rt") == 0 || strcmp(argv[1], "jspsych") == 0 ||
         strcmp(argv[1], "web") == 0)) {
        instrument_priority();
    }
    if (argc >= 6 && strcmp(argv[1], "input") == 0) {
        return bench_input(argv[2], argv[3], argv[4], argv[5],
                           argc > 6 ? atoi(argv[6]) : 60, 0,
                           argc > 7 ? argv + 7 : NULL);
    }
    if (argc >= 6 && strcmp(argv[1], "rt") == 0) {
        return bench_input(argv[2], argv[3], argv[4], argv[5],
                           argc > 6 ? atoi(argv[6]) : 60, 1,
                           argc > 7 ? argv + 7 : NULL);
    }
    if (argc >= 3 && strcmp(argv[1], "jspsych") == 0) {
        return bench_jspsych(argv[2], argc > 3 ? atoi(argv[3]) : 64);
    }
    if (argc >= 3 && strcmp(argv[1], "web") == 0) {
        return bench_web(argv[2], argc > 3 ? atoi(argv[3]) : 64);
    }
    if (argc >= 5 && strcmp(argv[1], "launch") == 0) {
        return bench_launch(argv[2], argv[3], argv[4],
                            argc > 5 ? atoi(argv[5]) : 9);
    }
    fprintf(stderr, "usage: bench_app input SIMLAB BUNDLE OUTDIR CLASSKEY "
                    "[N [RUN ARGS...]]\n       bench_app launch SIMLAB BUNDLE "
                    "OUTDIR [REPS]\n       bench_app rt SIMLAB BUNDLE OUTDIR "
                    "CLASSKEY [N [RUN ARGS...]]\n       bench_app jspsych "
                    "LOGFILE [N]\n       bench_app web DBFILE [N]\n");
    return 2;
}
