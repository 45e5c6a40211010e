/*
** CSV dialects of item banks and explanation sources: ';' and tab
** delimiters, Windows-1252, Latin-1 and UTF-16 (with a byte order mark)
** read as UTF-8; an undeclared ';' header or non-UTF-8 file is exactly one
** error naming the option to add; a CR alone ends a line; a missing column
** lists the header.
** Fixtures: tests/data/bundles/make_csv_dialects.py.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/study.h"

static void bundle_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/bundles/%s", SIMLAB_TEST_DATA, name);
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

static const char *input_of(const Study *st, const char *key)
{
    const Item *it = study_find_item(st, key);
    return it && it->input.text ? it->input.text : "";
}

static void test_declared_dialects(void)
{
    char dir[1024];
    bundle_path(dir, sizeof dir, "valid-csv-dialects");
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    SimError err;
    int rc = study_load(dir, &st, &rep, &err);
    CHECK_INT(rc, SIM_OK);
    CHECK_INT((int)rep.n_errors, 0);
    for (size_t i = 0; i < rep.n_errors; i++) {
        study_diag_print(stderr, "unexpected: ", &rep.errors[i]);
    }
    if (st) {
        CHECK_INT((int)st->n_items, 12);
        /* ';' with UTF-8; a quoted cell keeps its ';' */
        CHECK_STR(input_of(st, "semi:s1"),
                  "ein M\xC3\xBCller a\xC3\x9F K\xC3\xA4se f\xC3\xBCr 5 "
                  "\xE2\x82\xAC");
        CHECK_STR(input_of(st, "semi:s2"),
                  "\xE2\x80\x9E"
                  "schlecht\xE2\x80\x9C \xE2\x80\x93 sagte sie; nie wieder");
        /* Windows-1252 (0x80 euro, 0x84/0x93 quotes, 0x96 dash), CRLF */
        CHECK_STR(input_of(st, "w1252:s1"), input_of(st, "semi:s1"));
        CHECK_STR(input_of(st, "w1252:s2"), input_of(st, "semi:s2"));
        CHECK_STR(input_of(st, "w1252:s3"), "tr\xC3\xA8s bien, merci");
        /* Latin-1 with ',' */
        CHECK_STR(input_of(st, "latin1:s1"),
                  "caf\xC3\xA9 cr\xC3\xA8me \xC3\xA0 c\xC3\xB4t\xC3\xA9");
        /* UTF-16LE with a byte order mark, tab, CRLF; a surrogate pair */
        CHECK_STR(input_of(st, "utf16:s3"),
                  "tr\xC3\xA8s bien, merci \xE6\x97\xA5\xE6\x9C\xAC "
                  "\xF0\x9F\x98\x80");
        const Item *it = study_find_item(st, "utf16:s2");
        CHECK(it && it->label == 1 && it->prediction == 1);
        /* the Windows-1252 ';' explanation source */
        const Item *w = study_find_item(st, "w1252:s1");
        const Explanation *e = w ? item_explanation(w, "notes") : NULL;
        CHECK(e && e->text &&
              strcmp(e->text, "Gr\xC3\xB6\xC3\x9F"
                              "e: +0,6 \xE2\x82\xAC") == 0);
    }
    study_free(st);
    study_report_free(&rep);
}

/* An undeclared dialect: exactly one error, at the file, naming the fix. */
static void test_one_error(const char *bundle, const char *expect)
{
    char dir[1024];
    bundle_path(dir, sizeof dir, bundle);
    char *out = NULL;
    CHECK_INT(fs_check(dir, 0, &out), 1);
    CHECK(out != NULL);
    if (out) {
        CHECK_INT(count_lines_with(out, "  error: "), 1);
        if (!strstr(out, expect)) {
            fprintf(stderr, "%s: expected\n  %s\nin\n%s\n", bundle, expect,
                    out);
        }
        CHECK(strstr(out, expect) != NULL);
    }
    free(out);
}

static void test_undeclared(void)
{
    test_one_error("bad-csv-semicolon",
                   "error: items.csv:1: the header splits on ';', not on ',' "
                   "(Excel's \"CSV\" separates cells with the system's list "
                   "separator, ';' in much of Europe): add \"delimiter\": "
                   "\";\" to the item bank /items/0 in study.json");
    test_one_error("bad-csv-1252",
                   "error: items.csv:2: invalid UTF-8 at byte 9 of the line "
                   "(byte 0xFC, byte 28 of the file): save the file as \"CSV "
                   "UTF-8\", or add its \"encoding\" to the item bank /items/0 "
                   "in study.json");
    test_one_error("bad-csv-column",
                   "error: study.json:/items/0/columns/prediction: field "
                   "'prediction': column 'model' is not in the header of "
                   "items.csv (its columns: 'id', 'text', 'label', 'pred')");
}

/* Writes a one-bank bundle whose bank has the extra members bank_extra and
** whose items.csv holds csv (n bytes); returns check's text report. */
static char *check_bank(const char *bank_extra, const char *csv, size_t n,
                        int *rc)
{
    char dir[64];
    *rc = -1;
    if (!fs_temp_dir(dir, sizeof dir, "dialect")) {
        return NULL;
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"simlab_study\": 1, \"id\": \"d\", \"title\": \"d\",\n"
             " \"classes\": [{\"id\": \"pos\"}, {\"id\": \"neg\"}],\n"
             " \"conditions\": [{\"id\": \"b\", \"method\": null}],\n"
             " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"t\"}],\n"
             " \"items\": [{\"file\": \"items.csv\", \"pool\": \"t\", "
             "\"modality\": \"text\", %s\n"
             "   \"columns\": {\"id\": \"id\", \"input\": \"text\", "
             "\"prediction\": \"pred\"}}]}\n",
             bank_extra);
    char *sj = fs_join(dir, "study.json");
    char *ic = fs_join(dir, "items.csv");
    char *out = NULL;
    if (sj && ic && fs_write(sj, json, strlen(json)) == 0 &&
        fs_write(ic, csv, n) == 0) {
        *rc = fs_check(dir, 0, &out);
    }
    free(sj);
    free(ic);
    fs_remove_tree(dir);
    return out;
}

static void expect_error(const char *bank_extra, const char *csv, size_t n,
                         const char *expect)
{
    int rc;
    char *out = check_bank(bank_extra, csv, n, &rc);
    CHECK_INT(rc, 1);
    CHECK(out && count_lines_with(out, "  error: ") == 1);
    CHECK(out && strstr(out, expect));
    if (out &&
        (!strstr(out, expect) || count_lines_with(out, "  error: ") != 1)) {
        fprintf(stderr, "expected\n  %s\nin\n%s\n", expect, out);
    }
    free(out);
}

static void test_dialect_errors(void)
{
    static const char tab_csv[] = "id\ttext\tpred\n1\ta b\tpos\n";
    static const char semi_csv[] = "id;text;pred\n1;a b;pos\n";
    static const char comma_csv[] = "id,text,pred\n1,a b,pos\n";
    /* undeclared tab */
    expect_error("", tab_csv, sizeof tab_csv - 1,
                 "items.csv:1: the header splits on tab, not on ','");
    expect_error("", tab_csv, sizeof tab_csv - 1, "add \"delimiter\": \"\\t\"");
    /* declared but wrong */
    expect_error("\"delimiter\": \";\",", comma_csv, sizeof comma_csv - 1,
                 "items.csv:1: the header does not split on the declared "
                 "delimiter ';' but on ',': set \"delimiter\": \",\"");
    /* bad option values */
    expect_error("\"delimiter\": \"|\",", semi_csv, sizeof semi_csv - 1,
                 "study.json:/items/0/delimiter: field 'delimiter': '|' is "
                 "not a delimiter");
    expect_error("\"encoding\": \"ebcdic\",", comma_csv, sizeof comma_csv - 1,
                 "study.json:/items/0/encoding: field 'encoding': 'ebcdic' is "
                 "not a supported encoding");
    /* UTF-16 undeclared (byte order mark), declared without one */
    static const char u16[] = "\xFF\xFEi\0d\0,\0t\0e\0x\0t\0,\0p\0r\0e\0d\0"
                              "\n\0"
                              "1\0,\0a\0,\0p\0o\0s\0\n\0";
    expect_error("", u16, sizeof u16 - 1,
                 "items.csv:1: the file is UTF-16 (it starts with a UTF-16 "
                 "byte order mark): add \"encoding\": \"utf-16\"");
    expect_error("\"encoding\": \"utf-16\",", comma_csv, sizeof comma_csv - 1,
                 "\"encoding\": \"utf-16\" needs a byte order mark");
    /* UTF-16 cut short, and with a lone surrogate (U+D800) on line 2 */
    static const char u16_odd[] = "\xFF\xFEi\0d\0,\0t\0e\0x\0t\0,\0p\0r\0e\0d\0"
                                  "\n\0"
                                  "1\0,\0a\0,\0p\0o\0s\0\n\0x";
    expect_error("\"encoding\": \"utf-16\",", u16_odd, sizeof u16_odd - 1,
                 "items.csv:3: UTF-16 file with an odd number of bytes (cut "
                 "short?)");
    static const char u16_lone[] =
        "\xFF\xFEi\0d\0,\0t\0e\0x\0t\0,\0p\0r\0e\0d\0"
        "\n\0"
        "1\0,\0\0\xD8,\0p\0o\0s\0\n\0";
    expect_error("\"encoding\": \"utf-16\",", u16_lone, sizeof u16_lone - 1,
                 "items.csv:2: invalid UTF-16: an unpaired surrogate at byte "
                 "33 of the file: check the \"encoding\" of the item bank "
                 "/items/0 in study.json, or save the file as \"CSV "
                 "UTF-8\"");
    /* a byte Windows-1252 leaves undefined */
    static const char undef[] = "id,text,pred\n1,a\x81 b,pos\n";
    expect_error("\"encoding\": \"windows-1252\",", undef, sizeof undef - 1,
                 "items.csv:2: byte 0x81 (byte 17 of the file, byte 4 of the "
                 "line) is not windows-1252 text: check the \"encoding\"");
    /* a CR alone ends a line (Excel for Mac's "CSV (Macintosh)") */
    static const char mac[] = "id,text,pred\r1,a,pos\r2,b,nope\r";
    expect_error("", mac, sizeof mac - 1,
                 "items.csv:3: field 'pred': unknown class 'nope'");
    /* declared UTF-16 big-endian reads */
    static const char be[] = "\xFE\xFF\0i\0d\0,\0t\0e\0x\0t\0,\0p\0r\0e\0d"
                             "\0\n"
                             "\0001\0,\0\xE9\0,\0p\0o\0s\0\n";
    int rc;
    char *out = check_bank("\"encoding\": \"UTF-16\",", be, sizeof be - 1, &rc);
    CHECK_INT(rc, 0);
    free(out);
}

int main(void)
{
    test_declared_dialects();
    test_undeclared();
    test_dialect_errors();
    return TEST_REPORT();
}
