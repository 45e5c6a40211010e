/*
** Text demo studies: the sentiment model is queried for everything the
** participants see (predictions, LIME fits, anchors, word omissions and
** counterfactual edits). Builds on textgen, surrogate and hase.
*/
#include "stimuli/gen/textstudy.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stimuli/gen/genio.h"
#include "stimuli/gen/hase.h"
#include "common/sim_alloc.h"

#define N_TRAIN      2000
#define N_VALIDATION 400
#define N_TEST       800
#define BIASED_GENRE 0.7 /* share of genre words tied to the sentiment */

struct TextStudy {
    TextModel model;
    Sentence train[N_TRAIN];
    char train_text[N_TRAIN][TEXT_MAX_LEN];
    Sentence split[2][N_TEST];
    int n[2];
    int pred[2][N_TEST];
    char text[2][N_TEST][TEXT_MAX_LEN];
    /* training sentences as word-presence sets, for anchor coverage */
    unsigned char *train_bow; /* N_TRAIN x vocabulary */
    TextReport report;        /* accumulated while explaining */
};

static const char *const CLASS_ID[2] = {"pos", "neg"};

const TextModel *textstudy_model(const TextStudy *ts)
{
    return &ts->model;
}

static void text_bow(const char *text, unsigned char *present)
{
    char words[TEXT_MAX_WORDS][32];
    int nw = textgen_words(text, words, TEXT_MAX_WORDS);
    memset(present, 0, (size_t)textgen_vocab_size());
    for (int i = 0; i < nw; i++) {
        int v = textgen_vocab_index(words[i]);
        if (v >= 0) {
            present[v] = 1;
        }
    }
}

int textstudy_make(uint64_t seed, TextStudy **out, SimError *err)
{
    *out = NULL;
    TextStudy *ts = sim_calloc(1, sizeof *ts);
    int V = textgen_vocab_size();
    if (!ts || !(ts->train_bow = sim_malloc((size_t)N_TRAIN * (size_t)V))) {
        sim_free(ts);
        return sim_fail(err, SIM_ERR_NOMEM, "text study: out of memory");
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 100);
    for (int i = 0; i < N_TRAIN; i++) {
        textgen_sample(&rng, BIASED_GENRE, &ts->train[i]);
        textgen_render(&ts->train[i], -1, ts->train_text[i],
                       sizeof ts->train_text[i]);
        text_bow(ts->train_text[i], ts->train_bow + (size_t)i * (size_t)V);
    }
    int rc = textgen_train(ts->train, N_TRAIN, 1e-3, &ts->model, err);
    if (rc != SIM_OK) {
        textstudy_free(ts);
        return rc;
    }
    /* validation and test sentences: new to the model and distinct */
    const int want[2] = {N_VALIDATION, N_TEST};
    for (int s = 0; s < 2; s++) {
        sim_rng_seed_stream(&rng, seed, 101 + (uint64_t)s);
        while (ts->n[s] < want[s]) {
            Sentence cand;
            char text[TEXT_MAX_LEN];
            textgen_sample(&rng, BIASED_GENRE, &cand);
            textgen_render(&cand, -1, text, sizeof text);
            int dup = 0;
            for (int i = 0; i < N_TRAIN && !dup; i++) {
                dup = strcmp(text, ts->train_text[i]) == 0;
            }
            for (int t = 0; t <= s && !dup; t++) {
                for (int i = 0; i < ts->n[t] && !dup; i++) {
                    dup = strcmp(text, ts->text[t][i]) == 0;
                }
            }
            if (dup) {
                continue;
            }
            int k = ts->n[s]++;
            ts->split[s][k] = cand;
            memcpy(ts->text[s][k], text, sizeof text);
            ts->pred[s][k] = textgen_predict(&ts->model, text);
        }
    }
    int right = 0;
    for (int i = 0; i < N_TRAIN; i++) {
        right += textgen_predict(&ts->model, ts->train_text[i]) ==
                 ts->train[i].label;
    }
    ts->report.train_acc = (double)right / N_TRAIN;
    right = 0;
    for (int i = 0; i < ts->n[1]; i++) {
        right += ts->pred[1][i] == ts->split[1][i].label;
    }
    ts->report.test_acc = (double)right / ts->n[1];
    *out = ts;
    return SIM_OK;
}

void textstudy_free(TextStudy *ts)
{
    if (ts) {
        textgen_model_free(&ts->model);
        sim_free(ts->train_bow);
        sim_free(ts);
    }
}

/* The distinct words of a text, in order of first appearance. */
static int distinct_words(const char *text, char words[][32], int max)
{
    char all[TEXT_MAX_WORDS][32];
    int n = textgen_words(text, all, TEXT_MAX_WORDS), d = 0;
    for (int i = 0; i < n && d < max; i++) {
        int seen = 0;
        for (int j = 0; j < d && !seen; j++) {
            seen = strcmp(words[j], all[i]) == 0;
        }
        if (!seen) {
            memcpy(words[d++], all[i], 32);
        }
    }
    return d;
}

/* P(pos) when only the words with keep[j] set remain. */
static double prob_kept(const TextModel *m, const int *vocab, int d,
                        const unsigned char *keep)
{
    unsigned char present[256];
    memset(present, 0, (size_t)m->n_vocab);
    for (int j = 0; j < d; j++) {
        if (keep[j] && vocab[j] >= 0) {
            present[vocab[j]] = 1;
        }
    }
    return textgen_prob_bow(m, present);
}

int textstudy_lime(const TextStudy *ts, const char *text, uint64_t seed,
                   TextLime *out, SimError *err)
{
    memset(out, 0, sizeof *out);
    int d = distinct_words(text, out->words, SURR_MAX_FEATURES);
    int vocab[SURR_MAX_FEATURES];
    out->d = d;
    for (int j = 0; j < d; j++) {
        vocab[j] = textgen_vocab_index(out->words[j]);
    }
    const int n = TEXT_LIME_SAMPLES;
    double *Z = sim_malloc(sizeof(double) * (size_t)n * (size_t)d);
    double *y = sim_malloc(sizeof(double) * (size_t)n);
    double *w = sim_malloc(sizeof(double) * (size_t)n);
    if (!Z || !y || !w) {
        sim_free(Z);
        sim_free(y);
        sim_free(w);
        return sim_fail(err, SIM_ERR_NOMEM, "lime: out of memory");
    }
    SimRng rng;
    sim_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        unsigned char keep[SURR_MAX_FEATURES];
        memset(keep, 1, sizeof keep);
        if (i > 0) {
            /* as LIME: remove a uniform number (1..d) of random words */
            int idx[SURR_MAX_FEATURES];
            int k = 1 + (int)sim_rng_below(&rng, (uint64_t)d);
            for (int j = 0; j < d; j++) {
                idx[j] = j;
            }
            sim_rng_shuffle(&rng, idx, (size_t)d, sizeof(int));
            for (int j = 0; j < k; j++) {
                keep[idx[j]] = 0;
            }
        }
        int kept = 0;
        for (int j = 0; j < d; j++) {
            Z[i * d + j] = keep[j];
            kept += keep[j];
        }
        y[i] = prob_kept(&ts->model, vocab, d, keep);
        /* cosine distance to the original x 100, kernel width 25 */
        double cosine = kept ? sqrt((double)kept / d) : 0;
        double dist = (1 - cosine) * 100;
        w[i] = sqrt(exp(-(dist * dist) / (25.0 * 25.0)));
    }
    int rc = surrogate_lime(Z, y, w, n, d, TEXT_LIME_K, &out->fit, err);
    sim_free(Z);
    sim_free(y);
    sim_free(w);
    return rc;
}

/* ----------------------------------------------------------- anchors */

typedef struct AnchorCtx {
    const TextModel *model;
    int d;
    int vocab[SURR_MAX_FEATURES];
    int target; /* the prediction the anchor should keep */
} AnchorCtx;

static double anchor_precision(void *ctx, const int *anchor, int n_anchor,
                               int n_samples, SimRng *rng)
{
    const AnchorCtx *a = ctx;
    int hits = 0;
    for (int s = 0; s < n_samples; s++) {
        unsigned char keep[SURR_MAX_FEATURES];
        for (int j = 0; j < a->d; j++) {
            keep[j] = sim_rng_uniform(rng) < 0.5;
        }
        for (int k = 0; k < n_anchor; k++) {
            keep[anchor[k]] = 1;
        }
        double p = prob_kept(a->model, a->vocab, a->d, keep);
        hits += (p >= 0.5 ? TEXT_POS : TEXT_NEG) == a->target;
    }
    return n_samples ? (double)hits / n_samples : 0;
}

/* ------------------------------------------------------ explanations */

static json_t *lime_payload(const TextLime *lime)
{
    /* shown like Hase & Bansal's sheets: by weight, largest first */
    int order[SURR_MAX_FEATURES];
    int k = lime->fit.n_selected;
    surrogate_order_by_weight(&lime->fit, order);
    json_t *feats = json_array();
    double sum = 0, intercept = round(lime->fit.intercept * 1e4) / 1e4;
    for (int j = 0; j < k; j++) {
        int f = order[j];
        double wv = round(lime->fit.weight[f] * 1e4) / 1e4;
        sum += wv;
        genio_append(feats, json_pack("{s:s, s:o}", "name",
                                      lime->words[lime->fit.idx[f]], "weight",
                                      genio_real(wv, 4)));
    }
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "kind", "features",
                     "title", "Word weights", "features", feats, "intercept",
                     genio_real(intercept, 4), "sum", genio_real(sum, 4),
                     "output", genio_real(intercept + sum, 4));
}

static json_t *rules_payload(const char words[][32], const AnchorResult *a,
                             int predicted, double coverage)
{
    json_t *conds = json_array();
    for (int k = 0; k < a->n; k++) {
        char buf[96];
        snprintf(buf, sizeof buf, "the sentence contains \"%s\"",
                 words[a->idx[k]]);
        genio_append(conds, json_string(buf));
    }
    return json_pack("{s:s, s:s, s:s, s:[{s:o, s:o, s:o}]}", "kind", "rules",
                     "title", "Rule", "predicted", CLASS_ID[predicted], "rules",
                     "conditions", conds, "precision",
                     genio_real(a->precision, 3), "coverage",
                     genio_real(coverage, 3));
}

/* Leave-one-out: for every word of the sentence as written, P(pos) minus
** P(pos) with that word (all its occurrences) removed. */
static json_t *omission_payload(const TextModel *m, const char *text)
{
    char words[SURR_MAX_FEATURES][32];
    int vocab[SURR_MAX_FEATURES];
    int d = distinct_words(text, words, SURR_MAX_FEATURES);
    for (int j = 0; j < d; j++) {
        vocab[j] = textgen_vocab_index(words[j]);
    }
    unsigned char keep[SURR_MAX_FEATURES];
    memset(keep, 1, sizeof keep);
    double full = prob_kept(m, vocab, d, keep);
    json_t *tokens = json_array();
    const char *p = text;
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        if (!*p) {
            break;
        }
        const char *start = p;
        while (*p && *p != ' ') {
            p++;
        }
        char chunk[64], word[1][32];
        size_t len = (size_t)(p - start) < sizeof chunk - 1
                         ? (size_t)(p - start)
                         : sizeof chunk - 1;
        memcpy(chunk, start, len);
        chunk[len] = '\0';
        double weight = 0;
        if (textgen_words(chunk, word, 1) == 1) {
            for (int j = 0; j < d; j++) {
                if (strcmp(words[j], word[0]) == 0) {
                    keep[j] = 0;
                    weight = full - prob_kept(m, vocab, d, keep);
                    keep[j] = 1;
                }
            }
        }
        genio_append(tokens, json_pack("{s:s, s:o}", "text", chunk, "weight",
                                       genio_real(weight, 4)));
    }
    return json_pack("{s:s, s:s, s:o}", "kind", "tokens", "title",
                     "Effect of each word", "tokens", tokens);
}

/* Share of training sentences that contain every anchor word. */
static double anchor_coverage(const TextStudy *ts, const AnchorCtx *a,
                              const AnchorResult *r)
{
    int V = textgen_vocab_size(), hits = 0;
    for (int i = 0; i < N_TRAIN; i++) {
        const unsigned char *bow = ts->train_bow + (size_t)i * (size_t)V;
        int all = 1;
        for (int k = 0; k < r->n && all; k++) {
            int v = a->vocab[r->idx[k]];
            all = v >= 0 && bow[v];
        }
        hits += all;
    }
    return (double)hits / N_TRAIN;
}

static int text_explain(void *ctx, int split, int i, uint64_t seed,
                        json_t *expl, SimError *err)
{
    TextStudy *ts = ctx;
    const char *text = ts->text[split][i];
    uint64_t item_seed = sim_mix64(seed ^ sim_hash_str(text));
    TextLime lime;
    int rc = textstudy_lime(ts, text, item_seed, &lime, err);
    if (rc != SIM_OK) {
        return rc;
    }
    AnchorCtx a;
    AnchorResult ar;
    a.model = &ts->model;
    a.d = lime.d;
    a.target = ts->pred[split][i];
    for (int j = 0; j < lime.d; j++) {
        a.vocab[j] = textgen_vocab_index(lime.words[j]);
    }
    surrogate_anchor(&a, anchor_precision, lime.d, 0.95, lime.d, 200,
                     item_seed + 1, &ar);
    double coverage = anchor_coverage(ts, &a, &ar);

    surrogate_stats_add(&ts->report.expl, &lime.fit, a.target == TEXT_POS, &ar,
                        coverage);

    json_t *lp = lime_payload(&lime);
    json_t *rp = rules_payload(lime.words, &ar, a.target, coverage);
    json_t *op = omission_payload(&ts->model, text);
    json_t *cp =
        json_pack("{s:s, s:[O, O]}", "kind", "composite", "parts", lp, rp);
    if (genio_set(expl, "LIME", lp) || genio_set(expl, "Anchor", rp) ||
        genio_set(expl, "Omission", op) || genio_set(expl, "Composite", cp)) {
        return sim_fail(err, SIM_ERR_NOMEM, "text explanations: out of memory");
    }
    return SIM_OK;
}

/* --------------------------------------------------- counterfactuals */

static int text_counterfactual(void *ctx, int split, int i, int want_flip,
                               SimRng *rng, json_t **out, SimError *err)
{
    TextStudy *ts = ctx;
    const Sentence *s = &ts->split[split][i];
    int pred = ts->pred[split][i];
    /* every single-word substitution within a slot's word list */
    typedef struct Cand {
        int slot, word, pred;
    } Cand;
    Cand cand[128];
    int n = 0;
    (void)err;
    for (int k = 0; k < textgen_n_slots(s->tmpl); k++) {
        int kind = textgen_slot_kind(s->tmpl, k);
        const char *cur = textgen_lexicon_word(kind, s->slot[k]);
        if (!cur[0]) {
            continue; /* no empty intensifier edits: nothing to mark */
        }
        for (int wi = 0; wi < textgen_lexicon_size(kind) && n < 128; wi++) {
            const char *w = textgen_lexicon_word(kind, wi);
            if (wi == s->slot[k] || !w[0]) {
                continue;
            }
            Sentence t = *s;
            char text[TEXT_MAX_LEN];
            t.slot[k] = wi;
            textgen_render(&t, -1, text, sizeof text);
            int p = textgen_predict(&ts->model, text);
            if ((p != pred) == want_flip) {
                cand[n].slot = k;
                cand[n].word = wi;
                cand[n].pred = p;
                n++;
            }
        }
    }
    if (n == 0) {
        return 0;
    }
    const Cand *c = &cand[sim_rng_below(rng, (uint64_t)n)];
    Sentence t = *s;
    char marked[TEXT_MAX_LEN + 8];
    t.slot[c->slot] = c->word;
    textgen_render(&t, c->slot, marked, sizeof marked);
    *out = json_pack("{s:s, s:i}", "input", marked, "prediction", c->pred);
    return *out ? 1 : -1;
}

/* ----------------------------------------------------------- domain */

static int text_label(void *ctx, int split, int i)
{
    return ((TextStudy *)ctx)->split[split][i].label;
}

static int text_prediction(void *ctx, int split, int i)
{
    return ((TextStudy *)ctx)->pred[split][i];
}

static json_t *text_input(void *ctx, int split, int i)
{
    return json_string(((TextStudy *)ctx)->text[split][i]);
}

/* ------------------------------------------------------------ pages */

static const char CONSENT[] =
    "# Welcome\n"
    "\n"
    "Thank you for your interest in this study. Please read this page "
    "before you decide to take part.\n"
    "\n"
    "**What you will do.** You will read short sentences from movie "
    "reviews, together with the answers that a computer program gave for "
    "them. Then you will try to predict what the program answers for other "
    "sentences. The study takes about 15 to 20 minutes.\n"
    "\n"
    "**What we record.** Your answers, your ratings and how long you take "
    "to answer. We do not record your name. Your data are stored under a "
    "random code and used only for research.\n"
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

static const char EXPLANATIONS[] =
    "# The explanations\n"
    "\n"
    "At some point you will see explanations of the model's answers. "
    "Everyone sees one kind of explanation. It is one of these:\n"
    "\n"
    "**Word weights.** Up to five words of the sentence, each with a "
    "number. A positive number means the word pushed the model towards "
    "Positive, a negative number towards Negative; the larger the number, "
    "the stronger the push. Below the words you see the baseline (where "
    "the model stands before these words are counted), the sum of the "
    "weights, and the model output (total evidence: baseline plus sum). "
    "The total estimates how likely the model is to answer Positive: "
    "**above 0.5 means Positive, below 0.5 means Negative.**\n"
    "\n"
    "**Rule.** IF the sentence contains these words, THEN the model "
    "almost always gives the answer shown, whatever the other words are. "
    "Precision says how often the rule held when we tested it on sentences "
    "containing those words; coverage says what share of all sentences "
    "contain them.\n"
    "\n"
    "**Effect of each word.** Every word of the sentence is marked with how "
    "much the model's chance of answering Positive changes when that word "
    "is deleted: positive numbers mean the word pushed towards Positive, "
    "negative numbers towards Negative.\n"
    "\n"
    "**Word weights and rule together.**\n"
    "\n"
    "The explanations are computed from the model itself, by testing how "
    "its answers change when words are removed.\n";

static const char DEBRIEF[] =
    "# Thank you!\n"
    "\n"
    "You have finished the study. Here is what it was about.\n"
    "\n"
    "The model is a simple \"bag of words\" program: it adds up a learned "
    "score for each word of a sentence and ignores the order of the words. "
    "That is why it cannot understand \"not\" (\"not dull\" counts like "
    "\"dull\") and cannot tell which half of a \"but\" sentence matters.\n"
    "\n"
    "It also learned a shortcut from its training examples. In those, "
    "sequels, remakes and thrillers were mostly reviewed badly, and "
    "documentaries, musicals and romances mostly well. So these genre "
    "words push its answer strongly, although they say nothing about the "
    "reviewer's opinion.\n"
    "\n"
    "We measure whether explanations help people predict what a model will "
    "do. All sentences were generated for this demonstration; they are not "
    "real reviews.\n"
    "\n"
    "Please do not tell other possible participants about the model's "
    "shortcuts. Thank you for your help!\n";

static const char FORWARD_INSTRUCTIONS[] =
    "# Your task\n"
    "\n"
    "A computer program, **the model**, reads a short sentence from a movie "
    "review and decides whether it is **Positive** or **Negative**. The "
    "model learned this from examples. It is often right, but **not "
    "always**.\n"
    "\n"
    "**Your task is to predict the model's answer, not the true meaning of "
    "the sentence.** If you think the model gets a sentence wrong, choose "
    "the wrong answer the model would give.\n"
    "\n"
    "# The four parts\n"
    "\n"
    "- **Learning:** 16 example sentences, each with its true sentiment and "
    "the model's answer. Take your time and work out how the model "
    "decides.\n"
    "- **First test:** 32 new sentences. For each, predict the model's "
    "answer: press **P** for Positive or **N** for Negative. The examples "
    "are not shown during the test.\n"
    "- **Learning again:** the same 16 examples, now each with an "
    "explanation of the model's answer. Rate each explanation from 1 (does "
    "not show at all why the model answered as it did) to 7 (shows it "
    "completely).\n"
    "- **Second test:** the same 32 sentences again, in a new order. "
    "Predict the model's answers once more.\n"
    "\n"
    "Every sentence needs an answer. If you are unsure, make your best "
    "guess. You will not be told during the study whether your answers "
    "were right.\n";

static const char CF_INSTRUCTIONS[] =
    "# Your task\n"
    "\n"
    "A computer program, **the model**, reads a short sentence from a movie "
    "review and decides whether it is **Positive** or **Negative**. The "
    "model learned this from examples. It is often right, but **not "
    "always**.\n"
    "\n"
    "On each screen you see a sentence, its true sentiment and the model's "
    "answer. Below it you see a **changed version** of the sentence: one "
    "word has been replaced, and the new word is highlighted.\n"
    "\n"
    "**Your task is to predict the model's answer for the changed "
    "sentence**: press **P** for Positive or **N** for Negative. Predict "
    "what the model will say, not what the changed sentence really means. "
    "The model may keep its answer or change it.\n"
    "\n"
    "# The two parts\n"
    "\n"
    "- **First round:** 32 sentences and their changed versions.\n"
    "- **Second round:** the same 32 sentences in a new order, now with an "
    "explanation of the model's answer for the original sentence. Rate "
    "each explanation from 1 (does not show at all why the model answered "
    "as it did) to 7 (shows it completely), then predict again.\n"
    "\n"
    "Every sentence needs an answer. If you are unsure, make your best "
    "guess. You will not be told during the study whether your answers "
    "were right.\n";

static json_t *text_quiz(int counterfactual)
{
    return json_pack(
        "{s:[{s:s, s:[s, s], s:i}, {s:s, s:[s, s], s:i}]}", "questions", "text",
        counterfactual ? "What do you predict for each changed sentence?"
                       : "What do you predict in the tests?",
        "options", "Whether the sentence is really positive or negative",
        "What the model answers", "answer", 1, "text",
        "Is the model always right?", "options",
        "No, it sometimes gets a sentence wrong", "Yes, always", "answer", 0);
}

int textstudy_write(TextStudy *ts, const char *root, uint64_t seed,
                    TextReport *report, SimError *err)
{
    static const char *const METHODS[] = {"LIME", "Anchor", "Omission",
                                          "Composite"};
    static const double POST_P[] = {0.74, 0.70, 0.64, 0.76};
    HaseDomain dom = {ts,
                      "text",
                      {ts->n[0], ts->n[1]},
                      text_label,
                      text_prediction,
                      text_input,
                      text_explain,
                      text_counterfactual};
    HaseSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.domain = "text";
    spec.class_id[0] = CLASS_ID[0];
    spec.class_id[1] = CLASS_ID[1];
    spec.class_label[0] = "Positive";
    spec.class_label[1] = "Negative";
    spec.class_key[0] = "p";
    spec.class_key[1] = "n";
    spec.methods = METHODS;
    spec.post_p = POST_P;
    spec.n_methods = 4;
    spec.composite = "Composite";
    spec.consent = CONSENT;
    spec.explanations = EXPLANATIONS;
    spec.debrief = DEBRIEF;

    char dir[1024];
    HaseReport hr;
    int rc = SIM_OK;
    for (int cf = 0; cf < 2 && rc == SIM_OK; cf++) {
        spec.counterfactual = cf;
        spec.id = cf ? "demo-text-counterfactual" : "demo-text-forward";
        spec.title = cf ? "Demo: predicting a sentiment model on edited "
                          "sentences (counterfactual simulation)"
                        : "Demo: predicting a sentiment model (forward "
                          "simulation)";
        spec.instructions = cf ? CF_INSTRUCTIONS : FORWARD_INSTRUCTIONS;
        spec.quiz = text_quiz(cf);
        rc = genio_join(dir, sizeof dir, root,
                        cf ? "text-counterfactual" : "text-forward", err);
        rc = rc ? rc
                : hase_write(&dom, &spec, dir,
                             sim_mix64(seed + 11 + (uint64_t)cf), &hr, err);
        json_decref(spec.quiz);
    }
    if (report) {
        *report = ts->report;
    }
    return rc;
}
