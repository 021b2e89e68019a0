/* lg_bnorm_create: validate, canonicalise into the cache key, choose the
 * path, and the execution driver.
 *
 * Paths (impl "bnorm:<isa>:<path>"): "inner" (channels last, or blocked on
 * C: channel vectors) and "plain" (vectors along w), rows (n, channel
 * block, d, h) split across the OpenMP threads; src and dst may be
 * different views of one layout family (a concat's channel range, its
 * batch stride the concat's). "bnorm:ref" for the scalar cap, other
 * layouts, and src / dst of different layout families. */
#include "primitives/bnorm/bnorm.h"

#include "primitives/cache.h"
#include "primitives/layout.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <xmmintrin.h>

#define BN_ERR(status, ...) lg__error((status), "lg_bnorm_create", __VA_ARGS__)

/* Elements from which all threads run. */
#define PAR_WORK 32768
/* Bytes of src + dst from which f32 rows store non-temporally (as binary.c). */
#define STREAM_FOOTPRINT (32ll * 1024 * 1024)

typedef struct bnorm_data {
    lg__bnorm_pd pd;
    lg__bnorm_job job;
    lg__bnorm_fn rows; /* NULL: the reference */
    int64_t *padtab;
    int64_t n;
    int s_scale, s_shift; /* slots of the optional arguments (-1: none) */
} bnorm_data;

static lg_status bnorm_execute(const lg_kernel *k, void *const *bufs) {
    const bnorm_data *b = k->data;
    lg__bnorm_stats st = {bufs[2], bufs[3], b->s_scale >= 0 ? bufs[b->s_scale] : NULL,
                          b->s_shift >= 0 ? bufs[b->s_shift] : NULL};
    if (!b->rows) {
        lg__bnorm_ref(&b->pd, b->padtab, &st, bufs[0], bufs[1]);
        return LG_OK;
    }
    int64_t rows = lg__bnorm_rows(&b->job);
    int nthr = b->n >= PAR_WORK && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > rows) nthr = rows > 0 ? (int)rows : 1;
    /* Streaming stores when src + dst exceed the caches: src then stays in
     * the last-level cache for the next call, dst skips the read for
     * ownership (8x256x56x56 f32, one thread: 20% less time). */
    const bool stream = b->pd.dst.dtype == LG_F32 && bufs[0] != bufs[1] &&
                        2 * b->n * (int64_t)sizeof(float) >= STREAM_FOOTPRINT;
    if (nthr == 1) { /* no team: small tensors would pay for it */
        b->rows(&b->job, &st, bufs[0], bufs[1], 0, rows, stream);
        if (stream) _mm_sfence();
        return LG_OK;
    }
#pragma omp parallel num_threads(nthr)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
        if (r0 < r1) b->rows(&b->job, &st, bufs[0], bufs[1], r0, r1, stream);
        if (stream) _mm_sfence();
    }
    return LG_OK;
}

static void bnorm_destroy(lg_kernel *k) {
    bnorm_data *b = k->data;
    if (b) lg__free(b->padtab);
    lg__free(b);
}

static const lg__kernel_ops bnorm_ops = {bnorm_execute, bnorm_destroy};

/* The vector rows' views of src and dst into job->v and job->dv; true
 * when the vector code runs them (one layout family, the same sizes). */
static bool plan_job(const lg__bnorm_pd *pd, lg__bnorm_job *job) {
    lg__chview_init(&pd->src, &job->v);
    lg__chview_init(&pd->dst, &job->dv);
    /* Rows of whole h x w planes where h continues w densely (aBcd8b, nchw)
     * in src and dst and enough planes remain for the threads: one loop
     * over the plane, not one row per h (an aBcd8b row at 56 x 56 is only
     * 56 vectors). */
    lg__chview *v = &job->v, *u = &job->dv;
    if (v->kind != LG_CH_OTHER && v->ss[1] == v->sp[2] * v->ss[2] &&
        u->ss[1] == u->sp[2] * u->ss[2] && v->n * v->ncb * v->sp[0] >= 64) {
        v->sp[2] *= v->sp[1];
        v->sp[1] = 1;
        u->sp[2] *= u->sp[1];
        u->sp[1] = 1;
    }
    bool geom = v->kind != LG_CH_OTHER && v->kind == u->kind && v->run == u->run && v->c == u->c &&
                v->n == u->n && v->ncb == u->ncb;
    for (int i = 0; i < 3; i++) geom = geom && v->sp[i] == u->sp[i];
    return geom;
}

static lg_status build_bnorm(const void *problem, lg_kernel **out) {
    const lg__bnorm_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_BNORM, &bnorm_ops, sizeof(bnorm_data));
    if (!k) return BN_ERR(LG_OUT_OF_MEMORY, "cannot allocate a batch-normalization kernel");
    bnorm_data *b = k->data;
    b->pd = *pd;
    b->job.pd = &b->pd;
    b->n = lg__md_nelems_padded(&pd->src);
    lg__isa isa = lg__cpu_isa();
    bool fast = plan_job(&b->pd, &b->job) && isa != LG_ISA_SCALAR;
    if (fast) {
        b->rows = isa == LG_ISA_AVX512 ? lg__bnorm_rows_avx512 : lg__bnorm_rows_avx2;
        snprintf(k->impl, sizeof k->impl, "bnorm:%s:%s", lg__isa_name(isa),
                 b->job.v.kind == LG_CH_INNER ? "inner" : "plain");
    } else {
        snprintf(k->impl, sizeof k->impl, "bnorm:ref");
        if (lg__md_has_padding(&pd->dst)) {
            b->padtab = lg__offtab_new(&pd->dst, pd->dst.padded_dims, false);
            if (!b->padtab) {
                lg_kernel_destroy(k);
                return BN_ERR(LG_OUT_OF_MEMORY, "cannot allocate a padding table");
            }
        }
    }
    char sm[96], dm[96];
    lg__md_describe(&pd->src, sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    snprintf(k->desc, sizeof k->desc, "flags:%s%s%s eps:%g src:%s dst:%s",
             pd->flags & LG_BNORM_USE_SCALE ? "C" : "", pd->flags & LG_BNORM_USE_SHIFT ? "H" : "",
             pd->flags & LG_BNORM_FUSE_RELU ? "R" : "", (double)pd->eps, sm, dm);
    size_t cb = (size_t)pd->src.dims[1] * sizeof(float);
    k->inplace_src = lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src, 0);
    k->inplace_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    lg__kernel_add_slot(k, LG_ARG_MEAN, true, NULL, cb);
    lg__kernel_add_slot(k, LG_ARG_VARIANCE, true, NULL, cb);
    b->s_scale = b->s_shift = -1;
    if (pd->flags & LG_BNORM_USE_SCALE)
        b->s_scale = lg__kernel_add_slot(k, LG_ARG_SCALE, true, NULL, cb);
    if (pd->flags & LG_BNORM_USE_SHIFT)
        b->s_shift = lg__kernel_add_slot(k, LG_ARG_SHIFT, true, NULL, cb);
    *out = k;
    return LG_OK;
}

static bool float_type(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

lg_status lg__bnorm_query(const lg_md *src, const lg_md *dst, float epsilon, unsigned flags,
                          const char *where, lg__bnorm_pd *out, bool *fast) {
#define Q_ERR(status, ...) lg__error((status), where, __VA_ARGS__)
    if (!src) return Q_ERR(LG_INVALID_ARGUMENT, "src md is NULL");
    LG_CHECK(lg__md_check(src, where, "src md"));
    if (lg_md_is_any(src)) return Q_ERR(LG_INVALID_ARGUMENT, "src md is 'any'");
    if (src->ndims < 2 || src->ndims > 5)
        return Q_ERR(LG_UNIMPLEMENTED, "src md has %d dims (batch normalization takes 2 to 5)",
                     src->ndims);
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] < 1)
            return Q_ERR(LG_INVALID_ARGUMENT, "src md dim %d is %lld (must be >= 1)", d,
                         (long long)src->dims[d]);
    if (!float_type(src->dtype))
        return Q_ERR(LG_UNIMPLEMENTED, "src md is %s (batch normalization takes f32, bf16, f16)",
                     lg_dtype_str(src->dtype));
    if (flags & ~(unsigned)(LG_BNORM_USE_SCALE | LG_BNORM_USE_SHIFT | LG_BNORM_FUSE_RELU))
        return Q_ERR(LG_INVALID_ARGUMENT, "flags 0x%x has unknown bits", flags);
    if (!(epsilon >= 0.0f) || epsilon == (float)INFINITY)
        return Q_ERR(LG_INVALID_ARGUMENT, "epsilon %g is not a finite value >= 0", (double)epsilon);
    lg__bnorm_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.eps = epsilon;
    pd.flags = flags;
    lg__md_canon(src, &pd.src);
    if (!dst || lg_md_is_any(dst)) {
        if (dst) LG_CHECK(lg__md_check(dst, where, "dst md"));
        bool same = !dst || (dst->ndims == src->ndims && dst->dtype == src->dtype);
        for (int d = 0; same && dst && d < src->ndims; d++) same = dst->dims[d] == src->dims[d];
        if (!same)
            return Q_ERR(LG_INVALID_ARGUMENT, "dst md ('any') differs from src md in dims or type");
        pd.dst = pd.src;
    } else {
        LG_CHECK(lg__md_check(dst, where, "dst md"));
        bool same = dst->ndims == src->ndims;
        for (int d = 0; same && d < src->ndims; d++) same = dst->dims[d] == src->dims[d];
        if (!same) return Q_ERR(LG_INVALID_ARGUMENT, "dst md dims differ from src md's");
        if (!float_type(dst->dtype))
            return Q_ERR(LG_UNIMPLEMENTED,
                         "dst md is %s (batch normalization takes f32, bf16, f16)",
                         lg_dtype_str(dst->dtype));
        lg__md_canon(dst, &pd.dst);
    }
    if (fast) {
        lg__bnorm_job job;
        *fast = plan_job(&pd, &job) && lg__cpu_isa() != LG_ISA_SCALAR;
    }
    *out = pd;
    return LG_OK;
#undef Q_ERR
}

lg_status lg_bnorm_create(lg_kernel **k, const lg_md *src, const lg_md *dst, float epsilon,
                          unsigned flags) {
    if (!k) return BN_ERR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    *k = NULL;
    lg__bnorm_pd pd;
    LG_CHECK(lg__bnorm_query(src, dst, epsilon, flags, "lg_bnorm_create", &pd, NULL));
    return lg__cache_get(LG_KIND_BNORM, &pd, sizeof pd, build_bnorm, k);
}
