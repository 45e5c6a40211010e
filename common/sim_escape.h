/*
** Control characters made visible: text that came from a station file, a
** server or a participant is escaped before it reaches a terminal, and
** neutralised in CSV cells, so that it can neither drive the terminal
** (escape sequences) nor reorder what a reader sees (bidirectional
** controls). One escape syntax everywhere: \xHH for a byte, \uHHHH for a
** code point. libc only.
*/
#ifndef SIMLAB_COMMON_SIM_ESCAPE_H
#define SIMLAB_COMMON_SIM_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include "common/sim_text.h"

/* What sim_escape_append() escapes: C0 controls (U+0000-U+001F), DEL,
** C1 controls (U+0080-U+009F) and the bidirectional embeddings, overrides
** and isolates U+202A-U+202E and U+2066-U+2069, always; with
** SIM_ESC_KEEP_WS tab, CR and LF stay as they are (CSV cells, which are
** then quoted); with SIM_ESC_BYTES a byte that is not valid UTF-8 is
** escaped as \xHH too (terminals); with SIM_ESC_KEEP_LF tab and LF stay
** (messages of several lines). */
#define SIM_ESC_KEEP_WS 1u
#define SIM_ESC_BYTES   2u
#define SIM_ESC_KEEP_LF 4u

/* Appends s[0..n) to b (n bytes: a NUL inside is escaped as \x00, never
** ends the text) with every character of the set above written as \xHH
** (C0, DEL, C1 and bad bytes) or \uHHHH (bidirectional controls). Returns
** the number of characters escaped. */
size_t sim_escape_append(SimBuf *b, const char *s, size_t n, unsigned flags);

/* 1 when s[0..n) holds a character sim_escape_append() would escape with
** these flags. */
int sim_escape_needed(const char *s, size_t n, unsigned flags);

/* s escaped for a terminal (SIM_ESC_BYTES, whitespace escaped too) into
** out, truncated to size; returns out. NULL prints as "". */
const char *sim_escape_term(const char *s, char *out, size_t size);

/* Prints "prefix" then msg escaped for a terminal (lines and tabs kept,
** SIM_ESC_BYTES) and a newline to f: an error message that may quote
** names or texts from a file or a server. */
void sim_escape_print(FILE *f, const char *prefix, const char *msg);

#endif
