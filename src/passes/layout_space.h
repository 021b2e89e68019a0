/* The search space of LG_STRATEGY_OPTIMAL: for every scheduled node a list of
 * configurations (the layout each input is read in and the layout its result
 * is written in), for every "any" graph input a list of layouts, and the
 * factor problem whose minimum over those choices is the minimum of
 * lg__cost_assignment (src/passes/cost_model.h).
 *
 * Variables: one per scheduled node and one per "any" input. Candidate 0 of
 * every variable is what GREEDY chose and candidate 1 (when it differs) what
 * NONE chose, so both strategies' assignments lie in the space and the
 * optimum can never be worse than either. The other candidates: every
 * combination the node can run in over the candidate layouts of its tensors
 * (plain, channels-last, and channel-blocked with the block of this CPU).
 *
 * Factors: one unary factor per node variable (lg__cost_node of each
 * configuration) and, per value, binary auxiliary variables "the value exists
 * in layout L" with small factors tying them to the producer (which pays one
 * reorder into each such L it does not store) and to the readers and outputs
 * (which need their layouts to exist). Minimised over the auxiliaries, the
 * sum is lg__cost_assignment of the applied choice exactly: one reorder per
 * distinct (value, layout) needed, shared by every reader, and no table grows
 * with the number of readers. */
#ifndef LG_PASSES_LAYOUT_SPACE_H
#define LG_PASSES_LAYOUT_SPACE_H

#include "passes/ir.h"
#include "passes/solver.h"

typedef struct lg__layout_var {
    int node;            /* scheduled node index, or -1 for an "any" input */
    lg_value value;      /* the node's result or the input */
    int ncfg;            /* candidates (>= 1) */
    lg__layout_cfg *cfg; /* for a node: in[] and out; for an input: out */
} lg__layout_var;

typedef struct lg__layout_space {
    int nvars; /* the layout variables (vars[]) */
    lg__layout_var *vars;
    int naux;   /* binary auxiliaries after them (see layout_space.c) */
    int *ncand; /* nvars + naux entries, for the solver */
    int *start; /* GREEDY's assignment of all nvars + naux */
    int nfactors, capfactors;
    lg__solver_factor *factors; /* tables owned by the space */
    bool *out_any;              /* outputs wanted as "any" (resolved by apply) */
    bool too_large;             /* a value's factor could not be built (see fits) */
    const char *why;            /* static reason when too_large */
} lg__layout_space;

/* Build the space of ir (shapes inferred, layouts not yet assigned: the
 * state lg__pass_propagate_layouts starts from). Runs GREEDY and NONE on ir
 * to seed candidates 0 and 1 and restores ir afterwards. When a value has
 * more readers than a factor may hold or its table would be too large, the
 * factors are not built and s->too_large says why (the caller falls back).
 * On error nothing is leaked and ir is restored. */
LG_INTERNAL lg_status lg__layout_space_build(lg__graph *ir, lg__layout_space *s);

/* Give ir the layouts of `choice` (one candidate per variable): every node's
 * in_md[] and result md, every "any" input's md, every output that was wanted
 * as "any" resolved to its value's layout. May be applied again with another
 * choice. */
LG_INTERNAL void lg__layout_space_apply(lg__graph *ir, const lg__layout_space *s,
                                        const int *choice);

/* Free what the space owns; s may be zeroed or partly built. */
LG_INTERNAL void lg__layout_space_free(lg__layout_space *s);

#endif /* LG_PASSES_LAYOUT_SPACE_H */
