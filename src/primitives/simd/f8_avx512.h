/* The f8 (OCP e4m3 / e5m2) vector conversions of the AVX512 layer, bit for
 * bit convert.h's scalar ones: f8 codes in 32-bit lanes to f32, and f32 to
 * f8 codes (round to nearest even, the reorder contract's saturation and
 * NaNs), with or without the sign bit. Used by the typed loads and stores
 * (dtio_avx512.h); include only from files built with the AVX512 flags. */
#ifndef LG_SIMD_F8_AVX512_H
#define LG_SIMD_F8_AVX512_H

#include <immintrin.h>
#include <stdint.h>

/* f8 lanes to f32 and back, as f8_avx2.h (and convert.h) do. */
static inline __m512 e4m3_to_f32(__m512i b) {
    __m512i em = _mm512_and_si512(b, _mm512_set1_epi32(0x7f));
    __m512i sign = _mm512_slli_epi32(_mm512_and_si512(b, _mm512_set1_epi32(0x80)), 24);
    __m512 v =
        _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(em, 20)), _mm512_set1_ps(0x1p120f));
    __mmask16 nan = _mm512_cmpeq_epi32_mask(em, _mm512_set1_epi32(0x7f));
    __m512i r = _mm512_mask_mov_epi32(_mm512_castps_si512(v), nan, _mm512_set1_epi32(0x7fc00000));
    return _mm512_castsi512_ps(_mm512_or_si512(r, sign));
}

/* f8_avx2.h's f32_to_f8_mag and f32_to_f8, 16 lanes, with AVX512DQ's
 * range and class tests: vrangeps takes |v| and clamps it to sat in one
 * operation (sign cleared), vfpclassps finds the NaN lanes of v itself;
 * then round by adding and subtracting 2^(E + 23) (E raised to the
 * smallest normal's exponent), rescale by 2^(b - 127) and take the bits.
 * NaN lanes get the overflow code (sat rounded: sat is the tie above the
 * largest finite value) plus nanbit; f32_to_f8 adds the sign bit. */
static inline __m512i f32_to_f8_mag(__m512 v, int e, int b, int32_t sat, int32_t nanbit) {
    const int m = 7 - e, s = 23 - m;
    const int32_t t = (sat - ((127 - b) << 23)) >> s, nancode = t + (t & 1) + nanbit;
    __m512 a = _mm512_range_ps(v, _mm512_castsi512_ps(_mm512_set1_epi32(sat)), 0x0a);
    __mmask16 nan = _mm512_fpclass_ps_mask(v, 0x81); /* QNaN | SNaN */
    __m512i ex =
        _mm512_max_epi32(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7f800000)),
                         _mm512_set1_epi32((128 - b) << 23));
    __m512 magic = _mm512_castsi512_ps(_mm512_add_epi32(ex, _mm512_set1_epi32(s << 23)));
    __m512 r = _mm512_sub_ps(_mm512_add_ps(a, magic), magic);
    r = _mm512_mul_ps(r, _mm512_castsi512_ps(_mm512_set1_epi32(b << 23)));
    __m512i c = _mm512_srli_epi32(_mm512_castps_si512(r), s);
    return _mm512_mask_mov_epi32(c, nan, _mm512_set1_epi32(nancode));
}

static inline __m512i f32_to_f8(__m512 v, int e, int b, int32_t sat, int32_t nanbit) {
    /* code | ((bits(v) >> 24) & 0x80) */
    return _mm512_ternarylogic_epi32(f32_to_f8_mag(v, e, b, sat, nanbit),
                                     _mm512_srli_epi32(_mm512_castps_si512(v), 24),
                                     _mm512_set1_epi32(0x80), 0xf8);
}

#endif /* LG_SIMD_F8_AVX512_H */
