/*
** Fuzzes the page markup parser (stimuli/page.h page_parse) and checks the
** model it builds: spans inside their block's text, never empty, in order;
** image blocks with a source path.
*/
#include "stimuli/page.h"

#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_page(const Page *page)
{
    for (size_t i = 0; i < page->n_blocks; i++) {
        const PageBlock *b = &page->blocks[i];
        size_t len = b->text ? strlen(b->text) : 0;
        size_t at = 0;
        if (!b->text || b->line < 1 || memchr(b->label, '\0', 8) == NULL) {
            abort();
        }
        for (size_t k = 0; k < b->n_spans; k++) {
            const PageSpan *s = &b->spans[k];
            if (s->len == 0 || s->start < at || s->start + s->len > len) {
                abort();
            }
            at = s->start + s->len;
        }
        if (b->kind == PAGE_IMAGE && (!b->src || !b->path)) {
            abort();
        }
        if (b->kind == PAGE_HEADING && (b->level < 1 || b->level > 3)) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    Page *page = NULL;
    SimError err;
    sim_error_clear(&err);
    int rc = page_parse(text, size % 2 ? "pages/fuzz.md" : NULL, &page, &err);
    if (rc == SIM_OK) {
        if (!page) {
            abort();
        }
        check_page(page);
    } else if (page) {
        abort();
    }
    page_free(page);
    free(text);
    return 0;
}
