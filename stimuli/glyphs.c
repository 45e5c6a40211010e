/*
** Font coverage: the fontconfig fallback chain and the bundle scan that
** warns about characters no font can draw (see glyphs.h).
*/
#include "stimuli/glyphs.h"

#include <ctype.h>
#include <dirent.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/uistrings.h"

struct GlyphChain {
    FcConfig *cfg;  /* the chain's own configuration (no global state left
                       behind: destroyed with the chain) */
    FcFontSet *set; /* sorted and trimmed: each font adds characters */
    FcCharSet *all; /* union of the set's characters */
};

/* Whether the subtags of tag (after the primary one) include sub. */
static int has_subtag(const char *tag, const char *sub)
{
    size_t n = strlen(sub);
    for (const char *p = strpbrk(tag, "-_"); p; p = strpbrk(p + 1, "-_")) {
        if (strncasecmp(p + 1, sub, n) == 0 &&
            (p[1 + n] == '\0' || p[1 + n] == '-' || p[1 + n] == '_')) {
            return 1;
        }
    }
    return 0;
}

void glyph_fc_lang(const char *tag, char *out, size_t size)
{
    if (size == 0) {
        return;
    }
    out[0] = '\0';
    if (!tag || !tag[0]) {
        return;
    }
    size_t n = strcspn(tag, "-_");
    if (n == 2 && strncasecmp(tag, "zh", 2) == 0) {
        const char *region = "zh-cn";
        if (has_subtag(tag, "HK") || has_subtag(tag, "MO")) {
            region = "zh-hk";
        } else if (has_subtag(tag, "Hant") || has_subtag(tag, "TW")) {
            region = "zh-tw";
        }
        snprintf(out, size, "%s", region);
        return;
    }
    size_t i = 0;
    for (; i < n && i + 1 < size; i++) {
        out[i] = (char)tolower((unsigned char)tag[i]);
    }
    out[i] = '\0';
}

int glyph_chain_open(const char *lang, GlyphChain **out, SimError *err)
{
    *out = NULL;
    GlyphChain *c = sim_calloc(1, sizeof *c);
    if (!c) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    c->cfg = FcInitLoadConfigAndFonts();
    if (!c->cfg) {
        sim_free(c);
        return sim_fail(err, SIM_ERR_IO, "fontconfig could not be initialised");
    }
    FcPattern *pat = FcPatternCreate();
    if (!pat) {
        glyph_chain_free(c);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)"DejaVu Sans");
    FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)"sans-serif");
    char fc_lang[16];
    glyph_fc_lang(lang, fc_lang, sizeof fc_lang);
    if (fc_lang[0]) {
        FcPatternAddString(pat, FC_LANG, (const FcChar8 *)fc_lang);
    }
    FcConfigSubstitute(c->cfg, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcResult res = FcResultMatch;
    c->set = FcFontSort(c->cfg, pat, FcTrue, &c->all, &res);
    FcPatternDestroy(pat);
    if (!c->set || !c->all) {
        glyph_chain_free(c);
        return sim_fail(err, SIM_ERR_IO, "fontconfig found no fonts");
    }
    *out = c;
    return SIM_OK;
}

void glyph_chain_free(GlyphChain *c)
{
    if (!c) {
        return;
    }
    if (c->set) {
        FcFontSetDestroy(c->set);
    }
    if (c->all) {
        FcCharSetDestroy(c->all);
    }
    if (c->cfg) {
        FcConfigDestroy(c->cfg);
    }
    sim_free(c);
}

int glyph_invisible(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0xAD ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
           cp == 0xFEFF || (cp >= 0xE0000 && cp <= 0xE01EF);
}

int glyph_chain_has(const GlyphChain *c, uint32_t cp)
{
    if (cp < 0x7F || glyph_invisible(cp)) {
        return 1;
    }
    return c && c->all && FcCharSetHasChar(c->all, cp);
}

int glyph_chain_font_for(const GlyphChain *c, uint32_t cp, char *path,
                         size_t size, int *index)
{
    if (!c || !c->set) {
        return 0;
    }
    for (int i = 0; i < c->set->nfont; i++) {
        FcPattern *p = c->set->fonts[i];
        FcCharSet *cs = NULL;
        FcChar8 *file = NULL;
        if (FcPatternGetCharSet(p, FC_CHARSET, 0, &cs) != FcResultMatch ||
            !FcCharSetHasChar(cs, cp) ||
            FcPatternGetString(p, FC_FILE, 0, &file) != FcResultMatch) {
            continue;
        }
        size_t n = strlen((const char *)file);
        if (n + 1 > size) {
            return 0;
        }
        memcpy(path, file, n + 1);
        int idx = 0;
        if (FcPatternGetInteger(p, FC_INDEX, 0, &idx) != FcResultMatch) {
            idx = 0;
        }
        if (index) {
            *index = idx;
        }
        return 1;
    }
    return 0;
}

/* The family name of the chain's font at path/index, or NULL. */
static const FcChar8 *chain_family(const GlyphChain *c, const char *path,
                                   int index)
{
    for (int i = 0; c && c->set && i < c->set->nfont; i++) {
        FcPattern *p = c->set->fonts[i];
        FcChar8 *file = NULL, *family = NULL;
        int idx = 0;
        if (FcPatternGetString(p, FC_FILE, 0, &file) != FcResultMatch ||
            strcmp((const char *)file, path) != 0) {
            continue;
        }
        if (FcPatternGetInteger(p, FC_INDEX, 0, &idx) != FcResultMatch) {
            idx = 0;
        }
        if (idx == index &&
            FcPatternGetString(p, FC_FAMILY, 0, &family) == FcResultMatch) {
            return family;
        }
    }
    return NULL;
}

/* Whether pattern p names family among its families. */
static int has_family(FcPattern *p, const FcChar8 *family)
{
    FcChar8 *f = NULL;
    for (int k = 0; FcPatternGetString(p, FC_FAMILY, k, &f) == FcResultMatch;
         k++) {
        if (strcmp((const char *)f, (const char *)family) == 0) {
            return 1;
        }
    }
    return 0;
}

int glyph_chain_bold_of(const GlyphChain *c, const char *path, int index,
                        char *out, size_t size, int *out_index)
{
    const FcChar8 *family = chain_family(c, path, index);
    FcPattern *q = family ? FcPatternCreate() : NULL;
    if (!q) {
        return 0;
    }
    FcPatternAddString(q, FC_FAMILY, family);
    FcPatternAddInteger(q, FC_WEIGHT, FC_WEIGHT_BOLD);
    FcConfigSubstitute(c->cfg, q, FcMatchPattern);
    FcDefaultSubstitute(q);
    FcResult res = FcResultMatch;
    FcPattern *m = FcFontMatch(c->cfg, q, &res);
    FcPatternDestroy(q);
    int found = 0, weight = 0, idx = 0;
    FcChar8 *file = NULL;
    if (m && has_family(m, family) &&
        FcPatternGetInteger(m, FC_WEIGHT, 0, &weight) == FcResultMatch &&
        weight >= FC_WEIGHT_DEMIBOLD &&
        FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch &&
        strlen((const char *)file) < size) {
        if (FcPatternGetInteger(m, FC_INDEX, 0, &idx) != FcResultMatch) {
            idx = 0;
        }
        memcpy(out, file, strlen((const char *)file) + 1);
        *out_index = idx;
        found = 1;
    }
    if (m) {
        FcPatternDestroy(m);
    }
    return found;
}

/* ------------------------------------------------------------ the scan */

/* Decodes one UTF-8 code point at s[*i]; invalid bytes give U+FFFD. */
static uint32_t next_cp(const char *s, size_t len, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[*i];
    size_t n;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        n = 1, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 2, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 3, c &= 0x07;
    } else {
        (*i)++;
        return 0xFFFD;
    }
    if (*i + n >= len) {
        (*i)++;
        return 0xFFFD;
    }
    for (size_t k = 1; k <= n; k++) {
        unsigned char b = u[*i + k];
        if ((b & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        c = (c << 6) | (b & 0x3Fu);
    }
    *i += n + 1;
    return c;
}

typedef struct Seen {
    uint64_t *keys; /* code point << 32 | where (a line or a CSV column) */
    size_t n, cap;
} Seen;

/* Adds (cp, where) to seen; returns 1 when it was new, 0 when known, -1 on
** OOM. */
static int seen_add(Seen *s, uint32_t cp, uint32_t where)
{
    uint64_t key = (uint64_t)cp << 32 | where;
    for (size_t i = 0; i < s->n; i++) {
        if (s->keys[i] == key) {
            return 0;
        }
    }
    if (sim_grow((void **)&s->keys, &s->cap, s->n + 1, sizeof *s->keys) != 0) {
        return -1;
    }
    s->keys[s->n++] = key;
    return 1;
}

static int add_warning(StudyReport *rep, const char *file, int line,
                       const char *pointer, const char *field, uint32_t cp)
{
    Diag *p = sim_realloc(rep->warnings, (rep->n_warnings + 1) * sizeof *p);
    if (!p) {
        return -1;
    }
    rep->warnings = p;
    Diag *d = &p[rep->n_warnings];
    memset(d, 0, sizeof *d);
    char msg[200];
    snprintf(msg, sizeof msg,
             "U+%04X cannot be drawn by any installed font: participants "
             "would see an empty box (install a font that has it, e.g. the "
             "Noto fonts, or remove the character)",
             (unsigned)cp);
    d->file = sim_strdup(file);
    d->line = line;
    d->pointer = pointer ? sim_strdup(pointer) : NULL;
    d->field = sim_strdup(field);
    d->message = sim_strdup(msg);
    if (!d->file || !d->field || !d->message || (pointer && !d->pointer)) {
        sim_free(d->file);
        sim_free(d->pointer);
        sim_free(d->field);
        sim_free(d->message);
        return -1;
    }
    rep->n_warnings++;
    return 0;
}

typedef enum FileKind { FK_JSON, FK_CSV, FK_TEXT } FileKind;

/* The name of column col in a CSV header (first record of text). */
static void csv_column(const char *t, size_t len, char sep, int col, char *out,
                       size_t size)
{
    int c = 0, q = 0;
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (ch == '"') {
            q = !q;
            continue;
        }
        if (!q && (ch == '\n' || ch == '\r')) {
            break;
        }
        if (!q && ch == sep) {
            if (c == col) {
                break;
            }
            c++;
            continue;
        }
        if (c == col && o + 1 < size) {
            out[o++] = ch;
            out[o] = '\0';
        }
    }
    if (!out[0]) {
        snprintf(out, size, "column %d", col + 1);
    }
}

static int hex4(const char *t, size_t len, size_t i, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        if (i + k >= len) {
            return 0;
        }
        char c = t[i + k];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) {
            return 0;
        }
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 1;
}

/* The character a JSON escape at t[*i] (just past the backslash) stands
** for, "\uD83D\uDE00" pairs joined; advances *i past it. Escapes of
** controls and quotes give a character that needs no glyph. */
static uint32_t json_escape(const char *t, size_t len, size_t *i)
{
    uint32_t u = 0, lo = 0;
    if (*i >= len) {
        return 0;
    }
    if (t[*i] != 'u' || !hex4(t, len, *i + 1, &u)) {
        (*i)++;
        return 0;
    }
    *i += 5;
    if (u >= 0xD800 && u <= 0xDBFF && *i + 1 < len && t[*i] == '\\' &&
        t[*i + 1] == 'u' && hex4(t, len, *i + 2, &lo) && lo >= 0xDC00 &&
        lo <= 0xDFFF) {
        *i += 6;
        return 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    }
    return u;
}

/* Scans one file's text (UTF-8); rel is its bundle-relative name. JSON
** strings count with their escapes decoded ("\ue000"). A character warns
** once per line (JSON, text) or per column (CSV, with sep). */
static int scan_text(const GlyphChain *c, const char *rel, FileKind kind,
                     char sep, const char *t, size_t len, StudyReport *rep)
{
    Seen seen = {0};
    int added = 0, line = 1, col = 0, inq = 0;
    char key[128] = "text", str[128];
    size_t str_n = 0;
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (kind == FK_TEXT) {
        snprintf(key, sizeof key, "%.120s", base);
    }
    size_t i = 0;
    if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0) {
        i = 3; /* a byte order mark */
    }
    while (i < len) {
        uint32_t cp = next_cp(t, len, &i);
        if (cp == '\n') {
            line++;
            if (!inq) {
                col = 0;
            }
            if (kind != FK_CSV) {
                seen.n = 0; /* keyed by line: the last line's never recur */
            }
            continue;
        }
        if (kind == FK_JSON) {
            if (inq && cp == '\\') {
                cp = json_escape(t, len, &i);
            } else if (cp == '"') {
                if (!inq) {
                    inq = 1;
                    str_n = 0;
                    str[0] = '\0';
                } else {
                    inq = 0;
                    /* A key when a colon follows. */
                    size_t j = i;
                    while (j < len && (t[j] == ' ' || t[j] == '\t')) {
                        j++;
                    }
                    if (j < len && t[j] == ':') {
                        snprintf(key, sizeof key, "%.120s", str);
                    }
                }
                continue;
            }
            if (inq && str_n + 1 < sizeof str && cp >= 0x20 && cp < 0x80) {
                str[str_n++] = (char)cp;
                str[str_n] = '\0';
            }
        } else if (kind == FK_CSV) {
            if (cp == '"') {
                inq = !inq;
            } else if (cp == (uint32_t)(unsigned char)sep && !inq) {
                col++;
            }
        }
        if (glyph_chain_has(c, cp)) {
            continue;
        }
        int r = seen_add(&seen, cp,
                         kind == FK_CSV ? (uint32_t)col : (uint32_t)line);
        if (r < 0) {
            sim_free(seen.keys);
            return -1;
        }
        if (r == 0) {
            continue;
        }
        char field[128];
        if (kind == FK_CSV) {
            csv_column(t, len, sep, col, field, sizeof field);
        } else {
            snprintf(field, sizeof field, "%.120s", key);
        }
        if (add_warning(rep, rel, line, NULL, field, cp) != 0) {
            sim_free(seen.keys);
            return -1;
        }
        added++;
    }
    sim_free(seen.keys);
    return added;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Scans the file at path: kind by how it was read (csv, with delim and
** encoding) or by its name. */
static int scan_file(const GlyphChain *c, const char *path, const char *rel,
                     FileKind kind, char delim, const SimEncoding *enc,
                     StudyReport *rep)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return 0; /* unreadable files are reported by the loader */
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (sim_grow((void **)&buf, &cap, n + 65536, 1) != 0) {
            fclose(f);
            sim_free(buf);
            return -1;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    fclose(f);
    if (enc && enc->kind != SIM_ENC_UTF8) {
        /* as the loader read it; bytes that do not fit (reported by the
        ** loader) as U+FFFD */
        size_t m = 0;
        char *u = NULL;
        int rc = sim_decode_buffer(enc, buf, n, 1, &u, &m, NULL);
        sim_free(buf);
        if (rc < 0) {
            return -1;
        }
        buf = u;
        n = m;
    }
    int r = scan_text(c, rel, kind, delim, buf, n, rep);
    sim_free(buf);
    return r;
}

/* How a file found in the bundle directory is read: by its name. Returns 0
** for files that are not text the runner shows. */
static int kind_by_name(const char *nm, FileKind *kind, char *delim)
{
    *delim = ends_with(nm, ".tsv") ? '\t' : ',';
    if (ends_with(nm, ".json") || ends_with(nm, ".jsonl")) {
        *kind = FK_JSON;
    } else if (ends_with(nm, ".csv") || ends_with(nm, ".tsv")) {
        *kind = FK_CSV;
    } else if (ends_with(nm, ".md") || ends_with(nm, ".txt")) {
        *kind = FK_TEXT;
    } else {
        return 0;
    }
    return 1;
}

static int listed(const Study *st, const char *rel)
{
    for (size_t i = 0; st && i < st->n_text_files; i++) {
        if (strcmp(st->text_files[i].rel, rel) == 0) {
            return 1;
        }
    }
    return 0;
}

static int scan_dir(const GlyphChain *c, const char *dir, const char *rel,
                    int depth, const Study *st, StudyReport *rep)
{
    if (depth > 4) {
        return 0;
    }
    char path[2048];
    snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) {
        return 0;
    }
    /* Sorted names, so that warnings come in a stable order. */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int total = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (sim_grow((void **)&names, &cap, n + 1, sizeof *names) != 0 ||
            !(names[n] = sim_strdup(e->d_name))) {
            total = -1;
            break;
        }
        n++;
    }
    closedir(d);
    for (size_t a = 1; a < n; a++) {
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    }
    for (size_t k = 0; k < n && total >= 0; k++) {
        char sub[1024], full[3100];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", names[k]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat sb;
        if (stat(full, &sb) != 0) {
            continue;
        }
        int r = 0;
        FileKind kind;
        char delim;
        if (S_ISDIR(sb.st_mode)) {
            r = scan_dir(c, dir, sub, depth + 1, st, rep);
        } else if (S_ISREG(sb.st_mode) && !listed(st, sub) &&
                   kind_by_name(names[k], &kind, &delim)) {
            r = scan_file(c, full, sub, kind, delim, NULL, rep);
        }
        total = r < 0 ? -1 : total + r;
    }
    for (size_t k = 0; k < n; k++) {
        sim_free(names[k]);
    }
    sim_free(names);
    return total;
}

/* The files study loading read, as it read them (their dialect, whatever
** their name or depth). */
static int scan_study_files(const GlyphChain *c, const char *dir,
                            const Study *st, StudyReport *rep)
{
    int total = 0;
    for (size_t i = 0; st && i < st->n_text_files && total >= 0; i++) {
        const StudyTextFile *tf = &st->text_files[i];
        FileKind kind = FK_TEXT;
        char delim = ',';
        if (tf->csv) {
            kind = FK_CSV;
            delim = tf->delim;
        } else if (!kind_by_name(tf->rel, &kind, &delim)) {
            kind = FK_TEXT;
        }
        char full[3100];
        snprintf(full, sizeof full, "%s/%s", dir, tf->rel);
        int r = scan_file(c, full, tf->rel, kind, delim,
                          tf->csv ? &tf->encoding : NULL, rep);
        total = r < 0 ? -1 : total + r;
    }
    return total;
}

int glyphs_check_bundle(const char *dir, const GlyphChain *c, const Study *st,
                        StudyReport *report)
{
    int total = scan_study_files(c, dir, st, report);
    if (total >= 0) {
        int r = scan_dir(c, dir, "", 0, st, report);
        total = r < 0 ? -1 : total + r;
    }
    const UiStrings *ui = st ? st->ui_strings : NULL;
    if (total < 0 || !ui) {
        return total;
    }
    /* Shipped texts (not overrides nor a language file's: the scan above
    ** located those in their files) are warned about at "language". */
    Seen seen = {0};
    for (int k = 0; k < UI_KEY_COUNT; k++) {
        const char *s = ui_str(ui, (UiKey)k);
        int shipped = 0;
        for (size_t l = 0; l < ui_language_count() && !shipped; l++) {
            shipped = s == ui_language_text(l, (UiKey)k);
        }
        if (!shipped) {
            continue;
        }
        size_t len = strlen(s), i = 0;
        while (i < len) {
            uint32_t cp = next_cp(s, len, &i);
            if (glyph_chain_has(c, cp)) {
                continue;
            }
            int r = seen_add(&seen, cp, 0);
            if (r > 0) {
                r = add_warning(report, "study.json", 0, "/language",
                                "language", cp);
                total++;
            }
            if (r < 0) {
                sim_free(seen.keys);
                return -1;
            }
        }
    }
    sim_free(seen.keys);
    return total;
}
