/* The pointwise convolution on AVX2: 8 lanes, 16 registers (tiles of up to
 * 1 x 12, 2 x 6 or 3 x 4 blocks x pixels). See pw.h and pw_tpl.h. */
#include "primitives/conv/pw.h"

#include "primitives/simd/simd_avx2.h"

#define PW_NBMAX        3
#define PW_URMAX        12
#define PW_TILE_LIST(X) PW_UR12(X, 1) PW_UR6(X, 2) PW_UR4(X, 3)

#define ELT_F32  lg__eltwise_f32_avx2
#define FN(name) name##_avx2

#include "primitives/conv/pw_tpl.h"
