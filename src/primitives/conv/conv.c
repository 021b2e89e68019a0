/* lg_conv_create: validate, resolve "any" layouts (conv.h has the rule),
 * canonicalise into the cache key, and build the kernel object. The choice
 * of path (impl "conv:<isa>:<path>" or "conv:ref") is paths.c's; the
 * reference (ref.c) runs every layout combination the fast paths do not. */
#include "primitives/conv/conv.h"

#include "primitives/cache.h"
#include "primitives/conv/quant.h"
#include "primitives/conv/wino.h"

#include <stdio.h>
#include <string.h>

/* Errors of the helpers name `where`: the public entry point, or NULL for a
 * quiet query (lg__conv_query). */
#define CONV_ERR(status, ...) lg__error((status), where, __VA_ARGS__)

/* The first layer's input channel limit: up to this many, "any" src is
 * plain ncx and the weights are Oxi{B}o. */
#define FIRST_LAYER_IC 4

/* Append the nsp spatial letters starting at `first` to buf. */
static void spatial(char *buf, char first, int nsp) {
    size_t n = strlen(buf);
    for (int i = 0; i < nsp; i++) buf[n++] = (char)(first + i);
    buf[n] = 0;
}

void lg__conv_choose(lg__isa isa, int nsp, const lg__conv_shape *s, char *src_tag, char *wei_tag,
                     char *dst_tag) {
    bool grouped = s->g > 1;
    bool dw = grouped && s->icg == 1 && s->ocg == 1;
    bool first = !grouped && s->ic <= FIRST_LAYER_IC;
    int b = isa == LG_ISA_AVX512 ? 16 : 8;
    char blk[16];
    if (isa == LG_ISA_SCALAR) {
        strcpy(src_tag, "ab");
        spatial(src_tag, 'c', nsp);
        strcpy(dst_tag, src_tag);
        strcpy(wei_tag, grouped ? "abc" : "ab");
        spatial(wei_tag, grouped ? 'd' : 'c', nsp);
        return;
    }
    /* Activations: nCx{B}c (aBx{B}b), or ncx for a first layer's src. */
    strcpy(dst_tag, "aB");
    spatial(dst_tag, 'c', nsp);
    snprintf(blk, sizeof blk, "%db", b);
    strcat(dst_tag, blk);
    if (first) {
        strcpy(src_tag, "ab");
        spatial(src_tag, 'c', nsp);
    } else {
        strcpy(src_tag, dst_tag);
    }
    if (dw) { /* Goix{B}g */
        strcpy(wei_tag, "Abc");
        spatial(wei_tag, 'd', nsp);
        snprintf(blk, sizeof blk, "%da", b);
    } else if (first) { /* Oxi{B}o */
        strcpy(wei_tag, "A");
        spatial(wei_tag, 'c', nsp);
        snprintf(blk, sizeof blk, "b%da", b);
    } else if (grouped) { /* gOIx{B}i{B}o */
        strcpy(wei_tag, "aBC");
        spatial(wei_tag, 'd', nsp);
        snprintf(blk, sizeof blk, "%dc%db", b, b);
    } else { /* OIx{B}i{B}o */
        strcpy(wei_tag, "AB");
        spatial(wei_tag, 'c', nsp);
        snprintf(blk, sizeof blk, "%db%da", b, b);
    }
    strcat(wei_tag, blk);
}

/* ------------------------------------------------------------------------ */
/* Kernel object                                                            */
/* ------------------------------------------------------------------------ */

static lg_status conv_execute(const lg_kernel *k, void *const *bufs) {
    const lg__conv_kernel *c = k->data;
    return lg__conv_run(c, bufs[0], bufs[1], c->pd.has_bias ? bufs[2] : NULL,
                        bufs[c->pd.has_bias ? 3 : 2]);
}

static void conv_destroy(lg_kernel *k) {
    lg__conv_kernel *c = k->data;
    if (!c) return;
    lg__conv_tabs_free(&c->tabs);
    lg__conv_plan_free(c);
    lg__free(c);
}

static const lg__kernel_ops conv_ops = {conv_execute, conv_destroy};

/* A plan's constant weights: their Winograd transform kept by the step. */
static lg_status conv_prepare(const lg_kernel *k, void *const *bufs, void **state) {
    return lg__conv_prepare(k->data, bufs[1], state);
}

static lg_status conv_execute_prepared(const lg_kernel *k, void *const *bufs, void *state) {
    const lg__conv_kernel *c = k->data;
    return lg__conv_run_prepared(c, bufs[0], bufs[1], c->pd.has_bias ? bufs[2] : NULL,
                                 bufs[c->pd.has_bias ? 3 : 2], state);
}

static const lg__kernel_prep_ops conv_prep = {conv_prepare, conv_execute_prepared, lg__free};

static void describe(const lg__conv_pd *pd, char *buf, size_t len) {
    char s[96], w[96], d[96];
    lg__md_describe(&pd->src, s, sizeof s);
    lg__md_describe(&pd->wei, w, sizeof w);
    lg__md_describe(&pd->dst, d, sizeof d);
    int n = snprintf(buf, len, "src:%s wei:%s dst:%s g%lld%s", s, w, d, (long long)pd->groups,
                     pd->has_bias ? " bias" : "");
    for (int i = 0; i < pd->nsp && n > 0 && (size_t)n < len; i++)
        n +=
            snprintf(buf + n, len - (size_t)n, " s%lld:d%lld:p%lld/%lld", (long long)pd->strides[i],
                     (long long)pd->dilates[i], (long long)pd->pad_l[i], (long long)pd->pad_r[i]);
    if (pd->npost && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " post:%d", pd->npost);
}

static lg_status build_conv(const void *problem, lg_kernel **out) {
    static const char where[] = "lg_conv_create";
    const lg__conv_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_CONV, &conv_ops, sizeof(lg__conv_kernel));
    if (!k) return CONV_ERR(LG_OUT_OF_MEMORY, "cannot allocate a conv kernel");
    lg__conv_kernel *c = k->data;
    c->pd = *pd;
    lg__conv_shape_of(pd, &c->s);
    /* An empty dst needs no tables (lg__conv_plan picks the empty path). */
    bool empty = lg__md_nelems(&pd->dst) == 0;
    if ((!empty && lg__conv_tabs_init(pd, &c->tabs) != LG_OK) || lg__conv_plan(c) != LG_OK) {
        lg_kernel_destroy(k);
        return CONV_ERR(LG_OUT_OF_MEMORY, "cannot allocate the conv kernel's tables");
    }
    k->prep = &conv_prep;
    snprintf(k->impl, sizeof k->impl, "%s", c->impl);
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
        return CONV_ERR(LG_UNIMPLEMENTED, "%s data type is %s: conv computes f32 only", name,
                        lg_dtype_str(md->dtype));
    return LG_OK;
}

/* The geometry against the mds: parameters in range, output dims equal to
 * the formula. */
static lg_status check_geometry(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                                const lg_md *dst, int wg, const char *where) {
    int nsp = src->ndims - 2;
    static const char *const names[3][3] = {{"w", "", ""}, {"h", "w", ""}, {"d", "h", "w"}};
    for (int i = 0; i < nsp; i++) {
        const char *nm = names[nsp - 1][i];
        int64_t in = src->dims[2 + i], k = wei->dims[wg + 2 + i], want = dst->dims[2 + i], out;
        bool shape_fault;
        char why[256];
        if (lg__conv_out_size(p, nsp, i, in, k, &out, &shape_fault, why, sizeof why) != LG_OK)
            return CONV_ERR(LG_INVALID_ARGUMENT, "%s", why);
        if (out != want)
            return CONV_ERR(LG_INVALID_ARGUMENT,
                            "dst size %lld along %s: the geometry (input %lld, padding "
                            "%lld/%lld, kernel %lld, dilate %lld, stride %lld) gives %lld",
                            (long long)want, nm, (long long)in, (long long)p->pad_l[i],
                            (long long)p->pad_r[i], (long long)k, (long long)p->dilates[i],
                            (long long)p->strides[i], (long long)out);
    }
    return LG_OK;
}

/* Shapes: ndims, groups and channel counts. */
static lg_status check_shapes(const lg_conv_params *p, const lg_md *src, const lg_md *wei,
                              const lg_md *bias, const lg_md *dst, const char *where) {
    int nd = src->ndims;
    if (nd < 3 || nd > 5)
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "src has %d dims: conv takes 3 (1D), 4 (2D) or 5 (3D: N x C x D x H x W)",
                        nd);
    if (dst->ndims != nd)
        return CONV_ERR(LG_INVALID_ARGUMENT, "dst has %d dims, src %d", dst->ndims, nd);
    if (p->groups < 1)
        return CONV_ERR(LG_INVALID_ARGUMENT, "groups %lld: must be at least 1",
                        (long long)p->groups);
    int wg = p->groups > 1;
    if (wei->ndims != nd + wg)
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "weights have %d dims: with groups %lld and a %d-dim src they take %d (%s)",
                        wei->ndims, (long long)p->groups, nd, nd + wg,
                        wg ? "G x O/G x I/G x kernel" : "O x I x kernel");
    if (wg && wei->dims[0] != p->groups)
        return CONV_ERR(LG_INVALID_ARGUMENT, "weights G dim %lld differs from groups %lld",
                        (long long)wei->dims[0], (long long)p->groups);
    int64_t ic = src->dims[1], oc = dst->dims[1], g = p->groups;
    if (ic % g)
        return CONV_ERR(LG_INVALID_ARGUMENT, "groups %lld do not divide src channels %lld",
                        (long long)g, (long long)ic);
    if (oc % g)
        return CONV_ERR(LG_INVALID_ARGUMENT, "groups %lld do not divide dst channels %lld",
                        (long long)g, (long long)oc);
    int64_t wic, woc;
    if (!lg__mul_ok(wei->dims[wg + 1], g, &wic) || wic != ic)
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "src channels %lld differ from weights I %lld x groups %lld", (long long)ic,
                        (long long)wei->dims[wg + 1], (long long)g);
    if (!lg__mul_ok(wei->dims[wg], g, &woc) || woc != oc)
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "dst channels %lld differ from weights O %lld x groups %lld", (long long)oc,
                        (long long)wei->dims[wg], (long long)g);
    if (src->dims[0] != dst->dims[0])
        return CONV_ERR(LG_INVALID_ARGUMENT, "dst batch %lld differs from src batch %lld",
                        (long long)dst->dims[0], (long long)src->dims[0]);
    if (bias && (bias->ndims != 1 || bias->dims[0] != oc))
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "bias must be 1D with %lld elements (dst channels); it has %d dims, "
                        "the first %lld",
                        (long long)oc, bias->ndims, (long long)bias->dims[0]);
    return check_geometry(p, src, wei, dst, wg, where);
}

/* Resolve md into out: "any" takes `tag`, anything else is copied. */
static lg_status resolve(const lg_md *md, const char *tag, lg_md *out) {
    lg_md r = *md;
    if (lg_md_is_any(md)) {
        lg_status s = lg_md_init_tag(&r, md->ndims, md->dims, md->dtype, tag);
        if (s != LG_OK) return s;
    }
    lg__md_canon(&r, out);
    return LG_OK;
}

lg_status lg__conv_query(const lg_conv_params *p, const lg_md *src, const lg_md *weights,
                         const lg_md *bias, const lg_md *dst, const lg_attr *attr,
                         const char *where, lg__conv_pd *out) {
    LG_CHECK(check_md(src, "src", where));
    LG_CHECK(check_md(weights, "weights", where));
    LG_CHECK(check_md(dst, "dst", where));
    if (bias) LG_CHECK(check_md(bias, "bias", where));
    LG_CHECK(check_shapes(p, src, weights, bias, dst, where));
    LG_CHECK(lg__attr_check_post_only(attr, "conv", where));
    if (p->alg != LG_CONV_DIRECT && p->alg != LG_CONV_WINOGRAD && p->alg != LG_CONV_AUTO)
        return CONV_ERR(LG_INVALID_ARGUMENT,
                        "params alg %d is not an lg_conv_alg (0 direct, 1 winograd, 2 auto)",
                        (int)p->alg);

    lg__conv_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.nsp = src->ndims - 2;
    pd.groups = p->groups;
    for (int i = 0; i < pd.nsp; i++) {
        pd.strides[i] = p->strides[i];
        pd.dilates[i] = p->dilates[i];
        pd.pad_l[i] = p->pad_l[i];
        pd.pad_r[i] = p->pad_r[i];
    }
    /* The shape needs only dims, so "any" mds serve for it. */
    pd.src = *src;
    pd.wei = *weights;
    pd.dst = *dst;
    lg__conv_shape s;
    lg__conv_shape_of(&pd, &s);
    char st[LG_TAG_MAX + 1], wt[LG_TAG_MAX + 1], dt[LG_TAG_MAX + 1];
    lg__conv_choose(lg__cpu_isa(), pd.nsp, &s, st, wt, dt);
    memset(&pd.src, 0, sizeof pd.src);
    memset(&pd.wei, 0, sizeof pd.wei);
    memset(&pd.dst, 0, sizeof pd.dst);
    LG_CHECK(resolve(src, st, &pd.src));
    LG_CHECK(resolve(weights, wt, &pd.wei));
    LG_CHECK(resolve(dst, dt, &pd.dst));
    if (bias) {
        pd.has_bias = 1;
        LG_CHECK(resolve(bias, "a", &pd.bias));
    }
    lg__attr_copy_post(attr, &pd.npost, pd.post);
    pd.alg = (int32_t)p->alg;
    LG_CHECK(lg__conv_wino_check(&pd, where));
    *out = pd;
    return LG_OK;
}

lg_status lg_conv_create(lg_kernel **k, const lg_conv_params *p, const lg_md *src,
                         const lg_md *weights, const lg_md *bias, const lg_md *dst,
                         const lg_attr *attr) {
    if (!k) return LG_ERROR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    if (!p) return LG_ERROR(LG_INVALID_ARGUMENT, "conv params are NULL");
    if (!src) return LG_ERROR(LG_INVALID_ARGUMENT, "src md is NULL");
    if (!weights) return LG_ERROR(LG_INVALID_ARGUMENT, "weights md is NULL");
    if (!dst) return LG_ERROR(LG_INVALID_ARGUMENT, "dst md is NULL");
    /* Other data types, scales, zero points, typed sums, binary post-ops:
     * the conversion path (quant.h). */
    if (lg__convq_wanted(src, weights, bias, dst, attr))
        return lg__convq_create(k, p, src, weights, bias, dst, attr);
    lg__conv_pd pd;
    LG_CHECK(lg__conv_query(p, src, weights, bias, dst, attr, __func__, &pd));
    return lg__cache_get(LG_KIND_CONV, &pd, sizeof pd, build_conv, k);
}
