/*
** The CSV reader (sim_csv.h): a streaming RFC 4180 parser tuned for
** simlab-analyze's large inputs. The file is read in chunks into buf (UTF-8
** checked in place, other encodings decoded into it); a record is parsed
** once it lies wholly in buf. libc (iconv, through sim_decode) only.
*/
#include "common/sim_csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

#define CSV_CHUNK (1 << 20) /* bytes read at a time (UTF-8) */
#define RAW_CHUNK (1 << 16) /* bytes decoded at a time (other encodings) */

struct SimCsvReader {
    FILE *f; /* NULL: text in memory */
    const char *path;
    char delim;
    void (*on_bytes)(void *ctx, const void *p, size_t n);
    void *ctx;
    SimDecoder *dec;
    int in_place;    /* UTF-8 read straight into buf and checked there */
    char *own;       /* buf when the reader owns it */
    const char *buf; /* the text: len bytes, parsing at pos */
    size_t cap, len, pos;
    size_t avail; /* the bytes of buf the parser may read (checked) */
    int eof;      /* nothing follows buf[avail] */
    int pending;  /* bad bytes (described in bad) end the text at avail */
    SimDecodeProblem bad;
    char *raw; /* decoded reading: file bytes not decoded yet */
    size_t raw_len;
    int raw_eof;
    long line; /* physical line at pos */
    long rec_line;
    SimBuf unq; /* quoted fields with doubled quotes, unquoted */
    SimCsvField *fields;
    size_t *unq_off; /* per field: offset into unq, or SIZE_MAX */
    int n_fields, cap_fields;
    /* bytes that end or break an unquoted field: the delimiter, LF, CR,
    ** quote, NUL */
    unsigned char special[256];
    int failed; /* the error to repeat */
    SimError error;
    SimCsvProblem problem;
};

enum { REC_OK, REC_MORE, REC_END, REC_ERR };

const char *sim_csv_problem_text(SimCsvProblemKind kind)
{
    switch (kind) {
    case SIM_CSV_QUOTE_OPEN:
        return "quoted field not closed";
    case SIM_CSV_AFTER_QUOTE:
        return "text after a closing quote";
    case SIM_CSV_BARE_QUOTE:
        return "a quote inside an unquoted field (quote the whole field and "
               "double the quote)";
    case SIM_CSV_NUL:
        return "a NUL byte in the field";
    case SIM_CSV_DECODE:
        return "bytes that do not fit the encoding";
    }
    return "?";
}

/* Spaces (and tabs, unless they delimit) around fields are dropped. */
static int blank(const SimCsvReader *R, char c)
{
    return c == ' ' || (c == '\t' && R->delim != '\t');
}

/* Sets the error every later call repeats; returns its code. */
static int fail(SimCsvReader *R, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(SimCsvReader *R, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[sizeof R->error.msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    R->failed = code;
    sim_fail(&R->error, code, "%s", msg);
    return code;
}

static int nomem(SimCsvReader *R)
{
    return fail(R, SIM_ERR_NOMEM, "out of memory");
}

/* Records a syntax problem at line in field f (0-based). */
static int syntax(SimCsvReader *R, SimCsvProblemKind kind, long line, int f,
                  size_t at)
{
    memset(&R->problem, 0, sizeof R->problem);
    R->problem.kind = kind;
    R->problem.line = line;
    R->problem.record_line = R->rec_line;
    R->problem.field = f;
    R->problem.at = at;
    fail(R, SIM_ERR_PARSE, "%s:%ld: field %d: %s", R->path, line, f + 1,
         sim_csv_problem_text(kind));
    return REC_ERR;
}

/* The bad bytes that end the text are reached. */
static int bad_bytes(SimCsvReader *R)
{
    memset(&R->problem, 0, sizeof R->problem);
    R->problem.kind = SIM_CSV_DECODE;
    R->problem.field = -1;
    R->problem.line =
        R->line - 1 + sim_text_line_at(R->buf + R->pos, R->avail - R->pos);
    R->problem.decode = R->bad;
    char what[300];
    sim_decode_describe(&R->bad, what, sizeof what);
    return fail(R, SIM_ERR_PARSE, "%s:%ld: %s", R->path, R->problem.line, what);
}

static int push_field(SimCsvReader *R, const char *p, size_t n, size_t unq_off)
{
    if (R->n_fields == R->cap_fields) {
        size_t cap = (size_t)R->cap_fields, cap2 = cap;
        if (sim_grow((void **)&R->fields, &cap, (size_t)R->n_fields + 1,
                     sizeof *R->fields) != 0 ||
            sim_grow((void **)&R->unq_off, &cap2, (size_t)R->n_fields + 1,
                     sizeof *R->unq_off) != 0) {
            return nomem(R);
        }
        R->cap_fields = (int)(cap < cap2 ? cap : cap2);
    }
    R->fields[R->n_fields].p = p;
    R->fields[R->n_fields].n = n;
    R->unq_off[R->n_fields] = unq_off;
    R->n_fields++;
    return SIM_OK;
}

/* Parses the record at pos. REC_MORE: buf ends inside it (pos and line
** untouched); REC_END: no record left; REC_ERR: R->failed is set. */
static int csv_record(SimCsvReader *R)
{
    if (!R->buf) { /* nothing read yet, or an empty text */
        return R->eof ? REC_END : REC_MORE;
    }
    const char *b = R->buf, *end = R->buf + R->avail;
    const char *s = b + R->pos;
    long line = R->line;
    /* blank lines */
    for (;;) {
        const char *t = s;
        while (t < end && blank(R, *t)) {
            t++;
        }
        if (t == end) {
            if (!R->eof) {
                return REC_MORE;
            }
            R->pos = R->avail;
            R->line = line;
            return REC_END;
        }
        if (*t == '\n') {
            s = t + 1;
        } else if (*t == '\r') {
            if (t + 1 == end && !R->eof) {
                return REC_MORE;
            }
            s = t + 1 + (t + 1 < end && t[1] == '\n');
        } else {
            break;
        }
        line++;
        R->pos = (size_t)(s - b);
        R->line = line;
    }
    R->rec_line = line;
    R->n_fields = 0;
    R->unq.len = 0;
    for (;;) {
        int f = R->n_fields;
        while (s < end && blank(R, *s)) {
            s++;
        }
        const char *fp;
        size_t fn, uoff = SIZE_MAX;
        long fline = line; /* the line the field starts on */
        int nul = 0;
        if (s < end && *s == '"') {
            const char *q = ++s;
            int doubled = 0;
            for (;;) {
                const char *c = memchr(q, '"', (size_t)(end - q));
                if (!c) {
                    if (!R->eof) {
                        return REC_MORE;
                    }
                    return syntax(R, SIM_CSV_QUOTE_OPEN, R->rec_line, f, 0);
                }
                if (c + 1 == end && !R->eof) {
                    return REC_MORE;
                }
                if (c + 1 < end && c[1] == '"') {
                    doubled = 1;
                    q = c + 2;
                    continue;
                }
                fp = s;
                fn = (size_t)(c - s);
                s = c + 1;
                break;
            }
            nul = memchr(fp, '\0', fn) != NULL;
            /* newlines inside the field */
            for (size_t i = 0; i < fn; i++) {
                line += fp[i] == '\n' ||
                        (fp[i] == '\r' && (i + 1 == fn || fp[i + 1] != '\n'));
            }
            if (doubled) {
                uoff = R->unq.len;
                for (size_t i = 0; i < fn; i++) {
                    sim_buf_append(&R->unq, fp + i, 1);
                    i += fp[i] == '"';
                }
                if (R->unq.oom) {
                    nomem(R);
                    return REC_ERR;
                }
                fn = R->unq.len - uoff;
                fp = R->unq.data + uoff;
            }
            while (s < end && blank(R, *s)) {
                s++;
            }
            if (s < end && *s != R->delim && *s != '\n' && *s != '\r') {
                return syntax(R, SIM_CSV_AFTER_QUOTE, line, f, 0);
            }
        } else {
            fp = s;
            while (s < end && !R->special[(unsigned char)*s]) {
                s++;
            }
            while (s < end && *s != R->delim && *s != '\n' && *s != '\r') {
                if (*s == '"') {
                    return syntax(R, SIM_CSV_BARE_QUOTE, line, f, 0);
                }
                nul |= *s == '\0'; /* reported below */
                s++;
            }
            fn = (size_t)(s - fp);
            while (fn > 0 && blank(R, fp[fn - 1])) {
                fn--;
            }
        }
        if (s == end && !R->eof) {
            return REC_MORE;
        }
        if (nul) {
            size_t at = (size_t)((const char *)memchr(fp, '\0', fn) - fp);
            return syntax(R, SIM_CSV_NUL, fline - 1 + sim_text_line_at(fp, at),
                          f, at);
        }
        if (push_field(R, fp, fn, uoff) != SIM_OK) {
            return REC_ERR;
        }
        if (s < end && *s == R->delim) {
            s++;
            continue;
        }
        /* end of record */
        if (s < end && *s == '\r') {
            if (s + 1 == end && !R->eof) {
                return REC_MORE;
            }
            s += 1 + (s + 1 < end && s[1] == '\n');
            line++;
        } else if (s < end) {
            s++;
            line++;
        }
        break;
    }
    for (int f = 0; R->unq.len > 0 && f < R->n_fields; f++) {
        if (R->unq_off[f] != SIZE_MAX) { /* unq may have moved */
            R->fields[f].p = R->unq.data + R->unq_off[f];
        }
    }
    R->pos = (size_t)(s - b);
    R->line = line;
    return REC_OK;
}

/* Grows the owned buffer to hold need bytes. */
static int room(SimCsvReader *R, size_t need)
{
    if (need <= R->cap) {
        return SIM_OK;
    }
    size_t cap = R->cap ? R->cap : CSV_CHUNK;
    while (cap < need) {
        cap *= 2;
    }
    char *nb = sim_realloc(R->own, cap);
    if (!nb) {
        return nomem(R);
    }
    R->own = nb;
    R->buf = nb;
    R->cap = cap;
    return SIM_OK;
}

static int read_error(SimCsvReader *R)
{
    return fail(R, SIM_ERR_IO, "%s: read error: %s", R->path, strerror(errno));
}

/* UTF-8: appends a chunk of the file to buf and checks it there; the
** parser sees the bytes checked (avail), not a character the chunk cut. */
static int fill_in_place(SimCsvReader *R)
{
    if (R->len == R->cap && room(R, R->cap * 2) != SIM_OK) {
        return R->failed;
    }
    size_t got = fread(R->own + R->len, 1, R->cap - R->len, R->f);
    int file_eof = 0;
    if (got == 0) {
        if (ferror(R->f)) {
            return read_error(R);
        }
        file_eof = 1;
    }
    if (R->on_bytes && got > 0) {
        R->on_bytes(R->ctx, R->own + R->len, got);
    }
    R->len += got;
    size_t skip, used;
    int rc = sim_decoder_check(R->dec, R->own + R->avail, R->len - R->avail,
                               file_eof, &skip, &used, &R->bad);
    R->pos += skip; /* a byte order mark, at the start */
    R->avail += used;
    if (rc != 0) {
        R->pending = 1;
    } else {
        R->eof = file_eof;
    }
    return SIM_OK;
}

/* Other encodings: reads a chunk of the file and appends it decoded. */
static int fill_decoded(SimCsvReader *R)
{
    if (!R->raw && !(R->raw = sim_malloc(RAW_CHUNK))) {
        return nomem(R);
    }
    if (!R->raw_eof) {
        size_t got =
            fread(R->raw + R->raw_len, 1, RAW_CHUNK - R->raw_len, R->f);
        if (got == 0) {
            if (ferror(R->f)) {
                return read_error(R);
            }
            R->raw_eof = 1;
        }
        if (R->on_bytes && got > 0) {
            R->on_bytes(R->ctx, R->raw + R->raw_len, got);
        }
        R->raw_len += got;
    }
    if (room(R, R->len + sim_decoder_room(R->raw_len)) != SIM_OK) {
        return R->failed;
    }
    size_t used, made;
    int rc =
        sim_decoder_run(R->dec, R->raw, R->raw_len, R->raw_eof, R->own + R->len,
                        R->cap - R->len, &used, &made, &R->bad);
    R->len += made;
    R->avail = R->len;
    memmove(R->raw, R->raw + used, R->raw_len - used);
    R->raw_len -= used;
    if (rc != 0) {
        R->pending = 1;
    } else if (R->raw_eof && R->raw_len == 0) {
        R->eof = 1;
    }
    return SIM_OK;
}

static int fill(SimCsvReader *R)
{
    if (R->pending) {
        return bad_bytes(R);
    }
    if (!R->f) {
        R->eof = 1;
        return SIM_OK;
    }
    if (R->pos > 0) {
        memmove(R->own, R->own + R->pos, R->len - R->pos);
        R->len -= R->pos;
        R->avail -= R->pos;
        R->pos = 0;
    }
    return R->in_place ? fill_in_place(R) : fill_decoded(R);
}

static int open_reader(SimCsvReader **out, FILE *f, const char *path,
                       const SimCsvOptions *o, SimError *err)
{
    *out = NULL;
    SimCsvReader *R = sim_calloc(1, sizeof *R);
    if (!R) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    R->f = f;
    R->path = path ? path : "(text)";
    R->delim = o && o->delim ? o->delim : ',';
    R->on_bytes = o ? o->on_bytes : NULL;
    R->ctx = o ? o->ctx : NULL;
    R->line = 1;
    sim_buf_init(&R->unq);
    R->special[(unsigned char)R->delim] = 1;
    R->special['\n'] = R->special['\r'] = R->special['"'] = 1;
    R->special[0] = 1;
    const SimEncoding *enc = o ? o->encoding : NULL;
    if (sim_decoder_new(&R->dec, enc, 0) != 0) {
        const char *where = R->path; /* the caller's: R goes */
        sim_csv_close(R);
        return sim_fail(err, SIM_ERR_INVALID, "%s: encoding '%s': %s", where,
                        enc ? enc->name : "utf-8",
                        "cannot be read (out of memory, or unknown to iconv)");
    }
    R->in_place =
        sim_decoder_in_place(R->dec) && (!enc || enc->kind == SIM_ENC_UTF8);
    *out = R;
    return SIM_OK;
}

int sim_csv_open_file(SimCsvReader **out, FILE *f, const char *path,
                      const SimCsvOptions *o, SimError *err)
{
    int rc = open_reader(out, f, path, o, err);
    if (rc == SIM_OK && (*out)->in_place && room(*out, CSV_CHUNK) != SIM_OK) {
        sim_csv_close(*out);
        *out = NULL;
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return rc;
}

int sim_csv_open_text(SimCsvReader **out, const char *data, size_t n,
                      const char *path, const SimCsvOptions *o, SimError *err)
{
    int rc = open_reader(out, NULL, path, o, err);
    if (rc != SIM_OK) {
        return rc;
    }
    SimCsvReader *R = *out;
    if (R->on_bytes && n > 0) {
        R->on_bytes(R->ctx, data, n);
    }
    R->eof = 1;
    if (R->in_place) {
        size_t skip, used;
        R->buf = data;
        R->len = n;
        if (sim_decoder_check(R->dec, data, n, 1, &skip, &used, &R->bad)) {
            R->pending = 1;
            R->eof = 0;
        }
        R->avail = used;
        R->pos = skip;
        return SIM_OK;
    }
    char *text = NULL;
    size_t len = 0;
    const SimEncoding *enc = o ? o->encoding : NULL;
    int d = sim_decode_buffer(enc, data, n, 0, &text, &len, &R->bad);
    if (d < 0) {
        sim_csv_close(R);
        *out = NULL;
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    R->own = text;
    R->buf = text;
    R->len = R->avail = len;
    R->cap = len;
    if (d > 0) {
        R->pending = 1;
        R->eof = 0;
    }
    return SIM_OK;
}

void sim_csv_close(SimCsvReader *r)
{
    if (!r) {
        return;
    }
    sim_decoder_free(r->dec);
    sim_free(r->own);
    sim_free(r->raw);
    sim_buf_free(&r->unq);
    sim_free(r->fields);
    sim_free(r->unq_off);
    sim_free(r);
}

int sim_csv_next(SimCsvReader *r, SimCsvRecord *rec, SimError *err)
{
    while (!r->failed) {
        int got = csv_record(r);
        if (got == REC_OK) {
            rec->fields = r->fields;
            rec->n = r->n_fields;
            rec->line = r->rec_line;
            return 1;
        }
        if (got == REC_END) {
            return 0;
        }
        if (got == REC_MORE && fill(r) == SIM_OK) {
            continue;
        }
    }
    if (err) {
        *err = r->error;
    }
    return r->failed;
}

const SimCsvProblem *sim_csv_problem(const SimCsvReader *r)
{
    return r->failed == SIM_ERR_PARSE ? &r->problem : NULL;
}

char sim_csv_other_delimiter(const char *s, size_t n, char delim)
{
    static const char cands[3] = {',', ';', '\t'};
    size_t count[3] = {0, 0, 0};
    int quoted = 0;
    for (size_t i = 0; i < n && s[i] != '\n'; i++) {
        if (s[i] == '"') {
            quoted = !quoted;
        }
        for (int c = 0; c < 3 && !quoted; c++) {
            count[c] += s[i] == cands[c];
        }
    }
    int mine = delim == ';' ? 1 : delim == '\t' ? 2 : 0;
    if (count[mine] > 0) {
        return 0;
    }
    char other = 0;
    for (int c = 0; c < 3; c++) {
        if (c != mine && count[c] > 0) {
            if (other) {
                return 0; /* ambiguous */
            }
            other = cands[c];
        }
    }
    return other;
}
