/*
** `simlab new --preset hive-distinction`: a starter for HIVE's distinction
** task (Kim et al., ECCV 2022). Eight classes in classes.csv, items with
** four candidate classes each (the "options" column) and one placeholder
** explanation per candidate ("per_option"): pictures with a heatmap each
** (HIVE's form), or short texts (topics) with word weights each.
*/
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/scaffold.h"
#include "stimuli/scaffold_int.h"

#define N_CLASSES  8
#define N_OPTIONS  4
#define N_PRACTICE 2
#define N_TEST     8

static const char *const shape_ids[N_CLASSES] = {
    "round", "square", "oval", "diamond", "star", "ring", "cross", "wave"};
static const char *const topic_ids[N_CLASSES] = {
    "sport", "politics", "science",  "music",
    "food",  "travel",   "business", "health"};
/* Words that speak for a topic, in the placeholder texts. */
static const char *const topic_words[N_CLASSES][4] = {
    {"striker", "match", "coach", "goal"},
    {"minister", "vote", "parliament", "election"},
    {"researchers", "experiment", "telescope", "data"},
    {"band", "album", "concert", "song"},
    {"chef", "recipe", "soup", "bread"},
    {"flight", "hotel", "passport", "beach"},
    {"shares", "profits", "company", "market"},
    {"doctors", "vaccine", "hospital", "patients"}};

typedef struct Hive {
    int text;                  /* text items (topics), else pictures */
    const char *const *ids;    /* class ids */
    const char *const *labels; /* in the study's language */
    const StarterTexts *tx;
} Hive;

/* Item k's candidates: the model's output (k), its true class and two
** more, in an order that moves the output around. */
static void candidates(int k, int out[N_OPTIONS])
{
    int pred = k % N_CLASSES;
    int label = k % 3 == 2 ? (pred + 1) % N_CLASSES : pred;
    int n = 0;
    int pos = k % N_OPTIONS;
    for (int c = 0; n < N_OPTIONS; c++) {
        int cls = (pred + c * 3) % N_CLASSES;
        if (n == pos) {
            out[n++] = pred;
        }
        if (n < N_OPTIONS && cls != pred) {
            int dup = 0;
            for (int j = 0; j < n; j++) {
                dup |= out[j] == cls;
            }
            if (!dup) {
                out[n++] = cls;
            }
        }
    }
    int has_label = 0;
    for (int j = 0; j < N_OPTIONS; j++) {
        has_label |= out[j] == label;
    }
    if (!has_label) {
        out[(pos + 1) % N_OPTIONS] = label;
    }
}

static void write_classes(Out *o, const Hive *h)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "id,label\n");
    for (int c = 0; c < N_CLASSES; c++) {
        sim_buf_printf(&b, "%s,\"%s\"\n", h->ids[c], h->labels[c]);
    }
    sc_write_buf(o, "classes.csv", &b);
}

/* Text item k of true topic label, with one word of the model's topic:
** "A story about the striker, the vote and the goal." */
static void text_words(int k, int label, int pred, const char *w[8])
{
    static const char *const frame[8] = {"A",  "story", "about", "the",
                                         NULL, "the",   NULL,    NULL};
    for (int i = 0; i < 8; i++) {
        w[i] = frame[i];
    }
    w[4] = topic_words[label][k % 4];
    w[6] = topic_words[pred][(k + 1) % 4];
    w[7] = topic_words[label][(k + 2) % 4];
}

/* The weight of word w for topic cls: its own words high, another
** topic's words against it, the rest near 0. */
static double word_weight(const char *w, int cls, int i)
{
    for (int c = 0; c < N_CLASSES; c++) {
        for (int j = 0; j < 4; j++) {
            if (strcmp(w, topic_words[c][j]) == 0) {
                return c == cls ? 0.7 + 0.05 * (double)(j % 3) : -0.3;
            }
        }
    }
    return 0.02 * (double)((i % 3) - 1);
}

/* items.csv, the pictures (or texts) and one heatmap (word weights) per
** candidate; explanations. */
static void write_items(Out *o, const Hive *h)
{
    SimBuf items, expl;
    sim_buf_init(&items);
    sim_buf_init(&expl);
    sim_buf_puts(&items, "id,pool,input,label,prediction,options\n");
    unsigned char *rgb = sim_malloc(IMG * IMG * 3);
    unsigned char *grey = sim_malloc(IMG * IMG);
    if (!rgb || !grey) {
        items.oom = 1;
    }
    for (int k = 0; k < N_PRACTICE + N_TEST && !items.oom; k++) {
        const char *pool = k < N_PRACTICE ? "practice" : "test";
        char id[16], rel[96];
        snprintf(id, sizeof id, "%s%02d", k < N_PRACTICE ? "p" : "t",
                 k < N_PRACTICE ? k + 1 : k - N_PRACTICE + 1);
        int opts[N_OPTIONS];
        candidates(k, opts);
        int pred = k % N_CLASSES;
        int label = k % 3 == 2 ? (pred + 1) % N_CLASSES : pred;
        const char *w[8];
        if (h->text) {
            text_words(k, label, pred, w);
            sim_buf_printf(
                &items, "%s,%s,\"%s %s %s %s %s, %s %s and %s %s.\",", id, pool,
                w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[3], w[7]);
        } else {
            snprintf(rel, sizeof rel, "media/%s-%s.png", pool, id);
            sc_draw_shape(rgb, label % 2, k);
            sc_write_png(o, rel, rgb, IMG, IMG, 3);
            sim_buf_printf(&items, "%s,%s,%s,", id, pool, rel);
        }
        sim_buf_printf(&items, "%s,%s,", h->ids[label], h->ids[pred]);
        sim_buf_printf(&expl,
                       "{\"id\": \"%s\", \"pool\": \"%s\", \"per_option\": {",
                       id, pool);
        for (int j = 0; j < N_OPTIONS; j++) {
            const char *cls = h->ids[opts[j]];
            sim_buf_printf(&items, "%s%s", j ? "|" : "", cls);
            if (h->text) {
                /* the sentence's words as shown, each weighed for cls */
                const char *tok[11] = {w[0], w[1],  w[2], w[3], w[4], w[5],
                                       w[6], "and", w[3], w[7], NULL};
                sim_buf_printf(&expl,
                               "%s\"%s\": {\"kind\": \"tokens\", "
                               "\"tokens\": [",
                               j ? ", " : "", cls);
                for (int t = 0; tok[t]; t++) {
                    sim_buf_printf(&expl, "%s[\"%s%s\", %.2f]", t ? ", " : "",
                                   tok[t],
                                   t == 4   ? ","
                                   : t == 9 ? "."
                                            : "",
                                   word_weight(tok[t], opts[j], t));
                }
                sim_buf_puts(&expl, "]}");
                continue;
            }
            snprintf(rel, sizeof rel, "media/%s-%s-%s.png", pool, id, cls);
            sc_draw_heat(grey, k + 3 * j);
            sc_write_png(o, rel, grey, IMG, IMG, 1);
            sim_buf_printf(&expl,
                           "%s\"%s\": {\"kind\": \"heatmap\", \"file\": "
                           "\"%s\", \"colormap\": \"viridis\", \"opacity\": "
                           "0.5}",
                           j ? ", " : "", cls, rel);
        }
        sim_buf_puts(&items, "\n");
        sim_buf_puts(&expl, "}}\n");
    }
    sim_free(rgb);
    sim_free(grey);
    sc_write_buf(o, "items.csv", &items);
    sc_write_buf(o, "explanations.jsonl", &expl);
}

static void write_study(Out *o, const char *id, const Hive *h)
{
    const char *mname = h->text ? "text" : "image";
    SimBuf b, title;
    sim_buf_init(&b);
    sim_buf_init(&title);
    const char *const vars[][2] = {{"preset", "hive-distinction"},
                                   {"modality", mname}};
    scaffold_fill(&title, h->tx->title, vars, 2);
    char lang[64] = "";
    if (strcmp(h->tx->tag, "en") != 0) {
        snprintf(lang, sizeof lang, "  \"language\": \"%s\",\n", h->tx->tag);
    }
    sim_buf_printf(
        &b,
        "{\n"
        "  \"simlab_study\": 1,\n"
        "  \"notes\": [\"Starter bundle written by `simlab new` (preset "
        "hive-distinction, modality %s).\",\n"
        "            \"Replace the placeholder items, explanations and pages: "
        "README.md says what to fill in.\",\n"
        "            \"Members named notes, x-... or _... are yours; any "
        "other unknown field is an error (simlab check says which).\"],\n"
        "  \"id\": \"%s\",\n"
        "  \"title\": \"%s\",\n%s"
        "  \"domain\": \"%s\",\n"
        "  \"classes\": {\"file\": \"classes.csv\",\n"
        "              \"notes\": \"One row per class: id (the value in "
        "items.csv) and label (what participants see). ImageNet's 1,000 "
        "or CUB's 200 fit; each item offers only its own options.\"},\n"
        "  \"conditions\": [\n"
        "    {\"id\": \"my_method\", \"method\": \"my_method\",\n"
        "     \"notes\": \"Shows the explanations of method my_method "
        "(explanations.jsonl), one per candidate class. Add one condition "
        "per method you compare.\"}\n"
        "  ],\n"
        "  \"protocol\": {\"preset\": \"hive-distinction\", "
        "\"practice_pool\": \"practice\", \"n_practice\": %d, \"n_test\": "
        "%d,\n"
        "               \"notes\": \"Each test item offers its candidate "
        "classes (the options column, HIVE's four), shuffled per trial "
        "(shuffle_options); the participant picks the one the model "
        "predicted. Practice items give feedback.\"},\n"
        "  \"assignment\": {\"rule\": \"balanced\"},\n"
        "  \"pages\": {\"consent\": \"pages/consent.md\", "
        "\"instructions\": [\"pages/instructions.md\"],\n"
        "            \"debrief\": \"pages/debrief.md\"},\n"
        "  \"items\": [\n"
        "    {\"file\": \"items.csv\", \"modality\": \"%s\",\n"
        "     \"columns\": {\"id\": \"id\", \"pool\": \"pool\", \"input\": "
        "\"input\", \"label\": \"label\",\n"
        "                 \"prediction\": \"prediction\", \"options\": "
        "\"options\"},\n"
        "     \"notes\": \"One row per item: input is %s, label the "
        "true class, prediction the model's output, options its 2 to 10 "
        "candidate classes separated by '|' (the model's output among "
        "them).\"}\n"
        "  ],\n"
        "  \"explanations\": [\n"
        "    {\"method\": \"my_method\", \"file\": \"explanations.jsonl\",\n"
        "     \"notes\": \"One line per item: per_option gives the payload "
        "shown beside each candidate (here %s).\"}\n"
        "  ],\n"
        "  \"simulation\": {\"p\": 0.6, \"notes\": \"Simulated participants "
        "pick the model's output with P 0.6, else another candidate.\"}\n"
        "}\n",
        mname, id, sim_buf_cstr(&title), lang, mname, N_PRACTICE, N_TEST, mname,
        h->text ? "the text" : "the picture",
        h->text ? "word weights (tokens)" : "a heatmap");
    if (title.oom) {
        b.oom = 1;
    }
    sim_buf_free(&title);
    sc_write_buf(o, "study.json", &b);
}

static void write_pages(Out *o, const Hive *h)
{
    sc_make_dir(o, "pages");
    sc_write_text(o, "pages/consent.md", h->tx->consent);
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, h->tx->task_head);
    sim_buf_puts(&b, h->tx->hive_task[h->text]);
    sc_write_buf(o, "pages/instructions.md", &b);
    sc_write_text(o, "pages/debrief.md", h->tx->hive_debrief);
}

static void write_readme(Out *o, const Hive *h)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(
        &b,
        "# A hive-distinction study (%s)\n\n"
        "Written by `simlab new --preset hive-distinction`: HIVE's "
        "distinction task (Kim et al., ECCV 2022). `simlab check .` "
        "accepts it as it is and `simlab simulate . --participants 20` "
        "runs it. The participants' texts (pages, class labels) are in "
        "the study's language (`%s`).\n\n"
        "1. `classes.csv`: your classes (id, label), e.g. ImageNet's "
        "1,000.\n"
        "2. `items.csv`: one row per %s; `options` lists its "
        "candidate classes separated by `|` (the model's output among "
        "them).%s\n"
        "3. `explanations.jsonl`: per item, `per_option` gives each "
        "candidate's explanation (%s here; any payload kind).\n"
        "4. `pages/`: consent, instructions and debrief.\n\n"
        "The export's `n_options` and `options_shown` say what each trial "
        "offered, in the order shown; chance is 1 / n_options.\n",
        h->text ? "text" : "image", h->tx->tag, h->text ? "text" : "picture",
        h->text ? " The placeholder sentences are English: write your "
                  "items in the participants' language."
                : "",
        h->text ? "word weights" : "a heatmap");
    sc_write_buf(o, "README.md", &b);
}

int scaffold_write_hive(const char *dir, const char *modality,
                        const char *explanation, const StarterTexts *tx,
                        SimError *err)
{
    int text = modality && strcmp(modality, "text") == 0;
    if (!modality || (!text && strcmp(modality, "image") != 0)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "hive-distinction shows pictures or texts: use "
                        "--modality image or text");
    }
    if (explanation) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "hive-distinction writes one %s per candidate: "
                        "leave out --explanation",
                        text ? "set of word weights" : "heatmap");
    }
    char id[64];
    int rc = sc_prepare_dir(dir, id, sizeof id, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Hive h = {text, text ? topic_ids : shape_ids, text ? tx->topic : tx->shape,
              tx};
    Out o = {dir, err, SIM_OK};
    if (!text) {
        sc_make_dir(&o, "media");
    }
    write_classes(&o, &h);
    write_items(&o, &h);
    write_study(&o, id, &h);
    write_pages(&o, &h);
    write_readme(&o, &h);
    if (o.rc == SIM_OK) {
        sim_error_clear(err);
    }
    return o.rc;
}
