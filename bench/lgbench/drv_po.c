/* Attributes of the eltwise and binary drivers (drv_po.h). */
#include "drv_po.h"

#include <stdlib.h>
#include <string.h>

bool lgb_po_src1_md(const lgb_post *p, int i, const lg_md *dst, lg_md *m, lgb_result *res) {
    int mask;
    if (!lgb_mask_resolve(p->mask, dst->ndims, &mask))
        return lgb_skip(res, "invalid case (benchdnn skips it too)",
                        "post-op %d policy names a dim a %dD tensor lacks", i, dst->ndims),
               false;
    int64_t dims[LG_MAX_NDIMS];
    for (int d = 0; d < dst->ndims; d++) dims[d] = mask & (1 << d) ? dst->dims[d] : 1;
    return lgb_md(m, dst->ndims, dims, p->dt, p->tag, "post-op src1", res);
}

bool lgb_po_prelu(const lgb_post *p, int i, const lg_md *dst, lg_attr *attr, lgb_result *res) {
    int mask;
    if (!lgb_mask_resolve(p->mask, dst->ndims, &mask))
        return lgb_skip(res, "invalid case (benchdnn skips it too)",
                        "post-op %d policy names a dim a %dD tensor lacks", i, dst->ndims),
               false;
    return lgb_created(lg_attr_append_prelu(attr, mask), "lg_attr_append_prelu", res);
}

bool lgb_po_build(const lgb_attr_spec *spec, const lg_md *dst, bool with_scales, lgb_po_bufs *b,
                  lgb_result *res) {
    memset(b, 0, sizeof *b);
    lg_status s = lg_attr_create(&b->attr);
    if (s != LG_OK) return lgb_created(s, "lg_attr_create", res);
    if (spec->zps[0].set || spec->zps[1].set)
        return lgb_skip(res, "attribute not implemented in lgraph", "zero points"), false;
    const lgb_arg_quant *q[2] = {&spec->scales[0], &spec->src1_scale};
    if (spec->scales[1].set || ((q[0]->set || q[1]->set) && !with_scales))
        return lgb_skip(res, "attribute not implemented in lgraph", "%s scales",
                        spec->scales[1].set ? "dst" : "src"),
               false;
    for (int i = 0; i < 2; i++) {
        if (!q[i]->set) continue;
        int mask;
        if (!lgb_mask_resolve(q[i]->mask, dst->ndims, &mask))
            return lgb_skip(res, "invalid case (benchdnn skips it too)",
                            "scale policy names a dim a %dD tensor lacks", dst->ndims),
                   false;
        s = lg_attr_set_scales(b->attr, i ? LG_ARG_SRC + 1 : LG_ARG_SRC, mask);
        if (s != LG_OK) return lgb_created(s, "lg_attr_set_scales", res);
        b->has_scale[i] = true;
        b->scale[i] = q[i]->value;
    }
    for (int i = 0; i < spec->npost; i++) {
        const lgb_post *p = &spec->post[i];
        if (p->kind == LGB_POST_SUM) {
            if (p->zp || p->sdt != LG_DT_UNDEF)
                return lgb_skip(res, "attribute not implemented in lgraph",
                                "a sum with a zero point or a data type (conv only)"),
                       false;
            s = lg_attr_append_sum(b->attr, p->scale);
        } else if (p->kind == LGB_POST_ELTWISE) {
            if (p->escale != 1.0f)
                return lgb_skip(res, "attribute not implemented in lgraph",
                                "eltwise post-op scale"),
                       false;
            if (p->alg == LG_ELTWISE_SOFT_RELU && p->alpha == 0)
                return lgb_skip(res, "invalid case (benchdnn skips it too)",
                                "soft_relu with alpha 0"),
                       false;
            s = lg_attr_append_eltwise(b->attr, p->alg, p->alpha, p->beta);
        } else if (p->kind == LGB_POST_PRELU) {
            if (!lgb_po_prelu(p, i, dst, b->attr, res)) return false;
            s = LG_OK;
        } else {
            lg_md m;
            if (!lgb_po_src1_md(p, i, dst, &m, res)) return false;
            s = lg_attr_append_binary(b->attr, p->balg, &m);
        }
        if (s != LG_OK) return lgb_created(s, "lg_attr_append_*", res);
    }
    b->npost = spec->npost;
    return true;
}

bool lgb_po_alloc(lgb_po_bufs *b, const lg_kernel *k, const lg_md *dst, lgb_rng *rng,
                  lgb_result *res) {
    if (lg__po_spec_init(&b->spec, b->attr, dst, "lgbench") != LG_OK) {
        lgb_set(res, LGB_FAILED, "the chain: %s", lg_last_error());
        return false;
    }
    for (int i = 0; i < b->npost; i++) {
        if (!lg__post_reads_tensor(b->spec.post[i].kind)) continue;
        if (lg_kernel_query_md(k, lg__po_arg(&b->spec, i), &b->md[i]) != LG_OK) {
            lgb_set(res, LGB_FAILED, "lg_kernel_query_md (post-op %d): %s", i, lg_last_error());
            return false;
        }
        if (!lg_md_equal(&b->md[i], &b->spec.src1[i])) {
            lgb_set(res, LGB_FAILED, "post-op %d: the kernel's src1 md is not the chain's", i);
            return false;
        }
        b->buf[i] = lgb_buf_alloc(&b->md[i]);
        if (!b->buf[i]) {
            lgb_set(res, LGB_FAILED, "out of memory");
            return false;
        }
        lg_dtype dt = b->md[i].dtype;
        if (b->spec.post[i].kind == LG_POST_PRELU) /* slopes of both signs */
            lgb_buf_fill(&b->md[i], b->buf[i], rng, -2, 2, false);
        else if (dt == LG_S8 || dt == LG_S32)
            lgb_buf_fill(&b->md[i], b->buf[i], rng, -8, 9, true);
        else if (dt == LG_U8)
            lgb_buf_fill(&b->md[i], b->buf[i], rng, 0, 9, true);
        else
            lgb_buf_fill(&b->md[i], b->buf[i], rng, -4, 4, false);
    }
    return true;
}

int lgb_po_args(const lgb_po_bufs *b, lg_arg *args, int n) {
    for (int i = 0; i < 2; i++)
        if (b->has_scale[i])
            args[n++] = (lg_arg){LG_ARG_ATTR_SCALES | (i ? LG_ARG_SRC + 1 : LG_ARG_SRC),
                                 (void *)&b->scale[i]};
    for (int i = 0; i < b->npost; i++)
        if (b->buf[i]) args[n++] = (lg_arg){lg__po_arg(&b->spec, i), b->buf[i]};
    return n;
}

const float *lgb_po_scale(const lgb_po_bufs *b, int i) {
    return b->has_scale[i] ? &b->scale[i] : NULL;
}

void lgb_po_src1(const lgb_po_bufs *b, const void **out) {
    for (int i = 0; i < LG_MAX_POST_OPS; i++) out[i] = b->buf[i];
}

void lgb_po_free(lgb_po_bufs *b) {
    lg_attr_destroy(b->attr);
    for (int i = 0; i < LG_MAX_POST_OPS; i++) free(b->buf[i]);
    memset(b, 0, sizeof *b);
}
