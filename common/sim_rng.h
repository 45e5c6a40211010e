/*
** Deterministic random numbers: xoshiro256** seeded through SplitMix64, with
** unbiased bounded integers (Lemire). Streams derived from (seed, index) let
** parallel work reproduce the same numbers whatever the thread count.
*/
#ifndef SIMLAB_COMMON_SIM_RNG_H
#define SIMLAB_COMMON_SIM_RNG_H

#include <stdint.h>
#include <stddef.h>

typedef struct SimRng {
    uint64_t s[4];
} SimRng;

/* Seeds rng from one 64-bit value. */
void sim_rng_seed(SimRng *rng, uint64_t seed);

/* Seeds rng for sub-stream `index` of `seed` (e.g. bootstrap replicate b). */
void sim_rng_seed_stream(SimRng *rng, uint64_t seed, uint64_t index);

uint64_t sim_rng_next(SimRng *rng);

/* Uniform integer in [0, bound); bound must be > 0. */
uint64_t sim_rng_below(SimRng *rng, uint64_t bound);

/* Uniform double in [0, 1) with 53 random bits. */
double sim_rng_uniform(SimRng *rng);

/* Standard normal deviate (polar Box-Muller without caching). */
double sim_rng_normal(SimRng *rng);

/* Fisher-Yates shuffle of n elements of elem_size bytes. */
void sim_rng_shuffle(SimRng *rng, void *base, size_t n, size_t elem_size);

/* SplitMix64 mixing step: a good 64-bit hash of x. */
uint64_t sim_mix64(uint64_t x);

/* FNV-1a 64-bit hash of a string, for deriving seeds from names. */
uint64_t sim_hash_str(const char *s);

#endif
