/* lg_pool_create: validate, resolve dst "any", canonicalise into the cache
 * key, choose the path, and the execution driver.
 *
 * Paths (impl "pool:<isa>:<path>"):
 *  - inner: src and dst channel-inner views with the same run (channels
 *    last, or blocked on C by the same block): vectors along the channels.
 *  - plain: both plain: vectors along the output width (AVX2 / AVX-512).
 *  - global: kernel = the whole input, no padding, an average: its own loop
 *    (channel vectors summed over the plane, or plane sums for plain).
 *  - "pool:ref": any other pair of layouts, the reference itself.
 * f32, f16 and bf16 run the ISA's rows; integer types and the scalar cap
 * run pool_scalar.c. Rows (n, channel block, od, oh) are split across the
 * OpenMP threads. */
#include "primitives/pool/pool.h"

#include "primitives/cache.h"
#include "primitives/eltwise/eltwise.h"
#include "primitives/layout.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#define POOL_ERR(status, ...) lg__error((status), "lg_pool_create", __VA_ARGS__)

/* Work (element-taps) from which all threads run. */
#define PAR_WORK 32768
/* Lanes per row of global pooling on a long channel run (nspc). */
#define GLOBAL_CHUNK 128

typedef struct pool_data {
    lg__pool_pd pd;
    lg__pool_geom g;
    lg__pool_job job;
    lg__pool_fn rows; /* NULL: the reference */
    int64_t *padtab;  /* the reference's dst padding tables */
    int64_t work;
    lg__eltwise_pd post[LG_MAX_POST_OPS];
    lg__eltwise_f32_fn post_fn;
} pool_data;

/* The dense dst run of fast-path row r: its first element and length. */
static int64_t row_span(const pool_data *p, int64_t r, int64_t *len) {
    const lg__pool_job *j = &p->job;
    const lg__chview *v = &j->dv;
    if (j->global) {
        int64_t chunk = r % j->nchunk, rest = r / j->nchunk;
        int64_t cb = rest % v->ncb, n = rest / v->ncb, first = chunk * j->chunk;
        *len = v->run - first < j->chunk ? v->run - first : j->chunk;
        return v->off0 + n * v->sn + cb * v->scb + first;
    }
    const int64_t *o = p->g.o;
    int64_t oh = r % o[1], od = r / o[1] % o[0], rest = r / (o[1] * o[0]);
    int64_t cb = rest % v->ncb, n = rest / v->ncb;
    *len = o[2] * v->run;
    return v->off0 + n * v->sn + cb * v->scb + od * v->ss[0] + oh * v->ss[1];
}

/* The post-ops on the dst elements of rows [r0, r1). */
static void post_rows(const pool_data *p, void *dst, int64_t r0, int64_t r1) {
    float *d = dst;
    for (int64_t r = r0; r < r1; r++) {
        int64_t len, off = row_span(p, r, &len);
        for (int i = 0; i < p->pd.npost; i++) p->post_fn(&p->post[i], d + off, d + off, len, false);
    }
}

static lg_status pool_execute(const lg_kernel *k, void *const *bufs) {
    const pool_data *p = k->data;
    const void *src = bufs[0];
    void *dst = bufs[1];
    if (!p->rows) {
        lg__pool_ref(&p->pd, &p->g, p->padtab, src, dst);
        return LG_OK;
    }
    int64_t rows = lg__pool_rows(&p->job);
    if (rows == 0) return LG_OK;
    int nthr = p->work >= PAR_WORK && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > rows) nthr = (int)rows;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
        if (r0 < r1) p->rows(&p->job, src, dst, r0, r1);
        if (r0 < r1 && p->pd.npost) post_rows(p, dst, r0, r1);
    }
    return LG_OK;
}

static void pool_destroy(lg_kernel *k) {
    pool_data *p = k->data;
    if (p) {
        lg__free(p->g.mem);
        lg__free(p->padtab);
    }
    lg__free(p);
}

static const lg__kernel_ops pool_ops = {pool_execute, pool_destroy};

static const char *alg_name(int alg) {
    return alg == 0 ? "max" : alg == 1 ? "avg_include_padding" : "avg_exclude_padding";
}

/* Choose the path; impl gets its name. */
static const char *plan(pool_data *p, lg__isa isa) {
    const lg__pool_pd *pd = &p->pd;
    lg__pool_job *j = &p->job;
    j->pd = pd;
    j->g = &p->g;
    lg__chview_init(&pd->src, &j->sv);
    lg__chview_init(&pd->dst, &j->dv);
    /* A plain md whose spatial dims are all 1 reads as channels last too. */
    if (j->sv.kind != j->dv.kind) {
        lg__chview_as_plain(&pd->src, &j->sv);
        lg__chview_as_plain(&pd->dst, &j->dv);
    }
    bool same = j->sv.kind != LG_CH_OTHER && j->sv.kind == j->dv.kind && j->sv.run == j->dv.run &&
                j->sv.ncb == j->dv.ncb;
    if (!same) return NULL;
    bool global = pd->alg != 0;
    for (int i = 0; i < 3; i++)
        global =
            global && pd->k[i] == p->g.in[i] && p->g.o[i] == 1 && pd->pl[i] == 0 && pd->dil[i] == 0;
    j->global = global;
    j->chunk = j->sv.run;
    j->nchunk = 1;
    if (global && j->sv.run > GLOBAL_CHUNK) {
        j->chunk = GLOBAL_CHUNK;
        j->nchunk = (j->sv.run + GLOBAL_CHUNK - 1) / GLOBAL_CHUNK;
    }
    lg_dtype dt = pd->src.dtype;
    bool flt = dt == LG_F32 || dt == LG_F16 || dt == LG_BF16;
    p->rows = !flt || isa == LG_ISA_SCALAR ? lg__pool_rows_scalar
              : isa == LG_ISA_AVX512       ? lg__pool_rows_avx512
                                           : lg__pool_rows_avx2;
    return global ? "global" : j->sv.kind == LG_CH_INNER ? "inner" : "plain";
}

static lg_status build_pool(const void *problem, lg_kernel **out) {
    const lg__pool_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_POOL, &pool_ops, sizeof(pool_data));
    if (!k) return POOL_ERR(LG_OUT_OF_MEMORY, "cannot allocate a pooling kernel");
    pool_data *p = k->data;
    p->pd = *pd;
    if (!lg__pool_geom_init(&p->pd, &p->g)) {
        lg_kernel_destroy(k);
        return POOL_ERR(LG_OUT_OF_MEMORY, "cannot allocate pooling tables");
    }
    lg__isa isa = lg__cpu_isa();
    const char *path = plan(p, isa);
    for (int i = 0; i < pd->npost; i++) {
        memset(&p->post[i], 0, sizeof p->post[i]);
        p->post[i].md = pd->dst;
        p->post[i].alg = pd->post[i].alg;
        p->post[i].alpha = pd->post[i].alpha;
        p->post[i].beta = pd->post[i].beta;
    }
    p->post_fn = isa >= LG_ISA_AVX512 ? lg__eltwise_f32_avx512
                 : isa >= LG_ISA_AVX2 ? lg__eltwise_f32_avx2
                                      : lg__eltwise_f32_scalar;
    bool ints = pd->src.dtype == LG_S32 || pd->src.dtype == LG_S8 || pd->src.dtype == LG_U8;
    if (path) {
        snprintf(k->impl, sizeof k->impl, "pool:%s:%s", ints ? "scalar" : lg__isa_name(isa), path);
        p->work = lg__md_nelems_padded(&pd->dst) *
                  (p->job.global ? p->g.in[0] * p->g.in[1] * p->g.in[2] : p->g.kprod);
    } else {
        snprintf(k->impl, sizeof k->impl, "pool:ref");
        if (lg__md_has_padding(&pd->dst)) {
            p->padtab = lg__offtab_new(&pd->dst, pd->dst.padded_dims, false);
            if (!p->padtab) {
                lg_kernel_destroy(k);
                return POOL_ERR(LG_OUT_OF_MEMORY, "cannot allocate a padding table");
            }
        }
    }
    char sm[96], dm[96];
    lg__md_describe(&pd->src, sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    int n = snprintf(k->desc, sizeof k->desc, "alg:%s src:%s dst:%s", alg_name(pd->alg), sm, dm);
    for (int i = 0; i < pd->npost && n > 0 && n < (int)sizeof k->desc; i++)
        n += snprintf(k->desc + n, sizeof k->desc - (size_t)n, "%s+%s",
                      i ? "" : " post:", lg__eltwise_alg_str(pd->post[i].alg));
    for (int i = 3 - pd->nsp; i < 3 && n > 0 && n < (int)sizeof k->desc; i++)
        n += snprintf(k->desc + n, sizeof k->desc - (size_t)n, " k%lld s%lld d%lld p%lld",
                      (long long)pd->k[i], (long long)pd->s[i], (long long)pd->dil[i],
                      (long long)pd->pl[i]);
    lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src, 0);
    lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    *out = k;
    return LG_OK;
}

/* Check p against src (alg, sizes, padding, the kernel fitting the padded
 * input) and fill pd's geometry and dims[] with the result's dims; errors
 * name `where` (NULL: quiet). */
static lg_status pool_geometry(const lg_pool_params *p, const lg_md *src, const char *where,
                               lg__pool_pd *pd, int64_t *dims) {
#define GEO_ERR(status, ...) lg__error((status), where, __VA_ARGS__)
    if ((unsigned)p->alg > 2u)
        return GEO_ERR(LG_INVALID_ARGUMENT, "params alg %d is not an lg_pool_alg", (int)p->alg);
    const int nd = src->ndims, nsp = nd - 2;
    if (nd < 3 || nd > 5)
        return GEO_ERR(LG_UNIMPLEMENTED, "src md has %d dims (pooling takes 3, 4 or 5)", nd);
    for (int d = 0; d < nd; d++)
        if (src->dims[d] < 1)
            return GEO_ERR(LG_INVALID_ARGUMENT, "src md dim %d is %lld (must be >= 1)", d,
                           (long long)src->dims[d]);
    memset(pd, 0, sizeof *pd);
    pd->alg = (int32_t)p->alg;
    pd->nsp = nsp;
    for (int i = 0; i < 3; i++) pd->k[i] = pd->s[i] = 1;
    dims[0] = src->dims[0];
    dims[1] = src->dims[1];
    for (int i = 0; i < nsp; i++) {
        const int64_t K = p->kernel[i], S = p->strides[i], Dl = p->dilates[i], L = p->pad_l[i],
                      R = p->pad_r[i], I = src->dims[2 + i];
        if (K < 1)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params kernel[%d] is %lld", i, (long long)K);
        if (S < 1)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params strides[%d] is %lld", i, (long long)S);
        if (Dl < 0)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params dilates[%d] is %lld", i, (long long)Dl);
        if (L < 0 || R < 0)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params pad_%c[%d] is %lld", L < 0 ? 'l' : 'r', i,
                           (long long)(L < 0 ? L : R));
        const int64_t RC = p->pad_r_ceil[i];
        if (RC < 0 || RC > R)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params pad_r_ceil[%d] is %lld (0 to pad_r, %lld)",
                           i, (long long)RC, (long long)R);
        if (K > (int64_t)1 << 30 || Dl > (int64_t)1 << 30 || L > (int64_t)1 << 40 ||
            R > (int64_t)1 << 40 || S > (int64_t)1 << 40)
            return GEO_ERR(LG_INVALID_ARGUMENT, "params of spatial dim %d are too large", i);
        int64_t ext = (K - 1) * (Dl + 1) + 1;
        if (ext > I + L + R)
            return GEO_ERR(LG_INVALID_ARGUMENT,
                           "params kernel[%d] spans %lld, wider than the padded input %lld", i,
                           (long long)ext, (long long)(I + L + R));
        dims[2 + i] = (I + L + R - ext) / S + 1;
        int j = 3 - nsp + i;
        pd->k[j] = K;
        pd->s[j] = S;
        pd->dil[j] = Dl;
        pd->pl[j] = L;
        pd->cpr[j] = p->alg == LG_POOL_AVG_INCLUDE_PADDING ? R - RC : 0;
    }
    return LG_OK;
#undef GEO_ERR
}

lg_status lg__pool_out_dims(const lg_pool_params *p, const lg_md *src, const char *where,
                            int64_t *dims) {
    lg__pool_pd pd;
    return pool_geometry(p, src, where, &pd, dims);
}

lg_status lg__pool_query(const lg_pool_params *p, const lg_md *src, const lg_md *dst,
                         const char *where, lg__pool_pd *pd, bool *fast) {
#define Q_ERR(status, ...) lg__error((status), where, __VA_ARGS__)
    if (!p) return Q_ERR(LG_INVALID_ARGUMENT, "params are NULL");
    if (!src) return Q_ERR(LG_INVALID_ARGUMENT, "src md is NULL");
    if (!dst) return Q_ERR(LG_INVALID_ARGUMENT, "dst md is NULL");
    LG_CHECK(lg__md_check(src, where, "src md"));
    LG_CHECK(lg__md_check(dst, where, "dst md"));
    if (lg_md_is_any(src)) return Q_ERR(LG_INVALID_ARGUMENT, "src md is 'any'");
    const int nd = src->ndims;
    int64_t dims[LG_MAX_NDIMS];
    LG_CHECK(pool_geometry(p, src, where, pd, dims));
    if (dst->ndims != nd)
        return Q_ERR(LG_INVALID_ARGUMENT, "dst md has %d dims, src md %d", dst->ndims, nd);
    if (dst->dtype != src->dtype)
        return Q_ERR(LG_INVALID_ARGUMENT, "dst md is %s, src md %s", lg_dtype_str(dst->dtype),
                     lg_dtype_str(src->dtype));
    for (int d = 0; d < nd; d++)
        if (dst->dims[d] < 1)
            return Q_ERR(LG_INVALID_ARGUMENT, "dst md dim %d is %lld (must be >= 1)", d,
                         (long long)dst->dims[d]);
    for (int d = 0; d < 2; d++)
        if (dst->dims[d] != src->dims[d])
            return Q_ERR(LG_INVALID_ARGUMENT, "dst md dim %d is %lld, src md's %lld", d,
                         (long long)dst->dims[d], (long long)src->dims[d]);
    for (int d = 2; d < nd; d++)
        if (dst->dims[d] != dims[d])
            return Q_ERR(LG_INVALID_ARGUMENT,
                         "dst md spatial dim %d is %lld, the geometry gives %lld", d - 2,
                         (long long)dst->dims[d], (long long)dims[d]);
    lg__md_canon(src, &pd->src);
    if (lg_md_is_any(dst)) {
        char tag[LG_TAG_MAX * 2];
        lg__chview_family_tag(src, nd, tag);
        lg_md r;
        if (lg_md_init_tag(&r, nd, dst->dims, dst->dtype, tag) != LG_OK)
            return Q_ERR(LG_INVALID_ARGUMENT, "dst md 'any' cannot take layout %s", tag);
        lg__md_canon(&r, &pd->dst);
    } else {
        lg__md_canon(dst, &pd->dst);
    }
    if (fast) {
        /* The path plan() would take: vector code when both views match. */
        lg__chview sv, dv;
        lg__chview_init(&pd->src, &sv);
        lg__chview_init(&pd->dst, &dv);
        if (sv.kind != dv.kind) {
            lg__chview_as_plain(&pd->src, &sv);
            lg__chview_as_plain(&pd->dst, &dv);
        }
        *fast =
            sv.kind != LG_CH_OTHER && sv.kind == dv.kind && sv.run == dv.run && sv.ncb == dv.ncb;
    }
    return LG_OK;
#undef Q_ERR
}

lg_status lg__pool_create_post(lg_kernel **k, const lg_pool_params *p, const lg_md *src,
                               const lg_md *dst, int npost, const lg__post_op *post,
                               const char *where) {
    if (k) *k = NULL;
    lg__pool_pd pd;
    bool fast = false;
    LG_CHECK(lg__pool_query(p, src, dst, where, &pd, &fast));
    if (npost < 0 || npost > LG_MAX_POST_OPS)
        return lg__error(LG_INVALID_ARGUMENT, where, "%d post-ops (at most %d)", npost,
                         LG_MAX_POST_OPS);
    if (npost && (pd.dst.dtype != LG_F32 || !fast))
        return lg__error(LG_UNIMPLEMENTED, where,
                         "post-ops run on f32 with the vector paths only (dst %s, %s path)",
                         lg_dtype_str(pd.dst.dtype), fast ? "vector" : "reference");
    if (npost) {
        /* Every fast-path row must be one dense run of dst. */
        lg__chview dv;
        lg__chview_init(&pd.dst, &dv);
        lg__chview sv;
        lg__chview_init(&pd.src, &sv);
        if (sv.kind != dv.kind) lg__chview_as_plain(&pd.dst, &dv);
        if (dv.ss[2] != dv.run && pd.dst.dims[pd.dst.ndims - 1] != 1)
            return lg__error(LG_UNIMPLEMENTED, where, "post-ops need dst rows that are dense runs");
    }
    for (int i = 0; i < npost; i++) {
        const lg__post_op *o = &post[i];
        bool ints;
        if (o->kind != LG_POST_ELTWISE || !lg__eltwise_alg_known(o->alg, &ints) ||
            lg__eltwise_fwd(o->alg, o->alpha, o->beta, 0.0f) != 0.0f)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "post-op %d is not an eltwise with f(0) = 0 (padding stays zero)", i);
        pd.post[i].alg = o->alg;
        pd.post[i].alpha = o->alpha;
        pd.post[i].beta = o->beta;
    }
    pd.npost = npost;
    if (!k) return LG_OK;
    return lg__cache_get(LG_KIND_POOL, &pd, sizeof pd, build_pool, k);
}

lg_status lg_pool_create(lg_kernel **k, const lg_pool_params *p, const lg_md *src,
                         const lg_md *dst) {
    if (!k) return POOL_ERR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    *k = NULL;
    lg__pool_pd pd;
    LG_CHECK(lg__pool_query(p, src, dst, "lg_pool_create", &pd, NULL));
    return lg__cache_get(LG_KIND_POOL, &pd, sizeof pd, build_pool, k);
}
