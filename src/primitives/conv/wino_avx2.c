/* The Winograd F(4x4, 3x3) convolution on AVX2: 8 lanes, register tiles of
 * 3 output blocks x 4 tiles (12 accumulators). See wino.h and wino_tpl.h. */
#include "primitives/conv/wino.h"

#include "primitives/simd/simd_avx2.h"

#define WINO_NB          3
#define WINO_UR          4
#define WINO_ROW_TAIL(n) /* UR 4: no rows beyond 4 */

#define ELT_F32  lg__eltwise_f32_avx2
#define FN(name) name##_avx2

#include "primitives/conv/wino_tpl.h"
