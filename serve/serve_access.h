/*
** Who may continue a participant's run of `simlab serve` (docs/online.md
** "Who may continue"): the file's secret (store_online_secret) keys the
** hashes of browser keys, platform sessions and resume codes kept in the
** store, and the pilot link's secret. Random keys and resume codes. No
** HTTP, no clock.
*/
#ifndef SIMLAB_SERVE_SERVE_ACCESS_H
#define SIMLAB_SERVE_SERVE_ACCESS_H

#include <stddef.h>

#include "common/sim_error.h"
#include "experiment/store.h"

/* The keys of one server: the file's secret and the pilot link's secret
** made from it (24 hex digits: the same for every run on that file). */
typedef struct ServeKeys {
    unsigned char secret[32];
    char pilot[25];
} ServeKeys;

/* Reads the file's secret from store and makes the pilot secret. */
int serve_keys_load(Store *store, ServeKeys *k, SimError *err);

/* The keyed hash (HMAC-SHA-256, hex) of value, for participant id ext and
** kind ("key", "session", "code", "pilot"): a hash of one kind and id
** never matches another's. */
void serve_keys_hash(const ServeKeys *k, const char *kind, const char *ext,
                     const char *value, char out[65]);

/* 1 when a and b are equal strings, in a time that does not depend on
** where they differ. */
int serve_same(const char *a, const char *b);

/* n random bytes as 2n lowercase hex digits and a NUL (out has 2n + 1
** bytes). 0, or -1 when the system has no randomness to give. */
int serve_random_hex(char *out, size_t n);

/* A new resume code, "ABCD-EFGH": 8 characters of Crockford's base 32
** (40 bits). 0 or -1 as above. */
int serve_resume_code(char out[10]);

/* A code as typed (any case, spaces and dashes anywhere, O for 0, I or L
** for 1) as the 8 characters it names, or "" when it cannot be one. */
void serve_code_normalize(const char *in, char out[9]);

/* 1 when s is 1 to max letters, digits, '-', '_', '.' (an id or a
** platform session as a link carries it). */
int serve_name_valid(const char *s, size_t max);

/* 1 when s is a platform session as a link carries it: 1 to 128 letters,
** digits, '-', '_', '.' (MTurk's preview placeholder is none). */
int serve_session_valid(const char *s);

#endif
