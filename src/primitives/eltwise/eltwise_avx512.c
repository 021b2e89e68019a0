/* AVX-512 eltwise f32 kernels: eltwise_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#define LG_ELT_F32   lg__eltwise_f32_avx512
#define LG_ELT_HALF  lg__eltwise_half_avx512
#define LG_ELT_VMATH lg__vmath_avx512
#include "primitives/eltwise/eltwise_simd.h"
