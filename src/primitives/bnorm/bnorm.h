/* The batch-normalization (inference) kernel's internal interface: the
 * problem (also its cache key), the reference and the per-ISA rows. */
#ifndef LG_PRIMITIVES_BNORM_H
#define LG_PRIMITIVES_BNORM_H

#include "memory/md.h"
#include "primitives/cpu.h"
#include "primitives/chview.h"

/* A validated problem, zeroed then filled (the cache hashes its bytes). */
typedef struct lg__bnorm_pd {
    lg_md src, dst;
    float eps;
    uint32_t flags; /* LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU */
} lg__bnorm_pd;

/* lg_bnorm_create without creating: validate (errors name `where`; NULL:
 * quiet, nothing recorded), resolve dst "any" (src's layout) and fill the
 * cache key *pd; *fast (may be NULL) tells whether vector code runs these
 * layouts (else the reference). */
LG_INTERNAL lg_status lg__bnorm_query(const lg_md *src, const lg_md *dst, float epsilon,
                                      unsigned flags, const char *where, lg__bnorm_pd *pd,
                                      bool *fast);

/* The per-channel statistics of one execution (scale / shift NULL when the
 * flags do not ask for them). */
typedef struct lg__bnorm_stats {
    const float *mean, *var, *scale, *shift;
} lg__bnorm_stats;

/* The scalar truth, element by element in f32, unfused, in this order:
 *     a = scale[c] / sqrtf(var[c] + eps)   (scale 1 without USE_SCALE)
 *     y = (x - mean[c]) * a + shift[c]      (shift 0 without USE_SHIFT)
 *     y = y > 0 ? y : 0                     (FUSE_RELU; NaN stays NaN)
 * then stored in dst's type. dst's padding is zeroed through padtab (NULL:
 * none). src may be dst. */
LG_INTERNAL void lg__bnorm_ref(const lg__bnorm_pd *pd, const int64_t *padtab,
                               const lg__bnorm_stats *st, const void *src, void *dst);

/* One fast call: rows [r0, r1) of (n, channel block, d, h) for channel-inner
 * views, of (n, c, d, h) for plain ones, each a run of w points. src and
 * dst may be different views (lg_md_submemory) of one layout family. */
typedef struct lg__bnorm_job {
    const lg__bnorm_pd *pd;
    lg__chview v;  /* src's */
    lg__chview dv; /* dst's: the same kind, sizes and run as v; strides may differ (views) */
} lg__bnorm_job;

static inline int64_t lg__bnorm_rows(const lg__bnorm_job *j) {
    return j->v.n * j->v.ncb * j->v.sp[0] * j->v.sp[1];
}

/* stream: f32 dst far larger than the caches; full vectors whose address
 * is vector-aligned are stored non-temporally (the caller fences). */
typedef void (*lg__bnorm_fn)(const lg__bnorm_job *j, const lg__bnorm_stats *st, const void *src,
                             void *dst, int64_t r0, int64_t r1, bool stream);
LG_INTERNAL void lg__bnorm_rows_avx2(const lg__bnorm_job *j, const lg__bnorm_stats *st,
                                     const void *src, void *dst, int64_t r0, int64_t r1,
                                     bool stream);
LG_INTERNAL void lg__bnorm_rows_avx512(const lg__bnorm_job *j, const lg__bnorm_stats *st,
                                       const void *src, void *dst, int64_t r0, int64_t r1,
                                       bool stream);

#endif /* LG_PRIMITIVES_BNORM_H */
