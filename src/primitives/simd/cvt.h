/* Row conversions between data types, shared with the eltwise and binary
 * kernels: the reorder engine's vector loads and stores (fast_simd.h) on
 * one contiguous run, so every kernel converts as lg__reorder_ref does
 * without attributes: convert.h's rules, bit for bit (f32 -> f16 / bf16
 * round to nearest even, NaN stays NaN; f32 -> s32 / s8 / u8 round to
 * nearest even and saturate, NaN gives 0; the rest exact). */
#ifndef LG_PRIMITIVES_REORDER_CVT_H
#define LG_PRIMITIVES_REORDER_CVT_H

#include "primitives/cpu.h"

/* Convert n elements of type sdt at src to type ddt at dst (no overlap).
 * One of the two types must be f32; f32 to f32 copies the bits. */
typedef void (*lg__cvt_fn)(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n);

LG_INTERNAL void lg__cvt_scalar(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n);
LG_INTERNAL void lg__cvt_avx2(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n);
LG_INTERNAL void lg__cvt_avx512(lg_dtype sdt, const void *src, lg_dtype ddt, void *dst, int64_t n);

/* The conversion of ISA level isa (capped by what the hardware has). */
LG_INTERNAL lg__cvt_fn lg__cvt_for_isa(lg__isa isa);

#endif /* LG_PRIMITIVES_REORDER_CVT_H */
