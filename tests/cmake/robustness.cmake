# The hostile-input sweep and the issue-23 regressions (tests/robustness/,
# docs/reliability.md). Plain CTest cases: the README's test command and the
# CI's ASan + UBSan stage run them.
lg_add_test(robustness_sweep SOURCES robustness/test_sweep.c)
lg_add_test(robustness_sweep_graph SOURCES robustness/test_sweep_graph.c)
lg_add_test(robustness_regressions SOURCES robustness/test_regressions.c)
# A sweep case may ask for an allocation that cannot succeed: under ASan it
# must fail with NULL (as glibc's malloc does), not abort.
set_tests_properties(robustness_sweep robustness_sweep_graph robustness_regressions PROPERTIES
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1")
