/*
** A desktop front end without a window for tests that lay out screens: the
** SDL renderer (SDL_VIDEODRIVER=dummy), the fonts, UI strings and theme
** of each language asked for, the assets' cache and a scene. Include after
** harness.h; needs SIMLAB_ASSETS or the assets beside the binary.
*/
#ifndef SIMLAB_TESTS_TEST_APP_ENV_H
#define SIMLAB_TESTS_TEST_APP_ENV_H

#include <stdio.h>
#include <string.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/scene.h"
#include "stimuli/uistrings.h"

#define TEST_APP_MAX_LANGS 4

typedef struct TestApp {
    Gfx g;
    int n_langs;
    Fonts fonts[TEST_APP_MAX_LANGS];
    Ui ui[TEST_APP_MAX_LANGS];
    UiStrings *strings[TEST_APP_MAX_LANGS];
    Assets assets;
    Scene sc;
} TestApp;

/* Opens a w x h window named name and the languages langs[0..n-1]
** (ui[l], fonts[l], strings[l] in that order); -1 after printing why. */
static inline int test_app_open(TestApp *a, const char *name, int w, int h,
                                const char *const *langs, int n)
{
    memset(a, 0, sizeof *a);
    SimError err;
    GfxOptions o = {name, 1, w, h, 0, 0, 1};
    if (n > TEST_APP_MAX_LANGS || gfx_open(&a->g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", n > TEST_APP_MAX_LANGS ? "languages" : err.msg);
        return -1;
    }
    char assets[1024], fdir[1100];
    if (gfx_find_assets(assets, sizeof assets, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(fdir, sizeof fdir, "%s/fonts", assets);
    for (int l = 0; l < n; l++) {
        if (fonts_init(&a->fonts[l], a->g.renderer, fdir, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
        a->n_langs = l + 1;
        fonts_set_language(&a->fonts[l], langs[l]);
        a->strings[l] =
            ui_strings_new((size_t)ui_language_find(langs[l]), langs[l]);
        fonts_set_rtl(&a->fonts[l], ui_strings_rtl(a->strings[l]));
        a->ui[l].gfx = &a->g;
        a->ui[l].fonts = &a->fonts[l];
        a->ui[l].font_scale = 1;
        ui_init_theme(&a->ui[l]);
        ui_update_metrics(&a->ui[l]);
    }
    assets_init(&a->assets, a->g.renderer);
    scene_init(&a->sc);
    return 0;
}

static inline void test_app_close(TestApp *a)
{
    scene_free(&a->sc);
    assets_free(&a->assets);
    for (int l = 0; l < a->n_langs; l++) {
        fonts_free(&a->fonts[l]);
        ui_strings_free(a->strings[l]);
    }
    gfx_close(&a->g);
}

#endif
