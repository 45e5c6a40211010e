/*
** simlab-preview: renders hand-built session views with fake items (every
** screen and explanation kind) and writes one PNG per screen, so the look
** can be judged without a study bundle or a database.
**   simlab-preview OUTDIR [WIDTHxHEIGHT] [--font-scale F] [--language TAG]
** --language draws the runner's strings in a shipped language ("de").
*/
#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/render.h"
#include "app/scene.h"
#include "app/screens.h"
#include "common/sim_alloc.h"
#include "stimuli/page.h"

/* The study model's strings are mutable (study loading owns them); the fake
** study gives them mutable storage: a char array initialised by lit. */
#define MUT(lit) ((char[]){lit})

static StudyClass CLASSES[2] = {{MUT("pos"), MUT("Positive"), MUT("f")},
                                {MUT("neg"), MUT("Negative"), MUT("j")}};
static StudyClass IMG_CLASSES[2] = {{MUT("husky"), MUT("Husky"), MUT("f")},
                                    {MUT("wolf"), MUT("Wolf"), MUT("j")}};

/* A synthetic photo-like image and a matching attribution map. */
static void make_media(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/media", dir);
    mkdir(path, 0755);
    for (int k = 0; k < 6; k++) {
        int W = 320, H = 240;
        SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(
            0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
        float cx = (float)W * (0.35f + 0.06f * (float)k), cy = (float)H * 0.5f;
        for (int y = 0; y < H; y++) {
            uint32_t *row = (uint32_t *)((uint8_t *)s->pixels + y * s->pitch);
            for (int x = 0; x < W; x++) {
                float sky = (float)y / (float)H;
                int r = (int)(120 + 80 * sky), g = (int)(150 + 60 * sky),
                    b = (int)(190 - 60 * sky);
                if (y > H * 0.7) {
                    r = 200, g = 205, b = 215; /* snow */
                }
                float dx = ((float)x - cx) / 60.f, dy = ((float)y - cy) / 45.f;
                if (dx * dx + dy * dy < 1) {
                    r = 90 + k * 10, g = 85, b = 80;
                }
                float hx = ((float)x - cx - 55) / 25.f,
                      hy = ((float)y - cy + 30) / 22.f;
                if (hx * hx + hy * hy < 1) {
                    r = 70, g = 65, b = 62;
                }
                row[x] = 0xFF000000u | (uint32_t)r << 16 | (uint32_t)g << 8 |
                         (uint32_t)b;
            }
        }
        snprintf(path, sizeof path, "%s/media/img%d.png", dir, k);
        IMG_SavePNG(s, path);
        SDL_FreeSurface(s);
        /* .npy heatmap 60x80, focusing on the snow and the head. */
        snprintf(path, sizeof path, "%s/media/map%d.npy", dir, k);
        FILE *f = fopen(path, "wb");
        if (f) {
            char hdr[128];
            int n = snprintf(hdr, sizeof hdr,
                             "{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (60, 80), }");
            int total = 10 + n + 1;
            int padn = (64 - total % 64) % 64;
            unsigned short hl = (unsigned short)(n + padn + 1);
            fwrite("\x93NUMPY\x01\x00", 1, 8, f);
            fwrite(&hl, 2, 1, f);
            fwrite(hdr, 1, (size_t)n, f);
            for (int i = 0; i < padn; i++) {
                fputc(' ', f);
            }
            fputc('\n', f);
            for (int y = 0; y < 60; y++) {
                for (int x = 0; x < 80; x++) {
                    float fx = (float)x / 80 * W, fy = (float)y / 60 * H;
                    float d1 = ((fx - cx - 55) * (fx - cx - 55) +
                                (fy - cy + 30) * (fy - cy + 30)) /
                               1500.f;
                    float v = expf(-d1) + (fy > H * 0.7f ? 0.6f : 0.0f) *
                                              (0.5f + 0.5f * sinf(fx / 20));
                    fwrite(&v, 4, 1, f);
                }
            }
            fclose(f);
        }
    }
    snprintf(path, sizeof path, "%s/media/figure.png", dir);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 480, 180, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    SDL_FillRect(s, NULL, 0xFFE8EEF6);
    SDL_Rect r1 = {40, 40, 160, 100}, r2 = {280, 40, 160, 100};
    SDL_FillRect(s, &r1, 0xFF1F5FAD);
    SDL_FillRect(s, &r2, 0xFFE08214);
    IMG_SavePNG(s, path);
    SDL_FreeSurface(s);
}

static Feature ADULT[] = {
    {MUT("Age"), MUT("37.00 < Age <= 48.00")},
    {MUT("Workclass"), MUT("Private")},
    {MUT("Education"), MUT("Masters")},
    {MUT("Marital Status"), MUT("Never-Married")},
    {MUT("Occupation"), MUT("White-Collar")},
    {MUT("Relationship"), MUT("Not-in-family")},
    {MUT("Race"), MUT("White")},
    {MUT("Sex"), MUT("Female")},
    {MUT("Capital Gain"), MUT("High gains")},
    {MUT("Capital Loss"), MUT("No losses")},
    {MUT("Hours per week"), MUT("Hours per week > 45.00")},
    {MUT("Country"), MUT("United-States")},
};
static Feature ADULT_CF[12];
static Edit ADULT_EDITS[] = {
    {MUT("Capital Gain"), MUT("High gains"), MUT("No gains"), 0, 0, 0},
    {MUT("Hours per week"), MUT("Hours per week > 45.00"),
     MUT("Hours per week <= 40.00"), 0, 0, 0},
};

static char LIME_TEXT[] =
    "Features: \ndecent  |  0.10 \ntheir  |  0.08 \nreputations  |  -0.11 \n"
    "some  |  -0.13 \ndamage  |  -0.16 \nBaseline evidence: 0.33 \nSum of "
    "weights: -0.23 \nTotal evidence: 0.09";

static const char *CONSENT =
    "# Consent to take part\n\nThis study looks at how people learn to "
    "predict what a **computer model** will answer. It takes about 15 "
    "minutes.\n\n- Your answers are stored under a code, never with your "
    "name.\n- You may stop at any time without giving a reason; tell the "
    "experimenter.\n- Taking part has no risks beyond those of everyday "
    "computer work.\n\nIf you agree to take part, choose **I agree**.";

static const char *INSTR =
    "# How the study works\n\nYou will see movie-review sentences together "
    "with the answer of a model that tries to tell **positive** from "
    "**negative** reviews. The model is sometimes wrong.\n\n![Left: what the "
    "model saw. Right: its answer.](media/figure.png)\n\nLater you will "
    "predict the model's answer yourself. Press the key shown on each button "
    "(F or J) or click it.\n\n## Tips\n\n1. Answer as well as you can; there "
    "is no time limit.\n2. Watch for words the model seems to rely on.";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: simlab-preview OUTDIR [WxH] [--font-scale F] "
                        "[--language TAG]\n");
        return 2;
    }
    const char *out = argv[1];
    int W = 1280, H = 720;
    float fscale = 1;
    UiStrings *strings = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--font-scale") == 0 && i + 1 < argc) {
            fscale = (float)atof(argv[++i]);
        } else if (strcmp(argv[i], "--language") == 0 && i + 1 < argc) {
            int lang = ui_language_find(argv[++i]);
            if (lang < 0) {
                fprintf(stderr, "no shipped language %s\n", argv[i]);
                return 2;
            }
            ui_strings_free(strings);
            strings = ui_strings_new((size_t)lang, argv[i]);
        } else if (sscanf(argv[i], "%dx%d", &W, &H) != 2) {
            fprintf(stderr, "bad argument %s\n", argv[i]);
            return 2;
        }
    }
    mkdir(out, 0755);
    SimError err;
    Gfx g;
    GfxOptions go = {"simlab preview", 1, W, H, 0, 0, 0};
    if (gfx_open(&g, &go, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    make_media(out);
    char assets_dir[1024];
    if (gfx_find_assets(assets_dir, sizeof assets_dir, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    char font_dir[1100];
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets_dir);
    Fonts fonts;
    if (fonts_init(&fonts, g.renderer, font_dir, &err) != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (strings) {
        fonts_set_language(&fonts, ui_strings_language(strings));
    }
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.gfx = &g;
    ui.fonts = &fonts;
    ui.font_scale = fscale;
    ui_init_theme(&ui);
    ui_update_metrics(&ui);
    Assets assets;
    assets_init(&assets, g.renderer);

    /* ---- items ---- */
    Item text_item;
    memset(&text_item, 0, sizeof text_item);
    text_item.key = MUT("test:554");
    text_item.input.modality = MODALITY_TEXT;
    text_item.input.text =
        MUT("some decent actors inflict big damage upon their "
            "reputations .");
    text_item.label = 1;
    text_item.prediction = 1;
    Counterfactual tcf;
    memset(&tcf, 0, sizeof tcf);
    tcf.input.modality = MODALITY_TEXT;
    tcf.input.text = MUT("some decent actors inflict little damage upon their "
                         "reputations .");
    Edit tedit = {NULL, MUT("big"), MUT("little"), 27, 33, 0};
    tcf.edits = &tedit;
    tcf.n_edits = 1;
    tcf.prediction = 0;
    text_item.cf = &tcf;

    Item tab_item;
    memset(&tab_item, 0, sizeof tab_item);
    tab_item.input.modality = MODALITY_TABULAR;
    tab_item.input.features = ADULT;
    tab_item.input.n_features = 12;
    tab_item.label = 0;
    tab_item.prediction = 0;
    memcpy(ADULT_CF, ADULT, sizeof ADULT);
    ADULT_CF[8].value = MUT("No gains");
    ADULT_CF[10].value = MUT("Hours per week <= 40.00");
    Counterfactual acf;
    memset(&acf, 0, sizeof acf);
    acf.input.modality = MODALITY_TABULAR;
    acf.input.features = ADULT_CF;
    acf.input.n_features = 12;
    acf.edits = ADULT_EDITS;
    acf.n_edits = 2;
    acf.prediction = 1;
    tab_item.cf = &acf;

    static char cividis[] = "cividis", viridis[] = "viridis";
    Item img_items[6];
    char img_paths[6][64], img_files[6][1100];
    Explanation img_expl[6];
    char map_paths[6][64], map_files[6][1100];
    for (int k = 0; k < 6; k++) {
        memset(&img_items[k], 0, sizeof img_items[k]);
        snprintf(img_paths[k], sizeof img_paths[k], "media/img%d.png", k);
        snprintf(map_paths[k], sizeof map_paths[k], "media/map%d.npy", k);
        /* what study loading would resolve: absolute paths */
        snprintf(img_files[k], sizeof img_files[k], "%s/%s", out, img_paths[k]);
        snprintf(map_files[k], sizeof map_files[k], "%s/%s", out, map_paths[k]);
        img_items[k].input.image_file = img_files[k];
        img_items[k].input.modality = MODALITY_IMAGE;
        img_items[k].input.text = img_paths[k];
        img_items[k].label = k % 2;
        img_items[k].prediction = (k / 2) % 2;
        memset(&img_expl[k], 0, sizeof img_expl[k]);
        img_expl[k].kind = EXPL_HEATMAP;
        img_expl[k].file = map_paths[k];
        img_expl[k].map_file = map_files[k];
        img_expl[k].file_is_npy = 1;
        img_expl[k].colormap = k == 1 ? cividis : viridis;
        img_expl[k].opacity = 0.55;
    }

    Item pair_item;
    memset(&pair_item, 0, sizeof pair_item);
    pair_item.input.modality = MODALITY_TEXT_PAIR;
    pair_item.input.text = MUT("A man is sleeping on a bench in the park.");
    pair_item.input.text_b = MUT("A person is resting outside.");
    pair_item.input.title_a = MUT("Premise");
    pair_item.input.title_b = MUT("Hypothesis");
    pair_item.label = 0;
    pair_item.prediction = 0;
    StudyClass NLI[3] = {{MUT("entail"), MUT("Entailment"), MUT("1")},
                         {MUT("neutral"), MUT("Neutral"), MUT("2")},
                         {MUT("contra"), MUT("Contradiction"), MUT("3")}};

    /* ---- explanations ---- */
    ExplToken toks[] = {
        {MUT("some"), -0.13, 0},        {MUT("decent"), 0.10, 0},
        {MUT("actors"), 0.01, 0},       {MUT("inflict"), -0.04, 0},
        {MUT("big"), 0.02, 0},          {MUT("damage"), -0.16, 0},
        {MUT("upon"), 0.0, 0},          {MUT("their"), 0.08, 0},
        {MUT("reputations"), -0.11, 0}, {MUT("."), 0, 0}};
    Explanation e_tokens;
    memset(&e_tokens, 0, sizeof e_tokens);
    e_tokens.kind = EXPL_TOKENS;
    e_tokens.tokens = toks;
    e_tokens.n_tokens = sizeof toks / sizeof toks[0];

    ExplToken ptoks[] = {{MUT("A"), 0, 0},         {MUT("man"), 0.3, 0},
                         {MUT("is"), 0, 0},        {MUT("sleeping"), 0.5, 0},
                         {MUT("on"), 0, 0},        {MUT("a"), 0, 0},
                         {MUT("bench"), 0.1, 0},   {MUT("in"), 0, 0},
                         {MUT("the"), 0, 0},       {MUT("park"), 0.2, 0},
                         {MUT("."), 0, 0},         {MUT("A"), 0, 1},
                         {MUT("person"), 0.3, 1},  {MUT("is"), 0, 1},
                         {MUT("resting"), 0.4, 1}, {MUT("outside"), 0.15, 1},
                         {MUT("."), 0, 1}};
    ExplPair pairs[] = {{1, 2, 12, 13, 0.8},
                        {3, 4, 14, 15, 0.9},
                        {9, 10, 15, 16, 0.45},
                        {6, 7, 15, 16, -0.2}};
    Explanation e_tpairs;
    memset(&e_tpairs, 0, sizeof e_tpairs);
    e_tpairs.kind = EXPL_TOKEN_PAIRS;
    e_tpairs.tokens = ptoks;
    e_tpairs.n_tokens = sizeof ptoks / sizeof ptoks[0];
    e_tpairs.pairs = pairs;
    e_tpairs.n_pairs = 4;
    ExplPair spairs[] = {{1, 4, 12, 15, 0.85}, {6, 10, 15, 16, 0.5}};
    Explanation e_spairs = e_tpairs;
    e_spairs.kind = EXPL_SPAN_PAIRS;
    e_spairs.pairs = spairs;
    e_spairs.n_pairs = 2;

    ExplFeature lime[] = {
        {MUT("Education"), MUT("High School grad"), -0.17, NULL},
        {MUT("Sex"), MUT("Female"), -0.20, NULL},
        {MUT("Hours per week"), MUT("<= 40.00"), -0.20, NULL},
        {MUT("Relationship"), MUT("Not-in-family"), -0.24, NULL},
        {MUT("Capital Gain"), MUT("High gains"), 0.61, NULL}};
    Explanation e_feat;
    memset(&e_feat, 0, sizeof e_feat);
    e_feat.kind = EXPL_FEATURES;
    e_feat.features = lime;
    e_feat.n_features = 5;
    e_feat.intercept = 1.09;
    e_feat.sum = -0.20;
    e_feat.output = 0.89;

    char *c1[] = {MUT("Education = High School grad"),
                  MUT("Marital Status = Separated"),
                  MUT("Occupation = Service"), MUT("Sex = Female")};
    ExplRule rule = {c1, 4, 0.97, 0.12};
    Explanation e_rules;
    memset(&e_rules, 0, sizeof e_rules);
    e_rules.kind = EXPL_RULES;
    e_rules.rules = &rule;
    e_rules.n_rules = 1;
    e_rules.predicted = 1;

    ExplFeature prow[12];
    char *proto_vals[12] = {MUT("Age > 48.00"),
                            MUT("Federal-gov"),
                            MUT("High School grad"),
                            MUT("Married"),
                            MUT("Other"),
                            MUT("Husband"),
                            MUT("White"),
                            MUT("Male"),
                            MUT("No gains"),
                            MUT("No losses"),
                            MUT("Hours per week <= 40.00"),
                            MUT("Euro_1")};
    for (int i = 0; i < 12; i++) {
        prow[i] =
            (ExplFeature){ADULT[i].name, ADULT[i].value, 0, proto_vals[i]};
    }
    ExplFeature imp[] = {{MUT("Capital Gain"), MUT("High gains"), 2.25, NULL}};
    Explanation e_proto;
    memset(&e_proto, 0, sizeof e_proto);
    e_proto.kind = EXPL_PROTOTYPE;
    e_proto.prototype_label = MUT("above $50K");
    e_proto.prototype_evidence = 10.0;
    e_proto.rows = prow;
    e_proto.n_rows = 12;
    e_proto.features = imp;
    e_proto.n_features = 1;
    e_proto.predicted = 0;

    Edit s1[] = {{MUT("Marital Status"), MUT("Never-Married"), MUT("Separated"),
                  0, 0, 0}};
    Edit s2[] = {{MUT("Marital Status"), MUT("Never-Married"), MUT("Separated"),
                  0, 0, 0},
                 {MUT("Hours per week"), MUT("Hours per week > 45.00"),
                  MUT("Hours per week <= 40.00"), 0, 0, 0}};
    Edit s3[] = {
        {MUT("Marital Status"), MUT("Never-Married"), MUT("Separated"), 0, 0,
         0},
        {MUT("Capital Gain"), MUT("High gains"), MUT("No gains"), 0, 0, 0},
        {MUT("Hours per week"), MUT("Hours per week > 45.00"),
         MUT("Hours per week <= 40.00"), 0, 0, 0}};
    ExplStep steps[] = {{8.45, s1, 1}, {9.76, s2, 2}, {-0.19, s3, 3}};
    Explanation e_path;
    memset(&e_path, 0, sizeof e_path);
    e_path.kind = EXPL_PATH;
    e_path.start_margin = 7.98;
    e_path.steps = steps;
    e_path.n_steps = 3;
    e_path.predicted = 1;

    Explanation e_text;
    memset(&e_text, 0, sizeof e_text);
    e_text.kind = EXPL_TEXT;
    e_text.text = LIME_TEXT;

    Explanation parts[2] = {e_feat, e_rules};
    parts[0].title = MUT("LIME");
    parts[1].title = MUT("Anchor");
    Explanation e_comp;
    memset(&e_comp, 0, sizeof e_comp);
    e_comp.kind = EXPL_COMPOSITE;
    e_comp.parts = parts;
    e_comp.n_parts = 2;

    Explanation e_side = img_expl[0];
    e_side.side_by_side = 1;
    e_side.colormap = MUT("magma");

    RatingSpec rs = {MUT("Does this explanation show me why the system thought "
                         "what it did?"),
                     7, MUT("Not at all"), MUT("Completely")};
    char *opts[] = {MUT("The model is always right."),
                    MUT("The model is sometimes wrong, and I predict what it "
                        "answers."),
                    MUT("I decide whether the review is positive.")};
    QuizQuestion qq = {MUT("What will you predict in this study?"), opts, 3, 1};

    struct {
        const char *name;
        SessionView v;
    } shots[40];
    int ns = 0;
    SessionView base;
    memset(&base, 0, sizeof base);
    base.classes = CLASSES;
    base.n_classes = 2;
    base.choice = -1;
    base.onset_marked = 1;
    base.rating_spec = &rs;
    base.progress_total = 96;
    base.progress_done = 20;
#define SHOT(nm) (shots[ns].name = nm, shots[ns].v = base, &shots[ns++].v)
    SessionView *v;
    /* The page models, parsed once as study loading parses page files. */
    Page *consent_page = NULL, *instr_page = NULL;
    SimError perr;
    if (page_parse(CONSENT, NULL, &consent_page, &perr) != SIM_OK ||
        page_parse(INSTR, NULL, &instr_page, &perr) != SIM_OK) {
        fprintf(stderr, "simlab-preview: %s\n", perr.msg);
        return 1;
    }
    for (size_t i = 0; i < instr_page->n_blocks; i++) {
        PageBlock *pb = &instr_page->blocks[i];
        if (pb->kind == PAGE_IMAGE) { /* resolved as study loading would */
            char fig[1100];
            snprintf(fig, sizeof fig, "%s/%s", out, pb->path);
            pb->file = sim_strdup(fig);
        }
    }
    v = SHOT("consent");
    v->screen = SCREEN_CONSENT;
    v->page_text = CONSENT;
    v->page = consent_page;
    v->need_continue = 1;
    v = SHOT("instructions");
    v->screen = SCREEN_PAGE;
    v->title = "Instructions";
    v->page_text = INSTR;
    v->page = instr_page;
    v->need_continue = 1;
    v->continue_after_ns = 5000000000LL;
    v = SHOT("quiz");
    v->screen = SCREEN_QUIZ;
    v->question = &qq;
    v->need_choice = 1;
    v = SHOT("quiz-feedback");
    v->screen = SCREEN_FEEDBACK;
    v->question = &qq;
    v->feedback_correct = 0;
    v->feedback_final = 1;
    v->feedback_answer = 1;
    v = SHOT("learn-blackbox-text");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Learning: the model's answers";
    v->item = &text_item;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-tokens-rating");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Learning with explanations";
    v->item = &text_item;
    v->explanation = &e_tokens;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->rating = 5;
    v = SHOT("learn-lime-text");
    v->screen = SCREEN_EXAMPLE;
    v->item = &text_item;
    v->explanation = &e_text;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v = SHOT("learn-features-tabular");
    v->screen = SCREEN_EXAMPLE;
    v->item = &tab_item;
    v->explanation = &e_feat;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->classes = CLASSES;
    v = SHOT("learn-rules");
    v->screen = SCREEN_EXAMPLE;
    v->item = &tab_item;
    v->explanation = &e_rules;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-prototype");
    v->screen = SCREEN_EXAMPLE;
    v->item = &tab_item;
    v->explanation = &e_proto;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-path");
    v->screen = SCREEN_EXAMPLE;
    v->item = &tab_item;
    v->explanation = &e_path;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-composite");
    v->screen = SCREEN_EXAMPLE;
    v->item = &tab_item;
    v->explanation = &e_comp;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v = SHOT("learn-token-pairs");
    v->screen = SCREEN_EXAMPLE;
    v->classes = NLI;
    v->n_classes = 3;
    v->item = &pair_item;
    v->explanation = &e_tpairs;
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-span-pairs");
    v->screen = SCREEN_EXAMPLE;
    v->classes = NLI;
    v->n_classes = 3;
    v->item = &pair_item;
    v->explanation = &e_spairs;
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("train-heatmap-overlay");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Session 1: training";
    v->classes = IMG_CLASSES;
    v->item = &img_items[0];
    v->explanation = &img_expl[0];
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("train-heatmap-side");
    v->screen = SCREEN_EXAMPLE;
    v->classes = IMG_CLASSES;
    v->item = &img_items[0];
    v->explanation = &e_side;
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("predict-text");
    v->screen = SCREEN_PREDICT;
    v->title = "Prediction";
    v->item = &text_item;
    v->need_choice = 1;
    v = SHOT("predict-tabular");
    v->screen = SCREEN_PREDICT;
    v->item = &tab_item;
    v->need_choice = 1;
    v->choice = 0;
    v = SHOT("counterfactual-text");
    v->screen = SCREEN_COUNTERFACTUAL;
    v->item = &text_item;
    v->show_label = v->show_prediction = 1;
    v->ask_counterfactual = 1;
    v->need_choice = 1;
    v = SHOT("counterfactual-tabular-post");
    v->screen = SCREEN_COUNTERFACTUAL;
    v->item = &tab_item;
    v->explanation = &e_feat;
    v->show_label = v->show_prediction = 1;
    v->ask_counterfactual = 1;
    v->need_choice = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->choice = 1;
    v = SHOT("test-reservoir");
    v->screen = SCREEN_PREDICT;
    v->title = "Session 1: test";
    v->classes = IMG_CLASSES;
    v->item = &img_items[5];
    v->need_choice = 1;
    static const Item *res_items[5];
    static const Explanation *res_expl[5];
    v->reservoir = res_items;
    v->reservoir_expl = res_expl;
    for (int k = 0; k < 5; k++) {
        res_items[k] = &img_items[k];
        res_expl[k] = &img_expl[k];
    }
    v->n_reservoir = 5;
    v = SHOT("practice-feedback");
    v->screen = SCREEN_FEEDBACK;
    v->classes = IMG_CLASSES;
    v->item = &img_items[2];
    v->feedback_correct = 1;
    v->feedback_answer = 0;
    v->feedback_final = 1;
    v = SHOT("break");
    v->screen = SCREEN_BREAK;
    v->need_continue = 1;
    v = SHOT("paused");
    v->screen = SCREEN_PAUSED;
    v = SHOT("store-error");
    v->screen = SCREEN_STORE_ERROR;
    v = SHOT("done");
    v->screen = SCREEN_DONE;
    v = SHOT("rating");
    v->screen = SCREEN_RATING;
    v->item = &text_item;
    v->explanation = &e_tokens;
    v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->rating = 3;
    v = SHOT("screened-out");
    v->screen = SCREEN_SCREENED_OUT;
    /* a questionnaire half answered: an age out of range, a choice made,
    ** the likert missing after a refused Continue, text being typed */
    char *ml_opts[] = {MUT("Nothing"), MUT("A little"), MUT("I use it at work"),
                       MUT("I build models")};
    SurveyQuestion survey[] = {
        {.id = MUT("age"),
         .type = QTYPE_NUMBER,
         .text = MUT("Your age in years"),
         .required = 1,
         .min = 18,
         .max = 99},
        {.id = MUT("ml"),
         .type = QTYPE_CHOICE,
         .text = MUT("How much do you know about machine learning?"),
         .required = 1,
         .options = ml_opts,
         .n_options = 4},
        {.id = MUT("trust"),
         .type = QTYPE_LIKERT,
         .text = MUT("I trust the model's explanations."),
         .required = 1,
         .points = 7,
         .low = MUT("Strongly disagree"),
         .high = MUT("Strongly agree")},
        {.id = MUT("strategy"),
         .type = QTYPE_TEXT,
         .text = MUT("How did you decide?"),
         .required = 0,
         .max_length = 500},
    };
    Block survey_block = {.kind = BLOCK_QUESTIONNAIRE,
                          .id = MUT("survey"),
                          .title = MUT("About you"),
                          .survey = survey,
                          .n_survey = 4};
    static const char strategy[] = "I mostly looked at the highlighted "
                                   "words.\nWhen they were mixed I guessed";
    static const char *answers[] = {"12", "I use it at work", "", strategy};
    static const AnswerProblem problems[] = {ANSWER_NUMBER, ANSWER_OK,
                                             ANSWER_OK, ANSWER_OK};
    v = SHOT("questionnaire");
    v->screen = SCREEN_QUESTIONNAIRE;
    v->block = &survey_block;
    v->title = survey_block.title;
    v->answers = answers;
    v->answer_problems = problems;
    v->focus = 3;
    v->answers_tried = 1;
    v->need_continue = 1;
    static const RatingSpec conf = {NULL, 5, NULL, NULL};
    v = SHOT("confidence");
    v->screen = SCREEN_PREDICT;
    v->title = "Predict the model";
    v->item = &text_item;
    v->need_choice = 1;
    v->choice = 0;
    v->confidence_spec = &conf;
    v->need_confidence = 1;
    v = SHOT("timeout");
    v->screen = SCREEN_TIMEOUT;
    v->title = "Predict the model";
    v->timeout_message = "Time is up. The next example follows.";
    v = SHOT("scroll-gate");
    v->screen = SCREEN_CONSENT;
    v->page_text = CONSENT;
    v->page = consent_page;
    v->need_continue = 1;
    v->scroll_gate = 1;

    /* every screen and every explanation kind has a shot */
    int seen_screen[SESSION_SCREEN_COUNT] = {0},
        seen_expl[EXPL_KIND_COUNT] = {0};
    for (int i = 0; i < ns; i++) {
        const SessionView *sv = &shots[i].v;
        seen_screen[sv->screen] = 1;
        const Explanation *e = sv->explanation;
        for (size_t p = 0;
             e && p < (e->kind == EXPL_COMPOSITE ? e->n_parts : 0); p++) {
            seen_expl[e->parts[p].kind] = 1;
        }
        if (e) {
            seen_expl[e->kind] = 1;
        }
        for (size_t r = 0; r < sv->n_reservoir; r++) {
            if (sv->reservoir_expl[r]) {
                seen_expl[sv->reservoir_expl[r]->kind] = 1;
            }
        }
    }
    int missing = 0;
    for (int k = 0; k < SESSION_SCREEN_COUNT; k++) {
        if (!seen_screen[k]) {
            fprintf(stderr, "simlab-preview: no shot of screen '%s'\n",
                    session_screen_name((SessionScreen)k));
            missing = 1;
        }
    }
    for (int k = 0; k < EXPL_KIND_COUNT; k++) {
        if (!seen_expl[k]) {
            fprintf(stderr, "simlab-preview: no shot of a %s explanation\n",
                    expl_kind_name((ExplKind)k));
            missing = 1;
        }
    }
    if (missing) {
        return 1;
    }

    Scene sc;
    scene_init(&sc);
    int incomplete = 0; /* screens that lost commands for want of memory */
    fonts_set_rtl(&fonts, ui_strings_rtl(strings));
    for (int i = 0; i < ns; i++) {
        ScreenCtx sx = {&ui, &assets, &shots[i].v, 0, NULL, strings};
        screen_build(&sc, &sx);
        if (shots[i].v.screen == SCREEN_STORE_ERROR) {
            screen_add_note(&sc, &ui,
                            "Experimenter: the response could not be saved: "
                            "disk I/O error. It is kept and retried every "
                            "second.");
        }
        if (scene_oom(&sc)) {
            fprintf(stderr, "%s: out of memory: drawn incomplete\n",
                    shots[i].name);
            incomplete++;
        }
        SDL_SetRenderDrawColor(g.renderer, ui.th.bg.r, ui.th.bg.g, ui.th.bg.b,
                               255);
        SDL_RenderClear(g.renderer);
        scene_render(&sc, &g, 0, -1);
        char path[1200];
        snprintf(path, sizeof path, "%s/%02d-%s.png", out, i, shots[i].name);
        if (gfx_save_png(&g, path, &err) != SIM_OK) {
            fprintf(stderr, "%s\n", err.msg);
        }
        SDL_RenderPresent(g.renderer);
    }
    /* Start screen and a confirmation dialog (experimenter's: LTR). */
    fonts_set_rtl(&fonts, 0);
    StartState st;
    memset(&st, 0, sizeof st);
    st.title = MUT("Which explanations help predict a sentiment model?");
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
    screen_build_start(&sc, &ui, &st);
    SDL_SetRenderDrawColor(g.renderer, ui.th.bg.r, ui.th.bg.g, ui.th.bg.b, 255);
    SDL_RenderClear(g.renderer);
    scene_render(&sc, &g, 0, -1);
    char path[1200];
    snprintf(path, sizeof path, "%s/%02d-start.png", out, ns);
    gfx_save_png(&g, path, &err);
    screen_add_confirm(&sc, &ui, "Abort this participant?",
                       "The answers so far are kept and the participant can be "
                       "resumed later from the start screen.",
                       "Abort");
    incomplete += scene_oom(&sc);
    SDL_RenderClear(g.renderer);
    scene_render(&sc, &g, 0, -1);
    snprintf(path, sizeof path, "%s/%02d-confirm.png", out, ns + 1);
    gfx_save_png(&g, path, &err);
    /* The start screen of a station with --sync whose server is down. */
    snprintf(st.sync_line, sizeof st.sync_line,
             "SERVER UNREACHABLE for 95s (data safe here, assigning "
             "locally)");
    st.sync_bad = 1;
    screen_build_start(&sc, &ui, &st);
    incomplete += scene_oom(&sc);
    SDL_RenderClear(g.renderer);
    scene_render(&sc, &g, 0, -1);
    snprintf(path, sizeof path, "%s/%02d-start-sync.png", out, ns + 2);
    gfx_save_png(&g, path, &err);
    scene_free(&sc);
    ui_strings_free(strings);
    page_free(consent_page);
    page_free(instr_page);
    assets_free(&assets);
    fonts_free(&fonts);
    gfx_close(&g);
    if (incomplete) {
        fprintf(stderr,
                "simlab-preview: %d screens drawn incomplete (out of "
                "memory)\n",
                incomplete);
        return 1;
    }
    return 0;
}
