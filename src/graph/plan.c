/* lg_plan's life: creation of the shell, statistics, queries, destruction
 * (which waits for asynchronous executions still running). */
#include "graph/plan.h"

#include <stdio.h>
#include <string.h>

lg_plan *lg__plan_new(void) {
    lg_plan *p = lg__calloc(1, sizeof *p);
    if (!p) return NULL;
    p->slices = 1;
    if (uv_mutex_init(&p->pool_mu) != 0) goto fail_pool;
    if (uv_mutex_init(&p->async_mu) != 0) goto fail_async;
    if (uv_cond_init(&p->async_cv) != 0) goto fail_cond;
    return p;
fail_cond:
    uv_mutex_destroy(&p->async_mu);
fail_async:
    uv_mutex_destroy(&p->pool_mu);
fail_pool:
    lg__free(p);
    return NULL;
}

void lg_plan_destroy(lg_plan *p) {
    if (!p) return;
    uv_mutex_lock(&p->async_mu);
    while (p->inflight > 0) uv_cond_wait(&p->async_cv, &p->async_mu);
    uv_mutex_unlock(&p->async_mu);
    for (int i = 0; i < p->nsteps; i++) {
        lg_kernel *k = p->steps[i].kernel;
        if (p->steps[i].state) k->prep->release(p->steps[i].state);
        lg_kernel_destroy(k);
    }
    for (int i = 0; p->ins && i < p->nin; i++) lg__free(p->ins[i].name);
    for (int i = 0; p->outs && i < p->nout; i++) lg__free(p->outs[i].name);
    for (int c = 0; c < p->nconst; c++) lg__free(p->consts[c]);
    while (p->pool) {
        lg__arena *a = p->pool;
        p->pool = a->next;
        lg__free(a->mem);
        lg__free(a->bases);
        lg__free(a);
    }
    lg__free(p->steps);
    lg__free(p->ins);
    lg__free(p->outs);
    lg__free(p->consts);
    lg__free(p->tensors);
    lg__free(p->slice_bytes);
    uv_cond_destroy(&p->async_cv);
    uv_mutex_destroy(&p->async_mu);
    uv_mutex_destroy(&p->pool_mu);
    lg__free(p);
}

/* True when md's dim 0 is outermost, unblocked and unpadded, and the
 * elements of one index of it are dense behind each other: then slices of
 * dim 0 lie one after another, each lg_md_size(md) / dims[0] bytes. */
static bool dim0_slices(const lg_md *md) {
    if (md->ndims < 1 || md->format_kind != LG_FMT_BLOCKED || md->offset0 != 0 || md->dims[0] < 1 ||
        md->padded_dims[0] != md->dims[0])
        return false;
    for (int b = 0; b < md->blocking.inner_nblks; b++)
        if (md->blocking.inner_idxs[b] == 0) return false;
    size_t elt = lg_dtype_size(md->dtype);
    return elt && (size_t)md->blocking.strides[0] * elt * (size_t)md->dims[0] == lg_md_size(md);
}

lg_status lg__plan_set_slices(lg_plan *p, int slices, const char *where) {
    p->stats.batch_slices = 1;
    if (slices <= 1) return LG_OK;
    int nio = p->nin + p->nout;
    for (int i = 0; i < nio; i++) {
        const lg__io *io = i < p->nin ? &p->ins[i] : &p->outs[i - p->nin];
        if (!dim0_slices(&io->md)) {
            char tag[64] = "";
            if (lg_md_tag(&io->md, tag, sizeof tag) != LG_OK) snprintf(tag, sizeof tag, "strided");
            return lg__error(LG_UNIMPLEMENTED, where,
                             "batch_slices %d: %s '%s' (layout %s) does not keep dim 0 outermost "
                             "and unblocked, so its batch slices are not consecutive",
                             slices, i < p->nin ? "input" : "output", io->name, tag);
        }
        /* The whole batch must stay addressable. */
        if (io->md.dims[0] > INT64_MAX / slices ||
            lg_md_size(&io->md) > (size_t)INT64_MAX / (size_t)slices)
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "batch_slices %d: %s '%s' of %zu bytes overflows", slices,
                             i < p->nin ? "input" : "output", io->name, lg_md_size(&io->md));
    }
    p->slice_bytes = lg__calloc((size_t)nio + 1, sizeof *p->slice_bytes);
    if (!p->slice_bytes) return lg__error(LG_OUT_OF_MEMORY, where, "out of memory");
    for (int i = 0; i < nio; i++) {
        lg__io *io = i < p->nin ? &p->ins[i] : &p->outs[i - p->nin];
        p->slice_bytes[i] = (int64_t)lg_md_size(&io->md);
        io->md.dims[0] *= slices;
        io->md.padded_dims[0] = io->md.dims[0];
    }
    p->slices = slices;
    p->stats.batch_slices = slices;
    p->stats.model_ms *= slices;
    return LG_OK;
}

lg_status lg_plan_stats_get(const lg_plan *p, lg_plan_stats *s) {
    if (!p || !s) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !p ? "plan" : "stats");
    *s = p->stats;
    return LG_OK;
}

lg_status lg_plan_query_md(const lg_plan *p, const char *name, lg_md *md) {
    if (!p || !name || !md)
        return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !p ? "plan" : !name ? "name" : "md");
    for (int i = 0; i < p->nin; i++)
        if (strcmp(p->ins[i].name, name) == 0) {
            *md = p->ins[i].md;
            return LG_OK;
        }
    for (int i = 0; i < p->nout; i++)
        if (strcmp(p->outs[i].name, name) == 0) {
            *md = p->outs[i].md;
            return LG_OK;
        }
    return LG_ERROR(LG_INVALID_ARGUMENT, "the plan has no input or output named '%s'", name);
}
