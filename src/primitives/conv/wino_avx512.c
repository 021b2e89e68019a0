/* The Winograd F(4x4, 3x3) convolution on AVX-512: 16 lanes, register
 * tiles of 4 output blocks x 6 tiles (24 accumulators). See wino.h and
 * wino_tpl.h. */
#include "primitives/conv/wino.h"

#include "primitives/simd/simd_avx512.h"

#define WINO_NB          4
#define WINO_UR          6
#define WINO_ROW_TAIL(n) WT(n, 5) WT(n, 6)

#define ELT_F32  lg__eltwise_f32_avx512
#define FN(name) name##_avx512

#include "primitives/conv/wino_tpl.h"
