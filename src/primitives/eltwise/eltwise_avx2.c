/* AVX2 eltwise f32 kernels: eltwise_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#define LG_ELT_F32   lg__eltwise_f32_avx2
#define LG_ELT_HALF  lg__eltwise_half_avx2
#define LG_ELT_VMATH lg__vmath_avx2
#include "primitives/eltwise/eltwise_simd.h"
