/* Data-type conversions shared by every kernel: the scalar truth that the
 * SIMD paths must match bit for bit.
 *
 *  - f32 -> bf16 and f32 -> f16 round to nearest, ties to even (IEEE); values
 *    beyond the largest finite one become +-inf; NaN stays NaN (quiet).
 *  - f32 -> s8 / u8 / s32 round to nearest, ties to even, and saturate; NaN
 *    gives 0. The s32 upper bound is 2147483520, the largest f32 below 2^31,
 *    as in oneDNN (so that the bound itself converts exactly).
 *  - f32 -> f8_e4m3 / f8_e5m2 round to nearest, ties to even. e4m3 has no
 *    infinity: magnitudes beyond 448 and +-inf saturate to +-448 (0x7e),
 *    NaN gives 0x7f with its sign. e5m2 is IEEE-like: magnitudes from 61440
 *    (the tie above 57344, whose mantissa is odd) and +-inf give +-inf
 *    (0x7c), NaN a quiet NaN (0x7e) with its sign.
 *  - Everything else converts to f32 exactly.
 * They assume the default floating-point environment (round to nearest, no
 * flush-to-zero), which lgraph never changes. */
#ifndef LG_MEMORY_CONVERT_H
#define LG_MEMORY_CONVERT_H

#include "lgraph.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LG_S32_F32_MAX 2147483520.0f
#define LG_S32_F32_MIN (-2147483648.0f)

static inline uint32_t lg__f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float lg__bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t lg__f32_to_bf16(float f) {
    uint32_t u = lg__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float lg__bf16_to_f32(uint16_t h) {
    return lg__bits_f32((uint32_t)h << 16);
}

static inline uint16_t lg__f32_to_f16(float f) {
    uint32_t x = lg__f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
    if (ax < 0x38800000u) {
        /* Below 2^-14: an f16 subnormal m * 2^-24. Adding 0.5 puts |f| where the
         * f32 ulp is 2^-24, so the hardware's rounding is exactly RNE of m. */
        uint32_t t = lg__f32_bits(lg__bits_f32(ax) + 0.5f);
        return (uint16_t)(sign | (t - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + odd; /* rebias the exponent by -112, then round */
    return (uint16_t)(sign | (ax >> 13));
}

static inline float lg__f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return lg__bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = (float)m * 0x1p-24f; /* exact: m < 2^10 */
        return sign ? -v : v;
    }
    return lg__bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* f32 -> f8 with e exponent bits (bias b) and 8 - 1 - e mantissa bits:
 * the f16 scheme at 8 bits. `sat` is the f32 bits of the smallest magnitude
 * that overflows (the tie above the largest finite value, or beyond it),
 * `ovf` the code it gives, `nan` the NaN code. */
static inline uint8_t lg__f32_to_f8(float f, int e, int b, uint32_t sat, uint32_t ovf,
                                    uint32_t nan) {
    const int m = 7 - e, shift = 23 - m;
    uint32_t x = lg__f32_bits(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint8_t)(sign | nan);
    if (ax >= sat) return (uint8_t)(sign | ovf);
    if (ax < (uint32_t)(128 - b) << 23) {
        /* Below the smallest normal: a denormal q * 2^(1 - b - m). Adding
         * 2^(24 - b - m) puts |f| where the f32 ulp is that quantum, so the
         * hardware's rounding is RNE of q (q = 2^m is the smallest normal). */
        float big = lg__bits_f32((uint32_t)(151 - b - m) << 23);
        return (uint8_t)(sign | (lg__f32_bits(lg__bits_f32(ax) + big) - lg__f32_bits(big)));
    }
    ax -= (uint32_t)(127 - b) << 23; /* rebias, then round to m bits */
    ax += (1u << (shift - 1)) - 1u + ((ax >> shift) & 1u);
    return (uint8_t)(sign | (ax >> shift));
}

static inline uint8_t lg__f32_to_f8_e4m3(float f) {
    return lg__f32_to_f8(f, 4, 7, 0x43e80000u /* 464 */, 0x7eu, 0x7fu);
}

static inline uint8_t lg__f32_to_f8_e5m2(float f) {
    return lg__f32_to_f8(f, 5, 15, 0x47700000u /* 61440 */, 0x7cu, 0x7eu);
}

static inline float lg__f8_e4m3_to_f32(uint8_t h) {
    uint32_t sign = (uint32_t)(h & 0x80u) << 24, em = h & 0x7fu;
    if (em == 0x7fu) return lg__bits_f32(sign | 0x7fc00000u);
    /* em << 20 is the f32 with e4m3's exponent and mantissa fields in place
     * (a denormal when the exponent is 0); 2^120 rebiases 7 to 127. */
    float v = lg__bits_f32(em << 20) * 0x1p120f;
    return sign ? -v : v;
}

static inline float lg__f8_e5m2_to_f32(uint8_t h) {
    return lg__f16_to_f32((uint16_t)(h << 8)); /* e5m2 is f16's upper byte */
}

static inline int32_t lg__f32_to_s32(float f) {
    if (f != f) return 0;
    if (f > LG_S32_F32_MAX) f = LG_S32_F32_MAX;
    if (f < LG_S32_F32_MIN) f = LG_S32_F32_MIN;
    return (int32_t)lrintf(f);
}

static inline int8_t lg__f32_to_s8(float f) {
    if (f != f) return 0;
    f = f < -128.0f ? -128.0f : (f > 127.0f ? 127.0f : f);
    return (int8_t)lrintf(f);
}

static inline uint8_t lg__f32_to_u8(float f) {
    if (f != f) return 0;
    f = f < 0.0f ? 0.0f : (f > 255.0f ? 255.0f : f);
    return (uint8_t)lrintf(f);
}

/* Load element i of a buffer of type dt as f32 (dt must be valid). */
static inline float lg__load_f32(const void *p, lg_dtype dt, int64_t i) {
    switch (dt) {
    case LG_F32:
        return ((const float *)p)[i];
    case LG_F16:
        return lg__f16_to_f32(((const uint16_t *)p)[i]);
    case LG_BF16:
        return lg__bf16_to_f32(((const uint16_t *)p)[i]);
    case LG_S32:
        return (float)((const int32_t *)p)[i];
    case LG_S8:
        return (float)((const int8_t *)p)[i];
    case LG_U8:
        return (float)((const uint8_t *)p)[i];
    case LG_F8_E4M3:
        return lg__f8_e4m3_to_f32(((const uint8_t *)p)[i]);
    case LG_F8_E5M2:
        return lg__f8_e5m2_to_f32(((const uint8_t *)p)[i]);
    case LG_DT_UNDEF:
        break;
    }
    return 0.0f;
}

/* Store f as element i of a buffer of type dt, converted as described above. */
static inline void lg__store_f32(void *p, lg_dtype dt, int64_t i, float f) {
    switch (dt) {
    case LG_F32:
        ((float *)p)[i] = f;
        break;
    case LG_F16:
        ((uint16_t *)p)[i] = lg__f32_to_f16(f);
        break;
    case LG_BF16:
        ((uint16_t *)p)[i] = lg__f32_to_bf16(f);
        break;
    case LG_S32:
        ((int32_t *)p)[i] = lg__f32_to_s32(f);
        break;
    case LG_S8:
        ((int8_t *)p)[i] = lg__f32_to_s8(f);
        break;
    case LG_U8:
        ((uint8_t *)p)[i] = lg__f32_to_u8(f);
        break;
    case LG_F8_E4M3:
        ((uint8_t *)p)[i] = lg__f32_to_f8_e4m3(f);
        break;
    case LG_F8_E5M2:
        ((uint8_t *)p)[i] = lg__f32_to_f8_e5m2(f);
        break;
    case LG_DT_UNDEF:
        break;
    }
}

#endif /* LG_MEMORY_CONVERT_H */
