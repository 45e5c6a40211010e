/*
** study.json "online": the completion code and link that `simlab serve`
** shows a participant once their last response is stored, and who may
** continue a run from another browser (docs/online.md).
** Checked like every other field, before any participant starts. libc and
** jansson only.
*/
#include "stimuli/online.h"

#include <stdio.h>
#include <string.h>

/* Longest completion code and URL accepted. */
#define ONLINE_CODE_MAX 64
#define ONLINE_URL_MAX  2048

static int code_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Characters a URL may hold as written in a link: printable ASCII except
** space, quotes, angle brackets and backslash. */
static int url_char(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '<' &&
           c != '>' && c != '\\' && c != '`';
}

static void parse_code(Loader *L, const JLoc *at, json_t *o)
{
    const char *code = NULL;
    if (jget_str(L, at, o, "completion_code", 0, &code) != 1) {
        return;
    }
    size_t n = strlen(code);
    if (n == 0 || n > ONLINE_CODE_MAX) {
        jl_error(L, at, "completion_code", "must be 1 to %d characters long",
                 ONLINE_CODE_MAX);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!code_char((unsigned char)code[i])) {
            jl_error(L, at, "completion_code",
                     "'%s': use letters, digits, '-' and '_' only", code);
            return;
        }
    }
    L->st->online.completion_code = ld_strdup(L, code);
}

static void parse_url(Loader *L, const JLoc *at, json_t *o)
{
    const char *url = NULL;
    if (jget_str(L, at, o, "completion_url", 0, &url) != 1) {
        return;
    }
    size_t n = strlen(url);
    if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0) {
        jl_error(L, at, "completion_url",
                 "'%.80s': must start with https:// (or http://)", url);
        return;
    }
    if (n > ONLINE_URL_MAX) {
        jl_error(L, at, "completion_url", "longer than %d characters",
                 ONLINE_URL_MAX);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (!url_char((unsigned char)url[i])) {
            jl_error(L, at, "completion_url",
                     "character %zu is not allowed in a link (spaces, "
                     "quotes, angle brackets and non-ASCII characters must "
                     "be percent-encoded)",
                     i + 1);
            return;
        }
    }
    L->st->online.completion_url = ld_strdup(L, url);
}

static void parse_resume(Loader *L, const JLoc *at, json_t *o)
{
    const char *v = NULL;
    if (jget_str(L, at, o, "resume", 0, &v) != 1) {
        return;
    }
    static const char *const names[] = {"token", "session", "code", "id", NULL};
    for (int i = 0; names[i]; i++) {
        if (strcmp(v, names[i]) == 0) {
            L->st->online.resume = (OnlineResume)(ONLINE_RESUME_TOKEN + i);
            return;
        }
    }
    jl_error(L, at, "resume",
             "'%.40s': use \"token\", \"session\", \"code\" or \"id\"", v);
}

void online_parse(Loader *L, json_t *root, const JLoc *at)
{
    json_t *o = json_object_get(root, "online");
    if (!o) {
        return;
    }
    if (!json_is_object(o)) {
        jl_error(L, at, "online", "must be an object");
        return;
    }
    JLoc ol;
    jl_child(&ol, at, "online");
    static const char *const known[] = {"completion_code", "completion_url",
                                        "resume", NULL};
    jreject_unknown(L, &ol, o, known);
    parse_code(L, &ol, o);
    parse_url(L, &ol, o);
    parse_resume(L, &ol, o);
    OnlineSpec *on = &L->st->online;
    if (!json_object_get(o, "completion_code") &&
        !json_object_get(o, "completion_url") &&
        !json_object_get(o, "resume")) {
        jl_error(L, at, "online",
                 "give a completion_code (Prolific's completion link is made "
                 "from it) or a completion_url");
        return;
    }
    if (on->completion_code && !on->completion_url &&
        !json_object_get(o, "completion_url")) {
        char buf[sizeof ONLINE_PROLIFIC_URL + ONLINE_CODE_MAX];
        snprintf(buf, sizeof buf, "%s%s", ONLINE_PROLIFIC_URL,
                 on->completion_code);
        on->completion_url = ld_strdup(L, buf);
    }
}
