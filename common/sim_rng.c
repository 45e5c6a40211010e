/*
** xoshiro256** (Blackman & Vigna) seeded with SplitMix64; Lemire's
** nearly-divisionless bounded integers. No global state.
*/
#include "common/sim_rng.h"

#include <math.h>

uint64_t sim_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void sim_rng_seed(SimRng *rng, uint64_t seed)
{
    /* the first four outputs of SplitMix64 started at seed */
    for (uint64_t i = 0; i < 4; i++) {
        rng->s[i] = sim_mix64(seed + i * 0x9e3779b97f4a7c15ULL);
    }
}

void sim_rng_seed_stream(SimRng *rng, uint64_t seed, uint64_t index)
{
    sim_rng_seed(rng, sim_mix64(seed) ^
                          sim_mix64(index * 0xd1342543de82ef95ULL + 1));
}

double sim_rng_uniform(SimRng *rng)
{
    return (double)(sim_rng_next(rng) >> 11) * 0x1.0p-53;
}

double sim_rng_normal(SimRng *rng)
{
    double u, v, s;
    do {
        u = 2.0 * sim_rng_uniform(rng) - 1.0;
        v = 2.0 * sim_rng_uniform(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

void sim_rng_shuffle(SimRng *rng, void *base, size_t n, size_t elem_size)
{
    unsigned char *b = base;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)sim_rng_below(rng, i);
        if (j != i - 1) {
            unsigned char *x = b + j * elem_size;
            unsigned char *y = b + (i - 1) * elem_size;
            for (size_t k = 0; k < elem_size; k++) {
                unsigned char t = x[k];
                x[k] = y[k];
                y[k] = t;
            }
        }
    }
}

uint64_t sim_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}
