/*
** Font coverage of participant-facing text: `simlab check` warns, located
** at file and line with the field, once per distinct character per file,
** about characters no font of the fontconfig chain can draw; CJK and emoji
** do not warn when the Noto fonts are installed.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/glyphs.h"

#include <jansson.h>

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
    glyph_chain_free(c);
    return TEST_REPORT();
}
