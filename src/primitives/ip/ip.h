/* The inner-product kernel's internal interface: the problem (also its
 * cache key), the layout choice for "any", the scalar reference and the
 * per-ISA tile loops.
 *
 * Layout choice for "any" (lg__ip_choose). B is the vector length of the
 * ISA (8 on AVX2, 16 on AVX-512; the scalar cap takes plain layouts):
 *   src      2D: ab; 3D-5D: channel blocked aBx{B}b (what a conv writes)
 *   weights  src's layout with dim 0 (OC instead of N) blocked by B, the
 *            block innermost: src ab -> Ab{B}a, abcd -> Abcd{B}a, acdb ->
 *            Acdb{B}a, aBcd8b -> ABcd8b{B}a. Each OC block then holds, for
 *            every src element of one sample in src's memory order, B
 *            output channels side by side: the vector paths read a sample
 *            and a weights block both front to back, whatever src's layout.
 *   bias     a;  dst  ab.
 * The vector paths run when src is dense with dim 0 outermost and unblocked
 * (plain, channels-last, channel-blocked, 2D ab), weights are in the layout
 * above for that src, dst is dense ab and bias is a; any other combination
 * runs the reference. */
#ifndef LG_PRIMITIVES_IP_H
#define LG_PRIMITIVES_IP_H

#include "memory/md.h"
#include "primitives/attr.h"
#include "primitives/cpu.h"
#include "primitives/eltwise/eltwise.h"

/* A validated problem, zeroed then filled (the kernel cache hashes its
 * bytes): concrete mds, bias all zero bytes when absent. */
typedef struct lg__ip_pd {
    lg_md src, wei, bias, dst;
    int32_t has_bias;
    int32_t npost;
    lg__post_op post[LG_MAX_POST_OPS];
} lg__ip_pd;

/* What lg_inner_product_create would build, without building it: validate
 * as it does and resolve every "any" md into *pd. Creates no kernel. Errors
 * name `where`; NULL records no message (a probe). */
LG_INTERNAL lg_status lg__ip_query(const lg_md *src, const lg_md *weights, const lg_md *bias,
                                   const lg_md *dst, const lg_attr *attr, const char *where,
                                   lg__ip_pd *pd);

/* The weights tag matching a concrete src md for OC block `ob` (see the
 * file comment) into wtag (LG_TAG_MAX + 1 bytes); false when src is not a
 * dense layout with dim 0 outermost and unblocked. */
LG_INTERNAL bool lg__ip_weights_tag(const lg_md *src, int ob, char *wtag);

/* Element offsets of the reference: src (n, k), weights (oc, k), dst
 * (n, oc) are at row[n or oc] + col[k or oc], k the row-major index over
 * src's dims 1.. (offsets in the blocked model are sums of per-dim terms).
 * padtab: lg__offtab_new over dst's padded dims when dst has padding. One
 * allocation (raw) besides padtab. */
typedef struct lg__ip_tabs {
    int64_t *src_n, *src_k, *wei_o, *wei_k, *dst_n, *dst_o;
    int64_t *raw, *padtab;
} lg__ip_tabs;

/* Build / free the tables; LG_OUT_OF_MEMORY (no message) leaves nothing. */
LG_INTERNAL lg_status lg__ip_tabs_init(const lg__ip_pd *pd, lg__ip_tabs *t);
LG_INTERNAL void lg__ip_tabs_free(lg__ip_tabs *t);

/*
 * The scalar reference, the truth: for every (n, oc),
 *     acc = sum over the src elements (c, spatial) of src * weights,
 * summed in double in logical order, rounded to f32, plus bias[oc] (f32),
 * then the post-op chain; any layouts (through the tables); dst's padding
 * is zeroed. Threads split the rows (OpenMP) unless already in a parallel
 * region.
 */
LG_INTERNAL void lg__ip_ref(const lg__ip_pd *pd, const lg__ip_tabs *t, const float *src,
                            const float *wei, const float *bias, float *dst);

/* The plan of the vector paths: N rows of src, each kp floats apart and
 * read front to back; nocb weights blocks of kp x vl floats; dst rows oc
 * floats apart. */
typedef struct lg__ip_plan {
    int64_t n, oc, kp, nocb;
    int vl;
    int mb_max, nr_max; /* tile: up to nr_max rows x mb_max OC blocks */
    const lg__ip_pd *pd;
    lg__eltwise_pd epd[LG_MAX_POST_OPS]; /* eltwise post-ops as eltwise problems */
    bool has_sum;
} lg__ip_plan;

/* Compute dst rows [n0, n1) x OC blocks [b0, b1) (bias NULL: none). */
typedef void (*lg__ip_fn)(const lg__ip_plan *p, const float *src, const float *wei,
                          const float *bias, float *dst, int64_t n0, int64_t n1, int64_t b0,
                          int64_t b1);
LG_INTERNAL void lg__ip_tiles_avx2(const lg__ip_plan *p, const float *src, const float *wei,
                                   const float *bias, float *dst, int64_t n0, int64_t n1,
                                   int64_t b0, int64_t b1);
LG_INTERNAL void lg__ip_tiles_avx512(const lg__ip_plan *p, const float *src, const float *wei,
                                     const float *bias, float *dst, int64_t n0, int64_t n1,
                                     int64_t b0, int64_t b1);

#endif /* LG_PRIMITIVES_IP_H */
