/* The depthwise convolution on AVX-512: 16 lanes, 32 registers (tiles of up to
 * 14 pixels, 14 for 5-wide kernels). See dw_tpl.h. */
#include "primitives/conv/direct.h"

#include "primitives/simd/simd_avx512.h"
#include <string.h>

#define URMAX1  14
#define DWMAX   14
#define DWLIST  DL_1_14
#define DWMAX5  14 /* 5-wide kernels: UR + 5 weights + 1 source registers */
#define DWLIST5 DL_1_14

#define ELT_F32  lg__eltwise_f32_avx512
#define FN(name) name##_avx512

#include "primitives/conv/dw_tpl.h"
