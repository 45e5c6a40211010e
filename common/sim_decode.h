/*
** Text files in any encoding glibc's iconv knows, converted to UTF-8: the
** encodings by their usual names (windows-1256, gbk, shift_jis, ...), a
** decoder that reads a file in pieces or whole and locates the first bytes
** that do not fit, and a description of such bytes for error messages.
** Used by every reader of item banks and CSV data. libc (iconv) only.
*/
#ifndef SIMLAB_COMMON_SIM_DECODE_H
#define SIMLAB_COMMON_SIM_DECODE_H

#include <stddef.h>

typedef enum SimEncodingKind {
    SIM_ENC_UTF8,  /* checked, passed on as it is */
    SIM_ENC_UTF16, /* needs a byte order mark, which tells LE from BE */
    SIM_ENC_ICONV  /* everything else, through iconv */
} SimEncodingKind;

/* An encoding, as sim_encoding_find() resolved a name. A zeroed struct is
** UTF-8. */
typedef struct SimEncoding {
    SimEncodingKind kind;
    char name[40];   /* the usual name, for messages ("windows-1256") */
    char iconv[40];  /* the name iconv_open() takes ("CP1256"); SIM_ENC_ICONV */
    int ascii;       /* the bytes 0x00-0x7F are ASCII and never part of a
                        longer character: lines can be found in the bytes */
    int single_byte; /* one byte per character */
} SimEncoding;

/* Resolves an encoding name, ignoring case: "utf-8", "utf-16" (with a byte
** order mark), "utf-16le"/"utf-16be", the usual names of Excel's code pages
** ("windows-1252" or "cp1252", "latin-1", "windows-1256", "gbk",
** "gb18030", "shift_jis"/"sjis"/"cp932", "big5", "euc-kr"/"cp949", ...)
** and any other name iconv knows ("iso-8859-7", "koi8-r"). Code pages are
** read as the Windows superset Excel writes (shift_jis as cp932, euc-kr as
** cp949, big5 as cp950, gb2312 as gbk). Returns 0, or -1 when no such
** encoding is known (*out untouched). */
int sim_encoding_find(const char *name, SimEncoding *out);

/* UTF-8, the default. */
void sim_encoding_utf8(SimEncoding *out);

/* The usual name of the code page Excel's "CSV" is written in on Windows
** set to the language tagged lang ("ar" -> "windows-1256", "ja" ->
** "shift_jis", "zh-Hant" -> "big5", "de" -> "windows-1252"); NULL for an
** unknown tag. */
const char *sim_encoding_of_language(const char *lang);

typedef enum SimDecodeKind {
    SIM_DECODE_INVALID = 1, /* bytes that are no character of the encoding */
    SIM_DECODE_CUT,         /* the file ends inside a character */
    SIM_DECODE_NO_BOM,      /* "utf-16" without a byte order mark */
    SIM_DECODE_UTF16_BOM,   /* a UTF-16 byte order mark in a file read in
                               an 8-bit encoding: the file is UTF-16 */
    SIM_DECODE_WRONG_BOM    /* utf-16le/be with the other order's mark */
} SimDecodeKind;

/* Where bytes do not fit: offsets count the file's bytes from 0. */
typedef struct SimDecodeProblem {
    SimDecodeKind kind;
    long long at;           /* the first byte that does not fit */
    long long line_start;   /* the start of its line; -1 when not known */
    long long out_at;       /* UTF-8 bytes decoded before it */
    unsigned char bytes[4]; /* the file's bytes from at */
    int n_bytes;
    int utf8_bom;    /* read as UTF-8 because it starts with UTF-8's mark */
    SimEncoding enc; /* what the bytes were read as */
} SimDecodeProblem;

/* Describes p without its line: "invalid UTF-8 at byte 9 of the line (byte
** 0xFC, byte 28 of the file)", "byte 0x81 (byte 17 of the file, byte 3 of
** the line) is not windows-1252 text", "invalid UTF-16: an unpaired
** surrogate at byte 33 of the file", "UTF-16 file with an odd number of
** bytes (cut short?)". The caller adds the advice. */
void sim_decode_describe(const SimDecodeProblem *p, char *out, size_t n);

typedef struct SimDecoder SimDecoder;

/* A decoder of one file in encoding enc (copied). With replace, bytes that
** do not fit become U+FFFD and the first such problem is kept
** (sim_decoder_problem); without it decoding stops there. Returns 0, or -1
** when out of memory or iconv cannot open the encoding. Release with
** sim_decoder_free(). */
int sim_decoder_new(SimDecoder **out, const SimEncoding *enc, int replace);
void sim_decoder_free(SimDecoder *d); /* NULL is a no-op */

/* Output room that always suffices for n input bytes. */
size_t sim_decoder_room(size_t n);

/* Decodes the next n bytes of the file at in (the first call sees its start,
** where byte order marks are read; last: no bytes follow) into out (cap
** bytes, no NUL added). *used: the bytes of in decoded; the rest (a
** character cut by the end of in, or bytes there was no room for) must
** start the next call. *made: the bytes written. Returns 0; 1 (only
** without replace) when bytes do not fit: *p says where, and *used and
** *made stop before them. */
int sim_decoder_run(SimDecoder *d, const char *in, size_t n, int last,
                    char *out, size_t cap, size_t *used, size_t *made,
                    SimDecodeProblem *p);

/* Whether the decoder checks UTF-8 in place (sim_decoder_check) instead of
** copying: UTF-8 without replace. */
int sim_decoder_in_place(const SimDecoder *d);

/* sim_decoder_run() for an in-place decoder: checks the next n bytes of the
** file, which stay where they are. *skip: bytes to drop at the start (a
** byte order mark, on the first call). Returns 0 or 1 as run does. */
int sim_decoder_check(SimDecoder *d, const char *in, size_t n, int last,
                      size_t *skip, size_t *used, SimDecodeProblem *p);

/* The first problem a replacing decoder met; NULL when none. */
const SimDecodeProblem *sim_decoder_problem(const SimDecoder *d);

/* Decodes a whole file (data, len bytes) into *out (sim_free; NUL-
** terminated, *out_len bytes). Returns 0; 1 when bytes do not fit, with *p
** describing the first (with replace the text is complete, U+FFFD in
** their place; without it *out holds the text before them); -1 when out of
** memory or the encoding cannot be opened (*out NULL). */
int sim_decode_buffer(const SimEncoding *enc, const char *data, size_t len,
                      int replace, char **out, size_t *out_len,
                      SimDecodeProblem *p);

/* The physical line (from 1) at byte n of UTF-8 text s: LF, CRLF and a CR
** alone each end a line. */
long sim_text_line_at(const char *s, size_t n);

#endif
