# The OPTIMAL strategy's minimum-cost assignment solver (src/passes/solver*).
lg_add_test(passes_solver SOURCES passes/test_solver.c)
lg_add_test(passes_solver_fallback SOURCES passes/test_solver_fallback.c)
# User layout strategies over the lg_layout_problem view (src/passes/layout_view.c).
lg_add_test(passes_user_strategy SOURCES passes/test_user_strategy.c)
