/* The SIMD eltwise f32 kernels, written once over the vector layer
 * (simd_avx2.h or simd_avx512.h). Not a normal header: eltwise_avx2.c and
 * eltwise_avx512.c each include their layer, name the entry points
 * LG_ELT_F32 and LG_ELT_VMATH, then include this file.
 *
 * One loop per algorithm (the switch is outside the loop), VL lanes, a
 * masked tail (its inactive lanes compute on zeros, harmlessly), optional
 * non-temporal stores. Every algorithm performs the operations of
 * lg__eltwise_fwd in the same order (unfused), so those without a
 * transcendental call match it bit for bit; exp / expm1 / log / tanh / erfc
 * come from the math headers. */
#if !defined(LG_ELT_F32) || !defined(LG_ELT_HALF) || !defined(LG_ELT_VMATH)
#error "eltwise_simd.h is a template: include a vector layer and name the entry points first"
#endif

#include "primitives/eltwise/eltwise.h"

typedef struct consts {
    vec alpha, beta, zero, one;
    const lg__eltwise_pd *pd;
} consts;

/* Software prefetch distance in elements: on the development machine it
 * made the memory-bound loops 10-15% faster than the hardware prefetchers
 * alone. (Prefetching past the end of the buffer is harmless.) */
#define PF_AHEAD 512

/* One loop: x is the input vector, EXPR the result. */
#define ELT_LOOP(EXPR)                                                                             \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        if (stream)                                                                                \
            for (; i + VL <= n; i += VL) {                                                         \
                _mm_prefetch((const char *)(src + i + PF_AHEAD), _MM_HINT_T0);                     \
                vec x = v_load(src + i);                                                           \
                v_stream(dst + i, (EXPR));                                                         \
            }                                                                                      \
        else                                                                                       \
            for (; i + VL <= n; i += VL) {                                                         \
                _mm_prefetch((const char *)(src + i + PF_AHEAD), _MM_HINT_T0);                     \
                vec x = v_load(src + i);                                                           \
                v_store(dst + i, (EXPR));                                                          \
            }                                                                                      \
        if (i < n) {                                                                               \
            vec x = v_load_part(src + i, n - i);                                                   \
            v_store_part(dst + i, (EXPR), n - i);                                                  \
        }                                                                                          \
    } while (0)

/* ELT_LOOP on data of the 16-bit type dt: loads and stores convert. */
#define ELT_LOOP_DT(EXPR)                                                                          \
    do {                                                                                           \
        int64_t i = 0;                                                                             \
        for (; i + VL <= n; i += VL) {                                                             \
            _mm_prefetch((const char *)src + (i + PF_AHEAD) * 2, _MM_HINT_T0);                     \
            vec x = v_load_dt(dt, src, i);                                                         \
            v_store_dt(dt, dst, i, (EXPR));                                                        \
        }                                                                                          \
        if (i < n) {                                                                               \
            vec x = v_load_dt_part(dt, src, i, n - i);                                             \
            v_store_dt_part(dt, dst, i, (EXPR), n - i);                                            \
        }                                                                                          \
    } while (0)

/* x > 0 ? x : alpha x (NaN: alpha x, as the reference). */
static inline vec relu(vec x, const consts *c) {
    return v_sel(v_gt(x, c->zero), x, v_mul(c->alpha, x));
}

static inline vec elu(vec x, const consts *c) {
    return v_sel(v_gt(x, c->zero), x, v_mul(c->alpha, v_expm1(x)));
}

/* 1 / (1 + e^-x). */
static inline vec logistic(vec x, const consts *c) {
    vec e = v_exp(v_sub(c->zero, x));
    return v_div(c->one, v_add(c->one, e));
}

/* x / (1 + e^-(alpha x)). */
static inline vec swish(vec x, const consts *c) {
    vec e = v_exp(v_sub(c->zero, v_mul(c->alpha, x)));
    return v_div(x, v_add(c->one, e));
}

/* x / (1 + e^(-2 g)), g = (k0 x)(1 + (k1 x) x). */
static inline vec gelu_tanh(vec x, const consts *c) {
    vec a = v_mul(v_set1(0.79788458347320556640625f), x);
    vec b = v_mul(v_mul(v_set1(0.044715f), x), x);
    vec g = v_mul(a, v_add(c->one, b));
    vec e = v_exp(v_mul(v_set1(-2.0f), g));
    return v_div(x, v_add(c->one, e));
}

static inline vec clip(vec x, const consts *c) {
    return v_min(c->beta, v_max(x, c->alpha));
}

/* v <= 0 ? 0 : v >= 1 ? 1 : v, v = alpha x + beta. */
static inline vec hardsigmoid(vec x, const consts *c) {
    vec v = v_add(v_mul(c->alpha, x), c->beta);
    v = v_sel(v_ge(v, c->one), c->one, v);
    return v_sel(v_le(v, c->zero), c->zero, v);
}

/* lg__eltwise_fwd lane by lane (pow, mish, soft_relu: libm in double). */
static inline vec by_lane(vec x, const consts *c) {
    float t[VL];
    v_store(t, x);
    for (int j = 0; j < VL; j++)
        t[j] = lg__eltwise_fwd(c->pd->alg, c->pd->alpha, c->pd->beta, t[j]);
    return v_load(t);
}

/* LOOP(EXPR) for the algorithm of pd, x the input vector. */
#define BY_ALG(LOOP)                                                                               \
    switch ((lg_eltwise_alg)pd->alg) {                                                             \
    case LG_ELTWISE_RELU:                                                                          \
        LOOP(relu(x, c));                                                                          \
        break;                                                                                     \
    case LG_ELTWISE_ELU:                                                                           \
        LOOP(elu(x, c));                                                                           \
        break;                                                                                     \
    case LG_ELTWISE_TANH:                                                                          \
        LOOP(v_tanh(x));                                                                           \
        break;                                                                                     \
    case LG_ELTWISE_LOGISTIC:                                                                      \
        LOOP(logistic(x, c));                                                                      \
        break;                                                                                     \
    case LG_ELTWISE_GELU_TANH:                                                                     \
        LOOP(gelu_tanh(x, c));                                                                     \
        break;                                                                                     \
    case LG_ELTWISE_GELU_ERF:                                                                      \
        LOOP(v_gelu_erf(x));                                                                       \
        break;                                                                                     \
    case LG_ELTWISE_SWISH:                                                                         \
        LOOP(swish(x, c));                                                                         \
        break;                                                                                     \
    case LG_ELTWISE_EXP:                                                                           \
        LOOP(v_exp(x));                                                                            \
        break;                                                                                     \
    case LG_ELTWISE_LOG:                                                                           \
        LOOP(v_log(x));                                                                            \
        break;                                                                                     \
    case LG_ELTWISE_ABS:                                                                           \
        LOOP(v_abs(x));                                                                            \
        break;                                                                                     \
    case LG_ELTWISE_SQRT:                                                                          \
        LOOP(v_sqrt(x));                                                                           \
        break;                                                                                     \
    case LG_ELTWISE_SQUARE:                                                                        \
        LOOP(v_mul(x, x));                                                                         \
        break;                                                                                     \
    case LG_ELTWISE_LINEAR:                                                                        \
        LOOP(v_add(v_mul(c->alpha, x), c->beta));                                                  \
        break;                                                                                     \
    case LG_ELTWISE_CLIP:                                                                          \
        LOOP(clip(x, c));                                                                          \
        break;                                                                                     \
    case LG_ELTWISE_HARDSWISH:                                                                     \
        LOOP(v_mul(x, hardsigmoid(x, c)));                                                         \
        break;                                                                                     \
    case LG_ELTWISE_HARDSIGMOID:                                                                   \
        LOOP(hardsigmoid(x, c));                                                                   \
        break;                                                                                     \
    case LG_ELTWISE_CLIP_V2:                                                                       \
        LOOP(clip(x, c));                                                                          \
        break;                                                                                     \
    case LG_ELTWISE_ROUND:                                                                         \
        LOOP(v_round(x));                                                                          \
        break;                                                                                     \
    case LG_ELTWISE_POW:                                                                           \
    case LG_ELTWISE_MISH:                                                                          \
    case LG_ELTWISE_SOFT_RELU:                                                                     \
        LOOP(by_lane(x, c));                                                                       \
        break;                                                                                     \
    }

void LG_ELT_F32(const lg__eltwise_pd *pd, const float *src, float *dst, int64_t n, bool stream) {
    consts cs = {v_set1(pd->alpha), v_set1(pd->beta), v_zero(), v_set1(1.0f), pd};
    const consts *c = &cs;
    BY_ALG(ELT_LOOP)
}

/* One instance per 16-bit type, so that the conversions are fixed. */
static inline __attribute__((always_inline)) void
half_tpl(const lg__eltwise_pd *pd, const lg_dtype dt, const void *src, void *dst, int64_t n) {
    consts cs = {v_set1(pd->alpha), v_set1(pd->beta), v_zero(), v_set1(1.0f), pd};
    const consts *c = &cs;
    BY_ALG(ELT_LOOP_DT)
}

void LG_ELT_HALF(const lg__eltwise_pd *pd, const void *src, void *dst, int64_t n) {
    if (pd->md.dtype == LG_F16)
        half_tpl(pd, LG_F16, src, dst, n);
    else
        half_tpl(pd, LG_BF16, src, dst, n);
}

void LG_ELT_VMATH(int fn, const float *src, float *dst, int64_t n) {
    bool stream = false;
    switch (fn) {
    case LG_VMATH_EXP:
        ELT_LOOP(v_exp(x));
        break;
    case LG_VMATH_EXPM1:
        ELT_LOOP(v_expm1(x));
        break;
    case LG_VMATH_LOG:
        ELT_LOOP(v_log(x));
        break;
    case LG_VMATH_TANH:
        ELT_LOOP(v_tanh(x));
        break;
    case LG_VMATH_ERF:
        ELT_LOOP(v_erf(x));
        break;
    case LG_VMATH_ERFC:
        ELT_LOOP(v_erfc(x));
        break;
    case LG_VMATH_GELU_ERF:
        ELT_LOOP(v_gelu_erf(x));
        break;
    }
}
