/* The reorder kernel's internal interface: the validated problem (which is
 * also its kernel-cache key), the run-time arguments, the scalar reference
 * and the fast engine. */
#ifndef LG_PRIMITIVES_REORDER_H
#define LG_PRIMITIVES_REORDER_H

#include "memory/md.h"
#include "primitives/cpu.h"

/* A validated reorder problem. Built zeroed, then filled, so that its bytes
 * are canonical: the kernel cache hashes and compares it as raw memory.
 * src and dst have the same ndims and dims and are both concrete (not "any").
 * A mask of -1 means "no such attribute"; otherwise bit d set means one value
 * per index of dim d (0: one value for the whole tensor). */
typedef struct lg__reorder_pd {
    lg_md src, dst;
    int32_t src_scale_mask, dst_scale_mask;
    int32_t src_zp_mask, dst_zp_mask;
    int32_t has_sum;
    float sum_beta;
    int32_t comp_mask[2]; /* compensations (lg_comp_kind order), on dst; -1: none */
    /* Typed and grouped scales / zero points (index 0 src, 1 dst): the
     * values' lg_dtype, 0 for the default (f32 scales, s32 zero points);
     * the group size along each dim, 0 for none (one value per index). */
    int32_t scale_dt[2], zp_dt[2];
    int64_t scale_group[2][LG_MAX_NDIMS], zp_group[2][LG_MAX_NDIMS];
    int32_t stochastic; /* 1: dst rounded stochastically (lg_attr_set_rounding) */
} lg__reorder_pd;

struct lg_attr;

/* The validation of lg_reorder_create, without creating a kernel or
 * touching the cache: checks src, dst (same ndims and dims; src concrete)
 * and attr (NULL: none; masks within ndims, at most one post-op, a sum) and
 * fills *pd (dst "any" resolved to src's layout). Errors go through
 * lg__error with `where` (NULL: a quiet probe, nothing recorded). */
LG_INTERNAL lg_status lg__reorder_query(const lg_md *src, const lg_md *dst,
                                        const struct lg_attr *attr, const char *where,
                                        lg__reorder_pd *pd);

/* lg_reorder_create(k, src, dst, NULL) for a kernel another kernel owns
 * (a concat's or slice's views path): the same kernel, built outside the
 * cache, so that the cache holds only the kernels plans and users ask for
 * and an owner's parts are its own. Released with lg_kernel_destroy. */
LG_INTERNAL lg_status lg__reorder_create_owned(lg_kernel **k, const lg_md *src, const lg_md *dst);

/* True if the kernel of pd (lg__reorder_query's) would run the fast engine
 * on one of its copy or transpose jobs, not the reference or its generic
 * job: its plan is built and freed, no kernel created or cached. */
LG_INTERNAL bool lg__reorder_fast(const lg__reorder_pd *pd);

/* Run-time arguments. Scale and zero-point arrays are NULL when their mask is
 * -1; otherwise they hold one value per index combination of the mask's dims
 * (per group on a grouped dim), row-major over those dims in increasing dim
 * order (as oneDNN). Their element type is the pd's scale_dt / zp_dt: f32 /
 * s32 (the pointer types) by default, else read through lg__reorder_value. */
typedef struct lg__reorder_args {
    const void *src;
    void *dst;
    const float *src_scales, *dst_scales;
    const int32_t *src_zps, *dst_zps;
    int32_t *comp[2]; /* compensation outputs (lg_comp_kind order); NULL when mask -1 */
    int32_t seed;     /* stochastic rounding seed (pd->stochastic) */
} lg__reorder_args;

/* True if the problem is a plain copy: no attributes and equal data types. */
static inline bool lg__reorder_is_copy(const lg__reorder_pd *pd) {
    return pd->src_scale_mask < 0 && pd->dst_scale_mask < 0 && pd->src_zp_mask < 0 &&
           pd->dst_zp_mask < 0 && !pd->has_sum && pd->src.dtype == pd->dst.dtype && !pd->stochastic;
}

/* True if the problem uses a feature only the reference implements: typed
 * or grouped scales / zero points, stochastic rounding. The fast engine
 * declines such problems. */
static inline bool lg__reorder_needs_ref(const lg__reorder_pd *pd) {
    if (pd->stochastic) return true;
    for (int i = 0; i < 2; i++) {
        if (pd->scale_dt[i] || pd->zp_dt[i]) return true;
        for (int d = 0; d < LG_MAX_NDIMS; d++)
            if (pd->scale_group[i][d] || pd->zp_group[i][d]) return true;
    }
    return false;
}

/* Index of the value for logical index idx under mask, with group sizes
 * group[d] (0: none) along the dims (NULL: no groups). */
static inline int64_t lg__mask_index_grouped(const lg_md *md, int32_t mask, const int64_t *group,
                                             const int64_t *idx) {
    int64_t k = 0;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) {
            int64_t g = group && group[d] > 1 ? group[d] : 1;
            k = k * (md->dims[d] / g) + idx[d] / g;
        }
    return k;
}

/* The 32 pseudo-random bits of stochastic rounding for logical element
 * index e under seed (lgraph's own counter-based hash). */
LG_INTERNAL uint32_t lg__sround_bits(int32_t seed, int64_t e);

/* v rounded stochastically for dst type dt (bf16, f16, f8; others: v):
 * bits r added below dt's mantissa and cut off (lg_reorder_create). The
 * result is then stored with the usual conversion. */
LG_INTERNAL float lg__sround(float v, lg_dtype dt, uint32_t r);

/* Index of the scale / zero-point value for logical index idx under mask. */
static inline int64_t lg__mask_index(const lg_md *md, int32_t mask, const int64_t *idx) {
    int64_t k = 0;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) k = k * md->dims[d] + idx[d];
    return k;
}

/* The scalar reference: the truth the tests compare every fast path with.
 * Computes, per element, in f32 (each term only when its attribute is set):
 *   dst = (scale_src / scale_dst) * (src - zp_src) [+ beta * dst_old] + zp_dst
 * (the factor formed first), converts to dst's type (convert.h), and writes
 * zeros to dst's padding. Equal types without attributes copy bits. */
LG_INTERNAL void lg__reorder_ref(const lg__reorder_pd *pd, const lg__reorder_args *a);

/* The compensations pd asks for (lg_attr_set_compensation), from the s8
 * values already in a->dst: comp[kind][k] = factor * sum of the dst values
 * whose mask index is k (factor -128 for s8s8, -1 for zero point), summed
 * modulo 2^32. Run after the reorder proper (fast or reference). */
LG_INTERNAL void lg__reorder_comp(const lg__reorder_pd *pd, const lg__reorder_args *a);

/* The fast engine. lg__reorder_fast_init plans the problem for `isa` and
 * returns LG_OK with *plan set and *impl naming the path (a static string,
 * e.g. "avx512:tile16"), or LG_UNIMPLEMENTED if it does not handle the
 * problem (the caller then uses the reference), or LG_OUT_OF_MEMORY.
 * lg__reorder_fast_exec runs a plan: it must not allocate, may use OpenMP,
 * and gives the same bits as lg__reorder_ref (padding zeroed included). */
LG_INTERNAL lg_status lg__reorder_fast_init(const lg__reorder_pd *pd, lg__isa isa, void **plan,
                                            const char **impl);
LG_INTERNAL void lg__reorder_fast_exec(const void *plan, const lg__reorder_args *a);
LG_INTERNAL void lg__reorder_fast_destroy(void *plan);

#endif /* LG_PRIMITIVES_REORDER_H */
