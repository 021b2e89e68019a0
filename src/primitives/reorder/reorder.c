/* lg_reorder_create: validate the problem, canonicalise it into the cache
 * key, and bind it to the fast engine or the reference. */
#include "primitives/reorder/reorder.h"

#include "primitives/attr.h"
#include "primitives/cache.h"

#include <string.h>

/* The kind's private data: the problem and, when the fast engine took it,
 * its plan. */
typedef struct reorder_data {
    lg__reorder_pd pd;
    void *plan; /* NULL: the reference runs */
} reorder_data;

/* Slots, in the order lg_kernel's generic execute hands buffers over. */
enum {
    SLOT_SRC,
    SLOT_DST,
    SLOT_SRC_SCALES,
    SLOT_DST_SCALES,
    SLOT_SRC_ZP,
    SLOT_DST_ZP,
    SLOT_COMP_S8S8,
    SLOT_COMP_ZP,
    SLOT_SEED,
    SLOT_COUNT
};

static lg_status reorder_execute(const lg_kernel *k, void *const *bufs) {
    const reorder_data *r = k->data;
    lg__reorder_args a = {
        .src = bufs[SLOT_SRC],
        .dst = bufs[SLOT_DST],
        .src_scales = bufs[SLOT_SRC_SCALES],
        .dst_scales = bufs[SLOT_DST_SCALES],
        .src_zps = bufs[SLOT_SRC_ZP],
        .dst_zps = bufs[SLOT_DST_ZP],
        .comp = {bufs[SLOT_COMP_S8S8], bufs[SLOT_COMP_ZP]},
        .seed = bufs[SLOT_SEED] ? *(const int32_t *)bufs[SLOT_SEED] : 0,
    };
    if (r->plan)
        lg__reorder_fast_exec(r->plan, &a);
    else
        lg__reorder_ref(&r->pd, &a);
    if (r->pd.comp_mask[0] >= 0 || r->pd.comp_mask[1] >= 0) lg__reorder_comp(&r->pd, &a);
    return LG_OK;
}

static void reorder_destroy(lg_kernel *k) {
    reorder_data *r = k->data;
    if (r && r->plan) lg__reorder_fast_destroy(r->plan);
    lg__free(r);
}

static const lg__kernel_ops reorder_ops = {reorder_execute, reorder_destroy};

/* Number of values a mask selects on md (product of the masked dims, each
 * divided by its group size; group NULL: none). */
static size_t mask_count(const lg_md *md, int32_t mask, const int64_t *group) {
    size_t n = 1;
    for (int d = 0; d < md->ndims; d++)
        if (mask & (1 << d)) n *= (size_t)(md->dims[d] / (group && group[d] > 1 ? group[d] : 1));
    return n;
}

static lg_status build_reorder(const void *problem, lg_kernel **out) {
    const lg__reorder_pd *pd = problem;
    lg_kernel *k =
        lg__kernel_new_slots(LG_KIND_REORDER, &reorder_ops, sizeof(reorder_data), SLOT_COUNT);
    if (!k)
        return lg__error(LG_OUT_OF_MEMORY, "lg_reorder_create", "cannot allocate a reorder kernel");
    reorder_data *r = k->data;
    r->pd = *pd;
    const char *impl = NULL;
    lg_status s = lg__reorder_fast_init(pd, lg__cpu_isa(), &r->plan, &impl);
    if (s == LG_OUT_OF_MEMORY) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_reorder_create", "cannot allocate a reorder plan");
    }
    if (s != LG_OK) {
        r->plan = NULL;
        impl = "ref";
    }
    snprintf(k->impl, sizeof k->impl, "reorder:%s", impl);
    char sd[96], dd[96];
    lg__md_describe(&pd->src, sd, sizeof sd);
    lg__md_describe(&pd->dst, dd, sizeof dd);
    snprintf(k->desc, sizeof k->desc, "src:%s dst:%s", sd, dd);

    k->inplace_src = lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src, 0);
    k->inplace_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    const struct {
        int32_t mask;
        int arg;
        const lg_md *md;
        size_t elt;
        const int64_t *group;
    } extra[7] = {
        {pd->src_scale_mask, LG_ARG_ATTR_SCALES | LG_ARG_SRC, &pd->src,
         pd->scale_dt[0] ? lg_dtype_size(pd->scale_dt[0]) : sizeof(float), pd->scale_group[0]},
        {pd->dst_scale_mask, LG_ARG_ATTR_SCALES | LG_ARG_DST, &pd->dst,
         pd->scale_dt[1] ? lg_dtype_size(pd->scale_dt[1]) : sizeof(float), pd->scale_group[1]},
        {pd->src_zp_mask, LG_ARG_ATTR_ZERO_POINTS | LG_ARG_SRC, &pd->src,
         pd->zp_dt[0] ? lg_dtype_size(pd->zp_dt[0]) : sizeof(int32_t), pd->zp_group[0]},
        {pd->dst_zp_mask, LG_ARG_ATTR_ZERO_POINTS | LG_ARG_DST, &pd->dst,
         pd->zp_dt[1] ? lg_dtype_size(pd->zp_dt[1]) : sizeof(int32_t), pd->zp_group[1]},
        {pd->comp_mask[0], LG_ARG_ATTR_COMP_S8S8 | LG_ARG_DST, &pd->dst, sizeof(int32_t), NULL},
        {pd->comp_mask[1], LG_ARG_ATTR_COMP_ZERO_POINT | LG_ARG_DST, &pd->dst, sizeof(int32_t),
         NULL},
        {pd->stochastic ? 0 : -1, LG_ARG_ATTR_ROUNDING_SEED, &pd->dst, sizeof(int32_t), NULL},
    };
    for (int i = 0; i < 7; i++)
        lg__kernel_add_slot(k, extra[i].arg, extra[i].mask >= 0, NULL,
                            extra[i].mask >= 0
                                ? mask_count(extra[i].md, extra[i].mask, extra[i].group) *
                                      extra[i].elt
                                : 0);
    *out = k;
    return LG_OK;
}

/* The type and groups of one scale / zero-point array into the pd (0 for
 * the default type def and for no group), checked against md: a group size
 * above 1 lies on a masked dim and divides it. */
static lg_status quant_ex(int32_t mask, int32_t dt, lg_dtype def, int gndims, const int64_t *groups,
                          const lg_md *md, const char *what, const char *where, int32_t *pd_dt,
                          int64_t *pd_group) {
    if (mask < 0) return LG_OK;
    *pd_dt = dt == (int32_t)def ? 0 : dt;
    if (gndims > md->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s has %d group dims, the tensor %d dims",
                         what, gndims, md->ndims);
    for (int g = 0; g < gndims; g++) {
        int d = md->ndims - gndims + g;
        if (groups[g] <= 1) continue;
        if (!(mask & (1 << d)))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "%s group %lld on dim %d, which mask 0x%x does not select", what,
                             (long long)groups[g], d, (unsigned)mask);
        if (md->dims[d] % groups[g] != 0)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "%s group %lld does not divide dims[%d] = %lld", what,
                             (long long)groups[g], d, (long long)md->dims[d]);
        pd_group[d] = groups[g];
    }
    return LG_OK;
}

/* Check an attribute mask against the tensor it applies to. */
static lg_status check_mask(int32_t mask, const lg_md *md, const char *what, const char *where) {
    if (mask >= 0 && (mask >> md->ndims) != 0)
        return lg__error(LG_INVALID_ARGUMENT, where, "%s mask 0x%x names a dim beyond ndims %d",
                         what, (unsigned)mask, md->ndims);
    return LG_OK;
}

lg_status lg__reorder_query(const lg_md *src, const lg_md *dst, const struct lg_attr *attr,
                            const char *where, lg__reorder_pd *pd) {
    LG_CHECK(lg__md_check(src, where, "src md"));
    LG_CHECK(lg__md_check(dst, where, "dst md"));
    if (lg_md_is_any(src)) return lg__error(LG_INVALID_ARGUMENT, where, "src md is 'any'");
    if (src->ndims != dst->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "src has %d dims, dst %d", src->ndims,
                         dst->ndims);
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] != dst->dims[d])
            return lg__error(LG_INVALID_ARGUMENT, where, "dims[%d] differ: src %lld, dst %lld", d,
                             (long long)src->dims[d], (long long)dst->dims[d]);

    memset(pd, 0, sizeof *pd);
    lg__md_canon(src, &pd->src);
    if (lg_md_is_any(dst)) {
        /* dst "any": src's layout in dst's type. */
        lg__md_canon(src, &pd->dst);
        pd->dst.dtype = dst->dtype;
        int64_t bytes;
        if (!lg__mul_ok(lg__md_nelems_padded(&pd->dst), (int64_t)lg_dtype_size(dst->dtype), &bytes))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "dst 'any' in src's layout: byte size overflows");
    } else {
        lg__md_canon(dst, &pd->dst);
    }
    struct lg_attr none;
    lg__attr_init(&none);
    const struct lg_attr *a = attr ? attr : &none;
    LG_CHECK(lg__attr_check_conv_only(a, where));
    pd->src_scale_mask = a->scale_mask[0];
    pd->dst_scale_mask = a->scale_mask[1];
    pd->src_zp_mask = a->zp_mask[0];
    pd->dst_zp_mask = a->zp_mask[1];
    LG_CHECK(check_mask(pd->src_scale_mask, src, "src scale", where));
    LG_CHECK(check_mask(pd->dst_scale_mask, dst, "dst scale", where));
    LG_CHECK(check_mask(pd->src_zp_mask, src, "src zero-point", where));
    LG_CHECK(check_mask(pd->dst_zp_mask, dst, "dst zero-point", where));
    LG_CHECK(quant_ex(pd->src_scale_mask, a->scale_dt[0], LG_F32, a->scale_gndims[0],
                      a->scale_groups[0], src, "src scale", where, &pd->scale_dt[0],
                      pd->scale_group[0]));
    LG_CHECK(quant_ex(pd->dst_scale_mask, a->scale_dt[1], LG_F32, a->scale_gndims[1],
                      a->scale_groups[1], dst, "dst scale", where, &pd->scale_dt[1],
                      pd->scale_group[1]));
    LG_CHECK(quant_ex(pd->src_zp_mask, a->zp_dt[0], LG_S32, a->zp_gndims[0], a->zp_groups[0], src,
                      "src zero-point", where, &pd->zp_dt[0], pd->zp_group[0]));
    LG_CHECK(quant_ex(pd->dst_zp_mask, a->zp_dt[1], LG_S32, a->zp_gndims[1], a->zp_groups[1], dst,
                      "dst zero-point", where, &pd->zp_dt[1], pd->zp_group[1]));
    if (a->rounding[0] == LG_ROUNDING_STOCHASTIC)
        return lg__error(LG_UNIMPLEMENTED, where,
                         "stochastic rounding of src: a reorder rounds dst only");
    if (a->rounding[1] == LG_ROUNDING_STOCHASTIC) {
        lg_dtype t = dst->dtype;
        if (t != LG_BF16 && t != LG_F16 && t != LG_F8_E4M3 && t != LG_F8_E5M2)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "stochastic rounding to a %s dst: only bf16, f16 and f8 take it",
                             lg_dtype_str(t));
        pd->stochastic = 1;
    }
    static const char *const comp_names[2] = {"s8s8 compensation", "zero-point compensation"};
    for (int kind = 0; kind < 2; kind++) {
        pd->comp_mask[kind] = a->comp_mask[kind];
        LG_CHECK(check_mask(pd->comp_mask[kind], dst, comp_names[kind], where));
        if (pd->comp_mask[kind] >= 0 && dst->dtype != LG_S8)
            return lg__error(LG_INVALID_ARGUMENT, where, "%s asks for an s8 dst, dst is %s",
                             comp_names[kind], lg_dtype_str(dst->dtype));
    }
    for (int i = 0; i < a->npost; i++) {
        if (a->post[i].kind != LG_POST_SUM || i > 0)
            return lg__error(LG_UNIMPLEMENTED, where,
                             "reorder takes one sum post-op and nothing else");
        pd->has_sum = 1;
        pd->sum_beta = a->post[i].scale;
    }
    return LG_OK;
}

lg_status lg__reorder_create_owned(lg_kernel **k, const lg_md *src, const lg_md *dst) {
    lg__reorder_pd pd;
    LG_CHECK(lg__reorder_query(src, dst, NULL, "lg_reorder_create", &pd));
    return build_reorder(&pd, k);
}

bool lg__reorder_fast(const lg__reorder_pd *pd) {
    void *plan = NULL;
    const char *impl = NULL;
    if (lg__reorder_fast_init(pd, lg__cpu_isa(), &plan, &impl) != LG_OK) return false;
    bool fast = !strstr(impl, "generic");
    lg__reorder_fast_destroy(plan);
    return fast;
}

lg_status lg_reorder_create(lg_kernel **k, const lg_md *src, const lg_md *dst,
                            const lg_attr *attr) {
    if (!k) return LG_ERROR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    lg__reorder_pd pd;
    LG_CHECK(lg__reorder_query(src, dst, attr, __func__, &pd));
    return lg__cache_get(LG_KIND_REORDER, &pd, sizeof pd, build_reorder, k);
}
