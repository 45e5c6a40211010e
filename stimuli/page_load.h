/*
** A study's pages inside the loader (page_load.c): the page files
** study.json names, read once and parsed, and the inline texts of page
** blocks. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_PAGE_LOAD_H
#define SIMLAB_STIMULI_PAGE_LOAD_H

#include <stddef.h>

#include "stimuli/loader.h"

/* A page file named in study.json, where it was named. */
typedef struct PageRef {
    char *path;
    JLoc at;
    char key[32];
} PageRef;

/* Every page file named in study.json, in order (page.c). */
typedef struct PageRefs {
    PageRef *refs;
    size_t n, cap;
} PageRefs;

void page_refs_add(Loader *L, PageRefs *R, const char *path, const JLoc *at,
                   const char *key);
void page_refs_free(PageRefs *R);
/* Reads each page file of R once into L->st->pages: inside the bundle,
** UTF-8, parsed into its model, images resolved and checked (errors
** located at FILE:LINE). */
void pages_load(Loader *L, const PageRefs *R);
/* The page model of the inline text of consent, instructions and debrief
** blocks without page files (b->text_page; errors at at's "text"). */
void pages_load_text(Loader *L, Block *b, const JLoc *at);

#endif
