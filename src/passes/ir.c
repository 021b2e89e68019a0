/* The compiler's working copy of a graph: copy, grow, schedule edits. */
#include "passes/ir.h"

#include <string.h>

lg_status lg__ir_init(lg__graph *ir, const lg_graph *g) {
    memset(ir, 0, sizeof *ir);
    ir->src = g;
    ir->capv = g->nvals > 4 ? g->nvals * 2 : 8;
    ir->capn = g->nnodes > 4 ? g->nnodes * 2 : 8;
    ir->capsched = g->nnodes * 2 + 8;
    ir->vals = lg__calloc((size_t)ir->capv, sizeof *ir->vals);
    ir->nodes = lg__calloc((size_t)ir->capn, sizeof *ir->nodes);
    ir->outs = lg__malloc((size_t)(g->nouts + 1) * sizeof *ir->outs);
    ir->sched = lg__malloc((size_t)ir->capsched * sizeof *ir->sched);
    if (!ir->vals || !ir->nodes || !ir->outs || !ir->sched) {
        lg__ir_free(ir);
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot copy the graph");
    }
    ir->nvals = g->nvals;
    ir->nnodes = g->nnodes;
    ir->nouts = g->nouts;
    ir->ninputs = g->ninputs;
    if (g->nouts) memcpy(ir->outs, g->outs, (size_t)g->nouts * sizeof *ir->outs);
    for (int i = 0; i < ir->nvals; i++) {
        ir->vals[i].base = g->vals[i];
        ir->vals[i].place.base = -1;
    }
    for (int n = 0; n < ir->nnodes; n++) {
        ir->nodes[n].base = g->nodes[n];
        ir->nodes[n].sum_src = lg__node_sum_operand(&g->nodes[n]);
        ir->sched[n] = n;
    }
    ir->nsched = ir->nnodes;
    return LG_OK;
}

void lg__ir_free(lg__graph *ir) {
    for (int n = 0; n < ir->nnodes; n++) lg_kernel_destroy(ir->nodes[n].kernel);
    for (int i = 0; i < ir->nowned; i++) lg__free(ir->owned[i]);
    lg__free(ir->owned);
    lg__free(ir->vals);
    lg__free(ir->nodes);
    lg__free(ir->outs);
    lg__free(ir->sched);
    memset(ir, 0, sizeof *ir);
}

int lg__ir_add_value(lg__graph *ir, const lg__cvalue *v) {
    if (!lg__grow((void **)&ir->vals, ir->nvals, &ir->capv, sizeof *ir->vals)) {
        LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot grow the value array");
        return -1;
    }
    ir->vals[ir->nvals] = *v;
    ir->vals[ir->nvals].place.base = -1;
    return ir->nvals++;
}

int lg__ir_add_node(lg__graph *ir, const lg__cnode *node) {
    if (!lg__grow((void **)&ir->nodes, ir->nnodes, &ir->capn, sizeof *ir->nodes)) {
        LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot grow the node array");
        return -1;
    }
    ir->nodes[ir->nnodes] = *node;
    return ir->nnodes++;
}

bool lg__ir_own(lg__graph *ir, void *p) {
    if (!lg__grow((void **)&ir->owned, ir->nowned, &ir->capowned, sizeof *ir->owned)) {
        lg__free(p);
        return false;
    }
    ir->owned[ir->nowned++] = p;
    return true;
}

int lg__ir_sched_pos(const lg__graph *ir, int n) {
    for (int i = 0; i < ir->nsched; i++)
        if (ir->sched[i] == n) return i;
    return -1;
}

lg_status lg__ir_sched_insert(lg__graph *ir, int pos, int n) {
    if (!lg__grow((void **)&ir->sched, ir->nsched, &ir->capsched, sizeof *ir->sched))
        return LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "cannot grow the schedule");
    memmove(ir->sched + pos + 1, ir->sched + pos, (size_t)(ir->nsched - pos) * sizeof *ir->sched);
    ir->sched[pos] = n;
    ir->nsched++;
    return LG_OK;
}

void lg__ir_sched_remove(lg__graph *ir, int n) {
    int pos = lg__ir_sched_pos(ir, n);
    if (pos >= 0) {
        memmove(ir->sched + pos, ir->sched + pos + 1,
                (size_t)(ir->nsched - pos - 1) * sizeof *ir->sched);
        ir->nsched--;
    }
    ir->nodes[n].dead = true;
}

int lg__ir_reads(const lg__cnode *node, lg_value *vs) {
    int k = 0;
    for (int i = 0; i < node->nin; i++) vs[k++] = node->in[i];
    if (node->sum_src != LG_NO_VALUE) vs[k++] = node->sum_src;
    return k;
}

void lg__ir_in_mds(const lg__graph *ir, const lg__cnode *node, lg_md *in) {
    for (int i = 0; i < node->nin; i++) in[i] = ir->vals[node->in[i]].md;
}

/* The node as its kernel is made (in[]: its input mds): node->base, or a
 * copy in *tmp, as the kind's as_run hook makes it under the compile's
 * options (a conv's conv_alg). */
static const lg__node *kernel_node(const lg__graph *ir, const lg__cnode *node, const lg_md *in,
                                   lg__node *tmp) {
    const lg__node_opts o = {ir->conv_alg};
    return lg__node_as_run(&node->base, in, &ir->vals[node->out].md, &o, tmp);
}

lg_status lg__ir_create_kernel(const lg__graph *ir, const lg__cnode *node, lg_kernel **k) {
    lg_md in[LG_NODE_MAX_IN];
    lg__ir_in_mds(ir, node, in);
    lg__node conv;
    const lg__node *base = kernel_node(ir, node, in, &conv);
    return lg__node_ops_of(node->kind)
        ->create(base, in, &ir->vals[node->out].md, node->npost, node->post, k);
}

bool lg__ir_kernel_fast(const lg__graph *ir, const lg__cnode *node) {
    const lg__node_ops *ops = lg__node_ops_of(node->kind);
    if (!ops->runs_fast) return false;
    lg_md in[LG_NODE_MAX_IN];
    lg__ir_in_mds(ir, node, in);
    lg__node conv;
    const lg__node *base = kernel_node(ir, node, in, &conv);
    return ops->runs_fast(base, in, &ir->vals[node->out].md, node->npost, node->post);
}

void lg__ir_count_uses(const lg__graph *ir, int *uses) {
    for (int v = 0; v < ir->nvals; v++) uses[v] = 0;
    for (int i = 0; i < ir->nsched; i++) {
        lg_value vs[LG_NODE_MAX_IN + 1];
        int k = lg__ir_reads(&ir->nodes[ir->sched[i]], vs);
        for (int j = 0; j < k; j++) uses[vs[j]]++;
    }
    for (int o = 0; o < ir->nouts; o++) uses[ir->outs[o].v]++;
}

bool lg__ir_is_output(const lg__graph *ir, lg_value v) {
    for (int o = 0; o < ir->nouts; o++)
        if (ir->outs[o].v == v) return true;
    return false;
}

lg_value lg__ir_home_root(const lg__graph *ir, lg_value v, int64_t *off) {
    int64_t o = 0;
    for (int hops = 0; ir->vals[v].homed && hops < ir->nvals; hops++) {
        o += ir->vals[v].home_off;
        v = ir->vals[v].home;
    }
    if (off) *off = o;
    return v;
}
