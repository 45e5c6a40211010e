/*
** Allocation wrappers. Every simlab library allocates through these so that
** tests can make the Nth allocation fail (sim_alloc_fail_after).
*/
#ifndef SIMLAB_COMMON_SIM_ALLOC_H
#define SIMLAB_COMMON_SIM_ALLOC_H

#include <stddef.h>

void *sim_malloc(size_t n);
void *sim_calloc(size_t count, size_t size);
void *sim_realloc(void *p, size_t n);
void sim_free(void *p);          /* NULL is a no-op */
char *sim_strdup(const char *s); /* NULL in, NULL out; caller frees */
char *sim_strndup(const char *s, size_t n);

/* Test hook: after n more successful allocations, every further allocation
** fails until reset with a negative n. Not thread-safe; tests only. */
void sim_alloc_fail_after(long n);

/* Grows *array (of *cap elements of elem_size bytes) so that it holds at
** least need elements. Returns 0, or -1 when out of memory (array untouched).
*/
int sim_grow(void **array, size_t *cap, size_t need, size_t elem_size);

#endif
