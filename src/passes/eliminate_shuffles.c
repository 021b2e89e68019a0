/* Pass "eliminate_shuffles": a shuffle with group size G followed by a
 * shuffle along the same axis with group size C/G (C the axis' size) is the
 * identity: readers of the second result read the first shuffle's source,
 * and both shuffles leave the schedule once nothing reads them. Runs before
 * layouts are assigned, so the strategies never see the pair. A second
 * result that is a graph output stays (its buffer must be written).
 * Optional. */
#include "passes/passes.h"

static bool is_shuffle(const lg__graph *ir, int n) {
    return n >= 0 && ir->nodes[n].kind == LG_NODE_SHUFFLE && !ir->nodes[n].dead;
}

lg_status lg__pass_eliminate_shuffles(lg__graph *ir) {
    int *uses = lg__malloc((size_t)ir->nvals * sizeof *uses);
    if (!uses) return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot allocate the use counts");
    for (int i = 0; i < ir->nsched; i++) {
        int s2 = ir->sched[i];
        if (!is_shuffle(ir, s2)) continue;
        lg_value w = ir->nodes[s2].in[0];
        if (ir->vals[w].kind != LG_VAL_NODE || !is_shuffle(ir, ir->vals[w].producer)) continue;
        int s1 = ir->vals[w].producer, axis = ir->nodes[s1].p.shuffle.axis;
        int64_t c = ir->vals[w].md.dims[axis];
        if (ir->nodes[s2].p.shuffle.axis != axis ||
            ir->nodes[s1].p.shuffle.group_size * ir->nodes[s2].p.shuffle.group_size != c)
            continue;
        lg_value src = ir->nodes[s1].in[0], out = ir->nodes[s2].out;
        if (lg__ir_is_output(ir, out)) continue;
        for (int k = 0; k < ir->nsched; k++) {
            lg__cnode *node = &ir->nodes[ir->sched[k]];
            for (int j = 0; j < node->nin; j++)
                if (node->in[j] == out) node->in[j] = src;
        }
        lg__ir_sched_remove(ir, s2);
        lg__ir_count_uses(ir, uses);
        if (uses[w] == 0) lg__ir_sched_remove(ir, s1);
        if (lg__verbose())
            lg__verbose_printf("lgraph: eliminate_shuffles: shuffles %d, %d are the identity\n", s1,
                               s2);
        i = -1; /* positions moved: start over (graphs are small) */
    }
    lg__free(uses);
    return LG_OK;
}
