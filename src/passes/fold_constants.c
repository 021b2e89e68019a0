/* Pass "fold_constants": a reorder whose input is a constant (weights,
 * bias, any constant a node reads in another layout, explicit reorders of
 * constants) runs once here; its result becomes a constant owned by the
 * compiled graph and the node leaves the schedule. Reorders producing a
 * graph output are kept (the caller's buffer is written at run time).
 * Chains fold too: the schedule is walked in order. Optional: without it
 * those reorders run at every execution. */
#include "passes/passes.h"

#include <omp.h>

static lg_status fold(lg__graph *ir, int n) {
    const lg__node *node = &ir->nodes[n];
    const lg__value *src = &ir->vals[node->in[0]];
    const lg_md *dst = &ir->vals[node->out].md;
    lg_kernel *k = NULL;
    lg_status s = lg_reorder_create(&k, &src->md, dst, NULL);
    if (s != LG_OK) {
        char why[512];
        return LG_COMPILE_ERROR(s, "node %d (reorder of a constant): %s", n,
                                lg__why(why, sizeof why));
    }
    void *buf = lg__aligned_alloc(64, lg_md_size(dst));
    if (!buf || !lg__ir_own(ir, buf)) {
        lg_kernel_destroy(k);
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate a folded constant of %zu bytes",
                                lg_md_size(dst));
    }
    lg_arg args[2] = {{LG_ARG_SRC, (void *)src->data}, {LG_ARG_DST, buf}};
    /* Weights are small: one thread does them in microseconds, while a
     * parallel region can wait a scheduler slice for a busy second core. */
    int threads = omp_get_max_threads();
    bool small = lg_md_size(dst) < ((size_t)4 << 20);
    if (small) omp_set_num_threads(1);
    s = lg_kernel_execute(k, 2, args);
    if (small) omp_set_num_threads(threads);
    lg_kernel_destroy(k);
    if (s != LG_OK) return s;
    lg__value *out = &ir->vals[node->out];
    out->kind = LG_VAL_CONSTANT;
    out->data = buf;
    ir->folded++;
    lg__ir_sched_remove(ir, n);
    return LG_OK;
}

lg_status lg__pass_fold_constants(lg__graph *ir) {
    for (int i = 0; i < ir->nsched;) {
        int n = ir->sched[i];
        const lg__node *node = &ir->nodes[n];
        if (node->kind == LG_NODE_REORDER && !node->copy &&
            ir->vals[node->in[0]].kind == LG_VAL_CONSTANT && !lg__ir_is_output(ir, node->out)) {
            LG_CHECK(fold(ir, n));
            continue;
        }
        i++;
    }
    return LG_OK;
}
