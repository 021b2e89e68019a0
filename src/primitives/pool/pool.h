/* The pooling kernel's internal interface: the problem (also its cache key),
 * the geometry tables shared by the reference and the fast paths, the
 * reference, and the per-ISA kernels. */
#ifndef LG_PRIMITIVES_POOL_H
#define LG_PRIMITIVES_POOL_H

#include "memory/md.h"
#include "primitives/attr.h"
#include "primitives/cpu.h"
#include "primitives/chview.h"

#include <math.h>

/* A validated pooling problem, zeroed then filled (the kernel cache hashes
 * its bytes). Geometry is right-aligned into d, h, w: unused leading dims
 * have k = s = 1 and no padding or dilation. dil is oneDNN's (0: dense). */
typedef struct lg__pool_pd {
    lg_md src, dst;
    int32_t alg, nsp;
    int64_t k[3], s[3], dil[3], pl[3];
    /* avg including padding: the divisor counts taps in [-pl, in + cpr)
     * (in + pad_r - pad_r_ceil); 0 for the other algorithms. */
    int64_t cpr[3];
    int32_t npost; /* eltwise post-ops (lg__pool_create_post) */
    struct {
        int32_t alg;
        float alpha, beta;
    } post[LG_MAX_POST_OPS];
} lg__pool_pd;

/* The result's dims (dims[0..src->ndims)) of pooling src with p, after
 * checking p (alg, sizes, padding, a kernel no wider than the padded
 * input); errors name `where` (NULL: quiet). The one geometry check of
 * lg_pool_create and the graph's pool node. */
LG_INTERNAL lg_status lg__pool_out_dims(const lg_pool_params *p, const lg_md *src,
                                        const char *where, int64_t *dims);

/* lg_pool_create without creating: validate (errors name `where`; NULL:
 * quiet), resolve dst "any" and fill the cache key *pd; *fast (may be NULL)
 * tells whether vector code runs these layouts (else the reference). */
LG_INTERNAL lg_status lg__pool_query(const lg_pool_params *p, const lg_md *src, const lg_md *dst,
                                     const char *where, lg__pool_pd *pd, bool *fast);

/* lg_pool_create with eltwise post-ops (the graph's relu or clip after a
 * pool): each applied in order to every dst element the fast path writes.
 * Only f32 runs them, on the vector paths, with dst rows that are dense
 * runs, and only post-ops with f(0) = 0 (so padding stays zero); anything
 * else is LG_UNIMPLEMENTED (errors name `where`, NULL: quiet). post[i].kind
 * must be LG_POST_ELTWISE. k NULL: only check. */
LG_INTERNAL lg_status lg__pool_create_post(lg_kernel **k, const lg_pool_params *p, const lg_md *src,
                                           const lg_md *dst, int npost, const lg__post_op *post,
                                           const char *where);

/* Valid taps of one output coordinate along one dim: kernel indices
 * [lo, hi), input coordinate of tap j: in0 + j * step; cnt: the taps that
 * avg including padding counts (the kernel size unless pad_r_ceil clips
 * the window). */
typedef struct lg__pool_taps {
    int32_t lo, hi;
    int64_t in0;
    int32_t cnt;
} lg__pool_taps;

/* Per-dim tap tables: tab[i] points at o[i] entries (o = dst spatial). */
typedef struct lg__pool_geom {
    int64_t o[3], in[3], step[3], kprod;
    lg__pool_taps *tab[3];
    lg__pool_taps *mem;
} lg__pool_geom;

/* Fill g for pd (allocates g->mem; lg__free it). false when out of memory. */
LG_INTERNAL bool lg__pool_geom_init(const lg__pool_pd *pd, lg__pool_geom *g);

/* The divisor of an average: the counted taps (avg including padding: the
 * kernel's size, or fewer where pad_r_ceil clips the window) or the number
 * of valid taps. */
static inline int64_t lg__pool_count(int alg, const lg__pool_geom *g, const lg__pool_taps *td,
                                     const lg__pool_taps *th, const lg__pool_taps *tw) {
    (void)g;
    if (alg == 1) return (int64_t)td->cnt * th->cnt * tw->cnt; /* LG_POOL_AVG_INCLUDE_PADDING */
    return (int64_t)(td->hi - td->lo) * (th->hi - th->lo) * (tw->hi - tw->lo);
}

/* Integer element i of p (s32, s8 or u8). */
static inline int64_t lg__pool_ld_int(const void *p, lg_dtype dt, int64_t i) {
    return dt == LG_S32  ? ((const int32_t *)p)[i]
           : dt == LG_S8 ? ((const int8_t *)p)[i]
                         : ((const uint8_t *)p)[i];
}

/* v saturated to dt (s32, s8 or u8), rounded to nearest even, stored at i. */
static inline void lg__pool_st_int(void *p, lg_dtype dt, int64_t i, double v) {
    double lo = dt == LG_S32 ? -2147483648.0 : dt == LG_S8 ? -128.0 : 0.0;
    double hi = dt == LG_S32 ? 2147483647.0 : dt == LG_S8 ? 127.0 : 255.0;
    v = v < lo ? lo : v > hi ? hi : v;
    int64_t r = (int64_t)nearbyint(v);
    if (dt == LG_S32)
        ((int32_t *)p)[i] = (int32_t)r;
    else if (dt == LG_S8)
        ((int8_t *)p)[i] = (int8_t)r;
    else
        ((uint8_t *)p)[i] = (uint8_t)r;
}

/* The scalar truth: every dst element through lg__md_off, dst's padding
 * zeroed. Max: the f32 running maximum m = m > x ? m : x from -inf, taps in
 * d, h, w order (integer types compare exactly); averages: the f32 sum in
 * the same order divided once (integer types: an exact sum, the quotient
 * rounded to nearest even and saturated). A window without a valid tap
 * gives 0. padtab: lg__offtab_new(&pd->dst, padded dims) when dst has
 * padding (which is then zeroed), else NULL. */
LG_INTERNAL void lg__pool_ref(const lg__pool_pd *pd, const lg__pool_geom *g, const int64_t *padtab,
                              const void *src, void *dst);

/* What one fast call computes: output rows [r0, r1) of the problem viewed
 * as rows (n, cb, od, oh) of ow outputs each, src and dst channel views
 * with the same run. */
typedef struct lg__pool_job {
    const lg__pool_pd *pd;
    const lg__pool_geom *g;
    lg__chview sv, dv;
    bool global;   /* kernel = whole input, no padding: one output per (n, cb, chunk) */
    int64_t chunk; /* global: lanes per row (the run split for threads) */
    int64_t nchunk;
} lg__pool_job;

/* Rows of the job: N * ncb * OD * OH, or N * ncb * nchunk when global. */
static inline int64_t lg__pool_rows(const lg__pool_job *j) {
    if (j->global) return j->sv.n * j->sv.ncb * j->nchunk;
    return j->sv.n * j->sv.ncb * j->g->o[0] * j->g->o[1];
}

typedef void (*lg__pool_fn)(const lg__pool_job *j, const void *src, void *dst, int64_t r0,
                            int64_t r1);
/* Any type, any chview kind (channel-inner or plain): plain C. */
LG_INTERNAL void lg__pool_rows_scalar(const lg__pool_job *j, const void *src, void *dst, int64_t r0,
                                      int64_t r1);
/* f32 / f16 / bf16, channel-inner views or plain views with unit w stride. */
LG_INTERNAL void lg__pool_rows_avx2(const lg__pool_job *j, const void *src, void *dst, int64_t r0,
                                    int64_t r1);
LG_INTERNAL void lg__pool_rows_avx512(const lg__pool_job *j, const void *src, void *dst, int64_t r0,
                                      int64_t r1);

#endif /* LG_PRIMITIVES_POOL_H */
