/*
** The four Hase & Bansal 2020 studies of examples/hase2020/, assembled in a
** scratch folder with the published stimuli from the shared data folder
** (copied to data/), must pass check_bundle with the balance the paper
** reports: 8 TP / 8 FP / 8 TN / 8 FN per test, 4 same / 4 flip per
** prediction type in counterfactual tests, 6 conditions. Skips (77) when
** the shared data are absent.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "stimuli/study.h"

#include <jansson.h>

typedef struct HaseCase {
    const char *name;   /* folder under examples/hase2020 */
    const char *domain; /* folder of the shared data */
    int counterfactual;
    const char *reused_id; /* an id of both the learning and the test split */
} HaseCase;

static const HaseCase cases[] = {
    {"text-forward", "text", 0, "363"},
    {"text-counterfactual", "text", 1, NULL},
    {"tabular-forward", "tabular", 0, NULL},
    {"tabular-counterfactual", "tabular", 1, NULL},
};

static const char *const type_names[4] = {"TP", "FP", "TN", "FN"};

static json_int_t jint(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static void check_json_report(const HaseCase *c, const char *dir)
{
    char *out = NULL;
    int rc = fs_check(dir, 1, &out);
    CHECK_INT(rc, 0);
    json_error_t jerr;
    json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
    CHECK(o != NULL);
    if (!o) {
        free(out);
        return;
    }
    if (!json_is_true(json_object_get(o, "valid"))) {
        fprintf(stderr, "%s: not valid:\n%s\n", c->name, out);
    }
    CHECK(json_is_true(json_object_get(o, "valid")));
    CHECK_INT(json_array_size(json_object_get(o, "errors")), 0);
    CHECK_INT(json_array_size(json_object_get(o, "warnings")), 0);
    CHECK_INT(json_array_size(json_object_get(o, "conditions")), 6);
    CHECK_INT(strlen(json_string_value(json_object_get(o, "hash"))), 64);
    json_t *study = json_object_get(o, "study");
    CHECK_STR(json_string_value(json_object_get(study, "domain")), c->domain);
    CHECK_STR(json_string_value(json_object_get(study, "preset")),
              c->counterfactual ? "hase-counterfactual" : "hase-forward");
    json_t *blocks = json_object_get(o, "blocks");
    /* consent, instructions, quiz, (learn1, pre, learn2, post | pre, post),
    ** debrief */
    CHECK_INT(json_array_size(blocks), c->counterfactual ? 6 : 8);
    json_t *pools = json_object_get(o, "pools");
    size_t i;
    json_t *p;
    int seen_test = 0, seen_learn = 0;
    json_array_foreach(pools, i, p)
    {
        const char *name = json_string_value(json_object_get(p, "pool"));
        if (name && strcmp(name, "test") == 0) {
            seen_test = 1;
            CHECK_INT(jint(p, "n"), 32);
            CHECK_INT(jint(p, "TP"), 8);
            CHECK_INT(jint(p, "FP"), 8);
            CHECK_INT(jint(p, "TN"), 8);
            CHECK_INT(jint(p, "FN"), 8);
            CHECK_INT(jint(p, "correct"), 16);
            CHECK_INT(jint(p, "incorrect"), 16);
            if (c->counterfactual) {
                CHECK_INT(jint(p, "same"), 16);
                CHECK_INT(jint(p, "flip"), 16);
                json_t *bt = json_object_get(p, "by_type");
                for (int t = 0; t < 4; t++) {
                    json_t *x = json_object_get(bt, type_names[t]);
                    CHECK_INT(jint(x, "same"), 4);
                    CHECK_INT(jint(x, "flip"), 4);
                }
            }
        } else if (name && strcmp(name, "learn") == 0) {
            seen_learn = 1;
            CHECK_INT(jint(p, "n"), 16);
            CHECK_INT(jint(p, "TP"), 4);
            CHECK_INT(jint(p, "FP"), 4);
            CHECK_INT(jint(p, "TN"), 4);
            CHECK_INT(jint(p, "FN"), 4);
        }
    }
    CHECK(seen_test);
    CHECK(seen_learn == !c->counterfactual);
    json_decref(o);
    free(out);
}

static void check_model(const HaseCase *c, const char *dir)
{
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    SimError err;
    CHECK_INT(study_load(dir, &st, &rep, &err), SIM_OK);
    if (!st) {
        study_report_free(&rep);
        return;
    }
    CHECK_INT(st->n_conditions, 6);
    CHECK_INT(st->n_methods, 6);
    CHECK_INT(st->assignment.rule, ASSIGN_HASE);
    CHECK_INT(st->assignment.min_complete, 3);
    CHECK_STR(st->assignment.then_condition, "composite");
    CHECK_STR(st->classes[0].label,
              strcmp(c->domain, "text") == 0 ? "Positive" : "above $50K");
    const char *pool = c->counterfactual ? "test" : "learn";
    size_t explained = 0, composite_ok = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        const Item *it = &st->items[i];
        if (strcmp(it->pool, pool) != 0) {
            continue;
        }
        explained++;
        for (size_t m = 0; m < st->n_methods; m++) {
            CHECK(item_explanation(it, st->methods[m]) != NULL);
        }
        const Explanation *e = item_explanation(it, "composite");
        composite_ok += e && e->kind == EXPL_COMPOSITE && e->n_parts == 2 &&
                        e->parts[0].text && e->parts[1].text;
        if (c->counterfactual) {
            CHECK(it->cf != NULL && it->cf->n_edits > 0);
            if (it->cf && strcmp(c->domain, "text") == 0) {
                CHECK(strstr(it->cf->input.text, "**") == NULL);
            }
        }
        if (strcmp(c->domain, "tabular") == 0) {
            CHECK_INT(it->input.n_features, 12);
        }
    }
    CHECK_INT(explained, c->counterfactual ? 32 : 16);
    CHECK_INT(composite_ok, explained);
    if (c->reused_id) {
        /* the same id names different items in the two splits */
        char k1[64], k2[64];
        snprintf(k1, sizeof k1, "learn:%s", c->reused_id);
        snprintf(k2, sizeof k2, "test:%s", c->reused_id);
        const Item *a = study_find_item(st, k1), *b = study_find_item(st, k2);
        CHECK(a && b && a != b);
        if (a && b && a->input.text && b->input.text) {
            CHECK(strcmp(a->input.text, b->input.text) != 0);
        }
    }
    study_free(st);
    study_report_free(&rep);
}

int main(void)
{
    char shared[1024];
    snprintf(shared, sizeof shared, "%s/data/hase2020", SIMLAB_SHARED_DIR);
    struct stat sb;
    if (stat(shared, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skipped: the Hase & Bansal 2020 materials are not at %s "
               "(set SIMLAB_SHARED_DIR)\n",
               shared);
        return SIM_TEST_SKIP;
    }
    char tmp[256];
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-hase")) {
        perror("mkdtemp");
        return 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const HaseCase *c = &cases[i];
        char src[1024], dir[1024], data_src[1200], data_dst[1100];
        snprintf(src, sizeof src, "%s/examples/hase2020/%s", SIMLAB_SOURCE_DIR,
                 c->name);
        snprintf(dir, sizeof dir, "%s/%s", tmp, c->name);
        snprintf(data_src, sizeof data_src, "%s/%s/data/HIT-data-public-final",
                 shared, c->domain);
        snprintf(data_dst, sizeof data_dst, "%s/data", dir);
        CHECK_INT(fs_copy_tree(src, dir), 0);
        fs_remove_tree(data_dst); /* a stale local copy, if any */
        CHECK_INT(fs_copy_tree(data_src, data_dst), 0);
        check_json_report(c, dir);
        check_model(c, dir);
    }
    fs_remove_tree(tmp);
    return TEST_REPORT();
}
