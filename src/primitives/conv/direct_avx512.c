/* The direct convolution on AVX-512: 16 lanes, 32 registers (tiles of up to
 * 1 x 14, 2 x 14, 3 x 9 or 4 x 6 blocks x pixels). See direct_tpl.h. */
#include "primitives/conv/direct.h"

#include <immintrin.h>
#include <string.h>

#define VL 16
typedef __m512 vec;
typedef __mmask16 vmask;

#define URMAX1  14
#define URMAX2  14
#define URMAX3  9
#define URMAX4  6
#define URLIST1 UR_1_14
#define URLIST2 UR_1_14
#define URLIST3 UR_1_9
#define URLIST4 UR_1_6

#define VZERO()              _mm512_setzero_ps()
#define VLOAD(p)             _mm512_loadu_ps(p)
#define VSTORE(p, v)         _mm512_storeu_ps(p, v)
#define VBCAST(p)            _mm512_set1_ps(*(p))
#define VFMA(a, b, c)        _mm512_fmadd_ps(a, b, c)
#define VADD(a, b)           _mm512_add_ps(a, b)
#define VMUL(a, b)           _mm512_mul_ps(a, b)
#define VSET1(x)             _mm512_set1_ps(x)
#define VMAX0(v)             _mm512_max_ps(v, _mm512_setzero_ps())
#define VMAX(a, b)           _mm512_max_ps(a, b)
#define VMIN(a, b)           _mm512_min_ps(a, b)
#define VMASKZ_LOAD(m, p)    _mm512_maskz_loadu_ps(m, p)
#define VMASK_STORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define VMASKZ(m, v)         _mm512_maskz_mov_ps(m, v)
#define ELT_F32              lg__eltwise_f32_avx512
#define FN(name)             name##_avx512

/* Lanes [lo, hi), 0 <= lo <= hi <= 16. */
static inline vmask VMASK(int lo, int hi) {
    return (vmask)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

#define DWLIST  DL_1_14
#define DWLIST5 DL_1_14 /* 5-wide kernels: UR + 5 weights + 1 source registers */

#include "primitives/conv/direct_tpl.h"
#include "primitives/conv/dw_tpl.h"
