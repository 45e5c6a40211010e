/*
** The runner's clock and the event watch that stamps presses as SDL
** queues them: a ring of stamps under a mutex (the watch may run on
** another thread than the loop).
*/
#define _POSIX_C_SOURCE 200809L
#include "app/stamps.h"
#include "common/sim_clock.h"

#include <time.h>

#include "common/sim_alloc.h"

#define STAMP_RING 256

typedef struct Stamp {
    Uint32 type;
    Uint32 sdl_ms; /* SDL's own timestamp, to match and to compare */
    int code;      /* scancode or mouse button */
    int64_t ns;    /* monotonic, plus the autopilot's offset */
} Stamp;

struct Stamps {
    SDL_mutex *lock;
    Stamp ring[STAMP_RING];
    unsigned head, tail;
    int64_t offset_ns; /* autopilot fast-forward (0 for people) */
    RawInput *raw;     /* input thread, or NULL */
    StampSource last_source;
    int64_t last_watch_ns;
};

int64_t stamps_mono_ns(void)
{
    return sim_clock_mono_ns();
}

int64_t stamps_real_ms(void)
{
    return sim_clock_real_ms();
}

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
    int64_t t = stamps_mono_ns();
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

int stamps_open(Stamps **out, SimError *err)
{
    *out = NULL;
    Stamps *st = sim_calloc(1, sizeof *st);
    if (!st) {
        return sim_fail(err, SIM_ERR_NOMEM, "event stamps: out of memory");
    }
    st->lock = SDL_CreateMutex();
    if (!st->lock) {
        sim_free(st);
        return sim_fail(err, SIM_ERR_IO, "event stamps: %s", SDL_GetError());
    }
    SDL_AddEventWatch(stamp_watch, st);
    *out = st;
    return SIM_OK;
}

void stamps_close(Stamps *st)
{
    if (!st) {
        return;
    }
    SDL_DelEventWatch(stamp_watch, st);
    SDL_DestroyMutex(st->lock);
    sim_free(st);
}

int64_t stamps_now(const Stamps *st)
{
    return stamps_mono_ns() + st->offset_ns;
}

int64_t stamps_wall_ms(const Stamps *st)
{
    return stamps_real_ms() + st->offset_ns / 1000000;
}

void stamps_skip_to(Stamps *st, int64_t t)
{
    SDL_LockMutex(st->lock);
    int64_t now = stamps_now(st);
    if (t > now) {
        st->offset_ns += t - now;
    }
    SDL_UnlockMutex(st->lock);
}

int64_t stamps_take(Stamps *st, const SDL_Event *e, int64_t now)
{
    int64_t t = now;
    int found = 0;
    SDL_LockMutex(st->lock);
    while (st->tail != st->head) {
        Stamp *s = &st->ring[st->tail % STAMP_RING];
        st->tail++;
        if (s->type == e->type && s->code == event_code(e) &&
            s->sdl_ms == e->common.timestamp) {
            t = s->ns;
            found = 1;
            break;
        }
    }
    int64_t offset = st->offset_ns;
    SDL_UnlockMutex(st->lock);
    if (e->type != SDL_KEYDOWN) {
        return t;
    }
    st->last_watch_ns = t;
    st->last_source = found ? STAMP_WATCH : STAMP_NONE;
    if (st->raw && !e->key.repeat) {
        int64_t r = rawinput_take(st->raw, e->key.keysym.sym, t - offset);
        if (r > 0) {
            t = r + offset;
            st->last_source = STAMP_RAW;
        }
    }
    return t;
}

void stamps_set_raw(Stamps *st, RawInput *raw)
{
    st->raw = raw;
}

int stamps_have_raw(const Stamps *st)
{
    return st->raw != NULL;
}

StampSource stamps_last_source(const Stamps *st, int64_t *watch_ns)
{
    if (watch_ns) {
        *watch_ns = st->last_watch_ns;
    }
    return st->last_source;
}

RawInput *stamps_attach_input(Stamps *st, SDL_Window *window, Rush *rec,
                              const char *prog)
{
    RawInput *raw = NULL;
    char why[256];
    const char *raw_env = getenv("SIMLAB_RAW_INPUT");
    if (raw_env && strcmp(raw_env, "0") == 0) {
        return NULL;
    }
    if (rawinput_open(window, rush_input_priority(rec), &raw, why,
                      sizeof why) == 0) {
        int fifo = 0, prio = 0;
        rawinput_priority(raw, &fifo, &prio);
        rush_set_input(rec, fifo, prio);
        stamps_set_raw(st, raw);
    } else if (prog) {
        fprintf(stderr,
                "%s: key presses are stamped by SDL's event watch: %s\n", prog,
                why);
    }
    return raw;
}
