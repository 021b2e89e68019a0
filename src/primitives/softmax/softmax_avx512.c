/* AVX-512 softmax rows: softmax_simd.h on 16 lanes. Only called when
 * lg__cpu_isa() allows AVX-512. */
#include "primitives/simd/simd_avx512.h"

#define LG_SMX_ROWS lg__softmax_rows_avx512
#include "primitives/softmax/softmax_simd.h"
