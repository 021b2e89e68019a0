/* lg__shuffle_create_ex: a channel shuffle whose src and dst have different
 * layouts (the fusion of a shuffle with a reorder before or after it).
 * Validates, canonicalises the problem into the cache key and binds it to a
 * plan (shuffle_ex_plan.c); equal layouts go to lg_shuffle_create and its
 * SIMD paths. */
#include "primitives/shuffle/shuffle_ex.h"

#include "primitives/cache.h"
#include "primitives/shuffle/shuffle.h"

#include <string.h>

/* The kind's private data: the problem and its plan. */
typedef struct shuffle_ex_data {
    lg__shuffle_ex_pd pd;
    lg__shuf_ex_plan *plan;
} shuffle_ex_data;

/* Slots, in the order lg_kernel's generic execute hands buffers over. */
enum { SLOT_SRC, SLOT_DST };

static lg_status shuffle_ex_execute(const lg_kernel *k, void *const *bufs) {
    const shuffle_ex_data *s = k->data;
    lg__shuffle_ex_exec(s->plan, bufs[SLOT_SRC], bufs[SLOT_DST]);
    return LG_OK;
}

static void shuffle_ex_destroy(lg_kernel *k) {
    shuffle_ex_data *s = k->data;
    if (s) lg__shuffle_ex_plan_free(s->plan);
    lg__free(s);
}

static const lg__kernel_ops shuffle_ex_ops = {shuffle_ex_execute, shuffle_ex_destroy};

static lg_status build_shuffle_ex(const void *problem, lg_kernel **out) {
    const lg__shuffle_ex_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_SHUFFLE, &shuffle_ex_ops, sizeof(shuffle_ex_data));
    if (!k)
        return lg__error(LG_OUT_OF_MEMORY, "lg_graph_compile", "cannot allocate a shuffle kernel");
    shuffle_ex_data *s = k->data;
    s->pd = *pd;
    if (lg__shuffle_ex_plan(pd, &s->plan) != LG_OK) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_graph_compile", "cannot allocate a shuffle plan");
    }
    snprintf(k->impl, sizeof k->impl, "shuffle:%s", s->plan->impl);
    char sm[96], dm[96];
    lg__md_describe(&pd->src, sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    snprintf(k->desc, sizeof k->desc, "%s src:%s dst:%s axis:%d group:%lld",
             pd->prop == LG_FORWARD ? "fwd" : "bwd", sm, dm, (int)pd->axis, (long long)pd->group);
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

lg_status lg__shuffle_create_ex(lg_kernel **k, lg_prop prop, const lg_md *src, const lg_md *dst,
                                int axis, int64_t group_size) {
    if (!k) return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "kernel pointer is NULL");
    LG_CHECK(check_md(src, "src md", "lg_graph_compile"));
    LG_CHECK(check_md(dst, "dst md", "lg_graph_compile"));
    if (src->dtype != dst->dtype)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "src is %s, dst %s: a shuffle does not convert", lg_dtype_str(src->dtype),
                         lg_dtype_str(dst->dtype));
    if (src->ndims != dst->ndims)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "src has %d dims, dst %d",
                         src->ndims, dst->ndims);
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] != dst->dims[d])
            return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                             "dims[%d] differ: src %lld, dst %lld", d, (long long)src->dims[d],
                             (long long)dst->dims[d]);
    if (prop != LG_FORWARD && prop != LG_BACKWARD)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "prop %d is neither LG_FORWARD nor LG_BACKWARD", (int)prop);
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "axis %d is out of range for %d dims", axis, src->ndims);
    int64_t c = src->dims[axis];
    if (group_size <= 0)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile", "group_size %lld is not positive",
                         (long long)group_size);
    if (c % group_size != 0)
        return lg__error(LG_INVALID_ARGUMENT, "lg_graph_compile",
                         "group_size %lld does not divide dims[%d] = %lld", (long long)group_size,
                         axis, (long long)c);

    lg__shuffle_ex_pd pd;
    memset(&pd, 0, sizeof pd);
    lg__md_canon(src, &pd.src);
    lg__md_canon(dst, &pd.dst);
    if (memcmp(&pd.src, &pd.dst, sizeof pd.src) == 0)
        return lg_shuffle_create(k, prop, src, axis, group_size);
    pd.prop = (int32_t)prop;
    pd.axis = axis;
    pd.group = group_size;
    return lg__cache_get(LG_KIND_SHUFFLE, &pd, sizeof pd, build_shuffle_ex, k);
}
