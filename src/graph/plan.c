/* lg_plan's life: creation of the shell, statistics, queries, destruction
 * (which waits for asynchronous executions still running). */
#include "graph/plan.h"

#include <string.h>

lg_plan *lg__plan_new(void) {
    lg_plan *p = lg__calloc(1, sizeof *p);
    if (!p) return NULL;
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
    uv_cond_destroy(&p->async_cv);
    uv_mutex_destroy(&p->async_mu);
    uv_mutex_destroy(&p->pool_mu);
    lg__free(p);
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
