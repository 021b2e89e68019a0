/* The Winograd F(4x4, 3x3) convolution on AVX-512: 16 lanes, register
 * tiles of 4 output blocks x 6 tiles (24 accumulators). See wino.h and
 * wino_tpl.h. */
#include "primitives/conv/wino.h"

#include <immintrin.h>

#define VL 16
typedef __m512 vec;

#define WINO_NB          4
#define WINO_UR          6
#define WINO_ROW_TAIL(n) WT(n, 5) WT(n, 6)

#define VZERO()       _mm512_setzero_ps()
#define VLOAD(p)      _mm512_loadu_ps(p)
#define VSTORE(p, v)  _mm512_storeu_ps(p, v)
#define VBCAST(p)     _mm512_set1_ps(*(p))
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VADD(a, b)    _mm512_add_ps(a, b)
#define VSUB(a, b)    _mm512_sub_ps(a, b)
#define VMUL(a, b)    _mm512_mul_ps(a, b)
#define VSET1(x)      _mm512_set1_ps(x)
#define VMAX0(v)      _mm512_max_ps(v, _mm512_setzero_ps())
#define ELT_F32       lg__eltwise_f32_avx512
#define FN(name)      name##_avx512

/* v with lanes >= n zeroed (0 <= n <= 16). */
static inline vec VKEEP(vec v, int n) {
    return _mm512_maskz_mov_ps((__mmask16)((1u << n) - 1u), v);
}

/* Lanes [0, n) only: a masked load (the rest zero) and store. */
#define VLOADN(p, n)     _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1u), p)
#define VSTOREN(p, n, v) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1u), v)

#include "primitives/conv/wino_tpl.h"
