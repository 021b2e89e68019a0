/* lg_concat_create and lg_slice_create: validate, build the cache key,
 * choose the path, and the execution driver.
 *
 * Paths (impl "<kind>:..."), first that fits:
 *  - "<isa>:blocked": sources and dst in one natural channel-blocked layout
 *    (aBcd16b along axis 1), the axis the blocked one; offsets need not be
 *    block multiples (blocked.c, blocked_avx2.c, blocked_avx512.c);
 *  - "rows": sources and dst dense, unblocked, in one dim order: one memcpy
 *    per run of the dims inside the axis;
 *  - "views": every piece's place in dst (and, for a slice, in src) is a
 *    view (lg_md_submemory): one reorder kernel per piece;
 *  - "ref": the scalar reference.
 * Each path is given every source buffer and dst (bufs[0..nsrc), bufs[nsrc]). */
#include "primitives/concat/concat.h"

#include "primitives/cache.h"
#include "primitives/reorder/reorder.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

/* Bytes from which all threads run. */
#define PAR_BYTES 65536
/* Longest run (bytes) the rows path copies inline rather than by memcpy. */
#define SHORT_RUN 2048

typedef enum path { PATH_REF, PATH_BLOCKED, PATH_ROWS, PATH_VIEWS } path;

typedef struct cc_data {
    lg__cc_pd *pd;
    lg__cc_piece *pc;
    path path;
    lg__cc_blocked blk;
    lg__cc_rows_fn rows;
    lg__cc_runs_fn runs;  /* rows path: short runs */
    int64_t outer, inner; /* rows path: runs of inner elements */
    lg_kernel **views;    /* views path: one reorder per piece */
    size_t bytes;         /* dst bytes */
} cc_data;

static int nsrc_of(const lg__cc_pd *pd) {
    return pd->slice ? 1 : pd->n;
}

static void run_blocked(const cc_data *c, void *const *bufs) {
    const lg__cc_blocked *b = &c->blk;
    void *dst = bufs[nsrc_of(c->pd)];
    const void *const *srcs = (const void *const *)bufs;
    int nthr = c->bytes >= PAR_BYTES && !omp_in_parallel() ? omp_get_max_threads() : 1;
    int64_t rch = 1;
    while (b->N * b->dcb * rch < 8 * (int64_t)nthr && b->R / (rch * 2) >= 16) rch *= 2;
    int64_t items = b->N * b->dcb * rch;
#pragma omp parallel for num_threads(nthr) if (nthr > 1) schedule(static)
    for (int64_t it = 0; it < items; it++) {
        int64_t ch = it % rch, nj = it / rch;
        int64_t r0 = b->R * ch / rch, r1 = b->R * (ch + 1) / rch;
        c->rows(b, srcs, dst, nj / b->dcb, nj % b->dcb, r0, r1);
    }
}

void lg__cc_runs_scalar(const lg__cc_runs *r, uint8_t *dst, int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; o++)
        for (int p = 0; p < r->npc; p++)
            memcpy(dst + o * r->dstride + r->doff[p], r->src[p] + o * r->sstride[p],
                   (size_t)r->run[p]);
}

static void run_rows(const cc_data *c, void *const *bufs) {
    const lg__cc_pd *pd = c->pd;
    const int npc = pd->n, ax = pd->axis;
    const int64_t es = (int64_t)lg_dtype_size(pd->dst.dtype), in = c->inner;
    const int64_t cd = pd->dst.dims[ax];
    uint8_t *dst = bufs[nsrc_of(pd)];
    int nthr = c->bytes >= PAR_BYTES && !omp_in_parallel() ? omp_get_max_threads() : 1;
    int64_t maxrun = 0;
    for (int p = 0; p < npc; p++)
        if (c->pc[p].len * in * es > maxrun) maxrun = c->pc[p].len * in * es;
    if (maxrun <= SHORT_RUN && npc <= LG_CC_RUNS_MAX) {
        /* Short runs (channels last: channels of every pixel): one call per
         * thread over an equal range of outer indices, each moving the same
         * bytes, the runs copied inline. */
        lg__cc_runs r;
        r.npc = npc;
        r.dstride = cd * in * es;
        for (int p = 0; p < npc; p++) {
            const lg__cc_piece *q = &c->pc[p];
            const int si = pd->slice ? 0 : p;
            r.src[p] = (const uint8_t *)bufs[si] + q->s0 * in * es;
            r.sstride[p] = pd->src[si].dims[ax] * in * es;
            r.doff[p] = q->d0 * in * es;
            r.run[p] = q->len * in * es;
        }
        if (nthr > c->outer) nthr = c->outer > 0 ? (int)c->outer : 1;
        if (nthr == 1) {
            c->runs(&r, dst, 0, c->outer);
            return;
        }
#pragma omp parallel num_threads(nthr)
        {
            int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            int64_t o0 = c->outer * t / nt, o1 = c->outer * (t + 1) / nt;
            if (o0 < o1) c->runs(&r, dst, o0, o1);
        }
        return;
    }
    /* Long runs are cut into chunks so that few runs still feed every thread. */
    int64_t nch = 1;
    while (c->outer * npc * nch < 4 * (int64_t)nthr && maxrun / (nch * 2) >= 16384) nch *= 2;
    int64_t items = c->outer * npc * nch;
#pragma omp parallel for num_threads(nthr) if (nthr > 1) schedule(static)
    for (int64_t it = 0; it < items; it++) {
        int64_t ch = it % nch, op = it / nch;
        int p = (int)(op % npc);
        int64_t o = op / npc;
        const lg__cc_piece *q = &c->pc[p];
        const int si = pd->slice ? 0 : p;
        const int64_t cs = pd->src[si].dims[ax], run = q->len * in * es;
        int64_t b0 = run * ch / nch, b1 = run * (ch + 1) / nch;
        const uint8_t *s = (const uint8_t *)bufs[si] + (o * cs + q->s0) * in * es;
        memcpy(dst + (o * cd + q->d0) * in * es + b0, s + b0, (size_t)(b1 - b0));
    }
}

static void run_views(const cc_data *c, void *const *bufs) {
    const lg__cc_pd *pd = c->pd;
    for (int p = 0; p < pd->n; p++) {
        const lg_kernel *k = c->views[p]; /* a reorder: nslots <= LG_KERNEL_MAX_ARGS */
        void *kb[LG_KERNEL_MAX_ARGS] = {NULL};
        for (int s = 0; s < k->nslots; s++)
            if (k->slots[s].arg == LG_ARG_SRC)
                kb[s] = bufs[pd->slice ? 0 : p];
            else if (k->slots[s].arg == LG_ARG_DST)
                kb[s] = bufs[nsrc_of(pd)];
        k->ops->execute(k, kb);
    }
}

static lg_status cc_execute(const lg_kernel *k, void *const *bufs) {
    const cc_data *c = k->data;
    switch (c->path) {
    case PATH_BLOCKED:
        run_blocked(c, bufs);
        break;
    case PATH_ROWS:
        run_rows(c, bufs);
        break;
    case PATH_VIEWS:
        run_views(c, bufs);
        break;
    default:
        lg__cc_ref(c->pd, c->pc, (const void *const *)bufs, bufs[nsrc_of(c->pd)]);
        break;
    }
    return LG_OK;
}

static void cc_destroy(lg_kernel *k) {
    cc_data *c = k->data;
    if (!c) return;
    lg__cc_blocked_free(&c->blk);
    if (c->views)
        for (int p = 0; p < c->pd->n; p++) lg_kernel_destroy(c->views[p]);
    lg__free(c->views);
    lg__free(c->pc);
    lg__free(c->pd);
    lg__free(c);
}

static const lg__kernel_ops cc_ops = {cc_execute, cc_destroy};

/* Rows path: every md dense and unblocked, with one order of its dims of
 * extent > 1, and the same dims inside the axis (their product, the run
 * unit, is the axis stride). */
static bool rows_plan(const lg__cc_pd *pd, cc_data *c) {
    const int nd = pd->dst.ndims, ax = pd->axis, nsrc = nsrc_of(pd);
    const lg_md *dm = &pd->dst;
    for (int i = -1; i < nsrc; i++) {
        const lg_md *m = i < 0 ? dm : &pd->src[i];
        if (m->format_kind != LG_FMT_BLOCKED || m->blocking.inner_nblks || m->offset0 ||
            !lg__md_is_dense(m))
            return false;
        int64_t inner = 1;
        for (int d = 0; d < nd; d++) {
            if (d == ax || m->dims[d] == 1) continue;
            if ((m->blocking.strides[d] < m->blocking.strides[ax]) !=
                (dm->blocking.strides[d] < dm->blocking.strides[ax]))
                return false;
            if (m->blocking.strides[d] < m->blocking.strides[ax]) inner *= m->dims[d];
            for (int e = 0; e < nd; e++)
                if (e != ax && e != d && m->dims[e] > 1 &&
                    (m->blocking.strides[d] < m->blocking.strides[e]) !=
                        (dm->blocking.strides[d] < dm->blocking.strides[e]))
                    return false;
        }
        if (m->dims[ax] > 1 && m->blocking.strides[ax] != inner) return false;
        c->inner = inner;
    }
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        if (d != ax) total *= dm->dims[d];
    c->outer = total / c->inner;
    return true;
}

/* Piece p's place in src (*sv) and in dst (*dv) as views; false when
 * lg_md_submemory cannot describe one. */
static bool piece_views(const lg__cc_pd *pd, const lg__cc_piece *pc, int p, lg_md *sv, lg_md *dv) {
    const int ax = pd->axis;
    const lg_md *sm = &pd->src[pd->slice ? 0 : p];
    int64_t dims[LG_MAX_NDIMS], off[LG_MAX_NDIMS] = {0};
    memcpy(dims, sm->dims, sizeof dims);
    dims[ax] = pc[p].len;
    *sv = *sm;
    off[ax] = pc[p].s0;
    if (pd->slice && lg__md_submemory(sm, dims, off, sv, NULL) != LG_OK) return false;
    off[ax] = pc[p].d0;
    return lg__md_submemory(&pd->dst, dims, off, dv, NULL) == LG_OK;
}

/* Views path: one reorder per piece, from src's range to dst's (the
 * kernel's own, not cached). */
static bool views_plan(const lg__cc_pd *pd, cc_data *c) {
    c->views = lg__calloc((size_t)pd->n, sizeof *c->views);
    if (!c->views) return false;
    for (int p = 0; p < pd->n; p++) {
        lg_md sv, dv;
        if (!piece_views(pd, c->pc, p, &sv, &dv) ||
            lg__reorder_create_owned(&c->views[p], &sv, &dv) != LG_OK)
            return false;
    }
    return true;
}

bool lg__cc_fast(const lg__cc_pd *pd) {
    cc_data c;
    memset(&c, 0, sizeof c);
    c.pc = lg__calloc((size_t)pd->n, sizeof *c.pc);
    if (!c.pc) return false;
    lg__cc_pieces(pd, c.pc);
    bool fast = true;
    if (lg__cc_blocked_plan(pd, c.pc, &c.blk))
        lg__cc_blocked_free(&c.blk);
    else if (!rows_plan(pd, &c))
        for (int p = 0; p < pd->n && fast; p++) { /* views_plan, its reorders asked */
            lg_md sv, dv;
            lg__reorder_pd rp;
            fast = piece_views(pd, c.pc, p, &sv, &dv) &&
                   lg__reorder_query(&sv, &dv, NULL, NULL, &rp) == LG_OK;
        }
    lg__free(c.pc);
    return fast;
}

static lg_status build_cc(const void *problem, lg_kernel **out) {
    const lg__cc_pd *key = problem;
    const char *kind = key->slice ? "slice" : "concat";
    const char *where = key->slice ? "lg_slice_create" : "lg_concat_create";
    const int nsrc = nsrc_of(key);
    size_t psize = sizeof *key + (size_t)nsrc * sizeof(lg_md);
    lg_kernel *k = lg__kernel_new_slots(key->slice ? LG_KIND_SLICE : LG_KIND_CONCAT, &cc_ops,
                                        sizeof(cc_data), nsrc + 1);
    cc_data *c = k ? k->data : NULL;
    if (c) {
        c->pd = lg__malloc(psize);
        c->pc = lg__calloc((size_t)key->n, sizeof *c->pc);
    }
    if (!c || !c->pd || !c->pc) {
        lg_kernel_destroy(k);
        return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate a %s kernel", kind);
    }
    memcpy(c->pd, key, psize);
    const lg__cc_pd *pd = c->pd;
    lg__cc_pieces(pd, c->pc);
    c->bytes = lg_md_size(&pd->dst);
    lg__isa isa = lg__cpu_isa();
    char impl[32];
    if (lg__cc_blocked_plan(pd, c->pc, &c->blk)) {
        c->path = PATH_BLOCKED;
        c->rows = isa == LG_ISA_AVX512 ? lg__cc_rows_avx512
                  : isa == LG_ISA_AVX2 ? lg__cc_rows_avx2
                                       : lg__cc_rows_scalar;
        snprintf(impl, sizeof impl, "%s:blocked", lg__isa_name(isa));
    } else if (rows_plan(pd, c)) {
        c->path = PATH_ROWS;
        c->runs = isa >= LG_ISA_AVX2 ? lg__cc_runs_avx2 : lg__cc_runs_scalar;
        snprintf(impl, sizeof impl, "rows");
    } else if (views_plan(pd, c)) {
        c->path = PATH_VIEWS;
        snprintf(impl, sizeof impl, "views");
    } else {
        if (c->views)
            for (int p = 0; p < pd->n; p++) lg_kernel_destroy(c->views[p]);
        lg__free(c->views);
        c->views = NULL;
        c->path = PATH_REF;
        snprintf(impl, sizeof impl, "ref");
    }
    snprintf(k->impl, sizeof k->impl, "%s:%s", kind, impl);
    char sm[96], dm[96];
    lg__md_describe(&pd->src[0], sm, sizeof sm);
    lg__md_describe(&pd->dst, dm, sizeof dm);
    if (pd->slice)
        snprintf(k->desc, sizeof k->desc, "axis:%d start:%lld src:%s dst:%s", pd->axis,
                 (long long)pd->start, sm, dm);
    else
        snprintf(k->desc, sizeof k->desc, "axis:%d n:%d src0:%s dst:%s", pd->axis, pd->n, sm, dm);
    for (int i = 0; i < nsrc; i++)
        lg__kernel_add_slot(k, pd->slice ? LG_ARG_SRC : LG_ARG_MULTIPLE_SRC + i, true, &pd->src[i],
                            0);
    lg__kernel_add_slot(k, LG_ARG_DST, true, &pd->dst, 0);
    *out = k;
    return LG_OK;
}

/* dst for "any" (or NULL): like's layout when it is dense and has a tag,
 * else plain; dims from `dims`. */
static void resolve_any(const lg_md *like, const int64_t *dims, lg_md *out) {
    char tag[LG_TAG_MAX * 2];
    if (!(like->offset0 == 0 && lg__md_is_dense(like) && lg__md_tag_str(like, tag) &&
          lg_md_init_tag(out, like->ndims, dims, like->dtype, tag) == LG_OK))
        lg_md_init_strides(out, like->ndims, dims, like->dtype, NULL);
}

/* dst given by the caller (or NULL / "any"): checked against the result's
 * dims and type, resolved, canonical into *out. */
static lg_status check_dst(const lg_md *dst, const lg_md *like, const int64_t *dims,
                           const char *where, lg_md *out) {
    if (dst) {
        LG_CHECK(lg__md_check(dst, where, "dst"));
        if (dst->ndims != like->ndims || dst->dtype != like->dtype)
            return lg__error(
                LG_INVALID_ARGUMENT, where, "dst is %s with %d dims; the result is %s with %d dims",
                lg_dtype_str(dst->dtype), dst->ndims, lg_dtype_str(like->dtype), like->ndims);
        for (int d = 0; d < like->ndims; d++)
            if (dst->dims[d] != dims[d])
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "dst dim %d is %lld; the result's is %lld", d,
                                 (long long)dst->dims[d], (long long)dims[d]);
    }
    lg_md r;
    if (!dst || lg_md_is_any(dst))
        resolve_any(like, dims, &r);
    else
        r = *dst;
    lg__md_canon(&r, out);
    return LG_OK;
}

static lg_status check_src(const lg_md *m, const char *what, const char *where) {
    LG_CHECK(lg__md_check(m, where, what));
    if (lg_md_is_any(m))
        return lg__error(LG_INVALID_ARGUMENT, where, "%s is 'any': a source needs a layout", what);
    for (int d = 0; d < m->ndims; d++)
        if (m->dims[d] < 1)
            return lg__error(LG_INVALID_ARGUMENT, where, "%s dim %d is %lld (must be >= 1)", what,
                             d, (long long)m->dims[d]);
    return LG_OK;
}

lg_status lg__concat_query(int axis, int n, const lg_md *srcs, const lg_md *dst, const char *where,
                           lg__cc_pd **out, size_t *psize) {
    *out = NULL;
    if (n < 1 || n > LG_CONCAT_MAX_SRCS)
        return lg__error(LG_INVALID_ARGUMENT, where, "n = %d is outside 1..%d", n,
                         LG_CONCAT_MAX_SRCS);
    if (!srcs) return lg__error(LG_INVALID_ARGUMENT, where, "srcs is NULL");
    char what[32];
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof what, "srcs[%d]", i);
        LG_CHECK(check_src(&srcs[i], what, where));
    }
    const lg_md *s0 = &srcs[0];
    if (axis < 0 || axis >= s0->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "axis %d is out of range for %d dims", axis,
                         s0->ndims);
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, s0->dims, sizeof dims);
    dims[axis] = 0;
    for (int i = 0; i < n; i++) {
        const lg_md *m = &srcs[i];
        if (m->ndims != s0->ndims)
            return lg__error(LG_INVALID_ARGUMENT, where, "srcs[%d] has %d dims, srcs[0] %d", i,
                             m->ndims, s0->ndims);
        if (m->dtype != s0->dtype)
            return lg__error(LG_INVALID_ARGUMENT, where, "srcs[%d] is %s, srcs[0] %s", i,
                             lg_dtype_str(m->dtype), lg_dtype_str(s0->dtype));
        for (int d = 0; d < s0->ndims; d++)
            if (d != axis && m->dims[d] != s0->dims[d])
                return lg__error(LG_INVALID_ARGUMENT, where,
                                 "srcs[%d] dim %d is %lld, srcs[0]'s %lld (only the axis %d may "
                                 "differ)",
                                 i, d, (long long)m->dims[d], (long long)s0->dims[d], axis);
        if (!lg__add_ok(dims[axis], m->dims[axis], &dims[axis]))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "the sources' dims on axis %d overflow int64 at srcs[%d]", axis, i);
    }
    int64_t bytes = (int64_t)lg_dtype_size(s0->dtype);
    for (int d = 0; d < s0->ndims; d++)
        if (!lg__mul_ok(bytes, dims[d], &bytes))
            return lg__error(LG_INVALID_ARGUMENT, where,
                             "the result (%lld on axis %d) overflows int64 in bytes",
                             (long long)dims[axis], axis);
    *psize = sizeof(lg__cc_pd) + (size_t)n * sizeof(lg_md);
    lg__cc_pd *pd = lg__calloc(1, *psize);
    if (!pd) return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate the problem");
    pd->axis = axis;
    pd->n = n;
    for (int i = 0; i < n; i++) lg__md_canon(&srcs[i], &pd->src[i]);
    lg_status s = check_dst(dst, s0, dims, where, &pd->dst);
    if (s != LG_OK) {
        lg__free(pd);
        return s;
    }
    *out = pd;
    return LG_OK;
}

lg_status lg_concat_create(lg_kernel **k, int axis, int n, const lg_md *srcs, const lg_md *dst) {
    static const char where[] = "lg_concat_create";
    if (!k) return lg__error(LG_INVALID_ARGUMENT, where, "k (kernel pointer) is NULL");
    *k = NULL;
    lg__cc_pd *pd;
    size_t psize;
    LG_CHECK(lg__concat_query(axis, n, srcs, dst, where, &pd, &psize));
    lg_status s = lg__cache_get(LG_KIND_CONCAT, pd, psize, build_cc, k);
    lg__free(pd);
    return s;
}

lg_status lg__slice_query(int axis, int64_t start, const lg_md *src, const lg_md *dst,
                          const char *where, lg__cc_pd **out, size_t *psize) {
    *out = NULL;
    if (!src) return lg__error(LG_INVALID_ARGUMENT, where, "src is NULL");
    if (!dst) return lg__error(LG_INVALID_ARGUMENT, where, "dst is NULL (its dims give the range)");
    LG_CHECK(check_src(src, "src", where));
    LG_CHECK(lg__md_check(dst, where, "dst"));
    if (axis < 0 || axis >= src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "axis %d is out of range for %d dims", axis,
                         src->ndims);
    if (dst->ndims != src->ndims)
        return lg__error(LG_INVALID_ARGUMENT, where, "dst has %d dims, src %d", dst->ndims,
                         src->ndims);
    int64_t len = dst->dims[axis];
    if (len < 1 || start < 0 || start > src->dims[axis] - len)
        return lg__error(LG_INVALID_ARGUMENT, where,
                         "range [start %lld, + %lld) on axis %d is outside src's 0..%lld",
                         (long long)start, (long long)len, axis, (long long)src->dims[axis]);
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, src->dims, sizeof dims);
    dims[axis] = len;
    *psize = sizeof(lg__cc_pd) + sizeof(lg_md);
    lg__cc_pd *pd = lg__calloc(1, *psize);
    if (!pd) return lg__error(LG_OUT_OF_MEMORY, where, "cannot allocate the problem");
    pd->slice = 1;
    pd->axis = axis;
    pd->n = 1;
    pd->start = start;
    lg__md_canon(src, &pd->src[0]);
    lg_status s = check_dst(dst, src, dims, where, &pd->dst);
    if (s != LG_OK) {
        lg__free(pd);
        return s;
    }
    *out = pd;
    return LG_OK;
}

lg_status lg_slice_create(lg_kernel **k, int axis, int64_t start, const lg_md *src,
                          const lg_md *dst) {
    static const char where[] = "lg_slice_create";
    if (!k) return lg__error(LG_INVALID_ARGUMENT, where, "k (kernel pointer) is NULL");
    *k = NULL;
    lg__cc_pd *pd;
    size_t psize;
    LG_CHECK(lg__slice_query(axis, start, src, dst, where, &pd, &psize));
    lg_status s = lg__cache_get(LG_KIND_SLICE, pd, psize, build_cc, k);
    lg__free(pd);
    return s;
}
