/* The hook table of the node kinds, generated from nodes.def. */
#include "graph/graph.h"

const lg__node_ops *lg__node_ops_of(lg__node_kind kind) {
    static const lg__node_ops *const table[] = {
#define X(id, name) &lg__node_##name##_ops,
#include "graph/nodes.def"
#undef X
    };
    _Static_assert(sizeof table / sizeof table[0] == LG_NODE_COUNT, "nodes.def mismatch");
    return (unsigned)kind < LG_NODE_COUNT ? table[kind] : NULL;
}

int lg__node_in_arg(const lg__node *node, int i) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    return ops->in_arg ? ops->in_arg(node, i) : ops->in_args[i];
}

lg_value lg__node_sum_operand(const lg__node *node) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    return ops->sum_operand ? ops->sum_operand(node) : LG_NO_VALUE;
}

const lg__node *lg__node_as_run(const lg__node *node, const lg_md *in, const lg_md *out,
                                const lg__node_opts *o, lg__node *tmp) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    return ops->as_run ? ops->as_run(node, in, out, o, tmp) : node;
}
