/*
** Text always fits: every screen of the demo studies (assets/studies), the
** examples (examples/, those whose data are there) and the test bundles
** (tests/data/bundles/valid-..., tests/data/experiment/...) laid out without a
** window in en, de, zh-Hans and ar at 1280x720, 1920x1080 and a 390x844
** phone -- one
** simulated participant per condition walked through the real session,
** explanations also revealed and hovered -- and every text drawn inside a
** box (a card, a chip, a button, a legend, a layout's cell, a tooltip)
** must stay inside it at the desktop sizes; body text must stay inside the
** window. Also: the
** item card is in the same place and of the same size in every condition
** of a screen, at each window size (en).
**   test_app_layout SOURCE_DIR [BUNDLE ...]
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_app_env.h"
#include "tests/test_walk.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/render.h"
#include "app/scene.h"
#include "app/screens.h"
#include "common/sim_alloc.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"

static const char *const LANGS[] = {"en", "de", "zh-Hans", "ar"};
#define N_LANGS 4
static const int SIZES[][2] = {{1280, 720}, {1920, 1080}, {390, 844}};
#define N_SIZES 3

/* Allowed overhang, px (anti-aliasing, rounding of fitted text). */
#define SLACK 1.5f

typedef struct Env {
    TestApp a;
    int n_screens, n_texts;
    int n_failed; /* boxes left, reported (at most a few per bundle) */
} Env;

static int env_open(Env *e)
{
    memset(e, 0, sizeof *e);
    return test_app_open(&e->a, "layout", SIZES[0][0], SIZES[0][1], LANGS,
                         N_LANGS);
}

static void env_close(Env *e)
{
    test_app_close(&e->a);
}

static void set_size(Env *e, int s)
{
    SDL_SetWindowSize(e->a.g.window, SIZES[s][0], SIZES[s][1]);
    gfx_update_size(&e->a.g);
    for (int l = 0; l < N_LANGS; l++) {
        ui_update_metrics(&e->a.ui[l]);
    }
}

static int inside(SDL_FRect in, SDL_FRect box)
{
    return in.x >= box.x - SLACK && in.y >= box.y - SLACK &&
           in.x + in.w <= box.x + box.w + SLACK &&
           in.y + in.h <= box.y + box.h + SLACK;
}

/* Checks the texts of e->a.sc (the scene); where names the screen for the
 * report. */
static void check_scene(Env *e, const char *where)
{
    const Scene *sc = &e->a.sc;
    e->n_screens++;
    for (size_t i = 0; i < sc->n_cmds; i++) {
        const SceneCmd *k = &sc->cmds[i];
        if (k->kind != CMD_TEXT) {
            continue;
        }
        e->n_texts++;
        const char *why = NULL;
        SDL_FRect box = {0, 0, 0, 0};
        if (k->box >= 0 && (size_t)k->box < sc->n_boxes) {
            box = sc->boxes[k->box].r;
            if (!inside(k->r, box)) {
                why = sc->boxes[k->box].what;
            }
        }
        if (!why && k->layer == LAYER_BODY &&
            (k->r.x < -SLACK || k->r.x + k->r.w > (float)e->a.g.w + SLACK)) {
            why = "window";
            box = (SDL_FRect){0, 0, (float)e->a.g.w, (float)e->a.g.h};
        }
        if (!why) {
            continue;
        }
        CHECK(!why);
        if (e->n_failed++ < 40) {
            fprintf(stderr,
                    "%s: text '%.*s' at (%.0f,%.0f %.0fx%.0f) leaves its %s "
                    "(%.0f,%.0f %.0fx%.0f)\n",
                    where, (int)(k->text_len > 60 ? 60 : k->text_len),
                    sc->text + k->text_off, (double)k->r.x, (double)k->r.y,
                    (double)k->r.w, (double)k->r.h, why, (double)box.x,
                    (double)box.y, (double)box.w, (double)box.h);
        }
    }
}

/* The first card's rect (the item card) and the second's (the
** explanation area), for the same-place check; zero rects when absent. */
static void card_rects(const Scene *sc, SDL_FRect *item, SDL_FRect *expl)
{
    *item = *expl = (SDL_FRect){0, 0, 0, 0};
    int k = 0;
    for (size_t i = 0; i < sc->n_boxes && k < 2; i++) {
        if (strcmp(sc->boxes[i].what, "card") == 0 && sc->boxes[i].parent < 0) {
            *(k++ ? expl : item) = sc->boxes[i].r;
        }
    }
}

typedef struct Walk {
    Env *e;
    const Study *st;
    const char *bundle;
    ScreenPlan plans[N_LANGS][N_SIZES];
    /* the item card of each item screen, per step and window size, of the
    ** first condition walked (same-place check; en) */
    SDL_FRect *first_item;
    int *first_kind;
    const Item **first_shown; /* the item the first condition showed */
    size_t n_steps;
    int cond_index;
} Walk;

/* Builds view v (and its revealed and hovered variants) in every language
** and size and checks each. */
static void check_view(Walk *w, const SessionView *v0)
{
    Env *e = w->e;
    SessionView v = *v0;
    unsigned char shown[256];
    memset(shown, 1, sizeof shown);
    int variants = 1;
    const Explanation *x = v.explanation;
    if (x && x->reveal != EXPL_REVEAL_ALWAYS) {
        variants = 2; /* also revealed, or a value hovered */
    }
    for (size_t i = 0; i < v.n_reservoir && variants < 2; i++) {
        if (v.reservoir_expl[i] &&
            v.reservoir_expl[i]->reveal == EXPL_REVEAL_ON_REQUEST) {
            variants = 2;
        }
    }
    for (int s = 0; s < N_SIZES; s++) {
        set_size(e, s);
        for (int l = 0; l < N_LANGS; l++) {
            ScreenPlan *p = &w->plans[l][s];
            for (int var = 0; var < variants; var++) {
                SessionView vv = v;
                if (var == 1) {
                    vv.revealed = 1;
                    vv.hover_target = vv.n_hover > 0 ? vv.n_hover / 2 : -1;
                    vv.res_revealed =
                        vv.n_reservoir <= sizeof shown ? shown : NULL;
                }
                ScreenCtx sx = {&e->a.ui[l], &e->a.assets, &vv,
                                0,           NULL,         e->a.strings[l],
                                p,           w->st,        NULL};
                screen_build(&e->a.sc, &sx);
                char where[400];
                snprintf(where, sizeof where, "%s %dx%d %s step %d (%s) %s%s",
                         w->bundle, SIZES[s][0], SIZES[s][1], LANGS[l],
                         v.trial ? v.trial->seq : -1,
                         session_screen_name(v.screen),
                         v.condition ? v.condition : "-",
                         var ? " revealed/hovered" : "");
                if (SIZES[s][0] > SIZES[s][1]) {
                    check_scene(e, where); /* text fits a desktop window */
                }
                if (l == 0 && var == 0 && v.trial &&
                    (size_t)v.trial->seq < w->n_steps) {
                    /* the item card sits where the first condition's did,
                    ** at every window size */
                    SDL_FRect item, expl;
                    card_rects(&e->a.sc, &item, &expl);
                    size_t k = (size_t)v.trial->seq * N_SIZES + (size_t)s;
                    if (w->cond_index == 0) {
                        w->first_item[k] = item;
                        w->first_kind[k] = (int)v.screen;
                        w->first_shown[k] = v.item;
                    } else if (w->first_kind[k] == (int)v.screen && v.item &&
                               !v.question && w->first_shown[k] == v.item) {
                        SDL_FRect a = w->first_item[k];
                        int same = fabsf(a.x - item.x) < 1 &&
                                   fabsf(a.w - item.w) < 1 &&
                                   fabsf(a.y - item.y) < 1 &&
                                   fabsf(a.h - item.h) < 1;
                        CHECK(same);
                        if (!same && e->n_failed++ < 40) {
                            fprintf(stderr,
                                    "%s: item %s: card at (%.0f,%.0f %.0f "
                                    "wide), in the first condition at "
                                    "(%.0f,%.0f %.0f wide)\n",
                                    where, v.item->key, (double)item.x,
                                    (double)item.y, (double)item.w, (double)a.x,
                                    (double)a.y, (double)a.w);
                        }
                    }
                }
            }
        }
    }
}

static void on_view(void *ctx, const SessionView *v, int64_t onset_ns)
{
    (void)onset_ns;
    check_view(ctx, v);
}

/* One participant of condition c through the whole run. */
static void walk_condition(Walk *w, Store *store, size_t c)
{
    CHECK(test_walk_condition(store, w->st, c, 17 + c, w->bundle, on_view, w));
}

static void check_bundle(Env *e, const char *dir)
{
    Study *st = test_walk_load(dir);
    SimError err;
    if (!st) {
        return; /* a bundle without its data (the Hase & Bansal examples) */
    }
    Walk *w = sim_calloc(1, sizeof *w);
    char db[] = "layout-XXXXXX";
    int fd = mkstemp(db);
    if (!w || fd < 0) {
        CHECK(0);
        sim_free(w);
        study_free(st);
        return;
    }
    close(fd);
    unlink(db);
    w->e = e;
    w->st = st;
    w->bundle = dir;
    for (int s = 0; s < N_SIZES; s++) {
        set_size(e, s);
        for (int l = 0; l < N_LANGS; l++) {
            screen_plan_build(&w->plans[l][s], st, &e->a.ui[l], &e->a.assets,
                              e->a.strings[l]);
        }
    }
    Store *store = NULL;
    if (store_open(db, st, DURABILITY_FAST, 0, 1000, &store, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
        CHECK(0);
    }
    w->n_steps = 4096;
    w->first_item = sim_calloc(w->n_steps * N_SIZES, sizeof *w->first_item);
    w->first_kind = sim_calloc(w->n_steps * N_SIZES, sizeof *w->first_kind);
    w->first_shown = sim_calloc(w->n_steps * N_SIZES, sizeof *w->first_shown);
    for (size_t c = 0; store && c < st->n_conditions; c++) {
        w->cond_index = (int)c;
        walk_condition(w, store, c);
    }
    store_close(store);
    char side[64];
    const char *ext[] = {"", "-wal", "-shm", "-lock"};
    for (int k = 0; k < 4; k++) {
        snprintf(side, sizeof side, "%s%s", db, ext[k]);
        unlink(side);
    }
    sim_free(w->first_item);
    sim_free(w->first_kind);
    sim_free(w->first_shown);
    sim_free(w);
    study_free(st);
}

/* Every subfolder of parent (whose name starts with prefix) that holds a
** study.json. */
static void each_bundle(Env *e, const char *parent, const char *prefix)
{
    DIR *d = opendir(parent);
    if (!d) {
        return;
    }
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256) {
        if (de->d_name[0] == '.' ||
            strncmp(de->d_name, prefix, strlen(prefix)) != 0) {
            continue;
        }
        char path[2048];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s/study.json", parent, de->d_name);
        if (stat(path, &sb) == 0) {
            names[n++] = strdup(de->d_name);
        } else {
            /* examples/hase2020 holds one bundle per folder below */
            snprintf(path, sizeof path, "%s/%s", parent, de->d_name);
            if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
                strcmp(prefix, "") == 0) {
                each_bundle(e, path, "");
            }
        }
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", parent, names[i]);
        check_bundle(e, path);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_app_layout SOURCE_DIR [BUNDLE ...]\n");
        return 2;
    }
    Env *e = sim_calloc(1, sizeof *e);
    if (!e || env_open(e) != 0) {
        return 1;
    }
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            check_bundle(e, argv[i]);
        }
    } else {
        char path[2048];
        snprintf(path, sizeof path, "%s/assets/studies", argv[1]);
        each_bundle(e, path, "");
        snprintf(path, sizeof path, "%s/examples", argv[1]);
        each_bundle(e, path, "");
        snprintf(path, sizeof path, "%s/tests/data/bundles", argv[1]);
        each_bundle(e, path, "valid-");
        snprintf(path, sizeof path, "%s/tests/data/experiment", argv[1]);
        each_bundle(e, path, "");
    }
    printf("%d screens, %d texts laid out; %d left their box\n", e->n_screens,
           e->n_texts, e->n_failed);
    CHECK(e->n_screens > 0);
    env_close(e);
    sim_free(e);
    return TEST_REPORT();
}
