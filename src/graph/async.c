/* lg_plan_execute_async: the bindings are checked and resolved at once (an
 * error returns without queuing anything), then the run is queued on libuv's
 * thread pool. The worker signals the plan when it is done with it (so that
 * lg_plan_destroy can wait for it); the loop thread then calls `done` with
 * the status, this thread's lg_last_error() holding the worker's message
 * when it failed. The request touches only its own memory after the worker
 * signalled, so the plan may be destroyed before `done` runs. */
#include "graph/plan.h"

#include <string.h>

typedef struct async_req {
    uv_work_t work;
    const lg_plan *plan;
    lg_done_cb done;
    void *user;
    lg_status status;
    char error[1024];
    void *ptrs[]; /* resolved inputs then outputs */
} async_req;

static void end_inflight(const lg_plan *p) {
    lg_plan *mp = (lg_plan *)p;
    uv_mutex_lock(&mp->async_mu);
    if (--mp->inflight == 0) uv_cond_broadcast(&mp->async_cv);
    uv_mutex_unlock(&mp->async_mu);
}

static void work_cb(uv_work_t *w) {
    async_req *r = w->data;
    r->status = lg__plan_run(r->plan, r->ptrs);
    if (r->status != LG_OK) snprintf(r->error, sizeof r->error, "%s", lg_last_error());
    end_inflight(r->plan); /* the plan may be freed from here on */
}

static void after_cb(uv_work_t *w, int uv_status) {
    async_req *r = w->data;
    lg_status s = r->status;
    if (uv_status != 0) {
        /* Cancelled: the worker never ran, so the count is still ours. */
        end_inflight(r->plan);
        s = lg__error(LG_RUNTIME_ERROR, "lg_plan_execute_async", "the execution was cancelled");
    } else if (s != LG_OK) {
        lg__error_copy(r->error);
    }
    if (r->done) r->done(s, r->user);
    lg__free(r);
}

lg_status lg_plan_execute_async(const lg_plan *p, struct uv_loop_s *loop, int nin,
                                const lg_binding *in, int nout, const lg_binding *out,
                                lg_done_cb done, void *user_data) {
    if (!p || !loop) return LG_ERROR(LG_INVALID_ARGUMENT, "%s is NULL", !p ? "plan" : "loop");
    size_t n = (size_t)p->nin + (size_t)p->nout;
    async_req *r = lg__calloc(1, sizeof *r + (n + 1) * sizeof(void *));
    if (!r) return LG_ERROR(LG_OUT_OF_MEMORY, "cannot allocate an asynchronous request");
    lg_status s = lg__plan_resolve(p, nin, in, nout, out, r->ptrs, __func__);
    if (s != LG_OK) {
        lg__free(r);
        return s;
    }
    r->plan = p;
    r->done = done;
    r->user = user_data;
    r->work.data = r;
    lg_plan *mp = (lg_plan *)p;
    uv_mutex_lock(&mp->async_mu);
    mp->inflight++;
    uv_mutex_unlock(&mp->async_mu);
    int e = uv_queue_work(loop, &r->work, work_cb, after_cb);
    if (e != 0) {
        end_inflight(p);
        lg__free(r);
        return LG_ERROR(LG_RUNTIME_ERROR, "uv_queue_work failed: %s", uv_strerror(e));
    }
    return LG_OK;
}
