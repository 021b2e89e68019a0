/* AVX-512 pooling rows: pool_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

static inline float pv_hsum(vec v) {
    return _mm512_reduce_add_ps(v);
}

/* p[0], p[s], ..., p[15 s]. */
static inline vec pv_gather(const float *p, int64_t s) {
    __m512i idx =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32((int)s));
    return _mm512_i32gather_ps(idx, p, 4);
}

#define LG_POOL_ROWS lg__pool_rows_avx512
#include "primitives/pool/pool_simd.h"
