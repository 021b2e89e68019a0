/* The depthwise convolution on AVX2: 8 lanes, 16 registers (tiles of up to
 * 12 pixels, 10 for 5-wide kernels). See dw_tpl.h. */
#include "primitives/conv/direct.h"

#include "primitives/simd/simd_avx2.h"
#include <string.h>

#define URMAX1  12
#define DWMAX   12
#define DWLIST  DL_1_12
#define DWMAX5  10 /* 5-wide kernels: UR + 5 weights + 1 source registers */
#define DWLIST5 DL_1_10

#define ELT_F32  lg__eltwise_f32_avx2
#define FN(name) name##_avx2

#include "primitives/conv/dw_tpl.h"
