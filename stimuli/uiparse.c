/*
** study.json's "language", "language_file" and "ui": resolves the runner's
** string table (stimuli/uistrings.h) into Study.ui_strings, with located
** errors for unknown languages and keys and for changed placeholders.
*/
#include <string.h>
#include <strings.h>

#include "common/sim_alloc.h"
#include "stimuli/uiparse.h"
#include "stimuli/loader.h"
#include "stimuli/bpath_int.h"
#include "stimuli/uistrings.h"

/* A well-formed BCP 47 tag, loosely: subtags of 1-8 letters or digits
** separated by '-', the first of 2-8 letters or "x" (private use). */
static int tag_well_formed(const char *s)
{
    size_t i = 0, first = 1;
    while (s[i]) {
        size_t n = 0;
        while (s[i + n] && s[i + n] != '-') {
            char c = s[i + n];
            int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            int digit = c >= '0' && c <= '9';
            if (!letter && !(digit && !first)) {
                return 0;
            }
            n++;
        }
        int private_use = first && n == 1 && (s[i] == 'x' || s[i] == 'X');
        if (n == 0 || n > 8 || (first && n < 2 && !private_use)) {
            return 0;
        }
        first = 0;
        i += n;
        if (s[i] == '-') {
            i++;
            if (!s[i]) {
                return 0;
            }
        }
    }
    return i > 0;
}

/* The shipped language for tag: the tag itself, else the tag with subtags
** dropped from the end ("de-AT" -> "de"); Chinese without a script
** ("zh", "zh-CN", "zh-SG") is Simplified. -1 when none. */
int ui_language_resolve(const char *tag)
{
    char buf[64];
    size_t n = strlen(tag);
    if (n >= sizeof buf) {
        return -1;
    }
    memcpy(buf, tag, n + 1);
    static const char *const traditional[] = {"zh-Hant", "zh-TW", "zh-HK",
                                              "zh-MO"};
    for (size_t i = 0; i < 4; i++) {
        size_t m = strlen(traditional[i]);
        if (strncasecmp(buf, traditional[i], m) == 0 &&
            (buf[m] == '\0' || buf[m] == '-')) {
            return -1; /* not Simplified Chinese */
        }
    }
    for (;;) {
        int i = ui_language_find(buf);
        if (i >= 0) {
            return i;
        }
        if (strcasecmp(buf, "zh") == 0 || strcasecmp(buf, "zh-CN") == 0 ||
            strcasecmp(buf, "zh-SG") == 0) {
            return ui_language_find("zh-Hans");
        }
        char *dash = strrchr(buf, '-');
        if (!dash) {
            return -1;
        }
        *dash = '\0';
    }
}

/* Sets key k from the JSON string v at (at, name); reports a non-string,
** or placeholders that differ from the English text. */
static void set_text(Loader *L, UiStrings *t, const JLoc *at, const char *name,
                     UiKey k, json_t *v)
{
    if (!json_is_string(v)) {
        jl_error(L, at, name, "must be a string");
        return;
    }
    const char *text = json_string_value(v);
    char why[200];
    if (!ui_placeholders_ok(k, text, why, sizeof why)) {
        jl_error(L, at, name, "%s; the English text is \"%s\"", why,
                 ui_str(NULL, k));
        return;
    }
    if (ui_strings_set(t, k, text) != 0) {
        L->oom = 1;
    }
}

/* Applies the members of obj (key -> text) to t; unknown keys are errors. */
static void apply_strings(Loader *L, UiStrings *t, const JLoc *at, json_t *obj)
{
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v)
    {
        if (jkey_free(name)) {
            continue; /* notes, x-..., _comments: the author's own */
        }
        int k = ui_key_from_name(name);
        if (k < 0) {
            const char *near = ui_key_suggest(name);
            if (near) {
                jl_error(L, at, name, "unknown string key (did you mean '%s'?)",
                         near);
            } else {
                jl_error(L, at, name,
                         "unknown string key (the keys are listed in "
                         "docs/study-format.md; `simlab check --json` "
                         "prints them as ui_strings)");
            }
            continue;
        }
        set_text(L, t, at, name, (UiKey)k, v);
    }
}

/* Reads the bundle's language file rel (a JSON object with every key). */
static void load_language_file(Loader *L, UiStrings *t, const JLoc *ref,
                               const char *rel)
{
    char *data = NULL;
    size_t len = 0;
    char why[256] = "";
    int rc = bpath_read(L, rel, &data, &len, why, sizeof why);
    if (rc == -2) {
        jl_error(L, ref, "language_file", "'%s': %s", rel, why);
        return;
    }
    if (rc != 0) {
        return;
    }
    json_error_t jerr;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    sim_free(data);
    if (!root) {
        ld_diag(L, 0, rel, jerr.line, jerr.column, NULL, NULL, "%s", jerr.text);
        return;
    }
    JLoc at = {.file = rel, .line = 0, .ptr = ""};
    if (!json_is_object(root)) {
        ld_diag(L, 0, rel, 0, 0, NULL, NULL,
                "a language file holds one JSON object of key -> text");
        json_decref(root);
        return;
    }
    /* "direction": how the language runs, for a tag simlab does not know
    ** to be right to left (or to override it); not a string key */
    json_t *dir = json_object_get(root, "direction");
    if (dir) {
        const char *d = json_is_string(dir) ? json_string_value(dir) : "";
        if (strcmp(d, "rtl") == 0 || strcmp(d, "ltr") == 0) {
            ui_strings_set_rtl(t, d[0] == 'r');
        } else {
            jl_error(L, &at, "direction",
                     "must be \"rtl\" (right to left: participant screens "
                     "are mirrored) or \"ltr\"");
        }
        json_object_del(root, "direction");
    }
    apply_strings(L, t, &at, root);
    char missing[400] = "";
    size_t n_missing = 0, used = 0;
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        const char *name = ui_key_name((UiKey)k);
        if (json_object_get(root, name)) {
            continue;
        }
        n_missing++;
        size_t m = strlen(name);
        if (n_missing <= 5 && used + m + 3 < sizeof missing) {
            memcpy(missing + used, used ? ", " : "", used ? 2 : 0);
            used += used ? 2 : 0;
            memcpy(missing + used, name, m + 1);
            used += m;
        }
    }
    if (n_missing) {
        ld_diag(L, 0, rel, 0, 0, NULL, NULL,
                "%zu of the %d string keys are missing (%s%s); a language "
                "file gives every key (copy assets/lang/en.json)",
                n_missing, (int)UI_KEY_COUNT, missing,
                n_missing > 5 ? ", ..." : "");
    }
    json_decref(root);
}

void ui_parse(Loader *L, json_t *root, const JLoc *at)
{
    Study *st = L->st;
    const char *tag = NULL;
    const char *file = NULL;
    int lang = 0; /* English */
    if (jget_str(L, at, root, "language_file", 0, &file) < 0) {
        file = NULL;
    }
    if (jget_str(L, at, root, "language", 0, &tag) == 1) {
        if (!tag_well_formed(tag)) {
            jl_error(L, at, "language",
                     "'%s' is not a BCP 47 language tag (e.g. \"de\", "
                     "\"fr-CA\", \"zh-Hans\")",
                     tag);
            tag = NULL;
        } else if (!file) {
            lang = ui_language_resolve(tag);
            if (lang < 0) {
                const char *near = ui_language_suggest(tag);
                char list[200] = "";
                size_t used = 0;
                for (size_t i = 0; i < ui_language_count(); i++) {
                    const char *t = ui_language_tag(i);
                    size_t m = strlen(t);
                    if (used + m + 3 < sizeof list) {
                        memcpy(list + used, i ? ", " : "", i ? 2 : 0);
                        used += i ? 2 : 0;
                        memcpy(list + used, t, m + 1);
                        used += m;
                    }
                }
                if (near) {
                    jl_error(L, at, "language",
                             "'%s' is not a shipped language (did you mean "
                             "'%s'?); shipped: %s; or add \"language_file\"",
                             tag, near, list);
                } else {
                    jl_error(L, at, "language",
                             "'%s' is not a shipped language; shipped: %s; "
                             "or add \"language_file\" with the translation",
                             tag, list);
                }
                lang = 0;
            }
        }
    } else {
        tag = NULL;
    }
    L->language = tag;
    if (file && !tag) {
        jl_error(L, at, "language",
                 "\"language_file\" needs \"language\": the BCP 47 tag of "
                 "its language");
    }
    UiStrings *t = ui_strings_new((size_t)lang, tag);
    if (!t) {
        L->oom = 1;
        return;
    }
    if (file) {
        load_language_file(L, t, at, file);
    }
    json_t *ui = json_object_get(root, "ui");
    if (ui) {
        JLoc ul;
        jl_child(&ul, at, "ui");
        if (!json_is_object(ui)) {
            jl_error(L, at, "ui", "must be an object of string key -> text");
        } else {
            apply_strings(L, t, &ul, ui);
        }
    }
    st->ui_strings = t;
}
