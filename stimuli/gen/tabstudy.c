/*
** Tabular demo studies: the income network is queried for predictions,
** LIME fits, anchors (on training rows that satisfy the rule) and
** counterfactual edits. Builds on tabgen, surrogate and hase.
*/
#include "stimuli/gen/tabstudy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stimuli/gen/genio.h"
#include "stimuli/gen/hase.h"
#include "common/sim_alloc.h"

#define N_TRAIN 3000
#define N_SPLIT 600

struct TabStudy {
    TabModel model;
    TabRow train[N_TRAIN];
    TabRow split[2][N_SPLIT];
    int n[2];
    int pred[2][N_SPLIT];
    int cut[TAB_NF][3]; /* quartile cut points of numeric features */
    TabReport report;
};

static const char *const CLASS_ID[2] = {"above", "below"};

const TabModel *tabstudy_model(const TabStudy *ts)
{
    return &ts->model;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The bin (numeric: quartile 0-3) or category of feature f in a row. */
static int bin_of(const TabStudy *ts, int f, int value)
{
    if (!tabgen_is_numeric(f)) {
        return value;
    }
    int b = 0;
    while (b < 3 && value > ts->cut[f][b]) {
        b++;
    }
    return b;
}

/* How a bin or category is shown: "Masters", "36 to 45", "55 or more". */
static void bin_text(const TabStudy *ts, int f, int bin, char *buf, size_t n)
{
    if (!tabgen_is_numeric(f)) {
        snprintf(buf, n, "%s", tabgen_category(f, bin));
    } else if (bin == 0) {
        snprintf(buf, n, "up to %d", ts->cut[f][0]);
    } else if (bin == 3) {
        snprintf(buf, n, "%d or more", ts->cut[f][2] + 1);
    } else if (ts->cut[f][bin - 1] + 1 == ts->cut[f][bin]) {
        snprintf(buf, n, "%d", ts->cut[f][bin]);
    } else {
        snprintf(buf, n, "%d to %d", ts->cut[f][bin - 1] + 1, ts->cut[f][bin]);
    }
}

int tabstudy_make(uint64_t seed, TabStudy **out, SimError *err)
{
    *out = NULL;
    TabStudy *ts = sim_calloc(1, sizeof *ts);
    if (!ts) {
        return sim_fail(err, SIM_ERR_NOMEM, "tabular study: out of memory");
    }
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 200);
    for (int i = 0; i < N_TRAIN; i++) {
        tabgen_sample(&rng, &ts->train[i]);
    }
    SimRng init;
    sim_rng_seed_stream(&init, seed, 201);
    int rc = tabgen_train(ts->train, N_TRAIN, &init, &ts->model, err);
    if (rc != SIM_OK) {
        sim_free(ts);
        return rc;
    }
    for (int f = 0; f < TAB_NF; f++) {
        if (!tabgen_is_numeric(f)) {
            continue;
        }
        int vals[N_TRAIN];
        for (int i = 0; i < N_TRAIN; i++) {
            vals[i] = ts->train[i].v[f];
        }
        qsort(vals, N_TRAIN, sizeof(int), cmp_int);
        for (int q = 0; q < 3; q++) {
            ts->cut[f][q] = vals[(q + 1) * N_TRAIN / 4];
        }
    }
    for (int s = 0; s < 2; s++) {
        sim_rng_seed_stream(&rng, seed, 202 + (uint64_t)s);
        ts->n[s] = N_SPLIT;
        for (int i = 0; i < N_SPLIT; i++) {
            tabgen_sample(&rng, &ts->split[s][i]);
            ts->pred[s][i] = tabgen_predict(&ts->model, &ts->split[s][i]);
        }
    }
    int right = 0;
    for (int i = 0; i < N_TRAIN; i++) {
        right +=
            tabgen_predict(&ts->model, &ts->train[i]) == ts->train[i].label;
    }
    ts->report.train_acc = (double)right / N_TRAIN;
    right = 0;
    for (int i = 0; i < N_SPLIT; i++) {
        right += ts->pred[1][i] == ts->split[1][i].label;
    }
    ts->report.test_acc = (double)right / N_SPLIT;
    *out = ts;
    return SIM_OK;
}

void tabstudy_free(TabStudy *ts)
{
    sim_free(ts);
}

/* ------------------------------------------------------------- LIME */

int tabstudy_lime(const TabStudy *ts, const TabRow *row, uint64_t seed,
                  SurrogateFit *fit, double *agree, SimError *err)
{
    const int n = TAB_LIME_SAMPLES, d = TAB_NF;
    double *Z = sim_malloc(sizeof(double) * (size_t)n * d);
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
    const double width = 0.75 * sqrt((double)d);
    for (int i = 0; i < n; i++) {
        TabRow s = *row;
        int differ = 0;
        if (i > 0) {
            for (int f = 0; f < d; f++) {
                s.v[f] = ts->train[sim_rng_below(&rng, N_TRAIN)].v[f];
            }
        }
        for (int f = 0; f < d; f++) {
            int same = bin_of(ts, f, s.v[f]) == bin_of(ts, f, row->v[f]);
            Z[i * d + f] = same;
            differ += !same;
        }
        y[i] = tabgen_prob(&ts->model, &s);
        w[i] = sqrt(exp(-(double)differ / (width * width)));
    }
    int rc = surrogate_lime(Z, y, w, n, d, TAB_LIME_K, fit, err);
    if (rc == SIM_OK && agree) {
        double sw = 0, sa = 0;
        for (int i = 0; i < n; i++) {
            double pred = fit->intercept;
            for (int k = 0; k < fit->n_selected; k++) {
                pred += fit->weight[k] * Z[i * d + fit->idx[k]];
            }
            sw += w[i];
            sa += w[i] * ((pred >= 0.5) == (y[i] >= 0.5));
        }
        *agree = sa / sw;
    }
    sim_free(Z);
    sim_free(y);
    sim_free(w);
    return rc;
}

/* ---------------------------------------------------------- anchors */

typedef struct AnchorCtx {
    const TabStudy *ts;
    const TabRow *row;
    int target;
    int *match; /* scratch: indices of matching training rows */
} AnchorCtx;

static int matching_rows(const AnchorCtx *a, const int *anchor, int n_anchor)
{
    int m = 0;
    for (int i = 0; i < N_TRAIN; i++) {
        int ok = 1;
        for (int k = 0; k < n_anchor && ok; k++) {
            int f = anchor[k];
            ok = bin_of(a->ts, f, a->ts->train[i].v[f]) ==
                 bin_of(a->ts, f, a->row->v[f]);
        }
        if (ok) {
            a->match[m++] = i;
        }
    }
    return m;
}

/* Precision on training rows that satisfy the anchor (Anchor's
** conditional sampling from the data). */
static double anchor_precision(void *ctx, const int *anchor, int n_anchor,
                               int n_samples, SimRng *rng)
{
    const AnchorCtx *a = ctx;
    int m = matching_rows(a, anchor, n_anchor), hits = 0;
    if (m == 0 || n_samples == 0) {
        return 0;
    }
    for (int s = 0; s < n_samples; s++) {
        const TabRow *r =
            &a->ts->train[a->match[sim_rng_below(rng, (uint64_t)m)]];
        hits += tabgen_predict(&a->ts->model, r) == a->target;
    }
    return (double)hits / n_samples;
}

/* ----------------------------------------------------- explanations */

static json_t *features_payload(const TabStudy *ts, const TabRow *row,
                                const SurrogateFit *fit)
{
    int order[SURR_MAX_FEATURES];
    int k = fit->n_selected;
    surrogate_order_by_weight(fit, order);
    json_t *feats = json_array();
    double sum = 0, intercept = round(fit->intercept * 1e4) / 1e4;
    for (int j = 0; j < k; j++) {
        int f = fit->idx[order[j]];
        double wv = round(fit->weight[order[j]] * 1e4) / 1e4;
        char value[64];
        bin_text(ts, f, bin_of(ts, f, row->v[f]), value, sizeof value);
        sum += wv;
        genio_append(feats, json_pack("{s:s, s:s, s:o}", "name",
                                      tabgen_feature_name(f), "value", value,
                                      "weight", genio_real(wv, 4)));
    }
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "kind", "features",
                     "title", "Feature weights", "features", feats, "intercept",
                     genio_real(intercept, 4), "sum", genio_real(sum, 4),
                     "output", genio_real(intercept + sum, 4));
}

static int tab_explain(void *ctx, int split, int i, uint64_t seed, json_t *expl,
                       SimError *err)
{
    TabStudy *ts = ctx;
    const TabRow *row = &ts->split[split][i];
    uint64_t item_seed = sim_mix64(seed ^ (uint64_t)(split * N_SPLIT + i));
    SurrogateFit fit;
    double agree = 0;
    int rc = tabstudy_lime(ts, row, item_seed, &fit, &agree, err);
    if (rc != SIM_OK) {
        return rc;
    }
    int match[N_TRAIN];
    AnchorCtx a = {ts, row, ts->pred[split][i], match};
    AnchorResult ar;
    surrogate_anchor(&a, anchor_precision, TAB_NF, 0.95, 4, 200, item_seed + 1,
                     &ar);
    double coverage = (double)matching_rows(&a, ar.idx, ar.n) / N_TRAIN;

    TabReport *r = &ts->report;
    int n = r->expl.n_explained;
    r->lime_agree = (r->lime_agree * n + agree) / (n + 1);
    surrogate_stats_add(&r->expl, &fit, a.target == TAB_ABOVE, &ar, coverage);

    json_t *conds = json_array();
    for (int k = 0; k < ar.n; k++) {
        int f = ar.idx[k];
        char value[64], buf[128];
        bin_text(ts, f, bin_of(ts, f, row->v[f]), value, sizeof value);
        snprintf(buf, sizeof buf, "%s is %s", tabgen_feature_name(f), value);
        genio_append(conds, json_string(buf));
    }
    json_t *fp = features_payload(ts, row, &fit);
    json_t *rp =
        json_pack("{s:s, s:s, s:s, s:[{s:o, s:o, s:o}]}", "kind", "rules",
                  "title", "Rule", "predicted", CLASS_ID[a.target], "rules",
                  "conditions", conds, "precision", genio_real(ar.precision, 3),
                  "coverage", genio_real(coverage, 3));
    json_t *cp =
        json_pack("{s:s, s:[O, O]}", "kind", "composite", "parts", fp, rp);
    if (genio_set(expl, "LIME", fp) || genio_set(expl, "Anchor", rp) ||
        genio_set(expl, "Composite", cp)) {
        return sim_fail(err, SIM_ERR_NOMEM, "tabular: out of memory");
    }
    return SIM_OK;
}

/* --------------------------------------------------- counterfactuals */

/* The alternative values tried for feature f of a row. OUT: vals. */
static int alternatives(int f, int value, int *vals)
{
    int n = 0;
    if (tabgen_is_numeric(f)) {
        static const int STEPS[] = {-20, -10, -5, 5, 10, 20};
        int lo = f == TAB_AGE ? 18 : 10, hi = f == TAB_AGE ? 75 : 70;
        for (int k = 0; k < 6; k++) {
            int v = value + STEPS[k];
            if (v >= lo && v <= hi) {
                vals[n++] = v;
            }
        }
    } else {
        for (int c = 0; c < tabgen_n_categories(f); c++) {
            if (c != value) {
                vals[n++] = c;
            }
        }
    }
    return n;
}

static json_t *row_json(const TabRow *row)
{
    json_t *a = json_array();
    for (int f = 0; f < TAB_NF; f++) {
        char value[64];
        tabgen_value_text(f, row->v[f], value, sizeof value);
        genio_append(a, json_pack("{s:s, s:s}", "name", tabgen_feature_name(f),
                                  "value", value));
    }
    return a;
}

typedef struct Edit2 {
    int f[2], v[2], n; /* features, new values, count (1 or 2) */
} Edit2;

static int tab_counterfactual(void *ctx, int split, int i, int want_flip,
                              SimRng *rng, json_t **out, SimError *err)
{
    TabStudy *ts = ctx;
    const TabRow *row = &ts->split[split][i];
    int pred = ts->pred[split][i];
    Edit2 cand[600];
    int n = 0;
    (void)err;
    /* single edits first; pairs only when no single edit will do */
    for (int size = 1; size <= 2 && n == 0; size++) {
        for (int f0 = 0; f0 < TAB_NF; f0++) {
            int v0[8], n0 = alternatives(f0, row->v[f0], v0);
            for (int a = 0; a < n0; a++) {
                int f1_start = size == 1 ? TAB_NF : f0 + 1;
                if (size == 1) {
                    TabRow t = *row;
                    t.v[f0] = v0[a];
                    if ((tabgen_predict(&ts->model, &t) != pred) == want_flip &&
                        n < 600) {
                        cand[n++] = (Edit2){{f0, 0}, {v0[a], 0}, 1};
                    }
                }
                for (int f1 = f1_start; f1 < TAB_NF; f1++) {
                    int v1[8], n1 = alternatives(f1, row->v[f1], v1);
                    for (int b = 0; b < n1; b++) {
                        TabRow t = *row;
                        t.v[f0] = v0[a];
                        t.v[f1] = v1[b];
                        if ((tabgen_predict(&ts->model, &t) != pred) ==
                                want_flip &&
                            n < 600) {
                            cand[n++] = (Edit2){{f0, f1}, {v0[a], v1[b]}, 2};
                        }
                    }
                }
            }
        }
    }
    if (n == 0) {
        return 0;
    }
    const Edit2 *e = &cand[sim_rng_below(rng, (uint64_t)n)];
    TabRow t = *row;
    json_t *edits = json_array();
    for (int k = 0; k < e->n; k++) {
        char from[64], to[64];
        tabgen_value_text(e->f[k], row->v[e->f[k]], from, sizeof from);
        tabgen_value_text(e->f[k], e->v[k], to, sizeof to);
        t.v[e->f[k]] = e->v[k];
        genio_append(edits, json_pack("{s:s, s:s, s:s}", "feature",
                                      tabgen_feature_name(e->f[k]), "from",
                                      from, "to", to));
    }
    if (e->n == 1) {
        ts->report.n_cf_single++;
    } else {
        ts->report.n_cf_double++;
    }
    *out = json_pack("{s:o, s:i, s:o}", "input", row_json(&t), "prediction",
                     tabgen_predict(&ts->model, &t), "edits", edits);
    return *out ? 1 : -1;
}

int tabstudy_parse_row(const json_t *input, TabRow *row, SimError *err)
{
    memset(row, 0, sizeof *row);
    int seen[TAB_NF] = {0};
    size_t k;
    json_t *cell;
    if (!json_is_array(input)) {
        return sim_fail(err, SIM_ERR_PARSE, "tabular input: not a list");
    }
    json_array_foreach(input, k, cell)
    {
        const char *name = json_string_value(json_object_get(cell, "name"));
        const char *value = json_string_value(json_object_get(cell, "value"));
        int f = -1;
        for (int j = 0; j < TAB_NF && name; j++) {
            if (strcmp(name, tabgen_feature_name(j)) == 0) {
                f = j;
            }
        }
        if (f < 0 || !value) {
            return sim_fail(err, SIM_ERR_PARSE, "tabular input %zu: bad cell",
                            k);
        }
        if (tabgen_is_numeric(f)) {
            row->v[f] = atoi(value);
        } else {
            int c = -1;
            for (int j = 0; j < tabgen_n_categories(f); j++) {
                if (strcmp(value, tabgen_category(f, j)) == 0) {
                    c = j;
                }
            }
            if (c < 0) {
                return sim_fail(err, SIM_ERR_PARSE,
                                "tabular input: %s: unknown value '%s'", name,
                                value);
            }
            row->v[f] = c;
        }
        seen[f] = 1;
    }
    for (int f = 0; f < TAB_NF; f++) {
        if (!seen[f]) {
            return sim_fail(err, SIM_ERR_PARSE, "tabular input: no '%s'",
                            tabgen_feature_name(f));
        }
    }
    return SIM_OK;
}

/* ----------------------------------------------------------- domain */

static int tab_label(void *ctx, int split, int i)
{
    return ((TabStudy *)ctx)->split[split][i].label;
}

static int tab_prediction(void *ctx, int split, int i)
{
    return ((TabStudy *)ctx)->pred[split][i];
}

static json_t *tab_input(void *ctx, int split, int i)
{
    return row_json(&((TabStudy *)ctx)->split[split][i]);
}

/* ------------------------------------------------------------ pages */

static const char CONSENT[] =
    "# Welcome\n"
    "\n"
    "Thank you for your interest in this study. Please read this page "
    "before you decide to take part.\n"
    "\n"
    "**What you will do.** You will see short descriptions of people (age, "
    "education, occupation and so on), together with the answers that a "
    "computer program gave for them. Then you will try to predict what the "
    "program answers for other people. The study takes about 15 to 20 "
    "minutes.\n"
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

static const char MODEL_INTRO[] =
    "# Your task\n"
    "\n"
    "A computer program, **the model**, reads a short description of a "
    "person: age, work class, education, marital status, occupation, "
    "capital gain and hours worked per week. It then guesses whether the "
    "person earns **above $50K** or **below $50K** a year. The model "
    "learned this from examples. It is often right, but **not always**.\n"
    "\n";

static const char FORWARD_TASK[] =
    "**Your task is to predict the model's answer, not the person's real "
    "income.** If you think the model gets a person wrong, choose the "
    "wrong answer the model would give.\n"
    "\n"
    "# The four parts\n"
    "\n"
    "- **Learning:** 16 example people, each with their real income class "
    "and the model's answer. Take your time and work out how the model "
    "decides.\n"
    "- **First test:** 32 new people. For each, predict the model's "
    "answer: press **A** for Above $50K or **B** for Below $50K. The "
    "examples are not shown during the test.\n"
    "- **Learning again:** the same 16 examples, now each with an "
    "explanation of the model's answer. Rate each explanation from 1 (does "
    "not show at all why the model answered as it did) to 7 (shows it "
    "completely).\n"
    "- **Second test:** the same 32 people again, in a new order. Predict "
    "the model's answers once more.\n"
    "\n"
    "Every person needs an answer. If you are unsure, make your best "
    "guess. You will not be told during the study whether your answers "
    "were right.\n";

static const char CF_TASK[] =
    "On each screen you see a person, their real income class and the "
    "model's answer. Below it you see a **changed version** of the person: "
    "one or two of the values have been changed, and the changes are "
    "highlighted.\n"
    "\n"
    "**Your task is to predict the model's answer for the changed "
    "person**: press **A** for Above $50K or **B** for Below $50K. Predict "
    "what the model will say, not what the person would really earn. The "
    "model may keep its answer or change it.\n"
    "\n"
    "# The two parts\n"
    "\n"
    "- **First round:** 32 people and their changed versions.\n"
    "- **Second round:** the same 32 people in a new order, now with an "
    "explanation of the model's answer for the original person. Rate each "
    "explanation from 1 (does not show at all why the model answered as it "
    "did) to 7 (shows it completely), then predict again.\n"
    "\n"
    "Every person needs an answer. If you are unsure, make your best "
    "guess. You will not be told during the study whether your answers "
    "were right.\n";

static const char EXPLANATIONS[] =
    "# The explanations\n"
    "\n"
    "At some point you will see explanations of the model's answers. "
    "Everyone sees one kind of explanation. It is one of these:\n"
    "\n"
    "**Feature weights.** Up to five of the person's values (for example "
    "\"Education = Masters\" or \"Age = 36 to 45\"), each with a number. A "
    "positive number means the value pushed the model towards Above $50K, "
    "a negative number towards Below $50K; the larger the number, the "
    "stronger the push. Below the values you see the baseline (where the "
    "model stands before these values are counted), the sum of the "
    "weights, and the model output (total evidence: baseline plus sum). "
    "The total estimates how likely the model is to answer Above $50K: "
    "**above 0.5 means Above $50K, below 0.5 means Below $50K.** It is an "
    "estimate from a simplified copy of the model, so it can be off.\n"
    "\n"
    "**Rule.** IF a person meets these conditions, THEN the model "
    "usually gives the answer shown, whatever the other values are. "
    "Precision says how often the rule held for such people in the "
    "model's training data; coverage says what share of all people meet "
    "the conditions.\n"
    "\n"
    "**Feature weights and rule together.**\n"
    "\n"
    "The explanations are computed from the model itself, by testing how "
    "its answers change when values are changed.\n";

static const char DEBRIEF[] =
    "# Thank you!\n"
    "\n"
    "You have finished the study. Here is what it was about.\n"
    "\n"
    "The model is a small neural network trained on invented census-like "
    "records. In these records, higher education, professional "
    "occupations, being married, longer hours and capital gains go with a "
    "higher income, and income peaks in middle age. The model learned "
    "most of this, but it also makes mistakes, partly because the records "
    "contain chance variation that no model can predict.\n"
    "\n"
    "We measure whether explanations help people predict what a model will "
    "do. All people in this study are invented; no real census data are "
    "used.\n"
    "\n"
    "Thank you for your help!\n";

static json_t *tab_quiz(int counterfactual)
{
    return json_pack(
        "{s:[{s:s, s:[s, s], s:i}, {s:s, s:[s, s], s:i}]}", "questions", "text",
        counterfactual ? "What do you predict for each changed person?"
                       : "What do you predict in the tests?",
        "options", "The person's real income class", "What the model answers",
        "answer", 1, "text", "Is the model always right?", "options",
        "No, it sometimes gets a person wrong", "Yes, always", "answer", 0);
}

int tabstudy_write(TabStudy *ts, const char *root, uint64_t seed,
                   TabReport *report, SimError *err)
{
    static const char *const METHODS[] = {"LIME", "Anchor", "Composite"};
    static const double POST_P[] = {0.72, 0.70, 0.75};
    HaseDomain dom = {ts,          "tabular",         {ts->n[0], ts->n[1]},
                      tab_label,   tab_prediction,    tab_input,
                      tab_explain, tab_counterfactual};
    HaseSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.domain = "tabular";
    spec.class_id[0] = CLASS_ID[0];
    spec.class_id[1] = CLASS_ID[1];
    spec.class_label[0] = "Above $50K";
    spec.class_label[1] = "Below $50K";
    spec.class_key[0] = "a";
    spec.class_key[1] = "b";
    spec.methods = METHODS;
    spec.post_p = POST_P;
    spec.n_methods = 3;
    spec.composite = "Composite";
    spec.consent = CONSENT;
    spec.explanations = EXPLANATIONS;
    spec.debrief = DEBRIEF;

    char dir[1024], instructions[4096];
    HaseReport hr;
    int rc = SIM_OK;
    for (int cf = 0; cf < 2 && rc == SIM_OK; cf++) {
        snprintf(instructions, sizeof instructions, "%s%s", MODEL_INTRO,
                 cf ? CF_TASK : FORWARD_TASK);
        spec.counterfactual = cf;
        spec.id = cf ? "demo-tabular-counterfactual" : "demo-tabular-forward";
        spec.title = cf ? "Demo: predicting an income model on edited records "
                          "(counterfactual simulation)"
                        : "Demo: predicting an income model (forward "
                          "simulation)";
        spec.instructions = instructions;
        spec.quiz = tab_quiz(cf);
        rc = genio_join(dir, sizeof dir, root,
                        cf ? "tabular-counterfactual" : "tabular-forward", err);
        rc = rc ? rc
                : hase_write(&dom, &spec, dir,
                             sim_mix64(seed + 21 + (uint64_t)cf), &hr, err);
        json_decref(spec.quiz);
    }
    if (report) {
        *report = ts->report;
    }
    return rc;
}
