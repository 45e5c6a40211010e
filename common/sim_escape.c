/*
** Control characters written as visible escapes (see sim_escape.h).
*/
#include "common/sim_escape.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n) and its code point in
** *cp; 0 when s does not start with one. */
static size_t utf8_char(const unsigned char *s, size_t n, unsigned long *cp)
{
    unsigned char c = s[0];
    size_t len;
    unsigned long v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80u) {
            return 0;
        }
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        return 0;
    }
    *cp = v;
    return len;
}

static int is_control(unsigned long cp, unsigned flags)
{
    if ((flags & SIM_ESC_KEEP_WS) && (cp == '\t' || cp == '\r' || cp == '\n')) {
        return 0;
    }
    if ((flags & SIM_ESC_KEEP_LF) && (cp == '\t' || cp == '\n')) {
        return 0;
    }
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Walks s, appending (b not NULL) each run of characters to keep as it is
** and each character to escape as its escape. Returns the escapes. */
static size_t walk(const char *s, size_t n, unsigned flags, SimBuf *b)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, kept = 0, escaped = 0;
    while (i < n) {
        unsigned long cp = 0;
        size_t len = utf8_char(u + i, n - i, &cp);
        char esc[12] = "";
        if (len == 0) {
            len = 1;
            if (flags & SIM_ESC_BYTES) {
                snprintf(esc, sizeof esc, "\\x%02X", u[i]);
            }
        } else if (is_control(cp, flags)) {
            snprintf(esc, sizeof esc, cp < 0x100 ? "\\x%02lX" : "\\u%04lX", cp);
        }
        if (esc[0]) {
            if (b) {
                sim_buf_append(b, s + kept, i - kept);
                sim_buf_puts(b, esc);
            }
            escaped++;
            kept = i + len;
        }
        i += len;
    }
    if (b) {
        sim_buf_append(b, s + kept, n - kept);
    }
    return escaped;
}

size_t sim_escape_append(SimBuf *b, const char *s, size_t n, unsigned flags)
{
    return walk(s, n, flags, b);
}

int sim_escape_needed(const char *s, size_t n, unsigned flags)
{
    return walk(s, n, flags, NULL) > 0;
}

const char *sim_escape_term(const char *s, char *out, size_t size)
{
    if (!size) {
        return out;
    }
    out[0] = '\0';
    if (!s) {
        return out;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_escape_append(&b, s, strlen(s), SIM_ESC_BYTES);
    snprintf(out, size, "%s", sim_buf_cstr(&b));
    sim_buf_free(&b);
    return out;
}

void sim_escape_print(FILE *f, const char *prefix, const char *msg)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_escape_append(&b, msg ? msg : "", msg ? strlen(msg) : 0,
                      SIM_ESC_BYTES | SIM_ESC_KEEP_LF);
    fprintf(f, "%s%s\n", prefix, b.oom ? "(out of memory)" : sim_buf_cstr(&b));
    sim_buf_free(&b);
}
