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

/* Trims ASCII whitespace at both ends in place; returns s. */
char *sim_trim(char *s);

#endif
