/*
** Small string helpers shared by the libraries: a growable buffer and UTF-8
** checks. libc only.
*/
#ifndef SIMLAB_COMMON_SIM_TEXT_H
#define SIMLAB_COMMON_SIM_TEXT_H

#include <stddef.h>

typedef struct SimBuf {
    char *data; /* NUL-terminated when len > 0 or after sim_buf_cstr() */
    size_t len; /* bytes used, without the NUL */
    size_t cap; /* bytes allocated */
    int oom;    /* sticky: set once an append failed */
} SimBuf;

void sim_buf_init(SimBuf *b);
void sim_buf_free(SimBuf *b);
void sim_buf_append(SimBuf *b, const char *s, size_t n);
void sim_buf_puts(SimBuf *b, const char *s);
void sim_buf_printf(SimBuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Returns the contents as a C string ("" when empty); owned by b. */
const char *sim_buf_cstr(SimBuf *b);
/* Hands the contents to the caller (who frees with sim_free); b is reset. */
char *sim_buf_take(SimBuf *b);

/* Returns 1 when s[0..n) is valid UTF-8, else 0 and *bad_offset (may be
** NULL) is set to the first invalid byte. */
int sim_utf8_valid(const char *s, size_t n, size_t *bad_offset);

/* Writes code point cp (at most U+10FFFF) as UTF-8 into out (room for 4
** bytes); returns the number of bytes written. */
size_t sim_utf8_put(char *out, unsigned long cp);

/* Writes prefix (may be NULL) and the decimal digits of v into out, which
** has room for the prefix and 21 more bytes; returns out. Without
** snprintf's format parsing, for rows built by the million. */
char *sim_format_int(char *out, const char *prefix, long long v);

/* Trims ASCII whitespace at both ends in place; returns s. */
char *sim_trim(char *s);

/* Levenshtein distance of a and b, ASCII letters compared without case;
** 99 when either is longer than 63 bytes. */
size_t sim_edit_distance(const char *a, const char *b);
/* How far a name may be from s to be suggested for it: a third of its
** length, at least 2 edits. */
size_t sim_suggest_limit(const char *s);
/* The name among names[0..n) (a NULL entry ends the list early) closest to
** s, when it is within sim_suggest_limit(s) edits; else NULL. For "did you
** mean" hints. Borrowed from names. */
const char *sim_suggest(const char *s, const char *const *names, size_t n);

#endif
