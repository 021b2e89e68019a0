/* The f32 / f16 / bf16 element-index loads and stores of the eltwise,
 * binary and batchnorm templates, written once on the typed loads and
 * stores of dtio_<isa>.h (v_ld, v_st), which include it at their end, as
 * the layers include math_tpl.h. */
#ifndef LG_PRIMITIVES_SIMD_DTIO_TPL_H
#define LG_PRIMITIVES_SIMD_DTIO_TPL_H

/* VL (or the first k) elements of type dt (f32, f16 or bf16) at element i
 * of p, as f32; and the stores back, converted: v_ld / v_st's f16 and bf16
 * kinds, f32 through the plain (masked) loads and stores. */
static inline vec v_load_dt(lg_dtype dt, const void *p, int64_t i) {
    if (dt == LG_F32) return v_load((const float *)p + i);
    return v_ld(dt == LG_F16 ? LK_F16 : LK_BF16, (const char *)p + 2 * i, VL);
}
static inline vec v_load_dt_part(lg_dtype dt, const void *p, int64_t i, int64_t k) {
    if (dt == LG_F32) return v_load_part((const float *)p + i, k);
    return v_ld(dt == LG_F16 ? LK_F16 : LK_BF16, (const char *)p + 2 * i, (int)k);
}
static inline void v_store_dt(lg_dtype dt, void *p, int64_t i, vec v) {
    if (dt == LG_F32)
        v_store((float *)p + i, v);
    else
        v_st(dt == LG_F16 ? SK_F16 : SK_BF16, (char *)p + 2 * i, v, VL, false);
}
static inline void v_store_dt_part(lg_dtype dt, void *p, int64_t i, vec v, int64_t k) {
    if (dt == LG_F32)
        v_store_part((float *)p + i, v, k);
    else
        v_st(dt == LG_F16 ? SK_F16 : SK_BF16, (char *)p + 2 * i, v, (int)k, false);
}

#endif /* LG_PRIMITIVES_SIMD_DTIO_TPL_H */
