/*
** Reading long-format CSV files (RFC 4180 through common/sim_csv.h, in any
** encoding iconv knows) into a Dataset, with the checks of the export's
** JSON sidecar (row count, SHA-256, study definitions, exclusion reasons).
** Every error names the file, the line and the column. Depends on libc,
** jansson, nettle and common/.
*/
#include "analysis/dataset.h"
#include "analysis/dataset_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "analysis/keymap.h"
#include "common/sim_alloc.h"
#include "common/sim_csv.h"
#include "common/sim_text.h"

/* ------------------------------------------------------------------ */
/* The JSON sidecar of an export                                        */

/* The sidecar that `simlab export` writes beside a CSV (PATH.json): the
** row count and SHA-256 of the CSV, the study definitions (rating scale)
** and each excluded participant's reasons. */
typedef struct Sidecar {
    char path[4096];
    json_t *root;    /* NULL: no sidecar */
    long long rows;  /* -1: not given */
    const char *sha; /* lowercase hex, or NULL */
} Sidecar;

static int sidecar_open(Sidecar *sc, Dataset *ds, const char *csv_path,
                        SimError *err)
{
    memset(sc, 0, sizeof *sc);
    sc->rows = -1;
    if ((size_t)snprintf(sc->path, sizeof sc->path, "%s.json", csv_path) >=
        sizeof sc->path) {
        return SIM_OK;
    }
    FILE *f = fopen(sc->path, "rb");
    if (!f) {
        return SIM_OK;
    }
    json_error_t jerr;
    sc->root = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!sc->root) {
        return sim_fail(err, SIM_ERR_PARSE, "%s:%d: %s", sc->path, jerr.line,
                        jerr.text);
    }
    json_t *rows = json_object_get(sc->root, "rows");
    if (rows && (!json_is_integer(rows) || json_integer_value(rows) < 0)) {
        return sim_fail(err, SIM_ERR_PARSE,
                        "%s: \"rows\": expected a non-negative integer",
                        sc->path);
    }
    sc->rows = rows ? (long long)json_integer_value(rows) : -1;
    json_t *sha = json_object_get(sc->root, "sha256");
    if (sha) {
        const char *s = json_string_value(sha);
        size_t n = s ? strlen(s) : 0;
        if (n != 64 || strspn(s, "0123456789abcdef") != 64) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s: \"sha256\": expected 64 lowercase hex "
                            "digits",
                            sc->path);
        }
        sc->sha = s;
    }
    size_t i;
    json_t *study;
    json_array_foreach(json_object_get(sc->root, "studies"), i, study)
    {
        json_t *def = json_object_get(study, "definition");
        if (!json_is_object(def)) {
            continue;
        }
        const char *id = json_string_value(json_object_get(study, "id"));
        char who[4200];
        snprintf(who, sizeof who, "%s (study '%s')", sc->path, id ? id : "?");
        const char *hash = json_string_value(json_object_get(study, "hash"));
        int rc = dataset_state_study(ds, def, hash, "sidecar", who, err);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    return SIM_OK;
}

/* Checks rows and hash, then fills the exclusion reasons the CSV's excluded
** column does not carry. */
static int sidecar_finish(Sidecar *sc, Dataset *ds, long long rows,
                          const char *sha, SimError *err)
{
    if (!sc->root) {
        return SIM_OK;
    }
    if (sc->rows >= 0 && sc->rows != rows) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: the CSV has %lld rows, but its sidecar says %lld "
                        "(a truncated or altered file?)",
                        sc->path, rows, sc->rows);
    }
    if (sc->sha && strcmp(sc->sha, sha) != 0) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: SHA-256 of the CSV: expected %s (sidecar), got "
                        "%s (an altered file?)",
                        sc->path, sc->sha, sha);
    }
    json_t *people = json_object_get(sc->root, "participants");
    size_t i;
    json_t *p;
    json_array_foreach(people, i, p)
    {
        const char *id = json_string_value(json_object_get(p, "id"));
        const char *why =
            json_string_value(json_object_get(p, "exclusion_reason"));
        int name = id ? dataset_find(ds, id) : -1;
        if (name < 0 || !why || !why[0]) {
            continue;
        }
        int k = keymap_find(ds->pindex, (uint64_t)(uint32_t)name);
        if (k >= 0 && ds->participants[k].excluded &&
            ds->participants[k].reason == 0) {
            int r = dataset_intern(ds, why);
            if (r < 0) {
                return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
            ds->participants[k].reason = r;
        }
    }
    return SIM_OK;
}

/* ------------------------------------------------------------------ */
/* CSV (RFC 4180, through common/sim_csv.h)                             */

/* One file being read: the reader, its header and the column of each
** field. */
typedef struct CsvReader {
    Dataset *ds;
    SimError *err;
    const char *path;
    char delim;
    const SimEncoding *enc;
    SimCsvReader *csv;
    Val *header; /* owned copies of the header names */
    char *header_text;
    int n_header;
    int *col_of_field;
    int hashing;
    struct sha256_ctx sha;
    long long rows;
} CsvReader;

static void hash_bytes(void *ctx, const void *p, size_t n)
{
    sha256_update(ctx, n, p);
}

static const char *field_name(const CsvReader *R, int f, char *tmp, size_t n)
{
    if (R->header && f < R->n_header) {
        snprintf(tmp, n, "column '%.*s'", (int)R->header[f].n, R->header[f].p);
    } else {
        snprintf(tmp, n, "field %d", f + 1);
    }
    return tmp;
}

/* When the file's header (decoded as enc, what does not fit as U+FFFD)
** splits on another delimiter than R's: ", and --delimiter X" into out, so
** that one run names both options; else "". */
static void delimiter_hint(const CsvReader *R, const SimEncoding *enc,
                           char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(R->path, "rb");
    char *raw = f ? sim_malloc(1 << 16) : NULL;
    size_t got = raw ? fread(raw, 1, 1 << 16, f) : 0;
    char *text = NULL;
    size_t len = 0;
    if (got > 0 &&
        sim_decode_buffer(enc, raw, got, 1, &text, &len, NULL) >= 0) {
        size_t i = strspn(text, " \r\n");
        char other = sim_csv_other_delimiter(text + i, len - i, R->delim);
        if (other) {
            snprintf(out, n, ", and --delimiter %s (its header splits on %s)",
                     other == '\t'  ? "tab"
                     : other == ';' ? "';'"
                                    : "','",
                     other == '\t'  ? "tabs"
                     : other == ';' ? "';'"
                                    : "','");
        }
    }
    sim_free(text);
    sim_free(raw);
    if (f) {
        fclose(f);
    }
}

/* The located message of a problem the reader stopped at. */
static int csv_problem(CsvReader *R)
{
    const SimCsvProblem *p = sim_csv_problem(R->csv);
    if (!p) {
        return R->err->code ? R->err->code : SIM_ERR_PARSE;
    }
    if (p->kind != SIM_CSV_DECODE) {
        char tmp[200];
        return sim_fail(R->err, SIM_ERR_PARSE, "%s:%ld: %s: %s", R->path,
                        p->line, field_name(R, p->field, tmp, sizeof tmp),
                        sim_csv_problem_text(p->kind));
    }
    const SimDecodeProblem *d = &p->decode;
    char what[300], also[80];
    sim_decode_describe(d, what, sizeof what);
    SimEncoding as = d->enc;
    if (d->kind == SIM_DECODE_UTF16_BOM || d->kind == SIM_DECODE_WRONG_BOM) {
        sim_encoding_find("utf-16", &as);
    }
    delimiter_hint(R, &as, also, sizeof also);
    switch (d->kind) {
    case SIM_DECODE_UTF16_BOM:
        return sim_fail(R->err, SIM_ERR_PARSE,
                        "%s:1: %s: use --encoding utf-16%s, or save it as "
                        "\"CSV UTF-8\"",
                        R->path, what, also);
    case SIM_DECODE_NO_BOM:
        return sim_fail(R->err, SIM_ERR_PARSE,
                        "%s:1: --encoding %s needs a byte order mark at the "
                        "start of the file (Excel's \"Unicode Text\" has one); "
                        "none found",
                        R->path, d->enc.name);
    case SIM_DECODE_WRONG_BOM:
        return sim_fail(R->err, SIM_ERR_PARSE,
                        "%s:1: %s: use --encoding utf-16%s", R->path, what,
                        also);
    default:
        break;
    }
    if (d->enc.kind == SIM_ENC_UTF8 && !d->utf8_bom) {
        return sim_fail(R->err, SIM_ERR_PARSE,
                        "%s:%ld: %s: save the file as \"CSV UTF-8\", or give "
                        "its encoding with --encoding%s (Excel's \"CSV\" on "
                        "Windows: windows-1252 in Western Europe and the "
                        "Americas; docs/analysis.md lists the others)",
                        R->path, p->line, what, also);
    }
    return sim_fail(R->err, SIM_ERR_PARSE,
                    "%s:%ld: %s: check --encoding%s, or save the file as \"CSV "
                    "UTF-8\"",
                    R->path, p->line, what, also);
}

/* When a file read as UTF-8 is not: ", and --encoding with ... (LINE:
** what)" into out, so that one run names both options; else "". */
static void encoding_hint(const CsvReader *R, char *out, size_t n)
{
    out[0] = '\0';
    if (R->enc && R->enc->kind != SIM_ENC_UTF8) {
        return;
    }
    FILE *f = fopen(R->path, "rb");
    SimDecoder *d = NULL;
    char *buf = f ? sim_malloc(1 << 20) : NULL;
    if (!buf || sim_decoder_new(&d, NULL, 0) != 0) {
        goto cleanup;
    }
    size_t held = 0;
    long line = 1;
    int last = 0, cr = 0;
    while (!last) {
        size_t got = fread(buf + held, 1, (1 << 20) - held, f);
        last = got == 0;
        size_t len = held + got, skip, used;
        SimDecodeProblem p;
        int bad = sim_decoder_check(d, buf, len, last, &skip, &used, &p);
        line += sim_text_line_at(buf, used) - 1;
        line -= cr && used > 0 && buf[0] == '\n'; /* a CRLF cut in two */
        cr = used > 0 && buf[used - 1] == '\r';
        if (bad) {
            char what[300];
            sim_decode_describe(&p, what, sizeof what);
            snprintf(out, n,
                     ", and --encoding with the file's encoding "
                     "(line %ld: %s)",
                     line, what);
            break;
        }
        memmove(buf, buf + used, len - used);
        held = len - used;
    }
cleanup:
    sim_decoder_free(d);
    sim_free(buf);
    if (f) {
        fclose(f);
    }
}

static int csv_header(CsvReader *R, const SimCsvField *fields, int n,
                      const Where *w)
{
    if (n == 1) { /* written with another delimiter? */
        static const char cands[3] = {',', ';', '\t'};
        for (int c = 0; c < 3; c++) {
            if (cands[c] != R->delim &&
                memchr(fields[0].p, cands[c], fields[0].n)) {
                char also[400];
                encoding_hint(R, also, sizeof also);
                return sim_fail(R->err, SIM_ERR_PARSE,
                                "%s:%ld: the header is one field that "
                                "splits on %s: add --delimiter %s%s",
                                R->path, w->line,
                                cands[c] == '\t' ? "tabs"
                                : c              ? "';'"
                                                 : "','",
                                cands[c] == '\t' ? "tab"
                                : c              ? "';'"
                                                 : "','",
                                also);
            }
        }
    }
    size_t total = 0;
    for (int f = 0; f < n; f++) {
        total += fields[f].n + 1;
    }
    R->n_header = n;
    R->header = sim_calloc((size_t)n, sizeof *R->header);
    R->header_text = sim_malloc(total + 1);
    R->col_of_field = sim_malloc((size_t)n * sizeof(int));
    if (!R->header || !R->header_text || !R->col_of_field) {
        return sim_fail(R->err, SIM_ERR_NOMEM, "out of memory");
    }
    char *t = R->header_text;
    for (int f = 0; f < n; f++) {
        memcpy(t, fields[f].p, fields[f].n);
        t[fields[f].n] = '\0';
        R->header[f].p = t;
        R->header[f].n = fields[f].n;
        t += fields[f].n + 1;
    }
    return dataset_map_header(R->header, R->n_header, R->col_of_field, w,
                              R->err);
}

static void hex(const uint8_t *d, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[2 * n] = '\0';
}

static int csv_read(CsvReader *R, FILE *f)
{
    Where w = {R->path, "", 1};
    Val v[COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++) {
        v[c].p = "";
        v[c].n = 0;
    }
    SimCsvOptions o = {R->delim, R->enc, R->hashing ? hash_bytes : NULL,
                       &R->sha};
    int rc = sim_csv_open_file(&R->csv, f, R->path, &o, R->err);
    SimCsvRecord rec;
    while (rc == SIM_OK) {
        int got = sim_csv_next(R->csv, &rec, R->err);
        if (got == 0) {
            break;
        }
        if (got != 1) {
            return got == SIM_ERR_PARSE ? csv_problem(R) : got;
        }
        w.line = rec.line;
        if (rec.n == 1 && rec.fields[0].n == 0) {
            continue; /* an empty quoted line */
        }
        if (!R->header) {
            rc = csv_header(R, rec.fields, rec.n, &w);
            continue;
        }
        if (rec.n != R->n_header) {
            return sim_fail(R->err, SIM_ERR_PARSE,
                            "%s:%ld: %d fields, but the header has %d", R->path,
                            w.line, rec.n, R->n_header);
        }
        /* columns absent from the file stay empty in v */
        const int *col = R->col_of_field;
        const SimCsvField *fl = rec.fields;
        for (int k = 0, n = rec.n; k < n; k++) {
            if (col[k] >= 0) {
                v[col[k]].p = fl[k].p;
                v[col[k]].n = fl[k].n;
            }
        }
        rc = dataset_add_vals(R->ds, v, &w, R->err);
        R->rows++;
    }
    if (rc == SIM_OK && !R->header) {
        rc = sim_fail(R->err, SIM_ERR_PARSE, "%s:1: no header row", R->path);
    }
    return rc;
}

int dataset_load_csv(Dataset *ds, const char *path, SimError *err)
{
    return dataset_load_csv_dialect(ds, path, NULL, err);
}

int dataset_parse_delimiter(const char *s, char *out)
{
    if (strcmp(s, ",") == 0 || strcmp(s, ";") == 0 || strcmp(s, "\t") == 0) {
        *out = s[0];
    } else if (strcmp(s, "tab") == 0 || strcmp(s, "\\t") == 0) {
        *out = '\t';
    } else {
        return -1;
    }
    return 0;
}

int dataset_parse_encoding(const char *s, SimEncoding *out)
{
    return sim_encoding_find(s, out);
}

int dataset_load_csv_dialect(Dataset *ds, const char *path,
                             const DatasetCsvDialect *dialect, SimError *err)
{
    Sidecar sc;
    int rc = sidecar_open(&sc, ds, path, err);
    if (rc != SIM_OK) {
        json_decref(sc.root);
        return rc;
    }
    CsvReader R;
    memset(&R, 0, sizeof R);
    R.ds = ds;
    R.err = err;
    R.path = path;
    R.hashing = sc.sha != NULL;
    R.delim = dialect ? dialect->delimiter : ',';
    R.enc = dialect && dialect->encoding.name[0] ? &dialect->encoding : NULL;
    if (R.hashing) {
        sha256_init(&R.sha);
    }
    dataset_reset_caches(ds->load);
    FILE *f = fopen(path, "rb");
    if (!f) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: cannot open: %s", path,
                      strerror(errno));
    } else {
        rc = csv_read(&R, f);
    }
    char sha[2 * SHA256_DIGEST_SIZE + 1] = "";
    if (rc == SIM_OK && R.hashing) {
        uint8_t d[SHA256_DIGEST_SIZE];
        sha256_digest(&R.sha, sizeof d, d);
        hex(d, sizeof d, sha);
    }
    if (f) {
        fclose(f);
    }
    sim_csv_close(R.csv);
    sim_free(R.header);
    sim_free(R.header_text);
    sim_free(R.col_of_field);
    if (rc == SIM_OK) {
        rc = sidecar_finish(&sc, ds, R.rows, sha, err);
    }
    json_decref(sc.root);
    if (rc == SIM_OK) {
        ds->n_sources++;
        dataset_fit_rows(ds);
        dataset_settle_scale(ds);
    }
    return rc;
}

/* ------------------------------------------------------ side files */

int side_csv_field_is(const SimCsvField *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

int side_csv_open(SideCsv *f, const char *path, const char *const *need, int n,
                  int *col, SimError *err)
{
    f->r = NULL;
    f->fp = fopen(path, "rb");
    if (!f->fp) {
        return errno == ENOENT
                   ? SIM_OK
                   : sim_fail(err, SIM_ERR_IO, "%s: cannot read: %s", path,
                              strerror(errno));
    }
    SimCsvOptions o = {',', NULL, NULL, NULL};
    int rc = sim_csv_open_file(&f->r, f->fp, path, &o, err);
    SimCsvRecord rec;
    int got = rc == SIM_OK ? sim_csv_next(f->r, &rec, err) : 0;
    if (rc == SIM_OK && got != 1) {
        rc = got == 0
                 ? sim_fail(err, SIM_ERR_INVALID, "%s:1: no header line", path)
                 : got;
    }
    for (int k = 0; rc == SIM_OK && k < n; k++) {
        col[k] = -1;
        for (int i = 0; i < rec.n; i++) {
            if (side_csv_field_is(&rec.fields[i], need[k])) {
                col[k] = i;
            }
        }
        if (col[k] < 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s:%ld: column '%s': missing from the header", path,
                          rec.line, need[k]);
        }
    }
    if (rc != SIM_OK) {
        side_csv_close(f);
    }
    return rc;
}

void side_csv_close(SideCsv *f)
{
    sim_csv_close(f->r);
    f->r = NULL;
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
    }
}
