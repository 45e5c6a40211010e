/*
** SimBuf (growable string) and UTF-8 validation. libc only.
*/
#include "common/sim_text.h"
#include "common/sim_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sim_buf_init(SimBuf *b)
{
    memset(b, 0, sizeof *b);
}

void sim_buf_free(SimBuf *b)
{
    sim_free(b->data);
    sim_buf_init(b);
}

static int reserve(SimBuf *b, size_t extra)
{
    if (b->oom) {
        return -1;
    }
    if (sim_grow((void **)&b->data, &b->cap, b->len + extra + 1, 1) != 0) {
        b->oom = 1;
        return -1;
    }
    return 0;
}

void sim_buf_append(SimBuf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0) {
        return;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sim_buf_puts(SimBuf *b, const char *s)
{
    sim_buf_append(b, s, strlen(s));
}

void sim_buf_printf(SimBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) != 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *sim_buf_cstr(SimBuf *b)
{
    return b->data ? b->data : "";
}

char *sim_buf_take(SimBuf *b)
{
    char *s = b->data ? b->data : sim_strdup("");
    sim_buf_init(b);
    return s;
}

int sim_utf8_valid(const char *str, size_t n, size_t *bad_offset)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            len = 2;
            min = 0x80;
            c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            min = 0x800;
            c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            min = 0x10000;
            c &= 0x07;
        } else {
            goto bad;
        }
        if (i + len > n) {
            goto bad;
        }
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                goto bad;
            }
            c = (c << 6) | (s[i + k] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
            goto bad;
        }
        i += len;
    }
    return 1;
bad:
    if (bad_offset) {
        *bad_offset = i;
    }
    return 0;
}

char *sim_format_int(char *out, const char *prefix, long long v)
{
    size_t at = 0;
    for (; prefix && prefix[at]; at++) {
        out[at] = prefix[at];
    }
    /* the magnitude as unsigned, so that LLONG_MIN does not overflow */
    unsigned long long m =
        v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m > 0);
    if (v < 0) {
        out[at++] = '-';
    }
    while (n > 0) {
        out[at++] = digits[--n];
    }
    out[at] = '\0';
    return out;
}

char *sim_trim(char *s)
{
    char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
        p++;
    }
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' ||
                     p[n - 1] == '\n')) {
        n--;
    }
    memmove(s, p, n);
    s[n] = '\0';
    return s;
}

size_t sim_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) {
        return 99;
    }
    size_t row[64];
    for (size_t j = 0; j <= lb; j++) {
        row[j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = (a[i - 1] | 32) == (b[j - 1] | 32);
            size_t best = diag + (same ? 0 : 1);
            if (row[j] + 1 < best) {
                best = row[j] + 1;
            }
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

size_t sim_suggest_limit(const char *s)
{
    size_t limit = strlen(s) / 3;
    return limit < 2 ? 2 : limit;
}

const char *sim_suggest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = 99;
    for (size_t i = 0; s && names && i < n && names[i]; i++) {
        size_t d = sim_edit_distance(s, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return s && best_d <= sim_suggest_limit(s) ? best : NULL;
}

size_t sim_utf8_put(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
