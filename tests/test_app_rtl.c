/*
** Mirrored participant screens: a study in a right-to-left language (ar)
** lays its screens out from the right -- the title right of the progress,
** class button 1 and likert point 1 rightmost, Continue at the left (the
** end side), key caps right of their labels, radio circles right of their
** options, narrow fields at the right, table names right of values --
** while the same views in English keep the left-to-right layout. Scenes
** are built without a window (SDL's dummy video driver).
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"

#include <math.h>
#include <string.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/render.h"
#include "app/scene.h"
#include "app/screens.h"
#include "common/sim_alloc.h"

typedef struct Env {
    Gfx g;
    Fonts fonts;
    Ui ui;
    Assets assets;
} Env;

static int env_open(Env *e)
{
    SimError err;
    GfxOptions o = {"test", 1, 1280, 720, 0, 0, 1};
    if (gfx_open(&e->g, &o, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    char assets[1024], fdir[1100];
    if (gfx_find_assets(assets, sizeof assets, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        gfx_close(&e->g);
        return -1;
    }
    snprintf(fdir, sizeof fdir, "%s/fonts", assets);
    if (fonts_init(&e->fonts, e->g.renderer, fdir, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        gfx_close(&e->g);
        return -1;
    }
    memset(&e->ui, 0, sizeof e->ui);
    e->ui.gfx = &e->g;
    e->ui.fonts = &e->fonts;
    e->ui.font_scale = 1;
    ui_init_theme(&e->ui);
    ui_update_metrics(&e->ui);
    assets_init(&e->assets, e->g.renderer);
    return 0;
}

static void env_close(Env *e)
{
    assets_free(&e->assets);
    fonts_free(&e->fonts);
    gfx_close(&e->g);
}

/* The region of action (and value), or a zero rect. */
static SDL_FRect hit(const Scene *sc, int action, int value)
{
    int i = scene_find_hit(sc, action, value);
    CHECK(i >= 0);
    return i >= 0 ? sc->hits[i].r : (SDL_FRect){0, 0, 0, 0};
}

/* The first text command reading exactly text, or NULL. */
static const SceneCmd *text_cmd(const Scene *sc, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i < sc->n_cmds; i++) {
        const SceneCmd *k = &sc->cmds[i];
        if (k->kind == CMD_TEXT && k->text_len == n &&
            memcmp(sc->text + k->text_off, text, n) == 0) {
            return k;
        }
    }
    fprintf(stderr, "no text '%s' in the scene\n", text);
    CHECK(0);
    return NULL;
}

/* The first command of kind inside hit region h, or NULL. */
static const SceneCmd *cmd_in(const Scene *sc, int kind, int h)
{
    for (size_t i = 0; i < sc->n_cmds; i++) {
        if (sc->cmds[i].kind == kind && sc->cmds[i].hit == h) {
            return &sc->cmds[i];
        }
    }
    CHECK(0);
    return NULL;
}

/* The study model's strings are char * (the loader owns them); these
** fixtures point them at literals they never write. */
#define S(lit) ((char *)(lit))

static float mid_x(SDL_FRect r)
{
    return r.x + r.w / 2;
}

static StudyClass classes[] = {{S("pos"), S("Positive"), S("f")},
                               {S("neg"), S("Negative"), S("j")},
                               {S("neu"), S("Neutral"), S("k")}};

/* A predict screen: header with progress, a tabular item, three class
** buttons, a 5-point confidence scale and Continue. */
static void predict_view(SessionView *v, Item *it, Feature *fs)
{
    static RatingSpec conf = {NULL, 5, S("unsure"), S("sure")};
    memset(v, 0, sizeof *v);
    memset(it, 0, sizeof *it);
    fs[0] = (Feature){S("Age"), S("39")};
    fs[1] = (Feature){S("Hours per week"), S("40")};
    it->input.modality = MODALITY_TABULAR;
    it->input.features = fs;
    it->input.n_features = 2;
    it->label = 0;
    it->prediction = 1;
    v->screen = SCREEN_PREDICT;
    v->title = "Predict the model";
    v->item = it;
    v->classes = classes;
    v->n_classes = 3;
    v->choice = 0;
    v->need_choice = 1;
    v->need_continue = 1;
    v->confidence_spec = &conf;
    v->need_confidence = 1;
    v->confidence = 3; /* Continue is enabled */
    v->onset_marked = 1;
    v->progress_total = 10;
    v->progress_done = 4;
}

/* Builds v in language tag (NULL: no table) into sc. */
static void build(Env *e, Scene *sc, const SessionView *v, const char *tag)
{
    UiStrings *t = NULL;
    if (tag) {
        int lang = ui_language_find(tag);
        CHECK(lang >= 0);
        t = ui_strings_new((size_t)lang, tag);
        CHECK(t != NULL);
    }
    SessionView vv = *v;
    vv.continue_ready = session_continue_ready(&vv);
    ScreenCtx sx = {&e->ui, &e->assets, &vv, 0, NULL, t, NULL, NULL, NULL};
    screen_build(sc, &sx);
    ui_strings_free(t);
}

static void test_predict(Env *e)
{
    SessionView v;
    Item it;
    Feature fs[2];
    predict_view(&v, &it, fs);
    Scene sc;
    scene_init(&sc);
    const char *tags[] = {NULL, "en", "ar"};
    for (int k = 0; k < 3; k++) {
        int rtl = k == 2;
        build(e, &sc, &v, tags[k]);
        SDL_FRect c1 = hit(&sc, ACT_CHOOSE, 0), c2 = hit(&sc, ACT_CHOOSE, 1),
                  c3 = hit(&sc, ACT_CHOOSE, 2);
        SDL_FRect cont = hit(&sc, ACT_CONTINUE, -1);
        SDL_FRect p1 = hit(&sc, ACT_CONFIDENCE, 1),
                  p5 = hit(&sc, ACT_CONFIDENCE, 5);
        /* Class buttons run from the start side: 1 rightmost in ar. */
        CHECK(rtl ? c1.x > c2.x && c2.x > c3.x : c1.x < c2.x && c2.x < c3.x);
        /* Likert point 1 at the start side. */
        CHECK(rtl ? p1.x > p5.x : p1.x < p5.x);
        /* Continue at the end side: left of the class buttons in ar. */
        CHECK(rtl ? cont.x + cont.w <= c3.x + 1 : cont.x + cont.w > c3.x);
        CHECK(rtl ? cont.x < e->ui.u * 20 : cont.x > (float)e->g.w / 2);
        /* The buttons and scale stay centred: mirroring keeps the sizes. */
        CHECK(c1.w == c2.w && c2.w == c3.w);
        /* The key cap beside its label, on the mirrored side. */
        int h0 = scene_find_hit(&sc, ACT_CHOOSE, 0);
        const SceneCmd *label = text_cmd(&sc, "Positive");
        const SceneCmd *cap = text_cmd(&sc, "F");
        CHECK(label && cap && label->hit == h0 && cap->hit == h0);
        if (label && cap) {
            CHECK(rtl ? cap->r.x > label->r.x : cap->r.x < label->r.x);
        }
        /* Header: title at the start side, progress at the end side. */
        const SceneCmd *title = text_cmd(&sc, "Predict the model");
        const SceneCmd *prog = k < 2 ? text_cmd(&sc, "5 of 10") : NULL;
        if (k == 2) {
            /* the shipped Arabic progress text */
            char want[64];
            UiStrings *t = ui_strings_new((size_t)ui_language_find("ar"), "ar");
            snprintf(want, sizeof want, ui_fmt(t, UI_PROGRESS, "%d of %d"), 5,
                     10);
            ui_strings_free(t);
            prog = NULL;
            for (size_t i = 0; i < sc.n_cmds && !prog; i++) {
                const SceneCmd *c = &sc.cmds[i];
                if (c->kind == CMD_TEXT && c->text_len == strlen(want) &&
                    memcmp(sc.text + c->text_off, want, c->text_len) == 0) {
                    prog = c;
                }
            }
            CHECK(prog != NULL);
        }
        if (title && prog) {
            CHECK(rtl ? title->r.x > prog->r.x : title->r.x < prog->r.x);
            CHECK(rtl ? title->r.x + title->r.w > (float)e->g.w * 0.8f
                      : title->r.x < (float)e->g.w * 0.2f);
        }
        /* The item's table: the names column at the start side. */
        const SceneCmd *name = text_cmd(&sc, "Age");
        const SceneCmd *val = text_cmd(&sc, "39");
        if (name && val) {
            CHECK(rtl ? name->r.x > val->r.x : name->r.x < val->r.x);
        }
    }
    scene_free(&sc);
}

static void test_rating_row(Env *e)
{
    /* A rating screen wide enough for Continue beside the scale. */
    SessionView v;
    Item it;
    Feature fs[2];
    predict_view(&v, &it, fs);
    /* the lab's own labels (the format's defaults would be translated) */
    static RatingSpec rs = {S("How useful?"), 7, S("Useless"),
                            S("Very useful")};
    v.screen = SCREEN_RATING;
    v.need_choice = 0;
    v.confidence_spec = NULL;
    v.need_rating = 1;
    v.rating_spec = &rs;
    v.rating = 2;
    Scene sc;
    scene_init(&sc);
    for (int rtl = 0; rtl <= 1; rtl++) {
        build(e, &sc, &v, rtl ? "ar" : "en");
        SDL_FRect p1 = hit(&sc, ACT_RATE, 1), p7 = hit(&sc, ACT_RATE, 7);
        SDL_FRect cont = hit(&sc, ACT_CONTINUE, -1);
        CHECK(rtl ? p1.x > p7.x : p1.x < p7.x);
        CHECK(rtl ? cont.x < p7.x : cont.x > p7.x);
        /* low label beside point 1, high beside point 7 */
        const SceneCmd *lo = text_cmd(&sc, "Useless");
        const SceneCmd *hi = text_cmd(&sc, "Very useful");
        if (lo && hi) {
            CHECK(rtl ? lo->r.x > p1.x && hi->r.x + hi->r.w <= p7.x
                      : lo->r.x + lo->r.w <= p1.x && hi->r.x >= p7.x + p7.w);
        }
    }
    scene_free(&sc);
}

/* An example with an explanation: the input card at the start side, the
** explanation beside it; the chips' label before its value; feature bars
** with their names at the start side and the axis kept. */
static void test_example_cards(Env *e)
{
    SessionView v;
    Item it;
    Feature fs[2];
    predict_view(&v, &it, fs);
    static ExplFeature ef[] = {{S("Wealth"), NULL, 0.8, NULL},
                               {S("Height"), NULL, -0.5, NULL}};
    Explanation ex;
    memset(&ex, 0, sizeof ex);
    ex.kind = EXPL_FEATURES;
    ex.features = ef;
    ex.n_features = 2;
    ex.intercept = NAN;
    ex.sum = NAN;
    ex.output = NAN;
    v.screen = SCREEN_EXAMPLE;
    v.explanation = &ex;
    v.need_choice = 0;
    v.confidence_spec = NULL;
    v.show_prediction = 1;
    Scene sc;
    scene_init(&sc);
    for (int rtl = 0; rtl <= 1; rtl++) {
        const char *tag = rtl ? "ar" : "en";
        UiStrings *t = ui_strings_new((size_t)ui_language_find(tag), tag);
        build(e, &sc, &v, tag);
        const SceneCmd *age = text_cmd(&sc, "Age");
        const SceneCmd *wealth = text_cmd(&sc, "Wealth");
        if (age && wealth) {
            /* the input card's table beside the explanation's chart */
            CHECK(rtl ? age->r.x > wealth->r.x + wealth->r.w
                      : age->r.x + age->r.w < wealth->r.x);
        }
        /* "Model output" then its value, from the start side */
        const SceneCmd *lab = text_cmd(&sc, ui_str(t, UI_ITEM_MODEL_OUTPUT));
        const SceneCmd *val = text_cmd(&sc, "Negative");
        if (lab && val) {
            CHECK(rtl ? lab->r.x > val->r.x : lab->r.x < val->r.x);
        }
        /* bars: the positive one right of the negative one either way;
        ** the names beyond the bars at the start side */
        const SceneCmd *pos = text_cmd(&sc, "+0.80");
        const SceneCmd *neg = text_cmd(&sc, "\xE2\x88\x92"
                                            "0.50");
        if (pos && neg && wealth) {
            CHECK(pos->r.x > neg->r.x);
            CHECK(rtl ? wealth->r.x > pos->r.x : wealth->r.x < neg->r.x);
        }
        ui_strings_free(t);
    }
    scene_free(&sc);
}

static void test_questionnaire(Env *e)
{
    static char *opts[] = {S("Nothing"), S("Some"), S("Much")};
    static SurveyQuestion survey[] = {
        {.id = S("ml"),
         .type = QTYPE_CHOICE,
         .text = S("How much do you know?"),
         .required = 1,
         .options = opts,
         .n_options = 3},
        {.id = S("trust"),
         .type = QTYPE_LIKERT,
         .text = S("I trust it."),
         .required = 1,
         .points = 5,
         .low = S("No"),
         .high = S("Yes")},
        {.id = S("age"),
         .type = QTYPE_NUMBER,
         .text = S("Age"),
         .required = 1,
         .min = 18,
         .max = 99},
    };
    static Block block = {.kind = BLOCK_QUESTIONNAIRE,
                          .id = S("q"),
                          .title = S("About you"),
                          .survey = survey,
                          .n_survey = 3};
    static const char *answers[] = {"Some", "", "42"};
    SessionView v;
    memset(&v, 0, sizeof v);
    v.screen = SCREEN_QUESTIONNAIRE;
    v.block = &block;
    v.title = block.title;
    v.answers = answers;
    v.focus = -1;
    v.need_continue = 1;
    v.onset_marked = 1;
    Scene sc;
    scene_init(&sc);
    for (int rtl = 0; rtl <= 1; rtl++) {
        build(e, &sc, &v, rtl ? "ar" : "en");
        for (int k = 0; k < 3; k++) {
            int h = scene_find_hit(&sc, ACT_PICK, k);
            CHECK(h >= 0);
            if (h < 0) {
                continue;
            }
            const SceneCmd *circle = cmd_in(&sc, CMD_CIRCLE, h);
            const SceneCmd *label = text_cmd(&sc, opts[k]);
            if (circle && label) {
                /* the circle before its label: right of it in ar */
                CHECK(rtl ? circle->r.x > label->r.x + label->r.w
                          : circle->r.x < label->r.x);
            }
        }
        SDL_FRect l1 = hit(&sc, ACT_PICK, 256 + 1),
                  l5 = hit(&sc, ACT_PICK, 256 + 5);
        CHECK(rtl ? l1.x > l5.x : l1.x < l5.x);
        /* the narrow number field at the start side */
        SDL_FRect f = hit(&sc, ACT_FIELD, 2);
        SDL_FRect row = hit(&sc, ACT_PICK, 0);
        CHECK(rtl ? f.x + f.w > row.x + row.w - 2 : f.x < row.x + 2);
        CHECK(f.w < row.w / 2);
        const SceneCmd *num = text_cmd(&sc, "42");
        if (num) {
            CHECK(rtl ? num->r.x > mid_x(f) : num->r.x < mid_x(f));
        }
        SDL_FRect cont = hit(&sc, ACT_CONTINUE, -1);
        CHECK(rtl ? cont.x < (float)e->g.w / 2 : cont.x > (float)e->g.w / 2);
    }
    /* a number question's range in the study's number format (words are
    ** drawn one by one) */
    survey[2].min = -0.5;
    survey[2].max = 2.25;
    build(e, &sc, &v, "de");
    const SceneCmd *lo = text_cmd(&sc, "\xE2\x88\x92"
                                       "0,5"),
                   *hi = text_cmd(&sc, "2,25");
    CHECK(lo && hi && lo->r.x < hi->r.x);
    survey[2].min = 18;
    survey[2].max = 99;
    scene_free(&sc);
}

/* The helpers themselves: the one switch is the table's language. */
static void test_helpers(Env *e)
{
    UiStrings *ar = ui_strings_new((size_t)ui_language_find("ar"), "ar");
    UiStrings *de = ui_strings_new((size_t)ui_language_find("de"), "de");
    RenderCtx rc = {
        .ui = &e->ui, .assets = &e->assets, .max_image_h = 200, .strings = de};
    CHECK_INT(render_rtl(&rc), 0);
    CHECK_NEAR(render_mx(&rc, 100, 500, 120, 30), 120, 0);
    CHECK_INT(render_align(&rc, ALIGN_LEFT), ALIGN_LEFT);
    rc.strings = ar;
    CHECK_INT(render_rtl(&rc), 1);
    CHECK_NEAR(render_mx(&rc, 100, 500, 120, 30), 100 + 500 - 20 - 30, 0);
    CHECK_INT(render_align(&rc, ALIGN_LEFT), ALIGN_RIGHT);
    CHECK_INT(render_align(&rc, ALIGN_RIGHT), ALIGN_LEFT);
    CHECK_INT(render_align(&rc, ALIGN_CENTER), ALIGN_CENTER);
    rc.strings = NULL;
    CHECK_INT(render_rtl(&rc), 0);
    /* The edit arrow (the screen model's) follows the line's direction. */
    CHECK_STR(screen_arrow("40", NULL, render_rtl(&rc)), "\xE2\x86\x92");
    CHECK_STR(screen_arrow("Age: 40", NULL, render_rtl(&rc)), "\xE2\x86\x92");
    const char *arabic = "\xD8\xB9\xD9\x85\xD8\xB1: 40"; /* "عمر: 40" */
    CHECK_STR(screen_arrow(arabic, NULL, render_rtl(&rc)), "\xE2\x86\x90");
    /* digits and punctuation first do not decide; Hebrew runs right to
    ** left, accented Latin left to right; nothing strong: left to right */
    const char *later = "12 \xE2\x80\x93 \xD8\xB9\xD9\x85\xD8\xB1";
    CHECK_STR(screen_arrow(later, NULL, render_rtl(&rc)), "\xE2\x86\x90");
    CHECK_STR(screen_arrow("\xD7\x92\xD7\x99\xD7\x9C", NULL, render_rtl(&rc)),
              "\xE2\x86\x90");
    CHECK_STR(screen_arrow("\xC3\xA9t\xC3\xA9 \xD8\xB9", NULL, render_rtl(&rc)),
              "\xE2\x86\x92");
    CHECK_STR(screen_arrow("12 - 3", NULL, render_rtl(&rc)), "\xE2\x86\x92");
    CHECK_STR(screen_arrow("", NULL, render_rtl(&rc)), "\xE2\x86\x92");
    /* A from without letters: the value after the arrow decides, else
    ** the study's direction, as the wrapper orders such a line ("40 -> 50"
    ** in an Arabic study is drawn "50 <- 40" from the right). */
    CHECK_STR(screen_arrow("40", arabic, render_rtl(&rc)), "\xE2\x86\x90");
    CHECK_STR(screen_arrow("40", "50", render_rtl(&rc)), "\xE2\x86\x92");
    rc.strings = ar;
    CHECK_STR(screen_arrow("40", "50", render_rtl(&rc)), "\xE2\x86\x90");
    CHECK_STR(screen_arrow("12 - 3", NULL, render_rtl(&rc)), "\xE2\x86\x90");
    CHECK_STR(screen_arrow("Age: 40", NULL, render_rtl(&rc)), "\xE2\x86\x92");
    CHECK_STR(screen_arrow("40", "Bird", render_rtl(&rc)), "\xE2\x86\x92");
    ui_strings_free(ar);
    ui_strings_free(de);
}

int main(void)
{
    Env e;
    if (env_open(&e) != 0) {
        return 1;
    }
    test_helpers(&e);
    test_predict(&e);
    test_rating_row(&e);
    test_example_cards(&e);
    test_questionnaire(&e);
    env_close(&e);
    return TEST_REPORT();
}
