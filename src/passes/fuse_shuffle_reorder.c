/* Pass "fuse_shuffle_reorder": a shuffle and a reorder next to it run as one
 * kernel that shuffles into the other layout (lg_shuffle_create_layouts). Only
 * plain reorders (no scales, zero points or sum) take part.
 *
 *  - Before: a shuffle reading the result of a reorder (inserted or
 *    explicit) that nothing else reads, that is no graph output, that keeps
 *    the data type and whose source is no constant (a constant's reorder is
 *    folded at compile time anyway) reads the reorder's source directly; the
 *    reorder leaves the schedule.
 *  - After: a shuffle whose result is no graph output and has exactly one
 *    reader, a reorder keeping the data type, writes the reorder's result
 *    itself (in its layout; it may be a graph output or a copy into one);
 *    the reorder leaves the schedule.
 * Both may apply to one shuffle (A -> reorder -> shuffle -> reorder -> C is
 * one kernel from A to C). The shuffle's kernel is created from its input's
 * and its result's mds (src/graph/nodes/shuffle.c). Results are bit-equal:
 * a shuffle moves bits, a same-type reorder copies them. Runs after
 * eliminate_reorders (chains are merged first). Optional. */
#include "passes/passes.h"

static bool live_reorder(const lg__graph *ir, int n) {
    return n >= 0 && ir->nodes[n].kind == LG_NODE_REORDER && !ir->nodes[n].dead &&
           !ir->nodes[n].p.reorder.quant && lg__ir_sched_pos(ir, n) >= 0;
}

/* The scheduled node reading v (as an input), or -1; the first one. */
static int reader_of(const lg__graph *ir, lg_value v) {
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == v) return ir->sched[i];
    }
    return -1;
}

/* Fuse the reorder producing s's input into s; true if done. */
static bool fuse_before(lg__graph *ir, int s, const int *uses) {
    lg_value w = ir->nodes[s].in[0];
    if (ir->vals[w].kind != LG_VAL_NODE) return false;
    int r = ir->vals[w].producer;
    if (!live_reorder(ir, r) || ir->nodes[r].copy || uses[w] != 1 || lg__ir_is_output(ir, w))
        return false;
    lg_value a = ir->nodes[r].in[0];
    if (ir->vals[a].kind == LG_VAL_CONSTANT || ir->vals[a].md.dtype != ir->vals[w].md.dtype)
        return false;
    ir->nodes[s].in[0] = a;
    ir->nodes[s].in_md[0] = ir->vals[a].md;
    lg__ir_sched_remove(ir, r);
    if (lg__verbose())
        lg__verbose_printf("lgraph: fuse_shuffle_reorder: reorder %d fused into shuffle %d\n", r,
                           s);
    return true;
}

/* Fuse the one reorder reading s's result into s; true if done. */
static bool fuse_after(lg__graph *ir, int s, const int *uses) {
    lg_value w = ir->nodes[s].out;
    if (uses[w] != 1 || lg__ir_is_output(ir, w)) return false;
    int r = reader_of(ir, w);
    if (!live_reorder(ir, r) || ir->nodes[r].in[0] != w) return false;
    lg_value o = ir->nodes[r].out;
    if (ir->vals[o].md.dtype != ir->vals[w].md.dtype) return false;
    ir->nodes[s].out = o;
    ir->vals[o].producer = s;
    lg__ir_sched_remove(ir, r);
    if (lg__verbose())
        lg__verbose_printf("lgraph: fuse_shuffle_reorder: shuffle %d writes reorder %d's result\n",
                           s, r);
    return true;
}

lg_status lg__pass_fuse_shuffle_reorder(lg__graph *ir) {
    int *uses = lg__malloc((size_t)ir->nvals * sizeof *uses);
    if (!uses) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the use counts");
    for (int i = 0; i < ir->nsched; i++) {
        int s = ir->sched[i];
        if (ir->nodes[s].kind != LG_NODE_SHUFFLE || ir->nodes[s].dead) continue;
        lg__ir_count_uses(ir, uses);
        bool moved = fuse_before(ir, s, uses);
        lg__ir_count_uses(ir, uses);
        fuse_after(ir, s, uses);
        if (moved) i--; /* the reorder before s left the schedule: s moved up by one */
    }
    lg__free(uses);
    return LG_OK;
}
