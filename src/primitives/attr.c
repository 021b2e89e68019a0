/* lg_attr: scales, zero points and post-ops. */
#include "primitives/attr.h"

#include "primitives/eltwise/eltwise.h"

#include <math.h>
#include <string.h>

void lg__attr_init(struct lg_attr *a) {
    memset(a, 0, sizeof *a);
    a->scale_mask[0] = a->scale_mask[1] = -1;
    a->zp_mask[0] = a->zp_mask[1] = -1;
    a->scale_mask_src1 = -1;
    a->comp_mask[0] = a->comp_mask[1] = -1;
    a->scale_dt[0] = a->scale_dt[1] = LG_F32;
    a->zp_dt[0] = a->zp_dt[1] = LG_S32;
    a->scale_mask_wei = a->zp_mask_wei = -1;
}

lg_status lg_attr_create(lg_attr **attr) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    lg_attr *a = lg__malloc(sizeof *a);
    if (!a) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot allocate an attribute");
    lg__attr_init(a);
    *attr = a;
    return LG_OK;
}

void lg_attr_destroy(lg_attr *attr) {
    lg__free(attr);
}

/* Slot of a scale / zero-point argument: 0 for LG_ARG_SRC, 1 for LG_ARG_DST,
 * 2 for LG_ARG_SRC + 1 (binary's src1; scales only). */
static lg_status arg_slot(int arg, int mask, const char *where, int *slot) {
    bool scales = !strcmp(where, "lg_attr_set_scales");
    if (arg != LG_ARG_SRC && arg != LG_ARG_DST && arg != LG_ARG_WEIGHTS &&
        !(scales && arg == LG_ARG_SRC + 1))
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "arg %d: only LG_ARG_SRC (1)%s, LG_ARG_DST (17) and LG_ARG_WEIGHTS (33) "
                         "take it",
                         arg, scales ? ", LG_ARG_SRC + 1 (2)" : "");
    if (mask < 0 || mask >= (1 << LG_MAX_NDIMS))
        return lg__error(LG_INVALID_ARGUMENT, where, "mask 0x%x names dims beyond %d", mask,
                         LG_MAX_NDIMS - 1);
    *slot = arg == LG_ARG_SRC ? 0 : arg == LG_ARG_DST ? 1 : arg == LG_ARG_WEIGHTS ? 3 : 2;
    return LG_OK;
}

lg_status lg_attr_set_scales(lg_attr *attr, int arg, int mask) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    int slot = 0;
    LG_CHECK(arg_slot(arg, mask, __func__, &slot));
    if (slot == 2) {
        attr->scale_mask_src1 = mask;
    } else if (slot == 3) {
        attr->scale_mask_wei = mask;
    } else {
        attr->scale_mask[slot] = mask;
        attr->scale_dt[slot] = LG_F32; /* plain f32, no groups */
        attr->scale_gndims[slot] = 0;
    }
    return LG_OK;
}

lg_status lg_attr_set_zero_points(lg_attr *attr, int arg, int mask) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    int slot = 0;
    LG_CHECK(arg_slot(arg, mask, __func__, &slot));
    if (slot == 3) {
        attr->zp_mask_wei = mask;
    } else {
        attr->zp_mask[slot] = mask;
        attr->zp_dt[slot] = LG_S32; /* plain s32, no groups */
        attr->zp_gndims[slot] = 0;
    }
    return LG_OK;
}

/* Type and groups of scales / zero points; slot as arg_slot (src or dst). */
static lg_status set_quant_ex(lg_attr *attr, int arg, int mask, int group_ndims,
                              const int64_t *group_dims, lg_dtype dt, bool zp, const char *where) {
    if (!attr) return lg__error(LG_INVALID_ARGUMENT, where, "attr is NULL");
    if (arg != LG_ARG_SRC && arg != LG_ARG_DST)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "arg %d: only LG_ARG_SRC (1) and LG_ARG_DST (17) take it", arg);
    if (mask < 0 || mask >= (1 << LG_MAX_NDIMS))
        return lg__error(LG_INVALID_ARGUMENT, where, "mask 0x%x names dims beyond %d", mask,
                         LG_MAX_NDIMS - 1);
    bool dt_ok = zp ? (dt == LG_S32 || dt == LG_S8 || dt == LG_U8)
                    : (dt == LG_F32 || dt == LG_BF16 || dt == LG_F16 || dt == LG_F8_E4M3 ||
                       dt == LG_F8_E5M2);
    if (!dt_ok)
        return lg__error(LG_INVALID_ARGUMENT, where, "data type %s: %s", lg_dtype_str(dt),
                         zp ? "zero points are s32, s8 or u8" : "scales are f32, bf16, f16 or f8");
    if (group_ndims < 0 || group_ndims > LG_MAX_NDIMS)
        return lg__error(LG_INVALID_ARGUMENT, where, "group_ndims %d is outside 0..%d", group_ndims,
                         LG_MAX_NDIMS);
    if (group_ndims > 0 && !group_dims)
        return lg__error(LG_INVALID_ARGUMENT, where, "group_dims is NULL, group_ndims %d",
                         group_ndims);
    for (int g = 0; g < group_ndims; g++)
        if (group_dims[g] < 1)
            return lg__error(LG_INVALID_ARGUMENT, where, "group_dims[%d] = %lld is below 1", g,
                             (long long)group_dims[g]);
    int slot = arg == LG_ARG_SRC ? 0 : 1;
    int64_t *groups = zp ? attr->zp_groups[slot] : attr->scale_groups[slot];
    memset(groups, 0, sizeof attr->zp_groups[slot]);
    for (int g = 0; g < group_ndims; g++) groups[g] = group_dims[g];
    if (zp) {
        attr->zp_mask[slot] = mask;
        attr->zp_dt[slot] = (int32_t)dt;
        attr->zp_gndims[slot] = group_ndims;
    } else {
        attr->scale_mask[slot] = mask;
        attr->scale_dt[slot] = (int32_t)dt;
        attr->scale_gndims[slot] = group_ndims;
    }
    return LG_OK;
}

lg_status lg_attr_set_scales_ex(lg_attr *attr, int arg, int mask, int group_ndims,
                                const int64_t *group_dims, lg_dtype dt) {
    return set_quant_ex(attr, arg, mask, group_ndims, group_dims, dt, false, __func__);
}

lg_status lg_attr_set_zero_points_ex(lg_attr *attr, int arg, int mask, int group_ndims,
                                     const int64_t *group_dims, lg_dtype dt) {
    return set_quant_ex(attr, arg, mask, group_ndims, group_dims, dt, true, __func__);
}

lg_status lg_attr_set_rounding(lg_attr *attr, int arg, lg_rounding_mode mode) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    if (arg != LG_ARG_SRC && arg != LG_ARG_DST)
        return LG_ERROR(LG_INVALID_ARGUMENT,
                        "arg %d: only LG_ARG_SRC (1) and LG_ARG_DST (17) take it", arg);
    if (mode != LG_ROUNDING_ENVIRONMENT && mode != LG_ROUNDING_STOCHASTIC)
        return LG_ERROR(LG_INVALID_ARGUMENT, "mode %d is not an lg_rounding_mode", (int)mode);
    attr->rounding[arg == LG_ARG_SRC ? 0 : 1] = (int32_t)mode;
    return LG_OK;
}

/* Whether any group size above 1 is set in groups[0..n). */
static bool grouped(const int64_t *groups, int n) {
    for (int g = 0; g < n; g++)
        if (groups[g] > 1) return true;
    return false;
}

lg_status lg__attr_check_quant_plain(const struct lg_attr *attr, const char *kind,
                                     const char *where) {
    if (!attr) return LG_OK;
    for (int i = 0; i < 2; i++) {
        const char *arg = i ? "dst" : "src";
        if (attr->scale_mask[i] >= 0 && attr->scale_dt[i] != LG_F32)
            return lg__error(LG_UNIMPLEMENTED, where, "attr has %s scales of type %s: %s takes f32",
                             arg, lg_dtype_str((lg_dtype)attr->scale_dt[i]), kind);
        if (attr->zp_mask[i] >= 0 && attr->zp_dt[i] != LG_S32)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "attr has %s zero points of type %s: %s takes s32", arg,
                             lg_dtype_str((lg_dtype)attr->zp_dt[i]), kind);
        if ((attr->scale_mask[i] >= 0 && grouped(attr->scale_groups[i], attr->scale_gndims[i])) ||
            (attr->zp_mask[i] >= 0 && grouped(attr->zp_groups[i], attr->zp_gndims[i])))
            return lg__error(LG_UNIMPLEMENTED, where,
                             "attr has grouped %s scales or zero points: %s takes none", arg, kind);
        if (attr->rounding[i] != LG_ROUNDING_ENVIRONMENT)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "attr asks for stochastic rounding of %s: only reorders do it", arg);
    }
    return LG_OK;
}

/* Reorder compensation: the mask is checked against dst at creation. */
lg_status lg_attr_set_compensation(lg_attr *attr, lg_comp_kind kind, int mask) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    if (kind != LG_COMP_S8S8 && kind != LG_COMP_ZERO_POINT)
        return LG_ERROR(LG_INVALID_ARGUMENT, "kind %d is not an lg_comp_kind", (int)kind);
    if (mask < -1) return LG_ERROR(LG_INVALID_ARGUMENT, "mask %d is below -1", mask);
    attr->comp_mask[kind] = mask;
    return LG_OK;
}

/* Append a zeroed post-op slot, or fail when the chain is full. */
static lg_status append(lg_attr *attr, const char *where, lg__post_op **op) {
    if (!attr) return lg__error(LG_INVALID_ARGUMENT, where, "attr is NULL");
    if (attr->npost >= LG_MAX_POST_OPS)
        return lg__error(LG_INVALID_ARGUMENT, where, "more than %d post-ops", LG_MAX_POST_OPS);
    *op = &attr->post[attr->npost++];
    memset(*op, 0, sizeof **op);
    return LG_OK;
}

lg_status lg_attr_append_sum(lg_attr *attr, float beta) {
    if (!isfinite(beta)) return LG_ERROR(LG_INVALID_ARGUMENT, "sum beta %g is not finite", beta);
    lg__post_op *op = NULL;
    LG_CHECK(append(attr, __func__, &op));
    op->kind = LG_POST_SUM;
    op->scale = beta;
    return LG_OK;
}

lg_status lg_attr_append_sum_dt(lg_attr *attr, float beta, int32_t zero_point, lg_dtype dt) {
    if (!isfinite(beta)) return LG_ERROR(LG_INVALID_ARGUMENT, "sum beta %g is not finite", beta);
    if (dt != LG_DT_UNDEF && !lg_dtype_size(dt))
        return LG_ERROR(LG_INVALID_ARGUMENT, "dt %d is not an lg_dtype", (int)dt);
    lg__post_op *op = NULL;
    LG_CHECK(append(attr, __func__, &op));
    if (zero_point == 0 && dt == LG_DT_UNDEF) {
        op->kind = LG_POST_SUM; /* the plain sum every kernel takes */
    } else {
        op->kind = LG_POST_SUM_DT;
        op->alg = (int32_t)dt;
        op->zp = zero_point;
    }
    op->scale = beta;
    return LG_OK;
}

lg_status lg__attr_check_conv_only(const struct lg_attr *attr, const char *where) {
    if (!attr) return LG_OK;
    if (attr->scale_mask_wei >= 0 || attr->zp_mask_wei >= 0)
        return lg__error(LG_UNIMPLEMENTED, where, "attr has weights %s: only conv takes them",
                         attr->scale_mask_wei >= 0 ? "scales" : "zero points");
    for (int i = 0; i < attr->npost && i < LG_MAX_POST_OPS; i++)
        if (attr->post[i].kind == LG_POST_SUM_DT)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "attr post-op %d is a sum with a zero point or a data type: only "
                             "conv takes it",
                             i);
    return LG_OK;
}

lg_status lg_attr_append_eltwise(lg_attr *attr, lg_eltwise_alg alg, float alpha, float beta) {
    if ((int)alg < LG_ELTWISE_RELU || alg > LG_ELTWISE_SOFT_RELU)
        return LG_ERROR(LG_INVALID_ARGUMENT, "unknown eltwise algorithm %d", (int)alg);
    lg__post_op *op = NULL;
    LG_CHECK(append(attr, __func__, &op));
    op->kind = LG_POST_ELTWISE;
    op->alg = (int32_t)alg;
    op->alpha = alpha;
    op->beta = beta;
    return LG_OK;
}

lg_status lg_attr_append_binary(lg_attr *attr, lg_binary_alg alg, const lg_md *src1) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    if ((int)alg < LG_BINARY_ADD || (int)alg > LG_BINARY_NE)
        return LG_ERROR(LG_INVALID_ARGUMENT, "alg %d is not an lg_binary_alg", (int)alg);
    LG_CHECK(lg__md_check(src1, __func__, "src1 md"));
    lg_dtype dt = src1->dtype;
    if (dt != LG_F32 && dt != LG_BF16 && dt != LG_F16 && dt != LG_S32 && dt != LG_S8 && dt != LG_U8)
        return LG_ERROR(
            LG_INVALID_ARGUMENT,
            "src1 md data type %s: a binary post-op takes f32, bf16, f16, s32, s8 or u8",
            lg_dtype_str(dt));
    lg__post_op *op = NULL;
    LG_CHECK(append(attr, __func__, &op));
    op->kind = LG_POST_BINARY;
    op->alg = (int32_t)alg;
    attr->post_md[attr->npost - 1] = *src1;
    return LG_OK;
}

lg_status lg_attr_append_prelu(lg_attr *attr, int mask) {
    if (!attr) return LG_ERROR(LG_INVALID_ARGUMENT, "attr is NULL");
    if (mask < 0 || mask >= (1 << LG_MAX_NDIMS))
        return LG_ERROR(LG_INVALID_ARGUMENT, "mask 0x%x: a prelu mask has bits 0..%d only", mask,
                        LG_MAX_NDIMS - 1);
    lg__post_op *op = NULL;
    LG_CHECK(append(attr, __func__, &op));
    op->kind = LG_POST_PRELU;
    op->alg = mask;
    return LG_OK;
}

lg_status lg__attr_check_post_only(const struct lg_attr *attr, const char *kind,
                                   const char *where) {
    if (!attr) return LG_OK;
    LG_CHECK(lg__attr_check_quant_plain(attr, kind, where));
    LG_CHECK(lg__attr_check_conv_only(attr, where));
    for (int i = 0; i < 2; i++) {
        if (attr->scale_mask[i] >= 0)
            return lg__error(LG_UNIMPLEMENTED, where, "attr has %s scales: f32 %s takes none",
                             i ? "dst" : "src", kind);
        if (attr->zp_mask[i] >= 0)
            return lg__error(LG_UNIMPLEMENTED, where, "attr has %s zero points: f32 %s takes none",
                             i ? "dst" : "src", kind);
    }
    if (attr->scale_mask_src1 >= 0)
        return lg__error(LG_UNIMPLEMENTED, where, "attr has src1 scales: f32 %s takes none", kind);
    if (attr->comp_mask[0] >= 0 || attr->comp_mask[1] >= 0)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "attr asks for a compensation: only reorders write one");
    if (attr->npost < 0 || attr->npost > LG_MAX_POST_OPS)
        return lg__error(LG_INVALID_ARGUMENT, where, "attr has %d post-ops", attr->npost);
    for (int i = 0; i < attr->npost; i++)
        if (lg__post_reads_tensor(attr->post[i].kind))
            return lg__error(LG_UNIMPLEMENTED, where,
                             "attr post-op %d is a %s post-op: %s takes sum and eltwise "
                             "post-ops only",
                             i, attr->post[i].kind == LG_POST_PRELU ? "prelu" : "binary", kind);
    for (int i = 0; i < attr->npost; i++)
        if (attr->post[i].kind != LG_POST_SUM && attr->post[i].kind != LG_POST_ELTWISE)
            return lg__error(LG_INVALID_ARGUMENT, where, "attr post-op %d has kind %d", i,
                             attr->post[i].kind);
    return LG_OK;
}

void lg__attr_copy_post(const struct lg_attr *attr, int32_t *npost, lg__post_op *post) {
    *npost = attr ? attr->npost : 0;
    for (int i = 0; i < *npost; i++) {
        const lg__post_op *op = &attr->post[i];
        memset(&post[i], 0, sizeof post[i]);
        post[i].kind = op->kind;
        if (op->kind == LG_POST_SUM) {
            post[i].scale = op->scale;
        } else {
            post[i].alg = op->alg;
            post[i].alpha = op->alpha;
            post[i].beta = op->beta;
        }
    }
}

float lg__post_chain_scalar(int npost, const lg__post_op *post, float v, float old) {
    for (int i = 0; i < npost; i++) {
        const lg__post_op *op = &post[i];
        if (op->kind == LG_POST_SUM) {
            float t = op->scale * old;
            v = v + t;
        } else {
            v = lg__eltwise_fwd(op->alg, op->alpha, op->beta, v);
        }
    }
    return v;
}
