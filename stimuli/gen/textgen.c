/*
** Template sentences and the bag-of-words sentiment model. The templates
** give the model honest reasons to fail: it cannot read "not" or "but",
** and it picks up genre words that the data tie to one sentiment.
*/
#include "stimuli/gen/textgen.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "common/sim_alloc.h"

enum { K_ASPECT = 0, K_ADJ = 1, K_GENRE = 2, K_VERB = 3, K_INTENS = 4 };
#define N_KINDS 5

static const char *const ASPECTS[] = {
    "acting",   "plot", "script", "soundtrack", "ending",
    "dialogue", "cast", "pacing", "story",      "humour"};
/* the first ten are positive, the last ten negative */
static const char *const ADJS[] = {
    "brilliant",   "charming",   "gripping", "funny", "moving",
    "clever",      "delightful", "superb",   "warm",  "stunning",
    "dull",        "boring",     "clumsy",   "awful", "tedious",
    "predictable", "messy",      "flat",     "weak",  "bland"};
/* 0-2 tied to positive reviews, 3-5 to negative ones, 6-8 neutral */
static const char *const GENRES[] = {"documentary", "musical", "romance",
                                     "sequel",      "remake",  "thriller",
                                     "comedy",      "drama",   "western"};
static const char *const VERBS[] = {"loved", "enjoyed",  "adored",
                                    "hated", "disliked", "loathed"};
static const char *const INTENS[] = {"", "very", "really", "truly", "rather"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const *const LEXICON[N_KINDS] = {ASPECTS, ADJS, GENRES,
                                                    VERBS, INTENS};
static const int LEXICON_SIZE[N_KINDS] = {
    COUNT(ASPECTS), COUNT(ADJS), COUNT(GENRES), COUNT(VERBS), COUNT(INTENS)};

/* Templates: %N inserts slot N, %a an article agreeing with the next slot
** word. Slot kinds are listed per template. */
typedef struct Template {
    const char *form;
    int n_slots;
    int kind[TEXT_MAX_SLOTS];
    double weight; /* how often it is drawn */
} Template;

static const Template TEMPLATES[] = {
    {"the %0 of this %1 is %2 %3.",
     4,
     {K_ASPECT, K_GENRE, K_INTENS, K_ADJ},
     0.20},
    {"this %0 has %a %1 %2 %3.", 4, {K_GENRE, K_INTENS, K_ADJ, K_ASPECT}, 0.12},
    {"the %0 of this %1 is not %2.", 3, {K_ASPECT, K_GENRE, K_ADJ}, 0.16},
    {"the %0 is %1, but the %2 is %3.",
     4,
     {K_ASPECT, K_ADJ, K_ASPECT, K_ADJ},
     0.16},
    {"I %0 this %1.", 2, {K_VERB, K_GENRE}, 0.10},
    {"I %0 this %1, even though the %2 is %3.",
     4,
     {K_VERB, K_GENRE, K_ASPECT, K_ADJ},
     0.12},
    {"%a %0 %1 with %a %2 %3.", 4, {K_ADJ, K_GENRE, K_ADJ, K_ASPECT}, 0.14},
};
#define N_TEMPLATES COUNT(TEMPLATES)

/* Words of the templates themselves, after the lexicons in the vocabulary. */
static const char *const FUNCTION_WORDS[] = {
    "the", "of",  "this", "is",   "has",    "a",   "an",
    "not", "but", "i",    "even", "though", "with"};

int textgen_n_slots(int tmpl)
{
    return TEMPLATES[tmpl].n_slots;
}

int textgen_slot_kind(int tmpl, int s)
{
    return TEMPLATES[tmpl].kind[s];
}

int textgen_lexicon_size(int kind)
{
    return LEXICON_SIZE[kind];
}

const char *textgen_lexicon_word(int kind, int i)
{
    return LEXICON[kind][i];
}

static int pick(SimRng *rng, int n)
{
    return (int)sim_rng_below(rng, (uint64_t)n);
}

static int pick_adj(SimRng *rng, int pol)
{
    return pick(rng, 10) + (pol == TEXT_POS ? 0 : 10);
}

static int pick_genre(SimRng *rng, double biased, int label)
{
    if (sim_rng_uniform(rng) < biased) {
        return pick(rng, 3) + (label == TEXT_POS ? 0 : 3);
    }
    return pick(rng, COUNT(GENRES));
}

void textgen_sample(SimRng *rng, double biased_genre, Sentence *out)
{
    memset(out, 0, sizeof *out);
    double u = sim_rng_uniform(rng), acc = 0;
    int t = N_TEMPLATES - 1;
    for (int k = 0; k < N_TEMPLATES; k++) {
        acc += TEMPLATES[k].weight;
        if (u < acc) {
            t = k;
            break;
        }
    }
    out->tmpl = t;
    int *s = out->slot;
    int pol = pick(rng, 2);
    switch (t) {
    case 0: /* the ASPECT of this GENRE is INTENS ADJ. */
        s[3] = pick_adj(rng, pol);
        out->label = pol;
        s[0] = pick(rng, COUNT(ASPECTS));
        s[1] = pick_genre(rng, biased_genre, out->label);
        s[2] = pick(rng, COUNT(INTENS));
        break;
    case 1: /* this GENRE has a INTENS ADJ ASPECT. */
        s[2] = pick_adj(rng, pol);
        out->label = pol;
        s[0] = pick_genre(rng, biased_genre, out->label);
        s[1] = pick(rng, COUNT(INTENS));
        s[3] = pick(rng, COUNT(ASPECTS));
        break;
    case 2: /* the ASPECT of this GENRE is not ADJ. */
        s[2] = pick_adj(rng, pol);
        out->label = 1 - pol;
        s[0] = pick(rng, COUNT(ASPECTS));
        s[1] = pick_genre(rng, biased_genre, out->label);
        break;
    case 3: /* the ASPECT is ADJ, but the ASPECT is ADJ. */
        s[1] = pick_adj(rng, 1 - pol);
        s[3] = pick_adj(rng, pol);
        out->label = pol;
        s[0] = pick(rng, COUNT(ASPECTS));
        do {
            s[2] = pick(rng, COUNT(ASPECTS));
        } while (s[2] == s[0]);
        break;
    case 4: /* I VERB this GENRE. */
        s[0] = pick(rng, 3) + (pol == TEXT_POS ? 0 : 3);
        out->label = pol;
        s[1] = pick_genre(rng, biased_genre, out->label);
        break;
    case 5: /* I VERB this GENRE, even though the ASPECT is ADJ. */
        s[0] = pick(rng, 3) + (pol == TEXT_POS ? 0 : 3);
        out->label = pol;
        s[1] = pick_genre(rng, biased_genre, out->label);
        s[2] = pick(rng, COUNT(ASPECTS));
        s[3] = pick_adj(rng, 1 - pol);
        break;
    default: /* a ADJ GENRE with a ADJ ASPECT. */
        s[0] = pick_adj(rng, pol);
        do {
            s[2] = pick_adj(rng, pol);
        } while (s[2] == s[0]);
        out->label = pol;
        s[1] = pick_genre(rng, biased_genre, out->label);
        s[3] = pick(rng, COUNT(ASPECTS));
        break;
    }
}

static void put(char *buf, size_t n, size_t *len, const char *s)
{
    for (; *s && *len + 1 < n; s++) {
        buf[(*len)++] = *s;
    }
    buf[*len] = '\0';
}

void textgen_render(const Sentence *s, int mark_slot, char *buf, size_t n)
{
    const Template *t = &TEMPLATES[s->tmpl];
    char raw[2 * TEXT_MAX_LEN];
    size_t len = 0;
    raw[0] = '\0';
    for (const char *f = t->form; *f; f++) {
        if (f[0] == '%' && f[1] == 'a') {
            /* article: look at the next slot's first letter */
            const char *g = strchr(f + 2, '%');
            const char *next = "";
            if (g && isdigit((unsigned char)g[1])) {
                int k = g[1] - '0';
                next = LEXICON[t->kind[k]][s->slot[k]];
            }
            int vowel = strchr("aeiou", next[0]) != NULL && next[0];
            put(raw, sizeof raw, &len, vowel ? "an" : "a");
            f++;
        } else if (f[0] == '%' && isdigit((unsigned char)f[1])) {
            int k = f[1] - '0';
            const char *w = LEXICON[t->kind[k]][s->slot[k]];
            if (k == mark_slot && w[0]) {
                put(raw, sizeof raw, &len, "**");
                put(raw, sizeof raw, &len, w);
                put(raw, sizeof raw, &len, "**");
            } else {
                put(raw, sizeof raw, &len, w);
            }
            f++;
        } else {
            char c[2] = {*f, '\0'};
            put(raw, sizeof raw, &len, c);
        }
    }
    /* collapse the double space an empty intensifier leaves */
    size_t o = 0;
    for (size_t i = 0; raw[i] && o + 1 < n; i++) {
        if (raw[i] == ' ' && o > 0 && buf[o - 1] == ' ') {
            continue;
        }
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    /* capitalise the first letter (after a possible marker) */
    for (size_t i = 0; i < o; i++) {
        if (isalpha((unsigned char)buf[i])) {
            buf[i] = (char)toupper((unsigned char)buf[i]);
            break;
        }
    }
}

int textgen_words(const char *text, char words[][32], int max)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        while (*p && !isalpha((unsigned char)*p) && *p != '\'') {
            p++;
        }
        if (!*p) {
            break;
        }
        int len = 0;
        while (*p && (isalpha((unsigned char)*p) || *p == '\'')) {
            if (len < 31) {
                words[n][len++] = (char)tolower((unsigned char)*p);
            }
            p++;
        }
        words[n][len] = '\0';
        n++;
    }
    return n;
}

int textgen_vocab_size(void)
{
    int n = COUNT(FUNCTION_WORDS);
    for (int k = 0; k < N_KINDS; k++) {
        n += LEXICON_SIZE[k];
    }
    return n;
}

const char *textgen_vocab_word(int i)
{
    for (int k = 0; k < N_KINDS; k++) {
        if (i < LEXICON_SIZE[k]) {
            return LEXICON[k][i];
        }
        i -= LEXICON_SIZE[k];
    }
    return i < COUNT(FUNCTION_WORDS) ? FUNCTION_WORDS[i] : NULL;
}

int textgen_vocab_index(const char *word)
{
    int n = textgen_vocab_size();
    if (!word[0]) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(textgen_vocab_word(i), word) == 0) {
            return i;
        }
    }
    return -1;
}

static void bow(const char *text, unsigned char *present, int n_vocab)
{
    char words[TEXT_MAX_WORDS][32];
    int nw = textgen_words(text, words, TEXT_MAX_WORDS);
    memset(present, 0, (size_t)n_vocab);
    for (int i = 0; i < nw; i++) {
        int v = textgen_vocab_index(words[i]);
        if (v >= 0) {
            present[v] = 1;
        }
    }
}

double textgen_prob_bow(const TextModel *m, const unsigned char *present)
{
    double z = m->b;
    for (int v = 0; v < m->n_vocab; v++) {
        if (present[v]) {
            z += m->w[v];
        }
    }
    return 1.0 / (1.0 + exp(-z));
}

double textgen_prob(const TextModel *m, const char *text)
{
    unsigned char present[256];
    bow(text, present, m->n_vocab);
    return textgen_prob_bow(m, present);
}

int textgen_predict(const TextModel *m, const char *text)
{
    return textgen_prob(m, text) >= 0.5 ? TEXT_POS : TEXT_NEG;
}

int textgen_train(const Sentence *data, int n, double lambda, TextModel *out,
                  SimError *err)
{
    int V = textgen_vocab_size();
    memset(out, 0, sizeof *out);
    unsigned char *X = sim_malloc((size_t)n * (size_t)V);
    double *grad = sim_malloc(sizeof(double) * (size_t)V);
    out->w = sim_calloc((size_t)V, sizeof(double));
    if (!X || !grad || !out->w || V > 256) {
        sim_free(X);
        sim_free(grad);
        textgen_model_free(out);
        return sim_fail(err, SIM_ERR_NOMEM, "text model: out of memory");
    }
    out->n_vocab = V;
    for (int i = 0; i < n; i++) {
        char text[TEXT_MAX_LEN];
        textgen_render(&data[i], -1, text, sizeof text);
        bow(text, X + (size_t)i * (size_t)V, V);
    }
    /* full-batch gradient descent on the mean logistic loss + L2 */
    const double lr = 1.0;
    for (int it = 0; it < 1500; it++) {
        double gb = 0;
        memset(grad, 0, sizeof(double) * (size_t)V);
        for (int i = 0; i < n; i++) {
            const unsigned char *x = X + (size_t)i * (size_t)V;
            double p = textgen_prob_bow(out, x);
            double y = data[i].label == TEXT_POS ? 1.0 : 0.0;
            double d = p - y;
            gb += d;
            for (int v = 0; v < V; v++) {
                if (x[v]) {
                    grad[v] += d;
                }
            }
        }
        out->b -= lr * gb / n;
        for (int v = 0; v < V; v++) {
            out->w[v] -= lr * (grad[v] / n + lambda * out->w[v]);
        }
    }
    sim_free(X);
    sim_free(grad);
    return SIM_OK;
}

void textgen_model_free(TextModel *m)
{
    if (m) {
        sim_free(m->w);
        m->w = NULL;
        m->n_vocab = 0;
    }
}
