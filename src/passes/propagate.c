/* Pass "propagate_layouts": run the chosen strategy (one function per
 * strategy, in the table below), check that it left every value concrete,
 * and record the model cost of its assignment. Required.
 *
 * NONE (here): every node reads its inputs and writes its result in the
 * dense row-major layout of their dims ("abcd..."); an "any" input becomes
 * that layout; an input or constant given in another layout is reordered
 * where it is read; an explicit reorder node produces exactly its md (and
 * is read back in plain). GREEDY: propagate_greedy.c. OPTIMAL: propagate_optimal.c.
 * A user strategy (lg_compile_options.strategy_fn): propagate_user.c. */
#include "passes/cost_model.h"
#include "passes/passes.h"

#include <stdio.h>

static const struct {
    const char *name;
    lg__strategy_fn fn;
} strategies[] = {
    [LG_STRATEGY_NONE] = {"none", lg__propagate_none},
    [LG_STRATEGY_GREEDY] = {"greedy", lg__propagate_greedy},
    [LG_STRATEGY_OPTIMAL] = {"optimal", lg__propagate_optimal},
};

lg_status lg__ir_layout(lg__graph *ir, int n, bool greedy) {
    lg__cnode *node = &ir->nodes[n];
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    lg_md in[LG_NODE_MAX_IN], out = ir->vals[node->out].md;
    lg__ir_in_mds(ir, node, in);
    LG_CHECK((greedy ? ops->layout_greedy : ops->layout_none)(&node->base, in, node->in_md, &out));
    ir->vals[node->out].md = out;
    return LG_OK;
}

const char *lg__strategy_name(lg_strategy s) {
    return (unsigned)s < sizeof strategies / sizeof strategies[0] ? strategies[s].name : "unknown";
}

/* Outputs wanted as "any" take the layout their value arrives in. */
static void resolve_any_outputs(lg__graph *ir) {
    for (int o = 0; o < ir->nouts; o++)
        if (lg_md_is_any(&ir->outs[o].md)) ir->outs[o].md = ir->vals[ir->outs[o].v].md;
}

lg_status lg__propagate_none(lg__graph *ir) {
    for (int v = 0; v < ir->nvals; v++)
        if (ir->vals[v].kind == LG_VAL_INPUT && lg_md_is_any(&ir->vals[v].md))
            lg__md_plain(&ir->vals[v].md, &ir->vals[v].md);
    for (int i = 0; i < ir->nsched; i++) LG_CHECK(lg__ir_layout(ir, ir->sched[i], false));
    resolve_any_outputs(ir);
    ir->exact = false;
    return LG_OK;
}

/* Every value a scheduled node touches, every input and every output must
 * have a concrete layout now. */
static lg_status check_concrete(const lg__graph *ir, const char *strategy) {
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        for (int j = 0; j < node->nin; j++)
            if (node->in_md[j].format_kind != LG_FMT_BLOCKED ||
                ir->vals[node->in[j]].md.format_kind != LG_FMT_BLOCKED)
                return LG_COMPILE_ERROR(LG_RUNTIME_ERROR,
                                        "strategy %s left input %d of node %d without a layout",
                                        strategy, j, ir->sched[i]);
        if (ir->vals[node->out].md.format_kind != LG_FMT_BLOCKED)
            return LG_COMPILE_ERROR(LG_RUNTIME_ERROR,
                                    "strategy %s left the result of node %d without a layout",
                                    strategy, ir->sched[i]);
    }
    for (int o = 0; o < ir->nouts; o++)
        if (ir->outs[o].md.format_kind != LG_FMT_BLOCKED ||
            ir->vals[ir->outs[o].v].md.format_kind != LG_FMT_BLOCKED)
            return LG_COMPILE_ERROR(LG_RUNTIME_ERROR, "strategy %s left output %d without a layout",
                                    strategy, o);
    return LG_OK;
}

lg_status lg__pass_propagate_layouts(lg__graph *ir) {
    if (ir->user_strategy) {
        ir->cost_gap = -1;
        snprintf(ir->inexact, sizeof ir->inexact, "a user strategy: not proven minimal");
        LG_CHECK(lg__propagate_user(ir));
        LG_CHECK(check_concrete(ir, "user"));
        ir->model_cost = lg__cost_assignment(ir);
        return LG_OK;
    }
    if ((unsigned)ir->strategy >= sizeof strategies / sizeof strategies[0])
        return LG_COMPILE_ERROR(LG_INVALID_ARGUMENT, "strategy %d is not an lg_strategy",
                                (int)ir->strategy);
    ir->cost_gap = -1;
    if (ir->strategy != LG_STRATEGY_OPTIMAL)
        snprintf(ir->inexact, sizeof ir->inexact, "strategy %s does not minimise the model",
                 strategies[ir->strategy].name);
    LG_CHECK(strategies[ir->strategy].fn(ir));
    LG_CHECK(check_concrete(ir, strategies[ir->strategy].name));
    ir->model_cost = lg__cost_assignment(ir);
    return LG_OK;
}
