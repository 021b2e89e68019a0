/* The direct convolution on AVX2: 8 lanes, 16 registers (tiles of up to
 * 1 x 12, 2 x 6, 3 x 4 or 4 x 2 blocks x pixels). See direct_tpl.h. */
#include "primitives/conv/direct.h"

#include "primitives/simd/simd_avx2.h"
#include <string.h>

#define URMAX1  12
#define URMAX2  6
#define URMAX3  4
#define URMAX4  2
#define URLIST1 UR_1_12
#define URLIST2 UR_1_6
#define URLIST3 UR_1_4
#define URLIST4 UR_1_2

#define ELT_F32  lg__eltwise_f32_avx2
#define FN(name) name##_avx2

#include "primitives/conv/direct_tpl.h"
