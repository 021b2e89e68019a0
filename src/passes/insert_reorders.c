/* Pass "insert_reorders": wherever a node reads a value in a layout the value
 * does not have (in_md[i] differs from its md), or an output wants a layout
 * its value does not have, a reorder node is inserted. There is one reorder
 * per (value, layout), shared by every reader that needs it: it is placed
 * just before its first reader in the schedule (an output's right after the
 * value is produced). Then every output gets a value of its own, produced at
 * run time into the caller's buffer: an output whose value is an input, a
 * constant or already another output's gets a copy node. Required. */
#include "passes/passes.h"

#include <string.h>

/* The inserted (non-copy) reorder of v into md, or -1. */
static int find_reorder(const lg__graph *ir, lg_value v, const lg_md *md) {
    for (int n = 0; n < ir->nnodes; n++) {
        const lg__cnode *node = &ir->nodes[n];
        if (node->inserted && !node->copy && !node->dead && node->in[0] == v &&
            lg_md_equal(&node->p.reorder.dst, md))
            return n;
    }
    return -1;
}

/* Add a reorder node from v to md at schedule position pos; its result's
 * id into *out. */
static lg_status add_reorder(lg__graph *ir, lg_value v, const lg_md *md, int pos, bool copy,
                             lg_value *out) {
    lg__cnode node;
    memset(&node, 0, sizeof node);
    node.kind = LG_NODE_REORDER;
    node.nin = 1;
    node.in[0] = v;
    node.in_md[0] = ir->vals[v].md;
    node.p.reorder.dst = *md;
    node.inserted = true;
    node.copy = copy;
    node.sum_src = LG_NO_VALUE;
    node.out = (lg_value)ir->nvals;
    int n = lg__ir_add_node(ir, &node);
    if (n < 0) return LG_OUT_OF_MEMORY;
    lg__cvalue val = {.kind = LG_VAL_NODE, .md = *md, .producer = n, .input = -1};
    if (lg__ir_add_value(ir, &val) < 0) {
        ir->nodes[n].dead = true;
        return LG_OUT_OF_MEMORY;
    }
    *out = ir->nodes[n].out;
    return lg__ir_sched_insert(ir, pos, n);
}

/* Rewire the inputs of the node at schedule position *pos. */
static lg_status fix_inputs(lg__graph *ir, int *pos) {
    int n = ir->sched[*pos];
    for (int j = 0; j < ir->nodes[n].nin; j++) {
        lg_value v = ir->nodes[n].in[j];
        lg_md want = ir->nodes[n].in_md[j];
        if (lg_md_equal(&ir->vals[v].md, &want)) continue;
        int r = find_reorder(ir, v, &want);
        if (r >= 0) {
            ir->nodes[n].in[j] = ir->nodes[r].out;
            continue;
        }
        lg_value nv;
        LG_CHECK(add_reorder(ir, v, &want, *pos, false, &nv));
        ir->nodes[n].in[j] = nv;
        (*pos)++;
    }
    return LG_OK;
}

/* Schedule position right after v is produced (0 for inputs/constants). */
static int after_producer(const lg__graph *ir, lg_value v) {
    const lg__cvalue *val = &ir->vals[v];
    return val->kind == LG_VAL_NODE ? lg__ir_sched_pos(ir, val->producer) + 1 : 0;
}

lg_status lg__pass_insert_reorders(lg__graph *ir) {
    for (int i = 0; i < ir->nsched; i++) LG_CHECK(fix_inputs(ir, &i));
    for (int o = 0; o < ir->nouts; o++) {
        lg_value v = ir->outs[o].v;
        lg_md want = ir->outs[o].md;
        if (!lg_md_equal(&ir->vals[v].md, &want)) {
            int r = find_reorder(ir, v, &want);
            if (r >= 0)
                v = ir->nodes[r].out;
            else
                LG_CHECK(add_reorder(ir, v, &want, after_producer(ir, v), false, &v));
        }
        bool taken = ir->vals[v].kind != LG_VAL_NODE;
        for (int p = 0; p < o && !taken; p++) taken = ir->outs[p].v == v;
        if (taken) LG_CHECK(add_reorder(ir, v, &want, ir->nsched, true, &v));
        ir->outs[o].v = v;
    }
    return LG_OK;
}
