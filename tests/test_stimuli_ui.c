/*
** The runner's string table: every shipped language gives every key with
** the English placeholders; assets/lang/<tag>.json match the built-in
** tables; study.json's "language", "language_file" and "ui" resolve into
** Study.ui_strings and `check --json`'s ui_strings; unknown languages and
** keys and changed placeholders are located errors with "did you mean".
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_error.h"
#include "stimuli/study.h"
#include "stimuli/uistrings.h"

#include <jansson.h>

static void bundle_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/bundles/%s", SIMLAB_TEST_DATA, name);
}

static void test_shipped_languages(void)
{
    CHECK(ui_language_count() >= 7);
    static const char *const need[] = {"en",      "de", "fr", "es",
                                       "zh-Hans", "ja", "ar"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        CHECK(ui_language_find(need[i]) >= 0);
    }
    CHECK_STR(ui_language_tag(0), "en");
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        const char *name = ui_key_name((UiKey)k);
        CHECK(name && *name);
        CHECK_INT(ui_key_from_name(name), k);
        for (int j = 0; j < k; j++) {
            CHECK(strcmp(name, ui_key_name((UiKey)j)) != 0);
        }
        CHECK_STR(ui_str(NULL, (UiKey)k), ui_language_text(0, (UiKey)k));
    }
    for (size_t lang = 0; lang < ui_language_count(); lang++) {
        for (int k = 0; k < UI_KEY_COUNT; k++) {
            const char *text = ui_language_text(lang, (UiKey)k);
            char why[200];
            int ok = ui_placeholders_ok((UiKey)k, text, why, sizeof why);
            if (!ok || !*text) {
                fprintf(stderr, "%s %s: \"%s\": %s\n", ui_language_tag(lang),
                        ui_key_name((UiKey)k), text, ok ? "empty" : why);
            }
            CHECK(ok && *text);
        }
    }
    CHECK_STR(ui_fmt(NULL, UI_PROGRESS, "not the English text"),
              "not the English text");
    CHECK_INT(ui_key_from_name("no.such.key"), -1);
    CHECK_STR(ui_str(NULL, UI_KEY_COUNT), "");
}

static void test_direction(void)
{
    CHECK(ui_language_rtl("ar") == 1);
    CHECK(ui_language_rtl("AR-eg") == 1);
    CHECK(ui_language_rtl("he_IL") == 1);
    CHECK(ui_language_rtl("ckb") == 1);
    CHECK(ui_language_rtl("en") == 0);
    CHECK(ui_language_rtl("zh-Hans") == 0);
    CHECK(ui_language_rtl("ara") == 0);
    CHECK(ui_language_rtl("a") == 0);
    CHECK(ui_language_rtl("") == 0);
    CHECK(ui_language_rtl(NULL) == 0);
    /* Of the shipped languages, only Arabic runs right to left. */
    int n = 0;
    for (size_t i = 0; i < ui_language_count(); i++) {
        n += ui_language_rtl(ui_language_tag(i));
    }
    CHECK(n == 1);
}

static void test_placeholders(void)
{
    char why[200];
    CHECK(ui_placeholders_ok(UI_PROGRESS, "%d / %d", why, sizeof why));
    CHECK(!ui_placeholders_ok(UI_PROGRESS, "%d", why, sizeof why));
    CHECK(strstr(why, "'%d' is missing") != NULL);
    CHECK(!ui_placeholders_ok(UI_PROGRESS, "%d of %d %s", why, sizeof why));
    CHECK(strstr(why, "'%s' is not in the English text") != NULL);
    CHECK(!ui_placeholders_ok(UI_PROGRESS, "%s of %d", why, sizeof why));
    CHECK(ui_placeholders_ok(UI_EXPL_PRECISION, "%.0f %%", why, sizeof why));
    CHECK(!ui_placeholders_ok(UI_EXPL_PRECISION, "%.1f%%", why, sizeof why));
    CHECK(!ui_placeholders_ok(UI_EXPL_STEP, "Step %d", why, sizeof why));
    /* plain keys take any text, '%' included */
    CHECK(ui_placeholders_ok(UI_RATING_HIGH, "100% sure", why, sizeof why));
    /* ui_fmt gives the translation only for the key's English format */
    UiStrings *t = ui_strings_new((size_t)ui_language_find("de"), "de-AT");
    CHECK(t != NULL);
    CHECK_STR(ui_fmt(t, UI_PROGRESS, "%d of %d"), "%d von %d");
    CHECK_STR(ui_strings_language(t), "de-AT");
    CHECK_INT(ui_strings_set(t, UI_CONTINUE, "Los"), 0);
    CHECK_STR(ui_str(t, UI_CONTINUE), "Los");
    CHECK_STR(ui_str(t, UI_TRY_AGAIN), "Noch einmal versuchen");
    ui_strings_free(t);
    CHECK_STR(ui_key_suggest("contineu"), "continue");
    CHECK_STR(ui_key_suggest("quiz.titel"), "quiz.title");
    CHECK(ui_key_suggest("completely.different.thing") == NULL);
    CHECK_STR(ui_language_suggest("fra"), "fr");
    CHECK_STR(ui_language_suggest("zh"), "zh-Hans");
}

/* assets/lang/<tag>.json holds exactly the built-in table of <tag>. */
static void test_asset_files(void)
{
    for (size_t lang = 0; lang < ui_language_count(); lang++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/assets/lang/%s.json", SIMLAB_SOURCE_DIR,
                 ui_language_tag(lang));
        json_error_t jerr;
        json_t *o = json_load_file(path, 0, &jerr);
        CHECK(o != NULL && json_is_object(o));
        if (!o) {
            fprintf(stderr, "%s: %s\n", path, jerr.text);
            continue;
        }
        CHECK_INT((int)json_object_size(o), UI_KEY_COUNT);
        for (int k = 0; k < UI_KEY_COUNT; k++) {
            json_t *v = json_object_get(o, ui_key_name((UiKey)k));
            CHECK(v && json_is_string(v) &&
                  strcmp(json_string_value(v),
                         ui_language_text(lang, (UiKey)k)) == 0);
        }
        json_decref(o);
    }
}

static Study *load(const char *name, StudyReport *rep)
{
    char dir[1024];
    bundle_path(dir, sizeof dir, name);
    Study *st = NULL;
    SimError err;
    study_report_init(rep);
    study_load(dir, &st, rep, &err);
    return st;
}

static void test_study_language(void)
{
    StudyReport rep;
    Study *st = load("valid-lang", &rep);
    CHECK(st != NULL);
    if (st) {
        CHECK_STR(ui_strings_language(st->ui_strings), "de");
        CHECK_STR(ui_str(st->ui_strings, UI_CONTINUE), "Los geht's");
        CHECK_STR(ui_fmt(st->ui_strings, UI_PROGRESS, "%d of %d"),
                  "Aufgabe %d/%d");
        CHECK_STR(ui_str(st->ui_strings, UI_TITLE_QUIZ),
                  "Fragen zur Anleitung");
    }
    study_free(st);
    study_report_free(&rep);

    st = load("valid-lang-file", &rep);
    CHECK(st != NULL);
    if (st) {
        CHECK_STR(ui_strings_language(st->ui_strings), "x-test");
        CHECK_STR(ui_str(st->ui_strings, UI_CONTINUE), "<Continue>");
        CHECK_STR(ui_str(st->ui_strings, UI_PROGRESS), "<%d of %d>");
    }
    study_free(st);
    study_report_free(&rep);

    /* no "language": English */
    st = load("valid-csv-dialects", &rep);
    CHECK(st != NULL);
    if (st) {
        CHECK_STR(ui_strings_language(st->ui_strings), "en");
        CHECK_STR(ui_str(st->ui_strings, UI_CONTINUE), "Continue");
    }
    study_free(st);
    study_report_free(&rep);
}

static void test_check_json(void)
{
    char dir[1024];
    bundle_path(dir, sizeof dir, "valid-lang");
    char *out = NULL;
    CHECK_INT(fs_check(dir, 1, &out), 0);
    json_error_t jerr;
    json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
    CHECK(o != NULL);
    if (o) {
        CHECK_STR(json_string_value(json_object_get(o, "language")), "de");
        json_t *ui = json_object_get(o, "ui_strings");
        CHECK(json_is_object(ui));
        CHECK_INT((int)json_object_size(ui), UI_KEY_COUNT);
        CHECK_STR(json_string_value(json_object_get(ui, "continue")),
                  "Los geht's");
        CHECK_STR(json_string_value(json_object_get(ui, "predict.question")),
                  "Was wird das Modell ausgeben?");
        json_decref(o);
    }
    free(out);
}

static void test_errors(void)
{
    char dir[1024];
    bundle_path(dir, sizeof dir, "bad-lang");
    char *out = NULL;
    CHECK_INT(fs_check(dir, 1, &out), 1);
    json_error_t jerr;
    json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
    CHECK(o != NULL);
    if (o) {
        json_t *errs = json_object_get(o, "errors");
        CHECK_INT((int)json_array_size(errs), 3);
        static const char *const want[3][3] = {
            {"/language", "language",
             "'fra' is not a shipped language (did you mean 'fr'?)"},
            {"/ui/contineu", "contineu",
             "unknown string key (did you mean 'continue'?)"},
            {"/ui/progress", "progress",
             "placeholder '%d' is missing (keep the English placeholders, in "
             "order; write %% for a percent sign); the English text is \"%d "
             "of %d\""}};
        for (size_t i = 0; i < 3 && i < json_array_size(errs); i++) {
            json_t *e = json_array_get(errs, i);
            CHECK_STR(json_string_value(json_object_get(e, "file")),
                      "study.json");
            CHECK_STR(json_string_value(json_object_get(e, "pointer")),
                      want[i][0]);
            CHECK_STR(json_string_value(json_object_get(e, "field")),
                      want[i][1]);
            const char *msg = json_string_value(json_object_get(e, "message"));
            CHECK(msg && strstr(msg, want[i][2]));
        }
        json_decref(o);
    }
    free(out);
}

/* Region and script subtags fall back to a shipped language; an
** incomplete language file names the missing keys. */
static void test_fallbacks(void)
{
    CHECK_INT(UI_KEY_COUNT, 142); /* the missing-keys message below */
    static const struct {
        const char *extra;
        int ok;
        const char *expect; /* language, or a substring of the error */
    } cases[] = {
        {"\"language\": \"de-AT\"", 1, "de-AT"},
        {"\"language\": \"zh-CN\"", 1, "zh-CN"},
        {"\"language\": \"zh-Hant\"", 0, "'zh-Hant' is not a shipped language"},
        {"\"language\": \"en_US\"", 0, "is not a BCP 47 language tag"},
        {"\"language\": \"nl\", \"language_file\": \"nl.json\"", 0,
         "error: nl.json: 141 of the 142 string keys are missing "
         "(continue.wait, "
         "deadline.left, consent.agree, consent.decline, feedback.try_again, "
         "...)"},
        {"\"ui\": {\"continue\": 3}", 0, "field 'continue': must be a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char tmp[64], dir[128];
        if (!fs_temp_dir(tmp, sizeof tmp, "uilang")) {
            CHECK(0);
            continue;
        }
        snprintf(dir, sizeof dir, "%s/b", tmp);
        char src[1024];
        bundle_path(src, sizeof src, "valid-lang");
        CHECK_INT(fs_copy_tree(src, dir), 0);
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"simlab_study\": 1, \"id\": \"u\", \"title\": \"u\", %s,\n"
                 " \"classes\": [{\"id\": \"pos\"}, {\"id\": \"neg\"}],\n"
                 " \"conditions\": [{\"id\": \"b\", \"method\": null}],\n"
                 " \"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}],\n"
                 " \"items\": [{\"file\": \"items.csv\", \"pool\": \"test\", "
                 "\"modality\": \"text\", \"columns\": {\"id\": \"id\", "
                 "\"input\": \"text\", \"prediction\": \"pred\"}}]}\n",
                 cases[i].extra);
        char *sj = fs_join(dir, "study.json");
        char *nl = fs_join(dir, "nl.json");
        static const char nl_json[] = "{\"continue\": \"Verder\"}\n";
        CHECK(sj && fs_write(sj, json, strlen(json)) == 0);
        CHECK(nl && fs_write(nl, nl_json, sizeof nl_json - 1) == 0);
        char *out = NULL;
        int rc = fs_check(dir, cases[i].ok, &out);
        CHECK_INT(rc, cases[i].ok ? 0 : 1);
        CHECK(cases[i].ok || (out && strstr(out, "invalid: 1 error")));
        json_error_t jerr;
        json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
        if (cases[i].ok) {
            CHECK(o && strcmp(json_string_value(json_object_get(o, "language")),
                              cases[i].expect) == 0);
        } else {
            CHECK(out && strstr(out, cases[i].expect));
        }
        if (out && !strstr(out, cases[i].expect)) {
            fprintf(stderr, "case %zu: expected %s in\n%s\n", i,
                    cases[i].expect, out);
        }
        json_decref(o);
        free(out);
        free(sj);
        free(nl);
        fs_remove_tree(tmp);
    }
}

/* A language file's "direction" sets whether the screens are mirrored,
** whatever its tag; a bad value is an error located at the field. */
static void test_language_file_direction(void)
{
    static const struct {
        const char *value; /* JSON text of "direction" */
        int ok, rtl;
        const char *expect; /* a substring of the error */
    } cases[] = {
        {"\"rtl\"", 1, 1, NULL},
        {"\"ltr\"", 1, 0, NULL},
        {NULL, 1, 0, NULL}, /* no "direction": by the tag (x-test: ltr) */
        {"\"right-to-left\"", 0, 0,
         "lang/x-test.json:/direction: field 'direction': must be \"rtl\""},
        {"1", 0, 0,
         "lang/x-test.json:/direction: field 'direction': must be \"rtl\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char tmp[64], dir[128];
        if (!fs_temp_dir(tmp, sizeof tmp, "uidir")) {
            CHECK(0);
            continue;
        }
        snprintf(dir, sizeof dir, "%s/b", tmp);
        char src[1024];
        bundle_path(src, sizeof src, "valid-lang-file");
        CHECK_INT(fs_copy_tree(src, dir), 0);
        char *lf = fs_join(dir, "lang/x-test.json");
        size_t len = 0;
        char *text = lf ? fs_read(lf, &len) : NULL;
        CHECK(text && text[0] == '{');
        if (text && cases[i].value) {
            /* "direction" as the file's first member */
            char *with = malloc(len + 64);
            int n = snprintf(with, len + 64, "{\"direction\": %s,%s",
                             cases[i].value, text + 1);
            CHECK(fs_write(lf, with, (size_t)n) == 0);
            free(with);
        }
        StudyReport rep;
        study_report_init(&rep);
        Study *st = NULL;
        SimError err;
        study_load(dir, &st, &rep, &err);
        CHECK(cases[i].ok ? st != NULL : st == NULL);
        if (st) {
            CHECK_INT(ui_strings_rtl(st->ui_strings), cases[i].rtl);
            CHECK_STR(ui_str(st->ui_strings, UI_CONTINUE), "<Continue>");
        }
        study_free(st);
        study_report_free(&rep);
        if (cases[i].ok) {
            /* check --json says which way the screens run */
            char *out = NULL;
            CHECK_INT(fs_check(dir, 1, &out), 0);
            json_error_t jerr;
            json_t *o = out ? json_loads(out, 0, &jerr) : NULL;
            json_t *d = o ? json_object_get(o, "direction") : NULL;
            CHECK(d && strcmp(json_string_value(d),
                              cases[i].rtl ? "rtl" : "ltr") == 0);
            json_decref(o);
            free(out);
        }
        if (cases[i].expect) {
            char *out = NULL;
            CHECK_INT(fs_check(dir, 0, &out), 1);
            CHECK(out && strstr(out, cases[i].expect));
            CHECK(out && strstr(out, "invalid: 1 error"));
            if (out && !strstr(out, cases[i].expect)) {
                fprintf(stderr, "case %zu: expected %s in\n%s\n", i,
                        cases[i].expect, out);
            }
            free(out);
        }
        free(text);
        free(lf);
        fs_remove_tree(tmp);
    }
}

int main(void)
{
    test_shipped_languages();
    test_direction();
    test_placeholders();
    test_asset_files();
    test_study_language();
    test_check_json();
    test_errors();
    test_fallbacks();
    test_language_file_direction();
    return TEST_REPORT();
}
