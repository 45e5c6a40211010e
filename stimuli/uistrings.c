/*
** The runner's participant-facing strings: the key table with its shipped
** translations (uistrings_lang.h), placeholder checks, resolved tables.
*/
#include "stimuli/uistrings.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sim_text.h"
#include "stimuli/uistrings_lang.h"

struct UiStrings {
    char *language;
    int direction; /* -1: by the tag (ui_language_rtl), 0 ltr, 1 rtl */
    const char *text[UI_KEY_COUNT]; /* shipped text or owned[k] */
    char *owned[UI_KEY_COUNT];      /* overrides, or NULL */
};

const char *ui_str(const UiStrings *t, UiKey k)
{
    if ((unsigned)k >= UI_KEY_COUNT) {
        return "";
    }
    return t ? t->text[k] : ui_rows[k].text[0];
}

const char *ui_fmt(const UiStrings *t, UiKey k, const char *english)
{
    if ((unsigned)k >= UI_KEY_COUNT || !english ||
        strcmp(english, ui_rows[k].text[0]) != 0) {
        return english;
    }
    return ui_str(t, k);
}

const char *ui_key_name(UiKey k)
{
    return (unsigned)k < UI_KEY_COUNT ? ui_rows[k].key : NULL;
}

int ui_key_from_name(const char *name)
{
    for (int k = 0; name && k < UI_KEY_COUNT; k++) {
        if (strcmp(ui_rows[k].key, name) == 0) {
            return k;
        }
    }
    return -1;
}

size_t ui_language_count(void)
{
    return UI_N_LANG;
}

const char *ui_language_tag(size_t i)
{
    return i < UI_N_LANG ? ui_lang_tags[i] : NULL;
}

int ui_language_rtl(const char *tag)
{
    static const char *const rtl[] = {"ar", "he", "fa", "ur", "ps",
                                      "sd", "ug", "yi", "dv", "ckb"};
    if (!tag) {
        return 0;
    }
    size_t n = strcspn(tag, "-_");
    for (size_t i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        if (strlen(rtl[i]) == n && strncasecmp(rtl[i], tag, n) == 0) {
            return 1;
        }
    }
    return 0;
}

int ui_language_find(const char *tag)
{
    for (int i = 0; tag && i < UI_N_LANG; i++) {
        if (strcasecmp(ui_lang_tags[i], tag) == 0) {
            return i;
        }
    }
    return -1;
}

const char *ui_language_text(size_t i, UiKey k)
{
    if (i >= UI_N_LANG || (unsigned)k >= UI_KEY_COUNT) {
        return "";
    }
    return ui_rows[k].text[i];
}

/* The next printf conversion in s at or after *pos, copied into spec
** (without the flags' order changed); "%%" is skipped. Returns 1 when one
** was found and advances *pos past it, 0 at the end. */
static int next_spec(const char *s, size_t *pos, char *spec, size_t n)
{
    size_t i = *pos;
    while (s[i]) {
        if (s[i] != '%') {
            i++;
            continue;
        }
        if (s[i + 1] == '%') {
            i += 2;
            continue;
        }
        size_t j = i + 1;
        while (s[j] && strchr("-+ #0123456789.hlzjt", s[j])) {
            j++;
        }
        if (s[j]) {
            j++; /* the conversion letter */
        }
        size_t len = j - i < n - 1 ? j - i : n - 1;
        memcpy(spec, s + i, len);
        spec[len] = '\0';
        *pos = j;
        return 1;
    }
    *pos = i;
    return 0;
}

static void set_why(char *why, size_t n, const char *a, const char *b,
                    const char *c)
{
    if (why && n) {
        size_t L = 0;
        const char *parts[3] = {a, b, c};
        for (int i = 0; i < 3 && parts[i]; i++) {
            size_t m = strlen(parts[i]);
            if (L + m >= n) {
                m = n - 1 - L;
            }
            memcpy(why + L, parts[i], m);
            L += m;
        }
        why[L] = '\0';
    }
}

int ui_placeholders_ok(UiKey k, const char *text, char *why, size_t why_size)
{
    if ((unsigned)k >= UI_KEY_COUNT || !text) {
        set_why(why, why_size, "no such key", NULL, NULL);
        return 0;
    }
    const char *ref = ui_rows[k].text[0];
    size_t pr = 0, pt = 0;
    char first[16];
    if (!next_spec(ref, &pr, first, sizeof first)) {
        return 1; /* plain text: shown as it is, '%' included */
    }
    pr = 0;
    for (;;) {
        char a[16], b[16];
        int ha = next_spec(ref, &pr, a, sizeof a);
        int hb = next_spec(text, &pt, b, sizeof b);
        if (!ha && !hb) {
            return 1;
        }
        if (ha && !hb) {
            set_why(why, why_size, "placeholder '", a,
                    "' is missing (keep the English placeholders, in order; "
                    "write %% for a percent sign)");
            return 0;
        }
        if (!ha) {
            set_why(why, why_size, "placeholder '", b,
                    "' is not in the English text (write %% for a percent "
                    "sign)");
            return 0;
        }
        if (strcmp(a, b) != 0) {
            set_why(why, why_size, "placeholder '", b,
                    "' differs from the English one (keep the English "
                    "placeholders, in order)");
            return 0;
        }
    }
}

UiStrings *ui_strings_new(size_t language, const char *tag)
{
    UiStrings *t = calloc(1, sizeof *t);
    if (!t) {
        return NULL;
    }
    t->direction = -1;
    if (language >= UI_N_LANG) {
        language = 0;
    }
    const char *name = tag ? tag : ui_lang_tags[language];
    size_t n = strlen(name) + 1;
    t->language = malloc(n);
    if (!t->language) {
        free(t);
        return NULL;
    }
    memcpy(t->language, name, n);
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        t->text[k] = ui_rows[k].text[language];
    }
    return t;
}

int ui_strings_set(UiStrings *t, UiKey k, const char *text)
{
    if (!t || (unsigned)k >= UI_KEY_COUNT || !text) {
        return -1;
    }
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (!copy) {
        return -1;
    }
    memcpy(copy, text, n);
    free(t->owned[k]);
    t->owned[k] = copy;
    t->text[k] = copy;
    return 0;
}

const char *ui_strings_language(const UiStrings *t)
{
    return t ? t->language : ui_lang_tags[0];
}

void ui_strings_set_rtl(UiStrings *t, int rtl)
{
    if (t) {
        t->direction = rtl ? 1 : 0;
    }
}

int ui_strings_rtl(const UiStrings *t)
{
    if (!t) {
        return 0;
    }
    return t->direction >= 0 ? t->direction : ui_language_rtl(t->language);
}

void ui_strings_free(UiStrings *t)
{
    if (!t) {
        return;
    }
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        free(t->owned[k]);
    }
    free(t->language);
    free(t);
}

/* The closest of n names to s: within a third of its length (at least 2). */
static const char *suggest(const char *s, const char *(*name)(size_t), size_t n)
{
    const char *best = NULL;
    size_t best_d = 99;
    size_t limit = sim_suggest_limit(s);
    for (size_t i = 0; i < n; i++) {
        const char *cand = name(i);
        size_t d = sim_edit_distance(s, cand);
        /* A tag's primary language alone ("zh" for "zh-Hans") counts. */
        size_t pl = strcspn(cand, "-");
        if (cand[pl] && strlen(s) >= 2 && strncasecmp(s, cand, 2) == 0) {
            d = d < 1 ? d : 1;
        }
        if (d < best_d) {
            best_d = d;
            best = cand;
        }
    }
    return best_d <= limit ? best : NULL;
}

static const char *key_at(size_t i)
{
    return ui_rows[i].key;
}

const char *ui_key_suggest(const char *s)
{
    return s ? suggest(s, key_at, UI_KEY_COUNT) : NULL;
}

const char *ui_language_suggest(const char *s)
{
    return s ? suggest(s, ui_language_tag, UI_N_LANG) : NULL;
}
