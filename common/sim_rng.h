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

/* The next 64 random bits. Inline (as sim_rng_below), so hot loops such
** as the bootstrap's draws keep the state in registers. */
static inline uint64_t sim_rng_next(SimRng *rng)
{
    uint64_t *s = rng->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform integer in [0, bound); bound must be > 0 (Lemire's nearly
** divisionless rejection). */
static inline uint64_t sim_rng_below(SimRng *rng, uint64_t bound)
{
    uint64_t x = sim_rng_next(rng);
    __uint128_t m = (__uint128_t)x * bound;
    uint64_t l = (uint64_t)m;
    if (l < bound) {
        uint64_t t = (0 - bound) % bound;
        while (l < t) {
            x = sim_rng_next(rng);
            m = (__uint128_t)x * bound;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

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
