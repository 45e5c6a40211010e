/*
** Font coverage of participant-facing text: `simlab check` warns, located
** at file and line with the field, once per character per line (per
** column in item banks), reading each file as study loading read it,
** about characters no font of the fontconfig chain can draw; CJK and emoji
** do not warn when the Noto fonts are installed.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/glyphs.h"

#include <jansson.h>
#include <sys/stat.h>

/* U+10FFFD (private use, plane 16) is in no font; U+E000 may be (some math
** fonts put glyphs there), so its warning must follow the chain. */
#define NOFONT   "\xF4\x8F\xBF\xBD"
#define PUA_E000 "\xEE\x80\x80"
#define CJK      "\xE4\xBD\xA0\xE5\xA5\xBD" /* U+4F60 U+597D */
#define EMOJI    "\xF0\x9F\x98\x80"         /* U+1F600 */

static int count_warnings(json_t *root, const char *file, int line,
                          const char *field, const char *needle)
{
    int n = 0;
    json_t *w = json_object_get(root, "warnings");
    size_t i;
    json_t *d;
    json_array_foreach(w, i, d)
    {
        const char *f = json_string_value(json_object_get(d, "file"));
        const char *fl = json_string_value(json_object_get(d, "field"));
        const char *m = json_string_value(json_object_get(d, "message"));
        int ln = (int)json_integer_value(json_object_get(d, "line"));
        if (f && m && strcmp(f, file) == 0 && strstr(m, needle) &&
            (line < 0 || ln == line) &&
            (!field || (fl && !strcmp(fl, field)))) {
            n++;
        }
    }
    return n;
}

static void test_chain(GlyphChain *c)
{
    CHECK(glyph_chain_has(c, 'A'));
    CHECK(glyph_chain_has(c, 0x00E4)); /* a-umlaut, DejaVu has it */
    CHECK(glyph_chain_has(c, '\t'));   /* draws nothing */
    CHECK(glyph_chain_has(c, 0xFE0F)); /* variation selector */
    CHECK(!glyph_chain_has(c, 0x10FFFD));
    char path[1024];
    int index = -1;
    CHECK(glyph_chain_font_for(c, 'A', path, sizeof path, &index));
    CHECK(strstr(path, "DejaVuSans") != NULL);
    CHECK(index >= 0);
    CHECK(!glyph_chain_font_for(c, 0x10FFFD, path, sizeof path, &index));
    /* Bold text borrows a fallback's bold face when its family has one
    ** (Noto Sans CJK, Noto Sans Arabic); colour emoji have none. */
    char bold[1024];
    int bi = -1;
    if (glyph_chain_font_for(c, 0x4F60, path, sizeof path, &index) &&
        strstr(path, "NotoSansCJK")) {
        CHECK(glyph_chain_bold_of(c, path, index, bold, sizeof bold, &bi));
        CHECK(strstr(bold, "Bold") != NULL);
        CHECK(strcmp(bold, path) != 0);
    }
    if (glyph_chain_font_for(c, 0x1F600, path, sizeof path, &index) &&
        strstr(path, "Emoji")) {
        CHECK(!glyph_chain_bold_of(c, path, index, bold, sizeof bold, &bi));
    }
    CHECK(!glyph_chain_bold_of(c, "/no/such/font.ttf", 0, bold, sizeof bold,
                               &bi));
}

static void test_bundle(GlyphChain *c)
{
    char tmp[64], dir[128];
    if (!fs_temp_dir(tmp, sizeof tmp, "glyphs")) {
        CHECK(0);
        return;
    }
    snprintf(dir, sizeof dir, "%s/b", tmp);
    char src[512];
    snprintf(src, sizeof src, "%s/bundles/valid-lang", SIMLAB_TEST_DATA);
    CHECK_INT(fs_copy_tree(src, dir), 0);

    /* Two rows with the no-font character (one warning), CJK and emoji. */
    char *items = fs_join(dir, "items.csv");
    size_t len = 0;
    char *csv = fs_read(items, &len);
    CHECK(csv != NULL);
    const char *extra =
        "x1,\"" NOFONT " " CJK " " EMOJI " " PUA_E000 "\",pos,pos\n"
        "x2,again " NOFONT NOFONT " " PUA_E000 ",neg,neg\n";
    size_t n = len + strlen(extra);
    char *all = malloc(n + 1);
    memcpy(all, csv, len);
    memcpy(all + len, extra, strlen(extra) + 1);
    CHECK_INT(fs_write(items, all, n), 0);
    int csv_line = 1;
    for (size_t i = 0; i < len; i++) {
        csv_line += csv[i] == '\n';
    }
    free(all);
    free(csv);
    free(items);

    /* A class label in study.json. */
    char *sj = fs_join(dir, "study.json");
    char *json = fs_read(sj, &len);
    CHECK(json != NULL);
    char *at = json ? strstr(json, "\"Negative\"") : NULL;
    CHECK(at != NULL);
    if (!at) {
        free(json);
        free(sj);
        fs_remove_tree(tmp);
        return;
    }
    int label_line = 1;
    for (char *p = json; p && p < at; p++) {
        label_line += *p == '\n';
    }
    size_t head = (size_t)(at - json);
    const char *label = "\"Neg " NOFONT "\"";
    const char *tail = at + strlen("\"Negative\"");
    n = head + strlen(label) + strlen(tail);
    all = malloc(n + 1);
    memcpy(all, json, head);
    memcpy(all + head, label, strlen(label));
    memcpy(all + head + strlen(label), tail, strlen(tail) + 1);
    CHECK_INT(fs_write(sj, all, n), 0);
    free(all);
    free(json);
    free(sj);

    char *out = NULL;
    CHECK_INT(fs_check(dir, 1, &out), 0); /* warnings only: still valid */
    json_error_t jerr;
    json_t *root = out ? json_loads(out, 0, &jerr) : NULL;
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(
            count_warnings(root, "items.csv", csv_line, "text", "U+10FFFD"), 1);
        CHECK_INT(count_warnings(root, "items.csv", -1, NULL, "U+10FFFD"), 1);
        CHECK_INT(
            count_warnings(root, "study.json", label_line, "label", "U+10FFFD"),
            1);
        CHECK_INT(count_warnings(root, "items.csv", -1, NULL, "U+E000"),
                  glyph_chain_has(c, 0xE000) ? 0 : 1);
        if (glyph_chain_has(c, 0x4F60) && glyph_chain_has(c, 0x597D)) {
            CHECK_INT(count_warnings(root, "items.csv", -1, NULL, "U+4F60"), 0);
        } else {
            printf("skipped the CJK assertion: fontconfig finds no font "
                   "with U+4F60 (install fonts-noto-cjk)\n");
            CHECK_INT(count_warnings(root, "items.csv", -1, NULL, "U+4F60"), 1);
        }
        if (glyph_chain_has(c, 0x1F600)) {
            CHECK_INT(count_warnings(root, "items.csv", -1, NULL, "U+1F600"),
                      0);
        } else {
            printf("skipped the emoji assertion: fontconfig finds no font "
                   "with U+1F600 (install fonts-noto-color-emoji)\n");
        }
        json_decref(root);
    }
    free(out);

    /* The text report names file, line and field. */
    CHECK_INT(fs_check(dir, 0, &out), 0);
    char want[128];
    snprintf(want, sizeof want, "items.csv:%d: field 'text': U+10FFFD",
             csv_line);
    CHECK(out && strstr(out, want) != NULL);
    if (out && !strstr(out, want)) {
        fprintf(stderr, "%s\n", out);
    }
    free(out);
    fs_remove_tree(tmp);
}

/* The 1-based line of the first line of text containing tag. */
static int line_of(const char *text, const char *tag)
{
    const char *at = strstr(text, tag);
    int line = 1;
    for (const char *p = text; at && p < at; p++) {
        line += *p == '\n';
    }
    return at ? line : -1;
}

static void put(const char *dir, const char *rel, const char *data, size_t n)
{
    char *path = fs_join(dir, rel);
    CHECK(path && fs_write(path, data, n) == 0);
    free(path);
}

/* Every participant-visible text warns once, at its own file, line and
** field: block titles, class labels, quiz and questionnaire texts and
** options, likert and confidence ends, timeout_message, "ui" overrides (in
** study.json, escaped as well), a page, a language file, an item bank in
** UTF-16 with ';' under a name the directory scan skips (ids and texts),
** and tabular feature names of a JSON Lines bank. */
static void test_every_text(void)
{
    char tmp[64];
    if (!fs_temp_dir(tmp, sizeof tmp, "glyphs_all")) {
        CHECK(0);
        return;
    }
    static const char study[] =
        "{\n"
        "  \"simlab_study\": 1,\n"
        "  \"id\": \"g\",\n"
        "  \"title\": \"Glyphs\",\n"
        "  \"classes\": [\n"
        "    {\"id\": \"pos\",\n"
        "     \"label\": \"T01 " NOFONT "\"},\n"
        "    {\"id\": \"neg\", \"label\": \"Negative\"}],\n"
        "  \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
        "  \"blocks\": [\n"
        "    {\"kind\": \"instructions\", \"id\": \"intro\",\n"
        "     \"title\": \"T02 " NOFONT "\",\n"
        "     \"pages\": [\"pages/intro.md\"]},\n"
        "    {\"kind\": \"quiz\", \"id\": \"quiz\", \"questions\": [\n"
        "      {\"text\": \"T03 " NOFONT "\",\n"
        "       \"options\": [\"T04 " NOFONT "\", \"b\"], \"answer\": 1}]},\n"
        "    {\"kind\": \"questionnaire\", \"id\": \"survey\",\n"
        "     \"text\": \"T05 " NOFONT "\",\n"
        "     \"questions\": [\n"
        "      {\"id\": \"q1\", \"type\": \"choice\",\n"
        "       \"text\": \"T06 " NOFONT "\",\n"
        "       \"options\": [\"T07 " NOFONT "\", \"b\"]},\n"
        "      {\"id\": \"q2\", \"type\": \"likert\", \"text\": \"L\",\n"
        "       \"low\": \"T08 " NOFONT "\",\n"
        "       \"high\": \"T09 " NOFONT "\"}]},\n"
        "    {\"kind\": \"predict\", \"id\": \"p\", \"pool\": \"test\",\n"
        "     \"time_limit_ms\": 5000,\n"
        "     \"timeout_message\": \"T10 " NOFONT "\",\n"
        "     \"confidence\": {\"points\": 5,\n"
        "       \"question\": \"T11 " NOFONT "\",\n"
        "       \"low\": \"T12 " NOFONT "\",\n"
        "       \"high\": \"T13 " NOFONT "\"}},\n"
        "    {\"kind\": \"predict\", \"id\": \"p2\", \"pool\": \"tab\"}],\n"
        "  \"items\": [\n"
        "    {\"file\": \"data/bank.dat\", \"format\": \"csv\", \"pool\": "
        "\"test\",\n"
        "     \"modality\": \"text\", \"delimiter\": \";\", \"encoding\": "
        "\"utf-16\",\n"
        "     \"columns\": {\"id\": \"id\", \"input\": \"text\", \"label\": "
        "\"label\", \"prediction\": \"pred\"}},\n"
        "    {\"file\": \"data/tab.jsonl\"}],\n"
        "  \"language\": \"x-t\",\n"
        "  \"language_file\": \"lang/x-t.json\",\n"
        "  \"ui\": {\n"
        "    \"continue\": \"T14 " NOFONT "\",\n"
        "    \"consent.agree\": \"T15 \\uDBFF\\uDFFD\"\n"
        "  }\n"
        "}\n";
    char *lang_dir = fs_join(tmp, "lang"), *pages = fs_join(tmp, "pages"),
         *data = fs_join(tmp, "data");
    CHECK(mkdir(lang_dir, 0755) == 0 && mkdir(pages, 0755) == 0 &&
          mkdir(data, 0755) == 0);
    free(lang_dir);
    free(pages);
    free(data);
    put(tmp, "study.json", study, strlen(study));
    static const char page[] = "# Welcome\n\nRead T16 " NOFONT " well.\n";
    put(tmp, "pages/intro.md", page, strlen(page));
    /* the language file: English with one changed text, on line 2 */
    char en_path[1024];
    snprintf(en_path, sizeof en_path, "%s/assets/lang/en.json",
             SIMLAB_SOURCE_DIR);
    size_t len = 0;
    char *en = fs_read(en_path, &len);
    CHECK(en && strncmp(en, "{\n  \"continue\": \"Continue\",", 27) == 0);
    if (en) {
        const char *rest = en + 27;
        char *lang = malloc(len + 64);
        int n = snprintf(lang, len + 64,
                         "{\n  \"continue\": \"T17 " NOFONT "\",%s", rest);
        put(tmp, "lang/x-t.json", lang, (size_t)n);
        free(lang);
    }
    free(en);
    /* UTF-16 LE with a byte order mark, ';'-separated */
    static const char bank[] = "id;text;label;pred\n"
                               "T18 " NOFONT ";T19 " NOFONT ";pos;pos\n"
                               "i2;plain;neg;neg\n";
    char u16[512];
    size_t k = 0;
    u16[k++] = '\xFF';
    u16[k++] = '\xFE';
    for (size_t i = 0; i < sizeof bank - 1;) {
        /* bank is ASCII but for NOFONT (4 UTF-8 bytes: a surrogate pair) */
        if ((unsigned char)bank[i] == 0xF4) {
            static const char pair[] = "\xFF\xDB\xFD\xDF"; /* DBFF DFFD */
            memcpy(u16 + k, pair, 4);
            k += 4;
            i += 4;
        } else {
            u16[k++] = bank[i++];
            u16[k++] = '\0';
        }
    }
    put(tmp, "data/bank.dat", u16, k);
    static const char tab[] =
        "{\"id\": \"t1\", \"pool\": \"tab\", \"modality\": \"tabular\", "
        "\"input\": [{\"name\": \"T20 " NOFONT "\", \"value\": \"3\"}], "
        "\"label\": \"pos\", \"prediction\": \"pos\"}\n";
    put(tmp, "data/tab.jsonl", tab, strlen(tab));

    char *out = NULL;
    CHECK_INT(fs_check(tmp, 1, &out), 0);
    json_error_t jerr;
    json_t *root = out ? json_loads(out, 0, &jerr) : NULL;
    CHECK(root != NULL);
    if (root) {
        static const struct {
            const char *tag, *file, *field;
        } want[] = {
            {"T01", "study.json", "label"},
            {"T02", "study.json", "title"},
            {"T03", "study.json", "text"},
            {"T04", "study.json", "options"},
            {"T05", "study.json", "text"},
            {"T06", "study.json", "text"},
            {"T07", "study.json", "options"},
            {"T08", "study.json", "low"},
            {"T09", "study.json", "high"},
            {"T10", "study.json", "timeout_message"},
            {"T11", "study.json", "question"},
            {"T12", "study.json", "low"},
            {"T13", "study.json", "high"},
            {"T14", "study.json", "continue"},
            {"T15", "study.json", "consent.agree"},
        };
        size_t n_want = sizeof want / sizeof *want;
        for (size_t i = 0; i < n_want; i++) {
            int line = line_of(study, want[i].tag);
            int got = count_warnings(root, want[i].file, line, want[i].field,
                                     "U+10FFFD");
            if (got != 1) {
                fprintf(stderr, "%s: %d warnings at %s:%d field '%s'\n",
                        want[i].tag, got, want[i].file, line, want[i].field);
            }
            CHECK_INT(got, 1);
        }
        CHECK_INT(
            count_warnings(root, "pages/intro.md", 3, "intro.md", "U+10FFFD"),
            1);
        CHECK_INT(
            count_warnings(root, "lang/x-t.json", 2, "continue", "U+10FFFD"),
            1);
        CHECK_INT(count_warnings(root, "data/bank.dat", 2, "id", "U+10FFFD"),
                  1);
        CHECK_INT(count_warnings(root, "data/bank.dat", 2, "text", "U+10FFFD"),
                  1);
        CHECK_INT(count_warnings(root, "data/tab.jsonl", 1, "name", "U+10FFFD"),
                  1);
        /* nothing else: one warning per text, none at "language" */
        CHECK_INT((int)json_array_size(json_object_get(root, "warnings")),
                  (int)n_want + 5);
        if ((int)json_array_size(json_object_get(root, "warnings")) !=
            (int)n_want + 5) {
            fprintf(stderr, "%s\n", out);
        }
        json_decref(root);
    } else if (out) {
        fprintf(stderr, "%s\n", out);
    }
    free(out);
    fs_remove_tree(tmp);
}

/* BCP 47 tags map to fontconfig's languages, and the chain of a Chinese,
** Japanese or Korean study draws Han characters from that region's face of
** Noto Sans CJK (a different face index of the same collection). */
static void test_regions(void)
{
    static const struct {
        const char *tag, *fc;
    } map[] = {{"zh-Hans", "zh-cn"},
               {"zh", "zh-cn"},
               {"zh-CN", "zh-cn"},
               {"zh-SG", "zh-cn"},
               {"zh-Hans-CN", "zh-cn"},
               {"zh-Hant", "zh-tw"},
               {"zh-TW", "zh-tw"},
               {"ZH-hant-tw", "zh-tw"},
               {"zh-HK", "zh-hk"},
               {"zh-Hant-HK", "zh-hk"},
               {"zh-MO", "zh-hk"},
               {"ja", "ja"},
               {"ja-JP", "ja"},
               {"ko_KR", "ko"},
               {"pt-BR", "pt"},
               {"AR", "ar"},
               {"", ""}};
    char out[16];
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        glyph_fc_lang(map[i].tag, out, sizeof out);
        CHECK_STR(out, map[i].fc);
    }
    glyph_fc_lang(NULL, out, sizeof out);
    CHECK_STR(out, "");
    const char *tags[] = {"ja", "zh-Hans", "zh-Hant", "ko"};
    int index[4];
    int cjk = 1;
    for (int i = 0; i < 4; i++) {
        GlyphChain *c = NULL;
        SimError err;
        char path[1024];
        index[i] = -1;
        CHECK_INT(glyph_chain_open(tags[i], &c, &err), SIM_OK);
        /* U+76F4 (straight): its forms differ between the regions */
        if (!c ||
            !glyph_chain_font_for(c, 0x76F4, path, sizeof path, &index[i]) ||
            !strstr(path, "NotoSansCJK")) {
            cjk = 0;
        }
        glyph_chain_free(c);
    }
    if (!cjk) {
        fprintf(stderr, "note: no Noto Sans CJK: regional faces not checked\n");
        return;
    }
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
            CHECK(index[i] != index[j]);
        }
    }
}

int main(void)
{
    GlyphChain *c = NULL;
    SimError err;
    sim_error_clear(&err);
    if (glyph_chain_open("de", &c, &err) != SIM_OK) {
        printf("skipped: %s\n", err.msg);
        return SIM_TEST_SKIP;
    }
    test_chain(c);
    test_bundle(c);
    test_every_text();
    test_regions();
    glyph_chain_free(c);
    return TEST_REPORT();
}
