/* Pass "plan_memory": place every intermediate value (a node's result that
 * is no graph output) in one arena, reusing space by liveness.
 *
 * Walking the schedule, each node's result gets a buffer before the buffers
 * of the values dying at that node are released, so a result never overlaps
 * what its node reads, except in place, which is chosen where safe: input 0
 * of a kind marked inplace (eltwise, binary: the kernels allow src == dst)
 * when it dies at the node and has the result's md, input 0 of a view (a
 * reshape whose input layout views as its result: ops->is_view) when it
 * dies at the node (the plan then runs no step for it), and a node with a
 * fused sum,
 * whose result takes the sum source's buffer when that value dies there and
 * is not also read as src/weights/bias. A new buffer goes into the lowest
 * gap between live buffers that fits it (first fit), 64-byte aligned.
 * Values concat_inplace placed inside another value's buffer (homes) share
 * it: the buffer is allocated when the first of them is produced and lives
 * until the last of them is read, and no node writes in place over a
 * shared buffer or into a homed value; only buffers' owners (roots) are
 * placed here, the plan builder places the rest from their homes.
 * Optional: without it the plan builder gives every intermediate its own
 * region (no reuse, no in place; fused sums then copy their source). */
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct buffer {
    int64_t offset, size;
    int last; /* schedule position of its last read */
    bool live;
} buffer;

typedef struct planner {
    buffer *bufs;
    int nbufs;
    int64_t top;
} planner;

static int cmp_offset(const void *a, const void *b) {
    const buffer *x = *(const buffer *const *)a, *y = *(const buffer *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* First fit among the live buffers (sorted into `order`). */
static int64_t first_fit(planner *pl, buffer **order, int64_t size) {
    int k = 0;
    for (int i = 0; i < pl->nbufs; i++)
        if (pl->bufs[i].live) order[k++] = &pl->bufs[i];
    qsort(order, (size_t)k, sizeof *order, cmp_offset);
    int64_t at = 0;
    for (int i = 0; i < k; i++) {
        if (order[i]->offset - at >= size) break;
        int64_t end = order[i]->offset + order[i]->size;
        if (end > at) at = end;
    }
    return at;
}

/* True if v is a value the arena holds. */
static bool in_arena(const lg__graph *ir, lg_value v) {
    return ir->vals[v].kind == LG_VAL_NODE && !lg__ir_is_output(ir, v);
}

/* Shared state of one planning: per value, the value whose buffer holds it
 * (root, itself unless concat_inplace placed it inside another), whether
 * other values live in its buffer (shared) and the last schedule position
 * at which its buffer must still exist (end). */
typedef struct regions {
    int *root, *end;
    bool *shared;
} regions;

/* The value whose buffer node's result may take (in place), or -1. A
 * buffer other values share, or a value placed inside another, never. */
static int inplace_source(const lg__graph *ir, const lg__cnode *node, const regions *rg, int pos) {
    lg_value w;
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    bool view = false;
    if (ops->is_view) {
        lg_md in[LG_NODE_MAX_IN];
        lg__ir_in_mds(ir, node, in);
        view = node->sum_src == LG_NO_VALUE && node->npost == 0 &&
               lg_md_equal(&in[0], &node->in_md[0]) &&
               ops->is_view(&node->base, in, &ir->vals[node->out].md);
    }
    if (node->sum_src != LG_NO_VALUE)
        w = node->sum_src;
    else if (ops->inplace || view)
        w = node->in[0];
    else
        return -1;
    if (!in_arena(ir, w) || rg->root[w] != (int)w || rg->shared[w] || rg->end[w] != pos) return -1;
    if (!view && !lg_md_equal(&ir->vals[w].md, &ir->vals[node->out].md)) return -1;
    lg_value vs[LG_NODE_MAX_IN + 1];
    int k = lg__ir_reads(node, vs), seen = 0;
    for (int j = 0; j < k; j++) seen += vs[j] == w;
    return seen == 1 ? (int)w : -1;
}

/* Fill rg: every value's root, and each root's last schedule position
 * over everything its buffer holds. */
static void find_regions(const lg__graph *ir, const regions *rg) {
    for (int v = 0; v < ir->nvals; v++) {
        rg->root[v] = (int)lg__ir_home_root(ir, v, NULL);
        rg->end[v] = -1;
        rg->shared[v] = false;
    }
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        lg_value vs[LG_NODE_MAX_IN + 1];
        int k = lg__ir_reads(node, vs);
        for (int j = 0; j < k; j++) {
            int r = rg->root[vs[j]];
            if (i > rg->end[r]) rg->end[r] = i;
        }
        int r = rg->root[node->out];
        if (i > rg->end[r]) rg->end[r] = i;
    }
    for (int v = 0; v < ir->nvals; v++)
        if (rg->root[v] != v) rg->shared[rg->root[v]] = true;
}

static lg_status plan(lg__graph *ir, planner *pl, const regions *rg, int *buf_of, buffer **order) {
    find_regions(ir, rg);
    for (int v = 0; v < ir->nvals; v++) buf_of[v] = -1;
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        int r = rg->root[node->out];
        if (in_arena(ir, r) && buf_of[r] < 0) {
            int w = r == (int)node->out && !rg->shared[r] ? inplace_source(ir, node, rg, i) : -1;
            if (w >= 0) {
                buffer *b = &pl->bufs[buf_of[w]];
                buf_of[r] = buf_of[w];
                if (rg->end[r] > b->last) b->last = rg->end[r];
            } else {
                int64_t size = ((int64_t)lg_md_size(&ir->vals[r].md) + 63) / 64 * 64;
                buffer *b = &pl->bufs[pl->nbufs];
                b->offset = first_fit(pl, order, size);
                b->size = size;
                b->last = rg->end[r];
                b->live = true;
                if (b->offset + size > pl->top) pl->top = b->offset + size;
                buf_of[r] = pl->nbufs++;
            }
        }
        for (int b = 0; b < pl->nbufs; b++)
            if (pl->bufs[b].live && pl->bufs[b].last <= i) pl->bufs[b].live = false;
    }
    /* Roots only: the plan builder places what lives inside them. */
    for (int v = 0; v < ir->nvals; v++)
        if (buf_of[v] >= 0) {
            ir->vals[v].place.base = 0;
            ir->vals[v].place.offset = pl->bufs[buf_of[v]].offset;
        }
    ir->arena_bytes = pl->top;
    return LG_OK;
}

lg_status lg__pass_plan_memory(lg__graph *ir) {
    planner pl = {0};
    pl.bufs = lg__calloc((size_t)ir->nsched + 1, sizeof *pl.bufs);
    size_t nv = (size_t)ir->nvals + 1;
    regions rg = {lg__malloc(nv * sizeof(int)), lg__malloc(nv * sizeof(int)),
                  lg__malloc(nv * sizeof(bool))};
    int *buf_of = lg__malloc(nv * sizeof *buf_of);
    buffer **order = lg__malloc(((size_t)ir->nsched + 1) * sizeof *order);
    lg_status s = pl.bufs && rg.root && rg.end && rg.shared && buf_of && order
                      ? plan(ir, &pl, &rg, buf_of, order)
                      : LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the memory planner");
    lg__free(pl.bufs);
    lg__free(rg.root);
    lg__free(rg.end);
    lg__free(rg.shared);
    lg__free(buf_of);
    lg__free((void *)order);
    return s;
}
