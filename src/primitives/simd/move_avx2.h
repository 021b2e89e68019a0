/* AVX2 data movement shared through the SIMD layer: the 8x8 transpose of
 * VL vectors of 32-bit lanes (in registers, and loaded from rows), and byte
 * copies and zeroing with optional non-temporal stores. First used by the
 * fast reorder engine (reorder/fast_simd.h). Include after simd_avx2.h,
 * only from files built with the AVX2 flags (*avx2.c). */
#ifndef LG_PRIMITIVES_SIMD_MOVE_AVX2_H
#define LG_PRIMITIVES_SIMD_MOVE_AVX2_H

#include "primitives/simd/simd_avx2.h"

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* 8x8 transpose: unpack pairs, shuffle quads, swap 128-bit halves. */
static inline void v_tr(vec r[VL]) {
    vec t[VL], u[VL];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xee);
        u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
        r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
    }
}

/* Load and transpose a full 8x8 tile of 32-bit elements: a[4q + k] gets,
 * in 128-bit lane L, quad q of row 4L + k (a load and an insert from
 * memory); a 4x4 transpose inside the lanes of a[4q..4q+3] then gives
 * columns 4q..4q+3 whole. */
/* The 4x4 transposes inside the lanes of a[0..3], into r[0..3]. */
static inline void tr4_lanes(const vec a[4], vec *r) {
    vec t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    vec t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    r[0] = _mm256_shuffle_ps(t0, t2, 0x44);
    r[1] = _mm256_shuffle_ps(t0, t2, 0xee);
    r[2] = _mm256_shuffle_ps(t1, t3, 0x44);
    r[3] = _mm256_shuffle_ps(t1, t3, 0xee);
}

static inline __m128 quad(const char *p) {
    return _mm_loadu_ps((const float *)(const void *)p);
}

static inline void v_ld_tr(const char *s, int64_t sa, vec r[VL]) {
    for (int q = 0; q < 2; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            const char *p = s + k * sa + q * 16;
            a[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(quad(p)), quad(p + 4 * sa), 1);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

/* v_ld_tr with the row addresses given (a partial tile points its missing
 * rows at zeros). */
static inline void v_ld_tr_rows(const char *const rows[VL], vec r[VL]) {
    for (int q = 0; q < 2; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++)
            a[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(quad(rows[k] + q * 16)),
                                        quad(rows[4 + k] + q * 16), 1);
        tr4_lanes(a, r + 4 * q);
    }
}

static inline void v_copy_bytes(char *d, const char *s, int64_t nb, bool nt) {
    int64_t i = 0;
    if (nt && nb >= 512) {
        int64_t head = (int64_t)(-(uintptr_t)d & 31);
        memcpy(d, s, (size_t)head);
        for (i = head; i + 32 <= nb; i += 32)
            _mm256_stream_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    } else {
        for (; i + 32 <= nb; i += 32)
            _mm256_storeu_si256((__m256i *)(void *)(d + i),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i)));
    }
    if (i < nb) memcpy(d + i, s + i, (size_t)(nb - i));
}

/* Two 32-byte rows s0, s1 to the 64 bytes at d. */
static inline void v_copy_2x32(char *d, const char *s0, const char *s1, bool nt) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s0);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)s1);
    if (nt && ((uintptr_t)d & 31) == 0) {
        _mm256_stream_si256((__m256i *)(void *)d, a);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
        return;
    }
    _mm256_storeu_si256((__m256i *)(void *)d, a);
    _mm256_storeu_si256((__m256i *)(void *)(d + 32), b);
}

static inline void v_zero_bytes(char *d, int64_t nb) {
    int64_t i = 0;
    for (; i + 32 <= nb; i += 32)
        _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_setzero_si256());
    if (i < nb) memset(d + i, 0, (size_t)(nb - i));
}

#endif /* LG_PRIMITIVES_SIMD_MOVE_AVX2_H */
