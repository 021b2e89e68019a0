/* Convolutions in other data types and with quantisation attributes
 * (lg_conv_create's contract in lgraph.h): bf16 / f16 / f32 src and weights
 * in any mix, or u8 / s8 src with s8 weights; dst f32, bf16, f16, s32, s8 or
 * u8; bias f32, bf16 or f16; scales on src, weights and dst, zero points on
 * src, weights and dst, sums with a data type and zero point, eltwise and
 * binary post-ops. oneDNN's (v3) semantics, per output element:
 *
 *     acc = sum over taps of (src - zp_src[ic]) * (wei - zp_wei)
 *           (s32-exact integers for int8, f32 products then sums otherwise)
 *     v   = acc * scale_src * scale_wei[oc]    (each factor only when set)
 *     v   = v + bias[oc]
 *     v   = post-ops(v)    (a sum adds beta * (dst_old read as its type - zp))
 *     v   = v / scale_dst + zp_dst[oc]
 *     dst = v converted to dst's type (round to nearest even; integers
 *           saturate, NaN gives 0)
 *
 * taps falling in the spatial zero padding contribute nothing (their
 * src - zp_src counts as 0, as in oneDNN).
 *
 * Two implementations share the epilogue (everything after acc):
 *  - the scalar reference lg__convq_ref, the truth: accumulates in int64
 *    (integers) or f32 (floats, the order of lg__conv_ref);
 *  - the conversion path: src and weights converted into f32 scratch buffers
 *    in the same layouts (src less its zero point), the f32 kernel of
 *    lg_conv_create (no bias, no post-ops) computes acc into an f32 scratch
 *    dst, then the epilogue. For int8 the f32 sums are exact as long as
 *    K * max|src - zp| * max|wei - zp| <= 2^24 (K = IC/G * kernel size),
 *    checked at each execution from the zero points given; beyond, src - zp
 *    is split as 16 * hi + lo (lo in 0..15) and the two f32 convolutions,
 *    each exact, combined in int64; beyond that too, the scalar reference
 *    runs. So int8 results equal the reference's bit for bit; bf16 / f16
 *    ones equal an f32 convolution of the converted inputs (the products are
 *    exact in f32; sums in the f32 kernel's order).
 * The scratch buffers are allocated when the kernel is created (execution
 * allocates nothing, kernel.h): an execution claims them with an atomic
 * flag; one that finds them taken (another thread executing the same
 * kernel) runs the scalar reference instead, on the caller's buffers. */
#ifndef LG_PRIMITIVES_CONV_QUANT_H
#define LG_PRIMITIVES_CONV_QUANT_H

#include "primitives/conv/conv.h"
#include "primitives/postops.h"

/* Quantisation argument slots: src, weights, dst. */
enum { LG_CQ_SRC, LG_CQ_WEI, LG_CQ_DST };

/* A validated problem (zeroed then filled: a cache key). */
typedef struct lg__convq_pd {
    lg__conv_pd f;             /* the f32 problem: the same layouts in f32, no bias, no post-ops */
    lg_md src, wei, bias, dst; /* concrete, in the caller's types */
    int32_t has_bias;
    int32_t int8;     /* u8 / s8 src with s8 weights (else floats) */
    int32_t smask[3]; /* scale masks (src, weights, dst); -1: none */
    int32_t zmask[3]; /* zero-point masks; -1: none */
    int32_t sum_dt;   /* the type a sum reads dst_old as */
    int32_t sum_zp;   /* and its zero point */
    lg__po_spec po;   /* the chain (a sum with a type as a plain sum) */
} lg__convq_pd;

/* The run-time buffers of one execution. */
typedef struct lg__convq_args {
    const void *src, *wei, *bias;
    void *dst;
    const float *scale[3]; /* NULL when not asked for */
    const int32_t *zp[3];  /* NULL when not asked for */
    const void *src1[LG_MAX_POST_OPS];
} lg__convq_args;

/* Whether lg_conv_create must take this path: a type other than f32, or
 * attr asks for scales, zero points or a sum with a type. */
LG_INTERNAL bool lg__convq_wanted(const lg_md *src, const lg_md *weights, const lg_md *bias,
                                  const lg_md *dst, const lg_attr *attr);

/* Validate (errors name `where`) and fill *q; "any" mds take the layouts
 * the f32 problem would. */
LG_INTERNAL lg_status lg__convq_query(const lg_conv_params *p, const lg_md *src,
                                      const lg_md *weights, const lg_md *bias, const lg_md *dst,
                                      const lg_attr *attr, const char *where, lg__convq_pd *q);

/* lg_conv_create for a problem lg__convq_wanted selects. */
LG_INTERNAL lg_status lg__convq_create(lg_kernel **k, const lg_conv_params *p, const lg_md *src,
                                       const lg_md *weights, const lg_md *bias, const lg_md *dst,
                                       const lg_attr *attr);

/* The scalar reference (see above) into a->dst, with t the tables of q->f
 * (lg__conv_tabs_init); dst's padding is zeroed. */
LG_INTERNAL void lg__convq_ref(const lg__convq_pd *q, const lg__conv_tabs *t,
                               const lg__convq_args *a);

/* The epilogue on one output element: acc as above, idx its logical index
 * (N, C, spatial), off its element offset in dst (offset0 excluded). */
LG_INTERNAL void lg__convq_store(const lg__convq_pd *q, const lg__convq_args *a, float acc,
                                 const int64_t *idx, int64_t off);

/* Output row r of shape s (rows are N x OC x OD x OH, row-major) as its
 * indices. */
static inline void lg__convq_row(const lg__conv_shape *s, int64_t r, int64_t *n, int64_t *oc,
                                 int64_t *od, int64_t *oh) {
    *oh = r % s->oh;
    r /= s->oh;
    *od = r % s->od;
    r /= s->od;
    *oc = r % s->oc;
    *n = r / s->oc;
}

/* The number of values of a scale or zero-point mask on slot i (0 for -1). */
LG_INTERNAL int64_t lg__convq_count(const lg__convq_pd *q, int i, bool zp);

#endif /* LG_PRIMITIVES_CONV_QUANT_H */
