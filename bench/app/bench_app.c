/*
** Benchmarks of the runner under an X server (Xvfb), never run by ctest.
**   bench_app input SIMLAB BUNDLE OUTDIR CLASSKEY [N]
**     Starts `simlab run` as a person would use it, injects key presses
**     through XTest at known times (CLOCK_MONOTONIC) and compares them with
**     the times the runner recorded: its own event stamps, SDL's millisecond
**     event timestamps and the loop's poll time. Also reports the time from
**     a response to the next stimulus on screen and the frame times.
**   bench_app launch SIMLAB BUNDLE OUTDIR REPS
**     Time from launch to the first frame, against a bare SDL window with a
**     renderer (the reference measured in the same run).
** Prints Markdown tables.
*/
#define _POSIX_C_SOURCE 200809L
#include <SDL2/SDL.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
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

static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv);
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

static int bench_input(const char *simlab, const char *bundle, const char *out,
                       const char *classkey, int n_wanted)
{
    char db[1024], logp[1024];
    snprintf(db, sizeof db, "%s/bench.db", out);
    snprintf(logp, sizeof logp, "%s/timing.log", out);
    unlink(db);
    unlink(logp);
    char *argv[] = {
        (char *)simlab, "run",      (char *)bundle, "--db", db,
        "--size",       "1280x720", "--timing-log", logp,   "--station",
        "bench",        NULL};
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
        transition[MAX_EV], frames[MAX_EV * 4];
    int n_inj = 0, n_keys = 0, n_trans = 0, n_frames = 0, n_answers = 0;
    press(d, XK_Return, &injected[n_inj++]); /* start the participant */
    unsigned seed = 12345;
    int done = 0;
    int64_t deadline = now_ns() + 600LL * 1000000000LL;
    while (!done && now_ns() < deadline) {
        if (!read_line(f, line, sizeof line)) {
            sleep_ms(1);
            continue;
        }
        long long t, t2, t3;
        unsigned ms;
        if (sscanf(line, "key %lld %u %lld", &t, &ms, &t3) == 3) {
            if (n_keys < n_inj && n_keys < MAX_EV) {
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
        }
        if (strcmp(screen, "done") == 0 || n_answers >= n_wanted) {
            done = 1;
            break;
        }
        /* A person takes a while; the delay is random so that presses
        ** fall anywhere within a frame. */
        seed = seed * 1103515245u + 12345u;
        sleep_ms(120 + (seed >> 16) % 200);
        if (n_inj + 3 >= MAX_EV) {
            break;
        }
        if (strcmp(screen, "quiz") == 0) {
            press(d, XK_0 + (attempt <= n_opt ? attempt : 1),
                  &injected[n_inj++]);
        } else if (strcmp(screen, "predict") == 0 ||
                   strcmp(screen, "counterfactual") == 0) {
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
            press(d, XK_Return, &injected[n_inj++]);
        }
    }
    sleep_ms(300);
    while (read_line(f, line, sizeof line)) {
        long long t, t3;
        unsigned ms;
        if (sscanf(line, "key %lld %u %lld", &t, &ms, &t3) == 3 &&
            n_keys < n_inj) {
            int64_t T = injected[n_keys];
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
    printf("key presses injected: %d, recorded: %d, answers: %d\n\n", n_inj,
           n_keys, n_answers);
    printf("| recorded time - injected time (ms) | median | p99 | SD |\n");
    printf("| --- | --- | --- | --- |\n");
    printf("| simlab event stamp (event watch) | %.3f | %.3f | %.3f |\n",
           so.median, so.p99, so.sd);
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
    printf("| frame: build + draw + present | %d | %.2f | %.2f | %.2f |\n",
           n_frames, sf.median, sf.p99, sf.sd);
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
        char *argv[] = {
            (char *)simlab, "run",      (char *)bundle, "--db", db,
            "--size",       "1280x720", "--timing-log", logp,   NULL};
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

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "input") == 0) {
        return bench_input(argv[2], argv[3], argv[4], argv[5],
                           argc > 6 ? atoi(argv[6]) : 60);
    }
    if (argc >= 5 && strcmp(argv[1], "launch") == 0) {
        return bench_launch(argv[2], argv[3], argv[4],
                            argc > 5 ? atoi(argv[5]) : 9);
    }
    fprintf(stderr, "usage: bench_app input SIMLAB BUNDLE OUTDIR CLASSKEY "
                    "[N]\n       bench_app launch SIMLAB BUNDLE OUTDIR "
                    "[REPS]\n");
    return 2;
}
