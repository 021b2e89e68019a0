/*
 * lgraph: a graph-level layout-propagation runtime for small neural-network
 * graphs. This is the only public header.
 *
 * A short example: describe a 4D f32 tensor with 17 channels in the blocked
 * layout nChw8c (channels padded to 24), and find where an element lives.
 *
 *     lg_md md;
 *     int64_t dims[4] = {2, 17, 5, 5};
 *     if (lg_md_init_tag(&md, 4, dims, LG_F32, "nChw8c") != LG_OK)
 *         fprintf(stderr, "%s\n", lg_last_error());
 *     size_t bytes = lg_md_size(&md);           // 2 * 24 * 5 * 5 * 4 bytes
 *     int64_t idx[4] = {1, 9, 2, 3};
 *     int64_t off = lg_md_offset(&md, idx);     // element offset into the buffer
 *
 * Conventions: every call that can fail returns lg_status; outputs are the
 * trailing pointer arguments; on failure lg_last_error() holds a message for
 * this thread saying what was wrong and where. Objects are opaque handles,
 * except lg_md, a plain struct the caller may keep on the stack and copy.
 */
#ifndef LGRAPH_H
#define LGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(LG_BUILDING_LIBRARY) && defined(__GNUC__)
#define LG_API __attribute__((visibility("default")))
#else
#define LG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

/* The result of every call that can fail. */
typedef enum lg_status {
    LG_OK = 0,
    LG_INVALID_ARGUMENT = -1, /* bad dims, bad tag, mismatched shapes, NULL where not allowed */
    LG_UNIMPLEMENTED = -2,    /* a valid request the library cannot do (lg_last_error says why) */
    LG_OUT_OF_MEMORY = -3,
    LG_INVALID_GRAPH = -4, /* cycles, dangling values, shape/dtype mismatch between nodes */
    LG_RUNTIME_ERROR = -5,
} lg_status;

/* A static name for a status, e.g. "LG_INVALID_ARGUMENT"; "LG_UNKNOWN_STATUS"
 * for a value that is not an lg_status. Never NULL. */
LG_API const char *lg_status_str(lg_status s);

/* The message of this thread's last failed call: the function, the argument
 * at fault and why. A successful call does not clear it. Never NULL (an empty
 * string before any failure). The pointer stays valid until this thread's next
 * failed lgraph call. */
LG_API const char *lg_last_error(void);

/* Record `message` as this thread's last error and return `status`: for
 * front ends built on this header (lgraph_onnx, tools) so that their callers
 * read every failure through lg_last_error(). The message is truncated to
 * 1023 bytes; NULL records an empty message. */
LG_API lg_status lg_set_last_error(lg_status status, const char *message);

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */

/* LG_F8_E4M3 and LG_F8_E5M2 are the OCP 8-bit floats: e4m3 (bias 7) has no
 * infinities and one NaN per sign (0x7f, 0xff), largest finite 448; e5m2
 * (bias 15) is IEEE-like (infinities 0x7c / 0xfc, NaNs above them), largest
 * finite 57344. Only reorders (and shuffles, which move bits) take them. */
typedef enum lg_dtype {
    LG_DT_UNDEF = 0,
    LG_F32,
    LG_F16,
    LG_BF16,
    LG_S32,
    LG_S8,
    LG_U8,
    LG_F8_E4M3,
    LG_F8_E5M2,
} lg_dtype;

/* Bytes per element of dt; 0 for LG_DT_UNDEF or a value that is not an lg_dtype. */
LG_API size_t lg_dtype_size(lg_dtype dt);

/* A static name such as "f32" or "bf16"; "undef" for anything else. */
LG_API const char *lg_dtype_str(lg_dtype dt);

/* ------------------------------------------------------------------------ */
/* Memory descriptors                                                       */
/* ------------------------------------------------------------------------ */

#define LG_MAX_NDIMS 12

/* What an lg_md describes. A zeroed lg_md is LG_FMT_UNDEF (not a tensor). */
typedef enum lg_format_kind {
    LG_FMT_UNDEF = 0,
    LG_FMT_ANY,     /* dims and type known, layout still to be chosen */
    LG_FMT_BLOCKED, /* a concrete layout: plain, strided or blocked */
} lg_format_kind;

/*
 * A memory descriptor: the logical shape, the data type and, unless the format
 * is "any", where every element lives.
 *
 * The layout follows oneDNN's blocked model. Each logical dim d is split into
 * an outer index idx[d] / B[d] and an inner index idx[d] % B[d], where B[d] is
 * the product of the inner blocks on d (1 if none). The element offset of a
 * logical index is
 *
 *     offset0 + sum_d (idx[d] / B[d]) * strides[d] + inner offset,
 *
 * where the inner offset places the inner blocks in the order listed, the first
 * outermost, the last contiguous. Blocked dims are padded up to a multiple of
 * B[d] (padded_dims); the padding exists in memory and holds zeros.
 *
 * Strides count elements, not bytes. The caller may read every field; it should
 * build an lg_md only through lg_md_init_tag / lg_md_init_strides (a hand-made
 * one must keep the invariants those functions establish).
 */
typedef struct lg_md {
    int ndims;
    int64_t dims[LG_MAX_NDIMS];
    lg_dtype dtype;
    lg_format_kind format_kind;
    int64_t padded_dims[LG_MAX_NDIMS];
    int64_t offset0; /* elements before the first one; 0 for every md lgraph makes */
    struct {
        int64_t strides[LG_MAX_NDIMS];    /* outer strides, in elements */
        int inner_nblks;                  /* number of inner blocks */
        int64_t inner_blks[LG_MAX_NDIMS]; /* their sizes, outermost first */
        int inner_idxs[LG_MAX_NDIMS];     /* the logical dim each one splits */
    } blocking;
} lg_md;

/*
 * Describe a tensor of ndims dims (1..LG_MAX_NDIMS) in the layout named by tag.
 *
 * Tags follow oneDNN's grammar:
 *  - generic tags: letters a..l are logical dims in memory order, outermost
 *    first; an upper-case letter is a blocked dim whose outer part sits there;
 *    each trailing <N><letter> is an inner block, outer to inner
 *    ("abcd", "acdb", "aBcd16b", "ABcd16b16a", "ABcd4b16a4b");
 *  - "x" inside a generic tag stands for the dims not named elsewhere, in
 *    increasing order ("abx", "axb", "aBx16b"), zero or more ("abx" on 2 dims is "ab");
 *  - domain aliases ("nchw", "nhwc", "oihw", "goihw", "nChw16c",
 *    "OIhw16i16o", "gOIhw16i16o", "Goihw16g", ...), each valid only with the
 *    ndims its letters give;
 *  - "any": no layout yet (lg_md_size is then 0).
 * dims may be 0 (an empty tensor) but not negative.
 *
 * Returns LG_INVALID_ARGUMENT, with a message, for a NULL md/dims/tag, a bad
 * ndims, a negative dim, a malformed tag, an unknown data type, or sizes that
 * overflow int64. md is left unchanged on failure.
 */
LG_API lg_status lg_md_init_tag(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                                const char *tag);

/*
 * Describe a plain (unblocked) tensor with explicit strides, in elements.
 * strides NULL means dense row-major. Strides may leave gaps but must not
 * overlap: ordering the dims of extent > 1 by stride, each outer stride is at
 * least the inner stride times the inner extent. Returns LG_INVALID_ARGUMENT
 * (with a message) on overlap, negative strides and the errors of
 * lg_md_init_tag.
 */
LG_API lg_status lg_md_init_strides(lg_md *md, int ndims, const int64_t *dims, lg_dtype dt,
                                    const int64_t *strides);

/* Bytes a buffer for md must hold, padding included; 0 for "any", for an
 * empty tensor and for an invalid md. */
LG_API size_t lg_md_size(const lg_md *md);

/* The element offset of the logical index idx[0..ndims) (each 0 <= idx[d] <
 * dims[d]); -1 for a NULL argument, an "any" md, or an index out of range. */
LG_API int64_t lg_md_offset(const lg_md *md, const int64_t *idx);

/* True if a and b describe the same tensor in the same layout. Two NULLs
 * are not equal. */
LG_API bool lg_md_equal(const lg_md *a, const lg_md *b);

/* True if md's format is "any". */
LG_API bool lg_md_is_any(const lg_md *md);

/*
 * Write md's canonical generic tag ("aBcd16b" for an nChw16c md, "any" for
 * an "any" md) into buf, NUL-terminated. LG_UNIMPLEMENTED if the layout is not
 * expressible as a tag (non-dense strides, an offset); LG_INVALID_ARGUMENT if
 * buf is too small (len includes the NUL) or an argument is NULL.
 */
LG_API lg_status lg_md_tag(const lg_md *md, char *buf, size_t len);

/*
 * A view: the sub-tensor of `parent` of extents dims[0..ndims) starting at
 * logical index offsets[0..ndims) (ndims is parent's). It shares parent's
 * buffer, layout and strides; out->offset0 is the element offset of its first
 * element, so a kernel given *out and parent's buffer pointer reads and writes
 * exactly the sub-tensor. Along a blocked dim (one split by inner blocks of
 * product B), offsets must be a multiple of B and dims a multiple of B unless
 * the view reaches parent's last index there (the view then owns parent's
 * padding on that dim, and kernels that write it zero it, as for any md).
 * Views of views are allowed. lg_md_size(out) is the bytes from the buffer's
 * start to the view's last element (at most lg_md_size(parent)).
 *
 * LG_INVALID_ARGUMENT (message naming the dim) for a NULL argument, a parent
 * that is not initialised or is "any", a negative dim or offset, a range past
 * parent's dims, or a blocked-dim offset or extent that breaks the rule above.
 * out is written only on success and may be parent.
 */
LG_API lg_status lg_md_submemory(const lg_md *parent, const int64_t *dims, const int64_t *offsets,
                                 lg_md *out);

/*
 * Permute md's logical axes, as oneDNN's permute_axes: logical axis i of md
 * becomes axis perm[i] of out (out->dims[perm[i]] = md->dims[i]). The bytes do
 * not move: out describes the same buffer, its strides, blocks, padding and
 * offset0 relabelled: permuting an nchw md (N x C x H x W) by {0, 3, 1, 2}
 * gives an N x H x W x C md tagged "adbc" (C is now the last logical axis;
 * its memory order is unchanged). Works on plain, strided, blocked and "any"
 * mds (for "any" only the dims move).
 *
 * LG_INVALID_ARGUMENT for a NULL argument, an md that is not initialised, or a
 * perm that is not a permutation of 0..ndims-1 (the message names the entry).
 * out is written only on success and may be md.
 */
LG_API lg_status lg_md_permute_axes(const lg_md *md, const int *perm, lg_md *out);

/*
 * The same buffer seen with ndims dims `dims` (1..LG_MAX_NDIMS, same element
 * count), without moving data: element k in md's row-major logical order is
 * element k of out's. Possible when the layout lets every group of merged or
 * split dims be addressed by one stride chain:
 *  - dims of size 1 may be added or removed anywhere (not a blocked dim);
 *  - consecutive plain dims may be merged or split where each outer one's
 *    stride is the inner one's times its extent (always so in dense
 *    row-major runs; a strided md may reshape within its dense runs);
 *  - a blocked dim (nChw16c's C) must stay one dim of the same size; the dims
 *    around it may change as above (8x32x7x7 nChw8c -> 8x32x49 aBc8b).
 * offset0 is kept (a view can be reshaped). An "any" md reshapes to "any".
 * An empty md (a dim of 0) without inner blocks reshapes to any empty shape,
 * with dense row-major strides.
 *
 * LG_INVALID_ARGUMENT for a NULL argument, an uninitialised md, a bad ndims,
 * a negative dim or a different element count; LG_UNIMPLEMENTED (the message
 * says which dims) when the reshape would need a copy: the caller then
 * reorders into a dense md first. out is written only on success and may be md.
 */
LG_API lg_status lg_md_reshape(const lg_md *md, int ndims, const int64_t *dims, lg_md *out);

/* ------------------------------------------------------------------------ */
/* Attributes and execution arguments                                       */
/* ------------------------------------------------------------------------ */

/* Eltwise algorithms; alpha and beta as in oneDNN's eltwise. */
typedef enum lg_eltwise_alg {
    LG_ELTWISE_RELU, /* x > 0 ? x : alpha * x */
    LG_ELTWISE_ELU,
    LG_ELTWISE_TANH,
    LG_ELTWISE_LOGISTIC,
    LG_ELTWISE_GELU_TANH,
    LG_ELTWISE_GELU_ERF,
    LG_ELTWISE_SWISH,
    LG_ELTWISE_EXP,
    LG_ELTWISE_LOG,
    LG_ELTWISE_ABS,
    LG_ELTWISE_SQRT,
    LG_ELTWISE_SQUARE,
    LG_ELTWISE_LINEAR, /* alpha * x + beta */
    LG_ELTWISE_CLIP,   /* min(max(x, alpha), beta) */
    LG_ELTWISE_HARDSWISH,
    LG_ELTWISE_HARDSIGMOID,
    LG_ELTWISE_POW,       /* alpha * x^beta */
    LG_ELTWISE_CLIP_V2,   /* as CLIP forward (oneDNN's forms differ in backward only) */
    LG_ELTWISE_ROUND,     /* to nearest, ties to even */
    LG_ELTWISE_MISH,      /* x * tanh(ln(1 + e^x)) */
    LG_ELTWISE_SOFT_RELU, /* ln(1 + e^(alpha * x)) / alpha, alpha != 0 (oneDNN 3.x form;
                           * 2.6 has alpha = 1 only) */
} lg_eltwise_alg;         /* hardswish: x * max(0, min(1, alpha * x + beta)); hardsigmoid:
                           * max(0, min(1, alpha * x + beta)) (oneDNN 2.7+ forms; 2.6's fixed
                           * hardswish is alpha = 1/6, beta = 1/2) */

/* Binary algorithms. */
typedef enum lg_binary_alg {
    LG_BINARY_ADD,
    LG_BINARY_SUB,
    LG_BINARY_MUL,
    LG_BINARY_DIV,
    LG_BINARY_MIN,
    LG_BINARY_MAX,
    LG_BINARY_GE, /* comparisons: 1 where src0 (op) src1 holds, else 0; false on NaN, */
    LG_BINARY_GT, /* but for NE, true on NaN */
    LG_BINARY_LE,
    LG_BINARY_LT,
    LG_BINARY_EQ,
    LG_BINARY_NE,
} lg_binary_alg;

/* Execution argument ids (as oneDNN's DNNL_ARG_*). */
enum {
    LG_ARG_SRC = 1,
    LG_ARG_DST = 17,
    LG_ARG_WEIGHTS = 33,
    LG_ARG_BIAS = 41,
    LG_ARG_DIFF_SRC = 129,
    LG_ARG_DIFF_DST = 145,
    LG_ARG_ATTR_SCALES = 4096,      /* | LG_ARG_SRC or | LG_ARG_DST: f32 values */
    LG_ARG_ATTR_ZERO_POINTS = 8192, /* | LG_ARG_SRC or | LG_ARG_DST: s32 values */
};

/* One execution argument: an argument id and the caller's buffer. */
typedef struct lg_arg {
    int arg;
    void *data;
} lg_arg;

/* Most post-ops one attribute holds. */
#define LG_MAX_POST_OPS 8

/*
 * Kernel attributes: scales and zero points (their masks; the values come at
 * execution) and a chain of post-ops. An attribute is copied into every kernel
 * created with it, so it may be destroyed or changed right after creation.
 */
typedef struct lg_attr lg_attr;

/* Create an empty attribute (no scales, no zero points, no post-ops). */
LG_API lg_status lg_attr_create(lg_attr **attr);

/* Destroy attr; NULL is allowed. */
LG_API void lg_attr_destroy(lg_attr *attr);

/*
 * Ask for scales on arg (LG_ARG_SRC or LG_ARG_DST; LG_ARG_WEIGHTS for
 * lg_conv_create only, other kernels refuse it). mask selects the dims the
 * scale varies along: bit d set gives one value per index of dim d; 0 gives
 * one value for the whole tensor. The values are passed at execution as
 * LG_ARG_ATTR_SCALES | arg, f32, row-major over the selected dims. A mask
 * naming a dim the tensor lacks is rejected when the kernel is created.
 */
LG_API lg_status lg_attr_set_scales(lg_attr *attr, int arg, int mask);
/* (Binary kernels also take scales on src1: arg LG_ARG_SRC + 1, values as
 * LG_ARG_ATTR_SCALES | (LG_ARG_SRC + 1); see lg_binary_create_attr.) */

/* As lg_attr_set_scales, for zero points: s32 values passed as
 * LG_ARG_ATTR_ZERO_POINTS | arg. */
LG_API lg_status lg_attr_set_zero_points(lg_attr *attr, int arg, int mask);

/* ---- grouped and typed quantisation, rounding mode (reorder kernels) ---- */

/*
 * Scales on arg (LG_ARG_SRC or LG_ARG_DST) as lg_attr_set_scales, with a
 * data type and groups (oneDNN's set_scales(arg, mask, groups, data_type)).
 * dt is the values' type: LG_F32, LG_BF16, LG_F16, LG_F8_E4M3 or LG_F8_E5M2.
 * group_ndims (0..LG_MAX_NDIMS) group sizes in group_dims (NULL when 0) apply
 * to the LAST group_ndims dims of the tensor: along such a dim d one value
 * serves group_dims[g] consecutive indices, so the array holds, row-major
 * over the mask's dims, dims[d] / group_dims[g] values on a grouped dim and
 * dims[d] on another. A group size above 1 needs its dim in the mask and
 * must divide the dim (checked when the kernel is created). The values are
 * passed at execution as LG_ARG_ATTR_SCALES | arg, aligned to 4 bytes; the
 * kernel reads them exactly (every type converts to f32 exactly).
 * lg_attr_set_scales(attr, arg, mask) is this with LG_F32 and no groups.
 * Only reorders take a type other than f32 or groups; other kernels refuse
 * such an attribute (LG_UNIMPLEMENTED). LG_INVALID_ARGUMENT for a NULL attr,
 * a bad arg, mask or type, group_ndims out of range, a NULL group_dims with
 * group_ndims > 0 or a group size below 1.
 */
LG_API lg_status lg_attr_set_scales_ex(lg_attr *attr, int arg, int mask, int group_ndims,
                                       const int64_t *group_dims, lg_dtype dt);

/*
 * As lg_attr_set_scales_ex, for zero points: dt is LG_S32, LG_S8 or LG_U8
 * (lg_attr_set_zero_points is LG_S32 without groups); values passed as
 * LG_ARG_ATTR_ZERO_POINTS | arg, aligned to 4 bytes.
 */
LG_API lg_status lg_attr_set_zero_points_ex(lg_attr *attr, int arg, int mask, int group_ndims,
                                            const int64_t *group_dims, lg_dtype dt);

/* Rounding of a down-conversion (oneDNN's dnnl_rounding_mode_t). */
typedef enum lg_rounding_mode {
    /* Round to nearest even (the conversions lg_reorder_create describes). */
    LG_ROUNDING_ENVIRONMENT = 0,
    /* Stochastic: a pseudo-random bias, drawn from a seed and the element's
     * logical index, is added to the f32 bits below the destination's
     * mantissa, which are then cut off (see lg_reorder_create). */
    LG_ROUNDING_STOCHASTIC = 1,
} lg_rounding_mode;

/* Execution argument of the stochastic rounding seed: one s32 value (as
 * oneDNN's DNNL_ARG_ATTR_ROUNDING_SEED). */
#define LG_ARG_ATTR_ROUNDING_SEED 65536

/*
 * Set how arg's values are rounded when converted to its type. Only
 * LG_ARG_DST of a reorder takes LG_ROUNDING_STOCHASTIC, for a bf16, f16 or
 * f8 dst; other kernels refuse a stochastic attribute (LG_UNIMPLEMENTED).
 * LG_INVALID_ARGUMENT for a NULL attr, an arg other than LG_ARG_SRC or
 * LG_ARG_DST, or an unknown mode.
 */
LG_API lg_status lg_attr_set_rounding(lg_attr *attr, int arg, lg_rounding_mode mode);

/* ---- reorder compensation (oneDNN's int8 weight compensation flags) ---- */

/* The compensations a reorder to s8 weights can write besides dst (oneDNN's
 * memory extra flags compensation_conv_s8s8 and
 * compensation_conv_asymmetric_src, benchdnn's --oflag=s8s8_comp:M and
 * zp_comp:M). */
typedef enum lg_comp_kind {
    LG_COMP_S8S8 = 0,       /* comp[k] = -128 * sum of dst values with mask index k */
    LG_COMP_ZERO_POINT = 1, /* comp[k] = -sum of dst values with mask index k */
} lg_comp_kind;

/* Execution argument ids of the compensation arrays (| LG_ARG_DST): s32,
 * written by the kernel. */
enum { LG_ARG_ATTR_COMP_S8S8 = 16384, LG_ARG_ATTR_COMP_ZERO_POINT = 32768 };

/*
 * Ask a reorder to also write a compensation of `kind` for dst: one s32 per
 * index combination of the dims in `mask` (bit d: dim d; 0: one value for
 * the tensor; 1 is per output channel of oihw weights, 3 per group and
 * output channel of goihw), row-major over those dims, each the sum over
 * every other dim of the final s8 dst values (after scales, zero points,
 * rounding and saturation) times -128 (LG_COMP_S8S8) or -1
 * (LG_COMP_ZERO_POINT), summed in 32 bits (wrapping). Passed at execution
 * as LG_ARG_ATTR_COMP_S8S8 | LG_ARG_DST or LG_ARG_ATTR_COMP_ZERO_POINT |
 * LG_ARG_DST; a buffer right after dst's lg_md_size bytes (4-aligned)
 * gives oneDNN's layout of weights followed by their compensation (s8s8
 * first). mask -1 removes the request. Only lg_reorder_create takes it
 * (dst must be s8: LG_INVALID_ARGUMENT otherwise, as for a mask naming a
 * dim dst lacks); other kernels and graph reorder nodes refuse it
 * (LG_UNIMPLEMENTED). LG_INVALID_ARGUMENT for a NULL attr, an unknown kind
 * or a mask below -1.
 */
LG_API lg_status lg_attr_set_compensation(lg_attr *attr, lg_comp_kind kind, int mask);

/* Append a sum post-op: dst = op(...) + beta * dst_old. */
LG_API lg_status lg_attr_append_sum(lg_attr *attr, float beta);

/* Append a sum whose dst_old is read as type dt (LG_DT_UNDEF: dst's type;
 * dt must have dst's element size) less a zero point, oneDNN's sum with a
 * data type and zero point: dst = op(...) + beta * (dst_old - zero_point).
 * With zero_point 0 and LG_DT_UNDEF it is lg_attr_append_sum. Otherwise only
 * lg_conv_create takes it (other kernels: LG_UNIMPLEMENTED). LG_INVALID_ARGUMENT
 * for a NULL attr, a beta that is not finite, a dt that is not an lg_dtype
 * or a full chain. */
LG_API lg_status lg_attr_append_sum_dt(lg_attr *attr, float beta, int32_t zero_point, lg_dtype dt);

/* Append an eltwise post-op applied to the result so far (any algorithm of
 * lg_eltwise_alg; soft_relu needs alpha != 0, checked by the kernel). */
LG_API lg_status lg_attr_append_eltwise(lg_attr *attr, lg_eltwise_alg alg, float alpha, float beta);

/* Execution argument of the src1 tensor of post-op `i` (0-based position in
 * the chain) appended by lg_attr_append_binary, as oneDNN's
 * DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1. */
#define LG_ARG_ATTR_MULTIPLE_POST_OP_BASE 16384
#define LG_ARG_ATTR_POST_OP_SRC1(i)                                                                \
    (LG_ARG_ATTR_MULTIPLE_POST_OP_BASE * ((i) + 1) | (LG_ARG_SRC + 1))

/*
 * Append a binary post-op: the result so far r becomes alg(r, src1[i']) in
 * f32, where i' is the result's logical index with 0 on every dim where
 * src1's extent is 1 (numpy broadcast against dst: each src1 dim equals
 * dst's or is 1, same ndims; e.g. all 1 is one value for the whole tensor,
 * 1 x C x 1 x 1 one per channel, dst's dims one per element). src1 may have
 * any layout, or be "any" (the kernel then takes dst's tag on src1's dims;
 * lg_kernel_query_md(k, LG_ARG_ATTR_POST_OP_SRC1(i), ...) tells), and type
 * f32, bf16, f16, s32, s8 or u8 (read as f32). The md is copied. Its data is
 * passed at execution as argument LG_ARG_ATTR_POST_OP_SRC1(i), i being the
 * post-op's position in the chain. Taken by lg_eltwise_create_attr and
 * lg_binary_create_attr; other kernels refuse it (LG_UNIMPLEMENTED). Whether
 * src1's dims broadcast against dst is checked when the kernel is created.
 * LG_INVALID_ARGUMENT for a NULL attr or src1, an unknown alg, an invalid
 * src1 md, a type outside those six, or a full chain.
 */
LG_API lg_status lg_attr_append_binary(lg_attr *attr, lg_binary_alg alg, const lg_md *src1);

/* Execution argument of the weights of the prelu post-op at position `i`
 * (0-based) of the chain, as oneDNN's DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) |
 * DNNL_ARG_WEIGHTS. */
#define LG_ARG_ATTR_POST_OP_WEIGHTS(i)                                                             \
    (LG_ARG_ATTR_MULTIPLE_POST_OP_BASE * ((i) + 1) | LG_ARG_WEIGHTS)

/*
 * Append a prelu post-op (oneDNN's append_prelu): the result so far r
 * becomes r > 0 ? r : w[i'] * r, in f32, where w are the post-op's weights
 * and i' is the result's logical index with 0 on every dim whose bit is
 * clear in mask. The weights are f32, dense, with dst's ndims and, on dim d,
 * dst's extent where bit d of mask is set and 1 elsewhere, in oneDNN's plain
 * layout for them: a, ab, acb, acdb, acdeb (channels last) by ndims. Mask
 * 0 is one value for the whole tensor, 2 one per channel (oneDNN's per_oc),
 * all bits one value per element. lg_kernel_query_md(k,
 * LG_ARG_ATTR_POST_OP_WEIGHTS(i), ...) gives that md; the data is passed at
 * execution as argument LG_ARG_ATTR_POST_OP_WEIGHTS(i), i being the post-op's
 * position in the chain (a missing buffer: LG_INVALID_ARGUMENT at execute).
 * Taken wherever binary post-ops are: lg_eltwise_create_attr,
 * lg_binary_create_attr and lg_conv_create (which runs it, as a binary
 * post-op, on its conversion path with a scalar epilogue); the other
 * kernels refuse it (LG_UNIMPLEMENTED naming prelu). A mask naming a dim
 * dst lacks is LG_INVALID_ARGUMENT when the kernel is created.
 * LG_INVALID_ARGUMENT here for a NULL attr, a mask outside
 * [0, 2^LG_MAX_NDIMS) or a full chain.
 */
LG_API lg_status lg_attr_append_prelu(lg_attr *attr, int mask);

/* ------------------------------------------------------------------------ */
/* Kernels (primitives)                                                     */
/* ------------------------------------------------------------------------ */

/* A created kernel: a problem bound to an implementation. Kernels are shared
 * through the kernel cache and reference counted: each lg_*_create result
 * must be released with lg_kernel_destroy. A kernel is immutable and may be
 * executed from several threads at once. */
typedef struct lg_kernel lg_kernel;
typedef enum lg_prop { LG_FORWARD = 0, LG_BACKWARD = 1 } lg_prop;

/*
 * A reorder from src's layout and type to dst's: same ndims and dims, any
 * layouts (plain, strided, blocked, views), any of the 64 type pairs.
 * Computed in f32 as
 *     dst = (scale_src / scale_dst) * (src - zp_src) + beta * dst_old + zp_dst
 * (each term only if attr asks for it; the sum term is attr's sum post-op),
 * then converted: round to nearest even for f16/bf16 (overflow gives inf;
 * denormals are rounded, never flushed to zero: an f32 denormal becomes the
 * nearest bf16 denormal, where some oneDNN paths give 0), round to nearest
 * even with saturation for s8/u8/s32 (NaN gives 0); round to nearest even
 * for f8: f8_e4m3 saturates, every value beyond 448 in magnitude and +-inf
 * giving +-448 (0x7e / 0xfe), NaN giving the NaN of its sign (0x7f / 0xff);
 * f8_e5m2 overflows as IEEE does, magnitudes from 61440 (the tie above 57344,
 * which rounds to even upwards) and +-inf giving +-inf (0x7c / 0xfc), NaN a
 * quiet NaN of its sign (0x7e / 0xfe); f8 denormals are rounded like f16's.
 * f8 to any type is exact through f32, so f8 -> f16 / f8 -> f32 are exact and
 * f16 -> f8 rounds once. Without
 * attributes between equal types it copies bits. dst's padding is written as
 * zeros. attr may be NULL; its only post-op may be a sum.
 * Execution arguments: LG_ARG_SRC, LG_ARG_DST and the scale / zero-point
 * arrays attr asks for, and the compensation arrays it asks for
 * (lg_attr_set_compensation), which the kernel writes after dst.
 * Scales and zero points may be grouped and typed (lg_attr_set_scales_ex,
 * lg_attr_set_zero_points_ex): each element uses the value of its group.
 * With lg_attr_set_rounding(attr, LG_ARG_DST, LG_ROUNDING_STOCHASTIC) (a
 * bf16, f16 or f8 dst; others LG_UNIMPLEMENTED) the f32 result v of a finite
 * element whose row-major logical index is e is rounded as: with m the dst
 * type's mantissa bits (bf16 7, f16 10, f8_e4m3 3, f8_e5m2 2) and
 * t = 23 - m, the low t bits of a 32-bit hash of (seed, e) are added to
 * v's bits and the low t bits then cleared (a magnitude rounded up with
 * probability equal to the dropped fraction), and the result converted as
 * above (exact in dst's normal range; rounded to nearest even in its
 * denormal range; overflow as above). NaN and inf are converted unchanged.
 * The hash is lgraph's own: the bits differ from oneDNN's generator for the
 * same seed, the distribution is the same. The seed is one s32 passed as
 * LG_ARG_ATTR_ROUNDING_SEED. The result depends on the seed and the logical
 * index only, never on layouts, ISA or threads.
 */
LG_API lg_status lg_reorder_create(lg_kernel **k, const lg_md *src, const lg_md *dst,
                                   const lg_attr *attr);

/*
 * Channel shuffle along `axis` with group size G = group_size: the axis, seen
 * as a (C/G x G) row-major matrix, is transposed to (G x C/G):
 * dst(..., c, ...) = src(..., c', ...) with c = u + v * C/G, c' = u * G + v.
 * LG_FORWARD reads LG_ARG_SRC and writes LG_ARG_DST; LG_BACKWARD reads
 * LG_ARG_DIFF_DST and writes LG_ARG_DIFF_SRC and is forward with G replaced
 * by C/G. ShuffleNet's "g groups" shuffle is group_size = C / g. md gives
 * the layout of both tensors (any layout, any data type; bits are moved, not
 * converted); padding stays zero. LG_INVALID_ARGUMENT if G does not divide
 * the axis, the axis is out of range, or md is "any".
 */
LG_API lg_status lg_shuffle_create(lg_kernel **k, lg_prop prop, const lg_md *md, int axis,
                                   int64_t group_size);

/*
 * The same channel shuffle reading src's layout and writing dst's (same
 * dims and type, any concrete layouts: plain, strided, blocked with padded
 * tails; bits moved, dst's padding zeroed): a shuffle and a reorder in one
 * pass, which is how a compiled graph runs a shuffle next to a layout
 * change. Equal layouts give lg_shuffle_create's kernel. Arguments as
 * lg_shuffle_create's. LG_INVALID_ARGUMENT for NULL pointers, src or dst
 * "any" or invalid, types or dims that differ, and lg_shuffle_create's
 * errors; lg_last_error names the argument.
 */
LG_API lg_status lg_shuffle_create_layouts(lg_kernel **k, lg_prop prop, const lg_md *src,
                                           const lg_md *dst, int axis, int64_t group_size);

/*
 * Elementwise dst = f(src) with oneDNN's alpha/beta meanings. f32, bf16 and
 * f16 compute in f32; s32, s8 and u8 take relu, linear, clip, clip_v2, abs
 * and round (saturating). soft_relu with alpha 0 is LG_INVALID_ARGUMENT. dst NULL or "any" means
 * the same md as src; otherwise it must equal src's md. Works on the physical buffer, in place
 * allowed (same pointer), and the padding of a blocked buffer stays zero even where f(0) != 0.
 * Arguments: LG_ARG_SRC, LG_ARG_DST.
 */
LG_API lg_status lg_eltwise_create(lg_kernel **k, lg_eltwise_alg alg, float alpha, float beta,
                                   const lg_md *src, const lg_md *dst);

/*
 * lg_eltwise_create with an attribute: dst = chain(f(src)), the post-op
 * chain of attr (sums: + beta * dst_old, dst_old being what dst held before
 * the call, which is src when in place; eltwise post-ops; binary post-ops,
 * see lg_attr_append_binary) applied in f32 to each element in order, then
 * converted to dst's type once. attr may be NULL (lg_eltwise_create); it may
 * hold no scales or zero points (LG_UNIMPLEMENTED). Arguments: LG_ARG_SRC,
 * LG_ARG_DST and LG_ARG_ATTR_POST_OP_SRC1(i) for each binary post-op i
 * (LG_ARG_ATTR_POST_OP_WEIGHTS(i) for each prelu post-op i, see
 * lg_attr_append_prelu). Dense layouts run the ISA's vector path with the
 * chain fused (the binary post-ops' values and prelu weights read in place
 * or gathered); others run the reference.
 * Errors as lg_eltwise_create's, plus LG_INVALID_ARGUMENT for a binary
 * post-op whose src1 does not broadcast against dst (lg_last_error names
 * the post-op and the dim).
 */
LG_API lg_status lg_eltwise_create_attr(lg_kernel **k, lg_eltwise_alg alg, float alpha, float beta,
                                        const lg_md *src, const lg_md *dst, const lg_attr *attr);

/*
 * dst = src0 (op) src1, computed in f32, for f32, bf16, f16, s8 and u8
 * (saturating, rounded to nearest even, as lg_reorder converts). Both
 * sources broadcast numpy-style against dst (same ndims): each of their dims
 * equals dst's or is 1, and each dst dim is src0's or src1's (a src0 dim of
 * 1 against a larger src1 dim is src0 broadcast). src0, src1 and dst may
 * have different layouts; dst "any" takes src0's layout (src0's tag on
 * dst's dims when src0 broadcasts), src1 "any" src0's tag on src1's dims
 * (row-major when src0's layout is not a tag's; lg_kernel_query_md tells). Comparisons (GE..NE)
 * give 1 or 0 in dst's type. Arguments: LG_ARG_SRC (src0), LG_ARG_SRC + 1 (src1), LG_ARG_DST.
 */
LG_API lg_status lg_binary_create(lg_kernel **k, lg_binary_alg alg, const lg_md *src0,
                                  const lg_md *src1, const lg_md *dst);

/*
 * lg_binary_create with an attribute:
 *     dst = chain(scale0 * src0 (op) scale1 * src1)
 * in f32, converted to dst's type once. scale0 / scale1 are attr's scales on
 * LG_ARG_SRC / LG_ARG_SRC + 1 (lg_attr_set_scales, mask 0 only: one f32
 * value each, passed as LG_ARG_ATTR_SCALES | LG_ARG_SRC and
 * LG_ARG_ATTR_SCALES | (LG_ARG_SRC + 1)); the chain is attr's post-ops as in
 * lg_eltwise_create_attr (a sum's dst_old is what dst held, src0 when in
 * place). attr may be NULL (lg_binary_create). LG_UNIMPLEMENTED for dst
 * scales, zero points or a scale mask other than 0; LG_INVALID_ARGUMENT for
 * a binary post-op whose src1 does not broadcast against dst. Arguments:
 * those of lg_binary_create, the scales asked for, and
 * LG_ARG_ATTR_POST_OP_SRC1(i) for each binary post-op i
 * (LG_ARG_ATTR_POST_OP_WEIGHTS(i) for each prelu post-op i). When dst is
 * dense and src0 has dst's layout the ISA's vector path runs with the chain
 * fused; other layouts run the reference.
 */
LG_API lg_status lg_binary_create_attr(lg_kernel **k, lg_binary_alg alg, const lg_md *src0,
                                       const lg_md *src1, const lg_md *dst, const lg_attr *attr);

/*
 * Binary select (oneDNN's binary_select): dst = cond != 0 ? src0 : src1,
 * element by element, then attr's scales and chain as lg_binary_create_attr
 * (the scales multiply the selected source). cond (oneDNN's src2) has dst's
 * ndims and broadcasts against dst like src0 and src1; its type is s8, u8,
 * s32, f32, bf16 or f16 (any non-zero value selects src0). Arguments:
 * lg_binary_create_attr's plus LG_ARG_SRC + 2 (cond). Runs the reference
 * ("binary:ref"). LG_INVALID_ARGUMENT for a NULL, invalid or "any" cond md
 * or one that does not broadcast (lg_last_error names cond and the dim),
 * and lg_binary_create_attr's errors.
 */
LG_API lg_status lg_binary_create_select(lg_kernel **k, const lg_md *src0, const lg_md *src1,
                                         const lg_md *cond, const lg_md *dst, const lg_attr *attr);

/* Convolution algorithms (oneDNN's convolution_direct / _winograd / _auto).
 * LG_CONV_WINOGRAD is F(4x4, 3x3) (impl "conv:<isa>:wino4x4"): 2D 3x3
 * kernels, stride 1, no dilation, groups 1, padding 0 or 1 on each side, src
 * and dst channel-blocked (nChw8c on AVX2, nChw16c or nChw8c on AVX-512;
 * "any" resolves to these) or channels-last (nhwc), any N / H / W; its
 * rounding error relative to sum |x||w| is within 8x the direct path's
 * bound (docs/api.md). LG_CONV_AUTO takes Winograd where it fits and was
 * measured faster, else the direct paths. */
typedef enum lg_conv_alg {
    LG_CONV_DIRECT = 0, /* default: the direct paths */
    LG_CONV_WINOGRAD = 1,
    LG_CONV_AUTO = 2,
} lg_conv_alg;

/* Convolution geometry. Entries beyond the spatial rank (src ndims - 2) are
 * ignored. dilates use oneDNN's convention: 0 is a dense kernel. pad_l and
 * pad_r are the zero padding before and after each spatial dim (both
 * explicit, never negative). The output size of each spatial dim is
 *     (I + pad_l + pad_r - ((K - 1) * (dilate + 1) + 1)) / stride + 1. */
typedef struct lg_conv_params {
    int64_t strides[3], dilates[3], pad_l[3], pad_r[3];
    int64_t groups;  /* 1: weights are oihw-shaped; >1: a leading G dim (goihw) */
    lg_conv_alg alg; /* LG_CONV_DIRECT (0) unless set; see lg_conv_alg */
} lg_conv_params;

/*
 * Forward convolution, 1D/2D/3D (src ndims 3, 4 or 5):
 *     dst = post_ops(conv(src, weights) + bias)
 * src is N x IC x spatial, weights O x I x K... (groups == 1) or
 * G x O/G x I/G x K... (groups > 1; depthwise when G == IC == OC), bias
 * (optional: NULL) has OC elements and is always dense 1D ("a"), dst is
 * N x OC x output spatial. src, weights and dst may be "any": the kernel
 * then picks the best layout for this CPU and problem (channel-blocked
 * activations and matching blocked weights, or plain nchw for a first layer
 * with few input channels); lg_kernel_query_md reports the choice. attr may
 * hold a chain of eltwise post-ops and one sum (scale beta: dst = conv +
 * beta * dst_old, the residual add), in any order. Arguments: LG_ARG_SRC,
 * LG_ARG_WEIGHTS, LG_ARG_BIAS (when given), LG_ARG_DST (which also holds the
 * sum's input). LG_INVALID_ARGUMENT for mismatched channels, groups not
 * dividing channels, inconsistent output dims, negative padding, a bias of the
 * wrong size, an alg outside lg_conv_alg; LG_UNIMPLEMENTED for
 * LG_CONV_WINOGRAD on a problem it does not cover (the message says which
 * condition fails; Winograd is f32 only). With Winograd the kernel keeps the
 * transformed weights and a copy of the weights' bytes: an execute whose
 * weights equal that copy skips the transform (memory: about 5x the
 * weights' size, plus per-thread scratch).
 *
 * Data types and quantisation (oneDNN v3's semantics): src and weights f32,
 * bf16 or f16 in any mix, or src u8 / s8 with s8 weights; dst f32, bf16,
 * f16, s32, s8 or u8; bias f32, bf16 or f16. attr may then also hold
 * scales on LG_ARG_SRC (mask 0), LG_ARG_WEIGHTS (0, or per output channel:
 * mask 1, with groups 3; OC values in channel order) and LG_ARG_DST (0);
 * with int8 src, zero points on LG_ARG_SRC and LG_ARG_DST (mask 0, or 2:
 * one per channel) and LG_ARG_WEIGHTS (0); sums with a type and zero point
 * (lg_attr_append_sum_dt; one sum at most), eltwise post-ops of any
 * algorithm, binary post-ops (lg_attr_append_binary) and prelu post-ops
 * (lg_attr_append_prelu). Each output is
 *     acc = sum over taps of (src - zp_src[ic]) * (wei - zp_wei)
 *     v   = post_ops(acc * scale_src * scale_wei[oc] + bias[oc])
 *     dst = v / scale_dst + zp_dst[oc], converted to dst's type (round to
 *           nearest even; integers saturate)
 * where taps in the spatial zero padding contribute nothing and a sum adds
 * beta * (dst_old read as its type - its zero point). int8 sums are exact
 * (as s32; the f32 value of acc is its nearest float); bf16 / f16 inputs are
 * widened to f32 exactly and summed in f32 as an f32 conv. These problems
 * run by conversion: src and weights are converted into f32 buffers
 * allocated at each execution (LG_OUT_OF_MEMORY if that fails), an f32
 * conv kernel (impl "conv:<isa>:<path>:cvt" or ":int8") computes acc, and a
 * scalar epilogue applies the rest (int8 reductions too wide for exact f32
 * sums run as two f32 convs on src - zp split as 16 * hi + lo, or, wider
 * still, the scalar reference). Arguments as above plus
 * LG_ARG_ATTR_SCALES | arg (f32) and LG_ARG_ATTR_ZERO_POINTS | arg (s32) for
 * each one asked for and LG_ARG_ATTR_POST_OP_SRC1(i) for each binary
 * post-op. A prelu post-op (lg_attr_append_prelu; its weights passed as
 * LG_ARG_ATTR_POST_OP_WEIGHTS(i)) makes any conv, f32 too, take this path
 * (its epilogue applies the chain). LG_UNIMPLEMENTED for other type combinations or masks, zero
 * points with f32 / bf16 / f16 src, more than one sum.
 */
LG_API lg_status lg_conv_create(lg_kernel **k, const lg_conv_params *p, const lg_md *src,
                                const lg_md *weights, const lg_md *bias, const lg_md *dst,
                                const lg_attr *attr);

/*
 * Forward f32 inner product (fully connected), oneDNN's semantics:
 *     dst(n, oc) = post_ops(sum_k src(n, k) * weights(oc, k) + bias(oc))
 * where k runs over every src element of sample n: src is N x C (2D) or
 * N x C x spatial (3D-5D, flattened as oneDNN does), weights OC x C (x the
 * same spatial dims; a Linear layer after a flatten has weights C*spatial
 * wide: view them as OC x C x spatial in plain order), bias (optional: NULL)
 * OC elements, dense ("a"), dst N x OC. Any dim below 1 is invalid.
 * Layouts: src, weights and dst may be "any". src "any" becomes "ab" (2D)
 * or channel-blocked aBx8b / aBx16b; dst "any" "ab"; weights "any" the
 * layout the vector code reads, which follows src's: src's layout with dim
 * 0 blocked by 8 (AVX2) or 16 (AVX-512) innermost (src nchw -> Abcd8a, nhwc
 * -> Acdb8a, nChw8c -> ABcd8b8a, 2D ab -> Ab8a); lg_kernel_query_md reports
 * it. Plain, channels-last, channel-blocked (nChw8c / nChw16c, channels not
 * a multiple of the block) and 2D src are read directly (no reorder before
 * the IP); with weights in the picked layout and dst "ab" the vector code
 * runs, any other layout combination runs the scalar reference. attr may
 * hold eltwise post-ops and sums (dst = ip + beta * dst_old), in any order,
 * as for lg_conv_create. Accumulation is in f32 in src's memory order.
 * Arguments: LG_ARG_SRC, LG_ARG_WEIGHTS, LG_ARG_BIAS (when given),
 * LG_ARG_DST. LG_INVALID_ARGUMENT for NULL pointers, src ndims outside 2..5,
 * weights dims that differ from src's (but dim 0), dst not N x OC, a bias
 * that is not OC long, dims below 1; LG_UNIMPLEMENTED for data types other
 * than f32, scales or zero points in attr, a bias that is not dense.
 */
LG_API lg_status lg_inner_product_create(lg_kernel **k, const lg_md *src, const lg_md *weights,
                                         const lg_md *bias, const lg_md *dst, const lg_attr *attr);

/* Pooling algorithms (oneDNN's pooling_max, pooling_avg_include_padding,
 * pooling_avg_exclude_padding). */
typedef enum lg_pool_alg {
    LG_POOL_MAX = 0,
    LG_POOL_AVG_INCLUDE_PADDING = 1, /* sum over the window / kernel size */
    LG_POOL_AVG_EXCLUDE_PADDING = 2, /* sum over the window / taps inside the input */
} lg_pool_alg;

/* Pooling geometry, as lg_conv_params: entries beyond the spatial rank are
 * ignored; dilates 0 is a dense kernel; pad_l / pad_r are the explicit
 * padding before and after each spatial dim (ONNX ceil_mode is a pad_r large
 * enough to give the extra output). Output size of each spatial dim:
 *     (I + pad_l + pad_r - ((K - 1) * (dilate + 1) + 1)) / stride + 1.
 * pad_r_ceil (0 <= pad_r_ceil <= pad_r; zero-initialise for oneDNN's
 * semantics) is the trailing part of pad_r that only makes room for
 * ceil_mode's extra output: LG_POOL_AVG_INCLUDE_PADDING then divides by the
 * taps inside [-pad_l, I + pad_r - pad_r_ceil) instead of the kernel size
 * (PyTorch's and ONNX's AveragePool with ceil_mode = 1 and
 * count_include_pad = 1); the other algorithms ignore it. */
typedef struct lg_pool_params {
    lg_pool_alg alg;
    int64_t kernel[3], strides[3], dilates[3], pad_l[3], pad_r[3];
    int64_t pad_r_ceil[3];
} lg_pool_params;

/*
 * Forward pooling, 1D/2D/3D (src N x C x spatial, ndims 3, 4 or 5), oneDNN's
 * semantics: dst(n, c, o) = max or average of src(n, c, o * stride - pad_l +
 * k * (dilate + 1)) over the kernel taps k that fall inside the input (the
 * padding is never read; "avg include padding" still divides by the kernel
 * size). A window with no tap inside the input gives 0. Types: f32, bf16 and
 * f16 (computed in f32, rounded once to nearest even); s8, u8 and s32 (max
 * exact; averages from an exact sum, rounded to nearest even and saturated).
 * src and dst have the same type and dims N and C; dst's spatial dims must
 * be the formula's. dst may be "any": it takes src's layout family (channel
 * blocked aBcd8b / aBcd16b, channels last acdb, or plain). Any layouts work;
 * channel-blocked, channels-last and plain ones run vector code, and a
 * kernel covering the whole unpadded input (global average pooling) has its
 * own path. dst's padding is written as zeros. Arguments: LG_ARG_SRC,
 * LG_ARG_DST. LG_INVALID_ARGUMENT for NULL pointers, mismatched dims or
 * types, sizes below 1, negative padding or dilation, a kernel wider than
 * the padded input, inconsistent output dims; LG_UNIMPLEMENTED for other
 * ndims.
 */
LG_API lg_status lg_pool_create(lg_kernel **k, const lg_pool_params *p, const lg_md *src,
                                const lg_md *dst);

/* Softmax algorithms (oneDNN's softmax_accurate and softmax_log). */
typedef enum lg_softmax_alg { LG_SOFTMAX = 0, LG_LOGSOFTMAX = 1 } lg_softmax_alg;

/*
 * Softmax over `axis`, numerically stable: per row (every index but the
 * axis's), m = max x, s = sum exp(x - m), dst = exp(x - m) / s (LG_SOFTMAX)
 * or (x - m) - log(s) (LG_LOGSOFTMAX). Computed in f32 for f32, bf16 and
 * f16 src and dst. Error bound against the exact result y* of the f32
 * inputs, with A the axis length and d = x - m:
 *     softmax:     |y - y*| <= (|d| + A + 8) 2^-24 y* + 2^-148
 *     log-softmax: |y - y*| <= (3 |d| + 3 |y*| + A + 8) 2^-24
 * for f32 dst (tests/primitives/test_softmax.c asserts it on random rows);
 * a bf16 or f16 dst adds its rounding (half an ulp). dst NULL or "any":
 * src's md; otherwise the same dims, any layout. In place (same buffer,
 * equal mds) is allowed. Plain and blocked layouts run vector code; dst's
 * padding is written as zeros. Arguments: LG_ARG_SRC, LG_ARG_DST.
 * LG_INVALID_ARGUMENT for NULL pointers, an axis out of range, a dim below
 * 1, mismatched dims; LG_UNIMPLEMENTED for integer types.
 */
LG_API lg_status lg_softmax_create(lg_kernel **k, lg_softmax_alg alg, int axis, const lg_md *src,
                                   const lg_md *dst);

/* Batch-normalization execution arguments (oneDNN's DNNL_ARG_MEAN ...
 * DNNL_ARG_SHIFT): f32 arrays of C values. */
enum { LG_ARG_MEAN = 49, LG_ARG_VARIANCE = 50, LG_ARG_SCALE = 51, LG_ARG_SHIFT = 52 };

/* Batch-normalization flags (oneDNN's values; statistics are always given,
 * as with dnnl_use_global_stats). */
enum {
    LG_BNORM_FUSE_RELU = 0x4,  /* dst = max(y, 0) */
    LG_BNORM_USE_SCALE = 0x8,  /* gamma from LG_ARG_SCALE (else 1) */
    LG_BNORM_USE_SHIFT = 0x10, /* beta from LG_ARG_SHIFT (else 0) */
};

/*
 * Batch normalization, inference: per channel c (dim 1 of src, ndims 2-5)
 *     dst = gamma[c] / sqrt(var[c] + epsilon) * (src - mean[c]) + beta[c],
 * computed in f32 as a = gamma / sqrtf(var + eps), y = (x - mean) * a + beta
 * (unfused, the same bits on every path), then max(y, 0) with
 * LG_BNORM_FUSE_RELU. mean and var come at execution (LG_ARG_MEAN,
 * LG_ARG_VARIANCE), with gamma (LG_ARG_SCALE) and beta (LG_ARG_SHIFT) when the
 * flags ask for them. f32, bf16 and f16 src / dst. dst NULL or "any": src's
 * md; otherwise the same dims, any layout. In place (same buffer, equal
 * mds) is allowed; dst's padding is written as zeros. LG_INVALID_ARGUMENT
 * for NULL pointers, a dim below 1, mismatched dims, unknown flags, a
 * negative or non-finite epsilon; LG_UNIMPLEMENTED for integer types and
 * other ranks.
 */
LG_API lg_status lg_bnorm_create(lg_kernel **k, const lg_md *src, const lg_md *dst, float epsilon,
                                 unsigned flags);

/* Concat: the execution argument of source i is LG_ARG_MULTIPLE_SRC + i
 * (oneDNN's DNNL_ARG_MULTIPLE_SRC); at most LG_CONCAT_MAX_SRCS sources. */
enum { LG_ARG_MULTIPLE_SRC = 1024 };
#define LG_CONCAT_MAX_SRCS 256

/*
 * Concatenation along `axis` (oneDNN's concat): n sources srcs[0..n) (n in
 * 1..LG_CONCAT_MAX_SRCS) of one type and rank, equal in every dim but the
 * axis, are placed one after another along it: dst's axis dim is the sum
 * of theirs, source i starting at the sum of the sources before it. Each
 * source and dst may have its own layout (plain, strided, channels last,
 * blocked, views). The copy moves bits, so every type works (f32, bf16,
 * f16, s8, u8, s32, f8); dst has the sources' type. dst "any" (dims must
 * then be the result's, or dst NULL): the layout of the first source when it
 * is dense, else plain; lg_kernel_query_md reports it. dst's padding is
 * written as zeros. Arguments: LG_ARG_MULTIPLE_SRC + i for source i,
 * LG_ARG_DST. Paths (lg_kernel_impl): "concat:<isa>:blocked" for a concat
 * along the blocked dim of sources and dst all in one channel-blocked
 * layout (offsets need not be block multiples: ShuffleNet's 58 + 58 into
 * nChw16c), "concat:rows" (one memcpy per run) when sources and dst share
 * a dense unblocked layout, "concat:views" (a reorder of each source into
 * its place in dst) when every place is a view (lg_md_submemory), else
 * "concat:ref". LG_INVALID_ARGUMENT (naming srcs[i], dst or the argument)
 * for NULL pointers, n out of range, sources of other ranks, types or
 * off-axis dims, an axis out of range, "any" sources, a dst of other dims
 * or type.
 */
LG_API lg_status lg_concat_create(lg_kernel **k, int axis, int n, const lg_md *srcs,
                                  const lg_md *dst);

/*
 * A slice along `axis`: dst = src[..., start : start + dst->dims[axis], ...]
 * (the inverse of a concat piece; ONNX Slice with step 1 and one part of
 * Split). src and dst have the same rank and type, equal dims off the axis;
 * 0 <= start and start + dst->dims[axis] <= src->dims[axis]. Any layouts,
 * offsets off block boundaries included; every type. dst "any": src's
 * layout when dense, else plain. dst's padding is written as zeros. Paths
 * as lg_concat_create's ("slice:<isa>:blocked", "slice:rows",
 * "slice:views", "slice:ref"). Arguments: LG_ARG_SRC, LG_ARG_DST.
 * LG_INVALID_ARGUMENT (naming the argument) for NULL pointers, "any" src,
 * mismatched rank, type or dims, an axis out of range, a range outside src.
 */
LG_API lg_status lg_slice_create(lg_kernel **k, int axis, int64_t start, const lg_md *src,
                                 const lg_md *dst);

/* The md of argument `arg` (e.g. LG_ARG_DST): for one given as "any", the
 * layout the kernel chose; otherwise the md it was given. LG_INVALID_ARGUMENT
 * for an argument the kernel does not have. */
LG_API lg_status lg_kernel_query_md(const lg_kernel *k, int arg, lg_md *md);

/*
 * Run the kernel on the given buffers. Every argument the kernel needs must
 * be present with a non-NULL buffer laid out as its md says (unknown extra
 * arguments, and scale or zero-point arrays the attribute did not ask for,
 * are rejected). Does not allocate. Buffers that overlap are rejected unless
 * the kernel allows in-place use and they coincide exactly.
 *
 * Alignment rule (here and in lg_plan_execute): every buffer must be aligned
 * to its element size: 4 bytes for f32 and s32 tensors and for scale and
 * zero-point arrays, 2 for f16 and bf16, any address for s8 and u8. Any
 * such address works on every path (no wider alignment is ever needed);
 * others are rejected with LG_INVALID_ARGUMENT.
 */
LG_API lg_status lg_kernel_execute(const lg_kernel *k, int nargs, const lg_arg *args);

/* The implementation's name, e.g. "reorder:avx512:transpose16"; never NULL
 * ("" for a NULL kernel). */
LG_API const char *lg_kernel_impl(const lg_kernel *k);

/* Release the caller's reference to k; NULL is allowed. The kernel is freed
 * when the kernel cache no longer holds it either. */
LG_API void lg_kernel_destroy(lg_kernel *k);

/* ------------------------------------------------------------------------ */
/* Kernel cache                                                             */
/* ------------------------------------------------------------------------ */

/* Counters of the process-wide kernel cache. */
typedef struct lg_cache_stats {
    uint64_t hits, misses, evictions;
    int size, capacity;
} lg_cache_stats;

/* Set how many kernels the cache keeps (least recently used go first);
 * 0 disables it. The default comes from LG_KERNEL_CACHE_CAPACITY, else 1024.
 * LG_INVALID_ARGUMENT for a negative capacity. */
LG_API lg_status lg_kernel_cache_set_capacity(int capacity);

/* The current capacity. */
LG_API int lg_kernel_cache_capacity(void);

/* Fill *stats with the counters (hits, misses and evictions since start). */
LG_API void lg_kernel_cache_stats(lg_cache_stats *stats);

/* ------------------------------------------------------------------------ */
/* Graph and plan                                                           */
/* ------------------------------------------------------------------------ */

/*
 * A graph is built by plain constructor calls; each checks its inputs
 * (unknown values, shapes, types) and names the node at fault on error, then
 * records a node whose result is a new value. Compiling assigns a layout to
 * every value, inserts and eliminates reorders, fuses, plans memory and
 * creates every kernel through the kernel cache; the plan is immutable.
 *
 *     lg_graph *g; lg_value x, w, y;
 *     lg_graph_create(&g);
 *     lg_graph_add_input(g, "x", &x_md, &x);          // x_md: nchw or "any"
 *     lg_graph_add_constant(g, "w", &w_md, w_data, &w);
 *     lg_graph_add_conv(g, x, w, LG_NO_VALUE, &params, &y);
 *     lg_graph_add_output(g, y, "y", "nchw");
 *     lg_compile_options o; lg_compile_options_init(&o);
 *     lg_plan *plan; lg_graph_compile(g, &o, &plan);
 *     lg_binding in = {"x", x_buf}, out = {"y", y_buf};
 *     lg_plan_execute(plan, 1, &in, 1, &out);
 *     lg_plan_destroy(plan); lg_graph_destroy(g);
 */
typedef struct lg_graph lg_graph;
typedef struct lg_plan lg_plan;
typedef uint32_t lg_value; /* a tensor in the graph */
#define LG_NO_VALUE ((lg_value)-1)

/* Create an empty graph. */
LG_API lg_status lg_graph_create(lg_graph **g);

/* Free a graph and everything it holds (constants included); NULL allowed.
 * Plans compiled from it stay valid. */
LG_API void lg_graph_destroy(lg_graph *g);

/* A graph input named `name` (unique among inputs, constants and outputs) of
 * md's dims and type; md may be "any" (the compiler picks its layout, which
 * lg_plan_query_md then reports). */
LG_API lg_status lg_graph_add_input(lg_graph *g, const char *name, const lg_md *md, lg_value *out);

/* A constant (weights, bias): md must have a concrete layout; data (of
 * lg_md_size(md) bytes) is copied. */
LG_API lg_status lg_graph_add_constant(lg_graph *g, const char *name, const lg_md *md,
                                       const void *data, lg_value *out);

/* A constant like lg_graph_add_constant, but data is not copied: the graph
 * reads it in place until lg_graph_destroy, which then calls release(ctx)
 * once. data (NULL only when md has no bytes) must be 64-byte aligned and
 * stay valid and unchanged until release runs; plans
 * compiled from the graph keep no pointer into it. release must not be
 * NULL. On failure the graph keeps nothing and release is not called. This
 * is how a loader hands over weights it already holds without a copy. */
LG_API lg_status lg_graph_add_constant_ref(lg_graph *g, const char *name, const lg_md *md,
                                           const void *data, void (*release)(void *ctx), void *ctx,
                                           lg_value *out);

/* A convolution node (see lg_conv_create); bias may be LG_NO_VALUE. */
LG_API lg_status lg_graph_add_conv(lg_graph *g, lg_value src, lg_value weights, lg_value bias,
                                   const lg_conv_params *p, lg_value *out);

/* An eltwise node (see lg_eltwise_create). */
LG_API lg_status lg_graph_add_eltwise(lg_graph *g, lg_value src, lg_eltwise_alg alg, float alpha,
                                      float beta, lg_value *out);

/* A binary node (see lg_binary_create); src1 broadcastable to src0. */
LG_API lg_status lg_graph_add_binary(lg_graph *g, lg_binary_alg alg, lg_value src0, lg_value src1,
                                     lg_value *out);

/* A forward channel shuffle node (see lg_shuffle_create). */
LG_API lg_status lg_graph_add_shuffle(lg_graph *g, lg_value src, int axis, int64_t group_size,
                                      lg_value *out);

/* An explicit reorder to dst's layout and type (dst may not be "any").
 * attr may be NULL; one that asks for scales, zero points or a sum needs
 * their values, so it is refused here (LG_INVALID_ARGUMENT naming the
 * missing operand): use lg_graph_add_reorder_attr. */
LG_API lg_status lg_graph_add_reorder(lg_graph *g, lg_value src, const lg_md *dst,
                                      const lg_attr *attr, lg_value *out);

/* The graph values a quantising reorder node reads besides its source. A
 * field is LG_NO_VALUE exactly when attr does not ask for it. */
typedef struct lg_reorder_operands {
    lg_value src_scales, dst_scales;           /* f32, 1D, one value per index of the mask's dims */
    lg_value src_zero_points, dst_zero_points; /* s32, 1D, likewise */
    lg_value sum; /* dst_old of attr's sum post-op: dst's dims and type */
} lg_reorder_operands;

/*
 * A reorder node with the reorder kernel's attributes (see lg_reorder_create):
 *     result = (scale_src / scale_dst) * (src - zp_src) + beta * sum + zp_dst
 * computed in f32 and converted to dst's type, each term only if attr asks
 * for it. The scale and zero-point arrays are graph values (constants, or
 * inputs bound at execution), 1D of (product of the dims attr's mask
 * selects) values, row-major over those dims, f32 for scales and s32 for
 * zero points; `sum` is a value of dst's dims and type whose contents the
 * result adds (beta times), as a kernel with a sum post-op adds what dst
 * held. attr and operands are copied; operands may be NULL when attr (or
 * NULL) asks for none of them. With all of src and the arrays constant (and
 * no sum) the node is folded at compile time with its attributes; the
 * compiler never merges or removes a quantising reorder (int8 and bf16
 * graphs keep their quantisation steps). Errors: LG_INVALID_ARGUMENT for
 * NULL g / dst / out, an unknown value, dims that differ from src's, a mask
 * naming a dim beyond ndims, an operand attr asks for that is LG_NO_VALUE
 * (or one given that it does not ask for), an array of the wrong type or
 * length, a sum operand of other dims or type; LG_UNIMPLEMENTED for
 * post-ops other than one sum. lg_last_error names the function, the node
 * and the operand.
 */
LG_API lg_status lg_graph_add_reorder_attr(lg_graph *g, lg_value src, const lg_md *dst,
                                           const lg_attr *attr, const lg_reorder_operands *operands,
                                           lg_value *out);

/* ---- pooling, softmax and batch norm nodes ---- */

/*
 * A pooling node (see lg_pool_create for the semantics, types and
 * geometry): max, average including or excluding padding, 1D/2D/3D. The
 * result's spatial dims follow from p (pad_r may add the extra output of
 * ONNX ceil_mode). Global average pooling is the case kernel = src's
 * spatial dims, strides 1, no padding (the kernel has a fast path for it).
 * p is copied. LG_INVALID_ARGUMENT naming "params ..." for a bad alg, sizes
 * below 1, negative padding or dilation, a kernel wider than the padded
 * input; LG_UNIMPLEMENTED for src of other than 3, 4 or 5 dims.
 */
LG_API lg_status lg_graph_add_pool(lg_graph *g, lg_value src, const lg_pool_params *p,
                                   lg_value *out);

/*
 * A softmax or log-softmax node over `axis` (0 <= axis < ndims of src; see
 * lg_softmax_create for the error bound). f32, bf16, f16. LG_INVALID_ARGUMENT
 * naming the axis when it is out of range, or the alg when unknown.
 */
LG_API lg_status lg_graph_add_softmax(lg_graph *g, lg_value src, lg_softmax_alg alg, int axis,
                                      lg_value *out);

/*
 * A batch-normalization node, inference (see lg_bnorm_create): per channel c
 * (dim 1 of src, 2 to 5 dims), dst = gamma[c] (src - mean[c]) /
 * sqrt(variance[c] + epsilon) + beta[c], then max(dst, 0) when fuse_relu.
 * mean, variance, gamma and beta are graph values (usually constants) of
 * 1D f32 with C elements; gamma and beta are both given or both
 * LG_NO_VALUE (1 and 0). The compiler folds a batchnorm that follows a conv
 * with constant weights into that conv (pass "fold_batchnorm") and fuses a
 * following relu. LG_INVALID_ARGUMENT naming the statistic whose dims or
 * type do not match, or the epsilon (negative or not finite).
 */
LG_API lg_status lg_graph_add_batchnorm(lg_graph *g, lg_value src, lg_value mean, lg_value variance,
                                        lg_value gamma, lg_value beta, float epsilon,
                                        bool fuse_relu, lg_value *out);
/*
 * A concat node (see lg_concat_create): srcs[0..n) (n in
 * 1..LG_CONCAT_MAX_SRCS, one type and rank, equal off the axis) placed one
 * after another along `axis`. A node reads at most five values: more
 * sources become a balanced tree of concat nodes of at most five inputs
 * each (docs/architecture.md); *out is the root's result. Layouts: every
 * source is read in the layout the node runs in (plain, channels last or
 * channel-blocked; OPTIMAL picks the cheapest over the inputs and readers).
 * LG_INVALID_ARGUMENT (naming srcs[i]) for NULL pointers, unknown values, n
 * out of range, mismatched ranks, types or dims, an axis out of range.
 */
LG_API lg_status lg_graph_add_concat(lg_graph *g, int axis, int n, const lg_value *srcs,
                                     lg_value *out);

/* A slice node (see lg_slice_create): src's [start, start + len) along
 * `axis`; it keeps src's layout. LG_INVALID_ARGUMENT for NULL pointers, an
 * unknown value, an axis out of range, a range outside src. */
LG_API lg_status lg_graph_add_slice(lg_graph *g, lg_value src, int axis, int64_t start, int64_t len,
                                    lg_value *out);

/* A split: src cut along `axis` into n parts of sizes[0..n) (each >= 1,
 * summing to src's dim), one slice node each; outs[i] is part i.
 * LG_INVALID_ARGUMENT (naming sizes[i] or the sum) otherwise; nothing is
 * added to g on error. */
LG_API lg_status lg_graph_add_split(lg_graph *g, lg_value src, int axis, int n,
                                    const int64_t *sizes, lg_value *outs);

/* An inner-product node (see lg_inner_product_create): src N x C or N x C x
 * spatial, weights OC x (src's dims but the first), bias (LG_NO_VALUE for
 * none) OC; the result is N x OC. The node reads src in the layout its
 * producer writes when that is plain, channels-last or channel-blocked, and
 * takes eltwise and sum nodes after it as post-ops. */
LG_API lg_status lg_graph_add_inner_product(lg_graph *g, lg_value src, lg_value weights,
                                            lg_value bias, lg_value *out);

/* A reshape node: src's elements, in row-major logical order, with ndims
 * dims `dims` (1..LG_MAX_NDIMS, each >= 0, the same element count; no -1:
 * the caller resolves it). When src's layout can be seen with the new dims
 * (lg_md_reshape: plain, or a blocked dim kept whole) the result is src's
 * bytes: no step runs if src dies at the reshape (else a memcpy); other
 * layouts are reordered to plain first; a flatten ([N, C, ...] -> [N, C*...]) read
 * only by inner products with constant weights costs nothing: they read
 * src directly, in its producer's layout (pass fold_flatten). */
LG_API lg_status lg_graph_add_reshape(lg_graph *g, lg_value src, int ndims, const int64_t *dims,
                                      lg_value *out);

/* Mark v as a graph output named `name`, wanted in layout `tag` ("any" lets
 * the compiler choose; lg_plan_query_md reports it). A value may be an output
 * and feed other nodes. */
LG_API lg_status lg_graph_add_output(lg_graph *g, lg_value v, const char *name, const char *tag);

/* How layouts are assigned (see docs/propagation.md). */
typedef enum lg_strategy {
    LG_STRATEGY_NONE,   /* everything in the plain layout of the inputs */
    LG_STRATEGY_GREEDY, /* one forward pass; compute nodes pick blocked layouts */
    LG_STRATEGY_OPTIMAL /* minimum modelled cost over the whole graph */
} lg_strategy;

/* ---- Strategies of your own (docs/propagation.md, "User strategies") ----
 *
 * A user strategy is a function the compile pipeline calls instead of a
 * built-in strategy. It gets a read-only view of the layout problem, the
 * same search space LG_STRATEGY_OPTIMAL solves, and answers with one
 * configuration per problem node (lg_layout_choose); lgraph checks the
 * answer, inserts the reorders it implies and builds the plan exactly as for
 * a built-in strategy.
 *
 * The problem's nodes, numbered 0 .. lg_layout_num_nodes - 1, are first the
 * graph inputs declared with layout "any" (kind "input"), then the graph's
 * nodes in execution order. Each has configurations 0 .. num_configs - 1: the
 * layout each input is read in and the layout the result is written in (an
 * "input" node has only a result). Configuration 0 is what GREEDY would pick
 * (for a conv: the layouts its kernel prefers; for an "input": the layout
 * its first reader prefers) and configuration 1, unless it equals 0, what
 * NONE would pick. Edges are every (value, reader) pair: from the problem
 * node producing the value (or -1: a constant or an input of fixed layout)
 * to the node reading it (or -1: a graph output).
 *
 * Costs are the cost model's (predicted ns, docs/propagation.md): a
 * configuration's own cost, and an edge's reorder cost under a pair of
 * configurations (0 when the layouts agree; reorders of constants are
 * folded at compile time and cost 0). The sum of the chosen configurations'
 * and edges' costs is an upper bound of the model's total: the model counts
 * one reorder per (value, layout) shared by all readers needing it, and no
 * cost for a node fused into the conv before it. lg_layout_cost gives that
 * exact total (what lg_plan_stats.model_cost reports).
 *
 *     static lg_status first(lg_layout_problem *p, void *user) {
 *         int n = lg_layout_num_nodes(p), choice[64] = {0};  // GREEDY's picks
 *         return lg_layout_choose(p, n, choice);
 *     }
 *     o.strategy_fn = first;   // lg_compile_options
 *
 * Every accessor checks its arguments (LG_INVALID_ARGUMENT naming the
 * function and argument); out pointers may be NULL when not wanted. The view
 * is valid only during the call; a strategy must not keep it. */
typedef struct lg_layout_problem lg_layout_problem;

/* A user strategy: read p, call lg_layout_choose once, return LG_OK. Any
 * other status fails the compile with it. user_data is
 * lg_compile_options.strategy_data. */
typedef lg_status (*lg_strategy_fn)(lg_layout_problem *p, void *user_data);

/* Number of problem nodes (0 for NULL). */
LG_API int lg_layout_num_nodes(const lg_layout_problem *p);

/* Problem node `node`: its kind ("conv", "eltwise", ... or "input"), the
 * index of the graph node (in the order the lg_graph_add_* node calls made
 * them; -1 for an input), how many inputs it reads and how many
 * configurations it has. */
LG_API lg_status lg_layout_node(const lg_layout_problem *p, int node, const char **kind,
                                int *graph_node, int *num_inputs, int *num_configs);

/* The name of an "input" node (the graph input's name); NULL for other
 * nodes and bad arguments. */
LG_API const char *lg_layout_node_name(const lg_layout_problem *p, int node);

/* Where input j of `node` comes from: *src the problem node producing it
 * (-1: a constant or an input of fixed layout) and *edge the edge. */
LG_API lg_status lg_layout_node_input(const lg_layout_problem *p, int node, int j, int *src,
                                      int *edge);

/* Configuration cfg of `node`: *cost its own modelled cost (running it in
 * those layouts, not fused). */
LG_API lg_status lg_layout_config_cost(const lg_layout_problem *p, int node, int cfg, double *cost);

/* The layout (an md with the tensor's dims and type) in which configuration
 * cfg of `node` reads input j (0 <= j < num_inputs), or writes its result
 * (j = -1). lg_md_tag names it ("acdb" is channels-last). */
LG_API lg_status lg_layout_config_md(const lg_layout_problem *p, int node, int cfg, int j,
                                     lg_md *md);

/* Number of edges (0 for NULL). */
LG_API int lg_layout_num_edges(const lg_layout_problem *p);

/* Edge e: from problem node *src (-1: fixed layout) to input *dst_input of
 * problem node *dst, or (with *dst = -1) to graph output number *dst_input. */
LG_API lg_status lg_layout_edge(const lg_layout_problem *p, int e, int *src, int *dst,
                                int *dst_input);

/* The layouts at edge e when its source runs configuration src_cfg and its
 * destination dst_cfg (pass 0 for a side that is -1): *from the layout the
 * value is stored in (a fixed source's own), *to the layout it is read in
 * (an output's wanted layout; for an output wanted as "any", *from). */
LG_API lg_status lg_layout_edge_mds(const lg_layout_problem *p, int e, int src_cfg, int dst_cfg,
                                    lg_md *from, lg_md *to);

/* The reorder cost of edge e when its source runs configuration src_cfg and
 * its destination dst_cfg (pass 0 for a side that is -1). */
LG_API lg_status lg_layout_edge_cost(const lg_layout_problem *p, int e, int src_cfg, int dst_cfg,
                                     double *cost);

/* The cost model's exact total of an assignment (choice[i] a configuration
 * of problem node i, n = lg_layout_num_nodes): what the plan's model_cost
 * would be. Errors as lg_layout_choose. */
LG_API lg_status lg_layout_cost(lg_layout_problem *p, int n, const int *choice, double *cost);

/* The strategy's answer: one configuration per problem node. LG_INVALID_
 * ARGUMENT (the compile then fails with it) for a NULL choice, n not equal
 * to lg_layout_num_nodes, or a configuration out of range (the message
 * names the problem node, its kind and graph node). A later call replaces
 * an earlier one. */
LG_API lg_status lg_layout_choose(lg_layout_problem *p, int n, const int *choice);

/* Most threads a plan may be asked to run on (lg_compile_options.num_threads). */
#define LG_MAX_THREADS 1024

/* Compile options; lg_compile_options_init sets the defaults. */
typedef struct lg_compile_options {
    lg_strategy strategy;       /* default LG_STRATEGY_OPTIMAL */
    bool fuse;                  /* fuse eltwise/sum into conv post-ops; default true */
    int num_threads;            /* 0: OpenMP's default; at most LG_MAX_THREADS */
    const char *disable_passes; /* NULL or "name,name": passes to skip (also
                                   LG_DISABLE_PASSES in the environment) */
    lg_strategy_fn strategy_fn; /* NULL, or a user strategy used instead of
                                   `strategy` (see lg_layout_problem) */
    void *strategy_data;        /* passed to strategy_fn */
    /* Issue 20: the cost model's coefficients. NULL (default): the file named
       by LG_COST_MODEL in the environment, else the library's built-in
       byte-count model (data/cost_model_calibrated.json is the calibrated
       table, opt-in; docs/propagation.md says why). A path: that file (written by lgraph-calibrate
       / lg_calibrate); a file that cannot be read or parsed fails the compile with
       LG_INVALID_ARGUMENT (lg_last_error names the file and line). */
    const char *cost_model;
    /* OPTIMAL's tie-break: the plan keeps GREEDY's assignment unless the
       proven minimum of the model is cheaper than GREEDY's by more than this
       fraction of GREEDY's modelled cost (the model's own error on whole
       plans is a few per cent, docs/propagation.md). lg_compile_options_init
       sets LG_OPTIMAL_MARGIN_DEFAULT; 0: the minimum as it is. Must be in
       [0, 1) (else LG_INVALID_ARGUMENT). Ignored by the other strategies. */
    double optimal_margin;
    /* Issue 24: the algorithm of every conv node whose params leave alg at 0
       (LG_CONV_DIRECT); default LG_CONV_AUTO (Winograd where measured
       faster). Nodes asking for LG_CONV_WINOGRAD or LG_CONV_AUTO keep it. */
    lg_conv_alg conv_alg;
    /* Micro-batching: 0 or 1 (default) runs the graph once per execute.
       R > 1 makes every execute run the graph R times, once per consecutive
       slice of dim 0 of every input and output: the graph describes one
       slice (built at the micro-batch b), and the plan's inputs and outputs
       have dim 0 R times the graph's (lg_plan_query_md reports R * b). The
       slices run one after another on one arena, so a network whose
       activations at the whole batch would spill out of the cache keeps
       them in it (MobileNetV2 at N = 16: docs/performance.md). The graph
       must compute each batch item on its own (no op mixes items along dim
       0), which holds for classifiers in inference; the plan cannot check
       that. Every input and output must keep dim 0 outermost and unblocked
       in its layout (nchw, nhwc, nChw16c, ab do; "ba" does not): else
       lg_graph_compile returns LG_UNIMPLEMENTED naming it. Negative or
       above 2^20: LG_INVALID_ARGUMENT. */
    int batch_slices;
} lg_compile_options;

#define LG_OPTIMAL_MARGIN_DEFAULT 0.03

/* Fill o with the defaults: OPTIMAL, fuse on, default threads, no pass
 * disabled, no user strategy, the built-in cost model, an OPTIMAL margin of
 * LG_OPTIMAL_MARGIN_DEFAULT, conv_alg LG_CONV_AUTO, no micro-batching. */
LG_API void lg_compile_options_init(lg_compile_options *o);

/* Compile g into an immutable plan. o may be NULL (defaults). LG_INVALID_GRAPH
 * for a graph without outputs or with values that reach no output. */
LG_API lg_status lg_graph_compile(const lg_graph *g, const lg_compile_options *o, lg_plan **plan);

/* What a compiled plan does per execution. */
typedef struct lg_plan_stats {
    int runtime_reorders;  /* reorder steps run by each lg_plan_execute */
    int folded_reorders;   /* reorders of constants done once at compile time */
    int64_t reorder_bytes; /* bytes read + written by runtime reorders per execute */
    int steps;             /* kernels run per execute */
    int64_t arena_bytes;   /* intermediate memory after planning */
    double model_cost;     /* total cost of the layout assignment under the cost model, ns */
    bool exact;            /* OPTIMAL without fallback: the model's minimum was proven (it is
                              model_cost_bound); the plan runs it unless kept_greedy */
    double compile_ms;     /* wall time lg_graph_compile took */
    int fused_steps;       /* steps whose kernel runs fused post-ops (eltwise, sum) */
    /* Pass concat_inplace (memory views): values placed inside another
     * value's buffer (concat inputs their producers write at their place in
     * the concat's result, concats and slices that became views); the concat
     * and slice steps no longer run, net of the one-input copies of concat
     * inputs that could not be placed; and the bytes those steps read and
     * wrote per execute, net of the copies'. */
    int views;
    int copy_steps_removed;
    int64_t copy_bytes_removed;
    /* When exact is false, why (NUL-terminated; "" when exact), and a proven
     * lower bound of the minimal model cost: the minimum lies in
     * [model_cost_bound, model_cost] (model_cost when exact; 0 when nothing
     * is proven: NONE, GREEDY, a user strategy, a space too large to build).
     * OPTIMAL's solver falls back when the graph's induced width makes the
     * exact tables exceed its limits (docs/propagation.md). */
    char inexact_reason[160];
    double model_cost_bound;
    /* Issue 20: the cost model's predicted time of one lg_plan_execute, in
       ms: the sum of its steps' predictions (model_cost is the same in ns,
       for the layout assignment alone). */
    double model_ms;
    /* OPTIMAL only: true when the plan kept GREEDY's assignment because the
       model's minimum (model_cost_bound when exact) saves less than
       lg_compile_options.optimal_margin of GREEDY's cost (model_cost). */
    bool kept_greedy;
    /* Times each execute runs the graph (lg_compile_options.batch_slices;
       1 without micro-batching). The counters above describe one run of
       the graph, except model_ms, which is the whole execute's. */
    int batch_slices;
    /* Bytes of the constants the plan holds (weights as its kernels read
       them, after folding); arena_bytes + const_bytes is the plan's memory
       besides its kernels' own buffers (Winograd transforms, packed weights). */
    int64_t const_bytes;
} lg_plan_stats;

/* Fill *s with the plan's counters. */
LG_API lg_status lg_plan_stats_get(const lg_plan *p, lg_plan_stats *s);

/* The md of the input or output named `name`: the layout its buffer must
 * have. LG_INVALID_ARGUMENT for an unknown name. */
LG_API lg_status lg_plan_query_md(const lg_plan *p, const char *name, lg_md *md);

/* A buffer bound to an input or output by name. */
typedef struct lg_binding {
    const char *name;
    void *data;
} lg_binding;

/* Run the plan. Every input and every output must be bound, each to a
 * non-NULL buffer in the layout lg_plan_query_md reports, aligned to its
 * element size (the rule of lg_kernel_execute). Reentrant: several
 * threads may execute one plan at once; each thread reuses its own scratch
 * arena across calls. */
LG_API lg_status lg_plan_execute(const lg_plan *p, int nin, const lg_binding *in, int nout,
                                 const lg_binding *out);

/* Called on the loop's thread when an asynchronous execution ends. */
typedef void (*lg_done_cb)(lg_status status, void *user_data);
struct uv_loop_s; /* libuv's loop; this header need not include uv.h */

/* Queue an execution on libuv's thread pool; `done` is called on the loop's
 * thread with its status. The caller keeps the buffers (and the plan) alive
 * until then. The bindings are copied. */
LG_API lg_status lg_plan_execute_async(const lg_plan *p, struct uv_loop_s *loop, int nin,
                                       const lg_binding *in, int nout, const lg_binding *out,
                                       lg_done_cb done, void *user_data);

/* ---- per-step profile (issue 24) ---- */

/* What part of a network a step belongs to, for "where the time goes"
 * summaries. A conv is FIRST_CONV when it reads at most 4 input channels,
 * else DEPTHWISE when groups == IC == OC (> 1), else CONV_1X1 when every
 * kernel extent is 1, else CONV_KXK (grouped convs included). Reorders the
 * compiler inserted and copies are REORDER. */
typedef enum lg_layer_class {
    LG_LAYER_OTHER = 0,
    LG_LAYER_FIRST_CONV,
    LG_LAYER_CONV_1X1,
    LG_LAYER_CONV_KXK,
    LG_LAYER_DEPTHWISE,
    LG_LAYER_POOLING,
    LG_LAYER_DATA_MOVEMENT, /* concat, split, slice, channel shuffle */
    LG_LAYER_REORDER,
    LG_LAYER_ELTWISE,    /* eltwise and binary (residual add, ...) */
    LG_LAYER_HEAD,       /* classifier head: inner product, softmax */
    LG_LAYER_CLASS_COUNT /* the number of classes */
} lg_layer_class;

/* The class's short name ("first_conv", "conv1x1", "conv_kxk", "depthwise",
 * "pooling", "concat_split_shuffle", "reorder", "eltwise", "head",
 * "other"); "unknown" outside the enum. Never NULL. */
LG_API const char *lg_layer_class_name(lg_layer_class c);

/* One step of a plan as lg_plan_profile measured it. */
typedef struct lg_step_profile {
    const char *node_kind; /* the graph node kind, "conv", "reorder"; static storage */
    char impl[64];         /* the kernel implementation, "conv:avx2:direct" */
    char desc[192];        /* the step's parameters, as lg_plan_dump prints them */
    lg_layer_class layer_class;
    bool inserted;     /* a reorder or copy the compiler added */
    int64_t bytes;     /* bytes the step's tensors hold (read + written, padding included) */
    double flops;      /* arithmetic (2 per multiply-add); 0 for memory-bound steps */
    double model_cost; /* the cost model's cost of the step, in ns (predicted time) */
    double ms;         /* measured time: the median over the profile's runs */
    char layouts[128]; /* the tensors' layouts, e.g. "src:aBcd8b wei:ABcd8b8a dst:aBcd8b" */
    /* Issue 20: the cost model's view of the step. */
    double model_ms;   /* its predicted time (model_cost is the same in ns) */
    char cost_key[48]; /* the key of its coefficients, "conv:conv1x1:b8:f32" */
    double cost_bytes; /* the bytes the model counts (read + written) */
    /* With micro-batching (lg_plan_stats.batch_slices R > 1) a step runs R
       times per execute: ms is the sum of its R runs, and bytes, flops,
       model_cost, model_ms and cost_bytes are R times one run's. */
} lg_step_profile;

/* Run the plan `runs` times (1..100000) on the given bindings (the rules of
 * lg_plan_execute) timing every step, and write one entry per step, in
 * execution order, into steps[0, lg_plan_stats.steps); `capacity` is the
 * length of steps[] and must be at least that many. Nothing is warmed up:
 * run the plan once before for steady-state times. The outputs hold the
 * last run's results. Times include the (tiny) cost of reading the clock
 * around each step. LG_INVALID_ARGUMENT for a NULL plan or steps, runs out
 * of range, a short capacity, or bad bindings; LG_OUT_OF_MEMORY. */
LG_API lg_status lg_plan_profile(const lg_plan *p, int nin, const lg_binding *in, int nout,
                                 const lg_binding *out, int runs, lg_step_profile *steps,
                                 int capacity);

/* Print the plan as "text" (one line per step and tensor) or "dot" (Graphviz;
 * each tensor labelled with its layout, reorders highlighted). */
LG_API lg_status lg_plan_dump(const lg_plan *p, FILE *f, const char *format);

/* ---- cost model calibration (issue 20) ---- */

/* Options of lg_calibrate; lg_calibrate_options_init sets the defaults. */
typedef struct lg_calibrate_options {
    bool quick;      /* fewer shapes and runs (seconds, for tests); default false */
    int num_threads; /* threads the plans run on; 0: OpenMP's default */
    int runs;        /* timed runs per plan (the fastest counts); 0: 9, or 3 when quick */
    FILE *log;       /* progress and the fit's report, or NULL for silence */
} lg_calibrate_options;

/* Fill o with the defaults. */
LG_API void lg_calibrate_options_init(lg_calibrate_options *o);

/* Time the kernels this machine runs (small graphs of every node kind in
 * each layout family: convs 1x1, kxk, depthwise and first layer, pooling,
 * eltwise, binary, concat, slice, shuffle, inner product, and reorders
 * between every pair of families), fit the cost model's coefficients by
 * least squares and write them as JSON to `path` (the file
 * lg_compile_options.cost_model and LG_COST_MODEL load). o may be NULL.
 * LG_INVALID_ARGUMENT for a NULL path or bad options, LG_RUNTIME_ERROR if
 * the file cannot be written; the errors of compiling and running. */
LG_API lg_status lg_calibrate(const char *path, const lg_calibrate_options *o);

/* Free a plan; NULL allowed. Waits for asynchronous executions of p still
 * running on the thread pool (their callbacks still arrive, on the loop's
 * thread, after this returns); kernels are released to the cache. */
LG_API void lg_plan_destroy(lg_plan *p);

#ifdef __cplusplus
}
#endif

#endif /* LGRAPH_H */
