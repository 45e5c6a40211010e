/*
** A study's pages at load time: the page files study.json names, read once
** (inside the bundle, UTF-8), parsed by page.c, their images resolved and
** checked with located errors; the inline texts of page blocks; and the
** study's lookups of them.
*/
#include "stimuli/page.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"
#include "stimuli/page_load.h"
#include "stimuli/loader.h"
#include "stimuli/bpath_int.h"
#include "stimuli/media.h"

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
    if (bpath_check(img->src, why, sizeof why) != 0) {
        page_diag(pc, 0, line, "%s", why);
        return;
    }
    char *abs = NULL, *abs2 = NULL;
    char *beside = beside_page(L, pc->file, img->src);
    int ok = bpath_file(L, img->src, &abs, why, sizeof why) == 0;
    int ok2 = beside && bpath_file(L, beside, &abs2, why2, sizeof why2) == 0;
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
        if (media_probe_image(abs, &w, &h, NULL, why, sizeof why) != 0) {
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
    int rc = bpath_read(L, ref->path, &text, &len, why, sizeof why);
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
