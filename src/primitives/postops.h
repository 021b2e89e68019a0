/* Post-op chains of the eltwise, binary and typed conv kernels (sums,
 * eltwise, binary and prelu post-ops): the chain as part of a cache key, its scalar truth, and
 * the vector engine that applies it to f32 chunks of a dense dst.
 *
 * A dense dst is walked in its physical order ("flat position" x: the
 * element at offset0 + x). A tensor read against that order (a binary
 * post-op's src1, or the binary kernel's own src1) is an operand, taken in
 * one of three ways chosen at creation:
 *  - scalar: all its dims are 1: one value, applied as a broadcast;
 *  - same: dst's dims and layout (any type): read at the same flat
 *    positions, in place when f32, else converted a chunk at a time;
 *  - gather: any other broadcast or layout: per-dim offset tables
 *    (layout.h), values gathered per run of the innermost physical dim
 *    (a constant fill where src1 broadcasts that dim).
 * The operation itself always runs on the ISA's vector kernels
 * (binary.h's vv / pat, eltwise.h's f32 kernels); a prelu's weights are
 * such an operand (f32, row-major, dims from its mask) and its select
 * r > 0 ? r : w * r is a loop the compiler vectorises. */
#ifndef LG_PRIMITIVES_POSTOPS_H
#define LG_PRIMITIVES_POSTOPS_H

#include "primitives/attr.h"
#include "primitives/binary/binary.h"
#include "primitives/eltwise/eltwise.h"
#include "primitives/simd/cvt.h"

/* Elements per chunk of the engine (its stack buffers). */
#define LG_PO_CHUNK 512

/* A validated chain, zeroed then filled (part of cache keys): each op with
 * only the fields its kind reads; src1 of binary ops concrete ("any"
 * resolved to dst's tag on src1's dims), of prelu ops the weights' md
 * (alg: the mask), zero for the other kinds. */
typedef struct lg__po_spec {
    int32_t npost;
    lg__post_op post[LG_MAX_POST_OPS];
    lg_md src1[LG_MAX_POST_OPS];
} lg__po_spec;

/* Check attr's post-op chain against dst (binary src1 dims equal dst's or
 * 1, same ndims) and fill *spec. Errors name `where` and the post-op.
 * attr may be NULL (an empty chain). */
LG_INTERNAL lg_status lg__po_spec_init(lg__po_spec *spec, const struct lg_attr *attr,
                                       const lg_md *dst, const char *where);

/* The chain on one value: v the result so far at dst's logical index idx,
 * old what dst held there, src1[i] the buffer of post-op i (binary ops). */
LG_INTERNAL float lg__po_scalar(const lg__po_spec *spec, const int64_t *idx, float v, float old,
                                const void *const *src1);

/* Whether the chain holds a sum; the largest ulp bound of its eltwise ops
 * (lg__eltwise_ulp_bound; 0 when every op is exact). */
LG_INTERNAL bool lg__po_has_sum(const lg__po_spec *spec);
LG_INTERNAL double lg__po_ulp_bound(const lg__po_spec *spec);

/* The execution argument of the tensor post-op i reads: binary's
 * LG_ARG_ATTR_POST_OP_SRC1(i), prelu's LG_ARG_ATTR_POST_OP_WEIGHTS(i). The
 * number of post-ops in spec that read one. */
LG_INTERNAL int lg__po_arg(const lg__po_spec *spec, int i);
LG_INTERNAL int lg__po_ntensors(const lg__po_spec *spec);

/* Add one required tensor slot per binary or prelu op (argument
 * lg__po_arg(spec, i), src1's md) to k, its index into slot[i] (-1 for the
 * other kinds). */
LG_INTERNAL void lg__po_add_slots(lg_kernel *k, const lg__po_spec *spec, int *slot);

/* md "any" made concrete: like's tag on md's dims (oneDNN's choice for a
 * binary src1), or row-major strides when like's layout is not a tag's. */
LG_INTERNAL lg_status lg__binary_any_like(const lg_md *like, const lg_md *md, lg_md *out);

/* The references with a chain (the truth of the attr kernels): as
 * lg__eltwise_ref / lg__binary_ref, each element's result then going
 * through lg__po_scalar (old: what dst held there, read before writing it;
 * src1[i]: post-op i's buffer). Binary's *scale0 / *scale1 multiply src0 /
 * src1 first (NULL: no scale). */
LG_INTERNAL void lg__eltwise_ref_po(const lg__eltwise_pd *pd, const lg__po_spec *po,
                                    const void *src, void *dst, const void *const *src1);
LG_INTERNAL void lg__binary_ref_po(const lg__binary_pd *pd, const float *scale0,
                                   const float *scale1, const lg__po_spec *po, const void *src0,
                                   const void *src1, void *dst, const void *const *po_src1);
/* Select (lg_binary_create_select): as lg__binary_ref_po with
 * r = cond[i'] != 0 ? a : b (cond's md cmd, broadcast like src1) instead of
 * pd's operation; cond NULL: pd's operation. */
LG_INTERNAL void lg__binary_ref_select(const lg__binary_pd *pd, const lg_md *cmd, const void *cond,
                                       const float *scale0, const float *scale1,
                                       const lg__po_spec *po, const void *src0, const void *src1,
                                       void *dst, const void *const *po_src1);

enum { LG_PO_SCALAR, LG_PO_SAME, LG_PO_GATHER };

/* A tensor read against dst's physical order (see above). */
typedef struct lg__po_operand {
    lg_md md;
    int mode;
    int64_t *tab; /* gather: md's tables over dst's dims, broadcast (layout.h) */
} lg__po_operand;

/* The engine's plan for one dense dst. */
typedef struct lg__po_plan {
    lg_md dst;
    lg__po_spec spec;
    /* dst's physical dims, outermost first: extent, logical dim, and the
     * logical index step of one step of it */
    int np;
    int64_t pext[2 * LG_MAX_NDIMS], pmul[2 * LG_MAX_NDIMS];
    int pld[2 * LG_MAX_NDIMS];
    lg__po_operand opnd[LG_MAX_POST_OPS]; /* of the binary ops */
    lg__eltwise_pd epd[LG_MAX_POST_OPS];  /* of the eltwise ops */
    lg__binary_vv_fn vv;
    lg__binary_pat_fn pat;
    lg__eltwise_f32_fn elt;
    lg__cvt_fn cvt;
} lg__po_plan;

/* Plan spec's chain on dst (dense, concrete) for the ISA. LG_OUT_OF_MEMORY
 * is the only failure; free with lg__po_plan_free (also after a failure). */
LG_INTERNAL lg_status lg__po_plan_init(lg__po_plan *p, const lg__po_spec *spec, const lg_md *dst,
                                       lg__isa isa);
LG_INTERNAL void lg__po_plan_free(lg__po_plan *p);

/* An operand of md (dims equal dst's or 1) against p's dst; LG_OUT_OF_MEMORY
 * only. Free with lg__po_operand_free. */
LG_INTERNAL lg_status lg__po_operand_init(const lg__po_plan *p, lg__po_operand *o, const lg_md *md);
LG_INTERNAL void lg__po_operand_free(lg__po_operand *o);

/* The operand's f32 values at dst's flat positions [x, x + m) (m at most
 * LG_PO_CHUNK): a pointer to m values (buf itself, or out after filling
 * it), or with *scalar set a pointer to the one value. */
LG_INTERNAL const float *lg__po_values(const lg__po_plan *p, const lg__po_operand *o,
                                       const void *buf, int64_t x, int64_t m, float *out,
                                       bool *scalar);

/* acc[i] = alg(acc[i], v[i]) (v[0] for all i when scalar), i < m, on the
 * ISA's kernels. */
LG_INTERNAL void lg__po_binary(const lg__po_plan *p, int alg, float *acc, const float *v,
                               bool scalar, int64_t m);

/* Load m elements of a buffer laid out as dst (type dt) from flat position x
 * into f32 out; store m f32 values into it. */
LG_INTERNAL void lg__po_load(const lg__po_plan *p, lg_dtype dt, const void *buf, int64_t x,
                             int64_t m, float *out);
LG_INTERNAL void lg__po_store(const lg__po_plan *p, const float *in, void *buf, int64_t x,
                              int64_t m);

/* The chain on acc[0..m), the f32 results for dst's flat positions
 * [x, x + m): sums read dst (its old values), binary op i reads src1[i].
 * m at most LG_PO_CHUNK. */
LG_INTERNAL void lg__po_run(const lg__po_plan *p, float *acc, int64_t x, int64_t m, const void *dst,
                            const void *const *src1);

#endif /* LG_PRIMITIVES_POSTOPS_H */
