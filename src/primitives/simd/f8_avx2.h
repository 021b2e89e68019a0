/* The f8 (OCP e4m3 / e5m2) vector conversions of the AVX2 layer, bit for
 * bit convert.h's scalar ones: f8 codes in 32-bit lanes to f32, and f32 to
 * f8 codes (round to nearest even, the reorder contract's saturation and
 * NaNs), with or without the sign bit. Used by the typed loads and stores
 * (dtio_avx2.h); include only from files built with the AVX2 flags. */
#ifndef LG_SIMD_F8_AVX2_H
#define LG_SIMD_F8_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* f8 lanes (bytes widened to 32 bits) to f32, exactly as convert.h. e4m3:
 * the exponent and mantissa fields shifted into f32's place give 2^-120
 * times the value (an f32 denormal for an e4m3 denormal), then the sign and
 * NaN (0x7f). e5m2 is f16's upper byte. */
static inline __m256 e4m3_to_f32(__m256i b) {
    __m256i em = _mm256_and_si256(b, _mm256_set1_epi32(0x7f));
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x80)), 24);
    __m256 v =
        _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(em, 20)), _mm256_set1_ps(0x1p120f));
    __m256i nan = _mm256_cmpeq_epi32(em, _mm256_set1_epi32(0x7f));
    __m256i r = _mm256_blendv_epi8(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fc00000), nan);
    return _mm256_castsi256_ps(_mm256_or_si256(r, sign));
}

/* f32 to f8 codes in 32-bit lanes, bit for bit convert.h's lg__f32_to_f8
 * (e exponent bits, bias b), by another route: magnitudes clamp to `sat`,
 * the tie above the largest finite value, which rounds to the overflow code
 * (e4m3: 448 by ties-to-even; e5m2: inf); adding and subtracting 2^(E + 23)
 * rounds to nearest even at the f8 quantum 2^(E - m), where E is the
 * exponent of |x| raised to the smallest normal's (so denormals get theirs);
 * the rounded value times 2^(b - 127) is an f32 (denormal for small codes)
 * whose bits, shifted, are the code. NaN lanes then add `nanbit` to the
 * overflow code (0x7e + 1 = 0x7f; 0x7c + 2 = 0x7e). f32_to_f8_mag gives
 * the code without the sign bit (0..0x7f), f32_to_f8 with it. */
static inline __m256i f32_to_f8_mag(__m256 v, int e, int b, int32_t sat, int32_t nanbit) {
    const int m = 7 - e;
    __m256i ax = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
    __m256i nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000)); /* -1 in NaN lanes */
    __m256i a = _mm256_min_epi32(ax, _mm256_set1_epi32(sat));
    __m256i ex = _mm256_max_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0x7f800000)),
                                  _mm256_set1_epi32((128 - b) << 23));
    __m256 magic = _mm256_castsi256_ps(_mm256_add_epi32(ex, _mm256_set1_epi32((23 - m) << 23)));
    __m256 r = _mm256_sub_ps(_mm256_add_ps(_mm256_castsi256_ps(a), magic), magic);
    r = _mm256_mul_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(b << 23)));
    __m256i c = _mm256_srli_epi32(_mm256_castps_si256(r), 23 - m);
    return _mm256_sub_epi32(c, nanbit == 1 ? nan : _mm256_add_epi32(nan, nan));
}

static inline __m256i f32_to_f8(__m256 v, int e, int b, int32_t sat, int32_t nanbit) {
    __m256i sign =
        _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 24), _mm256_set1_epi32(0x80));
    return _mm256_or_si256(f32_to_f8_mag(v, e, b, sat, nanbit), sign);
}

#endif /* LG_SIMD_F8_AVX2_H */
