/* The scalar row conversion and the per-ISA choice (cvt.h); the SIMD ones
 * are instances of fast_simd.h. */
#include "primitives/simd/cvt.h"

#include "memory/convert.h"

#include <string.h>

void lg__cvt_scalar(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n) {
    if (sdt == ddt) {
        memcpy(dst, src, (size_t)n * lg_dtype_size(sdt));
        return;
    }
    for (int64_t i = 0; i < n; i++) lg__store_f32(dst, ddt, i, lg__load_f32(src, sdt, i));
}

lg__cvt_fn lg__cvt_for_isa(lg__isa isa) {
    if (isa > lg__cpu_isa_hw()) isa = lg__cpu_isa_hw();
    return isa == LG_ISA_AVX512 ? lg__cvt_avx512
           : isa == LG_ISA_AVX2 ? lg__cvt_avx2
                                : lg__cvt_scalar;
}
