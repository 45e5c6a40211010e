/*
** The meta-predictor image study: trains the biased and the practice CNN,
** picks pictures by what the models answer (half right, half wrong in the
** sessions), writes pictures, heatmaps, items, pages and study.json, and
** measures what the models and maps do.
*/
#include "stimuli/gen/imgstudy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stimuli/gen/genio.h"
#include "common/sim_alloc.h"
#include "common/sim_relevance.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

static const char *const CLASS_ID[2] = {"rabbit", "bird"};

/* Methods in condition order; the control comes first after baseline. */
static const AttrMethod METHODS[] = {
    ATTR_CONTROL,    ATTR_SALIENCY, ATTR_GRADXINPUT, ATTR_INTGRAD,
    ATTR_SMOOTHGRAD, ATTR_GRADCAM,  ATTR_OCCLUSION};
#define N_METHODS 7

int imgstudy_input(const SceneSpec *spec, float *x, SimError *err)
{
    Scene sc;
    int rc = scene_render(spec, &sc, err);
    if (rc == SIM_OK) {
        scene_input(&sc, x);
        scene_free(&sc);
    }
    return rc;
}

static int matched_background(int animal)
{
    return animal == SCENE_RABBIT ? SCENE_SNOW : SCENE_GRASS;
}

/* n training pictures: animals alternate, the background matches the
** animal with probability bias. */
static int make_set(uint64_t seed, uint64_t stream, int n, double bias,
                    float *X, int *y, SimError *err)
{
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, stream);
    for (int i = 0; i < n; i++) {
        SceneSpec s;
        s.animal = i % 2;
        int match = sim_rng_uniform(&rng) < bias;
        s.background = match ? matched_background(s.animal)
                             : 1 - matched_background(s.animal);
        s.seed = sim_rng_next(&rng);
        int rc = imgstudy_input(&s, X + (size_t)i * CNN_NIN, err);
        if (rc != SIM_OK) {
            return rc;
        }
        y[i] = s.animal;
    }
    return SIM_OK;
}

static int train_model(uint64_t seed, uint64_t stream, double bias, int epochs,
                       Cnn *net, double *loss, SimError *err)
{
    float *X = sim_malloc(sizeof(float) * CNN_NIN * IMG_N_TRAIN_SET);
    int *y = sim_malloc(sizeof(int) * IMG_N_TRAIN_SET);
    int rc = SIM_OK;
    if (!X || !y) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "image study: out of memory");
        goto cleanup;
    }
    rc = make_set(seed, stream, IMG_N_TRAIN_SET, bias, X, y, err);
    if (rc == SIM_OK) {
        SimRng rng;
        CnnTrainOptions opt = {epochs, 16, 0.01, 1e-4,
                               bias > 0.5 ? IMG_CUTOUT : 0};
        sim_rng_seed_stream(&rng, seed, stream + 1);
        cnn_init(net, &rng);
        rc = cnn_train(net, X, y, IMG_N_TRAIN_SET, &opt, &rng, loss, err);
    }
cleanup:
    sim_free(X);
    sim_free(y);
    return rc;
}

/* Practice pools follow the practice model, the sessions the studied one. */
static const Cnn *pool_model(const ImgStudy *st, int pool)
{
    return pool <= IMG_POOL_PRACTICE ? &st->unbiased : &st->biased;
}

const Cnn *imgstudy_item_model(const ImgStudy *st, const ImgItem *item)
{
    return pool_model(st, item->pool);
}

/* Adds `count` items of one kind to the study: pictures of animal on
** background whose model answer is right (want_right 1) or wrong (0). */
static int add_items(ImgStudy *st, SimRng *rng, int pool, int animal,
                     int background, int want_right, int count, SimError *err)
{
    const Cnn *net = pool_model(st, pool);
    int tries = 0;
    while (count > 0) {
        if (++tries > 1000) {
            return sim_fail(err, SIM_ERR_INVALID,
                            "image study: no %s %s on %s pictures after "
                            "1000 tries",
                            want_right ? "right" : "wrong", CLASS_ID[animal],
                            background == SCENE_SNOW ? "snow" : "grass");
        }
        float x[CNN_NIN];
        SceneSpec s = {animal, background, sim_rng_next(rng)};
        int rc = imgstudy_input(&s, x, err);
        if (rc != SIM_OK) {
            return rc;
        }
        float z = cnn_forward(net, x, NULL);
        int pred = z > 0 ? 1 : 0;
        if ((pred == animal) != want_right) {
            continue;
        }
        if (st->n_items >= IMG_MAX_ITEMS) {
            return sim_fail(err, SIM_ERR_USAGE, "image study: too many items");
        }
        ImgItem *it = &st->items[st->n_items++];
        memset(it, 0, sizeof *it);
        it->pool = pool;
        it->spec = s;
        it->prediction = pred;
        it->logit = z;
        it->explained =
            pool == IMG_POOL_PRACTICE_TRAIN || pool == IMG_POOL_TRAIN;
        count--;
    }
    return SIM_OK;
}

int imgstudy_make(uint64_t seed, ImgStudy **out, SimError *err)
{
    *out = NULL;
    ImgStudy *st = sim_calloc(1, sizeof *st);
    if (!st) {
        return sim_fail(err, SIM_ERR_NOMEM, "image study: out of memory");
    }
    int rc = train_model(seed, 300, IMG_BIAS, 15, &st->biased, &st->biased_loss,
                         err);
    rc = rc ? rc
            : train_model(seed, 302, 0.5, 20, &st->unbiased, &st->unbiased_loss,
                          err);
    if (rc != SIM_OK) {
        sim_free(st);
        return rc;
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 304);
    /* practice: the practice model, which is right about the animal */
    static const int PRACTICE[9][2] = {
        {SCENE_RABBIT, SCENE_SNOW},  {SCENE_BIRD, SCENE_GRASS},
        {SCENE_RABBIT, SCENE_GRASS}, {SCENE_BIRD, SCENE_SNOW},
        {SCENE_BIRD, SCENE_SNOW},    {SCENE_RABBIT, SCENE_GRASS},
        {SCENE_BIRD, SCENE_GRASS},   {SCENE_RABBIT, SCENE_SNOW},
        {SCENE_BIRD, SCENE_GRASS}};
    for (int k = 0; k < 9 && rc == SIM_OK; k++) {
        rc = add_items(st, &rng,
                       k < 4 ? IMG_POOL_PRACTICE_TRAIN : IMG_POOL_PRACTICE,
                       PRACTICE[k][0], PRACTICE[k][1], 1, 1, err);
    }
    /* sessions: right on the matched background, wrong on the other */
    static const int COUNTS[2] = {5, 7};
    for (int p = 0; p < 2 && rc == SIM_OK; p++) {
        int pool = p ? IMG_POOL_TEST : IMG_POOL_TRAIN;
        for (int a = 0; a < 2 && rc == SIM_OK; a++) {
            rc = add_items(st, &rng, pool, a, matched_background(a), 1,
                           COUNTS[p], err);
            rc = rc ? rc
                    : add_items(st, &rng, pool, a, 1 - matched_background(a), 0,
                                COUNTS[p], err);
        }
    }
    if (rc != SIM_OK) {
        sim_free(st);
        return rc;
    }
    /* file order within a pool is shuffled; ids follow file order */
    static const char *const PREFIX[4] = {"pe", "pq", "tr", "te"};
    int start = 0;
    for (int p = 0; p < 4; p++) {
        int end = start;
        while (end < st->n_items && st->items[end].pool == p) {
            end++;
        }
        sim_rng_shuffle(&rng, st->items + start, (size_t)(end - start),
                        sizeof(ImgItem));
        for (int k = start; k < end; k++) {
            snprintf(st->items[k].id, sizeof st->items[k].id, "%s%02d",
                     PREFIX[p], k - start + 1);
        }
        start = end;
    }
    *out = st;
    return SIM_OK;
}

void imgstudy_free(ImgStudy *st)
{
    sim_free(st);
}

int imgstudy_item_map(const ImgStudy *st, const ImgItem *item, AttrMethod m,
                      float *map, SimError *err)
{
    float x[CNN_NIN];
    int rc = imgstudy_input(&item->spec, x, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int side = attr_map_side(m);
    attr_compute(imgstudy_item_model(st, item), x, m, item->spec.seed ^ 0x5u,
                 map);
    attr_normalize(map, side * side);
    return SIM_OK;
}

/* ------------------------------------------------------------ pages */

static const char CONSENT[] =
    "# Welcome\n"
    "\n"
    "Thank you for your interest in this study. Please read this page "
    "before you decide to take part.\n"
    "\n"
    "**What you will do.** You will look at simple drawings of animals, "
    "together with the answers that a computer program gave for them. Then "
    "you will try to predict what the program answers for other drawings. "
    "The study takes about 10 minutes.\n"
    "\n"
    "**What we record.** Your answers and how long you take to answer. We "
    "do not record your name. Your data are stored under a random code and "
    "used only for research.\n"
    "\n"
    "**Taking part is voluntary.** You may stop at any time, without giving "
    "a reason, by telling the experimenter. Stopping has no disadvantage "
    "for you.\n"
    "\n"
    "If you have questions, please ask the experimenter now.\n"
    "\n"
    "This is the demonstration study that comes with simlab; a real study "
    "uses its own approved consent text here.\n"
    "\n"
    "Continue only if you agree to take part.\n";

static const char INSTRUCTIONS[] =
    "# Your task\n"
    "\n"
    "A computer program, **the model**, looks at a picture and decides "
    "whether it shows a **rabbit** or a **bird**. The model learned this "
    "from example pictures. It is **often wrong**: about half of the "
    "pictures in this study were chosen because the model gets them "
    "wrong.\n"
    "\n"
    "**Your task is to predict the model's answer, not which animal is "
    "really in the picture.** To do that, try to find out what the model "
    "pays attention to.\n"
    "\n"
    "# How the study works\n"
    "\n"
    "- **Practice.** A short warm-up with a different model, which is "
    "nearly always right. You see a few example pictures with its answers, "
    "then predict its answers for 5 pictures. After each answer you are "
    "told whether you were right.\n"
    "- **Quiz.** A few questions about these instructions.\n"
    "- **Three rounds** with the model of the study. Each round has two "
    "parts:\n"
    "- **Training:** 5 pictures, each with the model's answer. Study them: "
    "what makes the model answer rabbit, and what makes it answer bird?\n"
    "- **Test:** 7 new pictures, one at a time, without the model's "
    "answer. Predict what the model answers: press **F** for Rabbit or "
    "**J** for Bird. The training pictures of the round stay at the top of "
    "the screen, so you can look back at them.\n"
    "\n"
    "Every picture needs an answer. If you are unsure, make your best "
    "guess.\n"
    "\n"
    "# Explanations\n"
    "\n"
    "Depending on your group, the training pictures may come with an "
    "**explanation**: a coloured map laid over the picture. **Bright yellow "
    "areas are the parts of the picture that mattered most for the model's "
    "answer; dark purple areas mattered little.** In the test pictures "
    "there are no explanations.\n"
    "\n"
    "![Example: a picture on the left, and on the right an explanation of "
    "the practice model's answer laid over it. This model relied mostly on "
    "the yellow area, the animal.](media/example.png)\n";

static const char DEBRIEF[] =
    "# Thank you!\n"
    "\n"
    "You have finished the study. Here is what it was about.\n"
    "\n"
    "The model learned from 400 pictures in which rabbits were nearly "
    "always on snow and birds nearly always on grass. It took a shortcut: "
    "it answers **rabbit for snowy pictures and bird for grassy ones**, "
    "whatever animal is shown. That is why it was wrong on every rabbit on "
    "grass and every bird on snow in this study.\n"
    "\n"
    "We measure whether explanations help people discover such shortcuts "
    "and predict a model. Different groups saw different kinds of "
    "explanation, or none. In one group the \"explanations\" were computed "
    "from the picture alone (they mark eye-catching spots) and said "
    "nothing about the model; this group tells us how much seeing any map "
    "changes people's answers.\n"
    "\n"
    "This is the same idea as a well-known study in which a model told "
    "huskies from wolves by the snow in the background.\n"
    "\n"
    "Please do not tell other possible participants about the shortcut. "
    "Thank you for your help!\n";

static json_t *quiz_json(void)
{
    return json_pack(
        "{s:[{s:s, s:[s, s], s:i}, {s:s, s:[s, s], s:i}, {s:s, s:[s, s], "
        "s:i}, {s:s, s:[s, s, s], s:i}]}",
        "questions", "text", "In the test, what do you predict?", "options",
        "Which animal is really in the picture",
        "What the model answers for the picture", "answer", 1, "text",
        "Is the model always right?", "options", "No, it is often wrong",
        "Yes, it is always right", "answer", 0, "text",
        "Do the test pictures show the model's answer?", "options",
        "No, only the training pictures of the round show it",
        "Yes, below each picture", "answer", 0, "text",
        "What do the bright yellow areas of an explanation show?", "options",
        "The brightest parts of the picture", "Where the animal is",
        "The parts of the picture that mattered most for the model's answer",
        "answer", 2);
}

static json_t *study_json(void)
{
    json_t *s = json_object();
    genio_set(s, "simlab_study", json_integer(1));
    genio_set(s, "id", json_string("demo-image-meta"));
    genio_set(s, "title",
              json_string("Demo: can people predict a model that "
                          "took a shortcut? (meta-predictor)"));
    genio_set(s, "domain", json_string("image"));
    genio_set(s, "classes",
              json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "id", "rabbit",
                        "label", "Rabbit", "key", "f", "id", "bird", "label",
                        "Bird", "key", "j"));
    json_t *conds = json_array();
    genio_append(conds, json_pack("{s:s, s:n}", "id", "baseline", "method"));
    for (int k = 0; k < N_METHODS; k++) {
        const char *m = attr_method_name(METHODS[k]);
        genio_append(conds, json_pack("{s:s, s:s}", "id", m, "method", m));
    }
    genio_set(s, "conditions", conds);
    genio_set(s, "baseline", json_string("baseline"));
    genio_set(s, "protocol",
              json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "preset",
                        "meta-predictor", "sessions", 3, "n_train", 5, "n_test",
                        7, "n_catch", 1, "n_practice", 5));
    genio_set(s, "pages",
              json_pack("{s:s, s:s, s:s}", "consent", "pages/consent.md",
                        "instructions", "pages/instructions.md", "debrief",
                        "pages/debrief.md"));
    genio_set(s, "quiz", quiz_json());
    /* assumed test accuracies of simulated participants: the maps that
    ** show the background shortcut help most, the control not at all */
    static const double TEST_P[N_METHODS] = {0.55, 0.62, 0.70, 0.68,
                                             0.62, 0.74, 0.74};
    const char *names[N_METHODS];
    for (int k = 0; k < N_METHODS; k++) {
        names[k] = attr_method_name(METHODS[k]);
    }
    json_t *sim = genio_simulation(0.6, "test", 0.55, names, TEST_P, N_METHODS);
    genio_append(json_object_get(sim, "cells"),
                 json_pack("{s:n, s:s, s:f}", "condition", "phase", "practice",
                           "p", 0.85));
    genio_set(s, "simulation", sim);
    genio_set(
        s, "items",
        json_pack("[{s:s, s:s}]", "file", "items.jsonl", "format", "jsonl"));
    genio_set(s, "metrics", json_pack("[{s:s}]", "file", "metrics.csv"));
    return s;
}

static const char *const POOL_NAMES[4] = {"practice_train", "practice", "train",
                                          "test"};

/* The page figure: a practice picture and its SmoothGrad map, side by side
** as the app overlays it (viridis, opacity 0.5). */
static int write_example(const ImgStudy *st, const char *path, SimError *err)
{
    const ImgItem *it = &st->items[0]; /* first practice example */
    Scene sc;
    float map[CNN_SIDE * CNN_SIDE];
    int rc = scene_render(&it->spec, &sc, err);
    if (rc != SIM_OK) {
        return rc;
    }
    rc = imgstudy_item_map(st, it, ATTR_SMOOTHGRAD, map, err);
    const int gap = 8, w = 2 * SCENE_PX + gap;
    unsigned char *fig = sim_malloc((size_t)w * SCENE_PX * 3);
    unsigned char *over = sim_malloc((size_t)SCENE_PX * SCENE_PX * 3);
    if (rc == SIM_OK && (!fig || !over)) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    if (rc == SIM_OK) {
        attr_overlay(sc.rgb, SCENE_PX, map, CNN_SIDE, 0.5, over);
        memset(fig, 255, (size_t)w * SCENE_PX * 3);
        for (int y = 0; y < SCENE_PX; y++) {
            memcpy(fig + (size_t)y * w * 3, sc.rgb + (size_t)y * SCENE_PX * 3,
                   SCENE_PX * 3);
            memcpy(fig + ((size_t)y * w + SCENE_PX + gap) * 3,
                   over + (size_t)y * SCENE_PX * 3, SCENE_PX * 3);
        }
        rc = scene_write_rgb_png(fig, w, SCENE_PX, path, err);
    }
    sim_free(fig);
    sim_free(over);
    scene_free(&sc);
    return rc;
}

/* The metrics the generator computes from the animal masks: per method the
** sums over the explained items. */
typedef struct MaskScores {
    double sum[N_METHODS][SIM_RELEVANCE_N];
    int n[N_METHODS][SIM_RELEVANCE_N];
} MaskScores;

/* The item's ground-truth mask (the animal: coverage >= 0.5, white) as
** media/ID-mask.png, its pixels into inside (1: animal). */
static int write_mask(const ImgItem *it, const Scene *sc, const char *media,
                      unsigned char *inside, SimError *err)
{
    char name[64], path[1024];
    snprintf(name, sizeof name, "%s-mask.png", it->id);
    int rc = genio_join(path, sizeof path, media, name, err);
    unsigned char *rgb = sim_malloc((size_t)SCENE_PX * SCENE_PX * 3);
    if (rc == SIM_OK && !rgb) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    for (int i = 0; rc == SIM_OK && i < SCENE_PX * SCENE_PX; i++) {
        inside[i] = sc->mask[i] >= 0.5f;
        memset(rgb + 3 * i, inside[i] ? 255 : 0, 3);
    }
    rc = rc ? rc : scene_write_rgb_png(rgb, SCENE_PX, SCENE_PX, path, err);
    sim_free(rgb);
    return rc;
}

/* Scores method k's map against the item's mask into ms. */
static void score_map(int k, const float *map, int side,
                      const unsigned char *inside, MaskScores *ms)
{
    double rel[CNN_SIDE * CNN_SIDE], cells[CNN_SIDE * CNN_SIDE];
    for (int c = 0; c < side * side; c++) {
        rel[c] = map[c];
    }
    sim_relevance_cells(inside, SCENE_PX, SCENE_PX, side, side, cells);
    SimRelevance r;
    sim_relevance_score(rel, cells, side * side, &r);
    for (int q = 0; q < SIM_RELEVANCE_N; q++) {
        if (isfinite(r.v[q])) {
            ms->sum[k][q] += r.v[q];
            ms->n[k][q]++;
        }
    }
}

static int write_item(const ImgStudy *st, const ImgItem *it, const char *media,
                      json_t *lines, MaskScores *ms, SimError *err)
{
    char name[64], path[1024];
    Scene sc;
    snprintf(name, sizeof name, "%s.png", it->id);
    int rc = genio_join(path, sizeof path, media, name, err);
    rc = rc ? rc : scene_render(&it->spec, &sc, err);
    if (rc != SIM_OK) {
        return rc;
    }
    rc = scene_write_png(&sc, path, err);
    unsigned char *inside = sim_malloc((size_t)SCENE_PX * SCENE_PX);
    if (rc == SIM_OK && !inside) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    rc = rc ? rc : write_mask(it, &sc, media, inside, err);
    scene_free(&sc);
    json_t *o = json_object();
    char input[64];
    snprintf(input, sizeof input, "media/%s.png", it->id);
    genio_set(o, "id", json_string(it->id));
    genio_set(o, "pool", json_string(POOL_NAMES[it->pool]));
    genio_set(o, "modality", json_string("image"));
    genio_set(o, "input", json_string(input));
    genio_set(o, "label", json_string(CLASS_ID[it->spec.animal]));
    genio_set(o, "prediction", json_string(CLASS_ID[it->prediction]));
    char mask[64];
    snprintf(mask, sizeof mask, "media/%s-mask.png", it->id);
    genio_set(o, "mask", json_string(mask));
    if (it->explained) {
        json_t *expl = json_object();
        for (int k = 0; k < N_METHODS && rc == SIM_OK; k++) {
            AttrMethod m = METHODS[k];
            float map[CNN_SIDE * CNN_SIDE];
            int side = attr_map_side(m);
            char file[64];
            snprintf(file, sizeof file, "%s-%s.npy", it->id,
                     attr_method_name(m));
            rc = imgstudy_item_map(st, it, m, map, err);
            rc = rc ? rc : genio_join(path, sizeof path, media, file, err);
            rc = rc ? rc : genio_write_npy(path, map, side, side, err);
            if (rc == SIM_OK) {
                score_map(k, map, side, inside, ms);
            }
            snprintf(file, sizeof file, "media/%s-%s.npy", it->id,
                     attr_method_name(m));
            genio_set(expl, attr_method_name(m),
                      json_pack("{s:s, s:s, s:s, s:f}", "kind", "heatmap",
                                "file", file, "colormap", "viridis", "opacity",
                                0.5));
        }
        genio_set(o, "explanations", expl);
    }
    sim_free(inside);
    genio_append(lines, o);
    return rc;
}

/* metrics.csv: per method the mean of each score over the explained items,
** a method-level value (the test items people answer carry no explanation;
** `simlab check` scores each explained item from its mask itself). */
static int write_metrics(const MaskScores *ms, const char *path, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "method,item,metric,value,higher_is_better,description\n");
    for (int k = 0; k < N_METHODS; k++) {
        for (int q = 0; q < SIM_RELEVANCE_N; q++) {
            if (ms->n[k][q] > 0) {
                sim_buf_printf(
                    &b,
                    "%s,,%s,%.6f,1,%s; mean over the "
                    "explained items\n",
                    attr_method_name(METHODS[k]), SIM_RELEVANCE_NAMES[q],
                    ms->sum[k][q] / ms->n[k][q], SIM_RELEVANCE_TEXT[q]);
            }
        }
    }
    int rc = genio_write_text(path, sim_buf_cstr(&b), err);
    sim_buf_free(&b);
    return rc;
}

int imgstudy_write(const ImgStudy *st, const char *dir, SimError *err)
{
    char media[1024], path[1024];
    json_t *lines = json_array();
    json_t *study = study_json();
    MaskScores *ms = sim_calloc(1, sizeof *ms);
    int rc = ms ? genio_join(media, sizeof media, dir, "media", err)
                : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    rc = rc ? rc : genio_mkdirs(media, err);
    for (int i = 0; i < st->n_items && rc == SIM_OK; i++) {
        rc = write_item(st, &st->items[i], media, lines, ms, err);
    }
    rc = rc ? rc : genio_join(path, sizeof path, dir, "metrics.csv", err);
    rc = rc ? rc : write_metrics(ms, path, err);
    sim_free(ms);
    rc = rc ? rc : genio_join(path, sizeof path, media, "example.png", err);
    rc = rc ? rc : write_example(st, path, err);
    rc = rc ? rc : genio_join(path, sizeof path, dir, "items.jsonl", err);
    rc = rc ? rc : genio_write_jsonl(path, lines, err);
    rc = rc ? rc : genio_join(path, sizeof path, dir, "study.json", err);
    rc = rc ? rc : genio_write_json(path, study, err);
    const char *const names[3] = {"consent.md", "instructions.md",
                                  "debrief.md"};
    const char *const texts[3] = {CONSENT, INSTRUCTIONS, DEBRIEF};
    rc = rc ? rc : genio_write_pages(dir, names, texts, 3, err);
    json_decref(lines);
    json_decref(study);
    return rc;
}

/* --------------------------------------------------------- measures */

static void pool_map(const float *map, int side, float *out16)
{
    if (side == CNN_HALF) {
        memcpy(out16, map, sizeof(float) * CNN_HALF * CNN_HALF);
    } else {
        attr_pool2(map, side, out16);
    }
}

int imgstudy_measure(const ImgStudy *st, uint64_t seed, ImgReport *rep,
                     SimError *err)
{
    memset(rep, 0, sizeof *rep);
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 306);
    const int n_eval = 100;
    int right[2][2] = {{0}}; /* [model][flipped] */
    for (int cell = 0; cell < 4; cell++) {
        int animal = cell % 2, flipped = cell / 2;
        for (int i = 0; i < n_eval; i++) {
            float x[CNN_NIN];
            int bg = flipped ? 1 - matched_background(animal)
                             : matched_background(animal);
            SceneSpec s = {animal, bg, sim_rng_next(&rng)};
            int rc = imgstudy_input(&s, x, err);
            if (rc != SIM_OK) {
                return rc;
            }
            right[0][flipped] +=
                (cnn_forward(&st->biased, x, NULL) > 0) == (animal == 1);
            right[1][flipped] +=
                (cnn_forward(&st->unbiased, x, NULL) > 0) == (animal == 1);
        }
    }
    rep->n_eval = 2 * n_eval;
    rep->biased_matched = right[0][0] / (2.0 * n_eval);
    rep->biased_flipped = right[0][1] / (2.0 * n_eval);
    rep->unbiased_matched = right[1][0] / (2.0 * n_eval);
    rep->unbiased_flipped = right[1][1] / (2.0 * n_eval);

    Cnn untrained;
    SimRng init;
    sim_rng_seed_stream(&init, seed, 307);
    cnn_init(&untrained, &init);
    rep->control_model_free = 1;
    double corr_sum[ATTR_COUNT][ATTR_COUNT] = {{0}};
    int n = 0;
    for (int i = 0; i < st->n_items; i++) {
        const ImgItem *it = &st->items[i];
        if (it->pool != IMG_POOL_TRAIN) {
            continue;
        }
        Scene sc;
        float x[CNN_NIN], mask32[CNN_SIDE * CNN_SIDE],
            mask16[CNN_HALF * CNN_HALF];
        float maps[2][ATTR_COUNT][CNN_SIDE * CNN_SIDE];
        float m16[ATTR_COUNT][CNN_HALF * CNN_HALF];
        int rc = scene_render(&it->spec, &sc, err);
        if (rc != SIM_OK) {
            return rc;
        }
        scene_input(&sc, x);
        scene_mask(&sc, CNN_SIDE, mask32);
        scene_mask(&sc, CNN_HALF, mask16);
        scene_free(&sc);
        for (int k = 0; k < CNN_SIDE * CNN_SIDE; k++) {
            rep->bg_pixels += 1.0 - mask32[k];
        }
        for (int mdl = 0; mdl < 2; mdl++) {
            const Cnn *net = mdl ? &st->unbiased : &st->biased;
            for (int m = 0; m < ATTR_COUNT; m++) {
                int side = attr_map_side((AttrMethod)m);
                attr_compute(net, x, (AttrMethod)m, it->spec.seed ^ 0x5u,
                             maps[mdl][m]);
                attr_normalize(maps[mdl][m], side * side);
                double bg = attr_background_mass(
                    maps[mdl][m], side == CNN_SIDE ? mask32 : mask16,
                    side * side);
                if (mdl) {
                    rep->bg_mass_unbiased[m] += bg;
                } else {
                    rep->bg_mass[m] += bg;
                }
            }
            for (int m = 0; m < ATTR_COUNT; m++) {
                pool_map(maps[mdl][m], attr_map_side((AttrMethod)m), m16[m]);
            }
            for (int m = 0; m < ATTR_COUNT; m++) {
                double r = attr_pearson(m16[ATTR_CONTROL], m16[m],
                                        CNN_HALF * CNN_HALF);
                if (mdl) {
                    rep->control_corr_unbiased[m] += r;
                } else {
                    rep->control_corr[m] += r;
                    for (int m2 = 0; m2 < ATTR_COUNT; m2++) {
                        corr_sum[m][m2] +=
                            attr_pearson(m16[m], m16[m2], CNN_HALF * CNN_HALF);
                    }
                }
            }
        }
        float c3[CNN_SIDE * CNN_SIDE];
        attr_compute(&untrained, x, ATTR_CONTROL, it->spec.seed ^ 0x5u, c3);
        attr_normalize(c3, CNN_SIDE * CNN_SIDE);
        if (memcmp(c3, maps[0][ATTR_CONTROL], sizeof c3) != 0 ||
            memcmp(c3, maps[1][ATTR_CONTROL], sizeof c3) != 0) {
            rep->control_model_free = 0;
        }
        n++;
    }
    if (n == 0) {
        return sim_fail(err, SIM_ERR_INVALID, "image study: no train items");
    }
    rep->bg_pixels /= (double)n * CNN_SIDE * CNN_SIDE;
    for (int m = 0; m < ATTR_COUNT; m++) {
        rep->bg_mass[m] /= n;
        rep->bg_mass_unbiased[m] /= n;
        rep->control_corr[m] /= n;
        rep->control_corr_unbiased[m] /= n;
    }
    rep->method_corr_max = -1;
    for (int a = 0; a < ATTR_COUNT; a++) {
        for (int b = a + 1; b < ATTR_COUNT; b++) {
            if (a == ATTR_CONTROL || b == ATTR_CONTROL) {
                continue;
            }
            double r = corr_sum[a][b] / n;
            rep->method_corr_max =
                r > rep->method_corr_max ? r : rep->method_corr_max;
        }
    }
    return SIM_OK;
}
