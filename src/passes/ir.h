/* Helpers on the compiler's working copy of a graph (lg__graph, declared in
 * src/graph/graph.h): copying it from the user's graph, adding values and
 * nodes, editing the schedule, counting uses. Node and value pointers are
 * invalidated by adding nodes or values: passes hold indices. */
#ifndef LG_PASSES_IR_H
#define LG_PASSES_IR_H

#include "graph/graph.h"

/* Copy g into ir (names and constant data are borrowed from g); the
 * schedule lists every node in the order added. */
LG_INTERNAL lg_status lg__ir_init(lg__graph *ir, const lg_graph *g);

/* Release what ir owns: arrays, folded buffers, kernel references. */
LG_INTERNAL void lg__ir_free(lg__graph *ir);

/* Append a copy of *v; returns its id or -1 when out of memory (error set). */
LG_INTERNAL int lg__ir_add_value(lg__graph *ir, const lg__value *v);

/* Append a copy of *node (not scheduled); returns its index or -1. */
LG_INTERNAL int lg__ir_add_node(lg__graph *ir, const lg__node *node);

/* Keep p (from lg__aligned_alloc) until ir is freed; false when out of memory
 * (p is then freed). */
LG_INTERNAL bool lg__ir_own(lg__graph *ir, void *p);

/* Position of node n in the schedule, -1 if not scheduled. */
LG_INTERNAL int lg__ir_sched_pos(const lg__graph *ir, int n);

/* Insert node n at position pos of the schedule (0 <= pos <= nsched). */
LG_INTERNAL lg_status lg__ir_sched_insert(lg__graph *ir, int pos, int n);

/* Remove node n from the schedule and mark it dead. */
LG_INTERNAL void lg__ir_sched_remove(lg__graph *ir, int n);

/* The values node reads: its inputs, then a fused sum's source. Returns the
 * count (at most LG_NODE_MAX_IN + 1). */
LG_INTERNAL int lg__ir_reads(const lg__node *node, lg_value *vs);

/* The mds of node's input values, into in[0..nin). */
LG_INTERNAL void lg__ir_in_mds(const lg__graph *ir, const lg__node *node, lg_md *in);

/* Create node's kernel for its values' current layouts and post-ops
 * (through the kind's create hook, so through the kernel cache). */
LG_INTERNAL lg_status lg__ir_create_kernel(const lg__graph *ir, const lg__node *node,
                                           lg_kernel **k);

/* uses[v] = edges from v into scheduled nodes plus outputs naming v. */
LG_INTERNAL void lg__ir_count_uses(const lg__graph *ir, int *uses);

/* True if some output names v. */
LG_INTERNAL bool lg__ir_is_output(const lg__graph *ir, lg_value v);

/* A compile-time error message: "lg_graph_compile: ..." */
#define LG_COMPILE_ERROR(status, ...) lg__error((status), "lg_graph_compile", __VA_ARGS__)

#endif /* LG_PASSES_IR_H */
