/* Pass "concat_inplace": concats without copies and slices as views, by
 * placing values inside other values' buffers (lg__cvalue.home).
 *
 * A concat input x whose bytes, in x's own dense layout, are exactly the
 * bytes of its part of the concat's result R (a "dense view": the same
 * layout, the part starting on a block boundary along a blocked axis, equal
 * strides on every dim of extent above one; so along channels at batch 1 in
 * plain or channel-blocked layouts, never in channels-last) is placed at
 * its offset in R's buffer: its producer writes there and nothing copies
 * it. A concat tree (lg_graph_add_concat's nodes of at most five inputs) is
 * taken whole: its leaves are the inputs of the tree's nodes that are not
 * themselves inner concat results. When every leaf is placed the concat
 * runs no step at all; leaves that cannot be placed (graph inputs,
 * constants, graph outputs, a value already placed in another concat, the
 * same value a second time) are copied into their place by a one-input
 * concat step. A concat whose leaves are all already placed, in order and
 * adjacent, in one buffer (DenseNet: each layer's concat is a prefix of the
 * block's last one) becomes a view of that buffer itself. Concats are taken
 * from the last scheduled to the first, so the largest concat of a chain
 * claims the inputs first.
 *
 * A slice whose result is a dense view of its source (same rule) becomes a
 * view: its readers read the source's buffer at the slice's offset, and the
 * plan runs no step for it.
 *
 * Where any leaf of a concat is not a dense view (ShuffleNetV2's 58 + 58
 * channels in 8-channel blocks) the concat is left as it is. plan_memory
 * then gives every buffer the lifetime of everything placed in it and never
 * lets a node write in place over a shared buffer; the plan builder places
 * each homed value from its home. Optional: without it every concat and
 * slice copies. Runs after fuse, before plan_memory. */
#include "passes/passes.h"

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
    int64_t at[LG_CONCAT_MAX_SRCS]; /* index along the axis in the root's result */
    int inner[LG_CONCAT_MAX_SRCS];  /* concat nodes below the root */
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

static int64_t node_bytes(const lg__graph *ir, const lg__cnode *node) {
    int64_t b = (int64_t)lg_md_size(&ir->vals[node->out].md);
    for (int i = 0; i < node->nin; i++) b += (int64_t)lg_md_size(&ir->vals[node->in[i]].md);
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
 * placed off bytes into r. */
static lg_status add_copy(lg__graph *ir, int root, lg_value v, lg_value r, int64_t off, int pos) {
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
    if (lg__ir_add_value(ir, &val) < 0) return LG_OUT_OF_MEMORY;
    set_home(ir, node.out, r, off);
    ir->views--; /* a copy, not a view */
    ir->copy_steps_removed--;
    ir->copy_bytes_removed -= 2 * (int64_t)lg_md_size(&val.md);
    return lg__ir_sched_insert(ir, pos, n);
}

/* True if placing v inside r would make a cycle of homes. */
static bool cycle(const lg__graph *ir, lg_value v, lg_value r) {
    return lg__ir_home_root(ir, r, NULL) == v;
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
    const lg_md *rm = &ir->vals[r].md;
    int64_t off[LG_CONCAT_MAX_SRCS], total = 0;
    for (int i = 0; i < t->nleaves; i++) {
        off[i] = dense_view(rm, &ir->vals[t->leaf[i]].md, axis, t->at[i]);
        if (off[i] < 0) return LG_OK;
        total += (int64_t)lg_md_size(&ir->vals[t->leaf[i]].md);
    }
    if (total != (int64_t)lg_md_size(rm)) return LG_OK;
    /* Every leaf already placed, adjacent, in one buffer: r is a view. */
    if (!ir->vals[r].homed) {
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
    bool place[LG_CONCAT_MAX_SRCS];
    int placed = 0;
    for (int i = 0; i < t->nleaves; i++) {
        lg_value v = t->leaf[i];
        place[i] = in_arena(ir, v) && !ir->vals[v].homed && v != r && !cycle(ir, v, r);
        for (int j = 0; j < i && place[i]; j++) place[i] = t->leaf[j] != v;
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
            LG_CHECK(add_copy(ir, n, t->leaf[i], r, off[i], pos++));
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
        if (off < 0) continue;
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
