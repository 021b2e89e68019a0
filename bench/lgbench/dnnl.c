/* oneDNN counterparts of lgbench's problems (oneDNN 2.x C API), for the
 * side-by-side figures of performance mode. lgraph's lg_md follows oneDNN's
 * blocked model field for field (tests/memory/test_dnnl.c checks every
 * format tag), so a descriptor translates directly. Inputs given by the
 * caller are shared; outputs get buffers of their own, so that oneDNN never
 * touches lgraph's results. */
#include "lgb_dnnl.h"

#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 8

struct lgb_dnnl {
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[MAX_ARGS];
    dnnl_memory_t mems[MAX_ARGS];
    const char *impl;
};

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static bool init_engine(char *why, size_t len) {
    if (stream) return true;
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        snprintf(why, len, "oneDNN: no CPU engine");
        return false;
    }
    return true;
}

static dnnl_data_type_t dnnl_dt(lg_dtype dt) {
    switch (dt) {
    case LG_F32:
        return dnnl_f32;
    case LG_F16:
        return dnnl_f16;
    case LG_BF16:
        return dnnl_bf16;
    case LG_S32:
        return dnnl_s32;
    case LG_S8:
        return dnnl_s8;
    case LG_U8:
        return dnnl_u8;
    default:
        return dnnl_data_type_undef;
    }
}

/* The oneDNN descriptor of md: "any" stays "any"; a concrete layout is
 * copied field by field. */
static dnnl_memory_desc_t to_dnnl(const lg_md *md) {
    dnnl_memory_desc_t d;
    memset(&d, 0, sizeof d);
    dnnl_dims_t dims;
    for (int i = 0; i < md->ndims; i++) dims[i] = md->dims[i];
    if (lg_md_is_any(md)) {
        dnnl_memory_desc_init_by_tag(&d, md->ndims, dims, dnnl_dt(md->dtype), dnnl_format_tag_any);
        return d;
    }
    d.ndims = md->ndims;
    d.data_type = dnnl_dt(md->dtype);
    d.offset0 = md->offset0;
    d.format_kind = dnnl_blocked;
    for (int i = 0; i < md->ndims; i++) {
        d.dims[i] = md->dims[i];
        d.padded_dims[i] = md->padded_dims[i];
        d.format_desc.blocking.strides[i] = md->blocking.strides[i];
    }
    d.format_desc.blocking.inner_nblks = md->blocking.inner_nblks;
    for (int i = 0; i < md->blocking.inner_nblks; i++) {
        d.format_desc.blocking.inner_blks[i] = md->blocking.inner_blks[i];
        d.format_desc.blocking.inner_idxs[i] = md->blocking.inner_idxs[i];
    }
    return d;
}

static lgb_dnnl *fail(lgb_dnnl *p, char *why, size_t len, const char *what) {
    snprintf(why, len, "oneDNN: %s", what);
    lgb_dnnl_destroy(p);
    return NULL;
}

/* Bind argument `arg` (the md of query q, index) to buf (NULL: a zeroed
 * buffer of oneDNN's own, laid out as the primitive chose). */
static bool bind(lgb_dnnl *p, int arg, dnnl_query_t q, int index, void *buf) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(p->pd, q, index);
    if (!md || p->nargs == MAX_ARGS) return false;
    dnnl_memory_t m;
    if (dnnl_memory_create(&m, md, engine, buf ? buf : DNNL_MEMORY_ALLOCATE) != dnnl_success)
        return false;
    if (!buf) {
        void *h = NULL;
        dnnl_memory_get_data_handle(m, &h);
        if (h) memset(h, 0, dnnl_memory_desc_get_size(md));
    }
    p->mems[p->nargs] = m;
    p->args[p->nargs].arg = arg;
    p->args[p->nargs].memory = m;
    p->nargs++;
    return true;
}

/* Create the primitive from op_desc (or take pd when already made). */
static lgb_dnnl *finish(lgb_dnnl *p, char *why, size_t len) {
    if (dnnl_primitive_create(&p->prim, p->pd) != dnnl_success)
        return fail(p, why, len, "primitive creation failed");
    p->impl = "";
    dnnl_primitive_desc_query(p->pd, dnnl_query_impl_info_str, 0, &p->impl);
    return p;
}

static lgb_dnnl *make_pd(const void *op_desc, dnnl_primitive_attr_t attr,
                         dnnl_primitive_desc_t hint, char *why, size_t len) {
    lgb_dnnl *p = calloc(1, sizeof *p);
    if (!p) return fail(p, why, len, "out of memory");
    if (dnnl_primitive_desc_create(&p->pd, op_desc, attr, engine, hint) != dnnl_success)
        return fail(p, why, len, "unimplemented");
    return p;
}

/* Row-major index over the dims of `mask` for the full index idx. */
static int64_t mask_index(const int64_t *dims, int nd, int mask, const int64_t *idx) {
    int64_t k = 0;
    for (int d = 0; d < nd; d++)
        if (mask & (1 << d)) k = k * dims[d] + idx[d];
    return k;
}

/* oneDNN 2.x reorders take one output scale: lgraph's scale_src /
 * scale_dst, over the union of both masks. */
static bool output_scales(dnnl_primitive_attr_t attr, const lg_md *md, const lgb_quant_bufs *q) {
    int ms = q->scales[0] ? q->scale_mask[0] : 0, mdst = q->scales[1] ? q->scale_mask[1] : 0;
    int mask = ms | mdst, nd = md->ndims;
    int64_t count = 1, ext[LG_MAX_NDIMS], idx[LG_MAX_NDIMS] = {0};
    for (int d = 0; d < nd; d++) {
        ext[d] = mask & (1 << d) ? md->dims[d] : 1;
        count *= ext[d];
    }
    float *v = malloc(sizeof(float) * (size_t)(count > 0 ? count : 1));
    if (!v) return false;
    for (int64_t i = 0; i < count; i++) {
        int64_t r = i;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = r % ext[d];
            r /= ext[d];
        }
        float s = q->scales[0] ? q->scales[0][mask_index(md->dims, nd, ms, idx)] : 1.0f;
        float t = q->scales[1] ? q->scales[1][mask_index(md->dims, nd, mdst, idx)] : 1.0f;
        v[i] = s / t;
    }
    bool ok = dnnl_primitive_attr_set_output_scales(attr, count, mask, v) == dnnl_success;
    free(v);
    return ok;
}

static int64_t mask_count(const lg_md *md, int mask) {
    int64_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= md->dims[d];
    return n;
}

lgb_dnnl *lgb_dnnl_reorder(const lg_md *src, const lg_md *dst, const lgb_attr_spec *a,
                           const lgb_quant_bufs *q, void *sbuf, void *dbuf, char *why, size_t len) {
    (void)a;
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t s = to_dnnl(src), d = to_dnnl(dst);
    dnnl_primitive_attr_t attr;
    if (dnnl_primitive_attr_create(&attr) != dnnl_success) return fail(NULL, why, len, "attr");
    bool ok = true;
    if (q->scales[0] || q->scales[1]) ok = output_scales(attr, src, q);
    for (int i = 0; i < 2 && ok; i++)
        if (q->zps[i])
            ok = dnnl_primitive_attr_set_zero_points(attr, i ? DNNL_ARG_DST : DNNL_ARG_SRC,
                                                     mask_count(src, q->zp_mask[i]), q->zp_mask[i],
                                                     q->zps[i]) == dnnl_success;
    for (int i = 0; i < a->npost && ok; i++) {
        dnnl_post_ops_t po;
        ok = a->post[i].kind == LGB_POST_SUM && dnnl_post_ops_create(&po) == dnnl_success;
        if (!ok) break;
        ok = dnnl_post_ops_append_sum(po, a->post[i].scale) == dnnl_success &&
             dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
        dnnl_post_ops_destroy(po);
    }
    lgb_dnnl *p = ok ? calloc(1, sizeof *p) : NULL;
    if (p &&
        dnnl_reorder_primitive_desc_create(&p->pd, &s, engine, &d, engine, attr) != dnnl_success) {
        dnnl_primitive_attr_destroy(attr);
        return fail(p, why, len, "unimplemented");
    }
    dnnl_primitive_attr_destroy(attr);
    if (!p) return fail(p, why, len, ok ? "out of memory" : "attributes not supported");
    if (!bind(p, DNNL_ARG_FROM, dnnl_query_src_md, 0, sbuf) ||
        !bind(p, DNNL_ARG_TO, dnnl_query_dst_md, 0, dbuf))
        return fail(p, why, len, "memory");
    return finish(p, why, len);
}

lgb_dnnl *lgb_dnnl_shuffle(lg_prop prop, const lg_md *md, int axis, int64_t group, void *in,
                           void *out, char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t d = to_dnnl(md);
    dnnl_shuffle_desc_t sd;
    if (prop == LG_FORWARD) {
        if (dnnl_shuffle_forward_desc_init(&sd, dnnl_forward_inference, &d, axis, group) !=
            dnnl_success)
            return fail(NULL, why, len, "bad shuffle");
        lgb_dnnl *p = make_pd(&sd, NULL, NULL, why, len);
        if (!p) return NULL;
        if (!bind(p, DNNL_ARG_SRC, dnnl_query_src_md, 0, in) ||
            !bind(p, DNNL_ARG_DST, dnnl_query_dst_md, 0, out))
            return fail(p, why, len, "memory");
        return finish(p, why, len);
    }
    /* Backward needs a forward hint. */
    dnnl_shuffle_desc_t fd;
    if (dnnl_shuffle_forward_desc_init(&fd, dnnl_forward_training, &d, axis, group) !=
            dnnl_success ||
        dnnl_shuffle_backward_desc_init(&sd, &d, axis, group) != dnnl_success)
        return fail(NULL, why, len, "bad shuffle");
    lgb_dnnl *h = make_pd(&fd, NULL, NULL, why, len);
    if (!h) return NULL;
    lgb_dnnl *p = make_pd(&sd, NULL, h->pd, why, len);
    lgb_dnnl_destroy(h);
    if (!p) return NULL;
    if (!bind(p, DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, 0, in) ||
        !bind(p, DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md, 0, out))
        return fail(p, why, len, "memory");
    return finish(p, why, len);
}

static bool eltwise_alg(lg_eltwise_alg alg, float alpha, float beta, dnnl_alg_kind_t *out) {
    switch (alg) {
    case LG_ELTWISE_RELU:
        *out = dnnl_eltwise_relu;
        return true;
    case LG_ELTWISE_ELU:
        *out = dnnl_eltwise_elu;
        return true;
    case LG_ELTWISE_TANH:
        *out = dnnl_eltwise_tanh;
        return true;
    case LG_ELTWISE_LOGISTIC:
        *out = dnnl_eltwise_logistic;
        return true;
    case LG_ELTWISE_GELU_TANH:
        *out = dnnl_eltwise_gelu_tanh;
        return true;
    case LG_ELTWISE_GELU_ERF:
        *out = dnnl_eltwise_gelu_erf;
        return true;
    case LG_ELTWISE_SWISH:
        *out = dnnl_eltwise_swish;
        return true;
    case LG_ELTWISE_EXP:
        *out = dnnl_eltwise_exp;
        return true;
    case LG_ELTWISE_LOG:
        *out = dnnl_eltwise_log;
        return true;
    case LG_ELTWISE_ABS:
        *out = dnnl_eltwise_abs;
        return true;
    case LG_ELTWISE_SQRT:
        *out = dnnl_eltwise_sqrt;
        return true;
    case LG_ELTWISE_SQUARE:
        *out = dnnl_eltwise_square;
        return true;
    case LG_ELTWISE_LINEAR:
        *out = dnnl_eltwise_linear;
        return true;
    case LG_ELTWISE_CLIP:
        *out = dnnl_eltwise_clip;
        return true;
    case LG_ELTWISE_HARDSWISH:
        /* oneDNN 2.6's hardswish is the fixed x * relu6(x + 3) / 6. */
        *out = dnnl_eltwise_hardswish;
        return alpha > 0.1666f && alpha < 0.1667f && beta == 0.5f;
    default:
        return false; /* hardsigmoid: not in oneDNN 2.6 */
    }
}

lgb_dnnl *lgb_dnnl_eltwise(lg_eltwise_alg alg, float alpha, float beta, const lg_md *md, void *src,
                           void *dst, char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    dnnl_alg_kind_t dalg;
    if (!eltwise_alg(alg, alpha, beta, &dalg)) return fail(NULL, why, len, "no such algorithm");
    dnnl_memory_desc_t d = to_dnnl(md);
    dnnl_eltwise_desc_t ed;
    if (dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, dalg, &d, alpha, beta) !=
        dnnl_success)
        return fail(NULL, why, len, "bad eltwise");
    lgb_dnnl *p = make_pd(&ed, NULL, NULL, why, len);
    if (!p) return NULL;
    if (!bind(p, DNNL_ARG_SRC, dnnl_query_src_md, 0, src) ||
        !bind(p, DNNL_ARG_DST, dnnl_query_dst_md, 0, dst))
        return fail(p, why, len, "memory");
    return finish(p, why, len);
}

lgb_dnnl *lgb_dnnl_pool(const lg_pool_params *p, const lg_md *src, const lg_md *dst, void *sbuf,
                        void *dbuf, char *why, size_t len) {
    static const dnnl_alg_kind_t algs[] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
                                           dnnl_pooling_avg_exclude_padding};
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t s = to_dnnl(src), d = to_dnnl(dst);
    dnnl_dims_t k, st, dl, pl, pr;
    for (int i = 0; i < src->ndims - 2; i++) {
        k[i] = p->kernel[i];
        st[i] = p->strides[i];
        dl[i] = p->dilates[i];
        pl[i] = p->pad_l[i];
        pr[i] = p->pad_r[i];
    }
    dnnl_pooling_v2_desc_t pd;
    if (dnnl_pooling_v2_forward_desc_init(&pd, dnnl_forward_inference, algs[p->alg], &s, &d, st, k,
                                          dl, pl, pr) != dnnl_success)
        return fail(NULL, why, len, "bad pooling");
    lgb_dnnl *q = make_pd(&pd, NULL, NULL, why, len);
    if (!q) return NULL;
    if (!bind(q, DNNL_ARG_SRC, dnnl_query_src_md, 0, sbuf) ||
        !bind(q, DNNL_ARG_DST, dnnl_query_dst_md, 0, dbuf))
        return fail(q, why, len, "memory");
    return finish(q, why, len);
}

lgb_dnnl *lgb_dnnl_softmax(lg_softmax_alg alg, int axis, const lg_md *src, const lg_md *dst,
                           void *sbuf, void *dbuf, char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t s = to_dnnl(src), d = to_dnnl(dst);
    dnnl_softmax_v2_desc_t sd;
    if (dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference,
                                          alg == LG_SOFTMAX ? dnnl_softmax_accurate
                                                            : dnnl_softmax_log,
                                          &s, &d, axis) != dnnl_success)
        return fail(NULL, why, len, "bad softmax");
    lgb_dnnl *q = make_pd(&sd, NULL, NULL, why, len);
    if (!q) return NULL;
    if (!bind(q, DNNL_ARG_SRC, dnnl_query_src_md, 0, sbuf) ||
        !bind(q, DNNL_ARG_DST, dnnl_query_dst_md, 0, dbuf))
        return fail(q, why, len, "memory");
    return finish(q, why, len);
}

lgb_dnnl *lgb_dnnl_bnorm(const lg_md *md, float eps, unsigned flags, void *sbuf, void *dbuf,
                         float *mean, float *var, float *scale, float *shift, char *why,
                         size_t len) {
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t d = to_dnnl(md);
    dnnl_batch_normalization_desc_t bd;
    /* lgraph's flags are oneDNN's values; the statistics are always given. */
    if (dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_inference, &d, eps,
                                                   flags | dnnl_use_global_stats) != dnnl_success)
        return fail(NULL, why, len, "bad batch normalization");
    lgb_dnnl *q = make_pd(&bd, NULL, NULL, why, len);
    if (!q) return NULL;
    bool ok = bind(q, DNNL_ARG_SRC, dnnl_query_src_md, 0, sbuf) &&
              bind(q, DNNL_ARG_DST, dnnl_query_dst_md, 0, dbuf) &&
              bind(q, DNNL_ARG_MEAN, dnnl_query_src_md, 1, mean) &&
              bind(q, DNNL_ARG_VARIANCE, dnnl_query_src_md, 2, var);
    if (ok && (flags & LG_BNORM_USE_SCALE))
        ok = bind(q, DNNL_ARG_SCALE, dnnl_query_weights_md, 0, scale);
    if (ok && (flags & LG_BNORM_USE_SHIFT))
        ok = bind(q, DNNL_ARG_SHIFT, dnnl_query_weights_md, 0, shift);
    if (!ok) return fail(q, why, len, "memory");
    return finish(q, why, len);
}

lgb_dnnl *lgb_dnnl_binary(lg_binary_alg alg, const lg_md *s0, const lg_md *s1, const lg_md *dst,
                          void *b0, void *b1, void *bd, char *why, size_t len) {
    static const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_sub, dnnl_binary_mul,
                                           dnnl_binary_div, dnnl_binary_min, dnnl_binary_max};
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t d0 = to_dnnl(s0), d1 = to_dnnl(s1), dd = to_dnnl(dst);
    dnnl_binary_desc_t bdsc;
    if (dnnl_binary_desc_init(&bdsc, algs[alg], &d0, &d1, &dd) != dnnl_success)
        return fail(NULL, why, len, "bad binary");
    lgb_dnnl *p = make_pd(&bdsc, NULL, NULL, why, len);
    if (!p) return NULL;
    if (!bind(p, DNNL_ARG_SRC_0, dnnl_query_src_md, 0, b0) ||
        !bind(p, DNNL_ARG_SRC_1, dnnl_query_src_md, 1, b1) ||
        !bind(p, DNNL_ARG_DST, dnnl_query_dst_md, 0, bd))
        return fail(p, why, len, "memory");
    return finish(p, why, len);
}

/* An attribute holding a's post-op chain; false if oneDNN refuses it. */
static bool post_attr(const lgb_attr_spec *a, dnnl_primitive_attr_t *out) {
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    if (dnnl_primitive_attr_create(&attr) != dnnl_success) return false;
    if (dnnl_post_ops_create(&po) != dnnl_success) {
        dnnl_primitive_attr_destroy(attr);
        return false;
    }
    bool ok = true;
    for (int i = 0; i < a->npost && ok; i++) {
        const lgb_post *q = &a->post[i];
        dnnl_alg_kind_t alg;
        if (q->kind == LGB_POST_SUM)
            ok = dnnl_post_ops_append_sum(po, q->scale) == dnnl_success;
        else if (q->kind != LGB_POST_ELTWISE)
            ok = false;
        else
            ok = eltwise_alg(q->alg, q->alpha, q->beta, &alg) &&
                 dnnl_post_ops_append_eltwise(po, 1.0f, alg, q->alpha, q->beta) == dnnl_success;
    }
    ok = ok && dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    dnnl_post_ops_destroy(po);
    if (!ok) {
        dnnl_primitive_attr_destroy(attr);
        return false;
    }
    *out = attr;
    return true;
}

/* The primitive of op desc `desc` with a's post-ops, bound to src,
 * weights, bias (optional) and dst; inputs given as "any" get oneDNN's own
 * buffers in the layout it chose (conv and inner product). */
static lgb_dnnl *weighted(const void *desc, const lg_md *src, const lg_md *wei, const lg_md *bias,
                          const lg_md *dst, const lgb_attr_spec *a, void *sbuf, void *wbuf,
                          void *bbuf, void *dbuf, char *why, size_t len) {
    dnnl_primitive_attr_t attr;
    if (!post_attr(a, &attr)) return fail(NULL, why, len, "post-ops not supported");
    lgb_dnnl *p = make_pd(desc, attr, NULL, why, len);
    dnnl_primitive_attr_destroy(attr);
    if (!p) return NULL;
    if (!bind(p, DNNL_ARG_SRC, dnnl_query_src_md, 0, lg_md_is_any(src) ? NULL : sbuf) ||
        !bind(p, DNNL_ARG_WEIGHTS, dnnl_query_weights_md, 0, lg_md_is_any(wei) ? NULL : wbuf) ||
        (bias && !bind(p, DNNL_ARG_BIAS, dnnl_query_weights_md, 1, bbuf)) ||
        !bind(p, DNNL_ARG_DST, dnnl_query_dst_md, 0, lg_md_is_any(dst) ? NULL : dbuf))
        return fail(p, why, len, "memory");
    return finish(p, why, len);
}

lgb_dnnl *lgb_dnnl_conv(const lg_conv_params *cp, const lg_md *src, const lg_md *wei,
                        const lg_md *bias, const lg_md *dst, const lgb_attr_spec *a, void *sbuf,
                        void *wbuf, void *bbuf, void *dbuf, char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    int sp = src->ndims - 2;
    dnnl_dims_t st, dl, pl, pr;
    for (int i = 0; i < sp; i++) {
        st[i] = cp->strides[i];
        dl[i] = cp->dilates[i];
        pl[i] = cp->pad_l[i];
        pr[i] = cp->pad_r[i];
    }
    dnnl_memory_desc_t s = to_dnnl(src), w = to_dnnl(wei), d = to_dnnl(dst), b;
    if (bias) b = to_dnnl(bias);
    dnnl_convolution_desc_t cd;
    if (dnnl_dilated_convolution_forward_desc_init(
            &cd, dnnl_forward_inference, dnnl_convolution_direct, &s, &w, bias ? &b : NULL, &d, st,
            dl, pl, pr) != dnnl_success)
        return fail(NULL, why, len, "bad convolution");
    return weighted(&cd, src, wei, bias, dst, a, sbuf, wbuf, bbuf, dbuf, why, len);
}

lgb_dnnl *lgb_dnnl_ip(const lg_md *src, const lg_md *wei, const lg_md *bias, const lg_md *dst,
                      const lgb_attr_spec *a, void *sbuf, void *wbuf, void *bbuf, void *dbuf,
                      char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    dnnl_memory_desc_t s = to_dnnl(src), w = to_dnnl(wei), d = to_dnnl(dst), b;
    if (bias) b = to_dnnl(bias);
    dnnl_inner_product_desc_t ipd;
    if (dnnl_inner_product_forward_desc_init(&ipd, dnnl_forward_inference, &s, &w, bias ? &b : NULL,
                                             &d) != dnnl_success)
        return fail(NULL, why, len, "bad inner product");
    return weighted(&ipd, src, wei, bias, dst, a, sbuf, wbuf, bbuf, dbuf, why, len);
}

void lgb_dnnl_run(void *prim) {
    lgb_dnnl *p = prim;
    dnnl_primitive_execute(p->prim, stream, p->nargs, p->args);
    dnnl_stream_wait(stream);
}

const char *lgb_dnnl_impl(const lgb_dnnl *p) {
    return p && p->impl ? p->impl : "";
}

void lgb_dnnl_destroy(lgb_dnnl *p) {
    if (!p) return;
    for (int i = 0; i < p->nargs; i++) dnnl_memory_destroy(p->mems[i]);
    if (p->prim) dnnl_primitive_destroy(p->prim);
    if (p->pd) dnnl_primitive_desc_destroy(p->pd);
    free(p);
}

lgb_dnnl *lgb_dnnl_concat(int n, const lg_md *srcs, const lg_md *dst, int axis, void *const *sbufs,
                          void *dbuf, char *why, size_t len) {
    if (!init_engine(why, len)) return NULL;
    if (n + 1 > MAX_ARGS) return fail(NULL, why, len, "too many sources for this harness");
    dnnl_memory_desc_t ds[MAX_ARGS], dd = to_dnnl(dst);
    for (int i = 0; i < n; i++) ds[i] = to_dnnl(&srcs[i]);
    lgb_dnnl *p = calloc(1, sizeof *p);
    if (!p) return fail(p, why, len, "out of memory");
    if (dnnl_concat_primitive_desc_create(&p->pd, &dd, n, axis, ds, NULL, engine) != dnnl_success)
        return fail(p, why, len, "unimplemented");
    for (int i = 0; i < n; i++)
        if (!bind(p, DNNL_ARG_MULTIPLE_SRC + i, dnnl_query_src_md, i, sbufs[i]))
            return fail(p, why, len, "memory");
    if (!bind(p, DNNL_ARG_DST, dnnl_query_dst_md, 0, dbuf)) return fail(p, why, len, "memory");
    return finish(p, why, len);
}
