/*
** Page model: consent, instructions and debrief pages (a small Markdown
** dialect, docs/study-format.md "Pages") parsed once, at load, into blocks
** that the runner only lays out. libc only: no SDL, no file access here
** (study loading resolves and checks the images).
*/
#ifndef SIMLAB_STIMULI_PAGE_H
#define SIMLAB_STIMULI_PAGE_H

#include <stddef.h>

#include "common/sim_error.h"

typedef enum PageBlockKind {
    PAGE_HEADING = 0, /* "# ", "## " or "### " line */
    PAGE_PARAGRAPH,   /* lines up to a blank line or the next block */
    PAGE_BULLET,      /* "- " or "* " item (with its continuation lines) */
    PAGE_NUMBERED,    /* "1. " item (1 to 3 digits) */
    PAGE_IMAGE        /* a line "![caption](path)" */
} PageBlockKind;

/* A run of a paragraph's or item's text in one style. */
typedef struct PageSpan {
    size_t start; /* byte offset in PageBlock.text */
    size_t len;   /* bytes; never 0 */
    int strong;   /* 1: inside **emphasis** markers */
    int em;       /* 1: inside *italic* or _italic_ markers (PAGE_MARKDOWN) */
} PageSpan;

typedef struct Page Page;

typedef struct PageBlock {
    PageBlockKind kind;
    int line;        /* 1-based source line where the block starts */
    int level;       /* heading: 1, 2 or 3 (number of '#') */
    char *text;      /* heading: as written; paragraph, item: lines joined by
                        one space, emphasis markers removed; image: caption
                        ("" when none) */
    PageSpan *spans; /* paragraph, item: text cut into runs, in order
                        (empty runs left out); NULL otherwise */
    size_t n_spans;
    char label[8]; /* numbered item: its number as written, e.g. "12." */
    char *src;     /* image: the path as written in the page */
    char *path;    /* image: the bundle-relative file shown (page_parse
                      sets it to src; study loading resolves it) */
    char *file;    /* image: absolute path of path as resolved and decoded
                      at load (the runner opens this one); NULL until
                      then, or when it failed */
} PageBlock;

struct Page {
    char *file; /* bundle-relative page file; NULL for a block's inline
                   text */
    char *text; /* the source text */
    PageBlock *blocks;
    size_t n_blocks;
};

/* Parses text (the contents of the page file `file`, which may be NULL)
** into a new page model. Image paths are taken as written (no file is
** looked at). On success returns SIM_OK and *out owns the page (free with
** page_free). On a malformed image line returns SIM_ERR_PARSE with
** "FILE:LINE: field 'image': ..." in err ("text" in place of FILE when
** file is NULL); on memory exhaustion SIM_ERR_NOMEM. *out is NULL after a
** failure. */
int page_parse(const char *text, const char *file, Page **out, SimError *err);

void page_free(Page *page); /* NULL is a no-op */

/* Called for every image line, in the order of the page: img is the new
** block, or NULL when the line is malformed (problem says how). */
typedef void (*PageImageHook)(void *ctx, PageBlock *img, int line,
                              const char *problem);

/* Parses text (of `file`, may be NULL) into a new page (*out), calling
** hook (may be NULL) for each image line (study loading resolves them there);
*-1 when
** memory ran out. */
int page_build(const char *text, const char *file, PageImageHook hook,
               void *ctx, Page **out);

/* The dialect of markdown explanations (docs/study-format.md, "Payload
** kinds"): the page dialect plus *italic* and _italic_ runs (a marker opens
** before a non-space and closes after one) and hard line breaks (a line
** ending in two spaces or a backslash continues its paragraph on a new
** line: '\n' in PageBlock.text). */
#define PAGE_MARKDOWN 1

/* page_build with flags (0 or PAGE_MARKDOWN). */
int page_build_ex(const char *text, const char *file, int flags,
                  PageImageHook hook, void *ctx, Page **out);

#endif
