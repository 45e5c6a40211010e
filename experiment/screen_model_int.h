/*
** Internal to the screen model (screen_model.c, screen_expl.c,
** screen_slots.c, screen_text.c): the arena that owns a model's texts and
** arrays, and the text helpers its builders share. Not for use outside
** experiment/screen_*.c.
*/
#ifndef SIMLAB_EXPERIMENT_SCREEN_MODEL_INT_H
#define SIMLAB_EXPERIMENT_SCREEN_MODEL_INT_H

#include <stdarg.h>
#include <stddef.h>

#include "experiment/screen_model.h"

/* Chunks of memory handed out in order and freed all at once. */
struct ScreenArena {
    struct ArenaChunk *chunks; /* newest first */
    char *next;                /* free space in the newest chunk */
    size_t left;
    int oom; /* an allocation failed since the last reset */
    /* the classes of the view being built (its labels name the sides of
    ** a weight legend); NULL: the study's */
    const StudyClass *classes;
    size_t n_classes;
};

/* n zeroed bytes (aligned for any member), or NULL (a->oom set). */
void *arena_alloc(ScreenArena *a, size_t n);
/* count zeroed elements of size each. */
void *arena_array(ScreenArena *a, size_t count, size_t size);
/* A copy of s (NULL for NULL), of its first n bytes. */
char *arena_strdup(ScreenArena *a, const char *s);
char *arena_strndup(ScreenArena *a, const char *s, size_t n);
/* A formatted text. */
char *arena_printf(ScreenArena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forgets everything handed out (keeps the first chunk). */
void arena_reset(ScreenArena *a);
void arena_free(ScreenArena *a);

/* fmt (a text of the string table, e.g. "evidence %+.2f") with its first
** conversion spec replaced by value, then "%%" turned into "%". A fmt
** without spec is copied. */
char *arena_subst(ScreenArena *a, const char *fmt, const char *spec,
                  const char *value);

/* A number (screen_format_num) into the arena. */
char *arena_num(ScreenArena *a, const UiStrings *s, double v, int decimals,
                int sign);

#endif
