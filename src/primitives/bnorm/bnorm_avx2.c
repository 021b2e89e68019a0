/* AVX2 batch-normalization rows: bnorm_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#define LG_BNORM_ROWS lg__bnorm_rows_avx2
#include "primitives/bnorm/bnorm_simd.h"
