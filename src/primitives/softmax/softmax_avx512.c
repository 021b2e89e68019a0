/* AVX-512 softmax rows: softmax_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#include <math.h>

static inline float pv_hsum(vec v) {
    return _mm512_reduce_add_ps(v);
}

static inline float pv_hmax(vec v) {
    return _mm512_reduce_max_ps(v);
}

static inline vec pv_ninf_from(vec x, int64_t k) {
    return _mm512_mask_blend_ps(v_first(k), _mm512_set1_ps(-INFINITY), x);
}

static inline vec pv_zero_from(vec x, int64_t k) {
    return _mm512_maskz_mov_ps(v_first(k), x);
}

#define LG_SMX_ROWS lg__softmax_rows_avx512
#include "primitives/softmax/softmax_simd.h"
