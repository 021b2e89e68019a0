/* Helpers shared by the tests: a seeded random generator and small checks. */
#ifndef LG_TEST_UTIL_H
#define LG_TEST_UTIL_H

#include <stdint.h>

/* splitmix64: a small, seedable generator so every test run is reproducible. */
typedef struct lg_rng {
    uint64_t s;
} lg_rng;

static inline uint64_t lg_rng_next(lg_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t lg_rng_int(lg_rng *r, int64_t lo, int64_t hi) {
    return lo + (int64_t)(lg_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Uniform float in [lo, hi). */
static inline float lg_rng_float(lg_rng *r, float lo, float hi) {
    return lo + (hi - lo) * (float)((lg_rng_next(r) >> 40) * 0x1p-24);
}

#endif /* LG_TEST_UTIL_H */
