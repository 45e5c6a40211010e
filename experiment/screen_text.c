/*
** The screen model's arena and text helpers (screen_int.h): numbers in the
** study's language, substitutions into the string table's formats, the
** arrow of an edit. libc only.
*/
#include "experiment/screen_model_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

/* ----------------------------------------------------------------- arena */

#define ARENA_CHUNK 16384

typedef struct ArenaChunk {
    struct ArenaChunk *next;
    size_t size; /* bytes of data */
    max_align_t data[];
} ArenaChunk;

void *arena_alloc(ScreenArena *a, size_t n)
{
    size_t al = sizeof(max_align_t);
    n = (n + al - 1) / al * al;
    if (n == 0) {
        n = al;
    }
    if (n > a->left) {
        size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        ArenaChunk *c = sim_malloc(sizeof *c + size);
        if (!c) {
            a->oom = 1;
            return NULL;
        }
        c->size = size;
        c->next = a->chunks;
        a->chunks = c;
        a->next = (char *)c->data;
        a->left = size;
    }
    void *p = a->next;
    a->next += n;
    a->left -= n;
    memset(p, 0, n);
    return p;
}

void *arena_array(ScreenArena *a, size_t count, size_t size)
{
    if (count == 0) {
        return NULL;
    }
    if (size && count > SIZE_MAX / size) {
        a->oom = 1;
        return NULL;
    }
    return arena_alloc(a, count * size);
}

char *arena_strndup(ScreenArena *a, const char *s, size_t n)
{
    if (!s) {
        return NULL;
    }
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *arena_strdup(ScreenArena *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(ScreenArena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return arena_strdup(a, "");
    }
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p) {
        return NULL;
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_reset(ScreenArena *a)
{
    ArenaChunk *keep = NULL;
    ArenaChunk *c = a->chunks;
    while (c) {
        ArenaChunk *next = c->next;
        if (!next) {
            keep = c; /* the oldest: the first chunk */
        } else {
            sim_free(c);
        }
        c = next;
    }
    a->chunks = keep;
    if (keep) {
        keep->next = NULL;
        a->next = (char *)keep->data;
        a->left = keep->size;
    } else {
        a->next = NULL;
        a->left = 0;
    }
    a->oom = 0;
}

void arena_free(ScreenArena *a)
{
    ArenaChunk *c = a->chunks;
    while (c) {
        ArenaChunk *next = c->next;
        sim_free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------ text */

void screen_format_num(const UiStrings *strings, double v, int decimals,
                       int sign, char *out, size_t n)
{
    if (decimals < 0) {
        decimals = 0;
    } else if (decimals > 9) {
        decimals = 9;
    }
    if (!isfinite(v)) {
        snprintf(out, n, "?");
        return;
    }
    char digits[64];
    snprintf(digits, sizeof digits, "%.*f", decimals, fabs(v));
    /* a value that rounds to zero carries no sign */
    int zero = 1;
    for (const char *p = digits; *p; p++) {
        zero &= *p == '0' || *p == '.';
    }
    const char *dec = ui_str(strings, UI_NUMBER_DECIMAL);
    if (!dec || !*dec) {
        dec = ".";
    }
    const char *pre = zero ? "" : v < 0 ? "\xE2\x88\x92" : sign ? "+" : "";
    char *dot = strchr(digits, '.');
    if (dot) {
        *dot = '\0';
        snprintf(out, n, "%s%s%s%s", pre, digits, dec, dot + 1);
    } else {
        snprintf(out, n, "%s%s", pre, digits);
    }
}

char *arena_num(ScreenArena *a, const UiStrings *s, double v, int decimals,
                int sign)
{
    char buf[64];
    screen_format_num(s, v, decimals, sign, buf, sizeof buf);
    return arena_strdup(a, buf);
}

char *arena_subst(ScreenArena *a, const char *fmt, const char *spec,
                  const char *value)
{
    const char *p = spec && *spec ? strstr(fmt, spec) : NULL;
    char *out = p ? arena_printf(a, "%.*s%s%s", (int)(p - fmt), fmt, value,
                                 p + strlen(spec))
                  : arena_strdup(a, fmt);
    if (!out) {
        return NULL;
    }
    char *w = out;
    for (const char *r = out; *r; r++) {
        *w++ = *r;
        if (r[0] == '%' && r[1] == '%') {
            r++;
        }
    }
    *w = '\0';
    return out;
}

/* The next code point of s[0..n) at *i (U+FFFD for a bad byte). */
static uint32_t next_cp(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    uint32_t c = p[0];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || *i + len > n) {
        (*i)++;
        return 0xFFFD;
    }
    if (len > 1) {
        c &= 0x3Fu >> (len - 1);
        for (size_t k = 1; k < len; k++) {
            c = (c << 6) | (p[k] & 0x3Fu);
        }
    }
    *i += len;
    return c;
}

/* A character's strong direction: 1 right to left (Hebrew, Arabic,
** Syriac, Thaana, N'Ko and their presentation forms), 0 a letter of
** another script, -1 neither (digits, punctuation, symbols, spaces). */
static int strong_dir(uint32_t c)
{
    if (c < 0x80) {
        return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ? 0 : -1;
    }
    if ((c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9) ||
        (c >= 0x064B && c <= 0x065F) || c == 0x0670) {
        return -1; /* Arabic digits and marks */
    }
    if ((c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) ||
        (c >= 0xFE70 && c <= 0xFEFF) || (c >= 0x10800 && c <= 0x10FFF) ||
        (c >= 0x1E800 && c <= 0x1EFFF)) {
        return 1;
    }
    if (c < 0xC0 || (c >= 0x2000 && c <= 0x2BFF) ||
        (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE00 && c <= 0xFE6F) ||
        (c >= 0xFF00 && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
        (c >= 0xFF5B && c <= 0xFF65) || c == 0xFFFD ||
        (c >= 0x1F000 && c <= 0x1FAFF)) {
        return -1; /* Latin-1 signs, punctuation, symbols, emoji */
    }
    return 0;
}

static int text_dir(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    for (size_t i = 0; i < n;) {
        int d = strong_dir(next_cp(s, n, &i));
        if (d >= 0) {
            return d;
        }
    }
    return -1;
}

const char *screen_arrow(const char *from, const char *to, int rtl)
{
    /* The arrow itself is neutral: the line takes the direction of the
    ** first strong character of from, else of to, else the study's. */
    int d = text_dir(from);
    if (d < 0) {
        d = text_dir(to);
    }
    if (d < 0) {
        d = rtl;
    }
    return d == 1 ? "\xE2\x86\x90" : "\xE2\x86\x92";
}

void screen_fill(const char *fmt, const char *s, int d, char *out, size_t n)
{
    size_t o = 0;
    if (n == 0) {
        return;
    }
    for (const char *p = fmt ? fmt : ""; *p && o + 1 < n; p++) {
        char num[24];
        const char *put = NULL;
        if (p[0] == '%' && p[1] == 's') {
            put = s ? s : "";
        } else if (p[0] == '%' && p[1] == 'd') {
            snprintf(num, sizeof num, "%d", d);
            put = num;
        } else if (p[0] == '%' && p[1] == '%') {
            put = "%";
        }
        if (!put) {
            out[o++] = *p;
            continue;
        }
        p++;
        size_t len = strlen(put);
        if (len > n - 1 - o) {
            len = n - 1 - o;
        }
        memcpy(out + o, put, len);
        o += len;
    }
    out[o] = '\0';
}
