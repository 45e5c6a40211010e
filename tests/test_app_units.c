/*
** Unit tests of the runner's drawing helpers: colormaps (anchors and even
** lightness), the .npy reader and heatmap scaling, UTF-8 decoding, and text
** layout (wrapping, long words, measuring equals drawing).
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_util.h"

#include "app/assets.h"
#include "app/gfx.h"
#include "stimuli/media.h"
#include "stimuli/page.h"
#include "app/scene.h"
#include "app/screens.h"
#include "common/sim_alloc.h"

static void test_colormaps(void)
{
    const char *names[] = {"viridis", "cividis", "magma"};
    for (int m = 0; m < 3; m++) {
        const Colormap *cm = colormap_find(names[m]);
        CHECK_STR(cm->name, names[m]);
        /* Ends are the published anchors. */
        SDL_Color c0 = colormap_sample(cm, 0), c1 = colormap_sample(cm, 1);
        CHECK_NEAR(c0.r, cm->anchors[0][0], 1);
        CHECK_NEAR(c1.g, cm->anchors[cm->n_anchors - 1][1], 1);
        /* Lightness rises monotonically and nearly evenly. */
        double prev = -1, lo = 1e9, hi = -1e9;
        for (int i = 0; i <= 64; i++) {
            double l = color_lightness(colormap_sample(cm, i / 64.0));
            CHECK(l > prev - 0.3);
            if (i > 0) {
                lo = fmin(lo, l - prev);
                hi = fmax(hi, l - prev);
            }
            prev = l;
        }
        CHECK(hi < 3 * lo + 1.0);
    }
    CHECK_STR(colormap_find(NULL)->name, "viridis");
    CHECK_STR(colormap_find("nonsense")->name, "viridis");
    /* Diverging: near white at 0, darker at both ends. */
    double l0 = color_lightness(colormap_diverging(0));
    CHECK(l0 > 95);
    CHECK(color_lightness(colormap_diverging(-1)) < 50);
    CHECK(color_lightness(colormap_diverging(1)) < 55);
    SDL_Color neg = colormap_diverging(-0.8), pos = colormap_diverging(0.8);
    CHECK(neg.b > neg.r);
    CHECK(pos.r > pos.b);
}

static void write_npy(const char *path, int h, int w, const float *v,
                      const char *descr)
{
    FILE *f = fopen(path, "wb");
    char hdr[160];
    int n = snprintf(hdr, sizeof hdr,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%d, "
                     "%d), }",
                     descr, h, w);
    int pad = (64 - (10 + n + 1) % 64) % 64;
    unsigned short hl = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 255, f);
    fputc(hl >> 8, f);
    fwrite(hdr, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++) {
        fputc(' ', f);
    }
    fputc('\n', f);
    fwrite(v, 4, (size_t)(h * w), f);
    fclose(f);
}

static void test_npy(void)
{
    char dir[256], path[400];
    test_tmpdir(dir, sizeof dir, "npy");
    snprintf(path, sizeof path, "%s/m.npy", dir);
    float v[6] = {0, 1, 2, 3, 4, 5};
    write_npy(path, 2, 3, v, "<f4");
    float *d = NULL;
    int h = 0, w = 0;
    SimError err;
    CHECK_INT(media_npy_read(path, &d, &h, &w, &err), SIM_OK);
    CHECK_INT(h, 2);
    CHECK_INT(w, 3);
    if (d) {
        CHECK_NEAR(d[4], 4, 0);
        heatmap_normalize(d, 6);
        CHECK_NEAR(d[0], 0, 1e-6);
        CHECK_NEAR(d[5], 1, 1e-6);
        CHECK(d[2] > d[1] && d[3] > d[2]);
    }
    sim_free(d);
    write_npy(path, 2, 3, v, "<f8");
    CHECK_INT(media_npy_read(path, &d, &h, &w, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "<f4") != NULL);
    float nan_map[4] = {NAN, 1, 2, 3};
    heatmap_normalize(nan_map, 4);
    CHECK_NEAR(nan_map[0], 0, 0);
    test_rmtree(dir);
}

static void test_utf8(void)
{
    const char *s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFFz";
    size_t i = 0, n = strlen(s);
    CHECK_INT(utf8_next(s, n, &i), 'a');
    CHECK_INT(utf8_next(s, n, &i), 0xE9);
    CHECK_INT(utf8_next(s, n, &i), 0x20AC);
    CHECK_INT(utf8_next(s, n, &i), 0x1F600);
    CHECK_INT(utf8_next(s, n, &i), 0xFFFD);
    CHECK_INT(utf8_next(s, n, &i), 'z');
    CHECK_INT(i, n);
    /* Truncated sequence at the end. */
    const char *t = "x\xE2\x82";
    i = 1;
    CHECK_INT(utf8_next(t, 3, &i), 0xFFFD);
}

static void test_layout(void)
{
    Gfx g;
    SimError err;
    GfxOptions o = {"test", 1, 640, 480, 0, 0, 1};
    if (gfx_open(&g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        h_fail++;
        return;
    }
    char assets[1024], fdir[1100];
    CHECK_INT(gfx_find_assets(assets, sizeof assets, &err), SIM_OK);
    snprintf(fdir, sizeof fdir, "%s/fonts", assets);
    Fonts fonts;
    CHECK_INT(fonts_init(&fonts, g.renderer, fdir, &err), SIM_OK);
    Font *f = fonts_get(&fonts, FACE_REGULAR, 20);
    CHECK(f != NULL);
    if (!f) {
        gfx_close(&g);
        return;
    }
    float one = (float)f->line_h;
    const char *text = "The quick brown fox jumps over the lazy dog again "
                       "and again, \xC3\xA9t\xC3\xA9 \xE2\x82\xAC 100.";
    float wide = text_para(NULL, f, text, 0, 0, 5000, (SDL_Color){0}, 0);
    CHECK_NEAR(wide, roundf(one * 1.25f), 1);
    float narrow = text_para(NULL, f, text, 0, 0, 120, (SDL_Color){0}, 0);
    CHECK(narrow >= 4 * roundf(one * 1.25f));
    /* Every line fits the column; drawn text equals measured text. */
    Scene sc;
    scene_init(&sc);
    text_para(&sc, f, text, 10, 0, 120, (SDL_Color){0, 0, 0, 255}, 0);
    int texts = 0;
    for (size_t i = 0; i < sc.n_cmds; i++) {
        if (sc.cmds[i].kind == CMD_TEXT) {
            texts++;
            CHECK(sc.cmds[i].r.x + sc.cmds[i].r.w <= 10 + 120 + 0.5f);
        }
    }
    CHECK(texts >= 8);
    /* A word longer than the column is broken, not overflowing. */
    scene_clear(&sc);
    text_para(&sc, f, "Pneumonoultramicroscopicsilicovolcanoconiosis", 0, 0, 80,
              (SDL_Color){0, 0, 0, 255}, 0);
    for (size_t i = 0; i < sc.n_cmds; i++) {
        CHECK(sc.cmds[i].r.x + sc.cmds[i].r.w <= 80.5f);
    }
    /* Newlines force breaks. */
    float two = text_para(NULL, f, "a\nb", 0, 0, 500, (SDL_Color){0}, 0);
    CHECK_NEAR(two, 2 * roundf(one * 1.25f), 1);
    CHECK(text_width(f, "ab\nabcd") > font_width(f, "ab", 2));
    /* Hit testing follows the scroll offset of the body layer. */
    scene_clear(&sc);
    sc.body = (SDL_FRect){0, 50, 640, 300};
    sc.layer = LAYER_BODY;
    scene_begin_hit(&sc, (SDL_FRect){0, 400, 100, 40}, ACT_CHOOSE, 1, 1);
    scene_end_hit(&sc);
    CHECK_INT(scene_hit_at(&sc, 10, 410, 0), -1);
    CHECK_INT(scene_hit_at(&sc, 10, 310, 100), 0);
    CHECK_INT(scene_find_hit(&sc, ACT_CHOOSE, 1), 0);
    scene_render(&sc, &g, 0, -1);
    scene_free(&sc);
    fonts_free(&fonts);
    gfx_close(&g);
}

/* A page paragraph written on one long line (as editors that soft-wrap
** save it) is shown to its last word, not cut at a line-buffer size; nor
** is text with many **marked** words cut at a span-array size. */
static void test_long_page_line(void)
{
    Gfx g;
    SimError err;
    GfxOptions o = {"test", 1, 640, 480, 0, 0, 1};
    if (gfx_open(&g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        h_fail++;
        return;
    }
    char assets_dir[1024], fdir[1100];
    CHECK_INT(gfx_find_assets(assets_dir, sizeof assets_dir, &err), SIM_OK);
    snprintf(fdir, sizeof fdir, "%s/fonts", assets_dir);
    Fonts fonts;
    CHECK_INT(fonts_init(&fonts, g.renderer, fdir, &err), SIM_OK);
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.gfx = &g;
    ui.fonts = &fonts;
    ui.font_scale = 1;
    ui_init_theme(&ui);
    ui_update_metrics(&ui);
    Assets assets;
    assets_init(&assets, g.renderer);
    /* "# Consent", then one paragraph of 500 words on a single line. */
    size_t cap = 8000, len = 0;
    char *page = sim_malloc(cap);
    len += (size_t)snprintf(page, cap, "# Consent\n\n");
    for (int i = 0; i < 500; i++) {
        len += (size_t)snprintf(page + len, cap - len, "word%03d ", i);
    }
    snprintf(page + len, cap - len, "LASTWORD\n");
    SessionView v;
    memset(&v, 0, sizeof v);
    v.screen = SCREEN_PAGE;
    v.page_text = page;
    Page *pg = NULL;
    CHECK_INT(page_parse(page, NULL, &pg, &err), SIM_OK);
    v.page = pg;
    v.onset_marked = 1;
    ScreenCtx sx = {&ui, &assets, &v, 0, NULL, NULL, NULL, NULL, NULL};
    Scene sc;
    scene_init(&sc);
    screen_build(&sc, &sx);
    CHECK(sc.text && strstr(sc.text, "word499") != NULL);
    CHECK(sc.text && strstr(sc.text, "LASTWORD") != NULL);
    /* Many **bold** words in one paragraph: none of the text is dropped. */
    len = 0;
    for (int i = 0; i < 60; i++) {
        len += (size_t)snprintf(page + len, cap - len, "**bold%02d** and ", i);
    }
    snprintf(page + len, cap - len, "LASTWORD\n");
    page_free(pg);
    pg = NULL;
    CHECK_INT(page_parse(page, NULL, &pg, &err), SIM_OK);
    v.page = pg;
    screen_build(&sc, &sx);
    CHECK(sc.text && strstr(sc.text, "bold59") != NULL);
    CHECK(sc.text && strstr(sc.text, "LASTWORD") != NULL);
    /* The same in a monospace explanation sheet with **marked** words. */
    Explanation e;
    memset(&e, 0, sizeof e);
    e.kind = EXPL_TEXT;
    e.text = page;
    RenderCtx rc = {.ui = &ui, .assets = &assets, .max_image_h = 200};
    scene_clear(&sc);
    ScreenModel *model = screen_model_new();
    ScreenContext mcx = {NULL, NULL, SCREEN_DESKTOP, NULL, 0, 0};
    ScreenExpl *node = screen_model_expl(model, &mcx, &e, NULL, 0, 0);
    CHECK(render_explanation(&rc, &sc, node, 0, 0, 600) > 0);
    screen_model_free(model);
    CHECK(sc.text && strstr(sc.text, "bold59") != NULL);
    CHECK(sc.text && strstr(sc.text, "LASTWORD") != NULL);
    CHECK(!scene_oom(&sc));
    /* Out of memory at every allocation in turn: a scene that lost
    ** anything says so; one that does not is the whole screen. */
    screen_build(&sc, &sx); /* the glyphs are cached: scenes differ only by
                               what they could store */
    CHECK(!scene_oom(&sc));
    size_t full_cmds = sc.n_cmds, full_text = sc.text_len;
    int lost = 0, whole = 0;
    for (long n = 0; n < 4000 && !whole; n++) {
        Scene t;
        scene_init(&t);
        sim_alloc_fail_after(n);
        screen_build(&t, &sx);
        sim_alloc_fail_after(-1);
        if (scene_oom(&t)) {
            lost++;
        } else {
            CHECK(t.n_cmds == full_cmds && t.text_len == full_text);
            whole = t.n_cmds == full_cmds && t.text_len == full_text;
            if (!whole) {
                fprintf(stderr,
                        "fail after %ld: %zu of %zu commands, not "
                        "marked\n",
                        n, t.n_cmds, full_cmds);
                h_fail++;
                whole = 1;
            }
        }
        scene_free(&t);
    }
    CHECK(whole);
    CHECK(lost > 0);
    scene_clear(&sc);
    CHECK(!scene_oom(&sc));
    scene_free(&sc);
    page_free(pg);
    sim_free(page);
    assets_free(&assets);
    fonts_free(&fonts);
    gfx_close(&g);
}

/* The image cache decodes as check does and refuses what the renderer
** cannot hold; failures are cached until forgotten. */
static void test_assets_media(void)
{
    Gfx g;
    SimError err;
    GfxOptions o = {"test", 1, 320, 240, 0, 0, 1};
    if (gfx_open(&g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        h_fail++;
        return;
    }
    Assets a;
    assets_init(&a, g.renderer);
    char ok[1024], bad[1024], jpg[1024];
    snprintf(ok, sizeof ok, "%s/bundles/valid-all/media/cat.png",
             SIMLAB_TEST_DATA);
    snprintf(jpg, sizeof jpg, "%s/bundles/valid-all/media/dog.jpg",
             SIMLAB_TEST_DATA);
    snprintf(bad, sizeof bad, "%s/bundles/bad-media/media/short-data.png",
             SIMLAB_TEST_DATA);
    const Tex *t = assets_image(&a, ok);
    CHECK(t->tex != NULL && t->w == 8 && t->h == 6 && t->why[0] == 0);
    t = assets_image(&a, jpg);
    CHECK(t->tex != NULL && t->w == 16 && t->h == 12);
    t = assets_image(&a, bad);
    CHECK(t->tex == NULL && strstr(t->why, "corrupt PNG") != NULL);
    CHECK(assets_image(&a, bad) == t); /* cached */
    t = assets_image(&a, NULL);
    CHECK(t->tex == NULL && t->why[0] != 0);
    /* a renderer whose largest texture is 4 x 4 */
    assets_free(&a);
    assets_init(&a, g.renderer);
    a.max_tex_w = a.max_tex_h = 4;
    t = assets_image(&a, ok);
    CHECK(t->tex == NULL && strstr(t->why, "largest texture is 4x4") != NULL);
    a.max_tex_w = a.max_tex_h = 0;
    assets_forget_failed(&a);
    t = assets_image(&a, ok);
    CHECK(t->tex != NULL);
    assets_free(&a);
    gfx_close(&g);
}

/* The cache keeps to its byte budget, least recently used first, and never
** drops a texture that the scene being built holds. */
static void test_assets_budget(void)
{
    Gfx g;
    SimError err;
    GfxOptions o = {"test", 1, 320, 240, 0, 0, 1};
    if (gfx_open(&g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        h_fail++;
        return;
    }
    char cat[1024], dog[1024];
    snprintf(cat, sizeof cat, "%s/bundles/valid-all/media/cat.png",
             SIMLAB_TEST_DATA);
    snprintf(dog, sizeof dog, "%s/bundles/valid-all/media/dog.jpg",
             SIMLAB_TEST_DATA);
    Assets a;
    assets_init(&a, g.renderer);
    CHECK(a.budget == ASSETS_BUDGET_DEFAULT);
    assets_set_budget(&a, 8 * 6 * 4 + 16 * 12 * 4); /* cat and dog */
    CHECK(assets_image(&a, cat)->tex != NULL);
    CHECK(assets_image(&a, dog)->tex != NULL);
    CHECK(a.bytes == 960 && a.n_evicted == 0 && a.n_loads == 2);
    /* a third texture: the least recently used (cat) goes */
    CHECK(assets_heatmap(&a, cat, 0, "magma")->tex != NULL);
    CHECK(a.n_evicted == 1 && a.bytes == 960);
    CHECK(assets_image(&a, dog)->tex != NULL && a.n_loads == 3); /* kept */
    /* a scene holds what it asked for, even over the budget */
    assets_scene_begin(&a);
    const Tex *d = assets_image(&a, dog);
    const Tex *h = assets_heatmap(&a, cat, 0, "magma");
    const Tex *c = assets_image(&a, cat); /* decoded again */
    assets_scene_end(&a);
    CHECK(a.n_loads == 4 && a.n_evicted == 1 && a.bytes == 1152);
    CHECK(d->tex && d->w == 16 && h->tex && h->w == 8 && c->tex && c->h == 6);
    CHECK(a.peak == 1152);
    /* the next scene: the old one's textures may go, oldest first (dog) */
    assets_scene_begin(&a);
    CHECK(assets_image(&a, cat)->tex != NULL && a.n_loads == 4);
    assets_scene_end(&a);
    CHECK(assets_heatmap(&a, cat, 0, "viridis")->tex != NULL);
    CHECK(a.n_evicted == 2 && a.bytes == 576);
    CHECK(assets_image(&a, cat)->tex != NULL && a.n_loads == 5);
    /* failures cost nothing and stay cached */
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/bundles/bad-media/media/short-data.png",
             SIMLAB_TEST_DATA);
    const Tex *b = assets_image(&a, bad);
    CHECK(b->tex == NULL && a.bytes == 576);
    assets_set_budget(&a, 1); /* drops every texture no scene holds */
    CHECK(a.bytes == 192 && assets_image(&a, bad) == b);
    assets_set_budget(&a, 0); /* no limit */
    CHECK(assets_image(&a, dog)->tex != NULL && a.bytes == 960);
    assets_free(&a);
    gfx_close(&g);
}

int main(void)
{
    test_colormaps();
    test_npy();
    test_utf8();
    test_layout();
    test_long_page_line();
    test_assets_media();
    test_assets_budget();
    return TEST_REPORT();
}
