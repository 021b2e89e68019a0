# The OPTIMAL strategy's minimum-cost assignment solver (src/passes/solver*).
lg_add_test(passes_solver SOURCES passes/test_solver.c)
lg_add_test(passes_solver_fallback SOURCES passes/test_solver_fallback.c)
