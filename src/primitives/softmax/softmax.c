/* lg_softmax_create: validate, canonicalise into the cache key, plan the
 * vector path, and the execution driver.
 *
 * Paths (impl "softmax:<isa>:<path>"):
 *  - horizontal: the axis is the contiguous dim (plain, stride 1) or the
 *    blocked one (aBcd16b over C): rows of contiguous segments reduced
 *    across lanes.
 *  - vertical: another dim is contiguous: lanes along it (merged with the
 *    dims that continue it densely, or a channel block), one maximum and
 *    sum per lane while stepping along the axis.
 *  - "softmax:ref": the scalar cap, layouts with several inner blocks or
 *    without a unit-stride dim, and src / dst of different layouts or types.
 * Rows are split across the OpenMP threads. */
#include "primitives/softmax/softmax.h"

#include "primitives/cache.h"
#include "primitives/layout.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#define SMX_ERR(status, ...) lg__error((status), "lg_softmax_create", __VA_ARGS__)

/* Elements from which all threads run. */
#define PAR_WORK 16384
/* Lanes per vertical row (a long run is split for the threads). */
#define VCHUNK 256

typedef struct softmax_data {
    lg__softmax_pd pd;
    lg__softmax_plan plan;
    lg__softmax_fn rows; /* NULL: the reference */
    int64_t *padtab;
    int64_t n;
} softmax_data;

static lg_status softmax_execute(const lg_kernel *k, void *const *bufs) {
    const softmax_data *s = k->data;
    if (!s->rows) {
        lg__softmax_ref(&s->pd, s->padtab, bufs[0], bufs[1]);
        return LG_OK;
    }
    int64_t rows = lg__softmax_rows(&s->plan);
    int nthr = s->n >= PAR_WORK && !omp_in_parallel() ? omp_get_max_threads() : 1;
    if (nthr > rows) nthr = rows > 0 ? (int)rows : 1;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
        if (r0 < r1) s->rows(&s->plan, bufs[0], bufs[1], r0, r1);
    }
    return LG_OK;
}

static void softmax_destroy(lg_kernel *k) {
    softmax_data *s = k->data;
    if (s) lg__free(s->padtab);
    lg__free(s);
}

static const lg__kernel_ops softmax_ops = {softmax_execute, softmax_destroy};

static void add_outer(lg__softmax_plan *p, int64_t ext, int64_t st) {
    p->ext[p->nouter] = ext;
    p->st[p->nouter++] = st;
}

/* Fill the vector plan; false when the layout has none. */
static bool make_plan(const lg__softmax_pd *pd, lg__softmax_plan *p) {
    const lg_md *md = &pd->src;
    const int nd = md->ndims, ax = pd->axis, nb = md->blocking.inner_nblks;
    const int64_t *st = md->blocking.strides;
    memset(p, 0, sizeof *p);
    p->pd = pd;
    p->vdim = -1;
    p->A = md->dims[ax];
    p->ax_stride = st[ax];
    if (nb > 1) return false;
    if (nb == 1) {
        const int bd = md->blocking.inner_idxs[0];
        const int64_t B = md->blocking.inner_blks[0];
        p->horizontal = bd == ax;
        if (p->horizontal) {
            p->nseg = md->padded_dims[ax] / B;
            p->seglen = B;
            p->seg_stride = st[ax];
            p->last_valid = p->A - (p->nseg - 1) * B;
        } else {
            p->run = B;
        }
        for (int d = 0; d < nd; d++) {
            if (d == ax) continue;
            if (d == bd && !p->horizontal) {
                p->vdim = p->nouter;
                p->vlim = md->dims[d];
                add_outer(p, md->padded_dims[d] / B, st[d]);
            } else if (md->dims[d] > 1) {
                add_outer(p, md->dims[d], st[d]);
            }
        }
    } else {
        int d1 = -1;
        for (int d = 0; d < nd; d++)
            if (st[d] == 1 && md->dims[d] > 1 && (d1 < 0 || d == ax)) d1 = d;
        if (d1 < 0) d1 = ax; /* every dim of size 1 but maybe the axis */
        if (d1 == ax && st[ax] != 1 && p->A > 1) return false;
        bool merged[LG_MAX_NDIMS] = {false};
        if (d1 == ax) {
            p->horizontal = true;
            p->nseg = 1;
            p->seglen = p->last_valid = p->A;
        } else {
            merged[d1] = true;
            p->run = md->dims[d1];
            for (bool more = true; more;) {
                more = false;
                for (int d = 0; d < nd; d++)
                    if (d != ax && !merged[d] && md->dims[d] > 1 && st[d] == p->run) {
                        merged[d] = true;
                        p->run *= md->dims[d];
                        more = true;
                    }
            }
        }
        for (int d = 0; d < nd; d++)
            if (d != ax && !merged[d] && md->dims[d] > 1) add_outer(p, md->dims[d], st[d]);
    }
    if (!p->horizontal) {
        p->chunk = p->run > VCHUNK ? VCHUNK : p->run;
        p->nchunk = (p->run + p->chunk - 1) / p->chunk;
    }
    return true;
}

static lg_status build_softmax(const void *problem, lg_kernel **out) {
    const lg__softmax_pd *pd = problem;
    lg_kernel *k = lg__kernel_new(LG_KIND_SOFTMAX, &softmax_ops, sizeof(softmax_data));
    if (!k) return SMX_ERR(LG_OUT_OF_MEMORY, "cannot allocate a softmax kernel");
    softmax_data *s = k->data;
    s->pd = *pd;
    s->n = lg__md_nelems_padded(&pd->src);
    lg__isa isa = lg__cpu_isa();
    bool fast =
        isa != LG_ISA_SCALAR && lg_md_equal(&pd->src, &pd->dst) && make_plan(&s->pd, &s->plan);
    if (fast) {
        s->plan.pd = &s->pd;
        s->rows = isa == LG_ISA_AVX512 ? lg__softmax_rows_avx512 : lg__softmax_rows_avx2;
        snprintf(k->impl, sizeof k->impl, "softmax:%s:%s", lg__isa_name(isa),
                 s->plan.horizontal ? "horizontal" : "vertical");
    } else {
        snprintf(k->impl, sizeof k->impl, "softmax:ref");
        if (lg__md_has_padding(&pd->dst)) {
            s->padtab = lg__offtab_new(&pd->dst, pd->dst.padded_dims, false);
            if (!s->padtab) {
                lg_kernel_destroy(k);
                return SMX_ERR(LG_OUT_OF_MEMORY, "cannot allocate a padding table");
            }
        }
    }
    char sm[96], dm[96];
    lg__md_describe(&pd->src, sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    snprintf(k->desc, sizeof k->desc, "alg:%s axis:%d src:%s dst:%s",
             pd->alg ? "logsoftmax" : "softmax", pd->axis, sm, dm);
    k->inplace_src = lg__kernel_add_slot(k, LG_ARG_SRC, true, &pd->src, 0);
    k->inplace_dst = lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    *out = k;
    return LG_OK;
}

static bool float_type(lg_dtype dt) {
    return dt == LG_F32 || dt == LG_BF16 || dt == LG_F16;
}

lg_status lg_softmax_create(lg_kernel **k, lg_softmax_alg alg, int axis, const lg_md *src,
                            const lg_md *dst) {
    if (!k) return SMX_ERR(LG_INVALID_ARGUMENT, "kernel pointer is NULL");
    *k = NULL;
    if (!src) return SMX_ERR(LG_INVALID_ARGUMENT, "src md is NULL");
    LG_CHECK(lg__md_check(src, "lg_softmax_create", "src md"));
    if (lg_md_is_any(src)) return SMX_ERR(LG_INVALID_ARGUMENT, "src md is 'any'");
    if ((unsigned)alg > 1u)
        return SMX_ERR(LG_INVALID_ARGUMENT, "alg %d is not an lg_softmax_alg", (int)alg);
    if (axis < 0 || axis >= src->ndims)
        return SMX_ERR(LG_INVALID_ARGUMENT, "axis %d is out of range for src md of %d dims", axis,
                       src->ndims);
    for (int d = 0; d < src->ndims; d++)
        if (src->dims[d] < 1)
            return SMX_ERR(LG_INVALID_ARGUMENT, "src md dim %d is %lld (must be >= 1)", d,
                           (long long)src->dims[d]);
    if (!float_type(src->dtype))
        return SMX_ERR(LG_UNIMPLEMENTED, "src md is %s (softmax takes f32, bf16, f16)",
                       lg_dtype_str(src->dtype));
    lg__softmax_pd pd;
    memset(&pd, 0, sizeof pd);
    pd.alg = (int32_t)alg;
    pd.axis = axis;
    lg__md_canon(src, &pd.src);
    if (!dst || lg_md_is_any(dst)) {
        if (dst) LG_CHECK(lg__md_check(dst, "lg_softmax_create", "dst md"));
        bool same = !dst || (dst->ndims == src->ndims && dst->dtype == src->dtype);
        for (int d = 0; same && dst && d < src->ndims; d++) same = dst->dims[d] == src->dims[d];
        if (!same)
            return SMX_ERR(LG_INVALID_ARGUMENT,
                           "dst md ('any') differs from src md in dims or type");
        pd.dst = pd.src;
    } else {
        LG_CHECK(lg__md_check(dst, "lg_softmax_create", "dst md"));
        bool same = dst->ndims == src->ndims;
        for (int d = 0; same && d < src->ndims; d++) same = dst->dims[d] == src->dims[d];
        if (!same) return SMX_ERR(LG_INVALID_ARGUMENT, "dst md dims differ from src md's");
        if (!float_type(dst->dtype))
            return SMX_ERR(LG_UNIMPLEMENTED, "dst md is %s (softmax takes f32, bf16, f16)",
                           lg_dtype_str(dst->dtype));
        lg__md_canon(dst, &pd.dst);
    }
    return lg__cache_get(LG_KIND_SOFTMAX, &pd, sizeof pd, build_softmax, k);
}
