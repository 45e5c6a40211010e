/*
** The explanation primitives (image, gallery, markdown, bars, layout) and
** "reveal" at load time, on scratch bundles of one image item: every
** primitive and a composition of all of them load with the fields the
** format documents (docs/study-format.md, "Payload kinds"); each mistake
** is one located error with the documented message; expl_media and
** expl_hover_targets walk any payload; the markdown dialect's italic runs
** and hard line breaks.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "stimuli/page.h"
#include "stimuli/study.h"

#include <math.h>

#define VALID SIMLAB_TEST_DATA "/bundles/valid-all/media/"
#define BAD   SIMLAB_TEST_DATA "/bundles/bad-media/media/"

static const char *const STUDY =
    "{\"simlab_study\": 1, \"id\": \"prims\", \"title\": \"Primitives\",\n"
    " \"domain\": \"photos\",\n"
    " \"classes\": [{\"id\": \"cat\", \"label\": \"Cat\", \"key\": \"c\"},\n"
    "               {\"id\": \"dog\", \"label\": \"Dog\", \"key\": \"d\"}],\n"
    " \"conditions\": [{\"id\": \"x\", \"method\": \"m\"}],\n"
    " \"blocks\": [{\"kind\": \"learn\", \"id\": \"l\", \"pool\": "
    "\"learn\"}],\n"
    " \"items\": [{\"file\": \"items.jsonl\"}]}\n";

/* A scratch bundle whose one item (an image) has payload as method m. */
static char *bundle(const char *payload, const char *study)
{
    static char dir[64];
    if (!fs_temp_dir(dir, sizeof dir, "prims")) {
        return NULL;
    }
    char path[256], line[8192];
    snprintf(path, sizeof path, "%s/media", dir);
    mkdir(path, 0755);
    static const char *const media[] = {"cat.png", "dog.jpg",
                                        "cat-saliency.png", "cat-ig.npy",
                                        "wrong-shape.npy"};
    for (int i = 0; i < 5; i++) {
        char src[512];
        snprintf(src, sizeof src, "%s%s", i < 4 ? VALID : BAD, media[i]);
        snprintf(path, sizeof path, "%s/media/%s", dir, media[i]);
        fs_copy_file(src, path);
    }
    snprintf(path, sizeof path, "%s/media/notes.txt", dir);
    fs_write(path, "x\n", 2);
    snprintf(path, sizeof path, "%s/study.json", dir);
    const char *s = study ? study : STUDY;
    fs_write(path, s, strlen(s));
    int n = snprintf(line, sizeof line,
                     "{\"id\": \"a\", \"pool\": \"learn\", \"modality\": "
                     "\"image\", \"input\": \"media/cat.png\", \"label\": "
                     "\"cat\", \"prediction\": "
                     "\"cat\", \"explanations\": {\"m\": %s}}\n",
                     payload);
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    fs_write(path, line, (size_t)n);
    return dir;
}

/* Loads payload; returns the study (NULL on errors, then *out holds the
** check report). */
static Study *load(const char *payload, char **out)
{
    *out = NULL;
    char *dir = bundle(payload, NULL);
    if (!dir) {
        return NULL;
    }
    Study *st = NULL;
    SimError err;
    if (study_load(dir, &st, NULL, &err) != SIM_OK) {
        fs_check(dir, 0, out);
    }
    fs_remove_tree(dir);
    return st;
}

static const Explanation *expl_of(const Study *st)
{
    const Item *it = st ? study_find_item(st, "learn:a") : NULL;
    return it ? item_explanation(it, "m") : NULL;
}

/* payload fails with exactly one error containing want. */
static void bad(const char *payload, const char *want)
{
    char *out = NULL;
    Study *st = load(payload, &out);
    CHECK(st == NULL);
    CHECK(out && strstr(out, want) != NULL);
    CHECK(out && strstr(out, "1 error") != NULL);
    if (!out || !strstr(out, want) || !strstr(out, "1 error")) {
        fprintf(stderr, "payload %s\nwant: %s\ngot:\n%s\n", payload, want,
                out ? out : "(nothing)");
    }
    study_free(st);
    free(out);
}

static void count_media(void *ctx, const char *rel, const char *file,
                        int is_map, int is_npy, const char *colormap)
{
    (void)rel, (void)is_npy, (void)colormap;
    int *n = ctx;
    n[0]++;
    n[1] += is_map;
    n[2] += file != NULL;
}

static void count_target(void *ctx, size_t index, const char *label)
{
    int *n = ctx;
    CHECK_INT((int)index, n[0]);
    CHECK(label && *label);
    n[0]++;
}

static void test_primitives(void)
{
    char *out = NULL;
    /* image: the item's own image with an overlay of its size */
    Study *st = load("{\"kind\": \"image\", \"caption\": \"Where it looked\", "
                     "\"overlay\": {\"file\": \"media/cat-ig.npy\", "
                     "\"colormap\": \"magma\", \"opacity\": 0.4}}",
                     &out);
    const Explanation *e = expl_of(st);
    CHECK(e && e->kind == EXPL_IMAGE && e->n_images == 1 && e->has_overlay);
    if (e) {
        CHECK(e->images[0].file == NULL); /* the item's */
        CHECK_STR(e->images[0].caption, "Where it looked");
        CHECK_STR(e->colormap, "magma");
        CHECK_NEAR(e->opacity, 0.4, 1e-12);
        CHECK(expl_shows_input(e));
        int n[3] = {0, 0, 0};
        const Item *it = study_find_item(st, "learn:a");
        expl_media(e, &it->input, count_media, n);
        CHECK_INT(n[0], 2); /* the item's image and the map */
        CHECK_INT(n[1], 1);
        CHECK_INT(n[2], 2);
        CHECK_INT((int)expl_hover_targets(e, NULL, NULL), 0);
    }
    study_free(st);
    free(out);

    /* gallery: names and objects, weights, columns; hoverable */
    st = load("{\"kind\": \"gallery\", \"columns\": 3, \"reveal\": "
              "\"hover\", \"images\": [\"media/dog.jpg\", {\"file\": "
              "\"media/cat.png\", \"caption\": \"Nearest cat\", \"weight\": "
              "0.8}]}",
              &out);
    e = expl_of(st);
    CHECK(e && e->kind == EXPL_GALLERY && e->n_images == 2);
    if (e) {
        CHECK_INT(e->columns, 3);
        CHECK_INT(e->reveal, EXPL_REVEAL_HOVER);
        CHECK(isnan(e->images[0].weight));
        CHECK_NEAR(e->images[1].weight, 0.8, 1e-12);
        CHECK_STR(e->images[1].caption, "Nearest cat");
        CHECK(e->images[0].w > 0 && e->images[0].image_file != NULL);
        CHECK(!expl_shows_input(e));
        int n[1] = {0};
        CHECK_INT((int)expl_hover_targets(e, count_target, n), 2);
    }
    study_free(st);
    free(out);

    /* markdown: italic runs and a hard break; on-request as `simlab new
    ** --explanation` spells it */
    st = load("{\"kind\": \"markdown\", \"reveal\": \"on-request\", \"text\": "
              "\"The model saw **stripes** and *fur*.\\\\\\nNot the "
              "_background_.\\n\\n- one\\n- two\"}",
              &out);
    e = expl_of(st);
    CHECK(e && e->kind == EXPL_MARKDOWN && e->doc);
    if (e && e->doc) {
        CHECK_INT(e->reveal, EXPL_REVEAL_ON_REQUEST);
        CHECK_INT((int)e->doc->n_blocks, 3);
        const PageBlock *p = &e->doc->blocks[0];
        CHECK_STR(p->text, "The model saw stripes and fur.\nNot the "
                           "background.");
        int strong = 0, em = 0;
        for (size_t i = 0; i < p->n_spans; i++) {
            strong += p->spans[i].strong;
            em += p->spans[i].em;
        }
        CHECK_INT(strong, 1);
        CHECK_INT(em, 2);
        CHECK_INT(e->doc->blocks[1].kind, PAGE_BULLET);
    }
    if (!e) {
        fprintf(stderr, "%s\n", out ? out : "");
    }
    study_free(st);
    free(out);

    /* bars: pairs and objects, signed from the values, unit, sum */
    st = load("{\"kind\": \"bars\", \"unit\": \"%\", \"sum\": true, "
              "\"decimals\": 1, \"bars\": [[\"stripes\", 42.5], {\"label\": "
              "\"grass\", \"value\": -7}]}",
              &out);
    e = expl_of(st);
    CHECK(e && e->kind == EXPL_BARS && e->n_features == 2);
    if (e) {
        CHECK_STR(e->features[0].name, "stripes");
        CHECK_NEAR(e->features[1].weight, -7, 0);
        CHECK_INT(e->bars_signed, 1);
        CHECK_INT(e->show_sum, 1);
        CHECK_INT(e->decimals, 1);
        CHECK_STR(e->unit, "%");
    }
    study_free(st);
    free(out);

    /* layout of every primitive and a published kind, nested */
    st = load("{\"kind\": \"layout\", \"direction\": \"row\", \"reveal\": "
              "\"hover\", \"parts\": [{\"kind\": \"image\", \"file\": "
              "\"media/dog.jpg\"}, {\"kind\": \"layout\", \"parts\": "
              "[{\"kind\": \"markdown\", \"text\": \"Why\"}, {\"kind\": "
              "\"bars\", \"bars\": [[\"a\", 1], [\"b\", 2]]}, {\"kind\": "
              "\"heatmap\", \"file\": \"media/cat-saliency.png\"}]}, "
              "{\"kind\": \"gallery\", \"images\": [\"media/cat.png\"]}]}",
              &out);
    e = expl_of(st);
    CHECK(e && e->kind == EXPL_LAYOUT && e->row && e->n_parts == 3);
    if (e) {
        CHECK_INT(e->parts[1].n_parts, 3);
        CHECK_INT(e->parts[1].row, 0);
        CHECK(expl_shows_input(e)); /* the heatmap over the item */
        int n[3] = {0, 0, 0};
        const Item *it = study_find_item(st, "learn:a");
        expl_media(e, &it->input, count_media, n);
        /* dog, (item image + map) of the heatmap, the gallery's cat */
        CHECK_INT(n[0], 4);
        CHECK_INT(n[1], 1);
        int t[1] = {0};
        CHECK_INT((int)expl_hover_targets(e, count_target, t), 3);
    }
    if (!e) {
        fprintf(stderr, "%s\n", out ? out : "");
    }
    study_free(st);
    free(out);
}

static void test_mistakes(void)
{
    bad("{\"kind\": \"image\", \"file\": \"media/notes.txt\"}",
        "field 'explanations.m.file': 'media/notes.txt': an image must be a "
        ".png or .jpg file");
    bad("{\"kind\": \"image\", \"file\": \"media/gone.png\"}",
        "'media/gone.png': no such file");
    bad("{\"kind\": \"image\", \"file\": \"media/dog.jpg\", \"overlay\": "
        "{\"file\": \"media/wrong-shape.npy\"}}",
        "map is 5x5 (WxH) but 'media/dog.jpg' is 16x12");
    bad("{\"kind\": \"image\", \"overlay\": 3}",
        "field 'explanations.m.overlay': must be an object");
    bad("{\"kind\": \"image\", \"overlay\": {\"file\": \"media/cat-ig.npy\", "
        "\"alpha\": 1}}",
        "field 'explanations.m.overlay.alpha': unknown field of an overlay");
    bad("{\"kind\": \"gallery\", \"images\": []}",
        "field 'explanations.m.images': must not be empty");
    bad("{\"kind\": \"gallery\", \"images\": [{\"file\": \"media/cat.png\", "
        "\"weight\": \"high\"}]}",
        "field 'explanations.m.images.0.weight': must be a finite "
        "number");
    bad("{\"kind\": \"gallery\", \"images\": [7]}",
        "an image is {\"file\", \"caption\", \"weight\"} or a file name");
    bad("{\"kind\": \"gallery\", \"columns\": 13, \"images\": "
        "[\"media/cat.png\"]}",
        "field 'explanations.m.columns': 13 is out of range 1..12");
    bad("{\"kind\": \"markdown\"}",
        "field 'explanations.m.text': missing (required)");
    bad("{\"kind\": \"markdown\", \"text\": \"See ![a map](media/cat.png)\\n"
        "\\n![a map](media/cat.png)\"}",
        "an image line ![...](...) in a markdown explanation");
    bad("{\"kind\": \"bars\", \"bars\": [[\"a\", \"b\"]]}",
        "must be a finite number");
    bad("{\"kind\": \"bars\", \"bars\": [3]}",
        "a bar is {\"label\", \"value\"} or [label, value]");
    bad("{\"kind\": \"bars\", \"unit\": \"kilometres per hour\", \"bars\": "
        "[[\"a\", 1]]}",
        "at most 16 bytes");
    bad("{\"kind\": \"layout\", \"direction\": \"diagonal\", \"parts\": "
        "[{\"kind\": \"markdown\", \"text\": \"x\"}]}",
        "'diagonal' is not row or column");
    bad("{\"kind\": \"layout\", \"parts\": [{\"kind\": \"layout\", \"parts\": "
        "[{\"kind\": \"layout\", \"parts\": [{\"kind\": \"layout\", "
        "\"parts\": [{\"kind\": \"layout\", \"parts\": [{\"kind\": "
        "\"layout\", \"parts\": [{\"kind\": \"markdown\", \"text\": "
        "\"x\"}]}]}]}]}]}]}",
        "layouts nest at most");
    bad("{\"kind\": \"markdown\", \"text\": \"x\", \"reveal\": \"later\"}",
        "'later' is not always, on_request or hover");
    bad("{\"kind\": \"markdown\", \"text\": \"x\", \"reveal\": \"hover\"}",
        "'hover' shows values on hover: a markdown explanation has none");
    bad("{\"kind\": \"layout\", \"parts\": [{\"kind\": \"markdown\", "
        "\"text\": \"x\", \"reveal\": \"on_request\"}]}",
        "a part is revealed with its explanation");
    bad("{\"kind\": \"sketch\"}", "unknown explanation kind 'sketch'");
    /* as a newcomer writes them */
    bad("{\"kind\": \"barz\", \"bars\": [[\"a\", 1]]}",
        "field 'explanations.m.kind': unknown explanation kind 'barz' (did "
        "you mean 'bars'?)");
    bad("{\"kind\": \"markdown\", \"text\": \"x\", \"reveal\": \"on "
        "request\"}",
        "'on request' is not always, on_request or hover (did you mean "
        "'on_request'?)");
    /* one missing file is one error, wherever it is named */
    bad("{\"kind\": \"layout\", \"parts\": [{\"kind\": \"image\", "
        "\"file\": \"media/gone.png\"}, {\"kind\": \"gallery\", "
        "\"images\": [\"media/gone.png\", {\"file\": \"media/gone.png\"}]}]}",
        "items.jsonl:1: field 'explanations.m.parts.0.file': "
        "'media/gone.png': no such file (and 2 more places: items.jsonl:1 "
        "field 'explanations.m.parts.1.images.0', items.jsonl:1 field "
        "'explanations.m.parts.1.images.1.file')");
}

/* An image payload of a text item needs a file; a class may not answer
** with the key that shows an explanation on request. */
static void test_study_level(void)
{
    char study[2048];
    snprintf(study, sizeof study, "%s", STUDY);
    char *k = strstr(study, "\"key\": \"c\"");
    memcpy(k, "\"key\": \"e\"", 10); /* expl.show_key in English */
    char *dir = bundle("{\"kind\": \"markdown\", \"text\": \"x\", "
                       "\"reveal\": \"on_request\"}",
                       study);
    char *out = NULL;
    CHECK(dir && fs_check(dir, 0, &out) != 0);
    CHECK(out && strstr(out, "'e' shows an explanation given on request"));
    if (dir) {
        fs_remove_tree(dir);
    }
    free(out);

    /* an always-shown payload does not reserve the key */
    dir = bundle("{\"kind\": \"markdown\", \"text\": \"x\"}", study);
    out = NULL;
    CHECK(dir && fs_check(dir, 0, &out) == 0);
    if (dir) {
        fs_remove_tree(dir);
    }
    free(out);

    snprintf(study, sizeof study, "%s", STUDY);
    dir = bundle("{\"kind\": \"image\"}", study);
    if (dir) {
        /* the item as text */
        char path[256];
        snprintf(path, sizeof path, "%s/items.jsonl", dir);
        const char *line =
            "{\"id\": \"a\", \"pool\": \"learn\", \"input\": \"a text\", "
            "\"modality\": \"text\", \"label\": \"cat\", \"prediction\": "
            "\"cat\", \"explanations\": {\"m\": {\"kind\": \"image\"}}}\n";
        fs_write(path, line, strlen(line));
        out = NULL;
        CHECK(fs_check(dir, 0, &out) != 0);
        CHECK(out && strstr(out, "an image explanation of a text item needs a "
                                 "file"));
        if (out && !strstr(out, "an image explanation of a text item")) {
            fprintf(stderr, "%s\n", out);
        }
        free(out);
        fs_remove_tree(dir);
    }
}

int main(void)
{
    test_primitives();
    test_mistakes();
    test_study_level();
    return TEST_REPORT();
}
