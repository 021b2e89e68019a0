/* The convolution kernel's internal interface: the problem (also its cache
 * key), the normalised shape every path works on, the layout choice for
 * "any", the scalar reference, and the post-op helpers.
 *
 * Layout choice for an "any" md (lg__conv_choose). B is the channel block of
 * the ISA: 16 on AVX-512, 8 on AVX2; under the scalar cap everything is
 * plain (abx / goihw-like), since no vector path would read a block. Each
 * "any" argument independently takes the entry of the preferred triple, so a
 * caller fixing one argument (say src in nchw) still gets the preferred
 * layouts for the others. With ndims-appropriate spelling (1D / 2D / 3D):
 *
 *  problem                                  src        weights           dst
 *  depthwise (G == IC == OC)                nCx{B}c    Goix{B}g          nCx{B}c
 *  first layer (G == 1, IC <= 4)            ncx        Oxi{B}o           nCx{B}c
 *  G == 1                                   nCx{B}c    OIx{B}i{B}o       nCx{B}c
 *  G > 1 (any per-group channel counts)     nCx{B}c    gOIx{B}i{B}o      nCx{B}c
 *  scalar cap                               ncx        oix / goix        ncx
 *
 * Grouped convolutions whose per-group channel counts are not multiples of B
 * (ShuffleNet's 3 groups of 20) keep the blocked activations: a group's
 * channels may then start inside a block and straddle two, which the direct
 * path handles (weights padded per group to B). The bias is always "a".
 * Every other concrete combination runs too (the generic reference path). */
#ifndef LG_PRIMITIVES_CONV_H
#define LG_PRIMITIVES_CONV_H

#include "memory/md.h"
#include "primitives/attr.h"
#include "primitives/cpu.h"

/* A validated convolution problem, zeroed then filled (the kernel cache
 * hashes its bytes). Every md is concrete ("any" already resolved); bias is
 * all zero bytes when absent. Spatial parameters beyond nsp are zero.
 * dilates keep oneDNN's convention (0: dense). Only f32. */
typedef struct lg__conv_pd {
    lg_md src, wei, bias, dst;
    int32_t has_bias;
    int32_t nsp; /* spatial rank: 1, 2 or 3 */
    int64_t groups;
    int64_t strides[3], dilates[3], pad_l[3], pad_r[3];
    int32_t npost;
    int32_t alg; /* lg_conv_alg */
    lg__post_op post[LG_MAX_POST_OPS];
} lg__conv_pd;

/* The problem in normalised form: always three spatial dims (D, H, W; the
 * missing outer ones have size 1, stride 1, no padding), group-local channel
 * counts, dilation as a step (dilate + 1). */
typedef struct lg__conv_shape {
    int64_t n, g, icg, ocg, ic, oc;
    int64_t id, ih, iw, od, oh, ow, kd, kh, kw;
    int64_t sd, sh, sw; /* strides */
    int64_t dd, dh, dw; /* dilation steps, >= 1 */
    int64_t pd, ph, pw; /* left (front, top) padding */
} lg__conv_shape;

/* What lg_conv_create would build, without building it: validate the
 * arguments as lg_conv_create does and resolve every "any" md into *pd (the
 * problem, as the cache keys it). Creates no kernel and leaves the cache
 * untouched, so layout choice and fusion ask it freely. Errors name `where`;
 * NULL records no message (a probe whose refusal is an answer). */
LG_INTERNAL lg_status lg__conv_query(const lg_conv_params *p, const lg_md *src,
                                     const lg_md *weights, const lg_md *bias, const lg_md *dst,
                                     const lg_attr *attr, const char *where, lg__conv_pd *pd);

/* Cost inputs (cost.c): the slowdown of a conv reading src and writing dst
 * in these layouts relative to channel-blocked ones (1; channels-last 1.5,
 * plain 3, other 4; a plain src counts only from 8 input channels per group
 * on), and its flops (2 x multiply-adds) for these dims. */
LG_INTERNAL double lg__conv_slowdown(const lg_md *src, const lg_md *dst, int64_t ic_per_group);
LG_INTERNAL double lg__conv_flops(const lg_md *src, const lg_md *wei, const lg_md *dst,
                                  int64_t groups);

/* The path lg_conv_create would run for these concrete mds and p's alg (no
 * post-ops): "pw", "dw", "1x1", "direct", "ref" or "empty" (the last part of
 * the impl name "conv:<isa>:<path>"), asked of lg__conv_plan on a kernel
 * that is never created or cached, or "wino" (impl "...:wino4x4") where
 * paths.c would take Winograd, decided by lg__conv_wino_auto and
 * lg__conv_wino_fits without building its plan (cost.c); "ref" if the
 * problem is invalid or memory runs out. The cost model prices each path by
 * its own coefficients. */
LG_INTERNAL const char *lg__conv_path(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                                      const lg_md *bias, const lg_md *dst);

/* True if lg_conv_create(p, src, wei, bias, dst, attr) would succeed and
 * its kernel run vector code (an impl other than "...ref"; a typed or
 * quantised conv: its f32 inner kernel's), asked as lg__conv_path asks:
 * nothing created or cached, no message recorded. */
LG_INTERNAL bool lg__conv_fast(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                               const lg_md *bias, const lg_md *dst, const lg_attr *attr);

/* The output size *out along spatial dim i (of nsp) for input size `in` and
 * kernel size k: (in + pad_l + pad_r - ((k - 1) * (dilate + 1) + 1)) / stride
 * + 1, checking stride >= 1, dilate >= 0, padding >= 0, k >= 1, that the
 * kernel fits the padded input and that nothing overflows int64. The one
 * geometry check of lg_conv_create and lg_graph_add_conv. On failure returns
 * LG_INVALID_ARGUMENT with the reason (naming the dim: "along h") in
 * why[len]; *shape_fault is then true when the shapes are at fault (kernel
 * size < 1, kernel larger than the padded input), false for a parameter. */
LG_INTERNAL lg_status lg__conv_out_size(const lg_conv_params *p, int nsp, int i, int64_t in,
                                        int64_t k, int64_t *out, bool *shape_fault, char *why,
                                        size_t len);

/* Fill *s from pd (its mds' dims and the geometry). */
LG_INTERNAL void lg__conv_shape_of(const lg__conv_pd *pd, lg__conv_shape *s);

/* The layouts lg_conv_create picks for "any" on this ISA (see the table at
 * the top): tags for src, weights and dst, written into the three buffers
 * (LG_TAG_MAX + 1 bytes each). nsp is the spatial rank, ic the input
 * channels. */
LG_INTERNAL void lg__conv_choose(lg__isa isa, int nsp, const lg__conv_shape *s, char *src_tag,
                                 char *wei_tag, char *dst_tag);

/* Apply the post-op chain to one value: v is conv + bias, old the value dst
 * held before (the sum's input). Each sum adds scale * old (a product then
 * a sum, unfused); each eltwise is lg__eltwise_fwd. */
LG_INTERNAL float lg__conv_post_scalar(const lg__conv_pd *pd, float v, float old);

/* Per-dim offset tables of the three tensors in normalised index order:
 * src and dst (N, C, D, H, W), weights (G, O, I, KD, KH, KW) with group-local
 * O and I, bias (C). A missing dim has a one-entry table {0}. The dst tables
 * cover its padded dims (for zeroing the padding). One allocation. */
typedef struct lg__conv_tabs {
    const int64_t *src[5], *dst[5], *wei[6], *bias;
    int64_t *raw[4]; /* the lg__offtab_new tables of src, wei, dst (over its
                        padded dims) and bias (NULL without one) */
} lg__conv_tabs;

/* Build / free the tables; LG_OUT_OF_MEMORY (no error message set) on
 * failure, leaving nothing allocated. */
LG_INTERNAL lg_status lg__conv_tabs_init(const lg__conv_pd *pd, lg__conv_tabs *t);
LG_INTERNAL void lg__conv_tabs_free(lg__conv_tabs *t);

/*
 * The scalar reference, the truth every path is compared with and the path
 * that runs any layout combination: for each output element,
 *     acc = bias[oc] (or 0); for ic, kd, kh, kw (in that order, in f32):
 *         acc += src * wei   (a product then a sum, unfused)
 * skipping taps that fall in the zero padding; then the post-op chain; then
 * dst's padding is zeroed. Addresses come from the tables t. Threads split
 * the output rows (OpenMP) unless already inside a parallel region.
 */
LG_INTERNAL void lg__conv_ref(const lg__conv_pd *pd, const lg__conv_tabs *t, const float *src,
                              const float *wei, const float *bias, float *dst);

/* A built kernel's private data: the problem, its shape and tables, and
 * the plan of the chosen path (paths.c). */
typedef struct lg__conv_kernel {
    lg__conv_pd pd;
    lg__conv_shape s;
    lg__conv_tabs tabs;
    int path;   /* LG_CONV_PATH_* (paths.c) */
    void *plan; /* the path's plan, lg__free-d with the kernel */
    char impl[64];
} lg__conv_kernel;

/* Choose the path for c (its pd, s and tabs filled) and build its plan;
 * sets c->impl. LG_OUT_OF_MEMORY (no message) on failure. */
LG_INTERNAL lg_status lg__conv_plan(lg__conv_kernel *c);

/* Free c's plan (whatever its path). */
LG_INTERNAL void lg__conv_plan_free(lg__conv_kernel *c);

/* Run the chosen path. bias is NULL when the problem has none. */
LG_INTERNAL lg_status lg__conv_run(const lg__conv_kernel *c, const float *src, const float *wei,
                                   const float *bias, float *dst);

/* Per-step state for a plan whose step reads constant weights wei (from
 * the tensor's start; NULL: the weights are not constant): the Winograd
 * path's transformed weights, else *state NULL. LG_OUT_OF_MEMORY (no
 * message) on failure; free *state with lg__free. */
LG_INTERNAL lg_status lg__conv_prepare(const lg__conv_kernel *c, const float *wei, void **state);

/* lg__conv_run with the state lg__conv_prepare made for these weights. */
LG_INTERNAL lg_status lg__conv_run_prepared(const lg__conv_kernel *c, const float *src,
                                            const float *wei, const float *bias, float *dst,
                                            const void *state);

#endif /* LG_PRIMITIVES_CONV_H */
