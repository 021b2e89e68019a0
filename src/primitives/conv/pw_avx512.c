/* The pointwise convolution on AVX-512: 16 lanes, 32 registers (tiles of up
 * to 1 x 16, 2 x 12, 3 x 8 or 4 x 6 blocks x pixels). See pw.h and
 * pw_tpl.h. */
#include "primitives/conv/pw.h"

#include "primitives/simd/simd_avx512.h"

#define PW_NBMAX        4
#define PW_URMAX        16
#define PW_TILE_LIST(X) PW_UR16(X, 1) PW_UR12(X, 2) PW_UR8(X, 3) PW_UR6(X, 4)

#define ELT_F32  lg__eltwise_f32_avx512
#define FN(name) name##_avx512

#include "primitives/conv/pw_tpl.h"
