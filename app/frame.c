/*
** The runner's display: scene building (start screen, participant screens,
** experimenter notes and dialogs), drawing, screenshots and preloading.
*/
#include "app/frame.h"

#include <SDL2/SDL_image.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stimuli/page.h"
#include "stimuli/uistrings.h"

int frame_open(Frame *f, const GfxOptions *go, float font_scale,
               const char *shot_dir, SimError *err)
{
    memset(f, 0, sizeof *f);
    f->hover = -1;
    f->shot_dir = shot_dir;
    if (gfx_open(&f->gfx, go, err) != SIM_OK) {
        return err->code;
    }
    char assets_dir[1024], font_dir[1100];
    if (gfx_find_assets(assets_dir, sizeof assets_dir, err) != SIM_OK) {
        return err->code;
    }
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets_dir);
    if (fonts_init(&f->fonts, f->gfx.renderer, font_dir, err) != SIM_OK) {
        return err->code;
    }
    f->ui.gfx = &f->gfx;
    f->ui.fonts = &f->fonts;
    f->ui.font_scale = font_scale;
    ui_init_theme(&f->ui);
    ui_update_metrics(&f->ui);
    assets_init(&f->assets, f->gfx.renderer);
    scene_init(&f->scene);
    f->model = screen_model_new();
    if (!f->model) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

void frame_close(Frame *f)
{
    screen_model_free(f->model);
    f->model = NULL;
    scene_free(&f->scene);
    assets_free(&f->assets);
    fonts_free(&f->fonts);
    if (f->gfx.window) {
        gfx_close(&f->gfx);
    }
}

double frame_refresh_ns(const Frame *f)
{
    SDL_DisplayMode dm;
    int disp = SDL_GetWindowDisplayIndex(f->gfx.window);
    return SDL_GetCurrentDisplayMode(disp < 0 ? 0 : disp, &dm) == 0 &&
                   dm.refresh_rate > 0
               ? 1e9 / dm.refresh_rate
               : 1e9 / 60;
}

int frame_scroll_by(Frame *f, float dy)
{
    float max = f->scene.body_h - f->scene.body.h;
    float s = f->scroll + dy;
    if (s > max) {
        s = max;
    }
    if (s < 0) {
        s = 0;
    }
    if (s == f->scroll) {
        return 0;
    }
    f->scroll = s;
    return 1;
}

/* The experimenter's line under a participant screen, "" for none. */
static void experimenter_note(const FrameView *fv, char *note, size_t n)
{
    const Session *s = fv->session;
    const SessionView *v = session_view(s);
    note[0] = 0;
    if (v->screen == SCREEN_PAUSED && fv->media_error) {
        snprintf(note, n,
                 "Experimenter: the run is paused because %s. Nothing was "
                 "recorded for it. Replace the file, then Ctrl+Shift+P "
                 "tries again; Ctrl+Shift+A aborts (the participant can be "
                 "resumed).",
                 fv->media_error);
    } else if (v->screen == SCREEN_PAUSED && fv->scene_oom) {
        snprintf(note, n,
                 "Experimenter: the run is paused because the computer ran "
                 "out of memory while building the next screen, which could "
                 "not be shown completely. Nothing was recorded for it. "
                 "Close other programs, then Ctrl+Shift+P tries again; "
                 "Ctrl+Shift+A aborts (the participant can be resumed).");
    } else if (v->screen == SCREEN_STORE_ERROR) {
        snprintf(note, n,
                 "Experimenter: the last response is not saved yet (%s). "
                 "It is kept and saving is retried every second. "
                 "Ctrl+Shift+A aborts.",
                 v->message ? v->message : "database error");
    } else if (v->screen == SCREEN_PAUSED) {
        snprintf(note, n,
                 "Experimenter: Ctrl+Shift+P resumes, Ctrl+Shift+A "
                 "aborts.");
    } else if (session_finished(s)) {
        snprintf(note, n,
                 "Experimenter: %sCtrl+Shift+N returns to the start "
                 "screen.",
                 v->aborted ? "the run was aborted and can be resumed "
                              "later. "
                            : "");
    }
}

/* SDL delivers typed text (and shows an input method's candidates) only
** while text input is on: on during a questionnaire, with the input
** method's window placed at the focused field, off on other screens of a
** run (the start screen turns it on for itself). */
static void questionnaire_text_input(Frame *f, const SessionView *v)
{
    if (v->screen != SCREEN_QUESTIONNAIRE) {
        if (SDL_IsTextInputActive()) {
            SDL_StopTextInput();
        }
        return;
    }
    if (!SDL_IsTextInputActive()) {
        SDL_StartTextInput();
    }
    int h = v->focus >= 0 ? scene_find_hit(&f->scene, ACT_FIELD, v->focus) : -1;
    if (v->screen_serial != f->quest_serial) {
        f->quest_serial = v->screen_serial; /* a new screen starts at its top */
        f->quest_focus = v->focus;
    } else if (v->focus >= 0 && v->focus != f->quest_focus) {
        /* a question that gets the focus (Tab, a click) is scrolled into
        ** view: its field, or its first option or point */
        int s = h;
        for (int k = 0; s < 0 && k < 2; k++) {
            s = scene_find_hit(&f->scene, ACT_PICK, v->focus * 256 + k);
        }
        const SceneHit *hit = s >= 0 ? &f->scene.hits[s] : NULL;
        const SDL_FRect *b = &f->scene.body;
        float top = b->y + f->scroll, bottom = top + b->h;
        float pad = f->ui.u;
        if (hit && hit->layer == LAYER_BODY && hit->r.y < top) {
            frame_scroll_by(f, hit->r.y - top - pad);
        } else if (hit && hit->layer == LAYER_BODY &&
                   hit->r.y + hit->r.h > bottom) {
            frame_scroll_by(f, hit->r.y + hit->r.h - bottom + pad);
        }
        f->quest_focus = v->focus;
    }
    if (h >= 0 && f->gfx.px_per_pt > 0) {
        const SceneHit *hit = &f->scene.hits[h];
        float y = hit->r.y - (hit->layer == LAYER_BODY ? f->scroll : 0);
        float k = f->gfx.px_per_pt;
        SDL_Rect r = {(int)(hit->r.x / k), (int)(y / k), (int)(hit->r.w / k),
                      (int)(hit->r.h / k)};
        SDL_SetTextInputRect(&r);
    }
}

/* The study's item-screen layout for the window as it is now (worked out
** again after a resize or a text size change), or NULL without a study. */
static const ScreenPlan *frame_plan(Frame *f, const FrameView *fv)
{
    if (!fv->study) {
        return NULL;
    }
    if (f->plan_study != fv->study || f->plan.w != f->gfx.w ||
        f->plan.h != f->gfx.h || f->plan.u != f->ui.u) {
        screen_plan_build(&f->plan, fv->study, &f->ui, &f->assets, fv->strings);
        f->plan_study = fv->study;
    }
    return &f->plan;
}

/* The participant's screen of view v into the frame's scene. */
static void build_view(Frame *f, const FrameView *fv, const SessionView *v)
{
    ScreenCtx sx;
    memset(&sx, 0, sizeof sx);
    sx.plan = frame_plan(f, fv);
    sx.ui = &f->ui;
    sx.assets = &f->assets;
    sx.view = v;
    sx.now_ns = fv->now_ns;
    sx.strings = fv->strings;
    sx.study = fv->study;
    sx.model = f->model;
    screen_build(&f->scene, &sx);
}

int frame_build(Frame *f, const FrameView *fv)
{
    /* participant screens in the study's direction; experimenter's LTR */
    fonts_set_rtl(&f->fonts, !fv->start && ui_strings_rtl(fv->strings));
    if (fv->start) {
        screen_build_start(&f->scene, &f->ui, fv->start);
        if (fv->confirm == CONFIRM_QUIT) {
            screen_add_confirm(&f->scene, &f->ui, "Quit simlab?",
                               "No participant is running. The database is "
                               "closed cleanly.",
                               "Quit");
        }
    } else if (fv->session) {
        build_view(f, fv, session_view(fv->session));
        questionnaire_text_input(f, session_view(fv->session));
        char note[1600];
        experimenter_note(fv, note, sizeof note);
        if (note[0]) {
            screen_add_note(&f->scene, &f->ui, note);
        }
        if (fv->confirm == CONFIRM_PAUSE) {
            screen_add_confirm(&f->scene, &f->ui, "Pause this run?",
                               "The participant sees a calm pause screen. "
                               "Ctrl+Shift+P resumes.",
                               "Pause");
        } else if (fv->confirm == CONFIRM_ABORT) {
            screen_add_confirm(&f->scene, &f->ui, "Abort this participant?",
                               "Everything answered so far is kept; the "
                               "participant can be resumed later from the "
                               "start screen.",
                               "Abort");
        }
    }
    int moved = frame_scroll_by(f, 0);
    int mx = 0, my = 0;
    SDL_GetMouseState(&mx, &my);
    float px = (float)mx * f->gfx.px_per_pt, py = (float)my * f->gfx.px_per_pt;
    f->hover = fv->autopilot ? -1 : scene_hit_at(&f->scene, px, py, f->scroll);
    return moved;
}

/* ------------------------------------------------------------ screenshots */

/* The output as drawn so far, in a new opaque ARGB surface; NULL (err set)
** on failure. */
static SDL_Surface *read_output(Gfx *g, SimError *err)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, g->w, g->h, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    if (!s) {
        sim_fail(err, SIM_ERR_NOMEM, "screenshot: %s", SDL_GetError());
        return NULL;
    }
    if (SDL_RenderReadPixels(g->renderer, NULL, SDL_PIXELFORMAT_ARGB8888,
                             s->pixels, s->pitch) != 0) {
        sim_fail(err, SIM_ERR_IO, "screenshot: read pixels: %s",
                 SDL_GetError());
        SDL_FreeSurface(s);
        return NULL;
    }
    return s;
}

/* Copies n rows from src (from row src_y) into dst (at row dst_y), within
** both surfaces. */
static void copy_rows(SDL_Surface *dst, int dst_y, const SDL_Surface *src,
                      int src_y, int n)
{
    size_t row = (size_t)(src->w < dst->w ? src->w : dst->w) * 4u;
    for (int k = 0; k < n; k++) {
        if (src_y + k < 0 || src_y + k >= src->h || dst_y + k < 0 ||
            dst_y + k >= dst->h) {
            continue;
        }
        memcpy((uint8_t *)dst->pixels +
                   (size_t)(dst_y + k) * (size_t)dst->pitch,
               (const uint8_t *)src->pixels +
                   (size_t)(src_y + k) * (size_t)src->pitch,
               row);
    }
}

static void render_at(Frame *f, float scroll)
{
    Gfx *g = &f->gfx;
    SDL_SetRenderDrawColor(g->renderer, f->ui.th.bg.r, f->ui.th.bg.g,
                           f->ui.th.bg.b, 255);
    SDL_RenderClear(g->renderer);
    scene_render(&f->scene, g, scroll, f->hover);
}

/* Rows at the bottom of the body that the "more below" hint covers
** (scene.c's draw_scroll_hint: a fade and a round button), with room. */
static int hint_rows(const Scene *sc)
{
    float fade = fminf(sc->body.h * 0.08f, 40);
    float r = fmaxf(12, fminf(sc->body.h * 0.03f, 22));
    return (int)ceilf(fmaxf(fade, 2 * r + 10)) + 2;
}

/* The whole screen in one image when its body is taller than the window:
** header and response bar as shown, and between them the body drawn at
** successive scroll offsets and stitched (each piece without the rows the
** "more below" hint covers). The scene is left drawn at scroll 0; the
** caller draws it again. NULL (err set) on failure. */
static SDL_Surface *capture_whole(Frame *f, SimError *err)
{
    Gfx *g = &f->gfx;
    const Scene *sc = &f->scene;
    int by = (int)floorf(sc->body.y), bh = (int)floorf(sc->body.h);
    int max = (int)ceilf(sc->body_h - sc->body.h);
    render_at(f, 0);
    SDL_Surface *first = read_output(g, err);
    if (!first || max <= 0 || bh <= 0) {
        return first;
    }
    SDL_Surface *out = SDL_CreateRGBSurfaceWithFormat(0, g->w, g->h + max, 32,
                                                      SDL_PIXELFORMAT_ARGB8888);
    if (!out) {
        SDL_FreeSurface(first);
        sim_fail(err, SIM_ERR_NOMEM, "screenshot: %s", SDL_GetError());
        return NULL;
    }
    copy_rows(out, 0, first, 0, by);                               /* header */
    copy_rows(out, by + bh + max, first, by + bh, g->h - by - bh); /* bar */
    SDL_FreeSurface(first);
    int step = bh - hint_rows(sc);
    if (step < 1) {
        step = 1;
    }
    for (int s = 0;; s += step) {
        int at = s < max ? s : max;
        render_at(f, (float)at);
        SDL_Surface *piece = read_output(g, err);
        if (!piece) {
            SDL_FreeSurface(out);
            return NULL;
        }
        copy_rows(out, by + at, piece, by, at == max ? bh : step);
        SDL_FreeSurface(piece);
        if (at == max) {
            break;
        }
    }
    return out;
}

/* Writes the screen to DIR/name.png, whole (see capture_whole). */
static void screenshot(Frame *f, const char *name)
{
    char path[1400];
    SimError err;
    snprintf(path, sizeof path, "%s/%s.png", f->shot_dir, name);
    f->shots++;
    SDL_Surface *s = capture_whole(f, &err);
    if (s) {
        for (int y = 0; y < s->h; y++) { /* opaque: no meaningful alpha */
            uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
            for (int x = 0; x < s->w; x++) {
                row[x] |= 0xFF000000u;
            }
        }
        if (IMG_SavePNG(s, path) != 0) {
            sim_fail(&err, SIM_ERR_IO, "%s: %s", path, IMG_GetError());
            SDL_FreeSurface(s);
            s = NULL;
        } else {
            SDL_FreeSurface(s);
            return;
        }
    }
    fprintf(stderr, "simlab run: %s\n", err.msg);
}

/* Replaces what is not a letter, digit, '.', '_', '+' or '-' by '_'. */
static void sanitise(char *p)
{
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!(isalnum(c) || c == '.' || c == '_' || c == '+' || c == '-')) {
            *p = '_';
        }
    }
}

/* "<participant>-<condition>-<block>-<nn>[-<screen>]": the first 8
** characters of the participant id, the condition of the step, the block
** (or the screen without one, e.g. done), nn counting the screens shot in
** that block for that participant and condition; screens that are not the
** block's own (feedback, paused, store error, screened out, done) add
** their name, a feedback asking again "retry". Each part sanitised. */
static void shot_name(Frame *f, const SessionView *v, char *out, size_t n)
{
    char pid[9], cond[64], block[64], key[160];
    snprintf(pid, sizeof pid, "%.8s", v->participant ? v->participant : "");
    snprintf(cond, sizeof cond, "%s", v->condition ? v->condition : "none");
    snprintf(block, sizeof block, "%s",
             v->block && v->block->id ? v->block->id
                                      : session_screen_name(v->screen));
    sanitise(pid);
    sanitise(cond);
    sanitise(block);
    snprintf(key, sizeof key, "%s/%s/%s", pid, cond, block);
    if (strcmp(key, f->shot_key) != 0) {
        snprintf(f->shot_key, sizeof f->shot_key, "%s", key);
        f->shot_nn = 0;
    }
    f->shot_nn++;
    const char *extra = "";
    switch (v->screen) {
    case SCREEN_FEEDBACK:
        extra = v->feedback_final ? "-feedback" : "-retry";
        break;
    case SCREEN_PAUSED:
    case SCREEN_STORE_ERROR:
    case SCREEN_SCREENED_OUT:
    case SCREEN_DONE:
        extra = v->block ? session_screen_name(v->screen) : "";
        break;
    default:
        break;
    }
    snprintf(out, n, "%s-%s-%s-%02d%s%s", pid[0] ? pid : "none", cond, block,
             f->shot_nn, extra[0] && extra[0] != '-' ? "-" : "", extra);
}

/* A screen whose explanation is given on request and hidden (the item's
** or a reservoir card's) is shot a second time, name + "-revealed", with
** every such explanation shown: what the screen looks like once asked
** for. The session is not told (no reveal is recorded); the scene is the
** screen as shown again afterwards. */
static void shot_revealed(Frame *f, const FrameView *fv, const char *name)
{
    if (!fv->session) {
        return;
    }
    const SessionView *v = session_view(fv->session);
    int hidden = v->explanation &&
                 v->explanation->reveal == EXPL_REVEAL_ON_REQUEST &&
                 !v->revealed;
    unsigned char shown[512];
    for (size_t i = 0; i < v->n_reservoir; i++) {
        const Explanation *e = v->reservoir_expl[i];
        hidden |= e && e->reveal == EXPL_REVEAL_ON_REQUEST &&
                  !(v->res_revealed && v->res_revealed[i]);
    }
    if (!hidden || v->n_reservoir > sizeof shown) {
        return;
    }
    memset(shown, 1, sizeof shown);
    SessionView r = *v;
    r.revealed = 1;
    r.res_revealed = shown;
    build_view(f, fv, &r);
    render_at(f, 0);
    char more[240];
    snprintf(more, sizeof more, "%s-revealed", name);
    screenshot(f, more);
    frame_build(f, fv); /* the screen as shown */
}

/* The screenshot due for this frame, if any, named into name. */
static int shot_due(Frame *f, const FrameView *fv, char *name, size_t n)
{
    if (!f->shot_dir) {
        return 0;
    }
    if (fv->start && !f->shot_start && !fv->autopilot) {
        f->shot_start = 1;
        snprintf(name, n, "start");
        return 1;
    }
    if (!fv->start && fv->session) {
        const SessionView *v = session_view(fv->session);
        if (!fv->have_shown || v->screen_serial != f->shot_serial ||
            !f->shots) {
            f->shot_serial = v->screen_serial;
            shot_name(f, v, name, n);
            return 1;
        }
    }
    return 0;
}

int64_t frame_draw(Frame *f, const FrameView *fv, const Stamps *clock,
                   TimingLog *timing)
{
    Gfx *g = &f->gfx;
    int64_t t0 = stamps_now(clock);
    SDL_SetRenderDrawColor(g->renderer, f->ui.th.bg.r, f->ui.th.bg.g,
                           f->ui.th.bg.b, 255);
    SDL_RenderClear(g->renderer);
    scene_render(&f->scene, g, f->scroll, f->hover);
    char name[200];
    if (shot_due(f, fv, name, sizeof name)) {
        screenshot(f, name); /* read back before present: buffer is valid */
        shot_revealed(f, fv, name);
        render_at(f, f->scroll); /* the capture drew other offsets */
    }
    SDL_RenderPresent(g->renderer);
    int64_t t1 = stamps_now(clock);
    timing_log_frame(timing, t0, t1 - t0);
    return t1;
}

/* Failures reported by one load pass, each file once. */
typedef struct Loads {
    Frame *f;
    MediaFailFn fail;
    void *ctx;
    int step;
    const Tex *seen[64]; /* failed entries already reported */
    int n_seen, n_failed;
} Loads;

static void check_tex(Loads *L, const Tex *t, const char *rel, const char *file)
{
    if (t->tex) {
        return;
    }
    for (int i = 0; i < L->n_seen; i++) {
        if (L->seen[i] == t) {
            return;
        }
    }
    if (L->n_seen < 64) {
        L->seen[L->n_seen++] = t;
    }
    L->n_failed++;
    if (L->fail) {
        L->fail(L->ctx, L->step, rel, file, t->why);
    }
}

static void load_input(Loads *L, const ItemInput *in)
{
    if (in->modality == MODALITY_IMAGE) {
        check_tex(L, assets_image(&L->f->assets, in->image_file), in->text,
                  in->image_file);
    }
}

/* One image or map file of an explanation (expl_media). */
static void load_media(void *ctx, const char *rel, const char *file, int is_map,
                       int is_npy, const char *colormap)
{
    Loads *L = ctx;
    const Tex *t = is_map
                       ? assets_heatmap(&L->f->assets, file, is_npy, colormap)
                       : assets_image(&L->f->assets, file);
    check_tex(L, t, rel, file);
}

/* The item's input (and its perturbation's) and every image and map of e,
** whatever its kind. */
static void load_item(Loads *L, const Item *it, const Explanation *e)
{
    load_input(L, &it->input);
    if (it->cf) {
        load_input(L, &it->cf->input);
    }
    expl_media(e, &it->input, load_media, L);
}

static void load_page(Loads *L, const Page *pg)
{
    for (size_t i = 0; pg && i < pg->n_blocks; i++) {
        const PageBlock *b = &pg->blocks[i];
        if (b->kind == PAGE_IMAGE) {
            check_tex(L, assets_image(&L->f->assets, b->file), b->path,
                      b->file);
        }
    }
}

int frame_load_view(Frame *f, const Session *s, MediaFailFn fail, void *ctx)
{
    const SessionView *v = session_view(s);
    Loads L;
    memset(&L, 0, sizeof L);
    L.f = f;
    L.fail = fail;
    L.ctx = ctx;
    L.step = v->trial ? v->trial->seq : -1;
    if (v->item) {
        load_item(&L, v->item, v->explanation);
    }
    for (size_t i = 0; i < v->n_reservoir; i++) {
        load_item(&L, v->reservoir[i], v->reservoir_expl[i]);
    }
    load_page(&L, v->page);
    return L.n_failed;
}

int frame_preload_run(Frame *f, const Study *study, const Session *s,
                      MediaFailFn fail, void *ctx)
{
    const Schedule *sch = session_schedule(s);
    const SessionView *v = session_view(s);
    Loads L;
    memset(&L, 0, sizeof L);
    L.f = f;
    L.fail = fail;
    L.ctx = ctx;
    if (!sch || !v->trial) {
        return 0;
    }
    for (size_t k = (size_t)v->trial->seq; k < sch->n_trials; k++) {
        const Trial *t = &sch->trials[k];
        const Block *b = &study->blocks[t->block];
        const Condition *cond =
            study_find_condition(study, trial_condition(sch, t));
        L.step = t->seq;
        const Item *it =
            t->item_key ? study_find_item(study, t->item_key) : NULL;
        if (it) {
            const Explanation *e = t->show.explanation && cond && cond->method
                                       ? item_explanation(it, cond->method)
                                       : NULL;
            load_item(&L, it, e);
        } else if (b->n_pages > 0 && (size_t)t->page < b->n_pages) {
            load_page(&L, study_page(study, b->pages[t->page]));
        } else {
            load_page(&L, b->text_page);
        }
    }
    return L.n_failed;
}

void frame_preload(Frame *f, const Study *study, const Session *s)
{
    const Schedule *sch = session_schedule(s);
    const SessionView *v = session_view(s);
    if (!sch || !v->trial) {
        return;
    }
    Loads L;
    memset(&L, 0, sizeof L);
    L.f = f;
    for (size_t k = (size_t)v->trial->seq + 1;
         k < sch->n_trials && k <= (size_t)v->trial->seq + 2; k++) {
        const Trial *t = &sch->trials[k];
        const Condition *cond =
            study_find_condition(study, trial_condition(sch, t));
        const Item *it =
            t->item_key ? study_find_item(study, t->item_key) : NULL;
        if (!it) {
            continue;
        }
        const Explanation *e =
            cond && cond->method ? item_explanation(it, cond->method) : NULL;
        load_item(&L, it, e);
        /* Warm the glyph atlas with the item's text. */
        if (it->input.text && it->input.modality != MODALITY_IMAGE) {
            font_width(f->ui.body, it->input.text, strlen(it->input.text));
        }
    }
}
