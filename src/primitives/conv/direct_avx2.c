/* The direct convolution on AVX2: 8 lanes, 16 registers (tiles of up to
 * 1 x 12, 2 x 6, 3 x 4 or 4 x 2 blocks x pixels). See direct_tpl.h. */
#include "primitives/conv/direct.h"

#include <immintrin.h>
#include <string.h>

#define VL 8
typedef __m256 vec;
typedef __m256i vmask;

#define URMAX1  12
#define URMAX2  6
#define URMAX3  4
#define URMAX4  2
#define URLIST1 UR_1_12
#define URLIST2 UR_1_6
#define URLIST3 UR_1_4
#define URLIST4 UR_1_2

#define VZERO()              _mm256_setzero_ps()
#define VLOAD(p)             _mm256_loadu_ps(p)
#define VSTORE(p, v)         _mm256_storeu_ps(p, v)
#define VBCAST(p)            _mm256_broadcast_ss(p)
#define VFMA(a, b, c)        _mm256_fmadd_ps(a, b, c)
#define VADD(a, b)           _mm256_add_ps(a, b)
#define VMUL(a, b)           _mm256_mul_ps(a, b)
#define VSET1(x)             _mm256_set1_ps(x)
#define VMAX0(v)             _mm256_max_ps(v, _mm256_setzero_ps())
#define VMAX(a, b)           _mm256_max_ps(a, b)
#define VMIN(a, b)           _mm256_min_ps(a, b)
#define VMASKZ_LOAD(m, p)    _mm256_maskload_ps(p, m)
#define VMASK_STORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define VMASKZ(m, v)         _mm256_and_ps(_mm256_castsi256_ps(m), v)
#define ELT_F32              lg__eltwise_f32_avx2
#define FN(name)             name##_avx2

/* Lanes [lo, hi), 0 <= lo <= hi <= 8. */
static inline vmask VMASK(int lo, int hi) {
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(hi), idx),
                            _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(lo - 1)));
}

#define DWLIST  DL_1_12
#define DWLIST5 DL_1_10 /* 5-wide kernels: UR + 5 weights + 1 source registers */

#include "primitives/conv/direct_tpl.h"
#include "primitives/conv/dw_tpl.h"
