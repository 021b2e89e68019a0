/* AVX-512 batch-normalization rows: bnorm_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#define LG_BNORM_ROWS lg__bnorm_rows_avx512
#include "primitives/bnorm/bnorm_simd.h"
