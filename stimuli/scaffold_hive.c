/*
** `simlab new --preset hive-distinction`: a starter for HIVE's distinction
** task (Kim et al., ECCV 2022). Eight classes in classes.csv, items with
** four candidate classes each (the "options" column) and one placeholder
** heatmap per candidate ("per_option"). Image items only, as HIVE's.
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

static const char *const hive_ids[N_CLASSES] = {
    "round", "square", "oval", "diamond", "star", "ring", "cross", "wave"};
static const char *const hive_labels[N_CLASSES] = {
    "Round", "Square", "Oval", "Diamond", "Star", "Ring", "Cross", "Wave"};

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

static void write_classes(Out *o)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "id,label\n");
    for (int c = 0; c < N_CLASSES; c++) {
        sim_buf_printf(&b, "%s,%s\n", hive_ids[c], hive_labels[c]);
    }
    sc_write_buf(o, "classes.csv", &b);
}

/* items.csv, the pictures and one heatmap per candidate; explanations. */
static void write_items(Out *o)
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
        snprintf(rel, sizeof rel, "media/%s-%s.png", pool, id);
        sc_draw_shape(rgb, label % 2, k);
        sc_write_png(o, rel, rgb, IMG, IMG, 3);
        sim_buf_printf(&items, "%s,%s,%s,%s,%s,", id, pool, rel,
                       hive_ids[label], hive_ids[pred]);
        sim_buf_printf(&expl,
                       "{\"id\": \"%s\", \"pool\": \"%s\", \"per_option\": {",
                       id, pool);
        for (int j = 0; j < N_OPTIONS; j++) {
            sim_buf_printf(&items, "%s%s", j ? "|" : "", hive_ids[opts[j]]);
            snprintf(rel, sizeof rel, "media/%s-%s-%s.png", pool, id,
                     hive_ids[opts[j]]);
            sc_draw_heat(grey, k + 3 * j);
            sc_write_png(o, rel, grey, IMG, IMG, 1);
            sim_buf_printf(&expl,
                           "%s\"%s\": {\"kind\": \"heatmap\", \"file\": "
                           "\"%s\", \"colormap\": \"viridis\", \"opacity\": "
                           "0.5}",
                           j ? ", " : "", hive_ids[opts[j]], rel);
        }
        sim_buf_puts(&items, "\n");
        sim_buf_puts(&expl, "}}\n");
    }
    sim_free(rgb);
    sim_free(grey);
    sc_write_buf(o, "items.csv", &items);
    sc_write_buf(o, "explanations.jsonl", &expl);
}

static void write_study(Out *o, const char *id)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(
        &b,
        "{\n"
        "  \"simlab_study\": 1,\n"
        "  \"notes\": [\"Starter bundle written by `simlab new` (preset "
        "hive-distinction, modality image).\",\n"
        "            \"Replace the placeholder items, explanations and pages: "
        "README.md says what to fill in.\",\n"
        "            \"Members named notes, x-... or _... are yours; any "
        "other unknown field is an error (simlab check says which).\"],\n"
        "  \"id\": \"%s\",\n"
        "  \"title\": \"My hive-distinction study (image)\",\n"
        "  \"domain\": \"image\",\n"
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
        "    {\"file\": \"items.csv\", \"modality\": \"image\",\n"
        "     \"columns\": {\"id\": \"id\", \"pool\": \"pool\", \"input\": "
        "\"input\", \"label\": \"label\",\n"
        "                 \"prediction\": \"prediction\", \"options\": "
        "\"options\"},\n"
        "     \"notes\": \"One row per item: input is the picture, label the "
        "true class, prediction the model's output, options its 2 to 10 "
        "candidate classes separated by '|' (the model's output among "
        "them).\"}\n"
        "  ],\n"
        "  \"explanations\": [\n"
        "    {\"method\": \"my_method\", \"file\": \"explanations.jsonl\",\n"
        "     \"notes\": \"One line per item: per_option gives the payload "
        "shown beside each candidate (here a heatmap).\"}\n"
        "  ],\n"
        "  \"simulation\": {\"p\": 0.6, \"notes\": \"Simulated participants "
        "pick the model's output with P 0.6, else another candidate.\"}\n"
        "}\n",
        id, N_PRACTICE, N_TEST);
    sc_write_buf(o, "study.json", &b);
}

static void write_pages(Out *o)
{
    sc_make_dir(o, "pages");
    sc_write_text(
        o, "pages/consent.md",
        "# Consent\n\n"
        "**Placeholder: replace this page with your ethics board's "
        "approved consent text.**\n\n"
        "This study is about how people understand a computer program "
        "that recognises pictures. It takes about 15 minutes. You may stop "
        "at any time without giving a reason. Your answers are stored "
        "without your name.\n\n"
        "Press Continue if you agree to take part.\n");
    sc_write_text(
        o, "pages/instructions.md",
        "# Your task\n\n"
        "**Placeholder: adapt these instructions to your items and "
        "explanations.**\n\n"
        "A computer program, **the model**, looked at each picture and "
        "chose one class. You see **four candidate classes**, each with the "
        "evidence the model found for it. Pick the candidate **the model "
        "chose**: press its number or click it.\n\n"
        "The first items are practice: you are told whether you were "
        "right.\n");
    sc_write_text(o, "pages/debrief.md",
                  "# Thank you\n\n"
                  "**Placeholder: say what the study was about and whom to "
                  "contact.**\n\n"
                  "The candidates were the model's four most likely "
                  "classes.\n");
}

static void write_readme(Out *o)
{
    sc_write_text(
        o, "README.md",
        "# A hive-distinction study\n\n"
        "Written by `simlab new --preset hive-distinction`: HIVE's "
        "distinction task (Kim et al., ECCV 2022). `simlab check .` "
        "accepts it as it is and `simlab simulate . --participants 20` "
        "runs it.\n\n"
        "1. `classes.csv`: your classes (id, label), e.g. ImageNet's "
        "1,000.\n"
        "2. `items.csv`: one row per picture; `options` lists its "
        "candidate classes separated by `|` (the model's output among "
        "them).\n"
        "3. `explanations.jsonl`: per item, `per_option` gives each "
        "candidate's explanation (a heatmap here; any payload kind).\n"
        "4. `pages/`: consent, instructions and debrief.\n\n"
        "The export's `n_options` and `options_shown` say what each trial "
        "offered, in the order shown; chance is 1 / n_options.\n");
}

int scaffold_write_hive(const char *dir, const char *modality,
                        const char *explanation, SimError *err)
{
    if (modality && strcmp(modality, "image") != 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "hive-distinction shows pictures: use --modality "
                        "image");
    }
    if (explanation) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "hive-distinction writes one heatmap per candidate: "
                        "leave out --explanation");
    }
    char id[64];
    int rc = sc_prepare_dir(dir, id, sizeof id, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Out o = {dir, err, SIM_OK};
    sc_make_dir(&o, "media");
    write_classes(&o);
    write_items(&o);
    write_study(&o, id);
    write_pages(&o);
    write_readme(&o);
    if (o.rc == SIM_OK) {
        sim_error_clear(err);
    }
    return o.rc;
}
