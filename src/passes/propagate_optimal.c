/* The OPTIMAL strategy: the layout assignment of minimum modelled cost over
 * the whole graph (src/passes/cost_model.h), found exactly by the solver
 * (src/passes/solver.h) over the space of layout_space.h.
 *
 * Guarantee: GREEDY's assignment is candidate 0 of every variable and is the
 * solver's start, so the result never costs more than GREEDY's (nor NONE's,
 * which is in the space too). ir->exact is true when the solver proved the
 * minimum; it is false when the space was too large to build (then GREEDY's
 * assignment is used as it is) or the solver needed its local-search
 * fallback (then the result is at most GREEDY's cost). LG_VERBOSE says which.
 *
 * The margin (lg_compile_options.optimal_margin): when the minimum saves
 * less than that fraction of GREEDY's modelled cost, the plan keeps
 * GREEDY's assignment (ir->kept_greedy): the model's error on a whole plan
 * is a few per cent, so a smaller predicted saving is as likely a loss. */
#include "passes/layout_space.h"
#include "passes/passes.h"

#include <stdio.h>

lg_status lg__propagate_optimal(lg__graph *ir) {
    lg__layout_space s;
    LG_CHECK(lg__layout_space_build(ir, &s));
    int *choice = lg__calloc((size_t)(s.nvars + s.naux) + 1, sizeof(int));
    lg_status st = LG_OK;
    if (!choice) st = LG_COMPILE_ERROR(LG_OUT_OF_MEMORY, "out of memory");
    if (st == LG_OK && s.too_large) {
        if (lg__verbose())
            lg__verbose_printf("lgraph: optimal: %s; using the greedy assignment\n", s.why);
        lg__layout_space_apply(ir, &s, s.start); /* all GREEDY */
        ir->exact = false;
        snprintf(ir->inexact, sizeof ir->inexact,
                 "layout space not built (%s): GREEDY's assignment", s.why);
    } else if (st == LG_OK) {
        lg__solver_problem p = {.nvars = s.nvars + s.naux,
                                .ncand = s.ncand,
                                .nfactors = s.nfactors,
                                .factors = s.factors};
        lg__solver_limits lim;
        lg__solver_limits_init(&lim);
        lim.start = s.start;
        lg__solver_result r = {.choice = choice};
        st = lg__solver_solve(&p, &lim, &r);
        if (st == LG_OK) {
            /* The margin: GREEDY's assignment unless the minimum (or the
             * fallback's best) is clearly cheaper under the model. */
            double greedy = lg__solver_cost(&p, s.start);
            ir->kept_greedy = r.cost > greedy * (1.0 - ir->optimal_margin) && r.cost < greedy;
            lg__layout_space_apply(ir, &s, ir->kept_greedy ? s.start : choice);
            ir->exact = r.exact;
            ir->cost_gap = (ir->kept_greedy ? greedy : r.cost) - r.lower_bound;
            if (!r.exact)
                snprintf(ir->inexact, sizeof ir->inexact,
                         "solver fallback: %d of %d variables too wide for exact elimination "
                         "(tables of %lld entries, %lld entries of work)",
                         r.core, p.nvars, (long long)lim.max_table_entries,
                         (long long)lim.max_work);
            if (lg__verbose())
                lg__verbose_printf("lgraph: optimal: %d variables, cost %.6g, %s (%s); greedy's "
                                   "%.6g%s\n",
                                   s.nvars, r.cost, r.exact ? "exact" : "not proven exact",
                                   r.method, greedy,
                                   ir->kept_greedy ? ": kept (inside the margin)" : "");
        }
    }
    lg__free(choice);
    lg__layout_space_free(&s);
    return st;
}
