/*
** Hase & Bansal-style bundle writer: balanced selection, item bank, pages
** and study.json. Knows nothing about text or tables; the domain callbacks
** do the model work.
*/
#include "stimuli/gen/hase.h"

#include <stdio.h>
#include <string.h>

#include "stimuli/gen/genio.h"
#include "common/sim_alloc.h"

#define PER_GROUP_LEARN 4
#define PER_GROUP_TEST  8

int hase_group(int label, int prediction)
{
    if (prediction == 0) {
        return label == 0 ? 0 : 1; /* TP, FP */
    }
    return label == 1 ? 2 : 3; /* TN, FN */
}

static const char *const GROUP_NAMES[4] = {"TP", "FP", "TN", "FN"};

/* The instances of `group` in split, in index order. OUT: *cand (a new
** array, sim_free) and *m. */
static int group_candidates(const HaseDomain *dom, int split, int group,
                            int **cand, int *m, SimError *err)
{
    int n = dom->n[split];
    *m = 0;
    *cand = sim_malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!*cand) {
        return sim_fail(err, SIM_ERR_NOMEM, "hase: out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (hase_group(dom->label(dom->ctx, split, i),
                       dom->prediction(dom->ctx, split, i)) == group) {
            (*cand)[(*m)++] = i;
        }
    }
    return SIM_OK;
}

/* Picks `count` random instances of `group` from split. OUT: idx. */
static int select_group(const HaseDomain *dom, int split, int group, int count,
                        SimRng *rng, int *idx, SimError *err)
{
    int *cand, m;
    int rc = group_candidates(dom, split, group, &cand, &m, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (m < count) {
        sim_free(cand);
        return sim_fail(err, SIM_ERR_INVALID,
                        "hase: only %d %s candidates, need %d", m,
                        GROUP_NAMES[group], count);
    }
    sim_rng_shuffle(rng, cand, (size_t)m, sizeof(int));
    memcpy(idx, cand, sizeof(int) * (size_t)count);
    sim_free(cand);
    return SIM_OK;
}

/* Like select_group, but every pick needs a counterfactual: the first half
** of the quota keeps the model's output ("same"), the second flips it.
** OUT: idx, cf (new references). */
static int select_group_cf(const HaseDomain *dom, int group, int count,
                           SimRng *rng, uint64_t seed, int *idx, json_t **cf,
                           SimError *err)
{
    int *cand, m;
    int rc = group_candidates(dom, HASE_TEST, group, &cand, &m, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sim_rng_shuffle(rng, cand, (size_t)m, sizeof(int));
    int n_same = 0, n_flip = 0, half = count / 2;
    for (int k = 0; k < m && (n_same < half || n_flip < count - half); k++) {
        for (int want_flip = 1; want_flip >= 0; want_flip--) {
            if ((want_flip && n_flip >= count - half) ||
                (!want_flip && n_same >= half)) {
                continue;
            }
            SimRng r;
            sim_rng_seed_stream(&r, seed, (uint64_t)cand[k] * 2 + 1);
            json_t *found = NULL;
            int got = dom->counterfactual(dom->ctx, HASE_TEST, cand[k],
                                          want_flip, &r, &found, err);
            if (got < 0) {
                rc = err ? err->code : SIM_ERR_INVALID;
                goto done;
            }
            if (got) {
                int slot = want_flip ? half + n_flip++ : n_same++;
                idx[slot] = cand[k];
                cf[slot] = found;
                break;
            }
        }
    }
    if (n_same < half || n_flip < count - half) {
        rc = sim_fail(err, SIM_ERR_INVALID,
                      "hase: %s: found %d same and %d flip counterfactuals, "
                      "need %d and %d",
                      GROUP_NAMES[group], n_same, n_flip, half, count - half);
    }
done:
    sim_free(cand);
    return rc;
}

static json_t *class_json(const HaseSpec *spec, int c)
{
    return json_string(spec->class_id[c]);
}

/* One item record. cf (may be NULL) is stolen. */
static int item_json(const HaseDomain *dom, const HaseSpec *spec, int split,
                     int i, const char *id, const char *pool, int explain,
                     json_t *cf, uint64_t seed, json_t **out, SimError *err)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= genio_set(o, "id", json_string(id));
    bad |= genio_set(o, "pool", json_string(pool));
    bad |= genio_set(o, "modality", json_string(dom->modality));
    bad |= genio_set(o, "input", dom->input(dom->ctx, split, i));
    bad |=
        genio_set(o, "label", class_json(spec, dom->label(dom->ctx, split, i)));
    bad |= genio_set(o, "prediction",
                     class_json(spec, dom->prediction(dom->ctx, split, i)));
    if (cf) {
        json_t *p = json_object_get(cf, "prediction");
        int pc = (int)json_integer_value(p);
        bad |= json_object_set_new(cf, "prediction", class_json(spec, pc));
        bad |= genio_set(o, "counterfactual", cf);
    }
    if (bad) {
        json_decref(o);
        return sim_fail(err, SIM_ERR_NOMEM, "hase: item %s: out of memory", id);
    }
    if (explain) {
        json_t *expl = json_object();
        int rc = expl ? dom->explain(dom->ctx, split, i, seed, expl, err)
                      : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        if (rc != SIM_OK) {
            json_decref(expl);
            json_decref(o);
            return rc;
        }
        if (genio_set(o, "explanations", expl)) {
            json_decref(o);
            return sim_fail(err, SIM_ERR_NOMEM, "hase: item %s: out of memory",
                            id);
        }
    }
    *out = o;
    return SIM_OK;
}

static json_t *study_json(const HaseSpec *spec)
{
    json_t *s = json_object();
    genio_set(s, "simlab_study", json_integer(1));
    genio_set(s, "id", json_string(spec->id));
    genio_set(s, "title", json_string(spec->title));
    genio_set(s, "domain", json_string(spec->domain));
    json_t *classes = json_array();
    for (int c = 0; c < 2; c++) {
        genio_append(classes,
                     json_pack("{s:s, s:s, s:s}", "id", spec->class_id[c],
                               "label", spec->class_label[c], "key",
                               spec->class_key[c]));
    }
    genio_set(s, "classes", classes);
    json_t *conds = json_array();
    for (int m = 0; m < spec->n_methods; m++) {
        genio_append(conds, json_pack("{s:s, s:s}", "id", spec->methods[m],
                                      "method", spec->methods[m]));
    }
    genio_set(s, "conditions", conds);
    if (spec->counterfactual) {
        genio_set(s, "protocol",
                  json_pack("{s:s, s:i}", "preset", "hase-counterfactual",
                            "n_test", 4 * PER_GROUP_TEST));
    } else {
        genio_set(s, "protocol",
                  json_pack("{s:s, s:i, s:i}", "preset", "hase-forward",
                            "n_learn", 4 * PER_GROUP_LEARN, "n_test",
                            4 * PER_GROUP_TEST));
    }
    genio_set(s, "assignment",
              json_pack("{s:s, s:i, s:s}", "rule", "hase", "min_complete", 3,
                        "then", spec->composite));
    genio_set(s, "pages",
              json_pack("{s:s, s:[s, s], s:s}", "consent", "pages/consent.md",
                        "instructions", "pages/instructions.md",
                        "pages/explanations.md", "debrief",
                        "pages/debrief.md"));
    if (spec->quiz) {
        genio_set(s, "quiz", json_incref(spec->quiz));
    }
    if (spec->post_p) {
        genio_set(s, "simulation",
                  genio_simulation(0.6, "post", 0.6, spec->methods,
                                   spec->post_p, spec->n_methods));
    }
    genio_set(s, "rating",
              json_pack("{s:s, s:i, s:s, s:s}", "question",
                        "Does this explanation show me why the system "
                        "thought what it did?",
                        "points", 7, "low", "Not at all", "high",
                        "Completely"));
    genio_set(
        s, "items",
        json_pack("[{s:s, s:s}]", "file", "items.jsonl", "format", "jsonl"));
    return s;
}

static int write_pages(const HaseSpec *spec, const char *dir, SimError *err)
{
    const char *const names[4] = {"consent.md", "instructions.md",
                                  "explanations.md", "debrief.md"};
    const char *const texts[4] = {spec->consent, spec->instructions,
                                  spec->explanations, spec->debrief};
    return genio_write_pages(dir, names, texts, 4, err);
}

int hase_write(const HaseDomain *dom, const HaseSpec *spec, const char *dir,
               uint64_t seed, HaseReport *report, SimError *err)
{
    SimRng rng;
    sim_rng_seed_stream(&rng, seed, 1);
    memset(report, 0, sizeof *report);
    int learn[4 * PER_GROUP_LEARN], test[4 * PER_GROUP_TEST];
    json_t *cf[4 * PER_GROUP_TEST] = {NULL};
    json_t *lines = json_array();
    json_t *study = NULL;
    char path[1024];
    int rc = genio_mkdirs(dir, err);
    if (!lines) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "hase: out of memory");
    }
    int n_learn = spec->counterfactual ? 0 : 4 * PER_GROUP_LEARN;
    for (int g = 0; g < 4 && rc == SIM_OK && n_learn; g++) {
        rc = select_group(dom, HASE_VALIDATION, g, PER_GROUP_LEARN, &rng,
                          learn + g * PER_GROUP_LEARN, err);
    }
    for (int g = 0; g < 4 && rc == SIM_OK; g++) {
        if (spec->counterfactual) {
            rc = select_group_cf(dom, g, PER_GROUP_TEST, &rng, seed,
                                 test + g * PER_GROUP_TEST,
                                 cf + g * PER_GROUP_TEST, err);
        } else {
            rc = select_group(dom, HASE_TEST, g, PER_GROUP_TEST, &rng,
                              test + g * PER_GROUP_TEST, err);
        }
    }
    if (rc != SIM_OK) {
        goto cleanup;
    }
    /* file order: shuffled within each pool, so that groups do not show */
    int order[4 * PER_GROUP_TEST];
    for (int k = 0; k < 4 * PER_GROUP_TEST; k++) {
        order[k] = k;
    }
    sim_rng_shuffle(&rng, order, (size_t)n_learn, sizeof(int));
    for (int k = 0; k < n_learn && rc == SIM_OK; k++) {
        int i = learn[order[k]];
        char id[16];
        json_t *item = NULL;
        snprintf(id, sizeof id, "l%02d", k + 1);
        rc = item_json(dom, spec, HASE_VALIDATION, i, id, "learn", 1, NULL,
                       seed, &item, err);
        if (rc == SIM_OK) {
            genio_append(lines, item);
            report->n_learn++;
            report->group[0][hase_group(
                dom->label(dom->ctx, HASE_VALIDATION, i),
                dom->prediction(dom->ctx, HASE_VALIDATION, i))]++;
        }
    }
    for (int k = 0; k < 4 * PER_GROUP_TEST; k++) {
        order[k] = k;
    }
    sim_rng_shuffle(&rng, order, 4 * PER_GROUP_TEST, sizeof(int));
    for (int k = 0; k < 4 * PER_GROUP_TEST && rc == SIM_OK; k++) {
        int slot = order[k], i = test[slot];
        char id[16];
        json_t *item = NULL;
        snprintf(id, sizeof id, "t%02d", k + 1);
        int pred = dom->prediction(dom->ctx, HASE_TEST, i);
        if (cf[slot]) {
            int cpred = (int)json_integer_value(
                json_object_get(cf[slot], "prediction"));
            if (cpred == pred) {
                report->same[pred]++;
            } else {
                report->flip[pred]++;
            }
        }
        rc = item_json(dom, spec, HASE_TEST, i, id, "test",
                       spec->counterfactual, cf[slot], seed, &item, err);
        cf[slot] = NULL; /* stolen */
        if (rc == SIM_OK) {
            genio_append(lines, item);
            report->n_test++;
            report->group[1][hase_group(dom->label(dom->ctx, HASE_TEST, i),
                                        pred)]++;
        }
    }
    if (rc != SIM_OK) {
        goto cleanup;
    }
    rc = genio_join(path, sizeof path, dir, "items.jsonl", err);
    rc = rc ? rc : genio_write_jsonl(path, lines, err);
    study = study_json(spec);
    rc = rc ? rc : genio_join(path, sizeof path, dir, "study.json", err);
    rc = rc ? rc : genio_write_json(path, study, err);
    rc = rc ? rc : write_pages(spec, dir, err);
cleanup:
    for (int k = 0; k < 4 * PER_GROUP_TEST; k++) {
        json_decref(cf[k]);
    }
    json_decref(lines);
    json_decref(study);
    return rc;
}
