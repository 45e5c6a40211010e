/*
** Mixed-direction text: the bidi core (app/bidi.h) headless on code
** points (levels, visual order by rule L2, mirrored brackets), then
** text_flow and the fonts under SDL's dummy driver (the order of words on
** a wrapped Arabic line, start-side alignment, bold fallback faces,
** shaping of Devanagari, the model chip's order).
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"

#include <math.h>
#include <string.h>

#include "app/bidi.h"
#include "app/gfx.h"
#include "app/render.h"
#include "app/scene.h"
#include "common/sim_text.h"
#include "stimuli/uistrings.h"

/* Arabic words (logical order, UTF-8). */
#define AR_SAYS    "\xd9\x8a\xd9\x82\xd9\x88\xd9\x84"         /* yaqul */
#define AR_HERE    "\xd9\x87\xd9\x86\xd8\xa7"                 /* huna */
#define AR_HELLO   "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7" /* marhaba */
#define AR_YOU     "\xd8\xa8\xd9\x83"                         /* bik */
#define AR_METHOD  "\xd8\xa7\xd9\x84\xd8\xb7\xd8\xb1\xd9\x8a\xd9\x82\xd8\xa9"
#define AR_GOOD    "\xd8\xac\xd9\x8a\xd8\xaf\xd8\xa9" /* jayida */
#define AR_VALUE   "\xd8\xa7\xd9\x84\xd9\x82\xd9\x8a\xd9\x85\xd8\xa9"
#define AR_TEXT    "\xd9\x86\xd8\xb5"                 /* nass */
#define AR_EXAMPLE "\xd9\x85\xd8\xab\xd8\xa7\xd9\x84" /* mithal */
#define AR_42      "\xd9\xa4\xd9\xa2"                 /* Arabic-Indic 4 2 */

static size_t decode(const char *s, uint32_t *cp, size_t max)
{
    size_t n = 0, len = strlen(s);
    for (size_t i = 0; i < len && n < max;) {
        cp[n++] = utf8_next(s, len, &i);
    }
    return n;
}

static void encode(const uint32_t *cp, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        o += sim_utf8_put(out + o, cp[i]);
    }
    out[o] = '\0';
}

/* text (one paragraph) in visual order, left to right: the characters of
** odd levels mirrored, as the runner draws them. */
static void visual(const char *text, int rtl_default, char *out)
{
    uint32_t cp[256], vis[256], order[256];
    uint8_t lev[256];
    size_t n = decode(text, cp, 256);
    CHECK(bidi_levels(cp, n, rtl_default, lev) >= 0);
    bidi_visual_order(lev, n, order);
    for (size_t k = 0; k < n; k++) {
        uint32_t c = cp[order[k]];
        vis[k] = lev[order[k]] & 1 ? bidi_mirror(c) : c;
    }
    encode(vis, n, out);
}

/* s with its code points reversed (an RTL word as it appears drawn). */
static const char *rev(const char *s)
{
    static char buf[8][512];
    static int next;
    char *out = buf[next++ % 8];
    uint32_t cp[256];
    size_t n = decode(s, cp, 256);
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t t = cp[i];
        cp[i] = cp[n - 1 - i];
        cp[n - 1 - i] = t;
    }
    encode(cp, n, out);
    return out;
}

static void expect(const char *text, int rtl_default, const char *want)
{
    char got[1024];
    visual(text, rtl_default, got);
    CHECK_STR(got, want);
}

static void test_order(void)
{
    char want[512];
    /* pure LTR, in either study direction */
    expect("The model says 0.42 (LIME).", 0, "The model says 0.42 (LIME).");
    expect("The model says 0.42 (LIME).", 1, "The model says 0.42 (LIME).");
    /* pure RTL */
    snprintf(want, sizeof want, "%s %s", rev(AR_YOU), rev(AR_HELLO));
    expect(AR_HELLO " " AR_YOU, 0, want);
    /* RTL paragraph with "LIME 0.42" inside: the Latin run keeps its order
    ** (the old whole-line reversal gave "0.42 LIME") */
    snprintf(want, sizeof want, "%s LIME 0.42 %s", rev(AR_HERE), rev(AR_SAYS));
    expect(AR_SAYS " LIME 0.42 " AR_HERE, 0, want);
    /* LTR paragraph with an Arabic phrase: the phrase's words swap */
    snprintf(want, sizeof want, "The word %s %s means hello", rev(AR_YOU),
             rev(AR_HELLO));
    expect("The word " AR_HELLO " " AR_YOU " means hello", 0, want);
    /* numbers after Arabic: European and Arabic-Indic digits run left to
    ** right, a sign stays in front of its number */
    snprintf(want, sizeof want, "42 %s", rev(AR_VALUE));
    expect(AR_VALUE " 42", 0, want);
    snprintf(want, sizeof want, "-0.42 %s", rev(AR_VALUE));
    expect(AR_VALUE " -0.42", 0, want);
    snprintf(want, sizeof want, "%s %s", AR_42, rev(AR_VALUE));
    expect(AR_VALUE " " AR_42, 0, want);
    /* brackets: mirrored inside right-to-left text */
    snprintf(want, sizeof want, "%s (SHAP) %s", rev(AR_GOOD), rev(AR_METHOD));
    expect(AR_METHOD " (SHAP) " AR_GOOD, 0, want);
    snprintf(want, sizeof want, "(%s) %s", rev(AR_EXAMPLE), rev(AR_TEXT));
    expect(AR_TEXT " (" AR_EXAMPLE ")", 0, want);
    /* no strong character: the study's direction decides */
    expect("1 - 5", 0, "1 - 5");
    expect("1 - 5", 1, "5 - 1");
    expect("(3)", 1, "(3)");
    expect("+0.42", 1, "+0.42");
    expect("12%", 1, "12%");
}

static void test_core(void)
{
    /* rule L2 on items */
    uint8_t l1[] = {0, 0, 1, 1, 1, 0};
    uint32_t o[6];
    bidi_visual_order(l1, 6, o);
    uint32_t w1[] = {0, 1, 4, 3, 2, 5};
    CHECK(memcmp(o, w1, sizeof w1) == 0);
    uint8_t l2[] = {1, 2, 2, 1};
    bidi_visual_order(l2, 4, o);
    uint32_t w2[] = {3, 1, 2, 0};
    CHECK(memcmp(o, w2, sizeof w2) == 0);
    uint8_t l3[] = {2, 2};
    bidi_visual_order(l3, 2, o);
    CHECK(o[0] == 0 && o[1] == 1);
    bidi_visual_order(l3, 0, o); /* nothing */
    /* paragraph direction */
    uint32_t cp[64];
    uint8_t lev[64];
    size_t n = decode(AR_SAYS " LIME", cp, 64);
    CHECK_INT(bidi_levels(cp, n, 0, lev), 1);
    CHECK_INT(lev[0], 1);
    CHECK_INT(lev[n - 1], 2);
    n = decode("LIME " AR_SAYS, cp, 64);
    CHECK_INT(bidi_levels(cp, n, 1, lev), 0);
    n = decode("0.42 ", cp, 64);
    CHECK_INT(bidi_levels(cp, n, 1, lev), 1);
    CHECK_INT(lev[0], 2);
    CHECK_INT(lev[n - 1], 1); /* trailing space at the paragraph's level */
    CHECK_INT(bidi_levels(cp, 0, 1, lev), 1);
    /* plain text skips the algorithm */
    n = decode("plain text 42", cp, 64);
    CHECK(bidi_plain(cp, n, 0));
    CHECK(bidi_plain(cp, n, 1));
    n = decode("42", cp, 64);
    CHECK(bidi_plain(cp, n, 0));
    CHECK(!bidi_plain(cp, n, 1));
    n = decode("x " AR_42, cp, 64);
    CHECK(!bidi_plain(cp, n, 0));
    /* classes and mirrors */
    CHECK_INT(bidi_class('a'), BIDI_LTR);
    CHECK_INT(bidi_class('7'), BIDI_NEUTRAL);
    CHECK_INT(bidi_class(0x4F60), BIDI_LTR);
    CHECK_INT(bidi_class(0x0627), BIDI_RTL);
    CHECK_INT(bidi_class(0x05D0), BIDI_RTL);
    CHECK_INT(bidi_class(0x0664), BIDI_CONTROL);
    CHECK_INT(bidi_class(0x2067), BIDI_CONTROL);
    CHECK_INT(bidi_mirror('('), ')');
    CHECK_INT(bidi_mirror(']'), '[');
    CHECK_INT(bidi_mirror(0xAB), 0xBB);
    CHECK_INT(bidi_mirror('a'), 'a');
    CHECK_INT(text_direction(AR_SAYS, strlen(AR_SAYS)), 1);
    CHECK_INT(text_direction("42 LIME", 7), 0);
    CHECK_INT(text_direction("42 (3)", 6), -1);
}

/* The x of the text command whose text is s, or -1. */
static float cmd_x(const Scene *sc, const char *s)
{
    for (size_t i = 0; i < sc->n_cmds; i++) {
        const SceneCmd *k = &sc->cmds[i];
        if (k->kind == CMD_TEXT && k->text_len == strlen(s) &&
            memcmp(sc->text + k->text_off, s, k->text_len) == 0) {
            return k->r.x;
        }
    }
    return -1;
}

static void test_flow(Fonts *fonts, Font *f)
{
    Scene sc;
    scene_init(&sc);
    SDL_Color ink = {0, 0, 0, 255};
    /* one line, right to left, with a left-to-right run inside */
    const char *p = AR_SAYS " LIME 0.42 " AR_HERE;
    text_para(&sc, f, p, 10, 0, 600, ink, ALIGN_LEFT);
    float says = cmd_x(&sc, AR_SAYS), lime = cmd_x(&sc, "LIME"),
          num = cmd_x(&sc, "0.42"), here = cmd_x(&sc, AR_HERE);
    CHECK(says >= 0 && lime >= 0 && num >= 0 && here >= 0);
    CHECK(here < lime && lime < num && num < says);
    /* an Arabic paragraph starts at the right even in an LTR study */
    float right = 0;
    for (size_t i = 0; i < sc.n_cmds; i++) {
        if (sc.cmds[i].kind == CMD_TEXT) {
            right = fmaxf(right, sc.cmds[i].r.x + sc.cmds[i].r.w);
            /* odd runs are drawn right to left, the others as stored */
            CHECK_INT(sc.cmds[i].dir,
                      sc.cmds[i].r.x == says || sc.cmds[i].r.x == here
                          ? TEXT_RTL
                          : TEXT_LTR);
        }
    }
    CHECK_NEAR(right, 610, 0.5);
    /* "(SHAP)" inside Arabic: the brackets are runs of their own */
    scene_clear(&sc);
    text_para(&sc, f, AR_METHOD " (SHAP) " AR_GOOD, 0, 0, 600, ink, ALIGN_LEFT);
    CHECK(cmd_x(&sc, "SHAP") > cmd_x(&sc, AR_GOOD));
    CHECK(cmd_x(&sc, "SHAP") < cmd_x(&sc, AR_METHOD));
    /* wrapped: broken in logical order, the first words on the first line
    ** at the right */
    scene_clear(&sc);
    const char *longp = AR_SAYS " " AR_HELLO " " AR_YOU " LIME 0.42 " AR_HERE
                                " " AR_GOOD " " AR_METHOD " " AR_VALUE;
    float one = text_para(NULL, f, longp, 0, 0, 5000, ink, ALIGN_LEFT);
    const char *first3 = AR_SAYS " " AR_HELLO " " AR_YOU;
    float w = font_width(f, first3, strlen(first3)) + 40;
    float h = text_para(&sc, f, longp, 0, 0, w, ink, ALIGN_LEFT);
    CHECK(h > one * 1.5f);
    float y_says = -1, y_method = -1;
    for (size_t i = 0; i < sc.n_cmds; i++) {
        const SceneCmd *k = &sc.cmds[i];
        if (k->kind != CMD_TEXT) {
            continue;
        }
        CHECK(k->r.x >= -0.5f && k->r.x + k->r.w <= w + 0.5f);
        if (k->r.x == cmd_x(&sc, AR_SAYS)) {
            y_says = k->r.y;
            CHECK_NEAR(k->r.x + k->r.w, w, 0.5);
        }
        if (k->r.x == cmd_x(&sc, AR_METHOD)) {
            y_method = k->r.y;
        }
    }
    CHECK(y_says >= 0 && y_method > y_says);
    /* ALIGN_LEFT is the start of the paragraph's own direction: English
    ** stays at the left in both studies (item text in an Arabic study), a
    ** paragraph without letters takes the study's direction (the right in
    ** an RTL study), and numbers keep their sign */
    scene_clear(&sc);
    text_para(&sc, f, "Model", 10, 0, 600, ink, ALIGN_LEFT);
    CHECK_NEAR(cmd_x(&sc, "Model"), 10, 0.01);
    fonts_set_rtl(fonts, 1);
    scene_clear(&sc);
    text_para(&sc, f, "Model", 10, 0, 600, ink, ALIGN_LEFT);
    CHECK_NEAR(cmd_x(&sc, "Model"), 10, 0.01);
    scene_clear(&sc);
    text_para(&sc, f, "-0.42", 0, 0, 600, ink, ALIGN_LEFT);
    CHECK_NEAR(cmd_x(&sc, "-0.42") + font_width(f, "-0.42", 5), 600, 0.5);
    fonts_set_rtl(fonts, 0);
    /* measuring equals drawing for a mixed line */
    float mw = font_width(f, p, strlen(p));
    float dw = font_draw(f, fonts->renderer, 0, 0, p, strlen(p), ink);
    CHECK_NEAR(mw, dw, 0.5);
    CHECK(mw > font_width(f, "LIME 0.42", 9));
    scene_free(&sc);
}

/* Bold text that borrows a fallback font uses the family's bold face. */
static void test_bold_fallback(Fonts *fonts)
{
    Font *reg = fonts_get(fonts, FACE_REGULAR, 20);
    Font *bold = fonts_get(fonts, FACE_BOLD, 20);
    CHECK(reg && bold);
    if (!reg || !bold) {
        return;
    }
    const char *zh = "\xe4\xbd\xa0\xe5\xa5\xbd"; /* ni hao */
    font_width(reg, zh, strlen(zh));
    font_width(bold, zh, strlen(zh));
    int seen = 0;
    for (int k = 0; k < FONT_MAX_FALLBACK; k++) {
        if (bold->fallback[k] && reg->fallback[k] &&
            strstr(fonts->fb_paths[k], "NotoSansCJK")) {
            const char *bs = TTF_FontFaceStyleName(bold->fallback[k]);
            const char *rs = TTF_FontFaceStyleName(reg->fallback[k]);
            CHECK(bs && strstr(bs, "Bold"));
            CHECK(rs && !strstr(rs, "Bold"));
            seen = 1;
        }
    }
    if (!seen) {
        fprintf(stderr, "note: no Noto Sans CJK: bold fallback not checked\n");
    }
}

/* A model chip reads label then value: label at the left in an LTR
** study, at the right in an RTL one. */
static void test_pill(Gfx *g, Fonts *fonts)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.gfx = g;
    ui.fonts = fonts;
    ui.font_scale = 1;
    ui_init_theme(&ui);
    ui_update_metrics(&ui);
    RenderCtx rc;
    memset(&rc, 0, sizeof rc);
    rc.ui = &ui;
    Scene sc;
    scene_init(&sc);
    float w = render_pill(&rc, &sc, 0, 0, AR_SAYS, "Bird", 1);
    CHECK(cmd_x(&sc, AR_SAYS) < cmd_x(&sc, "Bird"));
    /* A participant frame of an Arabic study: the strings' direction for
    ** the layout, the same direction for the text (frame.c sets both). */
    int ar = ui_language_find("ar");
    CHECK(ar >= 0);
    UiStrings *strings = ui_strings_new((size_t)ar, "ar");
    CHECK(strings != NULL);
    rc.strings = strings;
    fonts_set_rtl(fonts, 1);
    scene_clear(&sc);
    CHECK_NEAR(render_pill(&rc, &sc, 0, 0, AR_SAYS, "Bird", 1), w, 0.01);
    CHECK(cmd_x(&sc, AR_SAYS) > cmd_x(&sc, "Bird"));
    fonts_set_rtl(fonts, 0);
    ui_strings_free(strings);
    scene_free(&sc);
}

/* Devanagari is shaped left to right: ka + virama + ssa form one conjunct,
** narrower than its three characters set one by one. */
static void test_ltr_shaping(Fonts *fonts, Font *f)
{
    const char *ksa = "\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7";
    float whole = font_width(f, ksa, strlen(ksa));
    float parts = 0;
    for (size_t i = 0; i < strlen(ksa); i += 3) {
        parts += font_width(f, ksa + i, 3);
    }
    int deva = 0;
    for (int k = 0; k < fonts->n_fb; k++) {
        deva |= strstr(fonts->fb_paths[k], "Devanagari") != NULL;
    }
    if (!deva) {
        fprintf(stderr, "note: no Devanagari font: shaping not checked\n");
        return;
    }
    CHECK(whole < parts - 1);
    CHECK_NEAR(font_run_width(f, ksa, strlen(ksa), TEXT_LTR), whole, 0.01);
    /* Latin around it still comes from the atlas, as before */
    CHECK_NEAR(font_width(f, "ab", 2),
               font_width(f, "a", 1) + font_width(f, "b", 1), 3);
}

int main(void)
{
    test_order();
    test_core();
    Gfx g;
    SimError err;
    GfxOptions o = {"test", 1, 640, 480, 0, 0, 1};
    if (gfx_open(&g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    char assets[1024], fdir[1100];
    CHECK_INT(gfx_find_assets(assets, sizeof assets, &err), SIM_OK);
    snprintf(fdir, sizeof fdir, "%s/fonts", assets);
    Fonts fonts;
    CHECK_INT(fonts_init(&fonts, g.renderer, fdir, &err), SIM_OK);
    Font *f = fonts_get(&fonts, FACE_REGULAR, 20);
    CHECK(f != NULL);
    if (f) {
        test_flow(&fonts, f);
        test_bold_fallback(&fonts);
        test_ltr_shaping(&fonts, f);
        test_pill(&g, &fonts);
    }
    fonts_free(&fonts);
    gfx_close(&g);
    return TEST_REPORT();
}
