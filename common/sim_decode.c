/*
** Text files in any encoding glibc's iconv knows, converted to UTF-8 (see
** sim_decode.h): the names, byte order marks, UTF-8 checked in place, the
** rest through iconv, and where bytes do not fit. libc (iconv) only.
*/
#include "common/sim_decode.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

/* ------------------------------------------------------------ names */

/* The usual names of one encoding (space-separated, compared ignoring case
** with '_' as '-'), the name messages use and iconv's. */
static const struct {
    const char *names;
    const char *name;
    const char *iconv;
} aliases[] = {
    {"utf-8 utf8", "utf-8", ""},
    {"utf-16 utf16 unicode", "utf-16", ""},
    {"utf-16le utf16le", "utf-16le", "UTF-16LE"},
    {"utf-16be utf16be", "utf-16be", "UTF-16BE"},
    {"latin-1 latin1 iso-8859-1 iso8859-1 l1", "latin-1", "ISO-8859-1"},
    {"shift-jis sjis cp932 windows-31j ms932 ms-kanji x-sjis", "shift_jis",
     "CP932"},
    {"gbk cp936 ms936 windows-936 gb2312 euc-cn", "gbk", "GBK"},
    {"gb18030", "gb18030", "GB18030"},
    {"big5 big-5 cp950 windows-950", "big5", "CP950"},
    {"euc-kr cp949 uhc windows-949 ks-c-5601-1987", "euc-kr", "CP949"},
    {"windows-874 cp874 tis-620", "windows-874", "CP874"},
    {"ascii us-ascii", "us-ascii", "ASCII"},
};

static char fold(char c)
{
    c = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    return c == '_' ? '-' : c;
}

/* Whether the space-separated list holds name (folded). */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, " ");
        if (k == n) {
            size_t i = 0;
            while (i < n && fold(p[i]) == fold(name[i])) {
                i++;
            }
            if (i == n) {
                return 1;
            }
        }
        p += k + (p[k] == ' ');
    }
    return 0;
}

/* The bytes of s in encoding to (from UTF-8) equal s: ASCII-compatible. */
static int keeps_ascii(const char *to)
{
    iconv_t cd = iconv_open(to, "UTF-8");
    if (cd == (iconv_t)-1) {
        return 0;
    }
    static const char text[] = "\n\r\t\",;Az09";
    char out[64];
    char *ip = (char *)text, *op = out;
    size_t il = sizeof text - 1, ol = sizeof out;
    size_t r = iconv(cd, &ip, &il, &op, &ol);
    iconv_close(cd);
    return r != (size_t)-1 && il == 0 &&
           (size_t)(op - out) == sizeof text - 1 &&
           memcmp(out, text, sizeof text - 1) == 0;
}

/* Whether every byte 0x80-0xFF alone is a whole character or invalid (not
** the start of a longer one). */
static int one_byte_each(iconv_t cd)
{
    for (int b = 0x80; b <= 0xFF; b++) {
        char in = (char)b, out[16];
        char *ip = &in, *op = out;
        size_t il = 1, ol = sizeof out;
        iconv(cd, NULL, NULL, NULL, NULL);
        if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 && errno == EINVAL) {
            return 0;
        }
    }
    return 1;
}

/* Fills e for iconv's name iname; name is what messages show. */
static int resolve(const char *name, const char *iname, SimEncoding *e)
{
    iconv_t cd = iconv_open("UTF-8", iname);
    if (cd == (iconv_t)-1) {
        return -1;
    }
    memset(e, 0, sizeof *e);
    e->kind = SIM_ENC_ICONV;
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->iconv, sizeof e->iconv, "%s", iname);
    e->ascii = keeps_ascii(iname);
    e->single_byte = e->ascii && one_byte_each(cd);
    iconv_close(cd);
    return 0;
}

int sim_encoding_find(const char *name, SimEncoding *out)
{
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof out->name || strchr(name, '/') ||
        strchr(name, ' ')) {
        return -1; /* iconv's "//TRANSLIT" suffixes are not names */
    }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        if (!listed(aliases[i].names, name) && !listed(aliases[i].name, name)) {
            continue;
        }
        if (!aliases[i].iconv[0]) {
            memset(out, 0, sizeof *out);
            out->kind = strcmp(aliases[i].name, "utf-8") == 0 ? SIM_ENC_UTF8
                                                              : SIM_ENC_UTF16;
            snprintf(out->name, sizeof out->name, "%s", aliases[i].name);
            out->ascii = out->kind == SIM_ENC_UTF8;
            return 0;
        }
        return resolve(aliases[i].name, aliases[i].iconv, out);
    }
    char low[sizeof out->name], up[sizeof out->name];
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];
        low[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        up[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    /* Excel's code pages: windows-125x, cp125x, win125x */
    const char *digits = NULL;
    static const char *const prefixes[] = {"windows-", "windows", "win-", "win",
                                           "cp"};
    for (size_t i = 0; !digits && i < 5; i++) {
        size_t k = strlen(prefixes[i]);
        digits = strncmp(low, prefixes[i], k) == 0 ? low + k : NULL;
    }
    if (digits && strlen(digits) == 4 && strncmp(digits, "125", 3) == 0 &&
        digits[3] >= '0' && digits[3] <= '8') {
        char nm[16], in[16];
        snprintf(nm, sizeof nm, "windows-%s", digits);
        snprintf(in, sizeof in, "CP%s", digits);
        return resolve(nm, in, out);
    }
    if (resolve(low, up, out) == 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        up[i] = up[i] == '_' ? '-' : up[i];
    }
    return resolve(low, up, out);
}

void sim_encoding_utf8(SimEncoding *out)
{
    memset(out, 0, sizeof *out);
    out->kind = SIM_ENC_UTF8;
    snprintf(out->name, sizeof out->name, "utf-8");
    out->ascii = 1;
}

const char *sim_encoding_of_language(const char *lang)
{
    /* primary subtag -> Windows ANSI code page */
    static const struct {
        const char *langs;
        const char *enc;
    } pages[] = {
        {"ar fa ur ps ckb sd ug", "windows-1256"},
        {"he yi", "windows-1255"},
        {"ru uk be bg mk sr kk ky tg mn tt ba", "windows-1251"},
        {"el", "windows-1253"},
        {"tr az uz", "windows-1254"},
        {"pl cs sk hu ro hr sl sq bs", "windows-1250"},
        {"lt lv et", "windows-1257"},
        {"vi", "windows-1258"},
        {"th", "windows-874"},
        {"ja", "shift_jis"},
        {"ko", "euc-kr"},
        {"en de fr es it pt nl sv da no nb nn fi is ga ca eu gl af id ms sw "
         "tl fo lb rm",
         "windows-1252"},
    };
    if (!lang || !lang[0]) {
        return NULL;
    }
    char primary[16];
    size_t k = strcspn(lang, "-_");
    if (k >= sizeof primary) {
        return NULL;
    }
    for (size_t i = 0; i < k; i++) {
        primary[i] = fold(lang[i]);
    }
    primary[k] = '\0';
    if (strcmp(primary, "zh") == 0) {
        /* Traditional script or region: Big5; else GBK */
        const char *rest = lang + k;
        static const char *const trad[] = {"-hant", "-tw", "-hk", "-mo"};
        for (size_t i = 0; i < sizeof trad / sizeof *trad; i++) {
            size_t m = strlen(trad[i]);
            for (const char *p = rest; *p; p++) {
                size_t j = 0;
                while (j < m && p[j] && fold(p[j]) == trad[i][j]) {
                    j++;
                }
                if (j == m && (p[m] == '\0' || p[m] == '-' || p[m] == '_')) {
                    return "big5";
                }
            }
        }
        return "gbk";
    }
    /* Serbian, Uzbek and Azeri in Latin script */
    if (strstr(lang, "Latn") || strstr(lang, "latn")) {
        if (strcmp(primary, "sr") == 0) {
            return "windows-1250";
        }
    }
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        if (listed(pages[i].langs, primary)) {
            return pages[i].enc;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ messages */

static int is_utf16(const SimEncoding *e)
{
    return e->kind == SIM_ENC_UTF16 || strcmp(e->iconv, "UTF-16LE") == 0 ||
           strcmp(e->iconv, "UTF-16BE") == 0;
}

void sim_decode_describe(const SimDecodeProblem *p, char *out, size_t n)
{
    const SimEncoding *e = &p->enc;
    long long at = p->at + 1, col = p->at - p->line_start + 1;
    unsigned b0 = p->n_bytes > 0 ? p->bytes[0] : 0;
    unsigned b1 = p->n_bytes > 1 ? p->bytes[1] : 0;
    char line[48] = "";
    if (p->line_start >= 0) {
        snprintf(line, sizeof line, ", byte %lld of the line", col);
    }
    switch (p->kind) {
    case SIM_DECODE_INVALID:
    case SIM_DECODE_CUT:
        if (e->kind == SIM_ENC_UTF8) {
            if (p->line_start >= 0) {
                snprintf(out, n,
                         "invalid UTF-8 at byte %lld of the line (byte "
                         "0x%02X, byte %lld of the file)%s",
                         col, b0, at,
                         p->utf8_bom ? " (read as UTF-8: the file starts "
                                       "with UTF-8's byte order mark)"
                                     : "");
            } else {
                snprintf(out, n,
                         "invalid UTF-8 (byte 0x%02X, byte %lld of "
                         "the file)",
                         b0, at);
            }
        } else if (is_utf16(e) && p->kind == SIM_DECODE_CUT &&
                   p->n_bytes % 2 == 1) {
            snprintf(out, n,
                     "UTF-16 file with an odd number of bytes (cut short?)");
        } else if (is_utf16(e)) {
            snprintf(out, n,
                     "invalid UTF-16: an unpaired surrogate at byte %lld of "
                     "the file",
                     at);
        } else if (p->kind == SIM_DECODE_CUT) {
            snprintf(out, n,
                     "the file ends inside a %s character (byte 0x%02X, "
                     "byte %lld of the file%s): cut short?",
                     e->name, b0, at, line);
        } else if (e->single_byte || p->n_bytes < 2) {
            snprintf(out, n,
                     "byte 0x%02X (byte %lld of the file%s) is not %s "
                     "text",
                     b0, at, line, e->name);
        } else {
            snprintf(out, n,
                     "bytes 0x%02X 0x%02X (byte %lld of the file%s) are not "
                     "a %s character",
                     b0, b1, at, line, e->name);
        }
        break;
    case SIM_DECODE_NO_BOM:
        snprintf(out, n,
                 "no byte order mark at the start of the file (%s needs one; "
                 "Excel's \"Unicode Text\" has one)",
                 e->name);
        break;
    case SIM_DECODE_UTF16_BOM:
        snprintf(out, n,
                 "the file is UTF-16 (it starts with a UTF-16 byte "
                 "order mark)");
        break;
    case SIM_DECODE_WRONG_BOM:
        snprintf(out, n,
                 "the file starts with the byte order mark of UTF-16%s, not "
                 "of %s",
                 b0 == 0xFE ? "BE" : "LE", e->name);
        break;
    }
}

/* ------------------------------------------------------------ decoding */

struct SimDecoder {
    SimEncoding enc; /* as declared */
    SimEncoding as;  /* as read (UTF-8 after UTF-8's mark; UTF-16's order) */
    iconv_t cd;      /* (iconv_t)-1 when not through iconv */
    int replace;
    int started;          /* the start of the file was looked at */
    int utf8_bom;         /* read as UTF-8 because of UTF-8's mark */
    size_t unit;          /* bytes skipped per bad character with replace */
    long long off;        /* file offset of the next call's in[0] */
    long long out_off;    /* UTF-8 bytes made so far */
    long long line_start; /* ASCII-compatible: where the line starts; -1 */
    int have_problem;
    SimDecodeProblem first;
};

int sim_decoder_new(SimDecoder **out, const SimEncoding *enc, int replace)
{
    *out = NULL;
    SimDecoder *d = sim_calloc(1, sizeof *d);
    if (!d) {
        return -1;
    }
    if (enc && enc->kind != SIM_ENC_UTF8) {
        d->enc = *enc;
    } else {
        sim_encoding_utf8(&d->enc); /* also for a zeroed struct */
    }
    d->as = d->enc;
    d->cd = (iconv_t)-1;
    d->replace = replace;
    d->unit = is_utf16(&d->enc) ? 2 : 1;
    d->line_start = d->enc.ascii ? 0 : -1;
    if (d->enc.kind == SIM_ENC_ICONV) {
        d->cd = iconv_open("UTF-8", d->enc.iconv);
        if (d->cd == (iconv_t)-1) {
            sim_free(d);
            return -1;
        }
    }
    *out = d;
    return 0;
}

void sim_decoder_free(SimDecoder *d)
{
    if (!d) {
        return;
    }
    if (d->cd != (iconv_t)-1) {
        iconv_close(d->cd);
    }
    sim_free(d);
}

size_t sim_decoder_room(size_t n)
{
    return 4 * n + 16;
}

int sim_decoder_in_place(const SimDecoder *d)
{
    return d->as.kind == SIM_ENC_UTF8 && !d->replace;
}

const SimDecodeProblem *sim_decoder_problem(const SimDecoder *d)
{
    return d->have_problem ? &d->first : NULL;
}

/* The length of the valid UTF-8 at the start of s[0..n); *why: 0 all of it,
** 1 the rest starts a character that n cuts, 2 the rest is invalid. */
static size_t utf8_prefix(const unsigned char *s, size_t n, int *why)
{
    size_t i = 0;
    while (i < n) {
        while (i + 16 <= n) {
            uint64_t a, b;
            memcpy(&a, s + i, 8);
            memcpy(&b, s + i + 8, 8);
            if ((a | b) & 0x8080808080808080ULL) {
                break;
            }
            i += 16;
        }
        if (i >= n) {
            break;
        }
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : lo;
            hi = c == 0xED ? 0x9F : hi; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : lo;
            hi = c == 0xF4 ? 0x8F : hi;
        } else {
            *why = 2;
            return i;
        }
        for (size_t k = 1; k < len; k++) {
            if (i + k >= n) {
                *why = 1;
                return i;
            }
            unsigned b = s[i + k];
            if (k == 1 ? b < lo || b > hi : (b & 0xC0) != 0x80) {
                *why = 2;
                return i;
            }
        }
        i += len;
    }
    *why = 0;
    return n;
}

/* The file offset where the line holding in[at] starts: after the last LF
** or CR before it (ASCII-compatible encodings), else d->line_start. */
static long long line_start_at(const SimDecoder *d, const char *in, size_t at)
{
    if (d->line_start < 0) {
        return -1;
    }
    for (size_t i = at; i > 0; i--) {
        if (in[i - 1] == '\n' || in[i - 1] == '\r') {
            return d->off + (long long)i;
        }
    }
    return d->line_start;
}

/* Notes a problem at in[at] (n bytes in all; made: output bytes before
** it); returns 1 when decoding stops there (no replace). */
static int problem(SimDecoder *d, SimDecodeKind kind, const char *in, size_t n,
                   size_t at, size_t made, SimDecodeProblem *p)
{
    SimDecodeProblem q;
    memset(&q, 0, sizeof q);
    q.kind = kind;
    q.at = d->off + (long long)at;
    q.line_start = line_start_at(d, in, at);
    q.out_at = d->out_off + (long long)made;
    q.n_bytes = (int)(n - at < 4 ? n - at : 4);
    memcpy(q.bytes, in + at, (size_t)q.n_bytes);
    q.utf8_bom = d->utf8_bom;
    q.enc = d->as;
    if (kind == SIM_DECODE_NO_BOM || kind == SIM_DECODE_WRONG_BOM) {
        q.enc = d->enc;
    }
    if (!d->have_problem) {
        d->first = q;
        d->have_problem = 1;
    }
    if (d->replace) {
        return 0;
    }
    if (p) {
        *p = q;
    }
    return 1;
}

/* Advances past used input bytes and made output bytes. */
static void advance(SimDecoder *d, const char *in, size_t used, size_t made)
{
    if (d->line_start >= 0) {
        d->line_start = line_start_at(d, in, used);
    }
    d->off += (long long)used;
    d->out_off += (long long)made;
}

/* Opens iconv for the byte order a UTF-16 mark named. */
static int open_utf16(SimDecoder *d, int big_endian)
{
    const char *name = big_endian ? "UTF-16BE" : "UTF-16LE";
    d->cd = iconv_open("UTF-8", name);
    d->unit = 2;
    return d->cd == (iconv_t)-1 ? -1 : 0;
}

/* Reads the start of the file: byte order marks. Returns the bytes to skip,
** -1 when decoding stops (problem noted), -2 when more bytes are needed. */
static int start(SimDecoder *d, const char *in, size_t n, int last,
                 SimDecodeProblem *p)
{
    const unsigned char *s = (const unsigned char *)in;
    if (n < 3 && !last) {
        return -2;
    }
    int u8 = n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF;
    int le = n >= 2 && s[0] == 0xFF && s[1] == 0xFE;
    int be = n >= 2 && s[0] == 0xFE && s[1] == 0xFF;
    d->started = 1;
    if (d->enc.kind == SIM_ENC_UTF16) {
        if (open_utf16(d, be) != 0) {
            return problem(d, SIM_DECODE_NO_BOM, in, n, 0, 0, p) ? -1 : 0;
        }
        if (le || be) {
            return 2;
        }
        return problem(d, SIM_DECODE_NO_BOM, in, n, 0, 0, p) ? -1 : 0;
    }
    if (strcmp(d->enc.iconv, "UTF-16LE") == 0 ||
        strcmp(d->enc.iconv, "UTF-16BE") == 0) {
        int mine = d->enc.iconv[6] == 'B' ? be : le;
        if (mine) {
            return 2;
        }
        if (le || be) {
            return problem(d, SIM_DECODE_WRONG_BOM, in, n, 0, 0, p) ? -1 : 0;
        }
        return 0;
    }
    if (!d->enc.ascii) {
        return 0; /* UTF-32 and the like: iconv reads their marks */
    }
    if (u8) {
        if (d->enc.kind == SIM_ENC_ICONV) {
            iconv_close(d->cd);
            d->cd = (iconv_t)-1;
            sim_encoding_utf8(&d->as);
            d->utf8_bom = 1; /* saved as UTF-8 after all */
        }
        return 3;
    }
    if (le || be) {
        return problem(d, SIM_DECODE_UTF16_BOM, in, n, 0, 0, p) ? -1 : 0;
    }
    return 0;
}

int sim_decoder_check(SimDecoder *d, const char *in, size_t n, int last,
                      size_t *skip, size_t *used, SimDecodeProblem *p)
{
    *skip = 0;
    *used = 0;
    size_t i = 0;
    if (!d->started) {
        int k = start(d, in, n, last, p);
        if (k == -2) {
            return 0;
        }
        if (k == -1) {
            return 1;
        }
        i = (size_t)k;
        *skip = i;
    }
    int why;
    size_t ok = i + utf8_prefix((const unsigned char *)in + i, n - i, &why);
    if (why == 2 || (why == 1 && last)) {
        *used = ok;
        problem(d, SIM_DECODE_INVALID, in, n, ok, ok - i, p);
        return 1;
    }
    *used = ok;
    advance(d, in, ok, ok - i);
    return 0;
}

static size_t put_fffd(char *o)
{
    memcpy(o, "\xEF\xBF\xBD", 3);
    return 3;
}

/* UTF-8 in, copied (checked; with replace, bad bytes become U+FFFD). */
static int run_utf8(SimDecoder *d, const char *in, size_t n, int last, size_t i,
                    char *out, size_t cap, size_t *used, size_t *made,
                    SimDecodeProblem *p)
{
    size_t k = 0;
    int stop = 0;
    while (i < n) {
        int why;
        size_t ok = utf8_prefix((const unsigned char *)in + i, n - i, &why);
        if (ok > cap - k) {
            ok = cap - k;
            while (ok > 0 && ((unsigned char)in[i + ok] & 0xC0) == 0x80) {
                ok--; /* a whole character or none */
            }
            why = -1;
        }
        memcpy(out + k, in + i, ok);
        k += ok;
        i += ok;
        if (why <= 0 || (why == 1 && !last)) {
            break;
        }
        if (problem(d, SIM_DECODE_INVALID, in, n, i, k, p)) {
            stop = 1;
            break;
        }
        if (cap - k < 3) {
            break;
        }
        k += put_fffd(out + k);
        i++;
    }
    *used = i;
    *made = k;
    return stop;
}

/* Through iconv. */
static int run_iconv(SimDecoder *d, const char *in, size_t n, int last,
                     size_t i, char *out, size_t cap, size_t *used,
                     size_t *made, SimDecodeProblem *p)
{
    char *ip = (char *)in + i, *op = out;
    size_t il = n - i, ol = cap;
    int stop = 0;
    while (il > 0) {
        if (iconv(d->cd, &ip, &il, &op, &ol) != (size_t)-1) {
            break;
        }
        int e = errno;
        size_t at = (size_t)(ip - in), k = (size_t)(op - out);
        if (e == E2BIG || (e == EINVAL && !last)) {
            break;
        }
        if (e != EILSEQ && e != EINVAL) {
            e = EILSEQ; /* anything else: the bytes do not convert */
        }
        SimDecodeKind kind = e == EINVAL ? SIM_DECODE_CUT : SIM_DECODE_INVALID;
        if (problem(d, kind, in, n, at, k, p)) {
            stop = 1;
            break;
        }
        if (ol < 3) {
            break;
        }
        size_t skip = d->unit < il ? d->unit : il;
        ip += skip;
        il -= skip;
        op += put_fffd(op);
        ol -= 3;
        iconv(d->cd, NULL, NULL, NULL, NULL);
    }
    if (last && il == 0 && !stop) {
        iconv(d->cd, NULL, NULL, &op, &ol); /* stateful encodings */
    }
    *used = (size_t)(ip - in);
    *made = (size_t)(op - out);
    return stop;
}

int sim_decoder_run(SimDecoder *d, const char *in, size_t n, int last,
                    char *out, size_t cap, size_t *used, size_t *made,
                    SimDecodeProblem *p)
{
    *used = 0;
    *made = 0;
    size_t i = 0;
    if (!d->started) {
        int k = start(d, in, n, last, p);
        if (k == -2) {
            return 0;
        }
        if (k == -1) {
            return 1;
        }
        i = (size_t)k;
    }
    int rc = d->as.kind == SIM_ENC_UTF8
                 ? run_utf8(d, in, n, last, i, out, cap, used, made, p)
                 : run_iconv(d, in, n, last, i, out, cap, used, made, p);
    advance(d, in, *used, *made);
    return rc;
}

int sim_decode_buffer(const SimEncoding *enc, const char *data, size_t len,
                      int replace, char **out, size_t *out_len,
                      SimDecodeProblem *p)
{
    *out = NULL;
    *out_len = 0;
    SimDecoder *d;
    if (sim_decoder_new(&d, enc, replace) != 0) {
        return -1;
    }
    size_t cap = sim_decoder_room(len) + 1, k = 0, i = 0;
    char *o = sim_malloc(cap);
    int rc = o ? 0 : -1;
    while (rc == 0) {
        size_t used, made;
        rc = sim_decoder_run(d, data + i, len - i, 1, o + k, cap - 1 - k, &used,
                             &made, p);
        i += used;
        k += made;
        if (rc != 0 || i == len) {
            break;
        }
        if (used == 0 && made == 0 && sim_grow((void **)&o, &cap, 2 * cap, 1)) {
            rc = -1; /* no room: more (never with sim_decoder_room) */
        }
    }
    if (rc < 0) {
        sim_free(o);
        sim_decoder_free(d);
        return -1;
    }
    o[k] = '\0';
    const SimDecodeProblem *first = sim_decoder_problem(d);
    if (first && p) {
        *p = *first;
    }
    rc = first ? 1 : 0;
    sim_decoder_free(d);
    *out = o;
    *out_len = k;
    return rc;
}

long sim_text_line_at(const char *s, size_t n)
{
    long line = 1;
    for (size_t i = 0; i < n; i++) {
        line +=
            s[i] == '\n' || (s[i] == '\r' && (i + 1 >= n || s[i + 1] != '\n'));
    }
    return line;
}
