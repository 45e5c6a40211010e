/*
** Key presses stamped apart from drawing. Under X11, a thread with its own
** X connection listens to XInput 2 raw key events (every keyboard, as the
** X server receives them, whatever window has the focus) and stamps each
** with CLOCK_MONOTONIC -- the time base of stamps.c -- as soon as it
** arrives, while the video thread may be busy drawing. SDL's key events
** are matched to these stamps by key and order (rawinput_take); when none
** matches, the event watch's stamp stands. Elsewhere (Wayland, the dummy
** driver, a display without XInput 2, a build without libXi)
** rawinput_open says why and nothing changes.
*/
#ifndef SIMLAB_APP_RAWINPUT_H
#define SIMLAB_APP_RAWINPUT_H

#include <SDL2/SDL.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RawInput RawInput;

/* Starts the input thread for the display of window w. The thread asks
** for SCHED_FIFO at rt_priority (rush_set_fifo), else a nice value of -10,
** else runs as it is; rawinput_priority says which it got. On success *out
** owns it (rawinput_close) and returns 0; else *out is NULL, why says why
** (e.g. "the video driver is wayland, not x11") and returns -1. */
int rawinput_open(SDL_Window *w, int rt_priority, RawInput **out, char *why,
                  size_t why_size);

/* The input thread's scheduling: *fifo 1 with *prio its SCHED_FIFO
** priority, or *fifo 0 with *prio its nice value (0: unchanged). */
void rawinput_priority(const RawInput *r, int *fifo, int *prio);

/* Stops the thread and frees r. NULL is a no-op. */
void rawinput_close(RawInput *r);

/* The raw stamp (monotonic ns) of the SDL key press of sym that the event
** watch stamped at watch_ns: the oldest unclaimed raw press of the same key
** (any key when the raw key has no SDL name) from the second before
** watch_ns up to shortly after it; older unclaimed presses are dropped.
** Returns the earlier of the raw stamp and watch_ns, or 0 when no raw
** press matches (the caller keeps watch_ns). Not for repeats. */
int64_t rawinput_take(RawInput *r, SDL_Keycode sym, int64_t watch_ns);

/* A matcher without a thread or a display, fed by rawinput_push: the
** same matching, for tests and replays. NULL when out of memory;
** rawinput_close frees it. */
RawInput *rawinput_new_ring(void);
/* Stores a raw press of sym (0: unknown key) stamped ns, as the thread
** does. */
void rawinput_push(RawInput *r, int64_t ns, SDL_Keycode sym);

/* Raw presses received and matched so far (for reports). */
void rawinput_counts(const RawInput *r, unsigned *received, unsigned *matched);

/* Whether the X display of window w is virtual: 1 when the X server
** drives no graphics hardware (no DRI2, DRI3 or NV-GLX extension: Xvfb,
** Xvnc and the like), 0 when it does, -1 when w is not on X11 (or no
** libX11). why says which. */
int rawinput_x11_virtual(SDL_Window *w, char *why, size_t why_size);

/* Key presses injected through XTest into the X server of window w (the
** self-test's loopback). xinject_open moves the pointer over w and gives it
** the keyboard focus; 0 on success, else -1 with why. The key is space. */
typedef struct XKeyInjector XKeyInjector;
int xinject_open(SDL_Window *w, XKeyInjector **out, char *why, size_t why_size);
void xinject_key(XKeyInjector *x, int down); /* NULL: no-op */
void xinject_close(XKeyInjector *x);         /* NULL: no-op */

/* The SDL key code of the unshifted X keysym ks, or 0 when SDL names it
** differently or not at all (then any key matches by order). Pure. */
SDL_Keycode rawinput_keysym_to_sdl(unsigned long ks);

#endif
