/* The cost model the layout strategies and the plan statistics use.
 *
 * Costs are in byte-equivalents: moving one byte (read or written) costs 1.
 *  - A reorder costs the bytes it reads plus the bytes it writes (padding
 *    included: lg_md_size of src and dst).
 *  - A memory-bound node (eltwise, binary, shuffle, explicit reorder) costs
 *    the bytes of its inputs plus the bytes of its result.
 *  - A node whose kind has a cost hook (conv) costs its bytes plus its
 *    flops times LG_COST_PER_FLOP times the slowdown its kernel reports for
 *    the layouts it runs in (conv: 1 for channel-blocked activations, more
 *    for channels-last, more again for plain nchw; lg__conv_slowdown).
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

#include "passes/ir.h"

/* One flop of a conv in its best layout, in byte-equivalents: a core does
 * about ten f32 flops of a blocked conv in the time it moves one byte. */
#define LG_COST_PER_FLOP 0.1

/* Bytes read + written by a reorder from src to dst. */
LG_INTERNAL double lg__cost_reorder(const lg_md *src, const lg_md *dst);

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

/* Cost of the current assignment: every scheduled node with its in_md[] and
 * its result's md, and the reorders the assignment implies (see above). */
LG_INTERNAL double lg__cost_assignment(const lg__graph *ir);

#endif /* LG_PASSES_COST_MODEL_H */
