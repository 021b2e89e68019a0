/* lg_plan_execute: bind the caller's buffers by name, take an arena from the
 * plan's pool (allocating one only when every arena is in use, i.e. the
 * first time a thread runs concurrently), run the steps, give it back. The
 * hot path allocates nothing else; kernels run directly on their slots
 * (the plan has checked their buffers at compile time), and LG_VERBOSE
 * prints one line per step here (not per kernel call as well). */
#include "graph/plan.h"

#include <omp.h>
#include <string.h>

/* Index of the io named `name`, or -1. */
static int find_io(const lg__io *ios, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ios[i].name, name) == 0) return i;
    return -1;
}

static lg_status bind_side(const lg_plan *p, bool out, int nb, const lg_binding *b, void **ptrs,
                           const char *where) {
    const char *side = out ? "output" : "input";
    const lg__io *ios = out ? p->outs : p->ins;
    int nio = out ? p->nout : p->nin;
    if (nb < 0 || (nb > 0 && !b))
        return lg__error(LG_INVALID_ARGUMENT, where, "%d %s bindings at %p", nb, side,
                         (const void *)b);
    for (int i = 0; i < nio; i++) ptrs[i] = NULL;
    for (int j = 0; j < nb; j++) {
        if (!b[j].name)
            return lg__error(LG_INVALID_ARGUMENT, where, "%s binding %d has a NULL name", side, j);
        int i = find_io(ios, nio, b[j].name);
        if (i < 0) {
            bool other = find_io(out ? p->ins : p->outs, out ? p->nin : p->nout, b[j].name) >= 0;
            return lg__error(LG_INVALID_ARGUMENT, where, "%s binding %d: the plan has no %s '%s'%s",
                             side, j, side, b[j].name,
                             other ? (out ? " (it is an input)" : " (it is an output)") : "");
        }
        if (!b[j].data)
            return lg__error(LG_INVALID_ARGUMENT, where, "%s '%s' is bound to NULL", side,
                             b[j].name);
        if (ptrs[i])
            return lg__error(LG_INVALID_ARGUMENT, where, "%s '%s' is bound twice", side, b[j].name);
        size_t elt = lg_dtype_size(ios[i].md.dtype);
        if (!lg__buf_aligned(b[j].data, elt))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "%s '%s': buffer %p is not aligned to its %zu-byte elements", side,
                             b[j].name, b[j].data, elt);
        ptrs[i] = b[j].data;
    }
    for (int i = 0; i < nio; i++)
        if (!ptrs[i])
            return lg__error(LG_INVALID_ARGUMENT, where, "%s '%s' is not bound", side, ios[i].name);
    return LG_OK;
}

static bool overlap(const void *a, size_t na, const void *b, size_t nb) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

lg_status lg__plan_resolve(const lg_plan *p, int nin, const lg_binding *in, int nout,
                           const lg_binding *out, void **ptrs, const char *where) {
    LG_CHECK(bind_side(p, false, nin, in, ptrs, where));
    LG_CHECK(bind_side(p, true, nout, out, ptrs + p->nin, where));
    /* Outputs are written: they may overlap no other buffer. */
    for (int o = 0; o < p->nout; o++) {
        size_t so = lg_md_size(&p->outs[o].md);
        for (int i = 0; i < p->nin + p->nout; i++) {
            if (i == p->nin + o) continue;
            const lg__io *io = i < p->nin ? &p->ins[i] : &p->outs[i - p->nin];
            if (overlap(ptrs[p->nin + o], so, ptrs[i], lg_md_size(&io->md)))
                return lg__error(LG_INVALID_ARGUMENT, where, "output '%s' overlaps %s '%s'",
                                 p->outs[o].name, i < p->nin ? "input" : "output", io->name);
        }
    }
    return LG_OK;
}

/* An arena from the pool, or a new one; NULL when out of memory. */
static lg__arena *arena_pop(lg_plan *p) {
    uv_mutex_lock(&p->pool_mu);
    lg__arena *a = p->pool;
    if (a) p->pool = a->next;
    uv_mutex_unlock(&p->pool_mu);
    if (a) return a;
    a = lg__calloc(1, sizeof *a);
    if (!a) return NULL;
    a->mem = lg__aligned_alloc(64, (size_t)p->arena_bytes);
    a->bases = lg__calloc((size_t)p->nbases, sizeof *a->bases);
    if (!a->mem || !a->bases) {
        lg__free(a->mem);
        lg__free(a->bases);
        lg__free(a);
        return NULL;
    }
    a->bases[0] = a->mem;
    for (int c = 0; c < p->nconst; c++) a->bases[1 + p->nin + p->nout + c] = p->consts[c];
    return a;
}

static void arena_push(lg_plan *p, lg__arena *a) {
    uv_mutex_lock(&p->pool_mu);
    a->next = p->pool;
    p->pool = a;
    uv_mutex_unlock(&p->pool_mu);
}

/* Run every step; with ms, add each one's wall time there. */
static lg_status run_steps(const lg_plan *p, void *const *bases, double *ms) {
    bool verbose = lg__verbose() > 0, timed = verbose || ms;
    for (int i = 0; i < p->nsteps; i++) {
        const lg__step *st = &p->steps[i];
        void *bufs[LG_KERNEL_MAX_ARGS];
        for (int j = 0; j < st->nbufs; j++)
            bufs[j] =
                st->bufs[j].base < 0 ? NULL : (char *)bases[st->bufs[j].base] + st->bufs[j].offset;
        const lg_kernel *k = st->kernel;
        double t0 = timed ? lg__now_ms() : 0;
        lg_status s = st->state ? k->prep->execute(k, bufs, st->state) : k->ops->execute(k, bufs);
        double t = timed ? lg__now_ms() - t0 : 0;
        if (ms) ms[i] += t;
        if (verbose)
            lg__verbose_printf("lgraph_verbose,exec,%s,%s,%s,%.4f\n", lg__kind_name(k->kind),
                               k->impl, k->desc, t);
        if (s != LG_OK) return s;
    }
    return LG_OK;
}

/* Run with the arena a (bases for inputs and outputs filled): once, or
 * once per batch slice with the input and output bases moved to it (they
 * are put back before returning, so the arena's table stays as bound). */
static lg_status run_with(const lg_plan *p, lg__arena *a, double *ms) {
    int saved = 0;
    if (p->num_threads > 0) {
        saved = omp_get_max_threads();
        omp_set_num_threads(p->num_threads);
    }
    if (ms)
        for (int i = 0; i < p->nsteps; i++) ms[i] = 0;
    lg_status s = run_steps(p, a->bases, ms);
    int nio = p->nin + p->nout, moved = 0;
    for (; moved + 1 < p->slices && s == LG_OK; moved++) {
        for (int i = 0; i < nio; i++) a->bases[1 + i] = (char *)a->bases[1 + i] + p->slice_bytes[i];
        s = run_steps(p, a->bases, ms);
    }
    for (int i = 0; moved && i < nio; i++)
        a->bases[1 + i] = (char *)a->bases[1 + i] - (int64_t)moved * p->slice_bytes[i];
    if (p->num_threads > 0) omp_set_num_threads(saved);
    return s;
}

lg_status lg__plan_run(const lg_plan *p, void *const *ptrs) {
    lg_plan *mp = (lg_plan *)p; /* the pool is the only mutable part */
    lg__arena *a = arena_pop(mp);
    if (!a)
        return lg__error(LG_OUT_OF_MEMORY, "lg_plan_execute_async",
                         "cannot allocate an arena of %lld bytes", (long long)p->arena_bytes);
    memcpy(a->bases + 1, ptrs, (size_t)(p->nin + p->nout) * sizeof *ptrs);
    lg_status s = run_with(p, a, NULL);
    arena_push(mp, a);
    return s;
}

lg_status lg__plan_execute_timed(const lg_plan *p, int nin, const lg_binding *in, int nout,
                                 const lg_binding *out, double *ms, const char *where) {
    if (!p) return lg__error(LG_INVALID_ARGUMENT, where, "plan is NULL");
    lg_plan *mp = (lg_plan *)p;
    lg__arena *a = arena_pop(mp);
    if (!a)
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate an arena of %lld bytes",
                         (long long)p->arena_bytes);
    lg_status s = lg__plan_resolve(p, nin, in, nout, out, a->bases + 1, where);
    if (s == LG_OK) s = run_with(p, a, ms);
    arena_push(mp, a);
    return s;
}

lg_status lg_plan_execute(const lg_plan *p, int nin, const lg_binding *in, int nout,
                          const lg_binding *out) {
    return lg__plan_execute_timed(p, nin, in, nout, out, NULL, __func__);
}
