/* AVX2 softmax rows: softmax_simd.h on 8 lanes. Only called when
 * lg__cpu_isa() allows AVX2. */
#include "primitives/simd/simd_avx2.h"

#define LG_SMX_ROWS lg__softmax_rows_avx2
#include "primitives/softmax/softmax_simd.h"
