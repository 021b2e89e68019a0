/* lg_inner_product_create: validate, resolve "any" layouts (ip.h has the
 * rule), canonicalise into the cache key, plan the vector path, and the
 * execution driver.
 *
 * Paths (impl "inner_product:<isa>:<path>"):
 *  - gemv (N < 4) and gemm: register tiles of up to nr rows x mb OC blocks
 *    of B lanes (AVX2 4 x 3, AVX-512 8 x 3; 1-2 rows take 4 blocks), each
 *    src element broadcast against B output channels of the weights block.
 *    Work items are (group of OC blocks, chunk of rows), OC blocks outer,
 *    so the weights stream once per row chunk and once in total at N <= 64.
 *  - "inner_product:ref": the scalar cap and every other layout combination.
 * Items are split across the OpenMP threads. */
#include "primitives/ip/ip.h"

#include "primitives/cache.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#define IP_ERR(status, ...) lg__error((status), where, __VA_ARGS__)

/* Rows per work item. */
#define NCHUNK 64
/* Multiply-adds from which all threads run. */
#define PAR_WORK 32768

typedef struct ip_data {
    lg__ip_pd pd;
    lg__ip_plan plan;
    lg__ip_fn tiles; /* NULL: the reference */
    lg__ip_tabs tabs;
    int64_t unit; /* OC blocks per work item */
} ip_data;

/* ------------------------------------------------------------------------ */
/* Layouts                                                                  */
/* ------------------------------------------------------------------------ */

bool lg__ip_weights_tag(const lg_md *src, int ob, char *wtag) {
    char tag[LG_TAG_MAX * 2];
    if (src->format_kind != LG_FMT_BLOCKED || !lg__md_tag_str(src, tag)) return false;
    /* Dim 0 must be an unblocked outer letter. */
    if (strchr(tag, 'A')) return false;
    char *a = strchr(tag, 'a');
    if (!a) return false;
    for (const char *c = a + 1; *c; c++)
        if (*c == 'a') return false;
    if (a != tag && src->dims[0] > 1) return false; /* dim 0 is not outermost */
    size_t n = 0;
    wtag[n++] = 'A';
    for (const char *c = tag; *c; c++)
        if (c != a) wtag[n++] = *c;
    wtag[n] = 0;
    if (n + 8 > LG_TAG_MAX) return false;
    snprintf(wtag + n, LG_TAG_MAX + 1 - n, "%da", ob);
    return true;
}

static int isa_block(lg__isa isa) {
    return isa == LG_ISA_AVX512 ? 16 : 8;
}

/* The "any" src tag (ip.h): ab for 2D, aBx{B}b otherwise, plain at the
 * scalar cap. */
static void src_tag(lg__isa isa, int nd, char *tag) {
    int n = 0;
    tag[n++] = 'a';
    tag[n++] = nd > 2 && isa != LG_ISA_SCALAR ? 'B' : 'b';
    for (int d = 2; d < nd; d++) tag[n++] = (char)('a' + d);
    tag[n] = 0;
    if (nd > 2 && isa != LG_ISA_SCALAR) snprintf(tag + n, 8, "%db", isa_block(isa));
}

/* Plain tag of nd dims ("abcd"). */
static void plain_tag(int nd, char *tag) {
    for (int d = 0; d < nd; d++) tag[d] = (char)('a' + d);
    tag[nd] = 0;
}

/* ------------------------------------------------------------------------ */
/* Kernel object                                                            */
/* ------------------------------------------------------------------------ */

static lg_status ip_execute(const lg_kernel *k, void *const *bufs) {
    const ip_data *s = k->data;
    const float *src = bufs[0], *wei = bufs[1];
    const float *bias = s->pd.has_bias ? bufs[2] : NULL;
    float *dst = bufs[s->pd.has_bias ? 3 : 2];
    if (!s->tiles) {
        lg__ip_ref(&s->pd, &s->tabs, src, wei, bias, dst);
        return LG_OK;
    }
    const lg__ip_plan *p = &s->plan;
    int64_t nob = (p->nocb + s->unit - 1) / s->unit, nch = (p->n + NCHUNK - 1) / NCHUNK;
    int64_t items = nob * nch;
    int nthr = p->n * p->oc * p->kp >= PAR_WORK && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > items) nthr = (int)items;
    if (p->n < 4) {
        /* GEMV (fewer than 4 rows): each thread an equal
         * range of OC blocks (items of `unit` blocks split 125 blocks of
         * 2048->1000 into 64 + 61 on two threads). */
        if (nthr > p->nocb) nthr = (int)p->nocb;
        if (nthr == 1) {
            s->tiles(p, src, wei, bias, dst, 0, p->n, 0, p->nocb);
            return LG_OK;
        }
#pragma omp parallel num_threads(nthr)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t b0 = p->nocb * t / nt, b1 = p->nocb * (t + 1) / nt;
            if (b0 < b1) s->tiles(p, src, wei, bias, dst, 0, p->n, b0, b1);
        }
        return LG_OK;
    }
    if (nthr == 1) { /* no team: small problems would pay for it */
        for (int64_t i = 0; i < items; i++) {
            int64_t ob = i / nch, nc = i % nch;
            int64_t b0 = ob * s->unit, b1 = b0 + s->unit < p->nocb ? b0 + s->unit : p->nocb;
            int64_t n0 = nc * NCHUNK, n1 = n0 + NCHUNK < p->n ? n0 + NCHUNK : p->n;
            s->tiles(p, src, wei, bias, dst, n0, n1, b0, b1);
        }
        return LG_OK;
    }
#pragma omp parallel num_threads(nthr)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t i0 = items * t / nt, i1 = items * (t + 1) / nt;
        for (int64_t i = i0; i < i1; i++) {
            int64_t ob = i / nch, nc = i % nch;
            int64_t b0 = ob * s->unit, b1 = b0 + s->unit < p->nocb ? b0 + s->unit : p->nocb;
            int64_t n0 = nc * NCHUNK, n1 = n0 + NCHUNK < p->n ? n0 + NCHUNK : p->n;
            s->tiles(p, src, wei, bias, dst, n0, n1, b0, b1);
        }
    }
    return LG_OK;
}

static void ip_destroy(lg_kernel *k) {
    ip_data *s = k->data;
    if (s) lg__ip_tabs_free(&s->tabs);
    lg__free(s);
}

static const lg__kernel_ops ip_ops = {ip_execute, ip_destroy};

/* True if the layouts fit the vector path for OC block vl; fills the plan. */
static bool make_plan(const lg__ip_pd *pd, int vl, lg__ip_plan *p) {
    char wtag[LG_TAG_MAX + 1];
    if (!lg__ip_weights_tag(&pd->src, vl, wtag)) return false;
    lg_md want;
    if (lg_md_init_tag(&want, pd->wei.ndims, pd->wei.dims, LG_F32, wtag) != LG_OK ||
        !lg_md_equal(&want, &pd->wei))
        return false;
    if (lg_md_init_tag(&want, 2, pd->dst.dims, LG_F32, "ab") != LG_OK ||
        !lg_md_equal(&want, &pd->dst))
        return false;
    memset(p, 0, sizeof *p);
    p->n = pd->src.dims[0];
    p->oc = pd->dst.dims[1];
    p->kp = lg__md_nelems_padded(&pd->src) / p->n;
    p->nocb = (p->oc + vl - 1) / vl;
    p->vl = vl;
    if (lg__md_nelems_padded(&pd->wei) != p->nocb * vl * p->kp) return false;
    p->pd = pd;
    for (int i = 0; i < pd->npost; i++) {
        if (pd->post[i].kind == LG_POST_SUM) {
            p->has_sum = true;
            continue;
        }
        p->epd[i].alg = pd->post[i].alg;
        p->epd[i].alpha = pd->post[i].alpha;
        p->epd[i].beta = pd->post[i].beta;
    }
    return true;
}

static void describe(const lg__ip_pd *pd, char *buf, size_t len) {
    char s[96], w[96], d[96];
    lg__md_describe(&pd->src, s, sizeof s);
    lg__md_describe(&pd->wei, w, sizeof w);
    lg__md_describe(&pd->dst, d, sizeof d);
    int n = snprintf(buf, len, "src:%s wei:%s", s, w);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " dst:%s%s post:%d", d, pd->has_bias ? " bias" : "",
                 pd->npost);
}

static lg_status build_ip(const void *problem, lg_kernel **out) {
    static const char where[] = "lg_inner_product_create";
    const lg__ip_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_IP, &ip_ops, sizeof(ip_data));
    if (!k) return IP_ERR(LG_OUT_OF_MEMORY, "cannot allocate an inner-product kernel");
    ip_data *s = k->data;
    s->pd = *pd;
    lg__isa isa = lg__cpu_isa();
    if (isa != LG_ISA_SCALAR && make_plan(&s->pd, isa_block(isa), &s->plan)) {
        s->plan.pd = &s->pd;
        s->tiles = isa == LG_ISA_AVX512 ? lg__ip_tiles_avx512 : lg__ip_tiles_avx2;
        /* OC blocks per item: the tile width of the rows an item holds. */
        s->unit = s->plan.n < 3 ? 4 : 3;
        snprintf(k->impl, sizeof k->impl, "inner_product:%s:%s", lg__isa_name(isa),
                 s->plan.n < 4 ? "gemv" : "gemm");
    } else {
        if (lg__ip_tabs_init(&s->pd, &s->tabs) != LG_OK) {
            lg_kernel_destroy(k);
            return IP_ERR(LG_OUT_OF_MEMORY, "cannot allocate the inner product's tables");
        }
        snprintf(k->impl, sizeof k->impl, "inner_product:ref");
    }
    describe(pd, k->desc, sizeof k->desc);
    lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src, 0);
    lg__kernel_add_slot(k, LG_ARG_WEIGHTS, true, &pd->wei, 0);
    if (pd->has_bias) lg__kernel_add_slot(k, LG_ARG_BIAS, true, &pd->bias, 0);
    lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    *out = k;
    return LG_OK;
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */
/* ------------------------------------------------------------------------ */

static lg_status check_md(const lg_md *md, const char *name, const char *where) {
    char what[16];
    snprintf(what, sizeof what, "%s md", name);
    LG_CHECK(lg__md_check(md, where, what));
    if (md->dtype != LG_F32)
        return IP_ERR(LG_UNIMPLEMENTED, "%s md data type is %s: inner product computes f32 only",
                      name, lg_dtype_str(md->dtype));
    return LG_OK;
}

static lg_status check_shapes(const lg_md *src, const lg_md *wei, const lg_md *bias,
                              const lg_md *dst, const char *where) {
    int nd = src->ndims;
    if (nd < 2 || nd > 5)
        return IP_ERR(LG_INVALID_ARGUMENT,
                      "src md has %d dims: inner product takes 2 to 5 (N x C x spatial)", nd);
    for (int d = 0; d < nd; d++)
        if (src->dims[d] < 1)
            return IP_ERR(LG_INVALID_ARGUMENT, "src md dim %d is %lld (must be >= 1)", d,
                          (long long)src->dims[d]);
    if (wei->ndims != nd)
        return IP_ERR(LG_INVALID_ARGUMENT,
                      "weights md has %d dims, src md %d (weights are OC x C x spatial)",
                      wei->ndims, nd);
    if (wei->dims[0] < 1)
        return IP_ERR(LG_INVALID_ARGUMENT, "weights md dim 0 (OC) is %lld (must be >= 1)",
                      (long long)wei->dims[0]);
    for (int d = 1; d < nd; d++)
        if (wei->dims[d] != src->dims[d])
            return IP_ERR(LG_INVALID_ARGUMENT, "weights md dim %d is %lld, src md's %lld", d,
                          (long long)wei->dims[d], (long long)src->dims[d]);
    if (dst->ndims != 2)
        return IP_ERR(LG_INVALID_ARGUMENT, "dst md has %d dims: inner product writes N x OC",
                      dst->ndims);
    if (dst->dims[0] != src->dims[0] || dst->dims[1] != wei->dims[0])
        return IP_ERR(LG_INVALID_ARGUMENT,
                      "dst md is %lld x %lld: src batch and weights OC give %lld x %lld",
                      (long long)dst->dims[0], (long long)dst->dims[1], (long long)src->dims[0],
                      (long long)wei->dims[0]);
    if (bias && (bias->ndims != 1 || bias->dims[0] != wei->dims[0]))
        return IP_ERR(LG_INVALID_ARGUMENT,
                      "bias md must be 1D with %lld elements (OC); it has %d dims, the first %lld",
                      (long long)wei->dims[0], bias->ndims, (long long)bias->dims[0]);
    return LG_OK;
}

/* Resolve md (the `name` md) into out: "any" takes `tag`, anything else is
 * copied. Errors name `where` (NULL: quiet). */
static lg_status resolve(const lg_md *md, const char *tag, const char *name, const char *where,
                         lg_md *out) {
    lg_md r = *md;
    if (lg_md_is_any(md) && lg__md_init_tag(&r, md->ndims, md->dims, md->dtype, tag, NULL) != LG_OK)
        return IP_ERR(LG_INVALID_ARGUMENT,
                      "%s md 'any' cannot take layout %s (its padded size overflows int64)", name,
                      tag);
    lg__md_canon(&r, out);
    return LG_OK;
}

lg_status lg__ip_query(const lg_md *src, const lg_md *weights, const lg_md *bias, const lg_md *dst,
                       const lg_attr *attr, const char *where, lg__ip_pd *out) {
    LG_CHECK(check_md(src, "src", where));
    LG_CHECK(check_md(weights, "weights", where));
    LG_CHECK(check_md(dst, "dst", where));
    if (bias) LG_CHECK(check_md(bias, "bias", where));
    LG_CHECK(check_shapes(src, weights, bias, dst, where));
    LG_CHECK(lg__attr_check_post_only(attr, "inner product", where));
    if (bias && !lg_md_is_any(bias) &&
        (bias->blocking.strides[0] != 1 || bias->offset0 != 0 || bias->blocking.inner_nblks))
        return IP_ERR(LG_UNIMPLEMENTED, "bias md must be dense (tag \"a\")");

    lg__ip_pd pd;
    memset(&pd, 0, sizeof pd);
    lg__isa isa = lg__cpu_isa();
    int nd = src->ndims;
    char tag[LG_TAG_MAX + 1], wtag[LG_TAG_MAX + 1];
    src_tag(isa, nd, tag);
    LG_CHECK(resolve(src, tag, "src", where, &pd.src));
    if (isa == LG_ISA_SCALAR || !lg__ip_weights_tag(&pd.src, isa_block(isa), wtag))
        plain_tag(nd, wtag);
    LG_CHECK(resolve(weights, wtag, "weights", where, &pd.wei));
    LG_CHECK(resolve(dst, "ab", "dst", where, &pd.dst));
    if (bias) {
        pd.has_bias = 1;
        LG_CHECK(resolve(bias, "a", "bias", where, &pd.bias));
    }
    lg__attr_copy_post(attr, &pd.npost, pd.post);
    *out = pd;
    return LG_OK;
}

lg_status lg_inner_product_create(lg_kernel **k, const lg_md *src, const lg_md *weights,
                                  const lg_md *bias, const lg_md *dst, const lg_attr *attr) {
    static const char where[] = "lg_inner_product_create";
    if (!k) return IP_ERR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    *k = NULL;
    if (!src) return IP_ERR(LG_INVALID_ARGUMENT, "src md is NULL");
    if (!weights) return IP_ERR(LG_INVALID_ARGUMENT, "weights md is NULL");
    if (!dst) return IP_ERR(LG_INVALID_ARGUMENT, "dst md is NULL");
    lg__ip_pd pd;
    LG_CHECK(lg__ip_query(src, weights, bias, dst, attr, where, &pd));
    return lg__cache_get(LG_KIND_IP, &pd, sizeof pd, build_ip, k);
}
