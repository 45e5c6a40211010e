/*
** 64-bit key -> int hash map (see keymap.h).
*/
#include "analysis/keymap.h"

#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

void keymap_free(KeyMap *m)
{
    sim_free(m->keys);
    sim_free(m->vals);
    memset(m, 0, sizeof *m);
}

static int rehash(KeyMap *m, size_t cap)
{
    uint64_t *keys = sim_malloc(cap * sizeof *keys);
    int *vals = sim_malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        sim_free(keys);
        sim_free(vals);
        return -1;
    }
    for (size_t i = 0; i < cap; i++) {
        keys[i] = UINT64_MAX;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] != UINT64_MAX) {
            size_t h = (size_t)sim_mix64(m->keys[i]) & (cap - 1);
            while (keys[h] != UINT64_MAX) {
                h = (h + 1) & (cap - 1);
            }
            keys[h] = m->keys[i];
            vals[h] = m->vals[i];
        }
    }
    sim_free(m->keys);
    sim_free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

/* The slot that holds key, or the empty slot where it would go. The map
** must have slots and at least one of them empty. */
static size_t probe(const KeyMap *m, uint64_t key)
{
    size_t h = (size_t)sim_mix64(key) & (m->cap - 1);
    while (m->keys[h] != UINT64_MAX && m->keys[h] != key) {
        h = (h + 1) & (m->cap - 1);
    }
    return h;
}

int keymap_get(KeyMap *m, uint64_t key, int next_val, int *added)
{
    if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 1024)) {
        return -1;
    }
    size_t h = probe(m, key);
    if (m->keys[h] == key) {
        *added = 0;
        return m->vals[h];
    }
    m->keys[h] = key;
    m->vals[h] = next_val;
    m->n++;
    *added = 1;
    return next_val;
}

int keymap_find(const KeyMap *m, uint64_t key)
{
    if (m->cap == 0 || key == UINT64_MAX) {
        return -1; /* UINT64_MAX marks the empty slots */
    }
    size_t h = probe(m, key);
    return m->keys[h] == key ? m->vals[h] : -1;
}
