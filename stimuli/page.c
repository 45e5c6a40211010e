/*
** Pages: the one parser of the page dialect (headings, paragraphs, lists,
** images, **emphasis**) into the page model of page.h. libc only: no study,
** no files (page_load.c reads a study's pages), no SDL.
*/
#include "stimuli/page.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

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

/* ------------------------------------------------------------ the parser */

typedef struct Builder {
    Page *pg;
    size_t cap_blocks;
    PageImageHook hook;
    void *ctx;
    int flags; /* PAGE_MARKDOWN or 0 */
    int oom;
    int hard; /* PAGE_MARKDOWN: the last line ended in a hard break */
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

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

static int is_word(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || (unsigned char)c >= 0x80;
}

/* Whether the single marker c at s[p] (an '*' or '_' that is not part of
** "**") closes an italic run: after a non-space, and for '_' not inside a
** word. */
static int em_closes(const char *s, size_t p, size_t n, char c)
{
    return p > 0 && !is_space(s[p - 1]) &&
           (c == '*' || p + 1 >= n || !is_word(s[p + 1]));
}

/* Whether the marker c at s[p] opens an italic run: before a non-space,
** not after a letter or digit, and closed later in the same text. */
static int em_opens(const char *s, size_t p, size_t n, char c)
{
    if (p + 1 >= n || is_space(s[p + 1]) || (p > 0 && is_word(s[p - 1]))) {
        return 0;
    }
    for (size_t q = p + 2; q < n; q++) {
        int dbl = s[q] == '*' && q + 1 < n && s[q + 1] == '*';
        if (s[q] == c && !dbl && em_closes(s, q, n, c)) {
            return 1;
        }
        q += (size_t)dbl;
    }
    return 0;
}

/* Cuts s[0, n) at its "**" markers (and, with PAGE_MARKDOWN, its single
** '*' and '_' italic markers) into text without them and runs of one style
** (an unclosed "**" makes the rest strong; empty runs are left out). */
static int split_marked(const char *s, size_t n, int flags, PageBlock *b)
{
    size_t cap = 1;
    if (flags & PAGE_MARKDOWN) {
        for (size_t i = 0; i < n; i++) {
            cap += s[i] == '*' || s[i] == '_';
        }
    } else {
        for (size_t m = find_marker(s, 0, n); m < n;
             m = find_marker(s, m + 2, n)) {
            cap++;
        }
    }
    b->text = sim_malloc(n + 1);
    b->spans = sim_malloc(cap * sizeof *b->spans);
    if (!b->text || !b->spans) {
        return -1;
    }
    size_t out = 0, run = 0; /* run: where the current run starts in text */
    int strong = 0, em = 0;
    char em_char = 0;
    for (size_t p = 0; p <= n;) {
        int toggle_strong = p + 1 < n && s[p] == '*' && s[p + 1] == '*';
        int toggle_em = 0;
        if (!toggle_strong && p < n && (flags & PAGE_MARKDOWN) &&
            (s[p] == '*' || s[p] == '_')) {
            toggle_em = em ? s[p] == em_char && em_closes(s, p, n, s[p])
                           : em_opens(s, p, n, s[p]);
        }
        if (p == n || toggle_strong || toggle_em) {
            if (out > run) {
                PageSpan *sp = &b->spans[b->n_spans++];
                sp->start = run;
                sp->len = out - run;
                sp->strong = strong;
                sp->em = em;
            }
            run = out;
            if (p == n) {
                break;
            }
            if (toggle_strong) {
                strong = !strong;
                p += 2;
            } else {
                em_char = em ? 0 : s[p];
                em = !em;
                p++;
            }
            continue;
        }
        b->text[out++] = s[p++];
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
    if (split_marked(B->buf, B->len, B->flags, b) != 0) {
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
        if (B->hook) {
            B->hook(B->ctx, NULL, line, "expected ![caption](media/file.png)");
        }
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
    if (b->text && b->src && b->path && B->hook) {
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
    /* A markdown line ending in two spaces or a backslash breaks its
    ** paragraph there. */
    int hard_before = B->hard;
    B->hard = 0;
    if (B->flags & PAGE_MARKDOWN) {
        size_t k = n;
        while (k && s[k - 1] == '\r') {
            k--;
        }
        if (k >= 1 && s[k - 1] == '\\') {
            B->hard = 1;
            n = k - 1;
        } else if (k >= 2 && s[k - 1] == ' ' && s[k - 2] == ' ') {
            B->hard = 1;
        }
    }
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
            append(B, hard_before ? "\n" : " ", 1);
        }
        append(B, s, n);
    }
}

int page_build(const char *text, const char *file, PageImageHook hook,
               void *ctx, Page **out)
{
    return page_build_ex(text, file, 0, hook, ctx, out);
}

int page_build_ex(const char *text, const char *file, int flags,
                  PageImageHook hook, void *ctx, Page **out)
{
    *out = NULL;
    Builder B;
    memset(&B, 0, sizeof B);
    B.flags = flags;
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
