/* The direct convolution on AVX-512: 16 lanes, 32 registers (tiles of up to
 * 1 x 14, 2 x 14, 3 x 9 or 4 x 6 blocks x pixels). See direct_tpl.h. */
#include "primitives/conv/direct.h"

#include "primitives/simd/simd_avx512.h"
#include <string.h>

#define URMAX1  14
#define URMAX2  14
#define URMAX3  9
#define URMAX4  6
#define URLIST1 UR_1_14
#define URLIST2 UR_1_14
#define URLIST3 UR_1_9
#define URLIST4 UR_1_6

#define ELT_F32  lg__eltwise_f32_avx512
#define FN(name) name##_avx512

#include "primitives/conv/direct_tpl.h"
