/* AVX2 pooling rows: pool_simd.h on 8 lanes. Only called when lg__cpu_isa()
 * allows AVX2. */
#include "primitives/simd/simd_avx2.h"

static inline float pv_hsum(vec v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* p[0], p[s], ..., p[7 s]. */
static inline vec pv_gather(const float *p, int64_t s) {
    __m256i idx =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)s));
    return _mm256_i32gather_ps(p, idx, 4);
}

#define LG_POOL_ROWS lg__pool_rows_avx2
#include "primitives/pool/pool_simd.h"
