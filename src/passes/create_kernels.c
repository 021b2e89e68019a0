/* Pass "create_kernels": create the kernel of every scheduled node for its
 * final layouts and post-ops, through the public creators and so through the
 * kernel cache (a plan compiled twice shares its kernels). Required. */
#include "passes/passes.h"

lg_status lg__pass_create_kernels(lg__graph *ir) {
    for (int i = 0; i < ir->nsched; i++) {
        int n = ir->sched[i];
        lg__cnode *node = &ir->nodes[n];
        const lg__node_ops *ops = lg__node_ops_of(node->kind);
        lg_kernel *k = NULL;
        lg_status s = lg__ir_create_kernel(ir, node, &k);
        if (s != LG_OK) {
            char why[512];
            return LG_COMPILE_ERROR(s, "node %d (%s): cannot create its kernel: %s", n, ops->name,
                                    lg__why(why, sizeof why));
        }
        lg_kernel_destroy(node->kernel);
        node->kernel = k;
    }
    return LG_OK;
}
