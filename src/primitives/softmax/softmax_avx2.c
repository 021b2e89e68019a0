/* AVX2 softmax rows: softmax_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#include <math.h>

static inline float pv_hsum(vec v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline float pv_hmax(vec v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline vec pv_ninf_from(vec x, int64_t k) {
    return _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), x, _mm256_castsi256_ps(v_first(k)));
}

static inline vec pv_zero_from(vec x, int64_t k) {
    return _mm256_and_ps(x, _mm256_castsi256_ps(v_first(k)));
}

#define LG_SMX_ROWS lg__softmax_rows_avx2
#include "primitives/softmax/softmax_simd.h"
