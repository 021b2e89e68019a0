/* AVX-512 pooling rows: pool_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#define LG_POOL_ROWS lg__pool_rows_avx512
#include "primitives/pool/pool_simd.h"
