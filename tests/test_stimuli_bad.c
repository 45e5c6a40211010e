/*
** Broken study bundles under tests/data/bundles/: each must fail
** check_bundle() with exit status 1 and exactly the expected located
** messages, one per problem; the JSON report must say the same. Also:
** loading never crashes on truncated or garbled files.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/study.h"

#include <jansson.h>

typedef struct BadCase {
    const char *bundle;
    int n_errors;
    const char *expect[20]; /* substrings of the text report; NULL ends */
} BadCase;

static const BadCase cases[] = {
    {"bad-json",
     1,
     {"error: study.json:6: invalid JSON: ']' expected near end of file",
      NULL}},
    {"bad-json-dup",
     1,
     {"error: study.json:4:6: invalid JSON: duplicate object key", NULL}},
    /* notpng.png is named twice (an input, a map): one error */
    {"bad-media",
     16,
     {"items.jsonl:1: field 'explanations.ig.file': 'media/wrong-shape.npy': "
      "map is 5x5 (WxH) but the image is 8x6: neither the same size nor the "
      "same aspect ratio",
      "items.jsonl:2: field 'input': 'media/missing.png': no such file",
      "items.jsonl:3: field 'input': 'media/truncated.png': truncated PNG",
      "items.jsonl:4: field 'input': 'media/notpng.png': not a PNG or JPEG "
      "file (bad signature) (and 1 more place: items.jsonl:9 field "
      "'explanations.ig.file')",
      "items.jsonl:5: field 'explanations.ig.file': 'media/wrong-dtype.npy': "
      ".npy dtype is '<f8', expected '<f4'",
      "items.jsonl:6: field 'explanations.ig.file': 'media/three-d.npy': .npy "
      "array has 3 dimensions, expected 2",
      "items.jsonl:7: field 'explanations.ig.file': 'media/fortran.npy': .npy "
      "array must be in C order",
      "items.jsonl:8: field 'explanations.ig.file': 'media/short.npy': "
      "truncated .npy data",
      "items.jsonl:10: field 'explanations.ig.file': 'media/ok.gif': a "
      "heatmap must be a .png or .npy file",
      "items.jsonl:11: field 'explanations.ig.file': 'media/gone.npy': no "
      "such file",
      "items.jsonl:12: field 'input': 'media/short-data.png': corrupt PNG: "
      "Not enough image data",
      "items.jsonl:13: field 'input': 'media/huge.png': image is "
      "100000x100000 pixels; the limit is 8192 pixels per side",
      "items.jsonl:14: field 'input': 'media/corrupt.jpg': corrupt JPEG: "
      "Premature end of JPEG file",
      "items.jsonl:15: field 'explanations.ig.file': 'media/nan.npy': .npy "
      "value at row 2, column 3 is NaN",
      "items.jsonl:16: field 'explanations.ig.file': 'media/long.npy': .npy "
      "file has 16 bytes after its 6 x 8 floats",
      "items.jsonl:17: field 'input': 'media/aaaaaaaa",
      "': the path is 1110 bytes long; the limit is 1023", NULL}},
    /* a payload with errors is one error: the item does not also "lack"
    ** its explanation, nor the method all explanations */
    {"bad-npy-dtype",
     1,
     {"items.jsonl:1: field 'explanations.ig.file': 'media/wrong-dtype.npy': "
      ".npy dtype is '<f8', expected '<f4'",
      NULL}},
    {"bad-ids",
     2,
     {"items.csv:4: field 'id': duplicate id '1' in pool 'test' (first at "
      "items.csv:2)",
      "other.jsonl:3: field 'id': duplicate id '2' in pool 'other' (first at "
      "other.jsonl:2)",
      NULL}},
    {"bad-paths",
     4,
     {"items.jsonl:2: field 'input': 'media/outside.png': resolves outside "
      "the bundle",
      "items.jsonl:3: field 'input': 'media/../../valid-all/media/cat.png': "
      "'..' may not leave the bundle",
      "study.json:/items/1/file: field 'file': '../valid-all/items.jsonl': "
      "'..' may not leave the bundle",
      "study.json:/pages/consent: field 'consent': page '/etc/hostname': "
      "absolute paths are not allowed",
      NULL}},
    {"bad-missing-expl",
     2,
     {"items.jsonl:2: field 'explanations': item 'learn:b' has no 'saliency' "
      "explanation (condition 'sal' sees it explained in block 'learn')",
      "study.json:/conditions/2/method: field 'method': no item has a "
      "'salency' explanation",
      NULL}},
    {"bad-class",
     3,
     {"items.csv:3: field 'label': unknown class 'neutral' (classes: 'pos', "
      "'neg')",
      "items.csv:4: field 'pert_model': unknown class 'Neg'",
      "more.jsonl:1: field 'prediction': unknown class 'positive'", NULL}},
    {"bad-design",
     10,
     {"pages/consent.md:2: not UTF-8 text",
      "study.json:/assignment/then: field 'then': no condition 'nobody'",
      "study.json:/blocks/1/same_items_as: field 'same_items_as': 'later' is "
      "not an earlier item block",
      "study.json:/blocks/2/pool: field 'pool': pool 'nowhere' has no items",
      "study.json:/blocks/3/n: field 'n': pool 'test' has 3 items; block "
      "'big' needs 10",
      "study.json:/blocks/4/exclude_items_of: field 'exclude_items_of': "
      "'ghost' is not an earlier item block",
      "study.json:/blocks/5/reservoir: field 'reservoir': 'ghost2' is not an "
      "earlier item block",
      "study.json:/blocks/6/kind: field 'kind': unknown block kind 'lecture'",
      "study.json:/quiz/questions/0/answer: field 'answer': 5 is out of range "
      "0..1",
      "error: study.json:/colour: field 'colour': unknown field (the fields "
      "here: simlab_study, id,",
      NULL}},
    {"bad-csv",
     8,
     {"b.csv:2: field 'perturbation': line 2 of the perturbation: unknown "
      "feature 'Colour'",
      "b.csv:5: field 'perturbation': line 1 of the perturbation: 'Age' is "
      "'52' in the input, not '37'",
      "b.csv:7: record has 4 fields, the header has 5",
      "b.csv:8: field 'context': line 1 of the cell is not 'Name = value'",
      "c.csv:3: field 'text': malformed CSV: a quoted field opens on this "
      "line and is not closed",
      "d.jsonl:2:43: invalid JSON",
      "d.jsonl:3: an item record must be a JSON object",
      "study.json:/items/0/columns/prediction: field 'prediction': column "
      "'model_out' is not in the header of a.csv",
      NULL}},
    {"bad-expl-kinds",
     16,
     {"items.jsonl:1: field 'explanations.m.tokens.0.1': must be a finite "
      "number",
      "items.jsonl:2: field 'explanations.m.pairs.0.b': token index out of "
      "range (2 tokens)",
      "items.jsonl:3: field 'explanations.m.pairs.0.a': empty range [0, 0]",
      "items.jsonl:4: field 'explanations.m.features.0.weight': must be a "
      "finite number",
      "items.jsonl:5: field 'explanations.m.rules.0.precision': 1.5 is "
      "outside [0, 1]",
      "items.jsonl:6: field 'explanations.m.rules.0.conditions': must not be "
      "empty",
      "items.jsonl:7: field 'explanations.m.steps': must not be empty",
      "items.jsonl:8: field 'explanations.m.text': must be a non-empty string",
      "items.jsonl:9: field 'explanations.m.parts.0.kind': composites may not "
      "be nested",
      "items.jsonl:10: field 'explanations.m.kind': unknown explanation kind "
      "'sparkles'",
      "items.jsonl:11: field 'explanations.m.rows': must not be empty",
      "items.jsonl:12: field 'explanations.m.file': 'nothing.npy': no such "
      "file",
      "items.jsonl:13: field 'explanations.m.target': unknown class 'maybe'",
      "expl.jsonl:2: field 'id': no item '99' in pool 'test'",
      "expl.jsonl:3: field 'id': item 'test:1' already has a 'src' "
      "explanation",
      "expl.csv:3: field 'text': empty explanation text",
      "warning: items.jsonl:14: field 'explanations.m.output': output 0.9 "
      "differs from intercept + sum = 0.6",
      NULL}},
};

static void bundle_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/bundles/%s", SIMLAB_TEST_DATA, name);
}

static int count_lines_with(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            n++;
        }
        p = e ? e + 1 : NULL;
    }
    return n;
}

static void test_text_reports(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const BadCase *c = &cases[i];
        char dir[1024];
        bundle_path(dir, sizeof dir, c->bundle);
        char *out = NULL;
        int rc = fs_check(dir, 0, &out);
        CHECK_INT(rc, 1);
        CHECK(out != NULL);
        if (!out) {
            continue;
        }
        for (size_t k = 0; c->expect[k]; k++) {
            if (!strstr(out, c->expect[k])) {
                h_fail++;
                fprintf(stderr, "%s: missing \"%s\" in:\n%s\n", c->bundle,
                        c->expect[k], out);
            } else {
                h_pass++;
            }
        }
        /* one error per problem: nothing beyond the expected ones */
        CHECK_INT(count_lines_with(out, "  error: "), c->n_errors);
        char last[64];
        snprintf(last, sizeof last, "invalid: %d error%s\n", c->n_errors,
                 c->n_errors == 1 ? "" : "s");
        size_t n = strlen(out), m = strlen(last);
        CHECK(n >= m && strcmp(out + n - m, last) == 0);
        free(out);
    }
}

static void test_json_reports(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const BadCase *c = &cases[i];
        char dir[1024];
        bundle_path(dir, sizeof dir, c->bundle);
        char *out = NULL;
        CHECK_INT(fs_check(dir, 1, &out), 1);
        json_error_t jerr;
        json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
        CHECK(o != NULL);
        if (!o) {
            fprintf(stderr, "%s: bad JSON report: %s\n", c->bundle,
                    out ? jerr.text : "(none)");
            free(out);
            continue;
        }
        CHECK(json_is_false(json_object_get(o, "valid")));
        json_t *errs = json_object_get(o, "errors");
        CHECK_INT(json_array_size(errs), c->n_errors);
        size_t k;
        json_t *e;
        json_array_foreach(errs, k, e)
        {
            CHECK(json_is_string(json_object_get(e, "file")));
            CHECK(json_is_integer(json_object_get(e, "line")));
            CHECK(json_is_string(json_object_get(e, "field")));
            CHECK(json_is_string(json_object_get(e, "message")));
            /* errors in study.json are located by a JSON pointer */
            const char *file = json_string_value(json_object_get(e, "file"));
            if (file && strcmp(file, "study.json") == 0 &&
                json_integer_value(json_object_get(e, "line")) == 0) {
                json_t *ptr = json_object_get(e, "pointer");
                CHECK(json_is_string(ptr) && json_string_value(ptr)[0] == '/');
            }
        }
        CHECK(json_is_array(json_object_get(o, "warnings")));
        CHECK(json_is_array(json_object_get(o, "blocks")));
        CHECK(json_is_array(json_object_get(o, "pools")));
        json_decref(o);
        free(out);
    }
}

static void test_not_a_bundle(void)
{
    char *out = NULL;
    CHECK_INT(fs_check("no-such-bundle-dir", 0, &out), 1);
    CHECK(out && strstr(out, "cannot open the study bundle"));
    CHECK(out && strstr(out, "invalid: 1 error"));
    free(out);
    char file[1024];
    snprintf(file, sizeof file, "%s/bundles/bad-ids/items.csv",
             SIMLAB_TEST_DATA);
    CHECK_INT(fs_check(file, 1, &out), 1);
    CHECK(out && strstr(out, "not a directory"));
    free(out);

    /* an empty folder: study.json is missing */
    char tmp[256];
    if (fs_temp_dir(tmp, sizeof tmp, "stimuli-empty")) {
        CHECK_INT(fs_check(tmp, 0, &out), 1);
        CHECK(out && strstr(out, "study.json: missing"));
        free(out);
        fs_remove_tree(tmp);
    }
    Study *st = (Study *)1;
    SimError err;
    CHECK_INT(study_load("no-such-bundle-dir", &st, NULL, &err), SIM_ERR_IO);
    CHECK(st == NULL);
}

/* Truncating or garbling the files of a valid bundle must give errors,
** never a crash (the sanitizer build checks memory too). */
static void test_truncations(void)
{
    char src[1024], tmp[256];
    bundle_path(src, sizeof src, "valid-all");
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-trunc")) {
        CHECK(!"mkdtemp");
        return;
    }
    char dir[512];
    snprintf(dir, sizeof dir, "%s/b", tmp);
    CHECK_INT(fs_copy_tree(src, dir), 0);
    const char *files[] = {"study.json",       "items.jsonl",
                           "tables/items.csv", "tables/text.csv",
                           "expl/test.jsonl",  "expl/notes.csv"};
    int all_ok = 1, loads = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        size_t len = 0;
        char *orig = fs_read(path, &len);
        CHECK(orig != NULL);
        if (!orig) {
            continue;
        }
        size_t step = len / 40 + 1;
        for (size_t cut = 0; cut < len; cut += step) {
            for (int garble = 0; garble < 2; garble++) {
                char *copy = malloc(len + 1);
                memcpy(copy, orig, len + 1);
                size_t n = cut;
                if (garble) {
                    /* flip a few bytes instead of truncating */
                    n = len;
                    copy[cut] = (char)(copy[cut] ^ 0x5a);
                    copy[(cut * 7) % len] = '"';
                }
                fs_write(path, copy, n);
                free(copy);
                StudyReport rep;
                study_report_init(&rep);
                Study *st = NULL;
                SimError err;
                int rc = study_load(dir, &st, &rep, &err);
                loads++;
                if (rc == SIM_OK) {
                    all_ok &= st != NULL && rep.n_errors == 0;
                } else {
                    all_ok &=
                        st == NULL && rep.n_errors > 0 && rc == SIM_ERR_INVALID;
                }
                study_free(st);
                study_report_free(&rep);
            }
        }
        fs_write(path, orig, len);
        free(orig);
    }
    CHECK(all_ok);
    CHECK(loads > 100);
    fs_remove_tree(tmp);
}

/* Writes a bundle of n files (names[i] holding texts[i]) into a scratch
** folder, runs check_bundle on it (text report into *out, malloc'd) and
** removes the folder. Returns the exit status, or -1. */
static int check_files(int n, const char *const *names,
                       const char *const *texts, char **out)
{
    char tmp[256];
    *out = NULL;
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-files")) {
        return -1;
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        char *path = fs_join(tmp, names[i]);
        ok &= path && fs_write(path, texts[i], strlen(texts[i])) == 0;
        free(path);
    }
    int rc = ok ? fs_check(tmp, 0, out) : -1;
    fs_remove_tree(tmp);
    return rc;
}

/* A line of blanks between CSV records is skipped without shifting the
** line of the next record, and a perturbation cell of blank lines is an
** empty perturbation, not a counterfactual without edits. */
static void test_blank_csv_text(void)
{
    static const char study[] =
        "{\"simlab_study\": 1, \"id\": \"blank\", \"title\": \"t\",\n"
        " \"classes\": [\"a\", \"b\"],\n"
        " \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
        " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}],\n"
        " \"items\": [{\"file\": \"a.csv\", \"pool\": \"test\",\n"
        "   \"modality\": \"tabular\", \"columns\": {\"id\": \"id\",\n"
        "   \"input\": \"x\", \"prediction\": \"m\", \"perturbation\": \"p\",\n"
        "   \"perturbation_prediction\": \"pm\"}}]}\n";
    static const char csv[] = "id,x,m,p,pm\n"
                              "1,X = 1,a,X : 1 --> 2,b\n"
                              " \t \n"
                              "2,X = 1,zz,,\n"
                              "3,X = 1,a,\" \",b\n"
                              "4,X = 1,a,\"\n\n\",b\n";
    const char *names[2] = {"study.json", "a.csv"};
    const char *texts[2] = {study, csv};
    char *out = NULL;
    CHECK_INT(check_files(2, names, texts, &out), 1);
    CHECK(out && strstr(out, "a.csv:4: field 'm': unknown class 'zz'"));
    /* the same problem in two rows is one error that counts the other */
    CHECK(out && strstr(out, "a.csv:5: field 'p': empty perturbation (no "
                             "edits) (and 1 more row: line 6)"));
    CHECK(out && count_lines_with(out, "  error: ") == 2);
    free(out);
}

/* A bank whose default pool is empty is one error at the bank (it used to
** crash the CSV loader, which named the pool column that was not there). */
static void test_empty_bank_pool(void)
{
    static const char study[] =
        "{\"simlab_study\": 1, \"id\": \"pool\", \"title\": \"t\",\n"
        " \"classes\": [\"a\", \"b\"],\n"
        " \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
        " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}],\n"
        " \"items\": [{\"file\": \"a.csv\", \"pool\": \"\", \"modality\": "
        "\"text\",\n"
        "   \"columns\": {\"id\": \"id\", \"input\": \"x\", \"prediction\": "
        "\"m\"}},\n"
        "  {\"file\": \"b.jsonl\", \"pool\": \"\"},\n"
        "  {\"file\": \"c.jsonl\", \"pool\": \"test\"}]}\n";
    static const char csv[] = "id,x,m\n1,hello,a\n";
    static const char jsonl[] =
        "{\"id\": 2, \"modality\": \"text\", \"input\": \"hi\", "
        "\"prediction\": \"b\"}\n";
    const char *names[4] = {"study.json", "a.csv", "b.jsonl", "c.jsonl"};
    const char *texts[4] = {study, csv, jsonl, jsonl};
    char *out = NULL;
    CHECK_INT(check_files(4, names, texts, &out), 1);
    CHECK(out && strstr(out, "study.json:/items/0/pool: field 'pool': must "
                             "not be empty (and 1 more place: "
                             "/items/1/pool)"));
    CHECK(out && count_lines_with(out, "  error: ") == 1);
    free(out);
}

int main(void)
{
    test_text_reports();
    test_json_reports();
    test_not_a_bundle();
    test_blank_csv_text();
    test_empty_bank_pool();
    test_truncations();
    return TEST_REPORT();
}
