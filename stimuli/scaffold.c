/*
** `simlab new`: a starter bundle for a preset and a modality. The items are
** planned once (pool, id, true class, model output, output on the
** perturbation) so that the preset's balance rules hold, then written in the
** modality's form: CSV rows of text or "Name = value" features, or tiny
** generated PNGs. libc, POSIX mkdir/opendir and libpng only.
*/
#include "stimuli/scaffold.h"

#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/scaffold_int.h"
#include "stimuli/uistrings.h"

/* TP, FP, TN, FN as (label, output). */
static const int types[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};

static void plan(Planned *p, size_t *n, const char *pool, const char *prefix,
                 int count, int with_cf)
{
    for (int k = 0; k < count && *n < MAX_ITEMS; k++) {
        Planned *x = &p[(*n)++];
        x->pool = pool;
        snprintf(x->id, sizeof x->id, "%s%02d", prefix, k + 1);
        x->label = types[k % 4][0];
        x->output = types[k % 4][1];
        /* per prediction type: the first keeps its output, the second
        ** flips (hase-counterfactual wants as many of each) */
        x->cf_out = !with_cf ? -1 : (k / 4) % 2 ? 1 - x->output : x->output;
    }
}

/* The items of a preset: enough for its parameters as the starter sets
** them, in the balance its rules ask for. */
static size_t plan_items(Preset preset, Planned *p)
{
    size_t n = 0;
    switch (preset) {
    case P_FORWARD:
        plan(p, &n, "learn", "l", 4, 0);
        plan(p, &n, "test", "t", 8, 0);
        break;
    case P_COUNTERFACTUAL:
        plan(p, &n, "test", "t", 8, 1);
        break;
    case P_META:
        plan(p, &n, "practice", "p", 2, 0);
        plan(p, &n, "train", "r", 8, 0);
        plan(p, &n, "test", "t", 8, 0);
        break;
    case P_ACCEPT_REJECT:
        plan(p, &n, "learn", "l", 4, 0);
        plan(p, &n, "test", "t", 8, 0);
        break;
    case P_HIVE_AGREEMENT:
    case P_COUNT:
        plan(p, &n, "test", "t", 8, 0);
        break;
    }
    return n;
}

/* ------------------------------------------------------------ writing */

static void write_file(Out *o, const char *rel, const char *text)
{
    if (o->rc != SIM_OK) {
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->dir, rel);
    FILE *f = fopen(path, "wb");
    if (!f) {
        o->rc = sim_fail(o->err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
        return;
    }
    size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok) {
        o->rc = sim_fail(o->err, SIM_ERR_IO, "%s: write failed", path);
    }
}

void sc_write_buf(Out *o, const char *rel, SimBuf *b)
{
    if (b->oom && o->rc == SIM_OK) {
        o->rc = sim_fail(o->err, SIM_ERR_NOMEM, "out of memory");
    }
    write_file(o, rel, sim_buf_cstr(b));
    sim_buf_free(b);
}

static void make_dir(Out *o, const char *rel);

void sc_write_text(Out *o, const char *rel, const char *text)
{
    write_file(o, rel, text);
}

void sc_make_dir(Out *o, const char *rel)
{
    make_dir(o, rel);
}

static void make_dir(Out *o, const char *rel)
{
    if (o->rc != SIM_OK) {
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->dir, rel);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        o->rc = sim_fail(o->err, SIM_ERR_IO, "%s: mkdir: %s", path,
                         strerror(errno));
    }
}

/* Writes a w x h image (channels 1: grey, 3: RGB) as PNG. */
void sc_write_png(Out *o, const char *rel, const unsigned char *px, unsigned w,
                  unsigned h, int channels)
{
    if (o->rc != SIM_OK) {
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->dir, rel);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&img, path, 0, px, 0, NULL)) {
        o->rc = sim_fail(o->err, SIM_ERR_IO, "%s: %s", path, img.message);
    }
    png_image_free(&img);
}

/* -------------------------------------------------------- modalities */

/* A placeholder picture: a disc (class 0, "round") or a square (class 1)
** on a background tinted by k. */
void sc_draw_shape(unsigned char *px, int shape, int k)
{
    static const unsigned char bg[6][3] = {{236, 240, 244}, {244, 238, 228},
                                           {230, 242, 232}, {242, 232, 240},
                                           {232, 236, 246}, {246, 244, 226}};
    const unsigned char *b = bg[k % 6];
    double r = 26.0 + (double)(k % 3) * 4.0;
    double cx = 48.0 + (double)(k % 5) - 2.0, cy = 48.0 - (double)(k % 4);
    for (int y = 0; y < IMG; y++) {
        for (int x = 0; x < IMG; x++) {
            double dx = x - cx, dy = y - cy;
            double half = r * 0.85;
            int in = shape == 0 ? dx * dx + dy * dy <= r * r
                                : dx >= -half && dx <= half && dy >= -half &&
                                      dy <= half;
            unsigned char *p = &px[(y * IMG + x) * 3];
            p[0] = in ? (unsigned char)(shape == 0 ? 214 : 52) : b[0];
            p[1] = in ? (unsigned char)(shape == 0 ? 94 : 110) : b[1];
            p[2] = in ? (unsigned char)(shape == 0 ? 58 : 196) : b[2];
        }
    }
}

/* A placeholder saliency map: bright at the shape's centre. */
void sc_draw_heat(unsigned char *px, int k)
{
    double cx = 48.0 + (double)(k % 5) - 2.0, cy = 48.0 - (double)(k % 4);
    for (int y = 0; y < IMG; y++) {
        for (int x = 0; x < IMG; x++) {
            double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            double v = 1.0 - d2 / 1600.0; /* a cone around the centre */
            px[y * IMG + x] = (unsigned char)(v > 0 ? 255.0 * v * v : 0.0);
        }
    }
}

static const char *const pos_words[] = {"warm",   "funny",    "moving",
                                        "clever", "charming", "lively"};
static const char *const neg_words[] = {"dull", "tired", "flat",
                                        "slow", "bland", "clumsy"};
static const char *const nouns[] = {"story", "film",   "script",
                                    "cast",  "ending", "score"};

/* The words of a placeholder review: "A <adj> <noun> with a <adj2>
** <noun2>." in the tone of the true class. */
void sc_review_words(int k, int label, const char *w[7])
{
    const char *const *adj = label == 0 ? pos_words : neg_words;
    w[0] = "A";
    w[1] = adj[k % 6];
    w[2] = nouns[k % 6];
    w[3] = "with";
    w[4] = "a";
    w[5] = adj[(k + 3) % 6];
    w[6] = nouns[(k + 2) % 6];
}

static void review_text(SimBuf *b, int k, int label, int marked)
{
    const char *w[7];
    sc_review_words(k, label, w);
    const char *const *other = label == 0 ? neg_words : pos_words;
    sim_buf_printf(b, "%s %s%s%s %s %s %s %s %s.", w[0], marked ? "**" : "",
                   marked ? other[k % 6] : w[1], marked ? "**" : "", w[2], w[3],
                   w[4], w[5], w[6]);
}

/* Tabular features of a placeholder person, in the tone of the class. */
int sc_feature_age(int k, int label)
{
    return label == 0 ? 41 + k : 23 + k;
}

int sc_feature_hours(int k, int label)
{
    return label == 0 ? 44 + k % 5 : 22 + k % 7;
}

const char *sc_feature_education(int k, int label)
{
    static const char *const hi[] = {"Masters", "Bachelors", "Doctorate"};
    static const char *const lo[] = {"HS-grad", "Some-college", "11th"};
    return label == 0 ? hi[k % 3] : lo[k % 3];
}

/* ------------------------------------------------------ bundle files */

static void buf_putc(SimBuf *b, char ch)
{
    sim_buf_append(b, &ch, 1);
}

static void csv_quoted(SimBuf *b, const char *s)
{
    buf_putc(b, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"') {
            buf_putc(b, '"');
        }
        buf_putc(b, *p);
    }
    buf_putc(b, '"');
}

static void write_items(Out *o, const Ctx *c)
{
    SimBuf b;
    sim_buf_init(&b);
    int cf = c->preset == P_COUNTERFACTUAL;
    sim_buf_puts(&b, "id,pool,input,label,prediction");
    sim_buf_puts(&b, cf ? ",perturbation,perturbation_prediction\n" : "\n");
    unsigned char *rgb = sim_malloc(IMG * IMG * 3);
    unsigned char *grey = sim_malloc(IMG * IMG);
    if (!rgb || !grey) {
        b.oom = 1;
    }
    for (size_t i = 0; i < c->n_items && !b.oom; i++) {
        const Planned *x = &c->items[i];
        int k = (int)i;
        SimBuf cell, pert;
        sim_buf_init(&cell);
        sim_buf_init(&pert);
        char rel[64];
        switch (c->modality) {
        case M_IMAGE:
            snprintf(rel, sizeof rel, "media/%s-%s.png", x->pool, x->id);
            sc_draw_shape(rgb, x->label, k);
            sc_write_png(o, rel, rgb, IMG, IMG, 3);
            sim_buf_puts(&cell, rel);
            snprintf(rel, sizeof rel, "media/%s-%s-heat.png", x->pool, x->id);
            sc_draw_heat(grey, k);
            sc_write_png(o, rel, grey, IMG, IMG, 1);
            if (cf) {
                snprintf(rel, sizeof rel, "media/%s-%s-cf.png", x->pool, x->id);
                /* a flip changes the shape, a kept output moves it */
                sc_draw_shape(rgb,
                              x->cf_out == x->output ? x->label : 1 - x->label,
                              k + 1);
                sc_write_png(o, rel, rgb, IMG, IMG, 3);
                sim_buf_puts(&pert, rel);
            }
            break;
        case M_TEXT:
            review_text(&cell, k, x->label, 0);
            if (cf) {
                review_text(&pert, k, x->label, 1);
            }
            break;
        case M_TABULAR:
            sim_buf_printf(
                &cell, "Age = %d\nHours per week = %d\nEducation = %s",
                sc_feature_age(k, x->label), sc_feature_hours(k, x->label),
                sc_feature_education(k, x->label));
            if (cf) {
                int h = sc_feature_hours(k, x->label);
                sim_buf_printf(&pert, "Hours per week : %d --> %d", h,
                               x->label == 0 ? h - 20 : h + 20);
            }
            break;
        }
        sim_buf_printf(&b, "%s,%s,", x->id, x->pool);
        csv_quoted(&b, sim_buf_cstr(&cell));
        sim_buf_printf(&b, ",%s,%s", c->class_id[x->label],
                       c->class_id[x->output]);
        if (cf) {
            buf_putc(&b, ',');
            csv_quoted(&b, sim_buf_cstr(&pert));
            sim_buf_printf(&b, ",%s", c->class_id[x->cf_out]);
        }
        buf_putc(&b, '\n');
        b.oom |= cell.oom | pert.oom;
        sim_buf_free(&cell);
        sim_buf_free(&pert);
    }
    sim_free(rgb);
    sim_free(grey);
    sc_write_buf(o, "items.csv", &b);
}

/* One explanation per item for the method "my_method": a heatmap, word
** weights or feature weights, pointing towards the model's output, or the
** payload of a worked example (scaffold_expl.c). */
static void write_explanations(Out *o, const Ctx *c)
{
    SimBuf b;
    sim_buf_init(&b);
    for (size_t i = 0; i < c->n_items; i++) {
        const Planned *x = &c->items[i];
        int k = (int)i;
        /* weights pull towards class 0 when positive */
        double sign = x->output == 0 ? 1.0 : -1.0;
        sim_buf_printf(&b, "{\"id\": \"%s\", \"pool\": \"%s\", ", x->id,
                       x->pool);
        if (c->method != X_DEFAULT) {
            scaffold_payload(o, c, x, k, &b);
            continue;
        }
        switch (c->modality) {
        case M_IMAGE:
            sim_buf_printf(&b,
                           "\"kind\": \"heatmap\", \"file\": "
                           "\"media/%s-%s-heat.png\", \"colormap\": "
                           "\"viridis\", \"opacity\": 0.5}\n",
                           x->pool, x->id);
            break;
        case M_TEXT: {
            const char *w[7];
            sc_review_words(k, x->label, w);
            /* the tone words carry the weight, the rest little */
            static const double base[7] = {0.0, 0.6, 0.05, 0.0, 0.0, 0.4, 0.1};
            double tone = x->label == 0 ? 1.0 : -1.0;
            sim_buf_puts(&b, "\"kind\": \"tokens\", \"tokens\": [");
            for (int t = 0; t < 7; t++) {
                double wt = base[t] * (t == 1 || t == 5 ? tone : sign);
                sim_buf_printf(&b, "%s[\"%s\", %.2f]", t ? ", " : "", w[t], wt);
            }
            sim_buf_puts(&b, "]}\n");
            break;
        }
        case M_TABULAR:
            sim_buf_printf(&b,
                           "\"kind\": \"features\", \"features\": "
                           "[[\"Age\", %.2f], [\"Hours per week\", %.2f], "
                           "[\"Education\", %.2f]]}\n",
                           (0.22 + 0.04 * (k % 4)) * sign,
                           (0.45 - 0.05 * (k % 3)) * sign,
                           (0.10 + 0.05 * (k % 5)) * sign);
            break;
        }
    }
    sc_write_buf(o, "explanations.jsonl", &b);
}

static const char *const class_ids[3][2] = {
    {"round", "square"}, {"pos", "neg"}, {"high", "low"}};

static void write_study(Out *o, const Ctx *c)
{
    const char *pname = preset_names[c->preset];
    const char *mname = modality_names[c->modality];
    int cf = c->preset == P_COUNTERFACTUAL, meta = c->preset == P_META;
    int verify = c->preset == P_ACCEPT_REJECT || c->preset == P_HIVE_AGREEMENT;
    SimBuf b, title, lang;
    sim_buf_init(&b);
    sim_buf_init(&title);
    sim_buf_init(&lang);
    const char *const vars[][2] = {{"preset", pname}, {"modality", mname}};
    scaffold_fill(&title, c->tx->title, vars, 2);
    if (strcmp(c->tx->tag, "en") != 0) {
        sim_buf_printf(&lang, "  \"language\": \"%s\",\n", c->tx->tag);
    }
    sim_buf_printf(
        &b,
        "{\n"
        "  \"simlab_study\": 1,\n"
        "  \"notes\": [\"Starter bundle written by `simlab new` (preset %s, "
        "modality %s).\",\n"
        "            \"Replace the placeholder items, explanations and pages: "
        "README.md says what to fill in.\",\n"
        "            \"Members named notes, x-... or _... are yours; any "
        "other unknown field is an error (simlab check says which).\"],\n"
        "  \"id\": \"%s\",\n"
        "  \"title\": \"%s\",\n%s"
        "  \"domain\": \"%s\",\n"
        "  \"classes\": [\n"
        "    {\"id\": \"%s\", \"label\": \"%s\", \"key\": \"f\"},\n"
        "    {\"id\": \"%s\", \"label\": \"%s\", \"key\": \"j\"}\n"
        "  ],\n"
        "  \"_classes\": \"id is the value in items.csv, label what "
        "participants see, key the keyboard key. The first class is "
        "'positive' in the balance report.\",\n"
        "  \"conditions\": [\n"
        "    {\"id\": \"my_method\", \"method\": \"my_method\",\n"
        "     \"notes\": \"Shows the explanations of method my_method "
        "(explanations.jsonl). Rename both, or add one condition per "
        "method.\"},\n"
        "    {\"id\": \"baseline\", \"method\": null, \"notes\": \"No "
        "explanation: the control group.\"}\n"
        "  ],\n"
        "  \"baseline\": \"baseline\",\n",
        pname, mname, c->id, sim_buf_cstr(&title), sim_buf_cstr(&lang), mname,
        c->class_id[0], c->class_label[0], c->class_id[1], c->class_label[1]);
    if (title.oom || lang.oom) {
        b.oom = 1;
    }
    sim_buf_free(&title);
    sim_buf_free(&lang);
    switch (c->preset) {
    case P_FORWARD:
        sim_buf_puts(&b, "  \"protocol\": {\"preset\": \"hase-forward\", "
                         "\"n_learn\": 4, \"n_test\": 8,\n"
                         "               \"notes\": \"Hase & Bansal used "
                         "n_learn 16 and n_test 32: raise them once the "
                         "learn and test pools hold that many items. The "
                         "test pool wants equal TP, FP, TN and FN.\"},\n");
        break;
    case P_COUNTERFACTUAL:
        sim_buf_puts(&b,
                     "  \"protocol\": {\"preset\": \"hase-counterfactual\", "
                     "\"n_test\": 8,\n"
                     "               \"notes\": \"Hase & Bansal used n_test "
                     "32: raise it once the test pool holds that many items. "
                     "Within each of TP, FP, TN and FN, half of the "
                     "perturbations keep the model's output and half flip "
                     "it.\"},\n");
        break;
    case P_META:
        sim_buf_puts(&b,
                     "  \"protocol\": {\"preset\": \"meta-predictor\", "
                     "\"sessions\": 2, \"n_train\": 4, \"n_test\": 4, "
                     "\"n_catch\": 1, \"n_practice\": 2,\n"
                     "               \"notes\": \"Each session shows n_train "
                     "new training items and n_test new test items: the "
                     "train and test pools need sessions x n each (the "
                     "preset's defaults are 3 sessions, 5 and 7). Half of "
                     "each pool should be items the model gets wrong.\"},\n");
        break;
    case P_ACCEPT_REJECT:
        sim_buf_puts(&b,
                     "  \"protocol\": {\"preset\": \"accept-reject\", "
                     "\"n_learn\": 4, \"n_test\": 8,\n"
                     "               \"notes\": \"Nguyen et al. 2022: a few "
                     "examples with the true answer, then each test item "
                     "with the model's answer (and, per condition, its "
                     "explanation): accept or reject it. They showed 30 "
                     "test items, half of them ones the model gets wrong: "
                     "raise n_test when the test pool holds that many. "
                     "confidence_points asks a confidence after each "
                     "answer.\"},\n");
        break;
    case P_HIVE_AGREEMENT:
    case P_COUNT:
        sim_buf_puts(&b, "  \"protocol\": {\"preset\": \"hive-agreement\", "
                         "\"n_test\": 8,\n"
                         "               \"notes\": \"HIVE's agreement task "
                         "(Kim et al. 2022): one prediction with its "
                         "explanation; is it right, and how confident are you "
                         "(4 points)? Half of the test items should be ones "
                         "the model gets wrong.\"},\n");
        break;
    }
    sim_buf_puts(&b, "  \"assignment\": {\"rule\": \"balanced\", \"notes\": "
                     "\"Participants are spread evenly over the "
                     "conditions.\"},\n"
                     "  \"pages\": {\"consent\": \"pages/consent.md\", "
                     "\"instructions\": [\"pages/instructions.md\"],\n"
                     "            \"debrief\": \"pages/debrief.md\"},\n");
    if (verify) {
        sim_buf_printf(
            &b,
            "  \"quiz\": {\"questions\": [\n"
            "    {\"text\": \"%s\",\n"
            "     \"options\": [\"%s\", \"%s\"], \"answer\": 1}],\n"
            "   \"notes\": \"Asked after the instructions; answer is the "
            "0-based index of the right option.\"},\n",
            c->tx->quiz[0], c->tx->quiz[1], c->tx->quiz[2]);
    } else if (meta) {
        sim_buf_puts(
            &b, "  \"quiz\": {\"questions\": [\n"
                "    {\"text\": \"What do you predict in this study?\",\n"
                "     \"options\": [\"The true answer\", \"The model's "
                "answer\"], \"answer\": 1},\n"
                "    {\"text\": \"Is the model always right?\",\n"
                "     \"options\": [\"Yes\", \"No\"], \"answer\": 1}],\n"
                "   \"notes\": \"Asked after the instructions; answer is the "
                "0-based index of the right option.\"},\n");
    } else {
        sim_buf_printf(&b,
                       "  \"rating\": {\"question\": \"Does this explanation "
                       "show me why the system thought what it did?\",\n"
                       "             \"points\": 7, \"low\": \"Not at all\", "
                       "\"high\": \"Completely\",\n"
                       "             \"notes\": \"Asked %s.\"},\n",
                       cf ? "after each counterfactual of the second test"
                          : "for each explained example of the second "
                            "learning block");
    }
    sim_buf_printf(
        &b,
        "  \"items\": [\n"
        "    {\"file\": \"items.csv\", \"modality\": \"%s\",\n"
        "     \"columns\": {\"id\": \"id\", \"pool\": \"pool\", \"input\": "
        "\"input\", \"label\": \"label\",\n"
        "                 \"prediction\": \"prediction\"%s},\n"
        "     \"notes\": \"One row per item: %s; label is the true class, "
        "prediction the model's output%s.\"}\n"
        "  ],\n"
        "  \"explanations\": [\n"
        "    {\"method\": \"my_method\", \"file\": \"explanations.jsonl\",\n"
        "     \"notes\": \"One line per item, joined on pool and id: a %s "
        "(docs/study-format.md, Payload kinds).\"}\n"
        "  ],\n",
        mname,
        cf ? ", \"perturbation\": \"perturbation\",\n"
             "                 \"perturbation_prediction\": "
             "\"perturbation_prediction\""
           : "",
        c->modality == M_IMAGE  ? "input is the path of a PNG or JPEG file"
        : c->modality == M_TEXT ? "input is the text"
                                : "input holds 'Name = value' lines",
        !cf                      ? ""
        : c->modality == M_IMAGE ? "; perturbation is the perturbed image"
        : c->modality == M_TEXT
            ? "; perturbation is the changed text, edits marked **like "
              "this**"
            : "; perturbation holds 'Feature : old --> new' lines",
        scaffold_method_what(c));
    if (verify) {
        sim_buf_printf(&b,
                       "  \"simulation\": {\"p\": 0.6,%s\n"
                       "                 \"accept_p\": {\"right\": 0.8, "
                       "\"wrong\": 0.4},\n"
                       "                 \"notes\": \"Simulated participants "
                       "(simlab simulate, simlab power) accept 80%% of the "
                       "model's right answers and 40%% of its wrong "
                       "ones.\"}\n"
                       "}\n",
                       c->method == X_ON_REQUEST ? " \"reveal_p\": 0.8," : "");
        sc_write_buf(o, "study.json", &b);
        return;
    }
    sim_buf_printf(&b,
                   "  \"simulation\": {\"p\": 0.6,%s\n"
                   "                 \"cells\": [{\"condition\": "
                   "\"my_method\", \"phase\": \"%s\", \"p\": 0.75}],\n"
                   "                 \"notes\": \"Simulated participants "
                   "(simlab simulate, simlab power): P(correct) 0.6, and "
                   "0.75 with my_method in phase %s%s.\"}\n"
                   "}\n",
                   c->method == X_ON_REQUEST ? " \"reveal_p\": 0.8," : "",
                   meta ? "test" : "post", meta ? "test" : "post",
                   c->method == X_ON_REQUEST
                       ? "; they ask for 80% of the explanations offered"
                       : "");
    sc_write_buf(o, "study.json", &b);
}

/* The pages of accept-reject and hive-agreement in the study's language:
** the task, its parts and the keys of the two answers. */
static void write_verify_pages(Out *o, const Ctx *c)
{
    const StarterTexts *t = c->tx;
    SimBuf b;
    sim_buf_init(&b);
    const char *const vars[][2] = {{"what", t->what[c->modality]},
                                   {"a", c->class_label[0]},
                                   {"b", c->class_label[1]}};
    sim_buf_puts(&b, t->task_head);
    scaffold_fill(&b, t->verify_intro, vars, 3);
    sim_buf_puts(&b, t->how_head);
    if (c->preset == P_ACCEPT_REJECT) {
        sim_buf_puts(&b, t->learn_item);
    }
    sim_buf_puts(&b, t->test_item);
    if (c->preset == P_HIVE_AGREEMENT) {
        sim_buf_puts(&b, t->confidence_item);
    }
    sim_buf_puts(&b, t->verify_keys);
    sc_write_buf(o, "pages/instructions.md", &b);
    write_file(o, "pages/debrief.md", t->verify_debrief);
}

static void write_pages(Out *o, const Ctx *c)
{
    make_dir(o, "pages");
    write_file(o, "pages/consent.md", c->tx->consent);
    if (c->preset == P_ACCEPT_REJECT || c->preset == P_HIVE_AGREEMENT) {
        write_verify_pages(o, c);
        return;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b,
                   "# Your task\n\n"
                   "**Placeholder: adapt these instructions to your items "
                   "and explanations.**\n\n"
                   "A computer program, **the model**, looks at %s and "
                   "answers **%s** or **%s**. It is often right, but "
                   "**not always**. Your task is to predict **the model's "
                   "answer**, not the true one.\n\n",
                   c->tx->what[c->modality], c->class_label[0],
                   c->class_label[1]);
    switch (c->preset) {
    case P_FORWARD:
        sim_buf_puts(&b, "# The four parts\n\n"
                         "- **Learning:** examples with the true answer and "
                         "the model's answer.\n"
                         "- **First test:** predict the model's answer on "
                         "new items.\n"
                         "- **Learning again:** the same examples, some "
                         "with an explanation of the model's answer; rate "
                         "each explanation.\n"
                         "- **Second test:** the same test items again.\n");
        break;
    case P_COUNTERFACTUAL:
        sim_buf_puts(&b, "# The two tests\n\n"
                         "Each item is shown with the model's answer and "
                         "then **changed a little**. Predict the model's "
                         "answer on the changed item.\n\n"
                         "- **First test:** without explanations.\n"
                         "- **Second test:** the same items, some with an "
                         "explanation of the model's answer; rate each "
                         "explanation.\n");
        break;
    case P_META:
    default:
        sim_buf_puts(&b, "# Sessions\n\n"
                         "- **Practice:** a few items with feedback.\n"
                         "- **Quiz:** two questions about these "
                         "instructions.\n"
                         "- Then, in each session, **training** items with "
                         "the model's answer (and, for some participants, "
                         "an explanation), followed by **test** items where "
                         "you predict the model's answer.\n");
        break;
    }
    sim_buf_printf(&b, "\nPress **%s** for %s and **%s** for %s.\n", "F",
                   c->class_label[0], "J", c->class_label[1]);
    sc_write_buf(o, "pages/instructions.md", &b);
    write_file(o, "pages/debrief.md",
               "# Thank you\n\n"
               "**Placeholder: say what the study was about and whom to "
               "contact.**\n\n"
               "The study compared explanations of a model's predictions. "
               "Your answers help us learn which explanations let people "
               "predict a model.\n");
}

static void write_readme(Out *o, const Ctx *c)
{
    const char *pname = preset_names[c->preset];
    const char *mname = modality_names[c->modality];
    int cf = c->preset == P_COUNTERFACTUAL, meta = c->preset == P_META;
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(
        &b,
        "# %s: a starter %s study (%s)\n\n"
        "Written by `simlab new`. It is a valid study as it stands, with "
        "placeholder items, so that you can run it at once and then "
        "replace the parts one at a time. After each change run\n\n"
        "    simlab check .\n\n"
        "which lists every problem with its file, line or JSON pointer and "
        "field (a misspelled field is an error with a \"did you mean\"). "
        "Then try it with simulated participants, and yourself:\n\n"
        "    simlab simulate . --db /tmp/pilot.db --participants 20 "
        "--policy mixed\n"
        "    simlab run . --db /tmp/pilot.db --windowed\n\n"
        "Keep databases outside this folder: a file added here changes the "
        "bundle's hash.\n\n"
        "## What to fill in\n\n",
        c->id, pname, mname);
    sim_buf_printf(&b, "1. **study.json**: `id`, `title`, the two `classes` "
                       "(`id` as written in items.csv, `label` as participants "
                       "see it, `key`), and the `conditions`: one per "
                       "explanation method (`method` names it) and a "
                       "`baseline` without one. The `notes` members explain "
                       "each part; keep them, change them or delete them.\n");
    sim_buf_printf(
        &b,
        "2. **items.csv**: one row per item: `id`, `pool`, `input`, `label` "
        "(true class), `prediction` (the model's output)%s. %s\n",
        cf ? ", `perturbation` and `perturbation_prediction` (the model's "
             "output on the perturbed item)"
           : "",
        c->modality == M_IMAGE
            ? "`input` is the path of a PNG or JPEG file inside this folder "
              "(the placeholders are in media/)."
        : c->modality == M_TEXT
            ? "`input` is the text (quote it when it holds commas or line "
              "breaks)."
            : "`input` holds one `Name = value` line per feature (in "
              "quotes, as the line breaks need).");
    sim_buf_printf(
        &b,
        "   The pools are %s. The preset draws `%s` items per block from "
        "them: raise those numbers in `protocol` when your pools hold "
        "more. `simlab check` prints a balance report per pool; the "
        "preset wants %s.\n",
        c->preset == P_FORWARD || c->preset == P_ACCEPT_REJECT
            ? "`learn` (examples) and `test`"
        : c->preset == P_HIVE_AGREEMENT ? "`test`"
        : cf                            ? "`test` (every item needs a "
                                          "perturbation)"
                                        : "`practice`, `train` and `test`",
        c->preset == P_FORWARD || c->preset == P_ACCEPT_REJECT
            ? "n_learn`/`n_test"
        : cf || c->preset == P_HIVE_AGREEMENT ? "n_test"
                                              : "n_train`/`n_test",
        c->preset == P_FORWARD ? "equal TP, FP, TN and FN in the test pool"
        : cf   ? "equal TP, FP, TN and FN, and within each half of the "
                 "perturbations keeping the model's output and half "
                 "flipping it"
        : meta ? "as many items the model gets right as wrong in the train "
                 "and test pools"
               : "every test item labelled (whether the model is right "
                 "needs the true answer), about half of them ones the "
                 "model gets wrong");
    sim_buf_printf(
        &b,
        "3. **explanations.jsonl**: one line per item for method "
        "`my_method`, `{\"id\", \"pool\", \"kind\", ...}`: a %s. Add a "
        "file (and an entry in study.json's `explanations`) per method. "
        "Every item that a block shows explained needs one; `simlab check` "
        "names any that is missing.%s\n",
        scaffold_method_what(c),
        c->method == X_DEFAULT
            ? ""
            : " docs/study-format.md, \"Showing a new explanation method\", "
              "walks through this payload and its variants.");
    sim_buf_puts(&b, "4. **pages/**: consent, instructions and debrief, in "
                     "the small Markdown dialect of docs/study-format.md "
                     "(headings, paragraphs, lists, **bold**, images). The "
                     "placeholders say what belongs there.\n");
    int verify = c->preset == P_ACCEPT_REJECT || c->preset == P_HIVE_AGREEMENT;
    sim_buf_printf(&b,
                   "5. **%s** and `simulation`: the %s and %s, for `simlab "
                   "simulate` and `simlab power`.\n\n",
                   meta || verify ? "quiz" : "rating",
                   meta ? "questions asked after the instructions (all must "
                          "be right the first time, by the preset's "
                          "screening)"
                   : verify ? "question asked after the instructions"
                            : "question asked about each explanation",
                   verify ? "how often simulated participants accept the "
                            "model's right and wrong answers (`accept_p`)"
                          : "the accuracy that simulated participants "
                            "reach");
    sim_buf_puts(&b, "The full format, with every field and payload kind, is "
                     "in docs/study-format.md of simlab.\n");
    sc_write_buf(o, "README.md", &b);
}

/* ------------------------------------------------------------- entry */

static int find_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* Refuses a dir that exists and is not an empty folder; creates it. */
static int prepare_dir(const char *dir, SimError *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (mkdir(dir, 0755) != 0) {
            return sim_fail(err, SIM_ERR_IO, "%s: mkdir: %s", dir,
                            strerror(errno));
        }
        return SIM_OK;
    }
    if (!S_ISDIR(sb.st_mode)) {
        return sim_fail(err, SIM_ERR_USAGE, "%s exists and is not a folder",
                        dir);
    }
    DIR *d = opendir(dir);
    if (!d) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    int empty = 1;
    struct dirent *e;
    while (empty && (e = readdir(d)) != NULL) {
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    }
    closedir(d);
    if (!empty) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s is not empty: give a new folder (nothing was "
                        "written)",
                        dir);
    }
    return SIM_OK;
}

/* The study id from the folder's name: its letters, digits, '-', '_' and
** '.', or "my-study". */
static void study_id(const char *dir, char *out, size_t size)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') {
        len--;
    }
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/') {
        start--;
    }
    size_t n = 0;
    for (size_t i = start; i < len && n + 1 < size; i++) {
        char ch = dir[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
            (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
            (ch == '.' && n > 0)) {
            out[n++] = ch;
        }
    }
    out[n] = '\0';
    if (n == 0) {
        snprintf(out, size, "my-study");
    }
}

int sc_prepare_dir(const char *dir, char *id, size_t size, SimError *err)
{
    if (!dir || !dir[0]) {
        return sim_fail(err, SIM_ERR_USAGE, "no folder given");
    }
    int rc = prepare_dir(dir, err);
    if (rc == SIM_OK) {
        study_id(dir, id, size);
    }
    return rc;
}

int scaffold_write(const char *dir, const char *preset, const char *modality,
                   const char *explanation, SimError *err)
{
    return scaffold_write_language(dir, preset, modality, explanation, NULL,
                                   err);
}

int scaffold_write_language(const char *dir, const char *preset,
                            const char *modality, const char *explanation,
                            const char *language, SimError *err)
{
    const StarterTexts *tx = NULL;
    if (language) {
        int lang = ui_language_resolve(language);
        tx = lang >= 0 ? scaffold_texts(ui_language_tag((size_t)lang)) : NULL;
        if (!tx) {
            const char *near = ui_language_suggest(language);
            return sim_fail(err, SIM_ERR_USAGE,
                            "'%s' is not a shipped language "
                            "(%s%s%sshipped: " SCAFFOLD_LANGUAGES ")",
                            language, near ? "did you mean '" : "",
                            near ? near : "", near ? "'? " : "");
        }
    } else {
        tx = scaffold_texts("en");
    }
    int verify = preset && (strcmp(preset, "accept-reject") == 0 ||
                            strcmp(preset, "hive-agreement") == 0);
    if (strcmp(tx->tag, "en") != 0 && preset &&
        strcmp(preset, "hive-distinction") != 0 && !verify &&
        find_name(preset, preset_names, P_COUNT) >= 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "the %s starter is written in English only: "
                        "--language applies to accept-reject, "
                        "hive-agreement and hive-distinction (translate "
                        "the pages and set \"language\" in study.json)",
                        preset);
    }
    if (preset && strcmp(preset, "hive-distinction") == 0) {
        return scaffold_write_hive(dir, modality, explanation, tx, err);
    }
    int p = find_name(preset, preset_names, P_COUNT);
    int m = find_name(modality, modality_names, 3);
    /* X_CONCEPTS.. follow X_DEFAULT in the order of their names */
    int x = explanation
                ? find_name(explanation, scaffold_method_names, X_COUNT - 1) + 1
                : X_DEFAULT;
    if (p < 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "unknown preset '%s' (" SCAFFOLD_PRESETS ")",
                        preset ? preset : "");
    }
    if (m < 0) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "unknown modality '%s' (" SCAFFOLD_MODALITIES ")",
                        modality ? modality : "");
    }
    if (explanation && x == X_DEFAULT) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "unknown explanation '%s' (" SCAFFOLD_EXPLANATIONS ")",
                        explanation);
    }
    if (!scaffold_method_fits((Method)x, (Modality)m)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "explanation '%s' shows pictures: use it with "
                        "--modality image (rationale and on-request fit "
                        "every modality)",
                        explanation);
    }
    char id[64];
    int rc = sc_prepare_dir(dir, id, sizeof id, err);
    if (rc != SIM_OK) {
        return rc;
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.preset = (Preset)p;
    c.modality = (Modality)m;
    c.method = (Method)x;
    c.tx = tx;
    c.id = id;
    for (int k = 0; k < 2; k++) {
        c.class_id[k] = class_ids[m][k];
        c.class_label[k] = tx->class_label[m][k];
    }
    c.n_items = plan_items(c.preset, c.items);
    Out o = {dir, err, SIM_OK};
    if (c.modality == M_IMAGE) {
        make_dir(&o, "media");
    }
    write_items(&o, &c);
    write_explanations(&o, &c);
    write_study(&o, &c);
    write_pages(&o, &c);
    write_readme(&o, &c);
    if (o.rc == SIM_OK) {
        sim_error_clear(err);
    }
    return o.rc;
}
