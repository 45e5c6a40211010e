/*
** CSV tables of item banks and explanation sources: a bundle file read
** whole, converted to UTF-8 from its declared encoding (common/sim_decode.h)
** and split by the CSV reader (common/sim_csv.h) into a table of strings,
** each record tagged with the line on which it starts. A file that does
** not fit its dialect gets one error per problem (encoding, delimiter,
** syntax) in one reading. libc and common/ only.
*/
#include "stimuli/csvtab.h"
#include "stimuli/loader.h"
#include "stimuli/bpath_int.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_csv.h"
#include "common/sim_text.h"

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

static void free_cells(char **cells, size_t n)
{
    for (size_t i = 0; i < n && cells; i++) {
        sim_free(cells[i]);
    }
    sim_free(cells);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = s ? strlen(s) : 0, b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Excel's "Unicode Text" (UTF-16, tab-separated) is saved as .txt. */
static int tab_file(const char *file)
{
    return ends_with(file, ".tsv") || ends_with(file, ".txt") ||
           ends_with(file, ".TSV") || ends_with(file, ".TXT");
}

/* ------------------------------------------------------------ dialects */

int csv_dialect_parse(Loader *L, const JLoc *at, json_t *o, const char *what,
                      CsvDialect *d)
{
    memset(d, 0, sizeof *d);
    d->file = json_string_value(json_object_get(o, "file"));
    d->delim = tab_file(d->file) ? '\t' : ',';
    sim_encoding_utf8(&d->encoding);
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
        if (sim_encoding_find(s, &d->encoding) != 0) {
            jl_error(L, at, "encoding",
                     "'%s' is not a supported encoding (one iconv knows): "
                     "use \"utf-8\", \"windows-1252\", \"windows-1256\", "
                     "\"windows-1251\", \"gbk\", \"shift_jis\", \"big5\", "
                     "\"euc-kr\", \"utf-16\", ... (docs/study-format.md "
                     "lists Excel's; `iconv -l` lists all)",
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

/* The encoding Excel writes "CSV" in for the study's "language", when the
** study gives one and the file reads in it without errors (*guess). */
static int language_guess(Loader *L, const char *data, size_t len,
                          SimEncoding *guess, const char **lang)
{
    *lang = L->language;
    const char *name = sim_encoding_of_language(*lang);
    if (!name || sim_encoding_find(name, guess) != 0) {
        return 0;
    }
    char *text = NULL;
    size_t n = 0;
    int rc = sim_decode_buffer(guess, data, len, 0, &text, &n, NULL);
    sim_free(text);
    if (rc < 0) {
        L->oom = 1;
    }
    return rc == 0;
}

/* Reports that the file (data, len bytes) does not fit the declared
** encoding (p; text: the n bytes decoded before the bad ones) and sets
** *as to the encoding to read it in instead. */
static void encoding_problem(Loader *L, const char *rel, const CsvDialect *d,
                             const SimDecodeProblem *p, const char *text,
                             size_t n, const char *data, size_t len,
                             SimEncoding *as)
{
    char entry[300], what[300];
    entry_name(d, entry, sizeof entry);
    sim_decode_describe(p, what, sizeof what);
    int line = (int)sim_text_line_at(text, n);
    const char *unicode_text =
        tab_file(rel) ? ", as Excel's \"Unicode Text\" does" : "";
    *as = p->enc; /* bytes that fit no encoding become U+FFFD */
    switch (p->kind) {
    case SIM_DECODE_UTF16_BOM:
        sim_encoding_find("utf-16", as);
        ld_diag(L, 0, rel, 1, 0, NULL, NULL,
                "the file is UTF-16 (it starts with a UTF-16 byte order "
                "mark%s): add \"encoding\": \"utf-16\" to %s, or save it as "
                "\"CSV UTF-8\"",
                unicode_text, entry);
        return;
    case SIM_DECODE_NO_BOM:
        /* read on as UTF-16 when NUL bytes say so, else as UTF-8 */
        if (len >= 2 && (data[0] == '\0') != (data[1] == '\0')) {
            sim_encoding_find(data[1] == '\0' ? "utf-16le" : "utf-16be", as);
        } else {
            sim_encoding_utf8(as);
        }
        ld_diag(L, 0, rel, 1, 0, NULL, NULL,
                "\"encoding\": \"%s\" needs a byte order mark at the start "
                "of the file (Excel's \"Unicode Text\" has one); none found",
                d->encoding.name);
        return;
    case SIM_DECODE_WRONG_BOM:
        sim_encoding_find("utf-16", as);
        ld_diag(L, 0, rel, 1, 0, NULL, NULL,
                "%s: set \"encoding\": \"utf-16\" on %s", what, entry);
        return;
    default:
        break;
    }
    if (p->enc.kind != SIM_ENC_UTF8 || p->utf8_bom) {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "%s: check the \"encoding\" of %s, or save the file as \"CSV "
                "UTF-8\"",
                what, entry);
        return;
    }
    SimEncoding guess;
    const char *lang = NULL;
    if (language_guess(L, data, len, &guess, &lang)) {
        *as = guess;
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "%s: save the file as \"CSV UTF-8\", or add \"encoding\": "
                "\"%s\" to %s (Excel's \"CSV\" on Windows in the study's "
                "language '%s'; the file reads as %s without errors)",
                what, guess.name, entry, lang, guess.name);
        return;
    }
    ld_diag(L, 0, rel, line, 0, NULL, NULL,
            "%s: save the file as \"CSV UTF-8\", or add its \"encoding\" to "
            "%s (Excel's \"CSV\" on Windows is in the system's code page: "
            "\"windows-1252\" in Western Europe and the Americas, "
            "\"windows-1250\" Central Europe, \"windows-1251\" Cyrillic, "
            "\"windows-1256\" Arabic, \"gbk\" Chinese, \"shift_jis\" "
            "Japanese, ...: docs/study-format.md lists them)",
            what, entry);
}

/* Converts the file (data, len bytes) to UTF-8 in *out (owned). A file
** that does not fit the dialect's encoding is reported and read as the
** advice says (*as: how it was read); *bad is then set. Returns 0, or -1
** when out of memory. */
static int to_utf8(Loader *L, const char *rel, const CsvDialect *d,
                   const char *data, size_t len, char **out, size_t *out_len,
                   SimEncoding *as, int *bad, int *lossy)
{
    *as = d->encoding;
    *bad = *lossy = 0;
    SimDecodeProblem p;
    int rc = sim_decode_buffer(as, data, len, 0, out, out_len, &p);
    if (rc <= 0) {
        L->oom |= rc < 0;
        return rc;
    }
    encoding_problem(L, rel, d, &p, *out, *out_len, data, len, as);
    sim_free(*out);
    *bad = 1;
    rc = sim_decode_buffer(as, data, len, 1, out, out_len, &p);
    *lossy = rc == 1;
    L->oom |= rc < 0;
    return rc < 0 ? -1 : 0;
}

static const char *delim_name(char c)
{
    return c == ';' ? "';'" : c == '\t' ? "tab" : c == ',' ? "','" : "?";
}

static const char *delim_json(char c)
{
    return c == ';' ? "\";\"" : c == '\t' ? "\"\\t\"" : "\",\"";
}

/* Checks the first record line of text (n bytes) against the dialect's
** delimiter: a header that does not split on it but on exactly one other
** gets one error naming the option; *delim becomes that other one. Returns
** 0 when the header fits. */
static int check_header_delim(Loader *L, const char *rel, const CsvDialect *d,
                              char *delim, const char *text, size_t n)
{
    size_t i = 0;
    int line = 1;
    for (size_t k = 0; k < n; k++) {
        if (text[k] == '\n' || (text[k] == '\r' && text[k + 1] != '\n')) {
            line++;
            i = k + 1;
        } else if (text[k] != ' ' && text[k] != '\t' && text[k] != '\r') {
            break;
        }
    }
    char other = sim_csv_other_delimiter(text + i, n - i, *delim);
    if (!other) {
        return 0;
    }
    char entry[300];
    entry_name(d, entry, sizeof entry);
    if (d->declared_delim) {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header does not split on the declared delimiter %s but "
                "on %s: set \"delimiter\": %s on %s",
                delim_name(*delim), delim_name(other), delim_json(other),
                entry);
    } else if (*delim == '\t') {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header splits on %s, not on tab (the default for .tsv "
                "and .txt files): add \"delimiter\": %s to %s",
                delim_name(other), delim_json(other), entry);
    } else if (other == '\t') {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header splits on tab, not on ',' (Excel's \"Unicode "
                "Text\" and \"Text (Tab delimited)\" separate cells with "
                "tabs): add \"delimiter\": \"\\t\" to %s",
                entry);
    } else {
        ld_diag(L, 0, rel, line, 0, NULL, NULL,
                "the header splits on %s, not on ',' (Excel's \"CSV\" "
                "separates cells with the system's list separator, ';' in "
                "much of Europe): add \"delimiter\": %s to %s",
                delim_name(other), delim_json(other), entry);
    }
    *delim = other;
    return -1;
}

/* Reports a syntax problem of the CSV reader, naming the column by its
** header name once known. */
static void syntax_problem(Loader *L, const char *rel, const CsvTable *t,
                           const SimCsvProblem *p)
{
    size_t col = p->field >= 0 ? (size_t)p->field : 0;
    const char *name = t->header && col < t->n_cols ? t->header[col] : NULL;
    if (p->kind == SIM_CSV_NUL && name) {
        ld_diag(L, 0, rel, (int)p->line, 0, NULL, name,
                "NUL byte in the cell (column %zu, byte %zu of the cell)",
                col + 1, p->at + 1);
    } else if (p->kind == SIM_CSV_NUL) {
        ld_diag(L, 0, rel, (int)p->line, 0, NULL, NULL,
                "NUL byte in column %zu of the %s (byte %zu of the cell)",
                col + 1, t->header ? "record" : "header", p->at + 1);
    } else if (p->kind == SIM_CSV_QUOTE_OPEN) {
        ld_diag(L, 0, rel, (int)p->line, 0, NULL, name,
                "malformed CSV: a quoted field opens on this line and is "
                "not closed");
    } else {
        ld_diag(L, 0, rel, (int)p->line, 0, NULL, name, "malformed CSV: %s",
                sim_csv_problem_text(p->kind));
    }
}

/* Appends the record rec to t (the first is the header). */
static int add_record(Loader *L, const SimCsvRecord *rec, CsvTable *t,
                      size_t *cap_rows)
{
    int n = rec->n;
    const SimCsvField *f = rec->fields;
    char **cells = ld_calloc(L, n > 0 ? (size_t)n : 1, sizeof *cells);
    if (!cells) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (!(cells[i] = copy_field(f[i].p, f[i].n))) {
            L->oom = 1;
            free_cells(cells, (size_t)n);
            return -1;
        }
    }
    int line = (int)rec->line;
    if (!t->header) {
        t->header = cells;
        t->n_cols = (size_t)n;
        t->header_line = line;
        return 0;
    }
    if (ld_grow(L, (void **)&t->rows, cap_rows, t->n_rows + 1,
                sizeof *t->rows) != 0) {
        free_cells(cells, (size_t)n);
        return -1;
    }
    t->rows[t->n_rows++] = (CsvRow){cells, (size_t)n, line};
    return 0;
}

int csv_table_read(Loader *L, const char *rel, const CsvDialect *d, CsvTable *t,
                   char *path_why, size_t path_why_size)
{
    memset(t, 0, sizeof *t);
    CsvDialect plain;
    if (!d) {
        memset(&plain, 0, sizeof plain);
        plain.delim = ',';
        sim_encoding_utf8(&plain.encoding);
        d = &plain;
    }
    char *raw = NULL;
    size_t raw_len = 0, file = SIZE_MAX;
    int rc =
        bpath_read_csv(L, rel, &raw, &raw_len, &file, path_why, path_why_size);
    if (rc != 0) {
        return rc; /* -2: the caller reports where the path was named */
    }
    char *text = NULL;
    size_t len = 0;
    SimEncoding as;
    int bad_enc, lossy;
    rc = to_utf8(L, rel, d, raw, raw_len, &text, &len, &as, &bad_enc, &lossy);
    sim_free(raw);
    if (rc != 0) {
        return -1;
    }
    char delim = d->delim;
    int bad_delim = check_header_delim(L, rel, d, &delim, text, len) != 0;
    if (file != SIZE_MAX) { /* as read, for the glyph scan */
        StudyTextFile *tf = &L->st->text_files[file];
        tf->csv = 1;
        tf->delim = delim;
        tf->encoding = as;
    }
    SimCsvReader *r = NULL;
    SimCsvOptions o = {delim, NULL, NULL, NULL};
    SimError err;
    if (sim_csv_open_text(&r, text, len, rel, &o, &err) != SIM_OK) {
        L->oom = 1;
        sim_free(text);
        return -1;
    }
    size_t cap_rows = 0;
    int got;
    SimCsvRecord rec;
    while ((got = sim_csv_next(r, &rec, &err)) == 1) {
        if (add_record(L, &rec, t, &cap_rows) != 0) {
            break;
        }
    }
    rc = 0;
    if (got == SIM_ERR_PARSE) {
        syntax_problem(L, rel, t, sim_csv_problem(r));
        rc = -1;
    } else if (got != 0) {
        L->oom = 1;
        rc = -1;
    }
    sim_csv_close(r);
    sim_free(text);
    if (rc == 0 && !L->oom && !t->header) {
        ld_diag(L, 0, rel, 1, 0, NULL, NULL, "empty CSV file (no header row)");
        rc = -1;
    }
    t->unusable = bad_enc || bad_delim;
    t->lossy = lossy;
    return L->oom ? -1 : rc;
}

int csv_table_open(Loader *L, const JLoc *at, const char *rel,
                   const CsvDialect *d, CsvTable *t)
{
    char why[512];
    int rc = csv_table_read(L, rel, d, t, why, sizeof why);
    if (rc == -2) {
        jl_error(L, at, "file", "%s", why);
        return -1;
    }
    if (rc != 0) {
        csv_table_free(t);
        return -1;
    }
    return 0;
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
    for (size_t i = 0; t->lossy && i < t->n_cols; i++) {
        if (strstr(t->header[i], "\xEF\xBF\xBD")) {
            return; /* its names are not known: reported at the file */
        }
    }
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
