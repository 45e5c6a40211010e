/*
** Key press stamps: the X keysym to SDL key code table of the input thread,
** the matching of raw presses to SDL's key events (a ring fed by hand),
** the event watch's stamps and their sources, and (argument "x11", under
** Xvfb) the input thread itself: presses injected through XTest are
** stamped by it, no later than the event watch stamped them, and matched
** one to one.
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"

#include <SDL2/SDL.h>
#include <string.h>
#include <time.h>

#include "app/rawinput.h"
#include "app/stamps.h"

static void test_keysyms(void)
{
    CHECK_INT(rawinput_keysym_to_sdl('p'), SDLK_p);
    CHECK_INT(rawinput_keysym_to_sdl(' '), SDLK_SPACE);
    CHECK_INT(rawinput_keysym_to_sdl('4'), SDLK_4);
    CHECK_INT(rawinput_keysym_to_sdl(0xff0d), SDLK_RETURN);   /* Return */
    CHECK_INT(rawinput_keysym_to_sdl(0xff8d), SDLK_KP_ENTER); /* KP_Enter */
    CHECK_INT(rawinput_keysym_to_sdl(0xffb0), SDLK_KP_0);     /* KP_0 */
    CHECK_INT(rawinput_keysym_to_sdl(0xffb5), SDLK_KP_5);     /* KP_5 */
    CHECK_INT(rawinput_keysym_to_sdl(0xffbe), SDLK_F1);       /* F1 */
    CHECK_INT(rawinput_keysym_to_sdl(0xffc9), SDLK_F12);      /* F12 */
    CHECK_INT(rawinput_keysym_to_sdl(0xff53), SDLK_RIGHT);    /* Right */
    /* no SDL name: matches any key, by order */
    CHECK_INT(rawinput_keysym_to_sdl(0x6c1), 0); /* Cyrillic_a */
    CHECK_INT(rawinput_keysym_to_sdl(0), 0);
}

#define MS 1000000LL

/* The matching, with raw presses fed by hand. */
static void test_matching(void)
{
    RawInput *r = rawinput_new_ring();
    CHECK(r != NULL);
    if (!r) {
        return;
    }
    /* a press, then SDL's event for it 20 ms later (a frame was drawn) */
    rawinput_push(r, 100 * MS, SDLK_p);
    CHECK(rawinput_take(r, SDLK_p, 120 * MS) == 100 * MS);
    /* two presses before SDL pumps: each its own, in order */
    rawinput_push(r, 200 * MS, SDLK_p);
    rawinput_push(r, 205 * MS, SDLK_n);
    CHECK(rawinput_take(r, SDLK_p, 230 * MS) == 200 * MS);
    CHECK(rawinput_take(r, SDLK_n, 231 * MS) == 205 * MS);
    /* the thread stamped it a little after SDL did: the earlier stamp */
    rawinput_push(r, 300 * MS + 500000, SDLK_p);
    CHECK(rawinput_take(r, SDLK_p, 300 * MS) == 300 * MS);
    /* SDL's event before the thread stored its raw press: none (the watch
    ** stamps it); the raw press that comes late is never given to the
    ** next press, which gets its own */
    CHECK(rawinput_take(r, SDLK_p, 400 * MS) == 0);
    rawinput_push(r, 400 * MS - 100000, SDLK_p);
    rawinput_push(r, 600 * MS, SDLK_p);
    CHECK(rawinput_take(r, SDLK_p, 610 * MS) == 600 * MS);
    /* another key's raw press is not this one's */
    rawinput_push(r, 700 * MS, SDLK_p);
    CHECK(rawinput_take(r, SDLK_n, 705 * MS) == 0);
    rawinput_push(r, 800 * MS, SDLK_n);
    CHECK(rawinput_take(r, SDLK_n, 810 * MS) == 800 * MS);
    /* a raw press over a second older than SDL's event never reached it */
    rawinput_push(r, 1000 * MS, SDLK_p);
    CHECK(rawinput_take(r, SDLK_p, 2500 * MS) == 0);
    /* a key without an SDL name matches any key, by order */
    rawinput_push(r, 3000 * MS, 0);
    CHECK(rawinput_take(r, SDLK_j, 3010 * MS) == 3000 * MS);
    /* a later press waits for its own event */
    rawinput_push(r, 4000 * MS, SDLK_p);
    CHECK(rawinput_take(r, SDLK_p, 3900 * MS) == 0);
    CHECK(rawinput_take(r, SDLK_p, 4010 * MS) == 4000 * MS);
    /* stamps never go back: a raw press older than the last key press
    ** recorded is not taken */
    rawinput_push(r, 3995 * MS, SDLK_q);
    CHECK(rawinput_take(r, SDLK_q, 4020 * MS) == 0);
    unsigned received = 0, matched = 0;
    rawinput_counts(r, &received, &matched);
    CHECK_INT((int)received, 12);
    CHECK_INT((int)matched, 8);
    rawinput_close(r);
}

static SDL_Event key_event(SDL_Keycode sym, SDL_Scancode sc)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.scancode = sc;
    return e;
}

/* Without X (the dummy driver): no input thread, the event watch stamps. */
static void test_watch_only(void)
{
    CHECK_INT(SDL_Init(SDL_INIT_VIDEO), 0);
    SDL_Window *w = SDL_CreateWindow("t", 0, 0, 64, 64, SDL_WINDOW_HIDDEN);
    CHECK(w != NULL);
    RawInput *raw = (RawInput *)1;
    char why[256] = "";
    CHECK_INT(rawinput_open(w, 10, &raw, why, sizeof why), -1);
    CHECK(raw == NULL);
    CHECK(strstr(why, "dummy") != NULL || strstr(why, "libXi") != NULL);
    char vwhy[256];
    CHECK_INT(rawinput_x11_virtual(w, vwhy, sizeof vwhy), -1);
    XKeyInjector *x = (XKeyInjector *)1;
    CHECK_INT(xinject_open(w, &x, vwhy, sizeof vwhy), -1);
    CHECK(x == NULL);

    Stamps *st = NULL;
    SimError err;
    CHECK_INT(stamps_open(&st, &err), SIM_OK);
    CHECK(!stamps_have_raw(st));
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    SDL_Event e = key_event(SDLK_p, SDL_SCANCODE_P);
    int64_t before = stamps_now(st);
    CHECK_INT(SDL_PushEvent(&e), 1);
    SDL_Event got;
    int found = 0;
    while (SDL_PollEvent(&got)) {
        if (got.type == SDL_KEYDOWN) {
            found = 1;
            break;
        }
    }
    CHECK(found);
    int64_t now = stamps_now(st) + 1000000000LL;
    int64_t t = stamps_take(st, &got, now);
    int64_t watch = 0;
    CHECK_INT(stamps_last_source(st, &watch), STAMP_WATCH);
    CHECK(t >= before && t < now);
    CHECK(watch == t);
    /* an event no watch stamp matches keeps the poll time */
    SDL_Event lone = key_event(SDLK_n, SDL_SCANCODE_N);
    CHECK(stamps_take(st, &lone, now) == now);
    CHECK_INT(stamps_last_source(st, NULL), STAMP_NONE);
    stamps_close(st);
    SDL_DestroyWindow(w);
    SDL_Quit();
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits for the next SDL key press (non-repeat); 0 when none came. */
static int next_key(SDL_Event *out)
{
    /* up to about 5 s: a loaded machine delivers late, never not at all */
    for (int i = 0; i < 2500; i++) {
        SDL_PumpEvents();
        while (SDL_PollEvent(out)) {
            if (out->type == SDL_KEYDOWN && !out->key.repeat) {
                return 1;
            }
        }
        sleep_ms(2);
    }
    return 0;
}

/* Waits (up to about 5 s) until SDL has the release of a key. */
static void wait_key_up(void)
{
    for (int i = 0; i < 2500; i++) {
        SDL_PumpEvents();
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            if (e.type == SDL_KEYUP) {
                return;
            }
        }
        sleep_ms(2);
    }
}

/* Under X11 (Xvfb): the input thread stamps injected presses. */
static int test_x11(void)
{
    if (SDL_Init(SDL_INIT_VIDEO) != 0 ||
        strcmp(SDL_GetCurrentVideoDriver(), "x11") != 0) {
        fprintf(stderr, "no X11 display: skipped\n");
        return SIM_TEST_SKIP;
    }
    SDL_Window *w = SDL_CreateWindow("t", 0, 0, 320, 240, SDL_WINDOW_SHOWN);
    CHECK(w != NULL);
    char why[256] = "";
    RawInput *raw = NULL;
    if (rawinput_open(w, 10, &raw, why, sizeof why) != 0) {
        fprintf(stderr, "no input thread: %s\n", why);
        CHECK(0);
        return TEST_REPORT();
    }
    char vwhy[256];
    CHECK_INT(rawinput_x11_virtual(w, vwhy, sizeof vwhy), 1); /* Xvfb */
    Stamps *st = NULL;
    SimError err;
    CHECK_INT(stamps_open(&st, &err), SIM_OK);
    stamps_set_raw(st, raw);
    CHECK(stamps_have_raw(st));
    /* let the window map (up to 3 s on a loaded machine), then settle */
    int shown = 0;
    for (int i = 0; i < 300 && !shown; i++) {
        SDL_PumpEvents();
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            shown |= ev.type == SDL_WINDOWEVENT &&
                     (ev.window.event == SDL_WINDOWEVENT_EXPOSED ||
                      ev.window.event == SDL_WINDOWEVENT_FOCUS_GAINED);
        }
        sleep_ms(10);
    }
    for (int i = 0; i < 20; i++) {
        SDL_PumpEvents();
        sleep_ms(10);
    }
    XKeyInjector *x = NULL;
    CHECK_INT(xinject_open(w, &x, why, sizeof why), 0);
    /* a window not yet viewable refuses the focus: on a loaded machine
    ** ask again until it has it (up to about 5 s) */
    for (int i = 0;
         i < 50 && x && !(SDL_GetWindowFlags(w) & SDL_WINDOW_INPUT_FOCUS);
         i++) {
        sleep_ms(100);
        SDL_PumpEvents();
        xinject_close(x);
        x = NULL;
        xinject_open(w, &x, why, sizeof why);
    }
    sleep_ms(100);
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    int n_raw = 0, n_early = 0;
    for (int i = 0; i < 5; i++) {
        int64_t t_inj = stamps_mono_ns();
        xinject_key(x, 1);
        sleep_ms(20); /* SDL queues the press late, as while drawing */
        xinject_key(x, 0);
        SDL_Event e;
        if (!next_key(&e)) {
            unsigned got = 0, used = 0;
            rawinput_counts(raw, &got, &used);
            fprintf(stderr,
                    "press %d never reached SDL (window focus %d, the input "
                    "thread saw %u presses)\n",
                    i, !!(SDL_GetWindowFlags(w) & SDL_WINDOW_INPUT_FOCUS), got);
            CHECK(0);
            break;
        }
        int64_t now = stamps_now(st);
        int64_t t = stamps_take(st, &e, now);
        /* the release reached SDL before the next press: SDL takes a
        ** release and a press with one server time for a key repeat */
        wait_key_up();
        sleep_ms(5);
        int64_t watch = 0;
        StampSource src = stamps_last_source(st, &watch);
        CHECK_INT(e.key.keysym.sym, SDLK_SPACE);
        CHECK(t >= t_inj);
        CHECK(t <= watch);
        if (src == STAMP_RAW) {
            n_raw++;
            /* stamped on arrival, not when SDL pumped 20 ms later */
            n_early += watch - t > 5000000LL;
        }
    }
    CHECK(n_raw >= 4);
    CHECK(n_early >= 3);
    unsigned received = 0, matched = 0;
    rawinput_counts(raw, &received, &matched);
    CHECK(received >= 5);
    CHECK_INT((int)matched, n_raw);
    xinject_close(x);
    stamps_close(st);
    rawinput_close(raw);
    SDL_DestroyWindow(w);
    SDL_Quit();
    return TEST_REPORT();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "x11") == 0) {
        return test_x11();
    }
    test_keysyms();
    test_matching();
    test_watch_only();
    return TEST_REPORT();
}
