/*
** The one CSV reader of simlab (RFC 4180, strict): records from a file
** read in chunks or from text in memory, in any encoding of sim_decode.h,
** each with the physical line it starts on; syntax errors and bytes that
** do not fit the encoding are located (line, field, byte). Item banks,
** explanation sources and simlab-analyze's input read through it. libc
** (iconv) only.
*/
#ifndef SIMLAB_COMMON_SIM_CSV_H
#define SIMLAB_COMMON_SIM_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "common/sim_decode.h"
#include "common/sim_error.h"

/* A field of the current record: n bytes of UTF-8 at p (not NUL-
** terminated), borrowed until the next sim_csv_next(). */
typedef struct SimCsvField {
    const char *p;
    size_t n;
} SimCsvField;

typedef enum SimCsvProblemKind {
    SIM_CSV_QUOTE_OPEN = 1, /* a quoted field is not closed */
    SIM_CSV_AFTER_QUOTE,    /* text after a closing quote */
    SIM_CSV_BARE_QUOTE,     /* a quote inside an unquoted field */
    SIM_CSV_NUL,            /* a NUL byte in a field */
    SIM_CSV_DECODE          /* bytes that do not fit the encoding */
} SimCsvProblemKind;

/* Where the reader stopped on bad input. */
typedef struct SimCsvProblem {
    SimCsvProblemKind kind;
    long line;               /* the physical line of the fault, from 1 */
    long record_line;        /* the line its record starts on (0: between) */
    int field;               /* 0-based field of the record; -1 when none */
    size_t at;               /* SIM_CSV_NUL: its byte in the field, from 0 */
    SimDecodeProblem decode; /* SIM_CSV_DECODE */
} SimCsvProblem;

/* The problem in words ("quoted field not closed", "text after a closing
** quote", "a quote inside an unquoted field (quote the whole field and
** double the quote)", "a NUL byte in the field"); for SIM_CSV_DECODE the
** caller describes p->decode (sim_decode_describe). */
const char *sim_csv_problem_text(SimCsvProblemKind kind);

typedef struct SimCsvOptions {
    char delim;                  /* ',', ';' or '\t' */
    const SimEncoding *encoding; /* NULL: UTF-8 */
    /* called with the file's bytes as read (e.g. to hash them); may be
    ** NULL */
    void (*on_bytes)(void *ctx, const void *p, size_t n);
    void *ctx;
} SimCsvOptions;

typedef struct SimCsvReader SimCsvReader;

/* A reader of the file f (opened "rb", borrowed; path names it in
** messages, borrowed) in the options' dialect. Spaces (and tabs, unless
** they delimit) around fields are dropped; blank lines between records
** are skipped; LF, CRLF and a CR alone end lines; a byte order mark is
** skipped. Returns SIM_OK, or SIM_ERR_NOMEM / SIM_ERR_INVALID (an encoding
** iconv cannot open) with *out NULL. Release with sim_csv_close(). */
int sim_csv_open_file(SimCsvReader **out, FILE *f, const char *path,
                      const SimCsvOptions *o, SimError *err);

/* A reader of n bytes of text at data (borrowed until the reader is
** closed), in the options' encoding, as sim_csv_open_file() reads files. */
int sim_csv_open_text(SimCsvReader **out, const char *data, size_t n,
                      const char *path, const SimCsvOptions *o, SimError *err);

void sim_csv_close(SimCsvReader *r); /* NULL is a no-op */

/* A record: its fields (borrowed until the next sim_csv_next) and the
** physical line on which it starts, from 1. */
typedef struct SimCsvRecord {
    const SimCsvField *fields;
    int n;
    long line;
} SimCsvRecord;

/* Reads the next record into *rec. Returns 1 with a record, 0 at the end
** of the file, or an error code with err set: SIM_ERR_PARSE when the input
** is bad (sim_csv_problem says where; err holds "PATH:LINE: field N:
** what"), SIM_ERR_IO, SIM_ERR_NOMEM. After an error the reader only
** repeats it. */
int sim_csv_next(SimCsvReader *r, SimCsvRecord *rec, SimError *err);

/* What was wrong after SIM_ERR_PARSE; NULL otherwise. */
const SimCsvProblem *sim_csv_problem(const SimCsvReader *r);

/* The delimiter the first line of text s (n bytes, up to its first LF)
** splits on, outside quotes, when it is not delim but exactly one other
** of ',', ';' and tab; else 0 (it splits on delim, or on no candidate,
** or on two: a one-column file). */
char sim_csv_other_delimiter(const char *s, size_t n, char delim);

#endif
