/*
** A hash map from 64-bit keys to int values (open addressing, linear
** probing), used to index participants, units, items and pairs. libc and
** common/ only.
*/
#ifndef SIMLAB_ANALYSIS_KEYMAP_H
#define SIMLAB_ANALYSIS_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct KeySlot {
    uint64_t key; /* UINT64_MAX marks an empty slot */
    int val;
} KeySlot;

typedef struct KeyMap {
    KeySlot *slots;
    size_t n, cap;
    /* the last key keymap_get() saw and its value (has_last: 1), so that
    ** runs of one key skip the table */
    uint64_t last_key;
    int last_val, has_last;
} KeyMap;

/* A zeroed KeyMap is empty and ready. Frees the slots; the map is empty
** again afterwards. */
void keymap_free(KeyMap *m);

/* Returns the value of key, inserting next_val when it is absent (then
** *added = 1). key must not be UINT64_MAX. Returns -1 when out of memory. */
int keymap_get(KeyMap *m, uint64_t key, int next_val, int *added);

/* The value of key, or -1 when absent. */
int keymap_find(const KeyMap *m, uint64_t key);

#endif
