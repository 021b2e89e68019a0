/* Pass "fuse": fold what follows a producer into its post-ops. Starting
 * from each node whose kind accepts post-ops (accepts_post: conv), while its
 * result has exactly one reader, is no graph output, and that reader's kind
 * can become a post-op of it (as_post_op) with its result in the same md:
 *  - an eltwise post-op (an eltwise node);
 *  - a sum post-op (a binary add of the result and another value w of the
 *    same md: the residual add); the producer then writes into a buffer
 *    holding w (the memory planner puts the result in w's buffer when w dies
 *    there, else the plan copies w first); one sum per producer,
 * the reader leaves the schedule and the producer produces its result. Each
 * fusion is kept only if the producer's kernel accepts the longer post-op
 * chain (asked through accepts_post: no kernel is created).
 * Optional (also off with lg_compile_options.fuse = false): without it every
 * eltwise and add runs as its own step. */
#include "passes/passes.h"

#include <string.h>

/* The one scheduled reader of v, or -1. */
static int only_reader(const lg__graph *ir, const int *uses, lg_value v) {
    if (uses[v] != 1 || lg__ir_is_output(ir, v)) return -1;
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        lg_value vs[LG_NODE_MAX_IN + 1];
        int k = lg__ir_reads(node, vs);
        for (int j = 0; j < k; j++)
            if (vs[j] == v) return ir->sched[i];
    }
    return -1;
}

/* Try to fuse reader r of conv n's result; true if it was fused. */
static lg_status try_fuse(lg__graph *ir, int n, int r, bool *fused) {
    lg__cnode cand = ir->nodes[n];
    const lg__cnode *rd = &ir->nodes[r];
    const lg_md *md = &ir->vals[cand.out].md;
    *fused = false;
    if (cand.npost >= LG_MAX_POST_OPS) return LG_OK;
    if (!lg_md_equal(&ir->vals[rd->out].md, md)) return LG_OK;
    lg__post_op op;
    int slot = rd->in[0] == cand.out ? 0 : 1, other = -1;
    const lg__node_ops *ops = lg__node_ops_of(rd->kind);
    if (!ops->as_post_op || !ops->as_post_op(&rd->base, slot, &op, &other)) return LG_OK;
    lg_value w = other >= 0 ? rd->in[other] : LG_NO_VALUE;
    if (op.kind == LG_POST_SUM &&
        (w == LG_NO_VALUE || cand.sum_src != LG_NO_VALUE || !lg_md_equal(&ir->vals[w].md, md)))
        return LG_OK;
    cand.post[cand.npost++] = op;
    cand.out = rd->out;
    if (w != LG_NO_VALUE) cand.sum_src = w;
    lg_md in[LG_NODE_MAX_IN];
    lg__ir_in_mds(ir, &cand, in);
    if (!lg__node_ops_of(cand.kind)->accepts_post(&cand.base, in, &ir->vals[cand.out].md,
                                                  cand.npost, cand.post))
        return LG_OK;
    /* w must be ready when the conv runs: if it is produced later, the conv
     * moves down to just before its reader (its only consumer). */
    if (w != LG_NO_VALUE && ir->vals[w].kind == LG_VAL_NODE &&
        lg__ir_sched_pos(ir, ir->vals[w].producer) > lg__ir_sched_pos(ir, n)) {
        lg__ir_sched_remove(ir, n);
        LG_CHECK(lg__ir_sched_insert(ir, lg__ir_sched_pos(ir, r), n));
    }
    ir->nodes[n] = cand;
    ir->nodes[n].dead = false;
    ir->vals[cand.out].producer = n;
    lg__ir_sched_remove(ir, r);
    *fused = true;
    return LG_OK;
}

lg_status lg__pass_fuse(lg__graph *ir) {
    int *uses = lg__malloc((size_t)ir->nvals * sizeof *uses);
    if (!uses) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the use counts");
    lg_status s = LG_OK;
    for (int i = 0; i < ir->nsched && s == LG_OK; i++) {
        int n = ir->sched[i];
        if (!lg__node_ops_of(ir->nodes[n].kind)->accepts_post) continue;
        bool fused = true;
        while (fused && s == LG_OK) {
            lg__ir_count_uses(ir, uses);
            int r = only_reader(ir, uses, ir->nodes[n].out);
            fused = false;
            if (r >= 0) s = try_fuse(ir, n, r, &fused);
        }
        /* The conv moved down: look at what took its place. */
        if (s == LG_OK && ir->sched[i] != n) i--;
    }
    lg__free(uses);
    return s;
}
