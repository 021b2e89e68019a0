/* The cost model the layout strategies and the plan statistics use.
 *
 * Costs are predicted times in nanoseconds, from the calibrated coefficient
 * table (cost_coefs.h; lgraph-calibrate fits it on the machine, the library
 * ships a default): a step of kind K costs fixed_ns + ns_per_byte * bytes +
 * ns_per_flop * flops under the entry of its key (kind, layer class with
 * ".slow" where the kind's cost hook reports a slowdown, layout families of
 * src and dst, data type).
 *  - A reorder: bytes read plus bytes written (padding included), under the
 *    key "reorder:reorder:<src family>><dst family>:<type>".
 *  - A node: the bytes of its inputs plus its result, and the flops its
 *    kind's cost hook reports (0 without one).
 * The cost of a layout assignment (lg__cost_assignment) is the cost of every
 * scheduled node in the layouts given to it, plus one reorder per distinct
 * (value, layout) pair a node input or an output needs and the value does
 * not have. Reorders of constants cost nothing (they are folded at compile
 * time) unless the result is a graph output. Fusion (when the fuse pass
 * runs): a node that can be a post-op (its kind's as_post_op: an eltwise, or
 * an add of the producer's result and another value) of a producer whose
 * kind accepts post-ops (conv), reading the producer's result in the
 * producer's own layout and writing that layout (a sum's other input too),
 * where that result has no other reader and is no output, costs nothing: it
 * becomes a post-op (lg__cost_fusable). Only this first step after the
 * producer is modelled; longer fused chains cost their other steps. */
#ifndef LG_PASSES_COST_MODEL_H
#define LG_PASSES_COST_MODEL_H

#include "passes/cost_coefs.h"
#include "passes/ir.h"

/* The coefficient table ir's compile uses (the default when ir is NULL or
 * has none). */
LG_INTERNAL const lg__cost_coefs *lg__cost_coefs_of(const lg__graph *ir);

/* Predicted ns of a reorder from src to dst. */
LG_INTERNAL double lg__cost_reorder(const lg__graph *ir, const lg_md *src, const lg_md *dst);

/* lg__cost_node, also giving the step's key (when key is non-NULL) and the
 * bytes the model counts (when bytes is non-NULL). */
LG_INTERNAL double lg__cost_node_ex(const lg__graph *ir, const lg__cnode *node, const lg_md *in_mds,
                                    const lg_md *out, char key[LG_COST_KEY_LEN], double *bytes);

/* Cost of running node with its inputs in in_mds[] and its result in *out. */
LG_INTERNAL double lg__cost_node(const lg__graph *ir, const lg__cnode *node, const lg_md *in_mds,
                                 const lg_md *out);

/* True if `node` (with inputs read as in_mds[], result in *out) would be
 * fused into the conv producing its input `slot`, whose result the conv
 * writes in *conv_out: the layout part of the fuse pass's rule (the caller
 * checks that the conv's result has this one reader and is no output). */
LG_INTERNAL bool lg__cost_fusable(const lg__graph *ir, const lg__cnode *node, int slot,
                                  const lg_md *in_mds, const lg_md *out, const lg_md *conv_out);

/* The conv whose result is read by node's input slot and could take node as
 * a post-op (ir->fuse, kinds, one reader, not an output), or -1. Layouts are
 * not looked at (see lg__cost_fusable). */
LG_INTERNAL int lg__cost_fusion_producer(const lg__graph *ir, const lg__cnode *node, int *slot);

/* Longest chain of nodes fused after one conv that the model follows. */
#define LG_COST_MAX_CHAIN 4

/* The fusion chain ending at node: the conv and the nodes the fuse pass
 * would fold into it before node (each a post-op of the one before, whose
 * result it alone reads), nodes[0] the conv, nodes[k] the k-th fused node;
 * slots[k] is the input of nodes[k + 1] (of node itself for the last) that
 * reads nodes[k]'s result. Returns the chain's length (0: node cannot be
 * fused; at most LG_COST_MAX_CHAIN). Layouts are not looked at. */
LG_INTERNAL int lg__cost_fusion_chain(const lg__graph *ir, const lg__cnode *node, int *nodes,
                                      int *slots);

/* True if, with chain member k reading in[k][] and writing *out[k] (k = len:
 * node itself), every link of the chain fuses (lg__cost_fusable): node then
 * costs nothing. */
LG_INTERNAL bool lg__cost_chain_fuses(const lg__graph *ir, const lg__cnode *node, const int *nodes,
                                      const int *slots, int len, const lg_md *const *in,
                                      const lg_md *const *out);

/* Cost of the current assignment: every scheduled node with its in_md[] and
 * its result's md, and the reorders the assignment implies (see above). */
LG_INTERNAL double lg__cost_assignment(const lg__graph *ir);

#endif /* LG_PASSES_COST_MODEL_H */
