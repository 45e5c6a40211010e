/*
** Pages: the one parser of the page dialect (headings, paragraphs, lists,
** images, **emphasis**) into the page model of page.h, and the load-time
** reading of page files: UTF-8 check, parse, images resolved and checked.
** libc and the loader's bundle paths only; no SDL.
*/
#include "stimuli/page.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/study_int.h"

/* ------------------------------------------------------------- the model */

static void block_free(PageBlock *b)
{
    sim_free(b->text);
    sim_free(b->spans);
    sim_free(b->src);
    sim_free(b->path);
    sim_free(b->file);
}

void page_free(Page *page)
{
    if (!page) {
        return;
    }
    for (size_t i = 0; i < page->n_blocks; i++) {
        block_free(&page->blocks[i]);
    }
    sim_free(page->blocks);
    sim_free(page->file);
    sim_free(page->text);
    sim_free(page);
}

const Page *study_page(const Study *st, const char *file)
{
    for (size_t i = 0; st && file && i < st->n_pages; i++) {
        const Page *pg = st->pages[i];
        if (pg->file && strcmp(pg->file, file) == 0) {
            return pg;
        }
    }
    return NULL;
}

const char *study_page_text(const Study *st, const char *path)
{
    const Page *pg = study_page(st, path);
    return pg ? pg->text : NULL;
}

/* ------------------------------------------------------------ the parser */

/* Called for every image line, in the order of the page: img is the new
** block, or NULL when the line is malformed (problem says how). */
typedef void (*ImageHook)(void *ctx, PageBlock *img, int line,
                          const char *problem);

typedef struct Builder {
    Page *pg;
    size_t cap_blocks;
    ImageHook hook;
    void *ctx;
    int oom;
    /* the paragraph or list item being collected */
    int has_pend;
    PageBlockKind pend_kind;
    int pend_line;
    char pend_label[8];
    char *buf;
    size_t len, cap;
} Builder;

static PageBlock *add_block(Builder *B, PageBlockKind kind, int line)
{
    if (sim_grow((void **)&B->pg->blocks, &B->cap_blocks, B->pg->n_blocks + 1,
                 sizeof *B->pg->blocks) != 0) {
        B->oom = 1;
        return NULL;
    }
    PageBlock *b = &B->pg->blocks[B->pg->n_blocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->line = line;
    return b;
}

static char *dup_n(Builder *B, const char *s, size_t n)
{
    char *d = sim_strndup(s, n);
    if (!d) {
        B->oom = 1;
    }
    return d;
}

/* The first "**" in s[p, n), or n. */
static size_t find_marker(const char *s, size_t p, size_t n)
{
    for (; p + 1 < n; p++) {
        if (s[p] == '*' && s[p + 1] == '*') {
            return p;
        }
    }
    return n;
}

/* Cuts s[0, n) at its "**" markers into text without them and runs that
** alternate between plain and strong (an unclosed marker makes the rest
** strong; empty runs are left out). */
static int split_marked(const char *s, size_t n, PageBlock *b)
{
    size_t cap = 1;
    for (size_t m = find_marker(s, 0, n); m < n; m = find_marker(s, m + 2, n)) {
        cap++;
    }
    b->text = sim_malloc(n + 1);
    b->spans = sim_malloc(cap * sizeof *b->spans);
    if (!b->text || !b->spans) {
        return -1;
    }
    size_t out = 0, p = 0;
    int strong = 0;
    while (p < n) {
        size_t m = find_marker(s, p, n);
        if (m > p) {
            PageSpan *sp = &b->spans[b->n_spans++];
            sp->start = out;
            sp->len = m - p;
            sp->strong = strong;
            memcpy(b->text + out, s + p, m - p);
            out += m - p;
        }
        if (m >= n) {
            break;
        }
        strong = !strong;
        p = m + 2;
    }
    b->text[out] = '\0';
    return 0;
}

static void flush(Builder *B)
{
    if (!B->has_pend) {
        return;
    }
    B->has_pend = 0;
    PageBlock *b = add_block(B, B->pend_kind, B->pend_line);
    if (!b) {
        return;
    }
    memcpy(b->label, B->pend_label, sizeof b->label);
    if (split_marked(B->buf, B->len, b) != 0) {
        B->oom = 1;
    }
    B->len = 0;
}

static void append(Builder *B, const char *s, size_t n)
{
    if (sim_grow((void **)&B->buf, &B->cap, B->len + n + 1, 1) != 0) {
        B->oom = 1;
        return;
    }
    memcpy(B->buf + B->len, s, n);
    B->len += n;
}

static void start_pending(Builder *B, PageBlockKind kind, int line,
                          const char *label, size_t label_len)
{
    B->has_pend = 1;
    B->pend_kind = kind;
    B->pend_line = line;
    B->len = 0;
    snprintf(B->pend_label, sizeof B->pend_label, "%.*s", (int)label_len,
             label);
}

/* "![caption](path)": the path follows the last "](" of the line (captions
** may hold brackets and parentheses) and runs to the ')' that ends the
** line. */
static void image_line(Builder *B, const char *l, size_t n, int line)
{
    const char *open = NULL;
    for (const char *q = l + 2; q + 1 < l + n; q++) {
        if (q[0] == ']' && q[1] == '(') {
            open = q;
        }
    }
    if (!open || l[n - 1] != ')') {
        B->hook(B->ctx, NULL, line, "expected ![caption](media/file.png)");
        return;
    }
    PageBlock *b = add_block(B, PAGE_IMAGE, line);
    if (!b) {
        return;
    }
    const char *path = open + 2;
    size_t path_len = (size_t)(l + n - 1 - path);
    b->text = dup_n(B, l + 2, (size_t)(open - (l + 2)));
    b->src = dup_n(B, path, path_len);
    b->path = dup_n(B, path, path_len);
    if (b->text && b->src && b->path) {
        B->hook(B->ctx, b, line, NULL);
    }
}

/* Number of leading digits of a numbered item "12. text", or 0. */
static size_t numbered_digits(const char *l, size_t n)
{
    size_t d = 0;
    while (d < n && l[d] >= '0' && l[d] <= '9') {
        d++;
    }
    return d > 0 && d < 4 && d + 1 < n && l[d] == '.' && l[d + 1] == ' ' ? d
                                                                         : 0;
}

static void page_line(Builder *B, const char *s, size_t n, int line)
{
    /* Trailing spaces and CR, then leading spaces, do not count. */
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ')) {
        n--;
    }
    while (n && *s == ' ') {
        s++;
        n--;
    }
    int level = 0;
    if (n >= 2 && memcmp(s, "# ", 2) == 0) {
        level = 1;
    } else if (n >= 3 && memcmp(s, "## ", 3) == 0) {
        level = 2;
    } else if (n >= 4 && memcmp(s, "### ", 4) == 0) {
        level = 3;
    }
    int image = !level && n >= 2 && s[0] == '!' && s[1] == '[';
    int bullet = n >= 2 && (s[0] == '-' || s[0] == '*') && s[1] == ' ';
    size_t digits = numbered_digits(s, n);
    if (n == 0 || level || image || bullet || digits) {
        flush(B);
    }
    if (level) {
        PageBlock *b = add_block(B, PAGE_HEADING, line);
        if (b) {
            b->level = level;
            b->text = dup_n(B, s + level + 1, n - (size_t)level - 1);
        }
    } else if (image) {
        image_line(B, s, n, line);
    } else if (bullet) {
        start_pending(B, PAGE_BULLET, line, "", 0);
        append(B, s + 2, n - 2);
    } else if (digits) {
        start_pending(B, PAGE_NUMBERED, line, s, digits + 1);
        append(B, s + digits + 2, n - digits - 2);
    } else if (n > 0) {
        /* a paragraph line, or the continuation of the item above */
        if (!B->has_pend) {
            start_pending(B, PAGE_PARAGRAPH, line, "", 0);
        } else {
            append(B, " ", 1);
        }
        append(B, s, n);
    }
}

/* Parses text into a new page (*out); -1 when memory ran out. */
static int page_build(const char *text, const char *file, ImageHook hook,
                      void *ctx, Page **out)
{
    *out = NULL;
    Builder B;
    memset(&B, 0, sizeof B);
    B.hook = hook;
    B.ctx = ctx;
    B.pg = sim_calloc(1, sizeof *B.pg);
    if (!B.pg) {
        return -1;
    }
    B.pg->text = sim_strdup(text);
    B.pg->file = file ? sim_strdup(file) : NULL;
    B.oom = !B.pg->text || (file && !B.pg->file);
    int line = 0;
    for (const char *p = text; !B.oom && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        page_line(&B, p, n, ++line);
        if (!e) {
            break;
        }
        p = e + 1;
    }
    flush(&B);
    sim_free(B.buf);
    if (B.oom) {
        page_free(B.pg);
        return -1;
    }
    *out = B.pg;
    return 0;
}

typedef struct FirstProblem {
    const char *file;
    int line;
    char msg[400];
} FirstProblem;

static void note_problem(void *ctx, PageBlock *img, int line,
                         const char *problem)
{
    FirstProblem *fp = ctx;
    if (!img && !fp->line) {
        fp->line = line;
        snprintf(fp->msg, sizeof fp->msg, "%s", problem);
    }
}

int page_parse(const char *text, const char *file, Page **out, SimError *err)
{
    FirstProblem fp = {file ? file : "text", 0, ""};
    if (page_build(text ? text : "", file, note_problem, &fp, out) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", fp.file);
    }
    if (fp.line) {
        page_free(*out);
        *out = NULL;
        return sim_fail(err, SIM_ERR_PARSE, "%s:%d: field 'image': %s", fp.file,
                        fp.line, fp.msg);
    }
    return SIM_OK;
}

/* ------------------------------------------------------ loading a study */

void page_refs_add(Loader *L, PageRefs *R, const char *path, const JLoc *at,
                   const char *key)
{
    if (ld_grow(L, (void **)&R->refs, &R->cap, R->n + 1, sizeof *R->refs) !=
        0) {
        return;
    }
    PageRef *r = &R->refs[R->n];
    r->path = ld_strdup(L, path);
    if (!r->path) {
        return;
    }
    r->at = *at;
    snprintf(r->key, sizeof r->key, "%s", key ? key : "");
    R->n++;
}

void page_refs_free(PageRefs *R)
{
    for (size_t i = 0; i < R->n; i++) {
        sim_free(R->refs[i].path);
    }
    sim_free(R->refs);
    memset(R, 0, sizeof *R);
}

/* Where the images of one page are reported: at FILE:LINE for a page
** file, at the block's "text" for inline text. */
typedef struct PageCtx {
    Loader *L;
    const char *file; /* page file, or NULL */
    const JLoc *at;   /* inline text: the block */
} PageCtx;

static void page_diag(const PageCtx *pc, int warn, int line, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));

static void page_diag(const PageCtx *pc, int warn, int line, const char *fmt,
                      ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pc->file) {
        ld_diag(pc->L, warn, pc->file, line, 0, NULL, "image", "%s", msg);
    } else if (warn) {
        jl_warn(pc->L, pc->at, "text", "line %d: %s", line, msg);
    } else {
        jl_error(pc->L, pc->at, "text", "line %d: %s", line, msg);
    }
}

/* "pages/intro.md" + "fig.png" -> "pages/fig.png"; NULL when the page
** lies at the top of the bundle (or for inline text). */
static char *beside_page(Loader *L, const char *file, const char *src)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (!slash) {
        return NULL;
    }
    size_t n = (size_t)(slash - file) + 1 + strlen(src) + 1;
    char *p = sim_malloc(n);
    if (!p) {
        L->oom = 1;
        return NULL;
    }
    snprintf(p, n, "%.*s/%s", (int)(slash - file), file, src);
    return p;
}

/* Resolves an image of a page: the path as written, relative to the
** bundle; failing that, relative to the page's folder. Either must be a
** PNG or JPEG file inside the bundle. */
static void resolve_image(void *ctx, PageBlock *img, int line,
                          const char *problem)
{
    const PageCtx *pc = ctx;
    Loader *L = pc->L;
    if (!img) {
        page_diag(pc, 0, line, "%s", problem);
        return;
    }
    char why[512], why2[512];
    if (bundle_path_check(img->src, why, sizeof why) != 0) {
        page_diag(pc, 0, line, "%s", why);
        return;
    }
    char *abs = NULL, *abs2 = NULL;
    char *beside = beside_page(L, pc->file, img->src);
    int ok = bundle_file(L, img->src, &abs, why, sizeof why) == 0;
    int ok2 = beside && bundle_file(L, beside, &abs2, why2, sizeof why2) == 0;
    if (ok && ok2 && strcmp(abs, abs2) != 0) {
        page_diag(pc, 1, line,
                  "'%s' is a file of the bundle and '%s' one beside the "
                  "page: the bundle's file is shown",
                  img->src, beside);
    } else if (!ok && ok2) {
        sim_free(img->path);
        img->path = beside;
        beside = NULL;
        abs = abs2;
        abs2 = NULL;
        ok = 1;
    }
    if (!ok && beside) {
        page_diag(pc, 0, line, "%s; beside the page: %s", why, why2);
    } else if (!ok) {
        page_diag(pc, 0, line, "%s", why);
    } else {
        int w, h;
        if (image_size(abs, &w, &h, NULL, why, sizeof why) != 0) {
            page_diag(pc, 0, line, "'%s': %s", img->src, why);
        } else {
            sim_free(img->file);
            img->file = abs; /* what the runner opens */
            abs = NULL;
        }
    }
    sim_free(abs);
    sim_free(abs2);
    sim_free(beside);
}

/* Hands pg to the study; -1 (pg freed) when memory ran out. */
static int add_study_page(Loader *L, Page *pg)
{
    Study *st = L->st;
    Page **p = sim_realloc(st->pages, (st->n_pages + 1) * sizeof *p);
    if (!p) {
        L->oom = 1;
        page_free(pg);
        return -1;
    }
    st->pages = p;
    st->pages[st->n_pages++] = pg;
    return 0;
}

/* One page file: inside the bundle, UTF-8 without NUL bytes, parsed, its
** images checked. */
static void load_page_file(Loader *L, const PageRef *ref)
{
    char why[512], *text = NULL;
    size_t len = 0;
    int rc = read_bundle_file(L, ref->path, &text, &len, why, sizeof why);
    if (rc == -2) {
        jl_error(L, &ref->at, ref->key, "page %s", why);
    }
    if (rc != 0) {
        return;
    }
    size_t bad;
    if (!sim_utf8_valid(text, len, &bad) || strlen(text) != len) {
        int line = 1;
        size_t upto = strlen(text) != len ? strlen(text) : bad;
        for (size_t i = 0; i < upto && i < len; i++) {
            line += text[i] == '\n';
        }
        ld_diag(L, 0, ref->path, line, 0, NULL, NULL,
                "not UTF-8 text (byte %zu)", upto);
        sim_free(text);
        return;
    }
    PageCtx pc = {L, ref->path, NULL};
    Page *pg = NULL;
    if (page_build(text, ref->path, resolve_image, &pc, &pg) != 0) {
        L->oom = 1;
    } else {
        add_study_page(L, pg);
    }
    sim_free(text);
}

void pages_load(Loader *L, const PageRefs *R)
{
    for (size_t r = 0; r < R->n; r++) {
        const PageRef *ref = &R->refs[r];
        int dup = 0;
        for (size_t k = 0; k < r; k++) {
            dup |= strcmp(R->refs[k].path, ref->path) == 0;
        }
        if (!dup) { /* a page named twice is read (and reported) once */
            load_page_file(L, ref);
        }
    }
}

void pages_load_text(Loader *L, Block *b, const JLoc *at)
{
    int page_kind = b->kind == BLOCK_CONSENT || b->kind == BLOCK_INSTRUCTIONS ||
                    b->kind == BLOCK_DEBRIEF;
    if (!page_kind || b->n_pages > 0 || !b->text) {
        return;
    }
    PageCtx pc = {L, NULL, at};
    Page *pg = NULL;
    if (page_build(b->text, NULL, resolve_image, &pc, &pg) != 0) {
        L->oom = 1;
        return;
    }
    if (add_study_page(L, pg) == 0) {
        b->text_page = pg;
    }
}
