/* Pass "fold_constants": a node of a foldable kind (reorder) whose inputs
 * are all constants (weights, bias, any constant a node reads in another
 * layout, explicit reorders of constants) runs once here; its result becomes
 * a constant owned by the compiled graph and the node leaves the schedule.
 * Nodes producing a graph output are kept (the caller's buffer is written at
 * run time), and so are copies into outputs.
 * Chains fold too: the schedule is walked in order. A reorder of a constant
 * with a pending scale (a folded batchnorm's, lg__cvalue.scale) applies the
 * scale as it reorders, so those weights are written once. Optional:
 * without it those reorders run at every execution. */
#include "passes/passes.h"

#include <omp.h>

/* True if every input of node is a constant and the node adds into no
 * other value (a sum source). */
static bool all_constant(const lg__graph *ir, const lg__cnode *node) {
    if (node->sum_src != LG_NO_VALUE) return false;
    for (int i = 0; i < node->nin; i++)
        if (ir->vals[node->in[i]].kind != LG_VAL_CONSTANT) return false;
    return true;
}

static lg_status fold(lg__graph *ir, int n) {
    const lg__cnode *node = &ir->nodes[n];
    /* Inputs with a pending scale: the reorder of one applies it itself;
     * any other kernel gets them scaled first. */
    bool scaled_reorder = false;
    for (int i = 0; i < node->nin; i++) {
        if (!ir->vals[node->in[i]].scale) continue;
        if (node->nin == 1 && !node->npost && lg__node_in_arg(&node->base, 0) == LG_ARG_SRC)
            scaled_reorder = true;
        else
            LG_CHECK(lg__ir_const_apply(ir, node->in[i]));
        node = &ir->nodes[n];
    }
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    const lg_md *dst = &ir->vals[node->out].md;
    lg_kernel *k = NULL;
    lg_status s = lg__ir_create_kernel(ir, node, &k);
    if (s != LG_OK) {
        char why[512];
        return LG_COMPILE_ERROR(s, "node %d (%s of constants): %s", n, ops->name,
                                lg__why(why, sizeof why));
    }
    void *buf = lg__alloc_big(lg_md_size(dst));
    if (!buf || !lg__ir_own(ir, buf)) {
        lg_kernel_destroy(k);
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate a folded constant of %zu bytes",
                                lg_md_size(dst));
    }
    lg_arg args[LG_NODE_MAX_IN + 1];
    for (int i = 0; i < node->nin; i++)
        args[i] = (lg_arg){lg__node_in_arg(&node->base, i), (void *)ir->vals[node->in[i]].data};
    args[node->nin] = (lg_arg){LG_ARG_DST, buf};
    /* Weights are small: one thread does them in microseconds, while a
     * parallel region can wait a scheduler slice for a busy second core. */
    int threads = omp_get_max_threads();
    bool small = lg_md_size(dst) < ((size_t)4 << 20);
    if (scaled_reorder && k->kind == LG_KIND_REORDER) {
        /* The same reorder with the scale as a source-scale attribute. */
        s = lg__ir_const_write(ir, node->in[0], dst, buf, small ? 1 : 0);
    } else {
        if (scaled_reorder) s = lg__ir_const_apply(ir, node->in[0]);
        node = &ir->nodes[n];
        args[0].data = (void *)ir->vals[node->in[0]].data;
        if (small) omp_set_num_threads(1);
        if (s == LG_OK) s = lg_kernel_execute(k, node->nin + 1, args);
        if (small) omp_set_num_threads(threads);
    }
    lg_kernel_destroy(k);
    if (s != LG_OK) return s;
    lg__cvalue *out = &ir->vals[node->out];
    out->kind = LG_VAL_CONSTANT;
    out->data = buf;
    ir->folded++;
    lg__ir_sched_remove(ir, n);
    return LG_OK;
}

lg_status lg__pass_fold_constants(lg__graph *ir) {
    for (int i = 0; i < ir->nsched;) {
        int n = ir->sched[i];
        const lg__cnode *node = &ir->nodes[n];
        if (lg__node_ops_of(node->kind)->foldable && !node->copy && all_constant(ir, node) &&
            !lg__ir_is_output(ir, node->out)) {
            LG_CHECK(fold(ir, n));
            continue;
        }
        i++;
    }
    return LG_OK;
}
