/* The pointwise convolution on AVX-512: 16 lanes, 32 registers (tiles of up
 * to 1 x 16, 2 x 12, 3 x 8 or 4 x 6 blocks x pixels). See pw.h and
 * pw_tpl.h. */
#include "primitives/conv/pw.h"

#include <immintrin.h>

#define VL 16
typedef __m512 vec;
typedef __mmask16 vmask;

#define PW_NBMAX        4
#define PW_URMAX        16
#define PW_TILE_LIST(X) PW_UR16(X, 1) PW_UR12(X, 2) PW_UR8(X, 3) PW_UR6(X, 4)

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

#include "primitives/conv/pw_tpl.h"
