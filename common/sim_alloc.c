/*
** Allocation wrappers with a failure-injection hook for tests.
*/
#include "common/sim_alloc.h"

#include <stdlib.h>
#include <string.h>

static long fail_countdown = -1; /* test hook only; -1 means never fail */

static int should_fail(void)
{
    if (fail_countdown < 0) {
        return 0;
    }
    if (fail_countdown == 0) {
        return 1;
    }
    fail_countdown--;
    return 0;
}

void sim_alloc_fail_after(long n)
{
    fail_countdown = n;
}

void *sim_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n ? n : 1);
}

void *sim_calloc(size_t count, size_t size)
{
    return should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
}

void *sim_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n ? n : 1);
}

void sim_free(void *p)
{
    free(p);
}

char *sim_strndup(const char *s, size_t n)
{
    if (!s) {
        return NULL;
    }
    char *d = sim_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *sim_strdup(const char *s)
{
    return s ? sim_strndup(s, strlen(s)) : NULL;
}

int sim_grow(void **array, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap) {
        return 0;
    }
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        ncap *= 2;
    }
    void *p = sim_realloc(*array, ncap * elem_size);
    if (!p) {
        return -1;
    }
    *array = p;
    *cap = ncap;
    return 0;
}
