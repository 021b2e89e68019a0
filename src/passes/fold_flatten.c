/* Pass "fold_flatten": a node that only flattens its input ([N, C, H, W]
 * -> [N, C*H*W]; ops->is_flatten) whose every reader may read that input
 * unflattened (ops->reads_unflat, an inner product's src) is removed: its
 * readers read the unflattened tensor, and the constant that goes with it
 * (ops->unflat_with, the weights [OC, C*H*W]) is replaced by the same data
 * seen as [OC, C, H, W] (lg_md_reshape: no copy). Runs before layouts are
 * chosen, so the tensor keeps whatever layout its producer writes and no
 * reorder is needed for the flatten. A flatten that is a graph output, or
 * read by anything else, stays. Optional. */
#include "passes/passes.h"

#include <string.h>

/* True if node j reads v only where it may take it unflattened, with a
 * constant companion that reshapes; *slot gets the input. */
static bool reads_flat(const lg__graph *ir, const lg__cnode *node, lg_value v, const lg_md *unflat,
                       lg_md *comp) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    int slot = -1;
    for (int i = 0; i < node->nin; i++) {
        if (node->in[i] != v) continue;
        if (!(ops->reads_unflat & (1u << i)) || slot >= 0) return false;
        slot = i;
    }
    if (node->sum_src == v || slot < 0) return false;
    int c = ops->unflat_with;
    if (c == slot || c >= node->nin) return false;
    const lg__cvalue *cv = &ir->vals[node->in[c]];
    if (cv->kind != LG_VAL_CONSTANT || cv->md.ndims != 2) return false;
    int64_t dims[LG_MAX_NDIMS];
    memcpy(dims, unflat->dims, sizeof dims);
    dims[0] = cv->md.dims[0];
    if (lg_md_reshape(&cv->md, unflat->ndims, dims, comp) != LG_OK) return false;
    /* The reader must accept the new shapes. */
    lg_md in[LG_NODE_MAX_IN], out;
    lg__ir_in_mds(ir, node, in);
    in[slot] = *unflat;
    in[c] = *comp;
    return ops->infer(&node->base, in, 0, &out, NULL) == LG_OK;
}

static lg_status fold(lg__graph *ir, int r) {
    const lg__cnode *rn = &ir->nodes[r];
    lg_value v = rn->out, src = rn->in[0];
    if (lg__ir_is_output(ir, v)) return LG_OK;
    lg_md unflat = ir->vals[src].md;
    int readers = 0;
    for (int i = 0; i < ir->nsched; i++) {
        const lg__cnode *node = &ir->nodes[ir->sched[i]];
        bool reads = node->sum_src == v;
        for (int j = 0; j < node->nin; j++) reads = reads || node->in[j] == v;
        if (!reads) continue;
        lg_md comp;
        if (!reads_flat(ir, node, v, &unflat, &comp)) return LG_OK;
        readers++;
    }
    if (!readers) return LG_OK;
    for (int i = 0; i < ir->nsched; i++) {
        int n = ir->sched[i];
        lg_md comp;
        if (!reads_flat(ir, &ir->nodes[n], v, &unflat, &comp)) continue;
        const lg__node_ops *ops = lg__node_ops_of(ir->nodes[n].kind);
        int c = ops->unflat_with;
        lg__cvalue cv = ir->vals[ir->nodes[n].in[c]];
        cv.md = comp;
        cv.name = NULL;
        cv.producer = -1;
        int id = lg__ir_add_value(ir, &cv);
        if (id < 0) return LG_OUT_OF_MEMORY;
        lg__cnode *node = &ir->nodes[n];
        for (int j = 0; j < node->nin; j++)
            if (node->in[j] == v) node->in[j] = src;
        node->in[c] = (lg_value)id;
    }
    if (lg__verbose())
        lg__verbose_printf("lgraph: fold_flatten: flatten node %d folded into %d reader(s)\n", r,
                           readers);
    lg__ir_sched_remove(ir, r);
    return LG_OK;
}

lg_status lg__pass_fold_flatten(lg__graph *ir) {
    for (int i = 0; i < ir->nsched; i++) {
        int r = ir->sched[i];
        const lg__cnode *rn = &ir->nodes[r];
        const lg__node_ops *ops = lg__node_ops_of(rn->kind);
        if (!ops->is_flatten) continue;
        lg_md in[LG_NODE_MAX_IN];
        lg__ir_in_mds(ir, rn, in);
        if (!ops->is_flatten(&rn->base, in, &ir->vals[rn->out].md)) continue;
        int before = ir->nsched;
        LG_CHECK(fold(ir, r));
        if (ir->nsched != before) i--; /* the schedule moved up by one */
    }
    return LG_OK;
}
