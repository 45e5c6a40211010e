/*
** simlab-preview's fixtures: synthetic media, hand-built items and
** explanations of every kind, page models and the session views of every
** screen, each named. The views point into the fixtures, which live until
** preview_fixtures_free.
*/
#include "app/preview.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/preview_content.h"
#include "common/sim_alloc.h"
#include "experiment/session.h"
#include "stimuli/page.h"

/* The study model's strings are char * (study loading owns them); the
** fixtures point them at literals they never write. */
#define MUT(lit) ((char *)(lit))

static StudyClass CLASSES[2] = {{MUT("pos"), MUT("Positive"), MUT("f")},
                                {MUT("neg"), MUT("Negative"), MUT("j")}};
static StudyClass IMG_CLASSES[2] = {{MUT("husky"), MUT("Husky"), MUT("f")},
                                    {MUT("wolf"), MUT("Wolf"), MUT("j")}};
/* A verify block's answers: labels from the runner's strings. */
static StudyClass VERDICTS[2] = {{MUT("accept"), NULL, MUT("f")},
                                 {MUT("reject"), NULL, MUT("j")}};
static RatingSpec CONFIDENCE4 = {NULL, 4, NULL, NULL};
/* HIVE's distinction: four candidate classes, keys per option. */
static StudyClass BIRDS[4] = {{MUT("goldfinch"), MUT("Goldfinch"), MUT("a")},
                              {MUT("junco"), MUT("Dark-eyed junco"), MUT("b")},
                              {MUT("robin"), MUT("Robin"), MUT("c")},
                              {MUT("finch"), MUT("House finch"), MUT("d")}};
static int BIRD_OPTIONS[4] = {2, 0, 3, 1}; /* the order offered */
static int BIRD_PART_CLASS[4] = {0, 1, 2, 3};
static StudyClass NLI[3] = {{MUT("entail"), MUT("Entailment"), MUT("1")},
                            {MUT("neutral"), MUT("Neutral"), MUT("2")},
                            {MUT("contra"), MUT("Contradiction"), MUT("3")}};

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

/* Everything the views point into that is made at run time. */
struct PreviewFixtures {
    Item text_item, tab_item, pair_item;
    Counterfactual tcf, acf;
    Edit tedit;
    Feature ADULT_CF[12];
    Item img_items[6];
    char img_paths[6][64], img_files[6][1100];
    Explanation img_expl[6];
    char map_paths[6][64], map_files[6][1100];
    Explanation e_tokens, e_tpairs, e_spairs, e_feat, e_rules, e_proto;
    Explanation e_path, e_text, e_comp, e_side;
    Explanation parts[2];
    ExplFeature prow[12];
    const RatingSpec *rs;
    const QuizQuestion *qq;
    Page *consent_page, *instr_page;
    const Item *res_items[5];
    const Explanation *res_expl[5];
    Block survey_block;
    /* the primitives and explanations on request or hover */
    ExplImage gallery[6], own_image, cf_images[2];
    Explanation e_md, e_bars, e_gallery, e_image, e_layout, e_cf;
    Explanation layout_parts[2], cf_parts[2];
    Explanation e_md_req, e_bars_hover, e_tokens_hover;
    const Explanation *res_req[5];
    /* a distinction item: four options, a heatmap per option */
    Item bird_item;
    Explanation e_per_option, bird_parts[4];
};

/* Items and explanations of every kind (out: where the media are). */
static void fixtures_items(PreviewFixtures *fx, const char *out)
{
    /* items */
    memset(&fx->text_item, 0, sizeof fx->text_item);
    fx->text_item.key = MUT("test:554");
    fx->text_item.input.modality = MODALITY_TEXT;
    fx->text_item.input.text =
        MUT("some decent actors inflict big damage upon their "
            "reputations .");
    fx->text_item.label = 1;
    fx->text_item.prediction = 1;
    memset(&fx->tcf, 0, sizeof fx->tcf);
    fx->tcf.input.modality = MODALITY_TEXT;
    fx->tcf.input.text =
        MUT("some decent actors inflict little damage upon their "
            "reputations .");
    fx->tedit = (Edit){NULL, MUT("big"), MUT("little"), 27, 33, 0};
    fx->tcf.edits = &fx->tedit;
    fx->tcf.n_edits = 1;
    fx->tcf.prediction = 0;
    fx->text_item.cf = &fx->tcf;

    memset(&fx->tab_item, 0, sizeof fx->tab_item);
    fx->tab_item.input.modality = MODALITY_TABULAR;
    fx->tab_item.input.features = ADULT;
    fx->tab_item.input.n_features = 12;
    fx->tab_item.label = 0;
    fx->tab_item.prediction = 0;
    memcpy(fx->ADULT_CF, ADULT, sizeof ADULT);
    fx->ADULT_CF[8].value = MUT("No gains");
    fx->ADULT_CF[10].value = MUT("Hours per week <= 40.00");
    memset(&fx->acf, 0, sizeof fx->acf);
    fx->acf.input.modality = MODALITY_TABULAR;
    fx->acf.input.features = fx->ADULT_CF;
    fx->acf.input.n_features = 12;
    fx->acf.edits = ADULT_EDITS;
    fx->acf.n_edits = 2;
    fx->acf.prediction = 1;
    fx->tab_item.cf = &fx->acf;

    static char cividis[] = "cividis", viridis[] = "viridis";
    for (int k = 0; k < 6; k++) {
        memset(&fx->img_items[k], 0, sizeof fx->img_items[k]);
        snprintf(fx->img_paths[k], sizeof fx->img_paths[k], "media/img%d.png",
                 k);
        snprintf(fx->map_paths[k], sizeof fx->map_paths[k], "media/map%d.npy",
                 k);
        /* what study loading would resolve: absolute paths */
        snprintf(fx->img_files[k], sizeof fx->img_files[k],
                 "%s/media/img%d.png", out, k);
        snprintf(fx->map_files[k], sizeof fx->map_files[k],
                 "%s/media/map%d.npy", out, k);
        fx->img_items[k].input.image_file = fx->img_files[k];
        fx->img_items[k].input.modality = MODALITY_IMAGE;
        fx->img_items[k].input.text = fx->img_paths[k];
        fx->img_items[k].label = k % 2;
        fx->img_items[k].prediction = (k / 2) % 2;
        memset(&fx->img_expl[k], 0, sizeof fx->img_expl[k]);
        fx->img_expl[k].kind = EXPL_HEATMAP;
        fx->img_expl[k].file = fx->map_paths[k];
        fx->img_expl[k].map_file = fx->map_files[k];
        fx->img_expl[k].file_is_npy = 1;
        fx->img_expl[k].colormap = k == 1 ? cividis : viridis;
        fx->img_expl[k].opacity = 0.55;
    }

    /* a distinction item: the picture of img_items[1], four candidate
    ** classes, one heatmap per candidate (payload order) */
    fx->bird_item = fx->img_items[1];
    fx->bird_item.key = MUT("test:t07");
    fx->bird_item.label = 1;
    fx->bird_item.prediction = 1;
    fx->bird_item.options = BIRD_PART_CLASS;
    fx->bird_item.n_options = 4;
    for (int k = 0; k < 4; k++) {
        fx->bird_parts[k] = fx->img_expl[(k + 1) % 6];
    }
    memset(&fx->e_per_option, 0, sizeof fx->e_per_option);
    fx->e_per_option.kind = EXPL_LAYOUT;
    fx->e_per_option.row = 1;
    fx->e_per_option.parts = fx->bird_parts;
    fx->e_per_option.n_parts = 4;
    fx->e_per_option.part_class = BIRD_PART_CLASS;

    memset(&fx->pair_item, 0, sizeof fx->pair_item);
    fx->pair_item.input.modality = MODALITY_TEXT_PAIR;
    fx->pair_item.input.text = MUT("A man is sleeping on a bench in the park.");
    fx->pair_item.input.text_b = MUT("A person is resting outside.");
    fx->pair_item.input.title_a = MUT("Premise");
    fx->pair_item.input.title_b = MUT("Hypothesis");
    fx->pair_item.label = 0;
    fx->pair_item.prediction = 0;

    /* explanations */
    static ExplToken toks[] = {
        {MUT("some"), -0.13, 0},        {MUT("decent"), 0.10, 0},
        {MUT("actors"), 0.01, 0},       {MUT("inflict"), -0.04, 0},
        {MUT("big"), 0.02, 0},          {MUT("damage"), -0.16, 0},
        {MUT("upon"), 0.0, 0},          {MUT("their"), 0.08, 0},
        {MUT("reputations"), -0.11, 0}, {MUT("."), 0, 0}};
    memset(&fx->e_tokens, 0, sizeof fx->e_tokens);
    fx->e_tokens.kind = EXPL_TOKENS;
    fx->e_tokens.tokens = toks;
    fx->e_tokens.n_tokens = sizeof toks / sizeof toks[0];

    static ExplToken ptoks[] = {
        {MUT("A"), 0, 0},         {MUT("man"), 0.3, 0},
        {MUT("is"), 0, 0},        {MUT("sleeping"), 0.5, 0},
        {MUT("on"), 0, 0},        {MUT("a"), 0, 0},
        {MUT("bench"), 0.1, 0},   {MUT("in"), 0, 0},
        {MUT("the"), 0, 0},       {MUT("park"), 0.2, 0},
        {MUT("."), 0, 0},         {MUT("A"), 0, 1},
        {MUT("person"), 0.3, 1},  {MUT("is"), 0, 1},
        {MUT("resting"), 0.4, 1}, {MUT("outside"), 0.15, 1},
        {MUT("."), 0, 1}};
    static ExplPair pairs[] = {{1, 2, 12, 13, 0.8},
                               {3, 4, 14, 15, 0.9},
                               {9, 10, 15, 16, 0.45},
                               {6, 7, 15, 16, -0.2}};
    memset(&fx->e_tpairs, 0, sizeof fx->e_tpairs);
    fx->e_tpairs.kind = EXPL_TOKEN_PAIRS;
    fx->e_tpairs.tokens = ptoks;
    fx->e_tpairs.n_tokens = sizeof ptoks / sizeof ptoks[0];
    fx->e_tpairs.pairs = pairs;
    fx->e_tpairs.n_pairs = 4;
    static ExplPair spairs[] = {{1, 4, 12, 15, 0.85}, {6, 10, 15, 16, 0.5}};
    fx->e_spairs = fx->e_tpairs;
    fx->e_spairs.kind = EXPL_SPAN_PAIRS;
    fx->e_spairs.pairs = spairs;
    fx->e_spairs.n_pairs = 2;

    static ExplFeature lime[] = {
        {MUT("Education"), MUT("High School grad"), -0.17, NULL},
        {MUT("Sex"), MUT("Female"), -0.20, NULL},
        {MUT("Hours per week"), MUT("<= 40.00"), -0.20, NULL},
        {MUT("Relationship"), MUT("Not-in-family"), -0.24, NULL},
        {MUT("Capital Gain"), MUT("High gains"), 0.61, NULL}};
    memset(&fx->e_feat, 0, sizeof fx->e_feat);
    fx->e_feat.kind = EXPL_FEATURES;
    fx->e_feat.features = lime;
    fx->e_feat.n_features = 5;
    fx->e_feat.intercept = 1.09;
    fx->e_feat.sum = -0.20;
    fx->e_feat.output = 0.89;

    static char *c1[] = {MUT("Education = High School grad"),
                         MUT("Marital Status = Separated"),
                         MUT("Occupation = Service"), MUT("Sex = Female")};
    static ExplRule rule = {c1, 4, 0.97, 0.12};
    memset(&fx->e_rules, 0, sizeof fx->e_rules);
    fx->e_rules.kind = EXPL_RULES;
    fx->e_rules.rules = &rule;
    fx->e_rules.n_rules = 1;
    fx->e_rules.predicted = 1;

    static char *proto_vals[12] = {MUT("Age > 48.00"),
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
        fx->prow[i] =
            (ExplFeature){ADULT[i].name, ADULT[i].value, 0, proto_vals[i]};
    }
    static ExplFeature imp[] = {
        {MUT("Capital Gain"), MUT("High gains"), 2.25, NULL}};
    memset(&fx->e_proto, 0, sizeof fx->e_proto);
    fx->e_proto.kind = EXPL_PROTOTYPE;
    fx->e_proto.prototype_label = MUT("above $50K");
    fx->e_proto.prototype_evidence = 10.0;
    fx->e_proto.rows = fx->prow;
    fx->e_proto.n_rows = 12;
    fx->e_proto.features = imp;
    fx->e_proto.n_features = 1;
    fx->e_proto.predicted = 0;

    static Edit s1[] = {{MUT("Marital Status"), MUT("Never-Married"),
                         MUT("Separated"), 0, 0, 0}};
    static Edit s2[] = {{MUT("Marital Status"), MUT("Never-Married"),
                         MUT("Separated"), 0, 0, 0},
                        {MUT("Hours per week"), MUT("Hours per week > 45.00"),
                         MUT("Hours per week <= 40.00"), 0, 0, 0}};
    static Edit s3[] = {
        {MUT("Marital Status"), MUT("Never-Married"), MUT("Separated"), 0, 0,
         0},
        {MUT("Capital Gain"), MUT("High gains"), MUT("No gains"), 0, 0, 0},
        {MUT("Hours per week"), MUT("Hours per week > 45.00"),
         MUT("Hours per week <= 40.00"), 0, 0, 0}};
    static ExplStep steps[] = {{8.45, s1, 1}, {9.76, s2, 2}, {-0.19, s3, 3}};
    memset(&fx->e_path, 0, sizeof fx->e_path);
    fx->e_path.kind = EXPL_PATH;
    fx->e_path.start_margin = 7.98;
    fx->e_path.steps = steps;
    fx->e_path.n_steps = 3;
    fx->e_path.predicted = 1;

    memset(&fx->e_text, 0, sizeof fx->e_text);
    fx->e_text.kind = EXPL_TEXT;
    fx->e_text.text = LIME_TEXT;

    fx->parts[0] = fx->e_feat;
    fx->parts[1] = fx->e_rules;
    fx->parts[0].title = MUT("LIME");
    fx->parts[1].title = MUT("Anchor");
    memset(&fx->e_comp, 0, sizeof fx->e_comp);
    fx->e_comp.kind = EXPL_COMPOSITE;
    fx->e_comp.parts = fx->parts;
    fx->e_comp.n_parts = 2;

    fx->e_side = fx->img_expl[0];
    fx->e_side.side_by_side = 1;
    fx->e_side.colormap = MUT("magma");

    static RatingSpec rs = {
        MUT("Does this explanation show me why the system thought "
            "what it did?"),
        7, MUT("Not at all"), MUT("Completely")};
    static char *opts[] = {
        MUT("The model is always right."),
        MUT("The model is sometimes wrong, and I predict what it "
            "answers."),
        MUT("I decide whether the review is positive.")};
    static QuizQuestion qq = {MUT("What will you predict in this study?"), opts,
                              3, 1};
    fx->rs = &rs;
    fx->qq = &qq;
}

static ExplFeature CONCEPTS[] = {
    {MUT("snow on the ground"), NULL, 48.2, NULL},
    {MUT("grey fur"), NULL, 21.5, NULL},
    {MUT("pointed ears"), NULL, 12.0, NULL},
    {MUT("blue sky"), NULL, -8.4, NULL},
};

static ExplFeature CONCEPTS_SIGNED[] = {
    {MUT("snow on the ground"), NULL, 0.482, NULL},
    {MUT("grey fur"), NULL, 0.215, NULL},
    {MUT("pointed ears"), NULL, -0.12, NULL},
    {MUT("blue sky"), NULL, -0.084, NULL},
};

/* An explanation with the defaults study loading gives (NaN numbers). */
static void expl_init(Explanation *e, ExplKind kind)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->predicted = -1;
    e->intercept = e->sum = e->output = NAN;
    e->prototype_evidence = e->start_margin = NAN;
    e->decimals = 2;
}

/* The primitives (image, gallery, markdown, bars, layout) and payloads
** given on request or on hover. The markdown is parsed as study loading
** parses it; -1 when it does not. */
static int fixtures_prims(PreviewFixtures *fx, const PreviewContent *pc)
{
    const char *const *captions = pc->captions;
    for (int k = 0; k < 4; k++) {
        CONCEPTS[k].name = CONCEPTS_SIGNED[k].name = MUT(pc->concepts[k]);
    }
    IMG_CLASSES[0].label = MUT(pc->class_husky);
    IMG_CLASSES[1].label = MUT(pc->class_wolf);
    static const double weights[6] = {0.48, 0.21, 0.12, -0.08, 0.05, -0.02};
    for (int k = 0; k < 6; k++) {
        fx->gallery[k] =
            (ExplImage){fx->img_paths[k], fx->img_files[k], 320, 240,
                        MUT(captions[k]), weights[k]};
    }
    expl_init(&fx->e_gallery, EXPL_GALLERY);
    fx->e_gallery.title = MUT(pc->gallery_title);
    fx->e_gallery.images = fx->gallery;
    fx->e_gallery.n_images = 6;
    fx->e_gallery.columns = 3;

    expl_init(&fx->e_md, EXPL_MARKDOWN);
    fx->e_md.text = MUT(pc->rationale);
    if (page_build_ex(pc->rationale, NULL, PAGE_MARKDOWN, NULL, NULL,
                      &fx->e_md.doc) != 0) {
        return -1;
    }

    expl_init(&fx->e_bars, EXPL_BARS);
    fx->e_bars.title = MUT(pc->bars_title);
    fx->e_bars.features = CONCEPTS;
    fx->e_bars.n_features = 4;
    fx->e_bars.bars_signed = 1;
    fx->e_bars.unit = MUT(" %");
    fx->e_bars.decimals = 1;
    fx->e_bars.show_sum = 1;

    /* a prototype ("this looks like that"): another image with a caption */
    fx->own_image = (ExplImage){fx->img_paths[3],
                                fx->img_files[3],
                                320,
                                240,
                                MUT(pc->prototype_caption),
                                NAN};
    expl_init(&fx->e_image, EXPL_IMAGE);
    fx->e_image.images = &fx->own_image;
    fx->e_image.n_images = 1;

    /* concept patches: the item's image with an overlay beside the
    ** concepts' weights */
    expl_init(&fx->layout_parts[0], EXPL_IMAGE);
    fx->layout_parts[0].images = &fx->cf_images[0];
    fx->layout_parts[0].n_images = 1;
    fx->cf_images[0] =
        (ExplImage){NULL, NULL, 0, 0, MUT(pc->overlay_caption), NAN};
    fx->layout_parts[0].has_overlay = 1;
    fx->layout_parts[0].file = fx->map_paths[0];
    fx->layout_parts[0].map_file = fx->map_files[0];
    fx->layout_parts[0].file_is_npy = 1;
    fx->layout_parts[0].colormap = MUT("magma");
    fx->layout_parts[0].opacity = 0.6;
    expl_init(&fx->layout_parts[1], EXPL_BARS);
    fx->layout_parts[1].title = MUT(pc->bars_title);
    fx->layout_parts[1].features = CONCEPTS_SIGNED;
    fx->layout_parts[1].n_features = 4;
    fx->layout_parts[1].bars_signed = 1;
    expl_init(&fx->e_layout, EXPL_LAYOUT);
    fx->e_layout.title = MUT(pc->layout_title);
    fx->e_layout.row = 1;
    fx->e_layout.parts = fx->layout_parts;
    fx->e_layout.n_parts = 2;

    /* a counterfactual image pair */
    fx->cf_images[1] = (ExplImage){
        fx->img_paths[4], fx->img_files[4], 320, 240, MUT(pc->cf_changed), NAN};
    for (int k = 0; k < 2; k++) {
        expl_init(&fx->cf_parts[k], EXPL_IMAGE);
    }
    static ExplImage original;
    original = (ExplImage){fx->img_paths[0],
                           fx->img_files[0],
                           320,
                           240,
                           MUT(pc->cf_original),
                           NAN};
    fx->cf_parts[0].images = &original;
    fx->cf_parts[0].n_images = 1;
    fx->cf_parts[1].images = &fx->cf_images[1];
    fx->cf_parts[1].n_images = 1;
    expl_init(&fx->e_cf, EXPL_LAYOUT);
    fx->e_cf.title = MUT(pc->cf_title);
    fx->e_cf.row = 1;
    fx->e_cf.parts = fx->cf_parts;
    fx->e_cf.n_parts = 2;

    /* on request, on hover */
    fx->e_md_req = fx->e_md;
    fx->e_md_req.reveal = EXPL_REVEAL_ON_REQUEST;
    fx->e_bars_hover = fx->e_bars;
    fx->e_bars_hover.reveal = EXPL_REVEAL_HOVER;
    fx->e_bars_hover.show_sum = 0;
    fx->e_tokens_hover = fx->e_tokens;
    fx->e_tokens_hover.reveal = EXPL_REVEAL_HOVER;
    for (int k = 0; k < 5; k++) {
        fx->res_req[k] = &fx->img_expl[k];
    }
    return 0;
}

/* The page models, parsed once as study loading parses page files; -1
** when one does not parse. */
static int fixtures_pages(PreviewFixtures *fx, const char *out)
{
    /* The page models, parsed once as study loading parses page files. */

    SimError perr;
    if (page_parse(CONSENT, NULL, &fx->consent_page, &perr) != SIM_OK ||
        page_parse(INSTR, NULL, &fx->instr_page, &perr) != SIM_OK) {
        fprintf(stderr, "simlab-preview: %s\n", perr.msg);
        return -1;
    }
    for (size_t i = 0; i < fx->instr_page->n_blocks; i++) {
        PageBlock *pb = &fx->instr_page->blocks[i];
        if (pb->kind == PAGE_IMAGE) { /* resolved as study loading would */
            char fig[1100];
            snprintf(fig, sizeof fig, "%s/%s", out, pb->path);
            pb->file = sim_strdup(fig);
        }
    }
    return 0;
}

int preview_fixtures_new(const char *out, const char *language,
                         PreviewFixtures **fx_out)
{
    *fx_out = NULL;
    PreviewFixtures *fx = sim_calloc(1, sizeof *fx);
    if (!fx) {
        return -1;
    }
    make_media(out);
    fixtures_items(fx, out);
    if (fixtures_pages(fx, out) != 0 ||
        fixtures_prims(fx, preview_content(language)) != 0) {
        preview_fixtures_free(fx);
        return -1;
    }
    *fx_out = fx;
    return 0;
}

void preview_fixtures_free(PreviewFixtures *fx)
{
    if (!fx) {
        return;
    }
    page_free(fx->consent_page);
    page_free(fx->instr_page);
    page_free(fx->e_md.doc);
    sim_free(fx);
}

/* v as an example screen of item with explanation e and the model's
** prediction shown; returns v. */
static SessionView *example_shot(SessionView *v, const StudyClass *classes,
                                 const Item *item, const Explanation *e)
{
    v->screen = SCREEN_EXAMPLE;
    v->classes = classes;
    v->item = item;
    v->explanation = e;
    v->show_prediction = 1;
    v->need_continue = 1;
    return v;
}

/* A screen of the four bird candidates, keyed 1-4 in BIRD_OPTIONS' order. */
static SessionView *bird_shot(SessionView *v, SessionScreen screen,
                              const Item *item, const Explanation *e)
{
    v->screen = screen;
    v->classes = BIRDS;
    v->n_classes = 4;
    v->options = BIRD_OPTIONS;
    v->n_options = 4;
    v->item = item;
    v->explanation = e;
    v->need_choice = 1;
    return v;
}

int preview_shots(PreviewFixtures *fx, PreviewShot *shots, int cap)
{
    int ns = 0;
    SessionView base;
    memset(&base, 0, sizeof base);
    base.classes = CLASSES;
    base.n_classes = 2;
    base.choice = -1;
    base.onset_marked = 1;
    base.rating_spec = fx->rs;
    base.progress_total = 96;
    base.progress_done = 20;
    base.hover_target = -1;
    SessionView *v;
/* The next shot, named nm, starting from base (the last one again when
** cap is reached: preview_shots_check then misses what did not fit). */
#define SHOT(nm)                                                               \
    (ns = ns < cap ? ns : cap - 1, shots[ns].name = nm, shots[ns].v = base,    \
     &shots[ns++].v)
    v = SHOT("consent");
    v->screen = SCREEN_CONSENT;
    v->page_text = CONSENT;
    v->page = fx->consent_page;
    v->need_continue = 1;
    v = SHOT("instructions");
    v->screen = SCREEN_PAGE;
    v->title = "Instructions";
    v->page_text = INSTR;
    v->page = fx->instr_page;
    v->need_continue = 1;
    v->continue_after_ns = 5000000000LL;
    v = SHOT("quiz");
    v->screen = SCREEN_QUIZ;
    v->question = fx->qq;
    v->need_choice = 1;
    v = SHOT("quiz-feedback");
    v->screen = SCREEN_FEEDBACK;
    v->question = fx->qq;
    v->feedback_correct = 0;
    v->feedback_final = 1;
    v->feedback_answer = 1;
    v->need_continue = 1;
    v = SHOT("learn-blackbox-text");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Learning: the model's answers";
    v->item = &fx->text_item;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-tokens-rating");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Learning with explanations";
    v->item = &fx->text_item;
    v->explanation = &fx->e_tokens;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->rating = 5;
    v = SHOT("learn-lime-text");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->text_item;
    v->explanation = &fx->e_text;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v = SHOT("learn-features-tabular");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_feat;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->classes = CLASSES;
    v = SHOT("learn-rules");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_rules;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-prototype");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_proto;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-path");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_path;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-composite");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_comp;
    v->show_label = v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v = SHOT("learn-token-pairs");
    v->screen = SCREEN_EXAMPLE;
    v->classes = NLI;
    v->n_classes = 3;
    v->item = &fx->pair_item;
    v->explanation = &fx->e_tpairs;
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("learn-span-pairs");
    v->screen = SCREEN_EXAMPLE;
    v->classes = NLI;
    v->n_classes = 3;
    v->item = &fx->pair_item;
    v->explanation = &fx->e_spairs;
    v->show_prediction = 1;
    v->need_continue = 1;
    v = SHOT("train-heatmap-overlay");
    v->screen = SCREEN_EXAMPLE;
    v->title = "Session 1: training";
    v->classes = IMG_CLASSES;
    v->item = &fx->img_items[0];
    v->explanation = &fx->img_expl[0];
    v->show_prediction = 1;
    v->need_continue = 1;
    v = example_shot(SHOT("train-heatmap-side"), IMG_CLASSES, &fx->img_items[0],
                     &fx->e_side);
    v = SHOT("predict-text");
    v->screen = SCREEN_PREDICT;
    v->title = "Prediction";
    v->item = &fx->text_item;
    v->need_choice = 1;
    v = SHOT("predict-tabular");
    v->screen = SCREEN_PREDICT;
    v->item = &fx->tab_item;
    v->need_choice = 1;
    v->choice = 0;
    v = SHOT("counterfactual-text");
    v->screen = SCREEN_COUNTERFACTUAL;
    v->item = &fx->text_item;
    v->show_label = v->show_prediction = 1;
    v->ask_counterfactual = 1;
    v->need_choice = 1;
    v = SHOT("counterfactual-tabular-post");
    v->screen = SCREEN_COUNTERFACTUAL;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_feat;
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
    v->item = &fx->img_items[5];
    v->need_choice = 1;
    v->reservoir = fx->res_items;
    v->reservoir_expl = fx->res_expl;
    for (int k = 0; k < 5; k++) {
        fx->res_items[k] = &fx->img_items[k];
        fx->res_expl[k] = &fx->img_expl[k];
    }
    v->n_reservoir = 5;
    v = SHOT("verify-image");
    v->screen = SCREEN_VERIFY;
    v->classes = IMG_CLASSES;
    v->verdicts = VERDICTS;
    v->item = &fx->img_items[3];
    v->explanation = &fx->img_expl[3];
    v->show_prediction = 1;
    v->need_choice = 1;
    v->choice = 1;
    v->confidence_spec = &CONFIDENCE4;
    v = SHOT("verify-text");
    v->screen = SCREEN_VERIFY;
    v->verdicts = VERDICTS;
    v->item = &fx->text_item;
    v->explanation = &fx->e_tokens;
    v->show_prediction = 1;
    v->need_choice = 1;
    v = SHOT("decide-tabular");
    v->screen = SCREEN_DECIDE;
    v->item = &fx->tab_item;
    v->explanation = &fx->e_feat;
    v->show_prediction = 1;
    v->need_choice = 1;
    v = SHOT("decide-alone");
    v->screen = SCREEN_DECIDE;
    v->item = &fx->text_item;
    v->need_choice = 1;
    /* four candidates: each with its evidence, then as a decision */
    v = bird_shot(SHOT("distinction-image"), SCREEN_PREDICT, &fx->bird_item,
                  &fx->e_per_option);
    v = bird_shot(SHOT("decide-options"), SCREEN_DECIDE, &fx->bird_item,
                  &fx->img_expl[1]);
    v->show_prediction = 1;
    v = SHOT("practice-feedback");
    v->screen = SCREEN_FEEDBACK;
    v->classes = IMG_CLASSES;
    v->item = &fx->img_items[2];
    v->feedback_correct = 1;
    v->feedback_answer = 0;
    v->feedback_final = 1;
    v->need_continue = 1;
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
    v->item = &fx->text_item;
    v->explanation = &fx->e_tokens;
    v->show_prediction = 1;
    v->need_rating = 1;
    v->need_continue = 1;
    v->rating = 3;
    v = SHOT("screened-out");
    v->screen = SCREEN_SCREENED_OUT;
    /* a questionnaire half answered: an age out of range, a choice made,
    ** the likert missing after a refused Continue, text being typed */
    static char *ml_opts[] = {MUT("Nothing"), MUT("A little"),
                              MUT("I use it at work"), MUT("I build models")};
    static SurveyQuestion survey[] = {
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
    fx->survey_block = (Block){.kind = BLOCK_QUESTIONNAIRE,
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
    v->block = &fx->survey_block;
    v->title = fx->survey_block.title;
    v->answers = answers;
    v->answer_problems = problems;
    v->focus = 3;
    v->answers_tried = 1;
    v->need_continue = 1;
    static const RatingSpec conf = {NULL, 5, NULL, NULL};
    v = SHOT("confidence");
    v->screen = SCREEN_PREDICT;
    v->title = "Predict the model";
    v->item = &fx->text_item;
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
    v->page = fx->consent_page;
    v->need_continue = 1;
    v->scroll_gate = 1;
    /* the primitives, composed as a lab would */
    v = example_shot(SHOT("prim-markdown-rationale"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_md);
    v = example_shot(SHOT("prim-gallery-concepts"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_gallery);
    v = example_shot(SHOT("prim-layout-concepts"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_layout);
    v = example_shot(SHOT("prim-image-prototype"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_image);
    v = example_shot(SHOT("prim-layout-counterfactual-pair"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_cf);
    v = example_shot(SHOT("prim-bars-sum"), IMG_CLASSES, &fx->img_items[0],
                     &fx->e_bars);
    /* explanations on request and on hover */
    v = example_shot(SHOT("reveal-on-request-hidden"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_md_req);
    v->reveal_key = "e";
    v = example_shot(SHOT("reveal-on-request-shown"), IMG_CLASSES,
                     &fx->img_items[0], &fx->e_md_req);
    v->reveal_key = "e";
    v->revealed = 1;
    v = example_shot(SHOT("reveal-hover-bars"), IMG_CLASSES, &fx->img_items[0],
                     &fx->e_bars_hover);
    v->hover_target = 1;
    v = SHOT("reveal-hover-tokens");
    v->screen = SCREEN_EXAMPLE;
    v->item = &fx->text_item;
    v->explanation = &fx->e_tokens_hover;
    v->show_label = v->show_prediction = 1;
    v->need_continue = 1;
    v->hover_target = 5;
    /* Continue as the session would enable it */
    for (int i = 0; i < ns; i++) {
        shots[i].v.continue_ready = session_continue_ready(&shots[i].v);
    }
    return ns;
}

int preview_shots_check(const PreviewShot *shots, int ns)
{
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
    return missing;
}
