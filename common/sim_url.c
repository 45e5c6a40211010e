/*
** Recognising and redacting PostgreSQL URLs (see sim_url.h).
*/
#include "common/sim_url.h"

#include <string.h>

int sim_url_is_pg(const char *s)
{
    return s && (strncmp(s, "postgresql://", 13) == 0 ||
                 strncmp(s, "postgres://", 11) == 0);
}

/* Appends src[0..n) to out (size), truncating. */
static void put(char *out, size_t size, size_t *k, const char *src, size_t n)
{
    for (size_t i = 0; i < n && *k + 1 < size; i++) {
        out[(*k)++] = src[i];
    }
    out[*k < size ? *k : size - 1] = '\0';
}

/* A key=value conninfo string without its password word. */
static void redact_words(const char *s, char *out, size_t size, size_t *k)
{
    while (*s) {
        const char *w = s;
        while (*s && *s != ' ') {
            s++;
        }
        if (strncmp(w, "password=", 9) != 0) {
            if (*k > 0) {
                put(out, size, k, " ", 1);
            }
            put(out, size, k, w, (size_t)(s - w));
        } else if (w[9] == '\'') { /* quoted: skip to the closing quote */
            s = strchr(w + 10, '\'');
            s = s ? s + 1 : w + strlen(w);
        }
        while (*s == ' ') {
            s++;
        }
    }
}

void sim_url_redact(const char *url, char *out, size_t size)
{
    size_t k = 0;
    if (!size) {
        return;
    }
    out[0] = '\0';
    if (!url) {
        return;
    }
    if (!sim_url_is_pg(url)) {
        redact_words(url, out, size, &k);
        return;
    }
    const char *rest = strstr(url, "://") + 3;
    put(out, size, &k, url, (size_t)(rest - url));
    const char *end = rest + strcspn(rest, "/?");
    const char *at = NULL;
    for (const char *p = rest; p < end; p++) {
        if (*p == '@') {
            at = p;
        }
    }
    if (at) { /* user[:password]@ */
        const char *colon = memchr(rest, ':', (size_t)(at - rest));
        put(out, size, &k, rest, (size_t)((colon ? colon : at) - rest));
        rest = at;
    }
    const char *q = strchr(rest, '?');
    put(out, size, &k, rest, (size_t)((q ? q : rest + strlen(rest)) - rest));
    if (!q) {
        return;
    }
    char sep = '?';
    for (const char *p = q + 1; *p;) {
        const char *e = p + strcspn(p, "&");
        if (strncmp(p, "password=", 9) != 0) {
            put(out, size, &k, &sep, 1);
            put(out, size, &k, p, (size_t)(e - p));
            sep = '&';
        }
        p = *e ? e + 1 : e;
    }
}
