/*
** common/sim_decode.h and common/sim_csv.h: encoding names and their
** aliases, the code page of a language, decoding in pieces of any size
** (characters cut by a piece's end), UTF-8 checked in place, U+FFFD
** replacement, byte order marks; CSV records, quotes, line ends (LF, CRLF,
** CR), located syntax problems, bad bytes located by line, and a UTF-8 file
** larger than the reader's 1 MiB chunks with characters and a bad byte
** across a chunk's end.
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "common/sim_alloc.h"
#include "common/sim_csv.h"
#include "common/sim_decode.h"

static int named(const char *name, const char *want)
{
    SimEncoding e;
    if (sim_encoding_find(name, &e) != 0) {
        fprintf(stderr, "'%s' not found\n", name);
        return 0;
    }
    if (strcmp(e.name, want) != 0) {
        fprintf(stderr, "'%s' is '%s', want '%s'\n", name, e.name, want);
        return 0;
    }
    return 1;
}

static void test_names(void)
{
    CHECK(named("utf-8", "utf-8") && named("UTF8", "utf-8"));
    CHECK(named("windows-1256", "windows-1256") &&
          named("CP1256", "windows-1256"));
    CHECK(named("Windows-1251", "windows-1251") &&
          named("win1250", "windows-1250"));
    CHECK(named("windows1252", "windows-1252"));
    CHECK(named("shift_jis", "shift_jis") && named("SJIS", "shift_jis") &&
          named("cp932", "shift_jis") && named("Shift-JIS", "shift_jis"));
    CHECK(named("gbk", "gbk") && named("GB2312", "gbk") &&
          named("cp936", "gbk"));
    CHECK(named("gb18030", "gb18030") && named("big5", "big5") &&
          named("cp950", "big5"));
    CHECK(named("euc-kr", "euc-kr") && named("EUC_KR", "euc-kr") &&
          named("cp949", "euc-kr"));
    CHECK(named("latin-1", "latin-1") && named("ISO-8859-1", "latin-1"));
    CHECK(named("iso-8859-7", "iso-8859-7") && named("KOI8-R", "koi8-r"));
    CHECK(named("utf-16le", "utf-16le") && named("UTF-16", "utf-16"));
    SimEncoding e;
    CHECK(sim_encoding_find("utf-16", &e) == 0 && e.kind == SIM_ENC_UTF16);
    CHECK(sim_encoding_find("cp1256", &e) == 0 && e.kind == SIM_ENC_ICONV &&
          e.ascii && e.single_byte);
    CHECK(sim_encoding_find("gbk", &e) == 0 && e.ascii && !e.single_byte);
    CHECK(sim_encoding_find("utf-16le", &e) == 0 && !e.ascii);
    CHECK(sim_encoding_find("ebcdic", &e) != 0);
    CHECK(sim_encoding_find("utf-8//TRANSLIT", &e) != 0);
    CHECK(sim_encoding_find("", &e) != 0);
    CHECK_STR(sim_encoding_of_language("ar"), "windows-1256");
    CHECK_STR(sim_encoding_of_language("ar-EG"), "windows-1256");
    CHECK_STR(sim_encoding_of_language("ja"), "shift_jis");
    CHECK_STR(sim_encoding_of_language("zh"), "gbk");
    CHECK_STR(sim_encoding_of_language("zh-Hans-CN"), "gbk");
    CHECK_STR(sim_encoding_of_language("zh-Hant"), "big5");
    CHECK_STR(sim_encoding_of_language("zh-TW"), "big5");
    CHECK_STR(sim_encoding_of_language("ru"), "windows-1251");
    CHECK_STR(sim_encoding_of_language("sr-Latn"), "windows-1250");
    CHECK_STR(sim_encoding_of_language("ko"), "euc-kr");
    CHECK_STR(sim_encoding_of_language("de-AT"), "windows-1252");
    CHECK(sim_encoding_of_language("x-klingon") == NULL);
    CHECK(sim_encoding_of_language(NULL) == NULL);
}

/* Decodes data in pieces of k bytes (the rest of a cut character starts
** the next piece); returns the UTF-8 (malloc'd) or NULL on a problem. */
static char *in_pieces(const char *enc_name, const char *data, size_t n,
                       size_t k)
{
    SimEncoding e;
    SimDecoder *d;
    if (sim_encoding_find(enc_name, &e) != 0 || sim_decoder_new(&d, &e, 0)) {
        return NULL;
    }
    char *out = malloc(sim_decoder_room(n) + 1), held[64];
    size_t len = 0, n_held = 0, i = 0;
    int bad = 0;
    while (!bad && (i < n || n_held > 0)) {
        size_t take = n - i < k ? n - i : k;
        memcpy(held + n_held, data + i, take);
        n_held += take;
        i += take;
        size_t used, made;
        SimDecodeProblem p;
        bad = sim_decoder_run(d, held, n_held, i == n, out + len,
                              sim_decoder_room(n) - len, &used, &made, &p);
        len += made;
        memmove(held, held + used, n_held - used);
        n_held -= used;
        if (i == n && used == 0 && n_held > 0) {
            bad = 1;
        }
    }
    sim_decoder_free(d);
    out[len] = '\0';
    if (bad) {
        free(out);
        return NULL;
    }
    return out;
}

static void test_pieces(void)
{
    /* "ソ表①ｶ" in cp932: 0x83 0x5C, 0x95 0x5C, 0x87 0x40, 0xB6 */
    static const char sjis[] = "a\x83\x5C\x95\x5C\x87\x40\xB6z\r\n";
    static const char want[] = "a\xE3\x82\xBD\xE8\xA1\xA8\xE2\x91\xA0"
                               "\xEF\xBD\xB6z\r\n";
    for (size_t k = 1; k <= 8; k++) {
        char *got = in_pieces("shift_jis", sjis, sizeof sjis - 1, k);
        CHECK(got && strcmp(got, want) == 0);
        free(got);
    }
    /* UTF-16LE with its mark and a surrogate pair, in pieces of 1..5 */
    static const char u16[] = "\xFF\xFE"
                              "a\0\x3D\xD8\x00\xDE\n\0";
    for (size_t k = 1; k <= 5; k++) {
        char *got = in_pieces("utf-16", u16, sizeof u16 - 1, k);
        CHECK(got && strcmp(got, "a\xF0\x9F\x98\x80\n") == 0);
        free(got);
    }
    /* UTF-8 with its mark, cut anywhere */
    static const char u8[] = "\xEF\xBB\xBF"
                             "caf\xC3\xA9 \xE2\x82\xAC";
    for (size_t k = 1; k <= 4; k++) {
        char *got = in_pieces("utf-8", u8, sizeof u8 - 1, k);
        CHECK(got && strcmp(got, "caf\xC3\xA9 \xE2\x82\xAC") == 0);
        free(got);
    }
}

static void test_problems(void)
{
    SimEncoding e;
    SimDecodeProblem p;
    char *out = NULL, msg[300];
    size_t n = 0;
    /* a bad byte on line 3: offsets of the file and of the line */
    sim_encoding_find("windows-1252", &e);
    const char *t = "ab\r\ncd\rx\x81y";
    CHECK_INT(sim_decode_buffer(&e, t, strlen(t), 0, &out, &n, &p), 1);
    CHECK_INT(p.at, 8);
    CHECK_INT(p.line_start, 7);
    CHECK_INT(sim_text_line_at(out, n), 3);
    sim_decode_describe(&p, msg, sizeof msg);
    CHECK_STR(msg, "byte 0x81 (byte 9 of the file, byte 2 of the line) is not "
                   "windows-1252 text");
    sim_free(out);
    /* with replace: all of it, U+FFFD in its place, the problem kept */
    CHECK_INT(sim_decode_buffer(&e, t, strlen(t), 1, &out, &n, &p), 1);
    CHECK_STR(out, "ab\r\ncd\rx\xEF\xBF\xBDy");
    CHECK_INT(p.at, 8);
    sim_free(out);
    /* a file saved as UTF-8 after all: read as UTF-8 */
    CHECK_INT(sim_decode_buffer(&e, "\xEF\xBB\xBF\xC3\xA9", 5, 0, &out, &n, &p),
              0);
    CHECK_STR(out, "\xC3\xA9");
    sim_free(out);
    /* a UTF-16 file read as Windows-1252 */
    CHECK_INT(sim_decode_buffer(&e, "\xFF\xFEx\0", 4, 0, &out, &n, &p), 1);
    CHECK_INT(p.kind, SIM_DECODE_UTF16_BOM);
    sim_free(out);
    /* utf-16 without its mark; utf-16le with the other order's */
    sim_encoding_find("utf-16", &e);
    CHECK_INT(sim_decode_buffer(&e, "x\0", 2, 0, &out, &n, &p), 1);
    CHECK_INT(p.kind, SIM_DECODE_NO_BOM);
    sim_free(out);
    sim_encoding_find("utf-16le", &e);
    CHECK_INT(sim_decode_buffer(&e, "\xFE\xFF\0x", 4, 0, &out, &n, &p), 1);
    CHECK_INT(p.kind, SIM_DECODE_WRONG_BOM);
    sim_free(out);
    CHECK_INT(sim_decode_buffer(&e, "\xFF\xFEx\0", 4, 0, &out, &n, &p), 0);
    CHECK_STR(out, "x");
    sim_free(out);
    /* invalid UTF-8: overlong, a surrogate, cut at the end */
    sim_encoding_utf8(&e);
    static const char *const bad[] = {"ok\xC0\xAF", "ok\xED\xA0\x80",
                                      "ok\xE2\x82"};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(
            sim_decode_buffer(&e, bad[i], strlen(bad[i]), 0, &out, &n, &p), 1);
        CHECK_INT(p.at, 2);
        sim_free(out);
    }
    sim_decode_describe(&p, msg, sizeof msg);
    CHECK_STR(msg, "invalid UTF-8 at byte 3 of the line (byte 0xE2, byte 3 of "
                   "the file)");
}

/* Reads text (n bytes) with delim in encoding enc (NULL: UTF-8): records
** as "a|b|c@LINE;" into out; returns sim_csv_next's last result. */
static int records(const char *text, size_t n, char delim, const char *enc,
                   char *out, size_t cap, SimCsvReader **keep)
{
    SimEncoding e;
    SimCsvOptions o = {delim, NULL, NULL, NULL};
    if (enc && sim_encoding_find(enc, &e) == 0) {
        o.encoding = &e;
    }
    SimCsvReader *r;
    SimError err;
    out[0] = '\0';
    if (sim_csv_open_text(&r, text, n, "t.csv", &o, &err) != SIM_OK) {
        return -1;
    }
    int got;
    size_t k = 0;
    SimCsvRecord rec;
    while ((got = sim_csv_next(r, &rec, &err)) == 1) {
        for (int i = 0; i < rec.n && k < cap; i++) {
            k += (size_t)snprintf(out + k, cap - k, "%s%.*s", i ? "|" : "",
                                  (int)rec.fields[i].n, rec.fields[i].p);
        }
        if (k < cap) {
            k += (size_t)snprintf(out + k, cap - k, "@%ld;", rec.line);
        }
    }
    if (keep) {
        *keep = r;
    } else {
        sim_csv_close(r);
    }
    return got;
}

static void test_records(void)
{
    char out[512];
    const char *t = "\xEF\xBB\xBF"
                    "a, b ,\"c,\"\"d\"\"\"\r\n\r\n"
                    "\"x\ny\",2,3\r"
                    "4;5,,\n";
    CHECK_INT(records(t, strlen(t), ',', NULL, out, sizeof out, NULL), 0);
    CHECK_STR(out, "a|b|c,\"d\"@1;x\ny|2|3@3;4;5||@5;");
    /* tabs delimit: kept as fields, spaces still dropped */
    t = "a\t b\t\n";
    CHECK_INT(records(t, strlen(t), '\t', NULL, out, sizeof out, NULL), 0);
    CHECK_STR(out, "a|b|@1;");
    /* in an encoding: shift_jis with trail bytes 0x5C, quoted */
    t = "\"\x83\x5C\",\x95\x5C\n";
    CHECK_INT(records(t, strlen(t), ',', "shift_jis", out, sizeof out, NULL),
              0);
    CHECK_STR(out, "\xE3\x82\xBD|\xE8\xA1\xA8@1;");
    /* syntax problems, located */
    static const struct {
        const char *text;
        SimCsvProblemKind kind;
        long line;
        int field;
    } bad[] = {
        {"a,b\nc,d\"e\n", SIM_CSV_BARE_QUOTE, 2, 1},
        {"a,b\n\"c\"x,d\n", SIM_CSV_AFTER_QUOTE, 2, 0},
        {"a,b\nc,\"d\n\ne\n", SIM_CSV_QUOTE_OPEN, 2, 1},
        {"a,b\nc,\"d\n\0e\"\n", SIM_CSV_NUL, 3, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        SimCsvReader *r;
        size_t n = i == 3 ? 13 : strlen(bad[i].text);
        CHECK_INT(records(bad[i].text, n, ',', NULL, out, sizeof out, &r),
                  SIM_ERR_PARSE);
        const SimCsvProblem *p = sim_csv_problem(r);
        CHECK(p && p->kind == bad[i].kind && p->line == bad[i].line &&
              p->field == bad[i].field);
        if (p && p->kind == SIM_CSV_NUL) {
            CHECK_INT(p->at, 2);
        }
        sim_csv_close(r);
    }
    /* bad bytes: the records before them, then the line they are on */
    SimCsvReader *r;
    t = "a,b\r\n\"x\r\ny\",\xE9t\xE9\r\n";
    CHECK_INT(records(t, strlen(t), ',', NULL, out, sizeof out, &r),
              SIM_ERR_PARSE);
    CHECK_STR(out, "a|b@1;");
    const SimCsvProblem *p = sim_csv_problem(r);
    CHECK(p && p->kind == SIM_CSV_DECODE && p->line == 3 &&
          p->decode.at == 12 && p->decode.line_start == 9);
    sim_csv_close(r);
    CHECK(sim_csv_other_delimiter("a;b;\"c,d\"", 9, ',') == ';');
    CHECK(sim_csv_other_delimiter("a,b;c", 5, '\t') == 0);
    CHECK(sim_csv_other_delimiter("a,b", 3, ',') == 0);
    CHECK(sim_csv_other_delimiter("ab", 2, ',') == 0);
    CHECK(sim_csv_other_delimiter("a\tb\n;", 5, ',') == '\t');
}

/* A UTF-8 file over two 1 MiB chunks: a character across the chunk's end
** is read whole, and a bad byte after it is located by line and byte. */
static void test_file_chunks(void)
{
    const char *path = "common_csv_chunks.csv";
    FILE *f = fopen(path, "wb");
    fputs("name,texts\n", f); /* 11 bytes: the chunk ends inside an e-acute */
    size_t at = 11;
    long lines = 1;
    while (at < (1u << 20) + 5000) {
        const char *row = "\xC3\xA9t\xC3\xA9,\xE2\x82\xAC\xE2\x82\xAC\xF0\x9F"
                          "\x98\x80 fine\n";
        fputs(row, f);
        at += strlen(row);
        lines++;
    }
    fputs("bad,x\xFF\n", f);
    fclose(f);
    f = fopen(path, "rb");
    SimCsvReader *r;
    SimError err;
    SimCsvOptions o = {',', NULL, NULL, NULL};
    CHECK_INT(sim_csv_open_file(&r, f, path, &o, &err), SIM_OK);
    int got, n_rec = 0, ok = 1;
    SimCsvRecord rec;
    while ((got = sim_csv_next(r, &rec, &err)) == 1) {
        const SimCsvField *fl = rec.fields;
        if (n_rec > 0 && (rec.n != 2 || fl[1].n != 15 ||
                          memcmp(fl[0].p, "\xC3\xA9t\xC3\xA9", 5) != 0)) {
            ok = 0;
        }
        n_rec++;
    }
    CHECK(ok);
    CHECK_INT(got, SIM_ERR_PARSE);
    CHECK_INT(n_rec, lines);
    const SimCsvProblem *p = sim_csv_problem(r);
    CHECK(p && p->kind == SIM_CSV_DECODE && p->line == lines + 1 &&
          p->decode.at == (long long)at + 5 &&
          p->decode.line_start == (long long)at);
    CHECK(strstr(err.msg, "invalid UTF-8 at byte 6 of the line (byte 0xFF") !=
          NULL);
    sim_csv_close(r);
    fclose(f);
    remove(path);
}

int main(void)
{
    test_names();
    test_pieces();
    test_problems();
    test_records();
    test_file_chunks();
    return TEST_REPORT();
}
