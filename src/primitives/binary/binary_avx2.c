/* AVX2 binary f32 kernels: binary_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#define LG_BIN_VV     lg__binary_vv_avx2
#define LG_BIN_PAT    lg__binary_pat_avx2
#define LG_BIN_VV_DT  lg__binary_vv_dt_avx2
#define LG_BIN_PAT_DT lg__binary_pat_dt_avx2
#include "primitives/binary/binary_simd.h"
