/*
** 64-bit key -> int hash map (see keymap.h). Keys and values share one
** slot array, so a lookup touches one cache line; the table is kept at
** most 3/4 full.
*/
#include "analysis/keymap.h"

#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_rng.h"

void keymap_free(KeyMap *m)
{
    sim_free(m->slots);
    memset(m, 0, sizeof *m);
}

static int rehash(KeyMap *m, size_t cap)
{
    KeySlot *slots = sim_malloc(cap * sizeof *slots);
    if (!slots) {
        return -1;
    }
    for (size_t i = 0; i < cap; i++) {
        slots[i].key = UINT64_MAX;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key != UINT64_MAX) {
            size_t h = (size_t)sim_mix64(m->slots[i].key) & (cap - 1);
            while (slots[h].key != UINT64_MAX) {
                h = (h + 1) & (cap - 1);
            }
            slots[h] = m->slots[i];
        }
    }
    sim_free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

/* The slot that holds key, or the empty slot where it would go. The map
** must have slots and at least one of them empty. */
static size_t probe(const KeyMap *m, uint64_t key)
{
    size_t h = (size_t)sim_mix64(key) & (m->cap - 1);
    while (m->slots[h].key != UINT64_MAX && m->slots[h].key != key) {
        h = (h + 1) & (m->cap - 1);
    }
    return h;
}

int keymap_get(KeyMap *m, uint64_t key, int next_val, int *added)
{
    if (m->has_last && m->last_key == key) {
        *added = 0;
        return m->last_val;
    }
    if ((m->n + 1) * 4 > m->cap * 3 && rehash(m, m->cap ? m->cap * 2 : 1024)) {
        return -1;
    }
    size_t h = probe(m, key);
    m->has_last = 1;
    m->last_key = key;
    if (m->slots[h].key == key) {
        *added = 0;
        m->last_val = m->slots[h].val;
        return m->last_val;
    }
    m->slots[h].key = key;
    m->slots[h].val = next_val;
    m->n++;
    *added = 1;
    m->last_val = next_val;
    return next_val;
}

int keymap_find(const KeyMap *m, uint64_t key)
{
    if (m->cap == 0 || key == UINT64_MAX) {
        return -1; /* UINT64_MAX marks the empty slots */
    }
    if (m->has_last && m->last_key == key) {
        return m->last_val;
    }
    size_t h = probe(m, key);
    return m->slots[h].key == key ? m->slots[h].val : -1;
}
