/* Pass "infer_shapes": re-check every node against its inputs (the builder
 * already did, node by node), and reject graphs without outputs or with
 * values that reach no output. Required. */
#include "passes/passes.h"

#include <string.h>

lg_status lg__pass_infer_shapes(lg__graph *ir) {
    if (ir->nouts == 0) return LG_COMPILE_ERROR(LG_INVALID_GRAPH, "the graph has no outputs");
    for (int n = 0; n < ir->nnodes; n++) {
        const lg__cnode *node = &ir->nodes[n];
        lg_md md, in[LG_NODE_MAX_IN];
        lg__ir_in_mds(ir, node, in);
        LG_CHECK(lg__node_ops_of(node->kind)->infer(&node->base, in, n, &md, "lg_graph_compile"));
        const lg_md *have = &ir->vals[node->out].md;
        bool same = md.ndims == have->ndims && md.dtype == have->dtype;
        for (int d = 0; same && d < md.ndims; d++) same = md.dims[d] == have->dims[d];
        if (!same)
            return LG_COMPILE_ERROR(LG_INVALID_GRAPH, "node %d (%s): its result's shape changed", n,
                                    lg__node_ops_of(node->kind)->name);
    }
    /* Nodes come in topological order: walking them backwards marks every
     * value some output depends on. */
    bool *live = lg__calloc((size_t)ir->nvals, sizeof *live);
    if (!live) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the reachability map");
    for (int o = 0; o < ir->nouts; o++) live[ir->outs[o].v] = true;
    for (int n = ir->nnodes - 1; n >= 0; n--)
        if (live[ir->nodes[n].out]) {
            lg_value vs[LG_NODE_MAX_IN + 1];
            int k = lg__ir_reads(&ir->nodes[n], vs);
            for (int i = 0; i < k; i++) live[vs[i]] = true;
        }
    lg_status s = LG_OK;
    for (int v = 0; v < ir->nvals && s == LG_OK; v++) {
        if (live[v]) continue;
        const lg__cvalue *val = &ir->vals[v];
        if (val->kind == LG_VAL_NODE)
            s = LG_COMPILE_ERROR(
                LG_INVALID_GRAPH, "value %d (the result of node %d, %s) reaches no output", v,
                val->producer, lg__node_ops_of(ir->nodes[val->producer].kind)->name);
        else
            s = LG_COMPILE_ERROR(LG_INVALID_GRAPH, "%s '%s' (value %d) reaches no output",
                                 val->kind == LG_VAL_INPUT ? "input" : "constant", val->name, v);
    }
    lg__free(live);
    return s;
}
