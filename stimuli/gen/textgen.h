/*
** The text demo domain: short movie-review sentences generated from
** templates (with negations, "but" clauses and genre words that are
** spuriously tied to the sentiment in the data), and a bag-of-words
** logistic-regression sentiment model trained on them. Pure C, no I/O.
*/
#ifndef SIMLAB_STIMULI_GEN_TEXTGEN_H
#define SIMLAB_STIMULI_GEN_TEXTGEN_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"
#include "common/sim_rng.h"

#define TEXT_MAX_SLOTS 6   /* filled slots per sentence */
#define TEXT_MAX_LEN   160 /* bytes of a sentence, NUL included */
#define TEXT_MAX_WORDS 24  /* word tokens of a sentence */

enum { TEXT_POS = 0, TEXT_NEG = 1 }; /* class indices (pos is "positive") */

/* A sentence as its template and slot fillers; the text is derived. */
typedef struct Sentence {
    int tmpl;                 /* template index */
    int slot[TEXT_MAX_SLOTS]; /* word index within each slot's lexicon */
    int label;                /* TEXT_POS or TEXT_NEG: what it says */
} Sentence;

typedef struct TextModel {
    int n_vocab;
    double *w; /* weight per vocabulary word (presence), toward "pos" */
    double b;  /* intercept */
} TextModel;

/* Number of slots of template t, and the lexicon kind of slot s. */
int textgen_n_slots(int tmpl);
int textgen_slot_kind(int tmpl, int s);

/* Number of words in lexicon kind k, and word i of it ("" allowed for the
** empty intensifier). */
int textgen_lexicon_size(int kind);
const char *textgen_lexicon_word(int kind, int i);

/* Draws a sentence; `biased_genre` is the probability that its genre word
** comes from the genres tied to its sentiment. */
void textgen_sample(SimRng *rng, double biased_genre, Sentence *out);

/* Writes the sentence text (capitalised, with final punctuation). When
** mark_slot >= 0 that slot's word is wrapped in ** markers. OUT: buf. */
void textgen_render(const Sentence *s, int mark_slot, char *buf, size_t n);

/* Splits text into lower-case word tokens (letters and apostrophes).
** Returns the count (<= max). OUT: words (each 32 bytes). */
int textgen_words(const char *text, char words[][32], int max);

/* Index of word in the model's vocabulary, or -1. */
int textgen_vocab_index(const char *word);
int textgen_vocab_size(void);
const char *textgen_vocab_word(int i);

/* Trains the bag-of-words logistic regression (binary presence features,
** L2 penalty lambda) on n sentences by full-batch gradient descent.
** On success *out owns weights (free with textgen_model_free). */
int textgen_train(const Sentence *data, int n, double lambda, TextModel *out,
                  SimError *err);
void textgen_model_free(TextModel *m);

/* P(pos) for a text (any text: unknown words are ignored). */
double textgen_prob(const TextModel *m, const char *text);

/* P(pos) from a presence vector over the vocabulary. */
double textgen_prob_bow(const TextModel *m, const unsigned char *present);

/* Class the model predicts for text: TEXT_POS when P(pos) >= 0.5. */
int textgen_predict(const TextModel *m, const char *text);

#endif
