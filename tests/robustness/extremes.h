/* The extreme values of the hostile-input sweep (tests/robustness/) and of
 * the fuzz targets (tests/fuzz/), listed once: 0, -1, the int64 and int
 * limits, powers of two whose products overflow int64 and size_t, and values
 * just past a limit the library states (LG_MAX_NDIMS, LG_MAX_THREADS). */
#ifndef LG_TESTS_EXTREMES_H
#define LG_TESTS_EXTREMES_H

#include <lgraph.h>

#include <limits.h>
#include <stdint.h>

/* int64 parameters: dims, strides, padding, dilation, group sizes, offsets.
 * 3037000500 squared passes INT64_MAX; 2^32 squared passes SIZE_MAX. */
static const int64_t lg_x64[] = {
    0,
    -1,
    1,
    2,
    INT64_MAX,
    INT64_MIN,
    INT64_MAX - 1,
    INT64_MIN + 1,
    (int64_t)1 << 62,
    -((int64_t)1 << 62),
    (int64_t)1 << 61,
    (int64_t)1 << 32,
    (int64_t)1 << 31,
    INT32_MAX,
    (int64_t)INT32_MIN,
    3037000500LL,
    (int64_t)1 << 40,
};
#define LG_NX64 ((int)(sizeof lg_x64 / sizeof lg_x64[0]))

/* int parameters: ndims, axes, masks, algorithms, argument ids, counts,
 * thread counts, capacities. */
static const int lg_xint[] = {
    0,
    -1,
    1,
    2,
    INT_MAX,
    INT_MIN,
    INT_MAX - 1,
    LG_MAX_NDIMS,
    LG_MAX_NDIMS + 1,
    31,
    32,
    63,
    64,
    LG_MAX_THREADS,
    LG_MAX_THREADS + 1,
    1 << 30,
    -(1 << 30),
};
#define LG_NXINT ((int)(sizeof lg_xint / sizeof lg_xint[0]))

/* float parameters (alpha, beta, sum scales): NaN, infinities, extremes. */
#define LG_XFLOAT_LIST                                                                             \
    {                                                                                              \
        __builtin_nanf(""), __builtin_inff(), -__builtin_inff(), 3.4028235e38f, -3.4028235e38f,    \
            1.4e-45f, -0.0f, 0.0f, 1.0f                                                            \
    }

/* Byte offsets added to an aligned buffer: misaligned for every wider type
 * (1, 2, 3) and element-aligned but not vector-aligned (4, 8, 12). */
static const int lg_xoff[] = {1, 2, 3, 4, 8, 12};
#define LG_NXOFF ((int)(sizeof lg_xoff / sizeof lg_xoff[0]))

/* The i-th value of each list, any i (taken modulo the length): how the
 * fuzz targets draw them from a byte. */
static inline int64_t lg_x64_at(unsigned i) {
    return lg_x64[i % LG_NX64];
}
static inline int lg_xint_at(unsigned i) {
    return lg_xint[i % LG_NXINT];
}
static inline float lg_xfloat_at(unsigned i) {
    static const float v[] = LG_XFLOAT_LIST;
    return v[i % (sizeof v / sizeof v[0])];
}
static inline int lg_xoff_at(unsigned i) {
    return lg_xoff[i % LG_NXOFF];
}

#endif /* LG_TESTS_EXTREMES_H */
