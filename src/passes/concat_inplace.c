/* Pass "concat_inplace": concats without copies and slices as views, by
 * placing values inside other values' buffers (lg__cvalue.home).
 *
 * A concat input x whose bytes, in x's own dense layout, are exactly the
 * bytes of its part of the concat's result R (a "dense view": the same
 * layout, the part starting on a block boundary along a blocked axis, equal
 * strides on every dim of extent above one; so along channels at batch 1 in
 * plain or channel-blocked layouts) is placed at its offset in R's buffer:
 * its producer writes there and nothing copies it. Otherwise, when x's
 * part of R is a strided view of R (lg_md_submemory: a channel range of
 * each image at batch > 1, whose batch stride is R's, or a channel range of
 * a channels-last tensor), x takes that view as its md: its producer writes
 * through it and its readers read through it, if every one of their kernels
 * can be made with it and none is a reference or generic path (asked of
 * the kinds' runs_fast hook, which creates nothing: conv, pooling, batch
 * normalization, reorder, concat and slice answer it; the other kinds do
 * not take views, and a part they produce or read stays a copy). A concat
 * tree (lg_graph_add_concat's nodes of at most five inputs) is taken whole:
 * its leaves are the inputs of the tree's nodes that are not themselves
 * inner concat results. When every leaf is placed the concat runs no step
 * at all; leaves that cannot be placed (graph inputs, constants, graph
 * outputs, a value already placed in another concat, the same value a
 * second time, a producer or reader that refuses the view) are copied into
 * their place by a one-input concat step. A concat whose leaves are all already placed, in order
 * and adjacent, in one buffer (DenseNet: each layer's concat is a prefix of the block's last one)
 * becomes a view of that buffer itself (dense, or a strided view its readers take). Concats are
 * taken from the last scheduled to the first, so the largest concat of a chain claims the inputs
 * first.
 *
 * A slice whose result is a dense view of its source (same rule), or a
 * strided view its readers take, becomes a view: its readers read the
 * source's buffer at the slice's place, and the plan runs no step for it.
 *
 * Where a leaf of a concat is neither (ShuffleNetV2's 58 + 58 channels in
 * 8-channel blocks: the second part does not start on a block) the concat
 * is left as it is. plan_memory then gives every buffer the lifetime of
 * everything placed in it and never lets a node write in place over a
 * shared buffer; the plan builder places each homed value from its home
 * (a strided view's md carries its own offset, its home_off is 0).
 * Optional: without it every concat and slice copies. Runs after fuse,
 * before plan_memory. */
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The byte offset of x in p when x (dense) is the sub-tensor of p (dense)
 * starting at index `at` along `axis` and every element of x, padding
 * included, is p's element at the shifted index; -1 otherwise. */
static int64_t dense_view(const lg_md *p, const lg_md *x, int axis, int64_t at) {
    if (!lg__md_dense_concrete(p) || !lg__md_dense_concrete(x) || p->ndims != x->ndims ||
        p->dtype != x->dtype || axis < 0 || axis >= p->ndims || at < 0 ||
        at + x->dims[axis] > p->dims[axis])
        return -1;
    lg_md like;
    lg__md_like(p, x, &like);
    if (!lg_md_equal(&like, x) || x->blocking.inner_nblks != p->blocking.inner_nblks) return -1;
    int64_t blk[LG_MAX_NDIMS];
    for (int d = 0; d < p->ndims; d++) blk[d] = 1;
    for (int b = 0; b < p->blocking.inner_nblks; b++) {
        if (p->blocking.inner_idxs[b] != x->blocking.inner_idxs[b] ||
            p->blocking.inner_blks[b] != x->blocking.inner_blks[b])
            return -1;
        blk[p->blocking.inner_idxs[b]] *= p->blocking.inner_blks[b];
    }
    for (int d = 0; d < p->ndims; d++) {
        if (x->dims[d] < 1) return -1;
        if (d != axis && x->dims[d] != p->dims[d]) return -1;
        if (x->padded_dims[d] / blk[d] > 1 && x->blocking.strides[d] != p->blocking.strides[d])
            return -1;
    }
    const int64_t b = blk[axis];
    if (at % b || (x->dims[axis] % b && at + x->dims[axis] != p->dims[axis]) ||
        at + x->padded_dims[axis] > p->padded_dims[axis])
        return -1;
    int64_t idx[LG_MAX_NDIMS] = {0};
    idx[axis] = at;
    int64_t e = lg_md_offset(p, idx);
    if (e < 0) return -1;
    int64_t off = e * (int64_t)lg_dtype_size(p->dtype);
    return off + (int64_t)lg_md_size(x) <= (int64_t)lg_md_size(p) ? off : -1;
}

/* The strided view of x's place in p (x's dims at index `at` along axis,
 * in p's strides: lg_md_submemory) into *out when x is dense and in p's
 * layout family (the same inner blocks, the dims in the same stride
 * order): a channel range at N > 1 (the batch stride is p's) or of a
 * channels-last tensor. False otherwise. */
static bool strided_view(const lg_md *p, const lg_md *x, int axis, int64_t at, lg_md *out) {
    if (p->format_kind != LG_FMT_BLOCKED || !lg__md_dense_concrete(x) || p->ndims != x->ndims ||
        p->dtype != x->dtype || axis < 0 || axis >= p->ndims ||
        x->blocking.inner_nblks != p->blocking.inner_nblks)
        return false;
    for (int b = 0; b < p->blocking.inner_nblks; b++)
        if (p->blocking.inner_idxs[b] != x->blocking.inner_idxs[b] ||
            p->blocking.inner_blks[b] != x->blocking.inner_blks[b])
            return false;
    int64_t off[LG_MAX_NDIMS] = {0};
    off[axis] = at;
    for (int d = 0; d < p->ndims; d++)
        if (d != axis && x->dims[d] != p->dims[d]) return false;
    lg_md v;
    if (lg__md_submemory(p, x->dims, off, &v, NULL) != LG_OK) return false;
    for (int d = 0; d < p->ndims; d++)
        for (int e = 0; e < p->ndims; e++) {
            if (d == e || x->padded_dims[d] <= 1 || x->padded_dims[e] <= 1) continue;
            bool xs = x->blocking.strides[d] < x->blocking.strides[e];
            bool vs = v.blocking.strides[d] < v.blocking.strides[e];
            if (xs != vs) return false;
        }
    *out = v;
    return true;
}

/* Whether the kernel of every scheduled node writing or reading v (but
 * nodes skip[0..nskip), which go) can be made with v given md m, and none
 * is a reference or generic path: asked of the kinds (lg__ir_kernel_fast),
 * nothing created. On success v has md m and its readers read it in m; on
 * failure v is left as it was. */
static bool retarget(lg__graph *ir, lg_value v, const lg_md *m, const int *skip, int nskip) {
    const lg_md old = ir->vals[v].md;
    ir->vals[v].md = *m;
    bool ok = true;
    for (int i = 0; i < ir->nsched && ok; i++) {
        const int n = ir->sched[i];
        const lg__cnode *node = &ir->nodes[n];
        bool touches = node->out == v;
        for (int j = 0; j < node->nin; j++) touches |= node->in[j] == v;
        for (int j = 0; j < nskip; j++) touches &= n != skip[j];
        if (node->dead || !touches) continue;
        ok = lg__ir_kernel_fast(ir, node);
    }
    if (!ok) {
        ir->vals[v].md = old;
        return false;
    }
    for (int i = 0; i < ir->nsched; i++) {
        lg__cnode *node = &ir->nodes[ir->sched[i]];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == v) node->in_md[j] = *m;
    }
    return true;
}

static bool in_arena(const lg__graph *ir, lg_value v) {
    return ir->vals[v].kind == LG_VAL_NODE && !lg__ir_is_output(ir, v);
}

/* The scheduled concat node producing v, or -1. */
static int concat_producer(const lg__graph *ir, lg_value v) {
    int n = ir->vals[v].kind == LG_VAL_NODE ? ir->vals[v].producer : -1;
    return n >= 0 && !ir->nodes[n].dead && ir->nodes[n].kind == LG_NODE_CONCAT ? n : -1;
}

typedef struct tree {
    int nleaves, ninner;
    lg_value leaf[LG_CONCAT_MAX_SRCS];
    int64_t at[LG_CONCAT_MAX_SRCS];   /* index along the axis in the root's result */
    int inner[LG_CONCAT_MAX_SRCS];    /* concat nodes below the root */
    int skip[LG_CONCAT_MAX_SRCS + 1]; /* the root and inner nodes (they go) */
    bool strided[LG_CONCAT_MAX_SRCS]; /* the leaf's place is a strided view ... */
    lg_md view[LG_CONCAT_MAX_SRCS];   /* ... this one */
} tree;

/* Gather the leaves of the concat tree under node n (an inner node is a
 * concat on the same axis, without post-ops, read only by its parent).
 * False when a node reads its inputs in other layouts than they have. */
static bool gather(const lg__graph *ir, const int *uses, int n, int64_t *at, tree *t) {
    const lg__cnode *node = &ir->nodes[n];
    for (int i = 0; i < node->nin; i++) {
        lg_value v = node->in[i];
        if (!lg_md_equal(&node->in_md[i], &ir->vals[v].md)) return false;
        int m = concat_producer(ir, v);
        if (m >= 0 && uses[v] == 1 && in_arena(ir, v) && !ir->vals[v].homed &&
            ir->nodes[m].p.concat.axis == node->p.concat.axis && ir->nodes[m].npost == 0 &&
            t->ninner < LG_CONCAT_MAX_SRCS) {
            t->inner[t->ninner++] = m;
            if (!gather(ir, uses, m, at, t)) return false;
            continue;
        }
        if (t->nleaves == LG_CONCAT_MAX_SRCS) return false;
        t->leaf[t->nleaves] = v;
        t->at[t->nleaves++] = *at;
        *at += ir->vals[v].md.dims[node->p.concat.axis];
    }
    return true;
}

/* Bytes of md's elements, padding included (a strided view's lg_md_size
 * counts from its buffer's start). */
static int64_t md_bytes(const lg_md *md) {
    return lg__md_nelems_padded(md) * (int64_t)lg_dtype_size(md->dtype);
}

static int64_t node_bytes(const lg__graph *ir, const lg__cnode *node) {
    int64_t b = md_bytes(&ir->vals[node->out].md);
    for (int i = 0; i < node->nin; i++) b += md_bytes(&ir->vals[node->in[i]].md);
    return b;
}

/* Remove node n from the schedule, counting what it moved. */
static void drop(lg__graph *ir, int n) {
    ir->copy_bytes_removed += node_bytes(ir, &ir->nodes[n]);
    ir->copy_steps_removed++;
    lg__ir_sched_remove(ir, n);
}

static void set_home(lg__graph *ir, lg_value v, lg_value home, int64_t off) {
    ir->vals[v].homed = true;
    ir->vals[v].home = home;
    ir->vals[v].home_off = off;
    ir->views++;
}

/* A one-input concat at schedule position pos copying v into a new value
 * placed off bytes into r, or (view not NULL) at that strided view of r. */
static lg_status add_copy(lg__graph *ir, int root, lg_value v, const lg_md *view, lg_value r,
                          int64_t off, int pos) {
    lg__cnode node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_CONCAT;
    node.nin = 1;
    node.in[0] = v;
    node.in_md[0] = ir->vals[v].md;
    node.p.concat.axis = ir->nodes[root].p.concat.axis;
    node.sum_src = LG_NO_VALUE;
    node.out = (lg_value)ir->nvals;
    int n = lg__ir_add_node(ir, &node);
    if (n < 0) return LG_OUT_OF_MEMORY;
    lg__cvalue val = ir->vals[v];
    val.kind = LG_VAL_NODE;
    val.producer = n;
    val.name = NULL;
    val.data = NULL;
    val.scale = NULL;
    val.homed = false;
    if (view) val.md = *view;
    if (lg__ir_add_value(ir, &val) < 0) return LG_OUT_OF_MEMORY;
    set_home(ir, node.out, r, off);
    ir->views--; /* a copy, not a view */
    ir->copy_steps_removed--;
    ir->copy_bytes_removed -= 2 * md_bytes(&val.md);
    return lg__ir_sched_insert(ir, pos, n);
}

/* True if placing v inside r would make a cycle of homes. */
static bool cycle(const lg__graph *ir, lg_value v, lg_value r) {
    return lg__ir_home_root(ir, r, NULL) == v;
}

/* Every leaf of the tree under node n already placed, by a strided view,
 * in one buffer h, at the places r's own view of h gives them (DenseNet at
 * N > 1: each layer's concat is a channel prefix of the block's last one):
 * r becomes that view and the tree goes. */
static bool strided_whole_view(lg__graph *ir, int n, tree *t) {
    const lg_value r = ir->nodes[n].out;
    const int axis = ir->nodes[n].p.concat.axis;
    const lg__cvalue *l0 = &ir->vals[t->leaf[0]];
    if (!l0->homed || l0->home_off) return false;
    const lg_value h = l0->home;
    for (int i = 0; i < t->nleaves; i++) {
        const lg__cvalue *l = &ir->vals[t->leaf[i]];
        if (!l->homed || l->home != h || l->home_off || h == r) return false;
    }
    if (cycle(ir, r, h)) return false;
    const lg_md *hm = &ir->vals[h].md;
    int64_t blk[LG_MAX_NDIMS];
    lg__md_dim_blocks(hm, blk);
    const int64_t st = hm->blocking.strides[axis], d = l0->md.offset0 - hm->offset0;
    if (st <= 0 || d < 0 || d % st) return false;
    lg_md rv;
    if (!strided_view(hm, &ir->vals[r].md, axis, d / st * blk[axis], &rv)) return false;
    for (int i = 0; i < t->nleaves; i++) {
        const lg_md *lm = &ir->vals[t->leaf[i]].md;
        int64_t o[LG_MAX_NDIMS] = {0};
        o[axis] = t->at[i];
        lg_md lv;
        if (lg__md_submemory(&rv, lm->dims, o, &lv, NULL) != LG_OK || !lg_md_equal(&lv, lm))
            return false;
    }
    if (!retarget(ir, r, &rv, t->skip, 1 + t->ninner)) return false;
    set_home(ir, r, h, 0);
    drop(ir, n);
    for (int k = 0; k < t->ninner; k++) drop(ir, t->inner[k]);
    return true;
}

/* The concat tree rooted at node n (see the file comment). */
static lg_status concat_tree(lg__graph *ir, const int *uses, int n, tree *t) {
    const lg__cnode *node = &ir->nodes[n];
    const lg_value r = node->out;
    const int axis = node->p.concat.axis;
    if (node->npost || !in_arena(ir, r)) return LG_OK;
    t->nleaves = t->ninner = 0;
    int64_t at = 0;
    if (!gather(ir, uses, n, &at, t)) return LG_OK;
    t->skip[0] = n;
    for (int k = 0; k < t->ninner; k++) t->skip[1 + k] = t->inner[k];
    const lg_md *rm = &ir->vals[r].md;
    int64_t off[LG_CONCAT_MAX_SRCS], total = 0;
    bool dense = true, placeable = true;
    for (int i = 0; i < t->nleaves; i++) {
        const lg_md *xm = &ir->vals[t->leaf[i]].md;
        off[i] = dense_view(rm, xm, axis, t->at[i]);
        t->strided[i] = off[i] < 0;
        if (off[i] < 0) {
            dense = false;
            off[i] = 0;
            placeable &= strided_view(rm, xm, axis, t->at[i], &t->view[i]);
        }
        total += (int64_t)lg_md_size(xm);
    }
    if (dense && total != (int64_t)lg_md_size(rm)) return LG_OK;
    /* Every leaf already placed, adjacent, in one buffer: r is a view. */
    if (!ir->vals[r].homed && dense) {
        int64_t a0;
        lg_value root = lg__ir_home_root(ir, t->leaf[0], &a0);
        bool view = root != r && ir->vals[t->leaf[0]].homed;
        for (int i = 0; i < t->nleaves && view; i++) {
            int64_t a;
            view = ir->vals[t->leaf[i]].homed && lg__ir_home_root(ir, t->leaf[i], &a) == root &&
                   a - off[i] == a0 - off[0];
        }
        if (view) {
            set_home(ir, r, root, a0 - off[0]);
            drop(ir, n);
            for (int k = 0; k < t->ninner; k++) drop(ir, t->inner[k]);
            return LG_OK;
        }
    }
    if (!ir->vals[r].homed && !dense && strided_whole_view(ir, n, t)) return LG_OK;
    if (!placeable) return LG_OK;
    bool place[LG_CONCAT_MAX_SRCS];
    int placed = 0;
    for (int i = 0; i < t->nleaves; i++) {
        lg_value v = t->leaf[i];
        place[i] = in_arena(ir, v) && !ir->vals[v].homed && v != r && !cycle(ir, v, r);
        for (int j = 0; j < i && place[i]; j++) place[i] = t->leaf[j] != v;
        /* A strided place: only if v's producer and readers take the view. */
        if (place[i] && t->strided[i])
            place[i] = retarget(ir, v, &t->view[i], t->skip, 1 + t->ninner);
        placed += place[i];
    }
    if (!placed) return LG_OK;
    int pos = lg__ir_sched_pos(ir, n);
    drop(ir, n);
    for (int k = 0; k < t->ninner; k++) {
        if (lg__ir_sched_pos(ir, t->inner[k]) < pos) pos--;
        drop(ir, t->inner[k]);
    }
    for (int i = 0; i < t->nleaves; i++)
        if (place[i])
            set_home(ir, t->leaf[i], r, off[i]);
        else
            LG_CHECK(
                add_copy(ir, n, t->leaf[i], t->strided[i] ? &t->view[i] : NULL, r, off[i], pos++));
    return LG_OK;
}

static lg_status run(lg__graph *ir, int *uses, int *order, tree *t) {
    lg__ir_count_uses(ir, uses);
    const int nsched = ir->nsched;
    memcpy(order, ir->sched, (size_t)nsched * sizeof *order);
    for (int i = nsched - 1; i >= 0; i--)
        if (!ir->nodes[order[i]].dead && ir->nodes[order[i]].kind == LG_NODE_CONCAT)
            LG_CHECK(concat_tree(ir, uses, order[i], t));
    for (int i = 0; i < nsched; i++) {
        int n = order[i];
        const lg__cnode *node = &ir->nodes[n];
        if (node->dead || node->kind != LG_NODE_SLICE || node->npost) continue;
        lg_value s = node->out, src = node->in[0];
        if (!in_arena(ir, s) || ir->vals[s].homed || cycle(ir, s, src) ||
            !(in_arena(ir, src) || ir->vals[src].kind == LG_VAL_INPUT) ||
            !lg_md_equal(&node->in_md[0], &ir->vals[src].md))
            continue;
        int64_t off =
            dense_view(&ir->vals[src].md, &ir->vals[s].md, node->p.slice.axis, node->p.slice.start);
        if (off < 0) { /* a strided view, if the slice's readers take it */
            lg_md sv;
            if (!strided_view(&ir->vals[src].md, &ir->vals[s].md, node->p.slice.axis,
                              node->p.slice.start, &sv) ||
                !retarget(ir, s, &sv, &n, 1))
                continue;
            off = 0;
        }
        set_home(ir, s, src, off);
        drop(ir, n);
    }
    return LG_OK;
}

lg_status lg__pass_concat_inplace(lg__graph *ir) {
    int *uses = lg__malloc(((size_t)ir->nvals + 1) * sizeof *uses);
    int *order = lg__malloc(((size_t)ir->nsched + 1) * sizeof *order);
    tree *t = lg__malloc(sizeof *t);
    lg_status s = LG_OK;
    if (uses && order && t)
        s = run(ir, uses, order, t);
    else
        s = LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "concat_inplace: cannot allocate its tables");
    lg__free(uses);
    lg__free(order);
    lg__free(t);
    return s;
}
