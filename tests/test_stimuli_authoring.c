/*
** Authoring guard-rails: unknown fields are errors with a "did you mean",
** notes/x-/_ keys are free, and one root cause gives one error. Each case
** copies a valid fixture bundle, breaks it the way an author would, and
** checks that the count of errors is small and the first names the cause.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "harness.h"
#include "stimuli/check.h"
#include "stimuli/study.h"
#include "test_stimuli_fs.h"

typedef struct Mutation {
    const char *file; /* bundle file to edit (NULL: none) */
    const char *from; /* every occurrence replaced ... */
    const char *to;   /* ... by this */
} Mutation;

typedef struct Case {
    const char *name;
    const char *fixture; /* folder under tests/data/bundles */
    Mutation edits[3];
    const char *remove; /* bundle file to delete, or NULL */
    size_t max_errors;
    const char *first;   /* text the first error's "field: message" has */
    const char *warning; /* text some warning has, or NULL */
} Case;

/* Replaces every occurrence of from by to in path; -1 when from is not
** there (a case that no longer breaks anything must fail). */
static int replace_all(const char *path, const char *from, const char *to)
{
    size_t len = 0;
    char *text = fs_read(path, &len);
    if (!text || !strstr(text, from)) {
        free(text);
        return -1;
    }
    size_t nf = strlen(from), nt = strlen(to);
    char *out = malloc(len * (nt > nf ? nt / nf + 2 : 1) + 1);
    size_t n = 0;
    for (const char *p = text; *p;) {
        if (strncmp(p, from, nf) == 0) {
            memcpy(out + n, to, nt);
            n += nt;
            p += nf;
        } else {
            out[n++] = *p++;
        }
    }
    int rc = fs_write(path, out, n);
    free(out);
    free(text);
    return rc;
}

/* Loads the mutated copy of c's fixture into rep; 0 when it was built. */
static int load_case(const Case *c, char *tmp, size_t size, StudyReport *rep)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/bundles/%s", SIMLAB_TEST_DATA, c->fixture);
    if (!fs_temp_dir(tmp, size, "stimuli-authoring")) {
        return -1;
    }
    char *dir = fs_join(tmp, "b");
    int rc = dir && fs_copy_tree(src, dir) == 0 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < 3 && c->edits[i].file; i++) {
        char *path = fs_join(dir, c->edits[i].file);
        rc = path ? replace_all(path, c->edits[i].from, c->edits[i].to) : -1;
        if (rc != 0) {
            fprintf(stderr, "%s: '%s' not in %s\n", c->name, c->edits[i].from,
                    c->edits[i].file);
        }
        free(path);
    }
    if (rc == 0 && c->remove) {
        char *path = fs_join(dir, c->remove);
        rc = path ? remove(path) : -1;
        free(path);
    }
    study_report_init(rep);
    if (rc == 0) {
        Study *st = NULL;
        SimError err;
        study_load(dir, &st, rep, &err);
        study_free(st);
    }
    free(dir);
    return rc;
}

static void print_report(const char *name, const StudyReport *rep)
{
    fprintf(stderr, "%s:\n", name);
    for (size_t i = 0; i < rep->n_errors; i++) {
        study_diag_print(stderr, "  error: ", &rep->errors[i]);
    }
    for (size_t i = 0; i < rep->n_warnings; i++) {
        study_diag_print(stderr, "  warning: ", &rep->warnings[i]);
    }
}

static int diag_has(const Diag *d, const char *text)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s: %s", d->field, d->message);
    return strstr(buf, text) != NULL;
}

static const Case cases[] = {
    /* a misspelled preset parameter: an error, not a silent default */
    {"preset-param",
     "valid-hase-fwd",
     {{"study.json", "\"n_test\": 3", "\"n_tset\": 3"}},
     NULL,
     1,
     "n_tset: unknown field of preset 'hase-forward' (did you mean 'n_test'?)",
     NULL},
    /* the free member, misspelled */
    {"note",
     "valid-hase-fwd",
     {{"study.json", "\"baseline\": \"baseline\"",
       "\"baseline\": \"baseline\", \"note\": \"pilot\""}},
     NULL,
     1,
     "note: unknown field (did you mean 'notes'?)",
     NULL},
    /* a misspelled top-level field, with notes and x- keys beside it */
    {"top-level",
     "valid-hase-fwd",
     {{"study.json", "\"baseline\": \"baseline\"",
       "\"baseline\": \"baseline\", \"notes\": \"pilot 2\", \"x-lab\": "
       "{\"room\": 3}, \"_todo\": 1, \"ui\": {\"notes\": \"as is\"}, "
       "\"clases\": []"}},
     NULL,
     1,
     "clases: unknown field (did you mean 'classes'?)",
     NULL},
    /* a misspelled field in every record of a JSON Lines bank: one error */
    {"jsonl-field",
     "valid-all",
     {{"items.jsonl", "\"prediction\":", "\"predicton\":"}},
     NULL,
     2,
     "predicton: unknown field (did you mean 'prediction'?) (and ",
     NULL},
    /* the item file is missing: no "pool has no items", no "no item has a
    ** LIME explanation", no "no item 'd1'" for every explanation record */
    {"missing-bank",
     "valid-hase-fwd",
     {{NULL, NULL, NULL}},
     "items.csv",
     1,
     "file: 'items.csv': no such file",
     NULL},
    /* the explanation file is missing: one error, not also at the
    ** condition whose method no item has */
    {"missing-source",
     "valid-hase-fwd",
     {{NULL, NULL, NULL}},
     "lime.jsonl",
     1,
     "file: 'lime.jsonl': no such file",
     NULL},
    /* a wrong class id in every row: one error per column, with a count */
    {"class-every-row",
     "valid-hase-fwd",
     {{"items.csv", ",pos", ",positive"}},
     NULL,
     2,
     "unknown class 'positive' (classes: 'pos', 'neg') (and ",
     NULL},
    /* a misspelled class id in study.json: the same, and no balance
    ** warning about the items that did not load */
    {"class-in-study",
     "valid-hase-fwd",
     {{"study.json", "{\"id\": \"pos\"}", "{\"id\": \"poss\"}"}},
     NULL,
     2,
     "label: unknown class 'pos' (classes: 'poss', 'neg') (and 2 more rows",
     NULL},
    /* a misspelled pool named by the sessions of a preset: one error, not
    ** one per session */
    {"preset-pool",
     "valid-meta",
     {{"study.json", "\"test_pool\": \"test\"", "\"test_pool\": \"tset\""}},
     NULL,
     1,
     "test_pool: pool 'tset' has no items (did you mean 'test'?)",
     NULL},
    /* "blocks" beside a preset in a within-subject study: one error, not
    ** also "no block shows items" */
    {"preset-and-blocks-within",
     "valid-hase-fwd",
     {{"study.json", "  \"protocol\":",
       "  \"assignment\": {\"mode\": \"within\"},\n"
       "  \"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}],\n"
       "  \"protocol\":"}},
     NULL,
     1,
     "blocks: give either \"protocol\" (a preset) or \"blocks\", not both",
     NULL},
    /* a misspelled explicit pool in two blocks, and a misspelled kind
    ** field */
    {"block-fields",
     "valid-all",
     {{"study.json", "\"pool\": \"test\", \"n\": 2",
       "\"pool\": \"tset\", \"n\": 2, \"odrer\": \"fixed\""}},
     NULL,
     2,
     "odrer: unknown field (did you mean 'order'?)",
     NULL},
    /* a misspelled condition id in the simulation cells and --p */
    {"sim-condition",
     "valid-all",
     {{"study.json",
       "{\"condition\": \"mix\", \"phase\": \"post\", \"p\": 0.8}",
       "{\"condition\": \"mxi\", \"phase\": \"post\", \"p\": 0.8}, "
       "{\"condition\": \"mxi\", \"phase\": \"pre\", \"p\": 0.6}"}},
     NULL,
     1,
     "condition: no condition 'mxi' (did you mean 'mix'?) (and 1 more place",
     NULL},
    /* a misspelled phase, and a phase the study has no block in */
    {"sim-phase",
     "valid-all",
     {{"study.json", "\"phase\": \"post\", \"p\": 0.8",
       "\"phase\": \"psot\", \"p\": 0.8"},
      {"study.json", "\"phase\": \"pre\", \"p\": 0.55",
       "\"phase\": \"train\", \"p\": 0.55"}},
     NULL,
     2,
     "phase: no phase 'psot' (did you mean 'post'?)",
     NULL},
    /* a misspelled member of an explanation payload */
    {"payload-field",
     "valid-all",
     {{"items.jsonl", "\"colormap\": \"magma\"", "\"colourmap\": \"magma\""}},
     NULL,
     1,
     "explanations.mix.colourmap: unknown field of a heatmap explanation "
     "(did you mean 'colormap'?)",
     NULL},
    /* misspelled members of nested objects: one error each, and the
    ** payload and item are still read (no follow-on errors) */
    {"nested-rule",
     "valid-all",
     {{"expl/test.jsonl", "\"precision\": 0.9", "\"precison\": 0.9"}},
     NULL,
     1,
     "rules.0.precison: unknown field (did you mean 'precision'?)",
     NULL},
    {"nested-input",
     "valid-all",
     {{"items.jsonl", "\"a_title\": \"Premise\"", "\"a_titel\": \"Premise\""}},
     NULL,
     1,
     "input.a_titel: unknown field (did you mean 'a_title'?)",
     NULL},
    /* "online" (simlab serve): a completion code with a space, a link that
    ** is not one, a misspelled member, neither code nor link */
    {"online-code",
     "valid-hase-fwd",
     {{"study.json", "\"title\":",
       "\"online\": {\"completion_code\": \"AB CD\"}, \"title\":"}},
     NULL,
     1,
     "completion_code: 'AB CD': use letters, digits, '-' and '_' only",
     NULL},
    {"online-url",
     "valid-hase-fwd",
     {{"study.json", "\"title\":",
       "\"online\": {\"completion_url\": \"javascript:alert(1)\"}, "
       "\"title\":"}},
     NULL,
     1,
     "completion_url: 'javascript:alert(1)': must start with https://",
     NULL},
    {"online-misspelt",
     "valid-hase-fwd",
     {{"study.json",
       "\"title\":", "\"online\": {\"completion_cod\": \"X1\"}, \"title\":"}},
     NULL,
     2,
     "completion_cod: unknown field (did you mean 'completion_code'?)",
     NULL},
    {"online-empty",
     "valid-hase-fwd",
     {{"study.json", "\"title\":", "\"online\": {}, \"title\":"}},
     NULL,
     1,
     "online: give a completion_code",
     NULL},
    /* a rating the meta-predictor never asks: warnings, not errors */
    {"meta-rating",
     "valid-meta",
     {{"study.json", "\"reservoir\": true}",
       "\"reservoir\": true, \"rating\": true},\n  \"rating\": {\"points\": "
       "5}"}},
     NULL,
     0,
     NULL,
     "rating: preset 'meta-predictor' never asks a rating"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const Case *c = &cases[i];
        char tmp[256];
        StudyReport rep;
        int built = load_case(c, tmp, sizeof tmp, &rep);
        CHECK_INT(built, 0);
        int ok = built == 0 && rep.n_errors <= c->max_errors &&
                 (c->max_errors == 0 || rep.n_errors > 0);
        for (size_t k = 0; ok && k < rep.n_warnings; k++) {
            ok = strstr(rep.warnings[k].message, "not balanced") == NULL ||
                 rep.n_errors == 0 || strcmp(c->name, "class-in-study") != 0;
        }
        if (ok && c->first) {
            ok = rep.n_errors > 0 && diag_has(&rep.errors[0], c->first);
        }
        if (ok && c->warning) {
            int found = 0;
            for (size_t k = 0; k < rep.n_warnings; k++) {
                found |= diag_has(&rep.warnings[k], c->warning);
            }
            ok = found;
        }
        /* a count in the message is also in the Diag */
        for (size_t k = 0; ok && k < rep.n_errors; k++) {
            ok = (strstr(rep.errors[k].message, "(and ") != NULL) ==
                 (rep.errors[k].n_more > 0);
        }
        CHECK(ok);
        if (!ok) {
            print_report(c->name, &rep);
        }
        study_report_free(&rep);
        fs_remove_tree(tmp);
    }
}

/* The meta-predictor's rating warnings: both the parameter and the unused
** question are named, and neither is an error. */
static void test_rating_warnings(void)
{
    const Case *c = &cases[sizeof cases / sizeof *cases - 1];
    char tmp[256];
    StudyReport rep;
    CHECK_INT(load_case(c, tmp, sizeof tmp, &rep), 0);
    CHECK_INT(rep.n_errors, 0);
    int param = 0, question = 0;
    for (size_t k = 0; k < rep.n_warnings; k++) {
        const Diag *d = &rep.warnings[k];
        param |= d->pointer && strcmp(d->pointer, "/protocol/rating") == 0;
        question |= d->pointer && strcmp(d->pointer, "/rating") == 0 &&
                    strstr(d->message, "never asks") != NULL;
    }
    CHECK(param);
    CHECK(question);
    study_report_free(&rep);
    fs_remove_tree(tmp);
}

/* Without a near name the message lists the fields and the free keys. */
static void test_no_suggestion(void)
{
    Case c = {"far",
              "valid-hase-fwd",
              {{"study.json", "\"baseline\": \"baseline\"",
                "\"baseline\": \"baseline\", \"zzzzzzzzzz\": 1"}},
              NULL,
              1,
              "zzzzzzzzzz: unknown field (the fields here: simlab_study, id, "
              "title,",
              NULL};
    char tmp[256];
    StudyReport rep;
    CHECK_INT(load_case(&c, tmp, sizeof tmp, &rep), 0);
    CHECK_INT(rep.n_errors, 1);
    CHECK(rep.n_errors == 1 && diag_has(&rep.errors[0], c.first) &&
          strstr(rep.errors[0].message, "notes, x-...") != NULL);
    CHECK(rep.n_errors == 1 && rep.errors[0].pointer &&
          strcmp(rep.errors[0].pointer, "/zzzzzzzzzz") == 0);
    study_report_free(&rep);
    fs_remove_tree(tmp);
}

/* When the field an unknown one nearly names is there too, its own errors
** are real and stay. */
static void test_both_spellings(void)
{
    Case c = {
        "both",
        "valid-hase-fwd",
        {{"study.json", "\"n_test\": 3", "\"n_test\": 30, \"n_tset\": 3"}},
        NULL,
        2,
        "n_tset: unknown field of preset 'hase-forward' (did you mean "
        "'n_test'?)",
        NULL};
    char tmp[256];
    StudyReport rep;
    CHECK_INT(load_case(&c, tmp, sizeof tmp, &rep), 0);
    CHECK_INT(rep.n_errors, 2);
    CHECK(rep.n_errors == 2 && diag_has(&rep.errors[0], c.first) &&
          diag_has(&rep.errors[1], "n_test: pool 'test' has 3 items; block "
                                   "'pre' needs 30"));
    if (rep.n_errors != 2) {
        print_report(c.name, &rep);
    }
    study_report_free(&rep);
    fs_remove_tree(tmp);
}

/* Out of memory at every allocation of a load that repeats, suppresses and
** collapses problems: SIM_ERR_NOMEM and no study, never a crash (ASan
** builds also check for leaks). */
static void test_out_of_memory(void)
{
    Case c = {"oom",
              "valid-hase-fwd",
              {{"items.csv", ",pos", ",positive"},
               {"study.json", "\"n_test\": 3", "\"n_tset\": 3"}},
              "lime.jsonl",
              9,
              NULL,
              NULL};
    char tmp[256];
    StudyReport rep;
    CHECK_INT(load_case(&c, tmp, sizeof tmp, &rep), 0);
    size_t want = rep.n_errors;
    CHECK(want >= 3);
    study_report_free(&rep);
    char *dir = fs_join(tmp, "b");
    int done = 0, nomem = 0, bad = 0;
    for (long n = 0; n < 20000 && dir && !done; n++) {
        study_report_init(&rep);
        Study *st = NULL;
        SimError err;
        sim_alloc_fail_after(n);
        int rc = study_load(dir, &st, &rep, &err);
        sim_alloc_fail_after(-1);
        if (rc == SIM_ERR_NOMEM) {
            nomem++;
        } else {
            done = rc == SIM_ERR_INVALID && rep.n_errors == want;
            bad += !done;
        }
        bad += st != NULL;
        study_free(st);
        study_report_free(&rep);
    }
    CHECK(done);
    CHECK(nomem > 50);
    CHECK_INT(bad, 0);
    free(dir);
    fs_remove_tree(tmp);
}

int main(void)
{
    test_cases();
    test_rating_warnings();
    test_no_suggestion();
    test_both_spellings();
    test_out_of_memory();
    return TEST_REPORT();
}
