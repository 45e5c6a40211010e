/*
** CSV files read whole with libcsv into a table of strings, each record
** tagged with the physical line on which it starts (quoted fields may span
** lines; CRLF and LF row ends). A NUL byte in a cell is an error (the cell
** would be cut short there). Dialects: the delimiter (',' ';' tab) and the
** encoding (UTF-8, Windows-1252, Latin-1, UTF-16 with a byte order mark),
** converted to UTF-8 before parsing. libc and libcsv only.
*/
#include "stimuli/study_int.h"

#include <csv.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

typedef struct CsvState {
    Loader *L;
    const char *rel; /* the file, bundle-relative */
    int line;        /* physical line being parsed */
    CsvTable *t;
    char **cells; /* fields of the record being read */
    size_t n_cells, cap_cells;
    int rec_line;
    int awaiting; /* between records: the next non-blank line starts one */
    size_t cap_rows;
    int failed;
} CsvState;

/* Copies a field, turning CRLF inside quoted cells into LF. */
static char *copy_field(const char *s, size_t n)
{
    char *d = sim_malloc(n + 1);
    if (!d) {
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n') {
            continue;
        }
        d[k++] = s[i];
    }
    d[k] = '\0';
    return d;
}

/* A NUL byte at offset at of the cell that just ended on line cs->line:
** located error, naming the column (by its header name once known). */
static void nul_in_cell(CsvState *cs, const char *field, size_t len, size_t at)
{
    int line = cs->line;
    for (size_t i = at + 1; i < len; i++) {
        line -= field[i] == '\n';
    }
    size_t col = cs->n_cells; /* 0-based */
    const CsvTable *t = cs->t;
    if (t->header && col < t->n_cols) {
        ld_diag(cs->L, 0, cs->rel, line, 0, NULL, t->header[col],
                "NUL byte in the cell (column %zu, byte %zu of the cell)",
                col + 1, at + 1);
    } else {
        ld_diag(cs->L, 0, cs->rel, line, 0, NULL, NULL,
                "NUL byte in column %zu of the %s (byte %zu of the cell)",
                col + 1, t->header ? "record" : "header", at + 1);
    }
    cs->failed = 1;
}

static void on_field(void *field, size_t len, void *data)
{
    CsvState *cs = data;
    if (cs->failed) {
        return;
    }
    const char *nul = field ? memchr(field, '\0', len) : NULL;
    if (nul) {
        nul_in_cell(cs, field, len, (size_t)(nul - (const char *)field));
        return;
    }
    if (ld_grow(cs->L, (void **)&cs->cells, &cs->cap_cells, cs->n_cells + 1,
                sizeof *cs->cells) != 0) {
        cs->failed = 1;
        return;
    }
    char *f = copy_field(field ? field : "", field ? len : 0);
    if (!f) {
        cs->L->oom = 1;
        cs->failed = 1;
        return;
    }
    cs->cells[cs->n_cells++] = f;
}

static void free_cells(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(cells[i]);
    }
    sim_free(cells);
}

static void on_record(int c, void *data)
{
    (void)c;
    CsvState *cs = data;
    cs->awaiting = 1;
    if (cs->failed) {
        return;
    }
    CsvTable *t = cs->t;
    if (!t->header) {
        t->header = cs->cells;
        t->n_cols = cs->n_cells;
        t->header_line = cs->rec_line;
    } else {
        if (ld_grow(cs->L, (void **)&t->rows, &cs->cap_rows, t->n_rows + 1,
                    sizeof *t->rows) != 0) {
            free_cells(cs->cells, cs->n_cells);
            cs->failed = 1;
        } else {
            CsvRow *r = &t->rows[t->n_rows++];
            r->cells = cs->cells;
            r->n = cs->n_cells;
            r->line = cs->rec_line;
        }
    }
    cs->cells = NULL;
    cs->n_cells = cs->cap_cells = 0;
}

/* A line that libcsv skips between records: it ignores blanks before a
** record and line ends without one. */
static int is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') {
            return 0;
        }
    }
    return 1;
}

static int line_of_offset(const char *s, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) {
        line += s[i] == '\n';
    }
    return line;
}

/* ------------------------------------------------------------ dialects */

static const struct {
    const char *name;
    CsvEncoding enc;
} encodings[] = {
    {"utf-8", CSV_ENC_UTF8},
    {"utf8", CSV_ENC_UTF8},
    {"windows-1252", CSV_ENC_WINDOWS_1252},
    {"cp1252", CSV_ENC_WINDOWS_1252},
    {"latin-1", CSV_ENC_LATIN1},
    {"latin1", CSV_ENC_LATIN1},
    {"iso-8859-1", CSV_ENC_LATIN1},
    {"utf-16", CSV_ENC_UTF16},
};

int csv_dialect_parse(Loader *L, const JLoc *at, json_t *o, const char *what,
                      CsvDialect *d)
{
    memset(d, 0, sizeof *d);
    d->delim = ',';
    d->encoding = CSV_ENC_UTF8;
    d->what = what;
    d->where = at->ptr;
    int ok = 0;
    const char *s = NULL;
    if (jget_str(L, at, o, "delimiter", 0, &s) == 1) {
        if (strcmp(s, ",") == 0 || strcmp(s, ";") == 0 ||
            strcmp(s, "\t") == 0) {
            d->delim = s[0];
        } else if (strcmp(s, "tab") == 0 || strcmp(s, "\\t") == 0) {
            d->delim = '\t';
        } else {
            jl_error(L, at, "delimiter",
                     "'%s' is not a delimiter: use \",\", \";\" or \"\\t\" "
                     "(tab)",
                     s);
            ok = -1;
        }
        d->declared_delim = 1;
    } else if (s == NULL && json_object_get(o, "delimiter")) {
        ok = -1;
    }
    s = NULL;
    if (jget_str(L, at, o, "encoding", 0, &s) == 1) {
        size_t i = 0, n = sizeof encodings / sizeof *encodings;
        while (i < n && strcasecmp(encodings[i].name, s) != 0) {
            i++;
        }
        if (i < n) {
            d->encoding = encodings[i].enc;
        } else {
            jl_error(L, at, "encoding",
                     "'%s' is not a supported encoding: use \"utf-8\", "
                     "\"windows-1252\", \"latin-1\" or \"utf-16\"",
                     s);
            ok = -1;
        }
        d->declared_encoding = 1;
    } else if (json_object_get(o, "encoding")) {
        ok = -1;
    }
    return ok;
}

/* The entry's location for advice: "item bank /items/1 in study.json". */
static void entry_name(const CsvDialect *d, char *out, size_t n)
{
    snprintf(out, n, "the %s %s in study.json",
             d && d->what ? d->what : "entry",
             d && d->where && d->where[0] ? d->where : "");
}

/* Converts data (len bytes, encoding enc) to UTF-8 in *out (owned) and
** *out_len. Reports one located error and returns -1 when the bytes do not
** fit the encoding. */
static int to_utf8(Loader *L, const char *rel, const CsvDialect *d,
                   const char *data, size_t len, char **out, size_t *out_len)
{
    const unsigned char *s = (const unsigned char *)data;
    CsvEncoding enc = d ? d->encoding : CSV_ENC_UTF8;
    char entry[300];
    entry_name(d, entry, sizeof entry);
    int bom16 = len >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) ||
                             (s[0] == 0xFE && s[1] == 0xFF));
    if ((enc == CSV_ENC_WINDOWS_1252 || enc == CSV_ENC_LATIN1) && len >= 3 &&
        memcmp(s, "\xEF\xBB\xBF", 3) == 0 && sim_utf8_valid(data, len, NULL)) {
        enc = CSV_ENC_UTF8; /* a UTF-8 byte order mark: saved as UTF-8 */
    }
    if (enc == CSV_ENC_UTF8) {
        size_t bad;
        if (bom16) {
            ld_diag(L, 0, rel, 1, 0, NULL, NULL,
                    "the file is UTF-16 (it starts with a UTF-16 byte order "
                    "mark): add \"encoding\": \"utf-16\" to %s, or save it "
                    "as \"CSV UTF-8\"",
                    entry);
            return -1;
        }
        if (!sim_utf8_valid(data, len, &bad)) {
            int line = line_of_offset(data, bad);
            size_t col = bad;
            for (size_t i = bad; i > 0; i--) {
                if (data[i - 1] == '\n') {
                    col = bad - i;
                    break;
                }
            }
            ld_diag(L, 0, rel, line, 0, NULL, NULL,
                    "invalid UTF-8 at byte %zu of the line (byte 0x%02X, "
                    "byte %zu of the file): save the file as \"CSV UTF-8\", "
                    "or add its \"encoding\" to %s (\"windows-1252\" for "
                    "Excel's \"CSV\" on Windows)",
                    col + 1, s[bad], bad + 1, entry);
            return -1;
        }
        *out = sim_malloc(len + 1);
        if (!*out) {
            L->oom = 1;
            return -1;
        }
        memcpy(*out, data, len);
        (*out)[len] = '\0';
        *out_len = len;
        return 0;
    }
    if (enc == CSV_ENC_UTF16 && !bom16) {
        ld_diag(L, 0, rel, 1, 0, NULL, NULL,
                "\"encoding\": \"utf-16\" needs a byte order mark at the "
                "start of the file (Excel's \"Unicode Text\" has one); none "
                "found");
        return -1;
    }
    CsvBadBytes bad;
    int rc = csv_decode(data, len, enc, 0, out, out_len, &bad);
    if (rc < 0) {
        L->oom = 1;
        return -1;
    }
    if (rc > 0 && bad.kind == CSV_BAD_ODD) {
        ld_diag(L, 0, rel, bad.line, 0, NULL, NULL,
                "UTF-16 file with an odd number of bytes (cut short?)");
    } else if (rc > 0 && bad.kind == CSV_BAD_SURROGATE) {
        ld_diag(L, 0, rel, bad.line, 0, NULL, NULL,
                "invalid UTF-16 (an unpaired surrogate at byte %zu of the "
                "file)",
                bad.at + 1);
    } else if (rc > 0) {
        ld_diag(L, 0, rel, bad.line, 0, NULL, NULL,
                "byte 0x%02X (byte %zu of the file) is not Windows-1252 "
                "text: check the file's \"encoding\"",
                s[bad.at], bad.at + 1);
    }
    return rc == 0 ? 0 : -1;
}

int csv_decode(const char *data, size_t len, CsvEncoding enc, int replace,
               char **out, size_t *out_len, CsvBadBytes *bad)
{
    const unsigned char *s = (const unsigned char *)data;
    *out = NULL;
    *out_len = 0;
    /* At most 3 UTF-8 bytes per input byte (1252's 0x80: U+20AC). */
    size_t cap = enc == CSV_ENC_UTF16 ? len * 2 + 1 : len * 3 + 1;
    char *o = sim_malloc(cap);
    if (!o) {
        return -1;
    }
    size_t k = 0;
    int line = 1;
    if (enc == CSV_ENC_UTF16) {
        int be = len >= 2 && s[0] == 0xFE;
        for (size_t i = 2; i < len; i += 2) {
            if (i + 1 >= len) {
                if (replace) {
                    break;
                }
                *bad = (CsvBadBytes){CSV_BAD_ODD, i, line};
                sim_free(o);
                return 1;
            }
            unsigned long u = be ? ((unsigned long)s[i] << 8) | s[i + 1]
                                 : ((unsigned long)s[i + 1] << 8) | s[i];
            int unpaired = 0;
            if (u >= 0xD800 && u <= 0xDBFF && i + 3 < len) {
                unsigned long lo =
                    be ? ((unsigned long)s[i + 2] << 8) | s[i + 3]
                       : ((unsigned long)s[i + 3] << 8) | s[i + 2];
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    i += 2;
                } else {
                    unpaired = 1;
                }
            } else if (u >= 0xD800 && u <= 0xDFFF) {
                unpaired = 1;
            }
            if (unpaired && !replace) {
                *bad = (CsvBadBytes){CSV_BAD_SURROGATE, i, line};
                sim_free(o);
                return 1;
            }
            u = unpaired ? 0xFFFD : u;
            line += u == '\n';
            k += sim_utf8_put(o + k, u);
        }
    } else {
        for (size_t i = 0; i < len; i++) {
            unsigned long u = s[i];
            if (enc == CSV_ENC_WINDOWS_1252 && u >= 0x80 && u < 0xA0) {
                u = sim_cp1252_char((unsigned char)u);
                if (!u && !replace) {
                    *bad = (CsvBadBytes){CSV_BAD_BYTE, i, line};
                    sim_free(o);
                    return 1;
                }
                u = u ? u : 0xFFFD;
            }
            line += u == '\n';
            k += sim_utf8_put(o + k, u);
        }
    }
    o[k] = '\0';
    *out = o;
    *out_len = k;
    return 0;
}

static const char *delim_name(char c)
{
    return c == ';' ? "';'" : c == '\t' ? "tab" : c == ',' ? "','" : "?";
}

static const char *delim_json(char c)
{
    return c == ';' ? "\";\"" : c == '\t' ? "\"\\t\"" : "\",\"";
}

/* Counts each candidate delimiter outside quotes on the first record line
** (p, n bytes) and checks the dialect's delimiter against them: a header
** that does not split on it but on exactly one other gets one error naming
** the option. Returns 0 when the header fits. */
static int check_header_delim(Loader *L, const char *rel, const CsvDialect *d,
                              char delim, const char *p, size_t n, int line)
{
    static const char cands[3] = {',', ';', '\t'};
    size_t count[3] = {0, 0, 0};
    int quoted = 0;
    for (size_t i = 0; i < n && p[i] != '\n'; i++) {
        if (p[i] == '"') {
            quoted = !quoted;
        }
        for (int c = 0; c < 3 && !quoted; c++) {
            count[c] += p[i] == cands[c];
        }
    }
    int mine = delim == ',' ? 0 : delim == ';' ? 1 : 2;
    if (count[mine] > 0) {
        return 0;
    }
    int other = -1;
    for (int c = 0; c < 3; c++) {
        if (c != mine && count[c] > 0) {
            if (other >= 0) {
                return 0; /* ambiguous: a one-column file */
            }
            other = c;
        }
    }
    if (other < 0) {
        return 0; /* one column */
    }
    char entry[300];
    entry_name(d, entry, sizeof entry);
    if (d && d->declared_delim) {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header does not split on the declared delimiter %s but "
                "on %s: set \"delimiter\": %s on %s",
                delim_name(delim), delim_name(cands[other]),
                delim_json(cands[other]), entry);
    } else {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header splits on %s, not on ',' (a CSV file from a "
                "European Excel?): add \"delimiter\": %s to %s",
                delim_name(cands[other]), delim_json(cands[other]), entry);
    }
    return -1;
}

int csv_table_read(Loader *L, const char *rel, const CsvDialect *d, CsvTable *t,
                   char *path_why, size_t path_why_size)
{
    memset(t, 0, sizeof *t);
    char *raw = NULL;
    size_t raw_len = 0;
    int rc = read_bundle_csv(L, rel, d ? d->delim : ',',
                             d ? (int)d->encoding : (int)CSV_ENC_UTF8, &raw,
                             &raw_len, path_why, path_why_size);
    if (rc != 0) {
        return rc; /* -2: the caller reports where the path was named */
    }
    char *data = NULL;
    size_t len = 0;
    rc = to_utf8(L, rel, d, raw, raw_len, &data, &len);
    sim_free(raw);
    if (rc != 0) {
        return -1;
    }
    char delim = d ? d->delim : ',';
    const char *p = data;
    size_t left = len;
    if (left >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3; /* byte order mark */
        left -= 3;
    }
    struct csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) !=
        0) {
        L->oom = 1;
        sim_free(data);
        return -1;
    }
    csv_set_realloc_func(&parser, sim_realloc);
    csv_set_free_func(&parser, sim_free);
    csv_set_delim(&parser, (unsigned char)delim);
    CsvState cs = {.L = L, .rel = rel, .t = t, .awaiting = 1};
    int line = 1;
    rc = 0;
    while (left > 0 && !cs.failed) {
        const char *nl = memchr(p, '\n', left);
        size_t n = nl ? (size_t)(nl - p) + 1 : left;
        cs.line = line;
        if (cs.awaiting && !is_blank_line(p, n)) {
            if (!t->header && !cs.n_cells &&
                check_header_delim(L, rel, d, delim, p, n, line) != 0) {
                rc = -1;
                break;
            }
            cs.rec_line = line;
            cs.awaiting = 0;
        }
        if (csv_parse(&parser, p, n, on_field, on_record, &cs) != n) {
            if (csv_error(&parser) == CSV_ENOMEM) {
                L->oom = 1;
                rc = -1;
                break;
            }
            ld_diag(L, 0, rel, line, 0, NULL, NULL, "malformed CSV: %s",
                    csv_strerror(csv_error(&parser)));
            rc = -1;
            break;
        }
        p += n;
        left -= n;
        line++;
    }
    if (rc == 0 && !cs.failed &&
        csv_fini(&parser, on_field, on_record, &cs) != 0) {
        ld_diag(L, 0, rel, cs.rec_line, 0, NULL, NULL,
                "malformed CSV: %s (a quoted field is not closed)",
                csv_strerror(csv_error(&parser)));
        rc = -1;
    }
    csv_free(&parser);
    free_cells(cs.cells, cs.n_cells);
    sim_free(data);
    if (cs.failed) {
        rc = -1;
    }
    if (rc == 0 && !t->header) {
        ld_diag(L, 0, rel, 1, 0, NULL, NULL, "empty CSV file (no header row)");
        rc = -1;
    }
    return rc;
}

void csv_table_free(CsvTable *t)
{
    if (!t) {
        return;
    }
    free_cells(t->header, t->n_cols);
    for (size_t i = 0; i < t->n_rows; i++) {
        free_cells(t->rows[i].cells, t->rows[i].n);
    }
    sim_free(t->rows);
    memset(t, 0, sizeof *t);
}

void csv_header_list(const CsvTable *t, char *out, size_t n)
{
    size_t used = 0;
    if (n) {
        out[0] = '\0';
    }
    for (size_t i = 0; i < t->n_cols && used + 1 < n; i++) {
        int k = snprintf(out + used, n - used, "%s'%s'", i ? ", " : "",
                         t->header[i]);
        if (k < 0 || (size_t)k >= n - used) {
            if (n > 4) {
                memcpy(out + n - 4, "...", 4);
            }
            return;
        }
        used += (size_t)k;
    }
}

void csv_missing_column(Loader *L, const JLoc *at, const char *key,
                        const char *name, const char *file, const CsvTable *t)
{
    char cols[600];
    csv_header_list(t, cols, sizeof cols);
    jl_error(L, at, key,
             "column '%s' is not in the header of %s (its columns: %s)", name,
             file, cols);
}

long csv_col(const CsvTable *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++) {
        if (strcmp(t->header[i], name) == 0) {
            return (long)i;
        }
    }
    return -1;
}
