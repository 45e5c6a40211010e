/*
** Item banks and explanation sources as Excel's "CSV" writes them outside
** Western Europe (windows-1256, windows-1251, gbk, shift_jis, big5, euc-kr)
** and as its "Unicode Text" (.txt, UTF-16 with tabs): every text read as
** written; an undeclared Arabic file gets its encoding, delimiter and column
** problems in one check; bytes that do not fit are located. Fixtures and
** expected texts: tests/data/encodings/make_encodings.py.
*/
#include "tests/test_stimuli_fs.h"

#include <jansson.h>

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/study.h"

static void data_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/encodings/%s", SIMLAB_TEST_DATA, name);
}

static int count_lines_with(const char *text, const char *prefix)
{
    int n = 0;
    size_t m = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, prefix, m) == 0) {
            n++;
        }
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    return n;
}

static int has(const char *out, const char *want)
{
    if (out && strstr(out, want)) {
        return 1;
    }
    fprintf(stderr, "expected\n  %s\nin\n%s\n", want, out ? out : "(null)");
    return 0;
}

static void test_code_pages(void)
{
    char dir[1024], path[1024];
    data_path(dir, sizeof dir, "bundle");
    data_path(path, sizeof path, "bundle-expected.json");
    json_t *want = json_load_file(path, 0, NULL);
    CHECK(want != NULL);
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    SimError err;
    CHECK_INT(study_load(dir, &st, &rep, &err), SIM_OK);
    CHECK_INT((int)rep.n_errors, 0);
    for (size_t i = 0; i < rep.n_errors; i++) {
        study_diag_print(stderr, "unexpected: ", &rep.errors[i]);
    }
    const char *key;
    json_t *text;
    int n = 0;
    json_object_foreach(json_object_get(want, "items"), key, text)
    {
        const Item *it = st ? study_find_item(st, key) : NULL;
        CHECK(it != NULL && it->input.text != NULL);
        if (it && it->input.text) {
            CHECK_STR(it->input.text, json_string_value(text));
        }
        n++;
    }
    CHECK_INT(n, 20);
    json_object_foreach(json_object_get(want, "explanations"), key, text)
    {
        const Item *it = st ? study_find_item(st, key) : NULL;
        const Explanation *e = it ? item_explanation(it, "notes") : NULL;
        CHECK(e && e->text && strcmp(e->text, json_string_value(text)) == 0);
    }
    /* the glyph scan reads each file as the loader did */
    int found = 0;
    for (size_t i = 0; st && i < st->n_text_files; i++) {
        const StudyTextFile *f = &st->text_files[i];
        if (strcmp(f->rel, "items-ja.csv") == 0) {
            found = f->csv && strcmp(f->encoding.name, "shift_jis") == 0;
        }
        if (strcmp(f->rel, "items.txt") == 0) {
            CHECK(f->csv && f->delim == '\t' &&
                  f->encoding.kind == SIM_ENC_UTF16);
        }
    }
    CHECK(found);
    study_free(st);
    study_report_free(&rep);
    json_decref(want);
}

/* Excel's Arabic "CSV" in an Arabic study, declared as neither: the
** encoding (named from the study's language), the delimiter and the
** column the mapping gets wrong, in one run and nothing more. */
static void test_one_run(void)
{
    char dir[1024];
    data_path(dir, sizeof dir, "excel-ar");
    char *out = NULL;
    CHECK_INT(fs_check(dir, 0, &out), 1);
    CHECK_INT(count_lines_with(out, "  error: "), 3);
    CHECK(has(out, "error: items.csv:1: invalid UTF-8 at byte 4 of the line "
                   "(byte 0xE4, byte 4 of the file): save the file as \"CSV "
                   "UTF-8\", or add \"encoding\": \"windows-1256\" to the item "
                   "bank /items/0 in study.json (Excel's \"CSV\" on Windows "
                   "in the study's language 'ar'"));
    CHECK(has(out, "error: items.csv:1: the header splits on ';', not on ','"));
    CHECK(has(out, "add \"delimiter\": \";\" to the item bank /items/0"));
    /* the header was read as windows-1256: its names are right */
    CHECK(has(out, "column '\xD8\xA7\xD9\x84\xD9\x86\xD8\xB5' is not in the "
                   "header of items.csv (its columns: 'id', "
                   "'\xD9\x86\xD8\xB5', 'label', 'pred')"));
    free(out);
    /* Excel's "Unicode Text" (.txt) without "encoding": one error; tabs are
    ** the default of a .txt file, and no "European Excel" */
    data_path(dir, sizeof dir, "unicode-text");
    CHECK_INT(fs_check(dir, 0, &out), 1);
    CHECK_INT(count_lines_with(out, "  error: "), 1);
    CHECK(has(out, "error: items.txt:1: the file is UTF-16 (it starts with a "
                   "UTF-16 byte order mark, as Excel's \"Unicode Text\" "
                   "does): add \"encoding\": \"utf-16\" to the item bank "
                   "/items/0 in study.json"));
    CHECK(out && !strstr(out, "European"));
    free(out);
}

/* Writes a one-bank bundle whose items.csv holds the bytes of the fixture
** file, declared in encoding (NULL: none); returns check's report. */
static char *check_file(const char *file, const char *encoding, int *rc)
{
    char dir[64], src[1024], json[1024], decl[64] = "";
    *rc = -1;
    if (!fs_temp_dir(dir, sizeof dir, "encodings")) {
        return NULL;
    }
    if (encoding && strcmp(encoding, "utf-8") != 0) {
        snprintf(decl, sizeof decl, "\"encoding\": \"%s\",", encoding);
    }
    snprintf(json, sizeof json,
             "{\"simlab_study\": 1, \"id\": \"e\", \"title\": \"e\",\n"
             " \"classes\": [{\"id\": \"pos\"}, {\"id\": \"neg\"}],\n"
             " \"conditions\": [{\"id\": \"b\", \"method\": null}],\n"
             " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"t\"}],\n"
             " \"items\": [{\"file\": \"items.csv\", \"pool\": \"t\", "
             "\"modality\": \"text\", %s\n"
             "   \"columns\": {\"id\": \"id\", \"input\": \"text\", "
             "\"prediction\": \"pred\"}}]}\n",
             decl);
    data_path(src, sizeof src, file);
    char *sj = fs_join(dir, "study.json");
    char *ic = fs_join(dir, "items.csv");
    char *out = NULL;
    if (sj && ic && fs_write(sj, json, strlen(json)) == 0 &&
        fs_copy_file(src, ic) == 0) {
        *rc = fs_check(dir, 0, &out);
    }
    free(sj);
    free(ic);
    fs_remove_tree(dir);
    return out;
}

/* Bytes that do not fit: one error at the line, with the bytes and where
** they are in the file and in the line (computed by the script). */
static void test_located(void)
{
    char path[1024];
    data_path(path, sizeof path, "expected.json");
    json_t *want = json_load_file(path, 0, NULL);
    CHECK(want != NULL);
    size_t i;
    json_t *b;
    int n = 0;
    json_array_foreach(json_object_get(want, "bank_bad"), i, b)
    {
        int rc;
        const char *enc = json_string_value(json_object_get(b, "encoding"));
        char *out =
            check_file(json_string_value(json_object_get(b, "file")), enc, &rc);
        CHECK_INT(rc, 1);
        CHECK_INT(count_lines_with(out, "  error: "), 1);
        CHECK(has(out, json_string_value(json_object_get(b, "message"))));
        free(out);
        n++;
    }
    CHECK_INT(n, 2);
    json_decref(want);
}

int main(void)
{
    test_code_pages();
    test_one_run();
    test_located();
    return TEST_REPORT();
}
