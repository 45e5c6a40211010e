/*
** What the desktop and the browser show, screen by screen: every screen of
** the bundled and example studies (assets/studies, examples/) in en, de,
** ar and ja -- one simulated participant per condition, explanations also
** revealed and hovered -- built by the desktop runner (its scene's texts,
** at 1280x720) and written as the browser's JSON (the screen model), one
** JSON line per screen into OUT. tests/web/texts.mjs then draws each JSON
** with web/screens.js and checks that both front ends show the same words
** and only words of the model: neither decides a text again.
**   test_screen_texts SOURCE_DIR OUT [BUNDLE ...]
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_app_env.h"
#include "tests/test_walk.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/scene.h"
#include "app/screens.h"
#include "common/sim_alloc.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "serve/serve_view.h"

static const char *const LANGS[] = {"en", "de", "ar", "ja"};
#define N_LANGS 4

typedef struct Env {
    TestApp a;
    ScreenModel *model;
    FILE *out;
    int n_screens;
} Env;

static int env_open(Env *e, const char *out)
{
    memset(e, 0, sizeof *e);
    if (test_app_open(&e->a, "texts", 1280, 720, LANGS, N_LANGS) != 0) {
        return -1;
    }
    e->model = screen_model_new();
    e->out = fopen(out, "w");
    if (!e->out || !e->model) {
        fprintf(stderr, "%s: cannot write\n", out);
        return -1;
    }
    return 0;
}

static void env_close(Env *e)
{
    if (e->out) {
        fclose(e->out);
    }
    screen_model_free(e->model);
    test_app_close(&e->a);
}

typedef struct Walk {
    Env *e;
    Study *st;
    const char *bundle;
    int lang;
    ScreenPlan plan;
    ServeView *views;
    const char *condition;
    char seen[512][96]; /* the screens written for this condition */
    int n_seen;
} Walk;

/* A screen's kind, as far as what it shows differs: once per condition. */
static void screen_key(const SessionView *v, int variant, char *out, size_t n)
{
    const Explanation *x = v->explanation;
    snprintf(out, n, "%s|%s|%d|%s|%d|%d|%d|%d|%d",
             session_screen_name(v->screen), v->block ? v->block->id : "-",
             v->trial ? v->trial->is_example : 0,
             x ? expl_kind_name(x->kind) : "-", x ? (int)x->reveal : -1,
             v->choice >= 0, v->n_reservoir > 0, v->attempt > 1, variant);
}

/* Writes v (and its variant) as one line: the model's JSON and the texts
** the desktop drew. */
static void write_view(Walk *w, const SessionView *v, int64_t onset_ns,
                       int variant)
{
    Env *e = w->e;
    char key[96];
    screen_key(v, variant, key, sizeof key);
    for (int i = 0; i < w->n_seen; i++) {
        if (strcmp(w->seen[i], key) == 0) {
            return;
        }
    }
    if (w->n_seen < 512) {
        snprintf(w->seen[w->n_seen++], sizeof w->seen[0], "%s", key);
    }
    int l = w->lang;
    ScreenCtx sx = {&e->a.ui[l],     &e->a.assets, v,     onset_ns, NULL,
                    e->a.strings[l], &w->plan,     w->st, e->model};
    screen_build(&e->a.sc, &sx);
    CHECK(!scene_oom(&e->a.sc));
    json_t *texts = json_array();
    for (size_t i = 0; i < e->a.sc.n_cmds; i++) {
        const SceneCmd *k = &e->a.sc.cmds[i];
        if (k->kind == CMD_TEXT) {
            json_array_append_new(
                texts, json_stringn(e->a.sc.text + k->text_off, k->text_len));
        }
    }
    ServeMediaList media;
    memset(&media, 0, sizeof media);
    json_t *model = serve_view_json(w->views, v, 0, "m/", &media);
    serve_media_free(&media);
    CHECK(model != NULL);
    char where[400];
    snprintf(where, sizeof where, "%s %s %s step %d %s%s", w->bundle, LANGS[l],
             w->condition, v->trial ? v->trial->seq : -1, key,
             variant == 1   ? " (revealed)"
             : variant == 2 ? " (hovered)"
                            : "");
    /* the end page's text is the runner's own (online: no experimenter) */
    const char *own = e->model->message_text;
    json_t *line =
        json_pack("{s:s,s:s,s:f,s:o,s:o,s:s?}", "where", where, "lang",
                  LANGS[l], "onset_ms", (double)onset_ns / 1e6, "model",
                  model ? model : json_null(), "desktop", texts,
                  "desktop_message_text", own);
    char *text = json_dumps(line, JSON_COMPACT);
    if (text) {
        fprintf(e->out, "%s\n", text);
        free(text);
    }
    json_decref(line);
    e->n_screens++;
}

static void check_view(Walk *w, const SessionView *v, int64_t onset_ns)
{
    write_view(w, v, onset_ns, 0);
    const Explanation *x = v->explanation;
    int on_request = x && x->reveal == EXPL_REVEAL_ON_REQUEST;
    for (size_t i = 0; i < v->n_reservoir; i++) {
        on_request |= v->reservoir_expl[i] &&
                      v->reservoir_expl[i]->reveal == EXPL_REVEAL_ON_REQUEST;
    }
    unsigned char shown[256];
    memset(shown, 1, sizeof shown);
    if (on_request) {
        SessionView r = *v;
        r.revealed = 1;
        r.res_revealed = r.n_reservoir <= sizeof shown ? shown : NULL;
        write_view(w, &r, onset_ns, 1);
    }
    if (x && x->reveal == EXPL_REVEAL_HOVER && v->n_hover > 0) {
        SessionView h = *v;
        h.hover_target = v->n_hover / 2;
        write_view(w, &h, onset_ns, 2);
    }
}

static void on_view(void *ctx, const SessionView *v, int64_t onset_ns)
{
    check_view(ctx, v, onset_ns);
}

/* One participant of condition c through the whole run. */
static void walk_condition(Walk *w, Store *store, size_t c)
{
    w->condition = w->st->conditions[c].id;
    w->n_seen = 0;
    test_walk_condition(store, w->st, c, 31 + c, w->bundle, on_view, w);
}

static void check_bundle(Env *e, const char *dir)
{
    Study *st = test_walk_load(dir);
    SimError err;
    if (!st) {
        return; /* a bundle without its data (the Hase & Bansal examples) */
    }
    Walk *w = sim_calloc(1, sizeof *w);
    if (!w) {
        CHECK(0);
        study_free(st);
        return;
    }
    UiStrings *own = st->ui_strings;
    for (int l = 0; l < N_LANGS; l++) {
        /* the study's screens in language l, on both front ends */
        st->ui_strings = e->a.strings[l];
        char db[] = "texts-XXXXXX";
        int fd = mkstemp(db);
        if (fd < 0) {
            CHECK(0);
            break;
        }
        close(fd);
        unlink(db);
        w->e = e;
        w->st = st;
        w->bundle = dir;
        w->lang = l;
        screen_plan_build(&w->plan, st, &e->a.ui[l], &e->a.assets,
                          e->a.strings[l]);
        CHECK_INT(serve_view_new(st, &w->views, &err), SIM_OK);
        Store *store = NULL;
        if (store_open(db, st, DURABILITY_FAST, 0, 1000, &store, &err) !=
            SIM_OK) {
            fprintf(stderr, "%s: %s\n", dir, err.msg);
            CHECK(0);
        }
        for (size_t c = 0; store && c < st->n_conditions; c++) {
            walk_condition(w, store, c);
        }
        store_close(store);
        serve_view_free(w->views);
        w->views = NULL;
        const char *ext[] = {"", "-wal", "-shm", "-lock"};
        for (int k = 0; k < 4; k++) {
            char side[64];
            snprintf(side, sizeof side, "%s%s", db, ext[k]);
            unlink(side);
        }
    }
    st->ui_strings = own;
    sim_free(w);
    study_free(st);
}

/* Every subfolder of parent that holds a study.json (and the bundles one
** level below, as examples/hase2020 holds them). */
static void each_bundle(Env *e, const char *parent, int depth)
{
    DIR *d = opendir(parent);
    if (!d) {
        return;
    }
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256) {
        if (de->d_name[0] != '.') {
            names[n++] = strdup(de->d_name);
        }
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++) {
            if (strcmp(names[k], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[k];
                names[k] = t;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        char path[2048], sj[2100];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", parent, names[i]);
        snprintf(sj, sizeof sj, "%s/study.json", path);
        if (stat(sj, &sb) == 0) {
            check_bundle(e, path);
        } else if (depth == 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            each_bundle(e, path, 1);
        }
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr,
                "usage: test_screen_texts SOURCE_DIR OUT [BUNDLE ...]\n");
        return 2;
    }
    Env *e = sim_calloc(1, sizeof *e);
    if (!e || env_open(e, argv[2]) != 0) {
        return 1;
    }
    if (argc > 3) {
        for (int i = 3; i < argc; i++) {
            check_bundle(e, argv[i]);
        }
    } else {
        char path[2048];
        snprintf(path, sizeof path, "%s/assets/studies", argv[1]);
        each_bundle(e, path, 0);
        snprintf(path, sizeof path, "%s/examples", argv[1]);
        each_bundle(e, path, 0);
    }
    printf("%d screens written to %s\n", e->n_screens, argv[2]);
    CHECK(e->n_screens > 100);
    env_close(e);
    sim_free(e);
    return TEST_REPORT();
}
