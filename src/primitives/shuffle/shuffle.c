/* lg_shuffle_create: validate the problem, canonicalise it into the cache
 * key, and bind it to a plan (planes, SIMD permutes, tables) or, when no
 * plan takes it, the reference. */
#include "primitives/shuffle/shuffle.h"

#include "primitives/cache.h"

#include <string.h>

/* The kind's private data: the problem and its plan (NULL: the reference). */
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
    lg_status st = lg__shuffle_plan(pd, lg__cpu_isa(), &s->plan);
    if (st == LG_OUT_OF_MEMORY) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, "lg_shuffle_create", "cannot allocate a shuffle plan");
    }
    if (st != LG_OK) s->plan = NULL;
    snprintf(k->impl, sizeof k->impl, "shuffle:%s", s->plan ? s->plan->impl : "ref");
    char md[96];
    lg__md_describe(&pd->md, md, sizeof md);
    snprintf(k->desc, sizeof k->desc, "%s md:%s axis:%d group:%lld",
             pd->prop == LG_FORWARD ? "fwd" : "bwd", md, (int)pd->axis, (long long)pd->group);

    bool fwd = pd->prop == LG_FORWARD;
    lg__kernel_add_slot(k, fwd ? LG_ARG_SRC : LG_ARG_DIFF_DST, true, &pd->md, 0);
    lg__kernel_add_slot(k, fwd ? LG_ARG_DST : LG_ARG_DIFF_SRC, true, &pd->md, 0);
    *out = k;
    return LG_OK;
}

lg_status lg_shuffle_create(lg_kernel **k, lg_prop prop, const lg_md *md, int axis,
                            int64_t group_size) {
    if (!k) return LG_ERROR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    LG_CHECK(lg__md_check(md, __func__, "md"));
    if (lg_md_is_any(md)) return LG_ERROR(LG_INVALID_ARGUMENT, "md is 'any'");
    if (prop != LG_FORWARD && prop != LG_BACKWARD)
        return LG_ERROR(LG_INVALID_ARGUMENT, "prop %d is neither LG_FORWARD nor LG_BACKWARD",
                        (int)prop);
    if (axis < 0 || axis >= md->ndims)
        return LG_ERROR(LG_INVALID_ARGUMENT, "axis %d is out of range for %d dims", axis,
                        md->ndims);
    int64_t c = md->dims[axis];
    if (group_size <= 0)
        return LG_ERROR(LG_INVALID_ARGUMENT, "group_size %lld is not positive",
                        (long long)group_size);
    if (c % group_size != 0)
        return LG_ERROR(LG_INVALID_ARGUMENT, "group_size %lld does not divide dims[%d] = %lld",
                        (long long)group_size, axis, (long long)c);

    lg__shuffle_pd pd;
    memset(&pd, 0, sizeof pd);
    lg__md_canon(md, &pd.md);
    pd.prop = (int32_t)prop;
    pd.axis = axis;
    pd.group = group_size;
    return lg__cache_get(LG_KIND_SHUFFLE, &pd, sizeof pd, build_shuffle, k);
}
