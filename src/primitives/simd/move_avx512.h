/* AVX-512 data movement shared through the SIMD layer: the 16x16 transpose of
 * VL vectors of 32-bit lanes (in registers, and loaded from rows), and byte
 * copies and zeroing with optional non-temporal stores. First used by the
 * fast reorder engine (reorder/fast_simd.h). Include after simd_avx512.h,
 * only from files built with the AVX-512 flags (*avx512.c). */
#ifndef LG_PRIMITIVES_SIMD_MOVE_AVX512_H
#define LG_PRIMITIVES_SIMD_MOVE_AVX512_H

#include "primitives/simd/simd_avx512.h"

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* 16x16 transpose: unpack pairs, shuffle quads, then two rounds of 128-bit
 * lane shuffles. */
static inline void v_tr(vec r[VL]) {
    vec t[VL];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        r[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xee);
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    /* r[4i + k] now holds, in 128-bit lane L, rows 4i..4i+3 of column 4L + k. */
    for (int k = 0; k < 4; k++) {
        t[4 * k + 0] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
        t[4 * k + 1] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd);
        t[4 * k + 2] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
        t[4 * k + 3] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm512_shuffle_f32x4(t[4 * k + 0], t[4 * k + 2], 0x88);
        r[8 + k] = _mm512_shuffle_f32x4(t[4 * k + 0], t[4 * k + 2], 0xdd);
        r[4 + k] = _mm512_shuffle_f32x4(t[4 * k + 1], t[4 * k + 3], 0x88);
        r[12 + k] = _mm512_shuffle_f32x4(t[4 * k + 1], t[4 * k + 3], 0xdd);
    }
}

/* Load and transpose a full 16x16 tile of 32-bit elements: register
 * a[4q + k] gets, in 128-bit lane L, quad q of row 4L + k (one load and
 * three inserts from memory, which run on the load ports and port 0);
 * then a 4x4 transpose inside the lanes of a[4q..4q+3] gives columns
 * 4q..4q+3 whole. Half the shuffle-port work of loads + v_tr. */
static inline __m128 quad(const char *p) {
    return _mm_loadu_ps((const float *)(const void *)p);
}
/* The 4x4 transposes inside the lanes of a[0..3], into r[0..3]. */
static inline void tr4_lanes(const vec a[4], vec *r) {
    vec t0 = _mm512_unpacklo_ps(a[0], a[1]), t1 = _mm512_unpackhi_ps(a[0], a[1]);
    vec t2 = _mm512_unpacklo_ps(a[2], a[3]), t3 = _mm512_unpackhi_ps(a[2], a[3]);
    r[0] = _mm512_shuffle_ps(t0, t2, 0x44);
    r[1] = _mm512_shuffle_ps(t0, t2, 0xee);
    r[2] = _mm512_shuffle_ps(t1, t3, 0x44);
    r[3] = _mm512_shuffle_ps(t1, t3, 0xee);
}

static inline void v_ld_tr(const char *s, int64_t sa, vec r[VL]) {
    for (int q = 0; q < 4; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            const char *p = s + k * sa + q * 16;
            vec x = _mm512_castps128_ps512(quad(p));
            x = _mm512_insertf32x4(x, quad(p + 4 * sa), 1);
            x = _mm512_insertf32x4(x, quad(p + 8 * sa), 2);
            a[k] = _mm512_insertf32x4(x, quad(p + 12 * sa), 3);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

/* v_ld_tr with the row addresses given (a partial tile points its missing
 * rows at zeros). */
static inline void v_ld_tr_rows(const char *const rows[VL], vec r[VL]) {
    for (int q = 0; q < 4; q++) {
        vec a[4];
        for (int k = 0; k < 4; k++) {
            vec x = _mm512_castps128_ps512(quad(rows[k] + q * 16));
            x = _mm512_insertf32x4(x, quad(rows[4 + k] + q * 16), 1);
            x = _mm512_insertf32x4(x, quad(rows[8 + k] + q * 16), 2);
            a[k] = _mm512_insertf32x4(x, quad(rows[12 + k] + q * 16), 3);
        }
        tr4_lanes(a, r + 4 * q);
    }
}

static inline __mmask64 byte_lanes(int64_t n) {
    return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

static inline void v_copy_bytes(char *d, const char *s, int64_t nb, bool nt) {
    if (nb == 32) {
        _mm256_storeu_si256((__m256i *)(void *)d,
                            _mm256_loadu_si256((const __m256i *)(const void *)s));
        return;
    }
    if (nb == 64) { /* a cache line (nhwc -> nChw16c rows) */
        __m512i v = _mm512_loadu_si512(s);
        if (nt && ((uintptr_t)d & 63) == 0)
            _mm512_stream_si512((__m512i *)(void *)d, v);
        else
            _mm512_storeu_si512(d, v);
        return;
    }
    int64_t i = 0;
    if (nt && nb >= 512) {
        int64_t head = (int64_t)(-(uintptr_t)d & 63);
        if (head) {
            __mmask64 m = byte_lanes(head);
            _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
            i = head;
        }
        for (; i + 64 <= nb; i += 64)
            _mm512_stream_si512((__m512i *)(void *)(d + i), _mm512_loadu_si512(s + i));
    } else {
        for (; i + 128 <= nb; i += 128) {
            __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
            _mm512_storeu_si512(d + i, a);
            _mm512_storeu_si512(d + i + 64, b);
        }
    }
    for (; i < nb; i += 64) {
        __mmask64 m = byte_lanes(nb - i);
        _mm512_mask_storeu_epi8(d + i, m, _mm512_maskz_loadu_epi8(m, s + i));
    }
}

/* Two 32-byte rows s0, s1 to the 64 bytes at d. */
static inline void v_copy_2x32(char *d, const char *s0, const char *s1, bool nt) {
    __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)s0));
    v = _mm512_inserti64x4(v, _mm256_loadu_si256((const __m256i *)(const void *)s1), 1);
    if (nt && ((uintptr_t)d & 63) == 0)
        _mm512_stream_si512((__m512i *)(void *)d, v);
    else
        _mm512_storeu_si512(d, v);
}

static inline void v_zero_bytes(char *d, int64_t nb) {
    for (int64_t i = 0; i < nb; i += 64)
        _mm512_mask_storeu_epi8(d + i, byte_lanes(nb - i), _mm512_setzero_si512());
}

#endif /* LG_PRIMITIVES_SIMD_MOVE_AVX512_H */
