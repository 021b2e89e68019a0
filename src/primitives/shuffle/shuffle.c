/* The shuffle kind's one creator: lg_shuffle_create_layouts (and its
 * same-layout form lg_shuffle_create) validates the problem once
 * (lg__shuffle_query), canonicalises it into the cache key and hands it to
 * the one planner (lg__shuffle_plan, plan.c: equal layouts get the plane /
 * SIMD permute plans, different ones the offset-table plan); a problem no
 * plan takes runs the reference. */
#include "primitives/shuffle/shuffle.h"

#include "primitives/cache.h"

#include <string.h>

/* The kind's private data: the problem and its plan (both NULL: the
 * reference). */
typedef struct shuffle_data {
    lg__shuffle_pd pd;
    lg__shuf_plan *plan;
} shuffle_data;

/* Slots, in the order lg_kernel's generic execute hands buffers over. */
enum { SLOT_SRC, SLOT_DST };

static lg_status shuffle_execute(const lg_kernel *k, void *const *bufs) {
    const shuffle_data *s = k->data;
    if (s->plan)
        lg__shuffle_exec(s->plan, bufs[SLOT_SRC], bufs[SLOT_DST]);
    else
        lg__shuffle_ref(&s->pd, bufs[SLOT_SRC], bufs[SLOT_DST]);
    return LG_OK;
}

static void shuffle_destroy(lg_kernel *k) {
    shuffle_data *s = k->data;
    if (s) lg__shuffle_plan_free(s->plan);
    lg__free(s);
}

static const lg__kernel_ops shuffle_ops = {shuffle_execute, shuffle_destroy};

static lg_status build_shuffle(const void *problem, lg_kernel **out) {
    const lg__shuffle_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_SHUFFLE, &shuffle_ops, sizeof(shuffle_data));
    if (!k)
        return lg__error(LG_OUT_OF_MEMORY, "lg_shuffle_create", "cannot allocate a shuffle kernel");
    shuffle_data *s = k->data;
    s->pd = *pd;
    bool same = memcmp(&pd->src, &pd->dst, sizeof pd->src) == 0;
    /* No plan (too many channels for a table): the reference. */
    if (lg__shuffle_plan(pd, lg__cpu_isa(), &s->plan) == LG_OUT_OF_MEMORY) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_shuffle_create", "cannot allocate a shuffle plan");
    }
    snprintf(k->impl, sizeof k->impl, "shuffle:%s", s->plan ? s->plan->impl : "ref");
    char sm[96], dm[96];
    lg__md_describe(&pd->src, sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    const char *dir = pd->prop == LG_FORWARD ? "fwd" : "bwd";
    if (same)
        snprintf(k->desc, sizeof k->desc, "%s md:%s axis:%d group:%lld", dir, sm, (int)pd->axis,
                 (long long)pd->group);
    else
        snprintf(k->desc, sizeof k->desc, "%s src:%s dst:%s axis:%d group:%lld", dir, sm, dm,
                 (int)pd->axis, (long long)pd->group);
    bool fwd = pd->prop == LG_FORWARD;
    lg__kernel_add_slot(k, fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, true, &pd->src, 0);
    lg__kernel_add_slot(k, fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, true, &pd->dst, 0);
    *out = k;
    return LG_OK;
}

/* Check one md argument (`what` names it; errors name `where`). */
static lg_status check_md(const lg_md *md, const char *what, const char *where) {
    LG_CHECK(lg__md_check(md, where, what));
    if (lg_md_is_any(md)) return lg__error(LG_INVALID_ARGUMENT, where, "%s is 'any'", what);
    return LG_OK;
}

lg_status lg__shuffle_query(lg_prop prop, const lg_md *src, const lg_md *dst, int axis,
                            int64_t group_size, const char *where, lg__shuffle_pd *pd) {
    bool one = src == dst; /* lg_shuffle_create: one md names both */
    LG_CHECK(check_md(src, one ? "md" : "src md", where));
    if (!one) {
        LG_CHECK(check_md(dst, "dst md", where));
        if (src->dtype != dst->dtype)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "src is %s, dst %s: a shuffle does not convert",
                             lg_dtype_str(src->dtype), lg_dtype_str(dst->dtype));
        if (src->ndims != dst->ndims)
            return lg__error(LG_INVALID_ARGUMENT, where, "src has %d dims, dst %d", src->ndims,
                             dst->ndims);
        for (int d = 0; d < src->ndims; d++)
            if (src->dims[d] != dst->dims[d])
                return lg__error(LG_INVALID_ARGUMENT, where, "dims[%d] differ: src %lld, dst %lld",
                                 d, (long long)src->dims[d], (long long)dst->dims[d]);
    }
    if (prop != LG_FORWARD && prop != LG_BACKWARD)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "prop %d is neither LG_FORWARD nor LG_BACKWARD", (int)prop);
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "axis %d is out of range for %d dims", axis,
                         src->ndims);
    int64_t c = src->dims[axis];
    if (group_size <= 0)
        return lg__error(LG_INVALID_ARGUMENT, where, "group_size %lld is not positive",
                         (long long)group_size);
    if (c % group_size != 0)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "group_size %lld does not divide dims[%d] = %lld", (long long)group_size,
                         axis, (long long)c);
    memset(pd, 0, sizeof *pd);
    lg__md_canon(src, &pd->src);
    lg__md_canon(dst, &pd->dst);
    pd->prop = (int32_t)prop;
    pd->axis = axis;
    pd->group = group_size;
    return LG_OK;
}

static lg_status create(lg_kernel **k, lg_prop prop, const lg_md *src, const lg_md *dst, int axis,
                        int64_t group_size, const char *where) {
    if (!k) return lg__error(LG_INVALID_ARGUMENT, where, "kernel pointer is NULL");
    lg__shuffle_pd pd;
    LG_CHECK(lg__shuffle_query(prop, src, dst, axis, group_size, where, &pd));
    return lg__cache_get(LG_KIND_SHUFFLE, &pd, sizeof pd, build_shuffle, k);
}

lg_status lg_shuffle_create(lg_kernel **k, lg_prop prop, const lg_md *md, int axis,
                            int64_t group_size) {
    return create(k, prop, md, md, axis, group_size, __func__);
}

lg_status lg_shuffle_create_layouts(lg_kernel **k, lg_prop prop, const lg_md *src, const lg_md *dst,
                                    int axis, int64_t group_size) {
    return create(k, prop, src, dst, axis, group_size, __func__);
}
