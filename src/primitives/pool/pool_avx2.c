/* AVX2 pooling rows: pool_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#define LG_POOL_ROWS lg__pool_rows_avx2
#include "primitives/pool/pool_simd.h"
