/* A user strategy (lg_compile_options.strategy_fn): build the view of the
 * layout problem (layout_view.h), call the strategy, check its answer and
 * give ir the layouts it chose. The rest of the pipeline runs as for a
 * built-in strategy. The assignment is never marked exact. */
#include "passes/layout_view.h"
#include "passes/passes.h"

lg_status lg__propagate_user(lg__graph *ir) {
    lg_layout_problem p;
    LG_CHECK(lg__layout_view_build(ir, &p));
    lg_status st = ir->user_strategy(&p, ir->user_data);
    if (st != LG_OK && p.why[0])
        st = LG_COMPILE_ERROR(st, "user strategy: %s", p.why);
    else if (st != LG_OK)
        st = LG_COMPILE_ERROR(st, "user strategy returned %s", lg_status_str(st));
    else if (!p.chosen && p.why[0])
        st = LG_COMPILE_ERROR(LG_INVALID_ARGUMENT, "user strategy: %s", p.why);
    else if (!p.chosen)
        st = LG_COMPILE_ERROR(LG_INVALID_ARGUMENT,
                              "user strategy returned LG_OK without calling lg_layout_choose");
    if (st == LG_OK) {
        lg__layout_space_apply(ir, &p.s, p.choice);
        ir->exact = false;
        if (lg__verbose())
            lg__verbose_printf("lgraph: user strategy: %d problem nodes, %d edges\n", p.s.nvars,
                               p.nedges);
    }
    lg__layout_view_free(&p);
    return st;
}
