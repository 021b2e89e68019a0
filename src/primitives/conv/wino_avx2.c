/* The Winograd F(4x4, 3x3) convolution on AVX2: 8 lanes, register tiles of
 * 3 output blocks x 4 tiles (12 accumulators). See wino.h and wino_tpl.h. */
#include "primitives/conv/wino.h"

#include <immintrin.h>

#define VL 8
typedef __m256 vec;

#define WINO_NB          3
#define WINO_UR          4
#define WINO_ROW_TAIL(n) /* UR 4: no rows beyond 4 */

#define VZERO()       _mm256_setzero_ps()
#define VLOAD(p)      _mm256_loadu_ps(p)
#define VSTORE(p, v)  _mm256_storeu_ps(p, v)
#define VBCAST(p)     _mm256_broadcast_ss(p)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VADD(a, b)    _mm256_add_ps(a, b)
#define VSUB(a, b)    _mm256_sub_ps(a, b)
#define VMUL(a, b)    _mm256_mul_ps(a, b)
#define VSET1(x)      _mm256_set1_ps(x)
#define VMAX0(v)      _mm256_max_ps(v, _mm256_setzero_ps())
#define ELT_F32       lg__eltwise_f32_avx2
#define FN(name)      name##_avx2

/* v with lanes >= n zeroed (0 <= n <= 8). */
static inline vec VKEEP(vec v, int n) {
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
    return _mm256_and_ps(_mm256_castsi256_ps(m), v);
}

/* Lanes [0, n) only: a masked load (the rest zero) and store. */
static inline __m256i lanes_(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#define VLOADN(p, n)     _mm256_maskload_ps(p, lanes_(n))
#define VSTOREN(p, n, v) _mm256_maskstore_ps(p, lanes_(n), v)

#include "primitives/conv/wino_tpl.h"
