/*
** The input thread: XInput 2 raw key events on a second X connection,
** stamped on arrival, kept in a ring under a mutex until the loop claims
** them for SDL's key events. Built with libX11 and libXi
** (SIMLAB_HAVE_XI); without them rawinput_open always declines. The ring
** and its matching do not need X (rawinput_new_ring, for tests).
*/
#define _GNU_SOURCE /* setpriority of one thread */
#include "app/rawinput.h"

#include <SDL2/SDL_syswm.h>
#include <stdio.h>
#include <string.h>

#include "app/rush.h"
#include "common/sim_clock.h"
#include "common/sim_alloc.h"

SDL_Keycode rawinput_keysym_to_sdl(unsigned long ks)
{
    if (ks >= 0x20 && ks <= 0x7e) {
        /* Latin-1 printable keysyms are SDL's key codes (a, 1, space) */
        return (SDL_Keycode)ks;
    }
    if (ks >= 0xffb0 && ks <= 0xffb9) { /* XK_KP_0 .. XK_KP_9 */
        /* SDL's keypad codes run 1 .. 9, then 0 */
        return ks == 0xffb0 ? SDLK_KP_0
                            : SDLK_KP_1 + (SDL_Keycode)(ks - 0xffb1);
    }
    if (ks >= 0xffbe && ks <= 0xffc9) { /* XK_F1 .. XK_F12 */
        return SDLK_F1 + (SDL_Keycode)(ks - 0xffbe);
    }
    switch (ks) {
    case 0xff0d: /* XK_Return */
        return SDLK_RETURN;
    case 0xff8d: /* XK_KP_Enter */
        return SDLK_KP_ENTER;
    case 0xff1b: /* XK_Escape */
        return SDLK_ESCAPE;
    case 0xff09: /* XK_Tab */
        return SDLK_TAB;
    case 0xff08: /* XK_BackSpace */
        return SDLK_BACKSPACE;
    case 0xff51: /* XK_Left */
        return SDLK_LEFT;
    case 0xff52: /* XK_Up */
        return SDLK_UP;
    case 0xff53: /* XK_Right */
        return SDLK_RIGHT;
    case 0xff54: /* XK_Down */
        return SDLK_DOWN;
    default:
        return 0;
    }
}

#ifdef SIMLAB_HAVE_XI
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <errno.h>
#include <poll.h>
#include <sys/resource.h>
#endif
#include <time.h>
#include <unistd.h>

#define RAW_RING 256
/* A raw press belongs to an SDL event stamped at most this much later */
#define RAW_WINDOW_NS 1000000000LL
/* or this much earlier (the input thread ran late) */
#define RAW_LATE_NS 20000000LL
/* How long the loop waits for a raw press not stored yet: 8 x 0.25 ms */
#define RAW_WAIT_NS 250000L

typedef struct RawPress {
    int64_t ns;
    SDL_Keycode sym; /* 0: unknown, matches any key */
} RawPress;

struct RawInput {
#ifdef SIMLAB_HAVE_XI
    Display *dpy; /* the thread's own connection */
    int xi_opcode;
#endif
    int wake[2]; /* pipe: a byte stops the thread; -1 without one */
    SDL_Thread *thread;
    SDL_mutex *lock;
    RawPress ring[RAW_RING];
    unsigned head, tail;
    /* the last SDL press no raw press matched: its late raw press must
    ** not be claimed by the next one */
    int64_t orphan_ns;
    SDL_Keycode orphan_sym;
    int64_t last_ns; /* the stamp of the last key press taken */
    unsigned received, matched;
    int want_prio;      /* SCHED_FIFO priority the thread asks for */
    int got_fifo;       /* what it got: SCHED_FIFO at got_prio, */
    int got_prio;       /* or this nice value */
    SDL_sem *scheduled; /* posted once the thread has its policy */
};

static void push(RawInput *r, int64_t ns, SDL_Keycode sym)
{
    SDL_LockMutex(r->lock);
    if (r->head - r->tail >= RAW_RING) {
        r->tail++; /* drop the oldest */
    }
    RawPress *p = &r->ring[r->head % RAW_RING];
    p->ns = ns;
    p->sym = sym;
    r->head++;
    r->received++;
    SDL_UnlockMutex(r->lock);
}

static void free_raw(RawInput *r)
{
#ifdef SIMLAB_HAVE_XI
    if (r->dpy) {
        XCloseDisplay(r->dpy);
    }
#endif
    if (r->wake[0] >= 0) {
        close(r->wake[0]);
        close(r->wake[1]);
    }
    if (r->lock) {
        SDL_DestroyMutex(r->lock);
    }
    if (r->scheduled) {
        SDL_DestroySemaphore(r->scheduled);
    }
    sim_free(r);
}

RawInput *rawinput_new_ring(void)
{
    RawInput *r = sim_calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->wake[0] = r->wake[1] = -1;
    r->lock = SDL_CreateMutex();
    if (!r->lock) {
        sim_free(r);
        return NULL;
    }
    return r;
}

void rawinput_push(RawInput *r, int64_t ns, SDL_Keycode sym)
{
    push(r, ns, sym);
}

void rawinput_close(RawInput *r)
{
    if (!r) {
        return;
    }
#ifdef SIMLAB_HAVE_XI
    if (r->thread) {
        char b = 1;
        if (write(r->wake[1], &b, 1) == 1) {
            SDL_WaitThread(r->thread, NULL);
        } else {
            SDL_DetachThread(r->thread);
        }
    }
#endif
    free_raw(r);
}

static int same_key(SDL_Keycode raw, SDL_Keycode sym)
{
    return raw == 0 || raw == sym;
}

/* One pass over the ring (locked): the stamp of the raw press of sym for
** the SDL event watched at watch_ns, or 0 when it is not there (yet). */
static int64_t scan(RawInput *r, SDL_Keycode sym, int64_t watch_ns)
{
    while (r->tail != r->head) {
        RawPress *p = &r->ring[r->tail % RAW_RING];
        if (p->ns > watch_ns + RAW_LATE_NS) {
            return 0; /* a later press, for a later event */
        }
        r->tail++;
        if (r->orphan_ns && same_key(p->sym, r->orphan_sym) &&
            p->ns <= r->orphan_ns + RAW_LATE_NS) {
            /* the raw press of the earlier event that got the watch's
            ** stamp: it came too late for that one and belongs to no
            ** other */
            r->orphan_ns = 0;
            continue;
        }
        if (p->ns <= r->last_ns) {
            continue; /* presses are stamped in order: older than the
                         last key press recorded */
        }
        if (p->ns < watch_ns - RAW_WINDOW_NS || !same_key(p->sym, sym)) {
            continue; /* never reached SDL (another window had the focus) */
        }
        r->matched++;
        return p->ns < watch_ns ? p->ns : watch_ns;
    }
    return 0;
}

int64_t rawinput_take(RawInput *r, SDL_Keycode sym, int64_t watch_ns)
{
    int64_t t = 0;
    /* The X server sends the raw event before the window's own, but the
    ** input thread may not have stored it yet: wait for it a little. */
    for (int i = 0; i < 8 && !t; i++) {
        if (i > 0) {
            struct timespec ts = {0, RAW_WAIT_NS};
            nanosleep(&ts, NULL);
        }
        SDL_LockMutex(r->lock);
        t = scan(r, sym, watch_ns);
        if (!t && i == 7) {
            r->orphan_ns = watch_ns;
            r->orphan_sym = sym;
        }
        if (t || i == 7) {
            r->last_ns = t ? t : watch_ns;
        }
        SDL_UnlockMutex(r->lock);
    }
    return t;
}

void rawinput_priority(const RawInput *r, int *fifo, int *prio)
{
    SDL_LockMutex(r->lock);
    *fifo = r->got_fifo;
    *prio = r->got_prio;
    SDL_UnlockMutex(r->lock);
}

void rawinput_counts(const RawInput *r, unsigned *received, unsigned *matched)
{
    SDL_LockMutex(r->lock);
    *received = r->received;
    *matched = r->matched;
    SDL_UnlockMutex(r->lock);
}

#ifdef SIMLAB_HAVE_XI

/* Every event the connection holds; t is when they were seen to arrive. */
static void drain(RawInput *r, int64_t t)
{
    while (XPending(r->dpy) > 0) {
        XEvent ev;
        XNextEvent(r->dpy, &ev);
        XGenericEventCookie *c = &ev.xcookie;
        if (c->type != GenericEvent || c->extension != r->xi_opcode ||
            !XGetEventData(r->dpy, c)) {
            continue;
        }
        if (c->evtype == XI_RawKeyPress) {
            const XIRawEvent *re = c->data;
            if (!(re->flags & XIKeyRepeat)) {
                KeySym ks =
                    XkbKeycodeToKeysym(r->dpy, (KeyCode)re->detail, 0, 0);
                push(r, t, rawinput_keysym_to_sdl(ks));
            }
        }
        XFreeEventData(r->dpy, c);
    }
}

static int SDLCALL thread_main(void *data)
{
    RawInput *r = data;
    /* The thread sleeps but for key presses: let it run first when one
    ** comes -- SCHED_FIFO where the system allows it (root, or an rtprio
    ** limit for the user), else a lower nice value (this thread only),
    ** else as it is (an ordinary thread: the watch's stamps are no
    ** better). */
    int prio = rush_set_fifo(r->want_prio);
    int fifo = prio > 0;
    if (!fifo) {
        prio = setpriority(PRIO_PROCESS, 0, -10) == 0 ? -10 : 0;
    }
    SDL_LockMutex(r->lock);
    r->got_fifo = fifo;
    r->got_prio = prio;
    SDL_UnlockMutex(r->lock);
    SDL_SemPost(r->scheduled);
    struct pollfd fds[2] = {{ConnectionNumber(r->dpy), POLLIN, 0},
                            {r->wake[0], POLLIN, 0}};
    for (;;) {
        drain(r, sim_clock_mono_ns());
        int n = poll(fds, 2, -1);
        int64_t t = sim_clock_mono_ns();
        if (n < 0 && errno != EINTR) {
            return 1;
        }
        if (fds[1].revents) {
            return 0;
        }
        if (fds[0].revents & (POLLERR | POLLHUP)) {
            return 1;
        }
        if (fds[0].revents & POLLIN) {
            drain(r, t);
        }
    }
}

/* Opens the second connection and asks for raw key presses. */
static int open_display(RawInput *r, const char *name, char *why, size_t n)
{
    r->dpy = XOpenDisplay(name);
    if (!r->dpy) {
        snprintf(why, n, "cannot open the X display %s", name ? name : "");
        return -1;
    }
    int ev, er, major = 2, minor = 2;
    if (!XQueryExtension(r->dpy, "XInputExtension", &r->xi_opcode, &ev, &er) ||
        XIQueryVersion(r->dpy, &major, &minor) != Success || major < 2) {
        snprintf(why, n, "the X server has no XInput 2");
        return -1;
    }
    unsigned char mask[XIMaskLen(XI_LASTEVENT)];
    memset(mask, 0, sizeof mask);
    XISetMask(mask, XI_RawKeyPress);
    XIEventMask em = {XIAllMasterDevices, (int)sizeof mask, mask};
    XISelectEvents(r->dpy, DefaultRootWindow(r->dpy), &em, 1);
    XSync(r->dpy, False);
    return 0;
}

int rawinput_open(SDL_Window *w, int rt_priority, RawInput **out, char *why,
                  size_t why_size)
{
    *out = NULL;
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(w, &info) || info.subsystem != SDL_SYSWM_X11) {
        const char *drv = SDL_GetCurrentVideoDriver();
        snprintf(why, why_size, "the video driver is %s, not x11",
                 drv ? drv : "unknown");
        return -1;
    }
    RawInput *r = sim_calloc(1, sizeof *r);
    if (!r) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    r->wake[0] = r->wake[1] = -1;
    if (open_display(r, DisplayString(info.info.x11.display), why, why_size) !=
        0) {
        free_raw(r);
        return -1;
    }
    r->lock = SDL_CreateMutex();
    r->scheduled = SDL_CreateSemaphore(0);
    if (!r->lock || !r->scheduled || pipe(r->wake) != 0) {
        snprintf(why, why_size, "cannot create the input thread's lock");
        free_raw(r);
        return -1;
    }
    r->want_prio = rt_priority;
    r->thread = SDL_CreateThread(thread_main, "simlab-input", r);
    if (!r->thread) {
        snprintf(why, why_size, "cannot start the input thread: %s",
                 SDL_GetError());
        free_raw(r);
        return -1;
    }
    /* its policy is known before the run is recorded */
    SDL_SemWaitTimeout(r->scheduled, 1000);
    *out = r;
    return 0;
}

/* The X display of w, or NULL when w is not on X11. */
static Display *x11_display(SDL_Window *w, Window *win)
{
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(w, &info) || info.subsystem != SDL_SYSWM_X11) {
        return NULL;
    }
    if (win) {
        *win = info.info.x11.window;
    }
    return info.info.x11.display;
}

int rawinput_x11_virtual(SDL_Window *w, char *why, size_t why_size)
{
    Display *d = x11_display(w, NULL);
    if (!d) {
        snprintf(why, why_size, "not an X11 display");
        return -1;
    }
    int op, ev, er;
    if (!XQueryExtension(d, "DRI3", &op, &ev, &er) &&
        !XQueryExtension(d, "DRI2", &op, &ev, &er) &&
        !XQueryExtension(d, "NV-GLX", &op, &ev, &er)) {
        snprintf(why, why_size,
                 "the X server drives no graphics hardware (no DRI2, DRI3 "
                 "or NV-GLX): a virtual display such as Xvfb");
        return 1;
    }
    snprintf(why, why_size, "an X server with direct rendering");
    return 0;
}

static int ignore_x_error(Display *d, XErrorEvent *e)
{
    (void)d;
    (void)e;
    return 0;
}

struct XKeyInjector {
    Display *dpy;
    KeyCode key;
};

int xinject_open(SDL_Window *w, XKeyInjector **out, char *why, size_t why_size)
{
    *out = NULL;
    Window win = 0;
    Display *d = x11_display(w, &win);
    if (!d) {
        snprintf(why, why_size,
                 "input latency is measured by XTest loopback under X11 only");
        return -1;
    }
    XKeyInjector *x = sim_calloc(1, sizeof *x);
    if (!x) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    x->dpy = XOpenDisplay(DisplayString(d));
    int a, b, c, e;
    if (!x->dpy || !XTestQueryExtension(x->dpy, &a, &b, &c, &e)) {
        snprintf(why, why_size, "the X server has no XTest");
        xinject_close(x);
        return -1;
    }
    x->key = XKeysymToKeycode(x->dpy, XK_space);
    int wx = 0, wy = 0, ww = 0, wh = 0;
    SDL_GetWindowPosition(w, &wx, &wy);
    SDL_GetWindowSize(w, &ww, &wh);
    XTestFakeMotionEvent(x->dpy, -1, wx + ww / 2, wy + wh / 2, 0);
    /* a window not viewable refuses the focus (BadMatch): not fatal */
    XErrorHandler old = XSetErrorHandler(ignore_x_error);
    XSetInputFocus(x->dpy, win, RevertToParent, CurrentTime);
    XSync(x->dpy, False);
    XSetErrorHandler(old);
    *out = x;
    return 0;
}

void xinject_key(XKeyInjector *x, int down)
{
    if (x) {
        XTestFakeKeyEvent(x->dpy, x->key, down ? True : False, 0);
        XFlush(x->dpy);
    }
}

void xinject_close(XKeyInjector *x)
{
    if (!x) {
        return;
    }
    if (x->dpy) {
        XCloseDisplay(x->dpy);
    }
    sim_free(x);
}

#else /* no libXi */

int rawinput_open(SDL_Window *w, int rt_priority, RawInput **out, char *why,
                  size_t why_size)
{
    (void)w;
    (void)rt_priority;
    *out = NULL;
    snprintf(why, why_size, "this build has no XInput 2 (libXi)");
    return -1;
}

int rawinput_x11_virtual(SDL_Window *w, char *why, size_t why_size)
{
    (void)w;
    snprintf(why, why_size, "this build has no libX11");
    return -1;
}

int xinject_open(SDL_Window *w, XKeyInjector **out, char *why, size_t why_size)
{
    (void)w;
    *out = NULL;
    snprintf(why, why_size,
             "this build has no XTest (libXtst): input latency not measured");
    return -1;
}

void xinject_key(XKeyInjector *x, int down)
{
    (void)x;
    (void)down;
}

void xinject_close(XKeyInjector *x)
{
    (void)x;
}

#endif
