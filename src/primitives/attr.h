/* The attribute object behind lg_attr. */
#ifndef LG_PRIMITIVES_ATTR_H
#define LG_PRIMITIVES_ATTR_H

#include "common/common.h"

/* Binary post-ops (LG_POST_BINARY) are taken by the eltwise and binary
 * kernels only; their alg is an lg_binary_alg and their src1 md sits in
 * lg_attr's post_md. */
typedef enum lg__post_kind {
    LG_POST_SUM = 1,
    LG_POST_ELTWISE = 2,
    LG_POST_BINARY = 3,
    /* A sum with a zero point or a data type (lg_attr_append_sum_dt): conv
     * only; alg holds the lg_dtype (LG_DT_UNDEF: dst's), zp the zero point. */
    LG_POST_SUM_DT = 4,
    /* A prelu (lg_attr_append_prelu): alg holds the weights' mask; taken
     * wherever binary post-ops are, its weights md built from the mask and
     * dst (postops.h). */
    LG_POST_PRELU = 5
} lg__post_kind;

/* Whether a post-op of this kind reads a tensor at execution (a binary
 * op's src1, a prelu's weights). */
static inline bool lg__post_reads_tensor(int kind) {
    return kind == LG_POST_BINARY || kind == LG_POST_PRELU;
}

/* One post-op. Zeroed before filling: it is part of kernel-cache keys. */
typedef struct lg__post_op {
    int32_t kind;
    int32_t alg; /* lg_eltwise_alg, for eltwise */
    float scale; /* beta of a sum */
    float alpha, beta;
    int32_t zp; /* a LG_POST_SUM_DT's zero point */
} lg__post_op;

/* Masks are -1 when not set; index 0 is LG_ARG_SRC, 1 is LG_ARG_DST. */
struct lg_attr {
    int32_t scale_mask[2];
    int32_t zp_mask[2];
    int32_t npost;
    lg__post_op post[LG_MAX_POST_OPS];
    int32_t scale_mask_src1;        /* binary's src1 scales (-1: not set) */
    lg_md post_md[LG_MAX_POST_OPS]; /* src1 of each binary post-op, as given */
    /* Reorder compensation masks (lg_comp_kind order: s8s8, zero point);
     * -1 when not asked for. */
    int32_t comp_mask[2];
    /* Typed and grouped scales / zero points (lg_attr_set_scales_ex,
     * lg_attr_set_zero_points_ex), index as scale_mask: the values' type
     * (LG_F32 / LG_S32 unless set) and the group sizes of the last
     * *_gndims dims; and the rounding mode of src / dst. */
    int32_t scale_dt[2], zp_dt[2];
    int32_t scale_gndims[2], zp_gndims[2];
    int64_t scale_groups[2][LG_MAX_NDIMS], zp_groups[2][LG_MAX_NDIMS];
    int32_t rounding[2]; /* lg_rounding_mode */
    /* Conv's weights scales and zero points (LG_ARG_WEIGHTS); -1: not set. */
    int32_t scale_mask_wei, zp_mask_wei;
};

/* LG_UNIMPLEMENTED naming `where` when attr (may be NULL) holds what only
 * lg_conv_create takes: weights scales or zero points, a sum with a zero
 * point or a data type. For the other kernels' checks. */
LG_INTERNAL lg_status lg__attr_check_conv_only(const struct lg_attr *attr, const char *where);

/* An attribute with nothing set (what a NULL lg_attr * means). */
LG_INTERNAL void lg__attr_init(struct lg_attr *a);

/* LG_UNIMPLEMENTED (message naming `where` and `kind`) when attr asks for
 * something only reorders implement: scales of a type other than f32 or in
 * groups, zero points of a type other than s32 or in groups, stochastic
 * rounding. Kernels that read scale_mask / zp_mask without these fields
 * call it; attr may be NULL. */
LG_INTERNAL lg_status lg__attr_check_quant_plain(const struct lg_attr *attr, const char *kind,
                                                 const char *where);

/* The check of an f32 compute kernel (conv, inner product) that takes a
 * post-op chain and nothing else: scales, zero points or binary post-ops
 * are LG_UNIMPLEMENTED, a bad chain LG_INVALID_ARGUMENT; errors name `where`
 * (NULL: none recorded) and `kind` ("conv"). attr may be NULL. */
LG_INTERNAL lg_status lg__attr_check_post_only(const struct lg_attr *attr, const char *kind,
                                               const char *where);

/* Copy attr's chain (NULL: none) into post[] / *npost as cache-key bytes:
 * each op zeroed, then only the fields its kind reads. */
LG_INTERNAL void lg__attr_copy_post(const struct lg_attr *attr, int32_t *npost, lg__post_op *post);

/* The chain on one value: v is the kernel's result, old what dst held (a
 * sum's input). Each sum adds scale * old (a product then a sum, unfused);
 * each eltwise is lg__eltwise_fwd. */
LG_INTERNAL float lg__post_chain_scalar(int npost, const lg__post_op *post, float v, float old);

#endif /* LG_PRIMITIVES_ATTR_H */
