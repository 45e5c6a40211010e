/*
** simlab-preview: renders hand-built session views with fake items (every
** screen and explanation kind, preview_shots.c) and writes one PNG per
** screen, so the look can be judged without a study bundle or a database.
**   simlab-preview OUTDIR [WIDTHxHEIGHT] [--font-scale F] [--language TAG]
** --language draws the runner's strings in a shipped language ("de");
** --help is the text of the manual page simlab-preview(1).
*/
#include <SDL2/SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/preview.h"
#include "app/render.h"
#include "app/scene.h"
#include "app/screens.h"

typedef struct Options {
    const char *out;
    int w, h;
    float font_scale;
    UiStrings *strings; /* --language, or NULL (English) */
} Options;

/* The drawing environment: window, fonts, look, image cache, scene. */
typedef struct Env {
    Gfx g;
    Fonts fonts;
    Ui ui;
    Assets assets;
    Scene sc;
    int incomplete; /* screens that lost commands for want of memory */
} Env;

static const char USAGE[] =
    "Usage: simlab-preview OUTDIR [WIDTHxHEIGHT] [--font-scale F] "
    "[--language TAG]\n"
    "  or:  simlab-preview --help | --version\n";

/* The text of --help; the manual page simlab-preview(1) is made from it. */
static const char HELP[] =
    "\n"
    "Draws every screen of simlab's runner and every explanation kind from\n"
    "built-in examples (no study, no database) and writes one PNG per "
    "screen\n"
    "into OUTDIR, so that the look can be judged in any shipped language.\n"
    "Fails when a screen or an explanation kind has no example.\n"
    "\n"
    "Options:\n"
    "  WIDTHxHEIGHT            the window's size (1280x720)\n"
    "  --font-scale F          text size (1)\n"
    "  --language TAG          the runner's texts in a shipped language (en,\n"
    "                          de, fr, es, zh-Hans, ja, ar); the examples'\n"
    "                          words in en, de, zh-Hans or ar\n"
    "  --help                  this text\n"
    "  --version               the version\n"
    "\n"
    "Examples:\n"
    "  simlab-preview shots\n"
    "  simlab-preview shots-ar 1920x1080 --language ar\n"
    "\n"
    "Documentation: runner.md and study-format.md in /usr/share/doc/simlab\n"
    "(docs/ in simlab's source).\n";

/* Reads the command line into o; 2 on a usage error (said), -1 after
** --help or --version, else 0. */
static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->w = 1280;
    o->h = 720;
    o->font_scale = 1;
    int help = argc >= 2 &&
               (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("simlab-preview %s\n", SIMLAB_VERSION);
        return -1;
    }
    if (argc < 2 || argv[1][0] == '-') {
        fputs(USAGE, help ? stdout : stderr);
        if (help) {
            fputs(HELP, stdout);
        }
        return help ? -1 : 2;
    }
    o->out = argv[1];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--font-scale") == 0 && i + 1 < argc) {
            o->font_scale = (float)atof(argv[++i]);
        } else if (strcmp(argv[i], "--language") == 0 && i + 1 < argc) {
            int lang = ui_language_find(argv[++i]);
            if (lang < 0) {
                fprintf(stderr, "no shipped language %s\n", argv[i]);
                return 2;
            }
            ui_strings_free(o->strings);
            o->strings = ui_strings_new((size_t)lang, argv[i]);
        } else if (sscanf(argv[i], "%dx%d", &o->w, &o->h) != 2) {
            fprintf(stderr, "bad argument %s\n", argv[i]);
            return 2;
        }
    }
    return 0;
}

/* Opens the window, fonts and look; -1 (said) when that fails. */
static int env_open(Env *e, const Options *o)
{
    memset(e, 0, sizeof *e);
    SimError err;
    GfxOptions go = {"simlab preview", 1, o->w, o->h, 0, 0, 0};
    if (gfx_open(&e->g, &go, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    char assets_dir[1024], font_dir[1100];
    if (gfx_find_assets(assets_dir, sizeof assets_dir, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets_dir);
    if (fonts_init(&e->fonts, e->g.renderer, font_dir, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    if (o->strings) {
        fonts_set_language(&e->fonts, ui_strings_language(o->strings));
    }
    e->ui.gfx = &e->g;
    e->ui.fonts = &e->fonts;
    e->ui.font_scale = o->font_scale;
    ui_init_theme(&e->ui);
    ui_update_metrics(&e->ui);
    assets_init(&e->assets, e->g.renderer);
    scene_init(&e->sc);
    return 0;
}

static void env_close(Env *e)
{
    scene_free(&e->sc);
    assets_free(&e->assets);
    fonts_free(&e->fonts);
    gfx_close(&e->g);
}

/* Draws the scene and writes it to OUT/NN-name.png. */
static void save(Env *e, const char *out, int nn, const char *name)
{
    SimError err;
    if (scene_oom(&e->sc)) {
        fprintf(stderr, "%s: out of memory: drawn incomplete\n", name);
        e->incomplete++;
    }
    SDL_SetRenderDrawColor(e->g.renderer, e->ui.th.bg.r, e->ui.th.bg.g,
                           e->ui.th.bg.b, 255);
    SDL_RenderClear(e->g.renderer);
    scene_render(&e->sc, &e->g, 0, -1);
    char path[1200];
    snprintf(path, sizeof path, "%s/%02d-%s.png", out, nn, name);
    if (gfx_save_png(&e->g, path, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
}

/* The participant screens, in the study's direction. */
static void draw_shots(Env *e, const Options *o, const PreviewShot *shots,
                       int n)
{
    fonts_set_rtl(&e->fonts, ui_strings_rtl(o->strings));
    for (int i = 0; i < n; i++) {
        ScreenCtx sx = {&e->ui,     &e->assets, &shots[i].v, 0,   NULL,
                        o->strings, NULL,       NULL,        NULL};
        screen_build(&e->sc, &sx);
        if (shots[i].v.screen == SCREEN_STORE_ERROR) {
            screen_add_note(&e->sc, &e->ui,
                            "Experimenter: the response could not be saved: "
                            "disk I/O error. It is kept and retried every "
                            "second.");
        }
        save(e, o->out, i, shots[i].name);
        SDL_RenderPresent(e->g.renderer);
    }
}

/* The experimenter's start screen, a confirmation dialog over it, the
** start screen of a station whose sync server is down and that of a
** within-subject study (English, left to right), numbered from nn. */
static void draw_start(Env *e, const Options *o, int nn)
{
    fonts_set_rtl(&e->fonts, 0);
    StartState st;
    memset(&st, 0, sizeof st);
    st.title = "Which explanations help predict a sentiment model?";
    st.study_id = "hase2020-text-forward";
    st.preset = "hase-forward";
    st.hash = "3f2a9c0d4e5b6a7f8091a2b3c4d5e6f7";
    st.db_path = "data/hase-text.db";
    st.station = "lab-2";
    snprintf(st.code, sizeof st.code, "P017");
    st.code_focus = 1;
    const char *conds[] = {"LIME", "Anchor", "prototype", "decision_boundary",
                           "composite"};
    st.conditions = conds;
    st.n_conditions = 5;
    st.cond_index = 2;
    st.assigned_index = 1;
    st.assign_rule = "hase";
    ParticipantInfo pi[2];
    memset(pi, 0, sizeof pi);
    snprintf(pi[0].id, sizeof pi[0].id, "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
    snprintf(pi[0].code, sizeof pi[0].code, "P012");
    snprintf(pi[0].condition, sizeof pi[0].condition, "LIME");
    pi[0].n_done = 37;
    pi[0].n_trials = 101;
    pi[0].status = PSTATUS_ACTIVE;
    snprintf(pi[1].id, sizeof pi[1].id, "6fa459ea-ee8a-3ca4-894e-db77e160355e");
    snprintf(pi[1].condition, sizeof pi[1].condition, "Anchor");
    pi[1].n_done = 5;
    pi[1].n_trials = 101;
    pi[1].status = PSTATUS_ABORTED;
    pi[1].pilot = 1;
    st.unfinished = pi;
    st.n_unfinished = 2;
    st.n_complete = 14;
    st.free_bytes = 48.3e9;
    screen_build_start(&e->sc, &e->ui, &st);
    save(e, o->out, nn, "start");
    screen_add_confirm(&e->sc, &e->ui, "Abort this participant?",
                       "The answers so far are kept and the participant can be "
                       "resumed later from the start screen.",
                       "Abort");
    save(e, o->out, nn + 1, "confirm");
    snprintf(st.sync_line, sizeof st.sync_line,
             "SERVER UNREACHABLE for 95s (data safe here, assigning "
             "locally)");
    st.sync_bad = 1;
    screen_build_start(&e->sc, &e->ui, &st);
    save(e, o->out, nn + 2, "start-sync");
    /* a within-subject study: the order the participant does */
    const char *within[] = {"control", "contrastive", "contrastive_req"};
    st.conditions = within;
    st.n_conditions = 3;
    st.cond_index = st.assigned_index = 0;
    st.assign_rule = "within-subject latin-square";
    snprintf(st.order, sizeof st.order,
             "control \xE2\x86\x92 contrastive \xE2\x86\x92 "
             "contrastive_req");
    st.order_row = 0;
    st.sync_line[0] = 0;
    st.sync_bad = 0;
    screen_build_start(&e->sc, &e->ui, &st);
    save(e, o->out, nn + 3, "start-within");
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    mkdir(o.out, 0755);
    Env e;
    PreviewFixtures *fx = NULL;
    static PreviewShot shots[PREVIEW_MAX_SHOTS];
    rc = 1;
    if (env_open(&e, &o) != 0) {
        goto cleanup;
    }
    if (preview_fixtures_new(o.out,
                             o.strings ? ui_strings_language(o.strings) : NULL,
                             &fx) != 0) {
        goto cleanup;
    }
    int n = preview_shots(fx, shots, PREVIEW_MAX_SHOTS);
    if (preview_shots_check(shots, n) != 0) {
        goto cleanup;
    }
    draw_shots(&e, &o, shots, n);
    draw_start(&e, &o, n);
    rc = 0;
    if (e.incomplete) {
        fprintf(stderr,
                "simlab-preview: %d screens drawn incomplete (out of "
                "memory)\n",
                e.incomplete);
        rc = 1;
    }
cleanup:
    preview_fixtures_free(fx);
    env_close(&e);
    ui_strings_free(o.strings);
    return rc;
}
