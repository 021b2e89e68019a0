/* The compile passes (one file each; their order is in passes.c) and the
 * plan builder they hand over to. Each pass takes the working copy of the
 * graph and returns a status with lg_last_error set on failure. */
#ifndef LG_PASSES_PASSES_H
#define LG_PASSES_PASSES_H

#include "passes/ir.h"

typedef lg_status (*lg__pass_fn)(lg__graph *ir);

LG_INTERNAL lg_status lg__pass_infer_shapes(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_propagate_layouts(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_insert_reorders(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_eliminate_shuffles(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_fold_flatten(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_eliminate_reorders(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_fuse_shuffle_reorder(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_fold_constants(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_fold_batchnorm(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_fuse(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_concat_inplace(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_plan_memory(lg__graph *ir);
LG_INTERNAL lg_status lg__pass_create_kernels(lg__graph *ir);

/* Build the plan from a compiled graph (src/passes/plan_build.c): place what
 * the memory planner left unplaced (inputs, outputs, constants, which the
 * plan copies, and intermediates when plan_memory was skipped), turn every
 * scheduled node into a step (taking its kernel reference), add a copy step
 * before a node whose fused sum source is not already in its result's
 * buffer, and fill the statistics but compile_ms. */
LG_INTERNAL lg_status lg__plan_build(lg__graph *ir, int num_threads, lg_plan **out);

/* Layout strategies (src/passes/propagate*.c). On entry every input's md is
 * the user's (possibly "any"), every constant's is concrete, every node
 * result's is "any" (dims and type set; an explicit reorder's is its dst) and
 * every output's is the requested layout or "any". A strategy must give a
 * concrete md to every value, fill in_md[] (the layout each input is read
 * in; a reorder goes wherever it differs from the value's md) of every
 * scheduled node, resolve every "any" output, and set ir->exact. */
typedef lg_status (*lg__strategy_fn)(lg__graph *ir);

/* Run node n's NONE (greedy false) or GREEDY layout hook: its in_md[] and
 * its result's md from its inputs' current mds. */
LG_INTERNAL lg_status lg__ir_layout(lg__graph *ir, int n, bool greedy);
LG_INTERNAL lg_status lg__propagate_none(lg__graph *ir);

/* The strategy's name, "greedy" ("unknown" for none): the one table of
 * strategies and their names is in propagate.c. */
LG_INTERNAL const char *lg__strategy_name(lg_strategy s);
LG_INTERNAL lg_status lg__propagate_greedy(lg__graph *ir);
LG_INTERNAL lg_status lg__propagate_optimal(lg__graph *ir);
/* ir->user_strategy over the view of lg_layout_problem (propagate_user.c). */
LG_INTERNAL lg_status lg__propagate_user(lg__graph *ir);

#endif /* LG_PASSES_PASSES_H */
