/* AVX-512 binary f32 kernels: binary_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#define LG_BIN_VV     lg__binary_vv_avx512
#define LG_BIN_PAT    lg__binary_pat_avx512
#define LG_BIN_VV_DT  lg__binary_vv_dt_avx512
#define LG_BIN_PAT_DT lg__binary_pat_dt_avx512
#include "primitives/binary/binary_simd.h"
