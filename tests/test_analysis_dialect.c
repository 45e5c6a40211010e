/*
** CSV dialects of simlab-analyze (--delimiter, --encoding): the names, the
** same rows from a UTF-8 file and from its copies with ';' or tabs in
** Windows-1252, Latin-1, UTF-16LE/BE (with byte order marks) and UTF-8
** with a byte order mark; UTF-16 across the reader's raw chunks (a
** surrogate pair cut by the chunk's end); empty tab-separated fields; the
** sidecar's SHA-256 of the bytes as stored; and the located errors.
*/
#include "tests/harness.h"

#include <nettle/sha2.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "analysis/analyze.h"
#include "analysis/dataset.h"

static char tmpdir[256];

static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

static int has(const SimError *err, const char *s)
{
    if (strstr(err->msg, s)) {
        return 1;
    }
    fprintf(stderr, "message: %s\n  lacks: %s\n", err->msg, s);
    return 0;
}

/* A growing byte string. */
typedef struct Bytes {
    unsigned char *p;
    size_t n, cap;
} Bytes;

static void put(Bytes *b, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

/* Decodes one code point of UTF-8 at *s. */
static unsigned long next_cp(const unsigned char **s)
{
    const unsigned char *p = *s;
    unsigned long c = p[0];
    int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n > 1) {
        c &= 0x3Fu >> (n - 1);
        for (int i = 1; i < n; i++) {
            c = (c << 6) | (p[i] & 0x3Fu);
        }
    }
    *s = p + n;
    return c;
}

enum { ENC_UTF8, ENC_1252, ENC_LATIN1, ENC_UTF16LE, ENC_UTF16BE };

/* Encodes the UTF-8 text in enc (UTF-16 with its byte order mark), with
** every ',' outside quotes replaced by delim. */
static Bytes encode(const char *text, int enc, char delim)
{
    Bytes b = {0};
    if (enc == ENC_UTF16LE) {
        put(&b, "\xFF\xFE", 2);
    } else if (enc == ENC_UTF16BE) {
        put(&b, "\xFE\xFF", 2);
    }
    const unsigned char *s = (const unsigned char *)text;
    int quoted = 0;
    while (*s) {
        unsigned long c = next_cp(&s);
        quoted ^= c == '"';
        if (c == ',' && !quoted) {
            c = (unsigned char)delim;
        }
        if (enc == ENC_UTF8) {
            char tmp[4];
            size_t n = 0;
            if (c < 0x80) {
                tmp[n++] = (char)c;
            } else if (c < 0x800) {
                tmp[n++] = (char)(0xC0 | (c >> 6));
                tmp[n++] = (char)(0x80 | (c & 0x3F));
            } else if (c < 0x10000) {
                tmp[n++] = (char)(0xE0 | (c >> 12));
                tmp[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
                tmp[n++] = (char)(0x80 | (c & 0x3F));
            } else {
                tmp[n++] = (char)(0xF0 | (c >> 18));
                tmp[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
                tmp[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
                tmp[n++] = (char)(0x80 | (c & 0x3F));
            }
            put(&b, tmp, n);
        } else if (enc == ENC_1252 || enc == ENC_LATIN1) {
            unsigned char x = (unsigned char)c;
            if (c == 0x20AC) {
                x = 0x80; /* the euro sign, 1252 only */
            }
            put(&b, &x, 1);
        } else {
            unsigned long units[2];
            int n = 1;
            units[0] = c;
            if (c >= 0x10000) {
                units[0] = 0xD800 + ((c - 0x10000) >> 10);
                units[1] = 0xDC00 + ((c - 0x10000) & 0x3FF);
                n = 2;
            }
            for (int i = 0; i < n; i++) {
                unsigned char u[2] = {(unsigned char)(units[i] & 0xFF),
                                      (unsigned char)(units[i] >> 8)};
                if (enc == ENC_UTF16BE) {
                    unsigned char t = u[0];
                    u[0] = u[1];
                    u[1] = t;
                }
                put(&b, u, 2);
            }
        }
    }
    return b;
}

static const char *const TEXT =
    "participant,condition,phase,item,correct,domain\r\n"
    "p1,baseline,pre,caf\xC3\xA9,1,na\xC3\xAFve\r\n"
    "p1,baseline,post,caf\xC3\xA9,0,na\xC3\xAFve\r\n"
    "p2,\xC3\x84rger,pre,\"a,b\",,\r\n"
    "p2,\xC3\x84rger,post,\"a,b\",1,\r\n";

/* The rows of ds as one comparable string. */
static void rows_text(const Dataset *ds, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ds->n_rows && k < n; i++) {
        const DatasetResponse *r = &ds->rows[i];
        k += (size_t)snprintf(
            out + k, n - k, "%s|%s|%s|%s|%d|%s\n",
            dataset_str(ds, ds->participants[r->participant].name),
            dataset_str(ds, r->condition), dataset_phase_name((int)r->phase),
            dataset_str(ds, (int)r->item), (int)r->correct,
            dataset_str(ds, dataset_domain(ds, r)));
    }
}

/* Loads path written with delim in the encoding called enc. */
static int load(const char *path, char delim, const char *enc, Dataset **ds,
                SimError *err)
{
    DatasetCsvDialect d;
    memset(&d, 0, sizeof d);
    d.delimiter = delim;
    CHECK_INT(dataset_parse_encoding(enc, &d.encoding), 0);
    dataset_new(ds, err);
    return dataset_load_csv_dialect(*ds, path, &d, err);
}

static void test_names(void)
{
    char c = 0;
    SimEncoding e;
    CHECK(dataset_parse_delimiter(",", &c) == 0 && c == ',');
    CHECK(dataset_parse_delimiter(";", &c) == 0 && c == ';');
    CHECK(dataset_parse_delimiter("tab", &c) == 0 && c == '\t');
    CHECK(dataset_parse_delimiter("\\t", &c) == 0 && c == '\t');
    CHECK(dataset_parse_delimiter("\t", &c) == 0 && c == '\t');
    CHECK(dataset_parse_delimiter("|", &c) != 0);
    CHECK(dataset_parse_encoding("UTF-8", &e) == 0 && e.kind == SIM_ENC_UTF8);
    CHECK(dataset_parse_encoding("cp1252", &e) == 0 &&
          strcmp(e.name, "windows-1252") == 0);
    CHECK(dataset_parse_encoding("Windows-1252", &e) == 0 &&
          strcmp(e.name, "windows-1252") == 0);
    CHECK(dataset_parse_encoding("ISO-8859-1", &e) == 0 &&
          strcmp(e.name, "latin-1") == 0);
    CHECK(dataset_parse_encoding("utf-16", &e) == 0 && e.kind == SIM_ENC_UTF16);
    CHECK(dataset_parse_encoding("CP1256", &e) == 0 &&
          strcmp(e.name, "windows-1256") == 0);
    CHECK(dataset_parse_encoding("SJIS", &e) == 0 &&
          strcmp(e.name, "shift_jis") == 0);
    CHECK(dataset_parse_encoding("ebcdic", &e) != 0);
    CHECK(dataset_parse_encoding("utf-8//TRANSLIT", &e) != 0);
}

static void test_same_rows(void)
{
    char path[512], want[4096], got[4096];
    SimError err;
    Dataset *ds;
    tmp_path(path, sizeof path, "utf8.csv");
    write_bytes(path, TEXT, strlen(TEXT));
    CHECK_INT(load(path, ',', "utf-8", &ds, &err), SIM_OK);
    CHECK_INT(ds->n_rows, 4);
    rows_text(ds, want, sizeof want);
    CHECK(strstr(want, "p1|baseline|pre|caf\xC3\xA9|1|na\xC3\xAFve") != NULL);
    CHECK(strstr(want, "p2|\xC3\x84rger|pre|a,b|-1|") != NULL);
    dataset_free(ds);
    static const struct {
        int enc;
        char delim;
        const char *as;
        const char *bom; /* prepended */
    } cases[] = {
        {ENC_1252, ';', "windows-1252", ""},
        {ENC_LATIN1, ',', "latin-1", ""},
        {ENC_LATIN1, '\t', "latin-1", ""},
        {ENC_UTF16LE, '\t', "utf-16", ""},
        {ENC_UTF16BE, ';', "utf-16", ""},
        {ENC_UTF8, ';', "utf-8", "\xEF\xBB\xBF"},
        /* a UTF-8 file with its mark, read as Windows-1252: UTF-8 */
        {ENC_UTF8, ',', "windows-1252", "\xEF\xBB\xBF"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Bytes b = {0};
        put(&b, cases[i].bom, strlen(cases[i].bom));
        Bytes e = encode(TEXT, cases[i].enc, cases[i].delim);
        put(&b, e.p, e.n);
        snprintf(path, sizeof path, "%s/case%zu.csv", tmpdir, i);
        write_bytes(path, b.p, b.n);
        int rc = load(path, cases[i].delim, cases[i].as, &ds, &err);
        CHECK_INT(rc, SIM_OK);
        if (rc != SIM_OK) {
            fprintf(stderr, "case %zu: %s\n", i, err.msg);
        }
        rows_text(ds, got, sizeof got);
        CHECK_STR(got, want);
        dataset_free(ds);
        free(b.p);
        free(e.p);
    }
}

/* A UTF-16 file larger than the reader's 64 KiB raw chunks, with a
** surrogate pair in every row so that one is cut by a chunk's end. */
static void test_utf16_chunks(void)
{
    Bytes t = {0};
    const char *head = "participant,condition,phase,item,correct\n";
    put(&t, head, strlen(head));
    for (int i = 0; i < 3000; i++) {
        char row[128];
        int n = snprintf(row, sizeof row,
                         "p%d,baseline,%s,i%d\xF0\x9F\x98\x80,%d\n", i / 10,
                         i % 2 ? "post" : "pre", i % 7, i % 3 == 0);
        put(&t, row, (size_t)n);
    }
    put(&t, "", 1);
    char p8[512], p16[512], a[1 << 16], b[1 << 16];
    tmp_path(p8, sizeof p8, "big8.csv");
    tmp_path(p16, sizeof p16, "big16.csv");
    write_bytes(p8, t.p, t.n - 1);
    Bytes e = encode((const char *)t.p, ENC_UTF16LE, ',');
    CHECK(e.n > 2 * 65536);
    write_bytes(p16, e.p, e.n);
    SimError err;
    Dataset *x, *y;
    CHECK_INT(load(p8, ',', "utf-8", &x, &err), SIM_OK);
    CHECK_INT(load(p16, ',', "utf-16", &y, &err), SIM_OK);
    CHECK_INT(x->n_rows, 3000);
    CHECK_INT(y->n_rows, 3000);
    rows_text(x, a, sizeof a);
    rows_text(y, b, sizeof b);
    CHECK(strcmp(a, b) == 0);
    dataset_free(x);
    dataset_free(y);
    free(t.p);
    free(e.p);
}

/* Tabs delimit: an empty last field stays a field. */
static void test_tab_fields(void)
{
    char path[512];
    tmp_path(path, sizeof path, "tabs.csv");
    const char *text = "participant\tcondition\tphase\titem\tcorrect\n"
                       "p1\tbaseline\tpre\ti1\t\n"
                       "p1\tbaseline\tpost\t i2 \t1\n";
    write_bytes(path, text, strlen(text));
    SimError err;
    Dataset *ds;
    CHECK_INT(load(path, '\t', "utf-8", &ds, &err), SIM_OK);
    CHECK_INT(ds->n_rows, 2);
    CHECK_INT(ds->rows[0].correct, -1);
    CHECK_STR(dataset_str(ds, (int)ds->rows[1].item), "i2");
    dataset_free(ds);
}

static void sha256_hex(const void *p, size_t n, char *hex)
{
    struct sha256_ctx c;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&c);
    sha256_update(&c, n, p);
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    }
}

/* The sidecar's SHA-256 is of the file as stored, not as decoded. */
static void test_sidecar_raw_bytes(void)
{
    char path[512], side[600], hex[65], json[300];
    tmp_path(path, sizeof path, "side16.csv");
    Bytes e = encode(TEXT, ENC_UTF16BE, ';');
    write_bytes(path, e.p, e.n);
    sha256_hex(e.p, e.n, hex);
    snprintf(side, sizeof side, "%s.json", path);
    snprintf(json, sizeof json, "{\"rows\": 4, \"sha256\": \"%s\"}", hex);
    write_bytes(side, json, strlen(json));
    SimError err;
    Dataset *ds;
    CHECK_INT(load(path, ';', "utf-16", &ds, &err), SIM_OK);
    dataset_free(ds);
    sha256_hex(TEXT, strlen(TEXT), hex); /* of the UTF-8 text: refused */
    snprintf(json, sizeof json, "{\"rows\": 4, \"sha256\": \"%s\"}", hex);
    write_bytes(side, json, strlen(json));
    CHECK(load(path, ';', "utf-16", &ds, &err) != SIM_OK);
    CHECK(has(&err, "SHA-256"));
    dataset_free(ds);
    remove(side);
    free(e.p);
}

static void expect_error(const char *name, const void *bytes, size_t n,
                         char delim, const char *enc, const char *want)
{
    char path[512], msg[700];
    tmp_path(path, sizeof path, name);
    write_bytes(path, bytes, n);
    SimError err;
    Dataset *ds;
    CHECK(load(path, delim, enc, &ds, &err) != SIM_OK);
    snprintf(msg, sizeof msg, "%s%s", path, want);
    CHECK(has(&err, msg));
    dataset_free(ds);
}

static void test_errors(void)
{
    const char *h = "participant,condition,phase,item,correct\n";
    char t[256];
    /* 0x81 is not Windows-1252 (it is Latin-1) */
    snprintf(t, sizeof t, "%sp1,baseline,pre,i\x81,1\n", h);
    expect_error("e1.csv", t, strlen(t), ',', "windows-1252",
                 ":2: byte 0x81 (byte 59 of the file, byte 18 of the line) "
                 "is not windows-1252 text: check --encoding");
    char path[512];
    SimError err;
    Dataset *ds;
    tmp_path(path, sizeof path, "e1.csv");
    CHECK_INT(load(path, ',', "latin-1", &ds, &err), SIM_OK);
    CHECK_STR(dataset_str(ds, (int)ds->rows[0].item), "i\xC2\x81");
    dataset_free(ds);
    /* Windows-1252's 0x80 is the euro sign */
    snprintf(t, sizeof t, "%sp1,baseline,pre,\x80,1\n", h);
    tmp_path(path, sizeof path, "euro.csv");
    write_bytes(path, t, strlen(t));
    CHECK_INT(load(path, ',', "windows-1252", &ds, &err), SIM_OK);
    CHECK_STR(dataset_str(ds, (int)ds->rows[0].item), "\xE2\x82\xAC");
    dataset_free(ds);
    /* UTF-16 without its mark, and a UTF-16 file read as UTF-8 */
    expect_error("e2.csv", h, strlen(h), ',', "utf-16",
                 ":1: --encoding utf-16 needs a byte order mark");
    Bytes e = encode(h, ENC_UTF16LE, ',');
    expect_error("e3.csv", e.p, e.n, ',', "utf-8",
                 ":1: the file is UTF-16 (it starts with a UTF-16 byte order "
                 "mark): use --encoding utf-16");
    /* Excel's "Unicode Text" (UTF-16, tabs): both options in one message */
    Bytes u = encode(h, ENC_UTF16LE, '\t');
    expect_error("e3t.txt", u.p, u.n, ',', "utf-8",
                 ":1: the file is UTF-16 (it starts with a UTF-16 byte order "
                 "mark): use --encoding utf-16, and --delimiter tab (its "
                 "header splits on tabs), or save it as \"CSV UTF-8\"");
    free(u.p);
    /* cut short, and an unpaired surrogate on line 2 */
    expect_error("e4.csv", e.p, e.n - 1, ',', "utf-16",
                 ":1: UTF-16 file with an odd number of bytes");
    free(e.p);
    snprintf(t, sizeof t, "%sp1,baseline,pre,i", h);
    e = encode(t, ENC_UTF16LE, ',');
    put(&e, "\x00\xDC", 2); /* a low surrogate alone */
    expect_error("e5.csv", e.p, e.n, ',', "utf-16",
                 ":2: invalid UTF-16: an unpaired surrogate at byte");
    free(e.p);
    /* the header split by another delimiter: the option to add */
    const char *semi = "participant;condition;phase;item;correct\n"
                       "p1;baseline;pre;i1;1\n";
    expect_error("e6.csv", semi, strlen(semi), ',', "utf-8",
                 ":1: the header is one field that splits on ';': add "
                 "--delimiter ';'");
    expect_error("e7.csv", semi, strlen(semi), '\t', "utf-8",
                 ":1: the header is one field that splits on ';'");
    /* values keep their located errors in any dialect */
    const char *bad = "participant;condition;phase;item;correct\n"
                      "p1;baseline;pre;i1;1\n"
                      "p1;baseline;post;i1;x\n";
    e = encode(bad, ENC_UTF16BE, ';');
    expect_error("e8.csv", e.p, e.n, ';', "utf-16",
                 ":3: column 'correct': expected 0, 1 or empty, got 'x'");
    free(e.p);
}

/* analyze_main() reads every --csv file in the options' dialect. */
static void test_analyze_options(void)
{
    char path[512], out[512];
    Bytes e = encode(TEXT, ENC_1252, ';');
    tmp_path(path, sizeof path, "opt.csv");
    tmp_path(out, sizeof out, "opt_out");
    write_bytes(path, e.p, e.n);
    AnalyzeOptions o;
    analyze_options_default(&o);
    CHECK_INT(o.csv_delimiter, ',');
    CHECK_INT((int)o.csv_encoding.kind, (int)SIM_ENC_UTF8);
    o.replicates = 20;
    o.quiet = 1;
    o.progress = 0;
    o.plots = 0;
    o.csv_delimiter = ';';
    CHECK_INT(dataset_parse_encoding("windows-1252", &o.csv_encoding), 0);
    const char *csvs[1] = {path};
    SimError err;
    sim_error_clear(&err);
    int rc = analyze_main(&o, NULL, 0, csvs, 1, out, &err);
    CHECK_INT(rc, SIM_OK);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    o.csv_delimiter = ',';
    CHECK(analyze_main(&o, NULL, 0, csvs, 1, out, &err) != SIM_OK);
    CHECK(has(&err, "add --delimiter ';'"));
    free(e.p);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "analysis_dialect_tmp");
    mkdir(tmpdir, 0755);
    test_names();
    test_same_rows();
    test_utf16_chunks();
    test_tab_fields();
    test_sidecar_raw_bytes();
    test_errors();
    test_analyze_options();
    return TEST_REPORT();
}
