/*
** `simlab check`'s layout report: the study's item screens laid out, with
** no window, at 1280x720 and 1920x1080 (screen_plan_build), where the
** explanation area and the reservoir go (the same in every condition) and
** a warning for each that must scroll, among check's warnings. SDL's dummy
** video driver.
*/
#include "app/app.h"

#include <SDL2/SDL.h>
#include <math.h>
#include <stdio.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/screens.h"
#include "stimuli/check.h"
#include "stimuli/study.h"

/* The window sizes the report covers. */
static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};

/* Appends the plan of study at w x h to lines and a warning to rep for
** each part that must scroll; -1 when the screens cannot be laid out. */
static int report_size(const Study *st, int w, int h, SimBuf *lines,
                       StudyReport *rep, SimError *err)
{
    Gfx g;
    GfxOptions go = {"simlab check", 1, w, h, 0, 0, 1};
    if (gfx_open(&g, &go, err) != SIM_OK) {
        return -1;
    }
    char assets_dir[1024], font_dir[1100];
    Fonts fonts;
    if (gfx_find_assets(assets_dir, sizeof assets_dir, err) != SIM_OK) {
        gfx_close(&g);
        return -1;
    }
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets_dir);
    if (fonts_init(&fonts, g.renderer, font_dir, err) != SIM_OK) {
        gfx_close(&g);
        return -1;
    }
    fonts_set_language(&fonts, ui_strings_language(st->ui_strings));
    fonts_set_rtl(&fonts, ui_strings_rtl(st->ui_strings));
    Ui ui = {0};
    ui.gfx = &g;
    ui.fonts = &fonts;
    ui.font_scale = 1;
    ui_init_theme(&ui);
    ui_update_metrics(&ui);
    Assets assets;
    assets_init(&assets, g.renderer);
    ScreenPlan p;
    screen_plan_build(&p, st, &ui, &assets, st->ui_strings);
    float pad = roundf(ui.u); /* a card's padding */
    float avail = (float)p.slots.view_h - roundf(ui.u * 2.4f);
    if (p.slots.any_method) {
        sim_buf_printf(
            lines,
            "layout %dx%d: explanation area %.0f px high beside the item "
            "in every condition (the tallest: item '%s', method '%s')\n",
            w, h, (double)((float)p.slots.expl_side_h + 2 * pad),
            p.slots.expl_item ? p.slots.expl_item->key : "?",
            p.slots.expl_method ? p.slots.expl_method : "?");
    }
    if (p.slots.res_h > 0) {
        sim_buf_printf(
            lines,
            "layout %dx%d: reservoir %s the item in every condition, "
            "%.0f px high (cards %.0f px high; the tallest: item '%s', "
            "%s%s%s)\n",
            w, h, p.slots.res_top ? "above" : "below", (double)p.slots.res_h,
            (double)p.slots.res_card_h,
            p.slots.res_item ? p.slots.res_item->key : "?",
            p.slots.res_method ? "method '" : "no explanation",
            p.slots.res_method ? p.slots.res_method : "",
            p.slots.res_method ? "'" : "");
    }
    /* the reservoir above counts against the explanation only on screens
    ** that show both */
    int both = 0;
    for (size_t b = 0; b < st->n_blocks; b++) {
        const Block *blk = &st->blocks[b];
        both |= blk->reservoir && blk->show.reservoir && blk->show.explanation;
    }
    float above = p.slots.res_top && both
                      ? (float)p.slots.res_h + roundf(ui.u * 0.4f)
                      : 0;
    char msg[512];
    int rc = 0;
    if (p.slots.any_method &&
        above + (float)p.slots.expl_side_h + 2 * pad > avail) {
        snprintf(msg, sizeof msg,
                 "layout %dx%d: the explanation of item '%s' (method '%s') "
                 "needs %.0f px but the screen has %.0f px: participants "
                 "must scroll to see all of it",
                 w, h, p.slots.expl_item ? p.slots.expl_item->key : "?",
                 p.slots.expl_method ? p.slots.expl_method : "?",
                 (double)(above + (float)p.slots.expl_side_h + 2 * pad),
                 (double)avail);
        rc |= check_report_add(rep, 1, "", "", msg);
    }
    if (p.slots.res_h > 0 && !p.slots.res_top) {
        snprintf(msg, sizeof msg,
                 "layout %dx%d: the reservoir (%.0f px) does not fit above "
                 "the item, so it is drawn below it: participants must "
                 "scroll down to it",
                 w, h, (double)p.slots.res_h);
        rc |= check_report_add(rep, 1, "", "", msg);
    }
    assets_free(&assets);
    fonts_free(&fonts);
    gfx_close(&g);
    if (rc != 0) {
        sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        return -1;
    }
    return 0;
}

void app_check_layout(const Study *st, SimBuf *lines, StudyReport *rep)
{
    SimError err;
    /* no window: the dummy driver lays the screens out (the environment
    ** variable: SDL 2.26 reads no hint for the driver) */
    SDL_setenv("SDL_VIDEODRIVER", "dummy", 1);
    for (size_t i = 0; i < sizeof SIZES / sizeof *SIZES; i++) {
        if (report_size(st, SIZES[i][0], SIZES[i][1], lines, rep, &err) != 0) {
            sim_buf_printf(lines, "layout not checked: %s\n", err.msg);
            break;
        }
    }
}
