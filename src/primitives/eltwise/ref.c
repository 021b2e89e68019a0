/* The scalar eltwise truth: the element function (libm), the whole-tensor
 * reference walking logical indices, and the scalar f32 kernel. */
#include "primitives/eltwise/eltwise.h"

#include "memory/convert.h"
#include "primitives/postops.h"

#include <math.h>
#include <string.h>

/* oneDNN's gelu constants: sqrt(2 / pi) and the cubic fitting constant. */
#define GELU_K0 0.79788458347320556640625f
#define GELU_K1 0.044715f
/* 1 / sqrt(2) rounded to f32. */
#define RSQRT2 0.70710677f

bool lg__eltwise_alg_known(int alg, bool *ints) {
    *ints = alg == LG_ELTWISE_RELU || alg == LG_ELTWISE_LINEAR || alg == LG_ELTWISE_CLIP ||
            alg == LG_ELTWISE_CLIP_V2 || alg == LG_ELTWISE_ABS || alg == LG_ELTWISE_ROUND;
    return alg >= LG_ELTWISE_RELU && alg <= LG_ELTWISE_SOFT_RELU;
}

double lg__eltwise_ulp_bound(int alg) {
    /* Measured over every f32 input (AVX-512 and AVX2 give the same bits)
     * against this file's lg__eltwise_fwd, which rounds libm once more. */
    switch ((lg_eltwise_alg)alg) {
    case LG_ELTWISE_EXP: /* measured 1 */
    case LG_ELTWISE_LOG: /* measured 1 */
        return 2.0;
    case LG_ELTWISE_TANH: /* measured 3 */
    case LG_ELTWISE_ELU:  /* measured 2: expm1, then alpha x */
        return 3.0;
    case LG_ELTWISE_LOGISTIC:  /* measured 4 */
    case LG_ELTWISE_SWISH:     /* measured 4 (alpha 1.25) */
    case LG_ELTWISE_GELU_TANH: /* measured 4 */
        return 5.0;
    case LG_ELTWISE_GELU_ERF: /* measured 7: ours and erfcf's errors add */
        return 8.0;
    default:
        return 0.0;
    }
}

/* ln(1 + e^v) in double, without overflow for large v. */
static double softplus(double v) {
    return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
}

static inline float hardsigmoid(float v) {
    return v <= 0.0f ? 0.0f : (v >= 1.0f ? 1.0f : v);
}

float lg__eltwise_fwd(int alg, float alpha, float beta, float x) {
    switch ((lg_eltwise_alg)alg) {
    case LG_ELTWISE_RELU:
        return x > 0.0f ? x : alpha * x;
    case LG_ELTWISE_ELU:
        return x > 0.0f ? x : alpha * expm1f(x);
    case LG_ELTWISE_TANH:
        return tanhf(x);
    case LG_ELTWISE_LOGISTIC:
        return 1.0f / (1.0f + expf(-x));
    case LG_ELTWISE_GELU_TANH: {
        float g = GELU_K0 * x * (1.0f + GELU_K1 * x * x);
        return x / (1.0f + expf(-2.0f * g));
    }
    case LG_ELTWISE_GELU_ERF:
        return 0.5f * x * erfcf(-x * RSQRT2);
    case LG_ELTWISE_SWISH:
        return x / (1.0f + expf(-(alpha * x)));
    case LG_ELTWISE_EXP:
        return expf(x);
    case LG_ELTWISE_LOG:
        return logf(x);
    case LG_ELTWISE_ABS:
        return fabsf(x);
    case LG_ELTWISE_SQRT:
        return sqrtf(x);
    case LG_ELTWISE_SQUARE:
        return x * x;
    case LG_ELTWISE_LINEAR:
        return alpha * x + beta;
    case LG_ELTWISE_CLIP: {
        float s = x > alpha ? x : alpha;
        return s > beta ? beta : s;
    }
    case LG_ELTWISE_HARDSWISH:
        return x * hardsigmoid(alpha * x + beta);
    case LG_ELTWISE_HARDSIGMOID:
        return hardsigmoid(alpha * x + beta);
    case LG_ELTWISE_POW:
        /* x^0 is 1 for every x (NaN included), as pow says. */
        return (float)((double)alpha * pow((double)x, (double)beta));
    case LG_ELTWISE_CLIP_V2: {
        float s = x > alpha ? x : alpha;
        return s > beta ? beta : s;
    }
    case LG_ELTWISE_ROUND:
        return nearbyintf(x); /* the default mode: to nearest, ties to even */
    case LG_ELTWISE_MISH:
        return (float)((double)x * tanh(softplus((double)x)));
    case LG_ELTWISE_SOFT_RELU:
        return (float)(softplus((double)(alpha * x)) / (double)alpha);
    }
    return x;
}

void lg__eltwise_f32_scalar(const lg__eltwise_pd *pd, const float *src, float *dst, int64_t n,
                            bool stream) {
    (void)stream;
    for (int64_t i = 0; i < n; i++) dst[i] = lg__eltwise_fwd(pd->alg, pd->alpha, pd->beta, src[i]);
}

/* Advance idx over the box [0, ext) row-major; false after the last index. */
static bool next_index(int64_t *idx, const int64_t *ext, int nd) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < ext[d]) return true;
        idx[d] = 0;
    }
    return false;
}

void lg__eltwise_ref(const lg__eltwise_pd *pd, const void *src, void *dst) {
    lg__po_spec none;
    memset(&none, 0, sizeof none);
    lg__eltwise_ref_po(pd, &none, src, dst, NULL);
}

void lg__eltwise_ref_po(const lg__eltwise_pd *pd, const lg__po_spec *po, const void *src, void *dst,
                        const void *const *src1) {
    const lg_md *md = &pd->md;
    int nd = md->ndims;
    if (lg__md_nelems(md) == 0) return;
    int64_t idx[LG_MAX_NDIMS] = {0};
    do {
        int64_t off = lg__md_off(md, idx);
        float v = lg__load_f32(src, md->dtype, off);
        float r = lg__eltwise_fwd(pd->alg, pd->alpha, pd->beta, v);
        if (po->npost) r = lg__po_scalar(po, idx, r, lg__load_f32(dst, md->dtype, off), src1);
        lg__store_f32(dst, md->dtype, off, r);
    } while (next_index(idx, md->dims, nd));
    if (!lg__md_has_padding(md)) return;
    size_t esz = lg_dtype_size(md->dtype);
    memset(idx, 0, sizeof idx);
    do {
        bool pad = false;
        for (int k = 0; k < nd; k++) pad = pad || idx[k] >= md->dims[k];
        if (pad) memset((char *)dst + lg__md_off(md, idx) * (int64_t)esz, 0, esz);
    } while (next_index(idx, md->padded_dims, nd));
}
