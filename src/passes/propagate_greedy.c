/* The GREEDY strategy: one forward pass over the schedule. Compute-bound
 * nodes (conv) take the layouts their kernel prefers (created with "any");
 * memory-bound nodes keep what arrives (eltwise and shuffle run in their
 * input's layout; binary in src0's, src1 read in it too unless broadcast);
 * explicit reorders produce their md; "any" outputs keep what arrives and
 * other outputs are reordered to their tag. An "any" input takes the layout
 * its first reader prefers (plain if that reader has no preference). */
#include "passes/passes.h"

/* The first scheduled node reading v, and which of its inputs it is. */
static int first_reader(const lg__graph *ir, lg_value v, int *input) {
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == v) {
                *input = j;
                return ir->sched[i];
            }
    }
    return -1;
}

lg_status lg__propagate_greedy(lg__graph *ir) {
    for (int v = 0; v < ir->nvals; v++) {
        lg__cvalue *val = &ir->vals[v];
        if (val->kind != LG_VAL_INPUT || !lg_md_is_any(&val->md)) continue;
        int j = 0, n = first_reader(ir, (lg_value)v, &j);
        const lg__node_ops *ops = n >= 0 ? lg__node_ops_of(ir->nodes[n].kind) : NULL;
        lg_md md, in[LG_NODE_MAX_IN];
        if (ops) lg__ir_in_mds(ir, &ir->nodes[n], in);
        if (ops && ops->prefers &&
            ops->prefers(&ir->nodes[n].base, in, &ir->vals[ir->nodes[n].out].md, j, &md) &&
            md.dtype == val->md.dtype)
            val->md = md;
        else
            lg__md_plain(&val->md, &val->md);
    }
    for (int i = 0; i < ir->nsched; i++) LG_CHECK(lg__ir_layout(ir, ir->sched[i], true));
    for (int o = 0; o < ir->nouts; o++)
        if (lg_md_is_any(&ir->outs[o].md)) ir->outs[o].md = ir->vals[ir->outs[o].v].md;
    ir->exact = false;
    return LG_OK;
}
